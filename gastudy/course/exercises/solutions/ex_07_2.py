# Exercise 07.2 — how small may BatchNorm's microbatch be? (MB-8)
# Measure the gap for every m that divides 32 and take the smallest below 0.5.
from gastudy.course.labs.experiment import bn_gap

gaps = {m: bn_gap(m, 32 // m) for m in (2, 4, 8, 16, 32)}
print(gaps)                                         # the gap shrinks as m grows; 0 at m = 32
answer = min(m for m, g in gaps.items() if g < 0.5)

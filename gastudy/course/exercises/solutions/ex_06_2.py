# Exercise 06.2 — the global denominator (MB-7)
from gastudy.course.demos.ddp import compare_denominators

result = compare_denominators(2, 2, 4)            # what the lab ran
answer = sum(result["items_per_replica"])         # every replica divides by the whole group's count

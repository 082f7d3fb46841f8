# Exercise 01.1 — 96 samples, m=8, A=4
# 96 / 8 = 12 microbatches; each has one forward and one backward.
# 12 / 4 = 3 groups, each ends in one optimizer update.
answer = {"microbatches": 12, "backward_passes": 12, "updates": 3}

# Exercise 04.2 — 1,000 samples, m=8, A=4, keep the short group
# ⌈1000 / 8⌉ = 125 microbatches; ⌈125 / 4⌉ = 32 updates: the schedule must span 32 steps.
answer = 32

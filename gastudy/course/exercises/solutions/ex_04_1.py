# Exercise 04.1 — 50 samples, m=4, A=3
# 50 / 4 → 12 full microbatches + 1 of 2 samples = 13 microbatches.
# 13 / 3 → 4 full groups + 1 short group holding only the last microbatch (2 samples).
answer = {"keep_updates": 5, "drop_updates": 4, "dropped_samples": 2}

# Exercise 13.1 — the budget inequality solved for m (chapter 13)
MiB = 2**20
fixed = 2_000_000 * (4 + 4 + 8)        # weights, gradients, AdamW's two moments
answer = (200 * MiB - fixed) // (3 * MiB)   # 56 samples, before the backward's temporaries

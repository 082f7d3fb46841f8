# Exercise 10.1 — a bf16 configuration with A = 8 that passes (MB-10)
from gastudy.course.labs.verify_lab import verify

answer = {"precision": "bf16", "accumulation_steps": 8, "micro_batch": 2, "normalization": "tokens"}
print(verify(**answer))     # token normalization: the gap stays within bf16's tolerance

# Exercise 09.1 — the microbatch sizes the planner measures (MB-9)
from gastudy.memory.planner import candidate_micro_batches

answer = candidate_micro_batches(48, 2)     # divisors of 24: [1, 2, 3, 4, 6, 8, 12, 24]

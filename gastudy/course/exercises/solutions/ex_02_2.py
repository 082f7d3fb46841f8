# Exercise 02.2 — 256 samples per update with m=8 on D=4 replicas
# A = 256 / (m × D) = 256 / 32
from gastudy.core.plan import plan_from_target

answer = plan_from_target(256, micro_batch=8, replicas=4).accumulation_steps  # 8

# Exercise 02.1 — 8 GPUs, tensor-parallel size 2, m=4, A=4
# Each model copy spans 2 GPUs, so there are 8 / 2 = 4 data-parallel replicas (D = 4).
# Effective batch = m × A × D = 4 × 4 × 4.
answer = 64

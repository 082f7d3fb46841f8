# Exercise 05.2 — 10 updates attempted, the scaler skips 2
answer = {"attempted": 10, "applied": 8, "scheduler_steps": 8}

# Exercise 10.2 — the short last group of the default record (MB-10)
from gastudy.course.labs.verify_lab import record_run

last = record_run().record.last_group          # policy, A and the short groups
answer = len(last["groups"][0]["sample_ids"])  # 150 = 9 × 16 + 6 → 6 samples

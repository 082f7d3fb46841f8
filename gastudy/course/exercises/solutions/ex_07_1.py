# Exercise 07.1 — updates in one epoch (MB-8)
# One update takes m × A × D = 6 × 8 × 1 = 48 samples; 1000 samples give 20 full groups
# and one short last group (40 samples), which this run keeps.
import math

from gastudy.core.plan import BatchPlan
from gastudy.course.labs.experiment import count_updates

answer = math.ceil(1000 / 48)                      # 21
assert answer == count_updates(1000, BatchPlan(6, 8)).updates  # counted on the real stream

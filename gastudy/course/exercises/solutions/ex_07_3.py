# Exercise 07.3 — same number of updates after doubling A (MB-8)
from gastudy.core.plan import BatchPlan
from gastudy.course.labs.experiment import count_updates

before = 10 * count_updates(1000, BatchPlan(8, 4)).updates   # 10 epochs × 32 updates
per_epoch = count_updates(1000, BatchPlan(8, 8)).updates     # 16 updates per epoch
answer = before / per_epoch                                   # 20 epochs: twice the samples

# Exercise 06.1 — all-reduces per update with and without no_sync (MB-7)
from gastudy.course.labs.data_parallel import count_with_and_without

counts = count_with_and_without(2, 6)          # one launch of 2 processes, both settings
answer = (counts.with_no_sync["calls_per_update"], counts.without["calls_per_update"])   # (1, 6)

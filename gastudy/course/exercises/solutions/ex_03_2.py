# Exercise 03.2 — (100·1 + 300·2 + 600·3) / (100 + 300 + 600) = 2500 / 1000
answer = 2.5  # the mean of means would say 2.0 and over-weight the 100-item microbatch

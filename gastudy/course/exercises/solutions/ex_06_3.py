# Exercise 06.3 — FSDP2 with sync 'every': reduce-scatters and held gradient bytes (MB-7)
from gastudy.course.demos.fsdp import measure_sharded

fsdp = measure_sharded(4, "every", replicas=2, updates=1)["fsdp"]   # A = 4, D = 2, on the warm pool
modules = 4 + 1                        # tiny-gpt's 4 blocks and the root are each one FSDP module
whole = fsdp["unsharded_gradient_bytes"]  # the whole fp32 gradient, in bytes
answer = {"reduce_scatters": 4 * modules,   # every backward reduce-scatters every module: A × 5 = 20
          "gradient_bytes": whole // 2}      # each replica keeps its 1/D shard of the gradient

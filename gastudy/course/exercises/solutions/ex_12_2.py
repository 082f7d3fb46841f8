# Exercise 12.2 — bytes kept for backward by one sample (CK-1, MB-12)
from gastudy.memory.saved import saved_bytes
from gastudy.memory.workload import build_for_measurement, synthetic_microbatches

net = build_for_measurement("tiny-gpt", model_kwargs={"hidden": 128, "layers": 4, "heads": 4})
batch = synthetic_microbatches(net, 1, 1, 32)[0]   # one sample of 32 tokens
answer = saved_bytes(net, batch).total             # exact bytes, each storage counted once
print(f"{answer:,} bytes")

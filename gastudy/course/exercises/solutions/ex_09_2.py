# Exercise 09.2 — predict the fixed part from the parameter count (MB-9)
from gastudy.course.models import build_model, parameter_count

params = parameter_count(build_model("tiny-gpt", hidden=384, layers=4, heads=4))
answer = params * 4 * 4     # float32 (4 bytes) × (weights + gradients + AdamW's two moments)
print(f"{params:,} parameters → {answer:,} bytes")

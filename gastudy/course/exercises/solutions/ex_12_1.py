# Exercise 12.1 — what a smaller microbatch really saves (MB-9, MB-12)
from gastudy.course.labs.questions import ask

e = ask("memory-saved").evidence                  # exact tensor bytes, measured now
before = e["fixed_m16"] + e["saved_m16"]          # weights + gradients + AdamW state + activations, m = 16
after = e["fixed_m2"] + e["saved_m2"]             # the same at m = 2, A = 8 (same effective batch)
answer = (before - after) / before                # the fixed part does not change
print(f"activations {e['saved_m16'] / e['saved_m2']:.0f}× smaller, all tensor bytes {answer:.1%} smaller")

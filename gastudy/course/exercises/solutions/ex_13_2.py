# Exercise 13.2 — the ladder on a GPU, fp32 then bf16 (chapter 13)
answer = [f"{p}{rung}" for p in ("fp32", "bf16")
          for rung in ("", " · checkpoint 1/2", " · checkpoint 1/1", " · checkpoint 1/1 · offload")]

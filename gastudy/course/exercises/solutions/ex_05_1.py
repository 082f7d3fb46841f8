# Exercise 05.1 — after the group's last backward, fp16 with a GradScaler
answer = ["unscale_", "clip", "step", "update", "scheduler", "zero_grad"]
# unscale_ once → clip the true gradients → scaler.step (may skip) → scaler.update
# → scheduler only if the step was applied → zero the gradients for the next group

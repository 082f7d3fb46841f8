# Exercise 05.1 — one fp16 update with a gradient scaler; after the last backward, in order
import torch
import torch.nn.functional as F

scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16)  # one scaler for the whole run


def train_step(model, optimizer, microbatches, scheduler):
    items = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches:
        with torch.autocast("cpu", dtype=torch.float16):           # the forward in fp16
            logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits
        loss_sum = F.cross_entropy(logits[:, :-1].flatten(0, 1).float(), mb["labels"][:, 1:].flatten(),
                                   ignore_index=-100, reduction="sum")
        scaler.scale(loss_sum / items).backward()                   # one scale for the whole group
    scaler.unscale_(optimizer)                                      # once, after the last backward
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.25)  # the true (unscaled) gradient
    scale = scaler.get_scale()
    scaler.step(optimizer)                                          # skipped if a gradient is inf/NaN
    scaler.update()                                                 # lowers the scale after a skip
    if scaler.get_scale() >= scale:                                 # the step was applied:
        scheduler.step()                                            # only then the schedule moves
    optimizer.zero_grad()                                           # applied or skipped: start from zero


answer = train_step

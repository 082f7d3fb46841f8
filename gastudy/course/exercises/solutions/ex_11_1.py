# Exercise 11.1 — the loop of the exercise cell, its four slips fixed (MB-11)
import torch.nn.functional as F


def train_step(model, optimizer, microbatches, scheduler):
    # 1. one denominator for the whole group, counted before any backward (not a mean per microbatch)
    items = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    total = 0.0
    for mb in microbatches:
        logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits
        loss_sum = F.cross_entropy(logits[:, :-1].flatten(0, 1), mb["labels"][:, 1:].flatten(),
                                   ignore_index=-100, reduction="sum")   # summed, not a mean
        loss = loss_sum / items
        loss.backward()           # 2. backward per microbatch: its graph is freed here
        total += loss.item()      #    keep a number, not the graph
    optimizer.step()
    scheduler.step()              # 3. once per update, not per microbatch
    optimizer.zero_grad()         # 4. the next group starts from zero
    return total


answer = train_step

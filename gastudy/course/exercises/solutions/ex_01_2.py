# Exercise 01.2 — one accumulated update, written by hand (the loop of §1 as a function)
import torch.nn.functional as F


def train_step(model, optimizer, microbatches, scheduler):
    # the group's supervised items, counted BEFORE any backward (causal LM: the labels shifted)
    items = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches:  # no optimizer.step(), no zero_grad() in here
        logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits
        loss_sum = F.cross_entropy(logits[:, :-1].flatten(0, 1), mb["labels"][:, 1:].flatten(),
                                   ignore_index=-100, reduction="sum")   # summed over the targets
        (loss_sum / items).backward()  # this microbatch's share of the group's mean loss: ADDS to .grad
    optimizer.step()                   # ONE update for the whole group
    scheduler.step()                   # once per update, after the step
    optimizer.zero_grad()              # the next group starts from zero


answer = train_step

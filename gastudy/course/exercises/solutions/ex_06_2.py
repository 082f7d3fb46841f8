# Exercise 06.2 — one replica's share of a data-parallel update: the global denominator and no_sync (MB-7)
import contextlib

import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_step(model, optimizer, microbatches, scheduler):  # model: wrapped in DDP; runs on every rank
    items = torch.tensor(sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches))
    dist.all_reduce(items)            # the group's items over ALL replicas, before any backward
    D = dist.get_world_size()
    for i, mb in enumerate(microbatches):
        last = i == len(microbatches) - 1
        with contextlib.nullcontext() if last else model.no_sync():  # forward AND backward inside
            logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits
            loss_sum = F.cross_entropy(logits[:, :-1].flatten(0, 1), mb["labels"][:, 1:].flatten(),
                                       ignore_index=-100, reduction="sum")
            (loss_sum * D / items).backward()   # × D cancels DDP's mean over the replicas
    optimizer.step()                  # the last backward all-reduced the accumulated sum, once
    scheduler.step()
    optimizer.zero_grad()


answer = train_step

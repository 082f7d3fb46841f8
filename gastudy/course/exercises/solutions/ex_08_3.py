# Exercise 08.3 — checkpoint every block by hand, inside the accumulation loop (CK-1, CK-3)
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from gastudy.course.models import causal_mask


def train_step(model, optimizer, microbatches, scheduler):
    items = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches:
        ids = mb["input_ids"]
        positions = torch.arange(ids.shape[1]).expand_as(ids)
        mask = causal_mask(positions)
        x = model.embed(ids) + model.pos(positions)           # tiny-gpt's forward, written out (§1)
        for block in model.blocks:
            x = checkpoint(block, x, mask, use_reentrant=False)  # keeps x only; re-runs block in backward
        logits = model.head(model.ln_f(x))
        loss_sum = F.cross_entropy(logits[:, :-1].flatten(0, 1), mb["labels"][:, 1:].flatten(),
                                   ignore_index=-100, reduction="sum")
        (loss_sum / items).backward()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()


answer = train_step

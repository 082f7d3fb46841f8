"""Data-parallel accumulation loops, as people write them around ``DistributedDataParallel``.

Each ``train_step(model, optimizer, microbatches)`` gets a DDP-wrapped model (gloo, CPU) and this
rank's A microbatches of tiny-gpt's padded batches (``input_ids``, ``attention_mask``, ``labels``;
causal: the logits at i predict the label at i+1). They are module-level functions so that the
worker processes can import them.
"""

from __future__ import annotations

import contextlib

import torch
import torch.distributed as dist
import torch.nn.functional as F


def _summed(model, mb):
    logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
    labels = mb["labels"][:, 1:]
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="sum"), int((labels != -100).sum())


def _local_items(microbatches):
    return sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)


def _global_items(microbatches):
    n = torch.tensor(_local_items(microbatches))
    dist.all_reduce(n)  # the group's N over every replica
    return int(n)


def global_denominator(model, optimizer, microbatches):
    """Right: the token count all-reduced before the first backward, each summed loss ÷ N × D (DDP
    averages over the D replicas), no_sync around all but the last microbatch (forward included)."""
    N, D = _global_items(microbatches), dist.get_world_size()
    for i, mb in enumerate(microbatches):
        context = model.no_sync() if i < len(microbatches) - 1 else contextlib.nullcontext()
        with context:
            s, _ = _summed(model, mb)
            (s * D / N).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def per_replica_denominator(model, optimizer, microbatches):
    """Wrong: each replica divides by its own token count; DDP then averages the replicas' means."""
    N = _local_items(microbatches)
    for i, mb in enumerate(microbatches):
        context = model.no_sync() if i < len(microbatches) - 1 else contextlib.nullcontext()
        with context:
            s, _ = _summed(model, mb)
            (s / N).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def forgets_the_replicas(model, optimizer, microbatches):
    """Wrong: the global N, but DDP's mean over the replicas is not cancelled (no × D)."""
    N = _global_items(microbatches)
    for i, mb in enumerate(microbatches):
        context = model.no_sync() if i < len(microbatches) - 1 else contextlib.nullcontext()
        with context:
            s, _ = _summed(model, mb)
            (s / N).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def no_sync_around_backward_only(model, optimizer, microbatches):
    """Right gradient, wasted communication: the forward runs outside no_sync, so every backward syncs."""
    N, D = _global_items(microbatches), dist.get_world_size()
    for i, mb in enumerate(microbatches):
        s, _ = _summed(model, mb)
        context = model.no_sync() if i < len(microbatches) - 1 else contextlib.nullcontext()
        with context:
            (s * D / N).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def never_syncs(model, optimizer, microbatches):
    """Wrong: every microbatch inside no_sync — the replicas never exchange their gradients."""
    N, D = _global_items(microbatches), dist.get_world_size()
    for mb in microbatches:
        with model.no_sync():
            s, _ = _summed(model, mb)
            (s * D / N).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def sgd(model):
    return torch.optim.SGD(model.parameters(), lr=0.1)


def raises(model, optimizer, microbatches):
    """A loop that fails on every rank."""
    raise RuntimeError("boom in the user's loop")

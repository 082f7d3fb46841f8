"""Loss sums and normalizations (GA-4, GA-6, MB-3).

The engine computes, for every microbatch, the **sum** of per-item losses and the number of
supervised items; the normalization decides what that sum is divided by:

- ``tokens`` (default, correct): sum ÷ supervised items of the *whole group* (over all
  microbatches and all replicas). The accumulated gradient equals the big-batch gradient.
- ``steps``: (microbatch mean) ÷ A, with A the configured accumulation steps — the constant
  divisor of popular helpers. Exact only when every microbatch has the same number of items
  and the group is full; a short last group is under-weighted.
- ``mean``: (microbatch mean) ÷ the number of microbatches actually in this group — the mean
  of microbatch means. Right size for a short group, still biased on variable lengths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch
import torch.nn.functional as F

from gastudy.core.counting import target_labels

NORMALIZATIONS = ("tokens", "steps", "mean")


def check_normalization(normalization: str) -> str:
    """Return ``normalization`` if known, else raise ``ValueError`` naming the valid ones."""
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}; use one of {', '.join(NORMALIZATIONS)}")
    return normalization


def logits_of(output: Any) -> torch.Tensor:
    """The logits of a model output: the tensor itself or its ``.logits`` attribute."""
    if isinstance(output, torch.Tensor):
        return output
    if hasattr(output, "logits"):
        return output.logits
    if isinstance(output, Mapping) and "logits" in output:
        return output["logits"]
    raise TypeError(f"model output of type {type(output).__name__} is neither a tensor nor has .logits")


def summed_loss(
    output: Any, batch: Mapping[str, torch.Tensor], task: str = "causal", ignore_index: int = -100
) -> tuple[torch.Tensor, int]:
    """Sum of cross-entropy losses over the supervised items of one microbatch (GA-4, GA-5).

    Returns ``(loss_sum, items)``: a scalar tensor (float32 or wider, nats) and the number of
    supervised items it sums over. For ``causal`` the logits at position i are compared with
    the label at i+1 (or with ``shift_labels`` as given). Integer labels of any width (int32
    from a tokenizer or a NumPy pipeline) are read as int64, on the logits' device. Raises
    ``ValueError`` if logits and labels do not line up, ``TypeError`` for floating-point labels.
    """
    loss_sum = sum_of_losses(output, batch, task, ignore_index)
    return loss_sum, int(torch.count_nonzero(target_labels(batch, task) != ignore_index))


def sum_of_losses(
    output: Any, batch: Mapping[str, torch.Tensor], task: str = "causal", ignore_index: int = -100
) -> torch.Tensor:
    """The ``loss_sum`` of :func:`summed_loss` alone, without counting the items (GA-4): for a
    caller that knows the count already (the engine's ``tokens`` normalization divides by the
    group's denominator, counted before the first forward), which saves a reduction and a
    host sync per microbatch. Same value, same errors as :func:`summed_loss`."""
    logits = logits_of(output)
    labels = target_labels(batch, task)
    if labels.dtype != torch.long or labels.device != logits.device:  # int64, where the logits are
        if labels.is_floating_point() or labels.is_complex():
            raise TypeError(f"labels must be integer class/token ids, got {labels.dtype}: build them with "
                            "dtype=torch.long")
        labels = labels.to(logits.device, torch.long)
    if task == "causal" and "shift_labels" not in batch:
        logits = logits[..., :-1, :]
    if logits.shape[:-1] != labels.shape:
        raise ValueError(
            f"logits {tuple(logits.shape)} do not match labels {tuple(labels.shape)} for task {task!r}: "
            "logits need one extra last dimension (classes) over the label shape"
        )
    if labels.dim() != 1:  # (rows, positions) → one row per item; a classifier's are one already
        logits, labels = logits.reshape(-1, logits.shape[-1]), labels.reshape(-1)
    if logits.dtype in (torch.float16, torch.bfloat16):
        logits = logits.float()  # the loss is summed in float32 even under autocast
    return F.cross_entropy(logits, labels, ignore_index=ignore_index, reduction="sum")


def weighted_mean(means: Sequence[float], counts: Sequence[int]) -> float:
    """Token-weighted mean of per-microbatch mean losses (MB-3): Σ countᵢ·meanᵢ ÷ Σ countᵢ.

    The 512/1536 example: ``weighted_mean([2, 4], [512, 1536]) == 3.5``.
    Raises ``ValueError`` when the counts sum to zero or the lengths differ.
    """
    if len(means) != len(counts):
        raise ValueError(f"{len(means)} means but {len(counts)} counts")
    total = sum(counts)
    if total <= 0:
        raise ValueError("the counts sum to zero: there is no supervised item to average over")
    return sum(m * c for m, c in zip(means, counts)) / total


def mean_of_means(means: Sequence[float]) -> float:
    """Unweighted mean of per-microbatch means (MB-3): ``mean_of_means([2, 4]) == 3.0``."""
    if not means:
        raise ValueError("no means to average")
    return sum(means) / len(means)

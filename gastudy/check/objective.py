"""The objective of one update: what the big batch a checked loop is compared with minimizes (MB-3, MB-10).

A checker asks whether a loop *accumulates* its objective right — whether its A microbatches
give the gradient of that objective over the whole group at once. The objective itself is the
user's: an :class:`Objective` says which one the big batch is computed with.

- ``tokens`` (the course's, and the default): the sum of per-item losses ÷ the group's
  supervised items N — every token weighs the same;
- ``samples``: each sample's token mean, averaged over the group's samples S — every sample
  weighs the same, whatever its length (a per-sample-mean loss);
- ``sum``: the sum of per-item losses, divided by nothing (a sum-reduced objective; a constant
  divisor is a learning rate, so declare it — it cannot be told from a missing division);
- your own: ``objective(output, batch) -> loss``, the loss of any batch under your objective
  (label smoothing, an auxiliary term…), computed on the whole group joined into one batch.

The built-in ones are sums of weighted per-item losses, so the big batch can be computed in
one forward or microbatch by microbatch: :meth:`Objective.share` is a batch's weighted sum and
:meth:`Objective.mass` its part of the group's normalizer (items, samples, or 1), and the
group's loss is Σ shares ÷ Σ masses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from gastudy.core.counting import target_labels
from gastudy.core.data import is_packed, sequence_starts
from gastudy.core.loss import item_losses, sum_of_losses

YourObjective = Callable[[Any, Mapping[str, torch.Tensor]], torch.Tensor]
NAMES = ("tokens", "samples", "sum")


@dataclass(frozen=True)
class Objective:
    """What the big batch minimizes: ``name`` (``"tokens"``, ``"samples"``, ``"sum"`` or
    ``"yours"``) and, for your own, ``fn(output, batch) -> loss``."""

    name: str = "tokens"
    fn: YourObjective | None = None

    @property
    def yours(self) -> bool:
        """True for a function of the user's (computed on the joined group only)."""
        return self.fn is not None

    def share(self, output: Any, batch: Mapping[str, torch.Tensor], task: str) -> torch.Tensor:
        """The batch's weighted sum of per-item losses before the group's normalizer: Σ ℓ
        (``tokens``, ``sum``), Σ over its samples of each sample's token mean (``samples``), or
        ``fn(output, batch)`` (yours). A 0-d tensor (nats)."""
        if self.fn is not None:
            return self.fn(output, batch)
        if self.name == "samples":
            losses = item_losses(output, batch, task)
            owner, supervised = sample_of_items(batch, task), target_labels(batch, task) != -100
            owner = owner.to(losses.device)
            counts = torch.bincount(owner[supervised], minlength=int(owner.max()) + 1 if owner.numel() else 0)
            weights = torch.where(supervised.to(losses.device), 1.0 / counts.clamp(min=1)[owner].to(losses.dtype),
                                  torch.zeros((), dtype=losses.dtype, device=losses.device))
            return (losses * weights).sum()
        return sum_of_losses(output, batch, task)

    def mass(self, batch: Mapping[str, torch.Tensor], task: str) -> int:
        """The batch's part of the group's normalizer: its supervised items (``tokens``), its
        samples that have one (``samples``), 1 (``sum`` and yours: a microbatch each)."""
        if self.fn is not None or self.name == "sum":
            return 1
        supervised = target_labels(batch, task) != -100
        if self.name == "samples":
            return int(torch.unique(sample_of_items(batch, task)[supervised]).numel())
        return int(supervised.sum())

    def normalizer(self, masses: list[int]) -> float:
        """What the group's Σ shares is divided by: Σ masses (N items, S samples), or 1 (``sum``).
        Yours is already a loss: its joined batch is not divided."""
        return 1.0 if self.name == "sum" or self.fn is not None else float(sum(masses))

    def describe(self, samples: int | None = None) -> str:
        """How a person names it, e.g. "the per-sample mean (each sample's token mean, averaged
        over the group's 8 samples)"."""
        over = f" over the group's {samples} samples" if samples else " over the group's samples"
        return {"tokens": "the token mean (the sum of per-item losses ÷ the group's supervised items N)",
                "samples": f"the per-sample mean (each sample's token mean, averaged{over})",
                "sum": "the sum of per-item losses (divided by nothing)"}.get(
                    self.name, f"your objective {getattr(self.fn, '__name__', 'objective')}(output, batch) over the "
                               "whole group in one batch")


TOKENS, SAMPLES, SUM = Objective("tokens"), Objective("samples"), Objective("sum")


def as_objective(objective: str | YourObjective | Objective | None) -> Objective | None:
    """The :class:`Objective` for what a checker was given: ``None`` (infer it: tokens, else a
    per-sample mean the loop accumulates exactly), a name of :data:`NAMES`, a function
    ``objective(output, batch) -> loss``, or an :class:`Objective`. Raises ``ValueError`` for
    another name and ``TypeError`` for anything else."""
    if objective is None or isinstance(objective, Objective):
        return objective
    if isinstance(objective, str):
        if objective not in NAMES:
            raise ValueError(f"unknown objective {objective!r}: use 'tokens' (sum of losses ÷ the group's supervised "
                             "items), 'samples' (the mean over samples of each sample's token mean), 'sum', or a "
                             "function objective(output, batch) -> loss")
        return Objective(objective)
    if callable(objective):
        return Objective("yours", objective)
    raise TypeError(f"objective must be None, one of {', '.join(NAMES)}, or a function objective(output, batch) -> "
                    f"loss, got {type(objective).__name__}")


def sample_of_items(batch: Mapping[str, torch.Tensor], task: str) -> torch.Tensor:
    """The sample each compared label belongs to (int64, shaped like :func:`target_labels`):
    the row of a padded batch or a classifier, the sequence of a packed row (by its
    ``position_ids``)."""
    labels = target_labels(batch, task)
    if labels.dim() == 1:
        return torch.arange(labels.shape[0])
    if "input_ids" in batch and is_packed(batch):
        length = batch["position_ids"].shape[-1]
        starts = torch.zeros(length, dtype=torch.long)
        starts[sequence_starts(batch["position_ids"])] = 1
        owner = starts.cumsum(0) - 1
        if labels.shape[-1] == length - 1:  # unshifted labels, compared from position 1
            owner = owner[1:]
        return owner.view(labels.shape)
    rows = torch.arange(labels.shape[0]).view(-1, *([1] * (labels.dim() - 1)))
    return rows.expand(labels.shape)


__all__ = ["NAMES", "Objective", "SAMPLES", "SUM", "TOKENS", "YourObjective", "as_objective", "sample_of_items"]

"""The mistakes the course reproduces, as objects the library's seams accept (course: GA-4…GA-6, MB-3, MB-5, MB-7).

The library offers only what is right: the engine's default normalization is
:class:`~gastudy.core.loss.Tokens` (the sum of losses ÷ the group's supervised items, over every
microbatch and replica), a data-parallel stream gives each replica its own samples, and the
causal count is taken after the shift. A chapter shows what goes wrong without them by handing
the engine one of these instead:

- :class:`Steps`: each microbatch's mean loss ÷ the configured A — the constant divisor of
  popular helpers (exact only when every microbatch holds the same number of items and the
  group is full);
- :class:`MeanOfMeans`: each microbatch's mean ÷ the microbatches actually in the group (right
  size for a short last group, still biased on variable lengths);
- :class:`PerReplicaMean`: each replica divides by its own items, and DDP then averages the
  replicas (biased when replicas hold different numbers of tokens);
- :func:`unsharded_stream`: every replica reads the same samples (no distributed sampler);
- :func:`count_unshifted`: the causal count without the shift;
- :func:`inject_overflow`: an infinite gradient, to watch a gradient scaler skip a step.

:func:`weighted_mean` and :func:`mean_of_means` are the two averages of chapter 03's example.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn

from gastudy.core.data import MicrobatchStream
from gastudy.core.groups import Group
from gastudy.core.loss import Normalization, Tokens, summed_loss


@dataclass(frozen=True)
class Steps:
    """Microbatch mean ÷ the configured A (GA-4): the constant divisor."""

    ignore_index: int = -100
    name: ClassVar[str] = "steps"

    def loss(self, output: Any, batch: Mapping[str, torch.Tensor], group: Group, denominator: int,
             replicas: int) -> torch.Tensor:
        loss_sum, items = summed_loss(output, batch, group.task, self.ignore_index)
        return loss_sum / max(items, 1) / group.accumulation_steps  # a microbatch without items adds zero


@dataclass(frozen=True)
class MeanOfMeans:
    """Microbatch mean ÷ the microbatches in this group (MB-3): the mean of microbatch means."""

    ignore_index: int = -100
    name: ClassVar[str] = "mean"

    def loss(self, output: Any, batch: Mapping[str, torch.Tensor], group: Group, denominator: int,
             replicas: int) -> torch.Tensor:
        loss_sum, items = summed_loss(output, batch, group.task, self.ignore_index)
        return loss_sum / max(items, 1) / group.size


@dataclass(frozen=True)
class PerReplicaMean:
    """Each replica's summed loss ÷ its own supervised items (MB-7); DDP's mean over the D
    replicas then weighs a replica with few tokens as much as one with many."""

    ignore_index: int = -100
    name: ClassVar[str] = "per-replica mean"

    def loss(self, output: Any, batch: Mapping[str, torch.Tensor], group: Group, denominator: int,
             replicas: int) -> torch.Tensor:
        loss_sum, _ = summed_loss(output, batch, group.task, self.ignore_index)
        return loss_sum / max(group.supervised_items, 1)  # a replica without items still joins the all-reduce


NORMALIZATIONS: dict[str, type] = {"tokens": Tokens, "steps": Steps, "mean": MeanOfMeans}


def normalization(name: str | Normalization) -> Normalization:
    """The engine's normalization for a name the course uses: ``tokens`` (right), ``steps``
    or ``mean`` (the mistakes); an object is returned as it is. Raises ``ValueError`` for any
    other name."""
    if not isinstance(name, str):
        return name
    if name not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {name!r}; use one of {', '.join(NORMALIZATIONS)}")
    return NORMALIZATIONS[name]()


def unsharded_stream(dataset: torch.utils.data.Dataset, micro_batch: int, *, replicas: int, rank: int,
                     **kwargs: Any) -> MicrobatchStream:
    """A stream that gives every replica the SAME samples (MB-7): the epoch's whole order on
    every rank, as a loop without a distributed sampler reads it."""
    return MicrobatchStream(dataset, micro_batch, replicas=1, rank=0, **kwargs)


def count_unshifted(batch: Mapping[str, torch.Tensor], ignore_index: int = -100) -> int:
    """The wrong causal count: ``labels != ignore_index`` without the shift (GA-5). It
    over-counts by one for every row whose first label is supervised (plain LM data)."""
    return int((batch["labels"] != ignore_index).sum())


@contextlib.contextmanager
def inject_overflow(model: nn.Module) -> Iterator[None]:
    """Make the gradient of ``model``'s first trainable parameter infinite while inside (MB-5):
    a scaler run sees an overflow and skips the update. The hook is removed on exit."""
    param = next(p for p in model.parameters() if p.requires_grad)
    handle = param.register_hook(lambda g: g * float("inf"))
    try:
        yield
    finally:
        handle.remove()


def weighted_mean(means: Sequence[float], counts: Sequence[int]) -> float:
    """Token-weighted mean of per-microbatch mean losses (MB-3): Σ countᵢ·meanᵢ ÷ Σ countᵢ.
    ``weighted_mean([2, 4], [512, 1536]) == 3.5``. Raises ``ValueError`` when the counts sum
    to zero or the lengths differ."""
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


__all__ = ["MeanOfMeans", "NORMALIZATIONS", "PerReplicaMean", "Steps", "count_unshifted", "inject_overflow",
           "mean_of_means", "normalization", "unsharded_stream", "weighted_mean"]

"""Replicas: what the engine needs to know about data parallelism (MB-2, MB-7).

The engine talks to data parallelism only through this small interface, so the update loop
is the same for one process and for ``torchrun`` (see :mod:`gastudy.parallel.ddp` for the
``DistributedDataParallel`` implementation).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import torch
from torch import nn

from gastudy.core.precision import NOTHING

if TYPE_CHECKING:  # pragma: no cover
    from gastudy.core.groups import Group, GroupStream



@runtime_checkable
class Replicas(Protocol):
    """The data-parallel side of one update.

    - ``size`` is D, the number of data-parallel replicas; ``rank`` is this replica's index.
    - ``group_denominator(group)`` returns the supervised items of the *whole* group summed
      over all replicas, computed before the group's first backward; it also makes every
      replica agree on the group's number of microbatches (raising a clear error if they
      cannot agree). It records nothing.
    - ``record_group(group)`` is the bookkeeping of that group, called once after its
      denominator and before its first backward (update count, sample ids, per-replica totals;
      nothing for one process).
    - ``sync(model, last)`` is the context every microbatch's forward *and* backward run
      in: gradient communication is skipped (``no_sync``) unless ``last`` is true.
    - ``carry_loss(total)`` is called just before the group's last backward with this
      replica's share of the group loss (a 0-d tensor); a back-end may send it along with the
      gradient all-reduce that backward starts. ``group_loss(total)`` is called after that
      backward and returns the group's loss, the same on every replica: the replicas' totals
      summed ÷ D (the carried value if it was carried, else one small all-reduce).
    - ``any_replica(flag)`` returns True on every replica when ``flag`` is true on any (one
      small collective with several): how a run's replicas agree to stop at one boundary.
    - ``gather(obj)`` returns ``obj`` from every replica, one entry per rank (sample ids,
      per-replica counts for the run record).
    - ``group_stream(microbatches, accumulation_steps, task, last_group, start_index)`` splits
      this replica's microbatches into groups; with several replicas they agree on every
      group's size, so a short last group follows ``keep``/``drop`` on all replicas together.
    - ``wrap(model)`` returns the module the engine should call (``DistributedDataParallel``
      around ``model`` for several replicas, ``model`` itself for one).
    """

    size: int
    rank: int

    def group_denominator(self, group: Group) -> int: ...

    def record_group(self, group: Group) -> None: ...

    def sync(self, model: nn.Module, last: bool) -> contextlib.AbstractContextManager: ...

    def carry_loss(self, total: torch.Tensor) -> None: ...

    def group_loss(self, total: torch.Tensor) -> torch.Tensor: ...

    def any_replica(self, flag: bool) -> bool: ...

    def gather(self, obj: Any) -> list[Any]: ...

    def wrap(self, model: nn.Module) -> nn.Module: ...

    def group_stream(self, microbatches: Iterable[dict], accumulation_steps: int, task: str, last_group: str,
                     start_index: int = 0) -> GroupStream: ...


class SingleReplica:
    """One process, no communication: D = 1, the denominator is the group's own count."""

    size = 1
    rank = 0

    def group_denominator(self, group: Group) -> int:
        return group.supervised_items

    def record_group(self, group: Group) -> None:
        """Nothing to count for one process: the engine's counters say it all."""

    def sync(self, model: nn.Module, last: bool) -> contextlib.AbstractContextManager:
        return NOTHING

    def carry_loss(self, total: torch.Tensor) -> None:
        """Nothing to send: one replica's total is the group loss."""

    def group_loss(self, total: torch.Tensor) -> torch.Tensor:
        return total

    def any_replica(self, flag: bool) -> bool:
        return flag

    def gather(self, obj: Any) -> list[Any]:
        return [obj]

    def wrap(self, model: nn.Module) -> nn.Module:
        return model

    def group_stream(self, microbatches: Iterable[dict], accumulation_steps: int, task: str, last_group: str,
                     start_index: int = 0) -> GroupStream:
        from gastudy.core.groups import GroupStream

        return GroupStream(microbatches, accumulation_steps, task, last_group, start_index=start_index)

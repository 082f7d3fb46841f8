"""A model and its data by name: what ``gastudy train --model NAME`` and the name-taking checks build.

A :class:`Workload` says how to build a model from a seed, how to build the map-style data
set it trains on, and how that data is counted (``task``) and collated. Whoever owns the model
registers it (:func:`register`); a run, a verification or a measurement given a name builds
from it (:func:`workload`). The library registers nothing: the course registers its small
models when ``gastudy.course`` is imported, and your project can register its own the same way.

A workload is handed to other processes as an object (its functions are pickled by their
module and name), so its functions must be defined at the top level of a module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from gastudy.core.counting import check_task


@dataclass(frozen=True)
class Workload:
    """A named model and its data.

    - ``build(seed=0, dtype=torch.float32, **kwargs) -> nn.Module``: the model, the same for the
      same seed (it must not consume the global random state);
    - ``dataset(size, seed=0, **kwargs) -> Dataset``: ``size`` samples (dicts of tensors, each with
      a ``sample_id``), the same for the same seed;
    - ``task``: how its supervised items are counted (``causal``, ``masked``, ``classification``);
    - ``collates``: the collations its samples allow (the first is the default);
    - ``measure_kwargs``: ``build`` arguments that make it large enough to show in process
      memory (what the memory measurements build by default).
    """

    name: str
    build: Callable[..., nn.Module]
    dataset: Callable[..., torch.utils.data.Dataset]
    task: str = "causal"
    collates: tuple[str, ...] = ("padded",)
    measure_kwargs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a workload needs a name (a non-empty str), got {self.name!r}")
        check_task(self.task)

    def collate(self, asked: str | None = None) -> str:
        """The collation to use: ``asked`` when this workload allows it, else its default."""
        return asked if asked in self.collates else self.collates[0]


_REGISTRY: dict[str, Workload] = {}


def register(workload: Workload) -> Workload:
    """Make ``workload`` buildable by its name; returns it. Registering the same name again
    replaces the earlier one. Raises ``TypeError`` for anything but a :class:`Workload`."""
    if not isinstance(workload, Workload):
        raise TypeError(f"register takes a Workload, got {type(workload).__name__}")
    _REGISTRY[workload.name] = workload
    return workload


def names() -> tuple[str, ...]:
    """The registered names, in registration order."""
    return tuple(_REGISTRY)


def workload(name: str | Workload) -> Workload:
    """The workload registered as ``name`` (a :class:`Workload` is returned as it is).

    Raises ``ValueError`` naming the registered ones for an unknown name."""
    if isinstance(name, Workload):
        return name
    if name not in _REGISTRY:
        known = ", ".join(_REGISTRY) or "none yet (import gastudy.course to register the course's models)"
        raise ValueError(f"unknown model {name!r}; registered: {known}. Pass your own module, or register a "
                         "gastudy.core.workloads.Workload under that name")
    return _REGISTRY[name]


__all__ = ["Workload", "names", "register", "workload"]

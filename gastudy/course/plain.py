"""The plain PyTorch loops the chapters write out by hand, and what they are checked against.

Chapters 01, 03, 04 and 05 show the loop a learner would write — ``loss.backward()``,
``optimizer.step()``, ``zero_grad`` in the right place, ``GradScaler`` — as a visible code cell,
then assert that it produces what gastudy's :class:`~gastudy.core.engine.Accumulator` produces
from the same starting weights and the same microbatches. This module holds only the
scaffolding around those cells: the model and data (:func:`plain_setup`), the gradient the
loop is about to hand the optimizer (:func:`grads_of`), the engine's answer
(:func:`engine_reference`, :func:`engine_run`) and the comparison (:func:`relative_gap`).
The loops themselves stay in the notebooks — that is the point.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from gastudy.check.verify import compare_gradients
from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator
from gastudy.core.groups import build_group
from gastudy.core.precision import Precision
from gastudy.course.datasets import AdditionDataset
from gastudy.course.labs.updates import engine_gradient, gradient_snapshot, parameter_snapshot
from gastudy.course.mistakes import inject_overflow
from gastudy.course.models import build_model

Batch = dict[str, torch.Tensor]


@dataclass
class PlainSetup:
    """A starting model and the microbatches of one or more groups, samples in order.

    ``start`` holds the initial weights and is never trained: :meth:`fresh` hands out copies,
    so the hand-written loop and the engine begin from the same point. ``groups[g]`` holds
    the A microbatches (padded :class:`AdditionDataset` batches with ``sample_ids``) of group g;
    :attr:`microbatches` is group 0. Course: 01 §2, 03 §3, 04 §4, 05 §1.
    """

    start: nn.Module
    groups: list[list[Batch]]
    micro_batch: int
    accumulation_steps: int

    @property
    def microbatches(self) -> list[Batch]:
        """The microbatches of group 0."""
        return self.groups[0]

    def fresh(self, lr: float = 0.1) -> tuple[nn.Module, torch.optim.Optimizer]:
        """A copy of the starting model (no gradients) and a plain SGD optimizer over it."""
        model = copy.deepcopy(self.start).train()
        model.zero_grad(set_to_none=True)
        return model, torch.optim.SGD(model.parameters(), lr=lr)


def plain_setup(micro_batch: int = 4, accumulation_steps: int = 4, groups: int = 1, seed: int = 0) -> PlainSetup:
    """tiny-gpt (float32) and ``groups`` × A microbatches of m variable-length addition problems
    (prompts labelled -100, so the supervised counts differ between microbatches).
    Raises ``ValueError`` for a size below 1. Course: 01 §2, 03 §3, 04 §4, 05 §1."""
    for name, value in (("micro_batch", micro_batch), ("accumulation_steps", accumulation_steps), ("groups", groups)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    data = AdditionDataset(micro_batch * accumulation_steps * groups, seed=seed)
    mbs = list(MicrobatchStream(data, micro_batch, shuffle=False).microbatches())
    split = [mbs[g * accumulation_steps:(g + 1) * accumulation_steps] for g in range(groups)]
    return PlainSetup(build_model("tiny-gpt", seed=seed), split, micro_batch, accumulation_steps)


def grads_of(model: nn.Module) -> dict[str, torch.Tensor]:
    """A copy of the model's ``.grad`` tensors by name: what ``optimizer.step()`` is about to
    consume. Course: 01 §2, 03 §3, 05 §1."""
    return gradient_snapshot(model)


def relative_gap(got: Mapping[str, torch.Tensor], ref: Mapping[str, torch.Tensor]) -> float:
    """‖got − ref‖₂ ÷ ‖ref‖₂ over all parameters, gastudy's one metric (0 when identical;
    :func:`gastudy.check.verify.compare_gradients`). Raises ``ValueError`` when the parameter names
    differ. Course: 01 §2, 03 §3, 04 §4, 05 §1."""
    return compare_gradients(got, ref)[1]


def engine_reference(setup: PlainSetup, group: int = 0, **engine_options: Any) -> dict[str, torch.Tensor]:
    """The gradient gastudy's engine hands the optimizer for group ``group`` of ``setup``, from
    the starting weights. ``engine_options`` go to :class:`Accumulator` (``normalization``,
    ``precision``, ``clip_grad_norm`` …). Course: 01 §2, 03 §3, 05 §1."""
    model, _ = setup.fresh()
    return engine_gradient(model, setup.groups[group], **engine_options)


@dataclass
class EngineRun:
    """What :func:`engine_run` measured: the parameters after all groups, and per group the
    learning rate its step used, the loss scale (fp16) and whether the update was applied.
    Course: 04 §4, 05 §2."""

    params: dict[str, torch.Tensor]
    lrs: list[float] = field(default_factory=list)
    scales: list[float | None] = field(default_factory=list)
    applied: list[bool] = field(default_factory=list)


def engine_run(setup: PlainSetup, make_scheduler: Callable[[torch.optim.Optimizer], Any] | None = None,
               precision: str = "fp32", overflow_at: Collection[int] = (), lr: float = 0.1,
               init_scale: float = 2.0**16, clip_grad_norm: float | None = None) -> EngineRun:
    """Train every group of ``setup`` with the engine from the starting weights (SGD, ``lr``),
    with a scheduler from ``make_scheduler(optimizer)``, and an infinite gradient injected in
    the groups whose 0-based index is in ``overflow_at`` (:func:`inject_overflow`).
    Course: 04 §4 (scheduler per update), 05 §2 (skipped updates)."""
    model, optimizer = setup.fresh(lr)
    scheduler = make_scheduler(optimizer) if make_scheduler is not None else None
    engine = Accumulator(model, optimizer, accumulation_steps=setup.accumulation_steps, scheduler=scheduler,
                         precision=Precision(precision, "cpu", init_scale=init_scale) if precision == "fp16"
                         else precision, clip_grad_norm=clip_grad_norm)
    run = EngineRun({})
    for g, mbs in enumerate(setup.groups):
        with inject_overflow(model) if g in overflow_at else contextlib.nullcontext():
            result = engine.update(build_group(g, mbs, setup.accumulation_steps))
        run.lrs.append(result.lr)
        run.scales.append(result.scale)
        run.applied.append(result.applied)
    run.params = parameter_snapshot(model)
    return run


def parameter_gap(model: nn.Module, params: Mapping[str, torch.Tensor]) -> float:
    """max |θ_model − θ_ref| ÷ max |θ_ref|: how far a hand-trained model ends from the engine's.
    Course: 04 §4, 05 §2."""
    return compare_gradients(parameter_snapshot(model), params)[1]

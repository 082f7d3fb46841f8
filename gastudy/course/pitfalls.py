"""Deliberately wrong update loops, for the troubleshooting clinic (MB-1, MB-4…MB-6, MB-11, GA-5, GA-6).

Every loop here is an **update function**: it performs ONE optimizer update from one
:class:`~gastudy.core.groups.Group` and returns the logged loss (a float, nats)::

    update_fn(model, optimizer, scheduler_or_None, group) -> float

:func:`correct_update` is the engine (:class:`~gastudy.core.engine.Accumulator`). Each pitfall is a
short loop a learner could plausibly write, with exactly one mistake, marked ``# WRONG:``.
:data:`PITFALLS` names the :mod:`gastudy.check.diagnostics` detector that catches each one and
:data:`FIXES` the update function that repairs it.

The task (how supervised items are counted) is inferred from the batch: a batch with an
``inputs`` key is ``classification``, anything else ``causal``. Pass ``task=`` explicitly,
e.g. ``functools.partial(correct_update, task="masked")``, for a masked LM.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import torch
from torch import nn

from gastudy.check.diagnostics import UpdateFn
from gastudy.core.counting import task_of_batch
from gastudy.core.engine import Accumulator, model_inputs
from gastudy.core.groups import Group
from gastudy.core.loss import summed_loss
from gastudy.core.precision import Precision
from gastudy.course.mistakes import count_unshifted


def _task(group: Group, task: str | None) -> str:
    return task or task_of_batch(group.microbatches[0])


def _loss_sum(model: nn.Module, batch: Mapping[str, torch.Tensor], task: str) -> tuple[torch.Tensor, int]:
    """Forward one microbatch; its summed loss and supervised items (see :func:`summed_loss`)."""
    device = next(model.parameters()).device
    return summed_loss(model(**model_inputs(batch, device)), batch, task)


def _finish(optimizer: torch.optim.Optimizer, scheduler: Any) -> None:
    """The end of a correct update: step, scheduler step, zero the gradients."""
    optimizer.step()
    if scheduler is not None:
        scheduler.step()
    optimizer.zero_grad(set_to_none=True)


_SCALERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def scaler_for(optimizer: torch.optim.Optimizer) -> torch.amp.GradScaler:
    """One ``GradScaler`` per optimizer, created on first use, so the loss scale carries over
    from update to update like in a real run (course: MB-5).

    Course: MB-5.
    """
    if optimizer not in _SCALERS:
        device = optimizer.param_groups[0]["params"][0].device.type
        _SCALERS[optimizer] = torch.amp.GradScaler(device)
    return _SCALERS[optimizer]


# ---------------------------------------------------------------------------------------------
# Correct update functions (the fixes)
# ---------------------------------------------------------------------------------------------

def correct_update(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                   *, task: str | None = None, **engine_options: Any) -> float:
    """One correct update with the engine: token-normalized, scheduler per applied update (MB-4).

    Builds an :class:`Accumulator` with ``accumulation_steps=group.accumulation_steps`` (its
    constructor zeroes the gradients) and returns ``UpdateResult.loss``. ``engine_options`` go
    to the Accumulator (e.g. ``precision``, ``clip_grad_norm``, ``loss_fn``). Course: MB-4, MB-11.
    """
    engine = Accumulator(model, optimizer, accumulation_steps=group.accumulation_steps,
                         task=_task(group, task), scheduler=scheduler, **engine_options)
    return engine.update(group).loss


def plain_update(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                 *, task: str | None = None) -> float:
    """One correct update written by hand: the loop every pitfall below changes in one place.

    Summed loss ÷ the group's supervised items (counted before the first backward), one backward
    per microbatch, then one step, the scheduler once, and zeroed gradients. Gives the engine's
    gradient (:func:`correct_update`) for a float32 model. Course: MB-1, MB-4, MB-11.
    """
    task, total = _task(group, task), 0.0
    for mb in group.microbatches:
        loss_sum, _ = _loss_sum(model, mb, task)
        loss = loss_sum / group.supervised_items  # the whole group's items, known before the first backward
        loss.backward()                           # adds this microbatch's contribution
        total += loss.item()                      # a number: the graph is freed
    optimizer.step()
    if scheduler is not None:
        scheduler.step()                          # once per applied update
    optimizer.zero_grad(set_to_none=True)         # the next group starts from zero
    return total


def _per_item_loss(task: str) -> Callable[[Any, Mapping[str, torch.Tensor], int], torch.Tensor]:
    """A user loss that is already normalized: summed loss ÷ the group's supervised items."""
    def loss_fn(output: Any, batch: Mapping[str, torch.Tensor], num_items_in_group: int) -> torch.Tensor:
        return summed_loss(output, batch, task)[0] / num_items_in_group
    return loss_fn


def declared_scaled(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                    *, task: str | None = None) -> float:
    """The fix for :func:`double_division`: the same user loss, declared ``loss_is_scaled_for_ga=True``.

    Course: GA-6.
    """
    task = _task(group, task)
    return correct_update(model, optimizer, scheduler, group, task=task,
                          loss_fn=_per_item_loss(task), loss_is_scaled_for_ga=True)


def clip_after_unscale(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                       *, task: str | None = None, max_norm: float = 1.0) -> float:
    """The fix for :func:`clip_before_unscale`: fp16 with a scaler, unscale → clip → step (MB-5).

    Course: MB-5.
    """
    device = next(model.parameters()).device.type
    return correct_update(model, optimizer, scheduler, group, task=task, clip_grad_norm=max_norm,
                          precision=Precision("fp16", device, scaler=scaler_for(optimizer)))


# ---------------------------------------------------------------------------------------------
# The pitfalls: one mistake each
# ---------------------------------------------------------------------------------------------

def zero_per_microbatch(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                        *, task: str | None = None) -> float:
    """Zeroing the gradients inside the microbatch loop: only the last microbatch counts (MB-1).

    Course: MB-1.
    """
    task, total = _task(group, task), 0.0
    for mb in group.microbatches:
        optimizer.zero_grad()  # WRONG: wipes the gradients of the microbatches before this one
        loss_sum, _ = _loss_sum(model, mb, task)
        loss = loss_sum / group.supervised_items
        loss.backward()
        total += loss.item()
    _finish(optimizer, scheduler)
    return total


def forget_zero_grad(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                     *, task: str | None = None) -> float:
    """Never zeroing the gradients: each update also contains every earlier group's gradient (MB-1).

    Course: MB-1.
    """
    task, total = _task(group, task), 0.0
    for mb in group.microbatches:
        loss_sum, _ = _loss_sum(model, mb, task)
        loss = loss_sum / group.supervised_items
        loss.backward()
        total += loss.item()
    optimizer.step()
    if scheduler is not None:
        scheduler.step()
    # WRONG: no optimizer.zero_grad() — the next group starts from this group's gradient
    return total


def double_division(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                    *, task: str | None = None) -> float:
    """A user loss already divided by num_items, declared as *not* scaled: divided twice (GA-6).

    The engine then divides it by the group's number of microbatches as well, so the loss and
    the gradient are exactly A times too small.

    Course: GA-6.
    """
    task = _task(group, task)
    return correct_update(model, optimizer, scheduler, group, task=task, loss_fn=_per_item_loss(task),
                          loss_is_scaled_for_ga=False)  # WRONG: it *is* scaled; the engine divides by A again


def mean_of_means(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                  *, task: str | None = None) -> float:
    """Averaging microbatch means: every microbatch weighs the same, whatever its item count (MB-3).

    Course: MB-3.
    """
    task, total = _task(group, task), 0.0
    for mb in group.microbatches:
        loss_sum, items = _loss_sum(model, mb, task)
        loss = loss_sum / items / group.size  # WRONG: a mean of means; divide the sum by the group's items
        loss.backward()
        total += loss.item()
    _finish(optimizer, scheduler)
    return total


def constant_divisor(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                     *, task: str | None = None) -> float:
    """Dividing every microbatch mean by the configured A, even in a short last group (MB-4, GA-4).

    A short last group of ``size < A`` microbatches is under-weighted by exactly ``size / A``
    (and variable-length microbatches are mis-weighted as in :func:`mean_of_means`).

    Course: MB-4, GA-4.
    """
    task, total = _task(group, task), 0.0
    for mb in group.microbatches:
        loss_sum, items = _loss_sum(model, mb, task)
        loss = loss_sum / items / group.accumulation_steps  # WRONG: a short group has fewer than A microbatches
        loss.backward()
        total += loss.item()
    _finish(optimizer, scheduler)
    return total


def unshifted_count(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                    *, task: str | None = None) -> float:
    """Counting causal labels without the shift: the denominator has one extra item per row whose
    first label is supervised, so the gradient is slightly too small (GA-5).

    Course: GA-5.
    """
    task, total = _task(group, task), 0.0
    items = sum(count_unshifted(mb) for mb in group.microbatches)  # WRONG: causal counts labels[..., 1:]
    for mb in group.microbatches:
        loss_sum, _ = _loss_sum(model, mb, task)
        loss = loss_sum / items
        loss.backward()
        total += loss.item()
    _finish(optimizer, scheduler)
    return total


def scheduler_per_microbatch(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any,
                             group: Group, *, task: str | None = None) -> float:
    """Stepping the learning-rate scheduler once per microbatch: the schedule runs A× too fast (MB-6).

    Course: MB-6.
    """
    task, total = _task(group, task), 0.0
    for mb in group.microbatches:
        loss_sum, _ = _loss_sum(model, mb, task)
        loss = loss_sum / group.supervised_items
        loss.backward()
        total += loss.item()
        if scheduler is not None:
            scheduler.step()  # WRONG: the schedule is defined per update, not per microbatch
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return total


def keep_graph(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
               *, task: str | None = None) -> float:
    """Summing graph-attached losses and calling backward once: every microbatch's activations stay
    alive until the end, so memory grows with the microbatch index (MB-4). The gradient is right.

    Course: MB-4.
    """
    task, total = _task(group, task), 0.0
    for mb in group.microbatches:
        loss_sum, _ = _loss_sum(model, mb, task)
        total = total + loss_sum / group.supervised_items  # WRONG: keeps this microbatch's graph alive
    total.backward()
    _finish(optimizer, scheduler)
    return float(total)


def clip_before_unscale(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group,
                        *, task: str | None = None, max_norm: float = 1.0) -> float:
    """fp16 with a gradient scaler, clipping the *scaled* gradients (MB-5).

    The scaled gradient (× scale, 65536 at first) is clipped to ``max_norm``; the scaler then
    unscales it, so the applied gradient has norm ``max_norm / scale`` — almost nothing.

    Course: MB-5.
    """
    task, total = _task(group, task), 0.0
    device = next(model.parameters()).device.type
    scaler = scaler_for(optimizer)
    for mb in group.microbatches:
        with torch.autocast(device, dtype=torch.float16):
            loss_sum, _ = _loss_sum(model, mb, task)
        loss = loss_sum / group.supervised_items
        scaler.scale(loss).backward()
        total += loss.item()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # WRONG: call scaler.unscale_(optimizer) first
    before = scaler.get_scale()
    scaler.step(optimizer)
    scaler.update()
    if scheduler is not None and scaler.get_scale() >= before:  # the step was applied
        scheduler.step()
    optimizer.zero_grad(set_to_none=True)
    return total


# ---------------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------------

class Pitfall(NamedTuple):
    """A registry entry: the wrong update function, what is wrong, and the detector that catches it
    (a key of :data:`gastudy.check.diagnostics.DETECTORS`). Course: MB-11."""

    update: UpdateFn
    description: str
    detector: str


PITFALLS: dict[str, Pitfall] = {
    "zero_per_microbatch": Pitfall(zero_per_microbatch, "zero_grad inside the microbatch loop: only the "
                                   "last microbatch's gradient reaches the step (MB-1)", "ineffective_accumulation"),
    "forget_zero_grad": Pitfall(forget_zero_grad, "no zero_grad between groups: the previous group's gradient "
                                "leaks into the next update (MB-1)", "ineffective_accumulation"),
    "double_division": Pitfall(double_division, "a loss already divided by num_items declared as not scaled: "
                               "divided again by A (GA-6)", "double_division"),
    "mean_of_means": Pitfall(mean_of_means, "mean of microbatch means on variable-length data: the result "
                             "depends on how samples are split (MB-3)", "partition_dependence"),
    "constant_divisor": Pitfall(constant_divisor, "microbatch means ÷ the configured A: a short last group is "
                                "under-weighted by size/A (MB-4)", "partition_dependence"),
    "unshifted_count": Pitfall(unshifted_count, "causal items counted without the shift: the denominator is "
                               "too large by one per row (GA-5)", "double_division"),
    "scheduler_per_microbatch": Pitfall(scheduler_per_microbatch, "scheduler stepped per microbatch: the "
                                        "schedule runs A× too fast (MB-6)", "schedule_drift"),
    "keep_graph": Pitfall(keep_graph, "graph-attached losses summed across microbatches: activations of every "
                          "microbatch stay alive (MB-4)", "memory_growth"),
    "clip_before_unscale": Pitfall(clip_before_unscale, "fp16: clipping the scaled gradients before unscale_: "
                                   "the applied gradient shrinks by the loss scale (MB-5)", "double_division"),
}

FIXES: dict[str, UpdateFn] = {name: correct_update for name in PITFALLS}
FIXES.update(double_division=declared_scaled, clip_before_unscale=clip_after_unscale)

WRITTEN_RIGHT: dict[str, UpdateFn] = {name: plain_update for name in PITFALLS}
"""What the clinic shows beside each pitfall: the loop written right — by hand where the pitfall
is a hand-written loop, the fixed engine call where the pitfall is an engine option."""
WRITTEN_RIGHT.update(double_division=declared_scaled, clip_before_unscale=clip_after_unscale)

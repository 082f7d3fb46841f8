"""Exercises of chapter 05 (MB-5, MB-6)."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from gastudy.check.diagnostics import default_optimizer, default_scheduler
from gastudy.course.exercises import dict_feedback, exercise
from gastudy.course.exercises.graded import Check
from gastudy.course.i18n import t
from gastudy.course.mistakes import inject_overflow

ORDER = ["unscale_", "clip", "step", "update", "scheduler", "zero_grad"]
"""What follows a group's last backward in fp16, in the engine's order (:class:`gastudy.core.engine.Accumulator`):
``scaler.unscale_`` → clip → ``scaler.step`` → ``scaler.update`` → the scheduler, only when the
step was applied (the scale did not drop in ``update``) → ``zero_grad``."""


MAX_NORM = 0.25
"""Exercise 05.1's clipping threshold: below the group's gradient norm (about 0.56), so the clip fires."""


def clipped(report: Any, _step: object) -> str | None:
    """A check for :func:`~gastudy.course.exercises.graded.grade_loop`: the update clipped, once, and
    the clip fired — so its place (after ``unscale_``, before the step) shows in the gradient the
    step consumed. Course: MB-5."""
    if report.clip is None:
        return t("⚠ no clipping: clip the unscaled gradient with torch.nn.utils.clip_grad_norm_(model.parameters(), "
                 "max_norm={max_norm}), after scaler.unscale_ and before scaler.step", max_norm=MAX_NORM)
    if not report.clip.get("fired"):
        return t("⚠ the clip did not fire (norm {norm:.3g} ≤ max_norm {given:g}): clip at max_norm={max_norm} as the "
                 "exercise asks, so that its place shows", norm=report.clip["norm_before"],
                 given=report.clip["max_norm"], max_norm=MAX_NORM)
    return None


def skips_on_overflow(model: nn.Module, microbatches: list[dict]) -> Check:
    """A check for :func:`~gastudy.course.exercises.graded.grade_loop`: the learner's update run once
    more on a copy with an infinite gradient (:func:`~gastudy.course.mistakes.inject_overflow`) must
    be skipped — no parameter changed, no scheduler step, the gradients zeroed. check_loop sees one
    applied update only. Course: MB-5, MB-6."""
    def check(_report: object, step: Callable[..., object]) -> str | None:
        net = copy.deepcopy(model)
        net.zero_grad(set_to_none=True)
        optimizer = default_optimizer(net)
        scheduler = default_scheduler(optimizer)
        before = [p.detach().clone() for p in net.parameters()]
        with inject_overflow(net), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            step(net, optimizer, [dict(mb) for mb in microbatches], scheduler=scheduler)
        changed = sum(not torch.equal(b, p) for b, p in zip(before, net.parameters()))
        if changed:
            return t("⚠ an overflow did not skip the update: with an infinite gradient, {n} of the {total} parameter "
                     "tensors changed (to inf or NaN) — let the scaler take the step, scaler.step(optimizer): it "
                     "skips a step whose gradients are not finite", n=changed, total=len(before))
        if scheduler.last_epoch != 0:
            return t("⚠ schedule drift: the scaler skipped the update (an infinite gradient) but the scheduler "
                     "stepped anyway — step it only when the step was applied, i.e. when scaler.update() did not "
                     "lower the scale")
        if any(p.grad is not None and bool(p.grad.ne(0).any()) for p in net.parameters()):
            return t("⚠ ineffective accumulation: after the skipped update the gradients were left for the next "
                     "group — zero them after every attempted update, applied or not")
        return None

    return check


@exercise("05.1")
def end_of_group(answer: object) -> tuple[bool, str]:
    """Answer: ``train_step(model, optimizer, microbatches, scheduler)``, one accumulated update in fp16
    on the CPU: ``torch.autocast("cpu", dtype=torch.float16)`` forwards, ``scaler.scale(loss).backward()``
    per microbatch with a ``torch.amp.GradScaler("cpu")``, and after the last backward the six
    operations of :data:`ORDER`, in that order, clipping at ``max_norm`` = :data:`MAX_NORM` (below
    this group's gradient norm: the clip must shape the step). Run through :func:`gastudy.check_loop`
    on tiny-gpt (float32; the big batch in the loop's precision), then :func:`clipped` and once more
    with an overflow (:func:`skips_on_overflow`). Course: MB-5, MB-6."""
    from gastudy.course.exercises.graded import grade_loop, loop_world

    model, microbatches = loop_world(micro_batch=2, accumulation_steps=4, dtype=torch.float32)
    return grade_loop(answer, model, microbatches,
                      t("unscale_ once, clip the true gradient, the scaler's step, the scale updated, the scheduler "
                        "only for an applied step (an overflow skipped the update and the schedule), then zero_grad"),
                      checks=[clipped, skips_on_overflow(model, microbatches)])


@exercise("05.2")
def attempted_applied(answer: object) -> tuple[bool, str]:
    """Answer: ``{"attempted": ..., "applied": ..., "scheduler_steps": ...}`` for 10 fp16 updates
    in which the scaler finds an overflow twice. Checked against a real run. Course: MB-5, MB-6."""
    from gastudy.course.labs.precision_lab import overflow_run

    c = overflow_run(updates=10, overflow_at=[3, 7]).counters
    truth = {
        "attempted": c["updates_attempted"],
        "applied": c["updates_applied"],
        "scheduler_steps": c["scheduler_steps"],
    }
    return dict_feedback(
        answer,
        truth,
        t("A skipped step is attempted, not applied; the scheduler follows applied."),
        t("measured: {truth}.", truth=truth),
    )

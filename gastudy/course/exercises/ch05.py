"""Exercises of chapter 05 (MB-5, MB-6)."""

from __future__ import annotations

from gastudy.course.exercises import dict_feedback, exercise
from gastudy.course.i18n import t

ORDER = ["unscale_", "clip", "step", "update", "scheduler", "zero_grad"]


@exercise("05.1")
def end_of_group(answer: object) -> tuple[bool, str]:
    """Answer: the list of the six operations after a group's last backward in fp16, in order,
    using the names ``unscale_``, ``clip``, ``step``, ``update``, ``scheduler``, ``zero_grad``.
    The one right order is the engine's (:class:`gastudy.core.engine.Accumulator`): unscale →
    clip → ``scaler.step`` → ``scaler.update`` → the scheduler, only when the step was applied
    (which the scale after ``update`` tells) → ``zero_grad``. Course: MB-5, MB-6."""
    if not isinstance(answer, list | tuple) or sorted(answer) != sorted(ORDER):
        return False, t("answer with a list holding exactly these names: {names}", names=ORDER)
    pos = {name: i for i, name in enumerate(answer)}
    problems = []
    if pos["clip"] < pos["unscale_"]:
        problems.append(t("clip runs on scaled gradients — unscale_ first"))
    if pos["update"] < pos["step"]:
        problems.append(t("scaler.update() comes after the step attempt it judges"))
    if pos["scheduler"] < pos["step"]:
        problems.append(t("the scheduler steps only after an applied optimizer step"))
    elif pos["scheduler"] < pos["update"]:
        problems.append(t("the scheduler steps after scaler.update(): only then is it known whether the step was "
                          "applied or skipped"))
    if pos["zero_grad"] != len(ORDER) - 1:
        problems.append(t("zero_grad ends the group (before it, the gradients are still needed)"))
    if pos["step"] < pos["clip"]:
        problems.append(t("clip before the step, or the step uses unclipped gradients"))
    if problems:
        return False, "; ".join(problems)
    return (
        True,
        t("unscale once, clip the true gradients, attempt the step, update the scale, then the schedule."),
    )


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

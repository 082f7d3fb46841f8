"""Exercises of chapter 07 — same effective batch, different experiment (MB-8, GA-2).

Every checker recomputes the expected value with the library, so the answers are measured,
not memorised.
"""

from __future__ import annotations

from gastudy.core.plan import BatchPlan
from gastudy.course.exercises import exercise
from gastudy.course.i18n import t
from gastudy.course.labs.experiment import bn_gap, count_updates


def _as_int(answer: object) -> int | None:
    return answer if isinstance(answer, int) and not isinstance(answer, bool) else None


@exercise("07.1")
def updates_in_one_epoch(answer: object) -> tuple[bool, str]:
    """1000 samples, m = 6, A = 8, D = 1, short last group kept: updates in one epoch? (MB-8)"""
    expected = count_updates(1000, BatchPlan(6, 8)).updates
    value = _as_int(answer)
    if value is None:
        return False, t("answer with a whole number of updates, got {answer}", answer=repr(answer))
    if value == expected:
        return True, t("{n} updates: ceil(1000 ÷ 48), the last one with a short group.", n=expected)
    if value == 1000 // 48:
        return False, t("that drops the short last group; this run keeps it (last_group='keep').")
    return False, t("{answer} is not it: how many samples does one update take (m × A × D)?", answer=value)


@exercise("07.2")
def batchnorm_split(answer: object) -> tuple[bool, str]:
    """Effective batch 32 on bn-mlp: the smallest m (dividing 32) whose gradient gap is < 0.5 (MB-8)."""
    gaps = {m: bn_gap(m, 32 // m) for m in (2, 4, 8, 16, 32)}
    expected = min(m for m, g in gaps.items() if g < 0.5)
    value = _as_int(answer)
    if value is None:
        return False, t("answer with the microbatch size m (an int), got {answer}", answer=repr(answer))
    if value == expected:
        return True, t("m = {m} (gap {gap:.2f}); even there BatchNorm does not match the big batch — only m = 32 "
                       "(no accumulation) does.", m=expected, gap=gaps[expected])
    if value in gaps:
        return False, t("at m = {m} the measured gap is {gap:.3g}; measure the others with bn_gap(m, 32 // m).", m=value,
                         gap=gaps[value])
    return False, t("m must divide 32 (2, 4, 8, 16, 32), got {answer}", answer=value)


@exercise("07.3")
def epochs_for_same_updates(answer: object) -> tuple[bool, str]:
    """10 epochs at m=8, A=4 on 1000 samples (keep); at m=8, A=8, how many epochs give as many updates? (MB-8)"""
    before = 10 * count_updates(1000, BatchPlan(8, 4)).updates
    per_epoch = count_updates(1000, BatchPlan(8, 8)).updates
    expected = before / per_epoch
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a number of epochs, got {answer}", answer=repr(answer))
    if abs(answer - expected) < 1e-9:
        return True, t("{before} updates before, {per_epoch} per epoch now → {epochs:g} epochs: twice the samples for the "
                       "same number of updates. Write that assumption down.", before=before, per_epoch=per_epoch,
                       epochs=expected)
    if abs(answer - 10) < 1e-9:
        return False, t("10 epochs keep the samples seen, not the number of updates.")
    return False, t("count the updates of one epoch in each setting (count_updates) and divide; got {answer}",
                     answer=answer)

"""Exercises of chapter 01 (MB-1, GA-1, GA-3). Checkers measure; they never just compare text."""

from __future__ import annotations

from collections.abc import Callable

from gastudy.core.data import MicrobatchStream
from gastudy.core.groups import make_groups
from gastudy.course.datasets import BlobDataset
from gastudy.course.exercises import dict_feedback, exercise
from gastudy.course.i18n import t


def groups_for(samples: int, micro_batch: int, accumulation_steps: int) -> list:
    """The groups a real stream of ``samples`` makes with m and A (keep policy).
    Course: GA-3."""
    stream = MicrobatchStream(BlobDataset(samples), micro_batch, shuffle=False)
    return list(make_groups(stream.microbatches(), accumulation_steps, task="classification"))


@exercise("01.1")
def count_units(answer: object) -> tuple[bool, str]:
    """Answer: ``{"microbatches": ..., "backward_passes": ..., "updates": ...}`` for one epoch of
    96 samples with m=8 and A=4. Course: MB-1, GA-3."""
    groups = groups_for(96, 8, 4)
    truth = {
        "microbatches": sum(g.size for g in groups),
        "backward_passes": sum(g.size for g in groups),
        "updates": len(groups),
    }
    return dict_feedback(
        answer,
        truth,
        t("One backward per microbatch; one update per group of A microbatches."),
        t("{passes} forward/backward passes, {updates} optimizer updates.", passes=truth["microbatches"],
          updates=truth["updates"]),
    )


@exercise("01.2")
def write_update(answer: object) -> tuple[bool, str]:
    """Answer: a function ``update(model, optimizer, scheduler, group) -> float`` doing ONE correct
    update (sum of losses ÷ ``group.supervised_items``, one backward per microbatch, step,
    scheduler, zero_grad). It is judged by two detectors on a real model. Course: MB-1."""
    from gastudy.check.diagnostics import (
        diagnose_double_division,
        diagnose_ineffective_accumulation,
    )
    from gastudy.course.clinic import default_setup

    if not isinstance(answer, Callable):
        return False, t("answer with your update function itself (not its result)")
    try:
        setup = default_setup()
        verdicts = [diagnose_ineffective_accumulation(answer, setup), diagnose_double_division(answer, setup)]
    except Exception as err:  # noqa: BLE001 - a learner's code may raise anything; report it
        return False, t("your function raised {error}: {message}", error=type(err).__name__, message=err)
    fired = [str(v) for v in verdicts if v.fired]
    if fired:
        return False, " | ".join(fired)
    return (
        True,
        t("the gradient at each step is the whole group's big-batch gradient, once per group."),
    )

"""Exercises of chapter 01 (MB-1, GA-1, GA-3). Checkers measure; they never just compare text."""

from __future__ import annotations

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
    """Answer: ``train_step(model, optimizer, microbatches, scheduler)`` doing ONE accumulated update
    by hand: the summed loss of each microbatch ÷ the group's supervised items, one backward per
    microbatch, then one optimizer step, one scheduler step and zeroed gradients. Run through
    :func:`gastudy.check_loop` on tiny-gpt (float64) and four variable-length microbatches
    (:func:`~gastudy.course.exercises.graded.grade_loop`): the gradient at the step against the big
    batch, then the zeroing, the schedule and the memory. An update function of the clinic's shape,
    ``update(model, optimizer, scheduler, group)``, is graded the same way. Course: MB-1, GA-1."""
    from gastudy.course.exercises.graded import grade_loop, loop_world

    model, microbatches = loop_world(micro_batch=2, accumulation_steps=4)
    return grade_loop(answer, model, microbatches,
                      t("one update with the gradient of the whole group's big batch, the scheduler stepped once, the "
                        "gradients zeroed, no memory kept between microbatches"))

"""Exercises of chapter 04 (MB-4, MB-6)."""

from __future__ import annotations

from gastudy.core.data import MicrobatchStream
from gastudy.core.groups import make_groups
from gastudy.course.datasets import BlobDataset
from gastudy.course.exercises import dict_feedback, exercise
from gastudy.course.i18n import t
from gastudy.run.train import updates_per_epoch


@exercise("04.1")
def last_group(answer: object) -> tuple[bool, str]:
    """Answer: ``{"keep_updates": ..., "drop_updates": ..., "dropped_samples": ...}`` for 50
    samples, m=4, A=3. Course: MB-4, MB-6."""
    truth = {}
    for policy in ("keep", "drop"):
        stream = make_groups(
            MicrobatchStream(BlobDataset(50), 4).microbatches(),
            3,
            task="classification",
            last_group=policy,
        )
        groups = list(stream)
        truth[f"{policy}_updates"] = len(groups)
        if policy == "drop":
            truth["dropped_samples"] = len(stream.partial.sample_ids) if stream.partial else 0
    return dict_feedback(
        answer,
        truth,
        t("50 samples in microbatches of 4 make 13 microbatches (the last one short)."),
        t("{truth}: the short last group holds only the last microbatch.", truth=truth),
    )


@exercise("04.2")
def schedule_length(answer: object) -> tuple[bool, str]:
    """Answer: how many scheduler steps one epoch takes for 1,000 samples, m=8, A=4 (keep).
    Course: MB-4, MB-6."""
    right = updates_per_epoch(-(-1000 // 8), 4, "keep")
    if answer == right:
        return True, t("⌈125 microbatches ÷ 4⌉ = {right} updates, one scheduler step each.", right=right)
    if answer == 125:
        return False, t("125 is the number of microbatches: that schedule would run 4× too fast.")
    return False, t("not {answer}: count optimizer updates, not microbatches.", answer=repr(answer))

"""Exercises of chapter 13 — make it fit (MB-9, CK-2 … CK-4); 13.3 runs the learner's update under a
memory budget."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torch import nn

from gastudy.course.exercises import exercise
from gastudy.course.exercises.graded import Check
from gastudy.course.i18n import t

MIB = 2**20


@exercise("13.1")
def largest_m(answer: object) -> tuple[bool, str]:
    """The budget inequality solved for m: 2,000,000 float32 parameters with AdamW, 3 MiB a sample,
    a budget of 200 MiB."""
    from gastudy.course.labs.fit_lab import budget_bound

    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a number of samples, got {answer}", answer=repr(answer))
    expected = budget_bound(2_000_000, 3 * MIB, 200 * MIB)
    if answer == expected:
        return True, t("m ≤ (200 MiB − 2,000,000 × 16 B) ÷ 3 MiB = {m}: the fixed part takes about 30.5 MiB, and "
                       "the rest holds {m} samples' activations — before the backward's temporaries.", m=expected)
    for state, what in ((0, t("that leaves out AdamW's two moments: 8 more bytes for every parameter.")),
                        (4, t("that counts one moment: AdamW keeps two, 8 bytes for every parameter."))):
        if answer == budget_bound(2_000_000, 3 * MIB, 200 * MIB, optimizer_state_bytes=state):
            return False, what
    if answer == (200 * MIB - 2_000_000 * 8) // (3 * MIB):
        return False, t("that counts weights and AdamW's moments but not the gradients, 4 bytes each.")
    if answer == 200 // 3:
        return False, t("that is the budget divided by one sample's activations: the fixed part comes off first.")
    if isinstance(answer, float) and not answer.is_integer():
        return False, t("m is a whole number of samples: round down.")
    return False, t("{answer} is not it: subtract 2,000,000 × (4 + 4 + 8) bytes from the budget, then divide by "
                    "3 MiB.", answer=answer)


@exercise("13.2")
def ladder_order(answer: object) -> tuple[bool, str]:
    """The settings fit_to_budget tries on a GPU for 3 checkpointable layers, fp32 then bf16."""
    from gastudy.memory.fit import settings_ladder

    expected = [s.label for s in settings_ladder(3, "cuda", ("fp32", "bf16"))]
    if not isinstance(answer, list | tuple) or not all(isinstance(a, str) for a in answer):
        return False, t("answer with a list of labels (strings), got {answer}", answer=repr(answer))
    got = [" ".join(str(a).split()) for a in answer]
    if got == expected:
        return True, t("{n} settings: for each precision in the order you accept them, as it is, every 2nd layer, "
                       "every layer, every layer offloaded.", n=len(expected))
    if sorted(got) == sorted(expected):
        return False, t("the right settings in another order: cheapest first, and the whole fp32 ladder before "
                        "bf16.")
    cpu = [s.label for s in settings_ladder(3, "cpu", ("fp32", "bf16"))]
    if got == cpu:
        return False, t("that is the CPU's ladder: on a GPU, offload follows checkpointing every layer.")
    if got == expected[:len(expected) // 2]:
        return False, t("that is the fp32 half: you accept bf16 too, so its rungs follow.")
    return False, t("not quite: {n} labels are expected, the first is \"fp32\".", n=len(expected))


FIT_SAMPLES = 32
"""Exercise 13.3: the samples of the one batch the update must learn from."""


@dataclass(frozen=True)
class FitExercise:
    """Exercise 13.3's world (bytes): tiny-gpt (float32, hidden 32, 4 blocks), one padded ``batch`` of
    :data:`FIT_SAMPLES` addition problems, its fixed part (weights, gradients, AdamW's two moments:
    16 bytes a parameter), the ``budget`` and the smallest useful microbatch. The budget holds the
    fixed part and what the microbatches keep for backward at their peak: not the whole batch at
    once, not microbatches of ``min_micro_batch`` as they are — only with checkpointing. MB-9, CK-3."""

    model: nn.Module
    batch: dict
    fixed_bytes: int
    budget_bytes: int
    min_micro_batch: int = 8

    def kept(self, micro_batch: int, every_n_layers: int | None = None) -> int:
        """The most bytes one microbatch of ``micro_batch`` samples of :attr:`batch` keeps for backward
        (:func:`gastudy.saved_bytes`), its blocks checkpointed ``every_n_layers`` (``None``: none)."""
        return kept_bytes(self.model, self.batch, micro_batch, every_n_layers)

    def cheapest(self) -> Any:
        """What :func:`gastudy.fit_to_budget` chooses for this budget (m × A = 32, m ≥ the minimum),
        measuring these exact bytes instead of the process's memory: a :class:`~gastudy.memory.fit.FitPlan`."""
        from gastudy.memory.fit import fit_to_budget

        def measure(m: int, _a: int, setting: Any) -> tuple[int, int]:
            return self.fixed_bytes + self.kept(m, setting.every_n_layers), self.fixed_bytes

        return fit_to_budget(self.model, self.budget_bytes, FIT_SAMPLES, min_micro_batch=self.min_micro_batch,
                             measure=measure)


def kept_bytes(model: nn.Module, batch: dict, micro_batch: int, every_n_layers: int | None = None) -> int:
    """The most bytes one microbatch of ``micro_batch`` consecutive samples of ``batch`` keeps for
    backward (:func:`gastudy.saved_bytes`, on a copy of ``model``), its blocks checkpointed
    ``every_n_layers`` (``None``: none). MB-9, CK-3."""
    from gastudy.core.checkpointing import checkpointing
    from gastudy.memory.saved import saved_bytes

    net = copy.deepcopy(model).train()
    rows = len(batch["input_ids"])
    slices = [{k: v[i:i + micro_batch] for k, v in batch.items()} for i in range(0, rows, micro_batch)]
    with checkpointing(net, every_n_layers=every_n_layers):
        return max(saved_bytes(net, mb).total for mb in slices)


def fit_exercise() -> FitExercise:
    """Exercise 13.3's model, batch and budget, built afresh (a learner may change the model they are
    handed). The budget: the fixed part + what 8 samples keep with every block checkpointed + a
    quarter of what checkpointing saves there. MB-9, CK-3."""
    from gastudy.core.data import pad_collate
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.models import build_model, parameter_count

    model = build_model("tiny-gpt", hidden=32, layers=4, heads=2)
    data = AdditionDataset(FIT_SAMPLES, seed=0, supervise="all")
    batch = pad_collate([data[i] for i in range(FIT_SAMPLES)])
    fixed, m = 16 * parameter_count(model), FitExercise.min_micro_batch
    plain, every = kept_bytes(model, batch, m), kept_bytes(model, batch, m, 1)
    return FitExercise(model, batch, fixed, fixed + every + (plain - every) // 4)


def within_budget(fit: FitExercise, seen: dict[str, Any]) -> Check:
    """A check for :func:`~gastudy.course.exercises.graded.grade_loop`: the learner's update, run on a
    copy, keeps the fixed part + its peak of saved bytes (:func:`~gastudy.course.exercises.graded.peak_saved`)
    within the budget, in microbatches of at least the minimum. What it measured goes into ``seen``."""
    def check(_report: object, step: Callable[..., object]) -> str | None:
        from gastudy.course.exercises.graded import peak_saved

        peak, forwards = peak_saved(step, fit.model, [fit.batch])
        total = fit.fixed_bytes + peak
        seen.update(peak=total, m=FIT_SAMPLES // forwards if forwards else None, forwards=forwards)
        if total > fit.budget_bytes:
            return t("⚠ over the budget: at its peak your update keeps {peak:,} bytes for backward; with the fixed "
                     "{fixed:,} bytes that is {total:,} > the budget of {budget:,} bytes ({over:.0%} over). Use "
                     "smaller microbatches, or checkpoint the blocks (enable_checkpointing)", peak=peak,
                     fixed=fit.fixed_bytes, total=total, budget=fit.budget_bytes,
                     over=total / fit.budget_bytes - 1)
        if forwards and FIT_SAMPLES / forwards < fit.min_micro_batch:
            return t("⚠ microbatches too small: {n} microbatches of {m:g} samples fit, but the smallest useful "
                     "microbatch is {min} samples — checkpoint the blocks so that microbatches of {min} or more fit",
                     n=forwards, m=FIT_SAMPLES / forwards, min=fit.min_micro_batch)
        return None

    return check


@exercise("13.3")
def make_it_fit(answer: object) -> tuple[bool, str]:
    """Answer: ``train_step(model, optimizer, microbatches, scheduler)`` whose ``microbatches`` hold ONE
    batch of 32 samples (:func:`fit_exercise`) too big for the budget as it is: the function splits it
    into microbatches of m ≥ 8 samples, checkpoints as much as it needs, and accumulates them into
    one update. Run through :func:`gastudy.check_loop` (the gradient of the whole batch), then
    :func:`within_budget`; the praise compares the learner's choice with :meth:`FitExercise.cheapest`.
    Course: MB-9, CK-3."""
    from gastudy.course.exercises.graded import grade_loop

    fit, seen = fit_exercise(), {}

    def praise(_report: object) -> str:
        plan = fit.cheapest()
        return t("microbatches of {m} samples, a peak of {peak:,} bytes within the budget of {budget:,}; "
                 "fit_to_budget, measuring the same bytes, chooses {setting} with m = {m2}",
                 m=seen.get("m") or "?", peak=seen["peak"], budget=fit.budget_bytes,
                 setting=plan.setting.label if plan.setting else "—", m2=plan.micro_batch)

    return grade_loop(answer, fit.model, [fit.batch], praise, checks=[within_budget(fit, seen)])

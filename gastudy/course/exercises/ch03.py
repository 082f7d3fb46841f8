"""Exercises of chapter 03 (GA-4, GA-5, GA-6, MB-3)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from gastudy.core.counting import count_supervised
from gastudy.core.data import packed_collate, pad_collate
from gastudy.course.datasets import AdditionDataset
from gastudy.course.exercises import exercise
from gastudy.course.i18n import t
from gastudy.course.mistakes import mean_of_means, weighted_mean


def _batches() -> dict[str, dict]:
    out = {}
    for supervise in ("all", "answer"):
        data = AdditionDataset(6, seed=3, supervise=supervise)
        samples = [data[i] for i in range(6)]
        out[f"padded, supervise={supervise}"] = pad_collate(samples)
        out[f"packed (shift_labels), supervise={supervise}"] = packed_collate(samples)
    return out


@exercise("03.1")
def count_causal(answer: object) -> tuple[bool, str]:
    """Answer: a function ``f(batch) -> int`` counting a causal LM's supervised items, for padded
    batches (``labels``) and padding-free ones (``shift_labels``). Course: GA-5."""
    if not callable(answer):
        return False, t("answer with your counting function itself")
    wrong = []
    for name, batch in _batches().items():
        right = count_supervised(batch, "causal")
        try:
            got = answer(batch)
        except Exception as err:  # noqa: BLE001 - report the learner's error
            return False, t("on the {name} batch your function raised {error}: {message}", name=name,
                            error=type(err).__name__, message=err)
        if got != right:
            hint = (
                t(" — one extra per row: the first position has no target (shift!)")
                if got == right + batch["labels"].shape[0] and "padded" in name
                else ""
            )
            wrong.append(t("{name}: {got} instead of {right}", name=name, got=got, right=right) + hint)
    if wrong:
        return False, "; ".join(wrong) + t(". Use shift_labels when present, else labels[..., 1:]; skip -100.")
    return True, t("right on padded and packed batches, with and without ignored prompts.")


@exercise("03.2")
def three_microbatches(answer: object) -> tuple[bool, str]:
    """Answer: the group loss of three microbatches with 100, 300, 600 items and mean
    losses 1, 2, 3.
    Course: GA-4, GA-5, GA-6, MB-3."""
    counts, means = [100, 300, 600], [1.0, 2.0, 3.0]
    right = weighted_mean(means, counts)
    if not isinstance(answer, int | float):
        return False, t("answer with a number")
    if abs(answer - right) < 1e-9:
        return True, t("Σᵢ nᵢ·meanᵢ ÷ Σᵢ nᵢ = {right}.", right=right)
    if abs(answer - mean_of_means(means)) < 1e-9:
        return False, t("{answer} is the mean of means; weight each mean by its items.", answer=answer)
    return False, t("{answer} is not it; compute (100·1 + 300·2 + 600·3) ÷ 1000.", answer=answer)


@exercise("03.3")
def declare_flag(answer: object) -> tuple[bool, str]:
    """Answer: the ``loss_is_scaled_for_ga`` value for a loss returning ``loss_sum / num_items``.
    Checked by running the engine with your flag and the double-division detector.
    Course: GA-6."""
    from gastudy.check.diagnostics import diagnose_double_division
    from gastudy.core.loss import summed_loss
    from gastudy.course.clinic import default_setup
    from gastudy.course.pitfalls import correct_update

    if not isinstance(answer, bool):
        return False, t("answer True or False")

    def loss_fn(output, batch, num_items):
        return summed_loss(output, batch, "causal")[0] / num_items

    fn: Callable = functools.partial(correct_update, loss_fn=loss_fn, loss_is_scaled_for_ga=answer)
    verdict = diagnose_double_division(fn, default_setup())
    return (not verdict.fired), str(verdict)

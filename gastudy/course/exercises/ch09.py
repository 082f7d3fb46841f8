"""Exercises of chapter 09 — check memory, then decide (MB-9)."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t


@exercise("09.1")
def planner_candidates(answer: object) -> tuple[bool, str]:
    """The microbatch sizes the planner tries for a target of 48 on D=2 (MB-9, MB-2)."""
    from gastudy.memory.planner import candidate_micro_batches

    expected = candidate_micro_batches(48, 2)
    if not isinstance(answer, list | tuple):
        return False, t("answer with a list of microbatch sizes, got {answer}", answer=repr(answer))
    if list(answer) == expected:
        return True, t("{sizes}: every divisor of 48 ÷ 2 = 24, so m × A × 2 = 48 exactly.", sizes=expected)
    if list(answer) == candidate_micro_batches(48, 1):
        return False, t("that ignores D: each replica takes 48 ÷ 2 samples per update.")
    return False, t("{answer} is not it: which m divide the per-replica share 48 ÷ D?", answer=list(answer))


@exercise("09.2")
def fixed_part(answer: object) -> tuple[bool, str]:
    """Weights + gradients + AdamW state of tiny-gpt (hidden 384, 4 layers) in bytes (MB-9)."""
    from gastudy.memory.planner import measure_peak

    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a number of bytes, got {answer}", answer=repr(answer))
    measured = measure_peak(1, 1, "tiny-gpt", model_kwargs={"hidden": 384, "layers": 4, "heads": 4},
                            seq_len=8, groups=1).fixed_bytes
    if abs(answer - measured) <= 1e-3 * measured:
        return True, t("measured {measured:,} bytes: 4 bytes × parameters × 4 (weights, gradients, two AdamW moments), plus "
                       "a few bytes of step counters.", measured=measured)
    ratio = answer / measured
    for k, what in ((0.5, t("that is only weights and gradients: AdamW adds two moments per weight.")),
                    (0.25, t("that is only the weights.")),
                    (0.75, t("that is one copy missing: weights, gradients and two moments."))):
        if abs(ratio - k) < 0.01:
            return False, what
    return False, t("{answer:,} is {ratio:.2f}× the measured fixed part", answer=answer, ratio=ratio)

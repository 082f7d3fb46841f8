"""Exercises of chapter 12 — questions answered with measurements (MB-12)."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t


def activation_share_saved() -> float:
    """Exercise 12.1's expected answer: the share of the tensor bytes that m=16 → m=2 saves (MB-12).

    From :func:`gastudy.course.labs.questions.ask` ``("memory-saved")``'s exact tensor bytes:
    ``(saved_m16 - saved_m2) / (fixed_m16 + saved_m16)``, where ``fixed`` is weights + gradients +
    AdamW state and ``saved`` one microbatch's activations. A fraction in [0, 1].
    """
    from gastudy.course.labs.questions import ask

    e = ask("memory-saved").evidence
    return (e["saved_m16"] - e["saved_m2"]) / (e["fixed_m16"] + e["saved_m16"])


@exercise("12.1")
def share_of_memory_saved(answer: object) -> tuple[bool, str]:
    """What fraction of the tensor bytes does m=16 → m=2 (A=8) save? (MB-9, MB-12)"""
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a fraction between 0 and 1, got {answer}", answer=repr(answer))
    from gastudy.course.labs.questions import ask

    e = ask("memory-saved").evidence
    expected = (e["saved_m16"] - e["saved_m2"]) / (e["fixed_m16"] + e["saved_m16"])
    activations_only = 1 - e["saved_m2"] / e["saved_m16"]
    if abs(answer - expected) <= 0.01:
        return True, t("{share:.1%}: the activations shrink {cut:.0f}×, but weights, gradients and AdamW state ({fixed:,} "
                       "bytes) do not, so the whole shrinks much less than the activations.",
                       share=expected, cut=e['saved_m16'] / e['saved_m2'], fixed=e['fixed_m16'])
    if 1 < answer <= 100:
        return False, t("answer as a fraction between 0 and 1, not a percentage")
    if abs(answer - activations_only) <= 0.01:
        return False, t("{answer:.3f} is the cut in activations alone; the question asks about all tensor bytes: "
                        "add the fixed part (fixed_m16) to the denominator", answer=answer)
    return False, t("{answer:.3f} is not it; compute (saved_m16 − saved_m2) ÷ (fixed_m16 + saved_m16) from "
                    "ask('memory-saved').evidence", answer=answer)


def saved_per_sample() -> int:
    """Bytes tiny-gpt (hidden 128, 4 layers, 4 heads) saves for backward for one sample of 32 tokens."""
    from gastudy.memory.saved import saved_bytes
    from gastudy.memory.workload import build_for_measurement, synthetic_microbatches

    net = build_for_measurement("tiny-gpt", model_kwargs={"hidden": 128, "layers": 4, "heads": 4})
    return saved_bytes(net, synthetic_microbatches(net, 1, 1, 32)[0]).total


@exercise("12.2")
def bytes_per_sample(answer: object) -> tuple[bool, str]:
    """Saved-for-backward bytes of one sample at sequence 32, no checkpointing (CK-1, MB-12)."""
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a number of bytes, got {answer}", answer=repr(answer))
    expected = saved_per_sample()
    if answer == expected:
        return True, t("{bytes:,} bytes ≈ {mib:.2f} MiB per sample: multiply by m for a microbatch (chapter 08 shows "
                       "the straight line).", bytes=expected, mib=expected / 2**20)
    if abs(answer - expected) <= 0.02 * expected:
        return False, t("close ({answer:,} vs the measured {expected:,}); use the exact value saved_bytes(...).total",
                        answer=answer, expected=expected)
    return False, t("{answer:,} is off by {ratio:.2f}×; did you use m=1, sequence 32 and the model sizes given?",
                    answer=answer, ratio=answer / expected)

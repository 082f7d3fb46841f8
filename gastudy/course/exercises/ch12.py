"""Exercises of chapter 12 — questions answered with measurements (MB-12)."""

from __future__ import annotations

from gastudy.course.exercises import exercise


@exercise("12.1")
def pick_a_question(answer: object) -> tuple[bool, str]:
    """Any key of :data:`gastudy.course.labs.questions.QUESTIONS`; the checker re-measures it (MB-12)."""
    from gastudy.course.labs.questions import QUESTIONS, ask

    if answer not in QUESTIONS:
        return False, f"{answer!r} is not a question key; choose one of: {', '.join(QUESTIONS)}"
    a = ask(str(answer))
    return True, f"measured again just now:\n{a.text}\nRevisit notebook {a.chapter} ({', '.join(a.sections)})."


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
        return False, f"answer with a number of bytes, got {answer!r}"
    expected = saved_per_sample()
    if answer == expected:
        return True, (f"{expected:,} bytes ≈ {expected / 2**20:.2f} MiB per sample: multiply by m for a microbatch "
                      "(chapter 08 shows the straight line).")
    if abs(answer - expected) <= 0.02 * expected:
        return False, f"close ({answer:,} vs the measured {expected:,}); use the exact value saved_bytes(...).total"
    return False, (f"{answer:,} is off by {answer / expected:.2f}×; did you use m=1, sequence 32 and the model "
                   "sizes given?")

"""Exercises of chapter 11 — the troubleshooting clinic (MB-11)."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t


@exercise("11.1")
def fix_the_loop(answer: object) -> tuple[bool, str]:
    """Answer: the exercise cell's ``train_step(model, optimizer, microbatches, scheduler)`` with its four
    slips fixed (a mean of microbatch means, graph-attached losses summed for one backward, the
    scheduler stepped per microbatch, no ``zero_grad``). Run through :func:`gastudy.check_loop` on
    tiny-gpt (float64) and four variable-length microbatches: it names one symptom at a time, the
    clinic's detectors measuring it, until none is left. An update function of the clinic's shape,
    ``f(model, optimizer, scheduler, group)``, is graded the same way.

    The feedback is in the course language; the verdicts it quotes are the library's English
    sentences (:mod:`gastudy.check`), the symptom names are translated. Course: MB-11."""
    from gastudy.course.exercises.graded import grade_loop, loop_world

    model, microbatches = loop_world(micro_batch=2, accumulation_steps=4)
    return grade_loop(answer, model, microbatches,
                      t("check_loop finds none of the five symptoms: the big-batch gradient, one scheduler step, "
                        "the gradients zeroed, no memory kept between microbatches"))


@exercise("11.2")
def unshifted_factor(answer: object) -> tuple[bool, str]:
    """The factor k by which the unshifted causal count shrinks the gradient (GA-5, MB-11)."""
    from gastudy.course.labs.clinic import clinic_case

    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a number (the factor k), got {answer}", answer=repr(answer))
    evidence = clinic_case("unshifted_count").before.evidence
    k = evidence["k"]
    if abs(answer - k) <= 1e-6 * k:
        return True, t("k = {k:.6f} = {implied:.0f} ÷ {denominator} items: one extra item for each of the {rows} rows "
                       "whose first label is supervised.", k=k,
                       implied=evidence['implied_denominator'], denominator=evidence["denominator"],
                       rows=evidence["rows_with_supervised_first_label"])
    if abs(answer - 1 / k) <= 1e-6:
        return False, t("that is 1/k: the gradient is k times *smaller*, so k > 1.")
    return False, t("{answer} is not the measured factor; read case.result.before.evidence['k']", answer=answer)

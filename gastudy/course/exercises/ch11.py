"""Exercises of chapter 11 — the troubleshooting clinic (MB-11)."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t


@exercise("11.1")
def your_update_passes_the_clinic(answer: object) -> tuple[bool, str]:
    """An update function ``f(model, optimizer, scheduler, group) -> float`` that no detector flags.

    The feedback is in the course language; the detectors' verdicts it quotes are the library's
    English sentences (:mod:`gastudy.check.diagnostics`), the symptom names are translated."""
    from gastudy.check.diagnostics import diagnose_all
    from gastudy.course.clinic import default_setup
    from gastudy.course.labs.clinic import symptom_name

    if not callable(answer):
        return False, t("answer with a function f(model, optimizer, scheduler, group) -> float, got {answer}",
                        answer=repr(answer))
    try:
        verdicts = diagnose_all(answer, default_setup())
    except Exception as e:  # the learner's loop failed: say how, never crash the notebook
        return False, t("your update function raised {error}: {message}", error=type(e).__name__, message=e)
    fired = [v for v in verdicts if v.fired]
    if not fired:
        return True, t("all five detectors are quiet: {symptoms}.",
                       symptoms="; ".join(symptom_name(v.symptom) for v in verdicts))
    return False, "\n".join(f"⚠ {symptom_name(v.symptom)}: {v.message}" for v in fired)


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

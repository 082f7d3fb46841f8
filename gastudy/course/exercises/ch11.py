"""Exercises of chapter 11 — the troubleshooting clinic (MB-11)."""

from __future__ import annotations

from gastudy.course.exercises import exercise


@exercise("11.1")
def your_update_passes_the_clinic(answer: object) -> tuple[bool, str]:
    """An update function ``f(model, optimizer, scheduler, group) -> float`` that no detector flags."""
    from gastudy.check.diagnostics import diagnose_all

    if not callable(answer):
        return False, f"answer with a function f(model, optimizer, scheduler, group) -> float, got {answer!r}"
    try:
        verdicts = diagnose_all(answer)
    except Exception as e:  # the learner's loop failed: say how, never crash the notebook
        return False, f"your update function raised {type(e).__name__}: {e}"
    fired = [v for v in verdicts if v.fired]
    if not fired:
        return True, "all five detectors are quiet: " + "; ".join(v.symptom for v in verdicts) + "."
    return False, "\n".join(str(v) for v in fired)


@exercise("11.2")
def unshifted_factor(answer: object) -> tuple[bool, str]:
    """The factor k by which the unshifted causal count shrinks the gradient (GA-5, MB-11)."""
    from gastudy.course.labs.clinic import clinic_case

    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, f"answer with a number (the factor k), got {answer!r}"
    evidence = clinic_case("unshifted_count").before.evidence
    k = evidence["k"]
    if abs(answer - k) <= 1e-6 * k:
        return True, (f"k = {k:.6f} = {evidence['implied_denominator']:.0f} ÷ {evidence['denominator']} items: "
                      f"one extra item for each of the {evidence['rows_with_supervised_first_label']} rows whose "
                      "first label is supervised.")
    if abs(answer - 1 / k) <= 1e-6:
        return False, "that is 1/k: the gradient is k times *smaller*, so k > 1."
    return False, f"{answer} is not the measured factor; read case.result.before.evidence['k']"

"""Check cells: every claim the course makes ends in an assertion a learner can read."""

from __future__ import annotations

from gastudy.course.i18n import t


def check(condition: bool, claim: str, detail: str = "") -> None:
    """Print ``✓ claim`` if ``condition`` holds, else raise ``AssertionError`` saying what failed.

    The fixed words are in the current course language (:mod:`gastudy.course.i18n`); ``claim``
    and ``detail`` are the caller's text, translated by the caller."""
    if not condition:
        raise AssertionError(t("✗ {claim} — this no longer holds. {detail}", claim=claim, detail=detail).strip())
    print(f"✓ {claim}")


def check_close(actual: float, expected: float, claim: str, rtol: float = 1e-6, atol: float = 0.0) -> None:
    """:func:`check` that ``actual`` equals ``expected`` within ``atol + rtol·|expected|``."""
    tol = atol + rtol * abs(expected)
    check(abs(actual - expected) <= tol, f"{claim} ({actual:.6g} ≈ {expected:.6g})",
          t("measured {actual}, expected {expected} within {tol}", actual=repr(actual), expected=repr(expected),
            tol=f"{tol:.3g}"))

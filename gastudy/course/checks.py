"""Check cells: every claim the course makes ends in an assertion a learner can read."""

from __future__ import annotations


def check(condition: bool, claim: str, detail: str = "") -> None:
    """Print ``✓ claim`` if ``condition`` holds, else raise ``AssertionError`` saying what failed."""
    if not condition:
        raise AssertionError(f"✗ {claim} — this no longer holds. {detail}".strip())
    print(f"✓ {claim}")


def check_close(actual: float, expected: float, claim: str, rtol: float = 1e-6, atol: float = 0.0) -> None:
    """:func:`check` that ``actual`` equals ``expected`` within ``atol + rtol·|expected|``."""
    tol = atol + rtol * abs(expected)
    check(abs(actual - expected) <= tol, f"{claim} ({actual:.6g} ≈ {expected:.6g})",
          f"measured {actual!r}, expected {expected!r} within {tol:.3g}")

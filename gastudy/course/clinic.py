"""The MB-11 clinic: every pitfall of :mod:`gastudy.course.pitfalls` against the detector that names
it, on the wrong loop and on its fix (course: MB-11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gastudy.check.diagnostics import DETECTORS, Setup, Verdict, default_setup
from gastudy.course.pitfalls import FIXES, PITFALLS


@dataclass
class ClinicCase:
    """One clinic case: a pitfall, the detector that catches it, its verdict before and after the fix.

    Course: MB-11.
    """

    pitfall: str
    description: str
    detector: str
    before: Verdict
    after: Verdict

    @property
    def ok(self) -> bool:
        """True when the detector fires on the pitfall and stays quiet on the fix."""
        return self.before.fired and not self.after.fired

    def __str__(self) -> str:
        return (f"{self.pitfall} — {self.description}\n  pitfall: {self.before}\n"
                f"  fixed:   {self.after}")



def run_clinic(pitfalls: Sequence[str] | None = None, setup: Setup | None = None) -> list[ClinicCase]:
    """The MB-11 clinic: for each pitfall (default: all of :data:`PITFALLS`), run the detector that
    names it on the wrong loop and on its fix (:data:`FIXES`). Raises ``KeyError`` naming the
    known pitfalls for an unknown name.

    Course: MB-11.
    """
    setup = setup or default_setup()
    names = list(pitfalls or PITFALLS)
    unknown = [n for n in names if n not in PITFALLS]
    if unknown:
        raise KeyError(f"unknown pitfall(s) {unknown}; known: {', '.join(PITFALLS)}")
    cases = []
    for name in names:
        update, description, detector = PITFALLS[name]
        run = DETECTORS[detector]
        cases.append(ClinicCase(name, description, detector, run(update, setup), run(FIXES[name], setup)))
    return cases


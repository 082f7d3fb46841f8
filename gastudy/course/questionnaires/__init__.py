"""The questions of every chapter's questionnaire (:mod:`gastudy.course.questionnaire`).

Module ``chNN`` holds chapter ``NN``'s: a function ``questions()`` that returns them, written in
English through :func:`gastudy.course.i18n.t` so that they are read in the course language.
"""

from __future__ import annotations

from pathlib import Path


def chapters() -> list[str]:
    """The chapters that have a questionnaire (``["00", "01", …]``)."""
    return sorted(p.stem[2:] for p in Path(__file__).parent.glob("ch[0-9][0-9].py"))

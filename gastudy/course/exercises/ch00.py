"""Exercises of chapter 00 (how the course works). Course: the section map."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t
from gastudy.course.sections import SECTIONS, notebook_for


@exercise("00.1")
def which_notebook(answer: object) -> tuple[bool, str]:
    """Answer: the notebook name (e.g. ``"01_microbatch_backward_update"``) that teaches MB-6.
    Course: MB-6."""
    right = notebook_for("MB-6")
    if not isinstance(answer, str):
        return False, t("give the notebook's name as a string, got {kind}", kind=type(answer).__name__)
    name = answer.removesuffix(".ipynb")
    if name == right:
        return True, t("MB-6 ({title}) is taught in {notebook}.", title=SECTIONS["MB-6"][0], notebook=right)
    return False, t("{name} is not it. Look MB-6 up in the section map above, or call "
                    "gastudy.course.notebook_for('MB-6').", name=repr(name))



"""Exercises of chapter 00 (how the course works), and the feedback helper the chapter
checkers share. Course: the section map."""

from __future__ import annotations

from gastudy.course.sections import SECTIONS, notebook_for
from gastudy.exercises import exercise


@exercise("00.1")
def which_notebook(answer: object) -> tuple[bool, str]:
    """Answer: the notebook name (e.g. ``"01_microbatch_backward_update"``) that teaches MB-6.
    Course: MB-6."""
    right = notebook_for("MB-6")
    if not isinstance(answer, str):
        return False, f"give the notebook's name as a string, got {type(answer).__name__}"
    name = answer.removesuffix(".ipynb")
    if name == right:
        return True, f"MB-6 ({SECTIONS['MB-6'][0]}) is taught in {right}."
    return False, (
        f"{name!r} is not it. Look MB-6 up in the section map above, or call "
        "gastudy.course.notebook_for('MB-6')."
    )


def dict_feedback(
    answer: object, truth: dict[str, object], hint: str, praise: str
) -> tuple[bool, str]:
    """Compare a dict answer key by key with the measured ``truth``; name every wrong key.

    Returns ``(True, praise)`` when all keys match, else ``(False, "<key: you said …>; … hint")``.
    Course: every chapter's exercises.
    """
    if not isinstance(answer, dict):
        return False, f"answer with a dict with keys {sorted(truth)}"
    wrong = [f"{k}: you said {answer.get(k)!r}" for k in truth if answer.get(k) != truth[k]]
    if wrong:
        return False, "; ".join(wrong) + ". " + hint
    return True, praise

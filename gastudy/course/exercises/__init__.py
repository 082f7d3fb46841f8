"""Exercises with automatic feedback; solutions live in separate files loaded on purpose.

Each chapter module registers checkers with :func:`exercise`. In a notebook::

    answer = None            # ← your code here
    check_exercise("03.1", answer)     # says what is right or wrong; never breaks a run

(until the learner answers, the cell says "not attempted yet", never a bare ``False``)

and, only if the learner wants it, ``show_solution("03.1")`` prints the solution file.

An exercise the learner answers with code — 01.2, 05.1, 06.2, 08.3, 11.1, 13.3: a ``train_step``
whose starting version the exercise cell gives — is graded by running it through the library's
own checker, :func:`gastudy.check_loop` (:mod:`gastudy.course.exercises.graded`); a prediction or a
count is answered with a value, which the checker compares with a measurement.
"""

from __future__ import annotations

import html
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gastudy.course.i18n import direction, t

Checker = Callable[[object], tuple[bool, str]]
_CHECKERS: dict[str, Checker] = {}
SOLUTIONS = Path(__file__).parent / "solutions"


def exercise(key: str) -> Callable[[Checker], Checker]:
    """Register a checker ``f(answer) -> (ok, feedback)`` under ``key`` (e.g. ``"03.1"``)."""

    def register(f: Checker) -> Checker:
        _CHECKERS[key] = f
        return f

    return register


def _load_chapter(key: str) -> None:
    chapter = key.split(".")[0]
    module = f"gastudy.course.exercises.ch{chapter}"
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:  # a broken import inside the chapter must not look like "no exercise"
            raise


@dataclass(frozen=True, eq=False)
class ExerciseResult:
    """What :func:`check_exercise` returns: true when the answer is right, false otherwise.

    It compares equal to that bool (``check_exercise(k, None) == False``) and carries the
    ``feedback`` that was shown. In a notebook it displays nothing itself: check_exercise has
    already shown the feedback, so a cell ending with ``check_exercise(...)`` shows one message
    (never a bare ``False``). Course: every chapter's exercises.
    """

    key: str
    ok: bool
    attempted: bool
    feedback: str

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ExerciseResult):
            return (self.key, self.ok, self.attempted) == (other.key, other.ok, other.attempted)
        if isinstance(other, bool):
            return self.ok == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.ok)

    @property
    def status(self) -> str:
        """``not attempted yet``, ``✓ right`` or ``✗ not yet`` (in the current course language)."""
        return t("not attempted yet") if not self.attempted else t("✓ right") if self.ok else t("✗ not yet")

    @property
    def text(self) -> str:
        """The feedback as one line: ``Exercise 03.1: ✓ right — …``."""
        return t("Exercise {key}: {status} — {feedback}", key=self.key, status=self.status, feedback=self.feedback)

    def to_html(self) -> str:
        """The feedback as a small coloured box (green right, orange not yet, grey not attempted)."""
        color = "#616161" if not self.attempted else "#2e7d32" if self.ok else "#a84300"  # 4.5:1 or more on white
        side, rtl = ("right", ' dir="rtl"') if direction() == "rtl" else ("left", "")
        return (f'<div class="gastudy-exercise"{rtl} style="border-{side}:4px solid {color};'
                f'padding:.2em .7em;margin:.2em 0"><b>{html.escape(t("Exercise {key}", key=self.key))}</b> · '
                f'<b style="color:{color}">'
                f'{html.escape(self.status)}</b> — <span style="white-space:pre-wrap">'
                f"{html.escape(self.feedback)}</span></div>")

    def _ipython_display_(self) -> None:
        """Nothing: the feedback was shown when the answer was checked."""


NOT_ATTEMPTED = "write your answer above (in place of None) and run this cell."
"""The feedback of an exercise not attempted yet (English; shown through :func:`t`)."""


def check_exercise(key: str, answer: object) -> ExerciseResult:
    """Show feedback for ``answer`` and return it; true when right. ``None`` means not attempted.

    In a notebook the feedback is an HTML box, elsewhere a printed line.
    """
    from gastudy.course.widgets import show_html

    _load_chapter(key)
    if key not in _CHECKERS:
        raise KeyError(f"no exercise {key!r}; known: {', '.join(sorted(_CHECKERS))}")
    if answer is None:
        result = ExerciseResult(key, False, False, t("write your answer above (in place of None) and run this cell."))
    else:
        ok, feedback = _CHECKERS[key](answer)
        result = ExerciseResult(key, bool(ok), True, feedback)
    show_html(result.to_html(), result.text)
    return result


def solution_path(key: str) -> Path:
    """The file holding the solution of exercise ``key`` (``solutions/ex_03_1.py``)."""
    return SOLUTIONS / f"ex_{key.replace('.', '_')}.py"


def show_solution(key: str) -> str:
    """Print and return the solution of exercise ``key`` (loaded on purpose, from its file)."""
    path = solution_path(key)
    if not path.exists():
        raise FileNotFoundError(f"no solution file for exercise {key!r} at {path}")
    text = path.read_text(encoding="utf-8")
    print(text)
    return text


def dict_feedback(
    answer: object, truth: dict[str, object], hint: str, praise: str
) -> tuple[bool, str]:
    """Compare a dict answer key by key with the measured ``truth``; name every wrong key.

    Returns ``(True, praise)`` when all keys match, else ``(False, "<key: you said …>; … hint")``.
    Course: every chapter's exercises.
    """
    if not isinstance(answer, dict):
        return False, t("answer with a dict with keys {keys}", keys=sorted(truth))
    wrong = [t("{key}: you said {value}", key=k, value=repr(answer.get(k))) for k in truth if answer.get(k) != truth[k]]
    if wrong:
        return False, "; ".join(wrong) + ". " + hint
    return True, praise

"""Exercises with automatic feedback; solutions live in separate files loaded on purpose.

Each chapter module registers checkers with :func:`exercise`. In a notebook::

    answer = None            # ← your code here
    check_exercise("03.1", answer)     # says what is right or wrong; never breaks a run

and, only if the learner wants it, ``show_solution("03.1")`` prints the solution file.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

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


def check_exercise(key: str, answer: object) -> bool:
    """Print feedback for ``answer``; returns True when right. ``None`` means not attempted."""
    _load_chapter(key)
    if key not in _CHECKERS:
        raise KeyError(f"no exercise {key!r}; known: {', '.join(sorted(_CHECKERS))}")
    if answer is None:
        print(f"Exercise {key}: not attempted yet — replace None with your answer and run the cell again.")
        return False
    ok, feedback = _CHECKERS[key](answer)
    print(f"Exercise {key}: {'✓ right' if ok else '✗ not yet'} — {feedback}")
    return ok


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
        return False, f"answer with a dict with keys {sorted(truth)}"
    wrong = [f"{k}: you said {answer.get(k)!r}" for k in truth if answer.get(k) != truth[k]]
    if wrong:
        return False, "; ".join(wrong) + ". " + hint
    return True, praise

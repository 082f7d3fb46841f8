"""How long a chapter takes a learner working alone — computed by a stated rule, not guessed.

Each chapter states its time once, in its first cell (``*Time: NN min*``), and a test holds that
number to :func:`chapter_time`: when a chapter grows, its stated time grows with it. The rule
counts what a learner does in the English notebook:

=====================  ===========================================================
prose                  ``WORDS_PER_MINUTE`` words of markdown a minute (code blocks,
                       HTML tags and link targets not counted)
code                   ``CODE_LINES_PER_MINUTE`` lines a minute (read, run, read the
                       output; blank and comment-only lines not counted)
a lab                  ``MINUTES_PER_LAB`` minutes to move its controls
an exercise            ``MINUTES_PER_EXERCISE`` minutes (one ``check_exercise`` call)
a questionnaire        ``MINUTES_PER_QUESTION`` minute per question
=====================  ===========================================================

rounded up to a multiple of ``ROUND_TO`` minutes. 150 words a minute is a careful reading pace
for technical prose (silent reading of plain text is faster, reading aloud slower).

A long chapter has *places to stop*: a markdown cell that begins with :data:`STOP_MARK` splits
the chapter into parts a learner can take on different days; :func:`chapter_parts` times each
part by the same rule, and the stop cell states both numbers (a test compares them).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

WORDS_PER_MINUTE = 150
CODE_LINES_PER_MINUTE = 6
MINUTES_PER_LAB = 3
MINUTES_PER_EXERCISE = 5
MINUTES_PER_QUESTION = 1
ROUND_TO = 5

STOP_MARK = "**A place to stop.**"
"""The first words of a markdown cell that marks a place to stop inside a chapter."""

_FENCED = re.compile(r"^(`{3,}|~{3,}).*?^\1", re.M | re.S)
_TAG = re.compile(r"<[^<>]+>")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_LAB = re.compile(r"\b[A-Z]\w*Lab\(")
_QUESTIONNAIRE = re.compile(r"Questionnaire\(\s*[\"'](\d\d)[\"']\s*\)")


@dataclass(frozen=True)
class StudyTime:
    """What the rule counted in some cells, and the minutes it gives."""

    words: int = 0
    code_lines: int = 0
    labs: int = 0
    exercises: int = 0
    questions: int = 0

    @property
    def exact_minutes(self) -> float:
        """The rule's minutes before rounding."""
        return (self.words / WORDS_PER_MINUTE + self.code_lines / CODE_LINES_PER_MINUTE
                + self.labs * MINUTES_PER_LAB + self.exercises * MINUTES_PER_EXERCISE
                + self.questions * MINUTES_PER_QUESTION)

    @property
    def minutes(self) -> int:
        """The rule's minutes rounded up to a multiple of ``ROUND_TO`` (at least ``ROUND_TO``)."""
        return max(ROUND_TO, ROUND_TO * math.ceil(round(self.exact_minutes, 6) / ROUND_TO))

    def __add__(self, other: StudyTime) -> StudyTime:
        return StudyTime(self.words + other.words, self.code_lines + other.code_lines, self.labs + other.labs,
                         self.exercises + other.exercises, self.questions + other.questions)


def prose_words(markdown: str) -> int:
    """Words of ``markdown`` a learner reads: fenced blocks, HTML tags and link targets left out."""
    text = _LINK_TARGET.sub("]", _TAG.sub(" ", _FENCED.sub(" ", markdown)))
    return len(_WORD.findall(text))


def cell_time(cell: nbformat.NotebookNode) -> StudyTime:
    """What one cell adds: its words (markdown) or its code lines, labs, exercises and questions."""
    if cell.cell_type == "markdown":
        return StudyTime(words=prose_words(cell.source))
    if cell.cell_type != "code":
        return StudyTime()
    lines = [line for line in cell.source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    questions = 0
    for chapter in _QUESTIONNAIRE.findall(cell.source):
        from gastudy.course.questionnaire import questions as chapter_questions

        questions += len(chapter_questions(chapter))
    return StudyTime(code_lines=len(lines), labs=len(_LAB.findall(cell.source)),
                     exercises=cell.source.count("check_exercise("), questions=questions)


def is_stop(cell: nbformat.NotebookNode) -> bool:
    """Whether ``cell`` marks a place to stop (a markdown cell beginning with :data:`STOP_MARK`)."""
    return cell.cell_type == "markdown" and cell.source.lstrip().startswith(STOP_MARK)


def chapter_parts(notebook: str | Path | nbformat.NotebookNode) -> list[StudyTime]:
    """The study time of each part of a chapter, split at its places to stop (one part when it
    has none); a stop cell counts in the part it ends. Raises ``FileNotFoundError`` for a missing
    notebook."""
    nb = notebook if isinstance(notebook, nbformat.NotebookNode) else nbformat.read(Path(notebook), as_version=4)
    parts = [StudyTime()]
    for cell in nb.cells:
        parts[-1] = parts[-1] + cell_time(cell)
        if is_stop(cell):
            parts.append(StudyTime())
    return parts


def chapter_time(notebook: str | Path | nbformat.NotebookNode) -> StudyTime:
    """The study time of a whole chapter (all its parts)."""
    total = StudyTime()
    for part in chapter_parts(notebook):
        total = total + part
    return total

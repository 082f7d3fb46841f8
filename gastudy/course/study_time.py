"""How long a chapter takes a learner working alone — computed by a stated rule, not guessed.

Each chapter states its time once, in its first cell (``*Time: NN min*``), and a test holds that
number to :func:`chapter_time`: when a chapter grows, its stated time grows with it. The rule
counts what a learner reads and does in the English notebook — the cells, and what the chapter
*shows when it runs* (its outputs: printed lines, check lines, verdicts, tables, plots):

======================  ==========================================================
prose                   ``WORDS_PER_MINUTE`` words of markdown a minute (code blocks,
                        HTML tags and link targets not counted)
code                    ``CODE_LINES_PER_MINUTE`` lines a minute (read and run; blank and
                        comment-only lines not counted)
output read             ``OUTPUT_WORDS_PER_MINUTE`` words and numbers of output a minute
                        (printed text, check lines, verdicts, table cells; what a
                        ``<details>`` folds away, the text alternative of a plot and the
                        questionnaire's and predictions' own widgets not counted)
a plot                  ``MINUTES_PER_FIGURE`` minute to read its axes, curves and legend
a table                 ``MINUTES_PER_TABLE`` minute to find its rows and columns (its
                        words count as output besides)
a lab                   ``MINUTES_PER_LAB`` minutes to move its controls
a prediction            ``MINUTES_PER_PREDICTION`` minutes (one ``Prediction(`` cell: think,
                        write it, compare it at the reveal)
an exercise             ``MINUTES_PER_EXERCISE`` minutes (one ``check_exercise`` call), or
                        ``MINUTES_PER_CODE_EXERCISE`` when the learner writes a function
                        in its cell (the cell holds a ``def``: a loop the checker runs)
a questionnaire         ``MINUTES_PER_QUESTION`` minute per question
======================  ==========================================================

rounded up to a multiple of ``ROUND_TO`` minutes. 150 words a minute is a careful reading pace
for technical prose (silent reading of plain text is faster, reading aloud slower); output is
denser — numbers, units, column after column — and is read at two thirds of that pace.

**What the chapter shows is measured, not guessed.** The committed notebooks hold no outputs, so
the output counts come from executing a copy of every chapter (its labs at their default
settings, as a top-to-bottom run shows them) and are kept, per cell, in
``study_time_outputs.json`` beside this module, with a digest of each chapter's code cells. A
notebook that carries outputs (an executed copy) is counted from its own outputs instead. When a
chapter's code changes, its measurement is stale (:func:`stale_chapters`, and a test says so);
re-measure and rewrite the stated times with one command, from the repository root::

    python -m gastudy.course.study_time --measure --write          # the stale chapters
    python -m gastudy.course.study_time --measure 05 08 --write    # these chapters
    python -m gastudy.course.study_time                            # stated vs the rule, stale or not

``--write`` puts the rule's minutes into each chapter's ``*Time: NN min*`` line, the two numbers
of its place to stop, and the course total that chapter 00 states (:func:`course_hours`).

A long chapter has *places to stop*: a markdown cell that begins with :data:`STOP_MARK` splits
the chapter into parts a learner can take on different days; :func:`chapter_parts` times each
part by the same rule, and the stop cell states both numbers (a test compares them).
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

WORDS_PER_MINUTE = 150
CODE_LINES_PER_MINUTE = 6
OUTPUT_WORDS_PER_MINUTE = 100
MINUTES_PER_FIGURE = 1.0
MINUTES_PER_TABLE = 0.5
MINUTES_PER_LAB = 3
MINUTES_PER_PREDICTION = 2
MINUTES_PER_EXERCISE = 5
MINUTES_PER_CODE_EXERCISE = 15
MINUTES_PER_QUESTION = 1
ROUND_TO = 5

STOP_MARK = "**A place to stop.**"
"""The first words of a markdown cell that marks a place to stop inside a chapter."""

MEASURED = Path(__file__).with_name("study_time_outputs.json")
"""Where the measured output counts of the chapters are kept (see the module docstring)."""

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
"""The English chapters, in a checkout of the repository."""

TOTAL_LINE = re.compile(r"(whole course takes a learner alone about )(\d+)( hours)")
"""How chapter 00 states the course total (its "How long it takes" paragraph)."""

_FENCED = re.compile(r"^(`{3,}|~{3,}).*?^\1", re.M | re.S)
_TAG = re.compile(r"<[^<>]+>")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_OUTPUT_TOKEN = re.compile(r"[+-]?\d[\d.,]*(?:e[+-]?\d+)?|[^\W\d_]+(?:['’][^\W_]+)*")
_LAB = re.compile(r"\b[A-Z]\w*Lab\(")
_DEF = re.compile(r"^\s*def \w+\(", re.M)
_QUESTIONNAIRE = re.compile(r"Questionnaire\(\s*[\"'](\d\d)[\"']\s*\)")
_UNREAD = re.compile(r"<(details|style|script)\b.*?</\1>", re.S | re.I)
_TIME_LINE = re.compile(r"^\*Time: (\d+) min\*$", re.M)
_STOP_TIMES = re.compile(r"about (\d+) min")
_OWN_WIDGETS = ("Questionnaire(", "Prediction(")  # their text is counted per question / prediction


@dataclass(frozen=True)
class StudyTime:
    """What the rule counted in some cells, and the minutes it gives."""

    words: int = 0
    code_lines: int = 0
    labs: int = 0
    exercises: int = 0
    questions: int = 0
    output_words: int = 0
    figures: int = 0
    tables: int = 0
    predictions: int = 0
    coding_exercises: int = 0
    """Of ``exercises``, those whose cell has the learner write a function."""

    @property
    def exact_minutes(self) -> float:
        """The rule's minutes before rounding."""
        return (self.words / WORDS_PER_MINUTE + self.code_lines / CODE_LINES_PER_MINUTE
                + self.labs * MINUTES_PER_LAB + (self.exercises - self.coding_exercises) * MINUTES_PER_EXERCISE
                + self.coding_exercises * MINUTES_PER_CODE_EXERCISE
                + self.questions * MINUTES_PER_QUESTION + self.output_words / OUTPUT_WORDS_PER_MINUTE
                + self.figures * MINUTES_PER_FIGURE + self.tables * MINUTES_PER_TABLE
                + self.predictions * MINUTES_PER_PREDICTION)

    @property
    def minutes(self) -> int:
        """The rule's minutes rounded up to a multiple of ``ROUND_TO`` (at least ``ROUND_TO``)."""
        return max(ROUND_TO, ROUND_TO * math.ceil(round(self.exact_minutes, 6) / ROUND_TO))

    def __add__(self, other: StudyTime) -> StudyTime:
        return StudyTime(*(a + b for a, b in zip(_fields(self), _fields(other))))


def _fields(time: StudyTime) -> tuple[int, ...]:
    return (time.words, time.code_lines, time.labs, time.exercises, time.questions, time.output_words,
            time.figures, time.tables, time.predictions, time.coding_exercises)


@dataclass(frozen=True)
class Shown:
    """What one cell shows when it runs: words and numbers a learner reads, plots, tables."""

    words: int = 0
    figures: int = 0
    tables: int = 0

    def __add__(self, other: Shown) -> Shown:
        return Shown(self.words + other.words, self.figures + other.figures, self.tables + other.tables)


def prose_words(markdown: str) -> int:
    """Words of ``markdown`` a learner reads: fenced blocks, HTML tags and link targets left out."""
    text = _LINK_TARGET.sub("]", _TAG.sub(" ", _FENCED.sub(" ", markdown)))
    return len(_WORD.findall(text))


def output_words(text: str) -> int:
    """Words and numbers in ``text`` (``1.2e-05``, ``12,288`` and ``-100`` are one each)."""
    return len(_OUTPUT_TOKEN.findall(text))


def html_shown(page: str) -> Shown:
    """What an HTML output shows: its plots (``<img>``), its tables and the words of its text.
    What ``<details>`` folds away is not read by default, nor style and script; a plot's text
    alternative (its ``alt``) is for a screen reader, and the plot is counted as a plot."""
    visible = _UNREAD.sub(" ", page)
    return Shown(output_words(html.unescape(_TAG.sub(" ", visible))),
                 len(re.findall(r"<img\b", visible, re.I)), len(re.findall(r"<table\b", visible, re.I)))


def output_shown(output: Mapping[str, Any]) -> Shown:
    """What one notebook output shows (a stream, a display, a result; an error's name and message)."""
    kind = output.get("output_type")
    if kind == "stream":
        return Shown(output_words(_text(output.get("text", ""))))
    if kind == "error":
        return Shown(output_words(f"{output.get('ename', '')}: {output.get('evalue', '')}"))
    data = output.get("data", {})
    if "text/html" in data:
        return html_shown(_text(data["text/html"]))
    if any(key.startswith("image/") for key in data):
        return Shown(figures=1)
    if "application/vnd.jupyter.widget-view+json" in data:
        return Shown()  # a widget not flattened: nothing counted (flatten_widgets first)
    return Shown(output_words(_text(data.get("text/plain", ""))))


def _text(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "".join(value)


def cell_shown(cell: nbformat.NotebookNode) -> Shown:
    """What a code cell's outputs show; the questionnaire's and a prediction's own widgets are
    left out (their reading is their questions' and the prediction's time)."""
    if cell.cell_type != "code" or any(mark in cell.source for mark in _OWN_WIDGETS):
        return Shown()
    total = Shown()
    for output in cell.get("outputs", []):
        total = total + output_shown(output)
    return total


def cell_time(cell: nbformat.NotebookNode, shown: Shown | None = None) -> StudyTime:
    """What one cell adds: its words (markdown), or its code lines, labs, predictions, exercises,
    questions and what it shows (``shown``, else its own outputs)."""
    if cell.cell_type == "markdown":
        return StudyTime(words=prose_words(cell.source))
    if cell.cell_type != "code":
        return StudyTime()
    lines = [line for line in cell.source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    questions = 0
    for chapter in _QUESTIONNAIRE.findall(cell.source):
        from gastudy.course.questionnaire import questions as chapter_questions

        questions += len(chapter_questions(chapter))
    seen = shown if shown is not None else cell_shown(cell)
    exercises = cell.source.count("check_exercise(")
    return StudyTime(code_lines=len(lines), labs=len(_LAB.findall(cell.source)),
                     exercises=exercises, questions=questions,
                     output_words=seen.words, figures=seen.figures, tables=seen.tables,
                     predictions=cell.source.count("Prediction("),
                     coding_exercises=exercises if _DEF.search(cell.source) else 0)


def is_stop(cell: nbformat.NotebookNode) -> bool:
    """Whether ``cell`` marks a place to stop (a markdown cell beginning with :data:`STOP_MARK`)."""
    return cell.cell_type == "markdown" and cell.source.lstrip().startswith(STOP_MARK)


# ----------------------------------------------------------------------------- measured outputs
def code_digest(nb: nbformat.NotebookNode) -> str:
    """A digest of a chapter's code cells (ids and sources, in order): what its outputs depend on
    in the notebook itself. A measurement taken under another digest is stale."""
    h = hashlib.sha256()
    for cell in nb.cells:
        if cell.cell_type == "code":
            h.update(f"{cell.get('id')}\0{cell.source}\0".encode())
    return h.hexdigest()[:16]


def load_measured(path: Path = MEASURED) -> dict[str, Any]:
    """The measurement file: ``{"chapters": {stem: {"code": digest, "cells": {id: [words, figures,
    tables]}}}}`` (empty when there is none)."""
    if not path.exists():
        return {"chapters": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def measured_cells(path: Path = MEASURED) -> dict[str, Shown]:
    """Cell id → what that cell showed when its chapter was last measured (all chapters; the ids
    of the course's cells are unique across chapters)."""
    cells: dict[str, Shown] = {}
    for chapter in load_measured(path)["chapters"].values():
        for cid, (words, figures, tables) in chapter["cells"].items():
            cells[cid] = Shown(words, figures, tables)
    return cells


def _has_outputs(nb: nbformat.NotebookNode) -> bool:
    return any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")


def _read(notebook: str | Path | nbformat.NotebookNode) -> nbformat.NotebookNode:
    return notebook if isinstance(notebook, nbformat.NotebookNode) else nbformat.read(Path(notebook), as_version=4)


def chapter_parts(notebook: str | Path | nbformat.NotebookNode,
                  shown: Mapping[str, Shown] | None = None) -> list[StudyTime]:
    """The study time of each part of a chapter, split at its places to stop (one part when it
    has none); a stop cell counts in the part it ends. What a code cell shows is its own outputs
    when the notebook has any, else ``shown[cell id]`` (default: the measurement file,
    :func:`measured_cells`). Raises ``FileNotFoundError`` for a missing notebook."""
    nb = _read(notebook)
    if _has_outputs(nb):
        shown = {}
    elif shown is None:
        shown = measured_cells()
    parts = [StudyTime()]
    for cell in nb.cells:
        parts[-1] = parts[-1] + cell_time(cell, shown.get(cell.get("id")) if shown else None)
        if is_stop(cell):
            parts.append(StudyTime())
    return parts


def chapter_time(notebook: str | Path | nbformat.NotebookNode,
                 shown: Mapping[str, Shown] | None = None) -> StudyTime:
    """The study time of a whole chapter (all its parts)."""
    total = StudyTime()
    for part in chapter_parts(notebook, shown):
        total = total + part
    return total


def chapters(notebooks_dir: Path = NOTEBOOKS) -> list[Path]:
    """The English chapters, in course order."""
    return sorted(Path(notebooks_dir).glob("[0-9][0-9]_*.ipynb"))


def stale_chapters(notebooks_dir: Path = NOTEBOOKS, path: Path = MEASURED) -> list[str]:
    """The chapters whose code cells changed since their outputs were measured (or that were
    never measured): cheap, nothing runs."""
    measured = load_measured(path)["chapters"]
    return [p.stem for p in chapters(notebooks_dir)
            if measured.get(p.stem, {}).get("code") != code_digest(nbformat.read(p, as_version=4))]


def course_hours(notebooks_dir: Path = NOTEBOOKS) -> int:
    """The whole course by the rule, in hours (rounded to the nearest hour)."""
    return round(sum(chapter_time(p).minutes for p in chapters(notebooks_dir)) / 60)


def execute(path: Path, timeout: int = 300) -> nbformat.NotebookNode:
    """A copy of notebook ``path`` executed top to bottom in a temporary folder (the committed
    file is only read), its widget labs turned into what they showed
    (:func:`gastudy.course.site.flatten_widgets`). Raises ``RuntimeError`` naming the cell that
    failed."""
    import shutil
    import tempfile

    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from traitlets.config import Config

    from gastudy.course.site import flatten_widgets

    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="gastudy-time-") as folder:
        shutil.copy(path, Path(folder) / path.name)
        # The kernel talks over Unix sockets, never a TCP port another kernel could take first
        # (gastudy.course.site does the same).
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                                resources={"metadata": {"path": folder}},
                                config=Config({"KernelManager": {"transport": "ipc",
                                                                 "ip": str(Path(folder) / "kernel")}}))
        try:
            client.execute()
        except CellExecutionError as err:
            raise RuntimeError(f"{path.name} failed while measuring its outputs:\n{err}") from err
    flatten_widgets(nb)
    return nb


def measure(names: Iterable[str], notebooks_dir: Path = NOTEBOOKS, path: Path = MEASURED,
            progress: bool = True) -> dict[str, Any]:
    """Execute the named chapters (stems or their ``NN`` prefixes), count what every code cell
    shows, and store it in the measurement file with the chapter's code digest. Returns the file's
    new content."""
    import os
    import time

    data = load_measured(path)
    for chapter in _select(names, notebooks_dir):
        start = time.perf_counter()
        nb = execute(chapter)
        cells = {}
        for cell in nb.cells:
            seen = cell_shown(cell)
            if seen != Shown():
                cells[cell.get("id")] = [seen.words, seen.figures, seen.tables]
        # read again just before writing: someone may have measured another chapter meanwhile
        data = load_measured(path)
        data["chapters"][chapter.stem] = {"code": code_digest(nb), "cells": cells}
        data["chapters"] = dict(sorted(data["chapters"].items()))
        partial = path.with_name(f".{path.name}.{os.getpid()}.part")
        partial.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        partial.replace(path)  # whole file or nothing
        if progress:
            slowest = max(((_seconds(c), c.get("id")) for c in nb.cells if c.cell_type == "code"), default=(0, ""))
            print(f"measured {chapter.stem}: {sum(c[0] for c in cells.values())} words of output, "
                  f"{sum(c[1] for c in cells.values())} plots, {sum(c[2] for c in cells.values())} tables "
                  f"({time.perf_counter() - start:.0f} s; slowest cell {slowest[1]}, {slowest[0]:.0f} s)")
    return data


def _seconds(cell: nbformat.NotebookNode) -> float:
    """How long a cell ran, from the timestamps the executor records (0 when there are none)."""
    from datetime import datetime

    stamps = cell.get("metadata", {}).get("execution", {})
    try:
        began = datetime.fromisoformat(stamps["iopub.status.busy"].replace("Z", "+00:00"))
        ended = datetime.fromisoformat(stamps["iopub.status.idle"].replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return 0.0
    return (ended - began).total_seconds()


def _select(names: Iterable[str], notebooks_dir: Path) -> list[Path]:
    every = chapters(notebooks_dir)
    wanted = list(names)
    chosen = [p for p in every if any(p.stem == n or p.stem.startswith(f"{n}_") for n in wanted)]
    unknown = [n for n in wanted if not any(p.stem == n or p.stem.startswith(f"{n}_") for p in every)]
    if unknown:
        raise ValueError(f"no chapter {unknown}; the chapters are {[p.stem for p in every]}")
    return chosen


def stated(nb: nbformat.NotebookNode) -> int | None:
    """The minutes a chapter's first markdown cell states (``*Time: NN min*``), or None."""
    first = next((c for c in nb.cells if c.cell_type == "markdown"), None)
    found = _TIME_LINE.findall(first.source) if first is not None else []
    return int(found[0]) if len(found) == 1 else None


def write_times(notebooks_dir: Path = NOTEBOOKS) -> list[str]:
    """Write the rule's minutes into every chapter: the ``*Time: NN min*`` line of its first cell,
    the two numbers of its place to stop, and the course total chapter 00 states. Only those
    numbers change (cell ids, the rest of the text and the metadata stay). Returns what changed."""
    changed = []
    for path in chapters(notebooks_dir):
        nb = nbformat.read(path, as_version=4)
        parts = chapter_parts(nb)
        total = sum(parts, StudyTime()).minutes
        before = json.dumps([c.source for c in nb.cells])
        first = next(c for c in nb.cells if c.cell_type == "markdown")
        first.source = _TIME_LINE.sub(f"*Time: {total} min*", first.source, count=1)
        for stop in (c for c in nb.cells if is_stop(c)):
            stop.source = _stop_numbers(stop.source, parts[0].minutes, total - parts[0].minutes)
        if path.stem.startswith("00_"):  # the total: every chapter by the rule, whatever it states now
            hours = course_hours(notebooks_dir)
            for cell in nb.cells:
                if cell.cell_type == "markdown":
                    cell.source = TOTAL_LINE.sub(rf"\g<1>{hours}\g<3>", cell.source)
        if json.dumps([c.source for c in nb.cells]) != before:
            nbformat.write(nb, path)
            changed.append(f"{path.stem}: {stated(nb)} min")
    return changed


def _stop_numbers(text: str, before: int, after: int) -> str:
    """A place to stop's text with its two "about NN min" set to ``before`` and ``after``."""
    numbers = iter([before, after])
    return _STOP_TIMES.sub(lambda m: f"about {next(numbers, int(m.group(1)))} min", text)


def report(notebooks_dir: Path = NOTEBOOKS) -> tuple[str, bool]:
    """A table of every chapter: stated minutes, the rule's, and whether its measurement is stale;
    and whether all agree."""
    stale = set(stale_chapters(notebooks_dir))
    lines, ok, total = [f"{'chapter':<40} {'stated':>6} {'rule':>5}  outputs"], True, 0
    for path in chapters(notebooks_dir):
        nb = nbformat.read(path, as_version=4)
        rule = chapter_time(nb).minutes
        total += rule
        said = stated(nb)
        ok &= said == rule and path.stem not in stale
        lines.append(f"{path.stem:<40} {said!s:>6} {rule:>5}  {'STALE: re-measure' if path.stem in stale else 'measured'}")
    lines.append(f"{'the whole course':<40} {'':>6} {total:>5}  = {total / 60:.1f} h")
    return "\n".join(lines), ok


def main(argv: list[str] | None = None) -> int:
    """``python -m gastudy.course.study_time [--measure [NN ...]] [--write]`` (see the module docstring)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m gastudy.course.study_time",
                                     description="Stated chapter times against the study-time rule.")
    parser.add_argument("--measure", nargs="*", metavar="NN", default=None,
                        help="execute these chapters (default: the stale ones) and store what they show")
    parser.add_argument("--write", action="store_true",
                        help="write the rule's minutes into the chapters (first cell, place to stop, 00's total)")
    args = parser.parse_args(argv)
    if args.measure is not None:
        names = args.measure or stale_chapters()
        measure(names)
    if args.write:
        for line in write_times():
            print(f"wrote {line}")
    text, ok = report()
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())

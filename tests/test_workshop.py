"""The workshop guide (notebooks/WORKSHOP.md) agrees with the notebooks it schedules.

Each notebook states its teaching time once, as ``*Time: NN min*`` in its first markdown cell.
The guide's full-day agenda gives every notebook exactly that time; its three-hour agenda gives
every chapter a core slot no longer than that, fits in 180 minutes with its breaks, and its start
times add up. Course: the workshop (section 4).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
GUIDE = NOTEBOOKS / "WORKSHOP.md"
CHAPTERS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TIME_LINE = re.compile(r"^\*Time: (\d+) min\*$", re.M)
ANY_TIME = re.compile(r"\*{0,2}Time:?\*{0,2}\s*(about\s*)?\d+", re.I)
ROW = re.compile(r"^\|\s*(\d{1,2}):(\d\d)\s*\|\s*(`?)([^|`]+?)\3\s*\|\s*(\d+)\s*\|", re.M)


def stated_time(stem: str) -> int:
    """The one ``*Time: NN min*`` line of a notebook's first markdown cell, in minutes."""
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    found = TIME_LINE.findall(first.source)
    assert len(found) == 1, f"{stem}: the first markdown cell must contain one line '*Time: NN min*', found {found}"
    elsewhere = [c.get("id") for c in nb.cells if c.cell_type == "markdown" and ANY_TIME.search(c.source)]
    assert elsewhere == [first.get("id")], f"{stem}: the time must be stated once, in the first cell; also in {elsewhere[1:]}"
    return int(found[0])


def agenda(heading: str) -> list[tuple[int, str, int]]:
    """Rows ``(start minute, block, minutes)`` of the table under the guide's ``## heading``."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else None]
    rows = [(int(h) * 60 + int(m), block.strip(), int(minutes)) for h, m, _, block, minutes in ROW.findall(section)]
    assert rows, f"no agenda rows under '## {heading}'"
    return rows


def consecutive(rows: list[tuple[int, str, int]]) -> None:
    for (start, block, minutes), (nxt, after, _) in zip(rows, rows[1:]):
        assert start + minutes == nxt, f"'{block}' starts at minute {start} and lasts {minutes}, but '{after}' starts at {nxt}"


def test_every_notebook_states_its_time_once():
    assert len(CHAPTERS) == 13, CHAPTERS
    for stem in CHAPTERS:
        assert 5 <= stated_time(stem) <= 60, stem


def test_full_day_gives_every_notebook_its_stated_time():
    rows = agenda("A full day")
    consecutive(rows)
    scheduled = {block: minutes for _, block, minutes in rows if block in CHAPTERS}
    assert sorted(scheduled) == CHAPTERS, f"missing from the full day: {set(CHAPTERS) - set(scheduled)}"
    wrong = {stem: (scheduled[stem], stated_time(stem)) for stem in CHAPTERS if scheduled[stem] != stated_time(stem)}
    assert not wrong, f"guide vs notebook minutes disagree: {wrong}"
    unknown = [block for _, block, _ in rows if block not in CHAPTERS and block not in ("break", "lunch", "closing round")]
    assert not unknown, f"rows that are neither a notebook nor a break: {unknown}"


def test_three_hour_core_path_fits_with_its_breaks():
    rows = agenda("Three hours: the core path")
    consecutive(rows)
    total = sum(minutes for _, _, minutes in rows)
    assert total <= 180, f"the three-hour agenda takes {total} minutes, breaks included"
    assert rows[0][0] == 0 and rows[-1][0] + rows[-1][2] == total
    core = {block: minutes for _, block, minutes in rows if block in CHAPTERS}
    assert sorted(core) == CHAPTERS, f"chapters missing from the core path: {set(CHAPTERS) - set(core)}"
    too_long = {stem: (core[stem], stated_time(stem)) for stem in CHAPTERS if not 0 < core[stem] <= stated_time(stem)}
    assert not too_long, f"a core slot must be positive and no longer than the notebook's time: {too_long}"
    breaks = [minutes for _, block, minutes in rows if block == "break"]
    assert len(breaks) >= 2 and all(b >= 10 for b in breaks), f"breaks: {breaks}"


def test_answer_key_covers_every_question_the_agenda_asks():
    text = GUIDE.read_text(encoding="utf-8")
    asked = set(re.findall(r"\bQ\d+[a-z]?\b", text[text.index("## A full day"):text.index("## Answer key")]))
    key = text[text.index("## Answer key"):]
    answered = set(re.findall(r"^\| (Q\d+[a-z]?) \|", key, re.M))
    assert asked and asked == answered, f"asked but not answered: {asked - answered}; answered but never asked: {answered - asked}"


@pytest.mark.parametrize("needle", ["pip download", "--no-index --find-links", "requirements/constraints.txt",
                                    "Prerequisites", "What a GPU adds", "Timing noise"])
def test_guide_has_the_practical_sections(needle):
    assert needle in GUIDE.read_text(encoding="utf-8")

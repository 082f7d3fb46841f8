"""The study-time rule (gastudy/course/study_time.py) counts what the executed chapter shows — the
words and numbers of its outputs, its plots, its tables — as well as its prose, code, labs,
predictions, exercises and questions; the counts come from executing the chapters and are kept in
a committed file whose staleness is told without running anything; chapter 00 states the rule and
the course total it gives; one command re-measures and rewrites the stated times.

What would make these fail: an output the rule does not count (or counts twice: a folded
``<details>``, a plot's text alternative, the questionnaire's own widget); a chapter whose code
changed after its outputs were measured (the digest differs); chapter 00 stating a constant or a
total the rule no longer gives; ``--write`` touching anything but the numbers.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from gastudy.course import study_time as st
from gastudy.course.study_time import (
    Shown,
    StudyTime,
    chapter_parts,
    chapter_time,
    code_digest,
    course_hours,
    html_shown,
    load_measured,
    output_shown,
    stale_chapters,
    write_times,
)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _code(source: str, outputs: list[dict]) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def test_outputs_count_words_and_numbers_plots_and_tables():
    assert output_shown({"output_type": "stream", "name": "stdout",
                         "text": "✓ 12,288 items: gap 1.2e-05 ≤ 1e-4 (-100 ignored)\n"}).words == 7
    page = ('<div><b>3 updates</b><table><tr><td>m</td><td>8</td></tr></table>'
            '<img src="data:image/png;base64,AAAA" alt="a long text alternative of the plot">'
            '<details><summary>all 16 rows</summary><table><tr><td>hidden</td></tr></table></details>'
            '<style>.x { color: red }</style></div>')
    assert html_shown(page) == Shown(words=4, figures=1, tables=1)
    assert output_shown({"output_type": "display_data", "metadata": {},
                         "data": {"image/png": "AAAA", "text/plain": "<Figure size 640x480>"}}) == Shown(figures=1)
    assert output_shown({"output_type": "execute_result", "metadata": {}, "execution_count": 1,
                         "data": {"text/plain": "4"}}) == Shown(words=1)


def test_the_rule_adds_what_the_chapter_shows():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(" ".join(["word"] * 150)),
        _code("lab = KnobsLab()\nlab", [{"output_type": "display_data", "metadata": {},
                                         "data": {"text/html": "<table><tr><td>" + "7 " * 200 + "</td></tr></table>"
                                                               '<img src="x" alt="y">'}}]),
        _code('guess = Prediction("How many?")', [{"output_type": "stream", "name": "stdout",
                                                   "text": "these words are the prediction's own"}]),
        _code('Questionnaire("00")', [{"output_type": "stream", "name": "stdout", "text": "not counted"}]),
        _code('def train_step(model):\n    ...\n\n\nanswer = train_step\ncheck_exercise("01.2", answer)', []),
        _code('answer = None\ncheck_exercise("01.1", answer)', []),
    ])
    from gastudy.course.questionnaire import questions

    counted = chapter_time(nb)
    assert counted == StudyTime(words=150, code_lines=10, labs=1, questions=len(questions("00")),
                                output_words=200, figures=1, tables=1, predictions=1, exercises=2, coding_exercises=1)
    assert counted.exact_minutes == pytest.approx(
        1 + 10 / st.CODE_LINES_PER_MINUTE + st.MINUTES_PER_LAB + len(questions("00")) * st.MINUTES_PER_QUESTION
        + 200 / st.OUTPUT_WORDS_PER_MINUTE + st.MINUTES_PER_FIGURE + st.MINUTES_PER_TABLE + st.MINUTES_PER_PREDICTION
        + st.MINUTES_PER_EXERCISE + st.MINUTES_PER_CODE_EXERCISE)
    # the same notebook without outputs counts what the measurement says its cells showed
    clean = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("lab = KnobsLab()\nlab")])
    clean.cells[0].id = "nb99-01"
    assert chapter_time(clean, {"nb99-01": Shown(200, 1, 1)}).output_words == 200
    assert chapter_time(clean).output_words == 0  # a cell no chapter ever showed


def test_every_chapters_measured_outputs_are_fresh():
    """Cheap: a digest of each chapter's code cells against the one its outputs were measured
    under. Fails when a chapter's code changed and its outputs were not measured again."""
    stale = stale_chapters()
    assert not stale, (f"outputs measured under other code for {stale}: run "
                       f"`python -m gastudy.course.study_time --measure {' '.join(s[:2] for s in stale)} --write`")


def test_a_committed_chapter_is_counted_from_its_measurement():
    measured = load_measured()["chapters"]
    assert sorted(measured) == [p.stem for p in CHAPTERS]
    for path in CHAPTERS:
        nb = nbformat.read(path, as_version=4)
        cells = measured[path.stem]["cells"]
        assert set(cells) <= {c.get("id") for c in nb.cells if c.cell_type == "code"}, path.stem
        assert chapter_time(nb).output_words == sum(words for words, _, _ in cells.values()), path.stem


def test_chapter_00_states_the_rule_and_the_course_total():
    nb = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    text = next(c.source for c in nb.cells if c.cell_type == "markdown" and "How long it takes" in c.source)
    said = " ".join(text.split())
    for number, what in [(st.WORDS_PER_MINUTE, "words of prose a minute"), (st.CODE_LINES_PER_MINUTE, "lines of code a minute"),
                         (st.OUTPUT_WORDS_PER_MINUTE, "words and numbers of output a minute"),
                         (st.MINUTES_PER_LAB, "minutes per lab"), (st.MINUTES_PER_PREDICTION, "per prediction"),
                         (st.MINUTES_PER_EXERCISE, "per exercise"), (st.MINUTES_PER_CODE_EXERCISE, "when you write a function"),
                         (st.MINUTES_PER_QUESTION, "per question")]:
        assert f"{number} {what}" in said, f"00 must state the rule: '{number} {what}'"
    assert st.MINUTES_PER_FIGURE == 1 and "a minute per plot" in said
    assert st.MINUTES_PER_TABLE == 0.5 and "half a minute per table" in said
    hours = [int(m.group(2)) for m in st.TOTAL_LINE.finditer(text)]
    assert hours == [course_hours()], f"00 states about {hours} hours, the rule gives {course_hours()}"


def test_write_times_changes_only_the_numbers_and_staleness_is_seen(tmp_path):
    for path in CHAPTERS:
        if path.name[:2] in ("00", "01", "03"):
            shutil.copy(path, tmp_path / path.name)
    for path in tmp_path.glob("*.ipynb"):  # spoil the stated numbers
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = re.sub(r"\*Time: \d+ min\*", "*Time: 1 min*", cell.source)
                cell.source = re.sub(r"about \d+ min", "about 1 min", cell.source)
                cell.source = st.TOTAL_LINE.sub(r"\g<1>1\g<3>", cell.source)
        nbformat.write(nb, path)
    before = {p.name: nbformat.read(p, as_version=4) for p in tmp_path.glob("*.ipynb")}
    changed = write_times(tmp_path)
    assert len(changed) == 3, changed
    for path in tmp_path.glob("*.ipynb"):
        nb, old = nbformat.read(path, as_version=4), before[path.name]
        assert [c.get("id") for c in nb.cells] == [c.get("id") for c in old.cells]
        assert [re.sub(r"\d+", "#", c.source) for c in nb.cells] == [re.sub(r"\d+", "#", c.source) for c in old.cells]
        parts = chapter_parts(nb)
        assert st.stated(nb) == sum(parts, StudyTime()).minutes
        stops = [c for c in nb.cells if st.is_stop(c)]
        if stops:
            assert [int(n) for n in re.findall(r"about (\d+) min", stops[0].source)] == [
                parts[0].minutes, st.stated(nb) - parts[0].minutes]
    zero = nbformat.read(tmp_path / "00_start_here.ipynb", as_version=4)
    assert f"about {course_hours(tmp_path)} hours" in " ".join(c.source for c in zero.cells)
    assert stale_chapters(tmp_path) == []
    nb = nbformat.read(tmp_path / "01_microbatch_backward_update.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.source += "\nprint('one more line')"
    nbformat.write(nb, tmp_path / "01_microbatch_backward_update.ipynb")
    assert stale_chapters(tmp_path) == ["01_microbatch_backward_update"]
    assert code_digest(nb) != load_measured()["chapters"]["01_microbatch_backward_update"]["code"]

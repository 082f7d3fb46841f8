"""The workshop guide (notebooks/WORKSHOP.md) agrees with the notebooks it schedules, and every
chapter's stated time is the study-time rule's (gastudy/course/study_time.py).

Each notebook states its time once, as ``*Time: NN min*`` in its first markdown cell, equal to
the rule's minutes; a place to stop states the time of the part before it and of the rest. The
guide's three-day agenda gives every notebook exactly that time, each day's start times add up;
its three-hour agenda gives every chapter a core slot no longer than that, fits in 180 minutes
with its breaks, names a prediction for every chapter (one the answer key answers) and at least
three live exercises, each an exercise of the chapter it is done in.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from gastudy.course.study_time import (
    ROUND_TO,
    STOP_MARK,
    StudyTime,
    chapter_parts,
    chapter_time,
    is_stop,
    prose_words,
)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
GUIDE = NOTEBOOKS / "WORKSHOP.md"
CHAPTERS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TIME_LINE = re.compile(r"^\*Time: (\d+) min\*$", re.M)
ANY_TIME = re.compile(r"\*{0,2}Time:?\*{0,2}\s*(about\s*)?\d+", re.I)
ROW = re.compile(r"^\|\s*(\d{1,2}):(\d\d)\s*\|\s*(`?)([^|`]+?)\3\s*\|\s*(\d+)\s*\|(.*)$", re.M)
EXERCISE = re.compile(r"\b(\d\d\.\d)\b")
QUESTION = re.compile(r"\bQ\d+[a-z]?\b")


def stated_time(stem: str) -> int:
    """The one ``*Time: NN min*`` line of a notebook's first markdown cell, in minutes."""
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    found = TIME_LINE.findall(first.source)
    assert len(found) == 1, f"{stem}: the first markdown cell must contain one line '*Time: NN min*', found {found}"
    elsewhere = [c.get("id") for c in nb.cells if c.cell_type == "markdown" and ANY_TIME.search(c.source)]
    assert elsewhere == [first.get("id")], f"{stem}: the time must be stated once, in the first cell; also in {elsewhere[1:]}"
    return int(found[0])


def section_of(heading: str, level: str = "##") -> str:
    """The guide's text under ``<level> heading`` up to the next heading of that level or above."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"\n{level} {heading}\n")
    ends = [i for i in (text.find(f"\n{'#' * n} ", start + 1) for n in range(1, len(level) + 1)) if i > 0]
    return text[start:min(ends) if ends else None]


def agenda(heading: str, level: str = "##") -> list[tuple[int, str, int]]:
    """Rows ``(start minute, block, minutes)`` of the table under the guide's heading."""
    rows = [(int(h) * 60 + int(m), block.strip(), int(minutes))
            for h, m, _, block, minutes, _ in ROW.findall(section_of(heading, level))]
    assert rows, f"no agenda rows under '{level} {heading}'"
    return rows


def columns(heading: str, level: str = "##") -> dict[str, list[str]]:
    """Block → the cells after the minutes column, for the table under the heading."""
    return {block.strip(): [c.strip() for c in rest.strip().strip("|").split("|")]
            for _, _, _, block, _, rest in ROW.findall(section_of(heading, level))}


def exercises_of(stem: str) -> set[str]:
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    return {m for c in nb.cells if c.cell_type == "code" for m in re.findall(r'check_exercise\("(\d\d\.\d)"', c.source)}


def answer_key() -> set[str]:
    return set(re.findall(r"^\|\s*(Q\d+[a-z]?)\s*\|", section_of("Answer key: ask the room"), re.M))


def consecutive(rows: list[tuple[int, str, int]]) -> None:
    for (start, block, minutes), (nxt, after, _) in zip(rows, rows[1:]):
        assert start + minutes == nxt, f"'{block}' starts at minute {start} and lasts {minutes}, but '{after}' starts at {nxt}"


def test_every_notebook_states_the_rules_time_once():
    assert len(CHAPTERS) == 14, CHAPTERS
    wrong = {stem: (stated_time(stem), chapter_time(NOTEBOOKS / f"{stem}.ipynb").minutes) for stem in CHAPTERS
             if stated_time(stem) != chapter_time(NOTEBOOKS / f"{stem}.ipynb").minutes}
    assert not wrong, f"stated vs the study-time rule's minutes (write the rule's): {wrong}"


def test_the_rule_counts_what_a_learner_reads_and_does():
    assert prose_words("Two words.\n```python\nx = not counted\n```\n<b>one</b> [link](https://a.b/c d)") == 4
    lab = nbformat.v4.new_code_cell("# a comment\n\nlab = NormLab()\nlab\ncheck_exercise('01.1', answer)")
    quiz = nbformat.v4.new_code_cell('Questionnaire("02")')
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(" ".join(["word"] * 300)), lab, quiz])
    from gastudy.course.questionnaire import questions

    counted = chapter_time(nb)
    assert counted == StudyTime(words=300, code_lines=4, labs=1, exercises=1, questions=len(questions("02")))
    assert counted.exact_minutes == pytest.approx(2 + 4 / 6 + 3 + 5 + len(questions("02")))
    assert counted.minutes % ROUND_TO == 0 and 0 <= counted.minutes - counted.exact_minutes < ROUND_TO
    assert StudyTime().minutes == ROUND_TO


def test_places_to_stop_state_the_time_of_each_part():
    found = {}
    for stem in CHAPTERS:
        nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
        stops = [c for c in nb.cells if is_stop(c)]
        if not stops:
            continue
        assert len(stops) == 1, f"{stem}: one place to stop per chapter"
        first, total = chapter_parts(nb)[0].minutes, chapter_time(nb).minutes
        said = [int(n) for n in re.findall(r"about (\d+) min", stops[0].source)]
        assert said == [first, total - first], f"{stem}: the place to stop says {said}, the rule {first} and {total - first}"
        found[stem] = said
    assert {"03_loss_normalization", "06_data_parallel", "08_checkpointing"} <= set(found), found
    fsdp = nbformat.read(NOTEBOOKS / "06_data_parallel.ipynb", as_version=4)
    heading = next(c.source.splitlines()[0] for c in fsdp.cells if c.get("id") == "nb06-s1")
    assert heading.startswith("## 4 · Optional:"), heading
    assert STOP_MARK in next(c.source for c in fsdp.cells if is_stop(c))


def test_three_days_give_every_notebook_its_stated_time():
    scheduled: dict[str, int] = {}
    for day in ("Day 1", "Day 2", "Day 3"):
        rows = agenda(day, "###")
        consecutive(rows)
        for _, block, minutes in rows:
            assert block not in scheduled, f"{block} is scheduled twice"
            if block in CHAPTERS:
                scheduled[block] = minutes
            else:
                assert block in ("break", "lunch", "closing round"), f"{day}: '{block}' is neither a notebook nor a break"
        teaching = sum(minutes for _, block, minutes in rows if block in CHAPTERS)
        assert teaching <= 330, f"{day}: {teaching} minutes of teaching"
        key = answer_key()
        for stem, cells in columns(day, "###").items():
            if stem in CHAPTERS:
                _, asked, do_live = cells[:3]
                assert set(QUESTION.findall(asked)) <= key and QUESTION.findall(asked), f"{day} {stem}: {asked}"
                assert set(EXERCISE.findall(do_live)) <= exercises_of(stem), f"{day} {stem}: {do_live}"
    assert sorted(scheduled) == CHAPTERS, f"missing from the three days: {set(CHAPTERS) - set(scheduled)}"
    wrong = {stem: (scheduled[stem], stated_time(stem)) for stem in CHAPTERS if scheduled[stem] != stated_time(stem)}
    assert not wrong, f"guide vs notebook minutes disagree: {wrong}"
    hours = sum(scheduled.values()) / 60
    assert f"{hours:.1f}".replace(".5", "½").replace(".0", "") in section_of("Three days: every chapter in full"), hours


def test_the_three_hours_are_hands_on_with_predictions_and_live_exercises():
    rows = agenda("Three hours, hands-on")
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
    key, live = answer_key(), []
    for stem, cells in columns("Three hours, hands-on").items():
        if stem not in CHAPTERS:
            continue
        predict, do_live = cells[:2]
        asked = QUESTION.findall(predict)
        assert asked and set(asked) <= key, f"{stem}: predictions {asked} must be in the answer key"
        done = EXERCISE.findall(do_live)
        assert set(done) <= exercises_of(stem), f"{stem}: live exercises {done} are not this chapter's"
        live += done
    assert len(live) >= 3, f"only {len(live)} live exercises: {live}"


def schedule(text: str) -> list[tuple[int, str, int]]:
    """Every agenda row of a guide, in order: (start minute, notebook or '-', minutes)."""
    text = re.sub(r"</?bdi[^>]*>", "", text)  # the Arabic edition isolates code spans: <bdi dir="ltr">
    return [(int(h) * 60 + int(m), block.strip() if tick else "-", int(minutes))
            for h, m, tick, block, minutes, _ in ROW.findall(text)]


@pytest.mark.parametrize("code", ["tr", "es", "ar"])
def test_each_editions_guide_keeps_the_agendas_ids_and_commands(code):
    """notebooks/<code>/WORKSHOP.md (generated from the catalog) has the English guide's agenda
    rows — same start times, notebooks and minutes —, the same predictions and exercises, and the
    same commands; what is not translated yet stays English, so a missing guide is a failure."""
    english = GUIDE.read_text(encoding="utf-8")
    path = NOTEBOOKS / code / "WORKSHOP.md"
    assert path.exists(), f"no {code} guide: translate WORKSHOP.md's entries and run `gastudy editions --lang {code}`"
    edition = path.read_text(encoding="utf-8")
    assert schedule(edition) == schedule(english)
    assert sorted(set(QUESTION.findall(edition))) == sorted(set(QUESTION.findall(english)))
    exercises = set().union(*(exercises_of(stem) for stem in CHAPTERS))  # "14.9 hours" is no exercise
    assert set(EXERCISE.findall(english)) & exercises <= set(EXERCISE.findall(edition))
    fences = re.compile(r"^```.*?^```", re.M | re.S)
    assert fences.findall(edition) == fences.findall(english)

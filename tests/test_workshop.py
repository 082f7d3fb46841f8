"""The workshop guide (notebooks/WORKSHOP.md) holds to what it promises.

- Every chapter states its time once, as ``*Time: NN min*`` in its first markdown cell, equal to the
  study-time rule's minutes (``gastudy/course/study_time.py``); a place to stop states the time of
  the part before it and of the rest.
- The three-hour workshop: its agenda adds up to 180 minutes with its breaks; five chapter stops,
  each a chapter that exists, each slot no longer than the chapter's time, each split into what the
  facilitator shows (≤ 10 min), what the learners write and the debrief, the same minutes as the
  stop's own section says; at each stop the learners write or fix code — an exercise of that
  chapter whose grader *runs the learner's code*; the cells the guide names exist.
- The wrong answers each stop lists: for the exercises run through ``check_loop`` (01.2, 05.1,
  06.2, 11.1) each slip is one ``tests/test_exercises_graded.py`` tests and what the guide quotes
  of the grader is what that test asserts the feedback says; 03.1's are graded here; the order in
  which 11.1's grader names the four slips of its cell is replayed here.
- The memory figures the guide and ``benchmarks/README.md`` quote are the benchmark's
  (``benchmarks/chapter_memory.json``, written by ``benchmarks/bench_chapter_memory.py``), and the
  server size the guide gives is :func:`gastudy.course.workshop.server_size` of them.
- The four-day course gives every chapter exactly its time (whole, or in its two parts at its place
  to stop), and each day's start times add up.
- Every command the guide names exists: ``python3 dev.py …``, ``gastudy …`` (parsed by the CLI's
  own parser), ``python -m gastudy.course.workshop …``, ``python benchmarks/bench_chapter_memory.py …``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
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

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GUIDE = NOTEBOOKS / "WORKSHOP.md"
MEMORY = ROOT / "benchmarks" / "chapter_memory.json"
BENCH_README = ROOT / "benchmarks" / "README.md"
CHAPTERS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TIME_LINE = re.compile(r"^\*Time: (\d+) min\*$", re.M)
ANY_TIME = re.compile(r"\*{0,2}Time:?\*{0,2}\s*(about\s*)?\d+", re.I)
ROW = re.compile(r"^\|\s*(\d{1,2}):(\d\d)\s*\|\s*(`?)([^|`]+?)\3\s*\|\s*(\d+)\s*\|(.*)$", re.M)
EXERCISE = re.compile(r"\b(\d\d\.\d)\b")
QUOTED = re.compile(r"\"([^\"]+)\"")
STOP_HEADING = re.compile(r"^### Stop (\d) · `(\d\d_\w+)`", re.M)
WORKSHOP_MINUTES = 180


# --------------------------------------------------------------------------- reading the guide
def text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def section_of(heading: str, level: str = "##", source: str | None = None) -> str:
    """The text under ``<level> heading`` up to the next heading of that level or above."""
    source = text() if source is None else source
    found = re.search(rf"^{re.escape(level)} {re.escape(heading)}.*$", source, re.M)
    assert found, f"no heading '{level} {heading}'"
    rest = source[found.end():]  # after the heading's own line, which would match its own level
    ends = [m.start() for n in range(1, len(level) + 1) for m in re.finditer(rf"^{'#' * n} ", rest, re.M)]
    return source[found.start():found.end() + min(ends)] if ends else source[found.start():]


def agenda(heading: str, level: str = "##") -> list[tuple[int, str, int, list[str]]]:
    """Rows ``(start minute, block, minutes, the cells after the minutes)`` of the tables under the heading."""
    rows = [(int(h) * 60 + int(m), block.strip(), int(minutes), [c.strip() for c in rest.strip().strip("|").split("|")])
            for h, m, _, block, minutes, rest in ROW.findall(section_of(heading, level))]
    assert rows, f"no agenda rows under '{level} {heading}'"
    return rows


def consecutive(rows) -> None:
    for (start, block, minutes, *_), (nxt, after, *_) in zip(rows, rows[1:]):
        assert start + minutes == nxt, f"'{block}' starts at minute {start} and lasts {minutes}, but '{after}' starts at {nxt}"


def table(section: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table under ``section`` whose header row starts with ``| header |``."""
    lines = section.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"| {header} |")), None)
    assert start is not None, f"no table headed '{header}' in:\n{section[:200]}"
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def number(cell: str) -> float:
    return float(re.sub(r"[^\d.]", "", cell))


def stated_time(stem: str) -> int:
    """The one ``*Time: NN min*`` line of a notebook's first markdown cell, in minutes."""
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    found = TIME_LINE.findall(first.source)
    assert len(found) == 1, f"{stem}: the first markdown cell must contain one line '*Time: NN min*', found {found}"
    elsewhere = [c.get("id") for c in nb.cells if c.cell_type == "markdown" and ANY_TIME.search(c.source)]
    assert elsewhere == [first.get("id")], f"{stem}: the time must be stated once, in the first cell; also in {elsewhere[1:]}"
    return int(found[0])


def exercises_of(stem: str) -> set[str]:
    nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    return {m for c in nb.cells if c.cell_type == "code" for m in re.findall(r'check_exercise\("(\d\d\.\d)"', c.source)}


def stops() -> list[tuple[int, str, int, int, int, int, str]]:
    """The workshop's chapter stops: ``(start, chapter, minutes, show, write, debrief, exercise)``."""
    out = []
    for start, block, minutes, cells in agenda("Three hours, hands-on"):
        if block in CHAPTERS:
            show, write, debrief = (int(c) for c in cells[:3])
            keys = EXERCISE.findall(cells[3])
            assert len(keys) == 1, f"{block}: one exercise per stop, the agenda names {keys}"
            out.append((start, block, minutes, show, write, debrief, keys[0]))
    return out


def stop_section(stem: str) -> str:
    found = [m for m in STOP_HEADING.finditer(text()) if m.group(2) == stem]
    assert len(found) == 1, f"one '### Stop N · `{stem}`' section, found {len(found)}"
    heading = text()[found[0].start():].splitlines()[0][4:]
    return section_of(heading, "###")


def memory() -> dict:
    return json.loads(MEMORY.read_text(encoding="utf-8"))


def bench_module():
    spec = importlib.util.spec_from_file_location("bench_chapter_memory", ROOT / "benchmarks" / "bench_chapter_memory.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_chapter_memory", module)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- the chapters' stated times
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
        stops_ = [c for c in nb.cells if is_stop(c)]
        if not stops_:
            continue
        assert len(stops_) == 1, f"{stem}: one place to stop per chapter"
        first, total = chapter_parts(nb)[0].minutes, chapter_time(nb).minutes
        said = [int(n) for n in re.findall(r"about (\d+) min", stops_[0].source)]
        assert said == [first, total - first], f"{stem}: the place to stop says {said}, the rule {first} and {total - first}"
        found[stem] = said
    assert {"03_loss_normalization", "06_data_parallel", "08_checkpointing"} <= set(found), found
    fsdp = nbformat.read(NOTEBOOKS / "06_data_parallel.ipynb", as_version=4)
    heading = next(c.source.splitlines()[0] for c in fsdp.cells if c.get("id") == "nb06-s1")
    assert heading.startswith("## 4 · Optional:"), heading
    assert STOP_MARK in next(c.source for c in fsdp.cells if is_stop(c))


# --------------------------------------------------------------------------- three hours, five chapters
def test_the_three_hours_add_up_to_180_minutes_with_their_breaks():
    rows = agenda("Three hours, hands-on")
    consecutive(rows)
    assert rows[0][0] == 0 and rows[-1][0] + rows[-1][2] == WORKSHOP_MINUTES, \
        f"the agenda runs from minute {rows[0][0]} to {rows[-1][0] + rows[-1][2]}, not 0 to {WORKSHOP_MINUTES}"
    assert f"Total: {WORKSHOP_MINUTES} minutes" in section_of("Three hours, hands-on")
    breaks = [minutes for _, block, minutes, _ in rows if block == "break"]
    assert len(breaks) >= 2 and all(b >= 10 for b in breaks), f"breaks: {breaks}"
    others = {block for _, block, _, _ in rows} - set(CHAPTERS) - {"break"}
    assert others <= {"opening", "closing round"}, f"rows that are neither a chapter nor a break: {others}"


def test_five_chapters_each_with_a_shown_part_of_at_most_ten_minutes():
    found = stops()
    chapters = [stem for _, stem, *_ in found]
    assert len(chapters) == len(set(chapters)) == 5, f"five different chapters, the agenda has {chapters}"
    numbers = [int(m.group(1)) for m in STOP_HEADING.finditer(text())]
    assert numbers == [1, 2, 3, 4, 5], numbers
    assert [m.group(2) for m in STOP_HEADING.finditer(text())] == chapters, "the stops' sections follow the agenda"
    for start, stem, minutes, show, write, debrief, _key in found:
        assert show <= 10, f"{stem}: the facilitator shows for {show} min (at most 10)"
        assert show + write + debrief == minutes, f"{stem}: {show} + {write} + {debrief} ≠ {minutes}"
        assert minutes <= stated_time(stem), f"{stem}: {minutes} min at the workshop, more than its {stated_time(stem)}"
        section = stop_section(stem)
        for part, said in (("Show", show), ("Write", write), ("Debrief", debrief)):
            assert f"**{part} ({said} min)" in section, f"{stem}: the stop's section must say '**{part} ({said} min)'"
        assert f"{start // 60}:{start % 60:02d}" in section.splitlines()[0], f"{stem}: the heading gives its start"


def test_every_cell_the_guide_names_exists_in_its_chapter():
    named = set(re.findall(r"`(nb(\d\d)-[\w-]+)`", text()))
    assert len(named) >= 10, named
    ids = {stem[:2]: {c.get("id") for c in nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4).cells}
           for stem in CHAPTERS}
    missing = sorted(cell for cell, chapter in named if cell not in ids[chapter])
    assert not missing, f"cells the guide names that its chapter does not have: {missing}"


def test_every_exercise_the_guide_names_exists():
    every = set().union(*(exercises_of(stem) for stem in CHAPTERS))
    named = {k for k in EXERCISE.findall(text()) if k[:2] in {s[:2] for s in CHAPTERS}}
    hours = {k for k in named if re.search(rf"{re.escape(k)} hours", text())}
    assert named - hours - every == set(), f"exercises the guide names that no chapter has: {named - hours - every}"
    for _, stem, *_, key in stops():
        assert key in exercises_of(stem), f"{key} is not an exercise of {stem}"
        assert f'check_exercise("{key}", answer)' in stop_section(stem)


PROBE = '''MARK = {mark!r}


def probe(model, optimizer=None, microbatches=None, scheduler=None):
    with open(MARK, "a") as f:
        f.write("called\\n")
    raise ZeroDivisionError("the probe was run")
'''


@pytest.mark.parametrize("key", [pytest.param(k, marks=pytest.mark.slow) if k == "06.2" else k
                                 for *_, k in stops()])
def test_each_stops_exercise_is_graded_by_running_the_learners_code(key, tmp_path, capsys):
    """The grader calls what the learner wrote (on 06.2, in the worker processes): a function
    that writes a mark and raises is run, and the feedback says it raised."""
    from gastudy.course.exercises import check_exercise
    from tests.test_exercises_graded import cell

    mark = tmp_path / "called"
    result = check_exercise(key, cell(PROBE.format(mark=str(mark)))["probe"])
    capsys.readouterr()
    assert not result.ok and "ZeroDivisionError" in result.feedback, result.feedback
    assert mark.exists(), f"{key}: the grader answered without running the learner's function"


# --------------------------------------------------------------------------- the wrong answers and what the grader says
def graded_slips() -> dict[str, dict[str, list[str]]]:
    """Exercise → slip → what tests/test_exercises_graded.py asserts its feedback says."""
    from tests import test_exercises_graded as g

    return {key: {slip: says for slip, _, _, says in slips}
            for key, slips in (("01.2", g.PLAIN), ("05.1", g.FP16), ("06.2", g.DDP), ("11.1", g.FIX))}


COUNT_SLIPS = {
    "the labels not shifted": lambda batch: int((batch["labels"] != -100).sum()),
    "-100 counted": lambda batch: (batch["shift_labels"] if "shift_labels" in batch else batch["labels"][..., 1:]).numel(),
    "a key the batch does not have": lambda batch: int((batch["label"] != -100).sum()),
    "a number instead of the function": 61,
}
"""Exercise 03.1's typical wrong answers, graded here (no other test lists them)."""


def slip_rows(stem: str) -> list[tuple[str, list[str]]]:
    return [(row[0], QUOTED.findall(row[1])) for row in table(stop_section(stem), "the slip")]


def test_each_stop_lists_the_typical_wrong_answers_and_what_the_grader_says():
    tested = graded_slips()
    for _, stem, *_, key in stops():
        rows = slip_rows(stem)
        assert len(rows) >= 3, f"{stem}: at least three typical wrong answers of {key}"
        for slip, quotes in rows:
            assert quotes, f"{stem} · {slip}: quote what the grader says"
            if key == "03.1":
                continue
            assert key in tested, f"{key}: no test lists its slips; grade them here, as 03.1's"
            assert slip in tested[key], f"{key}: '{slip}' is not a slip tests/test_exercises_graded.py tests"
            for quote in quotes:
                assert any(quote.removeprefix("⚠ ") in says for says in tested[key][slip]), \
                    f"{key} · {slip}: the guide quotes \"{quote}\"; the tested feedback says {tested[key][slip]}"


def test_the_03_1_wrong_answers_are_graded_as_the_guide_says(capsys):
    from gastudy.course.exercises import check_exercise

    rows = dict(slip_rows("03_loss_normalization"))
    assert set(rows) == set(COUNT_SLIPS), f"the guide's 03.1 slips {sorted(rows)} vs this test's {sorted(COUNT_SLIPS)}"
    for slip, answer in COUNT_SLIPS.items():
        result = check_exercise("03.1", answer)
        assert not result.ok, slip
        for quote in rows[slip]:
            assert quote in result.feedback, f"03.1 · {slip}: \"{quote}\" not in the feedback: {result.feedback}"
    capsys.readouterr()


FIX_STEPS = {
    "the denominator": [("                               ignore_index=-100)  # this microbatch's mean loss\n"
                         "        total = total + loss / len(microbatches)",
                         "                               ignore_index=-100, reduction=\"sum\") / items\n"
                         "        total = total + loss"),
                        ("    total = 0.0\n",
                         "    items = sum(int((mb[\"labels\"][:, 1:] != -100).sum()) for mb in microbatches)\n"
                         "    total = 0.0\n")],
    "zero_grad": [("    optimizer.step()\n    return", "    optimizer.step()\n    optimizer.zero_grad()\n    return")],
    "the scheduler": [("        scheduler.step()\n", ""), ("    optimizer.step()\n", "    optimizer.step()\n    scheduler.step()\n")],
    "the backward": [("        total = total + loss\n", "        loss.backward()\n        total = total + loss.item()\n"),
                     ("    total.backward()\n", "")],
    "the return value": [("return total.item()", "return total")],
}
"""The fixes of 11.1's starting loop, one at a time (edits of the exercise cell)."""


def test_the_11_1_grader_names_the_slips_in_the_order_the_guide_gives(capsys):
    from gastudy.course.exercises import check_exercise
    from tests.test_exercises_graded import CHAPTER_IMPORTS, cell

    rows = table(stop_section("11_troubleshooting_clinic"), "after fixing")
    nb = nbformat.read(NOTEBOOKS / "11_troubleshooting_clinic.ipynb", as_version=4)
    source = next(c.source for c in nb.cells if c.cell_type == "code" and 'check_exercise("11.1"' in c.source)
    source = source.split("answer = None")[0]
    for fixed, says in ((row[0], QUOTED.findall(row[1])) for row in rows):
        for name in [n.strip() for n in fixed.split("+")]:
            if name == "nothing yet":
                continue
            assert name in FIX_STEPS, f"'{name}' is no fix this test knows: {sorted(FIX_STEPS)}"
            for old, new in FIX_STEPS[name]:
                assert old in source, f"11.1's cell changed: '{old.strip()}' is not in it after fixing {name}"
                source = source.replace(old, new, 1)
        result = check_exercise("11.1", cell(CHAPTER_IMPORTS + source)["train_step"])
        assert says and all(q in result.feedback for q in says), f"after fixing {fixed}: {result.feedback}"
    assert result.ok, "the last row of the table is the fixed loop, which passes"
    capsys.readouterr()


# --------------------------------------------------------------------------- the memory and the server
FIGURES = "| chapter | peak PSS (MiB) |"


def quoted_figures(source: str) -> dict[str, list[str]]:
    """Chapter → the cells of its row in a figures table (the guide's or the README's)."""
    rows = {}
    for line in source.splitlines():
        found = re.match(r"^\|\s*\**`(\d\d_\w+)`\**\s*\|(.*)$", line)
        if found and found.group(1) in CHAPTERS:
            rows.setdefault(found.group(1), [c.strip().strip("*") for c in found.group(2).strip().strip("|").split("|")])
    return rows


def where(figures: dict) -> str:
    cell = figures["peak_cell"]["id"] or ""
    return f"grading {cell[len('solution-'):].replace('-', '.')}" if cell.startswith("solution-") else f"`{cell}`"


def test_the_benchmark_measured_every_chapter_with_its_graded_exercises():
    data = memory()
    assert sorted(data["chapters"]) == CHAPTERS, sorted(data["chapters"])
    assert data["settings"]["solutions"] is True and data["settings"]["omp_num_threads"] == 1
    assert data["settings"]["interval_s"] <= 0.1
    for stem, figures in data["chapters"].items():
        assert "error" not in figures, f"{stem}: {figures['error']}"
        assert 0 < figures["uss_at_peak_mib"] <= figures["peak_pss_mib"] <= figures["rss_at_peak_mib"], stem
        assert set(figures["solutions_graded"]) == {k for k in exercises_of(stem)
                                                    if (ROOT / "gastudy/course/exercises/solutions" /
                                                        f"ex_{k.replace('.', '_')}.py").exists()}, stem
    assert data["server"]["pss_mib"] > 0


@pytest.mark.parametrize("source", [GUIDE, BENCH_README], ids=["guide", "benchmarks-readme"])
def test_the_memory_figures_quoted_are_the_benchmarks(source):
    data = memory()["chapters"]
    quoted = quoted_figures(source.read_text(encoding="utf-8"))
    assert sorted(quoted) == CHAPTERS, f"{source.name}: rows for {sorted(quoted)}"
    for stem, cells in quoted.items():
        f = data[stem]
        peak, when, rss_uss, idle, run, cpu, cores = cells[:7]
        assert round(number(peak)) == round(f["peak_pss_mib"]), f"{stem}: peak {peak} vs {f['peak_pss_mib']}"
        assert when == where(f), f"{stem}: the peak happened in {where(f)}, the table says {when}"
        assert [round(number(x)) for x in rss_uss.split("/")] == [round(f["rss_at_peak_mib"]), round(f["uss_at_peak_mib"])]
        assert round(number(idle)) == round(f["idle_pss_mib"]), stem
        assert round(number(run)) == round(f["run_s"]) and round(number(cpu)) == round(f["cpu_s"]), stem
        assert number(cores) == round(f["most_cores"], 1), stem
    said = source.read_text(encoding="utf-8")
    for day in {f["date"] for f in data.values()}:
        assert day in said, f"{source.name}: say when the figures were measured ({day})"
    server = memory()["server"]
    assert f"{round(server['pss_mib'])} MiB" in said, f"{source.name}: the JupyterLab server's {server['pss_mib']} MiB"


def workshop_size():
    from gastudy.course.workshop import server_size

    data, chosen = memory(), [stem for _, stem, *_ in stops()]
    chapters = {stem: data["chapters"][stem] for stem in chosen}
    keys = {stem: key for _, stem, *_, key in stops()}
    grading = {stem: f["grading"][keys[stem]]["cpu_s"] for stem, f in chapters.items()}
    return server_size({s: f["peak_pss_mib"] for s, f in chapters.items()}, {s: f["cpu_s"] for s, f in chapters.items()},
                       learners=30, server_mib=data["server"]["pss_mib"], grading_cpu_s=grading,
                       most_cores={s: f["most_cores"] for s, f in chapters.items()}), chapters


def test_the_server_size_is_computed_from_the_measured_figures():
    size, chapters = workshop_size()
    section = section_of("The server it implies", "###")
    rows = {row[0]: row[1] for row in table(section, "for 30 learners")}
    assert round(number(rows["per learner"])) == round(size.per_learner_mib), rows["per learner"]
    assert number(rows["RAM"]) == size.ram_gib, (rows["RAM"], size)
    assert rows["`c.Spawner.mem_limit`"] == f'`"{size.mem_limit_mib}M"`', (rows["`c.Spawner.mem_limit`"], size)
    assert rows["`c.Spawner.cpu_limit`"] == f"`{size.cpu_limit}`", (rows["`c.Spawner.cpu_limit`"], size)
    assert number(rows["cores"]) == size.cores, (rows["cores"], size)
    config = section_of("Install", "###")
    assert f'c.Spawner.mem_limit = "{size.mem_limit_mib}M"' in config and f"c.Spawner.cpu_limit = {size.cpu_limit}" in config
    over = sorted(stem for stem, f in chapters.items() if f["peak_pss_mib"] > 1024)
    target = section_of("What one learner costs, measured", "###")
    for stem in over:
        assert re.search(rf"`{stem}`[^.]*above the target", target), f"say that {stem} is above the 1 GiB target, and why"
    if not over:
        assert "every workshop chapter is within the target" in target


def test_the_sampler_reads_a_process_tree():
    bench = bench_module()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in bench.descendants(os.getpid())
        pss, rss, uss = bench.memory(os.getpid())
        assert 0 < uss <= pss <= rss
        assert bench.memory(child.pid) is not None and bench.cpu_seconds(child.pid)[1] >= 0
    finally:
        child.kill()
        child.wait()
    nb = nbformat.read(NOTEBOOKS / "01_microbatch_backward_update.ipynb", as_version=4)
    keys = bench.with_solutions(nb)
    assert keys == ["01.1", "01.2"] and [c.id for c in nb.cells if c.id.startswith("solution-")] == ["solution-01-1",
                                                                                                      "solution-01-2"]


def test_a_missed_wake_up_costs_one_poll_not_the_whole_timeout():
    import asyncio
    from queue import Empty

    bench = bench_module()
    waits: list[float] = []

    async def get_msg(timeout=None):  # a channel whose message is found by the third poll
        waits.append(timeout)
        if len(waits) < 3:
            raise Empty
        return {"msg_type": "execute_reply"}

    assert asyncio.run(bench.steady(get_msg, step=0.01)(timeout=300)) == {"msg_type": "execute_reply"}
    assert len(waits) == 3 and all(w <= 0.01 for w in waits)  # never one 300 s wait

    async def silent(timeout=None):  # a channel that gets nothing: each poll waits its timeout
        waits.append(timeout)
        await asyncio.sleep(timeout)
        raise Empty

    waits.clear()
    t0 = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(bench.steady(silent, step=0.05)(timeout=0.2))
    assert 0.2 <= time.monotonic() - t0 < 2.0 and 4 <= len(waits) <= 8  # the deadline is kept
    waits.clear()
    with pytest.raises(Empty):
        asyncio.run(bench.steady(silent)(timeout=0))
    assert waits == [0.0]  # a non-blocking check stays one


def test_an_edit_runs_the_chapter_with_a_learners_setting_and_a_typo_is_refused():
    bench = bench_module()
    nb = nbformat.read(NOTEBOOKS / "06_data_parallel.ipynb", as_version=4)
    bench.apply_edits(nb, [("DenominatorLab()", "DenominatorLab(replicas=3)")], "06")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert sum("DenominatorLab(replicas=3)" in c for c in code) == 1 and not any("DenominatorLab()" in c for c in code)
    with pytest.raises(ValueError, match=r"--edit 'DenominatorLab\(\)': no code cell of 06 contains it"):
        bench.apply_edits(nb, [("DenominatorLab()", "x")], "06")  # already replaced: nothing matches now
    for argv, said in ((["--chapters", "06", "--write", "--edit", "AllReduceLab()", "AllReduceLab(replicas=3)"],
                        "leave out --write"),
                       (["--chapters", "05", "06", "--edit", "AllReduceLab(", "X("], "no code cell of 05_mixed_precision"),
                       (["--chapters", "99"], "no chapter 99")):
        with pytest.raises(SystemExit) as exit_, contextlib.redirect_stderr(io.StringIO()) as err:
            bench.main(argv)  # refused before any kernel starts: nothing measured, nothing written
        assert exit_.value.code == 2 and said in err.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- the four-day course
DAYS = ("Day 1", "Day 2", "Day 3", "Day 4")


def test_four_days_give_every_chapter_its_stated_time():
    scheduled: dict[str, list[int]] = {}
    for day in DAYS:
        rows = agenda(day, "###")
        consecutive(rows)
        for _, block, minutes, cells in rows:
            if block in CHAPTERS:
                scheduled.setdefault(block, []).append(minutes)
                assert set(EXERCISE.findall(cells[1])) <= exercises_of(block), f"{day} {block}: {cells[1]}"
            else:
                assert block in ("break", "lunch", "closing round"), f"{day}: '{block}' is neither a chapter nor a break"
        teaching = sum(minutes for _, block, minutes, _ in rows if block in CHAPTERS)
        assert teaching <= 360, f"{day}: {teaching} minutes of teaching"
    assert sorted(scheduled) == CHAPTERS, f"missing from the four days: {set(CHAPTERS) - set(scheduled)}"
    for stem, parts in scheduled.items():
        nb = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
        rule = [p.minutes for p in chapter_parts(nb)] if len(parts) > 1 else [stated_time(stem)]
        if len(parts) > 1:
            rule = [rule[0], stated_time(stem) - rule[0]]
        assert parts == rule, f"{stem}: the days give {parts} min, the chapter states {rule}"
    hours = sum(map(sum, scheduled.values())) / 60
    assert f"{hours:.1f} hours" in section_of("Four days: every chapter in full"), hours


def test_the_closing_round_keeps_its_questions():
    closing = section_of("The closing round")
    assert "Does accumulation save time? (no;" in closing  # tests/test_chapters_10_13.py holds chapter 12 to it


# --------------------------------------------------------------------------- the commands
def commands() -> list[list[str]]:
    """Every command line of the guide's code blocks and inline code that runs the project."""
    source = text()
    lines = [line for lang, block in re.findall(r"^```(\w*)\n(.*?)^```", source, re.M | re.S)  # every fence, in pairs
             if lang in ("", "bash", "sh") for line in block.splitlines()]
    lines += re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", source, flags=re.M | re.S))
    found = []
    for line in lines:
        line = line.split(" #")[0].strip().removeprefix("sudo -u facilitator ").removeprefix("watch -n 10 ")
        line = re.sub(r"^(\S*/)?\.venv/bin/", "", line)
        words = shlex.split(line) if line else []
        if words[:2] in (["python3", "dev.py"], ["python", "-m"]) or words[:1] == ["gastudy"] or \
                words[:2] == ["python", "benchmarks/bench_chapter_memory.py"]:
            found.append(words)
    return found


def test_every_command_the_guide_names_exists():
    from gastudy.cli.main import build_parser
    from gastudy.course import workshop

    lines = commands()
    kinds = {tuple(w[:2]) for w in lines}
    assert {("python3", "dev.py"), ("gastudy", "lab")} <= kinds, kinds
    assert any(w[:3] == ["python", "-m", "gastudy.course.workshop"] for w in lines)
    assert any(w[:2] == ["python", "benchmarks/bench_chapter_memory.py"] for w in lines)
    dev = (ROOT / "dev.py").read_text(encoding="utf-8")
    parsers = {"gastudy": build_parser, "gastudy.course.workshop": workshop.build_parser,
               "benchmarks/bench_chapter_memory.py": bench_module().build_parser}
    for words in lines:
        if words[:2] == ["python3", "dev.py"]:
            assert f'"{words[2]}"' in dev.split("def main", 1)[1].split("\n")[1], f"python3 dev.py {words[2]}"
            continue
        name, args = (("gastudy", words[1:]) if words[0] == "gastudy" else
                      (words[1], words[2:]) if words[0] == "python" and words[1].endswith(".py") else (words[2], words[3:]))
        if name not in parsers:
            assert importlib.util.find_spec(name) is not None, f"python -m {name}: no such module"
            continue
        with contextlib.redirect_stderr(io.StringIO()) as err:
            try:
                parsers[name]().parse_args(args)
            except SystemExit as exit_:
                raise AssertionError(f"{' '.join(words)}: {err.getvalue().strip()}") from exit_


# --------------------------------------------------------------------------- the translated guides
def schedule(source: str) -> list[tuple[int, str, int]]:
    """Every agenda row of a guide, in order: (start minute, notebook or '-', minutes)."""
    source = re.sub(r"</?bdi[^>]*>", "", source)  # the Arabic edition isolates code spans: <bdi dir="ltr">
    return [(int(h) * 60 + int(m), block.strip() if tick else "-", int(minutes))
            for h, m, tick, block, minutes, _ in ROW.findall(source)]


@pytest.mark.parametrize("code", ["tr", "es", "ar"])
def test_each_editions_guide_keeps_the_agendas_exercises_and_commands(code):
    """notebooks/<code>/WORKSHOP.md (generated from the catalog) has the English guide's agenda
    rows — same start times, notebooks and minutes —, the same exercises and the same commands;
    what is not translated yet stays English, so a missing guide is a failure."""
    english = text()
    path = NOTEBOOKS / code / "WORKSHOP.md"
    assert path.exists(), f"no {code} guide: translate WORKSHOP.md's entries and run `gastudy editions --lang {code}`"
    edition = path.read_text(encoding="utf-8")
    hint = f"the {code} guide is older than the English one: run `gastudy editions --update-files` and `--lang {code}`"
    assert schedule(edition) == schedule(english), hint
    exercises = set().union(*(exercises_of(stem) for stem in CHAPTERS))  # "22.1 hours" is no exercise
    assert set(EXERCISE.findall(english)) & exercises <= set(EXERCISE.findall(edition)), hint
    fences = re.compile(r"^```.*?^```", re.M | re.S)
    assert fences.findall(edition) == fences.findall(english), hint

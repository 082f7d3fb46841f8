"""The Arabic edition's output read as Chromium lays it out: what reads left to right keeps its order.

In a right-to-left page the Unicode bidirectional algorithm moves neutral characters (signs,
brackets, separators, spaces, a percent sign) to the side of the text around them, so a printed
result can be shown out of the order it was written in: ``-0.008313`` as ``0.008313-``,
``[19, 19, 20, 15]`` as ``[15 ,20 ,19 ,19]``. The course isolates such runs
(:mod:`gastudy.course.i18n.bidi`, :func:`gastudy.course.i18n.t`, the tables' cells, the printed lines);
this test checks the result where a learner sees it.

Arabic chapters run in JupyterLab in headless Chromium (one page, one chapter after the other, as
tests/test_browser_odd_chapters.py does); each chapter's questionnaire is answered and checked, and
every folded ``<details>`` opened, so its verdicts, explanations and hidden rows are on the page too.
Then, in every output of every code cell — lab output, tables, verdicts, check lines, printed lines,
predictions, the questionnaire — and in the markdown, every *left-to-right run* (Latin letters,
digits and the signs, brackets and operators between them; an explicit isolate is a run of its own;
the sentence's punctuation at a run's edges and brackets the run does not close are the sentence's)
is measured character by character (``Range.getClientRects``): on one line, each character must stand
to the right of the one written before it. And every block of text whose paragraph starts with an
Arabic letter must start on the right: its first line ends at the block's right edge (controls'
labels excepted: the controls are laid out left to right).

The counts (runs, mis-ordered runs, blocks checked) go to ``_browser/rtl_output_runs.json``.
Skipped like the rest of the browser suite without Chromium or Playwright.
"""

from __future__ import annotations

import json
import time

import pytest
from browser_support import (
    LEFT_TO_RIGHT_RUNS,
    OUT,
    RIGHT_ALIGNED,
    ROOT,
    course_in_a_browser,
    suite_marks,
)

pytestmark = [*suite_marks(), pytest.mark.skipif(not (ROOT / "notebooks" / "ar").exists(),
                                                 reason="no Arabic edition generated")]

# Tables and check lines (03, 08, 09), lists and formulas in verdicts (03, 08), signed numbers and
# literals in the questionnaires (03, 08, 12), a table of ids and gaps, the clinic's questions (12).
CHAPTERS = ["03_loss_normalization", "08_checkpointing", "09_memory_check_and_decide", "12_questions"]

OPEN_ALL_DETAILS = "() => document.querySelectorAll('.jp-Notebook details').forEach(d => { d.open = true; })"


@pytest.fixture(scope="module")
def course():
    measured: dict[str, dict] = {}
    with course_in_a_browser("rtl") as (browser, _):
        yield browser, measured
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "rtl_output_runs.json").write_text(json.dumps(measured, indent=1, ensure_ascii=False), encoding="utf-8")


def _report(runs: list[dict], most: int = 25) -> str:
    bad = [r for r in runs if not r["ordered"]]
    lines = [f"{r['text']!r} is shown as {r['shown']!r} in …{r['context']}…" for r in bad[:most]]
    return f"{len(bad)} of {len(runs)} left-to-right runs out of order:\n" + "\n".join(lines)


@pytest.mark.parametrize("name", CHAPTERS)
def test_an_arabic_chapter_shows_its_output_in_written_order(course, name):
    browser, measured = course
    started = time.perf_counter()
    browser.run_all(f"ar/{name}")
    errors = browser.errors()
    assert errors == [], f"ar/{name}: Run All shows errors:\n" + "\n---\n".join(errors)
    browser.answer_the_questionnaire()     # its verdicts and explanations on the page
    browser.page.evaluate(OPEN_ALL_DETAILS)  # hidden answers, the rest of long tables
    page = browser.page
    output = page.locator(".jp-CodeCell .jp-OutputArea-output").evaluate_all(LEFT_TO_RIGHT_RUNS)
    markdown = page.locator(".jp-MarkdownCell .jp-RenderedMarkdown").evaluate_all(LEFT_TO_RIGHT_RUNS)
    aligned = page.locator(".jp-Notebook").evaluate(RIGHT_ALIGNED)
    browser.shut_down_kernel()
    measured[name] = {"output_runs": len(output), "output_out_of_order": sum(not r["ordered"] for r in output),
                      "markdown_runs": len(markdown), "markdown_out_of_order": sum(not r["ordered"] for r in markdown),
                      "blocks_checked": aligned["checked"], "blocks_not_right_aligned": len(aligned["problems"]),
                      "seconds": round(time.perf_counter() - started, 1),
                      "out_of_order": [r for r in output + markdown if not r["ordered"]]}
    shot = None if all(r["ordered"] for r in output + markdown) and not aligned["problems"] else browser.shot(f"ar-{name}-rtl")
    assert len(output) > 50, f"ar/{name}: too few left-to-right runs measured in the output ({len(output)})"
    assert all(r["ordered"] for r in output), f"ar/{name} output (see {shot}): " + _report(output)
    assert all(r["ordered"] for r in markdown), f"ar/{name} markdown (see {shot}): " + _report(markdown)
    assert aligned["checked"] > 20, f"ar/{name}: too few Arabic blocks measured ({aligned['checked']})"
    assert aligned["problems"] == [], f"ar/{name} (see {shot}): Arabic text that does not start on the right: " + \
        json.dumps(aligned["problems"][:15], ensure_ascii=False, indent=1)

"""The course as a learner meets it: JupyterLab in headless Chromium, Run All, every control moved
(the even chapters here, the odd ones in test_browser_odd_chapters.py, so that two test processes
share the suite; and the Arabic edition read right to left).

For each notebook: Run All must finish with no traceback, no stderr output and no "Error
displaying widget". Then every lab's every control is changed once (keyboard on sliders, a new
option on dropdowns); the lab must redraw (its output changes and its busy row goes away)
with no error and no blank plot. Failures leave a screenshot in the folder printed at the end
(``_browser/`` beside the repository's tests, or ``GASTUDY_BROWSER_OUT``); the measured times
go to ``redraw_times_*.json`` there. Timing targets live in benchmarks/bench_lab_redraw.py.

Skipped, with the reason in the summary, when no Chromium or no Playwright is installed:
``.ci/run`` installs Debian's ``chromium`` so CI always runs it.
"""

from __future__ import annotations

import pytest
from browser_support import (
    EVEN_CHAPTERS,
    ROOT,
    course_in_a_browser,
    run_all_then_move_every_control,
    suite_marks,
)

pytestmark = suite_marks()


@pytest.fixture(scope="module")
def course():
    with course_in_a_browser("even") as session:
        yield session


@pytest.mark.parametrize("name", EVEN_CHAPTERS)
def test_run_all_then_move_every_control(course, name):
    run_all_then_move_every_control(*course, name)


ARABIC = "ar/00_start_here"


@pytest.mark.skipif(not (ROOT / "notebooks" / f"{ARABIC}.ipynb").exists(), reason="no Arabic edition generated")
def test_arabic_edition_reads_right_to_left(course):
    """The Arabic chapter 00 runs clean, its text is laid out right to left and its code left to right."""
    browser, _ = course
    browser.run_all(ARABIC)
    errors = browser.errors()
    shot = browser.shot("ar-00-run-all")                  # kept: a person looks at it
    assert errors == [], f"{ARABIC}: Run All shows errors:\n" + "\n---\n".join(errors)
    blocks = browser.page.locator('.jp-RenderedMarkdown div[dir="rtl"]')
    assert blocks.count() >= 3, f"{ARABIC}: markdown cells are not wrapped right to left (see {shot})"
    # JupyterLab renders only the cells near the view: judge the wrapped blocks that hold text
    shown = [b for b in blocks.all() if b.inner_text().strip()]
    assert shown, f"{ARABIC}: no right-to-left block with text on screen (see {shot})"
    assert all(b.evaluate("e => getComputedStyle(e).direction") == "rtl" for b in shown)
    text = "".join(b.inner_text() for b in shown).replace(" ", "")
    assert sum("\u0600" <= ch <= "\u06ff" for ch in text) > 0.3 * len(text), text[:200]
    # what is written left to right stays so inside the Arabic text (JupyterLab keeps the isolation)
    code = [c for c in browser.page.locator('.jp-RenderedMarkdown div[dir="rtl"] code').all() if c.is_visible()]
    assert code, f"{ARABIC}: no inline code on screen (see {shot})"
    assert {c.evaluate("e => getComputedStyle(e).direction") for c in code} == {"ltr"}
    browser.shut_down_kernel()


def test_a_learner_answers_the_questionnaire_and_reads_every_verdict(course):
    """Chapter 02 as a learner ends it: every question answered in the page, one click, a verdict
    under every question and a summary that counts what the page graded."""
    import re

    from gastudy.course.questionnaire import questions

    browser, _ = course
    browser.run_all("02_effective_batch")
    seen = browser.answer_the_questionnaire()
    shot = browser.shot("02-questionnaire")
    browser.shut_down_kernel()
    asked = questions("02")
    assert len(seen["verdicts"]) == len(asked), f"{seen} (see {shot})"
    assert all(v[:1] in "✓✗↔" for v in seen["verdicts"]), seen["verdicts"]
    right = sum(q.right == 0 if q.kind == "choice" else q.number == 1 for q in asked if q.kind != "open")
    checkable = sum(q.kind != "open" for q in asked)
    assert re.match(rf"{right} of {checkable} checkable answers right; {len(asked) - checkable} open", seen["summary"])

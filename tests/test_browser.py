"""The course as a learner meets it: JupyterLab in headless Chromium, Run All, every control moved.

For each notebook: Run All must finish with no traceback, no stderr output and no "Error
displaying widget". Then every lab's every control is changed once (keyboard on sliders, a new
option on dropdowns); the lab must redraw (its output changes and its busy row goes away)
with no error and no blank plot. Failures leave a screenshot in the folder printed at the end
(``_browser/`` beside the repository's tests, or ``GASTUDY_BROWSER_OUT``); the measured times
go to ``redraw_times.json`` there. Timing targets live in benchmarks/bench_lab_redraw.py.

Skipped, with the reason in the summary, when no Chromium or no Playwright is installed:
``.ci/run`` installs Debian's ``chromium`` so CI always runs it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from browser_support import (
    CHROMIUM_ARGS,
    ROOT,
    CourseBrowser,
    chromium_path,
    jupyterlab,
    suite_marks,
)

NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
OUT = Path(os.environ.get("GASTUDY_BROWSER_OUT", ROOT / "_browser"))
CHROMIUM = chromium_path()

pytestmark = suite_marks()


@pytest.fixture(scope="module")
def course():
    timings: list[dict] = []
    from playwright.sync_api import sync_playwright

    with jupyterlab() as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        yield CourseBrowser(page, server, OUT / "screenshots"), timings
        browser.close()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "redraw_times.json").write_text(json.dumps(timings, indent=1))
    print(f"\nbrowser suite: screenshots of failures and redraw_times.json in {OUT}")


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_run_all_then_move_every_control(course, name):
    browser, timings = course
    seconds = browser.run_all(name)
    errors = browser.errors()
    if errors:
        browser.shot(f"{name}-run-all")
    assert errors == [], f"{name}: Run All ({seconds:.0f} s) shows errors:\n" + "\n---\n".join(errors)
    assert browser.labs().count() > 0 or name in {"12_questions"} or not _has_labs(name), \
        f"{name}: no lab rendered as a widget"
    changes = browser.move_every_control(name)
    timings.append({"notebook": name, "run_all_s": round(seconds, 2),
                    "changes": [{"lab": c.lab, "title": c.title, "control": c.control, "seconds": round(c.seconds, 3),
                                 "problems": c.problems} for c in changes]})
    browser.shut_down_kernel()  # two cores: no idle kernel or worker pool lingers into the next chapter
    problems = [f"lab {c.lab} ({c.title}) · {c.control}: {'; '.join(c.problems)}" for c in changes if c.problems]
    assert problems == [], f"{name}:\n" + "\n".join(problems)
    if browser.labs().count():
        assert changes, f"{name}: labs are shown but no control could be moved"


def _has_labs(name: str) -> bool:
    text = (ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8")
    return "Lab(" in text


ARABIC = "ar/00_start_here"


@pytest.mark.skipif(not (ROOT / "notebooks" / f"{ARABIC}.ipynb").exists(), reason="no Arabic edition generated")
def test_arabic_edition_reads_right_to_left(course):
    """The Arabic chapter 00 runs clean, and its text is laid out right to left."""
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
    browser.shut_down_kernel()

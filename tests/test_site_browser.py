"""The static edition in a real browser, offline: headless Chromium opens every page from file://.

The site is built for one small chapter (plus the index and the workshop guide), copied to
another folder (as onto a USB stick) and opened page by page with every request to anything
but a ``file:`` or ``data:`` URL aborted and recorded. Each page must load with no console
error, no uncaught exception, no failed or aborted request; it must show text, its images
must render (``naturalWidth > 0``), and its links to other pages must point to files that exist.

The pages also pass an automated accessibility audit (axe-core, WCAG A and AA rules) with no
serious or critical violation, in all four editions (the right-to-left Arabic one included), and every
image carries a text alternative of its own (not nbconvert's placeholder).

Skipped, with the reason in the summary, when no Chromium or no Playwright is installed
(``.ci/run`` installs Debian's ``chromium``; Playwright's own browser download is not used);
the audit is skipped the same way without axe-core (``.ci/run`` installs it from npm into
``.ci/axe``; ``GASTUDY_AXE`` names another ``axe.min.js``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from browser_support import (
    CHROMIUM_ARGS,
    LEFT_TO_RIGHT_RUNS,
    RIGHT_ALIGNED,
    ROOT,
    chromium_path,
    suite_marks,
)

from gastudy.course.site import build_site

CHAPTERS = ["02_effective_batch"]  # small, with plots
CHROMIUM = chromium_path()

pytestmark = suite_marks()

IMAGES_LOADED = """async () => {
  await Promise.all([...document.images].map(i => i.complete ? null
      : new Promise(done => { i.addEventListener('load', done); i.addEventListener('error', done); })));
  return [...document.images].map(i => ({src: i.src.slice(0, 60), width: i.naturalWidth}));
}"""
LOCAL_LINKS = "() => [...document.querySelectorAll('a[href]')].map(a => a.href).filter(h => h.startsWith('file:'))"


AXE = Path(os.environ.get("GASTUDY_AXE", ROOT / ".ci" / "axe" / "node_modules" / "axe-core" / "axe.min.js"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built for ``CHAPTERS`` (English and Arabic), then moved elsewhere: it must not depend
    on where it was built."""
    root = tmp_path_factory.mktemp("site")
    build_site(root / "built", ROOT / "notebooks", names=CHAPTERS, progress=False, languages=("en", "tr", "es", "ar"),
               timeout=60)
    stick = shutil.copytree(root / "built", root / "usb stick" / "course")  # a space in the path, too
    shutil.rmtree(root / "built")
    return Path(stick)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _open_offline(browser, path: Path) -> dict:
    """Open ``path`` with the network cut off; what the page did, as plain data."""
    seen: dict[str, list] = {"console_errors": [], "page_errors": [], "blocked": [], "failed": []}
    context = browser.new_context(viewport={"width": 1200, "height": 900}, service_workers="block")
    page = context.new_page()
    page.set_default_timeout(30_000)

    def route(r):
        url = r.request.url
        if url.startswith(("file:", "data:", "blob:")):
            r.continue_()
        else:
            seen["blocked"].append(url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and seen["console_errors"].append(f"{m.text} ({m.location})"))
    page.on("pageerror", lambda e: seen["page_errors"].append(str(e)))
    page.on("requestfailed", lambda r: seen["failed"].append(f"{r.url[:120]}: {r.failure}"))
    try:
        page.goto(path.as_uri(), wait_until="load")
        seen["images"] = page.evaluate(IMAGES_LOADED)
        page.wait_for_load_state("networkidle")
        seen["text"] = page.inner_text("body")
        seen["visible"] = page.locator("body").is_visible()
        seen["links"] = page.evaluate(LOCAL_LINKS)
    finally:
        context.close()
    return seen


def test_site_has_the_pages(site):
    assert sorted(p.name for p in site.glob("*.html")) == sorted(
        ["index.html", "workshop.html", *(f"{c}.html" for c in CHAPTERS)])


@pytest.mark.parametrize("name", ["index", "workshop", *CHAPTERS])
def test_page_works_offline_in_chromium(site, browser, name):
    path = site / f"{name}.html"
    seen = _open_offline(browser, path)
    assert seen["blocked"] == [], f"{name}: tried to reach the network: {seen['blocked']}"
    assert seen["failed"] == [], f"{name}: requests failed: {seen['failed']}"
    assert seen["console_errors"] == [], f"{name}: console errors: {seen['console_errors']}"
    assert seen["page_errors"] == [], f"{name}: uncaught errors: {seen['page_errors']}"
    assert seen["visible"] and len(seen["text"].split()) > 20, f"{name}: no visible text"
    broken = [i for i in seen["images"] if i["width"] == 0]
    assert broken == [], f"{name}: images that did not render: {broken}"
    if name in CHAPTERS:
        assert len(seen["images"]) >= 1, f"{name}: its plots are missing"
        assert "Course index" in seen["text"]
    missing = sorted({link for link in seen["links"]
                      if not Path(unquote(urlparse(link).path)).exists()})
    assert missing == [], f"{name}: links to pages that do not exist: {missing}"


@pytest.mark.skipif(not AXE.exists(), reason=f"no axe-core at {AXE}: `.ci/run` installs it (npm install --prefix "
                                              ".ci/axe axe-core), or set GASTUDY_AXE")
@pytest.mark.parametrize("page", ["index", "workshop", *CHAPTERS, *(f"{lang}/{page}" for lang in ("tr", "es", "ar")
                                                                    for page in ("index", *CHAPTERS))])
def test_page_passes_an_accessibility_audit(site, browser, page):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    try:
        tab.goto((site / f"{page}.html").as_uri(), wait_until="load")
        tab.add_script_tag(content=AXE.read_text(encoding="utf-8"))
        result = tab.evaluate("async () => await axe.run(document, {runOnly: {type: 'tag', values: "
                              "['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}, "
                              "resultTypes: ['violations']})")
        alts = tab.evaluate("() => [...document.images].map(i => i.getAttribute('alt'))")
    finally:
        context.close()
    grave = [f"{v['id']} ({v['impact']}, {len(v['nodes'])}×): {v['nodes'][0]['target']} — {v['help']}"
             for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert grave == [], f"{page}: " + "\n".join(grave)
    assert all(a and "No description has been provided" not in a for a in alts), f"{page}: images without a text alternative"
    if page.endswith(tuple(CHAPTERS)):
        assert any(len(a) > 40 for a in alts), f"{page}: no plot says what it shows: {alts}"


NUMBER_BOXES = """element => {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const boxes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/\\d+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      const r = range.getBoundingClientRect();
      boxes.push({text: m[0], left: r.left, top: Math.round(r.top)});
    }
  }
  return boxes;
}"""


def test_an_isolated_formula_keeps_its_order_where_a_bare_one_is_reordered(browser, tmp_path):
    """The bidirectional algorithm, in Chromium, on the page nbconvert writes: chapter 03's
    formula in an Arabic sentence is shown out of its written order (the issue a reader saw:
    ``(512·2 + 4·1536)``), and in order once the edition isolates it."""
    import nbformat
    from nbconvert import HTMLExporter

    from gastudy.course.editions import _localize

    sentence = "الموزون بالرموز: (512·2 + 1536·4) / 2048 = **3.5**، ومتوسط المتوسطين أصغر."
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(f'<div dir="rtl" lang="ar">\n\n{sentence}\n\n</div>'),
        nbformat.v4.new_markdown_cell(_localize(sentence, "ar"))])
    page = tmp_path / "formula.html"
    page.write_text(HTMLExporter(template_name="lab").from_notebook_node(notebook)[0], encoding="utf-8")
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    try:
        tab.goto(page.as_uri(), wait_until="load")
        bare, isolated = (tab.locator('div[dir="rtl"] p').nth(i).evaluate(NUMBER_BOXES) for i in (0, 1))
    finally:
        context.close()
    written = ["512", "2", "1536", "4", "2048", "3", "5"]
    assert [b["text"] for b in bare] == [b["text"] for b in isolated] == written
    assert len({b["top"] for b in bare + isolated}) <= 2  # each on one line
    assert [b["left"] for b in bare] != sorted(b["left"] for b in bare), "the bare formula was not reordered"
    assert [b["left"] for b in isolated] == sorted(b["left"] for b in isolated), isolated


LEFT_TO_RIGHT_LAYOUT = """() => {
  const inRtl = [...document.querySelectorAll('pre, code')].filter(e => !e.closest('.jp-OutputArea'));
  const printed = [...document.querySelectorAll('.jp-OutputArea pre')].map(e => getComputedStyle(e).unicodeBidi);
  const runs = [];
  for (const bdi of document.querySelectorAll('bdi[dir="ltr"]')) {
    const walker = document.createTreeWalker(bdi, NodeFilter.SHOW_TEXT);
    const boxes = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[A-Za-z0-9]+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const r = range.getBoundingClientRect();
        boxes.push({text: m[0], left: r.left, top: Math.round(r.top)});
      }
    }
    if (boxes.length >= 2 && boxes.every(b => b.top === boxes[0].top)) runs.push({text: bdi.textContent, boxes});
  }
  return {directions: inRtl.map(e => [e.tagName, getComputedStyle(e).direction]), printed, runs};
}"""


@pytest.mark.parametrize("page", [f"ar/{c}" for c in CHAPTERS])
def test_arabic_pages_keep_code_and_formulas_left_to_right(site, browser, page):
    """In the right-to-left page, code cells, code blocks and inline code compute to ``ltr``, a
    printed line takes the direction of its own first letter (``unicode-bidi: plaintext``), and
    the numbers of every isolated formula on one line stand left to right in the order they are
    written (the bidirectional algorithm would put ``1536·4`` before ``512·2`` without it)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    try:
        tab.goto((site / f"{page}.html").as_uri(), wait_until="load")
        seen = tab.evaluate(LEFT_TO_RIGHT_LAYOUT)
    finally:
        context.close()
    assert seen["directions"], f"{page}: no code inside the right-to-left text"
    assert {d for _, d in seen["directions"]} == {"ltr"}, seen["directions"]
    assert seen["printed"] and set(seen["printed"]) == {"plaintext"}, seen["printed"]
    assert seen["runs"], f"{page}: no isolated formula of two terms on one line"
    for run in seen["runs"]:
        lefts = [b["left"] for b in run["boxes"]]
        assert lefts == sorted(lefts), f"{page}: {run['text']!r} is laid out out of order: {run['boxes']}"


@pytest.mark.parametrize("page", ["ar/index", *(f"ar/{c}" for c in CHAPTERS)])
def test_arabic_pages_keep_every_left_to_right_run_in_order_and_start_on_the_right(site, browser, page):
    """The Arabic index (its run times, its notebooks' names, the date it was built) and chapter
    pages (the executed lab output, tables, the questionnaire and the markdown): every left-to-right
    run is laid out in the order it is written, and every Arabic block starts on the right (the
    theme's ``text-align: left`` on paragraphs and the index's cells is undone)."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    tab = context.new_page()
    try:
        tab.goto((site / f"{page}.html").as_uri(), wait_until="load")
        tab.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        runs = tab.locator("body").evaluate_all(LEFT_TO_RIGHT_RUNS)
        aligned = tab.locator("body").evaluate(RIGHT_ALIGNED)
    finally:
        context.close()
    bad = [f"{r['text']!r} shown as {r['shown']!r} in …{r['context']}…" for r in runs if not r["ordered"]]
    assert len(runs) > 10 and bad == [], f"{page}: {len(bad)} of {len(runs)} runs out of order:\n" + "\n".join(bad[:20])
    assert aligned["checked"] > 3 and aligned["problems"] == [], f"{page}: {aligned['problems'][:10]}"


@pytest.mark.parametrize("page", [*CHAPTERS, *(f"{lang}/{c}" for lang in ("tr", "es", "ar") for c in CHAPTERS)])
def test_the_questionnaire_reads_on_the_static_page(site, page):
    """Nothing runs on the static site: each question shows its prompt, its choices as a list
    and the course's answer folded under it, in the page's language — no raw control text."""
    from gastudy.course.questionnaire import questions

    text = (site / f"{page}.html").read_text(encoding="utf-8")
    asked = questions(page.rsplit("/", 1)[-1][:2])
    assert text.count("<details") == len(asked), page
    assert text.count("<li>") >= sum(len(q.choices) for q in asked)
    assert "Textarea =" not in text and "RadioButtons =" not in text and "Text =" not in text

"""Drive the course in a real browser: a private JupyterLab on loopback, headless Chromium via
Playwright, Run All, then every lab control moved once (used by tests/test_browser.py, its odd half
tests/test_browser_odd_chapters.py, and
benchmarks/bench_lab_redraw.py); and the reading order of right-to-left pages, measured
(tests/test_browser_rtl_output.py, tests/test_site_browser.py).

Nothing here is imported by gastudy. Chromium comes from Debian's ``chromium`` package
(Playwright's own browser download is not used); ``GASTUDY_CHROMIUM`` overrides the path.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
KERNEL_IDLE = ("(() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
               " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
               " return !!k && k.status === 'idle'; })()")
# Close every document without saving it (its kernel was asked to stop), then open ``path``.
OPEN_ALONE = """async (path) => {
  const app = window.jupyterapp;
  for (const w of [...app.shell.widgets('main')]) w.dispose();
  await app.commands.execute('docmanager:open', {path});
}"""
ALL_RAN = ("(() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
           ".every(e => /\\[\\d+\\]/.test(e.textContent)))()")
# Errors a learner would see: tracebacks and stderr outputs, and a widget that failed to render.
ERRORS = """(root) => {
  const found = [];
  for (const e of root.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]'))
    found.push(e.textContent.slice(-1500));
  for (const e of root.querySelectorAll('.jp-OutputArea-output'))
    if (e.textContent.includes('Error displaying widget')) found.push(e.textContent.slice(0, 300));
  return found;
}"""


# --------------------------------------------------------------------------- reading order, measured
# Used by tests/test_browser_rtl_output.py (the Arabic chapters in JupyterLab) and
# tests/test_site_browser.py (the Arabic static pages). A *left-to-right run* is what the course
# isolates in right-to-left text (gastudy.course.i18n.bidi): Latin letters, digits and the signs,
# brackets and operators between them; an isolate already there is a run of its own; the sentence's
# punctuation at a run's edges, an operator a blank parts from it and brackets it does not close are
# the sentence's. Each run's characters are measured (Range.getClientRects): on one line, each must
# stand to the right of the one written before it.
LEFT_TO_RIGHT_RUNS = r"""(roots) => roots.flatMap(root => {
  const RUN = /[\x21-\x7E \u2212\u00D7\u00B7\u2248\u2264\u2265\u2026\u03A3\u2207\u221A\u2192\u2190\u22EF\u2016\u00F7\u00B1\u2070-\u209F\u00B2\u00B3\u00B9\u2066-\u2069]/;
  const OPENERS = "\u2066\u2067\u2068", CLOSER = "\u2069";
  const EDGE = " .,:;!?\u00B7\u2014\u2013";
  const OPERATOR = "+-\u2212\u00D7\u00B7/=<>\u2248\u2264\u2265\u2026\u03A3\u2207\u221A^*|\u2016#&~@$\\\u00F7\u00B1\u2192\u2190\u22EF";
  const PAIRS = {"(": ")", "[": "]", "{": "}", "'": "'", '"': '"'};
  const count = (s, cs) => [...s].filter(c => cs.includes(c)).length;
  function lone(s) {             // brackets a run does not close or open: the sentence's
    const stack = [], out = new Set();
    for (let k = 0; k < s.length; k++) {
      if ("([{".includes(s[k])) stack.push(k);
      else if (")]}".includes(s[k])) {
        if (stack.length && PAIRS[s[stack[stack.length - 1]]] === s[k]) stack.pop(); else out.add(k);
      }
    }
    stack.forEach(k => out.add(k));
    if (count(s, "|") % 2) [...s].forEach((c, k) => { if (c === "|") out.add(k); });
    return [...out].sort((x, y) => x - y);
  }
  function trim(s) {             // the sentence's punctuation, an operator a blank parts from the run, enclosing brackets
    let a = 0, b = s.length;
    while (a < b) {
      const core = s.slice(a, b), first = core[0], last = core[core.length - 1];
      if (EDGE.includes(first) || (OPERATOR.includes(first) && core[1] === " ")) { a++; continue; }
      if (EDGE.includes(last) || (OPERATOR.includes(last) && core[core.length - 2] === " ")) { b--; continue; }
      if (core.length > 1 && PAIRS[first] === last) { a++; b--; continue; }
      return [a, b];
    }
    return [a, b];
  }
  function pieces(s0, s1, text) {
    const cuts = lone(text.slice(s0, s1)).map(k => s0 + k), out = [];
    let at = s0;
    for (const c of cuts) { out.push([at, c]); at = c + 1; }
    out.push([at, s1]);
    return out;
  }
  const runs = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest("style, script, .cm-editor")) continue;
    const text = node.data;
    const segments = [];         // maximal left-to-right runs; an isolate at the top level is one of its own
    let start = -1, depth = 0;
    for (let k = 0; k <= text.length; k++) {
      const c = k < text.length ? text[k] : "\n";
      const opens = OPENERS.includes(c), closes = c === CLOSER;
      const boundary = !RUN.test(c) || (opens && depth === 0) || (closes && depth === 1);
      if (boundary && start >= 0) { segments.push([start, k]); start = -1; }
      if (opens) depth++;
      if (closes && depth > 0) depth--;
      if (RUN.test(c) && !(OPENERS + CLOSER).includes(c) && start < 0) start = k;
      if (opens && depth === 1) start = k + 1;
    }
    for (const [s0, s1] of segments.flatMap(([x, y]) => pieces(x, y, text))) {
      const raw = text.slice(s0, s1);
      const [a, b] = trim(raw);
      if (!/[A-Za-z0-9]/.test(raw.slice(a, b))) continue;
      const boxes = [];
      for (let k = s0 + a; k < s0 + b; k++) {
        const ch = text[k];
        if (/\s/.test(ch) || (OPENERS + CLOSER).includes(ch)) continue;
        const range = document.createRange();
        range.setStart(node, k); range.setEnd(node, k + 1);
        const r = range.getClientRects()[0];
        if (r && r.width > 0) boxes.push({ch, left: r.left, top: r.top, height: r.height});
      }
      if (boxes.length < 2) continue;
      let ordered = true;
      for (let k = 1; k < boxes.length && ordered; k++) {
        const p = boxes[k - 1], q = boxes[k];
        if (Math.abs(p.top - q.top) < p.height / 2 && q.left + 0.5 < p.left) ordered = false;
      }
      const shown = [...boxes].sort((x, y) => Math.abs(x.top - y.top) > 3 ? x.top - y.top : x.left - y.left)
        .map(x => x.ch).join("");
      runs.push({text: raw.slice(a, b).replace(/[\u2066-\u2069]/g, ""), shown, ordered,
                 context: text.slice(Math.max(0, s0 - 40), s1 + 20).replace(/[\u2066-\u2069]/g, "")});
    }
  }
  return runs;
})"""

# Every block of text whose paragraph starts with an Arabic letter must start on the right: its first
# line ends at the block's right edge (a printed line is a paragraph of its own; controls' labels,
# laid out left to right with their controls, are left out). Returns the blocks checked and the others.
RIGHT_ALIGNED = r"""(root) => {
  const ARABIC = /[\u0621-\u064A\u066E-\u06D3\u06FA-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFC]/;
  const STRONG = /[A-Za-z\u00C0-\u024F\u0621-\u064A\u066E-\u06D3\u06FA-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFC]/;
  const startsArabic = s => { const m = s.match(STRONG); return !!m && ARABIC.test(m[0]); };
  const blockOf = el => { for (let e = el; e && e !== root.parentElement; e = e.parentElement)
      if (["block", "list-item", "table-cell", "flex", "grid"].includes(getComputedStyle(e).display)) return e;
    return null; };
  const seen = new Set(), problems = [];
  let checked = 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !ARABIC.test(node.data) || el.closest("style, script, .cm-editor, .gastudy-controls, .widget-label")) continue;
    const block = blockOf(el);
    if (!block) continue;
    const style = getComputedStyle(block);
    const keepsBreaks = /pre/.test(style.whiteSpace);   // printed text: every line is a paragraph of its own
    let at = 0;
    for (const piece of keepsBreaks ? node.data.split("\n") : [node.data]) {
      const from = at; at += piece.length + 1;
      if (!piece.trim() || !startsArabic(keepsBreaks ? piece : block.textContent)) continue;
      if (!keepsBreaks) { if (seen.has(block)) continue; seen.add(block); }
      const range = document.createRange();
      if (keepsBreaks) { range.setStart(node, from); range.setEnd(node, from + piece.length); }
      else range.selectNodeContents(block);
      const rects = [...range.getClientRects()].filter(r => r.width > 0);
      if (!rects.length) continue;
      const top = Math.min(...rects.map(r => r.top));
      const line = rects.filter(r => r.top < top + rects[0].height / 2);
      const box = block.getBoundingClientRect();
      const right = box.right - parseFloat(style.paddingRight) - parseFloat(style.borderRightWidth);
      const left = box.left + parseFloat(style.paddingLeft) + parseFloat(style.borderLeftWidth);
      const gapRight = right - Math.max(...line.map(r => r.right)), gapLeft = Math.min(...line.map(r => r.left)) - left;
      checked++;
      if (gapRight > 2 && gapRight > gapLeft + 1)
        problems.push({text: piece.trim().slice(0, 60), tag: block.tagName, textAlign: style.textAlign,
                       direction: style.direction, gapLeft: Math.round(gapLeft), gapRight: Math.round(gapRight)});
    }
  }
  return {checked, problems};
}"""


def chromium_path() -> str | None:
    """The system Chromium, or ``None`` when there is none."""
    wanted = os.environ.get("GASTUDY_CHROMIUM")
    if wanted:
        return wanted if Path(wanted).exists() else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def suite_marks() -> list:
    """The marks of every browser test module: slow, browser, and a loud skip without Chromium
    or Playwright (``.ci/run`` installs Chromium, so CI always runs them)."""
    import importlib.util

    import pytest

    return [
        pytest.mark.slow,
        pytest.mark.browser,
        pytest.mark.skipif(chromium_path() is None, reason="BROWSER SUITE SKIPPED: no Chromium found "
                                                           "(apt-get install chromium, or set GASTUDY_CHROMIUM)"),
        pytest.mark.skipif(importlib.util.find_spec("playwright") is None,
                           reason="BROWSER SUITE SKIPPED: playwright is not installed "
                                  "(pip install -c requirements/constraints.txt -e '.[dev]')"),
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    url: str
    token: str
    folder: Path
    process: subprocess.Popen

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}.ipynb?token={self.token}&reset"


@contextmanager
def jupyterlab(notebooks: Path = ROOT / "notebooks", extra_args: tuple[str, ...] = ()) -> Iterator[LabServer]:
    """A JupyterLab on a free loopback port with a random token, serving a *copy* of the course
    (autosave never touches the repository); stopped and removed at the end. ``extra_args`` are
    added to ``jupyter lab``'s command line."""
    tmp = Path(tempfile.mkdtemp(prefix="gastudy-browser-"))
    folder = tmp / "notebooks"
    shutil.copytree(notebooks, folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    port, token = free_port(), base64.b32encode(os.urandom(10)).decode().lower()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp / "config"), "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "ws")}
    settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    log = open(tmp / "server.log", "w")  # noqa: SIM115 - closed below
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               f"--IdentityProvider.token={token}", f"--notebook-dir={folder}", "--LabApp.expose_app_in_browser=True", *extra_args]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(tmp / 'server.log').read_text()[-2000:]}")
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not answer within 90 s") from None
                time.sleep(0.5)
        yield LabServer(url, token, folder, process)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


def image_stats(data_url: str) -> tuple[float, int]:
    """(share of pixels that are not the background, distinct colours) of a PNG data URL."""
    import numpy as np
    from PIL import Image

    raw = base64.b64decode(data_url.split(",", 1)[1])
    img = Image.open(io.BytesIO(raw)).convert("RGB")
    img.thumbnail((400, 400))
    pixels = np.asarray(img, dtype=np.int32).reshape(-1, 3)
    packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]
    colours, counts = np.unique(packed, return_counts=True)
    top = int(colours[counts.argmax()])
    background = np.array([top >> 16, (top >> 8) & 255, top & 255])
    ink = int((np.abs(pixels - background).sum(axis=1) > 30).sum())
    return ink / len(pixels), len(colours)


def blank_images(locator) -> list[str]:
    """Describe every image under ``locator`` that looks blank (under 1 % ink or under 8 colours)."""
    bad = []
    for i, src in enumerate(locator.evaluate_all("els => els.map(e => e.src)")):
        if not src.startswith("data:image/png"):
            continue
        ink, colours = image_stats(src)
        if ink < 0.01 or colours < 8:
            bad.append(f"image {i}: {ink:.1%} ink, {colours} colours")
    return bad


@dataclass
class ControlChange:
    notebook: str
    lab: int
    title: str
    control: str
    seconds: float
    problems: list[str] = field(default_factory=list)


class CourseBrowser:
    """One Chromium page on the course; screenshots of failures go to ``shots``."""

    def __init__(self, page, server: LabServer, shots: Path):
        self.page, self.server, self.shots = page, server, shots
        self.console_errors: list[str] = []
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)

    def shot(self, name: str) -> Path:
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=False)
        return path

    def open(self, name: str) -> None:
        """Open notebook ``name`` (a path below the course folder, without ``.ipynb``) as the only
        document, the way a learner opens the next chapter from the file browser: JupyterLab
        loads once, later chapters open in the same page (closing the previous one unsaved)."""
        page, path = self.page, f"{name}.ipynb"
        if page.evaluate("() => !window.jupyterapp"):
            page.goto(self.server.notebook_url(name))
        else:
            page.evaluate(OPEN_ALONE, path)
        page.wait_for_function(f"({KERNEL_IDLE}) && window.jupyterapp.shell.currentWidget.context.path === {path!r}",
                               timeout=120_000, polling=100)

    def run_all(self, name: str, timeout_s: float = 240) -> float:
        """Open ``name``, Run All, wait until every cell ran and the kernel is idle; seconds taken."""
        page = self.page
        self.open(name)
        t0 = time.perf_counter()
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(ALL_RAN + " && " + KERNEL_IDLE, timeout=timeout_s * 1000, polling=100)
        return time.perf_counter() - t0

    def shut_down_kernel(self) -> None:
        """Ask the server to stop the open notebook's kernel (and whatever it started, e.g. a warm
        worker pool); the next chapter loads meanwhile."""
        self.page.evaluate("() => { window.jupyterapp.shell.currentWidget.sessionContext.shutdown(); }")

    def errors(self) -> list[str]:
        return self.page.locator(".jp-Notebook").evaluate(ERRORS)

    def labs(self):
        return self.page.locator(".gastudy-lab")

    def move_every_control(self, name: str, timeout_s: float = 120) -> list[ControlChange]:
        """Change each control of each lab once (keyboard on sliders, a new option on dropdowns)
        and wait for the lab to redraw; one :class:`ControlChange` per control."""
        changes = []
        labs = self.labs()
        for li in range(labs.count()):
            lab = labs.nth(li)
            lab.scroll_into_view_if_needed()
            title = (lab.locator(".widget-html").first.text_content() or "").strip()[:80]
            controls = lab.locator(".gastudy-controls > .widget-inline-hbox, .gastudy-controls > .jupyter-widgets")
            for ci in range(controls.count()):
                control = controls.nth(ci)
                label = (control.locator(".widget-label").first.text_content() or f"control {ci}").strip()
                change = ControlChange(name, li, title, label, 0.0)
                output = lab.locator(".gastudy-output")
                output.evaluate("el => { el.__mutations = 0; if (!el.__observer) { el.__observer = new "
                                "MutationObserver(m => { el.__mutations += m.length; }); el.__observer.observe(el, "
                                "{childList: true, subtree: true, characterData: true}); } }")
                t0 = time.perf_counter()
                if not self._change(control):
                    continue  # nothing to change to (a single-option dropdown)
                try:
                    output.evaluate_handle("el => el")  # keep the handle alive
                    self.page.wait_for_function(
                        "([el, busy]) => el.__mutations > 0 && getComputedStyle(busy).display === 'none'",
                        arg=[output.element_handle(), lab.locator(".gastudy-busy").element_handle()],
                        timeout=timeout_s * 1000, polling=25)
                    change.seconds = time.perf_counter() - t0
                except Exception as e:  # noqa: BLE001 - recorded as a problem with a screenshot
                    change.seconds = time.perf_counter() - t0
                    change.problems.append(f"no redraw within {timeout_s:.0f} s ({type(e).__name__})")
                change.problems += [f"error output: {e[-400:]}" for e in output.evaluate(ERRORS)]
                change.problems += blank_images(output.locator("img"))
                if change.problems:
                    change.problems.append(f"screenshot: {self.shot(f'{name}-lab{li}-control{ci}')}")
                changes.append(change)
        return changes

    def answer_the_questionnaire(self) -> dict:
        """Answer the open notebook's questionnaire as a learner would (the first choice of every
        choice question, 1 for every number, a sentence for every open question), press its
        button; what it then shows: the verdicts' texts and the summary."""
        quiz = self.page.locator(".gastudy-questionnaire").last
        quiz.scroll_into_view_if_needed()
        for group in quiz.locator(".widget-radio-box").all():
            group.locator("input[type=radio]").first.check()
        for box in quiz.locator(".widget-text input").all():
            box.fill("1")
        for area in quiz.locator(".widget-textarea textarea").all():
            area.fill("because the gradient is linear")
        self.page.wait_for_timeout(300)  # the values reach the kernel
        quiz.locator(".gastudy-check").click()
        summary = quiz.locator(".gastudy-summary")
        self.page.wait_for_function("el => el.textContent.trim().length > 0", arg=summary.element_handle(),
                                    timeout=30_000, polling=100)
        return {"verdicts": [v.text_content().strip() for v in quiz.locator(".gastudy-verdict").all()],
                "summary": summary.text_content().strip()}

    def _change(self, control) -> bool:
        """Move one control by one step as a learner would; False when it has nowhere to go."""
        page = self.page
        handle = control.locator(".noUi-handle")
        if handle.count():
            handle.first.scroll_into_view_if_needed()
            handle.first.focus()
            now, top = handle.first.get_attribute("aria-valuenow"), handle.first.get_attribute("aria-valuemax")
            at_max = now is not None and top is not None and float(now) >= float(top)
            page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
            return True
        select = control.locator("select")
        if select.count():
            options = select.first.evaluate("s => [...s.options].map(o => o.value)")
            current = select.first.input_value()
            others = [o for o in options if o != current]
            if not others:
                return False
            select.first.select_option(others[0])
            return True
        box = control.locator("input[type=checkbox]")
        if box.count():
            box.first.click()
            return True
        return False


# --------------------------------------------------------------------------- the suite's two halves
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
# The chapters are split by parity so that the two halves take about as long (one file runs in one
# test process): 00 02 04 06 08 10 12 and 01 03 05 07 09 11.
EVEN_CHAPTERS = [n for n in NOTEBOOKS if int(n[:2]) % 2 == 0]
ODD_CHAPTERS = [n for n in NOTEBOOKS if int(n[:2]) % 2 == 1]
OUT = Path(os.environ.get("GASTUDY_BROWSER_OUT", ROOT / "_browser"))


@contextmanager
def course_in_a_browser(label: str) -> Iterator[tuple[CourseBrowser, list[dict]]]:
    """A JupyterLab server and a headless Chromium page on it, and the list the redraw times of
    this half of the suite go to (written to ``redraw_times_<label>.json`` in :data:`OUT`)."""
    timings: list[dict] = []
    from playwright.sync_api import sync_playwright

    with jupyterlab() as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        yield CourseBrowser(page, server, OUT / "screenshots"), timings
        browser.close()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"redraw_times_{label}.json").write_text(json.dumps(timings, indent=1))
    print(f"\nbrowser suite: screenshots of failures and redraw_times_{label}.json in {OUT}")


def run_all_then_move_every_control(browser: CourseBrowser, timings: list[dict], name: str) -> None:
    """Run All of notebook ``name`` must finish with no error; then every control of every lab is
    changed once and must redraw without a problem (the assertions of the browser suite)."""
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
    return "Lab(" in (ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8")

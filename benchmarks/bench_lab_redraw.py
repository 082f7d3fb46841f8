"""Median redraw time per lab, in a real browser, against the course's targets (issue: the course
in a real browser).

Targets on 2 CPU cores: computed labs ≤ 1 s per control change; the 2-process labs of chapter
06 ≤ 3 s; measurement labs that take longer than 3 s must show progress and stay under 10 s.
Uses the browser test's driver (JupyterLab + headless Chromium)::

    python benchmarks/bench_lab_redraw.py                 # every notebook
    python benchmarks/bench_lab_redraw.py 01 06           # notebooks whose name starts so

Every lab is also photographed after its last change (``<notebook>-lab<i>.png`` in the folder the
run prints), so a cut plot, a cramped control or a wrapping table can be seen, not only timed.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser_support import CHROMIUM_ARGS, CourseBrowser, chromium_path, jupyterlab  # noqa: E402


def target_s(notebook: str) -> float:
    return 3.0 if notebook.startswith("06") else 1.0


def main(prefixes: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    chromium = chromium_path()
    if chromium is None:
        print("no Chromium found: apt-get install chromium (or set GASTUDY_CHROMIUM)")
        return 2
    names = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")
                   if not prefixes or any(p.stem.startswith(x) for x in prefixes))
    rows = []
    shots = Path(tempfile.mkdtemp(prefix="gastudy-bench-"))
    print(f"screenshots of every lab after its changes (and of failures): {shots}")
    with jupyterlab() as server, sync_playwright() as p:
        page = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS).new_page(
            viewport={"width": 1400, "height": 1000})
        course = CourseBrowser(page, server, shots)
        for name in names:
            run_all = course.run_all(name)
            per_lab = defaultdict(list)
            for change in course.move_every_control(name):
                per_lab[(change.lab, change.title)].append(change.seconds)
                for problem in change.problems:
                    print(f"  PROBLEM lab {change.lab} control {change.control!r}: {problem}")
            print(f"{name}: Run All {run_all:.1f} s")
            labs = course.labs()
            for li in range(labs.count()):
                labs.nth(li).screenshot(path=str(shots / f"{name}-lab{li}.png"))
            for (lab, title), seconds in per_lab.items():
                median = statistics.median(seconds)
                limit = target_s(name)
                verdict = "ok" if median <= limit else ("needs progress, < 10 s" if median < 10 else "TOO SLOW")
                rows.append((name, lab, median))
                print(f"  lab {lab} {title[:60]:<60} median {median:6.2f} s over {len(seconds)} changes "
                      f"(target {limit:.0f} s: {verdict})")
    over = [r for r in rows if r[2] > target_s(r[0])]
    print(f"\n{len(rows)} labs, {len(over)} over their target")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

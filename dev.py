#!/usr/bin/env python3
"""Set up gastudy and run it: ``python3 dev.py course`` or ``python3 dev.py test``.

Needs only Python ≥ 3.10 and pip. Creates ``.venv`` next to this file (once), installs the
library with the course and test extras at the pinned versions in
``requirements/constraints.txt``, then:

- ``course``: opens the course in JupyterLab (headless-friendly: it prints the URL);
- ``test``: runs the whole test suite, notebooks included (what CI runs);
- ``site``: executes the course and writes the static HTML edition to ``_site/``.

Extra arguments are passed on (``python3 dev.py test -k engine``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("GASTUDY_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".gastudy-installed"


def setup() -> None:
    """Create the virtual environment and install the pinned dependencies (skipped when current)."""
    wanted = (ROOT / "requirements" / "constraints.txt").read_text() + (ROOT / "pyproject.toml").read_text()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not PY.exists():
        print(f"creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(PY), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-c", str(ROOT / "requirements" / "constraints.txt"), "-e", f"{ROOT}[dev]"], check=True)
    STAMP.write_text(wanted)


def install_notebook_filter() -> None:
    """Keep outputs out of git: ``.gitattributes`` sends notebooks through the ``nbstripout`` filter,
    defined here for this clone. JupyterLab still saves outputs on disk (the course runs as
    before); ``git diff``/``git add`` see the notebook without outputs, execution counts or
    widget state. Cell ids are kept. Skipped outside a git clone or without git."""
    if not (ROOT / ".git").exists():
        return
    strip = f'"{PY}" -m nbstripout --keep-id'
    settings = {"filter.nbstripout.clean": strip, "filter.nbstripout.smudge": "cat",
                "filter.nbstripout.required": "true", "diff.ipynb.textconv": f"{strip} -t"}
    for key, value in settings.items():
        try:
            subprocess.run(["git", "config", "--local", key, value], cwd=ROOT, check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            return


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("course", "test", "site"):
        print(__doc__)
        return 2
    setup()
    install_notebook_filter()
    command, rest = argv[0], argv[1:]
    if command == "course":
        return subprocess.call([str(PY), "-m", "gastudy", "lab", "--no-browser", *rest], cwd=ROOT)
    if command == "site":
        return subprocess.call([str(PY), "-m", "gastudy", "site", *rest], cwd=ROOT)
    # two test processes by default (one per core of the CI machine; files stay whole, notebooks run in
    # order), given files in the order tests/conftest.py sets (longest kinds first), not by test count
    parallel = [] if any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in rest) else \
        ["-n", "auto", "--no-loadscope-reorder"]
    return subprocess.call([str(PY), "-m", "pytest", *parallel, *rest], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

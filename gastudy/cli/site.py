"""``gastudy site``: build the course's static edition (see :mod:`gastudy.course.site`)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from gastudy.cli.options import emit, fail, nonempty, whole, writable_folder_error


def add_site_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``gastudy site`` on an ``argparse`` subparsers object; returns the parser. Course: all chapters."""
    parser = subparsers.add_parser(
        "site", help="execute the course and write its static HTML edition",
        description="Execute a copy of every course notebook and write an HTML site (index + one "
                    "page per notebook) readable without a kernel and without a network (it works "
                    "from file:// URLs). The notebooks are not modified.")
    parser.add_argument("--out", type=nonempty, default="_site", help="output folder (default: _site)")
    parser.add_argument("--notebooks", type=nonempty, default="notebooks", help="notebooks folder (default: notebooks)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="build only these notebooks (file stems)")
    parser.add_argument("--timeout", type=whole(1, 24 * 3600), default=300,
                        help="seconds one cell may run (default: 300)")
    parser.add_argument("--jobs", type=_positive_int, default=None, metavar="N",
                        help="notebooks executed at once, one kernel each (default: half the CPUs, 1 to 4; "
                             "--jobs 1 gives the cleanest timings on the pages)")
    parser.add_argument("--lang", nargs="+", choices=["en", "tr", "es", "ar"], default=["en"], metavar="CODE",
                        help="editions to build: en (the root of the site), tr, es, ar (each in its "
                             "folder, from notebooks/<code>/; every page gets a language switch). "
                             "Default: en")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.set_defaults(func=site_command)
    return parser


_positive_int = whole(1, 64)


def _input_error(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--notebooks``, ``--lang`` or ``--only`` (naming the flag), or ``None``."""
    from gastudy.course.i18n import LANGUAGES

    folder = Path(args.notebooks)
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        return f"--notebooks {args.notebooks} {what}: give the course's notebooks folder (default: notebooks)"
    english = {p.stem for p in folder.glob("*.ipynb")}
    if not english:
        return f"--notebooks {args.notebooks} holds no .ipynb notebook: give the course's notebooks folder"
    for code in dict.fromkeys(getattr(args, "lang", None) or ["en"]):
        if code != "en" and not any((folder / code).glob("*.ipynb")):
            return (f"--lang {code}: no {LANGUAGES[code]} edition in {folder / code}: generate it with "
                    f"`gastudy editions --lang {code}`, or leave {code} out of --lang")
    unknown = [name for name in (args.only or []) if name not in english]
    if unknown:
        return f"--only {' '.join(unknown)}: no such notebook in {folder}; choose from {', '.join(sorted(english))}"
    return None


def site_command(args: argparse.Namespace) -> int:
    """Run :func:`build_site` from parsed ``gastudy site`` arguments; prints where the site is.

    Returns the exit status: 0 when the site was written, 1 when a notebook failed, 2 for bad
    input (a missing ``--notebooks`` folder, an edition not generated, an unknown ``--only`` name;
    the message names the flag). Course: all chapters (static edition).
    """
    from gastudy.course.site import SiteBuildError, build_site  # the course layer, only when asked

    if (error := writable_folder_error(args.out, "--out")) is not None:
        return fail(args, error)
    if (error := _input_error(args)) is not None:  # bad input: exit 2 before any kernel starts
        return fail(args, error)
    t0 = time.perf_counter()
    try:
        out = build_site(args.out, args.notebooks, names=args.only, timeout=args.timeout,
                         jobs=getattr(args, "jobs", None), languages=getattr(args, "lang", None) or ["en"])
    except (FileNotFoundError, ValueError) as err:
        return fail(args, f"site: {err}")
    except SiteBuildError as err:
        if getattr(args, "json", False):
            return fail(args, f"site: {err}", code=1)
        print(f"gastudy site: {err}")
        return 1
    index = (out / "index.html").resolve()
    seconds = time.perf_counter() - t0
    emit(args, {"index": str(index), "seconds": round(seconds, 1)},
         f"static edition written to {index} in {seconds:.0f} s")
    return 0


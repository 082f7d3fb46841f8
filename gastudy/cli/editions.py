"""``gastudy editions``: regenerate the Turkish, Spanish and Arabic notebooks from the English ones
(see :mod:`gastudy.course.editions`), or report what is left to translate."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_editions_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``gastudy editions`` on an ``argparse`` subparsers object; returns the parser."""
    parser = subparsers.add_parser(
        "editions", help="regenerate the translated notebooks (tr, es, ar) from the English ones",
        description="Write notebooks/<lang>/NN_*.ipynb from the English notebooks and the translation "
                    "files notebooks/translations/<lang>/NN_*.json (keyed by cell id). Code cells are "
                    "copied unchanged; a markdown cell whose English text changed since it was "
                    "translated keeps the English text and is reported as stale.")
    parser.add_argument("--lang", nargs="+", choices=["tr", "es", "ar"], default=["tr", "es", "ar"],
                        metavar="CODE", help="editions to write: tr, es, ar (default: all three)")
    parser.add_argument("--notebooks", default=None, help="the English notebooks folder (default: the course's)")
    parser.add_argument("--status", action="store_true",
                        help="only report translated / missing / stale cells; write nothing")
    parser.add_argument("--update-files", action="store_true",
                        help="also add an entry (with the English text) to the translation files for "
                             "every new or changed English cell, for a translator to fill in")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.set_defaults(func=editions_command)
    return parser


def editions_command(args: argparse.Namespace) -> int:
    """Exit 0 when written (or, with ``--status``, when every edition is complete), 1 when
    ``--status`` finds missing or stale cells, 2 for a missing folder or a broken translation file."""
    from gastudy.course import editions  # the course layer, only when asked

    try:
        folder = args.notebooks or _course_folder()
        if args.update_files and not args.status:
            for code in args.lang:
                editions.update_translation_files(code, folder)
        reports = ([editions.translation_status(code, folder) for code in args.lang] if args.status
                   else editions.build_editions(tuple(args.lang), folder))
    except (FileNotFoundError, ValueError) as err:
        if args.json:
            print(json.dumps({"error": str(err), "exit": 2}))
        else:
            print(f"gastudy editions: {err}")
        return 2
    if args.json:
        print(json.dumps({r.language: {"notebooks": r.notebooks, "translated": r.count("ok"),
                                       "missing": r.count("missing"), "stale": r.count("stale"),
                                       "orphans": len(r.orphans)} for r in reports}))
    else:
        for report in reports:
            print(report.summary())
    return 1 if args.status and not all(r.complete for r in reports) else 0


def _course_folder() -> str:
    from gastudy.cli.options import notebooks_dir

    return str(notebooks_dir())

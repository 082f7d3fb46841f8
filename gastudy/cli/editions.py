"""``gastudy editions``: regenerate the Turkish, Spanish and Arabic notebooks from the English ones
(see :mod:`gastudy.course.editions`), or report what is left to translate."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gastudy.cli.options import fail, nonempty


def add_editions_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``gastudy editions`` on an ``argparse`` subparsers object; returns the parser."""
    parser = subparsers.add_parser(
        "editions", help="regenerate the translated notebooks (tr, es, ar) from the English ones",
        description="Write notebooks/<lang>/NN_*.ipynb from the English notebooks and the gettext "
                    "catalogs notebooks/translations/<lang>/notebooks.po (one entry per markdown cell, "
                    "msgctxt = the cell id). Code cells are copied unchanged; a markdown cell whose "
                    "English text changed since it was translated (a fuzzy entry) keeps the English "
                    "text and is reported as stale.")
    parser.add_argument("--lang", nargs="+", choices=["tr", "es", "ar"], default=["tr", "es", "ar"],
                        metavar="CODE", help="editions to write: tr, es, ar (default: all three)")
    parser.add_argument("--notebooks", type=nonempty, default=None, help="the English notebooks folder (default: the course's)")
    parser.add_argument("--status", action="store_true",
                        help="only report translated / missing / stale cells (and, for the course, lab "
                             "sentences); write nothing")
    parser.add_argument("--update-files", action="store_true",
                        help="also merge the English texts into the catalogs (notebooks.pot into "
                             "notebooks.po; for the course, course.pot into the labs' course.po): new "
                             "texts get empty entries, changed ones are marked fuzzy, for a translator")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.set_defaults(func=editions_command)
    return parser


def editions_command(args: argparse.Namespace) -> int:
    """Exit 0 when written (or, with ``--status``, when every edition is complete), 1 when
    ``--status`` finds missing or stale cells or lab sentences, 2 for bad input (``--status`` with
    ``--update-files``, a missing folder, a folder without English notebooks, a broken catalog),
    nothing written then. A code given twice in ``--lang`` counts once."""
    from gastudy.course import editions  # the course layer, only when asked

    if args.status and args.update_files:
        return fail(args, "--status writes nothing and --update-files writes the translation files: use one of them")
    languages = list(dict.fromkeys(args.lang))
    try:
        folder = args.notebooks or _course_folder()
        editions.english_notebooks(folder)  # a bad folder is refused before anything is read or written
    except (FileNotFoundError, ValueError) as err:
        return fail(args, f"--notebooks {args.notebooks}: {err}" if args.notebooks else str(err))
    try:
        if args.update_files:
            for code in languages:  # every file is checked before the first is rewritten
                editions.translation_status(code, folder)
            for code in languages:
                editions.update_translation_files(code, folder)
        reports = ([editions.translation_status(code, folder) for code in languages] if args.status
                   else editions.build_editions(tuple(languages), folder))
    except (FileNotFoundError, ValueError) as err:
        return fail(args, str(err))
    except OSError as err:  # an edition's folder that is a file, a read-only notebooks folder
        name = err.filename or folder
        why = "is a file, not a folder: move it away" if Path(name).is_file() else (err.strerror or str(err))
        return fail(args, f"cannot write the editions: {name} {why}")
    if args.json:
        print(json.dumps({r.language: {"notebooks": r.notebooks, "translated": r.count("ok"),
                                       "missing": r.count("missing"), "stale": r.count("stale"),
                                       "orphans": len(r.orphans),
                                       **({"sentences": r.sentences} if r.sentences is not None else {})}
                          for r in reports}))
    else:
        for report in reports:
            print(report.summary())
    return 1 if args.status and not all(r.complete for r in reports) else 0


def _course_folder() -> str:
    from gastudy.cli.options import notebooks_dir

    return str(notebooks_dir())

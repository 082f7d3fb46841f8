"""The Turkish, Spanish and Arabic editions of the course, generated from the English notebooks.

Single source: the English notebooks in ``notebooks/`` are the only place where code is written.
Each edition ``notebooks/<lang>/`` is *generated* from them plus one translation file per
notebook, ``notebooks/translations/<lang>/<notebook>.json``, keyed by the stable cell ids::

    {"notebook": "03_loss_normalization.ipynb", "language": "tr",
     "cells": {"nb03-00": {"english_sha": "…", "text": "# 03 · …"}}}

- code cells are copied unchanged (identical by construction), and one code cell that selects
  the language (``set_language("tr")``) is put first, so every lab speaks the edition's language;
- a markdown cell takes its translation when ``english_sha`` still matches the English cell;
  otherwise the English text stays in place and :func:`translation_status` reports the cell as
  ``missing`` or ``stale`` (the English changed after it was translated);
- Arabic markdown is wrapped in ``<div dir="rtl">`` so that it reads right to left.

:func:`build_editions` rewrites the editions (the ``gastudy editions`` command and ``python3 dev.py
editions`` call it); :func:`update_translation_files` adds an entry for every new or changed
English cell so that a translator sees exactly what to do. Course section: 00.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from gastudy.course.i18n import LANGUAGES, RIGHT_TO_LEFT

EDITIONS = tuple(code for code in LANGUAGES if code != "en")
SET_LANGUAGE_ID = "gastudy-set-language"


def english_sha(source: str) -> str:
    """A short fingerprint of an English cell's text (what a translation was made from)."""
    return hashlib.sha256(source.strip().encode("utf-8")).hexdigest()[:16]


@dataclass
class CellStatus:
    """One markdown cell of one notebook in one edition: ``ok``, ``missing`` or ``stale``."""

    notebook: str
    cell_id: str
    state: str


@dataclass
class EditionReport:
    """What :func:`build_editions` or :func:`translation_status` found for one language."""

    language: str
    notebooks: list[str] = field(default_factory=list)
    cells: list[CellStatus] = field(default_factory=list)
    orphans: list[CellStatus] = field(default_factory=list)

    def count(self, state: str) -> int:
        return sum(c.state == state for c in self.cells)

    @property
    def complete(self) -> bool:
        """True when every markdown cell of every notebook has an up-to-date translation."""
        return all(c.state == "ok" for c in self.cells)

    def summary(self) -> str:
        return (f"{self.language}: {len(self.notebooks)} notebooks, {self.count('ok')} cells translated, "
                f"{self.count('missing')} missing, {self.count('stale')} stale"
                + (f", {len(self.orphans)} translations of cells that no longer exist" if self.orphans else ""))


def _check_language(code: str) -> str:
    if code not in EDITIONS:
        raise ValueError(f"no edition {code!r}: choose one of {', '.join(EDITIONS)} (English is the source)")
    return code


def english_notebooks(notebooks_dir: str | Path = "notebooks") -> list[Path]:
    """The English chapter notebooks (``NN_*.ipynb`` directly in ``notebooks_dir``), in order.

    Raises ``FileNotFoundError`` when ``notebooks_dir`` is not a folder, and ``ValueError`` when it
    holds no chapter notebook (an empty folder, or a folder of something else: nothing to translate)."""
    folder = Path(notebooks_dir)
    if not folder.is_dir():
        what = "is a file, not a folder" if folder.exists() else "does not exist"
        raise FileNotFoundError(f"no notebooks folder at {folder.resolve()} (it {what}): give the folder of the "
                                "English notebooks, or run from the repository root")
    found = sorted(folder.glob("[0-9][0-9]_*.ipynb"))
    if not found:
        raise ValueError(f"{folder.resolve()} holds no chapter notebook (NN_*.ipynb): give the folder of the "
                         "English notebooks (the one with translations/ in it)")
    return found


def translation_file(notebook: Path, code: str, notebooks_dir: str | Path = "notebooks") -> Path:
    return Path(notebooks_dir) / "translations" / code / f"{Path(notebook).stem}.json"


def load_translations(notebook: Path, code: str, notebooks_dir: str | Path = "notebooks") -> dict[str, dict]:
    """The translation entries of one notebook in language ``code`` (empty when there is no file).
    Raises ``ValueError`` naming the file when it is not the expected JSON shape."""
    path = translation_file(notebook, code, notebooks_dir)
    if not path.exists():
        return {}
    shape = "{'cells': {cell_id: {'english_sha': str, 'text': str}}}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        cells = data["cells"]
        if not isinstance(cells, dict) or not all(isinstance(v, dict) for v in cells.values()):
            raise TypeError("'cells' must map cell ids to objects")
        wrong = next((cid for cid, v in cells.items() if not all(isinstance(v.get(k, ""), str)
                                                                  for k in ("english_sha", "text"))), None)
        if wrong is not None:
            raise TypeError(f"cell {wrong!r}: 'english_sha' and 'text' must be strings")
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as err:
        raise ValueError(f"{path} is not a translation file ({shape}): {type(err).__name__}: {err}; fix it, "
                         "or delete it and run `gastudy editions --update-files` for a fresh one") from None
    except OSError as err:
        raise ValueError(f"{path} cannot be read ({err.strerror or err}): fix it or remove it") from None
    return cells


def _set_language_cell(code: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(f'from gastudy.course.i18n import set_language\n\nset_language("{code}")')
    cell["id"] = SET_LANGUAGE_ID
    return cell


def _localize(text: str, code: str) -> str:
    return f'<div dir="rtl" lang="{code}">\n\n{text}\n\n</div>' if code in RIGHT_TO_LEFT else text


def translate_notebook(notebook: Path, code: str, notebooks_dir: str | Path = "notebooks"
                       ) -> tuple[nbformat.NotebookNode, list[CellStatus], list[CellStatus]]:
    """One English notebook in language ``code``: (the notebook, status per markdown cell,
    translations whose cell no longer exists). Raises ``ValueError`` for a cell without an id."""
    english = _read_english(notebook)
    entries = load_translations(notebook, code, notebooks_dir)
    out = copy.deepcopy(english)
    out.metadata["language"] = code
    statuses, seen = [], set()
    for cell in out.cells:
        cid = cell.get("id")
        if not cid:
            raise ValueError(f"{notebook.name}: a cell has no id; translations are keyed by cell ids")
        if cell.cell_type != "markdown":
            continue
        seen.add(cid)
        entry = entries.get(cid)
        if not entry or not entry.get("text"):
            state = "missing"
        elif entry.get("english_sha") != english_sha(cell.source):
            state = "stale"
        else:
            state = "ok"
            cell.source = _localize(entry["text"], code)
        statuses.append(CellStatus(notebook.name, cid, state))
    out.cells.insert(0, _set_language_cell(code))
    orphans = [CellStatus(notebook.name, cid, "orphan") for cid in entries if cid not in seen]
    return out, statuses, orphans


def _read_english(notebook: Path) -> nbformat.NotebookNode:
    """An English notebook; ``ValueError`` for one that is not a notebook or is a generated edition."""
    try:
        english = nbformat.read(str(notebook), as_version=4)
    except Exception as err:  # noqa: BLE001 - nbformat raises many kinds for a damaged file
        raise ValueError(f"{notebook} is not a readable notebook ({type(err).__name__}: {err})") from None
    first = english.cells[0].get("id") if english.cells else None
    if english.metadata.get("language") in EDITIONS or first == SET_LANGUAGE_ID:
        raise ValueError(f"{notebook} is a generated edition, not an English notebook: give the folder of the "
                         f"English notebooks ({notebook.parent.parent}, not {notebook.parent})")
    return english


def translation_status(code: str, notebooks_dir: str | Path = "notebooks") -> EditionReport:
    """Which markdown cells of language ``code`` are translated, missing or stale (nothing written)."""
    report = EditionReport(_check_language(code))
    for notebook in english_notebooks(notebooks_dir):
        _, statuses, orphans = translate_notebook(notebook, code, notebooks_dir)
        report.notebooks.append(notebook.name)
        report.cells += statuses
        report.orphans += orphans
    return report


def build_editions(languages: tuple[str, ...] = EDITIONS, notebooks_dir: str | Path = "notebooks",
                   out_dir: str | Path | None = None) -> list[EditionReport]:
    """Write ``<out_dir or notebooks_dir>/<lang>/NN_*.ipynb`` for each language; returns a report
    per language. Only notebooks with at least one translated cell are written (a chapter nobody
    has translated yet is not published as an English copy); untranslated cells keep English."""
    languages = tuple(dict.fromkeys(_check_language(code) for code in languages))
    notebooks = english_notebooks(notebooks_dir)
    # every notebook of every language is translated (and every translation file read) before one
    # file is written: a broken translation file changes nothing
    built = {code: [(notebook, *translate_notebook(notebook, code, notebooks_dir)) for notebook in notebooks]
             for code in languages}
    reports = []
    for code in languages:
        report = EditionReport(code)
        target = Path(out_dir or notebooks_dir) / code
        for notebook, nb, statuses, orphans in built[code]:
            report.cells += statuses
            report.orphans += orphans
            path = target / notebook.name
            if any(s.state == "ok" for s in statuses):
                target.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, str(path))
                report.notebooks.append(notebook.name)
            elif path.exists():
                path.unlink()
        reports.append(report)
    return reports


def update_translation_files(code: str, notebooks_dir: str | Path = "notebooks") -> EditionReport:
    """Add, for every markdown cell that is missing or stale in language ``code``, an entry with the
    current ``english_sha``, the English text under ``"english"`` and an empty ``"text"`` (a stale
    entry keeps its old text under ``"previous"``), so a translator sees exactly what to do.
    Entries of deleted cells are dropped. Returns the status before the update."""
    report = translation_status(code, notebooks_dir)
    for notebook in english_notebooks(notebooks_dir):
        english = _read_english(notebook)
        entries = load_translations(notebook, code, notebooks_dir)
        cells = {}
        for cell in english.cells:
            if cell.cell_type != "markdown":
                continue
            sha, entry = english_sha(cell.source), entries.get(cell["id"], {})
            if entry.get("english_sha") == sha and entry.get("text"):
                cells[cell["id"]] = {"english_sha": sha, "text": entry["text"]}
            else:
                cells[cell["id"]] = {"english_sha": sha, "english": cell.source, "text": "",
                                     **({"previous": entry["text"]} if entry.get("text") else {})}
        path = translation_file(notebook, code, notebooks_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"notebook": notebook.name, "language": code, "cells": cells},
                                   ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return report

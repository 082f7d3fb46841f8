"""The Turkish, Spanish and Arabic editions of the course, generated from the English notebooks.

Single source: the English notebooks in ``notebooks/`` are the only place where code is written.
Each edition ``notebooks/<lang>/`` is *generated* from them plus the language's gettext catalog of
the notebooks' markdown, ``notebooks/translations/<lang>/notebooks.po``: one entry per markdown
cell, ``msgctxt`` the cell's stable id, ``msgid`` its English text, the notebook as location::

    #: 03_loss_normalization.ipynb
    msgctxt "nb03-00"
    msgid "# 03 · Loss normalization …"
    msgstr "# 03 · Kayıp normalleştirmesi …"

- code cells are copied unchanged but for their comments (identical once comments are removed),
  and one code cell that selects the language (``set_language("tr")``) is put first, so every lab
  speaks the edition's language; each distinct comment text of a code cell is an entry of the same
  catalog (``msgctxt`` the cell id and ``#comment``, ``msgid`` the text after ``# ``,
  :mod:`gastudy.course.i18n.comments`), put in place of the English text when translated, every
  token of code untouched; a comment without a usable translation stays English and counts as
  ``missing`` or ``stale`` like a markdown cell;
- a markdown cell takes its translation when the catalog has a translated entry for the cell's
  current English text that is not marked fuzzy; otherwise the English text stays in place and
  :func:`translation_status` reports the cell as ``missing`` or ``stale`` (fuzzy, or translated
  from an English text that has changed since);
- a menu path quoted in a translation (``*Run ▸ Run All Above Selected Cell*``, in English there)
  is written as JupyterLab's installed language pack shows it, with a note where the pack's label
  misleads (:mod:`gastudy.course.i18n.menus`);
- Arabic markdown is wrapped in ``<div dir="rtl">`` so that it reads right to left, and what is
  written left to right inside it is isolated (:func:`isolate_left_to_right`): code blocks and
  diagrams, inline code, formulas and signed numbers keep their order;
- the instructors' guide (``WORKSHOP.md``) is translated the same way, block by block
  (:func:`guide_blocks`), into ``notebooks/<lang>/WORKSHOP.md``;
- a link to a Hugging Face guide points to the page in the edition's language where one exists
  (:mod:`gastudy.course.i18n.reading`).

:func:`build_editions` rewrites the editions (the ``gastudy editions`` command and ``python3 dev.py
editions`` call it); :func:`update_translation_files` merges the template of the English cells
(``notebooks/translations/notebooks.pot``) into a catalog, so that a translator sees exactly what
to do: a new cell is an empty entry, a changed one keeps its old translation marked fuzzy.
Course section: 00.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog

from gastudy.course import i18n
from gastudy.course.i18n import LANGUAGES, RIGHT_TO_LEFT, comments
from gastudy.course.i18n.catalogs import merge, new_catalog, read_catalog, usable, write_catalog
from gastudy.course.i18n.menus import localize_menus
from gastudy.course.i18n.reading import localize_links

EDITIONS = tuple(code for code in LANGUAGES if code != "en")
SET_LANGUAGE_ID = "gastudy-set-language"


@dataclass
class CellStatus:
    """One translatable unit of one notebook (or guide) in one edition: ``ok``, ``missing`` or
    ``stale``. ``kind`` is ``"markdown"`` (a markdown cell, or a block of a guide) or ``"comment"``
    (one distinct comment text of a code cell: ``cell_id`` is then its ``msgctxt``, ``text`` the
    English comment)."""

    notebook: str
    cell_id: str
    state: str
    kind: str = "markdown"
    text: str = ""


@dataclass
class EditionReport:
    """What :func:`build_editions` or :func:`translation_status` found for one language.

    ``sentences`` counts the entries of the language's course catalog (the labs' sentences) as
    ``translated`` / ``missing`` (empty) / ``stale`` (fuzzy) when the report is about the course's
    own notebooks folder, and is ``None`` otherwise."""

    language: str
    notebooks: list[str] = field(default_factory=list)
    cells: list[CellStatus] = field(default_factory=list)
    orphans: list[CellStatus] = field(default_factory=list)
    sentences: dict[str, int] | None = None

    def count(self, state: str, kind: str | None = None) -> int:
        """How many units are in ``state`` (only those of ``kind`` when given)."""
        return sum(c.state == state and kind in (None, c.kind) for c in self.cells)

    @property
    def complete(self) -> bool:
        """True when every markdown cell and code comment of every notebook has an up-to-date
        translation, and so has every sentence of the labs when they are counted."""
        sentences = self.sentences or {}
        return all(c.state == "ok" for c in self.cells) and not sentences.get("missing") and not sentences.get("stale")

    def summary(self) -> str:
        """One line; a second one about the labs' sentences when some are missing or stale."""
        line = (f"{self.language}: {len(self.notebooks)} notebooks, {self.count('ok', 'markdown')} cells translated, "
                f"{self.count('missing', 'markdown')} missing, {self.count('stale', 'markdown')} stale"
                + (f", {len(self.orphans)} translations of cells that no longer exist" if self.orphans else ""))
        if any(c.kind == "comment" for c in self.cells):
            line += (f"; code comments: {self.count('ok', 'comment')} translated, "
                     f"{self.count('missing', 'comment')} missing, {self.count('stale', 'comment')} stale")
        s = self.sentences
        if s and (s["missing"] or s["stale"]):
            line += (f"\n{self.language}: lab sentences: {s['translated']} translated, {s['missing']} missing, "
                     f"{s['stale']} stale ({i18n.catalog_path(self.language)})")
        return line


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


def catalog_file(code: str, notebooks_dir: str | Path = "notebooks") -> Path:
    """The catalog of language ``code``'s markdown: ``<notebooks_dir>/translations/<code>/notebooks.po``."""
    return Path(notebooks_dir) / "translations" / code / "notebooks.po"


def template_path(notebooks_dir: str | Path = "notebooks") -> Path:
    """The template of the markdown catalogs: ``<notebooks_dir>/translations/notebooks.pot``."""
    return Path(notebooks_dir) / "translations" / "notebooks.pot"


def load_catalog(code: str, notebooks_dir: str | Path = "notebooks") -> Catalog:
    """Language ``code``'s markdown catalog (empty when there is no file). Raises ``ValueError``
    naming the file when it is not a readable gettext catalog."""
    return read_catalog(catalog_file(code, notebooks_dir), code)


def template(notebooks_dir: str | Path = "notebooks") -> Catalog:
    """The template of the markdown catalogs: every markdown cell of the English notebooks that is
    not empty, in order (``msgctxt`` the cell id, ``msgid`` its text without leading and trailing
    blanks, the notebook as location), and after each code cell's place the distinct texts of its
    comments (``msgctxt`` :func:`gastudy.course.i18n.comments.context`, the line of code as an
    extracted comment for the translator), then the guides' blocks."""
    pot = new_catalog("notebooks", None)
    for notebook in english_notebooks(notebooks_dir):
        for cell in _read_english(notebook).cells:
            if cell.cell_type == "markdown" and cell.source.strip():
                pot.add(cell.source.strip(), context=cell["id"], locations=[(notebook.name, None)])
            elif cell.cell_type == "code":
                lines, first = cell.source.split("\n"), {}
                for found in comments.comments(cell.source):
                    first.setdefault(found.text, found)
                for found in first.values():
                    pot.add(found.text, context=comments.context(cell["id"]), locations=[(notebook.name, None)],
                            auto_comments=[f"code: {lines[found.line - 1].strip()}"])
    for guide in english_guides(notebooks_dir):
        for context, block in guide_blocks(guide.read_text(encoding="utf-8"), guide.name):
            if context is not None:
                pot.add(block, context=context, locations=[(guide.name, None)])
    return pot


GUIDES = ("WORKSHOP.md",)
"""The instructors' guides beside the notebooks, translated block by block like a notebook's cells."""

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def english_guides(notebooks_dir: str | Path = "notebooks") -> list[Path]:
    """The guides of :data:`GUIDES` that exist in ``notebooks_dir``."""
    return [Path(notebooks_dir) / name for name in GUIDES if (Path(notebooks_dir) / name).is_file()]


def guide_blocks(text: str, name: str) -> list[tuple[str | None, str]]:
    """A Markdown guide cut into blocks (paragraphs, lists, tables, headings, fenced code):
    ``(context, block)`` in order. A block is what lies between blank lines, a fenced block whole.
    ``context`` is ``"<name> <heading> ¶<n>"`` — the heading the block is under and its place
    there — so that a block added to one section leaves the others' entries where they are;
    ``None`` for fenced code, which is copied, not translated."""
    blocks: list[str] = []
    current: list[str] = []
    fence = None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is None and opened and not current:
            fence = opened.group(2)
        elif fence is not None and line.strip().startswith(fence):
            current.append(line)
            blocks.append("\n".join(current))
            current, fence = [], None
            continue
        if fence is None and not line.strip():
            if current:
                blocks.append("\n".join(current))
            current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    out: list[tuple[str | None, str]] = []
    heading, count = "", 0
    for block in blocks:
        if _FENCE.match(block):
            out.append((None, block))
            continue
        found = _HEADING.match(block)
        if found and "\n" not in block:
            heading, count = found.group(2).strip(), 0
        out.append((f"{name} {heading} ¶{count}", block))
        count += 1
    return out


def translate_guide(guide: Path, code: str, catalog: Catalog, menus: bool = True) -> tuple[str, list[CellStatus]]:
    """The guide ``guide`` in language ``code``: (its text, status per translatable block); a
    block without a usable translation stays in English, fenced code is copied; menu paths of the
    translated blocks as in :func:`translate_notebook`."""
    texts, statuses = [], []
    contexts_with_text = {m.context for m in catalog if m.id and m.string}
    for context, block in guide_blocks(guide.read_text(encoding="utf-8"), guide.name):
        if context is None:
            texts.append(block)
            continue
        entry = catalog.get(block, context=context)
        if entry is not None and usable(entry):
            texts.append(localize_menus(entry.string, code) if menus else entry.string)
            state = "ok"
        else:
            texts.append(block)
            state = "stale" if context in contexts_with_text else "missing"
        statuses.append(CellStatus(guide.name, context, state))
    return _localize("\n\n".join(texts), code, menus=False) + "\n", statuses


def _set_language_cell(code: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(f'from gastudy.course.i18n import set_language\n\nset_language("{code}")')
    cell["id"] = SET_LANGUAGE_ID
    return cell


def _localize(text: str, code: str, menus: bool = True) -> str:
    text = localize_links(text, code)
    if menus:
        text = localize_menus(text, code)
    if code not in RIGHT_TO_LEFT:
        return text
    return f'<div dir="rtl" lang="{code}">\n\n{isolate_left_to_right(text)}\n\n</div>'


LTR = '<bdi dir="ltr">'
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})")
_LINE_START = re.compile(r"^(?:\s*(?:[-*+]|\d+[.)])\s+|\s*#{1,6}\s+|\s*>\s*)*")
_INLINE = re.compile(r"(?P<code>(?P<ticks>`+).+?(?P=ticks))|!\[[^\]]*\]\([^)]*\)|<[^<>\n]+>|\]\([^)\s]*\)|https?://\S+")
_RUN_CHARS = r"A-Za-z0-9_.,:(){}+\-−×·/=<>≈≤≥…Σ∇√%^*'‖÷±₀-₉⁰-⁹²³¹"
_RUN = re.compile(rf"[{_RUN_CHARS}](?:[{_RUN_CHARS} ]*[{_RUN_CHARS}])?")
_OPERATOR = re.compile(r"[+\-−×·/=<>≈≤≥…Σ∇√‖÷±]")
_NUMBER_FIRST = re.compile(r"[^A-Za-z0-9]*[0-9][^A-Za-z%]*[A-Za-z%]")  # 5.x, 5 %, 96 MiB: a number, then more


def isolate_left_to_right(markdown: str) -> str:
    """``markdown`` (a right-to-left cell) with what must read left to right isolated, so that the
    Unicode bidirectional algorithm cannot reorder it: a fenced block (code, a derivation, a
    diagram) goes in ``<div dir="ltr">``; an inline code span, and a run of Latin letters, digits
    and operators that holds an operator (``(512·2 + 1536·4) / 2048 = 3.5``, ``-100``,
    ``m × A``) or starts with a number followed by a letter or a percent sign (``(5.x)``, ``5 %``,
    ``96 MiB``), in ``<bdi dir="ltr">``; an operator that a blank parts from the run at its edge
    (``÷ A`` after an Arabic word) and a bracket the run does not close or open stay the
    sentence's, as in :func:`gastudy.course.i18n.bidi.isolate_runs` (the rule for the labs'
    sentences). List markers, headings, links' targets, images and HTML
    tags are left as they are; so is a run whose emphasis markers (``*``) would be cut."""
    out, fence = [], None
    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(2)[0] * len(opening.group(2))
            out += [f'{opening.group(1)}<div dir="ltr">', "", line]
        elif fence is not None:
            out.append(line)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                out += ["", f"{_FENCE.match(line).group(1)}</div>"]
                fence = None
        else:
            out.append(_isolate_line(line))
    return "\n".join(out)


def _isolate_line(line: str) -> str:
    start = _LINE_START.match(line).end()
    parts, at = [line[:start]], start
    for match in _INLINE.finditer(line, start):
        parts.append(_isolate_runs(line[at:match.start()]))
        parts.append(f"{LTR}{match.group()}</bdi>" if match.group("code") else match.group())
        at = match.end()
    parts.append(_isolate_runs(line[at:]))
    return "".join(parts)


def _lone_brackets(run: str) -> list[int]:
    """Positions of the round brackets of ``run`` that close nothing or are never closed."""
    stack: list[int] = []
    lone: list[int] = []
    for i, ch in enumerate(run):
        if ch == "(":
            stack.append(i)
        elif ch == ")":
            if stack:
                stack.pop()
            else:
                lone.append(i)
    return sorted(lone + stack)


def _isolate_runs(text: str) -> str:
    def wrap(match: re.Match) -> str:
        run = match.group()
        lone = _lone_brackets(run)
        if lone:  # 32 × 1) ÷ (…: those brackets are the sentence's, the run is cut there
            pieces, at = [], 0
            for cut in lone:
                pieces += [_RUN.sub(wrap, run[at:cut]), run[cut]]
                at = cut + 1
            return "".join(pieces) + _RUN.sub(wrap, run[at:])
        start, end = 0, len(run)
        while True:  # give back to the sentence what is the sentence's
            core = run[start:end]
            unbalanced = core.count("(") != core.count(")")
            if core[:1] in (".", ",", ":", " ") or (unbalanced and core[:1] in ("(", ")")) or (
                    _OPERATOR.fullmatch(core[:1]) and core[1:2] == " "):
                start += 1
            elif core[-1:] in (".", ",", ":", " ") or (unbalanced and core[-1:] in ("(", ")")) or (
                    _OPERATOR.fullmatch(core[-1:]) and core[-2:-1] == " "):
                end -= 1
            elif len(re.findall(r"\*+", core)) % 2 and (edge := re.match(r"\*+", core) or re.search(r"\*+$", core)):
                # half of an emphasis: the stars at the edge go back to the sentence
                start, end = (start + edge.end(), end) if edge.start() == 0 else (start, start + edge.start())
            else:
                break
        if not (core and re.search(r"[A-Za-z0-9]", core) and (_OPERATOR.search(core) or _NUMBER_FIRST.match(core))):
            return run
        return f"{run[:start]}{LTR}{core}</bdi>{run[end:]}"

    return _RUN.sub(wrap, text)


def translate_notebook(notebook: Path, code: str, catalog: Catalog,
                       menus: bool = True) -> tuple[nbformat.NotebookNode, list[CellStatus]]:
    """One English notebook in language ``code``, its markdown and code comments from ``catalog``:
    (the notebook, status per markdown cell and per distinct comment text of each code cell). A
    translated cell's menu paths are written as the installed language pack shows them unless
    ``menus`` is false (:func:`gastudy.course.i18n.menus.localize_menus`, which raises
    :class:`gastudy.course.i18n.menus.MissingPack` without the pack). Raises ``ValueError`` for a
    cell without an id."""
    english = _read_english(notebook)
    by_cell: dict[str, list] = {}
    for message in catalog:
        if message.id and message.context:
            by_cell.setdefault(message.context, []).append(message)
    out = copy.deepcopy(english)
    out.metadata["language"] = code
    statuses = []
    for cell in out.cells:
        cid = cell.get("id")
        if not cid:
            raise ValueError(f"{notebook.name}: a cell has no id; translations are keyed by cell ids")
        if cell.cell_type == "code":
            statuses += _translate_comments(cell, notebook.name, catalog, by_cell)
            continue
        if cell.cell_type != "markdown" or not cell.source.strip():
            continue  # an empty cell has nothing to translate
        entry = catalog.get(cell.source.strip(), context=cid)
        if entry is not None and usable(entry):
            state = "ok"
            cell.source = _localize(entry.string, code, menus)
        elif any(m.string for m in by_cell.get(cid, ())):  # fuzzy, or made from an older English text
            state = "stale"
        else:
            state = "missing"
        statuses.append(CellStatus(notebook.name, cid, state))
    out.cells.insert(0, _set_language_cell(code))
    return out, statuses


def _translate_comments(cell: nbformat.NotebookNode, name: str, catalog: Catalog,
                        by_cell: dict[str, list]) -> list[CellStatus]:
    """Put the translated comments of code ``cell`` in place (its code untouched); a status per
    distinct comment text: ``ok``; ``stale`` when its entry is fuzzy (or cannot be a comment: a
    line break) or the cell has a translated comment whose English text is gone; else ``missing``."""
    context = comments.context(cell["id"])
    texts = comments.texts(cell.source)
    old = [m for m in by_cell.get(context, ()) if m.string and m.id not in texts]
    translations, statuses = {}, []
    for text in texts:
        entry = catalog.get(text, context=context)
        if entry is not None and usable(entry) and comments.usable_text(entry.string):
            translations[text], state = entry.string, "ok"
        else:
            state = "stale" if (entry is not None and entry.string) or old else "missing"
        statuses.append(CellStatus(name, context, state, kind="comment", text=text))
    if translations:
        cell.source = comments.put_comments(cell.source, translations.get)
    return statuses


def _orphans(catalog: Catalog, cells: list[CellStatus]) -> list[CellStatus]:
    """Entries of ``catalog`` whose cell is none of the markdown ``cells`` any more."""
    ids = {c.cell_id for c in cells}
    return [CellStatus(next((name for name, _ in m.locations), "?"), m.context, "orphan")
            for m in catalog if m.id and m.context not in ids]


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


def _is_course(notebooks_dir: str | Path) -> bool:
    """True for the course's own notebooks folder (the one whose code cells hold lab sentences)."""
    return Path(notebooks_dir).resolve() == (i18n.REPOSITORY / "notebooks").resolve()


def _sentences(code: str) -> dict[str, int]:
    entries = [m for m in i18n.catalog(code) if m.id]
    stale = sum(m.fuzzy for m in entries)
    translated = sum(usable(m) for m in entries)
    return {"translated": translated, "missing": len(entries) - translated - stale, "stale": stale}


def translation_status(code: str, notebooks_dir: str | Path = "notebooks") -> EditionReport:
    """Which markdown cells of language ``code`` are translated, missing or stale, and, for the
    course's own notebooks, how many lab sentences are (nothing written)."""
    report = EditionReport(_check_language(code))
    catalog = load_catalog(code, notebooks_dir)
    for notebook in english_notebooks(notebooks_dir):
        _, statuses = translate_notebook(notebook, code, catalog, menus=False)
        report.notebooks.append(notebook.name)
        report.cells += statuses
    for guide in english_guides(notebooks_dir):
        report.cells += translate_guide(guide, code, catalog, menus=False)[1]
    report.orphans = _orphans(catalog, report.cells)
    if _is_course(notebooks_dir):
        report.sentences = _sentences(code)
    return report


def build_editions(languages: tuple[str, ...] = EDITIONS, notebooks_dir: str | Path = "notebooks",
                   out_dir: str | Path | None = None) -> list[EditionReport]:
    """Write ``<out_dir or notebooks_dir>/<lang>/NN_*.ipynb`` for each language; returns a report
    per language. Only notebooks with at least one translated cell are written (a chapter nobody
    has translated yet is not published as an English copy); untranslated cells keep English."""
    languages = tuple(dict.fromkeys(_check_language(code) for code in languages))
    notebooks = english_notebooks(notebooks_dir)
    # every notebook of every language is translated (and every catalog read) before one file is
    # written: a broken catalog changes nothing
    catalogs = {code: load_catalog(code, notebooks_dir) for code in languages}
    built = {code: [(notebook, *translate_notebook(notebook, code, catalogs[code])) for notebook in notebooks]
             for code in languages}
    guides = {code: [(guide, *translate_guide(guide, code, catalogs[code])) for guide in english_guides(notebooks_dir)]
              for code in languages}
    reports = []
    for code in languages:
        report = EditionReport(code)
        target = Path(out_dir or notebooks_dir) / code
        for notebook, nb, statuses in built[code]:
            report.cells += statuses
            path = target / notebook.name
            if any(s.state == "ok" and s.kind == "markdown" for s in statuses):
                target.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, str(path))
                report.notebooks.append(notebook.name)
            elif path.exists():
                path.unlink()
        for guide, text, statuses in guides[code]:
            report.cells += statuses
            path = target / guide.name
            if any(s.state == "ok" for s in statuses):
                target.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
            elif path.exists():
                path.unlink()
        report.orphans = _orphans(catalogs[code], report.cells)
        reports.append(report)
    return reports


def update_translation_files(code: str, notebooks_dir: str | Path = "notebooks") -> EditionReport:
    """Write the template of the English cells (``translations/notebooks.pot``) and merge it into
    language ``code``'s markdown catalog: a new cell gets an empty entry, a changed cell keeps its
    old translation marked fuzzy, entries of deleted cells are dropped (:func:`gastudy.course.i18n.catalogs.merge`, matching cells by id).
    For the course's own notebooks the labs' catalog is merged too
    (:func:`gastudy.course.i18n.update_catalogs`). Returns the status before the update."""
    report = translation_status(code, notebooks_dir)
    pot = template(notebooks_dir)
    catalog = load_catalog(code, notebooks_dir)
    merge(catalog, pot, by_context=True)
    write_catalog(template_path(notebooks_dir), pot)
    write_catalog(catalog_file(code, notebooks_dir), catalog)
    if _is_course(notebooks_dir):
        i18n.update_catalogs([code])
    return report

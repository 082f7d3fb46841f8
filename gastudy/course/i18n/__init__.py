"""The course in four languages: one switch, one string table per language, one glossary.

English is the source and the default. Every user-visible string of the labs (titles, control
labels, plot titles and axes, table headers, verdicts, check messages, exercise feedback) is
written in English in the code and passed through :func:`t`::

    from gastudy.course.i18n import t
    title = t("Effective batch per update")
    note = t("{n} microbatches per update", n=4)

:func:`t` looks the English text up in the table of the current language
(:func:`set_language`) and falls back to the English text when a table has no entry, so a
missing translation never breaks a lab; :func:`missing_translations` lists every such gap and a
test keeps the list empty. The English text is the key: the code stays readable and a changed
English string shows up as a missing translation instead of silently keeping a stale one.

The terms the course uses (microbatch, group, update, replica, …) have one chosen rendering per
language in :mod:`gastudy.course.i18n.terms`; translations use those renderings. Course section:
00 (how the course works).
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import warnings
from collections.abc import Iterable
from pathlib import Path

LANGUAGES: dict[str, str] = {"en": "English", "tr": "Türkçe", "es": "Español", "ar": "العربية"}
"""Language codes the course is edited in, with each language's own name."""

RIGHT_TO_LEFT = frozenset({"ar"})

_tables: dict[str, dict[str, str]] = {}


def _check_code(code: str) -> str:
    if not isinstance(code, str) or code.strip().lower() not in LANGUAGES:
        choices = ", ".join(f"{c!r} ({name})" for c, name in LANGUAGES.items())
        raise ValueError(f"unknown course language {code!r}: choose one of {choices}")
    return code.strip().lower()


def _from_environment() -> str:
    """The language ``GASTUDY_LANG`` names, read as :func:`set_language` reads a code (``" TR "`` is
    ``"tr"``); English when it is unset or empty, and English with a warning naming the variable
    and the choices when it names no course language (importing the course never fails for it)."""
    value = os.environ.get("GASTUDY_LANG", "")
    if not value.strip():
        return "en"
    try:
        return _check_code(value)
    except ValueError as err:
        warnings.warn(f"GASTUDY_LANG: {err}; the course stays in English", stacklevel=2)
        return "en"


_current = _from_environment()


def set_language(code: str) -> str:
    """Switch every lab built from now on to language ``code`` (``"en"``, ``"tr"``, ``"es"``,
    ``"ar"``); returns the code. Labs already on screen keep their language until rebuilt.

    Raises ``ValueError`` naming the choices for an unknown code (and changes nothing).
    """
    global _current
    _current = _check_code(code)
    return _current


def language() -> str:
    """The code of the current course language (``"en"`` unless :func:`set_language` changed it
    or the ``GASTUDY_LANG`` environment variable named another supported language)."""
    return _current


def is_rtl(code: str | None = None) -> bool:
    """True when ``code`` (default: the current language; read as :func:`set_language` reads it,
    ``"AR"`` is ``"ar"``) is written right to left."""
    return (code.strip().lower() if isinstance(code, str) and code.strip() else _current) in RIGHT_TO_LEFT


def direction(code: str | None = None) -> str:
    """``"rtl"`` or ``"ltr"``, for the HTML ``dir`` attribute of text in ``code``."""
    return "rtl" if is_rtl(code) else "ltr"


def table(code: str) -> dict[str, str]:
    """The string table of language ``code``: English text → translation (empty for English)."""
    code = _check_code(code)
    if code == "en":
        return {}
    if code not in _tables:
        merged: dict[str, str] = {}
        for name in table_modules(code):
            part = importlib.import_module(f"gastudy.course.i18n.{name}").STRINGS
            clash = sorted(set(part) & set(merged))
            if clash:
                raise ValueError(f"string table {name} repeats {len(clash)} English text(s) already "
                                 f"translated in another strings_{code}*.py module, e.g. {clash[0]!r}: "
                                 "keep each text in one module")
            merged.update(part)
        _tables[code] = merged
    return _tables[code]


def table_modules(code: str) -> list[str]:
    """Names of the modules that together hold language ``code``'s table: ``strings_<code>`` and
    any ``strings_<code>_<part>`` beside it (one part per group of chapters), in name order.
    An English text may appear in only one of them."""
    code = _check_code(code)
    here = Path(__file__).resolve().parent
    return sorted(p.stem for p in here.glob(f"strings_{code}*.py")
                  if p.stem == f"strings_{code}" or p.stem.startswith(f"strings_{code}_"))


def t(english: str, /, **fields: object) -> str:
    """``english`` in the current language, with ``{name}`` fields filled from ``fields``.

    Falls back to the English text when the current language has no entry for it, and when its
    entry cannot be filled (a stray ``{`` or a renamed field: the lab still shows the sentence, in
    English). Numbers are formatted by the caller (the course keeps Latin digits in every language).
    Raises ``ValueError`` naming the text when the English text itself cannot be filled from
    ``fields`` (a field it names was not passed, or a brace is unbalanced).
    """
    text = table(_current).get(english, english) if _current != "en" else english
    if not fields:
        return text
    for candidate in dict.fromkeys((text, english)):  # the translation, then the English text
        try:
            return candidate.format(**fields)
        except (KeyError, IndexError, ValueError, AttributeError) as err:
            problem = err
    raise ValueError(f"t({english!r}) cannot be filled from the fields {sorted(fields)}: "
                     f"{type(problem).__name__}: {problem}; pass every {{field}} the text names") from None


def strings_in(paths: Iterable[Path]) -> dict[str, list[str]]:
    """Every literal passed to :func:`t` in the Python files ``paths``: text → ``file:line`` list.

    Only calls spelled ``t("…")`` with a literal first argument count; a non-literal first
    argument is reported by :func:`untranslatable_calls`.
    """
    found: dict[str, list[str]] = {}
    for where, tree in _trees(paths):
        for node in ast.walk(tree):
            if _is_t_call(node) and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.setdefault(node.args[0].value, []).append(f"{where}:{node.lineno}")
    return found


def _trees(paths: Iterable[Path]) -> Iterable[tuple[str, ast.AST]]:
    """(name, syntax tree) of each Python file, and of each code cell of each ``.ipynb`` notebook
    (named ``notebook[cell id]``; IPython's ``%magic`` and ``!shell`` lines are skipped)."""
    for path in map(Path, paths):
        text = path.read_text(encoding="utf-8")
        if path.suffix != ".ipynb":
            yield path.name, ast.parse(text)
            continue
        for cell in json.loads(text)["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                lines = ["pass" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.split("\n")]
                yield f"{path.name}[{cell.get('id', '?')}]", ast.parse("\n".join(lines))


def untranslatable_calls(paths: Iterable[Path]) -> list[str]:
    """``file:line`` of every ``t(...)`` call whose first argument is not a string literal: such a
    text cannot be found by :func:`missing_translations` and would silently stay English."""
    bad = []
    for where, tree in _trees(paths):
        for node in ast.walk(tree):
            if _is_t_call(node) and not (isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                bad.append(f"{where}:{node.lineno}")
    return bad


def bare_sentences(paths: Iterable[Path]) -> list[str]:
    """``file:line`` of every sentence a learner would read in English whatever the language:
    a check claim (``check(cond, "…")``, ``check_close(a, b, "…")``) or a ``print`` argument that
    is a string literal or f-string with words in it, instead of a ``t("…")`` call. Code cells of
    the notebooks are meant to stay identical in every edition, so their sentences go through
    :func:`t` (a printed identifier such as ``"input_ids:"`` is allowed: it has no translation)."""
    bad = []
    for where, tree in _trees(paths):
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            args = {"check": node.args[1:3], "check_close": node.args[2:3], "print": node.args}.get(node.func.id, [])
            args = [*args, *(k.value for k in node.keywords if k.arg in ("claim", "detail"))]
            for arg in args:
                if _words(arg):
                    bad.append(f"{where}:{arg.lineno}")
    return bad


def _words(node: ast.AST) -> bool:
    """True for a string literal / f-string whose fixed text holds a phrase: two words or more
    (``"input_ids:"`` or ``"TrainingArguments fields:"`` are labels, not phrases)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
    elif isinstance(node, ast.JoinedStr):
        text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant))
    else:
        return False
    words = [w for w in text.split() if re.fullmatch(r"[^\W\d_][^\W\d_A-Z]+[:,.;!?]?", w)]
    return len(words) >= 2  # identifiers (snake_case, CamelCase, dotted) are not words


def _is_t_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t"
            and len(node.args) >= 1)


def course_sources() -> list[Path]:
    """What the course's translated strings are read from: the Python files of the course layer
    and the code cells of the English notebooks (their check claims and printed sentences are
    ``t("…")`` calls too), when the ``notebooks/`` folder is beside the package."""
    root = Path(__file__).resolve().parent.parent
    code = sorted(p for p in root.rglob("*.py") if "i18n" not in p.parts and "solutions" not in p.parts)
    return code + sorted((root.parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def missing_translations(code: str, paths: Iterable[Path] | None = None) -> dict[str, list[str]]:
    """English texts used with :func:`t` in ``paths`` (default: the course layer) that language
    ``code`` has no translation for, each with where it is used. Empty for English."""
    code = _check_code(code)
    if code == "en":
        return {}
    have = table(code)
    return {s: where for s, where in strings_in(paths or course_sources()).items() if s not in have}


def unused_translations(code: str, paths: Iterable[Path] | None = None) -> list[str]:
    """Entries of language ``code``'s table that no :func:`t` call uses any more (usually an
    English text that was edited: its translation must be redone under the new key)."""
    used = strings_in(paths or course_sources())
    return sorted(s for s in table(code) if s not in used)


__all__ = ["LANGUAGES", "RIGHT_TO_LEFT", "set_language", "language", "is_rtl", "direction", "t",
           "table", "table_modules", "missing_translations", "unused_translations", "strings_in", "untranslatable_calls",
           "bare_sentences", "course_sources"]

"""The course in four languages: one switch, gettext catalogs, one glossary.

English is the source and the default. Every user-visible string of the labs (titles, control
labels, plot titles and axes, table headers, verdicts, check messages, exercise feedback) is
written in English in the code and passed through :func:`t` (or :func:`tn` when it counts)::

    from gastudy.course.i18n import t, tn
    title = t("Effective batch per update")
    note = t("{n} microbatches per update", n=4)
    rows = tn("{n} row", "{n} rows", 12)          # Arabic has six forms, Turkish two
    short = t("Mean", context="table header")     # one English label, two translations

:func:`t` looks the English text up in the current language's gettext catalog
(``locale/<lang>/LC_MESSAGES/course.po``, see :mod:`gastudy.course.i18n.catalogs`) and falls back
to the English text when the catalog has no usable entry for it (none, an empty one, or one
marked fuzzy because its English text changed), so a missing translation never breaks a lab;
:func:`missing_translations` lists every such gap and a test keeps the list empty. The English
text is the key: the code stays readable and a changed English string shows up as a missing
translation instead of silently keeping a stale one. :func:`template` is the catalogs' template,
read from the code; :func:`update_catalogs` merges it into every catalog.

The terms the course uses (microbatch, group, update, replica, …) have one chosen rendering per
language in :mod:`gastudy.course.i18n.terms`; a test holds every catalog to them. Course
section: 00 (how the course works).
"""

from __future__ import annotations

import ast
import contextlib
import json
import numbers
import operator
import os
import re
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from gastudy.course.i18n.bidi import isolate, isolate_printed, isolate_runs, right_to_left

if TYPE_CHECKING:  # Babel is read only when a language other than English is used
    import gettext

    from babel.messages.catalog import Catalog

LANGUAGES: dict[str, str] = {"en": "English", "tr": "Türkçe", "es": "Español", "ar": "العربية"}
"""Language codes the course is edited in, with each language's own name."""

RIGHT_TO_LEFT = frozenset({"ar"})

LOCALE = Path(__file__).resolve().parent / "locale"
"""Where the course catalogs live: ``<lang>/LC_MESSAGES/course.po`` and the template ``course.pot``."""

REPOSITORY = Path(__file__).resolve().parents[3]
"""The folder of the course's sources: the package and, in a clone, ``notebooks/``."""

_catalogs: dict[str, Catalog] = {}
_tables: dict[str, dict[str, str]] = {}
_compiled: dict[str, gettext.GNUTranslations] = {}


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

    In a notebook, switching to a right-to-left language also shows a style (once per call)
    that lets every printed line take its own direction (``unicode-bidi: plaintext``): an Arabic
    line of a check or a lab's verdict reads right to left, a line of code or numbers stays left to
    right. JupyterLab otherwise lays all printed text out left to right, which reorders a line that
    mixes Arabic with numbers and names. The style also aligns paragraphs, headings, list items
    and choices to the side their direction starts from. And what the notebook prints from then on
    has its left-to-right runs isolated in every line that holds Arabic
    (:func:`gastudy.course.i18n.bidi.isolate_printed`: the list in
    ``print(t("supervised items per microbatch:"), counts)`` keeps its order).

    Raises ``ValueError`` naming the choices for an unknown code (and changes nothing).
    """
    global _current
    _current = _check_code(code)
    if is_rtl(_current):
        _show_output_direction_style()
        _isolate_printed_text()
    return _current


OUTPUT_DIRECTION_CSS = (".jp-OutputArea-output pre, .jp-RenderedText pre "
                        "{unicode-bidi: plaintext; text-align: start;}"
                        " .jp-RenderedHTMLCommon p, .jp-RenderedHTMLCommon li, .jp-RenderedHTMLCommon h1,"
                        " .jp-RenderedHTMLCommon h2, .jp-RenderedHTMLCommon h3, .jp-RenderedHTMLCommon h4,"
                        " .jp-RenderedHTMLCommon h5, .jp-RenderedHTMLCommon h6, .jp-RenderedHTMLCommon summary"
                        " {text-align: start;} .gastudy-rtl {direction: rtl; text-align: start;}")
"""The style :func:`set_language` shows for a right-to-left language: every printed line takes its
own direction, and paragraphs, headings, list items and summaries start on the side their own
direction starts from (JupyterLab aligns paragraphs to the left whatever their ``dir``). The static
site carries the same rules."""


def _show_output_direction_style() -> None:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - the course extra installs IPython
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return  # a script or a test: nothing to lay out
    from IPython.display import HTML, display

    display(HTML(f"<style>{OUTPUT_DIRECTION_CSS}</style>"), metadata={"text/plain": ""})


def _isolate_printed_text() -> None:
    """In a kernel, make the notebook's standard output isolate what reads left to right in a line
    that holds right-to-left text, while the course language is right to left; every other
    language's output passes unchanged. IPython puts its own ``write`` on the stream for each cell
    (to keep the cell's output in its history) and takes it off after, so the isolating ``write`` is
    put over it again before each cell runs (an IPython ``pre_execute`` event, registered once)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - the course extra installs IPython
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None or not hasattr(shell, "events"):
        return  # not a notebook's kernel: its standard output is left alone
    if not getattr(shell, "_gastudy_isolates_output", False):
        shell._gastudy_isolates_output = True
        shell.events.register("pre_execute", _wrap_stdout)
    _wrap_stdout()


_printed_line = [False]  # whether the line standard output is writing holds right-to-left text


def _wrap_stdout() -> None:
    import sys

    stream = sys.stdout
    write = getattr(stream, "write", None)
    if write is None or getattr(write, "_gastudy_isolating", False):
        return

    def isolating_write(text, *args, **kwargs):
        if _current in RIGHT_TO_LEFT and isinstance(text, str):
            text, _printed_line[0] = isolate_printed(text, _printed_line[0])
        return write(text, *args, **kwargs)

    isolating_write._gastudy_isolating = True
    with contextlib.suppress(AttributeError):  # a stream that takes no attributes stays as it is
        stream.write = isolating_write


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


# --------------------------------------------------------------------------- the catalogs


def catalog_path(code: str) -> Path:
    """The course catalog of language ``code``: ``locale/<code>/LC_MESSAGES/course.po``."""
    return LOCALE / _check_code(code) / "LC_MESSAGES" / "course.po"


def catalog(code: str) -> Catalog:
    """Language ``code``'s course catalog (a Babel ``Catalog``), read once. Raises ``ValueError``
    naming the file when it is not a readable catalog, and for English (the source has none)."""
    code = _check_code(code)
    if code == "en":
        raise ValueError("English is the source language: it has no catalog")
    if code not in _catalogs:
        from gastudy.course.i18n.catalogs import read_catalog

        _catalogs[code] = read_catalog(catalog_path(code), code)
    return _catalogs[code]


def message_key(english: str, context: str | None = None) -> str:
    """The gettext key of a text: the English text, or ``context + "\\x04" + english`` for a text
    with a context (a plural text's key is that of its singular)."""
    return english if context is None else f"{context}\x04{english}"


def table(code: str) -> dict[str, str]:
    """The entries :func:`t` uses in language ``code``: :func:`message_key` → translation, for every
    translated, not fuzzy entry without plural forms (empty for English)."""
    code = _check_code(code)
    if code == "en":
        return {}
    if code not in _tables:
        from gastudy.course.i18n.catalogs import usable

        _tables[code] = {message_key(m.id, m.context): m.string for m in catalog(code)
                         if usable(m) and not m.pluralizable}
    return _tables[code]


def _compiled_catalog(code: str) -> gettext.GNUTranslations:
    """Language ``code``'s catalog compiled in memory (Babel's ``write_mo``, fuzzy entries left
    out) and read by :mod:`gettext`, which picks a plural form by the catalog's Plural-Forms."""
    if code not in _compiled:
        import gettext
        import io

        from babel.messages.mofile import write_mo

        mo = io.BytesIO()
        write_mo(mo, catalog(code))
        mo.seek(0)
        _compiled[code] = gettext.GNUTranslations(mo)
    return _compiled[code]


def t(english: str, /, *, context: str | None = None, **fields: object) -> str:
    """``english`` in the current language, with ``{name}`` fields filled from ``fields``.

    ``context`` tells two uses of one English text apart (gettext's ``msgctxt``: a short label
    that needs two translations). Falls back to the English text when the current language has
    no usable entry for it, and when its entry cannot be filled (a stray ``{`` or a renamed
    field: the lab still shows the sentence, in English). A number field is written as the
    language writes numbers (:class:`LocalNumber`: ``{gap:.2f}`` is ``0.25`` in English,
    ``0,25`` in Turkish and Spanish; Latin digits in every language); a field the caller formatted
    into a string is shown as it is. In a right-to-left language (Arabic) what reads left to
    right keeps its order: every field whose value is not right-to-left text (a number, a list, a
    name, code) is isolated (:class:`LeftToRight`, U+2066 … U+2069), and so is every run of the
    translation's own Latin letters, digits and operators that the bidirectional algorithm could
    reorder (``-100``, ``(5.x)``, ``m={m}``: :func:`gastudy.course.i18n.bidi.isolate_runs`); the
    output of every other language is exactly the text filled. Raises ``ValueError`` naming the
    text when the English text itself cannot be filled from ``fields`` (a field it names was not
    passed, or a brace is unbalanced).
    """
    text = table(_current).get(message_key(english, context), english) if _current != "en" else english
    if fields:
        return _fill("t", english, text, fields)
    return isolate_runs(text) if text is not english and _current in RIGHT_TO_LEFT else text


def N_(english: str, /) -> str:
    """Mark ``english`` as a course message where it is written, and return it unchanged
    (gettext's *noop*): for a text defined at import time, in a table, and translated where it
    is shown with :func:`translated`. The text is collected into the catalogs like a ``t("…")``."""
    return english


def translated(english: str, /) -> str:
    """``english`` — a text marked with :func:`N_` where it was written — in the current
    language; English when there is no usable translation. For a literal, write ``t("…")``."""
    return t(english)


def tn(singular: str, plural: str, n: int, /, *, context: str | None = None, **fields: object) -> str:
    """The form of ``singular`` / ``plural`` (English) that the whole number ``n`` takes in the
    current language, with ``{name}`` fields filled from ``fields`` and ``{n}`` from ``n`` unless
    ``fields`` gives it (already formatted, say); ``context`` as for :func:`t`. The forms come
    from the catalog's gettext Plural-Forms: English and Turkish have two, Spanish three (one,
    millions, the rest), Arabic six (0; 1; 2; then by the last two digits: 3–10, 11–99, the rest,
    so 100 and 102 share a form, 103 takes that of 3). Falls back to English as :func:`t` does;
    raises ``ValueError`` when ``n`` is not a whole number or the English text cannot be filled."""
    try:
        n = operator.index(n)
    except TypeError:
        raise ValueError(f"tn({singular!r}, …): the count must be a whole number, got {n!r}") from None
    english = singular if n == 1 else plural
    text = english
    if _current != "en":
        compiled = _compiled_catalog(_current)
        found = (compiled.npgettext(context, singular, plural, n) if context is not None
                 else compiled.ngettext(singular, plural, n))
        text = found or english  # an empty form shows the English text
    return _fill("tn", english, text, {"n": n, **fields})


class LocalNumber:
    """A number as language ``code`` writes it, for :func:`t` and :func:`tn` fields.

    Formatting applies the field's Python format spec first (``{x:.2f}``, ``{n:,}``, ``{p:.0%}``),
    then the language's symbols from the Unicode CLDR (through Babel): its decimal separator, its
    thousands separator, and where its percent sign goes — ``1,536.5`` and ``25%`` in English
    and Arabic (Latin digits), ``1.536,5`` and ``%25`` in Turkish, ``1.536,5`` and ``25 %`` in
    Spanish. Booleans are not numbers here."""

    __slots__ = ("value", "code")

    def __init__(self, value: float, code: str):
        self.value, self.code = value, code

    def __format__(self, spec: str) -> str:
        decimal, group, before, after = _number_symbols(self.code)
        text = format(self.value, spec)
        percent = text.endswith("%")
        text = _whole_if_short(text.removesuffix("%"), self.code)
        text = text.translate({ord("."): "\0", ord(","): group}).replace("\0", decimal)
        return before + text + after if percent else text

    def __str__(self) -> str:
        return self.__format__("")

    def __repr__(self) -> str:  # ``{x!r}`` asks for Python's spelling
        return repr(self.value)


_symbols: dict[str, tuple[str, str, str, str]] = {}
# Where the language's own norm differs from CLDR's: Spanish groups thousands with a thin space,
# never a point or a comma, and leaves a number of four digits whole (RAE and ASALE, Ortografía de la
# lengua española, 2010: 65 536, 2 000 000, but 2048). U+202F: narrow, and no line break inside it.
GROUP_SYMBOL = {"es": "\u202f"}
UNGROUPED_DIGITS = {"es": 4}  # integer parts of at most this many digits are written whole


def _number_symbols(code: str) -> tuple[str, str, str, str]:
    """Language ``code``'s decimal and group symbols, and what stands before and after a percentage
    (CLDR's through Babel; the group symbol of :data:`GROUP_SYMBOL` where the language's norm differs)."""
    if code not in _symbols:
        from babel.numbers import format_percent, get_decimal_symbol, get_group_symbol

        before, after = format_percent(0.25, locale=code).split("25")
        _symbols[code] = (get_decimal_symbol(code), GROUP_SYMBOL.get(code, get_group_symbol(code)), before, after)
    return _symbols[code]


def _whole_if_short(text: str, code: str) -> str:
    """``2,048`` → ``2048`` (Python's spelling, before the symbols are put in) where language
    ``code`` leaves a number of at most :data:`UNGROUPED_DIGITS` digits ungrouped."""
    limit = UNGROUPED_DIGITS.get(code)
    if not limit:
        return text
    sign = text[:1] if text[:1] in "+-" else ""
    head, dot, tail = text[len(sign):].partition(".")
    whole = head.replace(",", "")
    if "," in head and whole.isdigit() and len(whole) <= limit:
        return sign + whole + dot + tail
    return text


def _local(fields: dict[str, object]) -> dict[str, object]:
    """``fields`` with every number wrapped in :class:`LocalNumber` for the current language."""
    return {name: LocalNumber(value, _current)
            if isinstance(value, numbers.Real) and not isinstance(value, bool) else value
            for name, value in fields.items()}


class LeftToRight:
    """A field of a sentence in a right-to-left language whose value reads left to right (a number,
    a list, a name, code): formatted as the field asks (``{x:.2f}``, ``{x!r}``), then isolated
    (:func:`gastudy.course.i18n.bidi.isolate`), so that the sentence around it cannot reorder its
    signs, brackets and separators. ``{r.name}`` and ``{r[0]}`` reach into the value."""

    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value

    def __format__(self, spec: str) -> str:
        return isolate(format(self.value, spec))

    def __str__(self) -> str:
        return isolate(str(self.value))

    def __repr__(self) -> str:
        return isolate(repr(self.value))

    def __getattr__(self, name: str) -> LeftToRight:
        if name.startswith("__") or name == "value":  # not set yet (a copy): no value to reach into
            raise AttributeError(name)
        return LeftToRight(getattr(self.value, name))

    def __getitem__(self, key: object) -> LeftToRight:
        return LeftToRight(self.value[key])


def _reads_right_to_left(value: object) -> bool:
    """True for a field value that is right-to-left text (a translated sentence) or blank: it is
    filled in as it is, and it ends a left-to-right run of the sentence."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return False
    text = value if isinstance(value, str) else str(value)
    return not text.strip() or right_to_left(text)


def _fill_right_to_left(translation: str, fields: dict[str, object]) -> str:
    """``translation`` (into a right-to-left language) filled: every field whose value reads left to
    right is isolated (:class:`LeftToRight`), and so is every run of the translation's own Latin
    letters, digits and operators, with those fields in it (``m={m}``, ``{pct:.1f}%``). An English
    text shown for want of a translation is filled as it is, as in every language."""
    rtl = frozenset(name for name, value in fields.items() if _reads_right_to_left(value))
    return isolate_runs(translation, rtl).format(
        **{name: value if name in rtl else LeftToRight(value) for name, value in _local(fields).items()})


def ltr(text: str) -> str:
    """``text`` isolated left to right when the current course language is right to left (a
    formula, a list of numbers, code composed outside :func:`t`); unchanged otherwise."""
    return isolate(text) if _current in RIGHT_TO_LEFT else text


def _fill(name: str, english: str, text: str, fields: dict[str, object]) -> str:
    """``text`` filled from ``fields``, else ``english`` filled; ``ValueError`` when neither fills.
    The translation gets its numbers in the current language's format; the English text, Python's.
    In a right-to-left language, what reads left to right is isolated (:func:`_fill_right_to_left`)."""
    for candidate in dict.fromkeys((text, english)):  # the translation, then the English text
        try:
            if candidate is not english and _current in RIGHT_TO_LEFT:
                return _fill_right_to_left(candidate, fields)
            if candidate is not english and _current != "en":
                return candidate.format(**_local(fields))
            return candidate.format(**fields)
        except (KeyError, IndexError, ValueError, AttributeError) as err:
            problem = err
    raise ValueError(f"{name}({english!r}) cannot be filled from the fields {sorted(fields)}: "
                     f"{type(problem).__name__}: {problem}; pass every {{field}} the text names") from None


# --------------------------------------------------------------------------- reading the code


def messages_in(paths: Iterable[Path]) -> dict[tuple[str | None, str, str | None], list[tuple[Path, str, int]]]:
    """Every message of the course in the Python files and notebooks ``paths``: (context, English
    text, English plural or ``None``) → where it is used, as (file, name, line) triples (the name
    of a notebook's code cell is ``notebook[cell id]``, its line counted in the cell).

    Only calls spelled ``t("…")``, ``t("…", context="…")`` and ``tn("…", "…", n)`` with literal
    texts count; any other :func:`t` / :func:`tn` call is reported by :func:`untranslatable_calls`.
    The literal claims of check cells count too: ``check(condition, "…", detail="…", **fields)``
    and ``check_close(actual, expected, "…", **fields)`` translate their claim (and detail)
    themselves (:mod:`gastudy.course.checks`), so the claim is a message like a ``t("…")`` text.
    """
    found: dict[tuple[str | None, str, str | None], list[tuple[Path, str, int]]] = {}
    for path, where, tree in _trees(paths):
        for node in ast.walk(tree):
            message = _message(node)
            if message is not None:
                found.setdefault(message, []).append((path, where, node.lineno))
            for claim in _check_texts(node):
                if _literal(claim) and claim.value:
                    found.setdefault((None, claim.value, None), []).append((path, where, claim.lineno))
    return found


def strings_in(paths: Iterable[Path]) -> dict[str, list[str]]:
    """Every message in the Python files ``paths``, by :func:`message_key`: key → ``file:line`` list."""
    found: dict[str, list[str]] = {}
    for (context, english, _), where in messages_in(paths).items():
        found.setdefault(message_key(english, context), []).extend(f"{name}:{line}" for _, name, line in where)
    return found


def _message(node: ast.AST) -> tuple[str | None, str, str | None] | None:
    """(context, English, English plural or ``None``) of a ``t``/``tn`` call whose texts are
    literals; ``None`` for any other node."""
    if not _is_t_call(node):
        return None
    texts = node.args[:2] if node.func.id == "tn" else node.args[:1]
    context = [k.value for k in node.keywords if k.arg == "context"]
    if len(texts) != (2 if node.func.id == "tn" else 1) or not all(map(_literal, [*texts, *context])):
        return None
    return (context[0].value if context else None, texts[0].value, texts[1].value if len(texts) == 2 else None)


CHECKS = {"check": (1, 2), "check_close": (2, None)}
"""The check functions of :mod:`gastudy.course.checks`, with the positions of their ``claim`` and
``detail`` arguments (``None``: no such argument)."""


def _check_texts(node: ast.AST) -> list[ast.AST]:
    """The ``claim`` and ``detail`` arguments of a ``check(...)`` / ``check_close(...)`` call, as
    written (positional or by keyword); empty for any other node."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CHECKS):
        return []
    texts = [node.args[i] for i in CHECKS[node.func.id] if i is not None and i < len(node.args)]
    return texts + [k.value for k in node.keywords if k.arg in ("claim", "detail")]


def _literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _trees(paths: Iterable[Path]) -> Iterable[tuple[Path, str, ast.AST]]:
    """(file, name, syntax tree) of each Python file, and of each code cell of each ``.ipynb``
    notebook (named ``notebook[cell id]``; IPython's ``%magic`` and ``!shell`` lines are skipped)."""
    for path in map(Path, paths):
        text = path.read_text(encoding="utf-8")
        if path.suffix != ".ipynb":
            yield path, path.name, ast.parse(text)
            continue
        for cell in json.loads(text)["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                lines = ["pass" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.split("\n")]
                yield path, f"{path.name}[{cell.get('id', '?')}]", ast.parse("\n".join(lines))


def untranslatable_calls(paths: Iterable[Path]) -> list[str]:
    """``file:line`` of every ``t(...)`` / ``tn(...)`` call whose texts (or context) are not string
    literals: such a text cannot be found by :func:`missing_translations` and would silently stay
    English."""
    return [f"{where}:{node.lineno}" for _, where, tree in _trees(paths) for node in ast.walk(tree)
            if _is_t_call(node) and _message(node) is None]


def bare_sentences(paths: Iterable[Path]) -> list[str]:
    """``file:line`` of every sentence a learner would read in English whatever the language:
    a ``print`` argument that is a string literal or f-string with words in it, instead of a
    ``t("…")`` call, and a check claim or detail that is not a literal text (an f-string, a
    concatenation, a conditional expression: the check cannot look it up in the catalog). A
    literal claim, ``check(cond, "…", **fields)``, is translated by the check itself. Code cells of
    the notebooks are meant to stay identical in every edition, so their sentences go through
    :func:`t` (a printed identifier such as ``"input_ids:"`` is allowed: it has no translation)."""
    bad = []
    for _, where, tree in _trees(paths):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                bad += [f"{where}:{arg.lineno}" for arg in node.args if _words(arg)]
            bad += [f"{where}:{arg.lineno}" for arg in _check_texts(node) if _composed(arg)]
    return sorted(set(bad), key=bad.index)


def _composed(node: ast.AST) -> bool:
    """True for a claim built at run time from literal words (an f-string with words, a ``+`` or
    ``%`` of strings, a conditional between two texts): it never reaches the catalog."""
    if isinstance(node, ast.JoinedStr):
        return _words(node)
    if isinstance(node, ast.BinOp):
        return _composed(node.left) or _composed(node.right) or _literal(node.left) or _literal(node.right)
    if isinstance(node, ast.IfExp):
        return any(_literal(n) or _composed(n) for n in (node.body, node.orelse))
    return False


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
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("t", "tn", "N_")
            and len(node.args) >= 1)


def course_sources() -> list[Path]:
    """What the course's translated strings are read from: the Python files of the course layer
    (and, of :mod:`gastudy.course.i18n`, the notes of :mod:`gastudy.course.i18n.menus`) and the
    code cells of the English notebooks (their printed sentences are ``t("…")`` calls, their
    check claims literal texts the checks translate), when the ``notebooks/`` folder is beside the
    package."""
    root = Path(__file__).resolve().parent.parent
    code = sorted(p for p in root.rglob("*.py") if "i18n" not in p.parts and "solutions" not in p.parts)
    notes = Path(__file__).resolve().parent / "menus.py"  # the notes on misleading menu labels
    return code + [notes] + sorted((REPOSITORY / "notebooks").glob("[0-9][0-9]_*.ipynb"))


# --------------------------------------------------------------------------- the catalogs against the code


def template(paths: Iterable[Path] | None = None) -> Catalog:
    """The template of the course catalogs (``course.pot``): one entry per message of ``paths``
    (default: :func:`course_sources`), located by file, in the order of the files and lines."""
    from gastudy.course.i18n.catalogs import new_catalog

    pot = new_catalog("course", None)
    messages = messages_in(paths if paths is not None else course_sources())
    first = {message: min((_relative(path), name, line) for path, name, line in where)
             for message, where in messages.items()}
    for (context, english, plural) in sorted(messages, key=first.__getitem__):
        pot.add(english if plural is None else (english, plural), context=context,
                locations=[(_relative(path), line) for path, _, line in messages[(context, english, plural)]])
    return pot


def _relative(path: Path) -> str:
    path = Path(path).resolve()
    return path.relative_to(REPOSITORY).as_posix() if path.is_relative_to(REPOSITORY) else path.name


def update_catalogs(codes: Iterable[str] = ("tr", "es", "ar"), paths: Iterable[Path] | None = None) -> list[Path]:
    """Write ``locale/course.pot`` from the code (:func:`template`) and merge it into the course
    catalog of each language in ``codes`` (new texts get empty entries, changed ones are marked
    fuzzy, unused ones dropped: :func:`gastudy.course.i18n.catalogs.merge`); every catalog is read
    before one is written. Returns the files written (a file that would not change is left alone)."""
    from gastudy.course.i18n.catalogs import merge, write_catalog

    pot = template(paths)
    merged = []
    for code in dict.fromkeys(map(_check_code, codes)):
        if code == "en":
            continue
        updated = catalog(code)
        merge(updated, pot)
        merged.append((catalog_path(code), updated))
    written = [path for path, cat in [(LOCALE / "course.pot", pot), *merged] if write_catalog(path, cat)]
    for cache in (_catalogs, _tables, _compiled):  # the merged catalogs are read afresh
        cache.clear()
    return written


def missing_translations(code: str, paths: Iterable[Path] | None = None) -> dict[str, list[str]]:
    """Messages used in ``paths`` (default: :func:`course_sources`) that language ``code`` shows in
    English: no entry, an empty one, or a fuzzy one (see :func:`stale_translations`); each by
    :func:`message_key`, with where it is used. Empty for English."""
    code = _check_code(code)
    if code == "en":
        return {}
    from gastudy.course.i18n.catalogs import usable

    cat = catalog(code)
    missing: dict[str, list[str]] = {}
    for (context, english, plural), where in messages_in(paths if paths is not None else course_sources()).items():
        entry = cat.get(english, context=context)
        if entry is None or not usable(entry) or entry.pluralizable != (plural is not None):
            missing.setdefault(message_key(english, context), []).extend(f"{name}:{line}" for _, name, line in where)
    return missing


def stale_translations(code: str) -> list[str]:
    """Keys of the entries of language ``code``'s catalog marked fuzzy (their English text changed
    after they were translated): shown in English until a translator checks them."""
    code = _check_code(code)
    return [] if code == "en" else [_key_of(m) for m in catalog(code) if m.id and m.fuzzy]


def unused_translations(code: str, paths: Iterable[Path] | None = None) -> list[str]:
    """Keys of the entries of language ``code``'s catalog that no :func:`t` / :func:`tn` call uses
    any more (usually an English text that was edited: :func:`update_catalogs` drops them)."""
    code = _check_code(code)
    if code == "en":
        return []
    used = strings_in(paths if paths is not None else course_sources())
    return sorted(k for k in (_key_of(m) for m in catalog(code) if m.id) if k not in used)


def _key_of(message) -> str:
    """The :func:`message_key` of a catalog entry (a plural entry's is that of its singular)."""
    return message_key(message.id if isinstance(message.id, str) else message.id[0], message.context)


__all__ = ["LANGUAGES", "RIGHT_TO_LEFT", "LOCALE", "set_language", "language", "is_rtl", "direction", "t", "tn", "ltr",
           "message_key", "table", "catalog", "catalog_path", "template", "update_catalogs", "missing_translations",
           "stale_translations", "unused_translations", "messages_in", "strings_in", "untranslatable_calls",
           "bare_sentences", "course_sources"]

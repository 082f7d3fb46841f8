"""The comments of a notebook's code cells: found, translated in place, and nothing else touched.

The editions' code cells are the English ones (:mod:`gastudy.course.editions`), but what a comment
says — ``# your code: a number``, ``# stuck? show_solution("01.1") prints a worked solution``,
``# ONE update for the whole group`` — is prose, and goes through the notebooks' catalog like a
markdown cell. The contract:

- a comment is what Python's :mod:`tokenize` calls one (a ``#`` inside a string is not), on a line
  of its own or after code; its *text* is what follows ``#`` and the blanks after it, without
  trailing blanks (``# your code: a number`` → ``your code: a number``); a comment without a letter
  (``# ----``) and a tool's directive (``# noqa``, ``# type: ignore``, ``# pragma: …``,
  ``# fmt: off``) is no text to translate;
- IPython's ``%magic``, ``!shell`` and ``?help`` lines are not read (their comments stay as they
  are); a cell that :mod:`tokenize` cannot read has no comments to translate;
- :func:`put_comments` replaces the text of each comment it is given a translation for, at its
  place, keeping ``#`` and the blanks after it; every token of code, every blank before the ``#``
  and every line stays byte for byte, and a translation holding a line break is refused (it would
  be code). :func:`without_comments` is a cell with every comment removed, to compare an edition's
  code with the English.

Right to left: a translated comment is written as it is, with no bidirectional control character
(JupyterLab's editor shows those as red marks, and they are how "Trojan Source" hides code): a
comment ends its line, so the code before it keeps its order; an Arabic comment reads right to left
from the ``#`` on. Course section: 00.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from gastudy.course.i18n.bidi import strip_controls

SUFFIX = "#comment"
"""What a code cell's id is followed by in the ``msgctxt`` of its comments: ``nb03-12#comment``."""

_DIRECTIVE = re.compile(r"(?:noqa|type:|pragma|fmt:|isort:|ruff:|pylint:|mypy:)", re.I)
_MAGIC = re.compile(r"^\s*[%!?]")
_LEAD = re.compile(r"#[ \t]*")


@dataclass(frozen=True)
class Comment:
    """One comment of a cell: its place (line counted from 1, column of the ``#``), the ``#`` and
    blanks before its text (``prefix``), its text, and whether code stands before it."""

    line: int
    column: int
    prefix: str
    text: str
    after_code: bool
    end: int
    """The column where the comment ends (trailing blanks are not part of its text)."""


def context(cell_id: str) -> str:
    """The ``msgctxt`` of the comments of the code cell ``cell_id``."""
    return f"{cell_id}{SUFFIX}"


def comments(source: str) -> list[Comment]:
    """Every translatable comment of the cell ``source``, in order (see the module's contract)."""
    lines = source.split("\n")
    masked = "\n".join(" " * len(line) if _MAGIC.match(line) else line for line in lines)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(masked).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    found = []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        row, col = token.start
        raw = token.string.rstrip()
        prefix = _LEAD.match(raw).group()
        text = raw[len(prefix):]
        if not re.search(r"[^\W\d_]", text) or _DIRECTIVE.match(text):
            continue
        found.append(Comment(row, col, prefix, text, bool(lines[row - 1][:col].strip()), col + len(raw)))
    return found


def texts(source: str) -> list[str]:
    """The distinct texts of the comments of ``source``, in the order they first appear."""
    return list(dict.fromkeys(c.text for c in comments(source)))


def put_comments(source: str, translate: Callable[[str], str | None]) -> str:
    """``source`` with the text of each comment replaced by ``translate(text)``; a comment whose
    translation is ``None``, empty or holds a line break keeps its English text; bidirectional
    control characters are dropped from a translation (:data:`gastudy.course.i18n.bidi.CONTROLS`)."""
    lines = source.split("\n")
    for comment in reversed(comments(source)):  # last first: the places of the earlier ones stay valid
        new = usable_text(translate(comment.text))
        if new is None:
            continue
        line = lines[comment.line - 1]
        start = comment.column + len(comment.prefix)
        lines[comment.line - 1] = line[:start] + new.strip() + line[comment.end:]
    return "\n".join(lines)


def usable_text(translation: str | None) -> str | None:
    """``translation`` as a comment's text (stripped, without bidirectional controls), or ``None``
    when it cannot be one: missing, blank, or holding a line break."""
    if not translation or any(ch in translation for ch in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        return None
    return strip_controls(translation).strip() or None


def without_comments(source: str) -> str:
    """``source`` with every comment :mod:`tokenize` finds removed (the ``#``, its text and the
    blanks before it), lines kept: two cells that differ only in their comments give the same text."""
    lines = source.split("\n")
    masked = "\n".join(" " * len(line) if _MAGIC.match(line) else line for line in lines)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(masked).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return source
    for token in reversed([t for t in tokens if t.type == tokenize.COMMENT]):
        (row, col) = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:col].rstrip() + line[col + len(token.string):]
    return "\n".join(lines)

"""The course's gettext catalogs on disk: read, written and merged with Babel.

Every translation of the course is a gettext ``.po`` catalog, the format Poedit and Weblate open:

- ``gastudy/course/i18n/locale/<lang>/LC_MESSAGES/course.po``: the sentences of the labs, checks
  and exercises (the ``t("…")`` and ``tn("…", "…", n)`` calls of the course layer and of the
  English notebooks' code cells). It ships with the package: :func:`gastudy.course.i18n.t`
  reads it at run time. Its template is ``gastudy/course/i18n/locale/course.pot``.
- ``notebooks/translations/<lang>/notebooks.po``: the markdown of the English notebooks, one entry
  per cell (``msgctxt`` the cell id, ``msgid`` the English text, the notebook as its location).
  It lives beside the notebooks it translates, because :mod:`gastudy.course.editions` generates
  the editions of whichever notebooks folder it is given; the package never reads it. Its
  template is ``notebooks/translations/notebooks.pot``.

An entry marked ``#, fuzzy`` (an English text that changed after it was translated) is never
used: the English text shows until a translator checks the entry and removes the mark.
Course section: 00.
"""

from __future__ import annotations

import copy
import difflib
import io
import re
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.pofile import PoFileError, read_po, write_po

DOMAINS = {"course": "the sentences of the gastudy course's labs, checks and exercises",
           "notebooks": "the markdown of the gastudy course's notebooks"}
"""The two catalogs of each language (the file's stem), with what each translates."""

_DATES = (b'"POT-Creation-Date:', b'"PO-Revision-Date:')
_LINE = re.compile(r'(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+)?"(?:[^"\\]|\\.)*"')
"""A line of a ``.po`` file that is not a comment: a keyword and a quoted string, or a string."""


def new_catalog(domain: str, code: str | None) -> Catalog:
    """An empty catalog of ``domain`` (``"course"`` or ``"notebooks"``) for language ``code``, or
    its template when ``code`` is ``None``; a language's catalog gets the Plural-Forms header
    Babel derives from CLDR."""
    what = f"Translation into {Locale.parse(code).english_name} of" if code else "Template of"
    return Catalog(locale=code, domain=domain, project="gastudy", version="course", fuzzy=code is None,
                   header_comment=f"# {what} {DOMAINS[domain]}.\n# `gastudy editions --update-files` "
                                  "merges new English texts in; translators fill in the msgstr lines.")


def read_catalog(path: Path, code: str | None = None) -> Catalog:
    """The catalog in the ``.po``/``.pot`` file ``path`` (named ``<domain>.po``); an empty
    :func:`new_catalog` when there is no file. Raises ``ValueError`` naming the file when it is
    not a readable catalog."""
    path = Path(path)
    if not path.exists():
        return new_catalog(path.stem, code)
    try:
        text = path.read_bytes().decode("utf-8")
        bad = next((n for n, line in enumerate(text.splitlines(), 1)
                    if line.strip() and not line.startswith("#") and not _LINE.fullmatch(line.strip())), None)
        if bad is not None:  # Babel reads an unterminated string without a word
            raise ValueError(f"line {bad} is not a keyword and a quoted string")
        return read_po(io.StringIO(text), locale=code, abort_invalid=True)
    except (PoFileError, UnicodeDecodeError, ValueError) as err:
        raise ValueError(f"{path} is not a gettext catalog ({type(err).__name__}: {err}); fix it, or "
                         "delete it and run `gastudy editions --update-files` for a fresh one") from None
    except OSError as err:
        raise ValueError(f"{path} cannot be read ({err.strerror or err}): fix it or remove it") from None


def render(catalog: Catalog) -> bytes:
    """``catalog`` as ``.po`` text: no line numbers in the locations (an edit elsewhere in a file
    leaves the catalog as it is), obsolete entries dropped. What Babel reads back from it renders
    to the same text (Babel does not read the ``#|`` previous-text lines, so none are written)."""
    out = io.BytesIO()
    write_po(out, catalog, include_lineno=False, ignore_obsolete=True)
    return out.getvalue()


def write_catalog(path: Path, catalog: Catalog) -> bool:
    """Write ``catalog`` to ``path`` unless the file already says the same apart from its dates
    (rewriting an unchanged catalog changes nothing); returns True when the file was written."""
    path = Path(path)
    text = render(catalog)
    if path.is_file() and _undated(path.read_bytes()) == _undated(text):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return True


def _undated(text: bytes) -> list[bytes]:
    return [line for line in text.splitlines() if not line.startswith(_DATES)]


def merge(catalog: Catalog, template: Catalog, by_context: bool = False) -> None:
    """Bring ``catalog`` up to ``template`` (Babel's ``Catalog.update``): new English texts get
    empty entries, entries no text uses any more are dropped, and an entry whose English text
    changed keeps its old translation marked fuzzy (its format flags those of its new English text,
    as reading the file back gives them). With ``by_context`` an entry is matched to its
    new English text by its context alone (a notebook cell keeps its id when its text changes),
    never by the similarity of two texts, which could hand one cell's translation to another.
    Where a context holds several texts (the comments of one code cell), an old translation goes
    to the new text of that context most like its old one (:data:`SIMILAR` or closer), fuzzy;
    one new text and one old translation in a context are matched whatever they say."""
    # Babel's update puts the template's own message objects into the catalog and writes the old
    # translations into them: given a copy, the caller's template stays a template
    catalog.update(copy.deepcopy(template), no_fuzzy_matching=by_context)
    for message in catalog:  # a fuzzy match keeps the old text's format flags: set them as reading does
        for flag, holds in (("python-format", message.python_format),
                            ("python-brace-format", message.python_brace_format)):
            if message.id and holds:
                message.flags.add(flag)
            else:
                message.flags.discard(flag)
    if not by_context:
        return
    old: dict[str, list] = {}
    for key, message in catalog.obsolete.items():
        if message.context and message.string:
            old.setdefault(message.context, []).append((key, message))
    new: dict[str, list] = {}
    for message in catalog:
        if message.id and not message.string and message.context in old:
            new.setdefault(message.context, []).append(message)
    for context, messages in new.items():
        candidates = old[context]
        if len(messages) == 1 and len(candidates) == 1:
            pairs = [(messages[0], candidates[0])]
        else:
            scored = sorted(((difflib.SequenceMatcher(None, _text(m.id), _text(o.id)).ratio(), i, j)
                             for i, m in enumerate(messages) for j, (_, o) in enumerate(candidates)), reverse=True)
            pairs, used_new, used_old = [], set(), set()
            for score, i, j in scored:
                if score >= SIMILAR and i not in used_new and j not in used_old:
                    pairs.append((messages[i], candidates[j]))
                    used_new.add(i)
                    used_old.add(j)
        for message, (key, previous) in pairs:
            message.string = previous.string
            message.flags.add("fuzzy")
            del catalog.obsolete[key]


SIMILAR = 0.5
"""How alike (:class:`difflib.SequenceMatcher` ratio) an old and a new text of one context must be
for :func:`merge` to hand the old translation on, when the context holds several texts."""


def _text(message_id) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


def usable(message) -> bool:
    """True for an entry the course shows: translated (every plural form too) and not fuzzy."""
    forms = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
    return bool(message.id) and not message.fuzzy and all(forms)

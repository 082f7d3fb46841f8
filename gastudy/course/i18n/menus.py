"""JupyterLab's menus as the learner sees them: a menu path quoted in an edition, in the words of
the installed language pack.

The course quotes a menu path in emphasis, its labels joined by ``▸``:
``*Run ▸ Run All Above Selected Cell*``. A translation keeps the English path; when the editions are
generated (:mod:`gastudy.course.editions`), :func:`localize_menus` writes it as JupyterLab shows it
in the edition's language, read from the language pack the course installs (:data:`PACKS`,
``<pack>/locale/<locale>/LC_MESSAGES/jupyterlab.json``, a map from JupyterLab's English label to
its translation):

- a menu's title (every label but the last) is looked up in the context ``menu``, as JupyterLab
  translates the menu bar and its submenus (the Spanish pack has "Run" → "Ejecutar" but no
  ``menu`` entry for it, so its menu bar says *Run*); the last label, a command, without a
  context (then in the context ``menu``, for a path that ends on a submenu);
- a label the pack does not translate stays English: that is what the learner's menu shows (the
  Arabic pack translates almost nothing);
- in a right-to-left edition a path holding a right-to-left label is joined by ``◂``, which points
  the way it reads;
- where the pack's label misleads (:data:`MISLEADING`: the Turkish "Run All Above Selected Cell" is
  "Bütün seçilen hücreleri çalıştır.", *run all selected cells*), a note follows the path in
  brackets, in the edition's language: a sentence of the course catalog (``msgctxt`` ``menu note``,
  translated like every lab sentence; English until it is).

:func:`menu_paths` lists the paths of a text and :func:`unlike_the_pack` what in an edition's text
differs from the pack. A pack that is not installed raises :class:`MissingPack`: an edition is never
silently generated with English menus. Only JupyterLab's own domain (``jupyterlab.json``) is read.
Course section: 00.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import json
import re
from dataclasses import dataclass
from pathlib import Path

from gastudy.course.i18n.bidi import right_to_left

SEPARATOR = " ▸ "
RIGHT_TO_LEFT_SEPARATOR = " ◂ "
MENU_CONTEXT = "menu"
NOTE_CONTEXT = "menu note"


@dataclass(frozen=True)
class Pack:
    """JupyterLab's language pack for one edition: its pip distribution and the locale it serves."""

    distribution: str
    locale: str

    @property
    def module(self) -> str:
        return self.distribution.replace("-", "_")


PACKS = {"tr": Pack("jupyterlab-language-pack-tr-TR", "tr_TR"),
         "es": Pack("jupyterlab-language-pack-es-ES", "es_ES"),
         "ar": Pack("jupyterlab-language-pack-ar-SA", "ar_SA")}
"""The packs ``gastudy lab --lang`` opens JupyterLab with (:mod:`gastudy.cli.lab` names the same)."""


def N_(english: str, /, *, context: str) -> str:
    """Mark a course sentence defined here with its context, and return it unchanged: the course's
    template collects it like ``t("…", context="…")`` (see :func:`gastudy.course.i18n.N_`)."""
    return english


MISLEADING: dict[str, dict[str, str]] = {
    "tr": {"Run All Above Selected Cell": N_(
        "JupyterLab's translation of this label is misleading: the command runs every cell above "
        "the selected cell, not the selected cells", context="menu note")},
}
"""Per edition, the English labels of commands whose translation in the pack says something else,
with the note (an English course sentence) that follows the quoted path."""


class MissingPack(LookupError):
    """The language pack an edition quotes the menus of is not installed."""


_PATH = re.compile(r"(?<![*\w])(?P<mark>\*{1,2}|_)(?P<path>[^*_\n]*?\S ▸ \S[^*_\n]*?)(?P=mark)(?![*\w])")
_ANY_PATH = re.compile(_PATH.pattern.replace("▸", "[▸◂]"))  # an edition's path, either way round


def pack_file(code: str) -> Path:
    """The pack's ``jupyterlab.json`` for edition ``code``. Raises :class:`MissingPack` naming the
    pip command when the pack is not installed, ``KeyError`` for a language without a pack."""
    pack = PACKS[code]
    spec = importlib.util.find_spec(pack.module)
    folders = list(spec.submodule_search_locations or ()) if spec else []
    for folder in folders:
        path = Path(folder) / "locale" / pack.locale / "LC_MESSAGES" / "jupyterlab.json"
        if path.is_file():
            return path
    raise MissingPack(f"JupyterLab's language pack for {code!r} is not installed, so the edition cannot quote "
                      f"its menus: pip install {pack.distribution}")


@functools.cache
def pack_messages(code: str) -> dict[str, str]:
    """The pack's translations of edition ``code``: English label (``"menu\\x04Run"`` with its
    context) → translation; labels translated as empty are left out."""
    raw = json.loads(pack_file(code).read_text(encoding="utf-8"))
    return {key: value[0] for key, value in raw.items()
            if key and isinstance(value, list) and value and isinstance(value[0], str) and value[0]}


def label(english: str, code: str, title: bool = False) -> str:
    """What edition ``code``'s menus show for the English label: a menu title (``title``) in the
    context ``menu``; a command without context, then in the context ``menu``; the English label
    when the pack has no translation."""
    messages = pack_messages(code)
    keys = (f"{MENU_CONTEXT}\x04{english}",) if title else (english, f"{MENU_CONTEXT}\x04{english}")
    return next((messages[k] for k in keys if k in messages), english)


def localize_path(path: str, code: str) -> str:
    """The menu path ``path`` (English labels joined by ``▸``) as edition ``code``'s menus show it."""
    labels = [part.strip() for part in path.split("▸")]
    shown = [label(part, code, title=i < len(labels) - 1) for i, part in enumerate(labels)]
    rtl = code == "ar" and any(map(right_to_left, shown))
    return (RIGHT_TO_LEFT_SEPARATOR if rtl else SEPARATOR).join(shown)


def _english(text: str) -> bool:
    """True for a label JupyterLab could have in English: no letter outside ASCII."""
    return all(ch.isascii() for ch in text if ch.isalpha())


def menu_paths(markdown: str) -> list[str]:
    """The menu paths quoted in ``markdown`` (emphasized, labels joined by ``▸`` or ``◂``), in order."""
    return [m["path"] for m in _paths(markdown)]


def _paths(markdown: str) -> list[re.Match]:
    return list(_ANY_PATH.finditer(markdown))


def note(english_label: str, code: str) -> str | None:
    """The note that follows a path ending on ``english_label`` in edition ``code``, in that
    language (English while the course catalog has no usable translation); ``None`` when the pack's
    label does not mislead."""
    english = MISLEADING.get(code, {}).get(english_label)
    if english is None:
        return None
    from gastudy.course import i18n
    from gastudy.course.i18n.catalogs import usable

    entry = i18n.catalog(code).get(english, context=NOTE_CONTEXT)
    return entry.string if entry is not None and usable(entry) else english


def localize_menus(markdown: str, code: str) -> str:
    """``markdown`` (a translation into ``code``, its menu paths in English) with every menu path
    as the pack shows it, and after a misleading label its note in brackets. Text without a path
    is returned as it is, and the pack is then not read."""
    def swap(match: re.Match) -> str:
        english = match["path"]
        last = english.split("▸")[-1].strip()
        shown = f"{match['mark']}{localize_path(english, code)}{match['mark']}"
        told = note(last, code)
        return f"{shown} ({told})" if told else shown

    return _PATH.sub(swap, markdown) if "▸" in markdown else markdown


def unlike_the_pack(markdown: str, code: str) -> list[str]:
    """What in ``markdown`` (an edition's text in ``code``) differs from the pack, one line each: a
    quoted path with a label the pack shows otherwise (a title or command it translates left in
    English, a label it does not have), and a misleading label without its note."""
    messages = pack_messages(code)
    titles = {v: k.split("\x04", 1)[1] for k, v in messages.items() if k.startswith(f"{MENU_CONTEXT}\x04")}
    commands = {v: k for k, v in messages.items() if "\x04" not in k}
    found = []
    for match in _paths(markdown):
        labels = [part.strip() for part in re.split("[▸◂]", match["path"])]
        english = [titles.get(part, part) for part in labels[:-1]]
        english.append(commands.get(labels[-1], titles.get(labels[-1], labels[-1])))
        unknown = [part for part, eng in zip(labels, english) if part == eng and not _english(part)]
        if unknown:  # neither an English label nor one of the pack's translations
            close = [difflib.get_close_matches(part, list(commands) + list(titles), 1) for part in unknown]
            found.append(f"{match['path']!r}: {unknown[0]!r} is no label of the pack"
                         + (f" (it has {close[0][0]!r})" if close[0] else "")
                         + "; keep the English path in the translation, the editions localize it")
            continue
        expected = localize_path(" ▸ ".join(english), code)
        if match["path"] != expected:
            found.append(f"{match['path']!r}: the menu shows {expected!r}")
            continue
        told = note(english[-1], code)
        if told and not markdown[match.end():].startswith(f" ({told})"):
            found.append(f"{match['path']!r} misleads without its note ({told!r})")
    return found

"""What reads left to right inside right-to-left text keeps its order (the Arabic edition).

In an Arabic sentence the Unicode bidirectional algorithm places every *neutral* character — a
sign, a bracket, a comma, a space, a percent sign after an Arabic-context number — by the text
around it, so a printed result is shown out of the order it was written in: ``-0.008313`` as
``0.008313-``, ``+8.99%`` as ``8.99%+``, ``[19, 19, 20, 15]`` as ``[15 ,20 ,19 ,19]``, ``(5.x)``
as ``(x.5)``, ``3.5 ≈ 3.0`` as ``3.0 ≈ 3.5``. An *isolate* (U+2066 LEFT-TO-RIGHT ISOLATE … U+2069
POP DIRECTIONAL ISOLATE) lays its content out left to right, as one unit that the sentence around
it places as a whole.

This module holds the rule, once, for the course's text in a right-to-left language:

- :func:`isolate` wraps a text that must read left to right (a number, a list, a name, code);
- :func:`isolate_runs` finds, in a translated sentence, every run of Latin letters, digits and
  operators that the algorithm could reorder (``-100``, ``(5.x)``, ``m={m}``, ``{pct:.1f}%``,
  ``{n} {unit}``) and isolates it; a ``{field}`` counts as a letter of such a run unless its value
  is itself right-to-left text, and an HTML tag is never cut;
- :func:`strip_controls` removes the isolates (and the other bidirectional marks) again, for a
  text that is read back as data (a number the learner copied from the page) or drawn by a
  renderer that lays them out badly (matplotlib).

:func:`gastudy.course.i18n.t` applies it when the course language is right to left; English,
Turkish and Spanish text is never touched. The Arabic markdown uses ``<bdi dir="ltr">`` for the
same runs (:func:`gastudy.course.editions.isolate_left_to_right`). Course section: 00.
"""

from __future__ import annotations

import functools
import re
import unicodedata

LRI, RLI, FSI, PDI = "\u2066", "\u2067", "\u2068", "\u2069"
"""The isolates: left-to-right, right-to-left, first-strong, and the one that closes them."""

CONTROLS = LRI + RLI + FSI + PDI + "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e"
"""Every bidirectional control character: the isolates, the marks (LRM, RLM, ALM) and the embeddings."""

_WITHOUT_CONTROLS = str.maketrans("", "", CONTROLS)


def right_to_left(text: str) -> bool:
    """True when ``text`` holds a letter written right to left (Arabic, Hebrew, …)."""
    return any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)


def isolate(text: str) -> str:
    """``text`` between LRI and PDI: laid out left to right as one unit inside any sentence. Each
    line is isolated on its own (a line break ends an isolate); a text that is empty, only blanks,
    or already one isolate is returned as it is."""
    if "\n" in text:
        return "\n".join(isolate(line) for line in text.split("\n"))
    if not text.strip() or _one_isolate(text):
        return text
    return f"{LRI}{text}{PDI}"


def _one_isolate(text: str) -> bool:
    if not (text[:1] in (LRI, RLI, FSI) and text.endswith(PDI)):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += ch in (LRI, RLI, FSI)
        depth -= ch == PDI
        if depth == 0 and i < len(text) - 1:
            return False  # two isolates side by side, not one
    return True


def strip_controls(text: str) -> str:
    """``text`` without bidirectional control characters (isolates, marks, embeddings)."""
    return text.translate(_WITHOUT_CONTROLS)


# --------------------------------------------------------------------------- runs in a sentence

_TOKEN = re.compile(r"\{\{|\}\}|\{[^{}]*\}|</?[A-Za-z][^<>\n]*>|[A-Za-z0-9_]+|.", re.DOTALL)
_NEUTRAL = set(" .,:;!?()[]{}+-−×·/=<>≈≤≥…Σ∇√%^*'\"|‖#&~@$\\÷±→←⋯")
_EDGE_PUNCTUATION = set(" .,:;!?·—–")
_OPERATOR = set("+-−×·/=<>≈≤≥…Σ∇√^*|‖#&~@$\\÷±→←⋯")
_PAIRS = {"(": ")", "[": "]", "{": "}"}


def _tokens(text: str) -> list[str]:
    """``text`` cut where a run may start or end: ``{{``/``}}``, a ``{field}``, an HTML tag, a word
    of Latin letters and digits, an isolate that is already there (LRI … PDI, whole), one character."""
    out: list[str] = []
    at = 0
    while at < len(text):
        if text[at] in (LRI, RLI, FSI):
            depth, end = 0, at
            while end < len(text):
                depth += text[end] in (LRI, RLI, FSI)
                depth -= text[end] == PDI
                end += 1
                if depth == 0:
                    break
            out.append(text[at:end])
            at = end
            continue
        match = _TOKEN.match(text, at)
        out.append(match.group())
        at = match.end()
    return out


def _kind(token: str, rtl_fields: frozenset[str]) -> str:
    """``"word"`` (a run's letters: Latin, digits, a field of left-to-right value, a tag, an
    isolate), ``"neutral"`` (a sign, a bracket, a space: part of a run between words) or ``"break"``."""
    if token in ("{{", "}}"):
        return "neutral"
    if token.startswith("{") and len(token) > 1:
        name = re.match(r"[^!:.\[]*", token[1:-1]).group()
        return "break" if name in rtl_fields else "word"
    if (token.startswith("<") and len(token) > 2) or token[:1] in (LRI, RLI, FSI) or re.fullmatch(r"\w+", token, re.ASCII):
        return "word"
    return "neutral" if token in _NEUTRAL else "break"


def _unmatched(tokens: list[str]) -> set[int]:
    """Positions of the brackets of ``tokens`` that close nothing or are never closed."""
    stack: list[int] = []
    lone: set[int] = set()
    for i, token in enumerate(tokens):
        if token in _PAIRS:
            stack.append(i)
        elif token in _PAIRS.values():
            if stack and _PAIRS[tokens[stack[-1]]] == token:
                stack.pop()
            else:
                lone.add(i)
    return lone | set(stack) | ({i for i, tok in enumerate(tokens) if tok == "|"}
                                if sum(tok == "|" for tok in tokens) % 2 else set())


def _trim(tokens: list[str], kinds: list[str]) -> tuple[int, int]:
    """The part of a run that reads left to right: without the sentence's punctuation and
    blanks at its edges, and an operator that a blank parts from the run (``= {n}`` after an
    Arabic word: the ``=`` is the sentence's)."""
    a, b = 0, len(tokens)
    while a < b:
        if kinds[a] != "word" and (tokens[a] in _EDGE_PUNCTUATION
                                   or (tokens[a] in _OPERATOR and a + 1 < b and tokens[a + 1] == " ")):
            a += 1
        elif kinds[b - 1] != "word" and (tokens[b - 1] in _EDGE_PUNCTUATION
                                         or (tokens[b - 1] in _OPERATOR and b - 1 > a and tokens[b - 2] == " ")):
            b -= 1
        else:
            break
    return a, b


def _reorderable(tokens: list[str], kinds: list[str]) -> bool:
    """True for a run the algorithm could lay out out of order. Safe are a lone field (its value is
    isolated when it is filled), a number with single separators (``3.5``, ``1,536``) and a run of
    plain text that starts with a Latin letter and ends with a letter or digit (``GA-3``,
    ``m=4, A=8``: after a Latin letter every digit and neutral reads left to right). Anything else
    is isolated: a run that starts with a digit or a sign (``5.x``, ``-100``, ``[1, 2]``), ends with
    a neutral (``unscale_``, ``<eos>``, ``{pct:.1f}%``) or holds a field beside other text (``m={m}``)."""
    text = "".join(tokens)
    placed = [tok for tok, kind in zip(tokens, kinds) if kind == "word" and not re.fullmatch(r"\w+", tok, re.ASCII)]
    if not any(kind == "word" for kind in kinds):
        return False
    if len(tokens) == 1 and placed and placed[0].startswith(("{", LRI, RLI, FSI)):
        return False
    if placed:
        return True
    return not (re.fullmatch(r"\d+(?:[.,]\d+)*", text)
                or (re.match(r"[A-Za-z]", text) and re.search(r"[A-Za-z0-9]$", text)))


@functools.lru_cache(maxsize=4096)
def isolate_runs(text: str, rtl_fields: frozenset[str] = frozenset()) -> str:
    """``text`` (a sentence in a right-to-left language, possibly a ``str.format`` template) with
    each run of Latin letters, digits, fields and operators that the bidirectional algorithm could
    reorder put between LRI and PDI: a run of two words or more (``5.x``, ``{n} {unit}``,
    ``[1, 2]``), or one word with a sign, a bracket or an operator (``-100``, ``{pct:.1f}%``,
    ``×{k}``, ``unscale_``). A single word (``fp16``, ``{n}``) is left alone: it cannot be
    reordered. The fields named in ``rtl_fields`` hold right-to-left text and end a run, as an
    Arabic word does; ``{{`` and ``}}``, fields, HTML tags and isolates already there are never cut."""
    tokens = _tokens(text)
    kinds = [_kind(tok, rtl_fields) for tok in tokens]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if kinds[i] == "break":
            out.append(tokens[i])
            i += 1
            continue
        j = i
        while j < len(tokens) and kinds[j] != "break":
            j += 1
        out.append(_isolate_run(tokens[i:j], kinds[i:j]))
        i = j
    return "".join(out)


def _isolate_run(run: list[str], kinds: list[str]) -> str:
    """One run of a sentence, isolated where it could be reordered. A bracket that the run does not
    close or open belongs to the sentence (``min(…، max_norm)``): the run is cut there."""
    lone = sorted(_unmatched(run))
    if lone:
        pieces, at = [], 0
        for cut in lone:
            pieces += [_isolate_run(run[at:cut], kinds[at:cut]), run[cut]]
            at = cut + 1
        return "".join(pieces) + _isolate_run(run[at:], kinds[at:])
    a, b = _trim(run, kinds)
    if a < b and _reorderable(run[a:b], kinds[a:b]):
        return "".join(run[:a]) + LRI + "".join(run[a:b]) + PDI + "".join(run[b:])
    return "".join(run)


def isolate_printed(text: str, line_is_rtl: bool = False) -> tuple[str, bool]:
    """One piece of printed text (what one ``write`` to standard output gets), in a right-to-left
    language: a line with a right-to-left letter gets its left-to-right runs isolated
    (:func:`isolate_runs`), and a piece with none that continues such a line (the value in
    ``print(t("counts:"), [10, 10, 7, 7])``) is isolated whole. ``line_is_rtl`` says whether the
    line the piece continues holds a right-to-left letter; returns the piece and that, for the next."""
    out = []
    for i, piece in enumerate(text.split("\n")):
        if i:
            out.append("\n")
            line_is_rtl = False
        if right_to_left(piece):
            out.append(isolate_runs(piece))
            line_is_rtl = True
        elif line_is_rtl and piece.strip():
            body = piece.strip()
            lead, tail = piece[:len(piece) - len(piece.lstrip())], piece[len(piece.rstrip()):]
            out.append(lead + isolate(body) + tail)
        else:
            out.append(piece)
    return "".join(out), line_is_rtl


__all__ = ["LRI", "RLI", "FSI", "PDI", "CONTROLS", "right_to_left", "isolate", "isolate_runs", "isolate_printed",
           "strip_controls"]

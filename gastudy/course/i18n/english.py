"""Find English sentences in text that should be in another language.

A translated edition prints what its code cells print; anything that bypassed :func:`t` comes out
in English. :func:`english_lines` finds such lines by the small words English cannot do without
(articles, auxiliaries, prepositions), which Turkish, Spanish and Arabic sentences do not contain:
a line with at least :data:`MIN_FUNCTION_WORDS` different ones is English. Identifiers, code spans,
numbers and URLs are left out first, and an English term in parentheses (a gloss beside its
translation) holds too few such words to count. What is marked English on purpose — an element
with ``lang="en"``, as :func:`gastudy.course.checks.library_says` marks the library's own
messages — is not the edition's text and is left out.
"""

from __future__ import annotations

import html
import re

FUNCTION_WORDS = frozenset({
    "the", "and", "is", "are", "was", "were", "be", "been", "has", "have", "does", "did", "with", "of", "to",
    "in", "for", "not", "this", "that", "these", "those", "from", "by", "each", "every", "than", "which",
    "when", "what", "where", "your", "you", "it", "its", "an", "or", "but", "into", "only", "all", "also",
})
"""English words that carry no topic and occur in nearly every English sentence."""

MIN_FUNCTION_WORDS = 3

_CODE = re.compile(r"`[^`]*`|https?://\S+|\S*[_./()\[\]{}=<>\\\d]\S*")
_TAG = re.compile(r"<[^<>]*>")
_MARKED_ENGLISH = re.compile(r"<(\w+)\b[^<>]*\blang=[\"']en[\"'][^<>]*>.*?</\1>", re.S)
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def english_lines(text: str) -> list[str]:
    """The lines of ``text`` (HTML tags and elements marked ``lang="en"`` removed) that read as
    English sentences, stripped."""
    found = []
    for line in html.unescape(_TAG.sub(" ", _MARKED_ENGLISH.sub(" ", text))).splitlines():
        words = [w.lower() for w in _WORD.findall(_CODE.sub(" ", line))]
        if len(set(words) & FUNCTION_WORDS) >= MIN_FUNCTION_WORDS:
            found.append(line.strip())
    return found


def output_text(output: dict) -> str:
    """What a learner reads in one notebook output (nbformat dict): printed text, and the text,
    HTML, Markdown and image descriptions of displayed data; a widget's view is not text."""
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    if output.get("output_type") == "error":
        return f"{output.get('ename', '')}: {output.get('evalue', '')}"
    data = output.get("data", {})
    if "application/vnd.jupyter.widget-view+json" in data:
        return ""
    parts = [data[kind] for kind in ("text/html", "text/markdown") if data.get(kind)]
    if not parts:
        parts = [data.get("text/plain", "")]
    return "\n".join("".join(p) if isinstance(p, list) else p for p in parts)

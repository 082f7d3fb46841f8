"""One notation, used everywhere: the symbols of chapter 00's table keep their meaning in every
chapter's prose.

Chapter 00 holds ONE notation table (the markdown cell ``nb00-notation``): a symbol, what it
counts, and its unit — m samples per microbatch, A microbatches per group, D replicas, B = m·A·D
samples per update, S samples of a group, N supervised items of a group (the denominator), nᵢ
those of microbatch i, T tokens per row, L layers, P parameters, a activation bytes per sample, k
the factor a gradient is off by. This test reads the table, then reads the markdown of every
chapter as a learner reads it (fenced code in a programming language, inline code, HTML tags
and link targets left out; fences without a language, where the chapters write their formulas,
kept) and finds every use of those letters as a math symbol:

- m, n, N, D, T, S, B, L, P, k standing alone are symbols (none of them is an English word);
- a and A are symbols only next to an operator (``=``, ``×``, ``·``, ``/``, ``÷``, ``+``, ``−``,
  ``≤``, ``≥``, ``≈``, ``<``, ``>``, ``⟹``), since both are also English words ("a model",
  "A microbatch …").

A use is a slip when

1. **its unit is another symbol's**: the symbol, optionally ``= <number>``, is followed by a count
   noun (samples, tokens, items, microbatches, replicas, GPUs, layers, bytes …) that is not in
   the table's unit for it: "n microbatches" (that is A), "N = 1000 samples" (N counts items),
   "a = 4 microbatches", "D = 8 GPUs" (D counts replicas, not devices), "m = 64 tokens";
2. **it carries a subscript** and is not n: only nᵢ (n₁, n₂ …, Unicode subscripts) takes one —
   "S_b" for a summed loss, "n_b" in ASCII are not the table's symbols;
3. **n stands alone before a count noun**: a count of items is nᵢ (one microbatch) or N (the
   group), never a bare n ("n tokens", "accumulating n microbatches");
4. **N is used in a cell that never speaks of items, tokens, targets, the denominator or a loss**:
   N is the denominator; "not N ÷ D" said of a data set's size is another N;
5. **B is compared (≤, ≥, <, >) in a paragraph about a memory budget or bytes**: B is the
   samples of an update, not a number of bytes ("16 P + m a ≤ B" for a budget of 96 MiB).

What would make it fail: any chapter writing one of those uses (the test of the detector below
shows each rule firing on a sentence the chapters held before the table existed, and staying
quiet on the table's own sentences).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = sorted(p.name for p in NOTEBOOKS.glob("[01][0-9]_*.ipynb"))
TABLE_CELL = "nb00-notation"

# Fences in a programming language are code, not prose; a fence without one (or "text") holds a
# formula or a diagram, and its symbols count.
_CODE_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*(python|py|pycon|bash|sh|console|shell|ipython)\b.*?^\1", re.M | re.S)
_FENCE_MARK = re.compile(r"^(`{3,}|~{3,}).*$", re.M)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_TAG = re.compile(r"<[^<>]+>")
_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_URL = re.compile(r"https?://\S+")

SYMBOLS = "mnaADNTSBLPk"
_SUBSCRIPT = "ᵢⱼₖ₀₁₂₃₄₅₆₇₈₉"
_OCCURRENCE = re.compile(
    r"(?<![\w.'’/\\-])(?P<sym>[" + SYMBOLS + r"])(?P<sub>[" + _SUBSCRIPT + r"]+|_\w+)?(?![\w'’-])")
_OPERATORS = "=×·/÷+−≤≥≈<>⟹"
_PRODUCT = set("×·/÷+−")
_HINTS = {"L": " — L counts layers; the summed loss of microbatch i is ℓᵢ",
          "S": " — S counts samples; the summed loss of microbatch i is ℓᵢ",
          "T": " — T is the sequence length; a time gets a word (or t)"}
_AFTER = re.compile(r"\s*(?:=\s*[\d.,]+\s*)?(?P<word>[A-Za-z]+)")

COUNT_NOUNS = {"sample", "token", "item", "microbatch", "replica", "process", "gpu", "device", "layer",
               "parameter", "byte", "mib", "kib", "gib", "step", "update", "position", "target", "row",
               "sequence", "element", "epoch"}
SYNONYMS = {"target": "item"}  # a supervised item is a position with a target
N_CONTEXT = ("item", "token", "target", "supervised", "denominator", "loss", "∇")


def noun(word: str) -> str:
    """A word as a count noun's singular, lower case ("microbatches" → "microbatch")."""
    w = word.lower()
    for end in ("es", "s"):
        if w.endswith(end) and w[: -len(end)] in COUNT_NOUNS:
            w = w[: -len(end)]
            break
    return SYNONYMS.get(w, w)


def prose(markdown: str) -> str:
    """What a learner reads as text and formulas: code in a language, inline code, HTML tags and
    link targets removed; the marks of the other fences removed, their lines kept."""
    text = _CODE_FENCE.sub(" ", markdown)
    text = _FENCE_MARK.sub(" ", text)
    text = _INLINE_CODE.sub(" ", text)
    return _URL.sub(" ", _LINK_TARGET.sub("]", _TAG.sub(" ", text)))


def paragraphs(text: str) -> list[str]:
    """Paragraphs, list items and table rows of ``text``, each one string."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        item: list[str] = []
        for line in block.splitlines():
            if re.match(r"\s*([-*+]\s|\d+\.\s|\|)", line) and item:
                out.append(" ".join(item))
                item = []
            item.append(line.strip())
        if item:
            out.append(" ".join(item))
    return [p for p in out if p.strip()]


def _neighbour_is_operator(text: str, start: int, end: int) -> bool:
    before = text[:start].rstrip()[-1:]
    after = text[end:].lstrip()[:1]
    return bool(before and before in _OPERATORS) or bool(after and after in _OPERATORS)


def _compared(text: str, start: int, end: int) -> bool:
    """Whether the symbol at ``text[start:end]`` stands next to ≤, ≥, < or >."""
    before, after = text[:start].rstrip()[-1:], text[end:].lstrip()[:1]
    return bool(before and before in "≤≥<>") or bool(after and after in "≤≥<>")


def notation_table(markdown: str) -> dict[str, set[str]]:
    """Symbol → the count nouns of its unit, from the rows ``| symbol | counts | unit |`` of 00's table."""
    units: dict[str, set[str]] = {}
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not line.lstrip().startswith("|"):
            continue
        symbol = re.sub(r"[*`]", "", cells[0])
        symbol = re.sub(r"[" + _SUBSCRIPT + r"]", "", symbol).strip()
        if len(symbol) == 1 and symbol in SYMBOLS:
            units[symbol] = {noun(w) for w in re.findall(r"[A-Za-z]+", cells[-1])} & COUNT_NOUNS
    return units


def slips(markdown: str, units: dict[str, set[str]]) -> list[str]:
    """Every use of a table symbol in ``markdown`` that does not mean what the table says, as
    ``'<rule>: …context…'``."""
    found = []
    text = prose(markdown)
    lower = text.lower()  # N is judged by the cell it is used in
    for para in paragraphs(text):
        for occ in _OCCURRENCE.finditer(para):
            sym, sub = occ.group("sym"), occ.group("sub")
            if sym in "aA" and not _neighbour_is_operator(para, occ.start(), occ.end()):
                continue  # the English word
            where = para[max(0, occ.start() - 40): occ.end() + 40].strip()
            if sub and sym != "n":
                hint = _HINTS.get(sym, "")
                found.append(f"subscript: {sym}{sub} is not in the table (only nᵢ takes one){hint}: …{where}…")
            if sym == "n" and sub and sub.startswith("_") and sub != "_A":
                found.append(f"subscript: n{sub} — write nᵢ, n₁, n₂ …: …{where}…")
            after = _AFTER.match(para, occ.end())
            said = after.group("word") if after else ""
            word = noun(said)
            in_product = para[:occ.start()].rstrip()[-1:] in _PRODUCT  # "m × A × D samples": the product's unit
            if word in COUNT_NOUNS and not in_product:
                if sym == "n" and not sub:
                    found.append(f"bare n: a count of {said} is nᵢ or N (A for microbatches): …{where}…")
                elif sym in units and word not in units[sym]:
                    found.append(f"unit: {sym} counts {'/'.join(sorted(units[sym])) or 'no unit'}, not {said}: "
                                 f"…{where}…")
            if sym == "N" and not any(w in lower for w in N_CONTEXT):
                found.append(f"N is the denominator (supervised items), but this cell never speaks of items or a loss: "
                             f"…{where}…")
            if sym == "B" and _compared(para, occ.start(), occ.end()) and any(
                    w in para.lower() for w in ("budget", "byte", "mib", "gib")):
                found.append(f"B is the samples of an update, not a memory budget: …{where}…")
    return found


def table_units() -> dict[str, set[str]]:
    nb = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    cell = next((c for c in nb.cells if c.get("id") == TABLE_CELL), None)
    assert cell is not None and cell.cell_type == "markdown", f"00_start_here has no markdown cell {TABLE_CELL}"
    return notation_table(cell.source)


def test_chapter_00_has_one_notation_table_with_every_symbol_and_unit():
    nb = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    tables = [c.get("id") for c in nb.cells if c.cell_type == "markdown" and "| symbol |" in c.source.lower()]
    assert tables == [TABLE_CELL], f"one notation table, in {TABLE_CELL}: found {tables}"
    units = table_units()
    assert set(units) == set(SYMBOLS), f"symbols missing from the table: {set(SYMBOLS) - set(units)}"
    expected = {"m": {"sample"}, "A": {"microbatch"}, "D": {"replica"}, "B": {"sample"}, "S": {"sample"},
                "N": {"item"}, "n": {"item"}, "T": {"token"}, "L": {"layer"}, "P": {"parameter"}, "a": {"byte"}}
    for sym, must in expected.items():
        assert must <= units[sym], f"{sym}: its unit column must name {must}, it names {units[sym]}"
    assert units["k"] == set(), "k is a pure number (a factor): its unit names no count"


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_chapter_uses_the_table_symbols_in_the_tables_meaning(name):
    units = table_units()
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    found = [f"{c.get('id')}: {s}" for c in nb.cells if c.cell_type == "markdown" for s in slips(c.source, units)]
    assert not found, f"{name}: symbols used against chapter 00's notation table:\n" + "\n".join(found)


# Sentences the chapters held before the table (01, 02, 03, 07, 13), and the slips of each rule.
BEFORE = {
    "GA-1 (accumulating n microbatches gives a larger effective batch; the step diagram)": "bare n",
    "Count what the replicas really receive, not N ÷ D.": "N is the denominator",
    "its number of supervised items n_b, and N = n_1 + … + n_A": "subscript: n_b",
    "∇ (S_1 + … + S_A) / N   =   ∇(S_1 / N) + … + ∇(S_A / N) over all N supervised items": "subscript: S_1",
    "**07.1** A run uses N = 1000 samples, m = 6, A = 8, D = 1": "unit: N counts",
    "solves the inequality 16 P + m a ≤ B for a budget of 96 MiB": "B is the samples of an update",
    "a = 4 microbatches of the same size": "unit: a counts",
    "on D = 8 GPUs": "unit: D counts",
    "m = 64 tokens per row": "unit: m counts",
}
QUIET = [
    "A microbatch is the set of samples one replica pushes through one forward pass — m samples.",
    "m = 2, A = 8, D = 2 → B = m · A · D = 32 samples per update, 16 per replica.",
    "the group's N = n₁ + … + n₄ = 48 supervised items; microbatch i carries nᵢ/N of it",
    "16 P + m a ≤ budget, so m ≤ (budget − 16 P) / a, where a is 0.5 MiB",
    "a model, a group, a 4-byte tensor (a classifier) and `every_n_layers = n`",
    "```python\nn = 3  # code\nN = 1000\n```",
    "checkpoint every n-th layer, n = 2 → layers 1, 3, 5",
    "the gradient is k = 4× too small: A = 4",
]


def test_the_detector_finds_each_kind_of_slip_and_passes_the_tables_own_sentences():
    units = table_units()
    for sentence, rule in BEFORE.items():
        got = slips(sentence, units)
        assert any(s.startswith(rule) for s in got), f"{sentence!r}: expected a '{rule}…' slip, got {got}"
    for sentence in QUIET:
        assert slips(sentence, units) == [], sentence
    nb = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    table = next(c.source for c in nb.cells if c.get("id") == TABLE_CELL)
    assert slips(table, units) == [], "the notation table contradicts itself"

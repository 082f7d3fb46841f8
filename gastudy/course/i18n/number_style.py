"""Numbers in the translations, written as the labs print them.

A lab prints a number through :func:`gastudy.course.i18n.t` in the language's style (Unicode CLDR
through Babel, :class:`gastudy.course.i18n.LocalNumber`); a translated sentence or markdown cell
writes its own numbers the same way, so that a learner reads one style in the text and in the
output beside it. :func:`style` is that style, read from the same symbols the labs use:

====  ============  =========  ============  =========================================
code  thousands     decimal    percent       an integer is grouped from
====  ============  =========  ============  =========================================
tr    ``65.536``    ``3,5``    ``%5``        4 digits (``1.536``, in formulas too)
es    ``65 536``    ``3,5``    ``5 %``       5 digits (``2048``: four digits stay whole)
ar    ``65,536``    ``3.5``    ``5%``        5 digits; Latin digits, no space before ``%``
====  ============  =========  ============  =========================================

(Spanish groups thousands with a thin space, as the RAE and ASALE ask, not with CLDR's point:
:data:`gastudy.course.i18n.GROUP_SYMBOL`; a point between groups of three in a Spanish text is
read as the old grouping and rewritten.)

:func:`problems` finds, in a translated text, every number that does not follow its language's
style: an English decimal point or thousands comma (``3.5`` and ``65,536`` in Turkish; a number
the English text writes and the translation copied where the language reads it otherwise), a
grouping of another language (``65 536``, ``1.536`` in Arabic for the English ``1,536``), a long
integer without its separators (``2048`` in a Turkish formula), Arabic-Indic digits, and a percent
sign on the wrong side or with the wrong space (``5 %`` in Arabic, ``25%`` in Turkish, also beside a
``{field}``). Each problem carries its fix; :func:`fix` applies them all, :func:`local_number`
spells one number for a language.

Left alone: code (fenced blocks, inline code), links, HTML tags, ``{fields}`` themselves, and what is
a name rather than a quantity: a number joined to letters (``fp16``, ``MB-3``, ``nb03-12``,
``GPT-2``, ``1e-8``), a version (``Python 3.10`` and the ``3.11`` after it, ``4.46.0``, ``5.x``,
``127.0.0.1``), an exercise's id (``01.1``, ``10.2``), a setting's value (``max_norm = 1.0``,
``seed=1234``), a port or a time (``:8888``), and a year (``2019`` after ``©``, a month, or
beside *yıl* / *año* / *عام*). Course section: 00.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DIGITS = "0-9\u0660-\u0669\u06f0-\u06f9"
_SEPARATORS = ".,\u00a0\u202f\u2009\u066b\u066c"
_BLANKS = " \u00a0\u202f\u2009"
_INDIC = str.maketrans("\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669\u06f0\u06f1\u06f2\u06f3"
                       "\u06f4\u06f5\u06f6\u06f7\u06f8\u06f9\u066b\u066c\u066a", "01234567890123456789.,%")


@dataclass(frozen=True)
class Style:
    """How language ``code`` writes numbers, as its labs print them."""

    code: str
    decimal: str
    group: str
    percent_before: bool
    """``%25`` (Turkish) rather than ``25%``."""
    percent_space: str
    """What stands between the number and a trailing percent sign (``"\\u00a0"`` in Spanish)."""
    grouped_from: int
    """The digits of an integer part from which it must be grouped."""


GROUPED_FROM = {"tr": 4, "es": 5, "ar": 5, "en": 5}
"""From how many digits an integer part is grouped in prose: Turkish groups ``1.536`` (and the
course's Turkish formulas do too); Spanish and Arabic accept a four-digit number either way (CLDR's
minimum grouping for Spanish, and the English formulas' ``2048``)."""


def style(code: str) -> Style:
    """The number style of language ``code`` (``"tr"``, ``"es"``, ``"ar"``, ``"en"``), from the
    symbols :class:`gastudy.course.i18n.LocalNumber` prints with."""
    from gastudy.course.i18n import _number_symbols

    decimal, group, before, after = _number_symbols(code)
    return Style(code, decimal, group, bool(before.strip()), after.replace("%", ""), GROUPED_FROM.get(code, 5))


@dataclass(frozen=True)
class Problem:
    """One number of a text that its language writes otherwise: where it is (``start``, ``end`` in
    the text), what it says, what it should say, and why."""

    start: int
    end: int
    found: str
    fix: str
    why: str

    def __str__(self) -> str:
        return f"{self.found!r} → {self.fix!r} ({self.why})"


# --------------------------------------------------------------------------- reading one number

def _value(token: str, decimal: str, group: str, grouped_from: int = 1) -> tuple[str, str] | None:
    """(integer digits, fraction digits) of ``token`` read with these symbols (a group of three
    digits after each ``group``, ``group`` never after ``decimal``), ``None`` when it does not
    read so. An ungrouped integer part from ``grouped_from`` digits on does not read either."""
    whole, _, fraction = token.partition(decimal) if decimal in token else (token, "", "")
    if decimal in fraction or (fraction and not fraction.isdigit()):
        return None
    parts = whole.split(group) if group else [whole]
    if not all(p.isdigit() for p in parts) or (len(parts) > 1 and (len(parts[0]) > 3 or any(len(p) != 3 for p in parts[1:]))):
        return None
    if len(parts) == 1 and len(whole) >= grouped_from:
        return None
    return "".join(parts), fraction


def _read(token: str) -> tuple[str, str] | None:
    """``token`` read in any style the course's texts use: English (``65,536.5``), Turkish and
    Spanish (``65.536,5``), grouped with spaces (``65 536``); ``None`` when none reads it."""
    plain = token.translate(_INDIC)
    for decimal, group in ((".", ","), (",", "."), (",", "\u00a0"), (",", "\u202f"), (",", "\u2009"), (".", "\u202f")):
        found = _value(plain, decimal, group, grouped_from=99)
        if found is not None:
            return found
    return None


def spell(whole: str, fraction: str, code: str, grouped: bool = False) -> str:
    """The number with integer digits ``whole`` and fraction digits ``fraction`` as language
    ``code`` writes it: grouped when ``grouped`` or when its style requires it (from
    :attr:`Style.grouped_from` digits)."""
    s = style(code)
    if grouped or len(whole) >= s.grouped_from:
        groups = []
        while len(whole) > 3:
            whole, groups = whole[:-3], [whole[-3:], *groups]
        whole = s.group.join([whole, *groups])
    return whole + (s.decimal + fraction if fraction else "")


def _grouped(token: str, whole: str) -> bool:
    """True when ``token`` wrote its integer digits ``whole`` in groups (``65,536``, ``65 536``)."""
    return re.split(r"[.,]", token)[0] != whole


def local_number(token: str, code: str) -> str:
    """``token`` — a number as English writes it (``65,536``, ``1536``, ``3.5``, ``5%``, ``5 %``),
    or in another style :func:`problems` recognizes — as language ``code`` writes it: ``65.536``,
    ``1.536``, ``3,5``, ``%5`` in Turkish; ``65 536`` (a narrow no-break space), ``1536``,
    ``3,5``, ``5 %`` (a no-break space) in Spanish; ``65,536``, ``3.5``, ``5%`` in Arabic. Raises ``ValueError`` for what is
    no number."""
    text = token.strip().translate(_INDIC)
    percent = "%" in text
    number = text.replace("%", "").strip(_BLANKS)
    found = _value(number, ".", ",", grouped_from=99) or _read(number)
    if found is None:
        raise ValueError(f"{token!r} is not a number this module reads (digits, '.', ',', a space, '%')")
    written = spell(*found, code, grouped=_grouped(number, found[0]))
    if not percent:
        return written
    s = style(code)
    return f"%{written}" if s.percent_before else f"{written}{s.percent_space}%"


# --------------------------------------------------------------------------- finding them in a text

_CODE = re.compile(r"```.*?```|~~~.*?~~~|``.*?``|`[^`\n]*`|https?://\S+|\]\([^)\n]*\)|<[^>\n]*>", re.S)
_NOT_PROSE = re.compile(rf"{_CODE.pattern}|\{{[^{{}}\n]*\}}", re.S)
_NUMBER = re.compile(rf"(?P<before>[%\u066a][{_BLANKS}]?)?(?P<num>[{_DIGITS}]+(?:[{_SEPARATORS}][{_DIGITS}]+)*)"
                     rf"(?P<after>[{_BLANKS}]?[%\u066a])?")
_FIELD_PERCENT = re.compile(rf"(?P<before>%[{_BLANKS}]?)?(?P<field>\{{[^{{}}\n]*\}})(?P<after>[{_BLANKS}]?%)?")
_PRODUCT = re.compile(r"(?<!\w)(?:Python|PyTorch|torch|CUDA|Transformers|transformers|Accelerate|accelerate|JupyterLab|"
                      r"Jupyter|NumPy|numpy|Babel|nbformat|Node|pip|Chromium|Playwright|Ubuntu|macOS|Windows|"
                      r"[Vv]ersion|versión|sürüm|sürümü|الإصدار)\W{0,2}$")
_SETTING = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_.]+\s*=\s*|--[\w-]+[ =])$")
_YEAR_CUE = re.compile(r"(?:©|\b(?:January|February|March|April|May|June|July|August|September|October|November|"
                       r"December|Ocak|Şubat|Mart|Nisan|Mayıs|Haziran|Temmuz|Ağustos|Eylül|Ekim|Kasım|Aralık|enero|"
                       r"febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|año|"
                       r"عام|سنة)\W{0,3})$", re.I)
_YEAR_AFTER = re.compile(r"^(?:'?\w{0,3}\s+)?(?:yıl|yılı|yılında|yılının)\b")


def _prose(text: str) -> str:
    """``text`` with code, links, tags and fields blanked (same length: places stay the text's)."""
    return _NOT_PROSE.sub(lambda m: " " * len(m.group(0)), text)


def _tokens(text: str) -> list[str]:
    """The number tokens of ``text``'s prose, as written (for the English text of a translation)."""
    return [m["num"] for m in _NUMBER.finditer(_prose(text))]


def _is_name(prose: str, match: re.Match, versions: list[tuple[int, str]]) -> bool:
    """True when the number of ``match`` is a name, not a quantity (see the module's list)."""
    start, end, num = match.start("num"), match.end("num"), match["num"]
    before, after = prose[max(0, start - 40):start], prose[end:end + 12]
    if re.search(r"(?:[^\W\d]|_|[^\W\d_][\-.]|\d[\-.:]|[§#:])$", before) or re.match(r"(?:[^\W\d]|_|[-.]\w)", after):
        return True  # joined to a name (MB-3, fp16, nb03-12, 5.x, 1e-8), a time or a port
    if _SETTING.search(before) or re.match(r"[.,]x\b|\+(?!\s*\d)", after):
        return True  # max_norm = 1.0, --port 8888, 5.x, 3.10+
    if num.count(".") >= 2 and _value(num, ",", ".", grouped_from=99) is None:
        return True  # 4.46.0, 127.0.0.1 (1.000.000 is a number)
    if re.fullmatch(r"(?:0\d|1[0-3])\.\d", num):
        return True  # an exercise: 01.1 … 13.2
    if _PRODUCT.search(before):
        return True  # Python 3.10, PyTorch 2.0
    if "." in num and any(v.split(".")[0] == num.split(".")[0] and start - at < 60 for at, v in versions):
        return True  # the 3.11 of "Python 3.10 or later (3.11 recommended)"
    return bool(re.fullmatch(r"(?:19|20)\d\d", num) and (_YEAR_CUE.search(before) or _YEAR_AFTER.match(after)))


def problems(text: str, code: str, english: str | None = None) -> list[Problem]:
    """The numbers of ``text`` (a translation into ``code``) written otherwise than its labs print
    them, in order; ``english`` is the text it translates, to tell a number copied from it."""
    s = style(code)
    prose = _prose(text)
    copied = set(_tokens(english)) if english else set()
    english_values = {_value(t, ".", ",", grouped_from=99) for t in copied} - {None}
    versions: list[tuple[int, str]] = []
    found: list[Problem] = []
    for match in _NUMBER.finditer(prose):
        num = match["num"]
        if _is_name(prose, match, versions):
            if "." in num and _PRODUCT.search(prose[max(0, match.start("num") - 40):match.start("num")]):
                versions.append((match.start("num"), num))
            continue
        fix, why = _fix_number(num, s, copied, english_values)
        before, after = match["before"], match["after"]
        if before or after:
            shown, pct_why = _percent(fix, before, after, s)
            fix, why = shown, why or pct_why
        written = match.group(0)
        if fix != written:
            found.append(Problem(match.start(), match.end(), written, fix, why))
    for match in _FIELD_PERCENT.finditer(_CODE.sub(lambda m: " " * len(m.group(0)), text)):
        if (match["before"] or match["after"]) and not match["field"].rstrip("}").endswith("%"):
            shown, why = _percent(match["field"], match["before"], match["after"], s)
            if shown != match.group(0):
                found.append(Problem(match.start(), match.end(), match.group(0), shown, why))
    return sorted(found, key=lambda p: p.start)


def _fix_number(num: str, s: Style, copied: set[str], english_values: set) -> tuple[str, str]:
    """(the number as style ``s`` writes it, why it changed or ``""``)."""
    plain = num.translate(_INDIC)
    if plain != num:
        found = _read(plain)
        return (spell(*found, s.code) if found else plain), "Latin digits, as the labs print them"
    mine = _value(num, s.decimal, s.group, s.grouped_from)
    as_english = _value(num, ".", ",", grouped_from=99)
    if mine is not None:
        if num in copied and as_english is not None and as_english != mine:
            return spell(*as_english, s.code, grouped=_grouped(num, as_english[0])), \
                "copied from the English, which reads it otherwise"
        swapped = num.translate(str.maketrans(".,", ",."))
        other = _value(swapped, ".", ",", grouped_from=99)
        if english_values and other in english_values and mine not in english_values:
            return spell(*other, s.code, grouped=_grouped(swapped, other[0])), "the English number in another language's style"
        return num, ""
    found = _value(num, s.decimal, s.group, grouped_from=99)  # right symbols, but too long ungrouped
    if found is not None:
        return spell(*found, s.code, grouped=True), f"grouped from {s.grouped_from} digits"
    found = None
    if s.decimal == "," and num not in copied:  # a point in a decimal-comma language groups thousands (65.536)
        found = _value(num, ",", ".", grouped_from=99)
    found = found or _read(num)
    if found is None:
        return num, ""
    return spell(*found, s.code, grouped=_grouped(num, found[0])), f"decimal {s.decimal!r} and thousands {s.group!r}"


def _percent(number: str, before: str | None, after: str | None, s: Style) -> tuple[str, str]:
    """``number`` with its percent sign where style ``s`` puts it, and why it moved (or ``""``)."""
    written = f"{before or ''}{number}{after or ''}"
    if s.percent_before:
        shown = f"%{number}"
    else:
        space = (after or "")[:-1]
        shown = f"{number}{space if s.percent_space and space else s.percent_space}%"
    why = "" if shown == written else (
        "the percent sign before the number" if s.percent_before else
        "a space before the percent sign" if s.percent_space else "no space before the percent sign")
    return shown, why


def fix(text: str, code: str, english: str | None = None) -> str:
    """``text`` with every number of :func:`problems` written as its fix."""
    for problem in reversed(problems(text, code, english)):
        text = text[:problem.start] + problem.fix + text[problem.end:]
    return text

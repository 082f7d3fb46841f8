"""What reads left to right inside the Arabic edition keeps its order — the mechanism, without a browser.

:mod:`gastudy.course.i18n.bidi` finds the runs the bidirectional algorithm could reorder and isolates
them; :func:`gastudy.course.i18n.t` isolates every left-to-right field and run in a right-to-left
language; tables give their left-to-right cells ``dir="ltr"``; what the learner types is read back
without the isolates. English (and Turkish and Spanish) output is exactly what it was. The browser
measures the result in tests/test_browser_rtl_output.py.
"""

from __future__ import annotations

import io
import re
import sys

import pytest

from gastudy.course import i18n
from gastudy.course.i18n.bidi import (
    CONTROLS,
    LRI,
    PDI,
    isolate,
    isolate_printed,
    isolate_runs,
    right_to_left,
    strip_controls,
)


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.set_language("en")


def shown(text: str) -> str:
    """``text`` with its isolates as ⟨ ⟩, to read the expectations."""
    return text.replace(LRI, "⟨").replace(PDI, "⟩")


@pytest.mark.parametrize("sentence, isolated", [
    ("القيمة -100 هنا", "القيمة ⟨-100⟩ هنا"),                         # a sign
    ("المفاتيح (5.x):", "المفاتيح ⟨(5.x)⟩:"),                       # a number, then a letter
    ("بنسبة {value:.1f}%، ثم", "بنسبة ⟨{value:.1f}%⟩، ثم"),          # a field and its percent sign
    ("m={m} و A={A}", "⟨m={m}⟩ و ⟨A={A}⟩"),                           # a field beside text
    ("{n} {unit} هنا", "⟨{n} {unit}⟩ هنا"),                           # two fields
    ("(‖g_steps‖ ÷ ‖g_mean‖ = 1)", "⟨(‖g_steps‖ ÷ ‖g_mean‖ = 1)⟩"),  # a formula
    ("<bos> 12+7= 19 <eos> في", "⟨<bos> 12+7= 19 <eos>⟩ في"),         # tags are never cut
    ("يُرفض unscale_ لكل", "يُرفض ⟨unscale_⟩ لكل"),                   # a trailing underscore
    ("الخسارة = {x}", "الخسارة = {x}"),            # the "=" after an Arabic word is the sentence's
    ("| = 0.004569 nat", "| = ⟨0.004569 nat⟩"),
    ("min(الحقيقي، max_norm) (3 ≈ 3)", "min(الحقيقي، max_norm) ⟨(3 ≈ 3)⟩"),  # brackets it does not close
    ("fp16 هنا", "fp16 هنا"), ("MB-3 · عنوان", "MB-3 · عنوان"),      # cannot be reordered: left alone
    ("m=4, A=8 ثم", "m=4, A=8 ثم"), ("عند 1,536 رمز", "عند 1,536 رمز"), ("{n} هنا", "{n} هنا"),
    ("{{literal}} x", "⟨{{literal}} x⟩"),
])
def test_runs_that_could_be_reordered_are_isolated(sentence, isolated):
    assert shown(isolate_runs(sentence)) == isolated


def test_a_right_to_left_field_ends_a_run():
    assert isolate_runs("{first}; {second}", frozenset({"first", "second"})) == "{first}; {second}"
    assert shown(isolate_runs("{first}; {second}")) == "⟨{first}; {second}⟩"


def test_isolate_strip_and_direction():
    assert isolate("x") == f"{LRI}x{PDI}" and isolate(isolate("x")) == isolate("x") and isolate("  ") == "  "
    assert isolate("a\nb") == f"{LRI}a{PDI}\n{LRI}b{PDI}"  # a line break ends an isolate
    assert strip_controls(f"{LRI}-1{PDI}\u200f") == "-1"
    assert right_to_left("نص") and not right_to_left("[1, 2] fp16 ٣")


def test_arabic_sentences_isolate_their_fields_and_literals():
    i18n.set_language("ar")
    counts = i18n.t("supervised items per microbatch: {items}", items=[19, 19, 20, 15])
    assert f"{LRI}[19, 19, 20, 15]{PDI}" in counts
    error = i18n.t("size of the error: the denominator is {value:.1f}% too large, so the loss reads "
                   "{loss_wrong:.4f} instead of {loss_right:.4f}", value=9.0, loss_wrong=-1.5, loss_right=2)
    assert f"{LRI}{LRI}9.0{PDI}%{PDI}" in error and f"{LRI}-1.5000{PDI}" in error
    assert strip_controls(error) == i18n.table("ar")[
        "size of the error: the denominator is {value:.1f}% too large, so the loss reads {loss_wrong:.4f} "
        "instead of {loss_right:.4f}"].format(value=9.0, loss_wrong=-1.5, loss_right=2)
    arabic = i18n.t("not answered yet")
    joined = i18n.t("{first}; {second}", first=arabic, second=arabic)
    assert LRI not in joined  # right-to-left values are filled in as they are


def test_no_arabic_sentence_of_the_course_leaves_a_run_to_reorder():
    """Every sentence of the Arabic catalog, filled with numbers: whatever could still be reordered
    is already isolated (isolating it again changes nothing), and every signed number is isolated."""
    i18n.set_language("ar")
    checked = signed = 0
    for message in i18n.catalog("ar"):
        if not message.id or not message.string or message.pluralizable or message.fuzzy:
            continue
        fields = {name: 4 for name in re.findall(r"\{([A-Za-z_]\w*)", message.id)}
        try:
            out = i18n.t(message.id, context=message.context, **fields)
        except ValueError:
            continue
        assert isolate_runs(out) == out, (message.id, shown(out))
        signed += len(re.findall(r"(?<![\w)])-\d", strip_controls(out)))
        outside = out
        while re.search(f"{LRI}[^{LRI}{PDI}]*{PDI}", outside):  # what is left outside every isolate
            outside = re.sub(f"{LRI}[^{LRI}{PDI}]*{PDI}", "x", outside)
        assert not re.search(r"(?<![\w)])-\d", outside), shown(out)  # a signed number is inside its isolate
        checked += 1
    assert checked > 1000 and signed > 5


def test_english_turkish_and_spanish_output_is_exactly_the_text_filled():
    """Every course sentence, filled with numbers, lists and names: no control character in any
    left-to-right language, and English byte-identical to ``str.format`` of the English text."""
    values = [-0.008313, [19, 19, 20, 15], "m=4", 3, 0.25, "fp16"]
    messages = list(i18n.template())
    assert len(messages) > 1000
    for code in ("en", "tr", "es"):
        i18n.set_language(code)
        for message in messages:
            english = message.id if isinstance(message.id, str) else message.id[0]
            names = dict.fromkeys(re.findall(r"\{([A-Za-z_]\w*)", english))
            fields = {}
            for i, name in enumerate(names):
                fields[name] = values[i % len(values)]
            try:
                english.format(**fields)
            except (ValueError, TypeError, KeyError, IndexError, AttributeError):
                fields = {name: 1 for name in names}  # a field with a numeric format spec
            try:
                expected = english.format(**fields)
            except (ValueError, TypeError, KeyError, IndexError, AttributeError):
                continue
            if isinstance(message.id, str):
                out = i18n.t(english, context=message.context, **fields)
            else:
                out = i18n.tn(message.id[0], message.id[1], 1, context=message.context, **{**fields, "n": 1})
                expected = message.id[0].format(**{**fields, "n": 1})
            assert not set(out) & set(CONTROLS), (code, english, out)
            if code == "en":
                assert out == expected, english


def test_english_tables_checks_and_say_are_as_before(capsys):
    from gastudy.course.checks import check_close
    from gastudy.course.widgets import format_table, say

    rows = [{"gap": -0.008313, "change": "+8.99%", "ids": "[10, 8, 9, 11]", "name": "tokens"}]
    html = format_table(rows).html
    assert 'dir="' not in html and not set(html) & set(CONTROLS)
    check_close(3.5, 3.5, "token-weighted mean of the 512/1536 example")
    say("counted: [1, 2]")
    assert capsys.readouterr().out == "✓ token-weighted mean of the 512/1536 example (3.5 ≈ 3.5)\ncounted: [1, 2]\n"


def test_arabic_tables_give_left_to_right_cells_their_direction(capsys):
    from gastudy.course.checks import check_close
    from gastudy.course.widgets import format_table

    i18n.set_language("ar")
    rows = [{"gap": -0.008313, "change": "+8.99%", "ids": "[10, 8, 9, 11]", "name": "نعم"}]
    html = format_table(rows, headers={"gap": "الفجوة"}).html
    cells = re.findall(r"<td[^>]*>[^<]*</td>", html)
    assert [('dir="ltr"' in c) for c in cells] == [True, True, True, False], cells
    assert '<th style="text-align:right">الفجوة</th>' in html and 'dir="ltr">change</th>' in html
    check_close(3.5, 3.5, "token-weighted mean of the 512/1536 example")
    assert f"({LRI}3.5 ≈ 3.5{PDI})" in capsys.readouterr().out


@pytest.mark.parametrize("typed, number", [
    (f"{LRI}3.5{PDI}", 3.5), ("٣٫٥", 3.5), ("١٬٥٣٦", 1536.0), ("−2", -2.0), ("25٪", 0.25),
    ("\u200f1,536\u200f", 1536.0), ("3,5", 3.5), ("six", None),
])
def test_numbers_typed_or_copied_in_the_arabic_edition_are_read(typed, number):
    from gastudy.course.questionnaire import read_number

    assert read_number(typed) == number


def test_printed_lines_isolate_what_follows_arabic():
    line, rtl = isolate_printed("أهداف التنبؤ:")
    assert line == "أهداف التنبؤ:" and rtl
    value, rtl = isolate_printed(" [10, 10, 7, 7]", rtl)
    assert value == f" {LRI}[10, 10, 7, 7]{PDI}"
    end, rtl = isolate_printed("\ninput_ids: [1, 2]\n", rtl)
    assert end == "\ninput_ids: [1, 2]\n" and not rtl  # a line of code and numbers stays as it is


def test_standard_output_isolates_only_in_a_right_to_left_language(monkeypatch):
    class Stream(io.StringIO):
        pass

    stream = Stream()
    monkeypatch.setattr(sys, "stdout", stream)
    i18n._wrap_stdout()
    i18n._wrap_stdout()  # once is enough: a second call does not wrap again
    print(i18n.t("supervised items per microbatch:"), [10, 10, 7, 7])
    i18n.set_language("ar")
    print(i18n.t("supervised items per microbatch:"), [10, 10, 7, 7])
    i18n.set_language("en")
    english, arabic = stream.getvalue().splitlines()
    assert english == "supervised items per microbatch: [10, 10, 7, 7]"
    assert arabic.endswith(f" {LRI}[10, 10, 7, 7]{PDI}") and right_to_left(arabic)


def test_figures_are_drawn_without_isolates_and_described_with_them(monkeypatch):
    """matplotlib lays Arabic out itself and puts an isolated number's sign on the wrong side: the
    figure is drawn without isolates; its text alternative keeps them."""
    import IPython.display

    from gastudy.course.widgets import show_figure, subplots

    shown_html = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **_: shown_html.append(obj.data))

    i18n.set_language("ar")
    fig, ax = subplots()
    ax.plot([1, 2], [3, 4], label=i18n.t("supervised items per microbatch: {items}", items=[1, 2]))
    ax.set_title(i18n.t("supervised items per microbatch: {items}", items=[-1, 2]))
    ax.set_xticks([1, 2], [f"{LRI}-1{PDI}", "2"])
    ax.legend()
    show_figure(fig)
    drawn = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    assert not any(set(text) & set(CONTROLS) for text in drawn), drawn
    alt = re.search(r'alt="([^"]*)"', shown_html[-1]).group(1)
    assert f"{LRI}[-1, 2]{PDI}" in alt and f"{LRI}1 → 3, 2 → 4{PDI}" in alt
    assert [label.get_text() for label in ax.get_xticklabels()] == ["-1", "2"]


def test_the_site_index_reads_right_to_left_with_its_numbers_in_order():
    from gastudy.course.site import Page, _in_language, _index_html

    pages = [Page("03_loss_normalization", "عنوان", ["MB-3", "GA-4"], 12.3)]
    arabic = _in_language("ar", _index_html, pages, False, 20.0, "ar", "")
    english = _in_language("en", _index_html, pages, False, 20.0, "en", "")
    assert '<bdi dir="ltr">12.3 s</bdi>' in arabic and '<bdi dir="ltr">03_loss_normalization</bdi>' in arabic
    assert "th, td { text-align: start; }" in arabic
    assert re.search(f"{LRI}\\d{{4}}-\\d\\d-\\d\\d \\d\\d:\\d\\d{PDI}", arabic)  # the date
    assert "<bdi" not in english and not set(english) & set(CONTROLS) and "text-align: start" not in english

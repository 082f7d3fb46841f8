"""The labs of chapters 00–05 in Turkish and Arabic: titles, controls, tables, verdicts and
exercise feedback come from the string tables, Arabic HTML is right-to-left, English comes back."""

from __future__ import annotations

import pytest

from gastudy.course import i18n
from gastudy.course.exercises import check_exercise
from gastudy.course.i18n.terms import term
from gastudy.course.labs.effective_batch import EffectiveBatchLab
from gastudy.course.labs.group import LastGroupLab
from gastudy.course.labs.normalization import WeightedMeanLab
from gastudy.course.labs.precision_lab import OverflowLab
from gastudy.course.labs.start import GlossaryLab, show_glossary
from gastudy.course.labs.updates import KnobsLab
from gastudy.course.widgets import format_table


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.set_language("en")


def _header(lab) -> str:
    return lab.widget().children[0].value


# chapter → (a cheap lab of that chapter, its control whose label is translated, a line its render prints)
LABS = {
    "00": (GlossaryLab, "term", None),
    "01": (KnobsLab, "dataset_size", None),
    "02": (EffectiveBatchLab, "replicas", "counted: {distinct} distinct samples in update 1; each replica's share: {shares}"),
    "03": (WeightedMeanLab, "count_a", None),
    "04": (LastGroupLab, "policy", "a constant divisor A would weight it {ratio}× (expected {expected} = {n}/{A})"),
    "05": (OverflowLab, "updates", "attempted {attempted}, applied {applied}, scheduler steps {scheduler}, backward passes {backward}"),
}


@pytest.mark.parametrize("chapter", sorted(LABS))
@pytest.mark.parametrize("code", ["tr", "ar"])
def test_a_lab_of_each_chapter_is_built_in_the_chosen_language(chapter, code, capsys):
    cls, control, printed = LABS[chapter]
    english = cls()
    english_title, english_label = english.title, english.controls[control].description
    assert english_title and 'dir="rtl"' not in _header(english)
    capsys.readouterr()

    i18n.set_language(code)
    lab = cls()
    table = i18n.table(code)
    assert lab.title == table[english_title] != english_title
    assert lab.controls[control].description == table[english_label] != english_label
    assert lab.title in _header(lab)
    assert ('dir="rtl"' in _header(lab)) == (code == "ar")
    if printed is not None:  # the verdict line printed by render is the translated sentence
        out = capsys.readouterr().out
        head = table[printed].split("{")[0].strip()
        assert head and head in out and printed.split("{")[0].strip() not in out

    i18n.set_language("en")
    again = cls()
    assert (again.title, again.controls[control].description) == (english_title, english_label)
    assert 'dir="rtl"' not in _header(again)


def test_dropdown_labels_are_translated_and_values_stay_the_ones_code_compares():
    i18n.set_language("tr")
    lab = LastGroupLab()
    assert lab.controls["policy"].options == (("tut", "keep"), ("at", "drop"))
    lab.controls["policy"].value = "drop"
    assert lab.result.policy == "drop"


def test_glossary_in_another_language_shows_the_rendering_beside_the_english_term(capsys):
    i18n.set_language("tr")
    text = show_glossary()
    assert f"{term('microbatch').tr} (microbatch)" in text
    assert i18n.table("tr")["One optimizer step: the parameters change once per group, then the gradients are zeroed."] in text
    assert "terim" in text.splitlines()[0] and "anlamı" in text.splitlines()[0]
    lab = GlossaryLab()
    assert ("birikim grubu (group)", "group") in lab.controls["term"].options
    lab.controls["term"].value = "denominator"
    assert lab.result.where == "gastudy.core.replicas.SingleReplica.group_denominator"
    i18n.set_language("en")
    assert "microbatch" in show_glossary().splitlines()[2] and "(microbatch)" not in show_glossary()


def test_tables_and_exercise_feedback_follow_the_language(capsys):
    rows = [{"a": i, "b": "x"} for i in range(12)]
    i18n.set_language("ar")
    html = format_table(rows, headers={"a": "أ"}).html
    assert html.startswith('<div class="gastudy-table" dir="rtl"') and "جميع الصفوف (12)" in html and ">أ</th>" in html
    result = check_exercise("00.1", None)
    assert result.feedback == i18n.table("ar")["write your answer above (in place of None) and run this cell."]
    assert 'dir="rtl"' in result.to_html() and "لم تُحاوَل بعد" in result.to_html()
    i18n.set_language("es")
    wrong = check_exercise("02.1", 100)
    assert not wrong and wrong.feedback.startswith("no es 100. ¿Cuántas réplicas")
    i18n.set_language("en")
    assert format_table(rows).html.startswith('<div class="gastudy-table" style=')
    assert check_exercise("00.1", None).status == "not attempted yet"

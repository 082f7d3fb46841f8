"""The labs of chapters 00–05 in Turkish and Arabic: titles, controls, tables, verdicts and
exercise feedback come from the catalogs, Arabic HTML is right-to-left, English comes back."""

from __future__ import annotations

import re

import pytest

from gastudy.course import i18n
from gastudy.course.exercises import check_exercise
from gastudy.course.i18n.bidi import strip_controls
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
    "04": (LastGroupLab, "policy", "a constant divisor A would weight it {ratio:.4g}× (expected {expected:.4g} = {n}/{A})"),
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
    html = strip_controls(format_table(rows, headers={"a": "أ"}).html)  # without the isolates of its numbers
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


# ----------------------------------------------------------------------------- chapters 06–09
def _labs_06_09() -> dict:
    """Each lab of chapters 06–09 with cheap settings (built once per language by the test)."""
    from gastudy.course.labs import checkpoint_lab as ck
    from gastudy.course.labs import experiment as ex
    from gastudy.course.labs import memory_lab as mem

    return {
        "07 norms": lambda: ex.NormalizationLab(micro_batch=2, accumulation_steps=1),
        "07 rounding": lambda: ex.RoundingLab(micro_batch=1, accumulation_steps=1, updates=0),
        "07 updates": lambda: ex.UpdatesPerEpochLab(dataset_size=100),
        "07 throughput": lambda: ex.ThroughputLab(hidden=64, seq_len=16, repeats=3),
        "08 saved": lambda: ck.SavedBytesLab(hidden=64, layers=1),
        "08 layers": lambda: ck.LayerDiagramLab(every_n_layers=2, layers=3),
        "08 tradeoff": lambda: ck.TradeoffLab(micro_batch=1, seq_len=32, repeats=2),
        "08 combine": lambda: ck.CombineLab(seq_len=32, repeats=2),
        "08 formula": lambda: ck.FormulaLab(seq_len=16, hidden=64),
        "08 offload": lambda: ck.OffloadLab(micro_batch=1, seq_len=32),
        "09 timeline": lambda: mem.TimelineLab(micro_batch=1, accumulation_steps=1, groups=2),
        "09 devices": lambda: mem.DevicesLab(),
        "09 planner": lambda: mem.PlannerLab(budget_mib=100, target=8, hidden=64, seq_len=8),
    }


SYMBOLS = {"m", "A", "D", "n", "every_n_layers"}  # control labels that are the course's symbols (or the API's argument) in every language


def _assert_built_in(lab, code: str, printed: str) -> None:
    """The lab's title, control labels and option labels are translations; Arabic HTML is rtl."""
    translations = i18n.table(code)
    english_of = {v: k for k, v in translations.items() if v != k}
    header = _header(lab)
    assert strip_controls(lab.title) in english_of and lab.title in header, lab.title
    assert ('dir="rtl"' in header) == (code == "ar")
    for name, control in lab.controls.items():
        label = control.description
        assert label in SYMBOLS or label in english_of, f"{name}: {label!r} is not translated"
        for option in getattr(control, "options", ()):
            if isinstance(option, tuple) and isinstance(option[1], str) and option[0] != option[1]:
                assert option[0] in english_of, f"{name}: option {option!r}"
    text = re.sub(r"<IPython\.core\.display\.(Image|HTML) object>|\x1b\[2K|\r", "", printed).strip()  # plots aside
    words = [v for v in translations.values() if len(v) > 3]
    assert text == "" or any(w in text for w in words), text[:200]


_MEASURED: dict = {}  # lab name → its English lab's result: each measurement runs once, rendered in both languages


def _timed(kind: str):
    """The timing labs' measurements on a smaller model, one repeat: the same result types, in less time."""
    from gastudy.course.labs.checkpoint_lab import COMBINATIONS, SETTINGS
    from gastudy.course.labs.experiment import LAYOUTS
    from gastudy.memory.timing import compare_checkpointing, compare_layouts

    small = {"hidden": 32, "layers": 4, "heads": 4, "max_len": 32}
    if kind == "layouts":
        return compare_layouts(LAYOUTS, model="tiny-gpt", model_kwargs=small, seq_len=8, repeats=1)
    if kind == "settings":
        return compare_checkpointing(SETTINGS, micro_batch=1, accumulation_steps=1, seq_len=8, model_kwargs=small,
                                     repeats=1)
    runs = [r for n in (None, 1) for r in compare_layouts(((8, 1), (2, 4)), every_n_layers=n, seq_len=8,
                                                          repeats=1, model_kwargs=small)]
    by_key = {(r.micro_batch, r.accumulation_steps, r.every_n_layers): r for r in runs}
    return {name: by_key[key] for name, key in COMBINATIONS.items()}


_CHEAPER = {"07 throughput": lambda: _timed("layouts"), "08 tradeoff": lambda: _timed("settings"),
            "08 combine": lambda: _timed("combine")}


@pytest.mark.parametrize("code", ["tr", "ar"])
@pytest.mark.parametrize("name", sorted(_labs_06_09()))
def test_labs_of_chapters_06_to_09_in_turkish_and_arabic(name, code, capsys, monkeypatch):
    import matplotlib.pyplot as plt

    if name not in _MEASURED:
        _MEASURED[name] = _CHEAPER.get(name, lambda: _labs_06_09()[name]().result)()
    i18n.set_language(code)
    capsys.readouterr()
    from gastudy.course.widgets import Lab

    # the lab is built in the chosen language and draws the measured result (not measured again)
    monkeypatch.setattr(Lab, "refresh", lambda self: (setattr(self, "result", _MEASURED[name]),
                                                      self.render(self.result)))
    lab = _labs_06_09()[name]()
    printed = capsys.readouterr().out  # render's tables and verdicts (no IPython: printed as text)
    _assert_built_in(lab, code, printed)
    plt.close("all")


@pytest.mark.parametrize("peaks, fixed, budget", [
    ({8: 300, 4: 200, 2: 150, 1: 120}, 110, 100),  # the fixed part alone is over the budget
    ({8: 300, 4: 200, 2: 150, 1: 120}, 40, 100),  # even m = 1 is over: activations too large
    ({8: 300, 4: 200, 2: 90, 1: 80}, 60, 100),  # m = 2 fits; the fixed part dominates its peak
    ({8: 90, 4: 80, 2: 70, 1: 60}, 10, 100),  # the largest m fits
])
def test_chapter_09_planner_verdict_in_the_course_language_says_what_the_library_says(peaks, fixed, budget):
    from gastudy.course.labs.memory_lab import plan_verdict
    from gastudy.memory.planner import plan_for_budget

    plan = plan_for_budget(budget, 8, measure=lambda m, a: (peaks[m], fixed))  # given numbers, no measurement
    assert plan_verdict(plan) == plan.verdict  # English: the library's verdict, word for word
    i18n.set_language("es")
    spanish = plan_verdict(plan)
    assert spanish != plan.verdict and spanish.split(" ")[0] in ("Ningún", f"m={plan.chosen and plan.chosen.micro_batch},")


def test_chapter_09_timeline_texts_from_the_library_are_shown_in_the_course_language(capsys):
    from gastudy.course.labs.memory_lab import TimelineLab, phase_name

    i18n.set_language("es")
    assert phase_name("forward 2.1") == "adelante 2.1" and phase_name("update 1") == "actualización 1"
    assert phase_name("baseline") == "base"
    capsys.readouterr()
    lab = TimelineLab(micro_batch=1, accumulation_steps=1, groups=2)
    out = capsys.readouterr().out
    assert "Una prueba con solo la pasada hacia adelante" in out and "A forward-only check" not in out
    assert "A forward-only check" in lab.result.summary()  # the library's own summary stays English


def test_exercises_of_chapters_06_to_09_answer_in_the_chosen_language():
    i18n.set_language("tr")
    assert check_exercise("07.1", 1000 // 48).feedback == i18n.table("tr")[
        "that drops the short last group; this run keeps it (last_group='keep')."]
    assert check_exercise("08.1", [0, 3, 6, 9]).feedback.startswith("bunlar 0'dan başlayan indisler")
    i18n.set_language("ar")
    result = check_exercise("09.1", [1, 2, 3, 4, 6, 8, 12, 16, 24, 48])
    assert not result and strip_controls(result.feedback) == "هذا يتجاهل D: كل نسخة مكرَّرة تأخذ 48 ÷ 2 عيّنة في كل تحديث."
    assert 'dir="rtl"' in result.to_html()


@pytest.mark.parametrize("lab_name, steps, first_note", [
    ("norms", 3 + 2, "bn-mlp: büyük yığına karşı bir güncelleme"),  # 3 models, then BatchNorm at m = 2 and 4
    ("rounding", 3 + 2, "fp64 ile bir güncelleme"),  # 3 precisions, then 2 drifts
    ("timeline", 1 + 2, "ısınma güncellemesi"),  # the warm-up, then 2 groups
    ("planner", 4, "m=8, A=1 ölçülüyor (1 / 4)"),  # m = 8, 4, 2, 1
])
def test_slow_labs_of_07_and_09_advance_their_progress_bar_per_measured_step(lab_name, steps, first_note):
    """Each measured step moves the busy row's bar forward, with a note in the course language."""
    from gastudy.course.labs import experiment as ex
    from gastudy.course.labs import memory_lab as mem

    lab = {"norms": lambda: ex.NormalizationLab(micro_batch=2, accumulation_steps=2),
           "rounding": lambda: ex.RoundingLab(micro_batch=1, accumulation_steps=2, updates=5),
           "timeline": lambda: mem.TimelineLab(micro_batch=1, accumulation_steps=1, groups=2),
           "planner": lambda: mem.PlannerLab(budget_mib=100, target=8, hidden=64, seq_len=8)}[lab_name]()
    i18n.set_language("tr")
    seen = []
    lab.report_progress = lambda fraction, text="": seen.append((fraction, text))
    lab.refresh()
    fractions = [f for f, _ in seen]
    assert len(seen) == steps and fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] <= 1.0
    assert len(set(fractions)) == steps and seen[0][1] == first_note


# ----------------------------------------------------------------------------- chapters 10–12
def _labs_10_12() -> dict:
    """A cheap instance of each lab of chapters 10–12 (the clinic's cases are computed once and shared)."""
    from gastudy.course.labs import clinic, questions, verify_lab

    return {
        "10 verify": lambda: verify_lab.VerifyLab(),
        "10 record": lambda: verify_lab.RecordLab(micro_batch=4, accumulation_steps=4),
        "11 clinic": lambda: clinic.ClinicLab("double_division"),
        "11 table": lambda: clinic.ClinicTableLab(accumulation_steps=3),
        "12 questions": lambda: questions.QuestionsLab("gpus"),
    }


# a text each lab's render prints outside a notebook (its English head must not appear in the other language)
_RENDERED = {"10 verify": "PASSED", "10 record": "observed peak {peak}; saved to {json} and {markdown}",
             "11 clinic": "look for:", "11 table": "measured on the pitfall", "12 questions": None}


@pytest.mark.parametrize("code", ["tr", "ar"])
@pytest.mark.parametrize("name", sorted(_labs_10_12()))
def test_labs_of_chapters_10_to_12_in_turkish_and_arabic(name, code, capsys):
    import matplotlib.pyplot as plt

    english = _labs_10_12()[name]()
    english_title = english.title
    english_labels = {k: c.description for k, c in english.controls.items()}
    english_options = {k: list(getattr(c, "options", ())) for k, c in english.controls.items()}
    assert english_title and 'dir="rtl"' not in _header(english)
    capsys.readouterr()

    i18n.set_language(code)
    table = i18n.table(code)
    lab = _labs_10_12()[name]()
    printed = capsys.readouterr().out
    assert lab.title == table[english_title] != english_title and lab.title in _header(lab)
    assert ('dir="rtl"' in _header(lab)) == (code == "ar")
    for key, control in lab.controls.items():
        if english_labels[key] not in {"m", "A"}:  # the course's symbols stay as they are
            assert control.description == table[english_labels[key]], key  # (Turkish "model" is "model")
        for (label, value), (english_label, english_value) in zip(
                [o for o in getattr(control, "options", ()) if isinstance(o, tuple)],
                [o for o in english_options[key] if isinstance(o, tuple)]):
            assert value == english_value  # the values code compares stay English
            assert label != english_label or label == value, (key, label)
    rendered = _RENDERED[name]
    if rendered is not None:  # the render's own words are translated, the English ones absent
        assert table[rendered].split("{")[0].strip() in printed
        assert rendered.split("{")[0].strip() not in printed
    plt.close("all")


def test_verifier_and_clinic_translate_the_library_names_and_keep_its_measurements():
    from gastudy.check.diagnostics import Verdict
    from gastudy.course.labs.clinic import SYMPTOMS, clinic_case, symptom_name, verdict_text
    from gastudy.course.labs.verify_lab import check_name, verdict_lines, verify

    report = verify(normalization="steps")
    i18n.set_language("es")
    assert check_name("gradient equals the big batch") == "el gradiente es igual al del lote grande"
    assert check_name("a check the course does not know") == "a check the course does not know"
    lines = verdict_lines(report)
    assert lines[0] == "FALLÓ:" and lines[1:] == [f"- {r}" for r in report.reasons]  # reasons: the library's
    assert SYMPTOMS["memory_growth"].seen == "la memoria crece con cada microlote de un grupo"
    assert symptom_name("double division") == symptom_name("double_division") == "doble división"
    verdict = Verdict("schedule drift", True, "the scheduler stepped 12 times")
    assert verdict_text(verdict) == "⚠ deriva del calendario: the scheduler stepped 12 times"
    case = clinic_case("double_division", 4)
    assert clinic_case("double_division", 4) is case  # computed once, shared by the clinic's labs
    i18n.set_language("en")
    assert SYMPTOMS["memory_growth"].seen == "memory grows with every microbatch of a group"
    assert sorted(SYMPTOMS) == sorted(["double_division", "partition_dependence", "ineffective_accumulation",
                                       "memory_growth", "schedule_drift"])
    with pytest.raises(KeyError):
        SYMPTOMS["slow training"]


def test_clinic_table_advances_its_progress_bar_per_case():
    from gastudy.course.labs.clinic import ClinicTableLab
    from gastudy.course.pitfalls import PITFALLS

    lab = ClinicTableLab(accumulation_steps=3)
    seen = []
    lab.report_progress = lambda fraction, text="": seen.append((fraction, text))
    lab.refresh()
    assert [text for _, text in seen[:-1]] == list(PITFALLS) and seen[-1] == (1.0, "")
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and len(set(fractions)) == len(PITFALLS) + 1


def test_questions_are_asked_and_answered_in_the_chosen_language():
    from gastudy.course.labs.questions import QUESTIONS, ask

    english = ask("gpus")
    i18n.set_language("ar")
    answer = ask("gpus")
    table = i18n.table("ar")
    assert answer.evidence == english.evidence  # the same measurement, another language
    assert answer.question == QUESTIONS["gpus"].question == table["I train on 8 GPUs: is my effective batch m × A × 8?"]
    assert answer.text.startswith("فقط إذا كانت الثماني") and "64" in answer.text and "128" in answer.text
    shown = answer._repr_markdown_()
    assert shown.startswith('<div dir="rtl" lang="ar">') and "**س: " in shown
    i18n.set_language("tr")
    short = ask("short-group")
    assert "`keep` 3 güncelleme" in short.text and "`drop` 2 güncelleme" in short.text
    i18n.set_language("en")
    assert ask("gpus").markdown().startswith(f"**Q: {english.question}**")


def test_exercises_of_chapters_10_to_12_answer_in_the_chosen_language():
    i18n.set_language("tr")
    assert check_exercise("10.1", "bf16").feedback == "verify argümanlarından oluşan bir dict ile yanıtlayın; gelen: 'bf16'"
    assert check_exercise("11.2", True).feedback == "bir sayıyla (k çarpanı) yanıtlayın; gelen: True"
    i18n.set_language("es")
    assert check_exercise("12.1", 50).feedback == "responda con una fracción entre 0 y 1, no con un porcentaje"
    i18n.set_language("ar")
    wrong = check_exercise("10.2", "six")
    assert not wrong and strip_controls(wrong.feedback) == "أجب بعدد صحيح من العينات؛ وصلنا: 'six'"
    assert 'dir="rtl"' in wrong.to_html()

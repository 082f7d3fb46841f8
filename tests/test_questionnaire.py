"""End-of-chapter questionnaires: every chapter has one, its right answers are graded right, its
wrong ones wrong, an open answer is compared with the course's, and a learner's number is read
as their language writes it."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from gastudy.course import i18n
from gastudy.course.questionnaire import Question, Questionnaire, questions, read_number
from gastudy.course.questionnaires import chapters

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHAPTERS = sorted(p.name[:2] for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.set_language("en")


def test_every_chapter_has_a_questionnaire_of_six_to_ten_questions_mostly_checked():
    assert chapters() == CHAPTERS and len(CHAPTERS) == 14
    for nn in CHAPTERS:
        qs = questions(nn)
        kinds = [q.kind for q in qs]
        assert 6 <= len(qs) <= 10, nn
        assert kinds.count("open") >= 1 and len(qs) - kinds.count("open") >= 4, (nn, kinds)
        assert len({q.prompt for q in qs}) == len(qs), f"{nn}: a question asked twice"
        rights = [q.right for q in qs if q.kind == "choice"]
        assert len(rights) < 2 or len(set(rights)) > 1, f"{nn}: the right choice is always at {rights[0]}"


def _right(q: Question) -> object:
    return q.right if q.kind == "choice" else q.number if q.kind == "number" else "in my own words"


def _wrong(q: Question) -> object:
    return (q.right + 1) % len(q.choices) if q.kind == "choice" else q.number * 2 + 1


@pytest.mark.parametrize("nn", CHAPTERS)
def test_right_answers_are_right_and_wrong_ones_wrong(nn):
    quiz = Questionnaire(nn)
    for i, q in enumerate(quiz.questions):
        quiz.answer(i, _right(q))
    grades = quiz.check()
    assert [g.ok for g in grades] == [None if q.kind == "open" else True for q in quiz.questions]
    checked = sum(q.kind != "open" for q in quiz.questions)
    opened = len(quiz.questions) - checked
    assert quiz.summary_text(grades).startswith(f"{checked} of {checked} checkable answers right; {opened} open")
    assert all(v.value and q.explanation.split()[0] in v.value for v, q in zip(quiz.verdicts, quiz.questions))
    for i, q in enumerate(quiz.questions):
        if q.kind != "open":
            quiz.answer(i, _wrong(q))
    grades = quiz.check()
    assert [g.ok for g in grades] == [None if q.kind == "open" else False for q in quiz.questions]
    assert quiz.summary_text(grades).startswith(f"0 of {checked} checkable")


def test_an_unanswered_question_is_neither_right_nor_wrong():
    quiz = Questionnaire("02")
    grades = quiz.check()
    assert all(g.ok is None and not g.answered and g.mark == "·" for g in grades)
    checked = sum(q.kind != "open" for q in quiz.questions)
    assert quiz.summary_text(grades) == f"0 of {checked} checkable answers right; 0 open answers to compare with the course's"


@pytest.mark.parametrize("text, value", [
    ("32", 32.0), (" 3.5 ", 3.5), ("3,5", 3.5), ("1,536", 1536.0), ("1.536", 1536.0), ("65 536", 65536.0),
    ("0.750", 0.75), ("0,750", 0.75), ("75%", 0.75), ("%25", 0.25), ("2×", 2.0), (7, 7.0), (0.5, 0.5),
    ("-100", -100.0), ("1e-5", 1e-5), ("three", None), ("", None), (True, None), ("nan", None), ([1], None)])
def test_a_number_is_read_as_the_learner_writes_it(text, value):
    assert read_number(text) == value


def test_a_number_question_takes_its_tolerance_and_names_a_non_number():
    q = Question("ratio?", "because", number=4 / 3, rel_tol=0.02)
    assert q.grade("1.33").ok is True and q.grade("1,34").ok is True and q.grade("1.4").ok is False
    assert q.grade("about one").ok is False and q.grade("about one").feedback == "answer with a number, such as 32 or 3.5"
    assert q.grade(None).answered is False and q.grade("  ").answered is False


@pytest.mark.parametrize("kwargs, needle", [
    ({"choices": ("a", "b"), "right": 2}, "right=2 is not one of its 2 choices"),
    ({"choices": ("a", "b")}, "right=None is not one of its 2 choices"),
    ({"right": 0}, "give choices with right, or a number, not both"),
    ({"choices": ("a",), "right": 0, "number": 1.0}, "not both"),
    ({"number": float("inf")}, "must be finite"),
    ({"number": 1.0, "rel_tol": -0.1}, "rel_tol ≥ 0")])
def test_a_malformed_question_is_refused(kwargs, needle):
    with pytest.raises(ValueError, match=re.escape(needle)):
        Question("q?", "why", **kwargs)


def test_an_unknown_chapter_names_the_chapters_that_have_one():
    with pytest.raises(KeyError, match="no questionnaire for chapter '99'; chapters with one: 00, 01"):
        questions("99")


@pytest.mark.parametrize("code", ["tr", "es", "ar"])
def test_the_questionnaire_is_asked_and_graded_in_the_chosen_language(code):
    i18n.set_language(code)
    quiz = Questionnaire("03")
    for i, q in enumerate(quiz.questions):
        quiz.answer(i, _right(q))
    assert all(g.ok is not False for g in quiz.check())
    assert "Check my answers" != quiz.button.description == i18n.t("Check my answers")
    i18n.set_language("en")
    prompts = [q.prompt for q in questions("03")]
    i18n.set_language(code)
    assert [i18n.t(p) for p in prompts] == [q.prompt for q in quiz.questions]
    assert all(p != i18n.t(p) for p in prompts), f"{code}: a question of chapter 03 is not translated"
    if code == "ar":
        assert 'dir="rtl"' in quiz.widget.children[1].children[0].value


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.name[:2])
def test_every_chapter_ends_with_its_questionnaire(path):
    cells = nbformat.read(path, as_version=4).cells
    nn = path.name[:2]
    assert cells[-2].cell_type == "markdown" and cells[-2].source.startswith("## Questionnaire")
    assert cells[-1].source.endswith(f'Questionnaire("{nn}")')

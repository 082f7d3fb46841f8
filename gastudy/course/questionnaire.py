"""A questionnaire at the end of every chapter: questions answered from memory, checked where they can be.

In the style of *fastbook*'s questionnaires: six to ten questions on what the chapter showed. A
question with one right choice or a number is checked; an open question ("why …?") is answered in
the learner's words and compared with the course's answer, which every question shows once it is
checked. In a notebook::

    from gastudy.course.questionnaire import Questionnaire
    Questionnaire("03")

The questions of chapter ``NN`` are the function ``questions()`` of
``gastudy.course.questionnaires.chNN``, written in English through :func:`gastudy.course.i18n.t`,
so they are read in the course language when the questionnaire is shown. Tests drive it
headless: ``quiz.answer(2, 1)`` then ``quiz.check()``.
"""

from __future__ import annotations

import html
import importlib
import math
import re
from dataclasses import dataclass
from typing import Any

from gastudy.course.i18n import direction, t, tn
from gastudy.course.i18n.bidi import CONTROLS


@dataclass(frozen=True)
class Question:
    """One question: its ``prompt``, and the ``explanation`` shown once it is checked.

    A choice question gives ``choices`` and the index ``right`` of the one right choice; a number
    question gives ``number`` (right within ``rel_tol`` of it, relative); an open question gives
    neither. Raises ``ValueError`` for a question that mixes the kinds or whose ``right`` is not a
    choice."""

    prompt: str
    explanation: str
    choices: tuple[str, ...] = ()
    right: int | None = None
    number: float | None = None
    rel_tol: float = 0.0

    def __post_init__(self) -> None:
        if self.choices and not (isinstance(self.right, int) and 0 <= self.right < len(self.choices)):
            raise ValueError(f"question {self.prompt!r}: right={self.right!r} is not one of its "
                             f"{len(self.choices)} choices (give its index, from 0)")
        if (self.right is not None and not self.choices) or (self.choices and self.number is not None):
            raise ValueError(f"question {self.prompt!r}: give choices with right, or a number, not both")
        if self.rel_tol < 0 or (self.number is not None and not math.isfinite(self.number)):
            raise ValueError(f"question {self.prompt!r}: the number must be finite and rel_tol ≥ 0")

    @property
    def kind(self) -> str:
        """``"choice"``, ``"number"`` or ``"open"``."""
        return "choice" if self.choices else "number" if self.number is not None else "open"

    def grade(self, response: object) -> Grade:
        """Judge ``response``: the index or the text of a choice; a number (an ``int``/``float``, or
        text such as ``"3.5"``, ``"3,5"``, ``"1,536"`` or ``"1.536"`` read as the learner's
        language writes it); any text for an open question. ``None`` or empty text is not
        answered yet."""
        if response is None or (isinstance(response, str) and not response.strip()):
            return Grade(None, t("not answered yet"), answered=False)
        if self.kind == "open":
            return Grade(None, t("compare with the course's answer: {answer}", answer=self.explanation))
        if self.kind == "choice":
            chosen = response if isinstance(response, int) else (
                self.choices.index(response) if response in self.choices else None)
            ok = chosen == self.right
        else:
            value = read_number(response)
            if value is None:
                return Grade(False, t("answer with a number, such as 32 or 3.5"))
            ok = math.isclose(value, self.number, rel_tol=self.rel_tol, abs_tol=1e-12)
        return Grade(ok, self.explanation)


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer: ``ok`` true, false, or ``None`` (open, or not answered yet)."""

    ok: bool | None
    feedback: str
    answered: bool = True

    @property
    def mark(self) -> str:
        return "·" if not self.answered else "✓" if self.ok else "✗" if self.ok is False else "↔"

    def box(self, body_html: str, css_class: str = "") -> str:
        """``body_html`` after the verdict's mark, in a block with a border of the mark's colour on
        the side the course language starts from (colours of 4.5:1 contrast on white)."""
        colour = _MARK_COLOURS[self.mark]
        side = "right" if direction() == "rtl" else "left"
        klass = f' class="{css_class}"' if css_class else ""
        return (f'<div{klass} dir="{direction()}" style="border-{side}:4px solid {colour};padding:.2em .7em">'
                f'<b style="color:{colour}">{self.mark}</b> {body_html}</div>')


_MARK_COLOURS = {"✓": "#2e7d32", "✗": "#a84300", "↔": "#1f5f99", "·": "#616161"}


# What an Arabic keyboard or a copy from the page puts in a number: Arabic-Indic and Persian digits,
# the Arabic decimal and thousands separators and percent sign, the minus sign, and the page's
# bidirectional controls (the isolates around every number of the Arabic edition).
_ARABIC_INPUT = {**{ord(d): str(i) for i, d in enumerate("٠١٢٣٤٥٦٧٨٩")},
                 **{ord(d): str(i) for i, d in enumerate("۰۱۲۳۴۵۶۷۸۹")},
                 ord("٫"): ".", ord("٬"): ",", ord("٪"): "%", ord("−"): "-",
                 **{ord(c): None for c in CONTROLS}}


def read_number(response: object) -> float | None:
    """``response`` as a number, or ``None``. Text may use a decimal comma (``3,5``) and a
    thousands separator (``1,536`` or ``1.536``, a point or comma followed by exactly three
    digits); a trailing ``%`` divides by 100. Arabic-Indic digits, the Arabic separators (``٣٫٥``,
    ``١٬٥٣٦``, ``٪``), the minus sign ``−`` and bidirectional controls (a number copied from the
    Arabic page carries isolates) are read too."""
    if isinstance(response, bool):
        return None
    if isinstance(response, int | float):
        return float(response)
    if not isinstance(response, str):
        return None
    text = response.translate(_ARABIC_INPUT).strip().replace("\u00a0", "").replace(" ", "").replace("×", "")
    percent = text.endswith("%") or text.startswith("%")
    text = text.strip("%")
    if re.fullmatch(r"[-+]?\d{1,3}([.,]\d{3})+", text) and not re.fullmatch(r"[-+]?0[.,]\d{3}", text):
        text = re.sub(r"[.,]", "", text)  # 1,536 or 1.536: a thousands separator
    elif text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")  # 3,5
    try:
        value = float(text)
    except ValueError:
        return None
    return value / 100 if percent else value if math.isfinite(value) else None


def right_to_left_choices(field: Any) -> Any:
    """In a right-to-left language, mark a choice widget (``RadioButtons``) ``gastudy-rtl``: the
    style :func:`gastudy.course.i18n.set_language` shows lays it out right to left, each choice
    starting on the right with its button. Returns ``field``; elsewhere it is left as it is."""
    if direction() == "rtl":
        field.add_class("gastudy-rtl")
    return field


def questions(chapter: str) -> list[Question]:
    """The questions of chapter ``chapter`` (``"03"``), in the current course language. Raises
    ``KeyError`` naming the chapters that have a questionnaire when it has none."""
    from gastudy.course import questionnaires

    module = f"{questionnaires.__name__}.ch{chapter}"
    try:
        return importlib.import_module(module).questions()
    except ModuleNotFoundError as err:
        if err.name != module:
            raise
        raise KeyError(f"no questionnaire for chapter {chapter!r}; chapters with one: "
                       f"{', '.join(questionnaires.chapters())}") from None


class Questionnaire:
    """A chapter's questionnaire as a widget: every question with a place to answer (choices as
    radio buttons, a number or an open answer as text), and one button that checks them all.

    ``answer(i, response)`` fills question ``i`` (from 0) as a learner would; ``check()`` grades
    every answer, shows each verdict with its explanation and a summary, and returns the
    :class:`Grade` list."""

    def __init__(self, chapter: str):
        import ipywidgets as w

        self.chapter = chapter
        self.questions = questions(chapter)
        self.inputs: list[Any] = []
        self.verdicts: list[Any] = []
        rows = []
        for i, q in enumerate(self.questions, 1):
            prompt = w.HTML(f'<div dir="{direction()}"><b>{i}.</b> {html.escape(q.prompt)}</div>')
            if q.kind == "choice":
                field = w.RadioButtons(options=list(q.choices), value=None, layout=w.Layout(width="auto"))
                right_to_left_choices(field)
            elif q.kind == "number":
                field = w.Text(placeholder=t("a number"), layout=w.Layout(width="12em"))
            else:
                field = w.Textarea(placeholder=t("your answer, in a sentence or two"),
                                   layout=w.Layout(width="95%", height="4em"))
            verdict = w.HTML(self.hidden_answer(q))
            verdict.add_class("gastudy-verdict")
            self.inputs.append(field)
            self.verdicts.append(verdict)
            row = w.VBox([prompt, field, verdict])
            row.add_class("gastudy-question")
            rows.append(row)
        self.button = w.Button(description=t("Check my answers"), button_style="primary", icon="check")
        self.summary = w.HTML()
        self.summary.add_class("gastudy-summary")
        self.button.add_class("gastudy-check")
        self.button.on_click(lambda _: self.check())
        title = w.HTML(f'<h3 dir="{direction()}">{html.escape(t("Questionnaire · chapter {chapter}", chapter=chapter))}</h3>')
        self.widget = w.VBox([title, *rows, w.HBox([self.button, self.summary])])
        self.widget.add_class("gastudy-questionnaire")

    @staticmethod
    def hidden_answer(question: Question) -> str:
        """The course's answer to ``question``, folded (``<details>``): under each question until
        it is checked, for a learner who is stuck, and on the static site, where nothing runs."""
        summary = html.escape(t("the course's answer"))
        return (f'<details dir="{direction()}"><summary>{summary}</summary>'
                f"{html.escape(question.explanation)}</details>")

    def answer(self, index: int, response: object) -> None:
        """Answer question ``index`` (from 0): a choice's index or text, a number, or text."""
        field, q = self.inputs[index], self.questions[index]
        if q.kind == "choice":
            field.value = q.choices[response] if isinstance(response, int) else response
        else:
            field.value = "" if response is None else str(response)

    def responses(self) -> list[object]:
        """What the learner has answered so far (``None`` for an unanswered choice)."""
        return [field.value for field in self.inputs]

    def check(self) -> list[Grade]:
        """Grade every answer, show the verdicts and the summary; return the grades."""
        grades = [q.grade(r) for q, r in zip(self.questions, self.responses())]
        for q, grade, verdict in zip(self.questions, grades, self.verdicts):
            verdict.value = (grade.box(html.escape(grade.feedback))
                             + ("" if grade.answered else self.hidden_answer(q)))
        summary = html.escape(self.summary_text(grades))
        self.summary.value = f'<div dir="rtl">{summary}</div>' if direction() == "rtl" else summary
        return grades

    def summary_text(self, grades: list[Grade]) -> str:
        """``"4 of 5 checkable answers right; 2 open answers to compare with the course's"``, in the
        course language (an unanswered question counts as not right)."""
        checkable = [g for q, g in zip(self.questions, grades) if q.kind != "open"]
        opened = sum(g.answered for q, g in zip(self.questions, grades) if q.kind == "open")
        right = t("{right} of {total} checkable answers right", right=sum(g.ok is True for g in checkable),
                  total=len(checkable))
        compare = tn("{n} open answer to compare with the course's", "{n} open answers to compare with the course's",
                     opened)
        return t("{first}; {second}", first=right, second=compare)  # Arabic joins with its own semicolon

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

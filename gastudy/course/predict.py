"""Predict first: a question asked *before* a lab runs, answered by the lab's measurement.

A chapter asks for a prediction, the learner writes it down, the lab measures, and
:meth:`Prediction.reveal` puts the truth beside what was written::

    guess = Prediction(t("4 microbatches of 8 against one batch of 32: how many significant "
                         "digits of the gradient agree?"), unit=t("digits"))
    guess                                   # the question and a field to write in
    ...                                     # the lab runs
    guess.reveal(digits, t("float32 keeps about 7 significant digits; …"))

A number prediction is right within ``rel_tol`` (relative) of the measured number; a choice
prediction names one of ``choices``, and :meth:`~Prediction.reveal` gets the index of the right
one. A prediction left empty is not wrong: the reveal says so and shows the measurement. The
questions are in the course language (the caller passes ``t("…")`` texts).
"""

from __future__ import annotations

import html
from typing import Any

from gastudy.course.i18n import direction, t
from gastudy.course.questionnaire import Grade, Question, right_to_left_choices


class Prediction:
    """One prediction: ``prompt``, and either ``choices`` or a number (with its ``unit`` and the
    relative tolerance ``rel_tol`` it is judged with). Displaying it shows the question and a
    field; :meth:`answer` fills the field as a learner would; :meth:`reveal` judges it."""

    def __init__(self, prompt: str, /, choices: tuple[str, ...] | list[str] = (), unit: str = "",
                 rel_tol: float = 0.25):
        if rel_tol < 0:
            raise ValueError(f"rel_tol must be ≥ 0, got {rel_tol}")
        import ipywidgets as w

        self.prompt, self.choices, self.unit, self.rel_tol = prompt, tuple(choices), unit, rel_tol
        self.grade: Grade | None = None
        """The verdict of the last :meth:`reveal` (``None`` before it)."""
        label = w.HTML(f'<div dir="{direction()}"><b>{html.escape(t("Predict first:"))}</b> '
                       f"{html.escape(prompt)}</div>")
        if self.choices:
            self.field: Any = right_to_left_choices(
                w.RadioButtons(options=list(self.choices), value=None, layout=w.Layout(width="auto")))
        else:
            self.field = w.Text(placeholder=t("your prediction: a number"), layout=w.Layout(width="14em"))
        parts = [self.field] if not unit else [self.field, w.HTML(html.escape(unit))]
        self.widget = w.VBox([label, w.HBox(parts)])
        self.widget.add_class("gastudy-prediction")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def answer(self, response: object) -> None:
        """Write ``response`` (a number, text, or a choice's index or text) into the field."""
        if self.choices:
            self.field.value = self.choices[response] if isinstance(response, int) else response
        else:
            self.field.value = "" if response is None else str(response)

    def question(self, truth: float | int, explanation: str) -> Question:
        """The prediction as a :class:`~gastudy.course.questionnaire.Question` whose answer is
        ``truth``: the measured number, or the index of the right choice."""
        if self.choices:
            return Question(self.prompt, explanation, choices=self.choices, right=int(truth))
        return Question(self.prompt, explanation, number=float(truth), rel_tol=self.rel_tol)

    def reveal(self, truth: float | int, explanation: str) -> None:
        """Judge what the learner wrote against ``truth`` (the measured number, or the index of
        the right choice) and show both with ``explanation``; the :class:`Grade` is kept in
        :attr:`grade` (a cell that ends with the reveal shows nothing else)."""
        question = self.question(truth, explanation)
        grade = question.grade(self.field.value)
        written = self.field.value if grade.answered else t("nothing written")
        verdict = t("right") if grade.ok else t("not this time") if grade.answered else t("no prediction")
        if self.choices:
            said = t("Your prediction: {written} · measured: {measured} · {verdict}", written=written,
                     measured=self.choices[int(truth)], verdict=verdict)
        else:
            # the unit stays beside the field: after a number it would need the language's plural forms
            said = t("Your prediction: {written} · measured: {measured:.4g} · {verdict}", written=written,
                     measured=float(truth), verdict=verdict)
        lines = [said, explanation]
        from IPython.display import HTML, display

        page = grade.box("<br>".join(html.escape(line) for line in lines), "gastudy-reveal")
        display(HTML(page), metadata={"text/plain": "\n".join(lines)})
        self.grade = grade


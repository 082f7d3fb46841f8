"""Predict first (gastudy.course.predict): a question before a lab, judged by the lab's measurement."""

from __future__ import annotations

import pytest

from gastudy.course import i18n
from gastudy.course.predict import Prediction


@pytest.fixture
def shown(monkeypatch):
    import IPython.display

    pages: list[tuple[str, dict]] = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, metadata=None: pages.append((obj.data, metadata)))
    return pages


def test_a_number_prediction_is_judged_against_the_measurement_within_its_tolerance(shown):
    guess = Prediction("How many times more?", unit="×", rel_tol=0.25)
    guess.answer("3,5")  # a decimal comma is read as the learner's language writes it
    assert guess.grade is None
    assert guess.reveal(4.0, "32 ÷ 8 = 4") is None  # a cell ending with it shows nothing else
    assert guess.grade.ok is True and guess.grade.answered
    html, metadata = shown[-1]
    assert metadata["text/plain"] == "Your prediction: 3,5 · measured: 4 · right\n32 ÷ 8 = 4"
    assert "✓" in html and 'dir="ltr"' in html
    guess.answer("2")
    guess.reveal(4.0, "32 ÷ 8 = 4")
    assert guess.grade.ok is False
    assert shown[-1][1]["text/plain"].startswith("Your prediction: 2 · measured: 4 · not this time")


def test_an_empty_prediction_is_not_wrong_and_the_reveal_still_shows_the_measurement(shown):
    guess = Prediction("How many samples?", unit="samples", rel_tol=0)
    guess.reveal(32, "m × A × D")
    assert guess.grade.answered is False and guess.grade.ok is None
    assert shown[-1][1]["text/plain"] == "Your prediction: nothing written · measured: 32 · no prediction\nm × A × D"


def test_a_choice_prediction_names_the_right_choice(shown):
    guess = Prediction("Same gradient with BatchNorm?", choices=["yes", "no"])
    guess.answer(1)
    guess.reveal(1, "statistics per microbatch")
    assert guess.grade.ok is True
    assert shown[-1][1]["text/plain"].startswith("Your prediction: no · measured: no · right")
    guess.answer("yes")
    guess.reveal(1, "statistics per microbatch")
    assert guess.grade.ok is False


def test_a_prediction_speaks_the_course_language_and_refuses_a_negative_tolerance(shown):
    with pytest.raises(ValueError, match="rel_tol must be ≥ 0"):
        Prediction("x?", rel_tol=-1)
    i18n.set_language("ar")
    try:
        guess = Prediction("?", unit="×")
        guess.answer("4")
        guess.reveal(4.0, "…")
    finally:
        i18n.set_language("en")
    html, metadata = shown[-1]
    assert 'dir="rtl"' in html and "border-right" in html
    assert "Your prediction" not in metadata["text/plain"]


def test_every_chapter_asks_for_a_prediction_before_a_lab_and_reveals_it_after():
    import re

    import nbformat

    from gastudy.course.sections import NOTEBOOKS

    root = __import__("pathlib").Path(__file__).resolve().parents[1] / "notebooks"
    for stem in NOTEBOOKS:
        nb = nbformat.read(root / f"{stem}.ipynb", as_version=4)
        ids = [c.get("id") for c in nb.cells]
        n = stem[:2]
        assert f"nb{n}-predict" in ids and f"nb{n}-reveal" in ids, f"{stem} has no prediction and reveal"
        labs = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and re.search(r"\w+Lab\(", c.source)]
        asked, revealed = ids.index(f"nb{n}-predict"), ids.index(f"nb{n}-reveal")
        assert "Prediction(" in nb.cells[asked].source and ".reveal(" in nb.cells[revealed].source
        if labs:
            assert any(asked < lab < revealed for lab in labs), f"{stem}: no lab between the prediction " \
                f"(cell {asked}) and its reveal ({revealed}); labs at {labs}"

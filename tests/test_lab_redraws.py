"""Lab redraws of chapters 00–05: one draw per figure, no mathtext on log axes, a layout
laid out once and reused, printed verdicts that wrap between words, and labs that measure once per
setting and advance their progress bar."""

from __future__ import annotations

import base64
import io
import re

import matplotlib
import pytest

from gastudy.course.labs.effective_batch import SameProductLab
from gastudy.course.labs.group import KeptLossMemoryLab
from gastudy.course.labs.normalization import MeanOfMeansLab, NormalizationLab
from gastudy.course.labs.precision_lab import ClippingOrderLab
from gastudy.course.labs.updates import StepDiagramLab
from gastudy.course.widgets import _OUTPUT_STYLE, plain_log_label, show_figure, subplots

matplotlib.use("Agg")


def _log_figure():
    fig, (a, b) = subplots(1, 2, figsize=(6, 2.5))
    a.bar([1, 2, 3], [0.3, 0.6, 0.9], label="bars")
    a.legend()
    b.semilogy([1, 2, 3], [0.8, 1e-3, 1e-15], "o-")
    b.set_yscale("log")
    return fig


def test_show_figure_draws_once_and_gives_the_same_png_as_savefig(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **_: shown.append(obj.data))
    fig = _log_figure()
    draws = []
    fig.canvas.mpl_connect("draw_event", lambda event: draws.append(event))
    show_figure(fig)
    png = base64.b64decode(re.search(r'src="data:image/png;base64,([^"]+)"', shown[0]).group(1))
    assert len(draws) == 1 and png[:8] == b"\x89PNG\r\n\x1a\n"
    reference = io.BytesIO()
    fig.savefig(reference, format="png", dpi=fig.dpi)  # the same figure, laid out already
    assert png == reference.getvalue()


def test_log_axis_labels_are_unicode_superscripts_not_mathtext(monkeypatch):
    monkeypatch.setattr("IPython.display.display", lambda obj, **_: None)
    assert plain_log_label(r"$\mathdefault{10^{-16}}$") == "10⁻¹⁶"
    assert plain_log_label(r"$\mathdefault{2\times10^{-1}}$") == "2×10⁻¹"
    assert plain_log_label(r"$\mathdefault{2^{8}}$") == "2⁸"
    assert plain_log_label("0.5") == "0.5"
    assert plain_log_label(r"$\mathdefault{\alpha^{2}}$") == r"$\mathdefault{\alpha^{2}}$"  # left as it was
    fig = _log_figure()
    show_figure(fig)
    labels = [t.get_text() for t in fig.axes[1].yaxis.get_ticklabels()]
    assert "10⁻¹⁵" in labels and "10⁰" in labels and not any("$" in label for label in labels)


def test_margins_are_returned_and_reused_instead_of_a_new_layout(monkeypatch):
    monkeypatch.setattr("IPython.display.display", lambda obj, **_: None)
    margins = show_figure(_log_figure())
    assert set(margins) == {"left", "right", "bottom", "top", "wspace", "hspace"}
    assert 0 < margins["left"] < margins["right"] < 1 and 0 < margins["bottom"] < margins["top"] < 1
    fig = _log_figure()
    fig.tight_layout = lambda *a, **k: pytest.fail("a figure given margins is not laid out again")
    assert show_figure(fig, margins=margins) == margins


def test_printed_text_in_a_lab_wraps_between_words():
    # JupyterLab's output <pre> has word-break: break-all; a lab's box carries the rule that undoes it
    lab = StepDiagramLab()
    styles = [c.value for c in lab.widget().children if getattr(c, "value", None) == _OUTPUT_STYLE]
    assert len(styles) == 1 and "word-break: normal" in styles[0] and ".gastudy-output" in styles[0]


def test_step_diagram_measures_each_setting_once_and_reports_progress(monkeypatch):
    monkeypatch.setattr("IPython.display.display", lambda obj, **_: None)
    lab = StepDiagramLab(micro_batch=3, accumulation_steps=2)
    notes = []
    original = lab.report_progress
    monkeypatch.setattr(lab, "report_progress", lambda f, text="": (notes.append((f, text)), original(f, text)))
    measured = []
    real_measure = lab._measure
    monkeypatch.setattr(lab, "_measure", lambda *a: (measured.append(a), real_measure(*a))[1])
    first = lab.result
    lab.controls["accumulation_steps"].value = 3
    assert measured == [(3, 3, "float64")]
    assert [f for f, _ in notes] == [0.0, 0.25, 0.5, 0.75]
    assert notes[0][1] == "one batch of 9" and notes[1][1] == "3 microbatches of 3"
    lab.controls["accumulation_steps"].value = 2  # back: drawn again, not measured again
    assert measured == [(3, 3, "float64")] and lab.result is first
    assert [f for f, _ in notes[4:]] == [0.75]
    fresh = StepDiagramLab(micro_batch=3, accumulation_steps=3).result
    lab.controls["accumulation_steps"].value = 3
    assert lab.result.rows == fresh.rows and lab.result.max_rel_diff == fresh.max_rel_diff
    assert lab.result.engine_diff == fresh.engine_diff == 0.0


def _watch(lab, monkeypatch):
    """Record ``lab``'s progress fractions and the settings it measures from now on."""
    fractions, measured = [], []
    report, measure = lab.report_progress, lab._measure
    monkeypatch.setattr(lab, "report_progress", lambda f, text="": (fractions.append(f), report(f, text)))
    monkeypatch.setattr(lab, "_measure", lambda *a: (measured.append(a), measure(*a))[1])
    return fractions, measured


@pytest.mark.parametrize("make, control, new, expected_fractions", [
    (lambda: SameProductLab(target=8), "seq_len", 8, [0.0, 0.25, 0.5, 0.75]),          # m = 1, 2, 4, 8
    (lambda: NormalizationLab(micro_batch=2, accumulation_steps=2), "micro_batch", 3, [0.0, 1 / 3, 2 / 3]),
    (lambda: ClippingOrderLab(), "max_norm", 0.1, [0.0, 1 / 3, 2 / 3]),
    (lambda: MeanOfMeansLab(micro_batch=1, accumulation_steps=2), "accumulation_steps", 3,
     [i / 9 for i in range(9)]),                                                           # 8 groups + detector
])
def test_measuring_labs_measure_each_setting_once_with_progress(monkeypatch, make, control, new,
                                                                expected_fractions):
    monkeypatch.setattr("IPython.display.display", lambda obj, **_: None)
    lab = make()
    first, old = lab.result, lab.controls[control].value
    fractions, measured = _watch(lab, monkeypatch)
    lab.controls[control].value = new
    assert len(measured) == 1 and fractions == pytest.approx(expected_fractions)
    second = lab.result
    lab.controls[control].value = old  # back: the kept result, nothing measured
    assert lab.result is first and len(measured) == 1
    lab.controls[control].value = new
    assert lab.result is second and len(measured) == 1


def test_kept_loss_memory_measures_both_loops_once_per_A(monkeypatch):
    import gastudy.check.diagnostics as diagnostics

    monkeypatch.setattr("IPython.display.display", lambda obj, **_: None)
    lab = KeptLossMemoryLab(accumulation_steps=3)
    calls, fractions = [], []
    real = diagnostics.diagnose_memory_growth
    monkeypatch.setattr(diagnostics, "diagnose_memory_growth", lambda *a, **k: (calls.append(a), real(*a, **k))[1])
    report = lab.report_progress
    monkeypatch.setattr(lab, "report_progress", lambda f, text="": (fractions.append(f), report(f, text)))
    kept = lab.result
    lab.controls["loop"].value = "release each graph (correct)"
    assert calls == [] and lab.result.retained == kept.retained and not lab.result.fired and kept.fired
    lab.controls["accumulation_steps"].value = 4
    assert len(calls) == 2 and fractions == [0.0, 0.5]
    assert [len(series) for series in lab.result.retained.values()] == [4, 4]


def test_step_diagram_redraws_into_one_figure_per_language(monkeypatch):
    from gastudy.course.i18n import set_language

    monkeypatch.setattr("IPython.display.display", lambda obj, **_: None)
    lab = StepDiagramLab(micro_batch=2, accumulation_steps=3)
    _, fig, a, b = lab._drawing
    lab.controls["accumulation_steps"].value = 5
    assert lab._drawing[1] is fig
    assert len(a.patches) == 5 and len(a.lines) == 1 and len(b.lines) == 2  # only this redraw's artists
    assert [x.get_text() for x in a.get_legend().get_texts()] == ["big batch", "‖G1+…+Gk‖"]
    assert list(b.lines[0].get_xdata()) == [1, 2, 3, 4, 5] and list(a.get_xticks()) == [1, 2, 3, 4, 5]
    try:
        set_language("tr")
        lab.controls["accumulation_steps"].value = 4
        assert lab._drawing[1] is not fig and lab._drawing[0] == "tr"
        assert lab._drawing[2].get_title() != a.get_title() and len(lab._drawing[2].patches) == 4
    finally:
        set_language("en")

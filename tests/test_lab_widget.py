"""The Lab base every chapter builds on: busy state, layout, and figures pyplot never sees."""

from __future__ import annotations

import ipywidgets as w
import matplotlib.pyplot as plt
import pytest

from gastudy.course.widgets import Lab, show_figure, subplots


class Probe(Lab):
    title = "probe"

    def __init__(self, fail: bool = False):
        self.seen_busy: list[tuple[bool, str, str]] = []
        self.fail = fail
        super().__init__(n=w.IntSlider(value=1, min=0, max=5, description="a long label (processes)"),
                         device=w.Dropdown(options=["cpu"], value="cpu", description="device"))

    def compute(self, n: int, device: str) -> int:
        # what the learner sees while this runs
        self.seen_busy.append((self.controls["n"].disabled, self.busy.layout.display, self.status.value))
        if self.fail and n == 3:
            raise ValueError("n = 3 is not allowed here")
        return n * 2

    def render(self, result: int) -> None:
        fig, ax = subplots(figsize=(2, 2))
        ax.plot([0, 1], [0, result])
        show_figure(fig)


def test_controls_are_disabled_and_the_busy_row_shows_while_computing():
    lab = Probe()
    lab.controls["n"].value = 2
    assert lab.seen_busy[-1] == (True, "flex", "<i>measuring…</i>")
    assert lab.result == 4
    assert lab.controls["n"].disabled is False and lab.busy.layout.display == "none"


def test_an_error_gives_the_controls_back():
    lab = Probe(fail=True)
    with pytest.raises(ValueError, match="n = 3"):
        lab.controls["n"].value = 3
    assert lab.controls["n"].disabled is False and lab.busy.layout.display == "none"


def test_in_a_kernel_a_failed_measurement_is_shown_and_result_says_why(monkeypatch):
    """In a kernel the Output widget swallows the error after showing it: the next cell that reads
    ``result`` must learn what failed, not meet ``None`` (or the previous setting's result)."""
    from ipywidgets.widgets import widget_output

    from gastudy.course.widgets import LabFailed

    shown = []

    class Shell:  # what ipywidgets' Output asks of IPython when a block raises
        kernel = None

        def showtraceback(self, exc_tuple, tb_offset=0):
            shown.append(exc_tuple[1])

    monkeypatch.setattr(widget_output, "get_ipython", lambda: Shell())
    lab = Probe(fail=True)
    assert lab.result == 2
    lab.controls["n"].value = 3  # no exception reaches the caller, as in a notebook
    assert [str(e) for e in shown] == ["n = 3 is not allowed here"]
    with pytest.raises(LabFailed, match=r"last measurement failed \(ValueError: n = 3 is not allowed here\)") as info:
        _ = lab.result
    assert isinstance(info.value.__cause__, ValueError)
    assert lab.controls["n"].disabled is False
    lab.controls["n"].value = 4
    assert lab.result == 8 and lab.error is None


def test_progress_is_clamped_and_noted():
    lab = Probe()
    lab.report_progress(1.7, "layer 2 of 4")
    assert lab.progress.value == 1.0 and "layer 2 of 4" in lab.status.value


def test_labels_are_shown_whole_and_a_one_option_choice_is_hidden_with_a_reason():
    lab = Probe()
    box = lab.widget()
    assert lab.controls["n"].style.description_width == "initial"
    assert lab.controls["device"].layout.display == "none"
    notes = [c.value for c in box.children if isinstance(c, w.HTML) and "applies on this machine" in c.value]
    assert notes == ["<small>device: only <code>cpu</code> applies on this machine</small>"]
    assert "gastudy-lab" in box._dom_classes


def test_lab_figures_are_not_pyplot_figures():
    """pyplot's post_execute hook draws every figure it knows, from whatever thread fires the
    event (JupyterLab's widget subshell): a lab's figure must never be one of them."""
    before = plt.get_fignums()
    fig, ax = subplots(1, 2, figsize=(3, 2))
    assert len(ax) == 2
    assert plt.get_fignums() == before
    assert fig not in [plt.figure(n) for n in plt.get_fignums()]


def test_the_browser_suite_tells_a_blank_plot_from_a_drawn_one():
    import base64
    import io

    from browser_support import image_stats

    def data_url(fig) -> str:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()

    drawn, ax = subplots(figsize=(3, 2))
    ax.bar([1, 2, 3], [3, 1, 2], color=["C0", "C1", "C2"])
    blank, _ = subplots(figsize=(3, 2))
    blank.axes[0].set_axis_off()
    ink, colours = image_stats(data_url(drawn))
    assert ink > 0.05 and colours >= 8
    assert image_stats(data_url(blank)) == (0.0, 1)


def test_every_lab_figure_carries_a_text_alternative_with_its_numbers(monkeypatch):
    """show_figure displays the PNG inside an <img> whose alt says what the plot shows: titles,
    axes, each series' points (lines) and heights (bars), reference lines — in the lab's language."""
    from IPython.display import HTML

    from gastudy.course import set_language, t
    from gastudy.course.widgets import figure_description, show_figure

    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    fig, (left, right) = subplots(1, 2, figsize=(4, 2))
    left.bar(["m=1", "m=2", "m=4"], [3.0, 1.5, 0.75], label="seconds")
    left.set_title("time per update")
    left.set_ylabel("s")
    right.plot([1, 2, 3], [0.5, 0.25, 0.125], label="gap")
    right.axhline(1e-5, linestyle=":")
    right.set_xlabel("A")
    text = figure_description(fig)
    assert text.startswith("time per update (y axis: s): seconds: m=1 → 3, m=2 → 1.5, m=4 → 0.75")
    assert "gap: 1 → 0.5, 2 → 0.25, 3 → 0.125" in text and "reference line y = 1e-05" in text
    show_figure(fig)
    assert isinstance(shown[-1], HTML) and shown[-1].data.startswith('<img src="data:image/png;base64,')
    assert f'alt="{text}"' in shown[-1].data.replace("&gt;", ">")
    long, ax = subplots(figsize=(3, 2))
    ax.plot(range(20), [float((i - 7) ** 2) for i in range(20)], label="curve")
    assert figure_description(long) == "plot: curve: 0 → 49, 7 → 0, 19 → 144"  # first, smallest, largest, last
    try:
        set_language("ar")
        assert figure_description(long).startswith(t("plot")) and t("plot") != "plot"
    finally:
        set_language("en")


def test_a_labs_sentence_reads_right_to_left_in_arabic(monkeypatch, capsys):
    import IPython
    import IPython.display

    from gastudy.course import i18n
    from gastudy.course.widgets import say

    say("fp32 · checkpoint 1/2: m = 16 fits")
    assert capsys.readouterr().out == "fp32 · checkpoint 1/2: m = 16 fits\n"
    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", lambda data, raw=False: shown.append(data))
    i18n._current = "ar"  # as set_language("ar") leaves it, without its style
    try:
        say("fp32 · checkpoint 1/2: m = 16 <يتّسع>")
    finally:
        i18n._current = "en"
    assert capsys.readouterr().out == ""
    assert shown == [{"text/html": '<div class="gastudy-say" dir="rtl" style="white-space:pre-line">'
                                   "fp32 · checkpoint 1/2: m = 16 &lt;يتّسع&gt;</div>",
                      "text/plain": "fp32 · checkpoint 1/2: m = 16 <يتّسع>"}]

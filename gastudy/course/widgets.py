"""The base of every widget lab: controls → compute → result → render (all chapters).

A :class:`Lab` subclass declares its controls (ipywidgets) and implements :meth:`compute`
(pure: values in, result out) and :meth:`render` (plot or table into the output area).
Changing any control recomputes. Tests drive a lab headless::

    lab = SomeLab()
    lab.controls["micro_batch"].value = 4   # recomputes
    assert lab.result.effective_batch == 32
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Lab:
    """A widget-driven demonstration. ``result`` always holds the latest computation."""

    title: str = ""

    def __init__(self, **controls: Any):
        import ipywidgets as widgets

        self.controls = controls
        self.output = widgets.Output()
        self.output.add_class("gastudy-output")
        # The busy row: shown while a change is being computed, so a slow lab never looks dead.
        self.progress = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, bar_style="info",
                                              layout=widgets.Layout(width="12em"))
        self.status = widgets.HTML(layout=widgets.Layout(margin="0 0 0 .5em"))
        self.busy = widgets.HBox([self.progress, self.status], layout=widgets.Layout(display="none"))
        self.busy.add_class("gastudy-busy")
        self.result: Any = None
        for control in controls.values():
            control.observe(lambda _change: self.refresh(), names="value")
        self.refresh()

    @property
    def values(self) -> dict[str, Any]:
        """Current value of every control, by name."""
        return {name: c.value for name, c in self.controls.items()}

    def compute(self, **values: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def render(self, result: Any) -> None:
        """Show ``result`` (default: print it). Subclasses draw plots or tables."""
        print(result)

    def refresh(self) -> None:
        """Recompute from the current control values and redraw.

        While it computes, the controls are disabled and the busy row says so ("measuring…"
        and a progress bar that :meth:`report_progress` can advance); the previous drawing
        stays until the new one replaces it. An error is shown in the lab's output, and the
        controls come back either way.
        """
        from IPython.display import clear_output

        self._set_busy(True)
        try:
            self.result = self.compute(**self.values)
            with self.output:
                clear_output(wait=True)
                self.render(self.result)
        finally:
            self._set_busy(False)

    def report_progress(self, fraction: float, text: str = "") -> None:
        """Advance the busy row's bar to ``fraction`` (0…1) with an optional note; call from
        :meth:`compute` between the steps of a long measurement."""
        self.progress.value = min(1.0, max(0.0, float(fraction)))
        if text:
            self.status.value = f"<i>measuring… {text}</i>"

    def _set_busy(self, busy: bool) -> None:
        for control in self.controls.values():
            if hasattr(control, "disabled"):
                control.disabled = busy
        self.progress.value = 0.0
        self.status.value = "<i>measuring…</i>" if busy else ""
        self.busy.layout.display = "flex" if busy else "none"

    def widget(self):
        """The lab as one ipywidgets box: title, controls, output."""
        import ipywidgets as widgets

        header = [widgets.HTML(f"<b>{self.title}</b>")] if self.title else []
        controls = widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        controls.add_class("gastudy-controls")
        box = widgets.VBox([*header, controls, self.busy, self.output])
        box.add_class("gastudy-lab")
        return box

    def _ipython_display_(self) -> None:  # pragma: no cover - exercised in notebooks
        from IPython.display import display

        display(self.widget())


def show_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """Print (and return) ``rows`` as an aligned text table; floats with 4 significant digits.
    Course: every lab's tables and plots."""
    if not rows:
        print("(no rows)")
        return "(no rows)"
    columns = list(columns or rows[0])

    def fmt(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    cells = [[fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(columns, widths)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
    text = "\n".join(lines)
    print(text)
    return text


def int_slider(value: int, low: int, high: int, label: str, step: int = 1) -> Any:
    """An ``ipywidgets.IntSlider`` from ``low`` to ``high`` whose label is shown in full (all labs)."""
    import ipywidgets as w

    return w.IntSlider(
        value=value,
        min=low,
        max=high,
        step=step,
        description=label,
        style={"description_width": "initial"},
    )


def subplots(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """``matplotlib.pyplot.subplots`` for labs: the same arguments, a figure that only the lab owns.

    The figure is a plain ``matplotlib.figure.Figure``, never registered with pyplot. That
    matters in JupyterLab 4.6+, which sends widget messages over a kernel subshell (its own
    thread): after every comm message the kernel fires IPython's ``post_execute`` event, and
    pyplot's hook then draws *every pyplot figure* in that thread — including one a lab is
    still building in the main thread. matplotlib is not thread-safe, so the learner saw a
    blank or half-drawn plot, or a mathtext parse error, on the first change. A figure
    pyplot does not know about is drawn only by :func:`show_figure`. Course: every lab's plots.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=kwargs.pop("figsize", None), layout=kwargs.pop("layout", None))
    return fig, fig.subplots(*args, **kwargs)


def show_figure(fig: Any, integer_x: bool = False) -> None:
    """Lay out ``fig`` and display it as one PNG image (every lab's last drawing step).

    ``integer_x`` puts only whole-number ticks on every x-axis (counts of updates,
    microbatches, groups). The PNG is rendered here, in the calling thread, so the output
    does not depend on the notebook's matplotlib backend. Course: every lab's plots.
    """
    import io

    from IPython.display import Image, display
    from matplotlib.ticker import MaxNLocator

    if integer_x:
        for ax in fig.axes:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi)
    display(Image(data=buffer.getvalue(), format="png"))

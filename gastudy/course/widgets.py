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
        """Recompute from the current control values and redraw."""
        from IPython.display import clear_output

        self.result = self.compute(**self.values)
        with self.output:
            clear_output(wait=True)
            self.render(self.result)

    def widget(self):
        """The lab as one ipywidgets box: title, controls, output."""
        import ipywidgets as widgets

        header = [widgets.HTML(f"<b>{self.title}</b>")] if self.title else []
        return widgets.VBox([*header, widgets.HBox(list(self.controls.values())), self.output])

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


def show_figure(fig: Any, integer_x: bool = False) -> None:
    """Lay out, show and close a matplotlib figure (every lab's last drawing step).

    ``integer_x`` puts only whole-number ticks on every x-axis (counts of updates,
    microbatches, groups).
    Course: every lab's tables and plots."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if integer_x:
        for ax in fig.axes:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    plt.show()
    plt.close(fig)

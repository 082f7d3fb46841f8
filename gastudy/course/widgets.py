"""The base of every widget lab: controls → compute → result → render (all chapters).

A :class:`Lab` subclass declares its controls (ipywidgets) and implements :meth:`compute`
(pure: values in, result out) and :meth:`render` (plot or table into the output area).
Changing any control recomputes. Tests drive a lab headless::

    lab = SomeLab()
    lab.controls["micro_batch"].value = 4   # recomputes
    assert lab.result.effective_batch == 32
"""

from __future__ import annotations

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

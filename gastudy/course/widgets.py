"""The base of every widget lab: controls → compute → result → render (all chapters).

A :class:`Lab` subclass declares its controls (ipywidgets) and implements :meth:`compute`
(pure: values in, result out) and :meth:`render` (plot or table into the output area).
Changing any control recomputes. Tests drive a lab headless::

    lab = SomeLab()
    lab.controls["micro_batch"].value = 4   # recomputes
    assert lab.result.effective_batch == 32
"""

from __future__ import annotations

import base64
import html
import math
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gastudy.course.i18n import direction, ltr, t, tn
from gastudy.course.i18n.bidi import CONTROLS, right_to_left, strip_controls


def rtl_attr() -> str:
    """`` dir="rtl"`` for HTML that shows text in a right-to-left course language (Arabic), else
    nothing (English HTML stays as it was). Course: every lab's titles, notes and tables."""
    return ' dir="rtl"' if direction() == "rtl" else ""


def _block(inner_html: str) -> str:
    """A line of a lab's header (its title, its notes): in a right-to-left language a block with
    ``dir="rtl"``, so that it starts on the right of the lab; else ``inner_html`` as it is."""
    return f'<div dir="rtl">{inner_html}</div>' if direction() == "rtl" else inner_html


_OUTPUT_STYLE = ("<style>.gastudy-output .jp-OutputArea-output pre, .gastudy-output pre "
                 "{word-break: normal; overflow-wrap: anywhere;}</style>")


class LabFailed(RuntimeError):
    """Raised by :attr:`Lab.result` when the lab's latest computation raised (the cause is chained)."""


class Lab:
    """A widget-driven demonstration. ``result`` holds the latest computation, or raises
    :class:`LabFailed` when that computation failed."""

    title: str = ""
    """The lab's heading; subclasses set it in ``__init__`` with :func:`~gastudy.course.i18n.t`, so
    a lab built after :func:`~gastudy.course.i18n.set_language` is titled in that language."""

    def __init__(self, **controls: Any):
        import ipywidgets as widgets

        self.controls = controls
        self._kept: dict[Any, Any] = {}  # see kept()
        self.output = widgets.Output()
        self.output.add_class("gastudy-output")
        # The busy row: shown while a change is being computed, so a slow lab never looks dead.
        self.progress = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, bar_style="info",
                                              layout=widgets.Layout(width="12em"))
        self.status = widgets.HTML(layout=widgets.Layout(margin="0 0 0 .5em"))
        self.busy = widgets.HBox([self.progress, self.status], layout=widgets.Layout(display="none"))
        self.busy.add_class("gastudy-busy")
        self._result: Any = None
        self.error: BaseException | None = None
        """What the latest computation raised (``None`` when it succeeded)."""
        for control in controls.values():
            control.observe(lambda _change: self.refresh(), names="value")
        self.refresh()

    @property
    def result(self) -> Any:
        """The latest computation's result.

        Raises :class:`LabFailed` (naming the cause, chained to it) when that computation raised:
        in a kernel the lab shows the traceback in its output and carries on, so a later cell that
        reads the result learns why there is none instead of meeting a ``None``."""
        if self.error is not None:
            raise LabFailed(t("this lab's last measurement failed ({error}); its output shows the traceback. "
                              "Change a control to measure again.",
                              error=f"{type(self.error).__name__}: {self.error}")) from self.error
        return self._result

    @result.setter
    def result(self, value: Any) -> None:
        self._result, self.error = value, None

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
        stays until the new one replaces it. In a kernel an error is shown in the lab's output
        (outside one it propagates) and kept for :attr:`result` to raise; the controls come back
        either way.
        """
        from IPython.display import clear_output

        self._set_busy(True)
        try:
            with self.output:  # in a kernel, an error shows here instead of vanishing into a log
                clear_output(wait=True)
                try:
                    self.result = self.compute(**self.values)
                except BaseException as e:  # an interrupt too: the Output widget swallows it in a kernel
                    self.error = e
                    raise
                self.render(self._result)
        finally:
            self._set_busy(False)

    def kept(self, measure: Callable[..., Any], *setting: Any) -> Any:
        """``measure(*setting)`` the first time this setting is asked for, the kept result after:
        a lab whose settings are measurements measures each once, and going back to one only
        redraws. One measurement per lab: results are kept by setting, for the lab's life."""
        if setting not in self._kept:
            self._kept[setting] = measure(*setting)
        return self._kept[setting]

    def report_progress(self, fraction: float, text: str = "") -> None:
        """Advance the busy row's bar to ``fraction`` (0…1) with an optional note; call from
        :meth:`compute` between the steps of a long measurement."""
        self.progress.value = min(1.0, max(0.0, float(fraction)))
        if text:
            self.status.value = f'<i{rtl_attr()}>{html.escape(t("measuring… {text}", text=text))}</i>'

    def _set_busy(self, busy: bool) -> None:
        for control in self.controls.values():
            if hasattr(control, "disabled"):
                control.disabled = busy
        self.progress.value = 0.0
        self.status.value = f'<i{rtl_attr()}>{html.escape(t("measuring…"))}</i>' if busy else ""
        self.busy.layout.display = "flex" if busy else "none"

    def widget(self):
        """The lab as one ipywidgets box: title, controls, output."""
        import ipywidgets as widgets

        header = [widgets.HTML(_block(f"<b>{html.escape(self.title)}</b>"))] if self.title else []
        notes = []
        for control in self.controls.values():
            style = getattr(control, "style", None)
            if style is not None and hasattr(style, "description_width"):
                style.description_width = "initial"  # the whole label, never "D (proces…"
            options = getattr(control, "options", None)
            if options is not None and len(options) <= 1:
                # A choice with one option does nothing here: hide it and say why.
                control.layout.display = "none"
                notes.append(t("{control}: only {value} applies on this machine", control=html.escape(control.description),
                               value=f"<code>{html.escape(str(control.value))}</code>"))
        controls = widgets.HBox(list(self.controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
        controls.add_class("gastudy-controls")
        note = [widgets.HTML(_block("<small>" + "; ".join(notes) + "</small>"))] if notes else []
        # JupyterLab breaks printed text anywhere (``word-break: break-all`` on output <pre>), so a
        # lab's verdict line wrapped mid-word ("the schedu|le runs"); in a lab's output it wraps
        # between words, and only a word longer than the line is broken.
        style = widgets.HTML(_OUTPUT_STYLE, layout=widgets.Layout(display="none"))
        box = widgets.VBox([*header, controls, *note, self.busy, self.output, style])
        box.add_class("gastudy-lab")
        return box

    def _ipython_display_(self) -> None:  # pragma: no cover - exercised in notebooks
        from IPython.display import display

        display(self.widget())


# ----------------------------------------------------------------------------- tables
# One place decides how a table looks: `format_table` chooses one format per column
# (`column_format`) and renders the same cells twice, as aligned text and as HTML.
_BLANKS = ("", "—", "–", "-", "n/a")  # cells that do not make a numeric column a text column
_KEY_HEAD, _KEY_TAIL = 3, 3  # rows shown from the top and the bottom of a collapsed table


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def column_format(values: Sequence[Any], digits: int = 4) -> Callable[[Any], str]:
    """One formatter for a whole column, chosen from the column's numbers (every lab's tables).

    Integers get thousands separators (``12,288``). Floats get one fixed number of decimals
    for the whole column, so that the largest value has ``digits`` significant digits
    (``2.270``, ``2.343``, ``2.503``); when the column spans too many orders of magnitude for
    that (a gap of ``1e-12`` next to ``0.3``) or is very large or very small, the whole column
    is written in scientific notation with ``digits`` significant digits. Anything that is not
    a number (text, bools, lists, ``None``) is written with ``str``.
    """
    nums = [v for v in values if _is_number(v)]
    if all(isinstance(v, numbers.Integral) for v in nums):
        def number(v: Any) -> str:
            return f"{int(v):,}"
    else:
        sizes = [abs(float(v)) for v in nums if math.isfinite(v) and v != 0]
        top = math.floor(math.log10(max(sizes))) if sizes else 0
        low = math.floor(math.log10(min(sizes))) if sizes else 0
        if top >= 6 or top < -3 or top - low > max(digits - 2, 0):
            spec = f".{max(digits - 1, 0)}e"
        else:
            spec = f",.{max(digits - 1 - top, 0)}f"

        def number(v: Any) -> str:
            return format(float(v), spec)

    def fmt(v: Any) -> str:
        if v is None:
            return ""
        return number(v) if _is_number(v) else str(v)

    return fmt


class TableText(str):
    """What :func:`show_table` returns: the table as aligned plain text (a ``str``), with its
    HTML rendering in :attr:`html`.

    A notebook cell that *ends* with ``show_table(...)`` shows the table once: show_table has
    already displayed it, so the returned value displays nothing more (a plain ``str`` would
    be shown a second time, as one escaped line full of ``\\n``). Course: every lab's tables.
    """

    html: str = ""
    displayed: bool = False

    def _ipython_display_(self) -> None:
        if not self.displayed:
            show_html(self.html, str(self))
            self.displayed = True


def format_table(
    rows: Sequence[dict[str, Any]],
    columns: Sequence[str] | None = None,
    *,
    units: dict[str, str] | None = None,
    highlight: Callable[[dict[str, Any]], bool] | Iterable[int] | None = None,
    max_rows: int | None = 10,
    digits: int = 4,
    headers: dict[str, str] | None = None,
    english: Iterable[str] = (),
) -> TableText:
    """``rows`` as a :class:`TableText`: aligned text, and HTML in ``.html`` (nothing is shown).

    Args:
        rows: one dict per row; the keys of the first row are the columns unless ``columns``
            names them (a missing key is an empty cell).
        units: column → unit, written in the header (``peak (MiB)``), never in the cells.
        highlight: the key rows — a predicate on a row, or row indices (negative ones count
            from the end). They are emphasized, and they are what a collapsed table shows.
        max_rows: a table with more rows is collapsed in HTML: the key rows (by default the
            first and last few), then the whole table behind ``<details>`` ("all N rows").
            ``None`` never collapses. The text always has every row.
        digits: significant digits of floats (one format per column, see :func:`column_format`).
        headers: column → the header shown for it (a translated name, see
            :mod:`gastudy.course.i18n`); the rows keep their keys. Unnamed columns show their key.
        english: columns that quote a library's own English messages: their cells are marked
            ``lang="en"`` (read left to right, and by a screen reader as English).

    The words of the table ("all N rows", "(no rows)") are in the current course language, and
    in a right-to-left language the HTML carries ``dir="rtl"``. Numbers are right-aligned; a column is numeric when its cells are numbers or blanks.
    Course: every lab's tables.
    """
    if not rows:
        text = TableText(t("(no rows)"))
        text.html = f'<p{rtl_attr()}><i>{html.escape(str(text))}</i></p>'
        return text
    columns = list(columns or rows[0])
    units = units or {}
    shown = headers or {}
    headers = [f"{shown.get(c, c)} ({units[c]})" if units.get(c) else shown.get(c, c) for c in columns]
    cells: list[list[str]] = [[] for _ in rows]
    numeric: list[bool] = []
    for c in columns:
        values = [r.get(c) for r in rows]
        fmt = column_format(values, digits)
        for row_cells, v in zip(cells, values):
            row_cells.append(fmt(v))
        numeric.append(any(_is_number(v) for v in values)
                       and all(_is_number(v) or v is None or (isinstance(v, str) and v in _BLANKS) for v in values))
    n = len(rows)
    if highlight is None:
        marked: set[int] = set()
    elif callable(highlight):
        marked = {i for i, r in enumerate(rows) if highlight(r)}
    else:
        marked = {i % n for i in highlight if -n <= i < n}
    text = TableText(_text_table(headers, cells, numeric))
    quoted = [c in set(english) for c in columns]
    if max_rows is not None and n > max_rows:
        key = sorted(marked) or sorted({*range(min(_KEY_HEAD, n)), *range(max(n - _KEY_TAIL, 0), n)})
        body = (_html_table(headers, cells, numeric, key, set(), gaps=True, english=quoted)
                + f"<details><summary>{html.escape(t('all {n} rows', n=n))}</summary>"
                + _html_table(headers, cells, numeric, range(n), marked, english=quoted) + "</details>")
    else:
        body = _html_table(headers, cells, numeric, range(n), marked, english=quoted)
    text.html = f'<div class="gastudy-table"{rtl_attr()} style="{_WRAP_CSS}">{body}</div>'
    return text


def show_table(
    rows: Sequence[dict[str, Any]],
    columns: Sequence[str] | None = None,
    *,
    units: dict[str, str] | None = None,
    highlight: Callable[[dict[str, Any]], bool] | Iterable[int] | None = None,
    max_rows: int | None = 10,
    digits: int = 4,
    headers: dict[str, str] | None = None,
    english: Iterable[str] = (),
) -> TableText:
    """Show ``rows`` as a table and return its plain text (a :class:`TableText`).

    In a notebook (IPython running) the table is displayed as HTML — numbers right-aligned with
    one format per column, units in the headers, a horizontal scroll bar instead of wrapped
    rows, a long table collapsed to its key rows with the full table behind "all N rows".
    Anywhere else the aligned text is printed. Arguments: see :func:`format_table`.
    Course: every lab's tables and plots.
    """
    table = format_table(rows, columns, units=units, highlight=highlight, max_rows=max_rows,
                         digits=digits, headers=headers, english=english)
    show_html(table.html, str(table))
    table.displayed = True
    return table


def show_html(html_text: str, text: str) -> None:
    """Display ``html_text`` in a notebook (with ``text`` as its plain-text alternative), or
    print ``text`` when no IPython is running (scripts, tests). Course: tables, exercise feedback.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - the course extra installs IPython
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(text)
        return
    from IPython.display import display

    display({"text/html": html_text, "text/plain": text}, raw=True)


def say(text: str) -> None:
    """Show a lab's sentence (a verdict, a note): printed as it is in a left-to-right course
    language; in a right-to-left one shown as a paragraph with ``dir="rtl"`` (its plain-text
    alternative is the text), so that a sentence that starts with a name or a number, such as
    ``fp32 · checkpoint 1/2: …``, still reads right to left. Course: every lab's verdicts."""
    if direction() != "rtl":
        print(text)
        return
    show_html(f'<div class="gastudy-say" dir="rtl" style="white-space:pre-line">{html.escape(text)}</div>', text)


# Inline styles only (they survive every renderer: JupyterLab, the static site, VS Code); the
# inherited ones sit on the table, the alignment on each cell. Padding and rules come from the host.
_WRAP_CSS = "overflow-x:auto;max-width:100%;margin:.3em 0"
_TABLE_CSS = "margin:0;font-variant-numeric:tabular-nums;overflow-wrap:normal;word-break:normal"
_SHORT_TEXT = 30  # a text column whose cells are all this short never wraps


def _text_table(headers: list[str], cells: list[list[str]], numeric: list[bool]) -> str:
    widths = [max(len(h), *(len(row[i]) for row in cells)) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric)).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths),
                      *(line(row) for row in cells)])


def _html_table(headers: list[str], cells: list[list[str]], numeric: list[bool],
                indices: Iterable[int], marked: set[int], gaps: bool = False,
                english: Sequence[bool] = ()) -> str:
    """One ``<table>``: the header and the rows ``indices`` (``marked`` ones in bold); with
    ``gaps``, a "⋯ k rows" row stands where rows are left out; the cells of the columns flagged
    in ``english`` are marked ``lang="en"``, left to right."""
    marks = [' lang="en" dir="ltr"' if flag else "" for flag in english] or [""] * len(headers)
    rtl = direction() == "rtl"
    styles = ["text-align:right;white-space:nowrap" if num
              else f"text-align:{'right' if direction() == 'rtl' else 'left'}" + (";white-space:nowrap" if all(len(row[i]) <= _SHORT_TEXT for row in cells)
                                        else "")
              for i, num in enumerate(numeric)]
    # headers may wrap between words (a unit goes to a second line); cells never do, unless long text
    head = "".join(f'<th style="{s.split(";")[0]}"{_cell_direction(h, rtl)}>{html.escape(h)}</th>'
                   for h, s in zip(headers, styles))
    out = [f'<table style="{_TABLE_CSS}"><thead><tr>{head}</tr></thead><tbody>']
    previous = -1
    for i in indices:
        if gaps and i > previous + 1:
            out.append(_gap_row(i - previous - 1, len(headers)))
        weight = ' style="font-weight:bold"' if i in marked else ""
        out.append(f"<tr{weight}>" + "".join(f'<td style="{s}"{m or _cell_direction(v, rtl)}>{html.escape(v)}</td>'
                                            for v, s, m in zip(cells[i], styles, marks)) + "</tr>")
        previous = i
    if gaps and previous < len(cells) - 1:
        out.append(_gap_row(len(cells) - 1 - previous, len(headers)))
    out.append("</tbody></table>")
    return "".join(out)


def _cell_direction(text: str, rtl: bool) -> str:
    """`` dir="ltr"`` for a cell of a right-to-left table that reads left to right (a number, a
    signed value, a percentage, a list, a name: no right-to-left letter in it), so that its signs
    and brackets stay where they are written (``-0.008313``, not ``0.008313-``); else nothing."""
    return ' dir="ltr"' if rtl and text.strip() and not right_to_left(text) else ""


def _gap_row(count: int, width: int) -> str:
    return (f'<tr class="gastudy-gap"><td colspan="{width}" style="text-align:center;opacity:.6">'
            f"⋯ {html.escape(tn('{n} row', '{n} rows', count))}</td></tr>")


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
    pyplot does not know about is drawn only by :func:`show_figure`.

    The figure gets its own Agg canvas, so the layout pass of :func:`show_figure` and the PNG
    rendering share one renderer and its caches (text extents, log-axis tick labels parsed
    once instead of twice): about 15 % less drawing time per redraw. Course: every lab's plots.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=kwargs.pop("figsize", None), layout=kwargs.pop("layout", None))
    FigureCanvasAgg(fig)
    return fig, fig.subplots(*args, **kwargs)


_SUPERSCRIPT = str.maketrans("-−0123456789", "⁻⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain_log_label(label: str) -> str:
    """A log axis's tick label written with Unicode superscripts instead of mathtext
    (``$\\mathdefault{10^{-7}}$`` → ``10⁻⁷``, ``$\\mathdefault{2\\times10^{-1}}$`` → ``2×10⁻¹``);
    any other label is returned unchanged. matplotlib's default log formatter writes mathtext,
    which is parsed anew for every figure: a log axis cost about a third of a lab's drawing time.
    Course: every lab's log-scale plots."""
    import re

    match = re.fullmatch(r"\$\\mathdefault\{(.*)\}\$", label)
    if match is None:
        return label
    body = match.group(1).replace("\\times", "×")
    body = re.sub(r"\^\{(-?\d+)\}", lambda m: m.group(1).translate(_SUPERSCRIPT), body)
    return label if re.search(r"[\\{}^$]", body) else body


def _plain_log_axes(fig: Any) -> None:
    """Give every log axis of ``fig`` that still has matplotlib's default (mathtext) formatters
    the same labels written by :func:`plain_log_label`."""
    from matplotlib.ticker import LogFormatterSciNotation

    class PlainLogFormatter(LogFormatterSciNotation):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return plain_log_label(super().__call__(x, pos))

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for get, set_ in ((axis.get_major_formatter, axis.set_major_formatter),
                              (axis.get_minor_formatter, axis.set_minor_formatter)):
                default = get()
                if type(default) is LogFormatterSciNotation:  # the same choices, without mathtext
                    set_(PlainLogFormatter(base=default._base, labelOnlyBase=default.labelOnlyBase,
                                           minor_thresholds=default.minor_thresholds,
                                           linthresh=default._linthresh))


def _number(value: float) -> str:
    """A measured value as the text alternative says it: three significant digits, whole numbers
    from 1,000 to a million as they are (no thousands separator, which differs by language)."""
    if not (isinstance(value, (int, float)) and math.isfinite(value)):
        return str(value)
    return str(round(value)) if 1e3 <= abs(value) < 1e6 else f"{value:.3g}"


def _series(xs: Sequence[Any], ys: Sequence[float], most: int = 8) -> str:
    """``x → y`` pairs of one plotted series; a long one as its first, smallest, largest and last point."""
    pairs = [(x, y) for x, y in zip(xs, ys) if isinstance(y, (int, float)) and math.isfinite(y)]
    if len(pairs) > most:
        low, high = min(pairs, key=lambda q: q[1]), max(pairs, key=lambda q: q[1])
        pairs = list(dict.fromkeys([pairs[0], low, high, pairs[-1]]))
    return ltr(", ".join(f"{x if isinstance(x, str) else _number(x)} → {_number(y)}" for x, y in pairs))


def figure_description(fig: Any) -> str:
    """What a lab's figure shows, in words and numbers: the text alternative of its image.

    For every plot: its title, its axes' labels, and each series it draws — every line (its
    legend label and its points, x → y), every group of bars (label and heights at each tick
    label), every horizontal or vertical reference line. The labels are the figure's own, so
    they are in the language the lab was built in; the fixed words go through :func:`t`.
    Numbers keep three significant digits (whole numbers up to a million as they are); a series of
    more than eight points is given by its first, smallest, largest and last point."""
    from matplotlib.container import BarContainer

    parts = []
    for ax in fig.axes:
        if not ax.get_visible() or not (ax.lines or ax.containers or ax.collections or ax.patches):
            continue
        head = ax.get_title() or t("plot")
        axes = "; ".join(f"{name}: {label}" for name, label in ((t("x axis"), ax.get_xlabel()),
                                                              (t("y axis"), ax.get_ylabel())) if label)
        ticks = [tick.get_text() for tick in ax.get_xticklabels()]
        series = []
        for container in ax.containers:
            if isinstance(container, BarContainer):
                heights = [bar.get_height() for bar in container]
                xs = [bar.get_x() + bar.get_width() / 2 for bar in container]
                names = [_tick_name(ax, x, ticks) for x in xs]
                series.append(f"{container.get_label() if not container.get_label().startswith('_') else t('bars')}: "
                              f"{_series(names, heights)}")
        for line in ax.lines:
            label = line.get_label()
            xs, ys = list(line.get_xdata()), list(line.get_ydata())
            if len(set(map(float, ys))) == 1 and len(ys) == 2 and label.startswith("_"):
                series.append(f"{t('reference line')} {ltr(f'y = {_number(float(ys[0]))}')}")
                continue
            if label.startswith("_") and not any(s.get_label() == label for s in ax.lines[1:]):
                label = t("line")
            series.append(f"{label}: {_series([float(x) for x in xs], [float(y) for y in ys])}")
        parts.append(f"{head}" + (f" ({axes})" if axes else "") + (": " + "; ".join(series) if series else ""))
    return ". ".join(parts) or t("an empty plot")


def _tick_name(ax: Any, x: float, ticks: list[str]) -> Any:
    """The tick label standing at ``x`` (a bar's category), or ``x`` itself."""
    for tick, text in zip(ax.get_xticks(), ticks):
        if text and abs(tick - x) < 1e-6:
            return text
    return x


def _without_bidi_controls(fig: Any) -> None:
    """Remove the isolates of :func:`~gastudy.course.i18n.t` from every text ``fig`` draws (titles,
    labels, legends, fixed tick labels): matplotlib lays Arabic text out itself (libraqm), and it
    places a sign next to an isolated number on the wrong side (``0.5-``); without them it draws
    ``-0.5``."""
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    for text in fig.findobj(Text):
        value = text.get_text()
        if any(ch in CONTROLS for ch in value):
            text.set_text(strip_controls(value))
    for ax in fig.axes:  # tick labels a lab gave (ax.set_xticks(ticks, labels)) are written at draw time
        for axis in (ax.xaxis, ax.yaxis):
            for formatter in (axis.get_major_formatter(), axis.get_minor_formatter()):
                if isinstance(formatter, FixedFormatter):
                    formatter.seq = [strip_controls(str(label)) for label in formatter.seq]
                elif isinstance(formatter, FuncFormatter) and not getattr(formatter.func, "_plain", False):
                    def plain(x: float, pos: int | None = None, _label: Callable = formatter.func) -> str:
                        return strip_controls(str(_label(x, pos)))

                    plain._plain = True
                    formatter.func = plain


def show_figure(fig: Any, integer_x: bool = False, margins: dict[str, float] | None = None,
                alt: str | None = None) -> dict[str, float]:
    """Lay out ``fig`` and display it as one PNG image with a text alternative (every lab's last
    drawing step): ``alt``, or :func:`figure_description` of the figure — what a screen reader
    reads, what the static site's ``<img alt>`` says, in the lab's language.

    ``integer_x`` puts only whole-number ticks on every x-axis (counts of updates,
    microbatches, groups). The layout is matplotlib's ``tight_layout`` unless ``margins`` (the
    subplot parameters ``left``, ``right``, ``bottom``, ``top``, ``wspace``, ``hspace``, as
    fractions of the figure) are given; the margins used are returned, so a lab that redraws
    the same kind of figure can lay it out once and pass them back (the layout pass measures
    every text and costs about a third of a redraw). Log axes get their labels as Unicode superscripts
    (:func:`plain_log_label`, no mathtext). The PNG is rendered here, in the calling thread, so
    the output does not depend on the notebook's matplotlib backend. Course: every lab's plots.

    Arabic plot texts (titles, axes, legends under ``set_language("ar")``) are shaped and laid out
    right to left by matplotlib itself: the pinned matplotlib (3.11, requirements/constraints.txt)
    lays text out with libraqm, and DejaVu Sans, matplotlib's default font, has the Arabic glyphs.
    Numbers stay Latin digits (the labs format them before translating).
    """
    import io

    from IPython.display import HTML, display
    from matplotlib.ticker import MaxNLocator

    if integer_x:
        for ax in fig.axes:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    _plain_log_axes(fig)
    if direction() == "rtl":
        alt = alt if alt is not None else figure_description(fig)  # said with its isolates, drawn without
        _without_bidi_controls(fig)
    if margins is None:
        fig.tight_layout()
    else:
        fig.subplots_adjust(**margins)
    buffer = io.BytesIO()
    # The canvas prints the PNG itself, in one draw at the figure's dpi. ``fig.savefig`` would draw
    # the figure twice: ``tight_layout`` leaves a placeholder layout engine on the figure, and
    # savefig then makes a layout draw before the real one (the same bytes, twice the time).
    fig.canvas.print_png(buffer)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    text = alt if alt is not None else figure_description(fig)
    display(HTML(f'<img src="data:image/png;base64,{data}" alt="{html.escape(text, quote=True)}" '
                 f'style="max-width:100%">'))
    params = fig.subplotpars
    return {key: getattr(params, key) for key in ("left", "right", "bottom", "top", "wspace", "hspace")}

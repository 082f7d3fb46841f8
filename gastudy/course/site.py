"""The static edition: run the whole course and write a readable HTML site (all chapters).

``gastudy site`` (or :func:`build_site`) executes a *copy* of every notebook in a temporary
folder, turns each widget lab into what it showed when it ran (its plots, tables and the
control values it used), and writes::

    _site/index.html            the course map: one line per notebook, its sections, its run time
    _site/NN_name.html          one page per notebook, with every plot and table
    _site/workshop.html         the workshop guide (when notebooks/WORKSHOP.md exists)
    _site/tr/, es/, ar/         the translated editions, when asked for (``languages``), with a
                                language switch on every page; Arabic pages read right to left

The committed notebooks are only read, never written: the course stays clean of outputs.
The pages need no kernel and no widget JavaScript; the controls appear as a line saying which
values produced the plot below them.

The site is self-contained: it works from a USB stick (``file://`` URLs, no network). Every
stylesheet is inlined, every plot and every image of a markdown cell is embedded as a data URI,
and no page references a script from a CDN: the exporter's template (:func:`html_exporter`)
leaves out require.js, the widget manager, MathJax and mermaid.js (no chapter uses TeX math or
mermaid diagrams; ``tests/test_site.py`` keeps it that way). Anything remote a notebook's own
output would still pull in is dropped with a warning (:func:`drop_remote_assets`).

Notebooks run in parallel (``jobs``, one kernel each, in a folder of its own); the pages keep
the course order.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import html
import os
import re
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
# Widgets that only decorate: their values are not inputs a reader needs to know.
_SKIPPED_MODELS = {"LayoutModel", "ButtonModel", "FloatProgressModel", "IntProgressModel"}
_BOXES = {"VBoxModel", "HBoxModel", "BoxModel", "GridBoxModel", "AccordionModel", "TabModel"}
_TEXT_MODELS = {"HTMLModel", "HTMLMathModel", "LabelModel"}

_PAGE_CSS = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       line-height: 1.5; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #ddd; vertical-align: top; }
code { background: #f4f4f4; padding: 0 .2rem; }
.muted { color: #595959; font-size: .9em; }
a { color: #0b3d91; }
main p a, main li a, main td a, nav a { text-decoration: underline; }
"""
# What the notebook pages need beyond nbconvert's theme to pass an accessibility audit (WCAG AA,
# axe-core): prompts and the syntax colours of comments, numbers and operators darkened to a
# contrast of at least 4.5:1 on the code background, and links underlined inside text.
_ACCESSIBLE_CSS = """
.jp-InputPrompt, .jp-OutputPrompt { color: #595959 !important; opacity: 1 !important; }
.highlight .c, .highlight .c1, .highlight .ch, .highlight .cm, .highlight .cp, .highlight .cpf,
.highlight .cs { color: #2e6262 !important; }
.highlight .m, .highlight .mb, .highlight .mf, .highlight .mh, .highlight .mi, .highlight .il,
.highlight .mo { color: #1d6a1d !important; }
.highlight .o, .highlight .ow { color: #6f2da8 !important; }
.jp-RenderedHTMLCommon a, .jp-RenderedMarkdown a, main p a, main li a, nav a { text-decoration: underline !important; }
.jp-InputArea, .jp-InputArea pre { direction: ltr; text-align: left; }
.jp-OutputArea pre { unicode-bidi: plaintext; text-align: start; }
"""
"""The page's accessibility and bidirectional layout: contrast of prompts and syntax colours,
underlined links, and in a right-to-left edition code that reads left to right (a code cell) and
printed lines that each take the direction of their own first letter (a lab's output)."""
_RIGHT_TO_LEFT_CSS = "th, td { text-align: start; }"
"""What a right-to-left page adds to its own style (the index's): its table cells start on the right.
A notebook page adds :data:`gastudy.course.i18n.OUTPUT_DIRECTION_CSS` (paragraphs, headings, list
items and choices aligned to where their direction starts; JupyterLab's theme aligns them left)."""
_NAV_CSS = ("position:sticky;top:0;z-index:10;background:#f7f7f7;border-bottom:1px solid #ddd;"
            "padding:.5rem 1rem;font-family:system-ui,sans-serif;font-size:.95rem")
_CONTROLS_CSS = ("font-family:system-ui,sans-serif;font-size:.9rem;color:#444;background:#f4f6fa;"
                 "border-left:3px solid #7a9cc6;padding:.3rem .6rem;margin:.2rem 0")


class SiteBuildError(RuntimeError):
    """A notebook failed while the static edition was being built; names the notebook. Course: all chapters."""


@dataclass
class Page:
    """One built page: the notebook stem, its title, the sections it covers (``SECTIONS``), the run time (s)."""

    name: str
    title: str
    sections: list[str]
    seconds: float

    @property
    def href(self) -> str:
        return f"{self.name}.html"


# ----------------------------------------------------------------------------- widgets → static
def _model_id(ref: str) -> str:
    return ref[len("IPY_MODEL_"):] if ref.startswith("IPY_MODEL_") else ref


def _control_text(model: dict[str, Any]) -> str | None:
    """``description = value`` for an input control, ``None`` for anything else."""
    state = model.get("state", {})
    if "_options_labels" in state and "index" in state:  # Dropdown, ToggleButtons, Select…
        labels, index = state["_options_labels"], state["index"]
        value = ", ".join(labels[i] for i in index) if isinstance(index, list) else (
            labels[index] if index is not None else "—")
    elif "value" in state:
        value = state["value"]
    else:
        return None
    label = state.get("description") or model.get("model_name", "").removesuffix("Model")
    return f"{label} = {value}"


def _static_outputs(model_id: str, models: dict[str, Any]) -> list[dict[str, Any]]:
    """The outputs a widget showed, as plain notebook outputs (recursively through boxes).

    Output widgets give back what was printed or plotted into them; HTML and label widgets
    give their HTML; the input controls of one box are gathered into one line that says
    which values produced what follows.
    """
    model = models.get(model_id)
    if model is None:
        return []
    name, state = model.get("model_name", ""), model.get("state", {})
    if name == "OutputModel":
        return [copy.deepcopy(o) for o in state.get("outputs", [])]
    if {"gastudy-question", "gastudy-prediction"} & set(state.get("_dom_classes", ())):
        return [_html_output(_question_html(state, models))]
    if name in _TEXT_MODELS:
        value = state.get("value", "")
        text = value if name != "LabelModel" else html.escape(str(value))
        return [_html_output(text)] if text else []
    if name in _BOXES:
        outputs: list[dict[str, Any]] = []
        inline: list[str] = []
        for ref in state.get("children", []):
            child = models.get(_model_id(ref), {})
            child_name = child.get("model_name", "")
            if child_name in _SKIPPED_MODELS:
                continue
            if child_name in _TEXT_MODELS:
                inline.append(str(child["state"].get("value", "")))
                continue
            control = _control_text(child) if child_name not in _BOXES | {"OutputModel"} else None
            if control is not None:
                inline.append(html.escape(control))
                continue
            outputs.extend(_flush(inline))
            outputs.extend(_static_outputs(_model_id(ref), models))
        return outputs + _flush(inline)
    control = _control_text(model)
    return [_html_output(html.escape(control))] if control else []


def _question_html(state: dict[str, Any], models: dict[str, Any]) -> str:
    """A questionnaire's question, or a prediction, on the static page: its prompt, its choices as
    a list (a number or a sentence has nothing to list), its unit, and its folded answer."""
    parts = []
    for ref in state.get("children", []):
        child = models.get(_model_id(ref), {})
        child_state = child.get("state", {})
        if child.get("model_name") in _BOXES:
            parts.append(_question_html(child_state, models))
        elif child.get("model_name") in _TEXT_MODELS:
            parts.append(str(child_state.get("value", "")))
        elif child_state.get("_options_labels"):
            parts.append("<ul>" + "".join(f"<li>{html.escape(str(label))}</li>"
                                          for label in child_state["_options_labels"]) + "</ul>")
    return "\n".join(parts)


def _flush(inline: list[str]) -> list[dict[str, Any]]:
    """One HTML line for the gathered inline pieces (controls, labels); empties the list."""
    pieces = [p for p in inline if p.strip()]
    inline.clear()
    if not pieces:
        return []
    return [_html_output(f'<div style="{_CONTROLS_CSS}">{" · ".join(pieces)}</div>')]


def _html_output(text: str) -> dict[str, Any]:
    return {"output_type": "display_data", "metadata": {}, "data": {"text/html": text}}


def flatten_widgets(nb: Any) -> int:
    """Replace every widget view in an executed notebook by the outputs it showed (in place).

    Uses the widget state stored by the executor (``store_widget_state=True``); removes that
    state afterwards so the page needs no widget JavaScript. Returns the number of widget
    views replaced. Course: the static edition of every chapter.
    """
    import nbformat

    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    replaced = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        new_outputs = []
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW) if output.get("output_type") in (
                "display_data", "execute_result") else None
            if view is None:
                new_outputs.append(output)
                continue
            replaced += 1
            static = _static_outputs(view.get("model_id", ""), state)
            if not static and "text/plain" in output.get("data", {}):
                static = [{"output_type": "display_data", "metadata": {},
                           "data": {"text/plain": output["data"]["text/plain"]}}]
            new_outputs.extend(nbformat.from_dict(o) for o in static)
        cell.outputs = new_outputs
    nb.metadata.pop("widgets", None)
    return replaced


# ----------------------------------------------------------------------------- execution
def notebook_title(nb: Any, default: str) -> str:
    """The first markdown heading of a notebook, without the ``#`` marks and without HTML tags (an
    Arabic title's ``<bdi dir="ltr">`` would be shown as text in the index), else ``default``.
    Course: all chapters."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.lstrip().startswith("#"):
                    return re.sub(r"</?[A-Za-z][^<>]*>", "", line.lstrip("# ")).strip()
    return default


def course_notebooks(notebooks_dir: str | Path = "notebooks") -> list[Path]:
    """The notebooks to publish, in course order.

    The ones listed in :data:`gastudy.course.NOTEBOOKS` come first, in that order; any other
    ``*.ipynb`` in the folder follows alphabetically. Raises ``FileNotFoundError`` when the
    folder does not exist or holds no notebook.
    """
    from gastudy.course.sections import NOTEBOOKS

    folder = Path(notebooks_dir)
    if not folder.is_dir():
        raise FileNotFoundError(f"no notebooks folder at {folder.resolve()}: run from the repository "
                                "root or pass notebooks_dir=")
    found = {p.stem: p for p in folder.glob("*.ipynb")}
    ordered = [found.pop(name) for name in NOTEBOOKS if name in found]
    ordered += [found[name] for name in sorted(found)]
    if not ordered:
        raise FileNotFoundError(f"{folder.resolve()} holds no .ipynb notebook")
    return ordered


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def default_jobs() -> int:
    """How many notebooks :func:`build_site` runs at once by default: half the usable CPUs, 1 to 4.

    Each notebook gets a kernel of its own; on a two-core machine the build stays sequential.
    Course: all chapters (static edition).
    """
    return max(1, min(4, _cpus() // 2))


def _kernel_env(jobs: int) -> dict[str, str] | None:
    """The environment of each kernel when ``jobs`` run at once: the CPUs shared out (torch threads)."""
    if jobs <= 1 or "OMP_NUM_THREADS" in os.environ:
        return None
    return {**os.environ, "OMP_NUM_THREADS": str(max(1, _cpus() // jobs))}


async def _execute_copy_async(path: Path, workdir: Path, timeout: int, kernel_name: str,
                              env: dict[str, str] | None = None) -> Any:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, workdir / path.name)  # relative reads inside the notebook still work
    from traitlets.config import Config

    # The kernel talks over Unix sockets named after its own connection file, never over TCP ports:
    # a port chosen free can be taken by another kernel (a JupyterLab beside the build) before this
    # one binds it, and the build then waits on a kernel that is not its own.
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, store_widget_state=True,
                            resources={"metadata": {"path": str(workdir)}},
                            config=Config({"KernelManager": {"transport": "ipc",
                                                             "ip": str(workdir.resolve() / "kernel")}}))
    try:
        await client.async_execute(**({"env": env} if env else {}))
    except CellExecutionError as err:
        raise SiteBuildError(f"notebook {path.name} failed while building the static edition:\n{err}\n"
                             f"Run it in JupyterLab (or `pytest --nbval-lax {path}`) to see the cell.") from err
    except (CellTimeoutError, DeadKernelError) as err:
        raise SiteBuildError(f"notebook {path.name} did not finish while building the static edition "
                             f"({type(err).__name__}: {err}); raise --timeout (now {timeout} s a cell) "
                             "or run it in JupyterLab to see which cell hangs.") from err
    return nb


async def _execute_all(paths: list[Path], workdir: Path, timeout: int, kernel_name: str, jobs: int,
                       done: Any = None) -> list[tuple[Any, float]]:
    """Execute copies of ``paths``, at most ``jobs`` at once, each in ``workdir/<stem>``.

    Returns ``(notebook, seconds)`` in the order of ``paths``. The first failure cancels the
    others (their kernels are shut down) and is raised.
    """
    gate = asyncio.Semaphore(jobs)
    env = _kernel_env(jobs)

    async def one(path: Path) -> tuple[Any, float]:
        async with gate:
            t0 = time.perf_counter()
            nb = await _execute_copy_async(path, workdir / path.stem, timeout, kernel_name, env)
            if done is not None:
                done()
            return nb, time.perf_counter() - t0

    tasks = [asyncio.ensure_future(one(p)) for p in paths]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


# ----------------------------------------------------------------------------- HTML
# The lab template without anything it would fetch from a CDN: require.js (only the widget
# manager needs it, and the widgets are flattened to static HTML), the widget manager itself,
# MathJax (no chapter uses TeX math) and mermaid.js (no chapter draws a mermaid diagram).
_OFFLINE_TEMPLATE_NAME = "gastudy_offline.html.j2"
_OFFLINE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""
_REMOTE = r"""(?:https?:)?//[^"'\s>)]+"""
# A tag that makes the browser fetch something by itself: its src= / href= / data= / poster=.
_REMOTE_ATTR = re.compile(
    r"""<(?P<tag>script|link|img|iframe|frame|embed|object|source|track|audio|video|input)\b[^>]*?"""
    r"""\s(?:src|href|data|poster|srcset)\s*=\s*["']?(?P<url>""" + _REMOTE + ")", re.IGNORECASE)
_LINKABLE = {"img", "iframe", "frame", "embed", "object", "video", "audio"}
_REMOTE_CSS = re.compile(r"""(?:@import\s+|url\(\s*)["']?(?P<url>""" + _REMOTE + ")", re.IGNORECASE)


def html_exporter() -> Any:
    """The nbconvert exporter of the static edition: the JupyterLab look, nothing fetched.

    CSS is inlined by the lab template; images in markdown cells are embedded as data URIs
    (``embed_images``; they are found relative to the notebook's folder); the scripts the lab
    template would load from a CDN are left out. Course: all chapters (static edition).
    """
    from jinja2 import DictLoader

    return _exporter_class()(template_name="lab", template_file=_OFFLINE_TEMPLATE_NAME, embed_images=True,
                             extra_loaders=[DictLoader({_OFFLINE_TEMPLATE_NAME: _OFFLINE_TEMPLATE})])


@functools.cache
def _exporter_class() -> type:
    """nbconvert's ``HTMLExporter``, except that raw HTML in markdown without an ``<img>`` is kept
    as written. To embed images nbconvert re-serializes every HTML fragment through an HTML
    parser, one fragment at a time, and a parser closes an opening tag on the spot:
    ``<bdi dir="ltr">m = 2</bdi>`` became ``<bdi dir="ltr"></bdi>m = 2``, emptying the direction
    wrappers of the right-to-left edition."""
    from jinja2 import pass_context
    from nbconvert import HTMLExporter
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    class Renderer(IPythonRenderer):
        def _html_embed_images(self, html: str) -> str:
            return super()._html_embed_images(html) if "<img" in html.lower() else html

    class Exporter(HTMLExporter):
        @pass_context
        def markdown2html(self, context: dict, source: str) -> str:
            cell = context.get("cell", {})
            renderer = Renderer(escape=False, attachments=cell.get("attachments", {}), embed_images=self.embed_images,
                                path=context.get("resources", {}).get("metadata", {}).get("path", ""),
                                anchor_link_text=self.anchor_link_text,
                                exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
            return MarkdownWithMath(renderer=renderer).render(source)

    return Exporter


def remote_assets(page_html: str) -> list[str]:
    """The URLs a page would fetch from the network as it loads (scripts, stylesheets, images, frames, CSS imports).

    Links a reader may click (``<a href="https://…">``) are not assets and are not listed.
    An empty list means the page works offline. Course: all chapters (static edition).
    """
    return [m.group("url") for m in _REMOTE_ATTR.finditer(page_html)] + [
        m.group("url") for m in _REMOTE_CSS.finditer(page_html)]


def drop_remote_assets(page_html: str) -> tuple[str, list[str]]:
    """Remove what :func:`remote_assets` finds; returns the page and the URLs removed.

    A remote script goes with its ``</script>``, a remote stylesheet and a CSS ``@import`` go,
    a CSS ``url(…)`` becomes ``none``, a remote image or frame becomes a link to it (a reader
    who is online can still follow it). Course: all chapters (static edition).
    """
    dropped: list[str] = []

    def gone(m: re.Match[str]) -> str:
        dropped.append(m.group("url"))
        return ""

    def as_link(m: re.Match[str]) -> str:
        url = m.group("url")
        dropped.append(url)
        if m.group("tag").lower() not in _LINKABLE:
            return ""
        alt = re.search(r"""\salt\s*=\s*["']([^"']+)""", m.group(0))
        return f'<a href="{url}">{alt.group(1) if alt else url}</a>'  # both still escaped as in the page

    flags = re.IGNORECASE | re.DOTALL
    page_html = re.sub(r"""<script\b[^>]*?\ssrc\s*=\s*["']?(?P<url>""" + _REMOTE + r""")[^>]*>.*?</script\s*>""",
                       gone, page_html, flags=flags)
    page_html = re.sub(_REMOTE_ATTR.pattern + r"[^>]*>", as_link, page_html, flags=flags)
    page_html = re.sub(r"""@import\s+(?:url\(\s*)?["']?(?P<url>""" + _REMOTE + r""")[^;]*;""", gone, page_html,
                       flags=flags)
    page_html = re.sub(r"""url\(\s*["']?(?P<url>""" + _REMOTE + r""")["']?\s*\)""",
                       lambda m: gone(m) + "none", page_html, flags=flags)
    return page_html, dropped


def _language_switch(lang: str, page: str, editions: dict[str, set[str]]) -> str:
    """Links to the same page in the other editions (their index when that chapter is not
    translated there). English lives at the site's root, each edition in ``<code>/``."""
    from gastudy.course.i18n import LANGUAGES

    if len(editions) < 2:
        return ""
    up = "" if lang == "en" else "../"
    links = []
    for code, pages in editions.items():
        name = html.escape(LANGUAGES[code])
        if code == lang:
            links.append(f"<strong>{name}</strong>")
            continue
        folder = up + ("" if code == "en" else f"{code}/")
        target = page if page in pages else "index.html"
        links.append(f'<a href="{folder}{target}" hreflang="{code}" lang="{code}">{name}</a>')
    return '<span class="gastudy-languages" style="float:inline-end">' + " · ".join(links) + "</span>"


def _nav(pages: list[Page], i: int, switch: str = "") -> str:
    from gastudy.course.i18n import direction, t

    def name(page: Page) -> str:  # a notebook's name reads left to right in an Arabic page
        return f'<bdi dir="ltr">{html.escape(page.name)}</bdi>' if direction() == "rtl" else html.escape(page.name)

    links = [f'<a href="index.html">{html.escape(t("Course index"))}</a>']
    if i > 0:
        links.insert(0, f'<a href="{pages[i - 1].href}">← {name(pages[i - 1])}</a>')
    if i < len(pages) - 1:
        links.append(f'<a href="{pages[i + 1].href}">{name(pages[i + 1])} →</a>')
    return f'<nav style="{_NAV_CSS}">{switch}{" &nbsp;|&nbsp; ".join(links)}</nav>'


def _with_nav(page_html: str, nav: str, lang: str = "en") -> str:
    from gastudy.course.i18n import direction

    page_html = re.sub(r"<html[^>]*>", f'<html lang="{lang}" dir="{direction(lang)}">', page_html, count=1)
    page_html = page_html.replace("</head>", f"<style>{_ACCESSIBLE_CSS}</style></head>", 1)
    if direction(lang) == "rtl":
        from gastudy.course.i18n import OUTPUT_DIRECTION_CSS

        page_html = page_html.replace("</head>", f"<style>{OUTPUT_DIRECTION_CSS}</style></head>", 1)
    return re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + nav, page_html, count=1)


def _index_html(pages: list[Page], has_workshop: bool, total: float, lang: str = "en", switch: str = "") -> str:
    from gastudy.course.i18n import direction, t

    def ltr(text: str) -> str:  # a cell's name, sections or seconds: read left to right in an Arabic page
        return f'<bdi dir="ltr">{text}</bdi>' if direction(lang) == "rtl" else text

    rows = "\n".join(
        f'<tr><td><a href="{p.href}">{ltr(html.escape(p.name))}</a></td><td>{html.escape(p.title)}</td>'
        f'<td>{ltr(html.escape(", ".join(p.sections) or "—"))}</td><td>{ltr(f"{p.seconds:.1f} s")}</td></tr>'
        for p in pages)
    workshop_link = '<a href="workshop.html">' + html.escape(t("workshop guide")) + "</a>"
    workshop = (f"<p>{t('Teaching this in a room? Read the {link}.', link=workshop_link)}</p>"
                if has_workshop else "")
    stamp = time.strftime("%Y-%m-%d %H:%M")
    heads = "".join(f"<th>{html.escape(h)}</th>" for h in (t("notebook"), t("what it shows"), t("sections"),
                                                             t("run time")))
    return f"""<!DOCTYPE html>
<html lang="{lang}" dir="{direction(lang)}"><head><meta charset="utf-8">
<title>gastudy — {html.escape(t("the course, static edition"))}</title>
<style>{_PAGE_CSS}{_RIGHT_TO_LEFT_CSS if direction(lang) == "rtl" else ""}</style></head><body>
{f'<nav style="{_NAV_CSS}">{switch}&nbsp;</nav>' if switch else ""}
<main>
<h1>{html.escape(t("Gradient accumulation and activation checkpointing, done right"))}</h1>
<p>{html.escape(t("The static edition of the gastudy course: every notebook was executed on {stamp} and every "
                  "plot and table below is the measurement that run produced. Nothing here needs a kernel; to "
                  "change the inputs, open the notebooks in JupyterLab.", stamp=stamp))}</p>
{workshop}
<table><thead><tr>{heads}</tr></thead>
<tbody>
{rows}
</tbody></table>
<p class="muted">{t("Built by {command} in {seconds:.0f} s.", command="<code>gastudy site</code>", seconds=total)}</p>
</main>
</body></html>
"""


def _workshop_html(markdown_text: str) -> str:
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    body, _ = drop_remote_assets(markdown2html_mistune(markdown_text))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Workshop guide</title>'
            f'<style>{_PAGE_CSS}</style></head><body><nav><a href="index.html">← Course index</a></nav>'
            f"<main>{body}</main></body></html>\n")


def build_site(out_dir: str | Path = "_site", notebooks_dir: str | Path = "notebooks", *,
               names: list[str] | None = None, timeout: int = 300, kernel_name: str = "python3",
               progress: bool = True, jobs: int | None = None,
               languages: tuple[str, ...] | list[str] = ("en",)) -> Path:
    """Execute the course and write its static HTML edition; returns the output folder.

    Args:
        out_dir: folder for ``index.html`` and one ``NN_name.html`` per notebook (created;
            pages already there are overwritten).
        notebooks_dir: where the ``.ipynb`` files are. They are read, never modified: each
            one is executed as a copy inside a temporary folder (its working directory).
        names: publish only these notebook stems (default: all, in course order).
        timeout: seconds one cell may run.
        kernel_name: the Jupyter kernel that executes the notebooks.
        progress: show a tqdm bar over the notebooks.
        jobs: notebooks executed at once, each by its own kernel (default:
            :func:`default_jobs`). The pages keep the course order whatever finishes first.
        languages: the editions to build: ``"en"`` (the English notebooks, at the site's root)
            and any of ``"tr"``, ``"es"``, ``"ar"`` (the generated notebooks in
            ``notebooks_dir/<code>/``, written to ``out_dir/<code>/``). With more than one, every
            page carries a language switch to the same chapter in the other editions; Arabic
            pages read right to left. An edition publishes the chapters it has translated.

    The pages fetch nothing from the network (see :func:`html_exporter`); a remote asset that a
    notebook's output still references is removed with a warning naming the page.

    Raises ``FileNotFoundError`` for a missing folder, a missing edition or an unknown name in
    ``names``, ``ValueError`` for an unknown language, and :class:`SiteBuildError` when a
    notebook fails (the others are stopped). Course: all chapters (static edition).
    """
    from gastudy.course.i18n import LANGUAGES

    languages = list(dict.fromkeys(languages))
    unknown = [code for code in languages if code not in LANGUAGES]
    if unknown or not languages:
        raise ValueError(f"unknown course language(s) {unknown}: choose from {', '.join(LANGUAGES)}")
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    sources: dict[str, list[Path]] = {}
    for code in languages:
        folder = Path(notebooks_dir) if code == "en" else Path(notebooks_dir) / code
        if code != "en" and not folder.is_dir():
            raise FileNotFoundError(f"no {LANGUAGES[code]} edition at {folder.resolve()}: generate it first "
                                    f"(gastudy editions), or leave {code!r} out of the languages")
        paths = course_notebooks(folder)
        if names is not None:
            by_name = {p.stem: p for p in paths}
            missing = [n for n in names if n not in by_name]
            if missing and code == "en":
                raise FileNotFoundError(f"no notebook named {missing} in {folder.resolve()}; "
                                        f"available: {', '.join(by_name)}")
            paths = [by_name[n] for n in names if n in by_name]
        sources[code] = paths
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    built = {code: _run_edition(paths, timeout, kernel_name, jobs, progress, code)
             for code, paths in sources.items()}
    editions = {code: {page.href for page, _ in pages} for code, pages in built.items()}
    workshop = Path(notebooks_dir) / "WORKSHOP.md"
    for code, pages in built.items():
        target = out if code == "en" else out / code
        target.mkdir(parents=True, exist_ok=True)
        plain = [page for page, _ in pages]
        for i, (page, body) in enumerate(pages):
            nav = _in_language(code, _nav, plain, i, _language_switch(code, page.href, editions))
            (target / page.href).write_text(_with_nav(body, nav, code), encoding="utf-8")
        has_workshop = code == "en" and workshop.exists()
        if has_workshop:
            (target / "workshop.html").write_text(_workshop_html(workshop.read_text(encoding="utf-8")),
                                                  encoding="utf-8")
        index = _in_language(code, _index_html, plain, has_workshop, time.perf_counter() - start, code,
                             _language_switch(code, "index.html", editions))
        (target / "index.html").write_text(index, encoding="utf-8")
    return out


def _in_language(code: str, build: Any, *args: Any) -> Any:
    """Call ``build(*args)`` with the course language set to ``code``, then restore it."""
    from gastudy.course.i18n import language, set_language

    before = language()
    set_language(code)
    try:
        return build(*args)
    finally:
        set_language(before)


def _run_edition(paths: list[Path], timeout: int, kernel_name: str, jobs: int, progress: bool,
                 code: str) -> list[tuple[Page, str]]:
    """Execute one edition's notebooks and turn each into (its page, its HTML body)."""
    from nbclient.util import run_sync

    from gastudy.course.sections import NOTEBOOKS, SECTIONS

    if not paths:
        return []
    exporter = html_exporter()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(paths), desc="notebooks" if code == "en" else f"notebooks ({code})", unit="notebook")
    try:
        with tempfile.TemporaryDirectory(prefix="gastudy-site-") as tmp:
            executed = run_sync(_execute_all)(paths, Path(tmp), timeout, kernel_name, min(jobs, len(paths)),
                                              bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    pages = []
    for path, (nb, seconds) in zip(paths, executed):
        flatten_widgets(nb)
        title = (NOTEBOOKS.get(path.stem) if code == "en" else None) or notebook_title(nb, path.stem)
        sections = [sid for sid, (_, name) in SECTIONS.items() if name == path.stem]
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title,
                                                                          "path": str(path.parent)}})
        body, dropped = drop_remote_assets(body)
        if dropped:
            where = path.stem if code == "en" else f"{code}/{path.stem}"
            warnings.warn(f"{where}.html: removed what it would fetch from the network (the static "
                          f"edition must work offline): {', '.join(dropped)}", stacklevel=3)
        pages.append((Page(path.stem, title, sections, seconds), body))
    return pages


# ----------------------------------------------------------------------------- CLI



"""The static edition (gastudy.course.site): executes copies, renders labs statically, never writes notebooks."""

from __future__ import annotations

import argparse
import hashlib
import re
import time
from pathlib import Path

import nbformat
import pytest

from gastudy.cli.site import add_site_parser, site_command
from gastudy.course.site import (
    SiteBuildError,
    build_site,
    course_notebooks,
    drop_remote_assets,
    flatten_widgets,
    remote_assets,
)

REPO = Path(__file__).resolve().parents[1]
# What a page loads by itself (script, stylesheet, image) from the network; <a href> links are fine.
REMOTE_LOAD = re.compile(r"""<(script|link|img)\b[^>]*\s(src|href)\s*=\s*["']?(https?:)?//""", re.IGNORECASE)
# TeX math in markdown: the pages ship no MathJax, so it would show as raw TeX.
TEX_MATH = re.compile(r"""(?<![\\$])\$[^$\n]+\$|\$\$|\\\(|\\\[|\\begin\{""")

LAB_CELL = """\
import ipywidgets as widgets
import matplotlib.pyplot as plt
from gastudy.course import Lab

class DoubleLab(Lab):
    title = "Doubling"
    def __init__(self):
        super().__init__(n=widgets.IntSlider(value=3, description="n"),
                         kind=widgets.Dropdown(options=["sum", "mean"], value="mean", description="kind"))
    def compute(self, n, kind):
        return n * 2
    def render(self, result):
        print("doubled:", result)
        plt.plot([0, result]); plt.show()

lab = DoubleLab(); lab"""


def _notebook(path: Path, *sources: str, title: str = "# Tiny chapter\nFor the site tests.") -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.language_info = {"name": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(title), *(nbformat.v4.new_code_cell(s) for s in sources)]
    nbformat.write(nb, path)
    return path


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One tiny course (a lab with a plot, a cell that writes a file) built once for the tests."""
    root = tmp_path_factory.mktemp("course")
    notebooks = root / "notebooks"
    notebooks.mkdir()
    _notebook(notebooks / "tiny.ipynb", "%matplotlib inline", LAB_CELL,
              "print('result is', lab.result)\nopen('written.txt', 'w').write('x')")
    (notebooks / "WORKSHOP.md").write_text("# Workshop\n\n- **10 min** on the tiny chapter\n")
    before = _digests(notebooks)
    out = build_site(root / "_site", notebooks, progress=False, timeout=60)
    return notebooks, out, before


def test_site_has_index_page_and_workshop(built):
    notebooks, out, _ = built
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "tiny.html", "workshop.html"]
    index = (out / "index.html").read_text()
    assert '<a href="tiny.html">tiny</a>' in index
    assert "Tiny chapter" in index  # title from the first heading (not in NOTEBOOKS)
    assert "<strong>10 min</strong>" in (out / "workshop.html").read_text()


def test_page_shows_lab_outputs_without_widget_javascript(built):
    _, out, _ = built
    page = (out / "tiny.html").read_text()
    assert "doubled: 6" in page  # printed inside the lab's Output widget
    assert "n = 3" in page and "kind = mean" in page  # the control values that produced it
    assert "<b>Doubling</b>" in page
    assert "data:image/png;base64" in page  # the lab's plot, embedded
    assert "result is 6" in page
    assert "widget-view+json" not in page and "widget-state+json" not in page
    assert '<a href="index.html">Course index</a>' in page


def test_pages_load_nothing_from_the_network(built):
    """No CDN: no require.js, no widget manager, no MathJax, no mermaid; the CSS is inlined."""
    _, out, _ = built
    for page in out.glob("*.html"):
        text = page.read_text()
        assert not REMOTE_LOAD.search(text), f"{page.name}: {REMOTE_LOAD.search(text).group(0)}"
        assert remote_assets(text) == [], page.name
        assert "<script src" not in text and "require.js" not in text and "mathjax" not in text.lower()
    assert "<style" in (out / "tiny.html").read_text()  # the lab look, inlined


def test_remote_assets_found_and_dropped():
    page = ('<head><script src="https://cdn.example/require.min.js"></script>'
            '<link rel="stylesheet" href="//fonts.example/a.css">'
            '<style>@import url("https://fonts.example/b.css"); .x { background: url(http://i.example/b.png) }</style>'
            '</head><body><p>Further reading: <a href="https://example.org/paper">the paper</a></p>'
            '<img alt="a plot" src="https://i.example/plot.png"><img src="data:image/png;base64,AAAA">'
            '<script>var local = 1;</script></body>')
    assert remote_assets(page) == ["https://cdn.example/require.min.js", "//fonts.example/a.css",
                                   "https://i.example/plot.png", "https://fonts.example/b.css",
                                   "http://i.example/b.png"]
    cleaned, dropped = drop_remote_assets(page)
    assert sorted(dropped) == sorted(remote_assets(page))
    assert remote_assets(cleaned) == [] and not REMOTE_LOAD.search(cleaned)
    assert '<a href="https://example.org/paper">the paper</a>' in cleaned  # a link to read further stays
    assert '<a href="https://i.example/plot.png">a plot</a>' in cleaned  # a remote image becomes a link
    assert "data:image/png;base64,AAAA" in cleaned and "var local = 1;" in cleaned
    assert drop_remote_assets(cleaned) == (cleaned, [])


def test_no_chapter_needs_mathjax_or_mermaid():
    """The pages ship no MathJax and no mermaid.js (both would come from a CDN): keep the course free of them."""
    found = []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if cell.cell_type == "markdown" and (TEX_MATH.search(cell.source) or "```mermaid" in cell.source):
                found.append(f"{path.name} cell {i}: {(TEX_MATH.search(cell.source) or 'mermaid')!s}")
            if cell.cell_type == "code" and re.search(r"\b(Math|Latex|display_latex|display_math)\(", cell.source):
                found.append(f"{path.name} cell {i}: displays TeX")
    assert found == [], ("TeX math or a mermaid diagram would show as raw text in the offline static edition "
                         "(gastudy site); write it in Unicode/HTML or render it to an image:\n" + "\n".join(found))


def test_notebooks_run_in_parallel_keep_order_and_stop_on_failure(tmp_path):
    notebooks = tmp_path / "nbs"
    notebooks.mkdir()
    _notebook(notebooks / "b_second.ipynb", "import time; time.sleep(1); print('second ran')", title="# Second")
    _notebook(notebooks / "a_first.ipynb", "print('first ran')", title="# First")
    out = build_site(tmp_path / "_site", notebooks, progress=False, timeout=60, jobs=2)
    assert "second ran" in (out / "b_second.html").read_text() and "first ran" in (out / "a_first.html").read_text()
    index = (out / "index.html").read_text()
    assert index.index("a_first.html") < index.index("b_second.html")
    assert '<a href="b_second.html">b_second →</a>' in (out / "a_first.html").read_text()
    # one notebook fails while another is still running: the build stops at once and names it
    _notebook(notebooks / "c_slow.ipynb", "import time; time.sleep(120)")
    _notebook(notebooks / "b_second.ipynb", "raise ValueError('on purpose')")
    t0 = time.perf_counter()
    with pytest.raises(SiteBuildError, match=r"b_second\.ipynb failed"):
        build_site(tmp_path / "_site2", notebooks, names=["c_slow", "b_second"], progress=False, timeout=60, jobs=2)
    assert time.perf_counter() - t0 < 90  # the slow one was cancelled, not waited for


def test_notebooks_are_never_modified(built):
    notebooks, _, before = built
    assert _digests(notebooks) == before  # byte-identical, and written.txt landed elsewhere
    assert not (notebooks / "written.txt").exists()


def test_failing_notebook_names_itself(tmp_path):
    notebooks = tmp_path / "nbs"
    notebooks.mkdir()
    _notebook(notebooks / "broken.ipynb", "raise ValueError('on purpose')")
    with pytest.raises(SiteBuildError, match=r"broken\.ipynb failed(.|\n)*on purpose"):
        build_site(tmp_path / "_site", notebooks, progress=False, timeout=60)


def test_hanging_notebook_names_itself(tmp_path):
    notebooks = tmp_path / "nbs"
    notebooks.mkdir()
    _notebook(notebooks / "hangs.ipynb", "import time; time.sleep(60)")
    with pytest.raises(SiteBuildError, match=r"hangs\.ipynb did not finish(.|\n)*--timeout \(now 2 s"):
        build_site(tmp_path / "_site", notebooks, progress=False, timeout=2)


def test_unknown_name_and_missing_folder(tmp_path):
    notebooks = tmp_path / "nbs"
    notebooks.mkdir()
    _notebook(notebooks / "a.ipynb", "1")
    with pytest.raises(FileNotFoundError, match=r"no notebook named \['zz'\].*available: a"):
        build_site(tmp_path / "_site", notebooks, names=["zz"], progress=False)
    with pytest.raises(FileNotFoundError, match="no notebooks folder"):
        course_notebooks(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="holds no .ipynb"):
        course_notebooks(tmp_path)


def test_course_order_first(tmp_path):
    for name in ["zz_extra", "07_same_batch_different_experiment", "01_microbatch_backward_update"]:
        _notebook(tmp_path / f"{name}.ipynb", "1")
    assert [p.stem for p in course_notebooks(tmp_path)] == [
        "01_microbatch_backward_update", "07_same_batch_different_experiment", "zz_extra"]


def widget_notebook(model_id: str, state: dict) -> nbformat.NotebookNode:
    """A notebook of one executed cell that showed widget ``model_id``, with the stored ``state``."""
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("lab")
    cell.outputs = [nbformat.from_dict({
        "output_type": "display_data", "metadata": {},
        "data": {"text/plain": "VBox(...)",
                 "application/vnd.jupyter.widget-view+json": {"model_id": model_id, "version_major": 2,
                                                              "version_minor": 0}}})]
    nb.cells = [cell]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state}}
    return nb


def test_flatten_widgets_from_stored_state():
    state = {
        "box": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_row", "IPY_MODEL_out"]}},
        "row": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_m", "IPY_MODEL_p", "IPY_MODEL_l"]}},
        "m": {"model_name": "IntSliderModel", "state": {"value": 4, "description": "m"}},
        "p": {"model_name": "DropdownModel", "state": {"_options_labels": ["fp32", "bf16"], "index": 1,
                                                       "description": "precision"}},
        "l": {"model_name": "LayoutModel", "state": {}},
        "out": {"model_name": "OutputModel", "state": {"outputs": [
            {"output_type": "stream", "name": "stdout", "text": "peak 12 MiB\n"}]}},
    }
    nb = widget_notebook("box", state)
    assert flatten_widgets(nb) == 1
    outs = nb.cells[0].outputs
    assert "m = 4 · precision = bf16" in outs[0]["data"]["text/html"]
    assert outs[1]["text"] == "peak 12 MiB\n"
    assert "widgets" not in nb.metadata


def test_a_prediction_reads_on_the_static_page_as_its_question_and_choices():
    state = {
        "q": {"model_name": "VBoxModel", "state": {"children": ["IPY_MODEL_prompt", "IPY_MODEL_row"],
                                                   "_dom_classes": ["gastudy-prediction"]}},
        "prompt": {"model_name": "HTMLModel", "state": {"value": "<b>Predict first:</b> Same gradient?"}},
        "row": {"model_name": "HBoxModel", "state": {"children": ["IPY_MODEL_field", "IPY_MODEL_unit"]}},
        "field": {"model_name": "RadioButtonsModel", "state": {"_options_labels": ["yes", "no"], "index": None}},
        "unit": {"model_name": "HTMLModel", "state": {"value": "×"}},
    }
    nb = widget_notebook("q", state)
    assert flatten_widgets(nb) == 1
    [out] = nb.cells[0].outputs
    page = out["data"]["text/html"]
    assert "<b>Predict first:</b> Same gradient?" in page and "<ul><li>yes</li><li>no</li></ul>" in page
    assert "×" in page and "RadioButtons" not in page and " = " not in page


def test_cli_parser_and_missing_folder(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="gastudy")
    add_site_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["site", "--out", str(tmp_path / "s"), "--notebooks", str(tmp_path / "none"),
                              "--only", "a", "b"])
    assert args.only == ["a", "b"] and args.func is site_command and args.jobs is None
    assert site_command(args) == 2  # bad input: exit 2, the flag named, on stderr
    assert "--notebooks" in capsys.readouterr().err
    assert parser.parse_args(["site", "--jobs", "3"]).jobs == 3
    with pytest.raises(SystemExit):
        parser.parse_args(["site", "--jobs", "0"])


REAL = "02_effective_batch"  # small, and it has plots


@pytest.fixture(scope="module")
def real_site(tmp_path_factory):
    """One committed chapter built through the command line (``gastudy site --only``)."""
    notebooks = REPO / "notebooks"
    if not (notebooks / f"{REAL}.ipynb").exists():
        pytest.skip(f"{REAL}.ipynb is not committed")
    out = tmp_path_factory.mktemp("real") / "_site"
    parser = argparse.ArgumentParser(prog="gastudy")
    add_site_parser(parser.add_subparsers(dest="command"))
    before = _digests(notebooks)
    args = parser.parse_args(["site", "--out", str(out), "--notebooks", str(notebooks), "--only", REAL,
                               "--timeout", "120"])  # a cell that hangs is named before pytest's 300 s
    assert site_command(args) == 0
    return out, before, _digests(notebooks)


@pytest.mark.slow
def test_real_notebook_untouched(real_site):
    """One small committed notebook builds, and the committed files stay byte-identical."""
    out, before, after = real_site
    assert after == before
    assert sorted(p.name for p in out.iterdir()) == sorted(["index.html", f"{REAL}.html"] + (
        ["workshop.html"] if (REPO / "notebooks" / "WORKSHOP.md").exists() else []))


@pytest.mark.slow
def test_real_pages_work_offline(real_site):
    """No page of the built site loads a script, stylesheet or image over http(s)."""
    out, _, _ = real_site
    for page in sorted(out.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        remote = [m.group(0) for m in REMOTE_LOAD.finditer(text)]
        assert remote == [], f"{page.name} loads from the network: {remote}"
        assert remote_assets(text) == [], page.name
    chapter = (out / f"{REAL}.html").read_text(encoding="utf-8")
    assert chapter.count('src="data:image/png;base64,') >= 1  # its plots, embedded


def test_translated_editions_get_a_language_switch_and_arabic_reads_right_to_left(tmp_path, monkeypatch):
    """``languages``: the English site at the root, each edition in its folder, a switch on every page."""
    from gastudy.course import editions, i18n
    from gastudy.course.i18n import catalogs

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    _notebook(notebooks / "01_tiny.ipynb", "from gastudy.course.i18n import language\nprint('lang', language())",
              title="# 01 · Tiny chapter")
    _notebook(notebooks / "02_other.ipynb", "print(2)", title="# 02 · Other chapter")
    editions.update_translation_files("ar", notebooks)
    catalog = editions.load_catalog("ar", notebooks)
    [entry] = [m for m in catalog if m.id and ("01_tiny.ipynb", None) in m.locations]
    entry.string = "# 01 · فصل صغير"
    catalogs.write_catalog(editions.catalog_file("ar", notebooks), catalog)
    editions.build_editions(("ar",), notebooks)
    monkeypatch.setitem(i18n._tables, "ar", {"Course index": "فهرس الدورة"})

    out = build_site(tmp_path / "_site", notebooks, progress=False, timeout=60, languages=("en", "ar"))
    assert sorted(p.name for p in (out / "ar").iterdir()) == ["01_tiny.html", "index.html"]  # 02 not translated
    arabic = (out / "ar" / "01_tiny.html").read_text(encoding="utf-8")
    assert '<html lang="ar" dir="rtl">' in arabic and "فصل صغير" in arabic and "lang ar" in arabic
    assert '<a href="index.html">فهرس الدورة</a>' in arabic
    assert '<a href="../01_tiny.html" hreflang="en" lang="en">English</a>' in arabic
    english = (out / "01_tiny.html").read_text(encoding="utf-8")
    assert '<html lang="en" dir="ltr">' in english and "lang en" in english
    assert '<a href="ar/01_tiny.html" hreflang="ar" lang="ar">العربية</a>' in english
    assert '<a href="ar/index.html" hreflang="ar"' in (out / "02_other.html").read_text(encoding="utf-8")
    assert i18n.language() == "en"                       # the build leaves the language as it was
    with pytest.raises(FileNotFoundError, match="no Türkçe edition"):
        build_site(tmp_path / "_x", notebooks, progress=False, languages=("en", "tr"))
    with pytest.raises(ValueError, match="unknown course language"):
        build_site(tmp_path / "_x", notebooks, progress=False, languages=("fr",))

"""The static edition (gastudy.course.site): executes copies, renders labs statically, never writes notebooks."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import nbformat
import pytest

from gastudy.cli.site import add_site_parser, site_command
from gastudy.course.site import SiteBuildError, build_site, course_notebooks, flatten_widgets

REPO = Path(__file__).resolve().parents[1]

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


def test_flatten_widgets_from_stored_state():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("lab")
    cell.outputs = [nbformat.from_dict({
        "output_type": "display_data", "metadata": {},
        "data": {"text/plain": "VBox(...)",
                 "application/vnd.jupyter.widget-view+json": {"model_id": "box", "version_major": 2,
                                                              "version_minor": 0}}})]
    nb.cells = [cell]
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
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": state}}
    assert flatten_widgets(nb) == 1
    outs = nb.cells[0].outputs
    assert "m = 4 · precision = bf16" in outs[0]["data"]["text/html"]
    assert outs[1]["text"] == "peak 12 MiB\n"
    assert "widgets" not in nb.metadata


def test_cli_parser_and_missing_folder(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="gastudy")
    add_site_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["site", "--out", str(tmp_path / "s"), "--notebooks", str(tmp_path / "none"),
                              "--only", "a", "b"])
    assert args.only == ["a", "b"] and args.func is site_command
    assert site_command(args) == 1
    assert "no notebooks folder" in capsys.readouterr().out


@pytest.mark.slow
def test_real_notebook_untouched(tmp_path):
    """One small committed notebook builds, and the committed files stay byte-identical."""
    notebooks = REPO / "notebooks"
    small = next((n for n in ("00_start_here", "12_questions") if (notebooks / f"{n}.ipynb").exists()), None)
    if small is None:
        pytest.skip("no small course notebook committed yet")
    before = _digests(notebooks)
    out = build_site(tmp_path / "_site", notebooks, names=[small], progress=False)
    assert _digests(notebooks) == before
    assert (out / f"{small}.html").stat().st_size > 0

"""Every notebook in notebooks/ is committed clean and the section map is complete (all chapters).

Clean: valid nbformat 4, no outputs, no execution counts, no saved widget state, kernel
``python3``. Complete: every section ID of :data:`gastudy.course.SECTIONS` is listed in
``00_start_here`` and named in the first cell of the notebook it maps to (for notebooks that
exist already).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

from gastudy.course import NOTEBOOKS, SECTIONS

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def mentions(text: str, section: str) -> bool:
    """``section`` appears as a whole ID (MB-1 does not match inside MB-10)."""
    return re.search(rf"(?<![\w-]){re.escape(section)}(?![\w])", text) is not None


def test_there_are_notebooks():
    assert (NOTEBOOK_DIR / "00_start_here.ipynb").exists(), (
        f"no 00_start_here.ipynb in {NOTEBOOK_DIR}"
    )


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_is_clean(path: Path):
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    assert nb.nbformat == 4, f"{path.name}: nbformat {nb.nbformat}, expected 4"
    nbformat.validate(nb)
    kernel = nb.metadata.get("kernelspec", {})
    assert kernel.get("name") == "python3", (
        f"{path.name}: kernelspec name {kernel.get('name')!r}, expected 'python3'"
    )
    assert "widgets" not in nb.metadata, (
        f"{path.name}: saved widget state in metadata.widgets — clear it"
    )
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert cell.get("outputs") == [], (
            f"{path.name} cell {i}: has outputs — clear them before committing"
        )
        assert cell.get("execution_count") is None, (
            f"{path.name} cell {i}: execution_count is set — clear it"
        )
        assert "widgets" not in cell.get("metadata", {}), (
            f"{path.name} cell {i}: widget state in cell metadata"
        )


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_is_a_known_chapter(path: Path):
    assert path.stem in NOTEBOOKS, f"{path.name} is not listed in gastudy.course.sections.NOTEBOOKS"


def test_start_here_lists_every_section():
    nb = nbformat.read(NOTEBOOK_DIR / "00_start_here.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    missing = [s for s in SECTIONS if not mentions(text, s)]
    assert not missing, f"00_start_here does not list sections {missing}"
    missing_nb = [nb_name for nb_name in NOTEBOOKS if nb_name not in text]
    assert not missing_nb, f"00_start_here does not name chapters {missing_nb}"


def test_start_here_shows_the_section_map_once():
    """The section map (section → title → chapter) is the live ``SectionMapLab``, shown once: the
    markdown lists the chapters with the sections each teaches, not the same map a second time."""
    nb = nbformat.read(NOTEBOOK_DIR / "00_start_here.ipynb", as_version=4)
    map_rows = [line for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if re.match(r"\|\s*(GA|CK|MB)-\d+\s*\|", line)]
    assert map_rows == [], f"00_start_here repeats the section map in markdown: {map_rows[:2]} …"
    labs = [c for c in nb.cells if c.cell_type == "code" and "SectionMapLab()" in c.source]
    assert len(labs) == 1, f"00_start_here shows the section map lab {len(labs)} times"


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_no_cell_ends_with_a_stray_value(path: Path):
    """A cell's last expression is displayed: ``torch.manual_seed(0)`` as the last line shows a
    ``<torch._C.Generator at 0x…>`` the learner has no use for."""
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        lines = cell.source.rstrip().splitlines() if cell.cell_type == "code" else []
        assert not (lines and re.match(r"torch\.(manual_seed|random\.manual_seed)\(", lines[-1])), (
            f"{path.name} cell {i}: ends with {lines[-1]!r}, which displays the generator "
            f"(write `_ = {lines[-1]}`)"
        )


@pytest.mark.parametrize("section", list(SECTIONS))
def test_section_is_named_in_its_notebooks_first_cell(section: str):
    path = NOTEBOOK_DIR / f"{SECTIONS[section][1]}.ipynb"
    if not path.exists():
        pytest.skip(f"{path.name} does not exist yet")
    first = nbformat.read(path, as_version=4).cells[0]
    assert first.cell_type == "markdown", (
        f"{path.name}: the first cell must be markdown (title, sections, goals)"
    )
    assert mentions(first.source, section), (
        f"{path.name}: its first cell does not name section {section}"
    )


def test_mentions_is_exact():
    assert mentions("MB-1 and GA-2", "MB-1")
    assert not mentions("MB-10 and MB-12", "MB-1")
    assert mentions("(MB-1)", "MB-1")


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_notebook_has_the_chapter_frame(path: Path):
    """Opens with a title and a time estimate; ends with a summary and exercises."""
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0].source
    assert first.startswith("# "), f"{path.name}: the first cell must start with the chapter title"
    assert re.search(r"\btime\b", first, re.IGNORECASE), (
        f"{path.name}: the first cell gives no time estimate"
    )
    headings = [
        line
        for c in nb.cells
        if c.cell_type == "markdown"
        for line in c.source.splitlines()
        if line.startswith("#")
    ]
    assert any("summary" in h.lower() for h in headings), f"{path.name}: no Summary heading"
    assert any("exercise" in h.lower() for h in headings), f"{path.name}: no Exercises heading"


def test_the_git_filter_would_not_rewrite_a_clean_notebook(tmp_path):
    """dev.py installs ``nbstripout --keep-id`` as the notebooks' git filter (.gitattributes): on a
    committed (clean) notebook, an edition's included, it must be a no-op, byte for byte, or git
    would show every notebook as changed. One nbstripout run strips copies of them all in place."""
    import shutil
    import subprocess
    import sys

    assert "filter=nbstripout" in (NOTEBOOK_DIR.parent / ".gitattributes").read_text()
    committed = sorted(NOTEBOOK_DIR.glob("**/*.ipynb"))
    assert len(committed) >= 4 * len(PATHS)  # the chapters and their three editions
    copies = [shutil.copyfile(path, tmp_path / f"{i}-{path.name}") for i, path in enumerate(committed)]
    subprocess.run([sys.executable, "-m", "nbstripout", "--keep-id", *map(str, copies)], check=True)
    changed = [str(path.relative_to(NOTEBOOK_DIR)) for path, copy in zip(committed, copies)
               if copy.read_bytes() != path.read_bytes()]
    assert changed == [], f"nbstripout --keep-id changes these committed files: {changed}"


# ------------------------------------------------------------------ the code cells' lint
# A notebook runs top to bottom in one namespace: a cell that rebinds an imported name breaks every
# later cell that uses it. Chapter 08 once wrote ``t = {name: …}`` in a branch taken only on a GPU;
# the translation function was gone for the rest of the chapter, and only a GPU run could see it.
COURSE_NAMES = {"t", "tn", "check", "check_close"}
LINE_LIMIT = 100


def _cell_tree(source: str) -> ast.Module:
    """A code cell parsed; IPython's ``%magic`` and ``!shell`` lines become ``pass``."""
    lines = ["pass" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n")]
    return ast.parse("\n".join(lines))


def _module_level(node: ast.AST):
    """The nodes of a cell that run in the notebook's namespace: not the bodies of functions,
    lambdas, classes or comprehensions (their names are local), but the defined names themselves."""
    for child in ast.iter_child_nodes(node):
        yield child
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from (d for n in child.decorator_list for d in [n, *_module_level(n)])
            continue
        if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        yield from _module_level(child)


def _imports(node: ast.AST) -> dict[str, tuple[str, str]]:
    """Names a cell imports into the notebook's namespace: name → (module, name in the module)."""
    found = {}
    for child in _module_level(node):
        if isinstance(child, ast.Import):
            found.update({(a.asname or a.name.split(".")[0]): (a.name, "") for a in child.names})
        elif isinstance(child, ast.ImportFrom):
            found.update({(a.asname or a.name): (child.module or "", a.name) for a in child.names})
    return found


def _bindings(node: ast.AST) -> list[tuple[str, int]]:
    """(name, line) of every other binding a cell makes in the notebook's namespace: assignment,
    ``for`` and ``with`` targets, ``except … as``, ``def`` and ``class`` names, ``del``."""
    found = []
    for child in _module_level(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
            found.append((child.id, child.lineno))
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or (
                isinstance(child, ast.ExceptHandler) and child.name):
            found.append((child.name, child.lineno))
    return found


def rebound_imports(cells: list[tuple[str, str]]) -> list[str]:
    """``cell id:line name`` of every binding of a name the course imports (``t``, ``tn``,
    ``check``, ``check_close``) or that an earlier cell (or an earlier line of the same cell)
    imported; importing the same object again is no rebinding."""
    imported: dict[str, tuple[str, str]] = {}
    bad = []
    for cell_id, source in cells:
        tree = _cell_tree(source)
        for name, line in _bindings(tree):
            if name in COURSE_NAMES or name in imported:
                bad.append(f"{cell_id}:{line} {name}")
        for name, origin in _imports(tree).items():
            if name in imported and imported[name] != origin:
                bad.append(f"{cell_id} {name} (imported again from {origin[0]})")
            imported.setdefault(name, origin)
    return bad


def translated_claims(cells: list[tuple[str, str]]) -> list[str]:
    """``cell id:line`` of every ``t(…)`` / ``tn(…)`` call inside a ``check(…)`` / ``check_close(…)``:
    a check translates its own literal claim (``check(ok, "claim {x:.1e}", x=x)``)."""
    bad = []
    for cell_id, source in cells:
        for node in ast.walk(_cell_tree(source)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in COURSE_NAMES - {"t", "tn"}:
                bad += [f"{cell_id}:{inner.lineno}" for arg in [*node.args, *(k.value for k in node.keywords)]
                        for inner in ast.walk(arg) if isinstance(inner, ast.Call)
                        and isinstance(inner.func, ast.Name) and inner.func.id in ("t", "tn")]
    return bad


def long_lines(cells: list[tuple[str, str]]) -> list[str]:
    """``cell id:line (length)`` of every code line longer than :data:`LINE_LIMIT` characters."""
    return [f"{cell_id}:{n} ({len(line)})" for cell_id, source in cells
            for n, line in enumerate(source.split("\n"), 1) if len(line) > LINE_LIMIT]


def _code(path: Path) -> list[tuple[str, str]]:
    return [(c.id, c.source) for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_no_cell_rebinds_an_imported_name(path: Path):
    assert rebound_imports(_code(path)) == []


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_check_cells_state_their_claims_as_literals(path: Path):
    assert translated_claims(_code(path)) == []


@pytest.mark.parametrize("path", PATHS, ids=[p.name for p in PATHS])
def test_no_code_line_is_longer_than_100_characters(path: Path):
    assert long_lines(_code(path)) == []


def test_the_lint_finds_what_it_looks_for():
    """Chapter 08's GPU bug (``t = {…}`` in a branch), a re-imported name from elsewhere, a loop
    variable named like an import, a translated claim, a long line — and nothing in code that only
    uses the names, binds them locally in a function, or imports the same object again."""
    cells = [("a", "%matplotlib inline\nfrom gastudy.course import check, t\nimport torch\nfrom x import y"),
             ("b", "if gpu:\n    t = {name: 1 for name in names}\n"),
             ("c", "for y in range(3):\n    check(y < 3, t('small {y}', y=y))\n"),
             ("d", "def f(check):\n    t = 1\n    return [torch for torch in ()]\nfrom x import y\nfrom z import y"),
             ("e", "check_close(a, b, 'claim {x}', x=1)  # " + "x" * 100)]
    assert rebound_imports(cells) == ["b:2 t", "c:1 y", "d y (imported again from z)"]
    assert translated_claims(cells) == ["c:2"]
    assert long_lines(cells) == ["e:1 (139)"]

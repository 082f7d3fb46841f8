"""The English chapters as the tests read and run them (not a test module): a chapter's notebook,
one cell's code, and cells executed in one namespace as the kernel would run them."""

from __future__ import annotations

from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ROLES = ("predict", "derive", "plain", "lab", "library")


def notebook(chapter: str) -> nbformat.NotebookNode:
    """The English notebook of chapter ``"NN"``."""
    return nbformat.read(next(NOTEBOOKS.glob(f"{chapter}_*.ipynb")), as_version=4)


def cell_source(chapter: str, cell_id: str) -> str:
    """The source of one cell of an English chapter, IPython magics left out."""
    source = next(c.source for c in notebook(chapter).cells if c.get("id") == cell_id)
    return "\n".join(line for line in source.splitlines() if not line.startswith("%"))


def run_cells(chapter: str, *cell_ids: str, namespace: dict | None = None,
              replace: tuple[str, str] | None = None) -> dict:
    """Execute the chapter's cells ``cell_ids`` in order in one namespace; ``replace`` changes one
    string in the last cell first (the measurement a check is shown). Returns the namespace."""
    namespace = {} if namespace is None else namespace
    for i, cell_id in enumerate(cell_ids):
        code = cell_source(chapter, cell_id)
        if replace and i == len(cell_ids) - 1:
            assert replace[0] in code, f"{cell_id} no longer contains {replace[0]!r}"
            code = code.replace(*replace)
        exec(compile(code, f"<{chapter} {cell_id}>", "exec"), namespace)  # noqa: S102 - the course's own cells
    return namespace


def tags(cell: nbformat.NotebookNode) -> list[str]:
    """The teaching roles a cell is tagged with (:data:`ROLES`)."""
    return [r for r in cell.get("metadata", {}).get("tags", []) if r in ROLES]

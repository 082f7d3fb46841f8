"""Every chapter teaches in one order: predict → derive → plain PyTorch → lab → library.

The cells that carry each step are tagged in their metadata (``"tags": ["predict"]`` …), so the
order is read from the notebook, not assumed:

- ``predict``: a code cell that asks for a prediction (``Prediction(``) before anything is shown;
- ``derive``: a markdown cell that derives the result in a few lines (an equation or a chain of
  "=" / "≤", not a statement of it);
- ``plain``: a code cell that computes it in plain PyTorch (no ``gastudy`` engine, lab or checker
  call in it — the course's data and model builders are allowed);
- ``lab``: a code cell that shows a lab (``…Lab(``), the measurement the learner moves;
- ``library``: a code cell that does it with the library (a ``gastudy`` call the learner would make
  in their own code: ``Accumulator``, ``check_loop``, ``verify_one_update``, ``enable_checkpointing``…).

In every chapter each step appears, and the first of each comes after the first of the one before.
A section may go round the cycle again: every prediction is followed, before the next one, by a
derivation and a measurement (plain PyTorch, a lab or the library), and revealed after one.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from tests.chapters import notebook, tags

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ROLES = ("predict", "derive", "plain", "lab", "library")
CHAPTERS = sorted(p.name for p in NOTEBOOKS.glob("[01][0-9]_*.ipynb"))
_LIBRARY = re.compile(r"\b(gastudy\.\w+|Accumulator|check_loop|check_trainer|verify_one_update|enable_checkpointing|"
                      r"make_groups|fit_to_budget|verify_fit|plan_for_budget|phase_timeline|saved_bytes|MemoryProbe|"
                      r"time_update|train|plan_from_target|BatchPlan|count_supervised|summed_loss|DDPReplicas|"
                      r"run_local|FSDPReplicas)\s*\(")
_ENGINE_IN_PLAIN = re.compile(r"\b(Accumulator|check_loop|verify_one_update|enable_checkpointing|fit_to_budget|"
                              r"\w+Lab)\s*\(")


def roles(path: Path) -> list[tuple[int, str, nbformat.NotebookNode]]:
    nb = nbformat.read(path, as_version=4)
    return [(i, role, cell) for i, cell in enumerate(nb.cells)
            for role in cell.get("metadata", {}).get("tags", []) if role in ROLES]


@pytest.mark.parametrize("name", CHAPTERS)
def test_each_chapter_goes_predict_derive_plain_lab_library(name):
    tagged = roles(NOTEBOOKS / name)
    first = {}
    for i, role, _ in tagged:
        first.setdefault(role, i)
    missing = [r for r in ROLES if r not in first]
    assert not missing, f"{name}: no cell tagged {missing}"
    order = [first[r] for r in ROLES]
    assert order == sorted(order), f"{name}: first cells of {ROLES} at {order}: not in that order"


@pytest.mark.parametrize("name", CHAPTERS)
def test_each_tagged_cell_is_what_its_tag_says(name):
    for i, role, cell in roles(NOTEBOOKS / name):
        src = cell.source
        where = f"{name} cell {i} ({role})"
        if role == "derive":
            assert cell.cell_type == "markdown", where
            assert re.search(r"[=≤≥≈]", src), f"{where}: a derivation shows its steps (=, ≤, ≈)"
            continue
        assert cell.cell_type == "code", where
        if role == "predict":
            assert "Prediction(" in src, where
        elif role == "plain":
            assert not _ENGINE_IN_PLAIN.search(src), f"{where}: plain PyTorch calls the library: " \
                                                     f"{_ENGINE_IN_PLAIN.search(src).group(0)}"
        elif role == "lab":
            assert re.search(r"\b[A-Z]\w*Lab\(", src), where
        elif role == "library":
            assert _LIBRARY.search(src), f"{where}: no library call a learner would make"


def _cycles(chapter: str) -> list[list[str]]:
    """The tagged roles of a chapter cut at each prediction (a run of one role listed once)."""
    roles = [role for cell in notebook(chapter).cells for role in tags(cell)]
    runs = [role for i, role in enumerate(roles) if i == 0 or role != roles[i - 1]]
    cycles: list[list[str]] = []
    for role in runs:
        if role == "predict" or not cycles:
            cycles.append([])
        cycles[-1].append(role)
    return cycles


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_prediction_is_derived_and_measured_before_the_next(name):
    for cycle in _cycles(name[:2]):
        assert cycle[0] == "predict" and "derive" in cycle and set(cycle) & {"plain", "lab", "library"}, \
            f"{name}: a prediction without its derivation or measurement: {cycle}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_prediction_is_revealed_after_its_measurement(name):
    """Each ``name = Prediction(…)`` cell has a later ``name.reveal(…)``, and a plain, lab or
    library cell — or a lab shown — between the two (the measurement the reveal puts beside the guess)."""
    cells = notebook(name[:2]).cells
    for i, cell in enumerate(cells):
        for asked in re.finditer(r"^(\w+) = Prediction\(", cell.source, re.M):
            later = [j for j in range(i + 1, len(cells)) if f"{asked[1]}.reveal(" in cells[j].source]
            assert later, f"{name}: {asked[1]} is never revealed"
            between = cells[i + 1:later[0]]
            measured = {role for c in between for role in tags(c)} & {"plain", "lab", "library"} or any(
                c.cell_type == "code" and re.search(r"\b[A-Z]\w*Lab\(", c.source) for c in between)
            assert measured, f"{name}: nothing measured before {asked[1]}.reveal"

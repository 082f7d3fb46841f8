"""Chapter 00: how the course works — environment check, section map, glossary.

The glossary uses the course's vocabulary, and every term names the library object that
implements it; :class:`GlossaryLab` imports that object, so the claim "the words of the
course are the words of the code" is checked, not asserted. Course: all sections (map).
"""

from __future__ import annotations

import importlib
import os
import platform
from dataclasses import dataclass
from typing import Any

import torch

from gastudy.course.sections import NOTEBOOKS, SECTIONS
from gastudy.course.widgets import Lab, show_table

# term → (definition in the course's words, the library object that implements it)
GLOSSARY: dict[str, tuple[str, str]] = {
    "microbatch": (
        "The samples one replica pushes through one forward pass (m of them). Memory is "
        "spent per microbatch.",
        "gastudy.core.data.MicrobatchStream",
    ),
    "backward pass": (
        "Computes one microbatch's contribution to the gradients and ADDS it to the "
        "gradient tensors; it never changes the parameters.",
        "gastudy.core.precision.Precision.backward",
    ),
    "group": (
        "The A microbatches whose contributions make one update. Its boundaries, sample ids and "
        "denominator are fixed before its first backward.",
        "gastudy.core.groups.Group",
    ),
    "update": (
        "One optimizer step: the parameters change once per group, then the gradients are zeroed.",
        "gastudy.core.engine.Accumulator.update",
    ),
    "accumulation steps (A)": (
        "Microbatches per group (the framework knob 'gradient accumulation steps').",
        "gastudy.core.plan.BatchPlan.accumulation_steps",
    ),
    "replica": (
        "One data-parallel copy of the model processing its own share of the samples (D of "
        "them). Devices splitting ONE model (tensor/pipeline parallel) are not replicas.",
        "gastudy.core.replicas.Replicas",
    ),
    "effective batch": (
        "Samples per update over all replicas: m × A × D. A count, not a memory or speed ranking.",
        "gastudy.core.plan.BatchPlan.effective_batch",
    ),
    "supervised items": (
        "Positions that have a target and enter the loss: not padding, not -100, "
        "and for a causal LM not the first position of a sequence.",
        "gastudy.core.counting.count_supervised",
    ),
    "denominator": (
        "The supervised items of the whole group (all microbatches, all replicas); the "
        "summed loss is divided by it exactly once.",
        "gastudy.core.replicas.SingleReplica.group_denominator",
    ),
    "normalization": (
        "What the summed loss is divided by: tokens (correct), steps (÷ A) or mean "
        "(mean of microbatch means).",
        "gastudy.core.loss.NORMALIZATIONS",
    ),
    "attempted update": (
        "An optimizer step that was tried; a gradient scaler may skip it.",
        "gastudy.core.engine.Counters.updates_attempted",
    ),
    "applied update": (
        "An attempted step that really changed the parameters. The scheduler follows these.",
        "gastudy.core.engine.Counters.updates_applied",
    ),
    "partial group": (
        "A last group with fewer than A microbatches: kept with its true denominator or "
        "dropped, and its samples recorded.",
        "gastudy.core.groups.PartialGroupRecord",
    ),
}


def resolve(dotted: str) -> Any:
    """Import and return the object named by a dotted path (``module.attr.attr``).

    A dataclass field without a default resolves to its ``dataclasses.Field``. Raises
    ``ImportError``/``AttributeError`` naming the missing part. Course: 00_start_here (glossary).
    """
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            fields = getattr(obj, "__dataclass_fields__", {})
            obj = fields[attr] if attr in fields and not hasattr(obj, attr) else getattr(obj, attr)
        return obj
    raise ImportError(f"no importable module in {dotted!r}")


def environment() -> dict[str, Any]:
    """What this kernel runs on: versions, threads, CPU/GPU (the course's environment check).
    Course: 00_start_here (the map of all sections)."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cpu cores (os)": os.cpu_count(),
        "torch threads": torch.get_num_threads(),
        "cuda available": torch.cuda.is_available(),
        "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU only",
    }
    for name in ("ipywidgets", "matplotlib", "numpy"):
        try:
            info[name] = importlib.import_module(name).__version__
        except ImportError:
            info[name] = "not installed"
    return info


def gpu_note() -> str:
    """One sentence saying what the course shows differently with a GPU (or that it has one).
    Course: 00_start_here (the map of all sections)."""
    if torch.cuda.is_available():
        return (
            "A GPU is present: chapters 08 and 09 also measure device memory (torch.cuda peaks) "
            "and the time cost of offloading."
        )
    return (
        "No GPU: every number in the course is measured on the CPU. Memory is measured as bytes "
        "saved for backward (the same quantity a GPU allocator would hold); GPU-only effects "
        "(offload copies, device peaks) are explained and skipped."
    )


@dataclass
class SectionMap:
    """Rows of the section map shown by :class:`SectionMapLab`.
    Course: 00_start_here (the map of all sections)."""

    rows: list[dict[str, str]]
    missing_notebooks: list[str]


class SectionMapLab(Lab):
    """Which notebook teaches which section of the source documents (filter by document).

    ``result.rows``: section, title, notebook. ``result.missing_notebooks``: sections whose
    notebook is not in :data:`NOTEBOOKS` (must stay empty). Course: map of all sections.
    """

    title = "Section map: every section of the three source documents and its notebook"

    def __init__(self) -> None:
        import ipywidgets as w

        super().__init__(
            document=w.Dropdown(
                options=["all", "GA", "CK", "MB"], value="all", description="document"
            )
        )

    def compute(self, document: str) -> SectionMap:
        rows = [
            {"section": s, "title": title, "notebook": nb}
            for s, (title, nb) in SECTIONS.items()
            if document == "all" or s.startswith(document + "-")
        ]
        return SectionMap(rows, [s for s, (_, nb) in SECTIONS.items() if nb not in NOTEBOOKS])

    def render(self, result: SectionMap) -> None:
        show_table(result.rows, max_rows=None)  # the one section map of the course: shown in full


def show_glossary() -> str:
    """Show the glossary once, as a table of term and meaning (every row; long meanings wrap
    between words), and return its plain text. Course: 00_start_here (glossary)."""
    return show_table([{"term": t, "meaning": d} for t, (d, _) in GLOSSARY.items()], max_rows=None)


@dataclass
class GlossaryEntry:
    """One glossary term, its definition, its library object and whether that object imports.
    Course: 00_start_here (the map of all sections)."""

    term: str
    definition: str
    where: str
    found: bool
    kind: str


class GlossaryLab(Lab):
    """Look a term up; the lab imports the library object that implements it (``result.found``).
    Course: 00_start_here (the map of all sections)."""

    title = "Glossary: the course's words are the library's words"

    def __init__(self) -> None:
        import ipywidgets as w

        super().__init__(
            term=w.Dropdown(options=list(GLOSSARY), value="microbatch", description="term")
        )

    def compute(self, term: str) -> GlossaryEntry:
        definition, where = GLOSSARY[term]
        try:
            obj = resolve(where)
            found, kind = True, type(obj).__name__
        except (ImportError, AttributeError):
            found, kind = False, "missing"
        return GlossaryEntry(term, definition, where, found, kind)

    def render(self, result: GlossaryEntry) -> None:
        print(
            f"{result.term}: {result.definition}\n  in the code: {result.where} "
            f"({'found, ' + result.kind if result.found else 'NOT FOUND'})"
        )


def glossary_objects_found() -> dict[str, bool]:
    """For every glossary term, whether its library object imports (all must be True).
    Course: 00_start_here (the map of all sections)."""
    found = {}
    for term, (_, where) in GLOSSARY.items():
        try:
            resolve(where)
            found[term] = True
        except (ImportError, AttributeError):
            found[term] = False
    return found

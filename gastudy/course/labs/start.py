"""Chapter 00: how the course works — environment check, section map, glossary.

The glossary uses the course's vocabulary, and every term names the object that implements
it (in gastudy, or in PyTorch for terms such as all-reduce); :class:`GlossaryLab` imports that object, so the claim "the words of the
course are the words of the code" is checked, not asserted. Course: all sections (map).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import platform
from dataclasses import dataclass
from typing import Any

import torch

from gastudy.course.i18n import language, t, translated
from gastudy.course.i18n.terms import term as glossary_term
from gastudy.course.sections import NOTEBOOKS, SECTIONS
from gastudy.course.widgets import Lab, say, show_table


# term → (definition in the course's words, the object that implements it: gastudy's own, or the
# PyTorch object a term names). One table: chapter 00 shows it once; other chapters may add terms.
# The definitions go through t(): glossary() is called when a lab is built, in the current language.
def glossary() -> dict[str, tuple[str, str]]:
    """The course glossary: English term → (definition in the current course language, dotted path
    of the object that implements it). Course: 00_start_here (glossary)."""
    return {
        "microbatch": (
            t("The samples one replica pushes through one forward pass (m of them). Memory is "
              "spent per microbatch."),
            "gastudy.core.data.MicrobatchStream",
        ),
        "backward pass": (
            t("Computes one microbatch's contribution to the gradients and ADDS it to the "
              "gradient tensors; it never changes the parameters."),
            "gastudy.core.precision.Precision.backward",
        ),
        "group": (
            t("The A microbatches whose contributions make one update. Its boundaries, sample ids and "
              "denominator are fixed before its first backward."),
            "gastudy.core.groups.Group",
        ),
        "update": (
            t("One optimizer step: the parameters change once per group, then the gradients are zeroed."),
            "gastudy.core.engine.Accumulator.update",
        ),
        "accumulation steps (A)": (
            t("Microbatches per group (the framework knob 'gradient accumulation steps')."),
            "gastudy.core.plan.BatchPlan.accumulation_steps",
        ),
        "replica": (
            t("One data-parallel copy of the model processing its own share of the samples (D of "
              "them). Devices splitting ONE model (tensor/pipeline parallel) are not replicas."),
            "gastudy.core.replicas.Replicas",
        ),
        "effective batch": (
            t("Samples per update over all replicas: m × A × D. A count, not a memory or speed ranking."),
            "gastudy.core.plan.BatchPlan.effective_batch",
        ),
        "supervised items": (
            t("Positions that have a target and enter the loss: not padding, not -100, "
              "and for a causal LM not the first position of a sequence."),
            "gastudy.core.counting.count_supervised",
        ),
        "denominator": (
            t("The supervised items of the whole group (all microbatches, all replicas); the "
              "summed loss is divided by it exactly once."),
            "gastudy.core.replicas.SingleReplica.group_denominator",
        ),
        "normalization": (
            t("What the summed loss is divided by: tokens (correct), steps (÷ A) or mean "
              "(mean of microbatch means)."),
            "gastudy.course.mistakes.NORMALIZATIONS",
        ),
        "attempted update": (
            t("An optimizer step that was tried; a gradient scaler may skip it."),
            "gastudy.core.engine.Counters.updates_attempted",
        ),
        "applied update": (
            t("An attempted step that really changed the parameters. The scheduler follows these."),
            "gastudy.core.engine.Counters.updates_applied",
        ),
        "partial group": (
            t("A last group with fewer than A microbatches: kept with its true denominator or "
              "dropped, and its samples recorded."),
            "gastudy.core.groups.PartialGroupRecord",
        ),
        "nats": (
            t("The unit of every loss in the course: cross-entropy with the natural logarithm. Guessing "
              "uniformly among the 16 tokens of the course's vocabulary costs ln 16 ≈ 2.77 nats."),
            "gastudy.core.loss.summed_loss",
        ),
        "activation": (
            t("A tensor the forward pass computes and keeps for the backward pass. Activation memory "
              "grows with the microbatch m and the sequence length; it is what accumulation bounds."),
            "gastudy.memory.saved.saved_bytes",
        ),
        "activation checkpointing": (
            t("Keeping the activations of only some layers and recomputing the rest during backward: less "
              "memory, one extra forward of those layers. Also called gradient checkpointing."),
            "gastudy.core.checkpointing.enable_checkpointing",
        ),
        "offload": (
            t("Moving saved activations to host memory during forward and back for backward "
              "(torch.autograd.graph.save_on_cpu): device memory traded for copies."),
            "torch.autograd.graph.save_on_cpu",
        ),
        "autocast": (
            t("torch.autocast: runs selected operations (mainly matrix multiplications) in bf16 or fp16 "
              "while weights, gradients and optimizer stay float32. It wraps the forward, never the step."),
            "gastudy.core.precision.Precision.autocast",
        ),
        "gradient scaler": (
            t("torch.amp.GradScaler: multiplies the fp16 loss by a scale so small gradients do not underflow, "
              "divides it out before clipping and the step, skips a step with inf/NaN and lowers the scale."),
            "gastudy.core.precision.Precision",
        ),
        "all-reduce": (
            t("A collective operation: every process gives a tensor and every process gets back their sum "
              "(or mean). DDP all-reduces the gradients after the backward of the last microbatch."),
            "torch.distributed.all_reduce",
        ),
        "all-gather": (
            t("A collective operation: every process gives a tensor and every process gets all of them. "
              "Used to agree on group sizes, sample ids and the global denominator."),
            "torch.distributed.all_gather",
        ),
        "gloo / NCCL": (
            t("Communication back-ends of torch.distributed: gloo runs on CPUs (this course's 2-process "
              "demos), NCCL between NVIDIA GPUs."),
            "gastudy.parallel.process_group",
        ),
        "FSDP / ZeRO": (
            t("Sharded data parallelism: each replica stores only a shard of parameters, gradients and "
              "optimizer state and gathers the rest when needed (PyTorch FSDP, DeepSpeed ZeRO). Each "
              "replica still counts in D."),
            "torch.distributed.fsdp",
        ),
        "pinned memory": (
            t("Page-locked host memory: the GPU can copy to and from it asynchronously. Offloaded "
              "activations are kept there."),
            "torch.Tensor.pin_memory",
        ),
        "RSS": (
            t("Resident set size: the physical memory a process holds, as the operating system counts it. "
              "On the CPU it is the memory measure that includes everything."),
            "gastudy.memory.probes.MemoryProbe",
        ),
        "allocator": (
            t("The layer that hands memory to tensors and keeps freed blocks for reuse (PyTorch's caching "
              "allocator on a GPU), so memory allocated by tensors and memory reserved differ."),
            "torch.cuda.memory_allocated",
        ),
        "no_sync": (
            t("DDP's context manager that skips the gradient all-reduce; it must cover the forward and the "
              "backward of every microbatch but the last, or DDP communicates anyway (measured in 06)."),
            "gastudy.parallel.ddp.DDPReplicas.sync",
        ),
        "every_n_layers": (
            t("Partial checkpointing: only the first marked layer and every n-th after it are checkpointed "
              "(n = 2 → layers 1, 3, 5 …); the others keep their activations."),
            "gastudy.core.checkpointing.enable_checkpointing",
        ),
    }


GLOSSARY: dict[str, tuple[str, str]] = glossary()
"""The glossary as built at import (English unless ``GASTUDY_LANG`` chose another language); the
labs call :func:`glossary` so that they follow :func:`~gastudy.course.i18n.set_language`."""


# glossary entry → the term of the four-language glossary (gastudy.course.i18n.terms) it renders
_TERMS = {"group": "accumulation group", "update": "update (optimizer update)", "supervised items": "supervised item",
          "normalization": "loss normalization", "partial group": "short last group", "nats": "nats (loss unit)",
          "FSDP / ZeRO": "sharded data parallelism (FSDP)", "no_sync": "gradient synchronization (no_sync)"}


def term_label(term: str) -> str:
    """How glossary entry ``term`` is named in the current course language: the rendering of the
    four-language glossary with the English term beside it (``mikro yığın (microbatch)``), the
    English term alone in English or for names that are code (``RSS``, ``every_n_layers``). A
    rendering that already ends with an English word in parentheses gets the whole English term there.
    Course: 00_start_here (glossary)."""
    code = language()
    if code == "en":
        return term
    try:
        rendering = glossary_term(_TERMS.get(term, term)).rendering(code)
    except KeyError:
        rendering = {"attempted update": t("attempted update"), "applied update": t("applied update"),
                     "gloo / NCCL": term, "RSS": term, "every_n_layers": term}[term]
    if term.lower() in rendering.lower():
        return rendering
    head, _, tail = rendering.rpartition(" (")
    if head and tail.endswith(")") and tail[:-1].isascii():  # "… (checkpointing)": the English part, in full
        return f"{head} ({term})"
    return f"{rendering} ({term})"


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
    """What this kernel runs on: versions, threads, CPU/GPU, and the optional Hugging Face packages
    (the course's environment check).
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
    for name in ("transformers", "accelerate"):  # the optional hf extra: its version, without importing it
        try:
            info[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            info[name] = "not installed (optional: the Hugging Face cells are skipped)"
    return info


def gpu_note() -> str:
    """One sentence saying what the course shows differently with a GPU (or that it has one).
    Course: 00_start_here (the map of all sections)."""
    if torch.cuda.is_available():
        return t("A GPU is present: chapters 08 and 09 also measure device memory (torch.cuda peaks) "
                 "and the time cost of offloading.")
    return t("No GPU: every number in the course is measured on the CPU. Memory is measured as bytes "
             "saved for backward (the same quantity a GPU allocator would hold); GPU-only effects "
             "(offload copies, device peaks) are explained and skipped.")


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

    title = "Section map: every section of the source documents and its notebook"

    def __init__(self) -> None:
        import ipywidgets as w

        self.title = t("Section map: every section of the source documents and its notebook")
        super().__init__(
            document=w.Dropdown(
                options=[(t("all"), "all"), ("GA", "GA"), ("CK", "CK"), ("MB", "MB")], value="all",
                description=t("document"),
            )
        )

    def compute(self, document: str) -> SectionMap:
        rows = [
            {"section": s, "title": translated(title), "notebook": nb}
            for s, (title, nb) in SECTIONS.items()
            if document == "all" or s.startswith(document + "-")
        ]
        return SectionMap(rows, [s for s, (_, nb) in SECTIONS.items() if nb not in NOTEBOOKS])

    def render(self, result: SectionMap) -> None:
        show_table(result.rows, max_rows=None,  # the one section map of the course: shown in full
                   headers={"section": t("section"), "title": t("title"), "notebook": t("notebook")})


def show_glossary() -> str:
    """Show the glossary once, as a table of term and meaning (every row; long meanings wrap
    between words), and return its plain text. In another course language each term is shown in
    that language with the English term beside it, and the meanings are translated.
    Course: 00_start_here (glossary)."""
    return show_table([{"term": term_label(term), "meaning": d} for term, (d, _) in glossary().items()],
                      max_rows=None, headers={"term": t("term"), "meaning": t("meaning")})


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

        self.title = t("Glossary: the course's words are the library's words")
        self._glossary = glossary()
        super().__init__(
            term=w.Dropdown(options=[(term_label(k), k) for k in self._glossary], value="microbatch",
                            description=t("term"))
        )

    def compute(self, term: str) -> GlossaryEntry:
        definition, where = self._glossary[term]
        try:
            obj = resolve(where)
            found, kind = True, type(obj).__name__
        except (ImportError, AttributeError):
            found, kind = False, "missing"
        return GlossaryEntry(term, definition, where, found, kind)

    def render(self, result: GlossaryEntry) -> None:
        found = t("found, {kind}", kind=result.kind) if result.found else t("NOT FOUND")
        say(f"{term_label(result.term)}: {result.definition}\n  "
              + t("in the code: {where} ({found})", where=result.where, found=found))


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

"""gastudy: gradient accumulation and activation checkpointing, done right and measured.

The public API, by course section:

- MB-2, GA-3: :class:`BatchPlan`, :func:`plan_from_target`
- GA-4…GA-6, MB-3: :func:`count_supervised`, :func:`summed_loss`, :func:`weighted_mean`
- MB-4: :func:`make_groups`, :class:`Group`
- MB-1, MB-4…MB-6: :class:`Accumulator` (the engine), :class:`Counters`, :class:`Precision`
- MB-7: :mod:`gastudy.parallel.ddp` (DDP replicas, ``no_sync``, global denominator),
  :mod:`gastudy.parallel.fsdp` (sharded replicas on FSDP2, sync deferred or every microbatch),
  :mod:`gastudy.parallel.launch` (local multi-process runs), :mod:`gastudy.parallel.pool` (a warm pool)
- CK-1…CK-4: :func:`enable_checkpointing`, :func:`disable_checkpointing`, :func:`layer_selection`
- MB-9, GA-1, GA-2: :func:`saved_bytes`, :class:`MemoryProbe`, :func:`phase_timeline`,
  :func:`plan_for_budget`, :func:`time_update`, :func:`compare_layouts`
- MB-10: :func:`verify_one_update`, :class:`RunRecord`, :func:`train`; :func:`check_loop` (your own
  loop, :class:`LoopReport`); ``gastudy.hf.check_trainer`` (your Trainer; the optional ``hf`` extra,
  imported on first use of ``gastudy.hf``)
- MB-11: :mod:`gastudy.check.diagnostics` (five detectors), :mod:`gastudy.check.pitfalls` (wrong loops)

The package's folders are its layers (``core``, ``memory``, ``parallel``, ``check``, ``run``,
``course``, ``cli``): see ARCHITECTURE.md.
"""

from gastudy.check.loop import LoopReport, check_loop
from gastudy.check.verify import verify_one_update
from gastudy.core.checkpointing import (
    CheckpointLayer,
    checkpointed_layers,
    disable_checkpointing,
    enable_checkpointing,
    layer_selection,
)
from gastudy.core.counting import count_supervised, count_unshifted
from gastudy.core.data import (
    AdditionDataset,
    BlobDataset,
    MicrobatchStream,
    packed_collate,
    pad_collate,
)
from gastudy.core.engine import (
    Accumulator,
    Counters,
    EmptyGroupError,
    NonFiniteLossError,
    UpdateResult,
)
from gastudy.core.groups import Group, GroupStream, build_group, make_groups
from gastudy.core.loss import mean_of_means, summed_loss, weighted_mean
from gastudy.core.models import MLP, TinyGPT, build_model
from gastudy.core.plan import BatchPlan, PlanError, plan_from_target
from gastudy.core.precision import Precision, inject_overflow
from gastudy.core.record import RunRecord
from gastudy.memory.planner import plan_for_budget
from gastudy.memory.probes import MemoryProbe
from gastudy.memory.saved import formula_check, saved_bytes
from gastudy.memory.timeline import phase_timeline
from gastudy.memory.timing import compare_layouts, time_update
from gastudy.run.train import TrainConfig, train

__version__ = "0.1.0"

__all__ = [
    "Accumulator", "AdditionDataset", "BatchPlan", "BlobDataset", "CheckpointLayer", "Counters",
    "EmptyGroupError", "Group", "GroupStream", "LoopReport", "MLP", "MemoryProbe", "MicrobatchStream",
    "NonFiniteLossError", "PlanError", "Precision", "RunRecord", "TinyGPT", "TrainConfig",
    "UpdateResult", "build_group", "build_model", "check_loop", "checkpointed_layers", "compare_layouts",
    "count_supervised", "count_unshifted", "disable_checkpointing", "enable_checkpointing",
    "formula_check", "inject_overflow", "layer_selection", "make_groups", "mean_of_means",
    "packed_collate", "pad_collate", "phase_timeline", "plan_for_budget", "plan_from_target",
    "saved_bytes", "summed_loss", "time_update", "train", "verify_one_update", "weighted_mean",
]


def __getattr__(name: str):
    """``gastudy.hf`` on first use: the optional Hugging Face layer is not imported by ``import gastudy``."""
    if name == "hf":
        import importlib

        return importlib.import_module("gastudy.hf")
    raise AttributeError(f"module 'gastudy' has no attribute {name!r}")

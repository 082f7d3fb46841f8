"""gastudy: gradient accumulation and activation checkpointing, done right and measured.

What you call from your own training:

- the update: :class:`Accumulator` (one correct update per :class:`Group` of microbatches;
  :func:`make_groups` builds them from any iterable of batch dicts), :class:`Precision`,
  :func:`count_supervised` and :func:`summed_loss` (what the denominator counts and what it
  divides), :class:`NonFiniteLossError`, :class:`EmptyGroupError`;
- the plan: :class:`BatchPlan`, :func:`plan_from_target` (m × A × D);
- checkpointing: :class:`CheckpointLayer`, :func:`enable_checkpointing`,
  :func:`disable_checkpointing` (every n-th layer, with offload on a GPU);
- measuring: :func:`saved_bytes`, :class:`MemoryProbe`, :func:`phase_timeline`,
  :func:`plan_for_budget`, :func:`time_update`; :func:`fit_to_budget` (m, A, checkpointing,
  offload and precision chosen together for a budget; ``gastudy.check.verify.verify_fit``
  checks one update under the choice);
- checking: :func:`verify_one_update` (the engine's update), :func:`check_loop` (your own
  loop); ``gastudy.hf.check_trainer`` (your Trainer; the optional ``hf`` extra, imported on
  first use of ``gastudy.hf``);
- a run: :func:`train`, :class:`RunRecord`.

Everything else lives in its layer (``gastudy.core``, ``memory``, ``parallel``, ``check``,
``run``, ``hf``; see ARCHITECTURE.md); the course is ``gastudy.course``, on top.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

from gastudy.check.loop import check_loop
from gastudy.check.verify import verify_one_update
from gastudy.core.checkpointing import CheckpointLayer, disable_checkpointing, enable_checkpointing
from gastudy.core.counting import count_supervised
from gastudy.core.engine import Accumulator, EmptyGroupError, NonFiniteLossError
from gastudy.core.groups import Group, make_groups
from gastudy.core.loss import summed_loss
from gastudy.core.plan import BatchPlan, plan_from_target
from gastudy.core.precision import Precision
from gastudy.core.record import RunRecord
from gastudy.memory.fit import fit_to_budget
from gastudy.memory.planner import plan_for_budget
from gastudy.memory.probes import MemoryProbe
from gastudy.memory.saved import saved_bytes
from gastudy.memory.timeline import phase_timeline
from gastudy.memory.timing import time_update
from gastudy.run.train import train

__version__ = "0.1.0"

__all__ = [
    "Accumulator", "BatchPlan", "CheckpointLayer", "EmptyGroupError", "Group", "MemoryProbe",
    "NonFiniteLossError", "Precision", "RunRecord", "check_loop", "count_supervised",
    "disable_checkpointing", "enable_checkpointing", "fit_to_budget", "make_groups", "phase_timeline", "plan_for_budget",
    "plan_from_target", "saved_bytes", "summed_loss", "time_update", "train", "verify_one_update",
]

# Names this package exported before 0.2, where they live now; ``gastudy.NAME`` still works for
# one release, with a DeprecationWarning.
MOVED_NAMES = {
    "AdditionDataset": "gastudy.course.datasets", "BlobDataset": "gastudy.course.datasets",
    "MicrobatchStream": "gastudy.core.data", "packed_collate": "gastudy.core.data",
    "pad_collate": "gastudy.core.data", "MLP": "gastudy.course.models", "TinyGPT": "gastudy.course.models",
    "build_model": "gastudy.course.models", "Counters": "gastudy.core.engine", "UpdateResult": "gastudy.core.engine",
    "GroupStream": "gastudy.core.groups", "build_group": "gastudy.core.groups", "PlanError": "gastudy.core.plan",
    "checkpointed_layers": "gastudy.core.checkpointing", "layer_selection": "gastudy.core.checkpointing",
    "LoopReport": "gastudy.check.loop", "TrainConfig": "gastudy.run.train", "compare_layouts": "gastudy.memory.timing",
    "formula_check": "gastudy.memory.saved", "count_unshifted": "gastudy.course.mistakes",
    "inject_overflow": "gastudy.course.mistakes", "mean_of_means": "gastudy.course.mistakes",
    "weighted_mean": "gastudy.course.mistakes",
}
# Modules of the flat layout before the layers (gastudy.engine …), where they live now.
MOVED_MODULES = {
    "gastudy.engine": "gastudy.core.engine", "gastudy.launch": "gastudy.parallel.launch",
    "gastudy.checkpointing": "gastudy.core.checkpointing", "gastudy.counting": "gastudy.core.counting",
    "gastudy.data": "gastudy.core.data", "gastudy.groups": "gastudy.core.groups", "gastudy.loss": "gastudy.core.loss",
    "gastudy.models": "gastudy.course.models", "gastudy.plan": "gastudy.core.plan",
    "gastudy.precision": "gastudy.core.precision", "gastudy.record": "gastudy.core.record",
    "gastudy.replicas": "gastudy.core.replicas", "gastudy.distributed": "gastudy.parallel.ddp",
    "gastudy.diagnostics": "gastudy.check.diagnostics", "gastudy.planner": "gastudy.memory.planner",
    "gastudy.timing": "gastudy.memory.timing", "gastudy.resume": "gastudy.run.resume",
    "gastudy.core.models": "gastudy.course.models",
}


def _moved(old: str, new: str) -> None:
    warnings.warn(f"{old} moved to {new}; the old name goes in the next release", DeprecationWarning, stacklevel=3)


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import gastudy.engine`` (an old path) imports its new module, with a DeprecationWarning."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED_MODULES else None

    def create_module(self, spec):
        _moved(spec.name, MOVED_MODULES[spec.name])
        module = importlib.import_module(MOVED_MODULES[spec.name])
        self.spec = module.__spec__  # the import system sets the alias's spec on it: put it back below
        return module

    def exec_module(self, module):
        """The module is the new one, already executed: only its own spec is restored."""
        module.__spec__ = self.spec


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name: str):
    """``gastudy.hf`` on first use (the optional Hugging Face layer is not imported by ``import
    gastudy``), and the names that moved (:data:`MOVED_NAMES`)."""
    if name == "hf":
        return importlib.import_module("gastudy.hf")
    if name in MOVED_NAMES:
        _moved(f"gastudy.{name}", f"{MOVED_NAMES[name]}.{name}")
        return getattr(importlib.import_module(MOVED_NAMES[name]), name)
    raise AttributeError(f"module 'gastudy' has no attribute {name!r}")

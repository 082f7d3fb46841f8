"""gastudy: gradient accumulation and activation checkpointing, done right and measured.

The public API, by course section:

- MB-2, GA-3: :class:`BatchPlan`, :func:`plan_from_target`
- GA-5, MB-3: :func:`count_supervised`, :func:`summed_loss`, :func:`weighted_mean`
- MB-4: :func:`make_groups`, :class:`Group`
- MB-1, MB-4…MB-6: :class:`Accumulator` (the engine), :class:`Counters`, :class:`Precision`
"""

from gastudy.counting import count_supervised, count_unshifted
from gastudy.data import AdditionDataset, BlobDataset, MicrobatchStream, packed_collate, pad_collate
from gastudy.engine import Accumulator, Counters, EmptyGroupError, NonFiniteLossError, UpdateResult
from gastudy.groups import Group, GroupStream, build_group, make_groups
from gastudy.loss import mean_of_means, summed_loss, weighted_mean
from gastudy.models import MLP, TinyGPT, build_model
from gastudy.plan import BatchPlan, PlanError, plan_from_target
from gastudy.precision import Precision, inject_overflow

__version__ = "0.1.0"

__all__ = [
    "Accumulator", "AdditionDataset", "BatchPlan", "BlobDataset", "Counters", "EmptyGroupError",
    "Group", "GroupStream", "MLP", "MicrobatchStream", "NonFiniteLossError", "PlanError",
    "Precision", "TinyGPT", "UpdateResult", "build_group", "build_model", "count_supervised",
    "count_unshifted", "inject_overflow", "make_groups", "mean_of_means", "packed_collate",
    "pad_collate", "plan_from_target", "summed_loss", "weighted_mean",
]

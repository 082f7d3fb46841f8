"""Resume a sharded run: checkpoints of FSDP2 replicas with ``torch.distributed.checkpoint`` (MB-7, MB-10).

A replica of a sharded run holds only its shard of the model and of the optimizer state, so
no single file can hold the run. A sharded checkpoint is a folder (one committed unit of
:mod:`gastudy.run.commit`, which seals every file and reads DCP's metadata without unpickling
arbitrary objects):

- ``state/``: the model and optimizer state as ``torch.distributed.checkpoint`` (DCP) writes
  it — every rank writes its own shards, described by one metadata file
  (``get_state_dict`` / ``set_state_dict`` give the sharded state dicts);
- ``rank<r>.pt``: what is small and belongs to one replica — scheduler, gradient scaler,
  counters, RNG states, the data position of the next group and the run's configuration —
  written with ``torch.save`` and read with ``weights_only=True``, in the same layout as
  :mod:`gastudy.run.resume` (whose checks and restore order are reused).

Like every gastudy checkpoint it is taken only at a group boundary, where gradients are
zero; every rank must call :func:`save_sharded_checkpoint` and :func:`restore_sharded`
(they are collectives). On the CPU a resumed run reproduces the uninterrupted run's
parameters bit for bit.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from gastudy.core.engine import Accumulator
from gastudy.run.commit import read_metadata_safely, safe_planner, safe_reader
from gastudy.run.resume import CHECKPOINT_VERSION, CheckpointError, restore, run_state

SHARDED_CHECKPOINT = "checkpoint-sharded"


def is_sharded(replicas: Any) -> bool:
    """True for replicas whose model is sharded (:class:`~gastudy.parallel.fsdp.FSDPReplicas`)."""
    from gastudy.parallel.fsdp import FSDPReplicas

    return isinstance(replicas, FSDPReplicas)


def save_sharded_checkpoint(directory: str | Path, engine: Accumulator, position: dict[str, int],
                            config: dict[str, Any]) -> Path:
    """Write a sharded checkpoint of ``engine`` at a group boundary into ``directory`` (all ranks).

    ``position`` is the data position of the *next* group. Raises ``RuntimeError`` (on every
    rank, before anything is written) if gradients are not zero. Returns the folder.
    """
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict

    if any(p.grad is not None for p in engine.model.parameters()):
        raise RuntimeError("checkpoints are taken between groups, where gradients are zero (None); "
                           "these are not: finish the group first")
    directory = Path(directory)
    rank = dist.get_rank()
    model_state, optim_state = get_state_dict(engine.model, engine.optimizer)
    dcp.save({"model": model_state, "optimizer": optim_state}, checkpoint_id=str(directory / "state"))
    small = {"version": CHECKPOINT_VERSION, **run_state(engine, position, config), "replicas": dist.get_world_size(),
             "rank": rank}
    tmp = directory / f"rank{rank}.pt.tmp"
    torch.save(small, tmp)
    tmp.replace(directory / f"rank{rank}.pt")  # never a half-written file
    dist.barrier()  # the checkpoint exists once every rank has written its part
    return directory


def restore_sharded(engine: Accumulator, directory: str | Path, config: dict[str, Any]) -> dict[str, int]:
    """Load the sharded checkpoint in ``directory`` into ``engine`` (all ranks); return the data
    position to continue from.

    The configuration check, scheduler, scaler, counters and RNG states go through
    :func:`gastudy.run.resume.restore` (so a checkpoint of another run raises ``ValueError``
    and changes nothing); the model and optimizer shards are then read with
    ``torch.distributed.checkpoint`` and set with ``set_state_dict``. Raises
    ``FileNotFoundError`` naming the folder when this rank's part is missing, and
    ``ValueError`` when the checkpoint was written by a different number of replicas.
    """
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    directory = Path(directory)
    part = directory / f"rank{dist.get_rank()}.pt"
    if not part.exists():
        raise FileNotFoundError(f"no sharded checkpoint part at {part}; train with --shard --checkpoint-every "
                                "(or --out) to write one, and resume with the same --replicas")
    try:
        small = torch.load(part, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - one clear line for every unreadable part
        raise CheckpointError(f"{part} cannot be read ({type(err).__name__}): restore the folder from a copy") from None
    if not isinstance(small, dict) or small.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"{part} is not a gastudy checkpoint part of version {CHECKPOINT_VERSION}")
    if small.get("rank") != dist.get_rank():
        raise CheckpointError(f"{part} holds the part of rank {small.get('rank')!r}, not of rank {dist.get_rank()} "
                              "(files swapped?): restore the folder from a copy")
    if small.get("replicas") != dist.get_world_size():
        raise ValueError(f"the sharded checkpoint was written by {small['replicas']} replicas, this run has "
                         f"{dist.get_world_size()}: resume with --replicas {small['replicas']}")
    model_state, optim_state = get_state_dict(engine.model, engine.optimizer)
    # resume.restore checks the configuration first and raises before anything changes; the model
    # and optimizer it is given are their own current states (nothing to load there)
    position = restore(engine, {**small, "model": engine.model.state_dict(),
                                "optimizer": engine.optimizer.state_dict()}, config)
    state = {"model": model_state, "optimizer": optim_state}
    try:  # read before torch does, so that a refused metadata file is one clear error, not DCP's fallbacks
        with open(directory / "state" / ".metadata", "rb") as stream:
            read_metadata_safely(stream)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, TypeError, ValueError) as err:
        raise CheckpointError(f"the sharded checkpoint's metadata in {directory / 'state'} cannot be read safely "
                              f"({err}): restore the folder from a copy") from None
    try:  # the files were checked against the manifest; the metadata is still read without running code
        dcp.load(state, storage_reader=safe_reader(directory / "state"), planner=safe_planner())
    except CheckpointError:
        raise
    except Exception as err:  # noqa: BLE001 - a shard that does not fit this run
        raise CheckpointError(f"the sharded checkpoint in {directory} does not fit this run's model or optimizer "
                              f"({type(err).__name__}: {' '.join(str(err).split())[:200]})") from None
    set_state_dict(engine.model, engine.optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"])
    return position

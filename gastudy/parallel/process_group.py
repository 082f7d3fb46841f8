"""Joining, sizing and leaving a ``torch.distributed`` process group (course: MB-2, MB-7).

- :func:`init_from_env`: join the group that ``torchrun`` (or :mod:`gastudy.parallel.launch`)
  describes in the environment, with a timeout on every collective;
- :func:`env_world_size` / :func:`batch_plan`: D from the environment, and the batch plan m×A×D;
- :func:`shutdown`: barrier, then destroy (avoids gloo's abort at exit).
"""

from __future__ import annotations

import math
import os
from datetime import timedelta

import torch
import torch.distributed as dist

from gastudy.core.plan import BatchPlan

DEFAULT_TIMEOUT_S = 60.0



def default_timeout_s() -> float:
    """The process-group timeout in seconds: ``$GASTUDY_DIST_TIMEOUT`` or 60. Raises
    ``ValueError`` naming the variable when it is not a finite number of seconds > 0 (at most a
    week)."""
    text = os.environ.get("GASTUDY_DIST_TIMEOUT")
    if text is None:
        return float(DEFAULT_TIMEOUT_S)
    try:
        value = float(text.strip())
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 7 * 24 * 3600):
        raise ValueError(f"GASTUDY_DIST_TIMEOUT={text!r} must be a number of seconds > 0 (at most a week): set it "
                         "to e.g. 120, or unset it for the default 60")
    return value



def env_world_size() -> int:
    """D announced by the environment: the initialized group's size, else ``$WORLD_SIZE``, else 1.

    """
    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size()
    return int(os.environ.get("WORLD_SIZE", "1"))



def batch_plan(micro_batch: int, accumulation_steps: int, tensor_parallel: int = 1,
               pipeline_parallel: int = 1) -> BatchPlan:
    """The :class:`~gastudy.core.plan.BatchPlan` of this run: D is the data-parallel world size
    (:func:`env_world_size`), so effective batch = m × A × D."""
    return BatchPlan(micro_batch, accumulation_steps, env_world_size(), tensor_parallel, pipeline_parallel)



def init_from_env(backend: str | None = None, timeout_s: float | None = None) -> bool:
    """Join the process group described by ``torchrun``'s variables; return True if distributed.

    Does nothing (returns True) when a group is already initialized, and returns False when
    the environment announces no replicas (no ``RANK``/``WORLD_SIZE``). ``backend`` defaults
    to ``gloo`` (CPU); pass ``nccl`` for GPUs (the device is set from ``LOCAL_RANK``). The
    group gets a timeout (``timeout_s``, default :func:`default_timeout_s`) so a rank waiting
    for a collective that never comes raises instead of hanging.
    """
    if dist.is_initialized():
        return True
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        return False
    backend = backend or "gloo"
    if backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group(backend, timeout=timedelta(seconds=timeout_s or default_timeout_s()))
    return True



def exit_when_parent_dies(poll_s: float = 0.5) -> None:
    """Leave (``os._exit(1)``) as soon as this process's parent is gone: a worker that
    ``torchrun`` started keeps training as an orphan when its agent is killed (SIGKILL gives the
    agent no chance to stop it). A daemon thread polls the parent's pid. Multi-process
    checkpoints are committed as one unit (:mod:`gastudy.run.commit`), so leaving mid-save
    loses nothing committed."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="gastudy-parent-watch", daemon=True).start()


def shutdown() -> None:
    """Leave the process group cleanly: a barrier (every rank leaves together), then destroy.

    Without the barrier, a gloo rank that tears down while its peer is still finishing can
    abort at exit with "terminate called without an active exception". No-op when no group
    is initialized. Call it only on the success path: after an error, other ranks may never
    reach the barrier (exit the process instead).
    """
    if not (dist.is_available() and dist.is_initialized()):
        return
    try:
        if dist.get_backend() == "nccl":
            dist.barrier(device_ids=[torch.cuda.current_device()])
        else:
            dist.barrier()
    finally:
        dist.destroy_process_group()


"""Sharded data parallel with accumulation, measured (course: MB-7, the sharded section).

:func:`measure_sharded` answers the chapter's question — what does deferring FSDP2's gradient
sync buy, and what does it cost? — with real local processes (gloo): for A and a sync policy
it runs a few updates and returns the reduce-scatters and all-gathers per update, the peak
gradient bytes one replica held during a group, and the seconds per update, next to DDP's
all-reduces and gradient bytes for the same A. :func:`measure_sharded_worker` is one rank's
part (the benchmark ``benchmarks/bench_fsdp.py`` runs it too).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import torch
import torch.distributed as dist

from gastudy.parallel.ddp import DDPReplicas
from gastudy.parallel.fsdp import SYNC_POLICIES, FSDPReplicas, full_gradient_bytes

BACKENDS = ("ddp", *SYNC_POLICIES)  # DDP with no_sync, FSDP2 deferred, FSDP2 every


def measure_sharded_worker(settings: Sequence[tuple[str, int]], updates: int = 2, micro_batch: int = 2,
                           seed: int = 0, model_kwargs: dict[str, Any] | None = None,
                           checkpoint_every_n_layers: int | None = None, device: str = "cpu") -> list[dict[str, Any]]:
    """One rank: for each ``(backend, A)`` in ``settings`` run one warm-up and ``updates``
    measured updates of tiny-gpt and report what they cost (course: MB-7).

    ``backend`` is ``"ddp"`` (DDP with ``no_sync``), ``"deferred"`` or ``"every"`` (FSDP2
    sync policies). Each row: ``backend, accumulation_steps, reductions_per_update`` (DDP
    all-reduces or FSDP2 reduce-scatters), ``all_gathers_per_update`` (0 for DDP),
    ``reduction_bytes_per_update``, ``peak_gradient_bytes`` (the most gradient bytes this
    replica held during a group: DDP's ``param.grad``, FSDP2's :func:`~gastudy.parallel.fsdp.
    held_gradient_bytes`; communication buffers — DDP's buckets, FSDP2's reduce-scatter input —
    are not counted on either side), ``unsharded_gradient_bytes`` (the whole gradient in fp32),
    ``seconds_per_update`` (mean over the measured updates) and ``weights`` (Σ of every
    parameter after the last update: the same on every replica, and for every backend) and
    ``checkpointed_layers`` (how many marked blocks ran under activation checkpointing).
    ``checkpoint_every_n_layers`` turns activation checkpointing on before wrapping.
    ``device="cuda"`` puts each rank's model on its GPU (``torch.cuda.current_device()``, set
    by the launcher for nccl). Raises ``ValueError`` for an unknown backend.
    """
    from gastudy.core.checkpointing import checkpointed_layers, enable_checkpointing
    from gastudy.core.data import MicrobatchStream
    from gastudy.core.engine import Accumulator
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.models import build_model

    D, rank = dist.get_world_size(), dist.get_rank()
    rows = []
    for backend, A in settings:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
        net = build_model("tiny-gpt", seed=seed, **(model_kwargs or {}))
        if device == "cuda":
            net.to(torch.device("cuda", torch.cuda.current_device()))
        if checkpoint_every_n_layers is not None:
            enable_checkpointing(net, checkpoint_every_n_layers)
        replicas = DDPReplicas() if backend == "ddp" else FSDPReplicas(sync=backend)
        wrapped = replicas.wrap(net)
        optimizer = torch.optim.SGD(wrapped.parameters(), lr=1e-2)
        held: list[int] = []
        if backend == "ddp":  # DDP keeps every parameter's whole gradient: measured at the step
            optimizer.register_step_pre_hook(lambda *_, held=held, net=net: held.append(
                sum(p.grad.numel() * p.grad.element_size() for p in net.parameters() if p.grad is not None)))
        engine = Accumulator(wrapped, optimizer, accumulation_steps=A, replicas=replicas)
        data = AdditionDataset(micro_batch * A * D * (updates + 1), seed=seed)
        stream = MicrobatchStream(data, micro_batch, seed=seed, replicas=D, rank=rank)
        seconds = []
        for group in replicas.group_stream(stream, A):
            t0 = time.perf_counter()
            engine.update(group)
            seconds.append(time.perf_counter() - t0)
        comm = replicas.counter.per_update()[1:]  # the first update warms up
        if backend == "ddp":
            peak = max(held)
        else:
            peak = max(b for u, b in replicas.peak_gradient_bytes.items() if u > 1)
        weights = sum(float((p.full_tensor() if hasattr(p, "full_tensor") else p).detach().double().sum())
                      for p in wrapped.parameters())
        rows.append({"backend": backend, "accumulation_steps": A, "replicas": D, "updates": len(comm),
                     "reductions_per_update": sum(c["calls"] for c in comm) / len(comm),
                     "all_gathers_per_update": sum(c.get("all_gather", 0) for c in comm) / len(comm),
                     "reduction_bytes_per_update": sum(c["bytes"] for c in comm) / len(comm),
                     "peak_gradient_bytes": peak, "unsharded_gradient_bytes": full_gradient_bytes(net),
                     "seconds_per_update": sum(seconds[1:]) / len(seconds[1:]), "weights": weights,
                     "checkpointed_layers": len(checkpointed_layers(net))})
    return rows


def measure_sharded(accumulation_steps: int = 4, sync: str = "deferred", replicas: int = 2, updates: int = 2,
                    micro_batch: int = 2, seed: int = 0, timeout: float = 120.0) -> dict[str, Any]:
    """FSDP2 with sync policy ``sync`` next to DDP, at A = ``accumulation_steps`` (course: MB-7).

    Runs on the course's warm pool of ``replicas`` processes. Returns ``{"fsdp": row, "ddp":
    row}`` with the rows of :func:`measure_sharded_worker` (rank 0's view; the ranks agree on
    the counts) and ``"ratios"``: FSDP2 ÷ DDP for reductions per update, peak gradient bytes
    and seconds per update. Raises ``ValueError`` for an unknown sync policy (before any
    process runs).
    """
    from gastudy.course.demos.ddp import run_on_replicas
    from gastudy.parallel.fsdp import check_shard_settings

    check_shard_settings(sync, "fp32")
    rows = run_on_replicas(measure_sharded_worker, replicas, [("ddp", accumulation_steps), (sync, accumulation_steps)],
                           updates=updates, micro_batch=micro_batch, seed=seed, timeout=timeout)[0]
    ddp, fsdp = rows
    keys = ("reductions_per_update", "peak_gradient_bytes", "seconds_per_update")
    return {"ddp": ddp, "fsdp": fsdp, "ratios": {k: fsdp[k] / ddp[k] for k in keys}}

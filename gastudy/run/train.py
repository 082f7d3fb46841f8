"""A real, short training run on generated data, writing the run record (MB-10).

``train(TrainConfig(...))`` builds a course model, the generated data set, the optimizer and a
per-*update* learning-rate schedule, then runs :class:`~gastudy.core.engine.Accumulator` over the
groups of every epoch with a progress bar. It can stop early (``stop_after_updates``), write
checkpoints at group boundaries and resume from them bit-identically (:mod:`gastudy.run.resume`).
The same function runs under ``torchrun``: pass data-parallel ``replicas``.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from gastudy.core.data import AdditionDataset, BlobDataset, MicrobatchStream
from gastudy.core.engine import Accumulator, UpdateResult
from gastudy.core.groups import LAST_GROUP_POLICIES
from gastudy.core.loss import check_normalization
from gastudy.core.models import build_model, task_of
from gastudy.core.plan import BatchPlan
from gastudy.core.precision import PRECISIONS
from gastudy.core.record import RunRecord
from gastudy.core.replicas import Replicas, SingleReplica
from gastudy.memory.probes import device_probes
from gastudy.parallel.fsdp import engine_precision
from gastudy.run.resume import load_checkpoint, restore, save_checkpoint
from gastudy.run.sharded import (
    SHARDED_CHECKPOINT,
    is_sharded,
    restore_sharded,
    save_sharded_checkpoint,
)

# Settings that must match for a checkpoint to be resumed.
RESUME_KEYS = ("model", "micro_batch", "accumulation_steps", "replicas", "precision", "normalization",
               "last_group", "collate", "dataset_size", "seed", "epochs", "lr")


@dataclass
class TrainConfig:
    """Everything a training run needs; each field is a CLI flag of ``gastudy train``.

    ``stop_after_updates`` interrupts the run (the schedule still spans ``epochs``), which is
    how the course demonstrates resuming. ``checkpoint_every`` is in updates (0 = only at the
    end when ``out_dir`` is set).
    """

    model: str = "tiny-gpt"
    micro_batch: int = 4
    accumulation_steps: int = 4
    epochs: int = 1
    lr: float = 3e-3
    warmup_updates: int = 2
    precision: str = "fp32"
    normalization: str = "tokens"
    last_group: str = "keep"
    collate: str = "padded"
    dataset_size: int = 200
    seed: int = 0
    clip_grad_norm: float | None = 1.0
    stop_after_updates: int | None = None
    checkpoint_every: int = 0
    out_dir: str | None = None
    progress: bool = True
    device: str = "cpu"

    def validate(self) -> TrainConfig:
        """Raise ``ValueError`` naming the bad field before anything runs; return self."""
        BatchPlan(self.micro_batch, self.accumulation_steps)
        check_normalization(self.normalization)
        if self.precision not in PRECISIONS:
            raise ValueError(f"unknown precision {self.precision!r}; use one of {', '.join(PRECISIONS)}")
        if self.last_group not in LAST_GROUP_POLICIES:
            raise ValueError(f"unknown last_group {self.last_group!r}; use 'keep' or 'drop'")
        if self.epochs < 1 or self.dataset_size < 1:
            raise ValueError(f"epochs and dataset_size must be ≥ 1, got {self.epochs} and {self.dataset_size}")
        if self.device not in ("cpu", "cuda"):
            raise ValueError(f"device must be 'cpu' or 'cuda', got {self.device!r}")
        if self.device == "cuda" and not torch.cuda.is_available():
            raise ValueError("device 'cuda' was asked for but torch sees no CUDA device; use --device cpu")
        if not self.lr > 0:
            raise ValueError(f"lr must be > 0, got {self.lr}")
        return self


@dataclass
class TrainRun:
    """What :func:`train` returns: the record, every update's result and the trained model."""

    record: RunRecord
    updates: list[UpdateResult]
    model: nn.Module
    checkpoint: Path | None = None
    record_paths: tuple[Path, Path] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def make_dataset(config: TrainConfig):
    """The generated data set of a run: addition problems for tiny-gpt, blobs for the MLPs."""
    if task_of(config.model) == "causal":
        return AdditionDataset(config.dataset_size, seed=config.seed)
    return BlobDataset(config.dataset_size, seed=config.seed)


def updates_per_epoch(microbatches: int, accumulation_steps: int, last_group: str) -> int:
    """Optimizer updates in one epoch of ``microbatches``: ⌈n/A⌉ with ``keep``, ⌊n/A⌋ with ``drop``."""
    full, rest = divmod(microbatches, accumulation_steps)
    return full + int(bool(rest) and last_group == "keep")


def warmup_cosine(warmup: int, total: int):
    """LR multiplier per *applied update*: linear warm-up, then cosine decay to 10% (MB-6)."""

    def factor(update: int) -> float:
        if update < warmup:
            return (update + 1) / warmup
        progress = (update - warmup) / max(1, total - warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))

    return factor


def train(config: TrainConfig, resume: bool = False, replicas: Replicas | None = None) -> TrainRun:
    """Train ``config.model`` on generated data and return a :class:`TrainRun` (course: MB-10).

    With ``resume=True`` the run continues from ``<out_dir>/checkpoint.pt`` (written by an
    earlier run of the same configuration) at the exact data position it stopped. Raises
    ``ValueError`` for bad settings and when resuming a checkpoint of another configuration.
    """
    config.validate()
    replicas = replicas or SingleReplica()
    task = task_of(config.model)
    torch.manual_seed(config.seed)
    model = build_model(config.model, seed=config.seed)
    if config.device == "cuda":  # one GPU per replica: torchrun's LOCAL_RANK picks it
        model.to(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}")
    model.train()
    stream = MicrobatchStream(make_dataset(config), config.micro_batch,
                              collate=config.collate if task == "causal" else "padded",
                              seed=config.seed, replicas=replicas.size, rank=replicas.rank)
    per_epoch = updates_per_epoch(len(stream), config.accumulation_steps, config.last_group)
    total_updates = per_epoch * config.epochs
    wrapped = replicas.wrap(model)  # before the optimizer: sharding (FSDP2) replaces the parameters
    optimizer = torch.optim.AdamW(wrapped.parameters(), lr=config.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine(config.warmup_updates, total_updates))
    engine = Accumulator(wrapped, optimizer, accumulation_steps=config.accumulation_steps, task=task,
                         normalization=config.normalization,
                         precision=engine_precision(replicas, config.precision, config.device), scheduler=scheduler,
                         clip_grad_norm=config.clip_grad_norm, replicas=replicas)
    run_key = {**{k: v for k, v in asdict(config).items() if k in RESUME_KEYS}, "replicas": replicas.size}
    out = Path(config.out_dir) if config.out_dir else None
    sharded = is_sharded(replicas)  # a sharded run's checkpoint is a folder (gastudy.run.sharded)
    save = save_sharded_checkpoint if sharded else save_checkpoint
    ckpt_path = out / (SHARDED_CHECKPOINT if sharded else f"checkpoint-rank{replicas.rank}.pt" if replicas.size > 1
                       else "checkpoint.pt") if out else None
    position = {"epoch": 0, "microbatch": 0, "group": 0}
    if resume:
        if ckpt_path is None:
            raise ValueError("resume needs out_dir: the folder where the interrupted run wrote checkpoint.pt")
        position = (restore_sharded(engine, ckpt_path, run_key) if sharded
                    else restore(engine, load_checkpoint(ckpt_path), run_key))

    results: list[UpdateResult] = []
    partials: list[dict[str, Any]] = []
    bar = None
    if config.progress and replicas.rank == 0:
        from tqdm.auto import tqdm

        bar = tqdm(total=total_updates, initial=engine.counters.updates_attempted, desc="updates", unit="update")
    probes = device_probes()
    for probe in probes.values():
        probe.reset_peak()  # the record's peaks belong to this run's updates
    started = time.perf_counter()
    stopped = False
    for epoch in range(position["epoch"], config.epochs):
        start_mb = position["microbatch"] if epoch == position["epoch"] else 0
        groups = replicas.group_stream(stream.microbatches(epoch, start=start_mb), config.accumulation_steps,
                                       task, config.last_group, start_index=start_mb // config.accumulation_steps)
        for group in groups:
            results.append(engine.update(group))
            start_mb += group.size
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{results[-1].loss:.3f}", lr=f"{results[-1].lr:.2e}")
            next_position = {"epoch": epoch, "microbatch": start_mb, "group": group.index + 1}
            done = engine.counters.updates_attempted
            if ckpt_path and config.checkpoint_every and done % config.checkpoint_every == 0:
                save(ckpt_path, engine, next_position, run_key)
            if config.stop_after_updates is not None and done >= config.stop_after_updates:
                stopped = True
                break
        if groups.partial is not None:
            partials.append({"epoch": epoch, **groups.partial.to_dict()})
        if stopped:
            break
        position = {"epoch": epoch + 1, "microbatch": 0, "group": 0}
    if bar is not None:
        bar.close()
    if ckpt_path:
        final_position = next_position if stopped else {"epoch": config.epochs, "microbatch": 0, "group": 0}
        if results:
            save(ckpt_path, engine, final_position, run_key)

    c = engine.counters
    per_replica = replicas.gather({"rank": replicas.rank, "samples": c.samples, "supervised_tokens": c.supervised_tokens,
                                   "microbatches": c.microbatches,
                                   "last_loss": results[-1].loss if results else None})
    last_losses = [r.pop("last_loss") for r in per_replica]
    # every replica reports the same group loss (UpdateResult.loss), so their mean is that loss
    final_loss = sum(last_losses) / replicas.size if results and None not in last_losses else None
    record = RunRecord(
        model=config.model, task=task, micro_batch=config.micro_batch, accumulation_steps=config.accumulation_steps,
        replicas=replicas.size, effective_batch=config.micro_batch * config.accumulation_steps * replicas.size,
        precision=config.precision, normalization=config.normalization, last_group_policy=config.last_group,
        updates_attempted=c.updates_attempted, updates_applied=c.updates_applied, scheduler_steps=c.scheduler_steps,
        microbatches=sum(r["microbatches"] for r in per_replica), samples=sum(r["samples"] for r in per_replica),
        supervised_tokens=sum(r["supervised_tokens"] for r in per_replica),
        last_group={"policy": config.last_group, "accumulation_steps": config.accumulation_steps,
                    "groups": partials} if partials else None,
        per_replica=per_replica, peak_memory_bytes={name: int(p.peak_bytes()) for name, p in probes.items()},
        final_loss=final_loss,
        seconds=round(time.perf_counter() - started, 3), seed=config.seed, device=str(engine.device),
        notes=[f"interrupted after {c.updates_attempted} updates (resume with --resume)"] if stopped else [],
    )
    paths = record.save(out) if out and replicas.rank == 0 else None
    return TrainRun(record, results, model, ckpt_path, paths)

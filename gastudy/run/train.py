"""A real, short training run of a named model on its data, writing the run record (MB-10).

``train(TrainConfig(...))`` builds the model and data set of a :class:`~gastudy.core.workloads.Workload`
(registered by name, or given as the object: the course registers its small models and their
generated data; register yours the same way), the optimizer and a per-*update* learning-rate schedule, then runs :class:`~gastudy.core.engine.Accumulator` over the
groups of every epoch with a progress bar. It can stop early (``stop_after_updates``), write
checkpoints at group boundaries and resume from them bit-identically (:mod:`gastudy.run.resume`).
The same function runs under ``torchrun``: pass data-parallel ``replicas``.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator, Counters, NonFiniteLossError, UpdateResult
from gastudy.core.groups import LAST_GROUP_POLICIES
from gastudy.core.loss import Normalization, as_normalization, normalization_name
from gastudy.core.plan import BatchPlan
from gastudy.core.precision import PRECISIONS
from gastudy.core.record import RunRecord
from gastudy.core.replicas import Replicas, SingleReplica
from gastudy.core.workloads import Workload, workload
from gastudy.memory.probes import device_probes
from gastudy.parallel.fsdp import engine_precision
from gastudy.parallel.launch import stop_requested
from gastudy.run.commit import ROOT, committed, save_replicated
from gastudy.run.resume import CheckpointError, load_checkpoint, restore, save_checkpoint
from gastudy.run.sharded import (
    SHARDED_CHECKPOINT,
    is_sharded,
    restore_sharded,
    save_sharded_checkpoint,
)

# Settings that must match for a checkpoint to be resumed.
RESUME_KEYS = ("model", "micro_batch", "accumulation_steps", "replicas", "precision", "normalization",
               "last_group", "collate", "dataset_size", "seed", "epochs", "lr", "clip_grad_norm", "warmup_updates")
RUN_FILES = ("run_record.json", "run_record.md")
LOCK_FILE = ".gastudy-run.lock"


def run_files(out: Path) -> list[Path]:
    """What a run leaves in its folder: the record and every checkpoint (file or sharded folder)."""
    return sorted({*[out / n for n in RUN_FILES if (out / n).exists()], *out.glob("checkpoint*")})


def check_out_dir(out_dir: str | Path, resume: bool = False, overwrite: bool = False) -> Path:
    """Validate ``--out`` before anything runs; create the folder; return it.

    Raises ``ValueError`` saying what to change when the path is empty, is a file or lies under
    one, cannot be created or written, or already holds a run (its record or a checkpoint)
    and neither ``resume`` nor ``overwrite`` was asked for.
    """
    if not str(out_dir).strip():
        raise ValueError("--out is empty: give the folder for the run record and checkpoints")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder: choose a folder for the run")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".gastudy-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ValueError(f"--out {out} cannot be used ({e.strerror or e}): choose a folder you can write to") from None
    existing = run_files(out)
    if existing and not resume and not overwrite:
        names = ", ".join(p.name for p in existing[:4])
        raise ValueError(f"--out {out} already holds a run ({names}): add --resume to continue it, --overwrite to "
                         "replace it, or choose another folder")
    return out


@contextlib.contextmanager
def run_lock(out: Path):
    """Hold ``<out>/.gastudy-run.lock`` while a run writes there.

    Raises ``ValueError`` when another live process holds it (two runs on one folder would
    overwrite each other's checkpoints); a lock left by a dead process is taken over.
    """
    lock = out / LOCK_FILE
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            try:
                holder = int(lock.read_text().strip() or 0)
            except (OSError, ValueError):
                holder = 0
            if holder and holder != os.getpid() and _pid_alive(holder):
                raise ValueError(f"--out {out} is in use by another run (process {holder}): wait for it to end or "
                                 "choose another folder") from None
            lock.unlink(missing_ok=True)  # stale: its process is gone
            continue
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        break
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def stop_on_sigint(flag: threading.Event):
    """While inside, the first Ctrl-C (SIGINT) sets ``flag`` (the loop stops at the next group
    boundary); a second one interrupts at once. Only in the main thread; a no-op elsewhere."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        flag.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C stops at once

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass
class TrainConfig:
    """Everything a training run needs; each field is a CLI flag of ``gastudy train``.

    ``model`` names a registered :class:`~gastudy.core.workloads.Workload` (``"tiny-gpt"``, the
    default, is the course's) or is one; ``dataset_size`` samples of its data set are trained on.

    ``stop_after_updates`` interrupts the run (the schedule still spans ``epochs``), which is
    how the course demonstrates resuming. ``checkpoint_every`` is in updates (0 = only at the
    end when ``out_dir`` is set).
    """

    model: str | Workload = "tiny-gpt"
    micro_batch: int = 4
    accumulation_steps: int = 4
    epochs: int = 1
    lr: float = 3e-3
    warmup_updates: int = 2
    precision: str = "fp32"
    normalization: str | Normalization = "tokens"
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
    overwrite: bool = False

    def validate(self) -> TrainConfig:
        """Raise ``ValueError`` naming the bad field before anything runs; return self."""
        workload(self.model)
        BatchPlan(self.micro_batch, self.accumulation_steps)
        as_normalization(self.normalization)
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


class TrainingDiverged(FloatingPointError):
    """The loss or a gradient became inf/NaN: the run stopped at that update, which was rolled
    back and not applied. ``run`` is the :class:`TrainRun` so far (its record, saved with the
    others when the run has an ``out_dir``, says where it stopped)."""

    def __init__(self, message: str, run: TrainRun):
        super().__init__(message)
        self.run = run


def resume_key(config: TrainConfig, replicas: int = 1, sync: str | None = None) -> dict[str, Any]:
    """The settings a checkpoint is tied to (:data:`RESUME_KEYS`, D, and a sharded run's sync
    policy): a resume with any of them different is another run."""
    return {**{k: getattr(config, k) for k in RESUME_KEYS if k != "replicas"}, "model": workload(config.model).name,
            "normalization": normalization_name(config.normalization), "replicas": replicas,
            **({"sync": sync} if sync is not None else {})}


def make_dataset(config: TrainConfig):
    """The data set of a run: ``dataset_size`` samples of its workload's data, from its seed."""
    return workload(config.model).dataset(config.dataset_size, seed=config.seed)


def updates_per_epoch(microbatches: int, accumulation_steps: int, last_group: str) -> int:
    """Optimizer updates in one epoch of ``microbatches``: ⌈n/A⌉ with ``keep``, ⌊n/A⌋ with ``drop``."""
    full, rest = divmod(microbatches, accumulation_steps)
    return full + int(bool(rest) and last_group == "keep")


def warmup_cosine(warmup: int, total: int):
    """LR multiplier per *applied update*: linear warm-up, then cosine decay to 10%."""

    def factor(update: int) -> float:
        if update < warmup:
            return (update + 1) / warmup
        progress = (update - warmup) / max(1, total - warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))

    return factor


def train(config: TrainConfig, resume: bool = False, replicas: Replicas | None = None) -> TrainRun:
    """Train ``config.model`` on its data and return a :class:`TrainRun`.

    With ``resume=True`` the run continues from ``<out_dir>/checkpoint.pt`` (written by an
    earlier run of the same configuration) at the exact data position it stopped. ``out_dir``
    is checked before anything runs (:func:`check_out_dir`: a folder holding a run is reused
    only with ``resume`` or ``config.overwrite``) and locked while the run writes
    (:func:`run_lock`, rank 0). A first Ctrl-C stops at the next group boundary: the checkpoint
    and a partial record are written and ``extra["interrupted"]`` is ``"SIGINT"``. With several
    replicas the Ctrl-C reaches the launcher, which asks every rank
    (:func:`~gastudy.parallel.launch.stop_requested`); the ranks agree on one boundary with one
    small all-reduce per update and each writes its checkpoint there. Raises
    ``ValueError`` for bad settings, a bad or busy ``out_dir``, a finished run asked to resume,
    and a checkpoint of another configuration
    (:class:`~gastudy.run.resume.CheckpointError` for an unreadable or altered one).
    """
    config.validate()
    replicas = replicas or SingleReplica()
    if config.out_dir is not None:
        out = check_out_dir(config.out_dir, resume, config.overwrite)
        if replicas.rank == 0:
            with run_lock(out):
                if config.overwrite and not resume:
                    for old in run_files(out):
                        _remove(old)
                return _train(config, resume, replicas)
    return _train(config, resume, replicas)


def _remove(path: Path) -> None:
    if path.is_dir():
        import shutil

        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


@dataclass
class _Session:
    """What the steps of one run share: built by :func:`_build`, moved on by :func:`_resume` and
    :func:`_loop`, read by :func:`_final_checkpoint` and :func:`_record`."""

    config: TrainConfig
    replicas: Replicas
    task: str
    model: nn.Module
    stream: MicrobatchStream
    engine: Accumulator
    total_updates: int
    run_key: dict[str, Any]
    out: Path | None
    kind: str | None  # None: one process, one sealed file; "ddp"/"sharded": one committed folder
    ckpt_path: Path | None
    position: dict[str, int] = field(default_factory=lambda: {"epoch": 0, "microbatch": 0, "group": 0})
    next_position: dict[str, int] = field(default_factory=dict)
    partials: list[dict[str, Any]] = field(default_factory=list)
    results: list[UpdateResult] = field(default_factory=list)
    stopped: bool = False
    sigint_stop: bool = False
    diverged: str | None = None


def _train(config: TrainConfig, resume: bool, replicas: Replicas) -> TrainRun:
    """The body of :func:`train` (``out_dir`` checked and locked): build, resume, loop, record.

    The progress bar and the SIGINT handler are contexts of one ``ExitStack``: an update that
    raises leaves the terminal and the caller's Ctrl-C as they were."""
    run = _build(config, replicas or SingleReplica())
    if resume:
        _resume(run)
    probes = device_probes()
    for probe in probes.values():
        probe.reset_peak()  # the record's peaks belong to this run's updates
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        bar = _progress(run, stack)
        interrupt = threading.Event()
        if run.replicas.size == 1:  # D processes: the launcher asks every rank (stop_requested)
            stack.enter_context(stop_on_sigint(interrupt))
        _loop(run, bar, interrupt)
    _final_checkpoint(run)
    return _finish(run, _record(run, probes, started))


def _build(config: TrainConfig, replicas: Replicas) -> _Session:
    """The model, data stream, optimizer, schedule and engine of a run, and where it checkpoints."""
    work = workload(config.model)
    task = work.task
    torch.manual_seed(config.seed)
    model = work.build(seed=config.seed)
    if config.device == "cuda":  # one GPU per replica: torchrun's LOCAL_RANK picks it
        model.to(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}")
    model.train()
    stream = MicrobatchStream(make_dataset(config), config.micro_batch,
                              collate=work.collate(config.collate),
                              seed=config.seed, replicas=replicas.size, rank=replicas.rank)
    total_updates = updates_per_epoch(len(stream), config.accumulation_steps, config.last_group) * config.epochs
    wrapped = replicas.wrap(model)  # before the optimizer: sharding (FSDP2) replaces the parameters
    optimizer = torch.optim.AdamW(wrapped.parameters(), lr=config.lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine(config.warmup_updates, total_updates))
    engine = Accumulator(wrapped, optimizer, accumulation_steps=config.accumulation_steps, task=task,
                         normalization=config.normalization,
                         precision=engine_precision(replicas, config.precision, config.device), scheduler=scheduler,
                         clip_grad_norm=config.clip_grad_norm, replicas=replicas)
    out = Path(config.out_dir) if config.out_dir else None
    kind = "sharded" if is_sharded(replicas) else "ddp" if replicas.size > 1 else None
    return _Session(config, replicas, task, model, stream, engine, total_updates,
                    resume_key(config, replicas.size, getattr(replicas, "sync_policy", None)), out, kind,
                    (out / ROOT if kind else out / "checkpoint.pt") if out else None)


def _resume(run: _Session) -> None:
    """Load the run's checkpoint (the committed one with several processes) into its engine."""
    config, replicas, engine = run.config, run.replicas, run.engine
    if run.ckpt_path is None:
        raise ValueError("resume needs out_dir: the folder where the interrupted run wrote checkpoint.pt")
    _refuse_other_kind(run.out, run.ckpt_path)
    if run.kind == "sharded":
        folder, _ = committed(run.out, kind="sharded")
        run.position = restore_sharded(engine, folder, run.run_key)
    else:
        part = committed(run.out, kind="ddp")[0] / f"rank{replicas.rank}.pt" if run.kind else run.ckpt_path
        state = load_checkpoint(part)
        extra = state.get("extra") or {}
        if run.kind and extra.get("rank") != replicas.rank:
            raise CheckpointError(f"{part} holds the part of rank {extra.get('rank')!r}, not of rank "
                                  f"{replicas.rank} (files swapped?): restore the folder from a copy")
        run.position = restore(engine, state, run.run_key)
        run.partials = list(extra.get("partials", []))  # earlier epochs' short groups
    if run.position["microbatch"] > len(run.stream):
        raise CheckpointError(f"the checkpoint's position (microbatch {run.position['microbatch']}) lies beyond the "
                              f"{len(run.stream)} microbatches of an epoch of this run: it belongs to another run")
    if run.position["epoch"] >= config.epochs:
        raise ValueError(f"the run in {config.out_dir} is finished ({config.epochs} epoch(s), "
                         f"{engine.counters.updates_attempted} updates): nothing to resume; raise --epochs "
                         "in a new --out, or --overwrite to train again")


def _progress(run: _Session, stack: contextlib.ExitStack) -> Any:
    """rank 0's progress bar (closed with ``stack``), or ``None``."""
    if not (run.config.progress and run.replicas.rank == 0):
        return None
    from tqdm.auto import tqdm

    bar = tqdm(total=run.total_updates, initial=run.engine.counters.updates_attempted, desc="updates", unit="update")
    stack.callback(bar.close)
    return bar


def _loop(run: _Session, bar: Any, interrupt: threading.Event) -> None:
    """Epochs of groups, one update each, from the run's position: checkpoints every
    ``checkpoint_every`` updates; stops after ``stop_after_updates``, at a Ctrl-C agreed by every
    replica, or at a non-finite update (rolled back, recorded in ``run.diverged``)."""
    config, engine, replicas = run.config, run.engine, run.replicas
    run.next_position = dict(run.position)
    for epoch in range(run.position["epoch"], config.epochs):
        start_mb = run.position["microbatch"] if epoch == run.position["epoch"] else 0
        groups = replicas.group_stream(run.stream.microbatches(epoch, start=start_mb), config.accumulation_steps,
                                       run.task, config.last_group, start_index=start_mb // config.accumulation_steps)
        for group in groups:
            try:
                run.results.append(engine.update(group))
            except NonFiniteLossError as err:
                run.diverged = f"update {engine.counters.updates_attempted + 1} (epoch {epoch}): {err}"
                run.stopped = True
                break
            start_mb += group.size
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{run.results[-1].loss:.3f}", lr=f"{run.results[-1].lr:.2e}")
            run.next_position = {"epoch": epoch, "microbatch": start_mb, "group": group.index + 1}
            done = engine.counters.updates_attempted
            if run.ckpt_path and config.checkpoint_every and done % config.checkpoint_every == 0:
                _save(run.kind, run.out, engine, run.next_position, run.run_key, run.partials)
            if config.stop_after_updates is not None and done >= config.stop_after_updates:
                run.stopped = True
                break
            if replicas.any_replica(interrupt.is_set() or stop_requested()):  # every rank stops at the same group
                run.stopped = run.sigint_stop = True  # Ctrl-C: stop here, at a group boundary, on every rank
                break
        if groups.partial is not None:
            run.partials.append({"epoch": epoch, **groups.partial.to_dict()})
        if run.stopped:
            break
        run.position = {"epoch": epoch + 1, "microbatch": 0, "group": 0}


def _final_checkpoint(run: _Session) -> None:
    """The checkpoint at the end (or where the run stopped); a diverged run keeps its last good one."""
    if run.ckpt_path and run.diverged is None and run.results:
        end = run.next_position if run.stopped else {"epoch": run.config.epochs, "microbatch": 0, "group": 0}
        _save(run.kind, run.out, run.engine, end, run.run_key, run.partials)


def _record(run: _Session, probes: dict[str, Any], started: float) -> RunRecord:
    """The run record: totals over every replica (a collective), peaks, what stopped the run."""
    config, replicas, results, c = run.config, run.replicas, run.results, run.engine.counters
    per_replica = replicas.gather({"rank": replicas.rank, "samples": c.samples, "supervised_tokens": c.supervised_tokens,
                                   "microbatches": c.microbatches, "counters": c.to_dict(),
                                   "last_loss": results[-1].loss if results else None,
                                   "largest_update": max((u.samples for u in results), default=0)})
    counts = [r.pop("counters") for r in per_replica]
    last_losses = [r.pop("last_loss") for r in per_replica]
    configured = config.micro_batch * config.accumulation_steps * replicas.size
    largest = sum(r.pop("largest_update") for r in per_replica)  # groups line up across replicas
    notes = []
    if run.stopped and run.diverged is None:
        notes.append(f"interrupted after {c.updates_attempted} updates" + (" by SIGINT" if run.sigint_stop else "")
                     + (" (resume with --resume)" if run.ckpt_path else " (no --out: nothing to resume from)"))
    if run.diverged:
        notes.append(f"diverged at {run.diverged}")
    if results and largest < configured:  # m×A×D is more than the data holds: say what was processed
        notes.append(f"the data filled no full update: m×A×D = {configured} samples were asked for, the "
                     f"largest update used {largest} (effective_batch states what was processed)")
    # every replica reports the same group loss (UpdateResult.loss), so their mean is that loss
    final_loss = sum(last_losses) / replicas.size if results and None not in last_losses else None
    return RunRecord(
        model=workload(config.model).name, task=run.task, micro_batch=config.micro_batch,
        accumulation_steps=config.accumulation_steps, replicas=replicas.size,
        effective_batch=min(configured, largest) if results else configured,
        precision=config.precision, normalization=run.engine.normalization.name, last_group_policy=config.last_group,
        **Counters.over_replicas(counts).to_dict(),
        last_group={"policy": config.last_group, "accumulation_steps": config.accumulation_steps,
                    "groups": run.partials} if run.partials else None,
        per_replica=per_replica, peak_memory_bytes={name: int(p.peak_bytes()) for name, p in probes.items()},
        final_loss=final_loss, seconds=round(time.perf_counter() - started, 3), seed=config.seed,
        device=str(run.engine.device), notes=notes,
    )


def _finish(run: _Session, record: RunRecord) -> TrainRun:
    """Save the record (rank 0) and hand back the run; a diverged run raises :class:`TrainingDiverged`."""
    paths = record.save(run.out) if run.out and run.replicas.rank == 0 else None
    done = TrainRun(record, run.results, run.model, run.ckpt_path, paths)
    if run.sigint_stop:
        done.extra["interrupted"] = "SIGINT"
    if run.diverged is not None:
        saved = f"; run record in {paths[0]}" if paths else ""
        last = (f"; the last checkpoint (before it) stays in {run.out}: --resume continues from it with the same "
                "settings, which diverge again here — lower --lr (or add --clip) in a new --out"
                if run.ckpt_path and run.ckpt_path.exists() else "; lower --lr (or add --clip) and train again")
        raise TrainingDiverged(f"the run diverged at {run.diverged}{saved}{last}", done)
    return done


def _refuse_other_kind(out: Path, ckpt_path: Path) -> None:
    """A resume whose own kind of checkpoint is absent but another kind is there (a one-process
    run resumed with --replicas, or the other way round) is a different run: say so, with the
    settings that wrote it, instead of "no checkpoint". Checkpoints of D processes written
    before they were committed as one unit are refused: their ranks may disagree."""
    legacy = sorted(p.name for p in (*out.glob("checkpoint-rank*.pt"), *out.glob(SHARDED_CHECKPOINT)))
    if legacy and not (out / ROOT).exists():
        raise CheckpointError(f"{out} holds a multi-process checkpoint of an older gastudy ({', '.join(legacy[:2])}), "
                              "written without a common commit: its ranks may be one checkpoint apart. Train again in "
                              "a new --out (or --overwrite)")
    if ckpt_path.exists():
        return
    kinds = {ROOT: "--replicas (several processes)", "checkpoint.pt": "one process (no --replicas)"}
    found = [name for name in kinds if (out / name).exists()]
    if found:
        raise ValueError(f"the checkpoint in {out} belongs to a different run: it was written with {kinds[found[0]]}, "
                         f"this run looks for {ckpt_path.name}; resume with the same settings as the run that "
                         "wrote it (see its record.json)")


def _save(kind: str | None, out: Path, engine, position, run_key, partials) -> None:
    """A checkpoint with the record's short groups so far (a resumed record keeps them): one
    sealed file for one process, one committed folder for D (:mod:`gastudy.run.commit`)."""
    extra = {"partials": list(partials)}
    if kind is None:
        save_checkpoint(out / "checkpoint.pt", engine, position, run_key, extra=extra)
        return
    rank = engine.replicas.rank

    def write_part(folder: Path) -> None:
        if kind == "sharded":
            save_sharded_checkpoint(folder, engine, position, run_key)
        else:
            save_checkpoint(folder / f"rank{rank}.pt", engine, position, run_key, extra={**extra, "rank": rank})

    save_replicated(out, write_part, kind=kind, updates=engine.counters.updates_attempted, config=run_key)


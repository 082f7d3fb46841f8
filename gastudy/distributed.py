"""Data-parallel accumulation on ``torch.distributed`` (MB-2, MB-7).

gastudy runs data parallelism on PyTorch's own ``DistributedDataParallel`` (DDP), launched by
``torchrun`` or :func:`gastudy.launch.run_local`. :class:`DDPReplicas` is what the engine
talks to (the :class:`gastudy.replicas.Replicas` protocol); it adds exactly what correct
accumulation needs on top of DDP:

- **D from the environment**: ``size``/``rank`` come from the initialized process group.
- **``no_sync`` on every microbatch but the last**, forward *and* backward inside the
  context (the engine enters :meth:`DDPReplicas.sync` around both). ``no_sync=False`` turns
  it off so the cost can be measured: :class:`CommCounter` (a DDP comm hook) counts the
  gradient all-reduces — one per bucket per update with ``no_sync``, A of them without.
- **The global denominator**: before a group's first backward the replicas exchange their
  local supervised counts (one tiny collective) and every loss is divided by the *global*
  count and multiplied by D, which cancels DDP's mean. The accumulated gradient then equals
  the single-process big-batch gradient over all m×A×D samples, even when replicas hold
  different numbers of tokens. ``denominator="local"`` is the naive per-replica mean.
- **Sample ids**: the first group's ids are compared across replicas; the same samples on
  every replica (no distributed sampler) raise :class:`DuplicateSamplesError`.
- **Uneven inputs never hang**: :class:`DistributedGroupStream` makes the replicas agree on
  every group's size before it is processed; a short last group follows ``keep``/``drop``
  on all replicas together, and anything irreconcilable raises
  :class:`ReplicaMismatchError` on every rank. Every process group has a timeout.
- **Clean shutdown**: :func:`shutdown` (barrier, then destroy) avoids gloo's abort at exit.

The functions at the end (:func:`compare_denominators`, :func:`count_allreduces`,
:func:`duplicate_samples_demo`, :func:`uneven_groups_demo`) are the course's measurements;
each starts real local processes and takes a few seconds on two cores.
"""

from __future__ import annotations

import contextlib
import copy
import os
import time
import warnings
from collections import Counter as _Counter
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from gastudy.counting import TASKS
from gastudy.groups import LAST_GROUP_POLICIES, Group, GroupStream, PartialGroupRecord, build_group
from gastudy.plan import BatchPlan

Batch = dict[str, torch.Tensor]
DENOMINATORS = ("global", "local")
DUPLICATE_POLICIES = ("raise", "warn", "off")
DEFAULT_TIMEOUT_S = 60.0


class ReplicaMismatchError(RuntimeError):
    """The replicas cannot agree on a group (sizes, settings or data lengths). Raised on
    every rank at the same point, so no process is left waiting.

    Course: MB-7.
    """


class ReplicaLostError(RuntimeError):
    """Another replica did not take part in an agreement within the process-group timeout
    (it crashed, hangs, or runs a different loop). The original error is chained.

    Course: MB-7.
    """


class DuplicateSamplesError(RuntimeError):
    """The same sample ids were processed by more than one replica (no data sharding).

    Course: MB-7.
    """


# --------------------------------------------------------------------------- process group


def default_timeout_s() -> float:
    """The process-group timeout in seconds: ``$GASTUDY_DIST_TIMEOUT`` or 60.

    Course: MB-7.
    """
    return float(os.environ.get("GASTUDY_DIST_TIMEOUT", DEFAULT_TIMEOUT_S))


def env_world_size() -> int:
    """D announced by the environment: the initialized group's size, else ``$WORLD_SIZE``, else 1.

    Course: MB-7.
    """
    if dist.is_available() and dist.is_initialized():
        return dist.get_world_size()
    return int(os.environ.get("WORLD_SIZE", "1"))


def batch_plan(micro_batch: int, accumulation_steps: int, tensor_parallel: int = 1,
               pipeline_parallel: int = 1) -> BatchPlan:
    """The :class:`~gastudy.plan.BatchPlan` of this run: D is the data-parallel world size
    (:func:`env_world_size`), so effective batch = m × A × D. Course: MB-2, MB-7."""
    return BatchPlan(micro_batch, accumulation_steps, env_world_size(), tensor_parallel, pipeline_parallel)


def init_from_env(backend: str | None = None, timeout_s: float | None = None) -> bool:
    """Join the process group described by ``torchrun``'s variables; return True if distributed.

    Does nothing (returns True) when a group is already initialized, and returns False when
    the environment announces no replicas (no ``RANK``/``WORLD_SIZE``). ``backend`` defaults
    to ``gloo`` (CPU); pass ``nccl`` for GPUs (the device is set from ``LOCAL_RANK``). The
    group gets a timeout (``timeout_s``, default :func:`default_timeout_s`) so a rank waiting
    for a collective that never comes raises instead of hanging. Course: MB-7.
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


def shutdown() -> None:
    """Leave the process group cleanly: a barrier (every rank leaves together), then destroy.

    Without the barrier, a gloo rank that tears down while its peer is still finishing can
    abort at exit with "terminate called without an active exception". No-op when no group
    is initialized. Call it only on the success path: after an error, other ranks may never
    reach the barrier (exit the process instead). Course: MB-7.
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


# --------------------------------------------------------------------------- communication counter


class CommCounter:
    """Counts DDP's gradient all-reduces: calls and bytes, per update (MB-7).

    :meth:`attach` registers a comm hook on a DDP model that records each bucket's size and
    then runs PyTorch's standard ``allreduce_hook`` (so the gradients are exactly DDP's).
    ``update`` is set by :class:`DDPReplicas` at the start of every update; ``calls`` and
    ``bytes`` map an update number to its all-reduce calls and gradient bytes sent.

    Course: MB-7.
    """

    def __init__(self, process_group: dist.ProcessGroup | None = None):
        self.process_group = process_group
        self.update = 0
        self.calls: dict[int, int] = defaultdict(int)
        self.bytes: dict[int, int] = defaultdict(int)

    def attach(self, model: DDP) -> DDP:
        """Register the counting hook on ``model`` (a DDP module); returns the model."""
        model.register_comm_hook(self, _counting_allreduce_hook)
        return model

    def per_update(self) -> list[dict[str, int]]:
        """``[{"update", "calls", "bytes"}, …]`` for every update that communicated."""
        return [{"update": u, "calls": self.calls[u], "bytes": self.bytes[u]} for u in sorted(self.calls)]

    def reset(self) -> None:
        """Forget everything counted so far."""
        self.calls.clear()
        self.bytes.clear()


def _counting_allreduce_hook(state, bucket):  # no annotations: DDP checks them as real types
    """Count one bucket (a ``dist.GradBucket``), then all-reduce it exactly like DDP's default
    (mean over replicas); returns the ``torch.futures.Future`` DDP waits on."""
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

    buffer = bucket.buffer()
    state.calls[state.update] += 1
    state.bytes[state.update] += buffer.numel() * buffer.element_size()
    return allreduce_hook(state.process_group, bucket)


# --------------------------------------------------------------------------- sample ids


@dataclass
class SampleIdReport:
    """Which sample ids more than one replica processed (MB-7).

    ``per_replica`` is the number of ids each rank reported, ``duplicated`` maps every id
    seen on more than one replica to the ranks that processed it (a rank listed once per
    occurrence), ``extra`` the occurrences beyond the first of those ids: samples that
    added no new information.

    Course: MB-7.
    """

    per_replica: list[int]
    duplicated: dict[int, list[int]]
    distinct: int

    @property
    def ok(self) -> bool:
        """True when no id was processed by two replicas."""
        return not self.duplicated

    @property
    def extra(self) -> int:
        return sum(len(ranks) - 1 for ranks in self.duplicated.values())

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "per_replica": self.per_replica, "distinct": self.distinct,
                "duplicated_ids": len(self.duplicated), "extra_samples": self.extra,
                "examples": {str(k): v for k, v in list(sorted(self.duplicated.items()))[:5]}}

    def __str__(self) -> str:
        total = sum(self.per_replica)
        if self.ok:
            return f"sample ids: {total} processed by {len(self.per_replica)} replicas, all distinct"
        sid, ranks = min(self.duplicated.items())
        return (f"sample ids: {len(self.duplicated)} of {self.distinct} distinct ids were processed by more than "
                f"one replica ({self.extra} of {total} samples are repeats; e.g. id {sid} on ranks {ranks})")


def check_sample_ids(ids_per_rank: Sequence[Sequence[int]]) -> SampleIdReport:
    """Compare the sample ids each replica processed; flag ids seen on more than one (MB-7).

    ``ids_per_rank[r]`` is rank r's list. Repeats *within* one replica are not flagged
    (a second epoch legitimately revisits samples); an id on two replicas is. Exact counts.

    Course: MB-7.
    """
    owners: dict[int, list[int]] = defaultdict(list)
    for rank, ids in enumerate(ids_per_rank):
        for sid, n in _Counter(int(i) for i in ids).items():
            owners[sid] += [rank] * n
    duplicated = {sid: ranks for sid, ranks in owners.items() if len(set(ranks)) > 1}
    return SampleIdReport([len(ids) for ids in ids_per_rank], duplicated, len(owners))


def duplicate_error(report: SampleIdReport) -> DuplicateSamplesError:
    """The error (with the numbers and the fix) for a report that found duplicates.

    Course: MB-7.
    """
    return DuplicateSamplesError(
        f"{report}. Every replica is reading the same data, so the effective batch holds repeats that add no "
        "information while counting as new samples. Shard the data per replica: "
        "MicrobatchStream(..., replicas=D, rank=rank) or a DistributedSampler.")


# --------------------------------------------------------------------------- agreed groups


@dataclass
class ReplicaGroup(Group):
    """A :class:`Group` whose counts every replica agreed on before its first backward.

    Extra attributes (one entry per rank): ``replica_items`` (supervised items),
    ``replica_samples``, ``replica_microbatches`` (real microbatches). ``fillers`` is the
    number of filler microbatches appended on this replica (only in a ``keep`` last group
    that is shorter on this replica than on another): they carry no supervised item and no
    sample, and exist so that every replica runs the same number of backward passes.

    Course: MB-7.
    """

    replica_items: list[int] = field(default_factory=list)
    replica_samples: list[int] = field(default_factory=list)
    replica_microbatches: list[int] = field(default_factory=list)
    fillers: int = 0

    @property
    def global_items(self) -> int:
        """Supervised items of the whole group over all replicas: the global denominator."""
        return sum(self.replica_items)


def filler_microbatch(batch: Batch, ignore_index: int = -100) -> Batch:
    """A copy of ``batch`` that contributes nothing: every label ignored, no sample id.

    Its forward and backward run (so the replica takes part in the gradient all-reduce),
    its loss sum and gradient are exactly zero with the engine's summed loss.

    Course: MB-7.
    """
    out = dict(batch)
    for key in ("labels", "shift_labels"):
        if key in out:
            out[key] = torch.full_like(out[key], ignore_index)
    out["sample_ids"] = torch.zeros(0, dtype=torch.long)
    return out


@dataclass
class ReplicaPartialRecord(PartialGroupRecord):
    """A short last group seen by every replica: ``microbatches`` is this replica's real
    count, ``replica_microbatches`` every rank's, ``sample_ids`` the affected samples of
    *all* replicas (rank order), so rank 0's record covers the whole group.

    Course: MB-7.
    """

    replica_microbatches: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {**super().to_dict(), "replica_microbatches": self.replica_microbatches}


# Per-rank row exchanged before every group by DistributedGroupStream.
ROW = ("index", "accumulation_steps", "policy", "task", "microbatches", "has_more", "items", "samples", "seen")


def agree_on_group(rows: Sequence[Sequence[int]]) -> str:
    """Decide a group from every rank's row (see ``ROW``): ``full``, ``partial`` or ``end``.

    Deterministic, so every rank reaches the same decision from the same rows. Raises
    :class:`ReplicaMismatchError` when the replicas use different settings (A, policy,
    task, group index) or when one replica's data ends while another still has more than
    this group: that is not a short last group but streams of different lengths.

    Course: MB-7.
    """
    cols = {name: [int(r[i]) for r in rows] for i, name in enumerate(ROW)}
    for name, what in (("accumulation_steps", "accumulation steps (A)"), ("index", "group index"),
                       ("policy", "last-group policy (0=keep, 1=drop)"), ("task", "task")):
        if len(set(cols[name])) > 1:
            raise ReplicaMismatchError(f"replicas disagree on the {what}: {cols[name]} (one entry per rank); "
                                       "every replica must run the same configuration")
    A, ns, more = cols["accumulation_steps"][0], cols["microbatches"], cols["has_more"]
    if all(n == A for n in ns):
        return "full"
    if not any(ns):
        return "end"
    short = [r for r, n in enumerate(ns) if n < A]
    longer = [r for r, m in enumerate(more) if m]
    if longer:
        raise ReplicaMismatchError(
            f"group {cols['index'][0]}: replica(s) {short} ran out of data ({[ns[r] for r in short]} of {A} "
            f"microbatches) while replica(s) {longer} still have more: the replicas' streams differ in length by "
            "more than one short last group. Give every replica the same number of samples (±1 per microbatch), "
            "e.g. MicrobatchStream(..., replicas=D, rank=rank) on the same data set.")
    return "partial"


@dataclass
class DistributedGroupStream(GroupStream):
    """A :class:`GroupStream` whose replicas agree on every group before it runs (MB-4, MB-7).

    Before yielding a group, each replica reports (one small all-gather) its A, policy,
    task, group index, how many microbatches it has for this group, whether more follow,
    and its supervised items and samples. Then, identically on every rank:

    - all full: the group runs; its counts ride along (:class:`ReplicaGroup`), so the
      engine's denominator needs no further communication;
    - some replicas short (the last group): ``drop`` skips it on every replica; ``keep``
      runs it on every replica with its true global denominator, shorter replicas padding
      with :func:`filler_microbatch` so every replica runs the same number of backward
      passes (the same number of all-reduces, with or without ``no_sync``);
    - anything else raises :class:`ReplicaMismatchError` on every rank.

    :attr:`partial` records the short last group (:class:`ReplicaPartialRecord`: policy, this
    replica's real microbatches, every replica's sizes and the sample ids of all replicas);
    :attr:`replica_microbatches` the real sizes of that group on every rank.

    Course: MB-4, MB-7.
    """

    replicas: DDPReplicas | None = None
    replica_microbatches: list[int] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.replicas is None:
            raise ValueError("DistributedGroupStream needs replicas=DDPReplicas(...)")

    def __iter__(self) -> Iterator[Group]:
        A, it = self.accumulation_steps, iter(self.microbatches)
        ahead, template, index = next(it, None), None, self.start_index
        policy, task = LAST_GROUP_POLICIES.index(self.last_group), TASKS.index(self.task)
        while True:
            pending: list[Batch] = []
            while ahead is not None and len(pending) < A:
                pending.append(ahead)
                ahead = next(it, None)
            local = build_group(index, pending, A, self.task, self.ignore_index)
            template = pending[-1] if pending else template
            rows = self.replicas.gather_ints([index, A, policy, task, len(pending), int(ahead is not None),
                                              local.supervised_items, local.samples, int(template is not None)])
            decision = agree_on_group(rows)
            if decision == "end":
                return
            sizes = [r[ROW.index("microbatches")] for r in rows]
            fillers = max(sizes) - len(pending)
            if decision == "partial":
                every = [i for ids in self.replicas.gather_ids(local.sample_ids) for i in ids]
                self.partial = ReplicaPartialRecord(self.last_group, len(pending), A, every, sizes)
                self.replica_microbatches = sizes
                if self.last_group == "drop":
                    return
                seen = [r[ROW.index("seen")] for r in rows]
                if not all(seen):  # a replica without any microbatch (e.g. resumed at its end) borrows one
                    donor = seen.index(1)
                    offered = self.replicas.gather(template if self.replicas.rank == donor else None)
                    template = template if template is not None else offered[donor]
                local = build_group(index, pending + [filler_microbatch(template, self.ignore_index)] * fillers,
                                    A, self.task, self.ignore_index)
            yield ReplicaGroup(**{f.name: getattr(local, f.name) for f in fields(Group)},
                               replica_items=[r[ROW.index("items")] for r in rows],
                               replica_samples=[r[ROW.index("samples")] for r in rows],
                               replica_microbatches=sizes, fillers=fillers)
            if decision == "partial":
                return
            index += 1


# --------------------------------------------------------------------------- the replicas


class DDPReplicas:
    """Data-parallel replicas on ``DistributedDataParallel`` (the Replicas protocol; MB-7).

    Args:
        process_group: the group of replicas (default: the initialized world).
        no_sync: skip gradient communication on every microbatch but the last (default).
            ``False`` all-reduces after every microbatch: same gradient, A× the traffic.
        denominator: ``"global"`` (the group's supervised items summed over replicas: the
            big-batch gradient) or ``"local"`` (each replica's own items: the naive
            per-replica mean, which DDP then averages — biased when counts differ).
        duplicates: what to do when the first group's sample ids overlap across replicas:
            ``"raise"`` (:class:`DuplicateSamplesError`), ``"warn"`` or ``"off"``.
        count_comm: attach a :class:`CommCounter` in :meth:`wrap`.
        ddp_kwargs: extra ``DistributedDataParallel`` arguments.

    Per-replica totals of what went through :meth:`group_denominator` are kept in
    :attr:`totals` (one dict per rank). Raises ``RuntimeError`` when no process group is
    initialized, ``ValueError`` for an unknown option.

    Course: MB-7.
    """

    def __init__(self, process_group: dist.ProcessGroup | None = None, *, no_sync: bool = True,
                 denominator: str = "global", duplicates: str = "raise", count_comm: bool = True,
                 ddp_kwargs: dict[str, Any] | None = None):
        if not (dist.is_available() and dist.is_initialized()):
            raise RuntimeError("no process group is initialized: launch with torchrun (then call "
                               "gastudy.distributed.init_from_env()) or run the function with gastudy.launch.run_local")
        if denominator not in DENOMINATORS:
            raise ValueError(f"unknown denominator {denominator!r}; use 'global' (correct) or 'local' (naive)")
        if duplicates not in DUPLICATE_POLICIES:
            raise ValueError(f"unknown duplicates policy {duplicates!r}; use one of {', '.join(DUPLICATE_POLICIES)}")
        self.process_group = process_group
        self.size = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.no_sync, self.denominator, self.duplicates = no_sync, denominator, duplicates
        self.counter = CommCounter(process_group) if count_comm else None
        self.ddp_kwargs = dict(ddp_kwargs or {})
        self.updates = 0
        self.ids_report: SampleIdReport | None = None
        self.ids_per_stream: list[list[int]] = []  # this replica's sample ids, one list per group stream (epoch)
        self.totals = [{"rank": r, "groups": 0, "microbatches": 0, "samples": 0, "supervised_tokens": 0}
                       for r in range(self.size)]
        self._device = (torch.device("cuda", torch.cuda.current_device())
                        if dist.get_backend(process_group) == "nccl" else torch.device("cpu"))

    # -- communication helpers
    def gather_ints(self, values: Sequence[int]) -> list[list[int]]:
        """Every rank's ``values`` (same length everywhere), in rank order: one all-gather."""
        t = torch.tensor([int(v) for v in values], dtype=torch.long, device=self._device)
        out = [torch.empty_like(t) for _ in range(self.size)]
        with self._answered():
            dist.all_gather(out, t, group=self.process_group)
        return [o.tolist() for o in out]

    @contextlib.contextmanager
    def _answered(self) -> Iterator[None]:
        """Turn a timeout or closed connection of a control collective into :class:`ReplicaLostError`."""
        try:
            yield
        except RuntimeError as e:
            raise ReplicaLostError(
                f"rank {self.rank}: the other replicas did not answer within the process-group timeout "
                f"(or closed the connection): one of them crashed, hangs, or runs a different loop. "
                f"Check the other ranks' logs. Underlying error: {e}") from e

    def gather(self, obj: Any) -> list[Any]:
        """``obj`` from every replica, one entry per rank (any picklable object)."""
        out: list[Any] = [None] * self.size
        with self._answered():
            dist.all_gather_object(out, obj, group=self.process_group)
        return out

    def gather_ids(self, ids: Sequence[int]) -> list[list[int]]:
        """The sample ids every replica processed, one list per rank."""
        return [list(x) for x in self.gather([int(i) for i in ids])]

    # -- the protocol
    def wrap(self, model: nn.Module) -> DDP:
        """``model`` wrapped in ``DistributedDataParallel`` (parameters broadcast from rank 0),
        with the counting comm hook attached when ``count_comm``. The engine must be given
        this wrapped module; build the optimizer on ``model.parameters()`` (same tensors)."""
        if isinstance(model, DDP):
            return model
        device = next(model.parameters()).device
        kwargs = {"device_ids": [device.index]} if device.type == "cuda" else {}
        ddp = DDP(model, process_group=self.process_group, **kwargs, **self.ddp_kwargs)
        if self.counter is not None:
            self.counter.attach(ddp)
        return ddp

    def sync(self, model: nn.Module, last: bool) -> contextlib.AbstractContextManager:
        """The context one microbatch's forward *and* backward run in: ``model.no_sync()``
        unless ``last`` (or ``no_sync`` is off). Raises ``TypeError`` for an unwrapped model:
        its gradients would never be communicated."""
        if not isinstance(model, DDP):
            raise TypeError(f"the engine's model is a {type(model).__name__}, not DistributedDataParallel: "
                            "its gradients would never be averaged across replicas; pass replicas.wrap(model)")
        return contextlib.nullcontext() if last or not self.no_sync else model.no_sync()

    def group_denominator(self, group: Group) -> int:
        """The group's denominator, agreed by every replica before the first backward (MB-7).

        ``global``: the supervised items summed over all replicas (the engine multiplies
        each loss by D, cancelling DDP's mean → the big-batch gradient). ``local``: this
        replica's items × D, so each replica's loss is its own token mean (naive).
        Groups from :class:`DistributedGroupStream` carry the agreed counts; any other
        group costs one all-gather of ``[index, microbatches, items, samples]``. Raises
        :class:`ReplicaMismatchError` on every rank when the replicas' group indices or
        microbatch counts differ, and :class:`DuplicateSamplesError` (``duplicates="raise"``)
        when the first group's sample ids overlap across replicas.
        """
        if isinstance(group, ReplicaGroup) and len(group.replica_items) == self.size:
            items, samples, sizes = group.replica_items, group.replica_samples, [group.size] * self.size
        else:
            rows = self.gather_ints([group.index, group.size, group.supervised_items, group.samples])
            indices, sizes = [r[0] for r in rows], [r[1] for r in rows]
            items, samples = [r[2] for r in rows], [r[3] for r in rows]
            if len(set(indices)) > 1 or len(set(sizes)) > 1:
                raise ReplicaMismatchError(
                    f"replicas disagree on group {indices} (index per rank): microbatches per rank {sizes}. "
                    "Every replica must run the same number of backward passes per update or the gradient "
                    "all-reduce waits forever; build the groups with replicas.group_stream(...) "
                    "(DistributedGroupStream), which applies keep/drop to a short last group on all replicas.")
        if self.updates == 0 and self.duplicates != "off":
            self.check_duplicates(group.sample_ids)
        self.updates += 1
        if not self.ids_per_stream:
            self.ids_per_stream.append([])
        self.ids_per_stream[-1] += group.sample_ids
        if self.counter is not None:
            self.counter.update = self.updates
        real = getattr(group, "replica_microbatches", None) or sizes
        for r in range(self.size):
            t = self.totals[r]
            t["groups"] += 1
            t["microbatches"] += real[r]
            t["samples"] += samples[r]
            t["supervised_tokens"] += items[r]
        if self.denominator == "global":
            return sum(items)
        # Naive: own items × D. A replica without items still joins the all-reduce (its loss is 0).
        return max(items[self.rank], 1) * self.size

    def check_duplicates(self, ids: Sequence[int]) -> SampleIdReport:
        """Compare ``ids`` across replicas (a collective: call on every rank) and act per
        ``duplicates``: raise :class:`DuplicateSamplesError` on every rank, or warn."""
        report = check_sample_ids(self.gather_ids(ids))
        self.ids_report = report
        if not report.ok:
            if self.duplicates == "raise":
                raise duplicate_error(report)
            if self.duplicates == "warn":
                warnings.warn(str(duplicate_error(report)), stacklevel=2)
        return report

    def group_stream(self, microbatches: Iterable[Batch], accumulation_steps: int, task: str = "causal",
                     last_group: str = "keep", start_index: int = 0) -> DistributedGroupStream:
        """This replica's groups, agreed with the other replicas (:class:`DistributedGroupStream`).

        Each call starts a new list in :attr:`ids_per_stream` (one per epoch in training)."""
        self.ids_per_stream.append([])
        return DistributedGroupStream(microbatches, accumulation_steps, task, last_group, start_index=start_index,
                                      replicas=self)

    def summary(self) -> dict[str, Any]:
        """D, the per-replica totals, gradient all-reduces per update and the sample-id check."""
        comm = self.counter.per_update() if self.counter else []
        return {"replicas": self.size, "no_sync": self.no_sync, "denominator": self.denominator,
                "per_replica": copy.deepcopy(self.totals), "allreduce_per_update": comm,
                "sample_ids": self.ids_report.to_dict() if self.ids_report else None}


# --------------------------------------------------------------------------- course measurements


def _dtype(name: str) -> torch.dtype:
    return {"float64": torch.float64, "float32": torch.float32}[name]


def compare_denominators_worker(model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                                collate: str = "padded", seed: int = 0, dtype: str = "float64") -> dict[str, Any]:
    """One rank of :func:`compare_denominators` (runs inside a process group).

    Course: MB-7.
    """
    from gastudy.engine import Accumulator
    from gastudy.models import build_model, task_of
    from gastudy.verify import (
        compare_gradients,
        controlled_microbatches,
        reference_gradients,
        watch_steps,
    )

    task, D, rank = task_of(model), dist.get_world_size(), dist.get_rank()
    out: dict[str, Any] = {"rank": rank}
    for mode in DENOMINATORS:
        # A fresh model (same seed) per mode: one DDP wrapper per module, never two.
        net = build_model(model, seed=seed, dtype=_dtype(dtype))
        replicas = DDPReplicas(denominator=mode)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.0)
        engine = Accumulator(replicas.wrap(net), optimizer, accumulation_steps=accumulation_steps, task=task,
                             replicas=replicas)
        mbs = controlled_microbatches(model, micro_batch, accumulation_steps, collate, seed, replicas=D, rank=rank)
        group = next(iter(replicas.group_stream(mbs, accumulation_steps, task)))
        with watch_steps(net, optimizer) as watch:
            result = engine.update(group)
        out[mode] = {"gradients": watch.gradients, "denominator": result.denominator}
        out["items"], out["sample_ids"] = group.items, group.sample_ids
    if rank == 0:
        every = [mb for r in range(D) for mb in controlled_microbatches(model, micro_batch, accumulation_steps,
                                                                         collate, seed, replicas=D, rank=r)]
        ref = reference_gradients(build_model(model, seed=seed, dtype=_dtype(dtype)), every, task)
        for mode in DENOMINATORS:
            max_abs, max_rel = compare_gradients(out[mode]["gradients"], ref)
            out[mode].update(max_abs_diff=max_abs, max_rel_diff=max_rel)
    for mode in DENOMINATORS:
        del out[mode]["gradients"]
    return out


def compare_denominators(replicas: int = 2, micro_batch: int = 2, accumulation_steps: int = 4,
                         model: str = "tiny-gpt", collate: str = "padded", seed: int = 0,
                         dtype: str = "float64", timeout: float = 120.0) -> dict[str, Any]:
    """Global denominator vs naive per-replica mean vs the single-process big batch (MB-7).

    Runs one update of m×A×D variable-length samples on ``replicas`` local processes (DDP,
    gloo) twice — with the global denominator and with each replica's own token mean — and
    compares each accumulated gradient with the gradient of ONE forward over all m×A×D
    samples in one process (``dtype`` float64 by default, so rounding is ~1e-16).

    Returns ``{"replicas", "items_per_replica" (supervised items per rank), "items_per_microbatch",
    "global": {"denominator", "max_abs_diff", "max_rel_diff"}, "naive": {...}}``.

    Course: MB-7.
    """
    from gastudy.launch import run_local

    ranks = run_local(compare_denominators_worker, replicas, model=model, micro_batch=micro_batch,
                      accumulation_steps=accumulation_steps, collate=collate, seed=seed, dtype=dtype, timeout=timeout)
    return {"replicas": replicas, "micro_batch": micro_batch, "accumulation_steps": accumulation_steps,
            "effective_batch": micro_batch * accumulation_steps * replicas,
            "items_per_replica": [sum(r["items"]) for r in ranks],
            "items_per_microbatch": [r["items"] for r in ranks],
            "global": ranks[0]["global"], "naive": ranks[0]["local"]}


def count_allreduces_worker(settings: Sequence[tuple[int, bool]], updates: int = 3, micro_batch: int = 2,
                            model: str = "tiny-gpt", seed: int = 0,
                            model_kwargs: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One rank of :func:`count_allreduces`: for each ``(A, no_sync)`` run ``updates`` updates
    (plus one warm-up) and report all-reduce calls, bytes and seconds per update.

    Course: MB-7.
    """
    from gastudy.data import AdditionDataset, BlobDataset, MicrobatchStream
    from gastudy.engine import Accumulator
    from gastudy.models import build_model, task_of

    task, D, rank = task_of(model), dist.get_world_size(), dist.get_rank()
    rows = []
    for A, no_sync in settings:
        net = build_model(model, seed=seed, **(model_kwargs or {}))  # one DDP wrapper per module
        replicas = DDPReplicas(no_sync=no_sync)
        wrapped = replicas.wrap(net)
        n = micro_batch * A * D * (updates + 1)
        data = AdditionDataset(n, seed=seed) if task == "causal" else BlobDataset(n, seed=seed)
        stream = MicrobatchStream(data, micro_batch, seed=seed, replicas=D, rank=rank)
        engine = Accumulator(wrapped, torch.optim.SGD(net.parameters(), lr=1e-3), accumulation_steps=A,
                             task=task, replicas=replicas)
        seconds = []
        for group in replicas.group_stream(stream, A, task):
            t0 = time.perf_counter()
            engine.update(group)
            seconds.append(time.perf_counter() - t0)
        comm = replicas.counter.per_update()[1:]  # the first update warms up (bucket rebuild)
        rows.append({"accumulation_steps": A, "no_sync": no_sync, "updates": len(comm),
                     "calls_per_update": sum(c["calls"] for c in comm) / len(comm),
                     "bytes_per_update": sum(c["bytes"] for c in comm) / len(comm),
                     "seconds_per_update": sum(seconds[1:]) / len(seconds[1:]),
                     "gradient_bytes": sum(p.numel() * p.element_size() for p in net.parameters())})
    return rows


def count_allreduces(replicas: int = 2, accumulation_steps: int = 4, no_sync: bool = True, updates: int = 3,
                     micro_batch: int = 2, model: str = "tiny-gpt", seed: int = 0,
                     timeout: float = 120.0) -> dict[str, Any]:
    """Gradient all-reduces per update, with or without ``no_sync`` (MB-7).

    Runs ``updates`` updates (after one warm-up) of A microbatches on ``replicas`` local
    processes and counts DDP's gradient all-reduce calls and bytes with a comm hook:
    with ``no_sync`` one call per bucket per update, without it A calls per bucket.
    Returns ``{"accumulation_steps", "no_sync", "calls_per_update", "bytes_per_update",
    "seconds_per_update", "gradient_bytes", "updates"}`` (rank 0's view; all ranks agree).

    Course: MB-7.
    """
    from gastudy.launch import run_local

    ranks = run_local(count_allreduces_worker, replicas, [(accumulation_steps, no_sync)], updates=updates,
                      micro_batch=micro_batch, model=model, seed=seed, timeout=timeout)
    return {"replicas": replicas, **ranks[0][0]}


def duplicate_samples_worker(shard: bool, micro_batch: int = 2, accumulation_steps: int = 4,
                             seed: int = 0, dataset_size: int = 64) -> dict[str, Any]:
    """One rank of :func:`duplicate_samples_demo`: the first group's ids, checked across ranks,
    and whether an update on them is refused.

    Course: MB-7.
    """
    from gastudy.data import AdditionDataset, MicrobatchStream
    from gastudy.engine import Accumulator
    from gastudy.models import build_model

    D, rank = dist.get_world_size(), dist.get_rank()
    stream = MicrobatchStream(AdditionDataset(dataset_size, seed=seed), micro_batch, seed=seed, replicas=D,
                              rank=rank, shard=shard)
    replicas = DDPReplicas(duplicates="raise")
    net = build_model("tiny-gpt", seed=seed)
    engine = Accumulator(replicas.wrap(net), torch.optim.SGD(net.parameters(), lr=1e-3),
                         accumulation_steps=accumulation_steps, replicas=replicas)
    group = next(iter(replicas.group_stream(stream, accumulation_steps)))
    try:
        engine.update(group)
        refused = None
    except DuplicateSamplesError as e:
        refused = str(e)
    return {"rank": rank, "sample_ids": group.sample_ids, "report": replicas.ids_report.to_dict(),
            "refused": refused, "updates_applied": engine.counters.updates_applied}


def duplicate_samples_demo(replicas: int = 2, micro_batch: int = 2, accumulation_steps: int = 4, seed: int = 0,
                           timeout: float = 120.0) -> dict[str, Any]:
    """The missing distributed sampler, detected (MB-7).

    Runs the first update on ``replicas`` processes twice: with sharded data
    (``MicrobatchStream(replicas=D, rank=r)``) and with every replica reading the same
    samples (``shard=False``). Returns ``{"sharded": ..., "unsharded": ...}``, each with the
    sample-id report (duplicated ids, extra samples), the ids per rank and the refusal
    message (``None`` when the update ran).

    Course: MB-7.
    """
    from gastudy.launch import run_local

    out = {}
    for name, shard in (("sharded", True), ("unsharded", False)):
        ranks = run_local(duplicate_samples_worker, replicas, shard, micro_batch=micro_batch,
                          accumulation_steps=accumulation_steps, seed=seed, timeout=timeout)
        out[name] = {"report": ranks[0]["report"], "ids_per_rank": [r["sample_ids"] for r in ranks],
                     "refused": ranks[0]["refused"], "updates_applied": [r["updates_applied"] for r in ranks]}
    return out


def uneven_groups_worker(last_group: str, dataset_size: int, micro_batch: int = 2, accumulation_steps: int = 4,
                         seed: int = 0, no_sync: bool = True, lr: float = 1e-2,
                         return_weights: bool = False) -> dict[str, Any]:
    """One rank of :func:`uneven_groups_demo`: train one epoch (SGD, ``lr``) and report every
    update; with ``return_weights`` also the final parameters (a name → tensor dict).

    Course: MB-7.
    """
    from gastudy.data import AdditionDataset, MicrobatchStream
    from gastudy.engine import Accumulator
    from gastudy.models import build_model

    D, rank = dist.get_world_size(), dist.get_rank()
    stream = MicrobatchStream(AdditionDataset(dataset_size, seed=seed), micro_batch, seed=seed, replicas=D, rank=rank)
    replicas = DDPReplicas(no_sync=no_sync)
    net = build_model("tiny-gpt", seed=seed)
    engine = Accumulator(replicas.wrap(net), torch.optim.SGD(net.parameters(), lr=lr),
                         accumulation_steps=accumulation_steps, replicas=replicas)
    groups = replicas.group_stream(stream, accumulation_steps, "causal", last_group)
    updates = []
    for group in groups:
        result = engine.update(group)
        updates.append({"index": group.index, "microbatches": group.size, "fillers": group.fillers,
                        "replica_microbatches": group.replica_microbatches, "items": group.supervised_items,
                        "denominator": result.denominator, "samples": group.samples})
    weights = {n: p.detach().clone() for n, p in net.named_parameters()} if return_weights else None
    return {"rank": rank, "microbatches_in_stream": len(stream), "updates": updates, "weights": weights,
            "partial": groups.partial.to_dict() if groups.partial else None,
            "replica_microbatches": groups.replica_microbatches,
            "allreduce_per_update": replicas.counter.per_update(), "counters": engine.counters.to_dict(),
            "weights_checksum": float(sum(p.double().sum() for p in net.parameters()))}


def uneven_groups_demo(last_group: str = "keep", replicas: int = 2, dataset_size: int = 21, micro_batch: int = 2,
                       accumulation_steps: int = 4, no_sync: bool = True, timeout: float = 120.0) -> list[dict]:
    """An epoch whose last group is shorter on some replicas, under ``keep`` or ``drop`` (MB-4, MB-7).

    With 21 samples, m=2 and D=2, rank 0 holds 11 samples (6 microbatches) and rank 1 holds
    10 (5 microbatches): with A=4 the second group has 2 and 1 microbatches. ``keep`` runs it on both replicas (rank 1
    adds a filler) with the global denominator; ``drop`` skips it on both. Returns each
    rank's report (updates with their sizes and denominators, the partial record, the
    all-reduce calls per update and a checksum of the final weights, equal on every rank).

    Course: MB-4, MB-7.
    """
    from gastudy.launch import run_local

    return run_local(uneven_groups_worker, replicas, last_group, dataset_size, micro_batch=micro_batch,
                     accumulation_steps=accumulation_steps, no_sync=no_sync, timeout=timeout)

"""Data-parallel accumulation on ``torch.distributed`` (MB-2, MB-7).

gastudy runs data parallelism on PyTorch's own ``DistributedDataParallel`` (DDP), launched by
``torchrun`` or :func:`gastudy.parallel.launch.run_local`. :class:`DDPReplicas` is what the engine
talks to (the :class:`gastudy.core.replicas.Replicas` protocol); it adds exactly what correct
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
  different numbers of tokens.
- **The group loss without an extra collective**: before the last microbatch's backward the
  engine offers this replica's share of the group loss (:meth:`DDPReplicas.carry_loss`); the
  gradient all-reduce hook appends it to the first bucket of its dtype, so every replica gets
  the same mean loss from the all-reduce that runs anyway (:meth:`DDPReplicas.group_loss`).
  Without the hook (``count_comm=False``, a model wrapped elsewhere) it costs one small
  all-reduce.
- **Sample ids**: the first group's ids are compared across replicas; the same samples on
  every replica (no distributed sampler) raise :class:`DuplicateSamplesError`.
- **Uneven inputs never hang**: :class:`DistributedGroupStream` makes the replicas agree on
  every group's size before it is processed; a short last group follows ``keep``/``drop``
  on all replicas together, and anything irreconcilable raises
  :class:`ReplicaMismatchError` on every rank. Every process group has a timeout.
- **Clean shutdown**: :func:`~gastudy.parallel.process_group.shutdown` (barrier, then destroy)
  avoids gloo's abort at exit.

The course's multi-process demonstrations built on this are in :mod:`gastudy.course.demos.ddp`.
"""

from __future__ import annotations

import contextlib
import copy
import warnings
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from gastudy.core.groups import (
    Group,
)
from gastudy.parallel.agreement import (
    DistributedGroupStream,
    ReplicaGroup,
    ReplicaLostError,
    ReplicaMismatchError,
    SampleIdReport,
    check_sample_ids,
    duplicate_error,
)

Batch = dict[str, torch.Tensor]
DUPLICATE_POLICIES = ("raise", "warn", "off")


# --------------------------------------------------------------------------- communication counter


class CommCounter:
    """Counts DDP's gradient all-reduces: calls and bytes, per update.

    :meth:`attach` registers a comm hook on a DDP model that records each bucket's size and
    then runs PyTorch's standard ``allreduce_hook`` (so the gradients are exactly DDP's).
    ``update`` is set by :class:`DDPReplicas` at the start of every update; ``calls`` and
    ``bytes`` map an update number to its all-reduce calls and gradient bytes sent.

    The same hook carries the group loss: when :attr:`carry` holds a 0-d tensor, the first
    bucket of the same dtype is all-reduced with that value appended (one element more, not
    counted in ``bytes``), and the replicas' mean of it lands in :attr:`carried`.

    """

    def __init__(self, process_group: dist.ProcessGroup | None = None):
        self.process_group = process_group
        self.update = 0
        self.calls: dict[int, int] = defaultdict(int)
        self.bytes: dict[int, int] = defaultdict(int)
        self.carry: torch.Tensor | None = None
        self.carried: torch.Tensor | None = None

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
    carry = state.carry
    if carry is None or carry.dtype != buffer.dtype:
        return allreduce_hook(state.process_group, bucket)
    state.carry = None  # one bucket carries it; every rank picks the same (buckets reduce in order)
    group = state.process_group if state.process_group is not None else dist.group.WORLD
    both = torch.cat([buffer, carry.detach().reshape(1).to(buffer.device)])
    both.div_(dist.get_world_size(group))  # the mean over replicas, exactly like DDP's default

    def unpack(fut):
        out = fut.value()[0]
        state.carried = out[-1].clone()
        buffer.copy_(out[:-1])
        return buffer

    return dist.all_reduce(both, group=group, async_op=True).get_future().then(unpack)


# --------------------------------------------------------------------------- the replicas


class DDPReplicas:
    """Data-parallel replicas on ``DistributedDataParallel`` (the Replicas protocol).

    Args:
        process_group: the group of replicas (default: the initialized world).
        no_sync: skip gradient communication on every microbatch but the last (default).
            ``False`` all-reduces after every microbatch: same gradient, A× the traffic.
        duplicates: what to do when the first group's sample ids overlap across replicas:
            ``"raise"`` (:class:`DuplicateSamplesError`), ``"warn"`` or ``"off"``.
        count_comm: attach a :class:`CommCounter` in :meth:`wrap`.
        ddp_kwargs: extra ``DistributedDataParallel`` arguments.

    Per-replica totals of the groups :meth:`record_group` counted are kept in
    :attr:`totals` (one dict per rank). Raises ``RuntimeError`` when no process group is
    initialized, ``ValueError`` for an unknown option.

    """

    def __init__(self, process_group: dist.ProcessGroup | None = None, *, no_sync: bool = True,
                 duplicates: str = "raise", count_comm: bool = True,
                 ddp_kwargs: dict[str, Any] | None = None):
        if not (dist.is_available() and dist.is_initialized()):
            raise RuntimeError("no process group is initialized: launch with torchrun (then call "
                               "gastudy.parallel.process_group.init_from_env()) or run the function with gastudy.parallel.launch.run_local")
        if duplicates not in DUPLICATE_POLICIES:
            raise ValueError(f"unknown duplicates policy {duplicates!r}; use one of {', '.join(DUPLICATE_POLICIES)}")
        self.process_group = process_group
        self.size = dist.get_world_size(process_group)
        self.rank = dist.get_rank(process_group)
        self.no_sync, self.duplicates = no_sync, duplicates
        self.counter = CommCounter(process_group) if count_comm else None
        self.ddp_kwargs = dict(ddp_kwargs or {})
        self.updates = 0
        self._agreed: tuple[int, list[int], list[int], list[int]] | None = None  # group_denominator → record_group
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

    def carry_loss(self, total: torch.Tensor) -> None:
        """Offer this replica's share of the group loss to the next gradient all-reduce (the
        last microbatch's backward), through the :class:`CommCounter` hook."""
        if self.counter is not None:
            self.counter.carry, self.counter.carried = total.detach().clone(), None

    def any_replica(self, flag: bool) -> bool:
        """True on every rank when ``flag`` is true on any (one small all-reduce): how the
        replicas agree to stop at the same group boundary."""
        t = torch.tensor([float(flag)], device=self._device)
        with self._answered():
            dist.all_reduce(t, op=dist.ReduceOp.MAX, group=self.process_group)
        return bool(t.item())

    def group_loss(self, total: torch.Tensor) -> torch.Tensor:
        """The group loss, the same on every rank: Σ of the replicas' totals ÷ D.

        Read from the gradient all-reduce that carried it; when nothing carried it (no hook
        attached, or no bucket of the loss's dtype) one small all-reduce computes it."""
        carried = self.counter.carried if self.counter is not None else None
        if self.counter is not None:
            self.counter.carry = self.counter.carried = None
        if carried is not None:
            return carried.to(total.device)
        t = total.detach().clone().to(self._device)
        with self._answered():
            dist.all_reduce(t, group=self.process_group)
        return (t / self.size).to(total.device)

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
        """The group's denominator, agreed by every replica before the first backward.

        The supervised items summed over all replicas (the engine multiplies each loss by D,
        cancelling DDP's mean → the big-batch gradient). Groups from :class:`DistributedGroupStream` carry the agreed counts; any other
        group costs one all-gather of ``[index, microbatches, items, samples]``. Raises
        :class:`ReplicaMismatchError` on every rank when the replicas' group indices or
        microbatch counts differ, and :class:`DuplicateSamplesError` (``duplicates="raise"``)
        when the first group's sample ids overlap across replicas (not checked when the ids are
        stream positions the group assigned, ``group.ids_assigned``: those never overlap).
        Records nothing: the agreed per-replica counts wait for :meth:`record_group`.
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
        if self.updates == 0 and self.duplicates != "off" and not group.ids_assigned:
            self.check_duplicates(group.sample_ids)  # assigned ids (stream positions) cannot repeat: nothing to check
        real = getattr(group, "replica_microbatches", None) or sizes
        self._agreed = (group.index, list(items), list(samples), list(real))
        return sum(items)

    def record_group(self, group: Group) -> None:
        """Count a group whose denominator was agreed, before its first backward: the update
        number (the communication counter tags every all-reduce with it), this replica's sample
        ids (:attr:`ids_per_stream`) and every replica's totals (:attr:`totals`). The engine
        calls it once per group, after :meth:`group_denominator`; raises ``RuntimeError``
        when that was not called for this group."""
        if self._agreed is None or self._agreed[0] != group.index:
            raise RuntimeError(f"record_group(group {group.index}) before its group_denominator: agree on the "
                               "denominator first (the engine does both, in this order)")
        _, items, samples, microbatches = self._agreed
        self._agreed = None
        self.updates += 1
        if not self.ids_per_stream:
            self.ids_per_stream.append([])
        self.ids_per_stream[-1] += group.sample_ids
        if self.counter is not None:
            self.counter.update = self.updates
        for r in range(self.size):
            t = self.totals[r]
            t["groups"] += 1
            t["microbatches"] += microbatches[r]
            t["samples"] += samples[r]
            t["supervised_tokens"] += items[r]

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
        return {"replicas": self.size, "no_sync": self.no_sync,
                "per_replica": copy.deepcopy(self.totals), "allreduce_per_update": comm,
                "sample_ids": self.ids_report.to_dict() if self.ids_report else None}


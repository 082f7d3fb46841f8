"""Accumulation on sharded data parallel: PyTorch's FSDP2 ``fully_shard`` (course: MB-7).

DDP keeps the whole model, its gradients and its optimizer state on every replica; FSDP2
keeps a 1/D shard of each. :class:`FSDPReplicas` is the same ``Replicas`` the engine talks to
for DDP (:class:`~gastudy.parallel.ddp.DDPReplicas`, whose group agreement, global
denominator, sample-id check and per-replica totals it inherits), with three differences:

- **wrap**: ``fully_shard`` on every marked per-layer block (:func:`~gastudy.core.checkpointing.
  marked_layers`, the blocks activation checkpointing counts) and then on the root. Call
  :func:`~gastudy.core.checkpointing.enable_checkpointing` *before* wrapping; bf16 and fp16
  get FSDP2's ``MixedPrecisionPolicy`` (16-bit parameters in forward/backward, fp32 gradient
  reduction and accumulation). Build the optimizer on the *wrapped* module's parameters:
  ``fully_shard`` replaces every parameter by its sharded ``DTensor``.
- **sync policy**: ``deferred`` calls ``set_requires_gradient_sync(False)`` on every
  microbatch but the last (FSDP2's ``no_sync``): one reduce-scatter per FSDP module per
  update, but each replica holds the **unsharded** fp32 gradients across the group.
  ``every`` reduce-scatters after every microbatch: A× the gradient traffic, and only the
  1/D gradient shard is held. :class:`ShardedCommCounter` counts both collectives per
  update; :func:`held_gradient_bytes` measures what a replica holds.
- **the gradient reduction, made explicit**: FSDP2 reduces a gradient as a SUM over the
  replicas followed by one division by its *gradient divide factor*. gastudy sets that
  factor to exactly D on every FSDP module (``set_gradient_divide_factor(D)`` with
  ``set_force_sum_reduction_for_comms(True)``: a plain SUM, then one division — no AVG or
  pre-multiplied sum, so it behaves the same on gloo and nccl). The engine's loss is the
  one every back-end gets: summed loss × D ÷ the group's items over *all* replicas
  (:class:`gastudy.core.loss.Tokens`). The ×D and the ÷D cancel —
  bit-exactly when D is a power of two, to one rounding otherwise — and the update equals
  the single-process big batch over m×A×D samples. *Why not factor 1 and no ×D?* Every
  Replicas back-end promises "the reduction averages": the ``steps``/``mean``
  normalizations, user losses and the run record's loss (the mean of the replicas' losses)
  rely on it, so one contract serves DDP and FSDP2 alike.

fp16 needs a gradient scaler whose inf/NaN check is agreed across the shards: each replica
sees only its shard of the gradient, so a plain ``GradScaler`` could skip the step on one
replica and apply it on another. :func:`engine_precision` gives the engine torch's
``ShardedGradScaler`` (it all-reduces the found-inf flag); it runs on gloo on the CPU.

The course's measurements on top of this are in :mod:`gastudy.course.demos.fsdp`; the
sharded checkpoints of a training run in :mod:`gastudy.run.sharded`.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import torch
import torch.distributed as dist
from torch import nn

from gastudy.core.checkpointing import marked_layers
from gastudy.parallel.ddp import DDPReplicas

SYNC_POLICIES = ("deferred", "every")
SHARD_PRECISIONS = ("fp32", "bf16", "fp16")


def _fsdp():
    """The FSDP2 API (imported late: ``import gastudy`` stays light)."""
    from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
    from torch.distributed.fsdp._fully_shard._fsdp_collectives import (
        DefaultAllGather,
        DefaultReduceScatter,
    )

    return FSDPModule, MixedPrecisionPolicy, fully_shard, DefaultAllGather, DefaultReduceScatter


def check_shard_settings(sync: str, precision: str) -> None:
    """Raise ``ValueError`` saying what to change for a sync policy or precision that sharded
    replicas cannot run."""
    if sync not in SYNC_POLICIES:
        raise ValueError(f"unknown sync policy {sync!r}; use 'deferred' (one reduce-scatter per update, "
                         "unsharded gradients held) or 'every' (A reduce-scatters, sharded gradients)")
    if precision not in SHARD_PRECISIONS:
        raise ValueError(f"unknown precision {precision!r} for sharded replicas; use one of {', '.join(SHARD_PRECISIONS)}")


def engine_precision(replicas: Any, kind: str, device: str = "cpu") -> Any:
    """What to pass as the engine's ``precision`` for ``replicas``: for
    fp16 on :class:`FSDPReplicas` a :class:`~gastudy.core.precision.Precision` with torch's
    ``ShardedGradScaler`` (the replicas agree on a skipped step), otherwise ``kind`` itself."""
    if kind != "fp16" or not isinstance(replicas, FSDPReplicas):
        return kind
    from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler

    from gastudy.core.precision import Precision

    return Precision("fp16", device, scaler=ShardedGradScaler(device, process_group=replicas.process_group))


# --------------------------------------------------------------------------- counting


class ShardedCommCounter:
    """Counts FSDP2's collectives per update: reduce-scatters and all-gathers, calls and bytes.

    :meth:`attach` installs counting versions of FSDP2's default collectives on every FSDP
    module (``set_custom_reduce_scatter`` / ``set_custom_all_gather``; they call the
    defaults, so the numbers computed are unchanged). ``update`` is set by
    :class:`FSDPReplicas` at the start of every update. Bytes are the reduce-scatter *input*
    (the whole unsharded gradient of a module, in the reduce dtype) and the all-gather
    *output* (the whole unsharded parameters).
    """

    KINDS = ("reduce_scatter", "all_gather")

    def __init__(self):
        self.update = 0
        self.calls: dict[str, dict[int, int]] = {k: defaultdict(int) for k in self.KINDS}
        self.bytes: dict[str, dict[int, int]] = {k: defaultdict(int) for k in self.KINDS}

    def record(self, kind: str, tensor: torch.Tensor) -> None:
        """Count one collective of ``kind`` moving ``tensor`` in the current update."""
        self.calls[kind][self.update] += 1
        self.bytes[kind][self.update] += tensor.numel() * tensor.element_size()

    def attach(self, model: nn.Module) -> nn.Module:
        """Install the counting collectives on every FSDP module of ``model``; returns it."""
        FSDPModule, _, _, DefaultAllGather, DefaultReduceScatter = _fsdp()
        counter = self

        class CountingReduceScatter(DefaultReduceScatter):
            def __call__(self, output_tensor, input_tensor, group, op, async_op=False):
                counter.record("reduce_scatter", input_tensor)
                return super().__call__(output_tensor, input_tensor, group, op, async_op)

        class CountingAllGather(DefaultAllGather):
            def __call__(self, output_tensor, input_tensor, group, async_op=False):
                counter.record("all_gather", output_tensor)
                return super().__call__(output_tensor, input_tensor, group, async_op)

        for module in model.modules():
            if isinstance(module, FSDPModule):
                module.set_custom_reduce_scatter(CountingReduceScatter())
                module.set_custom_all_gather(CountingAllGather())
        return model

    def per_update(self) -> list[dict[str, int]]:
        """``[{"update", "calls", "bytes", "reduce_scatter", "reduce_scatter_bytes", "all_gather",
        "all_gather_bytes"}, …]`` for every update that communicated; ``calls``/``bytes`` are
        the gradient reductions (reduce-scatters), as for DDP's all-reduces."""
        updates = sorted(set(self.calls["reduce_scatter"]) | set(self.calls["all_gather"]))
        rows = []
        for u in updates:
            rs, rs_b = self.calls["reduce_scatter"][u], self.bytes["reduce_scatter"][u]
            rows.append({"update": u, "calls": rs, "bytes": rs_b, "reduce_scatter": rs, "reduce_scatter_bytes": rs_b,
                         "all_gather": self.calls["all_gather"][u], "all_gather_bytes": self.bytes["all_gather"][u]})
        return rows

    def reset(self) -> None:
        """Forget everything counted so far."""
        for table in (*self.calls.values(), *self.bytes.values()):
            table.clear()


def _fsdp_params(model: nn.Module) -> list[Any]:
    """Every ``FSDPParam`` of ``model`` (FSDP2's per-parameter state; private API, read only)."""
    FSDPModule = _fsdp()[0]
    params = []
    for module in model.modules():
        if isinstance(module, FSDPModule):
            for group in module._get_fsdp_state()._fsdp_param_groups:
                params.extend(group.fsdp_params)
    return params


def held_gradient_bytes(model: nn.Module) -> dict[str, int]:
    """Gradient bytes this replica holds right now.

    ``sharded``: the reduced 1/D gradient shards (``param.grad``); ``unsharded``: full-size
    gradients FSDP2 keeps between microbatches while sync is deferred; ``total`` their sum.
    Reads FSDP2's per-parameter state (``FSDPParam``), the only place the unsharded ones live.
    """
    sharded = unsharded = 0
    for fp in _fsdp_params(model):
        grad = fp.sharded_param.grad
        if grad is not None:
            local = grad.to_local() if hasattr(grad, "to_local") else grad
            sharded += local.numel() * local.element_size()
        for t in (fp.unsharded_accumulated_grad, getattr(getattr(fp, "_unsharded_param", None), "grad", None)):
            if t is not None:
                local = t.to_local() if hasattr(t, "to_local") else t
                unsharded += local.numel() * local.element_size()
    return {"sharded": sharded, "unsharded": unsharded, "total": sharded + unsharded}


def full_gradient_bytes(model: nn.Module, dtype: torch.dtype = torch.float32) -> int:
    """Bytes of the model's whole (unsharded) gradient in ``dtype`` — what one DDP replica holds."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad) * torch.empty((), dtype=dtype).element_size()


def full_tensors(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``DTensor`` values made whole (an all-gather each: call on every rank, same keys); plain
    tensors are returned as they are."""
    return {n: (t.full_tensor() if hasattr(t, "full_tensor") else t) for n, t in tensors.items()}


# --------------------------------------------------------------------------- the replicas


class FSDPReplicas(DDPReplicas):
    """Sharded data-parallel replicas on FSDP2 ``fully_shard`` (the Replicas protocol).

    Args:
        process_group: the group of replicas (default: the initialized world).
        sync: ``"deferred"`` (reduce-scatter on the last microbatch only) or ``"every"``.
        precision: ``"fp32"``, ``"bf16"`` or ``"fp16"`` (FSDP2 ``MixedPrecisionPolicy``: 16-bit
            parameters, fp32 gradient reduction); give the engine
            :func:`engine_precision` of the same (fp16 needs the sharded scaler).
        duplicates: as for :class:`~gastudy.parallel.ddp.DDPReplicas`.
        count_comm: count reduce-scatters and all-gathers per update (:attr:`counter`).
        measure_memory: record :func:`held_gradient_bytes` after every microbatch; the peak
            of each update is in :attr:`peak_gradient_bytes` (update number → bytes).
        reshard_after_forward: FSDP2's option for the blocks (the root never reshards).

    Everything the replicas agree on before a group (sizes, keep/drop of a short last
    group, sample ids, the global denominator) is :class:`DDPReplicas`'s, so an uneven or
    mismatched group raises :class:`~gastudy.parallel.agreement.ReplicaMismatchError` on
    every rank before any backward. Raises ``RuntimeError`` without a process group.

    """

    def __init__(self, process_group: dist.ProcessGroup | None = None, *, sync: str = "deferred",
                 precision: str = "fp32", duplicates: str = "raise",
                 count_comm: bool = True, measure_memory: bool = True, reshard_after_forward: bool = True):
        check_shard_settings(sync, precision)
        super().__init__(process_group, no_sync=sync == "deferred", duplicates=duplicates, count_comm=False)
        self.sync_policy, self.precision = sync, precision
        self.counter = ShardedCommCounter() if count_comm else None
        self.measure_memory, self.reshard_after_forward = measure_memory, reshard_after_forward
        self.peak_gradient_bytes: dict[int, int] = {}
        self.sharded_modules = 0
        self.unsharded_gradient_bytes = 0

    def wrap(self, model: nn.Module) -> nn.Module:
        """Shard ``model`` in place and return it.

        Parameters are first broadcast from rank 0 (every replica starts from the same
        weights, as with DDP); then ``fully_shard`` is applied to each marked block and to the
        root, the gradient divide factor is set to D with sum-only reductions, and the
        counting collectives are attached. The returned module *is* ``model``, now with
        ``DTensor`` parameters: build the optimizer from it afterwards. Enable activation
        checkpointing before wrapping. A module that is already sharded is returned as is.
        """
        FSDPModule, MixedPrecisionPolicy, fully_shard, _, _ = _fsdp()
        if isinstance(model, FSDPModule):
            return model
        from torch.distributed.device_mesh import DeviceMesh

        with self._answered(), torch.no_grad():
            for t in [*model.parameters(), *model.buffers()]:
                dist.broadcast(t.data, src=dist.get_global_rank(self.process_group, 0) if self.process_group else 0,
                               group=self.process_group)
        self.unsharded_gradient_bytes = full_gradient_bytes(model)
        mesh = DeviceMesh.from_group(self.process_group or dist.group.WORLD, self._device.type)
        half = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(self.precision)
        mp = MixedPrecisionPolicy(param_dtype=half, reduce_dtype=torch.float32 if half else None)
        blocks = marked_layers(model)
        for block in blocks:
            fully_shard(block, mesh=mesh, mp_policy=mp, reshard_after_forward=self.reshard_after_forward)
        fully_shard(model, mesh=mesh, mp_policy=mp)
        self.sharded_modules = len(blocks) + 1
        for module in model.modules():
            if isinstance(module, FSDPModule):
                module.set_gradient_divide_factor(float(self.size))
                module.set_force_sum_reduction_for_comms(True)
        if self.counter is not None:
            self.counter.attach(model)
        return model

    def sync(self, model: nn.Module, last: bool) -> contextlib.AbstractContextManager:
        """The context one microbatch's forward *and* backward run in:
        gradient sync on for the last microbatch (``deferred``) or for all (``every``).

        After the backward the held gradient bytes are measured (``measure_memory``). If the
        microbatch raises, FSDP2's per-iteration state is reset (``reset_iter_state``), so no
        half-accumulated unsharded gradient leaks into the next group. Raises ``TypeError``
        for a model that was not sharded with :meth:`wrap`.
        """
        FSDPModule = _fsdp()[0]
        if not isinstance(model, FSDPModule):
            raise TypeError(f"the engine's model is a {type(model).__name__}, not a fully_shard module: its "
                            "gradients would never be reduced across replicas; pass replicas.wrap(model)")
        return self._sync(model, last or self.sync_policy == "every")

    @contextlib.contextmanager
    def _sync(self, model: nn.Module, requires_sync: bool) -> Iterator[None]:
        model.set_requires_gradient_sync(requires_sync)
        try:
            yield
        except BaseException:
            model.reset_iter_state()
            for fp in _fsdp_params(model):  # the deferred gradients of the failed group
                fp.unsharded_accumulated_grad = None
                if getattr(fp, "_unsharded_param", None) is not None:
                    fp._unsharded_param.grad = None
            raise
        finally:
            model.set_requires_gradient_sync(True)
        if self.measure_memory:
            held = held_gradient_bytes(model)["total"]
            self.peak_gradient_bytes[self.updates] = max(self.peak_gradient_bytes.get(self.updates, 0), held)

    def carry_loss(self, total: torch.Tensor) -> None:
        """Nothing is carried: FSDP2's reduce-scatter has no room for the loss (see :meth:`group_loss`)."""

    def group_loss(self, total: torch.Tensor) -> torch.Tensor:
        """The group loss, the same on every rank: Σ of the replicas' totals ÷ D (one small
        all-reduce, not counted with the gradient collectives)."""
        t = total.detach().clone().to(self._device)
        with self._answered():
            dist.all_reduce(t, group=self.process_group)
        return (t / self.size).to(total.device)

    def summary(self) -> dict[str, Any]:
        """:meth:`DDPReplicas.summary` plus the sharding: ``sharding`` (``"fsdp2"``), ``sync``,
        ``sharded_modules``, ``collectives_per_update`` (reduce-scatters and all-gathers),
        ``peak_gradient_bytes`` per update and ``unsharded_gradient_bytes`` (DDP's per replica)."""
        out = super().summary()
        comm = self.counter.per_update() if self.counter else []
        out.update({"sharding": "fsdp2", "sync": self.sync_policy, "precision": self.precision,
                    "sharded_modules": self.sharded_modules, "allreduce_per_update": comm,
                    "collectives_per_update": comm,
                    "peak_gradient_bytes": [{"update": u, "bytes": b} for u, b in sorted(self.peak_gradient_bytes.items())],
                    "unsharded_gradient_bytes": self.unsharded_gradient_bytes})
        return out

    def describe(self) -> str:
        """One line for the run record: the sharding, the sync policy and the collectives per update."""
        comm = self.counter.per_update() if self.counter else []
        rs = sorted({c["reduce_scatter"] for c in comm})
        ag = sorted({c["all_gather"] for c in comm})
        peak = max(self.peak_gradient_bytes.values(), default=0)
        show = lambda v: v if len(v) > 1 else (v[0] if v else 0)  # noqa: E731
        return (f"sharded data parallel: FSDP2 fully_shard on {self.sharded_modules - 1} marked blocks + the root, "
                f"D={self.size}, sync {self.sync_policy}, {self.precision}; reduce-scatter calls per update: "
                f"{show(rs)}, all-gather calls per update: {show(ag)}; peak gradient bytes held per replica: {peak} "
                f"(unsharded gradient: {self.unsharded_gradient_bytes})")


def make_replicas(shard: bool = False, sync: str = "deferred", no_sync: bool = True, precision: str = "fp32",
                  **kwargs: Any) -> DDPReplicas:
    """The data-parallel replicas a command asked for: :class:`FSDPReplicas` (``shard``, with
    ``sync`` and ``precision``) or :class:`DDPReplicas` (with ``no_sync``). ``kwargs`` go to
    the constructor (``denominator``, ``duplicates``, …)."""
    if shard:
        return FSDPReplicas(sync=sync, precision=precision, **kwargs)
    return DDPReplicas(no_sync=no_sync, **kwargs)

"""The accumulation engine: microbatches → one correct optimizer update (MB-1, MB-4, MB-5, MB-6).

The whole update, as taught in the course::

    denominator = replicas.group_denominator(group)       # fixed before the first backward
    for each microbatch (the last one syncs gradients across replicas):
        forward → normalized loss → backward               # no update, nothing kept
    unscale → clip (unscaled) → step → scaler update
    scheduler step only if the update was applied → zero the gradients

Everything else (precision, normalization, replicas, user loss) is an argument.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn

from gastudy.core.counting import check_task
from gastudy.core.data import NON_INPUT_KEYS
from gastudy.core.groups import Group, check_fits, fit_limits
from gastudy.core.loss import check_normalization, sum_of_losses, summed_loss
from gastudy.core.plan import check_positive_int
from gastudy.core.precision import Precision
from gastudy.core.replicas import Replicas, SingleReplica

UserLoss = Callable[[Any, Mapping[str, torch.Tensor], int], torch.Tensor]


class NonFiniteLossError(FloatingPointError):
    """The group's loss is NaN or inf in a run without a gradient scaler."""


class EmptyGroupError(ValueError):
    """A group has no supervised item, so its denominator would be zero."""


@dataclass
class Counters:
    """Progress counters, each in its own unit (MB-1, MB-6). All are local to this replica.

    - microbatches: forward passes run inside completed updates.
    - backward_passes: backward calls (one per microbatch).
    - updates_attempted: optimizer steps attempted (one per group).
    - updates_applied: attempted steps that changed the parameters (a scaler can skip one).
    - scheduler_steps: learning-rate scheduler steps (equal to updates_applied when correct).
    - samples: samples processed; supervised_tokens: supervised items processed.
    """

    microbatches: int = 0
    backward_passes: int = 0
    updates_attempted: int = 0
    updates_applied: int = 0
    scheduler_steps: int = 0
    samples: int = 0
    supervised_tokens: int = 0

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class UpdateResult:
    """What one update did.

    ``loss`` is the group's loss (nats) — the quantity whose gradient the update applied — the
    same number on every replica: the normalized microbatch losses summed over the group's
    microbatches and replicas ÷ D. With ``tokens`` normalization that is the token-weighted mean
    loss of the whole group (Σ per-item losses ÷ the group's supervised items, over all
    replicas), computed in the model's precision (float64 for a float64 model, float32 or wider
    otherwise). With D replicas it rides along the last microbatch's gradient all-reduce where
    the back-end allows (no extra collective). ``denominator``
    is the group's supervised items over all replicas. ``grad_norm`` is the unscaled total
    norm when clipping is on. ``scale`` is the loss scale the group used (fp16), ``lr`` the
    learning rate the step used.
    """

    group: int
    loss: float
    applied: bool
    denominator: int
    microbatches: int
    samples: int
    lr: float
    grad_norm: float | None = None
    scale: float | None = None


def on_device(batch: Mapping[str, torch.Tensor], device: torch.device) -> dict[str, torch.Tensor]:
    """Every tensor of ``batch`` on ``device`` (labels included: the loss runs where the logits are);
    other values (a collator's ints, e.g. ``max_length_q``) pass through unchanged."""
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}


PLAIN = (nn.Parameter, torch.Tensor)  # parameter types whose gradients are plain tensors (not DTensor shards)


def gradients_finite(parameters: Iterable[torch.Tensor]) -> bool:
    """True when every gradient of ``parameters`` is finite (no inf, no NaN); ``None`` grads pass.

    One fused pass per device (``torch._amp_foreach_non_finite_check_and_unscale_`` with a
    scale of 1, the check a gradient scaler runs; it reads every gradient and writes it back
    unchanged), then one host sync. Sharded (DTensor) gradients are checked on this rank's
    shard only (the engine makes the replicas agree: ``Replicas.all_replicas``); sparse ones
    and dtypes the kernel refuses are checked one tensor at a time. The engine keeps one
    :class:`FiniteCheck` built on its parameters instead, which reuses its flag tensors and
    skips the type and device tests: in ``benchmarks/bench_engine.py`` the check is part of the
    engine's 12–35 µs per update over a plain loop on the tiny classifier (about 1.5k
    gradients); a fused pass over tiny-gpt's 54k gradients took 42 µs on one CPU core.
    Course: MB-5.
    """
    return FiniteCheck()(parameters)


class FiniteCheck:
    """:func:`gradients_finite` that keeps its flag and its factor 1 (one pair per device)
    from call to call: a flag is reset only after it fired, so a finite check allocates nothing.
    One instance per engine (not shared between threads). Course: MB-5.

    Built with ``parameters`` (the engine's own list, read once), it is called with no
    argument and checks those: when they are all plain ``Parameter``/``Tensor`` objects on one
    device, their gradients go to the fused kernel as they are (no per-call test for DTensor
    shards, no device lookup); a gradient the kernel refuses (sparse) takes the general path.
    Called without ``parameters`` when built without them, it raises ``TypeError``.
    """

    def __init__(self, parameters: Iterable[torch.Tensor] | None = None) -> None:
        self._buffers: dict[torch.device, tuple[torch.Tensor, torch.Tensor]] = {}
        self._parameters = None if parameters is None else list(parameters)
        devices = {p.device for p in self._parameters or ()}
        plain = len(devices) == 1 and all(type(p) in PLAIN for p in self._parameters)
        # plain parameters on one device: their gradients go to the fused kernel as they are
        self._fast = self._flags(devices.pop()) if plain else None

    def __call__(self, parameters: Iterable[torch.Tensor] | None = None) -> bool:
        if parameters is None:
            if self._parameters is None:
                raise TypeError("this FiniteCheck was built without parameters: call it with the parameters to check")
            parameters = self._parameters
            if self._fast is not None:  # None: no gradient, or one the kernel does not take (sparse)
                flag = self._checked(self._fast, [g for p in parameters if (g := p.grad) is not None])
                if flag is not None:
                    return self._read([flag])
        grads = [g for p in parameters if (g := p.grad) is not None]
        if not grads:
            return True
        if set(map(type, grads)) == {torch.Tensor}:  # not DTensor shards: try all at once
            flag = self._checked(self._flags(grads[0].device), grads)
            if flag is not None:
                return self._read([flag])
        by_device: dict[torch.device, list[torch.Tensor]] = {}
        for g in grads:
            g = getattr(g, "_local_tensor", g)  # a DTensor's local shard
            if g.is_sparse:
                g = g.coalesce().values()
            by_device.setdefault(g.device, []).append(g)
        flags = []
        for device, group in by_device.items():
            flag = self._checked(self._flags(device), group)
            if flag is None:  # a dtype or layout the fused kernel does not take
                flag = torch.stack([~g.isfinite().all() for g in group]).any().float().reshape(1)
            flags.append(flag)
        return self._read(flags)

    def _checked(self, flags: tuple[torch.Tensor, torch.Tensor], grads: list[torch.Tensor]) -> torch.Tensor | None:
        """The flag of ``flags`` (a device's kept flag and factor 1) after the fused check of
        ``grads`` (1 if one is not finite); ``None`` (flag reset) when the kernel refuses them:
        several devices, sparse, another dtype."""
        flag, one = flags
        try:
            torch._amp_foreach_non_finite_check_and_unscale_(grads, flag, one)
        except (RuntimeError, TypeError):
            flag.zero_()  # it may have fired on the gradients it read before refusing
            return None
        return flag

    def _flags(self, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """The device's kept flag (0: nothing fired) and factor 1."""
        if device not in self._buffers:
            self._buffers[device] = (torch.zeros(1, device=device), torch.ones(1, device=device))
        return self._buffers[device]

    def _read(self, flags: list[torch.Tensor]) -> bool:
        fired = bool(flags[0].item()) if len(flags) == 1 else float(torch.cat([f.to("cpu") for f in flags]).sum()) > 0
        if fired:
            for flag, _ in self._buffers.values():
                flag.zero_()
        return not fired


def model_inputs(batch: Mapping[str, torch.Tensor], device: torch.device,
                 dtype: torch.dtype | None = None) -> dict[str, torch.Tensor]:
    """The keyword arguments for ``model(**...)``: every batch key except labels and ids,
    moved to ``device``; floating-point inputs are cast to ``dtype`` (the model's) if given.
    Values that are not tensors (a collator's ints) are passed as they are; a tensor already
    where and what it should be is passed as it is."""
    inputs = {}
    for k, v in batch.items():
        if k in NON_INPUT_KEYS:
            continue
        if isinstance(v, torch.Tensor):
            want = dtype if dtype is not None and v.is_floating_point() else v.dtype
            if v.dtype != want or v.device != device:
                v = v.to(device, dtype=want)
        inputs[k] = v
    return inputs


class Accumulator:
    """Turns groups of microbatches into optimizer updates, correctly (course: MB-4).

    Args:
        model: any ``nn.Module`` called as ``model(**inputs)``, returning logits or an object
            with ``.logits`` (Hugging Face style causal LMs work unchanged).
        optimizer: the optimizer over the model's parameters.
        accumulation_steps: A, microbatches per full group (≥ 1).
        task: ``causal`` (shifted count), ``masked`` or ``classification`` (GA-5).
        normalization: ``tokens`` (default, correct), ``steps`` or ``mean`` (GA-4, MB-3).
        precision: ``fp32``, ``bf16`` or ``fp16``, or a :class:`Precision` (MB-5).
        scheduler: stepped once per *applied* update, never per microbatch (MB-6).
        clip_grad_norm: max total gradient norm, applied to unscaled gradients.
        loss_fn: a user loss ``loss_fn(output, batch, num_items_in_group) -> Tensor``.
        loss_is_scaled_for_ga: True if ``loss_fn`` already divides by ``num_items_in_group``
            (used as is); False if it returns a per-microbatch mean (the engine divides it by
            the group's real number of microbatches). Never both: that is the double
            division of GA-6.
        replicas: data-parallel replicas (default: one process).

    Raises ``ValueError`` for a bad A, task, normalization or precision, a model without
    parameters or with every parameter frozen, a ``ReduceLROnPlateau`` scheduler (it steps on a
    metric: step it yourself), a scheduler built on another optimizer, an optimizer that holds
    none of the model's parameters, or a scaler that does not match the precision or device;
    warns when the optimizer holds only some of the trainable parameters; ``TypeError`` for replicas that do not
    implement the :class:`~gastudy.core.replicas.Replicas` methods the update calls.
    """

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        *,
        accumulation_steps: int,
        task: str = "causal",
        normalization: str = "tokens",
        precision: str | Precision = "fp32",
        scheduler: Any = None,
        clip_grad_norm: float | None = None,
        loss_fn: UserLoss | None = None,
        loss_is_scaled_for_ga: bool = False,
        replicas: Replicas | None = None,
        ignore_index: int = -100,
    ):
        self.accumulation_steps = check_positive_int("accumulation_steps (A)", accumulation_steps)
        self.task, self.normalization = check_task(task), check_normalization(normalization)
        first = next(model.parameters(), None)
        if first is None:
            raise ValueError("the model has no parameters: there is nothing for an optimizer to update")
        if not any(p.requires_grad for p in model.parameters()):
            raise ValueError("every parameter of the model is frozen (requires_grad=False): unfreeze the ones to "
                             "train before building the optimizer")
        if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            raise ValueError("ReduceLROnPlateau steps on a metric you measure, which the engine does not have: pass "
                             "scheduler=None and call scheduler.step(metric) yourself after each evaluation")
        self.device, self.dtype = first.device, first.dtype
        self.precision = precision if isinstance(precision, Precision) else Precision(precision, self.device.type)
        if scheduler is not None and getattr(scheduler, "optimizer", optimizer) is not optimizer:
            raise ValueError("the scheduler was built on a different optimizer than the one given: "
                             "build it as Scheduler(optimizer, ...) with this optimizer")
        model_params = {id(p) for p in model.parameters()}
        held = {id(p) for g in optimizer.param_groups for p in g["params"]} & model_params
        if not held:
            raise ValueError("the optimizer holds none of the model's parameters: build it from model.parameters()")
        trainable = [p for p in model.parameters() if p.requires_grad]
        left_out = sum(id(p) not in held for p in trainable)
        if left_out:
            import warnings

            warnings.warn(f"the optimizer holds {len(trainable) - left_out} of the model's {len(trainable)} trainable "
                          f"parameters: the other {left_out} get gradients but are never updated (freeze them, or "
                          "build the optimizer from model.parameters())", stacklevel=2)
        if clip_grad_norm is not None and not clip_grad_norm > 0:
            raise ValueError(f"clip_grad_norm must be > 0 (or None to disable), got {clip_grad_norm}")
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.clip_grad_norm, self.ignore_index = clip_grad_norm, ignore_index
        self.loss_fn, self.loss_is_scaled_for_ga = loss_fn, loss_is_scaled_for_ga
        self.replicas = replicas or SingleReplica()
        missing = [m for m in ("group_denominator", "sync", "carry_loss", "group_loss", "all_replicas") if not hasattr(self.replicas, m)]
        if missing:
            raise TypeError(f"replicas of type {type(self.replicas).__name__} lack {', '.join(missing)}: implement "
                            "the gastudy.core.replicas.Replicas protocol (or pass DDPReplicas / nothing for one process)")
        self.counters = Counters()
        # read once, not per group: the parameters the finite check and clipping read (the optimizer
        # holds these very objects), the vocabulary and positions check_fits compares ids with, and
        # the dtype the group loss is summed in (float64 for a float64 model)
        self._parameters = list(model.parameters())
        self._finite = FiniteCheck(self._parameters)
        self._fit_limits = fit_limits(model)
        self._loss_dtype = torch.promote_types(self.dtype, torch.float32)
        # running statistics (BatchNorm & co.) a refused group must not leave changed
        self._stat_buffers = [b for m in model.modules() if isinstance(m, nn.modules.batchnorm._NormBase)
                              for b in m.buffers(recurse=False)]
        optimizer.zero_grad(set_to_none=True)  # a group starts from zero gradients

    def update(self, group: Group) -> UpdateResult:
        """Run one group's microbatches and one optimizer update (MB-4).

        Raises :class:`EmptyGroupError` (before any forward) when the group has no
        supervised item, ``ValueError`` when it was counted for another task, ``ValueError`` for
        token ids or sequence lengths the model cannot embed (:func:`~gastudy.core.groups.check_fits`),
        ``ValueError`` for logits/labels that do not line up, and
        :class:`NonFiniteLossError` for a NaN/inf loss or an inf/NaN gradient behind a finite
        loss without a scaler (checked with or without clipping: :func:`gradients_finite`; with
        a scaler, the scaler skips such a step and counts it as not applied). On any error the
        partly accumulated gradients are cleared and the parameters, optimizer, scheduler,
        counters and running statistics (BatchNorm buffers) are left as they were.
        """
        if group.task != self.task:
            raise ValueError(f"group {group.index} was counted for task {group.task!r} but the engine trains "
                             f"{self.task!r}: build the groups with task={self.task!r}")
        if group.accumulation_steps != self.accumulation_steps:
            raise ValueError(f"group {group.index} was built for A={group.accumulation_steps} but the engine runs "
                             f"A={self.accumulation_steps}: build the groups with accumulation_steps="
                             f"{self.accumulation_steps}")
        check_fits(group, self.model, self._fit_limits)  # ids and lengths the model can embed, before any forward
        denominator = self.replicas.group_denominator(group)  # known before the first backward
        if denominator == 0:
            raise EmptyGroupError(f"group {group.index} has no supervised item (all labels are "
                                  f"{self.ignore_index}): there is nothing to learn from; drop these samples")
        # this replica's share of the group loss, a number for the log (never the graph), in the
        # model's precision: float64 for a float64 model; the sum of the microbatches' detached losses
        total = None
        saved_stats = [b.clone() for b in self._stat_buffers]  # restored if the group is refused
        try:
            final = group.size - 1
            for i, mb in enumerate(group.microbatches):
                last = i == final
                with self.replicas.sync(self.model, last=last):
                    with self.precision.autocast():
                        output = self.model(**model_inputs(mb, self.device, self.dtype))
                        loss = self.microbatch_loss(output, mb, group, denominator)
                    part = loss.detach()
                    part = part if part.dtype == self._loss_dtype else part.to(self._loss_dtype)
                    total = part if total is None else total + part
                    if last:  # offered before the last backward: its gradient all-reduce can carry it
                        self.replicas.carry_loss(total)
                    self.precision.backward(loss)
            group_loss = float(self.replicas.group_loss(total))  # the same on every replica
            if self.precision.scaler is None and not math.isfinite(group_loss):
                raise NonFiniteLossError(f"group {group.index}: the loss is {group_loss} without a gradient "
                                         "scaler; lower the learning rate, check the data, or use fp16 with a scaler")
            if (self.precision.scaler is None and self.clip_grad_norm is None
                    and not self.replicas.all_replicas(self._finite())):
                # with clipping, its (global) norm tells; sharded replicas agree on their shards' answers
                raise NonFiniteLossError(f"group {group.index}: a gradient is inf/NaN behind a finite loss "
                                         f"({group_loss}) without a gradient scaler; nothing was updated — check "
                                         "the model and the data")
            return self.apply_update(group, denominator, group_loss)
        except BaseException:
            self.optimizer.zero_grad(set_to_none=True)  # leave no half-accumulated gradient behind
            for buffer, saved in zip(self._stat_buffers, saved_stats):
                buffer.copy_(saved)
            raise

    def microbatch_loss(self, output: Any, batch: Mapping[str, torch.Tensor], group: Group, denominator: int) -> torch.Tensor:
        """One microbatch's contribution to the group loss, normalized once (GA-4, GA-6, MB-3).

        The factor D (replicas) cancels the gradient averaging of data parallelism, so the
        result equals the single-process big batch over all m×A×D samples.
        """
        if self.loss_fn is not None:
            loss = self.loss_fn(output, on_device(batch, self.device), denominator)
            return loss * self.replicas.size if self.loss_is_scaled_for_ga else loss / group.size
        if self.normalization == "tokens":  # the denominator is counted already: no count here
            return sum_of_losses(output, batch, self.task, self.ignore_index) * (self.replicas.size / denominator)
        loss_sum, items = summed_loss(output, batch, self.task, self.ignore_index)
        mean = loss_sum / max(items, 1)  # a microbatch without items contributes zero
        return mean / (self.accumulation_steps if self.normalization == "steps" else group.size)

    def apply_update(self, group: Group, denominator: int, loss: float) -> UpdateResult:
        """Unscale → clip → step → scaler update → scheduler (if applied) → zero grads (MB-4, MB-5)."""
        scale = self.precision.scale
        lr = float(self.optimizer.param_groups[0]["lr"])
        self.precision.unscale_(self.optimizer)
        grad_norm = None
        if self.clip_grad_norm is not None:
            grad_norm = float(torch.nn.utils.clip_grad_norm_(self._parameters, self.clip_grad_norm))
            if self.precision.scaler is None and not math.isfinite(grad_norm):
                self.optimizer.zero_grad(set_to_none=True)  # a finite loss, but an inf/NaN gradient
                raise NonFiniteLossError(f"group {group.index}: the gradient norm is {grad_norm} without a "
                                         "gradient scaler; nothing was updated — check the model and the data")
        applied = self.precision.step(self.optimizer)
        if applied and self.scheduler is not None:
            self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        c, size, samples = self.counters, group.size, group.samples
        c.microbatches += size
        c.backward_passes += size
        c.updates_attempted += 1
        c.updates_applied += int(applied)
        c.scheduler_steps += int(applied and self.scheduler is not None)
        c.samples += samples
        c.supervised_tokens += group.supervised_items
        return UpdateResult(group.index, loss, applied, denominator, size, samples, lr, grad_norm, scale)

    def train(self, groups: Iterable[Group], progress: bool = False,
              on_update: Callable[[UpdateResult], None] | None = None) -> list[UpdateResult]:
        """Apply :meth:`update` to every group; optional tqdm progress bar and callback."""
        if progress:
            from tqdm.auto import tqdm

            groups = tqdm(groups, desc="updates", unit="update")
        results = []
        for group in groups:
            results.append(self.update(group))
            if on_update is not None:
                on_update(results[-1])
        return results

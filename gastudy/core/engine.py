"""The accumulation engine: microbatches → one correct optimizer update (course: MB-1, MB-4…MB-6).

:meth:`Accumulator.update` is the course's plain loop, with its options as objects it is
given (a :class:`~gastudy.core.loss.Normalization`, a :class:`~gastudy.core.precision.Precision`,
:class:`~gastudy.core.replicas.Replicas`)::

    denominator = replicas.group_denominator(group)        # fixed before the first backward
    replicas.record_group(group)                           # its bookkeeping, one explicit step
    for each microbatch (only the last one syncs gradients across replicas):
        forward → its share of the group loss → backward   # no step, nothing kept
    unscale → one finite check → clip → step → scaler update
    scheduler step only if the update was applied → zero the gradients → count

A group that fails is rolled back: no half-accumulated gradient, no changed running statistic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

import torch
from torch import nn

from gastudy.core.counting import check_task
from gastudy.core.data import NON_INPUT_KEYS
from gastudy.core.groups import Group, check_fits, fit_limits
from gastudy.core.loss import Normalization, Tokens, UserLoss, YourLoss, as_normalization
from gastudy.core.plan import check_positive_int
from gastudy.core.precision import Precision
from gastudy.core.replicas import Replicas, SingleReplica


class NonFiniteLossError(FloatingPointError):
    """The group's loss is NaN or inf in a run without a gradient scaler."""


class EmptyGroupError(ValueError):
    """A group has no supervised item, so its denominator would be zero."""


@dataclass
class Counters:
    """Progress counters, each in its own unit, local to this replica.

    - microbatches: forward passes run inside completed updates.
    - backward_passes: backward calls (one per microbatch).
    - updates_attempted: optimizer steps attempted (one per group).
    - updates_applied: attempted steps that changed the parameters (a scaler can skip one).
    - scheduler_steps: learning-rate scheduler steps (equal to updates_applied when correct).
    - samples: samples processed; supervised_tokens: supervised items processed.

    The run record (:class:`~gastudy.core.record.RunRecord`) carries the same fields.
    """

    microbatches: int = 0
    backward_passes: int = 0
    updates_attempted: int = 0
    updates_applied: int = 0
    scheduler_steps: int = 0
    samples: int = 0
    supervised_tokens: int = 0

    def add(self, group: Group, applied: bool, scheduled: bool) -> None:
        """Count one completed update of ``group`` (``applied``: the step changed the
        parameters; ``scheduled``: the scheduler stepped)."""
        self.microbatches += group.size
        self.backward_passes += group.size
        self.updates_attempted += 1
        self.updates_applied += int(applied)
        self.scheduler_steps += int(scheduled)
        self.samples += group.samples
        self.supervised_tokens += group.supervised_items

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def over_replicas(cls, per_replica: Iterable[Mapping[str, int]]) -> Counters:
        """The run's totals from every replica's counters: microbatches, backward passes,
        samples and supervised tokens summed; updates and scheduler steps, the same on every
        replica, taken from the first."""
        rows = list(per_replica)
        summed = {"microbatches", "backward_passes", "samples", "supervised_tokens"}
        return cls(**{f.name: sum(int(r.get(f.name, 0)) for r in rows) if f.name in summed else int(rows[0].get(f.name, 0))
                      for f in fields(cls)})


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


def model_inputs(batch: Mapping[str, torch.Tensor], device: torch.device,
                 dtype: torch.dtype | None = None, model: nn.Module | None = None) -> dict[str, torch.Tensor]:
    """The keyword arguments for ``model(**...)``: every batch key except labels and ids,
    moved to ``device``; floating-point inputs are cast to ``dtype`` (the model's) if given.
    Values that are not tensors (a collator's ints) are passed as they are; a tensor already
    where and what it should be is passed as it is. Given the ``model``, an encoder-decoder
    (``config.is_encoder_decoder``, e.g. T5, BART) whose batch has ``labels`` but no
    ``decoder_input_ids`` gets them from the labels as the model itself would build them
    (``prepare_decoder_input_ids_from_labels``, what ``DataCollatorForSeq2Seq`` adds): its
    decoder needs them once the labels are not passed."""
    inputs = {}
    for k, v in batch.items():
        if k in NON_INPUT_KEYS:
            continue
        if isinstance(v, torch.Tensor):
            want = dtype if dtype is not None and v.is_floating_point() else v.dtype
            if v.dtype != want or v.device != device:
                v = v.to(device, dtype=want)
        inputs[k] = v
    prepare = getattr(model, "prepare_decoder_input_ids_from_labels", None)
    if prepare is not None and getattr(getattr(model, "config", None), "is_encoder_decoder", False) \
            and "labels" in batch and "decoder_input_ids" not in inputs and "decoder_inputs_embeds" not in inputs:
        inputs["decoder_input_ids"] = prepare(labels=batch["labels"].to(device))
    return inputs


class Rollback:
    """``with rollback:`` — on any error inside, the half-accumulated gradients are cleared and
    ``buffers`` (running statistics such as BatchNorm's) restored, so a refused group leaves no
    trace. Reusable: each entry saves the buffers afresh."""

    def __init__(self, optimizer: torch.optim.Optimizer, buffers: list[torch.Tensor]):
        self.optimizer, self.buffers, self.saved = optimizer, buffers, []

    def __enter__(self) -> None:
        self.saved = [b.clone() for b in self.buffers]

    def __exit__(self, kind: type | None, error: BaseException | None, traceback: Any) -> bool:
        if kind is not None:
            self.optimizer.zero_grad(set_to_none=True)
            for buffer, before in zip(self.buffers, self.saved):
                buffer.copy_(before)
        return False


def total_norm(parameters: list[torch.Tensor], norm_type: float = 2.0) -> torch.Tensor:
    """The ``norm_type``-norm of all gradients of ``parameters`` (0 without any): with 2, the
    value clipping compares with ``max_norm``; with ``inf``, the largest magnitude. 16-bit
    gradients are normed in float32 (their sum of squares overflows long before their values
    do); a sparse gradient counts by its values; sharded (DTensor) gradients give a sharded
    norm (:func:`whole`)."""
    grads = [g.coalesce().values() if g.is_sparse else g for p in parameters if (g := p.grad) is not None]
    if any(g.dtype in (torch.float16, torch.bfloat16) for g in grads):
        norms = [torch.linalg.vector_norm(g, norm_type, dtype=torch.float32) for g in grads]
        return torch.linalg.vector_norm(torch.stack(norms), norm_type)
    return torch.nn.utils.get_total_norm(grads, norm_type)


class FiniteCheck:
    """Is every gradient of ``parameters`` finite (no inf, no NaN; no gradient passes)?

    The fused check a ``GradScaler`` runs (one read per device, values unchanged), with the
    flag and the factor 1 kept from call to call, so a check allocates nothing. Sharded
    (DTensor) gradients are judged by their largest magnitude over every shard instead, so all
    replicas get the same answer (a collective)."""

    def __init__(self, parameters: list[torch.Tensor]):
        self.parameters = parameters
        self.sharded = any(hasattr(p, "full_tensor") for p in parameters)
        self.flags: dict[torch.device, tuple[torch.Tensor, torch.Tensor]] = {}

    def __call__(self) -> bool:
        if self.sharded:
            return math.isfinite(whole(total_norm(self.parameters, math.inf)))
        grads = [g.coalesce().values() if g.is_sparse else g for p in self.parameters if (g := p.grad) is not None]
        devices = {g.device for g in grads}
        fired = False
        for device in devices:
            if device not in self.flags:
                self.flags[device] = torch.zeros(1, device=device), torch.ones(1, device=device)
            flag, one = self.flags[device]
            torch._amp_foreach_non_finite_check_and_unscale_(
                grads if len(devices) == 1 else [g for g in grads if g.device == device], flag, one)
            if flag.item():
                fired = True
                flag.zero_()
        return not fired


def whole(norm: torch.Tensor) -> float:
    """A norm as a number, the same on every replica: a sharded norm is reduced first."""
    return float(norm.full_tensor() if hasattr(norm, "full_tensor") else norm)


class Accumulator:
    """Turns groups of microbatches into optimizer updates, correctly.

    Args:
        model: any ``nn.Module`` called as ``model(**inputs)``, returning logits or an object
            with ``.logits`` (Hugging Face style causal LMs work unchanged).
        optimizer: the optimizer over the model's parameters.
        accumulation_steps: A, microbatches per full group (≥ 1).
        task: ``causal`` (shifted count), ``masked`` or ``classification``.
        normalization: ``"tokens"`` (the default, :class:`~gastudy.core.loss.Tokens`) or a
            :class:`~gastudy.core.loss.Normalization` object.
        precision: ``fp32``, ``bf16`` or ``fp16``, or a :class:`Precision`.
        scheduler: stepped once per *applied* update, never per microbatch.
        clip_grad_norm: max total gradient norm, applied to unscaled gradients.
        loss_fn, loss_is_scaled_for_ga: your own loss ``loss_fn(output, batch,
            num_items_in_group)``; see :class:`~gastudy.core.loss.YourLoss`.
        replicas: data-parallel replicas (default: one process).
        ignore_index: the label value the default normalization ignores.

    Raises ``ValueError`` for a bad A, task, normalization or precision, a model without
    parameters or with every parameter frozen, a ``ReduceLROnPlateau`` scheduler (it steps on a
    metric: step it yourself), a scheduler built on another optimizer, an optimizer that holds
    none of the model's parameters, ``loss_fn`` together with a normalization object, or a
    scaler that does not match the precision or device; warns when the optimizer holds only
    some of the trainable parameters; ``TypeError`` for replicas that do not implement the
    :class:`~gastudy.core.replicas.Replicas` methods the update calls.
    """

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        *,
        accumulation_steps: int,
        task: str = "causal",
        normalization: str | Normalization = "tokens",
        precision: str | Precision = "fp32",
        scheduler: Any = None,
        clip_grad_norm: float | None = None,
        loss_fn: UserLoss | None = None,
        loss_is_scaled_for_ga: bool = False,
        replicas: Replicas | None = None,
        ignore_index: int = -100,
    ):
        self.accumulation_steps = check_positive_int("accumulation_steps (A)", accumulation_steps)
        self.task = check_task(task)
        if loss_fn is not None and not (normalization in (None, "tokens") or isinstance(normalization, Tokens)):
            raise ValueError(f"pass either loss_fn (your loss) or the normalization {normalization.name!r}, not both")
        self.normalization = YourLoss(loss_fn, loss_is_scaled_for_ga) if loss_fn is not None \
            else as_normalization(normalization, ignore_index)
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
        self.replicas = replicas or SingleReplica()
        missing = [m for m in ("group_denominator", "record_group", "sync", "carry_loss", "group_loss")
                   if not hasattr(self.replicas, m)]
        if missing:
            raise TypeError(f"replicas of type {type(self.replicas).__name__} lack {', '.join(missing)}: implement "
                            "the gastudy.core.replicas.Replicas protocol (or pass DDPReplicas / nothing for one process)")
        self.counters = Counters()
        # read once, not per group: the parameters clipping and the finite check read, the
        # vocabulary and positions check_fits compares ids with, the dtype the loss is summed in
        self._parameters = list(model.parameters())
        self._finite = FiniteCheck(self._parameters)
        self._fit_limits = fit_limits(model)
        self._loss_dtype = torch.promote_types(self.dtype, torch.float32)
        # running statistics (BatchNorm & co.) a refused group must not leave changed
        self._rollback = Rollback(optimizer, [b for m in model.modules() if isinstance(m, nn.modules.batchnorm._NormBase)
                                              for b in m.buffers(recurse=False)])
        optimizer.zero_grad(set_to_none=True)  # a group starts from zero gradients

    def update(self, group: Group) -> UpdateResult:
        """Run one group's microbatches and one optimizer update.

        Raises :class:`EmptyGroupError` (before any forward) when the group has no supervised
        item; ``ValueError`` when it was built for another task or A, for token ids or
        lengths the model cannot embed (:func:`~gastudy.core.groups.check_fits`) and for
        logits/labels that do not line up; :class:`NonFiniteLossError` for a NaN/inf loss or
        gradient without a gradient scaler (with one, the scaler skips such a step and it
        counts as not applied). On any error the group is rolled back: gradients cleared;
        parameters, optimizer, scheduler, counters and running statistics as they were.
        """
        self._accepts(group)
        denominator = self.replicas.group_denominator(group)  # known before the first backward
        if denominator == 0:
            raise EmptyGroupError(f"group {group.index} has no supervised item (all labels are {self.ignore_index}): "
                                  "there is nothing to learn from; drop these samples")
        self.replicas.record_group(group)
        last, total = group.size - 1, None
        with self._rollback:
            for i, mb in enumerate(group.microbatches):
                with self.replicas.sync(self.model, last=i == last):  # no_sync but on the last
                    with self.precision.autocast():
                        output = self.model(**model_inputs(mb, self.device, self.dtype, self.model))
                        loss = self.normalization.loss(output, mb, group, denominator, self.replicas.size)
                    part = loss.detach().to(self._loss_dtype)  # the group loss, for the log: never the graph
                    total = part if total is None else total + part
                    if i == last:  # offered before the last backward: its all-reduce can carry it
                        self.replicas.carry_loss(total)
                    self.precision.backward(loss)
            return self.apply_update(group, denominator, float(self.replicas.group_loss(total)))

    def apply_update(self, group: Group, denominator: int, loss: float) -> UpdateResult:
        """Unscale → one finite check → clip → step → scaler update → scheduler (if applied) →
        zero the gradients → count."""
        scale, lr = self.precision.scale, float(self.optimizer.param_groups[0]["lr"])
        self.precision.unscale_(self.optimizer)
        norm = self._finite_norm(group, loss)
        if self.clip_grad_norm is not None:
            torch.nn.utils.clip_grads_with_norm_(self._parameters, self.clip_grad_norm, norm)
        applied = self.precision.step(self.optimizer)
        if applied and self.scheduler is not None:
            self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.counters.add(group, applied, scheduled=applied and self.scheduler is not None)
        grad_norm = whole(norm) if self.clip_grad_norm is not None else None
        return UpdateResult(group.index, loss, applied, denominator, group.size, group.samples, lr, grad_norm, scale)

    def _accepts(self, group: Group) -> None:
        """Refuse a group built for another task or A, or with ids the model cannot embed, and
        one without a supervised item (before any forward)."""
        if group.task != self.task or group.accumulation_steps != self.accumulation_steps:
            raise ValueError(f"group {group.index} was built for task {group.task!r}, A={group.accumulation_steps} "
                             f"but the engine runs {self.task!r}, A={self.accumulation_steps}: build the groups with "
                             f"task={self.task!r}, accumulation_steps={self.accumulation_steps}")
        check_fits(group, self.model, self._fit_limits)

    def _finite_norm(self, group: Group, loss: float) -> torch.Tensor | None:
        """The norm clipping needs (``None`` without clipping), after THE finite check: without
        a scaler, a NaN/inf loss or gradient raises :class:`NonFiniteLossError` (with one, the
        scaler skips the step itself). Every replica gets the same answer."""
        norm = total_norm(self._parameters) if self.clip_grad_norm is not None else None
        if self.precision.scaler is None:
            finite = self._finite() if norm is None else math.isfinite(whole(norm))
            if not (finite and math.isfinite(loss)):
                raise NonFiniteLossError(f"group {group.index}: the loss is {loss} and a gradient is inf/NaN without "
                                         "a gradient scaler; nothing was updated — lower the learning rate, check "
                                         "the model and the data, or use fp16 with a scaler")
        return norm

    def run(self, groups: Iterable[Group], progress: bool = False,
            on_update: Callable[[UpdateResult], None] | None = None) -> list[UpdateResult]:
        """:meth:`update` on every group, in order; an optional tqdm progress bar and a callback
        after each update. Returns the results."""
        if progress:
            from tqdm.auto import tqdm

            groups = tqdm(groups, desc="updates", unit="update")
        results = []
        for group in groups:
            results.append(self.update(group))
            if on_update is not None:
                on_update(results[-1])
        return results

    def train(self, groups: Iterable[Group], progress: bool = False,
              on_update: Callable[[UpdateResult], None] | None = None) -> list[UpdateResult]:
        """Deprecated name of :meth:`run` (one release): ``train`` is the name of a whole run."""
        import warnings

        warnings.warn("Accumulator.train is now Accumulator.run (gastudy.train is a whole run); the old name goes in "
                      "the next release", DeprecationWarning, stacklevel=2)
        return self.run(groups, progress, on_update)

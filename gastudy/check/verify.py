"""Verify one update before a campaign (MB-10, MB-8).

:func:`verify_one_update` runs one real update with the engine on a small, controlled set,
watched by :func:`~gastudy.check.trace.trace_loop`, and hands it to the kernel
(:mod:`gastudy.check.judge`), which compares it with the big batch on an exact copy of the
model, in the precision the update ran in. It checks:

- the gradient at the optimizer step equals the big-batch gradient within the kernel's
  tolerance (relative error ‖g − g_big‖₂ ÷ ‖g_big‖₂, from the measured noise floor);
- the update used exactly the intended sample ids, each once;
- every gradient is finite; gradients are zero at the group boundary (before and after);
- exactly one optimizer step and exactly one scheduler step happened.

It passes with the default (token) normalization, fails with the course's ``Steps``/``MeanOfMeans`` on
variable-length data, and fails with an explanation on a BatchNorm model or a model
with active dropout.

It works on copies: the model (and the microbatches) you pass are never modified — weights,
buffers, gradients, train/eval mode and the global random state are as they were afterwards.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from gastudy.check.judge import judge_update
from gastudy.check.reference import (
    TOLERANCES as TOLERANCES,  # the base tolerances, by precision name
)
from gastudy.check.reference import ComputePrecision, Reference, flat_gradient, rel_error
from gastudy.check.steps import first_step_gradients, grads_are_zero
from gastudy.check.trace import trace_loop
from gastudy.core.checkpointing import cache_in_use, enable_checkpointing
from gastudy.core.data import (
    MicrobatchStream,
    concat_microbatches,
    is_packed,
    padding_side_of,
)
from gastudy.core.engine import Accumulator, model_inputs, on_device
from gastudy.core.groups import GroupStream, check_fits
from gastudy.core.loss import Normalization, as_normalization, summed_loss
from gastudy.core.precision import PRECISIONS
from gastudy.core.record import RunRecord
from gastudy.core.workloads import Workload, workload
from gastudy.memory.fit import FitPlan

VERIFY_PRECISIONS = ("fp64", *PRECISIONS)


def verify_precision(precision: str | None, dtype: torch.dtype) -> str:
    """The precision a verification runs at, from the requested one and the model's dtype.

    ``None`` or ``"fp32"`` on a float64 model → ``"fp64"`` (no autocast, float64 all the way,
    so the float64 tolerance applies); ``None`` otherwise → ``"fp32"``. ``"fp64"`` needs a
    float64 model. Raises ``ValueError`` for an unknown precision or ``fp64`` on another dtype.
    """
    if precision is not None and precision not in VERIFY_PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; use one of {', '.join(VERIFY_PRECISIONS)}")
    if precision in (None, "fp32", "fp64") and dtype == torch.float64:
        return "fp64"
    if precision == "fp64":
        raise ValueError(f"precision 'fp64' needs a float64 model, but its parameters are {dtype}: "
                         "call model.double() first, or verify at 'fp32'")
    return precision or "fp32"


def active_dropout(model: nn.Module) -> list[str]:
    """Names of the dropout modules (p > 0) of ``model``: in training mode each forward draws
    new masks, so an accumulated update cannot equal the big batch."""
    return [n for n, m in model.named_modules() if isinstance(m, nn.modules.dropout._DropoutNd) and m.p > 0]


def reference_gradients(model: nn.Module, microbatches: Sequence[Mapping[str, torch.Tensor]], task: str = "causal",
                        ignore_index: int = -100) -> dict[str, torch.Tensor]:
    """Gradients of the big batch: every sample of ``microbatches`` in ONE forward.

    The loss is the sum of per-item losses ÷ all supervised items (the token-normalized
    target). ``model`` is used as given (pass a copy); its gradients are returned by name.
    """
    big = concat_microbatches(list(microbatches))
    first = next(model.parameters())
    model.zero_grad(set_to_none=True)
    output = model(**model_inputs(big, first.device, first.dtype))
    loss_sum, items = summed_loss(output, on_device(big, first.device), task, ignore_index)
    (loss_sum / items).backward()
    return {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}


def compare_gradients(got: Mapping[str, torch.Tensor], ref: Mapping[str, torch.Tensor]) -> tuple[float, float]:
    """``(max_abs, rel_error)`` of two gradients by name: the largest absolute difference of any
    entry, and gastudy's one metric ‖got − ref‖₂ ÷ ‖ref‖₂ over all parameters
    (:func:`~gastudy.check.reference.rel_error`). Raises ``ValueError`` if the names differ."""
    if set(got) != set(ref):
        raise ValueError(f"gradient names differ: only in one side: {sorted(set(got) ^ set(ref))}")
    names = sorted(ref)
    max_abs = max(float((got[n].double() - ref[n].double()).abs().max()) for n in names)
    flat_got = torch.cat([got[n].detach().double().flatten() for n in names])
    flat_ref = torch.cat([ref[n].detach().double().flatten() for n in names])
    return max_abs, rel_error(flat_got, flat_ref)


@dataclass
class Check:
    """One verification check: its name, whether it passed, and what was measured."""

    name: str
    ok: bool
    detail: str


@dataclass
class VerifyReport:
    """The result of :func:`verify_one_update`.

    ``passed`` is True only when every check passed; ``reasons`` lists the failed checks'
    details (and an explanation for known causes such as BatchNorm). ``rel_error`` is the
    kernel's metric, ‖g − g_big‖₂ ÷ ‖g_big‖₂, against the big batch in the update's precision
    (``max_rel_diff`` is the same number under its old name); ``max_abs_diff`` the largest
    absolute difference of one entry; ``floor`` the measured noise floor; ``precision_gap`` the
    relative gap between the big batch in that precision and in the model's own dtype
    without autocast (what the precision costs; 0.0 when they are the same computation).
    """

    passed: bool
    checks: list[Check]
    max_abs_diff: float
    rel_error: float
    tolerance: float
    config: dict[str, Any]
    record: RunRecord
    reasons: list[str] = field(default_factory=list)
    floor: float | None = None
    precision_gap: float = 0.0

    @property
    def max_rel_diff(self) -> float:
        """Deprecated name of :attr:`rel_error` (kept for one release)."""
        return self.rel_error

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed, "reasons": self.reasons, "max_abs_diff": self.max_abs_diff,
            "rel_error": self.rel_error, "max_rel_diff": self.rel_error, "tolerance": self.tolerance,
            "floor": self.floor, "precision_gap": self.precision_gap, "config": self.config,
            "checks": [c.__dict__ for c in self.checks], "record": self.record.to_dict(),
        }

    def __str__(self) -> str:
        lines = [f"{'✓' if c.ok else '✗'} {c.name}: {c.detail}" for c in self.checks]
        verdict = "PASSED" if self.passed else "FAILED: " + "; ".join(self.reasons)
        return "\n".join([*lines, verdict])


def has_batchnorm(model: nn.Module) -> bool:
    """True if the model contains a BatchNorm layer (statistics per forward pass)."""
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())


def controlled_microbatches(model: str | Workload, micro_batch: int, accumulation_steps: int, collate: str = "padded",
                            seed: int = 0, replicas: int = 1, rank: int = 0) -> list[dict[str, torch.Tensor]]:
    """The small controlled set: the first A microbatches of m samples of one replica's stream
    of a registered model's data (:mod:`gastudy.core.workloads`; the course's tiny-gpt gets
    variable-length addition problems, so supervised counts differ between microbatches)."""
    work = workload(model)
    n = micro_batch * accumulation_steps * replicas
    stream = MicrobatchStream(work.dataset(n, seed=seed), micro_batch, collate=work.collate(collate),
                              seed=seed, replicas=replicas, rank=rank)
    return list(stream.microbatches())[:accumulation_steps]


def verify_one_update(
    model: str | Workload | nn.Module = "tiny-gpt",
    micro_batch: int = 2,
    accumulation_steps: int = 4,
    precision: str | None = None,
    normalization: str | Normalization = "tokens",
    collate: str = "padded",
    seed: int = 0,
    microbatches: Sequence[Mapping[str, torch.Tensor]] | None = None,
    task: str | None = None,
    tolerance: float | None = None,
    every_n_layers: int | None = None,
    offload: bool = False,
) -> VerifyReport:
    """Run one update and the big-batch reference, and check it.

    Args:
        model: your own module (then pass ``microbatches`` and ``task``), or the name of a
            registered :class:`~gastudy.core.workloads.Workload` (the course registers
            ``tiny-gpt``, ``ln-mlp``, ``bn-mlp``, ``mlp``), built from ``seed`` with its own
            controlled set of m × A samples. Your module is never changed:
            the update and the reference each run on a deep copy, in training mode. Hooks
            registered on it are copied with it and run on the copies (a hook that appends to
            your own list sees those calls).
        micro_batch, accumulation_steps: m and A of the update.
        precision: ``fp64``, ``fp32``, ``bf16`` or ``fp16`` for the update (the reference runs
            in the model's dtype). Default ``None``: ``fp64`` for a float64 model, else ``fp32``
            (see :func:`verify_precision`; ``fp32`` on a float64 model also means ``fp64``).
        normalization: ``"tokens"`` (passes) or a :class:`~gastudy.core.loss.Normalization`
            object (the course's ``Steps``/``MeanOfMeans`` fail on variable lengths).
        microbatches: your own controlled set: A batch dicts, e.g. from a Hugging Face collator;
            without ``sample_ids`` they are numbered by position (and the record says so).
            They are not modified.
        tolerance: largest accepted relative error; default the kernel's, from the measured
            noise floor of this precision (:func:`gastudy.check.judge.tolerance`).
        every_n_layers, offload: activation checkpointing for the update and the reference, as
            :func:`~gastudy.core.checkpointing.enable_checkpointing` sets it (on the copies);
            ``None``: as the model is. The settings a :class:`~gastudy.memory.fit.FitPlan`
            chose come from its ``verify_kwargs()``.

    Returns a :class:`VerifyReport`. Raises ``ValueError`` for an unknown precision or
    normalization, ``fp64`` on a model that is not float64, or a custom module without
    ``microbatches``/``task``. The global random state is restored afterwards (dropout draws
    happen on a forked generator).
    """
    normalization = as_normalization(normalization)
    if isinstance(model, (str, Workload)):
        work = workload(model)
        name, task = work.name, task or work.task
        if microbatches is None:
            microbatches = controlled_microbatches(work, micro_batch, accumulation_steps, collate, seed)
        model = work.build(seed=seed)
    elif microbatches is None or task is None:
        raise ValueError("with your own model, pass microbatches=[...] (A batch dicts) and task=...")
    else:
        name = type(model).__name__
    if len(microbatches) == 0:
        raise ValueError("microbatches is empty: pass the A batch dicts of one update")
    precision = verify_precision(precision, next(model.parameters()).dtype)
    if every_n_layers is not None:
        model = copy.deepcopy(model)  # yours keeps its own checkpointing
        enable_checkpointing(model, every_n_layers, offload)
    devices = [torch.cuda.current_device()] if torch.cuda.is_available() and torch.cuda.is_initialized() else []
    with torch.random.fork_rng(devices=devices):
        report = _verify_on_copies(name, model, list(microbatches), task, precision, normalization, seed, tolerance)
    report.config.update(every_n_layers=every_n_layers, offload=offload)
    return report


def _verify_on_copies(name: str, original: nn.Module, microbatches: list, task: str, precision: str,
                      normalization: Normalization, seed: int, tolerance: float | None) -> VerifyReport:
    """:func:`verify_one_update` after its arguments are settled; ``original`` is only read."""
    accumulation_steps = len(microbatches)
    # the group numbers samples without ids by position; its microbatches are new dicts
    group = next(iter(GroupStream(microbatches, accumulation_steps, task)))
    microbatches = group.microbatches
    check_fits(group, original)  # a clear error before either forward
    model = copy.deepcopy(original).train()
    model.zero_grad(set_to_none=True)
    reference_model = copy.deepcopy(model)

    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    engine = Accumulator(model, optimizer, accumulation_steps=accumulation_steps, task=task,
                         normalization=normalization, precision="fp32" if precision == "fp64" else precision,
                         scheduler=scheduler)
    zero_before = grads_are_zero(model)
    epoch_before = scheduler.last_epoch
    with trace_loop(model, optimizer, track_applied=False) as trace:
        result = engine.update(group)
    got = first_step_gradients(trace.steps)
    verdict, _, big = judge_update(trace, reference_model, group, tolerance_given=tolerance,
                                   step_gradient=flat_gradient(got, model) if got else None, strict=True)
    tolerance = verdict.tolerance
    max_rel = verdict.rel_error if verdict.rel_error is not None else float("inf")
    max_abs = float((flat_gradient(got, model) - big.gradient).abs().max()) if got else float("inf")
    precision_gap = 0.0
    if big.precision.label != ComputePrecision(big.precision.weights).label:  # the same model in its own dtype
        full = Reference(reference_model, group, ComputePrecision(big.precision.weights)).big_batch()
        precision_gap = rel_error(big.gradient, full.gradient)
    ref_ids = [int(i) for mb in microbatches for i in mb["sample_ids"].reshape(-1)]
    scheduler_steps = scheduler.last_epoch - epoch_before
    steps = trace.steps
    checks = [
        Check("gradient equals the big batch", max_rel <= tolerance,
              f"relative error {max_rel:.3g}, max |Δ| = {max_abs:.3g} ({verdict.within()})"),
        Check("same sample ids", group.sample_ids == ref_ids and len(set(ref_ids)) == len(ref_ids),
              f"{len(group.sample_ids)} samples used, {len(set(group.sample_ids))} distinct, "
              f"{'identical to' if group.sample_ids == ref_ids else 'different from'} the reference"),
        Check("finite gradients", bool(got) and all(torch.isfinite(g).all() for g in got.values()),
              "all finite" if got and all(torch.isfinite(g).all() for g in got.values()) else "inf/NaN or missing"),
        Check("gradients zero at the group boundary", zero_before and grads_are_zero(model),
              f"before: {'zero' if zero_before else 'NOT zero'}, after: {'zero' if grads_are_zero(model) else 'NOT zero'}"),
        Check("exactly one optimizer step", len(steps) == 1, f"{len(steps)} optimizer step(s)"),
        Check("exactly one scheduler step", scheduler_steps == 1, f"{scheduler_steps} scheduler step(s)"),
    ]
    reasons = [f"{c.name}: {c.detail}" for c in checks if not c.ok]
    dropout = active_dropout(model)
    if reasons and dropout:
        reasons.append(f"the model has active dropout ({', '.join(dropout[:3])}{', …' if len(dropout) > 3 else ''}): "
                       "every forward draws new masks, so the microbatches and the big batch drop different "
                       "units; verify a copy built with dropout 0 (e.g. the config's *_pdrop / *dropout = 0.0)")
    if reasons and any("input_ids" in mb and is_packed(mb) for mb in microbatches) and cache_in_use(model):
        reasons.append("padding-free microbatches (position_ids, no attention_mask) on a model whose config has "
                       "use_cache=True: transformers keeps packed sequences apart only when no cache is in use, so "
                       "they attend across their boundaries and the gradient depends on how they were packed; set "
                       "model.config.use_cache = False (enable_checkpointing does it) and verify again")
    if reasons and any(padding_side_of(mb) == "left" for mb in microbatches):
        reasons.append("left-padded microbatches: how much padding a row gets depends on its microbatch's longest "
                       "sequence, so the partition changes what the model sees — a padded row's first token is "
                       "predicted from a padding position unless its label is -100, and a model that numbers "
                       "positions from the start of the row (GPT-2's learned absolute positions) sees each sample at "
                       "another offset; pad on the right for training (tokenizer.padding_side = 'right')")
    if reasons and has_batchnorm(model):
        reasons.append("the model has BatchNorm: each microbatch is normalized with its own statistics, so "
                       "accumulation cannot reproduce the big batch; use LayerNorm/GroupNorm or accept the gap")
    if reasons and normalization.name != "tokens":
        reasons.append(f"normalization {normalization.name!r} weights microbatches equally although their supervised "
                       f"counts are {group.items}; use 'tokens' (sum of losses ÷ the group's items)")
    c = engine.counters
    record = RunRecord(
        model=name, task=task, micro_batch=int(microbatches[0]["sample_ids"].numel()),
        accumulation_steps=accumulation_steps, replicas=1, effective_batch=group.samples,
        precision=precision, normalization=normalization.name, last_group_policy="keep",
        updates_attempted=c.updates_attempted, updates_applied=c.updates_applied,
        scheduler_steps=c.scheduler_steps, microbatches=c.microbatches, samples=c.samples,
        supervised_tokens=c.supervised_tokens, final_loss=result.loss, seed=seed,
        per_replica=[{"rank": 0, "samples": c.samples, "supervised_tokens": c.supervised_tokens}],
        notes=["the microbatches had no sample_ids: the samples were numbered by position 0, 1, 2, …"]
        if group.ids_assigned else [],
    )
    config = {"model": name, "micro_batch": record.micro_batch, "accumulation_steps": accumulation_steps,
              "precision": precision, "normalization": normalization.name, "task": task, "seed": seed}
    return VerifyReport(not reasons, checks, max_abs, max_rel, tolerance, config, record, reasons, verdict.floor,
                        precision_gap)


def verify_fit(plan: FitPlan, model: str | Workload | nn.Module, *, model_kwargs: dict | None = None,
               microbatches: Sequence[Mapping[str, torch.Tensor]] | None = None, task: str | None = None,
               seed: int = 0, make_batch: Callable[[int], Mapping[str, torch.Tensor]] | None = None) -> VerifyReport:
    """One update under what :func:`~gastudy.memory.fit.fit_to_budget` chose — its m, A,
    checkpointing, offload and precision — on the model it measured (rebuilt on the CPU from a
    name; yours as it is), checked against the big batch (:func:`verify_one_update`; one
    replica's share when D > 1). What it checks is the arithmetic of the update, which the
    device does not change; the memory was the fit's measurement.

    ``model``: the same module, or the registered workload's name with the same
    ``model_kwargs`` (then its own controlled data, ``task`` from the workload). A module
    without ``microbatches`` gets A of ``make_batch(m)`` (the function the fit measured with), or
    invented ones (:func:`~gastudy.memory.workload.synthetic_microbatches`), and the task its
    batches imply. Raises ``ValueError`` when nothing fit.
    """
    from gastudy.core.counting import task_of_batch
    from gastudy.memory.workload import build_for_measurement, synthetic_microbatches

    kwargs = plan.verify_kwargs()
    m, a = kwargs["micro_batch"], kwargs["accumulation_steps"]
    if not isinstance(model, nn.Module):
        work = workload(model)
        net = build_for_measurement(work, "cpu", seed, model_kwargs)
        if microbatches is None:
            microbatches, task = controlled_microbatches(work, m, a, seed=seed), task or work.task
        model = net
    elif microbatches is None:
        microbatches = [make_batch(m) for _ in range(a)] if make_batch is not None else \
            synthetic_microbatches(model, m, a, seed=seed)
    task = task or task_of_batch(microbatches[0])
    return verify_one_update(model, microbatches=microbatches, task=task, seed=seed, **kwargs)

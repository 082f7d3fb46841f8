"""Fit a memory budget without losing the update count (course section MB-9).

:func:`plan_for_budget` measures the real peak of every candidate microbatch size m (the
divisors of target ÷ D), recomputes A = target ÷ (m × D) so that m × A × D stays on target,
and picks the largest m whose *measured* peak fits. Its ``verdict`` says plainly when no m
fits because weights, gradients and optimizer state alone exceed the budget: accumulation
shrinks activations only, so it cannot help there.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from gastudy.core.plan import BatchPlan, check_positive_int, plan_from_target
from gastudy.memory.saved import format_bytes
from gastudy.memory.timeline import phase_timeline

Measure = Callable[[int, int], "PeakMeasurement | tuple[int, int]"]


@dataclass
class PeakMeasurement:
    """The measured peak of a training configuration. Bytes.

    ``peak_bytes``: highest device usage through the first update and a steady group, above
    the usage before the model was built (weights included). ``fixed_bytes``: weights +
    gradients + optimizer state (what no microbatch size changes). ``saved_bytes``: what one
    microbatch's forward keeps for backward.
    """

    peak_bytes: int
    fixed_bytes: int
    saved_bytes: int
    micro_batch: int
    accumulation_steps: int
    device: str
    probe: str



def measure_peak(micro_batch: int, accumulation_steps: int, model: str | nn.Module = "tiny-gpt", *,
                 device: str | torch.device = "cpu", every_n_layers: int | None = None,
                 offload: bool = False, seq_len: int = 32, optimizer: str = "adamw",
                 model_kwargs: dict | None = None, groups: int = 2, seed: int = 0,
                 precision: str = "fp32", microbatches: Sequence[Mapping] | None = None) -> PeakMeasurement:
    """Measure the real peak of m, A (first update and a steady group) on ``device``.

    A fresh model is built from its name for each call (a given module is deep-copied and
    left untouched); weights, gradients and optimizer state are part of the peak. CPU numbers
    are process resident memory above the usage without the model, so they carry some
    allocator noise (a few MiB); CUDA numbers are exact allocator bytes. ``precision`` is the
    engine's autocast (``fp32``, ``bf16``, ``fp16``): weights stay float32, the saved activations
    of autocast layers shrink. ``microbatches``: ``accumulation_steps × groups`` batch dicts of
    ``micro_batch`` samples for a model whose inputs cannot be invented (a Hugging Face model:
    ``input_ids``, ``attention_mask``, ``labels``); default: invented ones.
    """
    net = model if isinstance(model, str) else copy.deepcopy(model)  # never train the caller's model
    tl = phase_timeline(net, micro_batch, accumulation_steps, groups, every_n_layers, offload, device,
                        seq_len=seq_len, optimizer=optimizer, model_kwargs=model_kwargs, seed=seed,
                        precision=precision, microbatches=microbatches)
    fixed = max(r.weight_bytes + r.grad_bytes + r.optimizer_bytes for r in tl.rows)
    saved = max(r.saved_bytes for r in tl.rows)
    return PeakMeasurement(tl.peak, fixed, saved, micro_batch, accumulation_steps, tl.device, tl.probe)


@dataclass
class Candidate:
    """One measured microbatch size: m, A, the peak and the fixed part (bytes)."""

    micro_batch: int
    accumulation_steps: int
    peak_bytes: int
    fixed_bytes: int
    fits: bool


@dataclass
class MemoryPlan:
    """The outcome of :func:`plan_for_budget`.

    ``chosen`` is the :class:`BatchPlan` of the largest fitting m (``None`` if none fits);
    ``candidates`` holds every measurement, largest m first; ``fixed_bytes`` is weights +
    gradients + optimizer state (independent of m); ``verdict`` explains the decision.
    """

    budget_bytes: int
    target_effective_batch: int
    replicas: int
    candidates: list[Candidate]
    chosen: BatchPlan | None
    fixed_bytes: int
    verdict: str

    @property
    def micro_batch(self) -> int | None:
        return self.chosen.micro_batch if self.chosen else None

    @property
    def accumulation_steps(self) -> int | None:
        return self.chosen.accumulation_steps if self.chosen else None

    def to_dict(self) -> dict:
        return {"budget_bytes": self.budget_bytes, "target_effective_batch": self.target_effective_batch,
                "replicas": self.replicas, "micro_batch": self.micro_batch,
                "accumulation_steps": self.accumulation_steps, "fixed_bytes": self.fixed_bytes,
                "verdict": self.verdict, "candidates": [vars(c) for c in self.candidates]}


def candidate_micro_batches(target_effective_batch: int, replicas: int = 1) -> list[int]:
    """Every m that keeps m × A × D on target exactly: the divisors of target ÷ D (ascending).

    Raises :class:`~gastudy.core.plan.PlanError` when D does not divide the target.
    """
    plan_from_target(target_effective_batch, 1, replicas)  # validates target and D
    from gastudy.core.plan import divisors

    return divisors(target_effective_batch // replicas)


def _as_measurement(value: PeakMeasurement | tuple[int, int]) -> tuple[int, int]:
    if isinstance(value, PeakMeasurement):
        return value.peak_bytes, value.fixed_bytes
    peak, fixed = value
    return int(peak), int(fixed)


def plan_for_budget(budget_bytes: int, target_effective_batch: int, replicas: int = 1, model: str = "tiny-gpt",
                    candidates: Sequence[int] | None = None, measure: Measure | None = None,
                    **measure_kwargs) -> MemoryPlan:
    """The largest microbatch whose measured peak fits ``budget_bytes``, with A recomputed.

    For each candidate m (default: every divisor of target ÷ D), A = target ÷ (m × D) and
    ``measure(m, A)`` returns the peak and the fixed bytes (a :class:`PeakMeasurement` or a
    ``(peak_bytes, fixed_bytes)`` tuple). The default measures for real with
    :func:`~gastudy.memory.planner.measure_peak` on ``model`` (``measure_kwargs``: device,
    every_n_layers, seq_len, optimizer, model_kwargs, …). Every candidate keeps
    m × A × D = target.

    Raises ``PlanError`` for a budget < 1, a target D does not divide, or a candidate m that
    does not divide target ÷ D.
    """
    check_positive_int("budget_bytes", budget_bytes)
    sizes = sorted(set(candidates if candidates is not None
                       else candidate_micro_batches(target_effective_batch, replicas)), reverse=True)
    plans = [plan_from_target(target_effective_batch, m, replicas) for m in sizes]  # raises if off target
    measure = measure or functools.partial(_measure_default, model=model, **measure_kwargs)
    measured = []
    for plan in plans:
        peak, fixed = _as_measurement(measure(plan.micro_batch, plan.accumulation_steps))
        measured.append(Candidate(plan.micro_batch, plan.accumulation_steps, peak, fixed, peak <= budget_bytes))
    fixed = min(c.fixed_bytes for c in measured)
    chosen = next((p for p, c in zip(plans, measured) if c.fits), None)
    return MemoryPlan(budget_bytes, target_effective_batch, replicas, measured, chosen, fixed,
                      _verdict(budget_bytes, measured, chosen, fixed))


def _measure_default(micro_batch: int, accumulation_steps: int, model: str, **kwargs) -> PeakMeasurement:
    return measure_peak(micro_batch, accumulation_steps, model, **kwargs)


def _verdict(budget: int, measured: list[Candidate], chosen: BatchPlan | None, fixed: int) -> str:
    smallest = measured[-1]
    if chosen is None:
        if fixed >= budget:
            return (f"No microbatch size fits: weights, gradients and optimizer state alone take "
                    f"{format_bytes(fixed)}, over the budget of {format_bytes(budget)}. Accumulation cannot "
                    "help — it only shrinks activations. Shrink the fixed part: a smaller model, an optimizer "
                    "with less state (SGD, 8-bit), lower-precision weights, or shard them across devices.")
        return (f"No microbatch size fits: even m={smallest.micro_batch} (A={smallest.accumulation_steps}) peaks "
                f"at {format_bytes(smallest.peak_bytes)} over the budget of {format_bytes(budget)}, while the "
                f"fixed part is {format_bytes(fixed)}. One sample's activations are too large: enable activation "
                "checkpointing (every_n_layers), offload, or use shorter sequences.")
    best = next(c for c in measured if c.micro_batch == chosen.micro_batch)
    text = (f"m={chosen.micro_batch}, A={chosen.accumulation_steps} (m×A×D = {chosen.effective_batch}) fits: "
            f"measured peak {format_bytes(best.peak_bytes)} ≤ budget {format_bytes(budget)}.")
    too_big = [c for c in measured if not c.fits]
    if too_big:
        c = too_big[-1]
        text += f" The next larger m={c.micro_batch} peaked at {format_bytes(c.peak_bytes)}."
    share = fixed / best.peak_bytes if best.peak_bytes else 0.0
    if share >= 0.5:
        text += (f" Weights, gradients and optimizer state are {share:.0%} of this peak, so shrinking m "
                 f"further barely helps (m={smallest.micro_batch} peaks at {format_bytes(smallest.peak_bytes)}).")
    return text

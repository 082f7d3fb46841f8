"""Make it fit: choose m, A, checkpointing, offload and precision together for a memory budget.

:func:`fit_to_budget` climbs a ladder of settings, the cheapest first, and stops at the first
one under which a microbatch of at least ``min_micro_batch`` samples fits the budget:

1. nothing changed (float32, no checkpointing);
2. activation checkpointing on every 2nd layer, then on every layer (costs one more forward
   of the checkpointed layers, ≈ 4/3 of the step's compute when every layer is checkpointed);
3. on CUDA, checkpointing every layer with the kept inputs offloaded to pinned host memory;
4. only the precisions the caller allows (``precisions=("fp32", "bf16")``): the same rungs under
   autocast. A lower precision changes the numbers of the run, so it is never chosen unasked.

Under each setting :func:`~gastudy.memory.planner.plan_for_budget` measures the real peak of
every m that keeps m × A × D on target and picks the largest that fits. Nothing is estimated:
a setting that does not lower the peak on this machine (autocast on a CPU can raise it, since
it keeps low-precision copies of the weights for backward) is simply not chosen.
:meth:`FitPlan.verify_kwargs` gives what :func:`~gastudy.check.verify.verify_one_update`
needs to check one update under the chosen setting.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from gastudy.core.checkpointing import marked_layers
from gastudy.core.plan import check_positive_int
from gastudy.core.precision import PRECISIONS
from gastudy.core.workloads import Workload
from gastudy.memory.planner import (
    MemoryPlan,
    PeakMeasurement,
    candidate_micro_batches,
    measure_peak,
    plan_for_budget,
)
from gastudy.memory.saved import format_bytes
from gastudy.memory.workload import build_for_measurement

MEASURED_GROUPS = 2
"""Groups each measurement runs: the first update (optimizer state appears) and a steady one."""


@dataclass(frozen=True)
class Setting:
    """One way to run the same update: which layers are checkpointed (``every_n_layers``:
    ``None`` for none, 1 for every layer), whether their kept inputs go to host memory
    (``offload``), and the forward's autocast ``precision``."""

    every_n_layers: int | None = None
    offload: bool = False
    precision: str = "fp32"

    @property
    def label(self) -> str:
        """``fp32``, ``fp32 · checkpoint 1/2``, ``bf16 · checkpoint 1/1 · offload``."""
        parts = [self.precision]
        if self.every_n_layers:
            parts.append(f"checkpoint 1/{self.every_n_layers}")
        if self.offload:
            parts.append("offload")
        return " · ".join(parts)


@dataclass
class Rung:
    """A setting and every microbatch size measured under it (``plan``). ``fits``: some m ≥
    the caller's smallest useful microbatch fits the budget."""

    setting: Setting
    plan: MemoryPlan
    fits: bool


@dataclass
class FitPlan:
    """The outcome of :func:`fit_to_budget`. Bytes.

    ``rungs``: the settings measured, in the order tried (the search stops at the first that
    fits); ``chosen``: that rung, or ``None``. ``micro_batch``, ``accumulation_steps`` and
    ``setting`` are the decision (``None`` when nothing fits); ``verdict`` says it in words.
    """

    budget_bytes: int
    target_effective_batch: int
    replicas: int
    min_micro_batch: int
    rungs: list[Rung]
    chosen: Rung | None
    verdict: str
    notes: list[str] = field(default_factory=list)

    @property
    def setting(self) -> Setting | None:
        return self.chosen.setting if self.chosen else None

    @property
    def micro_batch(self) -> int | None:
        return self.chosen.plan.micro_batch if self.chosen else None

    @property
    def accumulation_steps(self) -> int | None:
        return self.chosen.plan.accumulation_steps if self.chosen else None

    @property
    def peak_bytes(self) -> int | None:
        """The measured peak of the chosen m under the chosen setting."""
        if not self.chosen:
            return None
        return next(c.peak_bytes for c in self.chosen.plan.candidates if c.micro_batch == self.micro_batch)

    def rows(self) -> list[dict]:
        """One row per measurement: setting, m, A, peak (MiB), fixed part (MiB), fits."""
        return [{"setting": r.setting.label, "m": c.micro_batch, "A": c.accumulation_steps,
                 "peak MiB": c.peak_bytes / 2**20, "fixed MiB": c.fixed_bytes / 2**20, "fits": c.fits}
                for r in self.rungs for c in r.plan.candidates]

    def verify_kwargs(self) -> dict:
        """Keyword arguments of :func:`~gastudy.check.verify.verify_one_update` for the chosen
        m, A, checkpointing, offload and precision (one replica's share of the update). Raises
        ``ValueError`` when nothing fits."""
        if self.setting is None:
            raise ValueError(f"nothing fits, so there is nothing to verify: {self.verdict}")
        s = self.setting
        return {"micro_batch": self.micro_batch, "accumulation_steps": self.accumulation_steps,
                "precision": s.precision, "every_n_layers": s.every_n_layers, "offload": s.offload}

    def to_dict(self) -> dict:
        s = self.setting
        return {"budget_bytes": self.budget_bytes, "target_effective_batch": self.target_effective_batch,
                "replicas": self.replicas, "min_micro_batch": self.min_micro_batch,
                "micro_batch": self.micro_batch, "accumulation_steps": self.accumulation_steps,
                "setting": vars(s) if s else None, "peak_bytes": self.peak_bytes, "verdict": self.verdict,
                "notes": self.notes, "rows": self.rows()}


def settings_ladder(checkpointable_layers: int, device: str | torch.device = "cpu",
                    precisions: Sequence[str] = ("fp32",)) -> list[Setting]:
    """The settings :func:`fit_to_budget` tries, cheapest first (see the module's list): for each
    allowed precision in the order given, no checkpointing, every 2nd layer (with ≥ 2 layers),
    every layer (with ≥ 1), and on CUDA every layer offloaded. Raises ``ValueError`` for an
    unknown or repeated precision."""
    unknown = [p for p in precisions if p not in PRECISIONS]
    if unknown or not precisions or len(set(precisions)) != len(precisions):
        raise ValueError(f"precisions must be distinct names from {', '.join(PRECISIONS)}, got {list(precisions)}")
    cuda = torch.device(device).type == "cuda"
    ladder = []
    for p in precisions:
        ladder.append(Setting(precision=p))
        if checkpointable_layers >= 2:
            ladder.append(Setting(2, precision=p))
        if checkpointable_layers >= 1:
            ladder.append(Setting(1, precision=p))
            if cuda:
                ladder.append(Setting(1, offload=True, precision=p))
    return ladder


def fit_to_budget(model: str | Workload | nn.Module, budget_bytes: int, target_effective_batch: int, *,
                  replicas: int = 1, min_micro_batch: int = 1, precisions: Sequence[str] = ("fp32",),
                  device: str | torch.device = "cpu", seq_len: int = 32, optimizer: str = "adamw",
                  model_kwargs: dict | None = None, seed: int = 0,
                  progress: Callable[[int, int, str], None] | None = None,
                  measure: Callable[[int, int, Setting], PeakMeasurement | tuple[int, int]] | None = None,
                  make_batch: Callable[[int], Mapping] | None = None) -> FitPlan:
    """Choose m, A and a :class:`Setting` whose *measured* peak fits ``budget_bytes``.

    Args:
        model: your module (deep-copied for every measurement, never trained), or a registered
            workload's name. Only layers marked for checkpointing (``CheckpointLayer``
            subclasses, Hugging Face ``GradientCheckpointingLayer``) can be checkpointed; with
            none, the ladder has no checkpointing rungs and ``notes`` says so.
        budget_bytes: the memory one process may use (CPU: resident memory above the process
            without the model; CUDA: allocator bytes), weights, gradients and optimizer state
            included.
        target_effective_batch: samples per update across the ``replicas``; every candidate
            keeps m × A × D equal to it.
        min_micro_batch: the smallest m worth running (a GPU is underused below some size);
            a setting fits only with an m at least this large.
        precisions: the autocast precisions you accept, in order of preference.
        make_batch: ``make_batch(m)`` → one microbatch dict of m samples, for a model whose inputs
            cannot be invented (a Hugging Face model: ``input_ids``, ``attention_mask``,
            ``labels``); called 2 × A times per measurement. Default: invented batches (token ids
            for a model with ``config["vocab_size"]``, random features for one whose first and
            last layers are ``nn.Linear``).
        progress: called as ``progress(done, total, what)`` before each measurement.
        measure: ``measure(m, A, setting)`` → a :class:`~gastudy.memory.planner.PeakMeasurement`
            or ``(peak_bytes, fixed_bytes)``; default a real :func:`~gastudy.memory.planner.measure_peak`.

    The search stops at the first setting that fits, and also after the first one when its
    fixed part (weights + gradients + optimizer state) alone exceeds the budget: no rung of
    this ladder shrinks it.

    Returns a :class:`FitPlan`. Raises ``ValueError``/``PlanError`` for a budget or minimum
    < 1, a target D does not divide, a minimum no candidate m reaches, or bad precisions.
    """
    check_positive_int("budget_bytes", budget_bytes)
    check_positive_int("min_micro_batch", min_micro_batch)
    sizes = [m for m in candidate_micro_batches(target_effective_batch, replicas) if m >= min_micro_batch]
    if not sizes:
        raise ValueError(f"min_micro_batch={min_micro_batch} is larger than every m that keeps m × A × D = "
                         f"{target_effective_batch} (D = {replicas}): lower it to at most "
                         f"{target_effective_batch // replicas}")
    probe_model = build_for_measurement(model, "cpu", seed, model_kwargs) if not isinstance(model, nn.Module) else model
    layers = len(marked_layers(probe_model))
    ladder = settings_ladder(layers, device, precisions)
    notes = [] if layers else [
        "no layer of this model can be checkpointed: make its blocks subclasses of gastudy.CheckpointLayer "
        "(or use a Hugging Face model), or the ladder stops at the precisions you allowed"]
    total, done, rungs, chosen = len(ladder) * len(sizes), 0, [], None
    for setting in ladder:
        def measure_one(m: int, a: int, setting: Setting = setting) -> object:
            nonlocal done
            if progress is not None:
                progress(done, total, f"{setting.label}: m={m}, A={a}")
            done += 1
            if measure is not None:
                return measure(m, a, setting)
            batches = [make_batch(m) for _ in range(a * MEASURED_GROUPS)] if make_batch is not None else None
            return measure_peak(m, a, model, device=device, every_n_layers=setting.every_n_layers,
                                offload=setting.offload, seq_len=seq_len, optimizer=optimizer,
                                model_kwargs=model_kwargs, seed=seed, precision=setting.precision,
                                groups=MEASURED_GROUPS, microbatches=batches)

        plan = plan_for_budget(budget_bytes, target_effective_batch, replicas, candidates=sizes, measure=measure_one)
        rung = Rung(setting, plan, plan.chosen is not None)
        rungs.append(rung)
        if rung.fits:
            chosen = rung
            break
        if plan.fixed_bytes >= budget_bytes:
            break
    if progress is not None:
        progress(total, total, "")
    plan = FitPlan(budget_bytes, target_effective_batch, replicas, min_micro_batch, rungs, chosen, "", notes)
    plan.verdict = _verdict(plan)
    return plan


def _verdict(plan: FitPlan) -> str:
    budget, min_m, rungs, chosen = plan.budget_bytes, plan.min_micro_batch, plan.rungs, plan.chosen
    if chosen is not None:
        text = (f"{chosen.setting.label}: m={plan.micro_batch}, A={plan.accumulation_steps} fits (measured peak "
                f"{format_bytes(plan.peak_bytes)} ≤ budget {format_bytes(budget)}).")
        if len(rungs) > 1:
            text += (f" Cheaper settings tried first did not fit an m ≥ {min_m}: "
                     + ", ".join(r.setting.label for r in rungs[:-1]) + ".")
        return text
    lowest = min((c for r in rungs for c in r.plan.candidates), key=lambda c: c.peak_bytes)
    fixed = min(r.plan.fixed_bytes for r in rungs)
    why = (f"weights, gradients and optimizer state alone take {format_bytes(fixed)}, and no setting here "
           "shrinks them" if fixed >= budget else
           f"the lowest peak measured, {lowest.micro_batch} samples a microbatch, was {format_bytes(lowest.peak_bytes)}")
    return (f"Nothing fits {format_bytes(budget)} with m ≥ {min_m}: {why}. Tried: "
            + ", ".join(r.setting.label for r in rungs) + ". Raise the budget, lower min_micro_batch, allow "
            "another precision, or shrink the fixed part (an optimizer with less state, sharding).")

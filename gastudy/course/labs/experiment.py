"""Chapter 07 — same effective batch, different experiment (course sections MB-8, GA-2).

The labs of ``notebooks/07_same_batch_different_experiment.ipynb``:

- :class:`NormalizationLab` (MB-8): the accumulated gradient against the big-batch gradient
  for a BatchNorm, a LayerNorm and a plain MLP, measured with :func:`gastudy.check.verify.verify_one_update`.
- :class:`RoundingLab` (MB-8): the size of the rounding differences in float64, float32 and
  bf16, for one update and after many updates.
- :class:`UpdatesPerEpochLab` (MB-8): how the global batch changes the number of updates for
  the same samples, counted on the real group stream.
- :class:`ThroughputLab` (GA-2): samples/s of m × A = 32 × 1, 4 × 8 and 1 × 32, measured, and
  what the comparison rests on (:func:`fixed_cost_share`, :func:`predicted_speed`).

Tables are shown with :func:`gastudy.course.widgets.show_table` (shared by every chapter).
"""

from __future__ import annotations

import contextlib
import copy
import math
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

from gastudy.check.verify import (
    TOLERANCES,
    VerifyReport,
    controlled_microbatches,
    verify_one_update,
)
from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator
from gastudy.core.groups import make_groups
from gastudy.core.plan import BatchPlan
from gastudy.course.datasets import AdditionDataset, BlobDataset
from gastudy.course.i18n import t
from gastudy.course.models import build_model, task_of
from gastudy.course.widgets import Lab, int_slider, show_figure, show_table, subplots
from gastudy.memory.timing import RunTiming, compare_layouts

NORM_MODELS = ("bn-mlp", "ln-mlp", "mlp")
_FLOOR = 1e-18  # log-scale plots show an exact zero at this height

Progress = Callable[[float, str], None]
"""``progress(fraction, note)``: a lab's busy row (:meth:`gastudy.course.widgets.Lab.report_progress`)."""


def _steps(progress: Progress | None, total: int) -> Callable[[str], None]:
    """A counter that calls ``progress(done / total, note)`` before each of ``total`` measured steps."""
    done = [0]

    def step(note: str) -> None:
        if progress is not None:
            progress(done[0] / total, note)
        done[0] += 1

    return step


@contextlib.contextmanager
def steady_timing(device: str = "cpu") -> Iterator[None]:
    """Time CPU work on one thread inside the block (the previous thread count after it).

    On a machine shared with other processes, several OpenMP threads wait on each other and a
    large matrix product can take 10× longer at random; one thread keeps side-by-side timings
    comparable. No effect on a GPU. Course: GA-2, CK-2 (every timing lab of part 2).
    """
    if torch.device(device).type != "cpu":
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


# ----------------------------------------------------------------------------- MB-8: norms
@dataclass
class NormGap:
    """The accumulated-vs-big-batch gradient gap per model, and BatchNorm's gap against m.

    ``reports`` maps a model name to its :class:`VerifyReport` (``max_rel_diff`` is the gap, the
    relative gap ‖g − g_big‖₂ ÷ ‖g_big‖₂ of the accumulated gradient g to the big batch's). ``bn_gap_by_m`` maps a microbatch size m to the
    BatchNorm gap at the same effective batch (A = effective ÷ m); m = effective is exact.
    Course: MB-8.
    """

    micro_batch: int
    accumulation_steps: int
    reports: dict[str, VerifyReport]
    bn_gap_by_m: dict[int, float]

    @property
    def gaps(self) -> dict[str, float]:
        return {name: r.max_rel_diff for name, r in self.reports.items()}


def norm_gap(micro_batch: int = 4, accumulation_steps: int = 4, seed: int = 0,
             progress: Progress | None = None) -> NormGap:
    """Measure the gradient gap of one accumulated update for each of :data:`NORM_MODELS` (MB-8).

    Every model sees the same m × A samples, once as A microbatches of m (the engine) and once
    as one big batch. BatchNorm needs m ≥ 2 (one sample has no batch statistics): ``ValueError``.
    ``progress(fraction, note)`` is called before each verified update (a lab's progress bar).
    """
    if micro_batch < 2:
        raise ValueError(f"BatchNorm needs at least 2 samples per microbatch in training, got m={micro_batch}")
    total = micro_batch * accumulation_steps
    splits = [m for m in range(2, total + 1) if total % m == 0]
    step = _steps(progress, len(NORM_MODELS) + len(splits))
    reports = {}
    for name in NORM_MODELS:
        step(t("{model}: one update against the big batch", model=name))
        reports[name] = verify_one_update(name, micro_batch, accumulation_steps, seed=seed)
    by_m = {}
    for m in splits:
        step(t("BatchNorm at m = {m}", m=m))
        by_m[m] = verify_one_update("bn-mlp", m, total // m, seed=seed).max_rel_diff
    return NormGap(micro_batch, accumulation_steps, reports, by_m)


class NormalizationLab(Lab):
    """BatchNorm vs LayerNorm under accumulation: the measured gradient gap (course: MB-8)."""

    def __init__(self, micro_batch: int = 4, accumulation_steps: int = 4):
        self.title = t("MB-8 · Does A microbatches of m give the big batch's gradient? It depends on the layers.")
        super().__init__(
            micro_batch=int_slider(micro_batch, 2, 16, "m"),
            accumulation_steps=int_slider(accumulation_steps, 1, 8, "A"),
        )

    def compute(self, micro_batch: int, accumulation_steps: int) -> NormGap:
        return norm_gap(micro_batch, accumulation_steps, progress=self.report_progress)

    def render(self, result: NormGap) -> None:
        fig, (left, right) = subplots(1, 2, figsize=(10, 3.4))
        names = list(result.gaps)
        left.bar(names, [max(g, _FLOOR) for g in result.gaps.values()], color=["C3", "C0", "C2"])
        left.axhline(TOLERANCES["fp32"], color="k", ls="--", lw=1, label=t("float32 tolerance"))
        left.set_yscale("log")
        left.set_ylabel("‖g − g_big‖₂ ÷ ‖g_big‖₂")
        left.set_title(t("A={A} microbatches of m={m} vs one batch", A=result.accumulation_steps, m=result.micro_batch))
        left.legend(fontsize=8)
        ms = list(result.bn_gap_by_m)
        right.plot(ms, [max(g, _FLOOR) for g in result.bn_gap_by_m.values()], "o-", color="C3")
        right.set_xscale("log", base=2)
        right.set_yscale("log")
        for m, g in result.bn_gap_by_m.items():
            if g == 0.0:
                right.annotate(t("exactly 0 (A = 1)"), (m, _FLOOR), textcoords="offset points", xytext=(-90, 8))
        right.set_xlabel(t("m (A = effective ÷ m)"))
        right.set_title(t("BatchNorm gap at effective batch {n}", n=result.micro_batch * result.accumulation_steps))
        show_figure(fig)
        show_table([{"model": n, "gap": r.max_rel_diff, "max |Δ|": r.max_abs_diff,
                     "verifier": t("passed") if r.passed else t("FAILED")} for n, r in result.reports.items()],
                   headers={"model": t("model"), "gap": t("gap (relative)"), "verifier": t("verifier")})


# ----------------------------------------------------------------------------- MB-8: rounding
@dataclass
class RoundingResult:
    """Rounding differences between A microbatches of m and one batch of m × A (tiny-gpt).

    ``one_update`` maps a precision (``fp64``, ``fp32``, ``bf16``) to the relative gradient
    gap of one update. The weights are compared with weights: ``drift`` maps ``fp64``/``fp32``
    to the largest absolute difference of any weight after ``updates`` AdamW updates trained
    both ways on the same samples, ``drift_first`` to the same difference after the first of
    those updates (the same two runs). Course: MB-8.
    """

    micro_batch: int
    accumulation_steps: int
    updates: int
    one_update: dict[str, float]
    drift: dict[str, float] = field(default_factory=dict)
    drift_first: dict[str, float] = field(default_factory=dict)


def weight_drift_by_update(micro_batch: int, accumulation_steps: int, updates: int,
                           dtype: torch.dtype = torch.float32, model: str = "tiny-gpt", lr: float = 1e-3,
                           seed: int = 0) -> list[float]:
    """Largest |w_accumulated − w_big| over all weights after each of ``updates`` AdamW updates (MB-8).

    Both runs see the same samples per update (one stream cut in groups of A microbatches of
    m, the other in single microbatches of m × A) and use the engine with token normalization.
    Only the order of floating-point operations differs. Entry k is the difference after
    update k + 1, so the first and the last compare weights with weights.
    """
    total = micro_batch * accumulation_steps * updates
    task = task_of(model)
    dataset = AdditionDataset(total, seed=seed) if task == "causal" else BlobDataset(total, seed=seed)
    base = build_model(model, seed=seed, dtype=dtype)
    runs: list[list[torch.Tensor]] = []
    for size, steps in [(micro_batch, accumulation_steps), (micro_batch * accumulation_steps, 1)]:
        net, after = copy.deepcopy(base), []
        engine = Accumulator(net, torch.optim.AdamW(net.parameters(), lr=lr), accumulation_steps=steps, task=task)
        engine.run(make_groups(MicrobatchStream(dataset, size, seed=seed).microbatches(0), steps, task),
                   on_update=lambda _, net=net, after=after: after.append(
                       torch.cat([p.detach().flatten() for p in net.parameters()])))
        runs.append(after)
    return [float((split - big).abs().max()) for split, big in zip(*runs)]


def weight_drift(micro_batch: int, accumulation_steps: int, updates: int, dtype: torch.dtype = torch.float32,
                 model: str = "tiny-gpt", lr: float = 1e-3, seed: int = 0) -> float:
    """Largest |w_accumulated − w_big| over all weights after ``updates`` AdamW updates (MB-8):
    the last entry of :func:`weight_drift_by_update` (0 for no update)."""
    drifts = weight_drift_by_update(micro_batch, accumulation_steps, updates, dtype, model, lr, seed)
    return drifts[-1] if drifts else 0.0


def rounding_differences(micro_batch: int = 2, accumulation_steps: int = 4, updates: int = 20,
                         seed: int = 0, progress: Progress | None = None) -> RoundingResult:
    """One-update gradient gaps in fp64/fp32/bf16, and the weight drift after the first and after
    the last of ``updates`` updates (MB-8).

    ``progress(fraction, note)`` is called before each of the (up to) five measurements.
    """
    drifts = [("fp64", torch.float64), ("fp32", torch.float32)] if updates else []
    step = _steps(progress, 3 + len(drifts))
    mbs = controlled_microbatches("tiny-gpt", micro_batch, accumulation_steps, seed=seed)
    fp64 = build_model("tiny-gpt", seed=seed, dtype=torch.float64)
    step(t("one update in {precision}", precision="fp64"))
    one = {"fp64": verify_one_update(fp64, microbatches=mbs, task="causal", tolerance=TOLERANCES["fp64"]).max_rel_diff}
    for precision in ("fp32", "bf16"):
        step(t("one update in {precision}", precision=precision))
        one[precision] = verify_one_update("tiny-gpt", microbatches=mbs, precision=precision, seed=seed).max_rel_diff
    drift, first = {}, {}
    for name, dtype in drifts:
        step(t("{updates} updates trained both ways in {precision}", updates=updates, precision=name))
        by_update = weight_drift_by_update(micro_batch, accumulation_steps, updates, dtype, seed=seed)
        first[name], drift[name] = by_update[0], by_update[-1]
    return RoundingResult(micro_batch, accumulation_steps, updates, one, drift, first)


class RoundingLab(Lab):
    """How large are rounding differences, per precision? Measured on tiny-gpt (course: MB-8)."""

    def __init__(self, micro_batch: int = 2, accumulation_steps: int = 4, updates: int = 20):
        self.title = t("MB-8 · Same samples, same maths, different order of additions: the size of the difference")
        super().__init__(
            micro_batch=int_slider(micro_batch, 1, 8, "m"),
            accumulation_steps=int_slider(accumulation_steps, 1, 8, "A"),
            updates=int_slider(updates, 0, 50, t("updates"), step=5),
        )

    def compute(self, micro_batch: int, accumulation_steps: int, updates: int) -> RoundingResult:
        return rounding_differences(micro_batch, accumulation_steps, updates, progress=self.report_progress)

    def render(self, result: RoundingResult) -> None:
        fig, ax = subplots(figsize=(6.5, 3.2))
        names = list(result.one_update)
        ax.bar(names, [max(v, _FLOOR) for v in result.one_update.values()], color=["C2", "C0", "C1"])
        ax.scatter(names, [TOLERANCES[n] for n in names], marker="_", s=900, color="k", label=t("tolerance"))
        ax.set_yscale("log")
        ax.set_ylabel(t("relative gradient gap"))
        ax.set_title(t("one update: m={m} × A={A} vs one batch", m=result.micro_batch, A=result.accumulation_steps))
        ax.legend(fontsize=8)
        show_figure(fig)
        rows = [{"precision": name, "gap": gap, "tolerance": TOLERANCES[name],
                 "first": result.drift_first.get(name, "—"), "drift": result.drift.get(name, "—")}
                for name, gap in result.one_update.items()]
        show_table(rows, headers={"precision": t("precision"), "gap": t("one-update gap"), "tolerance": t("tolerance"),
                                  "first": t("max |Δw| after 1 update"),
                                  "drift": t("max |Δw| after {n} updates", n=result.updates)})


# ----------------------------------------------------------------------------- MB-8: updates per epoch
@dataclass
class UpdatesRow:
    """One global batch: the plan and the updates one epoch makes, counted and by formula. Course: MB-8."""

    plan: BatchPlan
    updates: int
    formula: int
    partial_samples: int


def count_updates(dataset_size: int, plan: BatchPlan, last_group: str = "keep", seed: int = 0) -> UpdatesRow:
    """Count the updates of one epoch on replica 0 by iterating the real group stream (MB-8).

    ``formula`` is ceil(samples of the replica ÷ (m × A)) for ``keep`` and the number of full groups of A
    microbatches for ``drop``; ``partial_samples`` is how many samples the short last group
    holds (kept or dropped, see :class:`gastudy.core.groups.GroupStream`).
    """
    dataset = BlobDataset(dataset_size, seed=seed)
    stream = MicrobatchStream(dataset, plan.micro_batch, seed=seed, replicas=plan.replicas, rank=0)
    groups = make_groups(stream.microbatches(0), plan.accumulation_steps, "classification", last_group)
    counted = sum(1 for _ in groups)
    per_replica = len(stream.indices(0))
    formula = (math.ceil(per_replica / plan.per_replica) if last_group == "keep"
               else len(stream) // plan.accumulation_steps)
    partial = len(groups.partial.sample_ids) if groups.partial else 0
    return UpdatesRow(plan, counted, formula, partial)


class UpdatesPerEpochLab(Lab):
    """Same samples seen, different number of updates: one epoch per global batch (course: MB-8)."""

    def __init__(self, dataset_size: int = 1000, micro_batch: int = 8):
        import ipywidgets as w

        self.title = t("MB-8 · Changing the global batch changes the number of updates per epoch")
        super().__init__(
            dataset_size=int_slider(dataset_size, 100, 4000, t("samples"), step=100),
            micro_batch=int_slider(micro_batch, 1, 32, "m"),
            replicas=int_slider(1, 1, 4, "D"),
            last_group=w.Dropdown(options=[(t("keep"), "keep"), (t("drop"), "drop")], value="keep",
                                  description=t("last group")),
        )

    def compute(self, dataset_size: int, micro_batch: int, replicas: int, last_group: str) -> list[UpdatesRow]:
        return [count_updates(dataset_size, BatchPlan(micro_batch, a, replicas), last_group) for a in (1, 2, 4, 8, 16)]

    def render(self, result: list[UpdatesRow]) -> None:
        fig, ax = subplots(figsize=(6.5, 3.2))
        batches = [r.plan.effective_batch for r in result]
        ax.plot(batches, [r.updates for r in result], "o-")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel(t("global batch m × A × D (samples per update)"))
        ax.set_ylabel(t("updates per epoch"))
        show_figure(fig)
        show_table([{"plan": plan_text(r.plan), "counted": r.updates, "formula": r.formula,
                     "partial": r.partial_samples} for r in result],
                   headers={"plan": t("plan"), "counted": t("updates / epoch (counted)"), "formula": t("formula"),
                            "partial": t("samples in the short last group")})


def plan_text(plan: BatchPlan) -> str:
    """``m=8 × A=2 × D=1 = 16 samples per update`` in the course language (course: MB-8; the
    library's :meth:`BatchPlan.describe` stays English for logs)."""
    return t("m={m} × A={A} × D={D} = {n} samples per update", m=plan.micro_batch, A=plan.accumulation_steps,
             D=plan.replicas, n=plan.effective_batch)


# ----------------------------------------------------------------------------- GA-2: throughput
LAYOUTS = ((32, 1), (4, 8), (1, 32))  # (m, A): one real batch of 32, then accumulation


def devices() -> list[str]:
    """The devices a lab can measure on: ``cpu``, plus ``cuda`` when a GPU is present. Course: GA-2, CK-2, MB-9."""
    return ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]


def best_samples_per_s(run: RunTiming) -> float:
    """Samples per second of the fastest timed repeat (m × A ÷ min time). Course: GA-2.

    The least disturbed repeat is the best estimate of what the computation costs when other
    programs share the machine (the convention of ``timeit``); the median is shown beside it.
    """
    return run.effective_batch / min(run.timing.times_s)


def round_ratios(run: RunTiming, reference: RunTiming) -> list[float]:
    """Round by round, the time of ``reference`` ÷ the time of ``run`` (1.2: ``run`` was 20 %
    faster in that round), sorted. Course: GA-2.

    :func:`gastudy.memory.timing.compare_layouts` times the configurations interleaved: round i
    calls each one once, so a busy moment of the machine slows every configuration of that
    round alike, and the ratio within a round cancels it. Both must hold the same samples per
    update (``ValueError`` otherwise).
    """
    if run.effective_batch != reference.effective_batch:
        raise ValueError(f"compare splits of one update: {run.effective_batch} vs {reference.effective_batch} samples")
    return sorted(ref / own for own, ref in zip(run.timing.times_s, reference.timing.times_s))


def relative_speed(run: RunTiming, reference: RunTiming) -> float:
    """How fast ``run`` processes samples relative to ``reference``: the median over the rounds
    of :func:`round_ratios` (a disturbed round is dropped by the median). Course: GA-2."""
    return statistics.median(round_ratios(run, reference))


def fixed_cost_share(split: RunTiming, reference: RunTiming) -> float:
    """φ, the share of the real batch's update time that every microbatch pays again, whatever
    its size (Python, one launch per kernel, a pass over the weights). Course: GA-2.

    With a fixed cost c₀ per microbatch and c₁ per sample, an update of B samples in A
    microbatches takes t(A) = A·c₀ + B·c₁, so t(A) ÷ t(1) = 1 + (A − 1)·φ with φ = c₀ ÷ t(1).
    Estimated from the measured :func:`relative_speed` of ``split`` (A > 1 microbatches) against
    ``reference`` (one microbatch of the same B): φ = (1 ÷ speed − 1) ÷ (A − 1).
    """
    if reference.accumulation_steps != 1 or split.accumulation_steps < 2:
        raise ValueError("fixed_cost_share compares a split of A ≥ 2 microbatches with one real batch (A = 1)")
    return (1 / relative_speed(split, reference) - 1) / (split.accumulation_steps - 1)


def predicted_speed(share: float, accumulation_steps: int) -> float:
    """The speed of A microbatches relative to one real batch when each microbatch pays the fixed
    share φ of the real batch's time and the per-sample cost does not depend on m:
    t(1) ÷ t(A) = 1 ÷ (1 + (A − 1)·φ). Course: GA-2."""
    return 1 / (1 + (accumulation_steps - 1) * share)


SPEED_MARGIN = 0.15
"""The margin chapter 07's timing checks leave for noise (course: GA-2). It rests on this lab run
repeatedly on two cores shared with other work: the per-round median of a split's speed moved by
up to about 10 % from run to run (the 1 × 32 split's by more on a loaded machine). A claim is made
only beyond 1 ± this, or beyond a prediction × (1 + this)."""


class ThroughputLab(Lab):
    """Samples/s of one update of 32 samples split as m × A = 32 × 1, 4 × 8 and 1 × 32 (course: GA-2).

    The measurement is :func:`gastudy.memory.timing.compare_layouts` on the engine: the same 32
    samples and the same model for every split; a fresh model per split; one CPU thread
    (:func:`steady_timing`). The model is a small tiny-gpt (hidden 32 to 128, 4 layers): small
    enough that a change is measured in a few seconds, large enough to show the same effect as a
    wide one (the per-microbatch overhead of the 1 × 32 split). Each setting is measured once and
    kept: going back to it only redraws.
    """

    def __init__(self, hidden: int = 64, seq_len: int = 32, repeats: int = 5):
        import ipywidgets as w

        self.title = t("GA-2 · Is accumulation faster? Time one update of 32 samples split three ways")
        super().__init__(
            hidden=w.Dropdown(options=[32, 64, 128], value=hidden, description=t("hidden")),
            seq_len=w.Dropdown(options=[16, 32, 64], value=seq_len, description=t("sequence")),
            repeats=int_slider(repeats, 3, 6, t("repeats")),
            device=w.Dropdown(options=devices(), value=devices()[-1], description=t("device")),
        )

    def compute(self, hidden: int, seq_len: int, repeats: int, device: str) -> list[RunTiming]:
        return self.kept(self._measure, hidden, seq_len, repeats, device)

    def _measure(self, hidden: int, seq_len: int, repeats: int, device: str) -> list[RunTiming]:
        kwargs = {"hidden": hidden, "layers": 4, "heads": 4, "max_len": max(64, seq_len)}
        with steady_timing(device):
            return compare_layouts(LAYOUTS, model="tiny-gpt", model_kwargs=kwargs, seq_len=seq_len,
                                   repeats=repeats, device=device, progress=timing_progress(self))

    def render(self, result: list[RunTiming]) -> None:
        fig, (left, right) = subplots(1, 2, figsize=(10, 3.2))
        labels = [f"m={r.micro_batch} × A={r.accumulation_steps}" for r in result]
        left.bar(labels, [best_samples_per_s(r) for r in result], color=["C2", "C0", "C1"], alpha=0.8,
                 label=t("best of the repeats"))
        left.scatter(labels, [r.timing.samples_per_s for r in result], color="k", zorder=3, label=t("median"))
        left.legend(fontsize=8)
        left.set_ylabel(t("samples / s"))
        left.set_title(t("throughput: higher is faster"))
        right.bar(labels, [r.saved_bytes / 2**20 for r in result], color=["C2", "C0", "C1"])
        right.set_ylabel(t("MiB saved for backward, per microbatch"))
        right.set_title(t("what accumulation buys: memory"))
        show_figure(fig)
        share = fixed_cost_share(result[-1], result[0])  # φ from the split into the most microbatches
        show_table([{"split": lab, "best s": min(r.timing.times_s), "best": best_samples_per_s(r),
                     "median": r.timing.samples_per_s, "relative": relative_speed(r, result[0]),
                     "predicted": predicted_speed(share, r.accumulation_steps),
                     "tokens": r.timing.tokens_per_s, "spread": r.timing.spread, "saved": r.saved_bytes / 2**20,
                     "peak": r.peak_bytes / 2**20}
                    for lab, r in zip(labels, result)],
                   headers={"split": t("split"), "best s": t("best s / update"), "best": t("samples/s (best)"),
                            "median": t("samples/s (median)"),
                            "relative": t("speed ÷ real batch (per round, median)"),
                            "predicted": t("predicted: 1 ÷ (1 + (A − 1)·φ)"),
                            "tokens": t("tokens/s (median)"), "spread": t("spread"), "saved": t("saved MiB"),
                            "peak": t("peak MiB")})


def timing_progress(lab: Lab) -> Progress:
    """``lab.report_progress`` for :mod:`gastudy.memory.timing`'s notes (``preparing 1 of 3``,
    ``timing, round 2 of 5``): the library writes them in English, the busy row shows them in
    the course language. Course: GA-2, CK-2 (every timing lab)."""
    import re

    def progress(fraction: float, note: str) -> None:
        rounds = re.search(r"round (\d+) of (\d+)", note)
        prepared = re.fullmatch(r"preparing (\d+) of (\d+)", note)
        if rounds:
            note = t("timing, round {i} of {n}", i=rounds[1], n=rounds[2])
        elif prepared:
            note = t("preparing configuration {i} of {n}", i=prepared[1], n=prepared[2])
        lab.report_progress(fraction, note)

    return progress


# ----------------------------------------------------------------------------- exercises' helpers
def bn_gap(micro_batch: int, accumulation_steps: int, seed: int = 0) -> float:
    """The BatchNorm model's relative gradient gap for one update of m × A (MB-8)."""
    return verify_one_update("bn-mlp", micro_batch, accumulation_steps, seed=seed).max_rel_diff

"""Chapter 01: microbatch, backward, update (sections MB-1, GA-1, GA-3).

- :func:`play_group` plays the four-step diagram with real gradients: after microbatch k the
  gradient tensors hold G1 + … + Gk, the parameters have not moved, and after the last one the
  sum equals the big-batch gradient (:class:`StepDiagramLab`, GA-1).
- :class:`ActivationMemoryLab`: bytes saved for backward by one microbatch, for every split
  m × A of the same 32 samples (GA-1, measured with :func:`gastudy.memory.saved.saved_bytes`).
- :class:`KnobsLab`: the framework's two knobs (per-device batch size, accumulation steps)
  as m and A, and the groups they really produce (GA-3).
- :class:`ZeroGradLab`: both ``zero_grad`` mistakes run on purpose and named (MB-1).
- :func:`last_share`: how large the last microbatch's share of the big-batch gradient is — all
  that zeroing per microbatch leaves — set by how the shares line up: 1/A and 1/√A are two
  regimes (aligned, unrelated), not bounds (MB-1).
- :class:`LoggingAxesLab`: one pair of runs plotted against microbatches, updates, samples
  and tokens — "step" alone is ambiguous (MB-1).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from gastudy.check.steps import first_step_gradients, record_steps
from gastudy.check.verify import (
    TOLERANCES,
    compare_gradients,
    controlled_microbatches,
    reference_gradients,
)
from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator, model_inputs
from gastudy.core.groups import build_group, make_groups
from gastudy.core.plan import BatchPlan
from gastudy.course import mistakes
from gastudy.course.checks import library_says
from gastudy.course.i18n import language, t
from gastudy.course.models import build_model
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots

DTYPES = {"float64": (torch.float64, "fp64"), "float32": (torch.float32, "fp32")}


def gradient_snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    """A copy of every parameter's current ``.grad`` by name (parameters without one skipped).
    Course: GA-1, MB-1."""
    return {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}


def parameter_snapshot(model: nn.Module) -> dict[str, torch.Tensor]:
    """A copy of every parameter's value by name. Course: MB-1."""
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def total_norm(tensors: dict[str, torch.Tensor]) -> float:
    """Euclidean norm over all tensors together (float64). Course: GA-1."""
    return float(torch.sqrt(sum((t.double() ** 2).sum() for t in tensors.values())))


@dataclass
class GroupReplay:
    """What :func:`play_group` measured, one row per microbatch.

    ``partial_sums[k]`` holds the gradient tensors after k+1 backward passes (G1 + … + Gk+1);
    ``items`` the supervised items per microbatch; ``denominator`` their sum (fixed before the
    first backward); ``params_unchanged`` whether the parameters stayed fixed through the group.
    Course: GA-1, MB-1.
    """

    partial_sums: list[dict[str, torch.Tensor]]
    items: list[int]
    samples: list[int]
    denominator: int
    params_unchanged: bool


def play_group(
    model: nn.Module,
    microbatches: list[dict[str, torch.Tensor]],
    task: str = "causal",
    normalization: str = "tokens",
) -> GroupReplay:
    """Run one group's forward/backward passes by hand and snapshot the gradients after each.

    Each microbatch's loss is the engine's own normalized contribution
    (the engine's :class:`~gastudy.core.loss.Normalization`), so the replay is exactly what ``update`` does before
    its optimizer step — minus the step. The model's gradients are left accumulated (call
    ``model.zero_grad`` afterwards). Course: GA-1, MB-1.
    """
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # never stepped here
    engine = Accumulator(
        model,
        optimizer,
        accumulation_steps=len(microbatches),
        task=task,
        normalization=mistakes.normalization(normalization),
    )
    group = build_group(0, microbatches, len(microbatches), task)
    denominator = engine.replicas.group_denominator(group)  # known before the first backward
    before = parameter_snapshot(model)
    device = next(model.parameters()).device
    sums = []
    for mb in group.microbatches:
        loss = engine.normalization.loss(model(**model_inputs(mb, device)), mb, group, denominator, 1)
        loss.backward()
        sums.append(gradient_snapshot(model))
    after = parameter_snapshot(model)
    unchanged = all(torch.equal(before[n], after[n]) for n in before)
    samples = [int(mb["sample_ids"].numel()) for mb in microbatches]
    return GroupReplay(sums, group.items, samples, denominator, unchanged)


def engine_gradient(
    model: nn.Module,
    microbatches: list[dict[str, torch.Tensor]],
    task: str = "causal",
    normalization: str = "tokens",
    accumulation_steps: int | None = None,
    **engine_options: Any,
) -> dict[str, torch.Tensor]:
    """The gradient :meth:`Accumulator.update` hands to the optimizer for these microbatches.

    Runs one real update on ``model`` (SGD, lr 0.1; A defaults to the number of microbatches,
    a larger A makes them a short group) and returns the gradients seen at the step — after
    unscaling and clipping when ``engine_options`` ask for ``precision="fp16"`` or
    ``clip_grad_norm``. Course: GA-1, MB-4, MB-5.
    """
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    A = accumulation_steps or len(microbatches)
    engine = Accumulator(
        model, optimizer, accumulation_steps=A, task=task, normalization=mistakes.normalization(normalization),
        **engine_options
    )
    with record_steps(model, optimizer, track_applied=False) as steps:
        engine.update(build_group(0, microbatches, A, task))
    return first_step_gradients(steps)


@dataclass
class StepDiagramResult:
    """GA-1 measured: per-step rows, the final gap to the big batch and its tolerance.
    Course: GA-1."""

    rows: list[dict[str, Any]]
    big_batch_norm: float
    max_abs_diff: float
    max_rel_diff: float
    tolerance: float
    params_unchanged: bool
    engine_diff: float
    micro_batch: int
    accumulation_steps: int
    dtype: str


class StepDiagramLab(Lab):
    """The step diagram with real gradients: G1, G1+G2, … then the update (GA-1, MB-1).

    Controls: ``micro_batch`` (m), ``accumulation_steps`` (A), ``dtype`` (float64/float32).
    ``result.max_rel_diff`` compares G1+…+GA with the gradient of one batch of m·A samples
    (variable-length addition problems, token-normalized), against ``result.tolerance``
    (:data:`gastudy.check.verify.TOLERANCES`). ``result.engine_diff`` is the gap between the replay
    and what the engine's ``update`` gave the optimizer (0 when they are the same computation).

    Each setting (m, A, dtype) is measured once and kept, so going back to a setting only redraws.
    A change advances the busy row's progress bar per pass it measures (big batch, the group's A
    backward passes, the engine's update) and once more before drawing.
    Course: GA-1, MB-1.
    """

    def __init__(self, micro_batch: int = 8, accumulation_steps: int = 4, dtype: str = "float64"):
        import ipywidgets as w

        self.title = t("GA-1 · accumulate A microbatches of m, compare with one batch of m·A")
        self._margins: dict[str, dict[str, float]] = {}  # the figure's layout, once per course language
        self._drawing: tuple[str, Any, Any, Any] | None = None  # (language, figure, axes a, axes b)
        super().__init__(
            micro_batch=int_slider(micro_batch, 1, 16, "m"),
            accumulation_steps=int_slider(accumulation_steps, 1, 8, "A"),
            dtype=w.Dropdown(options=list(DTYPES), value=dtype, description="dtype"),
        )

    def compute(self, micro_batch: int, accumulation_steps: int, dtype: str) -> StepDiagramResult:
        return self.kept(self._measure, micro_batch, accumulation_steps, dtype)

    def _measure(self, micro_batch: int, accumulation_steps: int, dtype: str) -> StepDiagramResult:
        torch_dtype, key = DTYPES[dtype]
        mbs = controlled_microbatches("tiny-gpt", micro_batch, accumulation_steps)
        model = build_model("tiny-gpt", dtype=torch_dtype, layers=2)
        self.report_progress(0.0, t("one batch of {batch}", batch=micro_batch * accumulation_steps))
        ref = reference_gradients(copy.deepcopy(model), mbs)
        self.report_progress(0.25, t("{A} microbatches of {m}", A=accumulation_steps, m=micro_batch))
        replay = play_group(copy.deepcopy(model), mbs)
        rows, seen = [], 0
        for k, (grads, items) in enumerate(zip(replay.partial_sums, replay.items), 1):
            seen += items
            rows.append(
                {
                    "step": k,
                    "grads": " + ".join(f"G{j}" for j in range(1, k + 1))
                    if k <= 4
                    else f"G1 + … + G{k}",
                    "samples": replay.samples[k - 1],
                    "items": items,
                    "items so far": seen,
                    "norm": total_norm(grads),
                    "rel. gap to big batch": compare_gradients(grads, ref)[1],
                }
            )
        max_abs, max_rel = compare_gradients(replay.partial_sums[-1], ref)
        self.report_progress(0.5, t("the engine's update"))
        engine_diff = compare_gradients(
            engine_gradient(copy.deepcopy(model), mbs), replay.partial_sums[-1]
        )[0]
        return StepDiagramResult(
            rows,
            total_norm(ref),
            max_abs,
            max_rel,
            TOLERANCES[key],
            replay.params_unchanged,
            engine_diff,
            micro_batch,
            accumulation_steps,
            dtype,
        )

    def render(self, r: StepDiagramResult) -> None:
        self.report_progress(0.75, t("drawing the plot"))
        show_table(r.rows, headers={"step": t("step"), "grads": t("grads"), "samples": t("samples"),
                                    "items": t("items"), "items so far": t("items so far"), "norm": t("norm"),
                                    "rel. gap to big batch": t("rel. gap to big batch")})
        say(t("→ optimizer.step() with G1+…+G{A} (= one batch of {batch}), then zero_grad().   "
                "max |Δ| = {abs_diff:.3g}, relative {rel_diff:.3g} (tolerance {tol:g} in {dtype}); parameters {state} "
                "during the group", A=r.accumulation_steps, batch=r.micro_batch * r.accumulation_steps,
                abs_diff=r.max_abs_diff, rel_diff=r.max_rel_diff, tol=r.tolerance,
                dtype=r.dtype, state=t("unchanged") if r.params_unchanged else t("CHANGED")))
        fig, a, b = self._figure()
        steps = [row["step"] for row in r.rows]
        a.bar(steps, [row["norm"] for row in r.rows], color="tab:blue", label="‖G1+…+Gk‖")
        a.axhline(r.big_batch_norm, color="k", ls="--", label=t("big batch"))
        a.set_ylim(0, 1.35 * max(r.big_batch_norm, *(row["norm"] for row in r.rows)))  # room for the legend
        a.legend(fontsize=8, loc="upper left", ncol=2)
        b.plot(steps, [max(row["rel. gap to big batch"], 1e-18) for row in r.rows], "o-", color="tab:blue")
        b.axhline(r.tolerance, color="r", ls=":", label=t("tolerance {tol:g}", tol=r.tolerance))
        b.relim()
        b.autoscale_view(scalex=False)
        b.legend(fontsize=8)
        for ax in (a, b):
            ax.set_xlim(0.5, len(steps) + 0.5)
            ax.set_xticks(steps)  # one tick per backward pass (A ≤ 8), also for A = 1
        # Every redraw has the same titles, labels and legends: laid out on the first, reused after.
        self._margins[language()] = show_figure(fig, margins=self._margins.get(language()))

    def _figure(self) -> tuple[Any, Any, Any]:
        """The lab's figure and its two axes, built once per course language and reused: a redraw
        removes the previous bars, lines and legends and keeps the axes, their ticks, titles and
        labels (building those anew was about a third of a redraw)."""
        if self._drawing is None or self._drawing[0] != language():
            fig, (a, b) = subplots(1, 2, figsize=(10, 3.2))
            a.set_xlabel(t("backward passes so far (k)"))
            a.set_title(t("gradient norm grows towards the big batch"))
            b.set_yscale("log")
            b.set_xlabel(t("backward passes so far (k)"))
            b.set_title(t("relative gap to the big-batch gradient"))
            self._drawing = (language(), fig, a, b)
            return fig, a, b
        _, fig, a, b = self._drawing
        for ax in (a, b):
            for artist in [*ax.containers, *ax.lines]:
                artist.remove()
            ax.get_legend().remove()
        return fig, a, b


# ------------------------------------------------------------------ GA-1: activation memory
SPLITS = ["32×1", "16×2", "8×4", "4×8", "2×16", "1×32"]  # m × A, 32 samples in total


@dataclass
class ActivationMemoryResult:
    """Saved-for-backward bytes of the largest microbatch, per m × A split of the same samples.
    Course: GA-1."""

    bytes_by_split: dict[str, int]
    selected: str
    seq_len: int
    ratio_32x1_to_8x4: float


class ActivationMemoryLab(Lab):
    """GA-1: peak activation memory of m × A splits of 32 samples, measured.

    For each split the lab runs a forward of every microbatch and measures the exact bytes
    autograd keeps for backward (:func:`gastudy.memory.saved.saved_bytes`); the split's peak is the
    largest microbatch's. ``result.ratio_32x1_to_8x4`` is about 4: one batch of 32 keeps four
    times what one microbatch of 8 keeps.
    Course: GA-1.
    """

    def __init__(self, split: str = "8×4", seq_len: int = 16):
        import ipywidgets as w

        self.title = t("GA-1 · activation memory of one microbatch: m × A splits of 32 samples")
        self._cache: dict[int, dict[str, int]] = {}
        super().__init__(
            split=w.Dropdown(options=SPLITS, value=split, description="m×A"),
            seq_len=int_slider(seq_len, 8, 32, t("sequence"), step=8),
        )

    def compute(self, split: str, seq_len: int) -> ActivationMemoryResult:
        from gastudy.memory.saved import saved_bytes
        from gastudy.memory.workload import synthetic_microbatches

        if seq_len not in self._cache:
            model = build_model("tiny-gpt", layers=2).train()
            measured = {}
            for s in SPLITS:
                m, A = (int(x) for x in s.split("×"))
                mbs = synthetic_microbatches(model, m, A, seq_len)
                measured[s] = max(saved_bytes(model, mb).total for mb in mbs)
            self._cache[seq_len] = measured
        measured = self._cache[seq_len]
        return ActivationMemoryResult(measured, split, seq_len, measured["32×1"] / measured["8×4"])

    def render(self, r: ActivationMemoryResult) -> None:
        from gastudy.memory.saved import format_bytes

        fig, ax = subplots(figsize=(7, 3))
        names = list(r.bytes_by_split)
        kib = [r.bytes_by_split[n] / 1024 for n in names]
        ax.bar(names, kib, color=["tab:orange" if n == r.selected else "tab:gray" for n in names])
        ax.set_xlabel(t("m × A (same 32 samples)"))
        ax.set_ylabel(t("KiB saved for backward"))
        ax.set_title(t("sequence {seq_len}: {split} keeps {size}", seq_len=r.seq_len, split=r.selected,
                       size=format_bytes(r.bytes_by_split[r.selected])))
        show_figure(fig)
        say(t("32×1 keeps {ratio:.2f}× what 8×4 keeps per microbatch.", ratio=r.ratio_32x1_to_8x4))


# ------------------------------------------------------------------ GA-3: the two knobs
@dataclass
class KnobsResult:
    """GA-3: the plan for the two knobs and the groups a real stream produces with them.
    Course: GA-3."""

    plan: BatchPlan
    dataset_size: int
    group_samples: list[int]
    group_microbatches: list[int]
    updates: int


class KnobsLab(Lab):
    """GA-3: ``per_device_train_batch_size`` is m, ``gradient_accumulation_steps`` is A.

    The lab builds the real microbatch stream and groups of a small data set with those knobs;
    ``result.group_samples`` lists the samples in every update (m·A, the last one maybe fewer).
    Course: GA-3.
    """

    def __init__(
        self,
        per_device_train_batch_size: int = 8,
        gradient_accumulation_steps: int = 4,
        dataset_size: int = 100,
    ):
        self.title = t("GA-3 · the two knobs, and the groups they make")
        super().__init__(
            per_device_train_batch_size=int_slider(per_device_train_batch_size, 1, 32, t("batch/dev")),
            gradient_accumulation_steps=int_slider(
                gradient_accumulation_steps, 1, 16, t("acc. steps")
            ),
            dataset_size=int_slider(dataset_size, 10, 300, t("samples"), step=10),
        )

    def compute(
        self, per_device_train_batch_size: int, gradient_accumulation_steps: int, dataset_size: int
    ) -> KnobsResult:
        from gastudy.course.datasets import BlobDataset

        plan = BatchPlan(per_device_train_batch_size, gradient_accumulation_steps)
        stream = MicrobatchStream(BlobDataset(dataset_size), plan.micro_batch)
        groups = list(
            make_groups(stream.microbatches(), plan.accumulation_steps, task="classification")
        )
        return KnobsResult(
            plan, dataset_size, [g.samples for g in groups], [g.size for g in groups], len(groups)
        )

    def render(self, r: KnobsResult) -> None:
        show_table(
            [
                {
                    "framework knob": "per_device_train_batch_size",
                    "gastudy": "BatchPlan.micro_batch (m)",
                    "value": r.plan.micro_batch,
                },
                {
                    "framework knob": "gradient_accumulation_steps",
                    "gastudy": "BatchPlan.accumulation_steps (A)",
                    "value": r.plan.accumulation_steps,
                },
                {
                    "framework knob": t("(derived) effective batch"),
                    "gastudy": "BatchPlan.effective_batch",
                    "value": r.plan.effective_batch,
                },
            ],
            headers={"framework knob": t("framework knob"), "value": t("value")},
        )
        fig, ax = subplots(figsize=(7, 2.6))
        ax.bar(range(1, r.updates + 1), r.group_samples, color="tab:green")
        ax.axhline(r.plan.effective_batch, color="k", ls="--", label="m·A")
        ax.set_xlabel(t("update"))
        ax.set_ylabel(t("samples in the update"))
        ax.set_title(t("{samples} samples → {updates} updates", samples=r.dataset_size, updates=r.updates))
        ax.legend(fontsize=8)
        show_figure(fig, integer_x=True)


# ------------------------------------------------------------------ MB-1: logging axes
AXES = {
    "microbatches": "microbatches (forward passes)",
    "updates": "optimizer updates",
    "samples": "samples seen",
    "tokens": "supervised tokens seen",
}


def axis_label(axis: str) -> str:
    """The label of x-axis ``axis`` (a key of :data:`AXES`) in the current course language.
    Course: MB-1."""
    return {"microbatches": t("microbatches (forward passes)"), "updates": t("optimizer updates"),
            "samples": t("samples seen"), "tokens": t("supervised tokens seen")}[axis]


@dataclass
class AxisRun:
    """One training run's loss after every update, with all four x-axes. Course: MB-1."""

    label: str
    micro_batch: int
    accumulation_steps: int
    loss: list[float]
    axes: dict[str, list[int]]


def axis_run(
    micro_batch: int, accumulation_steps: int, dataset_size: int = 256, seed: int = 0
) -> AxisRun:
    """Train tiny-gpt for one epoch with :func:`gastudy.run.train.train` and keep the four axes.

    Units: ``microbatches`` and ``updates`` are counts; ``samples`` and ``tokens`` (supervised
    items) are cumulative over the run. Course: MB-1.
    """
    from gastudy.run.train import TrainConfig, train

    run = train(
        TrainConfig(
            model="tiny-gpt",
            micro_batch=micro_batch,
            accumulation_steps=accumulation_steps,
            dataset_size=dataset_size,
            seed=seed,
            progress=False,
        )
    )
    axes: dict[str, list[int]] = {k: [] for k in AXES}
    totals = dict.fromkeys(AXES, 0)
    for u in run.updates:
        for key, add in (
            ("microbatches", u.microbatches),
            ("updates", 1),
            ("samples", u.samples),
            ("tokens", u.denominator),
        ):
            totals[key] += add
            axes[key].append(totals[key])
    return AxisRun(
        f"m={micro_batch}, A={accumulation_steps}",
        micro_batch,
        accumulation_steps,
        [u.loss for u in run.updates],
        axes,
    )


@dataclass
class LoggingAxesResult:
    """Two runs (A=1 and A=``accumulation_steps``) and the axis chosen to plot them on.
    Course: MB-1."""

    axis: str
    runs: list[AxisRun]

    def final(self, axis: str) -> list[int]:
        """The last x value of each run on ``axis``."""
        return [run.axes[axis][-1] for run in self.runs]


class LoggingAxesLab(Lab):
    """MB-1: the same two runs plotted against microbatches, updates, samples or tokens.

    Run 1 updates after every microbatch (A=1); run 2 accumulates A microbatches. Both see
    the same samples. On the ``updates`` axis run 2 seems to learn A× faster per "step"; on
    ``samples`` or ``tokens`` they are comparable. ``result.final(axis)`` gives each run's
    last x value. Each run is trained once per (m, A) and kept: changing the axis only redraws,
    and a change that needs a new run (about a second of training each on 2 cores) advances the
    progress bar per run.
    Course: MB-1.
    """

    def __init__(self, axis: str = "updates", accumulation_steps: int = 8, micro_batch: int = 4):
        import ipywidgets as w

        self.title = t("MB-1 · one pair of runs, four x-axes")
        self._runs: dict[tuple[int, int], AxisRun] = {}
        names = {"microbatches": t("microbatches"), "updates": t("updates"), "samples": t("samples"),
                 "tokens": t("tokens")}
        super().__init__(
            axis=w.Dropdown(options=[(names[k], k) for k in AXES], value=axis, description=t("x-axis")),
            accumulation_steps=int_slider(accumulation_steps, 2, 16, t("A (run 2)")),
            micro_batch=int_slider(micro_batch, 1, 8, "m"),
        )

    def _run(self, m: int, A: int) -> AxisRun:
        if (m, A) not in self._runs:
            self._runs[(m, A)] = axis_run(m, A)
        return self._runs[(m, A)]

    def compute(self, axis: str, accumulation_steps: int, micro_batch: int) -> LoggingAxesResult:
        wanted = [(micro_batch, 1), (micro_batch, accumulation_steps)]
        missing = [key for key in wanted if key not in self._runs]
        for i, (m, A) in enumerate(missing):
            self.report_progress(i / len(missing), t("training m={m}, A={A}", m=m, A=A))
            self._run(m, A)
        return LoggingAxesResult(axis, [self._run(m, A) for m, A in wanted])

    def render(self, r: LoggingAxesResult) -> None:
        fig, ax = subplots(figsize=(7, 3))
        for run, style in zip(r.runs, ("o-", "s-")):
            ax.plot(run.axes[r.axis], run.loss, style, ms=3, label=run.label)
        ax.set_xlabel(axis_label(r.axis))
        ax.set_ylabel(t("loss (token-weighted, per update)"))
        ax.set_title(t("x = {axis}: last x = {values}", axis=axis_label(r.axis),
                       values=t(" vs ").join(map(str, r.final(r.axis)))))
        ax.legend(fontsize=8)
        show_figure(fig)


# ------------------------------------------------------------------ MB-1: zero_grad mistakes
ZERO_GRAD_LOOPS = {
    "correct": "correct_update",
    "zero per microbatch": "zero_per_microbatch",
    "forget zero_grad": "forget_zero_grad",
}


def loop_name(loop: str) -> str:
    """The name of loop ``loop`` (a key of :data:`ZERO_GRAD_LOOPS`) in the current course language.
    Course: MB-1."""
    return {"correct": t("correct"), "zero per microbatch": t("zero per microbatch"),
            "forget zero_grad": t("forget zero_grad")}.get(loop, loop)


@dataclass
class ZeroGradResult:
    """MB-1: for each loop, the gradient at every update's step against that group's big batch.

    ``gaps[loop][i]`` is ‖g_step − g_big‖ ÷ ‖g_big‖ for update i (0 = right); ``norm_ratio[loop][i]``
    is ‖g_step‖ ÷ ‖g_big‖ (1 = right size; when only the last microbatch is left, its share's size,
    which :func:`last_share` explains); ``verdict`` is
    :func:`gastudy.check.diagnostics.diagnose_ineffective_accumulation` on the selected loop.
    Course: MB-1.
    """

    loop: str
    gaps: dict[str, list[float]]
    verdict: str
    fired: bool
    tolerance: float
    norm_ratio: dict[str, list[float]]

    def mean_ratio(self, loop: str) -> float:
        """‖g_step‖ ÷ ‖g_big‖ averaged over the updates of ``loop``."""
        return sum(self.norm_ratio[loop]) / len(self.norm_ratio[loop])


def step_gaps(update_fn: Any, setup: Any, groups: int) -> tuple[list[float], list[float]]:
    """Run ``groups`` consecutive updates of ``update_fn`` on one fresh copy of ``setup``'s model;
    for each, the relative gap between the gradient at the step and the group's big-batch
    gradient (at the parameters the update started from), and the ratio of their norms
    ‖g_step‖ ÷ ‖g_big‖. Returns ``(gaps, ratios)``. Course: MB-1."""
    from gastudy.check.diagnostics import reference_gradient, rel_diff
    from gastudy.check.steps import record_steps

    model, optimizer, scheduler = setup.fresh()
    gaps, ratios = [], []
    for i in range(groups):
        group = setup.group(i)
        ref = reference_gradient(model, group, setup.task)
        with record_steps(model, optimizer) as steps:
            update_fn(model, optimizer, scheduler, group)
        gaps.append(rel_diff(steps[0].gradient, ref) if steps else float("nan"))
        ratios.append(float(steps[0].gradient.norm() / ref.norm()) if steps else float("nan"))
    return gaps, ratios


class ZeroGradLab(Lab):
    """MB-1: zero_grad per microbatch (cancels accumulation) or never (leaks the last group).

    Controls: ``loop`` (the one the detector judges), ``accumulation_steps`` (A) and
    ``updates``. All three loops run on the same float64 tiny-gpt and data
    (:func:`gastudy.course.clinic.default_setup`); the plot shows every update's gap.
    The measurements depend only on A and the number of updates, and the verdict on those and
    the loop: both are computed once per setting and kept, so choosing another loop only redraws.
    Course: MB-1.
    """

    def __init__(
        self, loop: str = "zero per microbatch", accumulation_steps: int = 4, updates: int = 3
    ):
        import ipywidgets as w

        self.title = t("MB-1 · the two zero_grad mistakes, measured and named")
        self._measured: dict[tuple[int, int], tuple[Any, dict[str, tuple[list[float], list[float]]]]] = {}
        self._verdicts: dict[tuple[str, int, int], Any] = {}
        super().__init__(
            loop=w.Dropdown(options=[(loop_name(k), k) for k in ZERO_GRAD_LOOPS], value=loop, description=t("loop")),
            accumulation_steps=int_slider(accumulation_steps, 2, 8, "A"),
            updates=int_slider(updates, 2, 5, t("updates")),
        )

    def compute(self, loop: str, accumulation_steps: int, updates: int) -> ZeroGradResult:
        from gastudy.check.diagnostics import diagnose_ineffective_accumulation
        from gastudy.course import pitfalls
        from gastudy.course.clinic import default_setup

        fns = {name: getattr(pitfalls, fn) for name, fn in ZERO_GRAD_LOOPS.items()}
        if (accumulation_steps, updates) not in self._measured:  # all three loops: they do not depend on `loop`
            setup = default_setup(
                accumulation_steps=accumulation_steps, samples=2 * accumulation_steps * updates
            )
            measured = {}
            for i, (name, fn) in enumerate(fns.items()):  # a step of the progress bar per loop
                self.report_progress(i / len(fns), loop_name(name))
                measured[name] = step_gaps(fn, setup, updates)
            self._measured[(accumulation_steps, updates)] = (setup, measured)
        setup, measured = self._measured[(accumulation_steps, updates)]
        if (loop, accumulation_steps, updates) not in self._verdicts:
            self._verdicts[(loop, accumulation_steps, updates)] = diagnose_ineffective_accumulation(fns[loop], setup)
        verdict = self._verdicts[(loop, accumulation_steps, updates)]
        return ZeroGradResult(loop, {n: g for n, (g, _) in measured.items()}, str(verdict), verdict.fired,
                              setup.tol, {n: r for n, (_, r) in measured.items()})

    def render(self, r: ZeroGradResult) -> None:
        library_says(r.verdict)
        say(t("gradient size at the step ÷ the big batch's: {ratios}",
                ratios=", ".join(f"{loop_name(name)} {r.mean_ratio(name):.2f}" for name in r.norm_ratio)))
        fig, ax = subplots(figsize=(6.5, 2.8))
        for name, gaps in r.gaps.items():
            ax.semilogy(
                range(1, len(gaps) + 1),
                [max(g, 1e-17) for g in gaps],
                "o-",
                lw=3 if name == r.loop else 1,
                label=loop_name(name),
            )
        ax.axhline(r.tolerance, color="k", ls=":", label=t("tolerance"))
        ax.set_xlabel(t("update"))
        ax.set_ylabel(t("gap to the group's big batch"))
        ax.legend(fontsize=8)
        show_figure(fig, integer_x=True)


# ------------------------------------------------------------------ MB-1: the last share's size
@dataclass
class ShareRegime:
    """MB-1: the shares cᵢ = ∇(ℓᵢ / N) of one group's microbatches, and how large the last is.

    ``ratio`` is ‖c_A‖ ÷ ‖c₁ + … + c_A‖ — the size of what zeroing per microbatch leaves, against
    the big-batch gradient; ``rho`` the mean cosine between two different shares; ``updates`` how
    many big-batch updates on this same group the model made first (0: as it starts).
    Course: MB-1.
    """

    accumulation_steps: int
    updates: int
    ratio: float
    rho: float

    @property
    def formula(self) -> float:
        """1 / √(A (1 + (A − 1) ρ)): the ratio when every share has the same length and every pair
        the cosine ρ — 1/A for ρ = 1, 1/√A for ρ = 0, larger for ρ < 0."""
        A = self.accumulation_steps
        return (A * (1 + (A - 1) * self.rho)) ** -0.5


def group_shares(model: nn.Module, group: Any, task: str = "causal") -> list[torch.Tensor]:
    """Each microbatch's share of the group's big-batch gradient, ∇(ℓᵢ / N) with ℓᵢ its summed
    loss and N the group's supervised items, as one float64 vector per microbatch; on a copy of
    ``model``. Their sum is the big-batch gradient. Course: MB-1."""
    from gastudy.core.loss import summed_loss

    copy_ = copy.deepcopy(model)
    device = next(copy_.parameters()).device
    shares = []
    for mb in group.microbatches:
        copy_.zero_grad(set_to_none=True)
        loss_sum, _ = summed_loss(copy_(**model_inputs(mb, device)), mb, task)
        (loss_sum / group.supervised_items).backward()
        shares.append(torch.cat([p.grad.detach().double().flatten() for p in copy_.parameters()
                                 if p.grad is not None]))
    return shares


def last_share(accumulation_steps: int = 4, updates: int = 0, lr: float = 1e-2, seed: int = 0) -> ShareRegime:
    """The last microbatch's share of one group's big-batch gradient, on the detectors' float64
    tiny-gpt (:func:`gastudy.course.clinic.default_setup`, m = 2), after ``updates`` correct
    updates (AdamW, ``lr``) on that same group: as training nears the group's minimum the shares
    cancel (ρ < 0) and the last one outgrows 1/√A of the whole. Course: MB-1."""
    from gastudy.course.clinic import default_setup

    setup = default_setup(accumulation_steps=accumulation_steps, samples=2 * accumulation_steps, seed=seed)
    model, _, _ = setup.fresh()
    group = setup.group(0)
    engine = Accumulator(model, torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0),
                         accumulation_steps=accumulation_steps)
    for _ in range(updates):
        engine.update(group)
    return share_regime(group_shares(model, group, setup.task), updates)


def share_regime(shares: list[torch.Tensor], updates: int = 0) -> ShareRegime:
    """How large the last of ``shares`` (a group's microbatch shares, summing to its big-batch
    gradient) is against their sum, and their mean pairwise cosine. Course: MB-1."""
    if len(shares) < 2:
        raise ValueError(f"a group of {len(shares)} share(s) has no pair to compare: give at least 2")
    whole = torch.stack(shares).sum(0)
    cosines = [float(shares[i] @ shares[j] / (shares[i].norm() * shares[j].norm()))
               for i in range(len(shares)) for j in range(i + 1, len(shares))]
    return ShareRegime(len(shares), updates, float(shares[-1].norm() / whole.norm()), sum(cosines) / len(cosines))

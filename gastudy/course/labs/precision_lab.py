"""Chapter 05: mixed precision with a gradient scaler (section MB-5; MB-6 for attempted/applied).

- :class:`PrecisionLab`: fp32, bf16 and fp16 (with a scaler) on the CPU: the dtype autocast
  produces and the gap of one accumulated update to the fp32 big batch, against each
  precision's tolerance.
- :class:`OverflowLab`: an overflow injected into one group: the scaler skips that update
  (parameters untouched, scheduler not stepped), halves the scale, and the counters show
  attempted ≠ applied.
- :class:`ClippingOrderLab`: clipping after ``unscale_`` (right) vs clipping the still-scaled
  gradients (the applied gradient shrinks by the loss scale); the detector names it.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import torch

from gastudy.check.verify import verify_one_update
from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator, model_inputs
from gastudy.core.groups import make_groups
from gastudy.core.precision import PRECISIONS, Precision
from gastudy.course.checks import library_says
from gastudy.course.datasets import AdditionDataset
from gastudy.course.i18n import t
from gastudy.course.labs.updates import parameter_snapshot
from gastudy.course.mistakes import inject_overflow
from gastudy.course.models import build_model
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots


# ------------------------------------------------------------------ the three precisions
@dataclass
class PrecisionResult:
    """Per precision: autocast's logits dtype, whether a scaler is used, the relative gradient gap
    of one update (m=4, A=4) to the fp32 big batch, its tolerance and pass/fail. Course: MB-5."""

    selected: str
    rows: list[dict[str, Any]]

    def row(self, kind: str) -> dict[str, Any]:
        return next(r for r in self.rows if r["precision"] == kind)


def logits_dtype(kind: str) -> torch.dtype:
    """The dtype of tiny-gpt's logits under :meth:`Precision.autocast` on the CPU (MB-5).
    Course: MB-5."""
    model = build_model("tiny-gpt", layers=2)
    batch = next(iter(MicrobatchStream(AdditionDataset(4), 4)))
    with Precision(kind, "cpu").autocast():
        return model(**model_inputs(batch, torch.device("cpu"))).logits.dtype


class PrecisionLab(Lab):
    """MB-5: fp32 / bf16 / fp16 on the CPU, each checked with :func:`verify_one_update`.

    ``result.row(kind)`` has ``logits dtype``, ``scaler``, ``gap`` and ``tolerance``;
    every precision must pass within its own tolerance. The control picks the highlighted one.
    Course: MB-5.
    """

    def __init__(self, precision: str = "fp16"):
        import ipywidgets as w

        self.title = t("MB-5 · fp32, bf16 and fp16 (with a scaler) on this machine")
        self._rows: list[dict[str, Any]] | None = None
        super().__init__(
            precision=w.Dropdown(options=list(PRECISIONS), value=precision, description=t("precision"))
        )

    def compute(self, precision: str) -> PrecisionResult:
        if self._rows is None:
            self._rows = []
            for kind in PRECISIONS:
                report = verify_one_update("tiny-gpt", 4, 4, precision=kind)
                self._rows.append(
                    {
                        "precision": kind,
                        "logits dtype": str(logits_dtype(kind)).replace("torch.", ""),
                        "scaler": Precision(kind, "cpu").scaler is not None,
                        "gap": report.max_rel_diff,
                        "tolerance": report.tolerance,
                        "passed": report.passed,
                    }
                )
        return PrecisionResult(precision, self._rows)

    def render(self, r: PrecisionResult) -> None:
        show_table(r.rows, headers={"precision": t("precision"), "logits dtype": t("logits dtype"),
                                    "scaler": t("scaler"), "gap": t("gap"), "tolerance": t("tolerance"),
                                    "passed": t("passed")})
        if not torch.cuda.is_available():
            say(t("No GPU here: on a GPU the same code autocasts on 'cuda' and fp16/bf16 also save memory "
                    "and time; on the CPU they only show the numerics."))
        from matplotlib.patches import Patch

        fig, ax = subplots(figsize=(5.5, 2.6))
        names = [row["precision"] for row in r.rows]
        ax.bar(
            names,
            [max(row["gap"], 1e-18) for row in r.rows],
            color=["tab:orange" if n == r.selected else "tab:gray" for n in names],
        )
        tolerance = ax.scatter(
            names,
            [row["tolerance"] for row in r.rows],
            marker="_",
            s=800,
            color="k",
            label=t("tolerance"),
        )
        ax.set_yscale("log")
        ax.set_ylabel(t("gap to fp32 big batch"))
        # one legend entry per colour: the chosen precision's bar is orange, the others grey
        ax.legend(handles=[Patch(color="tab:orange", label=f"{t('measured gap')}: {r.selected}"),
                           Patch(color="tab:gray", label=t("measured gap")), tolerance],
                  fontsize=8, markerscale=0.4)
        show_figure(fig)


# ------------------------------------------------------------------ an injected overflow
@dataclass
class OverflowResult:
    """MB-5, MB-6: one fp16 run with an overflow injected in update ``overflow_at`` (1-based).

    ``rows``: per update the scale it used, the scale after, whether it was applied, whether
    any parameter changed, and the learning rate. ``counters`` is the engine's
    :class:`~gastudy.core.engine.Counters` as a dict.
    Course: MB-5, MB-6.
    """

    overflow_at: int | Collection[int]
    rows: list[dict[str, Any]]
    counters: dict[str, int]

    def row(self, update: int) -> dict[str, Any]:
        return self.rows[update - 1]


def overflow_run(
    updates: int = 6,
    overflow_at: int | Collection[int] = 3,
    init_scale: float = 2.0**16,
    micro_batch: int = 2,
    accumulation_steps: int = 2,
    seed: int = 0,
) -> OverflowResult:
    """Train tiny-gpt in fp16 with a gradient scaler on the CPU; inject an inf gradient in update
    ``overflow_at`` (1-based; several allowed; 0 = never) with :func:`inject_overflow`.
    Course: MB-5, MB-6."""
    at = {overflow_at} if isinstance(overflow_at, int) else set(overflow_at)
    model = build_model("tiny-gpt", seed=seed, layers=2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.9**step)
    engine = Accumulator(
        model,
        optimizer,
        accumulation_steps=accumulation_steps,
        scheduler=scheduler,
        precision=Precision("fp16", "cpu", init_scale=init_scale),
    )
    data = AdditionDataset(micro_batch * accumulation_steps * updates, seed=seed)
    rows = []
    for group in make_groups(
        MicrobatchStream(data, micro_batch, seed=seed).microbatches(), accumulation_steps
    ):
        before = parameter_snapshot(model)
        inject = group.index + 1 in at
        with inject_overflow(model) if inject else contextlib.nullcontext():
            result = engine.update(group)
        after = parameter_snapshot(model)
        rows.append(
            {
                "update": group.index + 1,
                "overflow injected": inject,
                "scale used": result.scale,
                "scale after": engine.precision.scale,
                "applied": result.applied,
                "parameters changed": any(not torch.equal(before[n], after[n]) for n in before),
                "lr": result.lr,
                "loss": result.loss,
            }
        )
    return OverflowResult(overflow_at, rows, engine.counters.to_dict())


class OverflowLab(Lab):
    """MB-5: the skipped update, the scale change, attempted vs applied.

    Controls: the number of updates, which one gets the overflow, and log2 of the initial
    scale. ``result.counters`` shows ``updates_attempted`` > ``updates_applied`` and
    ``scheduler_steps`` == ``updates_applied``.
    Course: MB-5.
    """

    def __init__(self, updates: int = 6, overflow_at: int = 3, log2_scale: int = 16):
        self.title = t("MB-5 · an injected overflow: skipped update and scale change")
        super().__init__(
            updates=int_slider(updates, 2, 10, t("updates")),
            overflow_at=int_slider(overflow_at, 0, 10, t("overflow at")),
            log2_scale=int_slider(log2_scale, 4, 20, t("log2 scale")),
        )

    def compute(self, updates: int, overflow_at: int, log2_scale: int) -> OverflowResult:
        return overflow_run(updates, overflow_at, 2.0**log2_scale)

    def render(self, r: OverflowResult) -> None:
        show_table(
            r.rows,
            [
                "update",
                "overflow injected",
                "scale used",
                "scale after",
                "applied",
                "parameters changed",
                "lr",
            ],
            headers={"update": t("update"), "overflow injected": t("overflow injected"),
                     "scale used": t("scale used"), "scale after": t("scale after"), "applied": t("applied"),
                     "parameters changed": t("parameters changed")},
        )
        c = r.counters
        say(t("attempted {attempted}, applied {applied}, scheduler steps {scheduler}, backward passes {backward}",
                attempted=c["updates_attempted"], applied=c["updates_applied"], scheduler=c["scheduler_steps"],
                backward=c["backward_passes"]))
        fig, ax = subplots(figsize=(6.5, 2.6))
        x = [row["update"] for row in r.rows]
        ax.step(x, [row["scale used"] for row in r.rows], where="mid", label=t("scale used"))
        skipped = [row["update"] for row in r.rows if not row["applied"]]
        ax.scatter(
            skipped, [r.row(u)["scale used"] for u in skipped], color="r", zorder=3, label=t("skipped")
        )
        ax.set_yscale("log", base=2)
        ax.set_xlabel(t("update"))
        ax.legend(fontsize=8)
        show_figure(fig, integer_x=True)


# ------------------------------------------------------------------ clipping order
@dataclass
class ClippingResult:
    """MB-5: the gradient norm each loop's optimizer step consumed, against what it should be.

    ``true_norm`` is the unclipped big-batch gradient norm; the right loop must apply
    ``min(true_norm, max_norm)``; the wrong one applies about ``max_norm / scale``.
    Course: MB-5.
    """

    max_norm: float
    true_norm: float
    applied_norm: dict[str, float]
    scale: float
    verdict: str
    fired: bool

    @property
    def expected_right(self) -> float:
        return min(self.true_norm, self.max_norm)


class ClippingOrderLab(Lab):
    """MB-5: clip after ``unscale_`` (right) or on the scaled gradients (wrong), fp16 on the CPU.

    Control: ``max_norm`` (log slider). The loops are :func:`gastudy.course.pitfalls.clip_after_unscale`
    and :func:`gastudy.course.pitfalls.clip_before_unscale`; the double-division detector judges the
    wrong one. Each max_norm is measured once and kept; a new one advances the progress bar per
    loop and for the detector.
    Course: MB-5.
    """

    def __init__(self, max_norm: float = 1.0):
        import ipywidgets as w

        self.title = t("MB-5 · clip the unscaled gradients")
        super().__init__(
            max_norm=w.FloatLogSlider(
                value=max_norm, base=10, min=-2, max=1, step=0.25, description="max_norm"
            )
        )

    def compute(self, max_norm: float) -> ClippingResult:
        return self.kept(self._measure, max_norm)

    def _measure(self, max_norm: float) -> ClippingResult:
        from gastudy.check.diagnostics import diagnose_double_division, reference_gradient
        from gastudy.check.steps import record_steps
        from gastudy.course.clinic import default_setup
        from gastudy.course.pitfalls import clip_after_unscale, clip_before_unscale, scaler_for

        setup = default_setup(dtype=torch.float32)
        group = setup.group(0)
        applied, scale = {}, 0.0
        for i, (name, shown, fn) in enumerate((
            ("after unscale (right)", t("after unscale (right)"), clip_after_unscale),
            ("before unscale (wrong)", t("before unscale (wrong)"), clip_before_unscale),
        )):
            self.report_progress(i / 3, shown)
            model, optimizer, scheduler = setup.fresh()
            with record_steps(model, optimizer) as steps, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(model, optimizer, scheduler, group, max_norm=max_norm)
            applied[name] = float(steps[0].gradient.norm()) if steps else 0.0
            scale = scaler_for(optimizer).get_scale()  # the scale of the (applied) step
        model, _, _ = setup.fresh()
        true = float(reference_gradient(model, group, setup.task).norm())
        self.report_progress(2 / 3, t("the double-division detector"))
        verdict = diagnose_double_division(
            functools.partial(clip_before_unscale, max_norm=max_norm), setup
        )
        return ClippingResult(max_norm, true, applied, scale, str(verdict), verdict.fired)

    def render(self, r: ClippingResult) -> None:
        loop_name = {"after unscale (right)": t("after unscale (right)"),
                     "before unscale (wrong)": t("before unscale (wrong)")}
        show_table(
            [{"loop": loop_name.get(k, k), "applied gradient norm": v} for k, v in r.applied_norm.items()]
            + [{"loop": t("expected: min(true, max_norm)"), "applied gradient norm": r.expected_right}],
            headers={"loop": t("loop"), "applied gradient norm": t("applied gradient norm")},
        )
        library_says(r.verdict)
        fig, ax = subplots(figsize=(6, 2.4))
        names = list(r.applied_norm)
        ax.barh(
            [loop_name.get(n, n) for n in names], [max(r.applied_norm[n], 1e-12) for n in names],
            color=["tab:green", "tab:red"]
        )
        ax.axvline(r.expected_right, color="k", ls="--", label=t("min(true norm, max_norm)"))
        ax.set_xscale("log")
        ax.set_xlabel(t("norm of the gradient the optimizer used"))
        ax.legend(fontsize=8)
        show_figure(fig)

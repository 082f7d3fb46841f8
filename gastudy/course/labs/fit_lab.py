"""Chapter 13 — make it fit: m, A, checkpointing, offload and precision chosen together.

The lab and helpers of ``notebooks/13_make_it_fit.ipynb``:

- :func:`budget_bound`: the budget inequality, fixed part + m × (bytes one sample keeps) ≤ budget,
  solved for m (the derivation; an upper bound, since the backward's temporaries are left out);
- :class:`FitLab`: :func:`gastudy.memory.fit.fit_to_budget` on tiny-gpt with a budget, a target,
  the smallest useful m and the precisions accepted; a bar per measurement against the budget;
- :func:`fit_verdict`, :func:`setting_label`: the library's decision in the course language;
- the closing step back to the configuration and the experiment budget: :data:`KEEP_FIXED` (what
  trials of one campaign must share), :func:`what_changed` between two run records,
  :func:`weight_gap` between two trained models and :func:`show_trials`, one row per trial.

The budget is written as a word ("budget"), never as B: in the course's notation B = m·A·D is the
number of samples of one update.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torch import nn

from gastudy.core.record import RunRecord
from gastudy.course.i18n import t
from gastudy.course.labs.experiment import devices
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots
from gastudy.memory.fit import FitPlan, Setting, fit_to_budget
from gastudy.memory.saved import format_bytes

MIB = 2**20
ADAMW_STATE_BYTES = 8
"""AdamW keeps two float32 moments per parameter: 8 bytes."""
PRECISION_CHOICES = {"fp32": ("fp32",), "fp32, bf16": ("fp32", "bf16")}


def budget_bound(parameters: int, per_sample_bytes: int, budget_bytes: int, bytes_per_value: int = 4,
                 optimizer_state_bytes: int = ADAMW_STATE_BYTES) -> int:
    """The largest m the budget inequality allows (0 when the fixed part alone is over it):

    ``parameters × (bytes_per_value [weights] + bytes_per_value [gradients] + optimizer_state_bytes)
    + m × per_sample_bytes ≤ budget_bytes`` — with P parameters and a bytes kept per sample, the
    chapter's 16 P + m·a ≤ budget.

    An upper bound: the measured peak also holds the backward's temporaries, which the
    inequality leaves out. Raises ``ValueError`` for a count or size < 1. Course: chapter 13.
    """
    for name, value in (("parameters", parameters), ("per_sample_bytes", per_sample_bytes),
                        ("budget_bytes", budget_bytes), ("bytes_per_value", bytes_per_value)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number ≥ 1, got {value!r}")
    fixed = parameters * (2 * bytes_per_value + optimizer_state_bytes)
    return max(0, (budget_bytes - fixed) // per_sample_bytes)


def setting_label(setting: Setting) -> str:
    """A :class:`~gastudy.memory.fit.Setting` in the course language: ``fp32``, ``fp32 ·
    checkpoint 1/2`` (one layer in two), ``… · offload``. Course: chapter 13."""
    parts = [setting.precision]
    if setting.every_n_layers:
        parts.append(t("checkpoint 1/{n}", n=setting.every_n_layers))
    if setting.offload:
        parts.append(t("offload"))
    return " · ".join(parts)


def fit_verdict(plan: FitPlan) -> str:
    """:attr:`FitPlan.verdict` in the course language, from the plan's measured numbers (the
    library's English verdict stays for logs and ``gastudy memory --fit``). Course: chapter 13."""
    tried = ", ".join(setting_label(r.setting) for r in plan.rungs)
    if plan.chosen is None:
        fixed = min(r.plan.fixed_bytes for r in plan.rungs)
        if fixed >= plan.budget_bytes:
            return t("Nothing fits {budget}: weights, gradients and optimizer state alone take {fixed}, and no setting "
                     "of the ladder shrinks them. Tried: {tried}. Shrink the fixed part (an optimizer with less state, "
                     "sharding) or raise the budget.", budget=format_bytes(plan.budget_bytes),
                     fixed=format_bytes(fixed), tried=tried)
        return t("Nothing fits {budget} with m ≥ {min_m}. Tried: {tried}. Raise the budget, accept a smaller m or "
                 "another precision.", budget=format_bytes(plan.budget_bytes), min_m=plan.min_micro_batch, tried=tried)
    text = t("{setting}: m = {m}, A = {A} fits (measured peak {peak} ≤ budget {budget}).",
             setting=setting_label(plan.setting), m=plan.micro_batch, A=plan.accumulation_steps,
             peak=format_bytes(plan.peak_bytes), budget=format_bytes(plan.budget_bytes))
    if len(plan.rungs) > 1:
        text += " " + t("Tried first, without an m ≥ {min_m} that fits: {cheaper}.", min_m=plan.min_micro_batch,
                        cheaper=", ".join(setting_label(r.setting) for r in plan.rungs[:-1]))
    return text


class FitLab(Lab):
    """The ladder on tiny-gpt (4 layers, hidden 256): budget, m·A target, smallest useful m,
    accepted precisions and device → the first setting, cheapest first, under which an m fits,
    every measurement shown against the budget. Each setting of the controls is measured once
    and kept. Course: chapter 13."""

    def __init__(self, budget_mib: int = 96, target: int = 32, min_micro_batch: int = 16,
                 precisions: str = "fp32"):
        import ipywidgets as w

        self.title = t("Make it fit · the cheapest setting under which a large enough m fits the budget")
        super().__init__(
            budget_mib=int_slider(budget_mib, 40, 240, t("budget MiB"), step=4),
            target=w.Dropdown(options=[16, 32, 64], value=target, description=t("m×A target")),
            min_micro_batch=w.Dropdown(options=[1, 2, 4, 8, 16], value=min_micro_batch,
                                       description=t("smallest m")),
            precisions=w.Dropdown(options=list(PRECISION_CHOICES), value=precisions,
                                  description=t("precisions")),
            device=w.Dropdown(options=devices(), value=devices()[-1], description=t("device")),
        )

    def compute(self, budget_mib: int, target: int, min_micro_batch: int, precisions: str,
                device: str) -> FitPlan:
        return self.kept(self._fit, budget_mib, target, min(min_micro_batch, target), precisions, device)

    def _fit(self, budget_mib: int, target: int, min_micro_batch: int, precisions: str, device: str) -> FitPlan:
        def progress(done: int, total: int, what: str) -> None:
            self.report_progress(done / total, what)

        return fit_to_budget("tiny-gpt", budget_mib * MIB, target, min_micro_batch=min_micro_batch,
                             precisions=PRECISION_CHOICES[precisions], device=device, progress=progress)

    def render(self, result: FitPlan) -> None:
        rows = [(r.setting, c) for r in result.rungs for c in r.plan.candidates]
        fig, ax = subplots(figsize=(6.5, 0.9 + 0.32 * len(rows)))
        labels = [f"{setting_label(s)} · {c.micro_batch}×{c.accumulation_steps}" for s, c in rows]
        ax.barh(labels, [c.peak_bytes / MIB for _, c in rows],
                color=["C2" if c.fits else "C3" for _, c in rows])
        ax.axvline(result.budget_bytes / MIB, color="k", ls="--", label=t("budget"))
        ax.invert_yaxis()  # the order tried, top to bottom
        ax.set_xlabel(t("measured peak, MiB"))
        ax.tick_params(axis="y", labelsize=7)
        ax.legend(fontsize=8, loc="lower right")
        show_figure(fig)
        chosen = (result.setting, result.micro_batch)
        show_table([{"setting": setting_label(s), "m": c.micro_batch, "A": c.accumulation_steps,
                     "peak": c.peak_bytes / MIB, "fits": t("yes") if c.fits else t("no")} for s, c in rows],
                   units={"peak": "MiB"}, headers={"setting": t("setting"), "peak": t("peak"), "fits": t("fits")},
                   highlight=[i for i, (s, c) in enumerate(rows) if (s, c.micro_batch) == chosen], max_rows=None)
        say(fit_verdict(result))


# ----------------------------------------------------------------------------- back to the configuration
KEEP_FIXED = ("model", "effective_batch", "replicas", "samples", "supervised_tokens", "updates_applied",
              "scheduler_steps", "precision", "normalization", "last_group_policy", "seed")
"""The run-record fields every trial of one campaign must share (MB-8, MB-10): the samples per
update B = m·A·D, and with it the updates and scheduler steps per epoch, the data (samples,
supervised tokens, seed), the precision, the normalization and the last-group policy. m and A may
differ between trials when B does not: that is the change a budget asks for."""


def what_changed(first: RunRecord, other: RunRecord) -> list[str]:
    """The fields of :data:`KEEP_FIXED` whose values differ between two run records, in that order
    (an empty list: the two trials are one experiment, as far as the record can tell). Chapter 13."""
    return [name for name in KEEP_FIXED if getattr(first, name) != getattr(other, name)]


def weight_gap(first: nn.Module, other: nn.Module) -> float:
    """‖w − w′‖₂ ÷ ‖w‖₂ over all parameters of two models of the same architecture (float64),
    the relative gap of chapter 01 applied to trained weights. Raises ``ValueError`` when their
    parameter names differ. Chapter 13."""
    import torch

    a, b = dict(first.named_parameters()), dict(other.named_parameters())
    if a.keys() != b.keys():
        raise ValueError("the two models have different parameters: compare two trials of one architecture")
    diff = torch.cat([(a[n].detach().double() - b[n].detach().double()).flatten() for n in a])
    ref = torch.cat([a[n].detach().double().flatten() for n in a])
    return float(diff.norm() / ref.norm())


def show_trials(runs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per trial (``label → TrainRun``): m, A, B, updates, the fields of :data:`KEEP_FIXED`
    changed against the first trial, the weight gap to it, and the seconds the run took; shown as
    a table and returned. Chapter 13."""
    (_, first), rows = next(iter(runs.items())), []
    for label, run in runs.items():
        rec = run.record
        rows.append({"trial": label, "m": rec.micro_batch, "A": rec.accumulation_steps, "B": rec.effective_batch,
                     "updates": rec.updates_applied, "changed": ", ".join(what_changed(first.record, rec)) or "—",
                     "weight gap": weight_gap(first.model, run.model), "seconds": rec.seconds or 0.0})
    show_table(rows, units={"seconds": "s"}, headers={"trial": t("trial"), "updates": t("updates"),
                                                      "changed": t("changed from the first"),
                                                      "weight gap": t("weight gap to the first"),
                                                      "seconds": t("time")},
               english=["changed"], max_rows=None)
    return rows

"""Chapter 11 — the troubleshooting clinic (course section MB-11; also MB-1, MB-3…MB-6, GA-5, GA-6).

The source guide lists five symptoms and where to look for each. The clinic produces every
symptom on purpose with a deliberately wrong loop (:mod:`gastudy.check.pitfalls`), lets the
detector that names it fire (:mod:`gastudy.check.diagnostics`), applies the fix, and shows the
detector quiet. Nothing here re-implements a loop or a detector: :func:`gastudy.check.clinic.run_clinic`
does the work; this module chooses, plots and tabulates.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from gastudy.check.clinic import ClinicCase, run_clinic
from gastudy.check.diagnostics import default_setup
from gastudy.check.pitfalls import PITFALLS
from gastudy.course.widgets import Lab, show_figure, show_html, show_table, subplots


@dataclass(frozen=True)
class Symptom:
    """One of the five symptoms of MB-11: what the learner sees and where to look."""

    detector: str
    seen: str
    look_for: str


SYMPTOMS: dict[str, Symptom] = {s.detector: s for s in [
    Symptom("double_division", "the loss is abnormally small", "a division applied twice (loss already ÷ items, "
            "then ÷ A again), an inflated denominator, or fp16 gradients clipped while still scaled"),
    Symptom("partition_dependence", "the result changes when the same samples are split differently",
            "ignored tokens counted, or a mean of microbatch means instead of a token-weighted mean"),
    Symptom("ineffective_accumulation", "accumulation has no effect (or leaks across updates)",
            "where zero_grad and optimizer.step are called"),
    Symptom("memory_growth", "memory grows with every microbatch of a group",
            "references kept between microbatches (losses still attached to their graphs)"),
    Symptom("schedule_drift", "the learning-rate schedule is shifted",
            "whether the scheduler counts backward passes instead of applied updates"),
]}

# The pitfall each symptom section of the notebook starts from (all are selectable).
FIRST_PITFALL = {"double_division": "double_division", "partition_dependence": "mean_of_means",
                 "ineffective_accumulation": "zero_per_microbatch", "memory_growth": "keep_graph",
                 "schedule_drift": "scheduler_per_microbatch"}


def pitfalls_for(symptom: str) -> list[str]:
    """The pitfalls of :data:`gastudy.check.pitfalls.PITFALLS` whose detector is ``symptom`` (MB-11).

    Raises ``KeyError`` listing the five symptoms when ``symptom`` is unknown.
    """
    if symptom not in SYMPTOMS:
        raise KeyError(f"unknown symptom {symptom!r}; the five are: {', '.join(SYMPTOMS)}")
    return [name for name, p in PITFALLS.items() if p.detector == symptom]


def clinic_case(pitfall: str, accumulation_steps: int = 4, micro_batch: int = 2) -> ClinicCase:
    """Run one clinic case: the pitfall and its fix under the detector that names it (MB-11).

    The setup is the detectors' default (float64 tiny-gpt, variable-length data) with the
    given m and A. Raises ``KeyError`` for an unknown pitfall.
    """
    setup = default_setup(micro_batch=micro_batch, accumulation_steps=accumulation_steps)
    return run_clinic([pitfall], setup)[0]


def _plot_case(case: ClinicCase, ax) -> None:
    """Draw the measured symptom of ``case``, pitfall against fix, on ``ax``."""
    import numpy as np

    b, a = case.before.evidence, case.after.evidence
    if case.detector == "double_division":
        ax.bar(["big batch", "logged (pitfall)", "logged (fixed)"],
               [b["reference_loss"], b["logged_loss"], a["logged_loss"]], color=["C7", "C3", "C2"])
        ax.set_ylabel("loss of the group (nats)")
        ax.set_title(f"gradient {b['k']:.3g}× smaller than the big batch's")
    elif case.detector == "partition_dependence":
        labels = [f"{p['micro_batch']}×{p['accumulation_steps']}" for p in b["partitions"]]
        x = np.arange(len(labels))
        floor = 1e-18
        ax.bar(x - 0.2, [max(p["rel_diff"], floor) for p in b["partitions"]], 0.4, color="C3", label="pitfall")
        ax.bar(x + 0.2, [max(p["rel_diff"], floor) for p in a["partitions"]], 0.4, color="C2", label="fixed")
        ax.set_xticks(x, labels)
        ax.set_yscale("log")
        ax.set_xlabel("the same samples split as m × A")
        ax.set_ylabel("gradient change (relative)")
        ax.legend(fontsize=8)
    elif case.detector == "ineffective_accumulation":
        groups = np.arange(len(b["rel_diff"]))
        ax.bar(groups - 0.2, b["rel_diff"], 0.4, color="C3", label="pitfall")
        ax.bar(groups + 0.2, a.get("rel_diff", [0.0] * len(groups)), 0.4, color="C2", label="fixed")
        ax.set_xticks(groups, [f"update {g}" for g in groups])
        ax.set_ylabel("|Δ| from the group's true gradient (relative)")
        ax.legend(fontsize=8)
    elif case.detector == "memory_growth":
        ax.plot([v / 1024 for v in b["retained_saved"]], "o-", color="C3", label="pitfall")
        ax.plot([v / 1024 for v in a["retained_saved"]], "o-", color="C2", label="fixed")
        ax.set_xlabel("microbatch index in the group")
        ax.set_ylabel("KiB still alive at its start")
        ax.legend(fontsize=8)
    elif case.detector == "schedule_drift":
        ax.plot(b["lr"], "o-", color="C3", label="pitfall")
        ax.plot(a["lr"], "o-", color="C2", label="fixed")
        ax.plot(b["expected_lr"], "k:", label="schedule per update")
        ax.set_xlabel("update")
        ax.set_ylabel("learning rate")
        ax.legend(fontsize=8)


class ClinicLab(Lab):
    """One symptom produced on purpose, its detector firing, the fix, the detector quiet (MB-11)."""

    title = "MB-11 · The clinic: pick a pitfall, watch its detector fire, then watch the fix"

    def __init__(self, pitfall: str = "double_division", accumulation_steps: int = 4):
        import ipywidgets as w

        options = [(f"{SYMPTOMS[p.detector].seen} ← {name}", name) for name, p in PITFALLS.items()]
        super().__init__(
            pitfall=w.Dropdown(options=options, value=pitfall, description="pitfall",
                               layout=w.Layout(width="70%")),
            accumulation_steps=w.IntSlider(value=accumulation_steps, min=3, max=8, description="A"),
        )

    def compute(self, pitfall: str, accumulation_steps: int) -> ClinicCase:
        return clinic_case(pitfall, accumulation_steps)

    def render(self, result: ClinicCase) -> None:
        symptom = SYMPTOMS[result.detector]
        text = (f"symptom: {symptom.seen}\nlook for: {symptom.look_for}\n\n"
                f"the pitfall ({result.pitfall}): {result.description}\n"
                f"  detector on the pitfall: {result.before}\n  detector on the fix:     {result.after}")
        e = html.escape
        show_html(f"<p><b>symptom:</b> {e(symptom.seen)}<br><b>look for:</b> {e(symptom.look_for)}</p>"
                  f"<p><b>the pitfall</b> (<code>{e(result.pitfall)}</code>): {e(result.description)}</p>"
                  f"<ul><li><b>detector on the pitfall:</b> {e(str(result.before))}</li>"
                  f"<li><b>detector on the fix:</b> {e(str(result.after))}</li></ul>", text)
        fig, ax = subplots(figsize=(6.5, 3.0))
        _plot_case(result, ax)
        show_figure(fig)


@dataclass
class ClinicTable:
    """Every pitfall's case (:class:`ClinicCase`) at one A, in :data:`PITFALLS` order. Course: MB-11."""

    accumulation_steps: int
    cases: list[ClinicCase]

    @property
    def rows(self) -> list[dict[str, object]]:
        return [{"symptom": SYMPTOMS[c.detector].seen, "pitfall": c.pitfall, "detector": c.detector,
                 "fires on the pitfall": c.before.fired, "quiet on the fix": not c.after.fired,
                 "measured on the pitfall": c.before.message}
                for c in self.cases]


class ClinicTableLab(Lab):
    """All nine pitfalls under their detectors at once: the clinic's summary table (MB-11)."""

    title = "MB-11 · Every pitfall, its detector and its fix"

    def __init__(self, accumulation_steps: int = 4):
        import ipywidgets as w

        super().__init__(accumulation_steps=w.IntSlider(value=accumulation_steps, min=3, max=8, description="A"))

    def compute(self, accumulation_steps: int) -> ClinicTable:
        return ClinicTable(accumulation_steps, run_clinic(setup=default_setup(accumulation_steps=accumulation_steps)))

    def render(self, result: ClinicTable) -> None:
        # The verdicts hold at every A; what A changes is what each detector measures.
        ok = sum(c.ok for c in result.cases)
        print(f"A = {result.accumulation_steps}: {ok} of {len(result.cases)} detectors fire on their pitfall and "
              "stay quiet on the fix; the last column is what each measured, and that moves with A")
        show_table(result.rows)

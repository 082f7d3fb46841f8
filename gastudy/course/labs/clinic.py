"""Chapter 11 — the troubleshooting clinic (course section MB-11; also MB-1, MB-3…MB-6, GA-5, GA-6).

The source guide lists five symptoms and where to look for each. The clinic produces every
symptom on purpose with a deliberately wrong loop (:mod:`gastudy.course.pitfalls`), lets the
detector that names it fire (:mod:`gastudy.check.diagnostics`), applies the fix, and shows the
detector quiet. Nothing here re-implements a loop or a detector: :func:`gastudy.course.clinic.run_clinic`
does the work; this module chooses, plots and tabulates.

Languages: the library stays English and never imports the course. What the clinic shows in the
course language is chosen here from the library's stable names — the symptoms (keyed by detector),
the detector names (:attr:`Verdict.symptom`), the pitfall descriptions (keyed by pitfall name),
the plots and the table headers. A detector's *measured message* (``Verdict.message``: numbers and
the likely cause, composed by :mod:`gastudy.check.diagnostics`) stays English.

Speed: every case is deterministic (a seeded float64 setup), so a case computed once for a pitfall
and A is kept (:func:`clinic_case`) and shared by the single-case lab and the table; the table
advances its progress bar per case.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from gastudy.check.diagnostics import Setup, Verdict
from gastudy.course.clinic import ClinicCase, default_setup, run_clinic
from gastudy.course.i18n import t
from gastudy.course.pitfalls import PITFALLS
from gastudy.course.widgets import Lab, rtl_attr, show_figure, show_html, show_table, subplots


def nanogpt_clinic(seed: int = 0) -> list[dict[str, object]]:
    """nanoGPT's own loop and each slip of :data:`gastudy.course.nanogpt.SLIPS` through
    :func:`gastudy.check_loop` on fixed-length blocks: one row per loop with the symptom
    expected, the one found and the line the report points at (course: MB-11, MB-10)."""
    from gastudy.check.loop import check_loop
    from gastudy.course.nanogpt import CHECK_ARGS, SLIPS, NanoGPTStep, fixed_blocks, small_gpt

    model, batches = small_gpt(seed), fixed_blocks(4, 2, 64, 256, seed=seed)
    rows = []
    loops = [(NanoGPTStep("float32", 1.0), None)]
    loops += [(cls("float16" if "fp16" in name else "float32", 1.0), symptom) for name, (cls, symptom) in SLIPS.items()]
    for step, expected in loops:
        report = check_loop(step, model, batches, diagnose=False, **CHECK_ARGS)
        found = report.symptom
        rows.append({"loop": type(step).__name__, "expected": symptom_name(expected) if expected else t("passes"),
                     "verdict": symptom_name(found) if found else t("passes"), "right": found == expected,
                     "where": (report.where or "—").split(": ", 1)[-1]})
    return rows


@dataclass(frozen=True)
class Symptom:
    """One of the five symptoms of MB-11: what the learner sees and where to look (in the course
    language current when it was looked up in :data:`SYMPTOMS`)."""

    detector: str
    seen: str
    look_for: str


DETECTOR_NAMES = ("double_division", "partition_dependence", "ineffective_accumulation", "memory_growth",
                  "schedule_drift")
"""The five detectors of :data:`gastudy.check.diagnostics.DETECTORS`, one per symptom (MB-11)."""


def _symptom(detector: str) -> Symptom:
    seen, look_for = {
        "double_division": (t("the loss is abnormally small"),
                            t("a division applied twice (loss already ÷ items, then ÷ A again), an inflated "
                              "denominator, or fp16 gradients clipped while still scaled")),
        "partition_dependence": (t("the result changes when the same samples are split differently"),
                                 t("ignored tokens counted, or a mean of microbatch means instead of a "
                                   "token-weighted mean")),
        "ineffective_accumulation": (t("accumulation has no effect (or leaks across updates)"),
                                     t("where zero_grad and optimizer.step are called")),
        "memory_growth": (t("memory grows with every microbatch of a group"),
                          t("references kept between microbatches (losses still attached to their graphs)")),
        "schedule_drift": (t("the learning-rate schedule is shifted"),
                           t("whether the scheduler counts backward passes instead of applied updates")),
    }[detector]
    return Symptom(detector, seen, look_for)


class _Symptoms(Mapping[str, Symptom]):
    """detector → :class:`Symptom`, written in the course language current at each lookup."""

    def __getitem__(self, detector: str) -> Symptom:
        if detector not in DETECTOR_NAMES:
            raise KeyError(detector)
        return _symptom(detector)

    def __iter__(self) -> Iterator[str]:
        return iter(DETECTOR_NAMES)

    def __len__(self) -> int:
        return len(DETECTOR_NAMES)


SYMPTOMS: Mapping[str, Symptom] = _Symptoms()
"""The five symptoms of MB-11 by detector name; each lookup is in the current course language."""


def symptom_name(symptom: str) -> str:
    """A detector's short name — :attr:`Verdict.symptom` (``"double division"``) or its detector key
    (``"double_division"``) — in the current course language; unknown names come back as given. MB-11."""
    return {
        "double_division": t("double division"),
        "partition_dependence": t("partition dependence"),
        "ineffective_accumulation": t("ineffective accumulation"),
        "memory_growth": t("memory growth"),
        "schedule_drift": t("schedule drift"),
        "clipping_per_microbatch": t("clipping per microbatch"),
        "clipping_before_unscale": t("clipping before unscale"),
        "missing_division": t("missing division"),
        "wrong_gradient": t("wrong gradient"),
    }.get(symptom.replace(" ", "_"), symptom)


def pitfall_description(pitfall: str) -> str:
    """What is wrong in pitfall ``pitfall`` (a key of :data:`PITFALLS`; the library's description,
    English) in the current course language. MB-11."""
    return {
        "zero_per_microbatch": t("zero_grad inside the microbatch loop: only the last microbatch's gradient "
                                 "reaches the step (MB-1)"),
        "forget_zero_grad": t("no zero_grad between groups: the previous group's gradient leaks into the next "
                              "update (MB-1)"),
        "double_division": t("a loss already divided by num_items declared as not scaled: divided again by A "
                             "(GA-6)"),
        "mean_of_means": t("mean of microbatch means on variable-length data: the result depends on how samples "
                           "are split (MB-3)"),
        "constant_divisor": t("microbatch means ÷ the configured A: a short last group is under-weighted by "
                              "size/A (MB-4)"),
        "unshifted_count": t("causal items counted without the shift: the denominator is too large by one per "
                             "row (GA-5)"),
        "scheduler_per_microbatch": t("scheduler stepped per microbatch: the schedule runs A× too fast (MB-6)"),
        "keep_graph": t("graph-attached losses summed across microbatches: activations of every microbatch stay "
                        "alive (MB-4)"),
        "clip_before_unscale": t("fp16: clipping the scaled gradients before unscale_: the applied gradient "
                                 "shrinks by the loss scale (MB-5)"),
    }.get(pitfall, PITFALLS[pitfall].description if pitfall in PITFALLS else pitfall)


def verdict_text(verdict: Verdict) -> str:
    """A detector's verdict as one line: ⚠ (fired) or ✓, the translated detector name, and the
    library's measured message (English). Course: MB-11."""
    return f"{'⚠' if verdict.fired else '✓'} {symptom_name(verdict.symptom)}: {verdict.message}"

# The pitfall each symptom section of the notebook starts from (all are selectable).
FIRST_PITFALL = {"double_division": "double_division", "partition_dependence": "mean_of_means",
                 "ineffective_accumulation": "zero_per_microbatch", "memory_growth": "keep_graph",
                 "schedule_drift": "scheduler_per_microbatch"}


def pitfalls_for(symptom: str) -> list[str]:
    """The pitfalls of :data:`gastudy.course.pitfalls.PITFALLS` whose detector is ``symptom`` (MB-11).

    Raises ``KeyError`` listing the five symptoms when ``symptom`` is unknown.
    """
    if symptom not in SYMPTOMS:
        raise KeyError(f"unknown symptom {symptom!r}; the five are: {', '.join(SYMPTOMS)}")
    return [name for name, p in PITFALLS.items() if p.detector == symptom]


_SETUPS: dict[tuple[int, int], Setup] = {}
_CASES: dict[tuple[str, int, int], ClinicCase] = {}


def _setup(micro_batch: int, accumulation_steps: int) -> Setup:
    """The detectors' default setup for (m, A), built once: the detectors only ever train deep
    copies of its model, so one template serves every case."""
    key = (micro_batch, accumulation_steps)
    if key not in _SETUPS:
        _SETUPS[key] = default_setup(micro_batch=micro_batch, accumulation_steps=accumulation_steps)
    return _SETUPS[key]


def clinic_case(pitfall: str, accumulation_steps: int = 4, micro_batch: int = 2) -> ClinicCase:
    """Run one clinic case: the pitfall and its fix under the detector that names it (MB-11).

    The setup is the detectors' default (float64 tiny-gpt, variable-length data) with the
    given m and A. The case is deterministic, so it is computed once per (pitfall, A, m) and the
    same :class:`ClinicCase` is returned afterwards (the labs share it; treat it as read-only).
    Raises ``KeyError`` for an unknown pitfall.
    """
    key = (pitfall, accumulation_steps, micro_batch)
    if key not in _CASES:
        _CASES[key] = run_clinic([pitfall], _setup(micro_batch, accumulation_steps))[0]
    return _CASES[key]


def _plot_case(case: ClinicCase, ax) -> None:
    """Draw the measured symptom of ``case``, pitfall against fix, on ``ax`` (labels in the course language)."""
    import numpy as np

    b, a = case.before.evidence, case.after.evidence
    pitfall, fixed = t("pitfall"), t("fixed")
    if case.detector == "double_division":
        ax.bar([t("big batch"), t("logged (pitfall)"), t("logged (fixed)")],
               [b["reference_loss"], b["logged_loss"], a["logged_loss"]], color=["C7", "C3", "C2"])
        ax.set_ylabel(t("loss of the group (nats)"))
        ax.set_title(t("gradient {k:.3g}× smaller than the big batch's", k=b['k']))
    elif case.detector == "partition_dependence":
        labels = [f"{p['micro_batch']}×{p['accumulation_steps']}" for p in b["partitions"]]
        x = np.arange(len(labels))
        floor = 1e-18
        ax.bar(x - 0.2, [max(p["rel_diff"], floor) for p in b["partitions"]], 0.4, color="C3", label=pitfall)
        ax.bar(x + 0.2, [max(p["rel_diff"], floor) for p in a["partitions"]], 0.4, color="C2", label=fixed)
        ax.set_xticks(x, labels)
        ax.set_yscale("log")
        ax.set_xlabel(t("the same samples split as m × A"))
        ax.set_ylabel(t("gradient change (relative)"))
        ax.legend(fontsize=8)
    elif case.detector == "ineffective_accumulation":
        groups = np.arange(len(b["rel_diff"]))
        ax.bar(groups - 0.2, b["rel_diff"], 0.4, color="C3", label=pitfall)
        ax.bar(groups + 0.2, a.get("rel_diff", [0.0] * len(groups)), 0.4, color="C2", label=fixed)
        ax.set_xticks(groups, [t("update {g}", g=g) for g in groups])
        ax.set_ylabel(t("|Δ| from the group's true gradient (relative)"))
        ax.legend(fontsize=8)
    elif case.detector == "memory_growth":
        ax.plot([v / 1024 for v in b["retained_saved"]], "o-", color="C3", label=pitfall)
        ax.plot([v / 1024 for v in a["retained_saved"]], "o-", color="C2", label=fixed)
        ax.set_xlabel(t("microbatch index in the group"))
        ax.set_ylabel(t("KiB still alive at its start"))
        ax.legend(fontsize=8)
    elif case.detector == "schedule_drift":
        ax.plot(b["lr"], "o-", color="C3", label=pitfall)
        ax.plot(a["lr"], "o-", color="C2", label=fixed)
        ax.plot(b["expected_lr"], "k:", label=t("schedule per update"))
        ax.set_xlabel(t("update"))
        ax.set_ylabel(t("learning rate"))
        ax.legend(fontsize=8)


class ClinicLab(Lab):
    """One symptom produced on purpose, its detector firing, the fix, the detector quiet (MB-11)."""

    def __init__(self, pitfall: str = "double_division", accumulation_steps: int = 4):
        import ipywidgets as w

        self.title = t("MB-11 · The clinic: pick a pitfall, watch its detector fire, then watch the fix")
        options = [(f"{SYMPTOMS[p.detector].seen} ← {name}", name) for name, p in PITFALLS.items()]
        super().__init__(
            pitfall=w.Dropdown(options=options, value=pitfall, description=t("pitfall"),
                               layout=w.Layout(width="70%")),
            accumulation_steps=w.IntSlider(value=accumulation_steps, min=3, max=8, description="A"),
        )

    def compute(self, pitfall: str, accumulation_steps: int) -> ClinicCase:
        return clinic_case(pitfall, accumulation_steps)

    def render(self, result: ClinicCase) -> None:
        symptom = SYMPTOMS[result.detector]
        labels = {"symptom": t("symptom:"), "look": t("look for:"), "pitfall": t("the pitfall"),
                  "before": t("detector on the pitfall:"), "after": t("detector on the fix:")}
        before, after = verdict_text(result.before), verdict_text(result.after)

        def verdict_html(v: Verdict) -> str:  # the library's English message keeps its own direction
            return (f"{'⚠' if v.fired else '✓'} {html.escape(symptom_name(v.symptom))}: "
                    f'<span dir="ltr" lang="en">{html.escape(v.message)}</span>')

        description = pitfall_description(result.pitfall)
        text = (f"{labels['symptom']} {symptom.seen}\n{labels['look']} {symptom.look_for}\n\n"
                f"{labels['pitfall']} ({result.pitfall}): {description}\n"
                f"  {labels['before']} {before}\n  {labels['after']} {after}")
        e = html.escape
        show_html(f"<div{rtl_attr()}><p><b>{e(labels['symptom'])}</b> {e(symptom.seen)}<br>"
                  f"<b>{e(labels['look'])}</b> {e(symptom.look_for)}</p>"
                  f"<p><b>{e(labels['pitfall'])}</b> (<code>{e(result.pitfall)}</code>): {e(description)}</p>"
                  f"<ul><li><b>{e(labels['before'])}</b> {verdict_html(result.before)}</li>"
                  f"<li><b>{e(labels['after'])}</b> {verdict_html(result.after)}</li></ul></div>", text)
        fig, ax = subplots(figsize=(6.5, 3.0))
        _plot_case(result, ax)
        show_figure(fig)
        show_wrong_and_right(result.pitfall)


def show_wrong_and_right(pitfall: str) -> str:
    """Show the pitfall's update function beside the same update written right
    (:data:`~gastudy.course.pitfalls.WRITTEN_RIGHT`), as code side by side, the line marked
    ``# WRONG`` highlighted; returns the plain-text alternative (both sources). Raises
    ``KeyError`` for an unknown pitfall. Course: MB-11."""
    import inspect
    import textwrap

    from gastudy.course.pitfalls import PITFALLS, WRITTEN_RIGHT

    wrong = textwrap.dedent(inspect.getsource(PITFALLS[pitfall].update))
    right = textwrap.dedent(inspect.getsource(WRITTEN_RIGHT[pitfall]))
    heads = (t("the pitfall, as code"), t("written right"))

    def block(source: str) -> str:
        lines = [f"<mark>{html.escape(line)}</mark>" if "# WRONG" in line else html.escape(line)
                 for line in _without_docstring(source).splitlines()]
        return ('<pre dir="ltr" lang="en" style="margin:0;font-size:11px;overflow-x:auto">'  # code: English comments
                + "\n".join(lines) + "</pre>")

    cells = "".join(f'<div style="flex:1 1 26em;min-width:0"><b>{html.escape(head)}</b>{block(src)}</div>'
                    for head, src in zip(heads, (wrong, right)))
    text = f"{heads[0]}\n{_without_docstring(wrong)}\n{heads[1]}\n{_without_docstring(right)}"
    show_html(f'<div{rtl_attr()} style="display:flex;gap:1em;flex-wrap:wrap">{cells}</div>', text)
    return text


def _without_docstring(source: str) -> str:
    """A function's source without its docstring (the code is the point beside its twin)."""
    return re.sub(r'(\)\s*->[^:]*:|\):)\n(\s+)"""[\s\S]*?"""\n', r"\1\n", source, count=1)


@dataclass
class ClinicTable:
    """Every pitfall's case (:class:`ClinicCase`) at one A, in :data:`PITFALLS` order. Course: MB-11.

    ``rows`` keep English keys (code compares them); their texts — the symptom — are in the course
    language current when ``rows`` is read, the measured message is the library's English.
    """

    accumulation_steps: int
    cases: list[ClinicCase]

    @property
    def rows(self) -> list[dict[str, object]]:
        return [{"symptom": SYMPTOMS[c.detector].seen, "pitfall": c.pitfall, "detector": c.detector,
                 "fires on the pitfall": c.before.fired, "quiet on the fix": not c.after.fired,
                 "measured on the pitfall": c.before.message}
                for c in self.cases]


class ClinicTableLab(Lab):
    """All nine pitfalls under their detectors at once: the clinic's summary table (MB-11).

    Nine cases take several seconds the first time for an A: the progress bar advances per case.
    Cases already computed (by this lab or by :class:`ClinicLab`) are reused.
    """

    def __init__(self, accumulation_steps: int = 4):
        import ipywidgets as w

        self.title = t("MB-11 · Every pitfall, its detector and its fix")
        super().__init__(accumulation_steps=w.IntSlider(value=accumulation_steps, min=3, max=8, description="A"))

    def compute(self, accumulation_steps: int) -> ClinicTable:
        cases = []
        for i, name in enumerate(PITFALLS):
            self.report_progress(i / len(PITFALLS), name)
            cases.append(clinic_case(name, accumulation_steps))
        self.report_progress(1.0)
        return ClinicTable(accumulation_steps, cases)

    def render(self, result: ClinicTable) -> None:
        # The verdicts hold at every A; what A changes is what each detector measures.
        ok = sum(c.ok for c in result.cases)
        line = t("A = {A}: {ok} of {n} detectors fire on their pitfall and stay quiet on the fix; the last column "
                 "is what each measured, and that moves with A", A=result.accumulation_steps, ok=ok,
                 n=len(result.cases))
        show_html(f"<p{rtl_attr()}>{html.escape(line)}</p>", line)
        yes, no = t("yes"), t("no")
        rows = [{**row, "fires on the pitfall": yes if row["fires on the pitfall"] else no,
                 "quiet on the fix": yes if row["quiet on the fix"] else no} for row in result.rows]
        show_table(rows, headers={"symptom": t("symptom"), "pitfall": t("pitfall"), "detector": t("detector"),
                                  "fires on the pitfall": t("fires on the pitfall"),
                                  "quiet on the fix": t("quiet on the fix"),
                                  "measured on the pitfall": t("measured on the pitfall")},
                   english=["measured on the pitfall"])

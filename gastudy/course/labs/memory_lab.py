"""Chapter 09 — check memory over a whole group, then decide (course section MB-9).

The labs of ``notebooks/09_memory_check_and_decide.ipynb``:

- :class:`TimelineLab`: memory after every forward, backward and update of a few groups
  (:func:`gastudy.memory.timeline.phase_timeline`): baseline, forward, backward, first update, steady state.
- :class:`DevicesLab`: what each device's probe measures now (:func:`gastudy.memory.probes.device_probes`).
- :class:`PlannerLab`: the largest m that fits a budget with A recomputed
  (:func:`gastudy.memory.planner.plan_for_budget`); with a wide model and short sequences, a case where
  weights and optimizer state dominate and shrinking m barely helps.
"""

from __future__ import annotations

from dataclasses import dataclass

from gastudy.course.i18n import t
from gastudy.course.labs.checkpoint_lab import model_kwargs
from gastudy.course.labs.experiment import devices
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots
from gastudy.memory.planner import MemoryPlan, measure_peak, plan_for_budget
from gastudy.memory.probes import device_probes
from gastudy.memory.saved import format_bytes
from gastudy.memory.timeline import Timeline, phase_timeline

MIB = 2**20
OPTIMIZERS = ("adamw", "sgd-momentum", "sgd")


def phase_name(phase: str) -> str:
    """A timeline row's phase (``baseline``, ``forward 1.2``, ``backward 1.2``, ``update 1``) in the
    course language; the numbers stay. Course: MB-9."""
    word, _, at = phase.partition(" ")
    return {"baseline": t("baseline"), "forward": t("forward {at}", at=at), "backward": t("backward {at}", at=at),
            "update": t("update {at}", at=at)}.get(word, phase)


def probe_note(note: str) -> str:
    """A memory probe's caveat (:attr:`gastudy.memory.probes.MemoryProbe.note`, English in the
    library) in the course language. Course: MB-9."""
    return {
        "live tensor bytes in the CUDA caching allocator (excludes context and cache)":
            t("live tensor bytes in the CUDA caching allocator (excludes context and cache)"),
        "process resident memory; peak = VmHWM, reset per phase via /proc/self/clear_refs":
            t("process resident memory; peak = VmHWM, reset per phase via /proc/self/clear_refs"),
        "process resident memory; /proc/self/clear_refs is not writable, so the peak is since start":
            t("process resident memory; /proc/self/clear_refs is not writable, so the peak is since start"),
        "this OS gives only the peak since the process started; per-phase peaks are not available":
            t("this OS gives only the peak since the process started; per-phase peaks are not available"),
    }.get(note, note)


def timeline_summary(timeline: Timeline) -> str:
    """:meth:`Timeline.summary` in the course language: what a forward-only check misses, with the
    measured numbers (the library's English summary stays for logs). Course: MB-9."""
    last = max(timeline.rows, key=lambda r: r.optimizer_bytes + r.grad_bytes)
    fwd, first = timeline.forward_only_peak, timeline.first_group_peak
    text = t("A forward-only check peaks at {forward} above the start; the first group with its update peaks at "
             "{first}{ratio}: gradients ({gradients}) appear in the backward and optimizer state ({state}) only at "
             "the first update.", forward=format_bytes(fwd), first=format_bytes(first),
             ratio=t(" ({ratio:.1f}× the forward-only peak)", ratio=first / fwd) if fwd > 0 else "",
             gradients=format_bytes(last.grad_bytes), state=format_bytes(last.optimizer_bytes))
    if any(r.group >= 2 for r in timeline.rows):
        text += " " + t("Steady state (later groups) peaks at {peak}.", peak=format_bytes(timeline.steady_peak))
    return text


def draw_timeline(timeline: Timeline, ax) -> None:
    """:meth:`Timeline.plot` on ``ax`` with its texts in the course language. Course: MB-9."""
    timeline.plot(ax)
    legend = {"weights": t("weights"), "gradients": t("gradients"), "optimizer state": t("optimizer state"),
              "saved activations": t("saved activations"), "measured peak": t("measured peak"),
              "measured current": t("measured current")}
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles, [legend.get(label, label) for label in labels], fontsize=7)
    ax.set_xticks(list(range(len(timeline.rows))), [phase_name(r.phase) for r in timeline.rows], rotation=60,
                  ha="right", fontsize=8)
    ax.set_ylabel(t("MiB above start ({probe})", probe=timeline.probe))


class TimelineLab(Lab):
    """Memory phase by phase through several groups, measured on the chosen device (MB-9)."""

    def __init__(self, micro_batch: int = 4, accumulation_steps: int = 2, groups: int = 3):
        import ipywidgets as w

        self.title = t("MB-9 · A forward that fits proves nothing: watch a whole group, the first update, then the "
                       "next groups")
        super().__init__(
            micro_batch=int_slider(micro_batch, 1, 8, "m"),
            accumulation_steps=int_slider(accumulation_steps, 1, 4, "A"),
            groups=int_slider(groups, 2, 4, t("groups")),
            optimizer=w.Dropdown(options=OPTIMIZERS, value="adamw", description=t("optimizer")),
            device=w.Dropdown(options=devices(), value=devices()[-1], description=t("device")),
        )

    def compute(self, micro_batch: int, accumulation_steps: int, groups: int, optimizer: str,
                device: str) -> Timeline:
        def progress(done: int, total: int) -> None:
            note = t("warm-up update") if done == 0 else t("update {i} of {n} measured", i=done - 1, n=total - 1)
            self.report_progress(done / total, note)

        return phase_timeline("tiny-gpt", micro_batch, accumulation_steps, groups, device=device,
                              optimizer=optimizer, model_kwargs=model_kwargs(), progress=progress)

    def render(self, result: Timeline) -> None:
        fig, ax = subplots(figsize=(max(6.0, 0.45 * len(result.rows)), 3.5))
        draw_timeline(result, ax)
        show_figure(fig)
        say(timeline_summary(result))
        say("\n".join(t("note: {note}", note=probe_note(n)) for n in result.notes))
        start = result.start_bytes
        rows = [{"phase": phase_name(r.phase), "current − start": (r.current_bytes - start) / MIB,
                 "peak − start": (r.peak_bytes - start) / MIB, "saved": r.saved_bytes / MIB,
                 "weights": r.weight_bytes / MIB, "gradients": r.grad_bytes / MIB,
                 "optimizer state": r.optimizer_bytes / MIB} for r in result.rows]
        # key rows: the start, the first forward (all a forward-only check sees), the first
        # update (optimizer state appears), the highest peak, and the last reading
        peak = max(range(len(result.rows)), key=lambda i: result.rows[i].peak_bytes)
        key = {0, min(1, len(rows) - 1), first_update_row(result), peak, len(rows) - 1}
        show_table(rows, units={c: "MiB" for c in rows[0] if c != "phase"}, highlight=sorted(key),
                   headers={"phase": t("phase"), "current − start": t("current − start"),
                            "peak − start": t("peak − start"), "saved": t("saved"), "weights": t("weights"),
                            "gradients": t("gradients"), "optimizer state": t("optimizer state")})


def first_update_row(timeline: Timeline) -> int:
    """Index of the row ``update 1`` in ``timeline.rows`` (where optimizer state first appears). Course: MB-9."""
    return next(i for i, r in enumerate(timeline.rows) if r.phase == "update 1")


@dataclass
class DeviceReading:
    """One device's probe: what it measures, its current and peak bytes (bytes), and its caveat. Course: MB-9."""

    device: str
    kind: str
    current_bytes: int
    peak_bytes: int
    resettable: bool
    note: str


def read_devices() -> list[DeviceReading]:
    """Read every device's probe now: ``cpu`` and each ``cuda:i`` present (course: MB-9)."""
    return [DeviceReading(name, p.kind, p.current_bytes(), p.peak_bytes(), p.resettable, p.note)
            for name, p in device_probes().items()]


class DevicesLab(Lab):
    """Counters per device: what each probe measures, read now (MB-9)."""

    def __init__(self):
        import ipywidgets as w

        self.title = t("MB-9 · Counters keep their device: one probe per device")
        super().__init__(unit=w.Dropdown(options=[("MiB", "MiB"), (t("bytes"), "bytes")], value="MiB",
                                         description=t("unit")))

    def compute(self, unit: str) -> list[DeviceReading]:
        return read_devices()

    def render(self, result: list[DeviceReading]) -> None:
        mib = self.values["unit"] == "MiB"

        def fmt(n: int) -> str:
            return format_bytes(n) if mib else f"{n:,}"

        show_table([{"device": r.device, "measures": r.kind, "now": fmt(r.current_bytes), "peak": fmt(r.peak_bytes),
                     "reset": t("yes") if r.resettable else t("no")} for r in result],
                   headers={"device": t("device"), "measures": t("measures"), "now": t("now"), "peak": t("peak"),
                            "reset": t("per-phase reset")})
        for r in result:
            say(f"{r.device}: {probe_note(r.note)}")


class PlannerLab(Lab):
    """Shrink m and recompute A until the measured peak fits the budget (MB-9)."""

    def __init__(self, budget_mib: int = 24, target: int = 16, hidden: int = 128, seq_len: int = 32,
                 optimizer: str = "adamw"):
        import ipywidgets as w

        self.title = t("MB-9 · The planner: the largest m whose measured peak fits, with A = B ÷ (m × D)")
        super().__init__(
            budget_mib=int_slider(budget_mib, 4, 400, t("budget MiB"), step=2),
            target=w.Dropdown(options=[8, 16, 32], value=target, description=t("B, samples per update")),
            hidden=w.Dropdown(options=[64, 128, 256, 384], value=hidden, description=t("hidden")),
            seq_len=w.Dropdown(options=[8, 16, 32, 64], value=seq_len, description=t("sequence")),
            optimizer=w.Dropdown(options=OPTIMIZERS, value=optimizer, description=t("optimizer")),
            device=w.Dropdown(options=devices(), value=devices()[-1], description=t("device")),
        )

    def compute(self, budget_mib: int, target: int, hidden: int, seq_len: int, optimizer: str,
                device: str) -> MemoryPlan:
        from gastudy.memory.planner import candidate_micro_batches

        count = len(candidate_micro_batches(target, 1))
        done = [0]

        def measure(micro_batch: int, accumulation_steps: int):  # measure_peak, one progress step per candidate
            self.report_progress(done[0] / count, t("measuring m={m}, A={A} ({i} of {n})", m=micro_batch,
                                                    A=accumulation_steps, i=done[0] + 1, n=count))
            done[0] += 1
            return measure_peak(micro_batch, accumulation_steps, "tiny-gpt", model_kwargs=model_kwargs(hidden),
                                seq_len=seq_len, optimizer=optimizer, device=device, groups=1)

        return plan_for_budget(budget_mib * MIB, target, measure=measure)

    def render(self, result: MemoryPlan) -> None:
        fig, ax = subplots(figsize=(6.5, 3.3))
        labels = [f"{c.micro_batch}×{c.accumulation_steps}" for c in result.candidates]
        ax.bar(labels, [c.peak_bytes / MIB for c in result.candidates],
               color=["C2" if c.fits else "C3" for c in result.candidates])
        ax.axhline(result.budget_bytes / MIB, color="k", ls="--", label=t("budget"))
        ax.axhline(result.fixed_bytes / MIB, color="C1", ls=":", label=t("weights + gradients + optimizer state"))
        ax.set_xlabel(t("m × A (same effective batch)"))
        ax.set_ylabel(t("measured peak, MiB"))
        top = max([c.peak_bytes for c in result.candidates] + [result.budget_bytes, result.fixed_bytes])
        ax.set_ylim(0, 1.3 * top / MIB)
        ax.legend(fontsize=8, loc="upper right")
        show_figure(fig)
        show_table([{"m": c.micro_batch, "A": c.accumulation_steps, "peak": c.peak_bytes / MIB,
                     "fixed part": f"{c.fixed_bytes / c.peak_bytes:.0%}" if c.peak_bytes else "—",
                     "fits": t("yes") if c.fits else t("no")} for c in result.candidates],
                   units={"peak": "MiB"}, headers={"peak": t("peak"), "fixed part": t("fixed part"), "fits": t("fits")},
                   highlight=lambda row: result.chosen is not None and row["m"] == result.chosen.micro_batch)
        say(plan_verdict(result))


def plan_verdict(plan: MemoryPlan) -> str:
    """:attr:`MemoryPlan.verdict` in the course language, composed from the plan's measured numbers
    (the library's English verdict stays for logs and ``gastudy memory``): which m fits and why,
    or why none does and what to change. Course: MB-9."""
    measured, chosen, fixed, budget = plan.candidates, plan.chosen, plan.fixed_bytes, plan.budget_bytes
    smallest = measured[-1]
    if chosen is None:
        if fixed >= budget:
            return t("No microbatch size fits: weights, gradients and optimizer state alone take {fixed}, over the "
                     "budget of {budget}. Accumulation cannot help — it only shrinks activations. Shrink the fixed "
                     "part: a smaller model, an optimizer with less state (SGD, 8-bit), lower-precision weights, or "
                     "shard them across devices.", fixed=format_bytes(fixed), budget=format_bytes(budget))
        return t("No microbatch size fits: even m={m} (A={A}) peaks at {peak} over the budget of {budget}, while the "
                 "fixed part is {fixed}. One sample's activations are too large: enable activation checkpointing "
                 "(every_n_layers), offload, or use shorter sequences.", m=smallest.micro_batch,
                 A=smallest.accumulation_steps, peak=format_bytes(smallest.peak_bytes), budget=format_bytes(budget),
                 fixed=format_bytes(fixed))
    best = next(c for c in measured if c.micro_batch == chosen.micro_batch)
    text = t("m={m}, A={A} (m×A×D = {n}) fits: measured peak {peak} ≤ budget {budget}.", m=chosen.micro_batch,
             A=chosen.accumulation_steps, n=chosen.effective_batch, peak=format_bytes(best.peak_bytes),
             budget=format_bytes(budget))
    too_big = [c for c in measured if not c.fits]
    if too_big:
        text += " " + t("The next larger m={m} peaked at {peak}.", m=too_big[-1].micro_batch,
                        peak=format_bytes(too_big[-1].peak_bytes))
    share = fixed / best.peak_bytes if best.peak_bytes else 0.0
    if share >= 0.5:
        text += " " + t("Weights, gradients and optimizer state are {share:.0%} of this peak, so shrinking m further "
                        "barely helps (m={m} peaks at {peak}).", share=share, m=smallest.micro_batch,
                        peak=format_bytes(smallest.peak_bytes))
    return text

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

from gastudy.course.labs.checkpoint_lab import model_kwargs
from gastudy.course.labs.experiment import devices
from gastudy.course.widgets import Lab, show_figure, show_table, subplots
from gastudy.memory.planner import MemoryPlan, plan_for_budget
from gastudy.memory.probes import device_probes
from gastudy.memory.saved import format_bytes
from gastudy.memory.timeline import Timeline, phase_timeline

MIB = 2**20
OPTIMIZERS = ("adamw", "sgd-momentum", "sgd")


class TimelineLab(Lab):
    """Memory phase by phase through several groups, measured on the chosen device (MB-9)."""

    title = "MB-9 · A forward that fits proves nothing: watch a whole group, the first update, then the next groups"

    def __init__(self, micro_batch: int = 4, accumulation_steps: int = 2, groups: int = 3):
        import ipywidgets as w

        super().__init__(
            micro_batch=w.IntSlider(value=micro_batch, min=1, max=8, description="m"),
            accumulation_steps=w.IntSlider(value=accumulation_steps, min=1, max=4, description="A"),
            groups=w.IntSlider(value=groups, min=2, max=4, description="groups"),
            optimizer=w.Dropdown(options=OPTIMIZERS, value="adamw", description="optimizer"),
            device=w.Dropdown(options=devices(), value=devices()[-1], description="device"),
        )

    def compute(self, micro_batch: int, accumulation_steps: int, groups: int, optimizer: str,
                device: str) -> Timeline:
        return phase_timeline("tiny-gpt", micro_batch, accumulation_steps, groups, device=device,
                              optimizer=optimizer, model_kwargs=model_kwargs())

    def render(self, result: Timeline) -> None:
        fig, ax = subplots(figsize=(max(6.0, 0.45 * len(result.rows)), 3.5))
        result.plot(ax)
        show_figure(fig)
        print(result.summary())
        print("\n".join(f"note: {n}" for n in result.notes))
        start = result.start_bytes
        rows = [{"phase": r.phase, "current − start": (r.current_bytes - start) / MIB,
                 "peak − start": (r.peak_bytes - start) / MIB, "saved": r.saved_bytes / MIB,
                 "weights": r.weight_bytes / MIB, "gradients": r.grad_bytes / MIB,
                 "optimizer state": r.optimizer_bytes / MIB} for r in result.rows]
        # key rows: the start, the first forward (all a forward-only check sees), the first
        # update (optimizer state appears), the highest peak, and the last reading
        peak = max(range(len(result.rows)), key=lambda i: result.rows[i].peak_bytes)
        key = {0, min(1, len(rows) - 1), first_update_row(result), peak, len(rows) - 1}
        show_table(rows, units={c: "MiB" for c in rows[0] if c != "phase"}, highlight=sorted(key))


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

    title = "MB-9 · Counters keep their device: one probe per device"

    def __init__(self):
        import ipywidgets as w

        super().__init__(unit=w.Dropdown(options=["MiB", "bytes"], value="MiB", description="unit"))

    def compute(self, unit: str) -> list[DeviceReading]:
        return read_devices()

    def render(self, result: list[DeviceReading]) -> None:
        mib = self.values["unit"] == "MiB"

        def fmt(n: int) -> str:
            return format_bytes(n) if mib else f"{n:,}"

        show_table([{"device": r.device, "measures": r.kind, "now": fmt(r.current_bytes), "peak": fmt(r.peak_bytes),
                     "per-phase reset": r.resettable} for r in result])
        for r in result:
            print(f"{r.device}: {r.note}")


class PlannerLab(Lab):
    """Shrink m and recompute A until the measured peak fits the budget (MB-9)."""

    title = "MB-9 · The planner: the largest m whose measured peak fits, with A = target ÷ (m × D)"

    def __init__(self, budget_mib: int = 24, target: int = 16, hidden: int = 128, seq_len: int = 32,
                 optimizer: str = "adamw"):
        import ipywidgets as w

        super().__init__(
            budget_mib=w.IntSlider(value=budget_mib, min=4, max=400, step=2, description="budget MiB"),
            target=w.Dropdown(options=[8, 16, 32], value=target, description="m×A target"),
            hidden=w.Dropdown(options=[64, 128, 256, 384], value=hidden, description="hidden"),
            seq_len=w.Dropdown(options=[8, 16, 32, 64], value=seq_len, description="sequence"),
            optimizer=w.Dropdown(options=OPTIMIZERS, value=optimizer, description="optimizer"),
            device=w.Dropdown(options=devices(), value=devices()[-1], description="device"),
        )

    def compute(self, budget_mib: int, target: int, hidden: int, seq_len: int, optimizer: str,
                device: str) -> MemoryPlan:
        return plan_for_budget(budget_mib * MIB, target, model="tiny-gpt", model_kwargs=model_kwargs(hidden),
                               seq_len=seq_len, optimizer=optimizer, device=device, groups=1)

    def render(self, result: MemoryPlan) -> None:
        fig, ax = subplots(figsize=(6.5, 3.3))
        labels = [f"{c.micro_batch}×{c.accumulation_steps}" for c in result.candidates]
        ax.bar(labels, [c.peak_bytes / MIB for c in result.candidates],
               color=["C2" if c.fits else "C3" for c in result.candidates])
        ax.axhline(result.budget_bytes / MIB, color="k", ls="--", label="budget")
        ax.axhline(result.fixed_bytes / MIB, color="C1", ls=":", label="weights + gradients + optimizer state")
        ax.set_xlabel("m × A (same effective batch)")
        ax.set_ylabel("measured peak, MiB")
        top = max([c.peak_bytes for c in result.candidates] + [result.budget_bytes, result.fixed_bytes])
        ax.set_ylim(0, 1.3 * top / MIB)
        ax.legend(fontsize=8, loc="upper right")
        show_figure(fig)
        show_table([{"m": c.micro_batch, "A": c.accumulation_steps, "peak": c.peak_bytes / MIB,
                     "fixed part": f"{c.fixed_bytes / c.peak_bytes:.0%}" if c.peak_bytes else "—",
                     "fits": "✓" if c.fits else "✗"} for c in result.candidates],
                   units={"peak": "MiB"},
                   highlight=lambda row: result.chosen is not None and row["m"] == result.chosen.micro_batch)
        print(result.verdict)

"""The phase timeline (course: MB-9, GA-1): memory after every forward, backward and update of a
few groups, run by the real engine: baseline (weights), forwards, backwards (gradients
appear), the first update (optimizer state appears), then the steady state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field

import torch
from torch import nn

from gastudy.core.checkpointing import checkpointing
from gastudy.core.counting import task_of_batch
from gastudy.core.data import Batch
from gastudy.core.engine import Accumulator
from gastudy.core.groups import make_groups
from gastudy.memory.probes import MemoryProbe, state_bytes
from gastudy.memory.saved import SavedTensorCounter, format_bytes, to_device
from gastudy.memory.workload import build_for_measurement, make_optimizer, synthetic_microbatches


@dataclass
class PhaseRow:
    """One reading of the timeline. Bytes; ``peak_bytes`` is the peak since the previous row.

    ``stage`` is ``baseline``, ``forward``, ``backward``, ``first update`` (group 1) or
    ``steady`` (later groups). ``saved_bytes`` is what autograd holds for this microbatch's
    backward after the model forward (0 once the backward has freed it). ``weight_bytes``,
    ``grad_bytes``, ``optimizer_bytes`` are exact tensor counts at that moment.
    """

    phase: str
    stage: str
    group: int
    current_bytes: int
    peak_bytes: int
    saved_bytes: int
    weight_bytes: int
    grad_bytes: int
    optimizer_bytes: int



@dataclass
class Timeline:
    """Memory through a few groups of training, phase by phase.

    ``start_bytes`` is the device usage without the model: measured after the warm-up, minus
    the exact weight bytes, so ``peak - start`` is what training needs, weights included.
    ``probe`` says what was measured; ``notes`` carry the probe's and checkpointing's caveats.
    """

    rows: list[PhaseRow]
    device: str
    probe: str
    start_bytes: int
    micro_batch: int
    accumulation_steps: int
    every_n_layers: int | None = None
    offload: bool = False
    notes: list[str] = field(default_factory=list)

    def _max(self, rows: Iterable[PhaseRow]) -> int:
        return max((r.peak_bytes for r in rows), default=self.start_bytes) - self.start_bytes

    @property
    def forward_only_peak(self) -> int:
        """Peak of a forward-only check (baseline + first forward), above ``start_bytes``."""
        return self._max(self.rows[:2])

    @property
    def first_group_peak(self) -> int:
        """Peak through group 1 and the first update, above ``start_bytes``."""
        return self._max(r for r in self.rows if r.group <= 1)

    @property
    def steady_peak(self) -> int:
        """Peak over the groups after the first, above ``start_bytes`` (0 with one group)."""
        return self._max(r for r in self.rows if r.group >= 2)

    @property
    def peak(self) -> int:
        """Highest peak of the whole run, above ``start_bytes``."""
        return self._max(self.rows)

    def summary(self) -> str:
        """Where a forward-only success misleads, in one paragraph with the measured numbers."""
        last = max(self.rows, key=lambda r: r.optimizer_bytes + r.grad_bytes)
        fwd, first = self.forward_only_peak, self.first_group_peak
        ratio = f" ({first / fwd:.1f}× the forward-only peak)" if fwd > 0 else ""
        text = (f"A forward-only check peaks at {format_bytes(fwd)} above the start; the first group "
                f"with its update peaks at {format_bytes(first)}{ratio}: gradients "
                f"({format_bytes(last.grad_bytes)}) appear in the backward and optimizer state "
                f"({format_bytes(last.optimizer_bytes)}) only at the first update.")
        if any(r.group >= 2 for r in self.rows):
            text += f" Steady state (later groups) peaks at {format_bytes(self.steady_peak)}."
        return text

    def to_table(self, markdown: bool = False) -> list[dict] | str:
        """Rows as dicts (bytes, plus ``*_above_start`` columns), or a markdown table in MiB."""
        records = [{**asdict(r), "current_above_start": r.current_bytes - self.start_bytes,
                    "peak_above_start": r.peak_bytes - self.start_bytes} for r in self.rows]
        if not markdown:
            return records
        mib = 1024**2
        head = ("| phase | current−start MiB | peak−start MiB | saved MiB | weights MiB | grads MiB "
                "| optimizer MiB |\n|---|---:|---:|---:|---:|---:|---:|")
        lines = [f"| {r['phase']} | {r['current_above_start'] / mib:.2f} | {r['peak_above_start'] / mib:.2f} "
                 f"| {r['saved_bytes'] / mib:.2f} | {r['weight_bytes'] / mib:.2f} | {r['grad_bytes'] / mib:.2f} "
                 f"| {r['optimizer_bytes'] / mib:.2f} |" for r in records]
        return "\n".join([head, *lines])

    def to_dict(self) -> dict:
        return {"device": self.device, "probe": self.probe, "start_bytes": self.start_bytes,
                "micro_batch": self.micro_batch, "accumulation_steps": self.accumulation_steps,
                "every_n_layers": self.every_n_layers, "offload": self.offload, "notes": self.notes,
                "forward_only_peak": self.forward_only_peak, "first_group_peak": self.first_group_peak,
                "steady_peak": self.steady_peak, "summary": self.summary(), "rows": self.to_table()}

    def plot(self, ax=None):
        """Peak and current memory (MiB above start) per phase, with the exact tensor parts
        stacked underneath; returns the matplotlib axes. Needs matplotlib (course extra)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(max(6.0, 0.45 * len(self.rows)), 3.5))
        mib = 1024**2
        x = range(len(self.rows))
        bottom = [0.0] * len(self.rows)
        for name, attr in [("weights", "weight_bytes"), ("gradients", "grad_bytes"),
                           ("optimizer state", "optimizer_bytes"), ("saved activations", "saved_bytes")]:
            h = [getattr(r, attr) / mib for r in self.rows]
            ax.bar(x, h, bottom=bottom, label=name, alpha=0.6)
            bottom = [b + v for b, v in zip(bottom, h)]
        ax.plot(x, [(r.peak_bytes - self.start_bytes) / mib for r in self.rows], "k^-", label="measured peak")
        ax.plot(x, [(r.current_bytes - self.start_bytes) / mib for r in self.rows], "k.:", label="measured current")
        ax.set_xticks(list(x), [r.phase for r in self.rows], rotation=60, ha="right", fontsize=8)
        ax.set_ylabel(f"MiB above start ({self.probe})")
        ax.set_title(f"{self.device}: m={self.micro_batch}, A={self.accumulation_steps}")
        ax.legend(fontsize=7)
        return ax



def _warm_up(model: nn.Module, optimizer: str, batch: Batch, task: str, precision: str) -> None:
    """One throwaway update on a copy, so one-time library allocations do not pose as phases."""
    twin = copy.deepcopy(model)
    engine = Accumulator(twin, make_optimizer(optimizer, twin), accumulation_steps=1, task=task, precision=precision)
    engine.update(next(iter(make_groups([batch], 1, task))))  # numbered by position: yours need no sample_ids



def phase_timeline(
    model: str | nn.Module = "tiny-gpt",
    micro_batch: int = 4,
    accumulation_steps: int = 2,
    groups: int = 3,
    every_n_layers: int | None = None,
    offload: bool = False,
    device: str | torch.device = "cpu",
    *,
    seq_len: int = 32,
    optimizer: str = "adamw",
    microbatches: Sequence[Batch] | None = None,
    model_kwargs: dict | None = None,
    seed: int = 0,
    warmup: bool = True,
    progress: Callable[[int, int], None] | None = None,
    precision: str = "fp32",
) -> Timeline:
    """Memory after every phase of ``groups`` real updates by the engine.

    Rows: ``baseline`` (weights on the device), then for each microbatch ``forward`` and
    ``backward``, and per group its ``update`` (the first update is where optimizer state
    appears; later groups are the steady state). Each row holds the probe's current bytes,
    the peak since the previous row, the saved-for-backward bytes and exact weight, gradient
    and optimizer-state bytes. A name builds a fresh model (tiny-gpt widened so activations
    are visible in process memory); ``every_n_layers`` enables checkpointing for the run;
    ``precision`` (``fp32``, ``bf16``, ``fp16``) is the engine's autocast for the forwards.
    ``warmup`` first runs one throwaway update on a copy. ``progress(done, total)``, when given,
    is called before the warm-up and after each update (``total`` = groups, plus 1 for the
    warm-up): a widget's progress bar. Raises ``ValueError`` for sizes < 1.
    """
    if min(micro_batch, accumulation_steps, groups) < 1:
        raise ValueError(f"micro_batch, accumulation_steps and groups must be ≥ 1, got "
                         f"{micro_batch}, {accumulation_steps}, {groups}")
    probe = MemoryProbe(device)
    net = build_for_measurement(model, probe.device, seed, model_kwargs)
    if microbatches is None:
        microbatches = synthetic_microbatches(net, micro_batch, accumulation_steps * groups, seq_len, seed)
    batches = [to_device(mb, probe.device) for mb in microbatches]
    task = task_of_batch(batches[0])
    rows: list[PhaseRow] = []
    at = {"group": 0, "mb": 0, "queued": False}
    counter = SavedTensorCounter(net)
    total = groups + int(warmup)
    with checkpointing(net, every_n_layers, offload) as ck:
        if warmup:
            if progress is not None:
                progress(0, total)
            _warm_up(net, optimizer, batches[0], task, precision)
        probe.release()
        start = probe.current_bytes() - state_bytes(net)["weights"]  # usage without the model
        opt = make_optimizer(optimizer, net)
        engine = Accumulator(net, opt, accumulation_steps=accumulation_steps, task=task, precision=precision)

        def record(phase: str, stage: str, saved: int = 0) -> None:
            probe.synchronize()
            s = state_bytes(net, opt)
            rows.append(PhaseRow(phase, stage, at["group"], probe.current_bytes(), probe.peak_bytes(), saved,
                                 s["weights"], s["gradients"], s["optimizer_state"]))
            probe.reset_peak()

        def stage(kind: str) -> str:
            return kind if at["group"] <= 1 else "steady"

        def after_forward(*_) -> None:
            at["mb"] += 1
            record(f"forward {at['group']}.{at['mb']}", stage("forward"), counter.result().total)

        def after_backward() -> None:
            at["queued"] = False
            record(f"backward {at['group']}.{at['mb']}", stage("backward"))

        def on_grad(_) -> None:  # first gradient of a backward: read memory when it has finished
            if not at["queued"]:
                at["queued"] = True
                torch.autograd.Variable._execution_engine.queue_callback(after_backward)

        def after_step(*_) -> None:
            record(f"update {at['group']}", "first update" if at["group"] == 1 else "steady")
            if progress is not None:
                progress(at["group"] + int(warmup), total)

        handles = [net.register_forward_pre_hook(lambda *_: counter.reset()),
                   net.register_forward_hook(after_forward), opt.register_step_post_hook(after_step),
                   *(p.register_post_accumulate_grad_hook(on_grad) for p in net.parameters() if p.requires_grad)]
        try:
            probe.reset_peak()
            record("baseline", "baseline")
            with counter:
                for group in make_groups(batches, accumulation_steps, task):
                    at["group"], at["mb"] = at["group"] + 1, 0
                    engine.update(group)
        finally:
            for h in handles:
                h.remove()
    notes = [probe.note] + ([ck.note] if ck is not None and ck.note else [])
    return Timeline(rows, str(probe.device), probe.kind, start, micro_batch, accumulation_steps,
                    every_n_layers, offload, notes)


"""A small timing harness for updates (course sections GA-2, CK-2, CK-3, CK-4).

- :func:`time_update`: warm-up calls, then repeats; median and spread of the wall time,
  CUDA-synchronized around every call on a GPU; samples/s and tokens/s.
- :func:`compare_layouts`: the same samples per update split as m × A in several ways
  (1×32, 4×8, 32×1): accumulation is not faster than a real large batch (GA-2).
- :func:`compare_checkpointing`: time per update, saved bytes and peak for checkpointing off
  and every n layers, with or without offload (CK-2 … CK-4).

Timings are measurements of *this* machine at *this* moment: compare ratios measured side
by side, never absolute numbers across machines.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import torch
from torch import nn

from gastudy.checkpointing import checkpointing
from gastudy.memory import (
    MemoryProbe,
    build_for_measurement,
    make_optimizer,
    saved_bytes,
    synthetic_microbatches,
    task_for,
    to_device,
)


@dataclass
class Timing:
    """Wall time of one call (seconds) over ``repeats`` calls after ``warmup`` calls.

    ``median_s``: median seconds per call; ``spread``: (max − min) ÷ median, a relative
    measure of noise; ``samples_per_s`` / ``tokens_per_s``: the given per-call counts divided
    by ``median_s`` (0 when no count was given); ``times_s``: every timed call.
    """

    median_s: float
    spread: float
    samples_per_s: float
    tokens_per_s: float
    times_s: list[float]

    def to_dict(self) -> dict:
        return asdict(self)


def _sync(device: torch.device | str | None) -> None:
    if device is not None and torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def time_update(fn: Callable[[], object], warmup: int = 1, repeats: int = 5, samples: int = 0,
                tokens: int = 0, device: torch.device | str | None = None) -> Timing:
    """Time ``fn()`` — one optimizer update — with warm-up and repeats (course: GA-2, CK-2).

    Runs ``fn`` ``warmup`` times untimed, then ``repeats`` times timed with
    ``time.perf_counter``; on a CUDA ``device`` the queue is synchronized before and after
    every timed call, so the time covers the GPU work. ``samples`` and ``tokens`` are what
    one call processes. Raises ``ValueError`` for ``repeats < 1`` or ``warmup < 0``.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError(f"need repeats ≥ 1 and warmup ≥ 0, got repeats={repeats}, warmup={warmup}")
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        _sync(device)
        t0 = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    return Timing(median, (max(times) - min(times)) / median if median > 0 else 0.0,
                  samples / median if median > 0 else 0.0, tokens / median if median > 0 else 0.0, times)


@dataclass
class RunTiming:
    """One configuration measured by :func:`compare_layouts` / :func:`compare_checkpointing`.

    ``saved_bytes``: activation bytes one microbatch's forward keeps for backward (exact).
    ``peak_bytes``: the device peak during the timed updates above the usage before them
    (CUDA: allocator bytes; CPU: process resident memory, noisy). Times are in seconds.
    """

    micro_batch: int
    accumulation_steps: int
    every_n_layers: int | None
    offload: bool
    timing: Timing
    saved_bytes: int
    peak_bytes: int

    @property
    def effective_batch(self) -> int:
        """Samples per update on this replica, m × A."""
        return self.micro_batch * self.accumulation_steps

    @property
    def label(self) -> str:
        ck = "off" if self.every_n_layers is None else f"n={self.every_n_layers}"
        return f"{self.micro_batch}×{self.accumulation_steps} ckpt {ck}" + (" offload" if self.offload else "")

    def to_dict(self) -> dict:
        return {**asdict(self), "effective_batch": self.effective_batch, "label": self.label}


def time_configuration(model: str | nn.Module = "tiny-gpt", micro_batch: int = 4, accumulation_steps: int = 8,
                       every_n_layers: int | None = None, offload: bool = False, *,
                       device: str | torch.device = "cpu", seq_len: int = 32, optimizer: str = "adamw",
                       model_kwargs: dict | None = None, warmup: int = 1, repeats: int = 5,
                       seed: int = 0) -> RunTiming:
    """Time one update of m × A on ``device`` and measure its saved bytes and peak (GA-2, CK-2).

    A fresh model per configuration (same seed, so the same weights); the samples depend only
    on m × A and ``seed``, so every split of the same total sees the same data. The update is
    the engine's: every microbatch's forward and backward, then the optimizer step.
    """
    from gastudy.engine import Accumulator
    from gastudy.groups import build_group

    net = build_for_measurement(model, device, seed, model_kwargs)
    batches = [to_device(b, device) for b in synthetic_microbatches(net, micro_batch, accumulation_steps, seq_len, seed)]
    task = task_for(batches[0])
    group = build_group(0, batches, accumulation_steps, task)
    probe = MemoryProbe(device)
    with checkpointing(net, every_n_layers, offload):
        saved = saved_bytes(net, batches[0]).total
        engine = Accumulator(net, make_optimizer(optimizer, net), accumulation_steps=accumulation_steps, task=task)
        probe.release()
        before = probe.current_bytes()
        probe.reset_peak()
        tokens = sum(int(b["attention_mask"].sum()) if "attention_mask" in b else len(b["labels"]) for b in batches)
        timing = time_update(lambda: engine.update(group), warmup, repeats, micro_batch * accumulation_steps,
                             tokens, probe.device)
        peak = probe.peak_bytes() - before
    return RunTiming(micro_batch, accumulation_steps, every_n_layers, offload, timing, saved, peak)


def compare_layouts(layouts: Sequence[tuple[int, int]] = ((1, 32), (4, 8), (32, 1)), **kwargs) -> list[RunTiming]:
    """Time the same samples per update split as m × A in several ways (course: GA-2).

    ``layouts`` are (m, A) pairs with one common m × A; ``kwargs`` go to
    :func:`time_configuration` (model, device, every_n_layers, repeats, …). Expect the
    single large batch to be fastest per sample: accumulation buys memory, not speed.
    Raises ``ValueError`` when the layouts do not share one m × A.
    """
    totals = {m * a for m, a in layouts}
    if len(totals) != 1:
        raise ValueError(f"layouts {list(layouts)} have different m×A {sorted(totals)}: compare splits of "
                         "one effective batch, e.g. [(1, 32), (4, 8), (32, 1)]")
    return [time_configuration(micro_batch=m, accumulation_steps=a, **kwargs) for m, a in layouts]


def compare_checkpointing(settings: Sequence[int | None] = (None, 1, 2, 4), offload: bool = False,
                          **kwargs) -> list[RunTiming]:
    """Time per update, saved bytes and peak with checkpointing off (``None``) and every n
    layers (course: CK-2, CK-3, CK-4). ``offload`` applies to the checkpointed settings;
    ``kwargs`` go to :func:`time_configuration`."""
    return [time_configuration(every_n_layers=n, offload=offload and n is not None, **kwargs) for n in settings]

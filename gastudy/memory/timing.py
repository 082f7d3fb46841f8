"""A small timing harness for updates (course sections GA-2, CK-2, CK-3, CK-4).

- :func:`time_update`: warm-up calls, then repeats; median and spread of the wall time,
  CUDA-synchronized around every call on a GPU; samples/s and tokens/s.
- :func:`compare_layouts`: the same samples per update split as m × A in several ways
  (1×32, 4×8, 32×1): accumulation is not faster than a real large batch.
- :func:`compare_checkpointing`: time per update, saved bytes and peak for checkpointing off
  and every n layers, with or without offload.

Timings are measurements of *this* machine at *this* moment: compare ratios measured side
by side, never absolute numbers across machines.
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import torch
from torch import nn

from gastudy.core.checkpointing import enable_checkpointing
from gastudy.core.counting import task_of_batch
from gastudy.core.engine import Accumulator
from gastudy.core.groups import build_group
from gastudy.memory.probes import MemoryProbe
from gastudy.memory.saved import saved_bytes, to_device
from gastudy.memory.workload import build_for_measurement, make_optimizer, synthetic_microbatches


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


def time_updates(fns: Sequence[Callable[[], object]], warmup: int = 1, repeats: int = 5,
                 samples: Sequence[int] | None = None, tokens: Sequence[int] | None = None,
                 device: torch.device | str | None = None,
                 progress: Callable[[float, str], None] | None = None) -> list[Timing]:
    """Time several update functions *interleaved*, one :class:`Timing` each.

    Each function runs ``warmup`` times untimed, then ``repeats`` rounds call every function
    once in turn, so a busy machine slows all of them alike and their ratios stay fair. On a
    CUDA ``device`` the queue is synchronized before and after every timed call, so the time
    covers the GPU work. ``samples[i]``/``tokens[i]`` are what one call of ``fns[i]``
    processes. ``progress(fraction, note)``, when given, is called before every round (a
    widget's progress bar). Raises ``ValueError`` for ``repeats < 1`` or ``warmup < 0``.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError(f"need repeats ≥ 1 and warmup ≥ 0, got repeats={repeats}, warmup={warmup}")
    samples, tokens = samples or [0] * len(fns), tokens or [0] * len(fns)
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for done in range(repeats):
        if progress is not None:
            progress(done / repeats, f"round {done + 1} of {repeats}")
        for fn, ts in zip(fns, times):
            _sync(device)
            t0 = time.perf_counter()
            fn()
            _sync(device)
            ts.append(time.perf_counter() - t0)
    out = []
    for ts, n, k in zip(times, samples, tokens):
        med = statistics.median(ts)
        per_s = 1 / med if med > 0 else 0.0
        out.append(Timing(med, (max(ts) - min(ts)) * per_s, n * per_s, k * per_s, ts))
    return out


def time_update(fn: Callable[[], object], warmup: int = 1, repeats: int = 5, samples: int = 0,
                tokens: int = 0, device: torch.device | str | None = None) -> Timing:
    """Time ``fn()`` — one optimizer update — with warm-up and repeats.

    ``warmup`` untimed calls, then ``repeats`` timed calls (``time.perf_counter``; CUDA
    synchronized around each call on a CUDA ``device``). ``samples`` and ``tokens`` are what
    one call processes. Raises ``ValueError`` for ``repeats < 1`` or ``warmup < 0``.
    """
    return time_updates([fn], warmup, repeats, [samples], [tokens], device)[0]


@dataclass
class RunTiming:
    """One configuration measured by :func:`compare_layouts` / :func:`compare_checkpointing`.

    ``saved_bytes``: activation bytes one microbatch's forward keeps for backward (exact).
    ``peak_bytes``: the device peak during a steady-state update (the second, untimed) above
    the usage before it — weights and optimizer state already present, so it is what the
    activations and gradients add (CUDA: allocator bytes; CPU: process resident memory, noisy).
    ``timing``: seconds per update (see :class:`Timing`).
    """

    micro_batch: int
    accumulation_steps: int
    every_n_layers: int | None
    offload: bool
    timing: Timing | None
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


@dataclass
class _Prepared:
    update: Callable[[], object]
    samples: int
    tokens: int
    result: RunTiming  # timing filled in later


def _prepare(model: str | nn.Module = "tiny-gpt", micro_batch: int = 4, accumulation_steps: int = 8,
             every_n_layers: int | None = None, offload: bool = False, *, device: str | torch.device = "cpu",
             seq_len: int = 32, optimizer: str = "adamw", model_kwargs: dict | None = None,
             seed: int = 0) -> _Prepared:
    """A fresh model and engine for one configuration; its second update measures the peak."""
    net = build_for_measurement(model, device, seed, model_kwargs)
    batches = [to_device(b, device) for b in synthetic_microbatches(net, micro_batch, accumulation_steps, seq_len, seed)]
    task = task_of_batch(batches[0])
    group = build_group(0, batches, accumulation_steps, task)
    if every_n_layers is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # offload on the CPU: a no-op, said in CPU_OFFLOAD_NOTE
            enable_checkpointing(net, every_n_layers, offload)
    saved = saved_bytes(net, batches[0]).total
    engine = Accumulator(net, make_optimizer(optimizer, net), accumulation_steps=accumulation_steps, task=task)
    engine.update(group)  # the first update creates the optimizer state
    probe = MemoryProbe(device)
    probe.release()
    before = probe.current_bytes()
    probe.reset_peak()
    engine.update(group)  # a steady-state update: its peak is what this configuration adds
    probe.synchronize()
    peak = probe.peak_bytes() - before
    tokens = sum(int(b["attention_mask"].sum()) if "attention_mask" in b else len(b["labels"]) for b in batches)
    result = RunTiming(micro_batch, accumulation_steps, every_n_layers, offload, None, saved, peak)
    return _Prepared(lambda: engine.update(group), micro_batch * accumulation_steps, tokens, result)


def _time_all(configs: Sequence[dict], warmup: int = 1, repeats: int = 5,
              progress: Callable[[float, str], None] | None = None, **common) -> list[RunTiming]:
    prepared = []
    for i, c in enumerate(configs):  # preparing (two untimed updates each) is about a third of the work
        if progress is not None:
            progress(i / len(configs) / 3, f"preparing {i + 1} of {len(configs)}")
        prepared.append(_prepare(**common, **c))

    def timed(fraction: float, note: str) -> None:
        progress(1 / 3 + 2 / 3 * fraction, f"timing, {note}")

    timings = time_updates([p.update for p in prepared], warmup, repeats, [p.samples for p in prepared],
                           [p.tokens for p in prepared], common.get("device", "cpu"),
                           progress=timed if progress is not None else None)
    for p, t in zip(prepared, timings):
        p.result.timing = t
    return [p.result for p in prepared]


def time_configuration(micro_batch: int = 4, accumulation_steps: int = 8, every_n_layers: int | None = None,
                       offload: bool = False, *, warmup: int = 1, repeats: int = 5, **kwargs) -> RunTiming:
    """Time one update of m × A and measure its saved bytes and peak.

    A fresh model (same seed, so the same weights) and the engine's real update: every
    microbatch's forward and backward, then the optimizer step. The samples depend only on
    m × A and ``seed``, so every split of the same total sees the same data. ``kwargs``:
    ``model``, ``device``, ``seq_len``, ``optimizer``, ``model_kwargs``, ``seed``. Two untimed
    updates (the second measures the peak), then ``warmup`` more untimed and ``repeats`` timed.
    """
    config = dict(micro_batch=micro_batch, accumulation_steps=accumulation_steps,
                  every_n_layers=every_n_layers, offload=offload)
    return _time_all([config], warmup, repeats, **kwargs)[0]


def compare_layouts(layouts: Sequence[tuple[int, int]] = ((1, 32), (4, 8), (32, 1)), **kwargs) -> list[RunTiming]:
    """Time the same samples per update split as m × A in several ways.

    ``layouts`` are (m, A) pairs with one common m × A; ``kwargs`` go to
    :func:`time_configuration` (model, device, every_n_layers, repeats, …); the layouts are
    timed interleaved. Expect the
    single large batch to be fastest per sample: accumulation buys memory, not speed.
    Raises ``ValueError`` when the layouts do not share one m × A.
    """
    totals = {m * a for m, a in layouts}
    if len(totals) != 1:
        raise ValueError(f"layouts {list(layouts)} have different m×A {sorted(totals)}: compare splits of "
                         "one effective batch, e.g. [(1, 32), (4, 8), (32, 1)]")
    return _time_all([dict(micro_batch=m, accumulation_steps=a) for m, a in layouts], **kwargs)


def compare_checkpointing(settings: Sequence[int | None] = (None, 1, 2, 4), offload: bool = False,
                          **kwargs) -> list[RunTiming]:
    """Time per update, saved bytes and peak with checkpointing off (``None``) and every n
    layers. ``offload`` applies to the checkpointed settings;
    ``kwargs`` go to :func:`time_configuration` (micro_batch, accumulation_steps, device, …).
    All settings are timed interleaved, so a busy machine slows them alike."""
    return _time_all([dict(every_n_layers=n, offload=offload and n is not None) for n in settings], **kwargs)

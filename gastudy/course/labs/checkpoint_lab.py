"""Chapter 08 — activation checkpointing, measured (course sections CK-1 … CK-4).

The labs of ``notebooks/08_checkpointing.ipynb``:

- :class:`SavedBytesLab` (CK-1): bytes kept for backward against batch size and sequence
  length, with and without checkpointing (:func:`gastudy.memory.saved.saved_bytes`).
- :class:`LayerDiagramLab` (CK-3): which layers ``every_n_layers=n`` checkpoints, drawn, with
  each layer's saved bytes measured.
- :class:`TradeoffLab` (CK-2, CK-3): time per update against saved bytes for every_n_layers = off,
  1…4 (:func:`gastudy.memory.timing.compare_checkpointing`), and the cost of checkpointing every
  layer in CPU seconds (:func:`cpu_seconds`), which a busy machine barely disturbs.
- :class:`CombineLab` (CK-2): none / checkpointing / accumulation / both at one effective batch.
- :class:`FormulaLab` (CK-4): layers × sequence × hidden × bytes against the measured bytes
  (:func:`gastudy.memory.saved.formula_check`).
- :class:`OffloadLab` (CK-4): offload measured on a GPU; on a CPU, shown to have nothing to move.
- :func:`compare_switches` (CK-3): Transformers' ``activation_checkpointing_enable(every_n_layers=…)``
  against gastudy's on one model, on GPT-2 and on :func:`older_style_lm`, a model with a module that
  checkpoints by its own ``gradient_checkpointing`` flag.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import nn

from gastudy.core.checkpointing import checkpointed_layers, checkpointing, layer_selection
from gastudy.core.loss import summed_loss
from gastudy.course.i18n import t
from gastudy.course.labs.experiment import devices, steady_timing, timing_progress
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots
from gastudy.memory.saved import FormulaCheck, format_bytes, formula_check, saved_bytes
from gastudy.memory.timing import (
    RunTiming,
    compare_checkpointing,
    compare_layouts,
    time_configuration,
)
from gastudy.memory.workload import build_for_measurement, synthetic_microbatches

MIB = 2**20


def model_kwargs(hidden: int = 128, layers: int = 4, max_len: int = 128) -> dict[str, int]:
    """TinyGPT sizes for the measurements of chapters 08–09 (4 heads; ``max_len`` ≥ the longest sequence).

    Course: CK-1 … CK-4, MB-9.
    """
    return {"hidden": hidden, "layers": layers, "heads": 4, "max_len": max_len}


# ----------------------------------------------------------------------------- CK-1
@dataclass
class SavedBytesSweep:
    """Saved-for-backward bytes (CK-1): ``by_batch[m]`` at ``seq_len`` and ``by_sequence[T]`` at
    ``micro_batch``, each a pair ``(without, with)`` checkpointing every layer."""

    hidden: int
    layers: int
    seq_len: int
    micro_batch: int
    by_batch: dict[int, tuple[int, int]]
    by_sequence: dict[int, tuple[int, int]]


def saved_bytes_sweep(hidden: int = 128, layers: int = 4, batches: tuple[int, ...] = (1, 2, 4, 8),
                      sequences: tuple[int, ...] = (16, 32, 64, 128), seq_len: int = 32,
                      micro_batch: int = 4) -> SavedBytesSweep:
    """Measure the bytes one forward keeps for backward, without and with checkpointing (CK-1).

    Fixed-length synthetic batches (every token supervised), so the bytes follow m and T
    exactly. Units: bytes of activations (parameters excluded).
    """
    net = build_for_measurement("tiny-gpt", model_kwargs=model_kwargs(hidden, layers, max(sequences + (seq_len,))))

    def pair(m: int, t: int) -> tuple[int, int]:
        batch = synthetic_microbatches(net, m, 1, t)[0]
        out = []
        for n in (None, 1):
            with checkpointing(net, n):
                out.append(saved_bytes(net, batch).total)
        return out[0], out[1]

    return SavedBytesSweep(hidden, layers, seq_len, micro_batch, {m: pair(m, seq_len) for m in batches},
                           {T: pair(micro_batch, T) for T in sequences})


class SavedBytesLab(Lab):
    """What the forward keeps for backward, against m and T, with and without checkpointing (CK-1)."""

    def __init__(self, hidden: int = 128, layers: int = 4):
        import ipywidgets as w

        self.title = t("CK-1 · Bytes kept for backward grow with the batch and the sequence; checkpointing keeps far fewer")
        super().__init__(hidden=w.Dropdown(options=[64, 128, 256], value=hidden, description=t("hidden")),
                         layers=int_slider(layers, 1, 8, t("layers")))

    def compute(self, hidden: int, layers: int) -> SavedBytesSweep:
        return saved_bytes_sweep(hidden, layers)

    def render(self, result: SavedBytesSweep) -> None:
        fig, axes = subplots(1, 2, figsize=(10, 3.3))
        for ax, data, xlabel in [(axes[0], result.by_batch, t("m (sequence {T})", T=result.seq_len)),
                                 (axes[1], result.by_sequence, t("sequence length T (m = {m})", m=result.micro_batch))]:
            xs = list(data)
            ax.plot(xs, [data[x][0] / MIB for x in xs], "o-", label=t("no checkpointing"))
            ax.plot(xs, [data[x][1] / MIB for x in xs], "s-", label=t("checkpoint every layer"))
            ax.set_xlabel(xlabel)
            ax.set_ylabel(t("MiB saved for backward"))
            ax.legend(fontsize=8)
        show_figure(fig)
        show_table([{"m": m, "T": result.seq_len, "without": format_bytes(a), "with": format_bytes(b),
                     "kept": f"{b / a:.1%}"} for m, (a, b) in result.by_batch.items()],
                   headers={"without": t("without"), "with": t("with"), "kept": t("kept")})


# ----------------------------------------------------------------------------- CK-3 diagram
@dataclass
class LayerChoice:
    """``every_n_layers`` on a model of ``layers`` marked layers (CK-3).

    ``selection`` is :func:`gastudy.core.checkpointing.layer_selection`; ``checkpointed`` the
    1-based layers actually switched on in the model; ``saved_by_layer[k-1]`` the bytes layer
    k keeps for backward in that setting, and ``saved_plain`` the same without checkpointing.
    """

    every_n_layers: int
    layers: int
    selection: list[bool]
    checkpointed: list[int]
    saved_by_layer: list[int]
    saved_plain: list[int]


def layer_choice(every_n_layers: int, layers: int = 6, hidden: int = 64, seq_len: int = 32,
                 micro_batch: int = 4) -> LayerChoice:
    """Switch ``every_n_layers`` on a TinyGPT of ``layers`` layers and measure each layer (CK-3)."""
    net = build_for_measurement("tiny-gpt", model_kwargs=model_kwargs(hidden, layers, 64))
    batch = synthetic_microbatches(net, micro_batch, 1, seq_len)[0]
    with checkpointing(net, None):
        plain = saved_bytes(net, batch)
    with checkpointing(net, every_n_layers) as state:
        chosen = saved_bytes(net, batch)
    return LayerChoice(every_n_layers, layers, layer_selection(layers, every_n_layers), state.layers,
                       [chosen.layer(k) for k in range(1, layers + 1)], [plain.layer(k) for k in range(1, layers + 1)])


def draw_layers(choice: LayerChoice, ax) -> None:
    """The every_n_layers diagram on ``ax``: forward row (CP / keep), backward row (rerun / keep). Course: CK-3."""
    from matplotlib.patches import FancyBboxPatch

    for k, on in enumerate(choice.selection, 1):
        for row, text in ((1.0, t("CP") if on else t("keep")), (0.0, t("rerun") if on else t("keep"))):
            ax.add_patch(FancyBboxPatch((k - 0.4, row - 0.3), 0.8, 0.6, boxstyle="round,pad=0.02",
                                        color="C3" if on else "C0", alpha=0.85))
            ax.text(k, row + 0.08, f"L{k}", ha="center", va="center", color="white", weight="bold")
            ax.text(k, row - 0.16, text, ha="center", va="center", color="white", fontsize=8)
    ax.annotate("", xy=(choice.layers + 0.7, 1.45), xytext=(0.3, 1.45), arrowprops={"arrowstyle": "->"})
    ax.annotate("", xy=(0.3, -0.45), xytext=(choice.layers + 0.7, -0.45), arrowprops={"arrowstyle": "->"})
    ax.text(0.2, 1.0, t("forward"), ha="right", va="center")
    ax.text(0.2, 0.0, t("backward"), ha="right", va="center")
    ax.set_xlim(-0.8, choice.layers + 0.8)
    ax.set_ylim(-0.7, 1.7)
    ax.axis("off")
    ax.set_title(t("every_n_layers = {n}: checkpointed layers {layers}", n=choice.every_n_layers,
                   layers=choice.checkpointed))


class LayerDiagramLab(Lab):
    """Which layers ``every_n_layers`` checkpoints, drawn, and what each then keeps (CK-3)."""

    def __init__(self, every_n_layers: int = 2, layers: int = 6):
        self.title = t("CK-3 · every_n_layers: the first layer and every n-th after it")
        super().__init__(every_n_layers=int_slider(every_n_layers, 1, 4, "every_n_layers"),
                         layers=int_slider(layers, 2, 12, t("layers")))

    def compute(self, every_n_layers: int, layers: int) -> LayerChoice:
        return layer_choice(every_n_layers, layers)

    def render(self, result: LayerChoice) -> None:
        fig, (top, bottom) = subplots(2, 1, figsize=(max(6.0, 0.9 * result.layers + 2), 4.6),
                                          gridspec_kw={"height_ratios": [1.3, 1]})
        draw_layers(result, top)
        ks = list(range(1, result.layers + 1))
        bottom.bar(ks, [b / 1024 for b in result.saved_plain], color="0.8", label=t("without checkpointing"))
        for on, color, label in ((True, "C3", t("checkpointed: keeps its input only")),
                                 (False, "C0", t("not checkpointed: keeps everything"))):
            picked = [(k, b) for k, b, sel in zip(ks, result.saved_by_layer, result.selection) if sel == on]
            if picked:
                bottom.bar([k for k, _ in picked], [b / 1024 for _, b in picked], color=color, label=label)
        bottom.set_xticks(ks, [f"L{k}" for k in ks])
        bottom.set_ylabel(t("KiB kept for backward"))
        bottom.set_ylim(0, 1.5 * max(result.saved_plain) / 1024)
        bottom.legend(fontsize=8, loc="upper center", ncol=3)
        show_figure(fig)


# ----------------------------------------------------------------------------- CK-2 / CK-3 trade-off
SETTINGS = (None, 1, 2, 3, 4)


def setting_name(n: int | None) -> str:
    """``"off"`` (in the course language) or ``"every_n_layers=2"``: how the labs label a
    checkpointing setting. Course: CK-2, CK-3."""
    return t("off") if n is None else f"every_n_layers={n}"


@dataclass
class Tradeoff:
    """What :class:`TradeoffLab` measures (CK-2, CK-3). Iterating over it gives ``runs``.

    ``runs``: one :class:`~gastudy.memory.timing.RunTiming` per setting of :data:`SETTINGS` (wall
    seconds per update, interleaved; exact saved bytes; peak). ``cpu_s``: every_n_layers (``None``
    = off) → this process's CPU seconds of each interleaved forward + backward
    (:func:`cpu_seconds`), for off and every layer; ``None`` on a GPU, where the work is not the CPU's.
    """

    runs: list[RunTiming]
    cpu_s: dict[int | None, list[float]] | None

    def __iter__(self):
        return iter(self.runs)

    @property
    def wall_ratio(self) -> float:
        """Best wall seconds of an update with every layer checkpointed ÷ with none."""
        best = {r.every_n_layers: min(r.timing.times_s) for r in self.runs}
        return best[1] / best[None]

    @property
    def cpu_ratio(self) -> float | None:
        """Best CPU seconds of a forward + backward with every layer checkpointed ÷ with none
        (``None`` on a GPU)."""
        return None if self.cpu_s is None else min(self.cpu_s[1]) / min(self.cpu_s[None])


def cpu_seconds(settings: Sequence[int | None] = (None, 1), micro_batch: int = 8, seq_len: int = 64,
                sizes: Mapping[str, int] | None = None, rounds: int = 3) -> dict[int | None, list[float]]:
    """CPU seconds (``time.process_time``: this process's work, not the time other programs hold
    the cores) of one forward + backward of tiny-gpt on the CPU, for each every_n_layers of
    ``settings`` (``None`` = off): one untimed call each, then ``rounds`` rounds that call every
    setting in turn. ``sizes``: tiny-gpt's sizes (default: :func:`model_kwargs` ``(128, 8)``, the
    lab's 8 layers). Course: CK-2 (the two-sided check of chapter 08 §3)."""
    net = build_for_measurement("tiny-gpt", model_kwargs=dict(sizes) if sizes else model_kwargs(128, 8))
    batch = synthetic_microbatches(net, micro_batch, 1, seq_len)[0]

    def step(n: int | None) -> float:
        start = time.process_time()
        with checkpointing(net, n):
            summed_loss(net(batch["input_ids"]), batch)[0].backward()
        net.zero_grad(set_to_none=True)
        return time.process_time() - start

    for n in settings:
        step(n)
    times: dict[int | None, list[float]] = {n: [] for n in settings}
    for _ in range(rounds):
        for n in settings:
            times[n].append(step(n))
    return times


class TradeoffLab(Lab):
    """Time per update against saved bytes for checkpointing off and every_n_layers = 1…4 (CK-2, CK-3)."""

    def __init__(self, micro_batch: int = 8, seq_len: int = 64, repeats: int = 3):
        import ipywidgets as w

        self.title = t("CK-2, CK-3 · Memory against time as every_n_layers grows: fewer checkpoints, more memory, "
                       "less recomputation")
        super().__init__(micro_batch=int_slider(micro_batch, 1, 16, "m"),
                         seq_len=w.Dropdown(options=[32, 64, 128], value=seq_len, description=t("sequence")),
                         repeats=int_slider(repeats, 2, 5, t("repeats")),
                         device=w.Dropdown(options=devices(), value=devices()[-1], description=t("device")))

    def compute(self, micro_batch: int, seq_len: int, repeats: int, device: str) -> Tradeoff:
        with steady_timing(device):
            runs = compare_checkpointing(SETTINGS, micro_batch=micro_batch, accumulation_steps=1, seq_len=seq_len,
                                         model_kwargs=model_kwargs(128, 8), repeats=repeats, device=device,
                                         progress=timing_progress(self))
            on_cpu = torch.device(device).type == "cpu"
            cpu = cpu_seconds((None, 1), micro_batch, seq_len, model_kwargs(128, 8), repeats) if on_cpu else None
        return Tradeoff(runs, cpu)

    def render(self, result: Tradeoff | Sequence[RunTiming]) -> None:
        if not isinstance(result, Tradeoff):  # runs measured elsewhere, without the CPU seconds
            result = Tradeoff(list(result), None)
        fig, ax = subplots(figsize=(6.5, 3.5))
        for r in result:
            ms = min(r.timing.times_s) * 1000
            ax.scatter(r.saved_bytes / MIB, ms, s=60, color="C7" if r.every_n_layers is None else "C3")
            ax.annotate(setting_name(r.every_n_layers), (r.saved_bytes / MIB, ms), textcoords="offset points",
                        xytext=(6, 4), fontsize=8)
        ax.set_xlabel(t("MiB kept for backward (one microbatch)"))
        ax.set_ylabel(t("ms per update (best repeat)"))
        ax.set_title(t("the trade-off curve: lower-left is better"))
        show_figure(fig)
        show_table([{"checkpointing": setting_name(r.every_n_layers), "saved": format_bytes(r.saved_bytes),
                     "peak": format_bytes(r.peak_bytes), "best ms": min(r.timing.times_s) * 1000,
                     "median ms": r.timing.median_s * 1000} for r in result], headers=timing_headers())
        if result.cpu_ratio is not None:
            say(t("Checkpointing every layer: {wall:.2f}× the wall time of none (best repeat), {cpu:.2f}× its CPU "
                  "seconds (forward + backward).", wall=result.wall_ratio, cpu=result.cpu_ratio))


def timing_headers() -> dict[str, str]:
    """The column headers of chapter 08's timing tables in the course language (keys stay English).
    Course: CK-2, CK-3, CK-4."""
    return {"choice": t("choice"), "checkpointing": t("checkpointing"), "saved": t("saved"), "peak": t("peak"),
            "best ms": t("best ms"), "median ms": t("median ms"), "setting": t("setting"),
            "device peak": t("device peak")}


COMBINATIONS = {"none": (8, 1, None), "checkpointing": (8, 1, 1), "accumulation": (2, 4, None),
                "both": (2, 4, 1)}


def combination_name(name: str) -> str:
    """A key of :data:`COMBINATIONS` in the course language (the keys stay English). Course: CK-2."""
    return {"none": t("none"), "checkpointing": t("checkpointing"), "accumulation": t("accumulation"),
            "both": t("both")}.get(name, name)


class CombineLab(Lab):
    """None, checkpointing, accumulation, both: one update of the same 8 samples (CK-2)."""

    def __init__(self, seq_len: int = 64, repeats: int = 3):
        import ipywidgets as w

        self.title = t("CK-2 · Checkpointing combines with accumulation: time and memory of the four choices")
        super().__init__(seq_len=w.Dropdown(options=[32, 64, 128], value=seq_len, description=t("sequence")),
                         repeats=int_slider(repeats, 2, 5, t("repeats")),
                         device=w.Dropdown(options=devices(), value=devices()[-1], description=t("device")))

    def compute(self, seq_len: int, repeats: int, device: str) -> dict[str, RunTiming]:
        runs = []
        report = timing_progress(self)
        with steady_timing(device):
            for half, n in enumerate((None, 1)):  # each pair (8×1, 2×4) is timed interleaved

                def progress(fraction: float, note: str, half: int = half) -> None:
                    report((half + fraction) / 2, note)

                runs += compare_layouts(((8, 1), (2, 4)), every_n_layers=n, seq_len=seq_len, repeats=repeats,
                                        model_kwargs=model_kwargs(128, 4), device=device, progress=progress)
        by_key = {(r.micro_batch, r.accumulation_steps, r.every_n_layers): r for r in runs}
        return {name: by_key[key] for name, key in COMBINATIONS.items()}

    def render(self, result: dict[str, RunTiming]) -> None:
        fig, (left, right) = subplots(1, 2, figsize=(10, 3.2))
        names = [combination_name(name) for name in result]
        left.bar(names, [r.saved_bytes / MIB for r in result.values()], color=["C7", "C3", "C0", "C4"])
        left.set_ylabel(t("MiB kept for backward per microbatch"))
        right.bar(names, [min(r.timing.times_s) * 1000 for r in result.values()], color=["C7", "C3", "C0", "C4"])
        right.set_ylabel(t("ms per update of 8 samples (best)"))
        show_figure(fig)
        show_table([{"choice": combination_name(name), "m × A": f"{r.micro_batch} × {r.accumulation_steps}",
                     "checkpointing": setting_name(r.every_n_layers), "saved": format_bytes(r.saved_bytes),
                     "peak": format_bytes(r.peak_bytes), "best ms": min(r.timing.times_s) * 1000}
                    for name, r in result.items()], headers=timing_headers())


# ----------------------------------------------------------------------------- CK-4 formula and offload
class FormulaLab(Lab):
    """layers × m × sequence × hidden × bytes against the bytes checkpointed layers keep (CK-4)."""

    def __init__(self, seq_len: int = 64, hidden: int = 128):
        import ipywidgets as w

        self.title = t("CK-4 · What a checkpointed layer still keeps: the formula against the measurement")
        super().__init__(every_n_layers=int_slider(1, 1, 4, "every_n_layers"),
                         micro_batch=int_slider(4, 1, 16, "m"),
                         seq_len=w.Dropdown(options=[16, 32, 64, 128], value=seq_len, description=t("sequence")),
                         hidden=w.Dropdown(options=[64, 128, 256], value=hidden, description=t("hidden")))

    def compute(self, every_n_layers: int, micro_batch: int, seq_len: int, hidden: int) -> FormulaCheck:
        return formula_check("tiny-gpt", micro_batch, seq_len, every_n_layers, model_kwargs=model_kwargs(hidden, 4))

    def render(self, result: FormulaCheck) -> None:
        fig, ax = subplots(figsize=(6.5, 2.6))
        formula, measured = t("formula"), t("measured")
        ax.barh([formula, measured], [result.formula_bytes / 1024, result.measured_bytes / 1024],
                color=["C1", "C0"])
        ax.barh([formula], [result.mask_bytes / 1024], left=[result.formula_bytes / 1024], color="0.7",
                label=t("+ attention mask"))
        ax.set_xlabel(t("KiB kept by the checkpointed layers"))
        ax.legend(fontsize=8)
        show_figure(fig)
        say(t("{layers} checkpointed layers × m={m} × T={T} × hidden={hidden} × {bytes} bytes = {formula}; "
                "measured {measured} (ratio {ratio:.4f}).", layers=result.checkpointed, m=result.micro_batch,
                T=result.sequence, hidden=result.hidden, bytes=result.bytes_per_element,
                formula=format_bytes(result.formula_bytes), measured=format_bytes(result.measured_bytes),
                ratio=result.ratio))
        say(formula_note(result))


def formula_note(check: FormulaCheck) -> str:
    """What :attr:`FormulaCheck.note` says, in the course language (the library keeps it in English
    for logs and the command line): where the bytes beyond the formula come from, or where an
    offloaded layer's inputs went. Course: CK-4."""
    if check.offload and not check.device.startswith("cpu"):
        return t("offload: {measured} left on {device} instead of {expected}; the layer inputs live in pinned host "
                 "memory until the backward.", measured=format_bytes(check.measured_bytes), device=check.device,
                 expected=format_bytes(check.formula_bytes + check.mask_bytes))
    text = t("measured − formula = {extra}; the attention mask (m×T×T bools = {mask}) is one more input, shared by "
             "all layers, counted once.", extra=format_bytes(check.measured_bytes - check.formula_bytes),
             mask=format_bytes(check.mask_bytes))
    return text + (" " + t("On the CPU offload has nothing to move.") if check.offload else "")


@dataclass
class OffloadResult:
    """CK-4 offload: device bytes kept by checkpointed layers without/with offload, and (on a
    GPU) the time and device peak of one update each way. ``note`` says what was measured."""

    device: str
    plain: FormulaCheck
    offloaded: FormulaCheck
    timings: dict[str, RunTiming] | None
    note: str


def cpu_explanation() -> str:
    """Why offload shows nothing on a CPU-only machine, in the course language (course: CK-4)."""
    return t("On this CPU-only machine the activations already live in host memory: offload has nothing to move, "
             "so the bytes kept are the same with and without it (measured above). On a GPU, offload moves each "
             "checkpointed layer's input to pinned host memory during the forward (device → host copy) and back "
             "during the backward (host → device), on the compute stream: the device keeps almost nothing, and "
             "every update pays two copies. Run this notebook on a GPU machine to see the device peak drop and "
             "the time rise.")


def offload_demo(device: str = "cpu", micro_batch: int = 8, seq_len: int = 128, repeats: int = 3,
                 timed: bool | None = None) -> OffloadResult:
    """Measure checkpointing with and without offload on ``device`` (course: CK-4).

    Always measures the device bytes checkpointed layers keep (:func:`gastudy.memory.saved.formula_check`).
    On CUDA also times one update each way and reads the allocator peak
    (:func:`gastudy.memory.timing.time_configuration`); on the CPU the note explains why there is
    nothing to move instead of timing a no-op (``timed=True`` times it anyway: the GPU's code
    path, run where there is none, so that tests cover it). The note is in the course language.
    """
    kw = model_kwargs(256, 4)
    plain, off = (formula_check("tiny-gpt", micro_batch, seq_len, 1, offload=o, device=device, model_kwargs=kw)
                  for o in (False, True))
    timings = None
    if timed if timed is not None else torch.device(device).type == "cuda":  # timed=True: the GPU path, anywhere
        runs = compare_checkpointing((None, 1), offload=False, micro_batch=micro_batch, accumulation_steps=1,
                                     device=device, seq_len=seq_len, model_kwargs=kw, repeats=repeats)
        runs += [time_configuration(micro_batch, 1, 1, offload=True, device=device, seq_len=seq_len,
                                    model_kwargs=kw, repeats=repeats)]
        timings = dict(zip(("no checkpointing", "checkpointing", "checkpointing + offload"), runs))
    result = OffloadResult(device, plain, off, timings, "")
    result.note = offload_note(result)
    return result


def offload_note(result: OffloadResult) -> str:
    """What :class:`OffloadLab` says under its plot, in the current course language: on a GPU where
    the offloaded inputs went, on a CPU why there is nothing to move. Course: CK-4."""
    return formula_note(result.offloaded) if torch.device(result.device).type == "cuda" else cpu_explanation()


class OffloadLab(Lab):
    """Offload: device bytes (and on a GPU, time and peak) with and without it (CK-4)."""

    def __init__(self, micro_batch: int = 8, seq_len: int = 128):
        import ipywidgets as w

        self.title = t("CK-4 · Offloading the checkpointed activations to host memory")
        super().__init__(micro_batch=int_slider(micro_batch, 1, 16, "m"),
                         seq_len=w.Dropdown(options=[32, 64, 128], value=seq_len, description=t("sequence")),
                         device=w.Dropdown(options=devices(), value=devices()[-1], description=t("device")))

    def compute(self, micro_batch: int, seq_len: int, device: str) -> OffloadResult:
        return offload_demo(device, micro_batch, seq_len)

    def render(self, result: OffloadResult) -> None:
        panels = 2 if result.timings else 1
        fig, axes = subplots(1, panels, figsize=(5 * panels, 3.0), squeeze=False)
        names = {"no checkpointing": t("no checkpointing"), "checkpointing": t("checkpointing"),
                 "checkpointing + offload": t("checkpointing + offload")}
        axes[0][0].bar([names["checkpointing"], names["checkpointing + offload"]],
                       [result.plain.measured_bytes / 1024, result.offloaded.measured_bytes / 1024], color=["C3", "C2"])
        axes[0][0].set_ylabel(t("KiB kept on {device}", device=result.device))
        if result.timings:
            axes[0][1].bar([names.get(n, n) for n in result.timings],
                           [min(r.timing.times_s) * 1000 for r in result.timings.values()], color=["C7", "C3", "C2"])
            axes[0][1].tick_params(axis="x", labelsize=7)
            axes[0][1].set_ylabel(t("ms per update (best)"))
        show_figure(fig)
        if result.timings:
            show_table([{"setting": names.get(n, n), "device peak": format_bytes(r.peak_bytes),
                         "best ms": min(r.timing.times_s) * 1000} for n, r in result.timings.items()],
                       headers=timing_headers())
        say(offload_note(result))  # in the language the lab is shown in, whichever measured it


# ----------------------------------------------------------------------------- CK-1: terms in T and T²
@dataclass
class SequenceTerms:
    """Saved bytes as a function of the sequence length: ``constant + per_token·T + per_token_squared·T²``.

    Fitted exactly through the measured points (least squares, 3 terms); ``max_residual`` is the
    largest gap between the fit and a measurement, in bytes (≈ 0 when the model holds).
    ``ratio`` is bytes at the longest T ÷ bytes at the shortest. Course: CK-1.
    """

    constant: float
    per_token: float
    per_token_squared: float
    max_residual: float
    ratio: float


def sequence_terms(by_sequence: dict[int, tuple[int, int]], column: int = 0) -> SequenceTerms:
    """Split measured bytes against T into a linear and a quadratic part (course: CK-1).

    ``by_sequence`` is :attr:`SavedBytesSweep.by_sequence` (T → (without, with) checkpointing);
    ``column`` 0 fits the bytes without checkpointing, 1 with it. Most activations hold
    m × T × hidden numbers (linear in T); attention adds m × T × T terms (quadratic). Raises
    ``ValueError`` with fewer than 3 sequence lengths (3 terms need 3 points).
    """
    if len(by_sequence) < 3:
        raise ValueError(f"need at least 3 sequence lengths to separate T and T², got {sorted(by_sequence)}")
    ts = sorted(by_sequence)
    T = torch.tensor(ts, dtype=torch.float64)
    y = torch.tensor([float(by_sequence[length][column]) for length in ts], dtype=torch.float64)
    X = torch.stack([torch.ones_like(T), T, T * T], dim=1)
    coef = torch.linalg.lstsq(X, y.unsqueeze(1)).solution.squeeze(1)
    residual = float((X @ coef - y).abs().max())
    return SequenceTerms(float(coef[0]), float(coef[1]), float(coef[2]), residual, float(y[-1] / y[0]))


def attention_saved_bytes(seq_len: int, causal: bool, micro_batch: int = 2, heads: int = 4, head_dim: int = 16,
                          device: str = "cpu") -> int:
    """Bytes one ``torch.nn.functional.scaled_dot_product_attention`` call keeps for backward
    beyond its query, key and value (each storage once), at sequence length ``seq_len`` (CK-1),
    with the backend PyTorch picks on ``device``.

    ``causal=False`` passes an explicit causal mask, as tiny-gpt does
    (:func:`gastudy.course.models.causal_mask`, m × 1 × T × T); ``causal=True`` passes no mask and
    ``is_causal=True``. Neither flag decides whether a T × T tensor is kept: the backend does (the
    math backend keeps the m × heads × T × T probabilities, a fused flash or memory-efficient
    kernel does not). Chapter 08 measures each backend by hand (its cell ``nb08-sdpa``); this
    function serves the editions' chapter 08 until they are regenerated from the English one.
    """
    import torch.nn.functional as F  # noqa: N812 - PyTorch's own spelling

    from gastudy.course.models import causal_mask

    q, k, v = (torch.randn(micro_batch, heads, seq_len, head_dim, device=device, requires_grad=True)
               for _ in range(3))
    inputs = {x.untyped_storage().data_ptr() for x in (q, k, v)}
    kept: dict[int, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in inputs:
            kept[storage.data_ptr()] = storage.nbytes()
        return tensor

    positions = torch.arange(seq_len, device=device).expand(micro_batch, seq_len)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        if causal:
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(positions))
    return sum(kept.values())


# ----------------------------------------------------------------------------- CK-3 in Transformers
class OlderStyleStack(nn.Module):
    """A module in the style Hugging Face models were written in before ``GradientCheckpointingLayer``
    (and many models on the Hub, loaded with ``trust_remote_code``, still are): it carries its own
    ``gradient_checkpointing`` flag and, while the flag is on and it trains, runs each of its
    residual MLP layers through ``self._gradient_checkpointing_func`` (which Transformers sets).
    It is not a counted block. Course: CK-3."""

    def __init__(self, hidden: int, layers: int = 2):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))
                                    for _ in range(layers))
        self.gradient_checkpointing = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                x = x + self._gradient_checkpointing_func(layer.__call__, x)
            else:
                x = x + layer(x)
        return x


def older_style_lm(layers: int = 6, seed: int = 0) -> nn.Module:
    """The course's tiny GPT-2 (:func:`gastudy.course.bridge.tiny_causal_lm`, ``layers`` counted
    blocks) with an :class:`OlderStyleStack` after its token embedding (``transformer.wte`` becomes
    the embedding followed by the stack; the output head stays tied to the embedding's weight).
    Needs the ``hf`` extra. Course: CK-3."""
    from gastudy.course.bridge import tiny_causal_lm

    model = tiny_causal_lm(seed=seed, layers=layers)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed + 1)
        stack = OlderStyleStack(model.config.n_embd)
    model.transformer.wte = nn.Sequential(model.transformer.wte, stack)
    return model.train()


@dataclass
class SwitchRow:
    """One every_n_layers on one model, switched by Transformers and by gastudy (CK-3): the 1-based
    counted blocks each checkpoints (``hf_layers``, ``layers``), the other modules with a
    ``gradient_checkpointing`` flag that are on (``hf_flagged_on``, ``flagged_on``, by name), and
    the bytes one forward keeps for backward (``hf_kept``, ``kept``)."""

    every_n_layers: int
    hf_layers: list[int]
    hf_flagged_on: list[str]
    hf_kept: int
    layers: list[int]
    flagged_on: list[str]
    kept: int


def compare_switches(model: nn.Module, batch: Mapping[str, torch.Tensor],
                     settings: Sequence[int] = (1, 2, 3)) -> list[SwitchRow]:
    """For each every_n_layers of ``settings``: Transformers'
    ``model.activation_checkpointing_enable(every_n_layers=n)``, then gastudy's
    ``checkpointing(model, n)``, on the same model and ``batch``, each switched off again after it
    is measured. Needs the ``hf`` extra (a ``transformers.PreTrainedModel``). Course: CK-3."""
    from transformers.modeling_layers import GradientCheckpointingLayer

    flagged = [name for name, module in model.named_modules()
               if hasattr(module, "gradient_checkpointing") and not isinstance(module, GradientCheckpointingLayer)]

    def flagged_on() -> list[str]:
        return [name for name in flagged if model.get_submodule(name).gradient_checkpointing]

    rows = []
    for n in settings:
        model.activation_checkpointing_enable(every_n_layers=n)
        hf = checkpointed_layers(model), flagged_on(), saved_bytes(model, batch).total
        model.activation_checkpointing_disable()
        with checkpointing(model, every_n_layers=n) as state:
            rows.append(SwitchRow(n, *hf, state.layers, flagged_on(), saved_bytes(model, batch).total))
    return rows

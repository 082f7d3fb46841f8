"""Real memory probes, per device (course sections CK-1, CK-4, GA-1, MB-4, MB-9).

- :func:`saved_bytes` / :class:`SavedTensorCounter`: the exact bytes of the tensors autograd
  keeps for backward during a forward, each storage counted once, per marked layer and per
  device. A checkpointed layer keeps only its inputs; an offloaded one keeps nothing on the
  device.
- :class:`MemoryProbe`: current and peak memory of one device, with a per-phase peak reset.
  CPU: the process's resident memory (Linux: ``VmRSS``/``VmHWM``, reset by writing 5 to
  ``/proc/self/clear_refs``; elsewhere an honest, non-resettable fallback). CUDA: the caching
  allocator's live-tensor bytes and peak.
- :func:`phase_timeline`: memory after every forward, backward and update of a few groups,
  run by the real engine: baseline (weights), forwards, backwards (gradients appear), the
  first update (optimizer state appears), then the steady state.
- :func:`formula_check`: layers × sequence × hidden × bytes_per_element against the bytes the
  checkpointed layers really keep (CK-4).
- :func:`measure_peak`: the measured peak of a training configuration (used by the planner).
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import ctypes.util
import gc
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import torch
from torch import nn

from gastudy.checkpointing import checkpointed_layers, checkpointing, marked_layers
from gastudy.engine import Accumulator, model_inputs
from gastudy.groups import build_group, make_groups
from gastudy.loss import summed_loss
from gastudy.models import build_model

Batch = dict[str, torch.Tensor]

# A name-built tiny-gpt is made wide enough that its activations show in process memory.
MEASURE_MODEL_KWARGS = {"tiny-gpt": {"hidden": 256, "layers": 4, "heads": 4}}


def format_bytes(n: float) -> str:
    """``1536`` → ``'1.5 KiB'`` (binary units; negative values keep their sign). Course: MB-9."""
    sign, n = ("-" if n < 0 else ""), abs(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{sign}{n:.0f} {unit}" if unit == "B" else f"{sign}{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


# --------------------------------------------------------------------- saved-for-backward bytes
def storage_key(t: torch.Tensor) -> tuple[tuple, int]:
    """``((device, data_ptr), nbytes)`` of the storage behind ``t``: views of one storage share
    the key, so summing ``nbytes`` over distinct keys counts each storage once. Course: CK-1."""
    try:
        st = t.untyped_storage()
        return (str(t.device), st.data_ptr()), st.nbytes()
    except (RuntimeError, NotImplementedError):  # tensors without a plain storage
        return ("tensor", id(t)), t.numel() * t.element_size()


_storage = storage_key  # the old private name, still imported by gastudy.diagnostics


def tensor_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind ``tensors`` (each storage counted once). Course: CK-1."""
    seen = dict(storage_key(t) for t in tensors)
    return sum(seen.values())


@dataclass
class SavedBytes:
    """Bytes autograd keeps for backward after a forward (course: CK-1, CK-4).

    - ``total``: activation bytes — distinct storages saved for backward that are *not* the
      model's own parameters or buffers (those exist anyway), on every device.
    - ``by_layer``: the same bytes by where they were saved: ``"layer k"`` (1-based marked
      layer), ``"other"`` (the rest of the model: embeddings, head) and ``"loss"``.
    - ``by_device``: the same bytes per device (``"cpu"``, ``"cuda:0"``).
    - ``parameter_bytes``: bytes of parameters/buffers autograd also references (no extra memory).
    - ``tensors``: number of tensors packed (a storage saved twice is still counted once).

    Tensors an inner hook takes over (a checkpoint's recomputed activations, offloaded
    inputs) never reach this counter: they are not kept on the device by autograd.
    """

    total: int
    by_layer: dict[str, int]
    by_device: dict[str, int]
    parameter_bytes: int
    tensors: int

    def layer(self, k: int) -> int:
        """Activation bytes saved inside 1-based marked layer ``k``."""
        return self.by_layer.get(f"layer {k}", 0)

    def to_dict(self) -> dict:
        return asdict(self)


class SavedTensorCounter:
    """Context manager that counts the bytes autograd saves for backward (course: CK-1).

    Inside the ``with`` block every tensor saved for backward passes through a
    ``torch.autograd.graph.saved_tensors_hooks`` pack hook (which returns it unchanged);
    :meth:`result` sums the distinct storages. With a ``model``, forward hooks on its marked
    layers attribute the bytes to ``"layer k"``; bytes saved outside the model count as
    ``"loss"``. :meth:`reset` starts a new count (e.g. per microbatch).
    """

    def __init__(self, model: nn.Module | None = None):
        self.model = model
        self._where = ["loss" if model is not None else "other"]
        self._handles: list = []
        self.reset()

    def reset(self) -> None:
        """Forget everything counted so far."""
        self._seen: dict[tuple, tuple[int, str]] = {}
        self.tensors = 0

    def _pack(self, t: torch.Tensor) -> torch.Tensor:
        self.tensors += 1
        key, nbytes = storage_key(t)
        self._seen.setdefault(key, (nbytes, self._where[-1]))
        return t

    def _enter_region(self, name: str):
        return lambda *_: self._where.append(name)

    def _leave_region(self, *_) -> None:
        self._where.pop()

    def __enter__(self) -> SavedTensorCounter:
        self._where = self._where[:1]
        self._params: set[tuple] = set()
        if self.model is not None:
            tensors = [*self.model.parameters(), *self.model.buffers()]
            self._params = {storage_key(t)[0] for t in tensors}
            regions = [(self.model, "other")] + [(m, f"layer {k}") for k, m in enumerate(marked_layers(self.model), 1)]
            for module, name in regions:
                self._handles.append(module.register_forward_pre_hook(self._enter_region(name)))
                self._handles.append(module.register_forward_hook(self._leave_region))
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._hooks.__exit__(*exc)
        for h in self._handles:
            h.remove()
        self._handles.clear()

    def result(self) -> SavedBytes:
        """The count so far as :class:`SavedBytes`."""
        by_layer: dict[str, int] = {}
        by_device: dict[str, int] = {}
        params = 0
        for key, (nbytes, where) in self._seen.items():
            if key in self._params:
                params += nbytes
                continue
            by_layer[where] = by_layer.get(where, 0) + nbytes
            by_device[key[0]] = by_device.get(key[0], 0) + nbytes
        return SavedBytes(sum(by_layer.values()), by_layer, by_device, params, self.tensors)


def task_for(batch: Batch) -> str:
    """The supervision kind of a course batch: ``causal`` with ``input_ids``, else
    ``classification`` (course: GA-5)."""
    return "causal" if "input_ids" in batch else "classification"


def to_device(batch: Batch, device: torch.device | str) -> Batch:
    """Every tensor of ``batch`` moved to ``device`` (labels too, so the loss can run there). Course: MB-9."""
    return {k: v.to(device) for k, v in batch.items()}


def saved_bytes(model: nn.Module, batch: Batch, task: str | None = None, include_loss: bool = True) -> SavedBytes:
    """Exact bytes autograd keeps for backward after one forward of ``batch`` (course: CK-1).

    Runs ``model(**inputs)`` (and, with ``include_loss``, the summed cross-entropy) with
    gradients enabled, in the model's current mode: checkpointing applies only in training
    mode. Each storage is counted once; parameters are reported apart (``parameter_bytes``).
    No backward is run; the graph is freed on return. Units: bytes.
    """
    device = next(model.parameters()).device
    batch = to_device(batch, device)
    with torch.enable_grad(), SavedTensorCounter(model) as counter:
        output = model(**model_inputs(batch, device))
        if include_loss:
            summed_loss(output, batch, task or task_for(batch))
    return counter.result()


# --------------------------------------------------------------------- device memory probes
def _read_status() -> dict[str, int]:
    with open("/proc/self/status") as f:
        return {k: int(v.split()[0]) * 1024 for k, v in (line.split(":", 1) for line in f) if k in ("VmRSS", "VmHWM")}


def _clear_refs() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _malloc_trim() -> None:
    """Return freed C-heap memory to the OS (glibc only) so resident memory shows live data."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
            ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


class MemoryProbe:
    """Current and peak memory of one device, with a per-phase peak reset (course: MB-9).

    ``MemoryProbe("cpu")``: bytes resident in this *process* (Python, libraries and allocator
    caches included, not only tensors). On Linux the peak is ``VmHWM`` and :meth:`reset_peak`
    writes 5 to ``/proc/self/clear_refs``; elsewhere the peak is ``ru_maxrss`` since the
    process started and cannot be reset (``resettable`` is False and ``note`` says so).

    ``MemoryProbe("cuda:0")``: bytes of live tensors in the CUDA caching allocator
    (``memory_allocated`` / ``max_memory_allocated``), excluding the CUDA context and cached
    free blocks; the peak resets per phase. Raises ``RuntimeError`` when CUDA is absent.

    Attributes: ``device``, ``kind`` (what is measured), ``resettable``, ``note``.
    """

    def __init__(self, device: str | torch.device = "cpu"):
        self.device = torch.device(device)
        if self.device.type == "cuda":
            if not torch.cuda.is_available():
                raise RuntimeError(f"MemoryProbe({str(device)!r}): CUDA is not available here; use 'cpu'")
            if self.device.index is None:
                self.device = torch.device("cuda", torch.cuda.current_device())
            self.kind, self.resettable = "cuda allocator", True
            self.note = "live tensor bytes in the CUDA caching allocator (excludes context and cache)"
        elif self.device.type == "cpu":
            if os.path.exists("/proc/self/status") and _clear_refs():
                self.kind, self.resettable = "process RSS (/proc)", True
                self.note = "process resident memory; peak = VmHWM, reset per phase via /proc/self/clear_refs"
            elif os.path.exists("/proc/self/status"):
                self.kind, self.resettable = "process RSS (/proc, no reset)", False
                self.note = "process resident memory; /proc/self/clear_refs is not writable, so the peak is since start"
            else:
                self.kind, self.resettable = "process max RSS (getrusage)", False
                self.note = "this OS gives only the peak since the process started; per-phase peaks are not available"
        else:
            raise ValueError(f"MemoryProbe supports 'cpu' and 'cuda[:i]', got {str(device)!r}")

    def current_bytes(self) -> int:
        """Bytes in use now (process resident memory on CPU, live tensors on CUDA)."""
        if self.device.type == "cuda":
            return torch.cuda.memory_allocated(self.device)
        if self.kind.startswith("process RSS"):
            return _read_status()["VmRSS"]
        try:
            import psutil

            return psutil.Process().memory_info().rss
        except ImportError:
            return self.peak_bytes()  # the best this OS offers without psutil

    def peak_bytes(self) -> int:
        """Highest bytes in use since the last :meth:`reset_peak` (or process start if not resettable)."""
        if self.device.type == "cuda":
            return torch.cuda.max_memory_allocated(self.device)
        if self.kind.startswith("process RSS"):
            return _read_status()["VmHWM"]
        import resource

        scale = 1 if sys.platform == "darwin" else 1024  # macOS reports bytes, others KiB
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale

    def reset_peak(self) -> None:
        """Start a new peak from the current usage (no effect when ``resettable`` is False)."""
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
        elif self.resettable:
            _clear_refs()

    def release(self) -> None:
        """Collect garbage and hand freed memory back (CPU: ``malloc_trim``) before a baseline."""
        gc.collect()
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        else:
            _malloc_trim()

    def synchronize(self) -> None:
        """Wait for queued device work so that a reading covers it (no-op on CPU)."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)


def device_probes() -> dict[str, MemoryProbe]:
    """One :class:`MemoryProbe` per device: ``"cpu"`` and every ``"cuda:i"`` present. Course: MB-9."""
    probes = {"cpu": MemoryProbe("cpu")}
    if torch.cuda.is_available():
        probes.update({f"cuda:{i}": MemoryProbe(f"cuda:{i}") for i in range(torch.cuda.device_count())})
    return probes


def state_bytes(model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> dict[str, int]:
    """Bytes of ``weights`` (parameters and buffers), ``gradients`` (live ``.grad``) and
    ``optimizer_state`` (tensors in ``optimizer.state``), each storage counted once. Course: MB-9."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    state = [] if optimizer is None else [
        v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    return {"weights": tensor_bytes([*model.parameters(), *model.buffers()]),
            "gradients": tensor_bytes(grads), "optimizer_state": tensor_bytes(state)}


# --------------------------------------------------------------------- inputs for measurements
def synthetic_microbatches(model: nn.Module, micro_batch: int, count: int = 1, seq_len: int = 32,
                           seed: int = 0) -> list[Batch]:
    """``count`` fixed-size microbatches of ``micro_batch`` samples for a course model.

    Fixed size keeps activation bytes exactly proportional to m (variable-length data adds
    padding noise). TinyGPT-like models (``config`` with ``vocab_size``): random tokens of
    length ``seq_len``, every next token supervised. MLPs: random inputs and class labels.
    The samples depend only on ``seed`` and m × count, so every m×A split of the same total
    sees the same samples. Raises ``ValueError``/``TypeError`` with what to do otherwise.
    Course: CK-1, GA-1, GA-2.
    """
    if micro_batch < 1 or count < 1:
        raise ValueError(f"micro_batch and count must be ≥ 1, got {micro_batch} and {count}")
    g = torch.Generator().manual_seed(seed)
    n = micro_batch * count
    ids = torch.arange(n)
    config = getattr(model, "config", None)
    if isinstance(config, dict) and "vocab_size" in config:
        if seq_len > config.get("max_len", seq_len):
            raise ValueError(f"seq_len={seq_len} exceeds the model's max_len={config['max_len']}; "
                             "build the model with a larger max_len or use a shorter seq_len")
        tokens = torch.randint(0, config["vocab_size"], (n, seq_len), generator=g)
        batches = [{"input_ids": tokens[s], "attention_mask": torch.ones_like(tokens[s]),
                    "labels": tokens[s].clone(), "sample_ids": ids[s]}
                   for s in (slice(i * micro_batch, (i + 1) * micro_batch) for i in range(count))]
        return batches
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    if not linears:
        raise TypeError(f"cannot invent inputs for {type(model).__name__}: pass your own microbatches")
    x = torch.randn(n, linears[0].in_features, generator=g)
    y = torch.randint(0, linears[-1].out_features, (n,), generator=g)
    return [{"inputs": x[s], "labels": y[s], "sample_ids": ids[s]}
            for s in (slice(i * micro_batch, (i + 1) * micro_batch) for i in range(count))]


def build_for_measurement(model: str | nn.Module, device: str | torch.device = "cpu", seed: int = 0,
                          model_kwargs: dict | None = None) -> nn.Module:
    """A course model by name (tiny-gpt widened, see ``MEASURE_MODEL_KWARGS``) or the module
    given, on ``device`` and in training mode. Course: MB-9."""
    if isinstance(model, str):
        kwargs = model_kwargs if model_kwargs is not None else MEASURE_MODEL_KWARGS.get(model, {})
        model = build_model(model, seed=seed, **kwargs)
    return model.to(device).train()


def make_optimizer(name: str, model: nn.Module, lr: float = 1e-3) -> torch.optim.Optimizer:
    """``adamw`` (two state tensors per parameter), ``sgd-momentum`` (one) or ``sgd`` (none).

    Course: MB-9 (optimizer state is part of the fixed memory). Raises ``ValueError`` otherwise.
    """
    params = model.parameters()
    makers = {"adamw": lambda: torch.optim.AdamW(params, lr=lr),
              "sgd-momentum": lambda: torch.optim.SGD(params, lr=lr, momentum=0.9),
              "sgd": lambda: torch.optim.SGD(params, lr=lr)}
    if name not in makers:
        raise ValueError(f"unknown optimizer {name!r}; use one of {', '.join(makers)}")
    return makers[name]()


# --------------------------------------------------------------------- the phase timeline
@dataclass
class PhaseRow:
    """One reading of the timeline. Bytes; ``peak_bytes`` is the peak since the previous row.

    ``stage`` is ``baseline``, ``forward``, ``backward``, ``first update`` (group 1) or
    ``steady`` (later groups). ``saved_bytes`` is what autograd holds for this microbatch's
    backward after the model forward (0 once the backward has freed it). ``weight_bytes``,
    ``grad_bytes``, ``optimizer_bytes`` are exact tensor counts at that moment. Course: MB-9.
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
    """Memory through a few groups of training, phase by phase (course: MB-9, MB-4, GA-1).

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


def _warm_up(model: nn.Module, optimizer: str, batch: Batch, task: str) -> None:
    """One throwaway update on a copy, so one-time library allocations do not pose as phases."""
    twin = copy.deepcopy(model)
    Accumulator(twin, make_optimizer(optimizer, twin), accumulation_steps=1, task=task).update(
        build_group(0, [batch], 1, task))


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
) -> Timeline:
    """Memory after every phase of ``groups`` real updates by the engine (course: MB-9).

    Rows: ``baseline`` (weights on the device), then for each microbatch ``forward`` and
    ``backward``, and per group its ``update`` (the first update is where optimizer state
    appears; later groups are the steady state). Each row holds the probe's current bytes,
    the peak since the previous row, the saved-for-backward bytes and exact weight, gradient
    and optimizer-state bytes. A name builds a fresh model (tiny-gpt widened so activations
    are visible in process memory); ``every_n_layers`` enables checkpointing for the run.
    ``warmup`` first runs one throwaway update on a copy. Raises ``ValueError`` for sizes < 1.
    """
    if min(micro_batch, accumulation_steps, groups) < 1:
        raise ValueError(f"micro_batch, accumulation_steps and groups must be ≥ 1, got "
                         f"{micro_batch}, {accumulation_steps}, {groups}")
    probe = MemoryProbe(device)
    net = build_for_measurement(model, probe.device, seed, model_kwargs)
    if microbatches is None:
        microbatches = synthetic_microbatches(net, micro_batch, accumulation_steps * groups, seq_len, seed)
    batches = [to_device(mb, probe.device) for mb in microbatches]
    task = task_for(batches[0])
    rows: list[PhaseRow] = []
    at = {"group": 0, "mb": 0, "queued": False}
    counter = SavedTensorCounter(net)
    with checkpointing(net, every_n_layers, offload) as ck:
        if warmup:
            _warm_up(net, optimizer, batches[0], task)
        probe.release()
        start = probe.current_bytes() - state_bytes(net)["weights"]  # usage without the model
        opt = make_optimizer(optimizer, net)
        engine = Accumulator(net, opt, accumulation_steps=accumulation_steps, task=task)

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


# --------------------------------------------------------------------- the CK-4 formula
@dataclass
class FormulaCheck:
    """CK-4: what checkpointed layers keep, by formula and by measurement (bytes).

    ``formula_bytes`` = checkpointed layers × m × sequence × hidden × bytes_per_element (the
    per-sample formula times the microbatch). ``measured_bytes`` = saved bytes attributed to
    the checkpointed layers on the model's device. ``mask_bytes`` is the part of the
    difference explained by the attention mask (m × T × T booleans, shared, counted once).
    """

    checkpointed: int
    micro_batch: int
    sequence: int
    hidden: int
    bytes_per_element: int
    formula_bytes: int
    measured_bytes: int
    mask_bytes: int
    offload: bool
    device: str
    note: str

    @property
    def ratio(self) -> float:
        """measured ÷ formula (≈ 1 without offload; ≈ 0 on a GPU with offload)."""
        return self.measured_bytes / self.formula_bytes if self.formula_bytes else float("nan")

    def to_dict(self) -> dict:
        return {**asdict(self), "ratio": self.ratio}


def formula_check(model: str | nn.Module = "tiny-gpt", micro_batch: int = 4, seq_len: int = 32,
                  every_n_layers: int = 1, offload: bool = False, device: str | torch.device = "cpu",
                  model_kwargs: dict | None = None, seed: int = 0) -> FormulaCheck:
    """Compare layers × sequence × hidden × bytes_per_element with measured saved bytes (CK-4).

    Needs a model with ``config["hidden"]`` (TinyGPT). With ``offload=True`` on a GPU the
    measured device bytes drop to about zero (the inputs live in pinned host memory); on the
    CPU offload has nothing to move and the numbers equal the plain checkpoint's.
    """
    net = build_for_measurement(model, device, seed, model_kwargs)
    config = getattr(net, "config", None)
    if not (isinstance(config, dict) and "hidden" in config):
        raise TypeError(f"formula_check needs a transformer with config['hidden'] (TinyGPT), got {type(net).__name__}")
    batch = synthetic_microbatches(net, micro_batch, 1, seq_len, seed)[0]
    with checkpointing(net, every_n_layers, offload):
        chosen = checkpointed_layers(net)
        saved = saved_bytes(net, batch)
    bpe = next(net.parameters()).element_size()
    formula = len(chosen) * micro_batch * seq_len * config["hidden"] * bpe
    measured = sum(saved.layer(k) for k in chosen)
    mask = micro_batch * seq_len * seq_len  # TinyGPT's bool mask (m, 1, T, T), one byte each
    dev = str(next(net.parameters()).device)
    if offload and not dev.startswith("cpu"):
        note = (f"offload: {format_bytes(measured)} left on {dev} instead of {format_bytes(formula + mask)}; "
                "the layer inputs live in pinned host memory until the backward.")
    else:
        note = (f"measured − formula = {format_bytes(measured - formula)}; the attention mask "
                f"(m×T×T bools = {format_bytes(mask)}) is one more input, shared by all layers, counted once."
                + (" On the CPU offload has nothing to move." if offload else ""))
    return FormulaCheck(len(chosen), micro_batch, seq_len, config["hidden"], bpe, formula, measured, mask,
                        offload, dev, note)


# --------------------------------------------------------------------- peak of a configuration
@dataclass
class PeakMeasurement:
    """The measured peak of a training configuration (course: MB-9). Bytes.

    ``peak_bytes``: highest device usage through the first update and a steady group, above
    the usage before the model was built (weights included). ``fixed_bytes``: weights +
    gradients + optimizer state (what no microbatch size changes). ``saved_bytes``: what one
    microbatch's forward keeps for backward.
    """

    peak_bytes: int
    fixed_bytes: int
    saved_bytes: int
    micro_batch: int
    accumulation_steps: int
    device: str
    probe: str


def measure_peak(micro_batch: int, accumulation_steps: int, model: str | nn.Module = "tiny-gpt", *,
                 device: str | torch.device = "cpu", every_n_layers: int | None = None,
                 offload: bool = False, seq_len: int = 32, optimizer: str = "adamw",
                 model_kwargs: dict | None = None, groups: int = 2, seed: int = 0) -> PeakMeasurement:
    """Measure the real peak of m, A (first update and a steady group) on ``device`` (MB-9).

    A fresh model is built from its name for each call (a given module is deep-copied and
    left untouched); weights, gradients and optimizer state are part of the peak. CPU numbers
    are process resident memory above the usage without the model, so they carry some
    allocator noise (a few MiB); CUDA numbers are exact allocator bytes.
    """
    net = model if isinstance(model, str) else copy.deepcopy(model)  # never train the caller's model
    tl = phase_timeline(net, micro_batch, accumulation_steps, groups, every_n_layers, offload, device,
                        seq_len=seq_len, optimizer=optimizer, model_kwargs=model_kwargs, seed=seed)
    fixed = max(r.weight_bytes + r.grad_bytes + r.optimizer_bytes for r in tl.rows)
    saved = max(r.saved_bytes for r in tl.rows)
    return PeakMeasurement(tl.peak, fixed, saved, micro_batch, accumulation_steps, tl.device, tl.probe)

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
  checkpointed layers really keep.
- :func:`measure_peak`: the measured peak of a training configuration (used by the planner).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import os
import sys

import torch
from torch import nn

from gastudy.memory.saved import tensor_bytes

# A name-built tiny-gpt is made wide enough that its activations show in process memory.


# --------------------------------------------------------------------- saved-for-backward bytes




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


def release_freed_memory() -> None:
    """Return freed C-heap memory to the OS (glibc's ``malloc_trim``; nothing elsewhere), so that
    resident memory shows live data and a later phase does not pile its allocations on memory a
    finished one freed but the allocator kept."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
            ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


class MemoryProbe:
    """Current and peak memory of one device, with a per-phase peak reset.

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
            release_freed_memory()

    def synchronize(self) -> None:
        """Wait for queued device work so that a reading covers it (no-op on CPU)."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)


def device_probes() -> dict[str, MemoryProbe]:
    """One :class:`MemoryProbe` per device: ``"cpu"`` and every ``"cuda:i"`` present."""
    probes = {"cpu": MemoryProbe("cpu")}
    if torch.cuda.is_available():
        probes.update({f"cuda:{i}": MemoryProbe(f"cuda:{i}") for i in range(torch.cuda.device_count())})
    return probes


def state_bytes(model: nn.Module, optimizer: torch.optim.Optimizer | None = None) -> dict[str, int]:
    """Bytes of ``weights`` (parameters and buffers), ``gradients`` (live ``.grad``) and
    ``optimizer_state`` (tensors in ``optimizer.state``), each storage counted once."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    state = [] if optimizer is None else [
        v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    return {"weights": tensor_bytes([*model.parameters(), *model.buffers()]),
            "gradients": tensor_bytes(grads), "optimizer_state": tensor_bytes(state)}


# --------------------------------------------------------------------- inputs for measurements


# --------------------------------------------------------------------- the phase timeline


# --------------------------------------------------------------------- the checkpointing formula


# --------------------------------------------------------------------- peak of a configuration



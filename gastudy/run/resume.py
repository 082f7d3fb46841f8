"""Resume without loss: checkpoints taken at a group boundary (MB-4, MB-10).

A checkpoint holds the model, optimizer, gradient scaler and scheduler states, the RNG states,
the data position (epoch and microbatch index within it), the engine's counters and the
run's configuration. It is only taken between groups, where gradients are zero, so nothing
half-accumulated is lost. Loading uses ``torch.load(weights_only=True)``. On CPU, a resumed
run reproduces an uninterrupted run's parameters bit for bit.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

import torch

from gastudy.core.engine import Accumulator

CHECKPOINT_VERSION = 1
REQUIRED_KEYS = ("version", "model", "optimizer", "scheduler", "scaler", "counters", "position", "config", "rng")


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed: unreadable, incomplete, altered or of another run."""


def content_checksum(state: Any) -> str:
    """SHA-256 over everything in ``state`` (course: MB-10): keys, numbers, and every tensor's
    dtype, shape and bytes, in a fixed order. A resumed run refuses a checkpoint whose content
    (model, optimizer, counters, position, RNG) changed after it was written."""
    h = hashlib.sha256()
    _digest(state, h)
    return h.hexdigest()


def _digest(obj: Any, h: Any) -> None:
    if isinstance(obj, torch.Tensor):
        t = obj.detach().to("cpu").contiguous()
        h.update(f"T{t.dtype}{tuple(t.shape)}".encode())
        if t.numel():
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    elif isinstance(obj, dict):
        h.update(b"{")
        for k in sorted(obj, key=repr):
            h.update(repr(k).encode())
            _digest(obj[k], h)
        h.update(b"}")
    elif isinstance(obj, (list, tuple)):
        h.update(b"[")
        for v in obj:
            _digest(v, h)
        h.update(b"]")
    else:
        h.update(repr(obj).encode())


def rng_states() -> dict[str, Any]:
    """Torch (CPU and every CUDA device) and Python ``random`` states."""
    states: dict[str, Any] = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        states["cuda"] = torch.cuda.get_rng_state_all()
    return states


def set_rng_states(states: dict[str, Any]) -> None:
    """Restore what :func:`rng_states` captured."""
    torch.set_rng_state(states["torch"])
    random.setstate(states["python"])
    if "cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])


def run_state(engine: Accumulator, position: dict[str, int], config: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint holds besides the weights and the optimizer: the scheduler, the scaler,
    the engine's counters, the data position, the run's settings and every RNG state (MB-10)."""
    return {
        "scheduler": engine.scheduler.state_dict() if engine.scheduler is not None else None,
        "scaler": engine.precision.scaler.state_dict() if engine.precision.scaler else None,
        "counters": engine.counters.to_dict(),
        "position": dict(position),
        "config": dict(config),
        "rng": rng_states(),
    }


def save_checkpoint(path: str | Path, engine: Accumulator, position: dict[str, int], config: dict[str, Any],
                    extra: dict[str, Any] | None = None) -> Path:
    """Write a checkpoint of ``engine`` at a group boundary; returns the path.

    ``position`` is the data position of the *next* group (``epoch``, ``microbatch``,
    ``group``); ``extra`` is plain data the run needs back (the record's short groups so far).
    Raises ``RuntimeError`` if gradients are not zero (not at a boundary), ``OSError`` saying
    what to do when the file cannot be written (the temporary file is removed).
    """
    if any(p.grad is not None and p.grad.any() for p in engine.model.parameters()):
        raise RuntimeError("checkpoints are taken between groups, where gradients are zero; "
                           "these gradients are not: finish the group first")
    state = {"version": CHECKPOINT_VERSION, "model": engine.model.state_dict(),
             "optimizer": engine.optimizer.state_dict(), **run_state(engine, position, config),
             "extra": dict(extra or {})}
    state["checksum"] = content_checksum(state)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        torch.save(state, tmp)
        tmp.replace(path)  # never leave a half-written checkpoint behind
    except (OSError, RuntimeError) as e:  # a full disk, a folder made read-only meanwhile
        tmp.unlink(missing_ok=True)
        raise OSError(f"could not write the checkpoint {path} ({e}); the previous checkpoint, if any, is "
                      "intact: free space or choose another --out, then resume") from e
    return path


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint with ``weights_only=True`` and check it is whole (course: MB-10).

    Raises ``FileNotFoundError`` with the path when there is none, and :class:`CheckpointError`
    (one message, no traceback needed) when it is unreadable (truncated, empty, bit-flipped,
    not a checkpoint), lacks a key, has another version, or its model tensors no longer match
    the content checksum written with it.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}; train with --checkpoint-every to write one")
    hint = "delete it (or the whole --out folder) and train again, or resume from an intact copy"
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - every unreadable file gets the same clear message
        raise CheckpointError(f"checkpoint {path} cannot be read ({type(e).__name__}: "
                              f"{' '.join(str(e).split())[:200]}); "
                              f"it is truncated, damaged or not a gastudy checkpoint: {hint}") from None
    if not isinstance(state, dict):
        raise CheckpointError(f"checkpoint {path} holds a {type(state).__name__}, not a gastudy checkpoint: {hint}")
    missing = [k for k in REQUIRED_KEYS if k not in state]
    if missing:
        raise CheckpointError(f"checkpoint {path} lacks {', '.join(missing)}: {hint}")
    if state.get("version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"checkpoint {path} has version {state.get('version')}, expected {CHECKPOINT_VERSION}")
    if "checksum" in state and content_checksum({k: v for k, v in state.items() if k != "checksum"}) \
            != state["checksum"]:
        raise CheckpointError(f"checkpoint {path}: its content does not match the checksum written with it "
                              f"(changed or damaged after saving): {hint}")
    return state


def restore(engine: Accumulator, state: dict[str, Any], config: dict[str, Any]) -> dict[str, int]:
    """Load ``state`` into ``engine`` and the RNGs; return the data position to continue from.

    Raises ``ValueError`` (and changes nothing) when the checkpoint was written by a run with
    a different configuration for any key in ``config`` — resuming a different run would
    silently change the experiment.
    """
    saved = state["config"]
    diff = {k: (saved.get(k), v) for k, v in config.items() if k in saved and saved[k] != v}
    if diff:
        details = ", ".join(f"{k}: checkpoint {a!r} vs now {b!r}" for k, (a, b) in diff.items())
        raise ValueError(f"the checkpoint belongs to a different run ({details}); resume with the same settings")
    try:
        engine.model.load_state_dict(state["model"])
        engine.optimizer.load_state_dict(state["optimizer"])
        if engine.scheduler is not None and state["scheduler"] is not None:
            engine.scheduler.load_state_dict(state["scheduler"])
        if engine.precision.scaler and state["scaler"] is not None:
            engine.precision.scaler.load_state_dict(state["scaler"])
        for k, v in state["counters"].items():
            setattr(engine.counters, k, v)
        set_rng_states(state["rng"])
        position = {k: int(state["position"][k]) for k in ("epoch", "microbatch", "group")}
    except (RuntimeError, ValueError, KeyError, TypeError, AttributeError) as e:
        first = " ".join(str(e).split())[:300]  # one line
        raise CheckpointError(f"the checkpoint does not fit this run's model or optimizer ({type(e).__name__}: "
                              f"{first}); resume with the settings that wrote it, or train afresh") from None
    return position

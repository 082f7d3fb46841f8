"""Resume without loss: checkpoints taken at a group boundary (MB-4, MB-10).

A checkpoint holds the model, optimizer, gradient scaler and scheduler states, the RNG states,
the data position (epoch and microbatch index within it), the engine's counters and the
run's configuration. It is only taken between groups, where gradients are zero, so nothing
half-accumulated is lost. Loading uses ``torch.load(weights_only=True)``. On CPU, a resumed
run reproduces an uninterrupted run's parameters bit for bit.

The file is sealed: after torch's zip archive comes an 80-byte trailer, ``GASTUDY-SHA256:``,
the SHA-256 (hex) of every byte before it, and a newline. The reader checks it before
``torch.load``, so any changed byte — tensor data, the zip's central directory, the trailer
itself — is refused (torch's own reader ignores the trailer, so ``torch.load`` still opens the
file).
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path
from typing import Any

import torch

from gastudy.core.engine import Accumulator, Counters

CHECKPOINT_VERSION = 1
REQUIRED_KEYS = ("version", "model", "optimizer", "scheduler", "scaler", "counters", "position", "config", "rng")
TRAILER_MAGIC = b"GASTUDY-SHA256:"
TRAILER_SIZE = len(TRAILER_MAGIC) + 64 + 1  # magic, hex digest, newline: 80 bytes
SEALED_KEY = "sealed"  # in the state of a checkpoint written with a trailer (older ones have none)


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed: unreadable, incomplete, altered or of another run."""


def content_checksum(state: Any) -> str:
    """SHA-256 over everything in ``state``: keys, numbers, and every tensor's
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


def file_sha256(path: str | Path, size: int) -> str:
    """SHA-256 (hex) of the first ``size`` bytes of the file at ``path``, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while size > 0:
            chunk = f.read(min(size, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            size -= len(chunk)
    return h.hexdigest()


def seal(path: str | Path) -> None:
    """Append the checksum trailer to a freshly written checkpoint file:
    ``GASTUDY-SHA256:`` + the SHA-256 of every byte of the file so far + a newline."""
    digest = file_sha256(path, os.path.getsize(path))
    with open(path, "ab") as f:
        f.write(TRAILER_MAGIC + digest.encode() + b"\n")


def sealed_intact(path: str | Path) -> bool | None:
    """Whether the file at ``path`` matches the checksum trailer :func:`seal` wrote: ``True``
    (every byte as written), ``False`` (some byte changed), ``None`` (no trailer: a checkpoint
    from before sealing, or one whose trailer was damaged — :func:`load_checkpoint` tells the
    two apart with the state's ``sealed`` key)."""
    size = os.path.getsize(path)
    if size < TRAILER_SIZE:
        return None
    with open(path, "rb") as f:
        f.seek(size - TRAILER_SIZE)
        tail = f.read(TRAILER_SIZE)
    if not (tail.startswith(TRAILER_MAGIC) and tail.endswith(b"\n")):
        return None
    return file_sha256(path, size - TRAILER_SIZE).encode() == tail[len(TRAILER_MAGIC):-1]


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
    the engine's counters, the data position, the run's settings and every RNG state."""
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
    The file is written to ``<path>.tmp``, sealed with its checksum trailer (:func:`seal`) and
    then renamed over ``path``, so a crash leaves the previous checkpoint whole.
    Raises ``RuntimeError`` if gradients are not zero (not at a boundary), ``OSError`` saying
    what to do when the file cannot be written (the temporary file is removed).
    """
    if any(p.grad is not None and p.grad.any() for p in engine.model.parameters()):
        raise RuntimeError("checkpoints are taken between groups, where gradients are zero; "
                           "these gradients are not: finish the group first")
    state = {"version": CHECKPOINT_VERSION, "model": engine.model.state_dict(),
             "optimizer": engine.optimizer.state_dict(), **run_state(engine, position, config),
             "extra": dict(extra or {}), SEALED_KEY: True}
    state["checksum"] = content_checksum(state)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        torch.save(state, tmp)
        seal(tmp)
        tmp.replace(path)  # never leave a half-written checkpoint behind
    except (OSError, RuntimeError) as e:  # a full disk, a folder made read-only meanwhile
        tmp.unlink(missing_ok=True)
        raise OSError(f"could not write the checkpoint {path} ({e}); the previous checkpoint, if any, is "
                      "intact: free space or choose another --out, then resume") from e
    return path


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint with ``weights_only=True`` and check it is whole.

    Raises ``FileNotFoundError`` with the path when there is none, and :class:`CheckpointError`
    (one message, no traceback needed) when any byte differs from what was written (the
    file's SHA-256 trailer, checked before ``torch.load``: a flipped bit anywhere, the zip's
    central directory included), when the trailer is missing from a checkpoint written with
    one, or when it is unreadable (truncated, empty, not a checkpoint), lacks a key, has
    another version, or its content no longer matches the content checksum written with it.
    A checkpoint from before sealing (no trailer, no ``sealed`` key) is read as before.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}; train with --checkpoint-every to write one")
    hint = "delete it (or the whole --out folder) and train again, or resume from an intact copy"
    intact = sealed_intact(path)
    if intact is False:
        raise CheckpointError(f"checkpoint {path}: its bytes do not match the SHA-256 written at its end "
                              f"(damaged or changed after saving): {hint}")
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
    if intact is None and state.get(SEALED_KEY):
        raise CheckpointError(f"checkpoint {path} was written with a SHA-256 trailer that is missing or damaged "
                              f"(its end was cut or changed): {hint}")
    if "checksum" in state and content_checksum({k: v for k, v in state.items() if k != "checksum"}) \
            != state["checksum"]:
        raise CheckpointError(f"checkpoint {path}: its content does not match the checksum written with it "
                              f"(changed or damaged after saving): {hint}")
    return state


def check_contents(state: dict[str, Any]) -> None:
    """Refuse a checkpoint whose contents no run of gastudy writes, before anything trains
 — what a seal cannot catch when the seal itself was recomputed: a position
    or counter that is not a whole number ≥ 0, more applied updates than attempted ones, an
    empty or non-dict configuration, a model weight that is NaN or infinite. Raises
    :class:`CheckpointError` naming the field."""
    hint = "it was changed after saving; train again, or resume from an intact copy"
    position, counters, config = state.get("position"), state.get("counters"), state.get("config")
    if not isinstance(position, dict) or sorted(position) != ["epoch", "group", "microbatch"] or not all(
            type(v) is int and v >= 0 for v in position.values()):
        raise CheckpointError(f"the checkpoint's position {position!r} is not three whole numbers ≥ 0 (epoch, "
                              f"microbatch, group): {hint}")
    names = set(Counters().to_dict())
    if not isinstance(counters, dict) or set(counters) != names or not all(
            type(v) is int and v >= 0 for v in counters.values()):
        raise CheckpointError(f"the checkpoint's counters {counters!r} are not the engine's whole numbers ≥ 0: {hint}")
    if counters["updates_applied"] > counters["updates_attempted"] or \
            counters["scheduler_steps"] > counters["updates_attempted"]:
        raise CheckpointError(f"the checkpoint counts more applied updates or scheduler steps than attempted "
                              f"updates ({counters}): {hint}")
    if not isinstance(config, dict) or not config:
        raise CheckpointError(f"the checkpoint's configuration {config!r} is empty: {hint}")
    bad = [k for k, v in (state.get("model") or {}).items()
           if isinstance(v, torch.Tensor) and v.is_floating_point() and not bool(torch.isfinite(v).all())]
    if bad:
        raise CheckpointError(f"the checkpoint's weights {', '.join(bad[:3])} hold NaN or infinite values: {hint}")


def restore(engine: Accumulator, state: dict[str, Any], config: dict[str, Any]) -> dict[str, int]:
    """Load ``state`` into ``engine`` and the RNGs; return the data position to continue from.

    Raises :class:`CheckpointError` for contents no run writes (:func:`check_contents`) and
    ``ValueError`` when the checkpoint was written by a run with a different configuration for
    any key in ``config`` — resuming a different run would silently change the experiment —
    both before anything changes.
    """
    check_contents(state)
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

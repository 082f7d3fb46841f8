"""Resume without loss: checkpoints taken at a group boundary (MB-4, MB-10).

A checkpoint holds the model, optimizer, gradient scaler and scheduler states, the RNG states,
the data position (epoch and microbatch index within it), the engine's counters and the
run's configuration. It is only taken between groups, where gradients are zero, so nothing
half-accumulated is lost. Loading uses ``torch.load(weights_only=True)``. On CPU, a resumed
run reproduces an uninterrupted run's parameters bit for bit.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import torch

from gastudy.core.engine import Accumulator

CHECKPOINT_VERSION = 1


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


def save_checkpoint(path: str | Path, engine: Accumulator, position: dict[str, int], config: dict[str, Any]) -> Path:
    """Write a checkpoint of ``engine`` at a group boundary; returns the path.

    ``position`` is the data position of the *next* group (``epoch``, ``microbatch``,
    ``group``). Raises ``RuntimeError`` if gradients are not zero (not at a boundary).
    """
    if any(p.grad is not None and p.grad.any() for p in engine.model.parameters()):
        raise RuntimeError("checkpoints are taken between groups, where gradients are zero; "
                           "these gradients are not: finish the group first")
    state = {
        "version": CHECKPOINT_VERSION,
        "model": engine.model.state_dict(),
        "optimizer": engine.optimizer.state_dict(),
        "scheduler": engine.scheduler.state_dict() if engine.scheduler is not None else None,
        "scaler": engine.precision.scaler.state_dict() if engine.precision.scaler else None,
        "counters": engine.counters.to_dict(),
        "position": dict(position),
        "config": dict(config),
        "rng": rng_states(),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(state, tmp)
    tmp.replace(path)  # never leave a half-written checkpoint behind
    return path


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint with ``weights_only=True``. Raises ``FileNotFoundError`` with the path."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}; train with --checkpoint-every to write one")
    state = torch.load(path, map_location="cpu", weights_only=True)
    if state.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"checkpoint {path} has version {state.get('version')}, expected {CHECKPOINT_VERSION}")
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
    engine.model.load_state_dict(state["model"])
    engine.optimizer.load_state_dict(state["optimizer"])
    if engine.scheduler is not None and state["scheduler"] is not None:
        engine.scheduler.load_state_dict(state["scheduler"])
    if engine.precision.scaler and state["scaler"] is not None:
        engine.precision.scaler.load_state_dict(state["scaler"])
    for k, v in state["counters"].items():
        setattr(engine.counters, k, v)
    set_rng_states(state["rng"])
    return dict(state["position"])

"""What the optimizer consumed: every ``optimizer.step`` recorded with the gradients it used
.

:func:`record_steps` is the one way gastudy looks at an update from outside the loop that
made it: an optimizer step pre-hook sees exactly what the optimizer consumes (unscaled and
clipped when the loop does so), a post-hook whether any parameter changed. The verifier
(:mod:`gastudy.check.verify`), the detectors (:mod:`gastudy.check.diagnostics`) and the
course's labs all use it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn


def _flat(grads: Mapping[str, torch.Tensor], shapes: Sequence[tuple[str, int]]) -> torch.Tensor:
    parts = [grads[n].double().flatten() if n in grads else torch.zeros(numel, dtype=torch.float64)
             for n, numel in shapes]
    return torch.cat(parts)


def _shapes(model: nn.Module) -> list[tuple[str, int]]:
    return [(n, p.numel()) for n, p in model.named_parameters()]


def flat(grads: Mapping[str, torch.Tensor], model: nn.Module) -> torch.Tensor:
    """Gradients by name → one float64 vector in ``model.named_parameters()`` order (missing = 0).

    """
    return _flat(grads, _shapes(model))


def current_gradient(model: nn.Module) -> torch.Tensor:
    """The model's current ``.grad`` tensors as one float64 vector (``None`` counts as zeros).

    """
    return flat({n: p.grad.detach() for n, p in model.named_parameters() if p.grad is not None}, model)


def grads_are_zero(model: nn.Module) -> bool:
    """True when every parameter's gradient is ``None`` or all zeros (a group boundary)."""
    return all(p.grad is None or not p.grad.any() for p in model.parameters())


@dataclass
class StepRecord:
    """One ``optimizer.step``: the gradients it consumed and whether it changed a parameter.

    ``gradients`` maps parameter names to copies of their ``.grad`` at the step (parameters
    without a gradient are absent); :attr:`gradient` is the same as one float64 vector in the
    model's parameter order (absent = zeros). ``applied`` is ``None`` when the recording did
    not track it.
    """

    gradients: dict[str, torch.Tensor]
    shapes: list[tuple[str, int]] = field(repr=False)
    applied: bool | None = None
    vector: torch.Tensor | None = field(default=None, repr=False)

    @functools.cached_property
    def gradient(self) -> torch.Tensor:
        """The gradients as one float64 vector in the model's parameter order."""
        if self.vector is not None:
            return self.vector.double()
        return _flat(self.gradients, self.shapes)


@contextlib.contextmanager
def record_steps(model: nn.Module, optimizer: torch.optim.Optimizer, *, track_applied: bool = True,
                 on_record: Callable[[], None] | None = None,
                 as_vector: torch.dtype | None = None) -> Iterator[list[StepRecord]]:
    """Record every ``optimizer.step`` inside the block as a :class:`StepRecord`.

    The gradients are copied in a step pre-hook — or, when the step is given a closure
    (``optimizer.step(closure)``, as Lightning runs the last microbatch's forward and backward
    and its clipping), right after the closure returns, so that they are what the optimizer
    consumes. ``on_record`` is called at that moment. With ``track_applied`` the parameters are
    also copied before each step and compared after it (a post-hook), so ``applied`` says
    whether the step changed any parameter; turn it off to save one copy of the weights per
    step. A step that a gradient scaler skips never calls ``optimizer.step`` and is not
    recorded. The hooks are removed when the block ends. ``as_vector``: copy the gradients
    straight into one vector of that dtype, on the CPU, in the model's parameter order (absent =
    zeros; ``StepRecord.vector``, ``gradients`` left empty) — one copy instead of a copy per
    parameter and a vector made from them.
    """
    records: list[StepRecord] = []
    before: list[torch.Tensor] = []
    shapes = _shapes(model)

    def capture() -> None:
        if track_applied:
            before[:] = [p.detach().clone() for p in model.parameters()]
        if as_vector is not None:
            vector = torch.zeros(sum(n for _, n in shapes), dtype=as_vector)
            start = 0
            for p in model.parameters():
                if p.grad is not None:
                    vector[start:start + p.numel()].copy_(p.grad.detach().reshape(-1))
                start += p.numel()
            records.append(StepRecord({}, shapes, vector=vector))
        else:
            grads = {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}
            records.append(StepRecord(grads, shapes))
        if on_record is not None:
            on_record()

    def pre(_opt, args, kwargs):  # args: (the optimizer, *what step was called with)
        closure = kwargs.get("closure", args[1] if len(args) > 1 else None)
        if not callable(closure):
            capture()
            return None

        def closure_then_capture():
            out = closure()
            capture()
            return out

        if "closure" in kwargs:
            return args, {**kwargs, "closure": closure_then_capture}
        return (args[0], closure_then_capture, *args[2:]), kwargs

    def post(_opt, _args, _kwargs):
        records[-1].applied = any(not torch.equal(p, q) for p, q in zip(model.parameters(), before))

    handles = [optimizer.register_step_pre_hook(pre)]
    if track_applied:
        handles.append(optimizer.register_step_post_hook(post))
    try:
        yield records
    finally:
        for h in handles:
            h.remove()


def first_step_gradients(records: Sequence[StepRecord]) -> dict[str, torch.Tensor]:
    """The gradients by name at the first recorded step (empty when no step ran)."""
    return records[0].gradients if records else {}

"""Precision: fp32, bf16 autocast, fp16 autocast with a gradient scaler (MB-5).

With a scaler, one scale is used for every microbatch of a group; after the last backward the
engine unscales once, clips on the unscaled gradients, lets the scaler attempt the step and
then updates the scale. A step the scaler skips (inf/NaN gradients) is an *attempted* update
that was not *applied*; the scale is lowered.
"""

from __future__ import annotations

import contextlib

import torch

PRECISIONS = ("fp32", "bf16", "fp16")
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}

NOTHING = contextlib.nullcontext()  # reusable: it holds no state


class Precision:
    """How forward, backward and the step run for one precision.

    Args:
        kind: ``"fp32"``, ``"bf16"`` (autocast) or ``"fp16"`` (autocast + gradient scaler).
        device: ``"cpu"`` or ``"cuda"`` — the autocast and scaler device type.
        scaler: an existing ``torch.amp.GradScaler`` to use with ``fp16``; one is created if
            omitted. Passing a scaler with another precision, or for another device, raises.
        init_scale: initial loss scale of a created scaler.

    Raises ``ValueError`` for an unknown precision or a mismatched scaler.
    """

    def __init__(self, kind: str = "fp32", device: str = "cpu", scaler: torch.amp.GradScaler | None = None,
                 init_scale: float = 2.0**16):
        if kind not in PRECISIONS:
            raise ValueError(f"unknown precision {kind!r}; use one of {', '.join(PRECISIONS)}")
        if scaler is not None and kind != "fp16":
            raise ValueError(f"a gradient scaler is only used with fp16, not {kind}: drop the scaler or use fp16")
        scaler_device = getattr(scaler, "_device", device)
        if scaler is not None and scaler_device != device:
            raise ValueError(f"the gradient scaler is for {scaler_device!r} but the model is on {device!r}: "
                             f"create it as torch.amp.GradScaler({device!r})")
        self.kind, self.device = kind, device
        self.scaler = scaler if scaler is not None else (
            torch.amp.GradScaler(device, init_scale=init_scale) if kind == "fp16" else None)

    def autocast(self) -> contextlib.AbstractContextManager:
        """The forward's context: autocast to bf16/fp16, or nothing for fp32."""
        if self.kind == "fp32":
            return NOTHING
        return torch.autocast(self.device, dtype=DTYPES[self.kind])

    def backward(self, loss: torch.Tensor) -> None:
        """Backward of one microbatch's loss, scaled by the (constant within a group) scale."""
        (self.scaler.scale(loss) if self.scaler else loss).backward()

    def unscale_(self, optimizer: torch.optim.Optimizer) -> None:
        """Divide the accumulated gradients by the scale, once per group, before clipping."""
        if self.scaler:
            self.scaler.unscale_(optimizer)

    def step(self, optimizer: torch.optim.Optimizer) -> bool:
        """Attempt the optimizer step, then update the scale. Returns True if it was applied.

        Without a scaler the step is always applied. With one, a skipped step (inf/NaN found)
        lowers the scale, which is how a skip is recognised.
        """
        if self.scaler is None:
            optimizer.step()
            return True
        before = self.scaler.get_scale()
        self.scaler.step(optimizer)
        self.scaler.update()
        return self.scaler.get_scale() >= before

    @property
    def scale(self) -> float | None:
        """The current loss scale, or ``None`` without a scaler."""
        return self.scaler.get_scale() if self.scaler else None

"""Activation checkpointing, partial and with offload (course sections CK-1 … CK-4).

- :class:`CheckpointLayer` marks a model's repeated per-layer blocks. Only these count toward
  ``every_n_layers``; any other module (even one with its own ``gradient_checkpointing``
  switch) is left exactly as it is.
- :func:`enable_checkpointing` / :func:`disable_checkpointing` switch the marked layers;
  1-based layer k is checkpointed iff ``(k - 1) % n == 0`` (n=2 → layers 1, 3, 5, …).
- A checkpointed layer keeps only its inputs for backward and recomputes everything else
  during backward, with the non-reentrant ``torch.utils.checkpoint.checkpoint``. It does so
  only while ``module.training and torch.is_grad_enabled()``.
- ``offload=True`` additionally wraps the checkpoint in
  ``torch.autograd.graph.save_on_cpu(pin_memory=True)``: the inputs a checkpointed layer keeps
  go to pinned host memory in forward and come back in backward. Tensors already on the CPU
  have nowhere to go, so there the offload is skipped (and :func:`enable_checkpointing` says so).

The marker wraps each subclass's ``forward`` (not ``__call__``), so module hooks run once per
call and stay outside the recomputation.

Models with a key/value cache (Hugging Face ``config.use_cache``): a checkpointed layer that
appends to the cache would append a second time when backward recomputes it (GPT-2 then fails
with a shape mismatch). Like transformers' own checkpointing, :func:`enable_checkpointing`
turns the cache off — it sets ``use_cache = False`` on every config in the model that has one —
and :func:`disable_checkpointing` puts back the values it found.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

CPU_OFFLOAD_NOTE = (
    "offload=True on the CPU: the activations a checkpointed layer keeps are already in host "
    "memory, so there is nothing to move; offload is a no-op here (it matters on a GPU)."
)


class CheckpointLayer(nn.Module):
    """Marker base class for a model's repeated per-layer block.

    A model's transformer blocks (or any repeated unit) subclass this instead of
    ``nn.Module``. ``enable_checkpointing`` counts only these layers when it picks every
    n-th one. A subclass's ``forward`` is wrapped when the class is defined: when the layer's
    ``gradient_checkpointing`` flag is on, the module is training and grad is enabled, the
    call runs under a non-reentrant checkpoint (inside ``save_on_cpu`` when
    ``checkpoint_offload`` is on and the inputs live on an accelerator).
    """

    gradient_checkpointing: bool = False
    checkpoint_offload: bool = False
    _inside_checkpoint: bool = False

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "forward" in cls.__dict__:
            cls.forward = _checkpointable(cls.__dict__["forward"])

    def checkpoints_now(self) -> bool:
        """True if the next call will be checkpointed (switched on, training, grad enabled)."""
        return (self.gradient_checkpointing and self.training and torch.is_grad_enabled()
                and not self._inside_checkpoint)


def _checkpointable(forward: Callable) -> Callable:
    """Wrap a :class:`CheckpointLayer` subclass's ``forward`` so it can be checkpointed."""

    @functools.wraps(forward)
    def wrapper(self: CheckpointLayer, *args, **kwargs):
        if not self.checkpoints_now():
            return forward(self, *args, **kwargs)

        def run(*inputs, **kw):  # runs in forward and again in backward (the recomputation)
            self._inside_checkpoint = True  # a super().forward() inside must not checkpoint again
            try:
                return forward(self, *inputs, **kw)
            finally:
                self._inside_checkpoint = False

        return _checkpoint(run, args, kwargs, self.checkpoint_offload)

    return wrapper


def _checkpoint(fn: Callable, args: tuple, kwargs: dict, offload: bool):
    """``checkpoint(fn, *args, use_reentrant=False, **kwargs)``, in ``save_on_cpu`` when offloading.

    The checkpoint saves the positional tensor inputs for backward and ``save_on_cpu`` around
    it sends exactly those to pinned host memory; tensors passed by keyword are held by
    reference (torch's rule), so pass activations positionally. CPU tensors stay where they are.
    """
    if offload and any(isinstance(a, torch.Tensor) and a.device.type != "cpu" for a in (*args, *kwargs.values())):
        with torch.autograd.graph.save_on_cpu(pin_memory=True):
            return checkpoint(fn, *args, use_reentrant=False, **kwargs)
    return checkpoint(fn, *args, use_reentrant=False, **kwargs)


def _hf_layer_class() -> type | None:
    """Hugging Face's marker class (``GradientCheckpointingLayer``) once transformers is imported.

    A model holding such layers exists only after ``transformers`` was imported, so until then
    this is ``None`` without importing it (that import costs seconds in every worker process).
    """
    if "transformers" not in sys.modules:
        return None
    try:
        from transformers.modeling_layers import GradientCheckpointingLayer
    except Exception:  # transformers absent, or a version without the class
        return None
    return GradientCheckpointingLayer


def marked_layers(model: nn.Module) -> list[nn.Module]:
    """The model's marked per-layer blocks, in ``model.modules()`` order.

    Marked means a :class:`CheckpointLayer`, or a Hugging Face ``GradientCheckpointingLayer``
    when ``transformers`` is installed. Only these count toward ``every_n_layers``.
    """
    hf = _hf_layer_class()
    kinds = (CheckpointLayer, hf) if hf is not None else (CheckpointLayer,)
    return [m for m in model.modules() if isinstance(m, kinds)]


def layer_selection(num_layers: int, every_n_layers: int = 1) -> list[bool]:
    """Which of ``num_layers`` marked layers are checkpointed.

    Entry k-1 is True iff 1-based layer k satisfies ``(k - 1) % every_n_layers == 0``: the
    first layer and every n-th after it (n=2 → layers 1, 3, 5, …; n=1 → every layer).
    Raises ``ValueError`` when ``num_layers < 0`` or ``every_n_layers < 1``.
    """
    if isinstance(every_n_layers, bool) or not isinstance(every_n_layers, int) or every_n_layers < 1:
        raise ValueError(f"every_n_layers must be a whole number ≥ 1 (1 = every layer, 2 = layers "
                         f"1, 3, 5, …), got {every_n_layers!r}")
    if num_layers < 0:
        raise ValueError(f"num_layers must be ≥ 0, got {num_layers}")
    return [(k - 1) % every_n_layers == 0 for k in range(1, num_layers + 1)]


@dataclass
class CheckpointingState:
    """What :func:`enable_checkpointing` did: the 1-based checkpointed layers and a note.

    ``note`` is empty unless something deserves saying (offload on the CPU: nothing to move).
    """

    layers: list[int]
    num_layers: int
    every_n_layers: int
    offload: bool
    note: str = ""


def _set(layer: nn.Module, on: bool, offload: bool) -> None:
    layer.gradient_checkpointing = on
    if isinstance(layer, CheckpointLayer):
        layer.checkpoint_offload = on and offload
    elif on:  # a Hugging Face layer calls self._gradient_checkpointing_func(fn, *args)
        layer._gradient_checkpointing_func = functools.partial(_hf_checkpoint, offload=offload)


def _hf_checkpoint(fn: Callable, *args, offload: bool = False):
    if not torch.is_grad_enabled():  # Hugging Face checks only self.training; we also need grad
        return fn(*args)
    return _checkpoint(fn, args, {}, offload)


# Where enable_checkpointing keeps the ``use_cache`` values it switched off (a plain attribute
# of the model, so a deep copy of the model carries it along with its configs).
_SAVED_CACHE = "_gastudy_saved_use_cache"


def _cache_configs(model: nn.Module) -> list:
    """The distinct config objects (Hugging Face style) in ``model`` that have ``use_cache``."""
    seen: dict[int, object] = {}
    for module in model.modules():
        config = getattr(module, "config", None)
        if config is not None and hasattr(config, "use_cache"):
            seen.setdefault(id(config), config)
    return list(seen.values())


def cache_in_use(model: nn.Module) -> bool:
    """True when a config of ``model`` (Hugging Face style) has ``use_cache`` on. transformers
    then also skips the per-sequence mask of a padding-free row, so packed sequences attend to
    each other."""
    return any(bool(c.use_cache) for c in _cache_configs(model))


def _cache_off(model: nn.Module) -> None:
    """Set ``use_cache = False`` on every config of ``model``, remembering the values it had."""
    saved = model.__dict__.setdefault(_SAVED_CACHE, [])
    known = {id(c) for c, _ in saved}
    for config in _cache_configs(model):
        if config.use_cache and id(config) not in known:
            saved.append((config, config.use_cache))
            config.use_cache = False


def _cache_restore(model: nn.Module) -> None:
    """Give every config the ``use_cache`` value :func:`_cache_off` found (no-op if none)."""
    for config, value in model.__dict__.pop(_SAVED_CACHE, []):
        config.use_cache = value


def enable_checkpointing(model: nn.Module, every_n_layers: int = 1, offload: bool = False) -> CheckpointingState:
    """Checkpoint the first marked layer and every n-th after it.

    Only marked layers (:func:`marked_layers`) count toward n and are touched; the others are
    switched *off*, so calling this again with another n replaces the previous choice. Any
    other module — including one with its own ``gradient_checkpointing`` attribute — is left
    as it is. With ``offload=True`` the checkpointed layers keep their inputs in pinned host
    memory on an accelerator; on a CPU-only model the returned ``note`` (and a warning) say
    that there is nothing to move.

    The key/value cache is turned off, as transformers' own checkpointing does: every config
    in the model with a ``use_cache`` attribute (Hugging Face models) gets ``use_cache = False``,
    because a checkpointed layer recomputed in backward would append its keys and values to the
    cache a second time. :func:`disable_checkpointing` restores the values found here (pass
    ``use_cache=True`` explicitly to generate with a cache while checkpointing is on).

    Raises ``ValueError`` for ``every_n_layers < 1`` and when the model has no marked layer;
    nothing is changed then.
    """
    layers = marked_layers(model)
    if not layers:
        raise ValueError(f"{type(model).__name__} has no marked layer: make its repeated blocks subclass "
                         "gastudy.core.checkpointing.CheckpointLayer, then enable checkpointing")
    chosen = layer_selection(len(layers), every_n_layers)
    for layer, on in zip(layers, chosen):
        _set(layer, on, offload)
    _cache_off(model)
    note = ""
    if offload and all(p.device.type == "cpu" for p in model.parameters()):
        note = CPU_OFFLOAD_NOTE
        warnings.warn(note, stacklevel=2)
    return CheckpointingState(checkpointed_layers(model), len(layers), every_n_layers, offload, note)


def disable_checkpointing(model: nn.Module) -> None:
    """Switch checkpointing (and offload) off on every marked layer and give the model's configs
    back the ``use_cache`` values :func:`enable_checkpointing` turned off; nothing else is touched.

 The inverse of :func:`enable_checkpointing`.
    """
    for layer in marked_layers(model):
        _set(layer, False, False)
    _cache_restore(model)


def checkpointed_layers(model: nn.Module) -> list[int]:
    """1-based indices (among marked layers) of the layers whose checkpointing is on."""
    return [k for k, layer in enumerate(marked_layers(model), 1) if getattr(layer, "gradient_checkpointing", False)]


@contextlib.contextmanager
def checkpointing(model: nn.Module, every_n_layers: int | None = 1, offload: bool = False) -> Iterator[CheckpointingState | None]:
    """Context manager: checkpointing as given inside the block, the previous switches after.

    ``every_n_layers=None`` means no checkpointing inside the block. The marked layers'
    ``gradient_checkpointing`` / offload switches and the configs' ``use_cache`` are restored on
    exit, even on an error.
    """
    layers = marked_layers(model)
    saved = [(layer.gradient_checkpointing, getattr(layer, "checkpoint_offload", False)) for layer in layers]
    saved_cache = [(c, c.use_cache) for c in _cache_configs(model)]
    saved_record = list(model.__dict__.get(_SAVED_CACHE, []))
    try:
        if every_n_layers is None:
            disable_checkpointing(model)
            yield None
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the note is returned; no repeated warning per use
                state = enable_checkpointing(model, every_n_layers, offload)
            yield state
    finally:
        for layer, (on, off) in zip(layers, saved):
            _set(layer, on, off)
        for config, value in saved_cache:
            config.use_cache = value
        if saved_record:
            model.__dict__[_SAVED_CACHE] = saved_record
        else:
            model.__dict__.pop(_SAVED_CACHE, None)

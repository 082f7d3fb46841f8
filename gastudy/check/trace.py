"""What a training loop did during one update, seen from outside it (course: MB-5, MB-10, MB-11).

:func:`trace_loop` watches a model and its optimizer while someone else's code runs one
accumulated update, and records a :class:`LoopTrace`:

- every ``optimizer.step``: the gradients it consumed (a step pre-hook, :mod:`gastudy.check.steps`);
- every backward pass: the dtype of the tensor it started from (the loss the loop computes in),
  and the dtypes the graph's matrix products (linear layers, matmuls, convolutions, attention)
  produced — the precision the loop really computed in, wherever it entered autocast (around
  the model, inside a wrapped ``forward`` as Accelerate's ``mixed_precision`` does, around a
  submodule or a chunked loss head) or cast by hand;
- every forward of the model: whether autocast was on, and in which dtype (used only when no
  backward graph shows a matrix product, e.g. behind a reentrant checkpoint);
- every gradient clipping call (``torch.nn.utils.clip_grad_norm_`` / ``clip_grad_value_``, also
  through Accelerate, Lightning and the Trainer, which call them): its threshold, the norm it
  measured, which parameters it touched, and how many backward passes had run before it;
- every ``GradScaler`` ``unscale_``/``step``/``update`` (scale, and whether the step was skipped);
- every ``zero_grad`` and learning-rate scheduler step.

Each event carries ``where``: the line of the loop's own code that caused it (``file:line in
function: source``), found by walking the stack to the innermost frame of the files named in
``user_files`` (or, without them, outside the installed libraries). Nothing is changed: the
functions are wrapped for the duration of the block and restored afterwards (also when the
loop raises). Not thread-safe: one trace at a time per process.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import sysconfig
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from gastudy.check.steps import StepRecord, record_steps


@dataclass
class Clip:
    """One gradient clipping call.

    ``kind`` is ``"norm"`` (``clip_grad_norm_``: every gradient × min(1, max_norm ÷ (norm + 1e-6)))
    or ``"value"`` (``clip_grad_value_``: clamped to ±``max_norm``). ``norm`` is the total norm
    the call measured (``None`` for value clipping), ``parameters`` the names of the
    parameters it was given, ``backward`` the number of backward passes before it,
    ``scaled`` whether a ``GradScaler`` still held the gradients scaled (clipped before
    ``unscale_``), ``steps`` the optimizer steps recorded before it (1: it clipped after the
    step had used the gradients).
    """

    kind: str
    max_norm: float
    norm_type: float
    norm: float | None
    parameters: frozenset[str]
    backward: int
    scaled: bool
    where: str | None = None
    steps: int = 0

    @property
    def coefficient(self) -> float:
        """What a norm clip multiplied every gradient by (1.0 when it did not fire)."""
        if self.kind != "norm" or self.norm is None or not math.isfinite(self.norm):
            return 1.0
        return min(1.0, self.max_norm / (self.norm + 1e-6))

    @property
    def fired(self) -> bool:
        """True when the clip changed the gradients."""
        return self.coefficient < 1.0 if self.kind == "norm" else True


@dataclass
class Event:
    """A call the loop made: ``what`` (``"zero_grad"``, ``"scheduler"``, ``"unscale"``,
    ``"scaler step"``, ``"scaler update"``), the backward passes before it, where it came from,
    and call-specific ``detail`` (the scale, whether a step was skipped)."""

    what: str
    backward: int
    where: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class LoopTrace:
    """Everything :func:`trace_loop` saw during one update (see the module docstring)."""

    steps: list[StepRecord] = field(default_factory=list)
    step_where: list[str | None] = field(default_factory=list)
    step_backward: list[int] = field(default_factory=list)
    backward_dtypes: list[torch.dtype] = field(default_factory=list)
    backward_where: list[str | None] = field(default_factory=list)
    backward_norms: list[float] = field(default_factory=list)
    forward_autocast: list[torch.dtype | None] = field(default_factory=list)
    matmul_dtypes: Counter = field(default_factory=Counter)
    weights_dtype: torch.dtype | None = None
    clips: list[Clip] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def backwards(self) -> int:
        """Backward passes run (``loss.backward()``, ``torch.autograd.backward``)."""
        return len(self.backward_dtypes)

    @property
    def compute_dtype(self) -> torch.dtype | None:
        """The dtype most of the graphs' matrix products produced (``None`` when no backward
        graph showed one)."""
        return self.matmul_dtypes.most_common(1)[0][0] if self.matmul_dtypes else None

    @property
    def autocast(self) -> torch.dtype | None:
        """The narrower dtype the loop's forwards computed in (``None``: the weights' own).

        Read from the backward graphs: the dtype of their matrix products when it is narrower
        than the weights' (autocast, wherever it was entered, or a cast by hand). Without any
        matrix product in a graph, the autocast state at the model's own forward calls."""
        compute = self.compute_dtype
        if compute is not None:
            width = _WIDTH.get(self.weights_dtype, 32)
            return compute if _WIDTH.get(compute, 32) < width else None
        seen = [d for d in self.forward_autocast if d is not None]
        return max(set(seen), key=seen.count) if seen else None

    @property
    def loss_dtype(self) -> torch.dtype | None:
        """The dtype the backward passes started from: the loss the loop computed in."""
        return max(set(self.backward_dtypes), key=self.backward_dtypes.count) if self.backward_dtypes else None

    @property
    def scaler(self) -> bool:
        """True when an enabled ``GradScaler`` took part."""
        return any(e.what.startswith(("unscale", "scaler")) for e in self.events)

    def of(self, what: str) -> list[Event]:
        """The events of one kind, in order."""
        return [e for e in self.events if e.what == what]

    def skipped_steps(self) -> list[Event]:
        """``GradScaler.step`` calls that did not step the optimizer (inf/NaN in the gradients)."""
        return [e for e in self.of("scaler step") if e.detail.get("skipped")]


# --------------------------------------------------------------------------- the precision in the graph
_WIDTH = {torch.float64: 64, torch.float32: 32, torch.bfloat16: 16, torch.float16: 16}
# Backward nodes of the products whose inputs autocast lowers (by the start of their class name).
_PRODUCTS = ("MmBackward", "AddmmBackward", "BmmBackward", "BaddbmmBackward", "AddbmmBackward", "MvBackward",
             "AddmvBackward", "DotBackward", "LinearBackward", "MatmulBackward", "ConvolutionBackward",
             "CudnnConvolution", "MkldnnConvolution", "ScaledDotProduct", "EfficientAttention", "FlashAttention")


def product_dtypes(roots: Iterable[torch.Tensor]) -> Counter:
    """The dtypes the matrix products in the autograd graph behind ``roots`` produced, counted
    (one per product node; each node visited once). Read before the backward frees the graph.
    Empty when the tensors have no graph, or this torch does not expose the nodes' metadata."""
    seen: set[int] = set()
    stack = [t.grad_fn for t in roots if isinstance(t, torch.Tensor) and t.grad_fn is not None]
    found: Counter = Counter()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__.startswith(_PRODUCTS):
            dtype = _output_dtype(node)
            if dtype is not None:
                found[dtype] += 1
        stack.extend(f for f, _ in node.next_functions if f is not None)
    return found


def _output_dtype(node: Any) -> torch.dtype | None:
    """The dtype of the forward output a backward node differentiates (its incoming gradient)."""
    meta = getattr(node, "_input_metadata", None)
    if meta:
        return getattr(meta[0], "dtype", None)
    for name in ("_saved_mat2", "_saved_self", "_saved_weight"):  # older torch: a saved input's dtype
        try:
            saved = getattr(node, name, None)
        except RuntimeError:  # already freed
            saved = None
        if isinstance(saved, torch.Tensor):
            return saved.dtype
    return None


# --------------------------------------------------------------------------- where in the user's code
_LIBRARIES = tuple(os.path.realpath(p) + os.sep for p in {sysconfig.get_paths()["purelib"],
                                                          sysconfig.get_paths()["platlib"],
                                                          os.path.dirname(os.path.dirname(torch.__file__)),
                                                          os.path.dirname(os.__file__)})
_INTERNAL = tuple(os.path.join(os.path.realpath(os.path.dirname(os.path.dirname(__file__))), layer) + os.sep
                  for layer in ("check", "core", "parallel", "hf"))


def source_file(fn: Callable[..., Any]) -> str | None:
    """The real path of the file ``fn`` is defined in (``None`` for builtins and the like)."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is None and callable(fn):
        code = getattr(type(fn).__call__, "__code__", None)
    return os.path.realpath(code.co_filename) if code is not None else None


def _where(user_files: frozenset[str], skip: int = 2) -> str | None:
    """``file:line in function: source`` of the innermost frame in ``user_files``; when none
    matches, of the innermost frame outside the installed libraries and gastudy's engine and
    checker; ``None`` when there is neither."""
    frame, fallback = sys._getframe(skip), None
    while frame is not None:
        path = os.path.realpath(frame.f_code.co_filename)
        if path in user_files:
            return _describe(frame)
        if fallback is None and not path.startswith(_LIBRARIES) and not path.startswith(_INTERNAL):
            fallback = frame
        frame = frame.f_back
    return _describe(fallback) if fallback is not None else None


def _describe(frame: Any) -> str:
    import linecache

    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno} in {frame.f_code.co_name}" + (
        f": {line}" if line else "")


def _grad_norm(parameters: list[torch.Tensor]) -> float:
    """‖all gradients‖₂ (float64; NaN when they cannot be read as plain tensors)."""
    try:
        squares = [float(torch.linalg.vector_norm(p.grad.detach())) ** 2 for p in parameters if p.grad is not None]
        return math.sqrt(sum(squares))
    except (RuntimeError, TypeError, NotImplementedError):
        return math.nan


# --------------------------------------------------------------------------- the wrappers
class _Patches:
    """Attributes replaced for the block and put back afterwards (in reverse order)."""

    def __init__(self) -> None:
        self._undo: list[tuple[Any, str, Any, bool]] = []

    def set(self, owner: Any, name: str, value: Any) -> None:
        had = name in vars(owner) if isinstance(owner, type) else (
            name in owner if isinstance(owner, dict) else hasattr(owner, name))
        old = (owner.get(name) if isinstance(owner, dict) else vars(owner).get(name, getattr(owner, name, None)))
        self._undo.append((owner, name, old, had))
        if isinstance(owner, dict):
            owner[name] = value
        else:
            setattr(owner, name, value)

    def restore(self) -> None:
        for owner, name, old, had in reversed(self._undo):
            if isinstance(owner, dict):
                if had:
                    owner[name] = old
                else:
                    owner.pop(name, None)
            elif had:
                setattr(owner, name, old)
            else:
                with contextlib.suppress(AttributeError):
                    delattr(owner, name)
        self._undo.clear()


@contextlib.contextmanager
def trace_loop(model: nn.Module, optimizer: torch.optim.Optimizer | None = None, *,
               user_files: Iterable[str] = (), user_globals: Iterable[dict[str, Any]] = (),
               track_applied: bool = True, as_vector: bool = False) -> Iterator[LoopTrace]:
    """Record a :class:`LoopTrace` of everything the code inside the block does to ``model``.

    Args:
        model: the module the loop trains (its forwards and parameters are watched).
        optimizer: the optimizer whose steps are recorded; ``None`` when it does not exist yet
            (call :func:`watch_optimizer` once it does, e.g. from a Trainer callback).
        user_files: the loop's own source files; ``where`` points into them.
        user_globals: module namespaces of the loop's code: a clipping function imported by
            name there (``from torch.nn.utils import clip_grad_norm_``) is watched too.
        track_applied: also record whether each step changed a parameter (one copy of the
            weights per step).
        as_vector: keep each step's gradients as one vector (``StepRecord.vector``: float64 for
            a float64 model, else float32) rather than a copy per parameter.

    Yields the trace, filled in as the block runs. Every wrapper is removed when the block ends.
    """
    trace = LoopTrace(weights_dtype=next((p.dtype for p in model.parameters() if p.is_floating_point()), None))
    files = frozenset(os.path.realpath(f) for f in user_files if f)
    names = {id(p): n for n, p in model.named_parameters()}
    device_type = next((p.device.type for p in model.parameters()), "cpu")
    patches = _Patches()
    scaled = {"now": False}  # a GradScaler scaled the gradients and has not unscaled them yet
    stack = contextlib.ExitStack()

    def where() -> str | None:
        return _where(files, skip=3)

    # backward passes: the root's dtype is the precision the loss was computed in
    backward = torch.autograd.backward

    parameters = list(model.parameters())

    def traced_backward(tensors, *args, **kwargs):
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        trace.backward_dtypes.append(roots[0].dtype if roots else torch.float32)
        trace.matmul_dtypes.update(product_dtypes(roots))
        trace.backward_where.append(where())
        out = backward(tensors, *args, **kwargs)
        trace.backward_norms.append(_grad_norm(parameters))
        return out

    patches.set(torch.autograd, "backward", traced_backward)

    # forwards: autocast on or off at the model's own calls (the fallback of LoopTrace.autocast)
    def pre_forward(_module, _args):
        on = torch.is_autocast_enabled(device_type)
        trace.forward_autocast.append(torch.get_autocast_dtype(device_type) if on else None)

    stack.callback(model.register_forward_pre_hook(pre_forward).remove)

    # gradient clipping, wherever it is called from
    clip_norm, clip_value = torch.nn.utils.clip_grad_norm_, torch.nn.utils.clip_grad_value_

    def record_clip(kind: str, parameters: list, limit: float, norm_type: float, norm: float | None) -> None:
        clipped = frozenset(names[id(p)] for p in parameters if id(p) in names)
        trace.clips.append(Clip(kind, float(limit), float(norm_type), norm, clipped, trace.backwards,
                                scaled["now"], where(), len(trace.steps)))

    def traced_clip_norm(parameters, max_norm, norm_type=2.0, *args, **kwargs):
        parameters = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        total = clip_norm(parameters, max_norm, norm_type, *args, **kwargs)
        record_clip("norm", parameters, max_norm, norm_type, float(total))
        return total

    def traced_clip_value(parameters, clip_value_, *args, **kwargs):
        parameters = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
        out = clip_value(parameters, clip_value_, *args, **kwargs)
        record_clip("value", parameters, clip_value_, math.inf, None)
        return out

    for module in (torch.nn.utils, torch.nn.utils.clip_grad):
        patches.set(module, "clip_grad_norm_", traced_clip_norm)
        patches.set(module, "clip_grad_value_", traced_clip_value)
    for namespace in user_globals:
        for name, value in list(namespace.items()):
            if value is clip_norm:
                patches.set(namespace, name, traced_clip_norm)
            elif value is clip_value:
                patches.set(namespace, name, traced_clip_value)

    # the gradient scaler
    scaler_cls = torch.amp.GradScaler
    unscale, scaler_step, scaler_update, scale = (scaler_cls.unscale_, scaler_cls.step, scaler_cls.update,
                                                   scaler_cls.scale)

    def traced_scale(self, outputs):
        if self.is_enabled():
            scaled["now"] = True
        return scale(self, outputs)

    def traced_unscale(self, opt):
        if self.is_enabled():
            trace.events.append(Event("unscale", trace.backwards, where(), {"scale": float(self.get_scale())}))
            scaled["now"] = False
        return unscale(self, opt)

    def traced_scaler_step(self, opt, *args, **kwargs):
        if not self.is_enabled():
            return scaler_step(self, opt, *args, **kwargs)
        before = len(trace.steps)
        event = Event("scaler step", trace.backwards, where(), {"scale": float(self.get_scale())})
        trace.events.append(event)
        scaled["now"] = False
        out = scaler_step(self, opt, *args, **kwargs)
        event.detail["skipped"] = len(trace.steps) == before
        return out

    def traced_scaler_update(self, *args, **kwargs):
        out = scaler_update(self, *args, **kwargs)
        if self.is_enabled():
            trace.events.append(Event("scaler update", trace.backwards, where(), {"scale": float(self.get_scale())}))
        return out

    patches.set(scaler_cls, "scale", traced_scale)
    patches.set(scaler_cls, "unscale_", traced_unscale)
    patches.set(scaler_cls, "step", traced_scaler_step)
    patches.set(scaler_cls, "update", traced_scaler_update)

    # zero_grad (on the optimizer or the model) and scheduler steps
    opt_zero, module_zero = torch.optim.Optimizer.zero_grad, nn.Module.zero_grad
    sched_step = torch.optim.lr_scheduler.LRScheduler.step

    def traced_opt_zero(self, *args, **kwargs):
        trace.events.append(Event("zero_grad", trace.backwards, where()))
        return opt_zero(self, *args, **kwargs)

    def traced_module_zero(self, *args, **kwargs):
        if self is model:
            trace.events.append(Event("zero_grad", trace.backwards, where()))
        return module_zero(self, *args, **kwargs)

    def traced_sched_step(self, *args, **kwargs):
        trace.events.append(Event("scheduler", trace.backwards, where()))
        return sched_step(self, *args, **kwargs)

    patches.set(torch.optim.Optimizer, "zero_grad", traced_opt_zero)
    patches.set(nn.Module, "zero_grad", traced_module_zero)
    patches.set(torch.optim.lr_scheduler.LRScheduler, "step", traced_sched_step)

    def watch(opt: torch.optim.Optimizer) -> None:
        nonlocal optimizer
        optimizer = opt
        def recorded() -> None:  # the gradients were copied: where, and after how many backward passes
            trace.step_where.append(_where(files, skip=3))
            trace.step_backward.append(trace.backwards)

        dtype = (torch.float64 if trace.weights_dtype == torch.float64 else torch.float32) if as_vector else None
        trace.steps = stack.enter_context(record_steps(model, opt, track_applied=track_applied, on_record=recorded,
                                                       as_vector=dtype))

    trace.watch_optimizer = watch  # type: ignore[attr-defined]
    try:
        if optimizer is not None:
            watch(optimizer)
        yield trace
    finally:
        stack.close()
        patches.restore()


def watch_optimizer(trace: LoopTrace, optimizer: torch.optim.Optimizer) -> None:
    """Start recording the steps of ``optimizer`` in a running :func:`trace_loop` (for loops
    that build their optimizer themselves: a Trainer, a Lightning module)."""
    trace.watch_optimizer(optimizer)  # type: ignore[attr-defined]


__all__ = ["Clip", "Event", "LoopTrace", "product_dtypes", "source_file", "trace_loop", "watch_optimizer"]

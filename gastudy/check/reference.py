"""The big batch a checked update is compared with, in the precision the loop computes in.

The reference for one group of microbatches is the gradient of its :class:`~gastudy.check.objective.Objective`
over the whole group — by default **the sum of per-item losses ÷ the group's supervised items
N** (causal labels counted after the shift); a per-sample mean, a sum or a loss of the user's own
when that is what the loop minimizes. It is computed with the same model and in the same
precision as the loop under test:

- ``gradient``: every sample in ONE forward (the big batch itself);
- ``accumulated``: microbatch by microbatch, each its share ÷ the group's normalizer, gradients
  added up (for an objective of the user's own: the big batch with its rows in reverse order) —
  computed only when it is needed (:meth:`Reference.with_floor`: an error beyond the base
  tolerance, or microbatches that cannot be joined).

Mathematically both are the same number. What separates them in floating point is rounding —
another summation order, other matrix shapes — so their relative difference is the **noise
floor** of this computation: how close two correct computations of this gradient come, on
this model, these data and this precision. :mod:`gastudy.check.judge` derives its tolerance
from it. (A model that mixes samples — BatchNorm — makes the two differ for real; the floor
is then not used, see :func:`mixes_samples`.)

:class:`ComputePrecision` says what "the same precision" means: the weights' dtype, the
autocast dtype the loop's forwards ran in, and the dtype its loss was computed in (the tensor
its backward passes started from), all read from a :class:`~gastudy.check.trace.LoopTrace`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from gastudy.check.objective import TOKENS, Objective
from gastudy.core.data import concat_microbatches
from gastudy.core.engine import model_inputs
from gastudy.core.groups import Group
from gastudy.core.loss import logits_of

Forward = Callable[[nn.Module, Mapping[str, Any]], Any]

# The smallest tolerance a check uses, by the narrowest dtype of the computation: room for two
# correct loops that order their sums differently (measured floors are usually far below it).
BASE_TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 3e-3}
# The same, by the names the engine and the CLI use for a precision.
TOLERANCES = {"fp64": BASE_TOLERANCE[torch.float64], "fp32": BASE_TOLERANCE[torch.float32],
              "bf16": BASE_TOLERANCE[torch.bfloat16], "fp16": BASE_TOLERANCE[torch.float16]}
_NAMES = {torch.float64: "float64", torch.float32: "float32", torch.bfloat16: "bf16", torch.float16: "fp16"}
_WIDTH = {torch.float64: 64, torch.float32: 32, torch.bfloat16: 16, torch.float16: 16}


@dataclass(frozen=True)
class ComputePrecision:
    """The precision one update is computed in: ``weights`` (the parameters' dtype),
    ``autocast`` (the dtype the forwards ran under autocast in, ``None`` when off), ``loss``
    (the dtype of the tensor the backward passes started from) and ``scaler`` (a
    ``GradScaler`` took part)."""

    weights: torch.dtype
    autocast: torch.dtype | None = None
    loss: torch.dtype | None = None
    scaler: bool = False
    device_type: str = "cpu"

    @property
    def narrowest(self) -> torch.dtype:
        """The dtype whose rounding dominates: the narrowest of weights, autocast and loss."""
        seen = [d for d in (self.weights, self.autocast, self.loss) if d in _WIDTH]
        narrow = min(seen, key=lambda d: (_WIDTH[d], d is torch.float16)) if seen else torch.float32
        return narrow

    @property
    def base_tolerance(self) -> float:
        """:data:`BASE_TOLERANCE` of :attr:`narrowest`."""
        return BASE_TOLERANCE.get(self.narrowest, BASE_TOLERANCE[torch.float32])

    @property
    def label(self) -> str:
        """How a person names it: ``float64``, ``float32``, ``bf16 autocast``, ``fp16 autocast +
        GradScaler``, ``float64 weights, float32 loss``."""
        if self.autocast is not None:
            text = f"{_NAMES.get(self.autocast, str(self.autocast))} autocast"
        else:
            text = _NAMES.get(self.weights, str(self.weights))
            if self.loss is not None and self.loss in _WIDTH and _WIDTH[self.loss] < _WIDTH.get(self.weights, 32):
                text = f"{text} weights, {_NAMES[self.loss]} loss"
        return text + (" + GradScaler" if self.scaler else "")

    def autocast_context(self) -> contextlib.AbstractContextManager:
        """Autocast as the loop's forwards had it (a null context when it was off)."""
        if self.autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device_type, dtype=self.autocast)

    @property
    def loss_scale(self) -> float:
        """The loss scale the reference backward uses: 2¹⁶ when float16 is involved (as a
        ``GradScaler`` starts; small gradients would underflow otherwise), else 1."""
        return 65536.0 if torch.float16 in (self.autocast, self.weights) else 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "weights": str(self.weights), "autocast": str(self.autocast) if self.autocast
                else None, "loss": str(self.loss) if self.loss else None, "scaler": self.scaler}


def precision_of(model: nn.Module, trace: Any = None) -> ComputePrecision:
    """The :class:`ComputePrecision` of ``model`` as ``trace`` (a
    :class:`~gastudy.check.trace.LoopTrace`) saw it used; without a trace: the weights' dtype,
    no autocast."""
    first = next(model.parameters())
    if trace is None:
        return ComputePrecision(first.dtype, device_type=first.device.type)
    return ComputePrecision(first.dtype, trace.autocast, trace.loss_dtype, trace.scaler, first.device.type)


def vector_dtype(model: nn.Module) -> torch.dtype:
    """float64 for a float64 model, else float32: what gradient vectors are held in."""
    return torch.float64 if next(model.parameters()).dtype == torch.float64 else torch.float32


def flat_gradient(grads: Mapping[str, torch.Tensor], model: nn.Module, dtype: torch.dtype | None = None) -> torch.Tensor:
    """Gradients by name → one vector in ``model.named_parameters()`` order (missing = zeros),
    in ``dtype`` (default :func:`vector_dtype`)."""
    dtype = dtype or vector_dtype(model)
    return torch.cat([grads[n].detach().to("cpu", dtype).flatten() if n in grads else torch.zeros(p.numel(), dtype=dtype)
                      for n, p in model.named_parameters()])


def unflatten(vector: torch.Tensor, model: nn.Module) -> dict[str, torch.Tensor]:
    """The inverse of :func:`flat_gradient`: one vector → tensors by parameter name, shaped like them."""
    parts = vector.split([p.numel() for p in model.parameters()])
    return {n: part.view(p.shape) for (n, p), part in zip(model.named_parameters(), parts)}


def model_gradient(model: nn.Module, dtype: torch.dtype | None = None) -> torch.Tensor:
    """``model``'s current ``.grad`` as one vector (:func:`flat_gradient`)."""
    return flat_gradient({n: p.grad for n, p in model.named_parameters() if p.grad is not None}, model, dtype)


def default_forward(model: nn.Module, batch: Mapping[str, Any]) -> Any:
    """``model(**inputs)``: every key of the batch but the labels and ids, on the model's device
    (an encoder-decoder's ``decoder_input_ids`` built from its labels, see
    :func:`~gastudy.core.engine.model_inputs`)."""
    first = next(model.parameters())
    return model(**model_inputs(batch, first.device, first.dtype, model))


def join(microbatches: Sequence[Mapping[str, Any]], strict: bool = False) -> dict[str, Any] | None:
    """One batch holding every sample: tensors of equal trailing shape are concatenated as they
    are; otherwise padded/packed batches are re-collated (:func:`concat_microbatches`).
    ``None`` when they cannot be joined; with ``strict`` the reason is raised instead
    (``ValueError``, e.g. microbatches that mix padded and packed formats)."""
    keys = set(microbatches[0])
    tensors = all(set(mb) == keys and all(isinstance(mb[k], torch.Tensor) and mb[k].dim() >= 1 for k in keys)
                  for mb in microbatches)
    if tensors and all(mb[k].shape[1:] == microbatches[0][k].shape[1:] for mb in microbatches for k in keys) \
            and "position_ids" not in keys:
        return {k: torch.cat([mb[k] for mb in microbatches]) for k in keys}
    try:
        return concat_microbatches(list(microbatches))
    except (KeyError, ValueError, RuntimeError, TypeError):
        if strict:
            raise
        return None


@dataclass
class BigBatch:
    """The reference gradients of one group (vectors in :func:`vector_dtype`).

    ``gradient``: the big batch in one forward (``accumulated`` itself when the microbatches
    could not be joined, ``joined`` False); ``accumulated``: microbatch by microbatch (``None``
    until :meth:`Reference.with_floor` measured it); ``floor``: ‖gradient − accumulated‖ ÷
    ‖gradient‖ (``None`` when not measured or not joined); ``items``: N; ``precision``: what
    both were computed in; ``objective``: what they minimize.
    """

    gradient: torch.Tensor
    accumulated: torch.Tensor | None
    joined: bool
    floor: float | None
    items: int
    precision: ComputePrecision
    objective: Objective = TOKENS

    @property
    def floor_measured(self) -> bool:
        """True once the other summation order was computed (the floor is then known, or the
        microbatches could not be joined)."""
        return self.accumulated is not None


_CHUNK = 1 << 20  # elements per float64 chunk: exact sums without a float64 copy of a whole gradient


def dot(a: torch.Tensor, b: torch.Tensor) -> float:
    """⟨a, b⟩ of two vectors, accumulated in float64 chunk by chunk."""
    return sum(float(torch.dot(a[i:i + _CHUNK].double(), b[i:i + _CHUNK].double())) for i in range(0, len(a), _CHUNK))


def norm(a: torch.Tensor, b: torch.Tensor | None = None, scale: float = 1.0) -> float:
    """‖a‖₂ (or ‖a − scale·b‖₂), accumulated in float64 chunk by chunk."""
    total = 0.0
    for i in range(0, len(a), _CHUNK):
        part = a[i:i + _CHUNK].to(torch.float64, copy=True)  # a float64 slice would be a view: never write into a
        if b is not None:
            part -= scale * b[i:i + _CHUNK].double()
        total += float(torch.dot(part, part))
    return total ** 0.5


def rel_error(got: torch.Tensor, ref: torch.Tensor) -> float:
    """‖got − ref‖₂ ÷ ‖ref‖₂ over all parameters (‖got‖₂ when ``ref`` is zero): THE metric
    every gastudy check reports. Computed in float64."""
    denom = norm(ref) or norm(got) or 1.0
    return norm(got, ref) / denom


class Reference:
    """Computes the big batch (and microbatch contributions) of ``group`` on ``model``.

    ``model`` is used as given — pass a copy: its gradients are overwritten. ``forward(model,
    batch)`` calls the model (default :func:`default_forward`); the loss is the ``objective``'s
    share of each batch (:meth:`~gastudy.check.objective.Objective.share`, on the logits of
    :func:`~gastudy.core.loss.logits_of`, cast to the loop's loss dtype when that is narrower
    than theirs) ÷ the group's normalizer, under the loop's autocast, through a loss scale with
    float16 (:attr:`ComputePrecision.loss_scale`). Raises ``ValueError`` for an objective of
    your own on microbatches that cannot be joined into one batch.
    """

    def __init__(self, model: nn.Module, group: Group, precision: ComputePrecision, *,
                 forward: Forward | None = None, per_forward: int | None = None, objective: Objective = TOKENS):
        self.model, self.group, self.precision = model, group, precision
        self.forward = forward or default_forward
        self.dtype = vector_dtype(model)
        self.per_forward = per_forward
        self.objective = objective
        self._bigs: list[dict[str, Any]] | None = None

    def _share(self, batch: Mapping[str, Any]) -> torch.Tensor:
        with self.precision.autocast_context():
            output = self.forward(self.model, batch)
            if self.objective.yours:  # the user's loss, on the output as their model returns it
                return self.objective.share(output, batch, self.group.task)
            logits = logits_of(output)
        loss = self.precision.loss
        if loss is not None and logits.dtype in _WIDTH and loss in _WIDTH and _WIDTH[loss] < _WIDTH[logits.dtype] \
                and _WIDTH[loss] >= 32:
            logits = logits.to(loss)
        return self.objective.share(logits, batch, self.group.task)

    def _backward(self, batches: Sequence[Mapping[str, Any]], divide_by: Sequence[float]) -> torch.Tensor:
        """Σ over ``batches`` of ∇(share ÷ divisor), as one vector; float16 through a loss scale
        halved until the gradients are finite."""
        scale = self.precision.loss_scale
        for _ in range(40):
            self.model.zero_grad(set_to_none=True)
            for batch, d in zip(batches, divide_by):
                (self._share(batch) * (scale / d)).backward()
            grad = model_gradient(self.model, self.dtype)
            if scale == 1.0 or bool(torch.isfinite(grad).all()):
                return grad / scale if scale != 1.0 else grad
            scale /= 2
        return grad / scale

    def _normalizer(self, batches: Sequence[Mapping[str, Any]]) -> float:
        task = self.group.task
        return self.objective.normalizer([self.objective.mass(b, task) for b in batches]) or 1.0

    def big_batch(self, strict: bool = False, floor: bool = True) -> BigBatch:
        """The big batch in one forward; with ``floor`` also microbatch by microbatch and the
        floor between them (:meth:`with_floor`). With ``strict``, microbatches that cannot be
        joined raise ``ValueError`` (:func:`join`).

        ``per_forward`` (set at construction) joins at most that many microbatches per forward
        instead of all of them (a big model: the activations of the whole group at once are A
        times one microbatch's); the sum over those forwards is the same gradient."""
        mbs, N = self.group.microbatches, self.group.supervised_items
        k = len(mbs) if not self.per_forward or self.objective.yours else max(2, self.per_forward)
        parts = [mbs[i:i + k] for i in range(0, len(mbs), k)]
        bigs = [join(part, strict or self.objective.yours) if len(part) > 1 else dict(part[0]) for part in parts]
        if any(b is None for b in bigs):
            return self.with_floor(BigBatch(torch.empty(0), None, False, None, N, self.precision, self.objective))
        try:  # the big batch counts its own items: re-padding can move what a row supervises (left padding)
            total = self._normalizer(bigs)
            gradient = self._backward(bigs, [total] * len(bigs))
        except (KeyError, ValueError, RuntimeError, TypeError, IndexError) as err:
            if self.objective.yours:
                raise ValueError(f"your objective could not be computed on the joined group: {err}") from err
            return self.with_floor(BigBatch(torch.empty(0), None, False, None, N, self.precision, self.objective))
        self._bigs = bigs
        big = BigBatch(gradient, None, True, None, N, self.precision, self.objective)
        return self.with_floor(big) if floor else big

    def with_floor(self, big: BigBatch) -> BigBatch:
        """``big`` with the other summation order computed: microbatch by microbatch (or, for an
        objective of your own, the joined batch with its rows reversed), and the floor between
        the two when both exist. A group that could not be joined gets ``gradient`` =
        ``accumulated`` and no floor."""
        if big.accumulated is not None:
            return big
        mbs = self.group.microbatches
        if self.objective.yours:
            flipped = [_reversed_rows(b) for b in self._bigs or []]
            accumulated = self._backward(flipped, [1.0] * len(flipped))
        else:
            total = self._normalizer(mbs)
            accumulated = self._backward(mbs, [total] * len(mbs))
        if not big.joined:
            return BigBatch(accumulated, accumulated, False, None, big.items, self.precision, self.objective)
        single = len(mbs) == 1 and not self.objective.yours
        return BigBatch(big.gradient, accumulated, True, None if single else rel_error(accumulated, big.gradient),
                        big.items, self.precision, self.objective)

    def contributions(self, weights: Sequence[Sequence[float]]) -> list[torch.Tensor]:
        """``[Σᵢ wᵢ·cᵢ for w in weights]`` where cᵢ is microbatch i's share of the big batch
        (its share ÷ the group's normalizer; for an objective of your own, its loss ÷ A): the
        linear combinations the explainer compares with (the ``steps`` normalization, the last
        microbatch alone, a per-replica mean), built without holding every cᵢ at once."""
        mbs = self.group.microbatches
        total = float(len(mbs)) if self.objective.yours else self._normalizer(mbs)
        out = [torch.zeros_like(self._zero()) for _ in weights]
        for i, batch in enumerate(mbs):
            if not any(w[i] for w in weights):
                continue
            c = self._backward([batch], [total])
            for acc, w in zip(out, weights):
                if w[i]:
                    acc.add_(c, alpha=w[i])
        return out

    def masses(self) -> list[int]:
        """Each microbatch's part of the objective's normalizer (supervised items, samples, or 1)."""
        return [self.objective.mass(mb, self.group.task) for mb in self.group.microbatches]

    def _zero(self) -> torch.Tensor:
        return torch.zeros(sum(p.numel() for p in self.model.parameters()), dtype=self.dtype)


def _reversed_rows(batch: Mapping[str, Any]) -> dict[str, Any]:
    """The batch with its rows in reverse order (the same samples, another summation order)."""
    rows = {v.shape[0] for v in batch.values() if isinstance(v, torch.Tensor) and v.dim() >= 1}
    if len(rows) != 1:
        return dict(batch)
    return {k: v.flip(0) if isinstance(v, torch.Tensor) and v.dim() >= 1 else v for k, v in batch.items()}


def unshifted_rows(group: Group) -> int:
    """Rows of a causal group whose *first* label is supervised: what a count without the causal
    shift adds to N (0 for other tasks and for ``shift_labels`` batches)."""
    return sum(unshifted_rows_each(group))


def unshifted_rows_each(group: Group) -> list[int]:
    """:func:`unshifted_rows` per microbatch."""
    if group.task != "causal":
        return [0] * group.size
    return [0 if "shift_labels" in mb else int((mb["labels"][..., 0] != -100).sum()) for mb in group.microbatches]


def mixes_samples(model: nn.Module) -> list[str]:
    """The modules that mix the samples of a batch (BatchNorm in training mode), as ``"BatchNorm1d
    'net.1'"``: with them the big batch and its microbatches differ for real, not by rounding."""
    return [f"{type(m).__name__} {n!r}" for n, m in model.named_modules()
            if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.training]


__all__ = ["BASE_TOLERANCE", "TOLERANCES", "dot", "norm", "BigBatch", "ComputePrecision", "Forward", "Reference", "default_forward",
           "flat_gradient", "join", "mixes_samples", "model_gradient", "precision_of",
           "rel_error", "unflatten", "unshifted_rows", "unshifted_rows_each", "vector_dtype"]

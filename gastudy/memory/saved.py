"""Saved-for-backward bytes: what autograd keeps for backward, counted once per storage (course: CK-1, CK-4, GA-1, MB-4).

- :func:`saved_bytes` / :class:`SavedTensorCounter`: the exact bytes of the tensors autograd
  keeps for backward during a forward, each storage counted once, per marked layer and per
  device. A checkpointed layer keeps only its inputs; an offloaded one keeps nothing on the
  device.
- :func:`formula_check`: layers × sequence × hidden × bytes_per_element against the bytes the
  checkpointed layers really keep.
- :func:`format_bytes`: the one human format for byte counts used everywhere in gastudy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

import torch
from torch import nn

from gastudy.core.checkpointing import checkpointed_layers, checkpointing, marked_layers
from gastudy.core.counting import task_of_batch
from gastudy.core.data import Batch
from gastudy.core.engine import model_inputs
from gastudy.core.loss import summed_loss
from gastudy.memory.workload import build_for_measurement, synthetic_microbatches


def format_bytes(n: float) -> str:
    """``1536`` → ``'1.5 KiB'`` (binary units; negative values keep their sign)."""
    sign, n = ("-" if n < 0 else ""), abs(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{sign}{n:.0f} {unit}" if unit == "B" else f"{sign}{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")



def storage_key(t: torch.Tensor) -> tuple[tuple, int]:
    """``((device, data_ptr), nbytes)`` of the storage behind ``t``: views of one storage share
    the key, so summing ``nbytes`` over distinct keys counts each storage once."""
    try:
        st = t.untyped_storage()
        return (str(t.device), st.data_ptr()), st.nbytes()
    except (RuntimeError, NotImplementedError):  # tensors without a plain storage
        return ("tensor", id(t)), t.numel() * t.element_size()



def tensor_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind ``tensors`` (each storage counted once)."""
    seen = dict(storage_key(t) for t in tensors)
    return sum(seen.values())



@dataclass
class SavedBytes:
    """Bytes autograd keeps for backward after a forward.

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
    """Context manager that counts the bytes autograd saves for backward.

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



def to_device(batch: Batch, device: torch.device | str) -> Batch:
    """Every tensor of ``batch`` moved to ``device`` (labels too, so the loss can run there)."""
    return {k: v.to(device) for k, v in batch.items()}



def saved_bytes(model: nn.Module, batch: Batch, task: str | None = None, include_loss: bool = True) -> SavedBytes:
    """Exact bytes autograd keeps for backward after one forward of ``batch``.

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
            summed_loss(output, batch, task or task_of_batch(batch))
    return counter.result()



@dataclass
class FormulaCheck:
    """What checkpointed layers keep, by formula and by measurement (bytes).

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
    """Compare layers × sequence × hidden × bytes_per_element with measured saved bytes.

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


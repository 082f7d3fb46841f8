"""The loss one microbatch contributes to its group, and how it is normalized (course: GA-4, GA-6, MB-3).

The engine computes, for every microbatch, the **sum** of per-item losses; a
:class:`Normalization` decides what that sum is divided by. The library offers the correct one:

- :class:`Tokens` (the default): sum ÷ the supervised items of the *whole group* (all
  microbatches, all replicas), counted before the first backward. The accumulated gradient
  equals the big-batch gradient whatever the lengths and however the samples are split.
- :class:`YourLoss`: a loss function of your own, ``loss_fn(output, batch, num_items_in_group)``,
  either already divided by the group's items (``scaled_for_ga=True``: used as is) or a
  per-microbatch mean (divided by the group's real number of microbatches).

A normalization is an object the engine is given, so code outside the engine can pass
another one (the course's wrong ones — a constant ÷ A, the mean of microbatch means, a
per-replica mean — live in ``gastudy.course.mistakes``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import torch
import torch.nn.functional as F

from gastudy.core.counting import check_task, target_labels

if TYPE_CHECKING:  # pragma: no cover
    from gastudy.core.groups import Group

UserLoss = Callable[[Any, Mapping[str, torch.Tensor], int], torch.Tensor]


@runtime_checkable
class Normalization(Protocol):
    """How one microbatch's loss is divided so that the group's backward passes add up to ONE
    update. ``name`` is what the run record says."""

    name: str

    def loss(self, output: Any, batch: Mapping[str, torch.Tensor], group: Group, denominator: int,
             replicas: int) -> torch.Tensor:
        """This microbatch's share of the group loss: the 0-d tensor the engine calls backward on.

        ``denominator``: the group's supervised items over all replicas (fixed before the
        first backward); ``replicas``: D — data parallelism averages the gradients over the
        D replicas, so a share of the global loss is multiplied by D to cancel that mean."""
        ...


@dataclass(frozen=True)
class Tokens:
    """Σ per-item losses ÷ the group's supervised items over all replicas (× D for DDP's mean):
    the big batch's loss. Items equal to ``ignore_index`` are not counted nor summed."""

    ignore_index: int = -100
    name: ClassVar[str] = "tokens"

    def loss(self, output: Any, batch: Mapping[str, torch.Tensor], group: Group, denominator: int,
             replicas: int) -> torch.Tensor:
        return sum_of_losses(output, batch, group.task, self.ignore_index) * (replicas / denominator)


@dataclass(frozen=True)
class YourLoss:
    """Your loss ``loss_fn(output, batch, num_items_in_group) -> Tensor`` (the Hugging Face
    signature). ``scaled_for_ga=True``: it already divides by ``num_items_in_group`` (used as is,
    × D); ``False``: it returns a per-microbatch mean (divided by the group's real number of
    microbatches). Never both divisions: that divides twice."""

    loss_fn: UserLoss
    scaled_for_ga: bool = False
    name: ClassVar[str] = "your loss"

    def loss(self, output: Any, batch: Mapping[str, torch.Tensor], group: Group, denominator: int,
             replicas: int) -> torch.Tensor:
        loss = self.loss_fn(output, batch, denominator)
        return loss * replicas if self.scaled_for_ga else loss / group.size


def as_normalization(normalization: str | Normalization, ignore_index: int = -100) -> Normalization:
    """The :class:`Normalization` object for ``normalization``: ``"tokens"`` (or ``None``) →
    :class:`Tokens`; an object with ``name`` and ``loss`` → itself. Raises ``ValueError`` for
    any other name (saying where the course's wrong ones are) and ``TypeError`` for anything else."""
    if normalization is None or normalization == "tokens":
        return Tokens(ignore_index)
    if isinstance(normalization, str):
        raise ValueError(f"unknown normalization {normalization!r}: the engine offers 'tokens' (the sum of losses ÷ "
                         "the group's supervised items, the big batch) or a Normalization object; 'steps' and "
                         "'mean' are mistakes the course shows: gastudy.course.mistakes.Steps() / MeanOfMeans()")
    if not isinstance(normalization, Normalization):
        raise TypeError(f"normalization must be 'tokens' or an object with .name and .loss(output, batch, group, "
                        f"denominator, replicas), got {type(normalization).__name__}")
    return normalization


def normalization_name(normalization: str | Normalization | None) -> str:
    """The name the run record gives ``normalization`` (``"tokens"`` for ``None``)."""
    return "tokens" if normalization is None else normalization if isinstance(normalization, str) \
        else normalization.name


def logits_of(output: Any) -> torch.Tensor:
    """The logits of a model output: the tensor itself, its ``.logits`` / ``["logits"]``, or the
    first floating-point tensor of two or more dimensions in a tuple (``(logits, loss)`` as
    nanoGPT returns). Raises ``TypeError`` when there is none."""
    if isinstance(output, torch.Tensor):
        return output
    if hasattr(output, "logits"):
        return output.logits
    if isinstance(output, Mapping) and "logits" in output:
        return output["logits"]
    if isinstance(output, (tuple, list)):
        for item in output:
            if isinstance(item, torch.Tensor) and item.is_floating_point() and item.dim() >= 2:
                return item
    raise TypeError(f"cannot find the logits in a model output of type {type(output).__name__}: return a tensor, "
                    "an object with .logits, or a tuple that starts with the logits")


def summed_loss(
    output: Any, batch: Mapping[str, torch.Tensor], task: str = "causal", ignore_index: int = -100
) -> tuple[torch.Tensor, int]:
    """Sum of cross-entropy losses over the supervised items of one microbatch.

    Returns ``(loss_sum, items)``: a scalar tensor (float32 or wider, nats) and the number of
    supervised items it sums over. For ``causal`` the logits at position i are compared with
    the label at i+1 (or with ``shift_labels`` as given). Integer labels of any width (int32
    from a tokenizer or a NumPy pipeline) are read as int64, on the logits' device. Raises
    ``ValueError`` if logits and labels do not line up, ``TypeError`` for floating-point labels.
    """
    loss_sum = sum_of_losses(output, batch, check_task(task), ignore_index)
    return loss_sum, int(torch.count_nonzero(target_labels(batch, task) != ignore_index))


def sum_of_losses(
    output: Any, batch: Mapping[str, torch.Tensor], task: str = "causal", ignore_index: int = -100
) -> torch.Tensor:
    """The ``loss_sum`` of :func:`summed_loss` alone, without counting the items: for a
    caller that knows the count already (the engine's ``tokens`` normalization divides by the
    group's denominator, counted before the first forward), which saves a reduction and a
    host sync per microbatch. Same value, same errors as :func:`summed_loss`."""
    logits, labels = _items(output, batch, task)
    return F.cross_entropy(logits, labels.reshape(-1), ignore_index=ignore_index, reduction="sum")


def item_losses(
    output: Any, batch: Mapping[str, torch.Tensor], task: str = "causal", ignore_index: int = -100
) -> torch.Tensor:
    """The cross entropy of every item (nats, float32 or wider), shaped like the labels the loss
    compares against (:func:`~gastudy.core.counting.target_labels`), 0 where the label is
    ``ignore_index``: what a weighting other than ÷ N (a per-sample mean) is built from. Its sum
    is :func:`sum_of_losses`. Same errors as :func:`summed_loss`."""
    logits, labels = _items(output, batch, task)
    return F.cross_entropy(logits, labels.reshape(-1), ignore_index=ignore_index, reduction="none").view(labels.shape)


def _items(output: Any, batch: Mapping[str, torch.Tensor], task: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The logits as rows of classes (float32 or wider) and the labels they are compared with
    (int64, in their own shape): the causal shift applied, the shapes checked."""
    logits = logits_of(output)
    labels = target_labels(batch, task)
    if labels.dtype != torch.long or labels.device != logits.device:  # int64, where the logits are
        if labels.is_floating_point() or labels.is_complex():
            raise TypeError(f"labels must be integer class/token ids, got {labels.dtype}: build them with "
                            "dtype=torch.long")
        labels = labels.to(logits.device, torch.long)
    if task == "causal" and "shift_labels" not in batch:
        logits = logits[..., :-1, :]
    if logits.shape[:-1] != labels.shape:
        raise ValueError(
            f"logits {tuple(logits.shape)} do not match labels {tuple(labels.shape)} for task {task!r}: "
            "logits need one extra last dimension (classes) over the label shape"
        )
    if labels.dim() != 1:  # (rows, positions) → one row per item; a classifier's are one already
        logits = logits.reshape(-1, logits.shape[-1])
    if logits.dtype in (torch.float16, torch.bfloat16):
        logits = logits.float()  # the loss is summed in float32 even under autocast
    return logits, labels

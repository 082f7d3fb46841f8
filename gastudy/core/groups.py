"""Update groups: A microbatches that make one optimizer update (MB-4).

A group is fixed *before* its first backward: its microbatches, their sample ids and their
supervised-item counts (hence the denominator) are all known up front. The stream's last
group may be short (fewer than A microbatches); ``last_group`` decides what happens:

- ``"keep"``: process it with its true denominator (its own item count and size).
- ``"drop"``: skip it.

Either way the samples of the short group are recorded in :attr:`GroupStream.partial`.

Any iterable of dict batches becomes groups — gastudy's streams, or a ``DataLoader`` with a
Hugging Face collator (padded with ``attention_mask`` and -100 labels, or padding-free with
``position_ids``/``shift_labels``). Batches without ``sample_ids`` get their samples numbered
by position in the stream (0, 1, 2, … from the stream's first batch); the group then says so
(:attr:`Group.ids_assigned`, :attr:`GroupStream.ids_assigned`), because such ids name places
in the stream, not samples of a data set.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import chain

import torch
from torch import nn

from gastudy.core.checkpointing import cache_in_use
from gastudy.core.counting import check_task, count_supervised
from gastudy.core.data import is_packed, samples_in
from gastudy.core.plan import check_positive_int

LAST_GROUP_POLICIES = ("keep", "drop")
# the batch entries gastudy reads itself: they must be tensors (other entries pass to the model as they are)
TENSOR_KEYS = ("input_ids", "labels", "shift_labels", "attention_mask", "position_ids", "inputs", "sample_ids")
Batch = dict[str, torch.Tensor]


@dataclass
class Group:
    """One update's microbatches, with everything the denominator needs.

    Attributes:
        index: 0-based group number in its stream.
        microbatches: the batch dicts, in order.
        items: supervised items per microbatch (local to this replica).
        sample_ids: ids of every sample, in order (read from the microbatches' ``sample_ids``
            on first use: most updates never ask).
        accumulation_steps: the configured A (a short last group has ``size < A``).
        task: the task its items were counted for (``causal`` counts the shifted labels).
        ids_assigned: True when the batches came without ``sample_ids`` and the ids are
            stream positions assigned by :class:`GroupStream` (not data-set ids).
    """

    index: int
    microbatches: list[Batch]
    items: list[int]
    accumulation_steps: int
    task: str = "causal"
    ids_assigned: bool = False
    _sample_ids: list[int] | None = field(default=None, repr=False, compare=False)

    @property
    def sample_ids(self) -> list[int]:
        """Ids of every sample of the group, in microbatch order."""
        if self._sample_ids is None:
            self._sample_ids = list(chain.from_iterable(sample_ids_of(mb) for mb in self.microbatches))
        return self._sample_ids

    @property
    def size(self) -> int:
        """Number of microbatches actually in this group."""
        return len(self.microbatches)

    @property
    def supervised_items(self) -> int:
        """Supervised items of the whole group on this replica (the local denominator)."""
        return sum(self.items)

    @property
    def partial(self) -> bool:
        """True for a short last group (fewer than A microbatches)."""
        return self.size < self.accumulation_steps

    @property
    def samples(self) -> int:
        """Number of samples in the group."""
        if self._sample_ids is not None:
            return len(self._sample_ids)
        return sum(mb["sample_ids"].numel() for mb in self.microbatches)


def _ids_of(batch: Batch) -> torch.Tensor:
    if "sample_ids" not in batch:
        raise KeyError("batch has no 'sample_ids': build the groups with make_groups(batches, A), which numbers "
                       "the samples by stream position, or have the collator record which samples it holds")
    return batch["sample_ids"]


def sample_ids_of(batch: Batch) -> list[int]:
    """The ``sample_ids`` of a batch as a list of ints (``KeyError`` with a hint if missing)."""
    ids = _ids_of(batch)
    return list(map(int, (ids if ids.dim() == 1 else ids.reshape(-1)).tolist()))  # one copy, not a tensor per id


def number_samples(batches: Iterable[Batch], first: int = 0, step: int = 1) -> Iterator[tuple[Batch, bool]]:
    """Yield ``(batch, assigned)`` for every batch: unchanged with ``assigned=False`` when it
    has ``sample_ids``; otherwise a shallow copy with ``sample_ids`` = the stream positions of
    its samples (``first``, ``first + step``, … counted over the whole stream) and
    ``assigned=True``. The caller's dicts are never modified.

    Raises ``TypeError`` for a batch that is not a dict or whose ``input_ids``, ``labels``,
    ``shift_labels``, ``attention_mask``, ``position_ids``, ``inputs`` or ``sample_ids`` is not a
    tensor (a collator without ``return_tensors="pt"``), and ``ValueError`` for a batch whose
    ``sample_ids`` do not number its samples one each, or when some batches of the stream carry
    ``sample_ids`` and others do not (numbering only the latter by position
    would give two samples the same id).
    """
    position, numbered = 0, None
    for k, batch in enumerate(batches):
        if not isinstance(batch, Mapping):
            raise TypeError(f"a microbatch must be a dict of tensors (a collator's output), got {type(batch).__name__}")
        not_tensors = [key for key in TENSOR_KEYS if key in batch and not isinstance(batch[key], torch.Tensor)]
        if not_tensors:
            raise TypeError(f"batch {k}: {', '.join(f'{key!r} is a {type(batch[key]).__name__}' for key in not_tensors)}"
                            ", not a tensor: have the collator return tensors (a Hugging Face tokenizer or collator "
                            "with return_tensors='pt'; a DataLoader's default collate does this)")
        has_ids = "sample_ids" in batch
        if numbered is not None and has_ids != numbered:
            raise ValueError(f"batch {k} {'has' if has_ids else 'has no'} 'sample_ids' but the batches before it "
                             f"{'had' if numbered else 'had none'}: give every batch sample_ids, or none (then the "
                             "samples are numbered by stream position); a mix would give two samples the same id")
        numbered = has_ids
        if has_ids:
            given = int(batch["sample_ids"].numel())
            held = samples_in({key: v for key, v in batch.items() if key != "sample_ids"})
            if given != held:
                raise ValueError(f"batch {k} has {given} sample_ids for {held} samples: the collator must give "
                                 "exactly one id per sample (or none, and the groups number them)")
            yield batch, False
            continue
        n = samples_in(batch)
        ids = torch.arange(position, position + n, dtype=torch.long) * step + first
        position += n
        yield {**dict(batch), "sample_ids": ids}, True


def build_group(index: int, microbatches: list[Batch], accumulation_steps: int, task: str = "causal",
                ignore_index: int = -100, ids_assigned: bool = False) -> Group:
    """Make a :class:`Group` from a list of microbatches, counting items and ids up front.

    Every microbatch needs ``sample_ids`` here (``KeyError`` otherwise); :class:`GroupStream`
    adds them to batches that have none and passes ``ids_assigned=True``. The ids are turned
    into a list only when :attr:`Group.sample_ids` is read.
    """
    for mb in microbatches:
        _ids_of(mb)  # KeyError with the hint now, not when the ids are first read
    return Group(
        index=index,
        microbatches=list(microbatches),
        items=[count_supervised(mb, task, ignore_index) for mb in microbatches],
        accumulation_steps=accumulation_steps,
        task=task,
        ids_assigned=ids_assigned,
    )


@dataclass
class PartialGroupRecord:
    """What happened to a short last group: its policy, size and affected sample ids."""

    policy: str
    microbatches: int
    accumulation_steps: int
    sample_ids: list[int]

    def to_dict(self) -> dict:
        return {"policy": self.policy, "microbatches": self.microbatches,
                "accumulation_steps": self.accumulation_steps, "sample_ids": self.sample_ids}


@dataclass
class GroupStream:
    """Iterate a stream of microbatches as :class:`Group` objects of A microbatches.

    Args:
        microbatches: any iterable of batch dicts with ``labels`` (or ``shift_labels``):
            gastudy's :class:`~gastudy.core.data.MicrobatchStream`, or a ``DataLoader`` with a
            Hugging Face collator. Batches without ``sample_ids`` get stream positions as ids
            (see :func:`number_samples`); :attr:`ids_assigned` then turns True.
        accumulation_steps: A, ≥ 1.
        task: how supervised items are counted (``causal``, ``masked``, ``classification``).
        last_group: ``"keep"`` or ``"drop"`` for a short last group.
        start_index: number given to the first group (used when resuming).

    After iteration, :attr:`partial` records the short last group (or stays ``None``).
    Raises ``ValueError`` for a bad A or policy before anything is consumed, ``TypeError``
    for a microbatch that is not a dict.
    """

    microbatches: Iterable[Batch]
    accumulation_steps: int
    task: str = "causal"
    last_group: str = "keep"
    ignore_index: int = -100
    start_index: int = 0
    partial: PartialGroupRecord | None = field(default=None, init=False)
    ids_assigned: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        check_positive_int("accumulation_steps (A)", self.accumulation_steps)
        check_task(self.task)
        if self.last_group not in LAST_GROUP_POLICIES:
            raise ValueError(f"unknown last_group policy {self.last_group!r}; use 'keep' or 'drop'")

    def __iter__(self) -> Iterator[Group]:
        index, pending, assigned = self.start_index, [], False
        for mb, was_assigned in number_samples(self.microbatches):
            pending.append(mb)
            assigned |= was_assigned
            self.ids_assigned |= was_assigned
            if len(pending) == self.accumulation_steps:
                yield build_group(index, pending, self.accumulation_steps, self.task, self.ignore_index, assigned)
                index, pending, assigned = index + 1, [], False
        if pending:
            group = build_group(index, pending, self.accumulation_steps, self.task, self.ignore_index, assigned)
            self.partial = PartialGroupRecord(self.last_group, group.size, self.accumulation_steps, group.sample_ids)
            if self.last_group == "keep":
                yield group


def _position_limit(model: nn.Module) -> int | None:
    """The number of positions a model with *learned absolute* position embeddings has
    (GPT-2's ``n_positions``, BERT's ``max_position_embeddings``); ``None`` when the model has
    no such table (rotary models such as Llama extrapolate, so no limit is enforced)."""
    config = getattr(model, "config", None)
    limit = getattr(config, "n_positions", None) or getattr(config, "max_position_embeddings", None)
    if not isinstance(limit, int):
        return None
    tables = [m for m in model.modules() if isinstance(m, nn.Embedding) and m.num_embeddings == limit]
    return limit if any(m is not _input_embedding(model) for m in tables) else None


def _input_embedding(model: nn.Module) -> nn.Module | None:
    get = getattr(model, "get_input_embeddings", None)
    try:
        return get() if callable(get) else None
    except (NotImplementedError, AttributeError):
        return None


@dataclass(frozen=True)
class FitLimits:
    """What :func:`check_fits` compares a group against: the input embedding's vocabulary
    size and the learned absolute positions (``None``: that limit is not checked)."""

    vocab: int | None
    positions: int | None


def fit_limits(model: nn.Module) -> FitLimits:
    """The vocabulary size of ``model``'s input embedding (a Hugging Face model's
    ``get_input_embeddings()``) and its learned absolute position count; ``None`` for what it
    does not have. Read once and passed to :func:`check_fits` by the engine."""
    emb = _input_embedding(model)
    return FitLimits(emb.num_embeddings if isinstance(emb, nn.Embedding) else None, _position_limit(model))


def check_fits(group: Group, model: nn.Module, limits: FitLimits | None = None) -> None:
    """Refuse, before any forward, a group the model cannot embed.

    Checks every microbatch's ``input_ids`` against the model's input embedding (a Hugging
    Face model's ``get_input_embeddings()``: ids must lie in ``0 … vocab - 1``; an id that sits
    only on padding is named as the pad token) and, for a model with learned absolute
    positions (``config.n_positions`` / ``max_position_embeddings`` backed by an embedding
    table), the sequence length (or the largest ``position_ids`` + 1). A model without these
    is not checked. ``limits`` is :func:`fit_limits` of the model, read once by a caller that
    checks many groups (default: read now). Raises ``ValueError`` naming the microbatch, the
    value and the limit — instead of an ``IndexError`` deep in the forward (a device-side
    assert on a GPU).

    Warns (``UserWarning``) when padding-free microbatches meet a model whose config has
    ``use_cache=True`` outside flash attention: transformers 5 keeps the packed sequences
    apart only without a cache, so they would attend to each other (transformers' Trainer
    turns the cache off at start, from ``TrainingArguments.use_cache=False``).
    """
    if any(isinstance(mb.get("input_ids"), torch.Tensor) and is_packed(mb) for mb in group.microbatches):
        config = getattr(model, "config", None)
        if "flash" not in str(getattr(config, "_attn_implementation", "")) and cache_in_use(model):
            warnings.warn(f"group {group.index}: padding-free microbatches (position_ids, no attention_mask) on a "
                          "model whose config has use_cache=True: transformers keeps packed sequences apart only "
                          "without a cache, so here they attend to each other and the gradient depends on the "
                          "packing; set model.config.use_cache = False before training (transformers' Trainer does; "
                          "enable_checkpointing does too)", UserWarning, stacklevel=3)
    limits = limits or fit_limits(model)
    vocab, limit = limits.vocab, limits.positions
    if vocab is None and limit is None:
        return
    for k, mb in enumerate(group.microbatches):
        ids = mb.get("input_ids")
        if not isinstance(ids, torch.Tensor) or ids.numel() == 0:
            continue
        if vocab is not None:
            low, high = torch.aminmax(ids)  # one pass over the ids
            if int(low) < 0 or int(high) >= vocab:
                outside = (ids < 0) | (ids >= vocab)
                bad = sorted({int(v) for v in ids[outside].unique()})[:5]
                mask = mb.get("attention_mask")
                on_padding = isinstance(mask, torch.Tensor) and mask.shape == ids.shape and not bool(outside[mask.bool()].any())
                hint = ("they sit only on padding: the pad token is outside the vocabulary — pad with a token id "
                        "< vocab (pad_collate(..., pad_token_id=…), tokenizer.pad_token)") if on_padding else (
                        "the tokenizer and the model disagree: build the model with the tokenizer's vocabulary size")
                raise ValueError(f"group {group.index}, microbatch {k}: input_ids {bad} outside the model's "
                                 f"vocabulary of {vocab} tokens; {hint}")
        if limit is not None:
            pos = mb.get("position_ids")
            length = int(pos.max()) + 1 if isinstance(pos, torch.Tensor) and pos.numel() else int(ids.shape[-1])
            if length > limit:
                raise ValueError(f"group {group.index}, microbatch {k}: sequences of {length} positions, but the model "
                                 f"has {limit} (config n_positions / max_position_embeddings): truncate the samples "
                                 f"to {limit} tokens (tokenizer truncation=True, max_length={limit}) or build the model "
                                 "with more positions")


def make_groups(microbatches: Iterable[Batch], accumulation_steps: int, task: str = "causal",
                last_group: str = "keep", ignore_index: int = -100) -> GroupStream:
    """Split ``microbatches`` into update groups of A (see :class:`GroupStream`).

    ``microbatches`` is any iterable of dict batches: a :class:`~gastudy.core.data.MicrobatchStream`
    or your own ``DataLoader`` with a Hugging Face collator (padded, or padding-free with
    ``position_ids``/``shift_labels``). Batches without ``sample_ids`` are numbered by stream
    position and the groups say so (``group.ids_assigned``, ``stream.ids_assigned``).
    """
    return GroupStream(microbatches, accumulation_steps, task, last_group, ignore_index)

"""Batches: collators and the stream of microbatches (course: GA-4, GA-5, MB-3, MB-4).

- :func:`pad_collate` (padded batch, right padding) and :func:`packed_collate` (padding-free:
  one row, ``position_ids`` restart per sequence, ``shift_labels`` supplied).
- :class:`MicrobatchStream`: the deterministic, resumable stream of microbatches of m samples
  for one replica (shuffled per epoch from a seed, sharded by replica rank).

Every batch is a ``dict`` of tensors. When samples carry a ``sample_id`` the collators put them
in ``sample_ids`` (LongTensor, one id per sample) so that the engine can
record exactly which samples an update used. Batches from elsewhere (a Hugging Face collator)
may come without ids: the groups then number the samples by stream position and say so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch

IGNORE_INDEX = -100
PAD = 13  # the token a padded batch pads with when none is given (the course's vocabulary's pad)

Sample = dict[str, torch.Tensor]
Batch = dict[str, torch.Tensor]

# Keys that describe the targets or bookkeeping, never passed to the model's forward.
NON_INPUT_KEYS = frozenset({"labels", "shift_labels", "sample_ids"})


def _sample_ids(samples: Sequence[Sample]) -> dict[str, torch.Tensor]:
    """``{"sample_ids": …}`` when every sample has a ``sample_id``, ``{}`` when none has one.

    A batch without ids becomes a group all the same: :func:`gastudy.core.groups.make_groups`
    numbers its samples by stream position. Mixing is refused (``ValueError``).
    """
    have = ["sample_id" in s for s in samples]
    if all(have):
        return {"sample_ids": torch.stack([torch.as_tensor(s["sample_id"]) for s in samples])}
    if any(have):
        raise ValueError(f"{sum(have)} of {len(samples)} samples have a 'sample_id': give every sample one, or none "
                         "(then the groups number the samples by their position in the stream)")
    return {}


def pad_collate(samples: Sequence[Sample], pad_token_id: int = PAD, padding_side: str = "right") -> Batch:
    """Stack samples into a padded batch.

    Sequence samples get ``input_ids`` padded with ``pad_token_id`` (default: the course
    vocabulary's ``PAD``; pass your tokenizer's ``pad_token_id`` for your own model), ``labels``
    padded with -100 and an ``attention_mask`` (1 = real token); any other 1-D per-token tensor
    of a sample (e.g. ``token_type_ids``: as long as its ``input_ids`` in every sample) is padded
    with 0. Padding goes on the ``padding_side`` (``"right"``, the default for training, or
    ``"left"`` like a tokenizer with ``padding_side="left"``). ``labels`` may also be one class
    per sample (0-d: a sequence classifier's, stacked into ``(B,)``) or a sequence of its own
    length (a seq2seq target: padded on the right with -100 to the longest); other keys of their
    own length are padded on the right with 0, 0-d ones stacked. A sample's ``input_ids``/
    ``labels`` may be tensors or lists of ints. Fixed-size samples (``inputs``) are stacked.
    ``sample_ids`` is added when the samples carry a ``sample_id`` (all of them or none;
    ``ValueError`` for a mix).

    Raises ``ValueError`` for no samples, a ``pad_token_id`` that is not an int ≥ 0 (e.g.
    ``None`` from a tokenizer without a pad token: set ``tokenizer.pad_token`` first), an
    unknown ``padding_side``, ``input_ids`` that are not 1-D, or labels that are one class in
    some samples and a sequence in others; ``KeyError`` for a sample without ``labels``.
    """
    if len(samples) == 0:
        raise ValueError("pad_collate got no samples: a batch needs at least one")
    if isinstance(pad_token_id, bool) or not isinstance(pad_token_id, int) or pad_token_id < 0:
        raise ValueError(f"pad_token_id must be a token id (an int >= 0 inside the model's vocabulary), got "
                         f"{pad_token_id!r}: pass your tokenizer's pad_token_id (set tokenizer.pad_token if it has none)")
    if padding_side not in ("right", "left"):
        raise ValueError(f"padding_side must be 'right' or 'left', got {padding_side!r}")
    ids = _sample_ids(samples)
    if "inputs" in samples[0]:
        return {"inputs": torch.stack([s["inputs"] for s in samples]),
                "labels": torch.stack([s["labels"] for s in samples]), **ids}
    missing = [r for r, s in enumerate(samples) if "labels" not in s]
    if missing:
        raise KeyError(f"samples {missing} have no 'labels': give each sample its labels (for a causal LM a copy of "
                       "its input_ids; the model shifts them)")
    tokens = [torch.as_tensor(s["input_ids"], dtype=torch.long) for s in samples]
    bad = [r for r, t in enumerate(tokens) if t.dim() != 1]
    if bad:
        raise ValueError(f"samples {bad}: input_ids must be 1-D (one sample's token ids)")
    T, B = max(len(t) for t in tokens), len(samples)
    input_ids = torch.full((B, T), pad_token_id, dtype=torch.long)
    mask = torch.zeros((B, T), dtype=torch.long)
    keys = [k for k, v in samples[0].items() if k not in ("input_ids", "attention_mask", "sample_id")]
    lacking = [(r, k) for r, s in enumerate(samples) for k in keys if k not in s]
    if lacking:
        raise ValueError(f"sample {lacking[0][0]} has no {lacking[0][1]!r} but sample 0 has: give every sample the "
                         "same per-token inputs")
    values = {k: [torch.as_tensor(s[k], dtype=torch.long) if k == "labels" else s[k] for s in samples] for k in keys}
    per_token = {k for k, vs in values.items() if all(isinstance(v, torch.Tensor) and v.dim() == 1 and len(v) == len(t)
                                                      for v, t in zip(vs, tokens))}
    if len({v.dim() for v in values["labels"]}) > 1:
        raise ValueError("labels must be one class per sample (0-d) in every sample, or a sequence in every sample "
                         "(per token, as long as input_ids, or a target sequence of its own)")
    out: Batch = {"input_ids": input_ids, "attention_mask": mask}
    for k in keys:
        fill = IGNORE_INDEX if k == "labels" else 0
        vs = values[k]
        if not all(isinstance(v, torch.Tensor) for v in vs):
            continue  # not a tensor (a string, a list of anything): not part of a batch
        if k in per_token:
            out[k] = torch.full((B, T), fill, dtype=vs[0].dtype)
        elif all(v.dim() == 0 for v in vs):
            out[k] = torch.stack(vs)
        elif all(v.dim() == 1 for v in vs):  # a sequence of its own length: padded on the right
            width = max(len(v) for v in vs)
            out[k] = torch.full((B, width), fill, dtype=vs[0].dtype)
            for r, v in enumerate(vs):
                out[k][r, :len(v)] = v
    for r, t in enumerate(tokens):
        n = len(t)
        at = slice(0, n) if padding_side == "right" else slice(T - n, T)
        input_ids[r, at], mask[r, at] = t, 1
        for k in per_token:
            out[k][r, at] = values[k][r]
    return {**out, **ids}


def packed_collate(samples: Sequence[Sample]) -> Batch:
    """Concatenate sequences into one row without padding (a padding-free collator).

    Returns ``input_ids`` (1, ΣL), ``position_ids`` restarting at 0 for every sequence,
    ``labels`` with -100 at each sequence's first position, and ``shift_labels`` (1, ΣL):
    the label of the *next* token within the same sequence, -100 at each sequence's last
    position. The loss uses ``shift_labels`` directly, without shifting again.
    ``sample_ids`` as in :func:`pad_collate`.
    """
    ids, pos, labels, shift = [], [], [], []
    for s in samples:
        n = len(s["input_ids"])
        ids.append(s["input_ids"])
        pos.append(torch.arange(n))
        lab = s["labels"].clone()
        lab[0] = IGNORE_INDEX
        labels.append(lab)
        shift.append(torch.cat([s["labels"][1:], torch.tensor([IGNORE_INDEX])]))
    return {
        "input_ids": torch.cat(ids).unsqueeze(0),
        "position_ids": torch.cat(pos).unsqueeze(0),
        "labels": torch.cat(labels).unsqueeze(0),
        "shift_labels": torch.cat(shift).unsqueeze(0),
        **_sample_ids(samples),
    }


COLLATORS: dict[str, Callable[[Sequence[Sample]], Batch]] = {"padded": pad_collate, "packed": packed_collate}


def is_packed(batch: Batch) -> bool:
    """True for a padding-free batch: one row of concatenated sequences with ``position_ids``
    (gastudy's :func:`packed_collate`, transformers' ``DataCollatorWithFlattening``)."""
    return "position_ids" in batch and "attention_mask" not in batch and batch["input_ids"].shape[0] == 1


def sequence_starts(position_ids: torch.Tensor) -> list[int]:
    """Where each sequence of a packed row begins: position 0 and every place where the
    position does not grow by one (so a collator's ``position_ids_start`` does not matter)."""
    pos = position_ids.reshape(-1)
    if pos.numel() == 0:
        return []
    return [0, *((pos[1:] != pos[:-1] + 1).nonzero().flatten() + 1).tolist()]


def samples_in(batch: Batch) -> int:
    """How many samples a batch holds (THE row counter): its ``sample_ids`` if present, else the
    sequences of a packed row, else the rows (first dimension) of ``input_ids``/``inputs``/
    ``labels``, else of its first tensor with a batch dimension (your own keys, e.g. nanoGPT's
    ``idx``). Raises ``KeyError`` when the batch holds no such tensor."""
    if "sample_ids" in batch:
        return int(batch["sample_ids"].numel())
    if "input_ids" in batch and is_packed(batch):
        return len(sequence_starts(batch["position_ids"]))
    for key in ("input_ids", "inputs", "labels"):
        if key in batch:
            return int(batch[key].shape[0])
    first = next((v for v in batch.values() if isinstance(v, torch.Tensor) and v.dim() >= 1), None)
    if first is None:
        raise KeyError(f"cannot tell how many samples the batch holds (keys: {sorted(batch)}): it needs a tensor "
                       "with one row per sample (input_ids, inputs, labels…)")
    return int(first.shape[0])


def split_batch(batch: Batch) -> list[Sample]:
    """Undo a collator: the individual samples of a padded (right padding) or packed batch.

    Works for gastudy's collators and for Hugging Face ones (padded with ``attention_mask``,
    or padding-free with ``position_ids`` and, optionally, ``shift_labels``). A sample gets a
    ``sample_id`` only when the batch has ``sample_ids``.
    """
    out: list[Sample] = []
    n_samples = samples_in(batch)
    sids = batch["sample_ids"].reshape(-1) if "sample_ids" in batch else None

    def with_id(sample: Sample, k: int) -> Sample:
        if sids is not None:
            sample["sample_id"] = sids[k]
        return sample

    if "inputs" in batch:
        return [with_id({"inputs": batch["inputs"][i], "labels": batch["labels"][i]}, i) for i in range(n_samples)]
    if is_packed(batch):
        starts = sequence_starts(batch["position_ids"]) + [batch["input_ids"].shape[1]]
        for k in range(len(starts) - 1):
            a, b = starts[k], starts[k + 1]
            if "shift_labels" in batch:
                labels = torch.cat([batch["labels"][0, a : a + 1], batch["shift_labels"][0, a : b - 1]])
            else:  # the row's labels are unshifted: the sequence's own slice (its first one is never a target)
                labels = batch["labels"][0, a:b]
            out.append(with_id({"input_ids": batch["input_ids"][0, a:b], "labels": labels}, k))
        return out
    B, T = batch["input_ids"].shape
    mask = batch.get("attention_mask")
    rest = [k for k, v in batch.items() if k not in ("input_ids", "attention_mask", "sample_ids")
            and isinstance(v, torch.Tensor) and v.dim() >= 1 and v.shape[0] == B]
    for r in range(B):
        at = slice(0, T) if mask is None else _real_tokens(mask[r], r)
        sample = {"input_ids": batch["input_ids"][r, at]}
        for k in rest:  # per token (cut like the ids), one per sample, or a sequence of its own length (whole)
            v = batch[k]
            sample[k] = v[r, at] if v.dim() >= 2 and v.shape[1] == T else v[r]
        out.append(with_id(sample, r))
    return out


def _real_tokens(mask_row: torch.Tensor, r: int) -> slice:
    """The slice of a padded row holding its real tokens: a run of ones at the start (right
    padding) or at the end (left padding). ``ValueError`` for any other mask."""
    on = mask_row.reshape(-1).bool()
    n, T = int(on.sum()), on.numel()
    if bool(on[:n].all()):
        return slice(0, n)
    if bool(on[T - n:].all()):
        return slice(T - n, T)
    raise ValueError(f"row {r}'s attention_mask {on.int().tolist()} is neither right- nor left-padded (its real "
                     "tokens are not one block at either end): gastudy cannot split it into its sample")


def padding_side_of(batch: Batch) -> str | None:
    """``"left"`` when a padded batch has a row padded at the start (``attention_mask`` 0 at
    position 0 and 1 at the end), ``"right"`` otherwise; ``None`` for a batch without
    ``attention_mask`` (packed or unpadded)."""
    mask = batch.get("attention_mask")
    if mask is None or mask.dim() != 2 or mask.shape[1] == 0:
        return None
    return "left" if bool(((mask[:, 0] == 0) & (mask[:, -1] != 0)).any()) else "right"


def pad_token_of(batch: Batch, default: int = PAD) -> int:
    """The token a padded batch pads with: ``input_ids`` at its first masked position
    (``default`` when nothing is padded or there is no ``attention_mask``)."""
    mask = batch.get("attention_mask")
    if mask is None or "input_ids" not in batch or bool(mask.bool().all()):
        return default
    return int(batch["input_ids"][mask == 0][0])


def concat_microbatches(microbatches: Sequence[Batch]) -> Batch:
    """One big batch holding every sample of ``microbatches`` (the big-batch reference).

    Padded batches are re-padded to the longest sequence, with the pad token they used and on
    their side (left when they were left-padded); packed batches are re-packed into one row.
    The packed first-position label is restored from ``labels`` so nothing is lost. Raises
    ``ValueError`` for no microbatches, microbatches that mix formats (padded, packed,
    fixed-size) or that carry different inputs (``attention_mask`` aside: without one a
    batch is unpadded).
    """
    if len(microbatches) == 0:
        raise ValueError("concat_microbatches got no microbatches")
    kinds = ["packed" if is_packed(mb) else "fixed-size" if "inputs" in mb else "padded" for mb in microbatches]
    if len(set(kinds)) > 1:
        raise ValueError(f"the microbatches mix formats ({', '.join(f'{k}: {kind}' for k, kind in enumerate(kinds))}): "
                         "one big batch needs one format — collate every microbatch the same way")
    keys = [set(mb) - {"sample_ids", "attention_mask"} for mb in microbatches]  # no mask = nothing padded
    odd = [k for k, ks in enumerate(keys) if ks != keys[0]]
    if odd:
        raise ValueError(f"microbatch {odd[0]} has the inputs {sorted(keys[odd[0]])} but microbatch 0 has "
                         f"{sorted(keys[0])}: one big batch needs the same inputs in every microbatch — collate "
                         "them the same way (e.g. token_type_ids in all or none)")
    sides = {padding_side_of(mb) for mb in microbatches} - {None}
    side = "left" if "left" in sides else "right"
    samples = [s for mb in microbatches for s in split_batch(mb)]
    if kinds[0] == "packed":
        return packed_collate(samples)
    if kinds[0] == "fixed-size":
        return pad_collate(samples)
    pad = next((pad_token_of(mb, None) for mb in microbatches if pad_token_of(mb, None) is not None), PAD)
    return pad_collate(samples, pad_token_id=pad, padding_side=side)


@dataclass
class MicrobatchStream:
    """The microbatches one replica sees, in order, for one or more epochs.

    Args:
        dataset: a map-style dataset of samples (dicts; a ``sample_id`` each for exact records).
        micro_batch: m, samples per microbatch on this replica.
        collate: ``"padded"``, ``"packed"`` or a callable (e.g. a Hugging Face collator).
        shuffle: the order of the samples. ``True`` (the default) visits each epoch in a fresh
            permutation drawn from ``seed + epoch`` — deterministic, so a resumed run sees the
            same order; ``False`` visits the dataset in index order every epoch.
        seed: the seed of epoch 0's permutation (epoch e uses ``seed + e``); unused when
            ``shuffle=False``.
        replicas, rank: shard the epoch's order as ``order[rank::replicas]`` (what a
            distributed sampler does): every replica gets its own samples.
        drop_last: drop a final microbatch with fewer than m samples.

    ``microbatches(epoch, start=0)`` yields the epoch's microbatches from index ``start``,
    which is how training resumes at an exact data position. Raises ``ValueError`` for a bad
    m, an unknown collate name or a non-bool ``shuffle``.
    """

    dataset: torch.utils.data.Dataset
    micro_batch: int
    collate: str | Callable[[Sequence[Sample]], Batch] = "padded"
    seed: int = 0
    shuffle: bool = True  # a fresh permutation per epoch; False = dataset order
    replicas: int = 1
    rank: int = 0
    drop_last: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.micro_batch, int) or isinstance(self.micro_batch, bool) or self.micro_batch < 1:
            raise ValueError(f"micro_batch (m) must be a positive integer, got {self.micro_batch!r}")
        if not isinstance(self.shuffle, bool):
            raise ValueError(f"shuffle must be True (a permutation per epoch from seed + epoch) or False "
                             f"(dataset order), got {self.shuffle!r}")
        if isinstance(self.collate, str):
            if self.collate not in COLLATORS:
                raise ValueError(f"unknown collate {self.collate!r}; use one of {sorted(COLLATORS)}")
            self.collate = COLLATORS[self.collate]

    def indices(self, epoch: int = 0) -> list[int]:
        """Dataset indices this replica visits in ``epoch``, in order (shuffled or not, see ``shuffle``)."""
        n = len(self.dataset)
        if self.shuffle:
            order = torch.randperm(n, generator=torch.Generator().manual_seed(self.seed + epoch)).tolist()
        else:
            order = list(range(n))
        return order[self.rank :: self.replicas]

    def __len__(self) -> int:
        n = len(self.indices(0))
        return n // self.micro_batch if self.drop_last else -(-n // self.micro_batch)

    def microbatches(self, epoch: int = 0, start: int = 0) -> Iterator[Batch]:
        """Yield microbatches of ``epoch`` beginning with microbatch number ``start``."""
        idx = self.indices(epoch)
        for k in range(start, len(self)):
            chunk = idx[k * self.micro_batch : (k + 1) * self.micro_batch]
            yield self.collate([self.dataset[i] for i in chunk])

    def __iter__(self) -> Iterator[Batch]:
        return self.microbatches(0)


# Names that moved to the course, reachable here for one release (with a DeprecationWarning).
_MOVED = {"AdditionDataset", "BlobDataset", "encode", "decode", "DIGITS", "PLUS", "EQUALS", "EOS", "BOS",
          "VOCAB_SIZE"}


def __getattr__(name: str):
    if name in _MOVED:
        import importlib
        import warnings

        warnings.warn(f"gastudy.core.data.{name} moved to gastudy.course.datasets.{name}; the old name goes in the "
                      "next release", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("gastudy.course.datasets"), name)
    raise AttributeError(f"module 'gastudy.core.data' has no attribute {name!r}")

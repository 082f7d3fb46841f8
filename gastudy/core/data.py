"""Generated data and collators (GA-4, GA-5, MB-3, MB-4): nothing is downloaded.

- :class:`AdditionDataset`: integer addition written as tokens, ``<bos> a + b = c <eos>``.
  Prompt positions are labelled ``IGNORE_INDEX`` (-100), answer positions are supervised, so
  sequence lengths *and* supervised-item counts vary from sample to sample. With
  ``supervise="all"`` every real token is a label (plain language modelling), which is where
  forgetting the causal shift over-counts by one item per sequence.
- :class:`BlobDataset`: Gaussian blobs for the MLP classifiers.
- :func:`pad_collate` (padded batch, right padding) and :func:`packed_collate` (padding-free:
  one row, ``position_ids`` restart per sequence, ``shift_labels`` supplied).
- :class:`MicrobatchStream`: the deterministic, resumable stream of microbatches of m samples
  for one replica (shuffled per epoch from a seed, sharded by replica rank).

Every batch is a ``dict`` of tensors and carries ``sample_ids`` (LongTensor, one id per sample)
so that the engine can record exactly which samples an update used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch

IGNORE_INDEX = -100
DIGITS = "0123456789"
PLUS, EQUALS, EOS, PAD, BOS = 10, 11, 12, 13, 14
VOCAB_SIZE = 16

Sample = dict[str, torch.Tensor]
Batch = dict[str, torch.Tensor]

# Keys that describe the targets or bookkeeping, never passed to the model's forward.
NON_INPUT_KEYS = frozenset({"labels", "shift_labels", "sample_ids"})


def encode(text: str) -> list[int]:
    """Token ids of a string over ``0-9 + =``."""
    table = {**{d: i for i, d in enumerate(DIGITS)}, "+": PLUS, "=": EQUALS}
    return [table[ch] for ch in text]


def decode(ids: Sequence[int]) -> str:
    """Inverse of :func:`encode`; special tokens print as ``<bos> <eos> <pad>``."""
    names = {PLUS: "+", EQUALS: "=", EOS: "<eos>", PAD: "<pad>", BOS: "<bos>"}
    return "".join(DIGITS[i] if i < 10 else names.get(i, "?") for i in ids)


class AdditionDataset(torch.utils.data.Dataset):
    """``size`` addition problems with operands of 1…``max_digits`` digits, from ``seed``.

    Each item: ``input_ids`` (1-D), ``labels`` (same length, -100 on ignored positions),
    ``sample_id`` (int). ``supervise="answer"`` labels only the answer and ``<eos>``;
    ``supervise="all"`` labels every token.
    """

    def __init__(self, size: int = 256, max_digits: int = 4, seed: int = 0, supervise: str = "answer"):
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        if supervise not in ("answer", "all"):
            raise ValueError(f"supervise must be 'answer' or 'all', got {supervise!r}")
        g = torch.Generator().manual_seed(seed)
        self.items: list[Sample] = []
        for i in range(size):
            da, db = (int(torch.randint(1, max_digits + 1, (1,), generator=g)) for _ in range(2))
            a = int(torch.randint(10 ** (da - 1) if da > 1 else 0, 10**da, (1,), generator=g))
            b = int(torch.randint(10 ** (db - 1) if db > 1 else 0, 10**db, (1,), generator=g))
            prompt = [BOS, *encode(f"{a}+{b}=")]
            answer = [*encode(str(a + b)), EOS]
            ids = torch.tensor(prompt + answer)
            labels = ids.clone()
            if supervise == "answer":
                labels[: len(prompt)] = IGNORE_INDEX
            self.items.append({"input_ids": ids, "labels": labels, "sample_id": torch.tensor(i)})

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> Sample:
        return self.items[i]


class BlobDataset(torch.utils.data.Dataset):
    """``size`` points in ``features`` dimensions around ``classes`` Gaussian centres."""

    def __init__(self, size: int = 256, features: int = 8, classes: int = 4, seed: int = 0):
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        g = torch.Generator().manual_seed(seed)
        centres = torch.randn(classes, features, generator=g) * 2
        labels = torch.randint(0, classes, (size,), generator=g)
        self.x = centres[labels] + torch.randn(size, features, generator=g)
        self.y = labels

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int) -> Sample:
        return {"inputs": self.x[i], "labels": self.y[i], "sample_id": torch.tensor(i)}


def pad_collate(samples: Sequence[Sample]) -> Batch:
    """Stack samples into a padded batch (right padding).

    Sequence samples get ``input_ids`` padded with ``PAD``, ``labels`` padded with -100 and an
    ``attention_mask`` (1 = real token). Fixed-size samples (``inputs``) are stacked.
    """
    ids = torch.stack([s["sample_id"] for s in samples])
    if "inputs" in samples[0]:
        return {"inputs": torch.stack([s["inputs"] for s in samples]),
                "labels": torch.stack([s["labels"] for s in samples]), "sample_ids": ids}
    T = max(len(s["input_ids"]) for s in samples)
    B = len(samples)
    input_ids = torch.full((B, T), PAD, dtype=torch.long)
    labels = torch.full((B, T), IGNORE_INDEX, dtype=torch.long)
    mask = torch.zeros((B, T), dtype=torch.long)
    for r, s in enumerate(samples):
        n = len(s["input_ids"])
        input_ids[r, :n], labels[r, :n], mask[r, :n] = s["input_ids"], s["labels"], 1
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels, "sample_ids": ids}


def packed_collate(samples: Sequence[Sample]) -> Batch:
    """Concatenate sequences into one row without padding (a padding-free collator).

    Returns ``input_ids`` (1, ΣL), ``position_ids`` restarting at 0 for every sequence,
    ``labels`` with -100 at each sequence's first position, and ``shift_labels`` (1, ΣL):
    the label of the *next* token within the same sequence, -100 at each sequence's last
    position. The loss uses ``shift_labels`` directly, without shifting again (GA-5).
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
        "sample_ids": torch.stack([s["sample_id"] for s in samples]),
    }


COLLATORS: dict[str, Callable[[Sequence[Sample]], Batch]] = {"padded": pad_collate, "packed": packed_collate}


def split_batch(batch: Batch) -> list[Sample]:
    """Undo a collator: the individual samples of a padded or packed batch."""
    out: list[Sample] = []
    if "inputs" in batch:
        for i, sid in enumerate(batch["sample_ids"]):
            out.append({"inputs": batch["inputs"][i], "labels": batch["labels"][i], "sample_id": sid})
        return out
    if "position_ids" in batch:
        starts = (batch["position_ids"][0] == 0).nonzero().flatten().tolist() + [batch["input_ids"].shape[1]]
        for k, sid in enumerate(batch["sample_ids"]):
            a, b = starts[k], starts[k + 1]
            labels = torch.cat([batch["labels"][0, a : a + 1], batch["shift_labels"][0, a : b - 1]])
            out.append({"input_ids": batch["input_ids"][0, a:b], "labels": labels, "sample_id": sid})
        return out
    for r, sid in enumerate(batch["sample_ids"]):
        n = int(batch["attention_mask"][r].sum())
        out.append({"input_ids": batch["input_ids"][r, :n], "labels": batch["labels"][r, :n], "sample_id": sid})
    return out


def concat_microbatches(microbatches: Sequence[Batch]) -> Batch:
    """One big batch holding every sample of ``microbatches`` (the big-batch reference).

    Padded batches are re-padded to the longest sequence; packed batches are re-packed into
    one row. The packed first-position label is restored from ``labels`` so nothing is lost.
    """
    samples = [s for mb in microbatches for s in split_batch(mb)]
    collate = packed_collate if "position_ids" in microbatches[0] else pad_collate
    return collate(samples)


@dataclass
class MicrobatchStream:
    """The microbatches one replica sees, in order, for one or more epochs.

    Args:
        dataset: a map-style dataset of samples (dicts with ``sample_id``).
        micro_batch: m, samples per microbatch on this replica.
        collate: ``"padded"``, ``"packed"`` or a callable.
        seed: the permutation of epoch e uses ``seed + e``; ``shuffle=False`` keeps order.
        replicas, rank: shard the epoch's permutation as ``perm[rank::replicas]`` (what a
            distributed sampler does). ``shard=False`` gives every replica the same samples —
            the duplicated-data mistake MB-7 detects.
        drop_last: drop a final microbatch with fewer than m samples.

    ``microbatches(epoch, start=0)`` yields the epoch's microbatches from index ``start``,
    which is how training resumes at an exact data position.
    """

    dataset: torch.utils.data.Dataset
    micro_batch: int
    collate: str | Callable[[Sequence[Sample]], Batch] = "padded"
    seed: int = 0
    shuffle: bool = True
    replicas: int = 1
    rank: int = 0
    shard: bool = True
    drop_last: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.micro_batch, int) or isinstance(self.micro_batch, bool) or self.micro_batch < 1:
            raise ValueError(f"micro_batch (m) must be a positive integer, got {self.micro_batch!r}")
        if isinstance(self.collate, str):
            if self.collate not in COLLATORS:
                raise ValueError(f"unknown collate {self.collate!r}; use one of {sorted(COLLATORS)}")
            self.collate = COLLATORS[self.collate]

    def indices(self, epoch: int = 0) -> list[int]:
        """Dataset indices this replica visits in ``epoch``, in order."""
        n = len(self.dataset)
        if self.shuffle:
            order = torch.randperm(n, generator=torch.Generator().manual_seed(self.seed + epoch)).tolist()
        else:
            order = list(range(n))
        return order[self.rank :: self.replicas] if self.shard else order

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

"""The course's generated data: nothing is downloaded (course: GA-4, GA-5, MB-3, MB-8).

- :class:`AdditionDataset`: integer addition written as tokens, ``<bos> a + b = c <eos>``.
  Prompt positions are labelled ``IGNORE_INDEX`` (-100), answer positions are supervised, so
  sequence lengths *and* supervised-item counts vary from sample to sample. With
  ``supervise="all"`` every real token is a label (plain language modelling), which is where
  forgetting the causal shift over-counts by one item per sequence.
- :class:`BlobDataset`: Gaussian blobs for the MLP classifiers.

Each sample is a dict of tensors with a ``sample_id``, so every batch records which samples it
holds (:func:`gastudy.core.data.pad_collate`, :func:`gastudy.core.data.packed_collate`).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from gastudy.core.data import IGNORE_INDEX, PAD, Sample

DIGITS = "0123456789"
PLUS, EQUALS, EOS, BOS = 10, 11, 12, 14
VOCAB_SIZE = 16


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


__all__ = ["AdditionDataset", "BlobDataset", "BOS", "DIGITS", "EOS", "EQUALS", "PAD", "PLUS", "VOCAB_SIZE", "decode", "encode"]

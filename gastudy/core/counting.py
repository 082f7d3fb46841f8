"""Counting supervised items — the denominator of a token-normalized loss (GA-5, MB-3).

What counts as one supervised item depends on the task:

- ``causal`` (decoder-only language model): the loss compares logits at position i with the
  label at i+1, so position 0 of every row has no target. Count ``labels[..., 1:]``. A
  padding-free collator may supply ``shift_labels`` (already shifted): count those instead.
- ``masked`` (masked LM) and ``classification``: every label position is a target; count the
  full ``labels``.

Positions equal to ``ignore_index`` (-100: padding, prompts, unmasked tokens) never count.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch

TASKS = ("causal", "masked", "classification")


def check_task(task: str) -> str:
    """Return ``task`` if it is known, else raise ``ValueError`` naming the valid tasks."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; use one of {', '.join(TASKS)}")
    return task


def task_of_batch(batch: Mapping[str, torch.Tensor]) -> str:
    """The task a batch is counted for when none is given: ``classification`` for a batch of
    ``inputs`` (a classifier's features), else ``causal`` (token ids, counted after the shift).
    A masked LM must say ``task="masked"``."""
    return "classification" if "inputs" in batch else "causal"


def target_labels(batch: Mapping[str, torch.Tensor], task: str = "causal") -> torch.Tensor:
    """The label tensor the loss actually compares against.

    ``causal``: ``shift_labels`` if present, else ``labels[..., 1:]``. Other tasks: ``labels``
    (``task`` is not validated here: groups and the engine check it once). Raises ``KeyError``
    with a hint when the batch has no labels.
    """
    if task == "causal" and "shift_labels" in batch:
        return batch["shift_labels"]
    if "labels" not in batch:
        raise KeyError(f"batch has no 'labels' (keys: {sorted(batch)}); the collator must supply labels "
                       "(a causal LM's are a copy of input_ids: DataCollatorForLanguageModeling(tokenizer, mlm=False) "
                       "or DataCollatorForSeq2Seq add them; the loss cannot come from input_ids alone)")
    return batch["labels"][..., 1:] if task == "causal" else batch["labels"]


def count_supervised(batch: Mapping[str, torch.Tensor], task: str = "causal", ignore_index: int = -100) -> int:
    """Number of supervised items in one microbatch (an ``int``).

    Counts the positions of :func:`target_labels` that are not ``ignore_index``. This is the
    quantity summed over a whole group to form the token-normalized denominator. Raises
    ``ValueError`` for an unknown task.
    """
    return int(torch.count_nonzero(target_labels(batch, check_task(task)) != ignore_index))

"""Hugging Face ``Trainer`` set-ups as people write them (transformers 5.x, ``trainer.py``), built
by module-level functions so that worker processes can build them too.

Every Trainer trains a tiny GPT-2 from a config (nothing is downloaded) on the course's
variable-length addition problems (labels ≠ -100 on the answer only), m = 2, A = 4, on the CPU.
What each one changes is the one thing its name says; the rest are the Trainer's defaults
(``max_grad_norm=1.0``, ``average_tokens_across_devices=True``, ``loss_is_scaled_for_ga=None``).
"""

from __future__ import annotations

import tempfile

import torch.nn.functional as F
from transformers import Trainer, TrainingArguments

from gastudy.course.bridge import hf_collate, tiny_causal_lm
from gastudy.course.datasets import AdditionDataset

M, A = 2, 4


def samples(n: int = 16) -> list[dict]:
    data = AdditionDataset(n, seed=0)
    return [data[i] for i in range(n)]


def arguments(**overrides) -> TrainingArguments:
    return TrainingArguments(output_dir=tempfile.mkdtemp(prefix="gastudy-corpus-"), per_device_train_batch_size=M,
                             gradient_accumulation_steps=A, report_to="none", use_cpu=True, disable_tqdm=True,
                             **overrides)


def default_trainer(model=None, **overrides) -> Trainer:
    """The plain Trainer: GPT-2's loss takes num_items_in_batch (ForCausalLMLoss, summed ÷ the count)."""
    return Trainer(model=model or tiny_causal_lm(hidden=16), args=arguments(**overrides), train_dataset=samples(),
                   data_collator=hf_collate)


def float64_trainer() -> Trainer:
    """float64 weights: GPT-2's loss upcasts the logits to float32, so the loss is computed in float32."""
    return default_trainer(tiny_causal_lm(hidden=16).double())


def summed_causal_loss(outputs, labels, num_items_in_batch=None):
    """A ``compute_loss_func`` as the Trainer's docs describe one: the causal shift, the per-token
    losses summed ÷ ``num_items_in_batch`` (the Trainer then does not divide by A again)."""
    logits = outputs.logits[:, :-1].float()
    targets = labels[:, 1:].to(logits.device)
    total = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100, reduction="sum")
    return total / num_items_in_batch


def mean_causal_loss(outputs, labels, num_items_in_batch=None):
    """A ``compute_loss_func`` that ignores the count: the per-microbatch token mean."""
    logits = outputs.logits[:, :-1].float()
    return F.cross_entropy(logits.flatten(0, 1), labels[:, 1:].flatten(), ignore_index=-100)


def compute_loss_func_trainer(loss=summed_causal_loss) -> Trainer:
    return Trainer(model=tiny_causal_lm(hidden=16), args=arguments(), train_dataset=samples(),
                   data_collator=hf_collate, compute_loss_func=loss)


def mean_loss_func_trainer() -> Trainer:
    return compute_loss_func_trainer(mean_causal_loss)


class SummedScaled(Trainer):
    """compute_loss sums the per-token losses ÷ num_items_in_batch and declares it scaled (right)."""

    loss_is_scaled_for_ga = True

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        return summed_causal_loss(outputs, labels, num_items_in_batch)


class MeanDeclaredScaled(Trainer):
    """compute_loss returns the per-microbatch mean and declares it scaled: nothing divides by A."""

    loss_is_scaled_for_ga = True

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        return model(**inputs).loss  # the model's mean: num_items_in_batch is not passed on


def declared_scaled_trainer(cls=SummedScaled) -> Trainer:
    return cls(model=tiny_causal_lm(hidden=16), args=arguments(), train_dataset=samples(), data_collator=hf_collate)


class ModelLossDeclaredUnscaled(Trainer):
    """The model's own loss (already ÷ num_items_in_batch) declared NOT scaled: divided again by A."""

    loss_is_scaled_for_ga = False


def declared_unscaled_trainer() -> Trainer:
    return declared_scaled_trainer(ModelLossDeclaredUnscaled)


def per_device_tokens_trainer() -> Trainer:
    """``average_tokens_across_devices=False``: each process divides by its own token count."""
    return default_trainer(average_tokens_across_devices=False)

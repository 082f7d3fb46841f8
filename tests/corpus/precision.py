"""Loops that enter lower precision somewhere other than around the model's own top-level call.

The checker reads the precision a loop computed in from its autograd graphs (the dtype of the
matrix products), not from a hook on the model: these are the loops that used to fool a hook.

- nanoGPT's micro-step loop (``train.py``: ``with ctx: logits, loss = model(X, Y); loss = loss /
  gradient_accumulation_steps``, ``scaler.scale(loss).backward()``, unscale → clip 1.0 → step →
  update → ``zero_grad(set_to_none=True)``; ``ctx`` = bf16 autocast) where ``model`` is a module
  that holds the GPT as ``.gpt`` and the loop calls ``model.gpt(X, Y)`` — what a loop does with a
  wrapper (a value head, a ``torch.compile``'d ``_orig_mod``, DDP's ``.module``);
- a backbone + chunked-head loop, as Liger's fused linear cross entropy and litgpt's
  ``lm_head_chunk_size`` compute it: the hidden states from ``model.model(...)`` (a Llama's
  backbone) under autocast, then the head over chunks of positions — ``model.lm_head(chunk)``
  (litgpt) or ``F.linear(chunk, model.lm_head.weight)`` (Liger: the head's weight, no module
  call) — with the summed cross entropy of every chunk ÷ the group's supervised tokens;
- Accelerate's ``Accelerator(mixed_precision=…)`` as its ``examples/by_feature/
  gradient_accumulation.py`` uses it (``accelerator.accumulate(model)``, ``accelerator.backward
  (loss)``, step, scheduler, zero_grad): ``prepare`` replaces ``model.forward`` by one wrapped in
  autocast, so no hook before the model's call sees it. On the CPU Accelerate's fp16 is not
  autocast (``native_amp`` is False there): that loop computes in float32.

Each loop has a slipped twin (one line changed) that the checker must still catch in the same
precision. The models are tiny and built from configs; the data are random token ids.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import transformers
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader

from gastudy.course import nanogpt
from tests.corpus.frameworks import PAD, VOCAB, fresh_accelerate_state

CHUNK = 4  # positions per chunk of the head


# =========================================================================== nanoGPT through a submodule
class WithHead(nanogpt.Wrapped):
    """A module that holds nanoGPT's ``GPT`` as ``.gpt`` (and a small head of its own the loop does
    not train here): the loop calls ``model.gpt(X, Y)``, never ``model(...)``."""

    def __init__(self, seed: int = 0):
        super().__init__(nanogpt.small_gpt(seed))
        self.value = nn.Linear(64, 1)


# nanoGPT's micro-step loop with bf16 autocast (its dtype default where supported), grad_clip 1.0, a
# disabled scaler, calling model.gpt (gastudy.course.nanogpt.NanoGPTStep)
nanogpt_submodule_step = nanogpt.NanoGPTStep("bfloat16", 1.0, submodule="gpt")
gpt_forward = nanogpt.through_gpt


class _DividedTwiceThroughGPT(nanogpt.NanoGPTStep):
    """The slip: nanoGPT's ``loss / gradient_accumulation_steps`` applied twice, through ``model.gpt``."""

    def __call__(self, model, optimizer, microbatches):
        for batch in microbatches:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                _, loss = model.gpt(batch["idx"], batch["targets"])
                loss = loss / len(microbatches) / len(microbatches)
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


nanogpt_submodule_divided_twice = _DividedTwiceThroughGPT("bfloat16")


# =========================================================================== backbone + chunked head
def tiny_llama(seed: int = 0) -> transformers.LlamaForCausalLM:
    """A 2-layer Llama from a config (float32), the architecture Liger's kernels patch."""
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                                      bos_token_id=PAD, eos_token_id=PAD, pad_token_id=PAD, loss_type="ForCausalLM")
    return transformers.LlamaForCausalLM(config)


def _chunked_head_sum(model, batch, by_weight: bool) -> torch.Tensor:
    """Σ cross entropy over the shifted targets of ``batch``: backbone under bf16 autocast, then the
    head over ``CHUNK`` positions at a time, each chunk's logits upcast to float32 (litgpt's
    ``chunked_cross_entropy``, Liger's fused linear cross entropy)."""
    with torch.autocast("cpu", dtype=torch.bfloat16):
        hidden = model.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        hidden, targets = hidden[:, :-1], batch["labels"][:, 1:]
        total = hidden.new_zeros((), dtype=torch.float32)
        for h, y in zip(hidden.split(CHUNK, dim=1), targets.split(CHUNK, dim=1)):
            logits = F.linear(h, model.lm_head.weight) if by_weight else model.lm_head(h)
            total = total + F.cross_entropy(logits.float().flatten(0, 1), y.flatten(), reduction="sum")
    return total


def chunked_head_step(model, optimizer, microbatches, by_weight: bool = False, per_microbatch: bool = False):
    """One update: each microbatch's chunked summed loss ÷ the group's supervised tokens (counted
    after the shift), backward per microbatch, clip 1.0, step, zero_grad. ``per_microbatch``: the
    slip — ÷ the microbatch's own tokens and ÷ A (the mean of microbatch means)."""
    group_tokens = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for batch in microbatches:
        total = _chunked_head_sum(model, batch, by_weight)
        if per_microbatch:
            loss = total / int((batch["labels"][:, 1:] != -100).sum()) / len(microbatches)
        else:
            loss = total / group_tokens
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def liger_style_step(model, optimizer, microbatches):
    """The backbone + ``F.linear(chunk, model.lm_head.weight)``: no module call for the head at all."""
    chunked_head_step(model, optimizer, microbatches, by_weight=True)


def chunked_head_mean_of_means(model, optimizer, microbatches):
    """The slip: each microbatch's chunked loss ÷ its own tokens, then ÷ A."""
    chunked_head_step(model, optimizer, microbatches, per_microbatch=True)


# =========================================================================== Accelerate's mixed precision
def accelerate_mixed_precision(mixed_precision: str, divide_again: bool = False):
    """accelerate ``examples/by_feature/gradient_accumulation.py`` ``training_function``: ``Accelerator
    (cpu=True, mixed_precision=…, gradient_accumulation_steps=A)``, ``prepare(model, optimizer,
    train_dataloader, lr_scheduler)``, then per batch ``with accelerator.accumulate(model): output =
    model(**batch); loss = output.loss; accelerator.backward(loss); optimizer.step();
    lr_scheduler.step(); optimizer.zero_grad()``. ``divide_again``: the slip, ``loss / A`` before
    ``accelerator.backward`` (which divides by A itself)."""

    def accelerate_step(model, optimizer, microbatches, lr_scheduler):
        fresh_accelerate_state()
        accelerator = Accelerator(cpu=True, mixed_precision=mixed_precision,
                                  gradient_accumulation_steps=len(microbatches))
        train_dataloader = DataLoader(microbatches, batch_size=None)
        model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
            model, optimizer, train_dataloader, lr_scheduler)
        model.train()
        for batch in train_dataloader:
            with accelerator.accumulate(model):
                output = model(**batch)
                loss = output.loss / (len(microbatches) if divide_again else 1)
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        accelerate_step.native_amp = accelerator.native_amp

    accelerate_step.__name__ = f"accelerate_{mixed_precision}" + ("_divided_again" if divide_again else "")
    return accelerate_step


def linear_schedule(optimizer):
    """The example's ``get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, …)``."""
    return transformers.get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=1000)

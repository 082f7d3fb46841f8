"""The course's small models, registered as workloads with their data (every chapter; CK-3 for the marked blocks).

- :class:`TinyGPT`: a decoder-only transformer whose blocks are :class:`CheckpointLayer`
  subclasses, so activation checkpointing can count them. Its forward returns an object
  with ``.logits`` (like a Hugging Face causal LM) and accepts ``position_ids`` so that a
  padding-free (packed) batch keeps its sequences apart.
- :class:`MLP`: a small classifier with an optional normalization layer (``"batch"``,
  ``"layer"`` or ``None``), used to show that BatchNorm breaks the microbatch/big-batch
  equivalence (MB-8) while LayerNorm keeps it. Its forward returns a logits tensor.

All models are deterministic (no dropout) so that gradients can be compared exactly. Importing
this module registers them (:mod:`gastudy.core.workloads`) under :data:`MODEL_NAMES`, each with
its generated data (:mod:`gastudy.course.datasets`), so ``gastudy train --model bn-mlp`` and the
library's name-taking checks and measurements can build them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

from gastudy.core.checkpointing import CheckpointLayer
from gastudy.core.workloads import Workload, register, workload
from gastudy.course.datasets import AdditionDataset, BlobDataset

MODEL_NAMES = ("tiny-gpt", "ln-mlp", "bn-mlp", "mlp")


@dataclass
class CausalLMOutput:
    """What :class:`TinyGPT` returns: ``logits`` of shape (batch, sequence, vocab)."""

    logits: torch.Tensor


def causal_mask(position_ids: torch.Tensor) -> torch.Tensor:
    """Boolean attention mask (batch, 1, T, T): causal, and block-diagonal per sequence.

    A new sequence starts wherever ``position_ids`` is 0, so several sequences packed into
    one row (padding-free batches) never attend to each other.
    """
    T = position_ids.shape[-1]
    document = torch.cumsum((position_ids == 0).long(), dim=-1)  # (B, T)
    same_doc = document.unsqueeze(-1) == document.unsqueeze(-2)  # (B, T, T)
    causal = torch.ones(T, T, dtype=torch.bool, device=position_ids.device).tril()
    return (same_doc & causal).unsqueeze(1)


class Block(CheckpointLayer):
    """One transformer block: pre-norm attention and MLP with residuals (the repeated layer)."""

    def __init__(self, hidden: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc = nn.Linear(hidden, 4 * hidden)
        self.out = nn.Linear(4 * hidden, hidden)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        B, T, H = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(H, dim=-1)
        q, k, v = (t.view(B, T, self.heads, H // self.heads).transpose(1, 2) for t in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.proj(att.transpose(1, 2).reshape(B, T, H))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class TinyGPT(nn.Module):
    """A tiny decoder-only transformer language model.

    Args:
        vocab_size: number of token ids.
        hidden: width of the residual stream.
        layers: number of :class:`Block` layers (the units checkpointing counts).
        heads: attention heads (must divide ``hidden``).
        max_len: longest sequence (positions) it accepts.

    ``forward(input_ids, attention_mask=None, position_ids=None)`` returns
    :class:`CausalLMOutput`. Logits at position i predict token i+1 (the causal shift is
    applied by the loss, GA-5). ``attention_mask`` is accepted for compatibility; right
    padding under a causal mask never influences real tokens, so it is not needed.
    """

    def __init__(
        self,
        vocab_size: int = 16,
        hidden: int = 32,
        layers: int = 4,
        heads: int = 2,
        max_len: int = 64,
    ):
        super().__init__()
        if hidden % heads:
            raise ValueError(f"hidden={hidden} must be divisible by heads={heads}")
        self.config = dict(vocab_size=vocab_size, hidden=hidden, layers=layers, heads=heads, max_len=max_len)
        self.embed = nn.Embedding(vocab_size, hidden)
        self.pos = nn.Embedding(max_len, hidden)
        self.blocks = nn.ModuleList(Block(hidden, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab_size, bias=False)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        position_ids: torch.Tensor | None = None,
    ) -> CausalLMOutput:
        B, T = input_ids.shape
        if position_ids is None:
            position_ids = torch.arange(T, device=input_ids.device).expand(B, T)
        if int(position_ids.max()) >= self.config["max_len"]:
            raise ValueError(f"a sequence is longer than max_len={self.config['max_len']}; build TinyGPT(max_len=...) larger")
        mask = causal_mask(position_ids)
        x = self.embed(input_ids) + self.pos(position_ids)
        for block in self.blocks:
            x = block(x, mask)
        return CausalLMOutput(logits=self.head(self.ln_f(x)))


class MLP(nn.Module):
    """A small classifier: Linear → [norm] → ReLU → Linear → [norm] → ReLU → Linear.

    Args:
        in_features, hidden, classes: layer sizes.
        norm: ``"batch"`` (BatchNorm1d: statistics per forward pass, MB-8), ``"layer"``
            (LayerNorm: per sample, split-invariant) or ``None``.

    ``forward(inputs)`` returns logits of shape (batch, classes).
    """

    def __init__(self, in_features: int = 8, hidden: int = 32, classes: int = 4, norm: str | None = "layer"):
        super().__init__()
        norms = {"batch": nn.BatchNorm1d, "layer": nn.LayerNorm, None: lambda n: nn.Identity()}
        if norm not in norms:
            raise ValueError(f"unknown norm {norm!r}; use 'batch', 'layer' or None")
        self.norm = norm
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden), norms[norm](hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), norms[norm](hidden), nn.ReLU(),
            nn.Linear(hidden, classes),
        )

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.net(inputs)


def build_model(name: str = "tiny-gpt", seed: int = 0, dtype: torch.dtype = torch.float32, **kwargs) -> nn.Module:
    """Build one of the course models by name, with a fixed seed.

    Names: ``tiny-gpt`` (:class:`TinyGPT`), ``ln-mlp`` (LayerNorm MLP), ``bn-mlp``
    (BatchNorm MLP), ``mlp`` (no normalization). Raises ``ValueError`` on an unknown name.
    """
    if name not in MODEL_NAMES:
        raise ValueError(f"unknown model {name!r}; choose one of {', '.join(MODEL_NAMES)}")
    gen_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        if name == "tiny-gpt":
            model = TinyGPT(**kwargs)
        else:
            norm = {"ln-mlp": "layer", "bn-mlp": "batch", "mlp": None}[name]
            model = MLP(norm=norm, **kwargs)
    finally:
        torch.random.set_rng_state(gen_state)
    return model.to(dtype)


def task_of(name: str) -> str:
    """The supervision kind of a registered model: ``causal`` for tiny-gpt, ``classification`` for the MLPs."""
    return workload(name).task


def parameter_count(model: nn.Module) -> int:
    """Number of trainable parameters (elements)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


# tiny-gpt widened to show in process memory (what the course's memory measurements build)
MEASURE_KWARGS = {"hidden": 256, "layers": 4, "heads": 4}

for _name in MODEL_NAMES:
    register(Workload(_name, partial(build_model, _name), AdditionDataset if _name == "tiny-gpt" else BlobDataset,
                      "causal" if _name == "tiny-gpt" else "classification",
                      ("padded", "packed") if _name == "tiny-gpt" else ("padded",),
                      MEASURE_KWARGS if _name == "tiny-gpt" else {}))

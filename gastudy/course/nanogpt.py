"""nanoGPT's model and accumulation loop, rewritten for the course (chapters 10 and 11).

nanoGPT (Andrej Karpathy, MIT licence, github.com/karpathy/nanoGPT) is the accumulation loop
the field learns from. This module is an independent rewrite of what its ``model.py`` computes
and of the micro-step loop of its ``train.py`` (the lines after "forward backward update"), with
the defaults that file sets: ``loss / gradient_accumulation_steps`` per micro-step,
``scaler.scale(loss).backward()``, then ``scaler.unscale_`` → ``clip_grad_norm_(…, grad_clip=1.0)``
→ ``scaler.step`` → ``scaler.update`` → ``zero_grad(set_to_none=True)``; AdamW with weight decay
0.1 on the matrices only, betas (0.9, 0.95); autocast in bfloat16 (or float16 with a
``GradScaler``) where the device supports it. The parameter names are nanoGPT's, so a state
dict of either loads into the other.

Its data are fixed-length blocks whose targets are the inputs shifted by one, so ``÷ A`` is
exact there. :func:`variable_blocks` gives blocks whose tails are padding (targets ``-1``,
nanoGPT's ``ignore_index``), where the same loop is the ``steps`` normalization.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class GPTConfig:
    """nanoGPT's ``GPTConfig`` (its defaults are GPT-2 small: 12 layers, 12 heads, 768 wide)."""

    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True


class LayerNorm(nn.Module):
    """Layer normalization whose bias can be left out (``bias=False``)."""

    def __init__(self, width: int, bias: bool):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width)) if bias else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    """Multi-head causal attention through ``scaled_dot_product_attention(is_causal=True)``."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        if config.n_embd % config.n_head:
            raise ValueError(f"n_embd={config.n_embd} is not a multiple of n_head={config.n_head}")
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head, self.n_embd, self.dropout = config.n_head, config.n_embd, config.dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows, length, width = x.shape
        heads = [t.view(rows, length, self.n_head, width // self.n_head).transpose(1, 2)
                 for t in self.c_attn(x).split(self.n_embd, dim=2)]
        y = F.scaled_dot_product_attention(*heads, dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        return self.resid_dropout(self.c_proj(y.transpose(1, 2).reshape(rows, length, width)))


class MLP(nn.Module):
    """Width × 4, GELU, back to width."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    """Pre-norm transformer block: x + attention(ln(x)), then x + MLP(ln(x))."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.ln_1, self.attn = LayerNorm(config.n_embd, config.bias), CausalSelfAttention(config)
        self.ln_2, self.mlp = LayerNorm(config.n_embd, config.bias), MLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """nanoGPT's ``GPT``: ``forward(idx, targets=None) → (logits, loss)``.

    With ``targets`` the logits cover every position and ``loss`` is the mean cross entropy
    over the targets that are not ``-1``; without them only the last position's logits are
    computed (generation) and ``loss`` is ``None``. The output embedding is tied to the input
    one. Weights start as nanoGPT's: normal(0, 0.02), residual projections 0.02/√(2·layers).
    """

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict({
            "wte": nn.Embedding(config.vocab_size, config.n_embd),
            "wpe": nn.Embedding(config.block_size, config.n_embd),
            "drop": nn.Dropout(config.dropout),
            "h": nn.ModuleList(Block(config) for _ in range(config.n_layer)),
            "ln_f": LayerNorm(config.n_embd, config.bias),
        })
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, 0.0, 0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * config.n_layer))

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        length = idx.shape[1]
        if length > self.config.block_size:
            raise ValueError(f"a block of {length} tokens is longer than block_size={self.config.block_size}")
        pos = torch.arange(length, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is None:
            return self.lm_head(x[:, [-1], :]), None
        logits = self.lm_head(x)
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def configure_optimizers(model: GPT, weight_decay: float = 0.1, learning_rate: float = 6e-4,
                         betas: tuple[float, float] = (0.9, 0.95)) -> torch.optim.AdamW:
    """AdamW as nanoGPT builds it: weight decay on tensors of 2 or more dimensions only."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)


def default_dtype(device_type: str = "cpu") -> str:
    """nanoGPT's choice: ``bfloat16`` where the device supports it, else ``float16``."""
    if device_type == "cuda":
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return "bfloat16"


class NanoGPTStep:
    """nanoGPT's micro-step loop as a ``train_step(model, optimizer, microbatches)`` for ONE update.

    ``dtype``: ``float32`` (no autocast), ``bfloat16`` or ``float16`` (autocast in it; float16
    turns the ``GradScaler`` on, as nanoGPT does). ``grad_clip``: the clipping norm, 0 for none
    (nanoGPT's default is 1.0). Each microbatch is ``{"idx": X, "targets": Y}``; the number of
    microbatches is ``gradient_accumulation_steps``. On a model wrapped in DDP the gradient sync
    is switched on for the last micro-step only, through ``require_backward_grad_sync`` as
    nanoGPT does. Returns the last microbatch's loss × A, the value nanoGPT logs. ``submodule``:
    the attribute of the module the loop is given that holds the GPT (``"gpt"``: the loop calls
    ``model.gpt(X, Y)``, as a loop around a wrapper does); ``None`` calls the model itself. An
    instance of a module-level class, so that worker processes can import it.
    """

    def __init__(self, dtype: str = "float32", grad_clip: float = 1.0, device_type: str = "cpu",
                 submodule: str | None = None):
        if dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"dtype must be 'float32', 'bfloat16' or 'float16', got {dtype!r}")
        self.dtype, self.grad_clip, self.device_type, self.submodule = dtype, grad_clip, device_type, submodule
        self.__name__ = (f"nanogpt_train_step_{dtype}" + (f"_clip{grad_clip:g}" if grad_clip else "")
                         + (f"_via_{submodule}" if submodule else ""))

    def __call__(self, model, optimizer, microbatches):
        ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[self.dtype]
        ctx = (contextlib.nullcontext() if self.dtype == "float32"
               else torch.autocast(self.device_type, dtype=ptdtype))
        scaler = torch.amp.GradScaler(self.device_type, enabled=(self.dtype == "float16"))
        grad_clip = self.grad_clip
        gradient_accumulation_steps = len(microbatches)
        ddp = isinstance(model, nn.parallel.DistributedDataParallel)
        call = getattr(model, self.submodule) if self.submodule else model
        for micro_step, batch in enumerate(microbatches):
            if ddp:  # sync only on the last micro-step (what no_sync() toggles)
                model.require_backward_grad_sync = micro_step == gradient_accumulation_steps - 1
            with ctx:
                _, loss = call(batch["idx"], batch["targets"])
                loss = loss / gradient_accumulation_steps
            scaler.scale(loss).backward()
        if grad_clip != 0.0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        return loss.item() * gradient_accumulation_steps

    def __repr__(self) -> str:
        return f"NanoGPTStep(dtype={self.dtype!r}, grad_clip={self.grad_clip!r}, submodule={self.submodule!r})"


def train_step_like_nanogpt(dtype: str = "float32", grad_clip: float = 1.0,
                            device_type: str = "cpu") -> Callable[..., Any]:
    """A :class:`NanoGPTStep` (nanoGPT's loop with these settings)."""
    return NanoGPTStep(dtype, grad_clip, device_type)


# --------------------------------------------------------------------------- nanoGPT's loop with one slip
class Wrapped(nn.Module):
    """A module that holds a GPT as ``.gpt`` (a wrapper's shape: a value head, a compiled model's
    ``_orig_mod``); its own forward is the GPT's."""

    def __init__(self, gpt: GPT):
        super().__init__()
        self.gpt = gpt

    def forward(self, idx: torch.Tensor, targets: torch.Tensor | None = None):
        return self.gpt(idx, targets)


def through_gpt(model: nn.Module, batch: dict[str, torch.Tensor]):
    """How a big batch calls a :class:`Wrapped` model as a ``submodule="gpt"`` loop does."""
    return model.gpt(batch["idx"], batch["targets"])


class ClipEveryMicroStep(NanoGPTStep):
    """WRONG: the clip moved into the micro-step loop — it clips partial sums of the gradient."""

    def __call__(self, model, optimizer, microbatches):
        scaler = torch.amp.GradScaler(self.device_type, enabled=(self.dtype == "float16"))
        for batch in microbatches:
            _, loss = model(batch["idx"], batch["targets"])
            scaler.scale(loss / len(microbatches)).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.grad_clip)  # the slip
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)


class ClipBeforeUnscale(NanoGPTStep):
    """WRONG (fp16): the clip before ``scaler.unscale_`` — it measures the SCALED gradient."""

    def __call__(self, model, optimizer, microbatches):
        scaler = torch.amp.GradScaler(self.device_type, enabled=True)
        for batch in microbatches:
            with torch.autocast(self.device_type, dtype=torch.float16):
                _, loss = model(batch["idx"], batch["targets"])
            scaler.scale(loss / len(microbatches)).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), self.grad_clip)  # the slip: before unscale_
        scaler.unscale_(optimizer)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)


class ZeroGradEveryMicroStep(NanoGPTStep):
    """WRONG: ``zero_grad`` inside the micro-step loop — only the last microbatch reaches the step."""

    def __call__(self, model, optimizer, microbatches):
        for batch in microbatches:
            optimizer.zero_grad(set_to_none=True)  # the slip
            _, loss = model(batch["idx"], batch["targets"])
            (loss / len(microbatches)).backward()
        optimizer.step()


class DividedTwice(NanoGPTStep):
    """WRONG: the loss divided by A where nanoGPT divides, and again before the backward."""

    def __call__(self, model, optimizer, microbatches):
        for batch in microbatches:
            _, loss = model(batch["idx"], batch["targets"])
            loss = loss / len(microbatches)
            (loss / len(microbatches)).backward()  # the slip: a second ÷ A
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


SLIPS = {"clip every micro-step": (ClipEveryMicroStep, "clipping per microbatch"),
         "clip before unscale_ (fp16)": (ClipBeforeUnscale, "clipping before unscale"),
         "zero_grad every micro-step": (ZeroGradEveryMicroStep, "ineffective accumulation"),
         "loss divided twice": (DividedTwice, "double division")}


def small_gpt(seed: int = 0) -> GPT:
    """The course's nanoGPT: 2 layers of width 64 over 256 tokens, blocks of 64 (its gradient
    norm at initialization is about 1.1, so nanoGPT's ``grad_clip = 1.0`` fires)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return GPT(GPTConfig(block_size=64, vocab_size=256, n_layer=2, n_head=2, n_embd=64))


# How check_loop reads nanoGPT's batches: targets already shifted (every position is its own
# target), -1 ignored, and the optimizer nanoGPT builds.
CHECK_ARGS: dict[str, Any] = {"task": "masked", "labels": "targets", "ignore_index": -1,
                              "optimizer": configure_optimizers}


def fixed_blocks(microbatches: int, micro_batch: int, block_size: int, vocab_size: int,
                 seed: int = 0) -> list[dict[str, torch.Tensor]]:
    """nanoGPT's ``get_batch``: random windows of one token stream, targets = inputs shifted by one.

    Returns ``microbatches`` dicts ``{"idx", "targets"}`` of ``micro_batch × block_size`` int64
    tokens; every target is supervised.
    """
    g = torch.Generator().manual_seed(seed)
    data = torch.randint(vocab_size, (max(4 * block_size, 1024),), generator=g)
    out = []
    for _ in range(microbatches):
        starts = torch.randint(len(data) - block_size - 1, (micro_batch,), generator=g)
        x = torch.stack([data[s: s + block_size] for s in starts])
        y = torch.stack([data[s + 1: s + 1 + block_size] for s in starts])
        out.append({"idx": x, "targets": y})
    return out


def variable_blocks(microbatches: int, micro_batch: int, block_size: int, vocab_size: int,
                    seed: int = 0) -> list[dict[str, torch.Tensor]]:
    """Blocks whose documents end early: after each row's length the inputs are token 0 and the
    targets ``-1`` (ignored), so microbatches hold different numbers of supervised targets."""
    g = torch.Generator().manual_seed(seed + 1)
    out = []
    for mb in fixed_blocks(microbatches, micro_batch, block_size, vocab_size, seed):
        lengths = torch.randint(2, block_size + 1, (micro_batch,), generator=g)
        keep = torch.arange(block_size)[None, :] < lengths[:, None]
        out.append({"idx": mb["idx"].masked_fill(~keep, 0), "targets": mb["targets"].masked_fill(~keep, -1)})
    return out


__all__ = ["CHECK_ARGS", "SLIPS", "small_gpt", "ClipBeforeUnscale", "ClipEveryMicroStep", "DividedTwice", "GPT", "GPTConfig", "NanoGPTStep",
           "Wrapped", "ZeroGradEveryMicroStep", "through_gpt", "configure_optimizers", "default_dtype", "fixed_blocks", "train_step_like_nanogpt",
           "variable_blocks"]

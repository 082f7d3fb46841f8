"""What a measurement runs: a model (a module, or a registered workload built wide enough to
show in process memory), synthetic microbatches of a chosen size and an optimizer by name
.
"""

from __future__ import annotations

import torch
from torch import nn

from gastudy.core.data import Batch
from gastudy.core.workloads import Workload, workload


def synthetic_microbatches(model: nn.Module, micro_batch: int, count: int = 1, seq_len: int = 32,
                           seed: int = 0) -> list[Batch]:
    """``count`` fixed-size microbatches of ``micro_batch`` samples for a course model.

    Fixed size keeps activation bytes exactly proportional to m (variable-length data adds
    padding noise). TinyGPT-like models (``config`` with ``vocab_size``): random tokens of
    length ``seq_len``, every next token supervised. MLPs: random inputs and class labels.
    The samples depend only on ``seed`` and m × count, so every m×A split of the same total
    sees the same samples. Raises ``ValueError``/``TypeError`` with what to do otherwise.
    """
    if micro_batch < 1 or count < 1:
        raise ValueError(f"micro_batch and count must be ≥ 1, got {micro_batch} and {count}")
    g = torch.Generator().manual_seed(seed)
    n = micro_batch * count
    ids = torch.arange(n)
    config = getattr(model, "config", None)
    if isinstance(config, dict) and "vocab_size" in config:
        if seq_len > config.get("max_len", seq_len):
            raise ValueError(f"seq_len={seq_len} exceeds the model's max_len={config['max_len']}; "
                             "build the model with a larger max_len or use a shorter seq_len")
        tokens = torch.randint(0, config["vocab_size"], (n, seq_len), generator=g)
        batches = [{"input_ids": tokens[s], "attention_mask": torch.ones_like(tokens[s]),
                    "labels": tokens[s].clone(), "sample_ids": ids[s]}
                   for s in (slice(i * micro_batch, (i + 1) * micro_batch) for i in range(count))]
        return batches
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    if not linears:
        raise TypeError(f"cannot invent inputs for {type(model).__name__}: pass your own microbatches")
    x = torch.randn(n, linears[0].in_features, generator=g)
    y = torch.randint(0, linears[-1].out_features, (n,), generator=g)
    return [{"inputs": x[s], "labels": y[s], "sample_ids": ids[s]}
            for s in (slice(i * micro_batch, (i + 1) * micro_batch) for i in range(count))]



def build_for_measurement(model: str | Workload | nn.Module, device: str | torch.device = "cpu", seed: int = 0,
                          model_kwargs: dict | None = None) -> nn.Module:
    """The module given, or a registered workload's model built from ``seed`` with
    ``model_kwargs`` (default: its ``measure_kwargs``, wide enough to show in process memory),
    on ``device`` and in training mode."""
    if isinstance(model, (str, Workload)):
        work = workload(model)
        model = work.build(seed=seed, **(model_kwargs if model_kwargs is not None else work.measure_kwargs))
    return model.to(device).train()



def make_optimizer(name: str, model: nn.Module, lr: float = 1e-3) -> torch.optim.Optimizer:
    """``adamw`` (two state tensors per parameter), ``sgd-momentum`` (one) or ``sgd`` (none).

 Raises ``ValueError`` otherwise.
    """
    params = model.parameters()
    makers = {"adamw": lambda: torch.optim.AdamW(params, lr=lr),
              "sgd-momentum": lambda: torch.optim.SGD(params, lr=lr, momentum=0.9),
              "sgd": lambda: torch.optim.SGD(params, lr=lr)}
    if name not in makers:
        raise ValueError(f"unknown optimizer {name!r}; use one of {', '.join(makers)}")
    return makers[name]()


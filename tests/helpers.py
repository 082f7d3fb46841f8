"""Small builders shared by the core tests (not a test module)."""

from __future__ import annotations

import socket

import torch

from gastudy.core.data import MicrobatchStream
from gastudy.core.groups import build_group
from gastudy.course.datasets import AdditionDataset
from gastudy.course.models import build_model


def tiny_gpt(dtype=torch.float64, seed=0):
    return build_model("tiny-gpt", seed=seed, dtype=dtype, hidden=16, layers=2, heads=2)


def addition_microbatches(n_samples, micro_batch, collate="padded", seed=0, supervise="answer"):
    ds = AdditionDataset(n_samples, seed=seed, supervise=supervise)
    return list(MicrobatchStream(ds, micro_batch, collate=collate, seed=seed).microbatches())


def grads(model):
    return {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.grad is not None}


def group_of(microbatches, accumulation_steps=None, task="causal"):
    return build_group(0, microbatches, accumulation_steps or len(microbatches), task)


def readme_code(section: str) -> str:
    """The ```python blocks of README.md's ``section`` (a "## …" heading), joined: what a test executes."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert section in text, f"README.md has no section {section!r}"
    blocks = re.findall(r"```python\n(.*?)```", text.split(section, 1)[1].split("\n## ", 1)[0], flags=re.S)
    assert blocks, f"README section {section!r} has no ```python block"
    return "\n".join(blocks)


def hold_ports(ports) -> list[socket.socket]:
    """Listening sockets on 127.0.0.1 for each of ``ports`` (0: one the OS picks); a port already
    in use elsewhere is busy anyway and is skipped. The caller closes them."""
    busy = []
    for port in ports:
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
            busy.append(s)
        except OSError:
            s.close()
    return busy

"""One update of the gastudy engine vs a plain hand-written accumulation loop (issues: core, 13).

Same model, data and seed; A = 1, 4, 16 microbatches. Two models: tiny-gpt (m = 4 samples of
generated addition) and a tiny classifier (the ``mlp`` on blobs, m = 32). Plain and engine
updates alternate; prints the median time per update of each, the median per-pair ratio
engine / plain, and the engine's fixed cost per microbatch, median(engine − plain) / A in µs.
The plain loop counts the group's supervised items, then sums cross-entropy ÷ that count and
calls backward per microbatch, one step. The engine's time includes building the group
(``build_group``: counts and sample ids) and its extras: the finite check that refuses an
inf/NaN loss or gradient without a scaler (with or without clipping), the group loss it
reports, the counters. Target: ≤ 1.03× at every A, i.e. a fixed cost of ≤ 50 µs per microbatch.

    python benchmarks/bench_engine.py [--pairs 41] [--models tiny-gpt mlp] [--clock wall|cpu]

Timing on a shared machine is noisy: read the medians, run it twice; ``--clock cpu`` times the
thread's CPU time instead of elapsed time, so that waiting for the core is not counted.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator
from gastudy.core.groups import build_group
from gastudy.course.datasets import AdditionDataset, BlobDataset
from gastudy.course.models import build_model, task_of

MICRO_BATCH = {"tiny-gpt": 4, "mlp": 32}


def plain_update(model, optimizer, microbatches, task):
    """The reference loop a careful person writes by hand: count the group's supervised items,
    then per microbatch the summed cross-entropy ÷ that count, backward; one step. No extras."""
    shift = 1 if task == "causal" else 0
    items = sum(int(torch.count_nonzero(mb["labels"][..., shift:] != -100)) for mb in microbatches)
    for mb in microbatches:
        out = model(**{k: v for k, v in mb.items() if k not in ("labels", "sample_ids")})
        logits = getattr(out, "logits", out)
        if shift:
            logits = logits[..., :-1, :]
        loss_sum = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), mb["labels"][..., shift:].reshape(-1),
                                   ignore_index=-100, reduction="sum")
        (loss_sum / items).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def engine_update(engine, microbatches, task):
    engine.update(build_group(0, microbatches, len(microbatches), task))


CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}


def paired_times(plain, engine, pairs, clock=time.perf_counter):
    """Alternate one plain update and one engine update, ``pairs`` times (after a warm-up of
    each), so that machine noise hits both alike; returns the two lists of seconds."""
    plain()
    engine()
    p, e = [], []
    for _ in range(pairs):
        t = clock()
        plain()
        p.append(clock() - t)
        t = clock()
        engine()
        e.append(clock() - t)
    return p, e


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=41, help="alternating plain/engine updates per setting")
    parser.add_argument("--models", nargs="+", default=["tiny-gpt", "mlp"])
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall: elapsed time; cpu: this thread's CPU time (torch runs on one thread here), "
                             "which leaves out the time other processes hold the core on a shared machine")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"{'model':>8} {'A':>3} {'plain ms':>10} {'engine ms':>10} {'ratio':>7} {'µs/microbatch':>14}")
    for name in args.models:
        task, m = task_of(name), MICRO_BATCH.get(name, 4)
        data = AdditionDataset(16 * m, seed=0) if task == "causal" else BlobDataset(16 * m, seed=0)
        mbs_all = list(MicrobatchStream(data, m, seed=0).microbatches())
        for A in (1, 4, 16):
            mbs = mbs_all[:A]
            # interleave the two so that machine noise hits both alike
            m1, m2 = build_model(name, seed=0), build_model(name, seed=0)
            o1, o2 = torch.optim.AdamW(m1.parameters(), 1e-4), torch.optim.AdamW(m2.parameters(), 1e-4)
            eng = Accumulator(m2, o2, accumulation_steps=A, task=task)
            p, e = paired_times(lambda m=m1, o=o1, b=mbs, t=task: plain_update(m, o, b, t),
                                lambda en=eng, b=mbs, t=task: engine_update(en, b, t), args.pairs,
                                CLOCKS[args.clock])
            plain, engine = statistics.median(p), statistics.median(e)
            ratio = statistics.median(b / a for a, b in zip(p, e))  # per pair: robust to load swings
            extra = statistics.median(b - a for a, b in zip(p, e)) / A
            print(f"{name:>8} {A:>3} {plain * 1e3:>10.2f} {engine * 1e3:>10.2f} {ratio:>6.3f}× {extra * 1e6:>13.0f}")


if __name__ == "__main__":
    main()

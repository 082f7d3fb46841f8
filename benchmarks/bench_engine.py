"""One update of the gastudy engine vs a plain hand-written accumulation loop (issue: core).

Same model, data and seed; A = 1, 4, 16 microbatches of m = 4. Prints the median time per
update over repeated runs and the ratio engine / plain. Target: ≤ 1.05×.

    python benchmarks/bench_engine.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from gastudy import Accumulator, AdditionDataset, MicrobatchStream, build_group, build_model
from gastudy.core.loss import summed_loss


def plain_update(model, optimizer, microbatches):
    """The reference loop a careful person writes by hand (token-normalized, no extras)."""
    items = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches:
        loss_sum, _ = summed_loss(model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]), mb)
        (loss_sum / items).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def engine_update(engine, microbatches):
    engine.update(build_group(0, microbatches, len(microbatches)))


def time_it(fn, repeats):
    fn()  # warm-up
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--micro-batch", type=int, default=4)
    args = parser.parse_args()
    torch.set_num_threads(1)
    data = AdditionDataset(16 * args.micro_batch, seed=0)
    mbs_all = list(MicrobatchStream(data, args.micro_batch, seed=0).microbatches())
    print(f"{'A':>3} {'plain ms':>10} {'engine ms':>10} {'ratio':>7}")
    for A in (1, 4, 16):
        mbs = mbs_all[:A]
        # interleave the two so that machine noise hits both alike
        m1, m2 = build_model("tiny-gpt", seed=0), build_model("tiny-gpt", seed=0)
        o1, o2 = torch.optim.AdamW(m1.parameters(), 1e-4), torch.optim.AdamW(m2.parameters(), 1e-4)
        eng = Accumulator(m2, o2, accumulation_steps=A)
        p, e = [], []
        for _ in range(3):
            p.append(time_it(lambda m=m1, o=o1, b=mbs: plain_update(m, o, b), args.repeats))
            e.append(time_it(lambda en=eng, b=mbs: engine_update(en, b), args.repeats))
        times = (statistics.median(p), statistics.median(e))
        print(f"{A:>3} {times[0] * 1e3:>10.2f} {times[1] * 1e3:>10.2f} {times[1] / times[0]:>6.3f}×")


if __name__ == "__main__":
    main()

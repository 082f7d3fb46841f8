"""Benchmark: what checkpointing (per n, with offload on CUDA) and accumulation cost and save.

Prints, side by side and as ratios:

1. Checkpointing off and every n = 1, 2, 4 layers (plus offload on CUDA): activation bytes
   saved for backward per microbatch, time per update, peak (CK-2, CK-3, CK-4).
2. One effective batch of 16 split as m × A = 1×16, 8×2, 16×1: time per update, samples/s,
   saved bytes per microbatch (GA-1, GA-2). The 16×1 vs 2-sample activation ratio is ≈ 8×.

Usage: ``python benchmarks/bench_checkpointing.py [--device cuda] [--repeats 5] [--json]``.
Runs in well under a minute on a CPU. Numbers are this machine's; read the ratios.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import torch  # noqa: E402

from gastudy.course.models import build_model  # noqa: E402
from gastudy.memory.saved import format_bytes, saved_bytes
from gastudy.memory.timing import RunTiming, compare_checkpointing, compare_layouts  # noqa: E402
from gastudy.memory.workload import synthetic_microbatches  # noqa: E402


def table(runs: list[RunTiming], base: RunTiming) -> list[dict]:
    rows = []
    for r in runs:
        rows.append({"config": r.label, "saved": r.saved_bytes, "saved_ratio": r.saved_bytes / base.saved_bytes,
                     "time_s": r.timing.median_s, "time_ratio": r.timing.median_s / base.timing.median_s,
                     "spread": r.timing.spread, "samples_per_s": r.timing.samples_per_s,
                     "tokens_per_s": r.timing.tokens_per_s, "peak": r.peak_bytes})
        print(f"  {r.label:<26} saved {format_bytes(r.saved_bytes):>10} (×{rows[-1]['saved_ratio']:.3f})  "
              f"update {r.timing.median_s * 1e3:8.1f} ms (×{rows[-1]['time_ratio']:.2f}, spread "
              f"{r.timing.spread:.0%})  {r.timing.samples_per_s:8.1f} samples/s  peak {format_bytes(r.peak_bytes)}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = parser.parse_args()
    torch.set_num_threads(1)  # one thread: stable ratios on a shared machine (no spin contention)
    kw = dict(model="tiny-gpt", device=args.device, seq_len=args.seq_len, repeats=args.repeats, warmup=1,
              model_kwargs={"hidden": args.hidden, "layers": args.layers, "heads": 4,
                            "max_len": max(64, args.seq_len)})
    t0 = time.perf_counter()
    out: dict = {"device": args.device, "config": {k: v for k, v in kw.items() if k != "model"}}
    print(f"tiny-gpt hidden={args.hidden} layers={args.layers} seq={args.seq_len} on {args.device}; "
          f"median of {args.repeats} updates")

    print("\n1. checkpointing (m=16, A=1); ratios vs off")
    runs = compare_checkpointing((None, 1, 2, 4), micro_batch=16, accumulation_steps=1, **kw)
    if args.device.startswith("cuda"):
        runs += compare_checkpointing((1, 2, 4), offload=True, micro_batch=16, accumulation_steps=1, **kw)
    else:
        print("  (offload skipped: on the CPU the activations are already in host memory, nothing to move)")
    out["checkpointing"] = table(runs, runs[0])

    print("\n2. one effective batch of 16 as m×A; ratios vs 16×1 (one real batch)")
    layouts = compare_layouts([(16, 1), (8, 2), (1, 16)], **kw)
    out["layouts"] = table(layouts, layouts[0])

    net = build_model("tiny-gpt", **kw["model_kwargs"]).to(args.device).train()
    big = saved_bytes(net, synthetic_microbatches(net, 16, 1, args.seq_len)[0]).total
    small = saved_bytes(net, synthetic_microbatches(net, 2, 8, args.seq_len)[0]).total
    out["ratio_16_vs_2"] = big / small
    print(f"\n3. activation bytes, m×A=16 as one batch vs m=2: {format_bytes(big)} / {format_bytes(small)} "
          f"= ×{big / small:.2f} (expect ≈ 8)")
    slowest = max(layouts, key=lambda r: r.timing.median_s)
    print(f"   accumulation is not faster: {slowest.label} takes ×"
          f"{slowest.timing.median_s / layouts[0].timing.median_s:.2f} the time of one 16-sample batch")
    print(f"\ntotal {time.perf_counter() - t0:.1f} s")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

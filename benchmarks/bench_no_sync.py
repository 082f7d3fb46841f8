"""Benchmark: gradient all-reduces and time per update with and without ``no_sync`` (MB-7).

Two local processes (DDP, gloo on loopback) run the engine at A = 1, 4, 8 microbatches per
update, once with ``no_sync`` on every microbatch but the last and once communicating after
every microbatch. A comm hook counts the all-reduce calls and bytes. Prints per A:

- all-reduce calls per update with / without ``no_sync`` and their ratio (target: one call
  per bucket per update with ``no_sync``, A× as many without);
- seconds per update with / without and the time ratio (how much the extra traffic costs
  here; on loopback with a small model it is modest, on a real network it is not).

Usage: ``python benchmarks/bench_no_sync.py [--replicas 2] [--updates 4] [--hidden 128] [--json]``.
Takes well under a minute on two CPU cores. Numbers are this machine's; read the ratios.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from gastudy.course.demos.ddp import count_allreduces_worker  # noqa: E402
from gastudy.parallel.launch import run_local  # noqa: E402

ACCUMULATION_STEPS = (1, 4, 8)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--updates", type=int, default=4, help="timed updates per setting (after one warm-up)")
    parser.add_argument("--micro-batch", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=128, help="tiny-gpt width (gradient size grows as hidden²)")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = parser.parse_args()
    settings = [(A, no_sync) for A in ACCUMULATION_STEPS for no_sync in (True, False)]
    model_kwargs = {"hidden": args.hidden, "layers": args.layers, "heads": 4}
    ranks = run_local(count_allreduces_worker, args.replicas, settings, updates=args.updates,
                      micro_batch=args.micro_batch, model_kwargs=model_kwargs, timeout=600)
    rows = {(r["accumulation_steps"], r["no_sync"]): r for r in ranks[0]}
    grad = ranks[0][0]["gradient_bytes"]
    print(f"tiny-gpt hidden={args.hidden} layers={args.layers}: {grad / 2**20:.2f} MiB of gradients; "
          f"D={args.replicas} processes (gloo), m={args.micro_batch}, mean of {args.updates} updates")
    print(f"{'A':>3} | {'calls/update':>21} | {'ratio':>5} | {'MiB sent/update':>19} | {'s/update':>19} | {'ratio':>5}")
    print(f"{'':>3} | {'no_sync':>10} {'every':>10} | {'':>5} | {'no_sync':>9} {'every':>9} | "
          f"{'no_sync':>9} {'every':>9} | {'':>5}")
    out = []
    for A in ACCUMULATION_STEPS:
        on, off = rows[(A, True)], rows[(A, False)]
        calls = off["calls_per_update"] / on["calls_per_update"]
        time_ratio = off["seconds_per_update"] / on["seconds_per_update"]
        print(f"{A:>3} | {on['calls_per_update']:>10.1f} {off['calls_per_update']:>10.1f} | {calls:>5.1f} | "
              f"{on['bytes_per_update'] / 2**20:>9.2f} {off['bytes_per_update'] / 2**20:>9.2f} | "
              f"{on['seconds_per_update']:>9.4f} {off['seconds_per_update']:>9.4f} | {time_ratio:>5.2f}")
        out.append({"accumulation_steps": A, "no_sync": on, "every_microbatch": off, "calls_ratio": calls,
                    "time_ratio": time_ratio})
    one_per_bucket = all(rows[(A, True)]["calls_per_update"] == rows[(1, True)]["calls_per_update"]
                         for A in ACCUMULATION_STEPS)
    print("target: one all-reduce per bucket per update with no_sync —", "met" if one_per_bucket else "NOT met")
    if args.json:
        print(json.dumps({"replicas": args.replicas, "rows": out, "one_per_bucket": one_per_bucket}))
    return 0 if one_per_bucket else 1


if __name__ == "__main__":
    sys.exit(main())

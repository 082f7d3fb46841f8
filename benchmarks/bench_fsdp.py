"""Benchmark: accumulation on DDP vs sharded data parallel (FSDP2), deferred vs every-microbatch sync (MB-7).

Two local processes (gloo on loopback) run the engine at A = 1, 4, 8 microbatches per update
with three back-ends: DDP with ``no_sync``; FSDP2 ``fully_shard`` with the gradient sync
deferred to the last microbatch; FSDP2 reduce-scattering after every microbatch. Prints per
A, for each back-end, and as ratios to DDP:

- gradient reductions per update (DDP all-reduces per bucket, FSDP2 reduce-scatters per
  sharded module) and FSDP2's all-gathers (target: deferred = one reduce-scatter per module
  per update, every = A of them);
- peak gradient bytes one replica held during a group (target: deferred ≈ DDP's whole
  gradient, every ≈ 1/D of it; ``param.grad`` and FSDP2's unsharded accumulators, without the
  communication buffers — DDP's buckets are one more whole copy);
- seconds per update (how much the extra traffic and the re-gathers cost here; on loopback
  with a small model the gathers dominate, on a real network and a big model the trade-off
  differs — read the ratios, not the seconds).

Usage: ``python benchmarks/bench_fsdp.py [--replicas 2] [--updates 3] [--hidden 128] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from gastudy.course.demos.fsdp import BACKENDS, measure_sharded_worker  # noqa: E402
from gastudy.parallel.launch import run_local  # noqa: E402

ACCUMULATION_STEPS = (1, 4, 8)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--updates", type=int, default=3, help="timed updates per setting (after one warm-up)")
    parser.add_argument("--micro-batch", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=128, help="tiny-gpt width (gradient size grows as hidden²)")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = parser.parse_args()
    settings = [(backend, A) for A in ACCUMULATION_STEPS for backend in BACKENDS]
    model_kwargs = {"hidden": args.hidden, "layers": args.layers, "heads": 4}
    ranks = run_local(measure_sharded_worker, args.replicas, settings, updates=args.updates,
                      micro_batch=args.micro_batch, model_kwargs=model_kwargs, timeout=600)
    rows = {(r["backend"], r["accumulation_steps"]): r for r in ranks[0]}
    full = ranks[0][0]["unsharded_gradient_bytes"]
    print(f"tiny-gpt hidden={args.hidden} layers={args.layers}: {full / 2**20:.2f} MiB of fp32 gradients; "
          f"D={args.replicas} processes (gloo), m={args.micro_batch}, mean of {args.updates} updates")
    print(f"{'A':>2} {'back-end':>9} | {'reductions':>10} {'gathers':>7} | {'peak grad MiB':>13} | {'s/update':>8} | "
          f"ratio to DDP: {'reductions':>10} {'grad bytes':>10} {'time':>6}")
    out = []
    for A in ACCUMULATION_STEPS:
        ddp = rows[("ddp", A)]
        for backend in BACKENDS:
            r = rows[(backend, A)]
            ratios = {k: r[k] / ddp[k] for k in ("reductions_per_update", "peak_gradient_bytes", "seconds_per_update")}
            print(f"{A:>2} {backend:>9} | {r['reductions_per_update']:>10.1f} {r['all_gathers_per_update']:>7.1f} | "
                  f"{r['peak_gradient_bytes'] / 2**20:>13.3f} | {r['seconds_per_update']:>8.4f} | "
                  f"{'':>13} {ratios['reductions_per_update']:>10.2f} {ratios['peak_gradient_bytes']:>10.2f} "
                  f"{ratios['seconds_per_update']:>6.2f}")
            out.append({**r, "ratios_to_ddp": ratios})
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

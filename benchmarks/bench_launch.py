"""Benchmark: the launch overhead of one local multi-process run (MB-7).

``run_local(fn, D)`` of a function that does one all-reduce and returns its rank: process
start, ``import torch``, the rendezvous, the process group, the result back, the teardown.
Nothing else runs, so the time is the price every ``gastudy verify --replicas D`` /
``gastudy train --replicas D`` pays before its first update. Prints, over ``--repeats`` runs,
the median and best wall time and the median CPU seconds of the workers (user + system, the
part machine load does not inflate), next to the numbers measured with the home-made launcher
this one replaced.

Reading the wall times on a shared machine: with the kernel's autogroup scheduling (on by
default on desktop Linux), CPU is shared fairly between *sessions*. The old launcher started
each worker in a new session, so on a machine busy with other jobs its workers got a larger
share while importing torch; these workers start in the caller's session (they move to their
own once they run). On an idle machine the two start equally fast: compare the CPU seconds.

    python benchmarks/bench_launch.py [--replicas 2] [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

# Measured with the previous launcher (subprocess per rank, result files, its own free port), D=2,
# 3 runs on the idle 2-core machine (load ~1), right before this launcher measured 3.66 s median /
# 3.45 s best / 5.97 s CPU there: old 3.60 / 3.49 / 3.44 s, workers' CPU 6.93 / 6.87 / 6.25 s.
# (Under load 7–10, alternating run by run, the old one took 7.8–13.0 s and this one 18.5–34.7 s:
# see the note on autogroup scheduling above.)
BEFORE = {"launcher": "home-made (subprocess + result files), commit a84e718", "median_s": 3.49, "best_s": 3.44,
          "worker_cpu_s": 6.87}


def allreduce_worker() -> int:
    """One all-reduce of a one-element tensor in the run's process group; returns the rank."""
    import torch
    import torch.distributed as dist

    t = torch.ones(1)
    dist.all_reduce(t)
    assert int(t.item()) == dist.get_world_size()
    return dist.get_rank()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    args = parser.parse_args()
    from gastudy.parallel.launch import run_local

    worker = allreduce_worker  # defined in this script: spawned workers import it again (__main__ idiom)
    seconds, cpu = [], []
    for _ in range(args.repeats):
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        ranks = run_local(worker, args.replicas)
        seconds.append(time.perf_counter() - t)
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
        assert ranks == list(range(args.replicas)), ranks
    now = {"median_s": round(statistics.median(seconds), 2), "best_s": round(min(seconds), 2),
           "worker_cpu_s": round(statistics.median(cpu), 2)}
    print(f"launch overhead, D={args.replicas}, {args.repeats} runs (seconds per run, one all-reduce each)")
    print(f"{'launcher':<58} {'median':>7} {'best':>7} {'CPU':>7}")
    print(f"{BEFORE['launcher']:<58} {BEFORE['median_s']:>7.2f} {BEFORE['best_s']:>7.2f} "
          f"{BEFORE['worker_cpu_s']:>7.2f}")
    print(f"{'now: PyTorch elastic_launch (' + run_local.__module__ + ')':<58} {now['median_s']:>7.2f} "
          f"{now['best_s']:>7.2f} {now['worker_cpu_s']:>7.2f}")
    if args.json:
        print(json.dumps({"replicas": args.replicas, "before": BEFORE, "now": now, "runs_s": seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

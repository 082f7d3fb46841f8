"""What ``check_loop`` costs next to the update it checks: time and peak memory.

For each model, in fresh processes (so one measurement's allocator state does not feed the next):

- ``plain``: one accumulated update of nanoGPT's loop (``gastudy.course.nanogpt.NanoGPTStep``,
  AdamW as nanoGPT builds it) on a copy of the model — what the user runs;
- ``check``: ``gastudy.check_loop`` of the same loop, model and microbatches (``diagnose=False``:
  the verdict without the detectors, which only run when something is wrong).

Peak memory is the process's peak resident set above what it held with the model built and one
warm-up update done (Linux: ``VmHWM`` after resetting it through ``/proc/self/clear_refs``). Run from the repository root::

    python benchmarks/bench_check_loop.py                # tiny-gpt-sized and GPT-2-small-sized
    python benchmarks/bench_check_loop.py --models small --repeats 1

Target: the check ≤ 4× the time and ≤ 3× the peak memory of the update it checks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

MODELS = {  # name: (GPTConfig fields, micro_batch, accumulation_steps)
    "tiny": ({"block_size": 64, "vocab_size": 256, "n_layer": 2, "n_head": 2, "n_embd": 64}, 2, 4),
    "small": ({"block_size": 128, "vocab_size": 50304, "n_layer": 12, "n_head": 12, "n_embd": 768}, 1, 4),
}


def _peak_reset() -> int:
    Path("/proc/self/clear_refs").write_text("5")
    return _rss("VmRSS")


def _rss(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def measure(model_name: str, what: str) -> dict:
    """One measurement in this process: seconds and peak bytes above the model."""
    import copy

    import torch

    from gastudy import check_loop
    from gastudy.course.nanogpt import (
        GPT,
        GPTConfig,
        NanoGPTStep,
        configure_optimizers,
        fixed_blocks,
    )

    torch.set_num_threads(2)
    fields, m, A = MODELS[model_name]
    torch.manual_seed(0)
    model = GPT(GPTConfig(**fields))
    batches = fixed_blocks(A, m, fields["block_size"], fields["vocab_size"])
    step = NanoGPTStep("float32", 1.0)
    warm = copy.deepcopy(model)  # one update first: torch's first-call costs are not the check's
    step(warm, configure_optimizers(warm), batches)
    del warm
    base = _peak_reset()
    start = time.perf_counter()
    if what == "plain":
        mine = copy.deepcopy(model)
        step(mine, configure_optimizers(mine), batches)
        verdict = None
    else:
        report = check_loop(step, model, batches, task="masked", labels="targets", ignore_index=-1,
                            optimizer=configure_optimizers, diagnose=False)
        verdict = report.passed
    seconds = time.perf_counter() - start
    return {"model": model_name, "what": what, "seconds": seconds, "peak_bytes": _rss("VmHWM") - base,
            "parameters": sum(p.numel() for p in model.parameters()), "passed": verdict}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", nargs=2, metavar=("MODEL", "WHAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one)))
        return
    print("| model | parameters | update (s) | check (s) | time ratio | update peak (MB) | check peak (MB) | memory ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.models:
        runs: dict[str, list[dict]] = {"plain": [], "check": []}
        for _ in range(args.repeats):
            for what in ("plain", "check"):  # alternating: drift of the machine hits both
                out = subprocess.run([sys.executable, __file__, "--one", name, what], capture_output=True, text=True,
                                     check=True)
                runs[what].append(json.loads(out.stdout.strip().splitlines()[-1]))
        t = {w: statistics.median(r["seconds"] for r in runs[w]) for w in runs}
        mem = {w: statistics.median(r["peak_bytes"] for r in runs[w]) for w in runs}
        assert all(r["passed"] for r in runs["check"]), "the check must pass nanoGPT's own loop"
        ratio = f"{mem['check'] / mem['plain']:.2f}×" if mem["plain"] > 50e6 else "— (within the warm-up's memory)"
        print(f"| {name} | {runs['plain'][0]['parameters']:,} | {t['plain']:.2f} | {t['check']:.2f} | "
              f"{t['check'] / t['plain']:.2f}× | {mem['plain'] / 1e6:.0f} | {mem['check'] / 1e6:.0f} | {ratio} |",
              flush=True)


if __name__ == "__main__":
    main()

"""What ``check_loop`` costs next to the update it checks: time and peak memory.

For each model, in fresh processes (so one measurement's allocator state does not feed the next):

- ``plain``: one accumulated update of nanoGPT's loop (``gastudy.course.nanogpt.NanoGPTStep``,
  AdamW as nanoGPT builds it) on a copy of the model — what the user runs;
- ``check``: ``gastudy.check_loop`` of the same loop, model and microbatches, as a user calls it
  (its defaults: the verdict, the rest of the update checked — gradients zeroed, memory that
  does not grow —, the processes it started stopped).

Time is the process's CPU seconds for the measured call (less sensitive than wall seconds to a
busy machine; both are printed). Peak memory is the process's peak resident set above what it
held with the model and its microbatches built and one update of a one-layer model of the same
kind done (torch's first-call costs; Linux: ``VmHWM`` after resetting it through
``/proc/self/clear_refs``): for the update, the model's copy, AdamW's state, the gradients and the
activations; for the check, whatever it holds at its peak. Run from the repository root::

    python benchmarks/bench_check_loop.py                # the 10 M-parameter target, and tiny
    python benchmarks/bench_check_loop.py --models small --repeats 1   # GPT-2-small-sized

Target (the 10 M-parameter model, float32, nanoGPT's loop with AdamW and clip 1.0): the check
≤ 3× the time and ≤ 2× the peak memory of the update it checks.
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
    "10m": ({"block_size": 128, "vocab_size": 4096, "n_layer": 5, "n_head": 6, "n_embd": 384}, 4, 4),
    "tiny": ({"block_size": 64, "vocab_size": 256, "n_layer": 2, "n_head": 2, "n_embd": 64}, 2, 4),
    "small": ({"block_size": 128, "vocab_size": 50304, "n_layer": 12, "n_head": 12, "n_embd": 768}, 1, 4),
}
TARGET = {"model": "10m", "time": 3.0, "memory": 2.0}


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
    # one update of a small model of the same kind first: torch's first-call costs (its kernels,
    # its thread pool) are not the check's; a small one, so that the allocator keeps no big blocks
    # a measured update could reuse
    small = GPT(GPTConfig(**{**fields, "n_layer": 1, "n_embd": 32, "n_head": 2}))
    step(small, configure_optimizers(small), fixed_blocks(A, m, fields["block_size"], fields["vocab_size"]))
    del small
    base = _peak_reset()
    start, cpu = time.perf_counter(), time.process_time()
    if what == "plain":
        mine = copy.deepcopy(model)
        step(mine, configure_optimizers(mine), batches)
        verdict = None
    else:
        report = check_loop(step, model, batches, task="masked", labels="targets", ignore_index=-1,
                            optimizer=configure_optimizers)
        verdict = report.passed
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"model": model_name, "what": what, "seconds": seconds, "cpu_seconds": cpu,
            "peak_bytes": _rss("VmHWM") - base, "parameters": sum(p.numel() for p in model.parameters()),
            "passed": verdict}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["10m", "tiny"], choices=list(MODELS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", nargs=2, metavar=("MODEL", "WHAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one)))
        return
    print("| model | parameters | update CPU s (wall) | check CPU s (wall) | time ratio | update peak (MB) | "
          "check peak (MB) | memory ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.models:
        runs: dict[str, list[dict]] = {"plain": [], "check": []}
        for _ in range(args.repeats):
            for what in ("plain", "check"):  # alternating: drift of the machine hits both
                out = subprocess.run([sys.executable, __file__, "--one", name, what], capture_output=True, text=True,
                                     check=True)
                runs[what].append(json.loads(out.stdout.strip().splitlines()[-1]))
        t = {w: statistics.median(r["cpu_seconds"] for r in runs[w]) for w in runs}
        wall = {w: statistics.median(r["seconds"] for r in runs[w]) for w in runs}
        mem = {w: statistics.median(r["peak_bytes"] for r in runs[w]) for w in runs}
        assert all(r["passed"] for r in runs["check"]), "the check must pass nanoGPT's own loop"
        time_ratio, memory_ratio = t["check"] / t["plain"], mem["check"] / mem["plain"]
        ratio = f"{memory_ratio:.2f}×" if mem["plain"] > 50e6 else "— (within the warm-up's memory)"
        print(f"| {name} | {runs['plain'][0]['parameters']:,} | {t['plain']:.2f} ({wall['plain']:.2f}) | "
              f"{t['check']:.2f} ({wall['check']:.2f}) | {time_ratio:.2f}× | {mem['plain'] / 1e6:.0f} | "
              f"{mem['check'] / 1e6:.0f} | {ratio} |", flush=True)
        if name == TARGET["model"]:
            met = time_ratio <= TARGET["time"] and memory_ratio <= TARGET["memory"]
            print(f"target ({name}: ≤ {TARGET['time']:g}× time, ≤ {TARGET['memory']:g}× memory): "
                  f"{'met' if met else 'NOT met'} ({time_ratio:.2f}×, {memory_ratio:.2f}×)", flush=True)


if __name__ == "__main__":
    main()

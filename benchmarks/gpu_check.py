"""GPU check: exercise every CUDA path of checkpointing, offload and the memory/timing probes.

Prints, on one CUDA device, in under 3 minutes:

1. gradient equality with checkpointing n = 1, 2, 4, with and without offload (CK-3, CK-4);
2. the per-device probes (CPU process memory and the CUDA allocator);
3. device peak, saved bytes and time per update for checkpointing off and n = 1, 2, 4, with
   and without offload, as ratios (CK-2 … CK-4);
4. the allocator phase timeline of three groups: baseline, forwards, backwards, first update,
   steady state (MB-9);
5. the CK-4 formula (layers × sequence × hidden × bytes) against the measured device bytes,
   with and without offload;
6. time per update for one effective batch of 16 as 16×1, 8×2, 1×16 (GA-2);
7. the planner with a real budget (MB-9);
8. make it fit (chapter 13): the ladder of settings under a budget the plain m = 16 misses by
   10 % — offload is one of its rungs on CUDA — and one update verified under the choice;
9. data parallel on nccl, one rank per GPU: DDP vs FSDP2 deferred vs every at A = 4 —
   reductions per update, peak gradient bytes per replica, seconds (MB-7). It needs at least
   two GPUs (nccl refuses two ranks on one device); with fewer it says so and is skipped;
10. ``check_loop`` on the device: nanoGPT's micro-step loop in float32, bf16 autocast and fp16
    autocast with a GradScaler, called on the model and on a submodule, and Accelerate's
    ``mixed_precision="bf16"`` / ``"fp16"`` (on CUDA its fp16 is autocast with a scaler; on the
    CPU Accelerate turns fp16 off) — the precision each is judged in, and its verdict (MB-10).

Without CUDA it prints why and exits 0. ``--device cpu`` runs the same code on the CPU with a
small model as a dry run of the script itself (offload then has nothing to move).
``--out FILE`` also writes every result as JSON. ``--notebooks`` also executes chapters 08, 09
and 13 (08 and 09 in Turkish too) under nbval — on a GPU, the cells a CPU run never takes.

The prepared command for a machine with one CUDA device, from a fresh clone::

    python3 dev.py test -q tests/test_gpu_branches.py && \
    .venv/bin/python benchmarks/gpu_check.py --notebooks --out gpu_check.json
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import torch  # noqa: E402

from gastudy.check.verify import verify_fit  # noqa: E402
from gastudy.core.checkpointing import enable_checkpointing  # noqa: E402
from gastudy.course.models import build_model  # noqa: E402
from gastudy.memory.fit import fit_to_budget  # noqa: E402
from gastudy.memory.planner import (
    measure_peak,
    plan_for_budget,  # noqa: E402
)
from gastudy.memory.probes import device_probes  # noqa: E402
from gastudy.memory.saved import format_bytes, formula_check
from gastudy.memory.timeline import phase_timeline
from gastudy.memory.timing import compare_checkpointing, compare_layouts  # noqa: E402
from gastudy.memory.workload import synthetic_microbatches

BIG = {"hidden": 1024, "layers": 8, "heads": 16, "max_len": 512}  # ~100M parameters
SMALL = {"hidden": 64, "layers": 4, "heads": 4, "max_len": 64}


def section(title: str, results: dict, key: str, budget_s: float, started: float):
    """Decorator-like runner: time a section, keep going after a failure, respect the time budget."""

    def run(fn):
        if time.perf_counter() - started > budget_s:
            print(f"\n== {title}: skipped (time budget of {budget_s:.0f} s used)")
            results[key] = {"skipped": True}
            return
        print(f"\n== {title}")
        t0 = time.perf_counter()
        try:
            results[key] = fn()
        except Exception as err:  # report and continue: one broken path must not hide the others
            traceback.print_exc()
            results[key] = {"error": f"{type(err).__name__}: {err}"}
        print(f"   ({time.perf_counter() - t0:.1f} s)")

    return run


def gradients(device: str, kw: dict) -> dict:
    ref = build_model("tiny-gpt", **kw).to(device).train()
    batch = synthetic_microbatches(ref, 4, 1, kw["max_len"] // 2)[0]
    ids = batch["input_ids"].to(device)

    def grads(model):
        model.zero_grad(set_to_none=True)
        logits = model(ids).logits
        torch.nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), ids[:, 1:].flatten()).backward()
        return [p.grad.clone() for p in model.parameters()]

    expected = grads(ref)
    out = {}
    for offload in (False, True):
        for n in (1, 2, 4):
            model = copy.deepcopy(ref)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                state = enable_checkpointing(model, n, offload=offload)
            diff = max(float((g - e).abs().max()) for g, e in zip(grads(model), expected))
            out[f"n={n}{' offload' if offload else ''}"] = diff
            print(f"   n={n} offload={offload!s:<5} layers {state.layers}: max |Δgrad| = {diff:.2e} "
                  f"{'OK' if diff < 1e-5 else 'MISMATCH'}")
    return out


def probes() -> dict:
    out = {}
    for name, p in device_probes().items():
        out[name] = {"kind": p.kind, "current": p.current_bytes(), "peak": p.peak_bytes(), "note": p.note}
        print(f"   {name:<7} {p.kind:<22} current {format_bytes(out[name]['current']):>10}  "
              f"peak {format_bytes(out[name]['peak']):>10}  ({p.note})")
    return out


def print_runs(runs) -> list[dict]:
    base = runs[0]
    rows = []
    for r in runs:
        rows.append(r.to_dict())
        print(f"   {r.label:<26} saved {format_bytes(r.saved_bytes):>10} (×{r.saved_bytes / base.saved_bytes:.3f})  "
              f"peak {format_bytes(r.peak_bytes):>10} (×{r.peak_bytes / max(base.peak_bytes, 1):.2f})  "
              f"{r.timing.median_s * 1e3:8.2f} ms/update (×{r.timing.median_s / base.timing.median_s:.2f}, "
              f"spread {r.timing.spread:.0%})  {r.timing.tokens_per_s:,.0f} tokens/s")
    return rows


def checkpoint_costs(device: str, kw: dict, seq: int, m: int, repeats: int) -> dict:
    common = dict(device=device, seq_len=seq, model_kwargs=kw, micro_batch=m, accumulation_steps=1,
                  repeats=repeats, warmup=1)
    runs = compare_checkpointing((None, 1, 2, 4), **common) + compare_checkpointing((1, 2, 4), offload=True, **common)
    rows = print_runs(runs)
    by = {r.label: r for r in runs}
    for n in (1, 2, 4):
        a, b = by[f"{m}×1 ckpt n={n}"], by[f"{m}×1 ckpt n={n} offload"]
        print(f"   offload at n={n}: peak ×{b.peak_bytes / max(a.peak_bytes, 1):.2f}, "
              f"time ×{b.timing.median_s / a.timing.median_s:.2f} vs checkpointing alone")
    return {"runs": rows}


def timeline(device: str, kw: dict, seq: int, m: int) -> dict:
    out = {}
    for n, offload in [(None, False), (1, False), (1, True)]:
        tl = phase_timeline("tiny-gpt", m, 2, 3, n, offload, device, seq_len=seq, model_kwargs=kw)
        label = f"ckpt {'off' if n is None else f'n={n}'}{' offload' if offload else ''}"
        print(f"\n   -- {label} ({tl.probe})")
        print("\n".join("   " + line for line in tl.to_table(markdown=True).splitlines()))
        print(f"   {tl.summary()}")
        out[label] = tl.to_dict()
    return out


def formula(device: str, kw: dict, seq: int, m: int) -> dict:
    out = {}
    net = build_model("tiny-gpt", **kw).to(device)  # one model; formula_check restores its switches
    for offload in (False, True):
        for n in (1, 2, 4):
            f = formula_check(net, m, seq, n, offload, device)
            out[f"n={n}{' offload' if offload else ''}"] = f.to_dict()
            print(f"   n={n} offload={offload!s:<5} formula {f.checkpointed}×{m}×{seq}×{f.hidden}×"
                  f"{f.bytes_per_element} = {format_bytes(f.formula_bytes):>10}  measured on {f.device} "
                  f"{format_bytes(f.measured_bytes):>10} (×{f.ratio:.3f})  {f.note}")
    return out


def layouts(device: str, kw: dict, seq: int, repeats: int) -> dict:
    runs = compare_layouts([(16, 1), (8, 2), (1, 16)], device=device, seq_len=seq, model_kwargs=kw,
                           repeats=repeats, warmup=1)
    return {"runs": print_runs(runs)}


def planner(device: str, kw: dict, seq: int) -> dict:
    probe_m4 = measure_peak(4, 4, "tiny-gpt", device=device, seq_len=seq, model_kwargs=kw, groups=1)
    budget = int(probe_m4.peak_bytes * 1.05)
    plan = plan_for_budget(budget, 16, model="tiny-gpt", device=device, seq_len=seq, model_kwargs=kw, groups=1)
    for c in plan.candidates:
        print(f"   m={c.micro_batch:>2} A={c.accumulation_steps:>2}: peak {format_bytes(c.peak_bytes):>10} "
              f"(fixed {format_bytes(c.fixed_bytes)}) {'fits' if c.fits else 'over budget'}")
    print(f"   budget {format_bytes(budget)}: {plan.verdict}")
    tight = plan_for_budget(max(1, probe_m4.fixed_bytes // 2), 16, candidates=[1, 16], model="tiny-gpt",
                            device=device, seq_len=seq, model_kwargs=kw, groups=1)
    print(f"   budget {format_bytes(max(1, probe_m4.fixed_bytes // 2))}: {tight.verdict}")
    return {"plan": plan.to_dict(), "tight": tight.to_dict()}


def fit(device: str, kw: dict, seq: int) -> dict:
    """Section 8: the make-it-fit ladder with a budget the plain run at m = 16 misses by 10 %; on
    CUDA its rungs include offload. The chosen setting's update is verified (on the CPU)."""
    plain = measure_peak(16, 2, "tiny-gpt", device=device, seq_len=seq, model_kwargs=kw)
    budget = int(plain.peak_bytes * 0.9)
    plan = fit_to_budget("tiny-gpt", budget, 32, min_micro_batch=16, device=device, seq_len=seq, model_kwargs=kw)
    for r in plan.rows():
        print(f"   {r['setting']:<34} m={r['m']:>2} A={r['A']}: peak {r['peak MiB']:8.1f} MiB "
              f"{'fits' if r['fits'] else 'over budget'}")
    print(f"   budget {format_bytes(budget)}: {plan.verdict}")
    out = {"plan": plan.to_dict()}
    if plan.chosen is not None:
        report = verify_fit(plan, "tiny-gpt", model_kwargs=kw)
        print(f"   one update under it: {'passed' if report.passed else 'FAILED'} (relative error {report.rel_error:.2e})")
        out["verified"] = {"passed": report.passed, "rel_error": report.rel_error}
    return out


def checker(device: str) -> dict:
    """Section 10: the precision ``check_loop`` reads from what the loop ran, on ``device``."""
    import gastudy
    from gastudy.course import nanogpt

    def blocks():
        return [{k: v.to(device) for k, v in mb.items()} for mb in nanogpt.fixed_blocks(4, 2, 64, 256)]

    rows = []
    for dtype in ("float32", "bfloat16", "float16"):
        for submodule in (False, True):
            model = (nanogpt.Wrapped(nanogpt.small_gpt()) if submodule else nanogpt.small_gpt()).to(device)
            step = nanogpt.NanoGPTStep(dtype, 1.0, device.split(":")[0], submodule="gpt" if submodule else None)
            report = gastudy.check_loop(step, model, blocks(), forward=nanogpt.through_gpt if submodule else None,
                                        **nanogpt.CHECK_ARGS)
            rows.append({"loop": f"nanoGPT {dtype}{' via model.gpt' if submodule else ''}", "passed": report.passed,
                         "precision": report.precision, "rel_error": report.rel_error, "tolerance": report.tolerance})
    try:
        from accelerate import Accelerator
        from accelerate.state import AcceleratorState, GradientState
    except ImportError:
        Accelerator = None
    if Accelerator is not None:
        from gastudy.course.bridge import tiny_causal_lm

        vocab = tiny_causal_lm(hidden=16).config.vocab_size  # fixed-length blocks: the model's mean ÷ A is exact
        batches = [{"input_ids": b["idx"], "attention_mask": torch.ones_like(b["idx"]), "labels": b["idx"]}
                   for b in nanogpt.fixed_blocks(4, 2, 16, vocab)]
        for mixed in ("bf16", "fp16"):
            def accelerate_step(model, optimizer, microbatches, mixed=mixed):
                AcceleratorState._reset_state(reset_partial_state=True)
                GradientState._reset_state()
                accelerator = Accelerator(cpu=not device.startswith("cuda"), mixed_precision=mixed,
                                          gradient_accumulation_steps=len(microbatches))
                model, optimizer = accelerator.prepare(model, optimizer)
                for batch in microbatches:
                    with accelerator.accumulate(model):
                        batch = {k: v.to(accelerator.device) for k, v in batch.items() if k != "sample_ids"}
                        accelerator.backward(model(**batch).loss)
                        optimizer.step()
                        optimizer.zero_grad()

            model = tiny_causal_lm(hidden=16).to(device)
            try:
                report = gastudy.check_loop(accelerate_step, model, batches)
            except Exception as err:  # noqa: BLE001 - e.g. fp16 refused on this device: say so, go on
                rows.append({"loop": f"Accelerate mixed_precision={mixed}", "error": f"{type(err).__name__}: {err}"})
                continue
            rows.append({"loop": f"Accelerate mixed_precision={mixed}", "passed": report.passed,
                         "precision": report.precision, "rel_error": report.rel_error, "tolerance": report.tolerance})
    for r in rows:
        if "error" in r:
            print(f"   {r['loop']:<34} {r['error']}")
        else:
            print(f"   {r['loop']:<34} {'passed' if r['passed'] else 'FAILED'}: judged in {r['precision']}, "
                  f"relative error {r['rel_error']:.1e} (tolerance {r['tolerance']:.0e})")
    wrong = [r["loop"] for r in rows if "error" not in r and not r["passed"]]
    if wrong:
        raise RuntimeError(f"check_loop failed right loops on {device}: {', '.join(wrong)}")
    return {"rows": rows}


def sharded_nccl(kw: dict, m: int) -> dict:
    """Section 9: DDP vs FSDP2 (deferred, every) on nccl, one rank per GPU (needs ≥ 2 GPUs)."""
    from gastudy.course.demos.fsdp import BACKENDS, measure_sharded_worker
    from gastudy.parallel.launch import run_local

    gpus = torch.cuda.device_count()
    if gpus < 2:
        print(f"skipped: {gpus} GPU(s) here; nccl needs one GPU per rank and data parallelism at least two")
        return {"skipped": True, "gpus": gpus}
    rows = run_local(measure_sharded_worker, 2, [(b, 4) for b in BACKENDS], updates=3, micro_batch=m,
                     model_kwargs=kw, device="cuda", backend="nccl", timeout=300)[0]
    ddp = rows[0]
    for r in rows:
        print(f"{r['backend']:>9}: {r['reductions_per_update']:.0f} reductions/update, "
              f"{r['all_gathers_per_update']:.0f} all-gathers, peak gradient {format_bytes(r['peak_gradient_bytes'])} "
              f"({r['peak_gradient_bytes'] / ddp['peak_gradient_bytes']:.2f}× DDP), "
              f"{r['seconds_per_update']:.4f} s/update ({r['seconds_per_update'] / ddp['seconds_per_update']:.2f}× DDP)")
    return {"rows": rows}


NOTEBOOKS = ["notebooks/08_checkpointing.ipynb", "notebooks/09_memory_check_and_decide.ipynb",
             "notebooks/13_make_it_fit.ipynb", "notebooks/tr/08_checkpointing.ipynb",
             "notebooks/tr/09_memory_check_and_decide.ipynb"]


def notebooks(timeout_s: float = 240.0) -> dict:
    """The chapters with CUDA branches (08, 09; English and the Turkish edition) under nbval, with
    a GPU visible: the cells a CPU run never takes. Returns passed/failed per notebook."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    rows = {}
    for nb in NOTEBOOKS:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax",
                               "--nbval-current-env", nb], cwd=root, capture_output=True, text=True, timeout=timeout_s)
        tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-300:]
        rows[nb] = {"ok": proc.returncode == 0, "summary": tail, "seconds": round(time.perf_counter() - t0, 1)}
        print(f"   {nb}: {'ok' if proc.returncode == 0 else 'FAILED'} — {tail} ({rows[nb]['seconds']} s)")
    failed = [nb for nb, r in rows.items() if not r["ok"]]
    if failed:
        raise RuntimeError(f"notebooks failed under CUDA: {', '.join(failed)}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", help="cuda[:i] (default) or cpu for a dry run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget-s", type=float, default=150.0, help="skip remaining sections after this")
    parser.add_argument("--out", default=None, help="write all results as JSON to this file")
    parser.add_argument("--notebooks", action="store_true",
                        help="also execute the chapters with CUDA branches (08, 09; English and tr) under nbval")
    args = parser.parse_args()
    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("gpu_check: no CUDA device here (torch.cuda.is_available() is False), so there is nothing "
              "to check. Run it on a GPU machine, or pass --device cpu for a dry run of the script.")
        return 0
    on_gpu = args.device.startswith("cuda")
    kw, seq, m = (BIG, 512, 8) if on_gpu else (SMALL, 32, 4)
    started = time.perf_counter()
    name = torch.cuda.get_device_name(args.device) if on_gpu else "CPU (dry run)"
    print(f"gpu_check on {args.device}: {name}; torch {torch.__version__}; model {kw}, seq {seq}, m {m}")
    results: dict = {"device": args.device, "name": name, "torch": torch.__version__, "model": kw}
    section("1. gradients with checkpointing vs without (float32)", results, "gradients", args.budget_s, started)(
        lambda: gradients(args.device, SMALL))
    section("2. memory probes per device", results, "probes", args.budget_s, started)(probes)
    section(f"3. checkpointing and offload cost (m={m}, A=1); ratios vs off", results, "checkpointing",
            args.budget_s, started)(lambda: checkpoint_costs(args.device, kw, seq, m, args.repeats))
    section(f"4. allocator phase timeline (m×A = {m}×2, 3 groups)", results, "timeline", args.budget_s, started)(
        lambda: timeline(args.device, kw, seq, m))
    section("5. CK-4 formula vs measured device bytes", results, "formula", args.budget_s, started)(
        lambda: formula(args.device, kw, seq, m))
    section("6. accumulation vs one real batch: 16×1, 8×2, 1×16", results, "layouts", args.budget_s, started)(
        lambda: layouts(args.device, kw, seq // 2, args.repeats))
    section("7. planner with a real budget (target 16)", results, "planner", args.budget_s, started)(
        lambda: planner(args.device, kw, seq // 2))
    section("8. make it fit: the ladder under a budget the plain m = 16 misses", results, "fit", args.budget_s,
            started)(lambda: fit(args.device, kw, seq // 2))
    if on_gpu:
        section("9. data parallel on nccl: DDP vs FSDP2 deferred/every (A=4)", results, "sharded_nccl",
                args.budget_s + 120, started)(lambda: sharded_nccl({**kw, "max_len": 64}, m))
    section("10. check_loop: the precision a loop ran in, on this device", results, "checker", args.budget_s + 120,
            started)(lambda: checker(args.device))
    if args.notebooks:
        section("11. chapters 08, 09 and 13 under nbval (English; 08 and 09 in Turkish)", results, "notebooks",
                args.budget_s + 600, started)(notebooks)
    total = time.perf_counter() - started
    failed = [k for k, v in results.items() if isinstance(v, dict) and "error" in v]
    print(f"\ngpu_check finished in {total:.1f} s; {'failed: ' + ', '.join(failed) if failed else 'all sections ran'}")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

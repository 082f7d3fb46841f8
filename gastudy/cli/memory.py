"""``gastudy memory``: the phase timeline, peaks, saved bytes and a budget plan (MB-9, CK-1 … CK-4).

``gastudy.cli.main`` calls :func:`add_memory_parser` and dispatches to :func:`memory_command`.
Run standalone with ``python -m gastudy.cli.memory ...``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from gastudy.check.verify import verify_fit
from gastudy.cli.options import MAX_REPLICAS, fail, whole
from gastudy.core.checkpointing import checkpointing
from gastudy.memory.fit import fit_to_budget
from gastudy.memory.planner import plan_for_budget
from gastudy.memory.saved import format_bytes, formula_check, saved_bytes
from gastudy.memory.timeline import phase_timeline
from gastudy.memory.workload import build_for_measurement, synthetic_microbatches

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}


def parse_bytes(text: str) -> int:
    """``'512MiB'`` → 536870912; accepts plain numbers (``1e9``) and B, KB, MB, GB, KiB, MiB, GiB.

    Course: MB-9 (the ``--budget`` argument). Raises ``argparse.ArgumentTypeError`` otherwise.
    """
    match = re.fullmatch(r"\s*([0-9.eE+]+)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _UNITS:
        raise argparse.ArgumentTypeError(f"cannot read {text!r} as bytes; write e.g. 200000000, 200MB or 512MiB")
    try:
        value = float(match.group(1)) * _UNITS[match.group(2).lower()]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"cannot read {text!r} as bytes; write e.g. 200MB") from err
    if not 1 <= value <= 2**60:  # inf, 0 and absurd budgets say so instead of failing later
        raise argparse.ArgumentTypeError(f"must be from 1 B to 1 EiB, got {text!r}")
    return int(value)


def add_memory_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register the ``memory`` subcommand on ``subparsers``; returns its parser. Course: MB-9."""
    p = subparsers.add_parser("memory", help="measure memory per phase, saved bytes and a budget plan (MB-9)",
                              description="Measure the memory timeline of a few real updates, the bytes "
                              "saved for backward, the checkpoint formula, and (with --budget) the largest "
                              "microbatch that fits.")
    p.add_argument("--model", default="tiny-gpt", help="a registered model (the course's: tiny-gpt, ln-mlp, bn-mlp, "
                   "mlp; default tiny-gpt)")
    p.add_argument("--micro-batch", type=whole(1, 4096), nargs="+", default=[4], metavar="M", help="one or more m")
    p.add_argument("--accumulation-steps", type=whole(1, 4096), default=2, metavar="A", help="A for the timeline")
    p.add_argument("--groups", type=whole(1, 1000), default=3, help="groups (updates) in the timeline")
    p.add_argument("--every-n-layers", type=whole(1, 1000), default=None, metavar="N",
                   help="checkpoint layers 1, 1+N, …")
    p.add_argument("--offload", action="store_true", help="offload checkpointed activations (GPU only)")
    p.add_argument("--budget", type=parse_bytes, default=None, metavar="BYTES", help="memory budget, e.g. 300MB")
    p.add_argument("--target", type=whole(1, 10**6), default=None, metavar="T",
                   help="target effective batch for the plan")
    p.add_argument("--replicas", type=whole(1, MAX_REPLICAS), default=1, metavar="D",
                   help="data-parallel replicas for the plan")
    p.add_argument("--fit", action="store_true",
                   help="with --budget: also choose checkpointing, offload and precision (cheapest first) and "
                        "verify one update under the choice")
    p.add_argument("--min-micro-batch", type=whole(1, 4096), default=1, metavar="M",
                   help="with --fit: the smallest microbatch worth running (default 1)")
    p.add_argument("--precisions", nargs="+", default=["fp32"], choices=["fp32", "bf16", "fp16"], metavar="P",
                   help="with --fit: the precisions you accept, in order (default fp32 only)")
    p.add_argument("--device", default="cpu", help="cpu or cuda[:i]")
    p.add_argument("--seq-len", type=whole(2, 4096), default=32, help="tokens per sample (tiny-gpt)")
    p.add_argument("--hidden", type=whole(1, 8192), default=None, help="tiny-gpt width (default 256 for measurement)")
    p.add_argument("--layers", type=whole(1, 256), default=None, help="tiny-gpt layers (default 4)")
    p.add_argument("--optimizer", default="adamw", choices=["adamw", "sgd-momentum", "sgd"])
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=memory_command)
    return p


def _model_kwargs(args: argparse.Namespace) -> dict | None:
    if args.model != "tiny-gpt":
        return None
    from gastudy.course.models import (
        MEASURE_KWARGS,  # the course's model, widened to show in memory
    )

    kwargs = dict(MEASURE_KWARGS)
    if args.hidden is not None:
        kwargs["hidden"] = args.hidden
    if args.layers is not None:
        kwargs["layers"] = args.layers
    return kwargs


def memory_command(args: argparse.Namespace) -> int:
    """Run ``gastudy memory``; prints tables (or one JSON object with ``--json``). Returns 0, or
    2 with a message on stderr when the arguments cannot be measured, or 130 on Ctrl-C. Course: MB-9, CK-4."""
    kwargs = _model_kwargs(args)
    out: dict = {"model": args.model, "device": args.device, "model_kwargs": kwargs, "runs": []}
    try:
        for m in args.micro_batch:
            tl = phase_timeline(args.model, m, args.accumulation_steps, args.groups, args.every_n_layers,
                                args.offload, args.device, seq_len=args.seq_len, optimizer=args.optimizer,
                                model_kwargs=kwargs)
            net = build_for_measurement(args.model, args.device, 0, kwargs)
            with checkpointing(net, args.every_n_layers, args.offload):  # the timeline's first microbatch
                saved = saved_bytes(net, synthetic_microbatches(net, m, 1, args.seq_len)[0])
            run = {"micro_batch": m, "timeline": tl.to_dict(), "saved_bytes": saved.to_dict()}
            if args.every_n_layers is not None and args.model == "tiny-gpt":
                run["formula"] = formula_check(args.model, m, args.seq_len, args.every_n_layers, args.offload,
                                               args.device, kwargs).to_dict()
            out["runs"].append(run)
        if args.fit and args.budget is None:
            raise ValueError("--fit needs --budget (the memory to fit in, e.g. --budget 300MiB)")
        if args.fit:
            target = args.target or max(args.micro_batch) * args.accumulation_steps * args.replicas
            fit = fit_to_budget(args.model, args.budget, target, replicas=args.replicas,
                                min_micro_batch=args.min_micro_batch, precisions=args.precisions,
                                device=args.device, seq_len=args.seq_len, optimizer=args.optimizer,
                                model_kwargs=kwargs)
            out["fit"] = fit.to_dict()
            if fit.chosen is not None:
                report = verify_fit(fit, args.model, model_kwargs=kwargs)
                out["fit"]["verify"] = {"passed": report.passed, "rel_error": report.rel_error,
                                        "tolerance": report.tolerance, "reasons": report.reasons}
        elif args.budget is not None:
            target = args.target or max(args.micro_batch) * args.accumulation_steps * args.replicas
            plan = plan_for_budget(args.budget, target, args.replicas, args.model, device=args.device,
                                   every_n_layers=args.every_n_layers, offload=args.offload, seq_len=args.seq_len,
                                   optimizer=args.optimizer, model_kwargs=kwargs)
            out["plan"] = plan.to_dict()
    except (ValueError, TypeError, RuntimeError) as err:
        return fail(args, f"memory: {err}")
    except KeyboardInterrupt:  # a measurement writes nothing: say so, no traceback
        return fail(args, "memory: interrupted (SIGINT) before the measurements finished; nothing was written", 130)
    if args.json:
        print(json.dumps(out))
    else:
        _print_text(out)
    return 0


def _print_text(out: dict) -> None:
    mib = 1024**2
    for run in out["runs"]:
        tl = run["timeline"]
        print(f"\n## m={run['micro_batch']}, A={tl['accumulation_steps']} on {tl['device']} "
              f"(checkpoint every {tl['every_n_layers'] or '—'} layers{', offload' if tl['offload'] else ''})")
        print(f"probe: {tl['probe']} — {'; '.join(tl['notes'])}\n")
        print("| phase | current−start MiB | peak−start MiB | saved MiB | weights MiB | grads MiB | optimizer MiB |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for r in tl["rows"]:
            print(f"| {r['phase']} | {r['current_above_start'] / mib:.2f} | {r['peak_above_start'] / mib:.2f} | "
                  f"{r['saved_bytes'] / mib:.2f} | {r['weight_bytes'] / mib:.2f} | {r['grad_bytes'] / mib:.2f} | "
                  f"{r['optimizer_bytes'] / mib:.2f} |")
        print(f"\n{tl['summary']}")
        s = run["saved_bytes"]
        layers = ", ".join(f"{k}: {format_bytes(v)}" for k, v in s["by_layer"].items())
        print(f"saved for backward (one microbatch): {format_bytes(s['total'])} ({layers})")
        if "formula" in run:
            f = run["formula"]
            print(f"CK-4 formula {f['checkpointed']} layers × m={f['micro_batch']} × T={f['sequence']} × "
                  f"H={f['hidden']} × {f['bytes_per_element']} B = {format_bytes(f['formula_bytes'])}; measured "
                  f"{format_bytes(f['measured_bytes'])} (×{f['ratio']:.3f}). {f['note']}")
    if "fit" in out:
        f = out["fit"]
        _print_candidates(f"fit: budget {format_bytes(f['budget_bytes'])}, target {f['target_effective_batch']}, "
                          f"D={f['replicas']}, m ≥ {f['min_micro_batch']}",
                          [(f"{r['setting']:<28} m={r['m']:>3} A={r['A']:>3}", r["peak MiB"] * mib, r["fits"])
                           for r in f["rows"]], f["verdict"])
        for note in f["notes"]:
            print(f"note: {note}")
        if "verify" in f:
            v = f["verify"]
            print(f"one update under this setting: {'PASSED' if v['passed'] else 'FAILED'} (relative error "
                  f"{v['rel_error']:.2e}, tolerance {v['tolerance']:.1e}){''.join('; ' + r for r in v['reasons'])}")
    if "plan" in out:
        p = out["plan"]
        _print_candidates(f"plan: budget {format_bytes(p['budget_bytes'])}, target {p['target_effective_batch']}, "
                          f"D={p['replicas']}",
                          [(f"m={c['micro_batch']:>3} A={c['accumulation_steps']:>3}", c["peak_bytes"], c["fits"])
                           for c in p["candidates"]], p["verdict"])


def _print_candidates(heading: str, rows: list[tuple[str, float, bool]], verdict: str) -> None:
    """A budget section: its heading, one line per measured candidate (label, peak bytes, fits), the verdict."""
    print(f"\n## {heading}")
    for label, peak, fits in rows:
        print(f"  {label}: peak {format_bytes(int(peak))} {'fits' if fits else 'over budget'}")
    print(verdict)


def main(argv: list[str] | None = None) -> int:
    """Standalone entry point: ``python -m gastudy.cli.memory [options]`` (course: MB-9)."""
    parser = argparse.ArgumentParser(prog="gastudy")
    add_memory_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["memory", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``gastudy`` command line (every chapter's measurements, outside the notebooks).

Subcommands: ``plan`` (MB-2), ``verify`` (MB-10), ``train`` (MB-10), ``memory`` (MB-9, CK-1…4),
``lab`` (open the course), ``site`` (the static edition). With ``--json`` a command prints
exactly one JSON object on stdout. Bad input exits with status 2 and says what to change.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gastudy.loss import NORMALIZATIONS
from gastudy.models import MODEL_NAMES
from gastudy.precision import PRECISIONS


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    """Print ``payload`` as one JSON object with ``--json``, else ``text``."""
    print(json.dumps(payload) if getattr(args, "json", False) else text)


def fail(args: argparse.Namespace, message: str, code: int = 2) -> int:
    """Report a usage error (JSON ``{"error": ...}`` with ``--json``) and return ``code``."""
    if getattr(args, "json", False):
        print(json.dumps({"error": message}))
    else:
        print(f"gastudy: error: {message}", file=sys.stderr)
    return code


def cmd_plan(args: argparse.Namespace) -> int:
    from gastudy.plan import PlanError, plan_from_target

    try:
        plan = plan_from_target(args.target, args.micro_batch, args.replicas, args.tensor_parallel,
                                args.pipeline_parallel)
    except PlanError as e:
        return fail(args, str(e))
    emit(args, plan.to_dict(), plan.describe())
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    if args.replicas > 1:
        from gastudy.dist_cli import verify_replicas

        code, payload = verify_replicas(args)
        emit(args, payload, payload.get("text", json.dumps(payload, indent=2)))
        return code
    from gastudy.verify import verify_one_update

    try:
        report = verify_one_update(args.model, args.micro_batch, args.accumulation_steps, args.precision,
                                   args.normalization, args.collate, args.seed)
    except ValueError as e:
        return fail(args, str(e))
    if args.save:
        report.record.save(args.save, "verify_record")
    emit(args, report.to_dict(), str(report))
    return 0 if report.passed else 1


def train_config(args: argparse.Namespace):
    """The :class:`~gastudy.train.TrainConfig` described by ``gastudy train``'s flags."""
    from gastudy.train import TrainConfig

    return TrainConfig(
        model=args.model, micro_batch=args.micro_batch, accumulation_steps=args.accumulation_steps,
        epochs=args.epochs, lr=args.lr, precision=args.precision, normalization=args.normalization,
        last_group=args.last_group, collate=args.collate, dataset_size=args.dataset_size, seed=args.seed,
        clip_grad_norm=args.clip if args.clip > 0 else None, stop_after_updates=args.stop_after_updates,
        checkpoint_every=args.checkpoint_every, out_dir=args.out, progress=not args.no_progress and not args.json,
        device=args.device,
    )


def cmd_train(args: argparse.Namespace) -> int:
    if args.replicas > 1 or int(os.environ.get("WORLD_SIZE", "1")) > 1:
        from gastudy.dist_cli import train_replicas

        return train_replicas(args)
    from gastudy.train import train

    try:
        run = train(train_config(args), resume=args.resume)
    except (ValueError, FileNotFoundError) as e:
        return fail(args, str(e))
    where = f"\nrecord written to {run.record_paths[0]} and {run.record_paths[1]}" if run.record_paths else ""
    emit(args, run.record.to_dict(), run.record.to_markdown() + where)
    return 0


def notebooks_dir() -> Path:
    """The course folder: ``notebooks/`` beside the package (editable install) or in the cwd."""
    for candidate in (Path(__file__).resolve().parent.parent / "notebooks", Path.cwd() / "notebooks"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no notebooks/ folder found: run this from a clone of the gastudy repository")


def cmd_lab(args: argparse.Namespace) -> int:
    try:
        folder = notebooks_dir()
    except FileNotFoundError as e:
        return fail(args, str(e))
    command = [sys.executable, "-m", "jupyter", "lab", f"--notebook-dir={folder}", f"--port={args.port}",
               "--ServerApp.open_browser=" + ("False" if args.no_browser else "True"),
               "--ip=" + args.ip, *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])]
    print("Starting JupyterLab on", folder, "— open the URL it prints (http://127.0.0.1:...).", flush=True)
    if args.dry_run:
        print(" ".join(command))
        return 0
    os.execv(sys.executable, command)
    return 0  # pragma: no cover


def add_engine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="tiny-gpt", choices=MODEL_NAMES)
    p.add_argument("--micro-batch", "-m", type=int, default=2, help="m: samples per microbatch per replica")
    p.add_argument("--accumulation-steps", "-A", type=int, default=4, help="A: microbatches per update")
    p.add_argument("--precision", default="fp32", choices=PRECISIONS)
    p.add_argument("--normalization", default="tokens", choices=NORMALIZATIONS)
    p.add_argument("--collate", default="padded", choices=("padded", "packed"))
    p.add_argument("--replicas", "-D", type=int, default=1, help="D: data-parallel replicas (local processes)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    dp = p.add_argument_group("data parallel (with --replicas N or under torchrun)")
    dp.add_argument("--sync-every-microbatch", dest="no_sync", action="store_false",
                    help="all-reduce after every microbatch instead of once per update (to measure no_sync)")
    dp.add_argument("--duplicates", default="raise", choices=("raise", "warn", "off"),
                    help="what to do when replicas process the same sample ids")
    dp.add_argument("--dist-timeout", type=float, default=None, metavar="SECONDS",
                    help="timeout of every collective (default $GASTUDY_DIST_TIMEOUT or 60)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="gastudy", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("plan", help="m × A × D from a target effective batch (MB-2)")
    p.add_argument("--target", type=int, required=True, help="samples per update")
    p.add_argument("--micro-batch", "-m", type=int, required=True)
    p.add_argument("--replicas", "-D", type=int, default=1)
    p.add_argument("--tensor-parallel", type=int, default=1, help="devices sharing one replica (not replicas)")
    p.add_argument("--pipeline-parallel", type=int, default=1, help="pipeline stages of one replica (not replicas)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser("verify", help="verify one update against the big batch (MB-10)")
    add_engine_options(p)
    p.add_argument("--save", metavar="DIR", help="also write the run record (JSON and Markdown) here")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("train", help="a short real training run that writes the run record (MB-10)")
    add_engine_options(p)
    p.set_defaults(micro_batch=4)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--last-group", default="keep", choices=("keep", "drop"))
    p.add_argument("--dataset-size", type=int, default=200)
    p.add_argument("--clip", type=float, default=1.0, help="max gradient norm (0 = no clipping)")
    p.add_argument("--stop-after-updates", type=int, default=None, help="interrupt after N updates")
    p.add_argument("--checkpoint-every", type=int, default=0, help="checkpoint every N updates")
    p.add_argument("--out", default=None, help="folder for the run record and checkpoint")
    p.add_argument("--resume", action="store_true", help="continue from <out>/checkpoint.pt")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="cuda: one GPU per replica")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("lab", help="open the course in JupyterLab (prints the URL)")
    p.add_argument("--port", type=int, default=8888)
    p.add_argument("--ip", default="127.0.0.1")
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="print the command instead of starting")
    p.set_defaults(func=cmd_lab)

    from gastudy.memory_cli import add_memory_parser
    from gastudy.site import add_site_parser

    add_memory_parser(sub)
    add_site_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``gastudy`` and ``python -m gastudy``; returns the exit status."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

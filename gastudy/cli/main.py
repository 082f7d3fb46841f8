"""The ``gastudy`` command line (every chapter's measurements, outside the notebooks).

Subcommands: ``plan`` (MB-2), ``verify`` (MB-10), ``train`` (MB-10), ``memory`` (MB-9, CK-1…4),
``lab`` (open the course), ``site`` (the static edition), ``check-loop`` (your own
train_step against the big batch, MB-10/MB-11). With ``--json`` a command prints
exactly one JSON object on stdout. Bad input exits with status 2 and says what to change.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from gastudy.cli.lab import cmd_lab
from gastudy.cli.options import (
    MAX_COUNT,
    Parser,
    add_engine_options,
    emit,
    fail,
    ip_address,
    nonempty,
    normalization_of,
    real,
    record_text,
    torchrun_env_error,
    train_config,
    whole,
    writable_folder_error,
)


def cmd_plan(args: argparse.Namespace) -> int:
    from gastudy.core.plan import PlanError, plan_from_target

    try:
        plan = plan_from_target(args.target, args.micro_batch, args.replicas, args.tensor_parallel,
                                args.pipeline_parallel)
    except PlanError as e:
        return fail(args, str(e))
    emit(args, plan.to_dict(), plan.describe())
    return 0


MAX_VERIFY_SAMPLES = 4096  # m × A × D of the one update `verify` checks


def cmd_verify(args: argparse.Namespace) -> int:
    samples = args.micro_batch * args.accumulation_steps * args.replicas
    if samples > MAX_VERIFY_SAMPLES:
        return fail(args, f"m × A × D = {args.micro_batch} × {args.accumulation_steps} × {args.replicas} = {samples} "
                          f"samples: verifying one update needs a small controlled set, at most {MAX_VERIFY_SAMPLES}")
    if getattr(args, "save", None) and (error := writable_folder_error(args.save, "--save")) is not None:
        return fail(args, error)
    if args.replicas > 1 or args.shard or args.sync:  # the sharding flags are checked there
        from gastudy.cli.replicas import verify_replicas

        code, payload = verify_replicas(args)
        if code != 0 and "error" in payload:  # bad settings or a run that did not finish: one error
            return fail(args, payload["error"], code=code)
        emit(args, payload, payload.get("text", json.dumps(payload, indent=2)))
        return code
    from gastudy.check.verify import verify_one_update

    try:
        report = verify_one_update(args.model, args.micro_batch, args.accumulation_steps, args.precision,
                                   normalization_of(args), args.collate, args.seed)
    except ValueError as e:
        return fail(args, str(e))
    if args.save:
        report.record.save(args.save, "verify_record")
    emit(args, report.to_dict(), str(report))
    return 0 if report.passed else 1


def cmd_train(args: argparse.Namespace) -> int:
    if args.replicas > 1 or int(os.environ.get("WORLD_SIZE", "1")) > 1 or args.shard or args.sync:
        from gastudy.cli.replicas import train_replicas

        return train_replicas(args)
    from gastudy.run.train import TrainingDiverged, train

    try:
        run = train(train_config(args), resume=args.resume)
    except TrainingDiverged as e:  # an accepted setting that blows up: one line, the record is saved
        return fail(args, str(e), code=1)
    except (ValueError, FileNotFoundError) as e:
        return fail(args, str(e))
    except OSError as e:  # a disk that filled up during the run: the message says what is intact
        return fail(args, str(e), code=1)
    emit(args, run.record.to_dict(), record_text(run.record.to_markdown(), run.record_paths))
    if run.extra.get("interrupted"):
        where = (f"checkpoint and partial record in {args.out}; continue with the same command and --resume"
                 if args.out else "nothing was saved (no --out)")
        print(f"gastudy: interrupted (SIGINT) at a group boundary after {run.record.updates_attempted} updates: "
              f"{where}", file=sys.stderr)
        return 130
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = Parser(prog="gastudy", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("plan", help="m × A × D from a target effective batch (MB-2)")
    p.add_argument("--target", type=whole(1, 10**12), required=True, help="samples per update")
    p.add_argument("--micro-batch", "-m", type=whole(1, 10**12), required=True)
    p.add_argument("--replicas", "-D", type=whole(1, 10**9), default=1)
    p.add_argument("--tensor-parallel", type=whole(1, 10**6), default=1,
                   help="devices sharing one replica (not replicas)")
    p.add_argument("--pipeline-parallel", type=whole(1, 10**6), default=1,
                   help="pipeline stages of one replica (not replicas)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_plan)

    p = sub.add_parser("verify", help="verify one update against the big batch (MB-10)")
    add_engine_options(p)
    p.add_argument("--save", metavar="DIR", type=nonempty, help="also write the run record (JSON and Markdown) here")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("train", help="a short real training run that writes the run record (MB-10)")
    add_engine_options(p)
    p.set_defaults(micro_batch=4)
    p.add_argument("--epochs", type=whole(1, 10**4), default=1)
    p.add_argument("--lr", type=real(0.0, maximum=1e3), default=3e-3)
    p.add_argument("--last-group", default="keep", choices=("keep", "drop"))
    p.add_argument("--dataset-size", type=whole(1, MAX_COUNT), default=200)
    p.add_argument("--clip", type=real(0.0, strict=False, maximum=1e6), default=1.0,
                   help="max gradient norm (0 = no clipping)")
    p.add_argument("--stop-after-updates", type=whole(1, 10**9), default=None, help="interrupt after N updates")
    p.add_argument("--checkpoint-every", type=whole(0, 10**9), default=0,
                   help="checkpoint every N updates (0: only at the end)")
    p.add_argument("--out", type=nonempty, default=None, help="folder for the run record and checkpoint")
    p.add_argument("--resume", action="store_true", help="continue from <out>/checkpoint.pt")
    p.add_argument("--overwrite", action="store_true", help="replace the run already in --out (default: refuse)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="cuda: one GPU per replica")
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("lab", help="open the course in JupyterLab (prints the URL)")
    p.add_argument("--port", type=whole(1, 65535), default=8888)
    p.add_argument("--ip", type=ip_address, default="127.0.0.1",
                   help="the address JupyterLab listens on (default 127.0.0.1: this machine only)")
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="print the command instead of starting")
    p.add_argument("--json", action="store_true", help="print one JSON object (the folder and the command)")
    p.add_argument("--lang", choices=("en", "tr", "es", "ar"), default="en",
                   help="the edition to open, and the language of JupyterLab's menus: en (default), "
                        "tr (Türkçe), es (Español), ar (العربية)")
    p.add_argument("--no-install", action="store_true",
                   help="do not pip-install a missing JupyterLab language pack (the menus stay in English)")
    p.set_defaults(func=cmd_lab)

    from gastudy.cli.check_loop import add_check_loop_parser
    from gastudy.cli.editions import add_editions_parser
    from gastudy.cli.memory import add_memory_parser
    from gastudy.cli.site import add_site_parser

    add_memory_parser(sub)
    add_site_parser(sub)
    add_check_loop_parser(sub)
    add_editions_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``gastudy`` and ``python -m gastudy``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    Parser.json_errors = "--json" in argv
    try:
        args = build_parser().parse_args(argv)
        if (error := torchrun_env_error()) is not None:  # every command prints from rank 0 only
            if args.json:  # the variables that say which rank prints are what is wrong: print here
                print(json.dumps({"error": error, "exit": 2}))
                return 2
            return fail(args, error)
        return args.func(args)
    except ValueError as e:  # a setting read late (GASTUDY_DIST_TIMEOUT…): one line, not a traceback
        return fail(args, str(e))
    finally:
        Parser.json_errors = False


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

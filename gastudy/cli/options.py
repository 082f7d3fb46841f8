"""What every ``gastudy`` subcommand shares: the engine's flags, one JSON object or text out, and
exit status 2 with a message for bad input.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from gastudy.core.precision import PRECISIONS

# Upper bounds of counts: far above what the course's data and a machine can hold, low enough
# that a typo (10**12) is refused at once instead of looping or allocating for hours.
MAX_COUNT = 10**6  # m, A, epochs, updates, dataset size
MAX_REPLICAS = 1024
MAX_SEED = 2**63 - 1
MAX_SECONDS = 7 * 24 * 3600.0


def is_rank0() -> bool:
    """True outside ``torchrun`` and on its rank 0: the one process that prints the JSON object."""
    return os.environ.get("RANK", "0") == "0"


def torchrun_env_error() -> str | None:
    """What is wrong with the ``torchrun`` variables of the environment, or ``None`` (course: MB-7).

    ``RANK`` and ``WORLD_SIZE`` come together (torchrun sets both): one without the other, a value
    that is not a whole number, ``WORLD_SIZE`` < 1 or ``RANK`` outside ``0 … WORLD_SIZE-1`` is
    refused, since the command would otherwise run on one process as if it were a replica (and
    with ``--json`` a lone ``RANK=1`` would print nothing)."""
    rank, world = os.environ.get("RANK"), os.environ.get("WORLD_SIZE")
    if rank is None and world is None:
        return None
    if rank is None or world is None:
        have, lacks = ("RANK", "WORLD_SIZE") if world is None else ("WORLD_SIZE", "RANK")
        return (f"{have}={os.environ[have]!r} is set but {lacks} is not: run under torchrun (it sets both), "
                f"or unset {have} (use --replicas N to start N processes)")
    values = {}
    for name, text in (("WORLD_SIZE", world), ("RANK", rank)):
        try:
            values[name] = int(text.strip())
        except ValueError:
            return f"{name}={text!r} is not a whole number: run under torchrun (it sets it), or unset {name}"
    if not 1 <= values["WORLD_SIZE"] <= MAX_REPLICAS:
        return f"WORLD_SIZE={world!r} must be from 1 to {MAX_REPLICAS}: run under torchrun, or unset WORLD_SIZE"
    if not 0 <= values["RANK"] < values["WORLD_SIZE"]:
        return (f"RANK={rank!r} must be from 0 to WORLD_SIZE-1 = {values['WORLD_SIZE'] - 1}: run under torchrun, "
                "or unset RANK and WORLD_SIZE")
    return None


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    """Print ``payload`` as one JSON object with ``--json`` (rank 0 only), else ``text``."""
    if getattr(args, "json", False):
        if is_rank0():
            print(json.dumps(payload))
    else:
        print(text)


def fail(args: argparse.Namespace, message: str, code: int = 2) -> int:
    """Report an error and return ``code``: with ``--json`` one object ``{"error": ..., "exit":
    code}`` on stdout (rank 0 only; other ranks write the text to stderr), else a line on stderr."""
    if getattr(args, "json", False) and is_rank0():
        print(json.dumps({"error": message, "exit": code}))
    else:
        print(f"gastudy: error: {message}", file=sys.stderr)
    return code


class Parser(argparse.ArgumentParser):
    """``argparse`` whose usage errors follow ``--json``: one ``{"error", "exit": 2}`` object on
    stdout instead of the usage text when the command line asks for JSON. Exit status 2."""

    json_errors = False  # set by gastudy.cli.main.main for the command line being parsed

    def error(self, message: str):  # noqa: D401 - argparse's hook
        if Parser.json_errors:
            if is_rank0():
                print(json.dumps({"error": f"{self.prog}: {message}", "exit": 2}))
            self.exit(2)
        super().error(message)


def whole(minimum: int = 1, maximum: int = MAX_COUNT):
    """An ``argparse`` type: a whole number in [minimum, maximum] (argparse names the flag)."""

    def parse(text: str) -> int:
        try:
            value = int(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number from {minimum} to {maximum}, "
                                             f"got {text!r}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"must be from {minimum} to {maximum}, got {value}")
        return value

    parse.__name__ = "whole number"
    return parse


def real(minimum: float = 0.0, strict: bool = True, maximum: float = math.inf):
    """An ``argparse`` type: a finite number > minimum (≥ with ``strict=False``), ≤ maximum."""

    def parse(text: str) -> float:
        try:
            value = float(str(text).strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        low = value > minimum if strict else value >= minimum
        if not (math.isfinite(value) and low and value <= maximum):
            bound = f"{'>' if strict else '≥'} {minimum:g}" + (f" and ≤ {maximum:g}" if math.isfinite(maximum) else "")
            raise argparse.ArgumentTypeError(f"must be a finite number {bound}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def writable_folder_error(path: str | Path, flag: str) -> str | None:
    """What keeps ``path`` from being a folder this command can write into (naming ``flag``),
    or ``None``: it is a file, it lies under a file, or the nearest folder that exists is not
    writable. Checked before the command's work, so a bad path costs nothing."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        return f"{flag} {path} is a file, not a folder: choose a folder"
    existing = target
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        return f"{flag} {path} lies under {existing}, which is a file: choose a folder"
    if existing.exists() and not os.access(existing, os.W_OK | os.X_OK):
        return f"{flag} {path}: {existing} cannot be written by this user: choose a writable folder"
    return None


def ip_address(text: str) -> str:
    """An ``argparse`` type: an IPv4 or IPv6 address, or ``localhost`` (an empty one would make a
    server listen on every interface)."""
    import ipaddress

    value = str(text).strip()
    if value == "localhost":
        return value
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an IP address such as 127.0.0.1 (or localhost), got "
                                         f"{text!r}") from None


def nonempty(text: str) -> str:
    """An ``argparse`` type: a path that is not empty."""
    if not str(text).strip():
        raise argparse.ArgumentTypeError("must not be empty: give a folder")
    return str(text)



NORMALIZATIONS = ("tokens", "steps", "mean")


def model_names() -> tuple[str, ...]:
    """What ``--model`` takes: the registered workloads (:mod:`gastudy.core.workloads`), the
    course's among them (imported here, when a parser is built, not when gastudy.cli is)."""
    import gastudy.course.models  # noqa: F401  (registers tiny-gpt, ln-mlp, bn-mlp, mlp)
    from gastudy.core.workloads import names

    return names()


def normalization_of(args: argparse.Namespace):
    """``--normalization`` as the engine takes it: ``"tokens"``, or the course's wrong one
    (:mod:`gastudy.course.mistakes`, imported only when asked for)."""
    if args.normalization == "tokens":
        return "tokens"
    from gastudy.course.mistakes import normalization

    return normalization(args.normalization)


def train_config(args: argparse.Namespace):
    """The :class:`~gastudy.run.train.TrainConfig` described by ``gastudy train``'s flags."""
    from gastudy.run.train import TrainConfig

    return TrainConfig(
        model=args.model, micro_batch=args.micro_batch, accumulation_steps=args.accumulation_steps,
        epochs=args.epochs, lr=args.lr, precision=args.precision, normalization=normalization_of(args),
        last_group=args.last_group, collate=args.collate, dataset_size=args.dataset_size, seed=args.seed,
        clip_grad_norm=args.clip if args.clip > 0 else None, stop_after_updates=args.stop_after_updates,
        checkpoint_every=args.checkpoint_every, out_dir=args.out, progress=not args.no_progress and not args.json,
        device=args.device, overwrite=getattr(args, "overwrite", False),
    )



def add_engine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default="tiny-gpt", choices=model_names())
    p.add_argument("--micro-batch", "-m", type=whole(), default=2, help="m: samples per microbatch per replica")
    p.add_argument("--accumulation-steps", "-A", type=whole(), default=4, help="A: microbatches per update")
    p.add_argument("--precision", default="fp32", choices=PRECISIONS)
    p.add_argument("--normalization", default="tokens", choices=NORMALIZATIONS,
                   help="tokens (right); steps and mean are the course's mistakes, to watch them fail")
    p.add_argument("--collate", default="padded", choices=("padded", "packed"))
    p.add_argument("--replicas", "-D", type=whole(1, MAX_REPLICAS), default=1,
                   help="D: data-parallel replicas (local processes)")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    dp = p.add_argument_group("data parallel (with --replicas N or under torchrun)")
    dp.add_argument("--sync-every-microbatch", dest="no_sync", action="store_false",
                    help="all-reduce after every microbatch instead of once per update (to measure no_sync)")
    dp.add_argument("--duplicates", default="raise", choices=("raise", "warn", "off"),
                    help="what to do when replicas process the same sample ids")
    dp.add_argument("--dist-timeout", type=real(0.0, maximum=MAX_SECONDS), default=None, metavar="SECONDS",
                    help="timeout of every collective (default $GASTUDY_DIST_TIMEOUT or 60)")
    dp.add_argument("--shard", action="store_true",
                    help="sharded data parallel (FSDP2 fully_shard) instead of DDP; needs D ≥ 2")
    dp.add_argument("--sync", default=None, choices=("deferred", "every"),
                    help="with --shard: reduce-scatter on the last microbatch only (deferred, the default: unsharded "
                         "gradients held across the group) or after every microbatch (every: A× the traffic)")


def record_text(markdown: str, paths) -> str:
    """A run record's Markdown, and where it was written when it was (``paths``: JSON, Markdown)."""
    return markdown + (f"\nrecord written to {paths[0]} and {paths[1]}" if paths else "")


def notebooks_dir() -> Path:
    """The course folder: ``notebooks/`` beside the package (editable install) or in the cwd."""
    for candidate in (Path(__file__).resolve().parents[2] / "notebooks", Path.cwd() / "notebooks"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("no notebooks/ folder found: run this from a clone of the gastudy repository")

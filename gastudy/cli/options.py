"""What every ``gastudy`` subcommand shares: the engine's flags, one JSON object or text out, and
exit status 2 with a message for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gastudy.core.loss import NORMALIZATIONS
from gastudy.core.models import MODEL_NAMES
from gastudy.core.precision import PRECISIONS


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    """Print ``payload`` as one JSON object with ``--json``, else ``text``."""
    print(json.dumps(payload) if getattr(args, "json", False) else text)



def fail(args: argparse.Namespace, message: str, code: int = 2) -> int:
    """Report a usage error (JSON ``{"error": ..., "exit": code}`` with ``--json``) and return ``code``."""
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "exit": code}))
    else:
        print(f"gastudy: error: {message}", file=sys.stderr)
    return code



def train_config(args: argparse.Namespace):
    """The :class:`~gastudy.run.train.TrainConfig` described by ``gastudy train``'s flags."""
    from gastudy.run.train import TrainConfig

    return TrainConfig(
        model=args.model, micro_batch=args.micro_batch, accumulation_steps=args.accumulation_steps,
        epochs=args.epochs, lr=args.lr, precision=args.precision, normalization=args.normalization,
        last_group=args.last_group, collate=args.collate, dataset_size=args.dataset_size, seed=args.seed,
        clip_grad_norm=args.clip if args.clip > 0 else None, stop_after_updates=args.stop_after_updates,
        checkpoint_every=args.checkpoint_every, out_dir=args.out, progress=not args.no_progress and not args.json,
        device=args.device,
    )



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
    dp.add_argument("--shard", action="store_true",
                    help="sharded data parallel (FSDP2 fully_shard) instead of DDP; needs D ≥ 2")
    dp.add_argument("--sync", default=None, choices=("deferred", "every"),
                    help="with --shard: reduce-scatter on the last microbatch only (deferred, the default: unsharded "
                         "gradients held across the group) or after every microbatch (every: A× the traffic)")


def record_text(markdown: str, paths) -> str:
    """A run record's Markdown, and where it was written when it was (``paths``: JSON, Markdown)."""
    return markdown + (f"\nrecord written to {paths[0]} and {paths[1]}" if paths else "")

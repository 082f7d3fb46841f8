"""``gastudy verify --replicas N`` and ``gastudy train`` on several processes (MB-7, MB-10).

- :func:`verify_replicas`: the one-update verification on N local processes (DDP, gloo)
  against the single-process big batch over all m×A×N samples.
- :func:`train_replicas`: ``gastudy train`` with data parallelism. Under ``torchrun``
  (``RANK``/``WORLD_SIZE`` set) each process joins the group and trains its shard;
  ``gastudy train --replicas N`` starts N local processes itself. Either way
  :func:`gastudy.run.train.train` runs with :class:`~gastudy.parallel.ddp.DDPReplicas`, and the
  run record lists D, the per-replica sample and token counts, the gradient all-reduces per
  update and the sample-id check::

      torchrun --standalone --nproc-per-node 2 -m gastudy train --epochs 1 --json
      gastudy train --replicas 2 --json

Optional ``args`` attributes read here (defaults in brackets): ``no_sync`` [True],
``duplicates`` [``"raise"``], ``dist_timeout`` seconds [60], ``shard`` [False] and ``sync``
[``"deferred"``] (sharded data parallel, FSDP2; :func:`shard_error` says which combinations
are refused)::

      gastudy verify --replicas 2 --shard --sync every
      gastudy train --replicas 2 --shard --json
      torchrun --standalone --nproc-per-node 2 -m gastudy train --shard
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from typing import Any

from gastudy.check.replicas import verify_on_replicas
from gastudy.cli.options import emit, fail, normalization_of, record_text, train_config
from gastudy.parallel.process_group import (
    default_timeout_s,
    exit_when_parent_dies,
    init_from_env,
    shutdown,
)
from gastudy.run.replicas import train_on_replicas, train_worker

# --------------------------------------------------------------------------- sharding flags


def shard_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the sharding flags of ``args``, or ``None`` (course: MB-7).

    Refused: ``--sync`` without ``--shard`` (DDP has no sync policy: its switch is
    ``--sync-every-microbatch``); ``--shard`` with ``--sync-every-microbatch`` (use
    ``--sync every``); ``--shard`` on one replica (``--replicas`` < 2 and not under
    ``torchrun`` with ``WORLD_SIZE`` ≥ 2: nothing to shard across). Commands answer with exit 2.
    """
    shard, sync = getattr(args, "shard", False), getattr(args, "sync", None)
    if sync is not None and not shard:
        return (f"--sync {sync} chooses the sharded (FSDP2) sync policy: add --shard, or drop --sync "
                "(for DDP, --sync-every-microbatch turns no_sync off)")
    if shard and not getattr(args, "no_sync", True):
        return "--sync-every-microbatch is DDP's switch: with --shard use --sync every"
    world = int(os.environ.get("WORLD_SIZE", "1")) if "RANK" in os.environ else 1
    if shard and getattr(args, "replicas", 1) < 2 and world < 2:
        return ("--shard splits the model across data-parallel replicas, and there is only one: add --replicas N "
                "with N ≥ 2, or run under torchrun with --nproc-per-node ≥ 2")
    return None


def _sharding(args: argparse.Namespace) -> dict[str, Any]:
    shard = getattr(args, "shard", False)
    return {"shard": shard, "sync": (getattr(args, "sync", None) or "deferred")}


# --------------------------------------------------------------------------- verify


def verify_replicas(args: argparse.Namespace) -> tuple[int, dict[str, Any]]:
    """``gastudy verify --replicas N``: verify one update on N local processes (MB-7, MB-10).

    Reads ``args.model, micro_batch, accumulation_steps, precision, normalization, collate,
    replicas, seed`` (and optional ``save``, ``no_sync``, ``dist_timeout``). Returns
    ``(exit_code, payload)``: 0 when every check passed, 1 when a check failed or a worker
    died, 2 for bad settings. ``payload`` is the report as a dict (``passed``, ``reasons``,
    ``max_abs_diff``, ``max_rel_diff``, ``checks``, ``record`` with D and per-replica counts,
    ``naive`` gap, ``allreduce_calls``) plus ``text``, the human-readable report.

    Course: MB-7, MB-10.
    """
    from gastudy.course.mistakes import PerReplicaMean
    from gastudy.parallel.launch import LaunchStopped, LaunchTimeout, WorkerError

    if (error := shard_error(args)) is not None:
        return 2, {"error": error, "text": f"gastudy: error: {error}"}
    normalization = normalization_of(args)  # what the engine divides by; the naive mean is measured beside it
    try:
        rank0 = verify_on_replicas(args.replicas, args.model, args.micro_batch, args.accumulation_steps,
                                   args.precision, normalization, args.collate, args.seed,
                                   no_sync=getattr(args, "no_sync", True), naive=PerReplicaMean(),
                                   timeout_s=getattr(args, "dist_timeout", None), **_sharding(args))
    except ValueError as e:
        return 2, {"error": str(e), "text": f"gastudy: error: {e}"}
    except (WorkerError, LaunchTimeout) as e:
        return 1, {"error": str(e), "passed": False, "text": f"gastudy: verification did not run: {e}"}
    except LaunchStopped as e:
        return 128 + e.signal, {"error": str(e), "passed": False, "text": f"gastudy: {e}"}
    report = rank0["report"]
    if getattr(args, "save", None):
        report.record.save(args.save, "verify_record")
    payload = {**report.to_dict(), "naive": rank0["naive"], "allreduce_calls": rank0["allreduce_calls"],
               "collectives": rank0.get("collectives"), "peak_gradient_bytes": rank0.get("peak_gradient_bytes")}
    payload["text"] = f"{report}\n(D={args.replicas} processes; naive per-replica mean: relative gap " \
                      f"{rank0['naive']['max_rel_diff']:.3g})"
    return (0 if report.passed else 1), payload


# --------------------------------------------------------------------------- train


def _emit(args: argparse.Namespace, result: dict[str, Any]) -> None:
    emit(args, result["record"], record_text(result["markdown"], result.get("record_paths")))


def train_replicas(args: argparse.Namespace) -> int:
    """``gastudy train`` with D data-parallel replicas; returns the exit status (MB-7, MB-10).

    Under ``torchrun`` (``RANK``/``WORLD_SIZE`` set): joins the process group (gloo, timeout
    ``dist_timeout``), trains this rank's shard and rank 0 prints the record; every rank
    leaves the group cleanly. Without them, ``--replicas N`` starts N local processes and
    prints rank 0's record; a first Ctrl-C stops every replica at the same group boundary
    (checkpoints and partial record written) and a second at once. Exit status: 0 done, 1 a
    replica failed, 2 bad settings (including ``--replicas`` disagreeing with torchrun's
    ``WORLD_SIZE``), 130 Ctrl-C, 128 + N another signal N.

    Course: MB-7, MB-10.
    """
    timeout = float(getattr(args, "dist_timeout", None) or default_timeout_s())
    no_sync, duplicates = getattr(args, "no_sync", True), getattr(args, "duplicates", "raise")
    try:
        config = train_config(args).validate()
    except ValueError as e:
        return fail(args, str(e))
    if (error := shard_error(args)) is not None:
        return fail(args, error)
    if config.out_dir is not None:  # a bad or busy --out is refused before any process starts
        from gastudy.run.train import check_out_dir

        try:
            check_out_dir(config.out_dir, getattr(args, "resume", False), config.overwrite)
        except ValueError as e:
            return fail(args, str(e))
    if getattr(args, "resume", False) and (error := _resume_error(args, config)) is not None:
        return fail(args, error)  # known up front: refused before any process starts
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        world = int(os.environ["WORLD_SIZE"])
        if args.replicas > 1 and args.replicas != world:
            return fail(args, f"--replicas {args.replicas} disagrees with torchrun's {world} processes: drop "
                              "--replicas under torchrun (D is the number of processes)")
        return _train_under_torchrun(args, config, timeout, no_sync, duplicates)
    from gastudy.parallel.launch import LaunchStopped, LaunchTimeout, WorkerError

    try:
        result = train_on_replicas(config, args.replicas, resume=getattr(args, "resume", False), no_sync=no_sync,
                                   duplicates=duplicates, timeout_s=timeout, **_sharding(args))
    except WorkerError as e:
        refused = [f for f in e.failures.values() if f.type in REFUSALS]
        if refused:  # a checkpoint or a setting a rank refused: its one line, not a traceback
            return fail(args, " ".join(refused[0].message.split()), code=2)
        return fail(args, str(e), code=1)
    except LaunchTimeout as e:
        return fail(args, str(e), code=1)
    except LaunchStopped as e:  # SIGTERM/SIGHUP/SIGQUIT: the workers are gone, and so are the temp files
        return fail(args, f"{e}; {_resume_hint(config)}", code=128 + e.signal)
    except KeyboardInterrupt:  # a second Ctrl-C: the workers were stopped without waiting for a boundary
        return fail(args, f"interrupted (SIGINT): every worker process was stopped; {_resume_hint(config)}",
                    code=130)
    if result.get("diverged"):
        return fail(args, result["diverged"], code=1)
    _emit(args, result)
    if result.get("interrupted"):  # the first Ctrl-C: every rank stopped at the same group boundary
        where = (f"checkpoints and partial record in {config.out_dir}; continue with the same command and --resume"
                 if config.out_dir else "nothing was saved (no --out)")
        print(f"gastudy: interrupted (SIGINT) at a group boundary after {result['record']['updates_attempted']} "
              f"updates on {args.replicas} replicas: {where}", file=sys.stderr)
        return 130
    return 0


def _resume_error(args: argparse.Namespace, config) -> str | None:
    """Why a multi-process ``--resume`` cannot continue, read from the committed checkpoint's
    manifest (JSON, nothing deserialized), or ``None``: no ``--out``, no committed checkpoint,
    another kind of run, another D, other settings."""
    from gastudy.run.commit import latest_folder
    from gastudy.run.resume import CheckpointError
    from gastudy.run.train import resume_key

    if config.out_dir is None:
        return "--resume needs --out: the folder of the interrupted run"
    world = int(os.environ.get("WORLD_SIZE", args.replicas))
    try:
        folder = latest_folder(config.out_dir)
        manifest = json.loads((folder / "MANIFEST.json").read_text())
    except FileNotFoundError:
        return None  # the run's own check names what it finds instead (another kind, an older layout)
    except CheckpointError as err:
        return str(err)
    kind = "sharded" if getattr(args, "shard", False) else "ddp"
    if manifest["kind"] != kind:
        flag = "with --shard" if manifest["kind"] == "sharded" else "without --shard"
        return f"the checkpoint in {config.out_dir} was written by a {manifest['kind']} run: resume {flag}"
    if manifest["replicas"] != world:
        return (f"the checkpoint in {config.out_dir} was written by {manifest['replicas']} replicas: resume with "
                f"--replicas {manifest['replicas']}")
    now = resume_key(config, world, getattr(args, "sync", None) or "deferred" if kind == "sharded" else None)
    saved = manifest.get("config") or {}
    diff = [f"{k}: checkpoint {saved[k]!r} vs now {v!r}" for k, v in now.items() if k in saved and saved[k] != v]
    if diff:
        return f"the checkpoint in {config.out_dir} belongs to a different run ({', '.join(diff)}); resume with the same settings"
    return None


# What a rank raises for input it refuses (a checkpoint, a setting): reported in its one line.
REFUSALS = ("CheckpointError", "ValueError", "FileNotFoundError")


def _resume_hint(config) -> str:
    """What a multi-process run stopped at once leaves and how to continue it."""
    if config.out_dir and config.checkpoint_every:
        return (f"continue from the last checkpoint in {config.out_dir} with the same command and --resume")
    return ("no checkpoint was written (one Ctrl-C stops at a group boundary with a checkpoint when --out is "
            "set; --checkpoint-every also keeps one against a kill)")


def _train_under_torchrun(args: argparse.Namespace, config, timeout: float, no_sync: bool, duplicates: str) -> int:
    """The torchrun path of :func:`train_replicas` (one process per replica)."""
    try:
        exit_when_parent_dies()  # the agent killed: this worker stops too, instead of training on as an orphan
        init_from_env("gloo", timeout)
        result = train_worker(config, resume=getattr(args, "resume", False), no_sync=no_sync,
                              duplicates=duplicates, **_sharding(args))
    except BaseException as e:  # noqa: BLE001 - report, then leave without a teardown abort
        rank = os.environ.get("RANK", "?")
        if not isinstance(e, ValueError):  # bad settings get one message; a fault gets its traceback
            traceback.print_exc()
        fail(args, f"rank {rank}: {type(e).__name__}: {e}")
        sys.stdout.flush()
        sys.stderr.flush()
        # Other ranks may be blocked in a collective: exit now, skipping C++ destructors.
        os._exit(2 if isinstance(e, ValueError) else 1)
    if result.get("diverged"):
        fail(args, f"rank {result['rank']}: {result['diverged']}", code=1)
        sys.stdout.flush()
        shutdown()
        return 1
    if result["rank"] == 0:
        _emit(args, result)
    sys.stdout.flush()
    shutdown()
    return 0

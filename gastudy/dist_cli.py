"""``gastudy verify --replicas N`` and ``gastudy train`` on several processes (MB-7, MB-10).

- :func:`verify_replicas`: the one-update verification on N local processes (DDP, gloo)
  against the single-process big batch over all m×A×N samples.
- :func:`train_replicas`: ``gastudy train`` with data parallelism. Under ``torchrun``
  (``RANK``/``WORLD_SIZE`` set) each process joins the group and trains its shard;
  ``gastudy train --replicas N`` starts N local processes itself. Either way
  :func:`gastudy.train.train` runs with :class:`~gastudy.distributed.DDPReplicas`, and the
  run record lists D, the per-replica sample and token counts, the gradient all-reduces per
  update and the sample-id check::

      torchrun --standalone --nproc-per-node 2 -m gastudy train --epochs 1 --json
      gastudy train --replicas 2 --json

Optional ``args`` attributes read here (defaults in brackets): ``no_sync`` [True],
``duplicates`` [``"raise"``], ``dist_timeout`` seconds [60].
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import Any

import torch
import torch.distributed as dist

from gastudy.distributed import (
    DDPReplicas,
    check_sample_ids,
    default_timeout_s,
    init_from_env,
    shutdown,
)

# --------------------------------------------------------------------------- verify


def verify_replicas_worker(model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                           precision: str = "fp32", normalization: str = "tokens", collate: str = "padded",
                           seed: int = 0, no_sync: bool = True):
    """One rank of :func:`verify_replicas`: one real DDP update and (rank 0) the big batch.

    Returns this rank's facts; rank 0 also returns the :class:`~gastudy.verify.VerifyReport`.

    Course: MB-7.
    """
    from gastudy.counting import count_supervised
    from gastudy.engine import Accumulator
    from gastudy.models import build_model, task_of
    from gastudy.record import RunRecord
    from gastudy.verify import (
        TOLERANCES,
        Check,
        VerifyReport,
        compare_gradients,
        controlled_microbatches,
        grads_are_zero,
        has_batchnorm,
        reference_gradients,
        watch_steps,
    )

    task, D, rank = task_of(model), dist.get_world_size(), dist.get_rank()
    shards = [controlled_microbatches(model, micro_batch, accumulation_steps, collate, seed, replicas=D, rank=r)
              for r in range(D)]
    gradients, results = {}, {}
    for mode in ("global", "local"):  # the naive local mean is measured for comparison only
        net = build_model(model, seed=seed)
        replicas = DDPReplicas(no_sync=no_sync, denominator=mode)
        optimizer = torch.optim.SGD(net.parameters(), lr=1e-3)
        engine = Accumulator(replicas.wrap(net), optimizer, accumulation_steps=accumulation_steps, task=task,
                             normalization=normalization, precision=precision, replicas=replicas)
        group = next(iter(replicas.group_stream(shards[rank], accumulation_steps, task)))
        zero_before = grads_are_zero(net)
        with watch_steps(net, optimizer) as watch:
            results[mode] = engine.update(group)
        gradients[mode] = watch.gradients
        if mode == "global":
            main = {"replicas": replicas, "group": group, "steps": watch.steps, "engine": engine,
                    "zero": zero_before and grads_are_zero(net), "has_bn": has_batchnorm(net)}
    replicas, group = main["replicas"], main["group"]
    digest = [float(sum(g.double().sum() for g in gradients["global"].values()))]
    digests = replicas.gather(digest)
    if rank != 0:
        return {"rank": rank}
    ref = reference_gradients(build_model(model, seed=seed), [mb for shard in shards for mb in shard], task)
    max_abs, max_rel = compare_gradients(gradients["global"], ref)
    naive_abs, naive_rel = compare_gradients(gradients["local"], ref)
    tolerance = TOLERANCES[precision]
    totals, ids = replicas.totals, replicas.ids_report
    ref_ids = [int(i) for shard in shards for mb in shard for i in mb["sample_ids"].reshape(-1)]
    ref_items = sum(count_supervised(mb, task) for shard in shards for mb in shard)
    comm = replicas.counter.per_update()
    calls = comm[0]["calls"] if comm else 0
    checks = [
        Check("gradient equals the single-process big batch", max_rel <= tolerance,
              f"max |Δ| = {max_abs:.3g}, relative {max_rel:.3g} (tolerance {tolerance:g} for {precision}) over "
              f"{len(ref_ids)} samples = m×A×D = {micro_batch}×{accumulation_steps}×{D}"),
        Check("same gradient on every replica", len({d[0] for d in digests}) == 1,
              f"gradient sums per rank: {[d[0] for d in digests]}"),
        Check("sample ids distinct across replicas", ids is not None and ids.ok and ids.distinct == len(ref_ids),
              str(ids) if ids else "not checked"),
        Check("global denominator = the big batch's supervised items", results["global"].denominator == ref_items,
              f"{results['global'].denominator} agreed (" + " + ".join(str(t["supervised_tokens"]) for t in totals)
              + f" per replica), big batch {ref_items}"),
        Check("gradients zero at the group boundary", main["zero"], "zero before and after" if main["zero"]
              else "NOT zero"),
        Check("exactly one optimizer step", main["steps"] == 1, f"{main['steps']} optimizer step(s)"),
    ]
    reasons = [f"{c.name}: {c.detail}" for c in checks if not c.ok]
    if reasons and main["has_bn"]:
        reasons.append("the model has BatchNorm: each microbatch (and each replica) is normalized with its own "
                       "statistics, so accumulation cannot reproduce the big batch (MB-8)")
    if reasons and normalization != "tokens":
        reasons.append(f"normalization {normalization!r} weights microbatches equally although their supervised "
                       f"counts differ; use 'tokens'")
    c = main["engine"].counters
    record = RunRecord(
        model=model, task=task, micro_batch=micro_batch, accumulation_steps=accumulation_steps, replicas=D,
        effective_batch=micro_batch * accumulation_steps * D, precision=precision, normalization=normalization,
        last_group_policy="keep", updates_attempted=c.updates_attempted, updates_applied=c.updates_applied,
        scheduler_steps=c.scheduler_steps, microbatches=sum(t["microbatches"] for t in totals),
        samples=sum(t["samples"] for t in totals), supervised_tokens=sum(t["supervised_tokens"] for t in totals),
        per_replica=[{k: t[k] for k in ("rank", "samples", "supervised_tokens", "microbatches")} for t in totals],
        final_loss=results["global"].loss, seed=seed, device="cpu",
        notes=[f"data parallel: D={D} local processes (gloo), no_sync {'on' if no_sync else 'off'}: "
               f"{calls} gradient all-reduce call(s) in the update",
               f"the naive per-replica mean would differ from the big batch by {naive_abs:.3g} "
               f"(relative {naive_rel:.3g})"],
    )
    config = {"model": model, "micro_batch": micro_batch, "accumulation_steps": accumulation_steps,
              "replicas": D, "precision": precision, "normalization": normalization, "task": task, "seed": seed,
              "no_sync": no_sync}
    report = VerifyReport(not reasons, checks, max_abs, max_rel, tolerance, config, record, reasons)
    return {"rank": 0, "report": report, "naive": {"max_abs_diff": naive_abs, "max_rel_diff": naive_rel},
            "allreduce_calls": calls}


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
    from gastudy.launch import LaunchTimeout, WorkerError, run_local
    from gastudy.loss import check_normalization
    from gastudy.plan import BatchPlan
    from gastudy.precision import PRECISIONS

    try:
        BatchPlan(args.micro_batch, args.accumulation_steps, args.replicas)
        check_normalization(args.normalization)
        if args.precision not in PRECISIONS:
            raise ValueError(f"unknown precision {args.precision!r}; use one of {', '.join(PRECISIONS)}")
    except ValueError as e:
        return 2, {"error": str(e), "text": f"gastudy: error: {e}"}
    timeout = float(getattr(args, "dist_timeout", None) or default_timeout_s())
    try:
        ranks = run_local(verify_replicas_worker, args.replicas, model=args.model, micro_batch=args.micro_batch,
                          accumulation_steps=args.accumulation_steps, precision=args.precision,
                          normalization=args.normalization, collate=args.collate, seed=args.seed,
                          no_sync=getattr(args, "no_sync", True), pg_timeout=timeout, timeout=timeout * 4)
    except (WorkerError, LaunchTimeout) as e:
        return 1, {"error": str(e), "passed": False, "text": f"gastudy: verification did not run: {e}"}
    report = ranks[0]["report"]
    if getattr(args, "save", None):
        report.record.save(args.save, "verify_record")
    payload = {**report.to_dict(), "naive": ranks[0]["naive"], "allreduce_calls": ranks[0]["allreduce_calls"]}
    payload["text"] = f"{report}\n(D={args.replicas} processes; naive per-replica mean: relative gap " \
                      f"{ranks[0]['naive']['max_rel_diff']:.3g})"
    return (0 if report.passed else 1), payload


# --------------------------------------------------------------------------- train


def distributed_record_notes(replicas: DDPReplicas) -> tuple[list[str], dict[str, Any]]:
    """Notes for the run record, and the data behind them: D, all-reduces per update, and
    the sample-id check of every epoch (a collective: call on every rank).

    Course: MB-7.
    """
    summary = replicas.summary()
    per_epoch = [check_sample_ids(ids) for ids in
                 (replicas.gather_ids(epoch_ids) for epoch_ids in replicas.ids_per_stream)]
    comm = summary["allreduce_per_update"]
    calls = sorted({c["calls"] for c in comm})
    notes = [f"data parallel: D={replicas.size} replicas ({dist.get_backend()}), no_sync "
             f"{'on' if replicas.no_sync else 'off'}, denominator {replicas.denominator}; gradient all-reduce "
             f"calls per update: {calls if len(calls) > 1 else (calls[0] if calls else 0)}"]
    notes += [f"epoch {e}: {report}" for e, report in enumerate(per_epoch)]
    summary["sample_ids_per_epoch"] = [r.to_dict() for r in per_epoch]
    return notes, summary


def train_worker(config, resume: bool = False, no_sync: bool = True, duplicates: str = "raise") -> dict[str, Any]:
    """One replica of a data-parallel ``gastudy train`` (inside an initialized process group).

    Runs :func:`gastudy.train.train` with :class:`DDPReplicas` and completes the record for D
    replicas: the distributed notes (all-reduces per update, sample-id check per epoch),
    and per-replica and total microbatches with fillers excluded (only for a run that was not
    resumed, since those totals are counted in this process).
    Rank 0 re-saves the record when ``out_dir`` is set. Returns ``{"rank", "record" (dict),
    "markdown", "record_paths", "distributed" (summary)}``.

    Course: MB-7.
    """
    from gastudy.train import train

    replicas = DDPReplicas(no_sync=no_sync, duplicates=duplicates)
    run = train(config, resume=resume, replicas=replicas)
    notes, summary = distributed_record_notes(replicas)
    record = run.record
    record.notes = [*record.notes, *notes]
    if not resume:
        for entry, totals in zip(record.per_replica, summary["per_replica"]):
            entry["microbatches"] = totals["microbatches"]
        # Totals over all replicas, like samples and tokens.
        record.microbatches = sum(t["microbatches"] for t in summary["per_replica"])
    paths = None
    if run.record_paths is not None:
        paths = [str(p) for p in record.save(run.record_paths[0].parent)]
    return {"rank": replicas.rank, "record": record.to_dict(), "markdown": record.to_markdown(),
            "record_paths": paths, "distributed": summary}


def _emit(args: argparse.Namespace, result: dict[str, Any]) -> None:
    import json

    if getattr(args, "json", False):
        print(json.dumps(result["record"]))
    else:
        where = f"\nrecord written to {result['record_paths'][0]} and {result['record_paths'][1]}" \
            if result.get("record_paths") else ""
        print(result["markdown"] + where)


def _error(args: argparse.Namespace, message: str) -> None:
    import json

    if getattr(args, "json", False):
        print(json.dumps({"error": message}))
    else:
        print(f"gastudy: error: {message}", file=sys.stderr)


def train_replicas(args: argparse.Namespace) -> int:
    """``gastudy train`` with D data-parallel replicas; returns the exit status (MB-7, MB-10).

    Under ``torchrun`` (``RANK``/``WORLD_SIZE`` set): joins the process group (gloo, timeout
    ``dist_timeout``), trains this rank's shard and rank 0 prints the record; every rank
    leaves the group cleanly. Without them, ``--replicas N`` starts N local processes and
    prints rank 0's record. Exit status: 0 done, 1 a replica failed, 2 bad settings
    (including ``--replicas`` disagreeing with torchrun's ``WORLD_SIZE``).

    Course: MB-7, MB-10.
    """
    from gastudy.cli import train_config

    timeout = float(getattr(args, "dist_timeout", None) or default_timeout_s())
    no_sync, duplicates = getattr(args, "no_sync", True), getattr(args, "duplicates", "raise")
    try:
        config = train_config(args).validate()
    except ValueError as e:
        _error(args, str(e))
        return 2
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        world = int(os.environ["WORLD_SIZE"])
        if args.replicas > 1 and args.replicas != world:
            _error(args, f"--replicas {args.replicas} disagrees with torchrun's {world} processes: drop --replicas "
                         "under torchrun (D is the number of processes)")
            return 2
        return _train_under_torchrun(args, config, timeout, no_sync, duplicates)
    from gastudy.launch import LaunchTimeout, WorkerError, run_local

    config.progress = False  # workers' output is captured; the record is printed at the end
    try:
        ranks = run_local(train_worker, args.replicas, config, resume=getattr(args, "resume", False),
                          no_sync=no_sync, duplicates=duplicates, pg_timeout=timeout, timeout=max(600.0, timeout * 4))
    except (WorkerError, LaunchTimeout) as e:
        _error(args, str(e))
        return 1
    _emit(args, ranks[0])
    return 0


def _train_under_torchrun(args: argparse.Namespace, config, timeout: float, no_sync: bool, duplicates: str) -> int:
    """The torchrun path of :func:`train_replicas` (one process per replica)."""
    try:
        init_from_env("gloo", timeout)
        result = train_worker(config, resume=getattr(args, "resume", False), no_sync=no_sync,
                              duplicates=duplicates)
    except BaseException as e:  # noqa: BLE001 - report, then leave without a teardown abort
        rank = os.environ.get("RANK", "?")
        traceback.print_exc()
        _error(args, f"rank {rank}: {type(e).__name__}: {e}")
        sys.stdout.flush()
        sys.stderr.flush()
        # Other ranks may be blocked in a collective: exit now, skipping C++ destructors.
        os._exit(2 if isinstance(e, ValueError) else 1)
    if result["rank"] == 0:
        _emit(args, result)
    sys.stdout.flush()
    shutdown()
    return 0

"""``gastudy train`` on D data-parallel replicas (course: MB-7, MB-10).

:func:`train_worker` is one replica: :func:`gastudy.run.train.train` with
:class:`~gastudy.parallel.ddp.DDPReplicas`, and the record completed for D replicas.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import torch.distributed as dist

from gastudy.core.workloads import workload
from gastudy.parallel.agreement import check_sample_ids
from gastudy.parallel.ddp import DDPReplicas
from gastudy.parallel.fsdp import make_replicas


def distributed_record_notes(replicas: DDPReplicas) -> tuple[list[str], dict[str, Any]]:
    """Notes for the run record, and the data behind them: D, all-reduces per update, and
    the sample-id check of every epoch (a collective: call on every rank).

    """
    summary = replicas.summary()
    per_epoch = [check_sample_ids(ids) for ids in
                 (replicas.gather_ids(epoch_ids) for epoch_ids in replicas.ids_per_stream)]
    comm = summary["allreduce_per_update"]
    calls = sorted({c["calls"] for c in comm})
    notes = [replicas.describe() if hasattr(replicas, "describe") else  # sharded: names the sharding and sync
             f"data parallel: D={replicas.size} replicas ({dist.get_backend()}), no_sync "
             f"{'on' if replicas.no_sync else 'off'}, global denominator; gradient all-reduce "
             f"calls per update: {calls if len(calls) > 1 else (calls[0] if calls else 0)}"]
    notes += [f"epoch {e}: {report}" for e, report in enumerate(per_epoch)]
    summary["sample_ids_per_epoch"] = [r.to_dict() for r in per_epoch]
    return notes, summary



def train_worker(config, resume: bool = False, no_sync: bool = True, duplicates: str = "raise", shard: bool = False,
                 sync: str = "deferred") -> dict[str, Any]:
    """One replica of a data-parallel ``gastudy train`` (inside an initialized process group).

    Runs :func:`gastudy.run.train.train` with :class:`DDPReplicas` (with ``shard``: FSDP2's
    :class:`~gastudy.parallel.fsdp.FSDPReplicas`, sync policy ``sync``; the record's note then names
    the sharding, the sync policy and the collectives per update) and completes the record for D
    replicas: the distributed notes (all-reduces per update, sample-id check per epoch),
    and per-replica and total microbatches with fillers excluded (only for a run that was not
    resumed, since those totals are counted in this process).
    Rank 0 re-saves the record when ``out_dir`` is set. Returns ``{"rank", "record" (dict),
    "markdown", "record_paths", "distributed" (summary), "interrupted"}`` (``"SIGINT"`` when the
    launcher asked the ranks to stop and they stopped at a group boundary, else ``None``).

    """
    from gastudy.run.train import TrainingDiverged, train

    replicas = make_replicas(shard, sync, no_sync, config.precision, duplicates=duplicates)
    try:
        run = train(config, resume=resume, replicas=replicas)
    except TrainingDiverged as e:  # every rank sees the same group loss: all stop at the same update
        return {"rank": replicas.rank, "diverged": str(e), "record": e.run.record.to_dict(),
                "markdown": e.run.record.to_markdown(), "record_paths": None, "distributed": {}, "interrupted": None}
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
            "record_paths": paths, "distributed": summary, "interrupted": run.extra.get("interrupted")}


def train_on_replicas(config, replicas: int, resume: bool = False, no_sync: bool = True, duplicates: str = "raise",
                      timeout_s: float | None = None, shard: bool = False, sync: str = "deferred") -> dict[str, Any]:
    """Train ``config`` on ``replicas`` local processes (DDP, gloo); rank 0's :func:`train_worker` result.

    ``timeout_s`` bounds every collective (default
    :func:`~gastudy.parallel.process_group.default_timeout_s`); the whole run gets four times
    that, at least 600 s. The workers' progress bars are turned off (their output is
    captured). A first Ctrl-C asks every rank to stop at the next group boundary (checkpoints
    and partial record written, ``"interrupted"`` set); a second stops them at once. Raises :class:`~gastudy.parallel.launch.WorkerError` (with the failing rank's
    traceback) or :class:`~gastudy.parallel.launch.LaunchTimeout`.
    """
    from gastudy.parallel.launch import run_local
    from gastudy.parallel.process_group import default_timeout_s

    timeout = float(timeout_s or default_timeout_s())
    # the workers get the workload itself, not its name: a fresh process has registered nothing
    config = dataclasses.replace(config, progress=False, model=workload(config.model))
    ranks = run_local(train_worker, replicas, config, resume=resume, no_sync=no_sync, duplicates=duplicates,
                      shard=shard, sync=sync, graceful_sigint=True,
                      pg_timeout=timeout, timeout=max(600.0, timeout * 4))
    return ranks[0]

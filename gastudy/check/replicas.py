"""One update verified on D data-parallel replicas (course: MB-7, MB-10).

:func:`verify_on_replicas` starts D local processes (DDP, gloo); each runs one real
accumulated update of the engine (:func:`verify_replicas_worker`) and rank 0 compares the
gradient with the single-process big batch over all m×A×D samples.

:func:`check_loop_on_replicas` does the same for *your* data-parallel ``train_step``
(``check_loop(..., replicas=D)``): each process runs it on its own A microbatches with a copy
of the model in ``DistributedDataParallel``; rank 0 judges the global update with the kernel
and the ranks' communication is counted (a ``no_sync`` that syncs anyway is reported).
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.distributed as dist

from gastudy.check.steps import first_step_gradients, grads_are_zero
from gastudy.check.trace import trace_loop
from gastudy.core.loss import Normalization
from gastudy.core.workloads import Workload, workload
from gastudy.parallel.fsdp import engine_precision, full_tensors, make_replicas


def verify_replicas_worker(model: str | Workload = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                           precision: str = "fp32", normalization: str | Normalization = "tokens",
                           collate: str = "padded", seed: int = 0, no_sync: bool = True, shard: bool = False,
                           sync: str = "deferred", naive: Normalization | None = None):
    """One rank of :func:`verify_on_replicas`: one real DDP update and (rank 0) the big batch.

    With ``shard`` the replicas are FSDP2 (:class:`~gastudy.parallel.fsdp.FSDPReplicas`, sync
    policy ``sync``) and the sharded gradients are made whole before the comparison. ``naive``:
    a second normalization whose update is run too and measured against the same big batch
    (the course's per-replica mean). Returns this rank's facts; rank 0 also returns the
    :class:`~gastudy.check.verify.VerifyReport`.

    """
    from gastudy.check.judge import judge_update
    from gastudy.check.reference import flat_gradient, unflatten
    from gastudy.check.verify import (
        Check,
        VerifyReport,
        compare_gradients,
        controlled_microbatches,
        has_batchnorm,
    )
    from gastudy.core.counting import count_supervised
    from gastudy.core.engine import Accumulator, Counters
    from gastudy.core.groups import build_group
    from gastudy.core.loss import as_normalization
    from gastudy.core.record import RunRecord

    work = workload(model)
    task, D, rank = work.task, dist.get_world_size(), dist.get_rank()
    shards = [controlled_microbatches(model, micro_batch, accumulation_steps, collate, seed, replicas=D, rank=r)
              for r in range(D)]
    gradients, results = {}, {}
    modes = {"global": as_normalization(normalization), **({"naive": naive} if naive is not None else {})}
    for mode, norm in modes.items():
        net = work.build(seed=seed)
        replicas = make_replicas(shard, sync, no_sync, precision)
        wrapped = replicas.wrap(net)  # fully_shard replaces the parameters: the optimizer comes after
        optimizer = torch.optim.SGD(wrapped.parameters(), lr=1e-3)
        engine = Accumulator(wrapped, optimizer, accumulation_steps=accumulation_steps, task=task,
                             normalization=norm, precision=engine_precision(replicas, precision),
                             replicas=replicas)
        group = next(iter(replicas.group_stream(shards[rank], accumulation_steps, task)))
        zero_before = grads_are_zero(net)
        with trace_loop(net, optimizer, track_applied=False) as trace:
            results[mode] = engine.update(group)
        gradients[mode] = full_tensors(first_step_gradients(trace.steps))  # collective when sharded: every rank
        if mode == "global":
            main = {"replicas": replicas, "group": group, "steps": len(trace.steps), "engine": engine,
                    "zero": zero_before and grads_are_zero(net), "has_bn": has_batchnorm(net), "trace": trace}
    replicas, group = main["replicas"], main["group"]
    digest = [float(sum(g.double().sum() for g in gradients["global"].values()))]
    digests = replicas.gather(digest)
    if rank != 0:
        return {"rank": rank}
    everything = [mb for shard in shards for mb in shard]
    reference_model = work.build(seed=seed)
    verdict, reference, big = judge_update(main["trace"], reference_model, build_group(0, everything, len(everything),
                                                                                        task),
                                           step_gradient=flat_gradient(gradients["global"], reference_model))
    max_rel, tolerance = verdict.rel_error, verdict.tolerance
    ref = unflatten(big.gradient, reference_model)
    max_abs, _ = compare_gradients(gradients["global"], ref)
    naive_abs, naive_rel = compare_gradients(gradients["naive"], ref) if naive is not None else (None, None)
    totals, ids = replicas.totals, replicas.ids_report
    ref_ids = [int(i) for shard in shards for mb in shard for i in mb["sample_ids"].reshape(-1)]
    ref_items = sum(count_supervised(mb, task) for shard in shards for mb in shard)
    comm = replicas.counter.per_update()
    calls = comm[0]["calls"] if comm else 0
    checks = [
        Check("gradient equals the single-process big batch", max_rel <= tolerance,
              f"relative error {max_rel:.3g}, max |Δ| = {max_abs:.3g} ({verdict.within()}) over "
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
                       "statistics, so accumulation cannot reproduce the big batch")
    name = modes["global"].name
    if reasons and name != "tokens":
        reasons.append(f"normalization {name!r} weights microbatches equally although their supervised "
                       f"counts differ; use 'tokens'")
    counts = Counters.over_replicas([{**main["engine"].counters.to_dict(), **t, "backward_passes": t["microbatches"]}
                                     for t in totals])
    record = RunRecord(
        **counts.to_dict(), model=work.name, task=task, micro_batch=micro_batch, accumulation_steps=accumulation_steps,
        replicas=D, effective_batch=micro_batch * accumulation_steps * D, precision=precision, normalization=name,
        last_group_policy="keep", per_replica=[{k: t[k] for k in ("rank", "samples", "supervised_tokens", "microbatches")} for t in totals],
        final_loss=results["global"].loss, seed=seed, device="cpu",
        notes=[replicas.describe() if shard else
               f"data parallel: D={D} local processes (gloo), no_sync {'on' if no_sync else 'off'}: "
               f"{calls} gradient all-reduce call(s) in the update",
               *([f"the {naive.name} would differ from the big batch by {naive_abs:.3g} (relative {naive_rel:.3g})"]
                 if naive is not None else [])],
    )
    config = {"model": work.name, "micro_batch": micro_batch, "accumulation_steps": accumulation_steps,
              "replicas": D, "precision": precision, "normalization": name, "task": task, "seed": seed,
              "no_sync": no_sync, "sharding": "fsdp2" if shard else None, "sync": sync if shard else None}
    report = VerifyReport(not reasons, checks, max_abs, max_rel, tolerance, config, record, reasons, verdict.floor)
    return {"rank": 0, "report": report,
            "naive": None if naive is None else {"max_abs_diff": naive_abs, "max_rel_diff": naive_rel,
                                                 "rel_error": naive_rel},
            "allreduce_calls": calls, "collectives": comm[0] if comm else {},
            "peak_gradient_bytes": max(replicas.peak_gradient_bytes.values(), default=0) if shard else None}


def check_replica_settings(replicas: int, micro_batch: int, accumulation_steps: int, precision: str,
                           normalization: str | Normalization, shard: bool = False, sync: str = "deferred") -> None:
    """Raise ``ValueError`` (saying what to change) for settings no replica could run;
    with ``shard`` also the sync policy and fp16 (:func:`~gastudy.parallel.fsdp.check_shard_settings`)."""
    from gastudy.core.loss import as_normalization
    from gastudy.core.plan import BatchPlan
    from gastudy.core.precision import PRECISIONS

    BatchPlan(micro_batch, accumulation_steps, replicas)
    as_normalization(normalization)
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; use one of {', '.join(PRECISIONS)}")
    if shard:
        from gastudy.parallel.fsdp import check_shard_settings

        check_shard_settings(sync, precision)


def verify_on_replicas(replicas: int, model: str | Workload = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                       precision: str = "fp32", normalization: str | Normalization = "tokens",
                       collate: str = "padded", seed: int = 0, no_sync: bool = True, timeout_s: float | None = None,
                       shard: bool = False, sync: str = "deferred", naive: Normalization | None = None
                       ) -> dict[str, Any]:
    """Verify one accumulated update on ``replicas`` local processes (DDP, gloo).

    ``model`` is a registered :class:`~gastudy.core.workloads.Workload` (by name or the object;
    the workers get the object). Each process runs one real update of m×A samples of its
    data (its shard; shards have different token counts); rank 0 compares the gradient at the optimizer step with the single-process big
    batch over all m×A×D samples. ``timeout_s`` bounds every collective (default
    :func:`~gastudy.parallel.process_group.default_timeout_s`); the whole run gets four times
    that. Returns rank 0's ``{"report": VerifyReport, "naive": {"max_abs_diff",
    "max_rel_diff"} (the gap of the update with the ``naive`` normalization, ``None`` without
    one), "allreduce_calls": int}``. With ``shard``
    the replicas are FSDP2 with sync policy ``sync`` (``allreduce_calls`` then counts the
    reduce-scatters; ``collectives`` and ``peak_gradient_bytes`` say more).

    Raises ``ValueError`` for bad settings (before any process starts), and
    :class:`~gastudy.parallel.launch.WorkerError` / :class:`~gastudy.parallel.launch.LaunchTimeout`
    when a process fails or the run times out.
    """
    from gastudy.parallel.launch import run_local
    from gastudy.parallel.process_group import default_timeout_s

    check_replica_settings(replicas, micro_batch, accumulation_steps, precision, normalization, shard, sync)
    timeout = float(timeout_s or default_timeout_s())
    ranks = run_local(verify_replicas_worker, replicas, model=workload(model), micro_batch=micro_batch,
                      accumulation_steps=accumulation_steps, precision=precision, normalization=normalization,
                      collate=collate, seed=seed, no_sync=no_sync, shard=shard, sync=sync, naive=naive,
                      pg_timeout=timeout, timeout=timeout * 4)
    return ranks[0]


# --------------------------------------------------------------------------- your loop on D processes
def _ddp_wrapper(counter: Any, forwards: list[bool], no_syncs: list[int]) -> Callable[..., Any]:
    """Wraps a model in DDP with a counting comm hook; records the sync flag at every forward
    (what decides whether its backward all-reduces) and every entry into ``no_sync``."""
    import contextlib

    from torch.nn.parallel import DistributedDataParallel as DDP

    def wrap(module: torch.nn.Module) -> DDP:
        ddp = DDP(module)
        counter.attach(ddp)

        def pre_forward(mod, _args):
            forwards.append(bool(mod.require_backward_grad_sync))
            counter.update = len(forwards)  # all-reduces are counted per forward (its backward)

        ddp.register_forward_pre_hook(pre_forward)
        inner_no_sync = ddp.no_sync

        @contextlib.contextmanager
        def no_sync():
            no_syncs.append(len(forwards))
            with inner_no_sync():
                yield

        ddp.no_sync = no_sync
        return ddp

    return wrap


def check_loop_worker(train_step: Callable[..., Any], model: torch.nn.Module, batches: Sequence[Sequence[dict]],
                      make_optimizer: Callable[..., Any], scheduler: Callable[..., Any] | None,
                      update_args: tuple, task: str) -> dict[str, Any]:
    """One rank of :func:`check_loop_on_replicas`: ``train_step`` on this rank's microbatches
    with the model in DDP, watched; every rank's facts gathered on rank 0 (returned there)."""
    from gastudy.check.watched import update_function, watched_update
    from gastudy.core.groups import build_group
    from gastudy.parallel.ddp import CommCounter

    rank = dist.get_rank()
    mine = build_group(0, list(batches[rank]), len(batches[rank]), task)
    counter, forwards, no_syncs = CommCounter(), [], []
    run = watched_update(model, make_optimizer, scheduler, update_function(train_step, *update_args), mine,
                         train_step, wrap=_ddp_wrapper(counter, forwards, no_syncs))
    run.trace.__dict__.pop("watch_optimizer", None)  # a closure: not sent between processes
    facts = {"rank": rank, "run": run, "forwards": forwards, "no_syncs": no_syncs,
             "allreduces": {int(k): int(v) for k, v in counter.calls.items()}}
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, facts)
    return {"rank": rank, "ranks": everyone} if rank == 0 else {"rank": rank}


def check_loop_on_replicas(train_step: Callable[..., Any], model: torch.nn.Module, group: Any, replicas: int, *,
                           make_optimizer: Callable[..., Any], scheduler: Callable[..., Any] | None,
                           update_args: tuple, forward: Any, tolerance: float | None, notes: list[str],
                           timeout_s: float | None = None, objective: Any = None) -> Any:
    """``check_loop(train_step, model, microbatches, replicas=D)``: your data-parallel update on D
    local processes, judged as one global update.

    ``group`` holds the D·A microbatches of one global update (rank r gets the r-th run of A).
    Each rank gets a deep copy of ``model`` wrapped in ``DistributedDataParallel`` (gloo, CPU;
    every comm hook counts its all-reduces), an optimizer from ``make_optimizer`` and its own
    microbatches; ``train_step`` does everything else (``no_sync`` or
    ``require_backward_grad_sync``, all-reducing the token count, ×D to cancel DDP's mean).
    Rank 0's step gradient is judged against the big batch over all D·A microbatches; the ranks
    must have stepped with the same gradient. Reported besides: each rank's all-reduces (one
    backward with a sync per update is the ``no_sync`` ideal), and a warning when ``no_sync`` was
    used but every backward synced anyway (its forward ran outside the context).

    ``objective``: what the big batch minimizes (see :func:`~gastudy.check.loop.check_loop`;
    computed in this process, never sent to the workers).

    Raises ``ValueError`` when ``train_step``, the factories or the model cannot be sent to the
    worker processes (define them at the top level of a ``.py`` module), and
    :class:`~gastudy.check.loop.TrainStepError` when ``train_step`` raises on a rank.
    """
    from gastudy.check.reference import rel_error
    from gastudy.check.watched import TrainStepError, loop_report
    from gastudy.parallel.launch import LaunchTimeout, WorkerError, check_importable, run_local

    check_importable(train_step)
    for what, obj in (("the optimizer factory", make_optimizer), ("the scheduler factory", scheduler),
                      ("the model", model), ("forward", forward)):
        if obj is None:
            continue
        try:
            pickle.dumps(obj)
        except Exception as err:
            raise ValueError(f"{what} cannot be sent to the worker processes ({type(err).__name__}: {err}): define "
                             "functions at the top level of a .py module (not a lambda or a notebook cell)") from err
    A = group.size // replicas
    per_rank = [group.microbatches[r * A:(r + 1) * A] for r in range(replicas)]
    try:
        ranks = run_local(check_loop_worker, replicas, train_step, model, per_rank, make_optimizer, scheduler,
                          update_args, group.task, timeout=float(timeout_s or 120.0))
    except WorkerError as err:
        failure = err.failures[err.rank]
        raise TrainStepError(f"rank {err.rank}: {failure.message}") from err
    except LaunchTimeout as err:
        raise TrainStepError(f"the {replicas}-process check did not finish within {timeout_s or 120.0:g} s (does every "
                             "rank run the same collectives?)") from err
    facts = sorted(ranks[0]["ranks"], key=lambda f: f["rank"])
    run = facts[0]["run"]
    owner = [r for r in range(replicas) for _ in range(A)]
    report = loop_report(run, model, group, train_step, make_optimizer=make_optimizer, scheduler=scheduler,
                         update_fn=None, forward=forward, tolerance=tolerance, diagnose=False, notes=notes,
                         replicas=owner, objective=objective)
    synced = [sum(1 for forward_index, calls in f["allreduces"].items() if calls) for f in facts]
    report.evidence.update(allreduce_backwards=synced, forwards_with_sync=[sum(f["forwards"]) for f in facts],
                           no_sync_entries=[len(f["no_syncs"]) for f in facts])
    gradients = [f["run"].step_gradient for f in facts]
    if all(g is not None for g in gradients):
        spread = max(rel_error(g, gradients[0]) for g in gradients)
        report.evidence["replica_spread"] = spread
        if spread > report.tolerance:
            report.passed, report.symptom, report.normalization = False, "replicas disagree", None
            report.message = (f"the replicas stepped with different gradients (relative spread {spread:.1e}): they "
                              "were never all-reduced — the last microbatch's forward and backward must run with "
                              "DDP's sync on (outside no_sync, require_backward_grad_sync = True)")
    intended = any(f["no_syncs"] or not all(f["forwards"]) for f in facts)
    if intended and A > 1 and min(synced) >= A:
        report.warnings.append(f"no_sync had no effect: every one of the {A} backward passes all-reduced the "
                               "gradients (the forwards ran with the sync on). Put the forward inside no_sync too — "
                               "DDP decides at the forward whether the backward syncs; the gradient is right, the "
                               f"communication is {A}× what it should be")
    elif not intended and A > 1 and min(synced) >= A:
        notes.append(f"the gradients were all-reduced after each of the {A} microbatches: correct, but no_sync around "
                     "all but the last microbatch's forward and backward would all-reduce once")
    return report

"""One update verified on D data-parallel replicas (course: MB-7, MB-10).

:func:`verify_on_replicas` starts D local processes (DDP, gloo); each runs one real
accumulated update (:func:`verify_replicas_worker`) and rank 0 compares the gradient with the
single-process big batch over all m×A×D samples.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from gastudy.check.steps import first_step_gradients, grads_are_zero
from gastudy.check.trace import trace_loop
from gastudy.parallel.fsdp import engine_precision, full_tensors, make_replicas


def verify_replicas_worker(model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                           precision: str = "fp32", normalization: str = "tokens", collate: str = "padded",
                           seed: int = 0, no_sync: bool = True, shard: bool = False, sync: str = "deferred"):
    """One rank of :func:`verify_on_replicas`: one real DDP update and (rank 0) the big batch.

    With ``shard`` the replicas are FSDP2 (:class:`~gastudy.parallel.fsdp.FSDPReplicas`, sync
    policy ``sync``) and the sharded gradients are made whole before the comparison.
    Returns this rank's facts; rank 0 also returns the :class:`~gastudy.check.verify.VerifyReport`.

    Course: MB-7.
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
    from gastudy.core.engine import Accumulator
    from gastudy.core.groups import build_group
    from gastudy.core.models import build_model, task_of
    from gastudy.core.record import RunRecord

    task, D, rank = task_of(model), dist.get_world_size(), dist.get_rank()
    shards = [controlled_microbatches(model, micro_batch, accumulation_steps, collate, seed, replicas=D, rank=r)
              for r in range(D)]
    gradients, results = {}, {}
    for mode in ("global", "local"):  # the naive local mean is measured for comparison only
        net = build_model(model, seed=seed)
        replicas = make_replicas(shard, sync, no_sync, precision, denominator=mode)
        wrapped = replicas.wrap(net)  # fully_shard replaces the parameters: the optimizer comes after
        optimizer = torch.optim.SGD(wrapped.parameters(), lr=1e-3)
        engine = Accumulator(wrapped, optimizer, accumulation_steps=accumulation_steps, task=task,
                             normalization=normalization, precision=engine_precision(replicas, precision),
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
    reference_model = build_model(model, seed=seed)
    verdict, reference, big = judge_update(main["trace"], reference_model, build_group(0, everything, len(everything),
                                                                                        task),
                                           step_gradient=flat_gradient(gradients["global"], reference_model))
    max_rel, tolerance = verdict.rel_error, verdict.tolerance
    ref = unflatten(big.gradient, reference_model)
    max_abs, _ = compare_gradients(gradients["global"], ref)
    naive_abs, naive_rel = compare_gradients(gradients["local"], ref)
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
        notes=[replicas.describe() if shard else
               f"data parallel: D={D} local processes (gloo), no_sync {'on' if no_sync else 'off'}: "
               f"{calls} gradient all-reduce call(s) in the update",
               f"the naive per-replica mean would differ from the big batch by {naive_abs:.3g} "
               f"(relative {naive_rel:.3g})"],
    )
    config = {"model": model, "micro_batch": micro_batch, "accumulation_steps": accumulation_steps,
              "replicas": D, "precision": precision, "normalization": normalization, "task": task, "seed": seed,
              "no_sync": no_sync, "sharding": "fsdp2" if shard else None, "sync": sync if shard else None}
    report = VerifyReport(not reasons, checks, max_abs, max_rel, tolerance, config, record, reasons, verdict.floor)
    return {"rank": 0, "report": report, "naive": {"max_abs_diff": naive_abs, "max_rel_diff": naive_rel,
                                                     "rel_error": naive_rel},
            "allreduce_calls": calls, "collectives": comm[0] if comm else {},
            "peak_gradient_bytes": max(replicas.peak_gradient_bytes.values(), default=0) if shard else None}


def check_replica_settings(replicas: int, micro_batch: int, accumulation_steps: int, precision: str,
                           normalization: str, shard: bool = False, sync: str = "deferred") -> None:
    """Raise ``ValueError`` (saying what to change) for settings no replica could run (course: MB-7);
    with ``shard`` also the sync policy and fp16 (:func:`~gastudy.parallel.fsdp.check_shard_settings`)."""
    from gastudy.core.loss import check_normalization
    from gastudy.core.plan import BatchPlan
    from gastudy.core.precision import PRECISIONS

    BatchPlan(micro_batch, accumulation_steps, replicas)
    check_normalization(normalization)
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; use one of {', '.join(PRECISIONS)}")
    if shard:
        from gastudy.parallel.fsdp import check_shard_settings

        check_shard_settings(sync, precision)


def verify_on_replicas(replicas: int, model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                       precision: str = "fp32", normalization: str = "tokens", collate: str = "padded",
                       seed: int = 0, no_sync: bool = True, timeout_s: float | None = None, shard: bool = False,
                       sync: str = "deferred") -> dict[str, Any]:
    """Verify one accumulated update on ``replicas`` local processes (DDP, gloo) (course: MB-7, MB-10).

    Each process runs one real update of m×A samples (its shard; shards have different token
    counts); rank 0 compares the gradient at the optimizer step with the single-process big
    batch over all m×A×D samples. ``timeout_s`` bounds every collective (default
    :func:`~gastudy.parallel.process_group.default_timeout_s`); the whole run gets four times
    that. Returns rank 0's ``{"report": VerifyReport, "naive": {"max_abs_diff",
    "max_rel_diff"} (the naive per-replica mean's gap), "allreduce_calls": int}``. With ``shard``
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
    ranks = run_local(verify_replicas_worker, replicas, model=model, micro_batch=micro_batch,
                      accumulation_steps=accumulation_steps, precision=precision, normalization=normalization,
                      collate=collate, seed=seed, no_sync=no_sync, shard=shard, sync=sync, pg_timeout=timeout,
                      timeout=timeout * 4)
    return ranks[0]

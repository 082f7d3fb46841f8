"""Accumulation on sharded data parallel (FSDP2 ``fully_shard``), on real gloo processes (MB-7).

Starting processes is the expensive part (``import torch`` and FSDP2's imports, in every
process), so every 2-process case is a task on ONE warm pool of 2 processes (the course's, which
``test_measure_sharded_on_the_warm_pool`` then reuses): the ``two_ranks`` fixture runs each task
the first time a test asks for it, so a failing task fails the tests that read it, with the
failing rank's traceback, and no other. The CLI case starts its own 3 processes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

from gastudy.check.replicas import verify_on_replicas, verify_replicas_worker
from gastudy.check.verify import TOLERANCES, controlled_microbatches
from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator
from gastudy.core.replicas import Replicas
from gastudy.course.datasets import AdditionDataset
from gastudy.course.demos.fsdp import measure_sharded_worker
from gastudy.course.mistakes import PerReplicaMean
from gastudy.course.models import build_model
from gastudy.parallel.agreement import ReplicaMismatchError
from gastudy.parallel.fsdp import (
    FSDPReplicas,
    check_shard_settings,
    engine_precision,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]  # real processes

A = 3  # microbatches per update in the equality checks


# --------------------------------------------------------------------------- workers (run in the processes)


def _verify(**kwargs) -> dict:
    """verify_replicas_worker on sharded replicas; rank 0 keeps what the tests read."""
    r = verify_replicas_worker(micro_batch=2, shard=True, naive=PerReplicaMean(), **kwargs)
    if r["rank"] != 0:
        return {}
    report = r["report"]
    return {"passed": report.passed, "max_rel_diff": report.max_rel_diff, "tolerance": report.tolerance,
            "naive_rel_diff": r["naive"]["max_rel_diff"], "collectives": r["collectives"],
            "peak_gradient_bytes": r["peak_gradient_bytes"], "record": report.record.to_dict(),
            "text": str(report)}


def mismatch_worker() -> dict:
    """Irreconcilable groups on sharded replicas: each must raise on every rank, before any backward."""
    rank = dist.get_rank()
    data = AdditionDataset(32, seed=0)
    replicas = FSDPReplicas()
    replicas.wrap(build_model("tiny-gpt", seed=0))
    errors, seconds = {}, {}
    protocol = isinstance(replicas, Replicas)
    for name, streams in {
        "accumulation": (MicrobatchStream(data, 2, replicas=2, rank=rank), 4 if rank == 0 else 3),
        "lengths": (MicrobatchStream(data if rank == 0 else AdditionDataset(16, seed=1), 2, replicas=2, rank=rank), 2),
    }.items():
        t0 = time.perf_counter()
        try:
            list(replicas.group_stream(*streams))
        except ReplicaMismatchError as e:
            errors[name] = str(e)
        seconds[name] = time.perf_counter() - t0
    return {"errors": errors, "seconds": seconds, "collectives": replicas.counter.per_update(), "protocol": protocol}


def overflow_worker() -> dict:
    """fp16 with the sharded scaler: an inf in rank 0's gradient shard only skips the step on every rank."""
    rank = dist.get_rank()
    replicas = FSDPReplicas(precision="fp16")
    net = replicas.wrap(build_model("tiny-gpt", seed=0))
    engine = Accumulator(net, torch.optim.SGD(net.parameters(), lr=1e-2), accumulation_steps=2,
                         precision=engine_precision(replicas, "fp16"), replicas=replicas)
    unscale = engine.precision.unscale_

    def poisoned_unscale(optimizer):
        if rank == 0:
            next(iter(net.parameters())).grad.to_local().view(-1)[0] = float("inf")
        unscale(optimizer)

    engine.precision.unscale_ = poisoned_unscale
    before = [p.to_local().clone() for p in net.parameters()]
    group = next(iter(replicas.group_stream(controlled_microbatches("tiny-gpt", 2, 2, replicas=2, rank=rank), 2)))
    result = engine.update(group)
    changed = any(not torch.equal(b, p.to_local()) for b, p in zip(before, net.parameters()))
    return {"applied": result.applied, "changed": changed, "scale_after": engine.precision.scale,
            "scale_before": result.scale, "counters": engine.counters.to_dict(),
            "scaler": type(engine.precision.scaler).__name__}


def nonfinite_shard_worker() -> dict:
    """fp32, no scaler, clipping off: an inf in rank 0's gradient shard only is refused on BOTH ranks
    (the engine's finite check reads the largest magnitude over every shard), nothing changes."""
    from gastudy.core.engine import NonFiniteLossError

    rank = dist.get_rank()
    replicas = FSDPReplicas()
    net = replicas.wrap(build_model("tiny-gpt", seed=0))
    engine = Accumulator(net, torch.optim.SGD(net.parameters(), lr=1e-2), accumulation_steps=2, replicas=replicas)
    first = next(iter(net.parameters()))
    first.register_post_accumulate_grad_hook(
        lambda p: p.grad.to_local().view(-1)[0].fill_(float("inf")) if rank == 0 else None)
    before = [p.to_local().clone() for p in net.parameters()]
    group = next(iter(replicas.group_stream(controlled_microbatches("tiny-gpt", 2, 2, replicas=2, rank=rank), 2)))
    try:
        engine.update(group)
        refused = ""
    except NonFiniteLossError as e:
        refused = str(e)
    changed = any(not torch.equal(b, p.to_local()) for b, p in zip(before, net.parameters()))
    return {"refused": refused, "changed": changed, "applied": engine.counters.updates_applied}


def failed_group_worker() -> dict:
    """A deferred group that fails on its 2nd microbatch leaves no unsharded gradient behind: the next
    group's update equals that group alone on fresh replicas."""
    from gastudy.core.loss import summed_loss
    from gastudy.parallel.fsdp import held_gradient_bytes

    rank = dist.get_rank()
    mbs = controlled_microbatches("tiny-gpt", 2, 4, replicas=2, rank=rank)
    calls = {"n": 0}

    def loss_fn(output, batch, denominator):  # the group's sum ÷ its items; fails once, on call 2
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("microbatch 2 failed")
        return summed_loss(output, batch)[0] / denominator

    weights = []
    for fail_first in (True, False):
        replicas = FSDPReplicas()
        net = replicas.wrap(build_model("tiny-gpt", seed=0))
        engine = Accumulator(net, torch.optim.SGD(net.parameters(), lr=0.1), accumulation_steps=2, loss_fn=loss_fn,
                             loss_is_scaled_for_ga=True, replicas=replicas)
        first, second = list(replicas.group_stream(mbs, 2))
        calls["n"] = 0 if fail_first else 10
        if fail_first:
            with pytest.raises(RuntimeError, match="microbatch 2 failed"):
                engine.update(first)
            held = held_gradient_bytes(net)["total"]
        engine.update(second)
        weights.append([p.full_tensor() for p in net.parameters()])
    return {"held_after_failure": held, "identical": all(torch.equal(a, b) for a, b in zip(*weights))}


def resume_worker(folder: str) -> dict:
    """An uninterrupted sharded run vs one interrupted after 1 update and resumed from the DCP checkpoint."""
    from gastudy.run.commit import latest_folder
    from gastudy.run.replicas import distributed_record_notes
    from gastudy.run.train import TrainConfig, train

    def config(**kw):
        return TrainConfig(micro_batch=2, accumulation_steps=2, dataset_size=24, progress=False, **kw)

    def weights(run):
        return {n: p.full_tensor() for n, p in run.model.named_parameters()}

    full = train(config(), replicas=FSDPReplicas())
    out = Path(folder, "run")
    first = train(config(out_dir=str(out), stop_after_updates=1, checkpoint_every=1), replicas=FSDPReplicas())
    replicas = FSDPReplicas()
    resumed = train(config(out_dir=str(out)), resume=True, replicas=replicas)
    notes, summary = distributed_record_notes(replicas)
    a, b = weights(full), weights(resumed)
    return {"identical": all(torch.equal(a[n], b[n]) for n in a), "changed": any(
            not torch.equal(a[n], weights(first)[n]) for n in a),
            "updates": [full.record.updates_attempted, first.record.updates_attempted, resumed.record.updates_attempted],
            "scheduler_steps": resumed.record.scheduler_steps,
            "files": sorted(str(p.relative_to(latest_folder(out))) for p in latest_folder(out).rglob("*")),
            "notes": notes, "sharding": summary["sharding"], "sync": summary["sync"]}


TASK_TIMEOUT_S = 110  # one pooled task (seconds); with the pool's start (≤ 120 s) within the test's 240 s


def two_rank_tasks(folder: str) -> dict:
    """Every 2-process case: name -> (worker, args, kwargs), run on both ranks of the pool."""
    tasks = {f"{sync}-{precision}": (_verify, (), {"accumulation_steps": A, "precision": precision, "sync": sync})
             for sync in ("deferred", "every") for precision in ("fp32", "bf16")}
    return {
        **tasks,
        "fp16": (_verify, (), {"accumulation_steps": 2, "precision": "fp16", "sync": "deferred"}),
        "measure": (measure_sharded_worker, ([("ddp", 4), ("deferred", 4), ("every", 4)],), {"updates": 1}),
        "checkpointed": (measure_sharded_worker, ([("deferred", 4)],), {"updates": 1, "checkpoint_every_n_layers": 1}),
        "mismatch": (mismatch_worker, (), {}),
        "failed_group": (failed_group_worker, (), {}),
        "nonfinite_shard": (nonfinite_shard_worker, (), {}),
        "overflow": (overflow_worker, (), {}),
        "resume": (resume_worker, (folder,), {}),
    }


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    """``two_ranks(name)``: task ``name``'s results by rank, run once on the course's warm pool of 2.

    A task that fails raises its :class:`~gastudy.parallel.launch.WorkerError` (with the failing
    rank's traceback) in every test that reads it; the next task starts a fresh pool.
    """
    from gastudy.course.demos.ddp import close_pool, run_on_replicas

    tasks = two_rank_tasks(str(tmp_path_factory.mktemp("fsdp")))
    done: dict[str, tuple[bool, object]] = {}

    def results(name: str) -> list:
        if name not in done:
            fn, args, kwargs = tasks[name]
            try:
                done[name] = (True, run_on_replicas(fn, 2, *args, timeout=TASK_TIMEOUT_S, **kwargs))
            except Exception as e:  # noqa: BLE001 - re-raised in each test that reads this task
                done[name] = (False, e)
        ok, value = done[name]
        if not ok:
            raise value
        return value

    yield results
    close_pool()


# --------------------------------------------------------------------------- no processes


def test_bad_settings_are_refused_before_anything_runs():
    with pytest.raises(ValueError, match="unknown sync policy 'sometimes'.*'deferred'.*'every'"):
        check_shard_settings("sometimes", "fp32")
    with pytest.raises(ValueError, match="unknown precision 'fp8'"):
        check_shard_settings("deferred", "fp8")
    with pytest.raises(ValueError, match="unknown sync policy"):
        verify_on_replicas(2, shard=True, sync="never")
    with pytest.raises(RuntimeError, match="no process group is initialized"):
        FSDPReplicas()


# --------------------------------------------------------------------------- 2 processes, one warm pool


@pytest.mark.parametrize("case", ["deferred-fp32", "every-fp32", "deferred-bf16", "every-bf16"])
def test_one_sharded_update_equals_the_big_batch(two_ranks, case):
    r = two_ranks(case)[0]
    precision = case.split("-")[1]
    assert r["passed"], r["text"]
    assert r["max_rel_diff"] <= TOLERANCES[precision] == r["tolerance"]
    if precision == "fp32":
        assert r["max_rel_diff"] < 1e-5  # only rounding is left
    assert r["naive_rel_diff"] > 5 * r["max_rel_diff"]  # the naive per-replica mean is measurably worse
    tokens = [p["supervised_tokens"] for p in r["record"]["per_replica"]]
    assert len(set(tokens)) > 1 and sum(tokens) == r["record"]["supervised_tokens"]  # different counts per replica
    assert r["record"]["effective_batch"] == 2 * A * 2 and r["record"]["samples"] == 2 * A * 2
    assert f"sync {case.split('-')[0]}" in r["record"]["notes"][0] and "FSDP2" in r["record"]["notes"][0]


def test_reduce_scatters_per_update_deferred_once_every_A_times(two_ranks):
    modules = 4 + 1  # tiny-gpt's 4 marked blocks + the root
    deferred, every = (two_ranks(f"{s}-fp32")[0]["collectives"] for s in ("deferred", "every"))
    assert deferred["reduce_scatter"] == modules  # one gradient reduction per FSDP module per update
    assert every["reduce_scatter"] == A * modules
    assert every["reduce_scatter_bytes"] == A * deferred["reduce_scatter_bytes"]
    # all-gathers: every module in each forward, the resharded blocks again in each backward
    assert deferred["all_gather"] == every["all_gather"] == A * (modules + 4)
    rows = {(r["backend"]): r for r in two_ranks("measure")[0]}
    assert rows["deferred"]["reductions_per_update"] == modules
    assert rows["every"]["reductions_per_update"] == 4 * modules
    assert rows["ddp"]["all_gathers_per_update"] == 0 and rows["ddp"]["reductions_per_update"] >= 1
    ranks = [[(r["reductions_per_update"], r["all_gathers_per_update"]) for r in res] for res in two_ranks("measure")]
    assert ranks[0] == ranks[1]  # every replica takes part in every collective


def test_gradient_bytes_held_deferred_whole_every_one_shard(two_ranks):
    rows = {r["backend"]: r for r in two_ranks("measure")[0]}
    full = rows["deferred"]["unsharded_gradient_bytes"]
    assert rows["ddp"]["peak_gradient_bytes"] == full  # DDP: the whole gradient on every replica
    assert rows["deferred"]["peak_gradient_bytes"] >= full  # unsharded gradients kept across the group
    assert rows["deferred"]["peak_gradient_bytes"] <= full * 1.05  # (+ shard padding)
    assert full / 2 <= rows["every"]["peak_gradient_bytes"] <= full / 2 * 1.05  # 1/D of it
    assert two_ranks("every-fp32")[0]["peak_gradient_bytes"] * 2 == pytest.approx(
        two_ranks("deferred-fp32")[0]["peak_gradient_bytes"], rel=0.05)
    weights = {r["weights"] for res in two_ranks("measure") for r in res}
    assert max(weights) - min(weights) < 1e-4 * max(abs(w) for w in weights)  # DDP and both policies agree


def test_checkpointing_enabled_before_sharding_gives_the_same_update(two_ranks):
    plain = next(r for r in two_ranks("measure")[0] if r["backend"] == "deferred")
    checkpointed = two_ranks("checkpointed")[0][0]  # every block checkpointed, then sharded
    assert checkpointed["weights"] == pytest.approx(plain["weights"], rel=1e-9, abs=1e-9)
    assert checkpointed["reductions_per_update"] == plain["reductions_per_update"]
    assert (checkpointed["checkpointed_layers"], plain["checkpointed_layers"]) == (4, 0)


def test_fp16_with_the_sharded_scaler(two_ranks):
    r = two_ranks("fp16")[0]
    assert r["passed"], r["text"]
    overflow = two_ranks("overflow")
    assert [o["scaler"] for o in overflow] == ["ShardedGradScaler"] * 2
    assert [o["applied"] for o in overflow] == [False, False]  # the inf was in rank 0's shard only
    assert [o["changed"] for o in overflow] == [False, False]
    assert all(o["scale_after"] == o["scale_before"] / 2 for o in overflow)
    assert all(o["counters"]["updates_attempted"] == 1 and o["counters"]["updates_applied"] == 0 for o in overflow)


def test_an_inf_in_one_rank_shard_is_refused_on_every_rank(two_ranks):
    for rank, r in enumerate(two_ranks("nonfinite_shard")):
        assert "a gradient is inf/NaN" in r["refused"], (rank, r)
        assert not r["changed"] and r["applied"] == 0, (rank, r)


def test_a_mismatched_group_raises_on_every_rank(two_ranks):
    m0, m1 = two_ranks("mismatch")
    assert set(m0["errors"]) == set(m1["errors"]) == {"accumulation", "lengths"}
    assert m0["errors"] == m1["errors"]  # the same decision, the same words, on every rank
    assert "[4, 3]" in m0["errors"]["accumulation"] and "ran out of data" in m0["errors"]["lengths"]
    assert m0["collectives"] == [] == m1["collectives"]  # raised before any gradient collective
    assert m0["protocol"] and m1["protocol"]  # FSDPReplicas is a Replicas


def test_a_failed_deferred_group_leaves_no_gradient_behind(two_ranks):
    for res in two_ranks("failed_group"):
        assert res["held_after_failure"] == 0
        assert res["identical"]


def test_resume_from_a_sharded_checkpoint_is_bit_identical(two_ranks):
    r0, r1 = two_ranks("resume")
    assert r0["identical"] and r1["identical"]
    assert r0["changed"]  # the interrupted run really stopped early
    assert r0["updates"] == [3, 1, 3] and r0["scheduler_steps"] == 3
    assert {"state/.metadata", "rank0.pt", "rank1.pt"} <= set(r0["files"])  # DCP's shards + each rank's part
    assert any(f.startswith("state/") and f.endswith(".distcp") for f in r0["files"])
    assert r0["sharding"] == "fsdp2" and r0["sync"] == "deferred"
    assert "FSDP2" in r0["notes"][0] and "sync deferred" in r0["notes"][0]


# --------------------------------------------------------------------------- CLI (3 processes)


@pytest.mark.parametrize("argv, expected", [
    (["verify", "--shard"], "there is only one: add --replicas N"),
    (["verify", "--replicas", "2", "--sync", "every"], "add --shard, or drop --sync"),
    (["train", "--shard", "--sync", "every"], "there is only one: add --replicas N"),
    (["train", "--replicas", "2", "--sync", "deferred"], "add --shard, or drop --sync"),
    (["train", "--replicas", "2", "--shard", "--sync-every-microbatch"], "with --shard use --sync every"),
])
def test_cli_refuses_bad_sharding_flags_with_exit_2(argv, expected, capsys, monkeypatch):
    from gastudy.cli.main import main

    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert main([*argv, "--json"]) == 2
    assert expected in json.loads(capsys.readouterr().out.strip().splitlines()[-1])["error"]


def test_cli_verify_on_three_sharded_replicas(capsys):
    from gastudy.cli.main import main

    code = main(["verify", "--replicas", "3", "--shard", "--sync", "every", "-m", "2", "-A", "2", "--json",
                 "--dist-timeout", "30"])
    payload = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and payload["passed"], payload
    tokens = [r["supervised_tokens"] for r in payload["record"]["per_replica"]]
    assert len(tokens) == 3 and len(set(tokens)) > 1  # different token counts per replica
    assert payload["collectives"]["reduce_scatter"] == 2 * 5  # A × (4 blocks + root)
    assert payload["config"]["sharding"] == "fsdp2" and payload["config"]["sync"] == "every"
    assert "sync every" in payload["record"]["notes"][0] and "D=3" in payload["record"]["notes"][0]


# --------------------------------------------------------------------------- the course's measurement


def test_measure_sharded_on_the_warm_pool(two_ranks):  # the fixture's pool, warm if the tests above ran
    from gastudy.course.demos.fsdp import measure_sharded

    with pytest.raises(ValueError, match="unknown sync policy"):
        measure_sharded(2, "sometimes")
    out = measure_sharded(2, "every", updates=1)
    assert out["fsdp"]["backend"] == "every" and out["ddp"]["backend"] == "ddp"
    assert out["fsdp"]["reductions_per_update"] == 2 * 5  # A × (4 blocks + root)
    assert out["ratios"]["peak_gradient_bytes"] == pytest.approx(0.5, rel=0.05)  # 1/D of DDP's gradient
    assert out["fsdp"]["weights"] == pytest.approx(out["ddp"]["weights"], rel=1e-5)  # the same training

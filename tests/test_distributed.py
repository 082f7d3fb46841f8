"""Data-parallel accumulation on real processes (MB-7): gloo on loopback, bounded by timeouts.

The expensive part is starting processes (each imports torch), so the 2-process measurements
run in ONE launch (the ``two_ranks`` fixture) and each test checks its part of it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

from gastudy.core.data import MicrobatchStream, concat_microbatches
from gastudy.core.engine import Accumulator, model_inputs
from gastudy.core.groups import build_group
from gastudy.core.loss import summed_loss
from gastudy.core.replicas import Replicas
from gastudy.course.datasets import AdditionDataset
from gastudy.course.demos.ddp import (
    compare_denominators_worker,
    count_allreduces_worker,
    duplicate_samples_worker,
    uneven_groups_worker,
)
from gastudy.course.models import build_model
from gastudy.parallel.agreement import (
    ReplicaMismatchError,
    agree_on_group,
    check_sample_ids,
    duplicate_error,
    filler_microbatch,
)
from gastudy.parallel.ddp import DDPReplicas
from gastudy.parallel.launch import (
    LaunchTimeout,
    WorkerError,
    check_importable,
    launch_local,
    run_local,
)
from gastudy.parallel.process_group import batch_plan, init_from_env

pytestmark = pytest.mark.timeout(150)

ROOT = Path(__file__).resolve().parent.parent
TERMINATE = "terminate called"


# --------------------------------------------------------------------------- workers (run in the processes)


def two_rank_suite() -> dict:
    """Every 2-process measurement, in one process group."""
    return {
        "protocol": isinstance(DDPReplicas(), Replicas),
        "plan": batch_plan(2, 4).to_dict(),
        "compare": compare_denominators_worker(micro_batch=2, accumulation_steps=4),
        "comm": count_allreduces_worker([(1, True), (4, True), (4, False)], updates=2),
        "unsharded": duplicate_samples_worker(shard=False),
        "sharded": duplicate_samples_worker(shard=True),
        "keep": uneven_groups_worker("keep", 21, return_weights=True),
        "drop": uneven_groups_worker("drop", 21, return_weights=True),
        "keep_sync_every": uneven_groups_worker("keep", 21, no_sync=False),
        "one_sample": uneven_groups_worker("keep", 1, return_weights=True),
        "loss": group_loss_worker(),
    }


def group_loss_worker(micro_batch: int = 2, accumulation_steps: int = 4) -> dict:
    """One float64 update on each rank, the loss carried by the gradient all-reduce (count_comm on)
    and by its fallback (count_comm off); every all_reduce/all_gather during the update counted."""
    rank, D = dist.get_rank(), dist.get_world_size()
    shards = [list(MicrobatchStream(AdditionDataset(2 * micro_batch * accumulation_steps, seed=0), micro_batch,
                                    seed=0, replicas=D, rank=r).microbatches()) for r in range(D)]
    mine = [{k: v for k, v in mb.items() if k != "sample_ids"} for mb in shards[rank]]  # as a HF collator gives them
    big = concat_microbatches([mb for shard in shards for mb in shard])
    ref_net = build_model("tiny-gpt", seed=0, dtype=torch.float64)
    with torch.no_grad():
        loss_sum, items = summed_loss(ref_net(**model_inputs(big, torch.device("cpu"))), big)
    out = {"rank": rank, "big_batch": float(loss_sum / items), "items": sum(
        int((mb["labels"][:, 1:] != -100).sum()) for mb in shards[rank])}
    calls: dict[str, int] = {}
    real = {name: getattr(dist, name) for name in ("all_reduce", "all_gather", "all_gather_object")}

    def counting(name):
        def call(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return real[name](*args, **kwargs)
        return call

    for count_comm in (True, False):
        net = build_model("tiny-gpt", seed=0, dtype=torch.float64)
        replicas = DDPReplicas(count_comm=count_comm)
        engine = Accumulator(replicas.wrap(net), torch.optim.SGD(net.parameters(), lr=0.1),
                             accumulation_steps=accumulation_steps, replicas=replicas)
        groups = replicas.group_stream(mine, accumulation_steps)
        group = next(iter(groups))
        calls.clear()
        for name in real:
            setattr(dist, name, counting(name))
        try:
            result = engine.update(group)
        finally:
            for name, fn in real.items():
                setattr(dist, name, fn)
        out[count_comm] = {"loss": result.loss, "calls": dict(calls), "ids_assigned": group.ids_assigned,
                           "sample_ids": group.sample_ids,
                           "gradient_allreduces": replicas.counter.calls[replicas.updates] if count_comm else None}
    return out


def mismatch_worker() -> dict:
    """Three irreconcilable situations; each must raise ReplicaMismatchError on every rank."""
    rank = dist.get_rank()
    data = AdditionDataset(32, seed=0)
    replicas = DDPReplicas()
    errors = {}
    # 1. the replicas are configured with different A
    stream = MicrobatchStream(data, 2, replicas=2, rank=rank)
    try:
        list(replicas.group_stream(stream, 4 if rank == 0 else 3))
    except ReplicaMismatchError as e:
        errors["accumulation"] = str(e)
    # 2. rank 1 holds half as much data: not a short last group but a shorter stream
    mine = MicrobatchStream(data if rank == 0 else AdditionDataset(16, seed=1), 2, replicas=2, rank=rank)
    try:
        list(replicas.group_stream(mine, 2))
    except ReplicaMismatchError as e:
        errors["lengths"] = str(e)
    # 3. plain groups of different sizes handed to the engine's denominator
    mbs = list(MicrobatchStream(data, 2, replicas=2, rank=rank).microbatches())[: 4 - rank]
    try:
        replicas.group_denominator(build_group(0, mbs, 4))
    except ReplicaMismatchError as e:
        errors["denominator"] = str(e)
    # 4. bookkeeping of a group that was never agreed on is refused, and counts nothing
    try:
        replicas.record_group(build_group(0, mbs, 4))
    except RuntimeError as e:
        errors["record"] = str(e)
    errors["updates_counted"] = replicas.updates
    return errors


def crashing_worker() -> None:
    """Rank 1 dies before the update; rank 0 must not wait forever for it."""
    if dist.get_rank() == 1:
        raise RuntimeError("rank 1 crashed before its first update")
    uneven_groups_worker("keep", 16)


def slow_to_leave_worker() -> None:
    """Rank 1 raises, then takes 5 s to exit (a finalizer, as a gloo teardown can); rank 0 fails
    a second later, so the launcher sees rank 0 first and stops rank 1 mid-exit."""
    import multiprocessing.util

    if dist.get_rank() == 1:
        multiprocessing.util.Finalize(None, time.sleep, args=(5,), exitpriority=0)
        raise RuntimeError("rank 1 crashed first")
    time.sleep(1.0)
    raise RuntimeError("rank 0 failed because of it")


def silent_worker() -> None:
    """Rank 1 is alive but never joins the agreement; rank 0 must time out, not hang."""
    if dist.get_rank() == 1:
        time.sleep(4)
        raise RuntimeError("rank 1 was busy elsewhere")
    DDPReplicas().gather_ints([0])


def sleeper_worker(folder: str) -> int:
    """Rank 1 starts a grandchild and never returns; rank 0 returns at once."""
    if dist.get_rank() == 1:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        Path(folder, "grandchild.pid").write_text(str(child.pid))
        time.sleep(600)
    return dist.get_rank()


# --------------------------------------------------------------------------- helpers


def alive(pid: int) -> bool:
    """True if ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def reference_weights(dataset_size: int, kept_groups: int, A: int = 4, m: int = 2, lr: float = 1e-2) -> dict:
    """Single process: SGD on the big batch of every kept group (all replicas' microbatches)."""
    shards = [list(MicrobatchStream(AdditionDataset(dataset_size, seed=0), m, seed=0, replicas=2,
                                    rank=r).microbatches()) for r in range(2)]
    net = build_model("tiny-gpt", seed=0)
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    for g in range(kept_groups):
        big = concat_microbatches([mb for shard in shards for mb in shard[g * A:(g + 1) * A]])
        loss_sum, items = summed_loss(net(**model_inputs(big, torch.device("cpu"))), big)
        (loss_sum / items).backward()
        opt.step()
        opt.zero_grad()
    return {n: p.detach() for n, p in net.named_parameters()}


@pytest.fixture(scope="module")
def two_ranks():
    run = launch_local(two_rank_suite, 2, timeout=120, pg_timeout=30)
    assert run.ok, (run.failures, run.stderr)
    return run


# --------------------------------------------------------------------------- no processes


def test_agree_on_group_decides_identically_and_refuses_what_cannot_be_reconciled():
    row = lambda n, more, A=4, index=0, seen=1: [index, A, 0, 0, n, more, 10 * n, 2 * n, seen]  # noqa: E731
    assert agree_on_group([row(4, 1), row(4, 0)]) == "full"
    assert agree_on_group([row(2, 0), row(1, 0)]) == "partial"
    assert agree_on_group([row(1, 0), row(0, 0)]) == "partial"
    assert agree_on_group([row(0, 0), row(0, 0)]) == "end"
    with pytest.raises(ReplicaMismatchError, match=r"accumulation steps \(A\): \[4, 3\]"):
        agree_on_group([row(4, 1), row(3, 1, A=3)])
    with pytest.raises(ReplicaMismatchError, match=r"group index: \[0, 1\]"):
        agree_on_group([row(4, 1), row(4, 1, index=1)])
    with pytest.raises(ReplicaMismatchError, match=r"replica\(s\) \[1\] ran out of data \(\[0\] of 4.*\[0\] still"):
        agree_on_group([row(4, 1), row(0, 0)])
    assert agree_on_group([row(1, 0), row(0, 0, seen=0)]) == "partial"  # it borrows a filler template


def test_check_sample_ids_counts_exactly():
    report = check_sample_ids([[0, 1, 2, 3], [2, 3, 4, 5], [3, 6]])
    assert report.per_replica == [4, 4, 2] and report.distinct == 7
    assert report.duplicated == {2: [0, 1], 3: [0, 1, 2]}
    assert report.extra == 3 and not report.ok
    assert check_sample_ids([[0, 1, 0], [2, 3]]).ok  # a repeat within one replica (next epoch) is fine
    message = str(duplicate_error(report))
    assert "2 of 7 distinct ids" in message and "replicas=D, rank=rank" in message


def test_filler_microbatch_contributes_nothing():
    mb = next(iter(MicrobatchStream(AdditionDataset(8, seed=0), 4, collate="packed")))
    filler = filler_microbatch(mb)
    net = build_model("tiny-gpt", seed=0, dtype=torch.float64)
    loss_sum, items = summed_loss(net(**model_inputs(filler, torch.device("cpu"))), filler)
    loss_sum.backward()
    assert items == 0 and loss_sum.item() == 0.0
    assert all(float(p.grad.abs().max()) == 0.0 for p in net.parameters())
    group = build_group(0, [mb, filler], 4)
    assert group.items[1] == 0 and group.sample_ids == [int(i) for i in mb["sample_ids"]]


def test_without_a_process_group_nothing_pretends_to_be_distributed(monkeypatch):
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert init_from_env() is False
    with pytest.raises(RuntimeError, match="no process group is initialized"):
        DDPReplicas()


def test_launcher_refuses_functions_workers_cannot_import():
    with pytest.raises(ValueError, match="cannot import it"):
        check_importable(lambda: 0)

    def nested():
        return 0

    with pytest.raises(ValueError, match="cannot import it"):
        run_local(nested, 2)


# --------------------------------------------------------------------------- 2 processes, one launch


def test_clean_start_and_shutdown(two_ranks):
    assert all(r["protocol"] for r in two_ranks.results)  # DDPReplicas is a gastudy Replicas
    assert [r["plan"]["replicas"] for r in two_ranks.results] == [2, 2]  # D = the world size
    assert two_ranks.results[0]["plan"]["effective_batch"] == 2 * 4 * 2
    assert two_ranks.returncodes == [0, 0]
    assert not any(TERMINATE in err for err in two_ranks.stderr), two_ranks.stderr
    assert not any(alive(pid) for pid in two_ranks.pids)


def test_global_denominator_equals_big_batch_and_naive_mean_does_not(two_ranks):
    ranks = [r["compare"] for r in two_ranks.results]
    items = [sum(r["items"]) for r in ranks]
    assert items[0] != items[1]  # the replicas hold different token counts
    assert ranks[0]["global"]["denominator"] == ranks[1]["global"]["denominator"] == sum(items)
    assert ranks[0]["global"]["max_rel_diff"] < 1e-12  # float64: only rounding is left
    assert ranks[0]["local"]["max_rel_diff"] > 1e-3  # the naive per-replica mean is measurably off
    assert ranks[0]["local"]["denominator"] == items[0]  # each replica divides by its own items
    assert sorted(ranks[0]["sample_ids"] + ranks[1]["sample_ids"]) == list(range(16))


def test_allreduce_calls_with_and_without_no_sync(two_ranks):
    rows = {(r["accumulation_steps"], r["no_sync"]): r for r in two_ranks.results[0]["comm"]}
    counts = [[(r["calls_per_update"], r["bytes_per_update"]) for r in res["comm"]] for res in two_ranks.results]
    assert counts[0] == counts[1]  # every replica takes part in every reduction
    one, with_no_sync, without = rows[(1, True)], rows[(4, True)], rows[(4, False)]
    assert with_no_sync["calls_per_update"] == one["calls_per_update"] >= 1  # one reduction per bucket
    assert without["calls_per_update"] == 4 * with_no_sync["calls_per_update"]  # A of them
    assert with_no_sync["bytes_per_update"] == with_no_sync["gradient_bytes"]  # every gradient once
    assert without["bytes_per_update"] == 4 * with_no_sync["gradient_bytes"]


def test_every_rank_reports_the_group_loss_without_an_extra_collective(two_ranks):
    ranks = [r["loss"] for r in two_ranks.results]
    assert ranks[0]["items"] != ranks[1]["items"]  # the replicas hold different token counts
    expected = ranks[0]["big_batch"]
    carried, fallback = [r[True] for r in ranks], [r[False] for r in ranks]
    assert carried[0]["loss"] == carried[1]["loss"] == pytest.approx(expected, rel=1e-14, abs=0)
    assert fallback[0]["loss"] == fallback[1]["loss"] == pytest.approx(expected, rel=1e-14, abs=0)
    for r in carried:  # the gradient all-reduce carried the loss: all_reduce calls = gradient buckets
        assert r["calls"].get("all_reduce", 0) == r["gradient_allreduces"] >= 1
        assert r["calls"].get("all_gather", 0) == 0  # the group stream agreed on the counts already
    assert [r["calls"].get("all_reduce", 0) for r in fallback] == [1, 1]  # no hook: one small all-reduce
    # HF-style batches without ids: stream positions interleaved over the replicas, never colliding
    assert all(r["ids_assigned"] for r in carried)
    assert sorted(carried[0]["sample_ids"] + carried[1]["sample_ids"]) == list(range(16))


def test_duplicated_samples_are_detected_and_refused(two_ranks):
    unsharded = [r["unsharded"] for r in two_ranks.results]
    assert unsharded[0]["sample_ids"] == unsharded[1]["sample_ids"]
    report = unsharded[0]["report"]
    assert report["duplicated_ids"] == 8 and report["extra_samples"] == 8 and not report["ok"]
    assert all(r["refused"] and "ranks [0, 1]" in r["refused"] for r in unsharded)
    assert [r["updates_applied"] for r in unsharded] == [0, 0]
    sharded = [r["sharded"] for r in two_ranks.results]
    assert sharded[0]["report"]["ok"] and [r["refused"] for r in sharded] == [None, None]
    assert [r["updates_applied"] for r in sharded] == [1, 1]


@pytest.mark.parametrize("policy", ["keep", "drop"])
def test_uneven_last_group_follows_the_policy_on_all_replicas(two_ranks, policy):
    r0, r1 = (r[policy] for r in two_ranks.results)
    assert (r0["microbatches_in_stream"], r1["microbatches_in_stream"]) == (6, 5)
    assert r0["replica_microbatches"] == r1["replica_microbatches"] == [2, 1]
    assert r0["partial"]["sample_ids"] == r1["partial"]["sample_ids"] and len(r0["partial"]["sample_ids"]) == 5
    assert [u["denominator"] for u in r0["updates"]] == [u["denominator"] for u in r1["updates"]]
    kept = 2 if policy == "keep" else 1
    assert len(r0["updates"]) == len(r1["updates"]) == kept
    assert r0["counters"]["samples"] + r1["counters"]["samples"] == (21 if policy == "keep" else 16)
    if policy == "keep":  # rank 1 pads its single microbatch with one filler
        assert (r0["updates"][1]["fillers"], r1["updates"][1]["fillers"]) == (0, 1)
        assert r0["updates"][1]["denominator"] == r0["updates"][1]["items"] + r1["updates"][1]["items"]
    ref = reference_weights(21, kept)
    for got in (r0["weights"], r1["weights"]):
        assert max(float((got[n] - ref[n]).abs().max()) for n in ref) < 1e-6


def test_uneven_last_group_without_no_sync_does_not_hang(two_ranks):
    r0, r1 = (r["keep_sync_every"] for r in two_ranks.results)
    calls = [[u["calls"] for u in r["allreduce_per_update"]] for r in (r0, r1)]
    assert calls[0] == calls[1] and calls[0][1] == calls[0][0] // 2  # 4 then 2 microbatches
    assert r0["weights_checksum"] == r1["weights_checksum"]


def test_a_replica_without_any_data_borrows_a_filler_and_still_joins(two_ranks):
    r0, r1 = (r["one_sample"] for r in two_ranks.results)
    assert (r0["microbatches_in_stream"], r1["microbatches_in_stream"]) == (1, 0)
    assert (r0["updates"][0]["fillers"], r1["updates"][0]["fillers"]) == (0, 1)
    assert r1["updates"][0]["samples"] == 0 and r0["updates"][0]["denominator"] == r1["updates"][0]["denominator"]
    ref = reference_weights(1, 1)
    for got in (r0["weights"], r1["weights"]):
        assert max(float((got[n] - ref[n]).abs().max()) for n in ref) < 1e-6


# --------------------------------------------------------------------------- failures never hang


def test_irreconcilable_mismatch_raises_on_every_rank():
    errors = run_local(mismatch_worker, 2, timeout=90, pg_timeout=20)
    for rank_errors in errors:
        assert set(rank_errors) == {"accumulation", "lengths", "denominator", "record", "updates_counted"}
    assert errors[0] == errors[1]  # the same decision, the same words, on every rank
    assert "[4, 3]" in errors[0]["accumulation"]
    assert "ran out of data" in errors[0]["lengths"] and "MicrobatchStream" in errors[0]["lengths"]
    assert "microbatches per rank [4, 3]" in errors[0]["denominator"]
    assert all("before its group_denominator" in e["record"] and e["updates_counted"] == 0 for e in errors)


def test_a_crashed_rank_makes_the_others_raise_not_hang():
    with pytest.raises(WorkerError) as info:
        run_local(crashing_worker, 2, timeout=90, pg_timeout=5)
    e = info.value
    assert e.rank == 0 and set(e.failures) == {0, 1}  # rank 0 raised too, instead of waiting
    assert "rank 1 crashed" in e.failures[1].message and "crashing_worker" in e.failures[1].traceback
    assert not any(TERMINATE in err for err in e.run.stderr)


def test_a_rank_stopped_while_leaving_keeps_its_own_error():
    with pytest.raises(WorkerError) as info:
        run_local(slow_to_leave_worker, 2, timeout=90, pg_timeout=5)
    failures = info.value.failures
    assert set(failures) == {0, 1} and "rank 0 failed because of it" in failures[0].message
    assert failures[1].type == "RuntimeError" and failures[1].message == "rank 1 crashed first", failures[1]
    assert "slow_to_leave_worker" in failures[1].traceback


def test_a_silent_rank_hits_the_process_group_timeout():
    with pytest.raises(WorkerError) as info:
        run_local(silent_worker, 2, timeout=90, pg_timeout=2)
    lost = info.value.failures[0]
    assert lost.type == "ReplicaLostError" and "did not answer" in lost.message and "Timed out" in lost.message


def test_timeout_kills_every_process_and_its_children(tmp_path):
    with pytest.raises(LaunchTimeout, match=r"ranks \[1\] were still running") as info:
        run_local(sleeper_worker, 2, str(tmp_path), timeout=10, pg_timeout=60)
    assert info.value.run.results[0] == 0  # rank 0 had returned
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    time.sleep(0.2)
    assert not any(alive(pid) for pid in [*info.value.run.pids, grandchild])


# --------------------------------------------------------------------------- CLI


def test_verify_on_three_replicas_matches_the_big_batch(tmp_path):
    from gastudy.cli.replicas import verify_replicas

    args = argparse.Namespace(model="tiny-gpt", micro_batch=2, accumulation_steps=3, precision="fp32",
                              normalization="tokens", collate="packed", replicas=3, seed=1, save=str(tmp_path))
    code, payload = verify_replicas(args)
    assert code == 0 and payload["passed"], payload["text"]
    record = payload["record"]
    assert record["replicas"] == 3 and record["effective_batch"] == 18 and record["samples"] == 18
    tokens = [r["supervised_tokens"] for r in record["per_replica"]]
    assert len(set(tokens)) > 1 and sum(tokens) == record["supervised_tokens"]
    assert payload["naive"]["max_rel_diff"] > payload["tolerance"]
    assert payload["allreduce_calls"] >= 1
    assert json.loads((tmp_path / "verify_record.json").read_text())["replicas"] == 3

    bad = argparse.Namespace(**{**vars(args), "accumulation_steps": 0})
    code, payload = verify_replicas(bad)
    assert code == 2 and "accumulation_steps" in payload["error"]


def test_torchrun_training_run_and_its_record(tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "-m", "gastudy",
         "train", "--dataset-size", "65", "--epochs", "1", "--json", "--no-progress", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # torchrun and its workers: no stray process
        proc.communicate()
        raise
    assert proc.returncode == 0, stderr[-3000:]
    assert TERMINATE not in stderr
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1  # rank 0 alone prints the record
    record = json.loads(lines[0])
    assert record["replicas"] == 2 and record["effective_batch"] == 4 * 4 * 2
    assert [r["samples"] for r in record["per_replica"]] == [33, 32]  # 65 samples sharded
    assert sum(r["supervised_tokens"] for r in record["per_replica"]) == record["supervised_tokens"]
    assert record["samples"] == 65 and record["updates_attempted"] == 3
    assert [r["microbatches"] for r in record["per_replica"]] == [9, 8] and record["microbatches"] == 17
    group = record["last_group"]["groups"][0]
    assert group["replica_microbatches"] == [1, 0] and len(group["sample_ids"]) == 1
    assert any("all distinct" in n for n in record["notes"])
    assert any("all-reduce calls per update: 1" in n for n in record["notes"])
    saved = json.loads((out / "run_record.json").read_text())
    assert saved["per_replica"] == record["per_replica"] and saved["notes"] == record["notes"]
    # m=4 × D=2 sees the same samples per update as m=8 on one process: the same training.
    from gastudy.run.train import TrainConfig, train

    single = train(TrainConfig(micro_batch=8, dataset_size=65, progress=False)).record
    assert single.supervised_tokens == record["supervised_tokens"]
    assert record["final_loss"] == pytest.approx(single.final_loss, rel=1e-4)


def test_torchrun_bad_settings_give_one_message_without_a_traceback(tmp_path):
    from gastudy.run.train import TrainConfig, train

    out = tmp_path / "run"
    train(TrainConfig(dataset_size=24, micro_batch=4, accumulation_steps=2, progress=False, out_dir=str(out),
                      stop_after_updates=1))  # a one-process run's checkpoint.pt
    env = {**os.environ, "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "-m", "gastudy",
         "train", "--dataset-size", "24", "--micro-batch", "4", "--accumulation-steps", "2", "--no-progress",
         "--out", str(out), "--resume"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode != 0
    assert "belongs to a different run" in stderr and "one process (no --replicas)" in stderr, stderr[-3000:]
    # torchrun prints its own ChildFailedError report; no worker prints a traceback of gastudy's code
    assert 'gastudy/run/train.py", line' not in stderr and stderr.count("gastudy: error: rank") == 2, stderr[-3000:]

"""The warm worker pool (gastudy.parallel.pool): results by rank, failures reported, no orphans."""

from __future__ import annotations

import os
import signal
import time

import pytest

from gastudy.course.demos.ddp import compare_denominators_worker
from gastudy.parallel.launch import WorkerError
from gastudy.parallel.pool import WorkerPool
from tests.helpers import hold_ports

pytestmark = pytest.mark.slow


def test_pool_runs_on_every_rank_and_stays_warm():
    with WorkerPool(2) as pool:
        first = pool.run(compare_denominators_worker, accumulation_steps=2)
        pids = [p.pid for p in pool._procs]
        second = pool.run(compare_denominators_worker, accumulation_steps=3)
        assert [p.pid for p in pool._procs] == pids  # the same processes answered both calls
    assert [r["rank"] for r in first] == [0, 1]
    # the global denominator gives the big batch (float64), the naive mean does not
    assert first[0]["global"]["max_rel_diff"] < 1e-12 < 1e-3 < first[0]["local"]["max_rel_diff"]
    assert second[0]["global"]["max_rel_diff"] < 1e-12
    assert pool._procs == []


def test_a_failing_rank_raises_with_its_message_and_the_next_run_starts_fresh():
    pool = WorkerPool(2)
    try:
        t0 = time.monotonic()
        with pytest.raises(WorkerError, match="unknown model 'nope'"):
            pool.run(compare_denominators_worker, model="nope")
        assert time.monotonic() - t0 < 60
        assert not pool.running
        assert pool.run(compare_denominators_worker, accumulation_steps=1)[0]["global"]["max_rel_diff"] < 1e-12
    finally:
        pool.close()


def test_a_killed_worker_is_replaced_and_close_leaves_no_process():
    pool = WorkerPool(2).start()
    try:
        victim = pool._procs[1].pid
        os.kill(victim, signal.SIGKILL)
        time.sleep(0.5)
        assert pool.run(compare_denominators_worker, accumulation_steps=1)[1]["rank"] == 1
        pids = [p.pid for p in pool._procs]
        assert victim not in pids
    finally:
        pool.close()
    time.sleep(0.5)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_bad_size_is_refused():
    with pytest.raises(ValueError, match="nprocs"):
        WorkerPool(0)


def test_workers_leave_when_their_parent_is_killed(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "parent.py"
    script.write_text(
        "from gastudy.parallel.pool import WorkerPool\n"
        "if __name__ == '__main__':\n"
        "    pool = WorkerPool(2).start()\n"
        "    print(*[p.pid for p in pool._procs], flush=True)\n"
        "    import time; time.sleep(600)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(x) for x in parent.stdout.readline().split()]
        assert len(pids) == 2
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        alive = pids
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = [pid for pid in pids if _alive(pid)]
        assert alive == [], f"workers {alive} outlived their parent by 10 s"
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_start_reports_each_rank_that_joins():
    pool = WorkerPool(2)
    seen = []
    try:
        pool.start(progress=lambda joined, total: seen.append((joined, total)))
        assert seen == [(1, 2), (2, 2)] and pool.ready
        pids = [p.pid for p in pool._procs]
        pool.start_in_background().join(30)  # already started: nothing is restarted
        assert [p.pid for p in pool._procs] == pids and pool.ready
    finally:
        pool.close()
    assert not pool.ready and pool._procs == []


def test_prewarmed_pool_is_reused_by_the_first_run_and_closed_with_the_course():
    from gastudy.course.demos import ddp

    ddp.close_pool()
    try:
        assert ddp.prewarm(2) == [2] and ddp.prewarm(2) == []  # started once, in the background
        pool = ddp._POOLS[2]
        seen = []
        assert ddp.start_pool(2, seen.append) is pool and pool.ready  # waits for the background start
        assert seen in ([], [0.0], [0.0, 0.5, 1.0])  # 0.0: the lab said "starting"; then 1 per joined rank
        pids = [p.pid for p in pool._procs]
        assert ddp.run_on_replicas(compare_denominators_worker, 2, accumulation_steps=1)[1]["rank"] == 1
        assert [p.pid for p in pool._procs] == pids
    finally:
        ddp.close_pool()
    time.sleep(0.5)
    assert not any(_alive(pid) for pid in pids)


def all_reduce_worker() -> dict:
    """On every rank: rank + 1 summed over the group (3.0 on both ranks of two)."""
    import torch
    import torch.distributed as dist

    t = torch.tensor([dist.get_rank() + 1.0])
    dist.all_reduce(t)
    return {"rank": dist.get_rank(), "sum": float(t)}


@pytest.mark.timeout(400)
def test_a_port_taken_between_choice_and_bind_cannot_break_the_pool(monkeypatch):
    """The race of old, provoked: the pool used to pick a port with ``free_port`` (bind, read,
    release) and let rank 0 bind it later. Here every such helper hands out a port that another
    listening socket already holds, and torch's default port 29500 is held too. The pool still
    starts and all-reduces, because it chooses no port: the parent serves the group's TCPStore on
    port 0 (the OS assigns a free one while binding it) and the workers connect as clients."""

    import torch.distributed as dist

    from gastudy.parallel import launch
    from gastudy.parallel import pool as pool_module

    busy = hold_ports((29500, 0))  # 29500 already in use elsewhere: busy anyway
    taken = [s.getsockname()[1] for s in busy]
    chosen, servers = [], []

    def thief(*args, **kwargs):  # a port picked ahead of time, then taken before the workers bind it
        chosen.append(taken[-1])
        return taken[-1]

    real_store = dist.TCPStore

    def store(host, port, *args, **kwargs):
        made = real_store(host, port, *args, **kwargs)
        servers.append((port, made.port))
        return made

    for module in (launch, pool_module):
        monkeypatch.setattr(module, "free_port", thief, raising=False)
    monkeypatch.setattr(dist, "TCPStore", store)  # only the parent's stores: workers are spawned
    pool = WorkerPool(2, timeout=120)
    try:
        results = pool.run(all_reduce_worker)
        assert pool._store is not None and pool._store.port == servers[0][1]  # held while the pool lives
    finally:
        pool.close()
        for s in busy:
            s.close()
    assert results == [{"rank": 0, "sum": 3.0}, {"rank": 1, "sum": 3.0}]
    assert chosen == []  # no port was chosen ahead of time
    assert len(servers) == 1 and servers[0][0] == 0 and servers[0][1] not in taken  # one server, on port 0
    assert pool._store is None and pool._procs == []  # closed with the pool

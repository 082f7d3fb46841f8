"""The warm worker pool (gastudy.parallel.pool): results by rank, failures reported, no orphans."""

from __future__ import annotations

import os
import signal
import time

import pytest

from gastudy.course.demos.ddp import compare_denominators_worker
from gastudy.parallel.launch import WorkerError
from gastudy.parallel.pool import WorkerPool

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

"""The warm worker pool (gastudy.course.pool): results by rank, failures reported, no orphans."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time

import pytest

from gastudy.course.demos.ddp import compare_denominators_worker
from gastudy.course.pool import WorkerPool
from gastudy.parallel.launch import WorkerError
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
        "from gastudy.course.pool import WorkerPool\n"
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
        assert pool.start() is pool  # already started: nothing is restarted
        assert [p.pid for p in pool._procs] == pids and pool.ready
    finally:
        pool.close()
    assert not pool.ready and pool._procs == []


def test_one_warm_pool_is_kept_and_a_change_of_D_stops_the_old_one_first():
    from gastudy.course.demos import ddp

    ddp.close_pool()
    try:
        seen = []
        two = ddp.start_pool(2, seen.append)
        assert two.ready and seen == [0.0, 0.5, 1.0]  # 0.0: the lab said "starting"; then 1 per joined rank
        pids = [p.pid for p in two._procs]
        assert ddp.run_on_replicas(compare_denominators_worker, 2, accumulation_steps=1)[1]["rank"] == 1
        assert [p.pid for p in two._procs] == pids  # warm: the run started nothing
        assert ddp.start_pool(2) is two
        three = ddp.start_pool(3)
        assert list(ddp._POOLS) == [3] and three.ready and not two.ready
        assert not any(_alive(pid) for pid in pids)  # D = 2's workers were stopped, not left beside D = 3's
        later = [p.pid for p in three._procs]
    finally:
        ddp.close_pool()
    time.sleep(0.5)
    assert ddp._POOLS == {} and not any(_alive(pid) for pid in later)


def sleeping_worker(seconds: float) -> float:
    """On every rank: sleep (a task a learner would stop with JupyterLab's interrupt)."""
    time.sleep(seconds)
    return seconds


def test_an_interrupt_leaves_an_idle_pool_warm_and_stops_a_task_in_flight():
    import _thread
    import threading

    pool = WorkerPool(2)
    try:
        pool.start()
        pids = [p.pid for p in pool._procs]
        for pid in pids:  # what JupyterLab's interrupt does: SIGINT to the kernel's whole process group
            os.kill(pid, signal.SIGINT)
        time.sleep(0.5)
        assert pool.ready and all(_alive(pid) for pid in pids)
        assert pool.run(sleeping_worker, 0.0) == [0.0, 0.0] and [p.pid for p in pool._procs] == pids
        threading.Timer(1.0, _thread.interrupt_main).start()
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            pool.run(sleeping_worker, 60.0)
        assert time.monotonic() - began < 5.0  # not the task's 60 s, nor the 5 s grace per idle worker
        assert not pool.ready and pool._procs == []
        time.sleep(0.5)
        assert not any(_alive(pid) for pid in pids)
        assert pool.run(sleeping_worker, 0.0) == [0.0, 0.0]  # the next run starts afresh
    finally:
        pool.close()


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

    from gastudy.course import pool as pool_module
    from gastudy.parallel import launch

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
    # one server, on the port the OS gave the parent's loopback socket (bound on port 0)
    assert len(servers) == 1 and servers[0][0] == servers[0][1] and servers[0][1] not in taken
    assert pool._store is None and pool._procs == []  # closed with the pool


def _other_addresses() -> list[tuple[int, str]]:
    """This machine's non-loopback addresses: (family, address) for every IPv4 address of an
    interface (ioctl SIOCGIFADDR) and every global IPv6 address (/proc/net/if_inet6)."""
    import fcntl
    import struct

    found = []
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))
            except OSError:  # no IPv4 address on this interface
                continue
        found.append((socket.AF_INET, socket.inet_ntoa(packed[20:24])))
    with contextlib.suppress(OSError), open("/proc/net/if_inet6") as f:
        for line in f:
            hexaddr, _, _, scope = line.split()[:4]
            if scope == "00":  # global scope (loopback is 10, link-local 20)
                found.append((socket.AF_INET6, socket.inet_ntop(socket.AF_INET6, bytes.fromhex(hexaddr))))
    return [(family, address) for family, address in found if not address.startswith("127.")]


def test_the_pools_store_is_reachable_on_loopback_only():
    """A ``TCPStore`` server binds every interface by itself, so another machine on the network
    could reach the parent's store (and the group's rendezvous). The pool's store serves a socket
    bound to 127.0.0.1: its port answers there and is refused on every other address of this
    machine, and the pool still all-reduces on 2 ranks."""
    others = _other_addresses()
    if not others:
        pytest.skip("this machine has no non-loopback address to try the store's port on")
    with WorkerPool(2, timeout=120) as pool:
        assert pool.run(all_reduce_worker) == [{"rank": 0, "sum": 3.0}, {"rank": 1, "sum": 3.0}]
        port = pool._store.port
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # served on loopback
        for family, address in others:
            with socket.socket(family, socket.SOCK_STREAM) as probe, pytest.raises(OSError):
                probe.settimeout(5)
                probe.connect((address, port))
        assert pool.run(all_reduce_worker)[1] == {"rank": 1, "sum": 3.0}  # the probes broke nothing
    print(f"store port {port}: refused on {[a for _, a in others]}")

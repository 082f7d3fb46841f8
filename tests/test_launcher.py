"""The local launcher on PyTorch's elastic launcher (MB-7): no orphan, no temp folder, tracebacks
reach the caller, a script's own functions run as workers, a port taken by someone else cannot
break the rendezvous, and Ctrl-C on `gastudy train --replicas 2` stops every rank at one group
boundary with checkpoints that resume bit-identically.

Few launches, each bounded: starting processes (``import torch``) is what costs on 2 cores.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
import torch

from gastudy.parallel import launch
from tests.helpers import hold_ports

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

ROOT = Path(__file__).resolve().parent.parent


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, grandchildren, ...)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[-1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return [p for p in found if _alive(p)]


def _is_worker(pid: int) -> bool:
    try:
        return b"multiprocessing" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _env(tmp: Path) -> dict[str, str]:
    tmp.mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}


@pytest.mark.parametrize("sig, start", [(signal.SIGTERM, "forkserver"), (signal.SIGKILL, "forkserver"),
                                        (signal.SIGKILL, "spawn")])
def test_stopping_the_parent_stops_every_worker_and_leaves_no_temp_folder(tmp_path, sig, start):
    # a TMPDIR too long for the fork server's socket (about 100 bytes) makes the workers spawned
    tmp = Path(tempfile.mkdtemp(prefix="gastudy-test-")) if start == "forkserver" else tmp_path / ("deep-" * 24)
    parent = subprocess.Popen(
        [sys.executable, "-m", "gastudy", "train", "--replicas", "2", "--dataset-size", "100000", "--no-progress",
         "--out", str(tmp_path / "run")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(tmp), cwd=tmp_path,
        start_new_session=True)
    try:
        deadline, started = time.monotonic() + 150, []
        while len(started) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.5)  # each worker writes its pid once it runs (imports done)
            started = list(tmp.glob("gastudy-launch-*/pid_*"))
        assert len(started) == 2, (parent.poll(), parent.stderr.read() if parent.poll() is not None else "")
        time.sleep(2.0)  # let them get into the training
        assert len([p for p in _descendants(parent.pid) if _is_worker(p)]) >= 2
        everything = _descendants(parent.pid)
        os.kill(parent.pid, sig)
        t0 = time.monotonic()
        while any(_alive(p) for p in everything) and time.monotonic() - t0 < 15:
            time.sleep(0.1)
        left = [p for p in everything if _alive(p)]
        print(f"{sig.name}: every process below the parent gone after {time.monotonic() - t0:.2f} s")
        assert left == [], f"processes {left} outlived their parent by 15 s after {sig.name}"
        _, stderr = parent.communicate(timeout=30)
        if sig == signal.SIGTERM:  # the parent stopped its workers, then said so
            assert parent.returncode == 128 + signal.SIGTERM, stderr[-2000:]
            assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr, stderr[-2000:]
        deadline = time.monotonic() + 10
        while any(tmp.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert list(tmp.iterdir()) == [], [str(p) for p in tmp.rglob("*")]  # the launcher's temporary folder went too
    finally:
        if parent.poll() is None:
            os.killpg(parent.pid, signal.SIGKILL)
        parent.communicate()
        shutil.rmtree(tmp, ignore_errors=True)


SCRIPT = '''
import sys
import torch.distributed as dist
from gastudy.parallel.launch import WorkerError, run_local


def work(x):
    if dist.get_rank() == 1:
        raise ValueError(f"rank 1 refuses {{x}}")
    return x * 10


{launch}
'''


def test_a_scripts_own_function_runs_as_a_worker_and_a_failing_ranks_traceback_reaches_the_caller(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(SCRIPT.replace("{{", "{").replace("}}", "}").replace("{launch}", textwrap.dedent('''
        if __name__ == "__main__":
            try:
                run_local(work, 2, 7, timeout=150)
            except WorkerError as e:
                print("RESULTS", e.run.results, "RANK", e.rank)
                print(e)
        ''')))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=200,
                          env=_env(tmp_path / "tmp"), cwd=tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RESULTS [70, None]" in out  # rank 0 ran the script's function and returned
    assert "rank 1: ValueError: rank 1 refuses 7" in out
    assert f'File "{script}", line 9, in work' in out  # rank 1's own traceback, file and line
    assert list((tmp_path / "tmp").iterdir()) == []


def test_a_script_without_the_main_guard_gets_the_recipe(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(SCRIPT.replace("{{", "{").replace("}}", "}").replace("{launch}", textwrap.dedent('''
        try:
            run_local(work, 2, 7, timeout=150)
        except WorkerError as e:
            print(e)
        ''')))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=200,
                          env=_env(tmp_path / "tmp"), cwd=tmp_path)
    assert 'if __name__ == "__main__":' in proc.stdout, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "exited before running the function" in proc.stdout


def port_worker() -> dict:
    """What a worker was told about the store it joined, and one all-reduce through the group."""
    import torch
    import torch.distributed as dist

    t = torch.tensor([dist.get_rank() + 1.0])
    dist.all_reduce(t)
    return {"master_port": int(os.environ["MASTER_PORT"]), "agent_store": os.environ["TORCHELASTIC_USE_AGENT_STORE"],
            "sum": float(t)}


def test_a_port_taken_between_choice_and_rendezvous_cannot_break_the_run(monkeypatch):
    """The race of old, provoked: every port PyTorch would choose ahead of time (``get_free_port``:
    bind, read, release) is handed out already taken by another listening socket, and PyTorch is
    told to work that way (TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1, where rank 0 binds the chosen
    MASTER_PORT). torch's default port 29500 and 64 more ports are held busy too. The run still
    completes, first time: the launcher makes the rendezvous share its store, which the parent
    bound on port 0 (the OS assigns a free port atomically) and holds for the whole run; the
    workers connect to it as clients, so no port is ever chosen and released."""
    import torch.distributed.elastic.rendezvous.api as rdzv_api
    import torch.distributed.elastic.rendezvous.c10d_rendezvous_backend as c10d_backend
    import torch.distributed.elastic.utils.distributed as elastic_utils
    from torch.distributed.elastic.rendezvous.dynamic_rendezvous import DynamicRendezvousHandler

    busy = hold_ports([29500] + [0] * 64)  # 29500 already in use elsewhere: busy anyway
    taken = [s.getsockname()[1] for s in busy]
    chosen, servers = [], []

    def thief(*args, **kwargs):  # a port picked ahead of time, then taken before the rendezvous
        chosen.append(taken[len(chosen) % len(taken)])
        return chosen[-1]

    real_store, real_server = c10d_backend.TCPStore, DynamicRendezvousHandler._create_tcp_store_server

    def store(host, port, *args, **kwargs):
        made = real_store(host, port, *args, **kwargs)
        if kwargs.get("is_master"):
            servers.append((port, made.port))
        return made

    def server(self, addr, port):
        made = real_server(self, addr, port)
        servers.append((port, made.port))
        return made

    monkeypatch.setattr(rdzv_api, "get_free_port", thief)
    monkeypatch.setattr(elastic_utils, "get_free_port", thief)
    monkeypatch.setattr(c10d_backend, "TCPStore", store)
    monkeypatch.setattr(DynamicRendezvousHandler, "_create_tcp_store_server", server)
    monkeypatch.setenv("TORCH_DISABLE_SHARE_RDZV_TCP_STORE", "1")
    try:
        t0 = time.monotonic()
        results = launch.run_local(port_worker, 2, timeout=120)
        seconds = time.monotonic() - t0
    finally:
        for s in busy:
            s.close()
    print(f"run completed in {seconds:.1f} s with {len(taken)} ports held busy; stores bound: {servers}")
    assert [r["sum"] for r in results] == [3.0, 3.0]  # the group works: 1 + 2 on both ranks
    assert chosen == []  # no port was ever chosen ahead of time
    # rendezvous + shared store: port 0 (the rendezvous' through a loopback socket the OS gave a port while binding)
    assert len(servers) == 2 and servers[0][0] == servers[0][1] not in taken and servers[1][0] == 0
    assert {r["master_port"] for r in results} == {servers[-1][1]}  # the workers joined the parent's store
    assert all(r["agent_store"] == "True" for r in results) and servers[-1][1] not in taken
    assert os.environ["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] == "1"  # the caller's setting is put back
    assert seconds < 75  # the old failure mode: a 75 s rendezvous timeout


def surroundings_worker() -> dict:
    """What a worker sees of the caller's world."""
    return {"setting": os.environ.get("GASTUDY_TEST_SETTING"), "cwd": os.getcwd(), "ppid": os.getppid(),
            "torch_threads": __import__("torch").get_num_threads()}


def test_workers_see_the_callers_environment_and_folder_as_they_are_at_each_call(tmp_path, monkeypatch):
    """Workers may come from a fork server started at the first run: a variable set or a folder
    entered after it started still reaches the workers of the next run, and one removed is gone."""
    launch.run_local(surroundings_worker, 1, timeout=120)  # the fork server (where there is one) now runs
    monkeypatch.setenv("GASTUDY_TEST_SETTING", "after the first run")
    monkeypatch.chdir(tmp_path)
    second = launch.run_local(surroundings_worker, 2, timeout=120)
    assert [(r["setting"], r["cwd"]) for r in second] == [("after the first run", str(tmp_path))] * 2
    forked = "forkserver" in multiprocessing.get_all_start_methods()
    assert {r["ppid"] == os.getpid() for r in second} == {not forked}  # forked by the server, not started by us
    assert [r["torch_threads"] for r in second] == [1, 1]
    monkeypatch.delenv("GASTUDY_TEST_SETTING")
    assert [r["setting"] for r in launch.run_local(surroundings_worker, 2, timeout=120)] == [None, None]


def test_a_temporary_folder_too_long_for_the_fork_servers_socket_falls_back_to_spawned_workers(tmp_path):
    """A Unix socket's path holds about 100 bytes: under a longer TMPDIR the fork server cannot
    start, and the run still completes with spawned workers."""
    long = tmp_path / ("deep-" * 24)
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent("""
        import os
        from gastudy.parallel.launch import run_local
        from tests.test_launcher import surroundings_worker

        if __name__ == "__main__":
            results = run_local(surroundings_worker, 2, timeout=120)
            print([r["ppid"] == os.getpid() for r in results])
    """))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180,
                          env=_env(long), cwd=ROOT)
    assert len(str(long)) > 110 and proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "[True, True]"  # started by the caller's launcher: spawned
    assert list(long.iterdir()) == []  # multiprocessing's folder, made for the socket, went at the exit


CUT = [sys.executable, "-m", "gastudy", "train", "--replicas", "2", "--dataset-size", "600", "--no-progress",
       "--checkpoint-every", "1"]


@pytest.mark.timeout(900)
def test_ctrl_c_on_replicas_stops_every_rank_at_one_boundary_and_the_run_resumes_bit_identically(tmp_path):
    from gastudy.run.commit import latest_folder
    from gastudy.run.resume import load_checkpoint

    env, whole_dir, cut_dir = _env(tmp_path / "tmp"), tmp_path / "whole", tmp_path / "cut"
    whole = subprocess.Popen([*CUT, "--out", str(whole_dir)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env=env, cwd=tmp_path)
    cut = subprocess.Popen([*CUT, "--out", str(cut_dir)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 400
        latest = cut_dir / "checkpoint-replicas" / "LATEST"  # the first committed checkpoint
        while not latest.exists() and time.monotonic() < deadline and cut.poll() is None:
            time.sleep(0.2)
        assert latest.exists(), cut.communicate()[1][-3000:]
        cut.send_signal(signal.SIGINT)  # one Ctrl-C, to the parent only (the workers run in their own groups)
        _, stderr = cut.communicate(timeout=200)
        assert cut.returncode == 130, stderr[-3000:]
        assert "Traceback" not in stderr and "at a group boundary" in stderr and "--resume" in stderr, stderr
        record = json.loads((cut_dir / "run_record.json").read_text())
        assert any("by SIGINT" in n for n in record["notes"]), record["notes"]
        states = [load_checkpoint(latest_folder(cut_dir) / f"rank{r}.pt") for r in (0, 1)]
        assert [s["counters"]["updates_attempted"] for s in states] == [record["updates_attempted"]] * 2
        assert states[0]["position"] == states[1]["position"]  # both ranks stopped at the same boundary
        resumed = subprocess.run([*CUT, "--out", str(cut_dir), "--resume"], capture_output=True, text=True,
                                 env=env, cwd=tmp_path, timeout=400)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        _, whole_err = whole.communicate(timeout=400)
        assert whole.returncode == 0, whole_err[-3000:]
    finally:
        for proc in (whole, cut):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    full = json.loads((whole_dir / "run_record.json").read_text())
    assert 1 <= record["updates_attempted"] < full["updates_attempted"]  # it really stopped mid-run
    print(f"stopped after {record['updates_attempted']} of {full['updates_attempted']} updates, resumed to the end")
    again = json.loads((cut_dir / "run_record.json").read_text())
    for key in ("updates_attempted", "updates_applied", "samples", "supervised_tokens", "final_loss"):
        assert again[key] == full[key], key
    for rank in (0, 1):
        a, b = (load_checkpoint(latest_folder(d) / f"rank{rank}.pt") for d in (whole_dir, cut_dir))
        assert a["model"].keys() == b["model"].keys()
        assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"]), f"rank {rank} weights differ"
    assert list((tmp_path / "tmp").glob("gastudy-launch-*")) == []  # no run folder left behind


def test_functions_a_worker_cannot_import_are_refused_with_the_recipe():
    with pytest.raises(ValueError, match="cannot import it.*__main__"):
        launch.check_importable(lambda: 0)
    launch.check_importable(_alive)  # a module-level function of an importable module
    with pytest.raises(ValueError, match="nprocs"):
        launch.run_local(_alive, 0)
    with pytest.raises(ValueError, match="timeout"):
        launch.run_local(_alive, 2, timeout=0)


def listening_worker() -> list:
    """Every TCP socket this worker listens on, after the group has formed (and a pause so the
    parent can look at its own meanwhile)."""
    import psutil

    time.sleep(2.0)
    return sorted({c.laddr.ip for c in psutil.Process().net_connections(kind="tcp") if c.status == "LISTEN"})


def test_no_process_of_a_local_run_listens_beyond_loopback():
    """The launcher serves two stores (the rendezvous', and the one it shares with the workers); a
    TCPStore server alone listens on every interface, so any machine on the network could reach
    them for as long as the run lasts. Every listening socket of the parent and the workers is on
    127.0.0.1 while a 2-process run is up."""
    import threading

    import psutil

    seen: list[str] = []

    def watch():
        time.sleep(1.0)
        for _ in range(10):
            seen.extend(c.laddr.ip for c in psutil.Process().net_connections(kind="tcp") if c.status == "LISTEN")
            time.sleep(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    workers = launch.run_local(listening_worker, 2, timeout=120)
    watcher.join()
    assert seen, "the parent's stores were not seen listening"
    assert set(seen) == {"127.0.0.1"} and all(set(w) <= {"127.0.0.1"} for w in workers), (seen, workers)

"""The local launcher on PyTorch's elastic launcher (MB-7): no orphan, no temp folder, tracebacks
reach the caller, a script's own functions run as workers, no port is chosen ahead of time.

Few launches, each bounded: starting processes (``import torch``) is what costs on 2 cores.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gastudy.parallel import launch

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


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_stopping_the_parent_stops_every_worker_and_leaves_no_temp_folder(tmp_path, sig):
    tmp = tmp_path / "tmp"
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
    # the race of old: a port chosen ahead of time and taken by someone else before the rendezvous
    taken = socket.socket()
    taken.bind(("127.0.0.1", launch.free_port()))
    taken.listen()
    script = tmp_path / "job.py"
    script.write_text(SCRIPT.replace("{{", "{").replace("}}", "}").replace("{launch}", textwrap.dedent('''
        if __name__ == "__main__":
            try:
                run_local(work, 2, 7, timeout=150)
            except WorkerError as e:
                print("RESULTS", e.run.results, "RANK", e.rank)
                print(e)
        ''')))
    try:
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=200,
                              env=_env(tmp_path / "tmp"), cwd=tmp_path)
    finally:
        taken.close()
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


def test_no_port_is_chosen_ahead_of_time(monkeypatch):
    """The rendezvous binds port 0 (the OS assigns it atomically) instead of a port picked and
    released beforehand, which another program could take in between."""
    seen = {}

    def fake_elastic_launch(config, entrypoint):
        seen["endpoint"], seen["backend"], seen["restarts"] = config.rdzv_endpoint, config.rdzv_backend, \
            config.max_restarts
        return lambda payload: {0: "ok"}

    import torch.distributed.launcher.api as api

    monkeypatch.setattr(api, "elastic_launch", fake_elastic_launch)
    monkeypatch.setattr(launch, "free_port", lambda *a: pytest.fail("the launcher picked a port itself"))
    assert launch.run_local(len, 1, ()) == ["ok"]
    assert seen == {"endpoint": "localhost:0", "backend": "c10d", "restarts": 0}


def test_functions_a_worker_cannot_import_are_refused_with_the_recipe():
    with pytest.raises(ValueError, match="cannot import it.*__main__"):
        launch.check_importable(lambda: 0)
    launch.check_importable(_alive)  # a module-level function of an importable module
    with pytest.raises(ValueError, match="nprocs"):
        launch.run_local(_alive, 0)
    with pytest.raises(ValueError, match="timeout"):
        launch.run_local(_alive, 2, timeout=0)

"""The check owns its process: what a user's step starts does not outlive the check, what it prints
does not flood the terminal, and its time is bounded — both stated in the report.

Hostile steps, each doing one right update after its mischief: 30 forked children, 5 detached
grandchildren (``setsid`` + a double fork), 2 ``Popen`` children, a thread that never ends, 42 MB
of output, and endless printing. Each writes the pids it started to a file; after the command (or
``check_loop``) returns, none of them may be alive.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import gastudy
from gastudy.check.isolated import Confinement, Owned, descendants, stop_new_processes
from gastudy.check.loop import TrainStepError
from gastudy.check.verify import controlled_microbatches
from gastudy.course.models import build_model

ROOT = Path(__file__).resolve().parent.parent

HOSTILE = textwrap.dedent('''
    import os, subprocess, sys, threading, time
    import torch.nn.functional as F

    PIDS = os.environ["HOSTILE_PIDS"]

    def right(model, optimizer, microbatches):
        N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
        for mb in microbatches:
            logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
            (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum") / N).backward()
        optimizer.step()
        optimizer.zero_grad()

    def note(pid):
        with open(PIDS, "a") as f:
            f.write(f"{pid}\\n")

    def then_right(start):
        def step(model, optimizer, microbatches):
            start()
            right(model, optimizer, microbatches)
        step.__wrapped__ = start
        step.__name__ = start.__name__
        return step

    @then_right
    def forks():
        for _ in range(30):
            pid = os.fork()
            if pid == 0:
                time.sleep(1000)
                os._exit(0)
            note(pid)

    @then_right
    def detached():
        for _ in range(5):
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.setsid()
                if os.fork() == 0:
                    os.write(w, f"{os.getpid()}\\n".encode())
                    time.sleep(1000)
                    os._exit(0)
                os._exit(0)
            os.waitpid(pid, 0)
            note(int(os.read(r, 64)))

    @then_right
    def popens():
        for _ in range(2):
            note(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"]).pid)

    @then_right
    def thread():
        seconds = float(os.environ.get("HOSTILE_THREAD_S", "1000"))
        threading.Thread(target=lambda: time.sleep(seconds), name="forever").start()

    def mischief(model, optimizer, microbatches):
        """All of it in one step: 30 forks, 5 detached grandchildren, 2 Popen children, a thread."""
        forks.__wrapped__()
        detached.__wrapped__()
        popens.__wrapped__()
        thread.__wrapped__()
        right(model, optimizer, microbatches)

    def chatty(model, optimizer, microbatches):
        line = "x" * 1023 + "\\n"
        for _ in range(20 * 1024):
            sys.stdout.write(line)
        right(model, optimizer, microbatches)

    def endless_print(model, optimizer, microbatches):
        while True:
            print("spam " * 200)
''')


@pytest.fixture()
def hostile(tmp_path, monkeypatch):
    path = tmp_path / "hostile_steps.py"
    path.write_text(HOSTILE)
    pids = tmp_path / "pids"
    monkeypatch.setenv("HOSTILE_PIDS", str(pids))
    return path, pids


def alive(pids_file: Path) -> tuple[int, int]:
    """(started, still alive) of the pids a hostile step wrote."""
    pids = [int(p) for p in pids_file.read_text().split()] if pids_file.exists() else []
    running = 0
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        running += state != "Z"
    return len(pids), running


def run_cli(path, function, *extra):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "gastudy", "check-loop", f"{path}:{function}", "--json", *extra],
                          capture_output=True, cwd=ROOT, env=env, timeout=240)


# --------------------------------------------------------------------------- the command line
@pytest.mark.slow
def test_every_process_and_thread_the_step_starts_is_gone_when_the_command_returns(hostile):
    path, pids = hostile
    start = time.monotonic()
    result = run_cli(path, "mischief")
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - start < 120  # the thread that sleeps 1000 s did not hold the command
    payload = json.loads(result.stdout)
    assert payload["passed"] is True
    total, running = alive(pids)
    # the step runs once (the memory check measures that same run): 30 forks + 5 detached + 2 Popen
    assert total == 37 and running == 0, f"{running} of {total} still alive"
    isolation = payload["isolation"]
    assert isolation["isolated"] and isolation["processes_stopped"] >= total
    assert "forever" in isolation["threads_left"] and "stopped with its process" in isolation["text"]


@pytest.mark.slow
def test_output_is_cut_after_one_megabyte_and_the_json_stays_clean(hostile):
    path, _ = hostile
    result = run_cli(path, "chatty")
    assert result.returncode == 0
    payload = json.loads(result.stdout)  # the step's prints went to standard error, not into the JSON
    assert payload["passed"] is True
    isolation = payload["isolation"]
    assert isolation["output_cut"] and isolation["output_shown"] == 1_000_000
    assert isolation["output_bytes"] == 20 * 1024 * 1024  # every byte counted, none of it lost
    assert len(result.stderr) < 1_000_000 + 1000 and b"[gastudy: output cut after 1 MB" in result.stderr
    assert "printed 21 MB, the first 1 MB shown, then cut" in isolation["text"]


@pytest.mark.slow
def test_an_endless_printer_is_stopped_at_the_time_limit_and_cut(hostile):
    path, _ = hostile
    start = time.monotonic()
    result = run_cli(path, "endless_print", "--timeout", "6")
    assert result.returncode == 1 and time.monotonic() - start < 40
    payload = json.loads(result.stdout)
    assert "did not finish within 6 s" in payload["error"]
    assert payload["isolation"]["time_limit_s"] == 6 and payload["isolation"]["output_cut"]
    assert len(result.stderr) < 1_000_000 + 1000


# --------------------------------------------------------------------------- in this process
@pytest.fixture(scope="module")
def world():
    return build_model("tiny-gpt"), controlled_microbatches("tiny-gpt", 2, 4, "padded", 0)


def _load(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"hostile_{path.stat().st_mtime_ns}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("function", ["forks", "detached", "popens"])
def test_check_loop_in_this_process_stops_what_the_step_started(hostile, world, function):
    path, pids = hostile
    steps = _load(path)
    report = gastudy.check_loop(getattr(steps, function), *world)
    assert report.passed
    total, running = alive(pids)
    assert total > 0 and running == 0
    assert report.confinement.processes_stopped >= total and not report.confinement.isolated
    assert "in this process; stopped" in str(report).splitlines()[-1]


def test_check_loop_in_this_process_names_a_thread_it_cannot_stop_and_cuts_prints(hostile, world, capsys,
                                                                                 monkeypatch):
    path, _ = hostile
    monkeypatch.setenv("HOSTILE_THREAD_S", "3")  # alive when the check ends, gone before the test run ends
    steps = _load(path)
    report = gastudy.check_loop(steps.chatty, *world)
    out = capsys.readouterr().out
    assert len(out) < 1_000_000 + 500 and "[gastudy: output cut after 1 MB" in out
    assert report.confinement.output_cut and report.confinement.output_bytes == 20 * 1024 * 1024
    report = gastudy.check_loop(steps.thread, *world)
    assert report.passed and "forever" in report.confinement.threads_left
    assert "still running in this process" in report.confinement.describe()


def test_check_loop_in_this_process_is_bounded_in_time(world):
    def spins(model, optimizer, microbatches):
        while True:
            time.sleep(0.01)

    start = time.monotonic()
    with pytest.raises(TrainStepError, match="did not finish within 2 s"):
        gastudy.check_loop(spins, *world, timeout_s=2)
    assert time.monotonic() - start < 10


def test_a_step_that_swallows_the_interrupt_is_interrupted_again(world):
    def stubborn(model, optimizer, microbatches):
        for _ in range(3):
            with contextlib.suppress(KeyboardInterrupt):  # the step catches the interrupt, three times
                time.sleep(100)
        time.sleep(100)

    start = time.monotonic()
    with pytest.raises(TrainStepError, match="did not finish within 1 s"):
        gastudy.check_loop(stubborn, *world, timeout_s=1)
    assert time.monotonic() - start < 15


@pytest.mark.parametrize("disposition", [signal.SIG_IGN, signal.SIG_DFL], ids=["ignored", "default"])
def test_the_time_limit_holds_where_sigint_is_ignored_or_at_its_default(world, disposition):
    """A job a shell script starts in the background (`cmd &`) ignores SIGINT from birth: the
    limit must still stop the step, and the disposition come back as it was."""
    def spins(model, optimizer, microbatches):
        while True:
            time.sleep(0.01)

    previous = signal.signal(signal.SIGINT, disposition)
    try:
        start = time.monotonic()
        with pytest.raises(TrainStepError, match="did not finish within 1 s"):
            gastudy.check_loop(spins, *world, timeout_s=1)
        assert time.monotonic() - start < 10
        assert signal.getsignal(signal.SIGINT) == disposition
    finally:
        signal.signal(signal.SIGINT, previous)


def test_owned_leaves_this_process_as_it_was():
    before_out, before_err = sys.stdout, sys.stderr
    with Owned(time_limit_s=None) as owned:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100)"])
        print("hello")
    assert sys.stdout is before_out and sys.stderr is before_err
    assert child.poll() is not None and owned.confinement.processes_stopped == 1
    assert owned.confinement.output_bytes == len("hello\n") and not owned.confinement.output_cut
    assert child.pid not in descendants(os.getpid())
    assert stop_new_processes(descendants(os.getpid())) == 0  # nothing new: nothing killed


def test_the_confinement_says_what_happened_in_one_line():
    c = Confinement(seconds=3.21, time_limit_s=300, output_bytes=2_800_000_000, output_shown=1_000_000,
                    processes_stopped=30, threads_left=["spinner"], isolated=True)
    text = c.describe()
    assert text == ("ran 3.2 s of a 300 s limit in a session of its own; printed 2.8 GB, the first 1 MB shown, then "
                    "cut; stopped 30 processes it started; 1 thread(s) it started ('spinner') stopped with its process")
    assert c.to_dict()["output_cut"] is True

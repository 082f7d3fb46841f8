"""Refusals in one line, before the work: paths that cannot be written, sizes no check needs, an
address that opens every interface, settings read late, a run that diverges, a resume of another
run on several processes, and a torchrun worker whose agent was killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gastudy.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def one_line(capsys, code, argv, message):
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err and message in err, err
    assert main([*argv, "--json"]) == code
    payload = json.loads(capsys.readouterr().out)
    assert payload["exit"] == code and message in payload["error"]


@pytest.fixture()
def a_file(tmp_path):
    path = tmp_path / "a_file"
    path.write_text("not a folder")
    return path


def test_paths_that_cannot_be_written_are_refused_before_the_work(capsys, a_file, tmp_path):
    one_line(capsys, 2, ["verify", "--save", str(a_file)], "is a file, not a folder")
    one_line(capsys, 2, ["verify", "--save", str(a_file / "under")], "which is a file: choose a folder")
    one_line(capsys, 2, ["site", "--out", str(a_file / "site")], "which is a file: choose a folder")
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        one_line(capsys, 2, ["verify", "--save", str(locked / "x")], "cannot be written by this user")
    assert a_file.read_text() == "not a folder"


def test_an_edition_folder_that_is_a_file_is_one_line(capsys, tmp_path):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for path in (ROOT / "notebooks").glob("0[01]_*.ipynb"):
        (notebooks / path.name).write_bytes(path.read_bytes())
    (notebooks / "translations" / "tr").mkdir(parents=True)
    catalog = ROOT / "notebooks" / "translations" / "tr" / "notebooks.po"
    (notebooks / "translations" / "tr" / catalog.name).write_bytes(catalog.read_bytes())
    (notebooks / "tr").write_text("")
    assert main(["editions", "--notebooks", str(notebooks), "--lang", "tr"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tr is a file, not a folder" in err


@pytest.mark.parametrize("argv, message", [
    (["verify", "-m", "1000000", "-A", "1000000"], "1000000000000 samples"),
    (["verify", "-m", "4096", "-A", "2"], "at most 4096"),
    (["check-loop", "x.py", "-m", "1000", "-A", "1000"], "1000000 samples"),
])
def test_sizes_no_check_needs_are_refused_at_once(capsys, argv, message):
    t0 = time.monotonic()
    one_line(capsys, 2, argv, message)
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("ip", ["", "  ", "no where", "300.1.1.1", "127.0.0.1; rm -rf /"])
def test_lab_refuses_an_address_that_is_not_one(capsys, ip):
    with pytest.raises(SystemExit) as exit_:
        main(["lab", "--dry-run", "--ip", ip])
    assert exit_.value.code == 2 and "must be an IP address" in capsys.readouterr().err
    assert main(["lab", "--dry-run", "--json", "--ip", "::1"]) == 0
    assert "--ip=::1" in json.loads(capsys.readouterr().out)["command"]


@pytest.mark.parametrize("value", ["abc", "-1", "0", "inf", ""])
def test_a_bad_distributed_timeout_is_one_line(capsys, monkeypatch, value):
    monkeypatch.setenv("GASTUDY_DIST_TIMEOUT", value)
    one_line(capsys, 2, ["train", "--replicas", "2", "--dataset-size", "16"], "GASTUDY_DIST_TIMEOUT=")


def run(*argv, timeout=300):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "gastudy", *argv], capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_a_diverging_run_ends_with_exit_1_one_line_and_its_record(tmp_path):
    out = tmp_path / "run"
    result = run("train", "--lr", "1000", "--epochs", "3", "--json", "--out", str(out), "--dataset-size", "64")
    assert result.returncode == 1, result.stderr
    payload = json.loads(result.stdout)
    assert payload["exit"] == 1 and payload["error"].startswith("the run diverged at update")
    assert "lower --lr" in payload["error"] and "Traceback" not in result.stderr
    record = json.loads((out / "run_record.json").read_text())
    assert any(n.startswith("diverged at update") for n in record["notes"])


@pytest.mark.slow
def test_a_multi_process_resume_of_another_run_is_refused_before_any_process_starts(tmp_path):
    out = str(tmp_path / "sharded")
    first = run("train", "--replicas", "2", "--shard", "--out", out, "--dataset-size", "48", "--stop-after-updates",
                "1", "--no-progress")
    assert first.returncode == 0, first.stderr[-2000:]
    for argv, message in [
        (["--replicas", "2", "--shard", "--sync", "every"], "sync: checkpoint 'deferred' vs now 'every'"),
        (["--replicas", "3", "--shard"], "written by 2 replicas: resume with --replicas 2"),
        (["--replicas", "2"], "written by a sharded run: resume with --shard"),
        (["--replicas", "2", "--shard", "--lr", "0.1"], "lr: checkpoint 0.003 vs now 0.1"),
    ]:
        result = run("train", *argv, "--out", out, "--dataset-size", "48", "--resume", "--no-progress")
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    missing = run("train", "--replicas", "2", "--shard", "--resume", "--dataset-size", "48")
    assert missing.returncode == 2 and "--resume needs --out" in missing.stderr


@pytest.mark.slow
def test_killing_the_torchrun_agent_stops_its_workers(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    agent = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                              "-m", "gastudy", "train", "--dataset-size", "20000", "--epochs", "50", "--no-progress"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        import psutil

        deadline = time.monotonic() + 120
        workers: list = []
        while time.monotonic() < deadline and len(workers) < 2:
            workers = [p for p in psutil.Process(agent.pid).children(recursive=True) if "gastudy" in " ".join(p.cmdline())]
            time.sleep(0.5)
        assert len(workers) >= 2, "the workers did not start"
        time.sleep(8)  # they have joined their group and are training
        agent.send_signal(signal.SIGKILL)
        agent.wait(10)
        gone, alive = psutil.wait_procs(workers, timeout=15)
        assert alive == [], f"orphans still training: {[p.pid for p in alive]}"
    finally:
        if agent.poll() is None:
            agent.kill()
        for p in psutil.Process().children(recursive=True):
            p.kill()

"""Nothing lost: --out checked before the run, a run folder reused only
when asked, locked while written, the record kept whole on resume, changed settings and damaged
checkpoints refused with one message, Ctrl-C stopping at a group boundary with a checkpoint."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from gastudy.cli.main import main
from gastudy.run.resume import CheckpointError, load_checkpoint
from gastudy.run.train import LOCK_FILE, TrainConfig, train

ROOT = Path(__file__).resolve().parent.parent
SMALL = dict(dataset_size=40, micro_batch=4, accumulation_steps=3, progress=False, epochs=2)
CLI = ["train", "--dataset-size", "24", "--micro-batch", "4", "--accumulation-steps", "2", "--no-progress"]


def run_cli(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_bad_out_is_refused_before_the_run_and_nothing_is_written(tmp_path, capsys):
    a_file = tmp_path / "taken.txt"
    a_file.write_text("keep me")
    for out in (a_file, a_file / "sub"):
        code, stdout, stderr = run_cli([*CLI, "--out", str(out)], capsys)
        assert code == 2 and "--out" in stderr and "Traceback" not in stderr, stderr
    assert a_file.read_text() == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == ["taken.txt"]


def test_a_run_folder_is_reused_only_when_asked(tmp_path, capsys):
    out = str(tmp_path / "run")
    assert run_cli([*CLI, "--out", out, "--json"], capsys)[0] == 0
    record = (tmp_path / "run" / "run_record.json").read_bytes()
    code, stdout, _ = run_cli([*CLI, "--out", out, "--json"], capsys)
    assert code == 2 and "already holds a run" in json.loads(stdout)["error"]
    assert (tmp_path / "run" / "run_record.json").read_bytes() == record  # untouched
    code, stdout, _ = run_cli([*CLI, "--out", out, "--json", "--resume"], capsys)  # it is finished
    assert code == 2 and "finished" in json.loads(stdout)["error"]
    assert run_cli([*CLI, "--out", out, "--json", "--overwrite", "--seed", "3"], capsys)[0] == 0
    assert json.loads((tmp_path / "run" / "run_record.json").read_text())["seed"] == 3
    assert not (tmp_path / "run" / LOCK_FILE).exists()


def test_a_folder_in_use_is_refused_and_a_stale_lock_is_taken_over(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / LOCK_FILE).write_text(str(os.getppid()))  # a live process holds it
    with pytest.raises(ValueError, match="in use by another run"):
        train(TrainConfig(**SMALL, out_dir=str(out)))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (out / LOCK_FILE).write_text(str(dead.pid))  # its process is gone
    assert train(TrainConfig(**SMALL, out_dir=str(out))).record.updates_attempted == 8
    assert not (out / LOCK_FILE).exists()


def test_a_resumed_record_keeps_the_short_groups_of_earlier_epochs(tmp_path):
    full = train(TrainConfig(**SMALL, out_dir=str(tmp_path / "full"))).record
    train(TrainConfig(**SMALL, out_dir=str(tmp_path / "part"), stop_after_updates=5, checkpoint_every=1))
    resumed = train(TrainConfig(**SMALL, out_dir=str(tmp_path / "part")), resume=True).record
    assert resumed.last_group == full.last_group and len(resumed.last_group["groups"]) == 2


def test_resume_refuses_a_changed_clip(tmp_path):
    train(TrainConfig(**SMALL, out_dir=str(tmp_path), stop_after_updates=2))
    with pytest.raises(ValueError, match="clip_grad_norm: checkpoint 1.0 vs now 0.5"):
        train(TrainConfig(**SMALL, clip_grad_norm=0.5, out_dir=str(tmp_path)), resume=True)


def test_damaged_checkpoints_give_one_clear_message(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli([*CLI, "--out", str(out), "--stop-after-updates", "1", "--checkpoint-every", "1"], capsys)[0] == 0
    path = out / "checkpoint.pt"
    good = path.read_bytes()
    state = torch.load(path, weights_only=True)
    name = next(iter(state["model"]))
    state["model"][name] = state["model"][name] + 1.0  # altered after saving
    torch.save(state, path)
    damaged = {"altered": path.read_bytes(), "truncated": good[: len(good) // 2], "empty": b"",
               "flipped": flip(good, len(good) // 2)}
    torch.save([1, 2], path)
    damaged["not a dict"] = path.read_bytes()
    missing = dict(torch.load(io_bytes(good), weights_only=True))
    del missing["optimizer"]
    torch.save(missing, path)
    damaged["missing key"] = path.read_bytes()
    wrong = dict(torch.load(io_bytes(good), weights_only=True))
    wrong["model"] = {k: torch.zeros(1) for k in wrong["model"]}
    wrong.pop("checksum")
    torch.save(wrong, path)
    damaged["wrong shape"] = path.read_bytes()
    for what, data in damaged.items():
        path.write_bytes(data)
        with pytest.raises(CheckpointError if what != "wrong shape" else ValueError, match="checkpoint"):  # noqa: PT012
            if what != "wrong shape":
                load_checkpoint(path)
            else:
                raise_from_resume(out)
        code, _, stderr = run_cli([*CLI, "--out", str(out), "--resume"], capsys)
        assert code == 2 and stderr.count("\n") == 1 and "Traceback" not in stderr, (what, stderr)
        assert "checkpoint" in stderr, (what, stderr)


def flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:]


def io_bytes(data: bytes):
    import io

    return io.BytesIO(data)


def raise_from_resume(out: Path) -> None:
    from gastudy.cli.main import build_parser
    from gastudy.cli.options import train_config

    args = build_parser().parse_args([*CLI, "--out", str(out)])
    train(train_config(args), resume=True)


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_ctrl_c_stops_at_a_group_boundary_with_a_checkpoint_and_a_partial_record(tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "gastudy", "train", "--dataset-size", "100000", "--no-progress",
                             "--checkpoint-every", "1", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 150
        while not (out / "checkpoint.pt").exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert (out / "checkpoint.pt").exists(), proc.communicate()[1][-2000:]
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr and "--resume" in stderr
    record = json.loads((out / "run_record.json").read_text())
    assert any("by SIGINT" in n for n in record["notes"])
    state = load_checkpoint(out / "checkpoint.pt")
    assert state["counters"]["updates_attempted"] == record["updates_attempted"] >= 1
    assert state["position"]["microbatch"] == record["microbatches"]  # exactly where it stopped
    assert not (out / LOCK_FILE).exists()


def test_the_record_states_what_was_processed_when_the_data_is_smaller_than_one_update():
    run = train(TrainConfig(dataset_size=10, micro_batch=4, accumulation_steps=1000, progress=False))
    r = run.record
    assert r.samples == 10 and r.effective_batch == 10 and r.updates_attempted == 1
    assert any("4000 samples were asked for, the largest update used 10" in n for n in r.notes)


@pytest.mark.parametrize("other, message", [
    ("checkpoint-replicas", "belongs to a different run: it was written with --replicas"),
    ("checkpoint-sharded", "an older gastudy .*written without a common commit"),
    ("checkpoint-rank0.pt", "an older gastudy .*its ranks may be one checkpoint apart"),
])
def test_resume_of_another_kind_of_run_says_it_is_a_different_run(tmp_path, other, message):
    train(TrainConfig(**SMALL, out_dir=str(tmp_path), stop_after_updates=2))
    (tmp_path / "checkpoint.pt").rename(tmp_path / other)  # as a --replicas 2 run (or an older one) leaves it
    before = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in tmp_path.iterdir())
    with pytest.raises(ValueError, match=message):
        train(TrainConfig(**SMALL, out_dir=str(tmp_path)), resume=True)
    assert sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in tmp_path.iterdir()) == before


def sealed_checkpoint(tmp_path: Path) -> Path:
    from gastudy import Accumulator
    from gastudy.course.models import build_model
    from gastudy.run.resume import save_checkpoint

    model = build_model("mlp", seed=0)
    engine = Accumulator(model, torch.optim.AdamW(model.parameters(), 1e-3), accumulation_steps=2,
                         task="classification")
    return save_checkpoint(tmp_path / "checkpoint.pt", engine, {"epoch": 0, "microbatch": 4, "group": 2}, {"seed": 0})


def test_any_flipped_byte_of_a_checkpoint_is_refused_the_zip_directory_and_trailer_included(tmp_path):
    from gastudy.run.resume import TRAILER_MAGIC, TRAILER_SIZE

    path = sealed_checkpoint(tmp_path)
    good = path.read_bytes()
    assert good[-TRAILER_SIZE:].startswith(TRAILER_MAGIC) and good.endswith(b"\n") and TRAILER_SIZE == 80
    assert torch.load(path, weights_only=True)["position"]["microbatch"] == 4  # torch's reader ignores the trailer
    assert load_checkpoint(path)["counters"]["updates_attempted"] == 0
    # the zip's central directory and end record sit just before the trailer; a flip there is
    # what torch's reader and the content checksum both let through
    positions = sorted({*range(len(good) - 100 - TRAILER_SIZE, len(good)), *range(0, len(good), len(good) // 23)})
    for at in positions:
        path.write_bytes(flip(good, at))
        with pytest.raises(CheckpointError, match=f"checkpoint {path}"):
            load_checkpoint(path)
    for cut in (1, TRAILER_SIZE, TRAILER_SIZE + 1):  # the end cut off, the trailer with it or not
        path.write_bytes(good[:-cut])
        with pytest.raises(CheckpointError, match="checkpoint"):
            load_checkpoint(path)
    path.write_bytes(good)
    assert load_checkpoint(path)["position"] == {"epoch": 0, "microbatch": 4, "group": 2}


def test_a_checkpoint_from_before_sealing_is_still_read(tmp_path):
    from gastudy.run.resume import SEALED_KEY, content_checksum

    path = sealed_checkpoint(tmp_path)
    state = torch.load(path, weights_only=True)
    del state[SEALED_KEY], state["checksum"]
    state["checksum"] = content_checksum(state)  # what the previous format wrote: no trailer
    torch.save(state, path)
    assert load_checkpoint(path)["position"]["group"] == 2
    state["counters"]["updates_attempted"] = 7  # altered after saving: the content checksum still tells
    torch.save(state, path)
    with pytest.raises(CheckpointError, match="does not match the checksum"):
        load_checkpoint(path)


def _resealed(path: Path, change) -> None:
    """Edit a checkpoint's contents and recompute both seals, as someone who edits it on purpose
    would: only the checks of the contents themselves can refuse it."""
    from gastudy.run.resume import SEALED_KEY, content_checksum, seal

    state = torch.load(path, weights_only=True)
    change(state)
    state.pop("checksum", None)
    state[SEALED_KEY] = True
    state["checksum"] = content_checksum(state)
    torch.save(state, path)
    seal(path)


@pytest.mark.parametrize("change, message", [
    (lambda s: s["position"].update(epoch=-1), "position"),
    (lambda s: s["position"].update(microbatch=10**12), "beyond"),
    (lambda s: s["position"].update(group="2"), "position"),
    (lambda s: s["counters"].update(updates_attempted="5"), "counters"),
    (lambda s: s["counters"].update(updates_applied=99), "more applied updates"),
    (lambda s: s.update(config={}), "configuration"),
    (lambda s: next(v for v in s["model"].values() if v.is_floating_point()).fill_(float("nan")), "NaN"),
])
def test_edited_contents_with_a_recomputed_seal_are_refused_before_anything_trains(tmp_path, change, message):
    train(TrainConfig(**SMALL, out_dir=str(tmp_path), stop_after_updates=2, checkpoint_every=1))
    path = tmp_path / "checkpoint.pt"
    _resealed(path, change)
    with pytest.raises(CheckpointError, match=message):
        train(TrainConfig(**SMALL, out_dir=str(tmp_path)), resume=True)


def test_an_update_that_raises_mid_run_leaves_ctrl_c_and_the_terminal_as_they_were(monkeypatch):
    """The progress bar and the SIGINT handler are contexts of one ExitStack in gastudy.run.train:
    an exception out of an update restores the caller's handler and closes the bar."""
    import signal

    from tqdm.auto import tqdm

    from gastudy.core.engine import Accumulator

    calls = {"n": 0}
    real = Accumulator.update

    def update(self, group):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("the device fell off the bus")
        return real(self, group)

    def mine(signum, frame):  # the caller's own handler
        pass

    previous = signal.signal(signal.SIGINT, mine)
    monkeypatch.setattr(Accumulator, "update", update)
    try:
        with pytest.raises(RuntimeError, match="fell off the bus"):
            train(TrainConfig(**{**SMALL, "progress": True}))
        assert signal.getsignal(signal.SIGINT) is mine
        assert not [bar for bar in list(tqdm._instances) if not bar.disable]  # the bar was closed
    finally:
        signal.signal(signal.SIGINT, previous)

"""A checkpoint of D processes is one atomic, sealed unit (gastudy.run.commit).

Kill a rank at each phase of a save — while writing its part, after hashing, after the manifest,
after the commit — and the run resumes bit-identically from the last committed checkpoint; alter
a committed checkpoint (a flipped byte in a shard, a pickle in DCP's metadata, swapped rank files,
a missing commit record) and the resume refuses it in one line, before anything is deserialized
and without running code from disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from pathlib import Path

import pytest
import torch

import gastudy.course.models  # noqa: F401  (registers tiny-gpt, also in the worker processes that import this file)
from gastudy.parallel.launch import WorkerError, run_local
from gastudy.run.commit import LATEST, MANIFEST, ROOT, latest_folder, read_metadata_safely

pytestmark = pytest.mark.slow

SETTINGS = {"micro_batch": 2, "accumulation_steps": 2, "dataset_size": 48, "progress": False, "epochs": 1}


def _train(folder: str, kind: str, resume: bool = False, **kw):
    from gastudy.parallel.fsdp import make_replicas
    from gastudy.run.train import TrainConfig, train

    config = TrainConfig(**SETTINGS, out_dir=folder, checkpoint_every=1, **kw)
    return train(config, resume=resume, replicas=make_replicas(kind == "sharded", "deferred", True, "fp32"))


def _weights(run) -> dict[str, torch.Tensor]:
    return {n: (p.full_tensor() if hasattr(p, "full_tensor") else p).detach().clone()
            for n, p in run.model.named_parameters()}


def whole_worker(folder: str, kind: str) -> dict:
    """The uninterrupted run: its final weights."""
    return {"weights": _weights(_train(folder, kind))}


def killed_worker(folder: str, kind: str, phase: str, victim: int) -> dict:
    """The same run, with rank ``victim`` killed (``os._exit``) at ``phase`` of its second save."""
    import torch.distributed as dist

    import gastudy.run.commit as commit

    saves, rank = {"n": 0}, dist.get_rank()
    real_save, real_digests, real_fsync = commit.save_replicated, commit._digests, commit._fsync

    def die(at: str) -> None:
        if saves["n"] == 2 and phase == at and rank == victim:
            os._exit(9)

    def save(out_dir, write_part, **kw):
        saves["n"] += 1

        def part(folder):
            write_part(folder)
            die("write")

        return real_save(out_dir, part, **kw)

    def digests(folder):
        found = real_digests(folder)
        die("digest")
        return found

    def fsync(path):
        real_fsync(path)
        if Path(path).name == MANIFEST:
            die("manifest")
        if Path(path).name == ROOT:  # the commit record was renamed into place
            die("commit")

    commit.save_replicated, commit._digests, commit._fsync = save, digests, fsync
    import gastudy.run.train as train_module

    train_module.save_replicated = save
    _train(folder, kind)
    return {"finished": True}


def resume_worker(folder: str, kind: str) -> dict:
    run = _train(folder, kind, resume=True)
    return {"weights": _weights(run), "updates": run.record.updates_attempted}


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = {}
    for kind in ("ddp", "sharded"):
        out[kind] = run_local(whole_worker, 2, str(tmp_path_factory.mktemp(f"whole-{kind}")), kind, timeout=120)[0]
    return out


@pytest.mark.parametrize("kind, phase, victim", [
    ("ddp", "write", 1), ("ddp", "digest", 1), ("ddp", "manifest", 0), ("ddp", "commit", 0),
    ("sharded", "write", 1), ("sharded", "manifest", 0),
])
def test_a_rank_killed_at_any_phase_of_a_save_resumes_bit_identically(tmp_path, whole, kind, phase, victim):
    with pytest.raises(WorkerError):
        run_local(killed_worker, 2, str(tmp_path), kind, phase, victim, timeout=120, pg_timeout=20)
    first = json.loads((tmp_path / ROOT / LATEST).read_text())["folder"]
    committed_updates = int(first.split("-")[0])
    assert committed_updates == (2 if phase == "commit" else 1)  # before the commit: still the first save's
    resumed = run_local(resume_worker, 2, str(tmp_path), kind, timeout=120)[0]
    expected = whole[kind]["weights"]
    assert resumed["weights"].keys() == expected.keys()
    assert all(torch.equal(resumed["weights"][n], expected[n]) for n in expected), f"{kind}/{phase}: weights differ"
    assert [p.name for p in (tmp_path / ROOT).iterdir() if p.is_dir()] == [latest_folder(tmp_path).name]


# --------------------------------------------------------------------------- altered checkpoints
def _recommit(out: Path) -> None:
    """Rewrite the manifest and the commit record for the files as they are now (what someone
    who edits a checkpoint on purpose would do): only checks beyond the seal can refuse it."""
    folder = latest_folder(out)
    manifest = json.loads((folder / MANIFEST).read_text())
    for rel in manifest["files"]:
        data = (folder / rel).read_bytes()
        manifest["files"][rel] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    text = json.dumps(manifest, sort_keys=True, indent=1)
    (folder / MANIFEST).write_text(text)
    (out / ROOT / LATEST).write_text(json.dumps({"folder": folder.name,
                                                 "manifest_sha256": hashlib.sha256(text.encode()).hexdigest()}))


class Marker:
    """A pickle payload that would create a file when unpickled."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


@pytest.fixture()
def sharded_run(tmp_path):
    run_local(whole_worker, 2, str(tmp_path), "sharded", timeout=120)
    return tmp_path


def _refused(out: Path, kind: str) -> str:
    with pytest.raises(WorkerError) as info:
        run_local(resume_worker, 2, str(out), kind, timeout=120, pg_timeout=20)
    message = str(info.value)
    assert "CheckpointError" in message, message
    return message


def test_a_flipped_byte_in_a_shard_is_refused(sharded_run):
    shard = next(latest_folder(sharded_run).glob("state/*.distcp"))
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    assert "does not match the SHA-256 in its manifest" in _refused(sharded_run, "sharded")


def test_a_pickle_in_the_metadata_never_runs_even_with_a_recomputed_seal(sharded_run, tmp_path_factory):
    marker = tmp_path_factory.mktemp("marker") / "ran"
    (latest_folder(sharded_run) / "state" / ".metadata").write_bytes(pickle.dumps(Marker(str(marker))))
    _recommit(sharded_run)
    message = _refused(sharded_run, "sharded")
    assert not marker.exists() and "cannot be read safely" in message
    with pytest.raises(pickle.UnpicklingError, match="never holds"):
        import io

        read_metadata_safely(io.BytesIO(pickle.dumps(Marker(str(marker)))))
    assert not marker.exists()


def test_swapped_rank_files_and_a_missing_commit_are_refused(tmp_path):
    run_local(whole_worker, 2, str(tmp_path), "ddp", timeout=120)
    folder = latest_folder(tmp_path)
    (folder / "rank0.pt").rename(folder / "tmp.pt")
    (folder / "rank1.pt").rename(folder / "rank0.pt")
    (folder / "tmp.pt").rename(folder / "rank1.pt")
    _recommit(tmp_path)
    assert "files swapped?" in _refused(tmp_path, "ddp")
    (tmp_path / ROOT / LATEST).unlink()
    assert "holds no committed checkpoint" in _refused(tmp_path, "ddp")

"""A checkpoint of D processes as one atomic, sealed unit (course: MB-7, MB-10).

One process writes one sealed file (:mod:`gastudy.run.resume`); D processes write D parts — D
full checkpoints for DDP replicas, or the shards of ``torch.distributed.checkpoint`` plus D small
files for sharded ones. They must become valid together or not at all, so a multi-process
checkpoint lives in ``<out>/checkpoint-replicas/``:

- ``<updates>-<token>/``: one folder per checkpoint, every part of every rank inside;
  ``MANIFEST.json`` in it lists every file with its SHA-256 and size, the number of replicas,
  the kind (``ddp`` / ``sharded``) and the updates done;
- ``LATEST``: the commit record, ``{"folder": …, "manifest_sha256": …}``. It is written last, by
  rank 0, after every rank has written and hashed its part and the manifest is on disk, with one
  ``rename`` — the commit. A folder it does not name was never committed.

So a kill of any rank at any instant of a save leaves ``LATEST`` naming the previous checkpoint,
whose folder is never written into; it is only removed after the next commit. Reading
(:func:`committed`) checks the commit record, the manifest and the SHA-256 of every file before
anything is deserialized, and ``torch.distributed.checkpoint``'s pickled metadata is read by an
unpickler that only builds its own record types (:class:`SafeReader`), its byte items with
``weights_only=True`` (:class:`SafeLoadPlanner`): nothing on disk runs code.

Every function here is a collective: call it on every rank.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import re
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from gastudy.run.resume import CheckpointError, file_sha256

ROOT = "checkpoint-replicas"
LATEST = "LATEST"
MANIFEST = "MANIFEST.json"
MANIFEST_VERSION = 1
_FOLDER = re.compile(r"^\d{10}-[0-9a-f]{8}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _broadcast(value: Any) -> Any:
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def _fsync(path: Path) -> None:
    """Flush a file (or a folder's entries) to disk; a no-op where the platform cannot."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _digests(folder: Path) -> dict[str, dict[str, Any]]:
    """``{relative path: {"sha256", "bytes"}}`` of every file under ``folder`` visible here."""
    out = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        size = path.stat().st_size
        out[path.relative_to(folder).as_posix()] = {"sha256": file_sha256(path, size), "bytes": size}
    return out


def save_replicated(out_dir: str | Path, write_part: Callable[[Path], None], *, kind: str, updates: int,
                    config: dict[str, Any]) -> Path:
    """Write one multi-process checkpoint and commit it (collective; see the module docstring).

    ``write_part(folder)`` writes this rank's part into ``folder`` (every rank gets the same
    folder; a sharded save is itself a collective inside it). ``kind``: ``"ddp"`` or
    ``"sharded"``; ``updates``: updates done (in the folder's name and the manifest).
    Returns the committed folder. Raises ``OSError`` (on every rank) when a part cannot be
    written, and ``CheckpointError`` when two ranks wrote the same file differently; the
    previous checkpoint stays committed in both cases.
    """
    rank, world = dist.get_rank(), dist.get_world_size()
    root = Path(out_dir) / ROOT
    name = _broadcast(f"{int(updates):010d}-{secrets.token_hex(4)}" if rank == 0 else None)
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)  # every rank: its own file system may be its own
    problem = None
    try:
        write_part(folder)
    except (OSError, RuntimeError) as err:
        problem = f"rank {rank} could not write its part of the checkpoint ({type(err).__name__}: {err})"
    problems = [None] * world
    dist.all_gather_object(problems, problem)
    if any(problems):
        raise OSError(f"{next(p for p in problems if p)}; the previous checkpoint is still the committed one: free "
                      "space or choose another --out, then resume")
    seen: list[Any] = [None] * world
    dist.all_gather_object(seen, _digests(folder))
    if rank == 0:
        files: dict[str, dict[str, Any]] = {}
        for part in seen:
            for rel, entry in part.items():
                if rel in files and files[rel] != entry:
                    raise CheckpointError(f"two ranks wrote {rel} differently: the checkpoint is not committed")
                files[rel] = entry
        manifest = {"version": MANIFEST_VERSION, "kind": kind, "replicas": world, "updates": int(updates),
                    "config": config, "files": files}
        text = json.dumps(manifest, sort_keys=True, indent=1)
        (folder / MANIFEST).write_text(text)
        _fsync(folder / MANIFEST)
        _fsync(folder)
        latest = root / LATEST
        tmp = root / f"{LATEST}.tmp"
        tmp.write_text(json.dumps({"folder": name, "manifest_sha256": hashlib.sha256(text.encode()).hexdigest()}))
        _fsync(tmp)
        tmp.replace(latest)  # the commit
        _fsync(root)
    dist.barrier()
    if int(os.environ.get("LOCAL_RANK", rank)) == 0:  # one rank per machine tidies its file system
        for old in root.iterdir():
            if old.is_dir() and old.name != name:
                shutil.rmtree(old, ignore_errors=True)
    return folder


def _read_commit(root: Path) -> tuple[Path, dict[str, Any]]:
    """On rank 0: the committed folder and its manifest, checked (raises ``CheckpointError``)."""
    hint = "train again in a new --out (or --overwrite), or restore the folder from a copy"
    latest = root / LATEST
    if not latest.is_file():
        if root.is_dir() and any(root.iterdir()):
            raise CheckpointError(f"{root} holds no committed checkpoint (no {LATEST}): a save was interrupted "
                                  f"before its commit and nothing earlier was committed; {hint}")
        raise FileNotFoundError(f"no multi-process checkpoint in {root.parent}; train with --out to write one")
    try:
        commit = json.loads(latest.read_text())
        name, digest = commit["folder"], commit["manifest_sha256"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CheckpointError(f"{latest} is not a commit record ({type(err).__name__}): {hint}") from None
    if not isinstance(name, str) or not _FOLDER.match(name) or not isinstance(digest, str) or not _HEX64.match(digest):
        raise CheckpointError(f"{latest} names {name!r}, not a checkpoint folder: {hint}")
    folder = root / name
    try:
        text = (folder / MANIFEST).read_text()
    except OSError as err:
        raise CheckpointError(f"the committed checkpoint {folder} has no readable {MANIFEST} ({err}): {hint}") from None
    if hashlib.sha256(text.encode()).hexdigest() != digest:
        raise CheckpointError(f"{folder / MANIFEST} does not match the SHA-256 its commit recorded: {hint}")
    try:
        manifest = json.loads(text)
    except ValueError:
        raise CheckpointError(f"{folder / MANIFEST} is not JSON: {hint}") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not (isinstance(manifest, dict) and manifest.get("version") == MANIFEST_VERSION
            and manifest.get("kind") in ("ddp", "sharded") and isinstance(manifest.get("replicas"), int)
            and isinstance(manifest.get("updates"), int) and manifest["updates"] >= 0 and isinstance(files, dict)
            and all(isinstance(k, str) and ".." not in Path(k).parts and not Path(k).is_absolute()
                    and isinstance(v, dict) and isinstance(v.get("sha256"), str) and _HEX64.match(v["sha256"])
                    and isinstance(v.get("bytes"), int) for k, v in files.items())):
        raise CheckpointError(f"{folder / MANIFEST} is not a gastudy manifest: {hint}")
    return folder, manifest


def latest_folder(out_dir: str | Path) -> Path:
    """The committed checkpoint folder of ``out_dir`` (its commit record and manifest checked;
    not the files — :func:`committed` does that). Not a collective: for reading a checkpoint
    outside a run. Raises ``FileNotFoundError`` / :class:`CheckpointError` as :func:`committed`."""
    return _read_commit(Path(out_dir) / ROOT)[0]


def committed(out_dir: str | Path, *, kind: str) -> tuple[Path, dict[str, Any]]:
    """The committed multi-process checkpoint of ``out_dir``, verified (collective).

    Rank 0 reads the commit record and the manifest and sends them to every rank; every rank
    then checks the SHA-256 and size of every manifest file it can see (a file this rank wrote
    must be there) before anything is deserialized. Returns ``(folder, manifest)`` on every rank.
    Raises, the same on every rank: ``FileNotFoundError`` when the run has no multi-process
    checkpoint, ``CheckpointError`` (one line) when it is uncommitted, altered, truncated, of
    another kind or for another number of replicas.
    """
    rank, world = dist.get_rank(), dist.get_world_size()
    root = Path(out_dir) / ROOT
    answer: Any = None
    if rank == 0:
        try:
            folder, manifest = _read_commit(root)
            answer = ("ok", folder.name, manifest)
        except (CheckpointError, FileNotFoundError) as err:
            answer = (type(err).__name__, str(err), None)
    answer = _broadcast(answer)
    if answer[0] != "ok":
        raise (FileNotFoundError if answer[0] == "FileNotFoundError" else CheckpointError)(answer[1])
    folder, manifest = root / answer[1], answer[2]
    problem = None
    if manifest["kind"] != kind:
        problem = (f"the checkpoint in {root.parent} was written by a {manifest['kind']} run, this one is {kind}: "
                   "resume with the settings that wrote it (see its run record)")
    elif manifest["replicas"] != world:
        problem = (f"the checkpoint was written by {manifest['replicas']} replicas, this run has {world}: resume with "
                   f"--replicas {manifest['replicas']}")
    else:
        mine = f"rank{rank}.pt"
        needed = {mine, "state/.metadata"} if kind == "sharded" else {mine}
        for rel, entry in sorted(manifest["files"].items()):
            path = folder / rel
            if not path.is_file():
                if rel in needed or kind == "sharded":  # DCP reads its shards from one shared folder
                    problem = f"rank {rank}: {path} is missing from the committed checkpoint"
                    break
                continue  # another machine's part of a DDP checkpoint
            size = path.stat().st_size
            if size != entry["bytes"] or file_sha256(path, size) != entry["sha256"]:
                problem = (f"rank {rank}: {path} does not match the SHA-256 in its manifest (damaged or changed "
                           "after saving)")
                break
        if problem is None and mine not in manifest["files"]:
            problem = f"rank {rank}: the committed checkpoint has no part for this rank ({mine})"
    problems: list[Any] = [None] * world
    dist.all_gather_object(problems, problem)
    if any(problems):
        raise CheckpointError(f"{next(p for p in problems if p)}: train again in a new --out (or --overwrite), or "
                              "restore the folder from a copy")
    return folder, manifest


# --------------------------------------------------------------------------- reading DCP without running code
class _MetadataUnpickler(pickle.Unpickler):
    """Builds only the record types ``torch.distributed.checkpoint`` writes into its metadata —
    classes *defined* in its metadata, filesystem and planner modules — and the plain and torch
    values inside them (sizes, dtypes, layouts, paths); anything else in the pickle is refused."""

    MODULES = ("torch.distributed.checkpoint.metadata", "torch.distributed.checkpoint.filesystem",
               "torch.distributed.checkpoint.planner")
    ALLOWED = {("collections", "OrderedDict"), ("torch", "Size"), ("torch.serialization", "_get_layout"),
               ("pathlib", "PosixPath"), ("pathlib", "WindowsPath"), ("pathlib", "PurePosixPath"),
               ("builtins", "set"), ("builtins", "frozenset")}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.ALLOWED:
            return super().find_class(module, name)
        if module in self.MODULES:
            found = super().find_class(module, name)
            if isinstance(found, type) and found.__module__ == module:
                return found
        if module == "torch" and isinstance(getattr(torch, name, None), torch.dtype):
            return getattr(torch, name)
        raise pickle.UnpicklingError(f"the checkpoint's metadata asks for {module}.{name}, which a "
                                     "torch.distributed.checkpoint metadata file never holds")


def read_metadata_safely(stream: io.BufferedIOBase) -> Any:
    """Unpickle a DCP ``.metadata`` stream with :class:`_MetadataUnpickler`."""
    return _MetadataUnpickler(stream).load()


def safe_reader(path: str | Path):
    """A ``FileSystemReader`` for ``path`` whose metadata is read by :func:`read_metadata_safely`."""
    from torch.distributed.checkpoint import FileSystemReader
    from torch.distributed.checkpoint.metadata import StorageMeta

    class SafeReader(FileSystemReader):
        def read_metadata(self, *args: Any, **kwargs: Any):
            with self.fs.create_stream(self._get_metadata_path(kwargs.get("rank")), "rb") as stream:
                try:
                    metadata = read_metadata_safely(stream)
                except (pickle.UnpicklingError, EOFError, AttributeError, TypeError, ValueError) as err:
                    raise CheckpointError(f"the sharded checkpoint's metadata in {path} cannot be read safely "
                                          f"({err})") from None
            if getattr(metadata, "storage_meta", None) is None:
                metadata.storage_meta = StorageMeta()
            metadata.storage_meta.load_id = self.load_id
            return metadata

    return SafeReader(str(path))


def safe_planner():
    """DCP's default load planner with byte items read by ``torch.load(weights_only=True)``."""
    from torch.distributed.checkpoint import DefaultLoadPlanner
    from torch.distributed.checkpoint._traverse import set_element

    class SafeLoadPlanner(DefaultLoadPlanner):
        def load_bytes(self, read_item, value: io.BytesIO) -> None:
            item = torch.load(value, weights_only=True)
            if self.flatten_state_dict:
                set_element(self.original_state_dict, self.mappings[read_item.dest_index.fqn], item)
            else:
                self.state_dict[read_item.dest_index.fqn] = item

    return SafeLoadPlanner()


__all__ = ["LATEST", "MANIFEST", "ROOT", "committed", "latest_folder", "read_metadata_safely", "safe_planner", "safe_reader",
           "save_replicated"]

"""The run record (MB-10): everything needed to interpret or repeat a run, as JSON and Markdown.

It gathers m, A, D (and tensor/pipeline sizes), supervised tokens, precision, normalization,
the last-group policy and the samples it affected, observed memory peaks, and attempted vs
applied updates — the facts the course asks a learner to write down before trusting a result.
"""

from __future__ import annotations

import json
import platform
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import torch

from gastudy.core.engine import Counters


@dataclass(kw_only=True)
class RunRecord(Counters):
    """What a run did, in explicit units.

    The progress counters (:class:`~gastudy.core.engine.Counters`: microbatches, backward
    passes, attempted and applied updates, scheduler steps, samples, supervised tokens) are
    totals over the run and every replica. ``per_replica`` lists, per rank, the samples and
    supervised tokens that replica processed (one entry for a single process).
    ``peak_memory_bytes`` maps a device name (``"cpu"`` = process peak RSS, ``"cuda:0"`` =
    allocator peak) to bytes. ``last_group`` is ``None`` when every group was full, else
    ``{"policy", "accumulation_steps", "groups": [{"epoch", "microbatches", "sample_ids"}, …]}``:
    the short groups and the samples they affected (kept or dropped).
    """

    model: str
    task: str
    micro_batch: int
    accumulation_steps: int
    replicas: int
    effective_batch: int
    precision: str
    normalization: str
    last_group_policy: str
    tensor_parallel: int = 1
    pipeline_parallel: int = 1
    last_group: dict[str, Any] | None = None
    per_replica: list[dict[str, int]] = field(default_factory=list)
    peak_memory_bytes: dict[str, int] = field(default_factory=dict)
    final_loss: float | None = None
    seconds: float | None = None
    seed: int | None = None
    device: str = "cpu"
    notes: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=lambda: {
        "torch": torch.__version__, "python": platform.python_version(), "platform": platform.platform()})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field: the run's settings, then its counters, then the rest."""
        d = asdict(self)
        counters = {f.name: d.pop(f.name) for f in fields(Counters)}
        keys = list(d)
        at = keys.index("pipeline_parallel") + 1
        return {**{k: d[k] for k in keys[:at]}, **counters, **{k: d[k] for k in keys[at:]}}

    def to_json(self) -> str:
        """The record as indented JSON."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=False)

    def to_markdown(self) -> str:
        """The record as a Markdown table (what the course shows and saves)."""
        d = self.to_dict()
        lg = d.pop("last_group")
        env = d.pop("environment")
        per = d.pop("per_replica")
        peaks = d.pop("peak_memory_bytes")
        notes = d.pop("notes")
        lines = ["# Run record", "", "| field | value |", "|---|---|"]
        lines += [f"| {k} | {v} |" for k, v in d.items()]
        lines += [f"| peak memory ({dev}) | {b:,} bytes ({b / 2**20:.1f} MiB) |" for dev, b in peaks.items()]
        if lg:
            for g in lg.get("groups", []):
                ids = g.get("sample_ids", [])
                lines.append(f"| short last group (epoch {g.get('epoch')}) | {lg.get('policy')}: {g.get('microbatches')} "
                             f"of {lg.get('accumulation_steps')} microbatches, {len(ids)} samples affected: {ids} |")
        else:
            lines.append("| last group | every group was full |")
        if per:
            lines += ["", "| replica | microbatches | samples | supervised tokens |", "|---|---|---|---|"]
            lines += [f"| {r.get('rank', i)} | {r.get('microbatches', '–')} | {r.get('samples')} | {r.get('supervised_tokens')} |"
                      for i, r in enumerate(per)]
        lines += ["", "Environment: " + ", ".join(f"{k} {v}" for k, v in env.items())]
        lines += [f"- {n}" for n in notes]
        return "\n".join(lines) + "\n"

    def save(self, directory: str | Path, stem: str = "run_record") -> tuple[Path, Path]:
        """Write ``<stem>.json`` and ``<stem>.md`` into ``directory`` (created); return both paths."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        js, md = directory / f"{stem}.json", directory / f"{stem}.md"
        js.write_text(self.to_json(), encoding="utf-8")
        md.write_text(self.to_markdown(), encoding="utf-8")
        return js, md

    @classmethod
    def load(cls, path: str | Path) -> RunRecord:
        """Read a record written by :meth:`save` (the ``.json`` file)."""
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))

"""What the replicas must agree on before a group runs (course: MB-4, MB-7).

- **Group sizes**: :class:`DistributedGroupStream` makes the replicas agree on every group's
  number of microbatches before it is processed; a short last group follows ``keep``/``drop``
  on all replicas together, and anything irreconcilable raises :class:`ReplicaMismatchError`
  on every rank (never a hang). A replica with no data left runs filler microbatches that
  carry no supervised item.
- **Sample ids**: :func:`check_sample_ids` compares the ids each replica processed; the same
  samples on every replica (no distributed sampler) give :class:`DuplicateSamplesError`.
"""

from __future__ import annotations

from collections import Counter as _Counter
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol

import torch

from gastudy.core.counting import TASKS
from gastudy.core.data import Batch
from gastudy.core.groups import (
    LAST_GROUP_POLICIES,
    Group,
    GroupStream,
    PartialGroupRecord,
    build_group,
    number_samples,
)


class Collectives(Protocol):
    """The collectives the agreement needs (:class:`~gastudy.parallel.ddp.DDPReplicas` has them)."""

    rank: int
    size: int

    def gather_ints(self, values: Sequence[int]) -> list[list[int]]: ...

    def gather_ids(self, ids: Sequence[int]) -> list[list[int]]: ...

    def gather(self, obj: Any) -> list[Any]: ...


class ReplicaMismatchError(RuntimeError):
    """The replicas cannot agree on a group (sizes, settings or data lengths). Raised on
    every rank at the same point, so no process is left waiting.

    """



class ReplicaLostError(RuntimeError):
    """Another replica did not take part in an agreement within the process-group timeout
    (it crashed, hangs, or runs a different loop). The original error is chained.

    """



class DuplicateSamplesError(RuntimeError):
    """The same sample ids were processed by more than one replica (no data sharding).

    """



@dataclass
class SampleIdReport:
    """Which sample ids more than one replica processed.

    ``per_replica`` is the number of ids each rank reported, ``duplicated`` maps every id
    seen on more than one replica to the ranks that processed it (a rank listed once per
    occurrence), ``extra`` the occurrences beyond the first of those ids: samples that
    added no new information.

    """

    per_replica: list[int]
    duplicated: dict[int, list[int]]
    distinct: int

    @property
    def ok(self) -> bool:
        """True when no id was processed by two replicas."""
        return not self.duplicated

    @property
    def extra(self) -> int:
        return sum(len(ranks) - 1 for ranks in self.duplicated.values())

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "per_replica": self.per_replica, "distinct": self.distinct,
                "duplicated_ids": len(self.duplicated), "extra_samples": self.extra,
                "examples": {str(k): v for k, v in list(sorted(self.duplicated.items()))[:5]}}

    def __str__(self) -> str:
        total = sum(self.per_replica)
        if self.ok:
            return f"sample ids: {total} processed by {len(self.per_replica)} replicas, all distinct"
        sid, ranks = min(self.duplicated.items())
        return (f"sample ids: {len(self.duplicated)} of {self.distinct} distinct ids were processed by more than "
                f"one replica ({self.extra} of {total} samples are repeats; e.g. id {sid} on ranks {ranks})")



def check_sample_ids(ids_per_rank: Sequence[Sequence[int]]) -> SampleIdReport:
    """Compare the sample ids each replica processed; flag ids seen on more than one.

    ``ids_per_rank[r]`` is rank r's list. Repeats *within* one replica are not flagged
    (a second epoch legitimately revisits samples); an id on two replicas is. Exact counts.

    """
    owners: dict[int, list[int]] = defaultdict(list)
    for rank, ids in enumerate(ids_per_rank):
        for sid, n in _Counter(int(i) for i in ids).items():
            owners[sid] += [rank] * n
    duplicated = {sid: ranks for sid, ranks in owners.items() if len(set(ranks)) > 1}
    return SampleIdReport([len(ids) for ids in ids_per_rank], duplicated, len(owners))



def duplicate_error(report: SampleIdReport) -> DuplicateSamplesError:
    """The error (with the numbers and the fix) for a report that found duplicates.

    """
    return DuplicateSamplesError(
        f"{report}. Every replica is reading the same data, so the effective batch holds repeats that add no "
        "information while counting as new samples. Shard the data per replica: "
        "MicrobatchStream(..., replicas=D, rank=rank) or a DistributedSampler.")



@dataclass
class ReplicaGroup(Group):
    """A :class:`Group` whose counts every replica agreed on before its first backward.

    Extra attributes (one entry per rank): ``replica_items`` (supervised items),
    ``replica_samples``, ``replica_microbatches`` (real microbatches). ``fillers`` is the
    number of filler microbatches appended on this replica (only in a ``keep`` last group
    that is shorter on this replica than on another): they carry no supervised item and no
    sample, and exist so that every replica runs the same number of backward passes.

    """

    replica_items: list[int] = field(default_factory=list)
    replica_samples: list[int] = field(default_factory=list)
    replica_microbatches: list[int] = field(default_factory=list)
    fillers: int = 0


def filler_microbatch(batch: Batch, ignore_index: int = -100) -> Batch:
    """A copy of ``batch`` that contributes nothing: every label ignored, no sample id.

    Its forward and backward run (so the replica takes part in the gradient all-reduce),
    its loss sum and gradient are exactly zero with the engine's summed loss.

    """
    out = dict(batch)
    for key in ("labels", "shift_labels"):
        if key in out:
            out[key] = torch.full_like(out[key], ignore_index)
    out["sample_ids"] = torch.zeros(0, dtype=torch.long)
    return out



@dataclass
class ReplicaPartialRecord(PartialGroupRecord):
    """A short last group seen by every replica: ``microbatches`` is this replica's real
    count, ``replica_microbatches`` every rank's, ``sample_ids`` the affected samples of
    *all* replicas (rank order), so rank 0's record covers the whole group.

    """

    replica_microbatches: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {**super().to_dict(), "replica_microbatches": self.replica_microbatches}



ROW = ("index", "accumulation_steps", "policy", "task", "microbatches", "has_more", "items", "samples", "seen")



def agree_on_group(rows: Sequence[Sequence[int]]) -> str:
    """Decide a group from every rank's row (see ``ROW``): ``full``, ``partial`` or ``end``.

    Deterministic, so every rank reaches the same decision from the same rows. Raises
    :class:`ReplicaMismatchError` when the replicas use different settings (A, policy,
    task, group index) or when one replica's data ends while another still has more than
    this group: that is not a short last group but streams of different lengths.

    """
    cols = {name: [int(r[i]) for r in rows] for i, name in enumerate(ROW)}
    for name, what in (("accumulation_steps", "accumulation steps (A)"), ("index", "group index"),
                       ("policy", "last-group policy (0=keep, 1=drop)"), ("task", "task")):
        if len(set(cols[name])) > 1:
            raise ReplicaMismatchError(f"replicas disagree on the {what}: {cols[name]} (one entry per rank); "
                                       "every replica must run the same configuration")
    A, ns, more = cols["accumulation_steps"][0], cols["microbatches"], cols["has_more"]
    if all(n == A for n in ns):
        return "full"
    if not any(ns):
        return "end"
    short = [r for r, n in enumerate(ns) if n < A]
    longer = [r for r, m in enumerate(more) if m]
    if longer:
        raise ReplicaMismatchError(
            f"group {cols['index'][0]}: replica(s) {short} ran out of data ({[ns[r] for r in short]} of {A} "
            f"microbatches) while replica(s) {longer} still have more: the replicas' streams differ in length by "
            "more than one short last group. Give every replica the same number of samples (±1 per microbatch), "
            "e.g. MicrobatchStream(..., replicas=D, rank=rank) on the same data set.")
    return "partial"



@dataclass
class DistributedGroupStream(GroupStream):
    """A :class:`GroupStream` whose replicas agree on every group before it runs.

    Before yielding a group, each replica reports (one small all-gather) its A, policy,
    task, group index, how many microbatches it has for this group, whether more follow,
    and its supervised items and samples. Then, identically on every rank:

    - all full: the group runs; its counts ride along (:class:`ReplicaGroup`), so the
      engine's denominator needs no further communication;
    - some replicas short (the last group): ``drop`` skips it on every replica; ``keep``
      runs it on every replica with its true global denominator, shorter replicas padding
      with :func:`filler_microbatch` so every replica runs the same number of backward
      passes (the same number of all-reduces, with or without ``no_sync``);
    - anything else raises :class:`ReplicaMismatchError` on every rank.

    :attr:`partial` records the short last group (:class:`ReplicaPartialRecord`: policy, this
    replica's real microbatches, every replica's sizes and the sample ids of all replicas);
    :attr:`replica_microbatches` the real sizes of that group on every rank. Batches without
    ``sample_ids`` are numbered by stream position interleaved over the replicas (position p on
    rank r gets ``p × D + r``), so assigned ids never collide across replicas;
    :attr:`ids_assigned` says it happened.

    """

    replicas: Collectives | None = None
    replica_microbatches: list[int] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.replicas is None:
            raise ValueError("DistributedGroupStream needs replicas=DDPReplicas(...)")

    def __iter__(self) -> Iterator[Group]:
        A = self.accumulation_steps
        numbered = number_samples(self.microbatches, first=self.replicas.rank, step=self.replicas.size)

        def it_next():
            item = next(numbered, None)
            if item is None:
                return None
            self.ids_assigned |= item[1]
            return item[0]

        ahead, template, index = it_next(), None, self.start_index
        policy, task = LAST_GROUP_POLICIES.index(self.last_group), TASKS.index(self.task)
        while True:
            pending: list[Batch] = []
            while ahead is not None and len(pending) < A:
                pending.append(ahead)
                ahead = it_next()
            local = build_group(index, pending, A, self.task, self.ignore_index, self.ids_assigned)
            template = pending[-1] if pending else template
            rows = self.replicas.gather_ints([index, A, policy, task, len(pending), int(ahead is not None),
                                              local.supervised_items, local.samples, int(template is not None)])
            decision = agree_on_group(rows)
            if decision == "end":
                return
            sizes = [r[ROW.index("microbatches")] for r in rows]
            fillers = max(sizes) - len(pending)
            if decision == "partial":
                every = [i for ids in self.replicas.gather_ids(local.sample_ids) for i in ids]
                self.partial = ReplicaPartialRecord(self.last_group, len(pending), A, every, sizes)
                self.replica_microbatches = sizes
                if self.last_group == "drop":
                    return
                seen = [r[ROW.index("seen")] for r in rows]
                if not all(seen):  # a replica without any microbatch (e.g. resumed at its end) borrows one
                    donor = seen.index(1)
                    offered = self.replicas.gather(template if self.replicas.rank == donor else None)
                    template = template if template is not None else offered[donor]
                local = build_group(index, pending + [filler_microbatch(template, self.ignore_index)] * fillers,
                                    A, self.task, self.ignore_index, self.ids_assigned)
            yield ReplicaGroup(**{f.name: getattr(local, f.name) for f in fields(Group)},
                               replica_items=[r[ROW.index("items")] for r in rows],
                               replica_samples=[r[ROW.index("samples")] for r in rows],
                               replica_microbatches=sizes, fillers=fillers)
            if decision == "partial":
                return
            index += 1


"""Chapter 06 — data parallelism with accumulation, on real processes (course section MB-7).

The labs of ``notebooks/06_data_parallel.ipynb``. Each runs its measurement on D local Python
processes in one ``torch.distributed`` process group (gloo over the loopback interface): a warm
pool started once per kernel (:func:`gastudy.course.demos.ddp.warm_pool`), so a change answers in
about a second instead of starting new processes every time:

- :class:`DenominatorLab`: one update with the global denominator and with the naive per-replica
  mean, both against the single-process big batch (:func:`gastudy.course.demos.ddp.compare_denominators`).
- :class:`AllReduceLab`: gradient all-reduce calls and bytes per update with and without
  ``no_sync`` (:func:`gastudy.course.demos.ddp.count_allreduces_worker`, counted by a DDP comm hook);
  :func:`bytes_per_sample` measures the bytes per sample at several A in one run.
- :class:`DuplicatesLab`: the same samples on every replica, detected from the sample ids and
  refused (:func:`gastudy.course.demos.ddp.duplicate_samples_demo`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gastudy.course.checks import library_says
from gastudy.course.i18n import t
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots

REPLICA_CHOICES = (2, 3)
"""The values of D the chapter's labs offer; one warm pool is kept at a time
(:data:`gastudy.course.demos.ddp.MAX_POOLS`), so a change of D starts the new one."""


def start_pools(lab: Lab, replicas: int) -> None:
    """Make the warm pool of ``replicas`` processes ready before ``lab`` measures (course: MB-7).

    The first time a value of D is used in a session its D processes start (``import torch``
    and the rendezvous: several seconds on two cores): the lab's busy row then says so and its
    bar advances as each process joins.
    """
    from gastudy.course.demos.ddp import start_pool

    def progress(fraction: float) -> None:
        lab.report_progress(0.5 * fraction, t("starting {D} worker processes (once per session)", D=replicas))

    start_pool(replicas, progress)
    lab.report_progress(0.5, t("running the update on {D} processes", D=replicas))


class DenominatorLab(Lab):
    """Global denominator vs naive local mean vs the single-process big batch, on D processes (MB-7)."""

    def __init__(self, replicas: int = 2, micro_batch: int = 2, accumulation_steps: int = 4):
        self.title = t("MB-7 · D real processes: which loss scaling gives the single-process big-batch gradient?")
        super().__init__(replicas=int_slider(replicas, min(REPLICA_CHOICES), max(REPLICA_CHOICES), t("D (processes)")),
                         micro_batch=int_slider(micro_batch, 1, 4, "m"),
                         accumulation_steps=int_slider(accumulation_steps, 1, 6, "A"))

    def compute(self, replicas: int, micro_batch: int, accumulation_steps: int) -> dict[str, Any]:
        from gastudy.course.demos.ddp import compare_denominators

        start_pools(self, replicas)
        return compare_denominators(replicas, micro_batch, accumulation_steps)

    def render(self, result: dict[str, Any]) -> None:
        fig, ax = subplots(figsize=(6.5, 3.0))
        gaps = {t("global denominator"): result["global"]["max_rel_diff"],
                t("naive local mean"): result["naive"]["max_rel_diff"]}
        ax.bar(list(gaps), [max(g, 1e-18) for g in gaps.values()], color=["C2", "C3"])
        ax.set_yscale("log")
        ax.set_ylabel(t("relative gap to the big batch"))
        ax.set_title(t("m={m} × A={A} × D={D} processes = {n} samples (float64)", m=result["micro_batch"],
                       A=result["accumulation_steps"], D=result["replicas"], n=result["effective_batch"]))
        show_figure(fig)
        show_table([{"replica": r, "items": items, "total": sum(items)}
                    for r, items in enumerate(result["items_per_microbatch"])],
                   headers={"replica": t("replica"), "items": t("supervised items per microbatch"),
                            "total": t("total")})
        say(t("global denominator: {n} items on every replica; naive: each replica divides by its own count ({counts})",
                n=result["global"]["denominator"], counts=", ".join(map(str, result["items_per_replica"]))))


@dataclass
class AllReduceCounts:
    """All-reduce calls and bytes per update, ``with_no_sync`` and ``without``, at one A and D (MB-7).

    Each is rank 0's row of :func:`gastudy.course.demos.ddp.count_allreduces_worker`
    (``calls_per_update``, ``bytes_per_update``, ``seconds_per_update``, ``gradient_bytes``).
    """

    replicas: int
    accumulation_steps: int
    with_no_sync: dict[str, Any]
    without: dict[str, Any]


def count_with_and_without(replicas: int = 2, accumulation_steps: int = 4, updates: int = 3) -> AllReduceCounts:
    """One launch of D processes measuring both settings, ``no_sync`` on and off (course: MB-7)."""
    from gastudy.course.demos.ddp import count_allreduces_worker, run_on_replicas

    ranks = run_on_replicas(count_allreduces_worker, replicas, [(accumulation_steps, True), (accumulation_steps, False)],
                            updates=updates)
    on, off = ranks[0]
    return AllReduceCounts(replicas, accumulation_steps, on, off)


def bytes_per_sample(replicas: int = 2, steps: tuple[int, ...] = (1, 2, 4, 8), updates: int = 1) -> list[dict[str, Any]]:
    """Gradient bytes handed to all-reduce per update and per sample, measured at several A, with
    and without ``no_sync``, in one run on the warm pool of D processes (course: MB-7).

    One row per ``(A, no_sync)``: rank 0's :func:`~gastudy.course.demos.ddp.count_allreduces_worker`
    row (``bytes_per_update``, ``gradient_bytes`` G, ``micro_batch`` m …) plus ``bytes_per_sample``
    = bytes per update ÷ (m·A). §2 derives G/(m·A) with ``no_sync`` and G/m without; these are
    the measurements that test it at values of A the lab did not set.
    """
    from gastudy.course.demos.ddp import count_allreduces_worker, run_on_replicas

    settings = [(A, no_sync) for A in steps for no_sync in (True, False)]
    rows = run_on_replicas(count_allreduces_worker, replicas, settings, updates=updates)[0]
    return [{**row, "bytes_per_sample": row["bytes_per_update"] / (row["micro_batch"] * row["accumulation_steps"])}
            for row in rows]


class AllReduceLab(Lab):
    """Gradient all-reduces per update with and without ``no_sync``, counted on D processes (MB-7)."""

    def __init__(self, accumulation_steps: int = 4, replicas: int = 2):
        self.title = t("MB-7 · no_sync: communicate once per update instead of once per microbatch")
        super().__init__(accumulation_steps=int_slider(accumulation_steps, 1, 8, "A"),
                         replicas=int_slider(replicas, min(REPLICA_CHOICES), max(REPLICA_CHOICES), t("D (processes)")))

    def compute(self, accumulation_steps: int, replicas: int) -> AllReduceCounts:
        start_pools(self, replicas)
        return count_with_and_without(replicas, accumulation_steps)

    def render(self, result: AllReduceCounts) -> None:
        rows = {t("no_sync on"): result.with_no_sync, t("no_sync off"): result.without}
        fig, (left, right) = subplots(1, 2, figsize=(9, 3.0))
        left.bar(list(rows), [r["calls_per_update"] for r in rows.values()], color=["C2", "C3"])
        left.set_ylabel(t("all-reduce calls per update"))
        right.bar(list(rows), [r["bytes_per_update"] / 1024 for r in rows.values()], color=["C2", "C3"])
        right.set_ylabel(t("KiB sent per update (per replica)"))
        show_figure(fig)
        show_table([{"setting": name, "calls": r["calls_per_update"], "KiB": r["bytes_per_update"] / 1024,
                     "gradient KiB": r["gradient_bytes"] / 1024, "ms": r["seconds_per_update"] * 1000}
                    for name, r in rows.items()],
                   headers={"setting": t("setting"), "calls": t("calls / update"), "KiB": t("KiB / update"),
                            "gradient KiB": t("gradient KiB"), "ms": t("ms / update")})


class DuplicatesLab(Lab):
    """Every replica reading the same samples: detected from the ids, and refused (MB-7)."""

    def __init__(self, micro_batch: int = 2, accumulation_steps: int = 4):
        self.title = t("MB-7 · Check the sample ids each replica processed")
        super().__init__(micro_batch=int_slider(micro_batch, 1, 4, "m"),
                         accumulation_steps=int_slider(accumulation_steps, 1, 4, "A"))

    def compute(self, micro_batch: int, accumulation_steps: int) -> dict[str, Any]:
        from gastudy.course.demos.ddp import duplicate_samples_demo

        start_pools(self, 2)
        return duplicate_samples_demo(2, micro_batch, accumulation_steps)

    def render(self, result: dict[str, Any]) -> None:
        names = {"sharded": t("sharded"), "unsharded": t("unsharded")}
        rows = []
        for name, run in result.items():
            for rank, ids in enumerate(run["ids_per_rank"]):
                rows.append({"data": names.get(name, name), "replica": rank, "ids": ids,
                             "applied": t("yes") if run["updates_applied"][rank] else t("no")})
        show_table(rows, headers={"data": t("data"), "replica": t("replica"), "ids": t("sample ids of the first update"),
                                  "applied": t("update applied")})
        for name, run in result.items():
            report = run["report"]
            say("\n" + t("{data}: {distinct} distinct ids over {total} samples, {duplicated} on more than one replica",
                            data=names.get(name, name), distinct=report["distinct"], total=sum(report["per_replica"]),
                            duplicated=report["duplicated_ids"]))
            if run["refused"]:
                say(t("refused with DuplicateSamplesError:"))
                library_says(run["refused"])

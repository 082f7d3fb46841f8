"""Chapter 06 — data parallelism with accumulation, on real processes (course section MB-7).

The labs of ``notebooks/06_data_parallel.ipynb``. Each runs its measurement on D local Python
processes in one ``torch.distributed`` process group (gloo over the loopback interface): a warm
pool started once per kernel (:func:`gastudy.course.demos.ddp.warm_pool`), so a change answers in
about a second instead of starting new processes every time:

- :class:`DenominatorLab`: one update with the global denominator and with the naive per-replica
  mean, both against the single-process big batch (:func:`gastudy.course.demos.ddp.compare_denominators`).
- :class:`AllReduceLab`: gradient all-reduce calls and bytes per update with and without
  ``no_sync`` (:func:`gastudy.course.demos.ddp.count_allreduces_worker`, counted by a DDP comm hook).
- :class:`DuplicatesLab`: the same samples on every replica, detected from the sample ids and
  refused (:func:`gastudy.course.demos.ddp.duplicate_samples_demo`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gastudy.course.widgets import Lab, show_figure, show_table, subplots


class DenominatorLab(Lab):
    """Global denominator vs naive local mean vs the single-process big batch, on D processes (MB-7)."""

    title = "MB-7 · D real processes: which loss scaling gives the single-process big-batch gradient?"

    def __init__(self, replicas: int = 2, micro_batch: int = 2, accumulation_steps: int = 4):
        import ipywidgets as w

        super().__init__(replicas=w.IntSlider(value=replicas, min=2, max=3, description="D (processes)"),
                         micro_batch=w.IntSlider(value=micro_batch, min=1, max=4, description="m"),
                         accumulation_steps=w.IntSlider(value=accumulation_steps, min=1, max=6, description="A"))

    def compute(self, replicas: int, micro_batch: int, accumulation_steps: int) -> dict[str, Any]:
        from gastudy.course.demos.ddp import compare_denominators

        return compare_denominators(replicas, micro_batch, accumulation_steps)

    def render(self, result: dict[str, Any]) -> None:
        fig, ax = subplots(figsize=(6.5, 3.0))
        gaps = {"global denominator": result["global"]["max_rel_diff"],
                "naive local mean": result["naive"]["max_rel_diff"]}
        ax.bar(list(gaps), [max(g, 1e-18) for g in gaps.values()], color=["C2", "C3"])
        ax.set_yscale("log")
        ax.set_ylabel("relative gap to the big batch")
        ax.set_title(f"D={result['replicas']} processes × m={result['micro_batch']} × A={result['accumulation_steps']}"
                     f" = {result['effective_batch']} samples (float64)")
        show_figure(fig)
        show_table([{"replica": r, "supervised items per microbatch": items, "total": sum(items)}
                    for r, items in enumerate(result["items_per_microbatch"])])
        print(f"global denominator: {result['global']['denominator']} items on every replica; naive: each replica "
              f"divides by its own count ({', '.join(map(str, result['items_per_replica']))})")


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


class AllReduceLab(Lab):
    """Gradient all-reduces per update with and without ``no_sync``, counted on D processes (MB-7)."""

    title = "MB-7 · no_sync: communicate once per update instead of once per microbatch"

    def __init__(self, accumulation_steps: int = 4, replicas: int = 2):
        import ipywidgets as w

        super().__init__(accumulation_steps=w.IntSlider(value=accumulation_steps, min=1, max=8, description="A"),
                         replicas=w.IntSlider(value=replicas, min=2, max=3, description="D (processes)"))

    def compute(self, accumulation_steps: int, replicas: int) -> AllReduceCounts:
        return count_with_and_without(replicas, accumulation_steps)

    def render(self, result: AllReduceCounts) -> None:
        rows = {"no_sync on": result.with_no_sync, "no_sync off": result.without}
        fig, (left, right) = subplots(1, 2, figsize=(9, 3.0))
        left.bar(list(rows), [r["calls_per_update"] for r in rows.values()], color=["C2", "C3"])
        left.set_ylabel("all-reduce calls per update")
        right.bar(list(rows), [r["bytes_per_update"] / 1024 for r in rows.values()], color=["C2", "C3"])
        right.set_ylabel("KiB sent per update (per replica)")
        show_figure(fig)
        show_table([{"setting": name, "calls / update": r["calls_per_update"],
                     "KiB / update": r["bytes_per_update"] / 1024, "gradient KiB": r["gradient_bytes"] / 1024,
                     "ms / update": r["seconds_per_update"] * 1000} for name, r in rows.items()])


class DuplicatesLab(Lab):
    """Every replica reading the same samples: detected from the ids, and refused (MB-7)."""

    title = "MB-7 · Check the sample ids each replica processed"

    def __init__(self, micro_batch: int = 2, accumulation_steps: int = 4):
        import ipywidgets as w

        super().__init__(micro_batch=w.IntSlider(value=micro_batch, min=1, max=4, description="m"),
                         accumulation_steps=w.IntSlider(value=accumulation_steps, min=1, max=4, description="A"))

    def compute(self, micro_batch: int, accumulation_steps: int) -> dict[str, Any]:
        from gastudy.course.demos.ddp import duplicate_samples_demo

        return duplicate_samples_demo(2, micro_batch, accumulation_steps)

    def render(self, result: dict[str, Any]) -> None:
        rows = []
        for name, run in result.items():
            for rank, ids in enumerate(run["ids_per_rank"]):
                rows.append({"data": name, "replica": rank, "sample ids of the first update": ids,
                             "update applied": bool(run["updates_applied"][rank])})
        show_table(rows)
        for name, run in result.items():
            report = run["report"]
            print(f"\n{name}: {report['distinct']} distinct ids over {sum(report['per_replica'])} samples, "
                  f"{report['duplicated_ids']} on more than one replica")
            if run["refused"]:
                print(f"refused: {run['refused']}")

"""Chapter 06, sharded data parallel (FSDP2): when to synchronize the gradients (course: MB-7).

The lab and checks of the chapter's section "Sharded data parallel (FSDP2): when to sync". Every
measurement runs on the course's warm pool of 2 local processes (gloo,
:func:`gastudy.course.demos.ddp.warm_pool`), started once per kernel, so a change answers in a
few seconds:

- :class:`ShardedLab`: A and FSDP2's sync policy → reduce-scatters and all-gathers per update,
  the peak gradient bytes one replica holds and the seconds per update, with DDP (``no_sync``)
  at the same A beside it (:func:`gastudy.course.demos.fsdp.measure_sharded`).
- :func:`sharded_update_gap`: one sharded update against the single-process big batch
  (:func:`gastudy.check.replicas.verify_replicas_worker` on the warm pool), for the check cells.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from gastudy.course.i18n import t
from gastudy.course.mistakes import PerReplicaMean
from gastudy.course.widgets import Lab, say, show_figure, show_table, subplots

ACCUMULATION_CHOICES = (1, 2, 4, 8)
"""The values of A the lab offers."""

POLICIES = ("deferred", "every")
"""FSDP2 sync policies (:data:`gastudy.parallel.fsdp.SYNC_POLICIES`, in the lab's order)."""

REPLICAS = 2
"""Processes in the lab's warm pool (D)."""

TIMEOUT_S = 120.0
"""Bound on one measurement on the pool (seconds); a stuck pool is stopped and the next starts fresh."""

LIMITS = {"accumulation_steps": 64, "micro_batch": 32, "replicas": 8}
"""The largest m, A and D :func:`sharded_update_gap` runs: a check on a 2-core machine answers in
seconds within them, while a typo such as A = 10**6 would hold the warm pool until its timeout."""


def _whole(name: str, value: object) -> int:
    """``value`` as an int from 1 to ``LIMITS[name]``, else ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= LIMITS[name]:
        raise ValueError(f"{name} must be a whole number from 1 to {LIMITS[name]}, got {value!r}")
    return int(value)


def sharded_update_gap(accumulation_steps: int = 4, sync: str = "deferred", replicas: int = REPLICAS,
                       micro_batch: int = 2, timeout: float = TIMEOUT_S) -> dict[str, Any]:
    """One FSDP2 update (fp32) against the single-process big batch, on the warm pool (course: MB-7).

    Each of ``replicas`` processes runs one accumulated update of m×A variable-length samples
    (different token counts per replica) with sync policy ``sync``; rank 0 makes the sharded
    gradient whole and compares it with the gradient of one forward over all m×A×D samples in
    one process. Returns ``{"sync", "accumulation_steps", "replicas", "passed" (every check of
    the verifier held), "max_rel_diff" (relative gap to the big batch), "tolerance" (fp32's),
    "naive_rel_diff" (the naive per-replica mean's gap), "reduce_scatters" (in the update),
    "peak_gradient_bytes" (rank 0's)}``.

    Raises ``ValueError`` (before any process runs) for an unknown sync policy, for m, A or D that
    is not a whole number from 1 to its :data:`LIMITS` entry, and for a ``timeout`` that is not a
    finite number of seconds from 1 to 3600; :class:`~gastudy.parallel.launch.WorkerError` when a
    rank fails.
    """
    from gastudy.check.replicas import check_replica_settings, verify_replicas_worker
    from gastudy.course.demos.ddp import run_on_replicas

    accumulation_steps = _whole("accumulation_steps", accumulation_steps)
    micro_batch, replicas = _whole("micro_batch", micro_batch), _whole("replicas", replicas)
    if (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not math.isfinite(timeout)
            or not 1 <= timeout <= 3600):
        raise ValueError(f"timeout must be a finite number of seconds from 1 to 3600, got {timeout!r}")
    check_replica_settings(replicas, micro_batch, accumulation_steps, "fp32", "tokens", shard=True, sync=sync)
    r = run_on_replicas(verify_replicas_worker, replicas, micro_batch=micro_batch,
                        accumulation_steps=accumulation_steps, precision="fp32", shard=True, sync=sync,
                        naive=PerReplicaMean(), timeout=timeout)[0]
    report = r["report"]
    return {"sync": sync, "accumulation_steps": accumulation_steps, "replicas": replicas, "passed": report.passed,
            "max_rel_diff": report.max_rel_diff, "tolerance": report.tolerance,
            "naive_rel_diff": r["naive"]["max_rel_diff"], "reduce_scatters": r["collectives"].get("reduce_scatter", 0),
            "peak_gradient_bytes": r["peak_gradient_bytes"]}


def _count(mean: float) -> float | int:
    """A per-update mean as a whole number when it is one (every update made the same calls)."""
    return int(mean) if float(mean).is_integer() else mean


def sharded_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The lab's table: one row for DDP and one for the FSDP2 policy of a
    :func:`~gastudy.course.demos.fsdp.measure_sharded` result (course: MB-7).

    Columns: the setting, gradient reductions per update (DDP all-reduces, FSDP2
    reduce-scatters), all-gathers per update, the peak gradient KiB one replica held during a
    group (1 KiB = 1024 bytes), that peak as a fraction of the whole (unsharded) fp32 gradient,
    and milliseconds per update (mean over the measured updates; noisy on a shared machine).
    """
    ddp, fsdp = result["ddp"], result["fsdp"]
    full = fsdp["unsharded_gradient_bytes"]
    names = {"ddp": t("DDP, no_sync"), "deferred": t("FSDP2, sync deferred"), "every": t("FSDP2, sync every")}
    return [{"setting": names[row["backend"]], "reductions": _count(row["reductions_per_update"]),
             "all_gathers": _count(row["all_gathers_per_update"]), "gradient_kib": row["peak_gradient_bytes"] / 1024,
             "fraction": row["peak_gradient_bytes"] / full, "ms": row["seconds_per_update"] * 1000}
            for row in (ddp, fsdp)]


class ShardedLab(Lab):
    """A and FSDP2's sync policy → communication, gradient memory and time per update, with DDP
    beside it, measured on the warm pool of 2 processes (course: MB-7)."""

    def __init__(self, accumulation_steps: int = 4, sync: str = "deferred"):
        import ipywidgets as w

        if (isinstance(accumulation_steps, bool) or not isinstance(accumulation_steps, numbers.Integral)
                or accumulation_steps not in ACCUMULATION_CHOICES):  # True == 1 and 4.0 == 4: refused too
            raise ValueError(f"accumulation_steps must be one of {ACCUMULATION_CHOICES}, got {accumulation_steps!r}")
        accumulation_steps = int(accumulation_steps)
        if not isinstance(sync, str) or sync not in POLICIES:
            raise ValueError(f"unknown sync policy {sync!r}; use 'deferred' or 'every'")
        self.title = t("MB-7 · Sharded data parallel (FSDP2): synchronize once per update or every microbatch?")
        super().__init__(
            accumulation_steps=w.ToggleButtons(options=list(ACCUMULATION_CHOICES), value=accumulation_steps,
                                               description="A", style={"button_width": "3em"}),
            sync=w.ToggleButtons(options=[(t("deferred (last microbatch)"), "deferred"),
                                          (t("every microbatch"), "every")],
                                 value=sync, description=t("sync policy")))

    def compute(self, accumulation_steps: int, sync: str) -> dict[str, Any]:
        from gastudy.course.demos.fsdp import measure_sharded

        self.report_progress(0.1, t("DDP, then FSDP2, on {d} processes", d=REPLICAS))
        result = measure_sharded(accumulation_steps, sync, replicas=REPLICAS, updates=1, timeout=TIMEOUT_S)
        self.report_progress(1.0)
        return result

    def render(self, result: dict[str, Any]) -> None:
        rows = sharded_rows(result)
        fsdp = result["fsdp"]
        A, D = fsdp["accumulation_steps"], fsdp["replicas"]
        labels = [r["setting"] for r in rows]
        fig, (left, right) = subplots(1, 2, figsize=(9, 3.0))
        left.bar(labels, [r["reductions"] for r in rows], color=["C0", "C2" if fsdp["backend"] == "deferred" else "C3"])
        left.set_ylabel(t("gradient reductions per update"))
        right.bar(labels, [r["gradient_kib"] for r in rows], color=["C0", "C2" if fsdp["backend"] == "deferred" else "C3"])
        right.axhline(fsdp["unsharded_gradient_bytes"] / 1024, color="k", ls="--", lw=1,
                      label=t("whole gradient"))
        right.axhline(fsdp["unsharded_gradient_bytes"] / 1024 / D, color="k", ls=":", lw=1,
                      label=t("1/D of it"))
        right.set_ylabel(t("peak gradient KiB per replica"))
        right.legend(loc="lower right", fontsize=8)
        fig.suptitle(t("A = {a}, D = {d} processes (gloo), tiny-gpt in fp32", a=A, d=D), fontsize=10)
        show_figure(fig)
        show_table(rows, headers={"setting": t("setting"), "reductions": t("reductions / update"),
                                  "all_gathers": t("all-gathers / update"), "gradient_kib": t("peak gradient KiB"),
                                  "fraction": t("of the whole gradient"), "ms": t("ms / update")})
        say(t("DDP all-reduces and FSDP2 reduce-scatters are both gradient reductions; the times are noisy on "
                "a shared machine."))

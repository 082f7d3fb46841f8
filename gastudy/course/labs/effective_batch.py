"""Chapter 02: the effective batch m × A × D and the per-replica share (section MB-2).

- :class:`EffectiveBatchLab`: a calculator over m, A, D and the tensor/pipeline sizes. It
  also shards a real data set the way the library's stream does, so the per-replica share
  and the number of distinct samples in one update are counted, not multiplied.
- :class:`SameProductLab`: every split m × A of one effective batch, with the memory one
  microbatch keeps for backward and the time of one update measured — the product ranks
  neither.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator
from gastudy.core.groups import build_group
from gastudy.core.plan import BatchPlan
from gastudy.course.datasets import BlobDataset
from gastudy.course.i18n import t
from gastudy.course.models import build_model
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots


@dataclass
class EffectiveBatchResult:
    """MB-2: the plan, and the sample ids each replica really takes for the first update.

    ``per_replica_ids[r]`` are the ids rank r processes in update 1 (m·A of them);
    ``distinct`` is the number of different ids over all replicas (= m·A·D when sharded);
    ``naive_count`` is what multiplying by *every device* would claim (m·A·devices).
    Course: MB-2.
    """

    plan: BatchPlan
    per_replica_ids: list[list[int]]
    distinct: int
    naive_count: int


def shard_first_update(plan: BatchPlan, seed: int = 0) -> list[list[int]]:
    """Sample ids each replica processes in the first update, from the library's own sharding.

    Builds a data set of exactly m·A·D samples and asks :class:`MicrobatchStream` (one per
    rank) which indices that rank visits. Tensor/pipeline-parallel devices share a replica's
    samples, so they do not appear here. Course: MB-2.
    """
    dataset = BlobDataset(plan.effective_batch, seed=seed)
    return [
        MicrobatchStream(
            dataset, plan.micro_batch, seed=seed, replicas=plan.replicas, rank=r
        ).indices()[: plan.per_replica]
        for r in range(plan.replicas)
    ]


def plan_line(plan: BatchPlan) -> str:
    """:meth:`BatchPlan.describe` in the course language: ``m=2 × A=8 × D=2 = 32 samples per
    update (16 per replica, 2 devices)``. Course: MB-2."""
    return t("m={m} × A={A} × D={D} = {total} samples per update ({per_replica} per replica, {devices} devices)",
             m=plan.micro_batch, A=plan.accumulation_steps, D=plan.replicas, total=plan.effective_batch,
             per_replica=plan.per_replica, devices=plan.devices)


class EffectiveBatchLab(Lab):
    """MB-2: m × A × D, counted per replica; tensor/pipeline devices are not replicas.

    Controls: ``micro_batch`` (m), ``accumulation_steps`` (A), ``replicas`` (D),
    ``tensor_parallel`` and ``pipeline_parallel``. ``result.plan.effective_batch`` is m·A·D,
    ``result.distinct`` the counted number of distinct samples in one update.
    Course: MB-2.
    """

    def __init__(
        self,
        micro_batch: int = 2,
        accumulation_steps: int = 8,
        replicas: int = 2,
        tensor_parallel: int = 1,
        pipeline_parallel: int = 1,
    ):
        self.title = t("MB-2 · effective batch calculator")
        super().__init__(
            micro_batch=int_slider(micro_batch, 1, 16, "m"),
            accumulation_steps=int_slider(accumulation_steps, 1, 16, "A"),
            replicas=int_slider(replicas, 1, 8, t("D (replicas)")),
            tensor_parallel=int_slider(tensor_parallel, 1, 4, t("tensor ∥")),
            pipeline_parallel=int_slider(pipeline_parallel, 1, 4, t("pipeline ∥")),
        )

    def compute(
        self,
        micro_batch: int,
        accumulation_steps: int,
        replicas: int,
        tensor_parallel: int,
        pipeline_parallel: int,
    ) -> EffectiveBatchResult:
        plan = BatchPlan(
            micro_batch, accumulation_steps, replicas, tensor_parallel, pipeline_parallel
        )
        ids = shard_first_update(plan)
        return EffectiveBatchResult(
            plan,
            ids,
            len({i for r in ids for i in r}),
            micro_batch * accumulation_steps * plan.devices,
        )

    def render(self, r: EffectiveBatchResult) -> None:
        from matplotlib.patches import Rectangle

        p = r.plan
        say(plan_line(p))
        say(t("counted: {distinct} distinct samples in update 1; each replica's share: {shares}",
                distinct=r.distinct, shares=[len(ids) for ids in r.per_replica_ids]))
        if p.devices > p.replicas:
            say(t("wrong: counting all {devices} devices as replicas would claim {naive} samples per update — "
                    "tensor/pipeline devices split one model, they add no samples.", devices=p.devices,
                    naive=r.naive_count))
        fig, ax = subplots(figsize=(min(12, 1.6 * p.replicas + 2), 2.2))
        tp, pp = p.tensor_parallel, p.pipeline_parallel
        for rep in range(p.replicas):
            x0 = rep * 1.5
            ax.add_patch(Rectangle((x0, 0), 1.2, 1.2, fill=False, lw=2, ec="tab:blue", clip_on=False))
            for i in range(tp):
                for j in range(pp):
                    ax.add_patch(
                        Rectangle(
                            (x0 + 0.1 + i * 1.0 / tp, 0.1 + j * 0.8 / pp),
                            0.9 / tp,
                            0.7 / pp,
                            color="tab:gray",
                            alpha=0.5,
                        )
                    )
            ax.text(
                x0 + 0.6,
                1.3,
                t("replica {rep}\n{n} samples", rep=rep, n=len(r.per_replica_ids[rep])),
                ha="center",
                fontsize=8,
            )
        ax.set_xlim(-0.2, p.replicas * 1.5)
        ax.set_ylim(-0.1, 1.8)  # room below the boxes' bottom edge
        ax.axis("off")
        ax.set_title(
            t("{devices} devices (grey) = D {replicas} × tensor {tp} × pipeline {pp}; {batch} samples per update",
              devices=p.devices, replicas=p.replicas, tp=tp, pp=pp, batch=p.effective_batch),
            fontsize=9,
        )
        show_figure(fig)


# ------------------------------------------------------------------ the product ranks nothing
@dataclass
class SameProductResult:
    """Every m × A split of ``target``: bytes one microbatch keeps, seconds per update.
    Course: MB-2."""

    target: int
    rows: list[dict]

    @property
    def memory_spread(self) -> float:
        """Largest ÷ smallest saved-for-backward bytes over the splits."""
        values = [row["saved KiB"] for row in self.rows]
        return max(values) / min(values)


def update_seconds(model: torch.nn.Module, microbatches: list[dict], repeats: int = 3) -> float:
    """Median wall time (s) of one engine update over ``microbatches`` (SGD), measured with
    :func:`gastudy.memory.timing.time_update` (one warm-up call). Course: MB-2."""
    from gastudy.memory.timing import time_update

    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    engine = Accumulator(model, optimizer, accumulation_steps=len(microbatches))
    group = build_group(0, microbatches, len(microbatches))
    return time_update(lambda: engine.update(group), warmup=1, repeats=repeats).median_s


class SameProductLab(Lab):
    """MB-2: one effective batch, many (m, A): memory and time differ although m·A is the same.

    For every power-of-two m dividing ``target`` (D = 1) the lab measures the bytes one
    microbatch keeps for backward (:func:`gastudy.memory.saved.saved_bytes`) and the wall time of
    one real update. ``result.memory_spread`` is the largest/smallest memory ratio.
    Each (target, sequence) is measured once and kept; a new one advances the progress bar per
    split it times.
    Course: MB-2.
    """

    def __init__(self, target: int = 32, seq_len: int = 16):
        import ipywidgets as w

        self.title = t("MB-2 · same m·A, different memory and time")
        super().__init__(
            target=w.Dropdown(options=[8, 16, 32, 64], value=target, description="m·A"),
            seq_len=int_slider(seq_len, 8, 32, t("sequence"), step=8),
        )

    def compute(self, target: int, seq_len: int) -> SameProductResult:
        return self.kept(self._measure, target, seq_len)

    def _measure(self, target: int, seq_len: int) -> SameProductResult:
        from gastudy.memory.saved import saved_bytes
        from gastudy.memory.workload import synthetic_microbatches

        torch.manual_seed(0)
        model = build_model("tiny-gpt", layers=2).train()
        rows = []
        m = 1
        splits = target.bit_length()  # m = 1, 2, 4, … target
        while m <= target:
            A = target // m
            self.report_progress(len(rows) / splits, f"m={m}, A={A}")
            mbs = synthetic_microbatches(model, m, A, seq_len)
            rows.append(
                {
                    "m": m,
                    "A": A,
                    "m·A": m * A,
                    "saved KiB": saved_bytes(model, mbs[0]).total / 1024,
                    "ms per update": 1000 * update_seconds(model, mbs),
                }
            )
            m *= 2
        return SameProductResult(target, rows)

    def render(self, r: SameProductResult) -> None:
        show_table(r.rows, headers={"saved KiB": t("saved KiB"), "ms per update": t("ms per update")})
        fig, (a, b) = subplots(1, 2, figsize=(9, 2.8))
        labels = [f"{row['m']}×{row['A']}" for row in r.rows]
        a.bar(labels, [row["saved KiB"] for row in r.rows], color="tab:orange")
        a.set_title(t("memory one microbatch keeps (KiB)"))
        b.bar(labels, [row["ms per update"] for row in r.rows], color="tab:purple")
        b.set_title(t("time per update (ms, this machine)"))
        for ax in (a, b):
            ax.set_xlabel("m × A")
            ax.tick_params(axis="x", labelsize=7)
        show_figure(fig)

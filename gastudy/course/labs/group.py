"""Chapter 04: organizing a full group (sections MB-4, MB-6).

- :class:`GroupPlanLab`: boundaries and denominator first — every group's supervised items are
  counted before any forward, and the engine's updates use exactly those denominators.
- :class:`KeptLossMemoryLab`: the bytes kept alive at each microbatch start when
  graph-attached losses are kept (one backward at the end) vs released (measured with
  :class:`gastudy.check.diagnostics.LiveBytes`).
- :class:`LastGroupLab`: a short last group under ``keep`` and ``drop``, the samples affected,
  and how much a constant divisor A under-weights it.
- :class:`SchedulerLab`: the learning rate at every update with the scheduler stepped per
  update (right) and per microbatch (A× too fast).
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass, field
from typing import Any

import torch

from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator
from gastudy.core.groups import PartialGroupRecord, make_groups
from gastudy.course.checks import library_says
from gastudy.course.datasets import AdditionDataset, BlobDataset
from gastudy.course.i18n import t
from gastudy.course.models import build_model
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots


# ------------------------------------------------------------------ boundaries and denominator
@dataclass
class GroupPlanResult:
    """MB-4: per group, items per microbatch and the denominator counted before any forward.

    ``engine_denominators`` are the denominators the engine's real updates reported;
    ``forward_calls_before_counting`` is 0: counting needs no model.
    Course: MB-4.
    """

    rows: list[dict[str, Any]]
    denominators: list[int]
    engine_denominators: list[int]
    forward_calls_before_counting: int
    token_weights: list[float]
    step_weights: list[float]


class GroupPlanLab(Lab):
    """MB-4: fix each group's boundaries and denominator first, then run it.

    Controls: m, A and the data set size. The groups are counted from the labels alone; then
    the engine trains on them and ``result.engine_denominators`` must equal
    ``result.denominators``. ``result.token_weights`` are group 0's microbatch shares of the
    gradient (items ÷ denominator); ``step_weights`` what a constant 1/A would give.
    Course: MB-4.
    """

    def __init__(self, micro_batch: int = 2, accumulation_steps: int = 4, dataset_size: int = 30):
        self.title = t("MB-4 · boundaries and denominator first")
        super().__init__(
            micro_batch=int_slider(micro_batch, 1, 8, "m"),
            accumulation_steps=int_slider(accumulation_steps, 2, 8, "A"),
            dataset_size=int_slider(dataset_size, 8, 64, t("samples")),
        )

    def compute(
        self, micro_batch: int, accumulation_steps: int, dataset_size: int
    ) -> GroupPlanResult:
        data = AdditionDataset(dataset_size, seed=0)
        stream = MicrobatchStream(data, micro_batch, seed=0)
        model = build_model("tiny-gpt", layers=2)
        calls = []
        hook = model.register_forward_pre_hook(lambda *_: calls.append(1))
        groups = list(make_groups(stream.microbatches(), accumulation_steps))  # counting only
        forward_calls = len(calls)
        hook.remove()
        engine = Accumulator(
            model,
            torch.optim.SGD(model.parameters(), lr=0.05),
            accumulation_steps=accumulation_steps,
        )
        results = engine.run(groups)
        rows = [
            {
                "group": g.index,
                "microbatches": g.size,
                "samples": g.samples,
                "items per microbatch": g.items,
                "denominator": g.supervised_items,
                "partial": g.partial,
            }
            for g in groups
        ]
        g0 = groups[0]
        return GroupPlanResult(
            rows,
            [g.supervised_items for g in groups],
            [r.denominator for r in results],
            forward_calls,
            [n / g0.supervised_items for n in g0.items],
            [1 / accumulation_steps] * g0.size,
        )

    def render(self, r: GroupPlanResult) -> None:
        show_table(r.rows, headers=_group_headers())
        say(t("forward calls while counting: {calls}; engine denominators {state}",
                calls=r.forward_calls_before_counting,
                state=t("match") if r.engine_denominators == r.denominators else t("DIFFER")))
        fig, ax = subplots(figsize=(6, 2.6))
        x = range(1, len(r.token_weights) + 1)
        ax.bar(
            [i - 0.2 for i in x], r.token_weights, width=0.4, label=t("items ÷ denominator (tokens)")
        )
        ax.bar([i + 0.2 for i in x], r.step_weights, width=0.4, label=t("1/A (steps)"))
        ax.set_xlabel(t("microbatch of group 0"))
        ax.set_ylabel(t("share of the update"))
        # headroom above the tallest bar for the legend, so it never covers a bar
        ax.set_ylim(0, 1.4 * max([*r.token_weights, *r.step_weights]))
        ax.legend(fontsize=8, loc="upper center", ncol=2)
        show_figure(fig, integer_x=True)


# ------------------------------------------------------------------ kept losses and memory
MEMORY_LOOPS = {
    "release each graph (correct)": "correct_update",
    "keep graph-attached losses": "keep_graph",
}


def _group_headers() -> dict[str, str]:
    """The column names of the group tables in the current course language."""
    return {"group": t("group"), "microbatches": t("microbatches"), "samples": t("samples"),
            "items per microbatch": t("items per microbatch"), "denominator": t("denominator"),
            "partial": t("partial")}


def memory_loop_name(loop: str) -> str:
    """The name of loop ``loop`` (a key of :data:`MEMORY_LOOPS`) in the current course language.
    Course: MB-4."""
    return {"release each graph (correct)": t("release each graph (correct)"),
            "keep graph-attached losses": t("keep graph-attached losses")}.get(loop, loop)


@dataclass
class KeptLossResult:
    """MB-4: bytes alive at each microbatch start (saved for backward + kept outputs), per loop.
    Course: MB-4."""

    loop: str
    retained: dict[str, list[int]]
    saved_per_microbatch: int
    verdict: str
    fired: bool

    def growth(self, loop: str) -> float:
        """Bytes alive at the last microbatch start ÷ one microbatch's saved bytes."""
        return self.retained[loop][-1] / self.saved_per_microbatch


class KeptLossMemoryLab(Lab):
    """MB-4: keeping graph-attached losses keeps every microbatch's activations alive.

    Runs one group of A microbatches with each loop under
    :class:`gastudy.check.diagnostics.LiveBytes` (via :func:`diagnose_memory_growth`) and plots the
    bytes alive at each microbatch start. ``result.growth(loop)`` is about A−1 for the kept
    losses and about 0 for the correct loop. Both loops are measured once per A and kept, so
    choosing the other loop only redraws; a new A advances the progress bar per loop.
    Course: MB-4.
    """

    def __init__(self, loop: str = "keep graph-attached losses", accumulation_steps: int = 6):
        import ipywidgets as w

        self.title = t("MB-4 · memory held between microbatches")
        super().__init__(
            loop=w.Dropdown(
                options=[(memory_loop_name(k), k) for k in MEMORY_LOOPS],
                value=loop,
                description=t("loop"),
                layout={"width": "360px"},
            ),
            accumulation_steps=int_slider(accumulation_steps, 3, 12, "A"),
        )

    def compute(self, loop: str, accumulation_steps: int) -> KeptLossResult:
        verdicts = self.kept(self._measure, accumulation_steps)  # both loops: they do not depend on `loop`
        retained = {
            name: [
                s + o for s, o in zip(v.evidence["retained_saved"], v.evidence["retained_outputs"])
            ]
            for name, v in verdicts.items()
        }
        per_mb = verdicts[loop].evidence["saved_per_microbatch"]
        return KeptLossResult(
            loop,
            retained,
            max(1, sum(per_mb) // len(per_mb)),
            str(verdicts[loop]),
            verdicts[loop].fired,
        )

    def _measure(self, accumulation_steps: int) -> dict[str, Any]:
        """Both loops' memory-growth verdicts at this A, with a progress step per loop."""
        from gastudy.check.diagnostics import diagnose_memory_growth
        from gastudy.course import pitfalls
        from gastudy.course.clinic import default_setup

        setup = default_setup(accumulation_steps=accumulation_steps, samples=2 * accumulation_steps)
        measured = {}
        for i, (name, fn) in enumerate(MEMORY_LOOPS.items()):
            self.report_progress(i / len(MEMORY_LOOPS), memory_loop_name(name))
            measured[name] = diagnose_memory_growth(getattr(pitfalls, fn), setup)
        return measured

    def render(self, r: KeptLossResult) -> None:
        library_says(r.verdict)
        fig, ax = subplots(figsize=(6.5, 2.8))
        for name, series in r.retained.items():
            ax.plot(
                range(1, len(series) + 1),
                [b / 1024 for b in series],
                "o-",
                lw=3 if name == r.loop else 1,
                label=memory_loop_name(name),
            )
        ax.axhline(
            r.saved_per_microbatch / 1024, color="k", ls=":", label=t("one microbatch's activations")
        )
        ax.set_xlabel(t("microbatch (start)"))
        ax.set_ylabel(t("KiB alive"))
        ax.legend(fontsize=8)
        show_figure(fig, integer_x=True)


# ------------------------------------------------------------------ the short last group
@dataclass
class LastGroupResult:
    """MB-4: what one epoch did under a last-group policy.

    ``partial`` is the library's record of the short group (policy, size, sample ids) or
    ``None`` when the groups divide evenly; ``samples_processed`` counts samples that entered
    an update; ``constant_divisor_ratio`` is ‖g(÷A)‖ ÷ ‖g(tokens)‖ for the short group
    (``expected_ratio`` = its microbatches ÷ A).
    Course: MB-4.
    """

    policy: str
    dataset_size: int
    updates: int
    samples_processed: int
    processed_ids: list[int]
    partial: PartialGroupRecord | None
    constant_divisor_ratio: float | None
    expected_ratio: float | None
    groups: list[dict[str, Any]] = field(default_factory=list)


def short_group_weight(model: torch.nn.Module, group: Any, task: str) -> float:
    """‖gradient with a constant divisor A‖ ÷ ‖token-normalized gradient‖ for ``group`` (MB-4).

    Both are what the engine hands the optimizer (``steps`` vs ``tokens`` normalization, on
    copies of ``model``). With one item per sample and full microbatches it is exactly
    ``group.size / A``: the short group is under-weighted.
    Course: MB-4.
    """
    from gastudy.course.labs.updates import engine_gradient, total_norm

    steps, tokens = (
        total_norm(
            engine_gradient(
                copy.deepcopy(model), group.microbatches, task, n, group.accumulation_steps
            )
        )
        for n in ("steps", "tokens")
    )
    return steps / tokens


class LastGroupLab(Lab):
    """MB-4: the last group has fewer than A microbatches — keep it or drop it, and record it.

    One epoch of an ln-mlp classifier on ``dataset_size`` samples, m per microbatch, A per
    group. ``result.partial.sample_ids`` are the affected samples; with ``keep`` they are
    trained on with their true denominator, with ``drop`` they are skipped.
    Course: MB-4.
    """

    def __init__(
        self,
        policy: str = "keep",
        dataset_size: int = 30,
        micro_batch: int = 2,
        accumulation_steps: int = 4,
    ):
        import ipywidgets as w

        self.title = t("MB-4 · the short last group: keep or drop")
        super().__init__(
            policy=w.Dropdown(options=[(t("keep"), "keep"), (t("drop"), "drop")], value=policy,
                              description=t("last group")),
            dataset_size=int_slider(dataset_size, 8, 64, t("samples")),
            micro_batch=int_slider(micro_batch, 1, 8, "m"),
            accumulation_steps=int_slider(accumulation_steps, 2, 8, "A"),
        )

    def compute(
        self, policy: str, dataset_size: int, micro_batch: int, accumulation_steps: int
    ) -> LastGroupResult:
        data = BlobDataset(dataset_size, seed=0)
        model = build_model("ln-mlp")
        template = copy.deepcopy(model)
        stream = make_groups(
            MicrobatchStream(data, micro_batch, seed=0).microbatches(),
            accumulation_steps,
            task="classification",
            last_group=policy,
        )
        engine = Accumulator(
            model,
            torch.optim.SGD(model.parameters(), lr=0.05),
            accumulation_steps=accumulation_steps,
            task="classification",
        )
        groups, ids = [], []
        for g in stream:
            engine.update(g)
            ids += g.sample_ids
            groups.append(
                {
                    "group": g.index,
                    "microbatches": g.size,
                    "samples": g.samples,
                    "denominator": g.supervised_items,
                    "partial": g.partial,
                }
            )
        ratio = expected = None
        if stream.partial is not None:
            short = list(
                make_groups(
                    MicrobatchStream(data, micro_batch, seed=0).microbatches(),
                    accumulation_steps,
                    task="classification",
                )
            )[-1]
            ratio = short_group_weight(template, short, "classification")
            expected = short.size / accumulation_steps
        return LastGroupResult(
            policy,
            dataset_size,
            engine.counters.updates_applied,
            engine.counters.samples,
            ids,
            stream.partial,
            ratio,
            expected,
            groups,
        )

    def render(self, r: LastGroupResult) -> None:
        show_table(r.groups, headers=_group_headers())
        if r.partial is None:
            say(t("the groups divide the data evenly: no short last group"))
        else:
            p = r.partial
            say(t("short last group ({n} of A={A} microbatches), policy {policy}: samples {ids} ",
                    n=p.microbatches, A=p.accumulation_steps, policy=repr(p.policy), ids=p.sample_ids)
                  + (t("trained with their own denominator") if p.policy == "keep" else t("NOT trained")))
            say(t("a constant divisor A would weight it {ratio:.4g}× (expected {expected:.4g} = {n}/{A})",
                    ratio=r.constant_divisor_ratio, expected=r.expected_ratio,
                    n=p.microbatches, A=p.accumulation_steps))
        fig, ax = subplots(figsize=(6, 2.4))
        ax.bar(
            [g["group"] for g in r.groups],
            [g["samples"] for g in r.groups],
            color=["tab:orange" if g["partial"] else "tab:blue" for g in r.groups],
        )
        ax.set_xlabel(t("update"))
        ax.set_ylabel(t("samples"))
        ax.set_title(t("{trained} of {total} samples trained ({policy})", trained=r.samples_processed,
                       total=r.dataset_size, policy=t("keep") if r.policy == "keep" else t("drop")))
        show_figure(fig, integer_x=True)


# ------------------------------------------------------------------ MB-6: the scheduler
@dataclass
class SchedulerResult:
    """MB-6: the learning rate each update's optimizer step used, per loop.

    ``lr["per update"]`` comes from the engine (scheduler once per applied update);
    ``lr["per microbatch"]`` from :func:`gastudy.course.pitfalls.scheduler_per_microbatch`.
    ``expected_fast[k]`` = base_lr × factor((k+1)·A): where a per-microbatch scheduler must be.
    Course: MB-6.
    """

    accumulation_steps: int
    lr: dict[str, list[float]]
    expected_fast: list[float]
    scheduler_steps: dict[str, int]
    verdict: str
    fired: bool


def lrs_at_steps(update_fn: Any, setup: Any, updates: int) -> tuple[list[float], int]:
    """Run ``updates`` groups of ``update_fn`` on one fresh copy; the lr each optimizer step used
    and the number of scheduler steps taken. Course: MB-6."""
    model, optimizer, scheduler = setup.fresh()
    used: list[float] = []
    handle = optimizer.register_step_pre_hook(
        lambda opt, *_: used.append(float(opt.param_groups[0]["lr"]))
    )
    start = scheduler.last_epoch
    try:
        with warnings.catch_warnings():  # the per-microbatch loop also trips torch's order warning
            warnings.simplefilter("ignore")
            for i in range(updates):
                update_fn(model, optimizer, scheduler, setup.group(i))
    finally:
        handle.remove()
    return used, scheduler.last_epoch - start


class SchedulerLab(Lab):
    """MB-6: warm-up + cosine schedule defined per update; stepped per update vs per microbatch.

    Controls: A, the number of updates and warm-up updates. ``result.lr`` holds the learning
    rate each real optimizer step used; the per-microbatch loop runs through the schedule A×
    too fast (``result.expected_fast``), and the schedule-drift detector fires on it.
    Course: MB-6.
    """

    def __init__(self, accumulation_steps: int = 4, updates: int = 12, warmup: int = 2):
        self.title = t("MB-6 · the scheduler follows updates, not microbatches")
        super().__init__(
            accumulation_steps=int_slider(accumulation_steps, 1, 8, "A"),
            updates=int_slider(updates, 4, 30, t("updates")),
            warmup=int_slider(warmup, 0, 6, t("warm-up")),
        )

    def compute(self, accumulation_steps: int, updates: int, warmup: int) -> SchedulerResult:
        from gastudy.check.diagnostics import diagnose_schedule_drift
        from gastudy.course.clinic import default_setup
        from gastudy.course.pitfalls import correct_update, scheduler_per_microbatch
        from gastudy.run.train import warmup_cosine

        factor = warmup_cosine(warmup, updates)
        setup = default_setup(
            "ln-mlp",
            micro_batch=2,
            accumulation_steps=accumulation_steps,
            samples=2 * accumulation_steps * updates,
            dtype=torch.float32,
        )
        setup.make_optimizer = lambda model: torch.optim.SGD(model.parameters(), lr=0.1)
        setup.make_scheduler = lambda opt: torch.optim.lr_scheduler.LambdaLR(opt, factor)
        lr, steps = {}, {}
        for name, fn in (
            ("per update", correct_update),
            ("per microbatch", scheduler_per_microbatch),
        ):
            lr[name], steps[name] = lrs_at_steps(fn, setup, updates)
        verdict = diagnose_schedule_drift(scheduler_per_microbatch, setup)
        expected = [0.1 * factor((k + 1) * accumulation_steps) for k in range(updates)]
        return SchedulerResult(accumulation_steps, lr, expected, steps, str(verdict), verdict.fired)

    def render(self, r: SchedulerResult) -> None:
        names = {"per update": t("per update"), "per microbatch": t("per microbatch")}
        steps = ", ".join(f"{names.get(k, k)}: {v}" for k, v in r.scheduler_steps.items())
        say(t("scheduler steps: {steps}", steps=steps))
        library_says(r.verdict)
        fig, ax = subplots(figsize=(6.5, 2.8))
        for name, style, label in (("per update", "o-", t("scheduler per update")),
                                   ("per microbatch", "s--", t("scheduler per microbatch"))):
            ax.plot(range(1, len(r.lr[name]) + 1), r.lr[name], style, ms=4, label=label)
        ax.set_xlabel(t("optimizer update"))
        ax.set_ylabel(t("learning rate used"))
        ax.set_title(f"A = {r.accumulation_steps}")
        ax.legend(fontsize=8)
        show_figure(fig, integer_x=True)

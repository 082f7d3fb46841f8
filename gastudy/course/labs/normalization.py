"""Chapter 03: counting supervised items and normalizing the loss once (GA-4, GA-5, GA-6, MB-3).

- :class:`WeightedMeanLab`: the 512/1536 example with sliders; the token-weighted mean is
  also computed as the plain mean over all per-token losses, which is what it must equal.
- :class:`CountingLab`: what counts as one supervised item for a causal LM (shift), a
  padding-free batch (``shift_labels``), a masked LM and a classifier; the count a mistake
  gives and how much it moves the loss.
- :class:`NormalizationLab`: ``tokens`` vs ``steps`` vs ``mean`` — the gradient of one update
  against the big batch, on variable-length or equal-count data (GA-4).
- :class:`DoubleDivisionLab`: a user loss already divided by ``num_items_in_batch``, declared
  with ``loss_is_scaled_for_ga`` True or False; the detector names the double division (GA-6).
- :class:`MeanOfMeansLab`: the mean of microbatch means against the token-weighted mean on
  real variable-length training data, after a real training run (MB-3).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from gastudy.check.verify import (
    TOLERANCES,
    compare_gradients,
    controlled_microbatches,
    reference_gradients,
    verify_one_update,
)
from gastudy.core.counting import count_supervised
from gastudy.core.data import IGNORE_INDEX, MicrobatchStream, packed_collate, pad_collate
from gastudy.core.engine import model_inputs
from gastudy.core.groups import make_groups
from gastudy.core.loss import summed_loss
from gastudy.course import mistakes
from gastudy.course.checks import library_says
from gastudy.course.datasets import AdditionDataset, BlobDataset
from gastudy.course.i18n import language, t
from gastudy.course.labs.updates import engine_gradient, total_norm
from gastudy.course.mistakes import NORMALIZATIONS, count_unshifted, mean_of_means, weighted_mean
from gastudy.course.models import build_model
from gastudy.course.widgets import Lab, int_slider, say, show_figure, show_table, subplots


# ------------------------------------------------------------------ MB-3: the 512/1536 example
@dataclass
class WeightedMeanResult:
    """MB-3: the two microbatches' counts and means, and the three ways to combine them.

    ``weighted`` = Σ countᵢ·meanᵢ ÷ Σ countᵢ; ``unweighted`` = the mean of the two means;
    ``all_tokens`` = the mean over every per-token loss of both microbatches (generated with
    exactly those means), which the weighted mean must reproduce.
    Course: MB-3.
    """

    counts: tuple[int, int]
    means: tuple[float, float]
    weighted: float
    unweighted: float
    all_tokens: float

    @property
    def bias(self) -> float:
        """unweighted − weighted (nats): how far the mean of means is off."""
        return self.unweighted - self.weighted


def token_losses(count: int, mean: float, seed: int = 0) -> torch.Tensor:
    """``count`` positive per-token losses (float64) whose mean is exactly ``mean`` (to rounding).
    Course: MB-3."""
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(count, generator=g, dtype=torch.float64) + 0.5
    return x * (mean / x.mean())


class WeightedMeanLab(Lab):
    """MB-3: two microbatches with their supervised counts and mean losses (the 512/1536 example).

    ``result.weighted`` (3.5 by default) equals ``result.all_tokens``, the mean over all
    2,048 per-token losses; ``result.unweighted`` (3.0) over-weights the smaller microbatch.
    Course: MB-3.
    """

    def __init__(
        self, count_a: int = 512, mean_a: float = 2.0, count_b: int = 1536, mean_b: float = 4.0
    ):
        import ipywidgets as w

        self.title = t("MB-3 · weighted mean vs mean of means")
        super().__init__(
            count_a=int_slider(count_a, 1, 4096, t("items 1")),
            mean_a=w.FloatSlider(
                value=mean_a, min=0.0, max=8.0, step=0.1, description=t("mean loss 1")
            ),
            count_b=int_slider(count_b, 1, 4096, t("items 2")),
            mean_b=w.FloatSlider(
                value=mean_b, min=0.0, max=8.0, step=0.1, description=t("mean loss 2")
            ),
        )

    def compute(
        self, count_a: int, mean_a: float, count_b: int, mean_b: float
    ) -> WeightedMeanResult:
        losses = torch.cat([token_losses(count_a, mean_a, 0), token_losses(count_b, mean_b, 1)])
        return WeightedMeanResult(
            (count_a, count_b),
            (mean_a, mean_b),
            weighted_mean([mean_a, mean_b], [count_a, count_b]),
            mean_of_means([mean_a, mean_b]),
            float(losses.mean()),
        )

    def render(self, r: WeightedMeanResult) -> None:
        total = sum(r.counts)
        show_table(
            [
                {
                    "microbatch": i + 1,
                    "items": n,
                    "mean loss": m,
                    "weight (tokens)": n / total,
                    "weight (mean of means)": 0.5,
                }
                for i, (n, m) in enumerate(zip(r.counts, r.means))
            ],
            headers={"microbatch": t("microbatch"), "items": t("items"), "mean loss": t("mean loss"),
                     "weight (tokens)": t("weight (tokens)"), "weight (mean of means)": t("weight (mean of means)")},
        )
        fig, ax = subplots(figsize=(6, 2.6))
        names = [t("weighted (Σ n·mean / Σ n)"), t("mean over all tokens"), t("mean of means")]
        ax.barh(
            names,
            [r.weighted, r.all_tokens, r.unweighted],
            color=["tab:green", "tab:green", "tab:red"],
        )
        for y, v in enumerate([r.weighted, r.all_tokens, r.unweighted]):
            ax.text(v, y, f" {v:.4g}", va="center")
        ax.set_xlabel(t("group loss (nats)"))
        ax.set_title(t("bias of the mean of means: {bias:+.4g}", bias=r.bias))
        show_figure(fig)


# ------------------------------------------------------------------ GA-5: counting
KINDS = ("causal, padded", "causal, packed (shift_labels)", "masked LM", "classification")


def kind_name(kind: str) -> str:
    """The name of task kind ``kind`` (one of :data:`KINDS`) in the current course language.
    Course: GA-5."""
    return {"causal, padded": t("causal, padded"), "causal, packed (shift_labels)": t("causal, packed (shift_labels)"),
            "masked LM": t("masked LM"), "classification": t("classification")}.get(kind, kind)


def mistake_name(mistake: str) -> str:
    """A counting mistake's description (see :func:`count_case`) in the current course language.
    Course: GA-5."""
    return {"labels counted without the shift": t("labels counted without the shift"),
            "the samples' labels counted without the shift": t("the samples' labels counted without the shift"),
            }.get(mistake, mistake)


def mask_tokens(
    batch: dict[str, torch.Tensor], rate: float = 0.15, seed: int = 0
) -> dict[str, torch.Tensor]:
    """A masked-LM version of a padded batch: ``rate`` of the real tokens become targets.

    ``labels`` holds the original token at the chosen positions and -100 everywhere else
    (padding is never chosen). At least one position per row is chosen. Course: GA-5.
    """
    g = torch.Generator().manual_seed(seed)
    real = batch["attention_mask"].bool()
    chosen = (torch.rand(real.shape, generator=g) < rate) & real
    first = real.long().argmax(dim=1)
    chosen[torch.arange(len(first)), first] |= ~chosen.any(dim=1)
    labels = torch.where(
        chosen, batch["input_ids"], torch.full_like(batch["input_ids"], IGNORE_INDEX)
    )
    return {**batch, "labels": labels}


@dataclass
class CountingResult:
    """GA-5: the right count for a batch, the count a named mistake gives, and the loss both give.

    ``loss_right`` / ``loss_wrong`` (nats) are the same summed loss divided by each count
    (only for the causal kinds, where a real model computes it); ``relative_error`` is
    wrong ÷ right − 1 of the *denominator* (the loss moves by 1/(1+error) − 1).
    Course: GA-5.
    """

    kind: str
    supervise: str
    rows: int
    right: int
    wrong: int
    mistake: str
    loss_right: float | None
    loss_wrong: float | None
    padded_right: int | None = None

    @property
    def relative_error(self) -> float:
        return self.wrong / self.right - 1


def count_case(
    kind: str, supervise: str = "all", micro_batch: int = 8, seed: int = 0
) -> CountingResult:
    """Build one real microbatch of ``kind`` and count its supervised items right and wrong.

    - causal, padded: right = ``labels[..., 1:]``; mistake = counting ``labels`` unshifted.
    - causal, packed: right = ``shift_labels`` (equal to the padded count after the shift, also
      reported); mistake = counting the samples' labels without the shift.
    - masked LM: right = every label; mistake = applying the causal shift to it.
    - classification: right = one label per sample; mistake = the causal shift.
    Course: GA-5.
    """
    if kind == "classification":
        data = BlobDataset(micro_batch, seed=seed)
        batch = pad_collate([data[i] for i in range(micro_batch)])
        right = count_supervised(batch, "classification")
        return CountingResult(
            kind,
            "—",
            micro_batch,
            right,
            count_supervised(batch, "causal"),
            "causal shift applied to class labels",
            None,
            None,
        )
    data = AdditionDataset(micro_batch, seed=seed, supervise=supervise)
    samples = [data[i] for i in range(micro_batch)]
    padded = pad_collate(samples)
    if kind == "masked LM":
        masked = mask_tokens(padded, seed=seed)
        return CountingResult(
            kind,
            "15% of tokens",
            micro_batch,
            count_supervised(masked, "masked"),
            count_supervised(masked, "causal"),
            "causal shift applied to masked labels",
            None,
            None,
        )
    batch = packed_collate(samples) if kind.startswith("causal, packed") else padded
    model = build_model("tiny-gpt", layers=2)
    with torch.no_grad():
        loss_sum, items = summed_loss(
            model(**model_inputs(batch, torch.device("cpu"))), batch, "causal"
        )
    right = count_supervised(batch, "causal")
    if kind == "causal, padded":
        wrong, mistake = count_unshifted(batch), "labels counted without the shift"
    else:
        wrong, mistake = count_unshifted(padded), "the samples' labels counted without the shift"
    if items != right:
        raise RuntimeError(f"summed_loss used {items} items but count_supervised counted {right}")
    return CountingResult(
        kind,
        supervise,
        micro_batch,
        right,
        wrong,
        mistake,
        float(loss_sum) / right,
        float(loss_sum) / wrong,
        count_supervised(padded, "causal"),
    )


class CountingLab(Lab):
    """GA-5: count supervised items per kind of task; see the count and loss a mistake gives.

    Controls: ``kind`` (:data:`KINDS`), ``supervise`` (``all`` tokens or only the ``answer``)
    and ``micro_batch`` (rows). ``result.wrong - result.right`` is the counting error.
    Course: GA-5.
    """

    def __init__(self, kind: str = "causal, padded", supervise: str = "all", micro_batch: int = 8):
        import ipywidgets as w

        self.title = t("GA-5 · what counts as one supervised item")
        super().__init__(
            kind=w.Dropdown(options=[(kind_name(k), k) for k in KINDS], value=kind, description=t("kind")),
            supervise=w.Dropdown(
                options=[(t("all"), "all"), (t("answer"), "answer")], value=supervise, description=t("supervise")
            ),
            micro_batch=int_slider(micro_batch, 1, 16, t("rows")),
        )

    def compute(self, kind: str, supervise: str, micro_batch: int) -> CountingResult:
        return count_case(kind, supervise, micro_batch)

    def render(self, r: CountingResult) -> None:
        row = {
            t("kind"): kind_name(r.kind),
            t("rows"): r.rows,
            t("right count"): r.right,
            t("mistaken count"): r.wrong,
            t("mistake"): mistake_name(r.mistake),
            t("count error"): f"{100 * r.relative_error:+.2f}%",
        }
        if r.loss_right is not None:
            row.update({t("loss (right)"): r.loss_right, t("loss (mistaken)"): r.loss_wrong})
        show_table([row])
        if r.padded_right is not None and r.kind.startswith("causal, packed"):
            say(t("the same samples padded count {padded} items after the shift; shift_labels count {right}",
                    padded=r.padded_right, right=r.right))
        fig, ax = subplots(figsize=(5, 2.2))
        ax.barh([t("right"), t("mistaken")], [r.right, r.wrong], color=["tab:green", "tab:red"])
        ax.set_xlabel(t("supervised items (the denominator)"))
        ax.set_title(t("{kind}: {diff:+d} items", kind=kind_name(r.kind), diff=r.wrong - r.right))
        show_figure(fig)


# ------------------------------------------------------------------ GA-4: the normalizations
DATA = {"variable lengths (tiny-gpt)": "tiny-gpt", "equal counts (ln-mlp)": "ln-mlp"}


@dataclass
class NormalizationResult:
    """GA-4: per normalization, the relative gradient gap to the big batch and pass/fail.
    Course: GA-4."""

    data: str
    items: list[int]
    rel_diff: dict[str, float]
    passed: dict[str, bool]
    tolerance: float


class NormalizationLab(Lab):
    """GA-4: one update with each normalization, checked against the big batch.

    Uses :func:`gastudy.check.verify.verify_one_update` for ``tokens``, ``steps`` and ``mean``.
    On variable lengths only ``tokens`` matches; on equal counts (one label per sample) all
    three do. ``result.items`` lists the supervised items of each microbatch. Each setting is
    measured once and kept; a new one advances the progress bar per normalization.
    Course: GA-4.
    """

    def __init__(
        self,
        data: str = "variable lengths (tiny-gpt)",
        micro_batch: int = 4,
        accumulation_steps: int = 4,
    ):
        import ipywidgets as w

        self.title = t("GA-4 · tokens vs steps vs mean, against the big batch")
        self._margins: dict[str, dict[str, float]] = {}  # the figure's layout, once per course language
        names = {"variable lengths (tiny-gpt)": t("variable lengths (tiny-gpt)"),
                 "equal counts (ln-mlp)": t("equal counts (ln-mlp)")}
        super().__init__(
            data=w.Dropdown(options=[(names.get(k, k), k) for k in DATA], value=data, description=t("data")),
            micro_batch=int_slider(micro_batch, 1, 8, "m"),
            accumulation_steps=int_slider(accumulation_steps, 2, 8, "A"),
        )

    def compute(self, data: str, micro_batch: int, accumulation_steps: int) -> NormalizationResult:
        return self.kept(self._measure, data, micro_batch, accumulation_steps)

    def _measure(self, data: str, micro_batch: int, accumulation_steps: int) -> NormalizationResult:
        reports = {}
        for i, n in enumerate(NORMALIZATIONS):
            self.report_progress(i / len(NORMALIZATIONS), n)
            reports[n] = verify_one_update(DATA[data], micro_batch, accumulation_steps,
                                           normalization=mistakes.normalization(n))
        task = "causal" if DATA[data] == "tiny-gpt" else "classification"
        items = [
            count_supervised(mb, task)
            for mb in controlled_microbatches(DATA[data], micro_batch, accumulation_steps)
        ]
        return NormalizationResult(
            data,
            items,
            {n: r.max_rel_diff for n, r in reports.items()},
            {n: r.passed for n, r in reports.items()},
            reports["tokens"].tolerance,
        )

    def render(self, r: NormalizationResult) -> None:
        say(t("supervised items per microbatch: {items}", items=r.items))
        show_table(
            [
                {"normalization": n, "relative gap": r.rel_diff[n], "equals big batch": r.passed[n]}
                for n in r.rel_diff
            ],
            headers={"normalization": t("normalization"), "relative gap": t("relative gap"),
                     "equals big batch": t("equals big batch")},
        )
        fig, ax = subplots(figsize=(5, 2.6))
        names = list(r.rel_diff)
        ax.bar(
            names,
            [max(r.rel_diff[n], 1e-18) for n in names],
            color=["tab:green" if r.passed[n] else "tab:red" for n in names],
        )
        ax.axhline(r.tolerance, color="k", ls=":", label=t("tolerance {tol:g}", tol=r.tolerance))
        ax.set_yscale("log")
        ax.set_ylabel("max |Δgrad| / max |grad|")
        ax.legend(fontsize=8)
        self._margins[language()] = show_figure(fig, margins=self._margins.get(language()))


# ------------------------------------------------------------------ GA-6: double division
@dataclass
class DoubleDivisionResult:
    """GA-6: the verdict of :func:`gastudy.check.diagnostics.diagnose_double_division` on one update.

    ``k`` is the measured factor by which the gradient is smaller than the big batch's
    (1 = right), ``loss_ratio`` the same for the logged loss.
    Course: GA-6.
    """

    declared: bool
    accumulation_steps: int
    k: float
    loss_ratio: float
    fired: bool
    message: str


class DoubleDivisionLab(Lab):
    """GA-6: a loss already ÷ ``num_items_in_batch``, declared scaled (True) or not (False).

    Declared False, the engine divides it by the group's microbatches again: the loss and the
    gradient come out exactly A× too small (``result.k``), and the detector fires.
    Course: GA-6.
    """

    def __init__(self, declared: bool = False, accumulation_steps: int = 4):
        import ipywidgets as w

        self.title = t("GA-6 · loss_is_scaled_for_ga: declared right or wrong")
        super().__init__(
            declared=w.Dropdown(
                options=[(t("False (wrong here)"), False), (t("True (right)"), True)],
                value=declared,
                description=t("declared"),
            ),
            accumulation_steps=int_slider(accumulation_steps, 2, 8, "A"),
        )

    def compute(self, declared: bool, accumulation_steps: int) -> DoubleDivisionResult:
        from gastudy.check.diagnostics import diagnose_double_division
        from gastudy.course.clinic import default_setup
        from gastudy.course.pitfalls import declared_scaled, double_division

        verdict = diagnose_double_division(
            declared_scaled if declared else double_division,
            default_setup(accumulation_steps=accumulation_steps),
        )
        e = verdict.evidence
        return DoubleDivisionResult(
            declared, accumulation_steps, e["k"], e["loss_ratio"], verdict.fired, str(verdict)
        )

    def render(self, r: DoubleDivisionResult) -> None:
        library_says(r.message)
        fig, ax = subplots(figsize=(5, 2.2))
        ax.barh(
            [t("gradient"), t("logged loss")],
            [1 / r.k, 1 / r.loss_ratio],
            color="tab:red" if r.fired else "tab:green",
        )
        ax.axvline(1.0, color="k", ls="--")
        ax.set_xlabel(t("size relative to the big batch"))
        ax.set_title(t("declared {declared}, A = {A}: gradient ÷ {k:.3g}", declared=r.declared, A=r.accumulation_steps,
                       k=r.k))
        show_figure(fig)


# ------------------------------------------------------------------ MB-3 on real training data
@dataclass
class MeanOfMeansResult:
    """MB-3 measured after a real run: per evaluation group, both group losses and their gap.

    ``rows``: group, items per microbatch, token-weighted loss, mean of means, bias, and the
    relative gradient gap (max |Δ| ÷ max |big batch|) of a ``mean``- and a ``tokens``-normalized
    update of that group. ``gradient_gap``/``tokens_gap`` are group 0's, ``mean_gradient_gap``
    the ``mean`` gap averaged over the groups. ``verdict`` is the partition-dependence
    detector's message for the mean-of-means loop.
    Course: MB-3.
    """

    rows: list[dict[str, Any]]
    mean_abs_bias: float
    gradient_gap: float
    tokens_gap: float
    tolerance: float
    verdict: str
    verdict_fired: bool

    @property
    def mean_gradient_gap(self) -> float:
        """The ``mean`` update's relative gradient gap, averaged over the held-out groups."""
        return sum(r["gradient gap (mean)"] for r in self.rows) / len(self.rows)


def group_losses(
    model: torch.nn.Module, microbatches: list[dict[str, torch.Tensor]]
) -> tuple[list[float], list[int]]:
    """Per-microbatch mean loss (nats) and supervised items, without gradients (MB-3).
    Course: MB-3."""
    means, counts = [], []
    with torch.no_grad():
        for mb in microbatches:
            loss_sum, items = summed_loss(
                model(**model_inputs(mb, next(model.parameters()).device)), mb, "causal"
            )
            means.append(float(loss_sum) / items)
            counts.append(items)
    return means, counts


class MeanOfMeansLab(Lab):
    """MB-3: the mean of microbatch means on real variable-length data, after real training.

    Trains tiny-gpt for one epoch (:func:`gastudy.run.train.train`, tokens normalization), then
    on 8 held-out groups of A microbatches of m addition problems measures the token-weighted
    loss and the mean of means, and the gradient gap of a ``mean``-normalized update.
    Smaller m → more variable counts per microbatch → a larger bias. Each (m, A) is measured once
    and kept; a new one advances the progress bar per held-out group and for the detector.
    Course: MB-3.
    """

    def __init__(self, micro_batch: int = 2, accumulation_steps: int = 4):
        self.title = t("MB-3 · mean of means on real variable-length data")
        self._model: torch.nn.Module | None = None
        super().__init__(
            micro_batch=int_slider(micro_batch, 1, 8, "m"),
            accumulation_steps=int_slider(accumulation_steps, 2, 8, "A"),
        )

    def trained_model(self) -> torch.nn.Module:
        """The tiny-gpt trained once (one epoch of 256 problems) and reused for every setting."""
        if self._model is None:
            from gastudy.run.train import TrainConfig, train

            self._model = train(
                TrainConfig(dataset_size=256, micro_batch=4, accumulation_steps=2, progress=False)
            ).model
        return self._model

    def compute(self, micro_batch: int, accumulation_steps: int) -> MeanOfMeansResult:
        return self.kept(self._measure, micro_batch, accumulation_steps)

    def _measure(self, micro_batch: int, accumulation_steps: int) -> MeanOfMeansResult:
        from gastudy.check.diagnostics import Setup, diagnose_partition_dependence
        from gastudy.course.pitfalls import mean_of_means as mean_of_means_loop

        model = self.trained_model()
        data = AdditionDataset(8 * micro_batch * accumulation_steps, seed=123)
        groups = list(
            make_groups(
                MicrobatchStream(data, micro_batch, seed=123).microbatches(), accumulation_steps
            )
        )
        rows = []
        for g in groups:
            self.report_progress(len(rows) / (len(groups) + 1),
                                 t("held-out group {i} of {n}", i=len(rows) + 1, n=len(groups)))
            means, counts = group_losses(model, g.microbatches)
            w_loss, mom = weighted_mean(means, counts), mean_of_means(means)
            big = reference_gradients(copy.deepcopy(model), g.microbatches)
            gaps = {n: compare_gradients(engine_gradient(copy.deepcopy(model), g.microbatches,
                                                         normalization=n), big)[1] for n in ("mean", "tokens")}
            rows.append(
                {
                    "group": g.index,
                    "items": counts,
                    "token-weighted": w_loss,
                    "mean of means": mom,
                    "bias": mom - w_loss,
                    "gradient gap (mean)": gaps["mean"],
                    "gradient gap (tokens)": gaps["tokens"],
                }
            )
        self.report_progress(len(groups) / (len(groups) + 1), t("the partition-dependence detector"))
        setup = Setup(
            copy.deepcopy(model),
            [data[i] for i in range(len(data))],
            micro_batch,
            accumulation_steps,
        )
        verdict = diagnose_partition_dependence(mean_of_means_loop, setup)
        return MeanOfMeansResult(
            rows,
            sum(abs(r["bias"]) for r in rows) / len(rows),
            rows[0]["gradient gap (mean)"],
            rows[0]["gradient gap (tokens)"],
            TOLERANCES["fp32"],
            str(verdict),
            verdict.fired,
        )

    def render(self, r: MeanOfMeansResult) -> None:
        show_table(r.rows, headers={"group": t("group"), "items": t("items"), "token-weighted": t("token-weighted"),
                                    "mean of means": t("mean of means"), "bias": t("bias"),
                                    "gradient gap (mean)": t("gradient gap (mean)"),
                                    "gradient gap (tokens)": t("gradient gap (tokens)")})
        say(t("mean |bias| = {bias:.4g} nats; gradient gap of a 'mean' update: {gap:.3g} (tokens: {tokens_gap:.3g}, "
                "tolerance {tol:g})", bias=r.mean_abs_bias, gap=r.gradient_gap,
                tokens_gap=r.tokens_gap, tol=r.tolerance))
        library_says(r.verdict)
        fig, (ax, gx) = subplots(1, 2, figsize=(10, 2.8))
        x = [row["group"] for row in r.rows]
        ax.plot(x, [row["token-weighted"] for row in r.rows], "o-", label=t("token-weighted"))
        ax.plot(x, [row["mean of means"] for row in r.rows], "s--", label=t("mean of means"))
        ax.set_xlabel(t("held-out group"))
        ax.set_ylabel(t("group loss (nats)"))
        ax.set_title(t("the loss: a small bias"), fontsize=9)
        ax.legend(fontsize=8)
        width = 0.4
        gx.bar([v - width / 2 for v in x], [100 * row["gradient gap (mean)"] for row in r.rows], width,
               color="tab:orange", label=t("mean of means"))
        gx.bar([v + width / 2 for v in x], [100 * row["gradient gap (tokens)"] for row in r.rows], width,
               color="tab:blue", label=t("tokens"))
        gx.set_xlabel(t("held-out group"))
        gx.set_ylabel(t("gradient gap to the big batch (%)"))
        gx.set_title(t("the update: a large gap"), fontsize=9)
        gx.legend(fontsize=8)
        show_figure(fig, integer_x=True)


# ------------------------------------------------------------------ GA-4: steps vs mean, GA-6: optimizers
def steps_over_mean(microbatches_in_group: int, accumulation_steps: int, micro_batch: int = 2,
                    seed: int = 0) -> float:
    """‖g_steps‖ ÷ ‖g_mean‖ for one group of ``microbatches_in_group`` microbatches with the
    configured A = ``accumulation_steps`` (tiny-gpt, variable-length data, same weights).

    ``steps`` divides each microbatch mean by the configured A, ``mean`` by the microbatches
    actually in the group, so the ratio is exactly size/A: 1 on a full group (the two are the
    same computation), e.g. 3/4 on a short group of 3 with A = 4. Raises ``ValueError`` when the
    group is larger than A. Course: 03 §3 (GA-4).
    """
    if not 1 <= microbatches_in_group <= accumulation_steps:
        raise ValueError(f"a group holds 1…A = {accumulation_steps} microbatches, got {microbatches_in_group}")
    mbs = controlled_microbatches("tiny-gpt", micro_batch, microbatches_in_group, seed=seed)
    model = build_model("tiny-gpt", seed=seed)
    grads = {n: engine_gradient(copy.deepcopy(model), mbs, normalization=n, accumulation_steps=accumulation_steps)
             for n in ("steps", "mean")}
    return total_norm(grads["steps"]) / total_norm(grads["mean"])


OPTIMIZERS = {
    "SGD": lambda params, lr: torch.optim.SGD(params, lr=lr),
    "Adam": lambda params, lr: torch.optim.Adam(params, lr=lr),
    "AdamW": lambda params, lr: torch.optim.AdamW(params, lr=lr),
}


def scale_gradients_hook(factor: float) -> Callable[..., None]:
    """An optimizer step pre-hook that multiplies every gradient by ``factor`` (in place).
    Course: 03 §4, 05 §3."""

    def hook(optimizer: torch.optim.Optimizer, _args: Any, _kwargs: Any) -> None:
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.mul_(factor)

    return hook


def update_size_ratio(gradient_scale: float, optimizer: str = "SGD", updates: int = 3, lr: float = 1e-3,
                      seed: int = 0) -> float:
    """How much a constant factor on every gradient changes what an optimizer does.

    Trains two copies of tiny-gpt for ``updates`` updates on the same data (one group of 4
    microbatches of 2 per update, tokens normalization); before each step, one copy's gradients
    are multiplied by ``gradient_scale`` (e.g. 1/A for a double division, 1/65,536 for clipping
    before unscaling). Returns ‖θ_scaled − θ_0‖ ÷ ‖θ_ref − θ_0‖. SGD gives ``gradient_scale``
    exactly (the step is lr × gradient); Adam/AdamW give about 1, because each coordinate is
    divided by the root of its own running squared gradient, which carries the same factor —
    only ``eps`` (1e-8) breaks the cancellation when the scaled gradients get that small.
    Raises ``ValueError`` for an unknown optimizer or a scale that is not > 0.
    Course: 03 §4 (GA-6), 05 §3 (MB-5).
    """
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}; use one of {', '.join(OPTIMIZERS)}")
    if not gradient_scale > 0:
        raise ValueError(f"gradient_scale must be > 0, got {gradient_scale}")
    from gastudy.core.engine import Accumulator

    start = build_model("tiny-gpt", seed=seed)
    data = AdditionDataset(2 * 4 * updates, seed=seed)
    groups = list(make_groups(MicrobatchStream(data, 2, seed=seed).microbatches(), 4))
    moved = []
    for factor in (1.0, gradient_scale):
        model = copy.deepcopy(start)
        opt = OPTIMIZERS[optimizer](model.parameters(), lr)
        hook = opt.register_step_pre_hook(scale_gradients_hook(factor))
        engine = Accumulator(model, opt, accumulation_steps=4)
        for group in groups:
            engine.update(group)
        hook.remove()
        moved.append(float(torch.sqrt(sum(((p.detach() - q.detach()).double() ** 2).sum()
                                          for p, q in zip(model.parameters(), start.parameters())))))
    return moved[1] / moved[0]

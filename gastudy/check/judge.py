"""The verdict on one accumulated update: is it the big batch? (course: GA-4…GA-6, MB-3, MB-5, MB-10, MB-11)

Every gastudy checker — :func:`~gastudy.check.loop.check_loop` (your loop),
:func:`gastudy.hf.check_trainer` (your Trainer), :func:`~gastudy.check.verify.verify_one_update`
(the engine) and the D-process verifier — ends here, with the same three pieces:

1. **the gradient the update used**, before any clipping: what the optimizer consumed
   (:class:`~gastudy.check.trace.LoopTrace`), divided back by each norm clip's coefficient;
2. **the big batch** (:class:`~gastudy.check.reference.BigBatch`) in the precision the loop
   computed in, and its noise floor;
3. **one metric** — ‖g − g_big‖₂ ÷ ‖g_big‖₂ (:func:`~gastudy.check.reference.rel_error`) —
   against **one tolerance model** (:func:`tolerance`).

When they differ, :func:`explain` says what the gradient *is* instead (the big batch
rescaled — and by what —, the mean of microbatch means, only the last microbatch, a per-replica
mean), and :func:`judge` adds what the trace shows: clipping that ran per microbatch or before
``unscale_``, a skipped fp16 step, and the line of the loop that did it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from gastudy.check.objective import SAMPLES, TOKENS, Objective, sample_of_items
from gastudy.check.reference import (
    BASE_TOLERANCE,
    BigBatch,
    ComputePrecision,
    Forward,
    Reference,
    dot,
    mixes_samples,
    norm,
    precision_of,
    rel_error,
    unshifted_rows,
    unshifted_rows_each,
)
from gastudy.check.trace import Clip, LoopTrace
from gastudy.core.counting import target_labels

# A correct loop lands within this many noise floors of the big batch (measured: within 1).
FLOOR_FACTOR = 4.0
# A floor above this many base tolerances is not rounding: the model or the data make the big batch
# and its microbatches differ (BatchNorm, left padding, packed rows with a cache), and it is not used.
ROUNDING_CAP = 10.0


def floor_is_rounding(precision: ComputePrecision, floor: float | None) -> bool:
    """True when a measured ``floor`` is small enough to be rounding (≤ ``ROUNDING_CAP`` × the
    precision's base tolerance) and may widen the tolerance."""
    return floor is not None and math.isfinite(floor) and floor <= ROUNDING_CAP * precision.base_tolerance


def tolerance(precision: ComputePrecision, floor: float | None, given: float | None = None) -> float:
    """The largest accepted relative error: ``given`` if set, else ``max(FLOOR_FACTOR × floor,
    base)`` — the measured noise floor of this computation when it is rounding
    (:func:`floor_is_rounding`), and the base tolerance of its narrowest dtype
    (:data:`~gastudy.check.reference.BASE_TOLERANCE`: float64 1e-12, float32 1e-5, bf16 2e-2,
    fp16 3e-3). Raises ``ValueError`` for a given tolerance that is not a positive number."""
    if given is not None:
        if isinstance(given, bool) or not isinstance(given, (int, float)) or not math.isfinite(given) or given <= 0:
            raise ValueError(f"tolerance must be a positive relative error (a number such as 1e-5), got {given!r}")
        return float(given)
    measured = FLOOR_FACTOR * floor if floor_is_rounding(precision, floor) else 0.0
    return max(measured, precision.base_tolerance)


def scale_fit(g: torch.Tensor, ref: torch.Tensor) -> tuple[float, float]:
    """Fit ``g ≈ ref / k``: returns ``(k, residual)`` with k = ‖ref‖² ÷ ⟨ref, g⟩ and the relative
    residual ‖g − ref/k‖ ÷ ‖g‖ (0 for an exact rescaling; ``(inf, 1.0)`` when g ⟂ ref or g = 0)."""
    inner, g_norm, r_norm = dot(ref, g), norm(g), norm(ref)
    if inner <= 0 or g_norm == 0:
        return math.inf, 1.0
    s = inner / r_norm ** 2
    return 1.0 / s, norm(g, ref, s) / g_norm


def times(k: float) -> str:
    """``4.0`` → ``'4.00×'``, ``46967.2`` → ``'46,967×'``."""
    if abs(k - 1) < 0.01:
        return f"{k:.5f}×"
    return f"{k:,.0f}×" if k >= 100 else f"{k:.2f}×"


def name_rescaling(k: float, *, accumulation_steps: int, microbatches: int, items: int, unshifted_extra: int = 0,
                   replicas: int = 1, clipped_scaled: bool | None = None, unit: str = "items") -> tuple[str, str, str]:
    """What a gradient that is the big batch ÷ k means, and what to change: ``(symptom, what,
    fix)`` — the symptom is ``"constant divisor"`` for a short group divided by the full A,
    ``"double division"`` for another k > 1, ``"missing division"`` for k < 1.

    In this order: k ≈ the group's microbatches (a normalized loss divided again by A); k·N ≈
    N + ``unshifted_extra`` (causal labels counted without the shift: one extra item per row
    whose first label is supervised); k ≈ ``replicas`` (DDP's mean over replicas not
    cancelled); 1/k ≈ the microbatches (per-microbatch means summed, not averaged); k × the
    microbatches ≈ a whole number A′ above them (a constant ÷ A′ on a short group); another
    k > 1 (an extra division: the implied denominator — and the fp16 clip that shrinks by the
    scale, unless ``clipped_scaled`` is False: the loop did not clip under a ``GradScaler``;
    ``None`` = not known); k < 1 (a division missing). ``unit`` names what N counts (``items`` or ``samples``).
    """
    A, size, N, D = accumulation_steps, microbatches, items, replicas
    head = (f"the gradient is {times(k)} smaller than the big-batch gradient" if k > 1
            else f"the gradient is {times(1 / k)} larger than the big-batch gradient")
    if size >= 2 and abs(k - size) <= 0.02 * size:
        what = (f"{head} (A = {A}{'' if size == A else f', {size} microbatches in this group'}): the loss was divided "
                "by the group's N (num_items) and then again by A")
        return "double division", what, ("divide once: drop the ÷ A, or declare the loss already scaled for accumulation "
                      "(loss_is_scaled_for_ga=True)")
    if unshifted_extra and abs(k * N - (N + unshifted_extra)) <= max(0.25, 0.002 * N):
        what = (f"{head}: the denominator is {k * N:.0f} items instead of N = {N} — {unshifted_extra} extra, one per "
                "row whose first label is supervised")
        return "double division", what, "count causal labels after the shift (labels[..., 1:] != -100)"
    if D >= 2 and abs(k - D) <= 0.02 * D:
        what = (f"{head} (= D, the {D} replicas): DDP averages the gradients over the replicas, and the loss was "
                "already divided by the global N")
        return "double division", what, f"multiply the loss by D = {D} (or divide each rank's summed loss by N / D) to cancel DDP's mean"
    if size >= 2 and abs(1 / k - size) <= 0.02 * size:
        what = (f"{head} (= the {size} microbatches): each microbatch's loss is normalized on its own and the "
                "contributions are added, not averaged")
        return "missing division", what, f"divide each microbatch's summed loss by the group's N = {N}"
    again = round(k) if k > 1.5 else 0
    if 4 * size >= again > size >= 1 and abs(k - again) <= 0.01 * again:
        what = (f"{head} (= {again}, more than the {size} microbatches of this group): the loss was divided by the "
                f"group's N and then again by a constant {again} — the configured A, on a short group")
        return "double division", what, "divide once: by the group's N alone (it already counts this group's microbatches)"
    constant = short_group_divisor(k, size)
    if constant:
        what = (f"{head} (= {constant}/{size}): each microbatch's loss was divided by a constant {constant} on a group "
                f"of {size} microbatches — a short last group divided by the full A — so the denominator is "
                f"{k * N:,.0f} {unit} instead of N = {N:,}")
        return "constant divisor", what, (f"divide by this group's own count: the {unit} of its {size} microbatches (N = {N:,}), or "
                      "len(microbatches) for a per-microbatch mean — not the configured A")
    if k > 1:
        fix = "remove the extra division"
        if clipped_scaled is not False:
            fix += (" (or, with fp16, clip only after scaler.unscale_: clipping scaled gradients shrinks them by the "
                    "scale)")
        return "double division", f"{head} (implied denominator {k * N:,.0f} instead of N = {N:,})", fix
    return "missing division", f"{head}", f"divide the summed loss by the group's N (a division is missing){_SUM_HINT}"


_SUM_HINT = "; if your objective is the plain sum of losses, say so: objective='sum'"


def short_group_divisor(k: float, microbatches: int) -> int | None:
    """The constant A′ a loop divided each microbatch's mean by when its gradient is the big
    batch ÷ k on a group of ``microbatches`` < A′ (a short last group divided by the full A):
    k·microbatches is a whole number above the microbatches and at most twice them (within 1 %).
    ``None`` otherwise."""
    if microbatches < 1 or not math.isfinite(k) or k <= 1:
        return None
    constant = round(k * microbatches)
    if constant <= microbatches or constant > 2 * microbatches:
        return None
    return constant if abs(k * microbatches - constant) <= 0.01 * constant else None


@dataclass
class Explanation:
    """What :func:`explain` found: ``symptom`` (``None`` = the big batch), ``normalization``
    (``"tokens"``, ``"steps"``, ``"sum of means"``, ``"last microbatch"``, ``"per replica"``
    or ``None``), ``what`` the gradient is, the ``fix``, and the numbers (``evidence``)."""

    symptom: str | None
    normalization: str | None
    what: str
    fix: str
    evidence: dict[str, Any] = field(default_factory=dict)


def explain(got: torch.Tensor, big: torch.Tensor, *, items: Sequence[int], accumulation_steps: int, tol: float,
            contributions: Callable[[Sequence[Sequence[float]]], list[torch.Tensor]] | None = None,
            unshifted_extra: int = 0, replicas: Sequence[int] | None = None,
            unshifted_each: Sequence[int] | None = None, clipped_scaled: bool = False,
            objective: Objective = TOKENS) -> Explanation:
    """Name what the gradient ``got`` is, given the big batch ``big`` (THE explainer).

    ``items[i]`` is microbatch i's supervised items (N = their sum); ``contributions(weights)``
    returns ``Σᵢ wᵢ·cᵢ`` for each weight list (cᵢ: microbatch i's summed loss ÷ N; see
    :meth:`~gastudy.check.reference.Reference.contributions`) and is only called when the
    gradient is not a plain rescaling. ``replicas[i]`` is the rank microbatch i ran on (D-process
    checks). Checked in this order, each "equal" meaning a relative error ≤ ``tol``:

    - ``tokens``: the big batch → ``symptom None``;
    - a uniform rescaling big/k (fit residual ≤ ``tol``, |k − 1| > ``tol``) → ``"double
      division"`` (k > 1) or ``"missing division"`` (k < 1), named by :func:`name_rescaling`;
    - ``steps``: Σ cᵢ·N/(itemsᵢ·A), the mean of microbatch means ÷ A → ``"partition dependence"``;
    - ``sum of means``: the same without ÷ A;
    - ``per replica``: each rank's tokens normalized by its own count, averaged over ranks;
    - ``unshifted counts``: each microbatch's token mean weighted by its count WITHOUT the causal
      shift (``unshifted_each[i]`` extra items; torchtune ≤ 0.6 on plain text);
    - ``last microbatch``: proportional to the last cᵢ alone → ``"ineffective accumulation"``;
    - else ``"wrong gradient"``.

    For an ``objective`` other than the token mean, ``items`` are each microbatch's part of its
    normalizer (:meth:`~gastudy.check.objective.Objective.mass`: samples for the per-sample
    mean), the ``steps`` weights are built from them, and the token-only findings (the causal
    shift, the per-replica count) are not looked for. ``clipped_scaled``: the loop clipped
    while a ``GradScaler`` took part (the fp16 clip hint then fits).
    """
    A, N, size = accumulation_steps, sum(items), len(items)
    tokens = objective.name == "tokens"
    if not tokens:
        unshifted_extra, unshifted_each, replicas = 0, None, None
    D = len(set(replicas)) if replicas else 1
    rel = rel_error(got, big)
    k, residual = scale_fit(got, big)
    evidence: dict[str, Any] = {"rel_vs_tokens": rel, "k": k, "residual": residual, "items": list(items),
                                "accumulation_steps": A, "denominator": N}
    if rel <= tol:
        return Explanation(None, "tokens", "the gradient equals the big-batch gradient (sum of losses ÷ N)",
                           "nothing to change", evidence)
    if math.isfinite(k) and residual <= tol and abs(k - 1) > tol:
        symptom, what, fix = name_rescaling(k, accumulation_steps=A, microbatches=size, items=N,
                                            unshifted_extra=unshifted_extra, replicas=D, clipped_scaled=clipped_scaled,
                                            unit="items" if tokens or objective.yours else objective.name)
        evidence["implied_denominator"] = k * N
        if symptom == "constant divisor":
            evidence["constant_divisor"] = short_group_divisor(k, size)
        return Explanation(symptom, None, what, fix, evidence)
    if contributions is None:
        return _unexplained(rel, residual, evidence)
    weights: list[list[float]] = [[N / (n * A) if n else 0.0 for n in items], [0.0] * (size - 1) + [1.0]]
    if objective.yours:  # cᵢ is already microbatch i's loss ÷ A: the mean of microbatch losses is Σ cᵢ
        weights[0] = [1.0] * size
    if D >= 2:
        per_rank = {r: sum(n for n, q in zip(items, replicas) if q == r) for r in set(replicas)}
        weights.append([N / (D * per_rank[q]) if per_rank[q] else 0.0 for q in replicas])
    unshifted = unshifted_each is not None and any(unshifted_each)
    if unshifted:
        R = sum(unshifted_each)
        weights.append([N * (n + r) / (n * (N + R)) if n else 0.0 for n, r in zip(items, unshifted_each)])
    combos = contributions(weights)
    steps, last = combos[0], combos[1]
    evidence["rel_vs_steps"] = rel_error(got, steps)
    varied = rel_error(steps, big) > tol  # the mean of microbatch means is another update here
    if evidence["rel_vs_steps"] <= tol and varied:
        divisor = f"A = {A}" if D < 2 else f"A·D = {A // D}·{D} (÷ A on each replica, DDP's mean over the {D})"
        if tokens:
            what = (f"the gradient is the mean of the {size} microbatch means ÷ {divisor} (normalization 'steps'), not "
                    f"the sum of losses ÷ N = {N}: with supervised counts {list(items)} a short microbatch weighs as "
                    "much as a long one, so the update depends on how the samples are split")
            fix = ("divide each microbatch's summed loss by the group's N (sum the per-item losses, count the "
                   "supervised items of the whole group)")
        else:
            what = (f"the gradient is the mean of the {size} microbatch losses ÷ A = {A} (normalization 'steps'), not "
                    f"{objective.describe()}: "
                    + (f"with {list(items)} samples per microbatch a small microbatch weighs as much as a large one"
                       if not objective.yours else "a microbatch's mean is not its share of the whole group's")
                    + ", so the update depends on how the samples are split")
            fix = (f"weigh each microbatch by its part of the whole group: its {objective.name} ÷ the group's "
                   f"{N}, not 1/A" if not objective.yours else
                   "compute each microbatch's share of the group's objective (its part of the group's normalizer), "
                   "not its own mean ÷ A")
        return Explanation("partition dependence", "steps", what, fix, evidence)
    sk, sres = scale_fit(got, steps)
    constant = short_group_divisor(sk, size) if varied and sres <= tol else None
    if constant and tokens:
        what = (f"the gradient is the mean of the {size} microbatch means ÷ a constant {constant}, on a group of {size} "
                f"microbatches (a short last group divided by the full A): with supervised counts {list(items)} a "
                f"short microbatch weighs as much as a long one, and the group weighs {size}/{constant} of a full one")
        evidence["constant_divisor"] = constant
        return Explanation("partition dependence", "steps", what, "divide each microbatch's summed loss by this "
                           f"group's N = {N} (it counts the microbatches the group really has)", evidence)
    if varied and sres <= tol and abs(sk * A - 1) <= max(tol, 1e-3):
        what = (f"the gradient is the SUM of the {size} microbatch means ({A}× the 'steps' normalization): a "
                "per-microbatch mean loss is treated as already scaled for accumulation")
        return Explanation("partition dependence", "sum of means", what,
                           f"divide each microbatch's summed loss by the group's N = {N}", evidence)
    if D >= 2:
        evidence["rel_vs_per_replica"] = rel_error(got, combos[2])
        if evidence["rel_vs_per_replica"] <= tol:
            what = (f"the gradient is the mean over the {D} replicas of each replica's own token mean: every replica "
                    "divides by its own supervised items, so a replica with few tokens weighs as much as one with many")
            return Explanation("partition dependence", "per replica", what,
                               "all-reduce the count of supervised items over the replicas and divide each rank's "
                               f"summed loss by the global N (× D = {D} to cancel DDP's mean)", evidence)
    if unshifted:
        evidence["rel_vs_unshifted_counts"] = rel_error(got, combos[-1])
        if evidence["rel_vs_unshifted_counts"] <= tol:
            what = ("the gradient weights each microbatch's token mean by its count of labels WITHOUT the causal shift "
                    f"(one extra item per row whose first label is supervised, {sum(unshifted_each)} here) and "
                    "divides by that count's total")
            return Explanation("partition dependence", "unshifted counts", what,
                               "count causal labels after the shift (labels[..., 1:] != -100) — for the weights "
                               "and the denominator", evidence)
    lk, lres = scale_fit(got, last)
    evidence["last_microbatch_residual"] = lres
    if size > 1 and lres <= tol:
        what = (f"only the last of the {size} microbatches reached the step (the gradient is proportional to its "
                f"contribution, residual {lres:.1e}): the earlier ones were zeroed")
        return Explanation("ineffective accumulation", "last microbatch", what,
                           "zero the gradients once per update, after optimizer.step(), not per microbatch", evidence)
    return _unexplained(rel, residual, evidence)


def _unexplained(rel: float, residual: float, evidence: dict[str, Any]) -> Explanation:
    what = (f"the gradient differs from the big-batch gradient by {100 * rel:.3g}% and is not a rescaling of it "
            f"(residual {residual:.2e}) nor the mean of microbatch means")
    return Explanation("wrong gradient", None, what,
                       "compare your loss with the sum of per-item losses ÷ the group's supervised items", evidence)


# --------------------------------------------------------------------------- clipping
@dataclass
class ClipSummary:
    """What the loop's clipping did: ``calls`` (the :class:`~gastudy.check.trace.Clip` records),
    ``fired``, the total norm ``before`` and the step gradient's norm ``after``, and
    ``problem`` (``None``, ``"per microbatch"`` or ``"before unscale"``)."""

    calls: list[Clip]
    before: float | None
    after: float | None
    problem: str | None = None
    inferred: bool = False  # no clipping call was seen: a rescale after the last backward to a round norm

    @property
    def fired(self) -> bool:
        return any(c.fired for c in self.calls)

    def describe(self) -> str:
        c = self.calls[-1]
        if self.inferred:
            return (f"a clip gastudy does not watch (not torch.nn.utils') fired: norm {self.before:.4f} → "
                    f"{self.after:.4f} between the last backward and the step (max_norm ≈ {c.max_norm:g})")
        name = "clip_grad_norm_" if c.kind == "norm" else "clip_grad_value_"
        if c.kind == "value":
            return f"{name}({c.max_norm:g}) clamped every gradient entry to ±{c.max_norm:g}"
        if not self.fired:
            return f"{name}(max_norm={c.max_norm:g}) did not fire (norm {self.before:.4g} ≤ {c.max_norm:g})"
        return f"{name}(max_norm={c.max_norm:g}) fired: norm {self.before:.4f} → {self.after:.4f}"

    def to_dict(self) -> dict[str, Any]:
        return {"calls": len(self.calls), "fired": self.fired, "inferred": self.inferred, "norm_before": self.before, "norm_after": self.after,
                "max_norm": self.calls[-1].max_norm, "kind": self.calls[-1].kind, "problem": self.problem,
                "where": self.calls[-1].where}


def unclip(got: torch.Tensor, clips: Sequence[Clip], names: Sequence[tuple[str, int]]) -> torch.Tensor:
    """The gradient before the norm clips ``clips`` multiplied it: each parameter's slice of
    ``got`` divided by the product of the coefficients of the clips that touched it."""
    if not any(c.kind == "norm" and c.coefficient < 1.0 for c in clips):
        return got
    out, start = got.clone(), 0
    for name, numel in names:
        coef = math.prod(c.coefficient for c in clips if c.kind == "norm" and name in c.parameters)
        if coef != 1.0:
            out[start:start + numel] /= coef
        start += numel
    return out


def clamp_like(ref: torch.Tensor, clips: Sequence[Clip], names: Sequence[tuple[str, int]]) -> torch.Tensor:
    """``ref`` with each value clip applied to the parameters it touched (what a correct loop
    that clips by value hands the optimizer)."""
    out, start = ref.clone(), 0
    for name, numel in names:
        for c in clips:
            if c.kind == "value" and name in c.parameters:
                out[start:start + numel].clamp_(-c.max_norm, c.max_norm)
        start += numel
    return out


def _round(x: float) -> float | None:
    """``x`` as a number of two significant digits (0.1, 1.0, 5.0, 0.25) when it is one within
    1e-4 relative (what a norm clip leaves: max_norm · norm ÷ (norm + 1e-6)); else ``None``."""
    if not (x > 0 and math.isfinite(x)):
        return None
    scale = 10 ** math.floor(math.log10(x))
    value = round(x / scale, 1) * scale
    return value if abs(x - value) <= 1e-4 * value else None


# --------------------------------------------------------------------------- the verdict
@dataclass
class Judgement:
    """The kernel's verdict on one update (what every checker's report is built from).

    ``passed``: the update's gradient (before clipping) is the big batch within ``tolerance``,
    one optimizer step, and nothing in the trace is wrong. ``symptom``/``normalization``: see
    :func:`explain`, plus ``"clipping per microbatch"``, ``"clipping before unscale"``,
    ``"clipping after the step"``,
    ``"ineffective accumulation"`` (no step, several steps) and ``"non-finite gradient"`` (a
    skipped fp16 step among them). ``what``/``fix``/``where``: the sentence halves and the
    line of the loop to look at. ``rel_error``: the metric (``None`` without a step),
    ``floor``: the measured noise floor (``None`` when not measured: a first comparison within
    the base tolerance needs none), ``precision``: what it was judged by. ``objective``: what
    the big batch minimized (:class:`~gastudy.check.objective.Objective`), ``objective_inferred``:
    read from the gradient rather than declared; ``alternative``: the verdict against the token
    mean when a per-sample mean was inferred where the mean of microbatch means gives the same
    update (``objective_ambiguous``: only another split of the samples tells them apart).
    """

    passed: bool
    symptom: str | None
    normalization: str | None
    what: str
    fix: str
    where: str | None
    rel_error: float | None
    clip: ClipSummary | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    where_label: str = "at"
    tolerance: float = field(kw_only=True)
    floor: float | None = field(kw_only=True)
    precision: ComputePrecision = field(kw_only=True)
    optimizer_steps: int = field(kw_only=True)
    objective: Objective = field(default=TOKENS, kw_only=True)
    objective_inferred: bool = field(default=False, kw_only=True)
    objective_ambiguous: bool = field(default=False, kw_only=True)
    alternative: Judgement | None = field(default=None, kw_only=True, repr=False)

    @property
    def message(self) -> str:
        """"what — fix" (and "at FILE:LINE" when the line is known)."""
        text = self.what if self.symptom is None else f"{self.what} — {self.fix}"
        return text + (f" ({self.where_label} {self.where})" if self.where and self.symptom is not None else "")

    def within(self) -> str:
        """"within bf16 autocast rounding: rel 3.0e-03, floor 4.1e-04, tolerance 2.0e-02"."""
        if self.rel_error is None:
            return "no optimizer step to judge"
        floor = "not measured" if self.floor is None else f"{self.floor:.1e}"
        if self.floor is None and self.evidence.get("floor_needed") is False:
            floor = "not needed"
        verb = "within" if self.rel_error <= self.tolerance else "beyond"
        return (f"{verb} {self.precision.label} rounding: rel {self.rel_error:.1e}, floor {floor}, "
                f"tolerance {self.tolerance:.1e}")


def judge(trace: LoopTrace, big: BigBatch, *, names: Sequence[tuple[str, int]], items: Sequence[int],
          accumulation_steps: int, tolerance_given: float | None = None,
          contributions: Callable[[Sequence[Sequence[float]]], list[torch.Tensor]] | None = None,
          unshifted_extra: int = 0, replicas: Sequence[int] | None = None, mixing: Sequence[str] = (),
          step_gradient: torch.Tensor | None = None, unshifted_each: Sequence[int] | None = None) -> Judgement:
    """Judge the update ``trace`` recorded against ``big`` (see the module docstring).

    ``names``: ``(parameter name, numel)`` in vector order; ``items``: supervised items per
    microbatch; ``mixing``: the modules that mix samples (:func:`~gastudy.check.reference.mixes_samples`:
    the floor is then not rounding and is not used, and an update that equals the microbatch-by-microbatch
    reference is named for the model, not the loop); ``step_gradient``: the gradient
    the optimizer consumed as a vector (default: the trace's first step, in the big batch's
    dtype). ``contributions``/``unshifted_extra``/``replicas`` as in :func:`explain`.
    """
    precision = big.precision
    floor = big.floor if not mixing else None
    tol = tolerance(precision, floor, tolerance_given)
    if floor is not None and not floor_is_rounding(precision, floor):
        floor = None  # not rounding: the model or the data, named below when the update fails
    A = accumulation_steps
    base = dict(tolerance=tol, floor=floor, precision=precision, optimizer_steps=len(trace.steps),
                objective=big.objective)
    evidence: dict[str, Any] = {"items": list(items), "precision": precision.to_dict(), "backwards": trace.backwards,
                                "floor": floor, "floor_factor": FLOOR_FACTOR, "base_tolerance": precision.base_tolerance,
                                "objective": big.objective.name}
    if not big.floor_measured:
        evidence["floor_needed"] = False
    skipped = trace.skipped_steps()
    if not trace.steps:
        if skipped:
            e = skipped[0]
            return Judgement(False, "non-finite gradient", None,
                             f"the GradScaler found inf/NaN in the scaled gradients (scale {e.detail['scale']:g}) and "
                             "skipped the optimizer step, so this update was not applied",
                             "nothing is wrong with the loop if this is rare; if every step is skipped, look for a "
                             "loss that overflows in fp16 (or use bf16)", e.where, None, None, evidence, **base)
        return Judgement(False, "ineffective accumulation", None,
                         f"the loop never called optimizer.step(): the gradient of the {len(items)} microbatches was "
                         "computed but never applied", "call optimizer.step() once, after the last microbatch's backward",
                         trace.backward_where[-1] if trace.backward_where else None, None, None, evidence, **base)
    if len(trace.steps) > 1:
        return Judgement(False, "ineffective accumulation", None,
                         f"the optimizer stepped {len(trace.steps)} times for {len(items)} microbatches",
                         "accumulation means ONE optimizer step per group: step (and zero the gradients) after the "
                         "last microbatch's backward only", trace.step_where[0], None, None, evidence, **base)
    got = step_gradient if step_gradient is not None else trace.steps[0].gradient.to(big.gradient.dtype)
    if not bool(torch.isfinite(got).all()):
        return Judgement(False, "non-finite gradient", None, "the gradient at the optimizer step contains inf or NaN",
                         "find the first non-finite loss (torch.autograd.set_detect_anomaly) or lower the learning "
                         "rate", trace.step_where[0], None, None, evidence, **base)
    step_backwards = trace.step_backward[0]
    late = [c for c in trace.clips if c.steps >= 1]  # after optimizer.step: they clipped gradients already used
    clips = [c for c in trace.clips if c.backward <= step_backwards and c.steps == 0]
    clip = None
    if clips:
        clip = ClipSummary(clips, next((c.norm for c in clips if c.norm is not None), None), norm(got))
        evidence["clip"] = clip.to_dict()
    if late:
        c = late[0]
        evidence["late_clip"] = {"max_norm": c.max_norm, "norm": c.norm, "where": c.where}
        what = (f"{'clip_grad_norm_' if c.kind == 'norm' else 'clip_grad_value_'}(max_norm={c.max_norm:g}) ran after "
                "optimizer.step(): the step had already used the unclipped gradients, so the clip never limits an "
                "update" + (f" (the norm it measured, {c.norm:.4g}, was " + ("above" if c.fired else "below")
                            + " the limit this time)" if c.norm is not None else ""))
        return Judgement(False, "clipping after the step", None, what,
                         "clip after the last backward (after scaler.unscale_) and before optimizer.step()", c.where,
                         rel_error(got, big.gradient), None, evidence, **base)
    pre = unclip(got, clips, names)
    ref = clamp_like(big.gradient, clips, names) if any(c.kind == "value" for c in clips) else big.gradient
    rel = rel_error(pre, ref)
    evidence["rel_error"] = rel
    if clip is not None:
        early = [c for c in clips if c.backward < step_backwards]
        if early or len([c for c in clips if c.kind == "norm"]) > 1:
            clip.problem = "per microbatch"
            c = early[0] if early else clips[0]
            what = (f"{'clip_grad_norm_' if c.kind == 'norm' else 'clip_grad_value_'} ran {len(clips)} times in one "
                    f"update, the first after backward {c.backward} of {step_backwards}: it clipped partial sums of "
                    "the gradient, not the accumulated one" + ("" if clip.fired else
                                                              " (it did not fire this time, so the gradient is right "
                                                              "here, but it will be wrong whenever it fires)"))
            return Judgement(False, "clipping per microbatch", None, what,
                             "clip once per update, after the last microbatch's backward (after scaler.unscale_), "
                             "just before the optimizer step", c.where, rel, clip, evidence, **base)
        scaled = [c for c in clips if c.scaled]
        if scaled:
            c = scaled[0]
            clip.problem = "before unscale"
            what = (f"the gradients were clipped while the GradScaler still held them scaled (norm {c.norm:.4g} "
                    f"measured on scaled gradients, max_norm {c.max_norm:g}): the real threshold is max_norm ÷ scale")
            return Judgement(False, "clipping before unscale", None, what,
                             "call scaler.unscale_(optimizer) before clipping", c.where, rel, clip, evidence,
                             **base)
    k, residual = scale_fit(pre, ref) if rel > tol else (1.0, 0.0)  # the fit only matters beyond the tolerance
    rescaled = math.isfinite(k) and residual <= tol
    if rel > tol and rescaled and not clips and k > 1 and not precision.scaler and trace.backward_norms:
        after = norm(got)
        if after < trace.backward_norms[-1] * (1 - 1e-6) and _round(after):
            # shrunk after the last backward to a round norm: a clip by a function not watched (fairseq's, apex's…)
            clip = ClipSummary([Clip("norm", _round(after), 2.0, k * after, frozenset(n for n, _ in names),
                                     step_backwards, False, trace.step_where[0])], k * after, after, inferred=True)
            evidence["clip"] = clip.to_dict()
            pre, rel = got * k, rel_error(got * k, ref)
            evidence["rel_error"] = rel
    if rel > tol and rescaled and abs(k - 1) <= BASE_TOLERANCE[torch.float32] and not (
            unshifted_extra and abs(k * sum(items) - (sum(items) + unshifted_extra)) <= max(0.25, 0.002 * sum(items))):
        what = (f"one optimizer step with the big-batch gradient times {1 / k:.9f}: a uniform factor that differs "
                f"from 1 by {abs(1 / k - 1):.1e}, the rounding of a scale factor held in float32 (relative error "
                f"{rel:.1e}, beyond {precision.label} rounding only through it)")
        evidence["scale_factor_rounding"] = 1 / k
        return Judgement(True, None, "tokens", what, "nothing to change", None, rel, clip, evidence, **base)
    if rel <= tol:
        of = "" if big.objective.name == "tokens" else f" of {big.objective.describe()}"
        what = (f"one optimizer step with the big-batch gradient{of} ({'before clipping; ' if clip else ''}"
                f"relative error {rel:.1e} ≤ {tol:.0e}, {precision.label})")
        return Judgement(True, None, big.objective.name, what, "nothing to change", None, rel, clip, evidence, **base)
    if big.joined and big.accumulated is not None and rel_error(pre, big.accumulated) <= tol:
        evidence["rel_vs_microbatches"] = rel_error(pre, big.accumulated)
        what = (f"the loop adds the microbatches' gradients correctly (relative error "
                f"{evidence['rel_vs_microbatches']:.1e} against the same microbatches one by one), but ")
        if mixing:
            what += (f"the model's {', '.join(mixing[:3])}{', …' if len(mixing) > 3 else ''} normalize each "
                     f"microbatch with its own statistics, so no accumulation reproduces the big batch "
                     f"(relative gap {rel:.1e})")
            fix = "use LayerNorm or GroupNorm, or accept the gap and keep m fixed between experiments"
        else:
            what += (f"the model computes a sample differently in a microbatch than in the big batch (relative gap "
                     f"{rel:.1e}, beyond {precision.label} rounding)")
            fix = ("look at what depends on the other samples of a microbatch: padding on the left, packed rows that "
                   "attend across their boundaries, a sample-mixing layer")
        return Judgement(False, "partition dependence", "tokens", what, fix, None, rel, clip, evidence, **base)
    found = explain(pre, ref, items=items, accumulation_steps=A, tol=tol, contributions=contributions,
                    unshifted_extra=unshifted_extra, replicas=replicas, unshifted_each=unshifted_each,
                    clipped_scaled=precision.scaler and bool(clips), objective=big.objective)
    evidence["explained"] = found.evidence
    where, label = None, "at"
    if found.normalization == "last microbatch":
        zeroing = [e for e in trace.of("zero_grad") if 0 < e.backward < step_backwards]
        where = zeroing[0].where if zeroing else None
    elif trace.backward_where:
        where, label = trace.backward_where[-1], "look at the loss that reaches the backward at"
    symptom = found.symptom or "wrong gradient"
    return Judgement(False, symptom, found.normalization, found.what, found.fix, where, rel, clip, evidence, label,
                     **base)


def judge_update(trace: LoopTrace, model: torch.nn.Module, group: Any, *, forward: Forward | None = None,
                 tolerance_given: float | None = None, replicas: Sequence[int] | None = None,
                 step_gradient: torch.Tensor | None = None, strict: bool = False,
                 per_forward: int | None = None, objective: Objective | None = TOKENS,
                 floor: bool = True) -> tuple[Judgement, Reference, BigBatch]:
    """The whole kernel in one call: the big batch of ``group`` on ``model`` (a copy the
    reference may overwrite the gradients of) in the precision ``trace`` saw, then :func:`judge`.
    Returns the judgement, the :class:`~gastudy.check.reference.Reference` (for further
    contributions) and the :class:`~gastudy.check.reference.BigBatch`. ``strict``: microbatches
    that cannot be joined into one big batch raise ``ValueError`` instead of being summed;
    ``per_forward``: microbatches joined per forward of the big batch (default all, see
    :meth:`~gastudy.check.reference.Reference.big_batch`).

    ``objective``: what the big batch minimizes (:class:`~gastudy.check.objective.Objective`;
    default the token mean). ``None`` infers it: the token mean first; when the update is not
    that but is the per-sample mean of the group within tolerance, the verdict is that one
    (``objective_inferred``; ``objective_ambiguous`` with the token verdict as ``alternative``
    when the mean of microbatch means gives the same update, one sample per microbatch). A
    declared objective the update does not match, where the update is another built-in one,
    fails as ``"objective mismatch"``.

    ``floor``: measure the noise floor always (True), or only when the first comparison is
    beyond the base tolerance (False: a right update then costs one big batch, not two).
    """
    precision = precision_of(model, trace)
    names = [(n, p.numel()) for n, p in model.named_parameters()]

    def judged(goal: Objective) -> tuple[Judgement, Reference, BigBatch]:
        reference = Reference(model, group, precision, forward=forward, per_forward=per_forward, objective=goal)
        big = reference.big_batch(strict, floor=floor)
        tokens = goal.name == "tokens"

        def verdict_on(big: BigBatch) -> Judgement:
            return judge(trace, big, names=names, items=group.items if tokens else reference.masses(),
                         accumulation_steps=group.size, tolerance_given=tolerance_given,
                         contributions=reference.contributions, unshifted_extra=unshifted_rows(group) if tokens else 0,
                         replicas=replicas, mixing=mixes_samples(model), step_gradient=step_gradient,
                         unshifted_each=unshifted_rows_each(group) if tokens else None)

        verdict = verdict_on(big)
        if not verdict.passed and verdict.rel_error is not None and not big.floor_measured:
            big = reference.with_floor(big)  # beyond the base tolerance: the floor may widen it, and names more
            verdict = verdict_on(big)
        return verdict, reference, big

    verdict, reference, big = judged(objective or TOKENS)
    if verdict.passed or verdict.rel_error is None or verdict.symptom not in ("wrong gradient", "partition dependence"):
        return verdict, reference, big
    others = [SAMPLES] if objective is None else [o for o in (TOKENS, SAMPLES) if o.name != objective.name]
    named: tuple[Judgement, Reference, BigBatch] | None = None
    for other in others:
        if not _differs(other, objective or TOKENS, group):
            continue
        found, other_reference, other_big = judged(other)
        if not found.passed:
            if found.symptom not in ("wrong gradient", None) and other.name == "tokens" and named is None:
                named = (found, other_reference, other_big)  # what the update is, said against the token mean
            continue
        if objective is None:  # the loop's objective, read from its gradient
            found.objective_inferred = True
            found.objective_ambiguous = verdict.normalization == "steps"
            found.alternative = verdict
            found.evidence["rel_vs_tokens"] = verdict.rel_error
            return found, other_reference, other_big
        what = (f"the gradient is the big batch of {other.describe(group.samples)} (relative error "
                f"{found.rel_error:.1e}), not {objective.describe(group.samples)}, the objective you declared: the "
                "loop accumulates its own objective exactly, but it is not the one declared")
        fix = (f"if {other.name} is what you mean to minimize, declare objective={other.name!r}; otherwise change the "
               "loss: " + ("the sum of per-item losses ÷ the group's supervised items" if objective.name == "tokens"
                           else f"{objective.describe(group.samples)}"))
        mismatch = Judgement(False, "objective mismatch", other.name, what, fix, verdict.where, verdict.rel_error,
                             verdict.clip, {**verdict.evidence, "matches_objective": other.name,
                                            "rel_vs_matching": found.rel_error}, verdict.where_label,
                             tolerance=verdict.tolerance, floor=verdict.floor, precision=verdict.precision,
                             optimizer_steps=verdict.optimizer_steps, objective=objective)
        return mismatch, reference, big
    if named is not None and verdict.symptom == "wrong gradient":
        found = named[0]
        found.evidence["declared_objective"] = objective.name if objective else None
        found.what = (f"against {objective.describe(group.samples) if objective else 'the declared objective'} the "
                      f"gradient is no known mistake, but against the token mean it is: {found.what}")
        return named
    return verdict, reference, big


def _differs(one: Objective, other: Objective, group: Any) -> bool:
    """Whether two built-in objectives weigh this group's items differently (the per-sample mean
    is the token mean when every sample has as many supervised items as every other)."""
    names = {one.name, other.name}
    if names != {"tokens", "samples"}:
        return not (one.yours or other.yours)
    per_sample = []
    for mb in group.microbatches:
        supervised = target_labels(mb, group.task) != -100
        per_sample += torch.bincount(sample_of_items(mb, group.task)[supervised]).tolist()
    return len({n for n in per_sample if n}) > 1


__all__ = ["FLOOR_FACTOR", "ROUNDING_CAP", "floor_is_rounding", "ClipSummary", "Explanation", "Judgement", "clamp_like", "explain", "judge",
           "judge_update", "name_rescaling", "scale_fit", "times", "tolerance", "unclip"]

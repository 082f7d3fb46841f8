"""Detectors for the five classic accumulation symptoms (course: MB-11, also MB-1, MB-4, MB-6, GA-6).

Each detector takes an **update function** (:data:`UpdateFn`: it performs one optimizer
update from one group and returns the logged loss; the course's wrong loops are in
``gastudy.course.pitfalls``), runs it on deep copies of a
small :class:`Setup`, measures, and returns a :class:`Verdict`:

=============================  ===============================================================
detector                       what it measures
=============================  ===============================================================
``diagnose_double_division``   gradient at ``optimizer.step`` vs the big-batch gradient: a
                               uniform rescaling by k (k ≈ A: divided twice)
``diagnose_partition_dependence``  the same samples split into different (m, A): do the
                               gradients at the step differ?
``diagnose_ineffective_accumulation``  no step / only the last microbatch's gradient / the
                               previous group's gradient leaking into the next update
``diagnose_memory_growth``     bytes kept alive (saved-for-backward + model outputs) at the
                               start of each microbatch: do they grow with its index?
``diagnose_schedule_drift``    scheduler steps vs applied optimizer updates over n groups
=============================  ===============================================================

Gradients are captured with an optimizer step pre-hook, i.e. exactly what the optimizer
consumes (unscaled and clipped when the loop does so). A :class:`Setup` is the world they run
in: a model and its samples (``check_loop`` builds one from your own microbatches; the course's,
``gastudy.course.clinic.default_setup``, is a small float64 TinyGPT on variable-length additions).
"""

from __future__ import annotations

import copy
import math
import warnings
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from gastudy.check.judge import name_rescaling, scale_fit, tolerance
from gastudy.check.reference import precision_of, unshifted_rows
from gastudy.check.reference import rel_error as rel_diff
from gastudy.check.steps import StepRecord, current_gradient, flat, record_steps
from gastudy.check.verify import reference_gradients
from gastudy.core.counting import check_task
from gastudy.core.data import COLLATORS, Sample, concat_microbatches, split_batch
from gastudy.core.engine import model_inputs
from gastudy.core.groups import Group, build_group
from gastudy.core.loss import logits_of, summed_loss
from gastudy.memory.saved import format_bytes, storage_key

# An update function: ONE optimizer update from one group, returning the logged loss (nats).
UpdateFn = Callable[[nn.Module, torch.optim.Optimizer, Any, Group], float]

# ---------------------------------------------------------------------------------------------
# Verdicts and the setup
# ---------------------------------------------------------------------------------------------


@dataclass
class Verdict:
    """A detector's answer: ``fired`` (the symptom is present), a readable ``message`` and the
    measured ``evidence`` (plain numbers and lists, JSON-ready)."""

    symptom: str
    fired: bool
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        # ⚠ a finding (the symptom is there), not ✗ a failed check: a detector that fires on a
        # deliberately wrong loop is doing its job.
        return f"{'⚠' if self.fired else '✓'} {self.symptom}: {self.message}"


def default_optimizer(model: nn.Module) -> torch.optim.Optimizer:
    """Plain SGD, lr 0.1: every applied update changes the parameters."""
    return torch.optim.SGD(model.parameters(), lr=0.1)


def default_scheduler(optimizer: torch.optim.Optimizer) -> Any:
    """``LambdaLR`` with lr × 1/(1 + updates): each step visibly changes the learning rate.

    """
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (1 + step))


@dataclass
class Setup:
    """A small, reproducible world for the detectors.

    Args:
        model: the template; every run uses a deep copy (the template is never trained).
        samples: individual samples (dicts as datasets yield them); group ``i`` uses samples
            ``i·m·A … (i+1)·m·A - 1``.
        micro_batch, accumulation_steps: m and A of the default partition.
        task: how supervised items are counted (``causal``, ``masked``, ``classification``).
        collate: ``"padded"`` or ``"packed"``.
        make_optimizer / make_scheduler: factories called for every fresh copy.
        tolerance: relative tolerance for "equal gradients"; default the kernel's base
            tolerance of the model's dtype (:func:`gastudy.check.judge.tolerance`).

    """

    model: nn.Module
    samples: Sequence[Sample]
    micro_batch: int = 2
    accumulation_steps: int = 4
    task: str = "causal"
    collate: str = "padded"
    make_optimizer: Callable[[nn.Module], torch.optim.Optimizer] = default_optimizer
    make_scheduler: Callable[[torch.optim.Optimizer], Any] | None = default_scheduler
    tolerance: float | None = None

    def __post_init__(self) -> None:
        check_task(self.task)
        if self.collate not in COLLATORS:
            raise ValueError(f"unknown collate {self.collate!r}; use one of {sorted(COLLATORS)}")

    @property
    def tol(self) -> float:
        """The relative tolerance used to call two gradients equal."""
        return tolerance(precision_of(self.model), None, self.tolerance)

    def fresh(self) -> tuple[nn.Module, torch.optim.Optimizer, Any]:
        """A deep copy of the model (no gradients), its optimizer and scheduler (or None)."""
        model = copy.deepcopy(self.model)
        model.zero_grad(set_to_none=True)
        optimizer = self.make_optimizer(model)
        scheduler = self.make_scheduler(optimizer) if self.make_scheduler is not None else None
        return model, optimizer, scheduler

    def group(self, index: int = 0, microbatches: int | None = None) -> Group:
        """Group ``index``: A microbatches of m samples (samples ``i·m·A`` onwards).

        ``microbatches`` < A keeps only the first few — a short last group with the configured
        A. Raises ``ValueError`` when the setup holds too few samples.
        """
        m, A = self.micro_batch, self.accumulation_steps
        k = A if microbatches is None else microbatches
        start = index * m * A
        if start + k * m > len(self.samples):
            raise ValueError(f"group {index} needs samples {start}…{start + k * m - 1} but the setup "
                             f"holds {len(self.samples)}; give Setup more samples")
        collate = COLLATORS[self.collate]
        mbs = [collate(list(self.samples[start + i * m: start + (i + 1) * m])) for i in range(k)]
        return build_group(index, mbs, A, self.task)


def regroup(group: Group, micro_batch: int, accumulation_steps: int, task: str = "causal") -> Group:
    """The same samples as ``group``, re-split into microbatches of ``micro_batch``.

    Uses :func:`split_batch` and the group's own collator (padded or packed). The new group has
    ``len(samples) / micro_batch`` microbatches and the configured ``accumulation_steps`` (a
    short group when that is larger). Raises ``ValueError`` if ``micro_batch`` does not divide
    the number of samples.

    """
    samples = [s for mb in group.microbatches for s in split_batch(mb)]
    if len(samples) % micro_batch:
        raise ValueError(f"micro_batch={micro_batch} does not divide the group's {len(samples)} samples")
    collate = COLLATORS["packed" if "position_ids" in group.microbatches[0] else "padded"]
    mbs = [collate(samples[i: i + micro_batch]) for i in range(0, len(samples), micro_batch)]
    return build_group(group.index, mbs, accumulation_steps, task)


# ---------------------------------------------------------------------------------------------
# Measuring helpers
# ---------------------------------------------------------------------------------------------


def reference_gradient(model: nn.Module, group: Group, task: str = "causal") -> torch.Tensor:
    """The big-batch gradient of ``group`` at ``model``'s parameters, as one float64 vector.

    One forward over :func:`concat_microbatches` of the group, summed loss ÷ supervised items,
    on a deep copy (``model`` is untouched).
    """
    ref_model = copy.deepcopy(model)
    return flat(reference_gradients(ref_model, group.microbatches, task), ref_model)


def _last_contribution(model: nn.Module, group: Group, task: str) -> torch.Tensor:
    """The last microbatch's share of the big batch (its summed loss ÷ the group's items), on a copy."""
    ref_model = copy.deepcopy(model)
    ref_model.zero_grad(set_to_none=True)
    mb = group.microbatches[-1]
    loss_sum, _ = summed_loss(ref_model(**model_inputs(mb, next(ref_model.parameters()).device)), mb, task)
    (loss_sum / group.supervised_items).backward()
    return current_gradient(ref_model)


def _gradient_at_step(update_fn: UpdateFn, setup: Setup, group: Group) -> tuple[list[StepRecord], float]:
    """Run one update on a fresh copy (torch's warnings silenced); its step records and logged loss."""
    model, optimizer, scheduler = setup.fresh()
    with record_steps(model, optimizer) as steps, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = update_fn(model, optimizer, scheduler, group)
    return steps, float(loss)


def _no_step(symptom: str, evidence: dict) -> Verdict:
    return Verdict(symptom, False, "no optimizer step happened, so there is no gradient to judge — "
                   "run diagnose_ineffective_accumulation", evidence)


# ---------------------------------------------------------------------------------------------
# 1. Double division
# ---------------------------------------------------------------------------------------------


def diagnose_double_division(update_fn: UpdateFn, setup: Setup, group: int = 0) -> Verdict:
    """Is the update's gradient a uniformly shrunk (or grown) big-batch gradient?

    Runs ``update_fn`` once on group ``group`` of ``setup``,
    captures the gradient at ``optimizer.step`` and fits it as ``reference / k``.

    Fires when the gradient is a uniform rescaling (fit residual ≤ 100 × tolerance) with
    ``|k − 1| > 1e-3``, or when it is not uniform but at least 1.5× too small in norm. The
    message names the likely cause: ``k ≈`` the group's microbatches (divided twice: a loss
    already ÷ num_items declared unscaled), ``k = (N + rows)/N`` (causal count without the
    shift), or something else (e.g. clipping fp16 gradients before ``unscale_``).

    Evidence: ``k``, ``residual``, ``norm_ratio``, ``loss_ratio`` (reference ÷ logged loss),
    ``accumulation_steps``, ``microbatches``, ``denominator`` and ``implied_denominator``.

    """
    symptom = "double division"
    g = setup.group(group)
    model, _, _ = setup.fresh()
    ref = reference_gradient(model, g, setup.task)
    big = concat_microbatches(g.microbatches)
    with torch.no_grad():
        big_loss, _ = summed_loss(model(**model_inputs(big, next(model.parameters()).device)), big, setup.task)
    ref_loss = float(big_loss) / g.supervised_items
    steps, loss = _gradient_at_step(update_fn, setup, g)
    N, A, size = g.supervised_items, g.accumulation_steps, g.size
    evidence: dict[str, Any] = {"accumulation_steps": A, "microbatches": size, "denominator": N,
                                "reference_loss": ref_loss, "logged_loss": loss,
                                "loss_ratio": ref_loss / loss if loss else math.inf}
    if not steps:
        return _no_step(symptom, evidence)
    got = steps[0].gradient
    k, residual = scale_fit(got, ref)
    norm_ratio = float(ref.norm() / got.norm()) if float(got.norm()) else math.inf
    uniform = residual <= setup.tol
    evidence.update(k=k, residual=residual, norm_ratio=norm_ratio, uniform=uniform,
                    implied_denominator=k * N if math.isfinite(k) else None)
    if uniform and abs(k - 1) <= setup.tol:
        return Verdict(symptom, False, f"the gradient matches the big-batch gradient in size "
                       f"(ratio {k:.6f}, A = {A})", evidence)
    if not uniform and norm_ratio < 1.5:
        return Verdict(symptom, False, f"the gradient has the right size (norm ratio {norm_ratio:.3f}) but "
                       f"points elsewhere (residual {residual:.2e}): not a division problem — run "
                       "diagnose_partition_dependence", evidence)
    if not uniform:
        return Verdict(symptom, True, f"the gradient is about {norm_ratio:.2f}× smaller than the big-batch "
                       f"gradient and also points elsewhere (residual {residual:.2e}, A = {A}) — a division "
                       "problem mixed with a weighting one (zero_grad inside the loop? mean of means?)", evidence)
    rows = unshifted_rows(g)
    evidence["rows_with_supervised_first_label"] = rows
    _, what, fix = name_rescaling(k, accumulation_steps=A, microbatches=size, items=N, unshifted_extra=rows)
    return Verdict(symptom, True, f"{what} — {fix}", evidence)


# ---------------------------------------------------------------------------------------------
# 2. Partition dependence
# ---------------------------------------------------------------------------------------------


def default_partitions(micro_batch: int, accumulation_steps: int) -> list[tuple[int, int]]:
    """(m, A) splits of the same m·A samples: as given, one big microbatch, one sample per
    microbatch, m doubled (if A is even), and the same m with A doubled (a short last group).

    """
    n = micro_batch * accumulation_steps
    parts = [(micro_batch, accumulation_steps), (n, 1), (1, n)]
    if accumulation_steps % 2 == 0:
        parts.append((2 * micro_batch, accumulation_steps // 2))
    parts.append((micro_batch, 2 * accumulation_steps))
    return list(dict.fromkeys(parts))


def diagnose_partition_dependence(update_fn: UpdateFn, setup: Setup,
                                  partitions: Sequence[tuple[int, int]] | None = None, group: int = 0) -> Verdict:
    """Does the update change when the same samples are split differently?

    Re-splits group ``group``'s samples into each ``(micro_batch, accumulation_steps)`` of
    ``partitions`` (default :func:`default_partitions`; A larger than the number of
    microbatches makes a short last group), runs one update per split on a fresh copy and
    compares the gradients at the step with the first split's. Fires when the largest relative
    difference exceeds the setup's tolerance. A split that raises (BatchNorm with one sample
    per microbatch) is recorded in the evidence and skipped.

    Evidence: ``partitions`` (m, A, microbatches, rel_diff, k, error), ``max_rel_diff``,
    ``tolerance``.

    """
    symptom = "partition dependence"
    partitions = list(partitions or default_partitions(setup.micro_batch, setup.accumulation_steps))
    base = setup.group(group)
    rows: list[dict[str, Any]] = []
    first: torch.Tensor | None = None
    for m, A in partitions:
        row: dict[str, Any] = {"micro_batch": m, "accumulation_steps": A}
        try:
            g = regroup(base, m, A, setup.task)
            row["microbatches"] = g.size
            steps, _ = _gradient_at_step(update_fn, setup, g)
        except (ValueError, RuntimeError) as err:
            rows.append({**row, "error": str(err).splitlines()[0]})
            continue
        if not steps:
            rows.append({**row, "error": "no optimizer step"})
            continue
        grad = steps[0].gradient
        if first is None:
            first = grad
        row["rel_diff"] = rel_diff(grad, first)
        row["k"] = scale_fit(grad, first)[0]
        rows.append(row)
    measured = [r for r in rows if "rel_diff" in r]
    evidence = {"partitions": rows, "tolerance": setup.tol, "samples": base.samples,
                "max_rel_diff": max((r["rel_diff"] for r in measured), default=0.0)}
    if len(measured) < 2:
        return Verdict(symptom, False, f"fewer than two partitions produced a step ({rows}); nothing to compare",
                       evidence)
    worst = max(measured, key=lambda r: r["rel_diff"])
    if worst["rel_diff"] <= setup.tol:
        return Verdict(symptom, False, f"{len(measured)} splits of the same {base.samples} samples give the same "
                       f"gradient (max relative difference {worst['rel_diff']:.1e} ≤ {setup.tol:.0e})", evidence)
    m0, A0 = measured[0]["micro_batch"], measured[0]["accumulation_steps"]
    head = (f"the gradient changes by {100 * worst['rel_diff']:.3g}% when the same {base.samples} samples are split "
            f"as m={worst['micro_batch']}, A={worst['accumulation_steps']} instead of m={m0}, A={A0}")
    others = [r for r in measured[1:] if r is not worst]
    short = worst["microbatches"] < worst["accumulation_steps"]
    if short and all(r["rel_diff"] <= setup.tol for r in others):
        hint = (f" — only the short group ({worst['microbatches']} of A={worst['accumulation_steps']} microbatches) "
                f"differs, {worst['k']:.3g}× too small: a constant divisor A on a short last group; divide by the "
                "group's real items")
    else:
        hint = (" — look for a mean of microbatch means (weight by supervised items), ignored tokens counted in "
                "a denominator, or a layer that mixes samples (BatchNorm)")
    return Verdict(symptom, True, head + hint, evidence)


# ---------------------------------------------------------------------------------------------
# 3. Ineffective accumulation
# ---------------------------------------------------------------------------------------------


def diagnose_ineffective_accumulation(update_fn: UpdateFn, setup: Setup) -> Verdict:
    """Does accumulation actually accumulate, once per group?

    Runs two consecutive groups on one model copy and fires when:

    - a group makes no optimizer step, more than one, or a step that changes no parameter;
    - the first group's gradient at the step is (proportional to) only the *last* microbatch's
      contribution — ``zero_grad`` inside the microbatch loop;
    - the second group's gradient equals its own big-batch gradient *plus* the gradient left
      over from the first group — ``zero_grad`` forgotten between groups.

    Evidence: ``steps`` and ``applied`` per group, ``rel_diff`` per group (vs its big-batch
    gradient), ``last_microbatch_residual``, ``leftover_norm``, ``leak_residual``.

    """
    symptom = "ineffective accumulation"
    model, optimizer, scheduler = setup.fresh()
    groups = [setup.group(0), setup.group(1)]
    evidence: dict[str, Any] = {"steps": [], "applied": [], "rel_diff": [], "accumulation_steps": groups[0].accumulation_steps}
    reasons: list[str] = []
    last_contribution = _last_contribution(model, groups[0], setup.task)
    for i, g in enumerate(groups):
        ref = reference_gradient(model, g, setup.task)
        leftover = current_gradient(model)
        with record_steps(model, optimizer) as steps, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            update_fn(model, optimizer, scheduler, g)
        evidence["steps"].append(len(steps))
        evidence["applied"].append(sum(s.applied for s in steps))
        if len(steps) != 1:
            reasons.append(f"group {i} made {len(steps)} optimizer steps instead of one" +
                           (" — optimizer.step() is missing (or every step was skipped)" if not steps else
                            " — parameters changed between microbatches, nothing was accumulated"))
            evidence["rel_diff"].append(None)
            continue
        got = steps[0].gradient
        if not steps[0].applied:
            reasons.append(f"group {i}'s step changed no parameter (gradient norm {float(got.norm()):.3g})")
        d = rel_diff(got, ref)
        evidence["rel_diff"].append(d)
        if d <= setup.tol:
            continue
        if i == 0:
            _, residual = scale_fit(got, last_contribution)
            evidence["last_microbatch_residual"] = residual
            if residual <= setup.tol and g.size > 1:
                reasons.append(f"only the last of {g.size} microbatches reached the step (the gradient equals its "
                               f"contribution, residual {residual:.1e}) — zero_grad runs inside the microbatch loop")
        else:
            leak = rel_diff(got, ref + leftover)
            evidence.update(leftover_norm=float(leftover.norm()), leak_residual=leak)
            if float(leftover.norm()) > 0 and leak <= setup.tol:
                reasons.append(f"group 1's gradient is its own plus group 0's leftover (norm "
                               f"{float(leftover.norm()):.3g}, residual {leak:.1e}) — zero the gradients "
                               "after each update (or before each group)")
    if reasons:
        return Verdict(symptom, True, "; ".join(reasons), evidence)
    return Verdict(symptom, False, "one applied step per group, each with the whole group's gradient and "
                   "nothing from the previous group", evidence)


# ---------------------------------------------------------------------------------------------
# 4. Memory growth
# ---------------------------------------------------------------------------------------------


class _Held:
    """What the pack hook stores instead of a tensor, so a weak reference tells when autograd
    has released it (after backward, or when the graph is dropped)."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor: torch.Tensor):
        self.tensor = tensor


class LiveBytes:
    """Bytes kept alive by autograd graphs and model outputs, measured at microbatch starts.

    A context manager. Inside it every tensor saved for backward is wrapped so that its release
    is observable (each storage counted once, the model's parameters and buffers excluded), and
    the outputs (logits) of the model's outermost module calls are remembered weakly. A
    microbatch starts at each call of the model itself — or, for a loop that never calls it but
    its parts (``model.gpt(X, Y)``, a backbone then a head), at the first call of any of its
    modules after a backward. At every start the live bytes are recorded. Units: bytes.

    Attributes after the block: ``retained_saved`` / ``retained_outputs`` (live bytes at the
    start of each microbatch), ``saved_per_microbatch`` / ``output_per_microbatch`` (bytes each
    microbatch saved / returned), ``peak_saved`` (the most saved bytes alive at once) and
    ``boundaries`` (``"model calls"``, ``"after backward"`` or ``None`` when no module ran).
    """

    def __init__(self, model: nn.Module):
        self.model = model
        self.peak_saved = 0
        self._saved_now = 0
        self._by_key: dict[tuple, int] = {}  # storage → live holders
        self._outputs: list[tuple[weakref.ref, tuple, int]] = []
        self._depth = 0
        self._after_backward = True
        self._series = {"model calls": _Series(), "after backward": _Series()}
        self.boundaries: str | None = None

    # ---- the saved tensors
    def _pack(self, t: torch.Tensor) -> _Held:
        held = _Held(t)
        key, nbytes = storage_key(t)
        if key in self._params:
            return held
        count = self._by_key.get(key, 0)
        if count == 0:
            self._saved_now += nbytes
            self.peak_saved = max(self.peak_saved, self._saved_now)
            for series in self._series.values():
                series.saved(nbytes)
        self._by_key[key] = count + 1
        weakref.finalize(held, self._release, key, nbytes)
        return held

    def _release(self, key: tuple, nbytes: int) -> None:
        count = self._by_key.get(key, 0) - 1
        if count <= 0:
            self._by_key.pop(key, None)
            self._saved_now -= nbytes
        else:
            self._by_key[key] = count

    def _outputs_now(self) -> int:
        alive = {key: n for ref, key, n in self._outputs if ref() is not None and key not in self._by_key}
        return sum(alive.values())

    # ---- the boundaries
    def _enter(self, module: nn.Module, _args: Any) -> None:
        if self._depth == 0:
            if module is self.model:
                self._series["model calls"].start(self._saved_now, self._outputs_now())
            if self._after_backward:
                self._series["after backward"].start(self._saved_now, self._outputs_now())
                self._after_backward = False
        self._depth += 1

    def _leave(self, _module: nn.Module, _inputs: Any, output: Any) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth:
            return
        try:
            t = logits_of(output)
        except TypeError:
            return
        if isinstance(t, torch.Tensor):
            key, nbytes = storage_key(t)
            self._outputs.append((weakref.ref(t), key, nbytes))
            for series in self._series.values():
                series.output(nbytes)

    def _backward(self, *args: Any, **kwargs: Any) -> Any:
        out = self._original_backward(*args, **kwargs)
        self._after_backward = True
        return out

    def __enter__(self) -> LiveBytes:
        self._params = {storage_key(t)[0] for t in (*self.model.parameters(), *self.model.buffers())}
        self._handles = []
        for module in self.model.modules():
            self._handles.append(module.register_forward_pre_hook(self._enter))
            self._handles.append(module.register_forward_hook(self._leave, always_call=True))
        self._original_backward = torch.autograd.backward
        torch.autograd.backward = self._backward
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, lambda held: held.tensor)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._hooks.__exit__(*exc)
        torch.autograd.backward = self._original_backward
        for h in self._handles:
            h.remove()
        # no cycle keeps the model (and what trained it) alive after the block: the hooks object holds
        # a method of this one, and this one the model
        self._hooks, self._handles, self._original_backward, self.model = None, [], None, None
        chosen = "model calls" if self._series["model calls"].starts else \
            "after backward" if self._series["after backward"].starts else None
        self.boundaries = chosen
        series = self._series[chosen] if chosen else _Series()
        self.retained_saved, self.retained_outputs = series.retained_saved, series.retained_outputs
        self.saved_per_microbatch, self.output_per_microbatch = series.saved_bytes, series.output_bytes


@dataclass
class _Series:
    """Live bytes at each microbatch start, and what each microbatch saved and returned."""

    retained_saved: list[int] = field(default_factory=list)
    retained_outputs: list[int] = field(default_factory=list)
    saved_bytes: list[int] = field(default_factory=list)
    output_bytes: list[int] = field(default_factory=list)

    @property
    def starts(self) -> int:
        return len(self.retained_saved)

    def start(self, saved: int, outputs: int) -> None:
        self.retained_saved.append(saved)
        self.retained_outputs.append(outputs)
        self.saved_bytes.append(0)
        self.output_bytes.append(0)

    def saved(self, nbytes: int) -> None:
        if self.saved_bytes:
            self.saved_bytes[-1] += nbytes

    def output(self, nbytes: int) -> None:
        if self.output_bytes:
            self.output_bytes[-1] += nbytes


def diagnose_memory_growth(update_fn: UpdateFn, setup: Setup) -> Verdict:
    """Do the bytes kept alive grow with the microbatch index?

    Runs one group of A ≥ 3 microbatches under :class:`LiveBytes` and judges it with
    :func:`memory_growth`. Raises ``ValueError`` when A < 3 (growth cannot be told from one
    kept output).
    """
    g = setup.group(0)
    if g.size < 3:
        raise ValueError(f"diagnose_memory_growth needs a group of at least 3 microbatches, got {g.size}: "
                         "use a Setup with accumulation_steps >= 3")
    model, optimizer, scheduler = setup.fresh()
    with LiveBytes(model) as live, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        update_fn(model, optimizer, scheduler, g)
    return memory_growth(live, g.size)


def memory_growth(live: LiveBytes, microbatches: int) -> Verdict:
    """The memory-growth verdict on what :class:`LiveBytes` measured during one update of
    ``microbatches``. A correct loop releases each microbatch's graph at its backward, so the
    bytes alive at the start of microbatch k stay flat (at most the previous output still bound
    to a variable). Keeping graph-attached losses (``total = total + loss`` with one backward at
    the end) or outputs in a list makes them grow by about one microbatch's bytes per
    microbatch. Fires when, from microbatch 1 to A−1, the saved bytes grow by at least half a
    microbatch's saved bytes per microbatch, or the kept outputs by half a microbatch's output
    bytes.

    Evidence: ``retained_saved``, ``retained_outputs``, ``saved_per_microbatch``,
    ``output_per_microbatch`` (bytes), ``growth_saved`` and ``growth_outputs`` (bytes per
    microbatch), ``boundaries``.
    """
    symptom = "memory growth"
    n = len(live.retained_saved)
    if n < 3:
        return Verdict(symptom, False, f"the model was called {n} times for {microbatches} microbatches; "
                       "cannot see microbatch boundaries", {"model_calls": n, "boundaries": live.boundaries})
    per_saved = sum(live.saved_per_microbatch) / n
    per_out = sum(live.output_per_microbatch) / n
    growth_saved = (live.retained_saved[-1] - live.retained_saved[1]) / (n - 2)
    growth_out = (live.retained_outputs[-1] - live.retained_outputs[1]) / (n - 2)
    evidence = {"retained_saved": live.retained_saved, "retained_outputs": live.retained_outputs,
                "saved_per_microbatch": live.saved_per_microbatch,
                "output_per_microbatch": live.output_per_microbatch,
                "growth_saved": growth_saved, "growth_outputs": growth_out, "microbatches": n,
                "boundaries": live.boundaries, "peak_saved": live.peak_saved}
    grows_saved = per_saved > 0 and growth_saved >= 0.5 * per_saved
    grows_out = per_out > 0 and growth_out >= 0.5 * per_out
    total = [s + o for s, o in zip(live.retained_saved, live.retained_outputs)]
    series = ", ".join(format_bytes(b) for b in total)
    if grows_saved or grows_out:
        what = []
        if grows_saved:
            what.append(f"graphs: +{format_bytes(growth_saved)} per microbatch ≈ {growth_saved / per_saved:.2f}× "
                        "one microbatch's saved activations")
        if grows_out:
            what.append(f"outputs: +{format_bytes(growth_out)} per microbatch")
        return Verdict(symptom, True, f"bytes alive at each microbatch start grow with its index ({series}; "
                       f"{'; '.join(what)}) — references are kept between microbatches: call backward per "
                       "microbatch and keep only loss.item() / detached values", evidence)
    return Verdict(symptom, False, f"bytes alive at each microbatch start stay flat ({series}); each microbatch "
                   f"saves about {format_bytes(per_saved)} and releases it at its backward", evidence)


# ---------------------------------------------------------------------------------------------
# 5. Schedule drift
# ---------------------------------------------------------------------------------------------


def diagnose_schedule_drift(update_fn: UpdateFn, setup: Setup, groups: int = 3) -> Verdict:
    """Does the scheduler step exactly once per applied update?

    Runs ``groups`` consecutive groups on one model copy with the setup's scheduler (the
    default ``LambdaLR`` if it has none), counting scheduler steps (``last_epoch``) and applied
    optimizer updates (steps that changed a parameter). Fires when they differ.

    Evidence: ``scheduler_steps``, ``applied_updates``, ``attempted_updates``,
    ``microbatches``, ``per_group`` scheduler steps, ``lr`` (learning rate at the start of
    each group, plus the final one) and ``expected_lr`` (the same schedule stepped once per
    applied update).

    """
    symptom = "schedule drift"
    model, optimizer, scheduler = setup.fresh()
    _, shadow_optimizer, expected = setup.fresh()  # the same schedule, stepped once per applied update
    if scheduler is None:
        scheduler, expected = default_scheduler(optimizer), default_scheduler(shadow_optimizer)
    start = scheduler.last_epoch
    per_group, lrs, applied, attempted, microbatches = [], [], 0, 0, 0
    expected_lrs = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(groups):
            g = setup.group(i)
            before = scheduler.last_epoch
            lrs.append(float(optimizer.param_groups[0]["lr"]))
            expected_lrs.append(float(expected.get_last_lr()[0]))
            with record_steps(model, optimizer) as steps:
                update_fn(model, optimizer, scheduler, g)
            per_group.append(scheduler.last_epoch - before)
            attempted += len(steps)
            applied += sum(s.applied for s in steps)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the shadow schedule has no optimizer steps
                for _ in range(sum(s.applied for s in steps)):
                    expected.step()
            microbatches += g.size
    lrs.append(float(optimizer.param_groups[0]["lr"]))
    expected_lrs.append(float(expected.get_last_lr()[0]))
    sched_steps = scheduler.last_epoch - start
    evidence = {"scheduler_steps": sched_steps, "applied_updates": applied, "attempted_updates": attempted,
                "microbatches": microbatches, "per_group": per_group, "lr": lrs, "expected_lr": expected_lrs,
                "accumulation_steps": setup.accumulation_steps,
                "torch_warnings": sorted({str(w.message).split(". ")[0] for w in caught})}
    if sched_steps == applied:
        return Verdict(symptom, False, f"{sched_steps} scheduler steps for {applied} applied updates over "
                       f"{groups} groups: the schedule follows the updates", evidence)
    if sched_steps == 0:
        why = "the scheduler never stepped — call scheduler.step() after each applied update"
    elif sched_steps == microbatches:
        why = (f"once per microbatch ({microbatches} microbatches): the schedule runs "
               f"{sched_steps / max(applied, 1):.0f}× too fast — step it once per applied update, not per backward")
    else:
        why = "step the scheduler once per applied update (skip it when the scaler skips the step)"
    return Verdict(symptom, True, f"the scheduler stepped {sched_steps} times for {applied} applied updates — "
                   f"{why}; learning rate now {lrs[-1]:.4g} instead of {expected_lrs[-1]:.4g}", evidence)


# ---------------------------------------------------------------------------------------------
# All detectors, and the clinic
# ---------------------------------------------------------------------------------------------

Detector = Callable[..., Verdict]

DETECTORS: dict[str, Detector] = {
    "double_division": diagnose_double_division,
    "partition_dependence": diagnose_partition_dependence,
    "ineffective_accumulation": diagnose_ineffective_accumulation,
    "memory_growth": diagnose_memory_growth,
    "schedule_drift": diagnose_schedule_drift,
}


def diagnose_all(update_fn: UpdateFn, setup: Setup) -> list[Verdict]:
    """Run all five detectors on ``update_fn`` (same setup for each)."""
    return [detector(update_fn, setup) for detector in DETECTORS.values()]


__all__ = [
    "memory_growth",
    "DETECTORS", "LiveBytes", "Setup", "Verdict", "default_partitions", "diagnose_all", "diagnose_double_division",
    "diagnose_ineffective_accumulation", "diagnose_memory_growth", "diagnose_partition_dependence",
    "diagnose_schedule_drift", "reference_gradient", "regroup", "rel_diff",
    "scale_fit",
]

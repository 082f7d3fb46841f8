"""Check *your* training loop: one accumulated update of your code against the big batch (MB-10, MB-11).

:func:`check_loop` takes the function you train with, unchanged::

    def train_step(model, optimizer, microbatches):      # ONE accumulated update
        ...                                              # forward/backward per microbatch, one step

    report = gastudy.check_loop(train_step, model, microbatches)

and runs it on a deep copy of ``model`` with a fresh optimizer (your model, optimizer and
batches are never touched). An optimizer step pre-hook (:func:`~gastudy.check.steps.record_steps`)
captures the gradient the optimizer is about to apply; it is compared with the big-batch
gradient of the same samples (the sum of per-item losses ÷ the group's supervised items, the
causal shift counted as :mod:`gastudy.core.counting` does). When they differ, or when the step
count, the scheduler or memory are wrong, the five detectors of :mod:`gastudy.check.diagnostics`
are run on your function to name the symptom: ineffective accumulation, double division,
partition dependence (the ``steps`` normalization on variable lengths), schedule drift, memory
growth.

:func:`explain_gradient` names what a wrong gradient *is* (the big batch rescaled, the mean of
microbatch means, only the last microbatch) from the microbatches' separate contributions;
:func:`gastudy.hf.check_trainer` uses it for a Hugging Face Trainer.
"""

from __future__ import annotations

import copy
import html
import inspect
import math
import os
import traceback
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from gastudy.check.diagnostics import (
    Setup,
    Verdict,
    _contributions,
    _rows_with_first_label,
    default_optimizer,
    default_scheduler,
    diagnose_double_division,
    diagnose_ineffective_accumulation,
    diagnose_memory_growth,
    diagnose_partition_dependence,
    diagnose_schedule_drift,
    reference_gradient,
    rel_diff,
    scale_fit,
)
from gastudy.check.pitfalls import task_of_batch
from gastudy.check.steps import grads_are_zero, record_steps
from gastudy.check.verify import TOLERANCES, has_batchnorm
from gastudy.core.counting import check_task
from gastudy.core.groups import Group, build_group

TrainStep = Callable[..., Any]
OptimizerFactory = Callable[[nn.Module], torch.optim.Optimizer]
SchedulerFactory = Callable[[torch.optim.Optimizer], Any]

# dtype of the model's parameters → key of verify.TOLERANCES (one table of tolerances per precision)
_PRECISION_OF = {torch.float64: "fp64", torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}


class TrainStepError(RuntimeError):
    """Your ``train_step`` raised while :func:`check_loop` ran it on a copy (the original error is
    chained as ``__cause__``; ``where`` names the innermost line of your code). Course: MB-10."""

    def __init__(self, message: str, where: str | None = None):
        super().__init__(message)
        self.where = where


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


@dataclass
class LoopReport:
    """What :func:`check_loop` (or :func:`gastudy.hf.check_trainer`) found. Course: MB-10, MB-11.

    Attributes:
        passed: one optimizer step whose gradient equals the big-batch gradient within
            ``tolerance``, gradients zero after the update, one scheduler step per update (when
            a scheduler is checked) and no memory growth (when measured).
        symptom: ``None`` when passed, else one of the course's five symptoms (``"ineffective
            accumulation"``, ``"double division"``, ``"partition dependence"``, ``"memory growth"``,
            ``"schedule drift"``), ``"non-finite gradient"`` or ``"wrong gradient"`` (none fits).
        message: one readable sentence or two: what was measured and what to change.
        rel_error: ‖g − g_big‖ ÷ ‖g_big‖ of the gradient at the (first) optimizer step; ``None``
            when no step happened.
        tolerance: the largest accepted ``rel_error`` (per the model's dtype unless given).
        optimizer_steps: ``optimizer.step`` calls during the one update (1 is right).
        scheduler_steps: scheduler steps during the update (``None`` when no scheduler was given).
        microbatches, samples, supervised_items: the group checked (N = the denominator).
        normalization: what the captured gradient matched: ``"tokens"`` (right), ``"steps"``
            (the mean of microbatch means ÷ A), ``"sum of means"`` (÷ nothing), ``"last
            microbatch"``, or ``None``.
        verdicts: the detectors that ran (:class:`~gastudy.check.diagnostics.Verdict`).
        notes: what the check changed on its copies or could not do (dropout off, ids added…).
        evidence: the numbers behind the message (JSON-ready).
    """

    passed: bool
    symptom: str | None
    message: str
    rel_error: float | None
    tolerance: float
    optimizer_steps: int
    scheduler_steps: int | None
    microbatches: int
    samples: int
    supervised_items: int
    normalization: str | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)
    subject: str = "train_step"  # what was checked: your function's name, or the Trainer

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field (verdicts as dicts; non-finite numbers as strings)."""
        return _jsonable({
            "passed": self.passed, "symptom": self.symptom, "message": self.message,
            "rel_error": self.rel_error, "tolerance": self.tolerance, "optimizer_steps": self.optimizer_steps,
            "scheduler_steps": self.scheduler_steps, "microbatches": self.microbatches, "samples": self.samples,
            "supervised_items": self.supervised_items, "normalization": self.normalization,
            "verdicts": [{"symptom": v.symptom, "fired": v.fired, "message": v.message} for v in self.verdicts],
            "notes": self.notes, "evidence": self.evidence, "subject": self.subject,
        })

    def _lines(self) -> list[str]:
        head = (f"✓ PASSED: {self.subject}" if self.passed else f"✗ FAILED: {self.subject} — {self.symptom}")
        err = "no optimizer step" if self.rel_error is None else f"{self.rel_error:.2e}"
        lines = [head, f"  {self.message}",
                 f"  gradient at the step vs the big batch: relative error {err} (tolerance {self.tolerance:.0e}); "
                 f"{self.optimizer_steps} optimizer step(s)"
                 + ("" if self.scheduler_steps is None else f", {self.scheduler_steps} scheduler step(s)")
                 + f"; {self.microbatches} microbatches, {self.samples} samples, N = {self.supervised_items} "
                 "supervised items"]
        lines += [f"  {v}" for v in self.verdicts if v.fired and v.message not in self.message]
        lines += [f"  note: {n}" for n in self.notes]
        return lines

    def __str__(self) -> str:
        return "\n".join(self._lines())

    def __repr__(self) -> str:
        state = "passed" if self.passed else f"failed: {self.symptom}"
        err = "None" if self.rel_error is None else f"{self.rel_error:.2e}"
        return (f"LoopReport({state}, rel_error={err}, tolerance={self.tolerance:.0e}, "
                f"optimizer_steps={self.optimizer_steps}, microbatches={self.microbatches})\n{self}")

    def _repr_html_(self) -> str:
        colour = "#1a7f37" if self.passed else "#b42318"
        lines = self._lines()
        body = "".join(f"<li>{html.escape(line.strip())}</li>" for line in lines[1:])
        return (f"<div style='border-left:4px solid {colour};padding:4px 10px'>"
                f"<b style='color:{colour}'>{html.escape(lines[0])}</b><ul style='margin:4px 0'>{body}</ul></div>")


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, torch.Tensor):
        return _jsonable(value.tolist())
    return value


# ---------------------------------------------------------------------------------------------
# Shared pieces (also used by gastudy.hf)
# ---------------------------------------------------------------------------------------------


def tolerance_for(model: nn.Module, tolerance: float | None = None) -> float:
    """``tolerance`` if given, else :data:`gastudy.check.verify.TOLERANCES` for the dtype of the
    model's parameters (float64 1e-10, float32 1e-4, bfloat16 5e-2, float16 1e-2). Course: MB-10."""
    if tolerance is not None:
        if not tolerance > 0:
            raise ValueError(f"tolerance must be a positive relative error, got {tolerance!r}")
        return float(tolerance)
    dtype = next(model.parameters()).dtype
    return TOLERANCES[_PRECISION_OF.get(dtype, "fp32")]


def switch_off_dropout(model: nn.Module) -> int:
    """Set every dropout probability of ``model`` to 0 in place; returns how many were on.

    Covers ``nn.Dropout`` modules (``p``) and float module attributes whose name contains
    ``dropout`` (how Hugging Face attention layers keep theirs). Use it on a *copy*: a random
    mask differs between the accumulated and the big-batch forwards, so gradients could not be
    compared. Course: MB-10.
    """
    switched = 0
    for module in model.modules():
        if isinstance(module, nn.modules.dropout._DropoutNd) and module.p > 0:
            module.p, switched = 0.0, switched + 1
        for name, value in list(vars(module).items()):
            if "dropout" in name and isinstance(value, float) and value > 0:
                setattr(module, name, 0.0)
                switched += 1
    return switched


def with_sample_ids(microbatches: Sequence[Mapping[str, torch.Tensor]]) -> tuple[list[dict], bool]:
    """Shallow copies of the batches, each with ``sample_ids``; ids that are missing become
    stream positions (0, 1, 2, … over all rows). Returns ``(batches, added)``. Course: MB-4."""
    if all("sample_ids" in mb for mb in microbatches):
        return [dict(mb) for mb in microbatches], False
    out, start = [], 0
    for mb in microbatches:
        rows = _rows(mb)
        out.append({**mb, "sample_ids": torch.arange(start, start + rows)})
        start += rows
    return out, True


def _rows(batch: Mapping[str, torch.Tensor]) -> int:
    if "position_ids" in batch and batch["position_ids"].dim() == 2 and batch["position_ids"].shape[0] == 1:
        return int((batch["position_ids"][0] == 0).sum())  # packed: one sample per restart of positions
    first = batch.get("input_ids", batch.get("inputs", batch.get("labels")))
    return int(first.shape[0])


def explain_gradient(got: torch.Tensor, contributions: Sequence[torch.Tensor], items: Sequence[int],
                     accumulation_steps: int, tolerance: float, *,
                     unshifted_extra: int = 0) -> tuple[str | None, str | None, str, dict[str, Any]]:
    """Name what a gradient at the optimizer step *is*, from the microbatches' contributions (MB-11).

    ``contributions[i]`` is microbatch i's share of the big-batch gradient (its summed loss ÷ N,
    N = Σ ``items``; :func:`microbatch_contributions`), so the big batch is their sum. Compared
    with ``got`` (float64 vectors, relative tolerance ``tolerance``), in this order:

    - ``tokens``: the big batch itself → ``(None, "tokens", …)``;
    - ``steps``: Σ contributionᵢ · N/(itemsᵢ · A), the mean of microbatch means ÷ A →
      ``"partition dependence"`` (on variable lengths the update depends on how samples are split);
    - ``sum of means``: the same without ÷ A (a per-microbatch mean declared already scaled);
    - a uniform rescaling big/k → ``"double division"``: k ≈ A (a normalized loss divided again
      by A), k·N = N + ``unshifted_extra`` (causal labels counted without the shift: one extra
      item per row whose first label is supervised), another k > 1, or k < 1 (a division missing);
    - ``last microbatch``: proportional to the last contribution only → ``"ineffective accumulation"``.

    Returns ``(symptom, normalization, message, evidence)``: ``symptom`` is ``"wrong gradient"``
    when nothing fits; the message is "what the gradient is — what to change", the two halves
    also in ``evidence["what"]`` and ``evidence["fix"]``. Course: GA-4, GA-5, GA-6, MB-3, MB-11.
    """
    A, N = accumulation_steps, sum(items)
    big = torch.stack(list(contributions)).sum(0)
    steps = torch.stack([c * (N / (n * A)) for c, n in zip(contributions, items) if n > 0]).sum(0)
    k, residual = scale_fit(got, big)
    evidence: dict[str, Any] = {"k": k, "residual": residual, "rel_vs_tokens": rel_diff(got, big),
                                "rel_vs_steps": rel_diff(got, steps), "items": list(items),
                                "accumulation_steps": A, "denominator": N}
    fits = max(100 * tolerance, 1e-8)  # residual of a proportional fit that counts as "exactly proportional"
    varied = len(set(items)) > 1
    sk, sres = scale_fit(got, steps)
    lk, lres = scale_fit(got, contributions[-1])
    symptom: str | None
    normalization: str | None = None
    if evidence["rel_vs_tokens"] <= tolerance:
        symptom, normalization = None, "tokens"
        what, fix = "the gradient equals the big-batch gradient (sum of losses ÷ N)", "nothing to change"
    elif evidence["rel_vs_steps"] <= tolerance and varied:
        symptom, normalization = "partition dependence", "steps"
        what = (f"the gradient is the mean of the {len(items)} microbatch means ÷ A={A} (normalization 'steps'), not "
                f"the sum of losses ÷ N={N}: with supervised counts {list(items)} a short microbatch weighs as much "
                "as a long one, so the update depends on how the samples are split")
        fix = "divide each microbatch's summed loss by the group's N"
    elif sres <= fits and abs(sk * A - 1) <= 1e-3 and varied:
        symptom, normalization = "partition dependence", "sum of means"
        what = (f"the gradient is the SUM of the {len(items)} microbatch means ({A}× the 'steps' normalization): a "
                "per-microbatch mean loss is treated as already scaled for accumulation")
        fix = f"divide each microbatch's summed loss by the group's N={N}"
    elif residual <= fits and math.isfinite(k):
        symptom = "double division"
        if A > 1 and abs(k - A) <= 1e-3 * A:
            what = (f"the gradient is {k:.2f}× smaller than the big-batch gradient (= A, the {A} microbatches): the "
                    "loss was divided by the group's N and then again by A")
            fix = "divide once: declare the loss already scaled for accumulation, or drop the ÷ A"
        elif unshifted_extra and abs(k * N - (N + unshifted_extra)) <= 0.01 * N:
            what = (f"the gradient is {k:.4f}× smaller than the big-batch gradient: the denominator is {k * N:.0f} "
                    f"items instead of N={N} — {unshifted_extra} extra, one per row whose first label is supervised")
            fix = "count causal labels after the shift (labels[..., 1:] != -100, GA-5)"
        elif k > 1:
            what = (f"the gradient is {k:.4g}× smaller than the big-batch gradient (implied denominator {k * N:.0f} "
                    f"instead of N={N})")
            fix = "remove the extra division"
        else:
            what = f"the gradient is {1 / k:.4g}× larger than the big-batch gradient"
            fix = "divide the summed loss by the group's N (a division is missing)"
    elif len(contributions) > 1 and lres <= fits:
        symptom, normalization = "ineffective accumulation", "last microbatch"
        what = (f"only the last of the {len(contributions)} microbatches reached the step (the gradient is "
                f"proportional to its contribution, residual {lres:.1e}): the earlier ones were zeroed")
        fix = "zero the gradients once per update, after optimizer.step(), not per microbatch"
    else:
        symptom = "wrong gradient"
        what = (f"the gradient differs from the big-batch gradient by {100 * evidence['rel_vs_tokens']:.3g}% and is "
                f"not a rescaling of it (residual {residual:.2e}) nor the mean of microbatch means")
        fix = "compare your loss with the sum of per-item losses ÷ the group's supervised items"
    evidence.update(what=what, fix=fix)
    return symptom, normalization, f"{what} — {fix}", evidence


def microbatch_contributions(model: nn.Module, group: Group) -> list[torch.Tensor]:
    """Each microbatch's share of the big-batch gradient (summed loss ÷ the group's N), on a
    copy of ``model``, as float64 vectors; their sum is the big-batch gradient. Course: MB-1, MB-8."""
    return _contributions(model, group, group.task)


def unshifted_rows(group: Group) -> int:
    """Rows of a causal group whose *first* label is supervised: what a count without the causal
    shift adds to N (0 for other tasks and for ``shift_labels`` batches). Course: GA-5."""
    return _rows_with_first_label(group, group.task)


# ---------------------------------------------------------------------------------------------
# check_loop
# ---------------------------------------------------------------------------------------------


@dataclass
class _UserSetup(Setup):
    """A detector setup whose every group is the user's own microbatches (as given)."""

    batches: list[dict] = field(default_factory=list)

    def group(self, index: int = 0, microbatches: int | None = None) -> Group:
        k = len(self.batches) if microbatches is None else microbatches
        return build_group(index, self.batches[:k], self.accumulation_steps, self.task)


def as_optimizer_factory(optimizer: OptimizerFactory | torch.optim.Optimizer | None) -> OptimizerFactory:
    """How :func:`check_loop` gets an optimizer for each copy of the model (MB-10).

    ``None`` → plain SGD (lr 0.1; the gradient at the step does not depend on the optimizer);
    a callable ``model → optimizer`` → called for every copy; an optimizer *instance* → a new
    one of the same class with the same defaults over the copy's parameters (its state and
    per-group settings are not copied). Raises ``TypeError`` for anything else.
    """
    if optimizer is None:
        return default_optimizer
    if isinstance(optimizer, torch.optim.Optimizer):
        cls = type(optimizer)
        try:  # defaults can hold keys the constructor does not take (AdamW: decoupled_weight_decay)
            accepted = inspect.signature(cls.__init__).parameters
            defaults = {k: v for k, v in optimizer.defaults.items() if k in accepted}
        except (TypeError, ValueError):
            defaults = dict(optimizer.defaults)

        def clone(model: nn.Module) -> torch.optim.Optimizer:
            try:
                return cls(model.parameters(), **defaults)
            except TypeError as err:
                raise TypeError(f"could not build a fresh {cls.__name__} from your optimizer's defaults ({err}); "
                                "pass a factory instead: optimizer=lambda m: "
                                f"{cls.__name__}(m.parameters(), ...)") from err
        return clone
    if callable(optimizer):
        return optimizer
    raise TypeError(f"optimizer must be a factory (model → optimizer), an optimizer or None, got "
                    f"{type(optimizer).__name__}")


def _scheduler_parameter(train_step: TrainStep) -> str | None:
    try:
        params = inspect.signature(train_step).parameters
    except (TypeError, ValueError):
        return None
    return next((p for p in ("scheduler", "lr_scheduler") if p in params), None)


def _where(err: BaseException, train_step: TrainStep) -> str | None:
    """``file:line in function: source`` of the innermost frame in train_step's file."""
    try:
        home = os.path.abspath(inspect.getsourcefile(train_step) or "")
    except TypeError:
        home = ""
    frames = traceback.extract_tb(err.__traceback__)
    mine = [f for f in frames if os.path.abspath(f.filename) == home] or frames[-1:]
    if not mine:
        return None
    f = mine[-1]
    return f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}" + (f": {f.line.strip()}" if f.line else "")


def _clone_batches(batches: Sequence[Mapping[str, Any]], drop_ids: bool) -> list[dict[str, Any]]:
    return [{k: (v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v)) for k, v in mb.items()
             if not (drop_ids and k == "sample_ids")} for mb in batches]


def _validated(microbatches: Any) -> list[Mapping[str, torch.Tensor]]:
    if isinstance(microbatches, Mapping):
        raise TypeError("microbatches is one batch dict; pass the list of the update's microbatches, e.g. [batch]")
    if not isinstance(microbatches, Iterable):
        raise TypeError(f"microbatches must be a list of batch dicts, got {type(microbatches).__name__}")
    batches = list(microbatches)
    if not batches:
        raise ValueError("microbatches is empty: pass the A microbatches of one update (a list of batch dicts)")
    for i, mb in enumerate(batches):
        if not isinstance(mb, Mapping):
            raise TypeError(f"microbatch {i} is a {type(mb).__name__}, not a dict of tensors")
        if "labels" not in mb and "shift_labels" not in mb:
            raise ValueError(f"microbatch {i} has no 'labels' (keys: {sorted(mb)}): the big-batch reference "
                             "needs the labels your loss uses")
    return batches


def check_loop(train_step: TrainStep, model: nn.Module, microbatches: Iterable[Mapping[str, torch.Tensor]], *,
               optimizer: OptimizerFactory | torch.optim.Optimizer | None = None,
               scheduler: SchedulerFactory | None = None, task: str | None = None,
               tolerance: float | None = None, diagnose: bool = True) -> LoopReport:
    """Run YOUR accumulated update once on a copy and compare it with the big batch (MB-10, MB-11).

    Args:
        train_step: your function ``train_step(model, optimizer, microbatches)`` that performs ONE
            accumulated update (forward/backward per microbatch, one ``optimizer.step``). If it
            has a ``scheduler`` (or ``lr_scheduler``) parameter it also gets a scheduler and must
            step it once per update. Its return value is ignored.
        model: your model; only deep copies are trained (dropout switched off on them).
        microbatches: the A microbatches of one update, batch dicts with ``labels`` (and
            ``shift_labels`` from a padding-free collator). Your function gets copies, as given.
        optimizer: a factory ``model → optimizer`` (called for every copy), an optimizer whose
            class and defaults are reused, or ``None`` for SGD.
        scheduler: a factory ``optimizer → scheduler`` (default: ``LambdaLR`` 1/(1+updates) when
            ``train_step`` takes a scheduler).
        task: how supervised items are counted — ``causal`` (labels shifted), ``masked`` or
            ``classification``; default inferred (``inputs`` key → classification, else causal).
        tolerance: largest accepted relative error ‖g − g_big‖ ÷ ‖g_big‖; default per dtype
            (:func:`tolerance_for`).
        diagnose: run the detectors to name a symptom (turn off for a quick pass/fail).

    The gradient is captured by an optimizer step pre-hook, i.e. what the optimizer consumes
    (after any clipping your loop does). The big batch: one forward over every sample, the sum
    of per-item losses ÷ the group's supervised items N. It passes when there is exactly one
    optimizer step, its gradient matches within ``tolerance``, the gradients are zero after the
    update, the scheduler (if any) stepped once, and — with ≥ 3 microbatches — the bytes kept
    alive do not grow from microbatch to microbatch.

    Returns a :class:`LoopReport`. Raises ``TypeError``/``ValueError`` for bad arguments (empty
    or malformed microbatches, no supervised item, a scheduler your function cannot take) and
    :class:`TrainStepError` when your function raises (the cause chained).

    Course: MB-10 (verify one update), MB-11 (the clinic's detectors on your own loop).
    """
    if not callable(train_step):
        raise TypeError(f"train_step must be a function train_step(model, optimizer, microbatches), got "
                        f"{type(train_step).__name__}")
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if next(model.parameters(), None) is None:
        raise ValueError("model has no parameters: there is no gradient to check")
    batches = _validated(microbatches)
    task = check_task(task or task_of_batch(batches[0]))
    make_optimizer = as_optimizer_factory(optimizer)
    sched_param = _scheduler_parameter(train_step)
    if scheduler is not None and sched_param is None:
        raise ValueError("scheduler= was given but train_step takes no 'scheduler' parameter: define "
                         "train_step(model, optimizer, microbatches, scheduler) and step it once per update")
    if sched_param is not None and scheduler is None:
        scheduler = default_scheduler
    ided, added_ids = with_sample_ids(batches)
    try:
        group = build_group(0, ided, len(ided), task)
    except (KeyError, ValueError) as err:
        raise ValueError(f"cannot count the supervised items of these microbatches for task {task!r}: {err}") from err
    if group.supervised_items == 0:
        raise ValueError("the microbatches hold no supervised item (every label is -100): nothing to compare")

    template = copy.deepcopy(model)
    notes: list[str] = []
    if added_ids:
        notes.append("the batches have no 'sample_ids': their rows were numbered 0…n-1 in stream order")
    dropped = switch_off_dropout(template)
    if dropped:
        notes.append(f"dropout switched off on the copies ({dropped} places): random masks would differ between "
                     "your update and the big batch")
    tol = tolerance_for(template, tolerance)
    setup = _UserSetup(template, [], micro_batch=_rows(ided[0]), accumulation_steps=len(ided), task=task,
                       collate="packed" if "position_ids" in ided[0] else "padded", make_optimizer=make_optimizer,
                       make_scheduler=scheduler, tolerance=tol, batches=ided)
    detectors = _Detectors(_update_fn(train_step, sched_param, added_ids), setup, notes, diagnose)

    # 1. one update on a copy, the gradient captured at the step
    run_model, run_opt, run_sched = setup.fresh()
    epoch = run_sched.last_epoch if run_sched is not None else None
    with record_steps(run_model, run_opt) as steps, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detectors.update_fn(run_model, run_opt, run_sched, group)
    sched_steps = run_sched.last_epoch - epoch if run_sched is not None else None
    leftover = not grads_are_zero(run_model)
    del run_model, run_opt, run_sched

    # 2. the big batch over the same samples (one forward; per microbatch if the batches cannot be joined)
    contributions = microbatch_contributions(template, group)
    try:
        ref = reference_gradient(template, group, task)
    except (KeyError, ValueError, RuntimeError, TypeError):
        ref = torch.stack(contributions).sum(0)
        notes.append("the batches could not be joined into one: the big batch was summed microbatch by microbatch")

    # 3. the verdict
    A = group.size
    evidence: dict[str, Any] = {"items": group.items, "task": task, "gradients_zero_after": not leftover}
    rel = rel_diff(steps[0].gradient, ref) if steps else None
    verdicts: list[Verdict] = []
    normalization: str | None = None
    if not steps:
        symptom, message = "ineffective accumulation", (
            f"train_step never called optimizer.step(): the gradient of the {A} microbatches was computed but never "
            "applied — call optimizer.step() once, after the last microbatch's backward")
    elif len(steps) > 1:
        symptom, message = "ineffective accumulation", (
            f"train_step stepped the optimizer {len(steps)} times for {A} microbatches — accumulation means ONE "
            "optimizer step per group: step (and zero the gradients) after the last microbatch's backward only")
    elif not bool(torch.isfinite(steps[0].gradient).all()):
        symptom, message = "non-finite gradient", "the gradient at the optimizer step contains inf or NaN"
    elif rel > tol:
        if has_batchnorm(template):
            notes.append("the model has BatchNorm: each microbatch is normalized with its own statistics, so no "
                         "accumulation loop reproduces the big batch (MB-8); use LayerNorm/GroupNorm or accept the gap")
        symptom, message, verdicts, normalization = _name_wrong_gradient(detectors, steps[0].gradient, contributions,
                                                                         group, tol, evidence)
    else:
        symptom, message, verdicts = _name_right_gradient(detectors, leftover, sched_steps, A)
        if symptom is None:
            normalization = "tokens"
            message = (f"one optimizer step with the big-batch gradient (relative error {rel:.1e} ≤ {tol:.0e})"
                       + (f", {sched_steps} scheduler step" if sched_steps is not None else "") + message)
    if rel is not None:
        evidence["rel_error_first_step"] = rel
    return LoopReport(symptom is None, symptom, message, rel, tol, len(steps), sched_steps, A, group.samples,
                      group.supervised_items, normalization, verdicts, notes, evidence,
                      subject=getattr(train_step, "__name__", "train_step"))


def _update_fn(train_step: TrainStep, sched_param: str | None, drop_ids: bool) -> Callable[..., float]:
    """The user's train_step as a detector's update function (see :mod:`gastudy.check.pitfalls`):
    fresh copies of the batches every call, the scheduler passed by name, errors wrapped."""

    def update_fn(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group) -> float:
        kwargs = {sched_param: scheduler} if sched_param is not None else {}
        try:
            out = train_step(model, optimizer, _clone_batches(group.microbatches, drop_ids), **kwargs)
        except Exception as err:
            where = _where(err, train_step)
            raise TrainStepError(f"train_step raised {type(err).__name__}: {err}" + (f" (at {where})" if where else "")
                                 + f" — while check_loop ran it on a copy of your model with {group.size} "
                                 "microbatches", where) from err
        try:
            return float(out)
        except (TypeError, ValueError, RuntimeError):
            return math.nan  # the detectors only compare logged losses when there is one

    return update_fn


@dataclass
class _Detectors:
    """The detectors of :mod:`gastudy.check.diagnostics`, run on the user's update function."""

    update_fn: Callable[..., float]
    setup: _UserSetup
    notes: list[str]
    enabled: bool = True

    def run(self, detector: Callable[..., Verdict], **kwargs: Any) -> Verdict | None:
        if not self.enabled:
            return None
        try:
            return detector(self.update_fn, self.setup, **kwargs)
        except TrainStepError:
            raise
        except Exception as err:  # a detector that cannot run on these batches says so; the check goes on
            self.notes.append(f"{detector.__name__} could not run here: {type(err).__name__}: "
                              f"{str(err).splitlines()[0]}")
            return None


def _name_wrong_gradient(detectors: _Detectors, got: torch.Tensor, contributions: list[torch.Tensor], group: Group,
                         tol: float, evidence: dict[str, Any]) -> tuple[str, str, list[Verdict], str | None]:
    """What the wrong gradient is (:func:`explain_gradient`), confirmed by the first detector that fires."""
    symptom, normalization, why, explained = explain_gradient(got, contributions, group.items, group.size, tol,
                                                              unshifted_extra=unshifted_rows(group))
    evidence["explained"] = explained
    rows = [_rows(mb) for mb in group.microbatches]
    # the same samples re-split: as given (when every microbatch has m rows), one big microbatch, one per sample
    parts = [(rows[0], group.size)] if len(set(rows)) == 1 else []
    parts += [p for p in ((group.samples, 1), (1, group.samples)) if p not in parts]
    verdicts: list[Verdict] = []
    for detector, kwargs in ((diagnose_ineffective_accumulation, {}), (diagnose_double_division, {}),
                             (diagnose_partition_dependence, {"partitions": parts})):
        verdict = detectors.run(detector, **kwargs)
        if verdict is not None:
            verdicts.append(verdict)
            if verdict.fired:
                break
    fired = next((v for v in verdicts if v.fired), None)
    if fired is not None and symptom in (None, "wrong gradient", fired.symptom):
        # the detector's measurement, after what the gradient was identified as (when that adds something)
        message = f"{why}. Measured: {fired.message}" if normalization in ("steps", "sum of means") else fired.message
        return fired.symptom, message, verdicts, normalization
    return symptom or "wrong gradient", why, verdicts, normalization


def _name_right_gradient(detectors: _Detectors, leftover: bool, sched_steps: int | None,
                         microbatches: int) -> tuple[str | None, str, list[Verdict]]:
    """A right gradient can still hide a mistake: gradients left for the next update, the schedule,
    memory. Returns ``(symptom or None, message, verdicts)``; when passed the message is a suffix."""
    if leftover:
        verdict = detectors.run(diagnose_ineffective_accumulation)
        message = ("the gradient was right, but the gradients were not zeroed after the update: the next group's "
                   "gradient will contain this one's — call optimizer.zero_grad() after optimizer.step()")
        return ("ineffective accumulation", message if verdict is None else f"{message}. {verdict.message}",
                [verdict] if verdict else [])
    if sched_steps is not None and sched_steps != 1:
        verdict = detectors.run(diagnose_schedule_drift)
        message = (f"the scheduler stepped {sched_steps} times in one update of {microbatches} microbatches — step it "
                   "once per applied update, after optimizer.step()")
        return "schedule drift", message if verdict is None else verdict.message, [verdict] if verdict else []
    if microbatches < 3:
        detectors.notes.append("memory growth not measured: it needs at least 3 microbatches")
        return None, "", []
    verdict = detectors.run(diagnose_memory_growth)
    if verdict is None:
        return None, "", []
    if verdict.fired:
        return "memory growth", verdict.message, [verdict]
    return None, ", no memory growth", [verdict]


__all__ = ["LoopReport", "TrainStepError", "as_optimizer_factory", "check_loop", "explain_gradient",
           "microbatch_contributions", "switch_off_dropout", "tolerance_for", "unshifted_rows", "with_sample_ids"]

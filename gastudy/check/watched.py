"""Your update, watched and reported: the machinery under :func:`gastudy.check_loop` (MB-10, MB-11).

:func:`watched_update` runs a user's ``train_step`` once on a copy of the model under
:func:`~gastudy.check.trace.trace_loop`; :func:`loop_report` hands the run to the kernel
(:func:`gastudy.check.judge.judge_update`) and turns the verdict into a :class:`LoopReport`,
running the detectors of :mod:`gastudy.check.diagnostics` on the user's function to measure a
symptom (or to check the rest of a right update). :func:`gastudy.check.loop.check_loop` (one
process) and :func:`gastudy.check.replicas.check_loop_on_replicas` (D processes) are built on it.
"""

from __future__ import annotations

import contextlib
import copy
import html
import inspect
import math
import os
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from gastudy.check.diagnostics import (
    LiveBytes,
    Setup,
    Verdict,
    diagnose_ineffective_accumulation,
    diagnose_memory_growth,
    diagnose_partition_dependence,
    diagnose_schedule_drift,
    memory_growth,
)
from gastudy.check.isolated import Confinement
from gastudy.check.judge import Judgement, judge_update
from gastudy.check.objective import Objective
from gastudy.check.reference import Forward
from gastudy.check.steps import grads_are_zero
from gastudy.check.trace import LoopTrace, source_file, trace_loop
from gastudy.core.data import samples_in
from gastudy.core.groups import Group, build_group
from gastudy.memory.probes import release_freed_memory

TrainStep = Callable[..., Any]
# Microbatches joined per forward of the big batch: its activations stay at two microbatches' whatever
# A is (the whole group at once would hold A times those of the update being checked); the sum over
# the forwards is the same gradient, and pairs still differ from one microbatch per forward wherever
# the model mixes the samples of a batch.
PER_FORWARD = 2
OptimizerFactory = Callable[[nn.Module], torch.optim.Optimizer]
SchedulerFactory = Callable[[torch.optim.Optimizer], Any]


class TrainStepError(RuntimeError):
    """Your ``train_step`` raised while :func:`check_loop` ran it on a copy (the original error is
    chained as ``__cause__``; ``where`` names the innermost line of your code)."""

    def __init__(self, message: str, where: str | None = None):
        super().__init__(message)
        self.where = where


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------


@dataclass
class LoopReport:
    """What :func:`check_loop` (or :func:`gastudy.hf.check_trainer`) found.

    Attributes:
        passed: one optimizer step whose gradient (before clipping) equals the big-batch
            gradient within ``tolerance``, clipping (if any) once after the accumulation,
            gradients zero after the update, one scheduler step per update (when a scheduler is
            checked) and no memory growth (when measured).
        symptom: ``None`` when passed, else one of the course's five symptoms (``"ineffective
            accumulation"``, ``"double division"``, ``"partition dependence"``, ``"memory growth"``,
            ``"schedule drift"``), ``"missing division"``, ``"constant divisor"`` (a constant ÷ A on a
            short group), ``"clipping per microbatch"``, ``"clipping before unscale"``, ``"clipping
            after the step"``, ``"objective mismatch"`` (a declared objective the update is not),
            ``"non-finite gradient"`` or ``"wrong gradient"``
            (none fits).
        message: what was measured and what to change ("what — fix (at FILE:LINE)").
        rel_error: ‖g − g_big‖₂ ÷ ‖g_big‖₂ of the gradient at the optimizer step (divided back by
            a norm clip's coefficient); ``None`` when no step happened.
        tolerance: the largest accepted ``rel_error`` (:func:`gastudy.check.judge.tolerance`:
            from the measured ``floor`` and the ``precision``, unless given).
        floor: the noise floor measured for this computation (the big batch in one forward vs
            microbatch by microbatch, in ``precision``); ``None`` when not measured.
        precision: what the update was judged in (``"float32"``, ``"bf16 autocast"``,
            ``"fp16 autocast + GradScaler"``, ``"float64 weights, float32 loss"``…).
        optimizer_steps: ``optimizer.step`` calls during the one update (1 is right).
        scheduler_steps: scheduler steps during the update (``None`` when no scheduler was given).
        microbatches, samples, supervised_items: the group checked (N = the denominator).
        normalization: what the captured gradient matched: ``"tokens"`` (right), ``"steps"``
            (the mean of microbatch means ÷ A), ``"sum of means"`` (÷ nothing), ``"last
            microbatch"``, ``"per replica"``, or ``None``.
        where: the line of your code to look at (``file:line in function: source``), when found.
        clip: what your clipping did (``norm_before``, ``norm_after``, ``fired``, ``max_norm``…),
            or ``None`` when the loop does not clip.
        verdicts: the detectors that ran (:class:`~gastudy.check.diagnostics.Verdict`).
        warnings: what is not wrong in this update's gradient but does not do what the code
            means (a ``no_sync`` that syncs anyway).
        notes: what the check changed on its copies or could not do (dropout off, ids added…).
        evidence: the numbers behind the message (JSON-ready).
        objective: what the big batch minimized: ``"tokens"`` (the sum of per-item losses ÷ N),
            ``"samples"`` (the per-sample mean), ``"sum"`` or ``"yours"`` (your function).
        objective_note: one line when the objective is not the token mean (how it was known,
            and what it means), else ``None``.
        confinement: what your step ran, printed and started, and what the check stopped
            (:class:`~gastudy.check.isolated.Confinement`), or ``None``.
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
    warnings: list[str] = field(default_factory=list)
    precision: str = ""
    floor: float | None = None
    where: str | None = None
    clip: dict[str, Any] | None = None
    replicas: int = 1
    objective: str = "tokens"
    objective_note: str | None = None
    confinement: Confinement | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field (verdicts as dicts; non-finite numbers as strings)."""
        return _jsonable({
            "passed": self.passed, "symptom": self.symptom, "message": self.message,
            "rel_error": self.rel_error, "tolerance": self.tolerance, "floor": self.floor,
            "precision": self.precision, "where": self.where, "clip": self.clip,
            "optimizer_steps": self.optimizer_steps, "scheduler_steps": self.scheduler_steps,
            "microbatches": self.microbatches, "samples": self.samples, "replicas": self.replicas,
            "supervised_items": self.supervised_items, "normalization": self.normalization,
            "verdicts": [{"symptom": v.symptom, "fired": v.fired, "message": v.message} for v in self.verdicts],
            "notes": self.notes, "warnings": self.warnings, "evidence": self.evidence, "subject": self.subject,
            "objective": self.objective, "objective_note": self.objective_note,
            "confinement": self.confinement.to_dict() if self.confinement is not None else None,
        })

    def _numbers(self) -> str:
        if self.rel_error is None:
            measured = "no optimizer step to compare"
        else:
            floor = "not measured" if self.floor is None else f"{self.floor:.1e}"
            if self.floor is None and self.evidence.get("floor_needed") is False:
                floor = "not needed: within the base tolerance"
            measured = (f"relative error {self.rel_error:.1e} vs the big batch in {self.precision or 'the same precision'}"
                        f" (noise floor {floor}, tolerance {self.tolerance:.1e})")
        return (f"{measured}; {self.optimizer_steps} optimizer step(s)"
                + ("" if self.scheduler_steps is None else f", {self.scheduler_steps} scheduler step(s)")
                + f"; {self.microbatches} microbatches" + (f" on {self.replicas} replicas" if self.replicas > 1 else "")
                + f", {self.samples} samples, N = {self.supervised_items} supervised items")

    def _lines(self) -> list[str]:
        head = (f"✓ PASSED: {self.subject}" if self.passed else f"✗ FAILED: {self.subject} — {self.symptom}")
        lines = [head, f"  {self.message}", f"  measured: {self._numbers()}"]
        if self.objective_note:
            lines.append(f"  objective: {self.objective_note}")
        if self.clip is not None:
            lines.append(f"  clipping: {self.clip['text']}")
        lines += [f"  {v}" for v in self.verdicts if v.fired and v.message not in self.message]
        lines += [f"  ⚠ {w}" for w in self.warnings]
        lines += [f"  note: {n}" for n in self.notes]
        if self.confinement is not None:
            lines.append(f"  run: {self.confinement.describe()}")
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
        return (f"<div lang='en' dir='ltr' style='border-left:4px solid {colour};padding:4px 10px'>"
                f"<b style='color:{colour}'>{html.escape(lines[0])}</b><ul style='margin:4px 0'>{body}</ul></div>")

    @classmethod
    def from_judgement(cls, verdict: Judgement, *, microbatches: int, samples: int, supervised_items: int,
                       subject: str, notes: list[str], evidence: dict[str, Any], scheduler_steps: int | None = None,
                       replicas: int = 1) -> LoopReport:
        """The report of a kernel :class:`~gastudy.check.judge.Judgement` (nothing else checked)."""
        clip = None
        if verdict.clip is not None:
            clip = {**verdict.clip.to_dict(), "text": verdict.clip.describe()}
        evidence = {**evidence, **verdict.evidence}
        return cls(verdict.passed, verdict.symptom, verdict.message, verdict.rel_error, verdict.tolerance,
                   verdict.optimizer_steps, scheduler_steps, microbatches, samples, supervised_items,
                   verdict.normalization, [], notes, evidence, subject, [], verdict.precision.label,
                   verdict.floor, verdict.where, clip, replicas, verdict.objective.name,
                   objective_note(verdict, samples))


def objective_note(verdict: Judgement, samples: int) -> str | None:
    """The one line a report gives an objective other than the token mean: which one, whether it
    was declared or read from the gradient, and what it weighs."""
    goal = verdict.objective
    if goal.name == "tokens":
        return None
    how = "read from the gradient" if verdict.objective_inferred else "as declared"
    if goal.name == "samples":
        return (f"{goal.describe(samples)}, {how} — not token-normalized: a short sample weighs as much as a long one"
                + ("; the accumulation is right for it (objective='samples' declares it, objective='tokens' asks for "
                   "the token mean)" if verdict.objective_inferred else ""))
    return f"{goal.describe(samples)}, {how}"


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


def switch_off_dropout(model: nn.Module) -> int:
    """Set every dropout probability of ``model`` to 0 in place; returns how many were on.

    Covers ``nn.Dropout`` modules (``p``) and float module attributes whose name contains
    ``dropout`` (how Hugging Face attention layers keep theirs). Use it on a *copy*: a random
    mask differs between the accumulated and the big-batch forwards, so gradients could not be
    compared.
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
    stream positions (0, 1, 2, … over all rows). Returns ``(batches, added)``."""
    if all("sample_ids" in mb for mb in microbatches):
        return [dict(mb) for mb in microbatches], False
    out, start = [], 0
    for mb in microbatches:
        rows = samples_in(mb)
        out.append({**mb, "sample_ids": torch.arange(start, start + rows)})
        start += rows
    return out, True


# ---------------------------------------------------------------------------------------------
# Running the user's update
# ---------------------------------------------------------------------------------------------


@dataclass
class _UserSetup(Setup):
    """A detector setup whose every group is the user's own microbatches (as given), and whose
    every run gets a fresh copy of the user's model in training mode with dropout off (no copy is
    held in between)."""

    batches: list[dict] = field(default_factory=list)

    def group(self, index: int = 0, microbatches: int | None = None) -> Group:
        k = len(self.batches) if microbatches is None else microbatches
        return build_group(index, self.batches[:k], self.accumulation_steps, self.task)

    def fresh(self) -> tuple[nn.Module, torch.optim.Optimizer, Any]:
        model, _ = _copy_for_check(self.model)
        optimizer = self.make_optimizer(model)
        scheduler = self.make_scheduler(optimizer) if self.make_scheduler is not None else None
        return model, optimizer, scheduler


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


def _copy_for_check(model: nn.Module) -> tuple[nn.Module, int]:
    """A deep copy in training mode, no gradients, dropout off; and how many dropouts were on."""
    clone = copy.deepcopy(model)
    clone.train()
    clone.zero_grad(set_to_none=True)
    return clone, switch_off_dropout(clone)


@dataclass
class WatchedUpdate:
    """One run of the user's update on a copy: its :class:`~gastudy.check.trace.LoopTrace`, the
    gradient the optimizer consumed (a vector, ``None`` unless exactly one step), whether
    gradients were left after it, the scheduler steps, how many dropouts were switched off, and
    the memory-growth verdict measured on the same run (``None`` with fewer than 3 microbatches)."""

    trace: LoopTrace
    step_gradient: torch.Tensor | None
    leftover: bool
    scheduler_steps: int | None
    dropped: int
    memory: Verdict | None = None


def watched_update(model: nn.Module, make_optimizer: OptimizerFactory, scheduler: SchedulerFactory | None,
                   update_fn: Callable[..., float], group: Group, train_step: TrainStep,
                   wrap: Callable[[nn.Module], nn.Module] | None = None) -> WatchedUpdate:
    """Run ``update_fn`` once on a copy of ``model`` (wrapped by ``wrap``, e.g. in DDP, when given) under
    :func:`~gastudy.check.trace.trace_loop`; the copy is dropped afterwards."""
    run_model, dropped = _copy_for_check(model)
    given = wrap(run_model) if wrap is not None else run_model
    run_opt = make_optimizer(given)
    if not isinstance(run_opt, torch.optim.Optimizer):
        raise TypeError(f"the optimizer factory returned {type(run_opt).__name__}, not a torch.optim.Optimizer: "
                        "return e.g. torch.optim.AdamW(model.parameters(), lr=…)")
    run_sched = scheduler(run_opt) if scheduler is not None else None
    epoch = getattr(run_sched, "last_epoch", None)
    code = getattr(train_step, "__globals__", None)
    measure = group.size >= 3  # the bytes kept alive, microbatch by microbatch, on this same run
    with trace_loop(run_model, run_opt, user_files=[source_file(train_step) or ""],
                    user_globals=[code] if isinstance(code, dict) else [], track_applied=False,
                    as_vector=True) as trace, \
            (LiveBytes(run_model) if measure else contextlib.nullcontext()) as live, \
            warnings.catch_warnings(), torch.enable_grad():  # grad mode is put back even if the step turns it off
        warnings.simplefilter("ignore")
        update_fn(given, run_opt, run_sched, group)
    sched_steps = run_sched.last_epoch - epoch if run_sched is not None and epoch is not None else None
    step_gradient = trace.steps[0].vector if len(trace.steps) == 1 else None
    for record in trace.steps:
        record.vector = None  # the step's vector is kept; the others are not needed
    memory = memory_growth(live, group.size) if measure else None
    trace.__dict__.pop("watch_optimizer", None)  # its closure holds the run's optimizer (and so its state)
    return WatchedUpdate(trace, step_gradient, not grads_are_zero(run_model), sched_steps, dropped, memory)


def loop_report(run: WatchedUpdate, model: nn.Module, group: Group, train_step: TrainStep, *,
                make_optimizer: OptimizerFactory, scheduler: SchedulerFactory | None,
                update_fn: Callable[..., float] | None, forward: Forward | None, tolerance: float | None,
                diagnose: bool, notes: list[str], replicas: Sequence[int] | None = None,
                objective: Objective | None = None) -> LoopReport:
    """The kernel's verdict on ``run`` against the big batch of ``group`` (on a fresh copy of
    ``model``) as a :class:`LoopReport`; then the detectors (when ``update_fn`` is given and
    ``diagnose``): the symptom measured, or the rest of a right update checked. ``objective``:
    what the big batch minimizes (``None``: inferred, see :func:`~gastudy.check.judge.judge_update`;
    a per-sample mean that only another split can tell from the mean of microbatch means is
    decided by re-splitting the samples and running ``update_fn`` again)."""
    release_freed_memory()  # the run's copy, optimizer state and activations are gone: hand their memory back
    ref_model, _ = _copy_for_check(model)
    per_forward = PER_FORWARD
    with torch.enable_grad():
        verdict, _, big = judge_update(run.trace, ref_model, group, forward=forward, tolerance_given=tolerance,
                                       step_gradient=run.step_gradient, replicas=replicas, per_forward=per_forward,
                                       objective=objective, floor=False)
    del ref_model
    release_freed_memory()
    resplit = None
    if verdict.objective_ambiguous:
        verdict, resplit = _same_under_any_split(verdict, model, group, update_fn if diagnose else None,
                                                 make_optimizer, scheduler, notes)
    if not big.joined and group.size > 1:
        notes.append("the batches could not be joined into one: the big batch was summed microbatch by microbatch "
                     "(the noise floor was not measured)")
    evidence: dict[str, Any] = {"task": group.task, "gradients_zero_after": not run.leftover}
    report = LoopReport.from_judgement(verdict, microbatches=group.size, samples=group.samples,
                                       supervised_items=group.supervised_items,
                                       subject=getattr(train_step, "__name__", "train_step"), notes=notes,
                                       evidence=evidence, scheduler_steps=run.scheduler_steps,
                                       replicas=len(set(replicas)) if replicas else 1)
    first = group.microbatches[0]
    setup = _UserSetup(model, [], micro_batch=samples_in(first), accumulation_steps=group.size, task=group.task,
                       collate="packed" if "position_ids" in first else "padded", make_optimizer=make_optimizer,
                       make_scheduler=scheduler, tolerance=verdict.tolerance, batches=group.microbatches)
    detectors = _Detectors(update_fn, setup, notes, diagnose and update_fn is not None)  # type: ignore[arg-type]
    if resplit is not None:
        report.verdicts.append(resplit)
    if not verdict.passed and resplit is not None and resplit.fired:
        report.message = f"{report.message}. Measured: {resplit.message}"
    elif not verdict.passed:
        _measure_wrong_gradient(detectors, verdict, report, group)
    else:
        zeroes_first = any(e.backward == 0 for e in run.trace.of("zero_grad"))
        _check_rest_of_update(detectors, report, run.leftover and not zeroes_first, run.scheduler_steps, group.size,
                              run.memory)
        if run.leftover and zeroes_first:
            notes.append("the gradients stay allocated after the update (the loop zeroes them before its first "
                         "backward, which is right); zero_grad(set_to_none=True) after the step would free them sooner")
    return report


def _same_under_any_split(verdict: Judgement, model: nn.Module, group: Group, update_fn: Callable[..., float] | None,
                          make_optimizer: OptimizerFactory, scheduler: SchedulerFactory | None,
                          notes: list[str]) -> tuple[Judgement, Verdict | None]:
    """A per-sample mean inferred where the mean of microbatch means gives the same update (one
    sample per microbatch): run the update again on the same samples split otherwise. The same
    gradient under every split → the loop's objective is the per-sample mean (``verdict``
    stands); another gradient → it is the mean of microbatch means (the token verdict, its
    ``alternative``). Without a way to re-split, the token verdict stands, with a note."""
    tokens = verdict.alternative
    assert tokens is not None
    resplittable = all("input_ids" in mb or "inputs" in mb for mb in group.microbatches)
    if update_fn is None or not resplittable:
        notes.append("with one sample per microbatch the per-sample mean and the mean of microbatch means are the "
                     "same update; gastudy could not re-split these samples to tell them apart — if the per-sample "
                     "mean is your objective, declare objective='samples'")
        return tokens, None
    setup = _UserSetup(model, [], micro_batch=samples_in(group.microbatches[0]), accumulation_steps=group.size,
                       task=group.task, collate="packed" if "position_ids" in group.microbatches[0] else "padded",
                       make_optimizer=make_optimizer, make_scheduler=scheduler, tolerance=verdict.tolerance,
                       batches=group.microbatches)
    rows = [samples_in(mb) for mb in group.microbatches]
    parts = [(rows[0], group.size), (group.samples, 1)] if len(set(rows)) == 1 else [(group.samples, 1), (1, group.samples)]
    found = _Detectors(update_fn, setup, notes).run(diagnose_partition_dependence, partitions=parts)
    if found is None:
        return tokens, None
    if found.fired:
        return tokens, found
    notes.append(f"the per-sample mean was told from the mean of microbatch means by re-splitting the samples: "
                 f"{found.message}")
    return verdict, found


def update_function(train_step: TrainStep, sched_param: str | None, drop_ids: bool, labels: str = "labels",
               ignore_index: int = -100) -> Callable[..., float]:
    """The user's train_step as a detector's update function (see :mod:`gastudy.course.pitfalls`):
    fresh copies of the batches every call, as the user gave them (their labels key and ignored
    value, no ids they did not have), the scheduler passed by name, errors wrapped."""

    def as_given(batch: Mapping[str, Any]) -> dict[str, Any]:
        out = _clone_batches([batch], drop_ids)[0]
        if labels != "labels":
            out.pop("labels", None)
        elif ignore_index != -100 and "labels" in out:
            out["labels"] = out["labels"].masked_fill(out["labels"] == -100, ignore_index)
        return out

    def update_fn(model: nn.Module, optimizer: torch.optim.Optimizer, scheduler: Any, group: Group) -> float:
        kwargs = {sched_param: scheduler} if sched_param is not None else {}
        try:
            out = train_step(model, optimizer, [as_given(mb) for mb in group.microbatches], **kwargs)
        except Exception as err:
            where = _where(err, train_step)
            raise TrainStepError(f"train_step raised {type(err).__name__}: {err}" + (f" (at {where})" if where else "")
                                 + f" — while check_loop ran it on a copy of your model with {group.size} "
                                 "microbatches", where) from err
        try:
            return float(out)
        except Exception:  # None, a dict, an object whose __float__ raises: the logged loss is optional
            return math.nan

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


def _measure_wrong_gradient(detectors: _Detectors, verdict: Judgement, report: LoopReport, group: Group) -> None:
    """Measure the kernel's symptom on your function: the same samples split differently
    (partition dependence), two updates in a row (ineffective accumulation)."""
    resplit = all("input_ids" in mb or "inputs" in mb for mb in group.microbatches)
    if verdict.symptom == "partition dependence" and verdict.normalization != "per replica" and not resplit:
        detectors.notes.append("the same samples were not re-split into other microbatches to measure it: gastudy "
                               "re-splits token batches (input_ids) and fixed-size inputs (inputs) only")
        return
    if verdict.symptom == "partition dependence" and verdict.normalization != "per replica":
        rows = [samples_in(mb) for mb in group.microbatches]
        parts = [(rows[0], group.size)] if len(set(rows)) == 1 else []
        parts += [p for p in ((group.samples, 1), (1, group.samples)) if p not in parts]
        found = detectors.run(diagnose_partition_dependence, partitions=parts)
    elif verdict.symptom == "ineffective accumulation" and verdict.optimizer_steps <= 1:
        found = detectors.run(diagnose_ineffective_accumulation)
    else:
        return
    if found is None:
        return
    report.verdicts.append(found)
    if found.fired and verdict.normalization in ("steps", "sum of means", "tokens"):
        report.message = f"{report.message}. Measured: {found.message}"


def _check_rest_of_update(detectors: _Detectors, report: LoopReport, leftover: bool, sched_steps: int | None,
                          microbatches: int, memory: Verdict | None = None) -> None:
    """A right gradient can still hide a mistake: gradients left for the next update, the
    schedule, memory (``memory``: measured on the update itself). Fails ``report`` with the
    symptom when one is found."""
    symptom, message, verdict = _rest_of_update(detectors, leftover, sched_steps, microbatches, memory)
    if verdict is not None:
        report.verdicts.append(verdict)
    if symptom is not None:
        report.passed, report.symptom, report.normalization, report.message = False, symptom, "tokens", message
    else:
        report.message += message


def _rest_of_update(detectors: _Detectors, leftover: bool, sched_steps: int | None,
                    microbatches: int, memory: Verdict | None = None) -> tuple[str | None, str, Verdict | None]:
    """A right gradient can still hide a mistake: gradients left for the next update, the schedule,
    memory. Returns ``(symptom or None, message, verdict)``; when passed the message is a suffix."""
    if leftover:
        verdict = detectors.run(diagnose_ineffective_accumulation)
        if verdict is not None and not verdict.fired:  # zeroed somewhere gastudy does not watch: two updates agree
            detectors.notes.append("the gradients stay allocated after the update; two updates in a row show nothing "
                                   "leaking from one into the next")
            return None, "", verdict
        message = ("the gradient was right, but the gradients were not zeroed after the update: the next group's "
                   "gradient will contain this one's — call optimizer.zero_grad() after optimizer.step()")
        return ("ineffective accumulation", message if verdict is None else f"{message}. {verdict.message}", verdict)
    if sched_steps is not None and sched_steps != 1:
        verdict = detectors.run(diagnose_schedule_drift)
        message = (f"the scheduler stepped {sched_steps} times in one update of {microbatches} microbatches — step it "
                   "once per applied update, after optimizer.step()")
        return "schedule drift", message if verdict is None else verdict.message, verdict
    if microbatches < 3:
        detectors.notes.append("memory growth not measured: it needs at least 3 microbatches")
        return None, "", None
    verdict = memory if memory is not None else detectors.run(diagnose_memory_growth)
    if verdict is None:
        return None, "", None
    if verdict.fired:
        return "memory growth", verdict.message, verdict
    return None, ", no memory growth", verdict


__all__ = ["PER_FORWARD", "LoopReport", "TrainStepError", "WatchedUpdate", "loop_report", "switch_off_dropout",
           "update_function", "watched_update", "with_sample_ids"]

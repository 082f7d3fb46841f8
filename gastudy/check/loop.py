"""Check *your* training loop: one accumulated update of your code against the big batch (MB-10, MB-11).

:func:`check_loop` takes the function you train with, unchanged::

    def train_step(model, optimizer, microbatches):      # ONE accumulated update
        ...                                              # forward/backward per microbatch, one step

    report = gastudy.check_loop(train_step, model, microbatches)

and runs it on a deep copy of ``model`` with a fresh optimizer (your model, optimizer and
batches are never touched), watched by :func:`~gastudy.check.trace.trace_loop`: the gradient
the optimizer consumed, your clipping, your ``GradScaler``, the autocast your forwards ran in,
the line of every backward. The verdict is the kernel's (:mod:`gastudy.check.judge`): the
gradient before clipping against the big batch of the same samples in your precision, with a
tolerance from its measured noise floor. When it is right, the rest of the update is checked
(gradients zeroed, one scheduler step, memory that does not grow); when it is wrong, the
kernel names what it is and the detectors of :mod:`gastudy.check.diagnostics` measure the
symptom on your function.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import torch
from torch import nn

from gastudy.check.diagnostics import default_optimizer, default_scheduler
from gastudy.check.isolated import CheckTimeout, Owned
from gastudy.check.objective import YourObjective, as_objective
from gastudy.check.reference import Forward
from gastudy.check.watched import (
    LoopReport,
    TrainStepError,
    loop_report,
    switch_off_dropout,
    update_function,
    watched_update,
    with_sample_ids,
)
from gastudy.core.counting import check_task, task_of_batch
from gastudy.core.groups import build_group

TrainStep = Callable[..., Any]
DEFAULT_TIME_LIMIT_S = 300.0  # a check in this process; the command line has its own --timeout
OptimizerFactory = Callable[[nn.Module], torch.optim.Optimizer]
SchedulerFactory = Callable[[torch.optim.Optimizer], Any]


def as_optimizer_factory(optimizer: OptimizerFactory | torch.optim.Optimizer | None) -> OptimizerFactory:
    """How :func:`check_loop` gets an optimizer for each copy of the model.

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


def _validated(microbatches: Any, labels: str) -> list[Mapping[str, torch.Tensor]]:
    if isinstance(microbatches, Mapping):
        raise TypeError("microbatches is one batch dict; pass the list of the update's microbatches, e.g. [batch]")
    if not isinstance(microbatches, Iterable) or isinstance(microbatches, (str, bytes)):
        raise TypeError(f"microbatches must be a list of batch dicts, got {type(microbatches).__name__}")
    batches = list(microbatches)
    if not batches:
        raise ValueError("microbatches is empty: pass the A microbatches of one update (a list of batch dicts)")
    for i, mb in enumerate(batches):
        if not isinstance(mb, Mapping):
            raise TypeError(f"microbatch {i} is a {type(mb).__name__}, not a dict of tensors")
        if labels not in mb and "shift_labels" not in mb:
            raise ValueError(f"microbatch {i} has no {labels!r} (keys: {sorted(mb)}): the big-batch reference "
                             "needs the labels your loss uses (name their key with labels=…)")
        for k, v in mb.items():
            if isinstance(v, torch.Tensor) and v.device.type == "meta":
                raise ValueError(f"microbatch {i}[{k!r}] is on the meta device (no data): pass real tensors")
    return batches


def _relabelled(batches: Sequence[Mapping[str, Any]], labels: str, ignore_index: int) -> list[dict[str, Any]]:
    """The batches as the reference reads them: the labels under ``labels``, their ignored
    value ``ignore_index`` → -100 (the model still gets every key it got)."""
    if labels == "labels" and ignore_index == -100:
        return [dict(mb) for mb in batches]
    out = []
    for mb in batches:
        if labels not in mb:
            out.append(dict(mb))
            continue
        y = mb[labels]
        if not isinstance(y, torch.Tensor) or y.is_floating_point():
            raise TypeError(f"the labels {labels!r} must be a tensor of integer class/token ids")
        out.append({**mb, "labels": y.masked_fill(y == ignore_index, -100) if ignore_index != -100 else y})
    return out


def check_loop(train_step: TrainStep, model: nn.Module, microbatches: Iterable[Mapping[str, torch.Tensor]], *,
               optimizer: OptimizerFactory | torch.optim.Optimizer | None = None,
               scheduler: SchedulerFactory | None = None, task: str | None = None,
               tolerance: float | None = None, diagnose: bool = True, labels: str = "labels",
               ignore_index: int = -100, forward: Forward | None = None, replicas: int = 1,
               timeout_s: float | None = None, objective: str | YourObjective | None = None) -> LoopReport:
    """Run YOUR accumulated update once on a copy and compare it with the big batch.

    Args:
        train_step: your function ``train_step(model, optimizer, microbatches)`` that performs ONE
            accumulated update (forward/backward per microbatch, one ``optimizer.step``), with
            your precision, ``GradScaler`` and clipping. If it has a ``scheduler`` (or
            ``lr_scheduler``) parameter it also gets a scheduler and must step it once per
            update. Its return value is ignored.
        model: your model; only deep copies are trained (dropout switched off on them).
        microbatches: the A microbatches of one update, dicts of tensors with the labels (and
            ``shift_labels`` from a padding-free collator). Your function gets copies, as given.
        optimizer: a factory ``model → optimizer`` (called for every copy), an optimizer whose
            class and defaults are reused, or ``None`` for SGD.
        scheduler: a factory ``optimizer → scheduler`` (default: ``LambdaLR`` 1/(1+updates) when
            ``train_step`` takes a scheduler).
        task: how supervised items are counted — ``causal`` (labels shifted inside the loss),
            ``masked`` (every label position is a target; also targets shifted beforehand, as
            nanoGPT's) or ``classification``; default inferred (``inputs`` key → classification,
            else causal).
        tolerance: largest accepted relative error; default from the measured noise floor and
            the precision your loop computes in (:func:`gastudy.check.judge.tolerance`).
        diagnose: run the detectors to measure a symptom (turn off for a quick verdict).
        labels: the key of the labels in your batches (``"targets"`` for nanoGPT's).
        ignore_index: the label value your loss ignores (-100; nanoGPT's is -1).
        forward: ``forward(model, batch) → output`` for the reference when ``model(**batch)``
            (minus labels and ids) is not how your model is called.
        replicas: D > 1 runs your ``train_step`` on D local processes (gloo), each with a copy
            of the model wrapped in ``DistributedDataParallel`` and its own A microbatches
            (``microbatches`` holds the D·A of one global update: rank r gets the r-th run of
            A, or pass one list per rank); the global update is judged against the big batch
            over all of them (see :func:`gastudy.check.replicas.check_loop_on_replicas`).
            ``train_step`` (and the optimizer/scheduler factories) must be importable by the
            worker processes: define them at the top level of a ``.py`` module.
        timeout_s: the time limit of the whole check, in seconds (default 300 s in this process,
            120 s with replicas; ``math.inf``: none). In this process a check past it is
            interrupted (:class:`TrainStepError`); whatever your step started is stopped when
            the check ends, and ``report.confinement`` says what it ran, printed and left.
        objective: what your loop minimizes over the group — the big batch is computed with the
            same objective, so that the accumulation is what is checked. ``None`` (default):
            inferred — the token mean (``"tokens"``: the sum of per-item losses ÷ the group's
            supervised items N), or, when your update is not that but is exactly the per-sample
            mean of the group, ``"samples"`` (each sample's token mean, averaged over the
            group's samples; told from the mean of microbatch means by re-splitting when one
            sample per microbatch makes them the same update). Declare it when it cannot be
            inferred: ``"sum"`` (the summed loss, divided by nothing: indistinguishable from a
            missing division otherwise), or a function ``objective(output, batch) -> loss`` that
            computes your loss on any batch (label smoothing, an auxiliary term); it is
            computed on the whole group joined into one batch. A declared objective your update
            does not match fails as ``"objective mismatch"`` when the update is another one.

    What is compared: the gradient the optimizer consumed — divided back by your norm clip's
    coefficient when it fired — with the big batch over the same samples: one forward, the sum
    of per-item losses ÷ the group's supervised items N, in the precision your loop computed in
    (the dtype its graphs' matrix products ran in — autocast wherever it was entered —, the
    dtype of its loss, a loss scale with fp16). It
    passes when there is exactly one optimizer step, that gradient matches within the
    tolerance, clipping (if any) ran once, after the accumulation and after ``unscale_``, the
    gradients are zero after the update, the scheduler (if any) stepped once, and — with ≥ 3
    microbatches — the bytes kept alive do not grow from microbatch to microbatch.

    What it cannot see: a mistake smaller than the tolerance (in bf16, a few percent); what
    differs between updates but not inside one (a learning rate that ignores the schedule,
    data that repeats across epochs); code that bypasses ``optimizer.step``; an objective other
    than the token mean or the per-sample mean that is not declared.

    Returns a :class:`LoopReport`. Raises ``TypeError``/``ValueError`` for bad arguments (empty
    or malformed microbatches, no supervised item, a scheduler your function cannot take, a
    tolerance that is not a positive number, an unknown objective) and :class:`TrainStepError`
    when your function raises (the cause chained).
    """
    if not callable(train_step):
        raise TypeError(f"train_step must be a function train_step(model, optimizer, microbatches), got "
                        f"{type(train_step).__name__}")
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if next(model.parameters(), None) is None:
        raise ValueError("model has no parameters: there is no gradient to check")
    if tolerance is not None:
        from gastudy.check.judge import tolerance as tolerance_model

        tolerance_model(None, None, tolerance)  # type: ignore[arg-type]  # raises for a bad value
    if not isinstance(labels, str) or not isinstance(ignore_index, int) or isinstance(ignore_index, bool):
        raise TypeError(f"labels must be a key (str) and ignore_index an int, got {labels!r}, {ignore_index!r}")
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 1:
        raise ValueError(f"replicas must be a positive int (the number of processes), got {replicas!r}")
    goal = as_objective(objective)
    if timeout_s is not None and (isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float))
                                  or not timeout_s > 0):
        raise ValueError(f"timeout_s must be a positive number of seconds (math.inf for none), got {timeout_s!r}")
    if replicas > 1 and isinstance(microbatches, Sequence) and microbatches and all(
            isinstance(part, Sequence) and not isinstance(part, Mapping) for part in microbatches):
        if len(microbatches) != replicas or len({len(part) for part in microbatches}) != 1:
            raise ValueError(f"with replicas={replicas}, pass {replicas} lists of the same length (one per rank), got "
                             f"{len(microbatches)} of lengths {[len(part) for part in microbatches]}")
        microbatches = [mb for part in microbatches for mb in part]
    batches = _validated(microbatches, labels)
    if replicas > 1 and (len(batches) % replicas or len(batches) < replicas):
        raise ValueError(f"{len(batches)} microbatches cannot be split over {replicas} replicas: pass D·A of them "
                         "(rank r gets the r-th run of A)")
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
        group = build_group(0, _relabelled(ided, labels, ignore_index), len(ided), task)
    except (KeyError, ValueError) as err:
        raise ValueError(f"cannot count the supervised items of these microbatches for task {task!r}: {err}") from err
    if group.supervised_items == 0:
        raise ValueError(f"the microbatches hold no supervised item (every label is {ignore_index}): nothing to compare")

    notes: list[str] = []
    if added_ids:
        notes.append("the batches have no 'sample_ids': their rows were numbered 0…n-1 in stream order")
    update_fn = update_function(train_step, sched_param, added_ids, labels, ignore_index)
    if replicas != 1:
        from gastudy.check.replicas import check_loop_on_replicas

        return check_loop_on_replicas(train_step, model, group, replicas, make_optimizer=make_optimizer,
                                      scheduler=scheduler, update_args=(sched_param, added_ids, labels, ignore_index),
                                      forward=forward, tolerance=tolerance, notes=notes, timeout_s=timeout_s,
                                      objective=goal)
    owned = Owned(DEFAULT_TIME_LIMIT_S if timeout_s is None else timeout_s)
    try:
        with owned:
            run = watched_update(model, make_optimizer, scheduler, update_fn, group, train_step)
            if run.dropped:
                notes.append(f"dropout switched off on the copies ({run.dropped} places): random masks would differ "
                             "between your update and the big batch")
            report = loop_report(run, model, group, train_step, make_optimizer=make_optimizer, scheduler=scheduler,
                                 update_fn=update_fn, forward=forward, tolerance=tolerance, diagnose=diagnose,
                                 notes=notes, objective=goal)
    except CheckTimeout as err:
        raise TrainStepError(f"{err} — while check_loop ran {getattr(train_step, '__name__', 'train_step')} on a copy "
                             f"({owned.confinement.describe()})") from err
    report.confinement = owned.confinement
    return report


__all__ = ["LoopReport", "TrainStepError", "as_optimizer_factory", "check_loop", "switch_off_dropout",
           "with_sample_ids"]

"""Check YOUR Hugging Face ``Trainer``: one accumulated update against the big batch (MB-10, MB-11).

:func:`check_trainer` runs ``trainer.train()`` for exactly one optimizer update on a shallow
copy of your Trainer that holds a deep copy of its model (your Trainer, its model, state and
global random state are left as they were). Everything that decides the update is yours: the
class (so your ``compute_loss`` / ``training_step`` overrides), ``compute_loss_func``, the data
collator and dataset, ``gradient_accumulation_steps``, ``loss_is_scaled_for_ga`` and
``model_accepts_loss_kwargs``. The copy differs only where a check needs it to (see
:data:`CHECK_ARGS`): no clipping, one update, no saving, logging, reporting or evaluation, an
output folder in a temporary directory, and your callbacks are not run.

Two things are captured: the microbatches the Trainer drew for the update (from its own
``get_batch_samples``, with its ``num_items_in_batch``) and the gradient its optimizer consumed
(an optimizer step pre-hook, :func:`gastudy.check.steps.record_steps`). The big batch over the
same microbatches — the sum of per-token losses ÷ the supervised items N, causal labels
counted after the shift — is computed on another copy of the model, microbatch by microbatch
(:func:`gastudy.check.loop.microbatch_contributions`), and
:func:`gastudy.check.loop.explain_gradient` names a mismatch.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import random
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from gastudy.check.judge import judge_update
from gastudy.check.objective import Objective, as_objective
from gastudy.check.reference import flat_gradient
from gastudy.check.trace import source_file, trace_loop, watch_optimizer
from gastudy.check.watched import LoopReport, TrainStepError, switch_off_dropout, with_sample_ids
from gastudy.core.counting import check_task
from gastudy.core.groups import build_group

# What the copy of the Trainer changes in its TrainingArguments (fields this transformers lacks are skipped).
CHECK_ARGS: dict[str, Any] = {
    "max_steps": 1, "save_strategy": "no", "logging_strategy": "no", "eval_strategy": "no",
    "report_to": "none", "disable_tqdm": True, "push_to_hub": False, "load_best_model_at_end": False,
    "eval_on_start": False, "torch_compile": False, "resume_from_checkpoint": None,
}


@contextlib.contextmanager
def _global_rng_kept() -> Iterator[None]:
    """``Trainer.train`` seeds Python, NumPy and torch: put every generator back afterwards."""
    state = random.getstate()
    try:
        import numpy as np

        np_state = np.random.get_state()
    except ImportError:  # pragma: no cover - numpy is a dependency of torch's wheels
        np, np_state = None, None
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    try:
        with torch.random.fork_rng(devices=devices):
            yield
    finally:
        random.setstate(state)
        if np is not None:
            np.random.set_state(np_state)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """transformers' advisory logging off during the check, the caller's verbosity restored."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        hf_logging.set_verbosity(level)


def _task(model: nn.Module, batch: dict[str, torch.Tensor]) -> str:
    """How the big batch counts items: ``causal`` (labels shifted) when the model's own loss is a
    causal-LM loss — decided from the model, not from the Trainer's ``_loss_shifts_labels``,
    which transformers derives from ``loss_type`` (``None`` for e.g. ``GPT2LMHeadModel``)."""
    from transformers.loss.loss_utils import ForCausalLMLoss
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    config = getattr(model, "config", None)
    if "shift_labels" in batch:
        return "causal"
    if "labels" not in batch:
        targets = sorted(k for k in batch if k.endswith(("positions", "_labels", "label", "targets")))
        raise ValueError(_unsupported(model, f"its batches carry no 'labels' (keys: {sorted(batch)}"
                                             + (f"; it trains on {', '.join(targets)}" if targets else "") + ")"))
    if not getattr(config, "is_encoder_decoder", False) and (
            type(model).__name__ in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.values()
            or getattr(type(model), "loss_function", None) is not None and model.loss_function is ForCausalLMLoss):
        return "causal"
    return "classification" if batch["labels"].dim() == 1 else "masked"


def _unsupported(model: nn.Module, why: str) -> str:
    """The one message for a model family check_trainer cannot compare with a big batch."""
    return (f"check_trainer cannot check {type(model).__name__}: {why}. It compares the update with the big batch of "
            "a cross entropy of the model's logits against 'labels', item by item (causal and masked LMs, token "
            "and sequence classification, seq2seq models); a loss computed from other targets (start/end "
            "positions, CTC, a contrastive head) is not something it can recompute over the whole group")


def _copy_of(trainer: Any, model: nn.Module, output_dir: str, callback: Any) -> Any:
    """A shallow copy of ``trainer`` that trains ``model`` for one update under :data:`CHECK_ARGS`."""
    from transformers.trainer_callback import CallbackHandler, DefaultFlowCallback, TrainerControl

    fields = {f.name for f in dataclasses.fields(trainer.args) if f.init}
    changes = {k: v for k, v in CHECK_ARGS.items() if k in fields}
    try:
        args = dataclasses.replace(trainer.args, output_dir=output_dir, **changes)
    except Exception as err:
        raise ValueError(f"cannot copy the Trainer's TrainingArguments for the check: {type(err).__name__}: {err}") from err
    clone = copy.copy(trainer)
    clone.args = args
    clone.model = clone.model_wrapped = model
    clone.model_init = None  # check the model you gave, not a fresh initialization
    clone.optimizer = clone.lr_scheduler = None  # fresh ones over the copy's parameters
    if hasattr(clone, "_created_lr_scheduler"):
        clone._created_lr_scheduler = False
    clone.create_accelerator_and_postprocess()  # the copy's own Accelerator (its state is not shared)
    # train() starts with accelerator.free_memory(): a full gc.collect() (about a second in a big
    # process) to release what earlier runs prepared. This Accelerator is new and holds nothing.
    clone.accelerator.free_memory = lambda *objects: list(objects)
    processing = getattr(trainer, "processing_class", getattr(trainer, "tokenizer", None))
    clone.callback_handler = CallbackHandler([DefaultFlowCallback(), callback], model, processing, None, None)
    clone.control = TrainerControl()
    return clone


def check_trainer(trainer: Any, *, tolerance: float | None = None, task: str | None = None, replicas: int = 1,
                  timeout_s: float | None = None, objective: str | None = None) -> LoopReport:
    """Run ONE accumulated update of your ``transformers.Trainer`` on a copy and check it.

    Args:
        trainer: your Trainer (or subclass), with ``model`` and ``train_dataset`` set. The
            update uses its first ``gradient_accumulation_steps`` batches as its own data
            loader draws them (its sampler, collator and batch size).
        tolerance: largest accepted ‖g − g_big‖₂ ÷ ‖g_big‖₂; default the kernel's, from the
            measured noise floor and the precision the Trainer computes in (the dtype of its
            loss: GPT-2's upcasts the logits to float32; :func:`gastudy.check.judge.tolerance`).
        task: how the big batch counts supervised items (``causal``, ``masked``,
            ``classification``); default: ``causal`` for a causal LM (its loss shifts the labels)
            or batches with ``shift_labels``, ``classification`` for 1-D labels (a sequence or
            image classifier), else ``masked`` (token classification, a masked LM, the targets
            of a seq2seq model — T5, BART —, whose decoder inputs are built from the labels as
            the model builds them).
        objective: what the update minimizes, as in :func:`gastudy.check_loop` (``None``:
            inferred — the token mean, or a per-sample mean the Trainer accumulates exactly;
            ``"tokens"``, ``"samples"``, ``"sum"``).

    What is compared: the gradient the optimizer consumed, divided back by the clip coefficient
    when ``max_grad_norm`` fired (the report says the norm before → after), with the big-batch
    gradient of the same microbatches — the sum of per-token losses ÷ the supervised items N
    (for a causal LM, labels ≠ -100 after the shift, or ``shift_labels`` as given). Dropout is switched off on the copies (a random mask would
    differ between the two computations). ``report.notes`` names both when they apply, and
    a ``num_items_in_batch`` that differs from N.

    Outcomes (``report.symptom``): ``None`` (passed); ``"double division"`` — e.g. a loss already
    ÷ ``num_items_in_batch`` with ``loss_is_scaled_for_ga = False``, divided again by A;
    ``"partition dependence"`` with ``report.normalization == "steps"`` — ``compute_loss``
    ignores ``num_items_in_batch`` (a per-microbatch mean, ÷ A by the Trainer), or ``"sum of
    means"`` when that mean is declared scaled; ``"ineffective accumulation"`` (no optimizer
    step or more than one); ``"wrong gradient"`` (none of these). ``report.evidence`` holds the
    Trainer's settings (``loss_is_scaled_for_ga`` declared and in effect,
    ``model_accepts_loss_kwargs``, its ``num_items_in_batch``) and the measured numbers.

    On D processes (``replicas=D``) pass a *factory* instead of a Trainer: a function of no
    arguments, importable by worker processes (top level of a ``.py`` module), that builds your
    Trainer; each of D local processes (gloo) builds it and runs one update as its own data
    loader draws it (the Trainer's distributed sampler, its DDP, its
    ``average_tokens_across_devices``), and the global update — every rank's microbatches — is
    judged on rank 0 (``report.normalization == "per replica"`` when every rank divides by its
    own token count).

    Never changes ``trainer``, its model, optimizer, state or callbacks, nor the global random
    state (``train()`` seeds it; it is restored). Raises ``TypeError`` for a non-Trainer,
    ``ValueError`` without a model or training data, for an unknown ``task`` or ``objective``,
    for a model family whose loss is not a cross entropy of its logits against ``labels`` item by
    item (question answering's start/end positions, CTC, contrastive heads: one message that
    says so and what to use instead), a Trainer set up for several processes (pass a factory
    and ``replicas``), or a factory that worker processes cannot import, and
    :class:`gastudy.check.loop.TrainStepError` when the Trainer raises during the update.
    """
    goal = as_objective(objective)
    if goal is not None and goal.yours:
        raise ValueError("check_trainer takes objective='tokens', 'samples' or 'sum'; for a loss function of your own, "
                         "pass it to the Trainer as compute_loss_func and check that")
    if replicas != 1:
        return _check_trainer_on_replicas(trainer, replicas, tolerance, task, timeout_s, goal)
    run = _one_update(trainer, task)
    return _judged(run, tolerance, objective=goal)


@dataclass
class _TrainerUpdate:
    """One update of a copy of the Trainer, as :func:`_one_update` saw it."""

    trace: Any
    step_gradient: torch.Tensor | None
    batches: list[dict[str, torch.Tensor]]
    num_items: int | None
    task: str
    template: nn.Module
    notes: list[str]
    settings: dict[str, Any]


def _one_update(trainer: Any, task: str | None) -> _TrainerUpdate:
    """Run ``trainer.train()`` for one update on a copy (see :func:`check_trainer`), watched."""
    from transformers import Trainer, TrainerCallback

    if not isinstance(trainer, Trainer):
        raise TypeError(f"check_trainer needs a transformers.Trainer, got {type(trainer).__name__}; "
                        "for your own loop use gastudy.check_loop")
    if getattr(trainer, "model", None) is None:
        raise ValueError("the Trainer has no model (model_init is not supported): pass model= to the Trainer")
    if trainer.train_dataset is None:
        raise ValueError("the Trainer has no train_dataset: check_trainer draws one update from it")
    if task is not None:
        check_task(task)
    distributed = torch.distributed.is_available() and torch.distributed.is_initialized()
    if getattr(trainer.args, "world_size", 1) > 1 and not distributed:
        raise ValueError(f"this Trainer is set up for {trainer.args.world_size} processes: pass a function that "
                         "builds it and replicas=… (check_trainer(make_trainer, replicas=2)), or check it on one "
                         "process first")

    template = copy.deepcopy(trainer.accelerator.unwrap_model(trainer.model))
    notes: list[str] = []
    dropped = switch_off_dropout(template)
    if dropped:
        notes.append(f"dropout switched off on the copies ({dropped} places): random masks would differ between "
                     "the Trainer's update and the big batch")
    template.train()
    run_model = copy.deepcopy(template)
    drawn: list[tuple[list[dict], Any]] = []
    traces: list[Any] = []

    class _Capture(TrainerCallback):
        """Starts recording optimizer steps once the Trainer has built its optimizer."""

        def on_train_begin(self, args, state, control, optimizer=None, **kwargs):  # noqa: ARG002
            watch_optimizer(traces[0], getattr(optimizer, "optimizer", optimizer))  # Accelerate's wrapper → torch's

    files = [source_file(getattr(type(trainer), name)) for name in ("compute_loss", "training_step")
             if getattr(type(trainer), name) is not getattr(Trainer, name)]
    with tempfile.TemporaryDirectory(prefix="gastudy-check-") as out, _global_rng_kept(), _quiet(), \
            trace_loop(run_model, None, user_files=[f for f in files if f], track_applied=False) as trace:
        traces.append(trace)
        clone = _copy_of(trainer, run_model, out, _Capture())
        original = clone.get_batch_samples

        def get_batch_samples(*args: Any, **kwargs: Any):
            batches, num_items = original(*args, **kwargs)
            drawn.append((list(batches), num_items))
            return batches, num_items

        clone.get_batch_samples = get_batch_samples
        try:
            clone.train()
        except Exception as err:
            raise TrainStepError(f"the Trainer raised {type(err).__name__}: {err} — while check_trainer ran one "
                                 f"update of {type(trainer).__name__} on a copy of its model") from err
        A_configured = clone.args.gradient_accumulation_steps
        current_A = getattr(clone, "current_gradient_accumulation_steps", A_configured)
        accepts = bool(getattr(clone, "model_accepts_loss_kwargs", False))
        compute_loss_func = getattr(clone, "compute_loss_func", None)
        declared = getattr(clone, "loss_is_scaled_for_ga", None)

    if not drawn or not drawn[0][0]:
        raise ValueError("the Trainer drew no batch for the update: is train_dataset empty?")
    batches, num_items = drawn[0]
    batches = [{k: v for k, v in mb.items() if isinstance(v, torch.Tensor)} for mb in batches]
    task = task or _task(template, batches[0])
    hf_items = None if num_items is None else int(torch.as_tensor(num_items).reshape(-1)[0])
    effective = declared if declared is not None else ((accepts and num_items is not None)
                                                       or compute_loss_func is not None)
    evidence: dict[str, Any] = {
        "trainer": type(trainer).__name__, "gradient_accumulation_steps": A_configured,
        "per_device_train_batch_size": trainer.args.per_device_train_batch_size, "task": task,
        "num_items_in_batch": hf_items, "model_accepts_loss_kwargs": accepts,
        "loss_is_scaled_for_ga": declared, "loss_is_scaled_for_ga_in_effect": bool(effective),
        "compute_loss_overridden": type(trainer).compute_loss is not Trainer.compute_loss,
        "compute_loss_func": compute_loss_func is not None, "current_gradient_accumulation_steps": current_A,
        "max_grad_norm": trainer.args.max_grad_norm, "model": type(template).__name__,
    }
    step_gradient = flat_gradient(trace.steps[0].gradients, run_model) if len(trace.steps) == 1 else None
    for record in trace.steps:
        record.gradients = {}
    trace.__dict__.pop("watch_optimizer", None)  # a closure: not sent between processes
    return _TrainerUpdate(trace, step_gradient, batches, hf_items, task, template, notes, evidence)


def _judged(run: _TrainerUpdate, tolerance: float | None, others: list[_TrainerUpdate] = (),
            objective: Objective | None = None) -> LoopReport:
    """The kernel's verdict on ``run`` (and, on D processes, the other ranks' ``others``: the
    global update is every rank's microbatches, in rank order)."""
    runs = [run, *others]
    ided, _ = with_sample_ids([mb for r in runs for mb in r.batches])
    group = build_group(0, ided, len(ided), run.task)
    if group.supervised_items == 0:
        raise ValueError("the update's microbatches hold no supervised item (every label is -100): there is no "
                         "gradient to compare; check the collator's labels")
    owner = [rank for rank, r in enumerate(runs) for _ in r.batches] if others else None
    A, N, notes = group.size, group.supervised_items, list(run.notes)
    evidence = {**run.settings, "items": group.items}
    counted = run.num_items  # with average_tokens_across_devices every rank holds the global count
    if others:
        evidence["num_items_in_batch_per_rank"] = [r.num_items for r in runs]
    if counted is not None and counted != N:
        notes.append(f"the Trainer counted num_items_in_batch = {counted} supervised items; gastudy counts N = {N} "
                     "(causal labels after the shift, -100 never counts" + (", over every replica)" if others else ")"))
    try:
        verdict, _, _ = judge_update(run.trace, copy.deepcopy(run.template), group, tolerance_given=tolerance,
                                     step_gradient=run.step_gradient, replicas=owner, objective=objective, floor=False)
    except (ValueError, TypeError) as err:
        if "do not match labels" in str(err) or "cannot find the logits" in str(err):
            raise ValueError(_unsupported(run.template, str(err).split(":")[0])) from err
        raise
    if verdict.objective_ambiguous:  # one sample per microbatch, and no re-split of the Trainer's own data
        assert verdict.alternative is not None
        verdict = verdict.alternative
        notes.append("with one sample per microbatch the per-sample mean and the mean of microbatch means are the "
                     "same update: if the per-sample mean is your objective, pass objective='samples'")
    subject = (f"{evidence['trainer']} (gradient_accumulation_steps={evidence['gradient_accumulation_steps']}"
               + (f", {len(runs)} processes)" if others else ")"))
    report = LoopReport.from_judgement(verdict, microbatches=A, samples=group.samples, supervised_items=N,
                                       subject=subject, notes=notes, evidence=evidence,
                                       replicas=len(runs))
    effective, hf_items = evidence["loss_is_scaled_for_ga_in_effect"], evidence["num_items_in_batch"]
    if verdict.passed:
        report.message = (f"{report.message}: the loss is summed over tokens ÷ num_items_in_batch = {hf_items} and "
                          f"{'not ' if effective else ''}divided again by A")
    elif verdict.rel_error is not None:
        hint = _trainer_hint(verdict.symptom, verdict.normalization, verdict.evidence.get("explained", {}), evidence)
        if hint:
            report.message = f"{verdict.what} — {hint}"
    return report


def trainer_worker(make_trainer: Callable[[], Any], task: str | None) -> dict[str, Any]:
    """One rank of ``check_trainer(make_trainer, replicas=D)``: build the Trainer, run one update,
    gather every rank's :class:`_TrainerUpdate` on rank 0 (returned there)."""
    import torch.distributed as dist

    run = _one_update(make_trainer(), task)
    everyone: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, run)
    return {"runs": everyone} if dist.get_rank() == 0 else {}


def _check_trainer_on_replicas(make_trainer: Any, replicas: int, tolerance: float | None, task: str | None,
                               timeout_s: float | None, objective: Objective | None = None) -> LoopReport:
    from transformers import Trainer

    from gastudy.parallel.launch import LaunchTimeout, WorkerError, check_importable, run_local

    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 1:
        raise ValueError(f"replicas must be a positive int (the number of processes), got {replicas!r}")
    if isinstance(make_trainer, Trainer) or not callable(make_trainer):
        raise TypeError("with replicas, pass a function that builds your Trainer (each process builds its own), "
                        f"not {type(make_trainer).__name__}: check_trainer(make_trainer, replicas={replicas})")
    check_importable(make_trainer)
    try:
        ranks = run_local(trainer_worker, replicas, make_trainer, task, timeout=float(timeout_s or 180.0))
    except WorkerError as err:
        raise TrainStepError(f"rank {err.rank}: {err.failures[err.rank].message}") from err
    except LaunchTimeout as err:
        raise TrainStepError(f"the {replicas}-process check did not finish within {timeout_s or 180.0:g} s") from err
    runs = ranks[0]["runs"]
    return _judged(runs[0], tolerance, runs[1:], objective=objective)


def _trainer_hint(symptom: str | None, normalization: str | None, explained: dict, ev: dict) -> str | None:
    """What to change in the Trainer, for each way the gradient can be wrong (``explained``: the
    kernel's numbers, ``ev``: the Trainer's settings)."""
    A, declared, effective = ev["current_gradient_accumulation_steps"], ev["loss_is_scaled_for_ga"], \
        ev["loss_is_scaled_for_ga_in_effect"]
    flag = f"loss_is_scaled_for_ga is {declared}" + ("" if declared is not None else f" (in effect {effective})")
    counted, implied = ev["num_items_in_batch"], explained.get("implied_denominator")
    if symptom == "double division" and counted is not None and implied is not None and \
            counted > sum(ev["items"]) and abs(implied - counted) < 0.5:
        return (f"the Trainer counted num_items_in_batch = {counted} without the causal shift "
                "(its _loss_shifts_labels is False: the model's loss_type is None although its loss shifts the "
                "labels) — set model.loss_type = \"ForCausalLM\" before building the Trainer, or have the collator "
                "pass shift_labels")
    if symptom == "double division" and abs(explained.get("k", 0) - A) <= 0.02 * A and A > 1:
        return (f"the loss is already ÷ num_items_in_batch and the Trainer divided it again by A={A} because "
                f"{flag}: declare loss_is_scaled_for_ga = True (or leave it None when the model takes "
                "num_items_in_batch)")
    # the model's own head, the Trainer's own compute_loss: the mean comes from the model, not from code of the user's
    own_loss = not ev["compute_loss_overridden"] and not ev["compute_loss_func"]
    heads_drop_count = own_loss and ev["model_accepts_loss_kwargs"] and declared is None
    model = ev.get("model", "the model")
    if heads_drop_count and (normalization == "sum of means" or (symptom == "missing division" and
                                                                 abs(1 / explained.get("k", 1) - A) <= 0.02 * A)):
        return (f"{model}'s loss is a per-microbatch mean that ignores num_items_in_batch although its forward takes "
                "**kwargs, so the Trainer takes the loss as already normalized (model_accepts_loss_kwargs=True) and "
                f"does not divide it by A={A} (transformers issue #47688) — set model.accepts_loss_kwargs = False "
                "before building the Trainer (it then divides by A), or pass a compute_loss_func that sums the "
                "per-item losses ÷ num_items_in_batch")
    if normalization == "steps" and own_loss:
        return (f"{model}'s loss is a per-microbatch mean that the Trainer divides by A={A} (the model does not take "
                "num_items_in_batch): pass a compute_loss_func that sums the per-item losses ÷ num_items_in_batch")
    if normalization == "steps":
        return ("compute_loss returns a per-microbatch mean (num_items_in_batch is ignored) that the Trainer divides "
                f"by A={A}: sum the per-token losses, divide by num_items_in_batch, and set loss_is_scaled_for_ga = True")
    if normalization == "sum of means":
        return (f"compute_loss returns a per-microbatch mean and {flag}, so nothing divides it by A={A}: sum the "
                "per-token losses and divide by num_items_in_batch")
    if symptom == "missing division":
        return f"a division is missing ({flag}): normalize the summed loss by num_items_in_batch"
    return None

"""Exercises graded by running the learner's code through the library's own checker (MB-1, MB-5,
MB-7, MB-9, MB-11, CK-1).

A code exercise hands its answer — the learner's ``train_step(model, optimizer, microbatches
[, scheduler])``, the signature of :func:`gastudy.check_loop` — to :func:`grade_loop`, which runs
it once on a copy of a small course model (:func:`loop_world`) against the big batch of the same
samples, and turns the :class:`~gastudy.check.watched.LoopReport` into the exercise's
``(ok, feedback)``: the symptom the kernel named, the library's message (its English, quoted under
a sentence in the learner's language) and the measured relative error. What the checker does not
see an exercise checks after it with the library's own measures (``checks=``): a ``no_sync`` that
still all-reduces (:func:`synced_once`), memory growth on D processes (:func:`ddp_memory_growth`).

A learner's code may raise anything: the grader answers in one line, it never raises. An update
function of the clinic's shape, ``update(model, optimizer, scheduler, group)``, is graded too
(:func:`as_train_step`). For D > 1 processes the function must be importable by the worker
processes; one written in a notebook cell is written into a module file first (:func:`importable`).
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import sys
import tempfile
import textwrap
import types
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch import nn

from gastudy.course.i18n import t

Feedback = tuple[bool, str]
Check = Callable[[Any, Any], "str | None"]  # (report, train_step) -> a failure, in the learner's language, or None


# --------------------------------------------------------------------------- the world a loop runs in
def loop_world(micro_batch: int = 2, accumulation_steps: int = 4, *, dtype: torch.dtype = torch.float64,
               seed: int = 0, replicas: int = 1, **model_kwargs: Any) -> tuple[nn.Module, list[dict]]:
    """A small tiny-gpt (hidden 16, 2 layers unless ``model_kwargs`` say otherwise) and the D·A
    padded microbatches of m variable-length addition problems, every token supervised: every
    microbatch has its own supervised count, so a mean of means, a per-replica mean or a count
    without the causal shift (one item too many per row) is visibly wrong. Course: every code
    exercise."""
    from gastudy.core.data import MicrobatchStream
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.models import build_model

    kwargs = {"hidden": 16, "layers": 2, "heads": 2, **model_kwargs}
    model = build_model("tiny-gpt", seed=seed, dtype=dtype, **kwargs)
    n = micro_batch * accumulation_steps * replicas
    stream = MicrobatchStream(AdditionDataset(n, seed=seed, supervise="all"), micro_batch, shuffle=False)
    return model, list(stream.microbatches())[:accumulation_steps * replicas]


def objective_kwargs() -> dict[str, str]:
    """``{"objective": "tokens"}`` where :func:`gastudy.check_loop` takes an objective (the strict
    token-normalized loss the course teaches), ``{}`` where it does not."""
    import gastudy

    return {"objective": "tokens"} if "objective" in inspect.signature(gastudy.check_loop).parameters else {}


# --------------------------------------------------------------------------- the learner's function
class _GroupUpdate:
    """An update function ``f(model, optimizer, scheduler, group)`` (the clinic's shape) called as
    check_loop's ``train_step(model, optimizer, microbatches, scheduler)``. ``__func__`` and
    ``__globals__`` are the learner's, so the checker names lines of the learner's code."""

    def __init__(self, fn: Callable[..., Any]):
        self.fn, self.__func__ = fn, fn
        self.__name__ = getattr(fn, "__name__", "update")
        self.__globals__ = getattr(fn, "__globals__", {})

    def __call__(self, model: nn.Module, optimizer: torch.optim.Optimizer, microbatches: list,
                 scheduler: Any = None) -> Any:
        from gastudy.core.counting import task_of_batch
        from gastudy.core.groups import build_group

        group = build_group(0, list(microbatches), len(microbatches), task_of_batch(microbatches[0]))
        return self.fn(model, optimizer, scheduler, group)


def as_train_step(answer: object) -> Callable[..., Any] | None:
    """The answer as check_loop's ``train_step``: itself, or an adapted ``update(…, group)``;
    ``None`` when it is not a function."""
    if not callable(answer) or isinstance(answer, type):
        return None
    try:
        params = inspect.signature(answer).parameters
    except (TypeError, ValueError):
        return answer
    return _GroupUpdate(answer) if "group" in params else answer


def _imports_for(fn: types.FunctionType, seen: set[str]) -> list[str]:
    """What ``fn``'s module file needs from the namespace it was written in: modules, importable
    objects, plain constants, and other functions of that namespace (their source)."""
    names: set[str] = set()
    stack = [fn.__code__]
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    lines = []
    for name in sorted(names - seen):
        if name not in fn.__globals__:
            continue
        seen.add(name)
        value = fn.__globals__[name]
        if isinstance(value, types.ModuleType):
            lines.append(f"import {value.__name__} as {name}")
        elif isinstance(value, int | float | str | bool | type(None)):
            lines.append(f"{name} = {value!r}")
        elif isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:  # a helper beside it
            lines += _imports_for(value, seen) + [textwrap.dedent(inspect.getsource(value))]
        elif getattr(value, "__module__", None) not in (None, "__main__") and hasattr(value, "__qualname__"):
            lines.append(f"from {value.__module__} import {value.__qualname__.split('.')[0]} as {name}")
    return lines


def importable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` where a worker process can import it by name; else the same function defined again in
    a module file of its own (its source, with the imports and helpers it uses from the namespace
    it was written in — a notebook cell), on ``sys.path``, which the worker processes inherit. A
    name it uses that is none of those (an object made in the notebook) is not carried: the worker
    then reports a ``NameError``. Raises ``TypeError`` for a lambda or a callable object, and when
    the source cannot be read (a function made by ``exec`` without a file)."""
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if module not in (None, "__main__") and "<" not in qualname:
        try:
            if getattr(importlib.import_module(module), qualname, None) is fn:
                return fn
        except ImportError:
            pass
    if not isinstance(fn, types.FunctionType) or fn.__name__ == "<lambda>":
        raise TypeError(t("define your function with def (not a lambda) so that the worker processes can "
                          "run it"))
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as err:
        raise TypeError(t("the source of {name} cannot be read ({error}); define it with def in a cell or "
                          "a file", name=fn.__name__, error=err)) from err
    text = "\n".join([*_imports_for(fn, {fn.__name__}), source])
    name = f"gastudy_cell_{fn.__name__}_{hashlib.sha1(text.encode()).hexdigest()[:12]}"
    folder = Path(tempfile.gettempdir()) / "gastudy-cells"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.py"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return getattr(importlib.import_module(name), fn.__name__)


# --------------------------------------------------------------------------- grading
def _raised(error: str, message: str, where: str | None) -> str:
    if where:
        return t("your function raised {error}: {message} (at {where})", error=error, message=message, where=where)
    return t("your function raised {error}: {message}", error=error, message=message)


def _error(err: BaseException) -> str:
    """One line for a failure of the learner's code: the innermost error and where it happened (on
    D processes the workers' report of it, as check_loop passes it on)."""
    import re

    from gastudy.check.loop import TrainStepError

    told = [str(err)] + [f.message for f in getattr(err.__cause__, "failures", {}).values()]  # each rank's
    for text in told if isinstance(err, TrainStepError) else ():
        said = re.search(r"train_step raised (\w+): (.*?)(?: \(at (.+?)\))? — while", text)
        if said:
            return _raised(*said.groups())
    cause = err
    while isinstance(cause, TrainStepError) and cause.__cause__ is not None:
        cause = cause.__cause__
    return _raised(type(cause).__name__, (str(cause).strip().splitlines() or [""])[0], getattr(err, "where", None))


def measured(report: Any) -> str:
    """The numbers behind a verdict: the relative error against the big batch and the tolerance."""
    if report.rel_error is None:
        return t("{steps} optimizer steps in one update (1 is right)", steps=report.optimizer_steps)
    if report.rel_error <= report.tolerance:
        return t("the gradient at the step is the big batch's of the same {samples} samples (relative error "
                 "{error:.1e} ≤ {tolerance:.0e})", samples=report.samples, error=report.rel_error,
                 tolerance=report.tolerance)
    if report.rel_error >= 10:
        return t("measured: relative error {error:.1e} against the big batch of the same {samples} samples "
                 "(tolerance {tolerance:.0e})", error=report.rel_error, samples=report.samples,
                 tolerance=report.tolerance)
    return t("measured: relative error {error:.1%} against the big batch of the same {samples} samples "
             "(tolerance {tolerance:.0e})", error=report.rel_error, samples=report.samples,
             tolerance=report.tolerance)


def verdict(report: Any) -> str:
    """A failed :class:`LoopReport` in one paragraph: the symptom (in the learner's language), the
    library's message (English) and the measured numbers."""
    from gastudy.course.labs.clinic import symptom_name

    text = f"⚠ {symptom_name(report.symptom or 'wrong gradient')}: {report.message}"
    if report.rel_error is not None and report.rel_error <= report.tolerance:
        if str(report.symptom).startswith("clipping"):  # what was compared is the gradient before the clip
            return text
        return text + " — " + t("the gradient itself was right (relative error {error:.1e} ≤ {tolerance:.0e}): the "
                                "mistake is in the rest of the update", error=report.rel_error,
                                tolerance=report.tolerance)
    return f"{text} — {measured(report)}"


def learner_step(answer: object, replicas: int = 1) -> Callable[..., Any] | str:
    """The answer as the ``train_step`` to check (importable with ``replicas`` > 1), or a one-line
    ``str`` saying why there is none."""
    step = as_train_step(answer)
    if step is None:
        return t("answer with your function itself (not its result), got {answer}", answer=repr(answer)[:80])
    if replicas > 1:
        try:
            step = importable(step)
        except TypeError as err:
            return str(err)
        except Exception as err:  # noqa: BLE001 - its module file failed to import: the learner's code
            return _error(err)
    return step


def _checked(step: Callable[..., Any], model: nn.Module, microbatches: Sequence[dict], **check_args: Any) -> Any:
    import gastudy

    try:
        return gastudy.check_loop(step, model, list(microbatches), **objective_kwargs(), **check_args)
    except Exception as err:  # noqa: BLE001 - a learner's code may raise anything; report it
        return _error(err)


def run_loop(answer: object, model: nn.Module, microbatches: Sequence[dict], **check_args: Any) -> Any:
    """``check_loop`` on the learner's answer: its :class:`LoopReport`, or a one-line ``str`` saying
    why it could not run (not a function, or the function raised)."""
    step = learner_step(answer, check_args.get("replicas", 1))
    return step if isinstance(step, str) else _checked(step, model, microbatches, **check_args)


def grade_loop(answer: object, model: nn.Module, microbatches: Sequence[dict], praise: str | Callable[[Any], str],
               *, checks: Sequence[Check] = (), **check_args: Any) -> Feedback:
    """Grade ``answer`` with ``check_loop(answer, model, microbatches, **check_args)``; then, when the
    checker passes it, each of ``checks`` (``check(report, train_step) -> failure or None``).
    ``praise`` (in the learner's language; or ``praise(report)``, called after the checks) is said
    with the measured numbers when all pass."""
    step = learner_step(answer, check_args.get("replicas", 1))
    report = step if isinstance(step, str) else _checked(step, model, microbatches, **check_args)
    if isinstance(report, str):
        return False, report
    if not report.passed:
        return False, verdict(report)
    if report.warnings:
        return False, "⚠ " + " ".join(report.warnings)
    for check in checks:
        try:
            failure = check(report, step)
        except Exception as err:  # noqa: BLE001 - the learner's code again
            failure = _error(err)
        if failure:
            return False, failure
    return True, f"{praise(report) if callable(praise) else praise} — {measured(report)}"


# --------------------------------------------------------------------------- what check_loop leaves out
def synced_once(report: Any, _step: Any) -> str | None:
    """With D processes: every replica all-reduced its gradients once per update (``no_sync``
    around the forward and backward of all but the last microbatch), else what was measured."""
    synced = report.evidence.get("allreduce_backwards")
    A = report.microbatches // max(report.replicas, 1)
    if synced is None or A < 2 or max(synced) <= 1:
        return None
    return t("⚠ no_sync missing: the replicas all-reduced their gradients after {synced} of the {A} backward "
             "passes of one update (per replica: {each}). Run the forward and backward of every microbatch "
             "but the last inside model.no_sync(): one all-reduce per update", synced=max(synced), A=A,
             each=", ".join(map(str, synced)))


def peak_saved(step: Callable[..., Any], model: nn.Module, microbatches: Sequence[dict]) -> tuple[int, int]:
    """Run the learner's ``step`` once on a copy of ``model`` (SGD; a scheduler when it takes one) and
    return the most bytes autograd kept alive for backward at once — saved tensors, each storage
    once, parameters excluded (:class:`~gastudy.check.diagnostics.LiveBytes`; a checkpoint's own
    saved inputs count, what it recomputes in the backward counts while it is alive) — and how many
    forwards the model's embedding ran (the microbatches the step made). CK-1, MB-9."""
    from gastudy.check.diagnostics import LiveBytes, default_optimizer, default_scheduler

    net = copy.deepcopy(model).train()
    net.zero_grad(set_to_none=True)
    optimizer = default_optimizer(net)
    kwargs = {"scheduler": default_scheduler(optimizer)} if "scheduler" in inspect.signature(step).parameters else {}
    forwards = []
    handle = getattr(net, "embed", net).register_forward_pre_hook(lambda *_: forwards.append(1))
    try:
        with LiveBytes(net) as live, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            step(net, optimizer, [dict(mb) for mb in microbatches], **kwargs)
    finally:
        handle.remove()
    return live.peak_saved, len(forwards)


def ddp_memory_worker(train_step: Callable[..., Any], model: nn.Module, per_rank: list[list[dict]],
                      task: str) -> dict[str, Any] | None:
    """One rank of :func:`ddp_memory_growth`: the memory-growth detector on this rank's microbatches,
    the model in DDP. Rank 0 returns whether it fired and its message; the others ``None``."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    from gastudy.check.diagnostics import Setup, diagnose_memory_growth
    from gastudy.check.watched import update_function
    from gastudy.core.data import split_batch

    batches = per_rank[dist.get_rank()]
    samples = [s for mb in batches for s in split_batch(mb)]
    takes = "scheduler" in inspect.signature(train_step).parameters
    inner = update_function(train_step, "scheduler" if takes else None, False)
    setup = Setup(model, samples, len(samples) // len(batches), len(batches), task)
    verdict = diagnose_memory_growth(lambda m, o, s, g: inner(DDP(m), o, s, g), setup)
    return {"fired": verdict.fired, "message": verdict.message} if dist.get_rank() == 0 else None


def ddp_memory_growth(model: nn.Module, microbatches: Sequence[dict], replicas: int = 2) -> Check:
    """A check for :func:`grade_loop`: on ``replicas`` processes, do the bytes a replica keeps alive
    grow from microbatch to microbatch (graph-attached losses kept)? check_loop measures memory
    growth on one process only."""
    def check(report: Any, step: Any) -> str | None:
        from gastudy.core.counting import task_of_batch
        from gastudy.parallel.launch import run_local

        A = len(microbatches) // replicas
        per_rank = [list(microbatches[r * A:(r + 1) * A]) for r in range(replicas)]
        found = run_local(ddp_memory_worker, replicas, step, model, per_rank,
                          task_of_batch(microbatches[0]), timeout=120.0)[0]
        if found and found["fired"]:
            from gastudy.course.labs.clinic import symptom_name

            return f"⚠ {symptom_name('memory growth')}: {found['message']}"
        return None

    return check


__all__ = ["as_train_step", "ddp_memory_growth", "ddp_memory_worker", "grade_loop", "importable", "learner_step",
           "loop_world", "measured", "objective_kwargs", "peak_saved", "run_loop", "synced_once", "verdict"]

"""``gastudy check-loop path/to/file.py:train_step``: your own accumulation loop, checked (MB-10, MB-11).

A thin command over :func:`gastudy.check.loop.check_loop`: the file is imported, the function
gets a registered model (``--model``, :mod:`gastudy.core.workloads`; the course registers its own) and the course's
variable-length data (:func:`gastudy.check.verify.controlled_microbatches`). Your code runs in a
child process with a time limit and a memory limit: a ``sys.exit``, an ``os._exit``, a signal,
a hang or a memory blow-up is a clear failure, never a pass. What the function receives and
the exit status are in :data:`DESCRIPTION` (the ``--help`` text).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import os
import sys
from typing import Any

from gastudy.cli.options import MAX_REPLICAS, MAX_SEED, emit, fail, model_names, real, whole

MAX_SAMPLES = 4096  # m × A × D: one update of a few samples is what a check needs
DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MEMORY_GB = 8.0

DESCRIPTION = """\
Runs your train_step(model, optimizer, microbatches) -- ONE accumulated update -- once on a copy
of a course model, with the first A microbatches of m variable-length addition problems, and
compares the gradient at optimizer.step with the big batch of the same samples (in the precision
your loop computes in; your clipping and GradScaler are seen and allowed for).

Each microbatch is a dict: input_ids, attention_mask, labels (-100 = not supervised; causal:
position i predicts token i+1) and sample_ids (not a model input) for tiny-gpt; inputs, labels
and sample_ids for the MLPs. tiny-gpt returns an object with .logits, the MLPs the logits.
With --replicas D the function runs on D local processes, each with the model wrapped in
DistributedDataParallel and its own A microbatches (use no_sync / all-reduce the token count
there). The file is imported (its `if __name__ == "__main__":` block does not run), in a child
process stopped after --timeout seconds or --memory-limit GB.

Your code runs in a process of its own session: when the check ends, every process it started
(detached ones too) and every thread are stopped; what it prints goes to standard error, cut
after 1 MB; the report says how long it ran, what it printed and what was stopped.

exit status: 0 passed, 1 failed (the symptom is named; also when your code exits, is killed,
hangs or runs out of memory), 2 bad input."""


class BadInput(Exception):
    """A user error the command reports with exit status 2."""


def load_function(spec: str) -> Any:
    """``path/to/file.py:name`` (``:train_step`` when omitted) → the function. Raises
    :class:`BadInput` naming the file, the function, or what the file defines instead.

    The file is imported under its own name (``my_loop`` for ``my_loop.py``, its folder first on
    ``sys.path``) so that worker processes can import it again; a name that another module
    already uses gets a private one."""
    path, _, name = spec.rpartition(":") if ":" in os.path.basename(spec) else (spec, "", "")
    name = name or "train_step"
    if not path:
        raise BadInput(f"give the file and the function as path/to/file.py:{name}")
    if not os.path.isfile(path):
        raise BadInput(f"no such file: {path}")
    folder = os.path.dirname(os.path.abspath(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    module_name = stem if stem.isidentifier() and stem not in sys.modules and \
        importlib.util.find_spec(stem) is None else \
        "_gastudy_user_" + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path))
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise BadInput(f"cannot load {path} as Python (is it a .py file?)")
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, folder)  # the file's own imports of its neighbours work (and workers find it)
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    except SystemExit as err:
        raise BadInput(f"{path} called exit({err.code}) while loading; put script code under "
                       "if __name__ == '__main__':") from err
    except BaseException as err:  # a broken file is bad input, reported in one line
        raise BadInput(f"{path} failed to load: {type(err).__name__}: {err}") from err
    if not hasattr(module, name):
        defined = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                         and getattr(v, "__module__", None) == module_name)
        raise BadInput(f"{path} has no function {name!r}" + (f"; it defines: {', '.join(defined)}" if defined else ""))
    fn = getattr(module, name)
    if not callable(fn):
        raise BadInput(f"{path}:{name} is not callable (it is of type {type(fn).__name__}); it must be a function "
                       "train_step(model, optimizer, microbatches)")
    return fn


def run_check(settings: dict[str, Any]) -> dict[str, Any]:
    """In the child: load the function, build the model and data, run the check. Returns
    ``{"report": dict, "text": str, "passed": bool}`` or ``{"error": str, "exit": 1|2}``."""
    from gastudy.check.loop import TrainStepError, check_loop
    from gastudy.check.verify import controlled_microbatches
    from gastudy.core.workloads import workload

    model_names()  # this process registers the course's models too
    try:
        train_step = load_function(settings["target"])
        m, A, D = settings["micro_batch"], settings["accumulation_steps"], settings["replicas"]
        batches = [mb for r in range(D) for mb in controlled_microbatches(
            settings["model"], m, A, settings["collate"], settings["seed"], replicas=D, rank=r)]
        report = check_loop(train_step, workload(settings["model"]).build(seed=settings["seed"]), batches,
                            replicas=D, timeout_s=settings["timeout"] if D > 1 else math.inf)
    except BadInput as err:
        return {"error": str(err), "exit": 2}
    except TrainStepError as err:
        return {"error": str(err), "exit": 2}
    except (TypeError, ValueError) as err:
        return {"error": f"cannot check {settings['target']}: {err}", "exit": 2}
    inside, report.confinement = report.confinement, None  # the parent states it for the whole process
    return {"report": report.to_dict(), "text": str(report), "passed": report.passed,
            "inside": inside.to_dict() if inside is not None else None}


def _checked(settings: dict[str, Any]) -> dict[str, Any]:
    """In the child: :func:`run_check`; whatever the user's code raises — SystemExit and
    KeyboardInterrupt included — becomes a failure, not a pass."""
    import torch

    torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))
    try:
        return run_check(settings)
    except SystemExit as err:
        return {"error": f"{settings['target']} called sys.exit({err.code!r}) during the check: a train step must "
                         "return after its update, not end the program", "exit": 1}
    except KeyboardInterrupt:
        return {"error": f"{settings['target']} raised KeyboardInterrupt during the check", "exit": 1}
    except BaseException as err:  # anything else the user's code raised that the check did not wrap
        return {"error": f"{settings['target']} raised {type(err).__name__}: {err}", "exit": 1}


def _rss_bytes(pid: int) -> int:
    """Memory of process ``pid`` and every process below it: the sum of their proportional set
    sizes (``Pss`` of ``/proc/…/smaps_rollup``: pages shared by a fork counted once, split among
    the processes sharing them), their resident sizes where that is not available; 0 off Linux."""
    from pathlib import Path

    from gastudy.check.isolated import descendants

    total = 0
    for p in {pid, *descendants(pid)}:
        for name, key in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
            try:
                text = Path(f"/proc/{p}/{name}").read_text()
            except OSError:
                continue
            found = [int(line.split()[1]) * 1024 for line in text.splitlines() if line.startswith(key)]
            if found:
                total += found[0]
                break
    return total


def _one_thread() -> bool:
    """Whether this process runs a single OS thread (Linux; ``False`` where it cannot tell)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def isolated_check(settings: dict[str, Any]) -> dict[str, Any]:
    """:func:`run_check` in a child process of its own session
    (:func:`gastudy.check.isolated.run_isolated`), stopped after ``settings["timeout"]`` seconds
    or above ``settings["memory_gb"]`` GB of resident memory; its output goes to standard error,
    cut after 1 MB; every process it started is stopped before this returns. An answer (with
    ``"isolation"``: what the step started and what was done about it), or ``{"error", "exit":
    1}`` for a child that exited, was killed, hung or ran out of memory without one.

    The child is forked where this process runs a single OS thread (the command line under
    ``OMP_NUM_THREADS=1``, as ``torchrun`` sets it: torch is imported and nothing has run, so the
    child need not import it again; about 2 s less). It is spawned where other threads run (a
    BLAS or OpenMP pool, a notebook's kernel, a test runner): a fork could copy a held lock."""
    from gastudy.check.isolated import run_isolated

    outcome = run_isolated(_checked, (settings,), time_limit_s=settings["timeout"],
                           memory_bytes=settings["memory_gb"] * 2**30, rss=_rss_bytes,
                           start_method="fork" if _one_thread() else "spawn")
    confinement, answer = outcome.confinement, outcome.answer
    inside = answer.pop("inside", None) if isinstance(answer, dict) else None
    if inside:  # what check_loop stopped inside the child, before the child ended
        confinement.processes_stopped += inside["processes_stopped"]
        confinement.threads_left = confinement.threads_left or list(inside["threads_left"])
    isolation = {"isolation": {**confinement.to_dict(), "text": confinement.describe()}}
    if answer is not None:
        return {**answer, **isolation}
    if outcome.failure == "interrupted":
        return {"error": "interrupted (SIGINT): the check was stopped", "exit": 130, **isolation}
    if outcome.failure == "timeout":
        return {"error": f"the check of {settings['target']} did not finish within {settings['timeout']:g} s "
                         "(an endless loop or a wait in train_step? raise --timeout for a slow model)", "exit": 1,
                **isolation}
    if outcome.failure == "memory":
        return {"error": f"the check of {settings['target']} used more than {settings['memory_gb']:g} GB of "
                         "memory and was stopped (raise --memory-limit, or look for what train_step keeps)",
                "exit": 1, **isolation}
    code = outcome.exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
    return {"error": f"the check's process {how} before a verdict: {settings['target']} ended the process "
                     "(os._exit, a crash or a signal); a train step must return after its update", "exit": 1,
            **isolation}


def cmd_check_loop(args: argparse.Namespace) -> int:
    if args.model not in model_names():
        return fail(args, f"unknown model {args.model!r}; choose one of {', '.join(model_names())}")
    samples = args.micro_batch * args.accumulation_steps * args.replicas
    if samples > MAX_SAMPLES:
        return fail(args, f"m × A × D = {args.micro_batch} × {args.accumulation_steps} × {args.replicas} = {samples} "
                          f"samples; a check needs one update of a few: keep it at most {MAX_SAMPLES}")
    settings = {"target": args.target, "model": args.model, "micro_batch": args.micro_batch,
                "accumulation_steps": args.accumulation_steps, "collate": args.collate, "seed": args.seed,
                "replicas": args.replicas, "timeout": args.timeout, "memory_gb": args.memory_limit}
    answer = isolated_check(settings)
    isolation = answer.get("isolation", {})
    if "error" in answer:
        if answer["exit"] == 2:  # bad input: one line, as every command's (whatever was started is stopped all the same)
            return fail(args, answer["error"], 2)
        if args.json:
            emit(args, {"error": answer["error"], "exit": answer["exit"], "isolation": isolation}, "")
            return answer["exit"]
        return fail(args, answer["error"] + (f" ({isolation['text']})" if isolation else ""), answer["exit"])
    emit(args, {**answer["report"], "isolation": isolation},
         answer["text"] + (f"\n  isolation: {isolation['text']}" if isolation else ""))
    return 0 if answer["passed"] else 1


def add_check_loop_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``gastudy check-loop``."""
    p = sub.add_parser("check-loop", help="check your own train_step against the big batch (MB-10, MB-11)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="FILE.py:FUNCTION",
                   help="your train_step(model, optimizer, microbatches), e.g. my_loop.py:train_step")
    p.add_argument("--model", default="tiny-gpt", help=f"one of {', '.join(model_names())}")
    p.add_argument("--micro-batch", "-m", type=whole(1, MAX_SAMPLES), default=2, help="m: samples per microbatch")
    p.add_argument("--accumulation-steps", "-A", type=whole(1, MAX_SAMPLES), default=4,
                   help="A: microbatches per update (per replica)")
    p.add_argument("--replicas", "-D", type=whole(1, min(MAX_REPLICAS, 8)), default=1,
                   help="D: local processes, each with the model in DDP (default 1)")
    p.add_argument("--collate", default="padded", choices=("padded", "packed"))
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=0)
    p.add_argument("--timeout", type=real(0.0, maximum=24 * 3600.0), default=DEFAULT_TIMEOUT_S, metavar="SECONDS",
                   help=f"stop the check after this long (default {DEFAULT_TIMEOUT_S:g})")
    p.add_argument("--memory-limit", type=real(0.0, maximum=4096.0), default=DEFAULT_MEMORY_GB, metavar="GB",
                   help=f"stop the check above this resident memory (default {DEFAULT_MEMORY_GB:g})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_check_loop)

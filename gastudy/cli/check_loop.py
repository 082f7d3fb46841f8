"""``gastudy check-loop path/to/file.py:train_step``: your own accumulation loop, checked (MB-10, MB-11).

A thin command over :func:`gastudy.check.loop.check_loop`: the file is imported, the function
gets a course model (``--model``, :func:`~gastudy.core.models.build_model`) and the course's
variable-length data (:func:`gastudy.check.verify.controlled_microbatches`). What the function
receives and the exit status are in :data:`DESCRIPTION` (the ``--help`` text).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from typing import Any

from gastudy.cli.options import emit, fail
from gastudy.core.models import MODEL_NAMES

DESCRIPTION = """\
Runs your train_step(model, optimizer, microbatches) -- ONE accumulated update -- once on a copy
of a course model, with the first A microbatches of m variable-length addition problems, and
compares the gradient at optimizer.step with the big batch of the same samples.

Each microbatch is a dict: input_ids, attention_mask, labels (-100 = not supervised; causal:
position i predicts token i+1) and sample_ids (not a model input) for tiny-gpt; inputs, labels
and sample_ids for the MLPs. tiny-gpt returns an object with .logits, the MLPs the logits.
The file is imported (its `if __name__ == "__main__":` block does not run).

exit status: 0 passed, 1 failed (the symptom is named), 2 bad input."""


class BadInput(Exception):
    """A user error the command reports with exit status 2."""


def load_function(spec: str) -> Any:
    """``path/to/file.py:name`` (``:train_step`` when omitted) → the function. Raises
    :class:`BadInput` naming the file, the function, or what the file defines instead."""
    path, _, name = spec.rpartition(":") if ":" in os.path.basename(spec) else (spec, "", "")
    name = name or "train_step"
    if not path:
        raise BadInput(f"give the file and the function as path/to/file.py:{name}")
    if not os.path.isfile(path):
        raise BadInput(f"no such file: {path}")
    module_name = "_gastudy_user_" + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path))
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise BadInput(f"cannot load {path} as Python (is it a .py file?)")
    module = importlib.util.module_from_spec(module_spec)
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)  # the file's own imports of its neighbours work
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    except SystemExit as err:
        raise BadInput(f"{path} called exit({err.code}) while loading; put script code under "
                       "if __name__ == '__main__':") from err
    except BaseException as err:  # a broken file is bad input, reported in one line
        raise BadInput(f"{path} failed to load: {type(err).__name__}: {err}") from err
    finally:
        sys.path.remove(folder)
    if not hasattr(module, name):
        defined = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_")
                         and getattr(v, "__module__", None) == module_name)
        raise BadInput(f"{path} has no function {name!r}" + (f"; it defines: {', '.join(defined)}" if defined else ""))
    fn = getattr(module, name)
    if not callable(fn):
        raise BadInput(f"{path}:{name} is not callable (it is of type {type(fn).__name__}); it must be a function "
                       "train_step(model, optimizer, microbatches)")
    return fn


def cmd_check_loop(args: argparse.Namespace) -> int:
    from gastudy.check.loop import TrainStepError, check_loop
    from gastudy.check.verify import controlled_microbatches
    from gastudy.core.models import build_model

    if args.model not in MODEL_NAMES:
        return fail(args, f"unknown model {args.model!r}; choose one of {', '.join(MODEL_NAMES)}")
    for flag, value in (("--micro-batch", args.micro_batch), ("--accumulation-steps", args.accumulation_steps)):
        if value < 1:
            return fail(args, f"{flag} must be at least 1, got {value}")
    try:
        train_step = load_function(args.target)
        batches = controlled_microbatches(args.model, args.micro_batch, args.accumulation_steps, args.collate,
                                          args.seed)
        report = check_loop(train_step, build_model(args.model, seed=args.seed), batches)
    except BadInput as err:
        return fail(args, str(err))
    except TrainStepError as err:
        return fail(args, str(err))
    except (TypeError, ValueError) as err:
        return fail(args, f"cannot check {args.target}: {err}")
    emit(args, report.to_dict(), str(report))
    return 0 if report.passed else 1


def add_check_loop_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``gastudy check-loop``."""
    p = sub.add_parser("check-loop", help="check your own train_step against the big batch (MB-10, MB-11)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="FILE.py:FUNCTION",
                   help="your train_step(model, optimizer, microbatches), e.g. my_loop.py:train_step")
    p.add_argument("--model", default="tiny-gpt", help=f"one of {', '.join(MODEL_NAMES)}")
    p.add_argument("--micro-batch", "-m", type=int, default=2, help="m: samples per microbatch")
    p.add_argument("--accumulation-steps", "-A", type=int, default=4, help="A: microbatches per update")
    p.add_argument("--collate", default="padded", choices=("padded", "packed"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_check_loop)

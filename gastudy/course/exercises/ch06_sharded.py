"""Exercise 06.3 of chapter 06 — sharded data parallel (FSDP2): reduce-scatters and held gradient
bytes per update (course: MB-7). Loaded with the chapter's other exercises (``ch06`` imports it);
the checker measures on the course's warm pool of 2 processes."""

from __future__ import annotations

import math
import numbers

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t

EXERCISE_A, EXERCISE_SYNC, EXERCISE_D = 4, "every", 2
"""The setting the learner predicts: A = 4 microbatches, sync policy ``every``, D = 2 processes."""

BYTES_RTOL = 0.05
"""How far a predicted byte count may be from the measured one (FSDP2 pads each shard to equal size)."""


@exercise("06.3")
def sharded_every(answer: object) -> tuple[bool, str]:
    """Reduce-scatters per update and peak gradient bytes per replica for FSDP2 with sync ``every``,
    A = 4, D = 2 (MB-7). ``answer``: ``{"reduce_scatters": int, "gradient_bytes": int}``; the
    truth is measured (:func:`gastudy.course.demos.fsdp.measure_sharded`), the bytes are right
    within :data:`BYTES_RTOL`. Any real number counts (NumPy's too); a dict with other keys, a
    string, a bool, NaN or ±inf is answered at once, naming what to change, without measuring.
    Returns ``(ok, feedback)`` naming what is wrong."""
    from gastudy.course.demos.fsdp import measure_sharded

    keys = ("reduce_scatters", "gradient_bytes")
    if not isinstance(answer, dict):
        return False, t("answer with a dict with the numbers reduce_scatters and gradient_bytes, got {answer}",
                        answer=repr(answer))
    if set(answer) != set(keys):
        return False, t("your dict has the keys {got}; answer with exactly reduce_scatters and gradient_bytes",
                        got=", ".join(sorted(map(repr, answer))) or "{}")
    for key in keys:
        value = answer[key]
        if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                or (not isinstance(value, numbers.Integral) and not math.isfinite(value))):
            return False, t("{key} must be a finite number, got {value}", key=key, value=repr(value))
    answer = {k: int(answer[k]) if isinstance(answer[k], numbers.Integral) else float(answer[k]) for k in keys}
    fsdp = measure_sharded(EXERCISE_A, EXERCISE_SYNC, replicas=EXERCISE_D, updates=1)["fsdp"]
    calls, held, whole = fsdp["reductions_per_update"], fsdp["peak_gradient_bytes"], fsdp["unsharded_gradient_bytes"]
    modules = round(calls / EXERCISE_A)
    said_calls, said_bytes = answer["reduce_scatters"], answer["gradient_bytes"]
    calls_ok = said_calls == calls
    bytes_ok = abs(said_bytes - held) <= BYTES_RTOL * held
    if calls_ok and bytes_ok:
        return True, t("{calls:g} reduce-scatters (A = {a} backwards × {modules} FSDP modules) and about {held:,} bytes: "
                       "each replica keeps only its 1/D shard of the gradient.",
                       calls=calls, a=EXERCISE_A, modules=modules, held=held)
    wrong = []
    if not calls_ok:
        if said_calls == modules:
            wrong.append(t("{n} reduce-scatters is the deferred policy's count: with 'every' each of the A "
                           "backwards reduce-scatters every FSDP module", n=_show(said_calls)))
        elif said_calls == EXERCISE_A:
            wrong.append(t("{n} counts the backwards only: each backward reduce-scatters every FSDP module "
                           "(tiny-gpt's blocks and its root)", n=_show(said_calls)))
        else:
            wrong.append(t("reduce_scatters: you said {n}; count A × the FSDP modules", n=_show(said_calls)))
    if not bytes_ok:
        if abs(said_bytes - whole) <= BYTES_RTOL * whole:
            wrong.append(t("{n:,} bytes is the whole gradient, what DDP and the deferred policy hold; 'every' "
                           "keeps only its shard", n=said_bytes))
        else:
            wrong.append(t("gradient_bytes: you said {n:,}; divide the whole gradient by D", n=said_bytes))
    return False, "; ".join(wrong) + "."


def _show(count: int | float) -> str:
    """A count as the learner wrote it: ``8``, ``8.5``, or a whole number of any size (``:g`` would
    turn 10**400 into an OverflowError)."""
    return f"{count:,}" if isinstance(count, int) else f"{count:g}"

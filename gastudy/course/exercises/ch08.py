"""Exercises of chapter 08 — activation checkpointing (CK-3, CK-4)."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t


@exercise("08.1")
def layers_for_n3(answer: object) -> tuple[bool, str]:
    """The 1-based layers every_n_layers=3 checkpoints in a 12-layer model (CK-3)."""
    from gastudy.core.checkpointing import layer_selection

    expected = [k for k, on in enumerate(layer_selection(12, 3), 1) if on]
    if not isinstance(answer, list | tuple) or not all(isinstance(k, int) for k in answer):
        return False, t("answer with a list of layer numbers, e.g. [1, 2], got {answer}", answer=repr(answer))
    if list(answer) == expected:
        return True, t("{layers}: the first layer and every third after it.", layers=expected)
    if list(answer) == [k - 1 for k in expected]:
        return False, t("those are 0-based indices; the course numbers layers from 1 (L1 … L12).")
    if list(answer) == list(range(3, 13, 3)):
        return False, t("the first layer is always checkpointed; then every n-th after it.")
    return False, t("{answer} is not it; try layer_selection(12, 3)", answer=list(answer))


@exercise("08.2")
def formula_prediction(answer: object) -> tuple[bool, str]:
    """layers × m × T × hidden × bytes for n=2 on 4 layers, m=8, T=64, hidden=128, float32 (CK-4)."""
    from gastudy.course.labs.checkpoint_lab import model_kwargs
    from gastudy.memory.saved import formula_check

    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a number of bytes, got {answer}", answer=repr(answer))
    f = formula_check("tiny-gpt", 8, 64, 2, model_kwargs=model_kwargs(128, 4))
    if answer == f.formula_bytes:
        return True, t("{layers} layers × 8 × 64 × 128 × 4 = {formula:,} bytes; measured {measured:,} = formula + the "
                       "{mask:,}-byte mask.", layers=f.checkpointed, formula=f.formula_bytes,
                       measured=f.measured_bytes, mask=f.mask_bytes)
    if answer == f.measured_bytes:
        return False, t("that is the measurement including the mask; the question asks for the formula alone.")
    if answer == 4 * 8 * 64 * 128 * 4:
        return False, t("n = 2 checkpoints only some of the 4 layers: which ones?")
    return False, t("{answer:,} is not the formula's value; count the checkpointed layers first.", answer=answer)

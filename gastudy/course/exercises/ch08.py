"""Exercises of chapter 08 — activation checkpointing (CK-1, CK-3, CK-4); 08.3 runs the learner's
checkpointed update."""

from __future__ import annotations

import copy
from collections.abc import Callable

from torch import nn

from gastudy.course.exercises import exercise
from gastudy.course.exercises.graded import Check
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
        return False, t("the first layer is always checkpointed; then every third after it.")
    return False, t("{answer} is not it; try layer_selection(12, 3)", answer=list(answer))


@exercise("08.2")
def formula_prediction(answer: object) -> tuple[bool, str]:
    """layers × m × T × hidden × bytes for every_n_layers=2 on 4 layers, m=8, T=64, hidden=128, float32 (CK-4)."""
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
        return False, t("every_n_layers = 2 checkpoints only some of the 4 layers: which ones?")
    return False, t("{answer:,} is not the formula's value; count the checkpointed layers first.", answer=answer)


def checkpoint_world() -> tuple[nn.Module, list[dict]]:
    """Exercise 08.3's model and data: tiny-gpt (float64, hidden 16, 4 blocks) and four variable-length
    microbatches of two addition problems (CK-1)."""
    from gastudy.course.exercises.graded import loop_world

    return loop_world(micro_batch=2, accumulation_steps=4, layers=4)


def saves_memory(model: nn.Module, microbatches: list[dict]) -> Check:
    """A check for :func:`~gastudy.course.exercises.graded.grade_loop`: each microbatch of the
    learner's update keeps at most halfway between what the plain forward keeps for backward and
    what checkpointing every block keeps (both :func:`gastudy.saved_bytes`; the learner's own bytes
    by :func:`~gastudy.course.exercises.graded.peak_saved`), and the whole update keeps no more at
    once than its largest microbatch (check_loop cannot see the microbatches of a forward written
    out by hand). CK-1, CK-3."""
    def check(_report: object, step: Callable[..., object]) -> str | None:
        from gastudy.core.checkpointing import checkpointing
        from gastudy.course.exercises.graded import peak_saved
        from gastudy.memory.saved import saved_bytes

        plain = max(saved_bytes(model, mb).total for mb in microbatches)
        net = copy.deepcopy(model).train()
        with checkpointing(net, every_n_layers=1):
            every = max(saved_bytes(net, mb).total for mb in microbatches)
        mine = max(peak_saved(step, model, [mb])[0] for mb in microbatches)
        if mine > (plain + every) / 2:
            return t("⚠ no memory saved: a microbatch of your update keeps {mine:,} bytes for backward, the plain "
                     "forward {plain:,}, checkpointing every block {every:,} — run each block through "
                     "checkpoint(block, x, mask, use_reentrant=False)", mine=mine, plain=plain, every=every)
        whole = peak_saved(step, model, microbatches)[0]
        if whole > 1.5 * mine:
            from gastudy.course.labs.clinic import symptom_name

            return t("⚠ {symptom}: the update keeps {whole:,} bytes for backward at once, {ratio:.1f}× its largest "
                     "microbatch ({mine:,}): graphs are kept between microbatches — call backward per microbatch",
                     symptom=symptom_name("memory growth"), whole=whole, ratio=whole / mine, mine=mine)
        return None

    return check


@exercise("08.3")
def checkpoint_by_hand(answer: object) -> tuple[bool, str]:
    """Answer: ``train_step(model, optimizer, microbatches, scheduler)``, one accumulated update of tiny-gpt whose
    forward is written out (as in §1) with every block run through
    ``torch.utils.checkpoint.checkpoint``. Run through :func:`gastudy.check_loop` (the big batch is the
    plain, un-checkpointed model: a checkpoint that changes the gradient fails), then
    :func:`saves_memory`. Course: CK-1, CK-3."""
    from gastudy.course.exercises.graded import grade_loop

    model, microbatches = checkpoint_world()
    return grade_loop(answer, model, microbatches,
                      t("the checkpointed update has the plain model's big-batch gradient, and one microbatch keeps "
                        "only the blocks' inputs for backward"),
                      checks=[saves_memory(model, microbatches)])

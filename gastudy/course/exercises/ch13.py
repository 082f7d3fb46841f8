"""Exercises of chapter 13 — make it fit (MB-9, CK-2 … CK-4)."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t

MIB = 2**20


@exercise("13.1")
def largest_m(answer: object) -> tuple[bool, str]:
    """The budget inequality solved for m: 2,000,000 float32 parameters with AdamW, 3 MiB a sample,
    a budget of 200 MiB."""
    from gastudy.course.labs.fit_lab import budget_bound

    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return False, t("answer with a number of samples, got {answer}", answer=repr(answer))
    expected = budget_bound(2_000_000, 3 * MIB, 200 * MIB)
    if answer == expected:
        return True, t("m ≤ (200 MiB − 2,000,000 × 16 B) ÷ 3 MiB = {m}: the fixed part takes about 30.5 MiB, and "
                       "the rest holds {m} samples' activations — before the backward's temporaries.", m=expected)
    for state, what in ((0, t("that leaves out AdamW's two moments: 8 more bytes for every parameter.")),
                        (4, t("that counts one moment: AdamW keeps two, 8 bytes for every parameter."))):
        if answer == budget_bound(2_000_000, 3 * MIB, 200 * MIB, optimizer_state_bytes=state):
            return False, what
    if answer == (200 * MIB - 2_000_000 * 8) // (3 * MIB):
        return False, t("that counts weights and AdamW's moments but not the gradients, 4 bytes each.")
    if answer == 200 // 3:
        return False, t("that is the budget divided by one sample's activations: the fixed part comes off first.")
    if isinstance(answer, float) and not answer.is_integer():
        return False, t("m is a whole number of samples: round down.")
    return False, t("{answer} is not it: subtract 2,000,000 × (4 + 4 + 8) bytes from the budget, then divide by "
                    "3 MiB.", answer=answer)


@exercise("13.2")
def ladder_order(answer: object) -> tuple[bool, str]:
    """The settings fit_to_budget tries on a GPU for 3 checkpointable layers, fp32 then bf16."""
    from gastudy.memory.fit import settings_ladder

    expected = [s.label for s in settings_ladder(3, "cuda", ("fp32", "bf16"))]
    if not isinstance(answer, list | tuple) or not all(isinstance(a, str) for a in answer):
        return False, t("answer with a list of labels (strings), got {answer}", answer=repr(answer))
    got = [" ".join(str(a).split()) for a in answer]
    if got == expected:
        return True, t("{n} settings: for each precision in the order you accept them, as it is, every 2nd layer, "
                       "every layer, every layer offloaded.", n=len(expected))
    if sorted(got) == sorted(expected):
        return False, t("the right settings in another order: cheapest first, and the whole fp32 ladder before "
                        "bf16.")
    cpu = [s.label for s in settings_ladder(3, "cpu", ("fp32", "bf16"))]
    if got == cpu:
        return False, t("that is the CPU's ladder: on a GPU, offload follows checkpointing every layer.")
    if got == expected[:len(expected) // 2]:
        return False, t("that is the fp32 half: you accept bf16 too, so its rungs follow.")
    return False, t("not quite: {n} labels are expected, the first is \"fp32\".", n=len(expected))

"""Exercises of chapter 02 (MB-2)."""

from __future__ import annotations

from gastudy.core.plan import BatchPlan, PlanError, plan_from_target
from gastudy.course.exercises import exercise
from gastudy.course.i18n import t
from gastudy.course.labs.effective_batch import plan_line


@exercise("02.1")
def effective_with_tensor_parallel(answer: object) -> tuple[bool, str]:
    """Answer: samples per update for 8 GPUs, tensor-parallel size 2, m=4, A=4. Course: MB-2."""
    plan = BatchPlan(4, 4, replicas=8 // 2, tensor_parallel=2)
    if answer == plan.effective_batch:
        return True, f"{plan.describe()}."
    if answer == 4 * 4 * 8:
        return (
            False,
            t("you counted all 8 GPUs as replicas; two GPUs share one model copy (tensor parallel)."),
        )
    return (
        False,
        t("not {answer}. How many data-parallel replicas do 8 GPUs make if each model spans 2?", answer=repr(answer)),
    )


@exercise("02.2")
def accumulation_for_target(answer: object) -> tuple[bool, str]:
    """Answer: A that gives 256 samples per update with m=8 on 4 replicas. Course: MB-2."""
    plan = plan_from_target(256, micro_batch=8, replicas=4)
    if answer == plan.accumulation_steps:
        return True, f"{plan.describe()}."
    try:
        mine = BatchPlan(8, answer, 4)  # type: ignore[arg-type]
    except PlanError as err:
        return False, str(err)
    return False, t("with A={answer}: {plan} — not 256.", answer=answer, plan=plan_line(mine))

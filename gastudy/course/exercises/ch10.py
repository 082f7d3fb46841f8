"""Exercises of chapter 10 — verify one update, keep a record (MB-10)."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t


@exercise("10.1")
def passing_bf16(answer: object) -> tuple[bool, str]:
    """A ``verify(...)`` configuration in bf16 with A = 8 on tiny-gpt that passes (MB-10).

    The feedback is in the course language; a failed verification quotes the verifier's reasons,
    which the library writes in English."""
    from gastudy.course.labs.verify_lab import verify

    if not isinstance(answer, dict):
        return False, t("answer with a dict of verify arguments, got {answer}", answer=repr(answer))
    config = {"model": "tiny-gpt", **answer}
    if config.get("precision") != "bf16" or config.get("accumulation_steps") != 8 or config["model"] != "tiny-gpt":
        return False, t("the exercise asks for precision='bf16', accumulation_steps=8 on model 'tiny-gpt'")
    try:
        report = verify(**config)
    except (TypeError, ValueError) as e:
        return False, t("verify(**answer) raised {error}: {message}", error=type(e).__name__, message=e)
    if report.passed:
        return True, t("passed: relative gap {gap:.2g} within bf16's tolerance {tol:g}.",
                       gap=report.max_rel_diff, tol=report.tolerance)
    return False, t("it fails: {reasons}", reasons="; ".join(report.reasons))


@exercise("10.2")
def short_group_samples(answer: object) -> tuple[bool, str]:
    """Samples in the short last group of the default record run (m=4, A=4, 150 samples, keep)."""
    from gastudy.course.labs.verify_lab import record_run

    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, t("answer with a whole number of samples, got {answer}", answer=repr(answer))
    groups = record_run().record.last_group["groups"]
    expected = len(groups[0]["sample_ids"])
    if answer == expected:
        return True, t("{expected} samples: 150 samples make 38 microbatches (the last holds 2), so after 9 full "
                       "groups the last group has {microbatches} microbatches.", expected=expected,
                       microbatches=groups[0]["microbatches"])
    if answer == groups[0]["microbatches"]:
        return False, t("that is the number of microbatches; the question asks for samples.")
    return False, t("{answer} is not it; look at record.result.record.last_group['groups'][0]['sample_ids']",
                    answer=answer)

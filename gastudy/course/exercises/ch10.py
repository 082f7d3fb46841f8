"""Exercises of chapter 10 — verify one update, keep a record (MB-10)."""

from __future__ import annotations

from gastudy.course.exercises import exercise


@exercise("10.1")
def passing_bf16(answer: object) -> tuple[bool, str]:
    """A ``verify(...)`` configuration in bf16 with A = 8 on tiny-gpt that passes (MB-10)."""
    from gastudy.course.labs.verify_lab import verify

    if not isinstance(answer, dict):
        return False, f"answer with a dict of verify arguments, got {answer!r}"
    config = {"model": "tiny-gpt", **answer}
    if config.get("precision") != "bf16" or config.get("accumulation_steps") != 8 or config["model"] != "tiny-gpt":
        return False, "the exercise asks for precision='bf16', accumulation_steps=8 on model 'tiny-gpt'"
    try:
        report = verify(**config)
    except (TypeError, ValueError) as e:
        return False, f"verify(**answer) raised {type(e).__name__}: {e}"
    if report.passed:
        return True, f"passed: relative gap {report.max_rel_diff:.2g} within bf16's tolerance {report.tolerance:g}."
    return False, "it fails: " + "; ".join(report.reasons)


@exercise("10.2")
def short_group_samples(answer: object) -> tuple[bool, str]:
    """Samples in the short last group of the default record run (m=4, A=4, 150 samples, keep)."""
    from gastudy.course.labs.verify_lab import record_run

    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, f"answer with a whole number of samples, got {answer!r}"
    groups = record_run().record.last_group["groups"]
    expected = len(groups[0]["sample_ids"])
    if answer == expected:
        return True, (f"{expected} samples: 150 samples make 38 microbatches (the last holds 2), so after 9 full "
                      f"groups the last group has {groups[0]['microbatches']} microbatches.")
    if answer == groups[0]["microbatches"]:
        return False, "that is the number of microbatches; the question asks for samples."
    return False, f"{answer} is not it; look at record.result.record.last_group['groups'][0]['sample_ids']"

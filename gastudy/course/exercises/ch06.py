"""Exercises of chapter 06 — data parallelism (MB-7). The checkers start real processes."""

from __future__ import annotations

from gastudy.course.exercises import exercise
from gastudy.course.i18n import t


@exercise("06.1")
def allreduce_calls(answer: object) -> tuple[bool, str]:
    """All-reduce calls per update with and without no_sync for D=2, A=6 (MB-7)."""
    from gastudy.course.labs.data_parallel import count_with_and_without

    if not (isinstance(answer, tuple | list) and len(answer) == 2):
        return False, t("answer with a pair (calls with no_sync, calls without), got {answer}", answer=repr(answer))
    counts = count_with_and_without(2, 6)
    expected = (counts.with_no_sync["calls_per_update"], counts.without["calls_per_update"])
    if tuple(answer) == expected:
        return True, t("{on:g} and {off:g}: without no_sync every one of the 6 backwards communicates.",
                       on=expected[0], off=expected[1])
    if tuple(answer) == expected[::-1]:
        return False, t("the other way round: no_sync *saves* communication.")
    return False, t("{answer} is not what was measured; run count_with_and_without(2, 6)", answer=tuple(answer))


@exercise("06.2")
def global_denominator(answer: object) -> tuple[bool, str]:
    """The global denominator of the default denominator lab (D=2, m=2, A=4) (MB-7)."""
    from gastudy.course.demos.ddp import compare_denominators

    if isinstance(answer, bool) or not isinstance(answer, int):
        return False, t("answer with a whole number of tokens, got {answer}", answer=repr(answer))
    result = compare_denominators(2, 2, 4)
    items = result["items_per_replica"]
    if answer == result["global"]["denominator"]:
        return True, t("{sum} = {answer}: every replica divides by the whole group's count.",
                       sum=" + ".join(map(str, items)), answer=answer)
    if answer in items:
        return False, t("that is one replica's own count — the naive local mean.")
    return False, t("{answer} is not it; add up the replicas' counts {items}", answer=answer, items=items)


from gastudy.course.exercises import ch06_sharded  # noqa: E402,F401 - registers 06.3 (the sharded section)

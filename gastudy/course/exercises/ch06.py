"""Exercises of chapter 06 — data parallelism (MB-7). The checkers start real processes: 06.2 runs the
learner's data-parallel ``train_step`` on 2 of them."""

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
def no_sync_and_global_denominator(answer: object) -> tuple[bool, str]:
    """Answer: ``train_step(model, optimizer, microbatches, scheduler)`` for one replica of a
    data-parallel update — ``model`` comes wrapped in ``DistributedDataParallel`` — with the global
    denominator (the supervised items all-reduced over the replicas before the first backward, each
    summed loss × D ÷ them) and ``model.no_sync()`` around the forward and backward of every
    microbatch but the last. Run through :func:`gastudy.check_loop` on 2 local processes
    (``replicas=2``; a function defined in a notebook cell is written into a module the processes
    import, :func:`~gastudy.course.exercises.graded.importable`), then: one all-reduce per update on
    each replica (:func:`~gastudy.course.exercises.graded.synced_once`) and no memory growth on the
    replicas (:func:`~gastudy.course.exercises.graded.ddp_memory_growth`). Course: MB-7."""
    from gastudy.course.demos.ddp import close_pool
    from gastudy.course.exercises.graded import (
        ddp_memory_growth,
        grade_loop,
        loop_world,
        synced_once,
    )

    # The check starts its own 2 processes; the labs' warm pool would sit idle beside them and
    # take the kernel past a workshop learner's 1 GiB. The next lab starts it again.
    close_pool()
    model, microbatches = loop_world(micro_batch=2, accumulation_steps=4, replicas=2)
    items = [sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches[r * 4:(r + 1) * 4]) for r in (0, 1)]
    return grade_loop(answer, model, microbatches,
                      t("both replicas divided by the global N = {sum} = {total} items, × D = 2, and all-reduced "
                        "once per update", sum=" + ".join(map(str, items)), total=sum(items)),
                      checks=[synced_once, ddp_memory_growth(model, microbatches)], replicas=2)


from gastudy.course.exercises import ch06_sharded  # noqa: E402,F401 - registers 06.3 (the sharded section)

"""The data-parallel chapter's measurements (course: MB-7).

Each driver starts real local processes (gloo) and takes a few seconds on two cores; each
``*_worker`` is one rank's part, run inside the process group.

- :func:`compare_denominators`: global denominator vs naive per-replica mean vs the big batch;
- :func:`count_allreduces`: gradient all-reduces per update with and without ``no_sync``;
- :func:`duplicate_samples_demo`: the same samples on every replica (no distributed sampler);
- :func:`uneven_groups_demo`: replicas that run out of data at different times;
- :func:`run_cell_function`: a loop written in a notebook cell, run on every replica, and
  :func:`library_update`, the engine's update it is checked against.
"""

from __future__ import annotations

import atexit
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.distributed as dist

from gastudy.core.loss import Tokens
from gastudy.course.mistakes import PerReplicaMean, unsharded_stream
from gastudy.course.pool import WorkerPool
from gastudy.parallel.agreement import DuplicateSamplesError
from gastudy.parallel.ddp import DDPReplicas

_POOLS: dict[int, WorkerPool] = {}  # by D, most recently used last
MAX_POOLS = 1
"""Warm pools kept at once. One: on a shared workshop server each learner's kernel must stay
under 1 GiB, and a second warm pool (D = 2 and D = 3 together: 5 workers) costs about 780 MiB
against about 320 MiB for one; changing D pays a new start instead (a few seconds, with a bar)."""


def warm_pool(replicas: int) -> WorkerPool:
    """The course session's warm pool of ``replicas`` local worker processes (course: MB-7).

    Started on first use and kept for the kernel's life, so a lab's slider answers in about a
    second instead of paying for new processes on every change. Pools for the last
    :data:`MAX_POOLS` values of D are kept; the oldest beyond that is stopped before the new
    one starts, so moving from D = 2 to 3 never holds both. All are closed when the kernel exits.
    """
    pool = _POOLS.pop(replicas, None) or WorkerPool(replicas)
    _POOLS[replicas] = pool
    while len(_POOLS) > MAX_POOLS:
        _POOLS.pop(next(iter(_POOLS))).close()
    return pool


def start_pool(replicas: int, progress: Callable[[float], None] | None = None) -> WorkerPool:
    """The warm pool of ``replicas`` processes, ready when this returns (course: MB-7).

    A pool not started yet is started now and ``progress(fraction)`` (0…1, the share of ranks
    that have joined) lets a lab show that the once-per-session start is under way; a pool
    already warm returns at once. Raises what :meth:`WorkerPool.start` raises.
    """
    pool = warm_pool(replicas)
    if progress is not None and not pool.ready:
        progress(0.0)
    pool.start(progress=None if progress is None else lambda joined, total: progress(joined / total))
    return pool


def close_pool() -> None:
    """Stop every warm pool of the course."""
    while _POOLS:
        _POOLS.popitem()[1].close()


atexit.register(close_pool)


def run_on_replicas(worker: Callable[..., Any], replicas: int, *args: Any, timeout: float = 120.0,
                    **kwargs: Any) -> list[Any]:
    """Run ``worker`` on every rank of the warm pool of ``replicas`` processes; results by rank.
    Raises :class:`~gastudy.parallel.launch.WorkerError` when a rank fails (the next call
    starts a fresh pool). Course: MB-7."""
    pool = warm_pool(replicas)
    pool.timeout = timeout
    return pool.run(worker, *args, **kwargs)

def _dtype(name: str) -> torch.dtype:
    return {"float64": torch.float64, "float32": torch.float32}[name]



# the global denominator (right) and each replica's own token mean (the mistake MB-7 shows)
DENOMINATORS = {"global": Tokens(), "local": PerReplicaMean()}


def compare_denominators_worker(model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4,
                                collate: str = "padded", seed: int = 0, dtype: str = "float64") -> dict[str, Any]:
    """One rank of :func:`compare_denominators` (runs inside a process group).

    Course: MB-7.
    """
    from gastudy.check.steps import first_step_gradients, record_steps
    from gastudy.check.verify import (
        compare_gradients,
        controlled_microbatches,
        reference_gradients,
    )
    from gastudy.core.engine import Accumulator
    from gastudy.course.models import build_model, task_of

    task, D, rank = task_of(model), dist.get_world_size(), dist.get_rank()
    out: dict[str, Any] = {"rank": rank}
    for mode, normalization in DENOMINATORS.items():
        # A fresh model (same seed) per mode: one DDP wrapper per module, never two.
        net = build_model(model, seed=seed, dtype=_dtype(dtype))
        replicas = DDPReplicas()
        optimizer = torch.optim.SGD(net.parameters(), lr=0.0)
        engine = Accumulator(replicas.wrap(net), optimizer, accumulation_steps=accumulation_steps, task=task,
                             normalization=normalization, replicas=replicas)
        mbs = controlled_microbatches(model, micro_batch, accumulation_steps, collate, seed, replicas=D, rank=rank)
        group = next(iter(replicas.group_stream(mbs, accumulation_steps, task)))
        with record_steps(net, optimizer, track_applied=False) as steps:
            result = engine.update(group)
        # what this replica's loss is divided by: the global count, or (the mistake) its own items
        divisor = result.denominator if mode == "global" else group.supervised_items
        out[mode] = {"gradients": first_step_gradients(steps), "denominator": divisor}
        out["items"], out["sample_ids"] = group.items, group.sample_ids
    if rank == 0:
        every = [mb for r in range(D) for mb in controlled_microbatches(model, micro_batch, accumulation_steps,
                                                                         collate, seed, replicas=D, rank=r)]
        ref = reference_gradients(build_model(model, seed=seed, dtype=_dtype(dtype)), every, task)
        for mode in DENOMINATORS:
            max_abs, max_rel = compare_gradients(out[mode]["gradients"], ref)
            out[mode].update(max_abs_diff=max_abs, max_rel_diff=max_rel)
    for mode in DENOMINATORS:
        del out[mode]["gradients"]
    return out



def compare_denominators(replicas: int = 2, micro_batch: int = 2, accumulation_steps: int = 4,
                         model: str = "tiny-gpt", collate: str = "padded", seed: int = 0,
                         dtype: str = "float64", timeout: float = 120.0) -> dict[str, Any]:
    """Global denominator vs naive per-replica mean vs the single-process big batch (MB-7).

    Runs one update of m×A×D variable-length samples on ``replicas`` local processes (DDP,
    gloo) twice — with the global denominator and with each replica's own token mean — and
    compares each accumulated gradient with the gradient of ONE forward over all m×A×D
    samples in one process (``dtype`` float64 by default, so rounding is ~1e-16).

    Returns ``{"replicas", "items_per_replica" (supervised items per rank), "items_per_microbatch",
    "global": {"denominator", "max_abs_diff", "max_rel_diff"}, "naive": {...}}``.

    Course: MB-7.
    """
    ranks = run_on_replicas(compare_denominators_worker, replicas, model=model, micro_batch=micro_batch,
                      accumulation_steps=accumulation_steps, collate=collate, seed=seed, dtype=dtype, timeout=timeout)
    return {"replicas": replicas, "micro_batch": micro_batch, "accumulation_steps": accumulation_steps,
            "effective_batch": micro_batch * accumulation_steps * replicas,
            "items_per_replica": [sum(r["items"]) for r in ranks],
            "items_per_microbatch": [r["items"] for r in ranks],
            "global": ranks[0]["global"], "naive": ranks[0]["local"]}



def count_allreduces_worker(settings: Sequence[tuple[int, bool]], updates: int = 3, micro_batch: int = 2,
                            model: str = "tiny-gpt", seed: int = 0,
                            model_kwargs: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """One rank of :func:`count_allreduces`: for each ``(A, no_sync)`` run ``updates`` updates
    (plus one warm-up) and report all-reduce calls, bytes and seconds per update.

    Course: MB-7.
    """
    from gastudy.core.data import MicrobatchStream
    from gastudy.core.engine import Accumulator
    from gastudy.course.datasets import AdditionDataset, BlobDataset
    from gastudy.course.models import build_model, task_of

    task, D, rank = task_of(model), dist.get_world_size(), dist.get_rank()
    rows = []
    for A, no_sync in settings:
        net = build_model(model, seed=seed, **(model_kwargs or {}))  # one DDP wrapper per module
        replicas = DDPReplicas(no_sync=no_sync)
        wrapped = replicas.wrap(net)
        n = micro_batch * A * D * (updates + 1)
        data = AdditionDataset(n, seed=seed) if task == "causal" else BlobDataset(n, seed=seed)
        stream = MicrobatchStream(data, micro_batch, seed=seed, replicas=D, rank=rank)
        engine = Accumulator(wrapped, torch.optim.SGD(net.parameters(), lr=1e-3), accumulation_steps=A,
                             task=task, replicas=replicas)
        seconds = []
        for group in replicas.group_stream(stream, A, task):
            t0 = time.perf_counter()
            engine.update(group)
            seconds.append(time.perf_counter() - t0)
        comm = replicas.counter.per_update()[1:]  # the first update warms up (bucket rebuild)
        rows.append({"accumulation_steps": A, "micro_batch": micro_batch, "no_sync": no_sync, "updates": len(comm),
                     "calls_per_update": sum(c["calls"] for c in comm) / len(comm),
                     "bytes_per_update": sum(c["bytes"] for c in comm) / len(comm),
                     "seconds_per_update": sum(seconds[1:]) / len(seconds[1:]),
                     "gradient_bytes": sum(p.numel() * p.element_size() for p in net.parameters())})
    return rows



def count_allreduces(replicas: int = 2, accumulation_steps: int = 4, no_sync: bool = True, updates: int = 3,
                     micro_batch: int = 2, model: str = "tiny-gpt", seed: int = 0,
                     timeout: float = 120.0) -> dict[str, Any]:
    """Gradient all-reduces per update, with or without ``no_sync`` (MB-7).

    Runs ``updates`` updates (after one warm-up) of A microbatches on ``replicas`` local
    processes and counts DDP's gradient all-reduce calls and bytes with a comm hook:
    with ``no_sync`` one call per bucket per update, without it A calls per bucket.
    Returns ``{"accumulation_steps", "micro_batch", "no_sync", "calls_per_update", "bytes_per_update",
    "seconds_per_update", "gradient_bytes", "updates"}`` (rank 0's view; all ranks agree).

    Course: MB-7.
    """
    ranks = run_on_replicas(count_allreduces_worker, replicas, [(accumulation_steps, no_sync)], updates=updates,
                      micro_batch=micro_batch, model=model, seed=seed, timeout=timeout)
    return {"replicas": replicas, **ranks[0][0]}



def duplicate_samples_worker(shard: bool, micro_batch: int = 2, accumulation_steps: int = 4,
                             seed: int = 0, dataset_size: int = 64) -> dict[str, Any]:
    """One rank of :func:`duplicate_samples_demo`: the first group's ids, checked across ranks,
    and whether an update on them is refused.

    Course: MB-7.
    """
    from gastudy.core.data import MicrobatchStream
    from gastudy.core.engine import Accumulator
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.models import build_model

    D, rank = dist.get_world_size(), dist.get_rank()
    data = AdditionDataset(dataset_size, seed=seed)
    stream = MicrobatchStream(data, micro_batch, seed=seed, replicas=D, rank=rank) if shard \
        else unsharded_stream(data, micro_batch, seed=seed, replicas=D, rank=rank)
    replicas = DDPReplicas(duplicates="raise")
    net = build_model("tiny-gpt", seed=seed)
    engine = Accumulator(replicas.wrap(net), torch.optim.SGD(net.parameters(), lr=1e-3),
                         accumulation_steps=accumulation_steps, replicas=replicas)
    group = next(iter(replicas.group_stream(stream, accumulation_steps)))
    try:
        engine.update(group)
        refused = None
    except DuplicateSamplesError as e:
        refused = str(e)
    return {"rank": rank, "sample_ids": group.sample_ids, "report": replicas.ids_report.to_dict(),
            "refused": refused, "updates_applied": engine.counters.updates_applied}



def duplicate_samples_demo(replicas: int = 2, micro_batch: int = 2, accumulation_steps: int = 4, seed: int = 0,
                           timeout: float = 120.0) -> dict[str, Any]:
    """The missing distributed sampler, detected (MB-7).

    Runs the first update on ``replicas`` processes twice: with sharded data
    (``MicrobatchStream(replicas=D, rank=r)``) and with every replica reading the same
    samples (:func:`~gastudy.course.mistakes.unsharded_stream`). Returns ``{"sharded": ..., "unsharded": ...}``, each with the
    sample-id report (duplicated ids, extra samples), the ids per rank and the refusal
    message (``None`` when the update ran).

    Course: MB-7.
    """
    out = {}
    for name, shard in (("sharded", True), ("unsharded", False)):
        ranks = run_on_replicas(duplicate_samples_worker, replicas, shard, micro_batch=micro_batch,
                          accumulation_steps=accumulation_steps, seed=seed, timeout=timeout)
        out[name] = {"report": ranks[0]["report"], "ids_per_rank": [r["sample_ids"] for r in ranks],
                     "refused": ranks[0]["refused"], "updates_applied": [r["updates_applied"] for r in ranks]}
    return out



def uneven_groups_worker(last_group: str, dataset_size: int, micro_batch: int = 2, accumulation_steps: int = 4,
                         seed: int = 0, no_sync: bool = True, lr: float = 1e-2,
                         return_weights: bool = False) -> dict[str, Any]:
    """One rank of :func:`uneven_groups_demo`: train one epoch (SGD, ``lr``) and report every
    update; with ``return_weights`` also the final parameters (a name → tensor dict).

    Course: MB-7.
    """
    from gastudy.core.data import MicrobatchStream
    from gastudy.core.engine import Accumulator
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.models import build_model

    D, rank = dist.get_world_size(), dist.get_rank()
    stream = MicrobatchStream(AdditionDataset(dataset_size, seed=seed), micro_batch, seed=seed, replicas=D, rank=rank)
    replicas = DDPReplicas(no_sync=no_sync)
    net = build_model("tiny-gpt", seed=seed)
    engine = Accumulator(replicas.wrap(net), torch.optim.SGD(net.parameters(), lr=lr),
                         accumulation_steps=accumulation_steps, replicas=replicas)
    groups = replicas.group_stream(stream, accumulation_steps, "causal", last_group)
    updates = []
    for group in groups:
        result = engine.update(group)
        updates.append({"index": group.index, "microbatches": group.size, "fillers": group.fillers,
                        "replica_microbatches": group.replica_microbatches, "items": group.supervised_items,
                        "denominator": result.denominator, "samples": group.samples})
    weights = {n: p.detach().clone() for n, p in net.named_parameters()} if return_weights else None
    return {"rank": rank, "microbatches_in_stream": len(stream), "updates": updates, "weights": weights,
            "partial": groups.partial.to_dict() if groups.partial else None,
            "replica_microbatches": groups.replica_microbatches,
            "allreduce_per_update": replicas.counter.per_update(), "counters": engine.counters.to_dict(),
            "weights_checksum": float(sum(p.double().sum() for p in net.parameters()))}



def uneven_groups_demo(last_group: str = "keep", replicas: int = 2, dataset_size: int = 21, micro_batch: int = 2,
                       accumulation_steps: int = 4, no_sync: bool = True, timeout: float = 120.0) -> list[dict]:
    """An epoch whose last group is shorter on some replicas, under ``keep`` or ``drop`` (MB-4, MB-7).

    With 21 samples, m=2 and D=2, rank 0 holds 11 samples (6 microbatches) and rank 1 holds
    10 (5 microbatches): with A=4 the second group has 2 and 1 microbatches. ``keep`` runs it on both replicas (rank 1
    adds a filler) with the global denominator; ``drop`` skips it on both. Returns each
    rank's report (updates with their sizes and denominators, the partial record, the
    all-reduce calls per update and a checksum of the final weights, equal on every rank).

    Course: MB-4, MB-7.
    """
    return run_on_replicas(uneven_groups_worker, replicas, last_group, dataset_size, micro_batch=micro_batch,
                     accumulation_steps=accumulation_steps, no_sync=no_sync, timeout=timeout)



# ----------------------------------------------------------------------------- the plain loop (MB-7)
def run_source_worker(source: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """One rank of :func:`run_cell_function`: define ``name`` from ``source`` and call it.

    The function is defined in a fresh namespace on this rank, so it must be self-contained
    (its imports inside its body). Course: MB-7.
    """
    namespace: dict[str, Any] = {"__name__": f"gastudy_cell_{name}"}
    exec(compile(source, f"<cell function {name}>", "exec"), namespace)  # noqa: S102 - the learner's own cell
    return namespace[name](*args, **kwargs)


def run_cell_function(fn: Callable[..., Any], replicas: int, *args: Any, timeout: float = 120.0,
                      **kwargs: Any) -> list[Any]:
    """Run a function written in a notebook cell on every rank of the warm pool; results by rank.

    The pool's workers are separate processes that cannot import a notebook, so the function's
    *source* (``inspect.getsource``) travels instead and each rank defines it again. The
    function must therefore be self-contained: imports inside its body, no names from the
    notebook's globals, a module-level ``def`` (not a lambda), picklable arguments and return
    value. Raises ``TypeError`` for a lambda or an object without source, and
    :class:`~gastudy.parallel.launch.WorkerError` when a rank fails. Course: MB-7 (the plain
    ``no_sync`` loop of chapter 06).
    """
    import inspect
    import textwrap

    name = getattr(fn, "__name__", "")
    if not callable(fn) or not name.isidentifier():
        raise TypeError(f"run_cell_function needs a function defined with `def`, got {fn!r}")
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as e:
        raise TypeError(f"the source of {name} cannot be read ({e}); define it with `def` in a cell or a file") from e
    return run_on_replicas(run_source_worker, replicas, source, name, *args, timeout=timeout, **kwargs)


def rank_microbatches(micro_batch: int, accumulation_steps: int, seed: int = 0) -> list[dict[str, torch.Tensor]]:
    """This rank's first A microbatches of m variable-length addition problems (course: MB-7).

    The data of chapter 06's plain loop and of :func:`engine_update_worker`: ``m·A·D``
    samples sharded by :class:`~gastudy.core.data.MicrobatchStream` (each rank its own share).
    Call inside a process group.
    """
    from gastudy.core.data import MicrobatchStream
    from gastudy.course.datasets import AdditionDataset

    D, rank = dist.get_world_size(), dist.get_rank()
    stream = MicrobatchStream(AdditionDataset(micro_batch * accumulation_steps * D, seed=seed), micro_batch,
                              seed=seed, replicas=D, rank=rank)
    return list(stream)[:accumulation_steps]


def engine_update_worker(micro_batch: int = 2, accumulation_steps: int = 4, no_sync: bool = True,
                         seed: int = 0) -> dict[str, Any]:
    """One rank: the library's first update on :func:`rank_microbatches` (course: MB-7).

    ``Accumulator`` with :class:`~gastudy.parallel.ddp.DDPReplicas` (global denominator) on
    tiny-gpt. Returns ``{"calls": gradient all-reduce calls in this update, "gradient": the
    flat gradient the optimizer step received}``: what chapter 06's plain loop is checked against.
    """
    from gastudy.check.steps import first_step_gradients, flat, record_steps
    from gastudy.core.engine import Accumulator
    from gastudy.core.groups import build_group
    from gastudy.course.models import build_model

    net = build_model("tiny-gpt", seed=seed)
    replicas = DDPReplicas(no_sync=no_sync)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.0)
    engine = Accumulator(replicas.wrap(net), optimizer, accumulation_steps=accumulation_steps, replicas=replicas)
    group = build_group(0, rank_microbatches(micro_batch, accumulation_steps, seed), accumulation_steps)
    with record_steps(net, optimizer, track_applied=False) as steps:
        engine.update(group)
    return {"calls": sum(replicas.counter.calls.values()), "gradient": flat(first_step_gradients(steps), net)}


def library_update(replicas: int = 2, micro_batch: int = 2, accumulation_steps: int = 4, no_sync: bool = True,
                   seed: int = 0, timeout: float = 120.0) -> dict[str, Any]:
    """Rank 0's :func:`engine_update_worker` result on ``replicas`` processes (course: MB-7)."""
    return run_on_replicas(engine_update_worker, replicas, micro_batch, accumulation_steps, no_sync, seed,
                           timeout=timeout)[0]

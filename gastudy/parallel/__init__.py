"""Data-parallel back-ends for the engine (course: MB-2, MB-7).

``process_group`` (join, size, leave) · ``agreement`` (group sizes and sample ids the replicas
agree on before a group runs) · ``ddp`` (:class:`~gastudy.parallel.ddp.DDPReplicas`:
``no_sync`` and the global denominator on PyTorch's DDP) · ``fsdp``
(:class:`~gastudy.parallel.fsdp.FSDPReplicas`: the same on FSDP2 ``fully_shard``, sync deferred
or every microbatch) · ``launch`` (local multi-process runs). Builds on :mod:`gastudy.core`
only. (The course's warm pool of workers, for widgets that answer in about a second, is
:mod:`gastudy.course.pool`, built on ``launch``.)
"""

"""The batch plan: m, A, D and the effective batch (GA-3, MB-2).

- m (``micro_batch``): samples per microbatch on one replica — the framework's
  "per-device batch size".
- A (``accumulation_steps``): microbatches accumulated before one optimizer update — the
  framework's "gradient accumulation steps".
- D (``replicas``): data-parallel replicas. Devices that share one model through tensor or
  pipeline parallelism are **not** extra replicas.

Effective batch = m × A × D samples per update; each replica's share is m × A.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


class PlanError(ValueError):
    """A batch plan that cannot be built; the message says why and what would work."""


def check_positive_int(name: str, value: object) -> int:
    """Return ``value`` if it is an int ≥ 1 (bools rejected), else raise :class:`PlanError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise PlanError(f"{name} must be a whole number ≥ 1, got {value!r} ({type(value).__name__})")
    if value < 1:
        raise PlanError(f"{name} must be ≥ 1, got {value}")
    return value


@dataclass(frozen=True)
class BatchPlan:
    """m, A, D (+ tensor/pipeline sizes that do not count as replicas).

    Raises :class:`PlanError` when any size is not a whole number ≥ 1.
    """

    micro_batch: int
    accumulation_steps: int
    replicas: int = 1
    tensor_parallel: int = 1
    pipeline_parallel: int = 1

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            check_positive_int(name, value)

    @property
    def effective_batch(self) -> int:
        """Samples per optimizer update, m × A × D."""
        return self.micro_batch * self.accumulation_steps * self.replicas

    @property
    def per_replica(self) -> int:
        """Samples each replica processes per update, m × A."""
        return self.micro_batch * self.accumulation_steps

    @property
    def devices(self) -> int:
        """Devices the run occupies: D × tensor-parallel × pipeline-parallel."""
        return self.replicas * self.tensor_parallel * self.pipeline_parallel

    def describe(self) -> str:
        """One line: ``m=2 × A=8 × D=2 = 32 samples per update (16 per replica, 2 devices)``."""
        return (
            f"m={self.micro_batch} × A={self.accumulation_steps} × D={self.replicas} = "
            f"{self.effective_batch} samples per update ({self.per_replica} per replica, "
            f"{self.devices} devices)"
        )

    def to_dict(self) -> dict[str, int]:
        """The sizes and derived counts as a JSON-ready dict."""
        return {**asdict(self), "effective_batch": self.effective_batch,
                "per_replica": self.per_replica, "devices": self.devices}


def divisors(n: int) -> list[int]:
    """Every divisor of ``n`` ≥ 1, ascending, in O(√n) steps (a target of 10¹² answers at once).

    """
    check_positive_int("n", n)
    low, high, d = [], [], 1
    while d * d <= n:
        if n % d == 0:
            low.append(d)
            if d * d != n:
                high.append(n // d)
        d += 1
    return low + high[::-1]


def plan_from_target(
    target: int,
    micro_batch: int,
    replicas: int = 1,
    tensor_parallel: int = 1,
    pipeline_parallel: int = 1,
) -> BatchPlan:
    """The plan whose effective batch is exactly ``target``: A = target ÷ (m × D).

    Raises :class:`PlanError` when m × D does not divide ``target``, naming the nearest
    valid targets for this m and D and the microbatch sizes that do divide it.
    """
    for name, value in [("target", target), ("micro_batch", micro_batch), ("replicas", replicas)]:
        check_positive_int(name, value)
    step = micro_batch * replicas
    if target % step:
        lower, upper = (target // step) * step, (target // step + 1) * step
        nearest = [t for t in (lower, upper) if t >= 1]
        per_replica, rem = divmod(target, replicas)
        ms = divisors(per_replica) if not rem else []
        shown = ms if len(ms) <= 24 else [*ms[:12], "…", *ms[-12:]]
        hint = f"; micro-batch sizes that divide it with D={replicas}: {shown}" if ms else (
            f"; {target} is not divisible by D={replicas} at all")
        raise PlanError(
            f"target {target} is not a multiple of m×D = {micro_batch}×{replicas} = {step}: "
            f"nearest valid targets are {' or '.join(map(str, nearest))}{hint}"
        )
    return BatchPlan(micro_batch, target // step, replicas, tensor_parallel, pipeline_parallel)

"""Run a function on N local processes joined by ``torch.distributed`` (MB-7).

The course and the tests need real data parallelism without a cluster: :func:`run_local`
starts N fresh Python processes on this machine, joins them in one process group (``gloo``
over the loopback interface by default), calls the same function in each, and hands every
rank's return value back to the caller, in rank order::

    from gastudy.parallel.launch import run_local
    from gastudy.course.demos.ddp import compare_denominators_worker
    results = run_local(compare_denominators_worker, 2, accumulation_steps=4)

What it takes care of:

- a free TCP port on 127.0.0.1 for the rendezvous, chosen automatically;
- one thread per process (``torch.set_num_threads(1)``), so N processes fit on N cores;
- a timeout on the process group *and* on the whole run: a hung rank is killed, with all
  its children, and :class:`LaunchTimeout` says which ranks were still running;
- a clean shutdown (barrier, then ``destroy_process_group``): with gloo, ranks that tear
  down at different moments can abort at exit with "terminate called without an active
  exception"; the barrier makes them leave together;
- an exception in a worker is re-raised in the caller as :class:`WorkerError`, with the
  rank and the worker's traceback.

Workers are fresh processes (like the ``spawn`` start method), so the function must be
importable: define it in a module (``gastudy`` or your own file), not in a notebook cell.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

DEFAULT_RUN_TIMEOUT_S = 180.0
DEFAULT_PG_TIMEOUT_S = 30.0
# Launcher options; every other keyword of run_local goes to the worker function.
LAUNCH_OPTIONS = ("timeout", "backend", "pg_timeout", "threads", "env")


class WorkerError(RuntimeError):
    """A worker raised (or died). ``rank`` is the first failing rank, ``failures`` maps every
    failing rank to its :class:`RankFailure`, ``run`` is the whole :class:`LocalRun`.

    Course: MB-7.
    """

    def __init__(self, message: str, rank: int, failures: dict[int, RankFailure], run: LocalRun):
        super().__init__(message)
        self.rank, self.failures, self.run = rank, failures, run


class LaunchTimeout(TimeoutError):
    """The run did not finish within its timeout; every process was killed. ``run`` holds
    what the ranks wrote before that (``stderr`` tails, results of ranks that finished).

    Course: MB-7.
    """

    def __init__(self, message: str, run: LocalRun):
        super().__init__(message)
        self.run = run


@dataclass
class RankFailure:
    """Why one rank failed: the exception's type name and message, and the traceback text.

    Course: MB-7.
    """

    type: str
    message: str
    traceback: str


@dataclass
class LocalRun:
    """Everything a :func:`launch_local` run produced, one entry per rank.

    ``results[r]`` is rank r's return value (``None`` if it failed), ``failures`` the ranks
    that raised or died, ``returncodes`` the process exit statuses (negative: killed by a
    signal), ``stdout``/``stderr`` what each process printed, ``pids`` the process ids (all
    gone when the run returns), ``seconds`` the wall time.

    Course: MB-7.
    """

    nprocs: int
    results: list[Any]
    failures: dict[int, RankFailure] = field(default_factory=dict)
    returncodes: list[int | None] = field(default_factory=list)
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    seconds: float = 0.0
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """True when every rank returned and exited with status 0."""
        return not self.failures and not self.timed_out and all(rc == 0 for rc in self.returncodes)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on ``host`` right now (the OS picks it; it is then released).

    Course: MB-7.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def check_importable(fn: Callable[..., Any]) -> None:
    """Raise ``ValueError`` if ``fn`` cannot be found by a fresh worker process.

    Functions defined in a notebook cell or a script's ``__main__`` (and lambdas or
    nested functions) exist only in the parent process.

    Course: MB-7.
    """
    target = fn.func if isinstance(fn, functools.partial) else fn
    module, qualname = getattr(target, "__module__", None), getattr(target, "__qualname__", "")
    if module in (None, "__main__") or "<" in qualname:
        raise ValueError(f"{getattr(target, '__name__', target)!r} is defined in {module or 'no module'} "
                         f"({qualname or '?'}): worker processes cannot import it. Put it in a .py module "
                         "(for example next to your notebook) and import it from there.")


def _child_env(rank: int, nprocs: int, port: int, threads: int, extra: dict[str, str] | None) -> dict[str, str]:
    """The environment of one worker: torchrun's variables, one thread, the parent's sys.path."""
    env = dict(os.environ)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env.update({
        "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank), "LOCAL_RANK": str(rank),
        "WORLD_SIZE": str(nprocs), "LOCAL_WORLD_SIZE": str(nprocs), "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads), "PYTHONPATH": os.pathsep.join(paths),
    })
    if sys.platform.startswith("linux") and os.path.isdir("/sys/class/net/lo"):
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only: never touch the network
    env.update(extra or {})
    return env


def _kill(proc: subprocess.Popen) -> None:
    """Kill one worker and everything it started (it runs in its own session)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        proc.wait(timeout=10)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def launch_local(fn: Callable[..., Any], nprocs: int, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
                 *, timeout: float = DEFAULT_RUN_TIMEOUT_S, backend: str = "gloo",
                 pg_timeout: float = DEFAULT_PG_TIMEOUT_S, threads: int = 1,
                 env: dict[str, str] | None = None) -> LocalRun:
    """Run ``fn(*args, **kwargs)`` on ``nprocs`` local processes; never raises for worker errors.

    Each process joins a process group (``backend``, rendezvous on a free 127.0.0.1 port,
    collective timeout ``pg_timeout`` seconds) before ``fn`` runs, and leaves it cleanly
    after. ``timeout`` (seconds) bounds the whole run; on expiry every process is killed
    and ``timed_out`` is set. When one rank fails, the others get ``pg_timeout`` + 10 s to
    finish (they usually fail fast too: their collectives time out), then are killed.
    Returns a :class:`LocalRun`. Raises ``ValueError`` for ``nprocs`` < 1 or a function the
    workers cannot import. Course: MB-7.
    """
    if isinstance(nprocs, bool) or not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError(f"nprocs must be a whole number ≥ 1, got {nprocs!r}")
    check_importable(fn)
    with tempfile.TemporaryDirectory(prefix="gastudy-launch-") as tmp:
        folder = Path(tmp)
        payload = {"fn": fn, "args": tuple(args), "kwargs": dict(kwargs or {}), "backend": backend,
                   "pg_timeout": pg_timeout, "threads": threads}
        (folder / "payload.pkl").write_bytes(pickle.dumps(payload))
        port = free_port()
        procs: list[subprocess.Popen] = []
        started = time.monotonic()
        with contextlib.ExitStack() as stack:
            stack.callback(lambda: [_kill(p) for p in procs])  # no stray process survives, whatever happens
            for rank in range(nprocs):
                out = stack.enter_context(open(folder / f"stdout_{rank}.txt", "wb"))
                err = stack.enter_context(open(folder / f"stderr_{rank}.txt", "wb"))
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "gastudy.parallel.launch", str(folder), str(rank)], stdin=subprocess.DEVNULL,
                    stdout=out, stderr=err, env=_child_env(rank, nprocs, port, threads, env), start_new_session=True))
            deadline, first_failure = started + timeout, None
            while any(p.poll() is None for p in procs):
                now = time.monotonic()
                if first_failure is None and any(p.poll() not in (None, 0) for p in procs):
                    first_failure = now
                if now > deadline or (first_failure is not None and now > first_failure + pg_timeout + 10):
                    break
                time.sleep(0.02)
            timed_out = any(p.poll() is None for p in procs) and time.monotonic() > deadline
        run = LocalRun(nprocs, [None] * nprocs, returncodes=[p.returncode for p in procs],
                       pids=[p.pid for p in procs], seconds=time.monotonic() - started, timed_out=timed_out)
        for rank, proc in enumerate(procs):
            run.stdout.append(_read(folder / f"stdout_{rank}.txt"))
            run.stderr.append(_read(folder / f"stderr_{rank}.txt"))
            result = folder / f"result_{rank}.pkl"
            if result.exists():
                status, value = pickle.loads(result.read_bytes())
                if status == "ok":
                    run.results[rank] = value
                else:
                    run.failures[rank] = value
            if rank not in run.failures and proc.returncode != 0:
                how = "was killed (still running at the time limit)" if timed_out and not result.exists() else (
                    f"exited with status {proc.returncode}")
                tail = run.stderr[rank].strip().splitlines()[-5:]
                run.failures[rank] = RankFailure("ProcessExit", f"rank {rank} {how}", "\n".join(tail))
        return run


def run_local(fn: Callable[..., Any], nprocs: int, *args: Any, timeout: float = DEFAULT_RUN_TIMEOUT_S,
              backend: str = "gloo", pg_timeout: float = DEFAULT_PG_TIMEOUT_S, threads: int = 1,
              env: dict[str, str] | None = None, **kwargs: Any) -> list[Any]:
    """Run ``fn(*args, **kwargs)`` on ``nprocs`` local processes and return each rank's result.

    The list is in rank order. Launcher keywords (``timeout``, ``backend``, ``pg_timeout``,
    ``threads``, ``env``) are not passed to ``fn``; see :func:`launch_local` for their meaning.
    Raises :class:`WorkerError` (rank, message and traceback of every failing rank) when a
    worker raised or exited abnormally, :class:`LaunchTimeout` when the run exceeded
    ``timeout`` seconds (every process is killed first). Course: MB-7.
    """
    run = launch_local(fn, nprocs, args, kwargs, timeout=timeout, backend=backend, pg_timeout=pg_timeout,
                       threads=threads, env=env)
    if run.timed_out:
        alive = [r for r, f in run.failures.items() if "killed" in f.message]
        raise LaunchTimeout(f"the {nprocs}-process run of {getattr(fn, '__name__', fn)} did not finish within "
                            f"{timeout:g} s; ranks {alive} were still running and were killed. A rank waiting "
                            "for a collective the others never call hangs until the process-group timeout: "
                            "check that every rank runs the same collectives.", run)
    if run.failures:
        rank = min(run.failures)
        lines = [f"rank {r}: {f.type}: {f.message}" for r, f in sorted(run.failures.items())]
        raise WorkerError(f"{len(run.failures)} of {nprocs} worker(s) failed:\n" + "\n".join(lines)
                          + f"\n--- traceback of rank {rank} ---\n{run.failures[rank].traceback}",
                          rank, run.failures, run)
    return run.results


def _write_result(folder: Path, rank: int, status: str, value: Any) -> None:
    """Write a rank's outcome atomically (a partial file is never read)."""
    tmp = folder / f"result_{rank}.tmp"
    try:
        data = pickle.dumps((status, value))
    except Exception as e:  # an unpicklable return value is the worker's error, said plainly
        status, data = "error", pickle.dumps(("error", RankFailure(
            type(e).__name__, f"rank {rank}: its return value cannot be pickled ({e}); return plain data",
            traceback.format_exc())))
    tmp.write_bytes(data)
    tmp.replace(folder / f"result_{rank}.pkl")


def _worker(folder: Path, rank: int) -> None:
    """Body of one worker process: join the group, run the function, leave cleanly."""
    import torch
    import torch.distributed as dist

    payload = pickle.loads((folder / "payload.pkl").read_bytes())
    torch.set_num_threads(payload["threads"])
    try:
        if payload["backend"] == "nccl":
            torch.cuda.set_device(rank % max(torch.cuda.device_count(), 1))
        dist.init_process_group(payload["backend"], timeout=timedelta(seconds=payload["pg_timeout"]))
        value = payload["fn"](*payload["args"], **payload["kwargs"])
    except BaseException as e:  # noqa: BLE001 - every failure goes back to the caller
        _write_result(folder, rank, "error", RankFailure(type(e).__name__, str(e), traceback.format_exc()))
        sys.stdout.flush()
        sys.stderr.flush()
        # Other ranks may be inside a collective: leave without C++ destructors (no abort noise).
        os._exit(1)
    _write_result(folder, rank, "ok", value)
    del value
    gc.collect()  # DDP reducers and comm-hook futures go now, while the group still exists
    try:
        from gastudy.parallel.process_group import shutdown

        shutdown()
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(2)
    sys.stdout.flush()
    sys.stderr.flush()
    # The result is written and the group destroyed: skip C++ static destructors, where a gloo
    # thread still joinable aborts the process ("terminate called without an active exception").
    os._exit(0)


if __name__ == "__main__":  # python -m gastudy.parallel.launch FOLDER RANK (started by launch_local)
    # Import ourselves by name so pickled classes (RankFailure) belong to gastudy.parallel.launch, not __main__.
    from gastudy.parallel.launch import _worker as worker

    worker(Path(sys.argv[1]), int(sys.argv[2]))

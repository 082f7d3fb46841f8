"""Run a function on N local processes joined by ``torch.distributed`` (MB-7).

The course and the tests need real data parallelism without a cluster: :func:`run_local`
runs a function on N fresh local processes joined in one process group (``gloo`` over the
loopback interface by default) and hands every rank's return value back, in rank order::

    from gastudy.parallel.launch import run_local
    from gastudy.course.demos.ddp import compare_denominators_worker
    results = run_local(compare_denominators_worker, 2, accumulation_steps=4)

The processes are started, watched and stopped by PyTorch's own launcher, the engine that
``torchrun`` runs on (``torch.distributed.launcher.api.elastic_launch``: ``spawn`` start, a
c10d rendezvous on a port the OS assigns, every worker stopped when one fails or when the
parent gets SIGTERM/SIGINT, a worker's traceback in its error file). This module adds only
what that launcher does not do:

- a timeout on the run (counted once every worker has started): the ranks still running are
  killed, with everything they started, and :class:`LaunchTimeout` says which ranks they were
  and what the others returned;
- workers that die with their parent, even when it is killed with SIGKILL (each worker watches
  its parent, removes the run's temporary folder and kills its own process group);
- the results of the ranks that finished when another failed, the failure of each rank
  (type, message, traceback) in :class:`WorkerError`, and each rank's stdout/stderr;
- one thread per process (``torch.set_num_threads``), gloo on loopback, the signal handlers
  of the caller put back afterwards, and every file the run writes (PyTorch's logs and error
  files included) in one temporary folder that goes with the run (during the run,
  ``tempfile.tempdir`` points to it).

Workers are *spawned*: ``fn`` must be importable by name. A function from your own module
works; so does one defined in the script you run, as with ``torch.multiprocessing``, when the
code that launches it sits under ``if __name__ == "__main__":``. Functions defined in a
notebook cell, lambdas and nested functions are refused with a recipe.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import gc
import logging
import os
import pickle
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

DEFAULT_RUN_TIMEOUT_S = 180.0
DEFAULT_PG_TIMEOUT_S = 30.0
START_TIMEOUT_S = 300.0  # process start and `import torch`, before the run's own timeout counts
# Launcher options; every other keyword of run_local goes to the worker function.
LAUNCH_OPTIONS = ("timeout", "backend", "pg_timeout", "threads", "env")
# The signals PyTorch's launcher catches in the parent (it stops every worker, then raises).
HANDLED_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT")
MAIN_RECIPE = ("When the function is defined in the script you run, the code that launches it must sit under "
               "`if __name__ == \"__main__\":` (workers are spawned and import the script again, as with "
               "torch.multiprocessing).")


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


class LaunchStopped(RuntimeError):
    """The caller got SIGTERM, SIGHUP or SIGQUIT during a run; every worker was stopped first.
    ``signal`` is the signal's number (a command exits with 128 + it). SIGINT raises
    ``KeyboardInterrupt`` instead, as Python does.

    Course: MB-7.
    """

    def __init__(self, signum: int):
        name = signal.Signals(signum).name
        super().__init__(f"stopped by {name}: every worker process was stopped and the temporary files removed")
        self.signal = int(signum)


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
    signal; ``None``: stopped by the launcher after another rank failed), ``stdout``/``stderr``
    what each process printed, ``pids`` the process ids (all gone when the run returns),
    ``seconds`` the wall time.

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
    """A TCP port that is free on ``host`` right now (the OS picks it; it is then released,
    so another program may take it before it is used: :func:`launch_local` does not use it).

    Course: MB-7.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def check_importable(fn: Callable[..., Any]) -> None:
    """Raise ``ValueError`` if a spawned worker process cannot find ``fn`` by name.

    Module-level functions of an importable module pass, and so do those of the script being
    run (``__main__`` with a file; the script must launch under ``if __name__ ==
    "__main__":``). Functions of a notebook cell or an interactive session, lambdas and nested
    functions exist only in the parent process and are refused with the recipe.

    Course: MB-7.
    """
    target = fn.func if isinstance(fn, functools.partial) else fn
    module, qualname = getattr(target, "__module__", None), getattr(target, "__qualname__", "")
    name = getattr(target, "__name__", target)
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    if module == "__main__" and main_file and str(main_file).endswith(".py") and "<" not in qualname:
        return
    if module in (None, "__main__") or "<" in qualname:
        where = "a notebook cell or an interactive session" if module == "__main__" else (module or "no module")
        raise ValueError(f"{name!r} is defined in {where} ({qualname or '?'}): worker processes cannot import it. "
                         "Put it at the top level of a .py module (for example next to your notebook) and import "
                         f"it from there. {MAIN_RECIPE}")


# --------------------------------------------------------------------------- inside a worker


def _watch_parent(parent: int, folder: str) -> None:
    """Worker side: when the parent is gone (even killed with SIGKILL), remove the run's
    temporary folder and kill this worker's process group (itself and anything it started)."""
    while os.getppid() == parent:
        time.sleep(0.2)
    shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(OSError):
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGKILL)
    os._exit(1)


def _leave(state: dict[str, bool], parent: int, folder: str) -> None:
    """At exit: remove the run's folder if the parent is gone (nobody else will), flush and
    leave without C++ static destructors, where a gloo thread still joinable can abort the
    process ("terminate called without an active exception")."""
    if os.getppid() != parent:
        shutil.rmtree(folder, ignore_errors=True)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0 if state["ok"] else 1)


def _worker(payload: dict[str, Any]) -> Any:
    """Body of one worker (PyTorch's launcher calls it): join the group, run, leave cleanly."""
    rank, folder = int(os.environ["RANK"]), Path(payload["folder"])
    with contextlib.suppress(OSError):
        os.setsid()  # our own session and process group: the terminal's Ctrl-C goes to the parent only
    state = {"ok": False}
    atexit.register(_leave, state, payload["parent"], str(folder))
    threading.Thread(target=_watch_parent, args=(payload["parent"], str(folder)), daemon=True).start()
    (folder / f"pid_{rank}").write_text(str(os.getpid()))
    if os.path.isdir("/sys/class/net/lo"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only: never touch the network
    os.environ.update(payload["env"])
    import torch
    import torch.distributed as dist

    torch.set_num_threads(payload["threads"])
    try:
        if payload["backend"] == "nccl":
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % max(torch.cuda.device_count(), 1))
        dist.init_process_group(payload["backend"], timeout=timedelta(seconds=payload["pg_timeout"]))
        value = payload["fn"](*payload["args"], **payload["kwargs"])
    except KeyboardInterrupt as e:  # torch.multiprocessing would exit 0 without a result: say it
        raise RuntimeError(f"rank {rank} was interrupted (SIGINT)") from e
    try:
        data = pickle.dumps(value)
    except Exception as e:
        raise TypeError(f"rank {rank}: its return value cannot be pickled ({e}); return plain data") from e
    tmp = folder / f"result_{rank}.tmp"
    tmp.write_bytes(data)
    tmp.replace(folder / f"result_{rank}.pkl")  # read by the parent when another rank fails
    gc.collect()  # DDP reducers and comm-hook futures go now, while the group still exists
    from gastudy.parallel.process_group import shutdown

    shutdown()
    state["ok"] = True
    return value


# --------------------------------------------------------------------------- in the caller


@contextlib.contextmanager
def _launcher_quiet_and_restored():
    """PyTorch's launcher logs every step and installs signal handlers it never removes:
    silence it below ERROR, and put the caller's handlers and environment back afterwards."""
    loggers = [logging.getLogger(n) for n in ("torch.distributed.elastic", "torch.distributed.launcher",
                                              "torch.multiprocessing.spawn")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    main = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.getsignal(getattr(signal, s)) for s in HANDLED_SIGNALS if hasattr(signal, s)} if main else {}
    saved_env = os.environ.get("TORCHELASTIC_SIGNALS_TO_HANDLE")
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)
        for s, h in handlers.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(getattr(signal, s), h)
        if saved_env is None:
            os.environ.pop("TORCHELASTIC_SIGNALS_TO_HANDLE", None)
        else:
            os.environ["TORCHELASTIC_SIGNALS_TO_HANDLE"] = saved_env


def _worker_pids(folder: Path, nprocs: int) -> dict[int, int]:
    pids = {}
    for rank in range(nprocs):
        with contextlib.suppress(OSError, ValueError):
            pids[rank] = int((folder / f"pid_{rank}").read_text())
    return pids


def _kill_groups(pids: dict[int, int], ranks: Sequence[int] | None = None) -> None:
    """SIGKILL the process group of each worker (the worker and whatever it started)."""
    for rank, pid in pids.items():
        if ranks is None or rank in ranks:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.is_file() else ""


def _failure_from(process_failure: Any) -> RankFailure:
    """A RankFailure from PyTorch's error file ("Type: message" and the call stack)."""
    data = process_failure.error_file_data or {}
    message = data.get("message", {})
    if isinstance(message, dict) and message.get("message"):
        head, _, text = str(message["message"]).partition(": ")
        return RankFailure(head, text, str(message.get("extraInfo", {}).get("py_callstack", "")))
    code = process_failure.exitcode
    how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"
    return RankFailure("ProcessExit", f"rank {process_failure.local_rank} {how}", "")


def launch_local(fn: Callable[..., Any], nprocs: int, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
                 *, timeout: float = DEFAULT_RUN_TIMEOUT_S, backend: str = "gloo",
                 pg_timeout: float = DEFAULT_PG_TIMEOUT_S, threads: int = 1,
                 env: dict[str, str] | None = None) -> LocalRun:
    """Run ``fn(*args, **kwargs)`` on ``nprocs`` local processes; never raises for worker errors.

    Each process joins a process group (``backend``, rendezvous through PyTorch's launcher on
    a port the OS assigns, collective timeout ``pg_timeout`` seconds) before ``fn`` runs, and
    leaves it cleanly after. ``timeout`` (seconds) bounds the run from the moment every worker
    has started (process start and ``import torch``, slow on a loaded machine, are bounded
    separately by ``START_TIMEOUT_S``); on expiry the ranks still running are killed with
    everything they started, and ``timed_out`` is set. When one
    rank fails, the launcher stops the others at once. ``env`` adds environment variables in
    the workers. Returns a :class:`LocalRun`. Raises ``ValueError`` for ``nprocs`` < 1 or a
    function the workers cannot import, :class:`LaunchStopped` (SIGTERM, SIGHUP, SIGQUIT) or
    ``KeyboardInterrupt`` (SIGINT) when the caller is stopped, after every worker is gone.
    Course: MB-7.
    """
    if isinstance(nprocs, bool) or not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError(f"nprocs must be a whole number ≥ 1, got {nprocs!r}")
    if not (isinstance(timeout, (int, float)) and timeout > 0 and isinstance(pg_timeout, (int, float))
            and pg_timeout > 0):
        raise ValueError(f"timeout and pg_timeout must be > 0 seconds, got {timeout!r} and {pg_timeout!r}")
    check_importable(fn)
    from torch.distributed.elastic.multiprocessing import DefaultLogsSpecs, SignalException, Std
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    with tempfile.TemporaryDirectory(prefix="gastudy-launch-") as tmp, _launcher_quiet_and_restored():
        folder = Path(tmp)
        payload = {"fn": fn, "args": tuple(args), "kwargs": dict(kwargs or {}), "backend": backend,
                   "pg_timeout": float(pg_timeout), "threads": threads, "env": dict(env or {}),
                   "folder": str(folder), "parent": os.getpid()}
        config = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=nprocs, run_id=uuid.uuid4().hex,
                              rdzv_backend="c10d", rdzv_endpoint="localhost:0", max_restarts=0,
                              start_method="spawn", monitor_interval=0.05,
                              logs_specs=DefaultLogsSpecs(log_dir=str(folder / "logs"), redirects=Std.ALL))
        expired = threading.Event()

        finished = threading.Event()

        def expire() -> None:  # the ranks without a result are still running: stop them (and late starters)
            start_deadline = time.monotonic() + START_TIMEOUT_S
            while len(_worker_pids(folder, nprocs)) < nprocs and time.monotonic() < start_deadline:
                if finished.wait(0.2):
                    return
            if finished.wait(timeout if len(_worker_pids(folder, nprocs)) == nprocs else 0):
                return
            expired.set()
            while not finished.is_set():
                pids = _worker_pids(folder, nprocs)
                _kill_groups(pids, [r for r in pids if not (folder / f"result_{r}.pkl").exists()])
                finished.wait(0.5)

        timer = threading.Thread(target=expire, daemon=True, name="gastudy-launch-timeout")
        started = time.monotonic()
        values: dict[int, Any] | None = None
        elastic_failures: dict[int, Any] = {}
        timer.start()
        saved_tempdir, tempfile.tempdir = tempfile.tempdir, str(folder)  # torch's per-process error files
        try:
            values = elastic_launch(config, _worker)(payload)
        except ChildFailedError as e:
            elastic_failures = dict(e.failures)
        except SignalException as e:
            if e.sigval == signal.SIGINT:
                raise KeyboardInterrupt from None
            raise LaunchStopped(int(e.sigval)) from None
        finally:
            tempfile.tempdir = saved_tempdir
            finished.set()
            pids = _worker_pids(folder, nprocs)
            _kill_groups(pids)  # whatever a worker started goes with it
        timed_out = expired.is_set()
        run = LocalRun(nprocs, [None] * nprocs, pids=[pids.get(r, -1) for r in range(nprocs)],
                       seconds=time.monotonic() - started, timed_out=timed_out)
        logs = {p.parent.name: p.parent for p in folder.glob("logs/*/attempt_0/*/stderr.log")}
        for rank in range(nprocs):
            log = logs.get(str(rank))
            run.stdout.append(_read(log / "stdout.log") if log else "")
            run.stderr.append(_read(log / "stderr.log") if log else "")
            result = folder / f"result_{rank}.pkl"
            if values is not None and rank in values:
                run.results[rank], rc = values[rank], 0
            elif result.exists():
                run.results[rank], rc = pickle.loads(result.read_bytes()), 0
            elif rank in elastic_failures:
                rc = elastic_failures[rank].exitcode
                run.failures[rank] = _failure_from(elastic_failures[rank])
                if timed_out and rc == -signal.SIGKILL:
                    run.failures[rank] = RankFailure("ProcessExit", f"rank {rank} was killed (still running at "
                                                                    "the time limit)", run.stderr[rank][-2000:])
            else:
                rc = None
                why = ("was killed (still running at the time limit)" if timed_out else
                       "was stopped by the launcher after another rank failed")
                if rank not in pids:
                    why = "exited before running the function. " + (MAIN_RECIPE if getattr(
                        fn, "__module__", None) == "__main__" else "See the stderr above.")
                run.failures[rank] = RankFailure("ProcessExit", f"rank {rank} {why}",
                                                 "\n".join(run.stderr[rank].strip().splitlines()[-5:]))
            if rank in run.failures and not run.failures[rank].traceback:
                run.failures[rank].traceback = "\n".join(run.stderr[rank].strip().splitlines()[-10:])
            run.returncodes.append(rc)
        return run


def run_local(fn: Callable[..., Any], nprocs: int, *args: Any, timeout: float = DEFAULT_RUN_TIMEOUT_S,
              backend: str = "gloo", pg_timeout: float = DEFAULT_PG_TIMEOUT_S, threads: int = 1,
              env: dict[str, str] | None = None, **kwargs: Any) -> list[Any]:
    """Run ``fn(*args, **kwargs)`` on ``nprocs`` local processes and return each rank's result.

    The list is in rank order. Launcher keywords (``timeout``, ``backend``, ``pg_timeout``,
    ``threads``, ``env``) are not passed to ``fn``; see :func:`launch_local` for their meaning.
    Raises :class:`WorkerError` (rank, message and traceback of every failing rank) when a
    worker raised or exited abnormally, :class:`LaunchTimeout` when the run exceeded
    ``timeout`` seconds (every process is killed first), :class:`LaunchStopped` /
    ``KeyboardInterrupt`` when the caller was stopped by a signal. Course: MB-7.
    """
    run = launch_local(fn, nprocs, args, kwargs, timeout=timeout, backend=backend, pg_timeout=pg_timeout,
                       threads=threads, env=env)
    if run.timed_out:
        alive = [r for r, f in sorted(run.failures.items()) if "killed" in f.message]
        raise LaunchTimeout(f"the {nprocs}-process run of {getattr(fn, '__name__', fn)} did not finish within "
                            f"{timeout:g} s; ranks {alive} were still running and were killed. A rank waiting "
                            "for a collective the others never call hangs until the process-group timeout: "
                            "check that every rank runs the same collectives.", run)
    if run.failures:
        rank = min(run.failures)
        raised = [r for r, f in sorted(run.failures.items()) if f.type != "ProcessExit"]
        cause = raised[0] if raised else rank  # the root cause: a rank that raised, not one that was stopped
        lines = [f"rank {r}: {f.type}: {f.message}" for r, f in sorted(run.failures.items())]
        raise WorkerError(f"{len(run.failures)} of {nprocs} worker(s) failed:\n" + "\n".join(lines)
                          + f"\n--- traceback of rank {cause} ---\n{run.failures[cause].traceback}",
                          rank, run.failures, run)
    return run.results

"""Run a function on N local processes joined by ``torch.distributed`` (MB-7):
``run_local(compare_denominators_worker, 2, accumulation_steps=4)`` returns one result per rank.

PyTorch's ``elastic_launch`` (the engine of ``torchrun``) starts the workers, joins them
through a c10d rendezvous on a store bound to port 0, stops them all when one fails or the caller
gets SIGTERM, and records tracebacks. Added here: a time limit, workers (and what they started)
that end with a SIGKILLed caller, the results of ranks that finished when another failed, one
temporary folder per run, and an optional first Ctrl-C that only asks the workers to stop.

Workers come from multiprocessing's fork server where the platform has one: a clean process,
started on the first run, that has imported torch once and forks each worker from there (about
0.4 s for two workers instead of about 2 s for two fresh interpreters). Like spawned workers they
import ``fn`` by name and share nothing with the caller; each gets the caller's environment as it
is at the call. Elsewhere they are spawned.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import gc
import json
import logging
import multiprocessing
import os
import pickle
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gastudy.core.plan import check_positive_int

DEFAULT_RUN_TIMEOUT_S = 180.0
DEFAULT_PG_TIMEOUT_S = 30.0
STOP_ENV = "GASTUDY_STOP_FILE"  # in a worker: the file whose existence asks it to stop
# what the fork server imports once, so that its workers start with it loaded
FORKSERVER_PRELOAD = ["torch", "torch.distributed", "torch.distributed.elastic.multiprocessing",
                      "gastudy.parallel.launch", "gastudy.parallel.process_group"]
# The environment this module was imported under. In a worker forked by the fork server it is the
# server's (from its start): what differs from it in the worker was set by PyTorch's launcher.
_IMPORTED_ENV = dict(os.environ)
MAIN_RECIPE = ("When the function is defined in the script you run, the code that launches it must sit under "
               "`if __name__ == \"__main__\":` (each worker is a fresh process that imports the script again, as with "
               "torch.multiprocessing).")


class WorkerError(RuntimeError):
    """A worker raised or died: ``rank`` (the first), ``failures`` (:class:`RankFailure` per
    failing rank), ``run`` (the :class:`LocalRun`)."""

    def __init__(self, message: str, rank: int, failures: dict[int, RankFailure], run: LocalRun | None):
        super().__init__(message)
        self.rank, self.failures, self.run = rank, failures, run


class LaunchTimeout(TimeoutError):
    """The run outlived its timeout; every process was killed. ``run``: what they wrote and
    returned before."""

    def __init__(self, message: str, run: LocalRun):
        super().__init__(message)
        self.run = run


class LaunchStopped(RuntimeError):
    """The caller got SIGTERM, SIGHUP or SIGQUIT; every worker was stopped first. ``signal``:
    its number (a command exits with 128 + it). SIGINT raises ``KeyboardInterrupt``."""

    def __init__(self, signum: int):
        super().__init__(f"stopped by {signal.Signals(signum).name}: every worker process was stopped and the "
                         "temporary files removed")
        self.signal = int(signum)


@dataclass
class RankFailure:
    """Why one rank failed: exception type name, message, traceback text."""

    type: str
    message: str
    traceback: str


@dataclass
class LocalRun:
    """What a :func:`launch_local` run produced, per rank: ``results`` (``None`` if it failed),
    ``failures``, ``returncodes`` (negative: killed by that signal; ``None``: stopped after another
    rank failed), ``stdout``/``stderr``, ``pids`` (all gone on return)."""

    nprocs: int
    results: list[Any]
    failures: dict[int, RankFailure] = field(default_factory=dict)
    returncodes: list[int | None] = field(default_factory=list)
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    pids: list[int] = field(default_factory=list)
    timed_out: bool = False

    @property
    def ok(self) -> bool:  # every rank returned and exited with status 0
        return not self.failures and not self.timed_out and all(rc == 0 for rc in self.returncodes)


def check_importable(fn: Callable[..., Any]) -> None:
    """Raise ``ValueError`` with the recipe if a spawned worker cannot import ``fn`` by name:
    lambdas, nested functions, functions of a notebook cell or an interactive session. A
    module's top-level functions pass, and so do those of the script being run."""
    target = fn.func if isinstance(fn, functools.partial) else fn
    module, qualname = getattr(target, "__module__", None), getattr(target, "__qualname__", "")
    main_file = str(getattr(sys.modules.get("__main__"), "__file__", None) or "")
    if module == "__main__" and main_file.endswith(".py") and "<" not in qualname:
        return
    if module in (None, "__main__") or "<" in qualname:
        where = "a notebook cell or an interactive session" if module == "__main__" else (module or "no module")
        raise ValueError(f"{getattr(target, '__name__', target)!r} is defined in {where} ({qualname or '?'}): worker "
                         "processes cannot import it. Put it at the top level of a .py module (for example next to "
                         f"your notebook) and import it from there. {MAIN_RECIPE}")


def stop_requested() -> bool:
    """In a worker of ``launch_local(..., graceful_sigint=True)``: True once the caller got a
    first Ctrl-C (stop at the next safe point and return); False elsewhere. One ``stat``.
"""
    path = os.environ.get(STOP_ENV)
    return bool(path) and os.path.exists(path)


def _start_method() -> tuple[str, str | None]:
    """``("forkserver", folder)`` once multiprocessing's fork server runs (started here, with
    :data:`FORKSERVER_PRELOAD` imported, if none does); ``("spawn", folder)`` where it cannot
    start (e.g. a TMPDIR too long for its socket's path, about 100 bytes); ``("spawn", None)``
    where the platform has none. ``folder``: this process's multiprocessing temporary folder, where
    the server's socket lives and which only this process's exit removes.

    The server is started before a run points ``tempfile`` at its own folder, and exits once this
    process and the workers it forked are gone."""
    from multiprocessing import forkserver, util

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return "spawn", None
    if getattr(forkserver._forkserver, "_forkserver_pid", None) is None:  # none started yet: ours preloads
        forkserver.set_forkserver_preload(FORKSERVER_PRELOAD)
    try:
        forkserver.ensure_running()
        method = "forkserver"
    except OSError:  # the folder exists all the same: it was made for the socket that could not be bound
        method = "spawn"
    return method, util.get_temp_dir()


def fresh_process_context() -> multiprocessing.context.BaseContext:
    """The multiprocessing context for processes that share nothing with this one and import what
    they run by name: the fork server's (started with torch imported, if none runs) where it can
    run, spawn elsewhere. Like spawned ones, its processes should call :func:`adopt_environment`
    with this process's ``os.environ`` and watch this process with :func:`watch_process`."""
    return multiprocessing.get_context(_start_method()[0])


def adopt_environment(caller: dict[str, str]) -> None:
    """Make this process's environment ``caller`` (the caller's ``os.environ`` at the call) plus
    what differs from the environment this module was imported under (in a launched worker: what
    PyTorch's launcher set for its rank, RANK, MASTER_PORT, ...). A process forked by the fork
    server starts with the server's environment, as it was when the server started."""
    launcher = {k: v for k, v in os.environ.items() if _IMPORTED_ENV.get(k) != v}
    os.environ.clear()
    os.environ.update(caller)
    os.environ.update(launcher)


def watch_process(pid: int) -> Callable[[], bool]:
    """A test of whether process ``pid`` still runs (``False`` once it has ended, even by SIGKILL),
    immune to pid reuse where Linux has pidfds. A worker watches its caller with it: a forked
    worker's parent is the fork server, not the caller."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return lambda: False
    except (AttributeError, OSError):  # no pidfds here
        def running() -> bool:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                pass
            return True
        return running
    return lambda: not select.select([fd], [], [], 0)[0]  # a pidfd turns readable when its process ends


def _watchdog(caller: int, folder: str, mp_folder: str | None, deadline: list[float]) -> None:
    """At ``deadline[0]`` leave a ``timed_out`` mark for the caller or, as soon as the caller is gone
    (even by SIGKILL), remove the run's folder and the caller's multiprocessing folder (the fork
    server's socket), which only its exit would have removed; then SIGKILL this worker and all it
    started.
    The caller is watched by pid, not as the parent: a forked worker's parent is the fork server,
    which lives as long as its workers do."""
    running = watch_process(caller)
    while (alive := running()) and time.monotonic() < deadline[0]:
        time.sleep(0.2)
    if alive:
        Path(folder, "timed_out").write_text("")
    else:
        for gone in (folder, mp_folder):
            if gone:
                shutil.rmtree(gone, ignore_errors=True)
    os.killpg(0, signal.SIGKILL)  # the worker's own process group (setsid)


def _worker(payload: dict[str, Any]) -> None:
    """One worker (run by PyTorch's launcher): join the group, run ``fn``, save its result, leave."""
    adopt_environment(payload["environ"])
    rank, folder, deadline = int(os.environ["RANK"]), Path(payload["folder"]), [float("inf")]
    os.setsid()  # its own process group (a new worker never leads one): Ctrl-C reaches the parent only
    # PyTorch makes SIGINT, which its launcher also forwards on a Ctrl-C, its workers' parent-death signal:
    # turned off, SIGINT only interrupts; the watchdog sees a vanished parent within 0.2 s, busy in C++ or not
    with contextlib.suppress(AttributeError):  # Linux
        ctypes.CDLL(None).prctl(1, 0)  # PR_SET_PDEATHSIG: none
    watch = (payload["caller"], str(folder), payload["mp_folder"], deadline)
    threading.Thread(target=_watchdog, args=watch, daemon=True).start()
    left: list[bool] = []  # filled once the result is saved and the group left; only then does the exit
    atexit.register(lambda: left and os._exit(0))  # skip the interpreter's teardown (~1 s with torch loaded)
    (folder / f"pid_{rank}").write_text(str(os.getpid()))
    if os.path.isdir("/sys/class/net/lo"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only: never touch the network
    os.environ[STOP_ENV] = str(folder / "stop")
    import torch

    from gastudy.parallel.process_group import init_from_env, shutdown

    torch.set_num_threads(1)
    init_from_env(payload["backend"], payload["pg_timeout"])  # the variables elastic_launch set
    deadline[0] = time.monotonic() + payload["timeout"]  # every worker has started and joined
    try:
        value = payload["fn"](*payload["args"], **payload["kwargs"])
    except KeyboardInterrupt as e:  # torch.multiprocessing would exit 0 without a result: say it
        raise RuntimeError(f"rank {rank} was interrupted (SIGINT)") from e
    try:
        data = pickle.dumps(value)
    except Exception as e:
        raise TypeError(f"rank {rank}: its return value cannot be pickled ({e}); return plain data") from e
    (folder / f"result_{rank}.tmp").write_bytes(data)
    (folder / f"result_{rank}.tmp").replace(folder / f"result_{rank}.pkl")  # kept when another rank fails
    gc.collect()  # DDP reducers and comm-hook futures go now, while the group still exists
    shutdown()  # a barrier, then destroy: no gloo thread is left to abort at exit
    left.append(True)


def _loopback_store(store_class: Any) -> Callable[..., Any]:
    """``TCPStore`` as the c10d rendezvous creates it, except that the server's socket is bound
    to 127.0.0.1 (a ``TCPStore`` server alone listens on every interface, so any machine on the
    network could reach the run's store for as long as it runs). Clients are unchanged."""
    import socket

    def create(host: str | None = None, port: int = 0, *args: Any, is_master: bool = False, **kwargs: Any) -> Any:
        host = kwargs.pop("host_name", host)
        if not is_master or "master_listen_fd" in kwargs:
            return store_class(host, port, *args, is_master=is_master, **kwargs)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", port))
            store = store_class("127.0.0.1", sock.getsockname()[1], *args, is_master=True,
                                master_listen_fd=sock.fileno(), **kwargs)
            sock.detach()  # the store owns it now
        return store

    return create


@contextlib.contextmanager
def _launcher_env(graceful_sigint: bool, stop_file: Path):
    """Quiet PyTorch's logs; share the rendezvous store (port 0) with the workers, never a port
    chosen and released; maybe take SIGINT over; put levels, handlers, environment back after."""
    loggers = {lg: lg.level for n, lg in logging.root.manager.loggerDict.items()  # each has its own level
               if isinstance(lg, logging.Logger) and n.startswith(("torch.distributed.", "torch.multiprocessing"))}
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)}
    env = {k: os.environ.get(k) for k in ("TORCHELASTIC_SIGNALS_TO_HANDLE", "TORCH_DISABLE_SHARE_RDZV_TCP_STORE")}
    os.environ["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] = "0"
    import torch.distributed as dist
    from torch.distributed.elastic.rendezvous import c10d_rendezvous_backend as backend
    from torch.distributed.elastic.rendezvous.dynamic_rendezvous import (
        DynamicRendezvousHandler as handler,
    )

    # both stores the launcher serves (the rendezvous', and the one it shares with the workers):
    # loopback, not every interface
    store_class, shared_server = backend.TCPStore, handler._create_tcp_store_server
    backend.TCPStore = _loopback_store(store_class)
    def shared_on_loopback(self: Any, addr: str, port: int) -> Any:
        real = dist.TCPStore
        dist.TCPStore = _loopback_store(real)  # what the handler's own method calls, for this call only
        try:
            return shared_server(self, addr, port)
        finally:
            dist.TCPStore = real

    handler._create_tcp_store_server = shared_on_loopback
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    if graceful_sigint and threading.current_thread() is threading.main_thread():
        from torch.distributed.elastic.multiprocessing import SignalException

        def on_sigint(signum, frame):  # the first Ctrl-C asks the workers to stop, a second stops them now
            if stop_file.exists():
                raise SignalException("second SIGINT", signal.SIGINT)
            stop_file.write_text("SIGINT")

        signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        backend.TCPStore, handler._create_tcp_store_server = store_class, shared_server
        for lg, level in loggers.items():
            lg.setLevel(level)
        for s, h in handlers.items():
            with contextlib.suppress(TypeError, ValueError):  # None: not set from Python; ValueError: not the main thread
                signal.signal(s, h)
        for k, v in env.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _error_record(failure: Any, error_file: Path | None) -> dict | None:
    """The rank's own account of its exception: PyTorch's ``ProcessFailure.message`` when the
    launcher saw it fail, else the error file the rank wrote before the launcher stopped it (a
    rank that raised is still tearing down, gloo's sockets closing, when a peer fails because of
    it and is seen first: its cause must not be reported as "stopped by the launcher")."""
    if failure is not None and isinstance(failure.message, dict):
        return failure.message
    if error_file is not None:
        with contextlib.suppress(OSError, ValueError):
            record = json.loads(error_file.read_text())
            if isinstance(record, dict) and isinstance(record.get("message"), dict):
                return record["message"]
    return None


def _failure(rank: int, failure: Any, timed_out: bool, started: bool, fn: Any, stderr: str,
             error_file: Path | None = None) -> RankFailure:
    """Why a rank has no result (``failure``: PyTorch's ``ProcessFailure``, ``None`` if the launcher
    did not see it fail; ``error_file``: the error file the rank may have written)."""
    record = _error_record(failure, error_file)
    if record is not None:  # "Type: text" and the call stack
        head, _, text = str(record.get("message", "")).partition(": ")
        return RankFailure(head, text, str(record.get("extraInfo", {}).get("py_callstack", "")))
    if timed_out:  # the limit hit: every rank without a result was still running (whichever watchdog fired)
        why = "was killed (still running at the time limit)"
    elif failure is not None:
        why = f"was killed by {failure.signal_name()}" if failure.exitcode < 0 else f"exited with status {failure.exitcode}"
    elif started:
        why = "was stopped by the launcher after another rank failed"
    else:
        why = "exited before running the function. " + (
            MAIN_RECIPE if getattr(fn, "__module__", None) == "__main__" else "See the stderr above.")
    return RankFailure("ProcessExit", f"rank {rank} {why}", "\n".join(stderr.strip().splitlines()[-10:]))


def launch_local(fn: Callable[..., Any], nprocs: int, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
                 *, timeout: float = DEFAULT_RUN_TIMEOUT_S, backend: str = "gloo",
                 pg_timeout: float = DEFAULT_PG_TIMEOUT_S, graceful_sigint: bool = False) -> LocalRun:
    """Run ``fn(*args, **kwargs)`` on ``nprocs`` local processes; a :class:`LocalRun`, never
    raising for worker errors.

    Each process (one thread) joins a process group (``backend``, collective timeout
    ``pg_timeout`` s) before ``fn`` and leaves it after. ``timeout`` (s) counts once all have
    joined; then the ranks still running are killed with all they started (``timed_out``). One
    rank failing stops the others. ``graceful_sigint``: a first SIGINT makes :func:`stop_requested`
    true in the workers (``fn`` should return at its next safe point), a second stops them at once.
    Raises ``ValueError`` for ``nprocs`` < 1, a timeout ≤ 0, a function workers cannot import;
    :class:`LaunchStopped` (SIGTERM, SIGHUP, SIGQUIT) or ``KeyboardInterrupt`` (SIGINT) once every
    worker is gone.
    """
    check_positive_int("nprocs", nprocs)
    if not all(isinstance(t, (int, float)) and t > 0 for t in (timeout, pg_timeout)):
        raise ValueError(f"timeout and pg_timeout must be > 0 seconds, got {timeout!r} and {pg_timeout!r}")
    check_importable(fn)
    if getattr(multiprocessing.current_process(), "_inheriting", False):  # a worker importing a script
        raise RuntimeError(MAIN_RECIPE)
    start_method, mp_folder = _start_method()
    from torch.distributed.elastic.multiprocessing import DefaultLogsSpecs, SignalException, Std
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    failed, pids = {}, {}
    with tempfile.TemporaryDirectory(prefix="gastudy-launch-") as tmp, _launcher_env(graceful_sigint, Path(tmp) / "stop"):
        folder = Path(tmp)
        payload = {"fn": fn, "args": tuple(args), "kwargs": dict(kwargs or {}), "backend": backend,
                   "pg_timeout": float(pg_timeout), "timeout": float(timeout), "folder": tmp,
                   "caller": os.getpid(), "mp_folder": mp_folder, "environ": dict(os.environ)}
        config = LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=nprocs, run_id="gastudy",
                              rdzv_backend="c10d", rdzv_endpoint="127.0.0.1:0", local_addr="127.0.0.1", max_restarts=0,
                              start_method=start_method, monitor_interval=0.05,
                              signals_to_handle="SIGTERM,SIGHUP,SIGQUIT" + ",SIGINT" * (not graceful_sigint),
                              logs_specs=DefaultLogsSpecs(log_dir=str(folder / "logs"), redirects=Std.ALL))
        saved_tempdir, tempfile.tempdir = tempfile.tempdir, tmp  # torch.multiprocessing's error files
        try:
            elastic_launch(config, _worker)(payload)
        except ChildFailedError as e:
            failed = dict(e.failures)
        except SignalException as e:
            raise KeyboardInterrupt if e.sigval == signal.SIGINT else LaunchStopped(int(e.sigval)) from None
        finally:
            tempfile.tempdir = saved_tempdir
            for rank in range(nprocs):
                with contextlib.suppress(OSError, ValueError):
                    pids[rank] = int((folder / f"pid_{rank}").read_text())
                    os.killpg(pids[rank], signal.SIGKILL)  # whatever a worker started goes with it
        run = LocalRun(nprocs, [None] * nprocs, pids=[pids.get(r, -1) for r in range(nprocs)],
                       timed_out=(folder / "timed_out").exists())
        for rank in range(nprocs):
            for name, texts in (("stdout", run.stdout), ("stderr", run.stderr)):
                log = next(iter(folder.glob(f"logs/*/attempt_0/{rank}/{name}.log")), None)
                texts.append(log.read_text(errors="replace") if log else "")
            if (folder / f"result_{rank}.pkl").exists():
                run.results[rank] = pickle.loads((folder / f"result_{rank}.pkl").read_bytes())
                run.returncodes.append(0)
            else:
                error_file = next(iter(folder.glob(f"logs/*/attempt_0/{rank}/error.json")), None)
                run.failures[rank] = _failure(rank, failed.get(rank), run.timed_out, rank in pids, fn, run.stderr[rank],
                                              error_file)
                run.returncodes.append(failed[rank].exitcode if rank in failed else None)
        return run


def run_local(fn: Callable[..., Any], nprocs: int, *args: Any, timeout: float = DEFAULT_RUN_TIMEOUT_S,
              backend: str = "gloo", pg_timeout: float = DEFAULT_PG_TIMEOUT_S, graceful_sigint: bool = False,
              **kwargs: Any) -> list[Any]:
    """:func:`launch_local` (its keywords are not passed to ``fn``), returning each rank's result
    in rank order. Raises :class:`WorkerError` (every failing rank's message and traceback) when
    a worker raised or died, :class:`LaunchTimeout` past ``timeout``, :class:`LaunchStopped` /
    ``KeyboardInterrupt`` when the caller was stopped by a signal."""
    run = launch_local(fn, nprocs, args, kwargs, timeout=timeout, backend=backend, pg_timeout=pg_timeout,
                       graceful_sigint=graceful_sigint)
    if run.timed_out:
        alive = [r for r, f in sorted(run.failures.items()) if "killed" in f.message]
        raise LaunchTimeout(f"the {nprocs}-process run of {getattr(fn, '__name__', fn)} did not finish within "
                            f"{timeout:g} s; ranks {alive} were still running and were killed. Check that every "
                            "rank runs the same collectives (a rank waiting for one never called hangs).", run)
    if run.failures:
        raised = [r for r, f in sorted(run.failures.items()) if f.type != "ProcessExit"]
        cause = raised[0] if raised else min(run.failures)  # a rank that raised, not one that was stopped
        lines = [f"rank {r}: {f.type}: {f.message}" for r, f in sorted(run.failures.items())]
        raise WorkerError(f"{len(run.failures)} of {nprocs} worker(s) failed:\n" + "\n".join(lines)
                          + f"\n--- traceback of rank {cause} ---\n{run.failures[cause].traceback}",
                          min(run.failures), run.failures, run)
    return run.results

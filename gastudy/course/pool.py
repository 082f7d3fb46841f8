"""A warm pool of local worker processes in one process group, for the course's widgets (course: MB-7).

:func:`gastudy.parallel.launch.run_local` starts fresh processes for every call: right for a
command, too slow for a widget that answers a slider (each start pays for ``import torch`` and
the rendezvous, 5-15 s on two cores). :class:`WorkerPool` starts D processes once, joins them
into one gloo process group for the pool's whole life, and runs any importable function on
every rank through queues::

    with WorkerPool(2) as pool:
        ranks = pool.run(compare_denominators_worker, accumulation_steps=4)   # [rank 0, rank 1]

Each call is what ``run_local`` does for one function, minus the start: the function runs
inside the initialized group on every rank and the per-rank return values come back in rank
order. A function that raises on any rank raises :class:`~gastudy.parallel.launch.WorkerError`
with that rank's traceback; the pool is then closed (its group may be stuck in a collective)
and the next :meth:`WorkerPool.run` starts a fresh one. Workers leave with their parent: they
are daemonic, and each watches its parent's pid and exits if the parent is gone.

The group meets on a ``TCPStore`` that the parent serves on a loopback socket bound on port 0
(the OS assigns a free port atomically; other machines cannot reach it) and holds until the pool
closes; the workers connect to it as clients, so no port is ever chosen, released and bound again
later (another program cannot take it in between).
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import threading
import time
import traceback
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from gastudy.core.plan import check_positive_int
from gastudy.parallel.launch import (
    LaunchTimeout,
    RankFailure,
    WorkerError,
    adopt_environment,
    check_importable,
    fresh_process_context,
    watch_process,
)

START_TIMEOUT_S = 120.0
_HOST = "127.0.0.1"


def _watch_parent(parent: int) -> None:
    running = watch_process(parent)
    while running():
        time.sleep(1.0)
    os._exit(1)


def _pool_worker(rank: int, nprocs: int, port: int, pg_timeout: float, parent: int, environ: dict[str, str],
                 tasks, results) -> None:
    """Body of one pooled worker: join the group (through the parent's store on ``port``) once,
    then run tasks until told to stop."""
    adopt_environment(environ)
    # JupyterLab's interrupt signals the kernel's whole process group: an idle worker must not die
    # of a learner stopping some other cell. A task in flight is stopped by the kernel (run()).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.path.isdir("/sys/class/net/lo"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # loopback only: never touch the network
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    try:
        timeout = timedelta(seconds=pg_timeout)
        store = dist.TCPStore(_HOST, port, nprocs, is_master=False, timeout=timeout)  # the parent's server
        dist.init_process_group("gloo", store=store, rank=rank, world_size=nprocs, timeout=timeout)
        results.put((rank, -1, "ok", "ready"))
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        results.put((rank, -1, "error", RankFailure(type(e).__name__, str(e), traceback.format_exc())))
        os._exit(1)
    while True:
        task = tasks.get()
        if task is None:
            break
        number, fn, args, kwargs = task
        try:
            value = fn(*args, **kwargs)
            results.put((rank, number, "ok", value))
        except BaseException as e:  # noqa: BLE001 - every failure goes back to the caller
            results.put((rank, number, "error", RankFailure(type(e).__name__, str(e), traceback.format_exc())))
            time.sleep(0.5)  # let the queue's feeder thread send it
            os._exit(1)  # peers may be inside a collective with us: the pool is over
    with contextlib.suppress(BaseException):
        dist.barrier()
        dist.destroy_process_group()
    os._exit(0)


class WorkerPool:
    """``nprocs`` persistent local processes in one gloo process group (course: MB-7).

    ``pg_timeout`` (seconds) bounds every collective; ``timeout`` (seconds) bounds one
    :meth:`run`. Raises ``ValueError`` for ``nprocs`` < 1. Start-up (``import torch`` and the
    rendezvous) happens on the first :meth:`run` or :meth:`start`. Workers are fresh processes
    (:func:`~gastudy.parallel.launch.fresh_process_context`) that import the script again: in a
    script, start the pool under ``if __name__ == "__main__":``, as with ``torch.multiprocessing``
    (a notebook needs nothing).
    """

    def __init__(self, nprocs: int, *, pg_timeout: float = 30.0, timeout: float = 120.0):
        self.nprocs = check_positive_int("nprocs", nprocs)
        self.pg_timeout, self.timeout = float(pg_timeout), float(timeout)
        self._procs: list[Any] = []
        self._tasks: list[Any] = []
        self._results: Any = None
        self._store: Any = None  # the group's TCPStore server (bound on port 0), held while the pool lives
        self._number = 0
        self._joined = 0  # ranks that have joined the group since the last start
        self._lock = threading.RLock()  # one start, task or close at a time, from any thread

    @property
    def running(self) -> bool:
        return bool(self._procs) and all(p.is_alive() for p in self._procs)

    @property
    def ready(self) -> bool:
        """True when every worker is alive and has joined the group: a :meth:`run` starts nothing."""
        return self.running and self._joined == self.nprocs

    def start(self, progress: Callable[[int, int], None] | None = None) -> WorkerPool:
        """Start the workers and wait until every rank has joined the group (idempotent).

        ``progress(joined, nprocs)`` is called each time one more rank has joined (a widget's
        progress bar). A start already under way in another thread is waited for, not repeated.
        An interrupt (``KeyboardInterrupt``) while the ranks join stops the workers and is raised.
        """
        with self._lock:
            if self.running:
                return self
            self.close()
            with self._killed_on_interrupt():
                self._launch(progress)
        return self

    @contextlib.contextmanager
    def _killed_on_interrupt(self):
        """Kill the workers at once when the block is interrupted (the learner stopped the cell:
        whatever the ranks were doing stops with it), then let the interrupt go on."""
        try:
            yield
        except KeyboardInterrupt:
            self._close(grace=0.0)
            raise

    def _launch(self, progress: Callable[[int, int], None] | None) -> None:
        import torch.distributed as dist

        ctx = fresh_process_context()  # forked by the warm fork server (torch imported once) where there is one
        self._results = ctx.Queue()
        self._tasks = [ctx.Queue() for _ in range(self.nprocs)]
        # TCPStore binds every interface: it serves a socket bound to loopback on port 0 instead (the
        # OS assigns a free port while binding it), takes it over and keeps it until close()
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((_HOST, 0))
            port = sock.getsockname()[1]
            self._store = dist.TCPStore(_HOST, port, None, is_master=True, wait_for_workers=False,
                                        timeout=timedelta(seconds=self.pg_timeout), master_listen_fd=sock.fileno())
            sock.detach()  # the store closes it
        self._procs = [ctx.Process(target=_pool_worker, daemon=True, name=f"gastudy-pool-{rank}",
                                   args=(rank, self.nprocs, port, self.pg_timeout, os.getpid(), dict(os.environ),
                                         self._tasks[rank], self._results))
                       for rank in range(self.nprocs)]
        for p in self._procs:
            p.start()
        self._collect(-1, START_TIMEOUT_S, progress)

    def run(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[Any]:
        """Run ``fn(*args, **kwargs)`` on every rank inside the group; the return values by rank.

        ``fn`` must be importable by name (a module-level function of an importable module)
        and return picklable data. Raises :class:`~gastudy.parallel.launch.WorkerError` when a
        rank raises or dies, :class:`~gastudy.parallel.launch.LaunchTimeout` after ``timeout``
        seconds; either way the pool is closed and the next call starts a fresh one. An interrupt
        (``KeyboardInterrupt``, JupyterLab's ■) while the ranks work kills them and is raised.
        """
        check_importable(fn)
        with self._lock:  # one task at a time, also against a start or close from another thread
            self.start()
            self._number += 1
            for q in self._tasks:
                q.put((self._number, fn, args, kwargs))
            with self._killed_on_interrupt():
                return self._collect(self._number, self.timeout)

    def _collect(self, number: int, timeout: float,
                 progress: Callable[[int, int], None] | None = None) -> list[Any]:
        values: dict[int, Any] = {}
        failures: dict[int, RankFailure] = {}
        deadline = first_failure = time.monotonic() + timeout
        while len(values) + len(failures) < self.nprocs:
            if failures and time.monotonic() > min(deadline, first_failure + 5.0):
                break  # the others are stuck waiting for the failed rank
            if time.monotonic() > deadline:
                self.close()
                hint = (" The workers never joined: when this runs from a script, the code that starts the "
                        "pool must sit under `if __name__ == \"__main__\":` (workers are fresh processes "
                        "that import the script again)." if number < 0 else "")
                raise LaunchTimeout(f"the worker pool did not answer within {timeout:.0f} s; it was stopped.{hint}",
                                    None)
            try:
                rank, got, status, value = self._results.get(timeout=0.2)
            except queue.Empty:
                for rank, p in enumerate(self._procs):
                    if not p.is_alive() and rank not in values and rank not in failures:
                        failures[rank] = RankFailure("ProcessDied", f"exit code {p.exitcode}", "")
                        first_failure = time.monotonic()
                continue
            if got != number:
                continue
            if status == "ok":
                values[rank] = value
                if number < 0:
                    self._joined = len(values)
                    if progress is not None:
                        progress(len(values), self.nprocs)
            else:
                failures[rank] = value
                first_failure = time.monotonic()
        if failures:
            self.close()
            rank = min(failures)
            lines = [f"rank {r}: {f.type}: {f.message}" for r, f in sorted(failures.items())]
            raise WorkerError(f"{len(failures)} of {self.nprocs} pooled worker(s) failed:\n" + "\n".join(lines)
                              + f"\n--- traceback of rank {rank} ---\n{failures[rank].traceback}", rank, failures, None)
        return [values[r] for r in range(self.nprocs)]

    def close(self) -> None:
        """Stop the workers (a clean leave when they are idle, killed after 5 s otherwise)."""
        with self._lock:
            self._close()

    def _close(self, grace: float = 5.0) -> None:
        self._joined = 0
        for q in self._tasks:
            with contextlib.suppress(Exception):
                q.put(None)
        for p in self._procs:
            p.join(grace)
        for p in self._procs:
            if p.is_alive():
                p.kill()
                p.join(5)
        self._procs, self._tasks = [], []
        self._store = None  # the last reference: the server stops and its port is released

    def __enter__(self) -> WorkerPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown
        with contextlib.suppress(Exception):
            self.close()

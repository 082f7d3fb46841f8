"""The check owns what your step starts: its processes, its threads, its output and its time (MB-10).

A checker runs code it did not write. Whatever that code starts must not outlive the check, and
whatever it prints must not flood the terminal:

- :func:`run_isolated` runs a function in a child process of its own **session** (so its own
  process group), with this process as the **child subreaper** of everything it starts (Linux:
  a process that detaches — ``setsid``, a double fork — is re-parented here, not to init). When
  the function returns, fails, hangs past the time limit or grows past the memory limit, the
  session is killed and then every process left that descends from it, until none is left; its
  threads die with it. Its standard output and error (the file descriptors: C code and
  subprocesses included) go through a pipe: the first :data:`OUTPUT_LIMIT` bytes are shown,
  then one line says the output was cut, and the rest is counted and dropped.
  ``gastudy check-loop`` is built on it.
- :class:`Owned` does what can be done inside the calling process (``gastudy.check_loop``
  called from Python or a notebook): the processes your code started are stopped when the block
  ends (detached ones too, re-parented here for the block's duration), a thread it started that
  is still running is named (a thread cannot be stopped from outside in Python), ``print``
  output past :data:`OUTPUT_LIMIT` is cut, and a time limit raises :class:`CheckTimeout` in the
  main thread.

Both describe what happened in a :class:`Confinement`, which the report states.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

OUTPUT_LIMIT = 1_000_000  # bytes of your step's output shown (1 MB), then "output cut"
INSIDE = "GASTUDY_ISOLATED"  # set in run_isolated's child: its parent bounds the time and cuts the output
_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37


class CheckTimeout(RuntimeError):
    """Your step ran past the check's time limit (raised in the main thread by :class:`Owned`)."""


@dataclass
class Confinement:
    """What a checked step started and what the check did about it.

    ``seconds``: how long it ran; ``time_limit_s``: the bound (``None``: none); ``output_bytes``:
    what it wrote to standard output and error; ``output_shown``: how much of it was shown;
    ``processes_stopped``: processes it started that were still alive and were killed;
    ``threads_left``: names of threads it started that were still running at the end (stopped
    with the child process by :func:`run_isolated`; left running in this process by
    :class:`Owned`, which cannot stop them); ``isolated``: ran in a child process of its own
    session (:func:`run_isolated`) rather than in this process.
    """

    seconds: float = 0.0
    time_limit_s: float | None = None
    output_bytes: int = 0
    output_shown: int = 0
    processes_stopped: int = 0
    threads_left: list[str] = field(default_factory=list)
    isolated: bool = False

    @property
    def output_cut(self) -> bool:
        """True when some of the output was not shown."""
        return self.output_bytes > self.output_shown

    def to_dict(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "time_limit_s": self.time_limit_s, "output_bytes": self.output_bytes,
                "output_shown": self.output_shown, "output_cut": self.output_cut,
                "processes_stopped": self.processes_stopped, "threads_left": list(self.threads_left),
                "isolated": self.isolated}

    def describe(self) -> str:
        """One line: "ran 3.2 s of a 300 s limit in a session of its own; printed 2.8 GB, the first
        1 MB shown; stopped 30 processes it started"."""
        where = " in a session of its own" if self.isolated else " in this process"
        limit = f" of a {self.time_limit_s:g} s limit" if self.time_limit_s else ""
        parts = [f"ran {self.seconds:.1f} s{limit}{where}"]
        if self.output_cut:
            parts.append(f"printed {_size(self.output_bytes)}, the first {_size(self.output_shown)} shown, then cut")
        elif self.output_bytes:
            parts.append(f"printed {_size(self.output_bytes)}")
        if self.processes_stopped:
            parts.append(f"stopped {self.processes_stopped} process{'es' if self.processes_stopped > 1 else ''} it "
                         "started")
        if self.threads_left:
            names = ", ".join(repr(n) for n in self.threads_left[:3]) + (", …" if len(self.threads_left) > 3 else "")
            if self.isolated:
                parts.append(f"{len(self.threads_left)} thread(s) it started ({names}) stopped with its process")
            else:
                parts.append(f"{len(self.threads_left)} thread(s) it started ({names}) still running in this process "
                             "(a thread cannot be stopped from outside: `gastudy check-loop` runs the step in a "
                             "process of its own)")
        return "; ".join(parts)


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


# --------------------------------------------------------------------------- processes
def _children() -> dict[int, int]:
    """pid → parent pid of every live process this user can see (Linux ``/proc``; empty
    elsewhere). Zombies — ended, not yet collected — are left out: there is nothing to stop."""
    out: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        after = stat[stat.rfind(b")") + 2:].split()  # the name may hold spaces and parentheses
        if len(after) > 1 and after[0] != b"Z":
            out[int(name)] = int(after[1])
    return out


def descendants(pid: int, table: dict[int, int] | None = None) -> set[int]:
    """Every live process below ``pid`` (children, their children…), from ``/proc``."""
    table = _children() if table is None else table
    below: dict[int, list[int]] = {}
    for child, parent in table.items():
        below.setdefault(parent, []).append(child)
    found, stack = set(), [pid]
    while stack:
        for child in below.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _kill(pids: set[int]) -> int:
    killed = 0
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


def _reap() -> None:
    """Collect every finished child of this process (re-parented orphans among them)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _infrastructure() -> set[int]:
    """multiprocessing's own helper processes of this process (its resource tracker, its fork
    server): started on first use, kept for later ones, never the step's."""
    pids = set()
    with contextlib.suppress(Exception):
        from multiprocessing import forkserver, resource_tracker

        for pid in (getattr(resource_tracker._resource_tracker, "_pid", None),
                    getattr(forkserver._forkserver, "_forkserver_pid", None)):
            if pid:
                pids.add(int(pid))
    return pids


def stop_new_processes(before: set[int], *, also: set[int] = frozenset(), rounds: int = 50) -> int:
    """Kill every descendant of this process that is not in ``before`` (and every process in
    ``also`` with its descendants), again and again until none is left (a process may fork while
    it is being killed). multiprocessing's resource tracker and fork server of this process are
    left alone. Returns how many distinct processes were killed."""
    me, stopped = os.getpid(), set()
    for _ in range(rounds):
        table = _children()
        keep = before | _infrastructure()
        targets = {p for p in descendants(me, table) if p not in keep}
        for root in also:
            if root in table:
                targets |= {root} | descendants(root, table)
        targets -= stopped | {me}
        if not targets:
            break
        _kill(targets)
        stopped |= targets
        _reap()
        time.sleep(0.01)
    deadline = time.monotonic() + 5.0  # a killed process takes a moment to go: wait until none is left
    while time.monotonic() < deadline and stopped & set(_children()):
        _reap()
        time.sleep(0.01)
    _reap()
    return len(stopped)


@contextlib.contextmanager
def subreaper() -> Iterator[bool]:
    """This process as the child subreaper for the block (Linux ``prctl``): an orphan of a process
    started inside it is re-parented here instead of to init, so it can be found and stopped.
    Yields whether that took effect; the previous setting is put back."""
    libc = None
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
    if libc is None or not sys.platform.startswith("linux"):
        yield False
        return
    was = ctypes.c_int(0)
    libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    on = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        yield on
    finally:
        if not was.value:
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


# --------------------------------------------------------------------------- output
class _Capped(io.TextIOBase):
    """A text stream that passes the first ``budget`` bytes on to ``target``, then writes one line
    that says the output was cut, and counts the rest (shared budget between streams)."""

    def __init__(self, target: Any, meter: dict[str, int]):
        self.target, self.meter = target, meter

    def write(self, text: str) -> int:
        data = text.encode("utf-8", "replace")
        meter = self.meter
        meter["total"] += len(data)
        room = meter["limit"] - meter["shown"]
        if room > 0:
            part = data[:room].decode("utf-8", "ignore")
            meter["shown"] += len(part.encode("utf-8"))
            self.target.write(part)
        if meter["total"] > meter["limit"] and not meter["cut"]:
            meter["cut"] = 1
            self.target.write(f"\n[gastudy: output cut after {_size(meter['limit'])}: your step printed more; the "
                              "rest is counted, not shown]\n")
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(Exception):
            self.target.flush()

    def isatty(self) -> bool:
        return False


# --------------------------------------------------------------------------- in this process
class Owned:
    """``with Owned(time_limit_s=300) as owned:`` — run a user's step in this process, owned.

    On exit: every process started inside the block that is still alive is killed (with what it
    started; detached ones are re-parented here for the block's duration), threads started
    inside and still running after a short grace (0.5 s) are named in :attr:`confinement`,
    ``sys.stdout``/``sys.stderr`` written inside are cut after :data:`OUTPUT_LIMIT` bytes, and a
    block that runs past ``time_limit_s`` gets :class:`CheckTimeout` raised in the main thread
    (only when the block runs in the main thread; ``None``: no limit). Inside a child of
    :func:`run_isolated` (``GASTUDY_ISOLATED`` set) the time and the output are left to the
    parent, which bounds and cuts them for the whole process. The state of the process is put
    back as it was (the streams, the subreaper setting, and SIGINT ignored or at its default: the
    block runs with Python's handler so that the limit can interrupt it)."""

    def __init__(self, time_limit_s: float | None = None, output_limit: int = OUTPUT_LIMIT):
        inside = bool(os.environ.get(INSIDE))
        self.time_limit_s = None if inside or time_limit_s == math.inf else time_limit_s
        self.output_limit = None if inside else output_limit
        self.confinement = Confinement(time_limit_s=self.time_limit_s, isolated=inside)
        self._stack = contextlib.ExitStack()
        self.timed_out = False

    def __enter__(self) -> Owned:
        self._start = time.monotonic()
        self._threads = set(threading.enumerate())
        self._reaper = self._stack.enter_context(subreaper())
        self._before = descendants(os.getpid())
        self._meter = {"total": 0, "shown": 0, "cut": 0, "limit": self.output_limit or 0}
        if self.output_limit is not None:
            self._stack.enter_context(contextlib.redirect_stdout(_Capped(sys.stdout, self._meter)))
            self._stack.enter_context(contextlib.redirect_stderr(_Capped(sys.stderr, self._meter)))
        self._timer, self._done = None, threading.Event()
        if self.time_limit_s and threading.current_thread() is threading.main_thread():
            # the limit interrupts with SIGINT, which must raise here, not end the process or vanish:
            # a job a shell script starts in the background (`cmd &`) ignores SIGINT from birth
            handler = signal.getsignal(signal.SIGINT)
            if handler in (signal.SIG_IGN, signal.SIG_DFL):
                signal.signal(signal.SIGINT, signal.default_int_handler)
                self._stack.callback(signal.signal, signal.SIGINT, handler)
                handler = signal.default_int_handler
            if callable(handler):  # None: a handler set outside Python, left alone (and no limit)
                self._timer = threading.Timer(self.time_limit_s, self._expire)
                self._timer.daemon = True
                self._timer.start()
        return self

    def _expire(self) -> None:
        """Past the limit: a SIGINT to the main thread (it also wakes a blocking sleep or wait), and
        again every second while the block has not ended (the step may catch the first)."""
        self.timed_out = True
        main = threading.main_thread().ident
        while True:
            try:
                signal.pthread_kill(main, signal.SIGINT)
            except (AttributeError, OSError, ValueError):  # no pthread_kill here: the flag alone
                import _thread

                _thread.interrupt_main()
            if self._done.wait(1.0):
                return

    def __exit__(self, kind: Any, error: BaseException | None, tb: Any) -> bool:
        self._done.set()
        if self._timer is not None:
            self._timer.cancel()
        c = self.confinement
        c.seconds = time.monotonic() - self._start
        c.processes_stopped = stop_new_processes(self._before)
        self._stack.close()
        c.output_bytes, c.output_shown = self._meter["total"], self._meter["shown"]
        new = [t for t in threading.enumerate() if t not in self._threads and t is not self._timer and t.is_alive()]
        deadline = time.monotonic() + 0.5
        for t in new:
            t.join(max(0.0, deadline - time.monotonic()))
        c.threads_left = [t.name for t in new if t.is_alive()]
        if self.timed_out and kind is KeyboardInterrupt:
            raise CheckTimeout(f"your step did not finish within {self.time_limit_s:g} s: it was interrupted (an "
                               "endless loop or a wait? raise timeout_s for a slow model)") from error
        return False


# --------------------------------------------------------------------------- in a child process
def _in_session(target: Callable[..., Any], args: tuple, output: Any, connection: Any) -> None:
    """The child: its own session, its output into the pipe ``output`` (a write-only
    multiprocessing connection, used as a plain file descriptor), ``target(*args)`` sent back;
    the threads it started and still running are named in the answer."""
    os.setsid()
    os.environ[INSIDE] = "1"
    for fd in (1, 2):
        os.dup2(output.fileno(), fd)
    output.close()
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), write_through=True)
    sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", buffering=0), write_through=True)
    before = set(threading.enumerate())
    answer = target(*args)
    left = [t.name for t in threading.enumerate() if t not in before and t.is_alive()]
    if isinstance(answer, dict):
        answer = {**answer, "threads_left": left}
    connection.send(answer)
    connection.close()
    os._exit(0)  # not Python's shutdown: it would wait for the step's threads


def _forward(read_fd: int, meter: dict[str, int], sink: Any) -> None:
    """Copy the child's output to ``sink`` within the meter's limit; count and drop the rest."""
    while True:
        try:
            chunk = os.read(read_fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        meter["total"] += len(chunk)
        room = meter["limit"] - meter["shown"]
        if room > 0:
            part = chunk[:room]
            meter["shown"] += len(part)
            with contextlib.suppress(Exception):
                sink.write(part)
                sink.flush()
        if meter["total"] > meter["limit"] and not meter["cut"]:
            meter["cut"] = 1
            with contextlib.suppress(Exception):
                sink.write(f"\n[gastudy: output cut after {_size(meter['limit'])}: your step printed more; the rest "
                           "is counted, not shown]\n".encode())
                sink.flush()
    os.close(read_fd)


@dataclass
class Outcome:
    """What :func:`run_isolated` brought back: the ``answer`` the target returned (``None`` when
    there was none), why there was none (``"timeout"``, ``"memory"``, ``"ended"``: the process
    ended without one, with ``exitcode``, or ``"interrupted"``), and the :class:`Confinement`."""

    answer: Any
    failure: str | None
    exitcode: int | None
    confinement: Confinement


def run_isolated(target: Callable[..., Any], args: tuple, *, time_limit_s: float, memory_bytes: float = 0,
                 output_limit: int = OUTPUT_LIMIT, start_method: str = "spawn", sink: Any = None,
                 rss: Callable[[int], int] | None = None) -> Outcome:
    """Run ``target(*args)`` in a child process of its own session and return what it returned.

    The child's standard output and error go to ``sink`` (default: this process's standard
    error, so a JSON answer on standard output stays clean), cut after ``output_limit`` bytes;
    the child is stopped after ``time_limit_s`` seconds or above ``memory_bytes`` of resident
    memory (``rss(pid)`` measures it, the child and what it started; 0: no limit). Whatever
    happens, every process the child started is killed before this returns (see the module
    docstring). ``start_method``: multiprocessing's (``"fork"`` where this process runs one
    thread, else ``"spawn"``; ``target`` and ``args`` must then be importable/picklable)."""
    import multiprocessing

    context = multiprocessing.get_context(start_method)
    sink = sink if sink is not None else getattr(sys.stderr, "buffer", sys.stderr)
    confinement = Confinement(time_limit_s=time_limit_s, isolated=True)
    meter = {"total": 0, "shown": 0, "cut": 0, "limit": output_limit}
    start = time.monotonic()
    with subreaper():
        out_read, out_write = context.Pipe(duplex=False)
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_in_session, args=(target, args, out_write, send))
        child.start()
        before = descendants(os.getpid()) - {child.pid}
        out_write.close()
        send.close()
        read_fd = os.dup(out_read.fileno())
        out_read.close()
        reader = threading.Thread(target=_forward, args=(read_fd, meter, sink), daemon=True, name="gastudy-output")
        reader.start()
        answer, failure = None, None
        try:
            while True:
                if receive.poll(0.1):
                    try:
                        answer = receive.recv()
                    except EOFError:
                        answer = None
                    failure = None if answer is not None else "ended"
                    break
                if not child.is_alive():
                    failure = "ended"
                    break
                if time.monotonic() - start > time_limit_s:
                    failure = "timeout"
                    break
                if memory_bytes and rss is not None and rss(child.pid) > memory_bytes:
                    failure = "memory"
                    break
        except KeyboardInterrupt:
            failure = "interrupted"
        finally:
            child.join(0.2)
            exitcode, alive = child.exitcode, child.is_alive()
            confinement.processes_stopped = stop_new_processes(before, also={child.pid}) - int(alive)
            child.join(1)
            if exitcode is None:
                exitcode = child.exitcode
            reader.join(2)
            receive.close()
    confinement.seconds = time.monotonic() - start
    confinement.output_bytes, confinement.output_shown = meter["total"], meter["shown"]
    if isinstance(answer, dict):
        confinement.threads_left = list(answer.pop("threads_left", []))
    return Outcome(answer, failure, exitcode, confinement)


__all__ = ["INSIDE", "OUTPUT_LIMIT", "CheckTimeout", "Confinement", "Outcome", "Owned", "descendants", "run_isolated",
           "stop_new_processes", "subreaper"]

"""Peak memory, run time and CPU time of each English chapter run top to bottom in a real kernel.

For a room of learners on one shared server (``notebooks/WORKSHOP.md``, *One shared server*):
what one learner's kernel costs while a chapter runs. Each chapter is executed headless, as the
static edition and the study-time rule execute it (``nbclient``, a ``python3`` kernel on Unix
sockets, a copy of the notebook in a temporary folder — the committed file is only read). Every
``--interval`` seconds (default 0.05) a sampler reads the memory of the kernel **and of every
process below it** — chapter 06's warm worker pool (``gastudy/course/pool.py``), the processes
``run_local`` starts (``gastudy/parallel/launch.py``) and the fork server between them:

- **PSS** (``Pss:`` of ``/proc/<pid>/smaps_rollup``): each shared page divided among the processes
  that map it, so the tree's sum counts the pages its processes share (libtorch's code, the
  modules a forked worker inherits) once — RSS where ``smaps_rollup`` is missing;
- RSS and USS (``Private_Clean`` + ``Private_Dirty``: what the tree alone holds) at the same
  instant, for the two ways a server charges memory (see the guide);
- the CPU time (user + system) of every process seen, from ``/proc/<pid>/stat``, and the most
  cores the tree kept busy over one second.

Reported per chapter: the peak PSS (MiB) and the cell it happened in (index, id, first line), when
(seconds after the kernel started), the memory an idle kernel keeps after the last cell, the wall
and CPU seconds of the whole run, the most processes at once. Learners *run* the graded exercises,
which the committed chapters leave as ``answer = None``: by default each exercise whose solution
file exists gets its solution run through ``check_exercise`` in a cell inserted right after the
exercise cell (06.2 closes the labs' warm pool and grades on 2 fresh processes) —
``--as-committed`` leaves them unanswered. ``--edit OLD NEW`` runs the chapter as a learner who
moved a control would: ``OLD`` replaced by ``NEW`` in every code cell (each must match a cell). Kernels run with ``OMP_NUM_THREADS=1`` (``--threads``), as the guide asks a shared
server to set. ::

    python benchmarks/bench_chapter_memory.py                         # all 14 chapters
    python benchmarks/bench_chapter_memory.py --chapters 01 03 05 06 11
    python benchmarks/bench_chapter_memory.py --chapters 06 --json    # one JSON object on stdout
    python benchmarks/bench_chapter_memory.py --chapters 06 --edit "DenominatorLab()" "DenominatorLab(replicas=3)"
    python benchmarks/bench_chapter_memory.py --write                 # and into chapter_memory.json

``--write`` merges the chapters measured into ``benchmarks/chapter_memory.json`` (each chapter with
its own date, load and commit; the others are kept), which ``tests/test_workshop.py`` holds the
guide's figures to. Target (issue 37): ≤ 1 GiB per learner. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
RESULTS = Path(__file__).with_name("chapter_memory.json")
SOLUTIONS = ROOT / "gastudy" / "course" / "exercises" / "solutions"  # read as files: this process imports no gastudy
MIB = 2**20
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
START, END = -1, 10**6  # the "cells" before the first and after the last


# --------------------------------------------------------------------------- one process, one tree
def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (every thread's ``children`` file; a scan of ``/proc`` where
    the kernel has no such files)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found += [int(c) for c in f.read().split()]
        except FileNotFoundError:
            return _scan_children(pid)
        except OSError:
            continue
    return found


def _scan_children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, …), ``pid`` excluded."""
    out, todo = [], children(pid)
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children(p)
    return out


def memory(pid: int) -> tuple[int, int, int] | None:
    """``(pss, rss, uss)`` bytes of ``pid``: from ``smaps_rollup``, else RSS from ``statm`` (PSS and
    USS then taken as the RSS); ``None`` when the process is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            fields = {}
            for line in f:
                name, _, rest = line.partition(":")
                if rest.strip().endswith("kB"):
                    fields[name] = int(rest.split()[0]) * 1024
        return fields["Pss"], fields["Rss"], fields["Private_Clean"] + fields["Private_Dirty"]
    except (FileNotFoundError, ProcessLookupError):
        return None
    except (OSError, KeyError):
        try:
            with open(f"/proc/{pid}/statm") as f:
                rss = int(f.read().split()[1]) * PAGE
            return rss, rss, rss
        except OSError:
            return None


def cpu_seconds(pid: int) -> tuple[int, float] | None:
    """``(start time in ticks, user + system seconds)`` of ``pid`` (the start time tells a reused
    pid apart), ``None`` when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[19]), (int(fields[11]) + int(fields[12])) / TICKS


def role(pid: int) -> str:
    """What a process of the tree is, from its command line: the kernel, the fork server, a worker
    (a process the fork server forked: a pool's or ``run_local``'s rank), or its command."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            args = f.read().decode(errors="replace").split("\0")
    except OSError:
        return "gone"
    line = " ".join(args)
    if "ipykernel_launcher" in line:
        return "kernel"
    if "resource_tracker" in line:
        return "resource tracker"
    if "forkserver" in line:
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{parent}/cmdline", "rb") as f:
                forked = b"forkserver" in f.read()
        except (OSError, ValueError):
            forked = False
        return "worker" if forked else "fork server"
    return (args[0].rsplit("/", 1)[-1] or "process")[:24]


# --------------------------------------------------------------------------- the sampler
@dataclass
class Peak:
    pss: int = 0
    rss: int = 0
    uss: int = 0
    processes: int = 0
    cell: int = START
    at: float = 0.0


def kernels_below(pid: int) -> list[int]:
    """The kernels ``pid`` started (its children running ``ipykernel_launcher``)."""
    found = []
    for child in children(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"ipykernel_launcher" in f.read():
                    found.append(child)
        except OSError:
            continue
    return found


@dataclass
class Sampler:
    """Samples the kernels below ``root`` and every process below them, attributing each sample to
    ``cell`` — the index of the cell running at that moment. It runs in a process of its own
    (:class:`Sampling`): sampling every 50 ms from a thread of the process that drives the kernel
    competes with its message loop for the interpreter, and nbclient was seen waiting forever for
    the reply to a cell the kernel had finished."""

    root: int = 0
    interval: float = 0.05
    cell: int = START
    peak: Peak = field(default_factory=Peak)
    cpu: dict[tuple[int, int], float] = field(default_factory=dict)
    by_cell: dict[int, Peak] = field(default_factory=dict)
    first_seen: dict[tuple[int, int], tuple[int, str]] = field(default_factory=dict)  # → (cell, role)
    peak_processes: list[tuple[tuple[int, int], int]] = field(default_factory=list)  # (key, PSS) at the peak
    samples: int = 0
    recent: list[tuple[float, float]] = field(default_factory=list)  # (time, CPU seconds) of the last second
    most_cores: float = 0.0
    most_processes: int = 0
    last: tuple[int, int, int] = (0, 0, 0)
    t0: float = field(default_factory=time.monotonic)

    def sample(self) -> None:
        kernels = kernels_below(self.root)
        pids = kernels + [p for k in kernels for p in descendants(k)]
        pss = rss = uss = alive = 0
        each = []
        for pid in pids:
            seen = memory(pid)
            used = cpu_seconds(pid)
            if seen is None or used is None:
                continue
            alive += 1
            pss, rss, uss = pss + seen[0], rss + seen[1], uss + seen[2]
            key = (pid, used[0])
            self.cpu[key] = used[1]
            if key not in self.first_seen:
                self.first_seen[key] = (self.cell, role(pid))
            each.append((key, seen[0]))
        self.samples += 1
        now, used = time.monotonic(), sum(self.cpu.values())
        self.recent.append((now, used))
        while len(self.recent) > 2 and now - self.recent[1][0] >= 1.0:
            self.recent.pop(0)
        if now - self.recent[0][0] >= 1.0:  # the CPU the tree used over the last second, in cores
            self.most_cores = max(self.most_cores, (used - self.recent[0][1]) / (now - self.recent[0][0]))
        self.most_processes = max(self.most_processes, alive)
        self.last = (pss, rss, uss)
        seen = Peak(pss, rss, uss, alive, self.cell, time.monotonic() - self.t0)
        if pss > self.peak.pss:
            self.peak, self.peak_processes = seen, each
        if pss > self.by_cell.get(self.cell, Peak()).pss:
            self.by_cell[self.cell] = seen

    def first_peak(self, within: float = 0.01) -> Peak:
        """The peak sample, attributed to the first cell that came within ``within`` (relative) of
        the highest any cell reached: memory that only creeps up afterwards (the next cells' few
        pages, the kernel idling after the last cell) does not move the peak away from the cell
        that made it."""
        cells = [p for p in self.by_cell.values() if p.cell not in (START, END)] or list(self.by_cell.values())
        top = max(p.pss for p in cells) if cells else self.peak.pss
        near = [p for p in cells if p.pss >= (1 - within) * top]  # the idle kernel creeping up is no cell's
        first = min(near, key=lambda p: p.cell, default=self.peak)
        return Peak(self.peak.pss, self.peak.rss, self.peak.uss, self.peak.processes, first.cell, first.at)

    def report(self) -> dict:
        """What the benchmark keeps: the peak (attributed by :meth:`first_peak`), which processes
        made it up (role, the cell each first appeared in, PSS), CPU and process counts."""
        parts: dict[tuple[str, int], list[int]] = {}
        for key, pss in self.peak_processes:
            cell, kind = self.first_seen[key]
            parts.setdefault((kind, cell), []).append(pss)
        return {"peak": self.first_peak(), "parts": parts, "cpu_s": sum(self.cpu.values()),
                "most_cores": self.most_cores, "most_processes": self.most_processes, "samples": self.samples}


def _sampling(root: int, interval: float, cell: Any, conn: Any) -> None:
    """The sampling process: sample every ``interval`` s, the running cell read from ``cell``;
    answer ``"cpu"`` (CPU seconds so far, sampled now), ``"last"`` (the last sample) and ``"stop"``
    (the report, then leave)."""
    sampler = Sampler(root, interval)
    while True:
        began = time.monotonic()
        sampler.cell = cell.value
        sampler.sample()
        while conn.poll():
            asked = conn.recv()
            if asked == "cpu":
                conn.send(sum(sampler.cpu.values()))
            elif asked == "last":
                conn.send(sampler.last)
            else:
                conn.send(sampler.report())
                return
        time.sleep(max(0.0, interval - (time.monotonic() - began)))


class Sampling:
    """The benchmark's handle on the sampling process: ``cell = i`` says which cell runs,
    :meth:`cpu_total` and :attr:`last` ask it, :meth:`stop` ends it and returns its report."""

    def __init__(self, interval: float):
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._cell = context.Value("i", START, lock=False)
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_sampling, args=(os.getpid(), interval, self._cell, theirs),
                                        daemon=True, name="gastudy-memory-sampler")
        self._process.start()
        self.report: dict | None = None

    @property
    def cell(self) -> int:
        return self._cell.value

    @cell.setter
    def cell(self, index: int) -> None:
        self._cell.value = index

    def _ask(self, what: str) -> Any:
        self._conn.send(what)
        return self._conn.recv()

    def cpu_total(self) -> float:
        """CPU seconds of every process of the kernels' trees seen so far."""
        return self._ask("cpu")

    @property
    def last(self) -> tuple[int, int, int]:
        """The last sample: ``(pss, rss, uss)`` bytes."""
        return self._ask("last")

    def stop(self) -> dict:
        """End the sampling process; its :meth:`Sampler.report`."""
        if self.report is None:
            self.report = self._ask("stop")
            self._process.join(10)
        return self.report

    def __enter__(self) -> Sampling:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --------------------------------------------------------------------------- one chapter
def chapter_paths(wanted: list[str]) -> list[Path]:
    every = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if not wanted:
        return every
    chosen = [p for p in every if any(p.stem == w or p.stem.startswith(f"{w}_") for w in wanted)]
    unknown = [w for w in wanted if not any(p.stem == w or p.stem.startswith(f"{w}_") for p in every)]
    if unknown:
        raise ValueError(f"no chapter {', '.join(unknown)}; the chapters are {', '.join(p.stem[:2] for p in every)}")
    return chosen


def with_solutions(nb) -> list[str]:
    """Insert, after each exercise cell whose solution file exists, a cell that runs the solution
    through ``check_exercise`` — what a learner who solved it runs. Returns the keys."""
    import re

    import nbformat

    keys, cells = [], []
    for cell in nb.cells:
        cells.append(cell)
        found = re.findall(r'check_exercise\("(\d\d\.\d)"', cell.source) if cell.cell_type == "code" else []
        for key in found:
            path = SOLUTIONS / f"ex_{key.replace('.', '_')}.py"  # gastudy.course.exercises.solution_path
            if path.exists():
                solved = nbformat.v4.new_code_cell(f"{path.read_text(encoding='utf-8')}\n\n"
                                                   f'check_exercise("{key}", answer)')
                solved.id = f"solution-{key.replace('.', '-')}"
                solved.metadata["bench"] = {"solution": key}
                cells.append(solved)
                keys.append(key)
    nb.cells = cells
    return keys


def describe(nb, index: int) -> dict:
    if index == START:
        return {"index": None, "id": None, "what": "kernel start"}
    if index >= len(nb.cells):
        return {"index": None, "id": None, "what": "idle, after the last cell"}
    cell = nb.cells[index]
    solved = cell.get("metadata", {}).get("bench", {}).get("solution")
    first = next((line.strip() for line in cell.source.splitlines() if line.strip()), "")
    return {"index": index, "id": cell.get("id"),
            "what": f"the solution of {solved}, graded" if solved else first[:80]}


async def _run(client, nb, sampler: Sampling, env: dict, idle_s: float, graded: dict,
               verbose: bool = False) -> tuple[float, tuple[int, int, int]]:
    """Execute the notebook in the client's fresh kernel (nbclient's own ``execute``), telling
    ``sampler`` which cell runs; after the last code cell, wait ``idle_s`` with nothing running.
    ``graded`` gets, for each solution cell, its wall and CPU seconds (the grader's cost). Returns
    the run's seconds and the idle sample."""
    import asyncio

    started = time.monotonic()
    last = max(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    done: list = []

    def starting(cell, cell_index: int) -> None:
        if cell.get("metadata", {}).get("bench"):
            graded[cell.metadata["bench"]["solution"]] = (time.monotonic(), sampler.cpu_total())
        sampler.cell = cell_index
        if verbose:
            print(f"  {time.monotonic() - started:6.1f} s  cell {cell_index} ({cell.get('id')}), "
                  f"{sampler.last[0] / MIB:.0f} MiB", file=sys.stderr, flush=True)

    async def finished(cell, cell_index: int, execute_reply) -> None:
        key = cell.get("metadata", {}).get("bench", {}).get("solution")
        if key:
            wall, cpu = graded[key]
            graded[key] = {"wall_s": round(time.monotonic() - wall, 1), "cpu_s": round(sampler.cpu_total() - cpu, 1)}
        if cell_index == last:
            sampler.cell = END
            done.append(time.monotonic() - started)
            await asyncio.sleep(idle_s)  # what a kernel left open keeps
            done.append(sampler.last)

    client.on_cell_execute, client.on_cell_executed = starting, finished
    await client.async_execute(env=env)
    return done[0], done[1]


def steady(get_msg, step: float = 1.0):
    """``get_msg`` of a kernel channel (``async get_msg(timeout=None)``, raises ``queue.Empty``)
    with every wait cut into polls of at most ``step`` seconds, the same deadline kept.

    zmq.asyncio can miss the wake-up of a message that has already arrived (zmq's descriptors
    are edge-triggered; pyzmq#2173): the poll then ends only at its timeout, where a last check
    finds the message. nbclient waits for a cell's reply with the whole ``--timeout``, so a cell
    done in a second looked like one that ran for minutes, with no error (chapter 06, three runs
    of five: each stall as long as the ``--timeout`` given). Polling again each second bounds a
    missed wake-up to one second."""
    from queue import Empty

    async def get(timeout: float | None = None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = step if deadline is None else max(0.0, min(step, deadline - time.monotonic()))
            try:
                return await get_msg(timeout=wait)
            except Empty:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
    return get


def notebook_client(nb, **kwargs):
    """An ``nbclient.NotebookClient`` whose kernel channels wait with :func:`steady`."""
    from nbclient import NotebookClient

    class SteadyClient(NotebookClient):
        async def async_start_new_kernel_client(self):
            kc = await super().async_start_new_kernel_client()
            for channel in (kc.shell_channel, kc.iopub_channel):
                channel.get_msg = steady(channel.get_msg)
            return kc

    return SteadyClient(nb, **kwargs)


def apply_edits(nb, edits: list[tuple[str, str]], name: str) -> None:
    """Replace each ``old`` by ``new`` in every code cell of ``nb``; ``ValueError`` naming the
    edit when one matches no code cell (a typo would otherwise measure the unchanged chapter)."""
    for old, new in edits:
        cells = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
        if not cells:
            raise ValueError(f"--edit {old!r}: no code cell of {name} contains it; copy the text from the chapter")
        for c in cells:
            c.source = c.source.replace(old, new)


def measure(path: Path, interval: float, threads: int, solved: bool, timeout: int,
            verbose: bool = False, edits: list[tuple[str, str]] = ()) -> dict:
    """Run one chapter in a fresh kernel under the sampler; its figures as a dict (MiB, seconds).
    ``edits``: ``(old, new)`` replacements made in its code cells first (:func:`apply_edits`)."""
    import nbformat
    from nbclient.util import run_sync
    from traitlets.config import Config

    nb = nbformat.read(path, as_version=4)
    apply_edits(nb, list(edits), path.stem)
    graded = with_solutions(nb) if solved else []
    grading: dict = {}
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads),
           "MPLBACKEND": "Agg", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}
    load = os.getloadavg()
    error = None
    with tempfile.TemporaryDirectory(prefix="gastudy-memory-") as folder:
        shutil.copy(path, Path(folder) / path.name)
        client = notebook_client(nb, timeout=timeout, kernel_name="python3",
                                 resources={"metadata": {"path": folder}},
                                 config=Config({"KernelManager": {"transport": "ipc",
                                                                  "ip": str(Path(folder) / "kernel")}}))
        with Sampling(interval) as sampler:
            started = time.monotonic()
            try:
                ran, idle = run_sync(_run)(client, nb, sampler, env, max(1.0, 10 * interval), grading, verbose)
            except Exception as err:  # noqa: BLE001 - report the chapter, go on with the next
                error = f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[-1]}"
                ran, idle = time.monotonic() - started, None
    report = sampler.stop()
    peak, parts = report["peak"], report["parts"]
    at_peak = [{"role": kind, "count": len(sizes), "pss_mib": round(sum(sizes) / MIB, 1),
                "started_in": describe(nb, cell if cell != END else len(nb.cells))["what"]
                if cell != START else "kernel start", "started_in_cell": describe(nb, cell)["id"] if cell >= 0 else None}
               for (kind, cell), sizes in sorted(parts.items(), key=lambda kv: (kv[0][1], kv[0][0]))]
    return {
        "date": datetime.date.today().isoformat(),
        "load": [round(load[0], 2), round(os.getloadavg()[0], 2)],
        "commit": _commit(),
        "solutions_graded": graded,
        "grading": {k: v for k, v in grading.items() if isinstance(v, dict)},
        "peak_pss_mib": round(peak.pss / MIB, 1),
        "rss_at_peak_mib": round(peak.rss / MIB, 1),
        "uss_at_peak_mib": round(peak.uss / MIB, 1),
        "processes_at_peak": peak.processes,
        "at_peak": at_peak,
        "peak_cell": describe(nb, peak.cell if peak.cell != END else len(nb.cells)),
        "peak_at_s": round(peak.at, 1),
        "idle_pss_mib": round(idle[0] / MIB, 1) if idle else None,
        "run_s": round(ran, 1),
        "cpu_s": round(report["cpu_s"], 1),
        "most_cores": round(report["most_cores"], 2),
        "most_processes": report["most_processes"],
        "samples": report["samples"],
        **({"edits": [list(e) for e in edits]} if edits else {}),
        **({"error": error} if error else {}),
    }


def measure_server(seconds: float = 10.0, interval: float = 0.05) -> dict:
    """The memory of one JupyterLab server with no kernel (what JupyterHub starts for each learner
    before any notebook opens, ``jupyterhub-singleuser`` being the same server): started on a Unix
    socket in a temporary folder, sampled for ``seconds`` after it answers, then stopped."""
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="gastudy-server-") as folder:
        sock = Path(folder) / "lab.sock"
        command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--ServerApp.sock={sock}",
                   "--IdentityProvider.token=", f"--ServerApp.root_dir={folder}",
                   *(["--allow-root"] if os.geteuid() == 0 else [])]
        env = {**os.environ, "JUPYTER_RUNTIME_DIR": folder, "JUPYTER_CONFIG_DIR": folder}
        server = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while not sock.exists() and time.monotonic() < deadline and server.poll() is None:
                time.sleep(0.2)
            if not sock.exists():
                raise RuntimeError("the JupyterLab server did not start within 120 s")
            peak = (0, 0, 0)
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                seen = [m for m in (memory(p) for p in [server.pid, *descendants(server.pid)]) if m]
                total = tuple(sum(x) for x in zip(*seen)) if seen else (0, 0, 0)
                peak = max(peak, total)
                time.sleep(interval)
        finally:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
    return {"date": datetime.date.today().isoformat(), "load": [round(load[0], 2), round(os.getloadavg()[0], 2)],
            "pss_mib": round(peak[0] / MIB, 1), "rss_mib": round(peak[1] / MIB, 1), "uss_mib": round(peak[2] / MIB, 1)}


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "notebooks/", "gastudy/"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}+changes" if dirty else head


# --------------------------------------------------------------------------- the command
def machine(interval: float, threads: int, solved: bool) -> dict:
    from importlib.metadata import version

    return {"cpus": len(os.sched_getaffinity(0)), "memory_gib": round(os.sysconf("SC_PHYS_PAGES") * PAGE / 2**30, 1),
            "python": platform.python_version(), "torch": version("torch"), "interval_s": interval,
            "omp_num_threads": threads, "solutions": solved}


def write(results: dict, settings: dict, path: Path = RESULTS, server: dict | None = None) -> None:
    """Merge ``results`` (chapter → figures) into ``path``, keeping the chapters not measured now
    (and the server's figures, unless ``server`` replaces them)."""
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"chapters": {}}
    data["settings"] = settings
    if server is not None:
        data["server"] = server
    data["chapters"] = dict(sorted({**data.get("chapters", {}), **results}.items()))
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    partial.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(path)


def build_parser() -> argparse.ArgumentParser:
    """The command line (the module docstring shows it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapters", nargs="*", default=[], metavar="NN", help="chapters to run (default: all)")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between samples (default 0.05)")
    parser.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS of the kernel (default 1)")
    parser.add_argument("--as-committed", action="store_true", help="leave the exercises unanswered")
    parser.add_argument("--timeout", type=int, default=900, help="seconds a cell may take (default 900)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--server", action="store_true",
                        help="also measure one JupyterLab server with no kernel (a learner's single-user server)")
    parser.add_argument("--verbose", action="store_true", help="say on stderr which cell starts when")
    parser.add_argument("--write", action="store_true", help=f"merge the figures into {RESULTS.relative_to(ROOT)}")
    parser.add_argument("--edit", nargs=2, action="append", default=[], metavar=("OLD", "NEW"),
                        help="replace OLD by NEW in the code cells first (a learner's setting); not with --write")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.edit and args.write:
        parser.error("--edit measures a chapter a learner has changed, not the chapter as committed: "
                     "leave out --write (the figures are printed)")
    edits = [tuple(e) for e in args.edit]
    try:  # every chapter and every edit checked before the first kernel starts
        paths = chapter_paths(args.chapters)
        if edits:
            import nbformat

            for path in paths:
                apply_edits(nbformat.read(path, as_version=4), edits, path.stem)
    except ValueError as e:
        parser.error(str(e))
    if not Path("/proc/self/smaps_rollup").exists() and not Path("/proc/self/statm").exists():
        raise SystemExit("this benchmark reads /proc: Linux only")
    settings = machine(args.interval, args.threads, not args.as_committed)
    results, server = {}, None
    if args.server:
        server = measure_server(interval=args.interval)
        if not args.json:
            print(f"JupyterLab server, no kernel: PSS {server['pss_mib']:.0f} MiB, RSS {server['rss_mib']:.0f} MiB, "
                  f"USS {server['uss_mib']:.0f} MiB", flush=True)
        if args.write:
            write({}, settings, server=server)
    if not args.json:
        print(f"{'chapter':<36} {'peak PSS':>9} {'RSS':>7} {'USS':>7} {'idle':>7} {'run s':>6} {'CPU s':>6} "
              f"{'procs':>5}  peak in", flush=True)
    for path in paths:
        figures = measure(path, args.interval, args.threads, not args.as_committed, args.timeout, args.verbose, edits)
        results[path.stem] = figures
        if not args.json:
            cell = figures["peak_cell"]
            where = f"cell {cell['index']} ({cell['id']}): {cell['what']}" if cell["index"] is not None else cell["what"]
            print(f"{path.stem:<36} {figures['peak_pss_mib']:>8.0f}M {figures['rss_at_peak_mib']:>6.0f}M "
                  f"{figures['uss_at_peak_mib']:>6.0f}M {figures['idle_pss_mib'] or 0:>6.0f}M {figures['run_s']:>6.0f} "
                  f"{figures['cpu_s']:>6.0f} {figures['most_processes']:>5}  {where}"
                  + (f"  ERROR {figures['error']}" if "error" in figures else ""), flush=True)
        if args.write:
            write({path.stem: figures}, settings)  # one chapter at a time: a long run interrupted keeps its figures
    if args.json:
        print(json.dumps({"settings": settings, "chapters": results, **({"server": server} if server else {})},
                         indent=1, ensure_ascii=False))
    return 1 if any("error" in f for f in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

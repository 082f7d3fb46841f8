"""A workshop room: every learner's graded exercises on the facilitator's screen, and the server a
room needs (``notebooks/WORKSHOP.md``).

**Live grading.** Loaded as an IPython extension in a learner's kernel, this module appends every
graded exercise the learner runs — the :class:`~gastudy.course.exercises.ExerciseResult` of a cell
that ends with ``check_exercise("01.2", answer)``, as every exercise cell of the course does — as
one JSON line to ``<folder>/<learner>.jsonl``, where ``folder`` is the environment variable
:data:`RESULTS_ENV` and ``learner`` is JupyterHub's ``JUPYTERHUB_USER`` (else the login name).
Without the variable the extension does nothing, and recording never breaks a learner's cell. A
shared server turns it on for every kernel with one line in ``<venv>/etc/ipython/
ipython_kernel_config.py``::

    c.InteractiveShellApp.extensions = ["gastudy.course.workshop"]

The facilitator reads the folder (``watch -n 10`` refreshes it)::

    python -m gastudy.course.workshop board /srv/gastudy-results --keys 01.2 03.1 05.1 06.2 11.1

One row per learner (``✓`` passed, with the attempts it took; ``✗3`` three attempts, none right yet;
``·`` not tried), the learners who are stuck, and for each exercise how many learners the grader
last told each thing (``clipping before unscale: 7``): the mistake to take up with the whole room.

**The server.** :func:`server_size` turns the measured peak memory and CPU time per learner
(``benchmarks/bench_chapter_memory.py``) into the RAM, cores and per-learner limit a room needs.
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import json
import math
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RESULTS_ENV = "GASTUDY_WORKSHOP_RESULTS"
"""The environment variable that names the shared results folder (a learner's kernel inherits it
from the single-user server, which JupyterHub's ``c.Spawner.environment`` gives it)."""

MIB, GIB = 2**20, 2**30


# --------------------------------------------------------------------------- a learner's kernel
def learner_name() -> str:
    """Who runs this kernel: JupyterHub's user name, else the login name."""
    return os.environ.get("JUPYTERHUB_USER") or getpass.getuser()


def record(result: Any, folder: str | os.PathLike[str], learner: str | None = None,
           when: datetime.datetime | None = None) -> Path:
    """Append one attempt — ``result``'s key, verdict and feedback — to ``folder/<learner>.jsonl``
    and return that file. One ``write`` of one line in append mode, so a learner's two kernels
    never interleave their lines. Raises ``OSError`` when the folder cannot be written."""
    learner = learner or learner_name()
    when = when or datetime.datetime.now(datetime.timezone.utc)
    line = json.dumps({"learner": learner, "key": result.key, "ok": bool(result.ok),
                       "feedback": result.feedback, "time": when.isoformat(timespec="seconds")},
                      ensure_ascii=False) + "\n"
    path = Path(folder) / f"{_safe(learner)}.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)
    return path


def _safe(name: str) -> str:
    return re.sub(r"[^\w.@+-]", "_", name) or "learner"


class _Recorder:
    """The ``post_run_cell`` callback: records a cell's value when it is an attempted exercise."""

    def __init__(self, folder: str):
        self.folder, self.warned = folder, False

    def __call__(self, outcome: Any) -> None:
        from gastudy.course.exercises import ExerciseResult

        value = getattr(outcome, "result", None)
        if not isinstance(value, ExerciseResult) or not value.attempted:
            return
        try:
            record(value, self.folder)
        except OSError as err:
            if not self.warned:  # say it once; the learner's work goes on
                self.warned = True
                print(f"(workshop: this attempt was not recorded in {self.folder}: {err})", file=sys.stderr)


_LOADED: dict[int, _Recorder] = {}


def load_ipython_extension(ipython: Any) -> None:
    """Record every graded exercise of this kernel when :data:`RESULTS_ENV` names a folder."""
    folder = os.environ.get(RESULTS_ENV)
    if not folder or id(ipython) in _LOADED:
        return
    _LOADED[id(ipython)] = _Recorder(folder)
    ipython.events.register("post_run_cell", _LOADED[id(ipython)])


def unload_ipython_extension(ipython: Any) -> None:
    """Stop recording."""
    recorder = _LOADED.pop(id(ipython), None)
    if recorder is not None:
        ipython.events.unregister("post_run_cell", recorder)


# --------------------------------------------------------------------------- the facilitator's board
@dataclass(frozen=True)
class Attempt:
    """One graded attempt, as a learner's kernel recorded it."""

    learner: str
    key: str
    ok: bool
    feedback: str
    time: str


def read_attempts(folder: str | os.PathLike[str]) -> list[Attempt]:
    """Every attempt recorded in ``folder``, oldest first; lines that are not an attempt (a file
    cut short while being written) are skipped."""
    attempts = []
    for path in sorted(Path(folder).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                data = json.loads(line)
                attempts.append(Attempt(str(data["learner"]), str(data["key"]), bool(data["ok"]),
                                        str(data["feedback"]), str(data["time"])))
            except (ValueError, KeyError, TypeError):
                continue
    return sorted(attempts, key=lambda a: a.time)


def symptom(feedback: str) -> str:
    """What the grader told the learner, in a few words, the same for every learner who made the
    same mistake: the symptom it named (``⚠ double division: …`` → ``double division``), the error
    the learner's function raised, or the first verdict of a checker of values (its hint, when it
    gives one after a dash), its numbers as ``#``."""
    text = feedback.strip()
    raised = re.match(r"your function raised (\w+)", text)
    if raised:
        return f"raised {raised.group(1)}"
    if text.startswith("⚠"):
        return text.lstrip("⚠ ").split(":", 1)[0].strip()[:48]
    first = re.split(r"; |\. | \(at ", text, maxsplit=1)[0]  # a checker of values: its first verdict
    _, dash, hint = first.partition(" — ")  # "… 67 instead of 61 — one extra per row: …": the hint says it
    said = hint.split(":", 1)[0] if dash else first
    return re.sub(r"\d[\d,.]*\d|\d", "#", said).strip()[:60]


@dataclass(frozen=True)
class Cell:
    """One learner × one exercise on the board."""

    attempts: int = 0
    passed: bool = False
    last: str = ""  # the symptom of the last attempt (of the last failed one, before a pass)

    @property
    def mark(self) -> str:
        """``✓n`` passed after n attempts, ``✗n`` n attempts and not passed yet, ``·`` not tried."""
        return f"✓{self.attempts}" if self.passed else f"✗{self.attempts}" if self.attempts else "·"


@dataclass(frozen=True)
class Board:
    """The room: :attr:`cells` (learner → key → :class:`Cell`), the learners :attr:`stuck` (``(learner,
    key, attempts, last symptom)``: ``stuck_after`` attempts or more, none right) and, per key, how
    many learners not done yet were last told each symptom (:attr:`told`)."""

    keys: tuple[str, ...]
    cells: dict[str, dict[str, Cell]]
    stuck: list[tuple[str, str, int, str]]
    told: dict[str, Counter]

    def done(self, key: str) -> int:
        """How many learners passed ``key``."""
        return sum(row[key].passed for row in self.cells.values() if key in row)


def board(attempts: Iterable[Attempt], keys: Sequence[str] = (), stuck_after: int = 3) -> Board:
    """The board of ``attempts`` for ``keys`` (default: every key attempted, in order). Attempts
    after a learner's first pass of a key do not count (trying the solution again is no news)."""
    attempts = list(attempts)
    keys = tuple(keys) or tuple(sorted({a.key for a in attempts}))
    cells: dict[str, dict[str, Cell]] = {}
    for a in attempts:
        if a.key not in keys:
            continue
        row = cells.setdefault(a.learner, {})
        cell = row.get(a.key, Cell())
        if cell.passed:
            continue
        row[a.key] = Cell(cell.attempts + 1, a.ok, cell.last if a.ok else symptom(a.feedback))
    stuck = sorted((learner, key, c.attempts, c.last) for learner, row in cells.items() for key, c in row.items()
                   if not c.passed and c.attempts >= stuck_after)
    told = {key: Counter(row[key].last for row in cells.values() if key in row and not row[key].passed)
            for key in keys}
    return Board(keys, dict(sorted(cells.items())), stuck, told)


def render(b: Board) -> str:
    """The board as text: the learners' rows, the stuck, what the grader is telling the room."""
    width = max([len("learner"), *map(len, b.cells)])
    lines = [f"{'learner':<{width}}  " + "  ".join(f"{k:>5}" for k in b.keys)]
    for learner, row in b.cells.items():
        lines.append(f"{learner:<{width}}  " + "  ".join(f"{row.get(k, Cell()).mark:>5}" for k in b.keys))
    lines.append(f"{'passed':<{width}}  " + "  ".join(f"{b.done(k):>5}" for k in b.keys))
    if b.stuck:
        lines += ["", "stuck (go and see):"]
        lines += [f"  {learner} on {key}: {n} attempts, last: {last}" for learner, key, n, last in b.stuck]
    for key in b.keys:
        if b.told[key]:
            lines += ["", f"{key}, what the grader is telling those not done yet:"]
            lines += [f"  {n:>3} × {said}" for said, n in b.told[key].most_common()]
    return "\n".join(lines)


# --------------------------------------------------------------------------- the server
@dataclass(frozen=True)
class ServerSize:
    """What a room of ``learners`` needs from one server (see :func:`server_size`): RAM and cores,
    and the per-learner limits of ``c.Spawner.mem_limit`` (MiB) and ``c.Spawner.cpu_limit``."""

    learners: int
    per_learner_mib: float
    ram_gib: int
    mem_limit_mib: int
    cpu_limit: int
    cores: int


def _up(x: float, step: float = 1.0) -> float:
    return step * math.ceil(round(x / step, 9))


def server_size(peaks_mib: Mapping[str, float], cpu_s: Mapping[str, float], learners: int = 30,
                server_mib: float = 0.0, headroom: float = 0.25, system_gib: float = 2.0,
                ready_in_s: float = 120.0, grading_cpu_s: Mapping[str, float] | None = None, attempts: int = 6,
                write_s: float = 900.0, most_cores: Mapping[str, float] | None = None) -> ServerSize:
    """The server for ``learners`` working through the chapters of ``peaks_mib`` (chapter → one
    learner's measured peak, MiB: a kernel and every process below it), each also holding a
    single-user server of ``server_mib``; ``cpu_s`` (chapter → CPU seconds of running it top to
    bottom), ``grading_cpu_s`` (chapter → CPU seconds of grading its exercise once) and
    ``most_cores`` (chapter → the most cores one learner kept busy over a second).

    - per learner: the highest chapter peak + ``server_mib``;
    - RAM: every learner at that peak at once, + ``headroom`` (a fraction), + ``system_gib`` for the
      system, the hub and its proxy — rounded up to a whole GiB;
    - ``mem_limit``: the per-learner figure + ``headroom``, rounded up to 256 MiB;
    - ``cpu_limit``: the most cores one learner used at once, rounded up (at least 1);
    - cores: the larger of two moments — every learner starts the heaviest chapter together
      (*Run All* at the start of a stop) and it is ready within ``ready_in_s``; every learner
      grades the costliest exercise ``attempts`` times within a write phase of ``write_s`` —
      rounded up.
    """
    if not peaks_mib or not cpu_s:
        raise ValueError("server_size needs at least one chapter's peak and CPU time")
    per_learner = max(peaks_mib.values()) + server_mib
    ram = int(_up(learners * per_learner * (1 + headroom) / 1024 + system_gib))
    limit = int(_up(per_learner * (1 + headroom), 256))
    run_all = learners * max(cpu_s.values()) / ready_in_s
    grading = learners * attempts * max((grading_cpu_s or {"": 0.0}).values()) / write_s
    cpu_limit = max(1, int(_up(max((most_cores or {"": 1.0}).values()))))
    return ServerSize(learners, round(per_learner, 1), ram, limit, cpu_limit, int(_up(max(run_all, grading))))


# --------------------------------------------------------------------------- the command
def build_parser() -> argparse.ArgumentParser:
    """The command line: ``board FOLDER [--keys …] [--stuck-after N] [--json]``."""
    parser = argparse.ArgumentParser(prog="python -m gastudy.course.workshop",
                                     description="The facilitator's view of a workshop room.")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("board", help="every learner's graded exercises, who is stuck, what the grader says")
    show.add_argument("folder", help=f"the results folder (the learners' {RESULTS_ENV})")
    show.add_argument("--keys", nargs="*", default=[], help="the exercises to show (default: every one attempted)")
    show.add_argument("--stuck-after", type=int, default=3, help="attempts without a pass that count as stuck")
    show.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m gastudy.course.workshop board FOLDER [--keys …] [--stuck-after N] [--json]``."""
    args = build_parser().parse_args(argv)
    if not Path(args.folder).is_dir():
        print(f"no folder {args.folder}: create it, writable by the learners, and give its path to their "
              f"kernels as {RESULTS_ENV}", file=sys.stderr)
        return 2
    b = board(read_attempts(args.folder), args.keys, args.stuck_after)
    if args.json:
        print(json.dumps({"keys": b.keys, "learners": {n: {k: c.__dict__ for k, c in row.items()}
                                                         for n, row in b.cells.items()},
                          "stuck": b.stuck, "told": {k: dict(v) for k, v in b.told.items()}},
                         ensure_ascii=False, indent=1))
    else:
        print(render(b))
    return 0


__all__ = ["RESULTS_ENV", "Attempt", "Board", "Cell", "ServerSize", "board", "build_parser", "learner_name", "load_ipython_extension",
           "read_attempts", "record", "render", "server_size", "symptom", "unload_ipython_extension"]


if __name__ == "__main__":
    sys.exit(main())

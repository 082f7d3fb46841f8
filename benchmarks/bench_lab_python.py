"""Redraw time per control change of the computed labs, on the Python side (no browser).

For each lab of the chosen chapters: build it, then move every control to two other values and
back to where it started (a learner trying a setting, then returning); each change is timed from
setting the value to the end of the redraw (``Lab.compute`` + ``Lab.render``; plots rendered to
PNG, tables to HTML). Two clocks per change: wall time, and the process's CPU time — on a shared,
loaded machine the CPU time is what the change would take on an idle core (torch runs one thread,
as in the notebooks). Target (issue "the course in a real browser"): ≤ 1 s per change on 2 cores
for computed labs; labs that measure longer show a progress bar and stay under 10 s. The browser
side is ``bench_lab_redraw.py``. ::

    python benchmarks/bench_lab_python.py            # every chapter listed in LABS
    python benchmarks/bench_lab_python.py 01 03      # some chapters
"""

from __future__ import annotations

import contextlib
import importlib
import io
import statistics
import sys
import time

LABS = {
    "00": ["start.SectionMapLab", "start.GlossaryLab", "updates.KnobsLab"],
    "01": ["updates.StepDiagramLab", "updates.ActivationMemoryLab", "updates.ZeroGradLab",
           "updates.LoggingAxesLab"],
    "02": ["effective_batch.EffectiveBatchLab", "effective_batch.SameProductLab"],
    "03": ["normalization.WeightedMeanLab", "normalization.CountingLab", "normalization.NormalizationLab",
           "normalization.DoubleDivisionLab", "normalization.MeanOfMeansLab"],
    "04": ["group.GroupPlanLab", "group.KeptLossMemoryLab", "group.LastGroupLab", "group.SchedulerLab"],
    "05": ["precision_lab.PrecisionLab", "precision_lab.OverflowLab", "precision_lab.ClippingOrderLab"],
    "08": ["checkpoint_lab.SavedBytesLab", "checkpoint_lab.LayerDiagramLab", "checkpoint_lab.TradeoffLab",
           "checkpoint_lab.CombineLab", "checkpoint_lab.FormulaLab", "checkpoint_lab.OffloadLab"],
    "10": ["verify_lab.VerifyLab", "verify_lab.RecordLab"],
    "11": ["clinic.ClinicLab", "clinic.ClinicTableLab"],
    "12": ["questions.QuestionsLab"],
}
SKIP = {"replicas"}  # D > 1 starts worker processes: chapter 06's pool, measured by bench_lab_redraw.py


def other_values(control) -> list:
    """Two values other than the control's current one (dropdown options or slider steps)."""
    options = getattr(control, "options", None)
    if options is not None:
        values = [o[1] if isinstance(o, tuple) else o for o in options]
        return [v for v in values if v != control.value][:2]
    step = getattr(control, "step", 1)
    near = [control.value + step, control.value - step, control.max, control.min]
    return [v for v in dict.fromkeys(near) if control.min <= v <= control.max and v != control.value][:2]


def bench(path: str) -> list[tuple[str, float, float]]:
    module, name = path.rsplit(".", 1)
    cls = getattr(importlib.import_module(f"gastudy.course.labs.{module}"), name)
    with contextlib.redirect_stdout(io.StringIO()):
        lab = cls()
    changes = []
    for key, control in lab.controls.items():
        if key in SKIP:
            continue
        start = control.value
        for value in [*other_values(control), start]:
            wall, cpu = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                control.value = value
            changes.append((f"{key}={value}", time.perf_counter() - wall, time.process_time() - cpu))
    return changes


def main(chapters: list[str]) -> int:
    import matplotlib
    import torch

    matplotlib.use("Agg")
    torch.manual_seed(0)
    torch.set_num_threads(1)
    for chapter in chapters or list(LABS):
        for path in LABS[chapter]:
            changes = bench(path)
            walls, cpus = [w for _, w, _ in changes], [c for _, _, c in changes]
            worst = max(changes, key=lambda c: c[2])
            print(f"{chapter} {path.split('.')[1]:<20} {len(changes):2d} changes  wall median {statistics.median(walls):5.2f} s"
                  f"  cpu median {statistics.median(cpus):5.2f} s  cpu max {worst[2]:5.2f} s ({worst[0]})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

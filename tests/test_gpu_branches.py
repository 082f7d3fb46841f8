"""The course's GPU-only code, run on the CPU (issue: the GPU paths had never run).

The one notebook cell with a branch taken only on a GPU (chapter 08's offload check) is executed
from the notebook's own source with a result as a GPU gives it; the lab's GPU path (timing the
three settings) runs on the CPU through ``offload_demo(..., timed=True)``. Chapter 09's probes
count the CPU and every GPU present. What a GPU measures (the numbers) still needs one: see
benchmarks/gpu_check.py.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import nbformat
import pytest
import torch

from gastudy.course import check, t
from gastudy.course.labs.checkpoint_lab import offload_demo

ROOT = Path(__file__).resolve().parent.parent


def cell(notebook: str, cell_id: str, folder: Path = ROOT / "notebooks") -> str:
    nb = nbformat.read(folder / notebook, as_version=4)
    return next(c.source for c in nb.cells if c.id == cell_id)


@pytest.fixture(scope="module")
def timed():
    return offload_demo("cpu", micro_batch=2, seq_len=16, repeats=1, timed=True)


def test_the_offload_labs_gpu_path_runs_on_the_cpu(timed):
    assert timed.timings is not None
    assert set(timed.timings) == {"no checkpointing", "checkpointing", "checkpointing + offload"}
    assert all(min(r.timing.times_s) > 0 for r in timed.timings.values())


class _Lab:
    def __init__(self, result):
        self.result = result


@pytest.mark.parametrize("folder", ["", "tr", "es", "ar"])
def test_chapter_08s_gpu_branch_runs_in_every_edition(timed, folder):
    """On a GPU: offload leaves almost nothing on the device and costs time. The branch used to
    rebind ``t`` (the translation function) and break every later cell."""
    gpu = dataclasses.replace(timed, device="cuda:0",
                              offloaded=dataclasses.replace(timed.offloaded, measured_bytes=0))
    slow = dict(gpu.timings)
    plain = slow["checkpointing"]
    slow["checkpointing + offload"] = dataclasses.replace(plain, timing=dataclasses.replace(
        plain.timing, times_s=[2 * s + 1e-3 for s in plain.timing.times_s]))
    gpu = dataclasses.replace(gpu, timings=slow)
    namespace = {"offload": _Lab(gpu), "check": check, "t": t, "torch": torch}
    source = cell("08_checkpointing.ipynb", "nb08-19", ROOT / "notebooks" / folder if folder else ROOT / "notebooks")
    exec(compile(source, "08_checkpointing.ipynb[nb08-19]", "exec"), namespace)
    assert namespace["t"] is t  # the translation function is still the translation function
    assert t("after the GPU branch") == "after the GPU branch"


@pytest.mark.slow
def test_the_prepared_gpu_script_dry_runs_on_the_cpu(tmp_path):
    """benchmarks/gpu_check.py --device cpu runs every section with a small model: the script that a
    GPU machine runs cannot rot unnoticed."""
    import json
    import subprocess
    import sys

    out = tmp_path / "gpu_check.json"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_check.py"), "--device", "cpu", "--repeats",
                           "1", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads(out.read_text())
    for key in ("gradients", "probes", "checkpointing", "timeline", "formula", "layouts", "planner", "fit", "checker"):
        assert key in results and "error" not in results[key], key
    judged = {r["loop"]: r["precision"] for r in results["checker"]["rows"]}
    assert judged["nanoGPT bfloat16 via model.gpt"] == "bf16 autocast"
    assert judged["nanoGPT float16"] == "fp16 autocast + GradScaler"
    assert judged["Accelerate mixed_precision=fp16"] == "float32"  # Accelerate turns fp16 off on the CPU

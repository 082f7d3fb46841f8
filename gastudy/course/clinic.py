"""The MB-11 clinic: every pitfall of :mod:`gastudy.course.pitfalls` against the detector that names
it, on the wrong loop and on its fix (course: MB-11).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from gastudy.check.diagnostics import DETECTORS, Setup, Verdict
from gastudy.course.datasets import AdditionDataset, BlobDataset
from gastudy.course.models import build_model, task_of
from gastudy.course.pitfalls import FIXES, PITFALLS


def default_setup(model: str = "tiny-gpt", micro_batch: int = 2, accumulation_steps: int = 4, seed: int = 0,
                  dtype: torch.dtype = torch.float64, samples: int = 64, collate: str = "padded") -> Setup:
    """The detectors' default world: a course model in float64 and generated data.

    ``tiny-gpt`` (hidden 16, 2 layers) gets :class:`AdditionDataset` problems of 1–3 digits with
    every token supervised (lengths vary, and the first label of each row is supervised, so
    an unshifted count is visibly wrong); the MLPs (``ln-mlp``, ``bn-mlp``, ``mlp``) get
    :class:`BlobDataset` points. Course: MB-11.
    """
    kwargs = {"hidden": 16, "layers": 2, "heads": 2} if model == "tiny-gpt" else {}
    net = build_model(model, seed=seed, dtype=dtype, **kwargs)
    task = task_of(model)
    if task == "causal":
        data = AdditionDataset(samples, max_digits=3, seed=seed, supervise="all")
    else:
        data = BlobDataset(samples, seed=seed)
        data.x = data.x.to(dtype)
    return Setup(net, [data[i] for i in range(len(data))], micro_batch, accumulation_steps, task,
                 collate if task == "causal" else "padded")



@dataclass
class ClinicCase:
    """One clinic case: a pitfall, the detector that catches it, its verdict before and after the fix.

    Course: MB-11.
    """

    pitfall: str
    description: str
    detector: str
    before: Verdict
    after: Verdict

    @property
    def ok(self) -> bool:
        """True when the detector fires on the pitfall and stays quiet on the fix."""
        return self.before.fired and not self.after.fired

    def __str__(self) -> str:
        return (f"{self.pitfall} — {self.description}\n  pitfall: {self.before}\n"
                f"  fixed:   {self.after}")



def run_clinic(pitfalls: Sequence[str] | None = None, setup: Setup | None = None) -> list[ClinicCase]:
    """The MB-11 clinic: for each pitfall (default: all of :data:`PITFALLS`), run the detector that
    names it on the wrong loop and on its fix (:data:`FIXES`). Raises ``KeyError`` naming the
    known pitfalls for an unknown name.

    Course: MB-11.
    """
    setup = setup or default_setup()
    names = list(pitfalls or PITFALLS)
    unknown = [n for n in names if n not in PITFALLS]
    if unknown:
        raise KeyError(f"unknown pitfall(s) {unknown}; known: {', '.join(PITFALLS)}")
    cases = []
    for name in names:
        update, description, detector = PITFALLS[name]
        run = DETECTORS[detector]
        cases.append(ClinicCase(name, description, detector, run(update, setup), run(FIXES[name], setup)))
    return cases


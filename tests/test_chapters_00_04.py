"""Chapters 00–04 as a learner meets them: the slips the issue found stay fixed.

- 01 once called 1/A and 1/√A *bounds* of what zeroing per microbatch leaves of the gradient.
  They are two regimes of one formula, ‖c_A‖ ÷ ‖g‖ = 1/√(A(1 + (A − 1)ρ)) (equal shares, cosine ρ):
  1/A for aligned shares, 1/√A for unrelated ones, and more than 1/√A when they oppose — which
  they do after a few updates on the same group. Fails if the formula is wrong, if the measured
  share after training falls back under 1/√A (the "bound" would then hold), or if the chapter or
  its questionnaire calls them bounds again.
- 00's cycle (100 samples, m = 8, A = 4) and 04's denominators counted from the labels alone agree
  with what the library forms (``make_groups``): fails if the plain count and the library part.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import nbformat
import pytest
import torch

from gastudy.course.labs.updates import ShareRegime, last_share, share_regime

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def equicorrelated(A: int, rho: float) -> list[torch.Tensor]:
    """A vectors of length 1 whose every pair has the cosine ``rho`` (ρ ≥ −1/(A − 1)): the rows of
    a square root of the Gram matrix (1 − ρ)·I + ρ·J."""
    gram = (1 - rho) * torch.eye(A, dtype=torch.float64) + rho * torch.ones(A, A, dtype=torch.float64)
    values, vectors = torch.linalg.eigh(gram)
    rows = vectors * values.clamp(min=0).sqrt()
    return [rows[i] for i in range(A)]


@pytest.mark.parametrize("A", [2, 4, 8])
@pytest.mark.parametrize("rho", [1.0, 0.5, 0.0, -0.1])
def test_the_last_share_follows_the_formula_with_1_over_A_and_1_over_root_A_as_regimes(A, rho):
    shares = equicorrelated(A, rho)
    regime = share_regime(shares)
    assert regime.rho == pytest.approx(rho, abs=1e-9)
    assert regime.ratio == pytest.approx(regime.formula, rel=1e-9)
    if rho == 1.0:
        assert regime.ratio == pytest.approx(1 / A, rel=1e-9)
    if rho == 0.0:
        assert regime.ratio == pytest.approx(A**-0.5, rel=1e-9)
    if rho < 0:
        assert regime.ratio > A**-0.5  # beyond the old "bound"
    assert ShareRegime(A, 0, 0.0, 1.0).formula == pytest.approx(1 / A)
    with pytest.raises(ValueError, match="at least 2"):
        share_regime(shares[:1])


def test_one_over_root_A_is_no_bound_on_the_chapters_model():
    torch.set_num_threads(1)
    start, trained = last_share(4), last_share(4, updates=30)
    assert start.rho > 0 and 1 / 4 < start.ratio < 0.5  # the lab's setting: in between
    assert trained.rho < 0 and trained.ratio > 0.5  # opposed shares: above 1/√A
    for s in (start, trained):
        assert s.ratio / s.formula == pytest.approx(1, abs=0.25)


def _markdown(name: str) -> str:
    nb = nbformat.read(next(NOTEBOOKS.glob(f"{name}_*.ipynb")), as_version=4)
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_chapter_01_and_its_questionnaire_call_them_regimes_not_bounds():
    from gastudy.course.questionnaire import questions

    text = " ".join(_markdown("01").split())
    assert "two regimes, not bounds" in text
    assert not re.search(r"between 1/A[^.]*and 1/√A", text), "01 calls 1/A and 1/√A bounds again"
    q = next(q for q in questions("01") if "zero_grad() is called by mistake" in q.prompt)
    assert "not bounds" in q.explanation and "between" in q.choices[q.right - 1]  # the old claim is a wrong choice
    assert "how the shares line up" in q.choices[q.right]


def test_chapter_00s_cycle_and_04s_denominators_agree_with_make_groups():
    from torch.utils.data import DataLoader

    from gastudy import make_groups
    from gastudy.core.data import MicrobatchStream, pad_collate
    from gastudy.course.datasets import AdditionDataset, BlobDataset

    microbatches = list(DataLoader(range(100), batch_size=8))
    plain = [sum(len(mb) for mb in microbatches[i:i + 4]) for i in range(0, len(microbatches), 4)]
    library = [g.samples for g in make_groups(MicrobatchStream(BlobDataset(100), 8), 4, task="classification")]
    assert plain == library == [32, 32, 32, 4] and len(plain) == math.ceil(100 / (8 * 4))
    data = AdditionDataset(30, seed=0)
    mbs = list(DataLoader(data, batch_size=2, collate_fn=pad_collate))
    counted = [sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in mbs[i:i + 4]) for i in range(0, len(mbs), 4)]
    fixed = [g.supervised_items for g in make_groups(MicrobatchStream(data, 2, shuffle=False), 4)]
    assert counted == fixed

"""Chapters 05–07 (mixed precision, data parallel, same batch ≠ same experiment): each idea goes
predict → derive → plain PyTorch → lab → library, and the checks the issue found weak can fail.

Each "can fail" test runs the chapter's own check cell (its source, read from the notebook) twice:
on measurements where the claim holds, where it must pass, and on measurements where it does not
hold, where it must raise. The docstring of each says what would make the check fail.
"""

from __future__ import annotations

import ast
import re
from types import SimpleNamespace

import pytest
import torch

from tests.chapters import cell_source, notebook, run_cells

STEMS = {"05": "05_mixed_precision", "06": "06_data_parallel", "07": "07_same_batch_different_experiment"}


def source(chapter: str, cell_id: str) -> str:
    return cell_source(chapter, cell_id)


def run(chapter: str, *cell_ids: str, namespace: dict | None = None, replace: tuple[str, str] | None = None) -> dict:
    return run_cells(chapter, *cell_ids, namespace=namespace, replace=replace)


@pytest.fixture(autouse=True)
def _one_thread_no_figures():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("chapter", sorted(STEMS))
def test_the_chapters_use_the_courses_notation(chapter):
    """00's table: N is the group's supervised items, k the factor a gradient is off by, L the
    layers, S the samples of a group. No code cell of 05–07 names something else n, k, a, S or L,
    and no text calls a data set's samples N. Fails when such a name comes back."""
    nb = notebook(chapter)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            assert not re.search(r"\bN ?= ?[\d,]+ samples", cell.source), cell.source[:80]
            continue
        tree = ast.parse("\n".join(line for line in cell.source.splitlines() if not line.startswith("%")))
        stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        assert not stored & {"n", "k", "a", "S", "L"}, f"{chapter} {cell.get('id')}: {stored & {'n', 'k', 'a', 'S', 'L'}}"
    from gastudy.course.questionnaire import questions

    for question in questions(chapter):
        assert not re.search(r"\bN ?= ?[\d,]+ samples", question.prompt + question.explanation), question.prompt


# ----------------------------------------------------------------------------- 05
def test_05_the_underflow_check_fails_without_a_scale():
    """05 §1's plain cell: 1e-8 underflows in float16 and comes back when scaled by 2¹⁶. With a
    scale of 1 (no scaler) the value is lost and the check must fail."""
    ns = run("05", "nb05-01", "nb05-02p")
    assert float(ns["stored"][0]) == 0.0 and abs(float(ns["unscaled"][0]) - 1e-8) < 1e-11
    with pytest.raises(AssertionError):
        run("05", "nb05-02p", namespace=ns, replace=("scale = 2.0**16", "scale = 1.0"))


def test_05_the_library_cell_runs_the_plain_loops_update():
    """05 §1: the Accumulator cell applies the update at the scale the plain loop used; it fails
    when the plain loop's scale is another (here: a loop that started at 2¹⁰)."""
    ns = run("05", "nb05-01", "nb05-31", "nb05-04l")
    assert ns["result"].applied and ns["result"].scale == 2.0**16
    ns["scales"] = [2.0**10]
    with pytest.raises(AssertionError):
        run("05", "nb05-04l", namespace=ns)


# ----------------------------------------------------------------------------- 06
def _dp_rows(defers: bool, G: int = 1000, m: int = 2, steps=(1, 2, 4, 8)) -> list[dict]:
    rows = []
    for A in steps:
        for no_sync in (True, False):
            sent = G if (no_sync and defers) else A * G
            rows.append({"accumulation_steps": A, "no_sync": no_sync, "micro_batch": m, "gradient_bytes": G,
                         "bytes_per_update": sent, "bytes_per_sample": sent / (m * A)})
    return rows


def test_06_bytes_per_sample_check_fails_when_no_sync_does_not_defer():
    """06 §2 (the cell after the lab that was near-vacuous): measured at A = 1, 2, 4, 8, the bytes
    handed to all-reduce per sample must be G ÷ (m·A) with no_sync and G ÷ m without. It fails
    when no_sync does not defer the communication (A × G per update either way, as with a
    forward outside no_sync) or when a call sends anything but the whole gradient."""
    from gastudy.course import t

    ns = {"t": t, "D": 2, "bytes_per_sample": lambda D, steps: _dp_rows(True, steps=steps)}
    ns.update({k: v for k, v in run("06", "nb06-01").items() if k in ("check", "math")})
    run("06", "nb06-07f", namespace=ns)
    ns["bytes_per_sample"] = lambda D, steps: _dp_rows(False, steps=steps)
    with pytest.raises(AssertionError):
        run("06", "nb06-07f", namespace=ns)
    half = _dp_rows(True)
    for row in half:
        row["bytes_per_sample"] /= 2  # a compressing comm hook: half the gradient per call
    ns["bytes_per_sample"] = lambda D, steps: half
    with pytest.raises(AssertionError):
        run("06", "nb06-07f", namespace=ns)


@pytest.mark.slow
def test_06_bytes_per_sample_measured_on_two_processes():
    from gastudy.course.demos.ddp import close_pool
    from gastudy.course.labs.data_parallel import bytes_per_sample

    try:
        rows = bytes_per_sample(2, steps=(1, 3))
    finally:
        close_pool()
    G, m = rows[0]["gradient_bytes"], rows[0]["micro_batch"]
    assert [(r["accumulation_steps"], r["no_sync"]) for r in rows] == [(1, True), (1, False), (3, True), (3, False)]
    assert [r["bytes_per_sample"] for r in rows] == [G / m, G / m, G / (3 * m), G / m]


def test_06_the_one_process_denominator_matches_the_derivation():
    """06 §1's plain cell: D = 2 replicas simulated in one process. The global denominator gives
    the big batch, the local means do not; the check fails when the replicas hold the same
    counts (a local mean is then exact)."""
    ns = run("06", "nb06-01", "nb06-02p")
    assert ns["items"][0] != ns["items"][1] and ns["gap"]["global"] < 1e-5 < 1e-3 < ns["gap"]["local"]
    with pytest.raises(AssertionError):  # both replicas given replica 0's share: equal counts
        run("06", "nb06-02p", namespace=ns, replace=("for part in setup.groups]", "for part in setup.groups[:1] * 2]"))


# ----------------------------------------------------------------------------- 07
def test_07_weights_are_compared_with_weights_and_the_check_can_fail():
    """07 §2: the text no longer compares a weight difference with a gradient gap; the check
    compares the weights after the first update with the weights after the last (the same two
    runs). It fails when the difference does not grow with the updates."""
    from gastudy.course.labs.experiment import (
        RoundingResult,
        rounding_differences,
        weight_drift,
        weight_drift_by_update,
    )

    nb = notebook("07")
    assert not any("far more than one update's rounding" in c.source for c in nb.cells)
    by_update = weight_drift_by_update(2, 4, 5)
    assert len(by_update) == 5 and by_update[-1] == weight_drift(2, 4, 5) and by_update[-1] > by_update[0] > 0
    ns = run("07", "nb07-01")
    real = rounding_differences(2, 4, 5)
    assert real.drift_first["fp32"] > 0 and real.drift["fp32"] > 1.5 * real.drift_first["fp32"]
    ns["rounding"] = SimpleNamespace(result=real, values={"accumulation_steps": 4, "updates": 5})
    run("07", "nb07-08", namespace=ns)
    flat = RoundingResult(2, 4, 5, real.one_update, dict(real.drift), {"fp64": real.drift["fp64"],
                                                                      "fp32": real.drift["fp32"]})
    ns["rounding"] = SimpleNamespace(result=flat, values={"accumulation_steps": 4, "updates": 5})
    with pytest.raises(AssertionError, match="weights against weights"):
        run("07", "nb07-08", namespace=ns)


def _timings(times: dict[tuple[int, int], float], saved=(3000, 400, 100)):
    """RunTiming rows for the lab's three splits, each timed in 5 rounds at ``times[(m, A)]``."""
    from gastudy.memory.timing import RunTiming, Timing

    rows = []
    for (m, A), s in zip(((32, 1), (4, 8), (1, 32)), saved):
        each = times[(m, A)]
        rows.append(RunTiming(m, A, None, False, Timing(each, 0.0, 32 / each, 0.0, [each] * 5), s, 0))
    return rows


def test_07_the_throughput_checks_fail_where_their_conditions_do_not_hold():
    """07 §4: the checks state the conditions t(A) = A·c₀ + B·c₁ rests on. They pass on timings
    with a fixed cost per microbatch (c₀ > 0); the first fails where c₀ = 0 (every split as fast
    as the real batch), the second where a split beats the real batch (4 × 8 30 % faster than it,
    as CPU caches can make it) or is no faster than 1 × 32."""
    from gastudy.course.labs.experiment import fixed_cost_share, predicted_speed

    c0, c1 = 0.002, 0.001  # seconds per microbatch and per sample
    affine = {(m, A): A * c0 + 32 * c1 for m, A in ((32, 1), (4, 8), (1, 32))}
    big, mid, small = _timings(affine)
    assert fixed_cost_share(small, big) == pytest.approx(c0 / (c0 + 32 * c1))
    assert predicted_speed(fixed_cost_share(small, big), 8) == pytest.approx(affine[(32, 1)] / affine[(4, 8)])
    ns = run("07", "nb07-01")
    ns["speed"] = SimpleNamespace(result=_timings(affine))
    run("07", "nb07-15", namespace=ns)
    ns["speed"] = SimpleNamespace(result=_timings({split: 32 * c1 for split in affine}))
    with pytest.raises(AssertionError, match="c₀ > 0"):
        run("07", "nb07-15", namespace=ns)
    ns["speed"] = SimpleNamespace(result=_timings({**affine, (4, 8): affine[(32, 1)] / 1.3}))
    with pytest.raises(AssertionError, match="no faster than the real batch"):
        run("07", "nb07-15", namespace=ns)
    ns["speed"] = SimpleNamespace(result=_timings({**affine, (4, 8): affine[(1, 32)] * 1.1}))
    with pytest.raises(AssertionError, match="faster than 32 microbatches of 1"):
        run("07", "nb07-15", namespace=ns)
    with pytest.raises(ValueError):
        fixed_cost_share(big, small)


def test_07_dropout_makes_the_split_differ_and_the_library_says_why():
    """07 §1, dropout: by hand, dropout 0.1 split 4 × 4 differs from 16 × 1 from the same seed,
    dropout 0 does not; verify_one_update names the dropout modules, check_loop passes the loop
    with a note that it switched dropout off. The plain check fails when the masks line up: one
    dropout layer drawn from the same seed gives the split and the big batch the same masks."""
    ns = run("07", "nb07-01", "nb07-02p", "nb07-05e")
    assert ns["dropout_gap"][0.1] > 1e-2 and ns["dropout_gap"][0.0] < 1e-5
    with pytest.raises(AssertionError, match="dropout 0.1"):
        run("07", "nb07-05e", namespace=ns, replace=("net.net[1], net.net[4] = torch.nn.Dropout(p), torch.nn.Dropout(p)",
                                                     "net.net[1] = torch.nn.Dropout(p)"))
    run("07", "nb07-05e", "nb07-05g", namespace=ns)
    assert not ns["report"].passed and "net.1, net.4" in ns["report"].reasons[-1]
    assert ns["loop"].passed and any("dropout" in note and "2 places" in note for note in ns["loop"].notes)


def test_07_the_batchnorm_cells_by_hand_and_with_the_library():
    """07 §1: the plain BatchNorm/LayerNorm gaps and the library's verdict on bn-mlp (it names
    BatchNorm)."""
    ns = run("07", "nb07-01", "nb07-02p", "nb07-04l")
    assert ns["gaps_by_hand"]["bn-mlp"] > 1e-2 > 1e-5 > ns["gaps_by_hand"]["ln-mlp"]
    assert not ns["report"].passed

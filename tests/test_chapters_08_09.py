"""Chapters 08 and 09: the checks that replaced a slip can fail, and each says what makes it fail.

Each test runs a check cell of the English notebook from its own source (as
``tests/test_gpu_branches.py`` does), once with the measurement as this machine gives it, or as a
correct one would look, and once with a result that carries the slip the check is there to catch:
the cell must raise. What the slips were:

- 08 said ``is_causal=True`` alone keeps no T × T tensor; the math backend keeps m·h·T²
  probabilities either way (24,576 → 196,608 bytes for T = 16 → 64, measured here).
- 08's timing check was one-sided (``ratio >= 0.95``) and read the wall clock of a shared machine.
- 08's offload formula multiplied the source's *layers × sequence × hidden × bytes* by m without
  saying that the source has no m.
- 08 showed Transformers' extra switch on GPT-2, where the switched module changes nothing.
- 09's steady-state check compared the lab's rows with the lab's own rows.
- 09's planner check (``peak(m=1) > peak(m_max) ÷ B``) held for almost any measurement.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import torch

from gastudy.course import check, t
from gastudy.memory.planner import Candidate, MemoryPlan
from gastudy.memory.saved import FormulaCheck
from gastudy.memory.timeline import PhaseRow, Timeline
from gastudy.memory.timing import RunTiming, Timing

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CH08 = NOTEBOOKS / "08_checkpointing.ipynb"
CH09 = NOTEBOOKS / "09_memory_check_and_decide.ipynb"


def cell(path: Path, cell_id: str) -> str:
    return next(c.source for c in nbformat.read(path, as_version=4).cells if c.id == cell_id)


def run(path: Path, cell_id: str, **names) -> dict:
    """Execute one cell of the notebook at ``path`` with ``names`` (and check, t, torch) defined."""
    namespace = {"check": check, "t": t, "torch": torch, **names}
    exec(compile(cell(path, cell_id), f"{path.name}[{cell_id}]", "exec"), namespace)
    return namespace


class _Lab:
    def __init__(self, result, **values):
        self.result, self.values = result, values


# ----------------------------------------------------------------------------- 08 §1: attention backends
def test_08_attention_by_hand_measures_the_math_backend_quadratic_and_the_fused_kernel_linear():
    """The plain cells as they run here: the math backend keeps 24,576 → 196,608 bytes for
    T = 16 → 64 with is_causal=True, the CPU's fused flash kernel 8,704 → 34,816."""
    names = run(CH08, "nb08-sdpa")
    names = run(CH08, "nb08-sdpa-run", **names)
    kept = names["kept"]
    assert kept["math"] == {16: 24_576, 64: 196_608}
    if not torch.cuda.is_available():
        assert kept["flash"] == {16: 8_704, 64: 34_816} and names["ran"] == "flash"


def test_08_attention_check_fails_when_is_causal_alone_is_taken_to_drop_the_t_squared_tensor():
    """If every backend kept what the math backend keeps (is_causal=True with a T × T tensor), the
    check that the fused kernels grow at most linearly fails — and so does the claim that PyTorch
    picked one of them when the default is the math backend."""
    from torch.nn.attention import SDPBackend

    def all_math(T, backends, m=2, h=4, d=16):
        return 4 * m * h * T * T + 2 * 4 * m * h * T * d

    with pytest.raises(AssertionError, match="no T × T tensor"):
        run(CH08, "nb08-sdpa-run", attention_kept=all_math, SDPBackend=SDPBackend, device="cpu")

    def default_is_math(T, backends, m=2, h=4, d=16):  # the fused kernels linear, but never picked
        return all_math(T, backends) if isinstance(backends, list) or backends == SDPBackend.MATH else 544 * T

    with pytest.raises(AssertionError, match="PyTorch runs"):
        run(CH08, "nb08-sdpa-run", attention_kept=default_is_math, SDPBackend=SDPBackend, device="cpu")


# ----------------------------------------------------------------------------- 08 §3: a two-sided timing check
def _tradeoff(cpu: dict | None, wall_plain: float = 0.1, wall_every: float = 0.12):
    from gastudy.course.labs.checkpoint_lab import Tradeoff

    saved = {1: 10, 2: 20, 3: 30, 4: 40, None: 100}
    wall = {n: wall_plain + (n is not None) * (wall_every - wall_plain) for n in saved}
    runs = [RunTiming(8, 1, n, False, Timing(wall[n], 0.0, 0.0, 0.0, [wall[n]] * 3), b, 0) for n, b in saved.items()]
    return Tradeoff(runs, cpu)


@pytest.mark.parametrize("ratio,holds", [(1.3, True), (1.9, True), (0.8, False), (1.0, False), (2.4, False)])
def test_08_the_cost_of_checkpointing_is_checked_from_both_sides(ratio, holds):
    """Fails below 1× (checkpointing cannot do less work than no checkpointing) and at 2× or more
    (the recomputation adds one forward, which is less than a whole step) — in CPU seconds, which
    other programs on the machine do not inflate."""
    lab = _Lab(_tradeoff({None: [0.1, 0.11], 1: [0.1 * ratio, 0.2]}, wall_every=0.05))  # wall: a lucky 0.5×
    if holds:
        run(CH08, "nb08-10", tradeoff=lab)
    else:
        with pytest.raises(AssertionError, match="checkpointing every layer"):
            run(CH08, "nb08-10", tradeoff=lab)


def test_08_on_a_gpu_the_cost_check_reads_the_synchronized_wall_clock():
    run(CH08, "nb08-10", tradeoff=_Lab(_tradeoff(None, 0.1, 0.13)))
    with pytest.raises(AssertionError, match="checkpointing every layer"):
        run(CH08, "nb08-10", tradeoff=_Lab(_tradeoff(None, 0.1, 0.09)))


def test_cpu_seconds_times_both_settings_interleaved_and_checkpointing_costs_more():
    from gastudy.course.labs.checkpoint_lab import cpu_seconds, model_kwargs

    times = cpu_seconds((None, 1), micro_batch=2, seq_len=16, sizes=model_kwargs(32, 2, 16), rounds=3)
    assert set(times) == {None, 1} and all(len(ts) == 3 and min(ts) > 0 for ts in times.values())
    assert min(times[1]) > min(times[None])


# ----------------------------------------------------------------------------- 08 §4: the source's formula has no m
def _formula(measured: int) -> FormulaCheck:
    return FormulaCheck(checkpointed=4, micro_batch=4, sequence=64, hidden=128, bytes_per_element=4,
                        formula_bytes=measured - 16_384, measured_bytes=measured, mask_bytes=16_384,
                        offload=False, device="cpu", note="")


def test_08_the_source_formula_is_one_samples_share_and_the_check_holds_it_to_that():
    """Passes with the measurement (4 layers × 4 × 64 × 128 × 4 + the mask); fails if the layers
    kept what the source's formula says as written (layers × sequence × hidden × bytes, no m)."""
    run(CH08, "nb08-16", formula=_Lab(_formula(4 * 4 * 64 * 128 * 4 + 16_384)))
    with pytest.raises(AssertionError, match="one sample's share"):
        run(CH08, "nb08-16", formula=_Lab(_formula(4 * 64 * 128 * 4 + 16_384)))


def test_08_says_the_source_left_m_out():
    text = cell(CH08, "nb08-14")
    assert "layers × sequence × hidden × bytes_per_element" in text and "no batch size" in text


# ----------------------------------------------------------------------------- 08 §5: where the extra switch matters
def _rows(gaps: dict[int, int], flagged: list[str]):
    from gastudy.course.labs.checkpoint_lab import SwitchRow

    return [SwitchRow(n, [1], flagged, 1000 - gap, [1], [], 1000) for n, gap in gaps.items()]


def test_08_the_older_style_module_check_fails_where_the_flag_changes_nothing():
    """With no gap between Transformers and gastudy (the module's flag does nothing, as on GPT-2,
    or Transformers leaves it off) the check fails; so does a gap that follows every_n_layers."""
    pytest.importorskip("transformers")
    names = {"hf_cell": lambda _what: True, "mb": None}
    ok = _rows({1: 64, 2: 64, 4: 64}, ["transformer", "transformer.wte.1"])
    run(CH08, "nb08-19h", compare_switches=lambda *_: ok, **names)
    for gaps in ({1: 0, 2: 0, 4: 0}, {1: 64, 2: 32, 4: 16}):
        with pytest.raises(AssertionError, match="whatever every_n_layers asks"):
            rows = _rows(gaps, ["transformer", "transformer.wte.1"])
            run(CH08, "nb08-19h", compare_switches=lambda *_, rows=rows: rows, **names)


def test_transformers_extra_switch_changes_nothing_on_gpt2_and_the_same_bytes_on_an_older_style_model():
    pytest.importorskip("transformers")
    from gastudy.core.data import MicrobatchStream
    from gastudy.course.bridge import tiny_causal_lm
    from gastudy.course.datasets import AdditionDataset
    from gastudy.course.labs.checkpoint_lab import compare_switches, older_style_lm

    mb = next(iter(MicrobatchStream(AdditionDataset(4), 2)))
    gpt2 = compare_switches(tiny_causal_lm(layers=4), mb, (1, 4))
    assert all(r.hf_flagged_on == ["transformer"] and r.flagged_on == [] and r.hf_kept == r.kept for r in gpt2)
    older = older_style_lm(layers=4)
    rows = compare_switches(older, mb, (1, 2, 4))
    assert [r.layers for r in rows] == [r.hf_layers for r in rows] == [[1, 2, 3, 4], [1, 3], [1]]
    gaps = {r.kept - r.hf_kept for r in rows}
    assert len(gaps) == 1 and gaps.pop() > 0
    assert not older.transformer.wte[1].gradient_checkpointing  # both switched it off again
    assert older.lm_head.weight is older.transformer.wte[0].weight  # still tied


# ----------------------------------------------------------------------------- 09 §1: the steady state, counted by hand
P = 1000
W, G, ADAM = 4 * P, 4 * P, 8 * P + 4 * 3  # AdamW's state O, step counters of three tensors included
SAVED = 2500


def _timeline(state_in_steady: int) -> Timeline:
    """m, A = 2, 2 groups: the rows a correct lab writes, with ``state_in_steady`` bytes of
    optimizer state in the rows after the first update."""
    plan = [("baseline", "baseline", 0, 0, 0, 0), ("forward 1.1", "forward", 1, SAVED, 0, 0),
            ("backward 1.1", "backward", 1, 0, G, 0), ("forward 1.2", "forward", 1, SAVED, G, 0),
            ("backward 1.2", "backward", 1, 0, G, 0), ("update 1", "first update", 1, 0, G, ADAM),
            ("forward 2.1", "steady", 2, SAVED, 0, state_in_steady),
            ("backward 2.1", "steady", 2, 0, G, state_in_steady),
            ("forward 2.2", "steady", 2, SAVED, G, state_in_steady),
            ("backward 2.2", "steady", 2, 0, G, state_in_steady), ("update 2", "steady", 2, 0, G, state_in_steady)]
    rows = [PhaseRow(phase, stage, group, 0, W + saved + grad + opt + 100, saved, W, grad, opt)
            for phase, stage, group, saved, grad, opt in plan]
    return Timeline(rows, "cpu", "test", 0, 2, 2)


def test_09_the_steady_state_is_checked_against_the_plain_count_of_torch_optim_state():
    """Passes when the lab's rows hold AdamW's O bytes; fails when they hold half of it (one
    moment counted) — rows that agree with themselves, which the old check accepted."""
    from gastudy.course.labs.memory_lab import first_update_row

    names = {"first_update_row": first_update_row, "P": P, "adam_state": ADAM}
    run(CH09, "nb09-04", timeline=_Lab(_timeline(ADAM), optimizer="adamw"), **names)
    with pytest.raises(AssertionError, match="the plain count"):
        run(CH09, "nb09-04", timeline=_Lab(_timeline(4 * P), optimizer="adamw"), **names)


def test_09_the_plain_cell_counts_adamw_state_as_derived():
    from gastudy.course.labs.checkpoint_lab import model_kwargs
    from gastudy.course.models import build_model

    names = run(CH09, "nb09-plain", build_model=build_model, model_kwargs=model_kwargs)
    P_, state = names["P"], names["adam_state"]
    assert state == 8 * P_ + 4 * len(names["optimizer"].state) and names["G"] == 4 * P_


# ----------------------------------------------------------------------------- 09 §2: the peak cannot fall below 16P
def _plan(peak_at_1: int) -> MemoryPlan:
    from gastudy.core.plan import plan_from_target

    candidates = [Candidate(m, 16 // m, peak, 0, peak <= 24 * 2**20)
                  for m, peak in ((16, 26 * 2**20), (8, 20 * 2**20), (4, 16 * 2**20), (2, 15 * 2**20), (1, peak_at_1))]
    return MemoryPlan(24 * 2**20, 16, 1, candidates, plan_from_target(16, 8, 1), 0, "")


def test_09_the_planner_check_fails_for_a_peak_that_misses_the_fixed_part():
    """A measured m = 1 peak below 16 bytes per parameter (weights, gradients, AdamW's moments) —
    e.g. a measurement of the first forward only — fails; the old check (above peak(16) ÷ 16) let
    it pass."""
    from gastudy.course.labs.checkpoint_lab import model_kwargs
    from gastudy.course.models import build_model, parameter_count

    names = {"build_model": build_model, "parameter_count": parameter_count, "model_kwargs": model_kwargs}
    fixed = 16 * parameter_count(build_model("tiny-gpt", **model_kwargs(128)))
    run(CH09, "nb09-10", planner=_Lab(_plan(fixed + 2**20), hidden=128, optimizer="adamw"), **names)
    missed = 4 * fixed // 16 + 2**20  # weights and activations only
    assert missed > 26 * 2**20 / 16  # what the old check asked
    with pytest.raises(AssertionError, match="cannot fall in proportion"):
        run(CH09, "nb09-10", planner=_Lab(_plan(missed), hidden=128, optimizer="adamw"), **names)


# ----------------------------------------------------------------------------- the words
def _prose(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    strings = [c.source for c in nb.cells if c.cell_type == "markdown"]
    strings += [s for c in nb.cells if c.cell_type == "code" for s in re.findall(r'"[^"\n]*"', c.source)]
    return "\n".join(strings)


def test_08_and_09_use_the_notation_table():
    """n is not every_n_layers, k is not a count of layers, S is not optimizer state, and the samples
    per update are B, not a 'target': the symbols of chapter 00's table keep one meaning."""
    for path in (CH08, CH09):
        text = _prose(path)
        assert not re.search(r"(?<![\w`.])n\s*=\s*\d|every n-th|\bk/L\b|\bk of the L\b", text), path.name
    assert "target ÷" not in _prose(CH09) and not re.search(r"\bS\s*=", _prose(CH09))  # S: samples


def test_08_never_says_is_causal_alone_keeps_no_t_by_t_tensor():
    """Wherever chapter 08 or its questionnaire mentions is_causal, it names the backend or kernel."""
    from gastudy.course.questionnaires.ch08 import questions

    texts = [c.source for c in nbformat.read(CH08, as_version=4).cells if c.cell_type == "markdown"]
    texts += [q.explanation for q in questions()]
    for text in texts:
        for sentence in re.split(r"(?<=[.:;])\s", text):
            if "is_causal" in sentence and "keeps" in sentence:
                assert re.search(r"backend|kernel", sentence), sentence

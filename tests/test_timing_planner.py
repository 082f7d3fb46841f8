"""Timing harness (GA-2, CK-2) and the memory-budget planner (MB-9). No timing assertions:
speed claims belong to benchmarks/bench_checkpointing.py."""

import pytest
import torch

from gastudy.core.plan import PlanError
from gastudy.memory.planner import PeakMeasurement, candidate_micro_batches, plan_for_budget
from gastudy.memory.timing import (
    compare_checkpointing,
    compare_layouts,
    time_configuration,
    time_update,
)

SMALL = {"hidden": 32, "layers": 4, "heads": 2}
FAST = dict(model_kwargs=SMALL, seq_len=16, warmup=0, repeats=1)


def test_time_update_counts_calls_and_derives_rates():
    calls = []
    t = time_update(lambda: calls.append(1), warmup=2, repeats=3, samples=32, tokens=1024)
    assert len(calls) == 5 and len(t.times_s) == 3
    assert t.median_s > 0 and t.spread >= 0
    assert t.samples_per_s == pytest.approx(32 / t.median_s) and t.tokens_per_s == pytest.approx(1024 / t.median_s)
    with pytest.raises(ValueError, match="repeats"):
        time_update(lambda: None, repeats=0)


def test_compare_layouts_keeps_the_samples_per_update():
    runs = compare_layouts([(1, 4), (2, 2), (4, 1)], **FAST)
    assert [(r.micro_batch, r.accumulation_steps) for r in runs] == [(1, 4), (2, 2), (4, 1)]
    assert {r.effective_batch for r in runs} == {4}
    assert all(r.timing.median_s > 0 and r.timing.samples_per_s > 0 and r.timing.tokens_per_s > 0 for r in runs)
    assert 3.0 <= runs[2].saved_bytes / runs[0].saved_bytes <= 5.0  # activations follow m, not m×A
    with pytest.raises(ValueError, match="different m×A"):
        compare_layouts([(1, 4), (2, 4)], **FAST)


def test_compare_checkpointing_saved_bytes_fall_with_n():
    runs = compare_checkpointing((None, 4, 2, 1), micro_batch=2, accumulation_steps=1, **FAST)
    saved = [r.saved_bytes for r in runs]
    assert saved == sorted(saved, reverse=True) and saved[-1] < saved[0] / 3
    assert [r.label for r in runs][0] == "2×1 ckpt off"


def test_training_state_is_not_shared_between_configurations():
    a = time_configuration(micro_batch=2, accumulation_steps=2, **FAST)
    b = time_configuration(micro_batch=2, accumulation_steps=2, **FAST)
    assert a.saved_bytes == b.saved_bytes  # same seed, same samples: identical activations


def fake_measure(fixed, per_sample):
    seen = []

    def measure(m, a):
        seen.append((m, a))
        return PeakMeasurement(fixed + m * per_sample, fixed, m * per_sample, m, a, "cpu", "fake")

    return measure, seen


@pytest.mark.parametrize("replicas", [1, 2, 4])
def test_planner_keeps_the_effective_batch_on_target(replicas):
    measure, seen = fake_measure(fixed=100, per_sample=10)
    plan = plan_for_budget(budget_bytes=185, target_effective_batch=32, replicas=replicas, measure=measure)
    assert sorted(m for m, _ in seen) == candidate_micro_batches(32, replicas)
    assert all(m * a * replicas == 32 for m, a in seen)
    assert plan.micro_batch == 8 and plan.accumulation_steps * 8 * replicas == 32
    assert plan.chosen.effective_batch == 32
    assert [c.fits for c in plan.candidates] == [c.peak_bytes <= 185 for c in plan.candidates]
    assert "m=8" in plan.verdict and "fits" in plan.verdict


def test_planner_says_accumulation_cannot_help_when_fixed_state_dominates():
    measure, _ = fake_measure(fixed=1000, per_sample=1)
    plan = plan_for_budget(900, 16, measure=measure)
    assert plan.chosen is None and plan.micro_batch is None
    assert "cannot help" in plan.verdict and "optimizer" in plan.verdict
    near, _ = fake_measure(fixed=800, per_sample=5)
    plan = plan_for_budget(830, 16, measure=near)
    assert plan.micro_batch == 4 and "barely helps" in plan.verdict


def test_planner_suggests_checkpointing_when_one_sample_is_too_big():
    measure, _ = fake_measure(fixed=100, per_sample=1000)
    plan = plan_for_budget(500, 8, measure=lambda m, a: measure(m, a))
    assert plan.chosen is None and "checkpointing" in plan.verdict and "cannot help" not in plan.verdict


def test_planner_accepts_tuples_and_validates_inputs():
    plan = plan_for_budget(50, 4, candidates=[1, 4], measure=lambda m, a: (10 * m, 5))
    assert plan.micro_batch == 4 and [c.micro_batch for c in plan.candidates] == [4, 1]
    with pytest.raises(PlanError, match="not a multiple"):
        plan_for_budget(50, 8, candidates=[3], measure=lambda m, a: (1, 1))
    with pytest.raises(PlanError):
        plan_for_budget(50, 9, replicas=2, measure=lambda m, a: (1, 1))
    with pytest.raises(PlanError):
        plan_for_budget(0, 8, measure=lambda m, a: (1, 1))


def test_planner_measures_for_real_by_default():
    plan = plan_for_budget(2**40, 4, model="tiny-gpt", seq_len=16, model_kwargs=SMALL, groups=1)
    assert plan.micro_batch == 4 and plan.accumulation_steps == 1
    assert all(c.peak_bytes > 0 and c.fixed_bytes > 0 for c in plan.candidates)
    assert [c.micro_batch * c.accumulation_steps for c in plan.candidates] == [4, 4, 4]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_timing_with_offload():
    runs = compare_checkpointing((None, 1), offload=True, device="cuda", micro_batch=2, accumulation_steps=2, **FAST)
    assert runs[1].offload and runs[1].saved_bytes < runs[0].saved_bytes
    assert all(r.peak_bytes > 0 for r in runs)


def test_progress_is_reported_from_zero_towards_one():
    from gastudy.memory.timing import compare_layouts

    seen = []
    compare_layouts(((2, 2), (4, 1)), repeats=2, warmup=0, seq_len=8,
                    model_kwargs={"hidden": 16, "layers": 1, "heads": 2},
                    progress=lambda f, note: seen.append((round(f, 3), note)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] < 1.0
    assert [n for _, n in seen] == ["preparing 1 of 2", "preparing 2 of 2", "timing, round 1 of 2",
                                    "timing, round 2 of 2"]

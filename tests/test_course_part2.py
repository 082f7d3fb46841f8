"""Labs of the course's part 2 (chapters 06–12), driven headless: set controls, read results."""

from __future__ import annotations

import math

import pytest
import torch

from gastudy.exercises import check_exercise

# ----------------------------------------------------------------------------- 07 (MB-8, GA-2)


def test_normalization_lab_batchnorm_gap_layernorm_exact():
    from gastudy.course.experiment import NormalizationLab

    lab = NormalizationLab(micro_batch=2, accumulation_steps=2)
    gaps = lab.result.gaps
    assert gaps["ln-mlp"] < 1e-5 and gaps["mlp"] < 1e-5
    assert gaps["bn-mlp"] > 1e-2
    assert lab.result.bn_gap_by_m == pytest.approx({2: gaps["bn-mlp"], 4: 0.0})
    lab.controls["accumulation_steps"].value = 1  # one microbatch = the big batch: BatchNorm matches too
    assert lab.result.gaps["bn-mlp"] == 0.0


def test_normalization_lab_rejects_single_sample_batchnorm():
    from gastudy.course.experiment import norm_gap

    with pytest.raises(ValueError, match="at least 2 samples"):
        norm_gap(1, 4)


def test_rounding_lab_sizes_per_precision():
    from gastudy.course.experiment import RoundingLab

    lab = RoundingLab(micro_batch=2, accumulation_steps=2, updates=5)
    one, drift = lab.result.one_update, lab.result.drift
    assert one["fp64"] < 1e-12 < one["fp32"] < 1e-4 < one["bf16"] < 5e-2
    assert 0 <= drift["fp64"] < 1e-9 < drift["fp32"]
    lab.controls["accumulation_steps"].value = 1  # same split both ways: identical bits
    assert lab.result.one_update["fp32"] == 0.0 and lab.result.drift["fp32"] == 0.0


def test_updates_per_epoch_counted_on_the_stream():
    from gastudy.course.experiment import UpdatesPerEpochLab

    lab = UpdatesPerEpochLab(dataset_size=1000, micro_batch=8)
    assert [(r.plan.effective_batch, r.updates, r.partial_samples) for r in lab.result] == [
        (8, 125, 0), (16, 63, 8), (32, 32, 8), (64, 16, 40), (128, 8, 104)]
    lab.controls["last_group"].value = "drop"
    assert [r.updates for r in lab.result] == [125, 62, 31, 15, 7]
    assert all(r.updates == r.formula for r in lab.result)
    lab.controls["replicas"].value = 2  # 500 samples per replica: 63 microbatches, the last of 4 samples
    assert [r.updates for r in lab.result] == [63, 31, 15, 7, 3]


def test_throughput_lab_same_samples_three_splits():
    from gastudy.course.experiment import ThroughputLab, best_samples_per_s

    lab = ThroughputLab(hidden=64, seq_len=16, repeats=3)
    assert [(r.micro_batch, r.accumulation_steps) for r in lab.result] == [(32, 1), (4, 8), (1, 32)]
    big, mid, small = lab.result
    assert big.saved_bytes > mid.saved_bytes > small.saved_bytes  # exact bytes, not timings
    assert all(len(r.timing.times_s) == 3 and best_samples_per_s(r) > 0 for r in lab.result)
    assert torch.get_num_threads() >= 1  # the lab restores the thread count


def test_steady_timing_restores_threads():
    from gastudy.course.experiment import steady_timing

    before = torch.get_num_threads()
    with steady_timing("cpu"):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_ch07_exercises(capsys):
    assert check_exercise("07.1", None) is False
    assert check_exercise("07.1", math.ceil(1000 / 48)) is True
    assert check_exercise("07.1", 1000 // 48) is False
    assert "drops the short last group" in capsys.readouterr().out
    assert check_exercise("07.3", 20) is True and check_exercise("07.3", 10) is False

"""The transformers Trainer in the corpus: check_trainer's verdicts on the set-ups people run
(tests/corpus/trainers.py), on one process and on two (average_tokens_across_devices)."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from gastudy.hf import check_trainer  # noqa: E402
from tests.corpus import trainers as T  # noqa: E402


def test_the_default_trainer_with_its_clipping_passes():
    report = check_trainer(T.default_trainer())
    assert report.passed and report.precision == "float32" and report.clip["fired"], str(report)


def test_float64_weights_are_judged_by_the_float32_loss_they_compute():
    """GPT-2's loss upcasts (here: casts) the logits to float32: the update is right to float32
    rounding, and the reference computed the same way agrees to ~1e-16."""
    report = check_trainer(T.float64_trainer())
    assert report.passed, str(report)
    assert report.precision == "float64 weights, float32 loss" and report.tolerance == 1e-5
    assert report.rel_error < 1e-13


def test_compute_loss_func_summed_over_num_items_passes_and_a_mean_is_the_steps_bias():
    assert check_trainer(T.compute_loss_func_trainer()).passed
    report = check_trainer(T.mean_loss_func_trainer())
    assert report.symptom == "partition dependence" and report.normalization == "sum of means", str(report)


def test_loss_is_scaled_for_ga_both_ways():
    assert check_trainer(T.declared_scaled_trainer()).passed
    means = check_trainer(T.declared_scaled_trainer(T.MeanDeclaredScaled))
    assert means.symptom == "partition dependence" and means.normalization == "sum of means"
    twice = check_trainer(T.declared_unscaled_trainer())
    assert twice.symptom == "double division" and "loss_is_scaled_for_ga = True" in twice.message


@pytest.mark.slow
def test_two_processes_average_tokens_across_devices():
    """Each process builds the Trainer; its DistributedSampler splits the data, its DDP averages:
    with average_tokens_across_devices (the default) the global update is the big batch, without it
    every rank divides by its own count."""
    report = check_trainer(T.default_trainer, replicas=2)
    assert report.passed and report.replicas == 2 and report.microbatches == 2 * T.A, str(report)
    per_rank = check_trainer(T.per_device_tokens_trainer, replicas=2)
    assert per_rank.symptom == "partition dependence" and per_rank.normalization == "per replica", str(per_rank)
    assert len(set(per_rank.evidence["num_items_in_batch_per_rank"])) == 2


def test_replicas_need_a_factory():
    with pytest.raises(TypeError, match="pass a function that builds your Trainer"):
        check_trainer(T.default_trainer(), replicas=2)

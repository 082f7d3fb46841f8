"""Your data-parallel loop on 2 processes (check_loop(..., replicas=2)): the global update judged.

The loops live in tests/corpus/ddp_loops.py (worker processes import them by name); nanoGPT's
``require_backward_grad_sync`` toggle comes from gastudy.course.nanogpt.
"""

from __future__ import annotations

import pytest
import torch

from gastudy import check_loop
from gastudy.check.loop import TrainStepError
from gastudy.course.nanogpt import (
    GPT,
    GPTConfig,
    NanoGPTStep,
    configure_optimizers,
    fixed_blocks,
    variable_blocks,
)
from tests.corpus import ddp_loops as L
from tests.helpers import addition_microbatches, tiny_gpt

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def microbatches():
    mbs = addition_microbatches(16, 2)[:8]  # 2 replicas × A = 4 microbatches, variable lengths
    assert len({int((mb["labels"][:, 1:] != -100).sum()) for mb in mbs}) > 1
    return mbs


def test_the_global_denominator_with_no_sync_passes_and_syncs_once(microbatches):
    report = check_loop(L.global_denominator, tiny_gpt(), microbatches, replicas=2, optimizer=L.sgd)
    assert report.passed and report.replicas == 2 and report.microbatches == 8, str(report)
    assert report.rel_error < 1e-12 and report.evidence["replica_spread"] == 0.0
    assert report.evidence["allreduce_backwards"] == [1, 1] and not report.warnings


def test_a_per_replica_denominator_is_named(microbatches):
    report = check_loop(L.per_replica_denominator, tiny_gpt(), [microbatches[:4], microbatches[4:]], replicas=2)
    assert report.symptom == "partition dependence" and report.normalization == "per replica"
    assert "divide each rank's summed loss by the global N" in report.message
    assert "ddp_loops.py" in report.where and "(s / N).backward()" in report.where


def test_ddps_mean_not_cancelled_is_a_division_by_d(microbatches):
    report = check_loop(L.forgets_the_replicas, tiny_gpt(), microbatches, replicas=2)
    assert report.symptom == "double division" and "(= D, the 2 replicas)" in report.message
    assert report.evidence["explained"]["k"] == pytest.approx(2.0, rel=1e-9)


def test_no_sync_around_the_backward_only_is_right_but_syncs_every_time(microbatches):
    report = check_loop(L.no_sync_around_backward_only, tiny_gpt(), microbatches, replicas=2)
    assert report.passed and report.evidence["allreduce_backwards"] == [4, 4]
    assert len(report.warnings) == 1 and report.warnings[0].startswith("no_sync had no effect")
    assert "⚠ no_sync had no effect" in str(report)


def test_replicas_that_never_sync_disagree(microbatches):
    report = check_loop(L.never_syncs, tiny_gpt(), microbatches, replicas=2)
    assert report.symptom == "replicas disagree" and report.evidence["allreduce_backwards"] == [0, 0]
    assert report.evidence["replica_spread"] > 0.1


def test_nanogpts_sync_toggle_on_two_processes():
    """nanoGPT's train.py sets model.require_backward_grad_sync on the last micro-step only: one
    all-reduce per update; exact on fixed blocks, the steps normalization on variable lengths."""
    torch.manual_seed(0)
    model = GPT(GPTConfig(block_size=64, vocab_size=256, n_layer=2, n_head=2, n_embd=64))
    kwargs = dict(replicas=2, task="masked", labels="targets", ignore_index=-1, optimizer=configure_optimizers)
    fixed = check_loop(NanoGPTStep("float32", 1.0), model, fixed_blocks(8, 2, 64, 256), **kwargs)
    assert fixed.passed and fixed.evidence["allreduce_backwards"] == [1, 1] and not fixed.warnings, str(fixed)
    varied = check_loop(NanoGPTStep("float32", 1.0), model, variable_blocks(8, 2, 64, 256), **kwargs)
    assert varied.symptom == "partition dependence" and varied.normalization == "steps"
    assert "A·D = 4·2" in varied.message


def test_bad_input_for_replicas(microbatches):
    with pytest.raises(ValueError, match="cannot be split over 3 replicas"):
        check_loop(L.global_denominator, tiny_gpt(), microbatches, replicas=3)
    with pytest.raises(ValueError, match="pass 2 lists of the same length"):
        check_loop(L.global_denominator, tiny_gpt(), [microbatches[:4], microbatches[4:7]], replicas=2)
    with pytest.raises(ValueError, match="replicas must be a positive int"):
        check_loop(L.global_denominator, tiny_gpt(), microbatches, replicas=0)

    def local(model, optimizer, microbatches):
        pass

    with pytest.raises(ValueError, match="worker processes cannot import it"):
        check_loop(local, tiny_gpt(), microbatches, replicas=2)
    with pytest.raises(ValueError, match="the optimizer factory cannot be sent"):
        check_loop(L.global_denominator, tiny_gpt(), microbatches, replicas=2,
                   optimizer=lambda m: torch.optim.SGD(m.parameters(), lr=0.1))
    with pytest.raises(TrainStepError, match="rank 0"):
        check_loop(L.raises, tiny_gpt(), microbatches, replicas=2)

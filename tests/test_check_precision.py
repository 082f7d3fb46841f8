"""The precision a loop really computed in, wherever it entered autocast (issue: autocast outside the
model's top-level forward). The tolerance follows what the graphs show, so a bf16 update is judged
against bf16 rounding, and a slip is still caught in that precision (tests/corpus/precision.py)."""

from __future__ import annotations

import logging

import pytest
import torch
import torch.nn.functional as F

from gastudy import check_loop
from gastudy.check.trace import product_dtypes, trace_loop
from gastudy.course import nanogpt
from tests.corpus import frameworks as fw
from tests.corpus import precision as pc


@pytest.fixture(scope="module", autouse=True)
def quiet():
    import transformers

    level, verbosity = logging.getLogger("accelerate").level, transformers.logging.get_verbosity()
    logging.getLogger("accelerate").setLevel(logging.ERROR)
    transformers.logging.set_verbosity_error()
    yield
    logging.getLogger("accelerate").setLevel(level)
    transformers.logging.set_verbosity(verbosity)


# --------------------------------------------------------------------------- the graph's products
def test_product_dtypes_counts_what_the_matmuls_produced_not_what_the_weights_are():
    torch.manual_seed(0)
    lin, x = torch.nn.Linear(4, 3), torch.randn(2, 4)
    assert product_dtypes([lin(x).sum()]) == {torch.float32: 1}
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = lin(x)
    assert product_dtypes([y.float().sum()]) == {torch.bfloat16: 1}  # autocast, read after it ended
    by_hand = F.linear(x.to(torch.float16), lin.weight.to(torch.float16)) @ torch.ones(3, 2, dtype=torch.float16)
    assert product_dtypes([by_hand.sum()]) == {torch.float16: 2}     # a cast by hand counts the same
    assert product_dtypes([torch.ones(2, requires_grad=True).sum()]) == {}  # no product: nothing seen


def test_the_trace_reads_autocast_entered_around_a_submodule():
    model = pc.WithHead()
    (batch,) = nanogpt.fixed_blocks(1, 2, 16, 256)
    with trace_loop(model) as trace:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            _, loss = model.gpt(batch["idx"], batch["targets"])  # the model's own forward never runs
        loss.backward()
    assert trace.forward_autocast == []  # a hook on the model would have seen nothing
    assert trace.autocast == torch.bfloat16 and trace.compute_dtype == torch.bfloat16
    assert trace.matmul_dtypes[torch.bfloat16] >= 2 * 4  # every linear of both blocks, and the head
    with trace_loop(model) as plain:
        model.gpt(batch["idx"], batch["targets"])[1].backward()
    assert plain.autocast is None and plain.compute_dtype == torch.float32


def test_a_float64_model_under_no_autocast_is_float64():
    model = nanogpt.small_gpt().double()
    (batch,) = nanogpt.fixed_blocks(1, 2, 16, 256)
    with trace_loop(model) as trace:
        model(batch["idx"], batch["targets"])[1].backward()
    assert trace.autocast is None and trace.compute_dtype == torch.float64


# --------------------------------------------------------------------------- the loops
def test_nanogpt_through_a_submodule_is_judged_in_bf16_and_passes():
    batches = nanogpt.fixed_blocks(4, 2, 64, 256)
    report = check_loop(pc.nanogpt_submodule_step, pc.WithHead(), batches, forward=pc.gpt_forward,
                        **nanogpt.CHECK_ARGS)
    assert report.passed, report
    assert report.precision == "bf16 autocast" and report.tolerance == pytest.approx(2e-2)
    assert 1e-4 < report.rel_error < 2e-2  # bf16 rounding, far above float32's 1e-5
    assert report.clip["fired"]
    slipped = check_loop(pc.nanogpt_submodule_divided_twice, pc.WithHead(), batches, forward=pc.gpt_forward,
                         **nanogpt.CHECK_ARGS)
    assert not slipped.passed and slipped.symptom == "double division" and slipped.precision == "bf16 autocast"
    assert slipped.evidence["explained"]["k"] == pytest.approx(4.0, rel=2e-2)


@pytest.mark.parametrize("step", [pc.chunked_head_step, pc.liger_style_step])
def test_a_backbone_and_chunked_head_loop_is_judged_in_bf16_and_passes(step):
    batches = fw.lm_microbatches(fw.VARIABLE_LENGTHS)
    report = check_loop(step, pc.tiny_llama(), batches)
    assert report.passed, report
    assert report.precision == "bf16 autocast" and 1e-4 < report.rel_error < report.tolerance == 2e-2


def test_the_chunked_head_mean_of_means_is_still_caught_in_bf16():
    batches = fw.lm_microbatches(fw.VARIABLE_LENGTHS)
    report = check_loop(pc.chunked_head_mean_of_means, pc.tiny_llama(), batches)
    assert not report.passed and report.symptom == "partition dependence" and report.normalization == "steps"
    assert report.precision == "bf16 autocast" and report.rel_error > 5 * report.tolerance


def test_accelerate_bf16_wraps_forward_in_autocast_and_is_judged_in_bf16():
    step = pc.accelerate_mixed_precision("bf16")
    report = check_loop(step, fw.tiny_gpt2(), fw.lm_microbatches(fw.FIXED_LENGTHS), optimizer=fw.run_clm_optimizer,
                        scheduler=pc.linear_schedule)
    assert step.native_amp  # the real Accelerator did wrap the forward in autocast
    assert report.passed, report
    assert report.precision == "bf16 autocast" and 1e-4 < report.rel_error < 2e-2 and report.scheduler_steps == 1
    slipped = pc.accelerate_mixed_precision("bf16", divide_again=True)
    wrong = check_loop(slipped, fw.tiny_gpt2(), fw.lm_microbatches(fw.FIXED_LENGTHS), optimizer=fw.run_clm_optimizer,
                       scheduler=pc.linear_schedule)
    assert not wrong.passed and wrong.symptom == "double division" and wrong.precision == "bf16 autocast"


def test_accelerate_fp16_on_the_cpu_computes_in_float32_and_is_judged_so():
    step = pc.accelerate_mixed_precision("fp16")
    report = check_loop(step, fw.tiny_gpt2(), fw.lm_microbatches(fw.FIXED_LENGTHS), optimizer=fw.run_clm_optimizer,
                        scheduler=pc.linear_schedule)
    assert step.native_amp is False  # Accelerate turns fp16 autocast off on the CPU
    assert report.passed and report.precision == "float32" and report.rel_error < 1e-5

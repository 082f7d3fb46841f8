"""The verification kernel (gastudy.check.trace / reference / judge): what a loop did, the big batch in
its precision, and the one metric, tolerance model and explainer every checker uses."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_

from gastudy.check import judge as J
from gastudy.check.reference import (
    BASE_TOLERANCE,
    ComputePrecision,
    Reference,
    norm,
    precision_of,
    rel_error,
)
from gastudy.check.trace import trace_loop
from tests.helpers import addition_microbatches, group_of, tiny_gpt


def loss_of(model, mb):
    logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
    return F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum")


# --------------------------------------------------------------------------- the metric and the fits
def test_one_metric_is_the_relative_l2_error_in_float64_and_never_writes_its_inputs():
    a = torch.tensor([3.0, 4.0], dtype=torch.float64)
    b = torch.tensor([3.0, 0.0], dtype=torch.float64)
    kept = a.clone()
    assert rel_error(a, b) == pytest.approx(4 / 3) and norm(a, b) == 4.0 and norm(a) == 5.0
    assert torch.equal(a, kept)
    assert rel_error(torch.zeros(2), torch.zeros(2)) == 0.0
    big = torch.randn(3 * 2**20 + 5, dtype=torch.float32)  # more than one float64 chunk
    assert norm(big) == pytest.approx(float(big.double().norm()), rel=1e-12)


def test_scale_fit_finds_k_and_an_exact_residual():
    ref = torch.randn(1000, dtype=torch.float64)
    k, residual = J.scale_fit(ref / 4, ref)
    assert k == pytest.approx(4.0, rel=1e-14) and residual < 1e-15
    k, residual = J.scale_fit(ref / 4 + 1e-3 * torch.randn(1000, dtype=torch.float64), ref)
    assert 1e-4 < residual < 1e-2
    assert J.scale_fit(-ref, ref) == (math.inf, 1.0)


@pytest.mark.parametrize("k, kwargs, words", [
    (4.0, {}, "then again by A"),
    (41 / 37, {"unshifted_extra": 4}, "4 extra, one per row whose first label is supervised"),
    (2.0, {"replicas": 2, "accumulation_steps": 8, "microbatches": 8}, "(= D, the 2 replicas)"),
    (0.25, {}, "normalized on its own and the contributions are added"),
    (3.0, {}, "implied denominator 111 instead of N = 37"),
    (1 / 37, {}, "larger than the big-batch gradient"),
    (1 / 37, {}, "objective='sum'"),
    (4 / 3, {"microbatches": 3, "items": 90}, "divided by a constant 4 on a group of 3 microbatches"),
    (4 / 3, {"microbatches": 3, "items": 90}, "the denominator is 120 items instead of N = 90"),
    (4.0, {"microbatches": 3, "items": 90}, "then again by a constant 4 — the configured A, on a short group"),
])
def test_name_rescaling_says_what_a_rescaled_gradient_means(k, kwargs, words):
    args = {"accumulation_steps": 4, "microbatches": 4, "items": 37, **kwargs}
    _, what, fix = J.name_rescaling(k, **args)
    assert words in what + fix


def test_name_rescaling_names_the_symptom_and_gives_the_fp16_hint_only_where_it_can_apply():
    assert J.name_rescaling(4 / 3, accumulation_steps=3, microbatches=3, items=90)[0] == "constant divisor"
    assert J.name_rescaling(4.0, accumulation_steps=4, microbatches=4, items=90)[0] == "double division"
    assert J.name_rescaling(0.25, accumulation_steps=4, microbatches=4, items=90)[0] == "missing division"
    args = {"accumulation_steps": 4, "microbatches": 4, "items": 37}
    assert "unscale_" in J.name_rescaling(3.0, **args, clipped_scaled=True)[2]
    assert "unscale_" in J.name_rescaling(3.0, **args)[2]  # not known (a detector): named as a possibility
    assert "unscale_" not in J.name_rescaling(3.0, **args, clipped_scaled=False)[2]
    assert [J.short_group_divisor(k, 3) for k in (4 / 3, 5 / 3, 2.0, 7 / 3, 1.0)] == [4, 5, 6, None, None]


def test_times_never_prints_1x_for_a_factor_near_one():
    assert J.times(1.004) == "1.00400×" and J.times(4.0) == "4.00×" and J.times(46967.2) == "46,967×"


# --------------------------------------------------------------------------- the tolerance model
def test_the_tolerance_follows_the_measured_floor_of_the_narrowest_dtype():
    fp32, bf16 = ComputePrecision(torch.float32), ComputePrecision(torch.float32, torch.bfloat16, torch.float32)
    assert J.tolerance(fp32, 1e-7) == BASE_TOLERANCE[torch.float32] == 1e-5   # floor × 4 below the base
    assert J.tolerance(fp32, 5e-5) == pytest.approx(2e-4)                       # a noisy model widens it
    assert J.tolerance(fp32, 1.0) == 1e-5  # far above rounding: the model differs for real, not used
    assert J.tolerance(bf16, 2e-3) == 2e-2 and bf16.label == "bf16 autocast"
    f64_f32_loss = ComputePrecision(torch.float64, None, torch.float32)
    assert f64_f32_loss.label == "float64 weights, float32 loss" and J.tolerance(f64_f32_loss, None) == 1e-5
    assert ComputePrecision(torch.float32, torch.float16, torch.float32, scaler=True).label == \
        "fp16 autocast + GradScaler"
    assert J.tolerance(fp32, 1e-7, given=3e-3) == 3e-3
    for bad in (0, -1.0, "1e-3", math.nan, math.inf, True):
        with pytest.raises(ValueError, match="tolerance must be a positive relative error"):
            J.tolerance(fp32, None, given=bad)


def test_a_round_norm_is_recognised_within_what_a_clip_leaves():
    assert J._round(0.1 * 0.9999999) == pytest.approx(0.1) and J._round(1.0) == 1.0 and J._round(2.5) == 2.5
    assert J._round(0.1234) is None and J._round(0.0) is None and J._round(math.nan) is None


# --------------------------------------------------------------------------- the trace
def test_the_trace_sees_backward_dtypes_autocast_clips_scaler_and_zero_grad_with_their_lines():
    model = tiny_gpt(torch.float32)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    mbs = addition_microbatches(8, 2)[:4]
    scaler = torch.amp.GradScaler("cpu")
    with trace_loop(model, opt, user_files=[__file__], user_globals=[globals()]) as trace:
        opt.zero_grad()
        for mb in mbs:
            with torch.autocast("cpu", dtype=torch.float16):
                loss = loss_of(model, mb) / 40
            scaler.scale(loss).backward()
        scaler.unscale_(opt)
        clip_grad_norm_(model.parameters(), 0.01)  # imported by name: still seen
        scaler.step(opt)
        scaler.update()
    assert trace.backwards == 4 and trace.loss_dtype == torch.float32 and trace.autocast == torch.float16
    assert [e.what for e in trace.events] == ["zero_grad", "unscale", "scaler step", "scaler update"]
    assert trace.events[0].backward == 0 and trace.events[1].detail["scale"] == 65536.0
    (clip,) = trace.clips
    assert clip.kind == "norm" and clip.max_norm == 0.01 and clip.backward == 4 and not clip.scaled and clip.fired
    assert clip.where.startswith("test_check_kernel.py:") and "clip_grad_norm_(model.parameters(), 0.01)" in clip.where
    assert len(trace.steps) == 1 and trace.step_backward == [4] and not trace.skipped_steps()
    assert "scaler.step(opt)" in trace.step_where[0]
    assert "scaler.scale(loss).backward()" in trace.backward_where[-1]
    # everything is put back
    assert torch.nn.utils.clip_grad_norm_ is clip_grad_norm_ and globals()["clip_grad_norm_"] is clip_grad_norm_
    assert "step" not in vars(torch.amp.GradScaler) or torch.amp.GradScaler.step.__name__ == "step"


def test_the_trace_records_a_skipped_fp16_step():
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with trace_loop(model, opt) as trace:
        scaler.scale(model(torch.tensor([[math.inf, 1.0]])).sum()).backward()
        scaler.step(opt)
        scaler.update()
    assert trace.steps == [] and len(trace.skipped_steps()) == 1


def test_a_backward_inside_the_steps_closure_is_captured_after_it():
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    x = torch.ones(1, 2)

    def closure():
        model(x).sum().backward()
        return None

    with trace_loop(model, opt) as trace:
        model(x).sum().backward()
        opt.step(closure)
    assert trace.step_backward == [2]
    assert torch.equal(trace.steps[0].gradients["weight"], torch.full((1, 2), 2.0))


# --------------------------------------------------------------------------- reference and judge
def test_the_reference_floor_and_the_precision_of_a_float64_model_with_a_float32_loss():
    model, mbs = tiny_gpt(), addition_microbatches(8, 2)[:4]
    group = group_of(mbs)
    full = Reference(model, group, ComputePrecision(torch.float64)).big_batch()
    assert full.joined and full.floor < 1e-14 and rel_error(full.accumulated, full.gradient) == full.floor
    f32 = Reference(model, group, ComputePrecision(torch.float64, None, torch.float32)).big_batch()
    assert 1e-12 < rel_error(f32.gradient, full.gradient) < 1e-5  # the float32 loss rounds
    assert precision_of(model).label == "float64"


def test_judge_unclips_a_clipped_step_and_names_a_clip_per_microbatch():
    model, mbs = tiny_gpt(), addition_microbatches(8, 2)[:4]
    group, N = group_of(mbs), group_of(mbs).supervised_items

    def run(clip_inside: bool):
        copy = tiny_gpt()
        opt = torch.optim.SGD(copy.parameters(), lr=0.1)
        with trace_loop(copy, opt) as trace:
            for mb in mbs:
                (loss_of(copy, mb) / N).backward()
                if clip_inside:
                    torch.nn.utils.clip_grad_norm_(copy.parameters(), 0.05)
            if not clip_inside:
                torch.nn.utils.clip_grad_norm_(copy.parameters(), 0.05)
            opt.step()
        return trace

    right, _, _ = J.judge_update(run(False), model, group)
    assert right.passed and right.clip.fired and right.clip.after == pytest.approx(0.05, rel=1e-4)
    assert right.rel_error < 1e-12
    wrong, _, _ = J.judge_update(run(True), model, group)
    assert wrong.symptom == "clipping per microbatch" and wrong.clip.problem == "per microbatch"
    assert "the first after backward 1 of 4" in wrong.what


def test_explain_names_the_steps_normalization_and_the_last_microbatch():
    model, mbs = tiny_gpt(), addition_microbatches(8, 2)[:4]
    group = group_of(mbs)
    ref = Reference(model, group, ComputePrecision(torch.float64))
    big = ref.big_batch()
    N, A = group.supervised_items, group.size
    steps, last = ref.contributions([[N / (n * A) for n in group.items], [0, 0, 0, 1]])
    found = J.explain(steps, big.gradient, items=group.items, accumulation_steps=A, tol=1e-12,
                      contributions=ref.contributions)
    assert found.symptom == "partition dependence" and found.normalization == "steps"
    found = J.explain(3 * last, big.gradient, items=group.items, accumulation_steps=A, tol=1e-12,
                      contributions=ref.contributions)
    assert found.symptom == "ineffective accumulation" and found.normalization == "last microbatch"
    found = J.explain(big.gradient / A, big.gradient, items=group.items, accumulation_steps=A, tol=1e-12)
    assert found.symptom == "double division" and found.evidence["k"] == pytest.approx(A)

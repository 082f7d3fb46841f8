"""The objective is the loop's, the accumulation is what is checked (check_loop(..., objective=...)).

The big batch a loop is compared with minimizes the loop's own objective over the whole group: the
token mean (the default), a per-sample mean (inferred when the update is exactly that), a plain
sum or a loss of the user's own (declared). What a mean-of-means ACCUMULATION gets wrong stays a
failure; a constant ÷ A on a short last group is named for what it is.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

from gastudy import check_loop
from gastudy.check.objective import SAMPLES, TOKENS, as_objective, sample_of_items
from gastudy.check.steps import record_steps
from gastudy.core.data import MicrobatchStream, packed_collate
from gastudy.course import nanogpt
from gastudy.course.datasets import AdditionDataset
from tests.helpers import tiny_gpt


def split(samples: int, micro_batch: int, collate: str = "padded", seed: int = 0):
    return list(MicrobatchStream(AdditionDataset(samples, seed=seed), micro_batch=micro_batch, shuffle=False,
                                 collate=collate))


def _logits(model, mb):
    inputs = {k: v for k, v in mb.items() if k in ("input_ids", "attention_mask", "position_ids")}
    return model(**inputs).logits


def per_sample_mean(model, optimizer, microbatches):
    """Each sample's token mean, averaged over the group's samples: ÷ S, accumulated exactly."""
    S = sum(mb["labels"].shape[0] for mb in microbatches)
    for mb in microbatches:
        logits, y = _logits(model, mb)[:, :-1], mb["labels"][:, 1:]
        losses = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")
        per_sample = (losses * (y != -100)).sum(1) / (y != -100).sum(1)
        (per_sample.sum() / S).backward()
    optimizer.step()
    optimizer.zero_grad()


def mean_of_means(model, optimizer, microbatches):
    for mb in microbatches:
        logits = _logits(model, mb)[:, :-1]
        (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten()) / len(microbatches)).backward()
    optimizer.step()
    optimizer.zero_grad()


def token_mean(model, optimizer, microbatches):
    N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches:
        logits = _logits(model, mb)[:, :-1]
        (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum") / N).backward()
    optimizer.step()
    optimizer.zero_grad()


def summed(model, optimizer, microbatches):
    for mb in microbatches:
        logits = _logits(model, mb)[:, :-1]
        F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum").backward()
    optimizer.step()
    optimizer.zero_grad()


def smoothed(output, batch):
    """The user's own objective: label-smoothed cross entropy, the token mean over the batch."""
    logits = output.logits[:, :-1]
    return F.cross_entropy(logits.flatten(0, 1), batch["labels"][:, 1:].flatten(), label_smoothing=0.1)


def smoothed_step(model, optimizer, microbatches, per_microbatch: bool = False):
    N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches:
        logits = _logits(model, mb)[:, :-1]
        if per_microbatch:
            loss = F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), label_smoothing=0.1)
            loss = loss / len(microbatches)
        else:
            loss = F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), label_smoothing=0.1,
                                   reduction="sum") / N
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def smoothed_mean_of_means(model, optimizer, microbatches):
    smoothed_step(model, optimizer, microbatches, per_microbatch=True)


def gradient_of(step, model, microbatches) -> torch.Tensor:
    clone = copy.deepcopy(model)
    opt = torch.optim.SGD(clone.parameters(), lr=0.1)
    with record_steps(clone, opt) as steps:
        step(clone, opt, microbatches)
    return steps[0].gradient


# --------------------------------------------------------------------------- the per-sample mean
def test_a_per_sample_mean_is_accumulated_exactly_and_is_not_the_token_mean():
    model = tiny_gpt()
    four, one = gradient_of(per_sample_mean, model, split(8, 2)), gradient_of(per_sample_mean, model, split(8, 8))
    assert float((four - one).norm() / one.norm()) < 1e-14  # 4 microbatches or 1: the same update
    tokens = gradient_of(token_mean, model, split(8, 8))
    assert float((one - tokens).norm() / tokens.norm()) > 0.05  # another objective, not rounding


@pytest.mark.parametrize("micro_batch", [2, 8, 1])  # A = 4, 1 (nothing accumulated) and 8 (one sample each)
def test_a_per_sample_mean_passes_with_one_line_that_says_it_is_not_token_normalized(micro_batch):
    report = check_loop(per_sample_mean, tiny_gpt(), split(8, micro_batch))
    assert report.passed, report
    assert report.objective == "samples" and report.normalization == "samples" and report.rel_error < 1e-12
    assert report.objective_note.startswith("the per-sample mean (each sample's token mean, averaged over the "
                                            "group's 8 samples), read from the gradient — not token-normalized")
    lines = [line for line in str(report).splitlines() if line.strip().startswith("objective:")]
    assert len(lines) == 1 and "\n" not in report.objective_note
    if micro_batch == 1:  # the mean of microbatch means is the same update here: a re-split told them apart
        assert any("re-splitting the samples" in n for n in report.notes)
        assert [v.symptom for v in report.verdicts][:1] == ["partition dependence"] and not report.verdicts[0].fired
    assert report.to_dict()["objective"] == "samples"


def test_the_mean_of_microbatch_means_stays_a_failure_even_where_it_equals_the_per_sample_mean():
    for micro_batch in (2, 1):
        report = check_loop(mean_of_means, tiny_gpt(), split(8, micro_batch))
        assert not report.passed and report.symptom == "partition dependence" and report.normalization == "steps"
        assert report.objective == "tokens" and report.objective_note is None
        assert report.floor is not None  # beyond the base tolerance: the second order was computed
        if micro_batch == 1:
            (resplit,) = [v for v in report.verdicts if v.symptom == "partition dependence"]
            assert resplit.fired and "Measured: the gradient changes by" in report.message


def test_a_declared_objective_is_held_to():
    mbs = split(8, 2)
    strict = check_loop(per_sample_mean, tiny_gpt(), mbs, objective="tokens")
    assert not strict.passed and strict.symptom == "objective mismatch" and strict.normalization == "samples"
    assert "not the token mean (the sum of per-item losses ÷ the group's supervised items N), the objective you " \
           "declared" in strict.message and "declare objective='samples'" in strict.message
    declared = check_loop(per_sample_mean, tiny_gpt(), mbs, objective="samples")
    assert declared.passed and "as declared" in declared.objective_note
    wrong_way = check_loop(token_mean, tiny_gpt(), mbs, objective="samples")
    assert wrong_way.symptom == "objective mismatch" and wrong_way.normalization == "tokens"
    mixed = check_loop(mean_of_means, tiny_gpt(), mbs, objective="samples")
    assert not mixed.passed and mixed.symptom == "partition dependence" and mixed.normalization == "steps"
    assert "against the token mean it is" in mixed.message


def test_packed_rows_know_which_sample_each_label_belongs_to():
    batch = packed_collate([{"input_ids": torch.arange(3), "labels": torch.arange(3)},
                            {"input_ids": torch.arange(4), "labels": torch.arange(4)}])
    assert sample_of_items(batch, "causal").tolist() == [[0, 0, 0, 1, 1, 1, 1]]
    assert SAMPLES.mass(batch, "causal") == 2 and TOKENS.mass(batch, "causal") == 5
    unshifted = {k: v for k, v in batch.items() if k != "shift_labels"}
    assert sample_of_items(unshifted, "causal").tolist() == [[0, 0, 1, 1, 1, 1]]


# --------------------------------------------------------------------------- declared only
def test_a_sum_is_a_missing_division_unless_declared():
    undeclared = check_loop(summed, tiny_gpt(), split(8, 2))
    assert undeclared.symptom == "missing division" and "objective='sum'" in undeclared.message
    assert check_loop(summed, tiny_gpt(), split(8, 2), objective="sum").passed


def test_an_objective_of_your_own_is_computed_on_the_joined_group():
    mbs = split(8, 2)
    assert not check_loop(smoothed_step, tiny_gpt(), mbs).passed  # label smoothing is not the plain token mean
    mine = check_loop(smoothed_step, tiny_gpt(), mbs, objective=smoothed)
    assert mine.passed and mine.objective == "yours" and mine.rel_error < 1e-12, mine
    assert "your objective smoothed(output, batch)" in mine.objective_note
    wrong = check_loop(smoothed_mean_of_means, tiny_gpt(), mbs, objective=smoothed)
    assert not wrong.passed and wrong.symptom == "partition dependence" and wrong.normalization == "steps"


def test_bad_objectives_are_refused_before_anything_runs():
    with pytest.raises(ValueError, match="unknown objective 'mean'"):
        check_loop(token_mean, tiny_gpt(), split(4, 2), objective="mean")
    with pytest.raises(TypeError, match="objective must be None"):
        as_objective(3)
    for bad in (0, -1, "10", True, float("nan")):
        with pytest.raises(ValueError, match="timeout_s must be a positive number of seconds"):
            check_loop(token_mean, tiny_gpt(), split(4, 2), timeout_s=bad)


def test_check_trainer_refuses_an_objective_it_cannot_take():
    pytest.importorskip("transformers")
    from gastudy.hf import check_trainer
    from tests.corpus import families as fm

    with pytest.raises(ValueError, match="pass it to the Trainer as compute_loss_func"):
        check_trainer(fm.trainer("sequence classification"), objective=smoothed)
    with pytest.raises(ValueError, match="unknown objective 'mean'"):
        check_trainer(fm.trainer("sequence classification"), objective="mean")


# --------------------------------------------------------------------------- a constant ÷ A on a short group
class ConstantFour(nanogpt.NanoGPTStep):
    """nanoGPT's ÷ gradient_accumulation_steps with the constant 4 of its configuration."""

    def __call__(self, model, optimizer, microbatches):
        for batch in microbatches:
            _, loss = model(batch["idx"], batch["targets"])
            (loss / 4).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def test_a_constant_divisor_on_a_short_last_group_is_named_with_its_denominator():
    short = check_loop(ConstantFour(), nanogpt.small_gpt(), nanogpt.fixed_blocks(3, 2, 15, 256), **nanogpt.CHECK_ARGS)
    assert not short.passed and short.symptom == "constant divisor"
    assert "divided by a constant 4 on a group of 3 microbatches" in short.message
    assert "the denominator is 120 items instead of N = 90" in short.message
    assert "fp16" not in short.message and "unscale_" not in short.message  # no GradScaler, no clip: no such hint
    full = check_loop(ConstantFour(), nanogpt.small_gpt(), nanogpt.fixed_blocks(4, 2, 15, 256), **nanogpt.CHECK_ARGS)
    assert full.passed


def test_a_constant_divisor_on_variable_lengths_is_the_mean_of_means_and_the_constant():
    def constant_four(model, optimizer, microbatches):
        for mb in microbatches:
            logits = _logits(model, mb)[:, :-1]
            (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten()) / 4).backward()
        optimizer.step()
        optimizer.zero_grad()

    report = check_loop(constant_four, tiny_gpt(), split(6, 2, seed=3))
    assert report.symptom == "partition dependence" and report.normalization == "steps"
    assert "÷ a constant 4, on a group of 3 microbatches" in report.message
    assert report.evidence["explained"]["constant_divisor"] == 4


# --------------------------------------------------------------------------- clipping after the step
def clipped_after_the_step(model, optimizer, microbatches):
    N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches:
        logits = _logits(model, mb)[:, :-1]
        (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum") / N).backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1e-3)  # the slip: after the step used the gradients
    optimizer.zero_grad()


def test_a_clip_after_the_step_is_named_whether_it_fired_or_not():
    report = check_loop(clipped_after_the_step, tiny_gpt(), split(8, 2))
    assert not report.passed and report.symptom == "clipping after the step"
    assert "ran after optimizer.step(): the step had already used the unclipped gradients" in report.message
    assert "was above the limit this time" in report.message and "before optimizer.step()" in report.message
    assert report.rel_error < 1e-12  # the step itself used the right gradient: it is the clip that does nothing

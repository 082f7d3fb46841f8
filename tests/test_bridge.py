"""The Hugging Face bridge (gastudy.course.bridge): the skip path without the hf extra, and the
real Trainer / Accelerate runs compared with gastudy's engine on a tiny model from a config."""

from __future__ import annotations

import copy
import importlib.util

import pytest
import torch

from gastudy.core.data import MicrobatchStream, pad_collate
from gastudy.course import bridge
from gastudy.course.datasets import AdditionDataset, BlobDataset


def test_without_the_hf_extra_cells_print_a_skip_note_and_do_not_fail(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "transformers" else real(name, *a))
    assert bridge.missing_hf_packages() == ["transformers"]
    assert bridge.hf_available() is False
    assert bridge.hf_cell("TrainingArguments ↔ m and A") is False
    out = capsys.readouterr().out
    assert "skipped: TrainingArguments ↔ m and A" in out
    assert "missing here: transformers" in out and bridge.HF_INSTALL in out
    monkeypatch.setenv(bridge.NO_HF_ENV, "1")  # the switch that runs a course on the skip path
    assert bridge.missing_hf_packages() == ["transformers", "accelerate"] and not bridge.hf_available()
    assert "GASTUDY_NO_HF=1 is set" in bridge.skip_note("x")
    with pytest.raises(ModuleNotFoundError, match="hf"):
        bridge.tiny_causal_lm()


def test_hf_batch_drops_only_the_course_bookkeeping():
    batch = pad_collate([AdditionDataset(3)[i] for i in range(3)])
    out = bridge.hf_batch(batch)
    assert set(out) == {"input_ids", "attention_mask", "labels"}
    assert all(out[k] is batch[k] for k in out)
    with pytest.raises(ValueError, match="input_ids"):
        bridge.hf_batch(pad_collate([BlobDataset(2)[i] for i in range(2)]))


hf = pytest.mark.skipif(not bridge.hf_available(), reason="the hf extra (transformers, accelerate) is not installed")
M, A = 2, 4


@pytest.fixture(scope="module")
def setup():
    model = bridge.tiny_causal_lm(seed=0)
    data = AdditionDataset(M * A, seed=1)
    microbatches = list(MicrobatchStream(data, M, shuffle=False).microbatches())
    return model, [data[i] for i in range(M * A)], microbatches


@hf
def test_tiny_model_is_built_from_a_config_and_is_deterministic(setup):
    model, _, microbatches = setup
    again = bridge.tiny_causal_lm(seed=0)
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), again.parameters()))
    assert not all(torch.equal(p, q) for p, q in zip(model.parameters(), bridge.tiny_causal_lm(seed=1).parameters()))
    out = model(**bridge.hf_batch(microbatches[0]))
    assert out.logits.shape[:2] == microbatches[0]["input_ids"].shape and out.loss is not None


@hf
def test_trainer_default_update_equals_gastudy_tokens(setup):
    model, samples, microbatches = setup
    args = bridge.training_arguments(M, A)
    grads = bridge.trainer_gradient(model, samples, args)
    cmp = bridge.compare_with_gastudy(grads, model, microbatches)
    assert cmp.passed and abs(cmp.ratio - 1) < 1e-5, str(cmp)
    # and it is NOT the steps-normalized gradient on this variable-length data
    assert not bridge.compare_with_gastudy(grads, model, microbatches, "steps").passed
    with pytest.raises(ValueError, match="m × A = 8"):
        bridge.trainer_gradient(model, samples[:5], args)


@hf
def test_loss_is_scaled_for_ga_false_on_a_normalized_loss_divides_twice(setup):
    from transformers import Trainer

    model, samples, microbatches = setup

    class DividesTwice(Trainer):
        loss_is_scaled_for_ga = False  # wrong: the loss below is already ÷ num_items_in_batch

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            return model(**inputs, num_items_in_batch=num_items_in_batch).loss

    grads = bridge.trainer_gradient(model, samples, bridge.training_arguments(M, A), trainer_class=DividesTwice)
    cmp = bridge.compare_with_gastudy(grads, model, microbatches)
    assert not cmp.passed and abs(cmp.ratio - A) < 1e-4, str(cmp)


@hf
def test_accelerate_accumulate_with_mean_losses_is_gastudy_steps(setup):
    from gastudy.check.steps import record_steps

    model, _, microbatches = setup
    accelerator = bridge.fresh_accelerator(A)
    mdl = copy.deepcopy(model)
    mdl, optimizer = accelerator.prepare(mdl, torch.optim.SGD(mdl.parameters(), lr=0.0))
    with record_steps(mdl, optimizer.optimizer, track_applied=False) as steps:
        for batch in microbatches:
            with accelerator.accumulate(mdl):
                accelerator.backward(mdl(**bridge.hf_batch(batch)).loss)
                optimizer.step()
                optimizer.zero_grad()
    assert len(steps) == 1  # the wrapped optimizer stepped once for A microbatches
    assert bridge.compare_with_gastudy(steps[0].gradients, model, microbatches, "steps").passed

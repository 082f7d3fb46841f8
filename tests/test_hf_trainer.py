"""gastudy.hf.check_trainer, and check_loop on Accelerate's accumulate() (MB-10, MB-11, GA-6).

Tiny GPT-2 models built from a config over the course vocabulary (nothing is downloaded), the
course's variable-length addition problems, m = 2, A = 4. Each Trainer is the user's, unchanged
apart from the one mistake under test.
"""

from __future__ import annotations

import importlib
import random
import sys
import tempfile

import numpy as np
import pytest
import torch
import torch.nn.functional as F

pytest.importorskip("transformers")
pytest.importorskip("accelerate")

from transformers import Trainer, TrainingArguments  # noqa: E402

import gastudy  # noqa: E402
from gastudy.check.loop import check_loop  # noqa: E402
from gastudy.core.counting import count_supervised  # noqa: E402
from gastudy.course.bridge import fresh_accelerator, hf_batch, hf_collate, tiny_causal_lm  # noqa: E402
from gastudy.course.datasets import AdditionDataset  # noqa: E402
from gastudy.hf import check_trainer  # noqa: E402
from tests.helpers import addition_microbatches, readme_code  # noqa: E402

M, A = 2, 4


def samples(supervise="answer", n=12):
    data = AdditionDataset(n, seed=0, supervise=supervise)
    return [data[i] for i in range(n)]


def args(**overrides):
    return TrainingArguments(output_dir=tempfile.mkdtemp(prefix="gastudy-test-"), per_device_train_batch_size=M,
                             gradient_accumulation_steps=A, report_to="none", use_cpu=True, disable_tqdm=True,
                             **overrides)


def trainer(cls=Trainer, supervise="answer", model=None):
    return cls(model=model or tiny_causal_lm(hidden=16), args=args(), train_dataset=samples(supervise),
               data_collator=hf_collate)


class MeanLossDeclared(Trainer):
    """compute_loss ignores num_items_in_batch (the model's per-microbatch mean) and says so."""

    loss_is_scaled_for_ga = False

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        return model(**inputs).loss


class MeanLossUndeclared(MeanLossDeclared):
    """The same mean, flag left None: the Trainer then thinks it is already scaled."""

    loss_is_scaled_for_ga = None


class DeclaredUnscaled(Trainer):
    """The default compute_loss (÷ num_items_in_batch by the model) declared NOT scaled."""

    loss_is_scaled_for_ga = False


# --------------------------------------------------------------------------- the Trainer
def test_the_default_trainer_passes_and_nothing_of_the_callers_changes():
    tr = trainer()
    weights = {k: v.clone() for k, v in tr.model.state_dict().items()}
    callbacks = list(tr.callback_handler.callbacks)
    rng = (torch.get_rng_state(), random.getstate(), np.random.get_state()[1].copy())
    report = check_trainer(tr)
    assert report.passed and report.symptom is None, str(report)
    assert report.rel_error < 1e-6 and report.tolerance == 1e-5 and report.precision == "float32"
    assert report.optimizer_steps == 1 and report.microbatches == A and report.samples == M * A
    assert report.evidence["num_items_in_batch"] == report.supervised_items
    assert report.evidence["loss_is_scaled_for_ga_in_effect"] is True and report.normalization == "tokens"
    # the Trainer's own max_grad_norm=1.0 clipped the accumulated gradient: judged before it, reported
    assert report.notes == [] and report.clip["fired"] and report.clip["max_norm"] == 1.0
    assert report.clip["norm_after"] == pytest.approx(1.0, rel=1e-5) and report.clip["norm_before"] > 1.0
    assert "clip_grad_norm_(max_norm=1) fired: norm" in str(report)
    # the caller's Trainer, model and random state are as they were
    assert tr.state.global_step == 0 and tr.optimizer is None and tr.lr_scheduler is None
    assert tr.args.max_steps == -1 and tr.args.max_grad_norm == 1.0
    assert tr.callback_handler.callbacks == callbacks
    assert all(torch.equal(weights[k], v) for k, v in tr.model.state_dict().items())
    assert all(p.grad is None for p in tr.model.parameters())
    assert torch.equal(rng[0], torch.get_rng_state()) and rng[1] == random.getstate()
    assert np.array_equal(rng[2], np.random.get_state()[1])


def test_compute_loss_ignoring_num_items_is_the_steps_normalization():
    report = check_trainer(trainer(MeanLossDeclared))
    assert report.symptom == "partition dependence" and report.normalization == "steps"
    assert report.evidence["explained"]["rel_vs_steps"] < 1e-5 < 1e-3 < report.rel_error
    assert len(set(report.evidence["items"])) > 1  # variable lengths: that is why it differs
    assert "num_items_in_batch is ignored" in report.message and "loss_is_scaled_for_ga = True" in report.message
    undeclared = check_trainer(trainer(MeanLossUndeclared))
    assert undeclared.symptom == "partition dependence" and undeclared.normalization == "sum of means"
    assert "loss_is_scaled_for_ga is None (in effect True)" in undeclared.message


def test_loss_is_scaled_for_ga_declared_wrongly_is_double_division():
    report = check_trainer(trainer(DeclaredUnscaled))
    assert report.symptom == "double division"
    assert report.evidence["explained"]["k"] == pytest.approx(A, rel=1e-5)
    assert report.evidence["loss_is_scaled_for_ga"] is False
    assert "divided it again by A=4 because loss_is_scaled_for_ga is False" in report.message


def test_gpt2_plain_lm_data_num_items_counted_without_the_shift():
    """transformers 5.24 derives the Trainer's count from loss_type, None for GPT2LMHeadModel: with
    every token supervised num_items_in_batch counts each row's first label, which the loss never
    uses — one extra item per row. Declaring the loss type fixes it."""
    report = check_trainer(trainer(supervise="all"))
    rows = M * A
    assert report.symptom == "double division"
    assert report.evidence["num_items_in_batch"] == report.supervised_items + rows
    assert report.evidence["explained"]["k"] == pytest.approx((report.supervised_items + rows) / report.supervised_items,
                                                              rel=1e-5)
    assert 'model.loss_type = "ForCausalLM"' in report.message
    model = tiny_causal_lm(hidden=16)
    model.loss_type = "ForCausalLM"
    assert check_trainer(trainer(supervise="all", model=model)).passed


def test_dropout_is_switched_off_on_the_copies_and_said():
    model = tiny_causal_lm(hidden=16)
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.1  # a model with dropout on: two forwards draw different masks
    report = check_trainer(trainer(model=model))
    assert report.passed, str(report)
    assert any(n.startswith("dropout switched off on the copies") for n in report.notes)
    assert all(m.p == 0.1 for m in model.modules() if isinstance(m, torch.nn.Dropout))  # the caller's stays on


def test_check_trainer_bad_input():
    with pytest.raises(TypeError, match="needs a transformers.Trainer"):
        check_trainer(tiny_causal_lm(hidden=16))
    with pytest.raises(ValueError, match="no train_dataset"):
        check_trainer(Trainer(model=tiny_causal_lm(hidden=16), args=args(), data_collator=hf_collate))
    with pytest.raises(ValueError, match="unknown task"):
        check_trainer(trainer(), task="seq2seq")

    def unsupervised(samples):
        batch = hf_collate(samples)
        return {**batch, "labels": torch.full_like(batch["labels"], -100)}

    nothing = Trainer(model=tiny_causal_lm(hidden=16), args=args(), train_dataset=samples(),
                      data_collator=unsupervised)
    with pytest.raises(ValueError, match="no supervised item"):
        check_trainer(nothing)


def test_gastudy_hf_without_transformers_says_how_to_install(monkeypatch):
    for name in [m for m in sys.modules if m == "gastudy.hf" or m.startswith("gastudy.hf.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(ImportError, match=r"needs the optional Hugging Face extra \(transformers not installed\): "
                                          r"pip install gastudy\[hf\]"):
        importlib.import_module("gastudy.hf")
    monkeypatch.undo()
    assert gastudy.hf.check_trainer is check_trainer  # with transformers back, the lazy attribute works


# --------------------------------------------------------------------------- Accelerate's accumulate()
def accelerate_mean(model, optimizer, microbatches):
    """Accelerate's accumulate() as its guide writes it: the model's mean loss per microbatch."""
    accelerator = fresh_accelerator(len(microbatches))
    model, optimizer = accelerator.prepare(model, optimizer)
    for mb in microbatches:
        with accelerator.accumulate(model):
            accelerator.backward(model(**hf_batch(mb)).loss)  # backward divides by A
            optimizer.step()
            optimizer.zero_grad()


def accelerate_summed(model, optimizer, microbatches):
    """The same loop with the summed loss ÷ the global count N (× A: accelerator.backward divides by A)."""
    accelerator = fresh_accelerator(len(microbatches))
    N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    model, optimizer = accelerator.prepare(model, optimizer)
    for mb in microbatches:
        with accelerator.accumulate(model):
            logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
            loss = F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum") / N
            accelerator.backward(loss * len(microbatches) * accelerator.num_processes)
            optimizer.step()
            optimizer.zero_grad()


def test_accelerate_accumulate_mean_fails_on_variable_lengths_summed_passes():
    model = tiny_causal_lm(hidden=16)
    microbatches = addition_microbatches(M * A, M)[:A]
    assert len({count_supervised(mb) for mb in microbatches}) > 1
    mean = check_loop(accelerate_mean, model, microbatches)
    assert mean.symptom == "partition dependence" and mean.normalization == "steps"
    assert mean.optimizer_steps == 1  # accumulate() steps once per A microbatches: the step count is right
    summed = check_loop(accelerate_summed, model, microbatches)
    assert summed.passed and summed.rel_error < 1e-5, str(summed)
    # with equal supervised counts the mean loss is right too
    same = [mb for mb in addition_microbatches(40, M) if count_supervised(mb) == 8][:3]
    assert len(same) == 3
    assert check_loop(accelerate_mean, model, same, diagnose=False).passed


# --------------------------------------------------------------------------- the README section
def test_the_readme_section_runs_as_written(capsys):
    section = "## Check your own loop / your own Trainer"
    namespace = {"__name__": "readme_check_loop", "trainer": trainer()}  # the reader's own Trainer
    exec(compile(readme_code(section), f"README.md:{section}", "exec"), namespace)
    report, trainer_report = namespace["report"], namespace["trainer_report"]
    assert report.symptom == "partition dependence" and report.normalization == "steps"
    assert report.evidence["items"] == [10, 10, 7, 7]
    assert trainer_report.passed
    out = capsys.readouterr().out
    assert "✗ FAILED: train_step — partition dependence" in out and "✓ PASSED: Trainer" in out

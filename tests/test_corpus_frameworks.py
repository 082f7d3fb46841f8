"""A corpus of the field's real loops, part 2: the frameworks — Accelerate, the Lightning Trainer, Fabric.

The loops (tests/corpus/frameworks.py) run the REAL installed libraries on the model copy and the
optimizer check_loop gives them: an ``Accelerator`` with ``accelerator.prepare``, a
``lightning.pytorch.Trainer(accumulate_grad_batches=A)`` with ``trainer.fit``, a
``lightning.Fabric`` with ``fabric.setup``. Each test asserts the verdict an expert gives (passed,
or the symptom and the normalization). The expert verdicts are established without gastudy as
well (the "ground truth" tests: the update the loop really applied, read from the weights after
one plain-SGD step). This corpus found that a backward run inside ``optimizer.step(closure)`` —
how Lightning's automatic optimization runs the last microbatch and its clipping — was judged
before the closure ran; the gradient is now captured after it.

A = 4 microbatches of m = 2 tiny samples, tiny float32 Hugging Face models, seeds fixed.
"""

from __future__ import annotations

import logging

import pytest
import torch
import torch.nn.functional as F

from gastudy import check_loop
from tests.corpus import frameworks as fw

pytestmark = pytest.mark.filterwarnings("ignore:`isinstance\\(treespec, LeafSpec\\)` is deprecated")  # lightning's _pytree


@pytest.fixture(scope="module", autouse=True)
def quiet_frameworks():
    """Lightning's and Accelerate's info logging off for this module (restored afterwards)."""
    import transformers

    names = ["lightning", "lightning.pytorch", "lightning.fabric", "pytorch_lightning", "lightning_fabric",
             "accelerate"]
    levels = {n: logging.getLogger(n).level for n in names}
    verbosity = transformers.logging.get_verbosity()
    for n in names:
        logging.getLogger(n).setLevel(logging.ERROR)
    transformers.logging.set_verbosity_error()
    yield
    for n, level in levels.items():
        logging.getLogger(n).setLevel(level)
    transformers.logging.set_verbosity(verbosity)


@pytest.fixture(scope="module")
def gpt2():
    return fw.tiny_gpt2()


@pytest.fixture(scope="module")
def fixed():
    mbs = fw.lm_microbatches(fw.FIXED_LENGTHS)
    assert len(mbs) == 4 and all(int((mb["labels"] == -100).sum()) == 0 for mb in mbs)  # every token supervised
    return mbs


@pytest.fixture(scope="module")
def variable():
    mbs = fw.lm_microbatches(fw.VARIABLE_LENGTHS)
    counts = [int((mb["labels"][:, 1:] != -100).sum()) for mb in mbs]
    assert len(mbs) == 4 and len(set(counts)) == 4, counts  # padded, every microbatch a different count
    return mbs


# =========================================================================== 1. run_clm_no_trainer.py
def test_run_clm_no_trainer_is_right_on_fixed_length_blocks(gpt2, fixed):
    """run_clm_no_trainer's own data are fixed blocks of block_size tokens, all supervised: the
    model's mean loss ÷ A (accelerator.backward) IS the token mean there."""
    report = check_loop(fw.run_clm_no_trainer, gpt2, fixed, optimizer=fw.run_clm_optimizer,
                        scheduler=fw.run_clm_scheduler)
    assert report.passed and report.symptom is None, str(report)
    assert report.normalization == "tokens" and report.optimizer_steps == 1 and report.scheduler_steps == 1
    assert report.precision == "float32" and report.clip is None


def test_run_clm_no_trainer_on_padded_lengths_is_the_steps_normalization(gpt2, variable):
    report = check_loop(fw.run_clm_no_trainer, gpt2, variable, optimizer=fw.run_clm_optimizer,
                        scheduler=fw.run_clm_scheduler)
    assert report.symptom == "partition dependence" and report.normalization == "steps", str(report)
    assert report.optimizer_steps == 1 and report.scheduler_steps == 1
    assert "frameworks.py" in report.where and "accelerator.backward(loss)" in report.where


# =========================================================================== 2. Accelerate, variable-size samples
RECIPES = {
    "example, unshifted labels": (fw.accelerate_variable_size_example(), fw.tiny_llama, fw.lm_microbatches),
    "example, its own collator": (fw.accelerate_variable_size_example(), fw.tiny_llama, fw.preshifted_microbatches),
    "guide skeleton": (fw.accelerate_guide_skeleton, fw.tiny_gpt2, fw.lm_microbatches),
}


@pytest.mark.parametrize("case", list(RECIPES))
def test_accelerates_num_items_in_batch_counts_the_unshifted_labels(case):
    """The guide and its example count ``batch["labels"].ne(-100)``, but a causal LM's loss has one
    target fewer per row (the first label has no prediction before it): N + rows in the
    denominator, a gradient rows/N too small. The example's own collator shifts the labels first,
    and the model shifts them again: its first label column is a real token in every row, so the
    count is one too many per row there too."""
    loop, model, data = RECIPES[case]
    mbs = data(fw.VARIABLE_LENGTHS)
    rows = sum(mb["labels"].shape[0] for mb in mbs)
    assert all(bool((mb["labels"][:, 0] != -100).all()) for mb in mbs)  # every row's first label is supervised
    optimizer = fw.accelerate_example_optimizer
    scheduler = fw.accelerate_example_scheduler if "example" in case else fw.run_clm_scheduler
    report = check_loop(loop, model(), mbs, optimizer=optimizer, scheduler=scheduler)
    assert report.symptom == "double division" and not report.passed, str(report)
    assert "shift" in report.message and f"{rows} extra, one per row" in report.message
    assert "labels[..., 1:] != -100" in report.message and "accelerator.backward(loss)" in report.where
    assert report.optimizer_steps == 1 and report.scheduler_steps == 1
    if "example" in case:  # accelerator.clip_grad_norm_(model.parameters(), 1.0): seen through Accelerate
        assert report.clip is not None and report.clip["fired"] and report.clip["max_norm"] == 1.0
        assert "accelerator.clip_grad_norm_" in report.clip["where"]


@pytest.mark.parametrize("data", [fw.lm_microbatches, fw.preshifted_microbatches])
def test_accelerates_recipe_with_the_shifted_count_is_right(data):
    report = check_loop(fw.accelerate_variable_size_example(shifted=True), fw.tiny_llama(), data(fw.VARIABLE_LENGTHS),
                        optimizer=fw.accelerate_example_optimizer, scheduler=fw.accelerate_example_scheduler)
    assert report.passed and report.normalization == "tokens", str(report)
    assert report.optimizer_steps == 1 and report.scheduler_steps == 1
    assert report.clip is not None and report.clip["fired"] and report.clip["max_norm"] == 1.0


# =========================================================================== 3. the Lightning Trainer
# Ground truth first (no gastudy): what Lightning's one update really applies, read from the weights.
def test_lightning_steps_once_and_applies_the_big_batch_on_fixed_lengths(gpt2, fixed):
    steps = []
    applied, optimizer_steps, leftover = fw.applied_update(fw.lightning_trainer(steps=steps), gpt2, fixed)
    assert optimizer_steps == 1 and steps == [1]  # one optimizer.step for A = 4 batches; global_step 1
    assert fw.rel(applied, fw.big_batch_gradient(gpt2, fixed)) < 1e-5
    # Lightning zeroes the gradients before the first backward of each window, not after the step:
    assert leftover


def test_lightning_applies_the_mean_of_means_on_variable_lengths(gpt2, variable):
    applied, optimizer_steps, _ = fw.applied_update(fw.lightning_trainer(), gpt2, variable)
    assert optimizer_steps == 1
    assert fw.rel(applied, fw.mean_of_means_gradient(gpt2, variable)) < 1e-5
    assert fw.rel(applied, fw.big_batch_gradient(gpt2, variable)) > 0.05


def test_lightning_clips_the_whole_accumulated_gradient(gpt2, fixed):
    big = fw.big_batch_gradient(gpt2, fixed)
    assert float(big.norm()) > 1.0  # so gradient_clip_val=1.0 fires
    applied, optimizer_steps, _ = fw.applied_update(fw.lightning_trainer(gradient_clip_val=1.0), gpt2, fixed)
    assert optimizer_steps == 1
    assert fw.rel(applied, big * (1.0 / (float(big.norm()) + 1e-6))) < 1e-5  # clip_grad_norm_ after the last backward


def test_check_loop_sees_lightnings_single_step(gpt2, fixed):
    report = check_loop(fw.lightning_trainer(), gpt2, fixed, diagnose=False)
    assert report.optimizer_steps == 1 and report.microbatches == 4




def test_lightning_trainer_passes_on_fixed_lengths(gpt2, fixed):
    report = check_loop(fw.lightning_trainer(), gpt2, fixed)
    assert report.passed and report.normalization == "tokens", str(report)


def test_lightning_trainer_on_variable_lengths_is_the_steps_normalization(gpt2, variable):
    report = check_loop(fw.lightning_trainer(), gpt2, variable)
    assert report.symptom == "partition dependence" and report.normalization == "steps", str(report)


def test_lightning_gradient_clip_val_fires_and_passes(gpt2, fixed):
    report = check_loop(fw.lightning_trainer(gradient_clip_val=1.0), gpt2, fixed, diagnose=False)
    assert report.clip is not None and report.clip["fired"], str(report)
    assert report.rel_error <= report.tolerance and report.normalization == "tokens", str(report)


def closure_on_the_last_microbatch(model, optimizer, microbatches):
    """The cause, in plain PyTorch: a right token-normalized update whose last microbatch runs in the
    closure handed to ``optimizer.step`` (as Lightning, and LBFGS-style code, do)."""
    def loss_sum(mb):
        logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
        return F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum")

    N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
    for mb in microbatches[:-1]:
        (loss_sum(mb) / N).backward()

    def closure():
        loss = loss_sum(microbatches[-1]) / N
        loss.backward()
        return loss

    optimizer.step(closure)
    optimizer.zero_grad()


def test_the_closure_loop_is_right(gpt2, variable):
    applied, optimizer_steps, leftover = fw.applied_update(closure_on_the_last_microbatch, gpt2, variable)
    assert optimizer_steps == 1 and not leftover
    assert fw.rel(applied, fw.big_batch_gradient(gpt2, variable)) < 1e-5


def test_a_backward_in_the_step_closure_is_seen(gpt2, variable):
    report = check_loop(closure_on_the_last_microbatch, gpt2, variable, diagnose=False)
    assert report.passed, str(report)


# =========================================================================== 4. Fabric, as litgpt writes it
def test_litgpt_finetune_full_is_right_on_fixed_lengths(gpt2, fixed):
    report = check_loop(fw.litgpt_finetune_full, gpt2, fixed, optimizer=fw.litgpt_optimizer,
                        scheduler=fw.litgpt_scheduler)
    assert report.passed and report.normalization == "tokens", str(report)
    assert report.optimizer_steps == 1 and report.scheduler_steps == 1 and report.clip is None


def test_litgpt_finetune_full_on_padded_lengths_is_the_steps_normalization(gpt2, variable):
    report = check_loop(fw.litgpt_finetune_full, gpt2, variable, optimizer=fw.litgpt_optimizer,
                        scheduler=fw.litgpt_scheduler)
    assert report.symptom == "partition dependence" and report.normalization == "steps", str(report)
    assert "fabric.backward(loss / gradient_accumulation_iters)" in report.where


def test_litgpt_pretrain_clips_once_and_passes(gpt2):
    blocks = fw.pretraining_blocks()
    report = check_loop(fw.litgpt_pretrain(max_norm=1.0), gpt2, blocks, task="masked", optimizer=fw.litgpt_optimizer)
    assert report.passed and report.normalization == "tokens", str(report)
    assert report.optimizer_steps == 1 and report.supervised_items == 4 * 2 * 8
    assert report.clip is not None and report.clip["fired"] and report.clip["calls"] == 1
    assert report.clip["max_norm"] == 1.0 and "fabric.clip_gradients" in report.clip["where"]


def test_fabric_setup_keeps_the_checkers_hooks_on_the_copy(gpt2, fixed):
    """Ground truth for the Fabric verdicts: fabric.setup wraps the copy in a _FabricModule and
    setup_optimizers the optimizer in a _FabricOptimizer, and the one step reaches the torch
    optimizer underneath with the big-batch gradient (a constant learning rate here: litgpt's
    warmup starts at 0, which would leave the weights of the first update unchanged)."""
    constant = lambda optimizer: torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)  # noqa: E731
    applied, optimizer_steps, leftover = fw.applied_update(fw.litgpt_finetune_full, gpt2, fixed, scheduler=constant)
    assert optimizer_steps == 1 and not leftover
    assert fw.rel(applied, fw.big_batch_gradient(gpt2, fixed)) < 1e-5
    assert torch.isfinite(applied).all()

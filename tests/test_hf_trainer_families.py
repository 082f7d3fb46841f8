"""check_trainer on model families other than causal LMs: sequence and token classification, seq2seq
(T5, BART), with the Trainer's defaults, a ``compute_loss_func`` and ``num_items_in_batch``
(tests/corpus/families.py). The expert verdict of every set-up is first established without
gastudy: the update the Trainer really applied (plain SGD, lr 1), fitted against the big batch of
the same 8 samples through the model's own loss.

What this found: in transformers 5.24 the default Trainer gives these heads the SUM of the A
microbatch means (about 4× the big batch with A = 4): their forward takes ``**kwargs``, so the
Trainer passes ``num_items_in_batch`` and does not divide by A, but their loss is a plain mean that
drops the count (transformers issue #47688).
"""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("transformers")

from gastudy.hf import check_trainer  # noqa: E402
from tests.corpus import families as fm  # noqa: E402

FAMILIES = ["sequence classification", "token classification", "seq2seq T5", "seq2seq BART"]


@pytest.fixture(scope="module", autouse=True)
def quiet():
    import transformers

    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield
    transformers.logging.set_verbosity(verbosity)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_default_trainer_sums_the_microbatch_means_and_the_check_names_why(family):
    truth = fm.applied_over_big_batch(family)
    assert 3.5 < truth < 4.5  # the applied update is about A = 4 times the big batch: a real bug
    report = check_trainer(fm.trainer(family))
    assert not report.passed and report.rel_error > 2
    if family == "sequence classification":  # one item per sample, m fixed: a pure rescaling by A
        assert report.symptom == "missing division" and report.evidence["explained"]["k"] == pytest.approx(0.25)
    else:
        assert report.symptom == "partition dependence" and report.normalization == "sum of means"
    assert "ignores num_items_in_batch although its forward takes **kwargs" in report.message
    assert "transformers issue #47688" in report.message and "model.accepts_loss_kwargs = False" in report.message
    assert report.evidence["model_accepts_loss_kwargs"] and not report.evidence["compute_loss_overridden"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_compute_loss_func_summed_over_num_items_in_batch_passes(family):
    assert fm.applied_over_big_batch(family, loss=fm.summed_over_items) == pytest.approx(1.0, rel=1e-5)
    report = check_trainer(fm.trainer(family, loss=fm.summed_over_items))
    assert report.passed, report
    assert report.rel_error < 1e-5 and report.evidence["num_items_in_batch"] == report.supervised_items
    assert report.evidence["task"] == ("classification" if family == "sequence classification" else "masked")


@pytest.mark.parametrize("family", FAMILIES)
def test_the_suggested_fix_divides_by_a_the_mean_of_means_a_sequence_head_gets_right(family):
    truth = fm.applied_over_big_batch(family, accepts_loss_kwargs=False)
    report = check_trainer(fm.trainer(family, accepts_loss_kwargs=False))
    if family == "sequence classification":  # every microbatch holds m = 2 items: the mean of means is exact
        assert truth == pytest.approx(1.0, rel=1e-5) and report.passed, report
    else:  # per-token heads: the mean of microbatch means ÷ A, partition dependent
        assert abs(truth - 1) > 0.02
        assert report.symptom == "partition dependence" and report.normalization == "steps"
        assert "compute_loss_func that sums the per-item losses" in report.message


def test_a_family_whose_loss_is_not_a_cross_entropy_against_labels_gets_one_message():
    with pytest.raises(ValueError) as caught:
        check_trainer(fm.trainer("question answering"))
    text = str(caught.value)
    assert text.startswith("check_trainer cannot check BertForQuestionAnswering: its batches carry no 'labels'")
    assert "it trains on end_positions, start_positions" in text and "\n" not in text


def test_the_seq2seq_big_batch_builds_its_decoder_inputs_from_the_labels_as_the_model_does():
    """The default Trainer passes the labels to T5, which shifts them into decoder inputs; the big
    batch takes the labels away from the model, so it builds the same decoder inputs itself."""
    import torch

    from gastudy.check.reference import default_forward

    model = fm.t5()
    batch = fm.token_collate(fm.seq2seq_data()[:4])
    with torch.no_grad():
        theirs = model(**batch).logits
        ours = default_forward(model, batch).logits
    assert torch.equal(theirs, ours) and ours.shape[:2] == batch["labels"].shape


def test_logging_of_the_user_is_left_as_it_was():
    level = logging.getLogger("transformers").level
    check_trainer(fm.trainer("sequence classification", loss=fm.summed_over_items))
    assert logging.getLogger("transformers").level == level

import pytest
import torch

from gastudy.core.counting import count_supervised, target_labels
from gastudy.core.data import packed_collate, pad_collate
from gastudy.core.plan import BatchPlan, PlanError, plan_from_target
from gastudy.course.datasets import AdditionDataset
from gastudy.course.mistakes import count_unshifted, mean_of_means, weighted_mean


def test_effective_batch_and_share_mb2_example():
    plan = BatchPlan(micro_batch=2, accumulation_steps=8, replicas=2)
    assert (plan.effective_batch, plan.per_replica, plan.devices) == (32, 16, 2)


def test_tensor_and_pipeline_parallel_are_not_replicas():
    plan = BatchPlan(2, 8, replicas=2, tensor_parallel=4, pipeline_parallel=2)
    assert plan.effective_batch == 32 and plan.devices == 16


def test_plan_from_target_recomputes_A():
    assert plan_from_target(32, 2, replicas=2).accumulation_steps == 8
    assert plan_from_target(64, 4, tensor_parallel=8).accumulation_steps == 16


def test_plan_from_target_names_nearest_valid_choices():
    with pytest.raises(PlanError) as e:
        plan_from_target(30, 4, replicas=2)
    msg = str(e.value)
    assert "24 or 32" in msg and "[1, 3, 5, 15]" in msg


@pytest.mark.parametrize("bad", [0, -1, 2.5, "4", True])
def test_plan_rejects_non_positive_or_non_integer(bad):
    with pytest.raises(PlanError, match="micro_batch"):
        BatchPlan(bad, 4)
    with pytest.raises(PlanError, match="accumulation_steps"):
        BatchPlan(2, bad)


def test_512_1536_example():
    assert weighted_mean([2, 4], [512, 1536]) == 3.5
    assert mean_of_means([2, 4]) == 3.0
    with pytest.raises(ValueError, match="sum to zero"):
        weighted_mean([1.0], [0])


def test_causal_count_uses_the_shift():
    batch = {"labels": torch.tensor([[5, 6, 7, -100], [1, 2, -100, -100]])}
    assert count_supervised(batch, "causal") == 3  # labels[..., 1:]: 6, 7 and 2
    assert count_unshifted(batch) == 5  # one extra per row whose first label is supervised
    assert count_supervised(batch, "masked") == 5
    assert torch.equal(target_labels(batch, "causal"), batch["labels"][:, 1:])


def test_shift_labels_are_counted_as_given():
    batch = {"labels": torch.tensor([[1, 2, 3]]), "shift_labels": torch.tensor([[2, -100, -100]])}
    assert count_supervised(batch, "causal") == 1


def test_classification_counts_full_labels_and_ignores_minus_100():
    assert count_supervised({"labels": torch.tensor([0, 3, -100, 1])}, "classification") == 3


def test_padding_and_prompt_never_count_and_collators_agree():
    ds = AdditionDataset(10, seed=3)
    samples = [ds[i] for i in range(10)]
    answers = sum(int((s["labels"] != -100).sum()) for s in samples)  # answer digits + eos
    assert count_supervised(pad_collate(samples)) == answers  # position 0 (<bos>) is never supervised
    assert count_supervised(packed_collate(samples)) == answers


def test_plain_lm_data_overcounts_by_one_per_row_without_shift():
    ds = AdditionDataset(6, seed=1, supervise="all")
    batch = pad_collate([ds[i] for i in range(6)])
    assert count_unshifted(batch) - count_supervised(batch) == 6


def test_unknown_task_is_rejected():
    with pytest.raises(ValueError, match="unknown task 'seq2seq'"):
        count_supervised({"labels": torch.tensor([1])}, "seq2seq")


def test_missing_labels_says_what_to_do():
    with pytest.raises(KeyError, match="collator must supply labels"):
        count_supervised({"input_ids": torch.tensor([[1]])})

"""A refused group changes nothing: an inf/NaN gradient behind a finite loss is
refused with clipping on *and off*; BatchNorm running statistics polluted by a NaN input are
put back; the norm the finite check reads is exact and never overflows on finite values."""

from __future__ import annotations

import copy
import math

import pytest
import torch

from gastudy.core.data import MicrobatchStream
from gastudy.core.engine import Accumulator, NonFiniteLossError, total_norm, whole
from gastudy.core.groups import build_group
from gastudy.course.datasets import BlobDataset
from gastudy.course.mistakes import inject_overflow
from gastudy.course.models import build_model
from tests.helpers import addition_microbatches, group_of, tiny_gpt


def _state(model, opt, eng):
    return (copy.deepcopy(model.state_dict()), copy.deepcopy(opt.state_dict()), eng.counters.to_dict())


@pytest.mark.parametrize("clip", [None, 1.0])
def test_an_infinite_gradient_behind_a_finite_loss_is_refused_and_changes_nothing(clip):
    model = tiny_gpt(torch.float32)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda u: 1.0)
    eng = Accumulator(model, opt, accumulation_steps=2, clip_grad_norm=clip, scheduler=sched)
    mbs = addition_microbatches(8, 2)
    eng.update(group_of(mbs[:2]))  # a real update first: optimizer state exists
    before = _state(model, opt, eng)
    with inject_overflow(model), pytest.raises(NonFiniteLossError, match="inf/NaN|gradient norm is"):
        eng.update(group_of(mbs[2:4]))
    after = _state(model, opt, eng)
    assert all(torch.equal(before[0][k], after[0][k]) for k in before[0])  # every parameter as it was
    assert after[2] == before[2] and after[2]["updates_attempted"] == 1  # counters did not move
    assert torch.equal(before[1]["state"][0]["exp_avg"], after[1]["state"][0]["exp_avg"])
    assert sched.last_epoch == 1 and all(p.grad is None for p in model.parameters())
    assert eng.update(group_of(mbs[2:4])).applied  # and the engine goes on


def test_batchnorm_statistics_polluted_by_a_nan_input_are_restored():
    model = build_model("bn-mlp", seed=0)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    eng = Accumulator(model, opt, accumulation_steps=2, task="classification")
    mbs = list(MicrobatchStream(BlobDataset(16, seed=0), 4, seed=0).microbatches())
    eng.update(build_group(0, mbs[:2], 2, "classification"))
    stats = {k: v.clone() for k, v in model.state_dict().items() if "running" in k or "num_batches" in k}
    assert stats  # the model does keep running statistics
    poisoned = [dict(mb) for mb in mbs[2:4]]
    poisoned[1]["inputs"] = poisoned[1]["inputs"].clone()
    poisoned[1]["inputs"][0, 0] = float("nan")
    with pytest.raises(NonFiniteLossError):
        eng.update(build_group(1, poisoned, 2, "classification"))
    for k, v in stats.items():
        assert torch.equal(model.state_dict()[k], v), k  # NaN-free and not advanced
    assert eng.counters.updates_attempted == 1


def finite(params, norm_type=math.inf) -> bool:
    return math.isfinite(whole(total_norm(params, norm_type)))


@pytest.mark.parametrize("norm_type", [2.0, math.inf])
def test_the_finite_check_is_exact(norm_type):
    model = tiny_gpt(torch.float32)
    for p in model.parameters():
        p.grad = torch.randn_like(p)
    params = list(model.parameters())
    assert finite(params, norm_type)
    grads = [p.grad.clone() for p in params]
    for bad in (float("inf"), float("-inf"), float("nan")):
        params[-1].grad.view(-1)[3] = bad
        assert not finite(params, norm_type)
        params[-1].grad.copy_(grads[-1])
    assert finite(params, norm_type) and all(torch.equal(p.grad, g) for p, g in zip(params, grads))  # unchanged
    params[0].grad = None
    assert finite(params, norm_type) and finite([], norm_type)
    wide = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    wide.grad = torch.tensor([1.0, float("nan"), 0.0], dtype=torch.float64)
    assert not finite([wide], norm_type)


def test_the_norm_of_finite_16_bit_gradients_never_overflows_and_sparse_gradients_count():
    half = torch.nn.Parameter(torch.zeros(2, dtype=torch.float16))
    half.grad = torch.tensor([60000.0, 60000.0], dtype=torch.float16)  # the fp16 sum of squares overflows
    assert whole(total_norm([half])) == pytest.approx(60000.0 * 2**0.5) and finite([half])
    assert whole(total_norm([half], math.inf)) == 60000.0
    emb = torch.nn.Embedding(5, 2, sparse=True)
    emb(torch.tensor([1, 3, 3])).sum().backward()  # a sparse gradient, an index twice
    dense = emb.weight.grad.to_dense()
    assert whole(total_norm([emb.weight])) == pytest.approx(float(dense.norm())) and finite([emb.weight])
    emb.weight.grad = torch.sparse_coo_tensor(emb.weight.grad._indices(), emb.weight.grad._values() * float("nan"),
                                              emb.weight.grad.shape, check_invariants=True)
    assert not finite([emb.weight]) and not finite([emb.weight], 2.0)


def test_a_finite_fp16_model_is_not_refused_for_a_large_gradient():
    """Pure fp16 weights without a scaler: a gradient whose squares overflow fp16 is still finite."""
    class Linear(torch.nn.Linear):
        def forward(self, inputs):
            return super().forward(inputs)

    model = Linear(4, 2).half()
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    eng = Accumulator(model, opt, accumulation_steps=1, task="classification")
    batch = {"inputs": torch.full((2, 4), 300.0, dtype=torch.float16), "labels": torch.tensor([0, 1]),
             "sample_ids": torch.arange(2)}
    model.weight.register_hook(lambda g: g * 300)  # |gradient| in the tens of thousands, finite in fp16
    assert eng.update(build_group(0, [batch], 1, "classification")).applied


def test_the_engine_refuses_what_it_cannot_train_before_changing_anything():
    model = tiny_gpt(torch.float32)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
    with pytest.raises(ValueError, match="ReduceLROnPlateau.*step\\(metric\\) yourself"):
        Accumulator(model, opt, accumulation_steps=2, scheduler=plateau)
    with pytest.raises(ValueError, match="no parameters"):
        Accumulator(torch.nn.ReLU(), opt, accumulation_steps=2)
    frozen = tiny_gpt(torch.float32).requires_grad_(False)
    with pytest.raises(ValueError, match="frozen"):
        Accumulator(frozen, torch.optim.SGD(frozen.parameters(), lr=0.1), accumulation_steps=2)
    params = list(model.parameters())
    with pytest.warns(UserWarning, match=f"holds 1 of the model's {len(params)} trainable parameters"):
        Accumulator(model, torch.optim.SGD(params[:1], lr=0.1), accumulation_steps=2)
    eng = Accumulator(model, opt, accumulation_steps=4)
    before = copy.deepcopy(model.state_dict())
    with pytest.raises(ValueError, match="A=2 but the engine runs 'causal', A=4"):
        eng.update(group_of(addition_microbatches(4, 2), accumulation_steps=2))
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert eng.counters.updates_attempted == 0

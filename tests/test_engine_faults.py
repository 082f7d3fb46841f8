"""A refused group changes nothing: an inf/NaN gradient behind a finite loss is
refused with clipping on *and off*; BatchNorm running statistics polluted by a NaN input are
put back; the fused finite check itself is exact."""

from __future__ import annotations

import copy

import pytest
import torch

from gastudy.core.data import BlobDataset, MicrobatchStream
from gastudy.core.engine import Accumulator, NonFiniteLossError, gradients_finite
from gastudy.core.groups import build_group
from gastudy.core.models import build_model
from gastudy.core.precision import inject_overflow
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


def test_the_fused_finite_check_is_exact():
    model = tiny_gpt(torch.float32)
    for p in model.parameters():
        p.grad = torch.randn_like(p)
    params = list(model.parameters())
    assert gradients_finite(params)
    grads = [p.grad.clone() for p in params]
    for bad in (float("inf"), float("-inf"), float("nan")):
        params[-1].grad.view(-1)[3] = bad
        assert not gradients_finite(params)
        params[-1].grad.copy_(grads[-1])
    assert gradients_finite(params) and all(torch.equal(p.grad, g) for p, g in zip(params, grads))  # unchanged
    params[0].grad = None
    assert gradients_finite(params) and gradients_finite([])
    half = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    half.grad = torch.tensor([1.0, float("nan"), 0.0], dtype=torch.float64)
    assert not gradients_finite([half])


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
    with pytest.raises(ValueError, match="built for A=2 but the engine runs A=4"):
        eng.update(group_of(addition_microbatches(4, 2), accumulation_steps=2))
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert eng.counters.updates_attempted == 0


def test_a_kept_finite_check_resets_its_flag_and_takes_sparse_and_mixed_gradients():
    from gastudy.core.engine import FiniteCheck

    check = FiniteCheck()
    dense = torch.nn.Parameter(torch.zeros(4))
    wide = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    emb = torch.nn.Embedding(5, 2, sparse=True)
    emb(torch.tensor([1, 3])).sum().backward()  # a sparse gradient: the fused kernel refuses it
    dense.grad, wide.grad = torch.ones(4), torch.ones(3, dtype=torch.float64)
    params = [dense, wide, emb.weight]
    assert emb.weight.grad.is_sparse and check(params)
    for p, at in ((wide, 1), (emb.weight, None), (dense, 2)):
        grad = p.grad
        if at is None:  # an inf inside the sparse gradient's values
            p.grad = torch.sparse_coo_tensor(grad._indices(), grad._values() * float("inf"), grad.shape,
                                             check_invariants=True)
        else:
            p.grad = grad.clone()
            p.grad[at] = float("nan")
        assert not check(params), p.shape
        p.grad = grad
        assert check(params)  # the flag that fired was reset: a finite set passes again
    assert check([]) and check([torch.nn.Parameter(torch.zeros(2))])  # no gradient at all passes


def test_a_finite_check_built_on_the_engine_parameters_takes_the_fused_path_and_falls_back():
    from gastudy.core.engine import FiniteCheck

    model = tiny_gpt(torch.float32)
    params = list(model.parameters())
    check = FiniteCheck(params)
    assert check._fast is not None and check()  # no gradient yet: nothing to refuse
    for p in params:
        p.grad = torch.randn_like(p)
    saved = [p.grad.clone() for p in params]
    assert check()
    for bad in (float("inf"), float("nan")):
        params[5].grad.view(-1)[7] = bad
        assert not check() and not check(params)  # bound and explicit calls agree
        params[5].grad.copy_(saved[5])
        assert check()  # the flag that fired was reset
    assert all(torch.equal(p.grad, g) for p, g in zip(params, saved))  # the check leaves the values as they are
    emb = torch.nn.Embedding(5, 2, sparse=True)
    sparse_check = FiniteCheck([emb.weight, params[0]])
    assert sparse_check._fast is not None
    emb(torch.tensor([1, 3])).sum().backward()  # the fused kernel refuses a sparse gradient: the general path runs
    assert sparse_check()
    emb.weight.grad = torch.sparse_coo_tensor(emb.weight.grad._indices(), emb.weight.grad._values() * float("nan"),
                                              emb.weight.grad.shape, check_invariants=True)
    assert not sparse_check()
    with pytest.raises(TypeError, match="built without parameters"):
        FiniteCheck()()

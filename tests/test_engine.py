"""The engine: token normalization equals the big batch, wrong normalizations don't, the update
order, precision, counters, any-model support and bad input that changes nothing."""

import copy
import gc
import weakref

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from gastudy.check.steps import first_step_gradients, record_steps
from gastudy.check.verify import compare_gradients, reference_gradients
from gastudy.core.data import MicrobatchStream, pad_collate, split_batch
from gastudy.core.engine import Accumulator, EmptyGroupError, NonFiniteLossError
from gastudy.core.groups import build_group
from gastudy.core.loss import summed_loss
from gastudy.core.precision import Precision
from gastudy.course import mistakes
from gastudy.course.datasets import AdditionDataset, BlobDataset
from gastudy.course.mistakes import inject_overflow
from gastudy.course.models import build_model
from tests.helpers import addition_microbatches, group_of, tiny_gpt

DS = AdditionDataset(24, seed=7)
SAMPLES = [DS[i] for i in range(12)]


def engine_gradient(model, microbatches, normalization="tokens", accumulation_steps=None, **kw):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    eng = Accumulator(model, opt, accumulation_steps=accumulation_steps or len(microbatches),
                      normalization=mistakes.normalization(normalization), **kw)
    with record_steps(model, opt, track_applied=False) as steps:
        result = eng.update(build_group(0, microbatches, eng.accumulation_steps, eng.task))
    return first_step_gradients(steps), result, eng


def partition(samples, sizes):
    out, i = [], 0
    for s in sizes:
        out.append(pad_collate(samples[i : i + s]))
        i += s
    return out


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=6).filter(lambda sizes: sum(sizes) <= 12))
def test_tokens_normalization_equals_big_batch_for_any_partition(sizes):
    model = tiny_gpt()
    mbs = partition(SAMPLES, sizes)
    ref = reference_gradients(copy.deepcopy(model), mbs)
    got, _, _ = engine_gradient(model, mbs)
    _, rel = compare_gradients(got, ref)
    assert rel < 1e-12


def test_steps_and_mean_differ_when_counts_differ():
    mbs = partition(SAMPLES, [2, 2, 2, 2])
    counts = [int((mb["labels"][:, 1:] != -100).sum()) for mb in mbs]
    assert len(set(counts)) > 1
    ref = reference_gradients(tiny_gpt(), mbs)
    for norm in ("steps", "mean"):
        got, _, _ = engine_gradient(tiny_gpt(), mbs, norm)
        assert compare_gradients(got, ref)[1] > 1e-3, norm


def test_steps_matches_when_counts_are_equal():
    # MLP classification: every microbatch of 4 samples has exactly 4 supervised items.
    ds = BlobDataset(16, seed=2)
    mbs = [pad_collate([ds[i] for i in range(k, k + 4)]) for k in range(0, 16, 4)]
    model = build_model("ln-mlp", dtype=torch.float64)
    ref = reference_gradients(copy.deepcopy(model), mbs, "classification")
    for norm in ("steps", "mean", "tokens"):
        got, _, _ = engine_gradient(copy.deepcopy(model), mbs, norm, task="classification")
        assert compare_gradients(got, ref)[1] < 1e-12, norm


def test_packed_batches_with_shift_labels_equal_padded():
    padded = partition(SAMPLES, [3, 3, 3, 3])
    packed = [packed_mb for packed_mb in (
        __import__("gastudy.core.data", fromlist=["packed_collate"]).packed_collate(split_batch(mb)) for mb in padded)]
    g1, r1, _ = engine_gradient(tiny_gpt(), padded)
    g2, r2, _ = engine_gradient(tiny_gpt(), packed)
    assert r1.denominator == r2.denominator
    assert compare_gradients(g2, g1)[1] < 1e-12


def test_short_last_group_uses_its_true_denominator():
    mbs = addition_microbatches(12, 2)[:2]  # 2 microbatches although A = 4
    ref = reference_gradients(tiny_gpt(), mbs)
    got, res, _ = engine_gradient(tiny_gpt(), mbs, accumulation_steps=4)
    assert compare_gradients(got, ref)[1] < 1e-12
    # the constant-divisor mistake (÷A on a short group) under-weights it by exactly size/A
    got_steps, _, _ = engine_gradient(tiny_gpt(), mbs, "steps", accumulation_steps=4)
    got_mean, _, _ = engine_gradient(tiny_gpt(), mbs, "mean", accumulation_steps=4)
    for name in got_mean:
        torch.testing.assert_close(got_steps[name], got_mean[name] * 2 / 4)


def user_loss_per_item(output, batch, num_items):
    loss_sum, _ = summed_loss(output, batch)
    return loss_sum / num_items


def user_loss_mean(output, batch, num_items):
    loss_sum, items = summed_loss(output, batch)
    return loss_sum / items


def test_user_loss_declares_whether_it_is_already_normalized():
    mbs = addition_microbatches(8, 2)
    ref = reference_gradients(tiny_gpt(), mbs)
    good, _, _ = engine_gradient(tiny_gpt(), mbs, loss_fn=user_loss_per_item, loss_is_scaled_for_ga=True)
    assert compare_gradients(good, ref)[1] < 1e-12
    # a per-microbatch mean declared as such is divided by the group's size: the mean of means
    mean_of_means, _, _ = engine_gradient(tiny_gpt(), mbs, loss_fn=user_loss_mean, loss_is_scaled_for_ga=False)
    steps, _, _ = engine_gradient(tiny_gpt(), mbs, "mean")
    assert compare_gradients(mean_of_means, steps)[1] < 1e-12
    # declaring an already-normalized loss as not scaled divides twice: exactly A times too small
    double, _, _ = engine_gradient(tiny_gpt(), mbs, loss_fn=user_loss_per_item, loss_is_scaled_for_ga=False)
    for name in ref:
        torch.testing.assert_close(double[name] * 4, ref[name])


def test_update_order_and_counters():
    model = tiny_gpt()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    eng = Accumulator(model, opt, accumulation_steps=4, scheduler=sched, clip_grad_norm=1e-3)
    stream = MicrobatchStream(AdditionDataset(32, seed=1), 2, seed=1)
    groups = list(__import__("gastudy.core.groups", fromlist=["make_groups"]).make_groups(stream, 4))
    results = eng.run(groups)
    c = eng.counters
    assert (c.microbatches, c.backward_passes, c.updates_attempted, c.updates_applied, c.scheduler_steps) == (16, 16, 4, 4, 4)
    assert c.samples == 32 and c.supervised_tokens == sum(g.supervised_items for g in groups)
    assert [r.lr for r in results] == [0.5, 0.25, 0.125, 0.0625]  # one scheduler step per update
    assert all(r.grad_norm is not None and r.grad_norm > 1e-3 for r in results)  # norm before clipping
    assert all(p.grad is None for p in model.parameters())  # zeroed at the boundary


def test_clipping_sees_unscaled_gradients_under_fp16():
    mbs = addition_microbatches(8, 2)
    norms = []
    for precision in ("fp32", "fp16"):
        model = tiny_gpt(torch.float32)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        eng = Accumulator(model, opt, accumulation_steps=4, precision=precision, clip_grad_norm=1e9)
        norms.append(eng.update(group_of(mbs)).grad_norm)
    assert norms[1] == pytest.approx(norms[0], rel=2e-2)  # not multiplied by the 65536 scale


def test_injected_overflow_skips_the_update_lowers_the_scale_and_spares_the_scheduler():
    model = tiny_gpt(torch.float32)
    before = copy.deepcopy(model.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 1, 0.5)
    eng = Accumulator(model, opt, accumulation_steps=2, precision="fp16", scheduler=sched)
    mbs = addition_microbatches(8, 2)
    with inject_overflow(model):
        skipped = eng.update(group_of(mbs[:2]))
    assert not skipped.applied and skipped.scale == 65536.0 and eng.precision.scale == 32768.0
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert sched.last_epoch == 0
    ok = eng.update(group_of(mbs[2:4]))
    assert ok.applied and ok.scale == 32768.0
    c = eng.counters
    assert (c.updates_attempted, c.updates_applied, c.scheduler_steps) == (2, 1, 1)


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_autocast_precisions_run_on_cpu_and_stay_close(precision):
    mbs = addition_microbatches(8, 2)
    ref = reference_gradients(tiny_gpt(torch.float32), mbs)
    got, res, _ = engine_gradient(tiny_gpt(torch.float32), mbs, precision=precision)
    assert res.applied and compare_gradients(got, ref)[1] < 5e-2


def test_outputs_and_graphs_are_released_after_each_microbatch():
    model = tiny_gpt()
    alive = []
    model.register_forward_hook(lambda m, i, out: alive.append(weakref.ref(out.logits)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Accumulator(model, opt, accumulation_steps=4).update(group_of(addition_microbatches(8, 2)))
    gc.collect()
    assert len(alive) == 4 and all(r() is None for r in alive)


class HFStyleLM(nn.Module):
    """A Hugging Face-like causal LM: keyword inputs, returns an object with .logits."""

    def __init__(self):
        super().__init__()
        self.inner = tiny_gpt()

    def forward(self, input_ids, attention_mask=None, **kwargs):
        return type("Out", (), {"logits": self.inner(input_ids, attention_mask).logits, "loss": None})()


def test_any_model_with_logits_attribute_works_unchanged():
    mbs = addition_microbatches(8, 2)
    model = HFStyleLM()
    ref = reference_gradients(copy.deepcopy(model), mbs)
    got, _, _ = engine_gradient(model, mbs)
    assert compare_gradients(got, ref)[1] < 1e-12


def test_denominator_is_known_before_the_first_forward():
    events = []

    class Recording:
        size, rank = 1, 0

        def group_denominator(self, group):
            events.append(("denominator", group.supervised_items))
            return group.supervised_items

        def record_group(self, group):
            events.append(("record", group.index))

        def sync(self, model, last):
            events.append(("sync", last))
            return __import__("contextlib").nullcontext()

        def carry_loss(self, total):
            events.append(("carry",))

        def group_loss(self, total):
            return total

    model = tiny_gpt()
    model.register_forward_pre_hook(lambda *a: events.append(("forward",)))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Accumulator(model, opt, accumulation_steps=3, replicas=Recording()).update(group_of(addition_microbatches(6, 2)))
    assert events[0][0] == "denominator" and events[1] == ("record", 0)  # both before the first forward
    assert [e for e in events if e[0] == "sync"] == [("sync", False), ("sync", False), ("sync", True)]
    assert events.index(("forward",)) > 0


# --- bad input: a clear error, and nothing changes -------------------------------------------

def snapshot(eng):
    return (copy.deepcopy(eng.model.state_dict()), copy.deepcopy(eng.optimizer.state_dict()),
            eng.counters.to_dict())


def assert_unchanged(eng, snap):
    params, opt_state, counters = snap
    assert all(torch.equal(params[k], v) for k, v in eng.model.state_dict().items())
    assert eng.counters.to_dict() == counters
    assert eng.optimizer.state_dict()["state"] == opt_state["state"]
    assert all(p.grad is None for p in eng.model.parameters())


def make_engine(**kw):
    model = tiny_gpt()
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    return Accumulator(model, opt, accumulation_steps=kw.pop("accumulation_steps", 2), **kw)


def test_group_without_supervised_items_raises_before_any_forward():
    eng = make_engine()
    mbs = addition_microbatches(4, 2)
    for mb in mbs:
        mb["labels"][:] = -100
    snap = snapshot(eng)
    with pytest.raises(EmptyGroupError, match="no supervised item"):
        eng.update(group_of(mbs))
    assert_unchanged(eng, snap)


def test_label_logit_mismatch_on_a_later_microbatch_rolls_back_gradients():
    eng = make_engine()
    mbs = addition_microbatches(4, 2)
    mbs[1]["labels"] = mbs[1]["labels"][:, :-2]  # shorter than the logits
    snap = snapshot(eng)
    with pytest.raises(ValueError, match="do not match labels"):
        eng.update(group_of(mbs))
    assert_unchanged(eng, snap)


def test_nan_loss_without_scaler_raises_and_changes_nothing():
    eng = make_engine()
    with torch.no_grad():
        eng.model.head.weight[0, 0] = float("nan")
    snap = snapshot(eng)
    with pytest.raises(NonFiniteLossError, match="without a gradient scaler"):
        eng.update(group_of(addition_microbatches(4, 2)))
    params, _, counters = snap
    assert eng.counters.to_dict() == counters and all(p.grad is None for p in eng.model.parameters())


def test_inf_gradient_with_finite_loss_is_caught_when_clipping():
    eng = make_engine(clip_grad_norm=1.0)
    snap = snapshot(eng)
    with inject_overflow(eng.model), pytest.raises(NonFiniteLossError, match="a gradient is inf/NaN"):
        eng.update(group_of(addition_microbatches(4, 2)))
    assert_unchanged(eng, snap)


@pytest.mark.parametrize("kw, message", [
    ({"accumulation_steps": 0}, "accumulation_steps"),
    ({"accumulation_steps": 1.5}, "whole number"),
    ({"normalization": "batch"}, "unknown normalization 'batch'"),
    ({"precision": "fp8"}, "unknown precision 'fp8'"),
    ({"task": "regression"}, "unknown task"),
    ({"clip_grad_norm": 0}, "clip_grad_norm must be > 0"),
])
def test_bad_settings_are_rejected_with_a_clear_message(kw, message):
    with pytest.raises(ValueError, match=message):
        make_engine(**kw)


def test_group_counted_for_another_task_is_rejected():
    eng = make_engine(task="masked")
    snap = snapshot(eng)
    with pytest.raises(ValueError, match="built for task 'causal', A=2 but the engine runs 'masked'"):
        eng.update(group_of(addition_microbatches(4, 2)))
    assert_unchanged(eng, snap)


def test_scheduler_of_another_optimizer_is_rejected():
    model = tiny_gpt()
    other = torch.optim.SGD(tiny_gpt().parameters(), lr=0.1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="different optimizer"):
        Accumulator(model, opt, accumulation_steps=2, scheduler=torch.optim.lr_scheduler.StepLR(other, 1))


def test_optimizer_without_the_models_parameters_is_rejected():
    with pytest.raises(ValueError, match="none of the model's parameters"):
        Accumulator(tiny_gpt(), torch.optim.SGD(tiny_gpt().parameters(), lr=0.1), accumulation_steps=2)


def test_scaler_mismatches_are_rejected():
    with pytest.raises(ValueError, match="only used with fp16"):
        Precision("bf16", "cpu", scaler=torch.amp.GradScaler("cpu"))
    with pytest.raises(ValueError, match="is for 'cuda'"):
        Precision("fp16", "cpu", scaler=torch.amp.GradScaler("cuda", enabled=False))


# --- the reported loss: the group's token-weighted mean, in the model's precision ----------------

def big_batch_mean_loss(model, microbatches):
    from gastudy.core.data import concat_microbatches
    from gastudy.core.engine import model_inputs

    big = concat_microbatches(microbatches)
    with torch.no_grad():
        loss_sum, items = summed_loss(model(**model_inputs(big, torch.device("cpu"))), big)
    return loss_sum / items


@pytest.mark.parametrize("collate", ["padded", "packed"])
def test_reported_loss_is_the_big_batch_token_mean_in_float64(collate):
    mbs = addition_microbatches(8, 2, collate)  # 4 microbatches, different supervised counts
    assert len({int((mb["labels"] != -100).sum()) for mb in mbs}) > 1
    model = tiny_gpt(torch.float64)
    expected = big_batch_mean_loss(copy.deepcopy(model), mbs)
    assert expected.dtype == torch.float64
    _, result, _ = engine_gradient(model, mbs)
    # float64-exact up to rounding; a float32 accumulator would be off by ~1e-8
    assert result.loss == pytest.approx(float(expected), rel=1e-14, abs=0)


def test_reported_loss_of_a_float32_model_is_float32_close():
    mbs = addition_microbatches(8, 2)
    model = tiny_gpt(torch.float32)
    expected = big_batch_mean_loss(copy.deepcopy(model), mbs)
    _, result, _ = engine_gradient(model, mbs)
    assert result.loss == pytest.approx(float(expected), rel=1e-6)


def test_replicas_without_the_loss_methods_are_refused_before_anything_runs():
    class Old:
        size, rank = 1, 0

        def group_denominator(self, group):
            return group.supervised_items

        def sync(self, model, last):
            return __import__("contextlib").nullcontext()

    model = tiny_gpt()
    with pytest.raises(TypeError, match="lack record_group, carry_loss, group_loss"):
        Accumulator(model, torch.optim.SGD(model.parameters(), lr=0.1), accumulation_steps=2, replicas=Old())

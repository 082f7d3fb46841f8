"""The five detectors (MB-11) fire on their pitfalls with the right evidence and stay quiet on the engine."""

from __future__ import annotations

import functools

import pytest
import torch

from gastudy.check import diagnostics as D
from gastudy.check.steps import record_steps
from gastudy.core.counting import count_supervised
from gastudy.core.engine import model_inputs
from gastudy.core.loss import summed_loss
from gastudy.course import pitfalls as P
from gastudy.course.clinic import default_setup, run_clinic
from gastudy.course.datasets import AdditionDataset
from gastudy.course.mistakes import count_unshifted

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def setup() -> D.Setup:
    return default_setup()


def loop_without_step(model, optimizer, scheduler, group):
    """Accumulates correctly but never calls optimizer.step (the 'missing step' mistake)."""
    for mb in group.microbatches:
        loss_sum, _ = summed_loss(model(**model_inputs(mb, CPU)), mb, "causal")
        (loss_sum / group.supervised_items).backward()
    optimizer.zero_grad()
    return 0.0


# ------------------------------------------------------------------------------ double division
@pytest.mark.parametrize("A", [2, 4])
def test_double_division_fires_with_ratio_A(A):
    setup = default_setup(accumulation_steps=A)
    v = D.diagnose_double_division(P.double_division, setup)
    assert v.fired and v.symptom == "double division"
    assert v.evidence["k"] == pytest.approx(A, rel=0.05)
    assert v.evidence["k"] == pytest.approx(A, rel=1e-9)  # float64: exact
    assert v.evidence["loss_ratio"] == pytest.approx(A, rel=1e-6)  # the logged loss (float32) is A× too small
    assert v.evidence["uniform"]
    assert str(v).startswith(f"⚠ double division: the gradient is {A:.2f}× smaller than the big-batch gradient (A = {A})")
    assert "num_items" in str(v)


def test_double_division_quiet_on_engine_and_on_fix(setup):
    for fn in (P.correct_update, P.declared_scaled):
        v = D.diagnose_double_division(fn, setup)
        assert not v.fired, str(v)
        assert v.evidence["k"] == pytest.approx(1.0, rel=1e-9)
        assert v.evidence["loss_ratio"] == pytest.approx(1.0, rel=1e-6)
        assert str(v).startswith("✓ double division")


def test_unshifted_count_over_counts_by_rows_with_supervised_first_label(setup):
    group = setup.group(0)
    rows = sum(int((mb["labels"][:, 0] != -100).sum()) for mb in group.microbatches)
    assert rows == setup.micro_batch * setup.accumulation_steps  # supervise="all": every row
    unshifted = sum(count_unshifted(mb) for mb in group.microbatches)
    assert unshifted - group.supervised_items == rows
    v = D.diagnose_double_division(P.unshifted_count, setup)
    assert v.fired
    assert v.evidence["implied_denominator"] == pytest.approx(unshifted, rel=1e-9)
    assert v.evidence["rows_with_supervised_first_label"] == rows
    assert v.evidence["k"] == pytest.approx(unshifted / group.supervised_items, rel=1e-9)
    assert f"{rows} extra" in v.message


def test_unshifted_count_is_harmless_when_first_labels_are_ignored():
    data = AdditionDataset(32, max_digits=3, seed=0, supervise="answer")  # the prompt (and <bos>) is -100
    base = default_setup()
    setup = D.Setup(base.model, [data[i] for i in range(len(data))])
    group = setup.group(0)
    assert sum(count_unshifted(mb) for mb in group.microbatches) == sum(count_supervised(mb) for mb in group.microbatches)
    assert not D.diagnose_double_division(P.unshifted_count, setup).fired


def test_clip_before_unscale_shrinks_the_update_by_the_loss_scale(setup):
    v = D.diagnose_double_division(P.clip_before_unscale, setup)
    assert v.fired and v.evidence["uniform"]
    assert "unscale_" in v.message
    # Measured with a max_norm that clips in both orders: right order → norm max_norm; wrong → max_norm/scale.
    group, max_norm = setup.group(0), 0.1
    model, _, _ = setup.fresh()
    ref = D.reference_gradient(model, group, setup.task)
    assert float(ref.norm()) > 2 * max_norm
    grads, params = {}, {}
    for name, fn in [("right", P.clip_after_unscale), ("wrong", P.clip_before_unscale)]:
        model, optimizer, scheduler = setup.fresh()
        with record_steps(model, optimizer) as steps:
            functools.partial(fn, max_norm=max_norm)(model, optimizer, scheduler, group)
        assert len(steps) == 1 and steps[0].applied
        grads[name], params[name] = steps[0].gradient, torch.cat([p.detach().flatten() for p in model.parameters()])
    scale = P.scaler_for(optimizer).get_scale()
    assert scale == 2.0**16
    # clip_grad_norm_ scales by max_norm / (norm + 1e-6), hence rel=1e-5
    assert float(grads["right"].norm()) == pytest.approx(max_norm, rel=1e-5)
    assert float(grads["wrong"].norm()) == pytest.approx(max_norm / scale, rel=1e-5)
    for g in grads.values():  # both point like the big-batch gradient; only the size differs
        assert D.scale_fit(g, ref)[1] < 1e-9
    assert not torch.allclose(params["right"], params["wrong"])


# ------------------------------------------------------------------------------ partition dependence
def test_partition_dependence_mean_of_means_fires_engine_quiet(setup):
    bad = D.diagnose_partition_dependence(P.mean_of_means, setup)
    good = D.diagnose_partition_dependence(P.correct_update, setup)
    assert bad.fired and bad.evidence["max_rel_diff"] > 1e-2
    assert not good.fired and good.evidence["max_rel_diff"] < 1e-12
    splits = [(r["micro_batch"], r["accumulation_steps"]) for r in good.evidence["partitions"]]
    assert splits == [(2, 4), (8, 1), (1, 8), (4, 2), (2, 8)]
    assert all(r["microbatches"] * r["micro_batch"] == 8 for r in good.evidence["partitions"])


def test_partition_dependence_batchnorm_fires_layernorm_quiet():
    bn = D.diagnose_partition_dependence(P.correct_update, default_setup("bn-mlp"))
    ln = D.diagnose_partition_dependence(P.correct_update, default_setup("ln-mlp"))
    assert bn.fired and "BatchNorm" in bn.message and bn.evidence["max_rel_diff"] > 1e-2
    assert any("error" in r for r in bn.evidence["partitions"])  # one sample per microbatch: BatchNorm refuses
    assert not ln.fired and ln.evidence["max_rel_diff"] < 1e-12


def test_constant_divisor_under_weights_a_short_last_group_by_size_over_A():
    setup = default_setup("ln-mlp")  # classification, m samples per microbatch: ÷A is exact on full groups
    A = setup.accumulation_steps
    for size in (A, 3, 2, 1):
        group = setup.group(0, microbatches=size)
        model, _, _ = setup.fresh()
        ref = D.reference_gradient(model, group, setup.task)
        steps, _ = D._gradient_at_step(P.constant_divisor, setup, group)
        assert D.rel_diff(steps[0].gradient, ref * size / A) < 1e-12
    v = D.diagnose_partition_dependence(P.constant_divisor, setup)
    assert v.fired and "short" in v.message
    short = next(r for r in v.evidence["partitions"] if r["microbatches"] < r["accumulation_steps"])
    assert (short["micro_batch"], short["accumulation_steps"], short["microbatches"]) == (2, 2 * A, A)
    assert short["k"] == pytest.approx(2.0, rel=1e-9)


def test_regroup_keeps_the_samples(setup):
    group = setup.group(1)
    for m, A in D.default_partitions(setup.micro_batch, setup.accumulation_steps):
        g = D.regroup(group, m, A, setup.task)
        assert g.sample_ids == group.sample_ids
        assert g.supervised_items == group.supervised_items
        assert g.size == 8 // m and g.accumulation_steps == A
    with pytest.raises(ValueError, match="does not divide"):
        D.regroup(group, 3, 2)


# ------------------------------------------------------------------------------ ineffective accumulation
def test_zero_per_microbatch_keeps_only_the_last_contribution(setup):
    v = D.diagnose_ineffective_accumulation(P.zero_per_microbatch, setup)
    assert v.fired and "only the last of 4 microbatches" in v.message
    assert v.evidence["last_microbatch_residual"] < 1e-12
    assert v.evidence["steps"] == [1, 1]


def test_forget_zero_grad_leaks_the_previous_group(setup):
    v = D.diagnose_ineffective_accumulation(P.forget_zero_grad, setup)
    assert v.fired and "leftover" in v.message
    assert v.evidence["leftover_norm"] > 0.1
    assert v.evidence["leak_residual"] < 1e-12
    assert v.evidence["rel_diff"][0] < 1e-12  # the first group is still right: the leak shows on the second


def test_missing_step_fires_and_engine_is_quiet(setup):
    v = D.diagnose_ineffective_accumulation(loop_without_step, setup)
    assert v.fired and v.evidence["steps"] == [0, 0] and "optimizer.step() is missing" in v.message
    ok = D.diagnose_ineffective_accumulation(P.correct_update, setup)
    assert not ok.fired
    assert ok.evidence["steps"] == [1, 1] and ok.evidence["applied"] == [1, 1]
    assert max(ok.evidence["rel_diff"]) < 1e-12


# ------------------------------------------------------------------------------ memory growth
def test_keep_graph_grows_by_one_microbatch_per_microbatch(setup):
    v = D.diagnose_memory_growth(P.keep_graph, setup)
    e = v.evidence
    assert v.fired and "references are kept" in v.message
    # Nothing is released before the single backward: after microbatch k, exactly the first k graphs are alive.
    for k in range(setup.accumulation_steps):
        assert e["retained_saved"][k] == sum(e["saved_per_microbatch"][:k])
    assert e["growth_saved"] > 0.5 * min(e["saved_per_microbatch"])


def test_engine_releases_each_microbatch(setup):
    v = D.diagnose_memory_growth(P.correct_update, setup)
    assert not v.fired
    assert v.evidence["retained_saved"] == [0] * setup.accumulation_steps
    assert min(v.evidence["saved_per_microbatch"]) > 10_000  # the activations were there, then released


def test_kept_outputs_are_detected(setup):
    kept = []

    def keep_outputs(model, optimizer, scheduler, group):
        total = 0.0
        for mb in group.microbatches:
            out = model(**model_inputs(mb, CPU))
            kept.append(out.logits)  # backward below frees the graph, but the logits stay
            loss_sum, _ = summed_loss(out, mb, "causal")
            (loss_sum / group.supervised_items).backward()
            total += loss_sum.item()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        return total

    v = D.diagnose_memory_growth(keep_outputs, setup)
    assert v.fired and "outputs" in v.message
    assert v.evidence["retained_saved"] == [0] * setup.accumulation_steps
    assert v.evidence["retained_outputs"][-1] == sum(v.evidence["output_per_microbatch"][:-1])


def test_memory_growth_needs_three_microbatches():
    with pytest.raises(ValueError, match="at least 3 microbatches"):
        D.diagnose_memory_growth(P.keep_graph, default_setup(accumulation_steps=2))


# ------------------------------------------------------------------------------ schedule drift
def test_scheduler_per_microbatch_runs_A_times_too_fast(setup):
    v = D.diagnose_schedule_drift(P.scheduler_per_microbatch, setup, groups=3)
    e = v.evidence
    assert v.fired and "once per microbatch" in v.message
    assert e["applied_updates"] == 3 and e["scheduler_steps"] == 12 == 3 * setup.accumulation_steps
    assert e["per_group"] == [4, 4, 4]
    assert any("lr_scheduler.step()" in w for w in e["torch_warnings"])  # torch itself noticed the order
    assert e["lr"][-1] == pytest.approx(0.1 / (1 + 12)) and e["expected_lr"][-1] == pytest.approx(0.1 / (1 + 3))


def test_schedule_quiet_on_engine_and_fires_without_scheduler_step(setup):
    ok = D.diagnose_schedule_drift(P.correct_update, setup)
    assert not ok.fired and ok.evidence["scheduler_steps"] == ok.evidence["applied_updates"] == 3
    assert ok.evidence["lr"] == pytest.approx(ok.evidence["expected_lr"])
    no_sched = D.diagnose_schedule_drift(lambda m, o, s, g: P.correct_update(m, o, None, g), setup)
    assert no_sched.fired and no_sched.evidence["scheduler_steps"] == 0 and "never stepped" in no_sched.message


# ------------------------------------------------------------------------------ registry and clinic
def test_every_pitfall_is_caught_by_its_detector_and_its_fix_is_quiet(setup):
    cases = run_clinic(setup=setup)
    assert [c.pitfall for c in cases] == list(P.PITFALLS)
    for case in cases:
        assert case.detector in D.DETECTORS
        assert case.before.fired, f"{case.pitfall}: {case.before}"
        assert not case.after.fired, f"{case.pitfall} fixed: {case.after}"
        assert case.ok and str(case).startswith(case.pitfall)


def test_engine_is_quiet_on_all_detectors(setup):
    verdicts = D.diagnose_all(P.correct_update, setup)
    assert [v.symptom for v in verdicts] == ["double division", "partition dependence", "ineffective accumulation",
                                             "memory growth", "schedule drift"]
    assert not any(v.fired for v in verdicts), "\n".join(map(str, verdicts))


def test_detectors_need_a_world_and_the_course_gives_one():
    with pytest.raises(TypeError, match="setup"):
        D.diagnose_double_division(P.double_division)  # the library knows no model of its own
    v = D.diagnose_double_division(P.double_division, default_setup())
    assert v.fired and v.evidence["accumulation_steps"] == 4


def test_clear_errors(setup):
    with pytest.raises(KeyError, match="known: zero_per_microbatch"):
        run_clinic(["no_such_pitfall"], setup)
    with pytest.raises(ValueError, match="give Setup more samples"):
        setup.group(100)
    with pytest.raises(ValueError, match="unknown task"):
        D.Setup(setup.model, setup.samples, task="regression")


def test_the_loop_written_by_hand_is_the_engines_update_and_every_detector_is_quiet_on_it(setup):
    for name, detector in D.DETECTORS.items():
        verdict = detector(P.plain_update, setup)
        assert not verdict.fired, f"{name} fires on the hand-written loop: {verdict.message}"
    group, seen = setup.group(0), {}
    for update in (P.plain_update, P.correct_update):
        model, _, _ = setup.fresh()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.0)  # lr 0: the step runs, the weights stay
        grads = []
        hooks = [p.register_post_accumulate_grad_hook(lambda p, grads=grads: grads.append(p.grad.detach().clone()))
                 for p in model.parameters()]
        loss = update(model, optimizer, None, group)
        for h in hooks:
            h.remove()
        # the last accumulation of each parameter is the gradient the step used
        last = grads[-len(list(model.parameters())):]  # hooks fire in the same order in both runs
        seen[update.__name__] = (loss, torch.cat([g.flatten() for g in last]))
    (loss_hand, g_hand), (loss_engine, g_engine) = seen["plain_update"], seen["correct_update"]
    assert loss_hand == pytest.approx(loss_engine, rel=1e-12)
    assert float((g_hand - g_engine).abs().max() / g_engine.abs().max()) < 1e-12  # float64 setup


@pytest.mark.parametrize("name", list(P.PITFALLS))
def test_each_pitfall_is_shown_beside_the_update_written_right(name, capsys):
    from gastudy.course.labs.clinic import show_wrong_and_right

    text = show_wrong_and_right(name)
    wrong, right = P.PITFALLS[name].update.__name__, P.WRITTEN_RIGHT[name].__name__
    assert f"def {wrong}(" in text and f"def {right}(" in text and '"""' not in text
    assert sum("# WRONG" in line for line in text.splitlines()) >= 1
    assert "# WRONG" not in text.split(f"def {right}(")[1]

import json

import pytest

from gastudy.check.verify import TOLERANCES, verify_one_update
from gastudy.cli.main import main
from gastudy.core.record import RunRecord
from gastudy.course import mistakes


def test_default_configuration_passes_every_check():
    report = verify_one_update()
    assert report.passed and report.reasons == []
    assert report.max_rel_diff < TOLERANCES["fp32"]
    assert [c.name for c in report.checks] == [
        "gradient equals the big batch", "same sample ids", "finite gradients",
        "gradients zero at the group boundary", "exactly one optimizer step", "exactly one scheduler step"]
    r = report.record
    assert (r.micro_batch, r.accumulation_steps, r.replicas, r.effective_batch) == (2, 4, 1, 8)
    assert (r.updates_attempted, r.updates_applied, r.scheduler_steps) == (1, 1, 1)


@pytest.mark.parametrize("normalization", ["steps", "mean"])
def test_wrong_normalization_fails_on_variable_length_data(normalization):
    report = verify_one_update(normalization=mistakes.normalization(normalization))
    assert not report.passed
    assert report.max_rel_diff > 10 * TOLERANCES["fp32"]
    assert any("use 'tokens'" in r for r in report.reasons)


def test_batchnorm_model_fails_with_an_explanation():
    report = verify_one_update("bn-mlp")
    assert not report.passed and any("BatchNorm" in r for r in report.reasons)
    assert verify_one_update("ln-mlp").passed


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_reduced_precision_passes_within_its_tolerance(precision):
    report = verify_one_update(precision=precision)
    assert report.passed, report.reasons
    assert 0 < report.max_rel_diff < TOLERANCES[precision]


def test_packed_batches_pass():
    assert verify_one_update(collate="packed").passed


def test_verify_cli_exit_codes_and_json(capsys):
    assert main(["verify", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["passed"] is True and out["record"]["normalization"] == "tokens"
    assert main(["verify", "--normalization", "steps"]) == 1
    text = capsys.readouterr().out
    assert "FAILED" in text and "gradient equals the big batch" in text
    assert main(["verify", "--model", "bn-mlp"]) == 1
    assert "BatchNorm" in capsys.readouterr().out


def test_plan_cli(capsys):
    assert main(["plan", "--target", "32", "--micro-batch", "2", "--replicas", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["accumulation_steps"] == 8 and out["per_replica"] == 16
    assert main(["plan", "--target", "30", "--micro-batch", "4", "--json"]) == 2
    assert "nearest valid targets are 28 or 32" in json.loads(capsys.readouterr().out)["error"]


def test_record_round_trips_as_json_and_markdown(tmp_path):
    report = verify_one_update()
    js, md = report.record.save(tmp_path)
    loaded = RunRecord.load(js)
    assert loaded == report.record
    text = md.read_text()
    for field in ("micro_batch", "accumulation_steps", "replicas", "precision", "normalization",
                  "supervised_tokens", "updates_attempted", "updates_applied"):
        assert f"| {field} |" in text
    assert "every group was full" in text


# --- the verifier works on copies and knows float64 ---------------------------------------------

def _state(model, microbatches):
    import torch

    return ({k: v.clone() for k, v in model.state_dict().items()},
            {n: None if p.grad is None else p.grad.clone() for n, p in model.named_parameters()},
            [m.training for m in model.modules()],
            [{k: v.clone() for k, v in mb.items()} for mb in microbatches], [sorted(mb) for mb in microbatches],
            torch.get_rng_state())


def _same(a, b):
    import torch

    sd_a, g_a, mode_a, mbs_a, keys_a, rng_a = a
    sd_b, g_b, mode_b, mbs_b, keys_b, rng_b = b
    assert sd_a.keys() == sd_b.keys() and all(torch.equal(sd_a[k], sd_b[k]) for k in sd_a)
    assert all((g_a[n] is None) == (g_b[n] is None) and (g_a[n] is None or torch.equal(g_a[n], g_b[n])) for n in g_a)
    assert mode_a == mode_b and keys_a == keys_b and torch.equal(rng_a, rng_b)
    assert all(torch.equal(x[k], y[k]) for x, y in zip(mbs_a, mbs_b) for k in x)


@pytest.mark.parametrize("mode", ["eval", "train"])
def test_the_callers_model_gradients_mode_data_and_rng_are_untouched(mode):
    import torch

    from gastudy.course.models import build_model
    from tests.helpers import addition_microbatches

    model = build_model("tiny-gpt", seed=0, dtype=torch.float64, hidden=16, layers=2, heads=2)
    getattr(model, mode)()
    for p in model.parameters():  # the caller's own accumulated gradients must survive
        p.grad = torch.full_like(p, 0.25)
    mbs = [{k: v for k, v in mb.items() if k != "sample_ids"} for mb in addition_microbatches(8, 2)]
    before = _state(model, mbs)
    report = verify_one_update(model, microbatches=mbs, task="causal")
    _same(before, _state(model, mbs))
    assert report.passed, report.reasons
    assert report.config["precision"] == "fp64" and report.tolerance == TOLERANCES["fp64"] == 1e-12
    assert report.max_rel_diff < 1e-12
    assert report.record.notes and "numbered by position" in report.record.notes[0]
    assert [c.detail for c in report.checks if c.name == "same sample ids"] == [
        "8 samples used, 8 distinct, identical to the reference"]


def test_precision_is_inferred_and_fp64_needs_a_float64_model():
    import torch

    from gastudy.check.verify import verify_precision

    assert verify_precision(None, torch.float64) == verify_precision("fp32", torch.float64) == "fp64"
    assert verify_precision(None, torch.float32) == "fp32"
    assert verify_precision("bf16", torch.float64) == "bf16"
    with pytest.raises(ValueError, match="needs a float64 model.*model.double"):
        verify_precision("fp64", torch.float32)
    with pytest.raises(ValueError, match="unknown precision 'fp8'"):
        verify_one_update(precision="fp8")


def test_steps_normalization_still_fails_at_the_fp64_tolerance():
    import torch

    from gastudy.course.models import build_model
    from tests.helpers import addition_microbatches

    model = build_model("tiny-gpt", seed=0, dtype=torch.float64, hidden=16, layers=2, heads=2)
    report = verify_one_update(model, microbatches=addition_microbatches(8, 2), task="causal",
                               normalization=mistakes.Steps())
    assert not report.passed and report.rel_error > 1e-3 and report.tolerance == 1e-12

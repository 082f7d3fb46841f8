import json

import pytest

from gastudy.check.verify import TOLERANCES, verify_one_update
from gastudy.cli.main import main
from gastudy.core.record import RunRecord


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
    report = verify_one_update(normalization=normalization)
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

import json

import pytest
import torch

from gastudy.cli.main import main
from gastudy.run.resume import load_checkpoint
from gastudy.run.train import TrainConfig, train, updates_per_epoch

SMALL = dict(dataset_size=40, micro_batch=4, accumulation_steps=3, progress=False, epochs=2)


def test_updates_per_epoch_depends_on_policy():
    assert updates_per_epoch(10, 3, "keep") == 4 and updates_per_epoch(10, 3, "drop") == 3


@pytest.mark.parametrize("policy", ["keep", "drop"])
def test_training_record_counts_and_last_group(policy, tmp_path):
    run = train(TrainConfig(**SMALL, last_group=policy, out_dir=str(tmp_path)))
    r = run.record
    per_epoch = 4 if policy == "keep" else 3  # 10 microbatches per epoch, A = 3
    assert r.updates_attempted == r.updates_applied == r.scheduler_steps == 2 * per_epoch
    assert r.samples == (80 if policy == "keep" else 72)
    assert r.last_group["policy"] == policy and len(r.last_group["groups"]) == 2
    assert all(len(g["sample_ids"]) == 4 for g in r.last_group["groups"])  # one microbatch of 4 each epoch
    assert r.peak_memory_bytes["cpu"] > 10 * 2**20  # the process peak: at least the interpreter and torch
    saved = json.loads((tmp_path / "run_record.json").read_text())
    assert saved["updates_applied"] == r.updates_applied
    assert "short last group (epoch 0)" in (tmp_path / "run_record.md").read_text()


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_resume_is_bit_identical_on_cpu(precision, tmp_path):
    cfg = dict(SMALL, precision=precision)
    full = train(TrainConfig(**cfg, out_dir=str(tmp_path / "full")))
    first = train(TrainConfig(**cfg, out_dir=str(tmp_path / "part"), stop_after_updates=5, checkpoint_every=1))
    assert first.record.updates_attempted == 5 and "interrupted" in first.record.notes[0]
    state = load_checkpoint(tmp_path / "part" / "checkpoint.pt")
    assert state["position"] == {"epoch": 1, "microbatch": 3, "group": 1}
    resumed = train(TrainConfig(**cfg, out_dir=str(tmp_path / "part")), resume=True)
    for (name, a), b in zip(full.model.state_dict().items(), resumed.model.state_dict().values()):
        assert torch.equal(a, b), name
    assert resumed.record.updates_attempted == full.record.updates_attempted
    assert [u.loss for u in resumed.updates] == [u.loss for u in full.updates[5:]]


def test_resume_refuses_a_different_configuration(tmp_path):
    train(TrainConfig(**SMALL, out_dir=str(tmp_path), stop_after_updates=2))
    with pytest.raises(ValueError, match="accumulation_steps: checkpoint 3 vs now 2"):
        train(TrainConfig(**dict(SMALL, accumulation_steps=2), out_dir=str(tmp_path)), resume=True)


def test_resume_without_checkpoint_says_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        train(TrainConfig(**SMALL, out_dir=str(tmp_path)), resume=True)


def test_bad_training_settings_fail_before_running():
    with pytest.raises(ValueError, match="unknown precision"):
        train(TrainConfig(precision="fp8"))
    with pytest.raises(ValueError, match="micro_batch"):
        train(TrainConfig(micro_batch=0))


def test_train_cli_json_and_resume(tmp_path, capsys):
    args = ["train", "--dataset-size", "24", "--micro-batch", "4", "--accumulation-steps", "2",
            "--out", str(tmp_path), "--json"]
    assert main([*args, "--stop-after-updates", "1", "--checkpoint-every", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["updates_attempted"] == 1
    assert main([*args, "--resume"]) == 0
    assert json.loads(capsys.readouterr().out)["updates_attempted"] == 3
    with pytest.raises(SystemExit) as e:  # argparse rejects an unknown choice with status 2
        main(["train", "--precision", "fp8"])
    assert e.value.code == 2


def test_train_cli_rejects_bad_values(capsys):
    with pytest.raises(SystemExit) as e:  # refused while parsing: exit 2, one JSON object naming the flag
        main(["train", "--micro-batch", "0", "--json"])
    assert e.value.code == 2
    assert "--micro-batch" in json.loads(capsys.readouterr().out)["error"]

"""Make it fit: the ladder of settings, the choice it makes, and one update verified under it."""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

import gastudy.course  # noqa: F401 - registers the course's workloads (tiny-gpt)
from gastudy.check.verify import verify_fit, verify_one_update
from gastudy.core.checkpointing import checkpointed_layers
from gastudy.memory.fit import Setting, fit_to_budget, settings_ladder
from gastudy.memory.workload import synthetic_microbatches

MiB = 2**20


def test_the_ladder_is_cheapest_first_and_lower_precision_only_when_allowed():
    assert [s.label for s in settings_ladder(4)] == ["fp32", "fp32 · checkpoint 1/2", "fp32 · checkpoint 1/1"]
    assert [s.label for s in settings_ladder(1)] == ["fp32", "fp32 · checkpoint 1/1"]
    assert [s.label for s in settings_ladder(0, precisions=("fp32", "bf16"))] == ["fp32", "bf16"]
    cuda = settings_ladder(2, "cuda", ("fp32",))
    assert cuda[-1] == Setting(1, offload=True) and cuda[-1].label == "fp32 · checkpoint 1/1 · offload"
    with pytest.raises(ValueError, match="precisions must be distinct names"):
        settings_ladder(2, precisions=("fp8",))
    with pytest.raises(ValueError, match="precisions must be distinct names"):
        settings_ladder(2, precisions=("bf16", "bf16"))


def _table(peaks: dict[tuple[str, int], float], fixed: float = 40):
    """A measurement from a table (MiB) keyed by (setting label, m); records what was asked."""
    asked = []

    def measure(m, a, setting):
        asked.append((setting.label, m, a))
        return int(peaks[setting.label, m] * MiB), int(fixed * MiB)

    return measure, asked


def test_it_stops_at_the_first_setting_where_a_large_enough_m_fits():
    peaks = {("fp32", 8): 120, ("fp32", 4): 90, ("fp32", 2): 70,
             ("fp32 · checkpoint 1/2", 8): 95, ("fp32 · checkpoint 1/2", 4): 75, ("fp32 · checkpoint 1/2", 2): 60}
    measure, asked = _table(peaks)
    plan = fit_to_budget("tiny-gpt", 80 * MiB, 8, min_micro_batch=2, measure=measure)
    # fp32 already fits m = 2: the ladder goes no further
    assert (plan.setting, plan.micro_batch, plan.accumulation_steps) == (Setting(), 2, 4)
    assert {label for label, _, _ in asked} == {"fp32"}
    measure, asked = _table(peaks)
    plan = fit_to_budget("tiny-gpt", 80 * MiB, 8, min_micro_batch=4, measure=measure)
    assert (plan.setting, plan.micro_batch, plan.accumulation_steps) == (Setting(2), 4, 2)
    assert plan.peak_bytes == 75 * MiB and [r.fits for r in plan.rungs] == [False, True]
    assert sorted(asked) == sorted([("fp32", 8, 1), ("fp32", 4, 2), ("fp32 · checkpoint 1/2", 8, 1),
                                    ("fp32 · checkpoint 1/2", 4, 2)])  # m = 2 is below the minimum: never run
    assert plan.verdict.startswith("fp32 · checkpoint 1/2: m=4, A=2 fits (measured peak 75.0 MiB ≤ budget 80.0 MiB)")
    assert "did not fit an m ≥ 4: fp32." in plan.verdict
    assert plan.verify_kwargs() == {"micro_batch": 4, "accumulation_steps": 2, "precision": "fp32",
                                    "every_n_layers": 2, "offload": False}
    assert [r["setting"] for r in plan.rows()] == ["fp32"] * 2 + ["fp32 · checkpoint 1/2"] * 2


def test_a_fixed_part_over_the_budget_ends_the_search_and_says_why():
    measure, asked = _table({(label, m): 150 for label in ("fp32", "fp32 · checkpoint 1/2") for m in (1, 2)}, fixed=120)
    plan = fit_to_budget("tiny-gpt", 100 * MiB, 2, measure=measure)
    assert plan.chosen is None and plan.micro_batch is None and len(plan.rungs) == 1
    assert "weights, gradients and optimizer state alone take 120.0 MiB, and no setting here shrinks them" in plan.verdict
    with pytest.raises(ValueError, match="nothing fits, so there is nothing to verify"):
        plan.verify_kwargs()


def test_bad_requests_are_refused_before_anything_is_measured():
    def measure(*_):
        raise AssertionError("measured")

    with pytest.raises(ValueError, match="min_micro_batch=64 is larger than every m"):
        fit_to_budget("tiny-gpt", 100 * MiB, 32, min_micro_batch=64, measure=measure)
    with pytest.raises(ValueError, match="budget_bytes"):
        fit_to_budget("tiny-gpt", 0, 32, measure=measure)
    with pytest.raises(ValueError, match="precisions"):
        fit_to_budget("tiny-gpt", 100 * MiB, 32, precisions=(), measure=measure)


def test_a_real_fit_measures_checkpointing_lower_and_its_update_equals_the_big_batch():
    """Real measurements of tiny-gpt (process memory: a few MiB of noise between runs, so 64-token
    samples, whose activations are large against it): with a budget 15 MiB under the plain run's
    peak at m = 16, a checkpointing setting is chosen, and one update under it passes. Measured
    here: plain 159 MiB, every 2nd layer 127–138, every layer 101–125."""
    plain = fit_to_budget("tiny-gpt", 10_000 * MiB, 32, min_micro_batch=16, seq_len=64)
    assert plain.setting == Setting() and plain.micro_batch == 32  # everything fits a huge budget
    peak16 = next(r["peak MiB"] for r in plain.rows() if r["m"] == 16)
    plan = fit_to_budget("tiny-gpt", int((peak16 - 15) * MiB), 32, min_micro_batch=16, seq_len=64)
    assert plan.setting is not None and plan.setting.every_n_layers is not None, plan.verdict
    report = verify_fit(plan, "tiny-gpt")  # the widened tiny-gpt it measured, on its controlled data
    assert report.passed and report.rel_error <= report.tolerance
    assert report.config["every_n_layers"] == plan.setting.every_n_layers
    assert (report.config["micro_batch"], report.config["accumulation_steps"]) == (plan.micro_batch,
                                                                                   plan.accumulation_steps)


class Block(gastudy.CheckpointLayer):
    def __init__(self, width: int):
        super().__init__()
        self.norm, self.up, self.down = nn.LayerNorm(width), nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(self.norm(x))))


class OwnNet(nn.Module):
    def __init__(self, width: int = 64, depth: int = 3):
        super().__init__()
        self.inp = nn.Linear(16, width)
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.out = nn.Linear(width, 5)

    def forward(self, inputs):
        x = self.inp(inputs)
        for block in self.blocks:
            x = block(x)
        return self.out(x)


def test_your_own_model_is_verified_with_checkpointing_and_left_as_it_was():
    torch.manual_seed(0)
    net = OwnNet()
    before = copy.deepcopy(net.state_dict())
    mbs = synthetic_microbatches(net, 4, 3)
    report = verify_one_update(net, 4, 3, microbatches=mbs, task="classification", every_n_layers=1)
    assert report.passed and report.rel_error <= report.tolerance
    assert checkpointed_layers(net) == []  # the copies were checkpointed, not yours
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())
    with pytest.raises(ValueError, match="no marked layer"):
        verify_one_update(nn.Sequential(nn.Linear(16, 5)), 4, 1, microbatches=mbs[:1], task="classification",
                          every_n_layers=1)


def test_a_fit_for_your_own_model_is_verified_on_it():
    torch.manual_seed(0)
    net = OwnNet()
    measure, _ = _table({(label, m): peak for label, peak in (("fp32", 90), ("fp32 · checkpoint 1/2", 70),
                                                               ("fp32 · checkpoint 1/1", 60)) for m in (2, 4, 8)})
    plan = fit_to_budget(net, 80 * MiB, 8, min_micro_batch=2, measure=measure)
    assert plan.setting == Setting(2) and plan.micro_batch == 8
    report = verify_fit(plan, net)
    assert report.passed and report.config["every_n_layers"] == 2 and report.config["task"] == "classification"
    assert checkpointed_layers(net) == []


def test_a_model_with_nothing_to_checkpoint_gets_a_note_and_a_shorter_ladder():
    measure, asked = _table({("fp32", m): 500 for m in (1, 2)})
    plan = fit_to_budget(nn.Sequential(nn.Linear(16, 5)), 100 * MiB, 2, measure=measure)
    assert [r.setting.label for r in plan.rungs] == ["fp32"]
    assert "no layer of this model can be checkpointed" in plan.notes[0]


def test_the_command_line_fits_and_verifies(capsys):
    import json

    from gastudy.cli.memory import main

    assert main(["--budget", "10GiB", "--target", "8", "--fit", "--min-micro-batch", "2", "--micro-batch", "2",
                 "--groups", "1", "--layers", "2", "--json"]) == 0
    fit = json.loads(capsys.readouterr().out)["fit"]
    assert (fit["micro_batch"], fit["accumulation_steps"], fit["setting"]) == (
        8, 1, {"every_n_layers": None, "offload": False, "precision": "fp32"})
    assert [r["m"] for r in fit["rows"]] == [8, 4, 2] and all(r["fits"] for r in fit["rows"])
    assert fit["verify"]["passed"] and fit["verify"]["rel_error"] <= fit["verify"]["tolerance"]
    assert main(["--fit"]) == 2
    assert "--fit needs --budget" in capsys.readouterr().err


def test_a_hugging_face_model_is_fitted_with_your_batches_and_verified_checkpointed():
    """A Transformers model's inputs cannot be invented: make_batch(m) gives them, to every
    measurement and to the verification, which runs under the chosen checkpointing."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=64, n_positions=16, bos_token_id=0,
                                     eos_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    net = transformers.GPT2LMHeadModel(config)
    made = []

    def make_batch(m):
        ids = torch.randint(0, 64, (m, 16))
        made.append(m)
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}

    plan = fit_to_budget(net, 10_000 * MiB, 4, min_micro_batch=2, make_batch=make_batch)
    assert (plan.setting, plan.micro_batch, plan.accumulation_steps) == (Setting(), 4, 1)
    assert made == [4, 4, 2, 2, 2, 2]  # A × 2 groups per measurement: m = 4 (A = 1), then m = 2 (A = 2)
    measure, _ = _table({("fp32", m): 90 for m in (1, 2, 4)} | {("fp32 · checkpoint 1/2", 4): 90,
                                                                 ("fp32 · checkpoint 1/2", 2): 70,
                                                                 ("fp32 · checkpoint 1/2", 1): 60})
    chosen = fit_to_budget(net, 80 * MiB, 4, min_micro_batch=2, measure=measure)
    report = verify_fit(chosen, net, make_batch=make_batch)
    assert (chosen.micro_batch, chosen.accumulation_steps) == (2, 2)
    assert report.passed and report.config["every_n_layers"] == 2 and report.rel_error <= report.tolerance
    assert checkpointed_layers(net) == []


def test_ctrl_c_during_a_fit_is_one_line_and_exit_130(monkeypatch, capsys):
    import json

    import gastudy.cli.memory as cli

    def interrupted(*_, **__):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "fit_to_budget", interrupted)
    assert cli.main(["--budget", "1GiB", "--target", "8", "--fit", "--micro-batch", "2", "--groups", "1",
                     "--layers", "1", "--json"]) == 130
    assert json.loads(capsys.readouterr().out) == {
        "error": "memory: interrupted (SIGINT) before the measurements finished; nothing was written", "exit": 130}

"""Memory probes (CK-1, CK-4, GA-1, MB-9): exact saved bytes, process/allocator peaks, the
phase timeline, the CK-4 formula and the `memory` CLI."""

import json
import warnings

import pytest
import torch

from gastudy.cli.memory import main, parse_bytes
from gastudy.core.checkpointing import checkpointing
from gastudy.course.models import build_model
from gastudy.memory.planner import measure_peak
from gastudy.memory.probes import MemoryProbe, device_probes, state_bytes
from gastudy.memory.saved import SavedTensorCounter, format_bytes, formula_check, saved_bytes
from gastudy.memory.timeline import phase_timeline
from gastudy.memory.workload import synthetic_microbatches

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
SMALL = {"hidden": 32, "layers": 4, "heads": 2}
M, T, H = 4, 16, 32


@pytest.fixture(scope="module")
def gpt():
    return build_model("tiny-gpt", **SMALL).train()


def one_batch(model, m=M, seq_len=T):
    return synthetic_microbatches(model, m, 1, seq_len)[0]


def test_each_storage_is_counted_once():
    x = torch.randn(1000, requires_grad=True)
    with SavedTensorCounter() as counter:
        y = x.exp()  # saves its output (4000 bytes)
        (y * y).sum()  # saves y twice: same storage
        (y[:10] * 2).sum()  # a view of y saves nothing new
    r = counter.result()
    assert r.total == 4000 and r.tensors >= 3
    with torch.no_grad(), SavedTensorCounter() as counter:
        x.exp()
    assert counter.result().total == 0


def test_checkpointed_layers_keep_exactly_their_inputs(gpt):
    batch = one_batch(gpt)
    plain = saved_bytes(gpt, batch)
    layer_input = M * T * H * 4
    mask = M * T * T  # the shared bool attention mask, saved once
    with checkpointing(gpt, every_n_layers=1):
        every = saved_bytes(gpt, batch)
    assert [every.layer(k) for k in (1, 2, 3, 4)] == [layer_input + mask] + [layer_input] * 3
    assert all(plain.layer(k) > 5 * layer_input for k in (1, 2, 3, 4))
    assert every.by_layer["other"] == plain.by_layer["other"] and every.by_layer["loss"] == plain.by_layer["loss"]
    assert every.total < plain.total / 3
    with checkpointing(gpt, every_n_layers=2):
        half = saved_bytes(gpt, batch)
    assert [half.layer(k) for k in (1, 3)] == [layer_input + mask, layer_input]
    assert [half.layer(k) for k in (2, 4)] == [plain.layer(2), plain.layer(4)]
    assert every.total < half.total < plain.total
    assert plain.parameter_bytes > 0 and plain.by_device == {"cpu": plain.total}


def test_eval_mode_does_not_checkpoint(gpt):
    batch = one_batch(gpt)
    plain = saved_bytes(gpt, batch)
    with checkpointing(gpt, every_n_layers=1):
        gpt.eval()
        try:
            assert saved_bytes(gpt, batch).total == plain.total
        finally:
            gpt.train()


def test_offload_on_cpu_moves_nothing(gpt):
    batch = one_batch(gpt)
    with checkpointing(gpt, every_n_layers=1):
        kept = saved_bytes(gpt, batch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with checkpointing(gpt, every_n_layers=1, offload=True) as state:
            assert "nothing to move" in state.note
            offloaded = saved_bytes(gpt, batch)
    assert offloaded.by_layer == kept.by_layer


@pytest.mark.parametrize("every_n_layers", [None, 1])
def test_saved_bytes_scale_with_microbatch(gpt, every_n_layers):
    one_batch_of_16 = synthetic_microbatches(gpt, 16, 1, T)[0]
    microbatch_of_2 = synthetic_microbatches(gpt, 2, 8, T)[0]  # the same 16 samples as m=2 × A=8
    with checkpointing(gpt, every_n_layers):
        big = saved_bytes(gpt, one_batch_of_16).total
        small = saved_bytes(gpt, microbatch_of_2).total
    assert 7.0 <= big / small <= 9.0  # about 8×: a few position-only tensors do not scale with m


def test_cpu_probe_reports_sane_numbers_and_resets():
    probe = MemoryProbe("cpu")
    assert probe.note and probe.kind
    now, peak = probe.current_bytes(), probe.peak_bytes()
    assert 10 * 2**20 < now <= peak
    block = torch.ones(16 * 2**20)  # 64 MiB, touched
    high = probe.peak_bytes()
    assert high - now >= 48 * 2**20
    del block
    probe.release()
    if probe.resettable:
        probe.reset_peak()
        assert probe.peak_bytes() < high - 32 * 2**20
    assert "cpu" in device_probes()


def test_cuda_probe_refused_without_cuda():
    if torch.cuda.is_available():
        pytest.skip("CUDA is present")
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        MemoryProbe("cuda")


def test_phase_timeline_shows_gradients_and_optimizer_state_appear():
    A, groups = 2, 2
    tl = phase_timeline("tiny-gpt", micro_batch=2, accumulation_steps=A, groups=groups, seq_len=T, model_kwargs=SMALL)
    phases = [r.phase for r in tl.rows]
    assert phases[:6] == ["baseline", "forward 1.1", "backward 1.1", "forward 1.2", "backward 1.2", "update 1"]
    assert len(tl.rows) == 1 + groups * (2 * A + 1)
    weights = state_bytes(build_model("tiny-gpt", **SMALL))["weights"]
    base, fwd, bwd, first = tl.rows[0], tl.rows[1], tl.rows[2], tl.rows[5]
    assert base.weight_bytes == weights and base.grad_bytes == base.optimizer_bytes == 0
    assert fwd.saved_bytes > 0 and fwd.grad_bytes == 0
    assert bwd.grad_bytes == weights and bwd.saved_bytes == 0
    assert first.stage == "first update" and 2 * weights <= first.optimizer_bytes <= 2 * weights + 1024
    assert [r.stage for r in tl.rows[6:]] == ["steady"] * 5
    assert all(r.current_bytes > 0 and r.peak_bytes > 0 for r in tl.rows)
    assert tl.forward_only_peak > 0 and tl.peak >= tl.first_group_peak
    assert "optimizer state" in tl.summary()
    assert tl.to_table(markdown=True).count("\n") == len(tl.rows) + 1
    assert tl.to_table()[0]["phase"] == "baseline"
    json.dumps(tl.to_dict())
    ax = tl.plot()
    assert len(ax.get_xticklabels()) == len(tl.rows)


def test_phase_timeline_with_checkpointing_saves_less():
    kw = dict(micro_batch=2, accumulation_steps=1, groups=1, seq_len=T, model_kwargs=SMALL, warmup=False)
    plain = phase_timeline("tiny-gpt", **kw).rows[1].saved_bytes
    ckpt = phase_timeline("tiny-gpt", every_n_layers=1, **kw).rows[1].saved_bytes
    assert ckpt < plain / 3


@pytest.mark.parametrize("n, layers", [(1, 4), (2, 2), (4, 1)])
def test_formula_matches_measurement(n, layers):
    f = formula_check("tiny-gpt", micro_batch=M, seq_len=T, every_n_layers=n, model_kwargs=SMALL)
    assert f.checkpointed == layers
    assert f.formula_bytes == layers * M * T * H * 4
    assert f.measured_bytes == f.formula_bytes + f.mask_bytes
    assert 1.0 < f.ratio < 1.2


def test_measure_peak_counts_fixed_state():
    pm = measure_peak(2, 2, "tiny-gpt", seq_len=T, model_kwargs=SMALL, groups=2)
    weights = state_bytes(build_model("tiny-gpt", **SMALL))["weights"]
    assert 4 * weights <= pm.fixed_bytes <= 4 * weights + 1024  # weights + grads + two AdamW states
    assert pm.peak_bytes > 0 and pm.saved_bytes > 0


def test_memory_cli_json(capsys):
    code = main(["--micro-batch", "2", "--accumulation-steps", "1", "--groups", "1", "--hidden", "32",
                 "--seq-len", "16", "--every-n-layers", "2", "--budget", "1GiB", "--target", "2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    run = out["runs"][0]
    assert run["micro_batch"] == 2 and run["timeline"]["rows"][0]["phase"] == "baseline"
    assert run["formula"]["checkpointed"] == 2 and run["saved_bytes"]["total"] > 0
    assert out["plan"]["micro_batch"] == 2 and out["plan"]["accumulation_steps"] == 1


def test_memory_cli_text_and_errors(capsys):
    assert main(["--micro-batch", "1", "--accumulation-steps", "1", "--groups", "1", "--hidden", "32",
                 "--seq-len", "8"]) == 0
    assert "| baseline |" in capsys.readouterr().out
    assert main(["--micro-batch", "1", "--seq-len", "999", "--hidden", "32"]) == 2
    assert "max_len" in capsys.readouterr().err


def test_parse_bytes_and_format():
    assert parse_bytes("512MiB") == 512 * 2**20 and parse_bytes("2GB") == 2 * 10**9 and parse_bytes("1e6") == 10**6
    with pytest.raises(Exception, match="cannot read"):
        parse_bytes("lots")
    assert format_bytes(1536) == "1.5 KiB" and format_bytes(12) == "12 B"


@cuda
def test_cuda_probe_timeline_and_offload():
    probe = MemoryProbe("cuda")
    probe.reset_peak()
    x = torch.ones(2**20, device="cuda")
    assert probe.peak_bytes() >= 4 * 2**20 and probe.current_bytes() >= 4 * 2**20
    del x
    tl = phase_timeline("tiny-gpt", 2, 2, 2, device="cuda", seq_len=T, model_kwargs=SMALL)
    assert tl.probe == "cuda allocator" and tl.rows[5].optimizer_bytes > 0
    kept = formula_check("tiny-gpt", M, T, 1, offload=False, device="cuda", model_kwargs=SMALL)
    moved = formula_check("tiny-gpt", M, T, 1, offload=True, device="cuda", model_kwargs=SMALL)
    assert kept.measured_bytes == kept.formula_bytes + kept.mask_bytes
    assert moved.measured_bytes < kept.measured_bytes / 10

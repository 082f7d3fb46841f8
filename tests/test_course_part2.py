"""Labs of the course's part 2 (chapters 06–12), driven headless: set controls, read results."""

from __future__ import annotations

import math

import pytest
import torch

from gastudy.course.exercises import check_exercise


@pytest.fixture(autouse=True)
def _close_figures():
    """Labs draw with pyplot on construction; close their figures after each test (Agg keeps them)."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")

# ----------------------------------------------------------------------------- 07 (MB-8, GA-2)


def test_normalization_lab_batchnorm_gap_layernorm_exact():
    from gastudy.course.labs.experiment import NormalizationLab

    lab = NormalizationLab(micro_batch=2, accumulation_steps=2)
    gaps = lab.result.gaps
    assert gaps["ln-mlp"] < 1e-5 and gaps["mlp"] < 1e-5
    assert gaps["bn-mlp"] > 1e-2
    assert lab.result.bn_gap_by_m == pytest.approx({2: gaps["bn-mlp"], 4: 0.0})
    lab.controls["accumulation_steps"].value = 1  # one microbatch = the big batch: BatchNorm matches too
    assert lab.result.gaps["bn-mlp"] == 0.0


def test_normalization_lab_rejects_single_sample_batchnorm():
    from gastudy.course.labs.experiment import norm_gap

    with pytest.raises(ValueError, match="at least 2 samples"):
        norm_gap(1, 4)


def test_rounding_lab_sizes_per_precision():
    from gastudy.course.labs.experiment import RoundingLab

    lab = RoundingLab(micro_batch=2, accumulation_steps=2, updates=5)
    one, drift = lab.result.one_update, lab.result.drift
    assert one["fp64"] < 1e-12 < one["fp32"] < 1e-4 < one["bf16"] < 5e-2
    assert 0 <= drift["fp64"] < 1e-9 < drift["fp32"]
    lab.controls["accumulation_steps"].value = 1  # same split both ways: identical bits
    assert lab.result.one_update["fp32"] == 0.0 and lab.result.drift["fp32"] == 0.0


def test_updates_per_epoch_counted_on_the_stream():
    from gastudy.course.labs.experiment import UpdatesPerEpochLab

    lab = UpdatesPerEpochLab(dataset_size=1000, micro_batch=8)
    assert [(r.plan.effective_batch, r.updates, r.partial_samples) for r in lab.result] == [
        (8, 125, 0), (16, 63, 8), (32, 32, 8), (64, 16, 40), (128, 8, 104)]
    lab.controls["last_group"].value = "drop"
    assert [r.updates for r in lab.result] == [125, 62, 31, 15, 7]
    assert all(r.updates == r.formula for r in lab.result)
    lab.controls["replicas"].value = 2  # 500 samples per replica: 63 microbatches, the last of 4 samples
    assert [r.updates for r in lab.result] == [63, 31, 15, 7, 3]


def test_throughput_lab_same_samples_three_splits():
    from gastudy.course.labs.experiment import ThroughputLab, best_samples_per_s

    lab = ThroughputLab(hidden=64, seq_len=16, repeats=3)
    assert [(r.micro_batch, r.accumulation_steps) for r in lab.result] == [(32, 1), (4, 8), (1, 32)]
    big, mid, small = lab.result
    assert big.saved_bytes > mid.saved_bytes > small.saved_bytes  # exact bytes, not timings
    assert all(len(r.timing.times_s) == 3 and best_samples_per_s(r) > 0 for r in lab.result)
    assert torch.get_num_threads() >= 1  # the lab restores the thread count


def test_steady_timing_restores_threads():
    from gastudy.course.labs.experiment import steady_timing

    before = torch.get_num_threads()
    with steady_timing("cpu"):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_ch07_exercises(capsys):
    assert check_exercise("07.1", None).ok is False
    assert check_exercise("07.1", math.ceil(1000 / 48)).ok is True
    assert check_exercise("07.1", 1000 // 48).ok is False
    assert "drops the short last group" in capsys.readouterr().out
    assert check_exercise("07.3", 20).ok is True and check_exercise("07.3", 10).ok is False


# ----------------------------------------------------------------------------- 06 (MB-7): real processes


@pytest.mark.slow
def test_denominator_lab_global_matches_big_batch():
    from gastudy.course.labs.data_parallel import DenominatorLab

    r = DenominatorLab(replicas=2, micro_batch=2, accumulation_steps=2).result
    assert r["effective_batch"] == 8 and len(r["items_per_microbatch"]) == 2
    assert r["global"]["denominator"] == sum(r["items_per_replica"])
    assert r["global"]["max_rel_diff"] < 1e-10
    assert r["items_per_replica"][0] != r["items_per_replica"][1] and r["naive"]["max_rel_diff"] > 1e-3


@pytest.mark.slow
def test_allreduce_counts_a_times_more_without_no_sync():
    from gastudy.course.labs.data_parallel import count_with_and_without

    counts = count_with_and_without(2, 3, updates=2)
    on, off = counts.with_no_sync, counts.without
    assert off["calls_per_update"] == 3 * on["calls_per_update"] >= 3
    assert on["bytes_per_update"] == on["gradient_bytes"] and off["bytes_per_update"] == 3 * on["gradient_bytes"]


@pytest.mark.slow
def test_duplicates_lab_refuses_unsharded_data():
    from gastudy.course.labs.data_parallel import DuplicatesLab

    r = DuplicatesLab(micro_batch=1, accumulation_steps=2).result
    assert r["sharded"]["report"]["ok"] and r["sharded"]["refused"] is None
    assert r["unsharded"]["ids_per_rank"][0] == r["unsharded"]["ids_per_rank"][1]
    assert r["unsharded"]["report"]["duplicated_ids"] == 2 and "Shard the data" in r["unsharded"]["refused"]


# ----------------------------------------------------------------------------- 08 (CK-1 … CK-4)


def test_saved_bytes_sweep_linear_and_checkpointing_keeps_less():
    from gastudy.course.labs.checkpoint_lab import SavedBytesLab

    lab = SavedBytesLab(hidden=64, layers=2)
    b, s = lab.result.by_batch, lab.result.by_sequence
    assert b[8][0] == pytest.approx(8 * b[1][0], rel=1e-3) and b[8][1] == pytest.approx(8 * b[1][1], rel=0.02)
    assert all(w < 0.2 * wo for wo, w in [*b.values(), *s.values()])
    assert s[128][0] > s[64][0] > s[32][0] > s[16][0]
    lab.controls["layers"].value = 4
    assert lab.result.by_batch[1][0] > b[1][0]  # more layers keep more


def test_layer_diagram_every_n_layers():
    from gastudy.course.labs.checkpoint_lab import LayerDiagramLab

    lab = LayerDiagramLab(every_n_layers=2, layers=6)
    assert lab.result.checkpointed == [1, 3, 5]
    lab.controls["every_n_layers"].value = 3
    assert lab.result.checkpointed == [1, 4]
    lab.controls["layers"].value = 7
    r = lab.result
    assert r.checkpointed == [1, 4, 7] and r.selection == [True, False, False, True, False, False, True]
    assert all(r.saved_by_layer[k - 1] < r.saved_plain[k - 1] for k in r.checkpointed)
    assert all(r.saved_by_layer[k - 1] == r.saved_plain[k - 1] for k in (2, 3, 5, 6))


def test_tradeoff_and_combine_bytes_order():
    from gastudy.course.labs.checkpoint_lab import CombineLab, TradeoffLab

    runs = {r.every_n_layers: r for r in TradeoffLab(micro_batch=2, seq_len=32, repeats=2).result}
    saved = [runs[n].saved_bytes for n in (1, 2, 3, 4, None)]
    assert saved == sorted(saved) and len(set(saved)) == 5
    c = {name: r.saved_bytes for name, r in CombineLab(seq_len=32, repeats=2).result.items()}
    assert c["both"] < c["checkpointing"] < c["none"] and c["both"] < c["accumulation"] < c["none"]


def test_formula_lab_measured_is_formula_plus_mask():
    from gastudy.course.labs.checkpoint_lab import FormulaLab

    lab = FormulaLab(seq_len=32, hidden=64)
    for n in (1, 2, 3):
        lab.controls["every_n_layers"].value = n
        f = lab.result
        assert f.measured_bytes - f.formula_bytes == f.mask_bytes == f.micro_batch * 32 * 32
        assert f.formula_bytes == len(range(1, 5, n)) * f.micro_batch * 32 * 64 * 4


def test_offload_on_cpu_has_nothing_to_move():
    from gastudy.course.labs.checkpoint_lab import OffloadLab, cpu_explanation

    lab = OffloadLab(micro_batch=2, seq_len=32)
    lab.controls["device"].value = "cpu"
    r = lab.result
    assert r.offloaded.measured_bytes == r.plain.measured_bytes > 0
    assert r.timings is None and r.note == cpu_explanation() and r.note.startswith("On this CPU-only machine")


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_offload_on_gpu_moves_the_inputs():
    from gastudy.course.labs.checkpoint_lab import offload_demo

    r = offload_demo("cuda", micro_batch=4, seq_len=64, repeats=2)
    assert r.offloaded.measured_bytes < 0.05 * r.plain.measured_bytes
    assert set(r.timings) == {"no checkpointing", "checkpointing", "checkpointing + offload"}


# ----------------------------------------------------------------------------- 09 (MB-9)


def test_timeline_lab_phases_and_optimizer_state(monkeypatch):
    import dataclasses

    import gastudy.course.widgets as widgets
    from gastudy.course.labs.memory_lab import TimelineLab, first_update_row

    lab = TimelineLab(micro_batch=2, accumulation_steps=1, groups=2)
    lab.controls["device"].value = "cpu"
    tl = lab.result
    assert [r.phase for r in tl.rows] == ["baseline", "forward 1.1", "backward 1.1", "update 1",
                                          "forward 2.1", "backward 2.1", "update 2"]
    u = first_update_row(tl)
    weights = tl.rows[0].weight_bytes
    assert all(r.optimizer_bytes == 0 for r in tl.rows[:u])
    assert tl.rows[u].optimizer_bytes == pytest.approx(2 * weights, rel=1e-3)  # AdamW: two moments
    assert tl.rows[2].grad_bytes == weights and tl.rows[1].saved_bytes > 0
    shown = []
    monkeypatch.setattr(widgets, "show_html", lambda html_text, text: shown.append(html_text))
    lab.render(tl)  # the table: MiB in the headers, the key rows in bold
    assert "peak − start (MiB)" in shown[-1] and shown[-1].count("<tr") == 1 + len(tl.rows)
    assert shown[-1].count('<tr style="font-weight:bold">') >= 3 and "<details>" not in shown[-1]
    lab.render(dataclasses.replace(tl, rows=tl.rows + tl.rows[1:] + tl.rows[1:4]))  # 16 readings
    assert "<summary>all 16 rows</summary>" in shown[-1]
    assert ">update 1</td>" in shown[-1].split("<details>")[0]  # a key row, shown before "all 16 rows"
    monkeypatch.undo()
    lab.controls["optimizer"].value = "sgd"
    assert all(r.optimizer_bytes == 0 for r in lab.result.rows)


def test_devices_lab_one_probe_per_device():
    from gastudy.course.labs.memory_lab import DevicesLab

    rows = DevicesLab().result
    assert [r.device for r in rows] == ["cpu"] + [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    assert rows[0].current_bytes > 0 and rows[0].peak_bytes >= rows[0].current_bytes


def test_planner_lab_fixed_part_dominates_then_sgd_fits():
    from gastudy.course.labs.memory_lab import PlannerLab

    lab = PlannerLab(budget_mib=100, target=8, hidden=384, seq_len=8)
    lab.controls["device"].value = "cpu"
    plan = lab.result
    assert [c.micro_batch for c in plan.candidates] == [8, 4, 2, 1]
    assert all(c.micro_batch * c.accumulation_steps == 8 for c in plan.candidates)
    assert plan.chosen is None and plan.fixed_bytes > 100 * 2**20
    assert "Accumulation cannot help" in plan.verdict
    lab.controls["optimizer"].value = "sgd"
    assert lab.result.fixed_bytes == pytest.approx(plan.fixed_bytes / 2, rel=1e-3)
    assert lab.result.chosen is not None and lab.result.chosen.effective_batch == 8


# ----------------------------------------------------------------------------- 10 (MB-10)


def test_verify_lab_passes_then_fails_for_the_right_reasons():
    from gastudy.course.labs.verify_lab import VerifyLab

    lab = VerifyLab()
    assert lab.result.passed and len(lab.result.checks) == 6
    lab.controls["normalization"].value = "steps"
    assert not lab.result.passed and "use 'tokens'" in lab.result.reasons[-1]
    lab.controls["normalization"].value = "tokens"
    lab.controls["model"].value = "bn-mlp"
    assert not lab.result.passed and "BatchNorm" in lab.result.reasons[-1]


@pytest.mark.slow
def test_verify_two_processes():
    from gastudy.course.labs.verify_lab import verify

    report = verify(micro_batch=2, accumulation_steps=2, replicas=2)
    assert report.passed and report.record.replicas == 2 and len(report.record.per_replica) == 2
    assert report.record.samples == 8


def test_record_run_saved_under_its_stage_and_read_back(tmp_path):
    from gastudy.course.labs.verify_lab import record_run

    result = record_run(stage="accepted", root=tmp_path)
    assert result.json_path == tmp_path / "accepted" / "tiny-gpt-m4-A4.json" and result.markdown_path.exists()
    assert result.reloaded == result.record
    rec = result.record
    assert rec.peak_memory_bytes["cpu"] > 0 and rec.effective_batch == 16
    assert len(rec.last_group["groups"][0]["sample_ids"]) == 6  # 150 = 9 × 16 + 6
    assert "peak memory (cpu)" in result.markdown_path.read_text()
    with pytest.raises(ValueError, match="unknown stage"):
        record_run(stage="final", root=tmp_path)


def test_record_lab_defaults_to_a_temporary_folder():
    from gastudy.course.labs.verify_lab import RecordLab, default_root

    lab = RecordLab(micro_batch=2, accumulation_steps=2)
    assert lab.result.json_path.parent == default_root() / "trial"
    lab.controls["last_group"].value = "drop"
    assert lab.result.record.last_group_policy == "drop"


# ----------------------------------------------------------------------------- 11 (MB-11)


def test_clinic_lab_fires_then_quiet():
    from gastudy.course.labs.clinic import ClinicLab

    lab = ClinicLab("double_division", accumulation_steps=4)
    case = lab.result
    assert case.detector == "double_division" and case.before.fired and not case.after.fired
    assert case.before.evidence["k"] == pytest.approx(4.0)
    lab.controls["accumulation_steps"].value = 6
    assert lab.result.before.evidence["k"] == pytest.approx(6.0)
    lab.controls["pitfall"].value = "keep_graph"
    assert lab.result.detector == "memory_growth" and lab.result.ok


def test_clinic_table_and_symptoms():
    from gastudy.course.labs.clinic import SYMPTOMS, ClinicTableLab, pitfalls_for

    lab = ClinicTableLab(accumulation_steps=3)
    rows = lab.result.rows
    assert len(rows) == 9 and all(r["fires on the pitfall"] and r["quiet on the fix"] for r in rows)
    double = next(r for r in rows if r["pitfall"] == "double_division")["measured on the pitfall"]
    assert "3.00× smaller" in double
    lab.controls["accumulation_steps"].value = 5  # A moves what the detectors measure, not the verdicts
    assert "5.00× smaller" in next(r for r in lab.result.rows if r["pitfall"] == "double_division")[
        "measured on the pitfall"]
    assert {r["detector"] for r in rows} == set(SYMPTOMS)
    assert pitfalls_for("schedule_drift") == ["scheduler_per_microbatch"]
    with pytest.raises(KeyError, match="the five are"):
        pitfalls_for("slow training")


# ----------------------------------------------------------------------------- 12 (MB-12)


def test_every_question_is_answered_with_its_numbers():
    from gastudy.course.labs.questions import QUESTIONS, ask

    answers = {key: ask(key) for key in QUESTIONS}
    e = {k: a.evidence for k, a in answers.items()}
    assert e["same-gradient"]["ln_gap"] < 1e-4 < e["same-gradient"]["bn_gap"]
    assert e["divide-by-A"]["tokens_passed"] and not e["divide-by-A"]["steps_passed"]
    assert e["gpus"] == {"effective_batch": 64, "devices": 8, "wrong_count": 128}
    assert e["short-group"]["keep_updates"] == 3 and e["short-group"]["drop_updates"] == 2
    assert e["scheduler"]["wrong_steps"] == 12 and e["scheduler"]["right_steps"] == 3
    assert e["fp16-skips"]["attempted"] == 3 and e["fp16-skips"]["applied"] == 2 == e["fp16-skips"]["scheduler_steps"]
    assert e["checkpoint-gradient"]["max_rel_diff"] < 1e-6
    assert e["first-step-memory"]["optimizer_before"] == 0 < e["first-step-memory"]["optimizer_after"]
    assert e["duplicates"]["unsharded_duplicated"] == 8 and e["duplicates"]["sharded_duplicated"] == 0
    assert e["memory-saved"]["saved_m16"] == pytest.approx(8 * e["memory-saved"]["saved_m2"], rel=0.01)
    assert e["learning-rate"] == {"updates_a4": 32, "updates_a8": 16}
    for key, a in answers.items():
        assert a.markdown().startswith(f"**Q: {QUESTIONS[key].question}**") and a.chapter in a.markdown()


def test_ask_unknown_and_lab():
    from gastudy.course.labs.questions import QuestionsLab, ask

    with pytest.raises(KeyError, match="ask one of"):
        ask("why")
    lab = QuestionsLab("gpus")
    assert lab.result.evidence["effective_batch"] == 64
    lab.controls["key"].value = "short-group"
    assert lab.result.key == "short-group"


# ----------------------------------------------------------------------------- exercises 08–12


def _solution(key: str):
    import runpy

    from gastudy.course.exercises import solution_path

    return runpy.run_path(str(solution_path(key)))["answer"]


@pytest.mark.parametrize("key", ["07.1", "07.3", "08.1", "08.2", "09.1", "10.2", "11.1", "11.2", "12.1", "12.2"])
def test_solutions_pass_their_checkers(key):
    assert check_exercise(key, _solution(key)).ok is True


def test_checkers_explain_wrong_answers(capsys):
    assert check_exercise("08.1", [0, 3, 6, 9]).ok is False
    assert "0-based" in capsys.readouterr().out
    assert check_exercise("09.1", [1, 2, 3, 4, 6, 8, 12, 16, 24, 48]).ok is False
    assert "ignores D" in capsys.readouterr().out
    from gastudy.course.pitfalls import forget_zero_grad

    assert check_exercise("11.1", forget_zero_grad).ok is False
    assert "ineffective accumulation" in capsys.readouterr().out
    assert check_exercise("11.1", lambda *a: 1 / 0).ok is False
    assert "ZeroDivisionError" in capsys.readouterr().out
    assert check_exercise("12.1", "nonsense").ok is False
    for key in ["06.1", "06.2", "07.2", "09.2", "10.1", "10.2", "11.2", "12.2"]:
        assert check_exercise(key, None).ok is False

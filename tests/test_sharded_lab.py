"""Chapter 06's sharded section (MB-7): the FSDP2 sync-policy lab, its checks and exercise 06.3.

Every measurement runs on the course's warm pool of 2 gloo processes (started once for this module,
closed at its end); each test is bounded by a timeout.
"""

from __future__ import annotations

import pytest

from gastudy.core.checkpointing import marked_layers
from gastudy.course import i18n
from gastudy.course.exercises import check_exercise
from gastudy.course.i18n.bidi import strip_controls
from gastudy.course.labs import sharded
from gastudy.course.labs.sharded import ShardedLab, sharded_rows, sharded_update_gap
from gastudy.course.models import build_model

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]  # real processes

MODULES = len(marked_layers(build_model("tiny-gpt"))) + 1  # tiny-gpt's blocks + the root: one FSDP module each


@pytest.fixture(scope="module")
def lab():
    """One English lab at A = 2, deferred (its first measurement starts the warm pool)."""
    from gastudy.course.demos.ddp import close_pool

    yield ShardedLab(accumulation_steps=2, sync="deferred")
    close_pool()


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.set_language("en")


def test_the_lab_returns_the_measured_counts_and_bytes(lab):
    assert MODULES == 5
    r = lab.result
    assert (r["fsdp"]["backend"], r["fsdp"]["accumulation_steps"], r["fsdp"]["replicas"]) == ("deferred", 2, 2)
    assert r["fsdp"]["reductions_per_update"] == MODULES  # one reduce-scatter per FSDP module per update
    whole = r["fsdp"]["unsharded_gradient_bytes"]
    assert whole == sum(p.numel() * 4 for p in build_model("tiny-gpt").parameters())
    assert whole <= r["fsdp"]["peak_gradient_bytes"] <= 1.05 * whole  # the unsharded gradient (+ shard padding)
    assert r["ddp"]["peak_gradient_bytes"] == whole and r["ddp"]["all_gathers_per_update"] == 0
    assert r["fsdp"]["all_gathers_per_update"] == 2 * (MODULES + MODULES - 1)  # forward: all; backward: the blocks

    lab.controls["sync"].value = "every"  # recomputes on the warm pool
    r = lab.result
    assert r["fsdp"]["backend"] == "every" and r["fsdp"]["reductions_per_update"] == 2 * MODULES
    assert whole / 2 <= r["fsdp"]["peak_gradient_bytes"] <= 1.05 * whole / 2  # 1/D of it
    assert r["fsdp"]["weights"] == pytest.approx(r["ddp"]["weights"], rel=1e-5)  # the same training
    assert r["ratios"]["reductions_per_update"] == r["fsdp"]["reductions_per_update"] / r["ddp"]["reductions_per_update"]
    assert not any(c.disabled for c in lab.controls.values()) and lab.busy.layout.display == "none"


def test_the_table_rows_are_the_measured_numbers(lab):
    lab.controls["sync"].value = "every"
    ddp_row, fsdp_row = sharded_rows(lab.result)
    assert (ddp_row["setting"], fsdp_row["setting"]) == ("DDP, no_sync", "FSDP2, sync every")
    assert fsdp_row["reductions"] == 2 * MODULES and isinstance(fsdp_row["reductions"], int)
    assert ddp_row["fraction"] == 1.0 and fsdp_row["fraction"] == pytest.approx(0.5, rel=0.05)
    assert fsdp_row["gradient_kib"] == lab.result["fsdp"]["peak_gradient_bytes"] / 1024


def test_render_shows_a_table_and_a_plot(lab, capsys):
    capsys.readouterr()
    lab.render(lab.result)
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("setting"))
    assert "reductions / update" in header and "peak gradient KiB" in header and "ms / update" in header
    assert "DDP, no_sync" in out and "FSDP2, sync " in out and "HTML object" in out


def test_an_arabic_lab_is_right_to_left_with_translated_table(monkeypatch):
    tables = []
    real = sharded.show_table
    monkeypatch.setattr(sharded, "show_table", lambda *a, **k: tables.append(real(*a, **k)) or tables[-1])
    i18n.set_language("ar")
    ar = i18n.table("ar")
    lab = ShardedLab(accumulation_steps=1, sync="every")
    header = strip_controls(lab.widget().children[0].value)  # without the isolate around "(FSDP2)"
    assert 'dir="rtl"' in header and ar[
        "MB-7 · Sharded data parallel (FSDP2): synchronize once per update or every microbatch?"] in header
    assert lab.controls["sync"].description == ar["sync policy"]
    html = strip_controls(tables[-1].html)
    assert html.startswith('<div class="gastudy-table" dir="rtl"')
    assert ar["reductions / update"] in html and ar["FSDP2, sync every"] in html
    assert lab.result["fsdp"]["reductions_per_update"] == MODULES  # A = 1: both policies reduce once


def test_bad_settings_are_refused_before_any_process_runs():
    with pytest.raises(ValueError, match="accumulation_steps must be one of"):
        ShardedLab(accumulation_steps=3)
    with pytest.raises(ValueError, match="unknown sync policy 'never'"):
        ShardedLab(sync="never")
    with pytest.raises(ValueError, match="unknown sync policy 'never'"):
        sharded_update_gap(2, "never")


def test_a_sharded_update_equals_the_big_batch(lab):
    gap = sharded_update_gap(2, "every")
    assert gap["passed"] and gap["max_rel_diff"] <= gap["tolerance"] == 1e-5
    assert gap["max_rel_diff"] < 1e-5 < gap["naive_rel_diff"]  # only rounding left; the naive mean is off
    assert gap["reduce_scatters"] == 2 * MODULES


def test_exercise_06_3_accepts_the_measured_answer_and_names_the_mistakes(lab):
    whole = lab.result["fsdp"]["unsharded_gradient_bytes"]
    assert check_exercise("06.3", None).attempted is False
    bad = check_exercise("06.3", (20, 1))
    assert not bad and "answer with a dict" in bad.feedback
    right = check_exercise("06.3", {"reduce_scatters": 4 * MODULES, "gradient_bytes": whole // 2})
    assert right and "20 reduce-scatters" in right.feedback
    wrong = check_exercise("06.3", {"reduce_scatters": MODULES, "gradient_bytes": whole})
    assert not wrong
    assert "deferred policy's count" in wrong.feedback and "is the whole gradient" in wrong.feedback
    off = check_exercise("06.3", {"reduce_scatters": 4 * MODULES, "gradient_bytes": whole // 3})
    assert not off and off.feedback.startswith(f"gradient_bytes: you said {whole // 3:,}")


def test_the_solution_file_answers_exercise_06_3(lab):
    from gastudy.course.exercises import solution_path

    namespace: dict = {}
    exec(solution_path("06.3").read_text(encoding="utf-8"), namespace)  # noqa: S102 - our own solution file
    assert check_exercise("06.3", namespace["answer"])

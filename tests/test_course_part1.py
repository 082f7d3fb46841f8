"""Course part 1 (chapters 00–05): the labs driven headless, and the exercise checkers.

Every lab is built, its controls are set through ``.value`` (as a learner's slider would) and
its ``result`` is checked against the measured claims the notebooks make.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from gastudy.core.plan import BatchPlan
from gastudy.course.exercises import check_exercise, show_solution, solution_path
from gastudy.course.labs.effective_batch import (
    EffectiveBatchLab,
    SameProductLab,
    shard_first_update,
)
from gastudy.course.labs.group import GroupPlanLab, KeptLossMemoryLab, LastGroupLab, SchedulerLab
from gastudy.course.labs.normalization import (
    CountingLab,
    DoubleDivisionLab,
    MeanOfMeansLab,
    NormalizationLab,
    WeightedMeanLab,
    count_case,
    mask_tokens,
)
from gastudy.course.labs.precision_lab import (
    ClippingOrderLab,
    OverflowLab,
    PrecisionLab,
    overflow_run,
)
from gastudy.course.labs.start import (
    GLOSSARY,
    GlossaryLab,
    SectionMapLab,
    environment,
    glossary_objects_found,
    resolve,
)
from gastudy.course.labs.updates import (
    ActivationMemoryLab,
    KnobsLab,
    LoggingAxesLab,
    StepDiagramLab,
    ZeroGradLab,
)
from gastudy.course.widgets import format_table, show_table

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# ------------------------------------------------------------------ 00


def test_section_map_filters_and_covers_everything():
    lab = SectionMapLab()
    assert lab.result.missing_notebooks == []
    assert len(lab.result.rows) == 22
    lab.controls["document"].value = "CK"
    assert [r["section"] for r in lab.result.rows] == ["CK-1", "CK-2", "CK-3", "CK-4"]


def test_glossary_names_real_objects():
    assert all(glossary_objects_found().values())
    lab = GlossaryLab()
    lab.controls["term"].value = "denominator"
    assert lab.result.found and lab.result.where == GLOSSARY["denominator"][1]
    assert resolve("gastudy.core.plan.BatchPlan.accumulation_steps").name == "accumulation_steps"
    with pytest.raises(AttributeError):
        resolve("gastudy.core.plan.BatchPlan.no_such_field")


def test_environment_and_table(capsys):
    env = environment()
    assert env["torch threads"] >= 1 and isinstance(env["cuda available"], bool)
    from gastudy.course.bridge import hf_available

    hf_rows = (env["transformers"], env["accelerate"])
    assert all(v[0].isdigit() for v in hf_rows) if hf_available() else all("not installed" in v for v in hf_rows)
    text = show_table([{"a": 1, "b": 0.123456}, {"a": 22, "b": "x"}])
    assert "0.1235" in text and text.splitlines()[0].split() == ["a", "b"]
    assert capsys.readouterr().out == text + "\n"  # no IPython here: the text table is printed
    assert show_table([]) == "(no rows)"


def _cells(html_text: str) -> list[list[str]]:
    """The ``<td>`` texts of every ``<tr>`` of an HTML table, in order."""
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", html_text)]


def test_table_html_one_format_per_column_and_units():
    rows = [{"run": "a", "loss": 2.27, "items": 12288, "gap": 1e-12},
            {"run": "b", "loss": 2.343, "items": 5, "gap": 0.3},
            {"run": "c", "loss": 2.5030503273010254, "items": 1536, "gap": 0.0}]
    table = format_table(rows, units={"loss": "nats"})
    assert table.html.count("<tr") == 1 + len(rows) and "<details" not in table.html
    assert table.html.count("<th ") == 4 and "loss (nats)" in table.html
    body = _cells(table.html)[1:]
    assert [r[1] for r in body] == ["2.270", "2.343", "2.503"]  # one number of decimals, 4 digits
    assert [r[2] for r in body] == ["12,288", "5", "1,536"]  # integers with thousands separators
    assert [r[3] for r in body] == ["1.000e-12", "3.000e-01", "0.000e+00"]  # too wide a range: all scientific
    assert 'style="text-align:right' in table.html and 'style="text-align:left' in table.html
    assert table.html.startswith('<div class="gastudy-table" style="overflow-x:auto')  # scrolls, never wraps rows
    lines = str(table).splitlines()  # the text has the same cells, numbers right-aligned
    assert lines[0].split() == ["run", "loss", "(nats)", "items", "gap"]
    assert lines[2].endswith("2.270  12,288  1.000e-12") and lines[3].endswith("2.343       5  3.000e-01")
    assert format_table([]).html == "<p><i>(no rows)</i></p>"


def test_long_table_collapses_to_key_rows():
    rows = [{"step": i, "value": i / 3} for i in range(16)]
    table = format_table(rows)
    key, full = table.html.split("<details>")
    assert "<summary>all 16 rows</summary>" in full
    assert [r[0] for r in _cells(key)[1:]] == ["0", "1", "2", "⋯ 10 rows", "13", "14", "15"]
    assert len(_cells(full)) == 1 + 16 and len(str(table).splitlines()) == 2 + 16  # the text keeps every row
    marked = format_table(rows, highlight=lambda r: r["step"] in (4, 9))
    assert [r[0] for r in _cells(marked.html.split("<details>")[0])[1:]] == ["⋯ 4 rows", "4", "⋯ 4 rows", "9",
                                                                         "⋯ 6 rows"]
    assert marked.html.count('<tr style="font-weight:bold">') == 2  # emphasized in the full table
    assert format_table(rows, highlight=[0, -1]).html.split("<details>")[0].count("<td") == 2 * 2 + 1
    assert "<details>" not in format_table(rows, max_rows=None).html


def test_show_table_displays_html_once_in_a_notebook(monkeypatch, capsys):
    import IPython
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", lambda data, raw=False: shown.append(data))
    table = show_table([{"a": 1.5, "b": "x"}])
    assert len(shown) == 1 and shown[0]["text/html"] == table.html and shown[0]["text/plain"] == table
    assert capsys.readouterr().out == ""  # nothing printed besides the HTML
    table._ipython_display_()  # a cell ending with show_table(...) shows nothing more
    assert len(shown) == 1
    format_table([{"a": 1}])._ipython_display_()  # a table not shown yet shows itself
    assert len(shown) == 2


def test_section_map_and_glossary_are_whole_html_tables(monkeypatch):
    import gastudy.course.widgets as widgets
    from gastudy.course.labs.start import show_glossary

    shown = []
    monkeypatch.setattr(widgets, "show_html", lambda html_text, text: shown.append(html_text))
    lab = SectionMapLab()
    lab.render(lab.result)
    assert "<details" not in shown[-1] and shown[-1].count("<tr") == 1 + 22
    text = show_glossary()
    assert "<details" not in shown[-1] and shown[-1].count("<tr") == 1 + len(GLOSSARY)
    for term, (meaning, _) in GLOSSARY.items():
        assert shown[-1].count(f">{html.escape(term)}</td>") == 1 and html.escape(meaning) in shown[-1]
        assert term in text


def _run_cells_in_ipython(*sources: str):
    """Run cell sources in a real (non-kernel) IPython shell; return what was displayed and printed.

    The shell is removed afterwards, and what it changed in the process is put back (``__main__``,
    the builtins it adds), so later tests run without IPython as before.
    """
    import builtins
    import sys

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    main, names, hook = sys.modules["__main__"], set(vars(builtins)), sys.displayhook
    shell = InteractiveShell.instance(config=config)
    try:
        with capture_output() as captured:
            for source in sources:
                shell.run_cell(source).raise_error()
        return captured.outputs, captured.stdout
    finally:
        InteractiveShell.clear_instance()
        sys.modules["__main__"], sys.displayhook = main, hook
        for name in set(vars(builtins)) - names:
            delattr(builtins, name)


def test_chapter_00_glossary_and_exercise_cells_show_once():
    """The glossary and exercise cells of 00, run as a notebook runs them: one HTML output each,
    no escaped string of the glossary, no bare ``False``."""
    import nbformat

    nb = nbformat.read(NOTEBOOKS / "00_start_here.ipynb", as_version=4)
    cells = {c.id: c.source for c in nb.cells}
    outputs, printed = _run_cells_in_ipython("from gastudy.course.labs.start import show_glossary",
                                             cells["nb00-10"])
    assert [("<table" in o.data.get("text/html", "")) for o in outputs] == [True]
    # neither printed text nor the string as the cell's value (a plain shell still writes the prompt)
    assert re.sub(r"Out\[\d+\]: ", "", printed).strip() == ""
    html_text = outputs[0].data["text/html"]
    assert all(html_text.count(f">{html.escape(t)}</td>") == 1 for t in GLOSSARY)
    outputs, printed = _run_cells_in_ipython("from gastudy.course.exercises import check_exercise",
                                             cells["nb00-15"])
    assert len(outputs) == 1 and "not attempted yet" in outputs[0].data["text/html"]
    assert re.sub(r"Out\[\d+\]: ", "", printed).strip() == "" and "False" not in outputs[0].data["text/plain"]


# ------------------------------------------------------------------ 01


def test_step_diagram_equals_big_batch_in_both_dtypes():
    lab = StepDiagramLab()
    r = lab.result
    assert r.dtype == "float64" and r.max_rel_diff <= 1e-12 and r.tolerance == 1e-12
    assert r.params_unchanged and r.engine_diff == 0.0
    assert [row["step"] for row in r.rows] == [1, 2, 3, 4]
    assert r.rows[0]["rel. gap to big batch"] > 0.1  # G1 alone is far from the big batch
    norms = [row["norm"] for row in r.rows]
    assert norms[-1] == pytest.approx(r.big_batch_norm, rel=1e-10)
    lab.controls["dtype"].value = "float32"
    assert lab.result.max_rel_diff <= 1e-4 < 1e-3
    lab.controls["accumulation_steps"].value = 3
    lab.controls["micro_batch"].value = 5
    assert lab.result.max_rel_diff <= 1e-4 and len(lab.result.rows) == 3


def test_activation_memory_scales_with_the_microbatch():
    lab = ActivationMemoryLab()
    b = lab.result.bytes_by_split
    assert 3.5 <= lab.result.ratio_32x1_to_8x4 <= 4.5
    # m × A, as BatchPlan and the README write it: 32×1 is one batch of 32, 1×32 thirty-two microbatches of 1
    assert list(b) == ["32×1", "16×2", "8×4", "4×8", "2×16", "1×32"]
    assert b["32×1"] > b["16×2"] > b["8×4"] > b["4×8"] > b["2×16"] > b["1×32"]
    lab.controls["seq_len"].value = 32
    assert lab.result.bytes_by_split["8×4"] > b["8×4"] * 1.8


def test_knobs_make_real_groups():
    lab = KnobsLab()
    r = lab.result
    assert r.plan == BatchPlan(8, 4) and r.group_samples == [32, 32, 32, 4] and r.updates == 4
    lab.controls["gradient_accumulation_steps"].value = 5
    assert lab.result.group_samples == [40, 40, 20]


def test_zero_grad_mistakes_are_detected():
    lab = ZeroGradLab(updates=2)
    assert lab.result.fired and "last" in lab.result.verdict
    gaps = lab.result.gaps
    assert max(gaps["correct"]) < 1e-9
    assert min(gaps["zero per microbatch"]) > 0.1
    assert gaps["forget zero_grad"][0] < 1e-9 < 0.1 < gaps["forget zero_grad"][1]
    # zeroing per microbatch leaves one microbatch's share: between 1/A and 1/√A of the big batch
    A = lab.values["accumulation_steps"]
    assert all(abs(x - 1) < 1e-9 for x in lab.result.norm_ratio["correct"])
    assert 0.8 / A <= lab.result.mean_ratio("zero per microbatch") <= 1.2 / A**0.5
    assert lab.result.norm_ratio["forget zero_grad"][1] > 1.2  # the leftover gradient adds to the new one
    lab.controls["loop"].value = "forget zero_grad"
    assert lab.result.fired and "leftover" in lab.result.verdict
    lab.controls["loop"].value = "correct"
    assert not lab.result.fired


def test_logging_axes_count_the_same_samples():
    lab = LoggingAxesLab(accumulation_steps=8)
    r = lab.result
    assert r.final("samples") == [256, 256]
    assert r.final("microbatches") == [64, 64]
    assert r.final("updates") == [64, 8]
    assert r.final("tokens")[0] == r.final("tokens")[1]
    lab.controls["axis"].value = "tokens"
    assert lab.result.axis == "tokens" and lab.result.runs[1] is r.runs[1]  # cached, not retrained


def test_zero_grad_lab_measures_once_per_setting_and_a_loop_change_only_redraws(monkeypatch):
    import gastudy.course.labs.updates as updates

    real, calls = updates.step_gaps, []
    monkeypatch.setattr(updates, "step_gaps", lambda *a, **k: calls.append(a[0].__name__) or real(*a, **k))
    lab = ZeroGradLab(updates=2)
    assert sorted(calls) == ["correct_update", "forget_zero_grad", "zero_per_microbatch"]
    gaps = lab.result.gaps
    lab.controls["loop"].value = "forget zero_grad"  # a new verdict, the same measurements
    assert len(calls) == 3 and lab.result.gaps == gaps and lab.result.fired and "leftover" in lab.result.verdict
    seen = []
    lab.report_progress = lambda fraction, text="": seen.append((fraction, text))
    lab.controls["updates"].value = 3  # a new setting: the bar advances once per loop measured
    assert len(calls) == 6 and len(lab.result.gaps["correct"]) == 3
    assert seen == [(0.0, "correct"), (1 / 3, "zero per microbatch"), (2 / 3, "forget zero_grad")]
    lab.controls["updates"].value = 2  # back to a setting already measured
    assert len(calls) == 6 and lab.result.gaps == gaps and len(seen) == 3


def test_logging_axes_lab_reports_progress_per_run_it_trains():
    lab = LoggingAxesLab(accumulation_steps=2, micro_batch=8)
    seen = []
    lab.report_progress = lambda fraction, text="": seen.append((fraction, text))
    lab.controls["accumulation_steps"].value = 4  # one new run (A=4); the A=1 run is kept
    assert seen == [(0.0, "training m=8, A=4")] and lab.result.final("updates") == [32, 8]
    lab.controls["axis"].value = "samples"
    lab.controls["accumulation_steps"].value = 2
    assert len(seen) == 1  # nothing retrained


# ------------------------------------------------------------------ 02


def test_effective_batch_counts_replicas_not_devices():
    lab = EffectiveBatchLab()
    r = lab.result
    assert r.plan.effective_batch == 32 and r.distinct == 32
    assert [len(ids) for ids in r.per_replica_ids] == [16, 16]
    assert not set(r.per_replica_ids[0]) & set(r.per_replica_ids[1])
    lab.controls["tensor_parallel"].value = 2
    lab.controls["pipeline_parallel"].value = 2
    r = lab.result
    assert r.plan.devices == 8 and r.distinct == 32 and r.naive_count == 128
    assert sorted(i for ids in shard_first_update(BatchPlan(3, 2, 4)) for i in ids) == list(
        range(24)
    )


def test_same_product_differs_in_memory():
    lab = SameProductLab(target=16)
    r = lab.result
    assert [row["m"] for row in r.rows] == [1, 2, 4, 8, 16]
    assert all(row["m·A"] == 16 for row in r.rows)
    assert r.memory_spread >= 8
    saved = [row["saved KiB"] for row in r.rows]
    assert saved == sorted(saved)


# ------------------------------------------------------------------ 03


def test_weighted_mean_example():
    lab = WeightedMeanLab()
    r = lab.result
    assert r.weighted == 3.5 and r.unweighted == 3.0
    assert r.all_tokens == pytest.approx(3.5, rel=1e-12)
    lab.controls["count_b"].value = 512
    assert lab.result.weighted == pytest.approx(3.0) and lab.result.bias == pytest.approx(0.0)


@pytest.mark.parametrize(
    "kind,supervise,expect",
    [
        ("causal, padded", "all", "one per row"),
        ("causal, padded", "answer", "equal"),
        ("causal, packed (shift_labels)", "all", "one per row"),
        ("masked LM", "all", "fewer"),
        ("classification", "all", "fewer"),
    ],
)
def test_counting_cases(kind, supervise, expect):
    r = count_case(kind, supervise, micro_batch=6)
    if expect == "one per row":
        assert r.wrong - r.right == 6
    elif expect == "equal":
        assert r.wrong == r.right
    else:
        assert r.wrong < r.right
    if kind.startswith("causal"):
        assert r.loss_right * r.right == pytest.approx(r.loss_wrong * r.wrong, rel=1e-6)
    if kind.startswith("causal, packed"):
        assert r.right == r.padded_right
    if kind == "classification":
        assert r.right == 6


def test_counting_lab_and_mask_tokens():
    lab = CountingLab()
    assert lab.result.relative_error == pytest.approx(8 / lab.result.right)
    lab.controls["kind"].value = "masked LM"
    batch = {
        "input_ids": __import__("torch").tensor([[5, 6, 7, 13]]),
        "attention_mask": __import__("torch").tensor([[1, 1, 1, 0]]),
    }
    masked = mask_tokens(batch, rate=0.0)
    assert (masked["labels"] != -100).sum() == 1 and masked["labels"][0, 3] == -100


def test_normalizations_against_the_big_batch():
    lab = NormalizationLab()
    r = lab.result
    assert r.passed == {"tokens": True, "steps": False, "mean": False}
    assert len(set(r.items)) > 1
    lab.controls["data"].value = "equal counts (ln-mlp)"
    assert all(lab.result.passed.values()) and set(lab.result.items) == {4}


def test_double_division_is_exactly_A():
    lab = DoubleDivisionLab(accumulation_steps=3)
    assert lab.result.fired
    assert lab.result.k == pytest.approx(3.0, rel=1e-6)
    assert lab.result.loss_ratio == pytest.approx(3.0, rel=1e-6)
    lab.controls["declared"].value = True
    assert not lab.result.fired and lab.result.k == pytest.approx(1.0, abs=1e-6)


def test_mean_of_means_on_real_data():
    lab = MeanOfMeansLab()
    r = lab.result
    assert len(r.rows) == 8 and r.mean_abs_bias > 0
    assert r.tokens_gap <= r.tolerance < 100 * r.tolerance < r.gradient_gap
    assert r.verdict_fired
    # the gradient gap is measured for every held-out group (and plotted), not only group 0
    assert r.rows[0]["gradient gap (mean)"] == r.gradient_gap
    assert all(row["gradient gap (tokens)"] <= r.tolerance < 100 * r.tolerance < row["gradient gap (mean)"]
               for row in r.rows)
    assert r.mean_gradient_gap == sum(row["gradient gap (mean)"] for row in r.rows) / len(r.rows)
    model = lab._model
    lab.controls["micro_batch"].value = 4
    assert lab._model is model  # trained once
    assert lab.result.gradient_gap > 100 * lab.result.tolerance


# ------------------------------------------------------------------ 04


def test_group_plan_denominators_first():
    lab = GroupPlanLab()
    r = lab.result
    assert r.forward_calls_before_counting == 0
    assert r.engine_denominators == r.denominators
    assert sum(r.token_weights) == pytest.approx(1.0)
    assert r.step_weights == [0.25] * 4
    assert r.rows[-1]["partial"] and r.rows[-1]["microbatches"] == 3  # 30 samples, m=2, A=4


def test_kept_losses_grow_memory():
    lab = KeptLossMemoryLab(accumulation_steps=5)
    r = lab.result
    assert r.fired and r.growth("keep graph-attached losses") >= 0.8 * 4
    assert max(r.retained["release each graph (correct)"]) < r.saved_per_microbatch / 2
    lab.controls["loop"].value = "release each graph (correct)"
    assert not lab.result.fired


def test_last_group_keep_and_drop():
    lab = LastGroupLab()
    r = lab.result
    assert (
        r.partial.policy == "keep"
        and r.partial.microbatches == 3
        and len(r.partial.sample_ids) == 6
    )
    assert r.samples_processed == 30 and sorted(r.processed_ids) == list(range(30))
    assert r.constant_divisor_ratio == pytest.approx(0.75, rel=1e-5) and r.expected_ratio == 0.75
    lab.controls["policy"].value = "drop"
    r = lab.result
    assert r.samples_processed == 24 and r.updates == 3
    assert not set(r.partial.sample_ids) & set(r.processed_ids)
    lab.controls["dataset_size"].value = 32
    assert lab.result.partial is None and lab.result.samples_processed == 32


def test_scheduler_per_microbatch_runs_A_times_too_fast():
    lab = SchedulerLab()
    r = lab.result
    assert r.scheduler_steps == {"per update": 12, "per microbatch": 48}
    assert r.lr["per microbatch"] == pytest.approx(r.expected_fast, rel=1e-12)
    assert r.lr["per update"][:3] == pytest.approx([0.05, 0.1, 0.1])
    assert r.fired
    lab.controls["accumulation_steps"].value = 1
    assert not lab.result.fired


# ------------------------------------------------------------------ 05


def test_precisions_match_their_tolerances():
    lab = PrecisionLab()
    r = lab.result
    assert (
        r.row("fp16")["logits dtype"] == "float16" and r.row("bf16")["logits dtype"] == "bfloat16"
    )
    assert r.row("fp16")["scaler"] and not r.row("fp32")["scaler"]
    assert all(row["passed"] for row in r.rows)
    assert r.row("fp32")["gap"] < r.row("fp16")["gap"]
    lab.controls["precision"].value = "bf16"
    assert lab.result.selected == "bf16" and lab.result.rows is r.rows  # measured once


def test_overflow_skips_one_update_and_halves_the_scale():
    lab = OverflowLab()
    r = lab.result
    c = r.counters
    assert (c["updates_attempted"], c["updates_applied"], c["scheduler_steps"]) == (6, 5, 5)
    hit = r.row(3)
    assert not hit["applied"] and not hit["parameters changed"] and hit["overflow injected"]
    assert hit["scale after"] == hit["scale used"] / 2 == 2.0**15
    assert r.row(4)["lr"] == r.row(3)["lr"]  # no scheduler step for the skipped update
    lab.controls["overflow_at"].value = 0
    assert lab.result.counters["updates_applied"] == 6
    two = overflow_run(updates=5, overflow_at=[1, 2], init_scale=2.0**10)
    assert two.counters["updates_applied"] == 3 and two.row(3)["scale used"] == 2.0**8


def test_clipping_order():
    lab = ClippingOrderLab()
    r = lab.result
    assert r.applied_norm["after unscale (right)"] == pytest.approx(r.expected_right, rel=1e-2)
    assert r.applied_norm["before unscale (wrong)"] == pytest.approx(r.max_norm / r.scale, rel=1e-2)
    assert r.fired
    lab.controls["max_norm"].value = 0.1
    assert lab.result.applied_norm["after unscale (right)"] == pytest.approx(0.1, rel=1e-3)


# ------------------------------------------------------------------ exercises

KEYS = ["01.1", "01.2", "02.1", "02.2", "03.1", "03.2", "03.3", "04.1", "04.2", "05.1", "05.2"]


@pytest.mark.parametrize("key", KEYS)
def test_solutions_pass_their_checkers(key, capsys):
    assert check_exercise(key, None).ok is False
    assert "not attempted" in capsys.readouterr().out
    namespace: dict = {}
    exec(solution_path(key).read_text(encoding="utf-8"), namespace)
    assert check_exercise(key, namespace["answer"]).ok is True
    assert "answer" in show_solution(key)


def test_chapter_00_exercise(capsys):
    untried = check_exercise("00.1", None)
    assert not untried and untried == False and not untried.attempted  # noqa: E712 - compares like a bool
    assert "not attempted yet — write your answer above" in capsys.readouterr().out
    assert "not attempted yet" in untried.to_html() and "False" not in untried.to_html()
    right = check_exercise("00.1", "04_accumulation_group.ipynb")
    assert right and right == True and right.attempted and "✓ right" in right.text  # noqa: E712
    assert check_exercise("00.1", "04_accumulation_group.ipynb")
    assert not check_exercise("00.1", "01_microbatch_backward_update")
    assert not check_exercise("00.1", 4)


@pytest.mark.parametrize(
    "key,answer,says",
    [
        ("01.1", {"microbatches": 12, "backward_passes": 12, "updates": 12}, "updates"),
        ("02.1", 128, "replicas"),
        ("02.2", 3, "not 256"),
        ("03.1", lambda b: int((b["labels"] != -100).sum()), "shift"),
        ("03.2", 2.0, "mean of means"),
        ("03.3", False, "double division"),
        ("04.1", {"keep_updates": 5, "drop_updates": 5, "dropped_samples": 0}, "drop_updates"),
        ("04.2", 125, "4× too fast"),
        (  # 05.1 runs the learner's fp16 update now (tests/test_exercises_graded.py): a list of names is no answer
            "05.1",
            ["unscale_", "clip", "step", "update", "scheduler", "zero_grad"],
            "answer with your function itself",
        ),
        ("05.2", {"attempted": 8, "applied": 8, "scheduler_steps": 10}, "attempted"),
    ],
)
def test_wrong_answers_get_specific_feedback(key, answer, says, capsys):
    assert check_exercise(key, answer).ok is False
    assert says in capsys.readouterr().out


def test_update_exercise_names_the_zero_grad_mistake(capsys):
    from gastudy.course.pitfalls import forget_zero_grad, zero_per_microbatch

    assert not check_exercise("01.2", zero_per_microbatch)
    assert "only the last of the 4 microbatches reached the step" in capsys.readouterr().out
    assert not check_exercise("01.2", forget_zero_grad)
    assert "leftover" in capsys.readouterr().out
    assert not check_exercise("01.2", lambda *a: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out

"""Chapters 10–13 as a learner moves them: the check cells hold on every setting the labs allow
(failing settings included) and each still fails when the claim it guards stops being true.

The cells are read from the English notebooks by id and run here as the notebook runs them, with
the lab's result set to the setting under test; what would make each check fail is built in
beside it and must raise.

- 10 ``nb10-04`` (was cell [5]): the verifier's verdict is compared with the derivation's
  (:func:`~gastudy.course.labs.verify_lab.expected_verdict`), so ÷A, BatchNorm and bf16 no longer
  stop the notebook — and a verifier that passed a wrong setting (or failed a right one) still does.
- 10 ``nb10-13`` (was cell [20]): the record's microbatches, updates, samples and short-group ids
  are counted from m, A and the policy alone (:func:`~gastudy.course.labs.verify_lab.expected_record`);
  a record that loses one sample id of the short group fails.
- 12 ``nb12-16``: "faster?" is answered "no" (as WORKSHOP.md's closing round says); the saving
  against the same m without accumulation is checked on both sides — large where one update's own
  work is a big share of a microbatch, shrinking where the microbatch's compute outweighs it — and
  a saving that did not shrink fails.
- 13 ``nb13-11``: a budget no setting meets is said and verified as such, and the chapter goes on;
  a plan that said "nothing fits" while a measured m fitted fails.
- 13 ``nb13-32``: the closing step — halving m and doubling A keeps B, the updates and (within
  rounding) the weights; a "halved" trial that also changed B fails.
"""

from __future__ import annotations

import copy
import re
from types import SimpleNamespace

import nbformat
import pytest
import torch

from tests.chapters import NOTEBOOKS, run_cells


def run_cell(chapter: str, cell_id: str, namespace: dict) -> dict:
    return run_cells(chapter, cell_id, namespace=namespace)


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# ----------------------------------------------------------------------------- 10: the verdict cell
SETTINGS_10 = [  # every one a value the lab's controls allow; the first is the lab's default
    {},
    {"normalization": "steps"},                      # ÷A on variable lengths: must fail
    {"normalization": "mean"},
    {"model": "bn-mlp", "micro_batch": 4},           # BatchNorm: must fail
    {"model": "bn-mlp", "accumulation_steps": 1},    # one microbatch: BatchNorm sees the big batch
    {"model": "mlp", "normalization": "steps"},      # equal item counts: ÷A is ÷N
    {"precision": "bf16", "accumulation_steps": 8},
    {"precision": "fp16", "micro_batch": 8},
    {"normalization": "steps", "accumulation_steps": 1},
]


@pytest.mark.parametrize("setting", SETTINGS_10, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_10_the_verdict_cell_holds_on_every_setting_the_lab_allows(setting, capsys):
    from gastudy.course import check, t
    from gastudy.course.labs.verify_lab import VerifyLab, expected_verdict

    lab = VerifyLab()
    for name, value in setting.items():
        lab.controls[name].value = value
    run_cell("10", "nb10-04", {"mine": lab, "expected_verdict": expected_verdict, "check": check, "t": t})
    assert "✓" in capsys.readouterr().out
    # what would make it fail: a verdict the derivation does not give for this setting
    wrong = SimpleNamespace(result=SimpleNamespace(passed=not lab.result.passed), values=lab.values)
    with pytest.raises(AssertionError, match="no longer holds"):
        run_cell("10", "nb10-04", {"mine": wrong, "expected_verdict": expected_verdict, "check": check, "t": t})


def test_10_the_derivation_predicts_the_verifier_on_a_grid():
    from gastudy.course.labs.verify_lab import expected_verdict, verify

    grid = [dict(model=model, normalization=norm, micro_batch=m, accumulation_steps=A)
            for model in ("tiny-gpt", "ln-mlp", "bn-mlp", "mlp") for norm in ("tokens", "steps", "mean")
            for m, A in ((2, 4), (3, 2), (2, 1))]
    verdicts = [(s, verify(**s).passed) for s in grid]
    wrong = [(s, passed) for s, passed in verdicts if passed != expected_verdict(**s).passes]
    assert not wrong, wrong
    assert not expected_verdict(normalization="steps").passes
    assert "BatchNorm" in expected_verdict(model="bn-mlp").why


# ----------------------------------------------------------------------------- 10: the record cell
@pytest.mark.parametrize("m,A,policy", [(4, 4, "keep"), (4, 4, "drop"), (5, 6, "keep"), (4, 1, "drop"),
                                        (8, 8, "drop"), (3, 8, "keep")])
def test_10_the_record_is_counted_from_m_A_and_the_policy(m, A, policy, tmp_path):
    from gastudy.course.labs.verify_lab import expected_record, record_run

    rec = record_run(micro_batch=m, accumulation_steps=A, last_group=policy, root=tmp_path).record
    want = expected_record(m, A, policy)
    ids = [i for g in (rec.last_group or {}).get("groups", []) for i in g["sample_ids"]]
    assert (rec.microbatches, rec.updates_attempted, rec.samples, len(ids)) == (
        want.microbatches, want.updates, want.samples, want.short_samples)
    assert expected_record(4, 4).short_samples == 6  # exercise 10.2's answer, 150 = 9 × 16 + 6


def test_10_the_record_cell_fails_when_the_record_loses_a_sample(capsys):
    from gastudy.course import check
    from gastudy.course.labs.verify_lab import RecordLab, expected_record

    lab = RecordLab()
    space = {"record": lab, "expected_record": expected_record, "check": check}
    run_cell("10", "nb10-13", space)
    assert capsys.readouterr().out.count("✓") == 3
    lost = copy.deepcopy(lab.result.record)
    lost.last_group["groups"][0]["sample_ids"].pop()  # the short group recorded without one of its samples
    broken = SimpleNamespace(result=SimpleNamespace(record=lost, reloaded=lost, json_path=lab.result.json_path),
                             values=lab.values)
    with pytest.raises(AssertionError, match="short last group"):
        run_cell("10", "nb10-13", {**space, "record": broken})


# ----------------------------------------------------------------------------- 12: "faster?"
def faster_evidence(**changes) -> dict:
    base = {"ratio": 0.25, "amortized": 1.7, "amortized_large": 1.15}
    return {**base, **changes}


def test_12_faster_is_answered_no_as_the_workshop_says():
    from gastudy.course.labs.questions import ask

    answer = ask("faster")
    e = answer.evidence
    assert answer.text.startswith("No")
    assert e["steps_without"] == 16 and e["steps_accumulated"] == 1 and e["steps_large_without"] == 2
    guide = (NOTEBOOKS / "WORKSHOP.md").read_text(encoding="utf-8")
    assert "Does accumulation save time? (no;" in guide
    nb = nbformat.read(NOTEBOOKS / "12_questions.ipynb", as_version=4)
    prose = next(c.source for c in nb.cells if c.get("id") == "nb12-15q")
    assert re.search(r"^No\b", prose.split("\n\n")[1]) and "an epoch" not in prose
    from gastudy.course import check

    run_cell("12", "nb12-16", {"reply": answer, "check": check})


@pytest.mark.parametrize("evidence,fails", [
    (faster_evidence(), False),
    (faster_evidence(ratio=0.9), True),                    # as fast as the batch that fits
    (faster_evidence(amortized=1.1), True),                # no saving even at m = 1
    (faster_evidence(amortized_large=1.6), True),          # the saving did not shrink with m
])
def test_12_the_faster_check_is_two_sided(evidence, fails):
    from gastudy.course import check

    reply = SimpleNamespace(evidence=evidence)
    if fails:
        with pytest.raises(AssertionError):
            run_cell("12", "nb12-16", {"reply": reply, "check": check})
    else:
        run_cell("12", "nb12-16", {"reply": reply, "check": check})


def test_12_the_first_cells_survive_a_learner_who_picks_another_question(capsys):
    from gastudy.course import check, t
    from gastudy.course.labs.questions import QUESTIONS, QuestionsLab, ask
    from gastudy.course.predict import Prediction

    faq = QuestionsLab("gpus")  # the menu moved before the check cell ran
    space = {"faq": faq, "ask": ask, "check": check, "t": t, "QUESTIONS": QUESTIONS,
             "guess": Prediction("?", choices=("a", "b", "c"))}
    run_cell("12", "nb12-04", space)
    run_cell("12", "nb12-reveal", space)
    assert "✓" in capsys.readouterr().out


# ----------------------------------------------------------------------------- 13: nothing fits
@pytest.fixture(scope="module")
def chapter_13():
    """The namespace after 13's imports and the hand count of P and a (nb13-01, nb13-03)."""
    space: dict = {}
    for cell_id in ("nb13-01", "nb13-predict", "nb13-03"):
        run_cell("13", cell_id, space)
    return space


def fake_plan(budget_mib: int, precisions=("fp32",), fixed_mib: float = 48.6):
    """fit_to_budget with invented peaks: fixed + m × 2 MiB × (1.3 as it is, 0.9 every 2nd layer,
    0.8 every layer, half of that in bf16)."""
    from gastudy import fit_to_budget

    def measure(m, A, setting):
        factor = {None: 1.3, 2: 0.9, 1: 0.8}[setting.every_n_layers] * (0.5 if setting.precision == "bf16" else 1)
        return int((fixed_mib + m * 2 * factor) * 2**20), int(fixed_mib * 2**20)

    return fit_to_budget("tiny-gpt", budget_mib * 2**20, 32, min_micro_batch=16, precisions=precisions,
                         measure=measure)


AFTER_THE_LAB = ("nb13-07", "nb13-08", "nb13-reveal", "nb13-11")


@pytest.mark.parametrize("budget,precisions,chosen", [
    (40, ("fp32",), None),           # the fixed part alone is over the budget: one rung measured
    (64, ("fp32",), None),           # every rung measured, none fits
    (64, ("fp32", "bf16"), "bf16"),  # a lower precision accepted and chosen: the reveal still answers
])
def test_13_a_budget_no_setting_meets_is_said_and_the_chapter_goes_on(chapter_13, budget, precisions, chosen, capsys):
    plan = fake_plan(budget, precisions)
    assert (plan.setting.precision if plan.setting else None) == chosen
    space = {**chapter_13, "ladder": SimpleNamespace(result=plan)}
    for cell_id in AFTER_THE_LAB:
        run_cell("13", cell_id, space)
    out = capsys.readouterr().out
    if chosen is None:
        assert "Nothing fits" in out and "nothing fits" in out and "report" not in space
    else:
        assert space["report"].passed
    later = [c.source for c in nbformat.read(NOTEBOOKS / "13_make_it_fit.ipynb", as_version=4).cells
             if c.cell_type == "code"]
    later = later[[i for i, s in enumerate(later) if "verify_fit(fit" in s][0] + 1:]
    assert not [s for s in later if re.search(r"\bfit\.|\breport\b", s)], "a later cell needs the ladder's choice"


def test_13_the_real_ladder_at_a_budget_below_the_fixed_part(chapter_13, capsys):
    from gastudy.course.labs.fit_lab import FitLab

    space = {**chapter_13, "ladder": FitLab(budget_mib=40)}
    for cell_id in AFTER_THE_LAB:
        run_cell("13", cell_id, space)
    assert "Nothing fits 40.0 MiB" in capsys.readouterr().out


def test_13_nothing_fits_fails_when_a_measured_m_fitted(chapter_13):
    plan = fake_plan(64)
    plan.rungs[-1].plan.candidates[-1].peak_bytes = plan.budget_bytes  # this one fits, yet nothing was chosen
    with pytest.raises(AssertionError, match="nothing fits"):
        run_cell("13", "nb13-11", {**chapter_13, "fit": plan})


# ----------------------------------------------------------------------------- 13: the closing step
def test_13_trials_that_keep_B_are_one_experiment_and_the_check_can_fail(capsys):
    from gastudy import train
    from gastudy.course import check, t
    from gastudy.course.labs.fit_lab import KEEP_FIXED, weight_gap, what_changed
    from gastudy.run.train import TrainConfig

    def trial(m, A):
        return train(TrainConfig(micro_batch=m, accumulation_steps=A, dataset_size=150, progress=False))

    space = {"check": check, "t": t, "weight_gap": weight_gap, "what_changed": what_changed}
    runs = {"8×4": trial(8, 4), "4×8": trial(4, 8), "8×8": trial(8, 8)}
    run_cell("13", "nb13-32", {**space, "runs": runs})
    assert capsys.readouterr().out.count("✓") == 2
    assert what_changed(runs["8×4"].record, runs["4×8"].record) == []
    assert {"effective_batch", "updates_applied", "scheduler_steps"} <= set(what_changed(runs["8×4"].record,
                                                                                          runs["8×8"].record))
    assert set(KEEP_FIXED) >= {"effective_batch", "normalization", "seed", "precision", "last_group_policy"}
    # what would make it fail: the "halved" trial changed B too (m = 4 with A = 4)
    with pytest.raises(AssertionError, match="m halved and A doubled"):
        run_cell("13", "nb13-32", {**space, "runs": {**runs, "4×8": trial(4, 4)}})
    with pytest.raises(ValueError, match="different parameters"):
        weight_gap(runs["8×4"].model, torch.nn.Linear(2, 2))

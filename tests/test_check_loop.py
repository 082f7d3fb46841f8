"""check_loop (MB-10, MB-11): a user's own accumulation loop, run on a copy, judged against the big batch.

The loops below are written the way a user writes them — plain PyTorch, no gastudy inside — each
with one mistake (or none). check_loop must pass the right one, name each mistake's symptom, and
never touch the caller's model, optimizer or batches.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import gastudy
from gastudy.check.loop import (
    TrainStepError,
    check_loop,
    switch_off_dropout,
    with_sample_ids,
)
from gastudy.check.verify import controlled_microbatches
from gastudy.cli.main import main
from gastudy.core.counting import count_supervised
from gastudy.course.models import build_model
from tests.helpers import addition_microbatches, tiny_gpt

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- the user's loops
def loss_sum(model, mb):
    """Summed next-token cross entropy of one padded microbatch, and its supervised count."""
    logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
    labels = mb["labels"][:, 1:]
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="sum"), int((labels != -100).sum())


def items(microbatches):
    return sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)


def correct(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        (s / N).backward()
    optimizer.step()
    optimizer.zero_grad()


def correct_with_scheduler(model, optimizer, microbatches, scheduler):
    correct(model, optimizer, microbatches)
    scheduler.step()


def zero_grad_per_microbatch(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        optimizer.zero_grad()  # the mistake
        s, _ = loss_sum(model, mb)
        (s / N).backward()
    optimizer.step()
    optimizer.zero_grad()


def mean_of_means(model, optimizer, microbatches):
    for mb in microbatches:
        s, n = loss_sum(model, mb)
        (s / n / len(microbatches)).backward()  # the mistake: each microbatch's mean ÷ A
    optimizer.step()
    optimizer.zero_grad()


def divided_twice(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        (s / N / len(microbatches)).backward()  # the mistake: ÷ N and again ÷ A
    optimizer.step()
    optimizer.zero_grad()


def scheduler_per_microbatch(model, optimizer, microbatches, scheduler):
    N = items(microbatches)
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        (s / N).backward()
        scheduler.step()  # the mistake
    optimizer.step()
    optimizer.zero_grad()


def keep_graph(model, optimizer, microbatches):
    N, total = items(microbatches), 0
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        total = total + s / N  # the mistake: every microbatch's graph stays alive until the end
    total.backward()
    optimizer.step()
    optimizer.zero_grad()


KEPT = []


def keep_outputs(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        out = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"])
        KEPT.append(out.logits)  # the mistake: outputs (and their graphs) kept across microbatches and groups
        labels = mb["labels"][:, 1:]
        (F.cross_entropy(out.logits[:, :-1].flatten(0, 1), labels.flatten(), reduction="sum") / N).backward()
    optimizer.step()
    optimizer.zero_grad()


def step_per_microbatch(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        (s / N).backward()
        optimizer.step()  # the mistake
        optimizer.zero_grad()


def never_steps(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        (s / N).backward()
    optimizer.zero_grad()


def never_zeroes(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        (s / N).backward()
    optimizer.step()  # the mistake: no zero_grad, the next update starts from this gradient


def mutates_its_batches(model, optimizer, microbatches):
    N = items(microbatches)
    for mb in microbatches:
        s, _ = loss_sum(model, mb)
        (s / N).backward()
        mb["labels"].fill_(-100)  # scribbles on the batch it was given
        mb.pop("attention_mask")
    optimizer.step()
    optimizer.zero_grad()


@pytest.fixture(scope="module")
def model():
    return tiny_gpt()  # float64: "equal" is crisp (tolerance 1e-10)


@pytest.fixture(scope="module")
def microbatches():
    mbs = addition_microbatches(8, 2)[:4]  # A = 4 microbatches of m = 2, variable lengths
    assert len({count_supervised(mb) for mb in mbs}) > 1
    return mbs


# --------------------------------------------------------------------------- verdicts
def test_the_correct_loop_passes(model, microbatches):
    report = check_loop(correct, model, microbatches)
    assert report.passed and report.symptom is None, str(report)
    assert report.rel_error < 1e-12 and report.tolerance == 1e-12 and report.precision == "float64"
    # within the base tolerance at the first comparison: the second summation order is not computed
    assert report.floor is None and report.evidence["floor_needed"] is False
    assert "noise floor not needed: within the base tolerance" in str(report)
    assert report.optimizer_steps == 1 and report.scheduler_steps is None
    assert report.microbatches == 4 and report.samples == 8
    assert report.supervised_items == sum(count_supervised(mb) for mb in microbatches)
    assert report.normalization == "tokens"
    assert [v.symptom for v in report.verdicts] == ["memory growth"] and not report.verdicts[0].fired
    assert str(report).startswith("✓ PASSED: correct\n")  # named after the function checked


def test_zero_grad_per_microbatch_is_ineffective_accumulation(model, microbatches):
    report = check_loop(zero_grad_per_microbatch, model, microbatches)
    assert not report.passed and report.symptom == "ineffective accumulation"
    assert report.normalization == "last microbatch"
    assert "only the last of the 4 microbatches" in report.message and "zero_grad" in report.message
    assert report.verdicts[0].symptom == "ineffective accumulation" and report.verdicts[0].fired


def test_mean_of_means_is_the_steps_normalization_and_depends_on_the_partition(model, microbatches):
    report = check_loop(mean_of_means, model, microbatches)
    assert report.symptom == "partition dependence" and report.normalization == "steps"
    assert report.evidence["explained"]["rel_vs_steps"] < 1e-12 < 1e-3 < report.rel_error
    fired = [v for v in report.verdicts if v.fired]
    assert [v.symptom for v in fired] == ["partition dependence"]
    assert fired[0].evidence["max_rel_diff"] > 1e-3
    assert "normalization 'steps'" in report.message and "Measured: the gradient changes by" in report.message


def test_equal_lengths_hide_the_mean_of_means(model):
    """With the same supervised count in every microbatch the steps normalization IS the big batch."""
    mbs = [mb for mb in addition_microbatches(40, 2) if count_supervised(mb) == 8][:3]
    assert len(mbs) == 3
    assert check_loop(mean_of_means, model, mbs).passed


def test_a_loss_divided_twice_is_double_division(model, microbatches):
    report = check_loop(divided_twice, model, microbatches)
    assert report.symptom == "double division"
    assert report.evidence["explained"]["k"] == pytest.approx(4.0, rel=1e-9)
    assert report.message.startswith("the gradient is 4.00× smaller than the big-batch gradient (A = 4)")


def test_scheduler_per_microbatch_is_schedule_drift(model, microbatches):
    report = check_loop(scheduler_per_microbatch, model, microbatches)
    assert report.symptom == "schedule drift" and report.scheduler_steps == 4
    assert report.rel_error < 1e-12  # the gradient itself is right
    assert report.verdicts[0].evidence["scheduler_steps"] == 12 and report.verdicts[0].evidence["applied_updates"] == 3
    good = check_loop(correct_with_scheduler, model, microbatches)
    assert good.passed and good.scheduler_steps == 1


def test_a_scheduler_factory_needs_a_scheduler_parameter(model, microbatches):
    factory = lambda opt: torch.optim.lr_scheduler.StepLR(opt, 1)  # noqa: E731
    with pytest.raises(ValueError, match="takes no 'scheduler' parameter"):
        check_loop(correct, model, microbatches, scheduler=factory)
    report = check_loop(scheduler_per_microbatch, model, microbatches, scheduler=factory)
    assert report.symptom == "schedule drift" and report.scheduler_steps == 4


def test_kept_graphs_and_kept_outputs_are_memory_growth(model, microbatches):
    report = check_loop(keep_graph, model, microbatches)
    assert report.symptom == "memory growth" and report.rel_error < 1e-12
    saved = report.verdicts[-1].evidence["retained_saved"]
    assert saved[0] < saved[1] < saved[2] < saved[3]
    KEPT.clear()
    report = check_loop(keep_outputs, model, microbatches)
    KEPT.clear()
    assert report.symptom == "memory growth"
    assert report.verdicts[-1].evidence["growth_outputs"] > 0


def test_step_counts(model, microbatches):
    many = check_loop(step_per_microbatch, model, microbatches)
    assert many.symptom == "ineffective accumulation" and many.optimizer_steps == 4
    assert "the optimizer stepped 4 times for 4 microbatches" in many.message
    assert many.where.startswith("test_check_loop.py:") and "in step_per_microbatch: optimizer.step()" in many.where
    assert "ONE optimizer step per group" in many.message
    none = check_loop(never_steps, model, microbatches)
    assert none.symptom == "ineffective accumulation" and none.optimizer_steps == 0 and none.rel_error is None
    assert "never called optimizer.step()" in none.message


def test_gradients_left_after_the_update_leak_into_the_next(model, microbatches):
    report = check_loop(never_zeroes, model, microbatches)
    assert report.symptom == "ineffective accumulation" and report.rel_error < 1e-12
    assert report.evidence["gradients_zero_after"] is False
    assert "not zeroed after the update" in report.message and "leftover" in report.message


def test_float32_model_uses_the_float32_tolerance(microbatches):
    model = tiny_gpt(dtype=torch.float32)
    report = check_loop(correct, model, microbatches)
    assert report.passed and report.tolerance == 1e-5 and report.rel_error < 1e-6 and report.precision == "float32"
    assert check_loop(mean_of_means, model, microbatches, diagnose=False).symptom == "partition dependence"


def test_packed_batches_and_batches_without_ids(model):
    packed = addition_microbatches(8, 2, collate="packed")[:4]

    def packed_loop(model, optimizer, microbatches):
        N = sum(int((mb["shift_labels"] != -100).sum()) for mb in microbatches)
        for mb in microbatches:
            logits = model(input_ids=mb["input_ids"], position_ids=mb["position_ids"]).logits
            (F.cross_entropy(logits.flatten(0, 1), mb["shift_labels"].flatten(), reduction="sum") / N).backward()
        optimizer.step()
        optimizer.zero_grad()

    assert check_loop(packed_loop, model, packed).passed
    bare = [{k: v for k, v in mb.items() if k != "sample_ids"} for mb in addition_microbatches(8, 2)[:4]]
    report = check_loop(correct, model, bare)
    assert report.passed and any("numbered 0…n-1" in n for n in report.notes)
    ided, added = with_sample_ids(bare)
    assert added and [mb["sample_ids"].tolist() for mb in ided] == [[0, 1], [2, 3], [4, 5], [6, 7]]


def test_batchnorm_fails_even_a_right_loop_and_says_why():
    def classifier_loop(model, optimizer, microbatches):
        N = sum(len(mb["labels"]) for mb in microbatches)
        for mb in microbatches:
            (F.cross_entropy(model(mb["inputs"]), mb["labels"], reduction="sum") / N).backward()
        optimizer.step()
        optimizer.zero_grad()

    blobs = controlled_microbatches("ln-mlp", 2, 4)
    assert check_loop(classifier_loop, build_model("ln-mlp"), blobs).passed
    report = check_loop(classifier_loop, build_model("bn-mlp"), blobs)
    assert report.symptom == "partition dependence" and report.evidence["task"] == "classification"
    assert "the loop adds the microbatches' gradients correctly" in report.message
    assert "BatchNorm1d" in report.message and report.normalization == "tokens"


# --------------------------------------------------------------------------- nothing of the caller's changes
def test_the_callers_model_optimizer_and_batches_are_untouched(microbatches):
    model = tiny_gpt()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.5, weight_decay=0.1)
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    batches = [{k: v.clone() for k, v in mb.items()} for mb in microbatches]
    report = check_loop(mutates_its_batches, model, microbatches, optimizer=optimizer)
    assert report.passed, str(report)
    assert all(torch.equal(weights[k], v) for k, v in model.state_dict().items())
    assert all(p.grad is None for p in model.parameters())
    assert optimizer.state_dict()["state"] == {} and optimizer.param_groups[0]["lr"] == 0.5
    assert all(p is q for p, q in zip(optimizer.param_groups[0]["params"], model.parameters()))
    assert [sorted(mb) for mb in microbatches] == [sorted(mb) for mb in batches]
    assert all(torch.equal(mb[k], ref[k]) for mb, ref in zip(microbatches, batches) for k in ref)


def test_dropout_is_switched_off_on_the_copies_only():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
    model.attention_dropout = 0.1
    clone = __import__("copy").deepcopy(model)
    assert switch_off_dropout(clone) == 2
    assert clone[1].p == 0.0 and clone.attention_dropout == 0.0
    assert model[1].p == 0.5 and model.attention_dropout == 0.1


# --------------------------------------------------------------------------- bad input
def test_clear_errors(model, microbatches):
    with pytest.raises(ValueError, match="microbatches is empty"):
        check_loop(correct, model, [])
    with pytest.raises(TypeError, match="one batch dict"):
        check_loop(correct, model, microbatches[0])
    with pytest.raises(TypeError, match="must be a function"):
        check_loop("correct", model, microbatches)
    with pytest.raises(TypeError, match="torch.nn.Module"):
        check_loop(correct, "tiny-gpt", microbatches)
    with pytest.raises(TypeError, match="microbatch 1 is a str"):
        check_loop(correct, model, [microbatches[0], "x"])
    with pytest.raises(ValueError, match="no 'labels'"):
        check_loop(correct, model, [{"input_ids": microbatches[0]["input_ids"]}])
    unsupervised = [{**mb, "labels": torch.full_like(mb["labels"], -100)} for mb in microbatches]
    with pytest.raises(ValueError, match="no supervised item"):
        check_loop(correct, model, unsupervised)
    with pytest.raises(ValueError, match="tolerance must be a positive"):
        check_loop(correct, model, microbatches, tolerance=0)
    with pytest.raises(ValueError, match="tolerance must be a positive"):
        check_loop(correct, model, microbatches, tolerance="1e-3")
    on_meta = [{k: v.to("meta") for k, v in mb.items()} for mb in microbatches]
    with pytest.raises(ValueError, match="on the meta device"):
        check_loop(correct, model, on_meta)
    with pytest.raises(TypeError, match="returned int, not a torch.optim.Optimizer"):
        check_loop(correct, model, microbatches, optimizer=lambda m: 42)
    with pytest.raises(TypeError, match="optimizer must be a factory"):
        check_loop(correct, model, microbatches, optimizer=3)


def test_a_raising_train_step_is_wrapped_with_its_line(model, microbatches):
    def broken(model, optimizer, microbatches):
        return microbatches[0]["no such key"]

    with pytest.raises(TrainStepError) as info:
        check_loop(broken, model, microbatches)
    assert isinstance(info.value.__cause__, KeyError)
    assert "train_step raised KeyError: 'no such key'" in str(info.value)
    assert info.value.where.startswith("test_check_loop.py:") and "in broken" in info.value.where
    assert "with 4 microbatches" in str(info.value)


def test_report_formats(model, microbatches):
    report = check_loop(divided_twice, model, microbatches)
    as_dict = report.to_dict()
    assert json.loads(json.dumps(as_dict)) == as_dict
    assert as_dict["symptom"] == "double division" and as_dict["optimizer_steps"] == 1
    assert repr(report).startswith("LoopReport(failed: double division, rel_error=7.50e-01")
    assert "<b style='color:#b42318'>✗ FAILED: divided_twice — double division</b>" in report._repr_html_()
    assert gastudy.check_loop is check_loop


# --------------------------------------------------------------------------- the command line
USER_FILE = textwrap.dedent('''
    import torch.nn.functional as F

    def train_step(model, optimizer, microbatches):
        N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
        for mb in microbatches:
            logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
            (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum") / N).backward()
        optimizer.step()
        optimizer.zero_grad()

    def mean_of_means(model, optimizer, microbatches):
        for mb in microbatches:
            logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
            (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten()) / len(microbatches)).backward()
        optimizer.step()
        optimizer.zero_grad()

    def broken(model, optimizer, microbatches):
        raise RuntimeError("boom")

    NOT_A_FUNCTION = 3
''')


@pytest.fixture()
def user_file(tmp_path):
    path = tmp_path / "my_loop.py"
    path.write_text(USER_FILE)
    return path


def run_cli(*args):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "gastudy", "check-loop", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=240)


def test_cli_exit_codes_and_json(user_file):
    ok = run_cli(f"{user_file}:train_step")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("✓ PASSED: train_step")
    bad = run_cli(f"{user_file}:mean_of_means", "--json")
    assert bad.returncode == 1, bad.stderr
    payload = json.loads(bad.stdout)  # exactly one JSON object
    assert payload["passed"] is False and payload["symptom"] == "partition dependence"
    assert payload["normalization"] == "steps" and payload["microbatches"] == 4
    assert bad.stdout.count("\n") == 1  # one line: nothing else printed beside the object


def test_cli_json_error_is_one_object_with_the_exit_status(user_file, capsys):
    assert main(["check-loop", f"{user_file}:nope", "--json"]) == 2
    out, err = capsys.readouterr()
    error = json.loads(out)
    assert err == "" and out.count("\n") == 1
    assert error == {"error": f"{user_file} has no function 'nope'; it defines: broken, mean_of_means, train_step",
                     "exit": 2}


@pytest.mark.parametrize("target, extra, message", [
    ("{dir}/none.py", [], "no such file: {dir}/none.py"),
    ("{file}:NOT_A_FUNCTION", [], "is not callable (it is of type int)"),
    ("{file}:broken", [], "train_step raised RuntimeError: boom (at my_loop.py:20 in broken: raise RuntimeError(\"boom\"))"),
    ("{file}", ["--model", "gpt-5"], "unknown model 'gpt-5'; choose one of tiny-gpt, ln-mlp, bn-mlp, mlp"),
    ("{file}", ["-A", "0"], "argument --accumulation-steps/-A: must be from 1 to 4096, got 0"),
    ("{file}", ["-m", "1000", "-A", "1000"], "m × A × D = 1000 × 1000 × 1 = 1000000 samples"),
    ("{file}", ["--seed", "-1"], "argument --seed: must be from 0"),
])
def test_cli_bad_input_exits_2_with_one_message(user_file, capsys, target, extra, message):
    target = target.format(dir=user_file.parent, file=user_file)
    with pytest.raises(SystemExit) if "argument" in message else contextlib.nullcontext() as usage:
        assert main(["check-loop", target, *extra]) == 2
    if usage is not None:
        assert usage.value.code == 2
        out, err = capsys.readouterr()
        assert out == "" and message in err
        return
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert message.format(dir=user_file.parent) in err
    assert main(["check-loop", target, *extra, "--json"]) == 2
    out, err = capsys.readouterr()
    assert message.format(dir=user_file.parent) in json.loads(out)["error"] and err == ""


def test_cli_default_function_name_is_train_step(user_file, capsys):
    assert main(["check-loop", str(user_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True


HOSTILE_FILE = textwrap.dedent('''
    import os
    import sys
    import time

    import torch
    import torch.nn.functional as F

    def right(model, optimizer, microbatches):
        N = sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches)
        for mb in microbatches:
            logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
            (F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum") / N).backward()
        optimizer.step()
        optimizer.zero_grad()

    def exits(model, optimizer, microbatches):
        sys.exit(0)

    def hard_exit(model, optimizer, microbatches):
        os._exit(0)

    def spins(model, optimizer, microbatches):
        while True:
            time.sleep(0.01)

    def hoards(model, optimizer, microbatches):
        kept = []
        while True:
            kept.append(torch.ones(2**24))

    def interrupts(model, optimizer, microbatches):
        raise KeyboardInterrupt

    def grad_off(model, optimizer, microbatches):
        right(model, optimizer, microbatches)
        torch.set_grad_enabled(False)

    class Odd:
        def __float__(self):
            raise ZeroDivisionError("no float here")

    def odd_loss(model, optimizer, microbatches):
        right(model, optimizer, microbatches)
        return Odd()

    def ddp_right(model, optimizer, microbatches):
        import contextlib

        import torch.distributed as dist
        n = torch.tensor(sum(int((mb["labels"][:, 1:] != -100).sum()) for mb in microbatches))
        dist.all_reduce(n)
        for i, mb in enumerate(microbatches):
            with model.no_sync() if i < len(microbatches) - 1 else contextlib.nullcontext():
                logits = model(input_ids=mb["input_ids"], attention_mask=mb["attention_mask"]).logits[:, :-1]
                s = F.cross_entropy(logits.flatten(0, 1), mb["labels"][:, 1:].flatten(), reduction="sum")
                (s * dist.get_world_size() / int(n)).backward()
        optimizer.step()
        optimizer.zero_grad()
''')


@pytest.fixture()
def hostile_file(tmp_path):
    path = tmp_path / "hostile_loops.py"
    path.write_text(HOSTILE_FILE)
    return path


@pytest.mark.parametrize("function, extra, code, message", [
    ("exits", [], 1, "called sys.exit(0) during the check"),
    ("hard_exit", [], 1, "exited with status 0 before a verdict"),
    ("spins", ["--timeout", "8"], 1, "did not finish within 8 s"),
    ("hoards", ["--memory-limit", "1.5"], 1, "used more than 1.5 GB of memory"),
    ("interrupts", [], 1, "raised KeyboardInterrupt during the check"),
])
def test_cli_a_train_step_that_exits_hangs_or_hoards_is_a_failure_never_a_pass(hostile_file, function, extra, code,
                                                                               message):
    result = run_cli(f"{hostile_file}:{function}", "--json", *extra)
    assert result.returncode == code, (result.stdout, result.stderr)
    payload = json.loads(result.stdout)
    assert payload["exit"] == code and message in payload["error"], payload


@pytest.mark.parametrize("function", ["grad_off", "odd_loss"])
def test_cli_a_step_that_leaves_grad_mode_off_or_returns_an_odd_loss_is_still_checked(hostile_file, function):
    result = run_cli(f"{hostile_file}:{function}", "--json")
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert json.loads(result.stdout)["passed"] is True


@pytest.mark.slow
def test_cli_replicas_runs_your_ddp_step_on_two_processes(hostile_file):
    result = run_cli(f"{hostile_file}:ddp_right", "--replicas", "2", "--json")
    assert result.returncode == 0, (result.stdout, result.stderr)
    payload = json.loads(result.stdout)
    assert payload["passed"] and payload["replicas"] == 2 and payload["evidence"]["allreduce_backwards"] == [1, 1]

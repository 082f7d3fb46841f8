"""Teaching the loop (chapters 00–05): the plain-PyTorch cells are there, in the right order and
followed by a check; the helpers around them (gastudy.course.plain, the optimizer-scale and
steps-vs-mean measurements) measure what the chapters claim; Hugging Face cells are guarded so
that a course without the hf extra still runs; each chapter states its time once and names how
to load a solution."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
import torch

from gastudy.check.verify import reference_gradients
from gastudy.course.labs.normalization import steps_over_mean, update_size_ratio
from gastudy.course.plain import (
    engine_reference,
    engine_run,
    grads_of,
    parameter_gap,
    plain_setup,
    relative_gap,
)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PART1 = sorted(NOTEBOOKS.glob("0[0-5]_*.ipynb"))


def code_cells(name: str) -> list[str]:
    path = next(NOTEBOOKS.glob(f"{name}_*.ipynb"))
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


# ------------------------------------------------------------------ the plain-loop cells
# For each chapter: calls that must all appear in ONE code cell (the loop), and the chapter must
# then run a check: the same cell or the next code cell calls check(...) / check_close(...).
PLAIN_LOOPS = {
    "01": [".backward()", "optimizer.step()", "optimizer.zero_grad()", "/ items", 'reduction="sum"'],
    "03": [".backward()", "/ sum(counts)", "/ n) / A", 'reduction="sum"'],
    "04": [".backward()", "optimizer.step()", "scheduler.step()", "optimizer.zero_grad()", "loss.item()"],
    "05": ["scaler.scale(", ".backward()", "scaler.unscale_(optimizer)", "clip_grad_norm_", "scaler.step(optimizer)",
           "scaler.update()", 'torch.autocast("cpu"'],
}


def loop_cell(name: str, calls: list[str]) -> tuple[int, list[str]]:
    cells = code_cells(name)
    found = [i for i, src in enumerate(cells) if all(c in src for c in calls)]
    assert found, f"chapter {name}: no code cell contains the plain-PyTorch loop {calls}"
    return found[0], cells


def calls_in(node: ast.AST) -> list[str]:
    """Dotted names of every call below ``node`` (``optimizer.step``, ``scaler.update`` …)."""
    return [ast.unparse(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)]


@pytest.mark.parametrize("chapter", sorted(PLAIN_LOOPS))
def test_plain_loop_cell_is_followed_by_a_check(chapter):
    i, cells = loop_cell(chapter, PLAIN_LOOPS[chapter])
    after = cells[i] + "\n" + (cells[i + 1] if i + 1 < len(cells) else "")
    assert re.search(r"\bcheck(_close)?\(", after), (
        f"chapter {chapter}: the plain loop (code cell {i}) is not followed by a check against the library")
    assert "engine_reference(" in after or "engine_run(" in after, (
        f"chapter {chapter}: the check after the plain loop must compare with gastudy's engine")


@pytest.mark.parametrize("chapter", ["01", "04", "05"])
def test_the_microbatch_loop_never_steps_or_zeroes(chapter):
    """Inside ``for mb in …`` there is a backward but no optimizer step, zero_grad, unscale_ or update."""
    i, cells = loop_cell(chapter, PLAIN_LOOPS[chapter])
    loops = [n for n in ast.walk(ast.parse(cells[i])) if isinstance(n, ast.For)
             and isinstance(n.target, ast.Name) and n.target.id == "mb"]
    assert loops, f"chapter {chapter}: no `for mb in …` microbatch loop in the plain-loop cell"
    for loop in loops:
        inner = calls_in(loop)
        assert any(c.endswith(".backward") for c in inner)
        forbidden = [c for c in inner if c.split(".")[-1] in ("step", "zero_grad", "unscale_", "update")]
        assert not forbidden, f"chapter {chapter}: {forbidden} inside the microbatch loop"


def test_scheduler_steps_after_the_optimizer_and_only_when_applied():
    _, cells = loop_cell("04", PLAIN_LOOPS["04"])
    src = next(s for s in cells if all(c in s for c in PLAIN_LOOPS["04"]))
    assert src.index("optimizer.step()") < src.index("scheduler.step()") < src.rindex("optimizer.zero_grad()")
    skip = next(s for s in code_cells("05") if "inject_overflow(model)" in s and "scheduler.step()" in s)
    tree = ast.parse(skip)
    guarded = [n for n in ast.walk(tree) if isinstance(n, ast.If) and "scheduler.step" in calls_in(n)]
    assert guarded and "applied" in ast.unparse(guarded[0].test), "05: scheduler.step() must be guarded by 'applied'"


END_OF_GROUP = {  # exercise 05.1's six operations, as the learner writes them after the last backward
    "unscale_": ["scaler.unscale_(optimizer)"],
    "clip": ["torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.25)"],
    "step": ["scaler.step(optimizer)"],
    "update": ["scaler.update()"],
    "scheduler": ["if scaler.get_scale() >= scale:", "    scheduler.step()"],
    "zero_grad": ["optimizer.zero_grad()"],
}


def fp16_update(order) -> object:
    """Exercise 05.1's train_step with the six operations in ``order``, defined as a notebook cell would."""
    import linecache

    from gastudy.course.exercises import solution_path

    head = solution_path("05.1").read_text(encoding="utf-8").split("    scaler.unscale_(optimizer)")[0]
    body = ["    scale = scaler.get_scale()"] + [f"    {line}" for name in order for line in END_OF_GROUP[name]]
    source = head + "\n".join(body) + "\n\n\nanswer = train_step\n"
    name = f"<ipython-input-05-1-{'-'.join(order)}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    namespace = {"__name__": "__main__"}
    exec(compile(source, name, "exec"), namespace)  # noqa: S102 - the course's own solution, reordered
    return namespace["answer"]


def test_exercise_05_1_accepts_only_the_order_the_course_runs():
    """After a group's last backward in fp16: unscale_ → clip → scaler.step → scaler.update → the
    scheduler (only when the step was applied, which the scale after update tells) → zero_grad.
    Chapter 05's plain loop runs exactly that order, and the checker — which runs the learner's
    update through check_loop in fp16, then with an overflow — accepts that order and fails the
    others: every swap of two neighbours (the scheduler before scaler.update among them), the
    scheduler first and zero_grad first. The one swap it accepts does the same thing: zeroing the
    gradients and stepping the scheduler touch different objects, so either may come last."""
    import itertools

    from gastudy.course.exercises import check_exercise
    from gastudy.course.exercises.ch05 import ORDER

    skip = next(s for s in code_cells("05") if "inject_overflow(model)" in s and "scheduler.step()" in s)
    calls = sorted((n.lineno, n.col_offset, ast.unparse(n.func)) for n in ast.walk(ast.parse(skip))
                   if isinstance(n, ast.Call))
    ran = [name for *_, name in calls]  # in the order the loop runs them
    names = {"scaler.unscale_": "unscale_", "scaler.step": "step", "scaler.update": "update",
             "scheduler.step": "scheduler", "optimizer.zero_grad": "zero_grad"}
    assert [names[n] for n in ran if n in names] == [n for n in ORDER if n != "clip"]  # (this loop does not clip)
    assert ORDER == ["unscale_", "clip", "step", "update", "scheduler", "zero_grad"] == list(END_OF_GROUP)
    torch.set_num_threads(1)
    assert check_exercise("05.1", fp16_update(ORDER)).ok
    swaps = [ORDER[:i] + [ORDER[i + 1], ORDER[i]] + ORDER[i + 2:] for i in range(len(ORDER) - 1)]
    others = [["scheduler", *[n for n in ORDER if n != "scheduler"]], ["zero_grad", *ORDER[:-1]]]
    accepted = [order for order in itertools.chain(swaps, others) if check_exercise("05.1", fp16_update(order)).ok]
    assert accepted == [["unscale_", "clip", "step", "update", "zero_grad", "scheduler"]]


def test_unscale_per_microbatch_mistake_is_reproduced():
    cell = next(s for s in code_cells("05") if "WRONG" in s and "unscale_" in s)
    assert "unscale_() has already been called" in cell and "check(" in cell


def test_data_is_shown_before_it_is_used():
    cells = code_cells("01")
    assert any("decode(" in s and 'batch[key]' in s for s in cells), "01 prints one decoded sample and one batch"
    assert any("packed_collate(" in s and "shift_labels" in s for s in code_cells("03")), "03 prints a packed batch"


# ------------------------------------------------------------------ Hugging Face cells
HF_NAMES = {"transformers", "accelerate", "tiny_causal_lm", "trainer_gradient", "fresh_accelerator", "Trainer",
            "TrainingArguments"}


def uses_hf(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in HF_NAMES for n in ast.walk(node)) or any(
        isinstance(n, (ast.Import, ast.ImportFrom)) and any(
            (getattr(n, "module", None) or a.name).split(".")[0] in ("transformers", "accelerate") for a in n.names)
        for n in ast.walk(node))


def guarded(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and any(c in ("hf_cell", "hf_available") for c in calls_in(node.test))


@pytest.mark.parametrize("path", PART1, ids=[p.stem for p in PART1])
def test_hugging_face_code_runs_only_behind_hf_cell(path):
    """Without the hf extra a chapter still runs: every top-level statement that touches
    transformers/accelerate sits under ``if hf_cell(...)`` or ``if hf_available()``."""
    for i, cell in enumerate(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"):
        tree = ast.parse("\n".join(line for line in cell.source.splitlines() if not line.startswith("%")))
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("gastudy"):
                continue
            assert not uses_hf(stmt) or guarded(stmt), (
                f"{path.name} code cell {i}: `{ast.unparse(stmt).splitlines()[0]}` needs transformers/accelerate "
                "but is not inside `if hf_cell(...):`")


def test_hugging_face_cells_are_where_the_ideas_are_taught():
    joined = {ch: "\n".join(code_cells(ch)) for ch in ("01", "03", "04")}
    assert "TrainingArguments(per_device_train_batch_size=m, gradient_accumulation_steps=A" in joined["01"]
    assert "def compute_loss(outputs, labels, num_items_in_batch=None)" in joined["03"]
    assert "loss_is_scaled_for_ga = True" in joined["03"] and "loss_is_scaled_for_ga = False" in joined["03"]
    assert "accelerator.accumulate(model)" in joined["04"] and "accelerator.backward(loss)" in joined["04"]


# ------------------------------------------------------------------ time and solutions
@pytest.mark.parametrize("path", PART1, ids=[p.stem for p in PART1])
def test_each_chapter_states_its_time_once(path):
    cells = nbformat.read(path, as_version=4).cells
    everywhere = [m for c in cells for m in re.findall(r"\*Time: (\d+) min\*", c.source)]
    assert len(everywhere) == 1 and re.search(r"\*Time: \d+ min\*", cells[0].source), (
        f"{path.name}: state the time once, as *Time: NN min* in the first cell (found {everywhere})")
    assert not any("**Time:**" in c.source for c in cells), f"{path.name}: an old-style time line is left"


@pytest.mark.parametrize("path", PART1[1:], ids=[p.stem for p in PART1[1:]])
def test_loading_a_solution_is_one_obvious_call(path):
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    assert "show_solution" in cells[0].source, f"{path.name}: import show_solution in the first code cell"
    for cell in cells:
        key = re.search(r'check_exercise\("([0-9.]+)"', cell.source)
        if key and cell.source.startswith("answer = None"):
            assert f'show_solution("{key.group(1)}")' in cell.source, f"{path.name}: exercise {key.group(1)}"


# ------------------------------------------------------------------ the helpers the cells use
def test_plain_setup_is_one_start_and_fixed_groups():
    setup = plain_setup(micro_batch=2, accumulation_steps=3, groups=2)
    assert [len(g) for g in setup.groups] == [3, 3] and setup.microbatches is setup.groups[0]
    ids = [int(i) for g in setup.groups for mb in g for i in mb["sample_ids"]]
    assert ids == list(range(12))  # samples in order, each once
    a, _ = setup.fresh()
    b, _ = setup.fresh()
    assert a is not b and parameter_gap(a, {n: p.detach() for n, p in b.named_parameters()}) == 0.0
    with pytest.raises(ValueError, match="micro_batch must be a positive integer"):
        plain_setup(micro_batch=0)


def test_engine_reference_is_the_big_batch_gradient_and_grads_of_copies():
    setup = plain_setup(micro_batch=2, accumulation_steps=4)
    model, _ = setup.fresh()
    big = reference_gradients(model, setup.microbatches)
    assert relative_gap(engine_reference(setup), big) <= 1e-5
    assert relative_gap(engine_reference(setup, normalization="steps"), big) > 1e-3  # variable lengths
    snapshot = grads_of(model)
    model.zero_grad()
    assert any(g.abs().sum() > 0 for g in snapshot.values())  # a copy, not the live tensors
    with pytest.raises(ValueError, match="names differ"):
        relative_gap({"x": torch.zeros(1)}, big)


def test_engine_run_skips_the_overflowed_update_and_its_scheduler_step():
    setup = plain_setup(micro_batch=2, accumulation_steps=2, groups=3)
    halving = lambda opt: torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 0.5**k)  # noqa: E731
    run = engine_run(setup, make_scheduler=halving, precision="fp16", overflow_at={1})
    assert run.applied == [True, False, True]
    assert run.scales == [2.0**16, 2.0**16, 2.0**15]
    assert run.lrs == [0.1, 0.05, 0.05]  # no decay after the skipped update
    clean = engine_run(setup, make_scheduler=halving)
    assert clean.applied == [True] * 3 and clean.lrs == [0.1, 0.05, 0.025] and clean.scales == [None] * 3
    start, _ = setup.fresh()
    assert parameter_gap(start, clean.params) > 0


def test_steps_equals_mean_on_full_groups_only():
    assert steps_over_mean(4, 4) == pytest.approx(1.0, abs=1e-12)
    assert steps_over_mean(3, 4) == pytest.approx(0.75, rel=1e-5)
    assert steps_over_mean(1, 4) == pytest.approx(0.25, rel=1e-5)
    with pytest.raises(ValueError, match="1…A = 4"):
        steps_over_mean(5, 4)


def test_a_constant_gradient_scale_is_a_learning_rate_for_sgd_but_not_for_adam():
    assert update_size_ratio(1 / 4, "SGD") == pytest.approx(0.25, abs=0.02)
    assert update_size_ratio(1 / 4, "SGD", updates=1) == pytest.approx(0.25, rel=1e-4)  # one step: exact
    assert update_size_ratio(1 / 4, "AdamW") == pytest.approx(1.0, abs=0.01)
    assert update_size_ratio(1 / 4, "Adam") == pytest.approx(1.0, abs=0.01)
    tiny_sgd, tiny_adamw = update_size_ratio(2.0**-16, "SGD"), update_size_ratio(2.0**-16, "AdamW")
    assert tiny_sgd < 1e-4 and 0.5 < tiny_adamw < 1.0  # eps starts to matter for Adam
    with pytest.raises(ValueError, match="unknown optimizer 'LBFGS'"):
        update_size_ratio(0.5, "LBFGS")
    with pytest.raises(ValueError, match="must be > 0"):
        update_size_ratio(0.0)

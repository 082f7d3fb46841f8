"""Teaching the loop, chapters 06–12: the plain-PyTorch cells of 06 (``no_sync``) and 08
(``checkpoint``, ``save_on_cpu``) are executed code followed by checks against the library; the
helpers those cells and chapter 12 call measure what the text claims."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest
import torch

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def code_cells(name: str) -> list[str]:
    path = next(NOTEBOOKS.glob(f"{name}_*.ipynb"))
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def first_cell_with(cells: list[str], *needles: str) -> int:
    found = [i for i, src in enumerate(cells) if all(n in src for n in needles)]
    assert found, f"no code cell contains {needles}"
    return found[0]


def checked_later(cells: list[str], i: int, *uses: str, within: int = 2) -> str:
    """The source of the cells after ``i`` (up to ``within``) that use ``uses`` and call check(...)."""
    after = "\n".join(cells[i + 1:i + 1 + within])
    for use in uses:
        assert use in after, f"code cell {i} is not used by the next {within} cell(s): {use!r} missing"
    assert re.search(r"\bcheck(_close)?\(", after), f"code cell {i} is not followed by a check"
    return after


# ----------------------------------------------------------------------------- 06: no_sync by hand
def test_06_no_sync_by_hand_covers_forward_and_backward_then_is_checked():
    cells = code_cells("06")
    i = first_cell_with(cells, "model.no_sync()", "DDP(", ".backward()", "dist.all_reduce(")
    fn = next(n for n in ast.parse(cells[i]).body if isinstance(n, ast.FunctionDef))
    withs = [n for n in ast.walk(fn) if isinstance(n, ast.With)]
    bodies = [{ast.unparse(c.func) for c in ast.walk(w) if isinstance(c, ast.Call)} for w in withs]
    # the right branch: one `with sync:` whose body runs the model AND the backward
    assert any("model" in calls and "loss.backward" in calls for calls in bodies), bodies
    # the mistake is there too: a `with sync:` around the backward alone
    assert any("loss.backward" in calls and "model" not in calls for calls in bodies), bodies
    after = checked_later(cells, i, f"run_cell_function({fn.name}", "library_update(")
    assert 'lab.without["calls_per_update"]' in after and "gradient" in after


# ----------------------------------------------------------------------------- 08: checkpoint by hand
def test_08_checkpoint_and_save_on_cpu_by_hand_are_checked_against_the_library():
    cells = code_cells("08")
    i = first_cell_with(cells, "from torch.utils.checkpoint import checkpoint", "use_reentrant=False")
    after = checked_later(cells, i, "my_forward(", "checkpointing(net, every_n_layers=2)")
    assert "mine.total == lib.total" in after and "torch.equal(mine_grad, lib_grad)" in after
    j = first_cell_with(cells, "save_on_cpu(pin_memory=torch.cuda.is_available())", "checkpoint(")
    assert j > i
    src = cells[j]
    assert "offload=True" in src and re.search(r"\bcheck\(", src)
    assert "torch.equal(mine_off_grad, lib_off_grad)" in src


HF_NAMES = ("transformers", "tiny_causal_lm", "trainer_gradient", "training_arguments", "activation_checkpointing")


@pytest.mark.parametrize("chapter,needle", [("08", "hf_cell("), ("12", 'ask("hugging-face")')])
def test_hugging_face_cells_are_guarded(chapter, needle):
    """Every top-level statement that touches transformers sits inside ``if hf_cell(...):``."""
    cells = code_cells(chapter)
    assert any(needle in src for src in cells)
    for src in cells:
        python = "\n".join(line for line in src.splitlines() if not line.startswith("%"))  # magics
        for stmt in ast.parse(python).body:
            guarded = isinstance(stmt, ast.If) and ast.unparse(stmt.test).startswith("hf_cell(")
            text = ast.unparse(stmt)
            assert guarded or not any(name in text for name in HF_NAMES), (
                f"chapter {chapter}: an unguarded Hugging Face statement:\n{text[:200]}")


# ----------------------------------------------------------------------------- helpers
def test_sequence_terms_recovers_exact_linear_and_quadratic_parts():
    from gastudy.course.labs.checkpoint_lab import sequence_terms

    data = {t: (7 + 300 * t + 5 * t * t, 0) for t in (16, 32, 64, 128)}
    terms = sequence_terms(data)
    assert terms.constant == pytest.approx(7, abs=1e-6) and terms.per_token == pytest.approx(300)
    assert terms.per_token_squared == pytest.approx(5) and terms.max_residual < 1e-6
    assert terms.ratio == pytest.approx(data[128][0] / data[16][0])
    with pytest.raises(ValueError, match="at least 3 sequence lengths"):
        sequence_terms({16: (1, 0), 32: (2, 0)})


def test_tiny_gpt_bytes_grow_like_t_and_t_squared():
    """CK-1: the T² part is the attention mask, m × T × T float32 in each layer (chapter 08's claim)."""
    from gastudy.course.labs.checkpoint_lab import saved_bytes_sweep, sequence_terms

    sweep = saved_bytes_sweep(hidden=64, layers=2, batches=(1, 2), sequences=(8, 16, 32), micro_batch=2)
    terms = sequence_terms(sweep.by_sequence)
    assert terms.max_residual < 1 and round(terms.per_token_squared) == 4 * 2 * 2
    assert terms.ratio > 4  # 4× the sequence → more than 4× the bytes


def test_run_cell_function_refuses_what_it_cannot_ship():
    from gastudy.course.demos.ddp import run_cell_function

    with pytest.raises(TypeError, match="defined with `def`"):
        run_cell_function(lambda: 1, 2)
    with pytest.raises(TypeError, match="defined with `def`"):
        run_cell_function(42, 2)
    with pytest.raises(TypeError, match="cannot be read"):
        run_cell_function(len, 2)  # a builtin has no source


def plain_rank(cover_forward: bool, A: int = 3) -> dict:
    """Chapter 06's loop, shipped to the workers by source (the notebook's function, shortened)."""
    import contextlib

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    from gastudy.core.counting import count_supervised
    from gastudy.core.loss import summed_loss
    from gastudy.course.demos.ddp import rank_microbatches
    from gastudy.course.models import build_model
    from gastudy.parallel.ddp import CommCounter

    D = dist.get_world_size()
    model = DDP(build_model("tiny-gpt", seed=0))
    counter = CommCounter()
    counter.attach(model)
    mbs = rank_microbatches(2, A)
    items = torch.tensor(sum(count_supervised(mb) for mb in mbs))
    dist.all_reduce(items)
    for i, mb in enumerate(mbs):
        sync = contextlib.nullcontext() if i == A - 1 else model.no_sync()
        if cover_forward:
            with sync:
                (summed_loss(model(mb["input_ids"]), mb)[0] * D / items).backward()
        else:
            loss = summed_loss(model(mb["input_ids"]), mb)[0] * D / items
            with sync:
                loss.backward()
    return {"calls": sum(counter.calls.values()),
            "gradient": torch.cat([p.grad.double().flatten() for p in model.parameters()])}


def test_no_sync_by_hand_matches_the_library_and_backward_only_does_not_save_calls():
    from gastudy.course.demos.ddp import close_pool, library_update, run_cell_function

    try:
        right = run_cell_function(plain_rank, 2, True)
        wrong = run_cell_function(plain_rank, 2, False)
        lib_on = library_update(2, accumulation_steps=3)
        lib_off = library_update(2, accumulation_steps=3, no_sync=False)
    finally:
        close_pool()
    assert [r["calls"] for r in right] == [lib_on["calls"]] * 2 == [1, 1]
    assert [r["calls"] for r in wrong] == [lib_off["calls"]] * 2 == [3, 3]
    ref = lib_on["gradient"]
    assert float((right[0]["gradient"] - ref).abs().max() / ref.abs().max()) < 1e-6
    assert float((wrong[0]["gradient"] - ref).abs().max() / ref.abs().max()) < 1e-5
    assert torch.equal(right[0]["gradient"], right[1]["gradient"])  # every replica holds the same gradient


# ----------------------------------------------------------------------------- 12
def test_new_questions_are_answered_with_their_numbers():
    from gastudy.course.labs.questions import ask

    e = ask("checkpoint-vs-accumulate").evidence
    assert e["ckpt_max_abs"] < 1e-6 and e["accumulated_rel"] < 1e-4 < e["bn_rel"]
    o = ask("offload").evidence
    assert o["formula_bytes"] == 4 * 8 * 128 * 256 * 4  # layers × m × T × hidden × 4 bytes
    if o["device"] == "cpu":
        assert o["kept_offload"] == o["kept_plain"] > o["formula_bytes"]
    h = ask("hugging-face")
    if h.evidence["measured"]:
        assert h.evidence["tokens_passed"] and h.evidence["steps_rel"] > 1e-3
    else:
        assert "skipped" in h.text


def test_exercise_12_1_is_a_real_exercise(capsys):
    from gastudy.course.exercises import check_exercise
    from gastudy.course.exercises.ch12 import activation_share_saved
    from gastudy.course.labs.questions import ask

    expected = activation_share_saved()
    e = ask("memory-saved").evidence
    assert 0 < expected < 1 - e["saved_m2"] / e["saved_m16"]  # less than the activations' own cut
    assert check_exercise("12.1", expected).ok is True
    assert check_exercise("12.1", "faster").ok is False  # a question key is no longer an answer
    assert check_exercise("12.1", 1 - e["saved_m2"] / e["saved_m16"]).ok is False
    assert "activations alone" in capsys.readouterr().out
    assert check_exercise("12.1", 100 * expected).ok is False
    assert "not a percentage" in capsys.readouterr().out


PART2 = sorted(NOTEBOOKS.glob("0[6-9]_*.ipynb")) + sorted(NOTEBOOKS.glob("1[0-2]_*.ipynb"))


@pytest.mark.parametrize("path", PART2, ids=[p.stem for p in PART2])
def test_loading_a_solution_is_one_obvious_call(path):
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    assert "show_solution" in cells[0].source, f"{path.name}: import show_solution in the first code cell"
    exercises = [(m.group(1), c) for c in cells for m in [re.search(r'check_exercise\("(\d\d\.\d)"', c.source)] if m]
    assert exercises, f"{path.name}: no exercise cell"
    for key, cell in exercises:
        assert f'show_solution("{key}")' in cell.source, f"{path.name}: exercise {key} does not name its solution"

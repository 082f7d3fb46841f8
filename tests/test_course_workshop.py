"""The workshop room (gastudy.course.workshop): a learner's kernel records each graded exercise in
the shared folder, the facilitator's board reads the room from it, and the server a room needs is
computed from measured figures."""

from __future__ import annotations

import json
import os
import textwrap

import nbformat
import pytest

from gastudy.course import workshop
from gastudy.course.exercises import ExerciseResult, check_exercise
from gastudy.course.workshop import (
    Attempt,
    board,
    read_attempts,
    record,
    render,
    server_size,
    symptom,
)

RIGHT, MEAN_OF_MEANS = 2.5, 2.0  # exercise 03.2: (100·1 + 300·2 + 600·3) ÷ 1000, and the mean of means


def attempt(learner, key, ok, feedback="⚠ double division: the loss is 4.00× smaller", minute=0):
    return Attempt(learner, key, ok, feedback, f"2026-12-04T10:{minute:02d}:00+00:00")


def test_an_attempt_is_one_line_in_the_learners_own_file(tmp_path):
    result = check_exercise("03.2", MEAN_OF_MEANS)
    path = record(result, tmp_path, learner="ada")
    record(check_exercise("03.2", RIGHT), tmp_path, learner="ada")
    record(result, tmp_path, learner="bob/../x")  # a name is never a path
    assert path == tmp_path / "ada.jsonl" and sorted(p.name for p in tmp_path.iterdir()) == ["ada.jsonl",
                                                                                           "bob_.._x.jsonl"]
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(a["key"], a["ok"]) for a in lines] == [("03.2", False), ("03.2", True)]
    assert lines[0]["feedback"] == result.feedback and "mean of means" in lines[0]["feedback"]
    (tmp_path / "ada.jsonl").open("a", encoding="utf-8").write('{"learner": "ada", "key": "03.2", "o')  # cut short
    assert [(a.learner, a.ok) for a in read_attempts(tmp_path)] == [("ada", False), ("ada", True), ("bob/../x", False)]


def test_the_board_shows_who_passed_who_is_stuck_and_what_the_room_is_told():
    attempts = [attempt("ada", "01.2", False, minute=1), attempt("ada", "01.2", True, "one update …", minute=2),
                attempt("ada", "01.2", False, minute=3),  # after a pass: no news
                *[attempt("bob", "01.2", False, minute=m) for m in range(3)],
                attempt("cem", "01.2", False, "⚠ schedule drift: the scheduler stepped 15 times", minute=4),
                attempt("cem", "05.1", False, "your function raised ZeroDivisionError: division by zero (at …)")]
    b = board(attempts, ["01.2", "05.1", "06.2"])
    assert {n: {k: c.mark for k, c in row.items()} for n, row in b.cells.items()} == {
        "ada": {"01.2": "✓2"}, "bob": {"01.2": "✗3"}, "cem": {"01.2": "✗1", "05.1": "✗1"}}
    assert b.stuck == [("bob", "01.2", 3, "double division")]
    assert b.told["01.2"] == {"double division": 1, "schedule drift": 1} and b.done("01.2") == 1
    assert b.told["05.1"] == {"raised ZeroDivisionError": 1} and not b.told["06.2"]
    text = render(b)
    assert "bob on 01.2: 3 attempts, last: double division" in text and "·" in text.splitlines()[1]
    assert text.splitlines()[4].split() == ["passed", "1", "0", "0"]


def test_the_symptom_is_the_same_for_every_learner_who_made_the_same_mistake():
    assert symptom("⚠ clipping before unscale: the gradient was clipped …") == "clipping before unscale"
    assert symptom("your function raised NameError: name 'x' is not defined (at cell:3)") == "raised NameError"
    first = check_exercise("03.1", lambda batch: int((batch["labels"] != -100).sum())).feedback  # no shift
    assert symptom(first) == "one extra per row"
    assert symptom("2.0 is the mean of means; weight each mean by its items.") == "# is the mean of means"


def test_the_extension_records_the_graded_cells_of_a_shell(tmp_path, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv(workshop.RESULTS_ENV, str(tmp_path))
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    shell = InteractiveShell.instance()
    try:
        shell.extension_manager.load_extension("gastudy.course.workshop")
        shell.run_cell("from gastudy.course.exercises import check_exercise")
        for cell in (f'check_exercise("03.2", {MEAN_OF_MEANS})', 'check_exercise("03.2", None)',
                     "1 + 1", f'check_exercise("03.2", {RIGHT})'):
            assert shell.run_cell(cell).success
        shell.extension_manager.unload_extension("gastudy.course.workshop")
        shell.run_cell(f'check_exercise("03.2", {MEAN_OF_MEANS})')  # unloaded: not recorded
    finally:
        InteractiveShell.clear_instance()
    assert [(a.learner, a.key, a.ok) for a in read_attempts(tmp_path)] == [("ada", "03.2", False), ("ada", "03.2", True)]


def test_without_the_folder_the_extension_does_nothing_and_an_unwritable_one_breaks_no_cell(tmp_path, monkeypatch,
                                                                                           capsys):
    class Events:
        def __init__(self):
            self.callbacks = []

        def register(self, name, fn):
            self.callbacks.append((name, fn))

        def unregister(self, name, fn):
            self.callbacks.remove((name, fn))

    shell = type("Shell", (), {"events": Events()})()
    monkeypatch.delenv(workshop.RESULTS_ENV, raising=False)
    workshop.load_ipython_extension(shell)
    assert shell.events.callbacks == []
    monkeypatch.setenv(workshop.RESULTS_ENV, str(tmp_path / "missing"))
    workshop.load_ipython_extension(shell)
    [(name, recorder)] = shell.events.callbacks
    result = ExerciseResult("03.2", False, True, "…")
    for _ in range(2):
        recorder(type("Outcome", (), {"result": result})())
    assert name == "post_run_cell" and capsys.readouterr().err.count("not recorded") == 1
    workshop.unload_ipython_extension(shell)
    assert shell.events.callbacks == []


@pytest.mark.slow
def test_a_real_kernel_loads_it_from_its_config_file_and_records_a_graded_cell(tmp_path):
    """The set-up the guide gives a server: one line of ipython_kernel_config.py (here in the
    kernel's own IPYTHONDIR), the folder in the kernel's environment."""
    from nbclient import NotebookClient

    profile = tmp_path / "ipython" / "profile_default"
    profile.mkdir(parents=True)
    (profile / "ipython_kernel_config.py").write_text('c.InteractiveShellApp.extensions = ["gastudy.course.workshop"]\n')
    results = tmp_path / "results"
    results.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(textwrap.dedent(f"""\
        from gastudy.course.exercises import check_exercise
        check_exercise("03.2", {MEAN_OF_MEANS})"""))])
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython"), workshop.RESULTS_ENV: str(results),
           "JUPYTERHUB_USER": "ada"}
    NotebookClient(nb, timeout=120, kernel_name="python3").execute(env=env)
    [only] = read_attempts(results)
    assert (only.learner, only.key, only.ok) == ("ada", "03.2", False)


def test_the_board_command(tmp_path, capsys):
    record(ExerciseResult("01.2", False, True, "⚠ double division: 4.00× smaller"), tmp_path, learner="ada")
    assert workshop.main(["board", str(tmp_path), "--keys", "01.2", "05.1"]) == 0
    assert "1 × double division" in capsys.readouterr().out
    assert workshop.main(["board", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["learners"]["ada"]["01.2"]["attempts"] == 1
    assert workshop.main(["board", str(tmp_path / "nope")]) == 2
    assert workshop.RESULTS_ENV in capsys.readouterr().err


def test_the_server_size_follows_from_the_measured_figures():
    size = server_size({"01": 500.0, "06": 900.0}, {"01": 20.0, "06": 60.0}, learners=30, server_mib=100.0,
                       grading_cpu_s={"01": 1.0, "06": 10.0}, most_cores={"01": 1.0, "06": 1.6})
    assert size.per_learner_mib == 1000.0
    assert size.ram_gib == 39  # 30 × 1000 MiB × 1.25 = 36.6 GiB, + 2 GiB, rounded up
    assert size.mem_limit_mib == 1280  # 1000 MiB × 1.25 = 1250 MiB → 256 MiB up
    assert size.cpu_limit == 2
    assert size.cores == 15  # Run All: 30 × 60 CPU s ready in 120 s; grading: 30 × 6 × 10 s in 900 s = 2
    assert server_size({"x": 100.0}, {"x": 1.0}, grading_cpu_s={"x": 30.0}).cores == 6  # 30 × 6 × 30 / 900
    assert server_size({"x": 1024.0}, {"x": 10.0}, learners=1, headroom=0, system_gib=0).ram_gib == 1
    with pytest.raises(ValueError):
        server_size({}, {"x": 1.0})

"""Bad input → exit 2, one message naming the flag, no traceback, nothing written.

Every numeric or path flag of every command × {0, negative, float, string, huge, empty}, minus
the values that are valid for that flag. The table runs the CLI's ``main()`` in-process (the
flags are refused while parsing, before anything is imported or written), so it takes seconds;
a few cases go through the real entry point as a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gastudy.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"zero": "0", "negative": "-3", "float": "2.5", "string": "abc", "huge": "1" + "0" * 24, "empty": ""}

# command prefix (valid apart from the flag under test), flag, the kinds that are valid for it
FLAGS = [
    (["plan", "--micro-batch", "2"], "--target", set()),
    (["plan", "--target", "8"], "--micro-batch", set()),
    (["plan", "--target", "8", "-m", "2"], "--replicas", set()),
    (["plan", "--target", "8", "-m", "2"], "--tensor-parallel", set()),
    (["plan", "--target", "8", "-m", "2"], "--pipeline-parallel", set()),
    *[([cmd], flag, valid) for cmd in ("verify", "train") for flag, valid in [
        ("--micro-batch", set()), ("-m", set()), ("--accumulation-steps", set()), ("-A", set()),
        ("--replicas", set()), ("-D", set()), ("--seed", {"zero"}), ("--dist-timeout", {"float"})]],
    (["verify"], "--save", {"zero", "negative", "float", "string", "huge"}),
    (["train"], "--epochs", set()),
    (["train"], "--lr", {"float"}),
    (["train"], "--dataset-size", set()),
    (["train"], "--clip", {"zero", "float"}),
    (["train"], "--stop-after-updates", set()),
    (["train"], "--checkpoint-every", {"zero"}),
    (["train"], "--out", {"zero", "negative", "float", "string", "huge"}),
    (["lab", "--dry-run"], "--port", set()),
    (["lab", "--dry-run"], "--ip", set()),
    (["memory"], "--micro-batch", set()),
    (["memory"], "--accumulation-steps", set()),
    (["memory"], "--groups", set()),
    (["memory"], "--every-n-layers", set()),
    (["memory"], "--budget", {"float"}),
    (["memory"], "--target", set()),
    (["memory"], "--replicas", set()),
    (["memory"], "--seq-len", set()),
    (["memory"], "--hidden", set()),
    (["memory"], "--layers", set()),
    (["memory", "--fit"], "--min-micro-batch", set()),
    (["site"], "--timeout", set()),
    (["site"], "--jobs", set()),
    (["site"], "--out", {"zero", "negative", "float", "string", "huge"}),
    (["site"], "--notebooks", {"zero", "negative", "float", "string", "huge"}),
]
CASES = [pytest.param(prefix, flag, kind, id=f"{prefix[0]}{flag}={kind}")
         for prefix, flag, valid in FLAGS for kind in KINDS if kind not in valid]


@pytest.fixture
def in_empty_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("prefix,flag,kind", CASES)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_every_flag_refuses_nonsense(prefix, flag, kind, as_json, in_empty_folder, capsys):
    argv = [*prefix, flag, KINDS[kind], *(["--json"] if as_json else [])]
    with pytest.raises(SystemExit) as e:
        main(argv)
    out, err = capsys.readouterr()
    assert e.value.code == 2
    assert "Traceback" not in out + err
    if as_json:  # exactly one JSON object on stdout, naming the flag
        payload = json.loads(out)
        assert payload["exit"] == 2 and flag in payload["error"], payload
    else:
        assert out == "" and flag in err, err
    assert list(in_empty_folder.iterdir()) == []  # nothing written


def test_the_table_covers_every_flag_that_takes_a_value():
    """A new flag with a parsed value (number, size, path) must join the table."""
    from gastudy.cli.main import build_parser

    covered = {(prefix[0], flag) for prefix, flag, _ in FLAGS}
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    missing = []
    for name, parser in sub.choices.items():
        for action in parser._actions:
            takes_value = action.nargs != 0 and action.option_strings and action.type is not None
            ours = takes_value and action.dest != "help" and name not in ("check-loop", "editions")
            if ours and not any((name, s) in covered for s in action.option_strings):
                missing.append(f"{name} {action.option_strings[0]}")
    assert missing == [], f"flags without a bad-input row: {missing}"


@pytest.mark.parametrize("argv,flag", [
    (["train", "--replicas", "0"], "--replicas"),
    (["verify", "-A", "1000000000000", "--json"], "--accumulation-steps"),
    (["plan", "--target", "1000000000001", "--micro-batch", "2"], "--target"),
])
def test_the_real_entry_point_says_the_same(argv, flag, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "gastudy", *argv], capture_output=True, text=True, timeout=120,
                          env=env, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    text = json.loads(proc.stdout)["error"] if "--json" in argv else proc.stderr
    assert flag in text and list(tmp_path.iterdir()) == []


def test_huge_values_that_are_allowed_answer_at_once(capsys):
    """Divisors in O(√n): a target of 10¹² with a microbatch that does not divide it answers at once."""
    assert main(["plan", "--target", str(10**12), "--micro-batch", "7", "--json"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert "nearest valid targets are 999999999999 or 1000000000006" in error
    assert "1, 2, 4, 5, 8" in error and "…" in error and error.endswith("1000000000000]")  # 169 divisors, elided


# torchrun's variables, half set or nonsense : refused before anything runs.
# Before: WORLD_SIZE=abc was a ValueError traceback (train), WORLD_SIZE=2 without RANK trained on one
# process as "replicas 1" with exit 0, and RANK=1 alone made --json print nothing at all.
TORCHRUN_ENV = [
    ({"WORLD_SIZE": "abc"}, ["train", "--dataset-size", "8"], "WORLD_SIZE='abc' is set but RANK is not"),
    ({"WORLD_SIZE": "abc", "RANK": "0"}, ["train"], "WORLD_SIZE='abc' is not a whole number"),
    ({"WORLD_SIZE": "abc", "RANK": "0"}, ["verify", "--shard"], "WORLD_SIZE='abc' is not a whole number"),
    ({"WORLD_SIZE": "2"}, ["train", "--dataset-size", "8"], "WORLD_SIZE='2' is set but RANK is not"),
    ({"RANK": "1"}, ["verify", "-A", "1"], "RANK='1' is set but WORLD_SIZE is not"),
    ({"RANK": "1"}, ["plan", "--target", "8", "-m", "2"], "RANK='1' is set but WORLD_SIZE is not"),
    ({"WORLD_SIZE": "2", "RANK": "2"}, ["verify", "--shard"], "RANK='2' must be from 0 to WORLD_SIZE-1 = 1"),
    ({"WORLD_SIZE": "0", "RANK": "0"}, ["train"], "WORLD_SIZE='0' must be from 1 to 1024"),
    ({"WORLD_SIZE": "2", "RANK": "-1"}, ["train", "--shard"], "RANK='-1' must be from 0 to WORLD_SIZE-1"),
]


@pytest.mark.parametrize("env,argv,needle", TORCHRUN_ENV, ids=[" ".join(f"{k}={v}" for k, v in e.items()) + f" {a[0]}"
                                                                for e, a, _ in TORCHRUN_ENV])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_torchrun_variables_half_set_or_nonsense_are_refused(env, argv, needle, as_json, in_empty_folder,
                                                             monkeypatch, capsys):
    for name in ("RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main([*argv, *(["--json"] if as_json else [])]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if as_json:  # one object although RANK says this is not rank 0: the variables themselves are wrong
        assert json.loads(out) == {"error": json.loads(out)["error"], "exit": 2} and needle in json.loads(out)["error"]
    else:
        assert out == "" and needle in err
    assert list(in_empty_folder.iterdir()) == []


# The sharding flags refused by `verify`. Before: the message went to stdout in text mode,
# and with --json the object had no "exit" (it carried a "text" copy of the message instead).
SHARD_FLAGS = [
    (["verify", "--shard"], "--shard splits the model across data-parallel replicas"),
    (["verify", "--shard", "--replicas", "1"], "add --replicas N with N ≥ 2"),
    (["verify", "--sync", "every", "--replicas", "2"], "--sync every chooses the sharded (FSDP2) sync policy: add --shard"),
    (["verify", "--shard", "--replicas", "2", "--sync-every-microbatch"], "--sync-every-microbatch is DDP's switch"),
    (["train", "--shard", "--replicas", "1"], "add --replicas N with N ≥ 2"),
    (["train", "--sync", "deferred", "--replicas", "2"], "--sync deferred chooses the sharded (FSDP2) sync policy"),
]


@pytest.mark.parametrize("argv,needle", SHARD_FLAGS, ids=[" ".join(a) for a, _ in SHARD_FLAGS])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_sharding_flag_combinations_are_one_error_on_the_right_stream(argv, needle, as_json, in_empty_folder,
                                                                      monkeypatch, capsys):
    for name in ("RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert main([*argv, *(["--json"] if as_json else [])]) == 2
    out, err = capsys.readouterr()
    if as_json:
        payload = json.loads(out)
        assert set(payload) == {"error", "exit"} and payload["exit"] == 2 and needle in payload["error"]
    else:
        assert out == "" and needle in err and "Traceback" not in err
    assert list(in_empty_folder.iterdir()) == []

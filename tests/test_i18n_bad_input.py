"""Hostile input to the language switch, the editions command and chapter 06's sharded lab/exercise.

Each test is a regression test of a defect found by an adversarial pass: bad input
gives one message that says what to change (exit 2 on the command line, naming the flag or the
variable), and nothing is written. Nothing here starts a process pool.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from gastudy.cli.main import main
from gastudy.course import editions, i18n
from tests.test_catalogs import set_markdown, use_course_catalog

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.set_language("en")


def _course(tmp_path: Path) -> Path:
    """A one-chapter course with a Turkish translation of its title, and its tr edition built."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · Title"), nbformat.v4.new_code_cell("x = 1")]
    for cell, cid in zip(nb.cells, ["a", "b"]):
        cell["id"] = cid
    nbformat.write(nb, str(folder / "01_tiny.ipynb"))
    editions.update_translation_files("tr", folder)
    set_markdown(folder, "tr", "a", "# 01 · Başlık")
    editions.build_editions(("tr",), folder)
    return folder


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- the language switch


@pytest.mark.parametrize("value,expected", [("TR", "tr"), (" ar ", "ar"), ("", "en"), ("xx", "en")])
def test_gastudy_lang_is_read_like_set_language_and_an_unknown_one_warns(value, expected):
    """Before: GASTUDY_LANG=TR or " ar " was silently English (set_language accepts both), and
    GASTUDY_LANG=xx gave English without a word."""
    code = ("import warnings\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    from gastudy.course.i18n import language\n"
            "import json\nprint(json.dumps([language(), [str(x.message) for x in w if 'GASTUDY_LANG' in str(x.message)]]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "GASTUDY_LANG": value, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    lang, warnings = json.loads(proc.stdout)
    assert lang == expected
    if value == "xx":
        assert warnings == ["GASTUDY_LANG: unknown course language 'xx': choose one of 'en' (English), 'tr' "
                            "(Türkçe), 'es' (Español), 'ar' (العربية); the course stays in English"]
    else:
        assert warnings == []


def test_is_rtl_reads_a_code_as_set_language_does():
    assert i18n.is_rtl("AR") and i18n.is_rtl(" ar ") and i18n.direction("AR") == "rtl"
    assert not i18n.is_rtl("TR") and not i18n.is_rtl()


def test_t_names_the_text_and_the_missing_field():
    """Before: a bare KeyError 'n' (or 'expected '}' before end of string') with no text named."""
    with pytest.raises(ValueError, match=r"t\('\{n\} microbatches per update'\) cannot be filled from the "
                                         r"fields \['m'\]: KeyError: 'n'; pass every \{field\}"):
        i18n.t("{n} microbatches per update", m=1)
    with pytest.raises(ValueError, match=r"t\('a \{ b'\).*ValueError"):
        i18n.t("a { b", x=1)


@pytest.mark.parametrize("broken", ["{ratio}× ne kadar {", "{oran}× tutar"], ids=["stray-brace", "renamed-field"])
def test_a_translation_that_cannot_be_filled_falls_back_to_english(broken, monkeypatch, tmp_path):
    """Before: a stray '{' or a renamed field in a translation crashed the lab that showed it."""
    english = "1×32 keeps {ratio}× what 4×8 keeps per microbatch."
    use_course_catalog(monkeypatch, tmp_path, "tr", {"id": english, "string": broken},
                       {"id": ("{n} row", "{n} rows"), "string": (broken, broken)})
    i18n.set_language("tr")
    assert i18n.t(english, ratio=4) == "1×32 keeps 4× what 4×8 keeps per microbatch."
    assert i18n.tn("{n} row", "{n} rows", 3, ratio=4) == "3 rows"


# --------------------------------------------------------------------------- gastudy editions


def _editions(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(["editions", *argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv,needle", [
    (["--status", "--update-files"], "--status writes nothing and --update-files"),
    (["--notebooks", "{empty}"], "--notebooks {empty}: {empty} holds no chapter notebook (NN_*.ipynb)"),
    (["--notebooks", "{file}"], "--notebooks {file}: no notebooks folder at {file} (it is a file, not a folder)"),
    (["--notebooks", ""], "argument --notebooks: must not be empty"),
    (["--notebooks", "{course}/tr"], "is a generated edition, not an English notebook"),
], ids=["status+update-files", "empty-folder", "a-file", "empty-string", "an-edition-folder"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_editions_refuses_bad_input_with_exit_2_and_writes_nothing(argv, needle, as_json, tmp_path, capsys):
    """Before: --status silently ignored --update-files; an empty folder 'succeeded' with 0
    notebooks; --notebooks "" meant the default course; --notebooks notebooks/tr built
    notebooks/tr/tr/ from the Turkish edition; errors went to stdout without the flag."""
    course = _course(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "a.txt").write_text("x")
    names = {"{empty}": str(tmp_path / "empty"), "{file}": str(tmp_path / "a.txt"), "{course}": str(course)}
    for key, value in names.items():
        argv = [a.replace(key, value) for a in argv]
        needle = needle.replace(key, value)
    if "--notebooks" not in argv:
        argv = [*argv, "--notebooks", str(course)]
    before = _files(tmp_path)
    code, out, err = _editions([*argv, *(["--json"] if as_json else [])], capsys)
    assert code == 2 and "Traceback" not in out + err
    if as_json:
        assert needle in json.loads(out)["error"] and err == ""
    else:
        assert out == "" and needle in err
    assert _files(tmp_path) == before


@pytest.mark.parametrize("content", [b'msgctxt "a"\nmsgid "# 01 \xc2\xb7 Title"\nmsgstr "# 01 \xc2\xb7 Ba',
                                     b"\xff\xfe not utf-8", b'msgctxt "a"\nmsgid "# 01 \xc2\xb7 Title"\nmsgstr 5\n',
                                     "directory"],
                         ids=["half-written", "not-utf-8", "text-not-a-string", "a-directory"])
def test_a_broken_catalog_is_named_and_nothing_is_written(content, tmp_path, capsys):
    """Before: invalid UTF-8 gave an error without the file's name, a number as the translation a
    traceback, a directory an IsADirectoryError traceback; and a broken catalog of one language was
    found only after the editions of the languages before it had been rewritten."""
    course = _course(tmp_path)
    bad = course / "translations" / "es" / "notebooks.po"  # the second language's catalog is broken
    bad.parent.mkdir(parents=True)
    if content == "directory":
        bad.mkdir()
    else:
        bad.write_bytes(content)
    (course / "tr" / "01_tiny.ipynb").write_text("{}")  # the old edition: must survive the refusal
    before = _files(tmp_path)
    for argv in (["--lang", "tr", "es"], ["--lang", "tr", "es", "--update-files"], ["--lang", "tr", "es", "--status"]):
        code, out, err = _editions([*argv, "--notebooks", str(course)], capsys)
        assert code == 2 and out == "" and "Traceback" not in err and "es/notebooks.po" in err, err
        assert _files(tmp_path) == before


def test_a_language_given_twice_is_reported_once(tmp_path, capsys):
    course = _course(tmp_path)
    code, out, _ = _editions(["--notebooks", str(course), "--status", "--lang", "tr", "tr"], capsys)
    assert code == 0 and out == "tr: 1 notebooks, 1 cells translated, 0 missing, 0 stale\n"


# --------------------------------------------------------------------------- gastudy site


@pytest.mark.parametrize("argv,needle", [
    (["--notebooks", "{missing}"], "--notebooks {missing} does not exist"),
    (["--notebooks", "{file}"], "--notebooks {file} is a file, not a folder"),
    (["--notebooks", "{empty}"], "--notebooks {empty} holds no .ipynb notebook"),
    (["--notebooks", "{course}", "--lang", "en", "es"], "--lang es: no Español edition in"),
    (["--notebooks", "{course}", "--only", "01_tiny", "nope"], "--only nope: no such notebook in"),
], ids=["missing", "a-file", "empty", "edition-not-built", "unknown-only"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_site_bad_input_is_exit_2_naming_the_flag(argv, needle, as_json, tmp_path, capsys):
    """Before: exit 1, the message on stdout, and 'pass notebooks_dir=' (a Python argument) as the hint."""
    course = _course(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "a.txt").write_text("x")
    names = {"{missing}": str(tmp_path / "nowhere"), "{file}": str(tmp_path / "a.txt"),
             "{empty}": str(tmp_path / "empty"), "{course}": str(course)}
    for key, value in names.items():
        argv = [a.replace(key, value) for a in argv]
        needle = needle.replace(key, value)
    before = _files(tmp_path)
    code = main(["site", "--out", str(tmp_path / "site"), *argv, *(["--json"] if as_json else [])])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in out + err
    assert needle in (json.loads(out)["error"] if as_json else err) and (err == "" if as_json else out == "")
    assert _files(tmp_path) == before and not (tmp_path / "site").exists()


# --------------------------------------------------------------------------- chapter 06: sharded lab, exercise 06.3


@pytest.mark.parametrize("kwargs,needle", [
    ({"accumulation_steps": 10**6}, "accumulation_steps must be a whole number from 1 to 64, got 1000000"),
    ({"accumulation_steps": True}, "accumulation_steps must be a whole number from 1 to 64, got True"),
    ({"accumulation_steps": "4"}, "accumulation_steps must be a whole number from 1 to 64, got '4'"),
    ({"accumulation_steps": float("nan")}, "got nan"),
    ({"micro_batch": 0}, "micro_batch must be a whole number from 1 to 32, got 0"),
    ({"replicas": 10**9}, "replicas must be a whole number from 1 to 8"),
    ({"timeout": float("inf")}, "timeout must be a finite number of seconds from 1 to 3600, got inf"),
    ({"timeout": -5}, "got -5"),
    ({"sync": None}, "unknown sync policy None"),
])
def test_sharded_update_gap_refuses_before_any_process_runs(kwargs, needle, monkeypatch):
    """Before: A = 10**6 (or True, a 'whole' bool) was sent to the warm pool, which held it until the
    timeout; an infinite or negative timeout was passed on."""
    from gastudy.course.demos import ddp
    from gastudy.course.labs.sharded import sharded_update_gap

    monkeypatch.setattr(ddp, "run_on_replicas", lambda *a, **k: pytest.fail("a process pool was used"))
    with pytest.raises(ValueError) as err:
        sharded_update_gap(**kwargs)
    assert needle in str(err.value)


@pytest.mark.parametrize("value", [True, 4.0, 3, "4"])
def test_sharded_lab_refuses_an_a_it_does_not_offer(value):
    """Before: True (== 1) and 4.0 (== 4) passed the `in (1, 2, 4, 8)` test."""
    from gastudy.course.labs.sharded import ShardedLab

    with pytest.raises(ValueError, match=r"accumulation_steps must be one of \(1, 2, 4, 8\), got "):
        ShardedLab(accumulation_steps=value)


MEASURED = {"fsdp": {"reductions_per_update": 20, "peak_gradient_bytes": 60_000, "unsharded_gradient_bytes": 120_000}}


@pytest.fixture
def measured(monkeypatch):
    """Exercise 06.3's measurement replaced by fixed numbers, counting the calls (no pool)."""
    from gastudy.course.demos import fsdp

    calls = []
    monkeypatch.setattr(fsdp, "measure_sharded", lambda *a, **k: calls.append(a) or MEASURED)
    return calls


@pytest.mark.parametrize("answer,english,turkish", [
    ({"reduce_scatters": 20}, "your dict has the keys 'reduce_scatters'; answer with exactly reduce_scatters "
                              "and gradient_bytes", "sözlüğünüzdeki anahtarlar: 'reduce_scatters'"),
    ({"reduce_scatters": 20, "gradient_bytes": 1, "extra": 0}, "your dict has the keys 'extra', 'gradient_bytes', "
     "'reduce_scatters'; answer with exactly reduce_scatters and gradient_bytes", "'extra'"),
    ({"reduce_scatters": float("nan"), "gradient_bytes": 1}, "reduce_scatters must be a finite number, got nan",
     "reduce_scatters sonlu bir sayı olmalı; gelen: nan"),
    ({"reduce_scatters": 20, "gradient_bytes": float("inf")}, "gradient_bytes must be a finite number, got inf",
     "gelen: inf"),
    ({"reduce_scatters": "20", "gradient_bytes": 1}, "reduce_scatters must be a finite number, got '20'", "'20'"),
])
def test_exercise_06_3_names_what_is_wrong_without_measuring(answer, english, turkish, measured):
    """Before: a missing or extra key, NaN, inf and strings all got the same 'answer with a dict…'
    (NaN and inf only after a measurement on the pool)."""
    from gastudy.course.exercises.ch06_sharded import sharded_every

    assert sharded_every(answer) == (False, english)
    i18n.set_language("tr")
    assert turkish in sharded_every(answer)[1]
    assert measured == []


def test_exercise_06_3_answers_a_huge_count_and_numpy_numbers(measured):
    """Before: a huge whole number crashed the feedback (f"{10**400:g}" is an OverflowError), and
    NumPy integers (a learner's arithmetic) were refused as 'not a number'."""
    import numpy as np

    from gastudy.course.exercises.ch06_sharded import sharded_every

    ok, feedback = sharded_every({"reduce_scatters": 10**400, "gradient_bytes": 10**400})
    assert not ok and feedback.startswith("reduce_scatters: you said 10,000,000,000") and "gradient_bytes: you said" in feedback
    assert sharded_every({"reduce_scatters": np.int64(20), "gradient_bytes": np.int64(60_000)})[0]
    assert sharded_every({"reduce_scatters": 20.0, "gradient_bytes": np.float32(61_000.0)})[0]
    assert len(measured) == 3

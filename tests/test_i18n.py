"""The language switch, the string tables, the four-language glossary and the generated editions."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from gastudy.course import editions, i18n
from gastudy.course.i18n import terms


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.set_language("en")


def test_t_falls_back_to_english_and_fills_fields(monkeypatch):
    monkeypatch.setitem(i18n._tables, "tr", {"{n} microbatches per update": "güncelleme başına {n} mikro yığın"})
    assert i18n.t("{n} microbatches per update", n=4) == "4 microbatches per update"
    assert i18n.set_language("tr") == "tr" and i18n.language() == "tr"
    assert i18n.t("{n} microbatches per update", n=4) == "güncelleme başına 4 mikro yığın"
    assert i18n.t("no entry for this one") == "no entry for this one"


def test_unknown_language_is_refused_and_changes_nothing():
    i18n.set_language("es")
    with pytest.raises(ValueError, match=r"unknown course language 'fr'.*'tr' \(Türkçe\)"):
        i18n.set_language("fr")
    assert i18n.language() == "es"


def test_rtl_only_for_arabic():
    assert [i18n.direction(c) for c in ("en", "tr", "es", "ar")] == ["ltr", "ltr", "ltr", "rtl"]


def test_missing_translations_are_found_by_reading_the_code(tmp_path, monkeypatch):
    source = tmp_path / "lab.py"
    source.write_text('from gastudy.course.i18n import t\nA = t("Peak memory")\nB = t("Throughput")\nC = t(name)\n')
    monkeypatch.setitem(i18n._tables, "es", {"Peak memory": "Pico de memoria", "Old text": "Texto viejo"})
    assert i18n.missing_translations("es", [source]) == {"Throughput": ["lab.py:3"]}
    assert i18n.unused_translations("es", [source]) == ["Old text"]
    assert i18n.untranslatable_calls([source]) == ["lab.py:4"]


def test_a_language_table_merges_its_part_modules_and_refuses_a_text_in_two(tmp_path, monkeypatch):
    import importlib
    pkg = tmp_path / "gastudy" / "course" / "i18n"
    monkeypatch.setattr(i18n, "__file__", str(pkg / "__init__.py"))
    pkg.mkdir(parents=True)
    (pkg / "strings_es.py").write_text('STRINGS = {"Peak memory": "Pico de memoria"}\n')
    (pkg / "strings_es_ch06.py").write_text('STRINGS = {"Replicas": "Réplicas"}\n')
    (pkg / "strings_est.py").write_text('STRINGS = {}\n')  # another language's name, not a part
    assert i18n.table_modules("es") == ["strings_es", "strings_es_ch06"]
    loaded = {"strings_es": {"Peak memory": "Pico de memoria"}, "strings_es_ch06": {"Replicas": "Réplicas"}}
    monkeypatch.setattr(importlib, "import_module",
                        lambda name: _module(loaded[name.rsplit(".", 1)[1]]))
    monkeypatch.setattr(i18n, "_tables", {})
    assert i18n.table("es") == {"Peak memory": "Pico de memoria", "Replicas": "Réplicas"}
    loaded["strings_es_ch06"] = {"Peak memory": "Memoria pico"}
    i18n._tables.clear()
    with pytest.raises(ValueError, match=r"strings_es_ch06 repeats 1 English text.*'Peak memory'"):
        i18n.table("es")


def _module(strings):
    import types
    m = types.ModuleType("m")
    m.STRINGS = strings
    return m


@pytest.mark.parametrize("code", ["tr", "es", "ar"])
def test_no_course_string_lacks_a_translation(code):
    assert i18n.untranslatable_calls(i18n.course_sources()) == []
    assert i18n.missing_translations(code) == {}


def test_glossary_has_one_rendering_per_term_in_every_language():
    assert len(terms.TERMS) >= 40
    english = [e.en for e in terms.TERMS]
    assert len(set(english)) == len(english)
    for code in ("tr", "es", "ar"):
        renderings = [e.rendering(code) for e in terms.TERMS]
        assert all(r.strip() for r in renderings)
    # the sources' inconsistencies are settled: one chosen rendering, the variants recorded
    micro = terms.term("microbatch")
    assert micro.tr == "mikro yığın" and set(micro.variants["tr"]) >= {"mikrobatch", "mikro grup", "mikro parti"}
    assert "الدفعات الفرعية" in micro.variants["ar"]
    assert len(terms.term("activation checkpointing").variants["ar"]) >= 5
    assert "deneyim" in terms.term("experiment").note
    rows = terms.glossary_rows("ar")
    assert rows[0] == {"English": "microbatch", "ar": "دفعة مصغّرة"}
    with pytest.raises(KeyError, match="did you mean"):
        terms.term("micro")


def _tiny_course(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · Title"), nbformat.v4.new_code_cell("x = 1\nx"),
                nbformat.v4.new_markdown_cell("Some *text*.")]
    for cell, cid in zip(nb.cells, ["a", "b", "c"]):
        cell["id"] = cid
    nbformat.write(nb, str(folder / "01_tiny.ipynb"))
    return folder


def test_editions_keep_code_identical_and_track_stale_translations(tmp_path):
    folder = _tiny_course(tmp_path)
    before = editions.update_translation_files("ar", folder)
    assert (before.count("missing"), before.count("ok")) == (2, 0)
    path = folder / "translations" / "ar" / "01_tiny.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["cells"]["a"]["english"] == "# 01 · Title" and data["cells"]["a"]["text"] == ""
    data["cells"]["a"]["text"] = "# 01 · العنوان"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    [report] = editions.build_editions(("ar",), folder)
    assert report.notebooks == ["01_tiny.ipynb"] and (report.count("ok"), report.count("missing")) == (1, 1)
    english = nbformat.read(str(folder / "01_tiny.ipynb"), 4)
    arabic = nbformat.read(str(folder / "ar" / "01_tiny.ipynb"), 4)
    assert arabic.cells[0]["id"] == editions.SET_LANGUAGE_ID and 'set_language("ar")' in arabic.cells[0].source
    assert [c.source for c in arabic.cells[1:] if c.cell_type == "code"] == \
           [c.source for c in english.cells if c.cell_type == "code"]
    assert arabic.cells[1].source.startswith('<div dir="rtl" lang="ar">') and "العنوان" in arabic.cells[1].source
    assert arabic.cells[3].source == "Some *text*."          # untranslated: English stays

    english.cells[0].source = "# 01 · A new title"            # the English text changes…
    nbformat.write(english, str(folder / "01_tiny.ipynb"))
    status = editions.translation_status("ar", folder)
    assert [(c.cell_id, c.state) for c in status.cells] == [("a", "stale"), ("c", "missing")]
    editions.update_translation_files("ar", folder)           # …the translator sees the old text
    entry = json.loads(path.read_text(encoding="utf-8"))["cells"]["a"]
    assert entry["previous"] == "# 01 · العنوان" and entry["text"] == "" and entry["english"] == "# 01 · A new title"


def test_a_notebook_nobody_translated_is_not_published_as_english(tmp_path):
    folder = _tiny_course(tmp_path)
    [report] = editions.build_editions(("tr",), folder)
    assert report.notebooks == [] and not (folder / "tr" / "01_tiny.ipynb").exists()
    with pytest.raises(ValueError, match="no edition 'en'"):
        editions.build_editions(("en",), folder)


def test_a_broken_translation_file_names_itself(tmp_path):
    folder = _tiny_course(tmp_path)
    bad = folder / "translations" / "es" / "01_tiny.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="01_tiny.json is not a translation file"):
        editions.translation_status("es", folder)


REPO = Path(__file__).resolve().parents[1]
COMMITTED = {code: sorted((REPO / "notebooks" / code).glob("*.ipynb")) for code in editions.EDITIONS}


@pytest.mark.parametrize("code", editions.EDITIONS)
def test_committed_edition_is_what_the_sources_generate(code, tmp_path):
    """notebooks/<code>/ is exactly what `gastudy editions` writes from the English notebooks and the
    translation files: nobody edited a generated notebook by hand, nobody forgot to regenerate."""
    [report] = editions.build_editions((code,), REPO / "notebooks", out_dir=tmp_path)
    assert [p.name for p in COMMITTED[code]] == report.notebooks
    for path in COMMITTED[code]:
        fresh = nbformat.read(str(tmp_path / code / path.name), 4)
        committed = nbformat.read(str(path), 4)
        assert [(c.cell_type, c.source) for c in committed.cells] == [(c.cell_type, c.source) for c in fresh.cells], \
            f"{code}/{path.name} is out of date: run `gastudy editions --lang {code}`"


@pytest.mark.parametrize("code", editions.EDITIONS)
def test_edition_code_cells_are_the_english_ones(code):
    for path in COMMITTED[code]:
        english = nbformat.read(str(REPO / "notebooks" / path.name), 4)
        edition = nbformat.read(str(path), 4)
        assert edition.cells[0]["id"] == editions.SET_LANGUAGE_ID
        assert [(c["id"], c.source) for c in edition.cells[1:] if c.cell_type == "code"] == \
               [(c["id"], c.source) for c in english.cells if c.cell_type == "code"], path


@pytest.mark.parametrize("code", editions.EDITIONS)
def test_no_translation_is_stale_and_published_chapters_are_whole(code):
    """An English markdown cell that changed after it was translated fails here (stale), and so does
    a published chapter with a cell left in English (missing)."""
    status = editions.translation_status(code, REPO / "notebooks")
    published = {p.name for p in COMMITTED[code]}
    stale = [f"{c.notebook}#{c.cell_id}" for c in status.cells if c.state == "stale"]
    missing = [f"{c.notebook}#{c.cell_id}" for c in status.cells if c.state == "missing" and c.notebook in published]
    assert stale == [], f"{code}: English changed after translation — update these entries: {stale}"
    assert missing == [], f"{code}: published chapters with untranslated cells: {missing}"
    assert status.orphans == []


def test_editions_command_reports_and_rebuilds(tmp_path, capsys):
    from gastudy.cli.main import main

    folder = _tiny_course(tmp_path)
    assert main(["editions", "--notebooks", str(folder), "--status", "--lang", "es"]) == 1  # nothing translated
    assert "es: 1 notebooks, 0 cells translated, 2 missing, 0 stale" in capsys.readouterr().out
    assert main(["editions", "--notebooks", str(folder), "--update-files", "--lang", "es", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["es"] == {"notebooks": [], "translated": 0, "missing": 2,
                                                         "stale": 0, "orphans": 0}
    assert (folder / "translations" / "es" / "01_tiny.json").exists()
    assert main(["editions", "--notebooks", str(tmp_path / "nowhere"), "--json"]) == 2
    assert "no notebooks folder" in json.loads(capsys.readouterr().out)["error"]


def test_lab_opens_the_chosen_edition(capsys):
    from gastudy.cli.main import main

    assert main(["lab", "--lang", "ar", "--dry-run", "--json"]) == 0
    opened = json.loads(capsys.readouterr().out)
    assert opened["notebooks"].endswith("notebooks/ar") and f"--notebook-dir={opened['notebooks']}" in opened["command"]
    with pytest.raises(SystemExit) as stop:
        main(["lab", "--lang", "fr", "--dry-run"])
    assert stop.value.code == 2


def test_notebook_check_claims_and_prints_are_translated_sentences(tmp_path, capsys):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('%matplotlib inline\ncheck(ok, t("with equal counts the two agree"))\n'
                                          'print("input_ids:", ids)\nprint(f"{n} rows in {k} groups")\n'
                                          'check_close(a, b, "the mean of means")')]
    path = tmp_path / "99_x.ipynb"
    nbformat.write(nb, path)
    assert i18n.bare_sentences([path]) == ["99_x.ipynb[" + nb.cells[0].id + "]:4",
                                           "99_x.ipynb[" + nb.cells[0].id + "]:5"]
    assert i18n.strings_in([path]) == {"with equal counts the two agree": ["99_x.ipynb[" + nb.cells[0].id + "]:2"]}
    from gastudy.course import check, t
    i18n.set_language("tr")
    check(True, t("tokens normalization equals the big batch (gap {tokens:.1e})", tokens=2.5e-8))
    assert capsys.readouterr().out == "✓ tokens normalleştirmesi büyük yığına eşittir (fark 2.5e-08)\n"


def test_every_sentence_of_the_english_notebooks_goes_through_t():
    notebooks = [p for p in i18n.course_sources() if p.suffix == ".ipynb"]
    assert len(notebooks) == 13
    assert i18n.bare_sentences(notebooks) == []


@pytest.mark.parametrize("code", ["tr", "es", "ar"])
def test_every_translation_keeps_the_fields_and_formats_of_its_english_text(code):
    import string

    def fields(text):
        return sorted((name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None)

    bad = {english: text for english, text in i18n.table(code).items() if fields(english) != fields(text)}
    assert bad == {}


@pytest.mark.parametrize("code", ["tr", "es", "ar"])
def test_translations_keep_every_code_span_of_the_english_cell(code):
    """A code span (`no_sync`, `loss.backward()`) is what learners type: it must survive translation
    verbatim. Spans with spaces may be sentences a chapter prints, and may be translated."""
    import re

    span = re.compile(r"`([^`\n]+)`")
    root = Path(__file__).resolve().parents[1] / "notebooks"
    lost = {}
    for path in sorted((root / "translations" / code).glob("*.json")):
        english = {c.id: c.source for c in nbformat.read(root / f"{path.stem}.ipynb", as_version=4).cells}
        for cell_id, entry in json.loads(path.read_text(encoding="utf-8"))["cells"].items():
            need = {s for s in span.findall(english.get(cell_id, "")) if " " not in s.strip()}
            missing = need - set(span.findall(entry.get("text") or "")) if entry.get("text") else set()
            if missing:
                lost[f"{path.stem}[{cell_id}]"] = sorted(missing)
    assert lost == {}

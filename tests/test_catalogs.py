"""The course's gettext catalogs: stored faithfully, read at run time, plural forms, contexts, fuzzy
entries, merging a changed English text, and the glossary held over every translation."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import nbformat
import pytest
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from gastudy.course import editions, i18n
from gastudy.course.i18n import catalogs, terms
from gastudy.course.i18n.bidi import strip_controls

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
CODES = ("tr", "es", "ar")


@pytest.fixture(autouse=True)
def english_again():
    yield
    i18n.set_language("en")


def use_course_catalog(monkeypatch, folder: Path, code: str, *messages: dict) -> Path:
    """Point the course at ``folder/locale``, where language ``code``'s catalog holds ``messages``
    (keyword arguments of Babel's ``Catalog.add``); returns the catalog's path."""
    catalog = catalogs.new_catalog("course", code)
    for message in messages:
        catalog.add(**message)
    monkeypatch.setattr(i18n, "LOCALE", folder / "locale")
    for cache in ("_catalogs", "_tables", "_compiled"):
        monkeypatch.setattr(i18n, cache, {})
    path = i18n.catalog_path(code)
    catalogs.write_catalog(path, catalog)
    return path


def set_markdown(folder: Path, code: str, cell_id: str, text: str) -> None:
    """Translate markdown cell ``cell_id`` of the course in ``folder`` into ``code`` (its catalog
    must have the cell's entry, as ``editions.update_translation_files`` writes it)."""
    path = editions.catalog_file(code, folder)
    catalog = catalogs.read_catalog(path, code)
    [entry] = [m for m in catalog if m.context == cell_id]
    entry.string = text
    catalogs.write_catalog(path, catalog)


def _catalog_files() -> list[Path]:
    return ([i18n.LOCALE / "course.pot", editions.template_path(NOTEBOOKS)]
            + [i18n.catalog_path(code) for code in CODES] + [editions.catalog_file(code, NOTEBOOKS) for code in CODES])


# --------------------------------------------------------------------------- storage


@pytest.mark.parametrize("path", _catalog_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_catalog_reads_back_byte_for_byte(path):
    """What Babel reads from a committed catalog is written back identically: no text is lost or
    reshaped by the format (wrapping, escapes, right-to-left marks, braces)."""
    assert catalogs.render(read_po(path.open("rb"))) == path.read_bytes()


@pytest.mark.parametrize("code", CODES)
def test_each_language_declares_its_plural_forms(code):
    for path in (i18n.catalog_path(code), editions.catalog_file(code, NOTEBOOKS)):
        catalog = read_po(path.open("rb"))
        assert catalog.plural_forms == get_plural(code).plural_forms and str(catalog.locale) == code
    assert get_plural("ar").num_plurals == 6


def test_the_templates_are_what_the_sources_say():
    """``course.pot`` lists every message of the course's code, ``notebooks.pot`` every markdown cell
    of the English notebooks: run `gastudy editions --update-files` after changing either."""
    def entries(catalog):
        return [(m.context, m.id, sorted({f for f, _ in m.locations})) for m in catalog if m.id]

    assert entries(read_po((i18n.LOCALE / "course.pot").open("rb"))) == entries(i18n.template())
    assert entries(read_po(editions.template_path(NOTEBOOKS).open("rb"))) == entries(editions.template(NOTEBOOKS))


@pytest.mark.parametrize("code", CODES)
def test_every_catalog_entry_is_used_and_none_is_fuzzy(code):
    assert i18n.unused_translations(code) == [] and i18n.stale_translations(code) == []
    assert [m.context for m in editions.load_catalog(code, NOTEBOOKS) if m.id and m.fuzzy] == []


def test_the_catalogs_ship_with_the_package():
    import fnmatch

    import tomllib

    globs = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["gastudy"]
    shipped = [p for p in (REPO / "gastudy").rglob("*.po*")
               if any(fnmatch.fnmatch(p.relative_to(REPO / "gastudy").as_posix(), g) for g in globs)]
    assert sorted(shipped) == sorted(i18n.catalog_path(c) for c in CODES)  # what t reads; not the template


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout


def _conversion() -> tuple[str, str | None]:
    """(the revision with the Python string tables and JSON translation files, the revision whose
    catalogs replaced them, ``None`` while that is the working tree)."""
    try:
        deleted = _git("log", "-1", "--format=%H", "--diff-filter=D", "--", "gastudy/course/i18n/strings_tr.py").strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tables the catalogs replaced cannot be read")
    return (f"{deleted}^", deleted) if deleted else ("HEAD", None)


def _catalog_at(revision: str | None, path: Path):
    if revision is None:
        return read_po(path.open("rb"))
    return read_po(io.BytesIO(_git("show", f"{revision}:{path.relative_to(REPO).as_posix()}").encode("utf-8")))


@pytest.mark.parametrize("code", CODES)
def test_the_catalogs_kept_every_translation_of_the_tables_they_replaced(code):
    """The conversion, checked against git: every entry of the old string tables
    (``strings_<lang>*.py``) and translation files (``notebooks/translations/<lang>/*.json``) is in
    the catalogs that replaced them, its text byte for byte, unless the old text broke the glossary
    (then the new one fixed what the old one broke); an entry left out belongs to an English text the course no longer
    had. Both catalogs are complete, so the counts add up."""
    import ast
    import hashlib
    import json

    before, after = _conversion()
    try:
        names = _git("ls-tree", "--name-only", before, "gastudy/course/i18n/", f"notebooks/translations/{code}/").split()
    except subprocess.CalledProcessError:
        pytest.skip(f"revision {before} is not in this clone")
    tables = [n for n in names if n.rsplit("/", 1)[1].startswith((f"strings_{code}.", f"strings_{code}_"))]
    if not tables:
        pytest.skip("this history has no string tables")
    old_sentences: dict[str, str] = {}
    for name in tables:
        [table] = [n.value for n in ast.parse(_git("show", f"{before}:{name}")).body if isinstance(n, ast.AnnAssign)]
        old_sentences.update(ast.literal_eval(table))
    old_cells = {cid: entry for name in names if name.endswith(".json")
                 for cid, entry in json.loads(_git("show", f"{before}:{name}"))["cells"].items()}

    used = {m.id for m in _catalog_at(after, i18n.LOCALE / "course.pot") if m.id}
    sentences = {m.id: m.string for m in _catalog_at(after, i18n.catalog_path(code)) if m.id}
    cells = {m.context: m for m in _catalog_at(after, editions.catalog_file(code, NOTEBOOKS)) if m.id}
    assert set(sentences) == used and all(sentences.values()) and all(m.string for m in cells.values())
    for english, text in old_sentences.items():
        assert english in sentences or english not in used, f"{code}: the translation of {english!r} was lost"
        if english in sentences and sentences[english] != text:
            assert _fixed(text, sentences[english], code), (code, english)
    for cid, entry in old_cells.items():
        assert cid in cells or not entry["text"], f"{code}: the translation of cell {cid} was lost"
        same_english = hashlib.sha256(cells[cid].id.encode()).hexdigest()[:16] == entry["english_sha"]
        if same_english and cells[cid].string != entry["text"]:
            assert _fixed(entry["text"], cells[cid].string, code), (code, cid)
    assert len(sentences) >= len([e for e in old_sentences if e in used]) and len(cells) >= len(old_cells)


def _fixed(old: str, new: str, code: str) -> set[str]:
    """What the glossary found in ``old`` that ``new`` no longer says (the glossary has grown
    since: ``new`` may still break a rule added later)."""
    return set(terms.violations(old, code)) - set(terms.violations(new, code))


# --------------------------------------------------------------------------- run time


@pytest.mark.parametrize("n, form", [(0, "لا صفوف"), (1, "صف واحد"), (2, "صفّان"), (3, "3 صفوف"),
                                     (11, "11 صفًّا"), (100, "100 صف"), (102, "102 صف"), (103, "103 صفوف")])
def test_arabic_counts_take_their_six_plural_forms(n, form, tmp_path, monkeypatch):
    use_course_catalog(monkeypatch, tmp_path, "ar", {"id": ("{n} row", "{n} rows"),
                                                      "string": ("لا صفوف", "صف واحد", "صفّان", "{n} صفوف",
                                                                 "{n} صفًّا", "{n} صف")})
    assert i18n.tn("{n} row", "{n} rows", n) == ("1 row" if n == 1 else f"{n} rows")
    i18n.set_language("ar")
    assert strip_controls(i18n.tn("{n} row", "{n} rows", n)) == form  # the number itself is isolated


def test_a_table_counts_its_hidden_rows_in_each_language():
    from gastudy.course.widgets import _gap_row

    i18n.set_language("ar")
    assert [strip_controls(i18n.tn("{n} row", "{n} rows", n)) for n in (0, 1, 2, 3, 11, 100)] == \
           ["لا صفوف", "صف واحد", "صفّان", "3 صفوف", "11 صفًّا", "100 صف"]
    assert "⋯ \u206611\u2069 صفًّا</td>" in _gap_row(11, 3)  # the number isolated left to right
    i18n.set_language("es")
    assert [i18n.tn("{n} row", "{n} rows", n) for n in (1, 2)] == ["1 fila", "2 filas"]
    i18n.set_language("tr")
    assert [i18n.tn("{n} row", "{n} rows", n) for n in (1, 2)] == ["1 satır", "2 satır"]


def test_plural_forms_in_turkish_and_spanish_and_their_fallbacks(tmp_path, monkeypatch):
    use_course_catalog(monkeypatch, tmp_path, "es",
                       {"id": ("{n} row of {what}", "{n} rows of {what}"),
                        "string": ("{n} fila de {what}", "{n} de filas de {what}", "{n} filas de {what}")},
                       {"id": ("{n} update", "{n} updates"), "string": ("{n} actualización", "", "")},
                       {"id": ("{n} group", "{n} groups"), "string": ("{n} grupo", "{n} grupos", "{n} grupos"),
                        "flags": ["fuzzy"]})
    i18n.set_language("es")
    assert [i18n.tn("{n} row of {what}", "{n} rows of {what}", n, what="x") for n in (1, 2, 1_000_000)] == \
           ["1 fila de x", "2 filas de x", "1000000 de filas de x"]
    assert i18n.tn("{n} row of {what}", "{n} rows of {what}", 1000, n="1,000", what="x") == "1,000 filas de x"
    assert i18n.tn("{n} update", "{n} updates", 1) == "1 actualización"
    assert i18n.tn("{n} update", "{n} updates", 4) == "4 updates"      # an empty form: English
    assert i18n.tn("{n} group", "{n} groups", 4) == "4 groups"         # fuzzy: never used
    assert i18n.tn("{n} sample", "{n} samples", 4) == "4 samples"     # no entry
    with pytest.raises(ValueError, match="whole number"):
        i18n.tn("{n} row", "{n} rows", 2.5)
    with pytest.raises(ValueError, match=r"tn\('\{k\} rows'\) cannot be filled"):
        i18n.tn("{k} row", "{k} rows", 2)
    assert get_plural("tr").plural_forms == "nplurals=2; plural=(n != 1);"


def test_a_context_gives_one_english_label_two_translations(tmp_path, monkeypatch):
    use_course_catalog(monkeypatch, tmp_path, "tr", {"id": "update", "string": "güncelleme"},
                       {"id": "update", "string": "güncelle", "context": "button"})
    source = tmp_path / "lab.py"
    source.write_text('t("update")\nt("update", context="button")\nt("x", context=name)\n')
    assert i18n.strings_in([source]) == {"update": ["lab.py:1"], "button\x04update": ["lab.py:2"]}
    assert i18n.untranslatable_calls([source]) == ["lab.py:3"]
    assert [(m.context, m.id) for m in i18n.template([source]) if m.id] == [(None, "update"), ("button", "update")]
    i18n.set_language("tr")
    assert (i18n.t("update"), i18n.t("update", context="button"), i18n.t("update", context="menu")) == \
           ("güncelleme", "güncelle", "update")


def test_a_fuzzy_entry_shows_english_and_is_reported(tmp_path, monkeypatch):
    use_course_catalog(monkeypatch, tmp_path, "tr", {"id": "Peak memory", "string": "Tepe bellek", "flags": ["fuzzy"]},
                       {"id": "Replicas", "string": "Replikalar"})
    i18n.set_language("tr")
    assert (i18n.t("Peak memory"), i18n.t("Replicas")) == ("Peak memory", "Replikalar")
    assert i18n.table("tr") == {"Replicas": "Replikalar"} and i18n.stale_translations("tr") == ["Peak memory"]


def test_the_compiled_catalog_is_babels_compile_of_the_po():
    """At run time a catalog is compiled in memory, never read from a committed ``.mo``: what t
    and tn read is exactly what Babel compiles from the ``.po``."""
    assert not list(i18n.LOCALE.rglob("*.mo"))
    mo = io.BytesIO()
    write_mo(mo, read_po(i18n.catalog_path("ar").open("rb")))
    import gettext
    compiled = gettext.GNUTranslations(io.BytesIO(mo.getvalue()))
    i18n.set_language("ar")
    for english, text in list(i18n.table("ar").items())[:50]:
        assert compiled.gettext(english) == text


def test_update_catalogs_merges_a_changed_text_as_fuzzy(tmp_path, monkeypatch):
    use_course_catalog(monkeypatch, tmp_path, "tr", {"id": "Peak memory of one group", "string": "Bir grubun tepe belleği"},
                       {"id": "Gone", "string": "Gitti"})
    source = tmp_path / "lab.py"
    source.write_text('t("Peak memory of a group")\ntn("{n} row", "{n} rows", n)\n')
    written = i18n.update_catalogs(["tr"], [source])
    assert written == [tmp_path / "locale" / "course.pot", i18n.catalog_path("tr")]
    merged = read_po(i18n.catalog_path("tr").open("rb"))
    changed = merged.get("Peak memory of a group")
    assert changed.fuzzy and changed.string == "Bir grubun tepe belleği"
    assert merged.get("{n} row").id == ("{n} row", "{n} rows") and merged.get("Gone") is None
    i18n.set_language("tr")
    assert i18n.t("Peak memory of a group") == "Peak memory of a group"  # fuzzy: English until checked
    assert i18n.missing_translations("tr", [source]) == {"Peak memory of a group": ["lab.py:1"], "{n} row": ["lab.py:2"]}
    assert i18n.update_catalogs(["tr"], [source]) == []                  # nothing changed: nothing written


def test_a_changed_english_cell_becomes_fuzzy_even_when_rewritten_entirely(tmp_path):
    """Cells are matched by id, not by the similarity of two texts: a rewritten cell keeps its own
    old translation (fuzzy), and never takes another cell's."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(text) for text in ("# 01 · Title", "Counting the items", "Counting items")]
    for cell, cid in zip(nb.cells, "abc"):
        cell["id"] = cid
    nbformat.write(nb, str(folder / "01_x.ipynb"))
    editions.update_translation_files("es", folder)
    for cid, text in zip("abc", ("# 01 · Título", "Contar los objetivos", "Contar objetivos")):
        set_markdown(folder, "es", cid, text)
    nb.cells[1].source = "Something else altogether, much closer to the third cell: Counting items!"
    nbformat.write(nb, str(folder / "01_x.ipynb"))
    editions.update_translation_files("es", folder)
    merged = {m.context: m for m in editions.load_catalog("es", folder) if m.id}
    assert merged["b"].fuzzy and merged["b"].string == "Contar los objetivos"
    assert not merged["c"].fuzzy and merged["c"].string == "Contar objetivos"
    # the template written beside the catalogs holds no language's text (babel's update would put
    # the merged translations into the template's own messages if it were handed them)
    assert [m.context for m in read_po((folder / "translations" / "notebooks.pot").open("rb")) if m.id and m.string] == []
    status = editions.translation_status("es", folder)
    assert [(c.cell_id, c.state) for c in status.cells] == [("a", "ok"), ("b", "stale"), ("c", "ok")]
    [report] = editions.build_editions(("es",), folder)
    assert nbformat.read(str(folder / "es" / "01_x.ipynb"), 4).cells[2].source == nb.cells[1].source


def test_status_of_the_course_counts_the_lab_sentences(capsys):
    from gastudy.cli.main import main

    assert main(["editions", "--status", "--json", "--lang", "ar"]) == 0
    sentences = __import__("json").loads(capsys.readouterr().out)["ar"]["sentences"]
    assert sentences == {"translated": len(i18n.strings_in(i18n.course_sources())), "missing": 0, "stale": 0}
    report = editions.EditionReport("tr", notebooks=["01_x.ipynb"], sentences={"translated": 5, "missing": 1, "stale": 2})
    assert not report.complete and report.summary().splitlines()[1].startswith(
        "tr: lab sentences: 5 translated, 1 missing, 2 stale")


# --------------------------------------------------------------------------- the glossary


def _translations(code: str):
    for path in (i18n.catalog_path(code), editions.catalog_file(code, NOTEBOOKS)):
        for message in read_po(path.open("rb")):
            for text in (message.string if isinstance(message.string, tuple) else (message.string,)):
                if message.id and text:
                    yield f"{path.name}: {message.context or message.id!r}"[:120], text


@pytest.mark.parametrize("code", CODES)
def test_every_translation_keeps_the_glossary(code):
    """Prose and labs alike: no recorded wrong rendering of a term, no term left in English where the
    glossary gives it a rendering (a gloss in parentheses and code aside)."""
    broken = {where: found for where, text in _translations(code) if (found := terms.violations(text, code))}
    assert broken == {}


@pytest.mark.parametrize("code, text, found", [
    ("tr", "Küresel paydayı her replika kullanır; genel payda da yanlış.",
     ["'küresel payda' for 'global denominator': say 'global payda'",
      "'genel payda' for 'global denominator': say 'global payda'"]),
    ("tr", "Her epoch'ta checkpointing'siz çalıştırın.",
     ["'checkpointing' left in English: say 'aktivasyon kontrol noktası (checkpointing)'",
      "'epoch' left in English: say 'dönem'"]),
    ("es", "El checkpointing guarda menos.", ["'checkpointing' left in English: say "
                                              "'puntos de control de activaciones (checkpointing)'"]),
    ("ar", "بالمقام العامّ وضمن السماحية، وتفاوته أوسع", [
        "'بالمقام العام' for 'global denominator': say 'المقام الشامل'",
        "'السماحية' for 'tolerance (of a comparison)': say 'حدّ التسامح'",
        "'وتفاوت' for 'tolerance (of a comparison)': say 'حدّ التسامح'"]),
])
def test_the_glossary_check_finds_a_wrong_catalog(code, text, found):
    assert terms.violations(text, code) == found


@pytest.mark.parametrize("code, text", [
    ("tr", "Aktivasyon kontrol noktası (checkpointing) ve global payda; `gradient_checkpointing_enable()`"),
    ("tr", "Türkçe kılavuzun başlığı \"Etkin batch'i hesaplamak\"; bir dönem (epoch) sürer."),
    ("es", "Puntos de control (checkpointing): `model.gradient_checkpointing_enable()`, offload=True"),
    ("es", "Hugging Face, [Gradient checkpointing](https://huggingface.co/docs#gradient-checkpointing)"),
    ("ar", "على بيانات متفاوتة الأطوال، ضمن حدّ التسامح؛ تطبيع tokens في gastudy"),
])
def test_the_glossary_check_leaves_code_citations_and_glosses_alone(code, text):
    assert terms.violations(text, code) == []


def test_every_wrong_rendering_differs_from_the_chosen_one():
    for entry in terms.TERMS:
        for code, wrong in entry.wrong.items():
            assert terms.violations(entry.rendering(code), code) == [], entry.en
            assert all(terms.violations(f"{w} {w.near[0]}" if isinstance(w, terms.Near) else w, code)
                       for w in wrong), entry.en


@pytest.mark.parametrize("code, text, found", [
    ("es", "Divida la pérdida sumada por los elementos del grupo.",
     ["'elemento' for 'supervised item': say 'objetivo de predicción'"]),
    ("es", "Una media de medias vuelve a ponderar los elementos.",
     ["'elemento' for 'supervised item': say 'objetivo de predicción'"]),
    ("es", "Los tokens supervisados del grupo (num_items_in_batch).",
     ["'tokens supervisados' for 'supervised item': say 'objetivo de predicción'"]),
    ("tr", "Grubun denetlenen tokenlarını sayın; blokları checkpoint'ler.",
     ["'denetlenen token' for 'supervised item': say 'denetlenen öğe'",
      "\"checkpoint'\" for 'activation checkpointing': say 'aktivasyon kontrol noktası (checkpointing)'"]),
    ("ar", "يقسم مجموع الخسارة على الرموز المستهدفة في المجموعة",
     ["'الرموز المستهدفة' for 'supervised item': say 'هدف تنبؤ'"]),
    ("es", "Lo que queda es capas × m × T × hidden × bytes por capa.",
     ["'hidden' left in English in a formula: write it in the sentence's language"]),
    ("ar", "وفق الصيغة layers × m × T × hidden × 4 bytes", [
        "'layers' left in English in a formula: write it in the sentence's language",
        "'hidden' left in English in a formula: write it in the sentence's language",
        "'bytes' left in English in a formula: write it in the sentence's language"]),
])
def test_the_glossary_knows_the_synonyms_and_formulas_in_english(code, text, found):
    assert terms.violations(text, code) == found


@pytest.mark.parametrize("code, text", [
    ("es", "Un tensor de m × T × capas: 4 bytes por elemento, elementos × bytes por elemento."),  # a tensor's elements
    ("es", "Cada capa guarda un tensor de entrada de m × T × oculto elementos."),
    ("es", "Los elementos de la interfaz del laboratorio cambian el gráfico."),
    ("es", "Divida por los objetivos de predicción del grupo; el tamaño oculto (hidden) es 256."),
    ("tr", "Grubun denetlenen öğelerini sayın; `every_n_layers × 2` ve (total = total + loss) koddur."),
    ("ar", "تحفظ كل طبقة m × T × البعد الخفي عنصرًا؛ وhidden 256 إعداد، و`m × heads × T × T` شيفرة."),
])
def test_the_glossary_leaves_legitimate_uses_alone(code, text):
    assert terms.violations(text, code) == []


# --------------------------------------------------------------------------- numbers


def test_the_number_style_is_what_the_labs_print():
    """The style the prose is held to is read from the same CLDR symbols t() prints with."""
    from gastudy.course.i18n import number_style

    for code in CODES:
        i18n.set_language(code)
        printed = strip_controls(i18n.t("{n:,} · {x:.1f} · {p:.0%}", n=65536, x=3.5, p=0.05))
        english = i18n.t("{n:,} · {x:.1f} · {p:.0%}", n=65536, x=3.5, p=0.05)  # no entry: Python's spelling
        assert english == "65,536 · 3.5 · 5%"
        style = number_style.style(code)
        assert [number_style.local_number(t, code) for t in ("65,536", "3.5", "5%")] == \
               [format(i18n.LocalNumber(65536, code), ","), format(i18n.LocalNumber(3.5, code), ".1f"),
                format(i18n.LocalNumber(0.05, code), ".0%")], (code, printed, style)
    # Spanish groups with a thin space and leaves four digits whole (RAE/ASALE), not CLDR's point
    assert [number_style.local_number("65536", c) for c in CODES] == ["65.536", "65\u202f536", "65,536"]
    assert [number_style.local_number("1536", c) for c in CODES] == ["1.536", "1536", "1536"]
    assert [number_style.local_number("5 %", c) for c in CODES] == ["%5", "5\u00a0%", "5%"]


@pytest.mark.parametrize("code, text, english, fixed", [
    ("tr", "(512·2 + 1536·4) / 2048 = 3,5 ve 1.536 token", "(512·2 + 1536·4) / 2048 = 3.5 and 1,536 tokens",
     "(512·2 + 1.536·4) / 2.048 = 3,5 ve 1.536 token"),
    ("tr", "oran 25% ya da 25 %, yani 3.5 kat; ölçek 65,536", "25%, 3.5×, scale 65,536",
     "oran %25 ya da %25, yani 3,5 kat; ölçek 65.536"),
    ("tr", "%{value:.1f} ve {pct:.0f}%", None, "%{value:.1f} ve %{pct:.0f}"),
    ("es", "65.536 y 2.000.000; 3,5 y 5 %; 65,536 copiado; 5%; 65\u202f536", "65,536 copied",
     "65\u202f536 y 2\u202f000\u202f000; 3,5 y 5 %; 65\u202f536 copiado; 5\u00a0%; 65\u202f536"),
    ("ar", "5 % و 3,5 و 65.536 و ٣٫٥ و {value:.1f} %", "65,536 and 3.5",
     "5% و 3.5 و 65,536 و 3.5 و {value:.1f}%"),
])
def test_numbers_in_prose_are_fixed_to_the_labs_style(code, text, english, fixed):
    from gastudy.course.i18n import number_style

    assert number_style.fix(text, code, english) == fixed
    assert number_style.problems(fixed, code, english) == []


@pytest.mark.parametrize("code, text", [
    ("tr", "Python 3.10 ya da üstü (3.11 önerilir); PyTorch 2.13'te; transformers 4.46.0; 127.0.0.1:8888"),
    ("tr", "max_norm = 1.0, seed=1234; MB-3, nb03-12, fp16, GPT-2, 1e-8; alıştırma 01.1 ve 10.2; sürüm 5.x"),
    ("es", "`x = 3.5` y ```\nN = 65536\n``` y [enlace](https://a.b/3.5) y <b id=\"1,5\">; © 2019, mayo 2024"),
    ("ar", "القيمة 3.5 و65,536 و5% و1536 عيّنة و1.114 مرة"),
    ("tr", "1.536'nın yarısı; 2019 yılında; 9:40'ta"),
])
def test_names_versions_code_and_years_are_not_numbers_to_fix(code, text):
    from gastudy.course.i18n import number_style

    assert number_style.problems(text, code) == []


@pytest.mark.parametrize("code", CODES)
def test_every_translation_writes_numbers_as_the_labs_print_them(code):
    """Prose and labs alike: thousands, decimals and the percent sign as :func:`t` prints them in
    the language (see gastudy.course.i18n.number_style); `number_style.fix(text, code)` rewrites an entry."""
    from gastudy.course.i18n import number_style

    english = {}
    for path in (i18n.catalog_path(code), editions.catalog_file(code, NOTEBOOKS)):
        for message in read_po(path.open("rb")):
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            english[f"{path.name}: {message.context or ids[0]!r}"[:120]] = " ".join(i for i in ids if i)
    broken = {where: [str(p) for p in found] for where, text in _translations(code)
              if (found := number_style.problems(text, code, english.get(where)))}
    assert broken == {}


@pytest.mark.parametrize("code", CODES)
def test_no_comment_translation_would_be_code(code):
    """A code comment's translation is one line: a line break would put its rest in the code."""
    from gastudy.course.i18n import comments

    broken = [m.context for m in editions.load_catalog(code, NOTEBOOKS)
              if m.id and m.context and m.context.endswith(comments.SUFFIX) and m.string
              and comments.usable_text(m.string) is None]
    assert broken == []


def test_numbers_in_fields_are_written_as_the_language_writes_them(tmp_path, monkeypatch):
    """A number field takes the language's decimal and thousands separators and its percent
    placement (CLDR through Babel), after the field's own format spec; a string field, an
    English fallback and ``!r`` keep Python's spelling."""
    english = "{x:.2f} of {n:,} ({p:.0%}), {s}, {x!r}"
    for code, string, expected in [
            ("tr", "{n:,} içinde {x:.2f} (%{p:.0%}), {s}, {x!r}", "1.536 içinde 3,50 (%%25), 1.5, 3.5"),
            ("es", "{x:.2f} de {n:,} ({p:.0%}), {s}, {x!r}", "3,50 de 1536 (25\u00a0%), 1.5, 3.5"),
            ("ar", "{x:.2f} من {n:,} ({p:.0%})، {s}، {x!r}", "3.50 من 1,536 (25%)، 1.5، 3.5")]:
        use_course_catalog(monkeypatch, tmp_path / code, code, {"id": english, "string": string})
        i18n.set_language(code)
        assert strip_controls(i18n.t(english, x=3.5, n=1536, p=0.25, s="1.5")) == expected  # Arabic: isolated
        assert i18n.t("{x:.1f} untranslated", x=3.5) == "3.5 untranslated"
        assert i18n.tn("{n} row of {x}", "{n} rows of {x}", 2, x=0.5) == "2 rows of 0.5"  # no entry: English
    i18n.set_language("en")
    assert i18n.t(english, x=3.5, n=1536, p=0.25, s="1.5") == "3.50 of 1,536 (25%), 1.5, 3.5"


# --------------------------------------------------------------------------- reading native
@pytest.mark.parametrize("code", ["tr", "ar"])
def test_an_english_gloss_only_at_a_terms_first_use_in_a_chapter(code):
    """Turkish and Arabic read native: an English word in parentheses after its rendering only at a
    glossary term's (or a word of the chapter's code) first use in each chapter — not every noun
    phrase glossed, none glossed twice in a chapter."""
    import re

    catalog = editions.load_catalog(code, NOTEBOOKS)
    problems = {}
    for path in editions.english_notebooks(NOTEBOOKS):
        nb = nbformat.read(path, as_version=4)
        words = {w.lower() for c in nb.cells if c.cell_type == "code" for w in re.findall(r"[A-Za-z_]+", c.source)}
        texts = []
        for cell in nb.cells:
            if cell.cell_type != "markdown" or not cell.source.strip():
                continue
            entry = catalog.get(cell.source.strip(), context=cell["id"])
            if entry is not None and entry.string and not entry.fuzzy:
                texts.append((cell.source, entry.string))
        found = terms.gloss_problems(texts, words)
        if found:
            problems[path.name] = found
    assert problems == {}


def test_the_gloss_rule_finds_a_repeat_and_a_gloss_of_plain_prose():
    chapter = [("Count the supervised items; padding is not a target.",
                "Denetlenen öğeleri (supervised items) say; dolgu (padding) hedef değildir."),
               ("The supervised items again, and the vocabulary.",
                "Yine denetlenen öğeler (supervised items) ve sözlük (vocabulary).")]
    assert terms.gloss_problems(chapter, {"padding"}) == [
        "(supervised items) glossed again after its first use in the chapter",
        "(vocabulary) glossed: not a glossary term, nor what the chapter's code says — write it in the language alone"]
    assert terms.gloss_problems(chapter[:1], {"padding"}) == []

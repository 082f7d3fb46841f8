"""The language switch, the catalogs, the four-language glossary and the generated editions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from babel.messages.pofile import read_po

from gastudy.course import editions, i18n
from gastudy.course.i18n import catalogs, comments, menus, terms
from gastudy.course.i18n.bidi import CONTROLS
from tests.test_catalogs import set_markdown, use_course_catalog

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


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
    source.write_text('from gastudy.course.i18n import t\nA = t("Peak memory")\nB = t("Throughput")\nC = t(name)\n'
                      'D = t("Replicas")\n')
    use_course_catalog(monkeypatch, tmp_path, "es", {"id": "Peak memory", "string": "Pico de memoria"},
                       {"id": "Old text", "string": "Texto viejo"},
                       {"id": "Replicas", "string": "Réplicas", "flags": ["fuzzy"]})
    assert i18n.missing_translations("es", [source]) == {"Throughput": ["lab.py:3"], "Replicas": ["lab.py:5"]}
    assert i18n.stale_translations("es") == ["Replicas"]
    assert i18n.unused_translations("es", [source]) == ["Old text"]
    assert i18n.untranslatable_calls([source]) == ["lab.py:4"]


def test_a_catalog_that_cannot_be_read_names_its_file(tmp_path, monkeypatch):
    path = use_course_catalog(monkeypatch, tmp_path, "es", {"id": "Replicas", "string": "Réplicas"})
    path.write_text('msgid "Replicas"\nmsgstr "Répl', encoding="utf-8")
    i18n.set_language("es")
    with pytest.raises(ValueError, match=r"course\.po is not a gettext catalog"):
        i18n.t("Replicas")


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
    path = folder / "translations" / "ar" / "notebooks.po"
    entry = read_po(path.open("rb")).get("# 01 · Title", context="a")
    assert entry.string == "" and ("01_tiny.ipynb", None) in entry.locations
    set_markdown(folder, "ar", "a", "# 01 · العنوان")

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
    entry = read_po(path.open("rb")).get("# 01 · A new title", context="a")
    assert entry.fuzzy and entry.string == "# 01 · العنوان" and read_po(path.open("rb")).get("# 01 · Title", context="a") is None
    assert [(c.cell_id, c.state) for c in editions.translation_status("ar", folder).cells] == \
           [("a", "stale"), ("c", "missing")]


def test_a_notebook_nobody_translated_is_not_published_as_english(tmp_path):
    folder = _tiny_course(tmp_path)
    [report] = editions.build_editions(("tr",), folder)
    assert report.notebooks == [] and not (folder / "tr" / "01_tiny.ipynb").exists()
    with pytest.raises(ValueError, match="no edition 'en'"):
        editions.build_editions(("en",), folder)


def test_a_broken_catalog_names_itself(tmp_path):
    folder = _tiny_course(tmp_path)
    bad = folder / "translations" / "es" / "notebooks.po"
    bad.parent.mkdir(parents=True)
    bad.write_text("[1, 2]")
    with pytest.raises(ValueError, match="notebooks.po is not a gettext catalog"):
        editions.translation_status("es", folder)


REPO = Path(__file__).resolve().parents[1]
COMMITTED = {code: sorted((REPO / "notebooks" / code).glob("*.ipynb")) for code in editions.EDITIONS}


@pytest.mark.parametrize("code", editions.EDITIONS)
def test_committed_edition_is_what_the_sources_generate(code, tmp_path):
    """notebooks/<code>/ is exactly what `gastudy editions` writes from the English notebooks and the
    catalogs: nobody edited a generated notebook by hand, nobody forgot to regenerate."""
    [report] = editions.build_editions((code,), REPO / "notebooks", out_dir=tmp_path)
    assert [p.name for p in COMMITTED[code]] == report.notebooks
    for path in COMMITTED[code]:
        fresh = nbformat.read(str(tmp_path / code / path.name), 4)
        committed = nbformat.read(str(path), 4)
        assert [(c.cell_type, c.source) for c in committed.cells] == [(c.cell_type, c.source) for c in fresh.cells], \
            f"{code}/{path.name} is out of date: run `gastudy editions --lang {code}`"
    for guide in editions.english_guides(REPO / "notebooks"):  # the instructors' guide too
        committed, fresh = REPO / "notebooks" / code / guide.name, tmp_path / code / guide.name
        assert committed.is_file() == fresh.is_file(), f"{code}/{guide.name}: run `gastudy editions --lang {code}`"
        if fresh.is_file():
            assert committed.read_text(encoding="utf-8") == fresh.read_text(encoding="utf-8"), \
                f"{code}/{guide.name} is out of date: run `gastudy editions --lang {code}`"


def _comment_in(catalog, cell_id: str):
    """The usable translations of code cell ``cell_id``'s comments in ``catalog``, as a lookup."""
    def translation(text: str) -> str | None:
        entry = catalog.get(text, context=comments.context(cell_id))
        return entry.string if entry is not None and catalogs.usable(entry) else None
    return translation


@pytest.mark.parametrize("code", editions.EDITIONS)
def test_edition_code_cells_are_the_english_ones(code):
    """Once their comments are removed (found by tokenize), an edition's code cells are the English
    ones, byte for byte; and each comment says what the catalog says (English where it has none)."""
    catalog = editions.load_catalog(code, REPO / "notebooks")
    for path in COMMITTED[code]:
        english = nbformat.read(str(REPO / "notebooks" / path.name), 4)
        edition = nbformat.read(str(path), 4)
        assert edition.cells[0]["id"] == editions.SET_LANGUAGE_ID
        ours = [c for c in edition.cells[1:] if c.cell_type == "code"]
        theirs = [c for c in english.cells if c.cell_type == "code"]
        assert [(c["id"], comments.without_comments(c.source)) for c in ours] == \
               [(c["id"], comments.without_comments(c.source)) for c in theirs], path
        for mine, source in zip(ours, theirs):
            assert mine.source == comments.put_comments(source.source, _comment_in(catalog, mine["id"])), \
                f"{path.name}[{mine['id']}]"


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
    assert (folder / "translations" / "es" / "notebooks.po").exists()
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
    """A printed sentence goes through t(); a check's claim is a literal the check translates
    itself (filled from its keyword fields), so only a claim built at run time is bare."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('%matplotlib inline\ncheck(ok, t("with equal counts the two agree"))\n'
                                          'print("input_ids:", ids)\nprint(f"{n} rows in {k} groups")\n'
                                          'check_close(a, b, "the mean of means")\n'
                                          'check(ok, f"gap {gap} is small")\n'
                                          'check(ok, "the gap is {gap:.1e}", detail="or " + why, gap=gap)')]
    path = tmp_path / "99_x.ipynb"
    nbformat.write(nb, path)
    where = "99_x.ipynb[" + nb.cells[0].id + "]:"
    assert i18n.bare_sentences([path]) == [where + "4", where + "6", where + "7"]
    assert i18n.strings_in([path]) == {"with equal counts the two agree": [where + "2"],
                                       "the mean of means": [where + "5"], "the gap is {gap:.1e}": [where + "7"]}
    from gastudy.course import check
    i18n.set_language("tr")
    check(True, "tokens normalization equals the big batch (gap {tokens:.1e})", tokens=2.5e-8)
    assert capsys.readouterr().out == "✓ tokens normalleştirmesi büyük yığına eşittir (fark 2,5e-08)\n"


def test_every_sentence_of_the_english_notebooks_goes_through_t():
    notebooks = [p for p in i18n.course_sources() if p.suffix == ".ipynb"]
    assert len(notebooks) == 14
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
    lost = {}
    for entry in editions.load_catalog(code, REPO / "notebooks"):
        need = {s for s in span.findall(entry.id) if " " not in s.strip()} if entry.id else set()
        missing = need - set(span.findall(entry.string)) if entry.string and not entry.fuzzy else set()  # fuzzy: unused
        if missing:
            lost[entry.context] = sorted(missing)
    assert lost == {}


def test_right_to_left_cells_isolate_what_reads_left_to_right():
    """Inside an Arabic cell: a fenced block in <div dir="ltr">; inline code, formulas and signed
    numbers in <bdi dir="ltr">; list markers, headings' marks, links' targets, images, the halves of
    an emphasis and the brackets of the sentence left to the sentence."""
    from gastudy.course.editions import isolate_left_to_right as isolate

    ltr = '<bdi dir="ltr">'
    assert isolate("بالرموز: (512·2 + 1536·4) / 2048 = **3.5**. و") == (
        f"بالرموز: {ltr}(512·2 + 1536·4) / 2048 = **3.5**</bdi>. و")
    assert isolate("- التسمية -100 في `labels[..., 1:]`") == f"- التسمية {ltr}-100</bdi> في {ltr}`labels[..., 1:]`</bdi>"
    assert isolate("1. انظر [GA-4](#ga-4) و ![صورة](a/b-c.png)") == f"1. انظر [{ltr}GA-4</bdi>](#ga-4) و ![صورة](a/b-c.png)"
    assert isolate("**نص** MB-2 (نص) و(نص m × A) و (gradient)") == (
        f"**نص** {ltr}MB-2</bdi> (نص) و(نص {ltr}m × A</bdi>) و (gradient)")
    assert isolate("نص\n\n  ```\n  ∇ (S_1 + … + S_A) / N\n  ```\nبعد") == (
        'نص\n\n  <div dir="ltr">\n\n  ```\n  ∇ (S_1 + … + S_A) / N\n  ```\n\n  </div>\nبعد')
    assert isolate("| 1 | -2 |\n|---|---|") == f"| 1 | {ltr}-2</bdi> |\n|---|---|"


@pytest.mark.skipif(not (NOTEBOOKS / "ar").exists(), reason="no Arabic edition generated")
def test_the_arabic_edition_isolates_every_code_span_and_block():
    import nbformat

    spans = blocks = 0
    for path in sorted((NOTEBOOKS / "ar").glob("[0-9][0-9]_*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            text = re.sub(r"```.*?```", "", cell.source, flags=re.S)
            bare = [m.group() for m in re.finditer(r"(`+).+?\1", text)
                    if not (text[:m.start()].endswith('<bdi dir="ltr">') and text[m.end():].startswith("</bdi>"))]
            assert bare == [], f"{path.name}: code spans not isolated: {bare}"
            spans += len(re.findall(r'<bdi dir="ltr">`', cell.source))
            fences = re.findall(r'<div dir="ltr">\n\n\s*```', cell.source)
            assert len(fences) * 2 == cell.source.count("```"), f"{path.name}: a fenced block reads right to left"
            blocks += len(fences)
    assert spans > 400 and blocks >= 3


def test_further_reading_links_point_to_the_learners_language_where_the_page_exists():
    from gastudy.course.i18n.reading import TRANSLATED_PAGES, localize_links

    text = ("[a](https://huggingface.co/docs/transformers/main/en/grad_accumulation) "
            "[b](https://huggingface.co/docs/transformers/main/en/trainer_recipes#custom-loss-function) "
            "[c](https://huggingface.co/docs/transformers/v4.46.0/en/grad_checkpointing#x) "
            "[d](https://pytorch.org/docs/stable/checkpoint.html)")
    assert localize_links(text, "ar") == text.replace("main/en/grad_acc", "main/ar/grad_acc").replace(
        "v4.46.0/en/grad_check", "v4.46.0/ar/grad_check")
    assert localize_links(text, "es") == text.replace("main/en/grad_acc", "main/es/grad_acc")
    assert localize_links(text, "tr") == text and localize_links(text, "xx") == text
    # "grad_accumulation_extra" is another page: only a whole page name is swapped
    other = "(https://huggingface.co/docs/transformers/main/en/grad_accumulation_extra)"
    assert localize_links(other, "es") == other
    for code, pages in TRANSLATED_PAGES.items():
        english_only = re.compile(r"https://huggingface\.co/docs/transformers/[^/]+/en/(" + "|".join(pages or ["-"])
                                  + r")\b")
        localized = 0
        for notebook in sorted((NOTEBOOKS / code).glob("*.ipynb")):
            for cell in nbformat.read(notebook, as_version=4).cells:
                if cell.cell_type == "markdown":
                    assert not english_only.search(cell.source), f"{notebook.name} {cell.get('id')}"
                    localized += len(re.findall(rf"huggingface\.co/docs/transformers/[^/]+/{code}/", cell.source))
        assert localized >= (3 if pages else 0), (code, localized)


def test_english_sentences_are_found_in_an_editions_output_and_marked_quotes_are_not():
    from gastudy.course.i18n.english import english_lines, output_text

    verdict = "⚠ double division: the gradient is 4.00× smaller than the big-batch gradient (A = 4)"
    assert english_lines(verdict) == [verdict]
    assert english_lines("⚠ çift bölme: `the_loss / A` (A = 4, N = 70, the)") == []
    leak = "⚠ partition dependence: the gradient changes by 21.7% when the same 8 samples are split"
    assert english_lines(f"Türkçe satır\n{leak}") == [leak]
    assert english_lines("el gradiente es igual al del lote grande (the global denominator)") == []
    assert english_lines("<p>Kütüphanenin sözleri:</p><pre lang=\"en\">the update is off and it is the one</pre>") == []
    assert english_lines("<td>the scheduler steps once for each of the updates</td>") == \
        ["the scheduler steps once for each of the updates"]
    assert output_text({"output_type": "stream", "name": "stdout", "text": ["a\n", "b"]}) == "a\nb"
    assert output_text({"output_type": "display_data", "data": {
        "application/vnd.jupyter.widget-view+json": {"model_id": "x"}, "text/plain": "Lab(...)"}}) == ""
    assert output_text({"output_type": "execute_result", "data": {"text/plain": "42"}}) == "42"
    assert output_text({"output_type": "display_data", "data": {"text/html": "<b>x</b>", "text/plain": "y"}}) == "<b>x</b>"


def test_library_says_prints_in_english_and_quotes_marked_english_elsewhere(capsys, monkeypatch):
    import IPython.display

    from gastudy.course import library_says

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj.data))
    library_says("first <verdict>", 2)
    assert capsys.readouterr().out == "first <verdict>\n2\n" and shown == []
    i18n.set_language("tr")
    try:
        library_says("first <verdict>", 2)
    finally:
        i18n.set_language("en")
    assert capsys.readouterr().out == ""
    [page] = shown
    assert '<pre lang="en" dir="ltr">first &lt;verdict&gt;\n2</pre>' in page
    assert i18n.table("tr").get("The library's own words, in English:", "") in page


def test_a_right_to_left_language_lets_each_printed_line_take_its_own_direction(monkeypatch):
    """In a kernel, set_language("ar") shows the style that lays out every printed line by its
    own first letter (an Arabic check line right to left); English shows nothing; a script neither."""
    import IPython
    import IPython.display

    shown = []

    class Kernel:
        kernel = object()

    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: shown.append(obj.data))
    monkeypatch.setattr(IPython, "get_ipython", lambda: Kernel())
    try:
        i18n.set_language("en")
        assert shown == []
        i18n.set_language("ar")
        assert shown == [f"<style>{i18n.OUTPUT_DIRECTION_CSS}</style>"]
        assert "unicode-bidi: plaintext" in shown[0]
        monkeypatch.setattr(IPython, "get_ipython", lambda: None)
        i18n.set_language("ar")
        assert len(shown) == 1
    finally:
        i18n.set_language("en")


# --------------------------------------------------------------------------- code comments


CELL = ('%matplotlib inline\n'
        'x = "# not a comment"  # your code: a number\n'
        '# stuck? show_solution("01.1") prints a worked solution\n'
        'y = {"k": x}  # your code: a number\n'
        'z = 3  # noqa: E501\n'
        '# ----')


def _course_with_code(tmp_path, source: str = CELL):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · Title"), nbformat.v4.new_code_cell(source)]
    for cell, cid in zip(nb.cells, ["a", "c"]):
        cell["id"] = cid
    nbformat.write(nb, str(folder / "01_tiny.ipynb"))
    return folder, nb


def set_comment(folder, code: str, cell_id: str, english: str, text: str, fuzzy: bool = False) -> None:
    path = editions.catalog_file(code, folder)
    catalog = catalogs.read_catalog(path, code)
    entry = catalog.get(english, context=comments.context(cell_id))
    entry.string = text
    if fuzzy:
        entry.flags.add("fuzzy")
    catalogs.write_catalog(path, catalog)


def test_comments_are_found_by_tokenize_not_by_a_hash():
    found = comments.comments(CELL)
    assert [(c.line, c.text, c.after_code) for c in found] == [
        (2, "your code: a number", True), (3, 'stuck? show_solution("01.1") prints a worked solution', False),
        (4, "your code: a number", True)]
    assert comments.texts(CELL) == ["your code: a number", 'stuck? show_solution("01.1") prints a worked solution']
    assert comments.without_comments(CELL) == ('%matplotlib inline\nx = "# not a comment"\n\ny = {"k": x}\nz = 3\n')
    assert comments.comments("x = (\n") == [] and comments.without_comments("x = (\n") == "x = (\n"  # unreadable
    assert comments.comments("#    (indented after the hash)")[0].prefix == "#    "


def test_code_comments_go_through_the_catalog_and_leave_every_token_of_code(tmp_path):
    import io
    import tokenize

    folder, nb = _course_with_code(tmp_path)
    editions.update_translation_files("tr", folder)
    pot = catalogs.read_catalog(editions.template_path(folder))
    assert [(m.context, m.id) for m in pot if m.id] == [
        ("a", "# 01 · Title"), ("c#comment", "your code: a number"),
        ("c#comment", 'stuck? show_solution("01.1") prints a worked solution')]
    assert pot.get("your code: a number", context="c#comment").auto_comments == \
        ['code: x = "# not a comment"  # your code: a number']
    status = editions.translation_status("tr", folder)
    assert [(c.cell_id, c.kind, c.state) for c in status.cells] == [
        ("a", "markdown", "missing"), ("c#comment", "comment", "missing"), ("c#comment", "comment", "missing")]
    set_markdown(folder, "tr", "a", "# 01 · Başlık")
    set_comment(folder, "tr", "c", "your code: a number", "kodunuz: bir sayı")
    [report] = editions.build_editions(("tr",), folder)
    assert "code comments: 1 translated, 1 missing, 0 stale" in report.summary()
    source = nbformat.read(str(folder / "tr" / "01_tiny.ipynb"), 4).cells[2].source
    assert source.splitlines()[1:4] == ['x = "# not a comment"  # kodunuz: bir sayı',
                                        '# stuck? show_solution("01.1") prints a worked solution',  # missing: English
                                        'y = {"k": x}  # kodunuz: bir sayı']

    def code_tokens(text):
        return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type != tokenize.COMMENT]

    assert code_tokens(source) == code_tokens(CELL) and comments.without_comments(source) == comments.without_comments(CELL)


def test_a_changed_comment_is_stale_and_keeps_its_own_translation(tmp_path):
    folder, nb = _course_with_code(tmp_path)
    editions.update_translation_files("es", folder)
    set_markdown(folder, "es", "a", "# 01 · Título")
    set_comment(folder, "es", "c", "your code: a number", "su código: un número")
    set_comment(folder, "es", "c", 'stuck? show_solution("01.1") prints a worked solution',
                '¿atascado? show_solution("01.1") muestra una solución')
    nb.cells[1].source = CELL.replace("your code: a number", "your code: a whole number")
    nbformat.write(nb, str(folder / "01_tiny.ipynb"))
    assert [c.state for c in editions.translation_status("es", folder).cells if c.kind == "comment"] == ["stale", "ok"]
    editions.update_translation_files("es", folder)
    merged = editions.load_catalog("es", folder)
    changed = merged.get("your code: a whole number", context="c#comment")
    assert changed.fuzzy and changed.string == "su código: un número"        # its own, not the other comment's
    assert not merged.get('stuck? show_solution("01.1") prints a worked solution', context="c#comment").fuzzy
    editions.build_editions(("es",), folder)
    cell = nbformat.read(str(folder / "es" / "01_tiny.ipynb"), 4).cells[2].source
    assert "# your code: a whole number" in cell and '# ¿atascado? show_solution("01.1")' in cell


def test_a_comment_translation_that_would_be_code_is_refused(tmp_path):
    folder, _ = _course_with_code(tmp_path)
    editions.update_translation_files("es", folder)
    set_markdown(folder, "es", "a", "# 01 · Título")
    set_comment(folder, "es", "c", "your code: a number", "su código:\nimport os")   # a line break: code
    editions.build_editions(("es",), folder)
    cell = nbformat.read(str(folder / "es" / "01_tiny.ipynb"), 4).cells[2].source
    assert cell.count("# your code: a number") == 2 and "import os" not in cell
    assert [c.state for c in editions.translation_status("es", folder).cells if c.kind == "comment"] == ["stale", "missing"]


def test_arabic_comments_read_right_to_left_after_the_code_they_follow(tmp_path):
    """A comment ends its line: the code before the ``#`` is the English code byte for byte (the
    bidirectional algorithm lays out a left-to-right line, so nothing before the Arabic text can
    move), and no bidirectional control enters the code (JupyterLab shows them as red marks)."""
    folder, _ = _course_with_code(tmp_path)
    editions.update_translation_files("ar", folder)
    set_markdown(folder, "ar", "a", "# 01 · العنوان")
    set_comment(folder, "ar", "c", "your code: a number", "\u200fشيفرتك: عدد (m = 4)\u2069")
    editions.build_editions(("ar",), folder)
    cell = nbformat.read(str(folder / "ar" / "01_tiny.ipynb"), 4).cells[2].source
    assert not set(cell) & set(CONTROLS)
    for mine, english in zip(cell.splitlines(), CELL.splitlines()):
        found = comments.comments(english)
        column = next((c.column for c in found if english.endswith(c.prefix + c.text)), None)
        if column is not None and "your code" in english:
            assert mine[:column] == english[:column] and mine[column:] == "# شيفرتك: عدد (m = 4)"
        else:
            assert mine == english


# --------------------------------------------------------------------------- menu paths


GUIDE_CELL = "When you come back, *Run ▸ Run All Above Selected Cell* brings the kernel back; **File ▸ New ▸ Notebook** too."


def _course_with_a_menu(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · Title"), nbformat.v4.new_markdown_cell(GUIDE_CELL),
                nbformat.v4.new_markdown_cell("Untranslated: *Run ▸ Run All Above Selected Cell*.")]
    for cell, cid in zip(nb.cells, "abc"):
        cell["id"] = cid
    nbformat.write(nb, str(folder / "01_tiny.ipynb"))
    return folder


@pytest.mark.parametrize("code, path, note", [
    ("tr", "*Çalıştır ▸ Bütün seçilen hücreleri çalıştır.* (yanıltıcı etiket: seçili hücrenin üstündekileri çalıştırır)",
     True),
    ("es", "*Run ▸ Ejecutar todo por encima de la celda seleccionada*", False),   # the pack's menu bar says Run
    ("ar", "*Run ▸ Run All Above Selected Cell*", False),                          # the pack translates neither
])
def test_menu_paths_are_quoted_as_the_installed_pack_shows_them(code, path, note, tmp_path, monkeypatch):
    [english_note] = menus.MISLEADING["tr"].values()
    use_course_catalog(monkeypatch, tmp_path, code, {"id": english_note, "context": menus.NOTE_CONTEXT,
                                                     "string": "yanıltıcı etiket: seçili hücrenin üstündekileri çalıştırır"})
    folder = _course_with_a_menu(tmp_path)
    editions.update_translation_files(code, folder)
    set_markdown(folder, code, "a", "# 01 · x")
    set_markdown(folder, code, "b", "عند العودة *Run ▸ Run All Above Selected Cell* ثم **File ▸ New ▸ Notebook** هنا")
    editions.build_editions((code,), folder)
    cells = nbformat.read(str(folder / code / "01_tiny.ipynb"), 4).cells
    assert path in cells[2].source
    assert menus.localize_path("File ▸ New ▸ Notebook", code) in menus.menu_paths(cells[2].source)
    assert menus.unlike_the_pack(cells[2].source, code) == []
    assert cells[3].source == "Untranslated: *Run ▸ Run All Above Selected Cell*."   # an English cell stays English
    if note:
        assert menus.unlike_the_pack(cells[2].source.replace(" (yanıltıcı", " (x"), code) == [
            "'Çalıştır ▸ Bütün seçilen hücreleri çalıştır.' misleads without its note "
            "('yanıltıcı etiket: seçili hücrenin üstündekileri çalıştırır')"]


def test_a_path_the_translator_localized_by_hand_is_reported():
    assert menus.unlike_the_pack("*Run ▸ Run All Above Selected Cell*", "tr") == [
        "'Run ▸ Run All Above Selected Cell': the menu shows 'Çalıştır ▸ Bütün seçilen hücreleri çalıştır.'"]
    [problem] = menus.unlike_the_pack("(Türkçe menüde *Çalıştır ▸ Bütün seçilen hücreleri çalıştır*)", "tr")
    assert "is no label of the pack (it has 'Bütün seçilen hücreleri çalıştır.')" in problem
    assert menus.localize_path("Help ▸ About JupyterLab", "ar") == "مساعده ◂ About JupyterLab"  # reads right to left
    assert menus.localize_menus("no path here ▸ at all", "tr") == "no path here ▸ at all"


def test_an_edition_is_not_written_without_its_language_pack(tmp_path, monkeypatch):
    folder = _course_with_a_menu(tmp_path)
    editions.update_translation_files("tr", folder)
    set_markdown(folder, "tr", "b", "*Run ▸ Run All Above Selected Cell*")
    monkeypatch.setitem(menus.PACKS, "tr", menus.Pack("jupyterlab-language-pack-xx-XX", "xx_XX"))
    menus.pack_messages.cache_clear()
    try:
        with pytest.raises(menus.MissingPack, match="pip install jupyterlab-language-pack-xx-XX"):
            editions.build_editions(("tr",), folder)
        assert editions.translation_status("tr", folder).count("ok") == 1     # the status needs no pack
        assert not (folder / "tr").exists()
    finally:
        menus.pack_messages.cache_clear()


def test_the_misleading_labels_are_the_packs_and_their_notes_are_course_sentences():
    from gastudy.cli.lab import LANGUAGE_PACKS

    assert {code: (p.distribution, p.locale) for code, p in menus.PACKS.items()} == \
           {code: (p.distribution, p.locale) for code, p in LANGUAGE_PACKS.items()}
    for code, labels in menus.MISLEADING.items():
        for label, note in labels.items():
            assert label in menus.pack_messages(code), (code, label)
            assert (menus.NOTE_CONTEXT, note, None) in i18n.messages_in(i18n.course_sources())


@pytest.mark.parametrize("code", editions.EDITIONS)
def test_the_course_editions_quote_the_menus_as_the_packs_show_them(code):
    """Every menu path of every translated cell and guide block of the course, as the editions are
    generated now, is what the installed pack shows, and a misleading label carries its note."""
    catalog = editions.load_catalog(code, NOTEBOOKS)
    found = {}
    for notebook in editions.english_notebooks(NOTEBOOKS):
        nb, statuses = editions.translate_notebook(notebook, code, catalog)
        ok = {s.cell_id for s in statuses if s.state == "ok" and s.kind == "markdown"}
        for cell in nb.cells:
            if cell.get("id") in ok and (problems := menus.unlike_the_pack(cell.source, code)):
                found[f"{notebook.name}#{cell['id']}"] = problems
    for guide in editions.english_guides(NOTEBOOKS):
        if problems := menus.unlike_the_pack(editions.translate_guide(guide, code, catalog)[0], code):
            found[guide.name] = problems
    assert found == {}

"""``gastudy lab --lang tr|es|ar``: JupyterLab's own menus in the learner's language.

The command's settings folder (the locale as a settings override, see gastudy/cli/lab.py) is
handed to a private JupyterLab in headless Chromium; the menu bar must read in the edition's
language, as the installed language pack translates it. Without the pack the command says the
menus stay in English and still opens the edition.
"""

from __future__ import annotations

import json

import pytest
from browser_support import CHROMIUM_ARGS, ROOT, chromium_path, jupyterlab, suite_marks

from gastudy.cli.lab import (
    LANGUAGE_PACKS,
    LanguagePack,
    locale_settings_path,
    write_locale_settings,
)
from gastudy.cli.main import main

MENUS = ("File", "Edit", "View", "Run", "Kernel", "Tabs", "Settings", "Help")


def menu_titles(code: str) -> list[str]:
    """The menu bar as the installed pack translates it (context ``menu``); English where the pack
    has no translation (the Arabic pack translates only Help among the menus)."""
    import importlib.util
    from pathlib import Path

    pack = LANGUAGE_PACKS[code]
    spec = importlib.util.find_spec(pack.distribution.replace("-", "_"))
    assert spec is not None and spec.submodule_search_locations, f"{pack.distribution} is not installed"
    folder = Path(next(iter(spec.submodule_search_locations))) / "locale" / pack.locale / "LC_MESSAGES"
    messages = json.loads((folder / "jupyterlab.json").read_text(encoding="utf-8"))
    return [messages.get(f"menu\x04{title}", [title])[0] for title in MENUS]


def test_the_settings_folder_keeps_the_installation_overrides_and_sets_the_locale(tmp_path):
    seed = tmp_path / "seed"
    (seed / "overrides.d").mkdir(parents=True)
    (seed / "page_config.json").write_text('{"disabledExtensions": {"x": true}}')
    (seed / "overrides.d" / "site.json").write_text('{"@jupyterlab/apputils-extension:themes": {"theme": "dark"}}')
    (seed / "overrides.json").write_text('{"@jupyterlab/translation-extension:plugin": {"locale": "fr_FR"}, '
                                         '"@jupyterlab/notebook-extension:tracker": {"autoClosingBrackets": true}}')
    pack = LANGUAGE_PACKS["tr"]
    folder = write_locale_settings(pack, base=tmp_path / "cache", seed=seed)
    assert folder == locale_settings_path(pack, tmp_path / "cache") == tmp_path / "cache" / "tr_TR"
    overrides = json.loads((folder / "overrides.json").read_text())
    assert overrides == {"@jupyterlab/translation-extension:plugin": {"locale": "tr_TR"},
                         "@jupyterlab/notebook-extension:tracker": {"autoClosingBrackets": True}}
    assert (folder / "page_config.json").read_text() == '{"disabledExtensions": {"x": true}}'
    assert (folder / "overrides.d" / "site.json").exists()
    assert json.loads((seed / "overrides.json").read_text())["@jupyterlab/translation-extension:plugin"] == \
        {"locale": "fr_FR"}, "the installation's own file must not change"
    # written again: the same content, nothing left from a previous locale folder
    (folder / "stale.json").write_text("{}")
    assert write_locale_settings(pack, base=tmp_path / "cache", seed=tmp_path / "no-seed") == folder
    assert sorted(p.name for p in folder.iterdir()) == ["overrides.json"]


def test_lab_dry_run_names_the_pack_and_the_settings_folder(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert main(["lab", "--lang", "es", "--dry-run", "--json"]) == 0
    opened = json.loads(capsys.readouterr().out)
    assert opened["interface"]["locale"] == "es_ES"
    assert opened["interface"]["language_pack"] == "jupyterlab-language-pack-es-ES"
    assert f"--LabApp.app_settings_dir={tmp_path / 'gastudy' / 'jupyterlab' / 'es_ES'}" in opened["command"]
    assert not (tmp_path / "gastudy").exists(), "a dry run writes nothing"
    assert main(["lab", "--dry-run", "--json"]) == 0
    english = json.loads(capsys.readouterr().out)
    assert english["interface"] == {"locale": "en", "language_pack": None, "installed": True}
    assert not any(a.startswith("--LabApp.app_settings_dir") for a in english["command"])


def test_a_missing_pack_with_no_install_keeps_english_menus_and_says_so(capsys, monkeypatch, tmp_path):
    import gastudy.cli.lab as lab

    monkeypatch.setitem(lab.LANGUAGE_PACKS, "ar", LanguagePack("jupyterlab-language-pack-xx-XX", "ar_SA"))
    monkeypatch.setattr(lab.os, "execv", lambda *a: pytest.fail("JupyterLab must not start in this test"))
    assert main(["lab", "--lang", "ar", "--no-install", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["interface"]["installed"] is False
    # the real start (execv replaced): the warning names the pack and the command that installs it
    monkeypatch.setattr(lab.os, "execv", lambda *a: None)
    assert main(["lab", "--lang", "ar", "--no-install", "--no-browser"]) == 0
    err = capsys.readouterr().err
    assert "menus stay in English (--no-install was given)" in err
    assert "pip install jupyterlab-language-pack-xx-XX" in err


def test_the_packs_translate_the_menus_the_browser_test_reads():
    assert menu_titles("tr") == ["Dosya", "Düzenle", "Görünüm", "Çalıştır", "Çekirdek", "Sekmeler", "Ayarlar",
                                 "Yardım"]
    assert menu_titles("es") == ["Archivo", "Editar", "Ver", "Run", "Kernel", "Tabs", "Configuración", "Ayuda"]
    assert menu_titles("ar")[-1] == "مساعده"


def in_the_browser(test):
    """The browser suite's marks (slow, browser, a loud skip without Chromium or Playwright)."""
    for mark in suite_marks():
        test = mark(test)
    return test


@pytest.mark.parametrize("code", ["tr", "es", "ar"])
@in_the_browser
def test_jupyterlab_menus_read_in_the_learners_language(code, tmp_path):
    from playwright.sync_api import sync_playwright

    settings = write_locale_settings(LANGUAGE_PACKS[code], base=tmp_path)
    with jupyterlab(ROOT / "notebooks" / code, (f"--LabApp.app_settings_dir={settings}",)) as server, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(server.notebook_url("00_start_here"))
        expected = menu_titles(code)
        try:
            page.wait_for_function("(w) => [...document.querySelectorAll('.lm-MenuBar-itemLabel')]"
                                   ".map(e => e.innerText).join('|') === w.join('|')", arg=expected, timeout=60_000)
        finally:
            titles = page.locator(".lm-MenuBar-itemLabel").all_inner_texts()
            browser.close()
    assert titles == expected

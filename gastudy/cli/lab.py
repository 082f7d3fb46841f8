"""``gastudy lab``: open the course in JupyterLab, in the learner's language.

``--lang tr|es|ar`` opens that edition's notebooks *and* JupyterLab's own menus, dialogs and
status bar in the same language, through the JupyterLab language pack of the locale
(``jupyterlab-language-pack-tr-TR``, ``-es-ES``, ``-ar-SA``, the packs JupyterLab publishes). The
pack is installed with pip when it is missing (``--no-install`` refuses that and keeps English
menus). The locale is set as a JupyterLab *settings override* in a settings folder of gastudy's
own (``--LabApp.app_settings_dir``), seeded with the installation's overrides: nothing in the
learner's own JupyterLab settings is changed, and the plain ``jupyter lab`` opens as before.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gastudy.cli.options import emit, fail, notebooks_dir

TRANSLATION_PLUGIN = "@jupyterlab/translation-extension:plugin"


@dataclass(frozen=True)
class LanguagePack:
    """JupyterLab's language pack for one edition: the pip distribution and the locale it serves."""

    distribution: str
    locale: str

    def installed(self) -> bool:
        """Whether the distribution is installed in this Python environment."""
        try:
            importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return False
        return True


LANGUAGE_PACKS = {
    "tr": LanguagePack("jupyterlab-language-pack-tr-TR", "tr_TR"),
    "es": LanguagePack("jupyterlab-language-pack-es-ES", "es_ES"),
    "ar": LanguagePack("jupyterlab-language-pack-ar-SA", "ar_SA"),
}


def install_language_pack(pack: LanguagePack) -> str | None:
    """Install ``pack`` with this interpreter's pip (JupyterLab 4's packs); ``None`` when it is
    installed afterwards, else the reason in one line (pip's last line: offline, no permission)."""
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q",
               f"{pack.distribution}>=4.0,<5"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"pip could not run: {e}"
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        return lines[-1] if lines else f"pip exited with status {done.returncode}"
    importlib.invalidate_caches()
    return None if pack.installed() else f"pip installed {pack.distribution}, but it is not visible to {sys.executable}"


def default_app_settings_dir() -> Path:
    """The installation's JupyterLab app settings folder (``<app dir>/settings``)."""
    from jupyterlab.commands import get_app_dir

    return Path(get_app_dir()) / "settings"


def locale_settings_path(pack: LanguagePack, base: Path | None = None) -> Path:
    """Where :func:`write_locale_settings` puts the folder of ``pack.locale``: under ``base``,
    default ``$XDG_CACHE_HOME/gastudy/jupyterlab`` (else ``~/.cache/gastudy/jupyterlab``)."""
    base = base or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gastudy" / "jupyterlab"
    return base / pack.locale


def write_locale_settings(pack: LanguagePack, base: Path | None = None, seed: Path | None = None) -> Path:
    """Write a JupyterLab app settings folder that opens the interface in ``pack.locale``.

    The folder is :func:`locale_settings_path`, rewritten each time. ``seed``: the app settings
    folder whose files are copied first (default: the installation's), so that its page config and
    overrides still apply; the locale is merged into ``overrides.json`` last, which JupyterLab reads
    after ``overrides.d``. A locale the learner chose in JupyterLab's own Settings menu is a user
    setting and still wins over an override. Raises ``OSError`` when the folder cannot be written."""
    target = locale_settings_path(pack, base)
    if target.exists():
        shutil.rmtree(target)
    seed = default_app_settings_dir() if seed is None else seed
    if seed.is_dir():
        shutil.copytree(seed, target)
    target.mkdir(parents=True, exist_ok=True)
    overrides_file = target / "overrides.json"
    try:
        overrides = json.loads(overrides_file.read_text(encoding="utf-8")) if overrides_file.exists() else {}
    except json.JSONDecodeError:
        overrides = {}  # JupyterLab would ignore an unreadable file too; ours replaces it
    overrides.setdefault(TRANSLATION_PLUGIN, {})["locale"] = pack.locale
    overrides_file.write_text(json.dumps(overrides, indent=2), encoding="utf-8")
    return target


def cmd_lab(args: argparse.Namespace) -> int:
    """Open the edition ``args.lang`` in JupyterLab (exec: this process becomes JupyterLab).

    Exit 2 when the edition's notebooks are missing. A language pack that cannot be installed is
    a warning on stderr: the notebooks open in the learner's language, the menus in English."""
    try:
        folder = notebooks_dir()
    except FileNotFoundError as e:
        return fail(args, str(e))
    if args.lang != "en":
        edition = folder / args.lang
        if not any(edition.glob("*.ipynb")):
            return fail(args, f"--lang {args.lang}: no notebooks in {edition}; generate the edition with "
                              f"`gastudy editions --lang {args.lang}`, or open the English course (--lang en)")
        folder = edition
    command = [sys.executable, "-m", "jupyter", "lab", f"--notebook-dir={folder}", f"--port={args.port}",
               "--ServerApp.open_browser=" + ("False" if args.no_browser else "True"),
               "--ip=" + args.ip, *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])]
    interface = {"locale": "en", "language_pack": None, "installed": True}
    pack = LANGUAGE_PACKS.get(args.lang)
    if pack is not None:
        interface = {"locale": pack.locale, "language_pack": pack.distribution, "installed": pack.installed()}
        problem = None
        if not interface["installed"] and not args.dry_run:
            problem = ("--no-install was given" if args.no_install else install_language_pack(pack))
            interface["installed"] = problem is None
        if args.dry_run:
            command.append(f"--LabApp.app_settings_dir={locale_settings_path(pack)}")
        elif interface["installed"]:
            try:
                command.append(f"--LabApp.app_settings_dir={write_locale_settings(pack)}")
            except OSError as e:
                problem = f"cannot write JupyterLab's settings folder: {e}"
        if problem is not None:
            print(f"gastudy: JupyterLab's menus stay in English ({problem}); the notebooks are in the "
                  f"{args.lang} edition. Install the menus with: {sys.executable} -m pip install "
                  f"{pack.distribution}", file=sys.stderr)
    if args.json:
        emit(args, {"notebooks": str(folder), "command": command, "interface": interface,
                    "started": not args.dry_run}, "")
        sys.stdout.flush()
    else:
        print("Starting JupyterLab on", folder, "— open the URL it prints (http://127.0.0.1:...).", flush=True)
    if args.dry_run:
        if not args.json:
            print(" ".join(command))
        return 0
    os.execv(sys.executable, command)
    return 0  # pragma: no cover

"""nbval runs every English chapter; of each translated edition (notebooks/tr, es, ar), chapters 00
and 03 — the code cells are the English ones by construction (tests/test_i18n.py), so running
every edition in full would only repeat the same measurements in CI."""

from pathlib import Path

HERE = Path(__file__).parent
EDITION_CHAPTERS = ("00_", "03_")

collect_ignore = [str(p) for lang in ("tr", "es", "ar") for p in (HERE / lang).glob("*.ipynb")
                  if not p.name.startswith(EDITION_CHAPTERS)]

"""nbval runs every English chapter, and some chapters of each translated edition (notebooks/tr,
es, ar): the code cells are the English ones by construction (tests/test_i18n.py), so running
every edition in full would only repeat the same measurements in CI. Each edition runs chapters 00
and 03, and a share of the others: together the editions cover all thirteen. What a chapter
quotes from a library — the detectors', the verifier's and check_loop's verdicts, PyTorch's and
transformers' messages — is marked English (``lang="en"``) under a sentence in the learner's
language, and is not the edition's text.

In an edition, every cell's outputs are read as a learner reads them and must hold no English
sentence (:func:`gastudy.course.i18n.english.english_lines`): whatever a chapter prints past
``t()`` — a library's verdict, a warning, a table — fails the cell that printed it.
"""

from pathlib import Path

import pytest

HERE = Path(__file__).parent
EDITION_CHAPTERS = {"tr": ("00_", "01_", "03_", "05_", "08_", "11_"), "es": ("00_", "02_", "03_", "06_", "09_", "12_"),
                    "ar": ("00_", "03_", "04_", "07_", "10_", "13_")}

collect_ignore = [str(p) for lang, keep in EDITION_CHAPTERS.items() for p in (HERE / lang).glob("*.ipynb")
                  if not p.name.startswith(keep)]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    path = Path(str(getattr(item, "fspath", "")))
    outputs = getattr(item, "test_outputs", None)
    if path.parent.name not in EDITION_CHAPTERS or not outputs:
        return result
    from gastudy.course.i18n.english import english_lines, output_text

    english = [line for output in outputs for line in english_lines(output_text(output))]
    if english:
        pytest.fail(f"{path.parent.name}/{path.name}: English in the edition's output "
                    f"(print it through t()):\n" + "\n".join(english[:10]), pytrace=False)
    return result

"""Further reading in the learner's language: a link to a Hugging Face Transformers guide points
to that guide's page in the edition's language where Hugging Face publishes one.

The chapters link to English pages; :func:`localize_links` rewrites
``https://huggingface.co/docs/transformers/<version>/en/<page>`` to ``…/<lang>/<page>`` when
``<page>`` is in :data:`TRANSLATED_PAGES` for the language, and leaves every other link alone
(PyTorch's and Accelerate's documentation exist in English only). The editions apply it to every
translated markdown cell (:mod:`gastudy.course.editions`).

The sets list only pages known to exist, from the ``docs/source/<lang>/`` folders of
huggingface/transformers and the course's source documents (the Arabic guides to gradient
accumulation and gradient checkpointing, the Spanish guide to gradient accumulation, are those
pages). Transformers publishes no Turkish page among the ones the course links.
"""

from __future__ import annotations

import re

TRANSLATED_PAGES: dict[str, frozenset[str]] = {
    "ar": frozenset({"grad_accumulation", "grad_checkpointing", "model_memory_anatomy", "perf_train_gpu_one",
                     "trainer"}),
    "es": frozenset({"grad_accumulation", "model_memory_anatomy", "trainer"}),
    "tr": frozenset(),
}
"""Per edition: the Transformers guides (the page name in the URL) published in its language."""

_HF_ENGLISH = re.compile(r"(https://huggingface\.co/docs/transformers/[A-Za-z0-9_.]+/)en/([A-Za-z0-9_]+)(?=[#)\s\"'>]|$)")


def localize_links(markdown: str, code: str) -> str:
    """``markdown`` with each English Transformers guide link that exists in language ``code``
    pointing to that language's page (the anchor after ``#`` kept); other text unchanged. An
    unknown ``code`` changes nothing."""
    pages = TRANSLATED_PAGES.get(code, frozenset())

    def swap(match: re.Match) -> str:
        return f"{match[1]}{code}/{match[2]}" if match[2] in pages else match[0]

    return _HF_ENGLISH.sub(swap, markdown) if pages else markdown

"""Check cells: every claim the course makes ends in an assertion a learner can read.

A check cell states its claim as a literal English sentence, with ``{name}`` fields filled from
keyword arguments, and the check translates it itself::

    check(gap < 1e-5, "the weights equal the engine's (relative gap {gap:.1e})", gap=gap)

The claim (and the ``detail``) is then the message id: ``gastudy editions --update-files``
collects the literal claims of every ``check(...)`` / ``check_close(...)`` call into the course
catalog (:func:`gastudy.course.i18n.messages_in`), exactly like a ``t("…")`` call.
"""

from __future__ import annotations

import gastudy.course.i18n as i18n
from gastudy.course.i18n import t


def check(condition: bool, claim: str, /, detail: str = "", **fields: object) -> None:
    """Print ``✓ claim`` if ``condition`` holds, else raise ``AssertionError`` saying what failed.

    ``claim`` and ``detail`` are English sentences, translated into the current course language
    (:func:`gastudy.course.i18n.t`) and filled from ``fields`` (``{gap:.1e}`` in the claim takes
    ``gap=…``); a text that is already translated is shown as it is. The fixed words are in the
    course language too."""
    claim = _translated(claim, fields)
    detail = _translated(detail, fields) if detail else ""
    if not condition:
        raise AssertionError(t("✗ {claim} — this no longer holds. {detail}", claim=claim, detail=detail).strip())
    print(f"✓ {claim}")


def library_says(*results: object) -> None:
    """Show what the library printed about ``results`` (a verdict, a report, a reason): its
    ``str()``, one result per line. In English it is printed as ``print`` would; in another
    course language the library's words are shown as a quotation marked English (``lang="en"``,
    left to right) under a sentence in the course language saying so: the library's messages stay
    English, as its error messages do (they are what a learner searches the web for)."""
    text = "\n".join(str(r) for r in results)
    if i18n.language() == "en":
        print(text)
        return
    import html

    from IPython.display import HTML, display

    lead = t("The library's own words, in English:")
    side = ' dir="rtl"' if i18n.is_rtl() else ""  # the lead reads (and starts) right to left in Arabic
    display(HTML(f'<div class="gastudy-library-says"{side}><p>{html.escape(lead)}</p>'
                 f'<pre lang="en" dir="ltr">{html.escape(text)}</pre></div>'))


def check_close(actual: float, expected: float, claim: str, /, rtol: float = 1e-6, atol: float = 0.0,
                **fields: object) -> None:
    """:func:`check` that ``actual`` equals ``expected`` within ``atol + rtol·|expected|``;
    ``claim`` is translated and filled from ``fields`` as there, then followed by both values."""
    tol = atol + rtol * abs(expected)
    claim = _translated(claim, fields)
    # the two values read left to right in a right-to-left language: "(3.5 ≈ 3.5)", never swapped
    check(abs(actual - expected) <= tol, f"{claim} ({i18n.ltr(f'{actual:.6g} ≈ {expected:.6g}')})",
          t("measured {actual}, expected {expected} within {tol:.3g}", actual=repr(actual), expected=repr(expected),
            tol=tol))


def _translated(text: str, fields: dict[str, object]) -> str:
    """``text`` in the course language, filled from ``fields``. The texts are the callers'
    literals, collected at the call sites by :func:`gastudy.course.i18n.messages_in`."""
    return i18n.t(text, **fields)  # the callers' literals are the messages, not this call's

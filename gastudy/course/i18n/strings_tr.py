"""The course's user-visible strings in tr: English text (as written in the code) → translation.

Use the renderings of :mod:`gastudy.course.i18n.terms`. Keep ``{fields}`` unchanged.
"""

STRINGS: dict[str, str] = {
}

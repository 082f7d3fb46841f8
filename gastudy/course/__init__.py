"""The course layer, on top of the library: ``labs`` (one module per chapter's widgets),
``demos`` (course-only measurements), ``exercises`` (checkers and solutions), ``site`` (the
static edition), ``i18n`` and ``editions`` (the course in Turkish, Spanish and Arabic: gettext
catalogs, glossary, generated notebooks), ``models``, ``datasets``, ``mistakes``, ``pitfalls``,
``clinic`` and ``pool`` (what the chapters run), and the shared ``widgets``, ``checks`` and
``sections``.

Importing it registers the course's models with their generated data
(:mod:`gastudy.course.models`), so the library's name-taking functions can build them.

Notebooks stay short: a cell builds a lab (``SomeLab()``), displays it and runs a check.
:data:`SECTIONS` maps every section ID of the source documents to its notebook. The library
(:mod:`gastudy.core` … :mod:`gastudy.run`) never imports this package.
"""

from gastudy.course import models  # registers the course's models and their data
from gastudy.course.checks import check, check_close, library_says
from gastudy.course.i18n import language, set_language, t, tn
from gastudy.course.sections import NOTEBOOKS, SECTIONS, notebook_for
from gastudy.course.widgets import Lab

__all__ = ["Lab", "check", "check_close", "library_says", "models", "SECTIONS", "NOTEBOOKS", "notebook_for", "set_language", "tn",
           "language", "t"]

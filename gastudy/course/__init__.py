"""The course's library side: one module per chapter holding its widget labs and checks.

Notebooks stay short: a cell builds a lab (``SomeLab()``), displays it and runs a check.
Every lab's logic lives here so pytest can drive it headless by setting ``.value`` on its
controls. :data:`SECTIONS` maps every section ID of the source documents to its notebook.
"""

from gastudy.course.checks import check, check_close
from gastudy.course.sections import NOTEBOOKS, SECTIONS, notebook_for
from gastudy.course.widgets import Lab

__all__ = ["Lab", "check", "check_close", "SECTIONS", "NOTEBOOKS", "notebook_for"]

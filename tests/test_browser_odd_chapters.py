"""The course in a browser, the odd chapters (01 03 05 07 09 11): Run All, every control moved.
The even chapters and what is checked are in test_browser.py."""

from __future__ import annotations

import pytest
from browser_support import (
    ODD_CHAPTERS,
    course_in_a_browser,
    run_all_then_move_every_control,
    suite_marks,
)

pytestmark = suite_marks()


@pytest.fixture(scope="module")
def course():
    with course_in_a_browser("odd") as session:
        yield session


@pytest.mark.parametrize("name", ODD_CHAPTERS)
def test_run_all_then_move_every_control(course, name):
    run_all_then_move_every_control(*course, name)

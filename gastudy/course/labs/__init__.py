"""One module per chapter: the widget labs its notebook displays (see :data:`gastudy.course.NOTEBOOKS`).

Each lab's logic lives here so pytest can drive it headless by setting ``.value`` on its
controls; a notebook cell only builds the lab, displays it and runs a check.
"""

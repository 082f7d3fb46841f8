"""The ``gastudy`` command line: one subcommand per chapter's measurement (see :mod:`gastudy.cli.main`)."""

from gastudy.cli.main import main

__all__ = ["main"]

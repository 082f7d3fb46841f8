"""The Hugging Face layer: check YOUR ``transformers.Trainer`` (course: MB-10, MB-11).

:func:`check_trainer` runs one accumulated update of your Trainer on a copy and compares the
gradient its optimizer consumed with the big batch over the same samples. This layer needs the
optional ``hf`` extra (transformers, accelerate): ``pip install gastudy[hf]``. ``import gastudy``
never imports it; ``gastudy.hf`` is imported on first use.
"""

from __future__ import annotations

import importlib.util


def _missing(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):  # a module blocked in sys.modules, or with no spec
        return True


_MISSING = [name for name in ("transformers", "accelerate") if _missing(name)]
if _MISSING:
    raise ImportError(f"gastudy.hf needs the optional Hugging Face extra ({', '.join(_MISSING)} not installed): "
                      "pip install gastudy[hf]  (from a clone: pip install -e \".[hf]\")")

from gastudy.hf.trainer import check_trainer  # noqa: E402

__all__ = ["check_trainer"]

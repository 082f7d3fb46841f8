"""README's "Use it on your own model" runs as written: its Python block is executed here, so the
README and this test cannot drift apart."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

pytest.importorskip("transformers")

README = Path(__file__).resolve().parent.parent / "README.md"
SECTION = "## Use it on your own model"


def section_code() -> str:
    text = README.read_text(encoding="utf-8")
    assert SECTION in text, f"README.md has no section {SECTION!r}"
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", body, flags=re.S)
    assert blocks, "the section has no ```python block"
    return "\n".join(blocks)


def test_the_readme_section_runs_and_does_what_it_says(capsys):
    namespace: dict = {"__name__": "readme_own_model"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(section_code(), f"{README}:{SECTION}", "exec"), namespace)
    out = capsys.readouterr().out
    state, model, groups, report = (namespace[k] for k in ("state", "model", "groups", "report"))
    assert state.layers == [1, 3] and state.num_layers == 4
    assert model.config.use_cache is False  # checkpointing turned the cache off
    assert "nothing to move" in state.note and any("nothing to move" in str(w.message) for w in caught)  # CPU offload
    assert groups.ids_assigned and groups.partial.to_dict()["microbatches"] == 2  # 20 samples: 4 + 4 + 2 microbatches
    assert namespace["engine"].counters.updates_applied == 3 and namespace["engine"].counters.samples == 20
    assert report.passed and report.config["precision"] == "fp32"
    assert "update 2: samples [16, 17, 18, 19]" in out and "PASSED" in out

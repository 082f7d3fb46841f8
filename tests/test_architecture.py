"""The layout of ARCHITECTURE.md, enforced: layers, no import cycles, a light ``import gastudy``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import gastudy

PACKAGE = Path(gastudy.__file__).resolve().parent
# Bottom to top. A module may import from its own layer and from layers below it, never above.
LAYERS = ["core", "memory", "parallel", "check", "run", "hf", "course", "cli"]
LIBRARY = ["core", "memory", "parallel", "check", "run", "hf"]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every ``gastudy`` module a file imports, at top level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gastudy"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("gastudy"))
    return found


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in files.items():
        # keep only targets that are modules (``from gastudy.core.plan import BatchPlan`` → core.plan)
        graph[name] = {t for t in imports_of(path) if t in files and t != name}
    return graph


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_every_module_lives_in_a_layer():
    loose = [m for m in import_graph() if m.count(".") >= 1 and layer_of(m) is None and m != "gastudy.__main__"]
    assert loose == [], f"modules outside the layers of ARCHITECTURE.md: {loose}"


def test_no_layer_imports_a_layer_above_it():
    wrong = []
    for module, targets in import_graph().items():
        low = layer_of(module)
        for target in targets:
            high = layer_of(target)
            if low and high and LAYERS.index(high) > LAYERS.index(low):
                wrong.append(f"{module} → {target}")
    assert wrong == [], "imports against the layer order " + " < ".join(LAYERS) + ":\n" + "\n".join(wrong)


def test_library_never_imports_the_course():
    graph = import_graph()
    wrong = [f"{m} → {t}" for m, ts in graph.items() if layer_of(m) in LIBRARY for t in ts
             if layer_of(t) in ("course", "cli")]
    assert wrong == []


def test_no_import_cycles():
    graph = import_graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" → ".join(stack[stack.index(nxt):] + [node, nxt]) if nxt in stack else f"{node} → {nxt}")
            elif nxt not in state:
                visit(nxt, [*stack, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_the_graph_sees_real_edges():
    """The checks above would pass on an empty graph: make sure they read real imports."""
    graph = import_graph()
    assert "gastudy.core.groups" in graph["gastudy.core.engine"]
    assert "gastudy.parallel.ddp" in graph["gastudy.course.demos.ddp"]
    assert "gastudy.core.checkpointing" in graph["gastudy.course.models"]


def test_import_gastudy_stays_light():
    code = ("import sys, gastudy, gastudy.cli; "
            "heavy = [m for m in ('matplotlib', 'ipywidgets', 'IPython', 'nbformat', 'nbconvert', 'gastudy.course', "
            "'transformers', 'accelerate', 'gastudy.hf') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]", f"import gastudy loaded {out}"


def test_public_api_is_complete():
    for name in gastudy.__all__:
        assert hasattr(gastudy, name), name

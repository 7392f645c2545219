"""Imports point down the layers (DESIGN.md, Layout) and close no circle.

Every `import` of a dpl module is read from the source, function-local ones included: an import
placed inside a function to dodge a circle is still a circle. The layers, lowest first:

    dialects -> interpreters, backend, transforms, frontend -> driver -> bench, tools

`from pkg import name` counts as an import of `pkg.name` where that is a module (so importing a
dialect through the package, `from dpl.dialects import loop`, is an edge to that dialect only).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What each package may import besides itself.
ALLOWED: dict[str, set[str]] = {
    "dialects": set(),
    "interpreters": {"dialects"},
    "backend": {"dialects"},
    "transforms": {"dialects"},
    "frontend": {"dialects"},
    "driver": {"dialects", "interpreters", "backend", "transforms", "frontend"},
    "bench": {"dialects", "interpreters", "backend", "transforms", "frontend", "driver"},
    "tools": {"dialects", "interpreters", "backend", "transforms", "frontend", "driver", "bench"},
}


def _module_name(path: Path) -> str:
    parts = ["dpl", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each dpl module and the dpl modules it imports (anywhere in its source)."""
    modules = {_module_name(p): p for pkg in ALLOWED for p in (ROOT / pkg).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dpl"):
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.startswith("dpl")}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _package(module: str) -> str:
    return module.split(".")[1]


def test_imports_point_down():
    upward = [
        f"{m} imports {t}"
        for m, targets in import_graph().items()
        for t in sorted(targets)
        if _package(t) != _package(m) and _package(t) not in ALLOWED[_package(m)]
    ]
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circles():
    found = cycles(import_graph())
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_cycle_finder_finds_a_planted_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]

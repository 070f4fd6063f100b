"""The package's import graph has no cycle: every import counts (module level, inside
functions, and under ``if TYPE_CHECKING:``), so a cycle cannot hide behind a lazy import.

An edge from a module to a package that contains it is left out: Python imports a
package before its submodules, so ``from . import actions`` inside ``lsp/server.py`` is
not a dependency of ``server`` on ``lsp/__init__``'s other imports."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

import msgraphlint

ROOT = Path(msgraphlint.__file__).parent


def _modules() -> Dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("msgraphlint",) + path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path) -> Set[str]:
    """Every ``msgraphlint...`` name ``path`` imports (a module, or a name of a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "msgraphlint":
                out.add(target)
                out.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "msgraphlint")
    return out


def import_graph() -> Dict[str, Set[str]]:
    mods = _modules()
    graph: Dict[str, Set[str]] = {}
    for name, path in mods.items():
        deps = set()
        for target in _imports(name, path):
            while target and target not in mods:  # a name inside a module: the module
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                deps.add(target)
        graph[name] = deps
    return graph


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    out: List[List[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def test_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_import_graph_sees_lazy_and_type_only_imports():
    graph = import_graph()
    # cli.py imports the runner inside functions only; perfile.py imports Settings under TYPE_CHECKING
    assert "msgraphlint.run.runner" in graph["msgraphlint.cli"]
    assert "msgraphlint.settings" in graph["msgraphlint.run.perfile"]


def test_package_import_graph_has_no_cycle():
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" -> ".join(c) for c in found)

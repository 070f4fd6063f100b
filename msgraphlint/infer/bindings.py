"""The values a local name is bound to in its function (plain ``name = value`` statements)."""

from __future__ import annotations

import ast
from typing import Dict, Optional

from ..parse.astutil import bfs_no_ctx


def bindings_of(func: ast.AST, nodes: Optional[list] = None) -> Dict[str, Optional[list]]:
    """For every name bound in ``func`` (one walk): the values of its plain ``name = value``
    statements, or None when it is also bound any other way (a loop target, an augmented or
    tuple assignment, ``global``/``nonlocal``, a nested def, an ``except ... as``).
    ``nodes``: ``astutil.bfs_no_ctx(func)`` (or ``list(ast.walk(func))``) when the caller has it."""
    values: Dict[str, list] = {}
    plain = set()
    if nodes is None:
        nodes = bfs_no_ctx(func)
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
            plain.add(id(n.targets[0]))
    out: Dict[str, Optional[list]] = dict(values)
    for n in nodes:
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and id(n) not in plain:
            out[n.id] = None
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                out[name] = None
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not func:
            out[n.name] = None
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out[n.name] = None
    return out


class NameFacts:
    """How every local name of one function is bound, from one walk: ``plain`` the values of
    its ``name = value`` statements, ``augmented`` the right sides of its ``name op= value``
    statements, ``other`` the names also bound any other way (a loop or ``with`` target,
    unpacking, ``global``, a nested def, ...), ``exact`` :func:`bindings_of`."""

    def __init__(self, func: ast.AST) -> None:
        self.func = func
        nodes = bfs_no_ctx(func)  # one walk for the three passes
        self.exact = bindings_of(func, nodes)
        self.plain: Dict[str, list] = {}
        self.augmented: Dict[str, list] = {}
        self.other: set = set()
        counted = set()
        for n in nodes:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                self.plain.setdefault(n.targets[0].id, []).append(n.value)
                counted.add(id(n.targets[0]))
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                self.augmented.setdefault(n.target.id, []).append(n.value)
                counted.add(id(n.target))
        for name, vals in self.exact.items():
            if vals is None and name not in self.augmented:
                self.other.add(name)
        for n in nodes:
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and id(n) not in counted:
                self.other.add(n.id)


def facts(ctx, func: ast.AST) -> NameFacts:
    """:class:`NameFacts` of ``func``, memoised in the rule context's per-file memo."""
    memo = ctx.memo.get("infer.bindings")
    if memo is None or memo.func is not func:
        memo = ctx.memo["infer.bindings"] = NameFacts(func)
    return memo


def bindings(ctx, func: ast.AST, name: str) -> Optional[list]:
    """:func:`bindings_of` ``func`` for one name (memoised)."""
    return facts(ctx, func).exact.get(name)

"""Import maps: which dotted name a local name stands for in one module.

``import mindspore as ms`` makes ``ms.ops.add`` resolve to ``mindspore.ops.add``;
``from .layers import Base`` in ``pkg.model`` makes ``Base`` resolve to
``pkg.layers.Base``. MindSpore names are recognised by their import path only:
nothing here ever looks inside the installed package.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional

# Implementation paths users write that mean the public name. The API catalog
# (msgraphlint.infer.catalog) refines this; these prefixes are enough for the engine.
_PREFIX_ALIASES = (
    ("mindspore.nn.cell.", "mindspore.nn."),
    ("mindspore.nn.layer.container.", "mindspore.nn."),
    ("mindspore.common.api.", "mindspore."),
    ("mindspore.common.tensor.", "mindspore."),
    ("mindspore.common.parameter.", "mindspore."),
    ("mindspore.common.dtype.", "mindspore."),
    ("mindspore.common.", "mindspore."),
    ("mindspore.context.", "mindspore."),
    ("mindspore.ops.operations.", "mindspore.ops."),
    ("mindspore.ops.functional.", "mindspore.ops."),
    ("mindspore.ops.function.", "mindspore.ops."),
    ("mindspore.ops.auto_generate.", "mindspore.ops."),
    ("mindspore.ops.primitive.", "mindspore.ops."),
    ("mindspore.dataset.engine.datasets.", "mindspore.dataset."),
)


_NORMALIZED: Dict[str, str] = {}  # normalize's answers (a pure function of the name), bounded


def normalize(qualname: str) -> str:
    """Map common implementation spellings to the public MindSpore name."""
    if not qualname.startswith("mindspore."):
        return qualname
    got = _NORMALIZED.get(qualname)
    if got is None:
        got = _normalize(qualname)
        if len(_NORMALIZED) >= 65536:
            _NORMALIZED.clear()
        _NORMALIZED[qualname] = got
    return got


def _normalize(qualname: str) -> str:
    for old, new in _PREFIX_ALIASES:
        if qualname.startswith(old):
            rest = qualname[len(old):]
            # mindspore.ops.operations.math_ops.MatMul -> mindspore.ops.MatMul
            if old.startswith("mindspore.ops.") or old.startswith("mindspore.common."):
                parts = rest.split(".")
                if len(parts) > 1 and parts[0].islower() and parts[0].endswith(("_ops", "_func", "_impl", "array_func", "math_func", "nn_func")):
                    rest = ".".join(parts[1:])
            return new + rest
    return qualname


def module_package(modname: str, is_package: bool) -> str:
    if is_package:
        return modname
    return modname.rpartition(".")[0]


# statements whose blocks from_tree enters (loops, `async with` and `match` are not entered)
_BODY_ONLY = frozenset((ast.With, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
_TRY = frozenset((ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,))


class ImportMap:
    """local name -> dotted name, for one module (all import statements, any depth)."""

    __slots__ = ("names",)

    def __init__(self, names: Optional[Dict[str, str]] = None) -> None:
        self.names: Dict[str, str] = names or {}

    @classmethod
    def from_tree(cls, tree: ast.Module, modname: str = "", is_package: bool = False) -> "ImportMap":
        names: Dict[str, str] = {}
        package = module_package(modname, is_package)
        # Only statements can hold an import: a block is entered through its statement lists
        # (the fields iter_child_nodes yields, in its order, less the expressions), and the
        # other statements are told apart by their type (a tree ast.parse made has no subclasses)
        stack = list(tree.body)
        while stack:
            node = stack.pop()
            t = type(node)
            if t is ast.Import:
                for a in node.names:
                    if a.asname:
                        names[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        names.setdefault(top, top)
            elif t is ast.ImportFrom:
                base = node.module or ""
                if node.level:
                    pkg_parts = package.split(".") if package else []
                    up = node.level - 1
                    if up:
                        pkg_parts = pkg_parts[:-up] if up <= len(pkg_parts) else []
                    base = ".".join(p for p in pkg_parts + ([base] if base else []) if p)
                for a in node.names:
                    if a.name == "*":
                        continue
                    names[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
            elif t in _BODY_ONLY:
                stack.extend(node.body)
            elif t is ast.If:
                stack.extend(node.body)
                stack.extend(node.orelse)
            elif t in _TRY:
                stack.extend(node.body)
                stack.extend(node.handlers)  # each an ExceptHandler, entered below
                stack.extend(node.orelse)
                stack.extend(node.finalbody)
            elif t is ast.ExceptHandler:
                stack.extend(node.body)
        return cls(names)

    def dotted(self, node: ast.AST, normalized: bool = True) -> Optional[str]:
        """The dotted name an expression spells (``ms.ops.add`` → ``mindspore.ops.add``), or None.
        ``normalized=False``: as imported (``mindspore.common.api.jit``), before the alias
        normalisation."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.names.get(node.id)
        if base is None:
            return None
        parts.append(base)
        dotted = ".".join(reversed(parts))
        return normalize(dotted) if normalized else dotted

    def mentions_mindspore(self) -> bool:
        return any(v == "mindspore" or v.startswith("mindspore.") for v in self.names.values())

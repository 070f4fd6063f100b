"""Shared helpers of the MSG4xx rules about tensor values reaching Python.

* ``folded``: a tensor expression built from compile-time constants only, which MindSpore
  folds (converting it costs nothing);
* ``conversion``: ``t.item()`` / ``float(t)`` / ``int(t)`` / ``bool(t)`` of a known tensor;
* ``to_numpy``: ``t.asnumpy()`` / ``t.numpy()`` / ``t.tolist()``;
* ``Flow``: per scope function, the parents of every node and the assignments of every
  name, computed once on demand, so a rule can follow a value from where it is made to
  where it is used (``uses``) and back to where a name got it (``origin``).
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional

from msgraphlint.infer.values import Kind

from msgraphlint.infer.folding import folds
from msgraphlint.parse.astutil import children_no_ctx as _children_no_ctx

SCALAR_BUILTINS = ("float", "int", "bool")
NUMERIC_HOST = frozenset({"numpy", "math", "cmath", "scipy", "random", "statistics"})
TO_NUMPY = ("asnumpy", "numpy", "tolist")


def short(ctx, node: ast.AST, limit: int = 60) -> str:
    text = " ".join(ctx.segment(node).split()) or ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def builtin(ctx, node: ast.Call, names) -> Optional[str]:
    """The builtin's name when ``node`` calls one of ``names`` that is not shadowed."""
    f = node.func
    if isinstance(f, ast.Name) and f.id in names and f.id not in ctx.imports.names \
            and (ctx.values is None or f.id not in ctx.values.params):
        return f.id
    return None


def folded(ctx, e: ast.AST, depth: int = 0) -> bool:
    """A value MindSpore computes at compile time: ``ctx.tensor(e).folded`` for a tensor,
    or a compile-time Python value (``msgraphlint/infer/folding.py`` says what folds)."""
    return folds(ctx, e, depth)


def conversion(ctx, node: ast.AST) -> Optional[ast.AST]:
    """The tensor converted when ``node`` is `t.item()`, `float(t)`, `int(t)` or `bool(t)` of a
    known tensor that is not folded; else None."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute) and f.attr == "item" and not node.args and not node.keywords:
        recv = f.value
    elif builtin(ctx, node, SCALAR_BUILTINS) and len(node.args) == 1 and not node.keywords:
        recv = node.args[0]
    else:
        return None
    if ctx.kind(recv).tensor_like and not folded(ctx, recv) and tensor_source(ctx, recv):
        return recv
    return None


def tensor_source(ctx, e: ast.AST, depth: int = 0) -> bool:
    """Some data in ``e`` is known to be a tensor: a tensor-kind name (a local followed to
    its assignment), a tensor or Parameter attribute, or a sub-Cell / primitive output.
    `mint.div(seq_len, window // 2)` over values of unknown kind is not enough: with Python
    ints there MindSpore folds it (no TensorToScalar)."""
    if depth > 4:
        return True
    flow = Flow.of(ctx)
    for n in ast.walk(e):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and ctx.kind(n).tensor_like:
            src = flow.origin(n) if flow is not None and n.id in flow.assigns else None
            if src is None or tensor_source(ctx, src, depth + 1):
                return True
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" \
                and ctx.kind(n).tensor_like:
            return True
        elif isinstance(n, ast.Call) and ctx.kind(n.func) in (Kind.CELL, Kind.PRIMITIVE, Kind.CONTAINER):
            return True
    return False


def to_numpy(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TO_NUMPY \
        and not node.args and not node.keywords


class Flow:
    """Parents and name assignments of one scope function (built once per scope)."""

    def __init__(self, func: ast.AST) -> None:
        self.func = func
        self.parents: Dict[int, ast.AST] = {}
        self.assigns: Dict[str, List[ast.AST]] = {}
        self.loads: Dict[str, List[ast.Name]] = {}
        parents = self.parents
        queue = [func]  # ast.walk's order, without the ctx markers (no one asks for their parent)
        i = 0
        while i < len(queue):
            node = queue[i]
            i += 1
            kids = _children_no_ctx(node)
            for child in kids:
                parents[id(child)] = node
            queue.extend(kids)
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.assigns.setdefault(t.id, []).append(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.loads.setdefault(node.id, []).append(node)

    @classmethod
    def of(cls, ctx) -> Optional["Flow"]:
        func = ctx.values.func if ctx.values is not None else None
        if func is None:
            return None
        cache = getattr(ctx, "_msg4_flow", None)
        if cache is None or cache.func is not func:
            cache = cls(func)
            ctx._msg4_flow = cache
        return cache

    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.parents.get(id(node))

    def origin(self, name: ast.Name) -> Optional[ast.AST]:
        """The value last assigned to ``name`` before this use (straight-line approximation)."""
        best = None
        for a in self.assigns.get(name.id, ()):
            if (a.lineno, a.col_offset) < (name.lineno, name.col_offset) and (best is None or a.lineno > best.lineno):
                best = a
        return best.value if best is not None else None

    def uses(self, value: ast.AST) -> List[ast.AST]:
        """Where the value computed by ``value`` ends up: the node itself, or, when it is
        assigned to a plain name, every later load of that name."""
        parent = self.parent(value)
        if isinstance(parent, ast.Assign) and parent.value is value and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], ast.Name):
            name = parent.targets[0].id
            return [n for n in self.loads.get(name, ()) if (n.lineno, n.col_offset) > (parent.lineno, parent.col_offset)]
        return [value]


def scalar_from_tensor(ctx, expr: ast.AST, flow: Optional[Flow]) -> bool:
    """``expr`` holds a Python scalar converted from a tensor (`x.item()`, `float(t)`), inline
    or through a name assigned from one; not a value pulled out by `.asnumpy()`/`.tolist()`
    (those are reported where they happen)."""
    for n in ast.walk(expr):
        if to_numpy(n):
            return False
        if conversion(ctx, n) is not None:
            return True
    if isinstance(expr, ast.Name) and ctx.kind(expr) is Kind.HOST and flow is not None:
        src = flow.origin(expr)
        if src is not None:
            return not any(to_numpy(n) for n in ast.walk(src)) and any(conversion(ctx, n) is not None
                                                                    for n in ast.walk(src))
    return False


def under_string_dispatch(ctx, node: ast.AST) -> bool:
    """``node`` sits in a branch selected by comparing a compile-time value with a string
    literal (`if output_type == "np":`, `elif self.mode in ("numpy", "pil"):`). MindSpore
    folds such tests and compiles only the configured branch (measured: the `"np"` branch of
    a diffusers-style helper costs 9 PyExecute nodes with `output_type="np"` and nothing with
    `"ms"`), so what is in it describes one configuration, not the code that runs."""
    child = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.If, ast.IfExp)) and child is not anc.test and _string_test(anc.test, ctx):
            return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        child = anc
    return False


def _string_test(test: ast.AST, ctx) -> bool:
    for n in ast.walk(test):
        if isinstance(n, ast.Compare):
            sides = [n.left] + list(n.comparators)
            strs = [e for e in sides if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    or isinstance(e, (ast.Tuple, ast.List, ast.Set)) and e.elts
                    and all(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in e.elts)]
            others = [e for e in sides if e not in strs]
            if strs and others and all(ctx.kind(e).constant for e in others):
                return True
    return False

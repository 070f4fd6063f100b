"""Where a value comes from, for rules that must be certain of a receiver's type: a tensor
by its making (not only by the kind analysis, which also calls a Cell's output a tensor),
and the values a local name is bound to in its function."""

from __future__ import annotations

import ast
from typing import Dict, Optional, Tuple

from msgraphlint.infer.bindings import bindings_of as _bindings_of
from msgraphlint.kinds import Kind


def surely_tensor(e: ast.AST, at: ast.AST, ctx, depth: int = 0, pending: frozenset = frozenset()) -> bool:
    """Whether ``e`` is a tensor by its making, not only by the kind analysis (which also
    calls a Cell's output a tensor, and a Cell may return a tuple, a dict or an output
    object): a ``Tensor(...)``/``Parameter(...)``, a MindSpore function or a Tensor method
    the catalog says returns a tensor, arithmetic or indexing on such a value, a
    ``self.<attr>`` Parameter, a parameter the project's callers pass tensors to, or a local
    every assignment of which is one of those (``y = x * 2`` then ``y = y + b``: a name met
    again while its own assignments are being judged counts as a tensor)."""
    if depth > 8:
        return False
    k = ctx.kind(e)
    if not k.tensor_like:
        return False
    if isinstance(e, ast.Name):
        values = ctx.values
        if values is not None and e.id in values.params:
            return e.id in values.from_callers and values.params.get(e.id) is Kind.TENSOR
        if e.id in pending:
            return True
        vals = assigned_values(e.id, at, ctx)
        inner = pending | {e.id}
        return bool(vals) and all(surely_tensor(v, at, ctx, depth + 1, inner) for v in vals)
    if isinstance(e, ast.Attribute):
        return k is Kind.PARAMETER and isinstance(e.value, ast.Name) and e.value.id == "self"
    if isinstance(e, ast.BinOp):
        return surely_tensor(e.left, at, ctx, depth + 1, pending) or surely_tensor(e.right, at, ctx, depth + 1, pending)
    if isinstance(e, ast.UnaryOp):
        return surely_tensor(e.operand, at, ctx, depth + 1, pending)
    if isinstance(e, ast.Subscript):
        return surely_tensor(e.value, at, ctx, depth + 1, pending)
    if isinstance(e, ast.Call):
        q = ctx.qualname(e.func)
        if q is not None:
            return q in ("mindspore.Tensor", "mindspore.tensor", "mindspore.Parameter") or (
                q.startswith(("mindspore.ops.", "mindspore.mint.", "mindspore.numpy."))
                and ctx.catalog.function_returns(q) == "tensor" and ctx.catalog.class_kind(q) is None)
        f = e.func
        if isinstance(f, ast.Attribute) and surely_tensor(f.value, at, ctx, depth + 1, pending):
            info = ctx.catalog.tensor_method(f.attr)
            return info is not None and not info.get("property") and info.get("returns") == "tensor"
    return False


def enclosing_function(at: ast.AST, ctx) -> Optional[ast.AST]:
    """The function ``at`` (a node whose parents are known) is in; None inside a lambda or
    directly in a class body."""
    for anc in ctx.ancestors(at):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return anc
        if isinstance(anc, (ast.Lambda, ast.ClassDef)):
            return None
    return None


def assigned_values(name: str, at: ast.AST, ctx) -> Optional[list]:
    """Every value ``name`` is bound to in its function (plain ``name = value`` statements),
    or None when it is bound any other way (a parameter, a loop target, an augmented or
    tuple assignment, ``global``/``nonlocal``, a nested def) or never in this function."""
    func = enclosing_function(at, ctx)
    if func is None:
        return None
    a = func.args  # type: ignore[attr-defined]
    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    params |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    if name in params:
        return None
    return bindings_in(func, name)


def bindings_in(func: ast.AST, name: str) -> Optional[list]:
    """``assigned_values`` for a name known to be used in ``func``'s own body (not a nested
    def's): the values of its plain ``name = value`` statements, or None."""
    entry = _CACHE.get(id(func))
    if entry is None or entry[1] is not func:
        entry = _CACHE[id(func)] = (_bindings_of(func), func)
    return entry[0].get(name)


# id(function node) -> (name -> values, the node kept alive so its id is not reused); emptied per module
_CACHE: Dict[int, Tuple[Dict[str, Optional[list]], ast.AST]] = {}


def rebound(name: str, at: ast.AST, ctx) -> bool:
    """Whether a parameter is assigned (or deleted) anywhere in its function."""
    func = enclosing_function(at, ctx)
    if func is None:
        return True
    return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(func)) \
        or any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(func))

"""Constants MindSpore 2.10 computes while compiling a graph (constant folding).

A tensor expression built only from compile-time values is folded: the value is in the
graph as a constant and nothing of it runs in the interpreter or decides a branch at run
time. Measured on MindSpore 2.10 CPU (validate IR, ``MS_DEV_SAVE_GRAPHS=1``; 0 means no
node of that kind; the same forms on a ``construct`` input give PyExecute nodes):

* ``a = Tensor([1.0, 2.0]); b = Tensor([3.0, 4.0]); np.exp(a.asnumpy() + b.asnumpy())``
  in ``construct``: 0 PyExecute (``x.asnumpy()`` of the input: 11);
* the same on ``self.a``/``self.b`` set to ``Tensor(...)`` in ``__init__``: 0 PyExecute;
* ``ops.range(Tensor(0), Tensor(len(x)), Tensor(1))``: a static output shape (with a
  tensor input as the limit: dynamic);
* ``float(1 / mint.sqrt(ms.tensor(x.shape[-1])))``: no TensorToScalar;
* ``self.limit = Tensor(0.5)``; ``if self.limit > 1:``: no Switch.

What folds (:func:`folds`): a compile-time Python value (``ctx.kind`` says constant); a
call of a MindSpore or NumPy function, or a method of a folded value, whose arguments all
fold (``Tensor([1.0])``, ``ms.tensor(x.shape[-1])``, ``np.exp(...)``); arithmetic,
subscripts and displays of folded values; a ``self.<attr>`` holding a Tensor (not a
Parameter: a Parameter is a graph input) that ``__init__`` made; a local every plain
assignment of which folds (a name also bound any other way, by ``+=``, a loop or tuple
unpacking, does not). A local bound to such an attribute (``t = self.t``) is the attribute
(``facade._alias``: folded, and ``TensorAnswer.attr`` names it).
"""

from __future__ import annotations

import ast

from ..kinds import Kind
from .bindings import bindings
from ..parse.astutil import children_no_ctx as _children_no_ctx

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _nested_names(ctx, func: ast.AST) -> set:
    """ids of the Name nodes of ``func`` that sit inside a nested def, lambda or class."""
    memo = ctx.memo.get("infer.nested")
    if memo is not None and memo[0] is func:
        return memo[1]
    out: set = set()
    stack = [(c, False) for c in _children_no_ctx(func)]
    while stack:
        n, inside = stack.pop()
        inside = inside or isinstance(n, _NESTED)
        if inside and isinstance(n, ast.Name):
            out.add(id(n))
        stack.extend((c, inside) for c in _children_no_ctx(n))
    ctx.memo["infer.nested"] = (func, out)
    return out


def folds(ctx, e: ast.AST, depth: int = 0) -> bool:
    """``e`` is a value MindSpore computes at compile time (see the module docstring)."""
    if depth > 12:
        return False
    k = ctx.kind(e)
    if k.constant:
        return True
    values = ctx.values
    if isinstance(e, ast.Name):
        if values is None or e.id in values.params or k is Kind.PARAMETER:
            return False
        func = values.func
        if id(e) in _nested_names(ctx, func):
            return False  # used inside a nested def or lambda: another scope's name
        vals = bindings(ctx, func, e.id)
        return bool(vals) and all(folds(ctx, v, depth + 1) for v in vals)
    if isinstance(e, ast.Attribute):
        if isinstance(e.value, ast.Name) and e.value.id == "self":
            return k is Kind.TENSOR and values is not None and values.cls is not None \
                and values.cls.attrs.get(e.attr) == "tensor"
        return False
    if isinstance(e, ast.Call):
        args = [a.value if isinstance(a, ast.Starred) else a for a in e.args] + [kw.value for kw in e.keywords]
        if not all(folds(ctx, a, depth + 1) for a in args):
            return False
        f = e.func
        if ctx.is_mindspore(f) or ctx.is_mindspore(f, "numpy"):
            return True  # (NumPy of compile-time values runs while the graph is compiled)
        return isinstance(f, ast.Attribute) and ctx.qualname(f) is None and folds(ctx, f.value, depth + 1)
    if isinstance(e, ast.BinOp):
        return folds(ctx, e.left, depth + 1) and folds(ctx, e.right, depth + 1)
    if isinstance(e, ast.UnaryOp):
        return folds(ctx, e.operand, depth + 1)
    if isinstance(e, ast.Subscript):
        return folds(ctx, e.value, depth + 1) and folds(ctx, e.slice, depth + 1)
    if isinstance(e, (ast.Tuple, ast.List)):
        return all(folds(ctx, x, depth + 1) for x in e.elts)
    if isinstance(e, (ast.Compare, ast.BoolOp, ast.IfExp)):
        return all(folds(ctx, c, depth + 1) for c in ast.iter_child_nodes(e) if isinstance(c, ast.expr))
    return False

"""Is a condition a run-time tensor decision (a ``Switch``)?. ``tensor_decider`` is shared by the MSG1xx rules (``control_flow.py``,
``capture_modes.py``) and the join analysis (``_joins.py``); ``literal_tensor`` says when a
condition is computed only from tensor literals MindSpore folds."""

from __future__ import annotations

import ast
from typing import Optional

from .params import SHARED_USES

_USES = SHARED_USES


def tensor_decider(ctx, test: ast.AST, any_capture: bool = False, folds: bool = True) -> Optional[ast.AST]:
    """The part of a condition that makes it a run-time tensor decision, or None. ``bool(t)``
    of a tensor is the same truth test (measured on 2.10: `if bool(x.sum() > 0):` compiles
    to a Switch, labeled `control_flow_pos_bool_of_reduction`). The Switch is what MindSpore's
    default (ast) capture builds; scopes under ``jit(capture_mode="bytecode"|"trace")`` get
    None here (MSG106/MSG107 describe those modes) unless ``any_capture``. With ``folds``
    (`if`, conditional expressions, `and`/`or`, `assert`), a condition computed only from
    tensor literals made in the scope is None: MindSpore 2.10 folds it (measured: `a =
    Tensor([1.0]); if a > 0:` and `a = Tensor([1]); b = Tensor([2.0]); x * (a and b)`
    compile with no Switch, labeled `control_flow_neg_join_constant_tensors_and`); a `while`
    on such a counter (`i = Tensor(0); while i < 3`) still compiled a Switch loop."""
    if not any_capture and ctx.scope is not None and getattr(ctx.scope, "capture_mode", "ast") != "ast":
        return None
    memo = None
    if ctx.values is not None:
        held = ctx.memo.get("tensor_decider")
        if held is None or held[0] is not ctx.values:  # one scope walk's answers at a time
            held = ctx.memo["tensor_decider"] = (ctx.values, {})
        memo = held[1]
    key = (id(test), any_capture, folds)
    if memo is not None and key in memo:
        return memo[key]
    if memo is not None and isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        # `not not … t` (as many as ast.parse reads): answer the operands deepest first, so
        # that each answer finds its operand's in the memo instead of recursing down the chain
        chain = []
        inner = test.operand
        while isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.Not) \
                and (id(inner), any_capture, folds) not in memo:
            chain.append(inner)
            inner = inner.operand
        for t in reversed(chain):
            memo[(id(t), any_capture, folds)] = _tensor_decider(ctx, t, any_capture, folds)
    found = _tensor_decider(ctx, test, any_capture, folds)
    if memo is not None:
        memo[key] = found
    return found


def _tensor_decider(ctx, test: ast.AST, any_capture: bool, folds: bool) -> Optional[ast.AST]:
    found = _decider(ctx, test, any_capture, folds)
    if found is not None and folds and ctx.values is not None and literal_tensor(ctx, test):
        return None
    return found


def _decider(ctx, test: ast.AST, any_capture: bool, folds: bool) -> Optional[ast.AST]:
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "bool" \
            and len(test.args) == 1 and not test.keywords and "bool" not in ctx.imports.names:
        return test if tensor_decider(ctx, test.args[0], any_capture, folds) is not None else None
    if not ctx.kind(test).tensor_like:
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return tensor_decider(ctx, test.operand, any_capture, folds)
    if isinstance(test, ast.BoolOp):
        for v in test.values:
            found = tensor_decider(ctx, v, any_capture, folds)
            if found is not None:
                return found
        return None
    if isinstance(test, ast.Compare):
        leaves = [o for o in [test.left] + list(test.comparators) if ctx.kind(o).tensor_like]
    else:
        leaves = [test]
    if leaves and not any(_USES.grounded(ctx, leaf) for leaf in leaves):
        return None  # only guessed names (a bare parameter, `x, H, W = self.embed(x)`) make it a tensor
    return test


def literal_tensor(ctx, e: ast.AST) -> bool:
    """``e`` is computed only from literals and ``Tensor(<literal>)`` values made in the
    scope (through local names assigned only in the function's own top-level statements,
    each time such a value): a graph constant. Parameters, attributes, globals, closures,
    names bound inside a branch or a loop, and any other call are not."""
    func = ctx.values.func
    memo = ctx.memo.setdefault(("literal_tensor", id(func)), {})
    if "_assigns" not in memo:
        assigns: dict = {}
        top = {id(st) for st in getattr(func, "body", [])}
        for n in ast.walk(func):
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and id(n) not in top:
                # bound under a branch or a loop: a run-time value there (`while x < Tensor(5):
                # x += 1` is a loop variable), whatever the literals
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    for m in ast.walk(t):
                        if isinstance(m, ast.Name):
                            assigns.setdefault(m.id, []).append(None)
                continue
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    for m in ast.walk(t):
                        if isinstance(m, ast.Name):
                            assigns.setdefault(m.id, []).append(n.value if isinstance(t, ast.Name) else None)
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
                assigns.setdefault(n.target.id, []).append(getattr(n, "value", None) if isinstance(n, ast.AugAssign)
                                                           or n.value is not None else None)
            elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.NamedExpr,
                                ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.arg)):
                target = getattr(n, "target", None) or getattr(n, "optional_vars", None)
                names = [n.name] if hasattr(n, "name") and isinstance(getattr(n, "name"), str) else []
                names += [n.arg] if isinstance(n, ast.arg) else []
                names += [m.id for m in ast.walk(target) if isinstance(m, ast.Name)] if target is not None else []
                for name in names:
                    assigns.setdefault(name, []).append(None)
        memo["_assigns"] = assigns
    assigns = memo["_assigns"]

    def lit(n: ast.AST, depth: int) -> bool:
        if depth > 20:
            return False
        if isinstance(n, ast.Constant):
            return True
        if isinstance(n, ast.Name):
            key = "name:" + n.id
            if key not in memo:
                memo[key] = False  # a cycle (`i = i + 1`) proves nothing
                vals = assigns.get(n.id)
                memo[key] = bool(vals) and all(v is not None and lit(v, depth + 1) for v in vals)
            return memo[key]
        if isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Tuple, ast.List)):
            return all(lit(c, depth + 1) for c in ast.iter_child_nodes(n) if isinstance(c, ast.expr))
        if isinstance(n, ast.Call) and not n.keywords:
            if ctx.qualname(n.func) in ("mindspore.Tensor", "mindspore.tensor"):
                return all(lit(a, depth + 1) for a in n.args)
        return False

    return lit(e, 0)

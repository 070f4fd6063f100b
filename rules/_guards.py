"""Where a graph-mode line may never be compiled: under a compile-time type or attribute test
(``if isinstance(v, dict):``, ``w.to_local() if isinstance(w, DTensor) else w``,
``hasattr(x, "a") and x.a``), inside an error message of a ``raise``, or in a ``try`` that
catches the error. Graph mode folds such tests on constant types, so the other side is not
compiled (measured on 2.10: ``if isinstance(self.cls.method1(x), dict): return x.keys()`` on a
tensor compiles and runs; MindSpore's own test ``test_attr_in_control_flow_no_check``)."""

from __future__ import annotations

import ast

_TYPE_TESTS = frozenset({"hasattr", "isinstance", "issubclass", "type", "getattr", "callable"})


def _has_type_test(test: ast.AST) -> bool:
    return any(isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id in _TYPE_TESTS
               for t in ast.walk(test))


def maybe_not_compiled(node: ast.AST, ctx, catches: tuple = ()) -> bool:
    """``node`` (the node being visited: its parents are known) sits under a type/attribute
    test, inside a ``raise``, or in the body of a ``try`` whose handlers catch one of
    ``catches`` (a bare ``except`` and ``Exception`` always count)."""
    prev: ast.AST = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Raise):
            return True
        if isinstance(anc, (ast.If, ast.IfExp, ast.While)) and prev is not anc.test and _has_type_test(anc.test):
            return True
        if isinstance(anc, ast.BoolOp):
            for v in anc.values:
                if v is prev:
                    break
                if _has_type_test(v):
                    return True
        if isinstance(anc, ast.Try) and any(prev is s for s in anc.body):
            for h in anc.handlers:
                names = {n.id for n in ast.walk(h.type) if isinstance(n, ast.Name)} if h.type is not None else set()
                if h.type is None or {"Exception", "BaseException", *catches} & names:
                    return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        prev = anc
    return False

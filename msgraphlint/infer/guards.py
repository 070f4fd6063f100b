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
    tests = ctx.memo.setdefault("type_tests", {})
    return up_the_chain(node, ctx, ("maybe_not_compiled", catches),
                        lambda anc, prev: _step(anc, prev, catches, tests))


def up_the_chain(node: ast.AST, ctx, key, step) -> bool:
    """The first answer ``step(ancestor, child)`` gives (True or False; None: ask further up)
    walking from ``node`` up its parents; False at the root. A node's answer is its parent's
    step or, when that decides nothing, the parent's own answer: remembered per dispatch walk
    (``ctx._parents``) under ``key``, so the nodes of a chain thousands deep (a long sum, an
    ``elif`` chain) cost one step each, not one per ancestor."""
    held = ctx.memo.get(key)
    if held is None or held[0] is not ctx._parents:  # one walk's parents at a time
        held = ctx.memo[key] = (ctx._parents, {})
    answers = held[1]
    path = []
    n = node
    while True:
        found = answers.get(id(n))
        if found is not None:
            break
        anc = ctx.parent(n)
        if anc is None:
            found = False
            break
        found = step(anc, n)
        if found is not None:
            break
        path.append(n)
        n = anc
    answers[id(n)] = found
    for m in path:
        answers[id(m)] = found
    return found


def _step(anc: ast.AST, prev: ast.AST, catches: tuple, tests: dict):
    """True or False when ``anc``, the parent of ``prev``, decides; None to ask further up."""
    if isinstance(anc, ast.Raise):
        return True
    if isinstance(anc, (ast.If, ast.IfExp, ast.While)) and prev is not anc.test and _type_test_in(anc.test, tests):
        return True
    if isinstance(anc, ast.BoolOp):
        for v in anc.values:
            if v is prev:
                break
            if _type_test_in(v, tests):
                return True
    if isinstance(anc, ast.Try) and any(prev is s for s in anc.body):
        for h in anc.handlers:
            names = {n.id for n in ast.walk(h.type) if isinstance(n, ast.Name)} if h.type is not None else set()
            if h.type is None or {"Exception", "BaseException", *catches} & names:
                return True
    if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return False
    return None


def _type_test_in(test: ast.AST, tests: dict) -> bool:
    found = tests.get(id(test))
    if found is None:
        found = tests[id(test)] = _has_type_test(test)
    return found

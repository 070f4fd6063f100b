"""MSG106, MSG107: tensor-decided control flow under ``jit(capture_mode="bytecode"|"trace")``.

MSG101-MSG103 describe MindSpore's default capture (ast): a tensor condition becomes a
``Switch`` with branch subgraphs. The other capture modes do something else with the same
code. Measured with MindSpore 2.10.0 on CPU, ``ms.jit(f, capture_mode=mode)`` called with
``ones(3)`` and then with an input that takes the other branch (IR dumped with
``MS_DEV_SAVE_GRAPHS=1``):

* ``if x.sum() > 0: return x * 2`` / ``return x - 100``: ast — 1 compile, a Switch, 3 kernel
  graphs, PyNative's results; bytecode — 3 validate graphs for the two calls, no Switch,
  PyNative's results; trace — 1 graph, no Switch, and the second call returned ``x * 2``
  (−2.0) where Python gives ``x - 100`` (−101.0).
* ``while x.abs().max() > 10: x = x / 2`` after ``x = x * 40``: bytecode — no Switch,
  PyNative's results; trace — the second call (input −8) returned −80.0 where Python
  gives −10.0 (the first call's trip count was replayed).
* ``x * 2 if x.sum() > 0 else x - 100``: bytecode — PyNative's results; trace — −16.0
  where Python gives −108.0.

``tests/test_capture_modes_mindspore.py`` compiles these again on every MindSpore test run.
"""

from __future__ import annotations

import ast

from msgraphlint.rule import Invalid, Rule, Severity, Valid

from .control_flow import _cond_text, _is_elif, tensor_decider


def _mode(ctx) -> str:
    return getattr(ctx.scope, "capture_mode", "ast") if ctx.scope is not None else "ast"


class _ModeBranch(Rule):
    mode = ""

    def _check(self, node: ast.AST, test: ast.AST, what: str, ctx) -> None:
        if _mode(ctx) != self.mode:
            return
        if tensor_decider(ctx, test, any_capture=True) is not None:
            ctx.report(test, what=what, cond=_cond_text(ctx, test), where=ctx.where)

    def visit_If(self, node: ast.If, ctx) -> None:
        self._check(node, node.test, "elif" if _is_elif(ctx, node) else "if", ctx)

    def visit_While(self, node: ast.While, ctx) -> None:
        self._check(node, node.test, "while", ctx)

    def visit_IfExp(self, node: ast.IfExp, ctx) -> None:
        self._check(node, node.test, "… if … else", ctx)


class BytecodeGraphBreak(_ModeBranch):
    code = "MSG106"
    name = "tensor-branch-bytecode-capture"
    mode = "bytecode"
    summary = ("A tensor-decided `if`/`while`/conditional expression under `jit(capture_mode=\"bytecode\")`: "
               "the graph breaks there.")
    message = ("`{what} {cond}` decides on a tensor value under `jit(capture_mode=\"bytecode\")` ({where}): "
               "the graph breaks here — MindSpore compiles the code around it as separate graphs and Python "
               "takes the branch (no Switch; results are right, the work is split across graphs)")
    hint = ("keep the decision on the device with `ops.where(cond, a, b)` / `ops.select`, or move the "
            "data-dependent control flow out of the jit function")
    severity = Severity.WARNING
    rationale = """
        With bytecode capture MindSpore reads the function's Python bytecode instead of its
        source. Where the code branches on a tensor value it does not build a `Switch` (that is
        ast capture, MSG101): it breaks the graph, compiles the pieces separately and lets
        Python decide. Measured on MindSpore 2.10 CPU with `if x.sum() > 0: return x * 2`,
        `return x - 100` called with an input of each sign: 3 validate graphs for the two calls,
        no Switch, PyNative's results; a tensor `while` likewise had no Switch and gave
        PyNative's results. The cost is a split graph (no fusion across the break, extra
        launches), not wrong values. (`tests/test_capture_modes_mindspore.py` re-measures it.)
    """
    VALID = [
        Valid("""
            import mindspore as ms
            from mindspore import ops

            @ms.jit(capture_mode="bytecode")
            def step(x):
                return ops.where(x.sum() > 0, x * 2, x - 100)
        """, note="the decision stays on the device"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def step(x):
                if x.sum() > 0:
                    return x * 2
                return x - 100
        """, note="ast capture: a Switch, reported by MSG101"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit(capture_mode="bytecode")
            def step(x):
                if x.sum() > 0:
                    return x * 2
                return x - 100
        """, line=5),
    ]


class TraceFrozenBranch(_ModeBranch):
    code = "MSG107"
    name = "tensor-branch-trace-capture"
    mode = "trace"
    summary = ("A tensor-decided `if`/`while`/conditional expression under `jit(capture_mode=\"trace\")`: decided "
               "once while tracing, replayed for every input.")
    message = ("`{what} {cond}` decides on a tensor value under `jit(capture_mode=\"trace\")` ({where}): it is "
               "decided once, while tracing, and the graph replays that branch (or trip count) for every input "
               "— wrong results when a later input decides otherwise")
    hint = ("express the choice as data with `ops.where(cond, a, b)` / `ops.select`, or use the default (ast) "
            "capture, which compiles a real branch")
    severity = Severity.ERROR
    rationale = """
        Trace capture runs the function once in Python and records the operators it executes.
        A Python `if`, `while` or conditional expression on a tensor is evaluated during that
        run, and only the path it took is recorded. Measured on MindSpore 2.10 CPU (first call
        with `ones(3)`, second with an input that takes the other path): `if x.sum() > 0:
        return x * 2` / `return x - 100` returned −2.0 where Python gives −101.0;
        `x = x * 40; while x.abs().max() > 10: x = x / 2` returned −80.0 for an input of −8
        where Python gives −10.0; `x * 2 if x.sum() > 0 else x - 100` returned −16.0 where
        Python gives −108.0. One graph, no Switch, no error or warning.
        (`tests/test_capture_modes_mindspore.py` re-measures it.)
    """
    VALID = [
        Valid("""
            import mindspore as ms
            from mindspore import ops

            @ms.jit(capture_mode="trace")
            def step(x):
                return ops.where(x.sum() > 0, x * 2, x - 100)
        """, note="the choice is data, traced as a Select"),
        Valid("""
            import mindspore as ms

            @ms.jit(capture_mode="trace")
            def step(x, scale=2):
                if scale > 1:
                    x = x * scale
                return x
        """, note="a Python value: fixed at trace time, as the code means"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit(capture_mode="trace")
            def step(x):
                x = x * 40
                while x.abs().max() > 10:
                    x = x / 2
                return x
        """, line=6),
    ]

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

MSG110: Python statements and calls under bytecode capture, measured the same way with
``mindspore._c_expression.get_code_extra(fn)`` (``stat``, ``break_count_``, ``compile_count_``,
as MindSpore's own pi_jit tests read them) on Python 3.11: see ``BytecodeCaptureBreak``.

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
    message = ("`{what} {cond}` on a tensor breaks a bytecode-captured graph\n"
               "It decides on a tensor value under `jit(capture_mode=\"bytecode\")` ({where}): the graph breaks "
               "here — MindSpore compiles the code around it as separate graphs and Python takes the branch (no "
               "Switch; results are right, the work is split across graphs).")
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
    message = ("`{what} {cond}` on a tensor is decided once under trace capture\n"
               "It decides on a tensor value under `jit(capture_mode=\"trace\")` ({where}): it is decided once, "
               "while tracing, and the graph replays that branch (or trip count) for every input — wrong results "
               "when a later input decides otherwise.")
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


# construct -> (what the message calls it, what 2.10 does under bytecode capture). Measured on
# MindSpore 2.10.0 CPU, Python 3.11, one `jit(f, capture_mode="bytecode")` per construct called
# twice; `get_code_extra(f)`: stat, break_count_, compile_count_; and again with fullgraph=True.
_BREAKS = {
    "nonlocal": ("`nonlocal` statement", "Assignment or deletion of free variables is not supported"),
    "class": ("a class definition", "Unsupported bytecode"),
    "set": ("a set display", "Unsupported bytecode"),
    "setcomp": ("a set comprehension", "Unsupported bytecode"),
    "import": ("an `import` statement", "Cannot infer the execution result"),
    "asnumpy": ("`.asnumpy()`", "Unsupported function"),
    "open": ("`open()`", "Unsupported function"),
}


class BytecodeCaptureBreak(Rule):
    code = "MSG110"
    name = "bytecode-capture-break"
    captures = frozenset({"bytecode"})
    summary = ("A statement or call where MindSpore 2.10 breaks the graph under `jit(capture_mode=\"bytecode\")` "
               "(a set, a nested class, `import`, `nonlocal`, `.asnumpy()`, `open()`).")
    message = "{what} breaks a bytecode-captured graph\nIn a `jit(capture_mode=\"bytecode\")` function ({where}): {effect}."
    hint = ("keep Python-only work (imports, files, host copies, sets, classes) outside the "
            "jit function, or pass `fullgraph=True` to make every graph break an error")
    severity = Severity.WARNING
    rationale = """
        Bytecode capture (`jit(capture_mode="bytecode")`, MindSpore's PIJit, also spelled
        `jit(fn, mode="PIJit")`) runs the function's Python bytecode and compiles the parts it
        can follow into graphs. It never parses the source, so ast capture's syntax errors
        (MSG410) and PyExecute fallbacks (MSG4xx) do not apply: `del`, `try`, `with`, `match`,
        `:=`, `for … else` and Python calls are legal. What it does instead was measured on
        MindSpore 2.10.0 CPU, Python 3.11, reading `get_code_extra(fn)` after two calls as
        MindSpore's own pi_jit tests do:

        | code in the jit function | stat | break_count_ | with `fullgraph=True` |
        |---|---|---|---|
        | `nonlocal n` (rebound by an inner function) | GRAPH_CALLABLE | 1 | `Assignment or deletion of free variables is not supported` |
        | a nested `class` | GRAPH_CALLABLE | 1 | `Unsupported bytecode` |
        | `{0, 1}`, `{d for d in x.shape}` | GRAPH_CALLABLE | 1 | `Unsupported bytecode` |
        | `import math` | GRAPH_CALLABLE | 1 | `Cannot infer the execution result` |
        | `x.asnumpy()`, `open(path)` | GRAPH_CALLABLE | 1 | `Unsupported function` |
        | `del y`, `del d["a"]`, `(n := x.shape[0])`, `match`, `for … else`, `while … else`, `1j`, `all(d > 0 for d in x.shape)`, `type(x) is Tensor`, `print(x)` | GRAPH_CALLABLE | 0 | no error |

        Every case gave PyNative's results. A graph break costs what MSG106 says: the code
        before and after compiles as separate graphs and the statement runs in Python. Only
        the jit function's own statements are reported (a helper's were not measured).

        `try` and `with` are not reported: what 2.10 does with them varies. `try`/`except`,
        `try`/`finally` and `with CM():` around plain tensor code logged an internal error
        (`out of bci range`, `FindTryWithBlock`) and left the function uncompiled (stat
        NEVER_COMPILE, 0 compiles, PyNative's results, also under `fullgraph=True`); a `with`
        whose body or `__enter__` breaks the graph compiled (GRAPH_CALLABLE, 1 break); a `try`
        in a helper the jit function calls compiled with no break.
        (`tests/test_capture_modes_mindspore.py` re-measures the table.)
    """
    VALID = [
        Valid("""
            import mindspore as ms

            @ms.jit(capture_mode="bytecode")
            def step(x, d):
                y = x * 2
                del y
                del d["a"]
                if (n := x.shape[0]) > 1:
                    return x * n
                return x
        """, note="`del` and `:=` compile with no graph break (break_count_ 0)"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def step(x):
                s = {0, 1}
                return x * len(s)
        """, note="ast capture: MSG410's business"),
        Valid("""
            import mindspore as ms

            def guarded(x):
                try:
                    return x * 2
                except ValueError:
                    return x

            @ms.jit(capture_mode="bytecode")
            def step(x):
                return guarded(x) + 1
        """, note="a `try` in a helper compiled (GRAPH_CALLABLE, 0 breaks)"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit(capture_mode="bytecode")
            def step(x):
                axes = {0, 1}
                return x * len(axes)
        """, line=5),
        Invalid("""
            import mindspore as ms

            @ms.jit(capture_mode="bytecode")
            def step(x):
                import math
                return x * math.pi
        """, line=5),
        Invalid("""
            from mindspore import jit

            def step(x):
                return Tensor(x.asnumpy() * 2)

            fast = jit(step, mode="PIJit")
        """, line=4, note="MindSpore's older spelling of bytecode capture"),
    ]

    def _root(self, ctx) -> bool:
        return ctx.scope is not None and not ctx.scope.chain and ctx.func is not None

    def _own(self, node: ast.AST, ctx) -> bool:
        """In the jit function itself, not in a function or class nested in it."""
        for anc in ctx.ancestors(node):
            if anc is ctx.func:
                return True
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return False
        return False

    def _break(self, node: ast.AST, key: str, ctx) -> None:
        if self._root(ctx) and self._own(node, ctx):
            what, error = _BREAKS[key]
            ctx.report(node, what=what, where=ctx.where,
                       effect=("MindSpore 2.10 breaks the graph here (break_count_ 1): the code before and after "
                               "compiles as separate graphs and this runs in Python; with `fullgraph=True` it raises "
                               f"`{error}`"))

    def visit_Nonlocal(self, node: ast.Nonlocal, ctx) -> None:
        self._break(node, "nonlocal", ctx)

    def visit_ClassDef(self, node: ast.ClassDef, ctx) -> None:
        self._break(node, "class", ctx)

    def visit_Set(self, node: ast.Set, ctx) -> None:
        self._break(node, "set", ctx)

    def visit_SetComp(self, node: ast.SetComp, ctx) -> None:
        self._break(node, "setcomp", ctx)

    def visit_Import(self, node: ast.AST, ctx) -> None:
        self._break(node, "import", ctx)

    visit_ImportFrom = visit_Import

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "asnumpy" and not node.args:
            self._break(node, "asnumpy", ctx)
        elif isinstance(f, ast.Name) and f.id == "open":
            self._break(node, "open", ctx)

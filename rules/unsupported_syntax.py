"""MSG410-MSG411: Python syntax that MindSpore 2.10 graph mode rejects, or only runs in the
interpreter.

The lists below were established by compiling one small Cell per construct with
MindSpore 2.10.0 on CPU (GRAPH_MODE), at the default syntax level and under STRICT
(``MS_DEV_JIT_SYNTAX_LEVEL=0``); the error lines are the first lines MindSpore printed.
"""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.parse.astutil import last_assignment_before, statement_defs, walk_no_ctx, walk_statements
from msgraphlint.findings import FixSafety
from msgraphlint.fix.codemods import (async_fix, comprehension_loops_fix, del_fix, import_fix, loop_else_fix, set_fix, try_finally_fix,
                                      walrus_fix, with_null_fix)
from msgraphlint.rule import AST_CAPTURE, Invalid, Rule, Severity, Valid

# construct -> (what the message calls it, MindSpore 2.10's error, first line)
_MATCH = (ast.Match,) if hasattr(ast, "Match") else ()  # Python 3.10+

_ERRORS = {
    "try": ("`try` statement", "RuntimeError: Unsupported statement 'Try'."),
    "with": ("`with` statement on an object that is not a `@jit_class` instance",
             "TypeError: Only support jit_class instance, but got PythonObject(…)"),
    "with-open": ("`with open(…)` (a file as a context manager)", "TypeError: issubclass() arg 1 must be a class"),
    "yield": ("`yield` (a generator)", "RuntimeError: Unsupported expression 'Yield'."),
    "yield from": ("`yield from` (a generator)", "RuntimeError: Unsupported expression 'YieldFrom'."),
    "del": ("`del` statement", "RuntimeError: Unsupported statement 'Delete'."),
    "nonlocal": ("`nonlocal` statement", "RuntimeError: Unsupported statement 'Nonlocal'."),
    "class": ("a class definition", "RuntimeError: Unsupported statement 'ClassDef'."),
    "setcomp": ("set comprehension", "RuntimeError: Unsupported expression 'SetComp'."),
    "set": ("set literal", "RuntimeError: Unsupported expression 'Set'."),
    "multi-for": ("comprehension with two `for` clauses",
                  "TypeError: The 'generators' supports 1 'comprehension' in ListComp/GeneratorExp, but got 2 "
                  "comprehensions."),
    "walrus": ("assignment expression (`:=`)", "RuntimeError: Unsupported expression 'NamedExpr'."),
    "match": ("`match` statement", "RuntimeError: Unsupported statement 'Match'."),
    "import": ("an `import` statement", "RuntimeError: Unsupported statement 'Import'."),
    "for-else": ("`for … else`", "RuntimeError: The 'for...else...' statement is not supported now."),
    "while-else": ("`while … else`", "RuntimeError: The 'while...else...' statement is not supported now."),
    "async": ("`async def`", "TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got NoneType."),
    "async-nested": ("`async def`", "RuntimeError: Unsupported statement 'AsyncFunctionDef'."),
    "complex": ("complex literal", "TypeError: Unsupported Constant type : 1j"),
    # MindSpore parses a lambda from its source line and needs the lambda to be the whole value
    # of that line's statement; `{node}` is the type of the value it found instead (measured on
    # 2.10 CPU: IfExp, BoolOp; `f = lambda …` on its own line, then the conditional, compiles)
    "lambda-in-expr": ("`{attr}(…)` of a lambda inside a {node_desc} (line {line})",
                       "TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got {node}."),
    "subscript-attr": ("an attribute assignment on a subscripted object (`a[i].attr = …`)",
                       "RuntimeError: In graph mode, only attribute and name of class members can be assigned. "
                       "But got Subscript."),
}

_REPLACE = {
    "try": "remove the try: errors cannot be caught in a graph; validate inputs before calling the Cell",
    "with": "move the context manager outside `construct` (around the Cell call), or make it a `@ms.jit_class`",
    "with-open": "read or write the file outside `construct` (in the training loop or a callback)",
    "yield": "return a tuple (or stack the values into one tensor) instead of yielding",
    "yield from": "return a tuple (or stack the values into one tensor) instead of yielding",
    "del": "drop the `del`: rebind the name, or just stop using it",
    "nonlocal": "return the new value from the inner function instead of rebinding the outer name",
    "class": "define the class at module level (a `@ms.jit_class` if graph code must use its instances)",
    "setcomp": "use a tuple or list (`tuple(sorted(...))` on constants), or a mask tensor",
    "set": "use a tuple (`axes = (0, 1)`)",
    "multi-for": "nest one comprehension per `for` (`[[f(i, j) for j in b] for i in a]`) or write the loops out",
    "walrus": "assign on its own line before the test",
    "match": "use `if`/`elif` on the value",
    "import": "import at module level",
    "for-else": "use a flag (or the loop's last value) after the loop instead of `else`",
    "while-else": "use a flag after the loop instead of `else`",
    "async": "make it a plain `def`",
    "async-nested": "make it a plain `def`",
    "complex": "build complex tensors with `ops.Complex(real, imag)`",
    "lambda-in-expr": "bind the lambda to a name on a line of its own (`f = lambda x: ...`), then choose between the names",
    "subscript-attr": "set the attribute outside the graph (before the Cell is called), or keep the state in a "
                      "Parameter updated with `ops.assign`",
}



class UnsupportedSyntax(Rule):
    code = "MSG410"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "unsupported-syntax"
    fix_safety = FixSafety.SAFE  # mechanical rewrites where proved (msgraphlint/fix/codemods.py), else unsafe
    summary = "Python syntax that MindSpore 2.10 graph mode rejects at every syntax level."
    message = ("{what} does not compile in graph mode\n"
               "In graph-mode code ({where}) MindSpore 2.10 rejects it (default level and STRICT): `{error}`")
    hint = ("rewrite it with what graph mode accepts (the message's hint names the replacement: a tuple for a set, "
            "`if`/`elif` for `match`, a module-level import, a flag instead of `for … else`, …), or move it "
            "out of `construct`")
    severity = Severity.ERROR
    rationale = """
        Each construct below was compiled in a small Cell (`construct` or a helper it calls;
        `@ms.jit` functions behave the same) with MindSpore 2.10.0 on CPU. All of them fail
        at the default syntax level AND under STRICT (`MS_DEV_JIT_SYNTAX_LEVEL=0`), with the
        same first error line:

        | construct | first error line |
        |---|---|
        | `try`/`except`, `try`/`finally` (also in a helper) | `RuntimeError: Unsupported statement 'Try'.` |
        | `with` on a plain context manager, also `with ms._no_grad():` | `TypeError: Only support jit_class instance, but got PythonObject(type: <class '….CM'>, …)` |
        | `with open(path, "a") as f:` | `TypeError: issubclass() arg 1 must be a class` |
        | `yield` (construct or helper generator) | `RuntimeError: Unsupported expression 'Yield'.` |
        | `yield from` | `RuntimeError: Unsupported expression 'YieldFrom'.` |
        | `del name`, `del d[k]`, `del self.attr` | `RuntimeError: Unsupported statement 'Delete'.` |
        | `nonlocal` | `RuntimeError: Unsupported statement 'Nonlocal'.` |
        | nested `class` | `RuntimeError: Unsupported statement 'ClassDef'.` |
        | set comprehension `{d for d in …}` | `RuntimeError: Unsupported expression 'SetComp'.` |
        | set literal `{0, 1}` | `RuntimeError: Unsupported expression 'Set'.` |
        | `[t * i * j for i in range(2) for j in range(2)]` (two `for` clauses; generator expressions too; a dict comprehension: `…in DictComp/GeneratorExp…`) | `TypeError: The 'generators' supports 1 'comprehension' in ListComp/GeneratorExp, but got 2 comprehensions.` |
        | walrus `(n := …)` | `RuntimeError: Unsupported expression 'NamedExpr'.` |
        | `match` | `RuntimeError: Unsupported statement 'Match'.` |
        | `import` / `from … import` in the function | `RuntimeError: Unsupported statement 'Import'.` / `'ImportFrom'.` |
        | `for … else` | `RuntimeError: The 'for...else...' statement is not supported now.` |
        | `while … else` | `RuntimeError: The 'while...else...' statement is not supported now.` |
        | `async def` helper called from construct | `TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got NoneType.` (misleading) |
        | nested `async def` | `RuntimeError: Unsupported statement 'AsyncFunctionDef'.` |
        | complex literal `1j` | `TypeError: Unsupported Constant type : 1j` |
        | `self.f(x)` where a method set `self.f = A if c else lambda t: …` (or `A or lambda …`) with the lambda on that line, when `self.f` is the lambda | `TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got IfExp.` (`BoolOp`; MindSpore reads the lambda's source line; `f = lambda t: …` on its own line, then the conditional, compiles) |
        | attribute of a subscript as a target: `self.cells[0].x = v`, `self.objs[0].x += 1`, `lst[0].x, y = …` (CellList, list or dict element) | `RuntimeError: In graph mode, only attribute and name of class members can be assigned. But got Subscript.` |

        Checked and accepted at both levels (not reported): `global` (reading and rebinding;
        the rebinding is a side effect, see MSG2xx), lambdas (also with default arguments),
        nested `def`, `*args`/`**kwargs`/keyword-only parameters of `construct`, starred
        assignment `a, *rest = …`, `eval("2 + 3")` on a literal, list/dict comprehensions,
        generator expressions, `{**base}`, chained assignment and comparison, `assert` and
        `raise` with constant messages, `slice(...)`, `@`, `break`/`continue`, `set(...)`/
        `frozenset(...)` calls, `locals()`, `super().construct(x)`, `with` on an
        `@ms.jit_class` instance, reading an attribute of a subscript (`self.blocks[0].scale`),
        an attribute of a plain object assigned through a name bound to the list element
        (`o = self.objs[0]; o.x = 2`; for a CellList element that fails differently:
        `AttributeError: 'int' object has no attribute …`), and `with ms.runtime.StreamCtx(stream):` (measured on
        2.10 CPU: compiles and runs in graph mode).

        Nested functions are parsed even when never called (a `try` in an uncalled inner
        `def` fails), and so are branches under shape tests (`if x.ndim == 5:`); a branch
        under an `__init__` attribute that is False is skipped (measured), which is why such
        code may compile in one configuration and fail in another.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x, *args, **kwargs):
                    first, *rest = ops.split(x, 2, axis=1)
                    f = lambda t, k=2: t * k
                    parts = {i: x * i for i in range(3)}
                    return f(first) + rest[0] + parts[2]
        """, note="accepted at both levels (measured)"),
        Valid("""
            import mindspore.nn as nn

            SCALE = 2.0

            class Net(nn.Cell):
                def construct(self, x):
                    global SCALE
                    return x * SCALE
        """, note="`global` compiles (its rebinding is a side-effect rule's business)"),
        Valid("""
            import mindspore as ms
            import mindspore.nn as nn

            @ms.jit_class
            class Scope:
                def __enter__(self):
                    return self

                def __exit__(self, *exc):
                    return False

            class Net(nn.Cell):
                def construct(self, x):
                    with Scope():
                        y = x * 2
                    return y
        """, note="`with` on a jit_class instance compiles"),
        Valid("""
            import mindspore as ms
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.s = ms.runtime.Stream()

                def construct(self, x):
                    with ms.runtime.StreamCtx(self.s):
                        y = x * 2
                    return y
        """, note="MindSpore's StreamCtx compiles in graph mode (measured on 2.10)"),
        Valid("""
            import mindspore.nn as nn

            def load(path):
                try:
                    return open(path).read()
                except OSError:
                    return None

            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2
        """, note="not graph-mode code"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, blocks):
                    super().__init__()
                    self.blocks = nn.CellList(blocks)

                def construct(self, x):
                    scale = self.blocks[0].scale
                    return self.blocks[0](x) * scale
        """, note="reading an attribute of a CellList element compiles (measured on 2.10)"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    try:
                        y = x * 2
                    except ValueError:
                        y = x
                    return y
        """, line=5),
        Invalid("""
            import mindspore.nn as nn

            def pairs(t):
                yield t * 2
                yield t + 1

            class Net(nn.Cell):
                def construct(self, x):
                    a, b = pairs(x)
                    return a + b
        """, line=4, note="a generator helper: its first yield"),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def step(x):
                axes = {0, 1}
                tmp = x * 2
                del tmp
                for i in range(2):
                    x = x + i
                else:
                    x = x * 2
                return x * len(axes)
        """, line=[5, 7, 8], note="set literal, del, for-else in a jit function"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    if (n := x.shape[0]) > 2:
                        x = x * n
                    return x
        """, line=5),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, blocks):
                    super().__init__()
                    self.blocks = nn.CellList(blocks)

                def construct(self, x):
                    self.blocks[0].scale = 2
                    return self.blocks[0](x)
        """, line=9, note="an attribute of a CellList element as an assignment target"),
    ]

    # statements -------------------------------------------------------------------
    def visit_Try(self, node, ctx) -> None:
        self._report(node, "try", ctx, fix=try_finally_fix(ctx, node) if isinstance(node, ast.Try) else None)

    visit_TryStar = visit_Try

    def visit_With(self, node: ast.With, ctx) -> None:
        for item in node.items:
            if self._maybe_jit_class(item.context_expr, ctx) or self._graph_context_manager(item.context_expr, ctx):
                return
        opens = any(isinstance(i.context_expr, ast.Call) and isinstance(i.context_expr.func, ast.Name)
                    and i.context_expr.func.id == "open" and "open" not in ctx.imports.names for i in node.items)
        self._report(node, "with-open" if opens else "with", ctx,
                     fix=with_null_fix(ctx, node) if isinstance(node, ast.With) else None)

    # MindSpore context managers the graph compiler accepts (measured on 2.10 CPU:
    # `with ms.runtime.StreamCtx(self.s):` in construct compiles and runs)
    _GRAPH_CMS = frozenset({"mindspore.runtime.StreamCtx", "mindspore.hal.StreamCtx", "mindspore.StreamCtx"})

    def _graph_context_manager(self, expr: ast.AST, ctx) -> bool:
        target = expr.func if isinstance(expr, ast.Call) else expr
        q = ctx.qualname(target)
        return bool(q) and (q in self._GRAPH_CMS or (ctx.catalog.canonical(q) in self._GRAPH_CMS))

    visit_AsyncWith = visit_With

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        for target in node.targets:
            self._subscript_attr_targets(target, ctx)

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        self._subscript_attr_targets(node.target, ctx)

    def visit_AnnAssign(self, node: ast.AnnAssign, ctx) -> None:
        if node.value is not None:
            self._subscript_attr_targets(node.target, ctx)

    def _subscript_attr_targets(self, target: ast.AST, ctx) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._subscript_attr_targets(elt.value if isinstance(elt, ast.Starred) else elt, ctx)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Subscript):
            self._report(target, "subscript-attr", ctx)

    def visit_Delete(self, node, ctx) -> None:
        self._report(node, "del", ctx, fix=del_fix(ctx, node))

    def visit_Nonlocal(self, node, ctx) -> None:
        self._report(node, "nonlocal", ctx)

    def visit_ClassDef(self, node, ctx) -> None:
        self._report(node, "class", ctx)

    def visit_Match(self, node, ctx) -> None:
        self._report(node, "match", ctx)

    def visit_Import(self, node, ctx) -> None:
        self._report(node, "import", ctx, fix=import_fix(ctx, node))

    visit_ImportFrom = visit_Import

    def visit_For(self, node: ast.For, ctx) -> None:
        if node.orelse:
            self._report(node, "for-else", ctx, end=node.iter, fix=loop_else_fix(ctx, node))

    def visit_While(self, node: ast.While, ctx) -> None:
        if node.orelse:
            self._report(node, "while-else", ctx, end=node.test, fix=loop_else_fix(ctx, node))

    def visit_AsyncFunctionDef(self, node, ctx) -> None:
        scope_func = ctx.scope is not None and node.lineno == ctx.scope.lineno
        self._report(node, "async" if scope_func else "async-nested", ctx, end=node.args,
                     fix=async_fix(ctx, node) if scope_func else None)

    # expressions ----------------------------------------------------------------
    def visit_Yield(self, node, ctx) -> None:
        if self._first_yield(node, ctx):
            self._report(node, "yield", ctx)

    def visit_YieldFrom(self, node, ctx) -> None:
        if self._first_yield(node, ctx):
            self._report(node, "yield from", ctx)

    @staticmethod
    def _first_yield(node: ast.AST, ctx) -> bool:
        """One finding per generator function: its first yield."""
        func = next((a for a in ctx.ancestors(node) if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))), None)
        if func is None:
            return True
        first = min((n for n in ast.walk(func) if isinstance(n, (ast.Yield, ast.YieldFrom))),
                    key=lambda n: (n.lineno, n.col_offset), default=node)
        return first is node

    def visit_SetComp(self, node, ctx) -> None:
        self._report(node, "setcomp", ctx, fix=set_fix(ctx, node))

    def visit_Set(self, node, ctx) -> None:
        self._report(node, "set", ctx, fix=set_fix(ctx, node))

    def visit_ListComp(self, node, ctx) -> None:
        if len(node.generators) > 1:  # one comprehension each: nested ones compile
            self._report(node, "multi-for", ctx, fix=comprehension_loops_fix(ctx, node))

    visit_GeneratorExp = visit_DictComp = visit_ListComp

    def visit_NamedExpr(self, node, ctx) -> None:
        self._report(node, "walrus", ctx, fix=walrus_fix(ctx, node))

    def visit_Constant(self, node: ast.Constant, ctx) -> None:
        if isinstance(node.value, complex):
            self._report(node, "complex", ctx)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        """``self.f(x)`` where the class binds ``self.f = A if c else lambda x: ...`` (or ``A or
        lambda ...``) on the lambda's own line: when the lambda is what ``self.f`` holds, 2.10
        fails to parse it (MindSpore's test_lambda_location_2)."""
        f = node.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"):
            return
        memo = ctx.memo
        spelled = memo.get("msg410_lambda_text")
        if spelled is None:  # once per module, not a search of the text per call
            spelled = memo["msg410_lambda_text"] = "lambda" in ctx.source.text
        if not spelled:
            return
        func = next((a for a in ctx.ancestors(node) if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
        owners = ctx.memo.get("msg410_method_class")
        if owners is None:  # method -> its class, once per module
            owners = ctx.memo["msg410_method_class"] = {
                id(item): c for c in statement_defs(ctx.source.tree) if isinstance(c, ast.ClassDef)
                for item in c.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        cls = owners.get(id(func))
        if cls is None:
            return
        lambdas = ctx.memo.setdefault("msg410_class_lambdas", {})
        assigned = lambdas.get(id(cls))
        if assigned is None:  # once per class, not per call: 0.3 s CPU of mindformers
            assigned = lambdas[id(cls)] = _lambda_assignments(cls)
        found = assigned.get(f.attr)
        if found is not None:
            stmt, value = found
            what, error = _ERRORS["lambda-in-expr"]
            desc = "conditional expression" if isinstance(value, ast.IfExp) else "`and`/`or` expression"
            ctx.report(node, hint=_REPLACE["lambda-in-expr"],
                       what=what.format(node_desc=desc, attr=f"self.{f.attr}", line=stmt.lineno),
                       where=ctx.where, error=error.format(node=type(value).__name__))

    # helpers --------------------------------------------------------------------
    def _report(self, node: ast.AST, key: str, ctx, end: Optional[ast.AST] = None, fix=None) -> None:
        what, error = _ERRORS[key]
        hint = _REPLACE[key]
        if end is not None:  # a compound statement: underline its header, not the whole block
            ctx.report(node, end_node=end, hint=hint, what=what, where=ctx.where, error=error, fix=fix)
        elif isinstance(node, (ast.Try, ast.With, ast.AsyncWith, ast.ClassDef) + _MATCH):
            ctx.report_at(node.lineno, ctx.char_col(node.lineno, node.col_offset), hint=hint, what=what,
                          where=ctx.where, error=error, fix=fix)
        else:
            ctx.report(node, hint=hint, what=what, where=ctx.where, error=error, fix=fix)

    @staticmethod
    def _maybe_jit_class(expr: ast.AST, ctx) -> bool:
        """True unless the context manager is known not to be a jit_class instance."""
        if "jit_class" not in ctx.source.text:
            return False
        target = expr.func if isinstance(expr, ast.Call) else expr
        if isinstance(target, ast.Name):
            for node in ctx.source.tree.body:
                if isinstance(node, ast.ClassDef) and node.name == target.id:
                    return any(ctx.qualname(d.func if isinstance(d, ast.Call) else d) == "mindspore.jit_class"
                               for d in node.decorator_list)
        return True  # defined elsewhere in a module that uses jit_class: cannot tell


def _picked_lambdas(value: ast.AST):
    """The lambdas an expression may evaluate to (the branches of a conditional expression,
    the operands of ``and``/``or``)."""
    if isinstance(value, ast.Lambda):
        yield value
    elif isinstance(value, ast.IfExp):
        yield from _picked_lambdas(value.body)
        yield from _picked_lambdas(value.orelse)
    elif isinstance(value, ast.BoolOp):
        for v in value.values:
            yield from _picked_lambdas(v)


def _lambda_assignments(cls: ast.ClassDef) -> dict:
    """``_lambda_in_expression`` for every attribute of the class at once: attr -> its
    ``(statement, value)``. The statements are found by a statement walk; an attribute with
    more than one such statement is settled by ``_lambda_in_expression`` (its walk order)."""
    found: dict = {}
    for item in cls.body:
        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for stmt in walk_statements(item.body):
            hit = _self_conditional_lambda(stmt)
            if hit is not None:
                found.setdefault(hit[0], []).append((stmt, hit[1]))
    return {attr: hits[0] if len(hits) == 1 else _lambda_in_expression(cls, attr) for attr, hits in found.items()}


def _lambda_in_expression(cls: ast.ClassDef, attr: str):
    """``(statement, value)`` of a method's ``self.<attr> = <IfExp/BoolOp>`` that may give a
    lambda starting on the statement's own first line (MindSpore reads the lambda's source from
    that line and finds the conditional, not the lambda); None otherwise."""
    for item in cls.body:
        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for stmt in ast.walk(item):
            hit = _self_conditional_lambda(stmt)
            if hit is not None and hit[0] == attr:
                return stmt, hit[1]
    return None


def _self_conditional_lambda(stmt: ast.AST):
    """``(attr, value)`` when ``stmt`` is ``self.<attr> = <IfExp/BoolOp>`` (or annotated) that
    may give a lambda starting on the statement's own first line; None otherwise."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        target, value = stmt.target, stmt.value
    else:
        return None
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            and target.value.id == "self" and isinstance(value, (ast.IfExp, ast.BoolOp))):
        return None
    if any(lam.lineno == stmt.lineno for lam in _picked_lambdas(value)):
        return target.attr, value
    return None


class InterpretedSyntax(Rule):
    code = "MSG411"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "strict-incompatible-expression"
    summary = ("`%`-formatting that mentions a graph variable, `len()` of a string, `exec()`: interpreted at the "
               "default level or rejected under STRICT.")
    message = "{what} does not compile under STRICT\nIn graph-mode code ({where}) it {effect}."
    hint = "bind attributes of graph values to a local before `%`-formatting; keep string lengths as int attributes"
    severity = Severity.WARNING
    rationale = """
        Some Python expressions compile at the default syntax level only through the
        interpreter (PyExecute nodes, which cut the graph) or through a constant-folding path
        that STRICT (`MS_DEV_JIT_SYNTAX_LEVEL=0`) does not have. Measured with MindSpore
        2.10.0 on CPU:

        | expression | default level | STRICT |
        |---|---|---|
        | `"%s_%d" % (self.name, x.ndim)` | 2 PyExecute nodes | `ValueError: When handling script '"%s_%d" % (self.name, x.ndim) in graph mode', the inputs should be constant, but found variable 'x' to be nonconstant` |
        | `"%d" % x.shape[0]` | 1 PyExecute node | same error |
        | `len(self.tag)`, `len("abc")`, `len(s)` of a str | folded | `AttributeError: In JIT strict mode, cannot get attributes __len__ or the String object has no attribute: '__len__'` |
        | `exec("k = 2")` | 2 PyExecute nodes | `RuntimeError: The third argument should be a dictionary, but got` |

        Not reported, because they compile at both levels without PyExecute (measured):
        `"%s_%d" % (self.name, 2)`, `n = x.shape[0]; "%d" % n` (the local is a plain
        constant), `f"{self.name}_{x.ndim}"`, `"{}_{}".format(self.name, x.ndim)`,
        `eval("2 + 3")`, `len()` of a tuple or list. Formatting a tensor's *value* into a
        string (f-string, `str(t)`, `"%s" % t`, `.format(t)`) is MSG401.

        A `dict` returned from the outermost `construct` was also checked: 3 PyExecute nodes
        at the default level, and a tuple instead of the dict under STRICT; returned to a
        parent Cell it is free (no PyExecute). A linter cannot tell which Cell is the
        outermost, so it is not reported.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.name = "layer"
                    self.scale = float("%d.%d" % (2, 5))  # __init__ is Python

                def construct(self, x):
                    n = x.shape[0]
                    key = "%s_%d" % (self.name, n)
                    tag = f"{self.name}_{x.ndim}"
                    return x * self.scale * len((key, tag))
        """, note="constants only; f-strings of shapes compile at both levels"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.name = "layer"

                def construct(self, x):
                    key = "%s_%d" % (self.name, x.ndim)
                    return x * len((key,))
        """, line=9),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.tag = "layer_2"

                def construct(self, x):
                    return x * len(self.tag)
        """, line=9),
    ]

    _PCT_EFFECT = ("runs in the Python interpreter (PyExecute) at the default level and does not compile under "
                   "STRICT (`the inputs should be constant, but found variable`)")
    _PCT_HINT = ("bind the value to a local first (`n = x.ndim; \"%d\" % n` compiles at both levels), or use an "
                 "f-string")
    _LEN_EFFECT = ("compiles at the default level (folded) but not under STRICT: `AttributeError: In JIT strict mode, "
                   "cannot get attributes __len__ or the String object has no attribute: '__len__'`")
    _LEN_HINT = "compute the length in `__init__` and keep it as an int attribute (`self.tag_len = len(tag)`)"

    def visit_BinOp(self, node: ast.BinOp, ctx) -> None:
        if not (isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            return
        operands = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        if any(ctx.kind(o).tensor_like for o in operands):
            return  # a tensor's value formatted: MSG401
        if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and ctx.kind(n).tensor_like
               for o in operands for n in ast.walk(o)):
            if not _in_error_message(node, ctx):
                ctx.report(node, what="`%` formatting that mentions a graph variable", where=ctx.where,
                           effect=self._PCT_EFFECT, hint=self._PCT_HINT)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not (isinstance(f, ast.Name) and f.id not in ctx.imports.names
                and (ctx.values is None or f.id not in ctx.values.params)):
            return
        if f.id == "exec":
            ctx.report(node, what="`exec()`", where=ctx.where,
                       effect="runs in the Python interpreter (PyExecute) at the default level and does not compile "
                              "under STRICT",
                       hint="write the code out in the function (or compute it outside the graph)")
        elif f.id == "len" and len(node.args) == 1 and _is_str(node.args[0], ctx):
            ctx.report(node, what="`len()` of a string", where=ctx.where, effect=self._LEN_EFFECT,
                       hint=self._LEN_HINT)


def _in_error_message(node: ast.AST, ctx) -> bool:
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.Raise, ast.Assert)):
            return True
        if isinstance(anc, ast.stmt):
            return False
    return False


def _str_literal(e: ast.AST) -> bool:
    while isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Mod, ast.Add)):  # `"a" + b + c …`: its left end
        e = e.left
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str)
    if isinstance(e, ast.JoinedStr):
        return True
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in ("format", "join") \
        and isinstance(e.func.value, ast.Constant) and isinstance(e.func.value.value, str)


def _is_str(e: ast.AST, ctx) -> bool:
    """A str value: a literal, a local assigned only str literals in this function, or a
    `self.<attr>` whose every assignment in the class is a str literal."""
    if _str_literal(e):
        return True
    func = ctx.values.func if ctx.values is not None else None
    if isinstance(e, ast.Name) and func is not None:
        values = [n.value for n in walk_no_ctx(func) if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == e.id for t in n.targets)]
        return bool(values) and all(_str_literal(v) for v in values) and e.id not in ctx.values.params
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self" \
            and ctx.scope is not None and ctx.scope.class_name:
        from msgraphlint.project.scopes import class_def_of
        cls = class_def_of(ctx.source.tree, ctx.scope)
        if cls is None:
            return False
        values = [n.value for n in walk_no_ctx(cls) if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None
                  and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                          and t.attr == e.attr for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        return bool(values) and all(_str_literal(v) for v in values)
    return False


class DictUnpackOfTensors(Rule):
    code = "MSG412"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "dict-unpacking-of-tensors"
    summary = "`{**d}` over a dict of tensors (or a Cell's dict output) in graph-mode code: wrong values or no compile."
    message = ("`{{**{expr}}}` in graph-mode code {problem}\n"
               "In {where} it {effect} (MindSpore 2.10, default level and STRICT).")
    hint = "build the dict with explicit keys (`{\"a\": d[\"a\"], \"loss\": loss}`) or pass the values as a tuple"
    severity = Severity.ERROR
    rationale = """
        Dict unpacking in a dict display compiles in graph mode but is wrong for tensor
        values. Measured with MindSpore 2.10.0 on CPU, identically at the default level and
        under STRICT:

        - `a = {"p": x}; b = {**a}; return b["p"]` returns a nested tuple `((Tensor,),)`
          instead of the tensor; `{**a, "q": x * 2}` keeps `b["q"]` right and `b["p"]`
          wrong; `{**a, **c}` gets every unpacked key wrong. Used in arithmetic it fails
          with `TypeError: For Operator[Add], input's type 'Tuple[Tuple[Tensor[Float32]]]'
          does not match expected type 'Tensor'`.
        - Unpacking a sub-Cell's dict output, `{**self.inner(x), "loss": l}`, does not
          compile: `RuntimeError: The input of dict which need unpack must be dict, but got
          255`.
        - With constant values (`{**{"a": 1.0}, "b": 2.0}`) the result is right and nothing
          is reported.

        Reported when the unpacked value is a Cell or function output known to hold tensors,
        or a name bound in the same function to a dict display with a tensor value. A dict
        passed to `construct` (`{**cfg, "b": 2.0}` with `cfg` a parameter) is not reported:
        a `**`-unpacked name is a mapping, and on 2.10 this compiles and matches PyNative,
        with tensor values too (labeled fixture `syntax_neg_dict_arg_unpack`).
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    base = {"a": 1.0}
                    cfg = {**base, "b": 2.0}
                    return x * cfg["a"] + cfg["b"]
        """, note="constant values are merged correctly"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    out = {"a": x * 2}
                    res = {"a": out["a"], "loss": x.sum()}
                    return res["a"]
        """, note="explicit keys"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, cfg):
                    merged = {**cfg, "b": 2.0}
                    return x * merged["a"] + merged["b"]
        """, note="a dict passed to `construct`: a `**`-unpacked parameter is a mapping, not a tensor "
                  "(compiled on 2.10, values right; fixtures/labeled/syntax_neg_dict_arg_unpack.py)"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    a = {"p": x}
                    b = {**a, "q": x * 2}
                    return b["p"] + b["q"]
        """, line=6),
        Invalid("""
            import mindspore.nn as nn

            class Inner(nn.Cell):
                def construct(self, x):
                    return {"a": x * 2, "b": x}

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.inner = Inner()

                def construct(self, x):
                    out = {**self.inner(x), "loss": x.sum()}
                    return out["a"]
        """, line=13),
    ]

    _WRONG = "returns the unpacked tensors wrapped in nested tuples instead of the tensors themselves"
    _NO_COMPILE = "does not compile (`RuntimeError: The input of dict which need unpack must be dict`)"

    def visit_Dict(self, node: ast.Dict, ctx) -> None:
        for key, value in zip(node.keys, node.values):
            if key is not None:
                continue
            effect = None
            if ctx.kind(value).tensor_like:
                effect = self._NO_COMPILE
            elif isinstance(value, ast.Name) and self._bound_to_tensor_dict(value, ctx):
                effect = self._WRONG
            if effect:
                ctx.report(node, expr=" ".join(ctx.segment(value).split()) or ast.unparse(value),
                           where=ctx.where, effect=effect,
                           problem="does not compile" if effect is self._NO_COMPILE else "gives nested tuples")
                return

    @staticmethod
    def _bound_to_tensor_dict(name: ast.Name, ctx) -> bool:
        func = ctx.values.func if ctx.values is not None else None
        if func is None:
            return False
        last = last_assignment_before(func, name.id, name.lineno)
        if last is None or not isinstance(last.value, (ast.Dict, ast.DictComp)):
            return False
        values = last.value.values if isinstance(last.value, ast.Dict) else [last.value.value]
        return any(v is not None and ctx.kind(v).tensor_like for v in values)

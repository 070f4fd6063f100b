"""MSG201 print-in-graph."""

import ast

from msgraphlint.parse.astutil import last_assignment_before
from msgraphlint.findings import Edit, Fix
from msgraphlint.kinds import Kind
from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid

from msgraphlint.infer.flow import class_node, self_attr_values


class PrintInGraph(Rule):
    code = "MSG201"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "print-in-graph"
    summary = "Python `print()` inside graph-mode code."
    message = "`print()`{what} in graph-mode code\nIn {where} it {how}."
    hint = "use `ops.print_(...)` (or `ops.Print()`) for deliberate graph-side printing, or remove it"
    severity = Severity.WARNING
    fix_safety = FixSafety.UNSAFE
    rationale = """
        In PyNative mode `print` is a host call; in graph mode MindSpore 2.10 turns it
        into a `Print` operator inside the compiled graph (measured on CPU: the
        GPT-layer variant with `print(x)` compiles at both syntax levels and its
        final IR holds an extra `Print` node that carries no `# In file` line, so a
        profile cannot lead you back to it). It forces a device→host transfer and a
        synchronisation every step, and it splits fusion around it.

        Debug printing that should stay uses the native op explicitly, so that it is
        visible in review: `ops.print_("x:", x)`. Measured on 2.10 (labeled fixtures):
        the Print op from `ops.print_(...)` carries no source line either; only an
        `ops.Print()` primitive instance held on the Cell keeps its `# In file` line.
        `print(x)` is not dropped: its Print op runs at every call (MindSpore's
        `Tensor(shape=…)` format instead of PyNative's). A `print` whose block ends in
        `exit()`/`raise` is an error path, not per-step logging, and is not reported. Printing outside `construct` (in
        the training loop) is not affected and not flagged.

        Measured on 2.10 CPU (a Cell's `construct`, Print and PyExecute nodes of the validate
        IR, default syntax level / STRICT): `print(x)`, `print("x is", x)`, `print("hello")`
        and `print(f"shape {x.shape}")` — 1 Print, 0 PyExecute at both levels;
        `print(f"x={x}")` (an f-string of a tensor) — 0 Print and 3 PyExecute at the default
        level, 1 Print under STRICT; `print(f"Tensor(x): {Tensor(x)}")` of a tuple literal `x`
        — 1 Print, 0 PyExecute (folded). The message says which (no fix for the f-string: the
        interpreter formats it either way). `tests/test_messages_mindspore.py`
        re-measures the table.

        Printing a NumPy/host value is different: `print(arr[0:2])` of a NumPy array, `print(np.array(...) * 2)`
        or `print(x.asnumpy())` compile (2.10 CPU, validate IR) to PyExecute nodes and no Print op — the
        interpreter fallback runs the Python `print` at every call. The message says so for a printed
        value that is a `numpy` call, a host value (`.asnumpy()`, `.item()`…), a local last
        assigned one, or a `self.` attribute `__init__` built with NumPy (`print(self.arr)`
        with `self.arr = np.array([1, 2])`: 2 PyExecute nodes, no Print op; `print(self.n)` of
        an int: none) (and subscripts/arithmetic of those); no fix is offered there.

        Fix (unsafe: it keeps the print in the graph, where deleting it may be what
        you want): `print(...)` → `ops.print_(...)`, offered when the module already
        imports `mindspore.ops` and the call has no keyword arguments (`sep=`,
        `file=` have no `ops.print_` equivalent).
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    ops.print_("x:", x)
                    return x
        """, note="the native op"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    print("building Net")  # __init__ runs in Python

                def construct(self, x):
                    return x * 2
        """, note="print outside the graph"),
        Valid("""
            import mindspore.nn as nn

            class Act(nn.Cell):
                def __init__(self, act="relu"):
                    super().__init__()
                    self.act = act

                def construct(self, x):
                    if self.act == "relu":
                        return x * 2
                    else:
                        print("unsupported activation", self.act)
                        exit()
        """, note="an error message before exit()/raise: the branch aborts (found in mindocr)"),
        Valid("""
            class NotACell:
                def construct(self, x):
                    print(x)
                    return x
        """, note="construct of a class that is not a Cell"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    self.print(x)
                    return x

                def print(self, x):
                    return x
        """, note="a method that happens to be called print"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    print(x)
                    return x
        """, line=5),
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops as P

            class Net(nn.Cell):
                def construct(self, x):
                    print("x is", x)
                    return x
        """, line=6, expected_fix="""
            import mindspore.nn as nn
            from mindspore import ops as P

            class Net(nn.Cell):
                def construct(self, x):
                    P.print_("x is", x)
                    return x
        """),
        Invalid("""
            import mindspore as ms

            def helper(x):
                print("value", x)
                return x + 1

            @ms.jit
            def step(x):
                return helper(x)
        """, line=4, note="in a helper reached from a jit function"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    print(f"x={x}")
                    return x
        """, line=5, note="an f-string of a tensor: PyExecute at the default level, no Print op (measured)"),
        Invalid("""
            import numpy as np
            import mindspore as ms

            @ms.jit
            def step(x):
                arr = np.array([1, 2, 3])
                print(arr[0:2])
                return x + 1
        """, line=7, note="a NumPy value: printed through PyExecute (interpreter fallback), no Print op"),
    ]

    _PRINT_OP = "is compiled into a Print op with no source line that runs on every step"
    _PYEXECUTE = "runs through PyExecute (interpreter fallback), not a Print op, on every call"
    _FSTRING = ("runs through PyExecute at the default syntax level (the f-string formats the tensor in the "
                "interpreter: no Print op), on every call; under STRICT it is a Print op")

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "print" and "print" not in ctx.imports.names:
            if self._error_path(node, ctx):
                return
            scope = ctx.scope
            host = any(self._host_value(a, ctx) for a in node.args)
            fstring = not host and any(self._formats_tensor(a, ctx) for a in node.args)
            ctx.report(node, fix=None if host or fstring else self._fix(node, ctx),
                       what=" of a NumPy/host value" if host else (" of an f-string of a tensor" if fstring else ""),
                       how=self._PYEXECUTE if host else (self._FSTRING if fstring else self._PRINT_OP),
                       where=scope.short_name if scope else "graph")

    @staticmethod
    def _formats_tensor(e: ast.AST, ctx) -> bool:
        """An f-string with a tensor value in it (``f"x={x}"``). A constant in it
        (``{x.shape}``), or a tensor built right there (``{Tensor(x)}`` of a tuple literal),
        folds to a string and prints through a Print op (measured: 1 Print, 0 PyExecute)."""
        return isinstance(e, ast.JoinedStr) and any(
            isinstance(v, ast.FormattedValue) and ctx.kind(v.value).tensor_like
            and not (isinstance(v.value, ast.Call) and (ctx.qualname(v.value.func) or "").endswith(".Tensor"))
            for v in e.values)

    @classmethod
    def _host_value(cls, e: ast.AST, ctx, depth: int = 0) -> bool:
        """A printed value that is NumPy/host data, not a tensor or a constant: a value
        pulled to the host (``x.asnumpy()``), a ``numpy`` call, or a local bound (last
        assignment before the print) to one, or a subscript / arithmetic of those."""
        if depth > 4:
            return False
        if ctx.kind(e) is Kind.HOST:
            return True
        if isinstance(e, ast.Starred):
            return cls._host_value(e.value, ctx, depth + 1)
        if isinstance(e, ast.Call):
            q = ctx.qualname(e.func) or ""
            return q == "numpy" or q.startswith("numpy.")
        if isinstance(e, ast.Subscript):
            return cls._host_value(e.value, ctx, depth + 1)
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
            cls_node = class_node(ctx)  # `self.arr = np.array(...)` in __init__ (2.10: print(self.arr) 2 PyExecute)
            values = self_attr_values(cls_node, ctx).get(e.attr, []) if cls_node is not None else []
            return bool(values) and all(isinstance(v, ast.Call) and (ctx.qualname(v.func) or "").startswith("numpy.")
                                        for v in values)
        if isinstance(e, ast.BinOp):
            return cls._host_value(e.left, ctx, depth + 1) or cls._host_value(e.right, ctx, depth + 1)
        if isinstance(e, ast.Name):
            func = ctx.values.func if ctx.values is not None else None
            if func is None:
                return False
            last = last_assignment_before(func, e.id, e.lineno)
            return last is not None and cls._host_value(last.value, ctx, depth + 1)
        return False

    @staticmethod
    def _error_path(node: ast.Call, ctx) -> bool:
        """print(...) followed in its block by raise / exit(): an error message on a path
        that aborts (in a branch on a constant, MindSpore prunes it: no Print op)."""
        stmt = ctx.parent(node)
        block_owner = ctx.parent(stmt) if isinstance(stmt, ast.Expr) else None
        if block_owner is None:
            return False
        for field in ("body", "orelse", "finalbody"):
            block = getattr(block_owner, field, None)
            if isinstance(block, list) and stmt in block:
                for later in block[block.index(stmt) + 1:]:
                    if isinstance(later, ast.Raise):
                        return True
                    if isinstance(later, ast.Expr) and isinstance(later.value, ast.Call):
                        q = ctx.qualname(later.value.func) or getattr(later.value.func, "id", "")
                        if q in ("exit", "quit", "sys.exit", "os._exit"):
                            return True
        return False

    @staticmethod
    def _fix(node: ast.Call, ctx):
        if node.keywords:
            return None
        alias = next((name for name, dotted in ctx.imports.names.items() if dotted == "mindspore.ops"), None)
        if alias is None:
            return None
        f = node.func
        return Fix(f"replace print with {alias}.print_",
                   (Edit(f.lineno, f.col_offset, f.end_lineno, f.end_col_offset, f"{alias}.print_"),),
                   FixSafety.UNSAFE, drops=("print",))

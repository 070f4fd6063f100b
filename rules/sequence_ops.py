"""MSG421 sequence-op-fallback and MSG422 is-literal-on-variable: tuple/list operations and
identity tests that MindSpore 2.10 compiles natively only for some operand kinds and hands
to the interpreter (PyExecute) for the others.

Every fact was measured on MindSpore 2.10 CPU (``@jit`` functions and Cell ``construct``,
PyExecute/PyInterpret nodes counted in the validate IR; ``fixtures/labeled/fallback_*seq*``,
``fallback_*is_literal*``).
"""

from __future__ import annotations

import ast
from typing import Optional, Set

from msgraphlint.parse.astutil import walk_statements
from msgraphlint.rule import AST_CAPTURE, Invalid, Rule, Severity, Valid
from msgraphlint.infer.values import Kind

from msgraphlint.infer.hostvalues import Flow, short, under_string_dispatch
from msgraphlint.infer.provenance import rebound
from msgraphlint.infer.parsetime import MUTABLE


def _seq_names(ctx) -> frozenset:
    """Names the scope function ever assigns a tuple/list literal (statements only, no
    parents: the cheap pre-check before ``Flow``)."""
    func = ctx.values.func if ctx.values is not None else None
    if func is None:
        return frozenset()
    cached = getattr(ctx, "_msg421_seq_names", None)
    if cached is not None and cached[0] is func:
        return cached[1]
    names = set()
    for stmt in walk_statements(func.body):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Tuple, ast.List)):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    out = frozenset(names)
    ctx._msg421_seq_names = (func, out)
    return out


def _maybe_seq(e: ast.AST, ctx=None) -> bool:
    """A tuple/list literal, or a name the function assigns one (without ``ctx``: any name)."""
    if isinstance(e, (ast.Tuple, ast.List)):
        return True
    return isinstance(e, ast.Name) and (ctx is None or e.id in _seq_names(ctx))


def _sequence(ctx, e: ast.AST, flow: Optional[Flow]) -> Optional[ast.AST]:
    """The tuple/list literal ``e`` is, or a local name was last assigned."""
    if isinstance(e, (ast.Tuple, ast.List)):
        return e
    if isinstance(e, ast.Name) and flow is not None:
        src = flow.origin(e)
        if isinstance(src, (ast.Tuple, ast.List)):
            return src
    return None


def _element_class(ctx, e: ast.AST, flow: Optional[Flow]) -> str:
    if isinstance(e, ast.Starred):
        return "unknown"
    if _sequence(ctx, e, flow) is not None or isinstance(e, (ast.Dict, ast.Set)):
        return "sequence"
    if isinstance(e, ast.Constant):
        if isinstance(e.value, str):
            return "string"
        if e.value is None:
            return "None"
        if isinstance(e.value, (int, float, bool)):
            return "number"
        return "unknown"
    k = ctx.kind(e)
    if k.tensor_like:
        return "tensor"
    if k is Kind.NONE:
        return "None"
    if isinstance(e, ast.Call) and (ctx.qualname(e.func) or "").startswith("numpy."):
        return "NumPy array"
    return "unknown"


def _irregular(ctx, seq: ast.AST, flow: Optional[Flow]) -> Optional[str]:
    """What makes a tuple/list literal irregular (its elements are neither all numbers nor all
    tensors), or None. A sequence with an element of unknown kind is not judged."""
    classes: Set[str] = {_element_class(ctx, e, flow) for e in seq.elts}
    if not classes or "unknown" in classes:
        return None
    if classes in ({"number"}, {"tensor"}, {"string"}):
        return None
    if "sequence" in classes and len(classes) == 1:
        return "nested tuples/lists"
    return " and ".join(sorted(c + ("s" if c in ("tensor", "number", "string") else "") for c in classes))


def _mutable_scalar(ctx, e: ast.AST, at: ast.AST) -> bool:
    """``e`` is built only from constants and parameters every caller passes as
    ``ms.mutable(<number>)``: a variable Python scalar, not a tensor (`m[a == 1]` with such an
    ``a`` indexes a tuple of tensors natively; 2.10 CPU: no PyExecute)."""
    values = ctx.values
    pytypes = getattr(values, "param_pytypes", None) or {}
    names = [n for n in ast.walk(e) if isinstance(n, ast.Name)]
    if not names or any(isinstance(n, ast.Call) for n in ast.walk(e)):
        return False
    return all(pytypes.get(n.id) == "scalar" and not rebound(n.id, at, ctx) for n in names)


def _decided_by_constants(a: ast.AST, b: ast.AST) -> bool:
    """Python orders sequences by their first differing elements: when two constants differ
    before any element that is not a constant, the result is known at compile time
    (`(1, (x, x + 1)) < (2, (y, y - 1))` folds; 2.10 CPU, jit fullgraph: no PyExecute)."""
    for ea, eb in zip(a.elts, b.elts):
        if not (isinstance(ea, ast.Constant) and isinstance(eb, ast.Constant)):
            return False
        if ea.value != eb.value:
            return True
    return False


def _has_tensor(ctx, seq: ast.AST, flow: Optional[Flow], depth: int = 0) -> bool:
    for e in seq.elts:
        if ctx.kind(e).tensor_like:
            return True
        inner = _sequence(ctx, e, flow)
        if inner is not None and depth < 3 and _has_tensor(ctx, inner, flow, depth + 1):
            return True
    return False


def _varying_scalar(ctx, e: ast.AST, flow: Optional[Flow]) -> bool:
    """A Python scalar MindSpore does not fold: an `ms.mutable(...)`, a value taken from a
    tensor (`int(t)`, `t.item()`), or a local assigned under a tensor-valued `if`/`while`."""
    if isinstance(e, ast.Call) and ctx.qualname(e.func) in MUTABLE:
        return True
    k = ctx.kind(e)
    if k is Kind.HOST:
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in ("int", "float", "bool") \
            and e.args and ctx.kind(e.args[0]).tensor_like:
        return True
    if not isinstance(e, ast.Name) or flow is None:
        return False
    src = flow.origin(e)
    if isinstance(src, ast.Call) and ctx.qualname(src.func) in MUTABLE:
        return True
    for assign in flow.assigns.get(e.id, ()):
        node = assign
        while node is not None and node is not flow.func:
            parent = flow.parent(node)
            if isinstance(parent, (ast.If, ast.While)) and node is not parent.test and _tensor_test(ctx, parent.test):
                return True
            node = parent
    return False


def _tensor_test(ctx, test: ast.AST) -> bool:
    if ctx.kind(test).tensor_like:
        return True
    if isinstance(test, ast.Compare):
        return any(ctx.kind(o).tensor_like for o in [test.left] + list(test.comparators))
    if isinstance(test, ast.BoolOp):
        return any(_tensor_test(ctx, v) for v in test.values)
    return False


class SequenceOpFallback(Rule):
    code = "MSG421"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "sequence-op-fallback"
    summary = ("`in` / `*` / `.count()` / `.index()` / `<` on tuples or lists that mix tensors, strings and nested "
               "sequences, a tuple/list indexed by a tensor, a list `==` a number: interpreter fallback.")
    message = ("`{expr}` has no graph form: it runs in the Python interpreter\n"
               "In graph-mode code ({where}) {why}, so MindSpore runs it in the Python interpreter (PyExecute), "
               "which cuts the graph.")
    hint = ("keep tuples/lists homogeneous (tensors apart from strings, numbers and nested tuples) and index them "
            "with Python ints")
    severity = Severity.WARNING
    rationale = """
        MindSpore compiles tuple and list operations natively when the sequence holds only
        numbers or only tensors, and the operands are constants or tensors. Other operand
        kinds go to the interpreter. Measured on MindSpore 2.10 CPU (`@jit`, PyExecute nodes
        in the validate IR):

        | operation | native (0 nodes) | interpreter |
        |---|---|---|
        | `n in seq` (`n = ms.mutable(1)`) | `seq = (1, 2, 3)` | `(1, Tensor(...), "m")` 1, `((1, 1), 1)` 1 |
        | `n * seq` | `(1, 2)`; `2 * (x, y)` | `((1, 1), 1)` 1 |
        | `seq.count(v)`, `seq.index(v)` | `(x, y, x).count(x)`, `(x, y).index(y)`, `(1, 2, 1).count(1)` | `(x, y, "a", 1).count(x)` 1, `((x, y), (x + 1, y)).count((x, y))` 1, `(x, y, "a", 1).index(x)` 1 |
        | `seq[i]` | `[x, y][1]`, `[x, y][ms.mutable(1)]`, `m[k]` in `for k in range(2)` | `(1, 2, 3, 4)[t]` 1, `(x, y)[t]` 1, `[x, y][t]` 3 (`t` a tensor); `[x, "a"][ms.mutable(0)]` 2 |
        | `m < n` | `(1, (x, x + 1)) < (2, (y, y - 1))` (decided by the leading constants: folded, jit `fullgraph=True`) | `((x, x + 1), x + 2) < ((y, y - 1), y + 2)` 1 |
        | `a != 2`, `a == "s"` (Cell `construct`, in an `if`) | `a = (1, 2)`; `a != None`; `self.pad != 0` | `a = [1, 2]` 3, even with constants only |

        (`x in (1, y, "m")` with a tensor `x`, `(x, x + 1) == (y, y - 1)` and `x in [y, x + 1]`
        are native; a flat `(x, x + 1) < (y, y - 1)` does not compile at all: `TypeError: For
        primitive 'tuple_lt', the input element must be scalar`.)

        Reported when the sequence is a tuple/list literal (or a local name last assigned
        one) whose elements are all of known kinds; elements of unknown kind are not judged.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            from mindspore import ops

            @ms.jit
            def fn(x, y):
                parts = (x, y, x + 1)
                total = x
                for k in range(3):
                    total = total + parts[k]
                return total * parts.count(x) + parts.index(y)
        """, note="tensors only, indexed by Python ints"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                names = ("a", "b", 1)
                return x * names.index("b")
        """, note="constants only: folded at compile time"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x, y):
                m = (1, (x, x + 1))
                n = (2, (y, y - 1))
                return m < n, m >= n
        """, note="the leading constants differ: decided at compile time (no PyExecute on 2.10)"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x, y):
                return x, x in (1, y, "m")
        """, note="a tensor operand of `in` is native"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x, y):
                m = (x, y, "a", 1)
                return x * m.index(y)
        """, line=6),
        Invalid("""
            import mindspore as ms
            from mindspore import Tensor

            @ms.jit
            def fn(x, y, i):
                scales = (x, y)
                return scales[i] * 2
        """, line=7, note="a tuple indexed by a tensor"),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                n = ms.mutable(1)
                return x, n in ((1, 1), 1)
        """, line=6),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    sizes = [1, 2]
                    if sizes != 2:
                        return x + 1
                    return x
        """, line=6, note="a list against a number: no graph form even on constants"),
    ]

    def visit_Subscript(self, node: ast.Subscript, ctx) -> None:
        if not isinstance(node.ctx, ast.Load) or isinstance(node.slice, ast.Slice) or not _maybe_seq(node.value, ctx):
            return
        tensor_index = ctx.kind(node.slice).tensor_like and not _mutable_scalar(ctx, node.slice, node)
        if not tensor_index and not isinstance(node.slice, (ast.Name, ast.Call)):
            return  # a literal index (the common case): native
        flow = Flow.of(ctx)
        seq = _sequence(ctx, node.value, flow)
        if seq is None:
            return
        if tensor_index:
            why = "a tuple/list indexed by a tensor has no graph form"
        elif _varying_scalar(ctx, node.slice, flow) and _irregular(ctx, seq, flow):
            why = f"indexing a tuple/list that mixes {_irregular(ctx, seq, flow)} with a variable index has no graph form"
        else:
            return
        self._report(node, ctx, why)

    def visit_Compare(self, node: ast.Compare, ctx) -> None:
        operands = [node.left] + list(node.comparators)
        if not any(_maybe_seq(o, ctx) for o in operands):
            return
        flow = Flow.of(ctx)
        for op, left, right in zip(node.ops, operands, operands[1:]):
            if isinstance(op, (ast.In, ast.NotIn)):
                seq = _sequence(ctx, right, flow)
                what = _irregular(ctx, seq, flow) if seq is not None else None
                if what and _varying_scalar(ctx, left, flow):
                    self._report(node, ctx, f"`in` with a variable scalar on a tuple/list that mixes {what} "
                                            "has no graph form")
                    return
            elif isinstance(op, (ast.Eq, ast.NotEq)):
                for seq_e, other in ((left, right), (right, left)):
                    seq = _sequence(ctx, seq_e, flow)
                    if isinstance(other, ast.Name) and flow is not None:
                        other = flow.origin(other)  # `y = 2; x != y`
                    if isinstance(seq, ast.List) and isinstance(other, ast.Constant) \
                            and isinstance(other.value, (int, float, str)) and not isinstance(other.value, bool):
                        self._report(node, ctx, "comparing a list with a number or string has no graph form "
                                                "(a tuple compares natively)")
                        return
            elif isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
                a, b = _sequence(ctx, left, flow), _sequence(ctx, right, flow)
                if a is not None and b is not None and (_has_tensor(ctx, a, flow) or _has_tensor(ctx, b, flow)) \
                        and any(_sequence(ctx, e, flow) is not None for e in list(a.elts) + list(b.elts)) \
                        and not _decided_by_constants(a, b):
                    self._report(node, ctx, "ordering comparison of nested tuples/lists of tensors has no graph form")
                    return

    def visit_BinOp(self, node: ast.BinOp, ctx) -> None:
        if not isinstance(node.op, ast.Mult) or not (
                (_maybe_seq(node.left, ctx) and isinstance(node.right, (ast.Name, ast.Call)))
                or (_maybe_seq(node.right, ctx) and isinstance(node.left, (ast.Name, ast.Call)))):
            return
        flow = Flow.of(ctx)
        for seq_e, n in ((node.left, node.right), (node.right, node.left)):
            seq = _sequence(ctx, seq_e, flow)
            what = _irregular(ctx, seq, flow) if seq is not None else None
            if what and _varying_scalar(ctx, n, flow):
                self._report(node, ctx, f"repeating a tuple/list that mixes {what} a variable number of times "
                                        "has no graph form")
                return

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not (isinstance(f, ast.Attribute) and f.attr in ("count", "index") and node.args
                and _maybe_seq(f.value, ctx)):
            return
        flow = Flow.of(ctx)
        seq = _sequence(ctx, f.value, flow)
        if seq is None:
            return
        what = _irregular(ctx, seq, flow)
        if not what:
            return
        args = [a for a in node.args]
        if not (_has_tensor(ctx, seq, flow) or any(not ctx.kind(a).constant for a in args)):
            return  # constants only: folded
        self._report(node, ctx, f"`.{f.attr}()` on a tuple/list that mixes {what} has no graph form")

    def _report(self, node: ast.AST, ctx, why: str) -> None:
        if under_string_dispatch(ctx, node):
            return
        ctx.report(node, expr=short(ctx, node, 50), why=why, where=ctx.where)


class IsLiteralOnVariable(Rule):
    code = "MSG422"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "is-literal-on-variable"
    summary = "`v is 3` / `v is not \"s\"` on a value MindSpore does not fold: interpreter fallback."
    message = ("`{expr}` tests identity with a literal on a run-time value\n"
               "In graph-mode code ({where}) MindSpore runs it in the Python interpreter (PyExecute); `==`/`!=` "
               "compile natively (and `is` with a literal is a Python bug: SyntaxWarning).")
    hint = "compare values with `==` / `!=`"
    severity = Severity.WARNING
    rationale = """
        `is`/`is not` against an int, float or string literal compares object identity,
        which Python itself warns about (`SyntaxWarning: "is" with a literal`). MindSpore
        folds it when the other side is a compile-time constant, and otherwise hands it
        to the interpreter. Measured on MindSpore 2.10 CPU (`@jit`, validate IR):
        `a = 0; if x > 1: a = a + 1` then `a is 1` 1 PyExecute node; `int(x) is 3` 1;
        `ms.mutable(1) is 1` 1; `a = 1; a is 1` 0; `a == 1` after the same branch 0.
        `is None`, `is True`/`is False` and `is` between two names are not reported.
    """
    VALID = [
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                a = 0
                if x > 1:
                    a = a + 1
                return x, a == 1
        """, note="`==` compiles natively"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x, mask=None):
                if mask is None:
                    return x
                return x * mask
        """, note="`is None` is resolved at compile time"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                a = 0
                if x > 1:
                    a = a + 1
                return x, a is 1
        """, line=8),
    ]

    def visit_Compare(self, node: ast.Compare, ctx) -> None:
        if not any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            return
        operands = [node.left] + list(node.comparators)
        for op, left, right in zip(node.ops, operands, operands[1:]):
            if not isinstance(op, (ast.Is, ast.IsNot)):
                continue
            for lit, other in ((right, left), (left, right)):
                if isinstance(lit, ast.Constant) and isinstance(lit.value, (int, float, str, bytes)) \
                        and not isinstance(lit.value, bool) and _varying_scalar(ctx, other, Flow.of(ctx)):
                    if not under_string_dispatch(ctx, node):
                        ctx.report(node, expr=short(ctx, node, 50), where=ctx.where)
                    return

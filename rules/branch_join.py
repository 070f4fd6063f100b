"""MSG108 unjoinable-branches and MSG109 tensor-sized-list: values graph mode cannot join where
a tensor decides the branch.

When a condition is a tensor, MindSpore compiles a ``Switch`` and must give the values that
leave the two branches one abstract type (the *join*). A Tensor and a Python scalar, a Tensor
and a tuple, two Python scalars of different types or two tensors of different dtypes do not
join, and the compile fails with ``TypeError: Cannot join the return values of different
branches, perhaps you need to make them equal.``; a list whose length a tensor decides makes
MindSpore 2.10 fail or crash. Every case was compiled on MindSpore 2.10.0 CPU
(``fixtures/labeled/control_flow_*_join_*``).

The analysis is ``msgraphlint/infer/joins.py`` (what each name holds on each path, and which pairs clash);
the calls that pass unjoinable arguments are found by ``msgraphlint/infer/join_calls.py``.
"""

from __future__ import annotations

import ast
from typing import Dict

from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid

from msgraphlint.infer.join_calls import CallSites, parameter_joins
from msgraphlint.infer.joins import encloses_another, Joins, line_text
from .control_flow import tensor_decider


def _join_select_fix(ctx, node, a: str, b: str):
    """MSG108: the MSG101/MSG103 select rewrite (``ops.where``), always unsafe here: the two
    values are of kinds MindSpore cannot join, and ops.where makes both one tensor. None when
    both are tensors (of two dtypes: ops.where would change one branch's dtype) or either is
    not a tensor or a Python number (a tuple)."""
    tensors = ["Tensor" in d and "Python" not in d for d in (a, b)]
    numbers = [any(w in d for w in ("Python int", "Python float", "Python bool")) for d in (a, b)]
    if all(tensors) or not all(t or n for t, n in zip(tensors, numbers)):
        return None
    from dataclasses import replace
    from msgraphlint.fix.codemods import where_if_fix, where_ifexp_fix

    if isinstance(node, ast.IfExp):
        fix = where_ifexp_fix(ctx, node)
    else:
        parent = ctx.parent(node)
        if not (isinstance(parent, ast.If) and parent.test is node
                and not ctx.source.line(parent.lineno).lstrip().startswith("elif")):
            return None
        fix = where_if_fix(ctx, parent)
    if fix is None:
        return None
    why = ("the code after it uses the value as a tensor: ops.where makes a Python number, or a tensor of "
           "another dtype, one tensor of the promoted dtype and the broadcast shape")
    desc = fix.description
    desc = desc[:-1] + f"; and {why})" if desc.endswith(")") and "(unsafe:" in desc else f"{desc} (unsafe: the same only when {why})"
    return replace(fix, safety=FixSafety.UNSAFE, proof="", description=desc)


class UnjoinableBranches(Rule):
    code = "MSG108"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    fix_safety = FixSafety.UNSAFE  # ops.where where one value is a Python number (msgraphlint/fix/codemods.py)
    name = "unjoinable-branches"
    summary = ("A tensor-decided branch whose two sides give values graph mode cannot join (a Tensor and a Python "
               "scalar or tuple, scalars of different types, tensors of different dtypes): the compile fails.")
    message = ("`{expr}`: {a} and {b} cannot be joined\n"
               "{what} ({where}), and {subject} {a} (line {la}: `{ta}`) and {b} (line {lb}: `{tb}`): MindSpore "
               "cannot join them, so it fails to compile (`TypeError: Cannot join the return values of different "
               "branches`).")
    hint = ("make both branches give the same kind: a Tensor on both sides (`ops.zeros_like(x)`, `Tensor(0, x.dtype)`, "
            "`.astype(...)` to one dtype), or pick with `ops.select`/`ops.where`")
    severity = Severity.ERROR
    rationale = """
        A condition that is a tensor is decided on the device: MindSpore 2.10 compiles a
        `Switch` and joins what leaves the two branches (the value returned, a variable
        assigned differently and used afterwards, the result of `a if t else b`, of
        `t and y` / `t or y`) into one abstract value. Some values do not join, and the
        call fails to compile with `TypeError: Cannot join the return values of different
        branches, perhaps you need to make them equal.` Measured on 2.10 CPU, with `x < y`
        or `x.sum() > 0` on tensor arguments as the condition, the compile failed for:

        * a Tensor against a Python `int`, `float`, `bool`, `str` or tuple (`return x * 2` /
          `return 0`; `a = x * 2` / `a = 0` then `return a`; `loss = 0` before
          `if t: loss = loss + x`; `x * 2 if t else 0`; a tensor `and`/`or` a Python value,
          also inside an `if` test: `if x.sum() > 0 and y is None:` and
          `if x.sum() > 0 and self.flag:` failed, while `if self.flag and x.sum() > 0:`
          compiled because the Python operand comes first and is folded);
        * Python scalars of different types (`1` / `1.5`, `1` / `True`, `"a"` / `1`);
        * tensors of different dtypes (`x` float32 / `y` int64; `astype(int32)` /
          `astype(int64)`; `astype(float16)` / float32; `(x > 0) and y` with `y` float32:
          a comparison is a bool tensor; `foo(Tensor([1]), Tensor([1.0]))` with `x and y`);
        * equal-length tuples whose elements clash (`return x, 0` / `return x, x`);
        * a CellList or tuple of Cells indexed by a tensor (`self.layers[index](x)`, a
          switch_layer) whose Cells return a tuple (`return x, x * 2`) and a tensor
          (`return x * x`); `nn.ReLU()` and `x * x` compiled.

        The same code compiled when the kinds agree or the branch is decided at compile
        time: `None` against a Tensor or an int (`return x * 2` / `return None`, and
        `x * 2 if t else None`), tensors of different shapes, tuples of different
        lengths, two ints (`1` / `2`), a variable assigned differently but not used after
        the `if`, one branch returning early with the rest of the function returning the
        same kind, and any condition that is a Python value (`if y is None: return 0`,
        `if self.training: return 0`: folded, no Switch).

        Dtypes are taken only from what the code spells: `Tensor(data, dtype)`,
        `Tensor([1])` (int64) and `Tensor([1.0])` (float32), `astype`/`ops.cast`,
        comparisons (bool), and the arguments the module's own call sites pass. Two
        tensors of unknown dtype are never reported.
    """
    VALID = [
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x, y):
                if x < y:
                    return x * 2
                z = y - 1
                return z
        """, note="one branch returns early, the rest of the function returns a tensor too"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, bias=None):
                    if bias is None:
                        return 0
                    if self.training:
                        return x * 2
                    return x + bias
        """, note="compile-time conditions are folded: nothing is joined"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                if x.sum() > 0:
                    return x * 2
                return None
        """, note="None joins with a Tensor on 2.10"),
        Valid("""
            import mindspore as ms
            from mindspore import Tensor

            @ms.jit
            def fn(x, y):
                return x and y

            fn(Tensor([1.0]), Tensor([2.0]))
        """, note="two float32 tensors join"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x, y):
                if x.sum() > 0:
                    a = x * 2
                    b = 1
                else:
                    a = y
                    b = 2.5
                return a
        """, note="`b` differs but is not used after the branch"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            from mindspore import Tensor

            @ms.jit
            def fn(x, y):
                if x < y:
                    return x * 2
                return 0

            fn(Tensor(2.0), Tensor(6.0))
        """, line=6),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    loss = 0
                    if x.sum() > 0:
                        loss = loss + x.mean()
                    return loss
        """, line=6, note="`loss` is an int on one path and a tensor on the other"),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                return x * 2 if x.sum() > 0 else 0
        """, line=5),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x, y=None):
                if x.sum() > 0 and y is None:
                    return x * 2
                return x
        """, line=5, note="a tensor `and` a Python bool: the `and` itself is a Switch"),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                if x.sum() > 0:
                    a = x.astype(ms.int32)
                else:
                    a = x.astype(ms.int64)
                return a
        """, line=5, note="tensors of different dtypes"),
        Invalid("""
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Pair(nn.Cell):
                def construct(self, x):
                    return x, x * 2

            class Square(nn.Cell):
                def construct(self, x):
                    return x * x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([Pair(), Square()])

                def construct(self, x, index):
                    return self.layers[index](x)

            Net()(Tensor([1.0]), Tensor(1, ms.int32))
        """, line=19, note="a CellList indexed by a tensor whose Cells return a tuple and a tensor"),
    ]

    def check_module(self, ctx) -> None:
        """Entries whose ``x and y`` joins two of their own parameters, called with different
        argument kinds at different sites of the module (one Cell class used with Python
        numbers at one call and with tensors at another): the scope's own kinds are merged to
        unknown, so each call that passes unjoinable values is reported where it is made."""
        entries = parameter_joins(ctx)
        if entries:
            CallSites(ctx, entries).scan(ctx.source.tree.body, {}, {})

    # the walk marks scopes where a tensor decides something; only those are analysed
    def _mark(self, ctx) -> None:
        ctx.memo["join_candidate"] = ctx.values

    def visit_If(self, node: ast.If, ctx) -> None:
        if tensor_decider(ctx, node.test) is not None:
            self._mark(ctx)

    visit_IfExp = visit_If

    def visit_BoolOp(self, node: ast.BoolOp, ctx) -> None:
        if tensor_decider(ctx, node.values[0]) is not None:
            self._mark(ctx)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if isinstance(node.func, ast.Subscript) and ctx.kind(node.func.slice).tensor_like:
            self._mark(ctx)

    def leave_scope(self, scope, ctx) -> None:
        values = ctx.values
        if values is None or not isinstance(values.func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        if ctx.memo.get("join_candidate") is not values:
            return  # no tensor decides a branch in this scope
        joins = Joins(ctx, values.func)
        done = set()
        problems = joins.problems
        for node, subject, a, b in problems:
            if id(node) in done or encloses_another(node, problems, ctx):
                continue
            done.add(id(node))
            if isinstance(node, (ast.BoolOp, ast.IfExp)):
                expr = line_text(ctx, node)
                what = f"`{expr}` picks a value by a tensor's truth"
            elif isinstance(node, ast.Call):
                expr = line_text(ctx, node)
                what = f"`{expr}` picks a Cell by a tensor index (a switch_layer)"
            else:
                parent = ctx.parent(node)
                kw = "elif" if isinstance(parent, ast.If) and ctx.source.line(parent.lineno).lstrip().startswith("elif") else "if"
                expr = f"{kw} {line_text(ctx, node)}"
                what = f"`{expr}` branches on a tensor value"
            ctx.report(node, expr=expr, what=what, where=ctx.where, subject=subject, a=a.describe(), b=b.describe(),
                       la=getattr(a.node, "lineno", "?"), lb=getattr(b.node, "lineno", "?"),
                       ta=line_text(ctx, a.node), tb=line_text(ctx, b.node), fix=_join_select_fix(ctx, node, a.describe(), b.describe()))


def _appends(stmts, names: frozenset) -> Dict[str, int]:
    """How many ``name.append/extend/insert(...)`` calls on each local list the statements
    make (nested function bodies excluded)."""
    out: Dict[str, int] = {}
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend", "insert") \
                and isinstance(n.func.value, ast.Name) and n.func.value.id in names:
            out[n.func.value.id] = out.get(n.func.value.id, 0) + 1
        stack.extend(ast.iter_child_nodes(n))
    return out


def _made_in(stmts) -> frozenset:
    """Names the statements (nested function bodies excluded) bind to a new list."""
    out = set()
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.ListComp)):
            out.update(t.id for t in n.targets if isinstance(t, ast.Name))
        stack.extend(ast.iter_child_nodes(n))
    return frozenset(out)


def _local_lists(ctx, func: ast.AST) -> frozenset:
    memo = ctx.memo.setdefault(("local_lists", id(func)), {})
    if "v" not in memo:
        names = set()
        for n in ast.walk(func):
            if isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.ListComp)) or (
                    isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
                    and n.value.func.id == "list"):
                names.update(t.id for t in n.targets if isinstance(t, ast.Name))
        memo["v"] = frozenset(names)
    return memo["v"]


class TensorSizedList(Rule):
    code = "MSG109"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tensor-sized-list"
    summary = ("A list whose length a tensor decides (a comprehension filtered by a tensor condition, `append` "
               "under a tensor `if`): MindSpore 2.10 fails to compile it or crashes.")
    message = ("{what}: the list's length depends on a tensor\n"
               "In {where} the list's length depends on a tensor value, which graph mode cannot join; it fails to "
               "compile on MindSpore 2.10 (`RuntimeError: The pointer[...] is null`) or the process crashes "
               "(segmentation fault).")
    hint = ("keep the length fixed: compute every element and mask the unwanted ones (`ops.where(cond, v, 0)`), "
            "or filter outside the graph")
    severity = Severity.ERROR
    rationale = """
        A list in graph mode has a length fixed at compile time. When a tensor condition
        decides whether an element is added, the two branches of the Switch hold lists of
        different lengths. Measured on MindSpore 2.10 CPU:

        * `[a + i for i in range(5) if (a + i).sum() > 10]` in an `ms.jit` function, and
          `out.append(x + i)` under `if (x + i).sum() > 5:` in a `for i in range(3)` loop,
          killed the Python process with a segmentation fault (exit status 139, nothing
          printed);
        * the same in a Cell's `construct` (`[x * i for i in range(3) if (x * i).sum() > 2]`,
          returned or passed to `len`, `sum(... for ... if <tensor>)`, the `append` loop)
          raised `RuntimeError: The pointer[seq_abs] is null.` (or `pointer[input_1]`);
        * a filter on a Python value (`if i % 2 == 0`) compiled (the list is built at
          compile time), and so did appending on both sides of the `if` and appending
          `ops.where(cond, y, ops.zeros_like(y))` unconditionally.

        These are default-level facts (labeled `control_flow_pos_join_listcomp_tensor_filter`
        and `control_flow_pos_join_append_under_tensor_if`); under STRICT
        (`MS_DEV_JIT_SYNTAX_LEVEL=0`) the two Cells compiled.

        MindSpore's own test of the comprehension case expects `Cannot join the return
        values of different branches` (it is skipped upstream: "Join error msg change").

        What to do: give the list a fixed length (compute every element and zero or mask
        the unwanted ones with `ops.where`), or filter outside the graph.
    """
    VALID = [
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                return [x + i for i in range(4) if i % 2 == 0]
        """, note="a filter on a Python value: the list is built at compile time"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    out = []
                    for i in range(3):
                        y = x + i
                        out.append(ops.where(y.sum() > 5, y, ops.zeros_like(y)))
                    return out
        """, note="a fixed length, the unwanted elements masked"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    parts = [x * i for i in range(3) if (x * i).sum() > 2]
                    return len(parts)
        """, line=5),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                out = []
                for i in range(3):
                    if (x + i).sum() > 5:
                        out.append(x + i)
                return out
        """, line=7, note="append under a tensor condition"),
    ]

    def _comp(self, node, ctx) -> None:
        for gen in node.generators:
            for cond in gen.ifs:
                if tensor_decider(ctx, cond) is not None:
                    ctx.report(cond, what=f"the comprehension filter `if {line_text(ctx, cond)}`", where=ctx.where)
                    return

    visit_ListComp = visit_GeneratorExp = _comp

    def visit_If(self, node: ast.If, ctx) -> None:
        if ctx.values is None or tensor_decider(ctx, node.test) is None:
            return
        lists = _local_lists(ctx, ctx.values.func)
        if not lists:
            return
        # a list made inside a branch (`parts = []` then a static loop of appends) has a length
        # fixed within that branch: measured, it compiles (control_flow_pos_switch_list_built_in_branch)
        body = _appends(node.body, lists - _made_in(node.body))
        orelse = _appends(node.orelse, lists - _made_in(node.orelse))
        for name in sorted(set(body) | set(orelse)):
            if body.get(name, 0) != orelse.get(name, 0):
                ctx.report(node.test, what=f"`{name}` grows under `if {line_text(ctx, node.test)}`", where=ctx.where)
                return

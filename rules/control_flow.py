"""MSG101-MSG104: control flow decided by a tensor value in graph-mode code.

Every fact below was measured with MindSpore 2.10.0 on CPU (GRAPH_MODE, small Cells with
a (4, 8) float32 input, IR dumped with ``MS_DEV_SAVE_GRAPHS=1``; kernel graphs counted
from ``graph_build_*`` files, ``Switch`` nodes from the ``validate`` IR; fusion with
``MS_DEV_GRAPH_KERNEL_FLAGS=--opt_level=2``), and by the labeled snippets in
``fixtures/labeled/control_flow_*``.

Only conditions whose value analysis says *tensor* (or Parameter) are reported. Compile-
time tests never are: ``is None``/``is not None``, ``self.training`` and other ``__init__``
attributes, ``x.shape``/``x.ndim``/``x.dtype``/``len(x.shape)``, ``isinstance``, literals
and module constants. A condition that is only a bare ``construct`` parameter (``if flag:``,
``if n > 0:``) is reported only when the body also uses that parameter as a tensor
(``flag.sum()``, ``n.shape``...): otherwise it is as likely a Python flag (which recompiles
per value instead: see MSG304).
"""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid
from msgraphlint.fix.codemods import where_elif_fix, where_if_fix, where_ifexp_fix

from msgraphlint.infer.deciders import tensor_decider  # (capture_modes and branch_join import it from here too)
from msgraphlint.infer.params import SHARED_USES

_USES = SHARED_USES



def _is_raise_guard(node: ast.If) -> bool:
    return any(isinstance(s, ast.Raise) for s in node.body)


def _is_elif(ctx, node: ast.If) -> bool:
    return ctx.source.line(node.lineno).lstrip().startswith("elif")


def _cond_text(ctx, node: ast.AST, limit: int = 50) -> str:
    """The node's source, whitespace folded, cut to ``limit`` characters. Only as much of the
    source is read as the cut shows (a rule asks at every link of a 3,000-link conditional
    chain, whose whole text is the rest of the chain: reading it all each time is quadratic)."""
    end = getattr(node, "end_lineno", None)
    if end is None or getattr(node, "end_col_offset", None) is None:
        text = " ".join(ast.unparse(node).split())
    else:
        parts, size = [], 0
        for ln in range(node.lineno, end + 1):
            s = ctx.source.line(ln)
            if ln == end:
                s = s[:ctx.char_col(ln, node.end_col_offset)]
            if ln == node.lineno:
                s = s[ctx.char_col(ln, node.col_offset):]
            cut = s[:8 * limit]
            if len(" ".join(cut.split())) > limit:  # enough to show: the rest cannot change the cut
                parts.append(cut)
                break
            parts.append(s)
            size += len(" ".join(s.split())) + 1
            if size > limit + 1:
                break
        text = " ".join(" ".join(parts).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TensorIf(Rule):
    code = "MSG101"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tensor-if"
    fix_safety = FixSafety.SAFE  # ops.where when proved (msgraphlint/fix/codemods.py), else unsafe
    summary = "`if`/`elif` whose condition is a tensor value: compiled into a Switch with branch subgraphs."
    message = ("`{what} {cond}` branches on a tensor value\n"
               "In graph-mode code ({where}) MindSpore compiles it into a Switch with separate branch subgraphs "
               "(more kernel graphs, no fusion across the branch).")
    hint = ("compute both values and pick one with `ops.select(cond, a, b)` / `ops.where(cond, a, b)` "
            "(or multiply by a mask); keep `if` for compile-time tests (`is None`, shapes, `self.training`)")
    severity = Severity.WARNING
    rationale = """
        In graph mode an `if` is resolved at compile time when its condition is a Python
        value (`is None`, `self.training`, shapes, dtypes, config flags). When the
        condition is a tensor, the branch can only be decided on the device, at run time:
        MindSpore 2.10 compiles a `Switch` node plus one subgraph per branch, and the
        kernel graph is split at the branch.

        Measured on CPU with a small Cell (`y = x * 2 + 1; if y.sum() > 0: y = y * 3 - 1;
        return ops.relu(y) * 2`): 3 kernel graphs and a `Switch` in the validate IR, where
        the same computation written with `ops.where(y.sum() > 0, y * 3 - 1, y)` compiles
        into 1 kernel graph with a `Select` and no Switch. With graph-kernel fusion on, the
        `if` version fuses each piece separately (`Mul+Add+ReduceSum` before the branch,
        `Mul+Sub` inside it, `ReLU+Mul` after it: 3 fused kernels in 3 kernel graphs), so
        no fusion crosses the branch. Every labeled `control_flow` positive (an `if` on a
        reduction, on an element `x[0, 0] > 0`, on a tensor held in a variable, on
        `ops.norm(x)`, in a helper, in an `ms.jit` function) compiled into 2 to 4 kernel
        graphs with a Switch, and gave PyNative's result: the cost is speed, not
        correctness. A tensor-valued `elif` is the same Switch, nested in the `else` of
        the first one.

        What to do: when both branches compute a value of the same shape, compute both and
        select: `y = ops.where(y.sum() > 0, y * 3 - 1, y)` (the condition broadcasts), or
        `ops.select(mask, a, b)` elementwise, or a mask product (`y * m + z * (1 - m)`). An
        early `return` on a tensor condition becomes a select of the two results.
        Conditions that are compile-time values are never reported: `is None`,
        `self.training` and other `__init__` attributes, shape/rank/dtype tests,
        `len(x.shape)`, `isinstance`, literals and module constants (measured: no Switch,
        1 kernel graph). Tensor attributes that are not Parameters are graph constants
        too: with `self.limit = Tensor(0.5)`, `if self.limit > 1.0:` and
        `if (self.limit * 2).max() > 3.0:` were folded (measured: no Switch, 1 kernel
        graph), while a Parameter counter `if self.step % 4 == 0:` compiled into 3 kernel
        graphs with a Switch and is reported. A bare `construct` parameter (`if flag:`),
        or a name unpacked from a sub-Cell's result (`x, H, W = self.patch_embed(x)`), is
        reported only when the body uses it as a tensor (`flag.astype(...)`): otherwise it
        is as likely a Python value (a flag recompiles per value instead: MSG304).
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is not None:
                        x = x * mask
                    return x + 1
        """, note="`is not None` is resolved at compile time"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dropout = nn.Dropout(p=0.1)

                def construct(self, x):
                    if self.training:
                        x = self.dropout(x)
                    return x * 2
        """, note="`self.training` is a compile-time flag"),
        Valid("""
            import mindspore as ms
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    if len(x.shape) == 3 and x.shape[0] > 1:
                        x = x.reshape(-1, x.shape[-1])
                    if x.dtype == ms.float16:
                        x = x.astype(ms.float32)
                    return x * 2
        """, note="shape, rank and dtype tests are constants in graph mode"),
        Valid("""
            import mindspore.nn as nn

            USE_NORM = True

            class Net(nn.Cell):
                def __init__(self, has_bias=False):
                    super().__init__()
                    self.has_bias = has_bias
                    self.norm = nn.LayerNorm((8,))

                def construct(self, x):
                    if USE_NORM:
                        x = self.norm(x)
                    if self.has_bias and isinstance(x, tuple):
                        x = x[0]
                    return x
        """, note="module constants, config attributes and isinstance"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.where(x.sum() > 0, x * 3, x - 3)
                    return ops.select(x > 0, y, -y)
        """, note="the native replacement"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, use_bias):
                    if use_bias:
                        return x + 1
                    return x
        """, note="a bare parameter used only as a flag: probably a Python bool (see MSG304)"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.Dense(8, 8) for _ in range(3)])

                def construct(self, x):
                    for layer in self.layers:
                        x = layer(x)
                    x = x + x
                    return x
        """, note="a for over a CellList is unrolled; `x = x + y` is plain dataflow"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    if y.sum() > 0:
                        y = y - 1
                    return y
        """, line=6),
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def __init__(self, use_abs=False):
                    super().__init__()
                    self.use_abs = use_abs

                def construct(self, x):
                    cond = x.mean() > 0
                    if self.use_abs:
                        y = ops.abs(x)
                    elif cond:
                        y = x * 2
                    else:
                        y = x - 1
                    return y
        """, line=13, note="elif on a tensor held in a variable; the config test is fine"),
        Invalid("""
            import mindspore.nn as nn

            def soft_clip(x):
                if x.abs().max() > 2:
                    x = x / 2
                return x

            class Net(nn.Cell):
                def construct(self, x):
                    return soft_clip(x * 3) + 1
        """, line=4, note="in a helper: reported there (once: the helper is in the same file)"),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x, w):
                if (x @ w)[0, 0] > 0:
                    return x * 2
                return x
        """, line=5, note="in an ms.jit function"),
    ]

    def visit_If(self, node: ast.If, ctx) -> None:
        if _is_raise_guard(node):
            return  # MSG104
        cond = tensor_decider(ctx, node.test)
        if cond is not None:
            elif_ = _is_elif(ctx, node)
            ctx.report(node.test, what="elif" if elif_ else "if", cond=_cond_text(ctx, node.test), where=ctx.where,
                       fix=where_elif_fix(ctx, node) if elif_ else where_if_fix(ctx, node))


class TensorWhile(Rule):
    code = "MSG102"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tensor-while"
    summary = "`while` whose condition is a tensor value: a run-time loop subgraph, not unrolled."
    message = ("`while {cond}` loops on a tensor value\n"
               "In graph-mode code ({where}) MindSpore compiles a run-time loop (Switch + loop subgraphs, not "
               "unrolled, no fusion across iterations).")
    hint = ("use a fixed trip count (`for _ in range(N)` is unrolled) and freeze finished elements with "
            "`ops.select`/`ops.where`, or move the data-dependent loop out of the graph")
    severity = Severity.WARNING
    rationale = """
        A `while` over a Python counter (`i = 0; while i < 3`) is unrolled at compile time.
        A `while` whose condition is a tensor cannot be: MindSpore 2.10 compiles a loop
        with a `Switch` node and separate subgraphs for the condition and the body, and
        each iteration runs as separate kernel launches.

        Measured on CPU (`x = x * 40; while x.abs().max() > 10: x = x / 2`): 4 kernel
        graphs and a Switch, one compile for inputs that need different trip counts (it is
        a real loop, not unrolled). The labeled snippets `while x.abs().max() > 10` and a
        tensor counter `i = Tensor(0); while i < n` compiled into 3 and 2 kernel graphs.
        The facts file's GPT layer with `while x.abs().max() > 10:` compiled into 5 kernel
        graphs.

        What to do: bound the loop by a Python constant (`for _ in range(max_iter)`, which
        is unrolled and fuses) and stop changing finished elements with
        `x = ops.where(done, x, step(x))`; or run the data-dependent loop outside the Cell.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    i = 0
                    while i < 3:
                        x = x * 0.5
                        i += 1
                    return x
        """, note="a Python counter: unrolled at compile time"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    for _ in range(4):
                        x = ops.where(x.abs().max() > 10, x / 2, x)
                    return x
        """, note="fixed trip count with a select"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    x = x * 40
                    while x.abs().max() > 10:
                        x = x / 2
                    return x
        """, line=6),
        Invalid("""
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def construct(self, x, n):
                    i = Tensor(0, ms.int32)
                    while i < n:
                        x = x * 0.5
                        i = i + 1
                    return x
        """, line=8, note="a tensor counter"),
    ]

    def visit_While(self, node: ast.While, ctx) -> None:
        cond = tensor_decider(ctx, node.test, folds=False)
        if cond is not None:
            ctx.report(node.test, cond=_cond_text(ctx, node.test), where=ctx.where)


def _in_condition(ctx, node: ast.AST) -> bool:
    """The expression only feeds the condition of an if/while/ternary/assert (those rules report)."""
    child, parent = node, ctx.parent(node)
    while parent is not None:
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is child:
            return True
        if isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
            child, parent = parent, ctx.parent(parent)
            continue
        if isinstance(parent, ast.comprehension):
            return True
        return False
    return False


class TensorValueBranch(Rule):
    code = "MSG103"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tensor-value-branch"
    fix_safety = FixSafety.SAFE  # ops.where when proved (msgraphlint/fix/codemods.py), else unsafe
    summary = "Conditional expression or `and`/`or` that picks a value by a tensor's truth: a Switch."
    message = ("`{expr}` picks a value by a tensor's truth\n"
               "In graph-mode code ({where}) MindSpore compiles it into a Switch with branch subgraphs (more "
               "kernel graphs, no fusion across them).")
    hint = ("`ops.where(cond, a, b)` / `ops.select` for a conditional expression; `ops.logical_and` / "
            "`ops.logical_or` (or `&` / `|` on boolean tensors) for `and` / `or`")
    severity = Severity.WARNING
    rationale = """
        `a if cond else b` and the short-circuit operators `a and b` / `a or b` are
        control flow in Python: the second operand is evaluated only depending on the truth
        of the first. With a tensor deciding, MindSpore 2.10 compiles them like an `if`.

        Measured on CPU: `y = x * 3 if x.sum() > 0 else x - 3` compiles into 4 kernel
        graphs with a Switch; `c = (x.sum() > 0) and (x.max() < 5)` into 3 kernel graphs
        with a Switch, where `c = ops.logical_and(x.sum() > 0, x.max() < 5)` gives 1 kernel
        graph and no Switch. `not t` on its own is not control flow: it compiles into one
        `LogicalNot` (measured: 1 kernel graph), so it is not reported; `if not t:` is
        reported by MSG101.

        What to do: `ops.where(cond, a, b)` / `ops.select` for a conditional expression;
        `ops.logical_and`/`ops.logical_or` (or `&`/`|` on boolean tensors) for `and`/`or`.
        An `and`/`or` or ternary that only forms the condition of an `if`/`while`/`assert`
        is reported once, by that statement's rule.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2 if x.ndim == 2 else x
                    return y + 1
        """, note="a rank test is a compile-time constant"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    c = ops.logical_and(x.sum() > 0, x.max() < 5)
                    d = not (x.sum() > 0)
                    return ops.where(c & d, x, -x)
        """, note="logical ops, and `not` (a LogicalNot, no Switch)"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = None

                def construct(self, x, bias=None):
                    s = self.scale or 1.0
                    b = bias if bias is not None else 0.0
                    return x * s + b
        """, note="`or` on a config value, ternary on `is not None`"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 3 if x.sum() > 0 else x - 3
                    return ops.relu(y)
        """, line=6),
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    c = (x.sum() > 0) and (x.max() < 5)
                    return ops.where(c, x, -x)
        """, line=6, note="`and` as a value"),
    ]

    def visit_IfExp(self, node: ast.IfExp, ctx) -> None:
        if tensor_decider(ctx, node.test) is not None:
            ctx.report(node.test, expr=_cond_text(ctx, node), where=ctx.where, fix=where_ifexp_fix(ctx, node),
                       hint="`ops.where(cond, a, b)` (or `ops.select`) computes both and selects without a branch")

    def visit_BoolOp(self, node: ast.BoolOp, ctx) -> None:
        if isinstance(ctx.parent(node), ast.BoolOp) or _in_condition(ctx, node):
            return
        if any(tensor_decider(ctx, v) is not None for v in node.values[:-1]):
            op = "and" if isinstance(node.op, ast.And) else "or"
            ctx.report(node, expr=_cond_text(ctx, node), where=ctx.where,
                       hint=f"`ops.logical_{op}(a, b)` (or `{'&' if op == 'and' else '|'}` on boolean tensors) "
                            "has no branch")


class TensorAssert(Rule):
    code = "MSG104"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tensor-assert"
    summary = "`assert`, or `if ...: raise`, on a tensor value: a Switch in the graph that fails only at run time."
    message = ("`{what}` checks a tensor value in the graph\n"
               "In graph-mode code ({where}) MindSpore compiles the check into a Switch with a raise branch that "
               "runs on every call (more kernel graphs) and fails only at run time.")
    hint = ("validate the data outside the Cell (in the input pipeline or the training loop), or clamp/mask "
            "the value with `ops.clamp`/`ops.where` instead of failing")
    severity = Severity.WARNING
    rationale = """
        An `assert` or a `raise` guarded by a tensor condition cannot be checked at compile
        time, so MindSpore 2.10 keeps it in the graph: a `Switch` whose one branch is a
        `raise` node.

        Measured on CPU: `assert y.min() >= 0` and `if y.min() < 0: raise ValueError(...)`
        each compile into 3 kernel graphs with a Switch (against 1 without the check) and
        are evaluated on every call; with a failing input the call raises at run time
        (`AssertionError: negative input` / `ValueError: negative input`, with the
        message but no source line). The labeled snippet `assert y.min() >= 0` compiled
        into 3 kernel graphs with `raise` at the line.

        What to do: check inputs before they reach the network (dataset map, training
        loop) or in PyNative debugging runs; inside the graph, make the value valid
        instead (`ops.clamp`, `ops.where(bad, fallback, x)`). Assertions on shapes, dtypes
        or `is None` are compile-time checks and are not reported.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    assert x.ndim == 2 and x.shape[-1] == 8, "expects (N, 8)"
                    if mask is None:
                        raise ValueError("mask is required")
                    return x * mask
        """, note="shape and None checks run at compile time"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.abs(x)
                    assert y.min() >= 0
                    return y * 2
        """, line=7),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    if y.min() < 0:
                        raise ValueError("negative input")
                    return y + 1
        """, line=6, note="raise under a tensor condition"),
    ]

    def visit_Assert(self, node: ast.Assert, ctx) -> None:
        if tensor_decider(ctx, node.test) is not None:
            ctx.report(node.test, what="assert " + _cond_text(ctx, node.test), where=ctx.where)

    def visit_If(self, node: ast.If, ctx) -> None:
        if _is_raise_guard(node) and tensor_decider(ctx, node.test) is not None:
            ctx.report(node.test, what=("elif " if _is_elif(ctx, node) else "if ") + _cond_text(ctx, node.test)
                       + ": raise", where=ctx.where)


def _entry_param(ctx, test: ast.AST) -> Optional[ast.Name]:
    """The bare entry parameter a condition tests (`p`, `not p`, `p > 2`, `p == q`), when
    nothing says what kind it is: no caller in the project, no annotation, no default, and no
    use in the body as a tensor or as a Python value."""
    values, scope = ctx.values, ctx.scope
    if values is None or scope is None or scope.chain or scope.kind not in ("construct", "jit"):
        return None
    func = values.func
    if getattr(func, "name", "") == "bprop":
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Compare):
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
            return None
        sides = [test.left] + list(test.comparators)
        names = [s for s in sides if isinstance(s, ast.Name)]
        if len(names) != 1 or not all(s is names[0] or (isinstance(s, ast.Constant) and isinstance(s.value, (int, float))
                                                        and not isinstance(s.value, bool)) for s in sides):
            return None
        test = names[0]
    if not isinstance(test, ast.Name):
        return None
    name = test.id
    args = func.args
    positional = list(getattr(args, "posonlyargs", [])) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    arg = next((a for a, d in pairs if a.arg == name and d is None and a.annotation is None), None)
    if arg is None or arg.arg in ("self", "cls") or name in values.from_callers:
        return None
    if not ctx.kind(test).tensor_like:
        return None  # rebound to something else before the test
    uses, _ = _USES.get(ctx)
    use = uses.get(name)
    if use is None or use.tensor is not None or use.python_value() is not None:
        return None  # MSG101 (a tensor) or MSG304 (a Python value) says which
    if scope.class_name:
        from .dynamic_shape import _used_as_subcell
        if _used_as_subcell(ctx, scope.class_name):
            return None  # a sub-cell: its parent passes the value (a constant of the parent's graph)
    return test


class EntryParameterBranch(Rule):
    code = "MSG105"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "entry-parameter-branch"
    summary = ("A branch on a parameter of a graph entry whose kind nothing in the project shows: a tensor "
               "gives a Switch, a Python scalar a recompile per value.")
    message = ("`{what} {cond}` branches on `{param}`, a parameter of unknown type\n"
               "No caller, annotation, default or use in the body of {where} types `{param}`: if callers pass a "
               "tensor, MindSpore compiles a Switch with branch subgraphs; if they pass a Python scalar, the branch "
               "is folded but the graph is compiled again for every new value.")
    hint = ("a setting: fix it in `__init__` (or pass it to the constructor); a run-time value: pass a Tensor and "
            "pick with `ops.select`/`ops.where`")
    severity = Severity.INFO
    rationale = """
        A `construct` (or `jit` function) called from Python receives whatever the caller
        passes, and the two kinds compile differently. Measured on MindSpore 2.10 CPU:

        * a tensor: `if flag:`, `x * 2 if flag else x`, `if n > 0:` with a boolean or
          scalar tensor argument each compiled to a `Switch` with 2-3 kernel graphs
          (labeled `control_flow_pos_caller_bool_tensor_ifexp`,
          `control_flow_pos_jit_scalar_tensor_compare`, `control_flow_pos_mutable_int_compare`:
          an `ms.mutable(2)` int is a variable too);
        * a Python scalar: the branch is folded (`control_flow_neg_caller_literal_flag`:
          0 kernel graphs with a Switch, constant-folded), but the value is part of the
          compile key: a bool flag with True, False, True compiled 2 graphs (MSG304's
          measurement).

        When the project shows what is passed (a training loop over
        `create_tuple_iterator()`, `Tensor(...)`, `ms.mutable(...)`, a literal, a parent
        Cell passing `self.use_bias`: `msgraphlint/infer/paramkinds.py`), MSG101/MSG103 or
        nothing reports it. This rule covers the rest: an entry whose callers are not in the
        linted files, with a parameter the body does not use as a tensor (MSG101) or as a
        size/mode (MSG304). It is informational, because the answer is in code the linter
        does not see. A Cell built inside another class of the same module is a sub-cell
        (its parent passes constants) and is skipped.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def construct(self, x, use_bias):
                    if use_bias:
                        return x + 1
                    return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.block = Block()

                def construct(self, x):
                    return self.block(x, True)
        """, note="a Python flag passed from a parent Cell"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, mask=None, scale: float = 1.0):
                    if mask is not None:
                        x = x * mask
                    if scale > 1:
                        x = x * scale
                    return x
        """, note="defaults, annotations and `is None` say the kind"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, use_bias):
                    if use_bias:
                        return x + 1
                    return x
        """, line=5),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def step(x, n):
                return x * 2 if n > 0 else x
        """, line=5),
    ]

    def _check(self, ctx, test: ast.AST, what: str) -> None:
        p = _entry_param(ctx, test)
        if p is None:
            return
        seen = getattr(self, "_seen", None)  # one finding per parameter and scope walk
        if seen is not None and seen[0] is ctx.values:
            if p.id in seen[1]:
                return
            seen[1].add(p.id)
        else:
            self._seen = (ctx.values, {p.id})
        ctx.report(test, what=what, cond=_cond_text(ctx, test), param=p.id, where=f"`{ctx.where}`")

    def visit_If(self, node: ast.If, ctx) -> None:
        self._check(ctx, node.test, "elif" if _is_elif(ctx, node) else "if")

    def visit_While(self, node: ast.While, ctx) -> None:
        self._check(ctx, node.test, "while")

    def visit_IfExp(self, node: ast.IfExp, ctx) -> None:
        self._check(ctx, node.test, "… if")

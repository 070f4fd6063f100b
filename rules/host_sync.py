"""MSG403, MSG405: a tensor turned into a Python scalar inside graph-mode code (`.item()`,
`float(t)`, `int(t)`, `bool(t)`).

MindSpore 2.10 compiles these natively (TensorToScalar, no interpreter fallback), so they are
not MSG401/MSG402: their cost is a host round trip, and what the scalar is used for decides
whether it also makes shapes dynamic, adds control flow, fails, or silently picks the wrong
Cell. Every fact below was measured on CPU at the default syntax level and under STRICT.
"""

from __future__ import annotations

import ast
from typing import Optional, Set

from msgraphlint.fix.hostfixes import scalar_fix
from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid
from msgraphlint.infer.values import Kind

from msgraphlint.infer.hostvalues import NUMERIC_HOST, Flow, builtin, conversion, short, under_string_dispatch

# Tensor-creating / reshaping functions and methods whose argument is a shape or a size
SHAPE_FUNCS = frozenset({"zeros", "ones", "full", "empty", "arange", "linspace", "range", "reshape", "view",
                         "broadcast_to", "expand", "tile", "repeat", "repeat_interleave", "split", "narrow",
                         "topk", "fill", "new_zeros", "new_ones", "new_full", "new_empty", "randn", "rand",
                         "randint", "eye", "unflatten", "resize", "pad", "interpolate", "one_hot"})
# how a converted value is used -> what it costs (measured)
EFFECTS = {
    "range": "as a `range()` bound it turns the loop into a Switch-based control-flow loop instead of an unrolled one",
    "shape": "as a shape or size it makes the result dynamic-shape (with `arange` it does not compile on CPU: "
             "`RuntimeError: Kernel select failed`)",
    "slice": "as a slice bound it makes the result dynamic-shape",
    "index": "as an index into a tensor it does not compile on CPU (`TypeError: Kernel select failed`)",
    "condition": "as a condition it compiles to a Switch with branch subgraphs",
}
_TRANSPARENT_BUILTINS = ("int", "float", "bool", "round", "abs", "min", "max")


def _climb(flow: Flow, node: ast.AST, ctx) -> ast.AST:
    """Up through arithmetic, comparisons and scalar builtins (`int(t.item()) + 1`)."""
    while True:
        p = flow.parent(node)
        if isinstance(p, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)):
            node = p
        elif isinstance(p, ast.Call) and node in p.args and builtin(ctx, p, _TRANSPARENT_BUILTINS):
            node = p
        else:
            return node


def _shape_call(call: ast.AST, ctx) -> bool:
    if not isinstance(call, ast.Call):
        return False
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else None)
    if name not in SHAPE_FUNCS:
        return False
    if ctx.is_mindspore(f):
        return True
    return isinstance(f, ast.Attribute) and ctx.kind(f.value).tensor_like


def _sink(flow: Flow, use: ast.AST, ctx) -> Optional[str]:
    top = _climb(flow, use, ctx)
    p = flow.parent(top)
    if isinstance(p, ast.Call) and top in p.args and builtin(ctx, p, ("range",)):
        return "range"
    if isinstance(p, ast.Call) and (ctx.qualname(p.func) or "").split(".")[0] in NUMERIC_HOST:
        return "host"  # NumPy/math on the scalar: MSG402 reports it
    if isinstance(p, ast.Slice):
        return "slice"
    if isinstance(p, ast.Subscript) and p.slice is top:
        base = ctx.kind(p.value)
        if base is Kind.CONTAINER:
            return "celllist"
        return "index" if base.tensor_like else None
    if isinstance(p, ast.keyword):
        p = flow.parent(p)
        return "shape" if _shape_call(p, ctx) else None
    if isinstance(p, (ast.Tuple, ast.List)):
        pp = flow.parent(p)
        if isinstance(pp, ast.keyword):
            pp = flow.parent(pp)
        if _shape_call(pp, ctx):
            return "shape"
        if isinstance(pp, ast.Subscript) and pp.slice is p and ctx.kind(pp.value).tensor_like:
            return "index"
        return None
    if isinstance(p, ast.Call) and top in p.args and _shape_call(p, ctx):
        return "shape"
    if isinstance(p, (ast.If, ast.While, ast.IfExp, ast.Assert)) and p.test is top:
        return "condition"
    return None


def sinks(ctx, conv: ast.Call) -> Set[str]:
    flow = Flow.of(ctx)
    if flow is None:
        return set()
    out: Set[str] = set()
    for use in flow.uses(_climb(flow, conv, ctx)):
        kind = _sink(flow, use, ctx)
        if kind:
            out.add(kind)
    return out


class TensorToScalar(Rule):
    code = "MSG403"
    fix_safety = FixSafety.UNSAFE  # keep the 0-d tensor (msgraphlint/fix/hostfixes.py)
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tensor-to-python-scalar"
    summary = "`.item()` or `float()`/`int()`/`bool()` of a tensor inside graph-mode code (a host round trip)."
    message = ("`{expr}` turns a tensor into a Python scalar in graph-mode code\n"
               "In {where} MindSpore compiles it to TensorToScalar, a device-to-host copy mid-graph{effect}.")
    hint = ("keep it a tensor: use the 0-d tensor directly (`x / t.max()`), `ops.cast(t, ms.float32)` for a dtype, "
            "masks or `ops.select` instead of data-dependent sizes and branches")
    severity = Severity.WARNING
    rationale = """
        `float(t)`, `int(t)`, `bool(t)` and `t.item()` on a one-element tensor are not an
        interpreter fallback in MindSpore 2.10: they compile, at the default level and under
        STRICT, into a `TensorToScalar` node followed by scalar ops (`ScalarDiv`,
        `ScalarCast`, `ScalarToTensor` to get back into tensor math). Measured on CPU:

        - In the reference GPT layer, `attention_output * (1.0 / float(attention_output.abs().max()))`
          in a helper compiles with TensorToScalar, ScalarDiv and ScalarToTensor at the line
          (`msgraphlint verify` reports it as a host sync); the tensor form
          `attention_output / attention_output.abs().max()` stays one device op. On an
          accelerator TensorToScalar is a device→host copy and a synchronisation every step.
        - What the scalar is used for adds to that: `range(int(t.max()))` compiles into a
          Switch-based loop (4 subgraphs) instead of an unrolled one; `ops.zeros((int(t), 2))`,
          `x.reshape(n, -1)` and `x[:, :n]` get dynamic shapes; `mint.arange(0, n)` and `x[n]`
          fail on CPU (`Kernel select failed`); `if float(t) > 0:` becomes a Switch. The
          message names the use when it sees one.
        - On a tensor with more than one element it does not compile: `ValueError: The tensor
          should have only one element` (`.item()`), `ValueError: Can not convert Tensor with
          more than one element to Scalar` (`float()`).

        Only known tensors are reported (construct inputs, results of `ops`/Tensor methods,
        sub-Cell outputs, …): `float(self.scale)`, `int(x.shape[0])`, `len(x)` are compile-time
        Python values, and a tensor built from constants only is folded
        (`float(1 / mint.sqrt(ms.tensor(x.shape[-1])))`: no TensorToScalar, one `Muls`).
        A MindSpore op over values of unknown kind is not enough to report: with Python ints
        (`2 * mint.div(seq_len, self.w * 2, rounding_mode="trunc").item() - 1`) it is folded
        (measured: only a `Muls` left). `int(H)`, `int(patch_height * self.patch_size)` or
        `h = 2 * window_size[0] - 1; int(h)` on unannotated `construct` parameters is not
        reported: a sub-Cell receives Python ints there from its parent (measured on an
        HF-style head: no TensorToScalar, static shapes). Nor is a conversion in a branch
        selected by comparing a configuration value with a string (`if mode == "np":`): only
        the configured branch is compiled. NumPy
        or `math` applied to such a scalar is MSG402; indexing a CellList with it is MSG405.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, scale=2):
                    super().__init__()
                    self.scale = scale

                def construct(self, x):
                    n = int(x.shape[0])
                    return x * float(self.scale) * n
        """, note="conversions of compile-time values"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    return x / x.abs().max()
        """, note="the tensor form"),
        Valid("""
            import mindspore.nn as nn

            class PosEmbed(nn.Cell):
                def construct(self, x, H, W):
                    return x.reshape(int(H), int(W), -1)
        """, note="bare construct parameters used as sizes are usually Python ints"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    s = x.sum().item()
                    return x * s
        """, line=5),
        Invalid("""
            import mindspore.nn as nn

            def residual_scale(t):
                return 1.0 / float(t.abs().max())

            class Layer(nn.Cell):
                def construct(self, x):
                    return x * residual_scale(x)
        """, line=4, note="in a helper: reported at the helper line, called from construct"),
        Invalid("""
            import mindspore as ms
            from mindspore import ops

            @ms.jit
            def step(x):
                n = int(x.max())
                return ops.zeros((n, 2), ms.float32)
        """, line=6, note="the message says the zeros() result becomes dynamic-shape"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        recv = conversion(ctx, node)
        if recv is None or under_string_dispatch(ctx, node):
            return
        if not isinstance(node.func, ast.Attribute) and self._param_arithmetic(recv, ctx):
            return
        used = sinks(ctx, node)
        if "host" in used or "celllist" in used:
            return  # reported as MSG402 at the NumPy/math call, or as MSG405 at the Cell list index
        effects = sorted(used - {"celllist"})
        if effects == ["condition"] and isinstance(node.func, ast.Name) and node.func.id == "bool":
            return  # `if bool(t):` is a tensor truth test: MSG101/MSG102/MSG103 report the Switch
        effect = "; " + "; ".join(EFFECTS[e] for e in effects) if effects else ""
        ctx.report(node, expr=short(ctx, node), where=ctx.where, effect=effect, fix=scalar_fix(ctx, node, recv))

    @staticmethod
    def _param_arithmetic(expr: ast.AST, ctx, depth: int = 0) -> bool:
        """`int(H)`, `int(patch_height * self.patch_size)`, `h = 2 * window_size[0] - 1; int(h)`:
        arithmetic (and constant indexing) on unannotated, never reassigned `construct`
        parameters and constants, through locals assigned once, with no tensor op. A sub-Cell
        gets Python ints (or tuples of them) there from its parent (measured on an HF-style
        head: no TensorToScalar, static shapes); a real tensor input would need a reduction
        first to be one element."""
        func = ctx.values.func if ctx.values is not None else None
        if func is None or ctx.scope is None or ctx.scope.kind != "construct" or depth > 3:
            return False
        args = func.args
        params = {a.arg: a for a in list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)}
        flow = Flow.of(ctx)
        seen = False
        for n in ast.walk(expr):
            if isinstance(n, ast.Call):
                return False
            if isinstance(n, ast.Subscript) and not (isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, int)):
                return False
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and ctx.kind(n).tensor_like:
                assigns = flow.assigns.get(n.id, []) if flow is not None else []
                a = params.get(n.id)
                if a is not None and not assigns and a.annotation is None:
                    seen = True
                elif a is None and len(assigns) == 1 and assigns[0].lineno < n.lineno \
                        and TensorToScalar._param_arithmetic(assigns[0].value, ctx, depth + 1):
                    seen = True
                else:
                    return False
        return seen


class CellListRuntimeIndex(Rule):
    code = "MSG405"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "cell-list-indexed-by-tensor-value"
    summary = "A CellList indexed by a Python scalar taken from a tensor: graph mode silently runs the wrong Cell."
    message = ("`{expr}` indexes a Cell list with a tensor's scalar: always the first Cell\n"
               "In graph mode ({where}) MindSpore 2.10 silently runs the first Cell whatever the value (default "
               "level and STRICT); PyNative runs the right one.")
    hint = ("index with the int32 tensor itself (`self.experts[idx]` selects correctly in graph mode), or compute "
            "every Cell and combine with masks / `ops.select`")
    severity = Severity.ERROR
    rationale = """
        Measured with MindSpore 2.10.0 on CPU: `self.layers` an `nn.CellList([ReLU(), Tanh(),
        Sigmoid()])`, `construct(self, x, k)` with `k` an int32 tensor.

        - `self.layers[k.item()](x)` and `self.layers[int(k)](x)` compile without an error or
          a warning, and graph mode returns ReLU's output for k = 1 and for k = 2; PyNative
          returns Tanh's and Sigmoid's. The same at the default level and under STRICT.
        - `self.layers[k](x)` with the tensor itself selects correctly in graph mode (a
          Switch over the Cells), although PyNative rejects it (`For 'CellList', the type of
          'index' must be int or slice, but got Tensor`).

        This is the pattern of Mixture-of-Experts loops ported from PyTorch
        (`expert = self.experts[expert_idx.item()]`): in graph mode every token goes to expert 0.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

                def construct(self, x):
                    for i in range(len(self.layers)):
                        x = self.layers[i](x)
                    return x
        """, note="a compile-time index"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class MoE(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.experts = nn.CellList([nn.Dense(4, 4), nn.Dense(4, 4)])

                def construct(self, x, route):
                    idx = route.argmax().item()
                    return self.experts[idx](x)
        """, line=10),
    ]

    def visit_Subscript(self, node: ast.Subscript, ctx) -> None:
        if not isinstance(node.ctx, ast.Load) or ctx.kind(node.value) is not Kind.CONTAINER:
            return
        idx = node.slice
        flow = Flow.of(ctx)
        if conversion(ctx, idx) is not None or any(conversion(ctx, n) is not None for n in ast.walk(idx)):
            pass
        elif isinstance(idx, ast.Name) and ctx.kind(idx) is Kind.HOST and flow is not None:
            src = flow.origin(idx)
            if src is None or not any(conversion(ctx, n) is not None for n in ast.walk(src)):
                return
        else:
            return
        ctx.report(node, expr=short(ctx, node), where=ctx.where)

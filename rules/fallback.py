"""MSG401, MSG402, MSG404: tensor values flowing into the Python interpreter (interpreter
fallback and non-native helpers). `.item()`/`float(t)` (TensorToScalar, no fallback) are
MSG403/MSG405 in ``host_sync.py``.

Every fact below was measured with MindSpore 2.10.0 on CPU (small Cells compiled in
GRAPH_MODE at the default syntax level and under ``MS_DEV_JIT_SYNTAX_LEVEL=0``, PyExecute
nodes counted in the ``validate`` IR, and the reference GPT layer of ``fixtures/seeded``).
The native replacements come from ``msgraphlint/data/fallback_map.json``
(``scripts/gen_fallback_data.py`` checks every target against the installed MindSpore).
"""

from __future__ import annotations

import ast
import builtins
import json
from typing import FrozenSet, Optional

from msgraphlint.fix.hostfixes import (asnumpy_fix, const_asnumpy_fix, drop_host_call_fix, host_math_fix,
                                        list_method_fix)
from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid
from msgraphlint.infer.values import Kind

from msgraphlint.infer.hostvalues import (NUMERIC_HOST, Flow, builtin, folded, scalar_from_tensor, short, under_string_dispatch)

_DATA: list = []

# functions whose arguments are sizes and scalars, not data: `np.zeros((B, H, W))` in a sub-Cell whose
# `construct(self, B, H, W)` receives Python ints (mindcv's PositionalEncodingFourier) is folded
_SIZE_ARGS = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.eye", "numpy.identity",
                        "numpy.arange", "numpy.linspace", "numpy.logspace", "numpy.tri", "numpy.indices",
                        "numpy.random.rand", "numpy.random.randn", "numpy.random.randint", "numpy.random.random",
                        "numpy.random.uniform", "numpy.random.normal", "numpy.random.seed", "random.seed",
                        "random.randint", "random.uniform", "random.random", "random.gauss", "math.ceil",
                        "math.floor"})
# kinds that are certainly not a MindSpore tensor: `.asnumpy()` on them is something else
# packages other rules own in graph code: torch calls are MSG502 (torch-call-in-graph)
_OTHER_RULES = frozenset({"torch", "torchvision"})
_NOT_TENSOR = frozenset({Kind.CONST, Kind.NONE, Kind.MODULE, Kind.PYLIST, Kind.PYDICT, Kind.CELL,
                         Kind.CONTAINER, Kind.PRIMITIVE, Kind.FUNC, Kind.HOST})


def fallback_data() -> dict:
    if not _DATA:
        try:
            from importlib import resources
            with resources.files("msgraphlint.data").joinpath("fallback_map.json").open(encoding="utf-8") as fh:
                _DATA.append(json.load(fh))
        except (OSError, ValueError):  # pragma: no cover - packaging error: messages lose the suggestion
            _DATA.append({"replacements": {}, "interpreted_modules": [], "host_packages": []})
    return _DATA[0]


def replacement(dotted: Optional[str]) -> Optional[str]:
    if not dotted:
        return None
    return fallback_data()["replacements"].get(dotted)


def third_party_packages() -> FrozenSet[str]:
    d = fallback_data()
    return frozenset(d.get("interpreted_modules", [])) | frozenset(d.get("host_packages", []))


_short = short
_BUILTIN_NAMES = frozenset(dir(builtins))


def _tensor_arg(ctx, node: ast.Call) -> Optional[ast.AST]:
    """The first argument that is a known tensor (also inside a tuple/list literal)."""
    for a in list(node.args) + [k.value for k in node.keywords]:
        arg = a.value if isinstance(a, ast.Starred) else a
        for e in (arg.elts if isinstance(arg, (ast.Tuple, ast.List)) else [arg]):
            e = e.value if isinstance(e, ast.Starred) else e
            if ctx.kind(e).tensor_like and not folded(ctx, e):
                return e
    return None


def _mentions(ctx, expr: ast.AST, target: ast.AST, flow, depth: int = 0) -> bool:
    """``expr`` holds a value computed from ``target`` in Python (through local names, 3
    assignments deep), not only a tensor or a scalar made from it (`t * float(v.sum())`)."""
    todo = [expr]
    while todo:
        n = todo.pop()
        if n is target:
            return True
        if ctx.kind(n).tensor_like or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                       and n.func.id in ("float", "int", "bool", "len")) or _python_fact(n, flow):
            continue
        if depth < 3 and isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            if any(_mentions(ctx, src, target, flow, depth + 1) for src in _bindings(n.id, flow)):
                return True
        todo.extend(ast.iter_child_nodes(n))
    return False


_FACT_ATTRS = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes"})


def _python_fact(n: ast.AST, flow) -> bool:
    """A plain Python fact about a folded NumPy value, itself folded: `v.shape`, `y in v`,
    `v is not None`, `len(v)` through `getattr(v, "__len__")()`. Measured on 2.10 CPU
    (MindSpore's own tests of each return only the fact): no PyExecute node."""
    if isinstance(n, ast.Attribute) and n.attr in _FACT_ATTRS:
        return True
    if isinstance(n, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn, ast.Is, ast.IsNot)) for op in n.ops):
        return True
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and not n.args and flow is not None:
        return _getattr_len(flow.origin(n.func), flow)
    return False


def _getattr_len(e: Optional[ast.AST], flow) -> bool:
    """``e`` is ``getattr(v, "__len__")`` (the name given directly or through a local)."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "getattr" and len(e.args) >= 2):
        return False
    attr = e.args[1]
    if isinstance(attr, ast.Name):
        attr = flow.origin(attr)
    return isinstance(attr, ast.Constant) and attr.value == "__len__"


def _bindings(name: str, flow) -> list:
    """The expressions a local name takes its values from: every `name = ...` and `name += ...`,
    and the iterable of a `for` loop binding it (for `enumerate`, only the value, not the index)."""
    out = [a.value for a in flow.assigns.get(name, ())]
    for n in ast.walk(flow.func):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
            out.append(n.value)
        elif isinstance(n, ast.For):
            target, it = n.target, n.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
                    and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                target = target.elts[1]
                it = it.args[0] if it.args else it
            if any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(target)):
                out.append(it)
    return out


def _const_host_escape(ctx, node: ast.AST) -> Optional[str]:
    """Where the NumPy value of a constant tensor leaves the folded part of a graph entry: it
    is returned (the output is built by PyExecute). Measured on 2.10 CPU: `return
    abs(Tensor([-1, 2]).asnumpy())` in construct 1 PyExecute node, `return max(Tensor([1, 2,
    3]).asnumpy())` in `@jit` 1, `return x, v` 1, a sum of its elements over `for i, j in
    enumerate(v)` returned 1 (the index sum alone: 0); `x * float(v.sum())`, `x * max(v)`, `x *
    v[0]` 0 (folded). Printed: `y = Tensor(np.array([1, 2])).asnumpy(); print(y)` in `@jit` 2
    (`print(t)` of the constant tensor itself: 0)."""
    scope = ctx.scope
    flow = Flow.of(ctx)
    if scope is None or scope.kind not in ("construct", "jit") or flow is None:
        return None
    for stmt in ast.walk(flow.func):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and stmt is not flow.func:
            continue
        if isinstance(stmt, ast.Return) and stmt.value is not None and _mentions(ctx, stmt.value, node, flow):
            return "is returned from the graph"
    for stmt in ast.walk(flow.func):
        if isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Name) and stmt.func.id == "print" \
                and "print" not in ctx.imports.names \
                and any(_mentions(ctx, a, node, flow) for a in list(stmt.args) + [k.value for k in stmt.keywords]):
            return "is printed"
    return None


def _holds_tensor(ctx, a: ast.AST, depth: int = 0) -> bool:
    """A tensor that is not folded, or a tuple/list (literal, or a local name last assigned
    one) holding one: `"{0[0]}".format((x, y))` formats the tensors' values."""
    if isinstance(a, ast.Starred):
        a = a.value
    if ctx.kind(a).tensor_like:
        return not folded(ctx, a)
    if depth < 2 and isinstance(a, ast.Name):
        flow = Flow.of(ctx)
        src = flow.origin(a) if flow is not None else None
        return isinstance(src, (ast.Tuple, ast.List)) and _holds_tensor(ctx, src, depth + 1)
    if isinstance(a, (ast.Tuple, ast.List)):
        return any(_holds_tensor(ctx, e, depth + 1) for e in a.elts)
    return False


def _scalar_arg(ctx, node: ast.Call) -> Optional[ast.AST]:
    """The first argument holding a Python scalar converted from a tensor (`x.item()`)."""
    flow = Flow.of(ctx)
    for a in list(node.args) + [k.value for k in node.keywords]:
        arg = a.value if isinstance(a, ast.Starred) else a
        if ctx.kind(arg) is Kind.HOST and scalar_from_tensor(ctx, arg, flow):
            return arg
    return None


class TensorToNumpy(Rule):
    code = "MSG401"
    fix_safety = FixSafety.UNSAFE  # the op for a NumPy round trip (msgraphlint/fix/hostfixes.py): gradients now flow
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "tensor-to-numpy"
    summary = "`.asnumpy()` / `.tolist()` / `str()` / f-strings of a tensor inside graph-mode code: the interpreter fallback."
    message = ("`{expr}` pulls tensor data into Python in graph-mode code\n"
               "In {where} MindSpore runs it in the interpreter (PyExecute), which cuts the graph and makes "
               "everything computed from it dynamic-shape; under STRICT it does not compile.")
    hint = ("keep the value a tensor and use the `ops.*`/`mint.*` equivalent (e.g. `np.tanh(t.asnumpy())` → "
            "`ops.tanh(t)`); convert to NumPy outside the Cell, after it returns")
    severity = Severity.WARNING
    rationale = """
        Graph mode has no NumPy: `Tensor.asnumpy()` (and `.numpy()`, `.tolist()`, which go
        through it) can only run in the Python interpreter. Measured with MindSpore 2.10 on CPU:

        - default syntax level: compiled through JIT Fallback. `a = x.asnumpy()` alone adds 2
          PyExecute nodes; `Tensor(np.tanh(x.asnumpy()))` adds 10; `.tolist()` 4 to 7. In the
          reference GPT layer, `Tensor(np.tanh(h.asnumpy()), dtype=ms.float32)` in the MLP
          compiles into 10 PyExecute nodes and 10 kernel graphs instead of 1, with dynamic
          shapes in everything after it (`msgraphlint verify` on the same layer with
          graph-kernel fusion on: fused kernels 9 → 8). Without the `dtype=` the same layer
          does not compile at all, with a misleading error far from the line:
          `RuntimeError: Kernel select failed: Unsupported op [IsDimUnKnown] on CPU`.
        - STRICT (`MS_DEV_JIT_SYNTAX_LEVEL=0`): `AttributeError: In JIT strict mode, cannot get
          attributes asnumpy or the Tensor[Float32] object has no attribute: 'asnumpy'`.
        - Formatting a tensor's value into a string goes the same way: `str(t)` 2 PyExecute
          nodes (STRICT: `AttributeError: In JIT strict mode, cannot get attributes __str__ …`),
          `"v %s" % t` 1 (STRICT: `ValueError: … the inputs should be constant, but found
          variable`), `"v {}".format(t)` 4 (STRICT: `RuntimeError: Kernel select failed`),
          `f"value {t}"` 2, and under STRICT the f-string compiles but its value silently comes
          back as a Tensor, not a str; `ops.print_(f"value {t}")` 3 PyExecute nodes. In a
          `raise`/`assert` message they are on an error path and not reported; formatting
          shapes and other constants (`f"{x.shape}"`, `"{}".format(x.shape)`: 0 nodes) is
          folded and fine. Measured on 2.10 in `@jit`: the builtin `format(t)` 5 nodes;
          `.format` of a local name holding the template (`t = "{1} {0}"; t.format(x, y)`)
          6; a tuple of tensors formatted by index (`"{0[1]}".format((x, y))`) 6; the bound
          method kept in a name (`f = "{0[1]}".format; f(names)`) 4.
        - `.asnumpy()` of a tensor built from constants in the graph is folded while its
          NumPy value stays inside the graph (`x * float(v.sum())`, `x * max(v)`, `x * v[0]`:
          0 nodes) and is not reported then. It is reported when the value is returned
          (`return max(Tensor([1, 2, 3]).asnumpy())` in `@jit` 1 node, `return x, v` 1), but
          not when only a Python fact about it is returned: `y in v`, `v is not None`, `v.shape`,
          `getattr(v, "__len__")()` (MindSpore's own tests of each pass on 2.10 CPU with no
          PyExecute node). NumPy of constants is computed while compiling too, also through
          a local: `x = np.arange(15).reshape(3, 5); y = Tensor(np.array(x)).asnumpy()`
          returning `y.shape` has no PyExecute node, returning `y` has one.

        Keep the computation on tensors: `np.tanh(x.asnumpy())` → `ops.tanh(x)`, `np.mean(...)`
        → `ops.mean`/`x.mean()` (the message names the `ops.*` equivalent of the NumPy function
        around the call when there is one), and convert to NumPy outside the Cell, after it
        returns. `.asnumpy()` means nothing else in MindSpore code, so it is reported on any
        receiver that may be a tensor (also a helper's parameter); `.numpy()` and `.tolist()`
        only on known tensors.

        MindSpore compiles only the taken branch of a test on compile-time values (measured:
        an `if self.flag:` branch with `.asnumpy()` costs nothing when `flag` is False; the
        `"np"` branch of a diffusers-style `if output_type == "np":` helper 9 PyExecute nodes
        with `"np"`, none with `"ms"`). Branches selected by comparing a configuration value
        with a string are therefore not reported by MSG401-MSG404 (they describe one
        configuration); branches under boolean flags are (enabling the flag costs).
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.tanh(x * 2)
        """, note="the native op"),
        Valid("""
            import numpy as np
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.table = Tensor(np.arange(8).astype(np.float32))
                    self.init_value = self.table.asnumpy().sum()  # __init__ runs in Python

                def construct(self, x):
                    return x * self.table
        """, note="NumPy in __init__ is plain Python"),
        Valid("""
            import mindspore as ms

            def evaluate(net, x):
                return net(x).asnumpy()  # after the graph returned
        """, note="outside graph-mode code"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.sizes = [1, 2, 3]

                def construct(self, x):
                    n = len(self.sizes)
                    return x * n
        """, note="no conversion at all"),
    ]
    INVALID = [
        Invalid("""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    z = Tensor(np.tanh(y.asnumpy()), dtype=ms.float32)
                    return z + 1
        """, line=9),
        Invalid("""
            import numpy as np
            import mindspore as ms
            from mindspore import Tensor

            def to_np(t):
                return t.asnumpy()

            @ms.jit
            def step(x):
                return Tensor(np.exp(to_np(x)), ms.float32)
        """, line=6, note="in a helper of a jit function: reported at the helper"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    values = x.tolist()
                    return x * len(values)
        """, line=5, note="tolist() of a construct input"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        name = builtin(ctx, node, ("str", "repr", "format"))
        if name:
            if len(node.args) in ((1, 2) if name == "format" else (1,)) and not node.keywords \
                    and ctx.kind(node.args[0]).tensor_like \
                    and not folded(ctx, node.args[0]) and not self._in_error_message(node, ctx):
                if under_string_dispatch(ctx, node):
                    return  # one configuration's branch (see _hostvalues.under_string_dispatch)
                ctx.report(node, self.STR_MESSAGE, hint=self.STR_HINT, expr=short(ctx, node), where=ctx.where)
            return
        if self._str_format(f, ctx):
            self._format_call(node, ctx)
            return
        if not isinstance(f, ast.Attribute) or node.args or node.keywords:
            return
        if f.attr == "asnumpy":
            if ctx.kind(f.value) in _NOT_TENSOR:
                return
        elif f.attr in ("numpy", "tolist"):
            if not ctx.kind(f.value).tensor_like:
                return
        else:
            return
        if folded(ctx, f.value):
            escape = _const_host_escape(ctx, node)
            if escape is None:
                return  # a constant tensor's NumPy value used in the graph is folded
            if not under_string_dispatch(ctx, node):
                ctx.report(node, self.CONST_MESSAGE, hint=self.CONST_HINT, expr=_short(ctx, node), where=ctx.where,
                           escape=escape, fix=const_asnumpy_fix(ctx, node) if f.attr in ("asnumpy", "numpy") else None)
            return
        if under_string_dispatch(ctx, node):
            return  # one configuration's branch (see _hostvalues.under_string_dispatch)
        ctx.report(node, hint=self._suggestion(node, f, ctx), expr=_short(ctx, node), where=ctx.where,
                   fix=asnumpy_fix(ctx, node) or drop_host_call_fix(ctx, node))

    CONST_MESSAGE = ("`{expr}`: its NumPy value {escape}\n"
                     "In graph-mode code ({where}) the constant tensor is folded, but its NumPy value {escape}: "
                     "MindSpore builds that with the Python interpreter (PyExecute).")
    CONST_HINT = "make the NumPy value outside the graph (in `__init__`) or keep it a tensor"

    @staticmethod
    def _str_format(f: ast.AST, ctx) -> bool:
        """`"...".format`, or `.format` of a local name last assigned a string literal
        (`s = "{} {}"; s.format(x, y)`)."""
        if not (isinstance(f, ast.Attribute) and f.attr == "format"):
            if isinstance(f, ast.Name) and f.id not in _BUILTIN_NAMES and f.id not in ctx.imports.names:
                # `fmt = "{}".format; fmt(x)`: only where the function spells `format` at all
                func = ctx.values.func if ctx.values is not None else None
                key = ("spells_format", id(func))
                has = ctx.memo.get(key)
                if has is None:
                    lines = ctx.source.lines[func.lineno - 1:func.end_lineno] if func is not None else ()
                    has = ctx.memo[key] = any("format" in line for line in lines)
                if not has:
                    return False
                flow = Flow.of(ctx)
                src = flow.origin(f) if flow is not None else None
                return src is not None and TensorToNumpy._str_format(src, ctx) and isinstance(src, ast.Attribute)
            return False
        v = f.value
        if isinstance(v, ast.Name):
            flow = Flow.of(ctx)
            v = flow.origin(v) if flow is not None else None
        return isinstance(v, ast.Constant) and isinstance(v.value, str)

    def visit_JoinedStr(self, node: ast.JoinedStr, ctx) -> None:
        if any(isinstance(v, ast.FormattedValue) and ctx.kind(v.value).tensor_like and not folded(ctx, v.value)
               for v in node.values) and not self._in_error_message(node, ctx):
            if under_string_dispatch(ctx, node):
                return  # one configuration's branch (see _hostvalues.under_string_dispatch)
            ctx.report(node, self.FORMAT_MESSAGE, hint=self.STR_HINT, expr="an f-string with a tensor",
                       where=ctx.where, effect=self.FSTRING_EFFECT)

    def visit_BinOp(self, node: ast.BinOp, ctx) -> None:
        if not (isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            return
        operands = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        if any(ctx.kind(o).tensor_like and not folded(ctx, o) for o in operands) and not self._in_error_message(node, ctx):
            if under_string_dispatch(ctx, node):
                return  # one configuration's branch (see _hostvalues.under_string_dispatch)
            ctx.report(node, self.FORMAT_MESSAGE, hint=self.STR_HINT, expr="`%` formatting of a tensor",
                       where=ctx.where, effect=self.FORMAT_EFFECT)

    def _format_call(self, node: ast.Call, ctx) -> None:
        args = list(node.args) + [k.value for k in node.keywords]
        if any(_holds_tensor(ctx, a) for a in args) and not self._in_error_message(node, ctx):
            if under_string_dispatch(ctx, node):
                return  # one configuration's branch (see _hostvalues.under_string_dispatch)
            ctx.report(node, self.FORMAT_MESSAGE, hint=self.STR_HINT, expr="`.format()` of a tensor",
                       where=ctx.where, effect=self.FORMAT_EFFECT)

    FORMAT_MESSAGE = ("{expr} turns tensor data into a Python string\n"
                      "In graph-mode code ({where}) {effect}.")
    FSTRING_EFFECT = ("MindSpore runs it in the interpreter (PyExecute) at the default level; under STRICT the value "
                      "silently comes back as a Tensor, not a str")
    FORMAT_EFFECT = "MindSpore runs it in the interpreter (PyExecute) at the default level; under STRICT it does not compile"

    STR_MESSAGE = ("`{expr}` turns a tensor into a Python string\n"
                   "In graph-mode code ({where}) MindSpore runs it in the interpreter (PyExecute) at the default "
                   "level; under STRICT it does not compile.")
    STR_HINT = "print tensors with `ops.print_(\"value\", x)`; format only constants (shapes, names) into strings"

    @staticmethod
    def _in_error_message(node: ast.AST, ctx) -> bool:
        for anc in ctx.ancestors(node):
            if isinstance(anc, (ast.Raise, ast.Assert)):
                return True
            if isinstance(anc, ast.stmt):
                return False
        return False

    def _suggestion(self, node: ast.Call, f: ast.Attribute, ctx) -> str:
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and node in parent.args:
            host = ctx.qualname(parent.func)
            native = replacement(host)
            if native:
                recv = _short(ctx, f.value, 30)
                if native.startswith(("ops.", "mint.")) and "(" not in native and " " not in native:
                    native = f"{native}({recv})"
                return (f"`{host.replace('numpy.', 'np.')}({recv}.{f.attr}())` → `{native}`: keep the value a "
                        f"tensor and use the native op")
        return self.hint


class HostMathOnTensor(Rule):
    code = "MSG402"
    fix_safety = FixSafety.UNSAFE  # np.exp(t) -> ops.exp(t) (msgraphlint/fix/hostfixes.py): gradients now flow
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "host-math-on-tensor"
    summary = "A NumPy / math / SciPy / random function applied to a tensor inside graph-mode code."
    message = ("`{func}` on {what} runs in the Python interpreter\n"
               "In graph-mode code ({where}) it runs in the Python interpreter (PyExecute): the graph is cut there "
               "and what follows becomes dynamic-shape; under STRICT it does not compile.")
    hint = "use the native op on the tensor (`np.tanh` → `ops.tanh`, `np.clip` → `ops.clamp`, `math.erf` → `ops.erf`, …)"
    severity = Severity.WARNING
    rationale = """
        NumPy, `math`, SciPy and `random` are on MindSpore's list of modules that graph code
        hands to the interpreter (JIT Fallback). Given a tensor, they cannot be folded to a
        constant. Measured with MindSpore 2.10 on CPU:

        - default level: `np.tanh(x)` and `scipy.special.erf(x)` compile into 2 PyExecute nodes
          and return a NumPy array, not a tensor; `Tensor(np.tanh(x))` 8; `math.sqrt(x.sum())`
          2; some fail outright with errors that do not name the cause: `np.mean(x)` →
          `TypeError: mean() got an unexpected keyword argument 'out'`, `np.sum(self.weight)`
          (a Parameter) → `TypeError: Failed calling sum with "sum(axis=None, out=None)"`.
        - STRICT: `ValueError: When handling script '__call_func_str__(__input_0__,) in graph
          mode', the inputs should be constant, but found variable '__input_0__' to be
          nonconstant`.

        The same functions on compile-time constants are fine and not reported: `math.sqrt(
        self.head_dim)`, `np.float32(1.0)`, `math.log(x.shape[-1])`, `Tensor(np.ones(...))`
        are folded to constants (measured: no PyExecute). A value already pulled to the host
        by `.asnumpy()` is reported once, at the `.asnumpy()` (MSG401). A scalar taken from a
        tensor (`math.exp(x.mean().item())`, `np.float32(x.sum().item())`) is reported here:
        the scalar itself compiles natively (TensorToScalar, see MSG403), but the host function
        on it does not (measured `math.exp(x.max().item())`: 3 PyExecute nodes; STRICT: the
        same `inputs should be constant` error). Size arguments (`np.zeros((B, H, W))`,
        `np.arange(n)`) are not examined: a sub-Cell's `construct` often receives Python ints
        there.

        Use the native op; the message names it from `msgraphlint/data/fallback_map.json`
        (`np.tanh` → `ops.tanh`, `np.clip` → `ops.clamp`, `np.concatenate` → `ops.cat`,
        `math.erf` → `ops.erf`, `scipy.special.expit` → `ops.sigmoid`, …).
    """
    VALID = [
        Valid("""
            import math
            import numpy as np
            import mindspore.nn as nn

            class Attention(nn.Cell):
                def __init__(self, head_dim):
                    super().__init__()
                    self.head_dim = head_dim

                def construct(self, q, k):
                    scale = 1.0 / math.sqrt(self.head_dim)
                    return (q @ k.T) * scale * np.float32(1.0)
        """, note="math/NumPy on compile-time constants is folded"),
        Valid("""
            import math
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    return x / math.sqrt(x.shape[-1])
        """, note="on a shape"),
        Valid("""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def construct(self, x):
                    return x + Tensor(np.zeros((2, 4)), ms.float32)
        """, note="a constant tensor built from NumPy"),
    ]
    INVALID = [
        Invalid("""
            import numpy as np
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    m = np.mean(x)
                    return x - m
        """, line=6),
        Invalid("""
            import math
            import mindspore as ms

            def soft_cap(t):
                return math.tanh(t)

            @ms.jit
            def step(x):
                return soft_cap(x * 2)
        """, line=5, note="in a helper: reported at the helper line, called from the jit function"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        dotted = ctx.qualname(node.func)
        if not dotted or dotted.split(".")[0] not in NUMERIC_HOST or dotted in _SIZE_ARGS:
            return
        arg = _tensor_arg(ctx, node)
        scalar = arg is None and _scalar_arg(ctx, node) is not None
        if arg is None and not scalar:
            return  # constants are folded; a value from .asnumpy() is reported at the .asnumpy() (MSG401)
        native = replacement(dotted)
        short_name = dotted.replace("numpy.", "np.", 1) if dotted.startswith("numpy.") else dotted
        if native:
            suggestion = f"use `{native}` on the tensor instead of `{short_name}`"
        else:
            suggestion = "use the `ops.*`/`mint.*` equivalent on the tensor, or compute it outside the graph"
        if under_string_dispatch(ctx, node):
            return  # one configuration's branch (see _hostvalues.under_string_dispatch)
        ctx.report(node, hint=suggestion, func=short_name, where=ctx.where,
                   what="a scalar taken from a tensor (`.item()`/`float(t)`)" if scalar else "a tensor",
                   fix=host_math_fix(ctx, node, dotted))


class ThirdPartyOnTensor(Rule):
    code = "MSG404"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "third-party-call-in-graph"
    summary = "A third-party library (tokenizer, OpenCV, PIL, scikit-learn, torch, …) called on graph values."
    message = ("`{func}` is a {package} call MindSpore cannot compile\n"
               "In graph-mode code ({where}) MindSpore runs it in the Python interpreter (PyExecute), cutting the "
               "graph; under STRICT it does not compile.")
    hint = ("do this work in the data pipeline (`mindspore.dataset` map operations) or before calling the Cell, "
            "and pass tensors in")
    severity = Severity.WARNING
    rationale = """
        Functions and objects of installed libraries that MindSpore lists as third-party
        (its JIT Fallback whitelist: NumPy, SciPy, PIL, scikit-learn, torch, jieba, pandas, …),
        and tokenizers or image libraries that cannot be compiled either (transformers,
        tokenizers, sentencepiece, cv2, …), run in the interpreter when graph code calls them.
        Measured with MindSpore 2.10 on CPU with a tokenizer object from a site-packages
        package held in `self.tok` (`Tensor(self.tok.encode(x), ms.int32)` in `construct`):
        12 PyExecute nodes at the default level; under STRICT `ValueError: When handling
        script '__call_func_str__(__input_0__,) in graph mode', the inputs should be constant,
        but found variable`.

        The standard library is on the same side of MindSpore's third-party check (a module
        under the Python installation, not under site-packages): the catalog's
        `interpreted_stdlib`, generated from 2.10's `jit_fallback_modules/check_utils.py`
        rule. Functions in the parser's convert map are compiled natively
        (`converted_stdlib`: `functools.partial`, `operator.add`, ...; measured: 0 PyExecute,
        `fallback_neg_functools_partial_operator`). Measured on 2.10 CPU:
        `functools.reduce(ops.add, [x, x * 2, x * 3])` in `construct` compiled with 5
        PyExecute nodes and 5 kernel graphs, and STRICT rejected it
        (`fallback_pos_functools_reduce`). Not reported (a known gap): with constant
        arguments, `functools.reduce(operator.mul, x.shape)` did not compile at all on 2.10
        (`NameError: name '__input_0__' is not defined`). `math`, `random`, `time` and
        `logging` are left to MSG402, MSG210 and MSG211.

        Reported when a call resolves to such a package (by import, or through a `self.<attr>`
        built from one in `__init__`) and gets a tensor or another non-constant value. Calls
        with only constant arguments are folded at compile time and are not reported; NumPy,
        `math`, SciPy and `random` on tensors are MSG402, `torch` calls MSG502, and receivers
        named `*tokenizer*` MSG540 (each defect is reported once).
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from transformers import AutoTokenizer

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.tok = AutoTokenizer.from_pretrained("gpt2")
                    self.vocab = len(self.tok)  # __init__ runs in Python

                def construct(self, ids):
                    return ids * 2
        """, note="the tokenizer used in __init__ only"),
        Valid("""
            import mindspore.nn as nn
            from mycompany.layers import drop_path  # a project/MindSpore-native helper

            class Net(nn.Cell):
                def construct(self, x):
                    return drop_path(x, 0.1)
        """, note="unknown packages are not assumed to be host libraries"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor
            from transformers import AutoTokenizer

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.tok = AutoTokenizer.from_pretrained("gpt2")

                def construct(self, ids):
                    return Tensor(self.tok.decode(ids), ms.int32)
        """, line=12),
        Invalid("""
            import cv2
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, img):
                    return cv2.resize(img, (224, 224))
        """, line=6),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        package = None
        if self._names_tokenizer(node.func):
            return  # MSG540 tokenizer-in-graph reports it
        dotted = ctx.qualname(node.func)
        if dotted:
            top = dotted.split(".")[0]
            if top in NUMERIC_HOST or top in _OTHER_RULES or top.startswith("mindspore"):
                return
            if top in third_party_packages():
                package = top
            elif _interpreted_stdlib(ctx, dotted):
                package = f"standard-library `{top}`"
            else:
                return
        else:
            package = self._self_attr_package(node.func, ctx)
            if package is None:
                return
        args = list(node.args) + [k.value for k in node.keywords]
        if not any(not ctx.kind(a.value if isinstance(a, ast.Starred) else a).constant for a in args):
            return
        if dotted and not any(_carries_tensor(ctx, a.value if isinstance(a, ast.Starred) else a) for a in args):
            return  # a module function: only with a known tensor (or host value)
        if under_string_dispatch(ctx, node):
            return  # one configuration's branch (see _hostvalues.under_string_dispatch)
        ctx.report(node, func=_short(ctx, node.func, 40), package=package, where=ctx.where)

    @staticmethod
    def _names_tokenizer(node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute):
            if "tokenizer" in node.attr.lower():
                return True
            node = node.value
        return isinstance(node, ast.Name) and "tokenizer" in node.id.lower()

    @staticmethod
    def _self_attr_package(func: ast.AST, ctx) -> Optional[str]:
        # self.tok(...) or self.tok.encode(...)
        base = func.value if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) else func
        if not (isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id == "self"):
            return None
        info = ctx.class_info
        raw = info.attrs.get(base.attr) if info is not None else None
        if not raw or not raw.startswith("call:"):
            return None
        top = raw[5:].split(".")[0]
        if top in third_party_packages() and top not in NUMERIC_HOST and top not in _OTHER_RULES \
                and not top.startswith("mindspore"):
            return top
        return None


# standard-library modules other rules own: MSG402 (math), MSG210 (random, time), MSG211 (logging)
_STDLIB_OWNED = frozenset({"math", "cmath", "statistics", "random", "time", "logging"})


def _interpreted_stdlib(ctx, dotted: str) -> bool:
    """A standard-library function the graph parser hands to the interpreter: its module is in
    the catalog's `interpreted_stdlib` (MindSpore's third-party check) and the function is not
    in the parser's convert map (`functools.partial`, `operator.add`, ... are converted)."""
    top = dotted.split(".")[0]
    if top in _STDLIB_OWNED or "." not in dotted:
        return False
    cat = ctx.catalog
    if top == "builtins" and dotted.split(".", 1)[1] in cat.graph_builtins("converted"):
        return False  # `builtins.abs(x)` is the builtin the parser converts (2.10 CPU: no PyExecute)
    return top in cat.graph_builtins("interpreted_stdlib") and dotted not in cat.graph_builtins("converted_stdlib")


def _carries_tensor(ctx, a: ast.AST) -> bool:
    """A tensor (or host) value, or a list/tuple literal holding one (`[x, y]`)."""
    k = ctx.kind(a)
    if k.tensor_like or k is Kind.HOST:
        return True
    return isinstance(a, (ast.List, ast.Tuple)) and any(ctx.kind(e.value if isinstance(e, ast.Starred) else e).tensor_like
                                                        for e in a.elts)


_LIST_METHODS = {
    "extend": ("6", "`parts = parts + [...]` or `parts += [...]`"),
    "insert": ("5", "`parts = [value] + parts` (list concatenation)"),
    "pop": ("6", "index and slice instead: `last = parts[-1]; parts = parts[:-1]`"),
    "reverse": ("5", "`parts = parts[::-1]`"),
}


def _local_element(flow, src, depth: int = 0):
    """``y = x[k]`` with ``x`` a local list/tuple display: the display's element ``k`` (a list
    nested in a local display is a local list too); other values unchanged."""
    if depth > 4 or not (isinstance(src, ast.Subscript) and isinstance(src.slice, ast.Constant)
                         and isinstance(src.slice.value, int) and not isinstance(src.slice.value, bool)):
        return src
    base = src.value
    holder = _local_element(flow, flow.origin(base), depth + 1) if isinstance(base, ast.Name) else \
        _local_element(flow, base, depth + 1)
    k = src.slice.value
    if isinstance(holder, (ast.List, ast.Tuple)) and -len(holder.elts) <= k < len(holder.elts) \
            and not any(isinstance(e, ast.Starred) for e in holder.elts):
        return holder.elts[k]
    return src


def _local_list(ctx, flow, src, depth: int = 0) -> bool:
    """``src`` makes a new list in the function: a display, a comprehension, ``list(...)``, and
    (what MSG406's own fixes write) ``[v] + parts`` / ``parts + [v]`` / ``[v] * n`` (``+``/``*``
    with a list display, or ``+`` of a local list) and a slice of a local list (``parts[::-1]``).
    Measured on 2.10 CPU (validate IR): ``parts = [x * 2] + parts; parts.extend([x * 3])`` still
    has 7 PyExecute nodes (``parts.insert(0, x * 2); parts.extend(...)`` 8), so the list the
    insert fix rebinds keeps its extend finding."""
    if depth > 4 or src is None:
        return False
    if isinstance(src, (ast.List, ast.ListComp)):
        return True
    if isinstance(src, ast.Call):
        return isinstance(src.func, ast.Name) and src.func.id == "list" and "list" not in ctx.imports.names
    if isinstance(src, ast.BinOp) and isinstance(src.op, (ast.Add, ast.Mult)):
        sides = (src.left, src.right)
        if any(isinstance(e, (ast.List, ast.ListComp)) for e in sides):
            return True
        return isinstance(src.op, ast.Add) and any(_local_list_name(ctx, flow, e, depth) for e in sides)
    if isinstance(src, ast.Subscript) and isinstance(src.slice, ast.Slice):
        return _local_list_name(ctx, flow, src.value, depth)
    return False


def _local_list_name(ctx, flow, e, depth: int) -> bool:
    """``e`` is a name bound before its own statement to a local list (``parts`` in
    ``parts = [v] + parts``: the assignment before this one)."""
    if not isinstance(e, ast.Name):
        return False
    stmt = flow.parent(e)
    while stmt is not None and not isinstance(stmt, ast.stmt):
        stmt = flow.parent(stmt)
    best = None
    for a in flow.assigns.get(e.id, ()):
        if a is not stmt and (a.lineno, a.col_offset) < (e.lineno, e.col_offset) \
                and (best is None or a.lineno > best.lineno):
            best = a
    return best is not None and _local_list(ctx, flow, _local_element(flow, best.value), depth + 1)


class LocalListMethod(Rule):
    code = "MSG406"
    fix_safety = FixSafety.SAFE  # extend -> +=, insert(0)/reverse -> rebinding when no alias (msgraphlint/fix/hostfixes.py)
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "list-method-fallback"
    summary = "`.extend()` / `.insert()` / `.pop()` / `.reverse()` on a local list in graph-mode code: interpreter fallback at the default level."
    message = ("`{expr}` on a local list runs in the Python interpreter\n"
               "In graph-mode code ({where}) it runs in the Python interpreter at the default syntax level "
               "(PyExecute: the graph is cut there); STRICT compiles it natively.")
    hint = "build lists with `append`, `+` and `+=`, which compile natively at both levels"
    severity = Severity.WARNING
    rationale = """
        MindSpore 2.10 compiles some list methods natively and hands others to the
        interpreter at the default syntax level. Measured on CPU, on a list of tensors built
        in `construct` (then `ops.concat(parts, 1)`):

        | method | default level | STRICT |
        |---|---|---|
        | `parts.extend([x * 2])` | 6 PyExecute nodes (3 with constant elements) | native, 0 PyExecute |
        | `parts.insert(0, x * 2)` | 5 PyExecute nodes (3 with constant elements) | native |
        | `parts.pop()` | 6 PyExecute nodes | native |
        | `parts.reverse()` | 5 PyExecute nodes | native |
        | `parts.append(..)`, `parts += [..]`, `parts = parts + [..]`, `parts.clear()` | native | native |

        The same holds for a list nested in a local display (`y = pairs[0]` with
        `pairs = ([1, 2, 3], 4)` or `[[1, 2], [3]]`): `y.pop()` 3 PyExecute nodes, `y.reverse()` 3,
        `y.extend(...)` 2, `y.append(...)` none (2.10 CPU, validate IR). And for a list
        rebound to `[v] + parts`, `parts + [v]`, `[v] * n` or `parts[::-1]` (what this rule's
        own fixes write): `parts = [x * 2] + parts; parts.extend([x * 3])` has 7 PyExecute
        nodes, so the extend is still reported after the insert is fixed.

        (`.remove()` and `.sort()` on constant lists are folded at the default level and
        rejected under STRICT.) The same methods on a `self.` or module-level list are
        MSG207. Use `append`, `+` and `+=`; slicing for `pop`/`reverse`.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    parts = [x]
                    parts.append(x * 2)
                    parts += [x * 3]
                    parts = [x - 1] + parts
                    return ops.concat(parts, 1)
        """, note="native list operations"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                rows = [[1, 2], [3]]
                first = rows[0]
                first.append(9)
                return x + len(first)
        """, note="append on a nested local list is native (measured: no PyExecute)"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    parts = [x]
                    parts.extend([x * 2, x * 3])
                    return ops.concat(parts, 1)
        """, line=7),
        Invalid("""
            import mindspore as ms
            from mindspore import ops

            @ms.jit
            def fn(x):
                parts = [x * i for i in range(3)]
                parts.reverse()
                last = parts.pop()
                return ops.concat(parts, 1) + last.sum()
        """, line=[7, 8]),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def fn(x):
                pairs = ([1, 2, 3], 4)
                first = pairs[0]
                first.reverse()
                return x + first[0]
        """, line=7, note="a list nested in a local display (measured: 3 PyExecute)"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not (isinstance(f, ast.Attribute) and f.attr in _LIST_METHODS and isinstance(f.value, ast.Name)):
            return
        flow = Flow.of(ctx)
        if flow is None or f.value.id not in flow.assigns:
            return  # not a local of this function (self./module-level lists are MSG207)
        if not _local_list(ctx, flow, _local_element(flow, flow.origin(f.value))):
            return
        if under_string_dispatch(ctx, node):
            return  # one configuration's branch (see _hostvalues.under_string_dispatch)
        ctx.report(node, hint=f"use {_LIST_METHODS[f.attr][1]}; `append`, `+` and `+=` compile natively at both levels",
                   expr=short(ctx, node), where=ctx.where, fix=list_method_fix(ctx, node))

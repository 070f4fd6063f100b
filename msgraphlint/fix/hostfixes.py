"""Fixes that keep a value in the graph: host computations on tensors rewritten to their
MindSpore op, host conversions dropped, interpreted builtins spelled the way the graph
parser compiles them (MSG401, MSG402, MSG403, MSG420, MSG413, MSG503, MSG505, MSG508).

All are text edits computed while checking (no libcst: each replaces one expression, whose
kept parts are the original's own text). Each is held to the fix contract like any fix.

Safety. A NumPy/``math`` computation on a tensor returns a NumPy array (float64 for integer
input) or a Python float, and no gradient flows through the host round trip; the op form
returns a float tensor that gradients flow through. That is a behaviour change wherever the
value is differentiated, printed, or handed back to Python, so every such rewrite is UNSAFE
with that condition in its message, and offered only where every read of the value takes a tensor too
(``tensor_sink``: arithmetic with a tensor, ``Tensor(v, dtype)``, a graph root's return; mindone's
``h = h.item(); mint.arange(h)`` gets none). SAFE are only the rewrites that are the same Python
program for every value (the semantic harness, tests/test_fix_semantics.py, compiles and runs
them before and after in graph mode and PyNative): ``all(t is not None for t in (a, b))`` →
``a is not None and b is not None``, ``dict(a=x)`` → ``{"a": x}``, ``reversed(seq)`` of a list
or tuple display → ``seq[::-1]``.
"""

from __future__ import annotations

import ast
from typing import Optional, Tuple

from ..findings import Edit, Fix, FixSafety
from .codemods import ops_binding

# NumPy / math functions whose MindSpore op computes the same elementwise function on a
# float tensor (the op's name in `mindspore.ops`); reductions, linear algebra, and functions
# whose NumPy defaults differ (np.round's half-to-even, np.linalg.norm's matrix 2-norm) are
# deliberately not here
UNARY = {
    "numpy.exp": "exp", "numpy.tanh": "tanh", "numpy.abs": "abs", "numpy.absolute": "abs", "numpy.sqrt": "sqrt",
    "numpy.log": "log", "numpy.sin": "sin", "numpy.cos": "cos", "numpy.log1p": "log1p", "numpy.expm1": "expm1",
    "numpy.floor": "floor", "numpy.ceil": "ceil", "numpy.negative": "neg", "numpy.square": "square",
    "numpy.sign": "sign", "numpy.arctan": "atan", "numpy.sinh": "sinh", "numpy.cosh": "cosh",
    "math.exp": "exp", "math.tanh": "tanh", "math.sqrt": "sqrt", "math.fabs": "abs", "math.sin": "sin",
    "math.cos": "cos", "math.erf": "erf", "math.log1p": "log1p", "math.expm1": "expm1", "math.atan": "atan",
    "scipy.special.expit": "sigmoid", "scipy.special.erf": "erf",
}
# one-argument `math.log(x)` only (a second argument is the base)
UNARY_ONE_ARG_ONLY = {"math.log": "log"}
TERNARY = {"numpy.clip": "clamp"}  # np.clip(x, lo, hi) -> ops.clamp(x, lo, hi)

HOST_CAVEAT = ("gradients now flow through it, where the host round trip had none; the result is a "
               "MindSpore tensor of the input's dtype, where NumPy gives an array (float64 for an integer "
               "tensor) and `math` a Python float")


def _seg(ctx, node: ast.AST) -> str:
    return ctx.segment(node)


def _atom(node: ast.AST) -> bool:
    return isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple,
                             ast.Dict))


def _paren(ctx, node: ast.AST) -> str:
    text = _seg(ctx, node)
    return text if _atom(node) else f"({text})"


def _replace(node: ast.AST, text: str) -> Edit:
    return Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text)


def _dot(ctx, f: ast.Attribute) -> Optional[Tuple[int, int]]:
    """(line, byte column) of the ``.`` of ``f`` (``(a != b).to``: after the closing parenthesis,
    which the receiver's span leaves out); None when it is not on the attribute's line."""
    if f.end_lineno is None:
        return None
    raw = ctx.source.line(f.end_lineno).encode("utf-8")
    i = f.end_col_offset - len(f.attr.encode("utf-8")) - 1
    while i >= 0 and raw[i:i + 1] in (b" ", b"\t"):
        i -= 1
    return (f.end_lineno, i) if i >= 0 and raw[i:i + 1] == b"." else None


def _ms_binding(ctx) -> Optional[str]:
    """The module's local name for ``mindspore`` (``ms``), or None."""
    for local, q in ctx.imports.names.items():
        if q == "mindspore" and "." not in local:
            return local
    return None


def _last(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _module_token(ctx, func: ast.AST) -> Tuple[str, ...]:
    """The tokens of ``np.exp`` / ``math.sqrt`` that the op's spelling drops (``np``/``math``)."""
    out = []
    f = func
    while isinstance(f, ast.Attribute):
        f = f.value
        if isinstance(f, ast.Attribute):
            out.append(f.attr)
    if isinstance(f, ast.Name):
        out.append(f.id)
    return tuple(out)


def _unary_op(dotted: Optional[str], nargs: int) -> Optional[str]:
    if not dotted:
        return None
    if dotted in UNARY and nargs == 1:
        return UNARY[dotted]
    if dotted in UNARY_ONE_ARG_ONLY and nargs == 1:
        return UNARY_ONE_ARG_ONLY[dotted]
    if dotted in TERNARY and nargs == 3:
        return TERNARY[dotted]
    return None


def _scalar_of(ctx, arg: ast.AST) -> Optional[ast.AST]:
    """``t`` for ``t.item()``, ``float(t)``, ``int(t)``: the tensor a scalar was taken from."""
    if isinstance(arg, ast.Call) and not arg.keywords:
        f = arg.func
        if isinstance(f, ast.Attribute) and f.attr == "item" and not arg.args:
            return f.value
        if isinstance(f, ast.Name) and f.id in ("float", "int") and len(arg.args) == 1 \
                and f.id not in ctx.imports.names:
            return arg.args[0]
    return None


def host_math_fix(ctx, node: ast.Call, dotted: Optional[str]) -> Optional[Fix]:
    """MSG402: ``np.exp(t)`` → ``ops.exp(t)``, ``math.sqrt(t.sum())`` → ``ops.sqrt(t.sum())``,
    ``math.exp(t.mean().item())`` → ``ops.exp(t.mean())``, ``np.clip(t, lo, hi)`` →
    ``ops.clamp(t, lo, hi)``; ``np.array(t)``/``np.asarray(t)`` → ``t``;
    ``np.float32(t.sum().item())`` → ``t.sum().astype(ms.float32)``. Unsafe (``HOST_CAVEAT``)."""
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) or node.func.end_lineno is None:
        return None
    if not tensor_sink(ctx, node):
        return None  # something reads the host value that may need NumPy or a Python number
    drops = _module_token(ctx, node.func)
    if dotted in ("numpy.array", "numpy.asarray") and len(node.args) == 1:
        arg = node.args[0]
        if not ctx.kind(arg).tensor_like:
            return None
        return Fix(f"use the tensor itself: `{_short(_seg(ctx, arg))}` (unsafe: the value stays a MindSpore tensor, "
                   "not a NumPy copy: the same only where what reads it accepts a tensor)",
                   (_replace(node, _paren(ctx, arg)),), FixSafety.UNSAFE, drops=drops + (_last(dotted),))
    if dotted in ("numpy.float32", "numpy.float16") and len(node.args) == 1:
        inner = _scalar_of(ctx, node.args[0])
        ms = _ms_binding(ctx)
        if inner is None or ms is None:
            return None
        dt = _last(dotted)
        text = f"{_paren(ctx, inner)}.astype({ms}.{dt})"
        return Fix(f"`{_short(text)}`: cast the tensor instead of its host scalar (unsafe: the value is a 0-d "
                   f"tensor, not a NumPy scalar: {HOST_CAVEAT})", (_replace(node, text),), FixSafety.UNSAFE,
                   drops=drops + ("item", "float", "int"))
    op = _unary_op(dotted, len(node.args))
    if op is None:
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    edits = [Edit(node.func.lineno, node.func.col_offset, node.func.end_lineno, node.func.end_col_offset, f"{ops}.{op}")]
    first = node.args[0]
    inner = _scalar_of(ctx, first)
    extra: Tuple[str, ...] = ()
    if inner is not None:
        edits.append(_replace(first, _seg(ctx, inner)))
        extra = ("item", "float", "int")
    elif not ctx.kind(first).tensor_like:
        return None
    name = _last(dotted)
    return Fix(f"`{ops}.{op}(…)`: the native op on the tensor (unsafe: {HOST_CAVEAT})",
               tuple(edits) + tuple(imports), FixSafety.UNSAFE,
               drops=drops + ((name,) if name != op else ()) + extra)


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"


def _tensor_ctor(ctx, node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ctx.qualname(node.func) in ("mindspore.Tensor", "mindspore.common.tensor.Tensor")


def asnumpy_fix(ctx, node: ast.Call) -> Optional[Fix]:
    """MSG401: ``np.tanh(t.asnumpy())`` → ``ops.tanh(t)``, and inside ``Tensor(..., dtype=D)`` (or
    ``Tensor(..., D)``) the whole constructor → ``ops.tanh(t).astype(D)`` (``ops.tanh(t)`` without a
    dtype: ``Tensor`` keeps NumPy's). Unsafe (``HOST_CAVEAT``)."""
    f = node.func
    host = ctx.parent(node)
    if not (isinstance(f, ast.Attribute) and f.attr in ("asnumpy", "numpy") and isinstance(host, ast.Call)
            and host.args and host.args[0] is node and not host.keywords):
        return None
    dotted = ctx.qualname(host.func)
    op = _unary_op(dotted, len(host.args))
    if op is None:
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    rest = [_seg(ctx, a) for a in host.args[1:]]
    core = f"{ops}.{op}({', '.join([_seg(ctx, f.value)] + rest)})"
    drops = _module_token(ctx, host.func) + (f.attr,) + ((_last(dotted),) if _last(dotted) != op else ())
    target: ast.AST = host
    outer = ctx.parent(host)
    wrapped = _tensor_ctor(ctx, outer) and outer.args and outer.args[0] is host
    if not wrapped and not tensor_sink(ctx, host):
        return None  # the NumPy value itself is read: it may need to stay NumPy
    if wrapped:
        dtype = None
        extra = list(outer.args[1:]) + [k.value for k in outer.keywords if k.arg == "dtype"]
        if len(extra) > 1 or any(k.arg != "dtype" for k in outer.keywords) or \
                any(isinstance(a, ast.Starred) for a in outer.args):
            return None
        if extra:
            dtype = extra[0]
        target = outer
        core = f"{core}.astype({_seg(ctx, dtype)})" if dtype is not None else core
        drops = drops + _module_token(ctx, outer.func) + (_last(ctx.qualname(outer.func)),) + \
            (("dtype",) if outer.keywords else ())
    if target.end_lineno is None:
        return None
    return Fix(f"`{_short(core)}`: keep the value a tensor and use the native op (unsafe: {HOST_CAVEAT})",
               (_replace(target, core),) + tuple(imports), FixSafety.UNSAFE, drops=drops)


def drop_host_call_fix(ctx, node: ast.Call) -> Optional[Fix]:
    """MSG401: ``a = x.asnumpy()`` / ``vals = x[0].tolist()`` whose every read takes a tensor too
    (``Tensor(a * 2, ms.float32)``, ``x * vals[0]``: ``tensor_sink``) → drop the call: the value
    stays a tensor. Unsafe (``HOST_CAVEAT``)."""
    f = node.func
    dot = _dot(ctx, f) if isinstance(f, ast.Attribute) else None
    if dot is None or f.attr not in ("asnumpy", "numpy", "tolist") or node.args or node.keywords \
            or not tensor_sink(ctx, node):
        return None
    return Fix(f"drop `.{f.attr}()`: keep the value a tensor (unsafe: {HOST_CAVEAT}; an element of it is a 0-d "
               "tensor, not a Python number)", (Edit(dot[0], dot[1], node.end_lineno, node.end_col_offset, ""),),
               FixSafety.UNSAFE, drops=(f.attr,))


def const_asnumpy_fix(ctx, node: ast.Call) -> Optional[Fix]:
    """MSG401 (a constant tensor's NumPy value leaves the graph): drop ``.asnumpy()``; the graph
    then hands out the constant tensor itself. Unsafe: the caller gets a Tensor, not NumPy."""
    f = node.func
    dot = _dot(ctx, f) if isinstance(f, ast.Attribute) else None
    if dot is None:
        return None
    return Fix("drop `.asnumpy()`: keep the constant a tensor (unsafe: what the graph returns is then a MindSpore "
               "tensor, not a NumPy array, and Python code on it (iteration, `+=`) works on tensors)",
               (Edit(dot[0], dot[1], node.end_lineno, node.end_col_offset, ""),),
               FixSafety.UNSAFE, drops=(f.attr,))


_CAST = {"int": "int64", "float": "float32", "bool": "bool_"}


def scalar_fix(ctx, node: ast.Call, recv: ast.AST) -> Optional[Fix]:
    """MSG403: ``t.item()`` → ``t``; ``int(t)`` → ``t.astype(ms.int64)`` (truncating as ``int``
    does), ``float(t)`` → ``t.astype(ms.float32)``, ``bool(t)`` → ``t.astype(ms.bool_)``: the
    value stays a 0-d tensor on the device. Unsafe: whatever reads it must accept a tensor."""
    f = node.func
    caveat = ("unsafe: the value is a 0-d tensor, not a Python number: the same only where what reads it accepts a "
              "tensor (an `if` on it becomes a graph condition; `range()`, shapes and Python containers need a "
              "number); gradients now flow through it")
    if not tensor_sink(ctx, node):
        return None  # something reads it that may need the Python number
    if isinstance(f, ast.Attribute):
        text = _seg(ctx, recv)
        return Fix(f"`{_short(text)}`: keep the 0-d tensor ({caveat})", (_replace(node, _paren(ctx, recv)),),
                   FixSafety.UNSAFE, drops=("item",))
    if not isinstance(f, ast.Name) or f.id not in _CAST:
        return None
    ms = _ms_binding(ctx)
    if ms is None:
        return None
    text = f"{_paren(ctx, recv)}.astype({ms}.{_CAST[f.id]})"
    return Fix(f"`{_short(text)}`: cast on the device instead of converting to a Python {f.id} ({caveat})",
               (_replace(node, text),), FixSafety.UNSAFE, drops=(f.id,))


# MSG420 ---------------------------------------------------------------------------------

def _bool_predicate(e: ast.AST, var: str) -> bool:
    """A predicate whose value is a Python bool for every value: ``v is None``, ``v is not
    None``, ``isinstance(v, T)``, ``not`` of one, over the loop variable."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return _bool_predicate(e.operand, var)
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], (ast.Is, ast.IsNot)):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "isinstance" and len(e.args) == 2 \
            and not e.keywords:
        return True
    return False


def _substituted(ctx, pred: ast.AST, var: str, item: ast.AST) -> Optional[str]:
    """The predicate's text with each read of ``var`` replaced by ``item``'s text."""
    text = _seg(ctx, pred)
    reads = [n for n in ast.walk(pred) if isinstance(n, ast.Name) and n.id == var]
    if not reads or pred.lineno != pred.end_lineno or any(n.lineno != pred.lineno for n in reads):
        return None
    line = ctx.source.line(pred.lineno)
    if not line.isascii():
        return None
    base = pred.col_offset
    out = text
    for n in sorted(reads, key=lambda n: n.col_offset, reverse=True):
        a, b = n.col_offset - base, n.end_col_offset - base
        out = out[:a] + _seg(ctx, item) + out[b:]
    return out


def builtin_fix(ctx, node: ast.Call) -> Optional[Fix]:
    """MSG420: the builtin's graph spelling where it is the same Python program."""
    f = node.func
    if not isinstance(f, ast.Name) or node.end_lineno is None:
        return None
    if f.id in ("all", "any") and len(node.args) == 1 and not node.keywords:
        return _all_any_fix(ctx, node, f.id)
    if f.id == "dict" and not node.args and node.keywords and all(k.arg is not None for k in node.keywords):
        text = "{" + ", ".join(f'"{k.arg}": {_seg(ctx, k.value)}' for k in node.keywords) + "}"
        return Fix("a dict literal (the graph parser compiles it natively)", (_replace(node, text),), FixSafety.SAFE,
                   proof="`dict(k=v, ...)` and `{\"k\": v, ...}` build the same dict in the same order",
                   drops=("dict",))
    if f.id == "reversed" and len(node.args) == 1 and not node.keywords:
        arg = node.args[0]
        text = f"{_paren(ctx, arg)}[::-1]"
        kind = ctx.kind(arg)
        from msgraphlint.infer.values import Kind
        if kind is Kind.CONTAINER:
            # a CellList's slice is a new CellList that takes the cells over: in PyNative it renames their
            # parameters (measured on 2.10: `net.flows[::-1]` turns `flows.0.weight` into `0.weight`), so a
            # checkpoint no longer matches. No fix.
            return None
        if _list_value(ctx, arg):
            return Fix(f"`{_short(text)}`: a reversed slice (compiles natively)", (_replace(node, text),),
                       FixSafety.SAFE, proof="iterating `reversed(seq)` and `seq[::-1]` of a list or tuple "
                       "visits the same elements in the same order", drops=("reversed",))
        return None
    if f.id == "type" and len(node.args) == 1 and not node.keywords:
        parent = ctx.parent(node)
        if isinstance(parent, ast.Compare) and parent.left is node and len(parent.ops) == 1 \
                and isinstance(parent.ops[0], (ast.Is, ast.IsNot)) and "isinstance" not in ctx.imports.names:
            cls = parent.comparators[0]
            neg = "not " if isinstance(parent.ops[0], ast.IsNot) else ""
            text = f"{neg}isinstance({_seg(ctx, node.args[0])}, {_seg(ctx, cls)})"
            return Fix(f"`{_short(text)}` (resolved at compile time; unsafe: the same unless the value is of a "
                       "subclass, a Parameter being a Tensor)", (_replace(parent, text),), FixSafety.UNSAFE,
                       drops=("type", "is"))
    return None


def _list_value(ctx, arg: ast.AST) -> bool:
    """``arg`` holds a list or tuple: a display, or a local last bound to a display or a
    ``list``/``tuple`` built by appends."""
    if isinstance(arg, (ast.List, ast.Tuple)):
        return True
    if not isinstance(arg, ast.Name) or ctx.func is None:
        return False
    bound = [n for n in ast.walk(ctx.func) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For,
                                                             ast.With, ast.NamedExpr))
             and any(isinstance(t, ast.Name) and t.id == arg.id
                     for t in ast.walk(n.target if not isinstance(n, (ast.Assign, ast.With)) else
                                       (ast.Tuple(elts=n.targets, ctx=ast.Store()) if isinstance(n, ast.Assign)
                                        else ast.Tuple(elts=[i.optional_vars for i in n.items if i.optional_vars],
                                                       ctx=ast.Store()))))]
    params = {a.arg for a in ctx.func.args.args + ctx.func.args.kwonlyargs + ctx.func.args.posonlyargs}
    return bool(bound) and arg.id not in params and all(
        isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, (ast.List, ast.Tuple)) for n in bound)


def _all_any_fix(ctx, node: ast.Call, name: str) -> Optional[Fix]:
    gen = node.args[0]
    if not isinstance(gen, ast.GeneratorExp) or len(gen.generators) != 1:
        return None
    comp = gen.generators[0]
    if comp.ifs or comp.is_async or not isinstance(comp.target, ast.Name) or \
            not isinstance(comp.iter, (ast.Tuple, ast.List)) or not comp.iter.elts:
        return None
    items = comp.iter.elts
    if any(not isinstance(e, (ast.Name, ast.Attribute)) or isinstance(e, ast.Starred) for e in items):
        return None  # names and attributes only: evaluated lazily after the rewrite, with no effect
    var = comp.target.id
    if not _bool_predicate(gen.elt, var) or any(var in {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}
                                                for e in items):
        return None
    parts = [_substituted(ctx, gen.elt, var, e) for e in items]
    if any(p is None for p in parts):
        return None
    joiner = " and " if name == "all" else " or "
    text = joiner.join(f"({p})" if isinstance(gen.elt, ast.UnaryOp) else p for p in parts)
    parent = ctx.parent(node)
    if not isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) or getattr(parent, "test", None) is not node:
        text = f"({text})"
    return Fix(f"an `{joiner.strip()}` chain (compiles natively)", (_replace(node, text),), FixSafety.SAFE,
               proof=f"`{name}` of a predicate that is a Python bool for every value, over a fixed display of "
                     "names: the same value, evaluated in the same order, stopping at the same element",
               drops=(name, "for", "in") + (var,) * (1 + sum(isinstance(n, ast.Name) and n.id == var
                                                           for n in ast.walk(gen.elt))))


# MSG413 / MSG503 / MSG505 / MSG508 --------------------------------------------------------

def set_data_fix(ctx, node: ast.Call) -> Optional[Fix]:
    """MSG413: the statement ``p.set_data(v)`` → ``ops.assign(p, v)``. Unsafe: ``set_data`` may
    also change the Parameter's shape and dtype; ``assign`` writes values of the same ones."""
    f = node.func
    stmt = ctx.parent(node)
    if not isinstance(f, ast.Attribute) or f.attr != "set_data" or len(node.args) != 1 or node.keywords \
            or not isinstance(stmt, ast.Expr) or isinstance(node.args[0], ast.Starred):
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    text = f"{ops}.assign({_seg(ctx, f.value)}, {_seg(ctx, node.args[0])})"
    return Fix(f"`{_short(text)}`: write the Parameter in the graph (unsafe: the same only when the value has the "
               "Parameter's shape and dtype; `set_data` may replace them)", (_replace(node, text),) + tuple(imports),
               FixSafety.UNSAFE, drops=("set_data",))


def to_device_fix(ctx, node: ast.Call) -> Optional[Fix]:
    """MSG503: ``x.to("cuda")`` → ``x``; ``x.to(y.device, dtype)`` → ``x.astype(dtype)``: a graph's
    tensors are on the device already. Unsafe: the original fails (or reads the device through
    the interpreter), so no run compares the two."""
    f = node.func
    dot = _dot(ctx, f) if isinstance(f, ast.Attribute) else None
    if dot is None or node.keywords or not node.args or len(node.args) > 2:
        return None
    dev = node.args[0]
    drops = ("to",) + tuple(sorted(set(_words(_seg(ctx, dev)))))
    if len(node.args) == 1:
        return Fix("drop the device (unsafe: the tensor stays where it is; the call as written fails, so there is "
                   "no behaviour to compare)", (Edit(dot[0], dot[1], node.end_lineno, node.end_col_offset, ""),),
                   FixSafety.UNSAFE, drops=drops)
    dtype = node.args[1]
    return Fix(f"`.astype({_short(_seg(ctx, dtype))})`: drop the device, keep the cast (unsafe: the tensor stays "
               "where it is; the original reads the device through the interpreter)",
               (Edit(dot[0], dot[1], node.end_lineno, node.end_col_offset, f".astype({_seg(ctx, dtype)})"),),
               FixSafety.UNSAFE, drops=drops)


def _words(text: str):
    import re
    return re.findall(r"\w+", text)


def keyword_rename_fix(node: ast.Call, kw: str, alt: str) -> Optional[Fix]:
    """MSG505: ``ops.softmax(x, dim=-1)`` → ``axis=-1``, the name the target's signature has."""
    hits = [k for k in node.keywords if k.arg == kw]
    if len(hits) != 1 or any(k.arg == alt for k in node.keywords) or getattr(hits[0], "lineno", None) is None:
        return None
    k = hits[0]
    return Fix(f"rename `{kw}=` → `{alt}=` (unsafe: the same only when the keyword meant that parameter; the call "
               "fails to compile as written, so there is no behaviour to compare)",
               (Edit(k.lineno, k.col_offset, k.lineno, k.col_offset + len(kw), alt),), FixSafety.UNSAFE, drops=(kw,))


_TUPLE_FIELDS = {"values": 0, "indices": 1}


def named_tuple_fix(ctx, node: ast.Attribute) -> Optional[Fix]:
    """MSG508: ``mint.max(y, dim=-1).values`` → ``[0]`` (``.indices`` → ``[1]``): MindSpore returns
    the (values, indices) tuple PyTorch names. Unsafe: the original fails to compile."""
    dot = _dot(ctx, node)
    if node.attr not in _TUPLE_FIELDS or not isinstance(node.value, ast.Call) or dot is None:
        return None
    call = node.value
    q = ctx.qualname(call.func) or ""
    if not (q.rsplit(".", 1)[-1] in ("max", "min", "topk", "sort", "median", "mode", "kthvalue", "cummax", "cummin")
            and (any(k.arg == "dim" for k in call.keywords) or len(call.args) >= 2 or q.endswith(".topk")
                 or q.endswith(".sort"))):
        return None
    i = _TUPLE_FIELDS[node.attr]
    return Fix(f"`[{i}]`: index the (values, indices) tuple (unsafe: the same only when the call returns that tuple; "
               "the original fails to compile, so there is no behaviour to compare)",
               (Edit(dot[0], dot[1], node.end_lineno, node.end_col_offset, f"[{i}]"),),
               FixSafety.UNSAFE, drops=(node.attr,))


def inplace_name_fix(ctx, node: ast.Attribute) -> Optional[Fix]:
    """MSG508: the statement ``m.triu_(1)`` → ``m = m.triu(1)`` where MindSpore's Tensor has the
    out-of-place method. Unsafe: nothing else holding the tensor sees the new value."""
    call = ctx.parent(node)
    stmt = ctx.parent(call) if isinstance(call, ast.Call) else None
    if not (node.attr.endswith("_") and not node.attr.startswith("_") and isinstance(call, ast.Call)
            and call.func is node and isinstance(stmt, ast.Expr) and isinstance(node.value, ast.Name)):
        return None
    plain = node.attr[:-1]
    if ctx.catalog.tensor_method(plain) is None:
        return None
    name = node.value.id
    col = node.end_col_offset - len(node.attr)
    return Fix(f"`{name} = {name}.{plain}(…)` (unsafe: the same only when nothing else holds the tensor, which the "
               "in-place form would have changed too)",
               (Edit(stmt.lineno, stmt.col_offset, stmt.lineno, stmt.col_offset, f"{name} = "),
                Edit(node.end_lineno, col, node.end_lineno, node.end_col_offset, plain)), FixSafety.UNSAFE,
               drops=(node.attr,))


# MSG506 ---------------------------------------------------------------------------------

def positional_fix(node: ast.Call, args, overloads, matches) -> Optional[Fix]:
    """MSG506: ``y.max(0, 1)`` → ``y.max(0, True)`` (a 0/1 where the overload takes a bool, as
    PyTorch accepts), ``y.add(x, 2)`` → ``y.add(x, alpha=2)`` (positional arguments past the
    overload's positional parameters, given to its keyword-only ones in order); only when one
    such rewrite makes some overload accept the call (which overload MindSpore then picks is
    its own dispatch, as for the call written so). Unsafe: the call fails as written."""
    if list(args) != list(node.args) or not isinstance(node.func, ast.Attribute):
        return None
    candidates = []
    # (a) 0/1 literals as bools
    ints = [i for i, a in enumerate(args) if isinstance(a, ast.Constant) and type(a.value) is int and a.value in (0, 1)]
    for i in ints:
        trial = list(args)
        trial[i] = ast.Constant(value=bool(args[i].value))
        if any(matches(over, trial, node.keywords) is None for over in overloads):
            a = args[i]
            candidates.append((f"`{bool(a.value)}` for `{a.value}` (a bool parameter)",
                               (Edit(a.lineno, a.col_offset, a.end_lineno, a.end_col_offset, str(bool(a.value))),),
                               (str(a.value),)))
    # (b) extra positionals to keyword-only parameters
    for over in overloads:
        positional = [p for p in over["params"] if not p["kw"]]
        kwonly = [p["name"] for p in over["params"] if p["kw"] and p["name"] not in {k.arg for k in node.keywords}]
        extra = list(args[len(positional):])
        if not extra or len(extra) > len(kwonly) or any(getattr(a, "lineno", None) is None for a in extra):
            continue
        kws = [ast.keyword(arg=n, value=a) for n, a in zip(kwonly, extra)]
        if matches(over, args[:len(positional)], list(node.keywords) + kws) is None:
            edits = tuple(Edit(a.lineno, a.col_offset, a.lineno, a.col_offset, f"{n}=") for n, a in zip(kwonly, extra))
            shown = ", ".join(f"`{n}=`" for n in kwonly[:len(extra)])
            candidates.append((f"pass {shown} by keyword (a keyword-only parameter)", edits, ()))
            break
    if len(candidates) != 1:
        return None  # none, or two readings: the author's choice
    what, edits, drops = candidates[0]
    return Fix(f"{what} (unsafe: the same only when that is the parameter meant; the call fails to compile as "
               "written, so there is no behaviour to compare)", edits, FixSafety.UNSAFE, drops=drops)


# MSG302 ---------------------------------------------------------------------------------

def _pure(e: ast.AST) -> bool:
    """Evaluating ``e`` twice computes the same value and does nothing else: names, attributes
    of names, constants, and comparisons / arithmetic of those."""
    if isinstance(e, (ast.Name, ast.Constant)):
        return True
    if isinstance(e, ast.Attribute):
        return _pure(e.value)
    if isinstance(e, ast.UnaryOp):
        return _pure(e.operand)
    if isinstance(e, ast.BinOp):
        return _pure(e.left) and _pure(e.right)
    if isinstance(e, ast.Compare):
        return _pure(e.left) and all(_pure(c) for c in e.comparators)
    return False


def masked_reduce_fix(ctx, node: ast.Call, q: str) -> Optional[Fix]:
    """MSG302: ``ops.masked_select(x, m).sum()`` → ``ops.where(m, x, 0).sum()`` and ``.mean()`` →
    ``ops.where(m, x, 0).sum() / m.astype(x.dtype).sum()``: the same reduction on a static shape.
    Unsafe: summation order differs (float rounding); for the mean, the same only when the mask
    has the input's shape (``masked_select`` broadcasts them, the count does not)."""
    if q != "mindspore.ops.masked_select" or len(node.args) != 2 or node.keywords:
        return None
    attr = ctx.parent(node)
    call = ctx.parent(attr) if isinstance(attr, ast.Attribute) else None
    if not (isinstance(attr, ast.Attribute) and attr.attr in ("sum", "mean") and isinstance(call, ast.Call)
            and call.func is attr and not call.args and not call.keywords and call.end_lineno is not None):
        return None
    x, m = node.args
    if not (_pure(x) and _pure(m)):
        return None
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    xs, ms_ = _seg(ctx, x), _seg(ctx, m)
    total = f"{ops}.where({ms_}, {xs}, 0).sum()"
    if attr.attr == "sum":
        text, cond = total, "the sum is taken in another order (float rounding)"
    else:
        text = f"({total} / {_paren(ctx, m)}.astype({_paren(ctx, x)}.dtype).sum())"
        cond = ("the mask has the input's shape (`masked_select` broadcasts them; the count here does not), up to "
                "float rounding; with nothing selected both are NaN")
    return Fix(f"`{_short(text)}`: the same reduction without a data-dependent shape (unsafe: the same only when "
               f"{cond})", (_replace(call, text),) + tuple(imports), FixSafety.UNSAFE,
               drops=("masked_select", "mean") if attr.attr == "mean" else ("masked_select",))


# MSG406 ---------------------------------------------------------------------------------

def _held_elsewhere(ctx, name: str, before: ast.stmt) -> bool:
    """Whether another name or container may hold the list ``name`` is bound to when
    ``before`` runs: any read of ``name`` earlier in the function other than as a method's
    receiver, a subscript's value or ``len``'s argument (those do not keep the list)."""
    func = ctx.func
    if func is None:
        return True
    # in a loop, what the body reads after the statement runs before its next run
    in_loops = set()
    anc = _parent_of(ctx, before)
    while anc is not None and anc is not func:
        if isinstance(anc, (ast.For, ast.While, ast.AsyncFor)):
            in_loops.update(id(n) for n in ast.walk(anc))
        anc = _parent_of(ctx, anc)
    receiver = before.value.func.value if isinstance(before, ast.Expr) and isinstance(before.value, ast.Call) \
        and isinstance(before.value.func, ast.Attribute) else None
    # a list the name was bound to from elsewhere (`first = pairs[0]`, a parameter, a call's
    # result) is held by that container or caller too: only a fresh list is the name's alone
    for n in ast.walk(func):
        if isinstance(n, ast.arg) and n.arg == name:
            return True
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and not _fresh_list(n.value):
                return True
        if isinstance(n, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)) and any(
                isinstance(t, ast.Name) and t.id == name for t in ast.walk(
                    n.target if isinstance(n, (ast.For, ast.AsyncFor, ast.NamedExpr))
                    else ast.Tuple(elts=[i.optional_vars for i in n.items if i.optional_vars], ctx=ast.Load()))):
            return True
    for n in ast.walk(func):
        if not (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)) or n is receiver:
            continue
        if n.lineno >= before.lineno and id(n) not in in_loops:
            continue
        parent = _parent_of(ctx, n)
        if isinstance(parent, ast.Attribute) and isinstance(_parent_of(ctx, parent), ast.Call) \
                and _parent_of(ctx, parent).func is parent:
            continue
        if isinstance(parent, ast.Subscript) and parent.value is n:
            continue
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len":
            continue
        return True
    return False


def _fresh_list(e: ast.AST) -> bool:
    """A value that is a new list no one else holds: a display, a comprehension, ``list(...)``,
    or ``+`` of such values and names (``[v] + parts`` makes a new list)."""
    if isinstance(e, (ast.List, ast.ListComp)):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "list":
        return True
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Mult)):
        return any(isinstance(x, (ast.List, ast.ListComp)) for x in (e.left, e.right)) or (
            _fresh_list(e.left) or _fresh_list(e.right))
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice):
        return True  # a slice of a list is a new list
    return False


def list_method_fix(ctx, node: ast.Call) -> Optional[Fix]:
    """MSG406: the statement ``parts.extend([...])`` → ``parts += [...]`` (the same operation on a
    list: ``list.__iadd__`` extends in place); ``parts.insert(0, v)`` → ``parts = [v] + parts`` and
    ``parts.reverse()`` → ``parts = parts[::-1]`` (a new list bound to the name: the same when no
    other name holds the old one, else unsafe)."""
    f = node.func
    stmt = ctx.parent(node)
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and isinstance(stmt, ast.Expr)
            and (stmt.col_offset, stmt.end_col_offset, stmt.end_lineno) == (node.col_offset, node.end_col_offset,
                                                                             node.end_lineno)) or node.keywords:
        return None
    name = f.value.id
    if f.attr == "extend" and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.ListComp)):
        text = f"{name} += {_seg(ctx, node.args[0])}"
        return Fix(f"`{_short(text)}` (compiles natively)", (_replace(node, text),), FixSafety.SAFE,
                   proof="`lst += [...]` on a list is `lst.extend([...])` (list.__iadd__ extends in place)",
                   drops=("extend",))
    if f.attr == "insert" and len(node.args) == 2 and isinstance(node.args[0], ast.Constant) \
            and node.args[0].value == 0 and type(node.args[0].value) is int:
        text, drops = f"{name} = [{_seg(ctx, node.args[1])}] + {name}", ("insert", "0")
    elif f.attr == "reverse" and not node.args:
        text, drops = f"{name} = {name}[::-1]", ("reverse",)
    else:
        return None
    if _held_elsewhere(ctx, name, stmt):
        return Fix(f"`{_short(text)}` (unsafe: a new list is bound to `{name}`; the same only when nothing else "
                   "holds the old one, which the in-place method would have changed too)", (_replace(node, text),),
                   FixSafety.UNSAFE, drops=drops)
    return Fix(f"`{_short(text)}` (compiles natively)", (_replace(node, text),), FixSafety.SAFE,
               proof=f"no other name or container holds the list `{name}` (its earlier reads are method calls, "
                     "subscripts and len): rebinding it to the new list is the in-place change",
               drops=drops)


# where a host value is read: the op form is offered only where a tensor does the same there

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _is_number(e: ast.AST) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
    return isinstance(e, ast.Constant) and type(e.value) in (int, float)


def _parent_of(ctx, node: ast.AST) -> Optional[ast.AST]:
    """``node``'s parent, also for nodes the rules' walk has not reached yet (``ctx.parent``
    knows only those): a parent map of the function, built once per function."""
    func = ctx.func
    if func is None:
        return ctx.parent(node)
    key = ("hostfix_parents", id(func))
    parents = ctx.memo.get(key)
    if parents is None:
        parents = ctx.memo[key] = {id(c): n for n in ast.walk(func) for c in ast.iter_child_nodes(n)}
    return parents.get(id(node)) or ctx.parent(node)


def tensor_sink(ctx, node: ast.AST, depth: int = 0) -> bool:
    """Every read of ``node``'s value takes a tensor as well as a host number or array: an
    operand of arithmetic with a tensor (``x / m``), ``Tensor(v, dtype)``, arithmetic with a
    number whose result is such a read, a local whose every later read is one, or the value
    a graph root returns (its caller then gets a tensor, as the fix says). Anything else
    (``mint.arange(n)``, ``range``, ``divmod``, a list repeated, ``.repeat(n, 1)``, a shape, a
    helper's return) may need the Python number: no fix there (mindone's
    ``h = h.item(); mint.arange(h)`` loops)."""
    if depth > 6:
        return False
    parent = _parent_of(ctx, node)
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, _ARITH):
        other = parent.right if parent.left is node else parent.left
        if ctx.kind(other).tensor_like and not _is_number(other):
            return True
        return _is_number(other) and tensor_sink(ctx, parent, depth + 1)
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and _tensor_ctor(ctx, parent):
        return True
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Constant) \
            and type(parent.slice.value) is int:
        return tensor_sink(ctx, parent, depth + 1)  # an element: a 0-d tensor where it was a Python number
    if isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], ast.Name) and ctx.func is not None:
        name = parent.targets[0].id
        reads = [n for n in ast.walk(ctx.func) if isinstance(n, ast.Name) and n.id == name
                 and isinstance(n.ctx, ast.Load) and (n.lineno, n.col_offset) > (parent.lineno, parent.col_offset)]
        stores = [n for n in ast.walk(ctx.func) if isinstance(n, ast.Name) and n.id == name
                  and not isinstance(n.ctx, ast.Load) and n is not parent.targets[0]]
        return bool(reads) and not stores and all(tensor_sink(ctx, r, depth + 1) for r in reads)
    if isinstance(parent, ast.Tuple) and isinstance(_parent_of(ctx, parent), ast.Return):
        parent = _parent_of(ctx, parent)
    if isinstance(parent, ast.Return):
        s = ctx.scope
        return s is not None and not s.chain and s.kind in ("construct", "jit") and ctx.func is not None \
            and ctx.func.lineno == s.lineno
    return False

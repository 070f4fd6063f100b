"""How a graph-scope function uses its own parameters. Shared by the MSG1xx and MSG3xx rules.

``values.py`` assumes that a ``construct``/``jit`` parameter without a default or an
annotation is a tensor. That is the right default for the kind of an expression, but a
rule that would *report* on a bare parameter (``if flag:``, ``def construct(self, x, n)``)
wants evidence from the body first:

* tensor: a tensor-only attribute or method (``p.sum()``, ``p.shape``, ``p.astype``: not
  an attribute of any Python scalar, string or container), ``p @ q``, multi-axis
  subscripts (``p[:, 0]``, ``p[..., None]``), or ``p`` as the first argument of a
  ``mindspore.ops``/``mint`` function (other than the creation functions that take sizes);
* int: a slice bound (``x[:, :p]``), a ``range()`` bound, a size/shape argument
  (``ops.zeros((p, 4))``, ``x.reshape(b, p, -1)``, ``ops.topk(x, p)``);
* str: compared with a string literal (``p == "train"``, ``p in ("a", "b")``);
* seq: iterated (``for t in p``, ``for t in p[1:]``, ``enumerate(p)``, ``zip(p, …)``) or
  star-unpacked into a call.

The walk is one pass over the function (nested ``def``/``lambda`` bodies are skipped: they
bind their own names).
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterator, List, Optional, Tuple

from msgraphlint.parse.astutil import children_no_ctx as _children  # no rule here looks at Load/Store markers
from msgraphlint.infer.values import Kind

# Functions whose size/shape/count arguments must be Python ints (or tuples of ints)
# for a static shape: qualname -> (positional indices, keyword names). A Python int
# parameter there recompiles per value; a tensor there makes the output dynamic-shape.
SIZE_ARGS: Dict[str, Tuple[Tuple[int, ...], Tuple[str, ...]]] = {
    "mindspore.ops.zeros": ((0,), ("size", "shape")),
    "mindspore.ops.ones": ((0,), ("size", "shape")),
    "mindspore.ops.empty": ((0,), ("size", "shape")),
    "mindspore.ops.full": ((0,), ("size", "shape")),
    "mindspore.ops.fill": ((1,), ("shape",)),
    "mindspore.ops.arange": ((0, 1, 2), ("start", "end", "step")),
    "mindspore.ops.range": ((0, 1, 2), ("start", "end", "step")),
    "mindspore.ops.eye": ((0, 1), ("n", "m")),
    "mindspore.ops.reshape": ((1,), ("shape",)),
    "mindspore.ops.broadcast_to": ((1,), ("shape",)),
    "mindspore.ops.tile": ((1,), ("multiples", "dims")),
    "mindspore.ops.narrow": ((2, 3), ("start", "length")),
    "mindspore.ops.topk": ((1,), ("k",)),
    "mindspore.ops.one_hot": ((1,), ("depth",)),
    "mindspore.mint.zeros": ((0,), ("size",)),
    "mindspore.mint.ones": ((0,), ("size",)),
    "mindspore.mint.empty": ((0,), ("size",)),
    "mindspore.mint.full": ((0,), ("size",)),
    "mindspore.mint.arange": ((0, 1, 2), ("start", "end", "step")),
    "mindspore.mint.eye": ((0, 1), ("n", "m")),
    "mindspore.mint.reshape": ((1,), ("shape",)),
    "mindspore.mint.broadcast_to": ((1,), ("size", "shape")),
    "mindspore.mint.tile": ((1,), ("dims",)),
    "mindspore.mint.narrow": ((2, 3), ("start", "length")),
    "mindspore.mint.topk": ((1,), ("k",)),
    "mindspore.numpy.zeros": ((0,), ("shape",)),
    "mindspore.numpy.ones": ((0,), ("shape",)),
    "mindspore.numpy.full": ((0,), ("shape",)),
    "mindspore.numpy.arange": ((0, 1, 2), ("start", "stop", "step")),
    "mindspore.numpy.reshape": ((1,), ("new_shape",)),
}
# Tensor methods whose arguments are sizes: name -> (positional indices or "*" for all, keywords)
SIZE_METHODS: Dict[str, Tuple[object, Tuple[str, ...]]] = {
    "reshape": ("*", ("shape",)),
    "view": ("*", ("shape",)),
    "broadcast_to": ((0,), ("shape", "size")),
    "expand": ("*", ("size",)),
    "tile": ("*", ("multiples", "dims")),
    "repeat": ("*", ()),
    "narrow": ((1, 2), ("start", "length")),
    "topk": ((0,), ("k",)),
    "new_zeros": ("*", ("size",)),
    "new_ones": ("*", ("size",)),
    "new_full": ((0,), ("size",)),
    "new_empty": ("*", ("size",)),
}

# Tensor attributes that no Python scalar, string or container has (computed from the
# catalog's Tensor methods minus the attributes of the builtin types).
_GENERIC = frozenset({"data", "init", "type", "to", "device", "hooks", "select", "fill", "take", "round",
                      "size", "item", "numpy", "dim", "H", "T"})
_FALLBACK_TENSOR_ATTRS = frozenset({
    "abs", "all", "any", "argmax", "argmin", "asnumpy", "astype", "broadcast_to", "clamp", "clip",
    "cumsum", "dtype", "exp", "expand_dims", "flatten", "float", "int", "half", "bool", "log", "masked_fill",
    "matmul", "max", "mean", "min", "ndim", "norm", "permute", "pow", "prod", "reshape", "shape", "sigmoid",
    "softmax", "sqrt", "squeeze", "std", "sum", "swapaxes", "tanh", "tile", "transpose", "unsqueeze", "var",
    "view", "nonzero", "unique", "masked_select", "argwhere", "gather", "repeat_interleave", "expand",
})
_TENSOR_ATTRS: List[FrozenSet[str]] = []


def tensor_only_attrs() -> FrozenSet[str]:
    if not _TENSOR_ATTRS:
        names = set(_FALLBACK_TENSOR_ATTRS)
        try:
            from msgraphlint.infer.catalog import get_catalog
            names |= set(get_catalog().tensor_methods())
        except Exception:  # pragma: no cover - catalog unavailable: the fixed list only
            pass
        builtin = set()
        for t in (int, float, complex, bool, str, bytes, tuple, list, dict, set, frozenset, type(None)):
            builtin |= set(dir(t))
        _TENSOR_ATTRS.append(frozenset(n for n in names - builtin - _GENERIC if not n.startswith("_")))
    return _TENSOR_ATTRS[0]


_CREATION_PREFIXES = ("mindspore.ops.", "mindspore.mint.", "mindspore.numpy.")


class ParamUse:
    __slots__ = ("tensor", "int_", "str_", "seq")

    def __init__(self) -> None:
        self.tensor: Optional[ast.AST] = None
        self.int_: Optional[Tuple[ast.AST, str]] = None
        self.str_: Optional[Tuple[ast.AST, str]] = None
        self.seq: Optional[Tuple[ast.AST, str]] = None

    def python_value(self) -> Optional[Tuple[str, ast.AST, str]]:
        """('int'|'str'|'seq', node, why) when the body says the parameter is a Python
        value (and nothing says it is a tensor)."""
        if self.tensor is not None:
            return None
        for kind, ev in (("str", self.str_), ("int", self.int_), ("seq", self.seq)):
            if ev is not None:
                return kind, ev[0], ev[1]
        return None


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _walk(func: ast.AST) -> List[ast.AST]:
    """The function's nodes (not into nested ``def``/``lambda``/``class`` bodies)."""
    out: List[ast.AST] = []
    stack = list(func.body) if isinstance(func.body, list) else [func.body]  # type: ignore[attr-defined]
    pop, push, add = stack.pop, stack.append, out.append
    while stack:
        n = pop()
        add(n)
        if isinstance(n, _NESTED):
            continue
        for c in _children(n):
            push(c)
    return out


def param_names(func: ast.AST) -> List[str]:
    args = func.args  # type: ignore[attr-defined]
    names = [a.arg for a in list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)]
    return [n for n in names if n not in ("self", "cls")]


def _names_in_size(expr: ast.AST) -> Iterator[ast.Name]:
    """Bare names that make up a size expression: ``p``, ``p * 2``, ``(b, p, -1)``, ``-p``
    (left to right; an explicit stack: a sum of thousands of terms is as deep as a tree gets)."""
    stack = [expr]
    while stack:
        expr = stack.pop()
        if isinstance(expr, ast.Name):
            yield expr
        elif isinstance(expr, (ast.Tuple, ast.List)):
            stack.extend(e.value if isinstance(e, ast.Starred) else e for e in reversed(expr.elts))
        elif isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            stack.append(expr.right)
            stack.append(expr.left)
        elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            stack.append(expr.operand)


def _operands(expr: ast.AST) -> Iterator[ast.Name]:
    """Names combined by operators in an expression: ``x``, ``x > 0``, ``-x * y`` (left to
    right, an explicit stack)."""
    stack = [expr]
    while stack:
        expr = stack.pop()
        if isinstance(expr, ast.Name):
            yield expr
        elif isinstance(expr, ast.BinOp):
            stack.append(expr.right)
            stack.append(expr.left)
        elif isinstance(expr, ast.UnaryOp):
            stack.append(expr.operand)
        elif isinstance(expr, ast.Compare):
            stack.extend(reversed([expr.left] + list(expr.comparators)))
        elif isinstance(expr, ast.BoolOp):
            stack.extend(reversed(expr.values))


def size_args(call: ast.Call, qualname: Optional[str]) -> List[ast.AST]:
    """The arguments of a call that are sizes/shapes/counts (see SIZE_ARGS/SIZE_METHODS).
    ``qualname`` is the resolved MindSpore name of ``call.func`` (None for a method call)."""
    out: List[ast.AST] = []
    spec = None
    if qualname is not None:
        spec = SIZE_ARGS.get(qualname)
        if spec is None:
            return out
        positions, keywords = spec
    elif isinstance(call.func, ast.Attribute) and call.func.attr in SIZE_METHODS:
        positions, keywords = SIZE_METHODS[call.func.attr]  # type: ignore[assignment]
    else:
        return out
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        if positions == "*" or i in positions:  # type: ignore[operator]
            out.append(a)
    for kw in call.keywords:
        if kw.arg in keywords:
            out.append(kw.value)
    return out


# Operand names (from the catalog's primitive ``inputs``) that are sizes, shapes or counts,
# and those that are tensors: ``self.reshape(x, shape)`` with ``Reshape``'s ("input", "shape").
SIZE_INPUTS = frozenset({"shape", "size", "sizes", "multiples", "dims", "k", "depth", "output_size",
                         "num_segments", "start", "end", "limit", "delta", "step", "n", "m", "begin",
                         "length", "new_shape", "num"})
TENSOR_INPUTS = frozenset({"x", "input", "input_x", "x1", "x2", "y", "other", "params", "input_params",
                           "indices", "input_indices", "updates", "logits", "labels", "weight", "bias", "var",
                           "tensor", "tensors", "inputs", "images", "image", "query", "key", "mask", "target",
                           "data", "a", "b", "values", "grad", "gradient"})


def primitive_operands(call: ast.Call, inputs) -> Tuple[List[ast.AST], List[ast.AST]]:
    """(size operands, tensor operands) of a call on a primitive instance whose operand
    names are ``inputs`` (empty: unknown signature, no evidence either way)."""
    sizes: List[ast.AST] = []
    tensors: List[ast.AST] = []
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred) or i >= len(inputs):
            break
        if inputs[i] in SIZE_INPUTS:
            sizes.append(a)
        elif inputs[i] in TENSOR_INPUTS:
            tensors.append(a)
    for kw in call.keywords:
        if kw.arg in SIZE_INPUTS and kw.arg in inputs:
            sizes.append(kw.value)
        elif kw.arg in TENSOR_INPUTS and kw.arg in inputs:
            tensors.append(kw.value)
    return sizes, tensors


def slice_bounds(sub: ast.Subscript) -> List[ast.AST]:
    idx = sub.slice
    parts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
    out = []
    for p in parts:
        if isinstance(p, ast.Slice):
            out += [b for b in (p.lower, p.upper, p.step) if b is not None]
    return out


def _strings(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    return False


def weak_names(func: ast.AST, nodes: Optional[List[ast.AST]] = None) -> FrozenSet[str]:
    """Names whose kind the value analysis can only guess: the parameters, and names bound
    only by unpacking (``x, H, W = self.patch_embed(x)``, ``for a, b in ...``): a Cell may
    return shape ints next to tensors. A name also bound by a plain ``name = expr`` or an
    augmented assignment is not weak."""
    weak = set(param_names(func))
    simple = set()
    for node in (nodes if nodes is not None else _walk(func)):
        targets: List[ast.AST] = []
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    simple.add(t.id)
                else:
                    targets.append(t)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            simple.add(node.target.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            simple.add(node.target.id)
        elif isinstance(node, (ast.For, ast.comprehension)):
            targets.append(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets.append(node.optional_vars)
        for t in targets:
            weak.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return frozenset(weak - simple)


def analyse(func: ast.AST, qualname, names: Optional[FrozenSet[str]] = None,
            nodes: Optional[List[ast.AST]] = None, prim_inputs=None) -> Dict[str, ParamUse]:
    """Evidence per name (the parameters, or ``names``). ``qualname(expr)`` resolves
    MindSpore names (ctx.qualname). ``prim_inputs(func)`` gives the operand names of a
    call on a primitive held on ``self`` (``()`` when unknown, None when not one)."""
    params = set(param_names(func)) if names is None else set(names)
    uses: Dict[str, ParamUse] = {p: ParamUse() for p in params}
    if not params:
        return uses
    tattrs = tensor_only_attrs()

    def is_param(n: ast.AST) -> Optional[str]:
        return n.id if isinstance(n, ast.Name) and n.id in params else None

    for node in (nodes if nodes is not None else _walk(func)):
        if isinstance(node, ast.Attribute):
            if node.attr in tattrs:  # `p.sum()`, `(p > 0).astype(...)`: only a tensor has it
                for n in _operands(node.value):
                    if n.id in params and uses[n.id].tensor is None:
                        uses[n.id].tensor = node
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            for side in (node.left, node.right):
                p = is_param(side)
                if p and uses[p].tensor is None:
                    uses[p].tensor = node
        elif isinstance(node, ast.Subscript):
            p = is_param(node.value)
            if p:
                # a tuple index: Python sequences reject it (TypeError), tensors take it
                if isinstance(node.slice, ast.Tuple) and uses[p].tensor is None:
                    uses[p].tensor = node
            for b in slice_bounds(node):
                for n in _names_in_size(b):
                    if n.id in params and uses[n.id].int_ is None:
                        uses[n.id].int_ = (n, "a slice bound")
        elif isinstance(node, ast.Compare):
            operands = [node.left] + list(node.comparators)
            for (a, b), op in zip(zip(operands, operands[1:]), node.ops):
                if isinstance(op, (ast.Eq, ast.NotEq)):
                    pairs = [(a, b), (b, a)]
                elif isinstance(op, (ast.In, ast.NotIn)):
                    pairs = [(a, b)]  # `p in ("a", "b")`; `"key" in p` makes p a container, not a str
                else:
                    continue
                for mine, other in pairs:
                    p = is_param(mine)
                    if p and _strings(other) and uses[p].str_ is None:
                        uses[p].str_ = (mine, "compared with a string")
        elif isinstance(node, (ast.For, ast.comprehension)):
            it = node.iter
            if isinstance(it, ast.Subscript) and isinstance(it.slice, ast.Slice):
                it = it.value
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("enumerate", "zip", "reversed"):
                cands = [a.value if isinstance(a, ast.Subscript) and isinstance(a.slice, ast.Slice) else a for a in it.args]
            else:
                cands = [it]
            for c in cands:
                p = is_param(c)
                if p and uses[p].seq is None:
                    uses[p].seq = (c, "iterated")
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "range":
                for a in node.args:
                    for n in _names_in_size(a):
                        if n.id in params and uses[n.id].int_ is None:
                            uses[n.id].int_ = (n, "a `range()` bound")
            for a in node.args:
                if isinstance(a, ast.Starred):
                    p = is_param(a.value)
                    if p and uses[p].seq is None:
                        uses[p].seq = (a, "star-unpacked")
            q = qualname(f) if not (isinstance(f, ast.Attribute) and is_param(f.value)) else None
            if q is not None and not q.startswith("mindspore."):
                q = None
            on_self = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"
            # `self.<attr>(...)` is never a Tensor method: a primitive held on self is typed from
            # its operand names (catalog), a sub-cell or method gives no size evidence
            method = isinstance(f, ast.Attribute) and q is None and not on_self
            sizes = size_args(node, q) if (q is not None or method) else []
            if on_self and q is None and prim_inputs is not None:
                inputs = prim_inputs(f)
                if inputs:
                    sizes, tensors = primitive_operands(node, inputs)
                    for t in tensors:
                        for n in _operands(t):
                            if n.id in params and uses[n.id].tensor is None:
                                uses[n.id].tensor = node
            for s in sizes:
                for n in _names_in_size(s):
                    if n.id in params and uses[n.id].int_ is None:
                        what = f"the `{f.attr if isinstance(f, ast.Attribute) else q.rsplit('.', 1)[-1]}` size argument"
                        uses[n.id].int_ = (n, what)
            if q is not None and q.startswith(_CREATION_PREFIXES) and 0 not in SIZE_ARGS.get(q, ((),))[0] \
                    and node.args and q.rsplit(".", 1)[-1][:1].islower():
                for n in _operands(node.args[0]):  # `ops.nonzero(x > 0)`: the input of an op is a tensor
                    if n.id in params and uses[n.id].tensor is None:
                        uses[n.id].tensor = node
    return uses


def simple_assigns(func: ast.AST, nodes: Optional[List[ast.AST]] = None) -> Dict[str, Optional[List[ast.AST]]]:
    """name -> the values assigned to it in the function by plain ``name = value``
    statements; None for a parameter or a name also bound any other way (unpacking, loop
    targets, augmented assignment): unknown."""
    out: Dict[str, Optional[List[ast.AST]]] = {}
    unknown = set(param_names(func))
    for node in (nodes if nodes is not None else _walk(func)):
        targets: List[ast.AST] = []
        if isinstance(node, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                out.setdefault(node.targets[0].id, []).append(node.value)
                continue
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension, ast.NamedExpr)):
            targets = [node.target]
        for t in targets:
            unknown.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    for name in unknown:
        out[name] = None
    return out


_PY_TYPES = frozenset({"int", "float", "bool", "str", "tuple", "list", "dict", "complex"})


def _narrowed_to_python(ctx, node: ast.Name) -> bool:
    """``node`` sits in the body of ``if isinstance(name, int)`` (or another Python type)."""
    prev: ast.AST = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.If) and any(prev is b for b in anc.body):
            t = anc.test
            if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "isinstance" \
                    and len(t.args) == 2 and isinstance(t.args[0], ast.Name) and t.args[0].id == node.id:
                types = t.args[1].elts if isinstance(t.args[1], ast.Tuple) else [t.args[1]]
                if any(isinstance(e, ast.Name) and e.id in _PY_TYPES for e in types):
                    return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        prev = anc
    return False


def _bound_names(node: ast.AST) -> List[ast.Name]:
    """The names a statement (or comprehension, walrus) binds."""
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.NamedExpr)):
        targets = [node.target]
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        targets = [node.optional_vars]
    else:
        return []
    return [n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]


def _tensor_valued(ctx, value: ast.AST, name: str) -> bool:
    """``value`` (bound to the parameter ``name``) may be a tensor: any kind but a surely
    Python one; in ``name or v`` / ``v if c else name`` only the other operands count."""
    if isinstance(value, ast.BoolOp):
        return any(_tensor_valued(ctx, v, name) for v in value.values
                   if not (isinstance(v, ast.Name) and v.id == name))
    if isinstance(value, ast.IfExp):
        return any(_tensor_valued(ctx, v, name) for v in (value.body, value.orelse)
                   if not (isinstance(v, ast.Name) and v.id == name))
    return ctx.kind(value) not in (Kind.CONST, Kind.NONE)


def _prim_inputs_of(ctx):
    """``primitive_inputs(ctx, f)`` memoised per attribute name for one scope (its answer
    depends only on the scope's class and ``f``'s attribute)."""
    from .primattrs import primitive_inputs, _self_attr
    memo: Dict[str, Optional[Tuple[str, ...]]] = {}

    def ask(f: ast.AST) -> Optional[Tuple[str, ...]]:
        attr = _self_attr(f)
        if attr is None:
            return None
        if attr not in memo:
            memo[attr] = primitive_inputs(ctx, f)
        return memo[attr]
    return ask


class ScopeUses:
    """Per-scope cache: one analysis per ScopeValues object (i.e. per scope walk)."""

    def __init__(self) -> None:
        self._key = None
        self._val: Dict[str, ParamUse] = {}
        self._weak: FrozenSet[str] = frozenset()
        self._assigns: Dict[str, Optional[List[ast.AST]]] = {}
        self._name_memo: Dict[str, bool] = {}
        self._first_binding: Dict[str, Tuple[Optional[int], bool]] = {}
        self._nodes: List[ast.AST] = []
        self._binders: Optional[Dict[str, Tuple[List[int], List[ast.AST]]]] = None

    def get(self, ctx) -> Tuple[Dict[str, ParamUse], FrozenSet[str]]:
        """(evidence per parameter and weak name, the weak names)."""
        values = ctx.values
        if values is None:
            return {}, frozenset()
        if self._key is not values:
            self._key = values
            nodes = _walk(values.func)
            self._weak = weak_names(values.func, nodes)
            self._assigns = simple_assigns(values.func, nodes)
            self._nodes = nodes
            self._binders = None
            self._val = analyse(values.func, ctx.qualname,
                                self._weak | frozenset(param_names(values.func)) | frozenset(self._assigns), nodes,
                                prim_inputs=_prim_inputs_of(ctx))
            self._name_memo = {}
            self._first_binding = {}
        return self._val, self._weak

    def assigns(self, ctx) -> Dict[str, Optional[List[ast.AST]]]:
        self.get(ctx)
        return self._assigns

    def _name_grounded(self, ctx, name: str, depth: int) -> bool:
        """A local holds a run-time tensor unless every value assigned to it is a Python
        value or itself not grounded (``new_h = 2 * window_size[0] - 1``)."""
        if name in self._name_memo:
            return self._name_memo[name]
        vals = self.assigns(ctx).get(name)
        use = self._val.get(name)
        if not vals or (use is not None and use.tensor is not None):
            return True  # unknown binding, or used as a tensor (`y.sum()`)
        self._name_memo[name] = False  # a cycle (`i = i + 1`) adds nothing
        # (a host value, `n = int(x.max())`, is run-time data too: cast-then-size through a local)
        result = any((ctx.kind(v).tensor_like or ctx.kind(v) is Kind.HOST) and self.grounded(ctx, v, depth + 1)
                     for v in vals)
        self._name_memo[name] = result
        return result

    def guessed(self, ctx, node: ast.AST) -> bool:
        """A name whose tensor kind is only a guess: weak, with no tensor use in the body."""
        if not isinstance(node, ast.Name):
            return False
        if node.id in ctx.values.from_callers and ctx.values.params.get(node.id) is Kind.TENSOR:
            return False  # the project's call sites pass a tensor (msgraphlint/infer/paramkinds.py)
        uses, weak = self.get(ctx)
        use = uses.get(node.id)
        if node.id not in weak:
            return self._param_before_rebinding(ctx, node)
        return use is not None and use.tensor is None

    def _param_before_rebinding(self, ctx, node: ast.Name) -> bool:
        """A parameter rebound later in the body (``dtype = dtype or x.dtype``, ``if not
        dtype: dtype = x.dtype``) is read as the caller's value up to its first binding:
        there, it is a guess like any parameter, unless the body uses it as a tensor (when
        that first binding is an unconditional statement of the body, which the caller's
        value does not pass, only the statements up to it count). A read inside a loop is
        not judged so (a later binding may flow back)."""
        func = ctx.values.func
        if node.id not in param_names(func):
            return False
        memo = self._first_binding
        if node.id not in memo:
            self.get(ctx)
            nodes = self._nodes
            lines, assigned = self._binders_of(node.id)
            first = min(lines) if lines else None
            used = True
            if first is not None and all(isinstance(n, ast.Assign) and len(n.targets) == 1 and
                                         not _tensor_valued(ctx, n.value, node.id) for n in assigned):
                # every rebinding is a Python value (`dtype or x.dtype`, `x.dtype`): a parameter
                # rebound to a tensor (`a = P.Add()(a, b)`, `idx = idx + 1`) keeps its old reading
                kills = any(isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                            and any(t.id == node.id and t.lineno == first for t in _bound_names(st))
                            for st in func.body)
                if kills:
                    early = [n for n in nodes if getattr(n, "lineno", first + 1) <= first]
                    use = analyse(func, ctx.qualname, frozenset({node.id}), early,
                                  prim_inputs=_prim_inputs_of(ctx)).get(node.id)
                else:
                    use = self._val.get(node.id)
                used = use is None or use.tensor is not None
            memo[node.id] = (first, used)
        first, used_as_tensor = memo[node.id]
        if first is None or used_as_tensor or node.lineno > first:
            return False
        for anc in ctx.ancestors(node):
            if anc is func:
                break
            if isinstance(anc, (ast.For, ast.AsyncFor, ast.While)):
                return False
        return True

    def _binders_of(self, name: str) -> Tuple[List[int], List[ast.AST]]:
        """(the lines where ``name`` is bound, the nodes that bind it, in walk order) in the
        scope of the last ``get``: one pass over its nodes for every name asked."""
        if self._binders is None:
            binders: Dict[str, Tuple[List[int], List[ast.AST]]] = {}
            for n in self._nodes:
                seen = None
                for t in _bound_names(n):
                    lines, assigned = binders.setdefault(t.id, ([], []))
                    lines.append(t.lineno)
                    if seen is None or t.id not in seen:
                        assigned.append(n)
                        seen = {t.id} if seen is None else seen | {t.id}
            self._binders = binders
        return self._binders.get(name, ([], []))

    def grounded(self, ctx, node: ast.AST, depth: int = 0, names: bool = True) -> bool:
        """A tensor-kind expression whose value is known only at run time. Not grounded: one
        whose tensor-ness rests only on guessed names (``H * W`` after ``x, H, W =
        self.patch_embed(x)``), or only on tensor attributes of the Cell that are not
        Parameters (``self.limit = Tensor(0.5)``: MindSpore 2.10 folds ``if self.limit > 1``
        and ``if self.limit.sum() > 1`` at compile time, measured: no Switch, 1 kernel graph).
        ``names=False`` judges only the latter (guessed names count as run-time values)."""
        if depth > 8:
            return True
        if isinstance(node, ast.Name):
            if not names:
                return True
            if self.guessed(ctx, node) or _narrowed_to_python(ctx, node):
                return False
            return self._name_grounded(ctx, node.id, depth)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                return ctx.kind(node) is not Kind.TENSOR
            return self.grounded(ctx, node.value, depth + 1, names) if ctx.kind(node.value).tensor_like else True
        if isinstance(node, (ast.BinOp, ast.Compare, ast.IfExp, ast.BoolOp)):
            if isinstance(node, ast.BinOp):
                parts = [node.left, node.right]
            elif isinstance(node, ast.Compare):
                parts = [node.left] + list(node.comparators)
            elif isinstance(node, ast.IfExp):
                parts = [node.body, node.orelse]
            else:
                parts = list(node.values)
            parts = [p for p in parts if ctx.kind(p).tensor_like]
            return any(self.grounded(ctx, p, depth + 1, names) for p in parts) if parts else True
        if isinstance(node, ast.UnaryOp):
            return self.grounded(ctx, node.operand, depth + 1, names)
        if isinstance(node, ast.Subscript):
            return self.grounded(ctx, node.value, depth + 1, names) if ctx.kind(node.value).tensor_like else True
        if isinstance(node, ast.Call):
            f = node.func
            args = [a.value if isinstance(a, ast.Starred) else a for a in node.args] + [k.value for k in node.keywords]
            if isinstance(f, ast.Name) and f.id in ("int", "float", "bool", "round") and len(args) == 1:
                return self.grounded(ctx, args[0], depth + 1, names) if ctx.kind(args[0]).tensor_like else True
            parts = []
            if isinstance(f, ast.Attribute):
                recv = f.value
                if isinstance(recv, ast.Name) and recv.id == "self":
                    return True  # a sub-cell, primitive or method of the Cell
                if names and self.guessed(ctx, recv) and f.attr not in tensor_only_attrs():
                    return False  # `session.get_obj_num()` on a guessed name: nothing says it is a tensor
                if ctx.kind(recv).tensor_like:
                    parts.append(recv)
            parts += [a for a in args if ctx.kind(a).tensor_like]
            return any(self.grounded(ctx, p, depth + 1, names) for p in parts) if parts else True
        return True


# one instance for every rule module: the evidence of a scope is computed once per walk
SHARED_USES = ScopeUses()

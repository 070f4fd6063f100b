"""MSG301-MSG305: dynamic shapes and recompiles.

Every fact below was measured with MindSpore 2.10.0 on CPU (GRAPH_MODE, small Cells with
(4, 8) float32 inputs; IR dumped with ``MS_DEV_SAVE_GRAPHS=1``: recompiles counted as
``*_validate_*.ir`` files and ``len(cell.compile_cache)``, dynamic shapes read from the
kernel graph's tensor types (a ``-1`` dimension), fusion with
``MS_DEV_GRAPH_KERNEL_FLAGS=--opt_level=2``), and by the labeled snippets in
``fixtures/labeled/dynamic_shape_*``.
"""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.fix.hostfixes import masked_reduce_fix
from msgraphlint.fix.codemods import mutable_fix
from msgraphlint.parse.astutil import children_no_ctx, unparse, walk_no_ctx
from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid
from msgraphlint.cache.runcache import per_run
from msgraphlint.infer.values import Kind

from msgraphlint.infer.params import SHARED_USES, size_args, slice_bounds

_USES = SHARED_USES

# used when the catalog is unavailable (same list as scripts/gen_catalog.py)
_DYNAMIC_FALLBACK = frozenset({
    "mindspore.ops.nonzero", "mindspore.ops.argwhere", "mindspore.ops.unique",
    "mindspore.ops.unique_consecutive", "mindspore.ops.masked_select", "mindspore.ops.bincount",
    "mindspore.mint.nonzero", "mindspore.mint.unique", "mindspore.mint.unique_consecutive",
    "mindspore.mint.masked_select", "mindspore.mint.bincount", "mindspore.numpy.unique",
    "mindspore.numpy.argwhere", "mindspore.numpy.bincount",
    "mindspore.ops.NonZero", "mindspore.ops.Unique", "mindspore.ops.UniqueConsecutive", "mindspore.ops.MaskedSelect",
})
_DYNAMIC_METHODS_FALLBACK = frozenset({"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount"})

_BOOL_FUNCS = frozenset(f"mindspore.{ns}.{n}" for ns in ("ops", "mint", "numpy") for n in (
    "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isclose",
    "gt", "ge", "lt", "le", "eq", "ne", "equal", "not_equal", "greater", "greater_equal", "less",
    "less_equal", "isneginf", "isposinf", "signbit"))
_BOOL_METHODS = frozenset({"logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf",
                           "isfinite", "isclose", "gt", "ge", "lt", "le", "eq", "ne", "equal", "not_equal",
                           "greater", "greater_equal", "less", "less_equal", "bool", "isneginf", "isposinf",
                           "signbit"})



def _text(ctx, node: ast.AST, limit: int = 50) -> str:
    text = " ".join((ctx.segment(node) or ast.unparse(node)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _catalog(ctx):
    try:
        return ctx.catalog
    except Exception:  # pragma: no cover - catalog unavailable
        return None


def _is_bool_dtype(ctx, node: ast.AST) -> bool:
    q = ctx.qualname(node)
    return bool(q) and q.rsplit(".", 1)[-1] in ("bool_", "bool") and q.startswith("mindspore")




def is_bool_tensor(ctx, node: ast.AST, depth: int = 0) -> bool:
    """A tensor of booleans: a comparison of tensors, logical ops, `.bool()`/`astype(bool_)`,
    or a local name every assignment of which is one of those."""
    if depth > 4:
        return False
    if isinstance(node, ast.Compare):
        if all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return False
        return ctx.kind(node).tensor_like
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return is_bool_tensor(ctx, node.operand, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return is_bool_tensor(ctx, node.left, depth + 1) or is_bool_tensor(ctx, node.right, depth + 1)
    if isinstance(node, ast.Call):
        f = node.func
        q = ctx.qualname(f)
        if q in _BOOL_FUNCS:
            return True
        if q in ("mindspore.ops.cast", "mindspore.mint.cast") and len(node.args) >= 2:
            return _is_bool_dtype(ctx, node.args[1])
        if isinstance(f, ast.Attribute) and q is None and ctx.kind(f.value).tensor_like:
            if f.attr in _BOOL_METHODS:
                return True
            if f.attr in ("astype", "to") and node.args:
                return _is_bool_dtype(ctx, node.args[0])
        return False
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return is_bool_tensor(ctx, node.value, depth + 1)  # `keep[0]`: a row of a mask
    if isinstance(node, ast.Name) and ctx.kind(node).tensor_like:
        vals = _USES.assigns(ctx).get(node.id)
        return bool(vals) and all(is_bool_tensor(ctx, v, depth + 1) for v in vals)
    return False


class BooleanMaskIndex(Rule):
    code = "MSG301"
    # under bytecode capture 2.10 does not compile `x[x > 0]` at all (stat NEVER_COMPILE, 0 compiles;
    # tests/test_capture_modes_mindspore.py): the NonZero + GatherNd claim is ast capture's
    captures = AST_CAPTURE
    name = "boolean-mask-index"
    summary = "Reading `x[mask]` with a boolean tensor mask: the result's shape depends on the data."
    message = ("`{expr}` selects by a boolean tensor mask: a dynamic shape\n"
               "In graph-mode code ({where}) the result's length depends on the data, so MindSpore compiles a "
               "dynamic-shape NonZero + GatherNd and everything computed from it is dynamic-shape.")
    hint = ("keep the shape static: `ops.select(mask, x, 0)` / `x.masked_fill(~mask, 0)`, then reduce with "
            "the mask (`(x * mask).sum() / mask.sum()`); or pad to a fixed number of elements")
    severity = Severity.WARNING
    rationale = """
        `x[mask]` with a boolean tensor returns only the selected elements, so its length
        is known only at run time. Measured with MindSpore 2.10 on CPU: `y = x[x > 0]`
        compiles into `Greater`, `NonZero` and `GatherNd`; the kernel graph has dynamic
        shapes from the `NonZero` on (a `-1` dimension), and two inputs of the same
        shape returned (14,) and (18,) elements. Dynamic-shape kernels do not fuse (a
        Dense layer whose input is dynamic-shape got 0 fused kernels against 1 with 5 ops
        when static, see MSG305) and need shape inference at run time on every call. The
        labeled snippets `x[mask]` (mask a comparison held in a variable) and `t[t > 0]`
        in a helper showed the same dynamic shape.

        Writing through a mask is different and is not reported: `y[mask] = v` compiles
        into a static `Select` (measured; labeled negative `dynamic_shape_neg_mask_setitem`).
        Integer index tensors (`x[idx]`, a Gather) are static too.

        What to do: keep the full shape and carry the mask: `ops.select(mask, x, 0)` or
        `x.masked_fill(~mask, 0)`, reductions weighted by the mask
        (`(x * mask).sum() / mask.sum()`), or `ops.topk` with a fixed `k` when a fixed
        number of elements is wanted.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x + 0
                    y[x < 0] = 0.0
                    return y * 2
        """, note="writing through a mask compiles to a static Select"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x, idx):
                    mask = (x > 0).astype(x.dtype)
                    y = x[:, 0] + x[idx]
                    return (x * mask).sum(axis=1) / (mask.sum(axis=1) + 1.0) + ops.select(x > 0, x, -x).sum() + y.sum()
        """, note="mask arithmetic, ops.select, integer indices and slices"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    mask = x > 0
                    y = x[mask]
                    return y * 2
        """, line=6),
        Invalid("""
            import mindspore as ms

            def positives(t):
                return t[t > 0]

            @ms.jit
            def fn(x):
                return positives(x * 2).sum()
        """, line=4, note="in a helper reached from an ms.jit function"),
    ]

    def visit_Subscript(self, node: ast.Subscript, ctx) -> None:
        if not isinstance(node.ctx, ast.Load) or not ctx.kind(node.value).tensor_like:
            return
        idx = node.slice
        parts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
        if any(is_bool_tensor(ctx, p) and _USES.grounded(ctx, p, names=False) for p in parts
               if not isinstance(p, ast.Slice)):
            ctx.report(node, expr=_text(ctx, node), where=ctx.where)


class DataDependentShapeOp(Rule):
    code = "MSG302"
    fix_safety = FixSafety.UNSAFE  # masked_select(x, m).sum()/.mean() -> ops.where (msgraphlint/fix/hostfixes.py)
    name = "data-dependent-shape-op"
    summary = "An op whose output shape depends on tensor values (nonzero, unique, masked_select, argwhere, ...)."
    message = ("`{api}` returns a data-dependent shape in graph-mode code\n"
               "In {where} it returns a shape that depends on the data: MindSpore compiles a dynamic-shape kernel "
               "and everything computed from it is dynamic-shape (no fusion).")
    hint = ("keep shapes static: masks with `ops.select`/`ops.where(cond, x, y)`, `ops.topk` with a fixed k, "
            "or pad the result to a fixed size")
    severity = Severity.WARNING
    rationale = """
        These ops return as many elements as the data selects: `ops.nonzero`/`Tensor.nonzero`,
        `ops.argwhere`, `ops.unique`, `ops.unique_consecutive`, `ops.masked_select`,
        `ops.bincount` (and their `mint`/`numpy`/primitive forms: the list is the
        catalog's `dynamic_shape` entries, generated from MindSpore 2.10), plus
        `repeat_interleave` with a tensor `repeats` and the one-argument `mint.where(cond)`.

        Measured with MindSpore 2.10 on CPU: one Cell calling `ops.unique`, `ops.nonzero`,
        `ops.masked_select` and `ops.argwhere` compiles into `Unique`, `NonZero` and
        `MaskedSelect` kernels with dynamic shapes (a `-1` dimension) in the kernel graph,
        and everything downstream of them is dynamic-shape. The labeled snippets
        (`ops.nonzero`, `ops.argwhere`, `ops.unique`, `ops.masked_select` in a Cell and in
        an `ms.jit` function, `(x > 0.5).nonzero()`) all compiled with dynamic shapes.
        Dynamic-shape kernels are not fused (MSG305: 0 fused kernels) and infer shapes on
        every call.

        What to do: keep the full shape and carry a mask (`ops.where(cond, x, 0)`,
        `ops.select`, mask-weighted reductions); select a fixed number of elements with
        `ops.topk(x, k)` (constant `k`); or pad to a fixed size.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def __init__(self, k=3):
                    super().__init__()
                    self.k = k

                def construct(self, x):
                    values, indices = ops.topk(x, self.k)
                    return ops.where(x > 0, x, 0.0) * 2, values, indices
        """, note="fixed-k topk and three-argument where are static"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    idx = ops.nonzero(x > 0)
                    return idx * 2
        """, line=6),
        Invalid("""
            import mindspore as ms
            from mindspore import ops

            @ms.jit
            def fn(x):
                n = (x > 0.5).nonzero().shape[0]
                return ops.masked_select(x, x > 0.5).mean() * n
        """, line=[6, 7], note="a Tensor method and an ms.jit function"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not _USES.grounded(ctx, node, names=False):
            return  # only constant tensor attributes go in: folded at compile time
        cat = _catalog(ctx)
        q = ctx.qualname(f.func if isinstance(f, ast.Call) else f)
        if q is not None and q.startswith("mindspore"):
            is_class = q.rsplit(".", 1)[-1][:1].isupper()
            if is_class != isinstance(f, ast.Call):
                return  # `ops.Unique()` builds the primitive; `ops.Unique()(x)` runs it
            dyn = cat.is_dynamic_shape(q) if cat is not None else q in _DYNAMIC_FALLBACK
            cond = cat.dynamic_shape_condition(q) if cat is not None and not dyn else None
            if not dyn and cond:
                dyn = self._condition_holds(ctx, node, cond, method=False)
            if dyn:
                ctx.report(node, api=q.replace("mindspore.", "", 1) + "()" if not isinstance(f, ast.Call)
                           else q.replace("mindspore.", "", 1) + "()(…)", where=ctx.where,
                           fix=None if isinstance(f, ast.Call) else masked_reduce_fix(ctx, node, q))
            return
        if isinstance(f, ast.Attribute) and q is None and ctx.kind(f.value).tensor_like:
            info = cat.tensor_method(f.attr) if cat is not None else None
            if info is None and cat is not None:
                return
            dyn = bool(info.get("dynamic_shape")) if info else f.attr in _DYNAMIC_METHODS_FALLBACK
            cond = info.get("dynamic_shape_if") if info else None
            if not dyn and cond:
                dyn = self._condition_holds(ctx, node, cond, method=True)
            if dyn:
                ctx.report(node, api=f"Tensor.{f.attr}()", where=ctx.where)

    @staticmethod
    def _condition_holds(ctx, node: ast.Call, cond: str, method: bool) -> bool:
        if "`repeats` is a Tensor" in cond:
            args = list(node.args)
            rep = args[0] if method and args else (args[1] if len(args) > 1 else None)
            for kw in node.keywords:
                if kw.arg == "repeats":
                    rep = kw.value
            return rep is not None and ctx.kind(rep).tensor_like
        if "condition only" in cond:
            return len(node.args) == 1 and not node.keywords
        return False


_TENSOR_CTORS = ("mindspore.Tensor", "mindspore.tensor", "mindspore.common.tensor.Tensor")


def _literal_number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_literal_number(e) for e in node.elts)
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool))


def _const_primitive_call(ctx, call: ast.Call) -> bool:
    """``self.<attr>(x)`` on a primitive whose result is a compile-time value (the catalog's
    ``Shape``, ``Size``, ``Rank``, ``DType``), whatever the attribute is called."""
    from msgraphlint.infer.primattrs import module_primitives
    f = call.func
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"):
        return False
    ctor = module_primitives(ctx).ctor(ctx.scope.class_name if ctx.scope is not None else None, f.attr)
    cat = _catalog(ctx)
    q = ctx.qualname(ctor.func) if ctor is not None else None
    return bool(q and cat is not None and cat.primitive_returns(q) == "const")


def _constant_tensor(ctx, expr: ast.AST, depth: int = 0) -> bool:
    """A value MindSpore folds at compile time although it looks like tensor data:
    ``Tensor(4, ms.int32)`` (a literal value; as a size, ``ops.range(Tensor(0), n,
    Tensor(1))``, the shape stays static), the result of a ``Shape``/``Size`` primitive held
    on self under any name (``self.shape_of(x)[0]``), arithmetic on those, or a local every
    assignment of which is one."""
    if depth > 4:
        return False
    if isinstance(expr, ast.Call):
        if _const_primitive_call(ctx, expr):
            return True
        return (ctx.qualname(expr.func) in _TENSOR_CTORS and len(expr.args) >= 1
                and _literal_number(expr.args[0]))
    if isinstance(expr, ast.Subscript):
        return _constant_tensor(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.BinOp):
        parts = [p for p in (expr.left, expr.right) if not ctx.kind(p).constant]
        return all(_constant_tensor(ctx, p, depth + 1) for p in parts)
    if isinstance(expr, ast.Name):
        vals = _USES.assigns(ctx).get(expr.id)
        return bool(vals) and all(_constant_tensor(ctx, v, depth + 1) for v in vals)
    return False


def _tensor_valued(ctx, expr: ast.AST) -> Optional[ast.AST]:
    """A part of a size expression whose value comes from tensor data (not a bare parameter
    without tensor use: MSG304 covers those; not a constant ``Tensor(4)``: folded)."""
    elts = expr.elts if isinstance(expr, (ast.Tuple, ast.List)) else [expr]
    for e in elts:
        e = e.value if isinstance(e, ast.Starred) else e
        if _constant_tensor(ctx, e) or ctx.tensor(e).folded:
            continue  # (measured: `ops.range(Tensor(0), Tensor(len(x)), Tensor(1))` has a static shape)
        k = ctx.kind(e)
        if (k.tensor_like or k is Kind.HOST) and not _USES.grounded(ctx, e):
            continue  # only guessed names: a Python int parameter (MSG304) or `x, H, W = self.embed(x)`
        if k.tensor_like or k is Kind.HOST:
            return e
    return None


class ShapeFromTensorValue(Rule):
    code = "MSG303"
    name = "shape-from-tensor-value"
    summary = "A shape, size, count or slice bound computed from tensor values: a dynamic-shape result."
    message = ("`{expr}` takes a {short} from tensor data\n"
               "The {what} is tensor data (`{value}`): in graph-mode code ({where}) the output shape is known "
               "only at run time, so MindSpore compiles it dynamic-shape (no fusion downstream).")
    hint = ("derive sizes from `x.shape` (static) or constants, and express the data-dependent part as a mask "
            "(`ops.select`, `masked_fill`) over a fixed (bucketed or padded) size")
    severity = Severity.WARNING
    rationale = """
        Shapes are compile-time values in graph mode when they come from `x.shape`,
        literals or `__init__` attributes. A size computed from tensor *values* makes the
        output shape data-dependent. Measured with MindSpore 2.10 on CPU:

        - `n = (x > 0).astype(ms.int32).sum(); ops.zeros(n)`: a `TensorToTuple` and a
          dynamic-shape `Zeros` (outputs of 14 and 18 elements for two (4, 8) inputs);
          `ops.arange(n)` likewise (labeled snippet).
        - `x.reshape(-1)[:k]` with `k` such a tensor: `TensorToScalar` and a dynamic-shape
          `StridedSlice`.
        - `ops.reshape(x, (int(n) // 4, -1))`: `int()` of a tensor becomes `TensorToScalar`
          and the `Reshape` is dynamic-shape; it compiled, then failed at run time when
          the value did not divide the element count.

        Everything computed from such a result is dynamic-shape, which loses graph-kernel
        fusion (MSG305) and infers shapes on every call.

        What to do: take sizes from `x.shape`/constants; keep the full size and mask the
        data-dependent part (`ops.select`, `masked_fill`, mask-weighted sums); or round
        the size up to a fixed bucket and pad.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    b, d = x.shape
                    y = x.reshape(b, 2, d // 2).transpose(0, 2, 1) * 2
                    z = ops.zeros((x.shape[0], 4)) + x[:, :4] + x.view(x.shape[0] * 2, -1)[: x.shape[0], :4]
                    return y, z
        """, note="sizes from x.shape are compile-time constants"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    n = (x > 0).astype(ms.int32).sum()
                    pos = ops.arange(n)
                    return pos * 2
        """, line=8),
        Invalid("""
            import mindspore as ms
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    k = (x > 0).astype(ms.int32).sum()
                    return x.reshape(-1)[:k] * 2
        """, line=7, note="a slice bound from tensor data"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        q = ctx.qualname(f)
        if q is not None and not q.startswith("mindspore"):
            return
        if q is None and not (isinstance(f, ast.Attribute) and ctx.kind(f.value).tensor_like):
            return
        for arg in size_args(node, q):
            bad = _tensor_valued(ctx, arg)
            if bad is not None:
                name = f.attr if isinstance(f, ast.Attribute) and q is None else q.replace("mindspore.", "", 1)
                ctx.report(node, expr=_text(ctx, node), short="size argument", what=f"size argument of `{name}`",
                           value=_text(ctx, bad, 30), where=ctx.where)
                return

    def visit_Subscript(self, node: ast.Subscript, ctx) -> None:
        if not isinstance(node.ctx, ast.Load) or not ctx.kind(node.value).tensor_like:
            return
        for b in slice_bounds(node):
            bad = _tensor_valued(ctx, b)
            if bad is not None:
                ctx.report(node, expr=_text(ctx, node), short="slice bound", what="slice bound", value=_text(ctx, bad, 30),
                           where=ctx.where)
                return


_SCALAR_ANN = {"int": "int", "float": "float", "bool": "bool", "str": "str"}
_SEQ_ANN = ("tuple", "list", "Tuple", "List", "Sequence")


def _annotation_kind(arg: ast.arg) -> Optional[str]:
    if arg.annotation is None:
        return None
    text = unparse(arg.annotation).replace("typing.", "")
    if text.startswith("Optional[") and text.endswith("]"):
        text = text[9:-1]
    if text in _SCALAR_ANN:
        return _SCALAR_ANN[text]
    if text.split("[")[0] in _SEQ_ANN:
        return "seq"
    return None


_SUBCELLS: list = [None, frozenset()]  # (source, names of classes instantiated inside another class)


def _used_as_subcell(ctx, class_name: str) -> bool:
    """The class is instantiated inside another class of this module (a sub-cell: its
    arguments come from the parent graph, as constants, and never recompile it)."""
    if _SUBCELLS[0] is not ctx.source:
        inside = set()
        classes = [c for c in ctx.source.tree.body if isinstance(c, ast.ClassDef)]
        for cls in classes:
            for n in walk_no_ctx(cls):
                if isinstance(n, ast.Call):
                    f = n.func
                    name = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)
                    if name and name != cls.name:
                        inside.add(name)
        _SUBCELLS[0], _SUBCELLS[1] = ctx.source, frozenset(inside)
    return class_name in _SUBCELLS[1]


_FACTORY_WORDS = ("build", "create", "parse", "make", "get_", "load_model", "instantiate")
_COMPONENT_CACHE: dict = per_run({})


def _package_root(path: str) -> str:
    """The top of the package holding ``path`` (the highest folder with ``__init__.py``,
    at most four levels up), or the file's folder."""
    import os
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(4):
        parent = os.path.dirname(d)
        if not os.path.isfile(os.path.join(d, "__init__.py")) or parent == d:
            break
        d = parent
    return d


def _component_elsewhere(ctx, class_name: str) -> bool:
    """Evidence that the project assembles this Cell into other graph code instead of calling
    it from Python: the class is registered by a decorator (``@register_model``: built by a
    factory from a config), or the package refers to it inside another Cell (a class with a
    ``construct``) or inside a factory function (``build_*``, ``create_*``, ``parse_model``…),
    or names it in a string (a registry list, ``eval(name)``). Measured for such a loss Cell
    fed a tuple by its parent (benchmarks/results/false_positives.md, FP-5): one compile for
    three calls, equal to PyNative.
    Only consulted when a finding is about to be reported."""
    cls = next((n for n in ctx.source.tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if cls is not None:
        for d in cls.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if "register" in name.lower():
                return True
    root = _package_root(ctx.path)
    key = (root, class_name)
    if key in _COMPONENT_CACHE:
        return _COMPONENT_CACHE[key]
    found = False
    for path in _package_files(root):
        src = ctx.source_of(path)  # an editor's unsaved buffer first, decoded as any linted file
        if src is None or class_name not in src.text:
            continue
        tree = ctx.tree_of(path)
        # another file refers to this class only through an import of it (a same-named class of
        # its own, or a word in a string or `__all__`, is not this Cell)
        if tree is not None and (_same_file(path, ctx.path) or _imports_name(tree, class_name)) \
                and _referenced_as_component(tree, class_name):
            found = True
            break
    _COMPONENT_CACHE[key] = found
    return found


def _same_file(a: str, b: str) -> bool:
    import os
    return os.path.abspath(a) == os.path.abspath(b)


def _imports_name(tree: ast.AST, class_name: str) -> bool:
    """The module imports ``class_name`` (``from .losses import FactoryLoss``) or a module it
    reads it from as an attribute (``import losses``, then ``losses.FactoryLoss``)."""
    for node in walk_no_ctx(tree):  # one walk for both tests (no Load/Store markers)
        if isinstance(node, ast.ImportFrom):
            if any(a.name in (class_name, "*") for a in node.names):
                return True
        elif isinstance(node, ast.Attribute) and node.attr == class_name:
            return True
    return False


_PACKAGE_FILES: dict = per_run({})  # package root -> its .py files, in os.walk order


def _package_files(root: str) -> list:
    """The package's Python files, listed once per run (their texts come from the run's
    source pipeline: ``ctx.source_of``)."""
    import os
    hit = _PACKAGE_FILES.get(root)
    if hit is not None:
        return hit
    out = []
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = [x for x in dirnames if not x.startswith(".") and x != "__pycache__"]
        out.extend(os.path.join(dirpath, f) for f in files if f.endswith(".py"))
    if len(_PACKAGE_FILES) >= 4:
        _PACKAGE_FILES.pop(next(iter(_PACKAGE_FILES)))
    _PACKAGE_FILES[root] = out
    return out


def _referenced_as_component(tree: ast.AST, class_name: str) -> bool:
    stack = [(tree, None, None)]
    while stack:
        node, in_cell, in_func = stack.pop()
        if isinstance(node, ast.ClassDef):
            has_construct = any(isinstance(b, ast.FunctionDef) and b.name == "construct" for b in node.body)
            in_cell = node.name if has_construct and node.name != class_name else (None if node.name == class_name else in_cell)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_func = node.name
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id == "__all__"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
            continue  # `__all__ = ["Net"]` exports the name: it builds nothing
        elif isinstance(node, ast.Constant) and node.value == class_name:
            # built by name in a module that defines or imports the class (`supported_necks = [...,
            # "RPN"]` then `eval(neck_name)(**kwargs)` in mindocr's necks/builder.py)
            return True
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name == class_name:
                if in_cell is not None:
                    return True
                if in_func is not None and any(w in in_func.lower() for w in _FACTORY_WORDS):
                    return True
        for child in children_no_ctx(node):  # (a Load/Store marker matches nothing above)
            stack.append((child, in_cell, in_func))
    return False


class PythonScalarInput(Rule):
    code = "MSG304"
    name = "python-scalar-input"
    fix_safety = FixSafety.UNSAFE  # the calls' Python floats -> ms.mutable(...) (msgraphlint/fix/codemods.py)
    summary = "A `construct`/`jit` parameter that takes a Python scalar, string or tuple: each new value compiles a new graph."
    message = ("parameter `{param}` {why}: recompiles per value\n"
               "In {where}, {when}graph mode compiles it in as a constant and compiles a new graph for every new "
               "value{tail}.")
    hint = ("pass changing numbers as Tensors or `ms.mutable(...)`; fix modes and sizes in `__init__` or round "
            "sizes up to a few buckets; pass tensors as separate arguments instead of a tuple")
    severity = Severity.WARNING
    options = {"include_defaults": False, "include_annotations": False}
    rationale = """
        MindSpore specialises a graph on every Python (non-tensor) argument of the Cell or
        `jit` function that is called from Python: the value is folded into the graph as
        a constant and is part of the compile key. Measured with MindSpore 2.10 on CPU
        (counting `*_validate_*.ir` files and `cell.compile_cache`):

        - `construct(self, x, n)` with `x[:, :n]`: calls with n = 3, 5, 3, 6 compiled 3
          graphs (going back to 3 reused the first), about 0.7 s each here;
        - `x * scale` with scale = 0.5, 0.75, 0.5: 2 graphs; the same with
          `ms.mutable(0.5)`, `ms.mutable(0.75)`, `ms.mutable(1.5)`: 1 graph;
        - `if mode == "double"` with mode = "double", "shift": 2 graphs; a bool flag
          `if flag:` with True, False, True: 2 graphs;
        - `@ms.jit def fn(x, k): ops.topk(x, k)` with k = 2, 3: 2 graphs;
        - a tuple of tensors `construct(self, xs)`: the tuple is a constant, its tensors
          are folded into the graph (the validate IR is a bare `Return(Tensor(value=…))`),
          so every call with new tensors recompiled, even with the same shapes (4
          compiles for 5 calls); `ms.mutable((a, b))` compiled once per tuple length.
        - a default that callers do not pass (`scale=2.0`) compiles once (labeled
          negative): defaults are reported only with the option `include_defaults = true`
          (passed with 2 new values, it compiled 3 graphs).

        All of this holds only for the Cell or function that Python calls. A sub-cell is
        inlined into its parent's graph and receives the value as a constant of that graph:
        no recompile. Statically the entry point is rarely visible (models are assembled
        from configs and registries), so the rule reports a parameter only when the body
        shows it is a Python value: it is used as a slice bound, a `range()` bound or a
        size argument (`ops.zeros`, `reshape`, `topk`'s `k`...: an int), compared with a
        string (a str), or iterated (a tuple/list), and nothing uses it as a tensor. A
        Cell instantiated by another class of the same module is a sub-cell and is
        skipped, and so is a Cell the package assembles into other graph code: registered
        by a decorator (`@register_model`), or referred to inside another Cell or a factory
        function (`build_*`, `create_*`, `parse_model`), or named in a string (a registry
        list, `eval(name)`: mindocr's `supported_necks`), in its own file or in one that
        imports it; losses, necks and heads are built that way and fed by their parent
        graph (measured: one compile for three calls). `__all__ = ["Net"]` exports a name
        and builds nothing, and a file that does not import the class (a same-named class
        of its own, a word in a string) says nothing about it. For other Cells the
        message says that it applies when the parameter is passed a Python value and the Cell
        is called from Python.

        The call sites decide where they are visible (`msgraphlint/infer/entries.py`,
        `msgraphlint/infer/paramkinds.py`): where the project's callers pass a Tensor (or
        `ms.mutable`), nothing is reported (a Tensor slice bound compiles once, as a
        dynamic shape: MSG303's business, `dynamic_shape_pos_slice_bound_tensor_from_callers`);
        where host code of the module passes two or more Python values (`net(x, 0.5);
        net(x, 0.75)`, `step(x, 0.1); step(x, 0.05)` of an `@ms.jit` step), the parameter is
        reported whatever the body does with it, naming the values and lines (measured: 2
        compiles for 0.5, the same value again, then 0.75: `dynamic_shape_pos_float_from_callers`,
        `dynamic_shape_pos_jit_float_from_callers`); one value at every call compiles once
        (`dynamic_shape_neg_single_float_from_callers`). Values count per Cell instance: each
        new instance compiles its own graph whatever it is passed (`Net()(x, 0.5); Net()(x, 0.5)`
        and `Net()(x, 0.5); Net()(x, 0.75)` both compiled 2 graphs), so values spread over new
        instances are no evidence. Type annotations alone (`seqlen: int` on a rotary-embedding sub-cell,
        `features: List[Tensor]` on a neck) are reported only with
        `include_annotations = true`: in the benchmark corpora nearly all of them were
        sub-cells.

        What to do: pass numbers that change as tensors (`Tensor(0.5, ms.float32)`) or
        wrap them with `ms.mutable(...)` (1 compile; for sizes that makes the shape
        dynamic instead: `ms.mutable(3)` as a slice bound gave a dynamic-shape
        `StridedSlice`); fix modes and sizes in `__init__`, or round sizes up to a few
        buckets and pad; pass a tuple of tensors as separate tensor arguments, one
        stacked tensor, or `ms.mutable(tuple)`.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, scale=2.0):
                    return x * scale
        """, note="a default nobody passes compiles once (include_defaults is off)"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, scale):
                    return x[:, : x.shape[1] // 2] * scale.astype(x.dtype)
        """, note="a tensor argument (used as one); x.shape[0] bounds are static"),
        Valid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def construct(self, x, h, w):
                    return x.reshape(x.shape[0], h, w, -1)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.block = Block()

                def construct(self, x):
                    return self.block(x, 4, 2)
        """, note="a sub-cell: its int arguments are constants of the parent graph"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, n):
                    return x[:, :n] * 2
        """, line=4),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, mode):
                    if mode == "double":
                        return x * 2
                    return x + 1
        """, line=4, note="a string mode"),
        Invalid("""
            import mindspore as ms
            from mindspore import ops

            @ms.jit
            def fn(x, k: int):
                return ops.topk(x, k)[0]
        """, line=5, note="annotated int in an ms.jit function"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, xs):
                    out = xs[0]
                    for t in xs[1:]:
                        out = out + t
                    return out
        """, line=4, note="a tuple of tensors"),
    ]

    def visit_FunctionDef(self, node: ast.FunctionDef, ctx) -> None:
        scope = ctx.scope
        if scope is None or ctx.values is None or node is not ctx.values.func or scope.chain \
                or scope.kind not in ("construct", "jit") or node.name == "bprop":
            return
        args = node.args
        positional = list(getattr(args, "posonlyargs", [])) + list(args.args)
        if not any(a.arg not in ("self", "cls") for a in positional + list(args.kwonlyargs)):
            return
        uses, _ = _USES.get(ctx)
        literals = ctx.python_literals()  # what this module's host calls write for each parameter
        values = ctx.values
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for arg, default in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
            if arg.arg in ("self", "cls"):
                continue
            if arg.arg in values.from_callers and values.params.get(arg.arg) is Kind.TENSOR:
                continue  # the project's callers pass a Tensor (or `ms.mutable`): one graph for all values
            seen = literals.get(arg.arg) or []
            # a graph per value and receiver: calls on one Cell instance (or one function) with two
            # or more Python values recompile; `Net()(x, 'a')` and `Net()(x, 1.99)` are two instances,
            # each compiled once whatever it is passed
            by_receiver: dict = {}
            for line, v, receiver in seen:
                by_receiver.setdefault(receiver, []).append((line, v))
            group = max(by_receiver.values(), key=lambda g: len({repr(v) for _, v in g}), default=[])
            distinct = sorted({repr(v) for _, v in group})
            if len(distinct) >= 2:  # host calls write two or more Python values: a graph for each
                kinds = {_literal_kind(v) for _, v in group}
                kind = _literal_kind(group[0][1])
                word = f"{_KIND_WORDS[kind]}s" if len(kinds) == 1 else "values"
                lines = sorted({line for line, _ in group})
                ctx.report(arg, param=arg.arg, where=f"`{scope.short_name}`", kind=_KIND_WORDS[kind],
                           why=f"gets the Python {word} {' and '.join('`' + d + '`' for d in distinct[:2])}"
                               + (" and more" if len(distinct) > 2 else ""),
                           when=f"Python calls pass {' and '.join('`' + d + '`' for d in distinct[:3])} "
                                f"(line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines[:4]))}): ",
                           tail=_TAIL[kind], hint=_HINTS[kind],
                           fix=mutable_fix(ctx, arg.arg, [(line, v) for line, v, _ in seen]) if kind == "float" else None)
                continue
            if arg.annotation is not None and unparse(arg.annotation).split(".")[-1] in ("Tensor", "Parameter"):
                continue  # `xs: ms.Tensor` iterated: a tensor's rows, not a Python tuple
            found = self._evidence(arg, default, uses.get(arg.arg))
            if found is None:
                continue
            if scope.class_name and (_used_as_subcell(ctx, scope.class_name)
                                     or _component_elsewhere(ctx, scope.class_name)):
                return
            kind, why = found
            if seen:
                kind = _literal_kind(seen[0][1])
                when = ""
            else:
                when = (f"when it is passed a Python {_KIND_WORDS[kind]} (a Tensor or `ms.mutable` compiles once)"
                        + (f" and `{scope.class_name}` is called from Python (as a sub-cell the value is a constant "
                           "of its parent's graph)" if scope.class_name else "") + ", ")
            ctx.report(arg, param=arg.arg, where=f"`{scope.short_name}`", why=why, kind=_KIND_WORDS[kind],
                       when=when, tail=_TAIL[kind], hint=_HINTS[kind])

    def _evidence(self, arg: ast.arg, default, use):
        ann = _annotation_kind(arg)
        if default is not None:
            if not self.opts.get("include_defaults"):
                return None
            if isinstance(default, ast.Constant) and isinstance(default.value, (bool, int, float, str)):
                kind = {bool: "bool", int: "int", float: "float", str: "str"}[type(default.value)]
                return kind, f"defaults to `{ast.unparse(default)}`"
            return None
        pv = use.python_value() if use is not None else None
        if pv is not None:
            kind, _node, why = pv
            return kind, {"str": f"is {why}", "int": f"is used as {why}", "seq": f"is {why}"}[kind]
        if ann is not None and self.opts.get("include_annotations") and (use is None or use.tensor is None):
            return ann, f"is annotated `{unparse(arg.annotation)}`"
        return None


_KIND_WORDS = {"int": "int", "float": "float", "bool": "bool", "str": "string", "seq": "tuple/list"}


def _literal_kind(v) -> str:
    return "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "float" if isinstance(v, float) \
        else "str" if isinstance(v, str) else "seq"
_TAIL = {
    "int": " (measured: the values 3, 5, 3, 6 compiled 3 graphs)",
    "float": " (measured: 2 graphs for 0.5, 0.75)",
    "bool": " (measured: 2 graphs for True, False)",
    "str": " (measured: 2 graphs for two modes)",
    "seq": "; a tuple of tensors is folded in as constants, so new tensors recompile even at equal shapes",
}
_HINTS = {
    "int": "fix the size in `__init__` or round it up to a few buckets and pad; `ms.mutable(n)` compiles once "
           "but makes the shape dynamic",
    "float": "pass a Tensor (`Tensor(v, ms.float32)`) or `ms.mutable(v)`: one graph for all values",
    "bool": "choose the branch in `__init__` (two Cells or a config attribute) or pass a Tensor and use "
            "`ops.select`",
    "str": "fix the mode in `__init__` (one Cell per mode) instead of passing it per call",
    "seq": "pass the tensors as separate arguments, one stacked tensor, or `ms.mutable(tuple)` (one graph per length)",
}


def _has_dynamic_dim(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None  # shape=None: dynamic rank
    if isinstance(node, (ast.List, ast.Tuple)):
        for e in node.elts:
            if isinstance(e, ast.Constant) and e.value is None:
                return True
            if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant) \
                    and e.operand.value == 1:
                return True
    return False


class DynamicSetInputs(Rule):
    code = "MSG305"
    requires_text = ("set_inputs",)
    name = "dynamic-set-inputs"
    summary = "`Cell.set_inputs(...)` with `None`/`-1` dimensions: the whole graph compiles dynamic-shape, without fusion."
    message = ("`set_inputs` declares dynamic dimensions (`{spec}`): the Cell loses fusion\n"
               "The whole Cell compiles as one dynamic-shape graph and loses graph-kernel fusion on every op.")
    hint = ("prefer static shapes: pad inputs to a few fixed bucket sizes (one compile each, fused), and keep "
            "set_inputs dynamic only where the number of distinct shapes makes recompiling too costly")
    severity = Severity.WARNING
    scope = "module"
    rationale = """
        `Cell.set_inputs(Tensor(shape=[None, 8], dtype=...))` (a `None` or `-1` dimension,
        or `shape=None` for a dynamic rank) compiles the Cell once for all input shapes,
        but as a dynamic-shape graph. Measured with MindSpore 2.10 on CPU with graph-kernel
        fusion on, a `Dense(8, 8)` followed by `relu(y * 2 + 1) * 3`:

        - static inputs: 1 fused kernel holding 5 ops (`BiasAdd, Mul, Add, ReLU, Mul`) plus
          the MatMul; one compile per batch size (3 compiles for batch 4, 6, 5);
        - `set_inputs(Tensor(shape=[None, 8]))`: 1 compile, **0** fused kernels, all 6 ops
          unfused, dynamic shapes from the first MatMul on; `[-1, 8]` behaves the same and
          `shape=None` gives a dynamic rank.

        The facts file's GPT layer with `set_inputs(Tensor(shape=[None, None, H]))` likewise
        compiled once with zero fused kernels (9 when static), and the labeled snippets with
        `None` dimensions compiled dynamic-shape.

        What to do: pad or bucket the variable dimension (e.g. sequence length to 64, 128,
        256): each bucket compiles once, static and fused. Keep `set_inputs` dynamic only
        when the number of distinct shapes would make recompiling cost more than the lost
        fusion. `set_inputs` with fully static shapes is not reported.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(8, 8)
                    self.set_inputs(Tensor(shape=[4, 8], dtype=ms.float32))

                def construct(self, x):
                    return self.dense(x) * 2
        """, note="static shapes"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(8, 8)
                    self.set_inputs(Tensor(shape=[None, 8], dtype=ms.float32))

                def construct(self, x):
                    return self.dense(x) * 2
        """, line=9),
        Invalid("""
            import mindspore as ms

            def prepare(net):
                dyn = ms.Tensor(shape=(-1, 128), dtype=ms.float32)
                net.set_inputs(dyn)
                return net
        """, line=5, note="a dynamic Tensor held in a variable, set from outside the Cell"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not (isinstance(f, ast.Attribute) and f.attr == "set_inputs"):
            return
        for a in list(node.args) + [k.value for k in node.keywords]:
            a = a.value if isinstance(a, ast.Starred) else a
            spec = self._dynamic_tensor(ctx, a, node)
            if spec is not None:
                ctx.report(node, spec=spec)
                return

    def _dynamic_tensor(self, ctx, expr: ast.AST, call: ast.Call) -> Optional[str]:
        if isinstance(expr, ast.Name):
            expr = self._lookup(ctx, expr.id, call)
            if expr is None:
                return None
        if isinstance(expr, (ast.Tuple, ast.List)):
            for e in expr.elts:
                s = self._dynamic_tensor(ctx, e, call)
                if s is not None:
                    return s
            return None
        if isinstance(expr, ast.Call):
            q = ctx.qualname(expr.func)
            if q == "mindspore.mutable" and expr.args:
                return self._dynamic_tensor(ctx, expr.args[0], call)
            if q not in ("mindspore.Tensor", "mindspore.tensor", "mindspore.common.tensor.Tensor"):
                return None
            for kw in expr.keywords:
                if kw.arg == "shape" and _has_dynamic_dim(kw.value):
                    return "shape=" + _text(ctx, kw.value, 40)
        return None

    @staticmethod
    def _lookup(ctx, name: str, call: ast.Call) -> Optional[ast.AST]:
        """The value of the last plain assignment to ``name`` before the call, in the
        enclosing function (or module)."""
        scope = next((a for a in ctx.ancestors(call) if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef))),
                     ctx.source.tree)
        found = None
        for n in ast.walk(scope):
            if isinstance(n, ast.Assign) and n.lineno < call.lineno and len(n.targets) == 1 \
                    and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name:
                if found is None or n.lineno > found.lineno:
                    found = n
        return found.value if found is not None else None

"""MSG202–MSG206, MSG212: in-place writes on tensors in graph-mode code.

Every fact quoted below was measured with MindSpore 2.10.0 on CPU (default syntax level
unless said), by compiling the snippet in GRAPH_MODE and running the same code in
PYNATIVE_MODE with the same inputs (scripts/_label_child.py does exactly that).

Which code a write gets:
* MSG202 (error): graph mode and PyNative apply the write differently: it touches a
  tensor the scope received (a ``construct``/``jit`` input, a helper's argument), or a
  tensor another name already shared and reads afterwards, or it is an in-place Tensor
  method that graph mode applies and PyNative on CPU does not, on a tensor read again.
* MSG203/MSG204/MSG205 (warning): the same forms on a local tensor nobody else sees:
  results agree, the cost is extra scatter/in-place kernels outside fusion.
* MSG206 (warning): ``ops.assign``-style writes to something that is not a Parameter.
* MSG212 (error): in-place methods MindSpore 2.10 has no CPU kernel for.
"""

from __future__ import annotations

import ast
import re
from typing import List, Optional

from msgraphlint.parse.astutil import children_no_ctx as _children_no_ctx, per_tree, walk_no_ctx
from msgraphlint.fix.codemods import inplace_method_fix, parameter_update_fix, rebind_fix, scatter_write_fix
from msgraphlint.findings import Edit, Fix
from msgraphlint.rule import FixSafety, Invalid, Rule, Severity, Valid
from msgraphlint.infer import Provenance
from msgraphlint.infer.bindings import facts as name_facts
from msgraphlint.infer.values import Kind

from msgraphlint.infer.flow import OriginsCache, class_node, self_attr_values, statement_of
from msgraphlint.infer.unrolled import rebound_on_every_path

# In-place Tensor methods, by what MindSpore 2.10 on CPU measurably does with
# `x.m_(...); return x * 1` (graph mode vs PyNative, caller's tensor and result compared):
# graph mode writes into the tensor, PyNative leaves it unchanged and returns a new one
_WRITES_IN_GRAPH = frozenset({"add_", "mul_", "div_", "remainder_", "floor_divide_"})
# no CPU kernel: graph mode fails ("Kernel select failed" / "kernel ... unregistered"); PyNative
# fails too, except exp_ (runs, leaves the tensor unchanged) and scatter_ (graph mode drops the call)
_UNSUPPORTED_ON_CPU = {
    "clamp_": "InplaceClampScalar", "floor_": "InplaceFloor", "exp_": "InplaceExp", "log_": "InplaceLog",
    "sigmoid_": "InplaceSigmoid", "tanh_": "InplaceTanh", "sign_": "InplaceSign", "erfinv_": "InplaceErfinv",
    "masked_fill_": "InplaceMaskedFillScalar", "index_fill_": "InplaceIndexFillScalar",
    "scatter_add_": "InplaceScatterAdd", "uniform_": "InplaceUniform", "normal_": "InplaceNormal",
    "fill_": "InplaceFillScalar", "zero_": "InplaceZero", "index_add_": "InplaceIndexAddExt",
    "masked_scatter_": "InplaceMaskedScatter", "addmm_": "InplaceAddmm", "bernoulli_": "bernoulli_",
    "exponential_": "exponential_", "fill_diagonal_": "fill_diagonal_", "index_copy_": "InplaceIndexCopy",
    "index_put_": "InplaceIndexPut", "put_": "put_", "random_": "InplaceRandom", "scatter_": "InplaceScatterSrc",
}
# `sub_` is not listed: it was dropped in both modes (the tensor never changes, the returned
# value is right), so graph mode and PyNative agree. Methods not measured are not flagged.
# assign-like: write a whole new value; graph mode and PyNative agree on these (MSG206)
_ASSIGN_METHODS = frozenset({"copy_", "assign_value"})

_ASSIGN_FUNCS = {"mindspore.ops.assign": "ops.assign", "mindspore.ops.assign_add": "ops.assign_add",
                 "mindspore.ops.assign_sub": "ops.assign_sub"}
_ASSIGN_PRIMS = {"mindspore.ops.Assign": "ops.Assign()", "mindspore.ops.AssignAdd": "ops.AssignAdd()",
                 "mindspore.ops.AssignSub": "ops.AssignSub()"}

# functions whose result is a boolean tensor, in ops and in mint (`t[mint.logical_not(m)] = v` is a
# mask write: LogicalNot + BroadcastTo + Select on 2.10, no scatter)
_MASK_NAMES = ("logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite",
               "gt", "ge", "lt", "le", "eq", "ne", "greater", "greater_equal", "less", "less_equal", "equal",
               "not_equal")
_MASK_FUNCS = frozenset(f"mindspore.{ns}.{name}" for ns in ("ops", "mint") for name in _MASK_NAMES)
_MASK_METHODS = frozenset({"gt", "ge", "lt", "le", "eq", "ne", "greater", "greater_equal", "less",
                           "less_equal", "equal", "not_equal", "isnan", "isinf", "isfinite",
                           "logical_not", "logical_and", "logical_or", "bool"})

_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
        ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
        ast.LShift: "<<", ast.RShift: ">>"}
_ATOMS = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Call)

_HINT = ("build a new tensor instead: `x = x + y`, `ops.masked_fill`/`ops.select` for masked values, "
         "`ops.tensor_scatter_update` for an explicit scatter; keep state in a Parameter updated with `ops.assign`")


def _text(ctx, node: ast.AST, limit: int = 40) -> str:
    text = " ".join((ctx.segment(node) or ast.unparse(node)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def method_class(ctx, name: str) -> Optional[str]:
    """'writes' | 'unsupported' for a measured in-place Tensor method, else None. The API
    catalog, when present, must agree that the method is in-place."""
    if name in _WRITES_IN_GRAPH:
        group = "writes"
    elif name in _UNSUPPORTED_ON_CPU:
        group = "unsupported"
    else:
        return None
    try:
        cat = ctx.catalog
        if cat is not None and hasattr(cat, "is_inplace_method") and not cat.is_inplace_method(name):
            return None
    except Exception:  # catalog not built or not importable: the measured table alone
        pass
    return group


def _root_name(node: ast.AST) -> Optional[ast.Name]:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _subscript_targets(stmt: ast.stmt) -> List[ast.Subscript]:
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    else:
        return []
    out = []
    while targets:
        t = targets.pop(0)
        if isinstance(t, ast.Subscript):
            out.append(t)
        elif isinstance(t, (ast.Tuple, ast.List)):
            targets.extend(t.elts)
        elif isinstance(t, ast.Starred):
            targets.append(t.value)
    return out


def _is_mask(index: ast.AST, ctx, func: Optional[ast.AST], depth: int = 0) -> bool:
    """A boolean tensor mask: comparisons of tensors, their logical combinations,
    or a local name only ever bound to one."""
    if depth > 3:
        return False
    if isinstance(index, ast.Compare):
        if any(isinstance(o, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for o in index.ops):
            return False
        kind = ctx.kind(index)
        # a comparison the analysis cannot place (a helper's `input_ids == self.config.token_id`,
        # mindone modeling_csm.py:845) that indexes a tensor is a mask: a Python bool index is no model code
        return kind is Kind.TENSOR or (kind is Kind.UNKNOWN and not all(
            ctx.kind(o).constant for o in [index.left] + list(index.comparators)))
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, (ast.Invert, ast.Not)):
        return _is_mask(index.operand, ctx, func, depth + 1)
    if isinstance(index, ast.BinOp) and isinstance(index.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_mask(index.left, ctx, func, depth + 1) and _is_mask(index.right, ctx, func, depth + 1)
    if isinstance(index, ast.Call):
        q = ctx.qualname(index.func)
        if q in _MASK_FUNCS:
            return True
        f = index.func
        return isinstance(f, ast.Attribute) and f.attr in _MASK_METHODS and ctx.is_tensor(f.value)
    if isinstance(index, ast.Name) and func is not None:
        defs = [n.value for n in ast.walk(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Name) and n.targets[0].id == index.id]
        if not defs or any(isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) and
                           isinstance(getattr(n, "target", None), ast.Name) and n.target.id == index.id
                           for n in ast.walk(func)):
            return False
        return all(_is_mask(d, ctx, func, depth + 1) for d in defs)
    return False


def _write_ops(sub: ast.Subscript, stmt: ast.stmt, mask: bool) -> str:
    """The kernels a subscript write compiles to (validate IR on MindSpore 2.10 CPU):
    ``y[1:3] = v``, ``y[1, :3] = v``, ``y[1, :] = v`` and ``y[1, :, :] = v`` (a contiguous block)
    TensorCopySlices; ``y[0] = v`` TensorScatterUpdate; ``y[:, 0] = v``, ``y[..., 0] = v``,
    ``y[1:, :3] = v``, ``y[1:3, :] = v``, ``y[1:3, ...] = v``, ``y[0, 1] = v`` and ``y[:, 0::2] = v``
    TensorScatterUpdate with Concat/ExpandDims; ``y[idx] = v`` with an
    index tensor TensorScatterUpdate and Select; ``y[mask] = v`` Select (+BroadcastTo);
    ``y[0] += v`` StridedSlice, InplaceAddsExt and TensorScatterUpdate."""
    if isinstance(stmt, ast.AugAssign):
        return "StridedSlice, an in-place op and TensorScatterUpdate"
    if mask:
        return "Select (with BroadcastTo)"
    parts = list(sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice])
    stripped = False
    while parts and _full_slice(parts[-1]):
        parts.pop()
        stripped = True

    def indices(ps) -> bool:
        return all(isinstance(p, (ast.Name, ast.Constant)) and not (isinstance(p, ast.Constant) and p.value is Ellipsis)
                   for p in ps)

    # a contiguous block (measured): integer indices then whole axes (`y[1, :]`, `y[1, :, :]`), or
    # integer indices then one slice and nothing after it (`y[1:3]`, `y[i, :n]`); a slice followed by
    # a whole axis (`y[1:3, :]`) is not one: TensorScatterUpdate with Concat/ExpandDims
    if stripped and parts and indices(parts):
        return "TensorCopySlices"
    if not stripped and parts and isinstance(parts[-1], ast.Slice) and parts[-1].step is None and indices(parts[:-1]):
        return "TensorCopySlices"
    if len(parts) > 1 or any(isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value is Ellipsis)
                             for p in parts):
        return "TensorScatterUpdate (with Concat/ExpandDims)"   # also `y[0, 1] = v` (measured)
    return "TensorScatterUpdate"


def _full_slice(p: ast.AST) -> bool:
    return isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None


def _whose(ctx, names: List[str]) -> str:
    scope = ctx.scope
    kind = scope.kind if scope is not None else "helper"
    where = {"construct": "construct input", "jit": "input"}.get(kind, "argument")
    return f"{where}{'s' if len(names) > 1 else ''} " + ", ".join(f"`{n}`" for n in names)


def _visible(ctx) -> str:
    """For a helper's argument the difference shows only where the caller still uses it."""
    scope = ctx.scope
    return " (it shows wherever the caller still uses that tensor)" if scope is not None and scope.kind == "helper" else ""


class _Analysis:
    """What a write on the tensor name ``name`` at ``stmt`` touches."""

    def __init__(self, rule_cache: OriginsCache, node: ast.AST, ctx, name: str, include_self: bool) -> None:
        self.stmt = statement_of(node, ctx)
        origins = rule_cache.get(node, ctx)
        self.inputs: List[str] = []
        self.readers: List[str] = []
        self.aliases: List[str] = []
        self.in_loop = False
        if origins is None or self.stmt is None:
            return
        self.inputs = origins.inputs(self.stmt, name)
        self.readers = origins.read_later(self.stmt, name, include_self)
        self.aliases = origins.aliases(self.stmt, name)
        self.in_loop = id(self.stmt) in origins.loops


_CACHE = OriginsCache()


def _analysis(node, ctx, name, include_self=False) -> _Analysis:
    return _Analysis(_CACHE, node, ctx, name, include_self)


def _aug_fix(stmt: ast.AugAssign, ctx, safety: FixSafety, proof: str = "") -> Optional[Fix]:
    op = _OPS.get(type(stmt.op))
    target = stmt.target
    if op is None or not isinstance(target, ast.Name) or stmt.end_lineno is None:
        return None
    value = ctx.segment(stmt.value)
    if not value or "\n" in value:
        return None
    if not isinstance(stmt.value, _ATOMS):
        value = f"({value})"
    text = f"{target.id} = {target.id} {op} {value}"
    return Fix(f"rewrite as `{text}`", (Edit(stmt.lineno, stmt.col_offset, stmt.end_lineno,
                                                  stmt.end_col_offset, text),), safety, proof=proof)


def _keeps_dtype(stmt: ast.AugAssign) -> bool:
    """`y += 1`: an integer literal cannot promote y's dtype, so `y = y + 1` computes the
    same thing in graph mode (where `+=` keeps y's dtype) and PyNative."""
    v = stmt.value
    if isinstance(v, ast.UnaryOp) and isinstance(v.op, (ast.USub, ast.UAdd)):
        v = v.operand
    return (isinstance(v, ast.Constant) and type(v.value) is int
            and isinstance(stmt.op, (ast.Add, ast.Sub, ast.Mult)))


def constant_tensor_write(node: ast.AugAssign, ctx) -> bool:
    """``total = Tensor(0.0); total += v`` in a Cell's ``construct``: every plain assignment of
    the name is a ``Tensor(...)``/``ms.tensor(...)`` of compile-time values (a constant the graph
    holds, ``ctx.tensor(...).folded``), and it is bound otherwise only by augmented writes.
    Measured on 2.10 CPU (tests/test_infer_mindspore.py): graph mode writes into the constant, so
    `total = Tensor(0.0); for i in range(3): total += x[i].sum()` returns 6, 12, 18 over three
    calls where PyNative returns 6 each time; `y = ops.zeros((2,)); y += x` agrees (an op's
    output, made at each call)."""
    t = node.target
    scope, values = ctx.scope, ctx.values
    if not isinstance(t, ast.Name) or scope is None or scope.kind != "construct" or values is None \
            or t.id in values.params or not ctx.kind(node.value).tensor_like:
        return False  # (a tensor added, as measured; `x -= None` fails to compile anyway)
    f = name_facts(ctx, values.func)
    vals = f.plain.get(t.id)
    if not vals or t.id in f.other or any(isinstance(v, (ast.Tuple, ast.List)) for v in f.augmented.get(t.id, ())):
        return False
    return all(isinstance(v, ast.Call) and ctx.qualname(v.func) in ("mindspore.Tensor", "mindspore.tensor")
               and ctx.tensor(v).folded for v in vals)


def _graph_keeps_input(node: ast.AST, ctx, name: str) -> bool:
    """``x += …`` on a name that the flow analysis says may hold an input, where graph mode
    nevertheless leaves the caller's tensor alone (measured on MindSpore 2.10 CPU):

    * every unrolled iteration that reaches it has rebound ``x`` first (``for i in range(3):
      if i > 0: x += 1`` … ``x = f(x)``; see ``_unrolled``);
    * it sits under an ``if`` on a tensor condition that does not read ``x`` (``if
      y.sum() > 0: x += 1``): compiled into a Switch, the branch writes no input; with a
      condition on ``x`` itself (``if x.sum() > 0``) the caller's tensor does change."""
    stmt = statement_of(node, ctx)
    func = ctx.values.func if ctx.values is not None else None
    if stmt is None or func is None:
        return False
    if rebound_on_every_path(func, stmt, name):
        return True
    prev: ast.AST = stmt
    for anc in ctx.ancestors(stmt):
        if anc is func:
            break
        if isinstance(anc, ast.If) and any(prev is b for b in anc.body + anc.orelse) \
                and ctx.kind(anc.test).tensor_like \
                and not any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(anc.test)):
            return True
        prev = anc
    return False


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_METADATA = frozenset({"shape", "dtype", "ndim"})


class _Uses:
    """Every use of every name in one scope function, with its parent (built once)."""

    def __init__(self, func: ast.AST) -> None:
        self.func = func
        self.parent: dict = {}
        self.loads: dict = {}      # name -> [Name nodes]
        self.binds: dict = {}      # name -> [binding statements / nodes]
        self.nested: set = set()   # names used inside a nested function, lambda, class or comprehension
        self.declared: set = set()  # global / nonlocal names
        stack = [(func, False)]
        while stack:
            node, inside = stack.pop()
            for child in _children_no_ctx(node):  # (no one asks for a ctx marker's parent)
                self.parent[id(child)] = node
                child_inside = inside or isinstance(child, _NESTED)
                if isinstance(child, ast.Name):
                    if child_inside:
                        self.nested.add(child.id)
                    elif isinstance(child.ctx, ast.Load):
                        self.loads.setdefault(child.id, []).append(child)
                    else:
                        self.binds.setdefault(child.id, []).append(node)
                elif isinstance(child, (ast.Global, ast.Nonlocal)):
                    self.declared.update(child.names)
                stack.append((child, child_inside))

    def outermost_loop(self, node: ast.AST) -> Optional[ast.AST]:
        found = None
        p = self.parent.get(id(node))
        while p is not None and p is not self.func:
            if isinstance(p, _LOOPS):
                found = p
            p = self.parent.get(id(p))
        return found


class _UsesCache:
    def __init__(self) -> None:
        self._func = None
        self._uses: Optional[_Uses] = None

    def get(self, func: ast.AST) -> _Uses:
        if self._func is not func:
            self._func, self._uses = func, _Uses(func)
        return self._uses  # type: ignore[return-value]


_USES = _UsesCache()


def _inside(node: ast.AST, outer: ast.AST) -> bool:
    start = (outer.lineno, outer.col_offset)
    end = (outer.end_lineno or outer.lineno, outer.end_col_offset or 0)
    return start <= (node.lineno, node.col_offset) < end


# functional ops that always compute a new tensor: never a view of an operand (reshape,
# transpose, squeeze, narrow, split, broadcast_to, ... are views in MindSpore 2.x) and never
# an operand itself (identity, depend, stop_gradient, cast, dropout in evaluation, ...)
_FRESH_OPS = frozenset({
    "relu", "relu6", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax", "softplus", "elu",
    "exp", "log", "abs", "sqrt", "rsqrt", "square", "neg", "sin", "cos", "erf", "pow",
    "add", "sub", "mul", "div", "matmul", "bmm", "maximum", "minimum", "clamp",
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange",
    "sum", "mean", "cumsum", "layer_norm", "masked_fill", "where", "select_scatter",
})
_FRESH_NAMESPACES = ("mindspore.ops.", "mindspore.mint.", "mindspore.mint.nn.functional.", "mindspore.ops.function.")


# Tensor methods that always compute a new tensor (reductions and elementwise math; not
# `.to`/`.astype`/`.view`/`.reshape`/`.contiguous`, which may return the tensor itself or a view)
_FRESH_METHODS = frozenset({"argmax", "argmin", "sum", "mean", "cumsum", "abs", "exp", "log", "sqrt", "neg"})


def _fresh(value: Optional[ast.AST], ctx) -> bool:
    """An expression that always makes a new value, never one another name holds:
    a literal, arithmetic, a comparison, a functional op from ``_FRESH_OPS`` or a
    Tensor method from ``_FRESH_METHODS``."""
    if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant)):
        return True
    if isinstance(value, ast.Call):
        f = value.func
        if isinstance(f, ast.Attribute) and f.attr in _FRESH_METHODS and ctx.is_tensor(f.value):
            return True
        q = ctx.qualname(f) or ""
        return any(q.startswith(ns) and q[len(ns):] in _FRESH_OPS for ns in _FRESH_NAMESPACES)
    return False


def no_alias_proof(stmt: ast.stmt, ctx, target: Optional[ast.Name] = None, stores: bool = False) -> Optional[str]:
    """Proof that no other reference sees the in-place write of ``y op= v`` (so rewriting
    it as ``y = y op v`` changes nothing in graph mode), or None when it cannot be proved.

    Graph mode writes ``y op= v`` into y's tensor and every alias sees it (measured on
    MindSpore 2.10: through a tuple, list, dict or a closure; ``t = (y,); y += 1; return
    t[0] * 4`` gives 12 on ``ones((2, 2)) * 2``, ``y = y + 1`` gives 8). Proved when:

    * every binding of ``y`` in the scope function is a literal, arithmetic, a
      comparison, ``ops.<op>(...)`` or ``t.<method>()`` for an op that always computes a
      new tensor (``_FRESH_OPS``, ``_FRESH_METHODS``: never a view, never an operand
      itself), or an augmented assignment;
    * ``y`` is not global/nonlocal and not used inside a nested function, lambda, class or
      comprehension (a closure);
    * every read of ``y`` that can run before the write (earlier in the function, or
      anywhere in a loop around it: the next iteration) is an operand of arithmetic or
      a comparison, or ``y.shape``/``y.dtype``/``y.ndim``, none of which keeps a reference
      (with ``stores``, MSG203's, also an earlier subscript write ``y[i] = v``).
    """
    from msgraphlint.infer.flow import scope_function

    target = stmt.target if target is None else target  # (MSG205: the statement of `target.mul_(v)`)
    if not isinstance(target, ast.Name):
        return None
    func = scope_function(stmt, ctx)
    if func is None:
        return None
    uses = _USES.get(func)
    name = target.id
    if name in uses.declared or name in uses.nested:
        return None
    for b in uses.binds.get(name, []):
        if isinstance(b, ast.AugAssign) and b.target.__class__ is ast.Name:
            continue
        if isinstance(b, ast.Assign) and len(b.targets) == 1 and isinstance(b.targets[0], ast.Name) \
                and _fresh(b.value, ctx):
            continue
        if isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name) and _fresh(b.value, ctx):
            continue
        return None
    loop = uses.outermost_loop(stmt)
    here = (stmt.lineno, stmt.col_offset)
    for load in uses.loads.get(name, []):
        if _inside(load, stmt):
            continue  # the statement's own operand: `y += y` is `y = y + y`
        if (load.lineno, load.col_offset) > here and not (loop is not None and _inside(load, loop)):
            continue  # runs after the write: it sees the written value in both forms
        parent = uses.parent.get(id(load))
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)):
            continue
        if isinstance(parent, ast.Attribute) and parent.attr in _METADATA:
            continue
        if stores and isinstance(parent, ast.Subscript) and parent.value is load and isinstance(parent.ctx, ast.Store):
            continue  # another write into y keeps no reference to it
        return None
    return (f"`{name}` holds a tensor made by arithmetic or a fresh op, and nothing keeps a reference to it "
            f"before the write (no alias, container, closure or call argument)")


_SITE = re.compile(r"\((.+):(\d+)\)$")


def _call_sites(tree: ast.AST):
    """(calls by callee name, the assignment of each assigned value by id) of a module."""
    by_name: dict = {}
    assign_of: dict = {}
    for n in walk_no_ctx(tree):
        if isinstance(n, ast.Call):
            by_name.setdefault(_call_name(n), []).append(n)
        elif isinstance(n, ast.Assign):
            assign_of[id(n.value)] = n
    return by_name, assign_of


def _caller_cannot_observe(ctx, names: List[str]) -> bool:
    """A write on a helper's argument shows only where the caller still uses the tensor it
    passed. Not observable at the call site the scope chain records when the argument there
    is a temporary (``f(t[i].unsqueeze(0))``) or a name the caller rebinds to the result in
    the same statement (``h = f(h)``)."""
    scope = ctx.scope
    func = ctx.values.func if ctx.values is not None else None
    if scope is None or scope.kind != "helper" or not scope.chain or func is None or len(names) != 1:
        return False
    m = _SITE.search(scope.chain[-1])
    if m is None:
        return False
    path, line = m.group(1), int(m.group(2))
    # the caller's file as the run sees it (an editor's unsaved buffer first), indexed once
    # per tree: its calls by callee name, its assignments by value
    tree = ctx.tree_of(path)
    if tree is None:
        return False
    by_name, assign_of = per_tree(tree, "inplace-call-sites", _call_sites)
    params = [a.arg for a in list(getattr(func.args, "posonlyargs", [])) + list(func.args.args)]
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    name = names[0]
    calls = [n for n in by_name.get(func.name, ()) if getattr(n, "lineno", 0) <= line <= getattr(n, "end_lineno", 0)]
    if len(calls) != 1:
        return False
    call = calls[0]
    arg = next((k.value for k in call.keywords if k.arg == name), None)
    if arg is None and name in params and params.index(name) < len(call.args):
        arg = call.args[params.index(name)]
        if isinstance(arg, ast.Starred):
            return False
    if arg is None:
        return False
    if not isinstance(arg, ast.Name):
        return not isinstance(arg, ast.Attribute)  # a temporary (a self.<attr> tensor stays visible)
    stmt = assign_of.get(id(call))
    return stmt is not None and any(isinstance(t, ast.Name) and t.id == arg.id for t in stmt.targets)


def _call_name(call: ast.Call) -> Optional[str]:
    f = call.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)


def _bytecode_capture(ctx) -> bool:
    """``jit(capture_mode="bytecode")``: MindSpore 2.10 keeps PyNative's semantics for
    in-place writes there (measured on CPU with `x += 1`, `x[0] = 5.0` and `x.add_(1)` on a
    jit input: the caller's tensor and the result equal PyNative's, while ast capture
    overwrites the caller's tensor for `+=`/`add_` and leaves it for the subscript write)."""
    return ctx.scope is not None and getattr(ctx.scope, "capture_mode", "ast") == "bytecode"


# ------------------------------------------------------------------------------------ MSG202
class InplaceWriteDiverges(Rule):
    code = "MSG202"
    name = "inplace-write-diverges"
    summary = "An in-place write that graph mode and PyNative apply differently (silently different results)."
    message = "{what}: differs from PyNative\n{effect}."
    hint = _HINT
    severity = Severity.ERROR
    fix_safety = FixSafety.UNSAFE
    rationale = """
        Graph mode and PyNative do not agree on what an in-place write touches, and
        neither warns. Measured with MindSpore 2.10 CPU (graph result and the caller's
        tensor compared with PyNative on the same inputs):

        * `x += y` / `x *= 3` on a `construct` input (also through `y = x`, and on the
          argument of a helper called with the input): graph mode overwrites the
          caller's tensor, PyNative does not (it rebinds `x` to a new tensor). Exactly
          when (measured): the write reaches the caller when `x` still holds the input
          tensor where the `+=` runs — at the top level, in the first iteration of an
          unrolled loop (`for _ in range(3): x += 1; x = x * 2` changes the caller's `x`),
          or under an `if` on a tensor condition that reads `x` (`if x.sum() > 0: x += 1`).
          It does not when every unrolled iteration reaching the `+=` has rebound `x`
          first (`for i in range(3): if i > 0: x += 1` … `x = x * 2`; a rebinding in an
          earlier unrolled loop), when the `+=` sits under an `if` on a tensor
          condition that does not read `x` (`if y.sum() > 0: x += 1`: the branch is a
          Switch and the caller's tensor is left alone), or under
          `jit(capture_mode="bytecode")`. Those are not reported.
        * `z = y; z += 1; return y * 2` (and `z = y; y += 1; return z`): graph mode also
          changes the other name, PyNative does not — the returned values differ.
        * `x[:, 0] = 0`, `x[x < 0] = 0.0`, `x[0] += 1` (in an `@ms.jit` function) on an
          input: PyNative writes into the caller's tensor, graph mode does not.
        * `z = y; z[0] = 0; return y + 1`: PyNative sees the write through `y`, graph
          mode loses it (the scatter was removed from the graph entirely).
        * On a helper's argument the difference shows only where the caller still uses
          the tensor it passed: not reported when the recorded call site passes a
          temporary (`blend(t[i].expand_dims(0))`) or rebinds the same name to the
          result (`h = mask(h, m)`).
        * In-place Tensor methods that graph mode applies — `add_`, `mul_`, `div_`,
          `remainder_`, `floor_divide_` — leave the tensor unchanged in PyNative on CPU
          (they return a new tensor): `x.add_(1.0); return x * 2` returns (x+1)*2 and
          overwrites the caller's `x` in graph mode, returns x*2 in PyNative; `y =
          x * 2; y.add_(1.0); return y` differs the same way. Through a helper the
          caller's tensor is overwritten too.

        * An in-place method on a Parameter: `self.p.add_(1.0)` updates the Parameter in
          graph mode and leaves it unchanged in PyNative on CPU (measured: graph p = 1,
          PyNative p = 0 after one call).
        * `loss = self.loss; loss += x` (a local bound to a Cell's tensor attribute or
          Parameter): graph mode writes into the attribute, PyNative rebinds `loss` to a
          new tensor. Measured (three calls with `x = ones(2)`, `self.loss` zeros): graph
          mode returns 1, 2, 3 and leaves `self.loss` at 3, PyNative returns 1, 1, 1 and
          leaves it at 0, for a `Tensor` attribute and a `Parameter` alike. A new tensor
          made from a Parameter first (`loss = self.loss + 0`, `self.loss.copy()`) agrees
          between the modes (MSG204). `tests/test_infer_mindspore.py` re-measures it.
        * `total = Tensor(0.0); total += x[i].sum()` in `construct` (a name still holding a
          `Tensor(...)` of constants, a constant of the compiled graph): graph mode writes
          into the constant, so each call starts from what the previous one left. Measured:
          with `for i in range(3)` over `ones((3, 2))`, graph mode returns 6, 12, 18 over
          three calls, PyNative 6, 6, 6. `y = ops.zeros((2,)); y += x` agrees (an op's
          output is made at each call: MSG204).

        Not flagged: other writes to Parameters (`self.p += x`, `self.p[0] = v`,
        `ops.assign(self.p, v)`, `self.p.copy_(v)` all agree between the modes),
        `copy_`/`ops.assign` (MSG206: both modes write), `sub_` (dropped in both modes:
        the tensor never changes, the returned value is right), in-place methods that
        have no CPU kernel (MSG212), and the same forms on local tensors no other name
        reads (MSG203–MSG205: results agree). Not flagged either: scopes compiled with
        `jit(capture_mode="bytecode")` — there MindSpore 2.10 keeps PyNative's semantics
        (measured: `x += 1`, `x[0] = 5.0` and `x.add_(1)` on an input gave PyNative's
        caller tensor and result; the facts above describe the default ast capture;
        `tests/test_capture_modes_mindspore.py` re-measures `x += 1`).

        Write the update functionally (`x = x + y`, `y = ops.masked_fill(y, m, v)`,
        `y = ops.tensor_scatter_update(y, idx, v)`) so that both modes compute the same
        thing, and keep state in a Parameter. The fix offered for `x += y` rewrites it to
        `x = x + y` (unsafe: it stops graph mode from overwriting the caller's tensor,
        which is what PyNative does).
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, y):
                    x = x + y
                    return x * 2
        """, note="out-of-place update rebinds the name"),
        Valid("""
            import mindspore as ms

            @ms.jit(capture_mode="bytecode")
            def step(x):
                x += 1
                return x * 2
        """, note="bytecode capture keeps PyNative's semantics (measured on 2.10)"),
        Valid("""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.acc = ms.Parameter(Tensor(np.zeros((4, 8), np.float32)), name="acc")

                def construct(self, x):
                    self.acc += x
                    self.acc[0] = x[1]
                    return x * 2
        """, note="Parameter updates agree between the modes"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    x = x * 2
                    x += 1
                    return x
        """, note="the input name was rebound to a new tensor first (MSG204, not MSG202)"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    y[x < 0] = 0.0
                    return y + 1
        """, note="boolean-mask write on a local: a static Select, same result in both modes"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, n: int = 0):
                    n += 1
                    return x * n
        """, note="augmented assignment on a Python number"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(3):
                        if i > 0:
                            x += 1
                        x = x * 2
                    return x
        """, note="the first unrolled iteration rebinds x before any write (measured: caller unchanged)"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, y):
                    if y.sum() > 0:
                        x += 1
                    return x * 2
        """, note="a tensor branch whose condition does not read x: no write-back (measured)"),
    ]
    INVALID = [
        Invalid("""
            import numpy as np
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.loss = Tensor(np.zeros(2, np.float32))

                def construct(self, x):
                    loss = self.loss
                    loss += x
                    return loss
        """, line=12, note="graph mode writes the Cell attribute: 1, 2, 3 over calls; PyNative 1, 1, 1 (measured)"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, y):
                    x += y
                    return x * 2
        """, line=5, expected_fix="""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, y):
                    x = x + y
                    return x * 2
        """, note="graph mode overwrites the caller's tensor"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    x[:, 0] = 0
                    return x * 2
        """, line=5, note="PyNative writes into the caller's tensor, graph mode does not"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 1
                    z = y
                    z[0] = 0
                    return y + 1
        """, line=7, note="the write through the alias is lost in graph mode"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    y.add_(1.0)
                    return y * 1
        """, line=6, note="PyNative leaves y unchanged, graph mode writes into it"),
        Invalid("""
            import mindspore as ms

            def bump(t):
                t += 1
                return t

            @ms.jit
            def step(x):
                return bump(x) * 2
        """, line=4, note="in a helper: the argument is the caller's tensor"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    for _ in range(3):
                        x += 1
                        x = x * 2
                    return x
        """, line=6, note="the first unrolled iteration writes into the caller's x (measured)"),
        Invalid("""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.p = ms.Parameter(Tensor(np.zeros(4, np.float32)), name="p")

                def construct(self, x):
                    self.p.add_(1.0)
                    return x + self.p
        """, line=12, note="graph mode updates the Parameter, PyNative on CPU does not (measured)"),
    ]

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        if _bytecode_capture(ctx):
            return
        t = node.target
        if isinstance(t, ast.Subscript):
            self._subscripts(node, ctx)
        elif isinstance(t, ast.Name) and ctx.kind(t).tensor_like and ctx.tensor(t).attr is not None:
            self._attribute_alias(node, t, ctx)
        elif isinstance(t, ast.Name) and ctx.kind(t) is Kind.TENSOR and constant_tensor_write(node, ctx):
            op = _OPS.get(type(node.op), "?")
            ctx.report(node, what=f"`{t.id} {op}= …` on `{t.id}`, a constant tensor of the compiled graph",
                       effect="graph mode writes into the constant, so each call starts from the value the "
                              "previous call left; PyNative starts from the constructed value every call",
                       hint=f"write `{t.id} = {t.id} {op} …` (a new tensor each call)",
                       fix=_aug_fix(node, ctx, FixSafety.UNSAFE))
        elif isinstance(t, ast.Name) and ctx.kind(t) is Kind.TENSOR:
            a = _analysis(node, ctx, t.id)
            fix = _aug_fix(node, ctx, FixSafety.UNSAFE)
            if a.inputs and (_graph_keeps_input(node, ctx, t.id) or _caller_cannot_observe(ctx, a.inputs)):
                return  # graph mode writes no input here either, or the caller cannot see it
            if a.inputs:
                via = "" if a.inputs == [t.id] else f" (it holds {_whose(ctx, a.inputs)})"
                ctx.report(node, what=f"`{t.id} {_OPS.get(type(node.op), '?')}= …` on {_whose(ctx, [t.id]) if a.inputs == [t.id] else f'`{t.id}`'}{via}",
                           effect="graph mode overwrites the caller's tensor, PyNative does not "
                                  "(MindSpore 2.10: PyNative rebinds the name to a new tensor)" + _visible(ctx), fix=fix)
            elif a.readers:
                ctx.report(node, what=f"`{t.id} {_OPS.get(type(node.op), '?')}= …` on a tensor that "
                                      f"{', '.join(f'`{r}`' for r in a.readers)} also holds",
                           effect=f"graph mode changes {', '.join(f'`{r}`' for r in a.readers)} too, "
                                  "PyNative does not (results differ)", fix=fix)

    def _attribute_alias(self, node: ast.AugAssign, t: ast.Name, ctx) -> None:
        # measured on 2.10 CPU (tests/test_infer_mindspore.py): `loss = self.loss; loss += x`
        # returns 1, 2, 3 over three calls in graph mode and leaves self.loss at 3; PyNative
        # returns 1, 1, 1 and leaves it at 0 (a Tensor attribute and a Parameter alike)
        answer = ctx.tensor(t)
        held = "Parameter" if answer.provenance is Provenance.PARAMETER else "tensor attribute"
        op = _OPS.get(type(node.op), "?")
        ctx.report(node, what=f"`{t.id} {op}= …` on `{t.id}` (the Cell's {held} `self.{answer.attr}`)",
                   effect=f"graph mode writes into `self.{answer.attr}` (its value changes from call to call), "
                          f"PyNative rebinds `{t.id}` to a new tensor and leaves the attribute unchanged",
                   hint=f"write `{t.id} = {t.id} {op} …` to compute a new tensor, or update the state explicitly "
                        f"with `ops.assign(self.{answer.attr}, …)` on a Parameter",
                   fix=_aug_fix(node, ctx, FixSafety.UNSAFE))

    def visit_Assign(self, node: ast.stmt, ctx) -> None:
        self._subscripts(node, ctx)

    def visit_AnnAssign(self, node: ast.stmt, ctx) -> None:
        self._subscripts(node, ctx)

    def _subscripts(self, node: ast.stmt, ctx) -> None:
        if _bytecode_capture(ctx):
            return
        for sub in _subscript_targets(node):
            root = _root_name(sub)
            if root is None or ctx.kind(root) is not Kind.TENSOR:
                continue
            a = _analysis(node, ctx, root.id)
            if a.inputs and _caller_cannot_observe(ctx, a.inputs):
                return
            if a.inputs:
                via = "" if a.inputs == [root.id] else f" (it holds {_whose(ctx, a.inputs)})"
                subject = _whose(ctx, [root.id]) if a.inputs == [root.id] else f"`{root.id}`"
                func = ctx.values.func if ctx.values is not None else None
                mask = sub.value is root and not isinstance(node, ast.AugAssign) and _is_mask(sub.slice, ctx, func)
                ctx.report(node, what=f"subscript assignment to {subject}{via}",
                           effect="PyNative writes into the caller's tensor, graph mode does not "
                                  f"(it builds a new tensor with {_write_ops(sub, node, mask)})" + _visible(ctx))
            elif a.readers:
                ctx.report(node, what=f"subscript assignment through `{root.id}`, which shares its tensor with "
                                      + ", ".join(f"`{r}`" for r in a.readers),
                           effect="PyNative sees the write through "
                                  + ", ".join(f"`{r}`" for r in a.readers) + ", graph mode loses it")
            return  # one finding per statement

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if _bytecode_capture(ctx):
            return
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) \
                and isinstance(f.value.value, ast.Name) and f.value.value.id == "self" \
                and ctx.kind(f.value) is Kind.PARAMETER and method_class(ctx, f.attr) == "writes":
            # measured on 2.10 CPU: `self.p.add_(1.0)` updates the Parameter in graph mode,
            # PyNative leaves it unchanged (returns a new tensor)
            ctx.report(node, what=f"in-place `{f.attr}()` on Parameter `self.{f.value.attr}`",
                       effect="graph mode updates the Parameter, PyNative on CPU leaves it unchanged "
                              "(it returns a new tensor)", hint="`ops.assign(self.p, self.p + v)` (or `self.p += v`) "
                                                                "updates the Parameter in both modes",
                       fix=parameter_update_fix(ctx, node, f.attr[:-1]) if ctx.catalog.tensor_method(f.attr[:-1])
                       else None)
            return
        if not isinstance(f, ast.Attribute) or not isinstance(f.value, ast.Name):
            return
        if method_class(ctx, f.attr) != "writes":
            return
        recv = f.value
        if ctx.kind(recv) is not Kind.TENSOR:
            return
        a = _analysis(node, ctx, recv.id, include_self=True)
        if not (a.inputs or a.readers):
            return  # MSG205
        if a.inputs:
            subject = _whose(ctx, [recv.id]) if a.inputs == [recv.id] else f"`{recv.id}` (it holds {_whose(ctx, a.inputs)})"
            effect = ("graph mode writes into the caller's tensor, PyNative on CPU leaves it unchanged "
                      "(it returns a new tensor)" + _visible(ctx))
        else:
            subject = f"`{recv.id}`, which is read afterwards" + (
                "" if a.readers == [recv.id] else f" (as {', '.join(f'`{r}`' for r in a.readers)})")
            effect = "graph mode writes into the tensor, PyNative on CPU leaves it unchanged (it returns a new tensor)"
        plain = f.attr[:-1]
        info = ctx.catalog.tensor_method(plain)
        ctx.report(node, what=f"in-place `{f.attr}()` on {subject}", effect=effect,
                   fix=rebind_fix(ctx, node, plain) if info is not None and not info.get("inplace") else None)


# ------------------------------------------------------------------------------------ MSG203
class TensorSubscriptAssign(Rule):
    code = "MSG203"
    name = "tensor-subscript-assign"
    summary = "Subscript assignment to a local tensor: a scatter kernel that stays outside fused kernels."
    message = ("subscript assignment to tensor `{name}` stays outside fused kernels\n"
               "It compiles to {ops} outside fused kernels (graph mode builds a new tensor; nothing is written "
               "in place).")
    hint = ("write it functionally: `ops.masked_fill(y, mask, v)` / `ops.select(mask, v, y)` for masked "
            "values, `ops.tensor_scatter_update(y, idx, v)` for an explicit scatter, `ops.concat` of slices")
    severity = Severity.WARNING
    fix_safety = FixSafety.SAFE  # select_scatter of full_like, with the no-alias proof (msgraphlint/fix/codemods.py)
    rationale = """
        Graph mode has no in-place subscript store on a tensor: `y[i] = v` becomes a new
        tensor built by scatter kernels. Measured with MindSpore 2.10 CPU: `h[:, :, 0] = 0`
        inside an FFN block and `x[:, 0] = 0` compile to TensorScatterUpdate plus Concat
        (and StridedSlice/BroadcastTo for `y[0] += 1`) at that line, outside the fused
        kernels; the result equals PyNative's when no other name holds the tensor. The
        kernel depends on the index (validate IR): a contiguous block (`y[1:3] = v`,
        `y[1, :3] = v`, `y[1, :] = v`) is TensorCopySlices, `y[0] = v` TensorScatterUpdate,
        `y[:, 0] = v`, `y[..., 0] = v`, `y[1:, :3] = v`, `y[1:3, :] = v`, `y[0, 1] = v` and
        `y[:, 0::2] = v` TensorScatterUpdate with Concat/ExpandDims, `y[idx] = v` with an index tensor
        TensorScatterUpdate with Select; the message names the one that applies.

        A boolean-mask write on a local (`y[x < 0] = 0.0`) is not flagged: it compiles to
        a static Select and nothing else (measured), the same kernel `ops.masked_fill`
        gives. Writes to Parameters (`self.buf[0] = v`, a ScatterNdUpdate) are state
        updates and not flagged. On an input or through an alias the write is silently
        different between the modes: that is MSG202.

        Fix: the pure form graph mode already computes, `y[:, k] = c` →
        `y = ops.select_scatter(y, ops.full_like(y[:, k], c), 1, k)` (also `y[k]`, `y[k, :]`,
        `y[..., k]`; `k` an int literal, `c` a number literal). Measured on 2.10 CPU in both
        modes (float32, int32, bool and float16 tensors of rank 2 and 3; `k` 0, 1, -1 and out
        of range; `c` 0, 1.5, -1, True, 1e6): the same values and dtype (`full_like` casts
        `c` as the write does) and the same IndexError out of range. Safe only when nothing
        else holds `y`'s tensor (MSG204's no-alias proof: `y` bound only to arithmetic or
        fresh ops, no closure, earlier reads only arithmetic, metadata or other subscript
        writes): PyNative's write changes every other reference to the tensor — measured,
        through a tuple, a list, an alias name and a view (`z = y[0]`) PyNative sees the write
        and graph mode does not — and the new tensor leaves them unchanged. Unsafe for an
        aliased `y`, a tensor value (`select_scatter` needs exactly the selected shape and
        dtype where the write broadcasts and casts) and `y[k] += v`; no fix for slices,
        several indices or an index held by a name.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.relu(x)
                    y = ops.masked_fill(y, y > 1, 1.0)
                    return y
        """, note="the functional form"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    mask = x < 0
                    y[mask] = 0.0
                    return y + 1
        """, note="boolean-mask write on a local compiles to a static Select"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    shape = [x.shape[0], x.shape[1]]
                    shape[0] = 2
                    cfg = {"scale": 1.0}
                    cfg["scale"] = 2.0
                    return x.reshape(shape[0], -1) * cfg["scale"]
        """, note="local Python list and dict of constants"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.relu(x) * 2
                    y[0] = 1.0
                    return y + 1
        """, line=7, expected_fix="""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.relu(x) * 2
                    y = ops.select_scatter(y, ops.full_like(y[0], 1.0), 0, 0)
                    return y + 1
        """),
        Invalid("""
            import mindspore as ms
            from mindspore import ops

            def zero_first(t):
                y = ops.relu(t)
                y[:, 0] = 0
                return y

            @ms.jit
            def step(x):
                return zero_first(x) + 1
        """, line=6, note="in a helper reached from a jit function", expected_fix="""
            import mindspore as ms
            from mindspore import ops

            def zero_first(t):
                y = ops.relu(t)
                y = ops.select_scatter(y, ops.full_like(y[:, 0], 0), 1, 0)
                return y

            @ms.jit
            def step(x):
                return zero_first(x) + 1
        """),

    ]

    def _check(self, node: ast.stmt, ctx) -> None:
        func = None
        for sub in _subscript_targets(node):
            root = _root_name(sub)
            if root is None or ctx.kind(root) is not Kind.TENSOR:
                continue
            a = _analysis(node, ctx, root.id)
            if a.inputs or a.readers:
                return  # MSG202
            if func is None:
                from msgraphlint.infer.flow import scope_function
                func = scope_function(node, ctx)
            if sub.value is root and not isinstance(node, ast.AugAssign) and _is_mask(sub.slice, ctx, func):
                continue
            ctx.report(node, name=root.id, ops=_write_ops(sub, node, mask=False),
                       fix=scatter_write_fix(ctx, node, sub, no_alias_proof(node, ctx, root, stores=True)))
            return

    def visit_Assign(self, node, ctx) -> None:
        self._check(node, ctx)

    def visit_AnnAssign(self, node, ctx) -> None:
        self._check(node, ctx)

    def visit_AugAssign(self, node, ctx) -> None:
        if isinstance(node.target, ast.Subscript):
            self._check(node, ctx)


# ------------------------------------------------------------------------------------ MSG204
class TensorAugmentedAssign(Rule):
    code = "MSG204"
    name = "tensor-augmented-assign"
    summary = "Augmented assignment (`y += v`) on a local tensor: an in-place kernel plus Assign/Depend bookkeeping."
    message = ("`{name} {op}= …` on a tensor compiles to an in-place kernel\n"
               "The in-place kernel ({kernel}) comes with Assign/Depend/UpdateState ordering nodes; "
               "`{name} = {name} {op} …` is a plain fusable op.")
    hint = "write `{name} = {name} {op} …`"
    severity = Severity.WARNING
    fix_safety = FixSafety.SAFE
    rationale = """
        In graph mode `y += 1` on a tensor is a real in-place write. Measured with
        MindSpore 2.10 CPU: `y = x * 2; y += 1` compiles to InplaceAddsExt at the line
        plus Assign, Depend, Load and UpdateState nodes that order the write (a plain
        `y = y + 1` is one Add that can join a fused kernel); the result equals PyNative's
        (PyNative rebinds `y` to a new tensor).

        The fix rewrites `y += v` to `y = y + v`. It is offered as safe only with a proof
        of two things; otherwise it is unsafe. (1) The right side is an integer literal
        and the operator is `+`, `-` or `*`: measured, `y += 1.5` on an int32 tensor keeps
        int32 in graph mode (in-place keeps the dtype) while `y = y + 1.5` promotes to
        float32 (as PyNative's `+=` does). (2) Nothing else holds `y`'s tensor: graph mode
        writes `y += 1` into the tensor and every alias sees it — measured on MindSpore
        2.10, `y = x * 2; t = (y,); y += 1; return t[0] * 4` returns 12 on `ones((2, 2))`
        where `y = y + 1` returns 8, and the same through a list, a dict or a closure. The
        proof (`no_alias_proof`): `y` is only ever bound to arithmetic or to an op that
        always computes a new tensor, is not used in a closure, and every read of `y`
        that can run before the write (earlier, or in a loop around it) is an operand of
        arithmetic or a comparison, or `.shape`/`.dtype`/`.ndim`. On a `construct` input or a tensor another name still reads, `+=` is
        silently different between the modes: that is MSG202, as are `acc = self.acc; acc
        += x` (graph mode writes the Cell attribute) and `total = Tensor(0.0); total += v`
        (graph mode writes the graph's constant: the sum carries over calls). Parameters (`self.acc += x`) are
        state updates and not flagged, nor is a tuple grown by `y += (out,)`.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    y = y + 1
                    return y
        """),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    n = 0
                    for _ in range(3):
                        n += 1
                    return x * n
        """, note="a Python counter"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ()
                    y += ops.split(x, 2)
                    y += (x * 2,)
                    return ops.concat(y)
        """, note="a tuple grown by `+=` (tuple concatenation), not a tensor write"),
        Valid("""
            import numpy as np
            import mindspore.nn as nn
            from mindspore import Parameter, Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.acc = Parameter(Tensor(np.zeros(2, np.float32)), requires_grad=False)

                def construct(self, x):
                    acc = self.acc
                    acc += x
                    return acc
        """, note="a write through a local bound to a Cell attribute diverges: MSG202"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    y += 1
                    return y
        """, line=6, expected_fix="""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    y = y + 1
                    return y
        """),
        Invalid("""
            import mindspore.nn as nn

            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(8, 8)

                def construct(self, x):
                    h = self.fc(x)
                    h *= 0.5
                    return h
        """, line=10),
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    h = ops.relu(x)
                    s = h + 1
                    if h.shape[0] > 1:
                        h *= 2  # 乘二
                    return h - s
        """, line=9, note="reads before the write are arithmetic and metadata: no alias", expected_fix="""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    h = ops.relu(x)
                    s = h + 1
                    if h.shape[0] > 1:
                        h = h * 2  # 乘二
                    return h - s
        """),
    ]

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        t = node.target
        if not isinstance(t, ast.Name) or ctx.kind(t) is not Kind.TENSOR:
            return
        answer = ctx.tensor(t)
        if answer.attr is not None or answer.surely_not or constant_tensor_write(node, ctx):
            return  # bound to `self.<attr>` or a constant `Tensor(...)` (MSG202), or a tuple grown by `y += (out,)`
        a = _analysis(node, ctx, t.id)
        if a.inputs or a.readers:
            return  # MSG202
        op = _OPS.get(type(node.op), "?")
        kernel = {"+": "InplaceAddExt/InplaceAddsExt", "*": "InplaceMul/InplaceMuls"}.get(op, "an Inplace* kernel")
        proof = no_alias_proof(node, ctx) if _keeps_dtype(node) else None
        safety = FixSafety.SAFE if proof else FixSafety.UNSAFE
        ctx.report(node, name=t.id, op=op, kernel=kernel,
                   fix=_aug_fix(node, ctx, safety, proof=f"integer literal (no dtype change); {proof}" if proof else ""))


# ------------------------------------------------------------------------------------ MSG205
class TensorInplaceMethod(Rule):
    code = "MSG205"
    name = "tensor-inplace-method"
    fix_safety = FixSafety.SAFE  # `.mul()` for `.mul_()`: safe with the no-alias proof
    summary = "In-place Tensor method (`add_`, `mul_`, …) on a local tensor: an Inplace* kernel instead of a fusable op."
    message = ("in-place `{method}()` on tensor `{name}` compiles to an Inplace* kernel\n"
               "The Inplace* kernel comes with Depend/UpdateState ordering nodes instead of a fusable op.")
    hint = "use the out-of-place form and rebind: `{name} = {name}.{plain}(…)`"
    severity = Severity.WARNING
    rationale = """
        Measured with MindSpore 2.10 CPU: `z = y.mul_(3.0)` compiles to InplaceMuls plus
        Depend/UpdateState ordering nodes (`add_`: InplaceAddsExt); the out-of-place
        `z = y.mul(3.0)` is a plain Mul that can join a fused kernel. Flagged here: the
        uses where only the returned value is read afterwards, so both modes compute
        the same thing and the cost is the in-place kernel. As soon as the tensor itself
        is read again (or is an input) the modes disagree — PyNative on CPU does not
        write into it — and that is MSG202. Methods without a CPU kernel are MSG212.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x.add(1.0)
                    return y.mul(2.0)
        """, note="out-of-place methods"),
        Valid("""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.cache = ms.Parameter(Tensor(np.zeros((4, 8), np.float32)), name="cache")

                def construct(self, x):
                    self.cache.copy_(x)
                    return x * 2
        """, note="Parameter update"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.relu(x)
                    return y.mul_(2.0) + 1
        """, line=7),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Attribute) or not isinstance(f.value, ast.Name):
            return
        if method_class(ctx, f.attr) != "writes" or ctx.kind(f.value) is not Kind.TENSOR:
            return
        a = _analysis(node, ctx, f.value.id, include_self=True)
        if a.inputs or a.readers:
            return  # MSG202
        plain = f.attr[:-1]
        fix = None
        if ctx.catalog.tensor_method(plain) is not None and not ctx.catalog.tensor_method(plain).get("inplace"):
            stmt = next((s for s in ctx.ancestors(node) if isinstance(s, ast.stmt)), None)
            once = stmt is not None and sum(isinstance(n, ast.Name) and n.id == f.value.id
                                            for n in ast.walk(stmt)) == 1  # `y.mul_(2) + y` reads the write
            fix = inplace_method_fix(node, plain, no_alias_proof(stmt, ctx, f.value) if once else None)
        ctx.report(node, method=f.attr, name=f.value.id, plain=plain, fix=fix)


# ------------------------------------------------------------------------------------ MSG206
class AssignToNonParameter(Rule):
    code = "MSG206"
    name = "assign-to-non-parameter"
    summary = "`ops.assign`/`Assign`/`assign_add`/`copy_` on a tensor that is not a Parameter."
    message = "{call} writes into {what}\n{effect}."
    hint = ("keep state in a `Parameter` created in `__init__` and update it with `ops.assign`; "
            "for a value computed in this step just rebind the name (`y = x`)")
    severity = Severity.WARNING
    rationale = """
        `ops.assign` and friends are meant for Parameters (state that lives across
        steps). On a plain tensor MindSpore 2.10 compiles them without any error or
        warning. Measured on CPU: `ops.assign(x, y)` and `ops.Assign()(x, x * 3)` on a
        `construct` input overwrite the caller's tensor (in both modes); `ops.assign(y,
        x)` on a local compiles to Assign + Depend and merely copies; `ops.assign_add` on
        a local or an input compiles to AssignAdd the same way; `x.copy_(y)` on an input
        overwrites the caller's tensor (InplaceCopy). Nothing persists between steps
        unless the tensor is the caller's, which is then silently modified. `y.copy_(x)`
        into a local that is then only read is not reported (a buffer filled in place:
        both modes compute the same value). `Tensor.assign_value(v)` does not compile in
        graph mode at all (measured: "RuntimeError: Failed to compile in GRAPH_MODE
        because the 'Tensor' object's method 'assign_value' is not supported in
        'construct' or function with @jit decorator"; PyNative runs it).
    """
    VALID = [
        Valid("""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor, ops

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.assign = ops.Assign()
                    self.mem = ms.Parameter(Tensor(np.zeros((4, 8), np.float32)), name="mem")
                    self.count = ms.Parameter(Tensor(0, ms.int32), name="count", requires_grad=False)

                def construct(self, x):
                    self.assign(self.mem, x)
                    ops.assign_add(self.count, Tensor(1, ms.int32))
                    return x + 1
        """, note="assigning Parameters"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    buf = ops.zeros_like(x)
                    buf.copy_(x * 2)
                    return buf + 1
        """, note="copy_ into a local buffer that is then only read: both modes agree"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x, y):
                    ops.assign(x, y)
                    return x * 2
        """, line=6),
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.assign = ops.Assign()

                def construct(self, x):
                    y = x * 2
                    self.assign(y, x)
                    return y + 1
        """, line=11, note="an Assign primitive held by the Cell"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, y):
                    x.copy_(y)
                    return x + 1
        """, line=5),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    y.assign_value(x)
                    return y
        """, line=6, note="does not compile in graph mode (measured on 2.10)"),
    ]

    def _prims(self, ctx) -> dict:
        cls = class_node(ctx)
        if cls is None:
            return {}
        key = (ctx.path, cls.name)
        cache = getattr(self, "_prim_cache", None)
        if cache is None or cache[0] != key:
            found = {}
            for attr, values in self_attr_values(cls, ctx).items():
                qs = {ctx.qualname(v.func) if isinstance(v, ast.Call) else None for v in values}
                if len(qs) == 1 and next(iter(qs)) in _ASSIGN_PRIMS:
                    found[attr] = _ASSIGN_PRIMS[next(iter(qs))]
            self._prim_cache = cache = (key, found)
        return cache[1]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        call = target = None
        if isinstance(f, ast.Attribute) and f.attr == "assign_value":
            # measured on 2.10 CPU: rejected by the graph compiler, whatever the receiver
            ctx.report(node, call="`.assign_value()`", what=f"`{_text(ctx, f.value)}`",
                       effect="graph mode does not compile it (MindSpore 2.10: \"RuntimeError: Failed to compile in "
                              "GRAPH_MODE because the 'Tensor' object's method 'assign_value' is not supported in "
                              "'construct' or function with @jit decorator\")",
                       hint="use `ops.assign(param, value)` on a Parameter, or rebind the name")
            return
        if isinstance(f, ast.Attribute) and f.attr in _ASSIGN_METHODS and isinstance(f.value, ast.Name):
            call, target = f"`.{f.attr}()`", f.value
        else:
            q = ctx.qualname(f)
            if q in _ASSIGN_FUNCS:
                call = f"`{_ASSIGN_FUNCS[q]}`"
            elif isinstance(f, ast.Call) and ctx.qualname(f.func) in _ASSIGN_PRIMS:
                call = f"`{_ASSIGN_PRIMS[ctx.qualname(f.func)]}`"
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
                prim = self._prims(ctx).get(f.attr)
                if prim is not None:
                    call = f"`self.{f.attr}` ({prim})"
            if call is None or not node.args:
                return
            target = node.args[0]
        if not isinstance(target, ast.Name) or ctx.kind(target) is not Kind.TENSOR:
            return
        a = _analysis(node, ctx, target.id)
        if a.inputs:
            what = _whose(ctx, [target.id]) if a.inputs == [target.id] else \
                f"`{target.id}` (it holds {_whose(ctx, a.inputs)})"
            effect = "it compiles without error and overwrites the caller's tensor; nothing is kept as state"
        elif call == "`.copy_()`":
            return  # copying into a local buffer that is then read: both modes compute the same thing
        else:
            what = f"`{target.id}`, a tensor that is not a Parameter"
            effect = "it compiles silently to an Assign-type kernel that only copies; nothing is kept as state"
        ctx.report(node, call=call, what=what, effect=effect)


# ------------------------------------------------------------------------------------ MSG212
class InplaceMethodUnsupportedOnCPU(Rule):
    code = "MSG212"
    name = "inplace-method-unsupported-on-cpu"
    summary = "In-place Tensor method that MindSpore 2.10 has no CPU kernel for (`fill_`, `zero_`, `masked_fill_`, …)."
    message = "in-place `{method}()` on `{name}`: no CPU kernel in MindSpore 2.10\n{effect}."
    hint = "use the out-of-place form and rebind (`{name} = {name}.{plain}(…)`, `ops.masked_fill`, `ops.zeros_like`, `ops.clamp`)"
    severity = Severity.ERROR
    mindspore = ">=2.10,<2.11"  # kernel coverage is version-specific: only 2.10 was measured
    rationale = """
        Measured with MindSpore 2.10 on CPU, one tiny Cell per method (`x.m_(...);
        return x * 1`), graph mode and PyNative: these in-place methods have no CPU
        kernel, and the Cell fails ("Kernel select failed" in graph mode, "The kernel
        InplaceFillScalar unregistered." and the like in PyNative): `fill_`, `zero_`,
        `clamp_`, `floor_`, `log_`, `sigmoid_`, `tanh_`, `sign_`, `erfinv_`,
        `masked_fill_`, `index_fill_`, `index_add_`, `index_copy_`, `index_put_`,
        `scatter_add_`, `masked_scatter_`, `addmm_`, `uniform_`, `normal_`, `random_`,
        `bernoulli_`, `exponential_`, `fill_diagonal_`, `put_`, and `exp_` (graph mode
        fails; PyNative runs but leaves the tensor unchanged). `scatter_` compiles in
        graph mode but the write is dropped, and PyNative has no CPU kernel for it.

        Their out-of-place forms (`masked_fill`, `clamp`, `ops.zeros_like`, …) compile
        and run on CPU. Other backends were not measured: disable this rule where CPU
        is not a target.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    y = x.masked_fill(x > 0.5, 0.0)
                    return ops.zeros_like(y) + y
        """, note="out-of-place forms"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    x.fill_(1.0)
                    return x * 2
        """, line=5),
        Invalid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    scores = ops.matmul(x, x.T)
                    scores.masked_fill_(scores > 1, 0.0)
                    return scores
        """, line=7),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Attribute) or not isinstance(f.value, ast.Name):
            return
        if method_class(ctx, f.attr) != "unsupported" or ctx.kind(f.value) is not Kind.TENSOR:
            return
        if f.attr == "scatter_":
            effect = "graph mode drops the write and PyNative has no CPU kernel for it (MindSpore 2.10)"
        elif f.attr == "exp_":
            effect = "InplaceExp has no CPU kernel in MindSpore 2.10: graph mode fails on CPU (PyNative leaves the tensor unchanged)"
        else:
            effect = (f"MindSpore 2.10 has no CPU kernel for it ({_UNSUPPORTED_ON_CPU[f.attr]}): "
                      "it fails on CPU in graph mode and in PyNative")
        ctx.report(node, method=f.attr, name=f.value.id, effect=effect, plain=f.attr[:-1])

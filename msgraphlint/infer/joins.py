"""The join analysis behind MSG108.

When a tensor decides a branch, MindSpore compiles a ``Switch`` and joins what leaves its two
sides into one abstract value. ``Joins`` walks one graph scope's statements once, keeping for
each local name what it holds on the current path (a ``Val``: a tensor with an optional dtype,
a Python ``int``/``float``/``bool``/``str``, a tuple display, ``None``) and for each ``return``
the chain of ``if`` statements it sits under; ``clash`` says which pairs MindSpore 2.10 cannot
join (each pair measured: see MSG108's rationale). It knows only what the code spells:
literals, ``len()``/``.shape``/``.ndim``, ``is None`` tests, ``Tensor(...)`` with its dtype,
``astype``/``ops.cast``, comparisons (bool tensors), functions that surely return one tensor,
and the dtypes the module's call sites pass (``msgraphlint/infer/paramkinds.py``). Anything else is
unknown and never reported. ``_layer_members`` reads the Cells a ``self.<attr>`` holds for the
switch_layer case.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from msgraphlint.parse.astutil import unparse
from msgraphlint.infer.dtypes import TENSOR_MAKERS, constructed_dtype, dtype_name
from msgraphlint.kinds import Kind

from .params import SHARED_USES
from .deciders import tensor_decider

_USES = SHARED_USES

_SCALARS = ("int", "float", "bool", "str")
# functions and Tensor methods that give one tensor (not a tuple): elementwise ops, reductions
# over axes, creation, casts and layout changes
_SINGLE_FUNCS = frozenset("""
    cast ones zeros ones_like zeros_like full full_like fill fills select abs exp log sqrt square pow
    matmul mm bmm reshape concat cat stack sum mean prod relu sigmoid softmax log_softmax tanh gelu silu
    add sub mul div neg maximum minimum clamp clip logical_and logical_or logical_not equal not_equal
    greater less greater_equal less_equal gt lt ge le eq ne transpose permute squeeze unsqueeze expand_dims
    broadcast_to tile masked_fill gather argmax argmin norm cumsum isnan isinf isfinite floor ceil round
    sign sin cos erf rsqrt reciprocal any all flatten tril triu one_hot ReduceSum ReduceMean
""".split())
_SINGLE_METHODS = frozenset("""
    astype sum mean prod abs exp log sqrt square pow reshape view transpose permute squeeze unsqueeze
    expand_dims float int half bool long double clone copy matmul flatten any all norm softmax sigmoid
    relu tanh clip clamp masked_fill to type_as expand_as broadcast_to argmax argmin cumsum neg
    reciprocal rsqrt floor ceil round sign isnan isinf tile contiguous std var
""".split())
# reductions that return (values, indices) when given a `dim`
_SINGLE_WITHOUT_DIM = frozenset({"max", "min", "median"})
_MAX_RETURNS = 40


class Val:
    """What a value is, as far as MindSpore's join is concerned."""
    __slots__ = ("cls", "dtype", "node", "elts")

    def __init__(self, cls: str, node: ast.AST, dtype: Optional[str] = None, elts: Optional[list] = None) -> None:
        self.cls = cls      # "tensor", "int", "float", "bool", "str", "tuple", "none"
        self.dtype = dtype  # a tensor's dtype when the code says it
        self.node = node    # where the value was made (for the message)
        self.elts = elts    # a tuple display's elements (None where unknown)

    def same(self, other: "Val") -> bool:
        return self.cls == other.cls and self.dtype == other.dtype and self.elts is None and other.elts is None

    def describe(self) -> str:
        if self.cls == "tensor":
            if not self.dtype:
                return "a Tensor"
            return ("an " if self.dtype[0] in "aeiou" else "a ") + self.dtype + " Tensor"
        if self.cls == "tuple":
            return "a tuple"
        return f"a Python {self.cls}"


def clash(a: Optional[Val], b: Optional[Val]) -> Optional[Tuple[Val, Val]]:
    """The two values that cannot be joined (measured on 2.10), or None. ``None`` joins
    with anything (`return x` / `return None` compiled); tuples of different lengths join
    too (they did: `return x, y, x` / `return x, y`); equal-length tuples join element by
    element."""
    if a is None or b is None or "none" in (a.cls, b.cls):
        return None
    if a.cls == "tensor" and b.cls == "tensor":
        return (a, b) if a.dtype and b.dtype and a.dtype != b.dtype else None
    if a.cls == "tuple" and b.cls == "tuple":
        if a.elts is not None and b.elts is not None and len(a.elts) == len(b.elts):
            for x, y in zip(a.elts, b.elts):
                c = clash(x, y)
                if c is not None:
                    return c
        return None
    if "tensor" in (a.cls, b.cls):
        other = b if a.cls == "tensor" else a
        return (a, b) if other.cls in _SCALARS + ("tuple",) else None
    if a.cls in _SCALARS and b.cls in _SCALARS:
        return (a, b) if a.cls != b.cls else None
    if "tuple" in (a.cls, b.cls):
        other = b if a.cls == "tuple" else a
        return (a, b) if other.cls in _SCALARS else None
    return None


class _Entry:
    """One step of a return's path: the ``if`` (or loop) it sits in and which side."""
    __slots__ = ("node", "side", "tensor")

    def __init__(self, node: ast.AST, side: str, tensor: bool) -> None:
        self.node, self.side, self.tensor = node, side, tensor


class Joins:
    """The join problems of one scope function."""

    def __init__(self, ctx, func: ast.AST) -> None:
        self.ctx = ctx
        self.func = func
        self.returns: List[Tuple[ast.Return, Val, Tuple[_Entry, ...]]] = []
        self.problems: List[Tuple[ast.AST, str, Val, Val]] = []  # (report node, what, a, b)
        self._deciders: Dict[int, bool] = {}
        self._param_dtypes = ctx.values.param_dtypes
        body = func.body if isinstance(func.body, list) else []
        self._block(body, self._param_env(), ())
        self._pair_returns()

    def _param_env(self) -> Dict[str, Val]:
        """The parameters that surely hold one tensor: the module's call sites pass one
        (`Tensor(...)`, a dataset column), an annotation says so, or the body uses the name
        as a tensor (`x.sum()`); a bare parameter is as likely a Python value."""
        values = self.ctx.values
        args = self.func.args  # type: ignore[attr-defined]
        uses, _weak = _USES.get(self.ctx)
        env: Dict[str, Val] = {}
        for a in list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs):
            if a.arg in ("self", "cls") or not values.params.get(a.arg, Kind.UNKNOWN).tensor_like:
                continue
            use = uses.get(a.arg)
            ann = unparse(a.annotation).rsplit(".", 1)[-1] if a.annotation is not None else ""
            if (a.arg in values.from_callers and values.params.get(a.arg) is Kind.TENSOR) or ann == "Tensor" \
                    or (use is not None and use.tensor is not None):
                env[a.arg] = Val("tensor", a, self._param_dtypes.get(a.arg))
        return env

    # values -----------------------------------------------------------------------
    def decides(self, test: ast.AST) -> bool:
        """A condition MindSpore decides at run time (MSG101's test; a tensor made only of
        literals is folded: `a = Tensor([1]); b = Tensor([2.0]); a and b` compiled and
        returned `b`)."""
        key = id(test)
        if key not in self._deciders:
            self._deciders[key] = tensor_decider(self.ctx, test) is not None
        return self._deciders[key]

    def value(self, e: Optional[ast.AST], env: Dict[str, Val]) -> Optional[Val]:
        ctx = self.ctx
        if e is None:
            return None
        if isinstance(e, ast.Constant):
            v = e.value
            if v is None:
                return Val("none", e)
            if isinstance(v, bool):
                return Val("bool", e)
            if isinstance(v, int):
                return Val("int", e)
            if isinstance(v, float):
                return Val("float", e)
            if isinstance(v, str):
                return Val("str", e)
            return None
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)) and isinstance(e.operand, ast.Constant) \
                and type(e.operand.value) in (int, float):
            return Val(type(e.operand.value).__name__, e)
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            if e.id in _local_stores(self.func):
                return None  # bound somewhere this walk did not follow (a loop, a tuple target)
        if isinstance(e, ast.Tuple):
            elts = [self.value(x, env) for x in e.elts]
            return Val("tuple", e, elts=None if any(x is None or isinstance(x_node, ast.Starred)
                                                     for x, x_node in zip(elts, e.elts)) else elts)
        if isinstance(e, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot)) for op in e.ops):
                return Val("bool", e)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in ("len", "isinstance") \
                and e.func.id not in ctx.imports.names and e.func.id not in _local_stores(self.func):
            return Val("int" if e.func.id == "len" else "bool", e)
        if isinstance(e, ast.Attribute) and e.attr == "training" and isinstance(e.value, ast.Name) \
                and e.value.id == "self" and ctx.class_info is not None and ctx.class_info.is_cell:
            return Val("bool", e)
        kind = ctx.kind(e)
        if isinstance(e, ast.Attribute) and e.attr in ("ndim", "shape") and ctx.kind(e.value).tensor_like:
            return Val("int" if e.attr == "ndim" else "tuple", e)
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and ctx.kind(e.value.value).tensor_like and not isinstance(e.slice, ast.Slice):
            return Val("int", e)
        if kind.tensor_like and self.single(e, env):
            return Val("tensor", e, self.dtype(e, env))
        return None

    def single(self, e: ast.AST, env: Dict[str, Val], depth: int = 0) -> bool:
        """``e`` is one tensor, not a tuple of them: many MindSpore functions that the
        catalog says return tensors return tuples (`ops.topk`, `ops.split`, `max(dim=...)`),
        and so may a sub-Cell; only what surely gives one tensor counts."""
        ctx = self.ctx
        if depth > 12 or not ctx.kind(e).tensor_like:
            return False
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id].cls == "tensor"
            return False  # a parameter without evidence, a global, or a name bound where the walk did not follow
        if isinstance(e, ast.BinOp):
            return self.single(e.left, env, depth + 1) or self.single(e.right, env, depth + 1)
        if isinstance(e, ast.UnaryOp):
            return self.single(e.operand, env, depth + 1)
        if isinstance(e, ast.Compare):
            return any(self.single(x, env, depth + 1) for x in [e.left] + list(e.comparators))
        if isinstance(e, ast.Subscript):
            return self.single(e.value, env, depth + 1)
        if isinstance(e, ast.Attribute):
            return isinstance(e.value, ast.Name) and e.value.id == "self" and ctx.kind(e) is Kind.PARAMETER
        if isinstance(e, ast.Call):
            q = ctx.qualname(e.func) or ""
            if q in TENSOR_MAKERS:
                return True
            if q.startswith("mindspore.") and q.rsplit(".", 1)[-1] in _SINGLE_FUNCS:
                return True
            if isinstance(e.func, ast.Attribute) and q == "" and (
                    e.func.attr in _SINGLE_METHODS
                    or (e.func.attr in _SINGLE_WITHOUT_DIM and not e.args and all(k.arg == "axis" for k in e.keywords))):
                return self.single(e.func.value, env, depth + 1)
        return False

    def dtype(self, e: ast.AST, env: Dict[str, Val]) -> Optional[str]:
        ctx = self.ctx
        if isinstance(e, ast.Compare):
            return "bool"
        if isinstance(e, ast.Name):
            v = env.get(e.id)
            if v is not None:
                return v.dtype if v.cls == "tensor" else None
            if e.id in _local_stores(self.func):
                return None
            return self._param_dtypes.get(e.id)
        if isinstance(e, ast.Call):
            q = ctx.qualname(e.func) or ""
            if q in TENSOR_MAKERS:
                return constructed_dtype(e, ctx.qualname)
            if q in ("mindspore.ops.cast",) and len(e.args) == 2:
                return _dtype_name(ctx, e.args[1])
            if isinstance(e.func, ast.Attribute) and e.func.attr == "astype" and len(e.args) == 1 and not e.keywords \
                    and ctx.kind(e.func.value).tensor_like:
                return _dtype_name(ctx, e.args[0])
        return None

    # statements -------------------------------------------------------------------
    def _block(self, body, env: Optional[Dict[str, Val]], path: Tuple[_Entry, ...]) -> Optional[Dict[str, Val]]:
        """Walk ``body`` from ``env``; the environment at its end, or None when it never
        falls through (every path returns or raises)."""
        for stmt in body:
            if env is None:
                return None  # dead code after a return
            env = self._stmt(stmt, env, path)
        return env

    def _stmt(self, stmt: ast.stmt, env: Dict[str, Val], path) -> Optional[Dict[str, Val]]:
        self._expressions(stmt, env)
        if isinstance(stmt, ast.Return):
            v = self.value(stmt.value, env) if stmt.value is not None else Val("none", stmt)
            if v is not None and len(self.returns) < _MAX_RETURNS:
                self.returns.append((stmt, v, path))
            return None
        if isinstance(stmt, ast.Raise):
            return None
        if isinstance(stmt, ast.If):
            return self._if(stmt, env, path)
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            self._block(stmt.body, dict(env), path + (_Entry(stmt, "loop", False),))
            self._block(stmt.orelse, dict(env), path + (_Entry(stmt, "loop", False),))
            out = dict(env)
            for name in stores(stmt):
                out.pop(name, None)
            return out
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in _target_names(item.optional_vars):
                        env.pop(name, None)
            return self._block(stmt.body, env, path)
        if isinstance(stmt, ast.Try):
            out = self._block(stmt.body, dict(env), path + (_Entry(stmt, "try", False),))
            for name in stores(stmt):
                env.pop(name, None)
            return env if out is not None or stmt.handlers else None
        if isinstance(stmt, ast.Assign):
            v = self.value(stmt.value, env)
            for t in stmt.targets:
                self._bind(t, v, stmt, env)
            return env
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._bind(stmt.target, self.value(stmt.value, env), stmt, env)
            return env
        if isinstance(stmt, ast.AugAssign):
            if isinstance(stmt.target, ast.Name):
                old = env.get(stmt.target.id)
                new = self.value(stmt.value, env)
                if (old is not None and old.cls == "tensor") or (new is not None and new.cls == "tensor"):
                    env[stmt.target.id] = Val("tensor", stmt)
                else:
                    env.pop(stmt.target.id, None)
            return env
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            env.pop(stmt.name, None)
            return env
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Delete)):
            for name in stores(stmt):
                env.pop(name, None)
            return env
        return env

    def _bind(self, target: ast.AST, v: Optional[Val], stmt: ast.AST, env: Dict[str, Val]) -> None:
        if isinstance(target, ast.Name):
            if v is None:
                env.pop(target.id, None)
            else:
                env[target.id] = Val(v.cls, stmt, v.dtype, v.elts)
        else:
            for name in _target_names(target):
                env.pop(name, None)

    def _if(self, stmt: ast.If, env: Dict[str, Val], path) -> Optional[Dict[str, Val]]:
        """An ``if`` and its ``elif`` links, walked in source order without recursing per link
        (a 600-link chain would exhaust the stack): each link's body first, then the final
        ``else``, then the links joined from the last one back, as the nested walk did."""
        links = []
        cur, p = stmt, path
        while True:
            tensor = self.decides(cur.test)
            b = self._block(cur.body, dict(env), p + (_Entry(cur, "body", tensor),))
            links.append((cur, tensor, b))
            p = p + (_Entry(cur, "orelse", tensor),)
            if len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
                cur = cur.orelse[0]
                env = dict(env)
                self._expressions(cur, env)  # what _stmt does for a nested if
                continue
            o = self._block(cur.orelse, dict(env), p)
            break
        for link, tensor, b in reversed(links):
            o = self._join_if(link, tensor, b, o)
        return o

    def _join_if(self, stmt: ast.If, tensor: bool, b: Optional[Dict[str, Val]],
                 o: Optional[Dict[str, Val]]) -> Optional[Dict[str, Val]]:
        if b is None:
            return o
        if o is None:
            return b
        if tensor:
            for name in sorted(set(b) | set(o)):
                vb, vo = b.get(name), o.get(name)
                if vb is None or vo is None or vb is vo:
                    continue
                c = clash(vb, vo)
                if c is not None and _live_after(self.func, stmt, name):
                    self.problems.append((stmt.test, f"`{name}` (used after it) is", c[0], c[1]))
                    break
        out = {}
        for name in set(b) & set(o):
            if b[name] is o[name] or b[name].same(o[name]):
                out[name] = b[name]
        return out

    def _expressions(self, stmt: ast.stmt, env: Dict[str, Val]) -> None:
        """Conditional expressions and ``and``/``or`` in the statement's own expressions."""
        for field, value in ast.iter_fields(stmt):
            if field in ("body", "orelse", "finalbody", "handlers"):
                continue
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.AST):
                    self._scan(item, env)

    def _scan(self, root: ast.AST, env: Dict[str, Val]) -> None:
        stack = [root]
        while stack:
            n = stack.pop()
            if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                continue
            if isinstance(n, ast.IfExp) and self.decides(n.test):
                c = clash(self.value(n.body, env), self.value(n.orelse, env))
                if c is not None:
                    self.problems.append((n, "its two values are", c[0], c[1]))
            elif isinstance(n, ast.BoolOp):
                self._boolop(n, env)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript):
                self._switch_layer(n, env)
            stack.extend(ast.iter_child_nodes(n))

    def _switch_layer(self, call: ast.Call, env: Dict[str, Val]) -> None:
        """``self.layers[i](x)`` with a tensor index: MindSpore builds a switch_layer over the
        cells and joins their outputs (measured on 2.10: a CellList and a tuple of Cells
        whose members return `x, x * 2` and `x * x` failed with `Cannot join`; `nn.ReLU()`
        and `x * x` compiled)."""
        sub = call.func
        attr = sub.value
        if not (isinstance(attr, ast.Attribute) and isinstance(attr.value, ast.Name) and attr.value.id == "self"):
            return
        idx = self.value(sub.slice, env)
        if idx is None or idx.cls != "tensor" or not self.decides(sub.slice):
            return
        members = _layer_members(self.ctx, self.func, attr.attr)
        outs = [(m, kind) for m, kind in members if kind is not None]
        tup = next((m for m, k in outs if k.cls == "tuple"), None)
        ten = next((m for m, k in outs if k.cls == "tensor"), None)
        if tup is not None and ten is not None:
            a = dict(outs)[tup]
            b = dict(outs)[ten]
            self.problems.append((call, "the Cells it picks from return", a, b))

    def _boolop(self, n: ast.BoolOp, env: Dict[str, Val]) -> None:
        vals = [self.value(v, env) for v in n.values]
        for i, left in enumerate(n.values[:-1]):
            if not self.decides(left):
                return  # a Python value first: MindSpore folds the rest
            for j in range(i + 1, len(n.values)):
                c = clash(vals[i], vals[j])
                if c is not None:
                    op = "and" if isinstance(n.op, ast.And) else "or"
                    self.problems.append((n, f"the operands of `{op}` are", c[0], c[1]))
                    return

    # returns ----------------------------------------------------------------------
    def _pair_returns(self) -> None:
        seen = set()
        rets = self.returns
        for i in range(len(rets)):
            for j in range(i + 1, len(rets)):
                (ra, va, pa), (rb, vb, pb) = rets[i], rets[j]
                c = clash(va, vb)
                if c is None:
                    continue
                sep = _separator(pa, pb, ra, rb)
                if sep is None or id(sep) in seen:
                    continue
                seen.add(id(sep))
                self.problems.append((sep.test, "its branches return", Val(va.cls, ra, va.dtype, va.elts),
                                      Val(vb.cls, rb, vb.dtype, vb.elts)))


def _separator(pa, pb, ra: ast.AST, rb: ast.AST) -> Optional[ast.If]:
    """The tensor-decided ``if`` whose Switch joins returns ``ra`` and ``rb``, or None when
    nothing but tensor ``if`` statements lies between them (a loop, a ``try`` or a
    compile-time ``if`` on the way, and nothing is claimed)."""
    k = 0
    while k < len(pa) and k < len(pb) and pa[k].node is pb[k].node and pa[k].side == pb[k].side:
        k += 1
    ea = pa[k] if k < len(pa) else None
    eb = pb[k] if k < len(pb) else None
    if ea is not None and eb is not None and ea.node is eb.node:
        sep = ea.node  # the two sides of one `if`
    else:
        # one return sits in an `if`, the other comes after it in the same block
        first, other_pos = None, None
        if ea is not None and (eb is None or ea.node.lineno < eb.node.lineno):
            first, other_pos = ea.node, (eb.node if eb is not None else rb)
        elif eb is not None:
            first, other_pos = eb.node, (ea.node if ea is not None else ra)
        if first is None or other_pos.lineno <= (first.end_lineno or first.lineno):
            return None
        sep = first
    if not isinstance(sep, ast.If):
        return None
    if any(not e.tensor for e in pa[k:]) or any(not e.tensor for e in pb[k:]):
        return None
    return sep


def _dtype_name(ctx, node: ast.AST) -> Optional[str]:
    return dtype_name(ctx.qualname(node))


def _target_names(target: ast.AST):
    for n in ast.walk(target):
        if isinstance(n, ast.Name):
            yield n.id


def stores(stmt: ast.AST):
    out = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
    return out


_STORES_MEMO: Dict[int, Tuple[ast.AST, frozenset]] = {}


def _local_stores(func: ast.AST) -> frozenset:
    hit = _STORES_MEMO.get(id(func))
    if hit is None or hit[0] is not func:
        if len(_STORES_MEMO) > 256:
            _STORES_MEMO.clear()
        hit = (func, frozenset(stores(func)))
        _STORES_MEMO[id(func)] = hit
    return hit[1]


def _live_after(func: ast.AST, stmt: ast.AST, name: str) -> bool:
    """Whether ``name`` is read after ``stmt`` before being rebound, judged by position in
    the function: its first later occurrence is a load, or a store by a statement that also
    reads it (``x += 1``, ``x = x + 1``)."""
    end = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    first = None
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and n.id == name and (n.lineno, n.col_offset) >= end:
            if first is None or (n.lineno, n.col_offset) < (first.lineno, first.col_offset):
                first = n
    if first is None:
        return False
    if isinstance(first.ctx, ast.Load):
        return True
    for s in ast.walk(func):
        if isinstance(s, ast.AugAssign) and s.target is first:
            return True
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and any(t is first for t in ast.walk(
                ast.Tuple(elts=list(getattr(s, "targets", [getattr(s, "target", None)])), ctx=ast.Store()))):
            return s.value is not None and any(isinstance(v, ast.Name) and v.id == name for v in ast.walk(s.value))
    return True


# MindSpore Cells that return one tensor
_SINGLE_CELLS = frozenset("""
    ReLU ReLU6 LeakyReLU GELU SiLU Sigmoid Tanh Softmax LogSoftmax Dense Conv1d Conv2d Conv3d Dropout
    LayerNorm BatchNorm1d BatchNorm2d GroupNorm Identity Flatten Embedding AvgPool2d MaxPool2d
""".split())


def _layer_members(ctx, func: ast.AST, attr: str) -> List[Tuple[str, Optional[Val]]]:
    """The Cells ``self.<attr>`` holds (``(self.a, self.b)``, ``[A(), B()]``,
    ``nn.CellList([...])`` in ``__init__``) with what each ``construct`` returns: a tuple
    when every ``return`` is a tuple display, one tensor for MindSpore's single-output
    Cells and for a ``construct`` whose every ``return`` is arithmetic; else None."""
    tree = ctx.source.tree
    found = _enclosing_class(tree, func)
    if found is None:
        return []
    cls, siblings = found
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return []
    bound: Dict[str, ast.AST] = {}
    for n in ast.walk(init):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) \
                and isinstance(n.targets[0].value, ast.Name) and n.targets[0].value.id == "self":
            bound[n.targets[0].attr] = n.value
    holder = bound.get(attr)
    if isinstance(holder, ast.Call) and (ctx.qualname(holder.func) or "").endswith(".CellList") \
            and len(holder.args) == 1:
        holder = holder.args[0]
    if not isinstance(holder, (ast.Tuple, ast.List)):
        return []
    classes = {c.name: c for c in siblings if isinstance(c, ast.ClassDef)}
    classes.update({c.name: c for c in tree.body if isinstance(c, ast.ClassDef) and c.name not in classes})
    out = []
    for e in holder.elts:
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
            e = bound.get(e.attr)
        if not isinstance(e, ast.Call):
            out.append(("?", None))
            continue
        name = ctx.qualname(e.func) or ""
        if name.startswith("mindspore.") and name.rsplit(".", 1)[-1] in _SINGLE_CELLS:
            out.append((name, Val("tensor", e)))
            continue
        c = classes.get(e.func.id) if isinstance(e.func, ast.Name) else None
        out.append((e.func.id if c is not None else name, _returns_kind(c) if c is not None else None))
    return out


def _returns_kind(cls: ast.ClassDef) -> Optional[Val]:
    construct = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "construct"), None)
    if construct is None:
        return None
    rets = [r for r in ast.walk(construct) if isinstance(r, ast.Return)]
    if not rets or any(r.value is None for r in rets):
        return None
    if all(isinstance(r.value, ast.Tuple) for r in rets):
        return Val("tuple", rets[0])
    if all(isinstance(r.value, (ast.BinOp, ast.UnaryOp)) for r in rets):
        return Val("tensor", rets[0])
    return None


def _enclosing_class(tree: ast.AST, func: ast.AST):
    """(the class whose method ``func`` is, the statements beside that class)."""
    stack = [(tree, getattr(tree, "body", []))]
    while stack:
        node, body = stack.pop()
        for st in body:
            if isinstance(st, ast.ClassDef) and any(item is func for item in st.body):
                return st, body
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(st, field, None)
                if isinstance(inner, list) and inner:
                    stack.append((st, inner))
    return None


def encloses_another(node: ast.AST, problems, ctx) -> bool:
    """An ``if`` whose body holds another problem's ``if``: MindSpore stops at the inner one
    (it names `if input_x > 1:` for three nested ifs), so only that one is reported."""
    parent = ctx.parent(node)
    if not isinstance(parent, ast.If) or parent.test is not node:
        return False
    lo, hi = parent.lineno, parent.end_lineno or parent.lineno
    for other, *_ in problems:
        op = ctx.parent(other)
        if other is not node and isinstance(op, ast.If) and op.test is other and op is not parent \
                and lo < op.lineno <= hi:
            return True
    return False


def line_text(ctx, node: ast.AST, limit: int = 40) -> str:
    text = " ".join((ctx.segment(node) or ast.unparse(node)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

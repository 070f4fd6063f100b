"""MSG108: values that graph mode cannot join where a tensor decides the branch.

When a condition is a tensor, MindSpore compiles a ``Switch`` and must give the values that
leave the two branches one abstract type (the *join*). A Tensor and a Python scalar, a Tensor
and a tuple, two Python scalars of different types or two tensors of different dtypes do not
join, and the compile fails with ``TypeError: Cannot join the return values of different
branches, perhaps you need to make them equal.`` Every case below was compiled on MindSpore
2.10.0 CPU (``fixtures/labeled/control_flow_*_join_*``).

The analysis (``_Joins``) walks one graph scope's statements once, keeping for each local
name what it holds on the current path (a ``_Val``: tensor with an optional dtype, a Python
``int``/``float``/``bool``/``str``, a tuple display, ``None``) and for each ``return`` the
chain of ``if`` statements it sits under. It knows only what the code spells: literals,
``len()``/``.shape``/``.ndim``, ``is None`` tests, ``Tensor(...)`` with its dtype,
``astype``/``ops.cast``, comparisons (bool tensors), and the dtypes the module's call sites
pass (``msgraphlint/paramkinds.py``). Anything else is unknown and never reported.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from msgraphlint.dtypes import TENSOR_MAKERS, constructed_dtype, dtype_name
from msgraphlint.kinds import Kind
from msgraphlint.rule import Invalid, Rule, Severity, Valid

from ._params import SHARED_USES
from .control_flow import tensor_decider

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


class _Val:
    """What a value is, as far as MindSpore's join is concerned."""
    __slots__ = ("cls", "dtype", "node", "elts")

    def __init__(self, cls: str, node: ast.AST, dtype: Optional[str] = None, elts: Optional[list] = None) -> None:
        self.cls = cls      # "tensor", "int", "float", "bool", "str", "tuple", "none"
        self.dtype = dtype  # a tensor's dtype when the code says it
        self.node = node    # where the value was made (for the message)
        self.elts = elts    # a tuple display's elements (None where unknown)

    def same(self, other: "_Val") -> bool:
        return self.cls == other.cls and self.dtype == other.dtype and self.elts is None and other.elts is None

    def describe(self) -> str:
        if self.cls == "tensor":
            if not self.dtype:
                return "a Tensor"
            return ("an " if self.dtype[0] in "aeiou" else "a ") + self.dtype + " Tensor"
        if self.cls == "tuple":
            return "a tuple"
        return f"a Python {self.cls}"


def clash(a: Optional[_Val], b: Optional[_Val]) -> Optional[Tuple[_Val, _Val]]:
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


class _Joins:
    """The join problems of one scope function."""

    def __init__(self, ctx, func: ast.AST) -> None:
        self.ctx = ctx
        self.func = func
        self.returns: List[Tuple[ast.Return, _Val, Tuple[_Entry, ...]]] = []
        self.problems: List[Tuple[ast.AST, str, _Val, _Val]] = []  # (report node, what, a, b)
        self._deciders: Dict[int, bool] = {}
        self._param_dtypes = ctx.values.param_dtypes
        body = func.body if isinstance(func.body, list) else []
        self._block(body, self._param_env(), ())
        self._pair_returns()

    def _param_env(self) -> Dict[str, _Val]:
        """The parameters that surely hold one tensor: the module's call sites pass one
        (`Tensor(...)`, a dataset column), an annotation says so, or the body uses the name
        as a tensor (`x.sum()`); a bare parameter is as likely a Python value."""
        values = self.ctx.values
        args = self.func.args  # type: ignore[attr-defined]
        uses, _weak = _USES.get(self.ctx)
        env: Dict[str, _Val] = {}
        for a in list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs):
            if a.arg in ("self", "cls") or not values.params.get(a.arg, Kind.UNKNOWN).tensor_like:
                continue
            use = uses.get(a.arg)
            ann = ast.unparse(a.annotation).rsplit(".", 1)[-1] if a.annotation is not None else ""
            if (a.arg in values.from_callers and values.params.get(a.arg) is Kind.TENSOR) or ann == "Tensor" \
                    or (use is not None and use.tensor is not None):
                env[a.arg] = _Val("tensor", a, self._param_dtypes.get(a.arg))
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

    def value(self, e: Optional[ast.AST], env: Dict[str, _Val]) -> Optional[_Val]:
        ctx = self.ctx
        if e is None:
            return None
        if isinstance(e, ast.Constant):
            v = e.value
            if v is None:
                return _Val("none", e)
            if isinstance(v, bool):
                return _Val("bool", e)
            if isinstance(v, int):
                return _Val("int", e)
            if isinstance(v, float):
                return _Val("float", e)
            if isinstance(v, str):
                return _Val("str", e)
            return None
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)) and isinstance(e.operand, ast.Constant) \
                and type(e.operand.value) in (int, float):
            return _Val(type(e.operand.value).__name__, e)
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            if e.id in _local_stores(self.func):
                return None  # bound somewhere this walk did not follow (a loop, a tuple target)
        if isinstance(e, ast.Tuple):
            elts = [self.value(x, env) for x in e.elts]
            return _Val("tuple", e, elts=None if any(x is None or isinstance(x_node, ast.Starred)
                                                     for x, x_node in zip(elts, e.elts)) else elts)
        if isinstance(e, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot)) for op in e.ops):
                return _Val("bool", e)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in ("len", "isinstance") \
                and e.func.id not in ctx.imports.names and e.func.id not in _local_stores(self.func):
            return _Val("int" if e.func.id == "len" else "bool", e)
        if isinstance(e, ast.Attribute) and e.attr == "training" and isinstance(e.value, ast.Name) \
                and e.value.id == "self" and ctx.class_info is not None and ctx.class_info.is_cell:
            return _Val("bool", e)
        kind = ctx.kind(e)
        if isinstance(e, ast.Attribute) and e.attr in ("ndim", "shape") and ctx.kind(e.value).tensor_like:
            return _Val("int" if e.attr == "ndim" else "tuple", e)
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and e.value.attr == "shape" \
                and ctx.kind(e.value.value).tensor_like and not isinstance(e.slice, ast.Slice):
            return _Val("int", e)
        if kind.tensor_like and self.single(e, env):
            return _Val("tensor", e, self.dtype(e, env))
        return None

    def single(self, e: ast.AST, env: Dict[str, _Val], depth: int = 0) -> bool:
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

    def dtype(self, e: ast.AST, env: Dict[str, _Val]) -> Optional[str]:
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
    def _block(self, body, env: Optional[Dict[str, _Val]], path: Tuple[_Entry, ...]) -> Optional[Dict[str, _Val]]:
        """Walk ``body`` from ``env``; the environment at its end, or None when it never
        falls through (every path returns or raises)."""
        for stmt in body:
            if env is None:
                return None  # dead code after a return
            env = self._stmt(stmt, env, path)
        return env

    def _stmt(self, stmt: ast.stmt, env: Dict[str, _Val], path) -> Optional[Dict[str, _Val]]:
        self._expressions(stmt, env)
        if isinstance(stmt, ast.Return):
            v = self.value(stmt.value, env) if stmt.value is not None else _Val("none", stmt)
            if v is not None and len(self.returns) < _MAX_RETURNS:
                self.returns.append((stmt, v, path))
            return None
        if isinstance(stmt, ast.Raise):
            return None
        if isinstance(stmt, ast.If):
            return self._if(stmt, env, path)
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            inner = self._block(stmt.body, dict(env), path + (_Entry(stmt, "loop", False),))
            self._block(stmt.orelse, dict(env), path + (_Entry(stmt, "loop", False),))
            out = dict(env)
            for name in _stores(stmt):
                out.pop(name, None)
            del inner
            return out
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in _target_names(item.optional_vars):
                        env.pop(name, None)
            return self._block(stmt.body, env, path)
        if isinstance(stmt, ast.Try):
            out = self._block(stmt.body, dict(env), path + (_Entry(stmt, "try", False),))
            for name in _stores(stmt):
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
                    env[stmt.target.id] = _Val("tensor", stmt)
                else:
                    env.pop(stmt.target.id, None)
            return env
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            env.pop(stmt.name, None)
            return env
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Delete)):
            for name in _stores(stmt):
                env.pop(name, None)
            return env
        return env

    def _bind(self, target: ast.AST, v: Optional[_Val], stmt: ast.AST, env: Dict[str, _Val]) -> None:
        if isinstance(target, ast.Name):
            if v is None:
                env.pop(target.id, None)
            else:
                env[target.id] = _Val(v.cls, stmt, v.dtype, v.elts)
        else:
            for name in _target_names(target):
                env.pop(name, None)

    def _if(self, stmt: ast.If, env: Dict[str, _Val], path) -> Optional[Dict[str, _Val]]:
        tensor = self.decides(stmt.test)
        b = self._block(stmt.body, dict(env), path + (_Entry(stmt, "body", tensor),))
        o = self._block(stmt.orelse, dict(env), path + (_Entry(stmt, "orelse", tensor),))
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

    def _expressions(self, stmt: ast.stmt, env: Dict[str, _Val]) -> None:
        """Conditional expressions and ``and``/``or`` in the statement's own expressions."""
        for field, value in ast.iter_fields(stmt):
            if field in ("body", "orelse", "finalbody", "handlers"):
                continue
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ast.AST):
                    self._scan(item, env)

    def _scan(self, root: ast.AST, env: Dict[str, _Val]) -> None:
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

    def _switch_layer(self, call: ast.Call, env: Dict[str, _Val]) -> None:
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

    def _boolop(self, n: ast.BoolOp, env: Dict[str, _Val]) -> None:
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
                self.problems.append((sep.test, "its branches return", _Val(va.cls, ra, va.dtype, va.elts),
                                      _Val(vb.cls, rb, vb.dtype, vb.elts)))


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


def _stores(stmt: ast.AST):
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
        hit = (func, frozenset(_stores(func)))
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


def _layer_members(ctx, func: ast.AST, attr: str) -> List[Tuple[str, Optional[_Val]]]:
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
            out.append((name, _Val("tensor", e)))
            continue
        c = classes.get(e.func.id) if isinstance(e.func, ast.Name) else None
        out.append((e.func.id if c is not None else name, _returns_kind(c) if c is not None else None))
    return out


def _returns_kind(cls: ast.ClassDef) -> Optional[_Val]:
    construct = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "construct"), None)
    if construct is None:
        return None
    rets = [r for r in ast.walk(construct) if isinstance(r, ast.Return)]
    if not rets or any(r.value is None for r in rets):
        return None
    if all(isinstance(r.value, ast.Tuple) for r in rets):
        return _Val("tuple", rets[0])
    if all(isinstance(r.value, (ast.BinOp, ast.UnaryOp)) for r in rets):
        return _Val("tensor", rets[0])
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


def _is_jit(func: ast.AST) -> bool:
    for d in getattr(func, "decorator_list", []):
        text = ast.unparse(d.func if isinstance(d, ast.Call) else d)
        if text == "jit" or text.endswith(".jit"):
            return True
    return False


def _parameter_joins(tree: ast.AST) -> Dict[int, Tuple[str, List[str], List[Tuple[ast.BoolOp, List[str]]]]]:
    """id(Cell class or jit function) -> (name, parameters, the ``and``/``or`` expressions of
    its ``construct``/body whose operands are all parameters it never rebinds)."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            func = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "construct"), None)
            label = f"{node.name}.construct"
        elif isinstance(node, ast.FunctionDef) and _is_jit(node):
            func, label = node, node.name
        else:
            continue
        if func is None:
            continue
        params = [a.arg for a in func.args.args]
        if params and params[0] in ("self", "cls"):
            params = params[1:]
        stored = _stores(func)
        joins = []
        for n in ast.walk(func):
            if isinstance(n, ast.BoolOp) and all(isinstance(v, ast.Name) and v.id in params and v.id not in stored
                                                 for v in n.values):
                joins.append((n, [v.id for v in n.values]))
        if joins:
            out[id(node)] = (label, params, joins)
    return out


class _CallSites:
    """The calls a module's plain Python code makes to entries with parameter joins, with what
    each argument is at that call (a literal, ``Tensor(...)`` with its dtype, a name bound to
    one earlier in the same function)."""

    def __init__(self, ctx, entries) -> None:
        self.ctx = ctx
        self.entries = entries
        self.sites: Dict[int, list] = {}

    def scan(self, body, visible: Dict[str, int], outer_env: Dict[str, object]) -> None:
        visible = dict(visible)
        for st in body:
            if isinstance(st, (ast.ClassDef, ast.FunctionDef)) and id(st) in self.entries:
                visible[st.name] = id(st)
        env: Dict[str, object] = {}  # name -> entry id (an instance) or a _Val
        self._stmts(body, visible, env)
        self._report()

    def _stmts(self, body, visible, env) -> None:
        for st in body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if id(st) not in self.entries:
                    self.scan(st.body, visible, env)
                continue
            if isinstance(st, ast.ClassDef):
                continue
            nested = [getattr(st, f, None) or [] for f in ("body", "orelse", "finalbody")]
            nested += [h.body for h in getattr(st, "handlers", [])]
            for field, value in ast.iter_fields(st):
                if field in ("body", "orelse", "finalbody", "handlers"):
                    continue
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, ast.AST):
                        for n in _walk_stmt(item):
                            if isinstance(n, ast.Call):
                                self._call(n, visible, env)
            if isinstance(st, ast.Assign):
                self._assign(st, visible, env)
            for inner in nested:
                self._stmts(inner, visible, env)

    def _assign(self, st: ast.Assign, visible, env) -> None:
        if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
            for t in st.targets:
                for m in ast.walk(t):
                    if isinstance(m, ast.Name):
                        env.pop(m.id, None)
            return
        v, name = st.value, st.targets[0].id
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and visible.get(v.func.id) is not None \
                and not _is_jit_entry(self.entries[visible[v.func.id]]):
            env[name] = visible[v.func.id]
            return
        val = self._arg(v, env)
        if val is None:
            env.pop(name, None)
        else:
            env[name] = val

    def _arg(self, e: ast.AST, env) -> Optional[_Val]:
        if isinstance(e, ast.Constant) and type(e.value) in (int, float, bool, str):
            return _Val(type(e.value).__name__, e)
        if isinstance(e, ast.Name):
            v = env.get(e.id)
            return v if isinstance(v, _Val) else None
        if isinstance(e, ast.Call) and self.ctx.qualname(e.func) in TENSOR_MAKERS:
            return _Val("tensor", e, constructed_dtype(e, self.ctx.qualname))
        return None

    def _call(self, call: ast.Call, visible, env) -> None:
        f = call.func
        eid = None
        if isinstance(f, ast.Name):
            target = env.get(f.id)
            if isinstance(target, int):
                eid = target
            elif f.id in visible and _is_jit_entry(self.entries[visible[f.id]]):
                eid = visible[f.id]
        elif isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id in visible:
            eid = visible[f.func.id]
        if eid is None or any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
            return
        _label, params, _joins = self.entries[eid]
        bound = {p: self._arg(a, env) for p, a in zip(params, call.args)}
        self.sites.setdefault(eid, []).append((call, bound))

    def _report(self) -> None:
        for eid, sites in list(self.sites.items()):
            label, params, joins = self.entries[eid]
            kinds = {tuple((p, (v.cls, v.dtype) if v else None) for p, v in sorted(b.items())) for _c, b in sites}
            if len(kinds) < 2:
                continue  # one kind of call: the scope's own analysis (leave_scope) reports it
            for call, bound in sites:
                for node, names in joins:
                    vals = [bound.get(n) for n in names]
                    if vals[0] is None or vals[0].cls != "tensor":
                        continue
                    c = next((clash(vals[0], v) for v in vals[1:] if clash(vals[0], v) is not None), None)
                    if c is None:
                        continue
                    op = "and" if isinstance(node.op, ast.And) else "or"
                    self.ctx.report(
                        call, message=(
                            f"`{_line_text(self.ctx, call)}` passes {c[0].describe()} (`{_line_text(self.ctx, c[0].node)}`) "
                            f"and {c[1].describe()} (`{_line_text(self.ctx, c[1].node)}`) to `{label}`, whose "
                            f"`{_line_text(self.ctx, node)}` (line {node.lineno}) picks one by the tensor's truth: "
                            f"MindSpore cannot join them, so this call fails to compile (`TypeError: Cannot join "
                            f"the return values of different branches`); other calls of `{label}` pass other kinds"))
                    break
            del self.sites[eid]


def _is_jit_entry(entry) -> bool:
    return not entry[0].endswith(".construct")


def _walk_stmt(st: ast.AST):
    stack = [st]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def _encloses_another(node: ast.AST, problems, ctx) -> bool:
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


def _line_text(ctx, node: ast.AST, limit: int = 40) -> str:
    text = " ".join((ctx.segment(node) or ast.unparse(node)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class UnjoinableBranches(Rule):
    code = "MSG108"
    name = "unjoinable-branches"
    summary = ("A tensor-decided branch whose two sides give values graph mode cannot join (a Tensor and a Python "
               "scalar or tuple, scalars of different types, tensors of different dtypes): the compile fails.")
    message = ("{what} ({where}), and {subject} {a} (line {la}: `{ta}`) and {b} (line {lb}: `{tb}`): MindSpore "
               "cannot join them, so it fails to compile (`TypeError: Cannot join the return values of different "
               "branches`)")
    hint = ("make both branches give the same kind: a Tensor on both sides (`ops.zeros_like(x)`, `Tensor(0, x.dtype)`, "
            "`.astype(...)` to one dtype), or pick with `ops.select`/`ops.where`")
    severity = Severity.ERROR
    report_call_sites = True
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
        tree = ctx.source.tree
        entries = _parameter_joins(tree)
        if entries:
            _CallSites(ctx, entries).scan(tree.body, {}, {})

    def leave_scope(self, scope, ctx) -> None:
        values = ctx.values
        if values is None or not isinstance(values.func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        joins = _Joins(ctx, values.func)
        done = set()
        problems = joins.problems
        for node, subject, a, b in problems:
            if id(node) in done or _encloses_another(node, problems, ctx):
                continue
            done.add(id(node))
            if isinstance(node, (ast.BoolOp, ast.IfExp)):
                what = f"`{_line_text(ctx, node)}` picks a value by a tensor's truth"
            elif isinstance(node, ast.Call):
                what = f"`{_line_text(ctx, node)}` picks a Cell by a tensor index (a switch_layer)"
            else:
                parent = ctx.parent(node)
                kw = "elif" if isinstance(parent, ast.If) and ctx.source.line(parent.lineno).lstrip().startswith("elif") else "if"
                what = f"`{kw} {_line_text(ctx, node)}` branches on a tensor value"
            ctx.report(node, what=what, where=ctx.where, subject=subject, a=a.describe(), b=b.describe(),
                       la=getattr(a.node, "lineno", "?"), lb=getattr(b.node, "lineno", "?"),
                       ta=_line_text(ctx, a.node), tb=_line_text(ctx, b.node))


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
    name = "tensor-sized-list"
    summary = ("A list whose length a tensor decides (a comprehension filtered by a tensor condition, `append` "
               "under a tensor `if`): MindSpore 2.10 fails to compile it or crashes.")
    message = ("{what} ({where}): the list's length depends on a tensor value, which graph mode cannot join; "
               "it fails to compile on MindSpore 2.10 (`RuntimeError: The pointer[...] is null`) or the process "
               "crashes (segmentation fault)")
    hint = ("keep the length fixed: compute every element and mask the unwanted ones (`ops.where(cond, v, 0)`), "
            "or filter outside the graph")
    severity = Severity.ERROR
    report_call_sites = True
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
                    ctx.report(cond, what=f"the comprehension filter `if {_line_text(ctx, cond)}`", where=ctx.where)
                    return

    visit_ListComp = visit_GeneratorExp = _comp

    def visit_If(self, node: ast.If, ctx) -> None:
        if ctx.values is None or tensor_decider(ctx, node.test) is None:
            return
        lists = _local_lists(ctx, ctx.values.func)
        if not lists:
            return
        body, orelse = _appends(node.body, lists), _appends(node.orelse, lists)
        for name in sorted(set(body) | set(orelse)):
            if body.get(name, 0) != orelse.get(name, 0):
                ctx.report(node.test, what=f"`{name}` grows under `if {_line_text(ctx, node.test)}`", where=ctx.where)
                return

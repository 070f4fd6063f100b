"""Value-kind inference over graph-mode scopes.

For every expression in a graph-mode scope: is it a Tensor, a compile-time
constant (Python literal, ``None``-ness, ``.shape``/``.ndim``/``.dtype``,
``self.training`` and other ``__init__`` attributes, config values), a Cell,
a Parameter, a value pulled to the host (``.asnumpy()``, ``float(t)``), or
unknown. Unknown stays unknown: rules flag only what is known.

The analysis is one forward pass per scope function (flow-sensitive along
straight-line code, merging at branches), recorded per ``Name`` load so rules
can ask about any node in any order.
"""

from __future__ import annotations

import ast
from bisect import bisect_left
from typing import Dict, FrozenSet, Optional, Sequence

from ..parse.astutil import children_no_ctx, unparse
from ..project.imports import ImportMap
from ..kinds import ClassInfo, Kind, merge  # noqa: F401  (re-exported: rules import Kind from here)
from ..project.index import ModuleSummary


_CONST_ATTRS = frozenset({"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "strides", "training", "phase"})
_CONST_BUILTINS = frozenset({"len", "isinstance", "issubclass", "hasattr", "type", "range", "callable", "id", "getattr"})
_CAST_BUILTINS = frozenset({"float", "int", "bool", "complex", "str"})
_HOST_MODULES = ("numpy", "math", "random", "scipy", "time", "os", "sys", "re", "json", "logging")
_CONST_ANNOTATIONS = frozenset({"int", "float", "bool", "str", "tuple", "list", "dict", "Tuple", "List", "Dict", "Optional[int]", "Optional[float]", "Optional[bool]", "Optional[str]"})
# `self.<name> = ops.Shape()` / `ops.Rank()` (the conventional names): calls return Python ints
_SHAPE_PRIMITIVE_ATTRS = frozenset({"shape", "get_shape", "_shape", "shape_op", "rank", "get_rank",
                                    "size", "get_size", "size_op"})
_SEQ_ANNOTATIONS = frozenset({"List", "Tuple", "Sequence", "Dict", "Mapping", "Iterable", "list", "tuple", "dict"})


_DEEP = 60  # expression nesting beyond which kinds are computed bottom-up (no deep recursion)

_CATALOG: list = []


def _catalog():
    if not _CATALOG:
        try:
            from .catalog import get_catalog
            _CATALOG.append(get_catalog())
        except Exception:  # pragma: no cover - catalog unavailable: name rules only
            _CATALOG.append(None)
    return _CATALOG[0]


_NON_TENSOR_TYPES = frozenset({"ndarray", "list", "tuple", "int", "float", "bool", "str", "dict", "Image",
                                "number", "generic", "List", "Tuple"})


def _type_test(test: ast.AST, imports) -> Optional[tuple]:
    """(name, True) when ``test`` says a plain name is a tensor (`isinstance(t, ms.Tensor)`,
    `is_tensor(t)`, `is_mindspore_tensor(t)`); (name, False) when it says it is a NumPy array
    or a Python value (`isinstance(t, np.ndarray)`); negated by `not`; else None. Framework
    dispatch helpers branch like this, and MindSpore resolves such tests at compile time."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):  # `not not ... t`: no recursion
        test, negated = test.operand, not negated
    found = _plain_type_test(test, imports)
    return (found[0], found[1] != negated) if found is not None else None


def _plain_type_test(test: ast.AST, imports) -> Optional[tuple]:
    if not (isinstance(test, ast.Call) and test.args and isinstance(test.args[0], ast.Name)):
        return None
    name = test.args[0].id
    f = test.func
    fname = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")
    if fname == "isinstance" and len(test.args) == 2:
        types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        lasts = {unparse(t).rsplit(".", 1)[-1] for t in types}
        if lasts & {"Tensor", "Parameter", "StubTensor"}:
            return (name, True) if len(lasts) == len(lasts & {"Tensor", "Parameter", "StubTensor"}) else None
        if lasts and lasts <= _NON_TENSOR_TYPES:
            return (name, False)
        return None
    if fname.startswith("is_") and "tensor" in fname and len(test.args) == 1 and "numpy" not in fname:
        return (name, True)
    return None



def double_starred_names(func, lines: Optional[Sequence[int]] = None) -> FrozenSet[str]:
    """Names ``**``-unpacked in ``func``'s own body (``{**p}``, ``f(**p)``; nested
    ``def``/``lambda`` bodies skipped): Python requires a mapping there, so the name is
    never a tensor (a Tensor is not a mapping: PyNative raises ``TypeError``).
    ``lines``: the sorted numbers of the lines whose text holds ``**``, when known: a
    statement or expression spanning none of them is not searched."""
    out = set()
    stack = list(func.body) if isinstance(func.body, list) else [func.body]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if lines is not None and isinstance(n, (ast.stmt, ast.expr)):
            i = bisect_left(lines, n.lineno)
            if i == len(lines) or lines[i] > (n.end_lineno or n.lineno):
                continue
        if isinstance(n, ast.Dict):
            out.update(v.id for k, v in zip(n.keys, n.values) if k is None and isinstance(v, ast.Name))
        elif isinstance(n, ast.Call):
            out.update(kw.value.id for kw in n.keywords if kw.arg is None and isinstance(kw.value, ast.Name))
        stack.extend(children_no_ctx(n))  # iter_child_nodes' order, without Load/Store markers
    return frozenset(out)

def _not_none_test(t: ast.AST):
    """(name, True) for ``name is not None``, (name, False) for ``name is None``, else None."""
    if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.left, ast.Name) \
            and isinstance(t.ops[0], (ast.Is, ast.IsNot)) and isinstance(t.comparators[0], ast.Constant) \
            and t.comparators[0].value is None:
        return t.left.id, isinstance(t.ops[0], ast.IsNot)
    return None


_TENSOR_ONLY: list = []


def _tensor_method_use(body, name: str) -> bool:
    """``body`` (nested defs excluded) calls ``name.<m>(...)`` with ``m`` a method of MindSpore's
    Tensor that no Python builtin type has (``sum``, ``masked_fill``; not ``get``, ``index``, ``count``)."""
    if not _TENSOR_ONLY:
        cat = _catalog()
        names = set(cat.tensor_methods()) if cat is not None else set()
        for t in (int, float, complex, bool, str, bytes, tuple, list, dict, set, frozenset, type(None)):
            names -= set(dir(t))
        _TENSOR_ONLY.append(frozenset(n for n in names if not n.startswith("_")))
    only = _TENSOR_ONLY[0]
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and n.func.value.id == name and n.func.attr in only:
            return True
        stack.extend(ast.iter_child_nodes(n))
    return False


class ScopeValues:
    """Kinds for the expressions of one scope function."""

    def __init__(self, func: ast.AST, imports: ImportMap, module: Optional[ModuleSummary] = None,
                 cls: Optional[ClassInfo] = None, param_kinds: Optional[Dict[str, Kind]] = None,
                 is_root: bool = True, module_consts: Optional[Dict[str, Kind]] = None,
                 helper_returns=None, from_callers: frozenset = frozenset(),
                 param_dtypes: Optional[Dict[str, str]] = None,
                 param_pytypes: Optional[Dict[str, str]] = None,
                 mappings: Optional[FrozenSet[str]] = None) -> None:
        """``mappings``: the names ``**``-unpacked in ``func``'s body (``double_starred_names``),
        when the caller already knows them; computed here otherwise."""
        self.func = func
        self.from_callers = from_callers  # parameters whose kinds come from the project's call sites (paramkinds.py)
        self.param_dtypes = param_dtypes or {}  # parameter -> the dtype every call site's tensor has
        self.param_pytypes = param_pytypes or {}  # parameter -> "list"/"tuple"/"dict"/"scalar" (ms.mutable of a number) every call site writes
        self.imports = imports
        self.module = module
        self.cls = cls
        self.module_consts = module_consts or {}
        self.helper_returns = helper_returns  # callable(dotted or ("self", name)) -> Kind
        self._names: Dict[int, Kind] = {}
        self._memo: Dict[int, Kind] = {}
        self._depth = 0
        self.params: Dict[str, Kind] = {}
        env = self._param_env(func, param_kinds or {}, is_root, mappings)
        self.params = dict(env)
        body = func.body if isinstance(func.body, list) else [ast.Return(value=func.body)]
        self.returns: Kind = Kind.NONE
        self._saw_return = False
        self._block(body, env)
        if not self._saw_return:
            self.returns = Kind.NONE

    # environment ----------------------------------------------------------------
    def _param_env(self, func, hints: Dict[str, Kind], is_root: bool,
                   mappings: Optional[FrozenSet[str]] = None) -> Dict[str, Kind]:
        env: Dict[str, Kind] = {}
        args = func.args
        positional = list(getattr(args, "posonlyargs", [])) + list(args.args)
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        pairs = list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
        if not is_root:
            mappings = frozenset()
        elif mappings is None:
            mappings = double_starred_names(func)
        for i, (arg, default) in enumerate(pairs):
            if i == 0 and arg.arg in ("self", "cls") and self.cls is not None:
                env[arg.arg] = Kind.UNKNOWN
                continue
            if arg.arg in hints:
                env[arg.arg] = hints[arg.arg]
                continue
            if not is_root:
                env[arg.arg] = Kind.UNKNOWN
                continue
            if arg.arg in mappings:
                env[arg.arg] = Kind.UNKNOWN  # `{**p}` / `f(**p)`: p is a mapping, never a tensor
                continue
            ann = unparse(arg.annotation) if arg.annotation is not None else None
            if ann is not None and ann in _CONST_ANNOTATIONS:
                env[arg.arg] = Kind.CONST
            elif ann is not None and ann.split("[")[0].split(".")[-1] in _SEQ_ANNOTATIONS:
                env[arg.arg] = Kind.UNKNOWN  # `x: List[Tensor]`: a Python container, not a tensor
            elif ann is not None and ann.split(".")[-1] in ("Tensor", "Parameter"):
                env[arg.arg] = Kind.TENSOR if default is None else merge(Kind.TENSOR, Kind.NONE)
            elif ann is not None and "Tensor" not in ann and "Parameter" not in ann:
                env[arg.arg] = Kind.UNKNOWN  # `session: InferenceSession`, `cache: Cache`: not a tensor
            elif default is None:
                env[arg.arg] = Kind.TENSOR
            elif isinstance(default, ast.Constant) and default.value is None:
                env[arg.arg] = Kind.OPTIONAL
            elif isinstance(default, (ast.Constant, ast.Tuple, ast.List)) or self.kind(default).constant:
                env[arg.arg] = Kind.CONST
            else:
                env[arg.arg] = Kind.UNKNOWN
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                env[extra.arg] = Kind.UNKNOWN
        return env

    def _bind(self, target: ast.AST, kind: Kind, env: Dict[str, Kind], value: Optional[ast.AST] = None) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = kind
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts):
                    self._bind(t, self.kind(v), env, v)
            else:
                elem = Kind.TENSOR if kind.tensor_like else (Kind.CONST if kind is Kind.CONST else Kind.UNKNOWN)
                for t in target.elts:
                    self._bind(t.value if isinstance(t, ast.Starred) else t, elem, env)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, Kind.UNKNOWN, env)
        # attribute / subscript targets bind nothing

    def _note(self, node: Optional[ast.AST], env: Dict[str, Kind]) -> None:
        """Record the kind of every Name load in an expression (not in nested scopes). One
        explicit stack, no recursion: a comprehension or a lambda pushes its steps (switch to
        its own environment, note, bind a generator's target, switch back), which run in the
        order nested calls would run them (lambdas nest as deep as ``ast.parse`` allows)."""
        if node is None:
            return
        stack: list = [node]
        while stack:
            n = stack.pop()
            if n.__class__ is tuple:  # a step of a comprehension or lambda
                if n[0] == "env":
                    env = n[1]
                else:  # ("bind", generator, environment)
                    gen, inner = n[1], n[2]
                    self._bind(gen.target, self._element(self.kind(gen.iter), gen.iter), inner)
                continue
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                self._names[id(n)] = env.get(n.id, self._global(n.id))
            elif isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                inner = dict(env)
                steps: list = [("env", inner)]
                for gen in n.generators:
                    steps.append(gen.iter)
                    steps.append(("bind", gen, inner))
                    steps.extend(gen.ifs)
                steps.extend([n.key, n.value] if isinstance(n, ast.DictComp) else [n.elt])
                steps.append(("env", env))
                stack.extend(reversed(steps))
            elif isinstance(n, ast.Lambda):
                inner = dict(env)
                for a in n.args.args:
                    inner[a.arg] = Kind.UNKNOWN
                stack.extend((("env", env), n.body, ("env", inner)))
            else:  # (a Load/Store/Del marker is neither a Name nor has children: not read)
                stack.extend(children_no_ctx(n))

    def _global(self, name: str) -> Kind:
        if name in self.module_consts:
            return self.module_consts[name]
        dotted = self.imports.names.get(name)
        if dotted is not None:
            return self._dotted_kind(dotted)
        if name in ("True", "False", "None"):
            return Kind.CONST
        return Kind.UNKNOWN

    def _element(self, kind: Kind, iter_node: ast.AST) -> Kind:
        if kind is Kind.CONTAINER:
            return Kind.CELL
        if kind.tensor_like:
            return Kind.TENSOR
        if kind is Kind.CONST:
            return Kind.CONST
        return Kind.UNKNOWN

    # statements -----------------------------------------------------------------
    def _block(self, body, env: Dict[str, Kind]) -> Dict[str, Kind]:
        for stmt in body:
            self._stmt(stmt, env)
        return env

    def _stmt(self, stmt: ast.stmt, env: Dict[str, Kind]) -> None:
        if isinstance(stmt, ast.Assign):
            self._note(stmt.value, env)
            for t in stmt.targets:
                self._note_target(t, env)
            k = self.kind(stmt.value)
            for t in stmt.targets:
                self._bind(t, k, env, stmt.value)
        elif isinstance(stmt, ast.AnnAssign):
            self._note(stmt.value, env)
            self._note_target(stmt.target, env)
            if stmt.value is not None:
                self._bind(stmt.target, self.kind(stmt.value), env, stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            self._note(stmt.value, env)
            self._note(stmt.target, env) if isinstance(stmt.target, ast.Name) else self._note_target(stmt.target, env)
            if isinstance(stmt.target, ast.Name):
                before = env.get(stmt.target.id, self._global(stmt.target.id))
                self._names[id(stmt.target)] = before  # `x += y`: ctx.kind(x) is x's kind before the write
                # `p += x` on a Parameter writes into the Parameter (graph mode: Assign)
                env[stmt.target.id] = before if before is Kind.PARAMETER else self._binop_kind(before, self.kind(stmt.value))
        elif isinstance(stmt, ast.If):
            self._if_chain(stmt, env)
        elif isinstance(stmt, ast.While):
            self._note(stmt.test, env)
            a = self._block(stmt.body, dict(env))
            b = self._block(stmt.orelse, dict(env))
            self._note(stmt.test, {**env, **{k: merge(env.get(k, v), v) for k, v in a.items()}})  # second pass
            self._join(env, a, b)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self._note(stmt.iter, env)
            inner = dict(env)
            self._bind_for(stmt, inner)
            a = self._block(stmt.body, inner)
            b = self._block(stmt.orelse, dict(env))
            self._join(env, a, b)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self._note(item.context_expr, env)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, Kind.UNKNOWN, env)
            self._block(stmt.body, env)
        elif isinstance(stmt, ast.Try) or (hasattr(ast, "TryStar") and isinstance(stmt, getattr(ast, "TryStar"))):
            self._block(stmt.body, env)
            for h in stmt.handlers:
                self._block(h.body, dict(env))
            self._block(stmt.orelse, env)
            self._block(stmt.finalbody, env)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = dict(env)
            for a in stmt.args.args + stmt.args.kwonlyargs:
                inner[a.arg] = Kind.UNKNOWN
            saved = (self.returns, self._saw_return)
            self._block(stmt.body, inner)
            self.returns, self._saw_return = saved
            env[stmt.name] = Kind.FUNC
        elif isinstance(stmt, ast.Return):
            self._note(stmt.value, env)
            k = self.kind(stmt.value) if stmt.value is not None else Kind.NONE
            self.returns = k if not self._saw_return else merge(self.returns, k)
            self._saw_return = True
        elif hasattr(ast, "Match") and isinstance(stmt, getattr(ast, "Match")):
            self._note(stmt.subject, env)
            for case in stmt.cases:
                self._block(case.body, dict(env))
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self._note(child, env)

    def _if_chain(self, stmt: ast.If, env: Dict[str, Kind]) -> None:
        """``if``/``elif``…/``else``, a chain of any length, without recursing per ``elif``:
        each link's test and body run in the environment its ``else`` sees, then the links
        are joined from the last back to the first."""
        links = []
        cur = env
        while True:
            self._note(stmt.test, cur)
            narrow = _type_test(stmt.test, self.imports)
            body_env, else_env = dict(cur), dict(cur)
            if narrow is not None and cur.get(narrow[0], Kind.UNKNOWN) in (Kind.TENSOR, Kind.PARAMETER, Kind.OPTIONAL):
                # `if isinstance(t, np.ndarray):` / the else of `if is_tensor(t):`: not a tensor there
                (else_env if narrow[1] else body_env)[narrow[0]] = Kind.UNKNOWN
            held = _not_none_test(stmt.test)
            if held is not None and cur.get(held[0]) is Kind.OPTIONAL \
                    and _tensor_method_use(stmt.body if held[1] else stmt.orelse, held[0]):
                # `if mask is not None:` (the else of `is None`) where the body calls a method only a
                # Tensor has on it (`mask.sum()`): the optional input is a tensor there. Without
                # such a use it stays optional (an int layer index, a cache dict or list, a mode string)
                (body_env if held[1] else else_env)[held[0]] = Kind.TENSOR
            links.append((stmt, cur, narrow, self._block(stmt.body, body_env)))
            cur = else_env
            if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If):
                stmt = stmt.orelse[0]
                continue
            b = self._block(stmt.orelse, cur)
            break
        for stmt, here, narrow, a in reversed(links):
            self._join(here, a, b)
            if narrow is not None and narrow[1] and stmt.body and isinstance(stmt.body[-1], (ast.Return, ast.Raise)):
                here[narrow[0]] = b.get(narrow[0], here.get(narrow[0], Kind.UNKNOWN))  # only the else path goes on
            b = here

    def _note_target(self, target: ast.AST, env: Dict[str, Kind]) -> None:
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            self._note(target, env)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for e in target.elts:
                self._note_target(e, env)

    def _bind_for(self, stmt, env: Dict[str, Kind]) -> None:
        it = stmt.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args \
                and isinstance(stmt.target, ast.Tuple) and len(stmt.target.elts) == 2:
            self._bind(stmt.target.elts[0], Kind.CONST, env)
            self._bind(stmt.target.elts[1], self._element(self.kind(it.args[0]), it.args[0]), env)
            return
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            self._bind(stmt.target, Kind.CONST if all(self.kind(a).constant for a in it.args) else Kind.UNKNOWN, env)
            return
        self._bind(stmt.target, self._element(self.kind(it), it), env)

    @staticmethod
    def _join(env: Dict[str, Kind], a: Dict[str, Kind], b: Dict[str, Kind]) -> None:
        for name in set(a) | set(b):
            ka, kb = a.get(name), b.get(name)
            if ka is None or kb is None:
                # bound on one path only: keep what was there before if anything
                known = ka or kb
                env[name] = merge(env[name], known) if name in env else known
            else:
                env[name] = merge(ka, kb)

    # expressions ----------------------------------------------------------------
    def kind(self, node: Optional[ast.AST]) -> Kind:
        if node is None:
            return Kind.NONE
        key = id(node)
        k = self._memo.get(key)
        if k is None:
            self._depth += 1
            try:
                if self._depth > _DEEP:
                    self._fill_bottom_up(node)
                k = self._kind(node)
            finally:
                self._depth -= 1
            self._memo[key] = k
        return k

    def _fill_bottom_up(self, node: ast.AST) -> None:
        """A deep expression (a chain of hundreds of ``+`` or method calls): compute the
        kinds of its sub-expressions deepest first, without recursion, so that each
        ``_kind`` below finds its operands in the memo."""
        order = []
        stack = [node]
        while stack:
            n = stack.pop()
            order.append(n)
            for c in children_no_ctx(n):  # (a ctx marker is no ast.expr)
                if isinstance(c, ast.expr) and id(c) not in self._memo \
                        and not isinstance(c, (ast.Lambda, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                    stack.append(c)
        for n in reversed(order[1:]):
            if id(n) not in self._memo:
                self._memo[id(n)] = self._kind(n)

    def _kind(self, node: ast.AST) -> Kind:
        if isinstance(node, ast.Constant):
            return Kind.NONE if node.value is None else Kind.CONST
        if isinstance(node, ast.Name):
            return self._names.get(id(node)) or self.params.get(node.id) or self._global(node.id)
        if isinstance(node, ast.Attribute):
            return self._attr_kind(node)
        if isinstance(node, ast.Subscript):
            base = self.kind(node.value)
            if base.tensor_like:
                return Kind.TENSOR
            if base is Kind.CONTAINER:
                return Kind.CELL
            if base in (Kind.CONST, Kind.HOST):
                return base
            return Kind.UNKNOWN
        if isinstance(node, ast.Call):
            return self._call_kind(node)
        if isinstance(node, ast.BinOp):
            return self._binop_kind(self.kind(node.left), self.kind(node.right))
        if isinstance(node, ast.UnaryOp):
            k = self.kind(node.operand)
            if k.tensor_like:
                return Kind.TENSOR
            return Kind.CONST if k.constant else (Kind.HOST if k is Kind.HOST else Kind.UNKNOWN)
        if isinstance(node, ast.Compare):
            if all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                return Kind.CONST  # identity is resolved at compile time
            kinds = [self.kind(node.left)] + [self.kind(c) for c in node.comparators]
            if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                return Kind.CONST if all(k.constant for k in kinds) else Kind.UNKNOWN
            if any(k.tensor_like for k in kinds):
                return Kind.TENSOR
            if all(k.constant for k in kinds):
                return Kind.CONST
            if any(k is Kind.HOST for k in kinds):
                return Kind.HOST
            return Kind.UNKNOWN
        if isinstance(node, ast.BoolOp):
            kinds = [self.kind(v) for v in node.values]
            if any(k.tensor_like for k in kinds):
                return Kind.TENSOR
            if all(k.constant for k in kinds):
                return Kind.CONST
            return Kind.UNKNOWN
        if isinstance(node, ast.IfExp):
            return merge(self.kind(node.body), self.kind(node.orelse))
        if isinstance(node, (ast.Tuple, ast.List)):
            kinds = [self.kind(e) for e in node.elts]
            if all(k.constant for k in kinds):
                return Kind.CONST
            return Kind.UNKNOWN
        if isinstance(node, ast.JoinedStr):
            return Kind.CONST
        if isinstance(node, ast.Lambda):
            return Kind.FUNC
        return Kind.UNKNOWN

    @staticmethod
    def _binop_kind(a: Kind, b: Kind) -> Kind:
        if a.tensor_like or b.tensor_like:
            return Kind.TENSOR
        if a is Kind.HOST or b is Kind.HOST:
            return Kind.HOST
        if a.constant and b.constant:
            return Kind.CONST
        return Kind.UNKNOWN

    def _dotted_kind(self, dotted: str) -> Kind:
        if dotted.startswith("mindspore"):
            last = dotted.rsplit(".", 1)[-1]
            cat = _catalog()
            if cat is not None and cat.is_dtype(dotted):
                return Kind.CONST
            if dotted.count(".") <= 1 and dotted in ("mindspore", "mindspore.ops", "mindspore.nn", "mindspore.numpy", "mindspore.mint"):
                return Kind.MODULE
            if last.isupper() or last.endswith("_MODE"):
                return Kind.CONST  # mindspore.GRAPH_MODE, mindspore.float32 spelled in caps
            if last in ("float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool_", "complex64"):
                return Kind.CONST
            return Kind.FUNC if dotted.count(".") >= 2 or last[:1].islower() else Kind.UNKNOWN
        top = dotted.split(".")[0]
        if top in _HOST_MODULES and "." not in dotted:
            return Kind.MODULE
        return Kind.UNKNOWN

    def _attr_kind(self, node: ast.Attribute) -> Kind:
        value = node.value
        if isinstance(value, ast.Name) and value.id == "self" and self.cls is not None:
            return self.cls.attr(node.attr)
        dotted = self.imports.dotted(node)
        if dotted is not None:
            return self._dotted_kind(dotted)
        base = self.kind(value)
        if node.attr in _CONST_ATTRS and base is not Kind.MODULE:
            return Kind.CONST
        if base.tensor_like:
            if node.attr in ("T", "mT", "H", "real", "imag", "data"):
                return Kind.TENSOR
            cat = _catalog()
            info = cat.tensor_method(node.attr) if cat is not None else None
            if info is not None:
                return Kind.FUNC
            return Kind.UNKNOWN
        if base in (Kind.CONST, Kind.NONE):
            return Kind.CONST  # config.hidden_size, (1, 2).count …
        return Kind.UNKNOWN

    def _call_kind(self, node: ast.Call) -> Kind:
        f = node.func
        # x.method(...)
        if isinstance(f, ast.Attribute):
            if isinstance(f.value, ast.Name) and f.value.id == "self" and self.cls is not None:
                k = self.cls.attr(f.attr)
                if k is Kind.PRIMITIVE and f.attr in _SHAPE_PRIMITIVE_ATTRS:
                    return Kind.CONST  # `self.shape = ops.Shape()`: `self.shape(x)` is a tuple of ints
                if k in (Kind.CELL, Kind.PRIMITIVE, Kind.CONTAINER):
                    return Kind.TENSOR
                if k is Kind.FUNC and self.helper_returns is not None:
                    return self.helper_returns(("self", f.attr))
                return Kind.UNKNOWN
            dotted = self.imports.dotted(f)
            if dotted is None:
                recv = self.kind(f.value)
                if recv.tensor_like:
                    return self._tensor_method_kind(f.attr)
                if recv is Kind.HOST:
                    return Kind.HOST
                if recv is Kind.CONST and f.attr in ("index", "count", "get", "keys", "values", "items", "format", "join", "split", "replace"):
                    return Kind.CONST
                return Kind.UNKNOWN
            return self._dotted_call_kind(dotted, node)
        if isinstance(f, ast.Name):
            if f.id in self.imports.names and f.id not in self._local_names():
                return self._dotted_call_kind(self.imports.names[f.id] if "." in self.imports.names[f.id] else self.imports.dotted(f) or f.id, node)
            if self.module is not None and self.helper_returns is not None and f.id in self.module.classes \
                    and f.id not in self._local_names():
                return self.helper_returns(f"{self.module.name}.{f.id}")  # `Inner()`: the module's class
            name_kind = self.kind(f)
            if name_kind in (Kind.CELL, Kind.PRIMITIVE):
                return Kind.TENSOR
            if f.id in _CONST_BUILTINS:
                return Kind.CONST
            if f.id in _CAST_BUILTINS:
                if not node.args:
                    return Kind.CONST
                k = self.kind(node.args[0])
                if k.tensor_like or k is Kind.HOST:
                    return Kind.HOST
                return Kind.CONST if k.constant else Kind.UNKNOWN
            if f.id in ("abs", "max", "min", "sum", "round", "pow"):
                kinds = [self.kind(a) for a in node.args]
                if kinds and all(k.constant for k in kinds):
                    return Kind.CONST
                if f.id == "abs" and kinds and kinds[0].tensor_like:
                    return Kind.TENSOR
                return Kind.UNKNOWN
            if f.id == "print":
                return Kind.NONE
            return Kind.UNKNOWN
        k = self.kind(f)
        if k is Kind.PRIMITIVE and isinstance(f, ast.Call):
            dotted = self.imports.dotted(f.func)
            cat = _catalog() if dotted else None
            if cat is not None and cat.primitive_returns(dotted) == "const":
                return Kind.CONST  # `P.Shape()(x)`, `P.Size()(x)`: folded at compile time
        if k in (Kind.PRIMITIVE, Kind.CELL):
            return Kind.TENSOR  # ops.MatMul()(a, b)
        return Kind.UNKNOWN

    def _local_names(self):
        return self.params

    def _tensor_method_kind(self, name: str) -> Kind:
        cat = _catalog()
        info = cat.tensor_method(name) if cat is not None else None
        if info is None:
            if name in ("asnumpy", "item", "tolist", "numpy", "__float__", "__int__", "__bool__"):
                return Kind.HOST
            if name in ("dim", "ndimension", "numel", "nelement", "size") :
                return Kind.CONST
            return Kind.TENSOR
        return {"tensor": Kind.TENSOR, "host": Kind.HOST, "const": Kind.CONST, "none": Kind.NONE}.get(info.get("returns"), Kind.UNKNOWN)

    def _dotted_call_kind(self, dotted: str, node: ast.Call) -> Kind:
        if dotted.startswith("mindspore"):
            if dotted in ("mindspore.Tensor", "mindspore.tensor"):
                return Kind.TENSOR
            if dotted == "mindspore.Parameter":
                return Kind.PARAMETER
            cat = _catalog()
            if cat is not None:
                ck = cat.class_kind(dotted)
                if ck == "primitive":
                    return Kind.PRIMITIVE
                if ck == "cell":
                    return Kind.CELL
                if ck == "container":
                    return Kind.CONTAINER
                if ck == "tensor":
                    return Kind.TENSOR
                ret = cat.function_returns(dotted)
                return {"tensor": Kind.TENSOR, "const": Kind.CONST, "none": Kind.NONE,
                        "host": Kind.HOST}.get(ret, Kind.UNKNOWN)
            last = dotted.rsplit(".", 1)[-1]
            if dotted.startswith("mindspore.ops.") and last[:1].isupper():
                return Kind.PRIMITIVE
            if dotted.startswith(("mindspore.ops.", "mindspore.numpy.", "mindspore.mint.")):
                return Kind.CONST if last in ("shape", "rank", "dtype", "size") else Kind.TENSOR
            return Kind.UNKNOWN
        top = dotted.split(".")[0]
        if top in _HOST_MODULES:
            kinds = [self.kind(a) for a in node.args] + [self.kind(k.value) for k in node.keywords]
            if any(k.tensor_like or k is Kind.HOST for k in kinds):
                return Kind.HOST
            if all(k.constant for k in kinds):
                return Kind.CONST
            return Kind.UNKNOWN
        if self.helper_returns is not None:
            return self.helper_returns(dotted)
        return Kind.UNKNOWN

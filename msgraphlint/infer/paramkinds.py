"""Evidence about the kinds of a graph entry's parameters, from the project's call sites.

A ``construct`` or ``jit`` function does not say what its callers pass. The project often
does: a training loop feeds dataset columns, a parent Cell passes ``self.use_bias`` or
``x.sum() > 0``, a script calls ``net(x, ms.mutable(2))``. This module finds the calls of
the module's own graph entries (Cells built in the module, ``jit`` functions defined in it)
and gives each parameter the kind of its arguments, merged over every call site
(``kinds.merge``: a tensor at one call and a literal at another stays unknown).

What counts as evidence at a call site:

* tensors: ``Tensor(...)``/``ms.tensor(...)``, MindSpore ops and ``mint`` results, the
  loop variables of ``for ... in ds.create_tuple_iterator()`` / ``create_dict_iterator()``
  (and their items), names bound to such values in the same function;
* variables: ``ms.mutable(...)`` (a value MindSpore does not fold: branching on it
  compiles to a Switch, like a tensor) counts as a tensor;
* constants: literals, tuples of literals, ``None``, and whatever the calling graph scope's
  own value analysis says is a compile-time value (``self.use_bias``, ``x.shape[-1]``);
* inside a calling graph scope, a tensor whose kind is only a guess (a bare parameter of
  the caller) is not evidence.

The calls other modules make (and the inputs wrappers such as ``nn.TrainOneStepCell`` or
``ms.grad`` hand on, in any module) come from ``evidence.py`` as ``external`` sites and are
merged with this module's own.

Where no caller is visible, ``values.ScopeValues`` falls back on annotations, defaults and
how the body uses the name (``msgraphlint/infer/params.py``).
"""

from __future__ import annotations

import ast
import bisect
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..parse.astutil import children_no_ctx, classes_within, def_span
from .dtypes import constructed_dtype
from ..kinds import Kind, merge
from ..parse.source import split_lines
from ..parse.text import Occurrences, any_line_within, document_occurrences, occurs_twice

_DISPLAYS = {ast.List: "list", ast.Tuple: "tuple", ast.Dict: "dict"}
_KINDS = {k.value: k for k in Kind}
_ITERATORS = frozenset({"create_tuple_iterator", "create_dict_iterator", "create_iterator"})
_TENSOR_MAKERS = frozenset({"mindspore.Tensor", "mindspore.tensor", "mindspore.Parameter"})
# text a statement of a plain caller must hold to bind evidence (a tensor, a dataset column, a literal)
_EVIDENCE = ("ensor(", "mutable(", "_iterator(", "ops.", "mint.", "numpy.", " = ")


def _params(func: ast.AST) -> List[str]:
    args = func.args  # type: ignore[attr-defined]
    names = [a.arg for a in list(getattr(args, "posonlyargs", [])) + list(args.args)]
    return names[1:] if names and names[0] in ("self", "cls") else names


def literal_kind(e: ast.AST) -> Optional[Kind]:
    """The kind of a literal argument (``None``, a constant, a tuple/list of constants, ``-1``),
    or None when ``e`` is not one: the evidence a call site gives without any lookup."""
    if isinstance(e, ast.Constant):
        return Kind.NONE if e.value is None else Kind.CONST
    if isinstance(e, (ast.Tuple, ast.List)) and e.elts and all(isinstance(x, ast.Constant) for x in e.elts):
        return Kind.CONST
    if isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant):
        return Kind.CONST
    return None


class _Target:
    __slots__ = ("qualname", "params", "kwonly", "func")

    def __init__(self, qualname: str, func: ast.AST) -> None:
        self.qualname = qualname
        self.func = func
        self.params = _params(func)
        self.kwonly = [a.arg for a in func.args.kwonlyargs]  # type: ignore[attr-defined]


def _local_defs(body: Sequence[ast.stmt]):
    """The ``def``/``class`` statements of a body (also under ``if``/``with``/loops), not
    those inside other defs: the names the body binds to functions and classes."""
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield n
        elif isinstance(n, ast.stmt):
            for field in ("body", "orelse", "finalbody", "handlers"):
                stack.extend(getattr(n, field, ()) or ())
        elif isinstance(n, ast.ExceptHandler):
            stack.extend(n.body)


class CallerKinds:
    """Parameter kinds of the module's graph entries, from the calls the module makes."""

    def __init__(self, tree: ast.Module, modname: str, imports, targets: Sequence[Tuple[str, str, ast.AST]],
                 graph_funcs: Dict[int, Tuple[str, Optional[str]]],
                 values_for: Callable[[ast.AST, Optional[str], str], object],
                 self_attrs: Callable[[str], Dict[str, str]], external=None, memo: Optional[dict] = None,
                 values_key: Optional[Callable[[ast.AST, Optional[str], str], object]] = None,
                 funcs: Optional[Dict[str, ast.AST]] = None) -> None:
        """``targets``: (local name of a Cell class or a jit function, scope qualname, def);
        names are resolved lexically, so same-named Cells or jit functions defined in two
        test functions are two targets; ``graph_funcs``: id(def) -> (qualname, class name)
        of the module's graph scopes (their own value analysis classifies the arguments they
        pass); ``self_attrs(class)`` the raw attribute kinds of a class (``call:<dotted>``
        for ``self.x = Block(...)``); ``external``: entry qualname -> the ``evidence.ArgSite`` list
        of other modules' calls (and of wrappers anywhere), merged with this module's own.
        Editors: ``memo`` (the document's scope cache), ``values_key(func, class, qualname)`` (the
        key under which ``values_for`` keeps a graph caller's answers, None when it keeps none)
        and ``funcs`` (graph scope qualname -> def) let each top-level def's sites be replayed
        while what they depend on is unchanged (:meth:`_scan_kept`)."""
        self.tree = tree
        self.modname = modname
        self.imports = imports
        self._by_def: Dict[int, Tuple[str, _Target]] = {id(f): (k, _Target(q, f)) for k, q, f in targets}
        self._names = {k for k, _q, _f in targets}
        self.targets = self._visible(tree.body, {})
        self.dtypes: Dict[str, Dict[str, Optional[str]]] = {}
        self.pytypes: Dict[str, Dict[str, Optional[str]]] = {}  # "list"/"tuple"/"dict"/"scalar" every site writes
        self.graph_funcs = graph_funcs
        self.values_for = values_for
        self.self_attrs = self_attrs
        self.hints: Dict[str, Dict[str, Kind]] = {}
        self.sites: Dict[str, int] = {}
        self.external = external or {}
        self._memo = memo if (memo is not None and values_key is not None and funcs is not None) else None
        self._values_key = values_key
        self._funcs = funcs or {}
        self._rec: Optional[list] = None  # the events of the top-level def being scanned (editors)
        self._static_key: Optional[tuple] = None  # what every def's key shares (_def_key)
        self._graph_lines: List[Tuple[int, str, str]] = []  # (line, qualname, class) of the graph scopes

    # ------------------------------------------------------------------ the walk
    def run(self, text: Optional[str] = None) -> Dict[str, Dict[str, Kind]]:
        """``text``: the module's source, to skip the work when no target is called and to skip
        functions that never name one."""
        if not self._by_def:
            return {}
        self._lines: Optional[List[str]] = None
        self._needles: Tuple[str, ...] = ()
        reached = {k for k, t in self._by_def.values() if t.qualname in self.external}
        if text is not None:
            # a target is called only if its name is followed by "(" somewhere besides its own def
            # (or another module calls it)
            # (an editor's memo keeps where needles occur in the document's last text)
            occ = document_occurrences(self._memo, self.modname)
            twice = occ.twice if occ is not None else occurs_twice
            live = {k for k in self._names if k in reached or twice(text, k + "(")}
            if not live:
                return {}
            self._by_def = {i: (k, t) for i, (k, t) in self._by_def.items() if k in live}
            self.targets = {k: v for k, v in self.targets.items() if k in live}
            self._text = text
            self._lines = _LAZY
            attrs = set()
            prefix = self.modname + "."
            for node in self.tree.body:
                if isinstance(node, ast.ClassDef):
                    for attr, raw in self.self_attrs(node.name).items():
                        if raw.startswith("call:" + prefix) and raw[5 + len(prefix):] in live:
                            attrs.add(f"self.{attr}(")
            self._needles = tuple(live) + tuple(sorted(attrs))
            # the lines that hold a needle (none holds a line break: a statement names one iff one
            # of its lines does); a plain caller's statements are also walked when their own lines
            # hold evidence (_EVIDENCE, asked per statement: " = " is on most lines of a module)
            self._hits = (occ if occ is not None else Occurrences()).lines_holding(text, self._needles)
        self._scan_body(self.tree.body, None, None)
        for _k, target in list(self._by_def.values()):
            for site in self.external.get(target.qualname, ()):
                self._record_external(target, site)
        self.dtypes = {q: {p: d for p, d in h.items() if d} for q, h in self.dtypes.items()}
        self.pytypes = {q: {p: d for p, d in h.items() if d} for q, h in self.pytypes.items()}
        return {q: {p: k for p, k in h.items() if k in (Kind.TENSOR, Kind.CONST, Kind.NONE)}
                for q, h in self.hints.items()}

    def _visible(self, body: Sequence[ast.stmt], outer: Dict[str, _Target]) -> Dict[str, _Target]:
        """``outer`` with the targets ``body`` defines itself (they shadow same-named ones)."""
        mine: Dict[str, _Target] = {}
        for d in _local_defs(body):
            if isinstance(d, ast.ClassDef):
                for item in d.body:
                    hit = self._by_def.get(id(item))
                    if hit is not None and hit[0] == d.name:
                        mine[d.name] = hit[1]
            else:
                hit = self._by_def.get(id(d))
                if hit is not None and hit[0] == d.name:
                    mine[d.name] = hit[1]
        if not mine:
            return outer
        out = dict(outer)
        out.update(mine)
        return out

    def _names_a_target(self, func: ast.AST) -> bool:
        if self._lines is None:
            return True
        return any_line_within(self._hits, func.lineno, getattr(func, "end_lineno", None) or func.lineno)  # type: ignore[attr-defined]

    def _segment_names(self, stmt: ast.AST, needles: Sequence[str]) -> bool:
        """Whether ``stmt``'s lines hold one of ``needles`` (lines joined by "\n": no needle holds
        one, so none matches across two lines)."""
        if self._lines is _LAZY:
            self._lines = split_lines(self._text)
        seg = "\n".join(self._lines[stmt.lineno - 1:getattr(stmt, "end_lineno", stmt.lineno)])  # type: ignore[attr-defined]
        return any(n in seg for n in needles)

    def _scan_body(self, body: Sequence[ast.stmt], func: Optional[ast.AST], class_name: Optional[str]) -> None:
        outer = self.targets
        self.targets = self._visible(body, outer)
        try:
            self._scan_visible(body, func, class_name)
        finally:
            self.targets = outer

    def _scan_visible(self, body: Sequence[ast.stmt], func: Optional[ast.AST], class_name: Optional[str]) -> None:
        env: Dict[str, object] = {}  # local name -> target key or a Kind
        denv: Dict[str, Optional[str]] = {}  # local name -> the dtype of the Tensor(...) it holds
        calls: List[Tuple[_Target, ast.Call]] = []
        attrs = self.self_attrs(class_name) if class_name else {}
        nested: List[Tuple[ast.AST, Optional[str]]] = []
        needles: List[str] = []  # `net = Net()` in this body: `net(` names a target from then on
        hits = self._hits
        for stmt in body:
            if self._lines is not None and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not any_line_within(hits, stmt.lineno, getattr(stmt, "end_lineno", None) or stmt.lineno) \
                        and not (func is None and self._segment_names(stmt, _EVIDENCE)) \
                        and not (needles and self._segment_names(stmt, needles)):
                    continue  # names no target and builds no evidence
            for node in _walk_no_defs(stmt, nested, class_name):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    v = node.value
                    key = self._constructed(v)
                    env[node.targets[0].id] = key if key is not None else self._plain_kind(v, env)
                    denv[node.targets[0].id] = constructed_dtype(v, self._dotted)
                    if key is not None:
                        needles.append(node.targets[0].id + "(")  # `net = Net()`: later `net(x)` calls it
                elif isinstance(node, (ast.For, ast.comprehension)) and self._is_dataset_iter(node.iter):
                    for n in ast.walk(node.target):
                        if isinstance(n, ast.Name):
                            env[n.id] = Kind.TENSOR if not isinstance(node.target, ast.Name) else "batch"
                elif isinstance(node, ast.Call):
                    t = self._callee(node, env, attrs)
                    if t is not None:
                        calls.append((t, node))
        for inner, cname in nested:
            if inner.name != "__init__" and self._names_a_target(inner):  # type: ignore[attr-defined]
                # (`__init__` builds sub-cells; it does not call them)
                graph = self.graph_funcs.get(id(inner))
                # a graph scope classifies its arguments with its own value analysis; any
                # other def (a script, a training loop, a test) is a plain Python caller
                if self._memo is not None and body is self.tree.body and self._lines is not None:
                    self._scan_kept(inner, cname, graph)
                    continue
                self._scan_body(inner.body, inner if graph is not None else None,  # type: ignore[attr-defined]
                                graph[1] if graph is not None and graph[1] else cname)
        if calls:
            self._sites(func, calls, env, denv)

    def _dotted(self, node: ast.AST) -> Optional[str]:
        return self.imports.dotted(node) if self.imports is not None else None

    def _sites(self, func: Optional[ast.AST], calls, env, denv) -> None:
        values = None
        rec = self._rec
        if func is not None:
            q, cname = self.graph_funcs[id(func)]
            if rec is not None:  # (the key before the pass, as values_for computes it)
                rec.append(("values", q, cname, self._values_key(func, cname, q)))  # type: ignore[misc]
            values = self.values_for(func, cname, q)
        caller_params = set(_params(func)) if func is not None else set()
        for target, call in calls:
            kinds = self._bound(target, call, lambda a: self._arg_kind(a, env, values, caller_params))
            dtypes = self._bound(target, call, lambda a: self._arg_dtype(a, denv if values is None else {}))
            pytypes = self._bound(target, call, self._arg_pytype)
            self._apply(target.qualname, tuple(target.params + target.kwonly), kinds, dtypes, pytypes)
            if rec is not None:
                rec.append(("site", target.qualname, tuple(target.params + target.kwonly), kinds, dtypes, pytypes))

    def _apply(self, qualname: str, params: Tuple[str, ...], kinds: Dict[str, Kind],
               dtypes: Dict[str, Optional[str]], pytypes: Dict[str, Optional[str]]) -> None:
        """One call site merged into the hints (a parameter not passed takes its default:
        unknown here), and into the dtypes and containers every site agrees on."""
        hints = self.hints.setdefault(qualname, {})
        self.sites[qualname] = self.sites.get(qualname, 0) + 1
        first = self.sites[qualname] == 1
        for p in params:
            k = kinds.get(p, Kind.UNKNOWN)
            hints[p] = k if first else merge(hints.get(p, Kind.UNKNOWN), k)
        for store, bound in ((self.dtypes, dtypes), (self.pytypes, pytypes)):
            new = qualname not in store
            seen = store.setdefault(qualname, {})
            for p in params:
                d = bound.get(p)
                seen[p] = d if new else (d if seen.get(p) == d else None)

    # ------------------------------------------------------------------ editors: kept defs
    def _def_key(self, inner: ast.AST, cname: Optional[str], graph) -> tuple:
        """What a top-level def's scan reads: its text from its first decorator (lines are read
        by content), its class and graph status, the graph scopes and classes inside it (and
        their ``self.<attr>`` kinds), the targets visible at module level, the needles, the
        import map and the module's name; the value passes it asks are checked apart (their
        ``values_key`` is in the events)."""
        lines = self._lines
        if lines is _LAZY:
            lines = self._lines = split_lines(self._text)
        start, end = def_span(inner)
        if self._static_key is None:
            self._static_key = (self.modname, tuple(sorted(self.imports.names.items())) if self.imports is not None else (),
                                self._needles, tuple(sorted((k, t.qualname, tuple(t.params), tuple(t.kwonly))
                                                            for k, t in self.targets.items())))
            self._graph_lines = sorted((f.lineno, q, self.graph_funcs[id(f)][1] or "")  # type: ignore[attr-defined]
                                       for q, f in self._funcs.items() if id(f) in self.graph_funcs)
        lo, hi = inner.lineno, end + 1  # type: ignore[attr-defined]
        inside = tuple((ln - lo, q, c) for ln, q, c in self._graph_lines[bisect.bisect_left(self._graph_lines, (lo,)):
                                                                          bisect.bisect_left(self._graph_lines, (hi,))])
        classes = {cname or ""} | {c for _, _, c in inside} | set(classes_within(self.tree, lo, end))
        attrs = tuple((c, tuple(sorted(self.self_attrs(c).items()))) for c in sorted(classes) if c)
        return ("caller-kinds", "\n".join(lines[start - 1:end]), cname, graph, inside, attrs, self._static_key)

    def _scan_kept(self, inner: ast.AST, cname: Optional[str], graph) -> None:
        """``_scan_body`` of a top-level def, or the replay of its events from an earlier run with
        the same :meth:`_def_key` whose value passes are kept under the same keys
        (``values_for`` answers them from its cache: ``kept``)."""
        key = self._def_key(inner, cname, graph)
        events = self._memo.get(key)  # type: ignore[union-attr]
        if events is not None and self._replay(events):
            return
        self._rec = rec = []
        try:
            self._scan_body(inner.body, inner if graph is not None else None,  # type: ignore[attr-defined]
                            graph[1] if graph is not None and graph[1] else cname)
        finally:
            self._rec = None
        memo = self._memo
        if len(memo) > 4096:  # type: ignore[arg-type]  # bounded as the scope cache it lives in
            memo.clear()  # type: ignore[union-attr]
        memo[key] = tuple(rec)  # type: ignore[index]

    def _replay(self, events: tuple) -> bool:
        """Apply recorded sites when every value pass they came from is answered from the cache
        under the key it had: the keys are compared first (nothing applied or asked on a
        mismatch), then the passes are asked in their order (their side effects, as a scan
        has them); False, with nothing applied, when one is computed afresh."""
        passes = [(self._funcs.get(ev[1]), ev) for ev in events if ev[0] == "values"]
        for func, ev in passes:
            if func is None or self.graph_funcs.get(id(func)) != (ev[1], ev[2]) \
                    or ev[3] is None or self._values_key(func, ev[2], ev[1]) != ev[3]:  # type: ignore[misc]
                return False
        for func, ev in passes:
            if not getattr(self.values_for(func, ev[2], ev[1]), "kept", False):
                return False
        for ev in events:
            if ev[0] == "site":
                self._apply(ev[1], ev[2], ev[3], ev[4], ev[5])
        return True

    def _arg_pytype(self, a: ast.AST) -> Optional[str]:
        """The Python container an argument is written as (``foo([1, 2])``: ``list``; a tuple or
        dict display likewise), or ``scalar`` for ``ms.mutable(<int/float/bool>)`` (a variable
        Python scalar, not a tensor); dtypes and containers are kept only where every site agrees."""
        shown = _DISPLAYS.get(type(a))
        if shown is not None:
            return shown
        if isinstance(a, ast.Call) and len(a.args) == 1 and not a.keywords and isinstance(a.args[0], ast.Constant) \
                and isinstance(a.args[0].value, (bool, int, float)) \
                and self._dotted(a.func) in ("mindspore.mutable", "mindspore.graph.mutable"):
            return "scalar"
        return None

    @staticmethod
    def _bound(target: _Target, call: ast.Call, value_of: Callable[[ast.AST], object]) -> dict:
        """``value_of`` (a kind, a dtype, a container) of each argument, by the parameter the call
        binds it to."""
        bound: dict = {}
        for i, a in enumerate(call.args):
            if isinstance(a, ast.Starred) or i >= len(target.params):
                break
            bound[target.params[i]] = value_of(a)
        for kw in call.keywords:
            if kw.arg is not None and (kw.arg in target.params or kw.arg in target.kwonly):
                bound[kw.arg] = value_of(kw.value)
        return bound

    def _arg_dtype(self, a: ast.AST, denv: Dict[str, Optional[str]]) -> Optional[str]:
        if isinstance(a, ast.Name):
            return denv.get(a.id)
        return constructed_dtype(a, self._dotted)

    # ------------------------------------------------------------------ call sites
    def _constructed(self, v: ast.AST) -> Optional[str]:
        """``Block(...)`` of a target Cell class -> its key."""
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in self.targets \
                and self.targets[v.func.id].qualname.endswith(".construct"):
            return v.func.id
        return None

    def _callee(self, node: ast.Call, env: Dict[str, object], attrs: Dict[str, str]) -> Optional[_Target]:
        f = node.func
        if isinstance(f, ast.Name):
            t = self.targets.get(f.id)
            if t is not None and not t.qualname.endswith(".construct"):
                return t  # a jit function
            key = env.get(f.id)
            if isinstance(key, str) and key in self.targets:
                return self.targets[key]  # net = Net(); net(x)
            return None
        if isinstance(f, ast.Call):
            key = self._constructed(f)
            return self.targets[key] if key is not None else None  # Net()(x)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            raw = attrs.get(f.attr, "")
            if raw.startswith("call:"):
                dotted = raw[5:]
                prefix = self.modname + "."
                local = dotted[len(prefix):] if dotted.startswith(prefix) else None
                if local in self.targets and self.targets[local].qualname.endswith(".construct"):
                    return self.targets[local]  # self.block = Block(...); self.block(x, flag)
        return None

    def _is_dataset_iter(self, it: ast.AST) -> bool:
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args:
            it = it.args[0]
        return isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in _ITERATORS

    def _plain_kind(self, e: ast.AST, env: Dict[str, object]) -> Kind:
        """The kind of an argument written in plain Python code (a script, a training loop)."""
        lit = literal_kind(e)
        if lit is not None:
            return lit
        if isinstance(e, ast.Name):
            k = env.get(e.id)
            return k if isinstance(k, Kind) else Kind.UNKNOWN
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and env.get(e.value.id) in ("batch", Kind.TENSOR):
            return Kind.TENSOR  # data["image"], batch[0] of a dataset iterator
        if isinstance(e, ast.Call):
            q = self.imports.dotted(e.func) if self.imports is not None else None
            if q is None:
                return Kind.UNKNOWN
            if q in ("mindspore.mutable", "mindspore.graph.mutable"):
                return Kind.TENSOR  # a variable: not folded, branching on it is a Switch
            if q in _TENSOR_MAKERS or q.startswith(("mindspore.ops.", "mindspore.mint.", "mindspore.numpy.")):
                return Kind.TENSOR
        return Kind.UNKNOWN

    def _record_external(self, target: _Target, site) -> None:
        """One call of another module (``evidence.ArgSite``), merged like a site of this one
        (it spells no dtype and no container here: no agreement on either)."""
        bound: Dict[str, Kind] = {}
        for p, k in zip(target.params, site.args):
            bound[p] = _KINDS.get(k, Kind.UNKNOWN)
        if site.rest:  # Model(net).train(epochs, dataset): every column, for each required parameter
            required = len(target.params) - len(target.func.args.defaults)  # type: ignore[attr-defined]
            for p in target.params[len(site.args):required]:
                bound[p] = _KINDS.get(site.rest, Kind.UNKNOWN)
        for name, k in site.kwargs.items():
            if name in target.params or name in target.kwonly:
                bound[name] = _KINDS.get(k, Kind.UNKNOWN)
        self._apply(target.qualname, tuple(target.params + target.kwonly), bound, {}, {})

    def _arg_kind(self, a: ast.AST, env, values, caller_params) -> Kind:
        if values is None:
            return self._plain_kind(a, env)
        k = values.kind(a)  # type: ignore[attr-defined]
        if k.constant:
            return k
        if k.tensor_like:
            if isinstance(a, ast.Name) and a.id in caller_params and a.id not in getattr(values, "from_callers", ()):
                return Kind.UNKNOWN  # the caller's own parameter: its kind is a guess
            return Kind.TENSOR
        return Kind.UNKNOWN


_LAZY: List[str] = []  # CallerKinds._lines before the text is split (only a body's own needles need it)


def _walk_no_defs(stmt: ast.AST, nested: List[Tuple[ast.AST, Optional[str]]], class_name: Optional[str]):
    """The nodes of a statement, not entering ``def``/``lambda``/``class`` bodies; the defs met
    are appended to ``nested`` with the class whose ``self`` they see."""
    stack = [stmt]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested.append((n, class_name))
            continue
        if isinstance(n, ast.ClassDef):
            for item in n.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    nested.append((item, n.name))
            continue
        if isinstance(n, ast.Lambda):
            continue
        yield n
        # source order (the bindings of an `if __name__ == "__main__":` block precede their calls)
        stack.extend(reversed(children_no_ctx(n)))  # ast.iter_child_nodes' children, no Load/Store

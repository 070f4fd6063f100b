"""One module, all rules: walks each graph-mode scope once (and the whole module
once for module-scope rules) and dispatches nodes to the rules' ``visit_<Node>``."""

from __future__ import annotations

import ast
import bisect
import os
from collections import OrderedDict, defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

from ..project import installed
from ..context import RuleContext
from ..findings import Finding
from ..infer.entries import Inputs, python_inputs
from ..project.evidence import incoming
from ..infer.paramkinds import CallerKinds
from ..project.index import ModuleSummary, ProjectIndex, all_functions, find_function
from ..project.scopes import CellResolver, GraphScope, _attr_method, pynative_scopes
from ..parse.source import SourceFile
from ..parse.text import identifier_text, occurs_twice
from ..infer.values import ClassInfo, Kind, ScopeValues, double_starred_names, merge


class Dispatch:
    """node type name -> bound visit methods, built once per rule set."""

    def __init__(self, rules: Sequence) -> None:
        self.graph: Dict[type, List] = defaultdict(list)
        self.module: Dict[type, List] = defaultdict(list)
        self.graph_leave = [r for r in rules if r.scope == "graph" and hasattr(r, "leave_scope")]
        self.module_checks = [r for r in rules if r.scope in ("graph", "module") and hasattr(r, "check_module")]
        self.yaml = [r for r in rules if r.scope == "yaml"]
        for rule in rules:
            if rule.scope not in ("graph", "module"):
                continue
            table = self.graph if rule.scope == "graph" else self.module
            for attr in dir(rule):
                if attr.startswith("visit_"):
                    node_type = getattr(ast, attr[6:], None)
                    if isinstance(node_type, type):
                        table[node_type].append((rule, getattr(rule, attr)))
        self.graph = dict(self.graph)
        self.module = dict(self.module)
        self._gated = any(r.requires_text for r in rules if r.scope in ("graph", "module"))

    def for_capture(self, mode: str) -> "Dispatch":
        """The graph part of the dispatch for scopes captured with ``mode``: rules whose
        ``captures`` lack it are left out (an ast-parser claim under bytecode capture)."""
        views = self.__dict__.setdefault("_captures", {})
        view = views.get(mode)
        if view is None:
            view = self._graph_view(lambda r: mode in getattr(r, "captures", (mode,)) and _graph_rule(r))
            if view.graph == self.graph and view.graph_leave == self.graph_leave:
                view = self   # every rule applies: no copy
            views[mode] = view
        return view

    def for_pynative(self) -> "Dispatch":
        """The graph part of the dispatch for PyNative scopes (``scopes.pynative_scopes``): only
        the rules whose ``modes`` include ``"pynative"`` (their claim holds in every mode)."""
        view = self.__dict__.get("_pynative")
        if view is None:
            view = self._pynative = self._graph_view(lambda r: "pynative" in getattr(r, "modes", ()))
        return view

    def _graph_view(self, keep) -> "Dispatch":
        """A copy of the dispatch whose graph part holds only the rules ``keep`` accepts."""
        view = object.__new__(Dispatch)
        view.__dict__.update(self.__dict__)
        view._captures = {}
        graph = {k: [h for h in v if keep(h[0])] for k, v in self.graph.items()}
        view.graph = {k: v for k, v in graph.items() if v}
        view.graph_leave = [r for r in self.graph_leave if keep(r)]
        return view

    def for_text(self, text: str) -> "Dispatch":
        """The dispatch for one file: rules whose ``requires_text`` the file lacks are left out
        (a module-scope rule about ``set_context`` need not walk a file that never says it)."""
        if not self._gated:
            return self
        words = self.__dict__.get("_gate_words")
        if words is None:  # every rule's words, each searched once per text below
            words = self._gate_words = frozenset(
                w for table in (self.graph, self.module) for handlers in table.values() for r, _ in handlers
                for w in (r.requires_text or ())) | frozenset(
                w for r in self.graph_leave + self.module_checks for w in (r.requires_text or ()))
        present = _present_words(text, words)
        skip = {id(r) for table in (self.graph, self.module) for handlers in table.values() for r, _ in handlers
                if r.requires_text and present.isdisjoint(r.requires_text)}
        skip |= {id(r) for r in self.graph_leave + self.module_checks
                 if r.requires_text and present.isdisjoint(r.requires_text)}
        if not skip:
            return self
        view = object.__new__(Dispatch)
        view.graph = {k: [h for h in v if id(h[0]) not in skip] for k, v in self.graph.items()}
        view.graph = {k: v for k, v in view.graph.items() if v}
        view.module = {k: [h for h in v if id(h[0]) not in skip] for k, v in self.module.items()}
        view.module = {k: v for k, v in view.module.items() if v}
        view.graph_leave = [r for r in self.graph_leave if id(r) not in skip]
        view.module_checks = [r for r in self.module_checks if id(r) not in skip]
        view.yaml = self.yaml
        view._gated = False
        return view


_PRESENT: "OrderedDict[tuple, tuple]" = OrderedDict()  # (id(text), words) -> (text, the words it holds)


def _present_words(text: str, words: frozenset) -> frozenset:
    """The ``words`` that ``text`` holds, as it is or (a text that is not ASCII) as Python reads
    its identifiers, NFKC-normalised (``ＴransformerConfig(...)``). The last few texts' answers
    are kept: an editor's analyses re-check the same unchanged files the open document reaches."""
    key = (id(text), words)
    hit = _PRESENT.get(key)
    if hit is not None and hit[0] is text:
        return hit[1]
    ident = text if text.isascii() else None
    present = set()
    for w in words:
        if w in text:
            present.add(w)
        else:
            if ident is None:
                ident = identifier_text(text)
            if ident is not text and w in ident:
                present.add(w)
    got = frozenset(present)
    _PRESENT[key] = (text, got)
    if len(_PRESENT) > 8:
        _PRESENT.popitem(last=False)
    return got


def _graph_rule(rule) -> bool:
    """The rule's claim holds in graph code (``Rule.modes``; a rule without the field: yes)."""
    return "graph" in getattr(rule, "modes", ("graph",))


from ..parse.astutil import fold, per_tree, unparse, walk as _walk, walk_with_parents as _walk_with_parents  # noqa: E402
from ..parse.astutil import (walk_no_ctx as _walk_no_ctx,  # noqa: E402
                             walk_statements_with_parents as _walk_statements_with_parents,
                             children_no_ctx as _children_no_ctx, _NO_CTX_FIELDS, _node_fields)
_CTX_TYPES = (ast.Load, ast.Store, ast.Del)
# the node types CPython's parser shares (one ``ast.Add()`` in every ``+``): a visit of one has
# no single place in the walk, so a table with one records its parents as it walks
_SHARED_TYPES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
#: the node types :func:`walk_statements_with_parents` yields (a statement is never inside an
#: expression: a lambda's body is one)
_STATEMENT_TYPES = frozenset(c for c in vars(ast).values() if isinstance(c, type)
                             and issubclass(c, (ast.stmt, ast.excepthandler, ast.match_case, ast.mod)))
_MISS = object()


class _LazyParents(dict):
    """The parents a statement-only walk records (statements, handlers, cases), answering for
    any other node exactly as the map of a full walk (``walk_with_parents_no_ctx``) would at
    the same point: while the rules visit node ``at``, a node's parent is known when the walk
    has already yielded that parent (a generator records a node's children after yielding
    it); once the walk is over (``at`` None), every parent is. The first such question makes
    the full map once, with each node's position in the walk. The root has no parent, and
    asking for it needs no walk."""

    __slots__ = ("_root", "_full", "_order", "at")

    def __init__(self, root: ast.AST):
        super().__init__()
        self._root, self._full, self._order, self.at = root, None, None, None

    def _other(self, key):
        if key == id(self._root):
            return _MISS
        if self._full is None:
            self._full_walk()
        got = self._full.get(key, _MISS)
        if got is _MISS:
            return got
        at = len(self._order) if self.at is None else self._order[id(self.at)]
        if got.__class__ is list:  # a shared node (``ast.Add()``): the last parent yielded before
            before = bisect.bisect_left(got, at, key=lambda held: held[0])
            return got[before - 1][1] if before else _MISS
        return got if self._order[id(got)] < at else _MISS

    def _full_walk(self) -> None:
        """Each node's parent and position in the full walk; a node the tree holds in several
        places (CPython shares ``ast.Add()`` and the other operators) keeps every parent, as
        (position, parent) in walk order."""
        full: dict = {}
        order: dict = {}
        stack = [self._root]  # walk_with_parents_no_ctx's order, each node's children read once
        i = 0
        while stack:
            node = stack.pop()
            order[id(node)] = i
            kids = _children_no_ctx(node)
            stack.extend(reversed(kids))
            for child in kids:
                k = id(child)
                was = full.get(k, _MISS)
                if was is _MISS:
                    full[k] = node
                else:
                    if was.__class__ is not list:
                        was = full[k] = [(order[id(was)], was)]
                    was.append((i, node))
            i += 1
        self._full, self._order = full, order

    def get(self, key, default=None):
        got = dict.get(self, key, _MISS)
        if got is _MISS:
            got = self._other(key)
            return default if got is _MISS else got
        return got

    def __contains__(self, key) -> bool:
        return self.get(key, _MISS) is not _MISS

    def __getitem__(self, key):
        got = self.get(key, _MISS)
        if got is _MISS:
            raise KeyError(key)
        return got


def _module_consts(tree: ast.Module) -> Dict[str, Kind]:
    out: Dict[str, Kind] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = node.value
            name = node.targets[0].id
            if isinstance(v, ast.Constant):
                out[name] = Kind.NONE if v.value is None else Kind.CONST
            elif isinstance(v, (ast.List, ast.Dict, ast.Set)) or (
                    isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("list", "dict", "set")):
                out[name] = Kind.PYLIST if isinstance(v, ast.List) or getattr(getattr(v, "func", None), "id", "") == "list" else Kind.PYDICT
            elif isinstance(v, ast.Tuple) and all(isinstance(e, ast.Constant) for e in v.elts):
                out[name] = Kind.CONST
            elif isinstance(v, ast.BinOp) and all(isinstance(e, ast.Constant) for e in (v.left, v.right)):
                out[name] = Kind.CONST
    return out


def closure_kinds(outer: ast.AST) -> Dict[str, Kind]:
    """Kinds of the names an enclosing function binds, as a nested Cell or jit function
    sees them. MindSpore resolves free variables to the Python objects they hold when it
    compiles (ast capture): literals, flags and sizes — also the enclosing function's
    parameters (a test's `parametrize` values, a factory's options) — are compile-time
    constants. Names bound to anything else are unknown (never the module's value)."""
    out: Dict[str, Kind] = {}
    args = outer.args  # type: ignore[attr-defined]
    positional = list(getattr(args, "posonlyargs", [])) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    literal_params = _parametrized_literals(outer)
    for arg, default in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        ann = unparse(arg.annotation) if arg.annotation is not None else ""
        if arg.arg in ("self", "cls") or "Tensor" in ann or "Parameter" in ann:
            out[arg.arg] = Kind.UNKNOWN
        elif ann in ("int", "float", "bool", "str") or arg.arg in literal_params \
                or (default is not None and _literal_kind(default) is Kind.CONST):
            out[arg.arg] = Kind.CONST  # a flag or size (`use_bias=True`, a parametrized literal)
        else:
            out[arg.arg] = Kind.UNKNOWN  # `network`, `optimizer`: objects, not known constants
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            out[extra.arg] = Kind.UNKNOWN
    assigned: Dict[str, List[ast.expr]] = {}
    from ..parse.astutil import walk_statements
    for node in walk_statements(outer.body):  # type: ignore[attr-defined]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = Kind.UNKNOWN
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                for n in _walk(t):
                    if isinstance(n, ast.Name):
                        assigned.setdefault(n.id, []).append(node.value if isinstance(t, ast.Name) else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            assigned.setdefault(node.target.id, []).append(
                node.value if isinstance(node, ast.AnnAssign) else None)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Import, ast.ImportFrom)):
            targets = [node.target] if isinstance(node, (ast.For, ast.AsyncFor)) else (
                [i.optional_vars for i in node.items if i.optional_vars is not None]
                if isinstance(node, (ast.With, ast.AsyncWith)) else [])
            for t in targets:
                for n in _walk(t):
                    if isinstance(n, ast.Name):
                        out[n.id] = Kind.UNKNOWN
    for name, values in assigned.items():
        kinds = {_literal_kind(v) for v in values}
        if name in out and out[name] is not Kind.CONST:
            continue
        if len(kinds) == 1:
            out[name] = kinds.pop()
        elif kinds <= {Kind.CONST, Kind.NONE}:
            out[name] = Kind.CONST
        else:
            out[name] = Kind.UNKNOWN
    return out


def _parametrized_literals(func: ast.AST) -> set:
    """Parameters a ``pytest.mark.parametrize`` decorator fills with literals only."""
    out: set = set()
    for dec in getattr(func, "decorator_list", ()):
        if not (isinstance(dec, ast.Call) and len(dec.args) >= 2 and isinstance(dec.func, ast.Attribute)
                and dec.func.attr == "parametrize" and isinstance(dec.args[0], ast.Constant)
                and isinstance(dec.args[0].value, str) and isinstance(dec.args[1], (ast.List, ast.Tuple))):
            continue
        names = [n.strip() for n in dec.args[0].value.split(",")]
        if all(_literal_kind(v) in (Kind.CONST, Kind.NONE) for v in dec.args[1].elts):
            out.update(names)
    return out


def _literal_kind(v: Optional[ast.expr]) -> Kind:
    """The kind of a literal argument of ``pytest.mark.parametrize``, bottom-up (``fold``): a
    literal sum of thousands of terms is as deep as ``ast.parse`` allows."""
    if v is None:
        return Kind.UNKNOWN
    return fold(v, _literal_parts, _literal_kind_of)


def _literal_parts(v: ast.expr) -> list:
    if isinstance(v, ast.Tuple):
        return v.elts
    if isinstance(v, ast.BinOp):
        return [v.left, v.right]
    return []


def _literal_kind_of(v: ast.expr, kinds: list) -> Kind:
    if isinstance(v, ast.Constant):
        return Kind.NONE if v.value is None else Kind.CONST
    if isinstance(v, ast.Tuple):
        return Kind.CONST if all(k in (Kind.CONST, Kind.NONE) for k in kinds) else Kind.UNKNOWN
    if isinstance(v, (ast.List, ast.ListComp)):
        return Kind.PYLIST
    if isinstance(v, (ast.Dict, ast.DictComp)):
        return Kind.PYDICT
    if isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Constant):
        return Kind.CONST
    if isinstance(v, ast.BinOp):
        return Kind.CONST if kinds[0] is Kind.CONST and kinds[1] is Kind.CONST else Kind.UNKNOWN
    return Kind.UNKNOWN


class ModuleEngine:
    """Runs the rules over one parsed module."""

    def __init__(self, source: SourceFile, summary: Optional[ModuleSummary], index: Optional[ProjectIndex],
                 scopes: Sequence[GraphScope], dispatch: Dispatch, target_version: str,
                 cells: Optional[CellResolver] = None, scope_cache: Optional[dict] = None) -> None:
        self.scope_cache = scope_cache  # editors: findings per unchanged scope, reused across edits
        self.source = source
        self.summary = summary
        self.index = index
        self.scopes = list(scopes)
        self.dispatch = dispatch
        self.target = target_version
        self.cells = cells
        self.findings: List[Tuple[Finding, Optional[GraphScope], object]] = []
        self._funcs: Dict[int, ast.AST] = {}
        self._classes: Dict[str, ast.ClassDef] = {}
        self._class_infos: Dict[str, ClassInfo] = {}
        self._hints: Dict[str, Dict[str, Kind]] = {}
        self._returns: Dict[str, Kind] = {}
        self._in_progress: set = set()
        self._consts: Optional[Dict[str, Kind]] = None
        self._closures: Dict[int, Dict[str, Kind]] = {}
        self._from_callers: Dict[str, frozenset] = {}
        self._dtypes: Dict[str, Dict[str, str]] = {}  # scope qualname -> parameter -> dtype its callers pass
        self._pytypes: Dict[str, Dict[str, str]] = {}  # scope qualname -> parameter -> list/tuple/dict its callers write
        self._prepass: Dict[str, Tuple[tuple, ScopeValues]] = {}
        self._inputs: Optional[Inputs] = None
        self._mappings: Dict[int, frozenset] = {}  # id(def) -> names `**`-unpacked in its body
        self._recs: Dict[int, list] = {}  # editors: id(ScopeValues) -> what its helper lookups read
        self._ret_deps: Dict[str, list] = {}  # editors: helper qualname -> what its return kind read
        self._class_keys: Dict[Optional[str], tuple] = {}
        # editors: the import map, the module's def and class names, the MindSpore names the project rebinds
        self._names_key: tuple = ()

    def _python_inputs(self) -> Inputs:
        """What host code of the module calls and passes (entries.py; computed on first use)."""
        if self._inputs is None:
            text = self.source.text
            # a root is called only if its name (a jit function's, a Cell class's) is followed by
            # "(" somewhere besides its definition
            names = {s.class_name if s.kind == "construct" else s.qualname.rsplit(".", 1)[-1]
                     for s in self.scopes if not s.chain and s.kind in ("construct", "jit")}
            if not any(n and occurs_twice(text, n + "(") for n in names):
                self._inputs = Inputs()
            else:
                graph_defs = {id(self._funcs[s.lineno]) for s in self.scopes if s.lineno in self._funcs}
                self._inputs = python_inputs(self.source.tree, graph_defs, text)
        return self._inputs

    def _entry_key(self, func: ast.AST):
        """For the scope cache: whether host code calls ``func`` and what it passes (as text)."""
        inputs = self._python_inputs()
        if id(func) not in inputs.called:
            return None

        def text(v):
            if v is None:
                return None
            return unparse(v[1]) if v[0] == "value" else f"{v[1].name}:{unparse(v[2])}"
        return tuple(tuple(sorted((k, tuple(text(v) for v in vs)) for k, vs in table.get(id(func), {}).items()))
                     for table in (inputs.params, inputs.self_attrs))

    def release(self) -> None:
        """Forget everything this engine computed (call it once its findings are read). Its
        ClassInfos and ScopeValues hold callbacks into the engine, so the engine, the file's
        tree and every analysis of it form reference cycles, and the cyclic collector is off
        during a run (``workers.no_cyclic_gc``): unbroken, all files' trees lived until the
        run ended and one collection then walked them (mindone: 3.9 million objects, 2 s)."""
        if getattr(self, "_inputs", None) is not None:
            self._inputs.release()
        self.__dict__.clear()

    def _sink(self, finding: Finding, scope, rule) -> None:
        if scope is not None and scope.mode != "graph":
            scope = None  # a PyNative scope's finding: no graph-mode note, no call-site echo (MSG004)
        self.findings.append((finding, scope, rule))

    # index of defs in this file ---------------------------------------------------
    def _index_defs(self, tree: ast.Module) -> None:
        """The module's defs by line and classes by name, built once per tree (``per_tree``: the
        engines of other modules' helpers each ask for the defs of the same calling module)."""
        nested = self.summary is not None and self.summary.nested
        funcs, classes = per_tree(tree, "engine_defs_nested" if nested else "engine_defs",
                                  lambda t: _module_defs(t, nested))
        self._funcs.update(funcs)
        self._classes.update(classes)

    def class_info(self, class_name: Optional[str]) -> Optional[ClassInfo]:
        if not class_name or self.summary is None or class_name not in self.summary.classes:
            return None
        if class_name in self._class_infos:
            return self._class_infos[class_name]
        cls = self.summary.classes[class_name]
        attrs: Dict[str, str] = {}
        methods: set = set()
        is_cell = False
        if self.cells is not None:
            chain = self.cells.mro(cls)
            is_cell = self.cells.is_cell(cls)
        else:
            chain = [cls]
        for c in reversed(chain):  # subclass wins
            attrs.update(c.attrs)
            methods.update(c.methods)
        info = ClassInfo(attrs, is_cell, methods, self._resolve_ctor)
        self._class_infos[class_name] = info
        return info

    def _resolve_ctor(self, dotted: str) -> Kind:
        if self.index is None or self.cells is None:
            return Kind.UNKNOWN
        res = self.index.resolve(dotted)
        if res and res[0] == "class":
            return Kind.CELL if self.cells.is_cell(res[1]) else Kind.UNKNOWN
        if res is None:  # an installed package's Cell (or function), read by installed.py
            return installed.call_kind(self.index, dotted, self.source.path)
        return Kind.UNKNOWN

    # helper return kinds (same module, bounded) ---------------------------------
    def _helper_returns(self, class_name: Optional[str], rec: Optional[list] = None):
        """The return kinds of what graph code calls: a same-module helper's from its value pass
        (bounded), a class's or an installed package's callable's from the index. ``rec``
        (editors) receives what each answer depended on (``_deps_hold`` checks it again)."""
        def lookup(target) -> Kind:
            fs = self._helper_def(class_name, target)
            if fs is None or fs.lineno not in self._funcs:
                k = self._other_return(target) if fs is None else Kind.UNKNOWN
                if rec is not None:
                    rec.append(("call", class_name, target, k))
                return k
            if rec is not None:
                rec.append(("def", class_name, target, fs.qualname, self.source.segment(self._funcs[fs.lineno])))
            if fs.qualname in self._returns:
                if rec is not None:
                    rec.extend(self._ret_deps.get(fs.qualname, (("cut",),)))
                return self._returns[fs.qualname]
            if fs.qualname in self._in_progress or len(self._in_progress) > 4:
                if rec is not None:
                    rec.append(("cut",))  # an answer that depends on the order of the lookups: never reused
                return Kind.UNKNOWN
            self._in_progress.add(fs.qualname)
            sub: Optional[list] = [] if rec is not None else None
            try:
                values = self._values_for(self._funcs[fs.lineno], fs.class_name, fs.qualname, is_root=False, rec=sub)
                k = values.returns
            finally:
                self._in_progress.discard(fs.qualname)
            self._returns[fs.qualname] = k
            if sub is not None:
                self._ret_deps[fs.qualname] = sub
                rec.extend(sub)
            return k
        return lookup

    def _helper_def(self, class_name: Optional[str], target):
        """The summary of the same-module function or method ``target`` names, or None."""
        if self.summary is None:
            return None
        if isinstance(target, tuple):
            if class_name and class_name in self.summary.classes:
                return self.summary.classes[class_name].methods.get(target[1])
            return None
        prefix = self.summary.name + "."
        if target.startswith(prefix):
            rest = target[len(prefix):].split(".")
            if len(rest) == 1:
                return self.summary.functions.get(rest[0])
            if len(rest) == 2 and rest[0] in self.summary.classes:
                return self.summary.classes[rest[0]].methods.get(rest[1])
        return None

    def _other_return(self, target) -> Kind:
        """What calling ``target``, no def of this module, returns: a project class's instance
        (a Cell or not), an installed package's callable's result, else unknown."""
        if self.summary is None or not isinstance(target, str) or self.index is None:
            return Kind.UNKNOWN
        res = self.index.resolve(target)
        if res and res[0] == "class":  # `Inner()` in graph code: a Cell built there is a Cell
            return self._resolve_ctor(target)
        if res is None:  # an installed package's function or Cell
            return installed.call_kind(self.index, target, self.source.path)
        return Kind.UNKNOWN

    def _deps_hold(self, deps: Sequence[tuple]) -> bool:
        """Whether what a scope's value pass read of the helpers it calls (``_helper_returns``'s
        ``rec``) is unchanged: each same-module helper's text (and, through its own record,
        those it calls), each other callee's return kind."""
        for dep in deps:
            tag = dep[0]
            if tag == "def":
                fs = self._helper_def(dep[1], dep[2])
                if fs is None or fs.qualname != dep[3] or fs.lineno not in self._funcs \
                        or self.source.segment(self._funcs[fs.lineno]) != dep[4]:
                    return False
            elif tag == "call":
                fs = self._helper_def(dep[1], dep[2])
                if fs is not None and fs.lineno in self._funcs:
                    return False
                if (self._other_return(dep[2]) if fs is None else Kind.UNKNOWN) is not dep[3]:
                    return False
            else:
                return False
        return True

    def _ask_returns(self, deps: Sequence[tuple]) -> None:
        """Ask the helpers' return kinds a recorded value pass asked (``deps``), in its order: a
        helper's return is computed once, with the hints it has then, so a replay asks first."""
        for dep in deps:
            if dep[0] in ("def", "call"):
                self._helper_returns(dep[1], [])(dep[2])

    def _values_for(self, func: ast.AST, class_name: Optional[str], qualname: str, is_root: bool,
                    enclosing: Tuple[int, ...] = (), rec: Optional[list] = None) -> ScopeValues:
        """The value pass of ``func``. ``rec`` (editors): where to record what the answers of
        ``_helper_returns`` depended on (a list; ``self._recs`` keeps it by the pass's id)."""
        if self._consts is None:
            self._consts = _module_consts(self.source.tree)
        consts = self._consts
        if enclosing:
            consts = dict(consts)
            for line in enclosing:
                outer = self._funcs.get(line)
                if outer is not None:
                    if line not in self._closures:  # one pass per enclosing function, shared by its scopes
                        self._closures[line] = closure_kinds(outer)
                    consts.update(self._closures[line])
        hints = self._hints.get(qualname)
        key = self._values_key(qualname, is_root, enclosing)
        cached = self._prepass.pop(qualname, None)
        if cached is not None and cached[0] == key:
            if rec is not None:
                rec.extend(self._recs.get(id(cached[1]), (("cut",),)))
            return cached[1]  # computed for the call-site pass with the same parameter kinds
        if rec is None and self.scope_cache is not None:
            rec = []
        values = ScopeValues(func, self.summary.imports if self.summary else None, self.summary,
                             self.class_info(class_name), hints, is_root=is_root,
                             module_consts=consts, helper_returns=self._helper_returns(class_name, rec),
                             from_callers=self._from_callers.get(qualname, frozenset()),
                             param_dtypes=self._dtypes.get(qualname), param_pytypes=self._pytypes.get(qualname),
                             mappings=self._mappings_of(func) if is_root else None)
        if rec is not None:
            self._recs[id(values)] = rec
        return values

    def _mappings_of(self, func: ast.AST) -> frozenset:
        """``values.double_starred_names`` of ``func``, once per def, searching only the
        statements on lines whose text holds ``**``."""
        found = self._mappings.get(id(func))
        if found is None:
            # (a _TreeSource has no text: every statement is searched)
            found = self._mappings[id(func)] = double_starred_names(func, self._starred_lines())
        return found

    def _starred_lines(self) -> Optional[List[int]]:
        """The numbers of the lines of this file whose text holds ``**``."""
        if not hasattr(self, "_starred"):
            lines = getattr(self.source, "lines", None)
            self._starred = None if lines is None else [i for i, line in enumerate(lines, 1) if "**" in line]
        return self._starred

    def _values_key(self, qualname: str, is_root: bool, enclosing: Tuple[int, ...]) -> tuple:
        hints = self._hints.get(qualname)
        return (is_root, enclosing, tuple(sorted((k, v.value) for k, v in (hints or {}).items())),
                tuple(sorted((self._dtypes.get(qualname) or {}).items())),
                tuple(sorted((self._pytypes.get(qualname) or {}).items())))

    def _caller_kinds(self, tree: ast.Module) -> None:
        """Parameter kinds of this module's graph entries from the calls the module makes
        (paramkinds.py): a training loop feeding dataset columns, a parent Cell passing a flag."""
        if self.summary is None:
            return
        targets: List[Tuple[str, str, ast.AST]] = []
        graph_funcs: Dict[int, Tuple[str, Optional[str]]] = {}
        by_name: Dict[str, GraphScope] = {}
        for scope in self.scopes:
            func = self._funcs.get(scope.lineno)
            if func is None:
                continue
            graph_funcs[id(func)] = (scope.qualname, scope.class_key)
            by_name[scope.qualname] = scope
            if scope.chain:
                continue
            if scope.kind == "construct" and scope.class_name and func.name == "construct":
                targets.append((scope.class_name, scope.qualname, func))
            elif scope.kind == "jit" and not scope.class_name:
                targets.append((func.name, scope.qualname, func))
        if not targets:
            return

        signature = None
        if self.scope_cache is not None:  # what the targets take: how many arguments a call binds
            signature = tuple(sorted((k, q, tuple(_params_of(f)), tuple(a.arg for a in f.args.kwonlyargs))
                                     for k, q, f in targets))

        def values_key(func, class_key, qualname, vkey=None):
            """Editors: the key under which the kinds this caller's value pass gave the arguments
            of its calls are kept: its text, its class, the module's constants and names, the
            targets (and, checked apart, the helpers the pass called); None elsewhere. ``vkey``:
            the pass's own ``_values_key``, when the caller has it."""
            if signature is None:
                return None
            scope = by_name[qualname]
            if vkey is None:
                vkey = self._values_key(qualname, not scope.chain, scope.enclosing)
            return ("callers", qualname, self.source.segment(func),
                    self._class_key(class_key, self.class_info(class_key)), self._consts_key(scope.enclosing),
                    self._names_key, vkey, signature)

        def values_for(func, class_key, qualname):
            scope = by_name[qualname]
            vkey = self._values_key(qualname, not scope.chain, scope.enclosing)
            key = values_key(func, class_key, qualname, vkey)
            if key is not None:
                kept = self.scope_cache.get(key)
                if kept is not None and self._deps_hold(kept[0]):
                    self._ask_returns(kept[0])  # the helpers' return kinds, in the order a value pass asks
                    return _KeptKinds(kept[1], func, kept[2],
                                      lambda: self._values_for(func, class_key, qualname, not scope.chain,
                                                               scope.enclosing))
            v = self._values_for(func, class_key, qualname, not scope.chain, scope.enclosing)
            self._prepass[qualname] = (vkey, v)
            if key is None:
                return v
            rec = self._recs.get(id(v))
            if rec is None:
                return v
            log = _LoggedKinds(v, func)
            # the live record, as log.kinds is: the kinds CallerKinds asks after the pass (an
            # argument the pass itself never needed, `pick(x)`) read helpers too, and those
            # reads are deps of the kept answers (a snapshot taken here missed them: an edit of
            # `pick` left the callee's hints stale)
            self._keep(key, (rec, log.kinds, v.from_callers))
            return log

        def self_attrs(class_name):
            cls = self.summary.classes.get(class_name) if class_name else None
            return cls.attrs if cls is not None else {}

        funcs = {scope.qualname: self._funcs[scope.lineno] for scope in self.scopes if scope.lineno in self._funcs} \
            if signature is not None else None
        callers = CallerKinds(tree, self.summary.name, self.summary.imports, targets, graph_funcs,
                              values_for, self_attrs, incoming(self.index, self.summary.path),
                              memo=self.scope_cache if signature is not None else None,
                              values_key=values_key if signature is not None else None, funcs=funcs)
        found = callers.run(self.source.text)
        for qualname, hints in found.items():
            if hints and qualname not in self._hints:
                self._hints[qualname] = dict(hints)
                self._from_callers[qualname] = frozenset(hints)
        for qualname, dtypes in callers.dtypes.items():
            if dtypes:
                self._dtypes[qualname] = dtypes
        for qualname, pytypes in callers.pytypes.items():
            if pytypes:
                self._pytypes[qualname] = pytypes

    def _record_hints(self, func: ast.AST, values: ScopeValues, scope: GraphScope, local_helpers: Dict[str, ast.AST],
                      log: Optional[list] = None) -> None:
        """The kinds this scope passes to the module's graph helpers it calls, merged into their
        hints; ``log`` (editors) receives each call's (helper, its parameters, the kinds bound),
        for ``_replay_hints``."""
        guarded = None  # computed on the first call of a local helper: most scopes make none
        for node in _walk_no_ctx(func):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            target_q = None
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and scope.class_key:
                target_q = f"{self.summary.name}.{scope.class_key}.{f.attr}"
            elif isinstance(f, ast.Name) and self.summary is not None:
                target_q = f"{self.summary.name}.{f.id}"
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) and scope.class_key \
                    and isinstance(f.value.value, ast.Name) and f.value.value.id == "self":
                target_q = self._attr_method_qualname(scope.class_key, f.value.attr, f.attr)
            if target_q not in local_helpers:
                continue
            if guarded is None:
                guarded = string_dispatched(func, values)
            if id(node) in guarded:
                continue
            params = _hint_params(local_helpers[target_q])
            hints = self._hints.setdefault(target_q, {})
            bound = []
            for pname, arg in zip(params, node.args):
                k = values.kind(arg)
                bound.append((pname, k))
                hints[pname] = k if pname not in hints else merge(hints[pname], k)
            for kw in node.keywords:
                if kw.arg in params:
                    k = values.kind(kw.value)
                    bound.append((kw.arg, k))
                    hints[kw.arg] = k if kw.arg not in hints else merge(hints[kw.arg], k)
            if log is not None:
                log.append((target_q, tuple(params), tuple(bound)))

    def _replay_hints(self, kept, local_helpers: Dict[str, ast.AST]) -> bool:
        """Merge the hints an earlier run of a scope gave the module's graph helpers (``kept``:
        the graph helpers then, the log of ``_record_hints``) while the same functions are graph
        helpers and each called one takes the same parameters; False (nothing merged) otherwise."""
        if kept is None or kept[0] != frozenset(local_helpers):
            return False
        if any(tuple(_hint_params(local_helpers[target_q])) != params for target_q, params, _bound in kept[1]):
            return False
        for target_q, _params, bound in kept[1]:
            hints = self._hints.setdefault(target_q, {})
            for pname, k in bound:
                hints[pname] = k if pname not in hints else merge(hints[pname], k)
        return True

    def _attr_method_qualname(self, class_key: str, attr: str, method: str) -> Optional[str]:
        """``self.<attr>.<method>``: the qualname of the method of the object ``__init__`` stored."""
        if self.index is None or self.cells is None or self.summary is None or class_key not in self.summary.classes:
            return None
        target = _attr_method(self.index, self.cells, self.summary.classes[class_key], f"{attr}.{method}")
        return target[0].qualname if target else None

    def _hints_from_other_module(self, scope: GraphScope, func: ast.AST) -> None:
        """Parameter kinds of a helper called directly from a graph root in another module:
        the kinds of the arguments at that call (``root_site``), from one value pass over the
        calling root. Same-file callers are handled by ``_record_hints``."""
        if self.index is None or scope.root_site is None or len(scope.chain) != 1 or scope.qualname in self._hints:
            return
        rpath, rline, rcol, rq = scope.root_site
        if self.summary is not None and os.path.abspath(rpath) == os.path.abspath(self.summary.path):
            return
        res = self.index.resolve(rq)
        if not res or res[0] not in ("function", "method"):
            return
        fs, mod = res[1], res[2]
        tree = self.index._tree_for(mod.path)
        root = find_function(tree, fs.lineno) if tree is not None else None
        if root is None:
            return
        # `helper(x).sum()`: the outer call starts where the helper call does; the helper call is the innermost
        calls = [n for n in _walk_no_ctx(root) if isinstance(n, ast.Call) and n.lineno == rline and n.col_offset == rcol]
        call = min(calls, key=lambda n: (n.end_lineno or 0, n.end_col_offset or 0)) if calls else None
        if call is None:
            return
        # editors: the hints kept from an earlier run while the calling root's text, what its names
        # mean and the helpers its value pass called are unchanged (``_deps_hold``)
        src = self.index.source_of(mod.path) if self.scope_cache is not None else None
        if src is not None and getattr(src, "_tree", None) is not tree \
                and os.path.abspath(mod.path) not in (self.index.buffers or ()):
            src = None  # (a buffer's text is the same for the whole run, whichever SourceFile holds it)
        other = ModuleEngine(_TreeSource(tree, mod.path, src), mod, self.index, (), self.dispatch, self.target,
                             self.cells)
        other._index_defs(tree)
        try:
            key = None
            if src is not None:
                key = ("hints", scope.qualname, self.source.segment(func), rq, rline - root.lineno, rcol,
                       src.segment(root), other._class_key(fs.class_name, other.class_info(fs.class_name)),
                       other._consts_key(fs.enclosing), _module_names(mod))
                kept = self.scope_cache.get(key)
                if kept is not None and other._deps_hold(kept[0]):
                    if kept[1] is not None:
                        self._hints[scope.qualname] = dict(kept[1])
                    return
            rec: Optional[list] = [] if key is not None else None
            self._hints_at(scope, func, root, call, other._values_for(root, fs.class_name, fs.qualname,
                                                                       is_root=True, enclosing=fs.enclosing, rec=rec))
            if key is not None:
                got = self._hints.get(scope.qualname)
                self._keep(key, (tuple(dict.fromkeys(rec)), dict(got) if got is not None else None))
        finally:
            other.release()

    def _hints_at(self, scope: GraphScope, func: ast.AST, root: ast.AST, call: ast.Call, values: ScopeValues) -> None:
        """The kinds ``call`` (in the calling root ``root``, whose ``values`` are given) passes to the helper."""
        if id(call) in string_dispatched(root, values):
            return
        params = [a.arg for a in func.args.args]  # type: ignore[attr-defined]
        if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
            params = params[1:]
        hints: Dict[str, Kind] = {}
        for pname, arg in zip(params, call.args):
            if isinstance(arg, ast.Starred):
                break
            hints[pname] = values.kind(arg)
        for kw in call.keywords:
            if kw.arg in params:
                hints[kw.arg] = values.kind(kw.value)
        self._hints[scope.qualname] = hints

    # per-scope reuse for editors ----------------------------------------------------
    def _scope_key(self, scope: GraphScope, func: ast.AST, d: "Dispatch"):
        """What a scope's findings depend on: its own text, how it was reached, its class's
        attribute kinds, the kinds its parameters get from callers, and the active rules."""
        info = self.class_info(scope.class_key)
        attrs = self._class_key(scope.class_key, info)
        hints = tuple(sorted((k, v.value) for k, v in (self._hints.get(scope.qualname) or {}).items()))
        hints += tuple(sorted((self._dtypes.get(scope.qualname) or {}).items()))
        hints += tuple(sorted(("py:" + k, v) for k, v in (self._pytypes.get(scope.qualname) or {}).items()))
        rules = d.__dict__.get("_graph_rule_ids")
        if rules is None:  # once per dispatch table, not per scope
            rules = d._graph_rule_ids = tuple(sorted({id(r) for handlers in d.graph.values() for r, _ in handlers}
                                                     | {id(r) for r in d.graph_leave}))
        entry = self._entry_key(func) if not scope.chain else None
        return (scope.qualname, scope.chain, scope.capture_mode, scope.root_site and scope.root_site[1:], self.source.segment(func),
                attrs, hints, rules, self.target, entry, self._consts_key(scope.enclosing), self._names_key)

    def _class_key(self, class_key: Optional[str], info: Optional[ClassInfo]) -> tuple:
        """For the scope key: a class's attribute kinds as written, what each ``self.x = Ctor(...)``
        builds (a Cell or not, from the index: a base in another file can change it), whether
        the class is a Cell and its methods (``self.f`` is a function)."""
        if info is None:
            return ()
        got = self._class_keys.get(class_key)
        if got is None:
            built = tuple(sorted((name, self._resolve_ctor(raw[5:]).value) for name, raw in info.attrs.items()
                                 if raw.startswith("call:")))
            got = self._class_keys[class_key] = (tuple(sorted(info.attrs.items())), built, info.is_cell,
                                                 tuple(sorted(info.methods)))
        return got

    def _consts_key(self, enclosing: Tuple[int, ...]) -> tuple:
        """The kinds a scope's value pass reads from outside it: the module's constants
        (``LIMIT = [1, 2]`` is a Python list in graph code, ``LIMIT = None`` is not) and
        the names its enclosing functions bind."""
        if self._consts is None:
            self._consts = _module_consts(self.source.tree)
        got = self.__dict__.get("_consts_tuple")
        if got is None:
            got = self._consts_tuple = tuple(sorted((k, v.value) for k, v in self._consts.items()))
        if not enclosing:
            return got
        outer = []
        for line in enclosing:
            func = self._funcs.get(line)
            if func is not None:
                if line not in self._closures:
                    self._closures[line] = closure_kinds(func)
                outer.append(tuple(sorted((k, v.value) for k, v in self._closures[line].items())))
        return got, tuple(outer)

    def _remember(self, key, base_line: int, produced, deps: Optional[Sequence[tuple]] = None,
                  hint_log=None) -> None:
        """Keep ``produced`` under ``key``, lines relative to ``base_line``; a scope's entry also
        keeps ``deps`` (what its helper lookups read), checked before it is replayed, and what
        it passed the module's graph helpers (``hint_log``, for ``_replay_hints``)."""
        entries = [(f.with_(line=f.line - base_line, end_line=None if f.end_line is None else f.end_line - base_line,
                               fix=_shift_fix(f.fix, -base_line), source_line=None,
                               alternatives=_shift_fixes(f.alternatives, -base_line)), rule)
                   for f, _scope, rule in produced]
        self._keep(key, entries if deps is None else (tuple(dict.fromkeys(deps)), entries, hint_log))

    def _keep(self, key, value) -> None:
        """``scope_cache[key] = value``, the cache bounded (cleared past 4096 entries)."""
        if len(self.scope_cache) > 4096:
            self.scope_cache.clear()
        self.scope_cache[key] = value

    def _reusable(self, key):
        """What was kept for a scope's ``key`` (deps, findings, hint log) whose helper lookups
        still read the same, or None."""
        if key is None:
            return None
        got = self.scope_cache.get(key)
        if got is None or not self._deps_hold(got[0]):
            return None
        return got

    def _replay(self, entries, base_line: int, scope: GraphScope) -> None:
        for f, rule in entries:
            line = f.line + base_line
            self.findings.append((f.with_(line=line, end_line=None if f.end_line is None else f.end_line + base_line,
                                          fix=_shift_fix(f.fix, base_line), source_line=self.source.line(line),
                                          alternatives=_shift_fixes(f.alternatives, base_line)),
                                  scope, rule))

    # the walk -------------------------------------------------------------------
    def run(self, ctx: RuleContext) -> None:
        tree = self.source.tree
        d = self.dispatch.for_text(self.source.text)
        if d.graph or d.graph_leave:
            if self.scope_cache is not None:
                self._names_key = (_module_names(self.summary), tuple(sorted(ctx.patched_mindspore)))
            self._index_defs(tree)
            self._caller_kinds(tree)
            ctx._python_inputs = self._python_inputs
            ordered = sorted(self.scopes, key=lambda s: (len(s.chain), s.lineno))
            local = {s.qualname: self._funcs[s.lineno] for s in ordered if s.lineno in self._funcs and s.chain}
            for scope in ordered:
                func = self._funcs.get(scope.lineno)
                if func is None:
                    continue
                if scope.chain and scope.qualname not in self._hints:
                    self._hints_from_other_module(scope, func)
                key = self._scope_key(scope, func, d) if self.scope_cache is not None else None
                kept = self._reusable(key)
                if kept is not None and not local:
                    self._replay(kept[1], func.lineno, scope)  # nothing else needs its kinds
                    continue
                if kept is not None:
                    # the helpers' return kinds first, in the order this scope's value pass asked
                    # them (a helper's return is computed once, with the hints it has then)
                    self._ask_returns(kept[0])
                    if self._replay_hints(kept[2], local):  # what it passes the graph helpers it calls
                        self._replay(kept[1], func.lineno, scope)
                        continue
                values = self._values_for(func, scope.class_key, scope.qualname, is_root=not scope.chain,
                                          enclosing=scope.enclosing)
                log: Optional[list] = [] if key is not None and local else None
                if local:
                    self._record_hints(func, values, scope, local, log)
                ctx.scope, ctx.values, ctx.class_info = scope, values, self.class_info(scope.class_key)
                ctx.func = func
                if kept is not None:
                    self._replay(kept[1], func.lineno, scope)
                    deps = self._recs.get(id(values))
                    if deps is not None and log is not None:
                        self._keep(key, (tuple(dict.fromkeys(tuple(kept[0]) + tuple(deps))), kept[1],
                                         (frozenset(local), tuple(log))))
                    continue
                first = len(self.findings)
                dm = d.for_capture(scope.capture_mode)
                _dispatch(func, dm.graph, ctx)
                for rule in dm.graph_leave:
                    ctx.rule = rule
                    rule.leave_scope(scope, ctx)
                deps = self._recs.get(id(values))
                if key is not None and deps is not None:
                    self._remember(key, func.lineno, self.findings[first:], deps,
                                   (frozenset(local), tuple(log)) if log is not None else None)
            if self.summary is not None and self.summary.pynative_only:
                self._pynative_scopes(d, ctx)
        ctx.scope = ctx.values = ctx.class_info = ctx.func = None
        if d.module_checks and (d.graph or d.graph_leave):
            ctx.graph_scopes = [(s, self._funcs[s.lineno]) for s in self.scopes if s.lineno in self._funcs]
        table, checks = d.module, d.module_checks
        if self.scope_cache is not None and tree.body:  # an editor: statement-local rules per statement
            table, checks, local_table, local_checks = _split_statement_local(d)
            if local_table or local_checks:
                self._statement_rules(tree, ctx, local_table, local_checks)
        if table:
            _dispatch(tree, table, ctx, lazy_parents=True)
        for rule in checks:
            ctx.rule = rule
            rule.check_module(ctx)

    def _pynative_scopes(self, d: "Dispatch", ctx: RuleContext) -> None:
        """The Cell methods and functions of a PyNative-only module, walked by the rules whose
        claim holds in every mode (``Rule.modes``), each as a root with its own value pass, made
        when a rule first asks for a kind (``_LazyValues``: MSG503 asks only at a call of a
        method the target's Tensor lacks; mindformers' 77 PyNative-only modules cost 0.25 s CPU
        with a pass per function)."""
        dp = d.for_pynative()
        if not (dp.graph or dp.graph_leave):
            return
        for scope in pynative_scopes(self.summary, self.cells, frozenset(s.qualname for s in self.scopes)):
            func = self._funcs.get(scope.lineno)
            if func is None:
                continue
            values = _LazyValues(func, lambda f=func, s=scope: self._values_for(f, s.class_key, s.qualname, is_root=True,
                                                                               enclosing=s.enclosing))
            ctx.scope, ctx.values, ctx.class_info, ctx.func = scope, values, self.class_info(scope.class_key), func
            _dispatch(func, dp.graph, ctx)
            for rule in dp.graph_leave:
                ctx.rule = rule
                rule.leave_scope(scope, ctx)

    # module-scope rules per top-level statement, for editors ------------------------
    def _statement_rules(self, tree: ast.Module, ctx: RuleContext, table: dict, checks: list) -> None:
        """The statement-local module-scope rules (``STATEMENT_LOCAL``), with their findings in
        each top-level ``def``/``class`` reused while its key is unchanged: its text (from its
        first decorator), the spans of the graph scopes in it, and for the whole module its
        import map, the MindSpore names the project rebinds, the text of every other top-level
        statement and the names of the defs and classes (a name at module level reads their
        bindings), the target and the active rules. Every other statement is checked at each
        run. Check-module rules see a module of the statements to check, the reused defs and
        classes stood in by empty ones of the same name (what a module-level binding reads)."""
        units = _units(tree)
        lines = self.source.lines
        spans = sorted((f.lineno, f.end_lineno or f.lineno) for _, f in ctx.graph_scopes)
        rules = tuple(sorted({id(r) for handlers in table.values() for r, _ in handlers} | {id(r) for r in checks}))
        imports = tuple(sorted(ctx.imports.names.items())) if ctx.imports is not None else ()
        module = tuple("\n".join(lines[u[0] - 1:u[1]]) if not u[3] else tuple(s.name for s in u[2]) for u in units)
        shared = (rules, imports, tuple(sorted(ctx.patched_mindspore)), self.target, module)
        cache = self.scope_cache
        todo, keys, stubs = [], {}, {}
        for u in units:
            start, end, stmts, reusable = u
            if reusable:
                key = ("statement", "\n".join(lines[start - 1:end]),
                       tuple((a - start, b - start) for a, b in spans if start <= a <= end), shared)
                hit = cache.get(key)
                if hit is not None:
                    self._replay(hit, start, None)
                    stubs.update((id(s), _stub(s)) for s in stmts)
                    continue
                keys[len(todo)] = key
            todo.append(u)
        if not todo:
            return
        rest = None
        if not keys:
            # every def and class reused: what the rules find in the other statements depends on
            # their texts (in ``shared``), the graph-scope spans in them and the defs' names only
            rest = ("statement-rest", shared,
                    tuple(tuple((a - u[0], b - u[0]) for a, b in spans if u[0] <= a <= u[1]) for u in todo))
            if cache.get(rest) == len(todo):
                kept = [cache.get((rest, i)) for i in range(len(todo))]
                if all(k is not None for k in kept):
                    for u, entries in zip(todo, kept):
                        self._replay(entries, u[0], None)
                    return
        first = len(self.findings)
        if table:
            ctx._parents = parents = {}
            for u in todo:
                for stmt in u[2]:
                    parents[id(stmt)] = tree
                    _visit_walk(stmt, table, ctx, parents)
        if checks:
            view = ast.Module(body=[stubs.get(id(s), s) for s in tree.body], type_ignores=[])
            real = ctx.source
            ctx.source = _ModuleView(real, view)
            try:
                for rule in checks:
                    ctx.rule = rule
                    rule.check_module(ctx)
            finally:
                ctx.source = real
        if not keys and rest is None:
            return
        produced = self.findings[first:]
        buckets: Dict[int, list] = {i: [] for i in (keys if rest is None else range(len(todo)))}
        starts = [u[0] for u in todo]
        import bisect
        for item in produced:
            f = item[0]
            i = bisect.bisect_right(starts, f.line) - 1
            if i < 0 or not _within(f, todo[i][0], todo[i][1]):
                return  # a finding outside the statement it came from: remember nothing
            if i in buckets:
                buckets[i].append(item)
        if rest is not None:
            for i in range(len(todo)):
                self._remember((rest, i), todo[i][0], buckets[i])
            cache[rest] = len(todo)
            return
        for i, key in keys.items():
            self._remember(key, todo[i][0], buckets[i])


# Module-scope rules whose findings in a top-level statement depend only on that statement,
# the module's import map (``ctx.qualname``, ``ctx.imports``), the MindSpore names the project
# rebinds, the target's catalog, the spans of graph scopes in it and, for a name read at
# module level, the module's top-level bindings (audited for issue 25; a rule may also say
# ``statement_local = True``/``False`` itself). MSG511 is not (a primitive configured anywhere
# in the module), nor MSG615/MSG616 (whole-script facts), MSG108's and MSG508's check_module
# (graph scopes and their callers).
STATEMENT_LOCAL = frozenset({"MSG504", "MSG510", "MSG513", "MSG514", "MSG621"})


def _is_statement_local(rule) -> bool:
    own = getattr(rule, "statement_local", None)
    return own if own is not None else getattr(rule, "code", None) in STATEMENT_LOCAL


def _split_statement_local(d: "Dispatch"):
    """(module table, module checks) of the other rules, then of the statement-local ones."""
    got = d.__dict__.get("_statement_split")
    if got is None:
        rest = {k: [h for h in v if not _is_statement_local(h[0])] for k, v in d.module.items()}
        local = {k: [h for h in v if _is_statement_local(h[0])] for k, v in d.module.items()}
        got = ({k: v for k, v in rest.items() if v}, [r for r in d.module_checks if not _is_statement_local(r)],
               {k: v for k, v in local.items() if v}, [r for r in d.module_checks if _is_statement_local(r)])
        d._statement_split = got
    return got


def _units(tree: ast.Module) -> list:
    """Top-level statements as (first line, last line, statements, reusable): a ``def`` or
    ``class`` from its first decorator; statements sharing a line are one unit, not reused."""
    units: list = []
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for stmt in tree.body:
        start = min([stmt.lineno] + [x.lineno for x in getattr(stmt, "decorator_list", ())])
        end = stmt.end_lineno or stmt.lineno
        if units and start <= units[-1][1]:
            s0, e0, stmts, _ = units[-1]
            units[-1] = (s0, max(e0, end), stmts + [stmt], False)
        else:
            units.append((start, end, [stmt], isinstance(stmt, defs)))
    return units


def _stub(stmt: ast.stmt) -> ast.stmt:
    """An empty def or class of ``stmt``'s name, where it stands."""
    if isinstance(stmt, ast.ClassDef):
        node = ast.ClassDef(name=stmt.name, bases=[], keywords=[], body=[ast.Pass()], decorator_list=[])
    else:
        node = type(stmt)(name=stmt.name, args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                                            kw_defaults=[], kwarg=None, defaults=[]),
                          body=[ast.Pass()], decorator_list=[], returns=None)
    return ast.copy_location(node, stmt)


def _within(f: Finding, start: int, end: int) -> bool:
    """The finding, its end, its fixes' edits and alternatives all lie in lines start..end."""
    if not (start <= f.line <= end) or (f.end_line is not None and not (start <= f.end_line <= end)):
        return False
    for fix in ((f.fix,) if f.fix is not None else ()) + tuple(f.alternatives or ()):
        if any(not (start <= e.line <= end and start <= e.end_line <= end) for e in fix.edits):
            return False
        cm = fix.codemod
        if cm is not None and not (start <= cm.line <= end and start <= cm.end_line <= end):
            return False
    return True


class _LazyValues:
    """A scope's value pass (``ScopeValues``), computed on the first attribute a rule reads
    other than ``func``, then standing for it."""

    __slots__ = ("func", "_make", "_values")

    def __init__(self, func: ast.AST, make) -> None:
        self.func = func
        self._make = make
        self._values: Optional[ScopeValues] = None

    def __getattr__(self, name):
        values = self._values
        if values is None:
            values = self._values = self._make()
        return getattr(values, name)


class _ModuleView:
    """The file as a check-module rule sees it, with ``tree`` a module of some of its statements."""

    def __init__(self, source, tree: ast.Module) -> None:
        self.__dict__["_source"] = source
        self.__dict__["tree"] = tree

    def __getattr__(self, name):
        return getattr(self._source, name)


def _dispatch(root: ast.AST, table: dict, ctx: RuleContext, lazy_parents: bool = False) -> None:
    """Walk ``root`` in source order and hand each node to the rules registered for its type.
    A table of statement types only (a module's ``ClassDef`` rules) walks the statements alone
    (:func:`walk_statements_with_parents`); a rule asking for an expression's parent gets the
    answer the full walk gives at that point from :class:`_LazyParents`. ``lazy_parents``
    (the module-scope walk, where a rule seldom asks: 10 of mindformers' 430 files): the full
    walk records no parents either, and :class:`_LazyParents` answers a question as the
    recorded map would (~30 % of the walk's time saved)."""
    if all(t in _STATEMENT_TYPES for t in table):
        ctx._parents = parents = _LazyParents(root)
        for node in _walk_statements_with_parents(root, parents):
            handlers = table.get(type(node))
            if handlers:
                parents.at = node
                for rule, visit in handlers:
                    ctx.rule = rule
                    visit(node, ctx)
        parents.at = None
        return
    if lazy_parents and not any(issubclass(t, _SHARED_TYPES) for t in table):
        ctx._parents = lazy = _LazyParents(root)
        _visit_walk(root, table, ctx, lazy, lazy=True)
        lazy.at = None
        return
    ctx._parents = parents = {}
    _visit_walk(root, table, ctx, parents)


def _visit_walk(root: ast.AST, table: dict, ctx: RuleContext, parents: dict, lazy: bool = False) -> None:
    """Hand every node under ``root`` (source order) to the rules ``table`` registers for its
    type, recording ``parents`` as :func:`walk_with_parents` (or, with no ``Load``/``Store``/
    ``Del`` type in the table, :func:`walk_with_parents_no_ctx`) would. ``lazy`` (no such type
    in the table; ``parents`` a :class:`_LazyParents` of ``root``): nothing is recorded, and
    ``parents.at`` is each node whose rules run."""
    if any(t in table for t in _CTX_TYPES):
        for node in _walk_with_parents(root, parents):
            handlers = table.get(type(node))
            if handlers:
                for rule, visit in handlers:
                    ctx.rule = rule
                    visit(node, ctx)
        return
    # walk_with_parents_no_ctx inlined (no generator resumed per node): each node is visited
    # before its children's parents are recorded, as the generator's consumer sees them
    stack = [root]
    pop, extend = stack.pop, stack.extend
    fields_of = _NO_CTX_FIELDS
    get = table.get
    AST = ast.AST
    while stack:
        node = pop()
        cls = node.__class__
        handlers = get(cls)
        if handlers:
            if lazy:
                parents.at = node  # type: ignore[attr-defined]
            for rule, visit in handlers:
                ctx.rule = rule
                visit(node, ctx)
        fields = fields_of.get(cls)
        if fields is None:
            fields = _node_fields(cls)
        if not fields:
            continue
        kids: list = []
        add = kids.append
        for name in fields:
            v = getattr(node, name, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, AST):
                        add(x)
            elif isinstance(v, AST):
                add(v)
        if not lazy:
            for child in kids:
                parents[id(child)] = node
        kids.reverse()
        extend(kids)


def string_dispatched(func: ast.AST, values: ScopeValues) -> set:
    """Ids of the nodes in branches selected by comparing a compile-time value with a string
    literal (`if output_type == "np":`). MindSpore folds the test and compiles only the
    configured branch, so calls there do not give their helpers parameter kinds (measured:
    a diffusers-style `"np"` branch costs 9 PyExecute nodes with `output_type="np"`, none
    with `"ms"`)."""
    out: set = set()
    for node in _walk_no_ctx(func):
        if isinstance(node, (ast.If, ast.IfExp)) and _string_test(node.test, values):
            for part in (node.body, node.orelse):
                for stmt in (part if isinstance(part, list) else [part]):
                    out.update(id(n) for n in _walk(stmt))
    return out


def _string_test(test: ast.AST, values: ScopeValues) -> bool:
    for n in _walk(test):
        if isinstance(n, ast.Compare):
            sides = [n.left] + list(n.comparators)
            strs = [e for e in sides if (isinstance(e, ast.Constant) and isinstance(e.value, str))
                    or (isinstance(e, (ast.Tuple, ast.List, ast.Set)) and e.elts
                        and all(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in e.elts))]
            others = [e for e in sides if e not in strs]
            if strs and others and all(values.kind(e).constant for e in others):
                return True
    return False


def _hint_params(callee: ast.AST) -> List[str]:
    """The parameters ``_record_hints`` binds a call's arguments to (positional ones, without
    ``self``/``cls``), and ``_replay_hints`` compares."""
    params = [a.arg for a in callee.args.args]  # type: ignore[attr-defined]
    return params[1:] if params and params[0] in ("self", "cls") else params


def _params_of(func: ast.AST) -> List[str]:
    args = func.args  # type: ignore[attr-defined]
    names = [a.arg for a in list(getattr(args, "posonlyargs", [])) + list(args.args)]
    return names[1:] if names and names[0] in ("self", "cls") else names


def _place(node: ast.AST, func: ast.AST) -> tuple:
    """Where ``node`` is in ``func``, lines relative to the def's: the same in every copy of its text."""
    base = func.lineno  # type: ignore[attr-defined]
    return (type(node).__name__, node.lineno - base, node.col_offset,  # type: ignore[attr-defined]
            (node.end_lineno or node.lineno) - base, node.end_col_offset)  # type: ignore[attr-defined]


class _LoggedKinds:
    """A caller's ScopeValues as ``CallerKinds`` asks it (``kind``, ``from_callers``), noting
    each answer by the node's place in the caller (``_place``), for ``_KeptKinds``."""

    def __init__(self, values: ScopeValues, func: ast.AST) -> None:
        self.values, self.func = values, func
        self.from_callers = values.from_callers
        self.kinds: Dict[tuple, Kind] = {}

    def kind(self, node: ast.AST) -> Kind:
        k = self.values.kind(node)
        self.kinds[_place(node, self.func)] = k
        return k


class _KeptKinds:
    """The answers a ``_LoggedKinds`` noted in an earlier run of the same caller text; a node
    not asked then gets the caller's value pass after all (``compute``)."""

    kept = True  # (CallerKinds replays a def's recorded sites only over kept answers)

    def __init__(self, kinds: Dict[tuple, Kind], func: ast.AST, from_callers: frozenset, compute) -> None:
        self._kinds, self.func, self.from_callers = kinds, func, from_callers
        self._compute, self._values = compute, None

    def kind(self, node: ast.AST) -> Kind:
        k = self._kinds.get(_place(node, self.func))
        if k is None:
            if self._values is None:
                self._values = self._compute()
            k = self._values.kind(node)
        return k


def _module_defs(tree: ast.Module, nested: bool) -> Tuple[Dict[int, ast.AST], Dict[str, ast.ClassDef]]:
    funcs: Dict[int, ast.AST] = dict(all_functions(tree)) if nested else {}
    classes: Dict[str, ast.ClassDef] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            funcs[node.lineno] = node
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = node
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    funcs[item.lineno] = item
    return funcs, classes


def _module_names(summary: Optional[ModuleSummary]) -> tuple:
    """For the reuse keys: what a name in a module's functions can mean, outside them: its import
    map and its top-level function and class names (``Inner()`` reads the module's classes)."""
    if summary is None:
        return ()
    imports = summary.imports
    return (tuple(sorted(imports.names.items())) if imports is not None else (),
            tuple(sorted(summary.functions)), tuple(sorted(summary.classes)))


class _TreeSource:
    """The part of a SourceFile that value analysis of another module needs; ``text``: the
    SourceFile the tree was parsed from, for the texts of its functions (editors' reuse keys)."""

    def __init__(self, tree: ast.Module, path: str, text=None) -> None:
        self.tree = tree
        self.path = path
        self._text = text

    def segment(self, node: ast.AST) -> str:
        if self._text is None:
            raise ValueError("no text to take a segment of")
        return self._text.segment(node)


def _shift_fixes(fixes, delta: int):
    return tuple(_shift_fix(f, delta) for f in fixes) if fixes and delta else fixes


def _shift_fix(fix, delta: int):
    if fix is None or delta == 0:
        return fix
    from dataclasses import replace
    cm = fix.codemod and replace(fix.codemod, line=fix.codemod.line + delta, end_line=fix.codemod.end_line + delta)
    return replace(fix, edits=tuple(replace(e, line=e.line + delta, end_line=e.end_line + delta) for e in fix.edits),
                   codemod=cm)

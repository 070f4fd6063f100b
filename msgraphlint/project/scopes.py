"""Graph-mode scope discovery.

A graph-mode scope is a function MindSpore compiles into a static graph:
``construct`` (and ``bprop``) of every ``mindspore.nn.Cell`` subclass — direct,
through project base classes in other modules, or through MindSpore's own Cells —,
functions decorated with ``jit`` (any spelling, any call form) or wrapped with
``ms.jit(fn)``, and, transitively, the project's own functions and methods those
scopes call. Every scope knows how it was reached (its chain).
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Tuple, Union

from . import installed
from ..infer.catalog import is_mindspore_cell_name
from .index import ClassSummary, FuncSummary, ModuleSummary, ProjectIndex
from ..parse.source import display_path

ROOT_METHODS = ("construct", "bprop")
ExtraBases = Union[FrozenSet[str], Callable[[Optional[str]], FrozenSet[str]]]


@dataclass(frozen=True)
class GraphScope:
    qualname: str                 # pkg.mod.Class.construct
    path: str
    lineno: int                   # line of the def
    kind: str                     # "construct" | "jit" | "helper"
    class_name: Optional[str] = None
    chain: Tuple[str, ...] = ()   # "called from GPTLayer.construct (model.py:84)", outermost first
    root_site: Optional[Tuple[str, int, int, str]] = None  # (path, line, col, root qualname): the call in the root scope
    class_key: Optional[str] = None   # the class's key in its ModuleSummary (`test_x.<locals>.Net` when nested)
    capture_mode: str = "ast"         # how MindSpore captures the root: "ast" (default) or "bytecode" (jit(capture_mode=...))
    enclosing: Tuple[int, ...] = ()   # a nested definition: `def` lines of the enclosing functions, outermost first
    mode: str = "graph"               # "graph", or "pynative": a Cell method or function of a PyNative-only
    #                                   module (pynative_scopes), walked only by rules whose `modes` ask for it

    @property
    def short_name(self) -> str:
        return f"{self.class_name}.{self.qualname.rsplit('.', 1)[-1]}" if self.class_name else self.qualname.rsplit(".", 1)[-1]

    @property
    def nested(self) -> bool:
        """Defined inside a function (a test, a factory): its free names may be the
        enclosing function's values, which MindSpore takes as compile-time constants."""
        return bool(self.enclosing)


@dataclass(frozen=True)
class CallSite:
    """A call in a graph scope that graph mode inlines: a helper, or a sub-Cell
    (``self.block(x)`` where ``__init__`` set ``self.block = Block(...)``) whose
    ``construct`` runs there. ``scopes.discover`` records every one (the scope graph), also
    where the callee was already reached another way; the runner reports each finding of
    the callee at the calls that reach it from other files (MSG004)."""

    line: int
    col: int
    target: str   # qualname of the called scope
    label: str    # the callee as the call spells it: ``mid``, ``self.block``, ``self.norm.scale``


def _plain(class_key: Optional[str]) -> Optional[str]:
    return class_key.rsplit(".", 1)[-1] if class_key else None


def _top_classes(tree) -> Dict[str, list]:
    import ast
    out: Dict[str, list] = {}
    for n in tree.body:
        if isinstance(n, ast.ClassDef):
            out.setdefault(n.name, []).append(n)
    return out


def _all_classes(tree) -> Dict[str, list]:
    import ast
    from ..parse.astutil import statement_defs
    out: Dict[str, list] = {}
    for n in statement_defs(tree):
        if isinstance(n, ast.ClassDef):
            out.setdefault(n.name, []).append(n)
    return out


def class_def_of(tree, scope: "GraphScope"):
    """The ``ClassDef`` of a scope's class in ``tree`` (nested ones included): the class
    with that name whose body defines the scope's function."""
    if not scope.class_name:
        return None
    from ..parse.astutil import per_tree
    candidates = per_tree(tree, "top_classes", _top_classes).get(scope.class_name, [])
    if scope.class_key and "<locals>" in scope.class_key or not candidates:
        candidates = per_tree(tree, "all_classes", _all_classes).get(scope.class_name, [])
    for node in candidates:
        if any(getattr(item, "lineno", None) == scope.lineno for item in node.body):
            return node
    return candidates[0] if candidates else None


class CellResolver:
    """Answers "is this project class a Cell?" with memoisation and cycle guards."""

    def __init__(self, index: ProjectIndex, extra_bases: ExtraBases = frozenset()) -> None:
        self.index = index
        # ``cell-bases``: one set for every module, or a function of a module's path (each
        # file's own configuration, hierarchical config)
        self.extra = extra_bases
        self._memo: Dict[str, bool] = {}
        self._mros: Dict[int, Tuple[ClassSummary, List[ClassSummary]]] = {}

    def _extra_for(self, cls: ClassSummary) -> FrozenSet[str]:
        if not callable(self.extra):
            return self.extra
        parts = cls.qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = self.index.modules.get(".".join(parts[:cut]))
            if mod is not None:
                return self.extra(mod.path)
        return self.extra(None)

    def is_cell(self, cls: ClassSummary, _stack: Tuple[str, ...] = ()) -> bool:
        if cls.qualname in self._memo:
            return self._memo[cls.qualname]
        if cls.qualname in _stack:
            return False
        result = False
        extra = self._extra_for(cls) if cls.bases else frozenset()
        for base in cls.bases:
            if is_mindspore_cell_name(base, extra):
                result = True
                break
            res = self.index.resolve(base)
            if res and res[0] == "class" and self.is_cell(res[1], _stack + (cls.qualname,)):
                result = True
                break
            if res is None and installed.is_cell(self.index, base, cls.qualname):  # mindformers' PreTrainedModel
                result = True
                break
        self._memo[cls.qualname] = result
        return result

    def mro(self, cls: ClassSummary, _depth: int = 0) -> List[ClassSummary]:
        """``cls`` and its project bases, depth first (at most ten levels). A class's answer is
        remembered for the resolver's run (discovery asks it per ``self.<attr>`` call of every
        scope): the same list, which callers only read."""
        if _depth == 0:
            hit = self._mros.get(id(cls))
            if hit is not None and hit[0] is cls:
                return hit[1]
            out = self._mro(cls, 0)
            self._mros[id(cls)] = (cls, out)
            return out
        return self._mro(cls, _depth)

    def _mro(self, cls: ClassSummary, _depth: int) -> List[ClassSummary]:
        out = [cls]
        if _depth > 10:
            return out
        for base in cls.bases:
            res = self.index.resolve(base)
            if res and res[0] == "class":
                for c in self.mro(res[1], _depth + 1):
                    if c not in out:
                        out.append(c)
        return out


def _attr_method(index: ProjectIndex, cells: CellResolver, cls: ClassSummary, target: str):
    """``self.<attr>.<method>(...)`` where ``__init__`` set ``self.<attr> = SomeProjectClass(...)``:
    graph mode inlines the method of that object (a plain helper object or a sub-Cell)."""
    attr, method = target.split(".", 1)
    if method in ROOT_METHODS:
        return None
    held = _attr_class(index, cells, cls, attr)
    return _method_of(index, cells, held, method) if held is not None else None


def _attr_class(index: ProjectIndex, cells: CellResolver, cls: ClassSummary, attr: str) -> Optional[ClassSummary]:
    """The project class whose instance ``__init__`` stored in ``self.<attr>``, or None."""
    raw = None
    for c in cells.mro(cls):
        if attr in c.attrs:
            raw = c.attrs[attr]
            break
    if not raw or not raw.startswith("call:"):
        return None
    res = index.resolve(raw[5:])
    return res[1] if res and res[0] == "class" else None


def _method_of(index: ProjectIndex, cells: CellResolver, cls: ClassSummary, method: str):
    """``method`` of ``cls`` or its first base that defines it: (summary, module, class), or None."""
    for c in cells.mro(cls):
        if method in c.methods:
            fs = c.methods[method]
            owner = index.resolve(fs.qualname)
            if owner and owner[0] == "method":
                return (fs, owner[2], owner[2].classes.get(fs.class_name))
            return None
    return None


def _sub_cell(index: ProjectIndex, cells: CellResolver, cls: ClassSummary, attr: str):
    """``self.<attr>(...)`` where ``__init__`` set ``self.<attr> = SomeProjectCell(...)``: the
    sub-Cell's ``construct`` (its summary, module and class), or None."""
    held = _attr_class(index, cells, cls, attr)
    if held is None or not cells.is_cell(held):
        return None
    return _method_of(index, cells, held, "construct")


def pynative_scopes(mod: ModuleSummary, cells: Optional[CellResolver], graph: FrozenSet[str] = frozenset()) -> List[GraphScope]:
    """The PyNative scopes of a PyNative-only module (``ModuleSummary.pynative_only``, which
    ``discover`` skips as graph roots): every method of its Cells and every function, as
    ``GraphScope(mode="pynative", kind="pynative")``, in line order; none elsewhere, and none
    for a def already a graph scope (``graph``: a helper a graph root in another module
    reaches). Offered only to rules that ask (``Rule.modes`` with ``"pynative"``: code that
    fails in every mode); the engine builds them per module, so a project without such
    modules pays nothing."""
    if mod is None or not getattr(mod, "pynative_only", False):
        return []
    out: List[GraphScope] = []
    for key, cls in mod.classes.items():
        if cells is None or not cells.is_cell(cls):
            continue
        for fs in cls.methods.values():
            if fs.qualname not in graph:
                out.append(GraphScope(fs.qualname, mod.path, fs.lineno, "pynative", cls.name, class_key=key,
                                      enclosing=fs.enclosing, mode="pynative"))
    for fs in mod.functions.values():
        if fs.qualname not in graph:
            out.append(GraphScope(fs.qualname, mod.path, fs.lineno, "pynative", enclosing=fs.enclosing,
                                  mode="pynative"))
    out.sort(key=lambda s: s.lineno)
    return out


def discover(index: ProjectIndex, extra_cell_bases: "ExtraBases" = frozenset(),
             calls: Optional[Dict[str, List[CallSite]]] = None) -> Dict[str, List[GraphScope]]:
    """Graph scopes of every module in the index, keyed by absolute path. Modules are
    visited in the order of their paths, so what is found (the chain of a helper reached
    from two roots, its ``root_site``) does not depend on the order the files were named
    in. ``calls``, when given, receives the scope graph: each scope's qualname -> the
    calls in it to other scopes (:class:`CallSite`), sub-Cells included."""
    cells = CellResolver(index, extra_cell_bases)
    found: Dict[str, GraphScope] = {}
    queue: deque = deque()

    def add(scope: GraphScope, func: FuncSummary, mod: ModuleSummary, cls: Optional[ClassSummary], depth: int):
        if scope.qualname in found:
            return
        found[scope.qualname] = scope
        queue.append((scope, func, mod, cls, depth))

    for _, mod in sorted(index.by_path.items()):
        if not mod.graph_hint or getattr(mod, "pynative_only", False):
            continue  # no graph code, or PyNative by construction (project.pynative_by_construction)
        pynative_funcs = set(getattr(mod, "pynative_funcs", ()) or ())
        for key, cls in mod.classes.items():
            is_cell = cells.is_cell(cls)
            for name, fs in cls.methods.items():
                if fs.enclosing and fs.enclosing[0] in pynative_funcs:
                    continue  # defined in a test or function that runs it in PyNative by construction
                if (is_cell and name in ROOT_METHODS) or fs.is_jit:
                    kind = "jit" if fs.is_jit and name not in ROOT_METHODS else "construct"
                    add(GraphScope(fs.qualname, mod.path, fs.lineno, kind, cls.name, class_key=key,
                                   capture_mode=fs.capture_mode or "ast", enclosing=fs.enclosing), fs, mod, cls, 0)
        for fs in mod.functions.values():
            if fs.is_jit and not (fs.enclosing and fs.enclosing[0] in pynative_funcs):
                add(GraphScope(fs.qualname, mod.path, fs.lineno, "jit", capture_mode=fs.capture_mode or "ast",
                               enclosing=fs.enclosing), fs, mod, None, 0)

    while queue:
        # no depth cap: a helper is added once (``add`` skips a qualname already found), so a
        # chain of any length is followed and a cycle (h1 -> h2 -> h1) ends the walk
        scope, func, mod, cls, depth = queue.popleft()
        out = calls.setdefault(scope.qualname, []) if calls is not None else None
        for edge in index.calls_of(func, mod):
            target = None
            if edge.kind == "self" and cls is not None:
                if edge.target in ROOT_METHODS:
                    continue
                for c in cells.mro(cls):
                    if edge.target in c.methods:
                        owner_mod = index.resolve(c.qualname.rsplit(".", 1)[0])
                        target = (c.methods[edge.target], owner_mod[1] if owner_mod and owner_mod[0] == "module" else mod, c)
                        break
                if target is None:
                    sub = _sub_cell(index, cells, cls, edge.target)
                    if sub is not None:  # a sub-Cell: its construct is a graph root of its own
                        fs, tmod, tcls = sub
                        add(GraphScope(fs.qualname, tmod.path, fs.lineno, "construct", _plain(fs.class_name),
                                       class_key=fs.class_name, capture_mode=fs.capture_mode or "ast",
                                       enclosing=fs.enclosing), fs, tmod, tcls, 0)
                        if out is not None:
                            out.append(CallSite(edge.line, edge.col, fs.qualname, f"self.{edge.target}"))
                    continue
            elif edge.kind == "attr" and cls is not None:
                target = _attr_method(index, cells, cls, edge.target)
            elif edge.kind == "dotted":
                res = index.resolve(edge.target)
                if res and res[0] in ("function", "method"):
                    fs = res[1]
                    tmod = res[2]
                    tcls = tmod.classes.get(fs.class_name) if fs.class_name else None
                    if fs.name in ROOT_METHODS:
                        continue
                    target = (fs, tmod, tcls)
            if target is None:
                continue
            fs, tmod, tcls = target
            if out is not None:
                label = edge.target.rsplit(".", 1)[-1] if edge.kind == "dotted" else f"self.{edge.target}"
                out.append(CallSite(edge.line, edge.col, fs.qualname, label))
            link = f"called from {scope.short_name} ({display_path(scope.path)}:{edge.line})"
            root_site = scope.root_site or (scope.path, edge.line, edge.col, scope.qualname)
            add(GraphScope(fs.qualname, tmod.path, fs.lineno, "helper", _plain(fs.class_name),
                           scope.chain + (link,), root_site, class_key=fs.class_name,
                           capture_mode=scope.capture_mode, enclosing=fs.enclosing), fs, tmod, tcls, depth + 1)

    by_path: Dict[str, List[GraphScope]] = {}
    for scope in found.values():
        by_path.setdefault(os.path.abspath(scope.path), []).append(scope)
    for scopes in by_path.values():
        scopes.sort(key=lambda s: s.lineno)
    return by_path

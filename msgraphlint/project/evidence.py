"""Caller evidence across modules: what each module passes to the graph entries it calls.

``paramkinds.CallerKinds`` gives a graph entry's parameters the kinds of the arguments the
entry's own module passes. Most entries are called from another module: ``train.py`` builds
``Gate()`` of ``model.py`` and feeds it dataset columns, or hands it to ``nn.WithLossCell`` and
``nn.TrainOneStepCell``. This module:

* in phase 1, from one module's own tree (:func:`outgoing`, stored in
  ``ModuleSummary.evidence`` so a warm run parses nothing), lists the call sites of names the
  module imports from elsewhere (``from model import Gate``; ``import model; model.Gate()``;
  ``net = Gate(); net(x, t)``; ``self.gate = Gate()`` then ``self.gate(x, t)``), and the inputs
  wrappers hand on to the Cell they wrap, for any Cell, the module's own too:
  ``nn.WithLossCell(net, loss)(data, label)`` and ``nn.WithGradCell(net, loss)`` pass ``data``
  to ``net``'s first parameter, ``nn.TrainOneStepCell(<that>, opt)`` likewise (or every input,
  when it wraps a Cell of the project directly), ``ms.grad(net)(x)``,
  ``ms.value_and_grad(net, ...)(x)`` and ``ops.GradOperation()(net)(x)`` every input,
  ``Model(net, loss_fn).train(epochs, dataset)`` a dataset column (``Model(net)``: every
  parameter without a default); each argument is given a kind as ``paramkinds`` does for a
  plain caller (``Tensor(...)``, ``ms.mutable``, dataset-iterator columns, literals; in a
  ``construct``, ``self.<attr>`` of a constant ``__init__`` attribute; in plain code an
  attribute of a configuration object, ``config.use_gate``);
* per project index (:func:`incoming`), resolves each site's target to the file and
  qualname of the entry (module path + qualname: modules are indexed by import root, so
  same-named modules of sibling roots never meet), without loading anything new;
* gives a file's phase-2 cache key the digest of the evidence that reaches its entries
  (:func:`incoming_key`, no line numbers in it): editing a caller re-lints the callee when
  what it passes changes, and only then.

The kinds are merged with the target module's own evidence by ``CallerKinds`` (``kinds.merge``
over all sites: a tensor from one module and a literal from another stays unknown).
"""

from __future__ import annotations

import ast
import os
import re
import weakref
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..parse.astutil import children_no_ctx, classes_within, def_span
from ..parse.text import document_occurrences
from .imports import ImportMap
from ..kinds import Kind
from ..infer.paramkinds import literal_kind

_ITERATORS = frozenset({"create_tuple_iterator", "create_dict_iterator", "create_iterator"})
_TENSOR_MAKERS = frozenset({"mindspore.Tensor", "mindspore.tensor", "mindspore.Parameter"})
_MUTABLE = frozenset({"mindspore.mutable", "mindspore.graph.mutable"})
_LOSS_WRAPPERS = frozenset({"WithLossCell", "WithGradCell"})  # net, loss_fn: data -> net's first input
_STEP_WRAPPERS = frozenset({"TrainOneStepCell", "TrainOneStepWithLossScaleCell", "ForwardValueAndGrad"})
_GRAD_FUNCS = frozenset({"grad", "value_and_grad", "jacfwd", "jacrev", "vjp", "jvp"})
_GRAD_OPS = frozenset({"GradOperation"})
_MODELS = frozenset({"Model"})
_CONFIG_ROOT = re.compile(r"^(?:config|cfg|conf|configs|args|hparams|hp|flags|settings)$")
_NOT_PROJECT = ("mindspore", "numpy", "os", "sys", "math", "typing", "collections", "functools", "itertools",
                "time", "json", "re", "copy", "logging", "argparse", "random", "pathlib", "torch", "pytest",
                "unittest", "builtins", "abc", "dataclasses", "enum", "inspect", "warnings", "pickle")


@dataclass
class ArgSite:
    """One call of a graph entry (or of what may be one), as the calling module sees it."""
    target: str                      # dotted name of the class (``via="inst"``) or function called
    via: str                         # "inst": the instance is called (its construct) | "call": the function
    args: List[str] = field(default_factory=list)        # Kind values of the positional arguments
    kwargs: Dict[str, str] = field(default_factory=dict)  # keyword -> Kind value
    rest: str = ""                   # Kind value of every further parameter without a default ("" none)


# --------------------------------------------------------------------------- phase 1
# bindings of the scan: ("inst", dotted) a project Cell instance; ("wrap", dotted, mode) a wrapper
# of one ("first": its first input goes to the Cell's first parameter, "all": every input);
# ("model", dotted, has_loss) a Model; "batch" a dataset row; or a Kind
_Binding = object


# text a statement of plain code must hold to bind evidence (a tensor, a dataset row, a config)
_BINDS = ("ensor(", "mutable(", "_iterator(", "ops.", "mint.", "numpy.", "parse_args(")
_HOST_PREFIXES = ("test", "main", "run", "train", "infer", "predict", "eval", "validate", "benchmark", "demo")
_WRAPPER_NEEDLES = ("WithLossCell", "WithGradCell", "TrainOneStep", "ForwardValueAndGrad", "grad(", "GradOperation",
                    "Model(", "jacfwd(", "jacrev(", "vjp(", "jvp(")
_WRAPPER_RX = re.compile("|".join(re.escape(n) for n in _WRAPPER_NEEDLES))


def outgoing(tree: ast.Module, imports: ImportMap, modname: str,
             class_attrs: Dict[str, Dict[str, str]], text: Optional[str] = None,
             memo: Optional[dict] = None) -> List[ArgSite]:
    """The call sites of ``tree`` that may reach another module's graph entry, and the
    wrapper sites of any Cell. ``class_attrs``: class name -> its ``self.<attr>`` kinds
    (``ModuleSummary.classes[...].attrs``: ``call:<dotted>`` for ``self.gate = Gate()``).
    ``text``: the module's source; a function whose text names no imported project name,
    no attribute holding one and no wrapper is not walked (nor is the module, when none does).
    ``memo`` (editors: ``index.STATEMENT_MEMO``): the sites of each top-level ``def`` and
    ``class`` kept by what they depend on (:func:`_top_level`), so an edit walks only the
    statements it changed."""
    scan = _Scan(imports, modname, class_attrs)
    if text is not None:
        own = modname + "."
        needles = set()
        for k, v in imports.names.items():
            if scan._project(v) and not v.startswith(own) and v != modname:
                needles.update((k + "(",) if k[:1].isupper() else (k + "(", k + "."))  # Gate(...), model.Gate(...)
        for attrs in class_attrs.values():
            for attr, raw in attrs.items():
                if raw.startswith("call:") and scan._project(raw[5:]) and not raw.startswith("call:" + own):
                    needles.add(f"self.{attr}(")
        wrappers = sorted(set(_WRAPPER_RX.findall(text)))
        if wrappers:  # the module's own Cells may be wrapped: `net = Gate()` binds one
            needles.update(wrappers)
            needles.update(k + "(" for k, v in imports.names.items() if v == own + k and k[:1].isupper())
        occ = document_occurrences(memo, modname)  # an editor's: only the edited span is searched
        live = tuple(n for n in needles if (occ.contains(text, n) if occ is not None else n in text))
        if not live:
            return []
        # in a class's methods (model code) only Cells are looked for: a capitalised name called,
        # an attribute holding one, a wrapper (a jit function is called from scripts and tests)
        method = tuple(n for n in live if n[:1].isupper() or n.startswith("self.") or n in wrappers)
        scan.lines = lines = text.split("\n")
        # per line, whether it holds a needle (prefix counts: a statement's lines are asked in O(1))
        scan.hits = {"all": live, "method": method, "binds": _BINDS}
    if memo is None or scan.lines is None:
        scan.body(tree.body, [{}], None, False)
    else:
        _top_level(scan, tree, memo, imports)
    return scan.sites


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _top_level(scan: "_Scan", tree: ast.Module, memo: dict, imports: ImportMap) -> None:
    """``scan.body(tree.body, [{}], None, False)`` with each top-level ``def`` and ``class`` answered
    from ``memo`` where it was walked before in the same state. What such a statement adds (its
    sites, the ``name(`` needles of the instances it binds) depends only on its text (decorators
    included: lines are read by content, not position), the needles, the module-level bindings
    before it, the attributes of the classes it defines (the only ones a walk of it reads), the
    import map and the module's name; a def walks in a frame of its own and never binds in the
    module's."""
    chain: List[dict] = [{}]
    lines = scan.lines
    names = None
    for st in tree.body:
        if not isinstance(st, _DEFS):
            scan.stmt(st, chain, None, False, frozenset())
            continue
        if names is None:
            names = (scan.modname, tuple(sorted(imports.names.items())), scan.hits["all"], scan.hits["method"])
        start, end = def_span(st)
        key = ("evidence", "\n".join(lines[start - 1:end]), names, scan.dynamic,  # type: ignore[index]
               tuple(sorted(chain[0].items(), key=lambda kv: kv[0])),
               tuple((c, tuple(sorted(scan.class_attrs.get(c, {}).items())))
                     for c in classes_within(tree, st.lineno, end)))
        kept = memo.get(key)
        if kept is not None:
            scan.sites.extend(kept[0])
            scan.dynamic = kept[1]
            continue
        first = len(scan.sites)
        scan.stmt(st, chain, None, False, frozenset())
        if len(memo) > 4096:  # bounded as the scope cache it lives in
            memo.clear()
        memo[key] = (tuple(scan.sites[first:]), scan.dynamic)


class _Scan:
    def __init__(self, imports: ImportMap, modname: str, class_attrs: Dict[str, Dict[str, str]]) -> None:
        self.imports = imports
        self.modname = modname
        self.prefix = modname + "."
        self.class_attrs = class_attrs
        self.sites: List[ArgSite] = []
        self.narrow = False  # in a def that is not host code: only Cells are looked for
        self.dynamic: Tuple[str, ...] = ()  # `net(` and `net.` once `net = Gate()` is seen
        self.hits: Dict[str, Tuple[str, ...]] = {}
        self.lines: Optional[List[str]] = None

    def _names_one(self, node: ast.AST, binds: bool = False, in_class: bool = False) -> bool:
        if self.lines is None:
            return True
        seg = "\n".join(self.lines[node.lineno - 1:getattr(node, "end_lineno", node.lineno)])  # type: ignore[attr-defined]
        return any(n in seg for n in self.hits["method" if in_class else "all"]) \
            or (binds and any(n in seg for n in _BINDS)) or any(n in seg for n in self.dynamic)

    def _forget(self, st: ast.stmt, frame: dict) -> None:
        """The names a skipped statement binds: a literal's kind, else unknown (statements only
        are walked, not expressions)."""
        stack = [st]
        while stack:
            n = stack.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                frame[n.name] = Kind.UNKNOWN
                continue
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] \
                if isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)) else []
            for t in targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Name):
                        frame[x.id] = Kind.UNKNOWN
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Constant) and st is n:
                frame[n.targets[0].id] = Kind.NONE if n.value.value is None else Kind.CONST
            if isinstance(n, (ast.With, ast.AsyncWith)):
                for item in n.items:
                    if item.optional_vars is not None:
                        for x in ast.walk(item.optional_vars):
                            if isinstance(x, ast.Name):
                                frame[x.id] = Kind.UNKNOWN
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                part = getattr(n, field, None)
                if isinstance(part, list):
                    stack.extend(part)

    def dotted(self, node: ast.AST) -> Optional[str]:
        return self.imports.dotted(node)

    # the walk, statements in source order ---------------------------------------
    def body(self, stmts: Sequence[ast.stmt], chain: List[dict], cls: Optional[str], graph: bool,
             params: frozenset = frozenset()) -> None:
        for st in stmts:
            self.stmt(st, chain, cls, graph, params)

    def stmt(self, st: ast.stmt, chain: List[dict], cls: Optional[str], graph: bool, params: frozenset) -> None:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if st.name == "__init__" and cls is not None:
                return  # builds sub-cells, does not call them
            outer = self.narrow
            host = st.name.lstrip("_").lower().startswith(_HOST_PREFIXES)
            # a test, a script, a `main`/`train*` function (or code nested in one) may call
            # another module's jit function; any other function is looked at for Cells only
            self.narrow = cls is not None or (not host and (outer or len(chain) == 1))
            try:
                if self._names_one(st, False, self.narrow):
                    self._def(st, chain, cls)
            finally:
                self.narrow = outer
            return
        if isinstance(st, ast.ClassDef):
            methods = [i for i in st.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef))]
            if any(m.name == "construct" for m in methods):
                # a Cell: its construct passes its inputs and attributes on to sub-Cells (its
                # other methods are helpers of its graph, or build it)
                methods = [m for m in methods if m.name == "construct"]
            for item in methods:
                self.stmt(item, chain[:1], st.name, False, frozenset())
            return
        self._simple(st, chain, cls, graph, params)

    def _def(self, st, chain: List[dict], cls: Optional[str]) -> None:
        a = st.args
        names = [x.arg for x in list(getattr(a, "posonlyargs", [])) + list(a.args) + list(a.kwonlyargs)]
        names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        is_graph = (cls is not None and st.name == "construct") or any(
            (self.dotted(d.func if isinstance(d, ast.Call) else d) or "").endswith((".jit", ".ms_function"))
            for d in st.decorator_list)
        frame = {n: Kind.UNKNOWN for n in names}
        self.body(st.body, chain + [frame], cls, is_graph, frozenset(names) if is_graph else frozenset())

    def _simple(self, st: ast.stmt, chain: List[dict], cls: Optional[str], graph: bool, params: frozenset) -> None:
        frame = chain[-1]
        if self.lines is not None and not self._names_one(st, not graph, self.narrow):
            # names no target, no wrapper, nothing that makes a tensor: only what it binds matters
            if not graph:
                self._forget(st, frame)
            return
        if isinstance(st, ast.Assign):
            self.exprs(st.value, chain, cls, graph, params)
            b = self.binding(st.value, chain, cls, graph, params)
            for t in st.targets:
                if isinstance(t, ast.Name):
                    frame[t.id] = b
                    if isinstance(b, tuple) and self.lines is not None:
                        self.dynamic += (t.id + "(", t.id + ".")  # net = Gate(): later `net(x)` calls it
                else:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            frame[n.id] = Kind.UNKNOWN
            return
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.Try, getattr(ast, "TryStar", ast.Try),
                           getattr(ast, "Match", ast.Try))):
            # flow: a value bound in a branch or a loop body is not the value after it (only the
            # Cells and wrappers bound there are kept)
            before = dict(frame)
            self._compound(st, chain, cls, graph, params)
            for name, b in list(frame.items()):
                if isinstance(b, (Kind, str)) and before.get(name) != b:
                    frame[name] = Kind.UNKNOWN
            return
        self._compound(st, chain, cls, graph, params)

    def _compound(self, st: ast.stmt, chain: List[dict], cls: Optional[str], graph: bool, params: frozenset) -> None:
        frame = chain[-1]
        if isinstance(st, (ast.For, ast.AsyncFor)):
            self.exprs(st.iter, chain, cls, graph, params)
            row = self._dataset_iter(st.iter)
            target = st.target
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    frame[n.id] = Kind.UNKNOWN
            if row and isinstance(st.iter, ast.Call) and isinstance(st.iter.func, ast.Name) \
                    and st.iter.func.id == "enumerate":
                # `for i, data in enumerate(it)`: `i` is a Python int, `data` the row
                target = target.elts[1] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None
            if row and target is not None:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        frame[n.id] = "batch" if isinstance(target, ast.Name) else Kind.TENSOR
            self.body(st.body, chain, cls, graph, params)
            self.body(st.orelse, chain, cls, graph, params)
            return
        if isinstance(st, (ast.AugAssign, ast.AnnAssign)):
            if st.value is not None:
                self.exprs(st.value, chain, cls, graph, params)
            if isinstance(st.target, ast.Name):
                frame[st.target.id] = Kind.UNKNOWN
            return
        handled = False
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            part = getattr(st, name, None)
            if isinstance(part, list) and part:
                handled = True
        if handled:
            for name in ("test", "items", "subject"):
                v = getattr(st, name, None)
                if isinstance(v, ast.AST):
                    self.exprs(v, chain, cls, graph, params)
                elif isinstance(v, list):
                    for x in v:
                        self.exprs(getattr(x, "context_expr", x), chain, cls, graph, params)
            for name in ("body", "orelse", "finalbody"):
                self.body(getattr(st, name, None) or [], chain, cls, graph, params)
            for h in getattr(st, "handlers", None) or []:
                self.body(h.body, chain, cls, graph, params)
            for c in getattr(st, "cases", None) or []:
                self.body(c.body, chain, cls, graph, params)
            return
        self.exprs(st, chain, cls, graph, params)

    def exprs(self, node: ast.AST, chain, cls, graph, params) -> None:
        """The calls inside one expression (or simple statement), not entering lambdas."""
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Lambda):
                continue
            if isinstance(n, ast.Call):
                self.call(n, chain, cls, graph, params)
            stack.extend(children_no_ctx(n))

    # values ----------------------------------------------------------------------
    def lookup(self, name: str, chain: List[dict]):
        for frame in reversed(chain):
            if name in frame:
                return frame[name]
        return None

    def _project(self, dotted: Optional[str]) -> bool:
        return bool(dotted) and dotted.split(".", 1)[0] not in _NOT_PROJECT  # type: ignore[union-attr]

    def _class_target(self, e: ast.AST, chain) -> Optional[str]:
        """``Gate(...)`` / ``model.Gate(...)`` of a project name (not a local binding)."""
        if not isinstance(e, ast.Call):
            return None
        f = e.func
        if isinstance(f, ast.Name) and self.lookup(f.id, chain) is not None:
            return None  # a local name, not the imported one
        d = self.dotted(f)
        if not self._project(d):
            return None
        last = d.rsplit(".", 1)[-1]  # type: ignore[union-attr]
        return d if last[:1].isupper() else None

    def instance(self, e: ast.AST, chain, cls) -> Optional[str]:
        """The dotted class of a project Cell instance ``e`` stands for."""
        if isinstance(e, ast.Name):
            b = self.lookup(e.id, chain)
            return b[1] if isinstance(b, tuple) and b[0] == "inst" else None
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self" and cls:
            raw = self.class_attrs.get(cls, {}).get(e.attr, "")
            return raw[5:] if raw.startswith("call:") and self._project(raw[5:]) else None
        return self._class_target(e, chain)

    def _ms(self, f: ast.AST, names: frozenset) -> bool:
        d = self.dotted(f) or ""
        return d.startswith("mindspore.") and d.rsplit(".", 1)[-1] in names

    def binding(self, v: ast.AST, chain, cls, graph, params) -> _Binding:
        target = self._class_target(v, chain)
        if target is not None:
            return ("inst", target)
        if isinstance(v, ast.Call):
            w = self.wrapped(v, chain, cls)
            if w is not None:
                return w
            if self._ms(v.func, _MODELS) and v.args:
                net = self.instance(v.args[0], chain, cls)
                loss = v.args[1] if len(v.args) > 1 else next((k.value for k in v.keywords if k.arg == "loss_fn"), None)
                has_loss = loss is not None and not (isinstance(loss, ast.Constant) and loss.value is None)
                if net is not None:
                    return ("model", net, has_loss)
                inner = self.wrapped_value(v.args[0], chain, cls)
                if inner is not None:
                    return ("model", inner[1], True if inner[2] == "first" else has_loss)
            if isinstance(v.func, ast.Attribute) and v.func.attr == "parse_args":
                return "config"
        return self.kind(v, chain, cls, graph, params)

    def wrapped_value(self, e: ast.AST, chain, cls):
        if isinstance(e, ast.Name):
            b = self.lookup(e.id, chain)
            return b if isinstance(b, tuple) and b[0] == "wrap" else None
        return self.wrapped(e, chain, cls) if isinstance(e, ast.Call) else None

    def wrapped(self, v: ast.Call, chain, cls):
        """A wrapper of a project Cell: ``("wrap", dotted, "first"|"all")``."""
        f = v.func
        if self._ms(f, _LOSS_WRAPPERS) and v.args:
            net = self.instance(v.args[0], chain, cls)
            if net is not None:
                loss = v.args[1] if len(v.args) > 1 else next((k.value for k in v.keywords if k.arg == "loss_fn"), None)
                none = loss is None or (isinstance(loss, ast.Constant) and loss.value is None)
                return ("wrap", net, "all" if none else "first")
            return None
        if self._ms(f, _STEP_WRAPPERS) and v.args:
            inner = self.wrapped_value(v.args[0], chain, cls)
            if inner is not None:
                return inner
            net = self.instance(v.args[0], chain, cls)
            return ("wrap", net, "all") if net is not None else None
        if self._ms(f, _GRAD_FUNCS) and v.args:
            net = self.instance(v.args[0], chain, cls)
            if net is not None:
                return ("wrap", net, "all")
            inner = self.wrapped_value(v.args[0], chain, cls)
            return inner
        if isinstance(f, ast.Call) and self._ms(f.func, _GRAD_OPS) and len(v.args) >= 1:
            net = self.instance(v.args[0], chain, cls)  # ops.GradOperation(...)(net)
            return ("wrap", net, "all") if net is not None else None
        return None

    def kind(self, e: ast.AST, chain, cls, graph, params) -> Kind:
        lit = literal_kind(e)
        if lit is not None:
            return lit
        if isinstance(e, ast.Name):
            if graph:
                return Kind.UNKNOWN  # a parameter of the calling graph (a guess) or a local it computed
            b = self.lookup(e.id, chain)
            return b if isinstance(b, Kind) else Kind.UNKNOWN
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) \
                and self.lookup(e.value.id, chain) in ("batch", Kind.TENSOR):
            return Kind.TENSOR  # data["image"], batch[0] of a dataset iterator
        if isinstance(e, ast.Attribute):
            root = e
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name):
                return Kind.UNKNOWN
            if root.id == "self":
                if graph and cls and e.value is root:
                    raw = self.class_attrs.get(cls, {}).get(e.attr)
                    return {"const": Kind.CONST, "none": Kind.NONE}.get(raw or "", Kind.UNKNOWN)
                return Kind.UNKNOWN
            if not graph and root.id not in params:
                b = self.lookup(root.id, chain)
                if b == "config" or (b in (None, Kind.UNKNOWN) and _CONFIG_ROOT.match(root.id)
                                     and self.dotted(root) is None):
                    return Kind.CONST  # config.use_gate, args.flag: a Python value of the run's settings
            return Kind.UNKNOWN
        if isinstance(e, ast.Call):
            q = self.dotted(e.func)
            if q is None:
                return Kind.UNKNOWN
            if q in _MUTABLE:
                return Kind.TENSOR  # a variable: not folded, branching on it is a Switch
            if not graph and (q in _TENSOR_MAKERS or q.startswith(("mindspore.ops.", "mindspore.mint.",
                                                                   "mindspore.numpy."))):
                return Kind.TENSOR  # (in a graph a constant tensor may be folded: not evidence)
        return Kind.UNKNOWN

    # call sites --------------------------------------------------------------------
    def _dataset_iter(self, it: ast.AST) -> bool:
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" and it.args:
            it = it.args[0]
        return isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in _ITERATORS

    def _own(self, dotted: str) -> bool:
        return dotted.startswith(self.prefix)

    def call(self, node: ast.Call, chain, cls, graph, params) -> None:
        f = node.func
        k = lambda a: self.kind(a, chain, cls, graph, params).value  # noqa: E731
        # wrappers: any Cell, the module's own too
        w = None
        if isinstance(f, ast.Name):
            b = self.lookup(f.id, chain)
            if isinstance(b, tuple) and b[0] == "wrap":
                w = b
        elif isinstance(f, ast.Call):
            w = self.wrapped(f, chain, cls)
        if w is not None:
            self._site(w[1], "inst", node, k, first_only=w[2] == "first")
            return
        if isinstance(f, ast.Attribute) and f.attr in ("train", "eval") and isinstance(f.value, ast.Name):
            b = self.lookup(f.value.id, chain)
            if isinstance(b, tuple) and b[0] == "model":
                tensor = Kind.TENSOR.value
                self.sites.append(ArgSite(b[1], "inst", [tensor] if b[2] else [], {}, "" if b[2] else tensor))
            return
        # direct calls of another module's Cells and functions
        target = self.instance(f, chain, cls) if not isinstance(f, ast.Call) else self._class_target(f, chain)
        if target is not None:
            if not self._own(target):
                self._site(target, "inst", node, k)
            return
        if isinstance(f, (ast.Name, ast.Attribute)) and not (isinstance(f, ast.Name) and self.lookup(f.id, chain) is not None):
            d = self.dotted(f)
            if self._project(d) and not self._own(d) and d.rsplit(".", 1)[-1][:1].islower() and node.args:  # type: ignore[union-attr]
                self._site(d, "call", node, k)  # type: ignore[arg-type]

    def _site(self, target: str, via: str, node: ast.Call, k, first_only: bool = False) -> None:
        args: List[str] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                break
            args.append(k(a))
            if first_only:
                break
        kwargs = {} if first_only else {kw.arg: k(kw.value) for kw in node.keywords if kw.arg is not None}
        self.sites.append(ArgSite(target, via, args, kwargs))


# --------------------------------------------------------------------------- the index
_AGGREGATES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _resolve(index, dotted: str, via: str) -> Optional[Tuple[str, str]]:
    """(absolute path, qualname of the graph entry) a site's target names, among the modules
    already in the index (nothing is loaded)."""
    parts = dotted.split(".")
    for depth in range(4):  # re-exports (`from .model import Gate` in a package's __init__)
        for cut in range(len(parts) - 1, 0, -1):
            mod = index.modules.get(".".join(parts[:cut]))
            if mod is None:
                continue
            rest = parts[cut:]
            if len(rest) != 1:
                return None
            name = rest[0]
            if via == "inst" and name in mod.classes:
                cls = mod.classes[name]
                return (os.path.abspath(mod.path), cls.qualname + ".construct") if "construct" in cls.methods else None
            if via == "call" and name in mod.functions:
                fs = mod.functions[name]
                return (os.path.abspath(mod.path), fs.qualname) if fs.is_jit else None
            again = mod.imports.names.get(name)
            if not again or again == dotted:
                return None
            parts = again.split(".")
            dotted = again
            break
        else:
            return None
    return None


def _aggregate(index) -> Dict[str, Dict[str, List[ArgSite]]]:
    out: Dict[str, Dict[str, List[ArgSite]]] = {}
    memo: Dict[Tuple[str, str], Optional[Tuple[str, str]]] = {}
    for mod in sorted(list(index.by_path.values()), key=lambda m: os.path.abspath(m.path)):
        for site in getattr(mod, "evidence", None) or ():
            key = (site.target, site.via)
            if key not in memo:
                memo[key] = _resolve(index, site.target, site.via)
            hit = memo[key]
            if hit is not None:
                out.setdefault(hit[0], {}).setdefault(hit[1], []).append(site)
    return out


def incoming(index, path: str) -> Dict[str, List[ArgSite]]:
    """The sites of every module of ``index`` that reach the graph entries of the file
    ``path``: entry qualname -> sites (computed once per index)."""
    if index is None:
        return {}
    try:
        agg = _AGGREGATES.get(index)
    except TypeError:
        agg = None
    if agg is None:
        agg = _aggregate(index)
        try:
            _AGGREGATES[index] = agg
        except TypeError:
            pass
    return agg.get(os.path.abspath(path), {})


def incoming_key(index, path: str) -> tuple:
    """What of the evidence reaching ``path`` its findings depend on (no line numbers)."""
    got = incoming(index, path)
    return tuple(sorted((q, tuple(sorted((tuple(s.args), tuple(sorted(s.kwargs.items())), s.rest) for s in sites)))
                        for q, sites in got.items()))

"""Which graph roots of a module are called from plain Python code (graph entries), and what
Python objects that code hands them.

MindSpore compiles a ``jit`` function or a Cell's ``construct`` as its own graph only when
Python calls it. Called from inside another graph (a sub-Cell in a parent's ``construct``, a
``jit`` function called by another ``jit`` function), it is inlined into the caller's graph:
what it returns stays a graph value. Measured on MindSpore 2.10 CPU (validate IR): a Cell
returning a constant list, a dict or nothing costs PyExecute nodes when Python calls it, and
none when the same Cell is a sub-cell of another Cell; the same holds for ``jit`` functions.

This module finds, lexically and within one module, the calls Python code makes:

* ``f(...)`` where ``f`` names a function definition visible from the call (module level, an
  enclosing function, the same function body) or a name bound to ``jit(g)``/``ms.jit(g)``;
* ``net(...)`` where ``net = Net(...)`` in the same body (or an enclosing one / module level),
  and ``Net(...)(...)``: the class's ``construct``;
* ``jit(g)(...)``.

A call counts as Python's when it is made by code that runs on the host: module-level
statements (also under ``if __name__ == "__main__":``) or a function that is not a graph scope
(the caller passes the ids of the module's graph-scope definitions) and is named like a test,
a script or a loop (``test_*``, ``main``, ``run*``, ``train*``, ``infer*``, ``predict*``,
``eval*``, ``validate*``, ``benchmark*``, ``demo*``), or is nested in one. Any other plain
function may itself be a helper that a graph in another module calls (mindone's loss functions
are reached from models' ``construct`` through a name table): its calls are not evidence.
Nor is a Cell handed to ``nn.TrainOneStepCell``/``Model``/``value_and_grad``: it is not called here.

At each such call the arguments are resolved to the literal Python value they are bound to
(a list, dict or tuple display, or an instance of a class of the module with its
construction call), for the entry's parameters and, for a Cell whose construction is
visible, for the ``self.<attr> = <param>`` assignments of its ``__init__``
(``Inputs``). A value that cannot be resolved is ``None``; the rules require every site to agree.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..parse.astutil import children_no_ctx
from ..parse.text import any_line_within, word_lines

# ("def", FunctionDef) | ("class", ClassDef) | ("inst", ClassDef, Call, chain) | ("value", expr, chain) | ("unknown",)
_Binding = tuple
_UNKNOWN: _Binding = ("unknown",)
Value = Optional[tuple]  # ("value", literal, chain) | ("inst", ClassDef, Call, chain) | None

_HOST_PREFIXES = ("test", "main", "run", "train", "infer", "predict", "eval", "validate", "benchmark", "demo")
_LITERALS = (ast.List, ast.Dict, ast.Tuple, ast.Set, ast.ListComp, ast.DictComp)


class Inputs:
    """What host code of the module passes to its graph entries."""

    def __init__(self) -> None:
        self.called: Set[int] = set()                                  # ids of defs called from host code
        self.params: Dict[int, Dict[str, List[Value]]] = {}            # def id -> param -> value at each site
        self.self_attrs: Dict[int, Dict[str, List[Value]]] = {}        # construct id -> attr -> value at each site
        # def id -> param -> (line, Python literal, receiver) per site that writes one; receiver: the
        # construction call of the Cell instance called (``net = Net(); net(x, 0.5)``: one per
        # instance, each compiles its own graph), None for a function or jit function
        self.literals: Dict[int, Dict[str, List[Tuple[int, object, Optional[int]]]]] = {}
        self._frames: List[Dict[str, _Binding]] = []  # every frame of the scan (see release)

    def release(self) -> None:
        """Empty the scan's frames. A binding holds the chain of frames it resolves in, its own
        frame included (a reference cycle): emptied, the module's tree is freed as soon as the
        module is done, not by the cyclic collector, which is off during a run."""
        for frame in self._frames:
            frame.clear()
        self._frames = []


def python_called(tree: ast.Module, graph_defs: Set[int]) -> Set[int]:
    """Ids of the function definitions (``jit`` functions, Cells' ``construct``) that plain
    Python code of ``tree`` calls. ``graph_defs``: ids of the module's graph-scope defs."""
    inputs = python_inputs(tree, graph_defs)
    inputs.release()
    return inputs.called


def python_inputs(tree: ast.Module, graph_defs: Set[int], text: Optional[str] = None) -> Inputs:
    """``text``: the module's source, to skip the body of a def that is not host code and
    whose lines spell no nested ``def`` or ``class`` (as whole words): such a body is walked
    only for the defs nested in it, and has none."""
    out = Inputs()
    _scan(tree.body, [], True, graph_defs, out, nested_host=False,
          keywords=word_lines(text, ("def", "class")) if text is not None else None)
    return out


def _host_code(d: ast.AST, graph_defs: Set[int], outer_host: bool) -> bool:
    if id(d) in graph_defs:
        return False
    name = d.name.lstrip("_").lower()  # type: ignore[attr-defined]
    return outer_host or name.startswith(_HOST_PREFIXES)


def _is_jit(func: ast.AST) -> bool:
    return (isinstance(func, ast.Name) and func.id == "jit") or (isinstance(func, ast.Attribute) and func.attr == "jit")


def _frame(body: Sequence[ast.stmt], chain: List[Dict[str, _Binding]], params: Sequence[str],
           out: Inputs) -> Dict[str, _Binding]:
    frame: Dict[str, _Binding] = {p: _UNKNOWN for p in params}  # a parameter shadows outer names
    out._frames.append(frame)
    assigns: List[ast.Assign] = []
    other: Set[str] = set()
    stack = list(body)
    while stack:
        st = stack.pop()
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            frame[st.name] = ("def", st)
        elif isinstance(st, ast.ClassDef):
            frame[st.name] = ("class", st)
        elif isinstance(st, ast.Assign):
            assigns.append(st)
        else:
            if isinstance(st, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)) and isinstance(st.target, ast.Name):
                other.add(st.target.id)
            for field in ("body", "orelse", "finalbody", "handlers"):
                part = getattr(st, field, None)
                if isinstance(part, list):
                    stack.extend(x for x in part if isinstance(x, (ast.stmt, ast.excepthandler)))
    full = chain + [frame]
    bound: Dict[str, Optional[_Binding]] = {}
    for st in assigns:
        if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
            for t in st.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        other.add(n.id)
            continue
        name = st.targets[0].id
        b = _value_binding(st.value, full)
        bound[name] = b if name not in bound else None  # bound twice: unknown
    for name, b in bound.items():
        frame[name] = _UNKNOWN if b is None or name in other else b
    for name in other:
        if name not in frame or frame[name][0] not in ("def", "class"):
            frame[name] = _UNKNOWN
    return frame


def _lookup(name: str, chain: List[Dict[str, _Binding]]) -> Optional[_Binding]:
    for frame in reversed(chain):
        if name in frame:
            return frame[name]
    return None


def _value_binding(v: ast.AST, chain: List[Dict[str, _Binding]]) -> Optional[_Binding]:
    if isinstance(v, _LITERALS) or (isinstance(v, ast.Constant) and v.value is None):
        return ("value", v, chain)
    if not isinstance(v, ast.Call):
        return None
    if isinstance(v.func, ast.Name):
        b = _lookup(v.func.id, chain)
        if b is not None and b[0] == "class":
            return ("inst", b[1], v, chain)  # net = Net(...)
    if _is_jit(v.func) and v.args and isinstance(v.args[0], ast.Name):
        b = _lookup(v.args[0].id, chain)
        if b is not None and b[0] == "def":
            return b  # f = jit(g)
    return None


def resolve(e: ast.AST, chain: List[Dict[str, _Binding]]) -> Value:
    """The Python value an argument expression is: a literal display or an instance of a class
    of the module, with the frames its names resolve in; None when unknown."""
    if isinstance(e, _LITERALS) or (isinstance(e, ast.Constant) and e.value is None):
        return ("value", e, chain)
    if isinstance(e, ast.Name):
        b = _lookup(e.id, chain)
        if b is not None and b[0] in ("value", "inst"):
            return b
        return None
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
        b = _lookup(e.func.id, chain)
        if b is not None and b[0] == "class":
            return ("inst", b[1], e, chain)
    return None


def _method(cls: ast.AST, name: str) -> Optional[ast.AST]:
    for item in cls.body:  # type: ignore[attr-defined]
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
            return item
    return None


def _construct(cls: ast.AST) -> Optional[ast.AST]:
    return _method(cls, "construct")


def _bind_literals(func: ast.AST, call: ast.Call, skip_self: bool) -> Dict[str, object]:
    """The Python scalar or tuple literal (``0.5``, ``-1``, ``"sum"``, ``(2, 3)``) each parameter
    of ``func`` gets at ``call``, for the arguments written as one."""
    a = func.args  # type: ignore[attr-defined]
    names = [x.arg for x in list(getattr(a, "posonlyargs", [])) + list(a.args)]
    if skip_self and names:
        names = names[1:]
    pairs = [(names[i], arg) for i, arg in enumerate(call.args) if i < len(names)
             and not any(isinstance(x, ast.Starred) for x in call.args[:i + 1])]
    pairs += [(kw.arg, kw.value) for kw in call.keywords if kw.arg is not None]
    out: Dict[str, object] = {}
    for name, e in pairs:
        try:
            v = ast.literal_eval(e) if isinstance(e, (ast.Constant, ast.UnaryOp, ast.Tuple)) else None
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            v = None
        if v is not None and isinstance(v, (bool, int, float, str, tuple)):
            out[name] = v
    return out


def _bind_args(func: ast.AST, call: ast.Call, chain, skip_self: bool) -> Dict[str, Value]:
    """The value each parameter of ``func`` gets at ``call`` (keyword and positional)."""
    a = func.args  # type: ignore[attr-defined]
    names = [x.arg for x in list(getattr(a, "posonlyargs", [])) + list(a.args)]
    if skip_self and names:
        names = names[1:]
    out: Dict[str, Value] = {}
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred) or i >= len(names):
            break
        out[names[i]] = resolve(arg, chain)
    for kw in call.keywords:
        if kw.arg is not None:
            out[kw.arg] = resolve(kw.value, chain)
    return out


def init_attrs(cls: ast.AST, ctor: ast.Call, chain) -> Dict[str, Value]:
    """``self.<attr> = <param>`` of the class's ``__init__``, with the value the construction
    ``ctor`` passes for that parameter (attributes assigned more than once are left out)."""
    init = _method(cls, "__init__")
    if init is None:
        return {}
    args = _bind_args(init, ctor, chain, skip_self=True)
    for name in _rebound_params(init):
        args.pop(name, None)
    out: Dict[str, Value] = {}
    seen: Set[str] = set()
    for node in ast.walk(init):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    if t.attr in seen:
                        out.pop(t.attr, None)
                        continue
                    seen.add(t.attr)
                    v = getattr(node, "value", None)
                    if isinstance(node, ast.Assign) and isinstance(v, ast.Name) and v.id in args:
                        out[t.attr] = args[v.id]
    return out


def _rebound_params(func: ast.AST) -> Set[str]:
    """Parameters of ``func`` assigned in its body, except a default filled in under
    ``if <param> is None:`` (the value passed, when one is passed, is kept)."""
    defaulted: Set[int] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and isinstance(node.test.left, ast.Name) \
                and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Is) \
                and isinstance(node.test.comparators[0], ast.Constant) and node.test.comparators[0].value is None:
            for st in node.body:
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                        and st.targets[0].id == node.test.left.id:
                    defaulted.add(id(st))
    out: Set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)) and id(node) not in defaulted:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        out.add(n.id)
    return out


def _callee(call: ast.Call, chain: List[Dict[str, _Binding]]) -> Optional[Tuple[ast.AST, Optional[tuple]]]:
    """(target def, (class, construction call, its frames) for a Cell instance) of a call."""
    f = call.func
    if isinstance(f, ast.Name):
        b = _lookup(f.id, chain)
        if b is None:
            return None
        if b[0] == "def":
            return b[1], None
        if b[0] == "inst":
            c = _construct(b[1])
            return (c, (b[1], b[2], b[3])) if c is not None else None
        return None
    if isinstance(f, ast.Call):
        if isinstance(f.func, ast.Name):
            b = _lookup(f.func.id, chain)
            if b is not None and b[0] == "class":
                c = _construct(b[1])
                return (c, (b[1], f, chain)) if c is not None else None  # Net(...)(x)
        if _is_jit(f.func) and f.args and isinstance(f.args[0], ast.Name):
            b = _lookup(f.args[0].id, chain)
            if b is not None and b[0] == "def":
                return b[1], None  # jit(g)(x)
    return None


def _record(out: Inputs, target: ast.AST, inst: Optional[tuple], call: ast.Call, chain) -> None:
    key = id(target)
    out.called.add(key)
    bound = _bind_args(target, call, chain, skip_self=inst is not None)
    params = out.params.setdefault(key, {})
    for name in set(params) | set(bound):
        params.setdefault(name, []).append(bound.get(name))
    lits = out.literals.setdefault(key, {})
    for name, v in _bind_literals(target, call, skip_self=inst is not None).items():
        lits.setdefault(name, []).append((call.lineno, v, id(inst[1]) if inst is not None else None))
    if inst is not None:
        attrs = init_attrs(inst[0], inst[1], inst[2])
        mine = out.self_attrs.setdefault(key, {})
        for name in set(mine) | set(attrs):
            mine.setdefault(name, []).append(attrs.get(name))


def _scan(body: Sequence[ast.stmt], chain: List[Dict[str, _Binding]], host: bool, graph_defs: Set[int],
          out: Inputs, params: Sequence[str] = (), nested_host: Optional[bool] = None,
          keywords: Optional[List[int]] = None) -> None:
    """``host``: calls in ``body`` are Python's; ``nested_host``: what a plain def nested here
    inherits (module level: nothing, only its own name counts)."""
    if not host and keywords is not None and body and not any_line_within(
            keywords, body[0].lineno, getattr(body[-1], "end_lineno", None) or body[-1].lineno):
        return  # (the text of every nested def or class statement holds the keyword)
    outer = chain
    # the frame (what the body binds) serves lookups of calls in host code and in the defs
    # nested here; a body that is neither (most methods) never needs it
    chain = outer + [_frame(body, outer, params, out)] if host else outer
    nested: List[ast.AST] = []
    stack: List[ast.AST] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested.append(n)
            continue
        if isinstance(n, ast.ClassDef):
            nested.extend(i for i in n.body if isinstance(i, (ast.FunctionDef, ast.AsyncFunctionDef)))
            continue
        if isinstance(n, ast.Lambda):
            continue
        if not host:
            # only the definitions matter here: statements, not expressions
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                part = getattr(n, field, None)
                if isinstance(part, list):
                    stack.extend(part)
            continue
        if isinstance(n, ast.Call):
            found = _callee(n, chain)
            if found is not None:
                _record(out, found[0], found[1], n, chain)
        stack.extend(children_no_ctx(n))
    if nested and not host:
        chain = outer + [_frame(body, outer, params, out)]
    for d in nested:
        a = d.args  # type: ignore[attr-defined]
        names = [x.arg for x in list(getattr(a, "posonlyargs", [])) + list(a.args) + list(a.kwonlyargs)]
        names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        inherit = host if nested_host is None else nested_host
        _scan(d.body, chain, _host_code(d, graph_defs, inherit), graph_defs, out, names, keywords=keywords)  # type: ignore[attr-defined]

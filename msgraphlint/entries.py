"""Which graph roots of a module are called from plain Python code (graph entries).

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
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Set, Tuple

from .astutil import children_no_ctx

_Binding = Tuple[str, Optional[ast.AST]]  # ("def", FunctionDef) | ("class", ClassDef) | ("inst", ClassDef)
_UNKNOWN: _Binding = ("unknown", None)


_HOST_PREFIXES = ("test", "main", "run", "train", "infer", "predict", "eval", "validate", "benchmark", "demo")


def python_called(tree: ast.Module, graph_defs: Set[int]) -> Set[int]:
    """Ids of the function definitions (``jit`` functions, Cells' ``construct``) that plain
    Python code of ``tree`` calls. ``graph_defs``: ids of the module's graph-scope defs."""
    out: Set[int] = set()
    _scan(tree.body, [], True, graph_defs, out, nested_host=False)
    return out


def _host_code(d: ast.AST, graph_defs: Set[int], outer_host: bool) -> bool:
    if id(d) in graph_defs:
        return False
    name = d.name.lstrip("_").lower()  # type: ignore[attr-defined]
    return outer_host or name.startswith(_HOST_PREFIXES)


def _is_jit(func: ast.AST) -> bool:
    return (isinstance(func, ast.Name) and func.id == "jit") or (isinstance(func, ast.Attribute) and func.attr == "jit")


def _frame(body: Sequence[ast.stmt], chain: List[Dict[str, _Binding]], params: Sequence[str] = ()) -> Dict[str, _Binding]:
    frame: Dict[str, _Binding] = {p: _UNKNOWN for p in params}  # a parameter shadows outer names
    assigns: List[ast.Assign] = []
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
            for field in ("body", "orelse", "finalbody", "handlers"):
                part = getattr(st, field, None)
                if isinstance(part, list):
                    stack.extend(x for x in part if isinstance(x, (ast.stmt, ast.excepthandler)))
    full = chain + [frame]
    bound: Dict[str, Optional[_Binding]] = {}
    for st in assigns:
        if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
            continue
        name = st.targets[0].id
        b = _value_binding(st.value, full)
        bound[name] = b if name not in bound or bound[name] == b else None  # rebound differently: unknown
    for name, b in bound.items():
        frame[name] = _UNKNOWN if b is None else b  # bound to something else: shadows an outer binding
    return frame


def _lookup(name: str, chain: List[Dict[str, _Binding]]) -> Optional[_Binding]:
    for frame in reversed(chain):
        if name in frame:
            return frame[name]
    return None


def _value_binding(v: ast.AST, chain: List[Dict[str, _Binding]]) -> Optional[_Binding]:
    if not isinstance(v, ast.Call):
        return None
    if isinstance(v.func, ast.Name):
        b = _lookup(v.func.id, chain)
        if b is not None and b[0] == "class":
            return ("inst", b[1])  # net = Net(...)
    if _is_jit(v.func) and v.args and isinstance(v.args[0], ast.Name):
        b = _lookup(v.args[0].id, chain)
        if b is not None and b[0] == "def":
            return b  # f = jit(g)
    return None


def _construct(cls: ast.AST) -> Optional[ast.AST]:
    for item in cls.body:  # type: ignore[attr-defined]
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "construct":
            return item
    return None


def _callee(call: ast.Call, chain: List[Dict[str, _Binding]]) -> Optional[ast.AST]:
    f = call.func
    if isinstance(f, ast.Name):
        b = _lookup(f.id, chain)
        if b is None:
            return None
        if b[0] == "def":
            return b[1]
        if b[0] == "inst":
            return _construct(b[1])
        return None
    if isinstance(f, ast.Call):
        if isinstance(f.func, ast.Name):
            b = _lookup(f.func.id, chain)
            if b is not None and b[0] == "class":
                return _construct(b[1])  # Net(...)(x)
        if _is_jit(f.func) and f.args and isinstance(f.args[0], ast.Name):
            b = _lookup(f.args[0].id, chain)
            if b is not None and b[0] == "def":
                return b[1]  # jit(g)(x)
    return None


def _scan(body: Sequence[ast.stmt], chain: List[Dict[str, _Binding]], host: bool, graph_defs: Set[int],
          out: Set[int], params: Sequence[str] = (), nested_host: Optional[bool] = None) -> None:
    """``host``: calls in ``body`` are Python's; ``nested_host``: what a plain def nested here
    inherits (module level: nothing, only its own name counts)."""
    chain = chain + [_frame(body, chain, params)]
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
        if isinstance(n, ast.Call) and host:
            target = _callee(n, chain)
            if target is not None:
                out.add(id(target))
        stack.extend(children_no_ctx(n))
    for d in nested:
        a = d.args  # type: ignore[attr-defined]
        names = [x.arg for x in list(getattr(a, "posonlyargs", [])) + list(a.args) + list(a.kwonlyargs)]
        names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        inherit = host if nested_host is None else nested_host
        _scan(d.body, chain, _host_code(d, graph_defs, inherit), graph_defs, out, names)  # type: ignore[attr-defined]

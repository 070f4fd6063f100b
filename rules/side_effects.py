"""MSG207–MSG211, MSG213: Python side effects in graph-mode code.

Graph mode runs `construct` (and what it calls) once, as Python, while it compiles; the
compiled graph then runs without Python. Python side effects therefore happen once, at
compile time, or go through PyExecute fallback nodes, or are dropped, and the results
silently differ from PyNative. Every fact below was measured with MindSpore 2.10.0 on CPU
(three calls in GRAPH_MODE compared with the same calls in PYNATIVE_MODE; default syntax
level and STRICT, ``MS_DEV_JIT_SYNTAX_LEVEL=0``). ``print`` is MSG201.
"""

from __future__ import annotations

import ast
from typing import Dict, Optional, Set

from msgraphlint.parse.astutil import walk_statements
from msgraphlint.rule import AST_CAPTURE, Invalid, Rule, Severity, Valid
from msgraphlint.infer.values import Kind

from msgraphlint.infer.flow import class_node, self_attr_values
from msgraphlint.infer.guards import up_the_chain

_CONTAINERS = (Kind.PYLIST, Kind.PYDICT)

# measured effect of each mutating method on a `self.<attr>` / module-level container
_DROPPED = "is dropped, the container stays unchanged"
_PYEXEC = "runs through PyExecute fallback nodes at the default level (the graph is cut) and is dropped under STRICT"
_METHOD_EFFECT = {
    "append": _DROPPED + " (at both syntax levels)",
    "clear": _DROPPED,
    "update": _DROPPED,
    "setdefault": _DROPPED + " (STRICT rejects it)",
    "extend": _PYEXEC,
    "insert": _PYEXEC,
    "reverse": _PYEXEC,
    "pop": _PYEXEC,
    "add": "runs once, at compile time: later calls do not change the set",
}
_GENERIC_EFFECT = "is not kept in sync with PyNative (graph mode drops such mutations or runs them through PyExecute)"
_MUTATORS = frozenset(_METHOD_EFFECT) | {"remove", "sort", "popitem", "discard", "difference_update",
                                         "intersection_update", "symmetric_difference_update"}

_NONDETERMINISTIC = ("random.", "time.", "numpy.random.")

_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})


def _owner(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    if isinstance(node, ast.Name):
        return node.id
    return None


# ------------------------------------------------------------------------------------ MSG207
class ContainerMutation(Rule):
    code = "MSG207"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "python-container-mutation"
    summary = "Mutating a Python list/dict/set held by `self` or the module from graph-mode code."
    message = "`{expr}` mutates {what} from graph code\nIt {effect}."
    hint = ("keep per-step state in a Parameter updated with `ops.assign`; collect values in a local list "
            "and return them; mutate Python containers outside `construct`")
    severity = Severity.ERROR
    rationale = """
        A Python container that lives outside the graph (`self.history = []` in
        `__init__`, `CACHE = []` at module level) is not part of the compiled graph.
        Measured with MindSpore 2.10 CPU, three calls compared with PyNative:

        * `self.history.append(y)`, `CACHE.append(y)` (also from an `@ms.jit`
          function): the list stays empty, at the default level and under STRICT.
        * `self.c.clear()`, `self.d.update({...})`, `self.e.setdefault(...)`: dropped
          (STRICT rejects `setdefault`).
        * `self.a.extend(...)`, `.insert`, `.reverse`, `.pop()`: run through PyExecute
          on every call at the default level (4 such statements: 13 PyExecute nodes and
          32 kernel graphs), dropped under STRICT; reads such as `len(self.buf)` keep
          their compile-time value, so the graph result differed from PyNative.
        * `self.stats["calls"] = self.stats["calls"] + 1`, `STATS["calls"] += 1`:
          PyExecute at the default level but the value is computed at compile time (the
          counter stayed at 1 while PyNative counted 1, 2, 3); STRICT rejects the `self`
          case ("should be initialized as a 'Parameter'") and drops the module one.
        * `self.buf[0] = self.buf[0] + 1`, `SLOTS[1] = SLOTS[1] + 1` on lists: dropped
          (the lists stay unchanged); STRICT rejects the `self` case.
        * `SEEN.add(...)` on a module-level set: once, at compile time.

        Not flagged: local lists and dicts built and consumed in the same call
        (`outs = []; outs.append(...); ops.stack(outs)` compiles natively), reading
        module-level or `self` containers, CellList/SequentialCell.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    outs = []
                    for i in range(3):
                        outs.append(x * i)
                    feats = {}
                    feats["a"] = x * 2
                    return ops.stack(outs) + feats["a"]
        """, note="local containers built and consumed in construct"),
        Valid("""
            import mindspore.nn as nn

            OFFSETS = {"a": 1.0, "b": -1.0}

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.names = ["a", "b"]
                    self.names.append("c")

                def construct(self, x):
                    return x * OFFSETS["a"] + len(self.names)
        """, note="reading containers; mutating them in __init__"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.history = []

                def construct(self, x):
                    y = x * 2
                    self.history.append(y)
                    return y
        """, line=10),
        Invalid("""
            import mindspore as ms

            SEEN = []
            STATS = {"calls": 0}

            @ms.jit
            def fn(x):
                SEEN.append(1)
                STATS["calls"] += 1
                return x * 2
        """, line=[8, 9], note="module-level containers from a jit function"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Attribute) or f.attr not in _MUTATORS:
            return
        recv = f.value
        owner = _owner(recv)
        if owner is None:
            self._nested(node, recv, ctx)
            return
        if ctx.kind(recv) not in _CONTAINERS:
            return
        what = self._what(recv, ctx, owner)
        ctx.report(node, expr=f"{owner}.{f.attr}()", what=what, effect=_METHOD_EFFECT.get(f.attr, _GENERIC_EFFECT))

    def _nested(self, node: ast.Call, recv: ast.AST, ctx) -> None:
        """``self.z[0].append(88)``: a container held inside a ``self.<attr>`` or module-level
        container, reached by subscripts. Measured on 2.10 CPU (side_effect_pos_nested_attr_list_append):
        dropped at the default level, and under STRICT `TypeError: ... self.z should be initialized
        as a 'Parameter' in the '__init__' function to perform assign subscript`."""
        root = recv
        while isinstance(root, ast.Subscript):
            root = root.value
        if root is recv:
            return
        owner = _owner(root)
        if owner is None or ctx.kind(root) not in _CONTAINERS:
            return
        f = node.func
        effect = (_DROPPED + " (STRICT rejects it: `TypeError: ... should be initialized as a 'Parameter' in the "
                  "'__init__' function to perform assign subscript`)") if f.attr == "append" and \
            owner.startswith("self.") else _GENERIC_EFFECT
        what = f"a container inside {self._what(root, ctx, owner)}"
        ctx.report(node, expr=f"{ctx.segment(recv) or owner}.{f.attr}()", what=what, effect=effect)

    def _what(self, recv, ctx, owner) -> str:
        kind = "list" if ctx.kind(recv) is Kind.PYLIST else "dict/set"
        return (f"the Python {kind} `{owner}`" if owner.startswith("self.")
                else f"the module-level Python {kind} `{owner}`")

    def _store(self, node: ast.stmt, targets, ctx) -> None:
        for t in targets:
            if isinstance(t, ast.Subscript):
                owner = _owner(t.value)
                if owner is not None and ctx.kind(t.value) in _CONTAINERS:
                    is_self = owner.startswith("self.")
                    if ctx.kind(t.value) is Kind.PYLIST:
                        effect = "is dropped, the list stays unchanged" + (" (STRICT rejects it)" if is_self else "")
                    else:
                        effect = ("runs through PyExecute at the default level with values computed at compile time "
                                  + ("(STRICT rejects it)" if is_self else "(STRICT drops it)"))
                    ctx.report(node, expr=ctx.segment(t) or owner, what=self._what(t.value, ctx, owner), effect=effect)
                    return
            elif isinstance(t, (ast.Tuple, ast.List)):
                self._store(node, t.elts, ctx)

    def visit_Assign(self, node: ast.Assign, ctx) -> None:
        self._store(node, node.targets, ctx)

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        self._store(node, [node.target], ctx)

    def visit_AnnAssign(self, node: ast.AnnAssign, ctx) -> None:
        if node.value is not None:
            self._store(node, [node.target], ctx)


# ------------------------------------------------------------------------------------ MSG208
def _enclosing_function(node: ast.AST, ctx) -> Optional[ast.AST]:
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return anc
    return None


class GlobalRebind(Rule):
    code = "MSG208"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "global-rebind-in-graph"
    summary = "Rebinding a `global` name inside graph-mode code: the module variable never changes."
    message = ("`{name}` is declared `global` and rebound in graph code\n"
               "The module variable keeps its value (compiled as a constant).")
    hint = "keep the value in a Parameter (`ops.assign`/`ops.assign_add`), or update the global outside `construct`"
    severity = Severity.ERROR
    requires_text = ("global",)  # an ast.Global needs the keyword in the text
    rationale = """
        Measured with MindSpore 2.10 CPU: `global CALLS; CALLS = CALLS + 1` in
        `construct` compiles at the default level and under STRICT, and the module's
        `CALLS` is never updated, not even on the first call (PyNative counts 1, 2, 3).
        Reading a global is fine (its value is folded in at compile time).

        `nonlocal` is not reported here: MindSpore 2.10 rejects the statement itself at
        both levels ("Unsupported statement 'Nonlocal'"), which is the unsupported-syntax
        family's finding.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            SCALE = 2.5

            class Net(nn.Cell):
                def construct(self, x):
                    return x * SCALE
        """, note="reading a global"),
        Valid("""
            import mindspore.nn as nn

            CALLS = 0

            def count():
                global CALLS
                CALLS += 1

            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2
        """, note="outside graph code"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            CALLS = 0

            class Net(nn.Cell):
                def construct(self, x):
                    global CALLS
                    CALLS = CALLS + 1
                    return x * 2
        """, line=8),
    ]

    def _globals(self, func, ctx) -> Set[str]:
        cache = getattr(self, "_cache", None)
        if cache is not None and cache[0] is func:
            return cache[1]
        names: Set[str] = set()
        body = func.body if isinstance(func.body, list) else []  # (a lambda holds no statement)
        for node in walk_statements(body):  # `global` is a statement
            if isinstance(node, ast.Global) and _enclosing_function(node, ctx) is func:
                names.update(node.names)
        self._cache = (func, names)
        return names

    def _check(self, node: ast.stmt, targets, ctx) -> None:
        func = _enclosing_function(node, ctx)
        if func is None:
            return
        declared = self._globals(func, ctx)
        if not declared:
            return
        stack = list(targets)
        while stack:
            t = stack.pop(0)
            if isinstance(t, ast.Name) and t.id in declared:
                ctx.report(node, name=t.id)
                return
            if isinstance(t, (ast.Tuple, ast.List)):
                stack.extend(t.elts)
            elif isinstance(t, ast.Starred):
                stack.append(t.value)

    def visit_Assign(self, node, ctx) -> None:
        self._check(node, node.targets, ctx)

    def visit_AugAssign(self, node, ctx) -> None:
        self._check(node, [node.target], ctx)

    def visit_AnnAssign(self, node, ctx) -> None:
        self._check(node, [node.target], ctx)

    def visit_For(self, node, ctx) -> None:
        self._check(node, [node.target], ctx)


# ------------------------------------------------------------------------------------ MSG209
def _self_rebound_inside(node: ast.AST, func, ctx) -> bool:
    """Between ``node`` and the scope function, a class body or a nested function that binds
    its own ``self`` (a class defined inside ``construct``: its methods' ``self`` is not the
    Cell; MindSpore rejects the class statement itself, MSG410). Answers are remembered per
    walk (``up_the_chain``): an ``elif`` chain thousands long costs one step per statement."""
    return up_the_chain(node, ctx, ("self_rebound_inside", id(func)), lambda anc, prev: _rebinds_self(anc, func))


def _rebinds_self(anc: ast.AST, func) -> Optional[bool]:
    if anc is func:
        return False
    if isinstance(anc, ast.ClassDef):
        return True
    if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = anc.args
        if any(p.arg == "self" for p in list(getattr(a, "posonlyargs", [])) + list(a.args) + list(a.kwonlyargs)):
            return True
    return None


class SelfAttributeWrite(Rule):
    code = "MSG209"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "self-attribute-write"
    summary = "Assigning a `self.<attr>` that is not a Parameter in graph-mode code: PyExecute fallback, an error under STRICT."
    message = "`self.{attr}` ({what}) is assigned in graph code\n{effect}."
    hint = ("make it a Parameter created in `__init__` and update it with `ops.assign`/`ops.assign_add`, "
            "or return the value from `construct` instead of storing it")
    severity = Severity.WARNING
    rationale = """
        Graph mode only keeps state in Parameters. Measured with MindSpore 2.10 CPU:
        `self.seen = True` (a bool set in `__init__`) compiles at the default level
        through 2 PyExecute nodes (3 kernel graphs instead of 1); `self.count += 1` on
        an int through 5 PyExecute nodes (6 kernel graphs); `self.last = y` (an
        attribute not set in `__init__`) through 2 PyExecute nodes; `self.buf = x * 2`
        with `self.buf` a plain Tensor through 4 PyExecute nodes (3 kernel graphs), and
        with new input values on the third call its result differed from PyNative's.
        The graph is cut into pieces that run back to Python on every call. Under STRICT
        (`MS_DEV_JIT_SYNTAX_LEVEL=0`) all four fail to compile: "In JIT strict mode, if
        need to modify a member attribute of a class with self.count, the member
        attribute must be of the Parameter type", and "The 'Net' object has no attribute
        'last'".

        `self.a = self.a + 1` with `self.a = np.array([1, 2, 3])` set in `__init__`: 7 PyExecute
        nodes; the array is updated on the host at each call.

        Not flagged: assigning a Parameter (`self.state = x * 2` with `self.state` a
        Parameter compiles to Assign at both levels and agrees with PyNative), writes in
        `__init__`, mutation of containers (MSG207).
    """
    VALID = [
        Valid("""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.seen = False
                    self.state = ms.Parameter(Tensor(np.zeros((4, 8), np.float32)), name="state")

                def construct(self, x):
                    self.state = x * 2
                    return self.state + 1
        """, note="a Parameter attribute; plain attributes only written in __init__"),
    ]
    INVALID = [
        Invalid("""
            import numpy as np
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.steps = np.zeros(2)

                def construct(self, x):
                    self.steps = self.steps + 1
                    return x
        """, line=10, note="a NumPy array attribute (measured: 7 PyExecute nodes)"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.count = 0

                def construct(self, x):
                    self.count += 1
                    return x * 2
        """, line=9),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    self.last = y
                    return y + 1
        """, line=6, note="an attribute created in construct"),
    ]
    VALID = VALID + [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    class Box:
                        def __init__(self, v):
                            self.v = v
                    return Box(x).v * 2
        """, note="`self` of a class defined inside construct is not the Cell (the class statement is MSG410)"),
    ]

    _KIND_WORDS = {Kind.CONST: "a plain Python value", Kind.NONE: "None in `__init__`", Kind.PYLIST: "a Python list",
                   Kind.PYDICT: "a Python dict/set", Kind.TENSOR: "a Tensor, not a Parameter"}

    def _attr_info(self, func, ctx):
        """({attr: "parameter" | "declared"} from assignments outside the current scope
        function, whether every base class is known)."""
        cache = getattr(self, "_cache", None)
        if cache is not None and cache[0] is func:
            return cache[1]
        cls = class_node(ctx)
        info: Dict[str, str] = {}
        known = cls is not None and self._bases_known(cls, ctx)
        if cls is not None:
            for attr, values in self_attr_values(cls, ctx, skip=(getattr(func, "name", ""),)).items():
                if any(isinstance(v, ast.Call) and ctx.qualname(v.func) == "mindspore.Parameter" for v in values):
                    info[attr] = "parameter"
                elif any(isinstance(v, ast.Call) and self._constructs_object(v, ctx) for v in values):
                    info[attr] = "object"  # a Cell or some other class instance (`mint.nn.Linear(...)`)
                else:
                    info[attr] = "declared"
        self._cache = (func, (info, known))
        return self._cache[1]

    @staticmethod
    def _constructs_object(call: ast.Call, ctx) -> bool:
        q = ctx.qualname(call.func) or (call.func.id if isinstance(call.func, ast.Name) else None)
        if not q or q in ("mindspore.Tensor", "mindspore.tensor"):
            return False
        last = q.rsplit(".", 1)[-1]
        return last[:1].isupper() and not q.startswith(("mindspore.ops.", "mindspore.numpy."))

    @staticmethod
    def _bases_known(cls: ast.ClassDef, ctx) -> bool:
        """Every base class is MindSpore's or a class of this file (whose bases are known too)."""
        classes = {n.name: n for n in ctx.source.tree.body if isinstance(n, ast.ClassDef)}
        todo, seen = [cls], set()
        while todo:
            c = todo.pop()
            if c.name in seen:
                continue
            seen.add(c.name)
            for b in c.bases:
                if isinstance(b, ast.Name) and b.id in classes:
                    todo.append(classes[b.id])
                    continue
                q = ctx.qualname(b)
                if not q or not q.startswith("mindspore."):
                    return False
        return True

    def _check(self, node: ast.stmt, targets, ctx) -> None:
        if ctx.class_info is None or ctx.scope is None or not ctx.scope.class_name:
            return
        from msgraphlint.infer.flow import scope_function
        func = scope_function(node, ctx)
        if _self_rebound_inside(node, func, ctx):
            return  # `self` here is another object: a class defined inside construct (MSG410), a nested def's own self
        for t in targets:
            if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                continue
            kind = ctx.class_info.attr(t.attr)
            info, known = self._attr_info(func, ctx)
            state = info.get(t.attr)
            if state in ("parameter", "object"):
                continue
            declared = state is not None or t.attr in ctx.class_info.attrs
            if declared and kind not in self._KIND_WORDS:
                cls = class_node(ctx)
                values = self_attr_values(cls, ctx, skip=(getattr(func, "name", ""),)).get(t.attr, []) if cls else []
                if values and all(isinstance(v, ast.Call) and (ctx.qualname(v.func) or "").startswith("numpy.")
                                  for v in values):
                    ctx.report(node, attr=t.attr, what="a NumPy array",
                               effect="PyExecute fallback nodes compute and store it on the host at every call")
                    return
                continue  # a Parameter, a Cell, or a value we cannot classify
            if not declared and not known:
                continue  # may be defined by a base class we cannot see
            what = self._KIND_WORDS[kind] if declared else "not a Parameter"
            effect = ("PyExecute fallback nodes cut the graph at the default level; under STRICT it fails to "
                      "compile (the attribute must be a Parameter)")
            ctx.report(node, attr=t.attr, what=what, effect=effect)
            return

    def visit_Assign(self, node, ctx) -> None:
        self._check(node, node.targets, ctx)

    def visit_AugAssign(self, node, ctx) -> None:
        self._check(node, [node.target], ctx)

    def visit_AnnAssign(self, node, ctx) -> None:
        if node.value is not None:
            self._check(node, [node.target], ctx)


# ------------------------------------------------------------------------------------ MSG210
class CompileTimeRandomTime(Rule):
    code = "MSG210"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "compile-time-random-or-time"
    summary = "`random.*`, `numpy.random.*` or `time.*` called in graph-mode code: evaluated once, at compile time."
    message = "`{call}()` runs once, while the graph is compiled\nEvery call of the compiled graph reuses that value."
    hint = ("for per-step randomness use MindSpore random ops (`ops.uniform`, `ops.standard_normal`, "
            "`ops.randint`, `nn.Dropout`); take timings outside `construct`")
    severity = Severity.ERROR
    rationale = """
        Measured with MindSpore 2.10 CPU: `noise = random.random()`, `scale =
        np.random.rand()` and `t = time.perf_counter() % 100.0` in `construct` compile
        without any fallback node: the value is computed once during compilation and
        frozen into the graph as a constant. Three graph-mode calls returned identical
        outputs; PyNative returned fresh values on every call.

        Not flagged: the same calls in `__init__` (they run in Python, once, as written),
        MindSpore's own random ops.
    """
    VALID = [
        Valid("""
            import random
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    random.seed(0)
                    self.p = random.random()

                def construct(self, x):
                    return x * self.p
        """, note="in __init__"),
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    return x + ops.standard_normal(x.shape)
        """, note="a MindSpore random op"),
    ]
    INVALID = [
        Invalid("""
            import random
            import time
            import numpy as np
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    noise = random.random()
                    scale = np.random.rand()
                    t = time.perf_counter()
                    return x * scale + noise + t
        """, line=[8, 9, 10]),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        q = ctx.qualname(node.func)
        if q and q.startswith(_NONDETERMINISTIC):
            ctx.report(node, call=q)


# ------------------------------------------------------------------------------------ MSG211
class LoggingFileIO(Rule):
    code = "MSG211"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "logging-or-file-io-in-graph"
    summary = "Logging or file I/O in graph-mode code: runs once at compile time, or does not compile."
    message = "{what} in graph code runs once, at compile time\nIt {effect}."
    hint = "log and write files outside `construct` (in the training loop or a callback); use `ops.print_` for graph-side debugging"
    severity = Severity.ERROR
    rationale = """
        Measured with MindSpore 2.10 CPU, three calls in graph mode compared with
        PyNative:

        * `logger.warning("forward called")` with `logger = logging.getLogger(...)`: one
          log record on the first call (emitted while compiling), none afterwards, at
          the default level and under STRICT; PyNative logs on every call.
        * `open("trace.log", "a").write(...)`: the file was written once, during
          compilation, at both levels; PyNative writes on every call. `with open(…) as f:`
          does not compile at all (`TypeError: issubclass() arg 1 must be a class`, both
          levels): MSG410 reports it, not this rule.
        * MindSpore's own logger (`from mindspore import log as logger;
          logger.warning(...)`): fails to compile at both levels: "the method or
          function 'mindspore.log.warning' is not supported in 'construct' or function
          with @jit decorator".

        Not flagged: logging in `__init__`, `ops.print_`/`ops.Print` (graph-side
        printing), Python `print` (MSG201).
    """
    VALID = [
        Valid("""
            import logging
            import mindspore.nn as nn

            logger = logging.getLogger(__name__)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    logger.debug("building Net")
                    self.dense = nn.Dense(8, 8)

                def construct(self, x):
                    return self.dense(x)
        """, note="logging in __init__"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    with open("trace.log", "a") as f:
                        f.write("forward")
                    return x * 2
        """, note="`with open(...)` does not compile (MSG410 reports it): nothing runs once"),
    ]
    INVALID = [
        Invalid("""
            import logging
            import mindspore.nn as nn

            logger = logging.getLogger(__name__)

            class Net(nn.Cell):
                def construct(self, x):
                    logger.warning("forward called")
                    return x * 2
        """, line=8),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    open("trace.log", "a").write("forward")
                    return x * 2
        """, line=5),
        Invalid("""
            import mindspore.nn as nn
            from mindspore import log as logger

            class Net(nn.Cell):
                def construct(self, x):
                    logger.info("step")
                    return x * 2
        """, line=6, note="MindSpore's logger does not compile"),
    ]

    _ONCE = "runs once, while the graph is compiled, not on every call"

    def _loggers(self, ctx) -> Set[str]:
        cache = getattr(self, "_cache", None)
        if cache is not None and cache[0] == ctx.path:
            return cache[1]
        names: Set[str] = set()
        for node in ctx.source.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) \
                    and ctx.qualname(node.value.func) in ("logging.getLogger", "logging.Logger"):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
        self._cache = (ctx.path, names)
        return names

    def _self_logger(self, attr: str, ctx) -> bool:
        cls = class_node(ctx)
        if cls is None:
            return False
        values = self_attr_values(cls, ctx).get(attr, [])
        return bool(values) and all(isinstance(v, ast.Call) and ctx.qualname(v.func) in ("logging.getLogger", "logging.Logger")
                                    or (isinstance(v, ast.Name) and v.id in self._loggers(ctx)) for v in values)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        q = ctx.qualname(f)
        if isinstance(f, ast.Name) and f.id == "open" and "open" not in ctx.imports.names:
            parent = ctx.parent(node)
            if isinstance(parent, ast.withitem) and parent.context_expr is node:
                return  # `with open(...)`: it does not compile at all (MSG410), nothing runs once
            ctx.report(node, what="`open()`", effect=self._ONCE + " (measured: the file was written on the first call only)")
            return
        if q and q.startswith("mindspore.log.") and q.rsplit(".", 1)[1] in _LOG_METHODS:
            ctx.report(node, "{what} in graph code does not compile\nIt {effect}.", what=f"MindSpore's logger (`{ctx.segment(f)}`)",
                       effect=f"does not compile ('{q}' is not supported in 'construct' or function with @jit decorator)")
            return
        if q and q.startswith("logging.") and q.rsplit(".", 1)[1] in _LOG_METHODS:
            ctx.report(node, what=f"`{q}()`", effect=self._ONCE)
            return
        if not isinstance(f, ast.Attribute) or f.attr not in _LOG_METHODS:
            return
        recv = f.value
        is_logger = (
            (isinstance(recv, ast.Name) and recv.id in self._loggers(ctx) and ctx.kind(recv) is not Kind.TENSOR
             and recv.id not in (ctx.values.params if ctx.values else {}))
            or (isinstance(recv, ast.Call) and ctx.qualname(recv.func) == "logging.getLogger")
            or (isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and recv.value.id == "self"
                and self._self_logger(recv.attr, ctx))
        )
        if is_logger:
            ctx.report(node, what=f"logging call `{ctx.segment(f)}()`", effect=self._ONCE)


class ObjectAttributeWrite(Rule):
    code = "MSG213"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "python-object-attribute-write"
    summary = "Setting an attribute of a Python object (not `self`) in graph-mode code: PyExecute on every call."
    message = ("`{target}` = … sets a Python object's attribute on the host every call\n"
               "It sets an attribute of {what} in graph code: it runs through PyExecute nodes on the host at every call.")
    hint = ("keep state that changes per step in a Parameter updated with `ops.assign`, or return the value and "
            "set the attribute in the Python caller")
    severity = Severity.WARNING
    rationale = """
        Graph mode has no Python objects at run time. Measured on MindSpore 2.10 CPU (validate
        IR of a `jit` function): `obj.x = 9` with `obj` an instance of a plain class created
        at module level or in an enclosing function costs 2 PyExecute nodes, also when `obj`
        is a Cell instance that is not the graph's own `self`, or the value is a tensor; the
        write does reach the Python object (each call runs it on the host). Creating the object
        inside the graph and setting its attribute there (`o = Obj(); o.x = 3`) costs 5 and fails
        to compile under STRICT; the module-level object's write compiles under STRICT too
        (labeled fixtures `side_effect_pos_*_object_setattr`).

        The same holds for an attribute of a plain object a Cell keeps: `self.outer.inner.i += 10`
        with `self.outer = Outer()` (a class without bases) costs 2 PyExecute nodes.

        Not flagged: `self.<attr>` writes (MSG209), attributes of sub-cells, writes in generators (a `@contextmanager`
        helper: graph mode rejects `yield`, found in mindformers' PyNative-only code), reading an attribute of a module-level object
        (`x + obj.x` is folded: no PyExecute), attributes of parameters of the graph (their kind
        is unknown), and writes in `__init__` or other Python code.
    """
    VALID = [
        Valid("""
            import mindspore as ms

            class Config:
                def __init__(self):
                    self.scale = 2

            CFG = Config()

            @ms.jit
            def step(x):
                return x * CFG.scale
        """, note="reading an attribute of a module-level object is folded"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def step(x, state):
                state.count = 1
                return x
        """, note="a parameter: what it holds is not known here"),
        Valid("""
            class Config:
                def __init__(self):
                    self.scale = 2

            CFG = Config()

            def configure():
                CFG.scale = 3
        """, note="Python code, not a graph"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            class Counter:
                def __init__(self):
                    self.n = 0

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.counter = Counter()

                def construct(self, x):
                    self.counter.n += 1
                    return x
        """, line=14, note="an attribute of a plain object the Cell keeps (measured: 2 PyExecute)"),
        Invalid("""
            import mindspore as ms

            class Stats:
                def __init__(self):
                    self.calls = 0

            STATS = Stats()

            @ms.jit
            def step(x):
                STATS.calls = 1
                return x * 2
        """, line=11),
        Invalid("""
            import mindspore as ms

            class Box:
                def __init__(self):
                    self.v = 0

            @ms.jit
            def step(x):
                b = Box()
                b.v = 3
                return x + b.v
        """, line=10),
    ]

    def visit_Assign(self, node, ctx) -> None:
        for t in node.targets:
            self._check(t, ctx)

    def visit_AugAssign(self, node, ctx) -> None:
        self._check(node.target, ctx)

    def _check(self, target, ctx) -> None:
        if not isinstance(target, ast.Attribute) or ctx.func is None:
            return
        base = target.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name) or base.id == "cls":
            return
        from .graph_outputs import _Outputs, _walk_no_defs
        outputs = ctx.memo.get(("msg213", id(ctx.func)))
        if outputs is None:
            generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _walk_no_defs(ctx.func))
            outputs = ctx.memo[("msg213", id(ctx.func))] = _Outputs(ctx, ctx.func) if not generator else False
        if outputs is False:
            return  # a generator (a context manager): graph mode rejects `yield` before any setattr
        name = base.id
        if name == "self":
            self._check_self_object(target, outputs, ctx)
            return
        if name in outputs.params:
            return
        if outputs.is_local(name):
            values = outputs.assignments(name)
            if values and len(values) == 1 and isinstance(values[0], ast.Call) \
                    and isinstance(values[0].func, ast.Name):
                cls = outputs._plain_class(values[0].func.id)
                if cls is not None:
                    ctx.report(target, target=ctx.segment(target), what=f"a `{cls.name}` object created in the graph")
            return
        value = outputs.free_value(name)
        if not isinstance(value, ast.Call):
            return
        if isinstance(value.func, ast.Name):
            cls = outputs.class_def(value.func.id)
            if cls is not None:
                ctx.report(target, target=ctx.segment(target),
                           what=f"the `{cls.name}` object `{name}` defined outside the graph")
                return
        q = ctx.qualname(value.func)
        if q and q.startswith("numpy."):
            ctx.report(target, target=ctx.segment(target),
                       what=f"the NumPy object `{name}` defined outside the graph")

    @staticmethod
    def _check_self_object(target, outputs, ctx) -> None:
        """``self.<obj>.x = v``: ``<obj>`` an instance of a plain class (no base classes) of this
        module built in ``__init__`` (measured: `self.outer.inner.i += 10` costs 2 PyExecute)."""
        chain = []
        node = target
        while isinstance(node, ast.Attribute):
            chain.append(node)
            node = node.value
        if len(chain) < 2 or ctx.class_info is None or not ctx.class_info.is_cell:
            return
        first = chain[-1]  # self.<obj>
        raw = ctx.class_info.attrs.get(first.attr, "")
        if not raw.startswith("call:"):
            return
        cls = outputs._plain_class(raw[5:].rsplit(".", 1)[-1])
        if cls is not None:
            ctx.report(target, target=ctx.segment(target),
                       what=f"the `{cls.name}` object in `self.{first.attr}` (not a Cell)")

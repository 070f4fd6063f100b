"""MSG414 python-object-output: a graph entry whose output MindSpore converts with PyExecute.

What Python receives from a compiled graph is built from the graph's output. Tensors, scalars,
strings, shapes and tuples/lists of those come back natively. A dict, ``None``, a list whose
elements are constants, a module-level or ``self`` list/dict, or a plain Python object cannot
be a graph output: MindSpore 2.10 adds PyExecute nodes that build the Python object on the
host after the graph runs. This only happens where Python calls the graph (an entry): the
same Cell used as a sub-cell, or a ``jit`` function called by another ``jit`` function, is
inlined and its output stays a graph value (``msgraphlint/infer/entries.py``).
"""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Tuple

from msgraphlint.findings import Edit, Fix, FixSafety
from msgraphlint.fix.codemods import tuple_output_fix
from msgraphlint.parse.astutil import walk_outside_defs
from msgraphlint.kinds import Kind
from msgraphlint.rule import AST_CAPTURE, Invalid, Rule, Severity, Valid

_TENSOR_MAKERS = frozenset({"mindspore.Tensor", "mindspore.tensor"})
_LIST_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "reverse", "sort", "clear"})
_MAX_DEPTH = 4


def _returns(func: ast.AST) -> Iterator[Tuple[ast.Return, bool]]:
    """The function's own ``return`` statements, each with whether it is a top-level
    statement of the body (reached on every path that gets that far)."""
    top = {id(s) for s in func.body}  # type: ignore[attr-defined]
    stack: List[ast.AST] = list(func.body)  # type: ignore[attr-defined]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Return):
            yield n, id(n) in top
            continue
        if isinstance(n, ast.stmt):
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                part = getattr(n, field, None)
                if isinstance(part, list):
                    stack.extend(part)
        elif isinstance(n, (ast.excepthandler,)) or n.__class__.__name__ == "match_case":
            stack.extend(n.body)  # type: ignore[attr-defined]


def _ends_without_value(func: ast.AST) -> bool:
    """No ``return <value>`` anywhere: the graph's output is None (unless it always raises)."""
    if any(r.value is not None and not (isinstance(r.value, ast.Constant) and r.value.value is None)
           for r, _ in _returns(func)):
        return False
    last = func.body[-1]  # type: ignore[attr-defined]
    return not isinstance(last, (ast.Raise, ast.While)) and not (
        isinstance(last, ast.Expr) and isinstance(last.value, ast.Constant))  # a docstring-only stub


class _Outputs:
    """What a returned expression is, as far as PyExecute at the output is concerned."""

    def __init__(self, ctx, func: ast.AST) -> None:
        self.ctx = ctx
        self.func = func
        self.params = {a.arg for a in list(getattr(func.args, "posonlyargs", [])) + list(func.args.args)  # type: ignore[attr-defined]
                       + list(func.args.kwonlyargs)}  # type: ignore[attr-defined]
        for extra in (func.args.vararg, func.args.kwarg):  # type: ignore[attr-defined]
            if extra is not None:
                self.params.add(extra.arg)
        self._assigned = None
        self._free_mutated: set = set()
        found = ctx.python_inputs()
        self.input_params, self.input_attrs = found if found is not None else ({}, {})

    # local bindings ----------------------------------------------------------------
    def assignments(self, name: str) -> Optional[List[ast.AST]]:
        """The values a local name is bound to (None when one binding is not a plain ``name = value``)."""
        if self._assigned is None:
            self._assigned = {}
            self._other = set()
            self._mutated = set()
            for node in _walk_no_defs(self.func):
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        if isinstance(t, ast.Name) and len(node.targets) == 1:
                            self._assigned.setdefault(t.id, []).append(node.value)
                        else:
                            for n in ast.walk(t):
                                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                                    self._other.add(n.id)  # unpacked or rebound with several targets
                                elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
                                    self._mutated.add(n.value.id)
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                    t = node.target
                    if isinstance(t, ast.Name):
                        self._other.add(t.id)
                    elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        self._mutated.add(t.value.id)
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension, ast.With, ast.NamedExpr,
                                       ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
                    for n in ast.walk(node.target if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension,
                                                                       ast.NamedExpr)) else node):
                        if isinstance(n, ast.Name):
                            self._other.add(n.id)
                        elif isinstance(n, ast.alias):
                            self._other.add((n.asname or n.name).split(".")[0])
                    if isinstance(node, (ast.Global, ast.Nonlocal)):
                        self._other.update(node.names)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) and node.func.attr in _LIST_MUTATORS:
                    self._mutated.add(node.func.value.id)
        if name in self._other:
            return None
        return self._assigned.get(name)

    def is_local(self, name: str) -> bool:
        self.assignments(name)
        return name in self.params or name in self._assigned or name in self._other  # type: ignore[operator]

    # what an expression is ------------------------------------------------------------
    def const_literal(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Constant):
            return True
        if isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant):
            return True
        if isinstance(e, (ast.Tuple, ast.List)):
            return all(self.const_literal(x) for x in e.elts)
        if isinstance(e, ast.Call) and self.ctx.qualname(e.func) in _TENSOR_MAKERS and e.args \
                and not e.keywords and all(self.const_literal(a) for a in e.args):
            return True  # Tensor([1, 2]): folded into a constant
        if isinstance(e, ast.Call) and (self.ctx.qualname(e.func) or "").startswith("numpy.") \
                and all(self.const_literal(a) for a in e.args) and all(self.const_literal(k.value) for k in e.keywords):
            return True  # np.array([1, 2]) of constants: a host object made at compile time
        if isinstance(e, ast.Dict):
            return all(k is not None and self.const_literal(k) for k in e.keys) and all(self.const_literal(x) for x in e.values)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "dict" and not e.args \
                and not self.is_local("dict"):
            return all(k.arg is not None and self.const_literal(k.value) for k in e.keywords)
        return False

    def _host_list(self, e: ast.AST) -> bool:
        """A list built from constants or host values: `list(<constants>)`, `sorted(<constants>)`,
        `arr.tolist()` / `list(arr)` of a NumPy array."""
        if not isinstance(e, ast.Call):
            return False
        f = e.func
        if isinstance(f, ast.Name) and f.id in ("list", "sorted") and len(e.args) == 1 and not self.is_local(f.id):
            arg = e.args[0]
            if isinstance(arg, ast.Call) and self.ctx.qualname(arg.func) in _TENSOR_MAKERS:
                return False  # list(Tensor([1, 2, 3])): a list of tensors (2.10 CPU: no PyExecute)
            if f.id == "list" and isinstance(arg, (ast.Tuple, ast.List)) and all(
                    isinstance(x, ast.Constant) and isinstance(x.value, (bool, int, float)) for x in arg.elts):
                return False  # list((1, 2, 3)), list((1.0, 2.0)): native (2.10 CPU: no PyExecute; [1, 2, 3] costs 1)
            return self.const_literal(arg) or self._numpy_value(arg)
        if isinstance(f, ast.Attribute) and f.attr == "tolist" and not e.args:
            return self._numpy_value(f.value)
        return False

    def _numpy_value(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Call):
            return (self.ctx.qualname(e.func) or "").startswith("numpy.")
        if isinstance(e, ast.Name) and e.id not in self.params:
            values = self.assignments(e.id)
            return bool(values) and len(values) == 1 and self._numpy_value(values[0])
        return False

    def why(self, e: ast.AST, depth: int = 0, in_tuple: bool = False) -> Optional[str]:
        """Why this output needs PyExecute, or None when it is native or not known.
        ``in_tuple``: an element of a returned tuple, where a list of constants is native
        (measured: `(1, [2])`, `(x, ([2],))` and `((1,), [2])` need no PyExecute)."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(e, ast.Constant):
            return "None" if e.value is None else None
        if isinstance(e, (ast.Dict, ast.DictComp)):
            return "a dict"
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "dict" \
                and not self.is_local("dict"):
            return "a dict"
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "set" \
                and not self.is_local("set"):
            return "a set"  # measured: `return x * 2, set([1, 2, 1])` (fallback_pos_return_set_call)
        if self._host_list(e):
            return None if in_tuple else f"a Python list built while compiling (`{self.ctx.segment(e)}`)"
        if isinstance(e, ast.List):
            if all(self.const_literal(x) for x in e.elts):
                if in_tuple:
                    return None
                return "an empty list" if not e.elts else "a list of constants"
            for x in e.elts:
                inner = self.why(x, depth + 1, in_tuple)
                if inner:
                    return f"a list holding {inner}"
            return None
        if isinstance(e, ast.Tuple):
            for x in e.elts:
                inner = self.why(x, depth + 1, True)
                if inner:
                    return f"a tuple holding {inner}"
            return None
        if isinstance(e, ast.BoolOp):
            picked = self.picked_operand(e)
            return self.why(picked, depth + 1, in_tuple) if picked is not None else None
        if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice) and not in_tuple:
            sliced = self.sliced_constants(e)
            if sliced:
                return f"a list of constants sliced from {sliced} (`{self.ctx.segment(e)}`)"
        vals = self.input_values(e)
        if vals:
            what = _same(_classify(v) for v in vals)
            if what:
                return f"{what} that the Python caller passes in (`{self.ctx.segment(e)}`)"
            return None
        if isinstance(e, ast.Name):
            return self._why_name(e, depth, in_tuple)
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self" \
                and self.params and self.ctx.class_info is not None and self.ctx.class_info.is_cell:
            k = self.ctx.class_info.attr(e.attr)
            if k is Kind.PYDICT:
                return f"the dict attribute `self.{e.attr}`"
            if k is Kind.PYLIST:
                return f"the list attribute `self.{e.attr}`"
            return None
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            cls = self._plain_class(e.func.id)
            if cls is not None:
                return f"a `{cls.name}` object"
        outside = self.outside_values(e)
        if outside:
            what = _classify(outside[0])
            if what:
                return f"{what} (`{self.ctx.segment(e)}`) held by a container defined outside the graph"
        return None

    def truthiness(self, e: ast.AST, depth: int = 0) -> Optional[bool]:
        """``bool(e)`` when the parser knows it: a constant, a display of known length (no
        ``*``), a local bound once to one of those and never filled or emptied in place."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(e, ast.Constant):
            return bool(e.value)
        if isinstance(e, (ast.List, ast.Tuple, ast.Set)) and not any(isinstance(x, ast.Starred) for x in e.elts):
            return bool(e.elts)
        if isinstance(e, ast.Dict) and None not in e.keys:
            return bool(e.keys)
        if isinstance(e, ast.Name) and e.id not in self.params:
            values = self.assignments(e.id)
            if values and len(values) == 1 and e.id not in self._mutated:
                return self.truthiness(values[0], depth + 1)
        return None

    def picked_operand(self, e: ast.BoolOp) -> Optional[ast.AST]:
        """The operand ``a or b`` / ``a and b`` evaluates to, when the truthiness of the operands
        before it is known at compile time (Python's rule: ``or`` gives the first true operand,
        ``and`` the first false one, else the last). Measured on 2.10 CPU: ``[1, 2] or 2`` returned
        from a graph entry is that list (1 PyExecute), ``[1, 2] and 2`` is 2 (none)."""
        stop = isinstance(e.op, ast.Or)
        for op in e.values[:-1]:
            t = self.truthiness(op)
            if t is None:
                return None
            if t is stop:
                return op
        return e.values[-1]

    def sliced_constants(self, e: ast.Subscript) -> Optional[str]:
        """What ``seq[a:b:c]`` (literal bounds) slices when it makes a new list of constants: a list
        display of constants bound in the graph, or the Python list of constants every host call passes in
        (measured on 2.10 CPU: ``x[::2]`` of ``[0, 1, 0, 1]`` passed in, 1 PyExecute)."""
        sl = e.slice
        if not all(b is None or self.const_literal(b) for b in (sl.lower, sl.upper, sl.step)):
            return None  # `x[a::]` with a Tensor bound is a dynamic-length list, a graph value (2.10: no PyExecute)
        base = e.value
        if isinstance(base, ast.Name) and base.id not in self.params:
            values = self.assignments(base.id)
            if values and len(values) == 1 and base.id not in self._mutated \
                    and isinstance(values[0], ast.List) and all(self.const_literal(x) for x in values[0].elts):
                return f"the list `{base.id}`"
            return None
        vals = self.input_values(base)
        if vals and all(v is not None and v[0] == "value" and isinstance(v[1], ast.List)
                        and all(isinstance(x, ast.Constant) for x in v[1].elts) for v in vals):
            return "the Python list the caller passes in"
        return None

    def outside_values(self, e: ast.AST, depth: int = 0) -> Optional[list]:
        """``G[k]``, ``G[k][j]``… of a list/tuple/dict display bound outside the graph (module
        level, an enclosing function) and never rebound nor written there."""
        if depth > _MAX_DEPTH or not isinstance(e, ast.Subscript) or not isinstance(e.slice, ast.Constant):
            return None
        base = e.value
        if isinstance(base, ast.Name):
            value = self.free_value(base.id)
            if not isinstance(value, (ast.List, ast.Tuple, ast.Dict)) or base.id in self._free_mutated:
                return None
            v = element(("value", value, []), e.slice.value)
        else:
            inner = self.outside_values(base, depth + 1)
            v = element(inner[0], e.slice.value) if inner else None
        return [v] if v is not None else None

    def input_values(self, e: ast.AST, depth: int = 0) -> Optional[list]:
        """The Python values host code passes for ``e`` at each call of this entry: a parameter,
        ``self.<attr>`` set from a constructor argument, and constant subscripts and attributes
        of those; None when ``e`` is none of these or a site's value is unknown."""
        if depth > _MAX_DEPTH:
            return None
        vals: Optional[list] = None
        if isinstance(e, ast.Name) and e.id in self.params:
            if self.is_rebound(e.id):
                return None
            vals = self.input_params.get(e.id)
        elif isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
            vals = self.input_attrs.get(e.attr)
        elif isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant):
            inner = self.input_values(e.value, depth + 1)
            vals = [element(v, e.slice.value) for v in inner] if inner else None
        elif isinstance(e, ast.Attribute):
            inner = self.input_values(e.value, depth + 1)
            vals = [attribute(v, e.attr) for v in inner] if inner else None
        if not vals or any(v is None for v in vals):
            return None
        return vals

    def is_rebound(self, name: str) -> bool:
        self.assignments(name)
        return name in self._assigned or name in self._other  # type: ignore[operator]

    def _why_name(self, e: ast.Name, depth: int, in_tuple: bool) -> Optional[str]:
        name = e.id
        if name in self.params:
            return None
        if self.is_local(name):
            values = self.assignments(name)
            if not values:
                return None
            reasons = [self.why(v, depth + 1, in_tuple) for v in values]
            if all(r == "a dict" for r in reasons):
                return "a dict"  # filling it with `d[k] = v` keeps it a dict
            if len(values) == 1 and reasons[0]:
                constant_list = reasons[0] in ("a list of constants", "an empty list")
                if not constant_list or name not in self._mutated:
                    return reasons[0]  # filled or reordered in place, an outside list is still that list
            return None
        value = self._free_value(name)
        if value is None:
            return None
        if isinstance(value, (ast.Dict, ast.DictComp)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict"):
            return f"the dict `{name}` defined outside the graph"
        if isinstance(value, (ast.List, ast.ListComp)) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list"):
            return f"the list `{name}` defined outside the graph"
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            cls = self._plain_class(value.func.id)
            if cls is not None:
                return f"the `{cls.name}` object `{name}` defined outside the graph"
        return None

    # names from outside the function -----------------------------------------------
    def _outer_bodies(self) -> List[list]:
        """Bodies whose names the function sees, innermost first: enclosing functions, the module."""
        from msgraphlint.project.index import all_functions
        bodies: List[list] = []
        scope = self.ctx.scope
        if scope is not None and scope.enclosing:
            funcs = self.ctx.memo.get("msg414_funcs")
            if funcs is None:
                funcs = self.ctx.memo["msg414_funcs"] = all_functions(self.ctx.source.tree)
            for line in reversed(scope.enclosing):
                outer = funcs.get(line)
                if outer is not None:
                    bodies.append(outer.body)
        bodies.append(self.ctx.source.tree.body)
        return bodies

    def _free_value(self, name: str) -> Optional[ast.AST]:
        """The single value a free name is bound to in the innermost body that binds it."""
        for body in self._outer_bodies():
            values = []
            other = False
            for node in _body_statements(body):
                if isinstance(node, ast.Assign):
                    for t in node.targets:
                        if isinstance(t, ast.Name) and t.id == name:
                            values.append(node.value if len(node.targets) == 1 else None)
                        elif isinstance(t, (ast.Attribute, ast.Subscript)):
                            base = t.value
                            while isinstance(base, (ast.Attribute, ast.Subscript)):
                                base = base.value
                            if isinstance(base, ast.Name) and base.id == name:
                                self._free_mutated.add(name)  # `G.x = 1`, `G[0] = 1`: the same object
                        elif any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(t)):
                            other = True
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                    other = True
                elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                        (a.asname or a.name).split(".")[0] == name for a in node.names):
                    other = True
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AugAssign, ast.AnnAssign)):
                    targets = [node.target] if hasattr(node, "target") else [i.optional_vars for i in node.items]
                    if any(isinstance(n, ast.Name) and n.id == name for t in targets if t is not None for n in ast.walk(t)):
                        other = True
            if other or len(values) > 1:
                return None
            if values:
                return values[0]
        return None

    def class_def(self, name: str) -> Optional[ast.ClassDef]:
        """The class a free name names in this module (or an enclosing function)."""
        if self.is_local(name):
            return None
        return self._visible_class(name)

    def _visible_class(self, name: str) -> Optional[ast.ClassDef]:
        for body in self._outer_bodies():
            key = ("msg414_classes", id(body))
            classes = self.ctx.memo.get(key)
            if classes is None:  # one walk per body: name -> its last class statement
                classes = self.ctx.memo[key] = {n.name: n for n in _body_statements(body) if isinstance(n, ast.ClassDef)}
            if name in classes:
                return classes[name]
        return None

    def _plain_class(self, name: str) -> Optional[ast.ClassDef]:
        """A class of this module (or an enclosing function) with no base classes: a plain
        Python object, never a Cell or a Tensor. (The class is looked up before the local
        bindings: most capitalised calls name a Cell or nothing of this module.)"""
        cls = self._visible_class(name)
        if cls is None or not all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases) or cls.keywords:
            return None
        return None if self.is_local(name) else cls

    def free_value(self, name: str) -> Optional[ast.AST]:
        return None if self.is_local(name) else self._free_value(name)


def _body_statements(body: list) -> Iterator[ast.AST]:
    """The statements of a body and of its compound statements, not entering ``def``/``class``
    bodies (their bindings are not the body's)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            v = getattr(node, name, None)
            if v.__class__ is list:
                stack.extend(reversed(v))


def _walk_no_defs(func: ast.AST) -> Iterator[ast.AST]:
    return walk_outside_defs(*func.body)  # type: ignore[attr-defined]


def _same(items) -> Optional[str]:
    items = list(items)
    return items[0] if items and items[0] and all(i == items[0] for i in items) else None


def element(v, key):
    """``v[key]`` of a literal list/tuple/dict display passed by Python (entries.Value)."""
    from msgraphlint.infer.entries import resolve
    if v is None or v[0] != "value":
        return None
    lit = v[1]
    if isinstance(lit, (ast.List, ast.Tuple)) and isinstance(key, int) and not isinstance(key, bool) \
            and -len(lit.elts) <= key < len(lit.elts) and not any(isinstance(x, ast.Starred) for x in lit.elts):
        return resolve(lit.elts[key], v[2])
    if isinstance(lit, ast.Dict):
        for k, x in zip(lit.keys, lit.values):
            if isinstance(k, ast.Constant) and k.value == key and type(k.value) is type(key):
                return resolve(x, v[2])
    return None


def attribute(v, name):
    """``v.name`` of an instance passed by Python, from its class's ``__init__`` (``self.name = param``)."""
    from msgraphlint.infer.entries import init_attrs
    if v is None or v[0] != "inst":
        return None
    return init_attrs(v[1], v[2], v[3]).get(name)


def _classify(v) -> Optional[str]:
    """What a Python value passed into a graph is, when returning it costs PyExecute
    (measured: a list, a dict, a tuple holding a list, a jit_class/plain object, None)."""
    if v is None:
        return None
    if v[0] == "value":
        lit = v[1]
        if isinstance(lit, ast.Constant) and lit.value is None:
            return "None"
        if isinstance(lit, (ast.List, ast.ListComp)):
            return "a Python list"
        if isinstance(lit, (ast.Dict, ast.DictComp)):
            return "a Python dict"
        if isinstance(lit, ast.Tuple):
            for i in range(len(lit.elts)):
                inner = _classify(element(v, i))
                if inner in ("a Python list", "a Python dict"):
                    return f"a tuple holding {inner}"
        return None
    if v[0] == "inst":
        cls = v[1]
        plain = all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases) and not cls.keywords
        if plain:
            return f"a `{cls.name}` object"
    return None


class PythonObjectOutput(Rule):
    code = "MSG414"
    fix_safety = FixSafety.UNSAFE  # a returned list -> a tuple (msgraphlint/fix/codemods.py): the caller gets a tuple
    # trace capture also builds such an output with PyExecute (measured on 2.10 CPU: a traced
    # construct returning a list that holds the caller's dict, 1 PyExecute in the validate IR;
    # tests/test_capture_modes_mindspore.py); bytecode capture was not measured
    captures = frozenset({"ast", "trace"})
    name = "python-object-output"
    summary = "A graph called from Python returns a dict, None, a constant list or a Python object."
    message = ("`{where}`'s output to Python is built on the host (PyExecute)\n"
               "`{where}` is called from Python and its output is {what}: MindSpore builds this output with "
               "PyExecute on the host after the graph runs.")
    hint = ("return tensors (a tuple of tensors, shapes or scalars); keep dicts, constant lists and Python objects "
            "inside the graph, and build them in the Python caller if it needs them")
    severity = Severity.WARNING
    rationale = """
        A graph's output comes back to Python natively when it is made of tensors, scalars,
        strings, shapes and tuples or lists of those. Anything else is built on the host:
        measured on MindSpore 2.10 CPU (validate IR of `jit` functions and Cells called from
        Python), the output costs PyExecute nodes when it is

        - a dict (3 nodes; also `dict(a=x)`, `{}`, a dict comprehension, a tuple holding a dict);
        - `None`: a graph that returns nothing (1 node), `return None`, `(x, None)`, `[x, None]`;
        - a list of constants as the whole output (1 node): `[1, 2]`, `[]`, `["a"]`,
          `list((1, "a", None))`, `sorted((3, 1, 2))`, `[np.array([1, 2]), 1]`,
          `np.array(...).tolist()`, `list(np.arange(...))`, `[1, {"a": 1}]`,
          `[[1, 2], [3]]`, `[Tensor(1), Tensor(2)]` (inside a tuple it is mostly native: `(1, [2])`,
          `(x, ([2],))` need none, so it is not reported there);
        - a list or dict defined outside the graph (module level, an enclosing function) or held
          in `self` (`self.cache = [...]` in `__init__`), even a list of tensors (1 node);
        - an element of such a list or dict that is itself a list or None (`G[1]` with
          `G = [1, [3, 4], None]`: 1 node);
        - an instance of a plain Python class (also a `jit_class`) created in the graph or
          defined outside it;
        - a Python list or dict that the calling Python code passes in (1 node): returned as is,
          inside a tuple (`return x * 2, names`), as an element of a tuple/dict argument
          (`t[0]`, `d["k"]` holding a list), or kept by a Cell's `__init__` from a constructor
          argument (`self.v = v`, also `self.h.attr` of a `jit_class` object holding a list).
          Using its elements (`x * s[0]`) or `len(s)` costs none. The values come from the
          calls this module makes (`msgraphlint/infer/entries.py`); every call must pass one.

        - `None` that the calling Python code passes in and the graph returns (1 node).
        - a slice with literal bounds of a list of constants, a new list of constants (1 node):
          `names[1:]` of `names = [1, 2, 3, 4]`, `x[::2]` of the `[0, 1, 0, 1]` the caller passes;
          with a Tensor bound (`names[a::]`) it is a dynamic-length list, a graph value (none);
        - `a or b` / `a and b`: the operand Python picks, where the operands before it have a
          truthiness the parser knows (`[1, 2] or 2` is the list: 1 node; `[1, 2] and 2` is 2: none).

        Not affected (measured: no PyExecute): a tensor, an int, a float, a string, a bool,
        `x.shape`, tuples of those (also nested), a list of tensors (`[x, x + 1]`, `[[x]]`, a
        list filled by `append` of tensors), a list mixing tensors and constants (`[x, 1]`),
        `list(x.shape)` (`sorted(x.shape)` does cost 2 but is not reported), `list(Tensor([1, 2, 3]))`
        (a list of tensors; MindSpore's own test of it compiles with no PyExecute), `list((1, 2, 3))`
        and `list((1.0, 2.0))` of numbers only (while the display `[1, 2, 3]`, `list(("a", "b"))`,
        `list((1, "a"))` and `sorted((3, 1, 2))` cost 1 each), an element read from a global list or dict (`G[0]`), and a `self`
        tuple or flag.

        Only graph entries are reported: a `jit` function or a Cell that plain Python code of the
        same module calls. Used as a sub-cell inside another Cell's `construct`, or called from
        another `jit` function, the same code is inlined and returns a dict, a list of constants or
        `None` without any PyExecute (measured). With several `return`s, they are reported only when
        every one of them has such an output (a compile-time branch may drop the others).

        Under `jit_syntax_level=STRICT` a returned dict becomes a tuple of its values instead.
        Return tensors and keep containers of constants inside the graph, or build the dict in
        the Python caller.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x):
                    return x, x.shape, [x, 1]

            net = Net()
            out = net(ms.Tensor([1.0]))
        """, note="tensors, a shape and a list mixing tensors and constants come back natively"),
        Valid("""
            import mindspore as ms
            from mindspore import nn

            class Block(nn.Cell):
                def construct(self, x):
                    return {"y": x * 2}

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.block = Block()

                def construct(self, x):
                    return self.block(x)["y"]

            out = Net()(ms.Tensor([1.0]))
        """, note="a sub-cell's dict output is inlined into the parent's graph (no PyExecute)"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def inner(x):
                return [1, 2]

            @ms.jit
            def outer(x):
                return x + inner(x)[0]

            y = outer(ms.Tensor([1.0]))
        """, note="a jit function called only from another jit function is inlined"),
        Valid("""
            import mindspore as ms

            G = [1, 2]

            @ms.jit
            def step(x):
                l = []
                l.append(x)
                return x + G[0], l
        """, note="an element of a global list, a list filled with tensors; and no Python call is visible"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def step(x, scales):
                return x * scales[0] + len(scales)

            def main():
                step(ms.Tensor([1.0]), [2.0, 3.0])
        """, note="the elements of a list argument and its length are graph constants"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def step(x, flag=None):
                if flag is None:
                    return x
                return None

            y = step(ms.Tensor([1.0]))
        """, note="a `return None` under a compile-time branch: reported only when every return is None"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit
            def step(x, labels):
                return x * 2, labels

            def main():
                step(ms.Tensor([1.0]), ["cat", "dog"])
        """, line=5, note="a Python list argument returned (measured: 1 PyExecute)"),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def step(x):
                return {"loss": x * 2}

            out = step(ms.Tensor([1.0]))
        """, line=5),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.names = ["a", "b"]

                def construct(self, x):
                    return self.names

            def test_net():
                net = Net()
                assert net(ms.Tensor([1.0])) == ["a", "b"]
        """, line=10),
        Invalid("""
            import mindspore as ms

            def test_step():
                @ms.jit
                def step(x):
                    y = x + 1

                assert step(ms.Tensor([1.0])) is None
        """, line=5, note="returns nothing: None is built with PyExecute (reported at the def)"),
        Invalid("""
            import mindspore as ms

            @ms.jit
            def step(x):
                out = dict(y=x)
                return x, out

            res = step(ms.Tensor([1.0]))
        """, line=6),
    ]

    def leave_scope(self, scope, ctx) -> None:
        if not ctx.called_from_python:
            return
        func = ctx.func
        if _ends_without_value(func):
            if any(r.value is not None for r, _ in _returns(func)):
                rets = [r for r, _ in _returns(func)]
                ctx.report(rets[-1], what="None", where=ctx.where)
            else:
                ctx.report_at(func.lineno, ctx.char_col(func.lineno, func.col_offset),
                              what="None (it returns nothing)", where=ctx.where, fix=_return_empty_fix(ctx, func))
            return
        outputs = _Outputs(ctx, func)
        rets = list(_returns(func))
        only = len(rets) == 1 and rets[0][1]  # one return, a top-level statement: every call reaches it
        whys = [(r, outputs.why(r.value) if r.value is not None else "None") for r, _ in rets]
        every = all(w for _, w in whys)
        for r, why in whys:
            if why and r.value is not None and (only or every):
                ctx.report(r.value, what=why, where=ctx.where, fix=tuple_output_fix(ctx, r.value, why)
                           or _tuple_elements_fix(ctx, r.value, outputs))


def _tuple_elements_fix(ctx, value: ast.AST, outputs: "_Outputs"):
    """A returned tuple holding Python lists or sets: each such element as a tuple (``return
    y, seen`` → ``return y, tuple(seen)``); None when another element is what needs PyExecute
    (a dict, None, an object)."""
    if not isinstance(value, ast.Tuple):
        return None
    fixes = []
    nones = False
    for elt in value.elts:
        if isinstance(elt, ast.Constant) and elt.value is None and elt.lineno == elt.end_lineno:
            nones = True  # `()`: an empty tuple is a native output (measured: 0 PyExecute for `return loss, ()`)
            fixes.append(Fix("", (Edit(elt.lineno, elt.col_offset, elt.end_lineno, elt.end_col_offset, "()"),),
                             FixSafety.UNSAFE, drops=("None",)))
            continue
        why = outputs.why(elt)
        if not why:
            continue
        fix = tuple_output_fix(ctx, elt, why if "set" not in why else why.replace("set", "list"))
        if fix is None:
            return None
        fixes.append(fix)
    if not fixes:
        return None
    if nones and len(fixes) > 1:
        return None  # one rewrite at a time: None and the lists get different conditions
    if nones:
        return Fix("return `()` for the tuple's None (unsafe: the same only when the Python caller does not test "
                   "that element for None; it gets an empty tuple)", fixes[0].edits, FixSafety.UNSAFE,
                   drops=("None",))
    from dataclasses import replace
    return replace(fixes[0], edits=tuple(e for f in fixes for e in f.edits),
                   description="return the tuple's Python lists and sets as tuples (unsafe: the same only when the "
                               "Python caller uses them as sequences (indexing, iteration, `len`); a tuple has no "
                               "`append` or set operations, and a set's elements come in its iteration order)")


def _return_empty_fix(ctx, func: ast.AST):
    """A graph entry that returns nothing → ``return ()`` at the end of its body: an empty tuple
    is a native output (measured on 2.10 CPU: fallback_pos_output_nothing with `return ()` has
    0 PyExecute nodes). Unsafe: the Python caller gets ``()`` instead of None."""
    last = func.body[-1]
    if last.lineno == func.lineno or isinstance(last, (ast.Return, ast.Raise)):
        return None
    first = ctx.source.line(func.body[0].lineno)
    indent = first[:len(first) - len(first.lstrip())]
    end_line = ctx.source.line(last.end_lineno)
    if not end_line.strip() or not first.strip() or func.body[0].lineno == func.lineno:
        return None
    col = len(end_line.encode("utf-8"))
    nl = "\r\n" if "\r\n" in ctx.source.text else "\r" if "\r" in ctx.source.text else "\n"
    return Fix("end with `return ()` (unsafe: the same only when the Python caller ignores the result; it gets an "
               "empty tuple instead of None)", (Edit(last.end_lineno, col, last.end_lineno, col, nl + indent +
                                                    "return ()"),), FixSafety.UNSAFE)


_PRINTS = frozenset({"mindspore.ops.print_", "mindspore.ops.Print"})


def _side_effect(stmts: List[ast.stmt], ctx) -> Optional[str]:
    """What side effect a branch body has: a print, a `raise`, a write to a `self` Parameter or
    `ops.assign`. Writes to other `self` attributes are PyExecute by themselves (MSG209): the
    None result adds little to them (mindone's dynamic RoPE update: 21 PyExecute nodes, 19 when
    it returns a tensor) and they are not counted here."""
    for node in walk_outside_defs(*stmts):
        if isinstance(node, ast.Raise):
            return "a `raise`"
        if isinstance(node, ast.Call):
            f = node.func
            q = ctx.qualname(f) or ""
            if (isinstance(f, ast.Name) and f.id == "print" and "print" not in ctx.imports.names) or q in _PRINTS:
                return "a print"
            if q in ("mindspore.ops.assign", "mindspore.ops.assign_add", "mindspore.ops.assign_sub"):
                return "an assign"
        if isinstance(node, (ast.Assign, ast.AugAssign)) and ctx.class_info is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                   and ctx.class_info.attr(t.attr) is Kind.PARAMETER for t in targets):
                return "a Parameter write"
    return None


class NoneResultAfterTensorBranch(Rule):
    code = "MSG415"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "none-result-after-tensor-branch"
    summary = "A graph helper that returns None after a tensor-decided branch with a side effect."
    message = ("`{where}` returns None after a tensor branch: built with PyExecute\n"
               "`{where}` returns None after a branch on a tensor that holds {effect}: MindSpore builds that None "
               "result with PyExecute each time the graph runs this call.")
    hint = "return a tensor from the helper (for example its input) and use it, or keep the check outside the graph"
    severity = Severity.WARNING
    rationale = """
        A function called from graph code (a method of the Cell, a module function) whose body
        has an `if` on a tensor value with a side effect inside — a print, a `raise`, a write to a
        `self` attribute or Parameter — and that returns nothing (or `None`) keeps that `None`
        result alive through the Switch; MindSpore 2.10 then builds it with PyExecute nodes on
        the host. Measured on CPU (validate IR, Cell helpers called from `construct`):

        - `if x.sum() > 0: ops.print_(...)` then no return: 2 PyExecute nodes; also in a `for`
          loop over rows, and for a plain function called from a `jit` function (with `print`);
        - `if x.sum() > 0: self.p = x * 2` (a Parameter) then `return None`: 2;
          (writes to `self` attributes that are not Parameters are PyExecute by themselves,
          MSG209, and are not counted as the side effect here);
        - `if x.sum() > 100: raise ValueError(...)` then `return None`: 1.

        Not affected (no PyExecute): the same helper returning a tensor (`return x`), a branch
        without a side effect, a side effect outside any branch, a branch on a shape (folded),
        and the same code written directly in `construct`.
    """
    VALID = [
        Valid("""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def check(self, x):
                    if x.sum() > 0:
                        ops.print_("positive")
                    return x

                def construct(self, x):
                    return self.check(x)
        """, note="the helper returns a tensor"),
        Valid("""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def check(self, x):
                    if x.shape[0] > 1:
                        ops.print_("batched")

                def construct(self, x):
                    self.check(x)
                    return x
        """, note="a branch on a shape is folded"),
        Valid("""
            from mindspore import nn, ops

            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        ops.print_("positive")
                    return x
        """, note="the branch in construct itself"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            from mindspore import nn, ops

            class Net(nn.Cell):
                def check(self, x):
                    if x.sum() > 0:
                        ops.print_("positive")

                def construct(self, x):
                    self.check(x)
                    return x

            net = Net()
            net(ms.Tensor([1.0]))
        """, line=6),
        Invalid("""
            import mindspore as ms
            from mindspore import nn

            class Net(nn.Cell):
                def validate(self, x):
                    if x.max() > 100:
                        raise ValueError("input out of range")
                    return None

                def construct(self, x):
                    self.validate(x)
                    return x * 2

            Net()(ms.Tensor([1.0]))
        """, line=6),
    ]

    def leave_scope(self, scope, ctx) -> None:
        if not scope.chain or ctx.func is None or not _ends_without_value(ctx.func):
            return
        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in walk_outside_defs(*ctx.func.body)):
            return
        for node in walk_outside_defs(*ctx.func.body):
            if isinstance(node, ast.If) and ctx.kind(node.test).tensor_like:
                effect = _side_effect(node.body, ctx) or _side_effect(node.orelse, ctx)
                if effect:
                    ctx.report(node.test, where=ctx.where, effect=effect)
                    return

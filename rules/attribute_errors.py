"""MSG508: an attribute the value does not have (a Tensor's, a local list/tuple/dict's, the
length of an ``ms.mutable`` scalar): graph mode raises ``AttributeError`` on 2.10."""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.fix.hostfixes import inplace_name_fix, named_tuple_fix
from msgraphlint.kinds import Kind
from msgraphlint.rule import FixSafety, Invalid, Rule, Severity, Valid

from msgraphlint.infer.guards import maybe_not_compiled
from msgraphlint.infer.provenance import _CACHE, assigned_values, rebound, surely_tensor

_DISPLAY = {ast.List: list, ast.Tuple: tuple, ast.Dict: dict}
_SHOWN = {list: "List", tuple: "Tuple", dict: "Dictionary"}
_MUTABLE = ("mindspore.mutable", "mindspore.graph.mutable", "mindspore.common.mutable.mutable")


class NoSuchAttribute(Rule):
    code = "MSG508"
    fix_safety = FixSafety.UNSAFE  # .values -> [0], m.triu_(k) -> m = m.triu(k) (msgraphlint/fix/hostfixes.py)
    name = "no-such-attribute"
    summary = ("An attribute MindSpore's Tensor does not have (`x.abs2`, `getattr(x, \"size_\")`), one a local "
               "list, tuple or dict does not have, or `len()` of an `ms.mutable` scalar, in graph-mode code.")
    message = "`{expr}`: {what}\n{why}"
    hint = "{advice}"
    severity = Severity.ERROR
    rationale = """
        MindSpore's Tensor has the methods and properties the catalog lists (generated from
        `dir(mindspore.Tensor)` and `mindspore.Parameter` of 2.10); an attribute outside that
        set fails the graph. Measured on 2.10 CPU inside `@ms.jit`: `x.abs2()` and
        `getattr(x, "abs2")()` on a tensor argument fail with `AttributeError: 'Tensor'
        object has no attribute 'abs2'`; `l.abs2` on a local list, `t.shape` on a local
        tuple and `d.abs2` on a local dict with `'List'`/`'Tuple'`/`'Dictionary' object has no
        attribute`; `len(ms.mutable(2))` with `AttributeError: 'Int' object has no attribute
        '__len__'`; at STRICT each fails with `AttributeError: In JIT strict mode, cannot get
        attributes ...` (labeled fixtures `api_pos_attr_*`). `getattr(x, "abs2", None)` (with a default) compiles and gives the
        default, and so does code under `if hasattr(x, "abs2"):`; neither is reported, nor is
        anything under another type test (`if isinstance(v, dict): return x.keys()` on a tensor
        compiles and runs on 2.10: the branch is folded away; MindSpore's own test
        `test_attr_in_control_flow_no_check` asserts it).

        Only what is certain is reported: the receiver must be a value the analysis knows is
        a tensor (not a guess from a bare parameter), or a local name every assignment of
        which in the function is a list, tuple or dict display, or a parameter of a graph
        entry that every call site in the module passes such a display and the body never
        rebinds (MindSpore's own `test_getattr_list_with_wrong_attr`, `..._tuple_...` and
        `..._dict_...`, `foo([1, 2, 3, 4])` with `getattr(x, "abs2")`, still raise
        `AttributeError` on 2.10 CPU); the attribute must be
        spelled (`x.name`, or `getattr` with a string literal); names starting with `_` are
        left alone; a lookup inside `try: ... except AttributeError` or a `raise` is skipped.
    """
    VALID = [
        Valid("""
            import mindspore as ms

            @ms.jit
            def f(x):
                y = x * 2
                l = [1, 2]
                l.append(3)
                d = {"a": 1}
                n = y.shape[0] + y.size + d.get("a") + l[2]
                g = getattr(y, "abs2", None)
                if hasattr(y, "abs2"):
                    y = y.abs2()
                return y.abs(), n, g, (1, 2).index(2)

            f(ms.Tensor([1.0, 2.0]))
        """, note="real Tensor, list and dict attributes; getattr with a default; a hasattr guard"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit
            def f(x):
                y = x * 2
                a = y.abs2()
                b = getattr(y, "abs2")()
                t = (1, 2)
                return a, b, t.shape, len(ms.mutable(2))

            f(ms.Tensor([1.0, 2.0]))
        """, line=[6, 7, 9, 9]),
    ]

    def check_module(self, ctx) -> None:
        _CACHE.clear()

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if not isinstance(node.ctx, ast.Load) or node.attr.startswith("_"):
            return
        recv, values = node.value, ctx.values
        if isinstance(recv, ast.Name) and values is not None and recv.id in values.params \
                and recv.id not in values.param_pytypes and ctx.kind(recv) is Kind.UNKNOWN:
            return  # `self.<attr>` and the like: a parameter of no known type (_owner would say None)
        self._check(node, recv, node.attr, ctx)

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Name) or node.keywords:
            return
        if f.id == "getattr" and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and not node.args[1].value.startswith("_"):
            self._check(node, node.args[0], node.args[1].value, ctx)
        elif f.id == "len" and len(node.args) == 1 and self._mutable_scalar(node.args[0], node, ctx) \
                and not maybe_not_compiled(node, ctx, ("AttributeError",)):
            ctx.report(node, expr=_short(ctx.segment(node)), what="an `ms.mutable` scalar has no length",
                       why="The graph fails to compile (`AttributeError: 'Int' object has no attribute '__len__'`).",
                       advice="`ms.mutable` a tuple or list to get a variable-length sequence, or take `len` of "
                              "the Python value before making it mutable")

    # ------------------------------------------------------------------
    def _check(self, node: ast.AST, recv: ast.AST, attr: str, ctx) -> None:
        cat = ctx.catalog
        on_tensor = cat.tensor_method(attr) is not None or cat.parameter_method(attr) is not None \
            or hasattr(tuple, attr)
        if on_tensor and isinstance(recv, (ast.Attribute, ast.Call, ast.Subscript, ast.BinOp)):
            return  # a name every Tensor has, on a receiver only the Tensor path can judge (cheap exit)
        if ctx.qualname(recv):
            return  # a module or class attribute (another rule's concern)
        owner = self._owner(recv, node, ctx, skip_tensor=on_tensor)
        if owner is None or maybe_not_compiled(node, ctx, ("AttributeError",)):
            return
        if owner == "Tensor":
            if on_tensor:
                return  # (a tuple's own names: some MindSpore functions return tuples of tensors)
            from .version_api import tensor_method_elsewhere
            other = tensor_method_elsewhere(cat, attr)
            if other:  # another release's Tensor has it (the per-release catalogs)
                ctx.report(node, expr=_short(ctx.segment(node)), what=f"MindSpore {cat.version}'s Tensor has no attribute `{attr}`",
                           why=f"MindSpore {cat.version}'s Tensor has no attribute `{attr}` ({other}): the graph "
                               f"fails to compile (`AttributeError: ... object has no attribute '{attr}'`).",
                           advice=f"use what MindSpore {cat.version}'s Tensor has, or pin a release that has `{attr}`")
                return
            what = f"MindSpore's Tensor has no attribute `{attr}`"
            why = ("Nor has the tuple some MindSpore functions return where PyTorch returns a named tuple "
                   "(`x.max(dim=...)`, `mint.topk`): the graph fails to "
                   f"compile (`AttributeError: ... object has no attribute '{attr}'`).")
            advice = ("index the tuple (`x.max(dim=-1)[0]`) or use MindSpore's name for the method "
                      "(`dir(mindspore.Tensor)`)")
        else:
            if hasattr(_TYPES[owner], attr):
                return
            what = f"a Python {_TYPES[owner].__name__} has no attribute `{attr}`"
            why = (f"The graph fails to compile (`AttributeError: '{owner}' object has no attribute '{attr}'`).")
            advice = f"check the value's type: a {_TYPES[owner].__name__} has no `{attr}`"
        fix = None
        if owner == "Tensor" and isinstance(node, ast.Attribute):
            fix = named_tuple_fix(ctx, node) or inplace_name_fix(ctx, node)
        ctx.report(node, expr=_short(ctx.segment(node)), what=what, why=why, advice=advice, fix=fix)

    def _owner(self, recv: ast.AST, at: ast.AST, ctx, skip_tensor: bool = False) -> Optional[str]:
        values = ctx.values
        if isinstance(recv, ast.Name) and values is not None and recv.id in values.params:
            # a parameter every call site of the entry writes as a list/tuple/dict display
            py = getattr(values, "param_pytypes", {}).get(recv.id)
            if py in ("list", "tuple", "dict"):
                return None if rebound(recv.id, at, ctx) else _SHOWN[{"list": list, "tuple": tuple, "dict": dict}[py]]
        k = ctx.kind(recv)
        if k.tensor_like:
            return None if skip_tensor or not surely_tensor(recv, at, ctx) else "Tensor"
        if isinstance(recv, (ast.List, ast.Tuple, ast.Dict)):
            return _SHOWN[_DISPLAY[type(recv)]]
        if isinstance(recv, ast.Name) and k.value in ("pylist", "pydict", "const") \
                and not (values is not None and recv.id in values.params):
            t = _local_display_type(recv.id, at, ctx)
            return _SHOWN[t] if t is not None else None
        return None

    @staticmethod
    def _mutable_scalar(e: ast.AST, at: ast.AST, ctx) -> bool:
        def scalar_mutable(v: ast.AST) -> bool:
            return isinstance(v, ast.Call) and ctx.qualname(v.func) in _MUTABLE and len(v.args) == 1 \
                and not v.keywords and isinstance(v.args[0], ast.Constant) \
                and type(v.args[0].value) in (int, float, bool)
        if scalar_mutable(e):
            return True
        if isinstance(e, ast.Name):
            values = assigned_values(e.id, at, ctx)
            return bool(values) and all(scalar_mutable(v) for v in values)
        return False


_TYPES = {"List": list, "Tuple": tuple, "Dictionary": dict}


def _local_display_type(name: str, at: ast.AST, ctx) -> Optional[type]:
    values = assigned_values(name, at, ctx)
    if not values:
        return None
    types = {_DISPLAY.get(type(v)) for v in values}
    if len(types) == 1 and None not in types:
        return types.pop()
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."

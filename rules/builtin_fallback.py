"""MSG420 interpreted-builtin: a Python builtin the graph parser does not convert, called on
graph values, runs in the interpreter.

Which builtins are not converted is MindSpore's own data: ``scripts/gen_catalog.py`` reads the
parser's tables of the installed MindSpore (``convert_object_map``,
``constant_fold_functions``) into the catalog's ``graph_builtins``. What counts as a graph
value is ``_parsetime.graph_value``.
"""

from __future__ import annotations

import ast
from typing import FrozenSet

from msgraphlint.fix.hostfixes import builtin_fix
from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid
from msgraphlint.infer.values import Kind

from msgraphlint.infer.hostvalues import builtin, short, under_string_dispatch
from msgraphlint.infer.parsetime import graph_value

# builtins other rules own: exec (MSG5xx unsupported syntax), open (MSG211), setattr/delattr
# (attribute writes), repr/format of a tensor (MSG401, checked below), input/breakpoint
# (interactive), eval/compile/globals/locals/vars (code objects and namespaces)
_OWNED = frozenset({"exec", "eval", "compile", "open", "setattr", "delattr", "input", "breakpoint",
                    "globals", "locals", "vars", "aiter", "anext"})
_HINTS = {
    "all": ("test tensors with `ops.all`/`t.all()` (or `ops.logical_and`), and compile-time facts with an "
            "`and` chain (`x.shape[0] > 0 and x.shape[1] > 0`, `a is not None and b is not None` compile natively)"),
    "any": ("test tensors with `ops.any`/`t.any()` (or `ops.logical_or`), and compile-time facts with an "
            "`or` chain (`a is None or b is None` compiles natively)"),
    "type": "`isinstance(x, Tensor)` is resolved at compile time",
    "divmod": "`n // d, n % d` compile natively",
    "sorted": "sort in `__init__` (Python) or use `ops.sort` on a tensor",
    "reversed": "iterate over a reversed slice: `for blk in self.blocks[::-1]`, `for f in feats[::-1]` compile natively",
    "dict": "write a dict literal: `{\"a\": x}` compiles natively",
    "slice": "write the slice in the subscript: `x[0:n]` compiles natively",
    "set": "deduplicate in `__init__` (Python), or on tensors with `ops.unique`",
}
_CACHE: dict = {}  # id(catalog) -> (catalog, names)
_GENERIC_HINT = "compute it in `__init__` or before calling the Cell, or use the native operator/`ops.*` equivalent"


def _in_error_message(node: ast.AST, ctx) -> bool:
    """Inside a `raise` statement or an `assert`'s message (not its test)."""
    child = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Raise):
            return True
        if isinstance(anc, ast.Assert):
            return child is anc.msg
        if isinstance(anc, ast.stmt):
            return False
        child = anc
    return False


def interpreted_builtins(ctx) -> FrozenSet[str]:
    """Builtins the 2.10 parser hands to the interpreter: the functions it does not convert,
    the builtin types it has no graph form for (`set`, `reversed`, `slice`, `dict`, `complex`,
    `type`), and the ones it only folds on constants."""
    cat = ctx.catalog
    cached = _CACHE.get(id(cat))
    if cached is None or cached[0] is not cat:
        names = (cat.graph_builtins("interpreted_builtins") | cat.graph_builtins("unsupported_types")
                 | (cat.graph_builtins("constant_folded") - cat.graph_builtins("converted"))) - _OWNED
        cached = _CACHE[id(cat)] = (cat, names)
    return cached[1]


class InterpretedBuiltin(Rule):
    code = "MSG420"
    fix_safety = FixSafety.SAFE  # and/or chains, dict literals, reversed slices where proved; else unsafe
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "interpreted-builtin"
    summary = ("`all()` / `any()` / `type()` / `reversed()` / `sorted()` / `set()` … on graph values: builtins "
               "MindSpore has no graph form for run in the interpreter.")
    message = ("`{call}` runs in the Python interpreter\n"
               "In graph-mode code ({where}) MindSpore's graph parser has no graph form of the builtin `{name}` and "
               "folds it only when every argument is a Python constant at parse time; {why}, so it runs in the "
               "Python interpreter (PyExecute), which cuts the graph.")
    hint = _GENERIC_HINT
    severity = Severity.WARNING
    rationale = """
        MindSpore's graph parser converts some builtins into graph operations (`len`, `max`,
        `min`, `sum`, `abs`, `isinstance`, `zip`, `enumerate`, `map`, `range`, ...: its
        `convert_object_map`). Every other builtin function (`all`, `any`, `sorted`,
        `divmod`, `format`, `repr`, `hash`, `callable`, ...) and the builtin types it has
        no graph form for (`type`, `set`, `reversed`, `slice`, `dict`, `complex`) go to the Python
        interpreter, unless the parser can fold the call because every argument is a
        Python constant while it parses (literals, `self.<attr>` holding Python values,
        module globals, Python scalars passed by the caller). The list is generated from
        the installed MindSpore's parser tables (`scripts/gen_catalog.py`, catalog
        `graph_builtins`).

        Measured on MindSpore 2.10 CPU (Cell `construct`, PyExecute/PyInterpret nodes in
        the validate IR):

        | call | nodes |
        |---|---|
        | `all(s == 1 for s in self.stride)`, `all([True, True])`, `all(self.flags)`, `sorted(self.keys)` | 0 (folded) |
        | `all(d > 0 for d in x.shape)`, `any(x.shape)` | 3 |
        | `all((x.ndim == 2, True))`, `all((x.dtype == ms.float32, True))` | 3, 4 |
        | `all(t is not None for t in (x, mask))`, `all([x is not None, mask is not None])` | 4 |
        | `all((x, x + 1))`, `all(x)`, `any(x > 0)` | 2 |
        | `sorted(x.shape)` | 5 |
        | `divmod(x.shape[0], 2)` | 8 |
        | `type(x) is Tensor`, `isinstance(y, type(x))` | 6, 4 |
        | `for f in reversed(feats)` (`feats = [x, y, x + y]`), `reversed(range(x.ndim)[1:])` | 14 |
        | `for blk in reversed(self.blocks)` (a CellList) | 14, then `RuntimeError: Unsupported element type[unknown]` at run time |
        | `set(x.shape)`, `slice(0, x.shape[0] // 2)`, `dict(a=x, b=2)` | 6, 4, 7 |
        | `set([1, 2, 1])`, `reversed(range(3))`, `complex(1, 2)`, `slice(0, 1)` | 0 (folded) |

        A value the compiler works out at compile time (a static shape, `x is not None`)
        is still a graph value for the parser: the call is not folded. The native
        spellings compile without fallback (measured, 0 nodes): `x.shape[0] > 0 and
        x.shape[1] > 0`, `x is not None and mask is not None`, `x.shape[0] // 2, x.shape[0] % 2`,
        `isinstance(x, Tensor)`, `ops.logical_and(x > 0, x < 5).all()`, `feats[::-1]`,
        `self.blocks[::-1]`, `{"a": x, "b": 2}`, `x[0:x.shape[0] // 2]`.

        Not reported: arguments of unknown kind; `repr`/`format` of a tensor (MSG401);
        `exec` and `open`, which other rules report.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self, stride=(1, 1)):
                    super().__init__()
                    self.stride = stride

                def construct(self, x):
                    if all(s == 1 for s in self.stride):
                        return x
                    return x * 2
        """, note="Python values of the Cell: folded while parsing"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if x.shape[0] > 0 and mask is not None:
                        return x * mask
                    return x
        """, note="an `and` chain is compiled natively"),
        Valid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    n = max(d for d in x.shape)
                    return x * n
        """, note="`max` is converted by the parser"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    if all(d % 2 == 0 for d in x.shape):
                        return x
                    return x * 2
        """, line=5),
        Invalid("""
            import mindspore as ms
            from mindspore import Tensor

            @ms.jit
            def step(x, y):
                if type(x) is Tensor:
                    return x + y
                return y
        """, line=6),
        Invalid("""
            import mindspore.nn as nn

            class Decoder(nn.Cell):
                def __init__(self, blocks):
                    super().__init__()
                    self.blocks = nn.CellList(blocks)

                def construct(self, x):
                    for blk in reversed(self.blocks):
                        x = blk(x)
                    return x
        """, line=9, note="a CellList: `self.blocks[::-1]` is native"),
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if all(t is not None for t in (x, mask)):
                        return x * mask
                    return x
        """, line=5, note="`is not None` tests are compile-time facts, but not parse-time constants"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Name):
            return
        names = interpreted_builtins(ctx)
        if f.id not in names or not builtin(ctx, node, names):
            return
        if f.id in ("repr", "format") and node.args and ctx.kind(node.args[0]).tensor_like:
            return  # MSG401 (a tensor's value formatted into a string)
        value, why = None, ""
        for a in list(node.args) + [k.value for k in node.keywords]:
            a = a.value if isinstance(a, ast.Starred) else a
            value = graph_value(ctx, a)
            if value is not None:
                why = f"`{short(ctx, value, 30)}` is (or holds) a graph value"
                break
            if f.id == "reversed" and ctx.kind(a) is Kind.CONTAINER:
                value = a  # `reversed(self.blocks)` over a CellList: 14 PyExecute nodes, then a run-time error
                why = (f"`{short(ctx, a, 30)}` is a CellList, which it does not fold either (measured: the loop then "
                       "fails at run time)")
                break
        if value is None or ctx.kind(value) is Kind.HOST or under_string_dispatch(ctx, node):
            return  # a value pulled out of a tensor is reported where it is pulled (MSG401/MSG403)
        if _in_error_message(node, ctx):
            return  # runs only on the error path
        ctx.report(node, hint=_HINTS.get(f.id, _GENERIC_HINT), call=short(ctx, node, 50), name=f.id, why=why,
                   where=ctx.where, fix=builtin_fix(ctx, node))

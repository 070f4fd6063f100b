"""MSG506/MSG507: Tensor method calls and operators that MindSpore 2.10's graph mode rejects
for their arguments alone (PyTorch habits checked against MindSpore's real signatures)."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Tuple

from msgraphlint.fix.codemods import keyword_fix
from msgraphlint.fix.hostfixes import positional_fix
from msgraphlint.kinds import Kind
from msgraphlint.rule import FixSafety, Invalid, Rule, Severity, Valid

from msgraphlint.infer.guards import maybe_not_compiled
from msgraphlint.infer.provenance import surely_tensor

# the literal kinds a call may spell, and which of MindSpore's signature types accept them
# (measured on 2.10 CPU in graph mode: `number` takes int, float and bool; `int` takes
# neither bool nor float; `float` not int; `bool` not int; a list is no `Tuple`)
_ACCEPTS: Dict[str, Tuple[str, ...]] = {
    "int": ("int", "number", "any"),
    "float": ("float", "number", "any"),
    "bool": ("bool", "number", "any"),
    "str": ("str", "any"),
    "None": ("None", "any"),
    "tuple": ("Tuple", "any"),
    "list": ("List", "any"),
}
_SHOWN = {"int": "int", "float": "float", "bool": "bool", "str": "string", "None": "None",
          "tuple": "tuple", "list": "list"}


def literal_type(e: ast.AST) -> Optional[str]:
    """The type of a literal argument (``1``, ``-1``, ``2.5``, ``True``, ``"a"``, ``None``,
    ``(1, 2)``, ``[1]``); None for anything else (names, calls: never guessed)."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)) \
            and isinstance(e.operand, ast.Constant) and type(e.operand.value) in (int, float):
        return type(e.operand.value).__name__
    if isinstance(e, ast.Constant):
        v = e.value
        if v is None:
            return "None"
        if type(v) in (bool, int, float, str):
            return type(v).__name__
        return None
    if isinstance(e, ast.Tuple):
        return "tuple"
    if isinstance(e, ast.List):
        return "list"
    return None


def _packable(over: dict) -> bool:
    """Whether separate positional ints may be packed into the first parameter. Measured on
    2.10: `x.reshape(3, 2)`, `x.view(3, 2)`, `x.permute(0, 2, 1)`, `x.tile(1, 2)` and
    `x.transpose(0, 2, 1)` compile (a first parameter that takes a tuple but no int, or one
    MindSpore's docstring spells `*axes`); `x.max(0, 1)`, `x.sum(0, 1, 1)` and
    `x.mean(0, 1)` do not (their first parameter also takes an int). Generous on purpose:
    `x.squeeze(0, 1)` fails although its docstring says `*axis`, and is not reported."""
    params = over["params"]
    if not params or params[0]["kw"]:
        return False
    types = set(params[0]["types"])
    return bool(over.get("varargs")) or (bool({"Tuple", "List"} & types) and "int" not in types)


def match_overload(over: dict, args: Sequence[ast.AST], keywords: Sequence[ast.keyword]) -> Optional[str]:
    """None when the overload may accept the call; else why it cannot (MindSpore's words)."""
    params: List[dict] = over["params"]
    positional = [p for p in params if not p["kw"]]
    bound: Dict[str, Optional[ast.AST]] = {}
    if args and _packable(over):
        kinds = [literal_type(a) for a in args]
        if all(k in (None, "int", "bool") for k in kinds):
            bound[params[0]["name"]] = None  # may be packed into the tuple: not type-checked
            args = ()
    if len(args) > len(positional):
        return f"takes {len(positional)} positional arguments but {len(args)} were given"
    for p, a in zip(positional, args):
        bound[p["name"]] = a
    names = {p["name"] for p in params}
    for k in keywords:
        if k.arg not in names:
            return f"incorrect keyword name: {k.arg}"
        if k.arg in bound:
            return f"got multiple values for argument '{k.arg}'"
        bound[k.arg] = k.value
    missing = [p["name"] for p in params if p["req"] and p["name"] not in bound]
    if missing:
        return f"missing {len(missing)} required argument{'s' if len(missing) > 1 else ''}: {', '.join(missing)}"
    bad_types = []
    by_name = {p["name"]: p for p in params}
    for name, e in bound.items():
        lt = literal_type(e) if e is not None else None
        if lt is not None and not set(_ACCEPTS[lt]) & set(by_name[name]["types"]):
            bad_types.append(f"{name}={_SHOWN[lt]}")
    if bad_types:
        return f"invalid types: ({', '.join(bad_types)})"
    return None


# Tensor methods of the overload table that Python's list, tuple, dict or str also has: checked
# only on a receiver that is a tensor by its making (msgraphlint/infer/provenance.py)
_ALSO_PYTHON = frozenset(n for n in ("index", "sort", "split", "count", "copy", "pop", "insert", "remove",
                                     "reverse", "get", "update", "keys", "values", "items", "replace", "join",
                                     "strip", "format", "find", "startswith", "endswith", "lower", "upper")
                         if hasattr(list, n) or hasattr(tuple, n) or hasattr(dict, n) or hasattr(str, n))


def _receiver_and_args(node: ast.Call, ctx) -> Optional[Tuple[ast.AST, str, List[ast.AST]]]:
    f = node.func
    if not isinstance(f, ast.Attribute):
        return None
    owner = ctx.qualname(f.value)
    if owner in ("mindspore.Tensor", "mindspore.Parameter"):
        if not node.args:  # `Tensor.add()`: no receiver either
            return None
        return node.args[0], f.attr, list(node.args[1:])
    if owner:
        return None
    return f.value, f.attr, list(node.args)


class TensorMethodSignature(Rule):
    code = "MSG506"
    fix_safety = FixSafety.UNSAFE  # keyword renames (dim -> axis): the call fails to compile as written
    name = "tensor-method-signature"
    summary = ("A Tensor method called with arguments none of its MindSpore overloads accepts: a keyword name it "
               "does not have, too many positional arguments, a missing one, or a literal of a type it rejects.")
    message = "`{call}` matches no overload of `Tensor.{method}`\nThe valid calling should be: {valid}"
    hint = "use one of the signatures MindSpore lists (PyTorch's names and defaults often differ: `keepdim`/`keepdims`, `dim`/`axis`)"
    severity = Severity.ERROR
    rationale = """
        In graph mode MindSpore 2.10 matches a Tensor method call against the method's
        overloads (the table of `Tensor.<name>(...)` signatures compiled into MindSpore,
        which the catalog reads: `tensor_overloads`, 181 methods) and rejects the graph when
        none matches. Measured on 2.10 CPU inside `@ms.jit`:
        `x.clamp(min=1, max_value=10)` fails with `TypeError: Failed calling clamp with
        "clamp(min=int, max_value=int)". The valid calling should be: "Tensor.clamp(min=<Tensor,None>,
        max=<Tensor,None>)" ... match failed because incorrect keyword name: max_value`;
        `x.max(dim=0, keepdims=True)` (PyTorch's `keepdim` mixed with NumPy's `keepdims`)
        fails the same way; `x.abs(1)` with `abs() takes 0 positional arguments but 1 was
        given.`; `x.add()` and `x.roll(1)` with a missing argument; `x.topk(1, 0, 1, True)`,
        `x.chunk(2.0)` and `x.lerp(y, 1)` with `match failed because invalid types` (the
        types are strict: an `int` parameter takes no `bool` or `float`, a `float` one no
        `int`, a `bool` one no `int`; only `number` takes all three; a list is no `Tuple`).

        Only what is certain is reported: the receiver must be a value the analysis knows
        is a tensor (a Tensor-typed argument from the callers, an ops result...; for `index`,
        `sort` and `split`, which Python's list and str have too, a tensor by its making,
        never a Cell's output), only literal arguments are type-checked (a name is never guessed), a call with `*args`
        or `**kwargs` is skipped, and so is a call under a type test (`if isinstance(v, dict):`,
        folded at compile time) or inside a `raise`; so is an overload whose first parameter takes a tuple
        when several positional ints are given (`x.reshape(b, -1)`, `x.permute(0, 2, 1)`
        and `x.tile(1, 2)` compile: MindSpore packs them). A missing argument is reported
        only where MindSpore's own docstring signature says the parameter has no default
        (every method whose overloads all need an argument was compiled without one on
        2.10 and failed).
    """
    VALID = [
        Valid("""
            import mindspore as ms

            @ms.jit
            def f(x):
                a = x.clamp(min=1, max=10)
                b = x.max(0, keepdims=True) + x.max(dim=0, keepdim=True)[0]
                c = x.reshape(3, 2).permute(1, 0)
                d = x.sum(dim=0, keepdim=True, dtype=ms.float32)
                return a, b, c, d, x.add(x, alpha=2), x.abs()

            f(ms.Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        """, note="keyword names, positional counts and literal types MindSpore accepts; packed ints"),
        Valid("""
            import mindspore as ms

            @ms.jit
            def f(x, dim, kw):
                return x.max(dim, True), x.sum(*dim), x.mean(**kw)

            def g(x):
                return x.clamp(min=1, max_value=10)   # not graph code
        """, note="variables are never type-guessed; *args/**kwargs calls are skipped; outside graph mode"),
        Valid("""
            import mindspore as ms

            class Box:
                def clamp(self, min_value, max_value):
                    return min_value

            @ms.jit
            def f(x):
                return Box().clamp(min_value=0, max_value=1)

            f(ms.Tensor([1.0]))
        """, note="a receiver that is not a tensor"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            @ms.jit
            def f(x):
                a = x.clamp(min=1, max_value=10)
                b = x.max(dim=0, keepdims=True)
                c = x.abs(1)
                d = x.chunk(2.0)
                return a, b, c, d, ms.Tensor.add(x)

            f(ms.Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        """, line=[5, 6, 7, 8, 9]),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        got = _receiver_and_args(node, ctx)
        if got is None:
            return
        recv, method, args = got
        overloads = ctx.catalog.tensor_overloads(method)
        if overloads is None:
            return
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
            return
        if not ctx.kind(recv).tensor_like or _guessed(ctx, recv):
            return
        if method in _ALSO_PYTHON and not surely_tensor(recv, node, ctx):
            return  # `parts.index(v)`, `names.sort(key=...)`, `text.split(",")` on a value only taken for a tensor
        if maybe_not_compiled(node, ctx, ("TypeError",)):
            return  # under a type test or in an error message: compiled only if the branch is taken
        valid = []
        for over in overloads:
            why = match_overload(over, args, node.keywords)
            if why is None:
                return
            valid.append(f"{over['text']} ({why})")
        ctx.report(node, call=_short(ctx.segment(node)), method=method, valid=" | ".join(valid),
                   fix=keyword_fix(node, overloads, match_overload) or positional_fix(node, args, overloads, match_overload))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


def _guessed(ctx, node: ast.AST) -> bool:
    from msgraphlint.infer.params import SHARED_USES
    return ctx.values is not None and SHARED_USES.guessed(ctx, node)


_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.FloorDiv: "//",
          ast.Mod: "%"}


class TensorOperandType(Rule):
    code = "MSG507"
    name = "tensor-operand-type"
    summary = ("Arithmetic between a tensor and `None` or a string, or a tensor raised to a tuple or list "
               "literal: MindSpore 2.10 rejects the graph.")
    message = "`{expr}`: {why}\n{effect}"
    hint = "{advice}"
    severity = Severity.ERROR
    rationale = """
        In graph mode an arithmetic operator on a tensor is matched against the overloads
        of the Tensor operation it stands for (`+` is `Tensor.add`, `-=` is `Tensor.sub`,
        `**` is `Tensor.pow`...). Measured on 2.10 CPU inside `@ms.jit`, for `+ - * / ** //
        %`, in both operand orders and as augmented assignments (`x -= y`): a tensor with
        `None` (a literal or a local bound only to `None`) fails with `TypeError: Failed
        calling sub with "sub(None)". The valid calling should be: "Tensor.sub(other=<number>,
        *, alpha=<number>)"...` (or `Failed calling FloorDiv with ... other=None`), and so
        does a tensor with a string literal. A tensor raised to a tuple or list literal
        (`x ** (2, 2, 2)`, `t[idx] **= (2, 2)`) fails with `Failed calling pow with
        "pow(tuple<int, int, int>)"` (`Tensor.pow(exponent=<number>)`), while `+ - * / // %`
        accept a tuple or list (it is converted to a tensor) and are not reported. At STRICT
        (`MS_DEV_JIT_SYNTAX_LEVEL=0`) the same lines fail too, with a `ValueError` (labeled
        fixtures `api_pos_op_*`).

        Only operands the analysis knows: a tensor on one side (not a guess from a bare
        parameter; for a string, a tensor by its making: `text + "_x"` on a Cell's output is
        string concatenation), and `None`, a string or a tuple/list display on the other. A name that
        may be `None` on one path and a tensor on another (an optional argument) is not
        reported, nor is an operation under a type test or inside a `raise`.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            from mindspore import nn, Tensor

            class Net(nn.Cell):
                def construct(self, x, bias=None):
                    y = x * 2
                    if bias is not None:
                        y = y + bias
                    z = y + (1, 2, 3)
                    return y ** 2, z - [1, 2, 3]

            Net()(Tensor([1.0, 2.0, 3.0]))
        """, note="an optional argument used under its `is not None` test; tuple and list operands of `+`/`-`"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            from mindspore import nn, Tensor

            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    scale = None
                    y -= scale
                    z = x ** (2, 2, 2)
                    return y, z, x + "1"

            Net()(Tensor([1.0, 2.0, 3.0]))
        """, line=[8, 9, 10]),
    ]

    def visit_BinOp(self, node: ast.BinOp, ctx) -> None:
        sym = _ARITH.get(type(node.op))
        if sym is not None:
            self._check(node, node.left, node.right, sym, ctx, aug=False)

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        sym = _ARITH.get(type(node.op))
        if sym is not None:
            self._check(node, node.target, node.value, sym, ctx, aug=True)

    def _check(self, node, left, right, sym, ctx, aug: bool) -> None:
        if maybe_not_compiled(node, ctx, ("TypeError",)):
            return
        sides = ((left, right),) if aug else ((left, right), (right, left))
        for tensor, other in sides:
            target = tensor.value if aug and isinstance(tensor, ast.Subscript) else tensor
            if isinstance(target, ast.Starred) or not ctx.kind(target).tensor_like or _guessed(ctx, target):
                continue
            what = self._bad_operand(other, sym, ctx, node)
            if what is None or (what == "a string" and not surely_tensor(target, node, ctx)):
                continue  # (`prefix + "_x"` on a value only taken for a tensor is string concatenation)
            op = f"{sym}=" if aug else sym
            ctx.report(node, expr=_short(ctx.segment(node)),
                       why=f"`{op}` between a tensor and {what}",
                       effect="No overload of the Tensor operation accepts it and the graph fails to compile "
                              "(`TypeError: Failed calling ... with`).",
                       advice="a `None` operand needs an `is None` test first; a string must be a number; "
                              "`**` takes a number or a tensor (`ops.pow(x, Tensor(exponents))`)")
            return

    @classmethod
    def _bad_operand(cls, e: ast.AST, sym: str, ctx, at: ast.AST) -> Optional[str]:
        lt = literal_type(e)
        if lt == "None" or (lt is None and isinstance(e, ast.Name) and ctx.kind(e) is Kind.NONE
                            and cls._surely_none(e, at, ctx)):
            return "`None`"
        if lt == "str":
            return "a string"
        if sym == "**" and lt in ("tuple", "list"):
            return f"a {lt} (`**` takes a number or a tensor)"
        return None

    @staticmethod
    def _surely_none(name: ast.Name, at: ast.AST, ctx) -> bool:
        """A local the analysis holds as None, used outside any loop, in a function that never
        tests it (`is None`, `if name`, `isinstance(name, ...)`, `a if name else b`): the
        value analysis does not narrow at such tests, and a loop may rebind it (measured on
        mindone: `buckets = None` then `buckets + ...` under `if buckets is None: ... else:`)."""
        func = None
        for anc in ctx.ancestors(at):  # (`at`: the operation being visited, whose parents are known)
            if isinstance(anc, (ast.For, ast.AsyncFor, ast.While, ast.comprehension)):
                return False
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                func = anc
                break
        if func is None:
            return False
        tests: List[ast.AST] = []
        for n in ast.walk(func):
            if isinstance(n, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                tests.append(n.test)
            elif isinstance(n, (ast.Compare, ast.BoolOp)):
                tests.append(n)
            elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
                tests.append(n.operand)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("isinstance", "callable"):
                tests.extend(n.args[:1])
        for t in tests:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and n.id == name.id:
                    return False
        return True

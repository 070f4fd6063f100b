"""MSG502 fixes: a PyTorch function called in graph code → its ``mindspore.ops`` function of the
same semantics (``torch.cat(xs, dim=1)`` → ``ops.cat(xs, axis=1)``).

Each PyTorch function that has one is a row of ``msgraphlint/data/torch_to_mindspore.json``
with a ``fix`` column, read into a :class:`Spec`: the ``ops`` function (the row's ``ms``, the
replacement MSG502's advice names, so the advice and the fix cannot disagree) and PyTorch's
parameters in their order (the documented signature, only the parameters the rewrite keeps).
The ``ops`` function's parameters stand in the same order (checked by hand against both
signatures), so a positional argument stays where it is and a keyword is renamed to the ``ops`` parameter at the same position, whose name is read from the target
release's catalog (``params``, from ``inspect.signature`` of the wheel): a release whose
function is missing, or has fewer parameters than the call uses, gets no fix. A call with
anything else (``out=``, ``dtype=``, ``device=``, ``*args``, ``**kw``, a parameter PyTorch
has and the rewrite does not keep) gets none either, and so does a call that omits a
parameter whose default differs (``torch.softmax(x)``: PyTorch has no default ``dim``, ops'
``axis`` is -1; ``F.softmax(x)`` picks a dim by rank) unless the spec writes it
(``torch.flatten(x)`` → ``ops.flatten(x, start_dim=0)``: ops' ``start_dim`` is 1).

The module's name for ``mindspore.ops`` comes from ``codemods.ops_binding``: the module's
own alias, else an inserted ``from mindspore import ops`` after the top-level imports when no
name ``ops`` is taken; otherwise there is no fix.

Safe: the semantic harness (tests/test_fix_semantics.py) runs tests/data/torchfixes/ before
and after; where the before code calls PyTorch, its child puts tests/data/torch_shim/ on the
path: NumPy implementations of what PyTorch documents for these functions (dtypes included),
so graph mode and PyNative after the fix are compared with PyTorch's meaning. Measured on
2.10 CPU (PyNative and graph mode): equal values and dtypes on float inputs; ``ops.sum`` of an
int32 tensor is int64 and ``ops.argmax`` int64, as PyTorch's; ``ops.arange(5)`` is int64 and
``ops.arange(0, 1, 0.25)`` float32, as PyTorch's; ``ops.squeeze(x, 0)`` of a non-1 axis
returns ``x`` unchanged, as PyTorch 2's. Where MindSpore refuses what PyTorch promotes
(``ops.exp`` of an int32 tensor: TypeError; ``ops.cat`` of mixed dtypes: no kernel), the
fixed code raises: it never computes another value.

Unsafe, with the condition in the description: ``F.dropout`` (random: another random stream),
``F.layer_norm`` (LayerNormExt has no CPU kernel in 2.10: runs on Ascend). No fix:
``torch.full`` with a fill that is not an int literal (``ops.full((2,), 1.5)`` is int64
``[1, 1]`` on 2.10, PyTorch's float32 ``[1.5, 1.5]``), ``torch.max``/``min`` (PyTorch's
three overloads), ``torch.where(c)`` (nonzero), ``torch.tensor``, ``einsum``, ...
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Dict, List, Optional, Tuple

from ..findings import Edit, Fix, FixSafety
from .codemods import ops_binding


@dataclass(frozen=True)
class Spec:
    ms: str                         # the mindspore.ops function
    params: Tuple[str, ...]         # PyTorch's parameters the rewrite keeps, in order
    required: int = 1               # how many of them the call must give (their defaults differ or none)
    keyword: Dict[str, str] = field(default_factory=dict)  # PyTorch's → ops' keyword-only parameter
    fill: Tuple[Tuple[str, str], ...] = ()  # ops keyword written when the call omits it (default differs)
    unsafe: str = ""                # why the fix is unsafe ("" = safe)
    varargs: bool = False           # ``torch.zeros(2, 3)``: the sizes given one by one → one tuple


TABLE = "torch_to_mindspore.json"
_OPS = "mindspore.ops."


@lru_cache(maxsize=1)
def torch_table() -> Dict[str, dict]:
    """``msgraphlint/data/torch_to_mindspore.json`` without its ``_about``: MSG502's advice (the
    ``ms`` column) and its fix (the ``fix`` column) both come from here."""
    with resources.files("msgraphlint.data").joinpath(TABLE).open(encoding="utf-8") as fh:
        return {k: v for k, v in json.load(fh).items() if not k.startswith("_")}


def _spec(q: str, entry: dict) -> Spec:
    fix = entry["fix"]
    target = entry.get("ms") or ""
    if not target.startswith(_OPS) or "." in target[len(_OPS):]:
        raise ValueError(f"{TABLE}: {q} has a fix but its 'ms' {target!r} is no mindspore.ops function")
    unknown = set(fix) - {"params", "required", "keyword", "fill", "varargs", "unsafe"}
    if unknown:
        raise ValueError(f"{TABLE}: {q}'s fix has unknown keys {sorted(unknown)}")
    return Spec(target[len(_OPS):], tuple(fix["params"]), int(fix.get("required", 1)), dict(fix.get("keyword", {})),
                tuple(fix.get("fill", {}).items()), str(fix.get("unsafe", "")), bool(fix.get("varargs", False)))


# one per table row with a ``fix``; the ``ms`` column is the ops function (checked by hand against
# both signatures; tests/test_torchfixes.py against each known release's catalog)
SPECS: Dict[str, Spec] = {q: _spec(q, e) for q, e in torch_table().items() if e.get("fix")}


def _signature(text: Optional[str]) -> Optional[Tuple[List[str], List[str]]]:
    """(positional-or-keyword names in order, keyword-only names) of a catalog ``params``
    string; None when it has ``*args``/``**kwargs`` or is not recorded."""
    if text is None:
        return None
    positional: List[str] = []
    kwonly: List[str] = []
    star = False
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part == "*":
            star = True
        elif part.startswith("*") or part == "/":
            return None if part.startswith("*") else (positional, kwonly)
        else:
            (kwonly if star else positional).append(part.rstrip("="))
    return positional, kwonly


def _int_literal(e: ast.AST) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        e = e.operand
    return isinstance(e, ast.Constant) and type(e.value) is int


def torch_call_fix(ctx, node: ast.Call, q: str) -> Optional[Fix]:
    """The fix for ``q(...)`` (a PyTorch function, MSG502), or None."""
    spec = SPECS.get(q)
    if spec is None or any(isinstance(a, ast.Starred) for a in node.args) \
            or any(k.arg is None for k in node.keywords):
        return None
    target = f"mindspore.ops.{spec.ms}"
    cat = ctx.catalog
    sig = _signature(cat.params(target)) if cat.function(target) is not None else None
    if sig is None:
        return None
    ms_pos, ms_kw = sig
    args = list(node.args)
    if spec.varargs:
        if node.keywords or not args:
            return None
    elif len(args) > len(spec.params):
        return None
    given = {spec.params[i] for i in range(len(args))} if not spec.varargs else {spec.params[0]}
    edits: List[Edit] = []
    drops: List[str] = []
    for i, a in enumerate(args if not spec.varargs else ()):
        name = spec.params[i]
        if name in spec.keyword:  # ops takes it by keyword only (flatten's start_dim)
            if spec.keyword[name] not in ms_kw:
                return None
            edits.append(Edit(a.lineno, a.col_offset, a.lineno, a.col_offset, spec.keyword[name] + "="))
        elif i >= len(ms_pos):
            return None
    for k in node.keywords:
        if k.arg not in spec.params or k.arg in given:
            return None  # out=, dtype=, device=, ...: nothing in the rewrite takes it
        given.add(k.arg)
        if k.arg in spec.keyword:
            new = spec.keyword[k.arg]
            if new not in ms_kw:
                return None
        else:
            i = spec.params.index(k.arg)
            if i >= len(ms_pos):
                return None
            new = ms_pos[i]
        if new != k.arg:
            if getattr(k, "lineno", None) is None:
                return None
            edits.append(Edit(k.lineno, k.col_offset, k.lineno, k.col_offset + len(k.arg), new))
            drops.append(k.arg)
    if any(p not in given for p in spec.params[:spec.required]):
        return None  # a parameter PyTorch requires or defaults otherwise is not given
    if q == "torch.full" and not _int_literal(args[1] if len(args) > 1 else next(
            k.value for k in node.keywords if k.arg == "fill_value")):
        return None  # ops.full((2,), 1.5) is int64 [1, 1] on 2.10 (PyTorch: float32)
    last = args[-1] if args else None
    if node.keywords:
        last = max([*args, *(k.value for k in node.keywords)], key=lambda e: (e.end_lineno, e.end_col_offset))
    for name, value in spec.fill:
        if name not in given:
            if last is None or name not in ms_kw:
                return None
            edits.append(Edit(last.end_lineno, last.end_col_offset, last.end_lineno, last.end_col_offset,
                              f", {name}={value}"))
    if spec.varargs and len(args) > 1:
        first, end = args[0], args[-1]
        edits.append(Edit(first.lineno, first.col_offset, first.lineno, first.col_offset, "("))
        edits.append(Edit(end.end_lineno, end.end_col_offset, end.end_lineno, end.end_col_offset, ")"))
    ops, imports = ops_binding(ctx)
    if ops is None:
        return None
    func = node.func
    old = ctx.segment(func) or ""
    new_func = f"{ops}.{spec.ms}"
    drops += sorted(set(re.findall(r"\w+", old)) - set(re.findall(r"\w+", new_func)))
    edits.insert(0, Edit(func.lineno, func.col_offset, func.end_lineno, func.end_col_offset, new_func))
    short = q.replace("torch.nn.functional.", "F.")
    desc = f"`{short}` → `{new_func}`" + (" (with `from mindspore import ops`)" if imports else "")
    if spec.unsafe:
        return Fix(f"{desc} (unsafe: {spec.unsafe})", tuple(edits) + tuple(imports), FixSafety.UNSAFE,
                   drops=tuple(drops))
    return Fix(desc, tuple(edits) + tuple(imports), FixSafety.SAFE,
               proof=f"`{target}` takes these arguments in PyTorch's order with PyTorch's defaults "
                     f"(MindSpore {cat.version}'s signature); the semantic harness compares it with PyTorch's "
                     "documented meaning", drops=tuple(drops))

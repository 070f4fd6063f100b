"""``ctx.tensor(expr)``: is this value a tensor (surely / maybe / surely not), and where does
it come from. Rules ask here instead of re-deriving it from ``ctx.kind``.

``ctx.kind`` (``values.py``) is the optimistic view the flow walk needs: a bare ``construct``
parameter, a Cell's output and ``Tensor([1.0])`` are all ``Kind.TENSOR``. The answer here
adds what a rule that *reports* needs:

* certainty: ``MAYBE`` for a value whose tensor kind rests only on guessed names (a bare
  parameter the body never uses as a tensor and no caller passes a tensor to: ``def
  construct(self, x, flag): if flag:``; ``x, H, W = self.embed(x)``); ``SURELY_NOT`` for
  compile-time Python values, values pulled to the host, Cells, containers, and for a tuple
  grown by ``y += (out,)``;
* provenance: a graph input (with the callers' evidence or a tensor use in the body), a
  constant folded at compile time (``folding.py``), a Parameter, a Cell output, a Python
  value from the caller, a literal, ...;
* for a local bound to ``self.<attr>`` (``loss = self.loss``), the attribute it aliases:
  graph mode writes ``loss += x`` into the attribute.

Built on the existing machinery: ``ctx.kind``, the project's caller evidence
(``ScopeValues.from_callers``), the parameter-use evidence of ``_params.ScopeUses``, and
``folding.folds``. Answers are memoised per scope walk.
"""

from __future__ import annotations

import ast
from typing import Optional

from ..kinds import Kind
from .answers import Certainty, Provenance, TensorAnswer
from .bindings import facts
from .folding import folds

_SURE = Certainty.SURELY
_MAYBE = Certainty.MAYBE
_NOT = Certainty.SURELY_NOT

_NOT_TENSOR_KINDS = {
    Kind.HOST: Provenance.HOST, Kind.CELL: Provenance.CELL_ATTRIBUTE, Kind.CONTAINER: Provenance.CELL_ATTRIBUTE,
    Kind.PRIMITIVE: Provenance.CELL_ATTRIBUTE, Kind.PYLIST: Provenance.UNKNOWN, Kind.PYDICT: Provenance.UNKNOWN,
    Kind.FUNC: Provenance.UNKNOWN, Kind.MODULE: Provenance.UNKNOWN,
}
# how strongly a provenance says "run-time data" when parts of an expression are joined
_RANK = {Provenance.GRAPH_INPUT: 6, Provenance.PARAMETER: 5, Provenance.CELL_OUTPUT: 4, Provenance.COMPUTED: 3,
         Provenance.GUESSED_INPUT: 2, Provenance.CELL_ATTRIBUTE: 1}


def _evidence():
    """The parameter-use evidence shared with the rules (one analysis per scope walk).
    (``msgraphlint/infer/params.py`` joins this package at the layout move; until then it is read from
    the built-in rules package, lazily: nothing here imports it at module level.)"""
    from msgraphlint.infer.params import SHARED_USES
    return SHARED_USES


def tensor(ctx, e: ast.AST) -> TensorAnswer:
    """The answer for ``e`` in the scope being walked (memoised per scope walk)."""
    values = ctx.values
    if values is None:
        return TensorAnswer(_MAYBE, Provenance.UNKNOWN)
    held = ctx.memo.get("infer.tensor")
    if held is None or held[0] is not values:
        held = ctx.memo["infer.tensor"] = (values, {})
    memo = held[1]
    key = id(e)
    got = memo.get(key)
    if got is None:
        got = memo[key] = _answer(ctx, e, 0, frozenset())
    return got


def _answer(ctx, e: ast.AST, depth: int, pending: frozenset) -> TensorAnswer:
    k = ctx.kind(e)
    if not k.tensor_like:
        return _not_tensor(ctx, e, k)
    if _tuple_growth(ctx, e):
        return TensorAnswer(_NOT, Provenance.CONSTANT)  # `y = (); y += x_tuple; y += (out,)`: a Python tuple
    alias = _alias(ctx, e, k)
    if alias is not None:
        return alias
    if folds(ctx, e):
        return TensorAnswer(_SURE, Provenance.FOLDED)
    uses = _evidence()
    if not uses.grounded(ctx, e):
        if any(isinstance(n, ast.Name) and n.id != "self" and ctx.kind(n).tensor_like for n in ast.walk(e)):
            return TensorAnswer(_MAYBE, Provenance.GUESSED_INPUT)
        return TensorAnswer(_SURE, Provenance.FOLDED)  # only constant tensor attributes (`self.limit > 1`)
    return _tensor_provenance(ctx, e, k, depth, pending)


def _not_tensor(ctx, e: ast.AST, k: Kind) -> TensorAnswer:
    values = ctx.values
    if k is Kind.OPTIONAL:
        prov = Provenance.GRAPH_INPUT if isinstance(e, ast.Name) and e.id in values.params else Provenance.UNKNOWN
        return TensorAnswer(_MAYBE, prov)
    if k is Kind.UNKNOWN:
        return TensorAnswer(_MAYBE, Provenance.UNKNOWN)
    if k.constant:
        if isinstance(e, ast.Name) and e.id in values.params:
            prov = Provenance.PYTHON_VALUE if e.id in values.from_callers else Provenance.CONSTANT
        elif isinstance(e, ast.Constant) or (isinstance(e, (ast.Tuple, ast.List))
                                             and all(isinstance(x, ast.Constant) for x in e.elts)):
            prov = Provenance.LITERAL
        else:
            prov = Provenance.CONSTANT
        return TensorAnswer(_NOT, prov)
    return TensorAnswer(_NOT, _NOT_TENSOR_KINDS.get(k, Provenance.UNKNOWN))


def _tuple_growth(ctx, e: ast.AST) -> bool:
    """A name started as a tuple display and grown by ``+=`` of tuple displays (``y = ()``;
    ``y += (out,)``): the flow walk calls it a tensor once a tensor-kind value is added
    (``y += ops.split(x, ...)``, a tuple of tensors), but Python concatenates tuples."""
    if not isinstance(e, ast.Name):
        return False
    if e.id in ctx.values.params:
        return False
    f = facts(ctx, ctx.values.func)
    plain = f.plain.get(e.id)
    if not plain or not all(isinstance(v, ast.Tuple) for v in plain):
        return False
    return any(isinstance(v, ast.Tuple) for v in f.augmented.get(e.id, ()))


def _alias(ctx, e: ast.AST, k: Kind) -> Optional[TensorAnswer]:
    """A local every plain assignment of which is the same ``self.<attr>`` holding a tensor or
    a Parameter (``loss = self.loss``), bound otherwise only by ``+=``-style writes (not of a
    tuple display): the name is the attribute's tensor (graph mode writes ``loss += x`` into
    the attribute)."""
    if not isinstance(e, ast.Name) or e.id in ctx.values.params:
        return None
    f = facts(ctx, ctx.values.func)
    if e.id in f.other:
        return None
    vals = f.plain.get(e.id)
    if not vals or any(isinstance(v, (ast.Tuple, ast.List)) for v in f.augmented.get(e.id, ())):
        return None  # (`lr = self.learning_rate; lr += (step_lr,)`: a tuple of Parameters grown)
    attrs = {_self_attr(v) for v in vals}
    if len(attrs) != 1 or None in attrs:
        return None
    ak = ctx.kind(vals[0])
    if not ak.tensor_like:
        return None
    # a Tensor attribute (not a Parameter) is a constant of the compiled graph, as `self.t` is
    return TensorAnswer(_SURE, Provenance.PARAMETER if ak is Kind.PARAMETER else Provenance.FOLDED,
                        attr=attrs.pop())


def _self_attr(e: ast.AST) -> Optional[str]:
    if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
        return e.attr
    return None


def _tensor_provenance(ctx, e: ast.AST, k: Kind, depth: int, pending: frozenset) -> TensorAnswer:
    values = ctx.values
    if depth > 8:
        return TensorAnswer(_SURE, Provenance.COMPUTED)
    if isinstance(e, ast.Name):
        if e.id in values.params:
            return TensorAnswer(_SURE, Provenance.GRAPH_INPUT)
        if e.id in pending:
            return TensorAnswer(_SURE, Provenance.COMPUTED)
        f = facts(ctx, values.func)
        vals = f.exact.get(e.id)
        if vals is None:
            # also bound by `+=` (graph mode writes in place: the name keeps its tensor), but by
            # nothing else: the plain assignments say where it started
            vals = f.plain.get(e.id) if e.id not in f.other else None
            if not vals:
                return TensorAnswer(_SURE, Provenance.COMPUTED)
        alias = _alias(ctx, e, k)
        if alias is not None:
            return alias
        inner = pending | {e.id}
        return _join([_tensor_provenance(ctx, v, ctx.kind(v), depth + 1, inner) for v in vals
                      if ctx.kind(v).tensor_like])
    if isinstance(e, ast.Attribute):
        attr = _self_attr(e)
        if attr is not None:
            return TensorAnswer(_SURE, Provenance.PARAMETER if k is Kind.PARAMETER else Provenance.CELL_ATTRIBUTE)
        return TensorAnswer(_SURE, Provenance.COMPUTED)
    if isinstance(e, ast.Call):
        fk = ctx.kind(e.func)
        if fk in (Kind.CELL, Kind.CONTAINER):
            return TensorAnswer(_SURE, Provenance.CELL_OUTPUT)
        return TensorAnswer(_SURE, Provenance.COMPUTED)
    if isinstance(e, ast.Subscript):  # `x[0]`, `self.w[1:]`: the data of what it indexes
        got = _tensor_provenance(ctx, e.value, ctx.kind(e.value), depth + 1, pending)
        return TensorAnswer(_SURE, got.provenance)
    return TensorAnswer(_SURE, Provenance.COMPUTED)


def _join(answers) -> TensorAnswer:
    """The provenances of several values that reach one name or one expression."""
    if not answers:
        return TensorAnswer(_SURE, Provenance.COMPUTED)
    provs = {a.provenance for a in answers}
    if len(provs) == 1:
        attrs = {a.attr for a in answers}
        return TensorAnswer(_SURE, provs.pop(), attr=attrs.pop() if len(attrs) == 1 else None)
    return TensorAnswer(_SURE, max(provs, key=lambda p: _RANK.get(p, 0)))

"""What MindSpore's graph parser knows when it parses a call.

The parser folds a builtin it does not convert (``all``, ``any``, ``type``, ``sorted``,
``divmod``, ...) only when every argument is a Python constant it can evaluate while parsing:
literals, module globals, closure constants, ``self.<attr>`` holding Python values, Python
scalars passed in by the caller. Anything that mentions a graph value is handed to the
interpreter (PyExecute), even when the compiler could work the value out later. Measured on
MindSpore 2.10 CPU (Cell ``construct``, validate IR): ``all(s == 1 for s in self.stride)`` 0
PyExecute nodes; ``all(d > 0 for d in x.shape)`` 3; ``all([x is not None, mask is not None])``
4; ``type(x) is Tensor`` 6 (``fixtures/labeled/fallback_*_builtin_*``).

``graph_value(ctx, expr)`` answers the first sub-expression of ``expr`` that is such a graph
value: a tensor or Parameter (also read through ``.shape``/``.ndim``/``.dtype``/``len``/``is
None``), a value pulled out of a tensor (``.asnumpy()``, ``.item()``), or an ``ms.mutable``.
Names are followed to the value they were last assigned in the function (``d = {"a": x}``).
Unknown values are not graph values: flag only what is known.
"""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.infer.values import Kind

from .hostvalues import Flow

MUTABLE = frozenset({"mindspore.mutable", "mindspore.common.mutable", "mindspore.graph.mutable"})


def graph_value(ctx, expr: ast.AST, flow: Optional[Flow] = None, depth: int = 0) -> Optional[ast.AST]:
    if depth > 3:
        return None
    if flow is None:
        flow = Flow.of(ctx)
    todo = [expr]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Lambda):
            continue  # a function value, not evaluated here
        if isinstance(n, ast.Call) and ctx.qualname(n.func) in MUTABLE:
            return n
        if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and not isinstance(
                getattr(n, "ctx", ast.Load()), (ast.Store, ast.Del)):
            k = ctx.kind(n)
            if k.tensor_like or k is Kind.HOST:
                return n
            if isinstance(n, ast.Name) and flow is not None and k not in (Kind.NONE, Kind.MODULE, Kind.FUNC, Kind.CELL,
                                                                         Kind.CONTAINER):
                src = flow.origin(n)
                if src is not None and src is not expr:
                    found = graph_value(ctx, src, flow, depth + 1)
                    if found is not None:
                        return n
        todo.extend(reversed(list(ast.iter_child_nodes(n))))
    return None

"""MSG413 jit-forbidden-api: an API MindSpore's own registry forbids in graph mode.

The list is MindSpore's, not ours: ``scripts/gen_catalog.py`` reads the registry of
``mindspore/graph/_utils/check_jit_forbidden_api.py`` (the methods decorated with
``@jit_forbidden_register`` and the modules added with ``add_jit_forbidden_module``) from
the installed MindSpore 2.10 into the catalog's ``jit_forbidden`` table.
"""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.fix.hostfixes import set_data_fix
from msgraphlint.rule import AST_CAPTURE, FixSafety, Invalid, Rule, Severity, Valid
from msgraphlint.infer.values import Kind

# MSG211 (logging-or-file-io-in-graph) already reports MindSpore's logger calls, and MSG206
# (assign-to-non-parameter) every `.assign_value()` in graph code
_OWNED_METHODS = frozenset({"assign_value"})
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})


def _owner(ctx, recv: ast.AST) -> Optional[str]:
    """The MindSpore class whose registered methods apply to ``recv``, or None."""
    if isinstance(recv, ast.Name) and recv.id == "self":
        info = ctx.class_info
        return "mindspore.nn.Cell" if info is not None and info.is_cell else None
    k = ctx.kind(recv)
    if k in (Kind.CELL, Kind.CONTAINER):
        return "mindspore.nn.Cell"
    if k is Kind.PARAMETER:
        return "mindspore.Parameter"
    if k in (Kind.TENSOR, Kind.OPTIONAL):
        return "mindspore.Tensor"
    if isinstance(recv, ast.Attribute) and (ctx.kind(recv.value) in (Kind.CELL, Kind.CONTAINER) or (
            isinstance(recv.value, ast.Name) and recv.value.id == "self" and ctx.class_info is not None
            and ctx.class_info.is_cell)):
        return "mindspore.Parameter"  # `self.dense.weight`: an attribute of a Cell that is not a Cell
    return None


class JitForbiddenApi(Rule):
    code = "MSG413"
    fix_safety = FixSafety.UNSAFE  # set_data -> ops.assign (msgraphlint/fix/hostfixes.py)
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "jit-forbidden-api"
    summary = "A call MindSpore's own `@jit_forbidden_register` registry rejects in graph mode (fails to compile)."
    message = ("`{call}` is forbidden in graph mode: the graph fails to compile\n"
               "MindSpore registers it as forbidden in graph mode ({where}): '{impl}' is not supported in "
               "'construct' or function with @jit decorator.")
    hint = "do it outside the graph: in `__init__`, before the call, or in the training loop ({advice})"
    severity = Severity.ERROR
    rationale = """
        MindSpore keeps a registry of the APIs graph mode must not call
        (`mindspore/graph/_utils/check_jit_forbidden_api.py`): 31 methods decorated with
        `@jit_forbidden_register` in 2.10 (`Parameter.set_data`, `Tensor.assign_value`,
        `Tensor.set_const_arg`, `Cell.trainable_params`, `Cell.get_parameters`,
        `Cell.state_dict`, `Cell.to`, the hook registration methods, ...) and three
        forbidden modules (`mindspore.common.initializer`, `mindspore.context`,
        `mindspore.log`). The table is generated from the installed MindSpore into the
        catalog (`jit_forbidden`), so it follows the MindSpore version the catalog was
        built from.

        Measured on MindSpore 2.10 CPU, each in a Cell's `construct`: `self.w.set_data(x)`,
        `y.assign_value(x)`, `x.set_const_arg()`, `self.trainable_params()`,
        `self.d.get_parameters()`, `self.state_dict()`, `self.d.to(ms.float16)`,
        `context.get_context("mode")` and `initializer(Normal(), [2, 3], ms.float32)` all
        fail to compile with `RuntimeError: Failed to compile in GRAPH_MODE because the
        ... '<name>' is not supported in 'construct' or function with @jit decorator`
        (labeled fixtures `api_pos_*`). A class of a forbidden module used as a constant
        is fine: `self.pm == ParallelMode.DATA_PARALLEL` compiled, so only calls are
        reported. MindSpore's logger (`mindspore.log`) is reported by MSG211 and
        `Tensor.assign_value` by MSG206, with the same measured error.

        What to do: read parameters, state dicts and context values in `__init__` (or
        before calling the network) and keep them as attributes; write a Parameter in the
        graph with `ops.assign(self.w, x)`; create initial values with `initializer` in
        `__init__`.
    """
    VALID = [
        Valid("""
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(8, 8)
                    self.n_params = len(self.trainable_params())

                def construct(self, x):
                    ops.assign(self.dense.weight, self.dense.weight * 0.5)
                    return self.dense(x)
        """, note="registry APIs in `__init__`; `ops.assign` in the graph"),
        Valid("""
            import mindspore as ms
            from mindspore import nn
            from mindspore.context import ParallelMode

            class Net(nn.Cell):
                def __init__(self, mode):
                    super().__init__()
                    self.mode = mode

                def construct(self, x):
                    if self.mode == ParallelMode.DATA_PARALLEL:
                        return x * 2
                    return x
        """, note="a class of a forbidden module read as a constant compiles"),
        Valid("""
            from mindspore import nn

            class Model(nn.Cell):
                def to(self, dtype):
                    return self

                def construct(self, x):
                    self.to(None)
                    return x
        """, note="the project's own method of the same name"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(8, 8)

                def construct(self, x):
                    self.dense.weight.set_data(self.dense.weight * 0.5)
                    params = self.trainable_params()
                    return self.dense(x)
        """, line=[9, 10]),
        Invalid("""
            import mindspore as ms
            from mindspore import context
            from mindspore.common.initializer import initializer, Normal

            @ms.jit
            def fn(x):
                mode = context.get_context("mode")
                w = initializer(Normal(), [8, 8], ms.float32)
                return x @ w
        """, line=[7, 8], note="forbidden modules: mindspore.context, mindspore.common.initializer"),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        cat = ctx.catalog
        if isinstance(f, ast.Attribute):
            owner = _owner(ctx, f.value)
            if owner is not None:
                if owner == "mindspore.nn.Cell" and isinstance(f.value, ast.Name) and ctx.class_info is not None \
                        and f.attr in ctx.class_info.methods:
                    return  # the project's own method
                impl = cat.jit_forbidden_methods(owner).get(f.attr)
                if impl is None and owner == "mindspore.Parameter":
                    impl = cat.jit_forbidden_methods("mindspore.Tensor").get(f.attr)
                if impl is not None and f.attr not in _OWNED_METHODS:
                    ctx.report(node, call=f"{ctx.segment(f)}()", where=ctx.where, impl=impl,
                               advice=_ADVICE.get(f.attr, "keep the result as an attribute"),
                               fix=set_data_fix(ctx, node) if f.attr == "set_data" else None)
                    return
        q = ctx.qualname(f)
        if not q or not q.startswith("mindspore"):
            return
        entry = cat.jit_forbidden(q)
        if entry is None:
            return
        if entry.get("module") == "mindspore.log" and q.rsplit(".", 1)[-1] in _LOG_METHODS:
            return  # MSG211
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and node is not parent.func:
            pq = ctx.qualname(parent.func)
            if pq and cat.jit_forbidden(pq) is not None:
                return  # `initializer(Normal(), ...)`: one finding, on the outer call
        impl = f"{entry['module']}.{q.rsplit('.', 1)[-1]}" if entry["why"] == "module" else entry.get("impl", q)
        ctx.report(node, call=f"{ctx.segment(f)}()", where=ctx.where, impl=impl,
                   advice=f"`{entry.get('module', 'MindSpore')}` is a forbidden module")


_ADVICE = {
    "set_data": "in the graph, write a Parameter with `ops.assign(param, value)`",
    "assign_value": "in the graph, use `ops.assign` on a Parameter or return the new value",
    "trainable_params": "collect the parameters in `__init__`",
    "get_parameters": "collect the parameters in `__init__`",
    "untrainable_params": "collect the parameters in `__init__`",
    "state_dict": "take the state dict outside the network call",
    "to": "cast the network before calling it (`net.to(dtype)` outside the graph)",
}



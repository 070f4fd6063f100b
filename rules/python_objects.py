"""MSG416 python-object-from-tensor: an instance of a plain Python class built in graph code
from a tensor.

A class of the project that is neither a Cell nor a ``jit_class`` has no graph form. MindSpore
folds its construction when every argument is a compile-time constant, but a tensor argument
makes the object a run-time value that only the host can build: the construction and every use
of the object go through PyExecute.
"""

from __future__ import annotations

import ast

from msgraphlint.rule import AST_CAPTURE, Invalid, Rule, Severity, Valid


class PythonObjectFromTensor(Rule):
    code = "MSG416"
    captures = AST_CAPTURE  # an ast-parser claim: not under bytecode/trace capture
    name = "python-object-from-tensor"
    summary = "An instance of a plain Python class created in graph code with a tensor argument."
    message = ("`{call}` creates a `{cls}` object from a tensor in graph code\n"
               "The object and its uses are built with PyExecute on the host at every call.")
    hint = ("compute with the tensor directly (a helper function or a method of the Cell), or make the class a Cell; "
            "pass only constants (sizes, flags) to plain objects")
    severity = Severity.WARNING
    rationale = """
        Measured on MindSpore 2.10 CPU (validate IR of a `jit` function):
        `Plain(x).act(x)` with `x` a tensor costs 4 PyExecute nodes, as does `p = Plain(x);
        return p.n + 1`. The same class built from constants is folded away: `Plain(2).act(x)`,
        `Plain(x.shape[0]).act(x)` and a class without `__init__` arguments cost none. A plain class
        here is one of this module (or of an enclosing function) without base classes or
        decorators (a `jit_class` given a tensor fails to compile instead: "When creating an
        instance of 'JC', all arguments are required to be constants").
    """
    VALID = [
        Valid("""
            import mindspore as ms

            class Scale:
                def __init__(self, factor):
                    self.factor = factor

                def apply(self, x):
                    return x * self.factor

            @ms.jit
            def step(x):
                return Scale(x.shape[0]).apply(x) + Scale(2).apply(x)
        """, note="built from constants (a shape, a literal): folded"),
        Valid("""
            from mindspore import nn

            class Block(nn.Cell):
                def __init__(self, scale):
                    super().__init__()
                    self.scale = scale

                def construct(self, x):
                    return x * self.scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.block = Block(2.0)

                def construct(self, x):
                    return self.block(x)
        """, note="a Cell, built in __init__"),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms

            class Scale:
                def __init__(self, factor):
                    self.factor = factor

                def apply(self, x):
                    return x * self.factor

            @ms.jit
            def step(x, s):
                return Scale(s).apply(x)

            step(ms.Tensor([1.0]), ms.Tensor(2.0))
        """, line=12),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Name) or ctx.func is None or not f.id[:1].isupper():
            return
        args = list(node.args) + [k.value for k in node.keywords]
        if not any(ctx.kind(a).tensor_like for a in args if not isinstance(a, ast.Starred)):
            return
        from .graph_outputs import _Outputs
        key = ("msg416", id(ctx.func))
        outputs = ctx.memo.get(key)
        if outputs is None:
            outputs = ctx.memo[key] = _Outputs(ctx, ctx.func)
        cls = outputs._plain_class(f.id)
        if cls is None or cls.decorator_list:
            return
        ctx.report(node, call=ctx.segment(node)[:60], cls=cls.name)

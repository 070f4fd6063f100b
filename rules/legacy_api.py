"""MSG511 primitive-class-spelling and MSG512 legacy-profiler (MindSpore 2.x API migration)."""

from __future__ import annotations

import ast
import re

from msgraphlint.rule import Invalid, Rule, Severity, Valid

from msgraphlint.infer.primattrs import is_configured_ctor

_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake(name: str) -> str:
    return _SNAKE.sub("_", name).lower()


class PrimitiveClassSpelling(Rule):
    code = "MSG511"
    default = False
    default_reason = "informational: both spellings compile to the same graph, so the finding is style advice"
    requires_text = ("operations",)
    name = "primitive-class-spelling"
    summary = "A `mindspore.ops.operations` primitive class where MindSpore 2.x has a functional form (informational)."
    message = "`{old}()` is the 1.x primitive-class spelling: use `{new}`\nMindSpore 2.x has the functional `{new}`."
    hint = "call `{new}(...)` directly instead of instantiating the primitive in `__init__`"
    severity = Severity.INFO
    scope = "module"
    rationale = """
        Code written for MindSpore 1.x instantiates primitives from
        `mindspore.ops.operations` (`P.Softmax()` in `__init__`, called in
        `construct`). MindSpore 2.x exposes the same operators as functions in
        `mindspore.ops` (`ops.softmax(x, axis=-1)`), which read like the PyTorch code
        being migrated and keep arguments at the call site. Both compile to the same
        graph, so this is informational (off by default). A primitive that is given a
        parallel strategy or another per-instance setting (`.shard(...)`,
        `.add_prim_attr(...)`, `.recompute()`...) anywhere in the module is left alone:
        on the constructor call, later through the attribute it is stored in (in
        `__init__` or another method, or through a parent: `self.attn.softmax.shard(...)`),
        or through a loop or local alias over primitives (`for op in (self.add, self.mul):
        op.shard(...)`); the functional form cannot carry the strategy. Only classes whose
        snake_case name exists as a function in the API catalog (generated from
        MindSpore 2.10) are reported (`MatMul` → `ops.matmul`, `Softmax` → `ops.softmax`).
        Classes MindSpore marks deprecated (`P.GatherV2()`, `P.TensorAdd()`: MindSpore
        warns when they are built) are not advice: MSG513 reports them, on by default.
    """
    VALID = [
        Valid("""
            from mindspore import ops
            y = ops.softmax(x, axis=-1)
        """),
        Valid("""
            import mindspore.ops.operations as P
            gather = P.GatherV2()
        """, note="deprecated (MindSpore warns when it is built): MSG513 reports it, not this advice"),
        Valid("""
            import mindspore.ops.operations as P
            tile = P.Tile().shard(((1, 1),))
        """, note="a sharding strategy needs the primitive (found in mindocr)"),
        Valid("""
            import mindspore.nn as nn
            import mindspore.ops.operations as P

            class Attention(nn.Cell):
                def __init__(self, dp=1, mp=1):
                    super().__init__()
                    self.softmax = P.Softmax()
                    self.add = P.Add()
                    self.mul = P.Mul()
                    for op in (self.add, self.mul):
                        op.shard(((dp, mp), (dp, mp)))

                def shard(self, dp, mp):
                    self.softmax.shard(((dp, mp, 1, 1),))
        """, note="strategies set later: in another method and through a loop over primitives"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.ops.operations as P
            from mindspore.ops import operations as ops_p
            softmax = P.Softmax(axis=-1)
            mm = ops_p.MatMul()
        """, line=[3, 4]),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        f = node.func
        if not isinstance(f, ast.Attribute) or not isinstance(f.value, ast.Name):
            return
        raw = ctx.imports.names.get(f.value.id, "")
        if not raw.startswith("mindspore.ops.operations") or not f.attr[:1].isupper():
            return
        if is_configured_ctor(ctx, node):
            return  # a sharding strategy / per-instance setting: the functional form cannot carry it
        try:
            cat = ctx.catalog
        except Exception:  # no catalog: stay silent
            return
        dep = cat.deprecation(f"mindspore.ops.{f.attr}")
        if dep and dep.get("status") in ("deprecated", "removed") and "decorator" in dep.get("source", ""):
            return  # MindSpore marks the class deprecated: MSG513 (deprecation tier, on by default) reports it
        for name in dict.fromkeys((snake(f.attr), f.attr.lower())):
            func = f"mindspore.ops.{name}"
            if cat.exists(func) and cat.function_returns(func) == "tensor":
                ctx.report(node, old=f"{f.value.id}.{f.attr}", new=f"ops.{name}")
                return


class LegacyProfiler(Rule):
    code = "MSG512"
    requires_text = ("Profiler",)
    name = "legacy-profiler"
    summary = "`mindspore.Profiler(...)` / `profiler.analyse()`, deprecated in MindSpore 2.10."
    message = ("`{name}` is deprecated in MindSpore {target}\n"
               "Use `mindspore.profiler.profile` with `on_trace_ready=tensorboard_trace_handler(dir)`.")
    hint = "`with mindspore.profiler.profile(on_trace_ready=mindspore.profiler.tensorboard_trace_handler('./prof')) as prof: ... prof.step()`"
    severity = Severity.WARNING
    scope = "module"
    mindspore = ">=2.5"
    rationale = """
        The field report (5.3) profiles with `Profiler(output_path=...)` and
        `profiler.analyse()`. MindSpore 2.10 logs "'mindspore.Profiler' will be
        deprecated and removed in a future version" and documents "The current
        interface is deprecated, please use: mindspore.profiler.profile" (read from
        2.10's source and docstring); `analyse(offline_path=...)` is deprecated too.
        The replacement is a context manager with a schedule and a trace handler.
    """
    VALID = [
        Valid("""
            from mindspore import profiler
            with profiler.profile(on_trace_ready=profiler.tensorboard_trace_handler("./prof")) as prof:
                prof.step()
        """),
    ]
    INVALID = [
        Invalid("""
            from mindspore.profiler import Profiler
            profiler = Profiler(output_path="./profiler_data")
            profiler.analyse()
        """, line=2),
        Invalid("""
            import mindspore as ms
            p = ms.Profiler()
        """, line=2),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        q = ctx.qualname(node.func)
        if q in ("mindspore.profiler.Profiler", "mindspore.Profiler", "mindspore.profiler.profiling.Profiler"):
            ctx.report(node, name=q.replace("mindspore.", "ms.", 1) + "()", target=ctx.target_version)

"""MSG513 deprecated-api: a MindSpore API that MindSpore itself marks deprecated.

The facts are MindSpore's: ``scripts/gen_catalog.py`` records what the installed MindSpore
marks deprecated (its ``@deprecated`` decorator, ``mark_deprecated`` modules, docstring
notices) with the version and the replacement MindSpore names, into the catalog's
``deprecated`` table. This rule only reads it.
"""

from __future__ import annotations

import ast
from typing import Optional

from msgraphlint.rule import Invalid, Rule, Severity, Valid

# names other rules own: MSG512 (legacy-profiler); MSG511 owns `mindspore.ops.operations` classes
_OWNED = frozenset({"mindspore.Profiler"})


def _version(v: str):
    out = []
    for part in v.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    while len(out) < 3:
        out.append(0)
    return tuple(out)


class DeprecatedApi(Rule):
    code = "MSG513"
    name = "deprecated-api"
    summary = "A MindSpore API that MindSpore itself marks deprecated, with the replacement MindSpore names."
    message = "`{spelled}` is deprecated{since} in MindSpore (target {target}): {why}{use}"
    hint = "move to the replacement MindSpore names (see `msgraphlint explain MSG513`)"
    severity = Severity.INFO
    scope = "module"
    requires_text = ("mindspore",)
    rationale = """
        MindSpore marks APIs deprecated in three ways, and the catalog records all of them
        from each release (`scripts/gen_catalog.py`, table `deprecated`):
        the `@deprecated(version, substitute)` decorator (MindSpore logs a warning when the
        API is used), `mark_deprecated(__name__, new_module)` at the top of a moved module
        (a warning on import), and the docstring notice ("This interface is deprecated and
        will be removed after version 2.9.0"). Only the first two are reported: they are
        the ones MindSpore warns about at run time. Docstring-only notices are not (2.10's
        docs mark even `ops.assign` and `nn.Momentum` deprecated, with no warning and no
        replacement named), nor are pending notices ("will be deprecated").

        Measured on MindSpore 2.10 CPU: `ops.Unpack(axis=0)` logs `'Unpack' is deprecated
        from version 1.1 and will be removed in a future version, use 'Unstack' instead.`
        when the Cell is built; `ops.random_gamma` logs `'RandomGamma' is deprecated from
        version 2.10.0` when called (labeled fixtures `api_pos_deprecated_*`, which record
        MindSpore's warning lines). The message names the replacement MindSpore itself
        names (`use`), never one of ours.

        Version gate: the rule follows `target-mindspore` (or the project's pin, see
        MSG514) and reads the target release's own catalog: what that release marks
        deprecated (measured: `ops.batch_dot` carries `@deprecated("2.8.0")` from 2.8.0 on,
        2.7.x does not mark it; `ops.tensor_scatter_mul` gets the decorator, since 2.9.0,
        only in 2.10.0, so a 2.8 or 2.9 target is not told). An API deprecated since a
        version newer than the target is not reported; an API whose deprecation carries no
        version is reported only for targets at or after its catalog's release.
    """
    VALID = [
        Valid("""
            from mindspore import ops
            unstack = ops.Unstack(axis=0)
            y = ops.matmul(a, b)
        """, note="the replacements"),
        Valid("""
            from mindspore import ops
            from mindspore.context import ParallelMode
            x = ops.expand(a, shape)
            mode = ParallelMode.DATA_PARALLEL
        """, note="`ops.expand` is only announced ('will be deprecated'): pending notices are not reported"),
    ]
    INVALID = [
        Invalid("""
            import mindspore.ops as ops
            from mindspore import nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.unpack = ops.Unpack(axis=0)
                    self.mm = nn.MatMul()

                def construct(self, x):
                    return self.mm(self.unpack(x)[0], x[1])
        """, line=[7, 8]),
        Invalid("""
            from mindspore.common.api import jit

            @jit
            def fn(x):
                return x * 2
        """, line=1, note="a moved module (mark_deprecated): MindSpore names the new spelling"),
    ]

    def _check(self, ctx, node: ast.AST, dotted: str, spelled: Optional[str] = None) -> None:
        if not dotted.startswith("mindspore.") or dotted in _OWNED:
            return
        cat = ctx.catalog
        entry = cat.deprecation(dotted)
        if entry is None or entry.get("status") not in ("deprecated", "removed") or entry.get("name") in _OWNED:
            return
        target = _version(ctx.target_version or cat.version)
        since = entry.get("since")
        if since and target < _version(since):
            return
        if not since and target < _version(cat.version)[:2] + (0,):
            return
        src = entry.get("source", "")
        if "decorator" not in src and "module" not in src:
            return  # documented only: MindSpore 2.10 does not warn (see the rationale)
        why = "MindSpore logs a deprecation warning when it is used"
        use = entry.get("use")
        ctx.report(node, spelled=spelled or (dotted if isinstance(node, (ast.Import, ast.ImportFrom)) else ctx.segment(node)) or dotted, since=f" since {since}" if since else "",
                   target=ctx.target_version, why=why,
                   use=f"; MindSpore names `{use}` instead" if use and not use.startswith("mindspore._") else "")

    def visit_ImportFrom(self, node: ast.ImportFrom, ctx) -> None:
        if node.level or not node.module or not node.module.startswith("mindspore."):
            return
        entry = ctx.catalog.deprecation(node.module)
        if entry is not None and entry.get("kind") == "module":
            self._check(ctx, node, node.module)

    def visit_Import(self, node: ast.Import, ctx) -> None:
        for a in node.names:
            if a.name.startswith("mindspore."):
                entry = ctx.catalog.deprecation(a.name)
                if entry is not None and entry.get("kind") == "module":
                    self._check(ctx, node, a.name)
                    return

    def visit_Attribute(self, node: ast.Attribute, ctx) -> None:
        if not isinstance(node.ctx, ast.Load) or isinstance(ctx.parent(node), ast.Attribute):
            return  # only the whole dotted chain
        dotted = ctx.imports.dotted(node, normalized=False)
        if dotted is None:
            return
        self._check_name(ctx, node, dotted)

    def visit_Name(self, node: ast.Name, ctx) -> None:
        if not isinstance(node.ctx, ast.Load) or isinstance(ctx.parent(node), ast.Attribute):
            return
        dotted = ctx.imports.names.get(node.id)
        if dotted is None or "." not in dotted:
            return
        self._check_name(ctx, node, dotted)

    def _check_name(self, ctx, node: ast.AST, dotted: str) -> None:
        if dotted.startswith("mindspore.ops.operations") and dotted.rsplit(".", 1)[-1][:1].isupper():
            return  # `P.GatherV2()`: MSG511 (primitive-class-spelling) reports deprecated primitive classes
        entry = ctx.catalog.deprecation(dotted)
        if entry is None or entry.get("kind") == "module":
            return  # a moved module is reported once, at its import
        self._check(ctx, node, dotted)

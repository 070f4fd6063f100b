"""MSG620 deprecated-context-key: set_context keys that the target MindSpore deprecates."""

from __future__ import annotations

import ast
import json
from functools import lru_cache
from importlib import resources

from msgraphlint.findings import Edit, Fix
from msgraphlint.rule import FixSafety, Invalid, Rule, Severity, Valid


@lru_cache(maxsize=1)
def deprecations() -> dict:
    with resources.files("msgraphlint.data").joinpath("context_deprecations.json").open(encoding="utf-8") as fh:
        return json.load(fh)["keys"]


class DeprecatedContextKey(Rule):
    code = "MSG620"
    requires_text = ("set_context",)
    name = "deprecated-context-key"
    summary = "`set_context(...)` with a key the target MindSpore deprecates or has removed, with the right replacement per device."
    message = "`set_context({key}=...)` is {status} in MindSpore {target}\n{advice}."
    severity = Severity.WARNING
    tier = "deprecation"
    scope = "module"
    mindspore = ">=2.6"
    fix_safety = FixSafety.UNSAFE
    rationale = """
        Part of the deprecation tier (on by default, with MSG513): one line naming the
        replacement, gated by the target MindSpore. The table of keys is generated from MindSpore 2.10 itself
        (`scripts/gen_context_deprecations.py` reads `mindspore.context`'s own
        deprecation tables, its inline warnings and its docstring) into
        `msgraphlint/data/context_deprecations.json`; whether a key is deprecated or
        removed is the target release's word (its catalog's `set_context` table):
        `grad_for_scalar` and `precompile_only` are deprecated up to 2.9.0 and refused
        (`ValueError`) from 2.10.0. MindSpore logs a warning at run time
        for most of them (`For 'context.set_context', the parameter 'device_target' will
        be deprecated ... Please use the api mindspore.set_device() instead.`); a few are
        deprecated only in the docs (`jit_syntax_level`, `jit_config`, `exec_order`).

        `enable_graph_kernel=True` deserves care. MindSpore's warning says to use
        `jit_config={'jit_level': 'O1'}`, but on CPU `jit_level` O1 does **not** turn
        graph-kernel fusion on (measured on 2.10 CPU: no `Fused_*` kernels in the final
        IR); `MS_DEV_GRAPH_KERNEL_FLAGS="--opt_level=2"` does. The message gives the
        advice for the device the script sets, or both when it does not say.

        Fix (unsafe): `ms.set_context(device_target=..., device_id=...)` with no other
        argument becomes `ms.set_device(target[, id])` (offered only when the call goes
        through the `mindspore` module: `mindspore.context` has no `set_device`; never
        when the call has other keys or `**kwargs`, which the rewrite would drop). It is
        unsafe because the two calls have different preconditions. Measured on
        MindSpore 2.10 CPU: once the runtime is initialised (a kernel has run, or
        `communication.init()` was called), `set_device("CPU")` raises `RuntimeError:
        The runtime has been initialized, please set it before the kernel is executed`,
        where `set_context(device_target="CPU")` was accepted
        (tests/test_fix_semantics.py::test_set_device_precondition_differs). Move the
        call to the top of the script, before anything runs a kernel.
    """
    VALID = [
        Valid("""
            import mindspore as ms
            ms.set_context(mode=ms.GRAPH_MODE)
            ms.set_device("Ascend", 0)
        """),
    ]
    INVALID = [
        Invalid("""
            import mindspore as ms
            ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU", enable_graph_kernel=True)
        """, line=[2]),
        Invalid("""
            import mindspore as ms
            ms.set_context(device_target="Ascend", device_id=1)
        """, line=2, expected_fix="""
            import mindspore as ms
            ms.set_device("Ascend", 1)
        """),
        Invalid("""
            from mindspore import context
            context.set_context(device_target="Ascend")
        """, line=2, note="no fix: mindspore.context has no set_device"),
        Invalid("""
            import mindspore as ms
            extra = {"mode": ms.GRAPH_MODE}
            ms.set_context(device_target="CPU", **extra)
        """, line=3, note="no fix: the rewrite would drop **extra"),
        Invalid("""
            import mindspore
            mindspore.set_context(save_graphs=True, save_graphs_path="./ir")
        """, line=2),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        if ctx.qualname(node.func) != "mindspore.set_context":
            return
        table = deprecations()
        kws = {k.arg: k for k in node.keywords if k.arg}
        device = self._device(node, ctx)
        own = ctx.catalog.deprecated_args("mindspore.set_context")  # the target release's own tables
        hit = [k for k in kws if k in table and k in own]
        for key in hit:
            entry = table[key]
            if own[key].get("status") in ("deprecated", "removed") and own[key]["status"] != entry["status"]:
                # grad_for_scalar, precompile_only: warned about up to 2.9.0, refused from 2.10.0
                entry = dict(entry, status=own[key]["status"], since=own[key].get("since"))
            advice = self._advice(key, entry, device)
            status = "removed" if entry["status"] == "removed" else "deprecated"
            fix = self._fix(node, kws, ctx) if key == "device_target" else None
            ctx.report(kws[key], key=key, status=status, target=ctx.target_version, advice=advice, fix=fix,
                       hint=None)

    @staticmethod
    def _device(node: ast.Call, ctx):
        for k in node.keywords:
            if k.arg == "device_target" and isinstance(k.value, ast.Constant):
                return str(k.value.value)
        text = ctx.source.text
        for dev in ("Ascend", "GPU", "CPU"):
            if f'set_device("{dev}"' in text or f"set_device('{dev}'" in text or f'device_target="{dev}"' in text \
                    or f"device_target='{dev}'" in text:
                return dev
        return None

    @staticmethod
    def _advice(key, entry, device) -> str:
        rep = entry.get("replacement") or "nothing: drop it"
        if key == "enable_graph_kernel":
            env = 'set MS_DEV_GRAPH_KERNEL_FLAGS="--opt_level=2" in the environment'
            if device == "CPU":
                return f"{env} (on CPU, jit_config jit_level O1 does not fuse)"
            if device in ("Ascend", "GPU"):
                return f"use {rep}, or {env}"
            return f"on Ascend/GPU use {rep}; on CPU {env} (jit_level O1 does not fuse there)"
        if entry["status"] == "removed":
            return f"removed since {entry.get('since')}; use {rep}"
        return f"use {rep}"

    @staticmethod
    def _fix(node: ast.Call, kws, ctx):
        if set(kws) - {"device_target", "device_id"} or node.args or not isinstance(node.func, ast.Attribute):
            return None
        if any(k.arg is None for k in node.keywords):  # **kwargs: set_device would drop them
            return None
        if ctx.qualname(node.func.value) != "mindspore":  # mindspore.context has no set_device
            return None
        target = ctx.segment(kws["device_target"].value)
        args = target + (f", {ctx.segment(kws['device_id'].value)}" if "device_id" in kws else "")
        prefix = ctx.segment(node.func.value)
        text = f"{prefix}.set_device({args})"
        return Fix("replace with set_device", (Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text),),
                   FixSafety.UNSAFE, drops=("set_context", "device_target", "device_id"))

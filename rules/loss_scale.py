"""MSG530 loss-scale-never-adapts and MSG531 clip-before-unscale (field report, 6.2)."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional

from msgraphlint.parse.astutil import walk
from msgraphlint.rule import Invalid, Rule, Severity, Valid

_SCALERS = frozenset({"mindspore.amp.DynamicLossScaler"})
_CLIPS = frozenset({"mindspore.ops.clip_by_global_norm", "mindspore.ops.clip_by_norm", "mindspore.nn.ClipByNorm"})


def _target_key(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return "self." + node.attr
    return None


def _scalers(tree: ast.AST, ctx) -> Dict[str, ast.AST]:
    found: Dict[str, ast.AST] = {}
    for node in walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and ctx.qualname(node.value.func) in _SCALERS:
            for t in node.targets:
                key = _target_key(t)
                if key:
                    found[key] = node
    return found


def _method_calls(tree: ast.AST, names, methods) -> List[ast.Call]:
    out = []
    for node in walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods \
                and _target_key(node.func.value) in names:
            out.append(node)
    return out


class LossScaleNeverAdapts(Rule):
    code = "MSG530"
    requires_text = ("DynamicLossScaler",)
    name = "loss-scale-never-adapts"
    summary = "A `DynamicLossScaler` scales and unscales but its scale is never adjusted (no `all_finite`/`adjust`)."
    message = "`{name}` is a DynamicLossScaler that is never adjusted\nIts scale stays {value} for the whole run."
    hint = "after unscaling: `is_finite = amp.all_finite(grads); {name}.adjust(is_finite)` and skip the update when not finite"
    severity = Severity.WARNING
    scope = "module"
    rationale = """
        The field report (6.2) recommends dynamic loss scaling for GPT mixed-precision
        training, and its own train step never makes it dynamic: it calls
        `loss_scaler.scale(...)` and `loss_scaler.unscale(...)` but never
        `loss_scaler.adjust(is_finite)`. In MindSpore 2.10 `amp.DynamicLossScaler` has
        exactly `scale`, `unscale` and `adjust` (read from the class), and
        `amp.all_finite(grads)` computes the overflow flag; without `adjust` the scale
        never shrinks after an overflow (gradients full of inf/nan are applied) and
        never grows. Scripts that call `adjust` or `all_finite` anywhere in the module
        are not flagged.
    """
    VALID = [
        Valid("""
            from mindspore import amp
            loss_scaler = amp.DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=1000)

            def train_step(grads, loss):
                loss = loss_scaler.scale(loss)
                grads = loss_scaler.unscale(grads)
                is_finite = amp.all_finite(grads)
                loss_scaler.adjust(is_finite)
                return grads
        """),
    ]
    INVALID = [
        Invalid("""
            from mindspore import amp
            loss_scaler = amp.DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=1000)

            def train_step(grads, loss):
                scaled = loss_scaler.scale(loss)
                grads = loss_scaler.unscale(grads)
                return grads
        """, line=2),
    ]

    def check_module(self, ctx) -> None:
        tree = ctx.source.tree
        if "DynamicLossScaler" not in ctx.source.text:
            return
        scalers = _scalers(tree, ctx)
        if not scalers:
            return
        text = ctx.source.text
        for name, assign in scalers.items():
            used = _method_calls(tree, {name}, {"scale", "unscale"})
            adjusted = _method_calls(tree, {name}, {"adjust"})
            if used and not adjusted and "all_finite" not in text:
                call = assign.value
                value = next((ctx.segment(k.value) for k in call.keywords if k.arg == "scale_value"),
                             ctx.segment(call.args[0]) if call.args else "its initial value")
                ctx.report(assign, name=name, value=value, end_node=assign.targets[0])


class ClipBeforeUnscale(Rule):
    code = "MSG531"
    requires_text = ("DynamicLossScaler",)
    name = "clip-before-unscale"
    summary = "Gradients are clipped before the loss scale is removed."
    message = ("gradients are clipped before `{name}.unscale(...)` (line {line})\n"
               "The clip threshold applies to scaled gradients.")
    hint = "unscale first, then clip: `grads = {name}.unscale(grads); grads = ops.clip_by_global_norm(grads, 1.0)`"
    severity = Severity.WARNING
    scope = "module"
    rationale = """
        With loss scaling the raw gradients are multiplied by the scale (2**16 in the
        field report's example). Clipping them before `unscale` compares the scaled
        norm with `max_norm`, so every step is clipped by a factor of the scale and the
        effective learning rate collapses. Order: scale the loss, differentiate,
        unscale, check finiteness, clip, apply.
    """
    VALID = [
        Valid("""
            from mindspore import amp, ops
            scaler = amp.DynamicLossScaler(1024, 2, 1000)

            def step(grads):
                grads = scaler.unscale(grads)
                return ops.clip_by_global_norm(grads, 1.0)
        """),
    ]
    INVALID = [
        Invalid("""
            from mindspore import amp, ops
            scaler = amp.DynamicLossScaler(1024, 2, 1000)

            def step(grads):
                grads = ops.clip_by_global_norm(grads, 1.0)
                grads = scaler.unscale(grads)
                return grads
        """, line=5),
    ]

    def check_module(self, ctx) -> None:
        if "DynamicLossScaler" not in ctx.source.text:
            return
        tree = ctx.source.tree
        scalers = set(_scalers(tree, ctx))
        if not scalers:
            return
        for func in walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            unscales = _method_calls(func, scalers, {"unscale"})
            if not unscales:
                continue
            first = min(unscales, key=lambda c: (c.lineno, c.col_offset))
            for node in walk(func):
                if isinstance(node, ast.Call) and ctx.qualname(node.func) in _CLIPS and node.lineno < first.lineno:
                    ctx.report(node, name=_target_key(first.func.value), line=first.lineno)

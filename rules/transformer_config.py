"""MSG621 transformer-config-literal: the YAML run-config arithmetic on Python calls."""

from __future__ import annotations

import ast

from msgraphlint.rule import Invalid, Rule, Severity, Valid

_CONFIG_NAMES = ("TransformerConfig", "TransformerOpParallelConfig", "LlamaConfig", "GPT2Config", "MindFormerConfig",
                 "ParallelConfig")


class TransformerConfigLiteral(Rule):
    code = "MSG621"
    requires_text = _CONFIG_NAMES  # the names it reports a call of
    name = "transformer-config-literal"
    summary = "A `TransformerConfig(...)`-style call whose literal sizes do not divide (heads, hidden, QKV, layers vs parallel degrees)."
    message = "{problem}"
    hint = "choose sizes the parallel degrees divide (article 4.3: num_heads % tensor_parallel == 0, hidden % num_heads == 0)"
    severity = Severity.ERROR
    scope = "module"
    rationale = """
        Article 4.3: with tensor parallelism each device gets `num_heads / tp` heads and
        a `(hidden, 3*hidden/tp)` slice of the fused QKV weight, so those must divide;
        `num_layers` must divide by the pipeline stages. The checks are the same
        arithmetic the YAML run-config rules (MSG601–MSG609) apply to MindFormers
        configs (`rules/config_yaml.py: check_parallel_values`), applied to the literal
        keyword values of a config call; non-literal values are not judged.
    """
    VALID = [
        Valid("""
            from mindformers import TransformerConfig
            cfg = TransformerConfig(hidden_size=4096, num_heads=32, tensor_parallel=8, num_layers=24)
        """, note="the article's worked example: 32/8 heads, 4096/32 head dim"),
        Valid("""
            from mindformers import TransformerConfig
            cfg = TransformerConfig(hidden_size=h, num_heads=n, tensor_parallel=8)
        """, note="not literal"),
    ]
    INVALID = [
        Invalid("""
            from mindformers import TransformerConfig
            cfg = TransformerConfig(hidden_size=4096, num_heads=30, tensor_parallel=8)
        """, line=2),
    ]

    def visit_Call(self, node: ast.Call, ctx) -> None:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name not in _CONFIG_NAMES:
            return
        values = {}
        for kw in node.keywords:
            if kw.arg and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, (int, float, bool, str)):
                values[kw.arg] = kw.value.value
            elif kw.arg and isinstance(kw.value, (ast.List, ast.Tuple)):
                try:
                    values[kw.arg] = ast.literal_eval(kw.value)
                except ValueError:
                    pass
        if len(values) < 2:
            return
        try:
            from msgraphlint_rules.config_yaml import check_parallel_values
        except ImportError:  # pragma: no cover
            return
        by_kw = {kw.arg: kw for kw in node.keywords if kw.arg}
        for key, _code, problem in check_parallel_values(values):
            ctx.report(by_kw.get(key, node), message=problem)  # the YAML rule's title and detail, already filled in

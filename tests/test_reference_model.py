"""The bundled reference GPT layer: clean for the static checker, and GRAPH_MODE (with
fusion) agrees with PyNative numerically, through the compile child."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference_model" / "gpt_layer.py"


def test_reference_layer_has_no_findings():
    from msgraphlint.api import check_paths

    results = check_paths([str(REFERENCE)])
    findings = [f for r in results for f in r.findings]
    assert findings == [], [(f.code, f.line, f.message) for f in findings]


def test_reference_layer_structure_mirrors_mindformers():
    tree = ast.parse(REFERENCE.read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for name in ("Linear", "CoreAttention", "SelfAttention", "MLP", "TransformerLayer",
                 "TransformerBlock", "GPTLayerWithLoss"):
        assert name in classes, name
    src = REFERENCE.read_text()
    for attr in ("input_layernorm", "self_attention", "pre_mlp_layernorm", "mlp", "linear_qkv",
                 "core_attention", "linear_proj", "linear_fc1", "activation_func", "linear_fc2",
                 "final_layernorm"):
        assert f"self.{attr} =" in src, attr
    assert "HIDDEN_SIZE = 256" in src and "NUM_HEADS = 8" in src
    assert "SEQ_LENGTH = 64" in src and "BATCH_SIZE = 2" in src


@pytest.mark.mindspore
@pytest.mark.slow
def test_stack_graph_mode_matches_pynative(tmp_path):
    from msgraphlint.verify.compile import compile_target

    out = compile_target({"file": str(REFERENCE), "target": "TransformerBlock", "inputs": None,
                          "fusion": True, "compare_pynative": True, "ir_dir": str(tmp_path / "ir")},
                         timeout=600)
    assert out["ok"], out["error"]
    assert out["pynative_equal"] is True, out["max_abs_diff"]
    assert out["max_abs_diff"] < 1e-3
    assert out["inputs_mutated"] == {"graph": False, "pynative": False}
    assert out["n_compiles"] == 1
    assert out["outputs"] == [{"shape": [2, 64, 256], "dtype": "float32"}]
    graph_builds = list((tmp_path / "ir").rglob("graph_build_*.ir"))
    assert graph_builds and any("info_name: Fused_" in p.read_text() for p in graph_builds)

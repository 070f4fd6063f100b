"""Migration and configuration rules: the MindSpore 2.10 facts their docs cite are
re-checked against the installed MindSpore (one subprocess; the linter never imports
it), plus cases the embedded examples do not cover."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from helpers import codes_at, lint, write_tree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FACTS = textwrap.dedent("""
    import inspect, json, importlib
    import mindspore as ms
    from mindspore import nn, ops, amp, Tensor
    out = {}
    d = nn.Dropout(0.9)
    out["dropout_positional_is_keep_prob"] = (getattr(d, "keep_prob", None) == 0.9 and getattr(d, "p", None) is None)
    out["ops_dropout_training_default"] = inspect.signature(ops.dropout).parameters["training"].default
    out["mint_dropout_training_default"] = inspect.signature(ms.mint.nn.functional.dropout).parameters["training"].default
    out["tensor_lacks"] = [m for m in ("cuda", "cpu", "detach") if not hasattr(Tensor, m)]
    out["scaler_methods"] = sorted(n for n in dir(amp.DynamicLossScaler) if not n.startswith("_"))
    out["has_all_finite"] = hasattr(amp, "all_finite")
    out["set_device"] = str(inspect.signature(ms.set_device))
    table = json.load(open(TORCH_MAP))
    missing = []
    for k, v in table.items():
        if k.startswith("_") or not v.get("ms"):
            continue
        mod, _, name = v["ms"].rpartition(".")
        if not hasattr(importlib.import_module(mod), name):
            missing.append(v["ms"])
    out["torch_map_missing"] = missing
    print("FACTS" + json.dumps(out))
""")


@pytest.mark.mindspore
def test_cited_mindspore_facts_hold():
    code = FACTS.replace("TORCH_MAP", repr(os.path.join(ROOT, "msgraphlint", "data", "torch_to_mindspore.json")))
    python = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("FACTS"))
    facts = json.loads(line[5:])
    assert facts["dropout_positional_is_keep_prob"] is True            # MSG510
    assert facts["ops_dropout_training_default"] is True               # MSG520
    assert facts["mint_dropout_training_default"] is True
    assert facts["tensor_lacks"] == ["cuda", "cpu", "detach"]          # MSG503
    assert facts["scaler_methods"] == ["adjust", "scale", "unscale"]   # MSG530
    assert facts["has_all_finite"] is True
    assert facts["set_device"] == "(device_target, device_id=None)"    # MSG620's fix
    assert facts["torch_map_missing"] == []                            # MSG502's table


@pytest.mark.mindspore
def test_context_deprecation_table_is_current(tmp_path):
    """Regenerating the table from the installed MindSpore gives the committed file."""
    out = tmp_path / "ctx.json"
    script = os.path.join(ROOT, "scripts", "gen_context_deprecations.py")
    python = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable
    proc = subprocess.run([python, script, "--out", str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open(os.path.join(ROOT, "msgraphlint", "data", "context_deprecations.json")) as fh:
        assert json.load(fh) == json.loads(out.read_text())


def test_enable_graph_kernel_advice_depends_on_device(tmp_path):
    write_tree(tmp_path, {
        "cpu.py": 'import mindspore as ms\nms.set_device("CPU")\nms.set_context(enable_graph_kernel=True)\n',
        "asc.py": 'import mindspore as ms\nms.set_context(device_target="Ascend", enable_graph_kernel=True)\n',
        "any.py": "import mindspore as ms\nms.set_context(enable_graph_kernel=True)\n",
    })
    msgs = {os.path.basename(f.path): f.message for f in lint([tmp_path], select=["MSG620"])
            if "enable_graph_kernel" in f.message}
    assert "MS_DEV_GRAPH_KERNEL_FLAGS" in msgs["cpu.py"] and "jit_level O1 does not fuse" in msgs["cpu.py"]
    assert "jit_config" in msgs["asc.py"]
    assert "on Ascend/GPU" in msgs["any.py"] and "on CPU" in msgs["any.py"]


def test_target_version_gates_context_rule(tmp_path):
    write_tree(tmp_path, {"a.py": 'import mindspore as ms\nms.set_context(device_target="CPU")\n'})
    assert codes_at(lint([tmp_path], select=["MSG620"])) == [("a.py", 2, "MSG620")]
    assert lint([tmp_path], select=["MSG620"], target="2.2") == []


def test_torch_in_helper_reached_from_construct(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/util.py": "import torch\ndef norm(x):\n    return torch.nn.functional.normalize(x)\n",
        "pkg/net.py": ("from mindspore import nn\nfrom .util import norm\n\nclass Net(nn.Cell):\n"
                       "    def construct(self, x):\n        return norm(x)\n"),
    })
    got = codes_at(lint([tmp_path], select=["MSG502"]))
    assert got == [("util.py", 3, "MSG502")]


def test_dropout_functional_through_mint_alias(tmp_path):
    write_tree(tmp_path, {"m.py": ("import mindspore.mint.nn.functional as F\nfrom mindspore import nn\n\n"
                                   "class Net(nn.Cell):\n    def construct(self, x):\n        return F.dropout(x, 0.1)\n")})
    assert codes_at(lint([tmp_path], select=["MSG520"])) == [("m.py", 6, "MSG520")]

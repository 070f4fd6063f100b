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
    import numpy as np
    ms.set_seed(0)
    ones = Tensor(np.ones((1000, 100), np.float32))
    for key, drop in (("positional_0_1", nn.Dropout(0.1)), ("p_0_9", nn.Dropout(p=0.9)), ("p_0_1", nn.Dropout(p=0.1))):
        drop.set_train(True)
        out["dropout_zeroed_" + key] = round(float((drop(ones).asnumpy() == 0).mean()), 2)
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
    # MSG510's two readings of nn.Dropout(0.1): p=0.9 is what it does, p=0.1 what PyTorch's means
    assert (facts["dropout_zeroed_positional_0_1"], facts["dropout_zeroed_p_0_9"], facts["dropout_zeroed_p_0_1"]) == (
        0.9, 0.9, 0.1)
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
    msgs = {os.path.basename(f.path): f.full_message for f in lint([tmp_path], select=["MSG620"])
            if "enable_graph_kernel" in f.full_message}
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


# MSG510: a positional rate has two readings (issue 20) ---------------------------------

def _msg510(path):
    from msgraphlint.run.runner import run_paths
    return run_paths([str(path)], select=["MSG510"])


def test_msg510_positional_rate_offers_both_readings_and_no_fix_guesses(tmp_path):
    """`nn.Dropout(0.1)` keeps 10% in MindSpore (keep_prob) where a PyTorch author meant to
    drop 10%: the finding offers p=0.9 (today's behaviour) and p=0.1 (the PyTorch reading),
    both unsafe alternatives, and neither --fix nor --unsafe-fixes applies one."""
    from msgraphlint.findings import FixSafety
    from msgraphlint.fix.files import fix_paths
    from msgraphlint.fix.contract import apply_edits

    from helpers import run_cli

    src = "import mindspore.nn as nn\ndrop = nn.Dropout(0.1)\n"
    p = tmp_path / "net.py"
    p.write_text(src)
    result = _msg510(p)
    (f,) = [f for fr in result.files for f in fr.findings]
    assert (f.line, f.col) == (2, 18)
    assert f.fix is None
    assert [(a.edits[0].text, a.safety) for a in f.alternatives] == [("p=0.9", FixSafety.UNSAFE),
                                                                      ("p=0.1", FixSafety.UNSAFE)]
    assert "keeps 10% and drops 90%" in f.full_message
    assert "`p=0.9` keeps what it does now (drops 90%), `p=0.1` is what a PyTorch author meant (drops 10%)" in f.full_message
    assert "keeps today's behaviour" in f.alternatives[0].description
    assert "PyTorch" in f.alternatives[1].description
    # each alternative, applied by hand, is the rewrite it says and clears the finding
    for alt, want in zip(f.alternatives, ("nn.Dropout(p=0.9)", "nn.Dropout(p=0.1)")):
        fixed, n = apply_edits(src, [alt.edits])
        assert n == 1 and fixed == f"import mindspore.nn as nn\ndrop = {want}\n"
        p.write_text(fixed)
        assert not [g for fr in _msg510(p).files for g in fr.findings]
    p.write_text(src)
    _, changed, errors = fix_paths(_msg510(p), unsafe=True)
    assert changed == [] and errors == [] and p.read_text() == src
    r = run_cli("check", "--fix", "--unsafe-fixes", "--select", "MSG510", str(p))
    assert p.read_text() == src and "MSG510" in r.output and "[*]" not in r.output


def test_msg510_positional_name_offers_both_readings(tmp_path):
    p = tmp_path / "net.py"
    p.write_text("import mindspore.nn as nn\ndef make(rate):\n    return nn.Dropout(rate)\n")
    (f,) = [f for fr in _msg510(p).files for f in fr.findings]
    assert f.fix is None and [a.edits[0].text for a in f.alternatives] == ["p=1 - rate", "p=rate"]


def test_msg510_keep_prob_keyword_keeps_its_safe_fix(tmp_path):
    from msgraphlint.findings import FixSafety

    p = tmp_path / "net.py"
    p.write_text("import mindspore.nn as nn\ndrop = nn.Dropout(keep_prob=0.9)\n")
    (f,) = [f for fr in _msg510(p).files for f in fr.findings]
    assert f.fix is not None and f.fix.safety is FixSafety.SAFE and f.fix.edits[0].text == "p=0.1"
    assert f.alternatives == ()

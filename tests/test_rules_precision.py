"""Precision on patterns an outside review found in real code (issue 10): the compiler's
facts in the labeled fixtures, and cases that need several files."""

from __future__ import annotations

import json
import os

from msgraphlint.run.runner import run_paths

from helpers import codes_at, lint, write_tree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABELED = os.path.join(ROOT, "fixtures", "labeled")


def _labels():
    for name in sorted(os.listdir(LABELED)):
        if name.endswith(".json"):
            with open(os.path.join(LABELED, name), encoding="utf-8") as fh:
                yield name[:-5] + ".py", json.load(fh)


def test_msg202_silent_where_the_compiler_shows_no_divergence():
    """MSG202 claims graph mode and PyNative differ. On every labeled snippet where the
    compile showed the same result and the same input mutation in both modes, it must stay
    silent (this covers the loop, tensor-branch and copy_ negatives of issue 10)."""
    agree = [os.path.join(LABELED, py) for py, lab in _labels()
             if lab.get("default", {}).get("compiles") and lab.get("pynative_equal")
             and (lab.get("inputs_mutated") or {}).get("graph") == (lab.get("inputs_mutated") or {}).get("pynative")]
    assert any("tensor_if_write_other_target" in p for p in agree)
    result = run_paths(agree, select=["MSG202"])
    found = [(os.path.basename(f.path), f.line) for fr in result.files for f in fr.findings]
    assert found == []


def test_msg202_reports_where_the_compiler_shows_graph_only_writes():
    files = ["inplace_pos_loop_write_first_iteration.py", "inplace_pos_aug_under_tensor_branch_on_target.py",
             "inplace_pos_parameter_add_method.py"]
    labels = dict(_labels())
    for f in files:
        lab = labels[f]
        assert lab["confirmed"] and (not lab["pynative_equal"] or lab["inputs_mutated"]["graph"] != lab["inputs_mutated"]["pynative"])
    result = run_paths([os.path.join(LABELED, f) for f in files], select=["MSG202"])
    found = sorted((os.path.basename(x.path), x.line) for fr in result.files for x in fr.findings)
    assert found == sorted((f, labels[f]["defect_line"]) for f in files)


SCRIPT = """
import mindspore as ms
from mindspore import nn
{imp}

def main():
    step = nn.TrainOneStepCell(net, opt)
    step(x, y)

if __name__ == "__main__":
    main()
"""


def test_msg560_graph_mode_set_in_an_imported_module(tmp_path):
    write_tree(tmp_path, {
        "train.py": SCRIPT.format(imp="from utils.env import init_env\ninit_env()"),
        "utils/__init__.py": "",
        "utils/env.py": "import mindspore as ms\n\ndef init_env():\n    ms.set_context(mode=ms.GRAPH_MODE)\n",
        "plain.py": SCRIPT.format(imp="from utils.other import helper"),
        "utils/other.py": "def helper():\n    return 1\n",
    })
    assert codes_at(lint([tmp_path], select=["MSG560"])) == [("plain.py", 6, "MSG560")]


def test_msg560_mode_from_run_config(tmp_path):
    write_tree(tmp_path, {
        "run.py": SCRIPT.format(imp="from mindformers import build_context, MindFormerConfig\n"
                                    "build_context(MindFormerConfig('run.yaml'))"),
    })
    assert lint([tmp_path / "run.py"], select=["MSG560"]) == []


def test_msg511_strategy_set_through_a_parent_in_another_class(tmp_path):
    write_tree(tmp_path, {"m.py": """
import mindspore.nn as nn
import mindspore.ops.operations as P

class Attention(nn.Cell):
    def __init__(self):
        super().__init__()
        self.softmax = P.Softmax()
        self.matmul = P.MatMul()

class Block(nn.Cell):
    def __init__(self, dp, mp):
        super().__init__()
        self.attn = Attention()
        self.attn.softmax.shard(((dp, mp, 1, 1),))
"""})
    assert codes_at(lint([tmp_path / "m.py"], select=["MSG511"])) == [("m.py", 8, "MSG511")]


PRINTING_CELL = """
import mindspore as ms
from mindspore import nn
{setup}

class Net(nn.Cell):
    def construct(self, x):
        print(x)
        return x
{extra}
"""


def test_pynative_by_construction_is_not_graph_code(tmp_path):
    write_tree(tmp_path, {
        "pyn.py": PRINTING_CELL.format(setup="ms.set_context(mode=ms.PYNATIVE_MODE)", extra=""),
        "pyn_ctx.py": PRINTING_CELL.format(setup="from mindspore import context\n"
                                                 "context.set_context(mode=context.PYNATIVE_MODE)", extra=""),
        # evidence of graph code: a jit, a switch to GRAPH_MODE, a check of the mode only
        "pyn_jit.py": PRINTING_CELL.format(setup="ms.set_context(mode=ms.PYNATIVE_MODE)",
                                           extra="\n@ms.jit\ndef step(x):\n    return x * 2\n"),
        "both.py": PRINTING_CELL.format(setup="ms.set_context(mode=ms.PYNATIVE_MODE)",
                                        extra="\ndef main():\n    ms.set_context(mode=ms.GRAPH_MODE)\n"),
        "check.py": PRINTING_CELL.format(setup="IS_PYNATIVE = ms.get_context('mode') == ms.PYNATIVE_MODE", extra=""),
    })
    assert sorted(p for p, _, _ in codes_at(lint([tmp_path], select=["MSG201"]))) == ["both.py", "check.py", "pyn_jit.py"]


def test_msg304_cells_the_project_assembles_into_other_graph_code(tmp_path):
    """FP-5 (benchmarks/results/false_positives.md): a loss/neck Cell built by a registry or
    a factory is fed by its parent graph (measured: one compile), not called from Python."""
    body = "    def construct(self, preds, labels):\n        out = labels * 0\n        for p in preds:\n" \
           "            out = out + p.sum()\n        return out\n"
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/losses.py": "import mindspore.nn as nn\n\ndef register(c):\n    return c\n\n"
                         "@register\nclass RegLoss(nn.Cell):\n" + body +
                         "\nclass NamedLoss(nn.Cell):\n" + body +
                         "\nclass FactoryLoss(nn.Cell):\n" + body +
                         "\nclass LooseLoss(nn.Cell):\n" + body,
        "pkg/builder.py": "from .losses import FactoryLoss, NamedLoss\nSUPPORTED = ['NamedLoss']\n\n"
                          "def build_loss(name):\n    return FactoryLoss() if name == 'f' else eval(name)()\n",
    })
    found = codes_at(lint([tmp_path], select=["MSG304"]))
    assert [(p, c) for p, _, c in found] == [("losses.py", "MSG304")]
    assert found[0][1] == 29  # LooseLoss.construct: nothing says it is fed by another graph


def test_msg304_exports_and_unimported_names_are_no_evidence(tmp_path):
    """Issue 22: `__all__ = ["Net"]`, or another file naming `Net` without importing it (a class
    of its own, a string), silenced MSG304; neither builds the Cell."""
    body = "    def construct(self, x, n):\n        return x[:, :n] * 2\n"
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/net.py": "import mindspore.nn as nn\n__all__ = ['Net']\n\nclass Net(nn.Cell):\n" + body,
        "pkg/other.py": "import mindspore.nn as nn\nNAMES = ['Net']\n\nclass Net(nn.Cell):\n"
                        "    def construct(self, x):\n        return x\n\nclass Parent(nn.Cell):\n"
                        "    def __init__(self):\n        super().__init__()\n        self.net = Net()\n",
    })
    found = codes_at(lint([tmp_path / "pkg" / "net.py"], select=["MSG304"]))
    assert [(p, line, c) for p, line, c in found] == [("net.py", 5, "MSG304")]


def test_msg304_package_evidence_is_read_again_by_a_later_run(tmp_path):
    """What a rule read from other files of the package lives for one run: a second run in
    the same process (the language server, --fix passes) sees the package as it is now."""
    body = "    def construct(self, preds, labels):\n        out = labels * 0\n        for p in preds:\n" \
           "            out = out + p.sum()\n        return out\n"
    write_tree(tmp_path, {"pkg/__init__.py": "",
                          "pkg/losses.py": "import mindspore.nn as nn\n\nclass LooseLoss(nn.Cell):\n" + body})
    assert [c for _, _, c in codes_at(lint([tmp_path], select=["MSG304"]))] == ["MSG304"]
    write_tree(tmp_path, {"pkg/builder.py": "from .losses import LooseLoss\n\n"
                                            "def build_loss():\n    return LooseLoss()\n"})
    assert codes_at(lint([tmp_path], select=["MSG304"])) == []


def test_msg202_helper_argument_the_caller_cannot_observe(tmp_path):
    write_tree(tmp_path, {"m.py": """
import mindspore.nn as nn


def blend(x):
    x[:, 0:2] = x[:, 0:2] * 0.5
    return x


def mask(h, m):
    h[m] = 0.0
    return h


def scale(t):
    t[:, 0] = 1.0
    return t


class Net(nn.Cell):
    def construct(self, x, m, y):
        a = blend(x[0].expand_dims(0))
        x = mask(x, m)
        b = scale(y)
        return a + x + b + y
"""})
    found = codes_at(lint([tmp_path / "m.py"], select=["MSG202"]))
    assert found == [("m.py", 15, "MSG202")]  # only scale(): the caller reads y afterwards


def test_msg202_two_helpers_rebound_in_one_caller(tmp_path):
    """The caller's file is indexed once and asked twice (the second answer comes from the index)."""
    write_tree(tmp_path, {"m.py": """
import mindspore.nn as nn


def first(h):
    h[0] = 0.0
    return h


def second(h):
    h[1] = 0.0
    return h


class Net(nn.Cell):
    def construct(self, x, y, w):
        x = first(x)
        y = second(y)
        z = second(w)
        return x + y + z + w
"""})
    found = codes_at(lint([tmp_path / "m.py"], select=["MSG000", "MSG202"]))
    assert found == [("m.py", 10, "MSG202")]  # only second(w): the caller reads w afterwards

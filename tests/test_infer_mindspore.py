"""The compiler facts behind the inference's constant folding and alias writes
(msgraphlint/infer/folding.py, facade.py; MSG202's attribute-alias finding), compiled on the
installed MindSpore 2.10 in a child process (the checker itself never imports it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.mindspore, pytest.mark.slow]

CHILD = textwrap.dedent(r"""
    import glob, json, os, re, shutil, sys
    import numpy as np
    import mindspore as ms
    from mindspore import nn, ops, Tensor, Parameter

    class FoldLocal(nn.Cell):
        def construct(self, x):
            a = Tensor([1.0, 2.0], ms.float32)
            b = Tensor([3.0, 4.0], ms.float32)
            v = np.exp(a.asnumpy() + b.asnumpy())
            return x + Tensor(v)

    class FoldAttr(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Tensor([1.0, 2.0], ms.float32)
            self.b = Tensor([3.0, 4.0], ms.float32)

        def construct(self, x):
            v = np.exp(self.a.asnumpy() + self.b.asnumpy())
            return x + Tensor(v)

    class Input(nn.Cell):
        def construct(self, x):
            return x + Tensor(np.exp(x.asnumpy()))

    class Range(nn.Cell):
        def construct(self, x):
            return x + ops.range(Tensor(0), Tensor(len(x)), Tensor(1))

    class RangeInput(nn.Cell):
        def construct(self, x, n):
            return ops.range(Tensor(0), n, Tensor(1))

    def ir(name, net, *args):
        d = os.path.join(os.getcwd(), "ir_" + name)
        ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path=d)
        net(*args)
        ms.set_context(save_graphs=False)
        text = "".join(open(f, errors="replace").read() for f in glob.glob(d + "/**/*validate*.ir", recursive=True))
        shapes = re.findall(r"Tensor\[\w+\], \(([^)]*)\)", text)
        return {"pyexecute": text.count("PyExecute("), "shapes": len(shapes),
                "dynamic": any(d.strip().startswith("-") for s in shapes for d in s.split(",") if d.strip())}

    def holder(kind):
        v = Tensor(np.zeros(2, np.float32))
        return Parameter(v, requires_grad=False) if kind == "param" else v

    class Alias(nn.Cell):
        def __init__(self, kind):
            super().__init__()
            self.loss = holder(kind)

        def construct(self, x):
            loss = self.loss
            loss += x
            return loss

    class Plus0(nn.Cell):
        def __init__(self, kind):
            super().__init__()
            self.loss = holder(kind)

        def construct(self, x):
            loss = self.loss + 0
            loss += x
            return loss

    class Copy(nn.Cell):
        def __init__(self, kind):
            super().__init__()
            self.loss = holder(kind)

        def construct(self, x):
            loss = self.loss.copy()
            loss += x
            return loss

    class ConstantSum(nn.Cell):
        def construct(self, x):
            total = Tensor(0.0, ms.float32)
            for i in range(3):
                total += x[i].sum()
            return total

    class ZerosOp(nn.Cell):
        def construct(self, x):
            y = ops.zeros((2,), ms.float32)
            y += x[0]
            return y

    def calls(cls, kind, mode):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        net = cls(kind)
        x = Tensor(np.ones(2, np.float32))
        outs = [float(net(x).asnumpy()[0]) for _ in range(3)]
        return outs + [float(net.loss.asnumpy()[0])]

    x = Tensor(np.ones(2, np.float32))
    out = {"fold_local": ir("fold_local", FoldLocal(), x), "fold_attr": ir("fold_attr", FoldAttr(), x),
           "input": ir("input", Input(), x), "range": ir("range", Range(), Tensor(np.ones(5, np.float32))),
           "range_input": ir("range_input", RangeInput(), x, Tensor(4))}
    for mode in ("graph", "pynative"):
        for cls in (Alias, Plus0, Copy):
            for kind in ("tensor", "param"):
                out[f"{mode}_{cls.__name__}_{kind}"] = calls(cls, kind, mode)
    for mode in ("graph", "pynative"):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        for cls in (ConstantSum, ZerosOp):
            net = cls()
            x3 = Tensor(np.ones((3, 2), np.float32))
            out[f"{mode}_{cls.__name__}"] = [float(net(x3).asnumpy().ravel()[0]) for _ in range(3)]
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("infer_facts")
    script = tmp / "infer_child.py"   # graph mode reads the source: a file, not `-c`
    script.write_text(CHILD)
    env = dict(os.environ, GLOG_v="3", MS_DEV_SAVE_GRAPHS="1")
    proc = subprocess.run([sys.executable, str(script)], cwd=str(tmp), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_constant_tensors_fold(require_mindspore, facts):
    # `.asnumpy()` of tensors built from constants (in construct or in __init__): no PyExecute;
    # of the input: PyExecute (the probe sees fallback nodes when there are some)
    assert facts["fold_local"]["pyexecute"] == 0
    assert facts["fold_attr"]["pyexecute"] == 0
    assert facts["input"]["pyexecute"] > 0
    # `ops.range(Tensor(0), Tensor(len(x)), Tensor(1))`: a static shape; a tensor limit: dynamic
    assert facts["range"]["shapes"] and not facts["range"]["dynamic"] and facts["range_input"]["dynamic"]


def test_write_through_a_local_bound_to_a_cell_attribute_diverges(require_mindspore, facts):
    # three calls' outputs, then the attribute's value: graph mode writes the attribute
    for kind in ("tensor", "param"):
        assert facts[f"graph_Alias_{kind}"] == [1.0, 2.0, 3.0, 3.0]
        assert facts[f"pynative_Alias_{kind}"] == [1.0, 1.0, 1.0, 0.0]
    # a new tensor from a Parameter (`self.loss + 0`, `.copy()`): both modes agree (MSG204 only)
    for cls in ("Plus0", "Copy"):
        assert facts[f"graph_{cls}_param"] == facts[f"pynative_{cls}_param"] == [1.0, 1.0, 1.0, 0.0]


def test_write_into_a_constant_tensor_carries_over_calls(require_mindspore, facts):
    # `total = Tensor(0.0); total += x[i].sum()`: graph mode writes into the graph's constant
    assert facts["graph_ConstantSum"] == [6.0, 12.0, 18.0]
    assert facts["pynative_ConstantSum"] == [6.0, 6.0, 6.0]
    # an op's output is made at each call: both modes agree (MSG204 only)
    assert facts["graph_ZerosOp"] == facts["pynative_ZerosOp"] == [1.0, 1.0, 1.0]

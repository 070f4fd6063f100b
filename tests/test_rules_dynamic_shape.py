"""MSG301-MSG305 (dynamic shapes and recompiles): cross-module cases, options and tricky
look-alikes. The single-file cases live in the rules' VALID/INVALID examples."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from msgraphlint.run.runner import run_paths


def _tree(root: Path, files: Dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _found(root: Path, select=("MSG3",), config: Optional[str] = None) -> List[Tuple[str, int, str]]:
    result = run_paths([str(root)], select=list(select), config_file=config)
    return sorted((os.path.basename(f.path), f.line, f.code)
                  for fr in result.files for f in fr.findings + fr.unused_suppressions)


def test_mask_read_in_a_helper_of_another_module(tmp_path):
    root = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops_util.py": """
            def positives(t):
                return t[t > 0]

            def clamp_low(t):
                t[t < 0] = 0.0
                return t
        """,
        "pkg/model.py": """
            import mindspore.nn as nn
            from pkg.ops_util import positives, clamp_low

            class Net(nn.Cell):
                def construct(self, x):
                    y = clamp_low(x * 1)
                    return positives(x * 2).sum() + y
        """,
    })
    assert _found(root, select=("MSG3", "MSG004")) == [("model.py", 7, "MSG004"), ("ops_util.py", 2, "MSG301")]


def test_set_inputs_from_a_training_script(tmp_path):
    root = _tree(tmp_path, {
        "model.py": """
            import mindspore.nn as nn

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(8, 8)

                def construct(self, x):
                    return self.dense(x)
        """,
        "train.py": """
            import mindspore as ms
            from mindspore import Tensor
            from model import Net

            def build(static):
                net = Net()
                if static:
                    net.set_inputs(Tensor(shape=[32, 8], dtype=ms.float32))
                    return net
                dyn = Tensor(shape=[None, 8], dtype=ms.float32)
                net.set_inputs(dyn)
                return net

            rank_free = Net()
            rank_free.set_inputs(ms.Tensor(shape=None, dtype=ms.float32))
        """,
    })
    assert _found(root) == [("train.py", 11, "MSG305"), ("train.py", 15, "MSG305")]


def test_python_value_parameters_top_level_only(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore.nn as nn
            from mindspore import ops

            class WindowReverse(nn.Cell):
                def construct(self, windows, h, w):
                    return windows.reshape(-1, h, w, windows.shape[-1])

            class Head(nn.Cell):
                def construct(self, feats, mode):
                    out = feats[0]
                    for f in feats[1:]:
                        out = out + f
                    return out if mode == "sum" else out * 0.5

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.rev = WindowReverse()
                    self.head = Head()

                def construct(self, x, n, scale=0.5):
                    y = self.rev(x, 4, 2)
                    z = self.head((y, y), "sum")
                    for i in range(n):
                        z = z * scale
                    return z

            class Standalone(nn.Cell):
                def construct(self, x, k: int, tag: str = "a"):
                    return ops.topk(x, 2)[0] * k
        """,
    })
    # WindowReverse and Head are sub-cells of Net (constants of its graph); Net's `n` is a
    # range() bound; `scale` defaults; Standalone's annotated `k` is only reported with
    # include_annotations (it is not used as a size here)
    assert _found(root) == [("net.py", 21, "MSG304")]


def test_options_defaults_and_annotations(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x, k: int, scale=2.0, y=None):
                    return x * scale * k
        """,
        "cfg/pyproject.toml": """
            [tool.msgraphlint.rules.MSG304]
            include_defaults = true
            include_annotations = true
        """,
    })
    assert _found(root / "net.py") == []
    cfg = str(root / "cfg" / "pyproject.toml")
    found = run_paths([str(root / "net.py")], select=["MSG304"], config_file=cfg)
    msgs = sorted((f.line, f.col, f.message.split(":")[0]) for fr in found.files for f in fr.findings)
    assert msgs == [(4, 27, "parameter `k` is annotated `int`"),
                    (4, 35, "parameter `scale` defaults to `2.0`")]


def test_shapes_from_guessed_names_are_not_tensor_data(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import ops

            class PatchEmbed(nn.Cell):
                def construct(self, x):
                    b, c, h, w = x.shape
                    return x.reshape(b, c, h * w).transpose(0, 2, 1), h, w

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.embed = PatchEmbed()
                    self.shape = ops.Shape()

                def construct(self, x):
                    x, H, W = self.embed(x)
                    B, N, C = x.shape
                    y = x.transpose(0, 2, 1).reshape(B, C, H, W)
                    shape = self.shape(y)
                    z = y.view(shape[0], -1)[:, : H * W]
                    n = (z > 0).astype(ms.int32).sum()
                    pad = ops.zeros((n, 4))
                    head = ops.reshape(z, (int(n), -1))
                    return z, pad, head

            def rope(dim, pos):
                if isinstance(pos, int):
                    pos = ops.arange(pos)
                return pos.astype(ms.float32) * dim

            class Rel(nn.Cell):
                def construct(self, table, window_size, pos):
                    new_h = 2 * window_size[0] - 1
                    return table.reshape(new_h * new_h + 3, -1), rope(4, pos)
        """,
    })
    # H, W unpacked from a sub-Cell, `self.shape(...)`, a parameter's element and a name
    # narrowed by isinstance(…, int) are Python values; n is tensor data
    assert _found(root) == [("net.py", 23, "MSG303"), ("net.py", 24, "MSG303")]


def test_mask_kinds(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x, idx, mask):
                    keep = ops.logical_and(x > 0, x < 1)
                    a = x[:, keep[0]]
                    b = x[idx] + x[mask]
                    cols = (x.sum(0) > 0).astype(ms.bool_)
                    c = x[:, cols]
                    x[keep] = 0.0
                    return a, b, c
        """,
    })
    # `idx` and `mask` parameters may be integer indices: not reported
    assert _found(root) == [("net.py", 8, "MSG301"), ("net.py", 11, "MSG301")]


def test_data_dependent_ops_forms(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import mint, ops

            class Net(nn.Cell):
                def construct(self, x):
                    u = ops.Unique()(x.reshape(-1))[0]
                    pos = mint.where(x > 0)
                    sel = mint.where(x > 0, x, 0.0)
                    counts = (x > 0).astype(ms.int32).sum(axis=1)
                    rep = ops.repeat_interleave(x, counts, 0)
                    rep2 = ops.repeat_interleave(x, 2, 0)
                    return u, pos, sel, rep, rep2
        """,
    })
    assert _found(root) == [("net.py", 7, "MSG302"), ("net.py", 8, "MSG302"), ("net.py", 11, "MSG302")]


_SCALE_NET = ("import mindspore.nn as nn\nfrom mindspore import Tensor\n\nclass Net(nn.Cell):\n"
              "    def construct(self, x, scale):\n        return x * scale\n\n\nx = Tensor([1.0])\n")


def _msg304(host: str) -> List[str]:
    from msgraphlint.run.runner import run_source
    return [f.full_message for f in run_source(_SCALE_NET + host, "m.py", select=["MSG304"]).findings]


def test_msg304_counts_values_per_receiver():
    """A graph per value and Cell instance: one instance called with two Python values
    recompiles; two instances each compile once whatever they are passed (measured:
    `Net()(x, 0.5); Net()(x, 0.5)` and `Net()(x, 0.5); Net()(x, 0.75)` both give 2 compiles,
    test_two_instances_compile_once_each_whatever_the_value), so values spread over new
    instances (MindSpore's test_logic_and.py) are no evidence."""
    (m,) = _msg304("net = Net()\nnet(x, 0.5)\nnet(x, 0.75)\n")
    assert "gets the Python floats `0.5` and `0.75`: recompiles per value" in m
    assert "Python calls pass `0.5` and `0.75` (lines 11, 12)" in m
    assert _msg304('Net()(x, "cba")\nNet()(x, 1.99)\n') == []
    assert _msg304("a = Net()\nb = Net()\na(x, 0.5)\nb(x, 0.75)\n") == []
    (m,) = _msg304('net = Net()\nnet(x, "cba")\nnet(x, 1.99)\n')   # mixed kinds are "values", not "ints"
    assert "gets the Python values `'cba'` and `1.99`" in m


def test_two_instances_compile_once_each_whatever_the_value(tmp_path, require_mindspore):
    import subprocess
    import sys
    (tmp_path / "net.py").write_text("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n"
                                     "    def construct(self, x, scale):\n        return x * scale\n")
    (tmp_path / "run.py").write_text(textwrap.dedent("""
        import glob, os, sys
        import mindspore as ms
        from mindspore import Tensor
        ms.set_context(mode=ms.GRAPH_MODE)
        sys.path.insert(0, os.getcwd())
        from net import Net
        x = Tensor([1.0])
        Net()(x, float(sys.argv[1])); Net()(x, float(sys.argv[2]))
        print(len(glob.glob(os.path.join(os.environ["MS_DEV_SAVE_GRAPHS_PATH"], "*validate*.ir"))))
        """))
    counts = []
    for i, (a, b) in enumerate((("0.5", "0.5"), ("0.5", "0.75"))):
        env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=str(tmp_path / f"ir{i}"),
                   MS_DEV_DUMP_IR_PASSES="validate", GLOG_v="3")
        proc = subprocess.run([sys.executable, "run.py", a, b], cwd=str(tmp_path), env=env, capture_output=True,
                              text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        counts.append(int(proc.stdout.strip().splitlines()[-1]))
    assert counts == [2, 2]

"""The facts behind what MSG201, MSG203, MSG211 and MSG410 say (issue 22 item 4: each message
states only what 2.10 measurably does), compiled on the installed MindSpore in a child process
per case (the checker itself never imports it): which `print` calls in a Cell's `construct`
become a Print op and which run through PyExecute, which kernels a subscript write compiles to
(validate IR), and that `with open(...)` does not compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = [pytest.mark.mindspore, pytest.mark.slow]

CHILD = textwrap.dedent(r"""
    import glob, json, os, sys
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor, nn
    ms.set_context(mode=ms.GRAPH_MODE)

    class Tensor_(nn.Cell):
        def construct(self, x):
            print(x)
            return x * 2

    class String(nn.Cell):
        def construct(self, x):
            print("hello")
            return x * 2

    class FString(nn.Cell):
        def construct(self, x):
            print(f"x={x}")
            return x * 2

    class FStringShape(nn.Cell):
        def construct(self, x):
            print(f"shape {x.shape}")
            return x * 2

    class FStringBuiltTensor(nn.Cell):
        def construct(self, x):
            t = (1, 2, 3)
            print(f"t: {Tensor(t)}")
            return x * 2

    globals()[sys.argv[1]]()(Tensor(np.ones(2, np.float32)))
    texts = [open(f, errors="replace").read()
             for f in glob.glob(os.path.join(os.environ["MS_DEV_SAVE_GRAPHS_PATH"], "*validate*.ir"))]
    print(json.dumps([sum(t.count(" = Print(") for t in texts), sum(t.count("PyExecute(") for t in texts)]))
""")


def _nodes(tmp_path, case, strict):
    ir = tmp_path / f"ir_{case}_{int(strict)}"
    env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=str(ir),
               MS_DEV_DUMP_IR_PASSES="validate", GLOG_v="3")
    env.pop("MS_DEV_JIT_SYNTAX_LEVEL", None)
    if strict:
        env["MS_DEV_JIT_SYNTAX_LEVEL"] = "0"
    script = tmp_path / "print_child.py"   # graph mode reads the source: a file, not `-c`
    script.write_text(CHILD)
    proc = subprocess.run([sys.executable, str(script), case], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_which_prints_become_print_ops(tmp_path, require_mindspore):
    # [Print nodes, PyExecute nodes]
    for case in ("Tensor_", "String", "FStringShape", "FStringBuiltTensor"):   # MSG201: "compiled into a Print op"
        assert _nodes(tmp_path, case, False) == [1, 0], case
    assert _nodes(tmp_path, "FString", False) == [0, 3]    # MSG201: PyExecute, no Print op
    assert _nodes(tmp_path, "FString", True) == [1, 0]     # ... and a Print op under STRICT


WRITE_CHILD = textwrap.dedent(r"""
    import glob, json, os, re, sys
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor, nn, ops
    ms.set_context(mode=ms.GRAPH_MODE)
    form = sys.argv[1]
    with open("net.py", "w") as f:   # graph mode reads the source: a module of its own
        f.write("import mindspore.nn as nn\nfrom mindspore import mint, ops\n\nclass Net(nn.Cell):\n"
                "    def construct(self, x):\n        y = ops.relu(x)\n        " + form + "\n        return y * 2\n")
    sys.path.insert(0, os.getcwd())
    import net
    net.Net()(Tensor(np.ones((4, 4), np.float32)))
    texts = [open(f, errors="replace").read()
             for f in glob.glob(os.path.join(os.environ["MS_DEV_SAVE_GRAPHS_PATH"], "*validate*.ir"))]
    names = ("TensorCopySlices", "TensorScatterUpdate", "Concat", "ExpandDims", "Select")
    print(json.dumps(sorted({n for t in texts for n in names if re.search(r"\b(?:PrimFunc_)?" + n + r"\(", t)})))
""")


def _kernels(tmp_path, form):
    d = tmp_path / str(abs(hash(form)))
    d.mkdir()
    env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=str(d / "ir"),
               MS_DEV_DUMP_IR_PASSES="validate", GLOG_v="3")
    script = d / "write_child.py"
    script.write_text(WRITE_CHILD)
    proc = subprocess.run([sys.executable, str(script), form], cwd=str(d), env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_subscript_write_kernels(tmp_path, require_mindspore):
    # MSG203 names the kernel by the index form (rules/inplace.py _write_ops)
    assert _kernels(tmp_path, "y[1:3] = 0.0") == ["TensorCopySlices"]
    assert _kernels(tmp_path, "y[2:] = 0.0") == ["TensorCopySlices"]
    assert _kernels(tmp_path, "y[0] = 0.0") == ["TensorScatterUpdate"]
    assert _kernels(tmp_path, "y[0, 1] = 0.0") == ["Concat", "ExpandDims", "TensorScatterUpdate"]
    assert _kernels(tmp_path, "y[:, :2] = 0.0") == ["Concat", "ExpandDims", "TensorScatterUpdate"]


def test_subscript_write_message_names_the_compiled_kernels(tmp_path, require_mindspore):
    """For each index form, the kernels MSG203's message names are the ones the validate IR
    holds (a slice then a whole axis is not a contiguous block; integer indices then whole
    axes are)."""
    from msgraphlint.run.runner import run_source
    named = {"TensorCopySlices": ["TensorCopySlices"],
             "TensorScatterUpdate (with Concat/ExpandDims)": ["Concat", "ExpandDims", "TensorScatterUpdate"],
             "TensorScatterUpdate": ["TensorScatterUpdate"]}
    for form in ("y[1:3] = 0.0", "y[1:3, :] = 0.0", "y[:2, :] = 0.0", "y[1, :] = 0.0", "y[1:3, ...] = 0.0",
                 "y[0] = 0.0", "y[0, 1] = 0.0"):
        src = ("import mindspore.nn as nn\nfrom mindspore import mint, ops\n\nclass Net(nn.Cell):\n"
               "    def construct(self, x):\n        y = ops.relu(x)\n        " + form + "\n        return y * 2\n")
        (f,) = [f for f in run_source(src, "net.py", select=["MSG203"]).findings]
        said = max((n for n in named if f"to {n} " in f.full_message or f"with {n})" in f.full_message), key=len)
        assert named[said] == _kernels(tmp_path, form), (form, f.full_message)
    # a boolean mask, also from mint (mindone's math_utils.py `tmax[mint.logical_not(is_valid)] = -2`):
    # a Select, no scatter kernel, and MSG203 stays silent
    for form in ("y[mint.logical_not(y > 1)] = 0.0", "y[ops.logical_not(y > 1)] = 0.0"):
        src = ("import mindspore.nn as nn\nfrom mindspore import mint, ops\n\nclass Net(nn.Cell):\n"
               "    def construct(self, x):\n        y = ops.relu(x)\n        " + form + "\n        return y * 2\n")
        assert run_source(src, "net.py", select=["MSG203"]).findings == [], form
        assert _kernels(tmp_path, form) == ["Select"], form


WITH_OPEN_CHILD = textwrap.dedent(r"""
    import os, sys
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor, nn
    ms.set_context(mode=ms.GRAPH_MODE)

    class Net(nn.Cell):
        def construct(self, x):
            with open(sys.argv[1], "a") as f:
                f.write("forward")
            return x * 2

    try:
        Net()(Tensor(np.ones(2, np.float32)))
        print("compiled", os.path.exists(sys.argv[1]))
    except TypeError as e:
        print("TypeError:", str(e).strip().splitlines()[0])
""")


@pytest.mark.parametrize("strict", [False, True])
def test_with_open_does_not_compile(tmp_path, require_mindspore, strict):
    # MSG410 reports it with this error; MSG211 does not say "runs once" about it
    script = tmp_path / "with_open_child.py"
    script.write_text(WITH_OPEN_CHILD)
    env = dict(os.environ, GLOG_v="3")
    env.pop("MS_DEV_JIT_SYNTAX_LEVEL", None)
    if strict:
        env["MS_DEV_JIT_SYNTAX_LEVEL"] = "0"
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "trace.log")], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.stdout.strip().splitlines()[-1] == "TypeError: issubclass() arg 1 must be a class", proc.stderr[-2000:]
    assert not (tmp_path / "trace.log").exists()

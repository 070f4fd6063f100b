"""The facts behind MSG106/MSG107 and MSG202's bytecode exemption, compiled on the installed
MindSpore (a child process in a scratch directory; the checker itself never imports it):
how ast, bytecode and trace capture treat tensor-decided control flow and in-place writes to
an input."""

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
    from mindspore import Tensor

    def branch(x):
        if x.sum() > 0:
            return x * 2
        return x - 100

    def loop(x):
        x = x * 40
        while x.abs().max() > 10:
            x = x / 2
        return x

    def aug(x):
        x += 1
        return x * 2

    mode = sys.argv[1]
    out = {}
    g = ms.jit(branch, capture_mode=mode)
    out["branch"] = [float(g(Tensor(np.ones(3, np.float32))).asnumpy()[0]),
                     float(g(Tensor(-np.ones(3, np.float32))).asnumpy()[0])]
    g = ms.jit(loop, capture_mode=mode)
    out["loop"] = [float(g(Tensor(np.ones(3, np.float32))).asnumpy()[0]),
                   float(g(Tensor(-np.full(3, 8, np.float32))).asnumpy()[0])]
    x = Tensor(np.ones(3, np.float32))
    ms.jit(aug, capture_mode=mode)(x)
    out["aug_caller"] = float(x.asnumpy()[0])
    ir = os.environ["MS_DEV_SAVE_GRAPHS_PATH"]
    texts = [open(f, errors="replace").read() for f in glob.glob(os.path.join(ir, "*validate*.ir"))]
    out["switch"] = any("Switch(" in t for t in texts)
    print(json.dumps(out))
""")


def _run(mode, tmp_path):
    env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=str(tmp_path / mode),
               MS_DEV_DUMP_IR_PASSES="validate", GLOG_v="3")
    script = tmp_path / "capture_child.py"   # ast capture reads the source: a file, not `-c`
    script.write_text(CHILD)
    proc = subprocess.run([sys.executable, str(script), mode], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_capture_modes_on_tensor_control_flow_and_input_writes(tmp_path, require_mindspore):
    python = {"branch": [2.0, -101.0], "loop": [10.0, -10.0], "aug_caller": 1.0}
    ast_ = _run("ast", tmp_path)
    assert ast_["switch"] and ast_["branch"] == python["branch"] and ast_["loop"] == python["loop"]
    assert ast_["aug_caller"] == 2.0              # MSG202: ast capture overwrites the caller's tensor
    bytecode = _run("bytecode", tmp_path)
    assert not bytecode["switch"]                 # MSG106: no Switch, the graph breaks
    assert bytecode["branch"] == python["branch"] and bytecode["loop"] == python["loop"]
    assert bytecode["aug_caller"] == 1.0          # PyNative's semantics: MSG202 stays silent
    trace = _run("trace", tmp_path)
    assert not trace["switch"]
    assert trace["branch"] == [2.0, -2.0]         # MSG107: the first call's branch is replayed
    assert trace["loop"] == [10.0, -80.0]         # ... and its trip count

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


BYTECODE_CHILD = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor
    from mindspore._c_expression import get_code_extra

    class CM:
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            return False

    def try_(x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y + 1

    def with_(x):
        with CM():
            y = x * 2
        return y + 1

    def with_break(x):
        with CM():
            y = Tensor(x.asnumpy() * 2)
        return y + 1

    def del_(x):
        y = x * 2
        z = y + 1
        del y
        return z

    def walrus(x):
        if (n := x.shape[0]) > 1:
            return x * n
        return x

    def set_(x):
        return x * len({0, 1})

    def import_(x):
        import math
        return x * math.pi

    def asnumpy(x):
        return Tensor(x.asnumpy() * 2)

    def branch(x):
        if x.sum() > 0:
            return x * 2
        return x - 100

    def mask(x):
        return x[x > 0] * 2

    def subscript(x):
        y = x * 1
        y[0] = 0.0
        return y * 2

    def helper(x):
        try:
            return x * 2
        except ValueError:
            return x

    def calls_helper(x):
        return helper(x) + 1

    out = {}
    inputs = (Tensor(np.ones(3, np.float32)), Tensor(-np.ones(3, np.float32)))
    for f in (try_, with_, with_break, del_, walrus, set_, import_, asnumpy, branch, calls_helper, mask, subscript):
        g = ms.jit(f, capture_mode="bytecode")
        same = all(np.allclose(g(i).asnumpy(), f(i).asnumpy()) for i in inputs)
        j = get_code_extra(f)
        out[f.__name__] = [j["stat"], j["break_count_"], j["compile_count_"] > 0, same]
    for f in (set_, import_, branch):
        code = f.__code__.replace()       # a fresh code object: get_code_extra is per code
        f2 = type(f)(code, f.__globals__, f.__name__ + "_fg")
        try:
            ms.jit(f2, capture_mode="bytecode", fullgraph=True)(inputs[0])
            out["fullgraph_" + f.__name__] = "ok"
        except Exception as e:  # noqa: BLE001 - the error MindSpore raises is the measurement
            out["fullgraph_" + f.__name__] = str(e)
    print(json.dumps(out))
""")


def test_bytecode_capture_break_counts(tmp_path, require_mindspore):
    """MSG110's table and MSG106's break: `stat`/`break_count_` read as MindSpore's pi_jit tests
    read them. Every case gives PyNative's results; `try`/`with` around tensor code leave the
    function uncompiled, a `with` around a break compiles (so neither is reported), `del`/`:=`
    compile with no break, a set, an `import`, `.asnumpy()` and a tensor branch break."""
    script = tmp_path / "bytecode_child.py"
    script.write_text(BYTECODE_CHILD)
    proc = subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, GLOG_v="3"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["try_"] == ["NEVER_COMPILE", 0, False, True]           # not compiled at all
    assert proc.stderr.count("out of bci range") == 2                 # ... after an internal error (try, with)
    assert out["with_"] == ["NEVER_COMPILE", 0, False, True]
    assert out["with_break"] == ["GRAPH_CALLABLE", 1, True, True]     # ... but not always: MSG110 stays silent
    assert out["calls_helper"] == ["GRAPH_CALLABLE", 0, True, True]   # a try in a helper compiles
    for name in ("del_", "walrus"):                                   # MSG410's syntax, legal here
        assert out[name] == ["GRAPH_CALLABLE", 0, True, True], name
    for name in ("set_", "import_", "asnumpy", "branch"):             # MSG110 / MSG106: one break
        assert out[name] == ["GRAPH_CALLABLE", 1, True, True], name
    assert out["mask"] == ["NEVER_COMPILE", 0, False, True]           # MSG301 is ast capture's claim
    assert out["subscript"] == ["GRAPH_CALLABLE", 0, True, True]      # MSG203's write compiles, no break
    assert "Unsupported bytecode" in out["fullgraph_set_"]
    assert "Cannot infer the execution result" in out["fullgraph_import_"]
    assert "Data-dependent conditional control flow is not supported" in out["fullgraph_branch"]


TRACE_OUTPUT_CHILD = textwrap.dedent(r"""
    import glob, os
    import mindspore as ms

    class DictNet(ms.nn.Cell):
        @ms.jit(capture_mode="trace")
        def construct(self, d):
            return [d["a"] * 2, d]

    out = DictNet()({"a": ms.Tensor(1), "b": ms.Tensor(2)})
    ir = os.environ["MS_DEV_SAVE_GRAPHS_PATH"]
    texts = [open(f, errors="replace").read() for f in glob.glob(os.path.join(ir, "*validate*.ir"))]
    print(sum(t.count("PyExecute(") for t in texts), isinstance(out[1], dict))
""")


def test_trace_capture_builds_a_python_object_output_with_pyexecute(tmp_path, require_mindspore):
    """MSG414 holds under trace capture too (its `captures`): the list holding the caller's dict
    is built with PyExecute."""
    script = tmp_path / "trace_output_child.py"
    script.write_text(TRACE_OUTPUT_CHILD)
    env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=str(tmp_path / "ir"), GLOG_v="3")
    proc = subprocess.run([sys.executable, str(script)], cwd=str(tmp_path), env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    count, is_dict = proc.stdout.strip().splitlines()[-1].split()
    assert int(count) >= 1 and is_dict == "True"

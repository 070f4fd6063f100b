"""The MindSpore 2.10 facts that rule rationales state (MSG202, MSG206, MSG304, MSG410,
MSG511), re-measured on the installed MindSpore in one subprocess (the linter never
imports it). Each assertion names the rule whose text relies on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

MEASURE = textwrap.dedent('''
    import json, os, sys
    import numpy as np
    import mindspore as ms
    from mindspore import nn, ops, Tensor, Parameter
    from mindspore.ops import operations as P
    out = {}

    def both(make, args_fn):
        res = {}
        for mode in ("graph", "pynative"):
            ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
            net = make()
            args = args_fn()
            before = [a.asnumpy().copy() for a in args]
            try:
                r = net(*args)
                res[mode] = {"ok": True, "result": r.asnumpy().tolist(),
                             "input_changed": [bool(not np.array_equal(a.asnumpy(), b)) for a, b in zip(args, before)],
                             "param": [p.asnumpy().tolist() for p in net.get_parameters()]}
            except Exception as e:
                res[mode] = {"ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
        return res

    x4 = lambda: (Tensor(np.arange(4, dtype=np.float32)),)
    xy = lambda: (Tensor(np.arange(4, dtype=np.float32)), Tensor(np.ones(4, np.float32)))

    class ParamAdd(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.zeros(4, np.float32)), name="p")
        def construct(self, x):
            self.p.add_(1.0)
            return x + self.p
    out["param_add_"] = both(ParamAdd, x4)

    class Aug(nn.Cell):
        def construct(self, x):
            x += 1
            return x * 2
    out["aug_input"] = both(Aug, x4)

    class AugLoopFirst(nn.Cell):
        def construct(self, x):
            for _ in range(3):
                x += 1
                x = x * 2
            return x
    out["aug_loop_first_iteration"] = both(AugLoopFirst, x4)

    class AugLoopLater(nn.Cell):
        def construct(self, x):
            for i in range(3):
                if i > 0:
                    x += 1
                x = x * 2
            return x
    out["aug_loop_after_rebind"] = both(AugLoopLater, x4)

    class AugOtherCond(nn.Cell):
        def construct(self, x, y):
            if y.sum() > 0:
                x += 1
            return x * 2
    out["aug_branch_other_condition"] = both(AugOtherCond, xy)

    class AugOwnCond(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                x += 1
            return x * 2
    out["aug_branch_own_condition"] = both(AugOwnCond, x4)

    class AssignValue(nn.Cell):
        def construct(self, x):
            y = x * 2
            y.assign_value(x)
            return y
    out["assign_value"] = both(AssignValue, x4)

    class StreamCtx(nn.Cell):
        def __init__(self):
            super().__init__()
            self.s = ms.runtime.Stream()
        def construct(self, x):
            with ms.runtime.StreamCtx(self.s):
                y = x * 2
            return y
    out["stream_ctx"] = both(StreamCtx, x4)

    ms.set_context(mode=ms.GRAPH_MODE)
    class Slice(nn.Cell):
        def construct(self, x, n):
            return x[:n] * 2
    net = Slice()
    shapes = [list(net(Tensor(np.arange(8, dtype=np.float32)), Tensor(v, ms.int32)).shape) for v in (2, 3, 2, 4)]
    out["int_tensor_bound"] = {"compiles": len(net.compile_cache), "shapes": shapes}
    net = Slice()
    for v in (2, 3, 2, 4):
        net(Tensor(np.arange(8, dtype=np.float32)), v)
    out["python_int_bound"] = {"compiles": len(net.compile_cache)}

    sys.stdout.flush()
    print("FACTS" + json.dumps(out), flush=True)
    print("GATHERV2", flush=True)
    P.GatherV2()
    sys.stderr.flush()
''')


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    python = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable
    cwd = tmp_path_factory.mktemp("claims")
    script = cwd / "measure_claims.py"  # MindSpore compiles from source files, not `python -c`
    script.write_text(MEASURE, encoding="utf-8")
    proc = subprocess.run([python, str(script)], capture_output=True, text=True, timeout=600, cwd=str(cwd))
    line = next((l for l in proc.stdout.splitlines() if l.startswith("FACTS")), None)
    assert line is not None, proc.stderr[-3000:]
    data = json.loads(line[5:])
    data["gatherv2_log"] = proc.stderr.split("GATHERV2")[-1] if "GATHERV2" in proc.stderr else proc.stderr
    return data


@pytest.mark.mindspore
def test_msg202_parameter_inplace_method_applies_in_graph_only(facts):
    f = facts["param_add_"]
    assert f["graph"]["param"] == [[1.0] * 4] and f["pynative"]["param"] == [[0.0] * 4]


@pytest.mark.mindspore
def test_msg202_when_plus_equals_writes_back(facts):
    # writes back: top level, first unrolled iteration, branch on the target itself
    for case in ("aug_input", "aug_loop_first_iteration", "aug_branch_own_condition"):
        assert facts[case]["graph"]["input_changed"][0] is True, case
        assert facts[case]["pynative"]["input_changed"][0] is False, case
    # does not: every iteration rebound first, a branch whose condition does not read x
    for case in ("aug_loop_after_rebind", "aug_branch_other_condition"):
        assert facts[case]["graph"]["input_changed"][0] is False, case
        assert facts[case]["graph"]["result"] == facts[case]["pynative"]["result"], case


@pytest.mark.mindspore
def test_msg206_assign_value_does_not_compile(facts):
    g = facts["assign_value"]["graph"]
    assert g["ok"] is False and "'assign_value' is not supported in 'construct'" in g["error"]
    assert facts["assign_value"]["pynative"]["ok"] is True


@pytest.mark.mindspore
def test_msg410_stream_ctx_compiles(facts):
    assert facts["stream_ctx"]["graph"]["ok"] is True


@pytest.mark.mindspore
def test_msg304_int_tensor_compiles_once_dynamic_python_int_recompiles(facts):
    assert facts["int_tensor_bound"] == {"compiles": 1, "shapes": [[2], [3], [2], [4]]}
    assert facts["python_int_bound"]["compiles"] == 3


@pytest.mark.mindspore
def test_msg511_gatherv2_is_deprecated(facts):
    assert "'GatherV2' is deprecated from version 1.1" in facts["gatherv2_log"]
    assert "use 'Gather' instead" in facts["gatherv2_log"]

"""The semantic fix harness: every safe fix found in fixtures/ and in the rules' INVALID
examples is applied, and the code before and after is compiled and run on MindSpore
(GRAPH_MODE and PyNative, evaluation and training state), comparing outputs, the
inputs after the call and the parameters. A safe fix must change nothing.

Also the measurements behind the fix contract's decisions (MSG620, MSG204).

Prints ``fix semantics: N fixes applied in F files, C runs compared, 0 behaviour changes``.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from msgraphlint.fix.files import fix_paths
from msgraphlint.engine.registry import load_rules
from msgraphlint.run.runner import run_paths

ROOT = Path(__file__).resolve().parent.parent
CHILD = Path(__file__).resolve().parent / "fix_semantics_child.py"
PYTHON = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable


def _safe_fix_cases(work: Path):
    """(id, original path, fixed text, fixes applied) for every file a safe fix changes."""
    out = []
    fixtures = sorted(glob.glob(str(ROOT / "fixtures" / "**" / "*.py"), recursive=True))
    fixtures += sorted(glob.glob(str(ROOT / "tests" / "data" / "codemods" / "*.py")))  # the structural fixes
    fixtures += sorted(glob.glob(str(ROOT / "tests" / "data" / "hostfixes" / "*.py")))  # MSG420/MSG406 safe rewrites
    fixtures += sorted(glob.glob(str(ROOT / "tests" / "data" / "torchfixes" / "*.py")))  # MSG502 (torch_shim)
    _, changed, errors = fix_paths(run_paths(fixtures), write=False)
    assert not errors
    out += [(f"fixture-{Path(c.path).stem}", Path(c.path), c.fixed, c.applied) for c in changed]
    for code, rule in load_rules().items():
        for i, ex in enumerate(rule.INVALID):
            p = work / "examples" / f"{code}_{i}" / ex.filename
            p.parent.mkdir(parents=True)
            p.write_text(ex.source, encoding="utf-8")
            _, changed, errors = fix_paths(run_paths([str(p)]), write=False)  # one example per run
            assert not errors
            out += [(f"{code}-{i}", p, c.fixed, c.applied) for c in changed]
    return out


def _run_child(work: Path, cases):
    spec = work / "cases.json"
    spec.write_text(json.dumps(cases))
    env = dict(os.environ, GLOG_v="3", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([PYTHON, str(CHILD), str(spec)], capture_output=True, text=True, cwd=work,
                          env=env, timeout=1200)
    reports = [json.loads(line[5:]) for line in proc.stdout.splitlines() if line.startswith("CASE ")]
    assert len(reports) == len(cases), proc.stdout[-2000:] + proc.stderr[-3000:]
    return reports


@pytest.mark.mindspore
@pytest.mark.slow
def test_every_safe_fix_keeps_behaviour_in_graph_mode_and_pynative(tmp_path):
    found = _safe_fix_cases(tmp_path)
    cases = []
    for cid, path, fixed, _ in found:
        d = tmp_path / "pairs" / cid
        d.mkdir(parents=True)
        (d / "before.py").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        (d / "after.py").write_text(fixed, encoding="utf-8")
        cases.append({"id": cid.replace("-", "_"), "before": str(d / "before.py"), "after": str(d / "after.py"),
                      "path_dir": str(path.parent)})
    reports = _run_child(tmp_path, cases)
    applied = sum(n for *_, n in found)
    compared = sum(r["compared"] for r in reports)
    changes = [(r["id"], c) for r in reports for c in r["changes"]]
    uncompared = [r["id"] for r in reports if r["compared"] == 0]
    print(f"\nfix semantics: {applied} fixes applied in {len(found)} files, {compared} runs compared, "
          f"{len(changes)} behaviour changes; files with nothing runnable: {uncompared}")
    for r in reports:
        for s in r["skipped"]:
            print(f"  skipped {r['id']}: {s}")
    assert changes == []
    assert len(found) >= 5 and compared >= 4 * (len(found) - len(uncompared))
    assert len(uncompared) <= 1, uncompared  # every safe fix but at most one is exercised


def _script_line(work: Path, text: str, prefixes) -> str:
    """Run a MindSpore script; its first stdout line starting with one of ``prefixes``."""
    p = work / "script.py"
    p.write_text(text)
    proc = subprocess.run([PYTHON, str(p)], capture_output=True, text=True, cwd=work, timeout=600)
    return next((line for line in proc.stdout.splitlines() if line.startswith(tuple(prefixes))),
                proc.stdout[-500:] + proc.stderr[-1500:])


# y's tensor is also held by a tuple: graph mode's in-place `+=` is seen through it
ALIASED_NET = textwrap.dedent("""\
    class Net(nn.Cell):
        def construct(self, x):
            y = x * 2
            t = (y,)
            {write}
            return t[0] * 4
    """)

ALIAS = ("import numpy as np\nimport mindspore as ms\nfrom mindspore import nn\n\n" + ALIASED_NET
         + "\nms.set_context(mode=ms.GRAPH_MODE)\n"
           'print("RESULT", Net()(ms.Tensor(np.ones((2, 2), np.float32))).asnumpy()[0, 0])\n')


@pytest.mark.mindspore
def test_aliased_augassign_rewrite_changes_the_graph_result(tmp_path):
    """Why MSG204's fix needs an alias proof: through a tuple the in-place write is seen."""
    got = {write: _script_line(tmp_path, ALIAS.format(write=write), ("RESULT",)).split()[1]
           for write in ("y += 1", "y = y + 1")}
    assert got == {"y += 1": "12.0", "y = y + 1": "8.0"}


SET_DEVICE = textwrap.dedent("""\
    import sys
    import numpy as np
    import mindspore as ms
    from mindspore import ops
    x = ms.Tensor(np.ones((2, 2), np.float32))
    ops.add(x, x).asnumpy()  # a kernel ran: the runtime is initialised
    try:
        {call}
        print("ACCEPTED")
    except RuntimeError as exc:
        print("RAISED", str(exc).splitlines()[0])
    """)


@pytest.mark.mindspore
def test_set_device_precondition_differs(tmp_path):
    """Why MSG620's set_device rewrite is unsafe."""
    got = {call: _script_line(tmp_path, SET_DEVICE.format(call=call), ("ACCEPTED", "RAISED"))
           for call in ('ms.set_context(device_target="CPU")', 'ms.set_device("CPU")')}
    assert got['ms.set_context(device_target="CPU")'] == "ACCEPTED"
    assert got['ms.set_device("CPU")'].startswith("RAISED The runtime has been initialized")


CONTROL = "import mindspore.nn as nn\n\n\n" + ALIASED_NET + textwrap.dedent("""\


    class Input(nn.Cell):
        def construct(self, x):
            {input_write}
            return x * 2
    """)


@pytest.mark.mindspore
def test_the_harness_is_not_a_rubber_stamp(tmp_path):
    """The harness's negative control: the unsafe rewrites it must catch (an aliased `+=`,
    which changes the graph result, and `+=` on an input, which graph mode writes into the
    caller's tensor) are reported as behaviour changes."""
    before = tmp_path / "before.py"
    after = tmp_path / "after.py"
    before.write_text(CONTROL.format(write="y += 1", input_write="x += 1"))
    after.write_text(CONTROL.format(write="y = y + 1", input_write="x = x + 1"))
    (report,) = _run_child(tmp_path, [{"id": "control", "before": str(before), "after": str(after),
                                       "path_dir": str(tmp_path)}])
    assert report["compared"] == 8
    changed = {c.split(" shape")[0] for c in report["changes"]}
    assert {"Net graph eval", "Net graph train", "Input graph eval", "Input graph train"} <= changed
    assert not any("pynative" in c for c in changed)  # PyNative rebinds: both forms agree there


TORCH_CONTROL = textwrap.dedent("""\
    import torch
    from mindspore import nn, ops


    class Flatten(nn.Cell):
        def construct(self, x):
            return {flatten}


    class Softmax(nn.Cell):
        def construct(self, x):
            return {softmax}


    class Full(nn.Cell):
        def construct(self, x):
            return x + {full}
    """)


@pytest.mark.mindspore
def test_the_torch_stand_in_tells_a_changed_default(tmp_path):
    """MSG502's fixes are compared with tests/data/torch_shim (PyTorch's documented meaning, in
    PyNative): the rewrites msgraphlint/fix/torchfixes.py refuses are reported as behaviour
    changes (ops.flatten's start_dim is 1, PyTorch's 0; ops.softmax's axis -1 where the call said 0;
    ops.full((2,), 1.5) is int64 [1, 1]), and the ones it makes are not."""
    before = tmp_path / "before.py"
    after = tmp_path / "after.py"
    before.write_text(TORCH_CONTROL.format(flatten="torch.flatten(x)", softmax="torch.softmax(x, 0)",
                                           full="torch.full((2,), 1.5)"))
    after.write_text(TORCH_CONTROL.format(flatten="ops.flatten(x)", softmax="ops.softmax(x)",
                                          full="ops.full((2,), 1.5)"))
    good = tmp_path / "good.py"
    good.write_text(TORCH_CONTROL.format(flatten="ops.flatten(x, start_dim=0)", softmax="ops.softmax(x, 0)",
                                         full="ops.full((2,), 1.5, dtype=ms.float32)").replace(
        "import torch\n", "import torch\nimport mindspore as ms\n"))
    bad, ok = _run_child(tmp_path, [{"id": "bad", "before": str(before), "after": str(after), "path_dir": str(tmp_path)},
                                    {"id": "ok", "before": str(before), "after": str(good), "path_dir": str(tmp_path)}])
    changed = {c.split(" shape")[0].split(" vs ")[0] for c in bad["changes"]}
    assert {"Flatten graph eval", "Flatten pynative eval", "Softmax graph eval", "Softmax pynative eval",
            "Full graph eval", "Full pynative eval"} <= changed, bad
    assert ok["changes"] == [] and ok["compared"] == 12, ok

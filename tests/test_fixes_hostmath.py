"""Fixes that keep values in the graph (msgraphlint/fix/hostfixes.py): MSG401 `.asnumpy()`
round trips and constant escapes, MSG402 NumPy/math on tensors, MSG403 host scalars, MSG420
interpreted builtins, MSG413 `set_data`, MSG503 devices, MSG505 keyword names, MSG508
PyTorch-only attributes. Which look-alikes get a safe fix, an unsafe one or none; the exact
rewritten text; every fix of these codes in the fixtures applies, compiles and leaves no
fix of its code behind.

The safe ones (MSG420's) are the semantic harness's to prove: tests/test_fix_semantics.py
runs tests/data/hostfixes/ before and after in graph mode and PyNative."""

from __future__ import annotations

import glob
import shutil
import textwrap
from pathlib import Path

import pytest

from msgraphlint.fix.files import fix_paths
from msgraphlint.run.runner import run_paths

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "hostfixes"
CODES = ("MSG302", "MSG401", "MSG402", "MSG403", "MSG406", "MSG413", "MSG420", "MSG503", "MSG505", "MSG506", "MSG508")


def _findings(path, select=None):
    return [f for fr in run_paths([str(path)], select=select).files for f in fr.findings]


def _verdicts(path):
    return {(f.line, f.code): (f.fix.safety.value if f.fix else None) for f in _findings(path)}


def _fixed_text(path, unsafe):
    _, changed, errors = fix_paths(run_paths([str(path)]), unsafe=unsafe, write=False)
    assert not errors
    return changed[0].fixed if changed else None


def test_builtins_that_are_the_same_program_get_safe_fixes():
    assert _verdicts(DATA / "builtins_pos.py") == {
        (8, "MSG420"): "safe", (15, "MSG420"): "safe", (22, "MSG420"): "safe", (30, "MSG420"): "safe"}
    fixed = _fixed_text(DATA / "builtins_pos.py", unsafe=False)
    assert "        if x is not None and mask is not None:\n" in fixed
    assert "        if bias is None or x is None:\n" in fixed
    assert '        d = {"a": x, "b": 2}\n' in fixed
    assert "        for f in feats[::-1]:\n" in fixed
    assert "all(" not in fixed and "any(" not in fixed and "dict(" not in fixed and "reversed(" not in fixed


def test_builtin_look_alikes_get_an_unsafe_fix_or_none():
    assert _verdicts(DATA / "builtins_neg.py") == {
        (8, "MSG420"): None,       # t.sum() > 0 is a tensor: an `and` chain would return a tensor
        (16, "MSG420"): None,      # not a display: nothing to unroll
        (30, "MSG420"): None,      # a CellList's slice renames its cells' parameters in PyNative
        (37, "MSG420"): "unsafe"}  # type(x) is Tensor -> isinstance also takes a Parameter
    by_line = {f.line: f.fix.description for f in _findings(DATA / "builtins_neg.py") if f.fix}
    assert "subclass" in by_line[37]
    fixed = _fixed_text(DATA / "builtins_neg.py", unsafe=True)
    assert "        for blk in reversed(self.blocks):" in fixed and "        if isinstance(x, Tensor):" in fixed


def test_host_math_is_never_safe_and_look_alikes_with_other_numpy_meanings_get_none():
    assert _verdicts(DATA / "hostmath_neg.py") == {
        (14, "MSG401"): "unsafe", (20, "MSG401"): "unsafe",
        (25, "MSG401"): None,      # np.round rounds half to even
        (30, "MSG402"): None,      # math.log(v, 2): a base
        (35, "MSG402"): "unsafe", (40, "MSG402"): "unsafe", (45, "MSG402"): "unsafe",
        (50, "MSG402"): None,      # np.linalg.norm(w, 2) of a matrix: the spectral norm
        (55, "MSG403"): "unsafe", (61, "MSG403"): "unsafe",
        # read where a tensor will not do (a size, a list repeat count, a NumPy method): no fix
        (66, "MSG403"): None, (67, "MSG403"): None, (68, "MSG303"): None, (73, "MSG403"): None, (79, "MSG402"): None}
    for f in _findings(DATA / "hostmath_neg.py"):
        if f.fix and f.code in ("MSG401", "MSG402"):
            assert "gradients now flow" in f.fix.description and "float64" in f.fix.description
        if f.fix and f.code == "MSG403":
            assert "0-d tensor" in f.fix.description


def test_host_math_fixed_text():
    fixed = _fixed_text(DATA / "hostmath_neg.py", unsafe=True)
    assert fixed.count("from mindspore import ops\n") == 1
    for line in ("        h = ops.tanh(x).astype(ms.float32)\n",
                 "        return ops.exp(x) * 2\n",
                 "        return Tensor(np.round(x.asnumpy()))  # np.round",
                 "        return x / ops.sqrt(x.abs().sum())\n",
                 "        return x * ops.exp(x.mean())\n",
                 "        return Tensor(ops.clamp(x, -1.0, 1.0))\n",
                 "        k = x.abs().sum().astype(ms.int64)\n",
                 "        return x * (x.sum() + 1)\n"):
        assert line in fixed, line
    compile(fixed, "hostmath_neg.py", "exec")


def _fixed_body(tmp_path, body, select):
    p = tmp_path / "m.py"
    p.write_text("import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore import mint, ops\n\n\n"
                 "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.dense = nn.Dense(4, 4)\n\n    def construct(self, x, y):\n"
                 + textwrap.indent(textwrap.dedent(body), "        "))
    _, changed, errors = fix_paths(run_paths([str(p)], select=select), unsafe=True, write=False)
    assert not errors
    return changed[0].fixed.split("construct(self, x, y):\n", 1)[1] if changed else None


def test_parameter_write_device_keyword_and_tuple_fields(tmp_path):
    assert _fixed_body(tmp_path, "self.dense.weight.set_data(self.dense.weight * 0.5)\nreturn x\n", ["MSG413"]) == \
        "        ops.assign(self.dense.weight, self.dense.weight * 0.5)\n        return x\n"
    # the receiver's parentheses are outside its ast span: the edit starts at the dot
    assert _fixed_body(tmp_path, "m = (x != 0).to(y.device, ms.int32)\nreturn m\n", ["MSG503"]) == \
        "        m = (x != 0).astype(ms.int32)\n        return m\n"
    assert _fixed_body(tmp_path, 'return (x * 2).to("cuda")\n', ["MSG503"]) == "        return (x * 2)\n"
    assert _fixed_body(tmp_path, "return ops.softmax(x, dim=-1)\n", ["MSG505"]) == \
        "        return ops.softmax(x, axis=-1)\n"
    assert _fixed_body(tmp_path, "return (mint.max(x, dim=-1)).values\n", ["MSG508"]) == \
        "        return (mint.max(x, dim=-1))[0]\n"
    assert _fixed_body(tmp_path, "m = mint.ones((4, 4))\nm.triu_(1)\nreturn m\n", ["MSG508"]) == \
        "        m = mint.ones((4, 4))\n        m = m.triu(1)\n        return m\n"


def test_forbidden_calls_without_a_graph_form_get_no_fix(tmp_path):
    assert _fixed_body(tmp_path, "n = len(self.trainable_params())\nreturn x * n\n", ["MSG413"]) is None
    assert _fixed_body(tmp_path, "self.dense.weight.set_data(x, True)\nreturn x\n", ["MSG413"]) is None


def test_every_fix_of_these_codes_in_the_fixtures_applies_compiles_and_leaves_none(tmp_path):
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    paths = sorted(glob.glob(str(tmp_path / "fixtures" / "**" / "*.py"), recursive=True))
    before = [f for fr in run_paths(paths, select=list(CODES)).files for f in fr.findings if f.fix]
    assert len(before) >= 40  # 42 when this test was written
    _, changed, errors = fix_paths(run_paths(paths, select=list(CODES)), unsafe=True, write=True)
    assert not errors and changed
    for c in changed:
        compile(Path(c.path).read_text(encoding="utf-8"), c.path, "exec")
    left = [(f.code, f.path, f.line) for fr in run_paths(paths, select=list(CODES)).files for f in fr.findings
            if f.fix]
    assert left == []


CLI_PROBE = """
import sys
from msgraphlint.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print("LIBCST", "libcst" in sys.modules, file=sys.stderr)
"""


def _cli(args, cwd):
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", CLI_PROBE] + args, capture_output=True, text=True, cwd=cwd, timeout=300)
    return proc.stdout, proc.stderr.strip().splitlines()[-1]


def test_json_shows_a_structural_fixs_edits_and_text_output_never_imports_libcst(tmp_path):
    import json
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\nfrom mindspore import ops\n\n\nclass Net(nn.Cell):\n"
                 "    def construct(self, x):\n        if x.sum() > 0:  # keep\n            x = x * 2\n"
                 "        return x\n")
    out, probe = _cli(["check", "--no-cache", "--output-format", "json", str(p)], tmp_path)
    assert probe == "LIBCST True"
    (f,) = [f for f in json.loads(out)["findings"] if f["code"] == "MSG101"]
    assert f["fix"]["safety"] == "safe"
    assert f["fix"]["edits"] == [{"line": 7, "column": 1, "end_line": 8, "end_column": 22,
                                  "text": "        x = ops.where(x.sum() > 0, x * 2, x)  # keep"}]
    out, probe = _cli(["check", "--no-cache", str(p)], tmp_path)
    assert "MSG101" in out and probe == "LIBCST False"


def test_signature_fixes_bool_and_keyword_only(tmp_path):
    assert _fixed_body(tmp_path, "z = x * x\nreturn z.max(0, 1)\n", ["MSG506"]) == \
        "        z = x * x\n        return z.max(0, True)\n"
    assert _fixed_body(tmp_path, "z = x + 1\nreturn z.add(x, 2)\n", ["MSG506"]) == \
        "        z = x + 1\n        return z.add(x, alpha=2)\n"
    assert _fixed_body(tmp_path, "z = x * x\nreturn z.max(0, 2)\n", ["MSG506"]) is None  # 2 is no bool: no reading


def test_masked_select_reductions_get_a_static_shape_form(tmp_path):
    assert _fixed_body(tmp_path, "return ops.masked_select(x, x > 0.5).sum()\n", ["MSG302"]) == \
        "        return ops.where(x > 0.5, x, 0).sum()\n"
    assert _fixed_body(tmp_path, "return ops.masked_select(x, y).mean()\n", ["MSG302"]) == \
        "        return (ops.where(y, x, 0).sum() / y.astype(x.dtype).sum())\n"
    # the mask is computed by a call (evaluated twice by the rewrite), or the selection itself is kept
    assert _fixed_body(tmp_path, "return ops.masked_select(x, ops.rand_like(x) > 0.5).mean()\n", ["MSG302"]) is None
    assert _fixed_body(tmp_path, "z = ops.masked_select(x, x > 0)\nreturn z\n", ["MSG302"]) is None
    (f,) = [f for f in _findings(ROOT / "fixtures" / "labeled" / "dynamic_shape_pos_jit_masked_select.py")
            if f.code == "MSG302"]
    assert f.fix.safety.value == "unsafe" and "broadcasts" in f.fix.description


def test_list_methods_get_their_native_spelling_safe_only_without_an_alias():
    assert _verdicts(DATA / "lists_pos.py") == {(9, "MSG406"): "safe", (17, "MSG406"): "safe", (24, "MSG406"): "safe"}
    fixed = _fixed_text(DATA / "lists_pos.py", unsafe=False)
    for line in ("        parts += [x * 2, x * 3]\n", "        parts = [x - n] + parts\n", "        parts = parts[::-1]\n"):
        assert line in fixed, line
    assert _verdicts(DATA / "lists_neg.py") == {
        (11, "MSG406"): "unsafe",  # `kept` holds the list
        (18, "MSG406"): None,      # insert(1, v)
        (25, "MSG406"): None,      # pop
        (34, "MSG406"): "unsafe",  # read later in the loop body, before the next insert
        (43, "MSG406"): "unsafe"}  # bound from `pairs[0]`: the tuple holds the list too
    fixes = [f for f in _findings(DATA / "lists_neg.py") if f.fix]
    assert len(fixes) == 3 and all("nothing else holds the old one" in f.fix.description for f in fixes)


CELLLIST_SLICE = """
from mindspore import nn
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flows = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 3)])
net = Net()
before = [p.name for p in net.get_parameters()]
for blk in net.flows[::-1]:
    pass
print("NAMES", before[0], [p.name for p in net.get_parameters()][0])
"""


@pytest.mark.mindspore
def test_a_celllist_slice_renames_its_cells_parameters(tmp_path):
    """Why `reversed(self.blocks)` gets no `self.blocks[::-1]` fix (found in mindone's vits)."""
    import os
    import subprocess
    import sys
    p = tmp_path / "s.py"
    p.write_text(CELLLIST_SLICE)
    python = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable
    proc = subprocess.run([python, str(p)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ, GLOG_v="3"))
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("NAMES"))
    assert line == "NAMES flows.0.weight 1.weight"


def test_a_host_copy_read_only_as_a_tensor_would_be_is_dropped(tmp_path):
    assert _fixed_body(tmp_path, "vals = x[0].tolist()\nreturn x * vals[0]\n", ["MSG401"]) == \
        "        vals = x[0]\n        return x * vals[0]\n"
    assert _fixed_body(tmp_path, "a = x.asnumpy()\nreturn ms.Tensor(a * 2, ms.float32) + x\n", ["MSG401"]) == \
        "        a = x\n        return ms.Tensor(a * 2, ms.float32) + x\n"
    # read as a list (len) or sorted: it must stay a Python list
    assert _fixed_body(tmp_path, "vals = x[0].tolist()\nreturn x * len(vals)\n", ["MSG401"]) is None
    assert _fixed_body(tmp_path, "vals = sorted(x[0].tolist())\nreturn x * vals[-1]\n", ["MSG401"]) is None

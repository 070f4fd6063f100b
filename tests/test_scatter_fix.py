"""MSG203's fix (msgraphlint/fix/codemods.py `scatter_write_fix`): a subscript write on a local
tensor → `y = ops.select_scatter(y, ops.full_like(y[...], c), axis, k)`. Which writes get a
safe fix, an unsafe one or none, and the exact text. The safe ones are the semantic harness's
to prove (tests/test_fix_semantics.py runs tests/data/codemods/scatter_pos.py in graph mode and
PyNative); tests/data/codemods/scatter_neg.py's unsafe ones include the aliased writes the
harness reports as PyNative behaviour changes (TupleAlias, ListAlias, ViewBefore)."""

from __future__ import annotations

from pathlib import Path

from msgraphlint.fix.files import fix_paths
from msgraphlint.run.runner import run_paths

DATA = Path(__file__).resolve().parent / "data" / "codemods"


def _findings(path):
    return [f for fr in run_paths([str(path)], select=["MSG203"]).files for f in fr.findings if f.code == "MSG203"]


def _verdicts(path):
    return {f.line: (f.fix.safety.value if f.fix else None) for f in _findings(path)}


def test_number_writes_on_an_unaliased_local_get_a_safe_fix():
    assert _verdicts(DATA / "scatter_pos.py") == {11: "safe", 18: "safe", 25: "safe", 32: "safe", 39: "safe",
                                                 48: "safe", 55: "safe", 56: "safe"}


def test_the_safe_fix_text(tmp_path):
    _, changed, errors = fix_paths(run_paths([str(DATA / "scatter_pos.py")], select=["MSG203"]), write=False)
    assert not errors and changed[0].applied == 8
    fixed = changed[0].fixed.splitlines()
    for line in ("        y = ops.select_scatter(y, ops.full_like(y[:, 1], 0), 1, 1)",
                 "        y = ops.select_scatter(y, ops.full_like(y[-1], -1.5), 0, -1)  # the last row",
                 "        y = ops.select_scatter(y, ops.full_like(y[..., 0], 0.5), -1, 0)",
                 "        y = ops.select_scatter(y, ops.full_like(y[1, :], 7), 0, 1)",
                 "        y = ops.select_scatter(y, ops.full_like(y[:, 0], True), 1, 0)",
                 "            y = ops.select_scatter(y, ops.full_like(y[0], 0), 0, 0)"):
        assert line in fixed, line
    assert not _findings_of_text(tmp_path, changed[0].fixed)  # re-lints clean


def _findings_of_text(tmp_path, text):
    p = tmp_path / "fixed.py"
    p.write_text(text)
    return _findings(p)


def test_look_alikes_get_an_unsafe_fix_or_none():
    assert _verdicts(DATA / "scatter_neg.py") == {
        12: "unsafe", 20: "unsafe", 28: "unsafe", 36: "unsafe",   # tuple, list, view, closure
        48: "unsafe",                                             # bound to a view (`y.view(...)`)
        55: "unsafe", 62: "unsafe",                               # a tensor value, `y[0] += 1`
        70: None, 77: None, 78: None,                             # index a name, a slice, two indices
    }


def test_unsafe_fixes_name_their_condition():
    by_line = {f.line: f.fix.description for f in _findings(DATA / "scatter_neg.py") if f.fix}
    assert "nothing else holds `y`'s tensor" in by_line[12]
    assert "has exactly the shape and dtype of `y[:, 1]`" in by_line[55]
    assert "`y[0] + 1` keeps `y`'s dtype" in by_line[62]


def test_a_module_without_ops_gets_the_import(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\n\n\nclass N(nn.Cell):\n    def construct(self, x):\n"
                 "        y = x * 2\n        y[0] = 0\n        return y\n")
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG203"]), write=False)
    assert not errors
    assert changed[0].fixed.splitlines()[:2] == ["import mindspore.nn as nn", "from mindspore import ops"]
    assert "        y = ops.select_scatter(y, ops.full_like(y[0], 0), 0, 0)" in changed[0].fixed.splitlines()


NUMBER_NAME = '''import numpy as np
import mindspore.nn as nn
from mindspore import ops


class Spline(nn.Cell):
    def construct(self, x, min_derivative=1e-3):
        constant = np.log(np.exp(1 - min_derivative) - 1)
        y = x * 2
        y[..., -1] = constant
        return y
'''


def test_a_number_held_by_a_name_is_written_through_full_like(tmp_path):
    """mindone's vits spline: `u[..., -1] = constant`, `constant` a numpy float. Passing the
    number itself as `select_scatter`'s src raises TypeError ("src must be a Tensor") in graph
    mode and PyNative; `full_like` of it gives the written values and dtype in both (measured on
    2.10 CPU, float32/float16/int32). Unsafe: a name could hold a sequence, which the write
    broadcasts and `full_like` refuses."""
    p = tmp_path / "spline.py"
    p.write_text(NUMBER_NAME)
    (f,) = _findings(p)
    assert f.fix is not None and f.fix.safety.value == "unsafe"
    assert "`constant` is a number" in f.fix.description
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG203"]), write=False, unsafe=True)
    assert not errors
    assert "        y = ops.select_scatter(y, ops.full_like(y[..., -1], constant), -1, -1)" in changed[0].fixed.splitlines()


def test_a_helpers_number_parameter_is_written_through_full_like(tmp_path):
    """The same spline as a helper (its `tail_bound=5.0` and `constant` only maybe tensors
    there): `full_like`, not the number as `select_scatter`'s src."""
    p = tmp_path / "helper.py"
    p.write_text("import numpy as np\nimport mindspore.nn as nn\nfrom mindspore import ops\n\n\n"
                 "def spline(x, tail_bound=5.0, min_derivative=1e-3):\n"
                 "    constant = np.log(np.exp(1 - min_derivative) - 1)\n"
                 "    y = ops.zeros_like(x)\n    y[..., -1] = constant\n    y[..., 0] = tail_bound\n    return y\n\n\n"
                 "class Spline(nn.Cell):\n    def construct(self, x):\n        return spline(x)\n")
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG203"]), write=False, unsafe=True)
    fixed = changed[0].fixed.splitlines()
    assert not errors
    assert "    y = ops.select_scatter(y, ops.full_like(y[..., -1], constant), -1, -1)" in fixed
    assert "    y = ops.select_scatter(y, ops.full_like(y[..., 0], tail_bound), -1, 0)" in fixed

"""Structural fixes (msgraphlint/fix/codemods.py, libcst) and the PyTorch-spelling text fixes:
which look-alikes get a safe fix, an unsafe one or none; the exact rewritten text; comments,
encoding and line endings kept; libcst imported only when a structural fix is applied; and
every such fix in the fixtures and rule examples kept to the fix contract.

Whether each safe fix keeps behaviour is the semantic harness's to prove
(tests/test_fix_semantics.py compiles tests/data/codemods/ before and after)."""

from __future__ import annotations

import glob
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from msgraphlint import context
from msgraphlint.findings import FixSafety
from msgraphlint.fix.files import fix_paths
from msgraphlint.fix.contract import resolve
from msgraphlint.engine.registry import load_rules
from msgraphlint.run.runner import run_paths

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "codemods"


def _findings(path, select=None):
    return [f for fr in run_paths([str(path)], select=select).files for f in fr.findings]


def _verdicts(path):
    return {(f.line, f.code): (f.fix.safety.value if f.fix else None) for f in _findings(path)}


def test_positives_get_safe_fixes():
    assert _verdicts(DATA / "where_if_pos.py") == {
        (9, "MSG101"): "safe", (16, "MSG101"): "safe", (26, "MSG101"): "safe", (33, "MSG103"): "safe",
        (40, "MSG205"): "safe"}


def test_look_alikes_get_an_unsafe_fix_or_none():
    assert _verdicts(DATA / "where_if_neg.py") == {
        (9, "MSG101"): "unsafe",    # x[0, 0] > 0: maybe an elementwise mask
        (16, "MSG101"): "unsafe",   # x or z: shapes may differ
        (26, "MSG101"): "unsafe",   # y / 2 or y: an integer y would become float
        (37, "MSG101"): "unsafe",   # a Dropout call: both branches would run
        (45, "MSG101"): None,       # a tuple or a tensor
        (53, "MSG101"): None,       # two statements in the branch
        (61, "MSG101"): None,       # y unbound without the branch
        (68, "MSG101"): None,       # an elif chain's first link
        (70, "MSG101"): "safe",     # its last elif + else: `else: y = ops.where(...)` (where-elif)
        (81, "MSG205"): "unsafe"}   # y is also held by a tuple


def test_unsafe_fixes_name_their_condition():
    by_line = {f.line: f.fix.description for f in _findings(DATA / "where_if_neg.py") if f.fix}
    assert "the condition is one element" in by_line[9]
    assert "one shape" in by_line[16]
    assert "side effect" in by_line[37]
    assert "nothing else holds the tensor" in by_line[81]


POS_FIXED = '''\
"""Safe select fixes (MSG101, MSG103): one-element conditions, elementwise values over the same names."""
import mindspore.nn as nn
from mindspore import ops


class OneArmed(nn.Cell):
    def construct(self, x):
        y = x * 2
        y = ops.where(y.sum() > 0, y - 1, y)  # defect
        return ops.relu(y)


class WithElse(nn.Cell):
    def construct(self, x):
        # scale up
        # flip
        y = ops.where(x.mean() < 0.5, x * 3 + 1, -x + 1)  # defect
        return y


class EarlyReturn(nn.Cell):
    def construct(self, x):
        return ops.where(x.max() > 1.0, x / 2, x * 0.5 + x / 4)  # defect


class Ternary(nn.Cell):
    def construct(self, x):
        y = ops.where(x.sum() > 0, x * 3, x - 3)  # defect
        return y + 1


class Inplace(nn.Cell):
    def construct(self, x):
        y = ops.relu(x)
        return y.mul(2.0) + 1  # defect
'''


def test_safe_fixes_rewrite_to_the_select_keeping_comments(tmp_path):
    p = tmp_path / "m.py"
    p.write_bytes((DATA / "where_if_pos.py").read_bytes())
    _, changed, errors = fix_paths(run_paths([str(p)]))
    assert not errors and len(changed) == 1
    assert p.read_text(encoding="utf-8") == POS_FIXED
    # a second --fix changes nothing
    _, changed, _ = fix_paths(run_paths([str(p)]))
    assert changed == []


def test_the_import_is_added_and_line_endings_and_encoding_are_kept(tmp_path):
    src = ("# -*- coding: latin-1 -*-\r\nimport mindspore.nn as nn\r\n\r\n\r\nclass Net(nn.Cell):\r\n"
           "    def construct(self, x):\r\n        y = x * 2\r\n        if y.sum() > 0:  # caf\xe9\r\n"
           "            y = y - 1\r\n        return y\r\n")
    p = tmp_path / "m.py"
    p.write_bytes(src.encode("latin-1"))
    _, changed, errors = fix_paths(run_paths([str(p)]))
    assert not errors and len(changed) == 1
    assert p.read_bytes() == ("# -*- coding: latin-1 -*-\r\nimport mindspore.nn as nn\r\nfrom mindspore import ops\r\n"
                              "\r\n\r\nclass Net(nn.Cell):\r\n    def construct(self, x):\r\n        y = x * 2\r\n"
                              "        y = ops.where(y.sum() > 0, y - 1, y)  # caf\xe9\r\n        return y\r\n"
                              ).encode("latin-1")


def test_a_name_ops_that_is_not_mindspore_ops_gets_no_fix(tmp_path):
    p = tmp_path / "m.py"
    p.write_text(textwrap.dedent("""\
        import mindspore.nn as nn
        import operator as ops


        class Net(nn.Cell):
            def construct(self, x):
                y = x * 2
                if y.sum() > 0:
                    y = y - 1
                return y
        """), encoding="utf-8")
    assert [(f.code, f.fix) for f in _findings(p)] == [("MSG101", None)]


def test_check_never_imports_libcst_and_fix_does_only_for_a_structural_fix(tmp_path):
    script = textwrap.dedent(f"""\
        import sys
        from msgraphlint.run.runner import run_paths
        from msgraphlint.fix.files import fix_paths
        r = run_paths([{str(DATA / 'where_if_pos.py')!r}])
        print("check", "libcst" in sys.modules)
        fix_paths(run_paths([{str(ROOT / 'fixtures' / 'labeled' / 'side_effect_pos_print.py')!r}]), write=False)
        print("text fix", "libcst" in sys.modules)
        fix_paths(r, write=False)
        print("structural fix", "libcst" in sys.modules)
        """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path,
                         env={"MSGRAPHLINT_NO_CACHE": "1", "PATH": ""}).stdout.split("\n")
    assert out[:3] == ["check False", "text fix False", "structural fix True"]


def _all_fix_sources(tmp_path):
    paths = sorted(glob.glob(str(ROOT / "fixtures" / "**" / "*.py"), recursive=True)) + \
        sorted(glob.glob(str(DATA / "*.py")))
    for code, rule in load_rules().items():
        for i, ex in enumerate(rule.INVALID):
            p = tmp_path / f"{code}_{i}" / ex.filename
            p.parent.mkdir(parents=True)
            p.write_text(ex.source, encoding="utf-8")
            paths.append(str(p))
    return paths


def test_every_structural_fix_resolves_within_the_contract_and_compiles(tmp_path):
    context.CONTRACT_LOG.clear()
    resolved = 0
    for path in _all_fix_sources(tmp_path):
        text = Path(path).read_text(encoding="utf-8")
        for f in _findings(path):
            if f.fix is None or f.fix.codemod is None:
                continue
            fix = resolve(f.fix, text, path)
            assert fix is not None, (path, f.line, f.code)
            from msgraphlint.fix.contract import apply_edits
            fixed, n = apply_edits(text, [fix.edits])
            assert n == 1
            compile(fixed, path, "exec")
            resolved += 1
    assert context.CONTRACT_LOG == []
    assert resolved >= 20


# the PyTorch spellings (text fixes) ----------------------------------------------------

def _fixed(tmp_path, body, unsafe=True, select=None):
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
                 + textwrap.indent(textwrap.dedent(body), " " * 8), encoding="utf-8")
    result, changed, errors = fix_paths(run_paths([str(p)], select=select), unsafe=unsafe, write=False)
    assert not errors
    return changed[0].fixed.split("construct(self, x):\n", 1)[1] if changed else None


def test_size_call_becomes_shape(tmp_path):
    assert _fixed(tmp_path, """\
        x = x * 2
        b = x.size(0)
        n = x.size()
        return x.reshape(b, -1), n, x.dtype()
        """, select=["MSG505"]) == textwrap.indent(textwrap.dedent("""\
        x = x * 2
        b = x.shape[0]
        n = x.shape
        return x.reshape(b, -1), n, x.dtype
        """), " " * 8)


def test_size_fix_is_unsafe_and_swapaxes_is_safe(tmp_path):
    assert _fixed(tmp_path, "x = x * 2\nreturn x.size(0)\n", unsafe=False, select=["MSG505"]) is None
    assert _fixed(tmp_path, "x = x * 2\nreturn x.transpose(1, 2)\n", unsafe=False, select=["MSG505"]) == \
        "        x = x * 2\n        return x.swapaxes(1, 2)\n"


def test_keyword_renames_to_the_overload_that_takes_them(tmp_path):
    # two single renames reach an overload: PyTorch's `dim` is the one renamed
    assert _fixed(tmp_path, "x = x * 2\nreturn x.sum(dim=-1, keepdims=True)\n", select=["MSG506"]) == \
        "        x = x * 2\n        return x.sum(axis=-1, keepdims=True)\n"
    assert _fixed(tmp_path, "x = x * 2\nreturn x.clamp(min=0.0, max_value=6.0)\n", select=["MSG506"]) == \
        "        x = x * 2\n        return x.clamp(min=0.0, max=6.0)\n"


def test_a_call_no_rename_can_save_gets_no_fix(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
                 "        x = x * 2\n        return x.add(x, 2, 3)\n", encoding="utf-8")
    # (`x.add(x, 2)` has a fix since: `alpha=2`, tests/test_fixes_hostmath.py; two extra arguments, none)
    assert [(f.code, f.fix) for f in _findings(p, ["MSG506"])] == [("MSG506", None)]


def test_inplace_method_on_an_input_rebinds_unsafely(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
                 "        x.add_(1.0)\n        return x * 2\n", encoding="utf-8")
    (f,) = [f for f in _findings(p, ["MSG202"])]
    assert f.fix.safety is FixSafety.UNSAFE and "caller does not rely" in f.fix.description
    assert _fixed(tmp_path, "x.add_(1.0)\nreturn x * 2\n", select=["MSG202"]) == \
        "        x = x.add(1.0)\n        return x * 2\n"


@pytest.mark.parametrize("body", ["x = x * 2\nreturn x.transpose(1, 0)\n",   # a whole 2-D permutation
                                  "x = x * 2\nreturn x.shape[0]\n"])
def test_correct_spellings_get_nothing(tmp_path, body):
    assert _fixed(tmp_path, body, select=["MSG505"]) is None


def test_a_pair_graph_mode_compiles_as_the_identity_gets_an_unsafe_swapaxes(tmp_path):
    """`x.transpose(0, 1)` of a 2-D tensor compiles in graph mode as the identity (MSG505's
    rationale, api_neg_transpose_negative_pair_rank2): swapaxes changes graph mode's result."""
    assert _fixed(tmp_path, "x = x * 2\nreturn x.transpose(0, 1)\n", unsafe=False, select=["MSG505"]) is None
    assert _fixed(tmp_path, "x = x * 2\nreturn x.transpose(0, 1)\n", select=["MSG505"]) == \
        "        x = x * 2\n        return x.swapaxes(0, 1)\n"


@pytest.mark.parametrize("test", ["mask is not None and not mint.all(mask == 1)", "x.sum() > 0 or flag"])
def test_a_condition_that_guards_the_values_gets_no_select(tmp_path, test):
    """ops.where evaluates both values: `mask.unsqueeze(1)` would run on None (mindone's zamba)."""
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\nfrom mindspore import mint\n\n\nclass Net(nn.Cell):\n"
                 "    def construct(self, x, mask=None, flag=False):\n        h = x * 2\n"
                 f"        if {test}:\n            h = h * mask.unsqueeze(1)\n        return h\n", encoding="utf-8")
    assert [(f.code, f.fix) for f in _findings(p, ["MSG101"])] == [("MSG101", None)]

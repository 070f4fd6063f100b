"""Fixes for syntax graph mode rejects (MSG410) and for Python objects a graph returns
(MSG414): which look-alikes get a safe fix, an unsafe one or none, and the exact rewritten
text. The semantic harness (tests/test_fix_semantics.py) compiles tests/data/codemods/
before and after in graph mode and PyNative; the safe fixes here are proved there."""

from __future__ import annotations

import textwrap
from pathlib import Path

from msgraphlint.fix.files import fix_paths
from msgraphlint.run.runner import run_paths

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "codemods"


def _verdicts(path, select):
    return {(f.line, f.code): (f.fix.safety.value if f.fix else None)
            for fr in run_paths([str(path)], select=select).files for f in fr.findings}


def test_syntax_positives_get_safe_fixes():
    assert _verdicts(DATA / "syntax_pos.py", ["MSG410"]) == {
        (9, "MSG410"): "safe",    # for-else without break
        (19, "MSG410"): "safe",   # while-else without break
        (29, "MSG410"): "safe",   # walrus first in an if test
        (38, "MSG410"): "safe",   # del of a local not read again
        (45, "MSG410"): "safe",   # try/finally binding locals
        (54, "MSG410"): "safe",   # with contextlib.nullcontext()
        (61, "MSG410"): "safe",   # import math inside construct
        (67, "MSG410"): "safe",   # a list comprehension with two for clauses (and an if)
        (73, "MSG410"): "safe"}   # a dict comprehension with two for clauses


def test_syntax_look_alikes_get_an_unsafe_fix_or_none():
    assert _verdicts(DATA / "syntax_neg.py", ["MSG410"]) == {
        (9, "MSG410"): None,       # the loop breaks: its else does not always run
        (21, "MSG410"): None,      # the name is bound and read again after the del
        (28, "MSG410"): None,      # the walrus runs only when `flag` is true
        (36, "MSG410"): None,      # the try body returns: the finally block runs after it
        (48, "MSG410"): "unsafe",  # the finally block calls something
        (57, "MSG410"): None,      # nullcontext(x) as v binds a value
        (66, "MSG410"): "unsafe",  # another name holds the list
        (72, "MSG410"): "unsafe",  # a set becomes a tuple
        (80, "MSG410"): None}      # the loop variable `i` is a name of the function: the loops would rebind it


SYNTAX_FIXED = '''\
"""Safe rewrites of syntax graph mode rejects (MSG410): each Cell runs in PyNative as written."""
import contextlib

import mindspore.nn as nn
import math


class ForElse(nn.Cell):
    def construct(self, x):
        for i in range(3):
            x = x + i
        # always runs: no break
        x = x * 2
        return x


class WhileElse(nn.Cell):
    def construct(self, x):
        i = 0
        while i < 2:
            x = x + 1
            i += 1
        x = x - 3
        return x


class Walrus(nn.Cell):
    def construct(self, x):
        n = x.shape[0]
        if n > 1:
            x = x * n
        return x


class DelLocal(nn.Cell):
    def construct(self, x):
        tmp = x * 2
        y = tmp + 1
        return y


class TryFinally(nn.Cell):
    def construct(self, x):
        y = x
        y = x * 2
        y = y + 1
        return y


class WithNull(nn.Cell):
    def construct(self, x):
        y = x * 2
        return y + 1


class ImportInside(nn.Cell):
    def construct(self, x):
        return x * math.e


class TwoForList(nn.Cell):
    def construct(self, x):
        parts = []
        for i in range(3):
            for j in range(2):
                if i != j:
                    parts.append(x * i + j)
        return parts[0] + parts[3] * 2


class TwoForDict(nn.Cell):
    def construct(self, x):
        parts = {}
        for i in range(2):
            for j in range(2):
                parts[i * 2 + j] = x * j
        return parts[1] + parts[3]
'''


def test_syntax_fixes_rewrite_to_what_graph_mode_compiles(tmp_path):
    p = tmp_path / "m.py"
    p.write_bytes((DATA / "syntax_pos.py").read_bytes())
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG410"]))
    assert not errors and len(changed) == 1
    assert p.read_text(encoding="utf-8") == SYNTAX_FIXED
    assert _verdicts(p, ["MSG410"]) == {}


def _fixed(tmp_path, body, select, unsafe=True):
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
                 + textwrap.indent(textwrap.dedent(body), " " * 8), encoding="utf-8")
    _, changed, errors = fix_paths(run_paths([str(p)], select=select), unsafe=unsafe, write=False)
    assert not errors
    return changed[0].fixed.split("construct(self, x):\n", 1)[1] if changed else None


def test_unsafe_syntax_rewrites_and_their_conditions(tmp_path):
    assert _fixed(tmp_path, "parts = [x, x * 2]\ndel parts[0]  # drop\nreturn parts[0]\n", ["MSG410"]) == \
        "        parts = [x, x * 2]\n        parts = parts[1:]  # drop\n        return parts[0]\n"
    assert _fixed(tmp_path, "parts = [x, x * 2]\ndel parts[-1]\nreturn parts[0]\n", ["MSG410"]) == \
        "        parts = [x, x * 2]\n        parts = parts[:-1]\n        return parts[0]\n"
    assert _fixed(tmp_path, "dims = {d * 2 for d in x.shape}\nreturn x * len(dims)\n", ["MSG410"]) == \
        "        dims = [d * 2 for d in x.shape]\n        return x * len(dims)\n"
    assert _fixed(tmp_path, "axes = {1}\nreturn x * len(axes)\n", ["MSG410"]) == \
        "        axes = (1,)\n        return x * len(axes)\n"
    assert _fixed(tmp_path, "axes = {1}\nreturn x * len(axes)\n", ["MSG410"], unsafe=False) is None
    (f,) = [f for fr in run_paths([str(tmp_path / "m.py")], select=["MSG410"]).files for f in fr.findings]
    assert "relies neither on the elements being distinct" in f.fix.description


def test_a_del_whose_name_is_read_in_a_loop_or_an_import_of_a_bound_name_gets_nothing(tmp_path):
    assert _fixed(tmp_path, "for i in range(2):\n    t = x * i\n    del t\nreturn x\n", ["MSG410"]) is None
    assert _fixed(tmp_path, "import math as x2\nx2 = 1\nreturn x * x2\n", ["MSG410"]) is None


# MSG414: a list a graph entry returns becomes a tuple (compiled on 2.10 CPU with
# scripts/label_fixtures.py over the fixed fallback_pos_output_* snippets: the 10 list outputs
# have 0 PyExecute nodes after the fix and equal PyNative; the dict/None/object ones keep theirs)

def _jit_fixed(tmp_path, body, unsafe=True):
    p = tmp_path / "m.py"
    p.write_text("import mindspore as ms\n\n\n@ms.jit\ndef step(x, labels):\n"
                 + textwrap.indent(textwrap.dedent(body), " " * 4)
                 + "\n\ndef main():\n    step(ms.Tensor([1.0]), ['cat', 'dog'])\n", encoding="utf-8")
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG414"]), unsafe=unsafe, write=False)
    assert not errors
    return changed[0].fixed.split("def step(x, labels):\n", 1)[1].split("\n\n", 1)[0] if changed else None


def test_a_returned_list_becomes_a_tuple_unsafely(tmp_path):
    assert _jit_fixed(tmp_path, 'return ["a", "b"]') == '    return ("a", "b")'
    assert _jit_fixed(tmp_path, 'return ["a"]') == '    return ("a",)'
    assert _jit_fixed(tmp_path, "return labels") == "    return tuple(labels)"
    assert _jit_fixed(tmp_path, "return labels", unsafe=False) is None
    (f,) = [f for fr in run_paths([str(tmp_path / "m.py")], select=["MSG414"]).files for f in fr.findings]
    assert f.fix.safety.value == "unsafe" and "uses the result as a sequence" in f.fix.description


def test_outputs_that_are_not_lists_get_no_tuple_fix(tmp_path):
    assert _jit_fixed(tmp_path, 'return {"y": x}') is None       # a dict: the caller reads keys
    assert _jit_fixed(tmp_path, 'return {"y": x}, None') is None  # a dict in the tuple


def test_fixed_list_outputs_are_not_reported_again(tmp_path):
    import shutil
    for name in ("fallback_pos_output_const_list.py", "fallback_pos_output_self_list.py",
                 "fallback_pos_output_list_argument.py", "fallback_pos_output_sorted_constants.py"):
        shutil.copy(ROOT / "fixtures" / "labeled" / name, tmp_path / name)
    _, changed, errors = fix_paths(run_paths([str(tmp_path)], select=["MSG414"]), unsafe=True)
    assert not errors and len(changed) == 4
    assert [f for fr in run_paths([str(tmp_path)], select=["MSG414"]).files for f in fr.findings] == []


# MSG304: the host calls' Python floats wrapped in ms.mutable (2.10 CPU, graph mode: the fixed
# dynamic_shape_pos_*float_from_callers snippets' train() give the same values; the rule's
# rationale measured one graph for ms.mutable(0.5), ms.mutable(0.75), ms.mutable(1.5))

_NET = """\
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def construct(self, x, scale):
        return x * scale


def train(x):
    net = Net()
{calls}
"""


def _mutable_fixed(tmp_path, calls, header=None):
    p = tmp_path / "m.py"
    text = _NET.format(calls=textwrap.indent(textwrap.dedent(calls), "    "))
    if header is not None:
        text = text.replace("import mindspore as ms\n", header)
    p.write_text(text, encoding="utf-8")
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG304"]), unsafe=True, write=False)
    assert not errors
    return changed[0].fixed.split("net = Net()\n", 1)[1].rstrip("\n") + "\n" if changed else None


def test_float_call_arguments_are_wrapped_in_mutable_unsafely(tmp_path):
    assert _mutable_fixed(tmp_path, "net(x, 0.5)\nnet(x, scale=0.75)\n") == \
        "    net(x, ms.mutable(0.5))\n    net(x, scale=ms.mutable(0.75))\n"
    (f,) = [f for fr in run_paths([str(tmp_path / "m.py")], select=["MSG304"]).files for f in fr.findings]
    assert f.fix.safety.value == "unsafe" and "a branch on it" in f.fix.description
    assert _mutable_fixed(tmp_path, "net(x, 0.5)\nnet(x, 0.75)\n", header="from mindspore import mutable\n") == \
        "    net(x, mutable(0.5))\n    net(x, mutable(0.75))\n"


def test_no_mutable_fix_without_a_certain_argument_or_a_name_for_mindspore(tmp_path):
    assert _mutable_fixed(tmp_path, "print(0.5, net(x, 0.5))\nnet(x, 0.75)\n") is None  # 0.5 twice on a line
    assert _mutable_fixed(tmp_path, "net(x, 0.5)\nnet(x, 0.75)\n", header="") is None  # no name for mindspore
    assert _mutable_fixed(tmp_path, "net(x, 2)\nnet(x, 3)\n") is None  # ints: a size or a shape may be made of it


# MSG101/MSG103 with an and/or of one-element conditions: ops.logical_and/or (the semantic
# child, tests/data/codemods/where_bool_pos.py: 16 runs, 0 changes)

def test_and_or_of_one_element_conditions_get_a_safe_select():
    assert _verdicts(DATA / "where_bool_pos.py", ["MSG101", "MSG103"]) == {
        (8, "MSG101"): "safe", (15, "MSG101"): "safe", (22, "MSG103"): "safe", (28, "MSG101"): "safe"}
    assert _verdicts(DATA / "where_bool_neg.py", ["MSG101"]) == {
        (8, "MSG101"): None,    # `mask is None` guards: no select
        (16, "MSG101"): None,   # a Python flag
        (24, "MSG101"): None}   # x[0, 0] > 0: an element, maybe a mask


def test_and_or_become_logical_ops(tmp_path):
    p = tmp_path / "m.py"
    p.write_bytes((DATA / "where_bool_pos.py").read_bytes())
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG101", "MSG103"]), write=False)
    assert not errors
    lines = changed[0].fixed.splitlines()
    assert "        x = ops.where(ops.logical_and((x > -10).all(), (x < 10).all()), x + 1, x)" in lines
    assert "        return ops.where(ops.logical_or(x.max() > 0.9, x.min() < -0.4), x * 2, x - 1)" in lines
    assert "        y = ops.where(ops.logical_or((ops.logical_and(x.sum() > 0, x.mean() < 0.9)), x.max() > 5), " \
           "x * 3, x + 3)" in lines


# MSG108: the select rewrite, unsafe (ops.where makes a Python number a tensor); none for two
# tensors of two dtypes (the semantic child: `idx = ops.where(c, x.astype(int32), x.astype(int64))`
# changed the true branch's dtype, 4 runs) or for a tuple

def test_unjoinable_branches_get_an_unsafe_select_only_with_a_python_number():
    labeled = ROOT / "fixtures" / "labeled"
    got = {}
    for name in ("accumulator_int", "ifexp_float", "return_int", "shape_vs_reduction", "astype_dtypes",
                 "tuple_vs_tensor", "and_is_none"):
        for fr in run_paths([str(labeled / f"control_flow_pos_join_{name}.py")], select=["MSG108"]).files:
            for f in fr.findings:
                got[name] = f.fix.safety.value if f.fix else None
                if f.fix:
                    assert "ops.where makes a Python number" in f.fix.description
    assert got == {"accumulator_int": "unsafe", "ifexp_float": "unsafe", "return_int": "unsafe",
                   "shape_vs_reduction": "unsafe", "astype_dtypes": None, "tuple_vs_tensor": None,
                   "and_is_none": None}


# MSG202 (semantic child, unsafe fixes run on purpose: the only differences are the ones named)
# `y = x.mul_(2.0)` -> `y = x.mul(2.0)`: graph mode no longer writes into the caller's x (2 runs
# differ in graph mode, PyNative equal); `self.p.add_(1.0)` -> `ops.assign(self.p, self.p.add(1.0))`:
# PyNative now updates the Parameter as graph mode did (2 runs differ in PyNative, graph equal)

def test_inplace_assign_and_parameter_update_fixes(tmp_path):
    assert _fixed(tmp_path, "y = x.mul_(2.0)\nreturn y + 1\n", ["MSG202"]) == \
        "        y = x.mul(2.0)\n        return y + 1\n"
    assert _fixed(tmp_path, "y = x.mul_(2.0)\nreturn y + x\n", ["MSG202"]) is None  # x is read again
    p = tmp_path / "p.py"
    p.write_text("import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore import ops\n\n\n"
                 "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.p = ms.Parameter(ms.Tensor([0.0]), name='p')\n\n"
                 "    def construct(self, x):\n        self.p.add_(1.0)\n        return x + self.p\n", encoding="utf-8")
    (f,) = [f for fr in run_paths([str(p)], select=["MSG202"]).files for f in fr.findings]
    assert f.fix.safety.value == "unsafe" and "PyNative then updates the Parameter" in f.fix.description
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG202"]), unsafe=True, write=False)
    assert not errors and "        ops.assign(self.p, self.p.add(1.0))\n" in changed[0].fixed


# MSG101 `if c: x += v` -> `x = ops.where(c, x + (v), x)`, unsafe: on an input, graph mode's `+=`
# wrote into the caller's tensor and the select does not (the semantic child with the unsafe fix:
# inplace_pos_aug_under_tensor_branch_on_target's graph-mode input differs, 2 runs; PyNative equal)

def test_an_augmented_assignment_under_a_tensor_if_gets_an_unsafe_select(tmp_path):
    assert _fixed(tmp_path, "y = x * 2\nif y.sum() > 0:\n    y *= x + 1  # scale\nreturn y\n", ["MSG101"]) == \
        "        y = x * 2\n        # scale\n        y = ops.where(y.sum() > 0, y * (x + 1), y)\n        return y\n"
    (f,) = [f for fr in run_paths([str(tmp_path / "m.py")], select=["MSG101"]).files for f in fr.findings]
    assert f.fix.safety.value == "unsafe" and "may write into it in place" in f.fix.description
    assert _fixed(tmp_path, "if x.sum() > 0:\n    z += 1\nreturn x\n", ["MSG101"]) is None   # z unbound before
    assert _fixed(tmp_path, "y = x * 2\nif y.sum() > 0:\n    y //= 2\nreturn y\n", ["MSG101"]) is None  # not + - * /


# MSG101 on an elif: the last elif + else become `else: y = ops.where(...)` (the semantic child,
# tests/data/codemods/where_elif.py and control_flow_pos_elif_tensor: 16 runs, 0 changes)

def test_the_last_elif_and_its_else_become_one_select(tmp_path):
    assert _verdicts(DATA / "where_elif.py", ["MSG101"]) == {
        (14, "MSG101"): "safe",     # one-element condition, elementwise values
        (31, "MSG101"): "unsafe",   # x[0, 0] > 0: maybe a mask; a relu call
        (40, "MSG101"): None,       # a chain without else
        (42, "MSG101"): None,
        (44, "MSG101"): None}
    p = tmp_path / "m.py"
    p.write_bytes((DATA / "where_elif.py").read_bytes())
    _, changed, errors = fix_paths(run_paths([str(p)], select=["MSG101"]), write=False)
    assert not errors
    assert "        if self.use_abs:\n            y = ops.abs(x)\n        else:\n" \
           "            y = ops.where(x.mean() > 0, x * 2, x - 1)  # sign\n        return y\n" in changed[0].fixed


def test_a_returned_tuple_holding_a_set_or_list_gets_its_elements_as_tuples(tmp_path):
    # compiled on 2.10 CPU (scripts/label_fixtures.py on the fixed fallback_pos_return_set_call):
    # `return x * 2, tuple(seen)` has 0 PyExecute nodes (MakeTuple, Muls) and equals PyNative
    assert _jit_fixed(tmp_path, "seen = set([1, 2, 1])\nreturn x * 2, seen") == \
        "    seen = set([1, 2, 1])\n    return x * 2, tuple(seen)"
    assert _jit_fixed(tmp_path, "return x * 2, labels") == "    return x * 2, tuple(labels)"
    assert _jit_fixed(tmp_path, "return labels, None") is None  # None needs PyExecute as well


def test_none_outputs_become_empty_tuples_unsafely(tmp_path):
    # compiled on 2.10 CPU (scripts/label_fixtures.py on fallback_pos_output_nothing with `return ()`
    # and fallback_pos_output_tuple_none with `return loss, ()`): 0 PyExecute nodes, equal to PyNative
    assert _jit_fixed(tmp_path, "return x * 2, None") == "    return x * 2, ()"
    assert _jit_fixed(tmp_path, "y = x + 1") == "    y = x + 1\n    return ()"
    (f,) = [f for fr in run_paths([str(tmp_path / "m.py")], select=["MSG414"]).files for f in fr.findings]
    assert f.fix.safety.value == "unsafe" and "empty tuple instead of None" in f.fix.description
    assert _jit_fixed(tmp_path, "return labels, None") is None  # a list and a None: not both at once

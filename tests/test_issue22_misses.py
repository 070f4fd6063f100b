"""Issue 22 item 3: the misses and false patterns measured on unseen code, each as a labeled
fixture (fixtures/labeled/, compiled on MindSpore 2.10 CPU by scripts/label_fixtures.py).

Each case names the rule that must report the positive's `# defect` line (and nothing else of
that rule in the file), or that must stay silent on the look-alike. The label's compile facts
are checked first, so a case cannot pass on a fixture the compiler disagrees with.
"""

from __future__ import annotations

import json
import os

import pytest

from msgraphlint.run.runner import run_paths

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABELED = os.path.join(ROOT, "fixtures", "labeled")

# fixture stem -> (the rule(s) run, the first reports the positive's line; what the label must show)
CASES = {
    # cast-then-size through a local
    "dynamic_shape_pos_cast_then_size_local": ("MSG303", "dynamic (-1) dims"),
    "dynamic_shape_neg_cast_then_size_static": ("MSG303", "clean"),
    # MSG304: call-site literal evidence, no string search of `__all__`
    "dynamic_shape_pos_float_from_callers": ("MSG304", "2 compiles"),
    "dynamic_shape_pos_jit_float_from_callers": ("MSG304", "2 compiles"),
    "dynamic_shape_pos_int_param_in_all": ("MSG304", "2 compiles"),
    "dynamic_shape_neg_single_float_from_callers": ("MSG304", "clean"),
    "dynamic_shape_neg_tensor_from_callers_iterated": ("MSG304", "clean"),
    # an int Tensor from the callers as a slice bound: one compile, dynamic shape (MSG303, not MSG304)
    "dynamic_shape_pos_slice_bound_tensor_from_callers": ("MSG303,MSG304", "dynamic (-1) dims"),
    # a Cell built inside graph code is a Cell
    "api_pos_cell_built_in_jit_get_parameters": ("MSG413", "compile error"),
    "api_neg_cell_built_in_jit_called": ("MSG413", "clean"),
    # nested container mutation
    "side_effect_pos_nested_attr_list_append": ("MSG207", "Python state change differs"),
    "side_effect_neg_nested_attr_list_read": ("MSG207", "clean"),
    # two `for` clauses in one comprehension
    "syntax_pos_jit_two_generator_listcomp": ("MSG410", "compile error"),
    "syntax_pos_jit_two_generator_dictcomp": ("MSG410", "compile error"),
    "syntax_neg_jit_nested_listcomp": ("MSG410", "clean"),
    # a tensor condition under an `is not None` guard
    "control_flow_pos_mask_sum_under_not_none": ("MSG101", "Switch in validate IR"),
    "control_flow_neg_mask_sum_under_not_none_none_passed": ("MSG101", "clean"),
    # PyTorch habits against 2.10's signatures
    "api_pos_transpose_negative_pair_rank4": ("MSG505", "compile error"),
    "api_neg_transpose_negative_pair_rank2": ("MSG505", "clean"),
    "api_pos_softmax_dim_keyword": ("MSG505", "compile error"),
    "api_neg_softmax_axis_and_mint_dim": ("MSG505", "clean"),
    # a set made in graph code and returned to Python (MindSpore's own test_fallback_runtime_set)
    "fallback_pos_return_set_call": ("MSG414", "1 PyExecute"),
    # helpers deeper than 8 calls
    "syntax_pos_try_in_helper_chain_depth10": ("MSG410", "compile error"),
}


def _label(stem):
    with open(os.path.join(LABELED, stem + ".json"), encoding="utf-8") as fh:
        return json.load(fh)


def _defect_line(path):
    with open(path, encoding="utf-8") as fh:
        return next(i for i, line in enumerate(fh, 1) if "# defect" in line)


@pytest.mark.parametrize("stem", sorted(CASES))
def test_issue22_fixture(stem):
    code, fact = CASES[stem]
    lab = _label(stem)
    assert lab["confirmed"], lab["evidence"]
    assert fact in lab["evidence"], lab["evidence"]
    path = os.path.join(LABELED, stem + ".py")
    found = [(f.line, f.code) for fr in run_paths([path], select=code.split(",")).files for f in fr.findings]
    if "_pos_" in stem:
        assert found == [(_defect_line(path), code.split(",")[0])]
    else:
        assert found == []


def test_msg109_list_built_inside_the_branch_compiles():
    """MSG109's false pattern: a list made and filled by a static loop inside a tensor branch
    compiles (the label: a Switch, no compile error at either level); MSG101 reports the Switch."""
    stem = "control_flow_pos_switch_list_built_in_branch"
    lab = _label(stem)
    assert lab["confirmed"] and lab["default"]["compiles"] and lab["strict"]["compiles"]
    path = os.path.join(LABELED, stem + ".py")
    found = [(f.line, f.code) for fr in run_paths([path], select=["MSG101", "MSG109"]).files for f in fr.findings]
    assert found == [(_defect_line(path), "MSG101")]


def test_helper_chain_has_no_depth_cap_and_survives_cycles(tmp_path):
    """A chain of 40 helpers is followed to its end; mutually recursive helpers end the walk."""
    lines = ["import mindspore.nn as nn", ""]
    for i in range(40):
        lines += [f"def h{i}(x):", f"    return h{i + 1}(x)", ""]
    lines += ["def h40(x):", "    del x", "    return 0", "",
              "def a(x):", "    return b(x)", "", "def b(x):", "    return a(x)", "",
              "class Net(nn.Cell):", "    def construct(self, x):", "        return h0(x) + a(x)", ""]
    p = tmp_path / "chain.py"
    p.write_text("\n".join(lines))
    found = [(f.line, f.code) for fr in run_paths([str(p)], select=["MSG410"]).files for f in fr.findings]
    assert found == [(lines.index("    del x") + 1, "MSG410")]


def test_keyword_habit_under_a_compile_time_branch_is_not_reported(tmp_path):
    """`ops.interpolate(x, sizes=...)` of a signature probe (mindcv's compatibility.py) sits under
    a branch graph mode folds on a constant attribute; the same call on the straight path is reported."""
    p = tmp_path / "m.py"
    p.write_text("import mindspore.nn as nn\nfrom mindspore import ops\n\n"
                 "class Up(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.size_name = 'size'\n\n"
                 "    def construct(self, x):\n        if self.size_name == 'sizes':\n"
                 "            return ops.interpolate(x, sizes=(4, 4))\n"
                 "        return ops.softmax(x, dim=-1)\n")
    found = [(f.line, f.code) for fr in run_paths([str(p)], select=["MSG505"]).files for f in fr.findings]
    assert found == [(12, "MSG505")]

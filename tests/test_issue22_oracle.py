"""Issue 22 done-when (the oracle of MindSpore's own compiler tests): the in-reach misses of
``benchmarks/oracle_mindspore_tests.py`` turned into mechanisms, each with labeled fixtures
(fixtures/labeled/, compiled on MindSpore 2.10 CPU by scripts/label_fixtures.py): a positive
the rule must report on its ``# defect`` line only, and look-alikes it must leave alone.
The label's compile facts are checked first, so a case cannot pass on a fixture the compiler
disagrees with.
"""

from __future__ import annotations

import os

import pytest

from msgraphlint.run.runner import run_paths
from test_issue22_misses import LABELED, _defect_line, _label

# fixture stem -> (the rule run, what the label's evidence must show)
CASES = {
    # `a or b` / `a and b` returned from a graph entry: the operand Python picks, when the
    # operands before it have a truthiness the parser knows (MindSpore's meta_fg_not_support_type_or)
    "fallback_pos_output_or_picks_list": ("MSG414", "1 PyExecute"),
    "fallback_neg_output_and_picks_int": ("MSG414", "clean"),
    # a slice of a list of constants is a new list of constants (MindSpore's
    # multitype_generated_by_inner_method_1: `x[::2]` of the caller's list)
    "fallback_pos_output_slice_of_caller_list": ("MSG414", "1 PyExecute"),
    "fallback_pos_output_slice_of_local_list": ("MSG414", "1 PyExecute"),
    "fallback_neg_output_slice_of_caller_tuple": ("MSG414", "clean"),
    "fallback_neg_output_slice_tensor_bound": ("MSG414", "clean"),
    # `self.f = A if c else lambda t: ...` on one line, then `self.f(x)` in construct: MindSpore
    # reads the lambda's source line and finds the conditional (MindSpore's test_lambda_location_2)
    "syntax_pos_lambda_in_conditional_attr": ("MSG410", "Parse Lambda Function Fail"),
    "syntax_neg_lambda_named_then_conditional": ("MSG410", "clean"),
    "syntax_neg_lambda_attr_on_own_line": ("MSG410", "clean"),
}


@pytest.mark.parametrize("stem", sorted(CASES))
def test_oracle_miss_fixture(stem):
    code, fact = CASES[stem]
    lab = _label(stem)
    assert lab["confirmed"], lab["evidence"]
    assert fact in lab["evidence"], lab["evidence"]
    path = os.path.join(LABELED, stem + ".py")
    findings = [f for fr in run_paths([path], select=[code]).files for f in fr.findings]
    found = [(f.line, f.code) for f in findings]
    if "_pos_" in stem:
        assert found == [(_defect_line(path), code)]
        assert len(findings[0].message) <= 100 and "\n" not in findings[0].message  # a short title (issue 26)
    else:
        assert found == []

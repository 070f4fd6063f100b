"""Fuzzing as a test (a bounded number of examples; benchmarks/fuzz.py runs the long
version): generated and mutated programs never crash the checker, never produce MSG000,
and get MSG001 exactly when ast.parse rejects them."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

import fuzzing

EXAMPLES = int(os.environ.get("MSGRAPHLINT_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@SETTINGS
@given(fuzzing.mutated())
def test_mindspore_shaped_mutations(text):
    fuzzing.outcome(text)


@SETTINGS
@given(fuzzing.grammar())
def test_grammar_generated_modules(text):
    fuzzing.outcome(text)


def test_the_property_can_fail():
    """The oracle is not vacuous: a parse error is MSG001, a parsable module is not."""
    assert fuzzing.outcome("import mindspore\ndef f(:\n") == "parse-error"
    assert fuzzing.outcome("import mindspore\nx = 1\n") == "checked"

"""Every rule's embedded VALID/INVALID examples are tests (Fixit-style).

Each example is written to a temporary project and linted through the real
runner with only that rule selected, so the examples exercise discovery, scopes,
value kinds and suppressions exactly as users meet them.
"""

from __future__ import annotations

import pytest

from msgraphlint.engine.registry import load_rules
from msgraphlint.run.runner import run_paths

RULES = load_rules()


def _cases(kind):
    for code, rule in RULES.items():
        for i, ex in enumerate(getattr(rule, kind)):
            yield pytest.param(rule, ex, id=f"{code}-{kind.lower()}-{i}")


def _lint(tmp_path, rule, example):
    path = tmp_path / example.filename
    path.write_text(example.source, encoding="utf-8")
    result = run_paths([str(path)], select=[rule.code], config_file=None)
    return [f for fr in result.files for f in fr.findings + fr.unused_suppressions if f.code == rule.code]


def test_every_rule_has_examples():
    # MSG000 (internal error) has no source that triggers it on purpose: tests/test_fault_isolation.py
    missing = [c for c, r in RULES.items()
               if not r.VALID or (not r.INVALID and c != "MSG000" and not getattr(r, "no_invalid_example", ""))]
    assert not missing, f"rules without VALID and INVALID examples: {missing}"


@pytest.mark.parametrize("rule,example", list(_cases("VALID")))
def test_valid_example_is_not_flagged(tmp_path, rule, example):
    found = _lint(tmp_path, rule, example)
    assert not found, f"{rule.code} flagged a VALID example ({example.note}): " + "; ".join(
        f"line {f.line}: {f.message}" for f in found)


@pytest.mark.parametrize("rule,example", list(_cases("INVALID")))
def test_invalid_example_is_flagged_at_its_lines(tmp_path, rule, example):
    found = _lint(tmp_path, rule, example)
    assert sorted({f.line for f in found}) == sorted(set(example.lines)), (
        f"{rule.code} INVALID example ({example.note}) expected lines {example.lines}, got "
        + "; ".join(f"line {f.line}: {f.message}" for f in found))


def _fix_cases():
    for code, rule in RULES.items():
        for i, ex in enumerate(rule.INVALID):
            if ex.expected_fix is not None:
                yield pytest.param(rule, ex, id=f"{code}-fix-{i}")


@pytest.mark.parametrize("rule,example", list(_fix_cases()))
def test_fix_example(tmp_path, rule, example):
    """--fix (--unsafe-fixes for unsafe fixes) turns the INVALID example into expected_fix;
    the fixed file parses, no longer has the finding, and a second fix changes nothing."""
    from msgraphlint.fix.files import fix_paths

    path = tmp_path / example.filename
    path.write_text(example.source, encoding="utf-8")
    unsafe = rule.fix_safety is not None and rule.fix_safety.value == "unsafe"
    result = run_paths([str(path)], select=[rule.code])
    fixed, changed, errors = fix_paths(result, unsafe=unsafe)
    assert not errors
    assert path.read_text(encoding="utf-8") == example.fixed_source
    assert not [f for fr in fixed.files for f in fr.findings if f.code == rule.code and f.line in example.lines]
    again, changed2, _ = fix_paths(run_paths([str(path)], select=[rule.code]), unsafe=unsafe)
    assert changed2 == [] and path.read_text(encoding="utf-8") == example.fixed_source

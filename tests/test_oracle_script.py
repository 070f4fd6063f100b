"""benchmarks/oracle_mindspore_tests.py reads what a test asserts about graph mode: a
pytest.raises block around a nested Cell or jit function (family from the message, hit when
the family's rules flag the target), run-time messages out of static reach, success tests
and the findings on their graph code."""

from __future__ import annotations

import os
import sys

from helpers import write_tree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import oracle_mindspore_tests as oracle  # noqa: E402


def test_assertions_are_read_and_scored(tmp_path, monkeypatch):
    monkeypatch.setattr(oracle, "VERDICTS", str(tmp_path / "none.json"))
    write_tree(tmp_path / "corpus", {"__init__.py": "", "test_a.py": '''
        import pytest
        import numpy as np
        import mindspore as ms
        from mindspore import nn, jit, Tensor, context
        context.set_context(mode=context.GRAPH_MODE)

        def test_try_fails():
            class Net(nn.Cell):
                def construct(self, x):
                    try:
                        x = x + 1
                    except ValueError:
                        pass
                    return x
            net = Net()
            with pytest.raises(RuntimeError) as err:
                net(Tensor(1))
            assert "Unsupported statement 'Try'" in str(err.value)

        def test_value_error():
            @jit
            def foo(x):
                raise ValueError("x is bigger than y")
            with pytest.raises(ValueError, match="x is bigger than y"):
                foo(Tensor(1))

        def test_join_missed():
            @jit
            def foo(x):
                return x
            with pytest.raises(TypeError, match="Cannot join the return values of different branches"):
                foo(Tensor(1))

        def test_runs():
            @jit
            def bar(x):
                y = x.asnumpy()
                return Tensor(y)
            out = bar(Tensor(np.ones(2)))
            assert out.shape == (2,)
    '''})
    res = oracle.analyse(str(tmp_path / "corpus"))
    by_test = {r["test"].split("::")[1]: r for r in res["failures"]}
    assert by_test["test_try_fails"]["family"] == "syntax" and by_test["test_try_fails"]["hit"]
    assert by_test["test_try_fails"]["reach"] == "in reach"
    assert by_test["test_value_error"]["reach"].startswith("out of static reach")
    assert by_test["test_join_missed"]["family"] == "control_flow" and not by_test["test_join_missed"]["hit"]
    (success,) = res["successes"]
    assert success["test"].endswith("test_runs")
    assert {f["code"] for f in success["findings"]} >= {"MSG401"}
    assert not any(f["contradicted"] for f in success["findings"])
    rows, summary = oracle.table(res)
    assert summary["syntax"]["recall"] == 1.0 and summary["control_flow"]["recall"] == 0.0
    assert "| syntax | 1 | 1 | 1 | 1.00 | 0 | 0 | - |" in rows


def test_a_strict_failure_is_hit_by_a_finding_that_predicts_it():
    """A pytest.raises of "In JIT strict mode ..." (family syntax) counts a finding of another
    family whose message says the code fails under STRICT; a cost-only claim does not count."""
    class F:
        def __init__(self, code, message):
            self.code, self.message = code, message
    codes = oracle.family_codes()
    strict = F("MSG209", "`self.data` (a plain Python value) is assigned in graph code: PyExecute fallback nodes "
                         "cut the graph at the default level; under STRICT it fails to compile (the attribute "
                         "must be a Parameter)")
    cost = F("MSG204", "augmented assignment on a local tensor: an in-place kernel plus Assign/Depend nodes")
    assert "MSG209" not in codes["syntax"]
    assert oracle._counts_for(strict, "syntax", codes)
    assert not oracle._counts_for(cost, "syntax", codes)
    assert not oracle._counts_for(strict, "control_flow", codes)


def test_a_finding_on_the_tests_own_call_is_a_hit_and_is_judged_on_success_tests(tmp_path, monkeypatch):
    # one Cell used by a failing and a passing test: MSG108 reports the failing call (the
    # arguments it passes), not the Cell, so the passing test sees no finding
    monkeypatch.setattr(oracle, "VERDICTS", str(tmp_path / "none.json"))
    write_tree(tmp_path / "corpus", {"__init__.py": "", "test_b.py": '''
        import pytest
        import numpy as np
        from mindspore import nn, Tensor, context
        context.set_context(mode=context.GRAPH_MODE)

        class Pick(nn.Cell):
            def construct(self, x, y):
                return x and y

        def test_numbers():
            net = Pick()
            ret = net(1, 2)
            assert ret == 2

        def test_dtypes():
            with pytest.raises(TypeError, match="Cannot join the return values of different branches"):
                net = Pick()
                x = Tensor(np.ones([1], np.float_))
                y = Tensor(np.zeros([1], np.int32))
                net(x, y)
    '''})
    res = oracle.analyse(str(tmp_path / "corpus"))
    (fail,) = res["failures"]
    assert fail["family"] == "control_flow" and fail["hit"] and fail["findings"] == ["MSG108:20"]
    (success,) = res["successes"]
    assert success["test"].endswith("test_numbers") and success["findings"] == []


def test_a_pyexecute_claim_is_judged_by_the_tests_compile():
    """A finding that claims PyExecute on a test that asserts success is contradicted when the
    test's 2.10 compile (a test-level verdict) has no fallback node, consistent when it has
    some; a class name that only contains the word does not make a claim."""
    class F:
        def __init__(self, code, line, message):
            self.code, self.line, self.message = code, line, message
    claim = F("MSG414", 5, "`foo` is called from Python and its output is a dict: MindSpore builds this output "
                           "with PyExecute on the host after the graph runs")
    other = F("MSG201", 6, "`print()` in graph-mode code is compiled into a Print op (in PrintPyExecuteNet.construct)")
    none = {"t.py::test_a": {"verdict": "compiles", "evidence": "2.10 CPU: passes with no PyExecute/PyInterpret node"}}
    some = {"t.py::test_a": {"verdict": "compiles", "evidence": "2.10 CPU: passes, 3 PyExecute/PyInterpret nodes"}}
    assert oracle._judge(claim, "t.py::test_a", none)["contradicted"]
    assert not oracle._judge(claim, "t.py::test_a", some)["contradicted"]
    assert not oracle._judge(claim, "t.py::test_a", {})["contradicted"]
    assert not oracle._judge(other, "t.py::test_a", none)["contradicted"]


def test_claims_in_a_findings_detail_count():
    """Issue 26 moved what happens in the graph into the finding's detail: a PyExecute or
    STRICT claim there counts as it did in the title (HEAD 3c2f278 read the title only and
    lost 29 in-reach hits), and a compile-failure claim in the detail is judged."""
    from msgraphlint.findings import Finding
    codes = oracle.family_codes()
    pyexec = Finding("MSG213", "n", "`obj.x` sets an attribute of the object `obj` in graph code", "t.py", 3,
                     detail="It runs through PyExecute nodes on the host at every call.")
    strict = Finding("MSG209", "n", "`self.data` (a plain Python value) is assigned in graph code", "t.py", 3,
                     detail="PyExecute at the default level; under STRICT it fails to compile.")
    assert "MSG213" not in codes["fallback"] and "MSG209" not in codes["syntax"]
    assert oracle._counts_for(pyexec, "fallback", codes)
    assert oracle._counts_for(strict, "syntax", codes)
    fails = Finding("MSG999", "n", "`try` in graph code", "t.py", 3, detail="It does not compile in MindSpore 2.10.")
    rec = oracle._judge(fails, "a.py::test_x", {})
    assert rec["contradicted"] and not rec["pyexecute_claim"]
    assert oracle._judge(pyexec, "a.py::test_x", {})["pyexecute_claim"]

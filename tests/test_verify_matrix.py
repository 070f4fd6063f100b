"""The ``msgraphlint verify`` matrix (issue 11): each case runs the real command (MindSpore
2.10 compiles, through click) and asserts its exit code, the verdict of every static
finding and the status of every IR event. The seeded GPT-layer fixtures are the other half
of the matrix (tests/test_verify_mindspore.py: every finding confirmed, exit 0; the
static-blind scalar_arg: exit 1).

Targets are small Dense MLPs (fixtures/verify/, see its README): a compile takes a few
seconds. Each target is compiled once per session (a session-wide verify cache). Usage
errors need no compile (or fail before one) and never reach the cache.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from msgraphlint.verify import command

ROOT = Path(__file__).resolve().parent.parent
VERIFY = ROOT / "fixtures" / "verify"
_RESULTS: dict = {}


def defect(relpath: str, text: str) -> tuple:
    """(relpath, line) of the line of fixtures/verify/RELPATH that contains ``text``."""
    lines = (VERIFY / relpath).read_text().splitlines()
    hits = [i + 1 for i, ln in enumerate(lines) if text in ln]
    assert len(hits) == 1, (relpath, text, hits)
    return relpath, hits[0]


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return os.environ.get("MSGRAPHLINT_TEST_VERIFY_CACHE") or str(tmp_path_factory.mktemp("verify-matrix"))


def run_cli(args, cache_dir):
    key = tuple(args)
    if key not in _RESULTS:
        r = CliRunner().invoke(command.verify_command, list(args) + ["--format", "json", "--cache-dir", cache_dir,
                                                                       "--timeout", "600"])
        data = None
        if r.exit_code in (0, 1):
            data = json.loads(r.output)
        _RESULTS[key] = (r.exit_code, data, r.output)
    return _RESULTS[key]


def verdicts(data) -> dict:
    out = {}
    for row in data["crosscheck"]["findings"]:
        rel = os.path.relpath(os.path.abspath(row["path"]), VERIFY)
        out[(rel, row["line"], row["code"])] = row["status"]
    return out


def event_statuses(data) -> list:
    return sorted((e["kind"], e["status"]) for e in data["crosscheck"]["events"])


X = "4x32:float32"
AUG = defect("two_classes.py", "x += h")
IF = defect("two_classes.py", "if h.sum() > 0")
PRINT = defect("two_classes.py", 'print("h mean:"')
SET_INPUTS = defect("scalar_and_set_inputs.py", "self.set_inputs(")
ASNUMPY = defect("fallback_mlp.py", "h.asnumpy()")
STRICT = defect("compile_errors.py", "rejected under STRICT")
NODTYPE = defect("compile_errors.py", "fails at the default level")
GATED_IF = defect("multimodule/layers/blocks.py", "if h.mean() > 0")
UNUSED_PRINT = defect("multimodule/layers/blocks.py", 'print("x:"')

# case -> (arguments, exit code, {(file, line, code): verdict}, [(event kind, status)])
CASES = {
    # a second class in the same file with its own findings: they are not compiled, and the
    # target's events explain only its own finding: the InplaceAddExt the validate stage
    # locates at `x += h` confirms it; the unlocated TensorMove, Assign and mutation follow
    "second class: AugMLP": (
        ["two_classes.py::AugMLP"], 0,
        {AUG + ("MSG202",): "confirmed", IF + ("MSG101",): "not_compiled", PRINT + ("MSG201",): "not_compiled"},
        [("inplace_write", "explained"), ("mutation_divergence", "explained"), ("side_effect", "explained"),
         ("side_effect", "explained")]),
    "second class: BranchyMLP": (
        ["two_classes.py::BranchyMLP"], 0,
        {AUG + ("MSG202",): "not_compiled", IF + ("MSG101",): "confirmed", PRINT + ("MSG201",): "confirmed"},
        [("control_flow", "explained"), ("side_effect", "explained")]),
    # the native ops MSG201/MSG206 recommend: expected, not disagreements
    "native ops: NativeOpsMLP": (
        ["two_classes.py::NativeOpsMLP"], 0,
        {AUG + ("MSG202",): "not_compiled", IF + ("MSG101",): "not_compiled", PRINT + ("MSG201",): "not_compiled"},
        [("inplace_write", "expected"), ("side_effect", "expected"), ("side_effect", "expected")]),
    # a Python-scalar recompile (no static rule sees it) next to an unrelated set_inputs class
    "scalar recompile next to set_inputs": (
        ["scalar_and_set_inputs.py::ScaledMLP", "--inputs", f"{X},py:SCALE", "--shapes", "SCALE=1.0,0.5"], 1,
        {SET_INPUTS + ("MSG305",): "not_compiled"},
        [("recompile", "unexplained")]),
    "set_inputs class itself": (
        ["scalar_and_set_inputs.py::DynMLP", "--inputs", X], 0,
        {SET_INPUTS + ("MSG305",): "confirmed"},
        [("dynamic_shape", "explained"), ("host_sync", "knock_on")]),
    # a fallback with downstream effects: Switch nodes at the later Dense calls
    "fallback with knock-on effects": (
        ["fallback_mlp.py::FallbackMLP"], 0,
        {ASNUMPY + ("MSG401",): "confirmed"},
        [("control_flow", "knock_on"), ("control_flow", "knock_on"), ("dynamic_shape", "explained"),
         ("fallback", "explained"), ("fallback", "explained")]),
    # compile errors, at each syntax level
    "compile error, STRICT": (
        ["compile_errors.py::StrictOnly", "--strict"], 0,
        {STRICT + ("MSG401",): "confirmed", NODTYPE + ("MSG401",): "not_compiled"},
        [("compile_error", "explained")]),
    "compile error, default level": (
        ["compile_errors.py::NoDtype"], 0,
        {STRICT + ("MSG401",): "not_compiled", NODTYPE + ("MSG401",): "confirmed"},
        None),  # the fallback events before the failure vary; checked below
    # a defect only in an imported module (a subpackage)
    "defect in an imported module": (
        ["multimodule/net.py::Net"], 0,
        {GATED_IF + ("MSG101",): "confirmed", UNUSED_PRINT + ("MSG201",): "not_compiled"},
        [("control_flow", "explained")]),
}


def _args(args):
    return [str(VERIFY / args[0])] + args[1:]


@pytest.mark.mindspore
@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_matrix(case, cache_dir):
    args, exit_code, expected, events = CASES[case]
    code, data, output = run_cli(_args(args), cache_dir)
    assert data is not None, output
    assert verdicts(data) == {(f, ln, c): v for (f, ln, c), v in expected.items()}, data["crosscheck"]
    if events is not None:
        assert event_statuses(data) == sorted(events), data["crosscheck"]["events"]
    assert code == exit_code, data["crosscheck"]["disagreements"]


@pytest.mark.mindspore
@pytest.mark.slow
def test_default_level_error_is_located_and_lists_what_was_compiled(cache_dir):
    code, data, output = run_cli(_args(CASES["compile error, default level"][0]), cache_dir)
    assert data["compile"]["ok"] is False
    [ce] = [e for e in data["crosscheck"]["events"] if e["kind"] == "compile_error"]
    # MindSpore's message names no line; analyze_fail.ir does
    assert ce["line"] == NODTYPE[1] and "analyze_fail.ir" in ce["detail"] and ce["status"] == "explained"
    assert any("NoDtype" in c for c in data["compiled_before_failure"]), data["compiled_before_failure"]
    assert not data["crosscheck"]["disagreements"]


@pytest.mark.mindspore
@pytest.mark.slow
def test_strict_failure_lists_what_was_compiled(cache_dir):
    code, data, output = run_cli(_args(CASES["compile error, STRICT"][0]), cache_dir)
    assert data["compile"]["ok"] is False and data["compile"]["error_type"] == "AttributeError"
    assert any("StrictOnly" in c for c in data["compiled_before_failure"]), data["compiled_before_failure"]


@pytest.mark.mindspore
@pytest.mark.slow
def test_scalar_shapes_keep_the_float_and_skip_set_inputs_with_a_reason(cache_dir):
    code, data, output = run_cli(_args(CASES["scalar recompile next to set_inputs"][0]), cache_dir)
    c = data["compile"]
    assert c["n_compiles"] == 2 and c["input_shapes"] == [[4, 32], "1.0"]
    assert c["shape_runs"][0]["input_shapes"] == [[4, 32], "0.5"]
    assert "only Python scalar" in data["dynamic_cost"]["skipped"]


@pytest.mark.mindspore
@pytest.mark.slow
def test_train_counts_only_graph_compiles(cache_dir):
    """Two batch sizes under --train: 2 graph compiles (PyNative's gradient graph, run for
    the comparison, is not one), and no set_inputs measurement (it would be forward only)."""
    code, data, output = run_cli(_args(["scalar_and_set_inputs.py::ScaledMLP", "--inputs", "Bx32:float32,py:1.0",
                                        "--train", "--shapes", "B=4,8"]), cache_dir)
    assert data is not None, output
    assert data["compile"]["ok"], data["compile"]["error"]
    assert data["compile"]["n_compiles"] == 2
    assert [r["new_compiles"] for r in data["compile"]["shape_runs"]] == [1]
    assert data["compile"]["pynative_equal"] is True
    assert "--train" in data["dynamic_cost"]["skipped"]
    assert code == 0


# ----------------------------------------------------------------------------- usage errors

def _usage(args, cache_dir, env=None):
    r = CliRunner().invoke(command.verify_command, list(args) + ["--cache-dir", cache_dir], env=env)
    return r.exit_code, r.output


USAGE = {
    "no such class": (["two_classes.py::NoSuchClass"], "defines no 'NoSuchClass'"),
    "no make_inputs": (["usage/no_make_inputs.py::Net"], "has no make_inputs()"),
    "malformed --inputs": (["two_classes.py::AugMLP", "--inputs", "4xfoo:float32"], "'foo' is not a dim"),
    "malformed --shapes": (["two_classes.py::AugMLP", "--inputs", X, "--shapes", "SEQ"], "expected NAME=V1,V2"),
    "unknown --shapes name": (["scalar_and_set_inputs.py::ScaledMLP", "--inputs", f"{X},py:SCALE",
                               "--shapes", "SCALE=1.0,0.5", "--shapes", "OTHER=1,2"], "'OTHER' is used by no --inputs"),
}


@pytest.mark.parametrize("case", sorted(USAGE))
def test_usage_error_before_any_compile(case, tmp_path):
    args, message = USAGE[case]
    code, output = _usage(_args(args), str(tmp_path / "c"))
    assert code == 2 and message in output, output
    assert not (tmp_path / "c").exists()


def test_syntax_error_in_the_module(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("from mindspore import nn\n\nclass Net(nn.Cell):\n    def construct(self, x)\n        return x\n")
    code, output = _usage([f"{bad}::Net", "--inputs", X], str(tmp_path / "c"))
    assert code == 2 and "cannot parse" in output and "broken.py" in output, output


CHILD_USAGE = {
    "constructor needs arguments": ("usage/ctor_args.py::Net", "constructing the target failed",
                                    "missing 1 required positional argument: 'width'"),
    "import error in the module": ("usage/import_error.py::Net", "importing the module failed",
                                   "No module named 'no_such_module_msgraphlint'"),
}


@pytest.mark.mindspore
@pytest.mark.parametrize("case", sorted(CHILD_USAGE))
def test_usage_error_found_by_the_compile_child(case, tmp_path):
    target, what, detail = CHILD_USAGE[case]
    cache = str(tmp_path / "c")
    for _ in range(2):  # never cached: the second run fails the same way
        code, output = _usage([str(VERIFY / target)], cache)
        assert code == 2 and what in output and detail in output, output
    assert not list((Path(cache) / "verify").rglob("*.json"))  # (check's result cache may hold the static side)


def test_mindspore_missing_is_a_usage_error(tmp_path):
    """An interpreter where ``import mindspore`` fails (MSGRAPHLINT_MINDSPORE_PYTHON)."""
    fake = tmp_path / "python-without-mindspore"
    fake.write_text(f"#!{sys.executable}\n"
                    "import runpy, sys\n"
                    "sys.modules['mindspore'] = None  # import mindspore -> ModuleNotFoundError\n"
                    "if sys.argv[1:2] == ['-m']:\n"
                    "    sys.argv = [sys.argv[2]] + sys.argv[3:]\n"
                    "    runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)\n"
                    "elif sys.argv[1:2] and sys.argv[1].endswith('.py'):  # the isolated child: a script\n"
                    "    sys.argv = sys.argv[1:]\n"
                    "    sys.path.insert(0, __import__('os').path.dirname(sys.argv[0]))\n"
                    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
                    "else:\n"
                    "    sys.exit(1)\n")
    fake.chmod(0o755)
    cache = str(tmp_path / "c")
    code, output = _usage([str(VERIFY / "two_classes.py") + "::AugMLP"], cache,
                          env={"MSGRAPHLINT_MINDSPORE_PYTHON": str(fake)})
    assert code == 2 and "MindSpore is not importable" in output, output
    assert not list((Path(cache) / "verify").rglob("*.json"))

"""The IR parser and the cross-check, on IR files saved by real MindSpore 2.10 compiles
(tests/data/ir/, paths rewritten to /REPO/, type-format lines trimmed). No MindSpore needed."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from msgraphlint.findings import Finding
from msgraphlint.verify import evidence
from msgraphlint.verify.crosscheck import crosscheck, extract_events
from msgraphlint.verify.reach import Span, reach
from msgraphlint.verify.ir import (error_locations, has_dynamic_dims, match_line, parse_ir_dir,
                                   parse_ir_file)

DATA = Path(__file__).parent / "data" / "ir"
ROOT = Path(__file__).resolve().parent.parent
CLEAN_SRC = "/REPO/reference_model/gpt_layer.py"


def seeded_line(name: str) -> int:
    text = (ROOT / "fixtures" / "seeded" / f"{name}.py").read_text().splitlines()
    lines = [i + 1 for i, ln in enumerate(text) if re.search(r"#\s*seeded:", ln)]
    assert len(lines) == 1, lines
    return lines[0]


def report(name: str):
    src = CLEAN_SRC if name == "clean_layer" else f"/REPO/fixtures/seeded/{name}.py"
    return parse_ir_dir(str(DATA / name), src)


def reached(name: str, target: str = "TransformerLayer", folder: str = "seeded"):
    """What compiling the fixture's target reaches (reach.py, on the real file), with its
    paths as the saved IR spells them (/REPO/...)."""
    real = reach(str(ROOT / "fixtures" / folder / f"{name}.py"), target)
    real.spans = [Span(s.path.replace(str(ROOT), "/REPO"), s.start, s.end, s.name, s.kind) for s in real.spans]
    real.inits = [Span(s.path.replace(str(ROOT), "/REPO"), s.start, s.end, s.name, s.kind) for s in real.inits]
    real.natives = {(p.replace(str(ROOT), "/REPO"), ln): ops for (p, ln), ops in real.natives.items()}
    return real


def out_json(name: str) -> dict:
    with open(DATA / name / "out.json") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def clean():
    return report("clean_layer")


# ----------------------------------------------------------------------------- parser


def test_clean_layer_fusion_report(clean):
    s = clean.summary()
    assert s["fused_kernels"] == 9
    assert s["fused_ops"] == 24
    assert s["unfused_ops"] == 13
    assert s["kernel_graphs"] == 1
    assert s["fallback_nodes"] == 0
    assert s["compiles"] == 1
    assert s["dynamic_shape"] is False
    assert all(k.name.startswith("Fused_") for k in clean.fused)
    unfused = sorted({e.op for e in clean.unfused})
    assert unfused == ["BatchMatMul", "LayerNorm", "MaskedFill", "MatMul", "Reshape", "Softmax", "Split"]


def test_unfused_ops_carry_lines_and_scopes(clean):
    by_op = {}
    for e in clean.unfused:
        by_op.setdefault(e.op, []).append(e)
    # LayerNorm's innermost frame is in mindspore/nn; the line in the target file is the call
    assert sorted(e.line for e in by_op["LayerNorm"]) == [154, 158]
    assert {e.line for e in by_op["MatMul"]} == {69}
    assert by_op["Softmax"][0].line == 91
    assert by_op["Softmax"][0].scope.startswith("Default/self_attention-SelfAttention/core_attention")


def test_expanded_ops_recover_their_lines_from_hwopt(clean):
    """GeLU and BiasAdd expand into Add/Mul/Tanh with no # In file in graph_build: their
    lines come back from hwopt_common_final through expand_from, scope and data flow."""
    gelu = next(k for k in clean.fused if k.kind == "BiasAdd_Reshape_GeLU_Reshape_fusion")
    assert "Tanh" in gelu.ops
    assert all(n.frames == () for n in gelu.members)  # nothing in graph_build itself
    assert gelu.recovered
    assert gelu.lines == [70, 135]  # Linear's bias_add and MLP's activation_func
    qkv = next(k for k in clean.fused if k.kind == "BiasAdd_Reshape_fusion")
    assert qkv.lines == [70, 113]


def test_validate_lines(clean):
    lines = clean.lines_of(CLEAN_SRC)
    assert lines[135] == ["GeLU"]
    assert lines[114] == ["Split"]
    assert sorted(lines[69]) == ["MatMul"] * 4  # one helper line, called four times


def test_parse_single_file_nodes_and_frames():
    f = parse_ir_file(str(next((DATA / "clean_layer").glob("graph_build_*.ir"))))
    assert f.stage == "graph_build" and f.graph_id == 0
    assert f.entry == "kernel_graph0"
    fused = [g for g in f.graphs.values() if g.fused_name]
    assert len(fused) == 9
    mm = next(n for n in f.entry_graph.nodes if n.op == "MatMul")
    assert mm.raw_op == "PrimFunc_MatMul"
    assert mm.frames[-1].line == 69 and not mm.frames[-1].is_def
    assert mm.frames[0].is_def  # the outermost frame is TransformerLayer.construct's def


def test_tensor_if_control_flow():
    r = report("tensor_if")
    line = seeded_line("tensor_if")
    assert r.n_kernel_graphs == 4
    assert [(e.op, e.line) for e in r.control_flow] == [("Switch", line)]
    assert any(e.op == "Greater" and e.line == line for e in r.unfused)


def test_asnumpy_roundtrip_fallback_and_fusion_loss(clean):
    r = report("asnumpy_roundtrip")
    line = seeded_line("asnumpy_roundtrip")
    assert r.fallbacks and all(e.op == "PyExecute" for e in r.fallbacks)
    assert sum(1 for e in r.fallbacks if e.line == line) >= 5
    assert r.n_kernel_graphs > 5
    assert r.summary()["dynamic_shape"] is True
    assert len(r.fused) < len(clean.fused)


def test_scalar_arg_three_compiles_grouped():
    r = report("scalar_arg")
    assert r.n_compiles == 3
    assert [len(c.fused) for c in r.compiles] == [9, 9, 9]
    assert [c.n_kernel_graphs for c in r.compiles] == [1, 1, 1]
    assert [len(c.graph_build) for c in r.compiles] == [1, 1, 1]


def test_augassign_side_effect_ops_without_line():
    r = report("augassign")
    ops = [(e.op, e.line) for e in r.unfused if e.op in ("TensorMove", "Assign")]
    assert sorted(ops, key=str) == [("Assign", None), ("TensorMove", None), ("TensorMove", None)]


def test_dynamic_set_inputs_loses_all_fusion():
    r = report("dynamic_set_inputs")
    assert r.summary()["dynamic_shape"] is True
    assert r.fused == []
    assert len(r.unfused) > 30


def test_data_dependent_shape_op_at_line():
    r = report("data_dependent_shape")
    line = seeded_line("data_dependent_shape")
    assert ("NonZero", line) in [(e.op, e.line) for e in r.unfused]
    assert r.summary()["dynamic_shape"] is True


def test_python_helper_float_is_a_host_sync():
    """MindSpore 2.10 compiles float(tensor) in a helper (the facts file says it fails):
    TensorToScalar -> scalar math -> ScalarToTensor, at the helper's line."""
    r = report("python_helper")
    line = seeded_line("python_helper")
    ops = {(e.op, e.line) for e in r.unfused}
    assert ("ScalarDiv", line) in ops
    assert any(op == "TensorToScalar" for op, _ in ops)


def test_match_line_slack():
    assert match_line(129, 129)
    assert match_line(130, 129) and match_line(128, 129)
    assert not match_line(131, 129)
    assert match_line(131, 129, slack=2)
    assert match_line(133, 129, finding_end_line=132)
    assert not match_line(None, 129)


def test_has_dynamic_dims():
    assert has_dynamic_dims("(<Tensor[Float32], (-1, -1, 256)>)")
    assert has_dynamic_dims("(<Tensor[Float32], (-2)>)")
    assert not has_dynamic_dims("(<Tensor[Float32], (2, 64, 256)>)")
    assert not has_dynamic_dims("(<Tensor[Float32], (), value=-10000>)")


def test_error_locations_prefer_statements_in_source():
    text = (
        "ValueError: negative dimensions are not allowed\n\n"
        "----------------------------------------------------\n"
        "- The Traceback of Net Construct Code:\n"
        "# 0 In file /REPO/fixtures/seeded/x.py:125~133, 4~45/    def construct(self, h):/\n"
        "# 1 In file /REPO/fixtures/seeded/x.py:129, 8~30/        y = helper(h)/\n"
        "# 2 In file /usr/lib/python3/site-packages/mindspore/ops/x.py:10, 0~5/ z/\n"
        "# 3 In file /REPO/fixtures/seeded/x.py:27, 4~30/    return float(x)/\n"
    )
    # the construct traceback is printed outermost first: the failing statement is its last frame
    assert error_locations(text, "/REPO/fixtures/seeded/x.py") == [
        ("/REPO/fixtures/seeded/x.py", 27), ("/REPO/fixtures/seeded/x.py", 129)]


# ----------------------------------------------------------------------------- cross-check


def _finding(code, line, path="/REPO/x.py"):
    """A finding; a seeded fixture's name as ``path`` stands for the fixture's file."""
    if "/" not in path:
        path = f"/REPO/fixtures/seeded/{path}.py"
    return Finding(code=code, name="t", message=f"{code} message", path=path, line=line)


def test_clean_layer_has_no_events(clean):
    events = extract_events({"ok": True, "inputs_mutated": {"graph": False, "pynative": False},
                             "pynative_equal": True}, clean.to_dict(), CLEAN_SRC)
    assert events == []
    x = crosscheck([], events, clean.to_dict())
    assert x["agree"] and x["disagreements"] == []


def test_tensor_if_confirmed_within_slack_only():
    r = report("tensor_if")
    line = seeded_line("tensor_if")
    ir = r.to_dict()
    events = extract_events(out_json("tensor_if"), ir, r.source_path)
    assert {e.kind for e in events} == {"control_flow"}
    for delta, expected in ((0, "confirmed"), (1, "confirmed"), (-1, "confirmed"), (3, "not_confirmed")):
        x = crosscheck([_finding("MSG101", line + delta, "tensor_if")], events, ir)
        assert x["findings"][0]["status"] == expected, delta
    # a finding of the wrong family does not explain the Switch
    x = crosscheck([_finding("MSG201", line, "tensor_if")], events, ir)
    assert x["findings"][0]["status"] == "not_confirmed"
    assert [d["type"] for d in x["disagreements"]] == ["finding_not_confirmed", "event_unexplained"]
    # no finding at all: the event is unexplained
    x = crosscheck([], events, ir)
    assert not x["agree"] and x["events"][0]["status"] == "unexplained"


def test_unlocated_side_effects_confirm_the_family():
    r = report("augassign")
    out = out_json("augassign")
    events = extract_events(out, r.to_dict(), r.source_path)
    kinds = {e.kind for e in events}
    assert "side_effect" in kinds and "mutation_divergence" in kinds
    x = crosscheck([_finding("MSG202", seeded_line("augassign"), "augassign")], events, r.to_dict())
    assert x["agree"], x["disagreements"]
    assert x["findings"][0]["status"] == "confirmed"


def test_recompile_event_for_unchanged_shapes():
    r = report("scalar_arg")
    events = extract_events(out_json("scalar_arg"), r.to_dict(), r.source_path)
    rec = [e for e in events if e.kind == "recompile"]
    assert rec and rec[0].count == 2 and rec[0].line is None
    x = crosscheck([_finding("MSG304", seeded_line("scalar_arg"), "scalar_arg")], events, r.to_dict())
    assert x["agree"], x["disagreements"]


def test_shape_driven_compiles_are_not_events():
    out = {"ok": True, "input_shapes": [[2, 64, 256]], "shape_runs": [
        {"inputs": {"seq": 128}, "new_compiles": 1, "input_shapes": [[2, 128, 256]], "seconds": 1},
        {"inputs": {"seq": 64}, "new_compiles": 0, "input_shapes": [[2, 64, 256]], "seconds": 0}]}
    assert extract_events(out, None) == []


def test_fallback_confirms_msg4_at_line():
    r = report("asnumpy_roundtrip")
    line = seeded_line("asnumpy_roundtrip")
    events = extract_events(out_json("asnumpy_roundtrip"), r.to_dict(), r.source_path)
    fb = [e for e in events if e.kind == "fallback" and e.line == line]
    assert fb and fb[0].count >= 5
    # elementwise ops left unfused by the dynamic shape are folded into it, not separate events
    assert not any(e.kind == "unfused_elementwise" for e in events)
    x = crosscheck([_finding("MSG401", line, "asnumpy_roundtrip")], events, r.to_dict())
    statuses = {e["kind"]: e["status"] for e in x["events"] if e["line"] == line}
    assert statuses["fallback"] == "explained"
    assert x["findings"][0]["status"] == "confirmed"


def test_dynamic_set_inputs_event():
    r = report("dynamic_set_inputs")
    events = extract_events(out_json("dynamic_set_inputs"), r.to_dict(), r.source_path)
    assert [e.kind for e in events] == ["dynamic_shape"]
    assert "0 fused kernels" in events[0].detail
    x = crosscheck([_finding("MSG305", seeded_line("dynamic_set_inputs"), "dynamic_set_inputs")], events, r.to_dict(),
                   reached=reached("dynamic_set_inputs"))
    assert x["agree"]


def test_compile_error_mapped_to_a_finding_line_the_compiler_did_not_name():
    out = {"ok": False, "stage": "compile", "error_type": "ValueError",
           "error_first_line": "negative dimensions are not allowed",
           "error": "ValueError: negative dimensions are not allowed\n"
                    "# 1 In file /REPO/m.py:40, 8~30/        y = helper(h)/\n"
                    "# 2 In file /REPO/m.py:28, 4~30/    return np.zeros(n)/\n"}
    events = extract_events(out, None, "/REPO/m.py")
    # located at the innermost frame (# 2: the helper's statement), called from line 40
    assert [(e.kind, e.line, e.lines) for e in events] == [("compile_error", 28, [28])]
    assert "raised at m.py:28, called from m.py:40" in events[0].detail
    x = crosscheck([_finding("MSG401", 27, "/REPO/m.py")], events)  # one line before: slack
    assert x["agree"]


def test_findings_outside_the_compiled_code_are_not_compiled(clean):
    x = crosscheck([_finding("MSG101", 200, CLEAN_SRC)], [], clean.to_dict())  # make_inputs, not compiled
    assert x["findings"][0]["status"] == "not_compiled"
    assert x["agree"]


def test_unknown_family_is_not_checkable():
    x = crosscheck([_finding("MSG601", 10)], [], None)
    assert x["findings"][0]["status"] == "not_checkable" and x["agree"]


def test_evidence_table_is_consistent():
    for fam, entry in evidence.FAMILIES.items():
        for kind in entry["confirmed_by"]:
            assert kind in evidence.EVENT_KINDS, (fam, kind)
    for kind, entry in evidence.EVENT_KINDS.items():
        assert entry["families"], kind
        for fam in entry["families"]:
            assert re.fullmatch(r"MSG\d", fam)


def test_ir_data_is_small():
    total = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file())
    assert total < 2_400_000
    assert not any(os.path.basename(str(p)).endswith(".pb") for p in DATA.rglob("*"))


def test_host_sync_round_trip_is_one_event_at_all_its_lines():
    r = report("python_helper")
    line = seeded_line("python_helper")
    events = extract_events(out_json("python_helper"), r.to_dict(), r.source_path)
    hs = [e for e in events if e.kind == "host_sync"]
    assert len(hs) == 1 and hs[0].count == 3
    assert line in hs[0].lines and len(hs[0].lines) == 2  # the helper's float() and the call site
    x = crosscheck([_finding("MSG401", line, "python_helper")], events, r.to_dict())
    assert x["agree"], x["disagreements"]


def test_error_locations_multiline_statement_counts_def_does_not():
    text = (
        "RuntimeError: Unsupported statement 'Try'.\n"
        "- The Traceback of Net Construct Code:\n\n"
        "# In file /tmp/errmod.py:6~12, 4~16\n"
        "    def construct(self, x):\n"
        "    ^\n\n"
        "# In file /tmp/errmod.py:8~11, 8~21\n"
        "        try:\n\n"
    )
    assert error_locations(text, "/tmp/errmod.py") == [("/tmp/errmod.py", 8)]
    ir_style = "# 1 In file /REPO/a.py:10~14, 4~9/    def f(x):/\n# 2 In file /REPO/a.py:12, 8~9/        y = 1/\n"
    assert error_locations(ir_style, "/REPO/a.py") == [("/REPO/a.py", 12)]


# ----------------------------------------------------------------------------- issue 11
# IR saved from real MindSpore 2.10 compiles of fixtures/verify/ (see its README).

VERIFY_SRC = "/REPO/fixtures/verify"


def verify_report(name: str, src: str):
    return parse_ir_dir(str(DATA / name), f"{VERIFY_SRC}/{src}")


def vfinding(code, line, src):
    return _finding(code, line, f"{VERIFY_SRC}/{src}")


def by_kind(x, kind):
    return [e for e in x["events"] if e["kind"] == kind]


def test_switches_after_a_fallback_are_knock_on_effects():
    """.asnumpy() in the middle of an MLP: PyExecute at the line, then Switch nodes at the two
    later Dense calls (shape checks on the dynamic-shape tensors): caused by the fallback."""
    r = verify_report("fallback_mlp", "fallback_mlp.py")
    ir = r.to_dict()
    events = extract_events(out_json("fallback_mlp"), ir, r.source_path)
    assert sorted((e.kind, e.line) for e in events if e.kind == "control_flow") == [
        ("control_flow", 21), ("control_flow", 22)]
    x = crosscheck([vfinding("MSG401", 20, "fallback_mlp.py")], events, ir,
                   reached=reached("fallback_mlp", "FallbackMLP", "verify"))
    assert x["agree"], x["disagreements"]
    cf = by_kind(x, "control_flow")
    assert [e["status"] for e in cf] == ["knock_on", "knock_on"]
    assert all(e["caused_by"].startswith("fallback") and "line 20" in e["caused_by"] for e in cf), cf
    assert by_kind(x, "dynamic_shape")[0]["status"] == "explained"
    # without the finding, the fallback itself is the one disagreement; its knock-ons are not counted
    x = crosscheck([], events, ir, reached=reached("fallback_mlp", "FallbackMLP", "verify"))
    assert {d["kind"] for d in x["disagreements"]} == {"fallback"}
    assert [e["status"] for e in by_kind(x, "control_flow")] == ["knock_on", "knock_on"]


def test_knock_on_needs_an_earlier_cause():
    ev_switch = IREvent_("control_flow", 10)
    ev_fallback = IREvent_("fallback", 20)
    x = crosscheck([], [ev_switch, ev_fallback], None)
    assert by_kind(x, "control_flow")[0]["status"] == "unexplained"  # before the fallback: its own defect


def IREvent_(kind, line, path="/REPO/m.py"):
    from msgraphlint.verify.crosscheck import IREvent
    return IREvent(kind=kind, line=line, path=path, sites=[(path, line)])


def test_native_ops_the_rules_recommend_are_expected():
    """ops.print_ (Print, no line) and ops.assign on a Parameter (Assign at its line)."""
    r = verify_report("native_ops", "two_classes.py")
    ir = r.to_dict()
    events = extract_events(out_json("native_ops"), ir, r.source_path)
    # the validate stage locates the Assign at its statement (inplace_write); the kernel graph too
    assert sorted(((e.kind, e.line, tuple(e.ops)) for e in events), key=str) == [
        ("inplace_write", 48, ("Assign",)), ("side_effect", 48, ("Assign",)), ("side_effect", None, ("Print",))]
    x = crosscheck([], events, ir, reached=reached("two_classes", "NativeOpsMLP", "verify"))
    assert x["agree"], x["disagreements"]
    assert {e["status"] for e in x["events"]} == {"expected"}
    # the same ops where the compiled code calls no native op: the located in-place write and
    # the Print are unexplained; the kernel graph's Assign follows from the in-place write
    x = crosscheck([], events, ir, reached=reached("two_classes", "AugMLP", "verify"))
    assert sorted(d["kind"] for d in x["disagreements"]) == ["inplace_write", "side_effect"]
    assert [e["status"] for e in x["events"] if e["kind"] == "side_effect" and e["line"] == 48] == ["knock_on"]


def test_native_assign_counts_only_on_a_parameter():
    from msgraphlint.verify.reach import reach as reach_
    natives = reach_(str(ROOT / "fixtures" / "seeded" / "assign_nonparam.py"), "TransformerLayer").natives
    assert not any("Assign" in ops for ops in natives.values())  # ops.assign on an input tensor
    natives = reach_(str(ROOT / "fixtures" / "verify" / "two_classes.py"), "NativeOpsMLP").natives
    assert sorted(natives.values()) == [["Assign"], ["Print"]]


def test_event_in_an_imported_module_matches_the_finding_there():
    r = verify_report("multimodule", "multimodule/net.py")
    ir = r.to_dict()
    events = extract_events(out_json("multimodule"), ir, r.source_path)
    [cf] = [e for e in events if e.kind == "control_flow"]
    assert (cf.path, cf.line) == (f"{VERIFY_SRC}/multimodule/layers/blocks.py", 14)
    assert (f"{VERIFY_SRC}/multimodule/net.py", 17) in cf.sites  # the call that led there
    reach_net = reached("net", "Net", "verify/multimodule")
    assert {s.name for s in reach_net.spans} >= {"net.Net", "layers.blocks.GatedBlock"}
    assert "layers.blocks.UnusedBlock" not in {s.name for s in reach_net.spans}
    good = vfinding("MSG101", 14, "multimodule/layers/blocks.py")
    unused = vfinding("MSG201", 25, "multimodule/layers/blocks.py")
    same_line_other_file = vfinding("MSG101", 14, "multimodule/net.py")
    x = crosscheck([good, unused], events, ir, reached=reach_net)
    assert [f["status"] for f in x["findings"]] == ["confirmed", "not_compiled"]
    assert x["agree"]
    # lines are matched in their own file: the Switch in blocks.py:14 is no evidence for net.py:14
    x = crosscheck([same_line_other_file], events, ir, reached=reach_net)
    assert x["findings"][0]["status"] == "not_confirmed"
    assert [d["type"] for d in x["disagreements"]] == ["finding_not_confirmed", "event_unexplained"]


def test_unlocated_event_matches_only_a_predicting_rule_in_the_compiled_code():
    """The scalar-argument recompile (no line): a set_inputs finding (MSG305) outside the
    compiled code does not explain it, nor does a compiled finding whose rule predicts
    another kind; MSG304 (python-scalar-input) in the compiled code does, without a line."""
    r = report("scalar_arg")
    ir = r.to_dict()
    events = extract_events(out_json("scalar_arg"), ir, r.source_path)
    src = "/REPO/fixtures/seeded/scalar_arg.py"
    seeded = seeded_line("scalar_arg")
    from msgraphlint.verify.reach import Reach
    compiled_only_construct = Reach(spans=[Span(src, 120, 140, "TransformerLayer", "cell")])
    elsewhere = _finding("MSG305", 30, src)
    x = crosscheck([elsewhere], events, ir, reached=compiled_only_construct)
    assert x["findings"][0]["status"] == "not_compiled"
    assert [d["kind"] for d in x["disagreements"]] == ["recompile"]
    x = crosscheck([_finding("MSG301", seeded, src)], events, ir, reached=compiled_only_construct)
    assert x["findings"][0]["status"] == "not_confirmed" and not x["agree"]
    x = crosscheck([_finding("MSG304", seeded, src)], events, ir, reached=compiled_only_construct)
    assert x["findings"][0]["status"] == "confirmed" and x["findings"][0]["without_line"]
    assert by_kind(x, "recompile")[0]["without_line"] and x["agree"]


def test_default_level_compile_error_located_by_analyze_fail():
    """MindSpore's message ('int' object has no attribute '__len__') names no line;
    analyze_fail.ir's failing node is inside Dense, after the .asnumpy() statement (31)."""
    r = verify_report("nodtype", "compile_errors.py")
    ir = r.to_dict()
    out = out_json("nodtype")
    assert "In file" not in out["error"].split("Traceback")[0]
    events = extract_events(out, ir, r.source_path)
    [ce] = [e for e in events if e.kind == "compile_error"]
    assert ce.line == 31 and "analyze_fail.ir" in ce.detail
    assert [f"{VERIFY_SRC}/compile_errors.py", 29, 32] in ir["compiled_ranges"]  # NoDtype.construct
    reach_ = reached("compile_errors", "NoDtype", "verify")
    findings = [vfinding("MSG401", 31, "compile_errors.py"), vfinding("MSG401", 18, "compile_errors.py"),
                vfinding("MSG101", 30, "compile_errors.py")]
    x = crosscheck(findings, events, ir, reached=reach_, compile_ok=False, slack=0)
    # a finding the failure does not confirm was not reached: not a disagreement
    assert [f["status"] for f in x["findings"]] == ["confirmed", "not_compiled", "not_reached"]
    assert x["agree"], x["disagreements"]


def test_strict_compile_error_and_what_was_compiled_before_it():
    r = verify_report("strict_asnumpy", "compile_errors.py")
    ir = r.to_dict()
    assert ir["analyze_fail_sites"] == [[f"{VERIFY_SRC}/compile_errors.py", 18]]
    assert ir["compiled_ranges"] == [[f"{VERIFY_SRC}/compile_errors.py", 16, 19]]
    events = extract_events(out_json("strict_asnumpy"), ir, r.source_path)
    assert [(e.kind, e.line) for e in events] == [("compile_error", 18)]


def test_host_sync_under_set_inputs_is_a_knock_on_of_the_dynamic_shape():
    """`h * (x.shape[0] / 4)`: folded with static shapes; with set_inputs declaring the batch
    dynamic, ScalarDiv/ScalarToTensor run on the host at that line. Only the dynamic shape
    is a claim to judge (MSG305's, at the set_inputs call); the host sync follows from it."""
    r = verify_report("set_inputs_host_sync", "scalar_and_set_inputs.py")
    ir = r.to_dict()
    events = extract_events(out_json("set_inputs_host_sync"), ir, r.source_path)
    assert sorted((e.kind, e.line) for e in events if e.line is not None) == [("host_sync", 31)]
    assert {e.kind for e in events} == {"host_sync", "dynamic_shape"}
    reach_ = reached("scalar_and_set_inputs", "DynMLP", "verify")
    x = crosscheck([vfinding("MSG305", 27, "scalar_and_set_inputs.py")], events, ir, reached=reach_)
    assert x["agree"], x["disagreements"]
    [hs] = by_kind(x, "host_sync")
    assert hs["status"] == "knock_on" and hs["caused_by"].startswith("dynamic_shape")
    assert by_kind(x, "dynamic_shape")[0]["status"] == "explained"
    # no set_inputs finding: the dynamic shape is the one disagreement, not the host sync
    x = crosscheck([], events, ir, reached=reach_)
    assert [d["kind"] for d in x["disagreements"]] == ["dynamic_shape"]

"""``msgraphlint verify`` through click's CliRunner, with the compile replaced by IR saved
from real compiles (no MindSpore needed): output formats, exit codes, the cache, the
fusion-happened check, option parsing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from msgraphlint.verify import command
from msgraphlint.verify.ir import parse_ir_dir

DATA = Path(__file__).parent / "data" / "ir"
ROOT = Path(__file__).resolve().parent.parent


def _fake_run_compile(ir_name, out_overrides=None, calls=None):
    def run(spec, timeout, keep_ir):
        if calls is not None:
            calls.append(spec)
        out = json.loads((DATA / ir_name / "out.json").read_text()) if (DATA / ir_name / "out.json").exists() \
            else {"ok": True, "n_compiles": 1, "compile_seconds": 1.0, "call_seconds": 0.01,
                  "pynative_equal": True, "inputs_mutated": {"graph": False, "pynative": False},
                  "target_kind": "cell", "mindspore_version": "2.10.0", "input_shapes": [[2, 64, 256]]}
        out.update(out_overrides or {})
        rep = parse_ir_dir(str(DATA / ir_name), spec["file"]).to_dict()
        return out, rep
    return run


@pytest.fixture
def fake(monkeypatch, tmp_path):
    calls = []

    def use(ir_name, **over):
        monkeypatch.setattr(command, "run_compile", _fake_run_compile(ir_name, over, calls))
        return calls
    monkeypatch.setattr(command, "_mindspore_version", lambda *a: "2.10.0")
    return use


def _copy_fixture(tmp_path, name, ir_name):
    """A copy of a seeded fixture at a path the saved IR names (frames say /REPO/...)."""
    return str(ROOT / "fixtures" / "seeded" / f"{name}.py")


def invoke(args, tmp_path):
    return CliRunner().invoke(command.verify_command, list(args) + ["--cache-dir", str(tmp_path / "c")])


def test_default_target_is_the_reference_layer(fake, tmp_path, monkeypatch):
    calls = fake("clean_layer")
    monkeypatch.setattr(command, "_static_findings", lambda *a, **k: [])
    r = invoke([], tmp_path)
    assert r.exit_code == 0, r.output
    # the installed msgraphlint_reference package (or the checkout's reference_model/ in an editable install)
    used = Path(calls[0]["file"])
    assert used.name == "gpt_layer.py"
    assert used.read_bytes() == (ROOT / "reference_model" / "gpt_layer.py").read_bytes()
    assert calls[0]["target"] == "TransformerLayer"
    assert "Fusion: 9 fused kernels (24 ops), 13 ops unfused, 1 kernel graph(s)" in r.output
    assert "Disagreements: none" in r.output


def test_train_default_target(fake, tmp_path, monkeypatch):
    calls = fake("clean_layer")
    monkeypatch.setattr(command, "_static_findings", lambda *a, **k: [])
    r = invoke(["--train", "--format", "json"], tmp_path)
    assert r.exit_code == 0, r.output
    assert calls[0]["target"] == "GPTLayerWithLoss" and calls[0]["train"] is True
    assert json.loads(r.output)["mode"] == "train"


def test_json_and_cache(fake, tmp_path, monkeypatch):
    calls = fake("clean_layer")
    monkeypatch.setattr(command, "_static_findings", lambda *a, **k: [])
    first = json.loads(invoke(["--format", "json"], tmp_path).output)
    second = json.loads(invoke(["--format", "json"], tmp_path).output)
    assert len(calls) == 1  # the second run came from the cache
    assert first["cached"] is False and second["cached"] is True
    assert first["cache_key"] == second["cache_key"]
    assert first["ir"]["summary"] == second["ir"]["summary"]
    invoke(["--format", "json", "--no-cache"], tmp_path)
    assert len(calls) == 2
    # a different input spec is a different key
    third = json.loads(invoke(["--format", "json", "--inputs", "2x32x256:float32,1x1x32x32:bool"], tmp_path).output)
    assert third["cached"] is False and len(calls) == 3
    assert calls[-1]["inputs"] == ["2x32x256:float32", "1x1x32x32:bool"]


def test_cache_key_follows_the_source(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")
    spec = {"file": str(src), "target": "Net", "inputs": None}
    k1 = command.cache_key(spec, "2.10.0")
    assert k1 == command.cache_key(spec, "2.10.0")
    assert k1 != command.cache_key(spec, "2.9.0")
    src.write_text("x = 2\n")
    assert k1 != command.cache_key(spec, "2.10.0")


def test_disagreement_exits_1(fake, tmp_path, monkeypatch):
    fake("tensor_if")
    monkeypatch.setattr(command, "_static_findings", lambda *a, **k: [])
    target = str(ROOT / "fixtures" / "seeded" / "tensor_if.py") + "::TransformerLayer"
    r = invoke([target], tmp_path)
    assert r.exit_code == 1, r.output
    assert "control_flow" in r.output and "no static finding explains it" in r.output


def test_fusion_not_happening_fails_loudly(fake, tmp_path, monkeypatch, tmp_path_factory):
    # the clean layer's IR with every fused kernel removed: what a broken AKG gives
    broken = tmp_path_factory.mktemp("broken")
    for f in (DATA / "clean_layer").glob("*.ir"):
        shutil.copy(f, broken / f.name)
    gb = next(broken.glob("graph_build_*.ir"))
    gb.write_text(gb.read_text().replace("info_name: Fused_", "info_name_removed: Fused_"))

    def run(spec, timeout, keep_ir):
        rep = parse_ir_dir(str(broken), spec["file"]).to_dict()
        # the unfused list must contain fusible ops for the check to fire
        rep["unfused"].append({"op": "Add", "line": 156, "scope": "Default/Add-op0", "stage": "graph_build",
                               "graph_id": 0, "path": None})
        return {"ok": True, "n_compiles": 1, "target_kind": "cell"}, rep
    monkeypatch.setattr(command, "run_compile", run)
    monkeypatch.setattr(command, "_mindspore_version", lambda *a: "2.10.0")
    monkeypatch.setattr(command, "_static_findings", lambda *a, **k: [])
    r = invoke(["--no-cache"], tmp_path)
    assert r.exit_code == 2, r.output
    assert "fusion did not happen" in r.output


def test_infra_failure_exits_2(monkeypatch, tmp_path):
    monkeypatch.setattr(command, "run_compile", lambda spec, timeout, keep: (
        {"ok": False, "error_type": "MindSporeMissing", "error_first_line": "MindSpore is not importable"}, None))
    monkeypatch.setattr(command, "_mindspore_version", lambda *a: "absent")
    monkeypatch.setattr(command, "_static_findings", lambda *a, **k: [])
    r = invoke([], tmp_path)
    assert r.exit_code == 2
    assert "MindSpore is not importable" in r.output


def test_bad_target_is_a_usage_error(tmp_path):
    r = invoke(["no/such/file.py::Net"], tmp_path)
    assert r.exit_code == 2
    r = invoke([str(ROOT / "reference_model" / "gpt_layer.py")], tmp_path)
    assert r.exit_code == 2 and "::ClassName" in r.output


def test_parse_shapes_and_spec_building():
    assert command.parse_shapes(["seq=64,128,96"]) == {"seq": ["64", "128", "96"]}
    with pytest.raises(command.VerifyError):
        command.parse_shapes(["seq"])
    with pytest.raises(command.VerifyError):
        command.parse_shapes(["a=1,2", "b=1"])
    spec = command.build_spec("m.py", "Net", ["2xSEQx256:float32", "1x1xSEQxSEQ:bool"],
                              {"SEQ": ["64", "128"]}, False, False, True, True)
    assert spec["inputs"] == ["2x64x256:float32", "1x1x64x64:bool"]
    assert spec["shapes"] == [["2x128x256:float32", "1x1x128x128:bool"]]
    spec = command.build_spec("m.py", "Net", [], {"seq": ["64", "128", "96"]}, True, True, True, False)
    assert spec["inputs"] is None and spec["make_inputs_kwargs"] == {"seq": 64}
    assert spec["shapes"] == [{"seq": 128}, {"seq": 96}]
    assert spec["syntax_level"] == "strict" and spec["train"] is True


def test_child_input_spec_grammar():
    from msgraphlint.verify._child import parse_input_spec

    assert parse_input_spec("2x64x256:float32") == ("tensor", [2, 64, 256], "float32")
    assert parse_input_spec("2x?x256:f16") == ("tensor", [2, None, 256], "float16")
    assert parse_input_spec("1x1x64x64:bool") == ("tensor", [1, 1, 64, 64], "bool")
    assert parse_input_spec("scalar:int32") == ("tensor", [], "int32")
    assert parse_input_spec("py:0.5") == ("py", 0.5, None)
    with pytest.raises(ValueError):
        parse_input_spec("2x3:complex7")


# ----------------------------------------------------------------------------- issue 11


def test_py_name_keeps_its_kind_and_names_may_contain_x():
    spec = command.build_spec("m.py", "Net", ["4xmax_lenx32:float32", "py:SCALE"],
                              {"max_len": ["8", "16"], "SCALE": ["1.0", "2"]}, False, False, True, True)
    assert spec["inputs"] == ["4x8x32:float32", "py:1.0"]
    assert spec["shapes"] == [["4x16x32:float32", "py:2"]]
    from msgraphlint.verify.inputs import parse_input_spec
    assert parse_input_spec(spec["inputs"][1]) == ("py", 1.0, None)      # a float, parsed
    assert parse_input_spec(spec["shapes"][0][1]) == ("py", 2, None)     # an int stays a Python scalar
    # a name that is a prefix of another, and one ending in x
    spec = command.build_spec("m.py", "Net", ["SEQxSEQ2x4:float32", "py:idx"],
                              {"SEQ": ["2", "3"], "SEQ2": ["5", "6"], "idx": ["0", "1"]}, False, False, True, True)
    assert spec["inputs"] == ["2x5x4:float32", "py:0"]


@pytest.mark.parametrize("inputs, shapes, message", [
    (["4xSEQ:float32"], ["seq=1,2"], "'seq' is used by no --inputs spec"),
    (["4x32:float32"], ["SCALE=1.0,0.5"], "'SCALE' is used by no --inputs spec"),
    (["4xfoo:float32"], [], "'foo' is not a dim"),
    (["4x32:complex7"], [], "unknown dtype"),
    (["py:not a literal("], [], "py: takes a Python literal"),
    (["4x?:float32"], [], "dynamic dim"),
    (["4x32:float32"], ["1bad=1,2"], "is not a name"),
    (["4x32:float32"], ["seq"], "expected NAME=V1,V2"),
])
def test_malformed_inputs_and_shapes_are_usage_errors(tmp_path, inputs, shapes, message):
    src = ROOT / "fixtures" / "verify" / "two_classes.py"
    args = [f"{src}::AugMLP"] + [f"--inputs={i}" for i in inputs] + [f"--shapes={s}" for s in shapes]
    r = invoke(args, tmp_path)
    assert r.exit_code == 2, r.output
    assert message in r.output, r.output
    assert not (tmp_path / "c").exists()  # nothing compiled, nothing cached


def test_static_usage_errors(tmp_path):
    verify_dir = ROOT / "fixtures" / "verify"
    r = invoke([f"{verify_dir / 'two_classes.py'}::NoSuchClass"], tmp_path)
    assert r.exit_code == 2 and "defines no 'NoSuchClass'" in r.output and "AugMLP" in r.output, r.output
    r = invoke([f"{verify_dir / 'usage' / 'no_make_inputs.py'}::Net"], tmp_path)
    assert r.exit_code == 2 and "has no make_inputs()" in r.output and "--inputs" in r.output, r.output
    bad = tmp_path / "broken.py"
    bad.write_text("class Net:\n    def construct(self, x)\n        return x\n")
    r = invoke([f"{bad}::Net"], tmp_path)
    assert r.exit_code == 2 and "cannot parse" in r.output, r.output
    r = invoke([f"{verify_dir / 'scalar_and_set_inputs.py'}::ScaledMLP", "--shapes", "scael=1.0,0.5"], tmp_path)
    assert r.exit_code == 2 and "'scael' is not a keyword of make_inputs()" in r.output, r.output
    assert not (tmp_path / "c").exists()


def test_child_usage_errors_exit_2_and_are_not_cached(monkeypatch, tmp_path):
    calls = []

    def run(spec, timeout, keep):
        calls.append(spec)
        return ({"ok": False, "stage": "build", "error_type": "TypeError",
                 "error_first_line": "__init__() missing 1 required positional argument: 'width'",
                 "usage_error": "constructing the target failed: TypeError: __init__() missing 1 required "
                                "positional argument: 'width'"}, None)
    monkeypatch.setattr(command, "run_compile", run)
    monkeypatch.setattr(command, "_mindspore_version", lambda *a: "2.10.0")
    target = f"{ROOT / 'fixtures' / 'verify' / 'usage' / 'ctor_args.py'}::Net"
    for _ in range(2):
        r = invoke([target], tmp_path)
        assert r.exit_code == 2, r.output
        assert "constructing the target failed" in r.output and "'width'" in r.output
    assert len(calls) == 2  # never answered from the cache
    assert not list((tmp_path / "c" / "verify").rglob("*.json"))  # (check's own result cache may hold the static side)


def test_cache_entry_covers_imported_modules_transitively(tmp_path):
    """The key is the target's own file and options; what else the compile executed is the
    entry's manifest: an edit to a module it imports (however deep) invalidates it, an
    edit to an unrelated module does not."""
    pkg = tmp_path / "proj"
    (pkg / "layers" / "deep").mkdir(parents=True)
    (pkg / "layers" / "__init__.py").write_text("")
    (pkg / "layers" / "deep" / "__init__.py").write_text("")
    (pkg / "layers" / "blocks.py").write_text("from layers.deep.ops import helper\n")
    (pkg / "layers" / "deep" / "ops.py").write_text("def helper(x):\n    return x\n")
    (pkg / "unrelated.py").write_text("X = 1\n")
    net = pkg / "net.py"
    net.write_text("from layers.blocks import helper\n\nclass Net:\n    pass\n")
    from msgraphlint.verify.reach import import_closure
    closure = import_closure(str(net))
    assert str(pkg / "layers" / "deep" / "ops.py") in closure
    assert str(pkg / "layers" / "blocks.py") in closure
    assert str(pkg / "unrelated.py") not in closure
    spec = {"file": str(net), "target": "Net", "inputs": None}
    k1 = command.cache_key(spec, "2.10.0")
    assert command.cache_key(spec, "2.10.0") == k1
    entries = command.manifest(closure)
    assert command.manifest_valid(entries)
    (pkg / "unrelated.py").write_text("X = 2\n")
    assert command.manifest_valid(entries) and command.cache_key(spec, "2.10.0") == k1
    (pkg / "layers" / "deep" / "ops.py").write_text("def helper(x):\n    return x + 1\n")
    assert not command.manifest_valid(entries)


def test_cache_lives_outside_the_tree(monkeypatch, tmp_path):
    monkeypatch.delenv("MSGRAPHLINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    assert command.default_cache_dir() == str(tmp_path / "xdg" / "msgraphlint")
    assert ".msgraphlint_cache" not in command.default_cache_dir()


def test_dynamic_cost_skipped_with_reason():
    out = {"ok": True, "target_kind": "cell", "input_shapes": [[4, 32], "1.0"],
           "shape_runs": [{"input_shapes": [[4, 32], "0.5"]}]}
    assert "only Python scalar" in command._dynamic_cost_skip({}, out, {"SCALE": ["1.0", "0.5"]})
    assert "--train" in command._dynamic_cost_skip({"train": True}, out, {})
    out["shape_runs"] = [{"input_shapes": [[8, 32], "1.0"]}]
    assert command._dynamic_cost_skip({}, out, {"B": ["4", "8"]}) is None


def test_reach_follows_cells_helpers_and_bases_across_modules(tmp_path):
    """What a target compiles: its class, project base classes, Cells it constructs (also
    inside SequentialCell), helpers it calls, in other modules; not unrelated classes."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "base.py").write_text(
        "from mindspore import nn\n\nclass Base(nn.Cell):\n    def scale(self, x):\n        return x * 2\n")
    (tmp_path / "pkg" / "ops_util.py").write_text(
        "def double(x):\n    return x + x\n\n\ndef unused(x):\n    return x\n")
    (tmp_path / "pkg" / "blocks.py").write_text(
        "from mindspore import nn\nfrom pkg.ops_util import double\n\n"
        "class Block(nn.Cell):\n    def construct(self, x):\n        return double(x)\n\n"
        "class Other(nn.Cell):\n    def construct(self, x):\n        return x\n")
    (tmp_path / "model.py").write_text(
        "import mindspore as ms\nfrom mindspore import nn\nfrom pkg.base import Base\nfrom pkg.blocks import Block\n\n"
        "class Net(Base):\n    def __init__(self):\n        super().__init__()\n"
        "        self.layers = nn.SequentialCell([Block(), Block()])\n\n"
        "    def construct(self, x):\n        return self.scale(self.layers(x))\n\n\n"
        "@ms.jit\ndef step(x):\n    return Block()(x)\n")
    from msgraphlint.verify.reach import reach
    names = {s.name: s.kind for s in reach(str(tmp_path / "model.py"), "Net").spans}
    assert names == {"model.Net": "cell", "pkg.base.Base": "cell", "pkg.blocks.Block": "cell",
                     "pkg.ops_util.double": "function"}
    names = {s.name for s in reach(str(tmp_path / "model.py"), "step").spans}
    assert names == {"model.step", "pkg.blocks.Block", "pkg.ops_util.double"}


def test_a_cache_folder_verify_creates_is_marked_and_clean_removes_it(fake, tmp_path, monkeypatch):
    """`verify` run first creates the result cache folder: it carries msgraphlint's marker,
    so `msgraphlint clean` removes it instead of refusing an unmarked folder."""
    from msgraphlint.cli import cli

    fake("clean_layer")
    monkeypatch.setattr(command, "_static_findings", lambda *a, **k: [])
    r = invoke([], tmp_path)
    assert r.exit_code == 0, r.output
    cache = tmp_path / "c"
    assert (cache / "verify").is_dir()
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["clean", "--cache-dir", str(cache)])
    assert r.exit_code == 0, r.output
    assert not cache.exists()

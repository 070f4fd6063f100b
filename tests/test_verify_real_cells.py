"""``msgraphlint verify`` on reductions of real Cells (issue 24; fixtures/verify/issue24/):
verdicts follow what was compiled and what the device can do, evidence lands at the failing
line, the cache hits across processes of an installed (non-editable) package, and the
compile child sees only its own interpreter's path.

The MindSpore tests compile each reduction once per session (small Dense layers, a few
seconds each); the expected values come from compiles of these files with MindSpore 2.10.0
on CPU (device_facts.json; the IR read by hand). The usage-error tests need no MindSpore.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner

from msgraphlint.verify import command
from msgraphlint.verify.crosscheck import crosscheck, extract_events
from msgraphlint.verify.ir import parse_ir_dir

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "fixtures" / "verify" / "issue24"
DATA = Path(__file__).parent / "data" / "ir"
_RESULTS: dict = {}


def line_of(name: str, text: str) -> int:
    lines = (CASES / name).read_text().splitlines()
    hits = [i + 1 for i, ln in enumerate(lines) if text in ln]
    assert len(hits) == 1, (name, text, hits)
    return hits[0]


@pytest.fixture(scope="session")
def verify_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("verify-real-cells"))


@pytest.fixture(scope="session")
def run(verify_cache):
    def go(target, **kw):
        key = (target, tuple(sorted(kw.items())))
        if key not in _RESULTS:
            _RESULTS[key] = command.verify(str(CASES / target), cache_dir=verify_cache, timeout=600, **kw)
        return _RESULTS[key]
    return go


def rows(result, code=None):
    return [f for f in result["crosscheck"]["findings"] if code is None or f["code"] == code]


def events(result, kind=None):
    return [e for e in result["crosscheck"]["events"] if kind is None or e["kind"] == kind]


# ----------------------------------------------------------------------------- MindSpore tier


@pytest.mark.mindspore
def test_findings_in_a_folded_config_branch_are_not_compiled(run):
    """`if self.loss_type == "bco_pair":` under loss_type="sigmoid": the compiler folds the
    branch away (no op of the frontend graph has a frame in it, no Switch at the if); its
    tensor if and print were never compiled, so they are no disagreement."""
    r = run("folded_branch.py::PreferenceLoss")
    assert r["compile"]["ok"], r["compile"]["error"]
    assert {(f["code"], f["line"], f["status"]) for f in rows(r)} == {
        ("MSG101", line_of("folded_branch.py", "if margin.mean() > 0:"), "not_compiled"),
        ("MSG201", line_of("folded_branch.py", 'print("bco margin", margin)'), "not_compiled")}
    assert r["crosscheck"]["disagreements"] == [] and r["exit_code"] == 0
    path = str(CASES / "folded_branch.py")
    bco = line_of("folded_branch.py", 'if self.loss_type == "bco_pair":')
    hinge = line_of("folded_branch.py", "loss = ops.relu(1.0 - self.beta * margin)")
    assert [path, bco + 1, bco + 4] in r["folded"]      # the bco_pair body
    assert [path, hinge, hinge] in r["folded"]          # the hinge elif's body
    assert "Folded away by the compiler (not compiled)" in command.render_text(r)


@pytest.mark.mindspore
def test_a_layer_of_ops_that_never_fuse_on_cpu_is_clean(run):
    """SiLU (expanded to Sigmoid), Sigmoid, Div and Erf stay unfused on CPU with 2.10
    (measured): no unfused-elementwise event, exit 0."""
    r = run("activations.py::GatedFeedForward")
    assert r["compile"]["ok"], r["compile"]["error"]
    unfused = {e["op"] for e in r["ir"]["unfused"]}
    assert {"Sigmoid", "Div", "Erf"} <= unfused
    assert r["ir"]["summary"]["fused_kernels"] >= 1 and r["fusion_ok"]
    assert events(r) == [] and r["exit_code"] == 0
    assert r["device_facts"]["source"] == "measured" and r["device_facts"]["facts_version"] == "2.10"


@pytest.mark.mindspore
def test_an_op_without_a_cpu_kernel_exits_2_naming_it(run, verify_cache):
    r = run("no_kernel.py::SortedScores")
    # the headline is MindSpore's message, not the ruler above it
    assert r["compile"]["error_first_line"].startswith("Unsupported op [SortExt] on CPU")
    assert r["exit_code"] == 2
    assert r["not_the_code"]["kind"] == "no_kernel"
    head = r["errors"][0]
    assert head.startswith("SortExt has no CPU kernel in MindSpore 2.10.0")
    assert f"no_kernel.py:{line_of('no_kernel.py', 'mint.sort(')}" in head and "--device" in head
    assert "mint.sort makes SortExt" in head
    assert r["crosscheck"]["disagreements"] == []
    text = command.render_text(r)
    assert "ERROR: SortExt has no CPU kernel" in text and "-----" not in text
    assert not r["cached"]
    again = command.verify(str(CASES / "no_kernel.py") + "::SortedScores", cache_dir=verify_cache, timeout=600)
    assert again["cached"] is False and again["exit_code"] == 2  # never cached as a verdict


@pytest.mark.mindspore
def test_kernel_compiler_crash_exits_2_and_is_not_cached(run, verify_cache):
    r = run("lora_fp16.py::LoRADense")
    assert r["exit_code"] == 2 and r["not_the_code"]["kind"] == "toolchain", r["errors"]
    assert "AKG" in r["errors"][0] and "Response is empty." in r["errors"][0] and "--no-fusion" in r["errors"][0]
    key = r["cache_key"]
    assert not os.path.exists(os.path.join(verify_cache, "verify", key + ".json"))


@pytest.mark.mindspore
def test_inplace_findings_are_settled_by_the_located_op(run):
    """`x += y` compiles to InplaceAddExt at its line (validate stage); `mask &= keep` to a
    plain BitwiseAnd: the line-less Assign and the input mutation of the first confirm
    nothing about the second."""
    r = run("inplace.py::Accumulate")
    plus, band = line_of("inplace.py", "        x += y"), line_of("inplace.py", "        mask &= keep")
    by_line = {f["line"]: f for f in rows(r, "MSG202")}
    assert by_line[plus]["status"] == "confirmed"
    assert by_line[plus]["evidence"] == [f"inplace_write (InplaceAddExt) at line {plus}"]
    assert by_line[band]["status"] == "not_confirmed" and by_line[band]["evidence"] == []
    assert [(e["kind"], e["line"], e["ops"]) for e in events(r, "inplace_write")] == [
        ("inplace_write", plus, ["InplaceAddExt"])]
    assert r["exit_code"] == 1


@pytest.mark.mindspore
def test_a_compile_error_in_a_sub_cell_does_not_confirm_the_callers_if(run):
    """ops.softmax(h, dim=-1) fails inside Scores.construct; MindSpore's construct traceback
    lists the driver's call first. The error is located at the failing statement and
    confirms nothing in the driver: its tensor if (one line above the call) was not reached."""
    r = run("subcell_error.py::Driver")
    assert not r["compile"]["ok"]
    fail = line_of("subcell_error.py", "p = ops.softmax(h, dim=-1)")
    call = line_of("subcell_error.py", "return self.scores(x)")
    [ce] = events(r, "compile_error")
    assert (ce["path"], ce["line"]) == (str(CASES / "subcell_error.py"), fail)
    assert f"raised at subcell_error.py:{fail}, called from subcell_error.py:{call}" in ce["detail"]
    [if_row] = rows(r, "MSG101")
    assert if_row["line"] == line_of("subcell_error.py", "if x.sum() > 0:")
    assert if_row["status"] == "not_reached" and if_row["evidence"] == []


@pytest.mark.mindspore
def test_a_wrapper_drivers_fused_kernels_carry_the_models_lines(run):
    r = run("wrapper/driver.py::Driver")
    assert r["compile"]["ok"], r["compile"]["error"]
    model = str(CASES / "wrapper" / "model.py")
    fused = r["ir"]["fused"]
    body = {line_of("wrapper/model.py", t) for t in ("h = self.fc(x)", "g = h * 0.5 + 1.0", "return ops.tanh(g) * h")}
    assert fused and {ln for k in fused for ln in k["lines"]} == body  # not the driver's call line
    assert all(k["sites"] for k in fused)
    assert {p for k in fused for p, _ in k["sites"]} == {model}
    assert {ln for k in fused for _, ln in k["sites"]} == body
    text = command.render_text(r)
    assert "model.py:" in text
    # the headline names the MindSpore version and the interpreter that compiled
    assert f"MindSpore 2.10.0 ({r['python']})" in text and os.path.isfile(r["python"])


@pytest.mark.mindspore
def test_wrong_number_of_inputs_is_a_usage_error(tmp_path):
    with pytest.raises(command.VerifyError) as err:
        command.verify(str(CASES / "inplace.py") + "::Accumulate", inputs=["4x32:float32"],
                       cache_dir=str(tmp_path / "c"), timeout=600)
    assert err.value.exit_code == 2
    assert "the inputs do not match the target" in str(err.value) and "takes 4 input(s), 1 given" in str(err.value)


# ----------------------------------------------------------------------------- installed package


def _site_packages(prefix: Path) -> Path:
    return prefix / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """msgraphlint installed non-editable (pip install --no-deps) into a fresh venv whose
    site-packages also hold this environment's packages (MindSpore, click...), linked."""
    base = Path(tmp_path_factory.mktemp("installed"))
    src = base / "src"
    for part in ("msgraphlint", "rules", "reference_model"):
        shutil.copytree(ROOT / part, src / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, src / part)
    venv = base / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)],
                   check=True)
    site = _site_packages(venv)
    mine = Path(sysconfig.get_paths()["purelib"])
    for entry in mine.iterdir():
        if entry.name.startswith(("msgraphlint", "__editable__", "_msgraphlint")) or entry.suffix == ".pth":
            continue
        (site / entry.name).symlink_to(entry)
    python = venv / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                           "--no-cache-dir", str(src)], capture_output=True, text=True, cwd=str(base))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (site / "msgraphlint" / "verify" / "command.py").is_file()
    assert not (site / "msgraphlint" / "verify" / "command.py").is_symlink()
    return {"python": str(python), "site": site, "base": base}


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MSGRAPHLINT_MINDSPORE_PYTHON")}
    env.update(extra)
    return env


def _verify_installed(installed, args, **env):
    proc = subprocess.run([installed["python"], "-m", "msgraphlint", "verify", *args, "--format", "json"],
                          capture_output=True, text=True, cwd=str(installed["base"]), env=_env(**env), timeout=900)
    return proc, json.loads(proc.stdout)


@pytest.mark.mindspore
@pytest.mark.slow
def test_two_verify_processes_of_the_installed_package_the_second_is_cached(installed):
    """The default target (the installed reference layer) in two processes with different
    hash seeds: the key is the same and the second answers from the cache."""
    cache = str(installed["base"] / "cache")
    p1, first = _verify_installed(installed, ["--cache-dir", cache], PYTHONHASHSEED="1")
    assert p1.returncode == 0, (first.get("errors"), p1.stderr[-2000:])
    assert first["cached"] is False and first["file"].startswith(str(installed["site"]))
    p2, second = _verify_installed(installed, ["--cache-dir", cache], PYTHONHASHSEED="2")
    assert p2.returncode == 0
    assert second["cached"] is True and second["cache_key"] == first["cache_key"]
    assert second["seconds"] < 0.1 * first["seconds"]
    # the measured device facts travel with the package
    assert (installed["site"] / "msgraphlint" / "verify" / "device_facts.json").is_file()
    assert first["device_facts"]["source"] == "measured"


@pytest.mark.mindspore
@pytest.mark.slow
def test_the_compile_child_sees_its_own_interpreters_path_only(installed, tmp_path):
    """An interpreter without MindSpore compiles nothing with the MindSpore of msgraphlint's
    environment (whose site-packages hold both): exit 2 naming it, by --python or by
    $MSGRAPHLINT_MINDSPORE_PYTHON. With MindSpore, the child's sys.path is the interpreter's
    own plus the child's folder."""
    bare = tmp_path / "bare"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(bare)],
                   check=True)
    bare_python = str(bare / "bin" / "python")
    assert subprocess.run([bare_python, "-c", "import mindspore"], capture_output=True).returncode != 0
    for args, env in (([], {"MSGRAPHLINT_MINDSPORE_PYTHON": bare_python}), (["--python", bare_python], {})):
        proc, data = _verify_installed(installed, args + ["--no-cache"], **env)
        assert proc.returncode == 2, (args, data)
        assert f"MindSpore is not importable by {bare_python}" in data["errors"][0], data["errors"]
    proc, data = _verify_installed(installed, ["--no-cache", "--no-pynative"])
    assert proc.returncode == 0, data.get("errors")
    child_path = data["compile"]["child_sys_path"]
    own = json.loads(subprocess.run([installed["python"], "-c", "import sys, json; print(json.dumps(sys.path))"],
                                    capture_output=True, text=True, env=_env(), cwd=str(installed["base"])).stdout)
    assert child_path[1:] == own[1:]       # [0]: the script's folder, the child's copy
    assert os.path.basename(child_path[0]) == "child"
    assert data["python"] == installed["python"]


# ----------------------------------------------------------------------------- usage errors, no MindSpore


def invoke(args, tmp_path):
    return CliRunner().invoke(command.verify_command, list(args) + ["--cache-dir", str(tmp_path / "c")])


def test_usage_errors_print_json_on_stdout_with_format_json(tmp_path):
    src = ROOT / "fixtures" / "verify" / "two_classes.py"
    for args in ([f"{src}::AugMLP", "--inputs", "4x32:complex7"], [f"{src}::NoSuchClass"], ["--bogus-option"],
                 [f"{src}::AugMLP", "--device", "TPU"]):
        r = CliRunner().invoke(command.verify_command, args + ["--format", "json", "--cache-dir", str(tmp_path / "c")])
        assert r.exit_code == 2, (args, r.output)
        data = json.loads(r.stdout)
        assert data["exit_code"] == 2 and data["errors"], args


def test_a_directory_target_gets_a_clear_message(tmp_path):
    folder = ROOT / "fixtures" / "verify" / "issue24"
    r = invoke([str(folder)], tmp_path)
    assert r.exit_code == 2
    assert "is a directory" in r.output and "::ClassName" in r.output and "folded_branch.py" in r.output
    assert "no such file" not in r.output


def test_findings_in_a_class_never_compiled_are_not_compiled_whatever_their_family():
    """UnusedBlock (multimodule/layers/blocks.py) is never constructed: an API-migration
    finding there (MSG5, no graph effect to check) is not_compiled, not not_checkable."""
    from msgraphlint.verify.reach import Span, reach

    src = "/REPO/fixtures/verify/multimodule"
    r = parse_ir_dir(str(DATA / "multimodule"), f"{src}/net.py")
    ir = r.to_dict()
    evs = extract_events(json.loads((DATA / "multimodule" / "out.json").read_text()), ir, r.source_path)
    real = reach(str(ROOT / "fixtures" / "verify" / "multimodule" / "net.py"), "Net")
    real.spans = [Span(s.path.replace(str(ROOT), "/REPO"), s.start, s.end, s.name, s.kind) for s in real.spans]
    if hasattr(real, "inits"):
        real.inits = [Span(s.path.replace(str(ROOT), "/REPO"), s.start, s.end, s.name, s.kind) for s in real.inits]

    class F:
        code, name, line, end_line, message = "MSG501", "deprecated-api", 24, 24, "an API MindSpore deprecates"
        path = f"{src}/layers/blocks.py"

    x = crosscheck([F()], evs, ir, reached=real)
    assert x["findings"][0]["status"] == "not_compiled"


@pytest.mark.slow
def test_the_import_closure_is_the_same_in_every_process(installed):
    """Sorted iteration: three processes with three hash seeds, one closure of the installed
    reference layer, whose site-packages root holds hundreds of modules (the 200-module
    budget used to cut a closure that depended on set order)."""
    target = str(installed["site"] / "msgraphlint_reference" / "gpt_layer.py")
    probe = ("import json, sys; from msgraphlint.verify.reach import import_closure; "
             "print(json.dumps(import_closure(sys.argv[1])))")
    got = {subprocess.run([installed["python"], "-c", probe, target], capture_output=True, text=True,
                          cwd=str(installed["base"]), env=_env(PYTHONHASHSEED=str(seed))).stdout
           for seed in (1, 2, 3)}
    assert len(got) == 1 and json.loads(got.pop())

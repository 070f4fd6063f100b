"""``msgraphlint doctor``.

What this machine lacks (an Ascend CANN toolkit) is faked with ``--root`` and a
version.cfg in the layout CANN installs. Everything else runs for real:

* this venv (MindSpore 2.10.0, numpy<2, decorator) passes the numpy/runtime/decorator/
  graph-kernel checks, and ``--compile`` really fuses;
* the base interpreter of this venv with NumPy 2 (its own, or one the test installs from
  PyPI into a temporary folder ahead of it) and the venv's MindSpore (and its
  dependencies, without numpy and decorator) put on its path reproduces the
  NumPy 2 half-failure (import works, the first op fails);
* a fresh bare venv of the same Python with the venv's MindSpore and numpy 1.x but no
  ``decorator`` reproduces the AKG failure (``No module named 'decorator'``, and the
  fused compile fails with ``RuntimeError: Response is empty``);
* Python 3.13 (when installed) is outside MindSpore 2.10.0's Requires-Python.

The overlays are symlinks to the venv's installed files, found through
``importlib.metadata`` (the test process never imports mindspore).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import metadata

import pytest
from click.testing import CliRunner

from msgraphlint.doctor import checks as doctor
from msgraphlint.doctor.checks import (FAIL, PASS, SKIP, WARN, Check, check_cann, check_pin, check_python, doctor_command, load_compat, mindspore_own_cann_list, parse_version_cfg)

COMPAT = load_compat()
MS_DEPS = ["mindspore", "protobuf", "asttokens", "pillow", "scipy", "packaging", "psutil", "astunparse",
           "six", "safetensors", "dill"]


def _installed(name):
    try:
        metadata.distribution(name)
        return True
    except metadata.PackageNotFoundError:
        return False


# These read MindSpore's installed distribution metadata: they are MindSpore tests (deselected in
# .ci/run's static tiers, and a failure rather than a skip under CI=true without MindSpore).
needs_ms_dist = pytest.mark.mindspore


def _run(args, env=None):
    result = CliRunner().invoke(doctor_command, args, env=env, catch_exceptions=False)
    return result


def _json(args, env=None):
    result = _run(args + ["--format", "json"], env=env)
    doc = json.loads(result.output)
    assert doc["exit_code"] == result.exit_code
    return {c["name"]: c for c in doc["checks"]}, result.exit_code, doc


def _fake_cann(root, line):
    d = root / "usr" / "local" / "Ascend" / "ascend-toolkit" / "latest"
    d.mkdir(parents=True)
    (d / "version.cfg").write_text(
        "# version: 1.0\n"
        f"runtime_running_version={line}\n"
        f"compiler_running_version={line}\n"
        f"toolkit_running_version={line}\n"
        f"toolkit_upgrade_version={line}\n", encoding="utf-8")
    return root


@pytest.fixture
def pinned_project(tmp_path):
    ver = metadata.version("mindspore") if _installed("mindspore") else "2.10.0"
    p = tmp_path / "proj"
    p.mkdir()
    (p / "requirements.txt").write_text(f"numpy<2\nmindspore=={ver}  # tested\n", encoding="utf-8")
    return str(p)


# --------------------------------------------------------------------------------------
# CANN: fake roots
# --------------------------------------------------------------------------------------
def test_parse_version_cfg_forms():
    assert parse_version_cfg("# version: 1.0\ntoolkit_running_version=[7.3.0.1.231:8.0.RC2]\n") == (
        "7.3.0.1.231", "8.0.RC2")
    assert parse_version_cfg("runtime_running_version=[7.7.T20.0.B210:8.1.RC1]\n") == ("7.7.T20.0.B210", "8.1.RC1")
    assert parse_version_cfg("Version=8.3.0.1.200\nversion_dir=8.3.RC1\n") == ("8.3.0.1.200", "8.3.0.1.200")
    assert parse_version_cfg("nothing here\n") is None


@needs_ms_dist
def test_mindspore_own_cann_list_is_read_as_text():
    facts = doctor.gather_facts(sys.executable)
    own = mindspore_own_cann_list(facts)
    assert own == ["8.2", "8.3", "8.5", "9.0", "9.1"]  # mindspore 2.10.0's AscendEnvChecker.version
    assert "mindspore" not in sys.modules


@needs_ms_dist
def test_cann_matching_toolkit_passes(tmp_path, pinned_project):
    root = _fake_cann(tmp_path / "root", "[8.3.0.1.200:8.3.RC1]")
    checks, code, _ = _json(["--quick", "--root", str(root), "--project", pinned_project])
    assert checks["cann"]["status"] == PASS, checks["cann"]
    assert "CANN 8.3.RC1 (internal 8.3.0.1.200)" in checks["cann"]["detail"]
    assert "8.3 is one of the versions MindSpore 2.10.0 accepts" in checks["cann"]["detail"]
    assert code == 0


@needs_ms_dist
def test_cann_mismatching_toolkit_fails_with_exit_1(tmp_path, pinned_project):
    root = _fake_cann(tmp_path / "root", "[7.3.0.1.231:8.0.RC2]")
    result = _run(["--quick", "--root", str(root), "--project", pinned_project])
    assert result.exit_code == 1
    line = next(l for l in result.output.splitlines() if l.startswith("FAIL cann:"))
    assert "CANN 8.0.RC2 (internal 7.3.0.1.231)" in line
    assert "8.3 (CANN 8.3.RC1)" in line and "9.1" in line
    fix = result.output.splitlines()[result.output.splitlines().index(line) + 1]
    assert fix.strip().startswith("fix: install a CANN release MindSpore 2.10.0 supports")


@needs_ms_dist
def test_no_cann_is_skipped_unless_ascend_is_required(tmp_path, pinned_project):
    checks, code, _ = _json(["--quick", "--root", str(tmp_path), "--project", pinned_project])
    assert checks["cann"]["status"] == SKIP and code == 0
    checks, code, _ = _json(["--quick", "--root", str(tmp_path), "--project", pinned_project, "--device", "ascend"])
    assert checks["cann"]["status"] == FAIL and code == 1
    assert checks["device"]["status"] == PASS  # the 2.10.0 wheel is unified: it has the Ascend backend


def _facts(version="2.4.0", devices=("ascend",), check_version=None, requires_python=None, ext=None,
           py=(3, 11, 7), built=(".cpython-311-x86_64-linux-gnu.so",), requires_dist=("numpy>=1.20.0,<2.0.0",)):
    return {
        "python": {"version": list(py), "implementation": "cpython", "executable": "/x/python",
                   "ext_suffix": ext or f".cpython-{py[0]}{py[1]}-x86_64-linux-gnu.so"},
        "mindspore_dists": [{"name": "mindspore", "version": version, "requires_python": requires_python,
                             "requires_dist": list(requires_dist), "classifiers": [], "location": "/x",
                             "top_level": ["mindspore"]}],
        "mindspore_package": {"dir": "/x/mindspore", "devices": list(devices), "cuda": [], "akg": True,
                              "check_version": check_version, "extension_suffixes": list(built),
                              "package_name": "mindspore"},
        "dists": {"numpy": {"name": "numpy", "version": "1.26.4"}},
        "decorator_importable": True,
    }


@pytest.mark.parametrize("line,status", [
    ("[7.5.0.1.129:8.0.RC3]", PASS),            # MindSpore 2.4.0 pairs with CANN 8.0.RC3 (table row)
    ("[7.5.0.1.129:8.0.RC3.beta1]", PASS),      # beta suffix of the same release
    ("[7.3.0.1.231:8.0.RC2]", FAIL),
])
def test_cann_table_rows_when_mindspore_list_is_unreadable(tmp_path, line, status):
    root = _fake_cann(tmp_path / "r", line)
    c = check_cann(_facts("2.4.0"), COMPAT, str(root), None)
    assert c.status == status, c
    if status == FAIL:
        assert "pairs with CANN 8.0.RC3" in c.detail and "mindformers" in c.detail


def test_cann_unknown_mindspore_version_warns(tmp_path):
    root = _fake_cann(tmp_path / "r", "[7.5.0.1.129:8.0.RC3]")
    c = check_cann(_facts("2.5.0"), COMPAT, str(root), None)
    assert c.status == WARN and "no compatibility data for MindSpore 2.5.0" in c.detail


def test_cann_without_ascend_backend_warns(tmp_path):
    root = _fake_cann(tmp_path / "r", "[7.5.0.1.129:8.0.RC3]")
    c = check_cann(_facts("2.4.0", devices=("cpu",)), COMPAT, str(root), None)
    assert c.status == WARN and "no Ascend backend" in c.detail


def test_cann_ascend_only_build_without_toolkit_warns(tmp_path):
    c = check_cann(_facts("2.4.0", devices=("ascend",)), COMPAT, str(tmp_path), None)
    assert c.status == WARN


def test_compat_table_rows_cite_their_source():
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    for section in ("cann", "numpy", "python", "cann_release_names"):
        for row in COMPAT[section]:
            assert row.get("source"), row
            if section == "cann":
                Version(row["mindspore"])
                assert row.get("cann") or row.get("cann_internal")
            if section in ("numpy", "python"):
                SpecifierSet(row["mindspore"])
                SpecifierSet(row[section])


# --------------------------------------------------------------------------------------
# python / project pin: synthetic facts and project trees
# --------------------------------------------------------------------------------------
def test_python_outside_requires_python_and_abi_fail():
    c = check_python(_facts("2.10.0", requires_python=">=3.9,<3.13", py=(3, 13, 0)), COMPAT)
    assert c.status == FAIL
    assert "supports Python >=3.9,<3.13" in c.detail and ".cpython-313-x86_64-linux-gnu.so" in c.detail
    assert check_python(_facts("2.10.0", requires_python=">=3.9,<3.13"), COMPAT).status == PASS
    # no Requires-Python in the metadata: msgraphlint's table for 2.10.0
    c = check_python(_facts("2.10.0", py=(3, 13, 0), built=()), COMPAT)
    assert c.status == FAIL and "msgraphlint's table" in c.detail


@pytest.mark.parametrize("files,status,needle", [
    ({}, WARN, "no requirements*.txt"),
    ({"requirements.txt": "numpy\n"}, WARN, "does not declare MindSpore"),
    ({"requirements.txt": "mindspore\n"}, WARN, "declared but not pinned"),
    ({"requirements.txt": "mindspore>=2.2,<2.3\n"}, WARN, "a range"),
    ({"requirements.txt": "mindspore==2.4.0\n"}, PASS, "pinned to 2.4.0"),
    ({"requirements-dev.txt": "pytest\nmindspore == 2.4.0 ; python_version < '3.12'\n"}, PASS, "pinned to 2.4.0"),
    ({"requirements.txt": "https://ms-release.obs.cn-north-4.myhuaweicloud.com/2.4.0/MindSpore/unified/x86_64/"
                          "mindspore-2.4.0-cp39-cp39-linux_x86_64.whl\n"}, PASS, "pinned to 2.4.0"),
    ({"requirements.txt": "mindspore==2.2.10\n"}, WARN, "pins MindSpore 2.2.10 but 2.4.0 is installed"),
    ({"requirements.txt": "mindspore==2.4.0\n", "requirements/gpu.txt": "mindspore-gpu==1.10.1\n"}, WARN,
     "different versions"),
    ({"pyproject.toml": "[project]\nname='x'\ndependencies=['mindspore==2.4.0']\n"}, PASS, "[project] dependencies"),
    ({"pyproject.toml": "[tool.poetry.dependencies]\npython='^3.9'\nmindspore='2.4.0'\n"}, PASS, "poetry"),
    ({"pyproject.toml": "[tool.poetry.dependencies]\nmindspore='^2.4'\n"}, WARN, "not pinned"),
    ({"setup.cfg": "[options]\ninstall_requires =\n    numpy<2\n    mindspore==2.4.0\n"}, PASS, "setup.cfg"),
    ({"environment.yml": "dependencies:\n  - python=3.9\n  - mindspore=2.4.0\n"}, PASS, "conda"),
    ({"environment.yml": "dependencies:\n  - pip:\n    - mindspore==2.4.0\n"}, PASS, "dependencies: pip"),
    ({"environment.yml": "dependencies:\n  - mindspore\n"}, WARN, "not pinned"),
])
def test_pin(tmp_path, files, status, needle):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    c = check_pin(_facts("2.4.0"), str(tmp_path))
    assert c.status == status, c
    assert needle in c.detail, c
    if status != PASS:
        assert c.fix


def test_this_repository_pins_mindspore_for_the_cross_check():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    c = check_pin(_facts("2.10.0"), repo)
    assert c.status == PASS and "pyproject.toml [project.optional-dependencies] verify" in c.detail


def test_text_and_json_output_shapes():
    checks = [Check("a", PASS, "fine"), Check("b", WARN, "hmm", "do this"), Check("c", SKIP, "n/a", "unused")]
    text = doctor.render_text(checks, "/py")
    assert text.splitlines() == ["msgraphlint doctor: /py", "PASS a: fine", "WARN b: hmm", "     fix: do this",
                                 "SKIP c: n/a", "1 passed, 1 warning(s), 0 failed, 1 skipped"]
    doc = json.loads(doctor.render_json(checks + [Check("d", FAIL, "bad", "fix it")], "/py"))
    assert doc["exit_code"] == 1 and doc["summary"] == {"pass": 1, "warn": 1, "fail": 1, "skip": 1}
    assert doc["checks"][3] == {"name": "d", "status": FAIL, "detail": "bad", "fix": "fix it"}


def test_unrunnable_interpreter_fails(tmp_path):
    result = _run(["--python", str(tmp_path / "no-such-python"), "--project", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines()[1].startswith("FAIL python: cannot run")


# --------------------------------------------------------------------------------------
# real runs
# --------------------------------------------------------------------------------------
@pytest.mark.mindspore
@pytest.mark.slow
def test_this_venv_passes_for_real(pinned_project, tmp_path):
    checks, code, doc = _json(["--root", str(tmp_path), "--project", pinned_project, "--compile"])
    for name in ("python", "mindspore", "device", "numpy", "runtime", "decorator", "graph-kernel", "pin"):
        assert checks[name]["status"] == PASS, checks[name]
    assert checks["cann"]["status"] == SKIP
    assert "one op (t + 1) work" in checks["runtime"]["detail"]
    assert "Fused_* kernel(s)" in checks["graph-kernel"]["detail"]
    assert "built for CPU" in checks["device"]["detail"]
    assert code == 0
    assert "mindspore" not in sys.modules  # everything that imported it ran in children


def _overlay(dest, dists):
    """A directory of symlinks to the venv's files of ``dists`` (a PYTHONPATH entry)."""
    dest.mkdir()
    for name in dists:
        dist = metadata.distribution(name)
        base = str(dist.locate_file(""))
        tops = {f.parts[0] for f in dist.files or [] if f.parts and f.parts[0] != ".."}
        for top in tops:
            src = os.path.join(base, top)
            if os.path.exists(src) and not os.path.exists(dest / top):
                os.symlink(src, dest / top)
    return str(dest)


def _base_python():
    exe = os.path.join(sys.base_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")
    return exe if os.path.exists(exe) else None


def _python_at_least(version):
    """A working interpreter of at least ``version`` (pyenv installs next to the base, or on PATH)."""
    import glob

    candidates = sorted(glob.glob(os.path.join(os.path.dirname(sys.base_prefix), "3.*", "bin", "python3")))
    candidates += [shutil.which(f"python3.{minor}") for minor in range(version[1], version[1] + 3)]
    for exe in candidates:
        if not exe:
            continue
        try:
            proc = subprocess.run([exe, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                                  text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0 and tuple(int(x) for x in proc.stdout.split()) >= version:
            return exe
    return None


def _numpy_version(python, pythonpath=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run([python, "-c", "import numpy; print(numpy.__version__)"], capture_output=True,
                          text=True, env=env)
    return proc.stdout.strip() if proc.returncode == 0 else None


@pytest.mark.mindspore
@pytest.mark.slow
def test_numpy_2_half_failure_for_real(tmp_path, pinned_project):
    base = _base_python()
    if base is None:
        pytest.skip("needs this venv's base interpreter")
    ovl = _overlay(tmp_path / "ovl", [d for d in MS_DEPS])  # no numpy: a NumPy 2 is used
    path = [ovl]
    if not (_numpy_version(base) or "0").startswith(("2.", "3.")):
        # The base interpreter has NumPy 1.x (or none): put a NumPy 2 from PyPI ahead of it,
        # so the test does not depend on what the machine's base Python happens to hold.
        np2 = tmp_path / "numpy2"
        pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(np2),
                              "numpy>=2,<3"], capture_output=True, text=True, timeout=600)
        assert pip.returncode == 0, f"could not install NumPy 2 for the test: {pip.stderr[-2000:]}"
        path.append(str(np2))
        assert (_numpy_version(base, os.pathsep.join(path)) or "0").startswith("2.")
    checks, code, _ = _json(["--python", base, "--root", str(tmp_path), "--project", pinned_project],
                            env={"PYTHONPATH": os.pathsep.join(path)})
    assert code == 1
    assert checks["mindspore"]["status"] == PASS and ovl in checks["mindspore"]["detail"]
    numpy_check = checks["numpy"]
    assert numpy_check["status"] == FAIL
    assert "is outside MindSpore 2.10.0's range: <2" in numpy_check["detail"]
    assert "import mindspore works, Tensor(ndarray) works, then the first op (t + 1) fails" in numpy_check["detail"]
    assert "numpy.core.multiarray failed to import" in numpy_check["detail"]
    assert numpy_check["fix"] == 'pip install "numpy<2"'
    assert checks["runtime"]["status"] == FAIL


@pytest.mark.mindspore
@pytest.mark.slow
def test_missing_decorator_for_real(tmp_path, pinned_project):
    base = _base_python()
    if base is None:
        pytest.skip("needs this venv's base interpreter")
    bare = tmp_path / "bare"
    subprocess.run([base, "-m", "venv", "--without-pip", str(bare)], check=True)
    ovl = _overlay(tmp_path / "ovl", MS_DEPS + ["numpy"])  # everything but decorator
    checks, code, _ = _json(["--python", str(bare / "bin" / "python"), "--root", str(tmp_path),
                             "--project", pinned_project, "--compile"], env={"PYTHONPATH": ovl})
    assert code == 1
    assert checks["numpy"]["status"] == PASS and checks["runtime"]["status"] == PASS
    assert checks["decorator"]["status"] == FAIL and checks["decorator"]["fix"] == "pip install decorator"
    gk = checks["graph-kernel"]
    assert gk["status"] == FAIL
    assert "No module named 'decorator'" in gk["detail"]
    assert "RuntimeError: Response is empty" in gk["detail"]  # the fused compile, for real


@pytest.mark.mindspore
def test_unsupported_python_for_real(tmp_path, pinned_project):
    py313 = _python_at_least((3, 13))
    if py313 is None:
        pytest.skip("no Python >= 3.13 on this machine")
    ovl = _overlay(tmp_path / "ovl", ["mindspore"])
    checks, code, _ = _json(["--python", py313, "--quick", "--root", str(tmp_path), "--project", pinned_project],
                            env={"PYTHONPATH": ovl})
    assert code == 1
    assert checks["python"]["status"] == FAIL
    assert "supports Python >=3.9,<3.13 (its Requires-Python)" in checks["python"]["detail"]
    assert "built for .cpython-311" in checks["python"]["detail"]


def test_interpreter_without_mindspore(tmp_path):
    base = _base_python()
    if base is None:
        pytest.skip("needs this venv's base interpreter")
    bare = tmp_path / "bare"
    subprocess.run([base, "-m", "venv", "--without-pip", str(bare)], check=True)
    env = {"PYTHONPATH": ""}
    checks, code, _ = _json(["--python", str(bare / "bin" / "python"), "--root", str(tmp_path),
                             "--project", str(tmp_path)], env=env)
    assert code == 1
    assert checks["mindspore"]["status"] == FAIL and "not installed" in checks["mindspore"]["detail"]
    for name in ("device", "numpy", "runtime", "decorator", "graph-kernel"):
        assert checks[name]["status"] == SKIP, checks[name]

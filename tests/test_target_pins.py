"""Where ``target-mindspore`` comes from when it is not set: the project's pin, else the
MindSpore of the ``python`` setting's environment, else the newest known release; and the
facts that depend on the target come from its own release's catalog (issue 23, item 2).

Facts measured on the wheels (one venv per release, see tests/test_catalog_versions.py):
``mint.vdot`` exists in 2.10.0 only (2.7.0: ``AttributeError: module 'mindspore.mint' has
no attribute 'vdot'``); ``nn.TensorArray`` in 2.7.0 only (2.10.0: ``AttributeError``);
``ops.batch_dot`` is ``@deprecated`` since 2.8.0 from 2.8.0 on; ``ops.tensor_scatter_mul``
carries the decorator (since 2.9.0) in 2.10.0 only; ``ops.transpose(x, input_perm=...)``
works on 2.7.0 and raises ``TypeError ... unexpected keyword argument 'input_perm'`` on
2.10.0, ``dims=`` the other way round; ``set_context(grad_for_scalar=True)`` warns on 2.9.0
and raises ``ValueError`` on 2.10.0.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from msgraphlint import pins
from msgraphlint.config import load_config

from helpers import run_cli, write_tree

from release_facts import BATCH_DOT, CODE, SCATTER_MUL, TENSOR_ARRAY, VDOT  # noqa: F401
from release_facts import pinned_project as _project


def _findings(root: Path, *args):
    r = run_cli("check", "--no-cache", "--output-format", "json", "--extend-select", "MSG513", *args, str(root))
    assert r.exit_code in (0, 1), r.output
    data = json.loads(r.stdout)
    items = data if isinstance(data, list) else data.get("findings", data.get("results", []))
    return {(f["code"], f["location"]["row"] if "location" in f else f["line"]): f for f in items}


def _lines(found, code):
    return sorted(line for c, line in found if c == code)


# ------------------------------------------------------------------------ deprecations relative to the target
def _findings(root: Path, *args):
    r = run_cli("check", "--no-cache", "--output-format", "json", "--select", "MSG513", *args, str(root))
    assert r.exit_code in (0, 1), r.output
    return sorted((f["code"], f["line"]) for f in json.loads(r.stdout)["findings"])


def test_pinned_2_7_0_in_requirements_has_no_2_8_deprecation(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "numpy<2\nmindspore==2.7.0\n"})
    assert _findings(root) == []


def test_pinned_range_2_8_in_pyproject_reports_batch_dot_only(tmp_path):
    root = _project(tmp_path / "p", {"pyproject.toml": textwrap.dedent("""
        [project]
        name = "p"
        version = "1"
        dependencies = ["numpy", "mindspore>=2.8,<2.9"]
    """)})
    assert _findings(root) == [("MSG513", BATCH_DOT)]   # ops.tensor_scatter_mul: not deprecated in 2.8.0


def test_pinned_2_10_0_reports_both_deprecations(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.10.0\n"})
    assert _findings(root) == [("MSG513", BATCH_DOT), ("MSG513", SCATTER_MUL)]


# ------------------------------------------------------------------------ where the target comes from
def _show(root: Path, *args):
    r = run_cli("check", "--show-settings", "--output-format", "json", *args, str(root / "m.py"))
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_show_settings_names_the_pin(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "numpy\nmindspore==2.7.0\n"})
    data = _show(root)
    assert data["target-mindspore"] == "2.7.0"
    assert data["target-mindspore-from"] == f"the pin `mindspore==2.7.0` in {root / 'requirements.txt'}:2"
    assert data["target-mindspore-catalog"] == "2.7.0"


def test_show_settings_without_a_pin_is_the_newest(tmp_path):
    root = _project(tmp_path / "p", {})
    data = _show(root)
    assert data["target-mindspore"] == "2.10"
    assert "newest" in data["target-mindspore-from"] and data["target-mindspore-catalog"] == "2.10.0"


def test_setting_wins_over_the_pin(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.7.0\n",
                                     "msgraphlint.toml": 'target-mindspore = "2.9"\n'})
    data = _show(root)
    assert data["target-mindspore"] == "2.9" and data["target-mindspore-from"].endswith("msgraphlint.toml")
    data = _show(root, "--target-mindspore", "2.8")
    assert data["target-mindspore"] == "2.8" and data["target-mindspore-from"] == "--target-mindspore"


def test_pin_in_the_folder_of_the_configuration_file(tmp_path):
    """The configuration file's folder is the project: a pin there applies to files below."""
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.8.0\n", "msgraphlint.toml": "",
                                     "src/pkg/deep.py": "import mindspore\n"})
    r = run_cli("check", "--show-settings", "--output-format", "json", str(root / "src" / "pkg" / "deep.py"))
    assert json.loads(r.stdout)["target-mindspore"] == "2.8.0"


def test_installed_mindspore_of_the_python_setting(tmp_path):
    """No pin: the MindSpore installed in the `python` setting's environment (its
    dist-info), read from the layout; the interpreter is never run."""
    env = tmp_path / "env"
    site = env / "lib" / "python3.11" / "site-packages"
    (site / "mindspore-2.8.0.dist-info").mkdir(parents=True)
    (site / "mindspore-2.8.0.dist-info" / "METADATA").write_text("Name: mindspore\nVersion: 2.8.0\n")
    (env / "pyvenv.cfg").write_text("home = /nonexistent/bin\ninclude-system-site-packages = false\n"
                                    "version = 3.11.4\n")
    marker = tmp_path / "ran"
    (env / "bin").mkdir()
    (env / "bin" / "python").write_text(f"#!/bin/sh\ntouch '{marker}'\necho '[]'\n")
    (env / "bin" / "python").chmod(0o755)
    root = _project(tmp_path / "p", {"msgraphlint.toml": f'python = "{env / "bin" / "python"}"\n'})
    data = _show(root)
    assert data["target-mindspore"] == "2.8.0"
    assert "mindspore-2.8.0.dist-info" in data["target-mindspore-from"] and "python" in data["target-mindspore-from"]
    assert not marker.exists()


def test_a_release_with_no_catalog_is_linted_with_the_nearest_and_said_so(tmp_path):
    root = _project(tmp_path / "p", {"msgraphlint.toml": 'target-mindspore = "2.6"\n'})
    (root / "m.py").write_text("import mindspore as ms\nms.set_context(grad_for_scalar=True)\n")
    r = run_cli("check", "--no-cache", "--output-format", "concise", str(root))
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert warnings == ["msgraphlint: warning: target-mindspore 2.6: msgraphlint has no knowledge of MindSpore 2.6 "
                        "(it knows 2.7.0 to 2.10.0); linting with the nearest known release, 2.7.0"]
    # with 2.7.0's knowledge, not 2.10's: the key is deprecated there, not removed
    assert "`set_context(grad_for_scalar=...)` is deprecated in MindSpore 2.6" in r.stdout
    assert _show(root)["target-mindspore-catalog"] == "2.7.0"


def test_a_known_release_gives_no_warning(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.7.0\n"})
    r = run_cli("check", "--no-cache", str(root))
    assert "warning" not in r.stderr


# ------------------------------------------------------------------------ reading pins
@pytest.mark.parametrize("files, version, where", [
    ({"requirements.txt": "mindspore==2.7.0\n"}, "2.7.0", "requirements.txt:1"),
    ({"requirements-dev.txt": "# ci\n-r base.txt\nmindspore>=2.8,<2.9  # pinned\n"}, "2.8", "requirements-dev.txt:3"),
    ({"requirements.txt": "mindspore==2.7.*\n"}, "2.7", "requirements.txt:1"),
    ({"requirements.txt": "mindspore~=2.7.1\n"}, "2.7.1", "requirements.txt:1"),
    ({"requirements.txt": "mindspore>2.7.0\n"}, "2.7.1", "requirements.txt:1"),        # the lowest known allowed
    ({"requirements.txt": "mindspore<2.9\n"}, "2.7.0", "requirements.txt:1"),
    ({"requirements.txt": "https://example.org/mindspore-2.9.0-cp311-cp311-linux_x86_64.whl\n"}, "2.9.0",
     "requirements.txt:1"),
    ({"pyproject.toml": '[project]\nname = "p"\nversion = "1"\n[project.optional-dependencies]\n'
                        'train = ["mindspore==2.9.0"]\n'}, "2.9.0", "pyproject.toml:5"),
    ({"setup.cfg": "[options]\ninstall_requires =\n    numpy\n    mindspore>=2.7.2\n"}, "2.7.2", "setup.cfg:4"),
    ({"setup.py": 'from setuptools import setup\nREQS = ["numpy", "mindspore==2.8.0"]\nsetup(name="p", '
                  'install_requires=REQS)\n'}, "2.8.0", "setup.py:2"),
    ({"environment.yml": "name: x\ndependencies:\n  - python=3.11\n  - mindspore=2.7.0\n"}, "2.7.0",
     "environment.yml:4"),
    ({"environment.yml": "dependencies:\n  - pip\n  - pip:\n    - mindspore==2.9.0\n"}, "2.9.0", "environment.yml:4"),
])
def test_pin_sources(tmp_path, files, version, where):
    write_tree(tmp_path, files)
    pin = pins.find_pin(str(tmp_path))
    assert pin is not None and pin.version == version
    assert f"{Path(pin.path).name}:{pin.line}" == where


def test_an_unpinned_requirement_is_no_pin(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "mindspore\nnumpy==1.26\n"})
    (tmp_path / ".git").mkdir()
    assert pins.find_pin(str(tmp_path)) is None


def test_pin_search_stops_at_the_repository_root(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "mindspore==2.7.0\n", "repo/sub/m.py": "x = 1\n"})
    assert pins.find_pin(str(tmp_path / "repo" / "sub")).version == "2.7.0"   # above, no .git between
    (tmp_path / "repo" / ".git").mkdir()
    assert pins.find_pin(str(tmp_path / "repo" / "sub")) is None


def test_setup_py_is_read_not_run(tmp_path):
    marker = tmp_path / "ran"
    write_tree(tmp_path, {"setup.py": f"open({str(marker)!r}, 'w').close()\nfrom setuptools import setup\n"
                                      "setup(install_requires=['mindspore==2.7.1'])\n"})
    assert pins.find_pin(str(tmp_path)).version == "2.7.1"
    assert load_config(start=str(tmp_path)).target_mindspore == "2.7.1"
    assert not marker.exists()



def _concise(root: Path, *args):
    r = run_cli("check", "--no-cache", "--output-format", "concise", *args, str(root))
    return r.stdout


@pytest.mark.parametrize("target, status", [("2.9.0", "deprecated"), ("2.10.0", "removed")])
def test_set_context_key_status_follows_the_target(tmp_path, target, status):
    root = _project(tmp_path / "p", {})
    (root / "m.py").write_text("import mindspore as ms\nms.set_context(grad_for_scalar=True)\n")
    out = _concise(root, "--target-mindspore", target)
    assert f"`set_context(grad_for_scalar=...)` is {status} in MindSpore {target}" in out

"""verify compiles with the project's own interpreter (issue 23 item 5): the ``python``
setting of the target's configuration names it (an interpreter or an environment folder);
``--python`` and ``$MSGRAPHLINT_MINDSPORE_PYTHON`` take precedence. A bare environment
(no MindSpore) makes the run exit 2 naming that interpreter, so no MindSpore is needed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            return x * 2


    def make_inputs():
        return (ms.Tensor([1.0]),)
    """)


def _project(tmp_path, setting):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "pyproject.toml").write_text(f'[tool.msgraphlint]\npython = "{setting}"\n')
    bare = tmp_path / "bare"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(bare)],
                   check=True)
    return bare


def _verify(tmp_path, *args, **env):
    full = dict(os.environ, **env)
    full.pop("MSGRAPHLINT_MINDSPORE_PYTHON", None) if "MSGRAPHLINT_MINDSPORE_PYTHON" not in env else None
    proc = subprocess.run([sys.executable, "-m", "msgraphlint", "verify", "model.py::Net", "--format", "json",
                           "--no-cache", "--no-pynative", *args], cwd=tmp_path, capture_output=True, text=True,
                          env=full, timeout=600)
    return proc, json.loads(proc.stdout)


def test_the_python_setting_names_the_compiling_interpreter(tmp_path):
    bare = _project(tmp_path, "bare")   # an environment folder, relative to the configuration file
    proc, data = _verify(tmp_path)
    assert proc.returncode == 2, data
    assert f"MindSpore is not importable by {bare / 'bin' / 'python'}" in data["errors"][0], data["errors"]


def test_an_interpreter_path_in_the_setting_and_a_broken_setting(tmp_path):
    bare = _project(tmp_path, "bare/bin/python")
    proc, data = _verify(tmp_path)
    assert proc.returncode == 2 and f"not importable by {bare / 'bin' / 'python'}" in data["errors"][0]
    (tmp_path / "pyproject.toml").write_text('[tool.msgraphlint]\npython = "nowhere"\n')
    proc, data = _verify(tmp_path)
    assert proc.returncode == 2 and "nowhere" in data["errors"][0], data["errors"]


def test_command_line_and_environment_take_precedence(tmp_path):
    _project(tmp_path, "bare")
    # --python naming this interpreter (which has no MindSpore in the static tier, or has it):
    # the error, if any, names sys.executable, never the setting's bare environment
    proc, data = _verify(tmp_path, "--python", sys.executable)
    assert "bare" not in " ".join(data.get("errors") or []), data.get("errors")
    proc, data = _verify(tmp_path, MSGRAPHLINT_MINDSPORE_PYTHON=sys.executable)
    assert "bare" not in " ".join(data.get("errors") or []), data.get("errors")

"""scripts/label_fixtures.py's --python: the children compile in a scratch folder, so the
interpreter is resolved before they start (CI passes the relative `.ci-venvs/ms-2.7.0/bin/python`;
at 65a7c86 that failed with FileNotFoundError inside the first child), and a wrong one is a
clear error, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "label_fixtures.py"


def _run(args, cwd):
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_wrong_interpreter_names_itself_and_exits_2(tmp_path):
    r = _run(["--python", "no/such/bin/python", "--labels-dir", str(tmp_path / "out"), "--only", "x"], ROOT)
    assert r.returncode == 2
    assert "--python no/such/bin/python: no such interpreter" in r.stderr


def test_a_relative_interpreter_is_resolved_against_the_callers_folder(tmp_path):
    # the snippet list names nothing, so no child runs: what is checked is that the relative
    # path (valid from the caller's folder, not from the scratch folder) is accepted
    rel = os.path.relpath(sys.executable, tmp_path)
    empty = tmp_path / "none.txt"
    empty.write_text("")
    r = _run(["--python", rel, "--labels-dir", str(tmp_path / "out"), "--list", str(empty), "--summary-only"], tmp_path)
    assert r.returncode == 0, r.stderr
    bad = _run(["--python", rel + "-missing", "--labels-dir", str(tmp_path / "out"), "--list", str(empty)], tmp_path)
    assert bad.returncode == 2 and "no such interpreter" in bad.stderr

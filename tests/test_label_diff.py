"""scripts/label_diff.py: where two releases' labels of fixtures/labeled/ differ (issue 23
item 5: CI compiles the labelled fixtures on 2.7 and 2.10 and records the differences)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "label_diff.py"


def _label(version, compiles=True, fallback=0, warnings=()):
    return {"schema": 2, "file": "x.py", "family": "api", "polarity": "pos", "mindspore_version": version,
            "default": {"compiles": compiles, "error_first_line": None if compiles else "TypeError: no",
                        "runtime_error": False},
            "strict": {"compiles": True, "error_first_line": None, "runtime_error": False},
            "fallback_nodes": fallback, "kernel_graphs": 1, "fused_kernels": None, "recompiles": 1,
            "pynative_equal": True, "confirmed": True,
            "observed": {"deprecation_warnings": list(warnings)}}


def _write(folder: Path, labels: dict) -> Path:
    folder.mkdir()
    for name, lab in labels.items():
        (folder / name).write_text(json.dumps(lab))
    return folder


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_differences_are_listed_per_fact(tmp_path):
    new = _write(tmp_path / "new", {"api_pos_a.json": _label("2.10.0"),
                                    "api_pos_b.json": _label("2.10.0", warnings=["'ops.x' is deprecated"]),
                                    "api_pos_only_new.json": _label("2.10.0")})
    old = _write(tmp_path / "old", {"api_pos_a.json": _label("2.7.0", compiles=False),
                                    "api_pos_b.json": _label("2.7.0")})
    got = _run(new, old)
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert "api_pos_a.json: default.compiles: True (2.10.0) vs False (2.7.0)" in lines
    assert "api_pos_a.json: default.error: None (2.10.0) vs 'TypeError: no' (2.7.0)" in lines
    assert "api_pos_b.json: deprecation_warnings: [\"'ops.x' is deprecated\"] (2.10.0) vs [] (2.7.0)" in lines
    assert lines[-1] == ("compared 2 snippet(s) labelled by ['2.10.0'] and ['2.7.0']: "
                         "3 difference(s) in 2 snippet(s)")
    assert _run(new, old, "--check").returncode == 1


def test_compact_file_round_trip_and_check(tmp_path):
    old = _write(tmp_path / "old", {"api_pos_a.json": _label("2.7.0", fallback=2)})
    compact = tmp_path / "2.7.0.json"
    assert _run(old, old, "--write-compact", compact).returncode == 0
    data = json.loads(compact.read_text())
    assert data["mindspore_versions"] == ["2.7.0"]
    assert data["snippets"]["api_pos_a.json"]["fallback_nodes"] == 2
    same = _run(compact, old, "--check")
    assert same.returncode == 0 and "0 difference(s)" in same.stdout
    changed = _write(tmp_path / "changed", {"api_pos_a.json": _label("2.7.0", fallback=0)})
    got = _run(compact, changed, "--check")
    assert got.returncode == 1 and "fallback_nodes: 2 (2.7.0) vs 0 (2.7.0)" in got.stdout


def test_a_missing_folder_exits_2(tmp_path):
    got = _run(tmp_path / "nope", tmp_path)
    assert got.returncode == 2 and "nope" in got.stderr

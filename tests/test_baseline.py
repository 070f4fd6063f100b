"""Baselines keyed by rule, path and flagged text (not line numbers)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli

SRC = ("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
       "        print(x)\n        return x\n")


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(SRC)
    return tmp_path


def run(*args):
    return CliRunner().invoke(cli, ["check", "--no-cache", "--format", "concise", *args])


def test_write_then_use_baseline(proj):
    r = run("--write-baseline", "bl.json", "net.py")
    assert r.exit_code == 0
    doc = json.loads((proj / "bl.json").read_text())
    assert doc["entries"] == [{"code": "MSG201", "path": "net.py", "text": "print(x)", "count": 1}]
    r = run("--baseline", "bl.json", "net.py")
    assert r.exit_code == 0 and "MSG201" not in r.stdout


def test_edits_elsewhere_do_not_resurrect(proj):
    run("--write-baseline", "bl.json", "net.py")
    (proj / "net.py").write_text("# a new comment\n\n" + SRC.replace("    def construct", "    # doc\n    def construct"))
    assert run("--baseline", "bl.json", "net.py").exit_code == 0


def test_a_new_finding_is_reported_and_counts_matter(proj):
    run("--write-baseline", "bl.json", "net.py")
    (proj / "net.py").write_text(SRC.replace("        print(x)\n", "        print(x)\n        print(x)\n"))
    r = run("--baseline", "bl.json", "net.py")
    assert r.exit_code == 1 and r.stdout.count("MSG201") == 1


def test_stale_entries_are_reported(proj):
    run("--write-baseline", "bl.json", "net.py")
    (proj / "net.py").write_text(SRC.replace("        print(x)\n", ""))
    r = run("--baseline", "bl.json", "net.py")
    assert r.exit_code == 0
    assert "baseline entry no longer matches: MSG201 net.py: print(x)" in r.stderr


def test_bad_baseline_is_usage_error(proj):
    (proj / "bl.json").write_text("{}")
    r = run("--baseline", "bl.json", "net.py")
    assert r.exit_code == 2 and "bl.json" in r.stderr
    r = run("--baseline", "missing.json", "net.py")
    assert r.exit_code == 2 and "missing.json" in r.stderr

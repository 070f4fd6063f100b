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


# ------------------------------------------------------------------ call-site findings
# helper.py is not linted: its problem is reported at the call in net.py (a call-site
# finding, MSG004, keyed by the call's text and the code it repeats; its message names
# helper.py:2)
HELPER = "def helper(x):\n    y = x.asnumpy()\n    return y\n"
CALLER = ("import mindspore.nn as nn\nfrom helper import helper\n\n\nclass Net(nn.Cell):\n"
          "    def construct(self, x):\n        return helper(x)\n")


@pytest.fixture
def callsite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "net.py").write_text(CALLER)
    return tmp_path


def test_call_site_finding_is_keyed_by_the_call_text(callsite):
    r = run("--write-baseline", "bl.json", "net.py")
    assert r.exit_code == 0
    doc = json.loads((callsite / "bl.json").read_text())
    assert doc["entries"] == [{"code": "MSG004", "path": "net.py", "text": "return helper(x) -> MSG401", "count": 1}]
    # one comment line above the helper's flagged line, then one above the call
    (callsite / "helper.py").write_text("# a comment\n" + HELPER)
    r = run("--baseline", "bl.json", "net.py")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "All checks passed!\n", "")
    (callsite / "net.py").write_text("# a comment\n" + CALLER)
    r = run("--baseline", "bl.json", "net.py")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "All checks passed!\n", "")


def test_call_site_a_second_defect_behind_the_call_is_still_reported(callsite):
    run("--write-baseline", "bl.json", "net.py")
    (callsite / "helper.py").write_text(HELPER.replace("    return y\n", "    z = x.asnumpy()\n    return y\n"))
    r = run("--baseline", "bl.json", "net.py")
    assert r.exit_code == 1 and r.stdout.count("MSG401") == 1
    assert r.stdout.startswith("net.py:7:16: MSG004 `helper()` reaches MSG401 (tensor-to-numpy) at helper.py:3")


def test_call_site_a_new_kind_of_defect_behind_a_baselined_call_is_reported(callsite):
    run("--write-baseline", "bl.json", "net.py")
    (callsite / "helper.py").write_text(HELPER.replace("    y = x.asnumpy()\n", "    y = x.asnumpy()\n    print(y)\n"))
    r = run("--baseline", "bl.json", "net.py")
    assert r.exit_code == 1 and r.stdout.startswith("net.py:7:16: MSG004 `helper()` reaches MSG201 (print-in-graph)")
    assert "MSG401" not in r.stdout


@pytest.mark.parametrize("legacy", ["message", "call text"])
def test_call_site_entries_of_an_older_baseline_still_match(callsite, legacy):
    # before MSG004 a call-site finding was reported under the code it repeats (MSG401), keyed
    # by the call's text, and before that by its message
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", "net.py", "helper.py"])
    original = next(f for f in json.loads(result.stdout)["findings"] if f["path"] == "helper.py")
    text = (f"call to helper `helper` reaches: {original['message']} (helper.py:2)" if legacy == "message"
            else "return helper(x)")
    (callsite / "bl.json").write_text(json.dumps({"version": 1, "entries": [
        {"code": "MSG401", "path": "net.py", "text": text, "count": 1}]}))
    r = run("--baseline", "bl.json", "net.py")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "All checks passed!\n", "")


def test_a_helper_in_the_same_file_survives_a_comment_line_at_the_top(tmp_path, monkeypatch):
    # helper and Cell in one file: the helper's finding is reported there, once (no call-site copy)
    monkeypatch.chdir(tmp_path)
    src = ("import mindspore.nn as nn\n\n\n" + HELPER + "\n\nclass Net(nn.Cell):\n"
           "    def construct(self, x):\n        return helper(x)\n")
    (tmp_path / "one.py").write_text(src)
    r = run("--write-baseline", "bl.json", "one.py")
    assert r.exit_code == 0
    doc = json.loads((tmp_path / "bl.json").read_text())
    assert doc["entries"] == [{"code": "MSG401", "path": "one.py", "text": "y = x.asnumpy()", "count": 1}]
    (tmp_path / "one.py").write_text("# a comment\n" + src)
    r = run("--baseline", "bl.json", "one.py")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "All checks passed!\n", "")

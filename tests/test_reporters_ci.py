"""The CI formats a ruff user reaches for (issue 26 item 2): ``pylint``, ``json-lines``,
``gitlab`` (Code Climate) and ``junit``. Expected lines were written by hand from the
findings below (columns 0-based in ``Finding``, 1-based in every format); the JSON and
XML are parsed, not compared as text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from msgraphlint.cli import FORMATS, cli
from msgraphlint.findings import FileResult, Finding, Severity
from msgraphlint.reporters import REPORTERS, render
from msgraphlint.reporters import json as json_reporter

from helpers import write_tree

F_PRINT = Finding(code="MSG901", name="print-in-graph", message="print() is not supported in graph mode",
                  path="pkg/model.py", line=12, col=8, end_line=12, end_col=16, severity=Severity.ERROR,
                  source_line="        print(x)\n")
F_SHAPE = Finding(code="MSG902", name="dynamic-shape", message="shape depends on data\nsecond line",
                  path="pkg/model.py", line=3, col=4, end_line=5, end_col=1, severity=Severity.WARNING,
                  source_line="    y = x[mask]")
F_NB = Finding(code="MSG901", name="print-in-graph", message="print() is not supported in graph mode",
               path="nb.ipynb", line=2, col=4, end_line=2, end_col=12, severity=Severity.ERROR,
               source_line="    print(x)", cell=3)
F_BARE = Finding(code="MSG902", name="dynamic-shape", message="50% slower, see a:b", path="b.py", line=1,
                 col=0, severity=Severity.INFO)


def results():
    return [FileResult(path="pkg/model.py", findings=[F_PRINT, F_SHAPE]),
            FileResult(path="nb.ipynb", findings=[F_NB]), FileResult(path="b.py", findings=[F_BARE])]


def test_the_formats_are_registered_and_offered_on_the_command_line():
    for fmt in ("pylint", "json-lines", "gitlab", "junit"):
        assert fmt in REPORTERS and fmt in FORMATS


# ------------------------------------------------------------------------- pylint
def test_pylint():
    assert render("pylint", results(), {}) == (
        "pkg/model.py:3: [MSG902] shape depends on data second line\n"
        "pkg/model.py:12: [MSG901] print() is not supported in graph mode\n"
        "nb.ipynb:2: [MSG901] print() is not supported in graph mode (cell 3)\n"
        "b.py:1: [MSG902] 50% slower, see a:b\n")
    assert render("pylint", [], {}) == ""


def test_pylint_escapes_control_characters():
    odd = Finding(code="MSG901", name="n", message="a\x1b[2Jb", path="x\x1b.py", line=1)
    assert render("pylint", [FileResult(path=odd.path, findings=[odd])], {}) == "x\\x1b.py:1: [MSG901] a\\x1b[2Jb\n"


# --------------------------------------------------------------------- json-lines
def test_json_lines_is_the_json_formats_findings_one_per_line():
    lines = render("json-lines", results(), {}).splitlines()
    doc = json.loads(render("json", results(), {}))
    assert [json.loads(line) for line in lines] == doc["findings"]
    assert len(lines) == 4
    assert json.loads(lines[2])["cell"] == 3 and "cell" not in json.loads(lines[0])
    assert render("json-lines", [], {}) == ""


# ------------------------------------------------------------------------- gitlab
def test_gitlab_code_climate():
    issues = json.loads(render("gitlab", results(), {}))
    assert [i["check_name"] for i in issues] == ["MSG902", "MSG901", "MSG901", "MSG902"]
    first = issues[1]
    assert first["description"] == "MSG901: print() is not supported in graph mode"
    assert first["severity"] == "major"
    assert first["location"] == {"path": "pkg/model.py", "positions": {"begin": {"line": 12, "column": 9},
                                                                       "end": {"line": 12, "column": 17}}}
    assert [i["severity"] for i in issues] == ["minor", "major", "major", "info"]
    assert issues[2]["description"].endswith("(cell 3)")
    assert issues[3]["location"]["positions"]["end"] == {"line": 1, "column": 1}
    assert len({i["fingerprint"] for i in issues}) == 4
    assert json.loads(render("gitlab", [], {})) == []


def test_gitlab_fingerprints_are_stable_across_line_shifts_and_unique_for_duplicates():
    a = json.loads(render("gitlab", [FileResult(path="pkg/model.py", findings=[F_PRINT])], {}))[0]["fingerprint"]
    moved = F_PRINT.with_(line=40, end_line=40)
    assert json.loads(render("gitlab", [FileResult(path="pkg/model.py", findings=[moved])], {}))[0]["fingerprint"] == a
    twice = json.loads(render("gitlab", [FileResult(path="pkg/model.py", findings=[F_PRINT, moved])], {}))
    assert twice[0]["fingerprint"] == a and twice[1]["fingerprint"] != a
    other = F_PRINT.with_(path="other.py")
    assert json.loads(render("gitlab", [FileResult(path="other.py", findings=[other])], {}))[0]["fingerprint"] != a


# -------------------------------------------------------------------------- junit
def test_junit_one_suite_per_file_one_failing_case_per_finding():
    root = ET.fromstring(render("junit", results(), {}).encode("utf-8"))
    assert root.tag == "testsuites" and root.get("tests") == "4" and root.get("failures") == "4"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["pkg/model.py", "nb.ipynb", "b.py"]
    assert [s.get("tests") for s in suites] == ["2", "1", "1"]
    case = suites[0].findall("testcase")[1]
    assert (case.get("name"), case.get("classname"), case.get("line"), case.get("column")) == (
        "msgraphlint.MSG901", "pkg/model.py", "12", "9")
    failure = case.find("failure")
    assert failure.get("message") == "print() is not supported in graph mode"
    assert failure.text == "line 12, col 9, print() is not supported in graph mode"
    assert suites[0].findall("testcase")[0].find("failure").get("message") == "shape depends on data\nsecond line"
    nb = suites[1].find("testcase")
    assert nb.get("cell") == "3" and nb.find("failure").text.startswith("cell 3, line 2, col 5, ")


def test_junit_without_findings_is_one_passing_case():
    root = ET.fromstring(render("junit", [], {}).encode("utf-8"))
    cases = root.findall("testsuite/testcase")
    assert len(cases) == 1 and cases[0].find("failure") is None and root.get("failures") == "0"


@pytest.mark.parametrize("message", ['<a href="x">&amp;</a>', "bell\x07 nul\x00 esc\x1b", "\ufffe\uffff end",
                                     "bad byte \udce9", "]]> cdata", "bidi \u202e"])
def test_junit_is_well_formed_for_any_message_and_path(message):
    odd = Finding(code="MSG901", name="n", message=message, path=f"p{message}.py", line=1)
    out = render("junit", [FileResult(path=odd.path, findings=[odd])], {})
    out.encode("utf-8")  # encodable (no lone surrogate)
    root = ET.fromstring(out.encode("utf-8"))
    got = root.find("testsuite/testcase/failure").get("message")
    assert "\x00" not in got and "\x07" not in got and "\ufffe" not in got
    if message.startswith("<a"):
        assert got == message


# ------------------------------------------------------------- through the command line
NET = """
import mindspore.nn as nn


class Net(nn.Cell):
    def construct(self, x):
        print(x)
        return x
"""


@pytest.mark.parametrize("fmt", ["pylint", "json-lines", "gitlab", "junit"])
def test_the_command_line_writes_each_format(tmp_path, monkeypatch, fmt):
    write_tree(tmp_path, {"net.py": NET})
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["check", "--no-cache", "--output-format", fmt, "net.py"], catch_exceptions=False)
    assert r.exit_code == 1, r.output
    if fmt == "pylint":
        assert r.output.startswith("net.py:6: [MSG201] ")
    elif fmt == "json-lines":
        assert json.loads(r.output.splitlines()[0])["code"] == "MSG201"
    elif fmt == "gitlab":
        assert json.loads(r.output)[0]["location"]["path"] == "net.py"
    else:
        assert ET.fromstring(r.output.encode()).find("testsuite").get("name") == "net.py"


def test_an_all_ascii_json_document_with_del_is_escaped_too():
    # DEL is ASCII: json_text's all-ASCII shortcut let it through raw (json and json-lines)
    f = Finding(code="MSG902", name="dynamic-shape", message="m", path="del\x7f.py", line=1)
    for fmt in ("json", "json-lines"):
        out = render(fmt, [FileResult(path=f.path, findings=[f])], {})
        assert "\x7f" not in out and "\\u007f" in out, fmt


def test_junit_element_text_has_no_raw_line_breaks():
    f = Finding(code="MSG902", name="n", message="a\r\n::stop-commands::tok", path="p.py", line=1)
    out = render("junit", [FileResult(path=f.path, findings=[f])], {})
    assert not any(line.startswith("::") for line in out.splitlines())
    failure = ET.fromstring(out.encode()).find("testsuite/testcase/failure")
    assert failure.get("message") == "a\r\n::stop-commands::tok"  # character references: kept exactly
    assert failure.text == "line 1, col 1, a\\x0d\\x0a::stop-commands::tok"

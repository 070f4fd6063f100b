"""Messages a person can act on (issue 26): a finding's ``message`` is one short line saying
what and where (what an editor's one-line view, `concise`, GitHub, pylint and junit show), and
the rest, what happens in the graph and the evidence, is its ``detail``, on the following
lines. Measured over every rule's INVALID examples, run through the real runner; and each
reporter shows the two parts where its format expects them."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from msgraphlint.engine.registry import load_rules
from msgraphlint.findings import FileResult, Finding, Severity, format_message, split_message
from msgraphlint.reporters import render
from test_rule_snapshots import MODULES, example_findings

RULES = load_rules()
MAX_TITLE = 100   # no title longer (ruff's messages: about 45 on average)
MEAN_TITLE = 80   # the mean over all examples at most this


def _titles(module: str, tmp_path: Path) -> list:
    return [(rule.code, i, f) for rule in MODULES[module] for i, ex in enumerate(rule.INVALID)
            for f in example_findings(tmp_path, rule, i, ex)]


@pytest.mark.parametrize("module", list(MODULES))
def test_every_invalid_example_has_a_short_one_line_title(module, tmp_path):
    found = _titles(module, tmp_path)
    assert found, f"rules/{module}.py: no INVALID example reports anything"
    for code, i, f in found:
        assert "\n" not in f.message, f"{code} example {i}: the title holds a line break: {f.message!r}"
        assert len(f.message) <= MAX_TITLE, (
            f"{code} example {i}: a {len(f.message)}-character title (at most {MAX_TITLE}; move what happens "
            f"in the graph and the evidence to the lines after it): {f.message!r}")
        assert f.message == f.message.strip() and f.message, f"{code} example {i}: {f.message!r}"
        if f.detail is not None:
            assert f.detail == f.detail.strip() and f.detail, f"{code} example {i}: empty detail {f.detail!r}"


def test_the_mean_title_is_short(tmp_path):
    lengths = []
    for module in MODULES:
        (tmp_path / module).mkdir()
        lengths += [len(f.message) for _, _, f in _titles(module, tmp_path / module)]
    assert len(lengths) > 100
    assert statistics.mean(lengths) <= MEAN_TITLE, f"mean title {statistics.mean(lengths):.1f} characters"


def test_split_message():
    assert split_message("`len(n)` on an `ms.mutable` scalar\nthe graph folds it") == (
        "`len(n)` on an `ms.mutable` scalar", "the graph folds it")
    assert split_message("one line") == ("one line", None)
    assert split_message("title\n\n") == ("title", None)
    assert split_message("title\nfirst\nsecond") == ("title", "first\nsecond")


def test_a_placeholder_value_cannot_move_the_split():
    """The template is split before it is filled in: a value with a line break (a source
    segment) stays in the part it was written in."""
    assert format_message("`{expr}` on a tensor\nwhat: {why}", {"expr": "f(a,\n b)", "why": "x"}) == (
        "`f(a,\n b)` on a tensor", "what: x")
    assert format_message("title {a}", {"a": 1}) == ("title 1", None)
    assert format_message("{{literal}} title\n{{x}}", {"a": 1}) == ("{literal} title", "{x}")


SAMPLE = Finding(code="MSG101", name="tensor-condition", message="tensor-valued `if` splits the graph",
                 detail="the condition `x.sum() > 0` is a tensor: graph mode compiles both branches into a "
                        "Switch and joins them, which stops fusion across the `if`.",
                 path="pkg/net.py", line=6, col=11, end_line=6, end_col=22, severity=Severity.WARNING,
                 hint="ops.select(cond, a, b)", source_line="        if x.sum() > 0:\n")
RESULTS = [FileResult(path="pkg/net.py", findings=[SAMPLE])]


def test_text_shows_the_title_in_the_header_and_the_detail_indented_below():
    out = render("text", RESULTS, RULES).splitlines()
    assert out[0] == "pkg/net.py:6:12: MSG101 tensor-valued `if` splits the graph"
    detail = [line for line in out[1:] if line.startswith("  ") and not line.lstrip().startswith(("|", "="))
              and not line[:3].strip().isdigit()]
    assert detail and all(len(line) <= 90 for line in detail)
    assert " ".join(line.strip() for line in detail) == SAMPLE.detail
    assert out.index(detail[0]) == 1  # right after the header, before the snippet


def test_one_line_formats_show_only_the_title():
    assert render("concise", RESULTS, RULES).splitlines()[0].endswith("MSG101 tensor-valued `if` splits the graph")
    pylint = render("pylint", RESULTS, RULES).splitlines()[0]
    assert pylint == "pkg/net.py:6: [MSG101] tensor-valued `if` splits the graph"
    github = render("github", RESULTS, RULES).splitlines()[0]
    assert github.endswith("::tensor-valued `if` splits the graph")
    gitlab = json.loads(render("gitlab", RESULTS, RULES))
    assert gitlab[0]["description"] == "MSG101: tensor-valued `if` splits the graph"


def test_junit_failure_message_is_the_title_and_its_text_carries_the_detail():
    import xml.etree.ElementTree as ET
    root = ET.fromstring(render("junit", RESULTS, RULES))
    failure = root.find(".//failure")
    assert failure.get("message") == "tensor-valued `if` splits the graph"
    assert SAMPLE.detail in failure.text


def test_json_and_json_lines_carry_both():
    doc = json.loads(render("json", RESULTS, RULES))
    (f,) = doc["findings"]
    assert (f["message"], f["detail"]) == (SAMPLE.message, SAMPLE.detail)
    (line,) = render("json-lines", RESULTS, RULES).splitlines()
    assert json.loads(line)["detail"] == SAMPLE.detail


def test_sarif_text_is_the_title_and_markdown_adds_the_detail():
    doc = json.loads(render("sarif", RESULTS, RULES))
    (result,) = doc["runs"][0]["results"]
    assert result["message"]["text"] == SAMPLE.message
    assert result["message"]["markdown"] == SAMPLE.message + "\n\n" + SAMPLE.detail
    plain = FileResult(path="pkg/net.py", findings=[SAMPLE.with_(detail=None)])
    (result,) = json.loads(render("sarif", [plain], RULES))["runs"][0]["results"]
    assert result["message"] == {"text": SAMPLE.message}


def test_lsp_diagnostic_message_starts_with_the_title():
    pytest.importorskip("pygls")
    from msgraphlint.lsp.actions import diagnostic
    from msgraphlint.lsp.documents import Document
    doc = Document("file:///pkg/net.py", SAMPLE.source_line * 6)
    diag = diagnostic(SAMPLE, doc, "utf-16")
    lines = diag.message.splitlines()
    assert lines[0] == SAMPLE.message
    assert lines[1] == SAMPLE.detail
    assert lines[2] == "help: ops.select(cond, a, b)"


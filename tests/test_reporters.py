"""Reporters, from hand-made findings and two tiny rules defined here (not the engine).

Expected text/concise/github output was worked out by hand from the findings below;
columns in ``Finding`` are 0-based and every format prints them 1-based.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import jsonschema
import pytest

from msgraphlint import __version__
from msgraphlint.findings import Edit, FileResult, Finding, Fix, FixSafety, Severity
from msgraphlint.reporters import REPORTERS, render
from msgraphlint.reporters import json as json_reporter
from msgraphlint.reporters import sarif as sarif_reporter
from msgraphlint.rule import Invalid, Rule, Valid

DATA = Path(__file__).parent / "data"


# --------------------------------------------------------------------------- rules
class PrintRule(Rule):
    code = "MSG901"
    name = "print-in-graph"
    summary = "print() inside a graph-mode scope"
    message = "print() is not supported in graph mode"
    hint = "use ops.Print"
    rationale = """
        Python's print runs once at compile time in graph mode.
    """
    severity = Severity.ERROR
    fix_safety = FixSafety.SAFE
    VALID = [Valid("ops.Print(x)\n")]
    INVALID = [Invalid("print(x)\n", line=1)]


class ShapeRule(Rule):
    code = "MSG902"
    name = "dynamic-shape"
    summary = "data-dependent shape"
    message = "shape depends on data"
    hint = "use ops.masked_select"
    severity = Severity.WARNING


RULES = {PrintRule.code: PrintRule, ShapeRule.code: ShapeRule}


# ------------------------------------------------------------------------ findings
PRINT_FIX = Fix("Replace print with ops.Print", (Edit(12, 8, 12, 13, "ops.Print"),))

F_PRINT = Finding(
    code="MSG901", name="print-in-graph", message="print() is not supported in graph mode",
    path="pkg/model.py", line=12, col=8, end_line=12, end_col=16, severity=Severity.ERROR,
    hint="use ops.Print", chain=("called from Net.construct (pkg/model.py:4)",), fix=PRINT_FIX,
    source_line="        print(x)\n",
)
# a span over lines 3-5: underlined to the end of line 3; no own hint -> the rule's
F_SHAPE = Finding(
    code="MSG902", name="dynamic-shape", message="shape depends on data",
    path="pkg/model.py", line=3, col=4, end_line=5, end_col=1, severity=Severity.WARNING,
    source_line="    y = x[mask]",
)
# an unused suppression (MSG002 is not among the active rules: no hint, fallback SARIF rule)
F_UNUSED = Finding(
    code="MSG002", name="unused-suppression", message="Unused `noqa` directive (MSG901)",
    path="pkg/model.py", line=7, col=11, end_line=7, end_col=25, severity=Severity.INFO,
    source_line="    z = 1  # noqa: MSG901",
)
# no source line, no end
F_BARE = Finding(
    code="MSG902", name="dynamic-shape", message="50% slower, see a:b",
    path="b.py", line=1, col=0, severity=Severity.INFO,
)


def sample_results():
    return [
        FileResult(path="pkg/model.py", findings=[F_SHAPE, F_PRINT], unused_suppressions=[F_UNUSED], lines=20),
        FileResult(path="b.py", findings=[F_BARE], lines=1),
        FileResult(path="skipped.py", skipped=True),
    ]


# ---------------------------------------------------------------------------- text
EXPECTED_TEXT = """\
pkg/model.py:3:5: MSG902 shape depends on data
  |
3 |     y = x[mask]
  |     ^^^^^^^^^^^ MSG902
  |
  = help: use ops.masked_select

pkg/model.py:7:12: MSG002 Unused `noqa` directive (MSG901)
  |
7 |     z = 1  # noqa: MSG901
  |            ^^^^^^^^^^^^^^ MSG002
  |

pkg/model.py:12:9: MSG901 [*] print() is not supported in graph mode
   |
12 |         print(x)
   |         ^^^^^^^^ MSG901
   |
   = help: use ops.Print
   = note: called from Net.construct (pkg/model.py:4)

b.py:1:1: MSG902 50% slower, see a:b
  = help: use ops.masked_select

Found 2 errors and 2 info findings (1 fixable).
"""


def test_text_full_output():
    assert render("text", sample_results(), RULES) == EXPECTED_TEXT


def test_text_no_findings():
    assert render("text", [FileResult(path="a.py")], RULES) == "All checks passed!\n"
    assert render("text", [], RULES) == "All checks passed!\n"


def test_text_singular_summary():
    out = render("text", [FileResult(path="b.py", findings=[F_BARE.with_(severity=Severity.WARNING)])], RULES)
    assert out.endswith("\nFound 1 error (0 fixable).\n")
    out = render("text", [FileResult(path="b.py", findings=[F_BARE])], RULES)
    assert out.endswith("\nFound 1 info finding (0 fixable).\n")   # an info finding is not an error


def test_text_tabs_and_wide_characters_keep_the_caret_aligned():
    tab = Finding(code="MSG901", name="print-in-graph", message="m", path="t.py", line=2,
                  col=1, end_col=9, end_line=2, source_line="\tprint(x)")
    wide = Finding(code="MSG901", name="print-in-graph", message="m", path="t.py", line=3,
                   col=10, end_col=11, end_line=3, source_line="s = '中' + y")
    out = render("text", [FileResult(path="t.py", findings=[tab, wide])], {})
    assert "2 |     print(x)\n  |     ^^^^^^^^ MSG901\n" in out
    assert "3 | s = '中' + y\n  |            ^ MSG901\n" in out


def test_text_span_without_end_gets_one_caret_and_overlong_end_is_clamped():
    one = Finding(code="MSG901", name="n", message="m", path="t.py", line=1, col=4,
                  source_line="abc = 1")
    past = Finding(code="MSG901", name="n", message="m", path="t.py", line=2, col=0,
                   end_line=2, end_col=99, source_line="abc")
    out = render("text", [FileResult(path="t.py", findings=[one, past])], {})
    assert "1 | abc = 1\n  |     ^ MSG901\n" in out
    assert "2 | abc\n  | ^^^ MSG901\n" in out


def test_text_color_only_when_asked():
    plain = render("text", sample_results(), RULES)
    colored = render("text", sample_results(), RULES, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[" in colored
    assert click.unstyle(colored) == plain


def test_text_statistics():
    expected = (
        "2  MSG902      dynamic-shape\n"
        "1  MSG002      unused-suppression\n"
        "1  MSG901  [*] print-in-graph\n"
        "Found 2 errors and 2 info findings (1 fixable).\n"
    )
    assert render("text", sample_results(), RULES, statistics=True) == expected
    assert render("concise", sample_results(), RULES, statistics=True) == expected
    assert render("text", [], RULES, statistics=True) == "All checks passed!\n"


def test_statistics_pads_columns():
    many = [F_BARE.with_(line=i) for i in range(1, 11)]
    out = render("text", [FileResult(path="b.py", findings=many + [F_PRINT.with_(path="b.py")])],
                 RULES, statistics=True)
    assert out == "10  MSG902      dynamic-shape\n 1  MSG901  [*] print-in-graph\nFound 1 error and 10 info findings (1 fixable).\n"


# ------------------------------------------------------------------------- concise
def test_concise():
    assert render("concise", sample_results(), RULES) == (
        "pkg/model.py:3:5: MSG902 shape depends on data\n"
        "pkg/model.py:7:12: MSG002 Unused `noqa` directive (MSG901)\n"
        "pkg/model.py:12:9: MSG901 [*] print() is not supported in graph mode\n"
        "b.py:1:1: MSG902 50% slower, see a:b\n"
        "Found 2 errors and 2 info findings (1 fixable).\n"
    )
    assert render("concise", [], RULES) == "All checks passed!\n"


# -------------------------------------------------------------------------- github
def test_github():
    assert render("github", sample_results(), RULES) == (
        "::warning file=pkg/model.py,line=3,col=5,endLine=5,endColumn=2,"
        "title=MSG902 dynamic-shape::shape depends on data\n"
        "::notice file=pkg/model.py,line=7,col=12,endLine=7,endColumn=26,"
        "title=MSG002 unused-suppression::Unused `noqa` directive (MSG901)\n"
        "::error file=pkg/model.py,line=12,col=9,endLine=12,endColumn=17,"
        "title=MSG901 print-in-graph::print() is not supported in graph mode\n"
        "::notice file=b.py,line=1,col=1,title=MSG902 dynamic-shape::50%25 slower, see a:b\n"
    )
    assert render("github", [], RULES) == ""


def test_github_escaping():
    odd = Finding(code="MSG902", name="dynamic-shape", message="bad 100%\r\nline2: a,b",
                  path="we,ird:dir/50%.py", line=2, col=2, end_col=4, severity=Severity.WARNING)
    odd_title = odd.with_(name="x,y:z%\nw", message="%0A is literal", end_col=None)
    out = render("github", [FileResult(path=odd.path, findings=[odd, odd_title])], {})
    assert out == (
        "::warning file=we%2Cird%3Adir/50%25.py,line=2,col=3,endLine=2,endColumn=5,"
        "title=MSG902 dynamic-shape::bad 100%25%0D%0Aline2: a,b\n"
        "::warning file=we%2Cird%3Adir/50%25.py,line=2,col=3,"
        "title=MSG902 x%2Cy%3Az%25%0Aw::%250A is literal\n"
    )


# ---------------------------------------------------------------------------- json
def _json_schema():
    return json.loads((Path(json_reporter.__file__).parent.parent / "data" / "findings.schema.json").read_text())


def test_json_document_matches_its_schema_and_content():
    schema = _json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert json_reporter.load_schema() == schema  # shipped as package data

    doc = json.loads(render("json", sample_results(), RULES))
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)

    assert doc["schema_version"] == "2.4"
    assert doc["tool"] == {"name": "msgraphlint", "version": __version__}
    assert doc["summary"] == {"files": 3, "findings": 4, "fixable": 1, "hidden_fixes": 0,
                              "by_code": {"MSG002": 1, "MSG901": 1, "MSG902": 2}}
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [
        ("MSG902", 3), ("MSG002", 7), ("MSG901", 12), ("MSG902", 1)]
    printed = doc["findings"][2]
    assert printed == {
        "code": "MSG901", "name": "print-in-graph",
        "message": "print() is not supported in graph mode", "detail": None, "severity": "error",
        "path": "pkg/model.py", "line": 12, "column": 9, "end_line": 12, "end_column": 17,
        "hint": "use ops.Print", "chain": ["called from Net.construct (pkg/model.py:4)"],
        "fix": {"description": "Replace print with ops.Print", "safety": "safe",
                "edits": [{"line": 12, "column": 9, "end_line": 12, "end_column": 14,
                           "text": "ops.Print"}]},
        "alternatives": [], "source_line": "        print(x)\n", "origin": None,
    }
    bare = doc["findings"][3]
    assert (bare["column"], bare["end_line"], bare["end_column"], bare["fix"], bare["source_line"],
            bare["severity"], bare["hint"]) == (1, None, None, None, None, "info", "use ops.masked_select")


def test_json_schema_rejects_zero_based_columns():
    doc = json.loads(render("json", sample_results(), RULES))
    doc["findings"][0]["column"] = 0
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(_json_schema()).validate(doc)


def test_json_empty():
    doc = json.loads(render("json", [], RULES))
    jsonschema.Draft202012Validator(_json_schema()).validate(doc)
    assert doc["findings"] == [] and doc["summary"]["findings"] == 0


# --------------------------------------------------------------------------- sarif
@pytest.fixture(scope="module")
def sarif_validator():
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def _sarif(results, rules=RULES, **kw):
    return json.loads(render("sarif", results, rules, **kw))


def test_sarif_validates_against_the_official_schema(sarif_validator):
    log = _sarif(sample_results())
    errors = list(sarif_validator.iter_errors(log))
    assert errors == []
    # the schema declares draft-04; it passes under that dialect as well
    declared = jsonschema.validators.validator_for(sarif_validator.schema)
    assert declared is jsonschema.Draft4Validator
    declared(sarif_validator.schema).validate(log)
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1


def test_sarif_schema_is_not_a_rubber_stamp(sarif_validator):
    log = _sarif(sample_results())
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    assert not sarif_validator.is_valid(log)
    log = _sarif(sample_results())
    log["runs"][0]["results"][0]["level"] = "info"
    assert not sarif_validator.is_valid(log)


def test_sarif_driver_rules():
    run = _sarif(sample_results())["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "msgraphlint"
    assert driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    assert [r["id"] for r in rules] == ["MSG901", "MSG902", "MSG002"]  # active rules by code, then fallbacks
    pr = rules[0]
    assert pr["name"] == "print-in-graph"
    assert pr["shortDescription"] == {"text": "print() inside a graph-mode scope"}
    assert pr["fullDescription"] == {"text": "Python's print runs once at compile time in graph mode."}
    assert pr["help"] == {"text": PrintRule.docs(), "markdown": PrintRule.docs()}
    assert "helpUri" not in pr  # a rule outside msgraphlint_rules (a plugin's) has no page to link
    assert pr["defaultConfiguration"] == {"level": "error"}
    assert rules[1]["defaultConfiguration"] == {"level": "warning"}
    assert rules[1]["fullDescription"] == {"text": "data-dependent shape"}  # no rationale: the summary
    # every result points at its own rule
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]


def test_sarif_results_levels_regions_and_fix():
    run = _sarif(sample_results())["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert "originalUriBaseIds" not in run
    res = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r
           for r in run["results"]}
    assert [r["level"] for r in run["results"]] == ["warning", "note", "error", "note"]

    printed = res[("MSG901", 12)]
    loc = printed["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "pkg/model.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 12, "startColumn": 9, "endLine": 12, "endColumn": 17}
    assert loc["contextRegion"]["snippet"] == {"text": "        print(x)"}
    assert printed["message"] == {"text": "print() is not supported in graph mode"}
    assert printed["properties"]["chain"] == ["called from Net.construct (pkg/model.py:4)"]
    assert printed["fixes"] == [{
        "description": {"text": "Replace print with ops.Print"},
        "artifactChanges": [{
            "artifactLocation": {"uri": "pkg/model.py", "uriBaseId": "%SRCROOT%"},
            "replacements": [{
                "deletedRegion": {"startLine": 12, "startColumn": 9, "endLine": 12, "endColumn": 14},
                "insertedContent": {"text": "ops.Print"},
            }],
        }],
        "properties": {"safety": "safe"},
    }]
    assert "fixes" not in res[("MSG902", 3)]
    assert res[("MSG902", 3)]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3, "startColumn": 5, "endLine": 5, "endColumn": 2}
    assert res[("MSG902", 1)]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 1, "startColumn": 1}


def test_sarif_uris_relative_to_root(tmp_path, sarif_validator):
    inside = tmp_path / "src" / "my model.py"
    outside = tmp_path.parent / "elsewhere.py"
    results = [FileResult(path=str(inside), findings=[F_BARE.with_(path=str(inside))]),
               FileResult(path=str(outside), findings=[F_BARE.with_(path=str(outside))])]
    log = _sarif(results, root=str(tmp_path))
    assert sarif_validator.is_valid(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}
    first, second = (r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"])
    assert first == {"uri": "src/my%20model.py", "uriBaseId": "%SRCROOT%"}
    assert second == {"uri": outside.as_uri()}


def _fingerprint(result):
    return result["partialFingerprints"][sarif_reporter.FINGERPRINT_KEY]


def _at(line, text="    print(x)", code="MSG901", path="m.py"):
    return Finding(code=code, name="print-in-graph", message="print() is not supported",
                   path=path, line=line, col=4, end_line=line, end_col=12, source_line=text)


def test_sarif_fingerprints_survive_unrelated_lines_moving():
    before = _sarif([FileResult(path="m.py", findings=[_at(10), _at(20, "    print(y)")])])
    after = _sarif([FileResult(path="m.py", findings=[_at(13), _at(23, "    print(y)")])])
    assert ([_fingerprint(r) for r in before["runs"][0]["results"]]
            == [_fingerprint(r) for r in after["runs"][0]["results"]])
    # re-indenting the flagged line doesn't change it either
    reindented = _sarif([FileResult(path="m.py", findings=[_at(13, "\t\tprint(x)  ")])])
    assert _fingerprint(reindented["runs"][0]["results"][0]) == _fingerprint(before["runs"][0]["results"][0])


def test_sarif_fingerprints_tell_identical_lines_apart():
    log = _sarif([FileResult(path="m.py", findings=[_at(10), _at(30)])])
    first, second = (_fingerprint(r) for r in log["runs"][0]["results"])
    assert first != second
    # ... and the second one is still the second one after both move
    moved = _sarif([FileResult(path="m.py", findings=[_at(14), _at(35)])])
    assert [_fingerprint(r) for r in moved["runs"][0]["results"]] == [first, second]


def test_sarif_fingerprints_depend_on_code_path_and_text():
    base = _fingerprint(_sarif([FileResult(path="m.py", findings=[_at(10)])])["runs"][0]["results"][0])
    other = [
        _at(10, code="MSG902"),
        _at(10, path="n.py"),
        _at(10, text="    print(z)"),
    ]
    prints = {_fingerprint(_sarif([FileResult(path=f.path, findings=[f])])["runs"][0]["results"][0])
              for f in other}
    assert base not in prints and len(prints) == 3


def test_sarif_empty_is_valid(sarif_validator):
    log = _sarif([])
    assert sarif_validator.is_valid(log)
    assert log["runs"][0]["results"] == []
    # only the rules that produced results are described (ruff's behaviour) ...
    assert log["runs"][0]["tool"]["driver"]["rules"] == []
    # ... unless every active rule is asked for (--sarif-all-rules)
    full = json.loads(render("sarif", [], RULES, all_rules=True))
    assert sarif_validator.is_valid(full)
    assert [r["id"] for r in full["runs"][0]["tool"]["driver"]["rules"]] == sorted(RULES)


def test_sarif_describes_only_reported_rules(sarif_validator):
    log = json.loads(render("sarif", [FileResult(path="b.py", findings=[F_BARE])], RULES))
    assert sarif_validator.is_valid(log)
    assert [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]] == ["MSG902"]
    assert log["runs"][0]["results"][0]["ruleIndex"] == 0


# ------------------------------------------------------------------ registry/render
def test_registry_and_unknown_format():
    assert set(REPORTERS) == {"text", "concise", "json", "sarif", "github", "gitlab", "junit", "pylint", "json-lines"}
    for fmt, reporter in REPORTERS.items():
        assert reporter(sample_results(), RULES) == render(fmt, sample_results(), RULES)
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        render("xml", sample_results(), RULES)


@pytest.mark.parametrize("fmt", sorted(REPORTERS))
def test_every_format_ends_with_a_newline_or_is_empty(fmt):
    out = render(fmt, sample_results(), RULES)
    assert out.endswith("\n")


def test_one_based_columns_everywhere():
    f = Finding(code="MSG901", name="print-in-graph", message="m", path="c.py", line=5, col=0,
                end_line=5, end_col=3, source_line="abc")
    results = [FileResult(path="c.py", findings=[f])]
    assert render("concise", results, {}).startswith("c.py:5:1: MSG901 m\n")
    assert render("text", results, {}).startswith("c.py:5:1: MSG901 m\n")
    assert "line=5,col=1,endLine=5,endColumn=4," in render("github", results, {})
    jf = json.loads(render("json", results, {}))["findings"][0]
    assert (jf["column"], jf["end_column"]) == (1, 4)
    region = json.loads(render("sarif", results, {}))["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"]["region"]
    assert (region["startColumn"], region["endColumn"]) == (1, 4)


def test_json_format_doc_example_and_fields_match_the_schema():
    doc = (Path(__file__).parent.parent / "docs" / "json-format.md").read_text(encoding="utf-8")
    example = doc.split("## Example", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    schema = _json_schema()
    jsonschema.Draft202012Validator(schema).validate(json.loads(example))
    for field in schema["$defs"]["finding"]["properties"]:
        assert f"| `{field}` |" in doc, field

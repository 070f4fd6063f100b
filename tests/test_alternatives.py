"""``Finding.alternatives`` where the user looks (MSG510's two readings of
``nn.Dropout(0.1)``): the editor's quick fixes, JSON, SARIF and the ``--diff`` /
``--show-fixes`` text. None of them is ever applied on its own."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from helpers import run_cli
from lsp_support import SERVER, apply_text_edits, initialize, open_doc, workspace_edits
from msgraphlint.findings import Edit, FileResult, Finding, Fix, FixSafety, Severity

DATA = Path(__file__).parent / "data"
SRC = "import mindspore.nn as nn\nfrom mindspore import ops\ndrop = nn.Dropout(0.1)\nd2 = nn.Dropout(keep_prob=0.9)\n"
KEEP = "use p=0.9 (keeps today's behaviour: MindSpore reads 0.1 as keep_prob)"
MEANT = "use p=0.1 (PyTorch's reading: drop 0.1; changes what the code does)"

# a hand-made finding like MSG510's (reporters are tested without the engine)
ALT_FINDING = Finding(
    code="MSG510", name="dropout-keep-prob", message="nn.Dropout(0.1) binds 0.1 to keep_prob",
    path="net.py", line=3, col=18, end_line=3, end_col=21, severity=Severity.WARNING,
    source_line="drop = nn.Dropout(0.1)\n",
    alternatives=(Fix(KEEP, (Edit(3, 18, 3, 21, "p=0.9"),), FixSafety.UNSAFE),
                  Fix(MEANT, (Edit(3, 18, 3, 21, "p=0.1"),), FixSafety.UNSAFE)),
)
SAFE_FINDING = Finding(
    code="MSG510", name="dropout-keep-prob", message="keep_prob is deprecated", path="net.py", line=4, col=16,
    end_line=4, end_col=29, fix=Fix("use p = 1 - keep_prob", (Edit(4, 16, 4, 29, "p=0.1"),)),
    source_line="d2 = nn.Dropout(keep_prob=0.9)\n",
)


def _results():
    return [FileResult(path="net.py", findings=[ALT_FINDING, SAFE_FINDING], lines=4)]


def _rules():
    from msgraphlint.engine.registry import load_rules
    return load_rules()


# ------------------------------------------------------------------------------ LSP (unit)

def _doc(text=SRC, version=7):
    from msgraphlint.lsp.documents import Document
    return Document(uri="file:///w/net.py", text=text, version=version)


def _params(line0, line1, only=None):
    return lsp.CodeActionParams(text_document=lsp.TextDocumentIdentifier(uri="file:///w/net.py"),
                                range=lsp.Range(lsp.Position(line0, 0), lsp.Position(line1, 0)),
                                context=lsp.CodeActionContext(diagnostics=[], only=only))


def test_lsp_each_alternative_is_an_unsafe_quick_fix_for_the_analysed_version():
    from msgraphlint.lsp.actions import code_actions

    actions = code_actions(_params(2, 2), _doc(), [ALT_FINDING], "utf-16", True)
    alts = [a for a in actions if "suppress" not in a.title]
    assert [a.title for a in alts] == [f"MSG510: {KEEP} (unsafe)", f"MSG510: {MEANT} (unsafe)"]
    for a, want in zip(alts, ("p=0.9", "p=0.1")):
        assert a.kind == lsp.CodeActionKind.QuickFix and a.is_preferred is False
        version, edits = workspace_edits(a.edit, "file:///w/net.py")
        assert version == 7
        assert apply_text_edits(SRC, edits) == SRC.replace("nn.Dropout(0.1)", f"nn.Dropout({want})")
    # clients without versioned edits get the plain changes map
    plain = code_actions(_params(2, 2), _doc(), [ALT_FINDING], "utf-16", False)
    assert [workspace_edits(a.edit, "file:///w/net.py")[1][0].new_text for a in plain
            if "suppress" not in a.title] == ["p=0.9", "p=0.1"]
    # a fix-all request gets no alternative, and a line elsewhere none either
    assert not [a for a in code_actions(_params(2, 2, only=[lsp.CodeActionKind.SourceFixAll]), _doc(),
                                        [ALT_FINDING], "utf-16", True) if a.kind == lsp.CodeActionKind.QuickFix]
    assert code_actions(_params(0, 0), _doc(), [ALT_FINDING], "utf-16", True) == []


def test_lsp_alternative_edits_are_clamped_to_the_document():
    """An alternative's edit past the document's last line lands at its end, as a fix's does."""
    from msgraphlint.lsp.actions import code_actions

    far = ALT_FINDING.with_(alternatives=(Fix("append", (Edit(40, 0, 40, 0, "x = 1\n"),), FixSafety.UNSAFE),))
    [a] = [a for a in code_actions(_params(2, 2), _doc(), [far], "utf-16", True) if "suppress" not in a.title]
    _, [edit] = workspace_edits(a.edit, "file:///w/net.py")
    assert (edit.range.start.line, edit.range.start.character) == (4, 0)


@pytest.mark.parametrize("line, want", [
    ("y = f(x)  # noqa: msg510", "y = f(x)  # noqa: MSG510"),
    ("y = f(x)  # noqa: msg510, E501", "y = f(x)  # noqa: E501, MSG510"),
    ("y = f(x)  # noqa: E501", "y = f(x)  # noqa: E501, MSG510"),
    ("y = f(x)  # noqa: MSG510", "y = f(x)  # noqa: MSG510"),
    ("y = f(x)  # noqa", "y = f(x)  # noqa"),
    ("y = f(x)", "y = f(x)  # noqa: MSG510"),
])
def test_lsp_suppress_edit_replaces_a_wrong_case_code_as_add_noqa_does(line, want):
    from msgraphlint.lsp.actions import suppress_edit
    from msgraphlint.fix.noqa import add_to_line

    f = ALT_FINDING.with_(line=1, col=0)
    edit = suppress_edit(f, _doc(line + "\n"), "utf-16")
    assert edit.new_text == want == add_to_line(line, ["MSG510"])
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (0, 0, len(line))


VERSIONED = lsp.ClientCapabilities(workspace=lsp.WorkspaceClientCapabilities(
    workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True)))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await initialize(lsp_client, tmp_path_factory.mktemp("ws"), capabilities=VERSIONED, options={"debounce_ms": 10})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_lsp_server_offers_both_readings_and_fix_all_applies_neither(client: LanguageClient):
    uri = (Path(client.root) / "net.py").as_uri()
    await open_doc(client, uri, SRC)
    diags = [d for d in client.diagnostics[uri] if d.code == "MSG510" and d.range.start.line == 2]
    assert len(diags) == 1
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=diags[0].range,
        context=lsp.CodeActionContext(diagnostics=diags)))
    alts = [a for a in actions if a.title in (f"MSG510: {KEEP} (unsafe)", f"MSG510: {MEANT} (unsafe)")]
    assert [a.title for a in alts] == [f"MSG510: {KEEP} (unsafe)", f"MSG510: {MEANT} (unsafe)"]
    for a, want in zip(alts, ("p=0.9", "p=0.1")):
        assert not a.is_preferred and a.kind == lsp.CodeActionKind.QuickFix
        version, edits = workspace_edits(a.edit, uri)
        assert version == 1 and apply_text_edits(SRC, edits) == SRC.replace("Dropout(0.1)", f"Dropout({want})")
    fix_all = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(lsp.Position(0, 0), lsp.Position(9, 0)),
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.SourceFixAll])))
    [action] = [a for a in fix_all if a.kind == "source.fixAll.msgraphlint"]
    _, edits = workspace_edits(action.edit, uri)
    assert apply_text_edits(SRC, edits) == SRC.replace("keep_prob=0.9", "p=0.1")  # the safe fix only


# ------------------------------------------------------------------------------ JSON

def test_json_alternatives_array_and_schema_2_2():
    from msgraphlint.reporters import render
    from msgraphlint.reporters import json as json_reporter

    doc = json.loads(render("json", _results(), _rules()))
    jsonschema.Draft202012Validator(json_reporter.load_schema()).validate(doc)
    assert doc["schema_version"] == "2.4"
    alt, safe = doc["findings"]
    assert alt["fix"] is None and alt["alternatives"] == [
        {"description": KEEP, "safety": "unsafe",
         "edits": [{"line": 3, "column": 19, "end_line": 3, "end_column": 22, "text": "p=0.9"}]},
        {"description": MEANT, "safety": "unsafe",
         "edits": [{"line": 3, "column": 19, "end_line": 3, "end_column": 22, "text": "p=0.1"}]}]
    assert safe["alternatives"] == [] and safe["fix"]["safety"] == "safe"
    assert (doc["summary"]["fixable"], doc["summary"]["hidden_fixes"]) == (1, 0)  # alternatives are not fixes
    # the schema requires the key and holds its items to the fix shape
    schema = json_reporter.load_schema()
    del alt["alternatives"]
    assert not jsonschema.Draft202012Validator(schema).is_valid(doc)
    alt["alternatives"] = [{"description": "x", "safety": "maybe", "edits": []}]
    assert not jsonschema.Draft202012Validator(schema).is_valid(doc)


def test_json_alternatives_from_a_real_run(tmp_path):
    (tmp_path / "net.py").write_text(SRC)
    r = run_cli("check", "--output-format", "json", "--select", "MSG510", str(tmp_path / "net.py"))
    doc = json.loads(r.output)
    [alt] = [f for f in doc["findings"] if f["line"] == 3]
    assert [a["edits"][0]["text"] for a in alt["alternatives"]] == ["p=0.9", "p=0.1"]
    assert {a["safety"] for a in alt["alternatives"]} == {"unsafe"} and alt["fix"] is None


# ------------------------------------------------------------------------------ SARIF

def test_sarif_fixes_lists_the_fix_and_every_alternative():
    from msgraphlint.reporters import render

    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    both = ALT_FINDING.with_(fix=Fix("the fix", (Edit(3, 0, 3, 4, "dr"),), FixSafety.UNSAFE))
    log = json.loads(render("sarif", [FileResult(path="net.py", findings=[both, SAFE_FINDING])], _rules()))
    assert list(jsonschema.Draft7Validator(schema).iter_errors(log)) == []
    first, second = log["runs"][0]["results"]
    assert [fx["description"]["text"] for fx in first["fixes"]] == ["the fix", KEEP, MEANT]
    assert [fx["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] for fx in first["fixes"]] == [
        "dr", "p=0.9", "p=0.1"]
    assert [fx["properties"] for fx in first["fixes"]] == [
        {"safety": "unsafe"}, {"safety": "unsafe", "alternative": True}, {"safety": "unsafe", "alternative": True}]
    assert [fx["description"]["text"] for fx in second["fixes"]] == ["use p = 1 - keep_prob"]
    # alternatives alone (MSG510 has no fix)
    log = json.loads(render("sarif", [FileResult(path="net.py", findings=[ALT_FINDING])], _rules()))
    assert list(jsonschema.Draft7Validator(schema).iter_errors(log)) == []
    [res] = log["runs"][0]["results"]
    assert [fx["description"]["text"] for fx in res["fixes"]] == [KEEP, MEANT]


# ------------------------------------------------------------------------------ --diff / --show-fixes

NOTE = "net.py:3:19: MSG510 (dropout-keep-prob) has 2 alternative fixes; none is applied automatically:"


@pytest.mark.parametrize("args", [("--diff",), ("--diff", "--show-fixes"), ("--show-fixes",),
                                  ("--fix", "--show-fixes"), ("--fix", "--unsafe-fixes", "--show-fixes"),
                                  ("--diff", "--unsafe-fixes")])
def test_diff_and_show_fixes_say_the_alternatives_and_that_none_is_applied(tmp_path, monkeypatch, args):
    p = tmp_path / "net.py"
    p.write_text(SRC)
    monkeypatch.chdir(tmp_path)
    r = run_cli("check", *args, "--select", "MSG510", "net.py")
    out = r.output  # stdout and stderr
    assert out.count(NOTE) == 1, out
    assert f"    1. {KEEP}\n    2. {MEANT}\n" in out
    assert "Not fixed automatically" in out
    # never [*] for the finding with alternatives; the Dropout(0.1) line is never rewritten
    assert "net.py:3:19: MSG510 [*]" not in out
    assert "drop = nn.Dropout(0.1)\n" in p.read_text()
    if "--diff" in args:
        assert "+drop" not in out and "-drop" not in out
    if "--fix" in args:
        assert "Fixed 1 error:\n- net.py:\n    1 × MSG510 (dropout-keep-prob)\n" in out


def test_no_note_without_alternatives(tmp_path, monkeypatch):
    (tmp_path / "net.py").write_text("import mindspore.nn as nn\nd2 = nn.Dropout(keep_prob=0.9)\n")
    monkeypatch.chdir(tmp_path)
    for args in (("--diff",), ("--show-fixes",)):
        r = run_cli("check", *args, "--select", "MSG510", "net.py")
        assert "alternative" not in r.output

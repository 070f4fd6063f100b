"""The language server end to end, through a real LSP client over stdio (pytest-lsp)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

BAD = ("import mindspore.nn as nn\nfrom mindspore import ops\n\nclass Net(nn.Cell):\n"
       "    def construct(self, x):\n        print(x)\n        return x\n")
CLEAN = BAD.replace("        print(x)\n", "")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "msgraphlint", "lsp"]))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "pyproject.toml").write_text("[tool.msgraphlint]\n")
    lsp_client.root = root
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"debounce_ms": 10}))
    yield
    await lsp_client.shutdown_session()


async def _open(client, name, text):
    uri = (Path(client.root) / name).as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


async def _change(client, uri, version, text):
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=text)]))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


@pytest.mark.asyncio
async def test_diagnostics_on_open_and_edits_that_add_and_remove_findings(client: LanguageClient):
    uri = await _open(client, "net.py", CLEAN)
    assert client.diagnostics[uri] == []
    await _change(client, uri, 2, BAD)
    [d] = client.diagnostics[uri]
    assert d.code == "MSG201" and d.source == "msgraphlint"
    assert (d.range.start.line, d.range.start.character) == (5, 8)
    assert d.code_description.href.endswith("MSG201.md")
    await _change(client, uri, 3, CLEAN)
    assert client.diagnostics[uri] == []


@pytest.mark.asyncio
async def test_code_action_round_trip(client: LanguageClient):
    uri = await _open(client, "fixme.py", BAD)
    [d] = client.diagnostics[uri]
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[d])))
    titles = [a.title for a in actions]
    assert "MSG201: suppress on this line" in titles
    fix = next(a for a in actions if "print_" in a.title)
    [edit] = fix.edit.changes[uri]
    assert edit.new_text == "ops.print_"
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (5, 8, 13)
    # apply it as an editor would, and the finding goes away
    lines = BAD.splitlines(keepends=True)
    line = lines[5]
    lines[5] = line[:edit.range.start.character] + edit.new_text + line[edit.range.end.character:]
    await _change(client, uri, 2, "".join(lines))
    assert client.diagnostics[uri] == []
    # the suppression action also silences it
    sup = next(a for a in actions if a.title.endswith("suppress on this line"))
    [e] = sup.edit.changes[uri]
    assert e.new_text == "        print(x)  # noqa: MSG201"
    lines = BAD.splitlines(keepends=True)
    lines[5] = e.new_text + "\n"
    await _change(client, uri, 3, "".join(lines))
    assert client.diagnostics[uri] == []


@pytest.mark.asyncio
async def test_hover_on_finding_and_on_noqa_code(client: LanguageClient):
    text = BAD + "y = 1  # noqa: MSG201\n"
    uri = await _open(client, "hover.py", text)
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(5, 10)))
    assert "# MSG201 print-in-graph" in h.contents.value
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(7, 17)))
    assert h is not None and "# MSG201 print-in-graph" in h.contents.value


@pytest.mark.asyncio
async def test_a_broken_document_does_not_kill_the_server(client: LanguageClient):
    uri = await _open(client, "broken.py", "import mindspore\ndef f(:\n")
    [d] = client.diagnostics[uri]
    assert d.code == "MSG001"
    uri2 = await _open(client, "after.py", BAD)
    assert [d.code for d in client.diagnostics[uri2]] == ["MSG201"]

"""Edits from the language server can never corrupt a buffer (issue 12): code actions
and fix-all are computed against the current text or not at all, WorkspaceEdits carry
the document version, and every position uses the negotiated encoding."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (BAD, SERVER, apply_text_edits, initialize, open_doc, track_versions,
                         wait_diagnostics_for, workspace_edits)

VERSIONED = lsp.ClientCapabilities(workspace=lsp.WorkspaceClientCapabilities(
    workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True)))


def _with_encodings(*encodings):
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(position_encodings=list(encodings)),
        workspace=VERSIONED.workspace)


async def _fix_all(client, uri, last_line=200):
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(last_line, 0)),
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.SourceFixAll])))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def slow_client(lsp_client: LanguageClient, tmp_path_factory):
    """An editor-like debounce (150 ms), so a code action can arrive before the analysis
    of the edit it follows; the client supports versioned edits."""
    await initialize(lsp_client, tmp_path_factory.mktemp("ws"), capabilities=VERSIONED,
                     options={"debounce_ms": 150})
    track_versions(lsp_client)
    yield
    await lsp_client.shutdown_session()


# MSG510's safe fix (keep_prob=k -> p=1-k). The edit inserts two lines above the finding and
# a second Dropout, so every position computed for version 1 is wrong for version 2.
V1 = ("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
      "        self.dense = nn.Dense(4, 4)\n        self.drop = nn.Dropout(keep_prob=0.9)\n")
V2 = V1.replace("import mindspore.nn as nn\n", "import mindspore.nn as nn\nA = 1\nB = 2\n").replace(
    "        self.dense = nn.Dense(4, 4)\n",
    "        self.dense = nn.Dense(4, 4)\n        self.d2 = nn.Dropout(keep_prob=0.8)\n")
V2_FIXED = V2.replace("keep_prob=0.9", "p=0.1").replace("keep_prob=0.8", "p=0.2")  # by hand: p = 1 - keep_prob


@pytest.mark.asyncio
@pytest.mark.parametrize("delay_ms", [0, 10, 50])
async def test_fix_all_right_after_an_edit_fixes_the_new_text(slow_client: LanguageClient, delay_ms):
    client = slow_client
    uri = (client.root / f"stale{delay_ms}.py").as_uri()
    await open_doc(client, uri, V1)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=V2)]))
    await asyncio.sleep(delay_ms / 1000)
    actions = await _fix_all(client, uri)
    [action] = [a for a in actions if a.kind == "source.fixAll.msgraphlint"]
    version, edits = workspace_edits(action.edit, uri)
    assert version == 2
    buffer = apply_text_edits(V2, edits)
    ast.parse(buffer)
    assert buffer == V2_FIXED
    # and a fresh fix of the new text by the CLI gives the same buffer
    fresh = subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--fix", "--stdin-filename",
                            f"stale{delay_ms}.py", "-"], input=V2, capture_output=True, text=True, cwd=client.root)
    assert fresh.stdout == buffer, fresh.stderr


P2 = BAD.replace("from mindspore import ops\n", "from mindspore import ops\nA = 1\nB = 2\n")


@pytest.mark.asyncio
async def test_quick_fix_after_an_edit_uses_the_new_positions(slow_client: LanguageClient):
    client = slow_client
    uri = (client.root / "quick.py").as_uri()
    await open_doc(client, uri, BAD)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=P2)]))
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=lsp.Range(lsp.Position(7, 0), lsp.Position(7, 20)),
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.QuickFix])))
    fix = next(a for a in actions if "print_" in a.title)
    version, edits = workspace_edits(fix.edit, uri)
    assert version == 2
    assert apply_text_edits(P2, edits) == P2.replace("        print(x)\n", "        ops.print_(x)\n")


@pytest.mark.asyncio
async def test_a_code_action_for_an_edit_still_changing_returns_nothing_stale(slow_client: LanguageClient):
    """An edit arriving while the action waits for the analysis: the answer is for the
    newest version, or empty; never for the one in between."""
    client = slow_client
    uri = (client.root / "moving.py").as_uri()
    await open_doc(client, uri, V1)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=V2)]))
    pending = asyncio.ensure_future(_fix_all(client, uri))
    await asyncio.sleep(0)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=V1)]))
    actions = await pending
    for action in actions:
        version, edits = workspace_edits(action.edit, uri)
        current = {2: V2, 3: V1}[version]
        ast.parse(apply_text_edits(current, edits))
        assert version == 3 or apply_text_edits(V2, edits) == V2_FIXED


# position encodings ------------------------------------------------------------------

@contextlib.asynccontextmanager
async def _client():
    client = await ClientServerConfig(server_command=SERVER).start()
    try:
        yield client
    finally:
        await client.stop()


WIDE = ("import mindspore.nn as nn\nfrom mindspore import ops\n\nclass Net(nn.Cell):\n"
        "    def construct(self, x):\n        s = '中文😀'; print(x)\n        return x\n")
FORM_FEED = WIDE.replace("\nclass Net", "\n\x0c\nclass Net")  # str.splitlines() sees one more line


@pytest.mark.asyncio
@pytest.mark.parametrize("offered, chosen, start", [
    # `        s = '中文😀'; print(x)`: 8 + len("s = '") + 中文😀 + len("'; ") before print
    ((), "utf-16", 8 + 5 + (1 + 1 + 2) + 3),              # the spec's default: 😀 is a surrogate pair
    (("utf-8", "utf-16"), "utf-8", 8 + 5 + (3 + 3 + 4) + 3),  # the client's first preference: bytes
    (("utf-32",), "utf-32", 8 + 5 + 3 + 3),                # code points
])
async def test_positions_use_the_negotiated_encoding(tmp_path, offered, chosen, start):
    async with _client() as client:
        await _encoding_case(client, tmp_path, offered, chosen, start)


async def _encoding_case(client, tmp_path, offered, chosen, start):
    result = await initialize(client, tmp_path, capabilities=_with_encodings(*offered))
    assert result.capabilities.position_encoding == chosen
    uri = (tmp_path / "wide.py").as_uri()
    await open_doc(client, uri, WIDE)
    [d] = client.diagnostics[uri]
    assert (d.range.start.line, d.range.start.character) == (5, start)
    assert d.range.end.character == start + len("print(x)")
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(5, start + 2)))
    assert h is not None and "MSG201" in h.contents.value
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[d])))
    fix = next(a for a in actions if "print_" in a.title)
    _, edits = workspace_edits(fix.edit, uri)
    assert apply_text_edits(WIDE, edits, chosen) == WIDE.replace("; print(x)", "; ops.print_(x)")
    await client.shutdown_session()


@pytest.mark.asyncio
async def test_a_form_feed_line_does_not_shift_positions(tmp_path):
    async with _client() as client:
        await _form_feed_case(client, tmp_path)


async def _form_feed_case(client, tmp_path):
    await initialize(client, tmp_path)
    uri = (tmp_path / "ff.py").as_uri()
    await open_doc(client, uri, FORM_FEED)
    [d] = client.diagnostics[uri]
    assert (d.range.start.line, d.range.start.character) == (6, 20)
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[d])))
    fix = next(a for a in actions if "print_" in a.title)
    _, edits = workspace_edits(fix.edit, uri)
    assert apply_text_edits(FORM_FEED, edits) == FORM_FEED.replace("; print(x)", "; ops.print_(x)")
    await client.shutdown_session()

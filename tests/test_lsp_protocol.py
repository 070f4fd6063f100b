"""The language server survives any client: malformed messages are answered with the
right JSON-RPC error, out-of-range edits are clamped, ``shutdown`` is answered in every
state and ``didClose`` clears diagnostics (issues 14 and 15)."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (BAD, CLEAN, SERVER, Recorder, change_range, hover_within, initialize, open_doc, send_raw,
                         track_versions, wait_diagnostics_for)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await initialize(lsp_client, tmp_path_factory.mktemp("ws"))
    track_versions(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def bare(lsp_client: LanguageClient):
    """A server nobody has initialised."""
    yield


# out-of-range edits ---------------------------------------------------------------------

@pytest.mark.asyncio
async def test_out_of_range_edits_are_clamped_logged_and_the_server_answers(client: LanguageClient):
    root = client.root
    uri = (root / "clamp.py").as_uri()
    text = "".join(f"x{i} = {i}\n" for i in range(15))
    await open_doc(client, uri, text)
    cases = [((99999, 0), (99999, 5), "tail = 1\n"),          # past the end: appended at the end
             ((3, 99999), (3, 99999), "  # c"),               # past the end of line 3
             ((14, 0), (2, 0), ""),                           # reversed range: swapped, lines 2..13 removed
             ((0, 0), (99999, 99999), BAD)]                   # whole document, end clamped
    expected = text + "tail = 1\n"
    lines = expected.split("\n")
    lines[3] += "  # c"
    expected = "\n".join(lines)
    expected = "".join(expected.splitlines(keepends=True)[:2] + expected.splitlines(keepends=True)[14:])
    for version, (start, end, new) in enumerate(cases, start=2):
        change_range(client, uri, version, start, end, new)
        await hover_within(client, uri, 1.0)
    await wait_diagnostics_for(client, uri, 5)
    # the last edit replaced everything: the server's text is exactly BAD
    assert [d.code for d in client.diagnostics[uri]] == ["MSG201"]
    assert client.diagnostics[uri][0].range.start.line == 5
    logs = [m.message for m in client.log_messages if "clamped" in m.message]
    assert len(logs) == 4, logs
    assert "line 99999 is past the end (16 lines)" in logs[0]
    assert "character 99999 is past the end of line 3" in logs[1]
    assert "swapped" in logs[2]


@pytest.mark.asyncio
async def test_clamped_edits_give_the_text_an_editor_would_have(client: LanguageClient):
    """Check the clamped text itself: a document whose findings depend on it."""
    uri = (client.root / "clamp2.py").as_uri()
    await open_doc(client, uri, CLEAN)
    # insert the print at line 5 (inside construct) via a range whose end character is past the line
    change_range(client, uri, 2, (5, 0), (5, 0), "        print(x)\n")
    change_range(client, uri, 3, (99999, 3), (99999, 3), "# end\n")
    diags = await wait_diagnostics_for(client, uri, 3)
    assert [(d.code, d.range.start.line) for d in diags] == [("MSG201", 5)]


# malformed messages ---------------------------------------------------------------------

@pytest.mark.asyncio
async def test_malformed_requests_get_errors_with_the_right_codes(client: LanguageClient):
    rec = Recorder(client)
    uri = (client.root / "m.py").as_uri()
    await open_doc(client, uri, BAD)
    send_raw(client, b"{not json")                                                             # -32700, id null
    send_raw(client, {"jsonrpc": "2.0", "id": 101, "method": "textDocument/hover"})            # no params
    send_raw(client, {"jsonrpc": "2.0", "id": 102, "method": "textDocument/hover",
                      "params": {"textDocument": {"uri": uri}, "position": {"line": "x", "character": 0}}})
    send_raw(client, {"jsonrpc": "2.0", "id": 103, "method": "no/suchMethod", "params": {}})    # -32601
    send_raw(client, {"jsonrpc": "2.0", "id": 104, "method": 42})                              # -32600
    send_raw(client, {"jsonrpc": "1.0", "id": 105, "method": "textDocument/hover", "params": {}})
    send_raw(client, [{"jsonrpc": "2.0", "id": 106, "method": "shutdown"},
                      {"jsonrpc": "2.0", "method": "initialized", "params": {}}])              # batch
    send_raw(client, [])                                                                       # empty batch
    send_raw(client, b"42")                                                                    # not an object
    send_raw(client, {"jsonrpc": "2.0", "id": {"x": 1}, "method": "textDocument/hover"})       # bad id type
    codes = {}
    for msg_id in (101, 102, 103, 104, 105, 106):
        _, _, error = await rec.wait_for(msg_id)
        codes[msg_id] = error.code
    assert codes == {101: -32602, 102: -32602, 103: -32601, 104: -32600, 105: -32600, 106: -32600}
    null_errors = sorted(r[2].code for r in await rec.wait_count(10) if r[0] is None)
    assert null_errors == [-32700, -32600, -32600, -32600]
    # still alive, and still linting
    await hover_within(client, uri, 1.0, position=(5, 9))
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(5, 9)))
    assert "MSG201" in h.contents.value


@pytest.mark.asyncio
async def test_malformed_notifications_are_ignored_with_a_log_line(client: LanguageClient):
    rec = Recorder(client)
    uri = (client.root / "n.py").as_uri()
    await open_doc(client, uri, CLEAN)
    before = len(client.log_messages)
    send_raw(client, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"bogus": 1}})
    send_raw(client, {"jsonrpc": "2.0", "method": "textDocument/didOpen"})
    send_raw(client, {"jsonrpc": "2.0", "method": "no/suchNotification", "params": {}})
    send_raw(client, {"jsonrpc": "2.0", "method": 7})
    await hover_within(client, uri, 1.0)
    await asyncio.sleep(0.1)
    logs = [m.message for m in client.log_messages[before:]]
    assert any("ignored a malformed textDocument/didChange" in m for m in logs), logs
    assert any("ignored a malformed textDocument/didOpen" in m for m in logs), logs
    assert any("unknown method no/suchNotification" in m for m in logs), logs
    assert any("method is not a string" in m for m in logs), logs
    assert rec.responses == [(rec.responses[0][0], None, None)] if rec.responses else True  # only the hover
    assert all(r[2] is None for r in rec.responses)


@pytest.mark.asyncio
async def test_an_array_body_does_not_wedge_the_server(client: LanguageClient):
    """pygls 1.3.1 keeps a body that is not an object in its buffer and answers nothing
    after it, shutdown included (issue 15)."""
    uri = (client.root / "w.py").as_uri()
    await open_doc(client, uri, BAD)
    send_raw(client, b"[1, 2, 3]")
    send_raw(client, b'"a string"')
    await hover_within(client, uri, 1.0)
    # the fixture's shutdown_session also checks shutdown is answered afterwards


@pytest.mark.asyncio
async def test_garbage_framing_is_skipped(client: LanguageClient):
    uri = (client.root / "g.py").as_uri()
    await open_doc(client, uri, BAD)
    client.protocol.transport.write(b"X-Garbage: 1\r\n\r\n")  # a header block without Content-Length
    send_raw(client, b"\xff\xfe not utf-8")
    await hover_within(client, uri, 1.0)


# shutdown and didClose ------------------------------------------------------------------

@pytest.mark.asyncio
async def test_shutdown_is_answered_before_initialize_and_twice(bare: LanguageClient):
    rec = Recorder(bare)
    send_raw(bare, {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}})
    send_raw(bare, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    send_raw(bare, {"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
    send_raw(bare, {"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover", "params": {}})
    assert (await rec.wait_for(1))[2].code == -32002        # server not initialized
    assert (await rec.wait_for(2))[1:] == (None, None)
    assert (await rec.wait_for(3))[1:] == (None, None)
    assert (await rec.wait_for(4))[2].code == -32600        # after shutdown: refused, but answered
    send_raw(bare, {"jsonrpc": "2.0", "method": "exit"})
    await asyncio.wait_for(bare._server.wait(), 10)
    assert bare._server.returncode == 0


@pytest.mark.asyncio
async def test_shutdown_is_answered_while_a_big_document_is_analysed(bare: LanguageClient, tmp_path):
    rec = Recorder(bare)
    await initialize(bare, tmp_path)
    uri = (tmp_path / "big.py").as_uri()
    bare.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=BAD * 2000)))
    await asyncio.sleep(0.2)  # the analysis is running now
    send_raw(bare, {"jsonrpc": "2.0", "id": "s", "method": "shutdown"})
    assert (await rec.wait_for("s", timeout=1.0))[1:] == (None, None)
    send_raw(bare, {"jsonrpc": "2.0", "method": "exit"})
    await asyncio.wait_for(bare._server.wait(), 10)


@pytest.mark.asyncio
async def test_did_close_clears_diagnostics_even_with_an_analysis_pending(client: LanguageClient):
    path = client.root / "closing.py"
    path.write_text(BAD)  # on disk too, as an editor's files are
    uri = path.as_uri()
    await open_doc(client, uri, BAD)
    assert client.diagnostics[uri]
    # an edit whose (debounced) analysis is still pending when the document closes
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=BAD + "\n")]))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    await asyncio.sleep(0.5)
    assert client.diagnostics[uri] == []
    assert client.protocol_versions[uri] is None

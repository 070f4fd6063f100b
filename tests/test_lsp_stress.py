"""One server, every abuse from issue 14 in sequence, and after each one the server still
answers a hover within 1 s: 500 edits, invalid JSON, an out-of-range edit, malformed
requests, a syntax-error document, a 20,000-line document, ``untitled:`` buffers."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (BAD, CLEAN, SERVER, Recorder, big_module, change_range, hover_within, initialize, open_doc,
                         send_raw, track_versions, wait_diagnostics_for)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await initialize(lsp_client, tmp_path_factory.mktemp("ws"))
    track_versions(lsp_client)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_server_survives_everything_in_sequence(client: LanguageClient):
    root = client.root
    rec = Recorder(client)
    hovers = {}
    uri = (root / "typed.py").as_uri()
    await open_doc(client, uri, CLEAN)

    # 1. 500 edits as fast as the client can send them: 499 keystrokes into a comment, then a print
    line0 = "import mindspore.nn as nn"
    change_range(client, uri, 2, (0, len(line0)), (0, len(line0)), "  #")
    for n in range(498):
        change_range(client, uri, 3 + n, (0, len(line0) + 3 + n), (0, len(line0) + 3 + n), "x")
    change_range(client, uri, 501, (5, 0), (5, 0), "        print(x)\n")
    hovers["500 edits"] = await hover_within(client, uri)
    diags = await wait_diagnostics_for(client, uri, 501)
    assert [(d.code, d.range.start.line) for d in diags] == [("MSG201", 5)]

    # 2. invalid JSON
    send_raw(client, b'{"jsonrpc": "2.0", "id": 900, "method": ')
    hovers["invalid JSON"] = await hover_within(client, uri)

    # 3. an out-of-range edit (clamped: appended at the end)
    change_range(client, uri, 502, (99999, 0), (99999, 5), "z = 1\n")
    hovers["out-of-range edit"] = await hover_within(client, uri)
    diags = await wait_diagnostics_for(client, uri, 502)
    assert [(d.code, d.range.start.line) for d in diags] == [("MSG201", 5)]

    # 4. malformed requests
    send_raw(client, {"jsonrpc": "2.0", "id": 901, "method": "textDocument/codeAction"})
    send_raw(client, {"jsonrpc": "2.0", "id": 902, "method": "textDocument/hover", "params": [1, 2]})
    send_raw(client, {"jsonrpc": "2.0", "id": 903, "method": "msgraphlint/nothing", "params": {}})
    send_raw(client, [{"jsonrpc": "2.0", "id": 904, "method": "shutdown"}])
    hovers["malformed requests"] = await hover_within(client, uri)
    assert [(await rec.wait_for(i))[2].code for i in (901, 902, 903, 904)] == [-32602, -32602, -32601, -32600]

    # 5. a document with a syntax error
    broken = (root / "broken.py").as_uri()
    await open_doc(client, broken, "import mindspore\ndef f(:\n")
    assert [d.code for d in client.diagnostics[broken]] == ["MSG001"]
    hovers["syntax error"] = await hover_within(client, broken)

    # 6. a 20,000-line document: hover answers while it is analysed, then its diagnostics come
    big = (root / "big.py").as_uri()
    text = big_module(20_000)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=big, language_id="python", version=1, text=text)))
    hovers["20,000 lines"] = await hover_within(client, big)
    diags = await wait_diagnostics_for(client, big, 1, timeout=120)
    assert [(d.code, d.range.start.line) for d in diags] == [("MSG201", text.count("\n") - 2)]

    # 7. untitled buffers
    for n in (1, 2):
        untitled = f"untitled:Untitled-{n}"
        await open_doc(client, untitled, BAD)
        assert [d.code for d in client.diagnostics[untitled]] == ["MSG201"]
        hovers[f"untitled {n}"] = await hover_within(client, untitled, position=(5, 9))

    assert all(t < 1.0 for t in hovers.values()), hovers

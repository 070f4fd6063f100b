"""The language server publishes diagnostics for the files an open document reaches (issue
21 item 3): with only the caller open, the helper module it calls shows what
``msgraphlint check`` reports there (computed from disk, or from the helper's buffer
when it is open), and the caller shows the call-site finding (MSG004); they are cleared
when nothing open reaches the helper any more."""

from __future__ import annotations

import asyncio
import time

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER, change_full, initialize, open_doc, track_versions

HELPER = "def helper(x):\n    print(x)\n    return x * 2\n"
CALLER = ("import mindspore.nn as nn\nfrom utils import helper\n\n\nclass Net(nn.Cell):\n"
          "    def construct(self, x):\n        return helper(x)\n")
NO_CALL = CALLER.replace("return helper(x)", "return x")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    await initialize(lsp_client, root)
    (root / "utils.py").write_text(HELPER)
    (root / "model.py").write_text(CALLER)
    track_versions(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def _until(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


def _codes(client, uri):
    return [(d.range.start.line + 1, d.code) for d in client.diagnostics.get(uri, [])]


@pytest.mark.asyncio
async def test_a_helper_reached_from_the_open_caller_gets_its_diagnostics(client: LanguageClient):
    model, utils = (client.root / "model.py").as_uri(), (client.root / "utils.py").as_uri()
    await open_doc(client, model, CALLER)
    assert _codes(client, model) == [(7, "MSG004")]
    [echo] = client.diagnostics[model]
    assert "`helper()` reaches MSG201 (print-in-graph) at" in echo.message
    [origin] = echo.related_information
    assert origin.location.uri == utils and origin.location.range.start.line == 1
    # utils.py is not open: its diagnostics come from disk, published by the caller's analysis
    await _until(lambda: _codes(client, utils) == [(2, "MSG201")])
    assert client.published[utils] == [None]  # not a document version: the file on disk

    # the caller stops calling the helper: nothing open reaches it, its diagnostics are cleared
    await change_full(client, model, 2, NO_CALL)
    await _until(lambda: utils in client.diagnostics and client.diagnostics[utils] == [])
    assert _codes(client, model) == []

    # it calls it again, then the editor closes it: both files are cleared
    await change_full(client, model, 3, CALLER)
    await _until(lambda: _codes(client, utils) == [(2, "MSG201")])
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(model)))
    await _until(lambda: client.diagnostics.get(utils) == [] and client.diagnostics.get(model) == [])


@pytest.mark.asyncio
async def test_an_open_helper_is_read_from_its_buffer(client: LanguageClient):
    model, utils = (client.root / "model.py").as_uri(), (client.root / "utils.py").as_uri()
    await open_doc(client, model, CALLER)
    await _until(lambda: _codes(client, utils) == [(2, "MSG201")])
    # the helper opened with its print on another line: its own analysis publishes (version 1) ...
    await open_doc(client, utils, "\n" + HELPER)
    await _until(lambda: client.protocol_versions.get(utils) == 1 and _codes(client, utils) == [(3, "MSG201")])
    # ... and the print removed in the buffer (not saved): the caller's call-site finding goes
    await change_full(client, utils, 2, HELPER.replace("    print(x)\n", ""), wait=False)
    await _until(lambda: client.protocol_versions.get(utils) == 2 and _codes(client, utils) == [])
    await _until(lambda: _codes(client, model) == [])
    # the helper closed: the caller reaches it again, and it shows what the disk holds
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(utils)))
    await _until(lambda: _codes(client, utils) == [(2, "MSG201")] and client.protocol_versions.get(utils) is None)

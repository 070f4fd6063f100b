"""Analysis off the message loop (issue 14): a slow document never blocks hover or other
documents, a newer version interrupts the older analysis, a 20,000-line module gets its
diagnostics (or a diagnostic saying the time budget was hit); ``untitled:`` buffers and
Python files without ``.py`` are linted with the workspace's settings (issue 13)."""

from __future__ import annotations

import asyncio
import time

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import (BAD, SERVER, big_module, hover_within, initialize, open_doc, track_versions,
                         wait_diagnostics_for)

DROPOUT = ("\nclass D(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
           "        self.d = nn.Dropout(keep_prob=0.9)\n")
BIG = big_module(20_000)


async def _start(lsp_client, root, options=None, config="[tool.msgraphlint]\n"):
    await initialize(lsp_client, root, options=options)
    (root / "pyproject.toml").write_text(config)
    track_versions(lsp_client)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    # the workspace ignores MSG510: buffers that get the workspace's settings do not report it
    await _start(lsp_client, tmp_path_factory.mktemp("ws"), config='[tool.msgraphlint]\nignore = ["MSG510"]\n')
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def tight(lsp_client: LanguageClient, tmp_path_factory):
    """A server with a 0.3 s budget."""
    await _start(lsp_client, tmp_path_factory.mktemp("ws"), options={"budget_ms": 300})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_untitled_buffers_are_linted_with_the_workspace_settings(client: LanguageClient):
    for n, uri in enumerate(["untitled:Untitled-1", "untitled:/home/u/scratch 2"]):
        await open_doc(client, uri, BAD + DROPOUT)
        # MSG201 reported, MSG510 ignored by the workspace's pyproject.toml
        assert [d.code for d in client.diagnostics[uri]] == ["MSG201"], n


@pytest.mark.asyncio
async def test_python_files_without_a_py_name_are_linted(client: LanguageClient):
    uri = (client.root / "scripts" / "train").as_uri()
    await open_doc(client, uri, BAD + DROPOUT)
    assert [d.code for d in client.diagnostics[uri]] == ["MSG201"]
    # another language under a non-.py name is not ours: nothing is published for it
    other = (client.root / "notes.txt").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=other, language_id="plaintext", version=1, text=BAD)))
    await hover_within(client, other)
    await asyncio.sleep(0.3)
    assert other not in client.diagnostics


@pytest.mark.asyncio
async def test_a_big_document_blocks_neither_hover_nor_other_documents(client: LanguageClient):
    big = (client.root / "big.py").as_uri()
    small = (client.root / "small.py").as_uri()
    t0 = time.perf_counter()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=big, language_id="python", version=1, text=BIG)))
    await asyncio.sleep(0.05)
    assert await hover_within(client, big, 1.0) < 1.0
    await open_doc(client, small, BAD)
    small_done = time.perf_counter() - t0
    assert [d.code for d in client.diagnostics[small]] == ["MSG201"]
    diags = await wait_diagnostics_for(client, big, 1, timeout=120)
    big_done = time.perf_counter() - t0
    assert [(d.code, d.range.start.line) for d in diags] == [("MSG201", BIG.count("\n") - 2)]
    assert small_done < big_done, (small_done, big_done)  # the small one did not wait for the big one


@pytest.mark.asyncio
async def test_a_newer_version_interrupts_the_older_analysis(client: LanguageClient):
    big = (client.root / "big2.py").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=big, language_id="python", version=1, text=BIG)))
    await asyncio.sleep(0.3)  # version 1 is being analysed
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=big, version=2),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=BAD)]))
    diags = await wait_diagnostics_for(client, big, 2, timeout=60)
    assert [(d.code, d.range.start.line) for d in diags] == [("MSG201", 5)]
    assert client.published[big] == [2]  # nothing was ever published for version 1
    assert any("version 1 interrupted" in m.message for m in client.log_messages)


@pytest.mark.asyncio
async def test_the_time_budget_ends_in_a_diagnostic(tight: LanguageClient):
    client = tight
    big = (client.root / "huge.py").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=big, language_id="python", version=1, text=BIG)))
    [d] = await wait_diagnostics_for(client, big, 1, timeout=60)
    assert d.code == "time-budget" and "0.3 s of CPU time" in d.message
    await hover_within(client, big, 1.0)
    # a small document still fits the budget
    small = (client.root / "small.py").as_uri()
    await open_doc(client, small, BAD)
    assert [d.code for d in client.diagnostics[small]] == ["MSG201"]


@pytest.mark.asyncio
async def test_a_configuration_error_is_a_diagnostic_naming_it(client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msgraphlint]\nselect = "MSG201"\n')  # must be a list
    uri = (tmp_path / "m.py").as_uri()
    await open_doc(client, uri, BAD)
    [d] = client.diagnostics[uri]
    assert d.code == "config-error" and "pyproject.toml" in d.message and "select" in d.message, d.message
    await hover_within(client, uri)


def test_the_readme_states_the_server_settings_defaults():
    import re
    from pathlib import Path

    from msgraphlint.lsp import MsGraphLintServer
    from msgraphlint.lsp.analysis import TIME_BUDGET_S

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\s*\| `(\w+)` \| `(\d+)` \|", readme, re.M))
    server = MsGraphLintServer()
    assert rows == {"debounce_ms": str(round(server.debounce * 1000)), "budget_ms": str(round(TIME_BUDGET_S * 1000)),
                    "process_min_bytes": str(server.process_min_bytes)}

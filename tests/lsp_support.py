"""Shared helpers for the language-server tests (pytest-lsp clients talking to
``msgraphlint lsp`` over stdio)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

from lsprotocol import types as lsp

SERVER = [sys.executable, "-m", "msgraphlint", "lsp"]

BAD = ("import mindspore.nn as nn\nfrom mindspore import ops\n\nclass Net(nn.Cell):\n"
       "    def construct(self, x):\n        print(x)\n        return x\n")
CLEAN = BAD.replace("        print(x)\n", "")
FIXED = BAD.replace("print(x)", "ops.print_(x)")  # MSG201's safe fix, written out by hand


class Recorder:
    """Records every response the client receives, including those with an id it never
    sent (a parse error is answered with id null)."""

    def __init__(self, client) -> None:
        self.responses: List[tuple] = []
        original = client.protocol._handle_response

        def handle(msg_id, result=None, error=None):
            self.responses.append((msg_id, result, error))
            return original(msg_id, result, error)

        client.protocol._handle_response = handle

    async def wait_for(self, msg_id, timeout: float = 5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for r in self.responses:
                if r[0] == msg_id:
                    return r
            await asyncio.sleep(0.01)
        raise AssertionError(f"no response to id {msg_id!r} within {timeout} s; got {self.responses}")

    async def wait_count(self, n: int, timeout: float = 5.0) -> List[tuple]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and len(self.responses) < n:
            await asyncio.sleep(0.01)
        return list(self.responses)


def send_raw(client, body, *, header: Optional[bytes] = None) -> None:
    """Write one framed message (body: bytes, or anything JSON-serialisable) to the server."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
    for item in (body if isinstance(body, list) else [body]):
        if isinstance(item, dict) and isinstance(item.get("id"), (int, str)):
            client.protocol._result_types.setdefault(item["id"], None)  # so the client can decode the answer
    client.protocol.transport.write((header if header is not None else b"Content-Length: %d\r\n\r\n" % len(data))
                                    + data)


async def initialize(client, root: Path, *, capabilities: Optional[lsp.ClientCapabilities] = None,
                     options: Optional[Dict] = None):
    (root / "pyproject.toml").write_text("[tool.msgraphlint]\n")
    client.root = root
    return await client.initialize_session(lsp.InitializeParams(
        capabilities=capabilities or lsp.ClientCapabilities(), root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"debounce_ms": 10, **(options or {})}))


def diagnostics_waiter(client):
    """An awaitable for the next publishDiagnostics, created before the message that causes it."""
    return asyncio.wrap_future(client.protocol.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS))


async def open_doc(client, uri: str, text: str, language_id: str = "python", version: int = 1,
                   timeout: float = 30.0):
    waiter = diagnostics_waiter(client)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id=language_id, version=version, text=text)))
    return await asyncio.wait_for(waiter, timeout)


async def change_full(client, uri: str, version: int, text: str, wait: bool = True, timeout: float = 30.0):
    waiter = diagnostics_waiter(client) if wait else None
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=text)]))
    if waiter is not None:
        return await asyncio.wait_for(waiter, timeout)


def change_range(client, uri: str, version: int, start, end, text: str) -> None:
    """An incremental didChange replacing ``start``..``end`` ((line, character) pairs)."""
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeEvent_Type1(
            range=lsp.Range(lsp.Position(*start), lsp.Position(*end)), text=text)]))


async def wait_diagnostics_for(client, uri: str, version: int, timeout: float = 30.0) -> list:
    """Wait until the client holds diagnostics published for ``uri`` at ``version``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.protocol_versions.get(uri) == version:
            return client.diagnostics[uri]
        await asyncio.sleep(0.005)
    raise AssertionError(f"no diagnostics for {uri} at version {version} within {timeout} s "
                         f"(last: {client.protocol_versions.get(uri)})")


def track_versions(client) -> None:
    """Remember the version of the last publishDiagnostics per uri (client.protocol_versions)."""
    client.protocol_versions = {}
    client.published = {}  # uri -> [version of every publishDiagnostics]
    original = client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params: lsp.PublishDiagnosticsParams):
        client.protocol_versions[params.uri] = params.version
        client.published.setdefault(params.uri, []).append(params.version)
        return original(params)

    client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish


async def hover_within(client, uri: str, seconds: float = 1.0, position=(0, 0)) -> float:
    """Ask for a hover and return how long the answer took; fail past ``seconds``."""
    t0 = time.perf_counter()
    await asyncio.wait_for(client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(*position))), seconds)
    return time.perf_counter() - t0


def apply_text_edits(text: str, edits: List[lsp.TextEdit], encoding: str = "utf-16") -> str:
    """Apply LSP edits as an editor does (all ranges refer to the original text)."""
    import re

    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(pos: lsp.Position) -> int:
        if pos.line >= len(starts):
            return len(text)
        end = starts[pos.line + 1] if pos.line + 1 < len(starts) else len(text)
        line = text[starts[pos.line]:end].rstrip("\r\n")
        used = 0
        for i, ch in enumerate(line):
            if used >= pos.character:
                return starts[pos.line] + i
            used += len(ch.encode(encoding.replace("utf-16", "utf-16-le").replace("utf-32", "utf-32-le"))) // (
                2 if encoding == "utf-16" else 4 if encoding == "utf-32" else 1)
        return starts[pos.line] + len(line)

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def workspace_edits(edit: lsp.WorkspaceEdit, uri: str):
    """(version or None, edits) from a WorkspaceEdit, documentChanges or changes."""
    if edit.document_changes:
        [change] = edit.document_changes
        assert change.text_document.uri == uri
        return change.text_document.version, change.edits
    return None, edit.changes[uri]


BLOCK = """
class Block{i}(nn.Cell):
    def __init__(self, hidden=64):
        super().__init__()
        self.fc1 = nn.Dense(hidden, 4 * hidden)
        self.fc2 = nn.Dense(4 * hidden, hidden)
        self.act = nn.GELU()
        self.norm = nn.LayerNorm((hidden,))

    def construct(self, x, mask=None):
        y = self.norm(x)
        if mask is not None:
            y = y + mask
        y = self.fc2(self.act(self.fc1(y)))
        return x + y
"""


def big_module(lines: int, finding: bool = True) -> str:
    """A module of about ``lines`` lines of Cells; with one MSG201 in its last Cell."""
    parts = ["import mindspore.nn as nn\nfrom mindspore import ops\n"]
    count, i = 2, 0
    while count < lines - 16:
        block = BLOCK.format(i=i)
        parts.append(block)
        count += block.count("\n")
        i += 1
    if finding:
        parts.append("\nclass Last(nn.Cell):\n    def construct(self, x):\n        print(x)\n        return x\n")
    return "".join(parts)

"""Editor latency: time from ``didChange`` to ``publishDiagnostics`` on a 2,000-line and
a 20,000-line module, through a real LSP client talking to ``msgraphlint lsp`` over stdio.

    .venv/bin/python benchmarks/lsp_latency.py [--lines 2000 20000] [--edits 60] [--debounce-ms 0]

Each edit alternates between adding and removing a finding, and waits for the
diagnostics of exactly that version. Prints the median and p95 in milliseconds
(client-observed, so it includes JSON-RPC transport and the debounce delay you choose),
plus the server-side analysis time. ``--edits`` is per size; 20,000 lines default to
20 edits.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig

BLOCK = '''
class Block{i}(nn.Cell):
    """A transformer-ish block ({i})."""

    def __init__(self, hidden=256, heads=8):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm((hidden,))
        self.qkv = nn.Dense(hidden, 3 * hidden)
        self.proj = nn.Dense(hidden, hidden)
        self.norm2 = nn.LayerNorm((hidden,))
        self.fc1 = nn.Dense(hidden, 4 * hidden)
        self.fc2 = nn.Dense(4 * hidden, hidden)
        self.act = nn.GELU()

    def construct(self, x, mask=None):
        b, s, h = x.shape
        y = self.norm1(x)
        q, k, v = ops.split(self.qkv(y), h, axis=-1)
        q = q.reshape(b, s, self.heads, h // self.heads).transpose(0, 2, 1, 3)
        k = k.reshape(b, s, self.heads, h // self.heads).transpose(0, 2, 1, 3)
        v = v.reshape(b, s, self.heads, h // self.heads).transpose(0, 2, 1, 3)
        scores = ops.matmul(q, k.transpose(0, 1, 3, 2)) / (h // self.heads) ** 0.5
        if mask is not None:
            scores = scores + mask
        attn = ops.softmax(scores, axis=-1)
        out = ops.matmul(attn, v).transpose(0, 2, 1, 3).reshape(b, s, h)
        x = x + self.proj(out)
        x = x + self.fc2(self.act(self.fc1(self.norm2(x))))
        return x
'''


def make_module(lines: int) -> str:
    head = "import mindspore.nn as nn\nfrom mindspore import ops\n"
    parts, i = [head], 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(BLOCK.format(i=i))
        i += 1
    return "".join(parts)


async def run(lines: int, edits: int, debounce_ms: float) -> None:
    versions = {}
    text = make_module(lines)
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "pyproject.toml").write_text("[tool.msgraphlint]\n")
        path = root / "model.py"
        path.write_text(text)
        uri = path.as_uri()
        client = await ClientServerConfig(server_command=[sys.executable, "-m", "msgraphlint", "lsp"]).start()
        original = client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def track(params):
            versions[params.uri] = params.version
            return original(params)

        client.protocol.fm.features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = track
        await client.initialize_session(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=root.as_uri(),
            initialization_options={"debounce_ms": debounce_ms}))
        t0 = time.perf_counter()
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
        await _until(versions, uri, 1)
        first = (time.perf_counter() - t0) * 1000
        samples = []
        for n in range(edits):
            # alternate an edit that adds a finding with one that removes it
            new = text.replace("        return x\n", "        print(x)\n        return x\n", 1) if n % 2 == 0 else text
            t0 = time.perf_counter()
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=n + 2),
                content_changes=[lsp.TextDocumentContentChangeEvent_Type2(text=new)]))
            await _until(versions, uri, n + 2)
            samples.append((time.perf_counter() - t0) * 1000)
            expected = 1 if n % 2 == 0 else 0
            got = len(client.diagnostics[uri])
            assert got == expected, f"edit {n}: expected {expected} diagnostics, got {got}"
        server_ms = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command="msgraphlint.timings"))
        await client.shutdown_session()
        samples.sort()
        p95 = samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))]
        srv = sorted(server_ms[1:]) if server_ms else []
        print(f"module: {text.count(chr(10))} lines; {edits} edits; debounce {debounce_ms:g} ms; "
              f"didOpen -> first diagnostics {first:.0f} ms")
        print(f"didChange -> publishDiagnostics: median {statistics.median(samples):.1f} ms, p95 {p95:.1f} ms, "
              f"max {samples[-1]:.1f} ms")
        if srv:
            print(f"server-side analysis: median {statistics.median(srv):.1f} ms, max {srv[-1]:.1f} ms")


async def _until(versions: dict, uri: str, version: int) -> None:
    while versions.get(uri) != version:
        await asyncio.sleep(0.001)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--edits", type=int, default=None, help="edits per size (default: 60, 20 for >= 10,000 lines)")
    ap.add_argument("--debounce-ms", type=float, default=0.0)
    a = ap.parse_args()
    for lines in a.lines:
        asyncio.run(run(lines, a.edits or (20 if lines >= 10_000 else 60), a.debounce_ms))


if __name__ == "__main__":
    main()

"""Huge documents and the language server's other requests (issue 25 item 5).

    .venv/bin/python benchmarks/lsp_huge.py [--open-mb 23] [--edit-mb 5.7] [--edits 300]

Through a real LSP client talking to ``msgraphlint lsp`` over stdio, prints three delays
in seconds: (1) after opening an ``--open-mb`` document, the longest a hover on another
document waits for its answer, hovers sent one after another for ``--window`` seconds; (2) after ``--edits`` one-character edits in an
``--edit-mb`` document, sent as fast as the client can, how long a hover sent after them
waits; (3) how long the process takes to end after ``shutdown`` + ``exit`` sent
``--exit-after`` seconds after opening the ``--open-mb`` document, while it is analysed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from lsp_support import big_module  # noqa: E402

SMALL = "import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        return x\n"


def of_mb(mb: float) -> str:
    lines = int(mb * 1e6 / len(big_module(2000)) * 2000)
    return big_module(lines)


async def session(root: Path):
    client = await ClientServerConfig(server_command=[sys.executable, "-m", "msgraphlint", "lsp"]).start()
    await client.initialize_session(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                         root_uri=root.as_uri(),
                                                         initialization_options={"debounce_ms": 10}))
    return client


def did_open(client, uri: str, text: str) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))


async def hover_seconds(client, uri: str) -> float:
    t0 = time.perf_counter()
    await client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri),
                                                           position=lsp.Position(0, 0)))
    return time.perf_counter() - t0


async def main_async(a) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "pyproject.toml").write_text("[tool.msgraphlint]\n")
        small = (root / "small.py").as_uri()
        huge = of_mb(a.open_mb)

        client = await session(root)
        did_open(client, small, SMALL)
        await hover_seconds(client, small)
        did_open(client, (root / "huge.py").as_uri(), huge)
        waits, t0 = [], time.perf_counter()
        while time.perf_counter() - t0 < a.window:  # one hover after another while it is analysed
            waits.append(await hover_seconds(client, small))
            await asyncio.sleep(0.05)
        print(f"(1) hovers during the first {a.window:g} s of the analysis of a {len(huge) / 1e6:.1f} MB document: "
              f"{len(waits)}, the longest waited {max(waits):.2f} s", flush=True)
        await client.shutdown_session()

        client = await session(root)
        text = of_mb(a.edit_mb)
        uri = (root / "edited.py").as_uri()
        did_open(client, uri, text)
        await hover_seconds(client, uri)
        line0 = "import mindspore.nn as nn"
        t0 = time.perf_counter()
        for n in range(a.edits):
            col = len(line0) + n
            client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2 + n),
                content_changes=[lsp.TextDocumentContentChangeEvent_Type1(
                    range=lsp.Range(lsp.Position(0, col), lsp.Position(0, col)), text="#" if n == 0 else "x")]))
        await hover_seconds(client, uri)
        print(f"(2) hover after {a.edits} one-character edits in a {len(text) / 1e6:.1f} MB document: "
              f"{time.perf_counter() - t0:.2f} s after the first edit was sent", flush=True)
        await client.shutdown_session()

        client = await session(root)
        did_open(client, (root / "huge.py").as_uri(), huge)
        await asyncio.sleep(a.exit_after)  # inside the analysis (its parse takes seconds)
        t0 = time.perf_counter()
        await client.shutdown_session()  # shutdown, then exit, then waits for the process to end
        print(f"(3) shutdown + exit while a {len(huge) / 1e6:.1f} MB document is analysed: "
              f"{time.perf_counter() - t0:.2f} s until the process ended", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--open-mb", type=float, default=23.0)
    ap.add_argument("--edit-mb", type=float, default=5.7)
    ap.add_argument("--edits", type=int, default=300)
    ap.add_argument("--window", type=float, default=20.0, help="seconds of hovers in (1)")
    ap.add_argument("--exit-after", type=float, default=3.0, help="seconds after opening that (3) sends shutdown")
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()

"""Code actions and hover on notebook cells (issue 26): a cell URI (``vscode-notebook-cell:``,
as LSP 3.17 and pygls keep them) gets the quick fixes, the ``# noqa`` action, fix-all and
hover of the findings published on it. Every edit names the cell's URI and the version of
the cell's own text document (not the notebook's), lies at the cell's lines, and is
computed for the text the cell has now or not at all.

The expected texts below are written out by hand: MSG510 turns ``keep_prob=0.9`` into
``p=0.1`` (p = 1 - keep_prob); MSG101's codemod turns the tensor if/else into one
``ops.where``; the noqa action appends ``  # noqa: MSG201`` to the line."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_support import SERVER, apply_text_edits, initialize

CAPS = lsp.ClientCapabilities(
    workspace=lsp.WorkspaceClientCapabilities(workspace_edit=lsp.WorkspaceEditClientCapabilities(
        document_changes=True)),
    notebook_document=lsp.NotebookDocumentClientCapabilities(
        synchronization=lsp.NotebookDocumentSyncClientCapabilities()))

MARKDOWN = "# A net\n"
IMPORTS = "import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore import ops\n"
NET = ("class Net(nn.Cell):\n"
       "    def __init__(self):\n"
       "        super().__init__()\n"
       "        self.drop = nn.Dropout(keep_prob=0.9)\n"     # line 3 (0-based): MSG510, a safe fix
       "\n"
       "    def construct(self, x):\n"
       "        print(x)\n"                                  # line 6: MSG201 (its fix is unsafe here)
       "        y = x * 2\n"
       "        if y.sum() > 0:\n"                           # line 8: MSG101, a safe codemod fix
       "            y = y + 1\n"
       "        else:\n"
       "            y = y - 1\n"
       "        return y\n")
CALL = "net = Net()\nout = net(ms.Tensor([1.0]))\n"
NET_DROPOUT_FIXED = NET.replace("nn.Dropout(keep_prob=0.9)", "nn.Dropout(p=0.1)")
NET_WHERE_FIXED = NET.replace("        if y.sum() > 0:\n            y = y + 1\n        else:\n            y = y - 1\n",
                              "        y = ops.where(y.sum() > 0, y + 1, y - 1)\n")
NET_ALL_FIXED = NET_DROPOUT_FIXED.replace(
    "        if y.sum() > 0:\n            y = y + 1\n        else:\n            y = y - 1\n",
    "        y = ops.where(y.sum() > 0, y + 1, y - 1)\n")
NET_SUPPRESSED = NET.replace("        print(x)\n", "        print(x)  # noqa: MSG201\n")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    await initialize(lsp_client, tmp_path_factory.mktemp("ws"), capabilities=CAPS)
    yield
    await lsp_client.shutdown_session()


def _uris(client, name="nb.ipynb", n=4):
    nb_uri = (Path(client.root) / name).as_uri()
    return nb_uri, [f"vscode-notebook-cell:{nb_uri[len('file:'):]}#W{k}sZmlsZQ%3D%3D" for k in range(n)]


async def _wait(client, uri, pred=lambda ds: True, timeout=30.0):
    deadline = asyncio.get_event_loop().time() + timeout
    while not (uri in client.diagnostics and pred(client.diagnostics[uri])):
        if asyncio.get_event_loop().time() > deadline:
            raise AssertionError(f"no matching diagnostics for {uri}: {client.diagnostics.get(uri)}")
        await asyncio.sleep(0.02)
    return client.diagnostics[uri]


async def _open(client, net_version=5, name="nb.ipynb"):
    """The notebook at version 1; the Net cell's text document at ``net_version``."""
    nb_uri, cells = _uris(client, name)
    texts = [MARKDOWN, IMPORTS, NET, CALL]
    kinds = [lsp.NotebookCellKind.Markup] + [lsp.NotebookCellKind.Code] * 3
    client.notebook_document_did_open(lsp.DidOpenNotebookDocumentParams(
        notebook_document=lsp.NotebookDocument(
            uri=nb_uri, notebook_type="jupyter-notebook", version=1,
            cells=[lsp.NotebookCell(kind=k, document=u) for k, u in zip(kinds, cells)]),
        cell_text_documents=[lsp.TextDocumentItem(uri=u, language_id="markdown" if k == 0 else "python",
                                                  version=net_version if k == 2 else 1, text=t)
                             for k, (u, t) in enumerate(zip(cells, texts))]))
    diags = await _wait(client, cells[2], lambda ds: len(ds) == 3)
    return nb_uri, cells, diags


def _change_cell(client, nb_uri, nb_version, cell_uri, cell_version, text):
    client.notebook_document_did_change(lsp.DidChangeNotebookDocumentParams(
        notebook_document=lsp.VersionedNotebookDocumentIdentifier(uri=nb_uri, version=nb_version),
        change=lsp.NotebookDocumentChangeEvent(cells=lsp.NotebookDocumentChangeEventCellsType(
            text_content=[lsp.NotebookDocumentChangeEventCellsTypeTextContentType(
                document=lsp.VersionedTextDocumentIdentifier(uri=cell_uri, version=cell_version),
                changes=[lsp.TextDocumentContentChangeEvent_Type2(text=text)])]))))


async def _actions(client, uri, diag=None, only=None, lines=(0, 200)):
    rng = diag.range if diag is not None else lsp.Range(lsp.Position(lines[0], 0), lsp.Position(lines[1], 0))
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri), range=rng,
        context=lsp.CodeActionContext(diagnostics=[diag] if diag is not None else [], only=only)))


def _one_edit(action):
    """(uri, version, edits) of an action's WorkspaceEdit, which must touch one document."""
    [change] = action.edit.document_changes
    return change.text_document.uri, change.text_document.version, change.edits


@pytest.mark.asyncio
async def test_quick_fixes_and_noqa_on_a_cell_apply_to_that_cell_at_its_lines(client: LanguageClient):
    nb_uri, cells, diags = await _open(client)
    by_code = {d.code: d for d in diags}
    assert [(d.code, d.range.start.line) for d in diags] == [("MSG510", 3), ("MSG201", 6), ("MSG101", 8)]

    # MSG510's fix: an edit of the Net cell (the cell URI, the cell's version 5, not the notebook's 1)
    actions = await _actions(client, cells[2], by_code["MSG510"])
    [fix] = [a for a in actions if a.title.startswith("MSG510") and "suppress" not in a.title]
    uri, version, edits = _one_edit(fix)
    assert (uri, version) == (cells[2], 5)
    assert apply_text_edits(NET, edits) == NET_DROPOUT_FIXED

    # MSG101's codemod: resolved on the joined cells, the edit moved into this cell's lines
    actions = await _actions(client, cells[2], by_code["MSG101"])
    [fix] = [a for a in actions if a.title.startswith("MSG101") and "suppress" not in a.title]
    uri, version, edits = _one_edit(fix)
    assert (uri, version) == (cells[2], 5)
    assert apply_text_edits(NET, edits) == NET_WHERE_FIXED

    # the noqa action on MSG201's line; applied as the editor does, the finding goes away
    actions = await _actions(client, cells[2], by_code["MSG201"])
    [sup] = [a for a in actions if a.title == "MSG201: suppress on this line"]
    uri, version, edits = _one_edit(sup)
    assert (uri, version) == (cells[2], 5)
    buffer = apply_text_edits(NET, edits)
    assert buffer == NET_SUPPRESSED
    _change_cell(client, nb_uri, 2, cells[2], 6, buffer)
    await _wait(client, cells[2], lambda ds: [d.code for d in ds] == ["MSG510", "MSG101"])

    # the other cells have no actions: the markdown and the import cell hold no finding
    assert await _actions(client, cells[1]) == []
    assert await _actions(client, cells[0]) == []


@pytest.mark.asyncio
async def test_fix_all_of_a_cell_gives_the_cli_fix_of_that_cell(client: LanguageClient):
    nb_uri, cells, _ = await _open(client)
    actions = await _actions(client, cells[2], only=[lsp.CodeActionKind.SourceFixAll])
    [fix_all] = [a for a in actions if a.kind == "source.fixAll.msgraphlint"]
    uri, version, edits = _one_edit(fix_all)
    assert (uri, version) == (cells[2], 5)
    assert apply_text_edits(NET, edits) == NET_ALL_FIXED
    # the same as `check --fix` of the notebook on disk gives that cell
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": MARKDOWN}]
          + [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": t}
             for t in (IMPORTS, NET, CALL)], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (Path(client.root) / "disk.ipynb").write_text(json.dumps(nb, indent=1), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--no-cache", "--fix", "disk.ipynb"],
                   cwd=client.root, capture_output=True, text=True, timeout=120)
    fixed = json.loads((Path(client.root) / "disk.ipynb").read_text(encoding="utf-8"))["cells"][2]["source"]
    assert "".join(fixed) == NET_ALL_FIXED


@pytest.mark.asyncio
async def test_a_cell_action_is_for_the_cells_current_text_and_version(client: LanguageClient):
    nb_uri, cells, diags = await _open(client)
    old = next(d for d in diags if d.code == "MSG510")
    # two lines added above the Dropout (cell version 6), and the request sent at once with
    # the old diagnostic's range: the answer is computed for version 6's text or is empty
    new_text = "# one\n# two\n" + NET
    _change_cell(client, nb_uri, 2, cells[2], 6, new_text)
    actions = await _actions(client, cells[2], lines=(0, 200))
    fixes = [a for a in actions if a.title.startswith("MSG510") and "suppress" not in a.title]
    assert fixes, [a.title for a in actions]
    uri, version, edits = _one_edit(fixes[0])
    assert (uri, version) == (cells[2], 6)
    assert apply_text_edits(new_text, edits) == "# one\n# two\n" + NET_DROPOUT_FIXED
    assert all(e.range.start.line == old.range.start.line + 2 for e in edits)
    # a change of another cell bumps the notebook's version, not this cell's: still 6
    _change_cell(client, nb_uri, 3, cells[3], 2, CALL + "y = 1\n")
    actions = await _actions(client, cells[2], lines=(0, 200))
    fixes = [a for a in actions if a.title.startswith("MSG510") and "suppress" not in a.title]
    assert _one_edit(fixes[0])[1] == 6


@pytest.mark.asyncio
async def test_hover_on_a_cell_finding_and_on_a_noqa_code_in_a_cell(client: LanguageClient):
    nb_uri, cells, _ = await _open(client)
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=cells[2]), position=lsp.Position(6, 10)))
    assert h is not None and "# MSG201 print-in-graph" in h.contents.value
    # the same position in another cell is not a finding
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=cells[1]), position=lsp.Position(0, 3)))
    assert h is None
    # a code in a noqa comment of a cell
    _change_cell(client, nb_uri, 2, cells[3], 2, CALL + "z = 1  # noqa: MSG201\n")
    await asyncio.sleep(0.1)
    h = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=cells[3]), position=lsp.Position(2, 17)))
    assert h is not None and "# MSG201 print-in-graph" in h.contents.value


@pytest.mark.asyncio
async def test_noqa_action_on_a_call_site_finding_in_a_cell(client: LanguageClient):
    # MSG004: `show()` in the cell reaches a print in pkg/helpers.py (on disk, not open)
    root = Path(client.root)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helpers.py").write_text("def show(x):\n    print(x)\n    return x\n")
    nb_uri, cells = _uris(client, "calls.ipynb", 2)
    texts = ["import mindspore.nn as nn\nfrom pkg.helpers import show\n",
             "class Net(nn.Cell):\n    def construct(self, x):\n        return show(x)\n"]
    client.notebook_document_did_open(lsp.DidOpenNotebookDocumentParams(
        notebook_document=lsp.NotebookDocument(
            uri=nb_uri, notebook_type="jupyter-notebook", version=1,
            cells=[lsp.NotebookCell(kind=lsp.NotebookCellKind.Code, document=u) for u in cells]),
        cell_text_documents=[lsp.TextDocumentItem(uri=u, language_id="python", version=3, text=t)
                             for u, t in zip(cells, texts)]))
    [d] = await _wait(client, cells[1], lambda ds: len(ds) == 1)
    assert (d.code, d.range.start.line, d.range.start.character) == ("MSG004", 2, 15)
    actions = await _actions(client, cells[1], d)
    [sup] = [a for a in actions if a.title == "MSG004: suppress on this line"]
    uri, version, edits = _one_edit(sup)
    assert (uri, version) == (cells[1], 3)
    buffer = apply_text_edits(texts[1], edits)
    assert buffer == texts[1].replace("return show(x)\n", "return show(x)  # noqa: MSG004\n")
    _change_cell(client, nb_uri, 2, cells[1], 4, buffer)
    assert await _wait(client, cells[1], lambda ds: ds == []) == []

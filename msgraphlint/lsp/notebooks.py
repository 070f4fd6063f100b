"""Notebook documents (LSP 3.17 ``notebookDocument/*``): a Jupyter notebook open in an
editor is linted as ``check`` lints the ``.ipynb`` (its code cells joined, magics masked:
``msgraphlint.parse.notebook``), and each finding is published on its cell's own URI, at the
line within that cell.

pygls keeps the notebook and its cells' texts (``workspace.get_notebook_document``, cell
text documents); here each open notebook is one ``Document`` of the server, keyed by the
notebook's URI, whose text is a notebook JSON built from the current cells (code cells in
a Python language, the others as markdown, so the cell numbering is the editor's). Its
analysis goes through the server's scheduler like any document; ``publish`` splits the
outcome per cell and clears the cells that have nothing (a finding with no cell, such as a
parse error of the whole notebook, goes to the first code cell).
"""

from __future__ import annotations

import json
from typing import Dict, List, Optional

from lsprotocol import types as lsp

from .documents import Document

SYNC = lsp.NotebookDocumentSyncOptions(
    notebook_selector=[lsp.NotebookDocumentSyncOptionsNotebookSelectorType1(
        notebook="jupyter-notebook", cells=[lsp.NotebookDocumentSyncOptionsNotebookSelectorType1CellsType(
            language="python")])],
    save=True,
)


def _state(ls) -> Dict[str, List[str]]:
    """{notebook URI: its cells' URIs as last published}."""
    state = getattr(ls, "_notebook_cells", None)
    if state is None:
        state = ls._notebook_cells = {}
    return state


def is_notebook(ls, uri: str) -> bool:
    return uri in _state(ls)


def notebook_json(ls, uri: str) -> Optional[str]:
    """The open notebook as ``.ipynb`` text, from pygls's copy of its cells."""
    nb = ls.workspace.get_notebook_document(notebook_uri=uri)
    if nb is None:
        return None
    cells = []
    for cell in nb.cells:
        doc = ls.workspace.get_text_document(cell.document)
        text = doc.source if doc is not None else ""
        code = cell.kind == lsp.NotebookCellKind.Code and (doc is None or doc.language_id in ("python", "", None))
        cells.append({"cell_type": "code" if code else "markdown", "metadata": {}, "source": text,
                      **({"execution_count": None, "outputs": []} if code else {})})
    meta = nb.metadata if isinstance(nb.metadata, dict) else {}
    return json.dumps({"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def _refresh(ls, uri: str, version: Optional[int]) -> None:
    text = notebook_json(ls, uri)
    if text is None:
        return
    nb = ls.workspace.get_notebook_document(notebook_uri=uri)
    _state(ls)[uri] = [c.document for c in nb.cells]
    doc = ls.documents.get(uri)
    if doc is None:
        ls.documents[uri] = Document(uri, text, version, "python")
        ls.outcomes.pop(uri, None)
        ls.schedule(uri, delay=0)
        return
    doc.text, doc._starts, doc.version = text, None, version
    job = ls.scheduler.jobs.get(uri)
    if job is not None and job.version != version:
        from .analysis import Cancelled
        job.interrupt(Cancelled)
    ls.schedule(uri)


def publish(ls, outcome, diagnostic) -> None:
    """Publish a notebook's outcome on its cells' URIs. ``diagnostic(finding, doc)`` makes
    one LSP diagnostic (``actions.diagnostic`` with the server's encoding)."""
    nb = ls.workspace.get_notebook_document(notebook_uri=outcome.uri)
    if nb is None:
        return
    cells = list(nb.cells)
    code = [k for k, c in enumerate(cells) if c.kind == lsp.NotebookCellKind.Code]
    per_cell: Dict[int, list] = {k: [] for k in range(len(cells))}
    for f in outcome.findings:
        k = f.cell - 1 if f.cell is not None and 0 < f.cell <= len(cells) else (code[0] if code else None)
        if k is not None:
            per_cell[k].append(f)
    for k, cell in enumerate(cells):
        text_doc = ls.workspace.get_text_document(cell.document)
        doc = Document(cell.document, text_doc.source if text_doc is not None else "", None)
        ls.publish_diagnostics(cell.document, [diagnostic(f, doc) for f in per_cell[k]])


def _clear(ls, uri: str) -> None:
    for cell_uri in _state(ls).pop(uri, []):
        ls.publish_diagnostics(cell_uri, [])
    if uri in ls.documents:
        ls.close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))


def register(server) -> None:
    """The ``notebookDocument/*`` features (pygls updates its workspace first)."""
    server._notebook_document_sync = SYNC  # advertised to clients that support notebooks

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
    def did_open(ls, params: lsp.DidOpenNotebookDocumentParams):
        _refresh(ls, params.notebook_document.uri, params.notebook_document.version)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: lsp.DidChangeNotebookDocumentParams):
        old = set(_state(ls).get(params.notebook_document.uri, []))
        _refresh(ls, params.notebook_document.uri, params.notebook_document.version)
        now = set(_state(ls).get(params.notebook_document.uri, []))
        for gone in old - now:  # a deleted cell keeps no diagnostics
            ls.publish_diagnostics(gone, [])

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
    def did_save(ls, params: lsp.DidSaveNotebookDocumentParams):
        if params.notebook_document.uri in ls.documents:
            ls.schedule(params.notebook_document.uri, delay=0)

    @server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: lsp.DidCloseNotebookDocumentParams):
        _clear(ls, params.notebook_document.uri)

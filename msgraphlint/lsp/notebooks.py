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

Code actions and hover on a cell URI (``cell_code_actions``, ``cell_hover``) work on the
notebook's outcome, and only when it was computed for the notebook's current text and the
cell's current text is the one analysed: the cell's findings are already in its own lines,
fix edits are kept only when they lie in that cell and touch no masked IPython line (a
codemod's edit is computed on the joined text and moved into the cell, as ``--fix`` does),
and every WorkspaceEdit names the cell's URI and the version of the cell's text document.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Dict, List, Optional, Tuple

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
    per_cell: Dict[int, list] = {k: [] for k in range(len(cells))}
    for f in outcome.findings:
        k = _cell_index(f, cells)
        if k is not None:
            per_cell[k].append(f)
    for k, cell in enumerate(cells):
        text_doc = ls.workspace.get_text_document(cell.document)
        doc = Document(cell.document, text_doc.source if text_doc is not None else "", None)
        ls.publish_diagnostics(cell.document, [diagnostic(f, doc) for f in per_cell[k]])


def _cell_index(f, cells) -> Optional[int]:
    """The 0-based cell a finding is shown on (one with no cell: the first code cell)."""
    if f.cell is not None and 0 < f.cell <= len(cells):
        return f.cell - 1
    return next((k for k, c in enumerate(cells) if c.kind == lsp.NotebookCellKind.Code), None)


def cell_of(ls, uri: str) -> Optional[Tuple[str, int]]:
    """(the notebook's URI, the 0-based index of the cell) of a cell URI of an open notebook."""
    nb = ls.workspace.get_notebook_document(cell_uri=uri)
    if nb is None or nb.uri not in _state(ls):
        return None
    return next(((nb.uri, k) for k, c in enumerate(nb.cells) if c.document == uri), None)


def _cell_view(ls, outcome, uri: str) -> Optional[Tuple[Document, list]]:
    """(the cell as a Document at its current version, its findings) when ``outcome`` is the
    analysis of the notebook's current text and the cell's text is the one analysed; else None."""
    where = cell_of(ls, uri)
    text_doc = ls.workspace.text_documents.get(uri)
    if where is None or text_doc is None or outcome is None or outcome.uri != where[0] \
            or not ls._is_current(outcome):
        return None
    k = where[1]
    try:
        analysed = json.loads(outcome.text)["cells"][k]["source"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if analysed != text_doc.source:
        return None
    cells = list(ls.workspace.get_notebook_document(notebook_uri=where[0]).cells)
    return (Document(uri, text_doc.source, text_doc.version, "python"),
            [f for f in outcome.findings if _cell_index(f, cells) == k])


def _placed(fix, cell_no: int, nb, path: str):
    """``fix`` with edits in the lines of cell ``cell_no`` only (a codemod resolved on the
    joined text, ``contract._resolved_in_notebook``); None when it cannot be written there."""
    if fix is None:
        return None
    from ..fix.contract import _resolved_in_notebook

    fix = _resolved_in_notebook(fix, nb, path)
    if fix is None or not fix.edits or any(e.cell != cell_no for e in fix.edits):
        return None
    cell = next((c for c in nb.cells if c.index + 1 == cell_no), None)
    if cell is None or any(k in cell.masked for e in fix.edits for k in range(e.line - 1, e.end_line)):
        return None
    return replace(fix, codemod=None)


def _with_cell_fixes(findings: list, cell_no: int, text: str, path: str) -> list:
    """The cell's findings with only the fixes (and alternatives) that can be written in it."""
    if not any(f.fix is not None or f.alternatives for f in findings):
        return findings
    from ..parse import notebook

    nb = notebook.parse(text, path)
    out = []
    for f in findings:
        alts = tuple(a for a in (_placed(a, cell_no, nb, path) for a in f.alternatives) if a is not None)
        out.append(replace(f, fix=_placed(f.fix, cell_no, nb, path), alternatives=alts))
    return out


async def cell_code_actions(ls, params: lsp.CodeActionParams) -> list:
    """``textDocument/codeAction`` for a cell: quick fixes, ``# noqa`` and fix-all of the
    cell (``actions.code_actions``), pinned to the cell's version."""
    from . import actions

    uri = params.text_document.uri
    where = cell_of(ls, uri)
    if where is None:
        return []
    outcome = await ls.current_outcome(where[0])
    view = _cell_view(ls, outcome, uri)
    if view is None:
        return []
    doc, findings = view
    path = ls.lint_path(ls.documents[where[0]])
    findings = _with_cell_fixes(findings, where[1] + 1, outcome.text, path)
    fixed = None
    if actions.wants(params, actions.FIX_ALL_KIND) and actions.has_safe_fix(findings):
        fixed_nb = await ls.loop.run_in_executor(None, lambda: actions.fix_all_text(
            outcome.text, path, ls.settings_for(path)))
        again = _cell_view(ls, outcome, uri)
        if again is None or again[0].version != doc.version:
            return []  # edited while fixing: nothing computed for another version
        if fixed_nb is not None:
            try:
                source = json.loads(fixed_nb)["cells"][where[1]]["source"]
                fixed = "".join(source) if isinstance(source, list) else source
            except (ValueError, KeyError, IndexError, TypeError):
                fixed = None
    return actions.code_actions(params, doc, findings, ls.encoding, ls.document_changes, fixed)


def cell_hover(ls, params: lsp.HoverParams):
    """``textDocument/hover`` on a cell: a finding's rule, or the rule of a code in a noqa."""
    from . import actions

    where = cell_of(ls, params.text_document.uri)
    if where is None:
        return None
    text_doc = ls.workspace.text_documents.get(params.text_document.uri)
    if text_doc is None:
        return None
    view = _cell_view(ls, ls.outcomes.get(where[0]), params.text_document.uri)
    doc, findings = view if view is not None else (Document(text_doc.uri, text_doc.source, text_doc.version), [])
    return actions.hover(doc, params.position, findings, ls.encoding)


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

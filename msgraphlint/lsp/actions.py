"""Findings → LSP: diagnostics, code actions (quick fix, suppress, fix all) and hover.

Everything here works on one :class:`~msgraphlint.lsp.analysis.Outcome` — findings
computed for exactly one text at one version — and a :class:`Document` holding that
same text, so positions and edits can never mix two versions. The server only calls
these when the document's current version and text are the outcome's.
"""

from __future__ import annotations

import re
from typing import List, Optional

from lsprotocol import types as lsp

from ..findings import Finding, Fix, FixSafety, Severity
from .documents import Document

FIX_ALL_KIND = "source.fixAll.msgraphlint"
BUDGET_CODE = "time-budget"
_NOQA_CODE = re.compile(r"#\s*(?:noqa:|msgraphlint:\s*ignore\[)[^\n]*")
_CODE = re.compile(r"\b([A-Z]{2,8}[0-9]{3,4})\b")
_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.INFO: lsp.DiagnosticSeverity.Information}


def _rules():
    from ..engine.registry import load_rules
    return load_rules()


def _range(doc: Document, a, b) -> lsp.Range:
    return lsp.Range(lsp.Position(*a), lsp.Position(*b))


def diagnostic(f: Finding, doc: Document, encoding: str) -> lsp.Diagnostic:
    end_line = f.end_line or f.line
    end_col = f.end_col if f.end_col is not None else len(doc.line(end_line - 1))
    rule = _rules().get(f.code)
    # the title first (an editor's one-line view), then the detail, the help and the notes
    message = f.full_message + (f"\nhelp: {f.hint}" if f.hint else "") + "".join(f"\nnote: {c}" for c in f.chain)
    return lsp.Diagnostic(
        range=_range(doc, doc.lsp_position(f.line, f.col, encoding), doc.lsp_position(end_line, end_col, encoding)),
        message=message, severity=_SEVERITY.get(f.severity, lsp.DiagnosticSeverity.Warning),
        code=f.code, source="msgraphlint",
        code_description=lsp.CodeDescription(href=rule.help_uri()) if rule and rule.help_uri() else None,
        data={"code": f.code, "line": f.line, "col": f.col},
        related_information=_origin(f),
    )


def _origin(f: Finding) -> Optional[List[lsp.DiagnosticRelatedInformation]]:
    """A call-site finding (MSG004): where the finding it repeats is (the helper's line;
    its column is not converted to the client's encoding: that file is not at hand)."""
    if f.origin is None:
        return None
    import os

    from pygls.uris import from_fs_path

    code, path, line, col = f.origin
    where = lsp.Range(lsp.Position(line - 1, col), lsp.Position(line - 1, col))
    return [lsp.DiagnosticRelatedInformation(location=lsp.Location(uri=from_fs_path(os.path.abspath(path)), range=where),
                                             message=f"{code}: the finding this call reaches")]


def related_documents(related: dict, open_uri) -> dict:
    """``runner.run_source(related=...)`` (display path -> FileResult of a file the document
    reaches) as uri -> (the file's text on disk, its findings): what ``Related`` publishes.
    ``open_uri(path)``: the uri the editor opened that file under, or None."""
    import os

    from pygls.uris import from_fs_path

    from ..parse.source import SourceError, SourceFile

    out = {}
    for path, fr in related.items():
        full = os.path.abspath(path)
        try:
            text = SourceFile.read(full).text
        except (OSError, SourceError, ValueError):
            continue
        out[open_uri(full) or from_fs_path(full)] = (text, list(fr.findings) + list(fr.unused_suppressions))
    return out


def budget_diagnostic(seconds: float) -> lsp.Diagnostic:
    return lsp.Diagnostic(
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
        message=(f"msgraphlint stopped analysing this file after {seconds:g} s of CPU time (the per-file "
                 "time budget, as for `msgraphlint check`); no findings are shown for this version. "
                 "Raise `budget_ms` in the server's initializationOptions, or split the file."),
        severity=lsp.DiagnosticSeverity.Information, code=BUDGET_CODE, source="msgraphlint")


def config_diagnostic(message: str) -> lsp.Diagnostic:
    return lsp.Diagnostic(range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
                          message=f"msgraphlint cannot lint this file: {message}",
                          severity=lsp.DiagnosticSeverity.Error, code="config-error", source="msgraphlint")


def _edit(uri: str, version: Optional[int], edits: List[lsp.TextEdit], document_changes: bool) -> lsp.WorkspaceEdit:
    """A WorkspaceEdit pinned to the version it was computed for (documentChanges), or
    a plain ``changes`` map for clients that do not support versioned edits."""
    if document_changes:
        return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
            text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)])
    return lsp.WorkspaceEdit(changes={uri: edits})


def fix_edits(f: Finding, doc: Document, encoding: str, fix: Optional[Fix] = None) -> List[lsp.TextEdit]:
    """A finding's fix (or ``fix``: one of its alternatives) as LSP edits (fix edits carry
    ast lines and character columns; positions clamped to the document)."""
    fix = fix if fix is not None else f.fix
    if fix.codemod is not None:  # a structural fix: its edit is computed now, for this text (libcst)
        from ..fix.contract import resolve
        fix = resolve(fix, doc.text)
        if fix is None:
            return []
    return [lsp.TextEdit(_range(doc, doc.lsp_edit_position(e.line, e.col, encoding),
                                doc.lsp_edit_position(e.end_line, e.end_col, encoding)), e.text)
            for e in fix.edits]


def suppress_edit(f: Finding, doc: Document, encoding: str) -> lsp.TextEdit:
    """The finding's line with its code added to the line's ``# noqa`` (one is appended
    when there is none), as ``check --add-noqa`` writes it (``noqa.add_to_line``): a
    wrong-case spelling of the code (``# noqa: msg201``, which suppresses nothing) is
    replaced by it, a bare ``# noqa`` is left as it is."""
    from ..fix.noqa import add_to_line

    text = doc.line(f.line - 1)
    return lsp.TextEdit(_range(doc, (f.line - 1, 0), doc.lsp_position(f.line, len(text), encoding)),
                        add_to_line(text, [f.code]))


def minimal_edit(doc: Document, new: str, encoding: str) -> Optional[lsp.TextEdit]:
    """One edit that turns the document's text into ``new`` (common prefix and suffix kept)."""
    old = doc.text
    if old == new:
        return None
    a = 0
    limit = min(len(old), len(new))
    while a < limit and old[a] == new[a]:
        a += 1
    b = 0
    while b < limit - a and old[len(old) - 1 - b] == new[len(new) - 1 - b]:
        b += 1
    # never split a \r\n pair: an LSP position cannot point between its two characters
    if 0 < a < len(old) and old[a - 1] == "\r" and old[a] == "\n":
        a -= 1
    end = len(old) - b
    if 0 < end < len(old) and old[end - 1] == "\r" and old[end] == "\n":
        b -= 1
    return lsp.TextEdit(_range(doc, doc.position_of(a, encoding), doc.position_of(len(old) - b, encoding)),
                        new[a:len(new) - b])


def has_safe_fix(findings: List[Finding]) -> bool:
    return any(f.fix is not None and f.fix.safety is FixSafety.SAFE for f in findings)


def fix_all_text(text: str, path: str, settings) -> Optional[str]:
    """``text`` with every safe fix applied, exactly as ``check --fix --stdin-filename``
    does (re-linted and fixed again until nothing more applies; checked to parse), or None.
    Slow for a big file: the server runs it off the message loop."""
    from ..fix.contract import FixError
    from ..run.runner import fix_source

    try:
        fixed, _remaining, _applied = fix_source(text, path, settings)
    except FixError:
        return None
    return fixed if fixed != text else None


def wants(params: lsp.CodeActionParams, kind: str) -> bool:
    """Whether the request's ``only`` asks for ``kind`` ("source" asks for
    "source.fixAll.msgraphlint" too: a prefix match)."""
    only = [str(getattr(k, "value", k)) for k in params.context.only or []]
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def code_actions(params: lsp.CodeActionParams, doc: Document, findings: List[Finding], encoding: str,
                 document_changes: bool, fixed_text: Optional[str] = None) -> List[lsp.CodeAction]:
    """Quick fixes and suppressions for the findings in range; fix-all when ``fixed_text``
    (the whole document fixed, computed for ``doc``'s text) is given."""
    uri = params.text_document.uri
    wanted = {d.data.get("line") for d in params.context.diagnostics if isinstance(d.data, dict)}
    first, last = params.range.start.line + 1, params.range.end.line + 1
    want_fix_all = wants(params, FIX_ALL_KIND)
    want_quick = wants(params, lsp.CodeActionKind.QuickFix.value)
    actions: List[lsp.CodeAction] = []
    if want_quick:
        for f in findings:
            if not (first <= f.line <= last or f.line in wanted):
                continue
            if f.fix is not None:
                actions.append(lsp.CodeAction(
                    title=f"{f.code}: {f.fix.description}" + (" (unsafe)" if f.fix.safety is FixSafety.UNSAFE else ""),
                    kind=lsp.CodeActionKind.QuickFix, is_preferred=f.fix.safety is FixSafety.SAFE,
                    edit=_edit(uri, doc.version, fix_edits(f, doc, encoding), document_changes)))
            # the readings only the author can choose between (Finding.alternatives): each its
            # own quick fix, never preferred, never part of source.fixAll (fix_all_text
            # applies ``fix`` only)
            for alt in f.alternatives:
                actions.append(lsp.CodeAction(
                    title=f"{f.code}: {alt.description}" + (" (unsafe)" if alt.safety is FixSafety.UNSAFE else ""),
                    kind=lsp.CodeActionKind.QuickFix, is_preferred=False,
                    edit=_edit(uri, doc.version, fix_edits(f, doc, encoding, alt), document_changes)))
            actions.append(lsp.CodeAction(title=f"{f.code}: suppress on this line", kind=lsp.CodeActionKind.QuickFix,
                                          edit=_edit(uri, doc.version, [suppress_edit(f, doc, encoding)],
                                                     document_changes)))
    if want_fix_all and fixed_text is not None:
        edit = minimal_edit(doc, fixed_text, encoding)
        if edit is not None:
            actions.append(lsp.CodeAction(title="msgraphlint: fix all safe fixes in file", kind=FIX_ALL_KIND,
                                          edit=_edit(uri, doc.version, [edit], document_changes)))
    return actions


def hover(doc: Document, position: lsp.Position, findings: List[Finding], encoding: str) -> Optional[lsp.Hover]:
    rules = _rules()
    text = doc.line(position.line)
    col = doc.char_col(position.line, position.character, encoding)
    m = _NOQA_CODE.search(text)
    if m:
        for cm in _CODE.finditer(text, m.start()):
            if cm.start() <= col <= cm.end() and cm.group(1) in rules:
                return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, rules[cm.group(1)].docs()))
    for f in findings:
        if f.line - 1 == position.line and f.code in rules:
            end = f.end_col if f.end_col is not None and (f.end_line or f.line) == f.line else len(text)
            if f.col <= col <= end:
                return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown,
                                                   f"**{f.message}**\n\n"
                                                   + (f"{f.detail}\n\n" if f.detail else "")
                                                   + rules[f.code].docs()))
    return None

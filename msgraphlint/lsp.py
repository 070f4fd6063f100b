"""The language server (``msgraphlint lsp``, stdio, pygls).

Diagnostics on open, save and (debounced) change, linked to each rule's docs;
code actions: the rule's fix, "fix all in file", "suppress on this line";
hover on a diagnostic or on a code in a ``# noqa: MSG…`` comment shows the
rule's docs. Configuration is found per document (walking up to the workspace's
``pyproject.toml``). A crash while analysing one document is logged and never
takes the server down.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
import traceback
from typing import Dict, List, Optional, Tuple
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.server import LanguageServer

from . import __version__
from .findings import Finding, FixSafety, Severity

log = logging.getLogger("msgraphlint.lsp")
_NOQA_CODE = re.compile(r"#\s*(?:noqa:|msgraphlint:\s*ignore\[)[^\n]*")
_CODE = re.compile(r"\b([A-Z]{2,8}[0-9]{3,4})\b")
_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.INFO: lsp.DiagnosticSeverity.Information}
FIX_ALL_KIND = "source.fixAll.msgraphlint"


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def utf16_col(line: str, char_col: int) -> int:
    prefix = line[:char_col]
    return len(prefix.encode("utf-16-le")) // 2


def byte_to_utf16(line: str, byte_col: int) -> int:
    return utf16_col(line, len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace")))


class MsGraphLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("msgraphlint", __version__)
        self.debounce = 0.05
        self._pending: Dict[str, asyncio.TimerHandle] = {}
        self._settings: Dict[Optional[str], Tuple[float, object]] = {}
        self.findings: Dict[str, List[Finding]] = {}
        self.scope_caches: Dict[tuple, dict] = {}  # per document: findings of unchanged graph scopes
        self.timings: List[float] = []

    # configuration per workspace folder (cached by the config file and its mtime) --
    def settings_for(self, path: str):
        from .config import find_pyproject
        from .runner import prepare

        start = path if os.path.exists(os.path.dirname(path) or ".") else "."
        cfg_path = find_pyproject(start)
        mtime = os.path.getmtime(cfg_path) if cfg_path else 0.0
        cached = self._settings.get(cfg_path)
        if cached is None or cached[0] != mtime:
            cached = (mtime, prepare([start], cfg_path))
            self._settings[cfg_path] = cached
        return cached[1]

    # analysis ----------------------------------------------------------------------
    def analyse(self, uri: str) -> None:
        from .runner import run_source

        doc = self.workspace.get_text_document(uri)
        path = uri_to_path(uri)
        if not path.endswith((".py", ".pyi", ".yaml", ".yml")):
            return
        started = time.perf_counter()
        try:
            settings = self.settings_for(path)
            cache = self.scope_caches.setdefault((uri, id(settings)), {})
            result = run_source(doc.source, path, settings=settings, scope_cache=cache)
            findings = list(result.findings) + list(result.unused_suppressions)
        except Exception as exc:  # one bad document must not kill the server
            self.show_message_log(f"msgraphlint: analysis of {path} failed: {type(exc).__name__}: {exc}\n"
                                  + traceback.format_exc(), lsp.MessageType.Error)
            return
        self.findings[uri] = findings
        lines = doc.source.splitlines()
        self.publish_diagnostics(uri, [self.diagnostic(f, lines) for f in findings], version=doc.version)
        self.timings.append(time.perf_counter() - started)

    def diagnostic(self, f: Finding, lines: List[str]) -> lsp.Diagnostic:
        from .registry import load_rules

        line_text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        end_line = f.end_line or f.line
        end_text = lines[end_line - 1] if 0 < end_line <= len(lines) else ""
        end_col = f.end_col if f.end_col is not None else len(line_text)
        rule = load_rules().get(f.code)
        message = f.message + (f"\nhelp: {f.hint}" if f.hint else "") + "".join(f"\nnote: {c}" for c in f.chain)
        return lsp.Diagnostic(
            range=lsp.Range(lsp.Position(f.line - 1, utf16_col(line_text, f.col)),
                            lsp.Position(end_line - 1, utf16_col(end_text, end_col))),
            message=message, severity=_SEVERITY.get(f.severity, lsp.DiagnosticSeverity.Warning),
            code=f.code, source="msgraphlint",
            code_description=lsp.CodeDescription(href=rule.help_uri()) if rule else None,
            data={"code": f.code, "line": f.line, "col": f.col},
        )

    def schedule(self, uri: str, delay: Optional[float] = None) -> None:
        loop = asyncio.get_event_loop()
        handle = self._pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self._pending[uri] = loop.call_later(self.debounce if delay is None else delay, self._run_pending, uri)

    def _run_pending(self, uri: str) -> None:
        self._pending.pop(uri, None)
        self.analyse(uri)

    # code actions --------------------------------------------------------------------
    def _text_edits(self, finding: Finding, lines: List[str]) -> List[lsp.TextEdit]:
        out = []
        for e in finding.fix.edits:
            a = lines[e.line - 1] if 0 < e.line <= len(lines) else ""
            b = lines[e.end_line - 1] if 0 < e.end_line <= len(lines) else ""
            out.append(lsp.TextEdit(lsp.Range(lsp.Position(e.line - 1, utf16_col(a, e.col)),
                                              lsp.Position(e.end_line - 1, utf16_col(b, e.end_col))), e.text))
        return out

    def code_actions(self, params: lsp.CodeActionParams) -> List[lsp.CodeAction]:
        uri = params.text_document.uri
        doc = self.workspace.get_text_document(uri)
        lines = doc.source.splitlines()
        findings = self.findings.get(uri, [])
        wanted = {(d.data or {}).get("line") if isinstance(d.data, dict) else None for d in params.context.diagnostics}
        first, last = params.range.start.line + 1, params.range.end.line + 1
        actions: List[lsp.CodeAction] = []
        only = params.context.only or []
        want_fix_all = not only or any(k.startswith("source") for k in only)
        want_quick = not only or lsp.CodeActionKind.QuickFix in only
        if want_quick:
            for f in findings:
                if not (first <= f.line <= last or f.line in wanted):
                    continue
                if f.fix is not None:
                    actions.append(lsp.CodeAction(
                        title=f"{f.code}: {f.fix.description}" + (" (unsafe)" if f.fix.safety is FixSafety.UNSAFE else ""),
                        kind=lsp.CodeActionKind.QuickFix, is_preferred=f.fix.safety is FixSafety.SAFE,
                        edit=lsp.WorkspaceEdit(changes={uri: self._text_edits(f, lines)})))
                actions.append(self._suppress_action(uri, f, lines))
        if want_fix_all:
            fixable = [f for f in findings if f.fix is not None and f.fix.safety is FixSafety.SAFE]
            if fixable:
                from .fixes import apply_edits
                new, _ = apply_edits(doc.source, [f.fix.edits for f in sorted(fixable, key=lambda x: x.sort_key)])
                end = lsp.Position(len(lines), 0)
                actions.append(lsp.CodeAction(
                    title="msgraphlint: fix all safe fixes in file", kind=FIX_ALL_KIND,
                    edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(lsp.Range(lsp.Position(0, 0), end), new)]})))
        return actions

    def _suppress_action(self, uri: str, f: Finding, lines: List[str]) -> lsp.CodeAction:
        text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        m = re.search(r"#\s*noqa:\s*([A-Z0-9, ]+)", text)
        if m:
            codes = [c.strip() for c in m.group(1).split(",") if c.strip()]
            new_text = text[:m.start(1)] + ", ".join(codes + [f.code]) + text[m.end(1):].rstrip() if f.code not in codes else text
        else:
            new_text = text.rstrip() + f"  # noqa: {f.code}"
        rng = lsp.Range(lsp.Position(f.line - 1, 0), lsp.Position(f.line - 1, len(text.encode("utf-16-le")) // 2))
        return lsp.CodeAction(title=f"{f.code}: suppress on this line", kind=lsp.CodeActionKind.QuickFix,
                              edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(rng, new_text)]}))

    # hover ---------------------------------------------------------------------------
    def hover(self, params: lsp.HoverParams) -> Optional[lsp.Hover]:
        from .registry import load_rules

        uri = params.text_document.uri
        doc = self.workspace.get_text_document(uri)
        lines = doc.source.splitlines()
        line_no = params.position.line
        text = lines[line_no] if line_no < len(lines) else ""
        rules = load_rules()
        m = _NOQA_CODE.search(text)
        if m:
            for cm in _CODE.finditer(text, m.start()):
                a, b = utf16_col(text, cm.start()), utf16_col(text, cm.end())
                if a <= params.position.character <= b and cm.group(1) in rules:
                    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, rules[cm.group(1)].docs()))
        for f in self.findings.get(uri, []):
            if f.line - 1 == line_no and f.code in rules:
                end = f.end_col if f.end_col is not None and (f.end_line or f.line) == f.line else len(text)
                if utf16_col(text, f.col) <= params.position.character <= utf16_col(text, end):
                    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, f"**{f.message}**\n\n" + rules[f.code].docs()))
        return None


def create_server() -> MsGraphLintServer:
    server = MsGraphLintServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: MsGraphLintServer, params: lsp.InitializeParams):
        opts = params.initialization_options or {}
        if isinstance(opts, dict) and "debounce_ms" in opts:
            ls.debounce = max(0.0, float(opts["debounce_ms"]) / 1000.0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MsGraphLintServer, params: lsp.DidOpenTextDocumentParams):
        ls.analyse(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MsGraphLintServer, params: lsp.DidChangeTextDocumentParams):
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MsGraphLintServer, params: lsp.DidSaveTextDocumentParams):
        ls.schedule(params.text_document.uri, delay=0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MsGraphLintServer, params: lsp.DidCloseTextDocumentParams):
        ls.findings.pop(params.text_document.uri, None)
        for key in [k for k in ls.scope_caches if k[0] == params.text_document.uri]:
            del ls.scope_caches[key]
        ls.publish_diagnostics(params.text_document.uri, [])

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND]))
    def code_action(ls: MsGraphLintServer, params: lsp.CodeActionParams):
        try:
            return ls.code_actions(params)
        except Exception as exc:
            ls.show_message_log(f"msgraphlint: code actions failed: {exc}", lsp.MessageType.Error)
            return []

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: MsGraphLintServer, params: lsp.HoverParams):
        try:
            return ls.hover(params)
        except Exception as exc:
            ls.show_message_log(f"msgraphlint: hover failed: {exc}", lsp.MessageType.Error)
            return None

    @server.command("msgraphlint.timings")
    def timings(ls: MsGraphLintServer, *args):
        return [round(t * 1000, 3) for t in ls.timings]

    return server


def main() -> None:
    create_server().start_io()

"""The server: document state, scheduling, and the LSP features wired to them."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
from typing import Dict, Optional
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp
from pygls.server import LanguageServer

from .. import __version__
from . import actions, notebooks
from .analysis import TIME_BUDGET_S, Job, Outcome, Related, Scheduler
from .documents import UTF16, Document, negotiate_encoding
from .guard import GuardedProtocol

log = logging.getLogger("msgraphlint.lsp")
PY_SUFFIXES = (".py", ".pyi")
YAML_SUFFIXES = (".yaml", ".yml")


class _StdioTransport:
    """Writes framed messages to stdout; ``close`` (the exit notification) only flushes, so
    the process can still flush and close its own streams on the way out."""

    def __init__(self, wfile) -> None:
        self.wfile = wfile

    def write(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()

    def close(self) -> None:
        try:
            self.wfile.flush()
        except (OSError, ValueError):
            pass


def uri_to_path(uri: str) -> Optional[str]:
    """The file-system path of a ``file:`` URI, else None (``untitled:`` and the like)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    from pygls.uris import to_fs_path
    return to_fs_path(uri) or unquote(parsed.path)


class MsGraphLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("msgraphlint", __version__, protocol_cls=GuardedProtocol)
        self.debounce = 0.05
        self.budget_s = TIME_BUDGET_S
        from .analysis import PROCESS_MIN_BYTES
        self.process_min_bytes = PROCESS_MIN_BYTES  # bigger documents: analysed in a process (lsp/child.py)
        self.encoding = UTF16
        self.document_changes = False
        self.documents: Dict[str, Document] = {}
        self.outcomes: Dict[str, Outcome] = {}
        self.scope_caches: Dict[tuple, dict] = {}
        self._pending: Dict[str, asyncio.TimerHandle] = {}
        self._settings: Dict[Optional[str], tuple] = {}
        self._scheduler: Optional[Scheduler] = None
        self.related = Related()  # diagnostics of files that open documents reach
        from ..project.files import ContextCache
        self.context_cache = ContextCache()  # what analyses read of the rest of each project

    @property
    def scheduler(self) -> Scheduler:
        if self._scheduler is None:
            self._scheduler = Scheduler(self.loop, self._on_outcome, self.budget_s)
        return self._scheduler

    @property
    def collector(self):
        """Cyclic GC when idle (``analysis.IdleCollector``; installed by ``serve_io``)."""
        got = self.__dict__.get("_collector")
        if got is None:
            from .analysis import IdleCollector
            got = self._collector = IdleCollector(self.loop, self._busy)
        return got

    def _busy(self) -> bool:
        return bool(self._pending) or any(not j.future.done() for j in self.scheduler.jobs.values())

    def log_line(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        log.info("msgraphlint lsp: %s", message)
        try:
            self.show_message_log(f"msgraphlint: {message}", kind)
        except Exception:
            pass

    # stdio: a daemon thread reads raw chunks, the guard frames them on the loop ----------
    def start_io(self, stdin=None, stdout=None) -> None:
        code = self.serve_io(stdin, stdout)
        if code:
            sys.exit(code)

    def serve_io(self, stdin=None, stdout=None) -> int:
        """Serve until ``exit`` (or EOF on stdin); the exit code: 0 after ``shutdown``,
        else 1 (the spec)."""
        import threading

        rfile = stdin or sys.stdin.buffer
        wfile = stdout or sys.stdout.buffer
        self._stop_event = threading.Event()
        self.lsp.connection_made(_StdioTransport(wfile))
        try:  # the raw descriptor: a daemon thread must not hold the buffered reader's lock at exit
            fd = rfile.fileno()
            read = lambda n: os.read(fd, n)  # noqa: E731
        except (AttributeError, OSError, ValueError):
            read = getattr(rfile, "read1", None) or rfile.readline
        done = self.loop.create_future()

        def reader() -> None:
            try:
                while not self._stop_event.is_set():
                    chunk = read(65536)
                    if not chunk:
                        break
                    self.loop.call_soon_threadsafe(self.lsp.data_received, chunk)
            except (OSError, ValueError):  # stdin closed
                pass
            finally:
                try:
                    self.loop.call_soon_threadsafe(lambda: done.done() or done.set_result(None))
                except RuntimeError:  # the loop is closed: the server has exited
                    pass

        threading.Thread(target=reader, name="msgraphlint-lsp-stdin", daemon=True).start()
        self.collector.install()  # the process is the server's: collect cycles when idle
        code = 0
        try:
            self.loop.run_until_complete(done)  # EOF on stdin without exit: the client went away
        except BrokenPipeError:
            log.error("msgraphlint lsp: the client went away")
        except KeyboardInterrupt:
            pass
        except SystemExit as exc:  # the exit notification: 0 after shutdown, else 1 (the spec)
            code = exc.code if isinstance(exc.code, int) else 0
        finally:
            self._stop_event.set()
            self.on_shutdown()  # interrupt analyses still running
            try:
                self.shutdown()
            except Exception:
                log.exception("msgraphlint lsp: error while shutting down")
        return code

    # configuration ----------------------------------------------------------------------
    # configuration ----------------------------------------------------------------------
    def root_path(self) -> str:
        try:
            root = self.workspace.root_path
        except RuntimeError:
            root = None
        return root or os.getcwd()

    def lint_path(self, doc: Document) -> Optional[str]:
        """The path a document is linted as; None when it is not Python (or YAML config).

        ``untitled:`` buffers and Python files without a ``.py`` name (``languageId``
        python) are linted as a ``.py`` file in the workspace root / next to themselves,
        so they get the workspace's settings."""
        path = uri_to_path(doc.uri)
        if path is not None and (not os.path.basename(path) or os.path.isdir(path)):
            path = None  # "file://" (Neovim's unnamed buffer) or a folder: untitled
        if path is not None and path.endswith(PY_SUFFIXES + YAML_SUFFIXES + (".ipynb",)):
            return path
        if doc.language_id != "python":
            return None
        if path is not None:
            return path + ".py"
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", doc.uri.split(":", 1)[-1]).strip("_.")[:80] or "untitled"
        return os.path.join(self.root_path(), f"{name}.py")

    def settings_for(self, path: str):
        from ..config import find_pyproject
        from ..run.runner import prepare

        folder = os.path.dirname(path)
        start = path if os.path.isdir(folder or ".") else self.root_path()
        cfg_path = find_pyproject(start)
        mtime = os.path.getmtime(cfg_path) if cfg_path else 0.0
        cached = self._settings.get(cfg_path)
        if cached is None or cached[0] != mtime:
            cached = (mtime, prepare([start], cfg_path))
            self._settings[cfg_path] = cached
        return cached[1]

    # documents --------------------------------------------------------------------------
    def open(self, params: lsp.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        self.documents[item.uri] = Document(item.uri, item.text, item.version, item.language_id or "")
        self.outcomes.pop(item.uri, None)
        self.schedule(item.uri, delay=0)

    def change(self, params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = self.documents.get(uri)
        if doc is None:
            self.log_line(f"didChange for {uri}, which is not open: ignored", lsp.MessageType.Warning)
            return
        for change in params.content_changes:
            rng = getattr(change, "range", None)
            note = doc.apply_change(rng, change.text, self.encoding)
            if note:
                self.log_line(f"{uri}: an edit outside the document was clamped to it ({note}); "
                              "if the editor's buffer disagrees, reopen the file", lsp.MessageType.Warning)
        doc.version = params.text_document.version
        for caller in self.related.callers_of(uri):  # what reaches this file shows what it holds
            if caller in self.documents:
                self.schedule(caller)
        job = self.scheduler.jobs.get(uri)
        if job is not None and job.version != doc.version:
            from .analysis import Cancelled
            job.interrupt(Cancelled)  # a newer version supersedes it now, not after the debounce
        self.schedule(uri)
        self.collector.poke()

    def close(self, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        handle = self._pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.scheduler.cancel(uri)
        self.documents.pop(uri, None)
        self.outcomes.pop(uri, None)
        for key in [k for k in self.scope_caches if k[0] == uri]:
            del self.scope_caches[key]
        self.publish_diagnostics(uri, [])
        self._publish_related(*self.related.drop(uri, self._is_open_uri))
        for caller in self.related.callers_of(uri):  # they read the file from disk now
            if caller in self.documents:
                self.schedule(caller)

    # analysis ---------------------------------------------------------------------------
    def schedule(self, uri: str, delay: Optional[float] = None) -> None:
        handle = self._pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self._pending[uri] = self.loop.call_later(self.debounce if delay is None else delay, self.start_analysis, uri)

    def start_analysis(self, uri: str) -> Optional[Job]:
        handle = self._pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        doc = self.documents.get(uri)
        if doc is None:
            return None
        path = self.lint_path(doc)
        if path is None:
            return None
        text = doc.text
        # the other open documents, as the rest of the project is read from them (a snapshot)
        buffers = {p: d.text for u, d in self.documents.items() if u != uri for p in [self.lint_path(d)] if p}
        opened = {os.path.abspath(p): u for u, d in self.documents.items() for p in [self.lint_path(d)] if p}

        def setup():  # not interruptible: imports, rule loading and configuration stay whole
            from ..run.runner import run_source

            return run_source, self.settings_for(path)

        def work(prepared) -> tuple:
            run_source, settings = prepared
            cache = self.scope_caches.setdefault((uri, id(settings)), {})
            related: dict = {}
            result = run_source(text, path, settings=settings, scope_cache=cache, settings_of=self.settings_for,
                                buffers=buffers, context_cache=self.context_cache, related=related)
            return (list(result.findings) + list(result.unused_suppressions),
                    actions.related_documents(related, opened.get))

        if len(text) >= self.process_min_bytes:  # ast.parse holds the GIL: off the server's process
            from .analysis import ChildWork
            work = ChildWork({"text": text, "path": path, "buffers": buffers, "root": self.root_path()},
                             lambda got: (got[0], actions.related_documents(got[1], opened.get)))
        return self.scheduler.start(uri, doc.version, text, work, setup)

    def _is_current(self, outcome: Optional[Outcome]) -> bool:
        doc = self.documents.get(outcome.uri) if outcome is not None else None
        return doc is not None and outcome.version == doc.version and outcome.text == doc.text

    def _on_outcome(self, outcome: Outcome) -> None:
        try:
            self._publish_outcome(outcome)
        finally:
            self.collector.poke(analysed=True)  # after the diagnostics went out

    def _publish_outcome(self, outcome: Outcome) -> None:
        if outcome.cancelled:
            self.log_line(f"analysis of {outcome.uri} version {outcome.version} interrupted after "
                          f"{outcome.seconds:.2f} s (a newer version or the document closed)", lsp.MessageType.Log)
            return
        if not self._is_current(outcome):
            return  # superseded or closed: a newer analysis publishes
        doc = Document(outcome.uri, outcome.text, outcome.version)
        if outcome.error is not None:
            self.log_line(f"analysis of {outcome.uri} failed: {outcome.error}", lsp.MessageType.Error)
            if outcome.error_kind == "UsageError":  # a configuration error: say so where the user looks
                message = outcome.error.split("\n", 1)[0].split(": ", 1)[-1]
                self.publish_diagnostics(outcome.uri, [actions.config_diagnostic(message)], version=outcome.version)
            return
        self.outcomes[outcome.uri] = outcome
        if notebooks.is_notebook(self, outcome.uri) and not outcome.budget_hit:  # per cell (lsp/notebooks.py)
            notebooks.publish(self, outcome, lambda f, d: actions.diagnostic(f, d, self.encoding))
            return
        if outcome.budget_hit:
            self.log_line(f"{outcome.uri}: analysis stopped at the {self.budget_s:g} s budget", lsp.MessageType.Warning)
            diagnostics = [actions.budget_diagnostic(self.budget_s)]
        else:
            diagnostics = [actions.diagnostic(f, doc, self.encoding) for f in outcome.findings]
        self.publish_diagnostics(outcome.uri, diagnostics, version=outcome.version)
        if not outcome.budget_hit:
            self._publish_related(*self.related.update(outcome.uri, outcome.related, self._is_open_uri))

    def _is_open_uri(self, uri: str) -> bool:
        if uri in self.documents:
            return True
        path = uri_to_path(uri)
        return path is not None and any(uri_to_path(u) == path for u in self.documents)

    def _publish_related(self, publish: dict, clear) -> None:
        """Diagnostics of files an open document reaches but that are not open (``Related``)."""
        for uri, (text, findings) in publish.items():
            doc = Document(uri, text, None)
            self.publish_diagnostics(uri, [actions.diagnostic(f, doc, self.encoding) for f in findings])
        for uri in clear:
            self.publish_diagnostics(uri, [])

    async def current_outcome(self, uri: str) -> Optional[Outcome]:
        """The findings of the document's current text, analysing it now if needed;
        None when that cannot be had (closed, changed meanwhile, budget hit, crashed)."""
        outcome = self.outcomes.get(uri)
        if self._is_current(outcome):
            return outcome
        doc = self.documents.get(uri)
        if doc is None:
            return None
        job = self.scheduler.jobs.get(uri)
        if job is None or job.version != doc.version or job.text != doc.text:
            job = self.start_analysis(uri)
            if job is None:
                return None
        try:
            outcome = await asyncio.wait_for(asyncio.shield(job.future), self.budget_s + 1.0)
        except asyncio.TimeoutError:
            return None
        if outcome.cancelled or outcome.budget_hit or outcome.error is not None or not self._is_current(outcome):
            return None
        return outcome

    def on_shutdown(self) -> None:
        for handle in self._pending.values():
            handle.cancel()
        self._pending.clear()
        if self._scheduler is not None:
            for uri in list(self._scheduler.jobs):
                self._scheduler.cancel(uri)


def create_server() -> MsGraphLintServer:
    server = MsGraphLintServer()
    notebooks.register(server)  # notebookDocument/* (lsp/notebooks.py)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: MsGraphLintServer, params: lsp.InitializeParams):
        general = params.capabilities.general if params.capabilities else None
        ls.encoding = negotiate_encoding(general.position_encodings if general else None)
        ls.lsp.server_capabilities.position_encoding = ls.encoding
        ws = params.capabilities.workspace if params.capabilities else None
        ls.document_changes = bool(ws and ws.workspace_edit and ws.workspace_edit.document_changes)
        opts = params.initialization_options
        if isinstance(opts, dict):
            for key, attr in (("debounce_ms", "debounce"), ("budget_ms", "budget_s")):
                value = opts.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
                    setattr(ls, attr, float(value) / 1000.0)
                elif value is not None:
                    log.warning("msgraphlint lsp: initializationOptions.%s must be a number >= 0, not %r", key, value)
            value = opts.get("process_min_bytes")
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                ls.process_min_bytes = value
            elif value is not None:
                log.warning("msgraphlint lsp: initializationOptions.process_min_bytes must be an integer >= 0, "
                            "not %r", value)
            if ls._scheduler is not None:
                ls._scheduler.budget_s = ls.budget_s

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MsGraphLintServer, params: lsp.DidOpenTextDocumentParams):
        ls.open(params)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MsGraphLintServer, params: lsp.DidChangeTextDocumentParams):
        ls.change(params)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: MsGraphLintServer, params: lsp.DidSaveTextDocumentParams):
        if params.text_document.uri in ls.documents:
            ls.schedule(params.text_document.uri, delay=0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MsGraphLintServer, params: lsp.DidCloseTextDocumentParams):
        ls.close(params)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, actions.FIX_ALL_KIND]))
    async def code_action(ls: MsGraphLintServer, params: lsp.CodeActionParams):
        uri = params.text_document.uri
        if uri not in ls.documents and notebooks.cell_of(ls, uri) is not None:  # a notebook's cell
            try:
                return await notebooks.cell_code_actions(ls, params)
            except Exception as exc:
                ls.log_line(f"code actions failed: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
                return []
        outcome = await ls.current_outcome(uri)
        if outcome is None:
            return []
        try:
            fixed = None
            if actions.wants(params, actions.FIX_ALL_KIND) and actions.has_safe_fix(outcome.findings):
                path = ls.lint_path(ls.documents[uri])
                fixed = await ls.loop.run_in_executor(None, lambda: actions.fix_all_text(
                    outcome.text, path, ls.settings_for(path)))
                if not ls._is_current(outcome):
                    return []  # edited while fixing: nothing computed for another version
            doc = ls.documents[uri]  # the outcome's version and text (checked, nothing awaited since)
            return actions.code_actions(params, doc, outcome.findings, ls.encoding, ls.document_changes, fixed)
        except Exception as exc:
            ls.log_line(f"code actions failed: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
            return []

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: MsGraphLintServer, params: lsp.HoverParams):
        doc = ls.documents.get(params.text_document.uri)
        if doc is None and notebooks.cell_of(ls, params.text_document.uri) is not None:  # a notebook's cell
            try:
                return notebooks.cell_hover(ls, params)
            except Exception as exc:
                ls.log_line(f"hover failed: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
                return None
        if doc is None:
            return None
        outcome = ls.outcomes.get(doc.uri)
        findings = outcome.findings if ls._is_current(outcome) else []
        try:
            return actions.hover(doc, params.position, findings, ls.encoding)
        except Exception as exc:
            ls.log_line(f"hover failed: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
            return None

    @server.command("msgraphlint.timings")
    def timings(ls: MsGraphLintServer, *args):
        return [round(t * 1000, 3) for t in ls.scheduler.timings]

    @server.command("msgraphlint.analyses")
    def analyses(ls: MsGraphLintServer, *args):
        """The analyses running now: uri, version, and the pid of the process of a huge document's."""
        out = []
        for uri, job in ls.scheduler.jobs.items():
            if not job.future.done():
                proc = getattr(job.work, "proc", None)
                out.append({"uri": uri, "version": job.version, "pid": proc.pid if proc is not None else None})
        return out

    return server


def main() -> None:
    """``msgraphlint lsp``: serve stdio, then end the process at once. Analysis threads
    (daemons, interrupted) and a fix-all still running in the loop's executor (which the
    interpreter would join at exit) must not keep the process alive after ``exit``."""
    code = create_server().serve_io()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    logging.shutdown()
    os._exit(code)

"""The protocol guard: every byte from the client is framed, parsed and validated here,
before pygls sees a message.

pygls 1.3.1 trusts its input: a body that is not a JSON object stays in its buffer and
wedges the server for good (``shutdown`` included), a request without ``params`` or
with params of the wrong type raises inside its JSON decoder and is never answered.
So this guard:

- frames messages itself (``Content-Length``; a header block without it is dropped and
  logged, an oversized body is skipped);
- answers every malformed *request* with a JSON-RPC error of the right code:
  -32700 parse error (not JSON; id null), -32600 invalid request (not an object, a
  batch array, a bad ``jsonrpc``/``id``/``method``, any request after ``shutdown``),
  -32601 method not found, -32602 invalid params (missing, or of the wrong type),
  -32002 server not initialized;
- ignores malformed *notifications* with a log line (JSON-RPC forbids answering them);
- answers ``shutdown`` in every state (before ``initialize``, twice, while analysing);
- routes the text-synchronisation notifications straight to the server's own
  document store (``msgraphlint.lsp.documents``), so pygls' workspace never applies
  an edit.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Optional

from lsprotocol import types as lsp
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger("msgraphlint.lsp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002
MAX_BODY = 256 * 1024 * 1024  # bytes; a larger Content-Length is skipped, not buffered

SYNC_METHODS = frozenset({lsp.TEXT_DOCUMENT_DID_OPEN, lsp.TEXT_DOCUMENT_DID_CHANGE, lsp.TEXT_DOCUMENT_DID_CLOSE,
                          lsp.TEXT_DOCUMENT_DID_SAVE})
_MISSING = object()


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


class GuardedProtocol(LanguageServerProtocol):
    def __init__(self, server, converter):
        super().__init__(server, converter)
        self._inbox = bytearray()
        self._skip = 0
        self.session_started = False

    # framing ---------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        try:
            self._inbox += data
            self._drain()
        except Exception:  # the guard itself must never take the server down
            log.exception("msgraphlint lsp: error while reading a message; input buffer dropped")
            self._inbox = bytearray()

    def _drain(self) -> None:
        buf = self._inbox
        while buf:
            if self._skip:
                n = min(self._skip, len(buf))
                del buf[:n]
                self._skip -= n
                continue
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > 64 * 1024:  # no header block in sight: garbage
                    self.log_line(f"dropped {len(buf)} bytes that carry no message header")
                    del buf[:]
                return
            length: Optional[int] = None
            for raw in bytes(buf[:end]).split(b"\r\n"):
                name, _, value = raw.partition(b":")
                if name.strip().lower() == b"content-length":
                    try:
                        length = int(value.strip())
                    except ValueError:
                        length = None
            if length is None or length < 0:
                self.log_line("dropped a header block without a valid Content-Length")
                del buf[:end + 4]
                continue
            if length > MAX_BODY:
                self.log_line(f"skipped a message of {length} bytes (limit {MAX_BODY})")
                self._send_error(None, INVALID_REQUEST, f"message too large ({length} bytes)")
                del buf[:end + 4]
                self._skip = length
                continue
            if len(buf) < end + 4 + length:
                return
            body = bytes(buf[end + 4:end + 4 + length])
            del buf[:end + 4 + length]
            self._handle_body(body)

    # validation ------------------------------------------------------------------------
    def _handle_body(self, body: bytes) -> None:
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self.log_line(f"a message body is not JSON ({type(exc).__name__}): answered with a parse error")
            self._send_error(None, PARSE_ERROR, f"parse error: {exc}")
            return
        if isinstance(data, list):
            self._handle_batch(data)
            return
        if not isinstance(data, dict):
            self.log_line(f"a message body is a JSON {type(data).__name__}, not an object")
            self._send_error(None, INVALID_REQUEST, "a JSON-RPC message must be a JSON object")
            return
        try:
            self._dispatch(data)
        except SystemExit:
            raise
        except Exception as exc:
            log.exception("msgraphlint lsp: failed to handle a message")
            msg_id = data.get("id")
            if "method" in data and _valid_id(msg_id):
                self._send_error(msg_id, -32603, f"internal error: {type(exc).__name__}: {exc}")

    def _handle_batch(self, items: list) -> None:
        self.log_line(f"a batch of {len(items)} messages: the Language Server Protocol has no batches")
        answered = False
        for item in items:
            if isinstance(item, dict) and "method" in item and "id" not in item:
                continue  # a notification inside the batch: ignored
            msg_id = item.get("id") if isinstance(item, dict) else None
            self._send_error(msg_id if _valid_id(msg_id) else None, INVALID_REQUEST,
                             "batch messages are not supported by the Language Server Protocol")
            answered = True
        if not answered:
            self._send_error(None, INVALID_REQUEST, "batch messages are not supported by the Language Server Protocol")

    def _dispatch(self, data: dict) -> None:
        has_id = "id" in data
        msg_id = data.get("id")
        method = data.get("method", _MISSING)
        if has_id and msg_id is not None and not _valid_id(msg_id):
            self.log_line(f"a message with an invalid id {msg_id!r}")
            self._send_error(None, INVALID_REQUEST, "id must be a string or an integer")
            return
        is_request = has_id and method is not _MISSING
        if data.get("jsonrpc") != "2.0":
            self.log_line(f"a message without jsonrpc \"2.0\" ({str(data)[:80]})")
            if is_request:
                self._send_error(msg_id, INVALID_REQUEST, 'jsonrpc must be "2.0"')
            return
        if method is _MISSING:  # a response to one of our requests
            if has_id and ("result" in data or "error" in data):
                self._pass_on(data)
            else:
                self.log_line("ignored a message that is neither a request, a notification nor a response")
            return
        if not isinstance(method, str):
            self.log_line(f"a message whose method is not a string ({method!r})")
            if is_request:
                self._send_error(msg_id, INVALID_REQUEST, "method must be a string")
            return
        if msg_id is None and has_id:
            self._send_error(None, INVALID_REQUEST, "a request id must not be null")
            return
        if is_request:
            self._request(msg_id, method, data)
        else:
            self._notification(method, data)

    def _request(self, msg_id, method: str, data: dict) -> None:
        if method == lsp.SHUTDOWN:
            self._shutdown = True
            for future in self._request_futures.values():
                future.cancel()
            self._server.on_shutdown()
            self._send_response(msg_id, None)
            return
        if self._shutdown:
            self._send_error(msg_id, INVALID_REQUEST, f"the server is shutting down: {method} refused")
            return
        if method != lsp.INITIALIZE and not self.session_started:
            self._send_error(msg_id, SERVER_NOT_INITIALIZED, f"{method} before initialize")
            return
        if not self._known(method):
            self._send_error(msg_id, METHOD_NOT_FOUND, f"method not found: {method}")
            return
        message = self._structure(data)
        if message is None:
            self._send_error(msg_id, INVALID_PARAMS, f"invalid params for {method}")
            return
        if method == lsp.INITIALIZE:
            self.session_started = True
        self._procedure_handler(message)

    def _notification(self, method: str, data: dict) -> None:
        if method == lsp.EXIT:
            self._procedure_handler(self._structure(data) or lsp.ExitNotification())
            return
        if self._shutdown:
            self.log_line(f"ignored {method} after shutdown")
            return
        if not self.session_started:
            self.log_line(f"ignored {method} before initialize")
            return
        message = self._structure(data)
        if message is None:
            self.log_line(f"ignored a malformed {method} notification")
            return
        if method in SYNC_METHODS:
            handler = self.fm.features.get(method)
            if handler is not None:
                handler(message.params)
            return
        if method == lsp.CANCEL_REQUEST or self._known(method):
            self._procedure_handler(message)
        elif not method.startswith("$/"):
            self.log_line(f"ignored a notification for an unknown method {method}")

    # helpers ---------------------------------------------------------------------------
    def _known(self, method: str) -> bool:
        return method in self.fm.features or method in self.fm.builtin_features

    def _structure(self, data: dict):
        """The typed message, or None when its params do not fit the method's schema."""
        data = dict(data)
        kind = self.get_message_type(data["method"])
        if kind is None:
            data.setdefault("params", None)
            from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage
            kind = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
        try:
            return self._converter.structure(data, kind)
        except Exception as exc:
            self.log_line(f"{data['method']}: params do not fit the schema ({type(exc).__name__}: {exc})")
            return None

    def _pass_on(self, data: dict) -> None:
        try:
            self._procedure_handler(self._deserialize_message(data))
        except Exception as exc:
            self.log_line(f"ignored a malformed response ({type(exc).__name__})")

    def _send_error(self, msg_id, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})

    def log_line(self, message: str) -> None:
        """Log to stderr and, once initialised, to the client's log (window/logMessage)."""
        log.warning("msgraphlint lsp: %s", message)
        if self.session_started and not self._shutdown and self.transport is not None:
            try:
                self.show_message_log(f"msgraphlint: {message}", lsp.MessageType.Warning)
            except Exception:
                pass

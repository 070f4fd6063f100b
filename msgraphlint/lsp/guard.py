"""The protocol guard: every byte from the client is framed, parsed and validated here,
before pygls sees a message.

pygls 1.3.1 trusts its input: a body that is not a JSON object stays in its buffer and
wedges the server for good (``shutdown`` included), a request without ``params`` or
with params of the wrong type raises inside its JSON decoder and is never answered.
So this guard:

- frames messages itself, and resynchronises after any malformed frame: a header that
  is not ``Name: value`` lines with one numeric ``Content-Length`` (non-numeric,
  negative, missing, over ``MAX_BODY``; a line without a colon) or bytes that are no
  header at all are answered with one -32700 parse error (id null) and skipped up to the
  next ``Content-Length`` line, the resynchronisation point: no JSON text holds one (a
  JSON string cannot hold a raw CR LF). A body that is not JSON is where a wrong length
  shows: the message really ends at the next header line, or where the JSON value that
  starts the body ends (a length counting characters instead of UTF-8 bytes is too short;
  one counting too much swallows the next header, found inside the declared body); the
  value found is the message, else -32700. A body that stays incomplete JSON (or shorter
  than its length) with nothing after it is judged once no byte has come for ``STALL_S``;
- answers every malformed *request* with a JSON-RPC error of the right code:
  -32700 parse error (not JSON; id null), -32600 invalid request (not an object, a
  batch array, a bad ``jsonrpc``/``id``/``method``, any request after ``shutdown``),
  -32601 method not found, -32602 invalid params (missing, or of the wrong type, with
  where: ``required field missing @ $.params.textDocument``; an unknown
  ``workspace/executeCommand`` command), -32002 server not initialized;
- makes every error answer one readable line: pygls' -32603 for a handler that raised
  carries its traceback in ``data``; here it is dropped (the log keeps it);
- ignores malformed *notifications* with a log line (JSON-RPC forbids answering them);
- answers ``shutdown`` in every state (before ``initialize``, twice, while analysing);
- routes the text-synchronisation notifications straight to the server's own
  document store (``msgraphlint.lsp.documents``), so pygls' workspace never applies
  an edit.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Optional

from lsprotocol import types as lsp
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger("msgraphlint.lsp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_NOT_INITIALIZED = -32002
MAX_BODY = 256 * 1024 * 1024  # bytes; a larger Content-Length is a parse error, never buffered

SYNC_METHODS = frozenset({lsp.TEXT_DOCUMENT_DID_OPEN, lsp.TEXT_DOCUMENT_DID_CHANGE, lsp.TEXT_DOCUMENT_DID_CLOSE,
                          lsp.TEXT_DOCUMENT_DID_SAVE})
_MISSING = object()


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


# framing helpers ---------------------------------------------------------------------------
STALL_S = 0.5       # a body that stays incomplete JSON this long, with no header after it, is a parse error
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_HEADER_LINE = re.compile(rb"(" + _TOKEN + rb")[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r\n")
_PARTIAL_LINE = re.compile(rb"(?:" + _TOKEN + rb")?(?:[ \t]*:[^\r\n]*)?\r?")
#: a Content-Length line: the resynchronisation point. No JSON text holds one (a JSON string
#: cannot hold a raw CR LF), so one inside a declared body proves the length wrong.
_CONTENT_LENGTH = re.compile(rb"(?i)content-length[ \t]*:[ \t]*[0-9]+[ \t]*\r\n")
_CONTENT_TYPE_BEFORE = re.compile(rb"(?i)content-type[ \t]*:[^\r\n]*\r\n\Z")
_PARTIAL_CONTENT_LENGTH = re.compile(rb"(?i)content-length[ \t]*(?::[ \t]*[0-9]*[ \t]*\r?)?")
_INCOMPLETE_TAIL = re.compile(r"\s*(?:t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?|"
                              r"-?[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?)")
MAX_HEADER = 8 * 1024
_GARBAGE = "garbage"
_BAD = object()
_INCOMPLETE = object()
_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _one_line(text: str, limit: int = 300) -> str:
    """The first line of a message, shortened: what a JSON-RPC error says (never a traceback)."""
    line = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[:limit - 3] + "..."


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _schema_problem(exc: Exception) -> str:
    """What is wrong with a message's params, in the protocol's own names: ``required
    field missing @ $.params.textDocument``."""
    try:
        from cattrs import transform_error
        problems = transform_error(exc)
    except Exception:
        problems = [f"{type(exc).__name__}: {exc}"]
    problems = [re.sub(r"\.([a-z]+(?:_[a-z0-9]+)+)", lambda m: "." + _camel(m.group(1)), p) for p in problems]
    return _one_line("; ".join(problems[:3]) + ("; ..." if len(problems) > 3 else ""))


def _preview(data: bytes, limit: int = 40) -> str:
    text = repr(bytes(data[:limit]))
    return text + (" ..." if len(data) > limit else "")


def _read_header(buf: bytearray):
    """A header block at the start of ``buf``: (body start, Content-Length), None while it
    is still arriving, or a string saying what is wrong (``_GARBAGE``: no header here)."""
    pos, length, problem = 0, None, None
    while True:
        if buf.startswith(b"\r\n", pos):
            if pos == 0:
                return _GARBAGE
            pos += 2
            break
        m = _HEADER_LINE.match(buf, pos)
        if m is None:
            if buf.find(b"\n", pos, pos + MAX_HEADER) < 0 and len(buf) - pos < MAX_HEADER \
                    and _PARTIAL_LINE.fullmatch(buf, pos):
                return None
            if pos == 0:
                return _GARBAGE
            line = bytes(buf[pos:buf.find(b"\n", pos) if buf.find(b"\n", pos) >= 0 else pos + 40])
            return f"bad message header: a header line is not 'Name: value' ({_preview(line.rstrip())})"
        if m.group(1).lower() == b"content-length" and problem is None:
            value = m.group(2)
            if length is not None:
                problem = "bad message header: two Content-Length headers"
            elif not value.isdigit():
                problem = f"bad message header: Content-Length is not a number of bytes ({_preview(value)})"
            else:
                length = int(value)
        pos = m.end()
        if pos > MAX_HEADER:
            return f"bad message header: longer than {MAX_HEADER} bytes"
    if problem is None and length is None:
        problem = "bad message header: no Content-Length"
    return problem if problem is not None else (pos, length)


def _find_header(buf: bytearray, start: int) -> Optional[int]:
    """Where the next header block begins at or after ``start`` (its Content-Length line,
    or a Content-Type line just before it), else None. Only the bytes before each raw
    CR LF are matched: a body (compact JSON) has few or none, so a big one costs a memchr."""
    end = buf.find(b"\r\n", start)
    while end >= 0:
        m = _CONTENT_LENGTH.search(buf, max(start, end - 200), end + 2)
        if m is not None:
            at = m.start()
            before = _CONTENT_TYPE_BEFORE.search(bytes(buf[max(start, at - 256):at]))
            return at - (len(before.group(0)) if before else 0)
        end = buf.find(b"\r\n", end + 2)
    return None


def _partial_tail(buf: bytearray) -> int:
    """Where a Content-Length line that is still arriving may begin in the last bytes of
    ``buf`` (kept while the bytes before it are dropped); ``len(buf)`` when none can."""
    for i in range(max(0, len(buf) - 40), len(buf)):
        if buf[i] in b"cC":
            tail = bytes(buf[i:])
            if b"content-length".startswith(tail.lower()) or _PARTIAL_CONTENT_LENGTH.fullmatch(tail):
                return i
    return len(buf)


def _loads(body: bytes):
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _BAD


def _json_prefix(region: bytes):
    """The length in bytes of the complete JSON value that ``region`` starts with (after
    whitespace); ``_INCOMPLETE`` when the bytes end inside one; else the decoding error."""
    text = region.decode("utf-8", "surrogateescape")
    start = _WHITESPACE.match(text).end()
    try:
        _, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Unterminated string") or _INCOMPLETE_TAIL.fullmatch(text, exc.pos) or (
                exc.msg.startswith("Invalid \\uXXXX") and len(text) - exc.pos < 6):
            return _INCOMPLETE
        return exc
    except (ValueError, RecursionError) as exc:
        return exc
    return len(text[:end].encode("utf-8", "surrogateescape"))


class GuardedProtocol(LanguageServerProtocol):
    def __init__(self, server, converter):
        super().__init__(server, converter)
        self._inbox = bytearray()
        self._scanned = 0          # bytes of a pending body already searched for a header
        self._resyncing = False    # skipping the rest of a malformed message: no second error
        self._received = 0         # reads so far
        self._stall = None         # (reads, timer) while a bad body may still be completing
        self._idle = False         # no bytes came for STALL_S: an incomplete message is all there is
        self.session_started = False
        self._params_problem = ""

    # framing ---------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        try:
            self._received += 1
            self._inbox += data
            self._drain()
        except Exception:  # the guard itself must never take the server down
            log.exception("msgraphlint lsp: error while reading a message; input buffer dropped")
            self._inbox = bytearray()
            self._scanned = 0

    def _consume(self, n: int) -> None:
        del self._inbox[:n]
        self._scanned = 0

    def _drain(self) -> None:
        buf = self._inbox
        while buf:
            head = _read_header(buf)
            if head is None:
                return  # a header still arriving
            if isinstance(head, str):  # not a header: garbage, or a malformed header block
                if not self._resync(head):
                    return
                continue
            body_start, length = head
            if length > MAX_BODY:
                if not self._resync(f"Content-Length {length} is over the {MAX_BODY >> 20} MiB limit"):
                    return
                continue
            if len(buf) - body_start >= length:
                body = bytes(buf[body_start:body_start + length])
                data = _loads(body)
                if data is not _BAD:
                    self._consume(body_start + length)
                    self._resyncing = False
                    self._handle_data(data)
                    continue
                if not self._recover(body_start, length):
                    return
                continue
            # the body is still arriving, or the Content-Length counts more than was sent:
            # a header line inside it (no JSON text holds one) says so, or, once no more
            # bytes come for STALL_S, a complete JSON value
            if _find_header(buf, max(body_start, self._scanned - 256)) is not None:
                self._recover(body_start, length)
                continue
            self._scanned = len(buf)
            if buf[-64:].rstrip().endswith(b"}"):
                if not self._idle:
                    self._arm_stall()
                elif isinstance(_json_prefix(bytes(buf[body_start:])), int):
                    self._recover(body_start, length)
                    continue
            return

    def _resync(self, problem: str) -> bool:
        """Drop bytes up to the next message header (a ``Content-Length`` line), answering
        one parse error for them (none for whitespace, none while still skipping the rest
        of an earlier malformed message). False: no header yet, wait for more bytes."""
        buf = self._inbox
        at = _find_header(buf, 1)
        found = at is not None
        if not found:
            at = max(1, _partial_tail(buf))
        dropped = bytes(buf[:at])
        self._consume(at)
        if dropped.strip() and not self._resyncing:
            self._resyncing = True
            if problem == _GARBAGE:
                problem = f"{len(dropped)} bytes that are not an LSP message ({_preview(dropped)})"
            self.log_line(f"parse error: {problem}; skipping to the next message header")
            self._send_error(None, PARSE_ERROR, f"parse error: {problem}")
        return found

    def _recover(self, body_start: int, length: int) -> bool:
        """The ``length`` bytes after the header are not a JSON message: find where the
        message really ends (a Content-Length that counts characters, not UTF-8 bytes, is
        too short; one that counts too much swallows the next header). False: wait for more."""
        buf = self._inbox
        at = _find_header(buf, body_start)
        region = bytes(buf[body_start:at if at is not None else len(buf)])
        found = _json_prefix(region)
        if isinstance(found, int):
            if found != length:
                self.log_line(f"Content-Length {length} is wrong: the message has {found} bytes "
                              "(are characters counted instead of UTF-8 bytes?)")
            self._consume(body_start + found)
            self._resyncing = False
            self._handle_body(region[:found])
            return True
        if found is _INCOMPLETE and at is None and not self._idle:
            self._arm_stall()  # the rest may still be in flight
            return False
        reason = "the message body is incomplete JSON" if found is _INCOMPLETE else \
            f"the message body is not JSON ({_one_line(str(found))})"
        self.log_line(f"a message body is not JSON: answered with a parse error ({reason})")
        self._send_error(None, PARSE_ERROR, f"parse error: {reason}")
        self._consume(min(len(buf), at if at is not None else body_start + length))
        self._resyncing = True
        return True

    def _arm_stall(self) -> None:
        """Look again once no bytes have come for ``STALL_S`` (``_idle``): a body that is
        still incomplete JSON with no header after it is a parse error then, and a body
        shorter than its Content-Length that is a complete JSON value is the message."""
        if self._stall is not None:
            if self._stall[0] == self._received:
                return
            self._stall[1].cancel()
        try:
            timer = self._server.loop.call_later(STALL_S, self._on_stall, self._received)
        except Exception:  # no loop (a protocol used on its own): wait for the next message
            return
        self._stall = (self._received, timer)

    def _on_stall(self, received: int) -> None:
        self._stall = None
        if received != self._received or not self._inbox:
            return
        self._idle = True
        try:
            self._drain()
        except Exception:
            log.exception("msgraphlint lsp: error while reading a message; input buffer dropped")
            self._inbox = bytearray()
        finally:
            self._idle = False

    # validation ------------------------------------------------------------------------
    def _handle_body(self, body: bytes) -> None:
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            self.log_line(f"a message body is not JSON ({type(exc).__name__}): answered with a parse error")
            self._send_error(None, PARSE_ERROR, f"parse error: {_one_line(str(exc))}")
            return
        self._handle_data(data)

    def _handle_data(self, data: Any) -> None:
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
                self._send_error(msg_id, INTERNAL_ERROR, f"internal error: {type(exc).__name__}: {exc}")

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
            self._send_error(msg_id, INVALID_PARAMS, f"invalid params for {method}: {self._params_problem}")
            return
        if method == lsp.WORKSPACE_EXECUTE_COMMAND and message.params.command not in self.fm.commands:
            known = ", ".join(sorted(self.fm.commands)) or "none"
            self.log_line(f"workspace/executeCommand: unknown command {message.params.command!r}")
            self._send_error(msg_id, INVALID_PARAMS,
                             f"unknown command {message.params.command!r} (this server has: {known})")
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
            self._params_problem = _schema_problem(exc)
            self.log_line(f"{data['method']}: params do not fit the schema ({self._params_problem})")
            return None

    def _pass_on(self, data: dict) -> None:
        try:
            self._procedure_handler(self._deserialize_message(data))
        except Exception as exc:
            self.log_line(f"ignored a malformed response ({type(exc).__name__})")

    def _send_error(self, msg_id, code: int, message: str) -> None:
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": _one_line(message)}})

    def _send_response(self, msg_id, result=None, error=None) -> None:
        """Every error answer pygls builds (a handler that raised, a cancelled request) is
        one readable line: no traceback in ``data``; the traceback stays in the log."""
        if error is not None:
            message = _one_line(getattr(error, "message", "") or "")
            if getattr(error, "code", None) == INTERNAL_ERROR and not message.startswith("internal error"):
                message = f"internal error: {message} (the server's log has the details)"
            data = getattr(error, "data", None)
            if isinstance(data, dict) and "traceback" in data:
                data = None
            error = lsp.ResponseError(code=error.code, message=message, data=data)
        super()._send_response(msg_id, result, error)

    def log_line(self, message: str) -> None:
        """Log to stderr and, once initialised, to the client's log (window/logMessage)."""
        log.warning("msgraphlint lsp: %s", message)
        if self.session_started and not self._shutdown and self.transport is not None:
            try:
                self.show_message_log(f"msgraphlint: {message}", lsp.MessageType.Warning)
            except Exception:
                pass

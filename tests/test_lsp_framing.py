"""The language server's reader resynchronises after any malformed frame, ``exit`` always
ends the process, and every error is a one-line JSON-RPC error (issue 20, items 9 and 10).

These tests talk to ``python -m msgraphlint lsp`` over raw pipes, byte by byte, so that a
frame can be as wrong as a broken client makes it: a non-numeric, negative, missing or
huge ``Content-Length``, a header line without a colon, garbage before a header, or a
length counted in characters instead of UTF-8 bytes. Every read has a timeout and every
server is killed at the end."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional

import pytest

from lsp_support import BAD, big_module

REPO = Path(__file__).resolve().parents[1]
NON_ASCII = "héllo wörld, ✓ 日本語 — ünïcödé " * 3   # 2- and 3-byte UTF-8 characters


def frame(body, length: Optional[int] = None) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body, ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % (len(data) if length is None else length) + data


def request(msg_id, method: str, params=None) -> dict:
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


INITIALIZE = {"capabilities": {}, "processId": None, "rootUri": None}
HOVER = {"textDocument": {"uri": "file:///nowhere/none.py"}, "position": {"line": 0, "character": 0}}
TIMINGS = {"command": "msgraphlint.timings"}


class _Transport:
    def __init__(self) -> None:
        self.writes: List[bytes] = []

    def write(self, data) -> None:
        self.writes.append(data if isinstance(data, bytes) else data.encode("utf-8"))

    def close(self) -> None:
        pass


@contextlib.contextmanager
def in_process_server(setup=None):
    """A server fed by ``server.lsp.data_received`` and writing to a list; its event loop
    (pygls makes it the thread's current one) is closed and unset afterwards."""
    import asyncio

    from msgraphlint.lsp.server import create_server

    server = create_server()
    try:
        if setup is not None:
            setup(server)
        transport = _Transport()
        server.lsp.connection_made(transport)
        yield server, transport.writes
    finally:
        server.loop.close()
        asyncio.set_event_loop(None)


def _bodies(writes: List[bytes]) -> List[dict]:
    return [json.loads(w.split(b"\r\n\r\n", 1)[1]) for w in writes]


class RawServer:
    """``msgraphlint lsp`` on pipes. A thread parses stdout as LSP frames (strictly: any
    byte outside a well-formed frame fails the test); another collects stderr."""

    def __init__(self, cwd: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-m", "msgraphlint", "lsp"], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: List[dict] = []
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.framing_errors: List[str] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read_stdout(self) -> None:
        out = self.proc.stdout
        while True:
            line = out.readline()
            if not line:
                return
            self.stdout += line
            length = None
            while line != b"\r\n":
                if not line.endswith(b"\r\n") or b":" not in line:
                    self.framing_errors.append(f"bad header line {line!r}")
                    return
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
                line = out.readline()
                self.stdout += line
            body = out.read(length)
            self.stdout += body
            with self._lock:
                self.messages.append(json.loads(body.decode("utf-8")))

    def _read_stderr(self) -> None:
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            self.stderr += chunk

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def responses(self) -> List[dict]:
        with self._lock:
            return [m for m in self.messages if "method" not in m]

    def wait_for(self, msg_id, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in self.responses():
                if m.get("id") == msg_id:
                    return m
            time.sleep(0.01)
        raise AssertionError(f"no answer to id {msg_id!r} within {timeout} s; answers: {self.responses()}; "
                             f"stderr: {self.stderr.decode(errors='replace')[-2000:]}")

    def null_errors(self) -> List[dict]:
        return [m["error"] for m in self.responses() if m.get("id") is None and "error" in m]

    def stderr_after_exit(self, timeout: float = 10.0) -> str:
        """All the process wrote to stderr, once it has exited: the reader thread is joined (it
        ends at EOF), so nothing still in the pipe is missed."""
        self.proc.wait(timeout)
        self._stderr_reader.join(timeout)
        return self.stderr.decode()

    def exit_code(self, timeout: float = 2.0) -> Optional[int]:
        """The process's exit code, or None when it is still alive ``timeout`` s later."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


@pytest.fixture
def server(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.msgraphlint]\n")
    started: List[RawServer] = []

    def start() -> RawServer:
        started.append(RawServer(tmp_path))
        return started[-1]

    yield start
    for s in started:
        s.kill()


def _hover_50() -> bytes:
    return json.dumps(request(50, "textDocument/hover", dict(HOVER, note=NON_ASCII)), ensure_ascii=False).encode()


# Each malformation, the number of parse errors (-32700, id null) it earns, and whether the
# request inside it (id 50) is recovered and answered.
MALFORMED = {
    "non-numeric Content-Length": (b"Content-Length: abc\r\n\r\n" + _hover_50(), 1, False),
    "negative Content-Length": (b"Content-Length: -12\r\n\r\n" + _hover_50(), 1, False),
    "missing Content-Length": (b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + _hover_50(),
                               1, False),
    "huge Content-Length (over the limit)": (b"Content-Length: 99999999999999\r\n\r\n" + _hover_50(), 1, False),
    # below the limit: the server would wait for 100 MB that never come; the next header says
    # the length is wrong, and the message before it is the request itself
    "Content-Length of 100 MB, 200 bytes sent": (frame(_hover_50(), 100_000_000), 0, True),
    "header line without a colon (the length)": (b"Content-Length 250\r\n\r\n" + _hover_50(), 1, False),
    "header line without a colon (before the length)": (b"X-Bogus\r\n" + frame(_hover_50()), 1, True),
    "header line without a colon (after the length)": (
        b"Content-Length: %d\r\nX-Bogus\r\n\r\n" % len(_hover_50()) + _hover_50(), 1, False),
    "garbage bytes before a header": (b"\x00\xff\xfegarbage {]" + frame(_hover_50()), 1, True),
    "body that is not JSON": (frame(b"{not json"), 1, False),
    "body that is not UTF-8": (frame(b'{"jsonrpc": "2.0", "x": "\xff\xfe"}'), 1, False),
    "length in characters (shorter than the bytes)": (frame(_hover_50(), len(_hover_50().decode())), 0, True),
    "length longer than the body (swallows the next header)": (frame(_hover_50(), len(_hover_50()) + 25), 0, True),
    "length shorter than an ASCII body": (frame(_hover_50(), 40), 0, True),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_frame_is_answered_and_the_server_goes_on(server, name):
    bad, parse_errors, recovered = MALFORMED[name]
    s = server()
    s.send(bad)
    # five valid requests after it: the first is initialize
    s.send(frame(request(1, "initialize", INITIALIZE)))
    s.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    for msg_id, (method, params) in enumerate([("workspace/executeCommand", TIMINGS), ("textDocument/hover", HOVER),
                                               ("workspace/executeCommand", TIMINGS), ("textDocument/hover", HOVER)],
                                              start=2):
        s.send(frame(request(msg_id, method, params)))
    answers = {i: s.wait_for(i) for i in range(1, 6)}
    assert all("error" not in a for a in answers.values()), answers
    assert "capabilities" in answers[1]["result"]
    assert answers[2]["result"] == [] and answers[4]["result"] == []   # no analysis yet: no timings
    assert answers[3]["result"] is None and answers[5]["result"] is None  # hover on a document never opened
    if recovered:  # the request inside the bad frame, answered before initialize: "not initialized"
        assert s.wait_for(50)["error"]["code"] == -32002
    else:
        assert not [m for m in s.responses() if m.get("id") == 50]
    errors = s.null_errors()
    assert [e["code"] for e in errors] == [-32700] * parse_errors, errors
    assert all("\n" not in e["message"] and e["message"].startswith("parse error: ") for e in errors), errors
    s.send(frame(request(6, "shutdown")))
    assert s.wait_for(6)["result"] is None
    s.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert s.exit_code() == 0
    assert not s.framing_errors and b"Traceback" not in s.stdout


def test_exit_without_shutdown_after_a_malformed_frame_ends_the_process_with_1(server):
    s = server()
    s.send(b"Content-Length: abc\r\n\r\n{}")
    s.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert s.exit_code() == 1


def test_a_body_split_across_reads_is_waited_for(server):
    """A valid message written in pieces (inside the header, inside the body) is one
    message; a character-counted length whose last bytes come later is waited for, not
    answered with a parse error."""
    s = server()
    data = frame(request(1, "initialize", INITIALIZE))
    for piece in (data[:7], data[7:30], data[30:60], data[60:]):
        s.send(piece)
        time.sleep(0.05)
    assert "capabilities" in s.wait_for(1)["result"]
    body = json.dumps(request(2, "workspace/executeCommand", dict(TIMINGS, arguments=[NON_ASCII])),
                      ensure_ascii=False).encode()
    data = frame(body, len(body.decode()))
    declared_end = data.index(b"\r\n\r\n") + 4 + len(body.decode())
    s.send(data[:declared_end])  # exactly the declared length: incomplete JSON
    time.sleep(0.1)              # shorter than the stall limit (STALL_S, 0.5 s)
    s.send(data[declared_end:])
    assert s.wait_for(2)["result"] == []
    assert s.null_errors() == []


def test_a_truncated_body_alone_is_answered_without_waiting_for_the_next_message(server):
    s = server()
    s.send(frame(request(1, "initialize", INITIALIZE)))
    s.wait_for(1)  # the server is up
    s.send(frame(b'{"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": {"comm'))
    deadline = time.monotonic() + 2.0
    while not s.null_errors() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [e["code"] for e in s.null_errors()] == [-32700]
    assert "incomplete JSON" in s.null_errors()[0]["message"]
    s.send(frame(request(3, "workspace/executeCommand", TIMINGS)))
    assert s.wait_for(3)["result"] == []


def test_a_length_longer_than_the_only_message_is_answered_once_input_pauses(server):
    """Nothing follows to show the length wrong: once no byte has come for a moment, the
    complete JSON value is the message."""
    s = server()
    s.send(frame(request(1, "initialize", INITIALIZE)))
    s.wait_for(1)  # the server is up
    body = json.dumps(request(2, "workspace/executeCommand", TIMINGS)).encode()
    t0 = time.monotonic()
    s.send(frame(body, len(body) + 30))
    assert s.wait_for(2, timeout=3.0)["result"] == []
    assert time.monotonic() - t0 < 2.0
    s.send(frame(request(3, "workspace/executeCommand", TIMINGS)))
    assert s.wait_for(3)["result"] == []
    assert s.null_errors() == []


def test_garbage_only_then_messages(server):
    """Bytes that never hold a header (nor the start of one) are dropped as they come."""
    s = server()
    s.send(b"x" * 100_000 + b"\r\n" + b"\x00" * 70_000)
    time.sleep(0.3)
    s.send(b"\r\n" + frame(request(1, "initialize", INITIALIZE)))
    assert "capabilities" in s.wait_for(1)["result"]
    assert [e["code"] for e in s.null_errors()] == [-32700]


# exit --------------------------------------------------------------------------------------

def _open(s: RawServer, tmp_path: Path, text: str) -> str:
    uri = (tmp_path / "big.py").as_uri()
    s.send(frame(request(1, "initialize", dict(INITIALIZE, rootUri=tmp_path.as_uri()))))
    s.wait_for(1)
    s.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    s.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}}}))
    return uri


def _published(s: RawServer) -> list:
    return [m for m in s.messages if m.get("method") == "textDocument/publishDiagnostics"]


@pytest.mark.parametrize("shutdown", [False, True])
def test_exit_ends_the_process_while_an_analysis_runs(server, tmp_path, shutdown):
    s = server()
    _open(s, tmp_path, big_module(20_000))
    time.sleep(0.5)  # the analysis thread is running (it takes seconds)
    if shutdown:
        s.send(frame(request(2, "shutdown")))
        s.wait_for(2)
    t0 = time.monotonic()
    s.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert s.exit_code(timeout=2.0) == (0 if shutdown else 1), "the process outlived exit"
    assert time.monotonic() - t0 < 2.0
    assert not _published(s)  # it was still analysing


def test_exit_ends_the_process_while_a_fix_all_runs(server, tmp_path):
    """Fix-all runs in the loop's executor, a thread the interpreter joins at exit."""
    s = server()
    # MSG510's safe fix in each of 1,066 Cells: a fix-all (lint, fix, lint again) that went on
    # for 4.3 s after exit on 500e02f
    text = big_module(16_000, finding=False).replace(
        "        self.act = nn.GELU()\n", "        self.act = nn.GELU()\n        self.drop = nn.Dropout(keep_prob=0.9)\n")
    uri = _open(s, tmp_path, text)
    deadline = time.monotonic() + 60
    while not _published(s):
        assert time.monotonic() < deadline, "no diagnostics"
        time.sleep(0.05)
    s.send(frame(request(3, "textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fixAll"]}})))
    time.sleep(0.5)  # fixing now
    t0 = time.monotonic()
    s.send(frame({"jsonrpc": "2.0", "method": "exit"}))
    assert s.exit_code(timeout=2.0) == 1, "the process outlived exit"
    assert time.monotonic() - t0 < 2.0
    assert not [m for m in s.responses() if m.get("id") == 3]  # it was still fixing


# errors are JSON-RPC errors, one line, no traceback ------------------------------------------

def test_unknown_command_and_bad_params_get_one_line_errors(server, tmp_path):
    s = server()
    s.send(frame(request(1, "initialize", INITIALIZE)))
    s.wait_for(1)
    cases = {
        2: ("workspace/executeCommand", {"command": "no.such.command"}, -32602, "unknown command 'no.such.command'"),
        3: ("workspace/executeCommand", {"arguments": []}, -32602, "required field missing @ $.params.command"),
        4: ("textDocument/hover", {"position": {"line": 0, "character": 0}}, -32602,
            "required field missing @ $.params.textDocument"),
        5: ("textDocument/hover", {"textDocument": {"uri": "file:///x.py"}, "position": {"line": "x", "character": 0}},
            -32602, "invalid params for textDocument/hover"),
        6: ("textDocument/codeAction", {"textDocument": {"uri": "file:///x.py"}}, -32602,
            "required field missing @ $.params.range"),
        7: ("textDocument/definition", HOVER, -32601, "method not found: textDocument/definition"),
        8: ("workspace/symbol", {"query": "x"}, -32601, "method not found: workspace/symbol"),
    }
    for msg_id, (method, params, _, _) in cases.items():
        s.send(frame(request(msg_id, method, params)))
    # a URI that is not a file, and one that is not a URI: answered (nothing known about them)
    s.send(frame(request(9, "textDocument/hover", {"textDocument": {"uri": "http://example.com/a.py"},
                                                   "position": {"line": 0, "character": 0}})))
    s.send(frame(request(10, "textDocument/codeAction", {
        "textDocument": {"uri": "not a uri"}, "range": {"start": {"line": 0, "character": 0},
                                                        "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": []}})))
    for msg_id, (_, _, code, text) in cases.items():
        error = s.wait_for(msg_id)["error"]
        assert error["code"] == code and text in error["message"], (msg_id, error)
        assert "\n" not in error["message"] and "Traceback" not in error["message"] and "data" not in error
    assert s.wait_for(9)["result"] is None and s.wait_for(10)["result"] == []
    assert b"Traceback" not in s.stdout and not s.framing_errors
    s.send(frame(request(11, "shutdown")) + frame({"jsonrpc": "2.0", "method": "exit"}))
    assert s.exit_code() == 0
    log = s.stderr_after_exit()
    assert "unknown command 'no.such.command'" in log          # stderr still says what happened
    assert "params do not fit the schema (required field missing @ $.params.textDocument)" in log


def test_a_handler_that_raises_answers_one_line_and_logs_the_traceback(caplog):
    """In process: a command whose handler raises. pygls answers -32603 with the traceback
    in ``data``; the guard answers one line and leaves the traceback to the log."""
    def setup(server):
        @server.command("test.boom")
        def boom(ls, *args):
            raise ValueError("first line\nsecond line")

    with in_process_server(setup) as (server, writes):
        server.lsp.data_received(frame(request(1, "initialize", INITIALIZE)))
        with caplog.at_level("WARNING"):
            server.lsp.data_received(frame(request(2, "workspace/executeCommand", {"command": "test.boom"})))
    raw = b"".join(writes)
    messages = _bodies(writes)
    [answer] = [m for m in messages if m.get("id") == 2]
    assert answer["error"]["code"] == -32603
    assert answer["error"]["message"] == ("internal error: ValueError: first line "
                                          "(the server's log has the details)")
    assert "data" not in answer["error"] and b"Traceback" not in raw
    assert "Traceback" in caplog.text and "second line" in caplog.text


# in process: random corruptions, random read sizes ------------------------------------------

def _corruptions():
    def split(f):
        return f.split(b"\r\n\r\n", 1)[1]

    return [
        lambda f: b"Content-Length: abc\r\n\r\n" + split(f),
        lambda f: b"Content-Length: -3\r\n\r\n" + split(f),
        lambda f: split(f),                                           # no header at all
        lambda f: b"garbage\x00\xff" + f,                              # garbage before it
        lambda f: f[:-5],                                             # body cut short, length as declared
        lambda f: f[:len(f) // 2],                                    # cut in half (maybe in the header)
        lambda f: b"Content-Length: %d\r\n\r\n" % (len(split(f)) + 7) + split(f),
        lambda f: b"Content-Length: %d\r\n\r\n" % len(split(f).decode()) + split(f),   # characters
        lambda f: b"Content-Length: 3\r\n\r\n" + split(f),
        lambda f: f.replace(b"Content-Length:", b"Content-Length", 1),
        lambda f: f.replace(b"\r\n\r\n", b"\r\nX-No-Colon\r\n\r\n", 1),
        lambda f: b"Content-Length: 999999999999\r\n\r\n" + split(f),
        lambda f: b"\r\n" + f,                                         # whitespace: not even an error
    ]


def test_no_intact_message_is_lost_after_any_corruption_in_any_read_sizes():
    """Streams of requests (before initialize, so each is answered -32002 with its id),
    a quarter of them corrupted, fed in reads of 1 byte to 64 KiB: every intact request is
    answered, and the guard never raises."""
    import random

    rng = random.Random(20)
    corruptions = _corruptions()
    for trial in range(60):
        stream, intact = b"", []
        for i in range(rng.randint(5, 20)):
            text = rng.choice(["", NON_ASCII, "Content-Length: 5", "}" * 50, "x" * rng.randint(0, 100_000)])
            data = frame(request(i, "textDocument/hover", dict(HOVER, text=text)))
            if rng.random() < 0.25:
                data = rng.choice(corruptions)(data)
            else:
                intact.append(i)
            stream += data
        stream += frame(request("last", "textDocument/hover", HOVER))
        with in_process_server() as (server, writes):
            pos = 0
            while pos < len(stream):
                size = rng.choice([1, 7, 100, 4096, 65536])
                server.lsp.data_received(stream[pos:pos + size])
                pos += size
        answered = [m.get("id") for m in _bodies(writes)]
        missing = [i for i in intact + ["last"] if i not in answered]
        assert not missing, (trial, missing, answered)

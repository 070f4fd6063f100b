"""Reading and parsing one Python file: bytes → text → ``ast`` (the read-only path).

Fixed texts are checked by ``msgraphlint.fix.contract``.
"""

from __future__ import annotations

import ast
import codecs
import io
import os
import re
import sys
import tokenize
import warnings
from dataclasses import dataclass, field
from typing import Any, List, Optional

from .text import _LINE_END, SourceError, line_starts, split_lines  # noqa: F401  (re-exported)

_CODING_RE = re.compile(rb"^[ \t\f]*#.*?(coding[:=][ \t]*([-\w.]+))")  # (the cookie, the codec): ASCII


_SHOWN: dict = {}


def display_path(path: str) -> str:
    """How a path is shown in findings: relative to the working directory when it is
    below it, as given otherwise (and ``<stdin>``-style names unchanged). Remembered per
    (path, working directory): a run asks for each file's several times."""
    if path.startswith("<"):
        return path
    key = (path, os.getcwd())
    got = _SHOWN.get(key)
    if got is None:
        try:
            rel = os.path.relpath(os.path.abspath(path), key[1])
        except ValueError:  # another drive (Windows)
            rel = ".."
        got = path if rel.startswith("..") else rel
        if len(_SHOWN) >= 65536:
            _SHOWN.clear()
        _SHOWN[key] = got
    return got


_BIG_STACK = 512 * 1024 * 1024


def parse_module(text: str, path: str) -> ast.Module:
    """``ast.parse``. Before Python 3.11, turning a very deep tree into Python objects
    recurses in C with no guard: a chain of 200,000 ``+`` crashed the process with a
    segmentation fault (3.11+ raises RecursionError). There the parse runs in a thread
    with a large stack (reserved, not committed: untouched pages cost nothing). On 3.11+ a
    parse that runs out of depth is tried again in such a thread, whose stack holds no
    frames of ours, so what ``ast.parse`` reads at top level is read here too."""
    if sys.version_info >= (3, 11):
        try:
            return ast.parse(text, filename=path, type_comments=False)
        except RecursionError:
            # 3.11+ counts the Python frames already on the stack against the parser's depth
            # (3 levels fewer per frame): input that parses at top level can fail ~20 frames
            # deep, where a run parses. A fresh thread starts with an empty stack.
            pass
    import threading

    box: dict = {}

    def work() -> None:
        try:
            box["tree"] = ast.parse(text, filename=path, type_comments=False)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["exc"] = exc

    old = threading.stack_size()
    try:
        threading.stack_size(_BIG_STACK)
        worker = threading.Thread(target=work, name="msgraphlint-parse", daemon=True)
        worker.start()
    finally:
        threading.stack_size(old)
    try:
        while worker.is_alive():  # short joins: the per-file budget's signal still reaches this thread
            worker.join(0.05)
    except BaseException:
        # The budget (or Ctrl-C) interrupted the wait. ast.parse cannot be stopped, so wait for
        # it here: a parse left running would burn the process CPU time that the next file's
        # budget (ITIMER_PROF, the whole process) is measured in.
        worker.join()
        raise
    if "exc" in box:
        raise box["exc"]
    return box["tree"]


def _check_cookie_codec(encoding: str, cookie: bytes, line: int) -> None:
    """Python's "encoding problem": the codec a coding cookie names must be a text encoding
    that reads the cookie itself back (an ASCII-compatible one); utf-16, punycode, rot13 and
    the like are not, and ``undefined`` fails on any input. SourceError names the codec."""
    try:
        info = codecs.lookup(encoding)
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r} declared in the coding cookie", line) from None
    if not getattr(info, "_is_text_encoding", True):
        raise SourceError(f"the coding cookie names {encoding!r}, which is not a text encoding", line)
    try:
        same = cookie.decode(encoding) == cookie.decode("ascii")
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - any codec failure
        raise SourceError(f"the {encoding!r} codec named in the coding cookie cannot decode the cookie itself "
                          f"({type(exc).__name__}: {str(exc)[:200]})", line) from None
    if not same:
        raise SourceError(f"encoding problem: the {encoding!r} codec named in the coding cookie does not read "
                          "the cookie itself back (not an ASCII-compatible text encoding)", line)


@dataclass
class SourceFile:
    path: str
    text: str
    encoding: str = "utf-8"
    bom: bool = False
    newline: str = "\n"
    _lines: Optional[List[str]] = field(default=None, repr=False)
    _tree: Optional[ast.Module] = field(default=None, repr=False)
    _keepends: Optional[List[str]] = field(default=None, repr=False)
    notebook: Optional[Any] = field(default=None, repr=False)  # a .ipynb's notebook.Notebook; ``text`` its code

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> "SourceFile":
        if path.endswith(".ipynb"):  # its code cells, joined (msgraphlint.parse.notebook)
            return notebook_source_bytes(path, data)
        bom = data.startswith(codecs.BOM_UTF8)
        if bom:
            data = data[len(codecs.BOM_UTF8):]
        encoding = "utf-8"
        cookie, cookie_line = b"", 1
        for n, raw in enumerate(data.split(b"\n", 2)[:2], 1):
            m = _CODING_RE.match(raw)
            if m:
                encoding = m.group(2).decode("ascii", "replace")
                cookie, cookie_line = m.group(1), n
                break
        if cookie:
            _check_cookie_codec(encoding, cookie, cookie_line)
        try:
            text = data.decode(encoding)
        except LookupError:
            raise SourceError(f"unknown encoding {encoding!r} declared in the coding cookie")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise SourceError(f"file is not valid {encoding}: {exc.reason} at byte {exc.start}", line)
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - a codec's own failure (punycode, undefined: UnicodeError)
            raise SourceError(f"the {encoding!r} codec named in the coding cookie cannot decode this file "
                              f"({type(exc).__name__}: {str(exc)[:200]})") from None
        newline = "\r\n" if "\r\n" in text[:10000] else ("\r" if "\r" in text[:10000] and "\n" not in text[:10000] else "\n")
        return cls(path=path, text=text, encoding=encoding, bom=bom, newline=newline)

    @classmethod
    def read(cls, path: str) -> "SourceFile":
        with open(path, "rb") as fh:
            return cls.from_bytes(path, fh.read())

    @property
    def lines(self) -> List[str]:
        if self._lines is None:
            self._lines = split_lines(self.text)
        return self._lines

    def line(self, lineno: int) -> str:
        lines = self.lines
        return lines[lineno - 1] if 0 < lineno <= len(lines) else ""

    @property
    def tree(self) -> ast.Module:
        if self._tree is None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not ours to report
                    self._tree = parse_module(self.text, self.path)
            except SyntaxError as exc:
                raise SourceError(f"syntax error: {exc.msg}", exc.lineno or 1, max((exc.offset or 1) - 1, 0))
            except (ValueError, RecursionError) as exc:  # null bytes, absurd nesting
                raise SourceError(f"cannot parse: {exc}")
            except MemoryError:  # the parser gives up on very long chains of unary operators and the like
                raise SourceError("cannot parse: the parser ran out of memory (an expression nested too deeply?)")
        return self._tree

    def segment(self, node: ast.AST) -> str:
        """The source text of a node (like ``ast.get_source_segment``, without re-splitting
        the whole file on every call: columns are UTF-8 byte offsets)."""
        try:
            lineno, end_lineno = node.lineno, node.end_lineno
            col, end_col = node.col_offset, node.end_col_offset
        except AttributeError:
            return ""
        if end_lineno is None or end_col is None:
            return ""
        if self._keepends is None:
            self._keepends = split_lines(self.text, keepends=True)
        lines = self._keepends[lineno - 1:end_lineno]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0].encode("utf-8")[col:end_col].decode("utf-8", "replace")
        first = lines[0].encode("utf-8")[col:].decode("utf-8", "replace")
        last = lines[-1].encode("utf-8")[:end_col].decode("utf-8", "replace")
        return first + "".join(lines[1:-1]) + last

    def comments(self):
        """Yield (line, col, text) of every comment token. Tokenizes lazily; used by suppressions."""
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if tok.type == tokenize.COMMENT:
                    yield tok.start[0], tok.start[1], tok.string
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return


# notebooks ---------------------------------------------------------------------------

def notebook_source(path: str, raw: str) -> SourceFile:
    """The SourceFile of a notebook's JSON text: its code cells joined (msgraphlint.parse.notebook)."""
    from .notebook import parse

    nb = parse(raw, path)
    return SourceFile(path=path, text=nb.text if nb.is_python else "", notebook=nb, bom=nb.bom)


def notebook_source_bytes(path: str, data: bytes) -> SourceFile:
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        raw = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceError(f"file is not valid utf-8: {exc.reason} at byte {exc.start}", line) from None
    src = notebook_source(path, raw)
    src.bom = bom
    if src.notebook is not None:
        src.notebook.bom = bom
    return src


def load_notebook(path: str, text=None):
    """The notebook at ``path`` (or in ``text``), None when it cannot be read or parsed."""
    try:
        if text is None:
            with open(path, "rb") as fh:
                text = fh.read()
        src = notebook_source_bytes(path, text) if isinstance(text, bytes) else notebook_source(path, text)
        return src.notebook
    except (OSError, SourceError):
        return None

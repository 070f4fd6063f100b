"""Open documents and LSP positions.

LSP lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only (the same lines as Python's
tokenizer and ``ast``; ``str.splitlines`` also splits at form feeds and other
separators, which would shift every position below them). A position's character
counts code units of the negotiated encoding: UTF-16 unless the client offered
UTF-8 or UTF-32 (``general.positionEncodings``).

Incremental edits are clamped the way the reference TextDocument implementation
does: a line past the end means the end of the document, a character past the end
of its line means the end of the line, a reversed range is swapped. Each clamp is
reported to the caller so the server can log it; the server never stops over one.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from itertools import accumulate
from typing import List, Optional, Tuple

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
ENCODINGS = (UTF8, UTF16, UTF32)
_NEWLINE = re.compile(r"\r\n|\r|\n")


def negotiate_encoding(offered) -> str:
    """The client's first supported preference; UTF-16 when it offers none (the spec's default)."""
    for enc in offered or ():
        enc = str(getattr(enc, "value", enc)).lower()
        if enc in ENCODINGS:
            return enc
    return UTF16


def units(text: str, encoding: str) -> int:
    """Length of ``text`` in code units of ``encoding``."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def char_index(line: str, count: int, encoding: str) -> int:
    """The character index in ``line`` at ``count`` code units (clamped to the line, and
    rounded down to a character boundary when it falls inside a character)."""
    if count <= 0:
        return 0
    if encoding == UTF32 or line.isascii():
        return min(count, len(line))
    used = 0
    for i, ch in enumerate(line):
        used += units(ch, encoding)
        if used > count:
            return i
    return len(line)


def line_starts(text: str) -> List[int]:
    """Offsets where each LSP line starts (there is always at least one line)."""
    if "\r" not in text:  # the common case, without a match object per line (a 23 MB text: 0.6 s, not 1 s)
        out = [0]
        out.extend(accumulate(len(line) + 1 for line in text.split("\n")))
        out.pop()
        return out
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def split_lines(text: str) -> List[str]:
    """The document's lines without their terminators (LSP/ast line numbering)."""
    return _NEWLINE.split(text)


@dataclass
class Document:
    uri: str
    text: str
    version: Optional[int] = None
    language_id: str = ""
    _starts: Optional[List[int]] = field(default=None, repr=False)
    # (line, delta): the starts of the lines after ``line`` are ``delta`` behind (edits within
    # one line, keystrokes, shift them once, when a position below is next asked for)
    _shift: Optional[Tuple[int, int]] = field(default=None, repr=False)

    @property
    def starts(self) -> List[int]:
        if self._starts is None:
            self._starts, self._shift = line_starts(self.text), None
        elif self._shift is not None:
            line, delta = self._shift
            self._shift = None
            if delta:
                self._starts[line + 1:] = [s + delta for s in self._starts[line + 1:]]
        return self._starts

    def line(self, index: int) -> str:
        """Line ``index`` (0-based) without its terminator; "" past the end."""
        starts = self.starts
        if not 0 <= index < len(starts):
            return ""
        end = starts[index + 1] if index + 1 < len(starts) else len(self.text)
        return self.text[starts[index]:end].rstrip("\r\n")

    # client positions <-> offsets -------------------------------------------------------
    def offset_at(self, line: int, character: int, encoding: str) -> Tuple[int, Optional[str]]:
        """Offset of a client position, and a note when it had to be clamped."""
        starts = self.starts
        if line < 0:
            return 0, f"line {line} is before the document"
        if line >= len(starts):
            return len(self.text), f"line {line} is past the end ({len(starts)} lines)"
        text = self.line(line)
        idx = char_index(text, character, encoding)
        note = None
        if character > units(text, encoding):
            note = f"character {character} is past the end of line {line}"
        return starts[line] + idx, note

    def position_of(self, offset: int, encoding: str) -> Tuple[int, int]:
        """The client position (line, character) of a text offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, units(self.text[self.starts[line]:offset], encoding)

    # edits -------------------------------------------------------------------------------
    def apply_change(self, rng, new_text: str, encoding: str) -> Optional[str]:
        """Apply one content change (``rng`` None: the whole text). Returns a note when the
        range was out of the document and had to be clamped, else None."""
        if rng is None:
            self.text, self._starts, self._shift = new_text, None, None
            return None
        if rng.start.line == rng.end.line and self._in_line(rng.start.line, rng.start.character,
                                                             rng.end.character, new_text, encoding):
            return None
        a, note_a = self.offset_at(rng.start.line, rng.start.character, encoding)
        b, note_b = self.offset_at(rng.end.line, rng.end.character, encoding)
        notes = [n for n in (note_a, note_b) if n]
        if b < a:
            a, b = b, a
            notes.append("the range ends before it starts (swapped)")
        old, starts = self.text, self.starts
        self.text = old[:a] + new_text + old[b:]
        if "\r" in old[a - 1:a] + old[b - 1:b] + new_text[-1:]:
            self._starts = None  # a `\r\n` may be joined or split at the seams: counted again
        else:  # the lines before the edit keep their starts, those after it shift
            la, lb = bisect.bisect_right(starts, a) - 1, bisect.bisect_right(starts, b) - 1
            delta = len(new_text) - (b - a)
            self._starts = starts[:la + 1] + [a + m.end() for m in _NEWLINE.finditer(new_text)] \
                + [s + delta for s in starts[lb + 1:]]
        return "; ".join(notes) or None

    def _in_line(self, line: int, start: int, end: int, new_text: str, encoding: str) -> bool:
        """An edit inside one line that adds no line break (a keystroke): applied, the starts
        of the lines below left to shift later (``_shift``); False (nothing done) otherwise."""
        if self._starts is None or "\n" in new_text or "\r" in new_text:
            return False
        if self._shift is not None and self._shift[0] != line:
            self.starts  # noqa: B018 - apply the other line's shift first
        starts, delta = self._starts, self._shift[1] if self._shift is not None else 0
        if not 0 <= line < len(starts):
            return False
        begin = starts[line]
        stop = starts[line + 1] + delta if line + 1 < len(starts) else len(self.text)
        text = self.text[begin:stop].rstrip("\r\n")
        if start > end or end > units(text, encoding):
            return False  # clamped or swapped: the general path says so
        a, b = begin + char_index(text, start, encoding), begin + char_index(text, end, encoding)
        self.text = self.text[:a] + new_text + self.text[b:]
        self._shift = (line, delta + len(new_text) - (b - a))
        return True

    def lsp_position(self, line: int, char_col: int, encoding: str) -> Tuple[int, int]:
        """A finding's position (1-based line, 0-based character column) in client units."""
        index = max(0, line - 1)
        text = self.line(index)
        return index, units(text[:max(0, char_col)], encoding)

    def lsp_edit_position(self, line: int, char_col: int, encoding: str) -> Tuple[int, int]:
        """A fix edit's position (1-based line, 0-based character column) in client units;
        a line past the last one is the end of the document."""
        if line - 1 >= len(self.starts):
            return self.position_of(len(self.text), encoding)
        return self.lsp_position(line, char_col, encoding)

    def char_col(self, line: int, character: int, encoding: str) -> int:
        """The character column of a client position on its line (for hover)."""
        return char_index(self.line(line), character, encoding)

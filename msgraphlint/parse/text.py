"""Source text as Python's parser sees it: its lines (only \\n, \\r\\n and \\r end one),
where they start, and the error a file that cannot be analysed raises. Below source.py and
notebook.py, which both need them."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from typing import Dict, List, Optional, Sequence

_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, keepends: bool = False) -> List[str]:
    """Lines as Python's parser (``ast``, ``tokenize``) numbers them: only ``\\n``,
    ``\\r\\n`` and ``\\r`` end a line. ``str.splitlines()`` also splits at form feeds
    (``\\x0c``), vertical tabs, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029, which
    would shift every later line against ast's numbering: never use it on source text."""
    if "\r" not in text:  # (most files: str.split is several times faster than the regex)
        out = text.split("\n")
        if out[-1] == "":
            out.pop()
        if keepends:
            last = len(out) - 1 if not text.endswith("\n") else len(out)
            out = [line + "\n" if i < last else line for i, line in enumerate(out)]
        return out
    if not keepends:
        out = _LINE_END.split(text)
        if out and out[-1] == "":
            out.pop()
        return out
    out = []
    start = 0
    for m in _LINE_END.finditer(text):
        out.append(text[start:m.end()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out


_STARTS: list = [None, None]


def line_starts(text: str) -> List[int]:
    """The offset where each line starts (lines as ``split_lines`` numbers them), then the
    end of a last line that has no line break. One text's answer is remembered (an edit's
    analyses ask it of the same text); callers do not change the list."""
    if _STARTS[0] is text:
        return _STARTS[1]
    _STARTS[0], _STARTS[1] = text, _line_starts(text)
    return _STARTS[1]


def _line_starts(text: str) -> List[int]:
    if "\r" not in text:  # (most files: the ends of str.split's pieces, without a match object per line)
        from itertools import accumulate
        out = list(accumulate((len(piece) + 1 for piece in text.split("\n")[:-1]), initial=0))
    else:
        out = [0]
        out.extend(m.end() for m in _LINE_END.finditer(text))
    if out[-1] < len(text):
        out.append(len(text))
    return out


def occurs_twice(text: str, needle: str) -> bool:
    """``text.count(needle) >= 2``, stopping at the second occurrence (a ``name(`` needle
    cannot overlap itself: its last character is no identifier character)."""
    at = text.find(needle)
    return at >= 0 and text.find(needle, at + len(needle)) >= 0


def _common_run(a: str, b: str, limit: int, from_end: bool = False) -> int:
    """The length of the longest common prefix (``from_end``: suffix) of ``a`` and ``b``, at
    most ``limit``; slices compared in C, a block at a time, then halved."""
    la, lb = len(a), len(b)

    def same(i: int, j: int) -> bool:  # characters i..j, counted from the chosen end, agree
        return a[la - j:la - i] == b[lb - j:lb - i] if from_end else a[i:j] == b[i:j]

    lo, step = 0, 4096
    while lo + step <= limit and same(lo, lo + step):
        lo += step
    hi = min(lo + step, limit)
    while lo < hi:  # the first lo characters agree; the answer is in lo..hi
        mid = (lo + hi + 1) // 2
        if same(lo, mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


class Occurrences:
    """Where needles occur in the successive texts of one document (an editor's buffer). A text's
    answers come from the last text's where the two share a prefix and a suffix, as after an
    edit: an occurrence inside either is where it was (shifted, in the suffix), and only the
    span between them, widened by the needle's length, is searched again. A needle not asked
    of the last text is searched in the whole text."""

    def __init__(self) -> None:
        self.text: Optional[str] = None
        self._found: Dict[str, List[int]] = {}  # needle -> every start offset in self.text, sorted
        self._last: Optional[str] = None
        self._last_found: Dict[str, List[int]] = {}
        self._prefix = self._suffix = 0

    def positions(self, text: str, needle: str) -> List[int]:
        """Every offset where ``needle`` starts in ``text`` (overlapping ones too), sorted."""
        if text is not self.text:
            self._advance(text)
        got = self._found.get(needle)
        if got is None:
            got = self._found[needle] = self._derive(text, needle)
        return got

    def contains(self, text: str, needle: str) -> bool:
        """``needle in text``."""
        return bool(self.positions(text, needle))

    def twice(self, text: str, needle: str) -> bool:
        """:func:`occurs_twice`: ``text.count(needle) >= 2`` (non-overlapping occurrences)."""
        found = self.positions(text, needle)
        return len(found) >= 2 and found[-1] >= found[0] + len(needle)

    def lines_holding(self, text: str, needles: Sequence[str]) -> List[int]:
        """The numbers (sorted, 1-based, as ``split_lines`` counts) of the lines of ``text`` that
        hold one of ``needles`` (none holds a line break)."""
        starts = line_starts(text)
        found = set()
        for needle in set(needles):
            if needle:
                last = -1  # the start of the next line after the last one found
                for at in self.positions(text, needle):
                    if at >= last:
                        line = bisect_right(starts, at)
                        found.add(line)
                        last = starts[line] if line < len(starts) else len(text)
        return sorted(found)

    def _advance(self, text: str) -> None:
        last = self.text
        self._last, self._last_found = last, self._found
        self._found = {}
        self.text = text
        if last is not None:
            limit = min(len(last), len(text))
            self._prefix = _common_run(last, text, limit)
            self._suffix = _common_run(last, text, limit - self._prefix, from_end=True)

    def _derive(self, text: str, needle: str) -> List[int]:
        size = len(needle)
        if not size:
            return list(range(len(text) + 1))
        old = self._last_found.get(needle)
        if old is None:
            lo, hi, head, tail = 0, len(text), [], []
        else:
            p, s = self._prefix, self._suffix
            shift = len(text) - len(self._last)  # type: ignore[arg-type]
            cut = len(self._last) - s  # type: ignore[arg-type]
            head = [at for at in old if at + size <= p]
            tail = [at + shift for at in old if at >= cut]
            lo, hi = max(0, p - size + 1), min(len(text), len(text) - s + size - 1)
        mid = []
        at = text.find(needle, lo, hi)
        while at >= 0:
            mid.append(at)
            at = text.find(needle, at + 1, hi)
        return head + mid + tail if head or tail else mid


def document_occurrences(memo: Optional[dict], name: str) -> Optional[Occurrences]:
    """The :class:`Occurrences` of the module ``name`` kept in an editor's per-document memo
    (its scope cache); None without one."""
    if memo is None:
        return None
    key = ("occurrences", name)
    got = memo.get(key)
    if got is None:
        got = memo[key] = Occurrences()
    return got


def any_line_within(lines: List[int], first: int, last: int) -> bool:
    """Whether the sorted line numbers ``lines`` (``word_lines``, ``lines_holding``) hold one in
    ``first..last``."""
    i = bisect_left(lines, first)
    return i < len(lines) and lines[i] <= last


def word_lines(text: str, words: Sequence[str]) -> List[int]:
    """The numbers (sorted, 1-based, as ``split_lines`` counts) of the lines of ``text`` that
    hold one of ``words`` as a whole word: where ``re.search(r"\\b(?:w1|w2)\\b", line)`` finds
    one (no word character, ``str.isalnum()`` or ``_`` as ``re``'s ``\\w``, on either side). Found
    with ``str.find``, some ten times faster than the regular expression over a module."""
    starts = line_starts(text)
    found = set()
    end = len(text)
    for word in words:
        n = len(word)
        at = text.find(word)
        while at >= 0:
            before = text[at - 1] if at else " "
            after = text[at + n] if at + n < end else " "
            if not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_"):
                found.add(bisect_right(starts, at))
            at = text.find(word, at + 1)
    return sorted(found)


class SourceError(Exception):
    """The file cannot be analysed; ``line``/``col`` locate the problem when known."""

    def __init__(self, message: str, line: int = 1, col: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


_NFKC: list = [None, None]


def identifier_text(text: str) -> str:
    """``text`` as Python reads its identifiers: NFKC-normalised where it is not ASCII (the
    normal form keeps every ASCII character, so a name is found in it as the tree has it:
    ``ｏｐｓ.padding``, ``ＴransformerConfig``). One text is remembered: a file's text-gated
    rules (``Rule.requires_text``) and MSG513/MSG514's text tests share one normalisation."""
    if text.isascii():
        return text
    if _NFKC[0] is not text:
        _NFKC[0], _NFKC[1] = text, unicodedata.normalize("NFKC", text)
    return _NFKC[1]

"""Applying fixes: text edits from rules, checked, written atomically.

Edits use ast's coordinates (1-based lines, UTF-8 byte columns) so rules can build
them straight from node positions. ``apply`` splices non-overlapping edits into the
original text — keeping its encoding, BOM and line endings — and refuses a result
that no longer parses (checked with the stdlib parser, then with libcst, which is
imported only here, lazily, for files that actually change).
"""

from __future__ import annotations

import ast
import codecs
import difflib
from dataclasses import dataclass
from typing import Iterable, List, Sequence, Tuple

from .findings import Edit, Finding, FixSafety
from .source import SourceFile


class FixError(Exception):
    pass


def eligible(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (unsafe or finding.fix.safety is FixSafety.SAFE)


def _offsets(lines: List[str]) -> List[int]:
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line.encode("utf-8")))
    return out


def apply_edits(text: str, edit_groups: Sequence[Sequence[Edit]]) -> Tuple[str, int]:
    """Apply groups of edits (one group per fix, all-or-nothing); a group that overlaps
    an already accepted one is skipped. Returns (new text, groups applied)."""
    data = text.encode("utf-8")
    lines = text.splitlines(keepends=True)
    starts = _offsets(lines)

    def pos(line: int, col: int) -> int:
        if line - 1 >= len(starts) - 1:
            return len(data)
        return starts[line - 1] + col

    accepted: List[Tuple[int, int, bytes]] = []
    applied = 0
    for group in edit_groups:
        spans = [(pos(e.line, e.col), pos(e.end_line, e.end_col), e.text.encode("utf-8")) for e in group]
        if any(a > b for a, b, _ in spans):
            continue
        if any(not (b <= s or a >= t) or (a == b == s == t) for a, b, _ in spans for s, t, _ in accepted):
            continue
        accepted.extend(spans)
        applied += 1
    for a, b, new in sorted(accepted, key=lambda x: (x[0], x[1]), reverse=True):
        data = data[:a] + new + data[b:]
    return data.decode("utf-8"), applied


def check_parses(text: str, path: str) -> None:
    try:
        ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise FixError(f"{path}: the fixed text does not parse ({exc.msg} at line {exc.lineno}); nothing was written")
    import libcst  # lazily: only files that change pay for it

    try:
        module = libcst.parse_module(text)
    except libcst.ParserSyntaxError as exc:
        raise FixError(f"{path}: libcst rejects the fixed text ({exc.message}); nothing was written")
    if module.code != text:
        raise FixError(f"{path}: the fixed text does not round-trip through libcst; nothing was written")


def encode_like(source: SourceFile, text: str) -> bytes:
    data = text.encode(source.encoding)
    return (codecs.BOM_UTF8 + data) if source.bom else data


@dataclass
class FileFix:
    path: str
    original: str
    fixed: str
    applied: int
    source: SourceFile

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.original.splitlines(keepends=True), self.fixed.splitlines(keepends=True),
                                            fromfile=f"a/{self.path}", tofile=f"b/{self.path}"))


def fix_text(source: SourceFile, findings: Iterable[Finding], unsafe: bool = False) -> FileFix:
    groups = [f.fix.edits for f in sorted(findings, key=lambda f: f.sort_key) if eligible(f, unsafe)]
    fixed, applied = apply_edits(source.text, groups)
    if fixed != source.text:
        check_parses(fixed, source.path)
    return FileFix(source.path, source.text, fixed, applied, source)

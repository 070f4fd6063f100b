"""Inline suppressions.

* ``# noqa: MSG101, MSG203`` and ``# msgraphlint: ignore[MSG101,MSG203]`` on the
  flagged line (the finding's first line) silence those codes; a bare
  ``# msgraphlint: ignore`` or ``# noqa`` silences every code on the line;
* ``# msgraphlint: skip-file`` anywhere in the file skips the file;
* a suppression that names one of our (selected) codes but silenced nothing is
  reported as MSG002, so stale suppressions do not pile up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from .findings import Finding, Severity
from .source import SourceFile

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_OURS = re.compile(r"#\s*msgraphlint:\s*(?P<what>ignore|skip-file)(?:\[(?P<codes>[^\]]*)\])?")
_CODE = re.compile(r"[A-Z]+[0-9]+")

UNUSED_CODE = "MSG002"


@dataclass
class Suppression:
    line: int
    col: int
    codes: Optional[Tuple[str, ...]]  # None: all codes
    style: str                        # "noqa" | "msgraphlint"
    used: Set[str] = field(default_factory=set)
    used_any: bool = False


@dataclass
class SuppressionMap:
    by_line: Dict[int, List[Suppression]] = field(default_factory=dict)
    skip_file: bool = False
    texts: Dict[int, str] = field(default_factory=dict)  # the text of each line holding a suppression

    def suppresses(self, finding: Finding) -> bool:
        hit = False
        for sup in self.by_line.get(finding.line, ()):
            if sup.codes is None or finding.code in sup.codes:
                sup.used.add(finding.code)
                sup.used_any = True
                hit = True
        return hit


def scan(source: SourceFile) -> SuppressionMap:
    text = source.text
    out = SuppressionMap()
    if "noqa" not in text and "msgraphlint" not in text and "NOQA" not in text:
        return out
    for line, col, comment in _marked_comments(source):
        if "noqa" in comment.lower() or "msgraphlint" in comment:
            out.texts[line] = source.line(line)
        m = _OURS.search(comment)
        if m:
            if m.group("what") == "skip-file":
                out.skip_file = True
                continue
            codes = tuple(_CODE.findall(m.group("codes") or "")) or None
            out.by_line.setdefault(line, []).append(Suppression(line, col + m.start(), codes, "msgraphlint"))
            continue
        m = _NOQA.search(comment)
        if m:
            codes = tuple(c.upper() for c in _CODE.findall(m.group("codes") or "")) or None
            out.by_line.setdefault(line, []).append(Suppression(line, col + m.start(), codes, "noqa"))
    return out


def _marked_comments(source: SourceFile):
    """Comments on the lines that mention a marker. Tokenizes those lines alone (cheap);
    a line that does not tokenize alone (inside a multi-line string or bracket)
    falls back to tokenizing the whole file once."""
    import io
    import tokenize

    lines = source.lines
    marked = [i for i, text in enumerate(lines, 1) if "noqa" in text or "NOQA" in text or "msgraphlint" in text]
    out = []
    for n in marked:
        try:
            toks = list(tokenize.generate_tokens(io.StringIO(lines[n - 1] + "\n").readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return [c for c in source.comments() if c[0] in set(marked)]
        for tok in toks:
            if tok.type == tokenize.COMMENT:
                out.append((n, tok.start[1], tok.string))
    return out


def apply(findings: Sequence[Finding], sups: SuppressionMap, path: str,
          selected: Set[str], prefix: str = "MSG") -> Tuple[List[Finding], List[Finding]]:
    """(kept findings, unused-suppression findings)."""
    kept = [f for f in findings if not sups.suppresses(f)]
    unused: List[Finding] = []
    if UNUSED_CODE not in selected:
        return kept, unused
    for line, entries in sorted(sups.by_line.items()):
        for sup in entries:
            if sup.codes is None:
                if sup.style == "msgraphlint" and not sup.used_any:
                    unused.append(_unused(path, sups, sup, "unused `msgraphlint: ignore`: nothing on this line is reported"))
                continue
            stale = [c for c in sup.codes if c.startswith(prefix) and c in selected and c not in sup.used and c != UNUSED_CODE]
            if stale:
                unused.append(_unused(path, sups, sup, f"unused suppression of {', '.join(stale)}: "
                                                   f"{'it reports' if len(stale) == 1 else 'they report'} nothing on this line"))
    return kept, unused


def _unused(path: str, sups: SuppressionMap, sup: Suppression, message: str) -> Finding:
    return Finding(code=UNUSED_CODE, name="unused-suppression", message=message, path=path,
                   line=sup.line, col=sup.col, severity=Severity.INFO,
                   hint="remove the stale code from the comment", source_line=sups.texts.get(sup.line))

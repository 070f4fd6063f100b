"""Helpers shared by the reporters: ordering, hints, summaries, SARIF-style URIs.

Conventions every reporter follows:

* ``Finding.col`` / ``end_col`` / ``Edit.col`` are 0-based character offsets;
  every output format shows 1-based columns (``col + 1``), like ruff.
* A file's ``unused_suppressions`` are ordinary findings (code MSG002), merged
  into that file's findings in ``sort_key`` order.
* The help text is ``Finding.hint``, else the active rule's class-level ``hint``.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Tuple
from urllib.parse import quote

from ..findings import FileResult, Finding

SRCROOT = "%SRCROOT%"


def file_findings(result: FileResult) -> List[Finding]:
    """The findings of one file, unused suppressions included, in ``sort_key`` order
    (stable: findings that compare equal keep the order the runner gave them)."""
    merged = list(result.findings) + list(result.unused_suppressions)
    return sorted(merged, key=lambda f: f.sort_key)


def all_findings(results: Iterable[FileResult]) -> List[Finding]:
    """Every finding of every file, files in the order given."""
    out: List[Finding] = []
    for result in results:
        out.extend(file_findings(result))
    return out


def hint_for(finding: Finding, rules: Mapping[str, type]) -> Optional[str]:
    """The finding's own hint, else the active rule's default hint, else None."""
    if finding.hint:
        return finding.hint
    rule = rules.get(finding.code) if rules else None
    return getattr(rule, "hint", None) or None


def column1(col: Optional[int]) -> Optional[int]:
    """0-based column → 1-based column (None stays None)."""
    return None if col is None else col + 1


def count_by_code(findings: Iterable[Finding]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return dict(sorted(counts.items()))


def fix_applicable(finding: Finding, unsafe_fixes: bool = False) -> bool:
    """The finding carries a fix that ``--fix`` applies: a safe one, or any one with
    ``--unsafe-fixes`` (ruff's rule for ``[*]`` and the fixable count)."""
    fix = finding.fix
    if fix is None:
        return False
    return unsafe_fixes or getattr(fix.safety, "value", fix.safety) == "safe"


def hidden_fixes(findings: Iterable[Finding], unsafe_fixes: bool = False) -> int:
    """Findings whose only fix is unsafe and therefore not applied by ``--fix`` alone."""
    if unsafe_fixes:
        return 0
    return sum(1 for f in findings if f.fix is not None and not fix_applicable(f))


def statistics_rows(findings: List[Finding], unsafe_fixes: bool = False) -> List[Tuple[int, str, str, int]]:
    """(count, code, name, fixable count) per code, most frequent first, then by code;
    fixable counts only the fixes ``--fix`` applies (see :func:`fix_applicable`)."""
    rows: Dict[str, List] = {}
    for f in findings:
        row = rows.setdefault(f.code, [0, f.code, f.name, 0])
        row[0] += 1
        if fix_applicable(f, unsafe_fixes):
            row[3] += 1
    return sorted((tuple(r) for r in rows.values()), key=lambda r: (-r[0], r[1]))


def summary_line(findings: List[Finding], unsafe_fixes: bool = False) -> str:
    """``Found N errors (M fixable).`` or ``All checks passed!`` (ruff's wording), and on
    a second line ``K hidden fixes can be enabled with the `--unsafe-fixes` option.``
    when some findings have only an unsafe fix. M counts the fixes ``--fix`` applies."""
    if not findings:
        return "All checks passed!"
    n = len(findings)
    fixable = sum(1 for f in findings if fix_applicable(f, unsafe_fixes))
    noun = "error" if n == 1 else "errors"
    line = f"Found {n} {noun} ({fixable} fixable)."
    hidden = hidden_fixes(findings, unsafe_fixes)
    if hidden:
        fixes = "fix" if hidden == 1 else "fixes"
        line += f"\nNo fixes available ({hidden} hidden {fixes} can be enabled with the `--unsafe-fixes` option)." \
            if not fixable else f"\n{hidden} hidden {fixes} can be enabled with the `--unsafe-fixes` option."
    return line


def normalise_line_text(text: Optional[str]) -> str:
    """The flagged line with surrounding whitespace stripped and inner runs of
    whitespace collapsed: indentation and spacing changes don't change it."""
    if not text:
        return ""
    return " ".join(text.split())


def artifact_uri(path: str, root: Optional[str] = None) -> Tuple[str, Optional[str]]:
    """SARIF ``(uri, uriBaseId)`` for a finding path.

    Relative paths are relative to the current directory (that is how the
    runner passes them). A path inside ``root`` (default: the current
    directory) becomes a relative, percent-encoded POSIX URI with
    ``uriBaseId = %SRCROOT%``; anything else becomes an absolute ``file:`` URI
    with no base id.
    """
    base = os.path.abspath(root if root is not None else os.getcwd())
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute, base)
    except ValueError:  # another drive on Windows
        rel = None
    if rel is not None and rel != os.pardir and not rel.startswith(os.pardir + os.sep):
        posix = rel.replace(os.sep, "/") if os.sep != "/" else rel
        posix = posixpath.normpath(posix)
        return quote(posix, safe="/"), SRCROOT
    return Path(absolute).as_uri(), None


def root_uri(root: str) -> str:
    """The absolute ``file:`` URI of a source root, with the trailing slash SARIF requires."""
    uri = Path(os.path.abspath(root)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


__all__ = [
    "SRCROOT", "file_findings", "all_findings", "hint_for", "column1", "count_by_code",
    "statistics_rows", "summary_line", "fix_applicable", "hidden_fixes", "normalise_line_text", "artifact_uri", "root_uri",
]

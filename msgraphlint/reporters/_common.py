"""Helpers shared by the reporters: ordering, hints, summaries, SARIF-style URIs.

Conventions every reporter follows:

* ``Finding.col`` / ``end_col`` / ``Edit.col`` are 0-based character offsets;
  every output format shows 1-based columns (``col + 1``), like ruff.
* A file's ``unused_suppressions`` are ordinary findings (code MSG002), merged
  into that file's findings in ``sort_key`` order.
* The help text is ``Finding.hint``, else the active rule's class-level ``hint``.
* Text from outside msgraphlint (file names, messages that embed them, source lines)
  never reaches a reader raw: human formats show it through :func:`safe_text` /
  :func:`safe_path`, JSON through :func:`json_text` (see "Output safety" below).

Output safety. A file name may hold any byte but ``/`` and NUL, and a string literal
any character, so they can carry a newline (a forged line such as ``::error ...``, a
GitHub Actions workflow command), terminal escapes (ESC/CSI/OSC: retitle the window,
write the clipboard, clear the screen), bidi overrides that reorder what is shown, and
bytes that are not UTF-8 (Python decodes them to lone surrogates, ``surrogateescape``,
which cannot be encoded back to UTF-8). One scheme, Python's escapes, shows them:
C0 controls but tab, DEL, C1 controls, U+2028/U+2029 and the bidi embeddings,
overrides and isolates (U+202A-U+202E, U+2066-U+2069) become ``\\xNN`` / ``\\uNNNN``, and an
undecodable byte (surrogate U+DC80-U+DCFF) becomes ``\\xNN`` of that byte: ``caf\\xe9.py``.
A relative path that would start a line with ``::`` is shown as ``./::...``.
"""

from __future__ import annotations

import json as _json
import os
import posixpath
import re
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Tuple
from urllib.parse import quote

from ..findings import FileResult, Finding

SRCROOT = "%SRCROOT%"

# what a human format never shows raw (tab is fine: snippets expand it to spaces)
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# the same less \r and \n, which the github format escapes its own way (%0D, %0A)
_UNSAFE_KEEP_NEWLINES = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                                   "\ud800-\udfff]")
# left raw by json.dumps(ensure_ascii=False); json_text escapes them
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _escape(match: "re.Match[str]") -> str:
    c = ord(match.group())
    if 0xDC80 <= c <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape)
        return f"\\x{c - 0xDC00:02x}"
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def safe_text(text: Optional[str], *, keep_newlines: bool = False) -> str:
    """``text`` with control characters, bidi controls and undecodable bytes escaped
    (``\\x1b``, ``\\u202e``, ``\\xe9``): one line, nothing a terminal or a CI log runs,
    always encodable as UTF-8. ``keep_newlines`` leaves ``\\r`` and ``\\n`` (github)."""
    if not text:
        return text or ""
    if text.isprintable():  # (most texts) no Cc/Cf/Cs/Zl/Zp character: nothing to escape
        return text
    return (_UNSAFE_KEEP_NEWLINES if keep_newlines else _UNSAFE).sub(_escape, text)


def safe_path(path: str) -> str:
    """A file name as human formats show it: :func:`safe_text`, and ``./`` before a
    relative path that starts with ``::`` (no line may start a workflow command)."""
    shown = safe_text(path)
    return "./" + shown if shown.startswith("::") else shown


def unsurrogate(text: str) -> str:
    """Only the undecodable bytes escaped (``caf\\udce9.py`` → ``caf\\xe9.py``): valid
    Unicode for JSON keys and values, deterministic, so a baseline keyed by it round-trips."""
    return _SURROGATES.sub(_escape, text) if text and not text.isascii() else text


def _json_escape(match: "re.Match[str]") -> str:
    c = ord(match.group())
    if 0xD800 <= c <= 0xDFFF:  # not a character: its escape as text (the decoded string holds a backslash)
        return "\\" + _escape(match)
    return f"\\u{c:04x}"  # a JSON escape: the decoded string is unchanged


def json_text(obj, **kw) -> str:
    """``json.dumps(obj, ensure_ascii=False, **kw)`` that is valid UTF-8 and safe to print:
    DEL, C1, U+2028/U+2029 and bidi controls are written as JSON escapes (``\\u202e``:
    the decoded strings are unchanged; json already escapes C0), a lone surrogate (an
    undecodable byte of a file name) as the text ``\\xe9`` (see :func:`unsurrogate`)."""
    text = _json.dumps(obj, ensure_ascii=False, **kw)
    # every non-ASCII character of the output is inside a string literal: an escape is valid there
    # (DEL is ASCII: an all-ASCII text can still hold one)
    return text if text.isascii() and "\x7f" not in text else _JSON_UNSAFE.sub(_json_escape, text)


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
    when some findings have only an unsafe fix. M counts the fixes ``--fix`` applies.
    Like ruff, every finding of an error or warning rule is an "error"; findings of
    severity info (advice, off by default) are not: they are counted apart,
    ``Found 2 errors and 1 info finding (0 fixable).``, ``Found 1 info finding (0 fixable).``"""
    if not findings:
        return "All checks passed!"
    info = sum(1 for f in findings if getattr(f.severity, "value", f.severity) == "info")
    n = len(findings) - info
    fixable = sum(1 for f in findings if fix_applicable(f, unsafe_fixes))
    parts = [f"{n} {'error' if n == 1 else 'errors'}"] if n or not info else []
    if info:
        parts.append(f"{info} info {'finding' if info == 1 else 'findings'}")
    line = f"Found {' and '.join(parts)} ({fixable} fixable)."
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
        # percent-encode the name's bytes: an undecodable byte becomes %E9, as in as_uri()
        return quote(os.fsencode(posix), safe="/"), SRCROOT
    return Path(absolute).as_uri(), None


def root_uri(root: str) -> str:
    """The absolute ``file:`` URI of a source root, with the trailing slash SARIF requires."""
    uri = Path(os.path.abspath(root)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


__all__ = [
    "SRCROOT", "file_findings", "all_findings", "hint_for", "column1", "count_by_code",
    "statistics_rows", "summary_line", "fix_applicable", "hidden_fixes", "normalise_line_text", "artifact_uri", "root_uri",
    "safe_text", "safe_path", "unsurrogate", "json_text",
]

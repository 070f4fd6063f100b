"""Baselines: adopt the linter on a legacy code base today.

``--write-baseline FILE`` records the current findings; ``--baseline FILE`` then
reports only findings not in it. Entries are keyed by rule code, path (relative to
the baseline file) and the whitespace-normalised text of the flagged line — not by
line number — so edits elsewhere in the file do not resurrect them. Identical
keys are counted, so a second copy of a baselined defect is still reported.
Entries that no longer match anything are reported as stale.

A call-site finding (MSG004: a helper's problem reported at the call in another file) is
keyed by the text of the call's line and the code it repeats (``return helper(x) ->
MSG401``), not by its message (which names the helper's line); a finding that carries no
source text is keyed by its own line, read from its file. Baselines written before MSG004 recorded such findings under the code they repeat
(keyed by the call's text, or, before that, by their message): those entries still match.

Paths and texts are keys as Python decoded them, except that an undecodable byte of a
file name (a lone surrogate, ``surrogateescape``) is the text ``\\xe9``
(``reporters._common.unsurrogate``): the file is valid UTF-8 JSON, and writing then
applying a baseline computes the same key.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from typing import Dict, Iterable, List, Optional, Tuple

from .. import __version__
from ..findings import FileResult, Finding
from ..reporters._common import unsurrogate

FORMAT_VERSION = 1
_WS = re.compile(r"\s+")


class BaselineError(Exception):
    pass


class _Lines:
    """The lines of reported files, each file read once (only for findings that carry no
    source text). An unreadable file, or a name like ``<stdin>``, has none."""

    def __init__(self) -> None:
        self._files: Dict[str, List[str]] = {}

    def line(self, path: str, lineno: int) -> str:
        lines = self._files.get(path)
        if lines is None:
            lines = []
            if not path.startswith("<"):
                from ..parse.source import SourceError, SourceFile
                try:  # decoded as the lint decoded it (BOM, coding cookie), numbered as ast numbers
                    lines = SourceFile.read(path).lines
                except (SourceError, OSError, ValueError):
                    pass
            self._files[path] = lines
        return lines[lineno - 1] if 0 < lineno <= len(lines) else ""


def _rel(path: str, base_dir: str) -> str:
    return unsurrogate(os.path.relpath(os.path.abspath(path), base_dir).replace(os.sep, "/"))


def _norm(text: Optional[str]) -> str:
    return _WS.sub(" ", (text or "").strip())


def _key(f: Finding, base_dir: str, lines: Optional[_Lines] = None) -> Tuple[str, str, str]:
    text = _norm(f.source_line)
    if not text and f.source_line is None and lines is not None:
        text = _norm(lines.line(f.path, f.line))  # no source text: its own line's
    if f.origin is not None and text:
        # a call-site finding: the call, and the code it repeats (a new problem behind a
        # baselined call is still reported)
        return (f.code, _rel(f.path, base_dir), unsurrogate(f"{text} -> {f.origin[0]}"))
    return (f.code, _rel(f.path, base_dir), unsurrogate(text or f.message))


def _legacy_keys(f: Finding, base_dir: str, key: Tuple[str, str, str]) -> List[Tuple[str, str, str]]:
    """Keys an older msgraphlint gave the same finding: a finding without source text was
    keyed by its message; a call-site finding (MSG004) was reported under the code it
    repeats, keyed by the call's text, earlier by the message
    "call to helper `h` reaches: <the original's message> (<its file>:<line>)"."""
    rel = _rel(f.path, base_dir)
    if f.origin is None:
        return [] if f.source_line is not None else [(f.code, rel, unsurrogate(f.message))]
    code, path, line = f.origin[0], f.origin[1], f.origin[2]
    suffix = f" -> {code}"
    out = [(code, rel, key[2][:-len(suffix)] if key[2].endswith(suffix) else key[2])]
    first = f.chain[0] if f.chain else ""
    prefix = f"{code} at {path}:{line}: "
    if first.startswith(prefix):
        through = [c for c in f.chain if c.startswith("through ")]
        # the old message named the function holding the original finding
        helper = re.findall(r"`([^`]+)` \(", through[0])[-1] if through else f.message.split("`", 2)[1][:-2]
        helper = helper.rsplit(".", 1)[-1]
        out.append((code, rel, unsurrogate(
            f"call to helper `{helper}` reaches: {first[len(prefix):]} ({path}:{line})")))
    return out


def write(path: str, results: Iterable[FileResult]) -> int:
    base_dir = os.path.dirname(os.path.abspath(path))
    counts: Counter = Counter()
    lines = _Lines()
    for fr in results:
        for f in fr.findings:
            counts[_key(f, base_dir, lines)] += 1
    entries = [{"code": c, "path": p, "text": t, "count": n} for (c, p, t), n in sorted(counts.items())]
    doc = {"version": FORMAT_VERSION, "tool": {"name": "msgraphlint", "version": __version__}, "entries": entries}
    from ..fix.safe_write import write_atomic
    try:  # on failure (a full disk) the old file is left as it was
        write_atomic(path, (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    except OSError as exc:
        raise BaselineError(f"cannot write the baseline {path}: {exc.strerror or exc}") from None
    return sum(counts.values())


def load(path: str) -> Counter:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        raise BaselineError(f"baseline file not found: {path}") from None
    except (OSError, ValueError) as exc:
        raise BaselineError(f"{path}: not a baseline file ({exc})") from None
    if not isinstance(doc, dict) or doc.get("version") != FORMAT_VERSION or not isinstance(doc.get("entries"), list):
        raise BaselineError(f"{path}: not a msgraphlint baseline (version {FORMAT_VERSION})")
    counts: Counter = Counter()
    for e in doc["entries"]:
        try:
            counts[(e["code"], e["path"], e["text"])] += int(e.get("count", 1))
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"{path}: malformed entry {e!r}") from None
    return counts


def apply(path: str, results: List[FileResult]) -> Tuple[int, List[Tuple[str, str, str]]]:
    """Drop baselined findings in place. Returns (number dropped, stale entries)."""
    base_dir = os.path.dirname(os.path.abspath(path))
    remaining = load(path)
    lines = _Lines()
    dropped = 0
    for fr in results:
        kept = []
        for f in fr.findings:
            k = _key(f, base_dir, lines)
            if remaining.get(k, 0) <= 0:
                k = next((old for old in _legacy_keys(f, base_dir, k) if remaining.get(old, 0) > 0), k)
            if remaining.get(k, 0) > 0:
                remaining[k] -= 1
                dropped += 1
            else:
                kept.append(f)
        fr.findings = kept
    linted = {_rel(fr.path, base_dir) for fr in results}
    stale = [k for k, n in sorted(remaining.items()) if n > 0 and k[1] in linted]
    return dropped, stale

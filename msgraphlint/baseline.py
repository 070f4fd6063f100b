"""Baselines: adopt the linter on a legacy code base today.

``--write-baseline FILE`` records the current findings; ``--baseline FILE`` then
reports only findings not in it. Entries are keyed by rule code, path (relative to
the baseline file) and the whitespace-normalised text of the flagged line — not by
line number — so edits elsewhere in the file do not resurrect them. Identical
keys are counted, so a second copy of a baselined defect is still reported.
Entries that no longer match anything are reported as stale.

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
from typing import Iterable, List, Tuple

from . import __version__
from .findings import FileResult, Finding
from .reporters._common import unsurrogate

FORMAT_VERSION = 1
_WS = re.compile(r"\s+")


class BaselineError(Exception):
    pass


def _rel(path: str, base_dir: str) -> str:
    return unsurrogate(os.path.relpath(os.path.abspath(path), base_dir).replace(os.sep, "/"))


def _key(f: Finding, base_dir: str) -> Tuple[str, str, str]:
    text = _WS.sub(" ", (f.source_line or "").strip()) or f.message
    return (f.code, _rel(f.path, base_dir), unsurrogate(text))


def write(path: str, results: Iterable[FileResult]) -> int:
    base_dir = os.path.dirname(os.path.abspath(path))
    counts: Counter = Counter()
    for fr in results:
        for f in fr.findings:
            counts[_key(f, base_dir)] += 1
    entries = [{"code": c, "path": p, "text": t, "count": n} for (c, p, t), n in sorted(counts.items())]
    doc = {"version": FORMAT_VERSION, "tool": {"name": "msgraphlint", "version": __version__}, "entries": entries}
    from .safe_write import write_atomic
    write_atomic(path, (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
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
    dropped = 0
    for fr in results:
        kept = []
        for f in fr.findings:
            k = _key(f, base_dir)
            if remaining.get(k, 0) > 0:
                remaining[k] -= 1
                dropped += 1
            else:
                kept.append(f)
        fr.findings = kept
    linted = {_rel(fr.path, base_dir) for fr in results}
    stale = [k for k, n in sorted(remaining.items()) if n > 0 and k[1] in linted]
    return dropped, stale

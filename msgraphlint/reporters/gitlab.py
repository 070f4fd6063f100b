"""GitLab Code Quality (a Code Climate JSON array, ruff's ``gitlab`` format)::

    [{"description": "MSG201: print() ...", "check_name": "MSG201", "fingerprint": "3f…",
      "severity": "major",
      "location": {"path": "model.py", "positions": {"begin": {"line": 12, "column": 9},
                                                    "end": {"line": 12, "column": 17}}}}]

* ``severity``: ``major`` / ``minor`` / ``info`` for error / warning / info findings;
* ``fingerprint``: SHA-256 of the path, cell, code, message and the flagged line's text
  (whitespace normalised), not of the line number, so it survives edits above the
  finding; a second finding with the same inputs gets the next of a counter hashed in,
  so fingerprints are unique in one report and stable across runs;
* columns are 1-based; a notebook's finding has lines within its cell and
  ``(cell N)`` in the description.

An empty report is ``[]``.
"""

from __future__ import annotations

import hashlib
from typing import Dict, List, Mapping, Optional

from ..findings import FileResult, Finding, Severity
from ._common import all_findings, column1, json_text, normalise_line_text, unsurrogate

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def _fingerprint(finding: Finding, seen: Dict[str, int]) -> str:
    base = "\0".join([unsurrogate(finding.path), str(finding.cell or ""), finding.code, finding.message,
                      normalise_line_text(finding.source_line)])
    n = seen.get(base, 0)
    seen[base] = n + 1
    data = base if n == 0 else f"{base}\0{n}"
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def issue(finding: Finding, seen: Dict[str, int]) -> Dict:
    cell = f" (cell {finding.cell})" if finding.cell is not None else ""
    end_line = finding.end_line if finding.end_line is not None else finding.line
    end_col = column1(finding.end_col)
    return {
        "description": f"{finding.code}: {finding.message}{cell}",
        "check_name": finding.code,
        "fingerprint": _fingerprint(finding, seen),
        "severity": SEVERITIES[Severity(finding.severity)],
        "location": {
            "path": finding.path,
            "positions": {
                "begin": {"line": finding.line, "column": finding.col + 1},
                "end": {"line": end_line, "column": end_col if end_col is not None else finding.col + 1},
            },
        },
    }


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, **_options) -> str:
    seen: Dict[str, int] = {}
    return json_text([issue(f, seen) for f in all_findings(results)], indent=2) + "\n"

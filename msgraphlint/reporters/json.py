"""The machine-readable JSON document (``--output-format json``).

Versioned by ``schema_version`` and described by the JSON Schema shipped as
``msgraphlint/data/findings.schema.json``; field by field in ``docs/json-format.md``.
Lines and columns are 1-based. The text is valid UTF-8 (``_common.json_text``): an
undecodable byte of a file name is the text ``\\xe9`` in ``path``, DEL, C1 and bidi
controls are JSON escapes. With ``statistics`` the output is instead the
statistics document (:func:`statistics_document`): one row per code with its count
and fixable count, and the totals.
"""

from __future__ import annotations

import json as _json
from typing import Any, Dict, List, Mapping, Optional

from .. import __version__
from ..findings import FileResult, Finding, Fix
from ._common import (all_findings, column1, count_by_code, fix_applicable, hidden_fixes, hint_for, json_text,
                      statistics_rows)

# 2.0: summary.fixable counts what --fix applies; summary.hidden_fixes; 2.1: origin; 2.2: alternatives;
# 2.3: `cell` (a notebook's findings and edits)
SCHEMA_VERSION = "2.4"
SCHEMA_RESOURCE = "findings.schema.json"  # in the msgraphlint.data package


def fix_dict(fix: Optional[Fix]) -> Optional[Dict[str, Any]]:
    if fix is None:
        return None
    return {
        "description": fix.description,
        "safety": getattr(fix.safety, "value", fix.safety),
        "edits": [
            dict({"line": e.line, "column": e.col + 1, "end_line": e.end_line,
                  "end_column": e.end_col + 1, "text": e.text}, **({"cell": e.cell} if e.cell is not None else {}))
            for e in fix.edits
        ],
    }


def finding_dict(finding: Finding, rules: Mapping[str, type]) -> Dict[str, Any]:
    out = _finding_dict(finding, rules)
    if finding.cell is not None:  # a notebook's: the cell (1-based), `line`s within it
        out["cell"] = finding.cell
    return out


def _finding_dict(finding: Finding, rules: Mapping[str, type]) -> Dict[str, Any]:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "detail": finding.detail,
        "severity": getattr(finding.severity, "value", finding.severity),
        "path": finding.path,
        "line": finding.line,
        "column": finding.col + 1,
        "end_line": finding.end_line,
        "end_column": column1(finding.end_col),
        "hint": hint_for(finding, rules),
        "chain": list(finding.chain),
        "fix": fix_dict(finding.fix),
        # rewrites for the author to choose from (MSG510's two readings of nn.Dropout(0.1));
        # never applied by --fix or --unsafe-fixes, and not counted as fixable
        "alternatives": [fix_dict(a) for a in finding.alternatives],
        "source_line": finding.source_line,
        "origin": None if finding.origin is None else {
            "code": finding.origin[0], "path": finding.origin[1], "line": finding.origin[2],
            "column": finding.origin[3] + 1},
    }


def document(results: List[FileResult], rules: Mapping[str, type], unsafe_fixes: bool = False) -> Dict[str, Any]:
    """The findings document. ``summary.fixable`` counts the findings ``--fix`` would fix
    (safe fixes; every fix with ``unsafe_fixes``), as the text summary does;
    ``summary.hidden_fixes`` those whose only fix is unsafe (``--unsafe-fixes``)."""
    findings = all_findings(results)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "msgraphlint", "version": __version__},
        "findings": [finding_dict(f, rules) for f in findings],
        "summary": {
            "files": len(results),
            "findings": len(findings),
            "fixable": sum(1 for f in findings if fix_applicable(f, unsafe_fixes)),
            "hidden_fixes": hidden_fixes(findings, unsafe_fixes),
            "by_code": count_by_code(findings),
        },
    }


def load_schema() -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :func:`document`'s output."""
    from importlib import resources

    text = resources.files("msgraphlint.data").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return _json.loads(text)


def statistics_document(results: List[FileResult], unsafe_fixes: bool = False) -> Dict[str, Any]:
    """``--statistics --output-format json``: per-code rows (most frequent first) and totals.
    ``fixable`` counts what ``--fix`` applies; ``hidden_fixes`` the findings whose only fix
    is unsafe (enabled by ``--unsafe-fixes``)."""
    findings = all_findings(results)
    rows = statistics_rows(findings, unsafe_fixes)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "msgraphlint", "version": __version__},
        "statistics": [{"code": code, "name": name, "count": count, "fixable": fixable}
                       for count, code, name, fixable in rows],
        "total": len(findings),
        "fixable": sum(r[3] for r in rows),
        "hidden_fixes": hidden_fixes(findings, unsafe_fixes),
        "files": len(results),
    }


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, unsafe_fixes: bool = False, **_options) -> str:
    if statistics:
        return json_text(statistics_document(results, unsafe_fixes), indent=2) + "\n"
    return json_text(document(results, rules, unsafe_fixes), indent=2) + "\n"

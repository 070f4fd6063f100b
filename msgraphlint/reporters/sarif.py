"""SARIF 2.1.0 output (GitHub code scanning, IDE viewers, SARIF tools).

One run. ``tool.driver.rules`` lists the rules that produced results, sorted by
code (``all_rules=True``, the ``--sarif-all-rules`` flag: every active rule, for
viewers that show a catalogue), plus a minimal descriptor for any reported code
that is not among the active rules (e.g. MSG001),
with ``help`` and ``fullDescription`` from ``Rule.docs()`` / the rationale,
``helpUri`` from ``Rule.help_uri()`` and ``defaultConfiguration.level`` from
the rule's severity. Each result carries ``ruleId``/``ruleIndex``, ``level``
(error / warning / note), one physical location, for a call-site finding
(MSG004) a ``relatedLocations`` entry at the finding it repeats and, when the finding
has a fix or alternative fixes with edits, ``fixes``: the fix first, then each
alternative (``Finding.alternatives``, the readings only the author can choose between),
each with its description and ``properties.safety``; an alternative also has
``properties.alternative: true`` (msgraphlint applies none of them on its own).

Locations: a path inside ``root`` (default: the current directory) is a
relative URI with ``uriBaseId`` ``%SRCROOT%``; ``run.originalUriBaseIds``
resolves ``%SRCROOT%`` only when ``root`` was given. Regions are 1-based,
``endColumn`` exclusive, as SARIF wants; ``run.columnKind`` is
``unicodeCodePoints`` (Python string offsets). URIs percent-encode the file name's
bytes (a name that is not UTF-8, ``caf\\xe9.py``, is ``caf%E9.py``); the document is
valid UTF-8 (``_common.json_text``).

``partialFingerprints["msgraphlintFingerprint/v1"]`` is the SHA-256 of the rule
code, the artifact URI, the flagged line's text with whitespace normalised, and
the index of this occurrence among the file's findings with the same code and
text (for a call-site finding, MSG004, the code is ``MSG004>`` and the code it repeats). It has no line numbers in it: it survives unrelated lines moving, and two
identical lines in one file still get different fingerprints.
"""

from __future__ import annotations

import hashlib
import textwrap
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .. import __version__
from ..findings import FileResult, Finding, Fix, Severity
from ..urls import repository_url
from ._common import (SRCROOT, artifact_uri, file_findings, hint_for, json_text, normalise_line_text,
                      root_uri)

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "msgraphlintFingerprint/v1"


def _level(severity) -> str:
    return Severity(severity).sarif_level


def rule_descriptor(rule: type) -> Dict[str, Any]:
    code = rule.code
    summary = (getattr(rule, "summary", "") or "").strip() or rule.name or code
    rationale = textwrap.dedent(getattr(rule, "rationale", "") or "").strip()
    docs = rule.docs()
    descriptor: Dict[str, Any] = {
        "id": code,
        "name": rule.name or code,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": rationale or summary},
        "help": {"text": docs, "markdown": docs},
        "helpUri": rule.help_uri(),
        "defaultConfiguration": {"level": _level(rule.severity)},
        "properties": {"tags": [rule.family()], "fixable": bool(rule.fixable())},
    }
    if descriptor["helpUri"] is None:  # a plugin rule without a page: no link to one that does not exist
        del descriptor["helpUri"]
    return descriptor


def _fallback_descriptor(finding: Finding) -> Dict[str, Any]:
    """A code that was reported but is not among the active rules (engine codes)."""
    return {
        "id": finding.code,
        "name": finding.name or finding.code,
        "shortDescription": {"text": finding.name or finding.code},
        "defaultConfiguration": {"level": _level(finding.severity)},
    }


def fingerprint(code: str, uri: str, line_text: str, occurrence: int) -> str:
    payload = "\0".join((code, uri, line_text, str(occurrence)))
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


def _region(line: int, col: int, end_line: Optional[int], end_col: Optional[int]) -> Dict[str, int]:
    region = {"startLine": line, "startColumn": col + 1}
    if end_line is not None or end_col is not None:
        region["endLine"] = end_line if end_line is not None else line
    if end_col is not None:
        region["endColumn"] = end_col + 1
    return region


def _artifact_location(uri: str, base: Optional[str]) -> Dict[str, str]:
    loc = {"uri": uri}
    if base:
        loc["uriBaseId"] = base
    return loc


def _fix(fix: Fix, location: Dict[str, str], alternative: bool = False) -> Optional[Dict[str, Any]]:
    if not fix.edits:
        return None
    out = {
        "description": {"text": fix.description},
        "artifactChanges": [{
            "artifactLocation": dict(location),
            "replacements": [
                {"deletedRegion": {"startLine": e.line, "startColumn": e.col + 1,
                                   "endLine": e.end_line, "endColumn": e.end_col + 1},
                 "insertedContent": {"text": e.text}}
                for e in fix.edits
            ],
        }],
        "properties": {"safety": getattr(fix.safety, "value", fix.safety)},
    }
    if alternative:
        out["properties"]["alternative"] = True
    return out


def _message(finding: Finding) -> Dict[str, str]:
    """``text``: the one-line title; ``markdown`` (only when there is a detail): the title,
    then the detail as its own paragraph (the messages' backticks are markdown's code spans)."""
    out = {"text": finding.message}
    if finding.detail:
        out["markdown"] = finding.message + "\n\n" + finding.detail
    return out


def _result(finding: Finding, rule_index: int, location: Dict[str, str], print_: str,
            rules: Mapping[str, type], root: Optional[str] = None) -> Dict[str, Any]:
    physical: Dict[str, Any] = {
        "artifactLocation": location,
        "region": _region(finding.line, finding.col, finding.end_line, finding.end_col),
    }
    if finding.source_line is not None:
        physical["contextRegion"] = {"startLine": finding.line, "endLine": finding.line,
                                     "snippet": {"text": finding.source_line.rstrip("\r\n")}}
    where: Dict[str, Any] = {"physicalLocation": physical}
    if finding.cell is not None:  # a notebook's: the region's lines count within this cell
        where["logicalLocations"] = [{"name": f"cell {finding.cell}", "kind": "notebookCell"}]
        where["properties"] = {"cell": finding.cell}
    result: Dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": _level(finding.severity),
        "message": _message(finding),
        "locations": [where],
        "partialFingerprints": {FINGERPRINT_KEY: print_},
    }
    if finding.origin is not None:  # a call-site finding (MSG004): where the finding it repeats is
        code, path, line, col = finding.origin
        uri, base = artifact_uri(path, root)
        result["relatedLocations"] = [{
            "id": 0,
            "physicalLocation": {"artifactLocation": _artifact_location(uri, base),
                                 "region": {"startLine": line, "startColumn": col + 1}},
            "message": {"text": f"{code}: the finding this call reaches"},
        }]
    # a notebook's edits are in its cells' lines, not the file's: no SARIF fix (it would edit the JSON)
    fixes = [] if finding.fix is None or finding.cell is not None else [_fix(finding.fix, location)]
    fixes += [_fix(alt, location, alternative=True) for alt in finding.alternatives if finding.cell is None]
    fixes = [fx for fx in fixes if fx is not None]
    if fixes:  # SARIF allows several: the fix, then every alternative
        result["fixes"] = fixes
    props: Dict[str, Any] = {"name": finding.name}
    hint = hint_for(finding, rules)
    if hint:
        props["hint"] = hint
    if finding.chain:
        props["chain"] = list(finding.chain)
    if finding.cell is not None:
        props["cell"] = finding.cell
    result["properties"] = props
    return result


def log(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
        all_rules: bool = False) -> Dict[str, Any]:
    """The SARIF log as a dict."""
    reported = {f.code for r in results for f in file_findings(r)}
    descriptors = [rule_descriptor(rules[code]) for code in sorted(rules) if all_rules or code in reported]
    index = {d["id"]: i for i, d in enumerate(descriptors)}

    sarif_results: List[Dict[str, Any]] = []
    for file_result in results:
        seen: Dict[Tuple[str, str], int] = {}
        for finding in file_findings(file_result):
            if finding.code not in index:
                index[finding.code] = len(descriptors)
                descriptors.append(_fallback_descriptor(finding))
            uri, base = artifact_uri(finding.path, root)
            text = normalise_line_text(finding.source_line)
            # a call-site finding is told apart by the code it repeats: fixing one of two
            # findings a call reaches leaves the other's fingerprint as it was
            code = finding.code if finding.origin is None else f"{finding.code}>{finding.origin[0]}"
            occurrence = seen.get((code, text), 0)
            seen[(code, text)] = occurrence + 1
            print_ = fingerprint(code, uri, text, occurrence)
            sarif_results.append(_result(finding, index[finding.code],
                                         _artifact_location(uri, base), print_, rules, root))

    run: Dict[str, Any] = {
        "tool": {"driver": {
            "name": "msgraphlint",
            "version": __version__,
            "semanticVersion": __version__,
            "informationUri": repository_url(),
            "rules": descriptors,
        }},
        "columnKind": "unicodeCodePoints",
        "results": sarif_results,
    }
    if root is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": root_uri(root)}}
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def render(results: List[FileResult], rules: Mapping[str, type], *, root: Optional[str] = None,
           statistics: bool = False, color: bool = False, all_rules: bool = False, **_options) -> str:
    return json_text(log(results, rules, root=root, all_rules=all_rules), indent=2) + "\n"

"""Every rule's INVALID examples, snapshotted: the message, line and column (and the end of the
span) of each finding, and its detail (the lines after the title), one file per rule module (tests/rules/snapshots/<module>.json), so that
a change of wording or position cannot pass unnoticed. tests/test_rule_examples.py checks the
lines an example expects; this file checks everything else a user reads.

A deliberate change: run with ``MSGRAPHLINT_UPDATE_SNAPSHOTS=1`` (the files are rewritten and
the test passes), then review ``git diff tests/rules/snapshots/`` before committing it
(docs/RULE_AUTHORING.md, "Tests")."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from msgraphlint.engine.registry import load_rules
from msgraphlint.run.runner import run_paths

SNAPSHOTS = Path(__file__).parent / "rules" / "snapshots"
UPDATE = os.environ.get("MSGRAPHLINT_UPDATE_SNAPSHOTS", "") not in ("", "0")
RULES = load_rules()


def _module(rule) -> str:
    return rule.__module__.rsplit(".", 1)[-1]


def _by_module():
    out = defaultdict(list)
    for code, rule in sorted(RULES.items()):
        if rule.INVALID:
            out[_module(rule)].append(rule)
    return dict(sorted(out.items()))


MODULES = _by_module()


def example_findings(tmp_path: Path, rule, index: int, example) -> list:
    """The rule's findings on one of its examples, run alone through the real runner
    (tests/test_message_titles.py measures the same findings)."""
    folder = tmp_path / f"{rule.code}-{index}"
    folder.mkdir()
    path = folder / example.filename
    path.write_text(example.source, encoding="utf-8")
    result = run_paths([str(path)], select=[rule.code], config_file=None)
    return [f for fr in result.files for f in fr.findings + fr.unused_suppressions if f.code == rule.code]


def _findings(tmp_path: Path, rule, index: int, example) -> list:
    found = example_findings(tmp_path, rule, index, example)
    return [{"line": f.line, "col": f.col + 1, "end_line": f.end_line,
             "end_col": f.end_col + 1 if f.end_col is not None else None, "message": f.message,
             "detail": f.detail}
            for f in sorted(found, key=lambda f: (f.line, f.col, f.message))]


def _render(module: str, tmp_path: Path) -> dict:
    return {rule.code: {str(i): _findings(tmp_path, rule, i, ex) for i, ex in enumerate(rule.INVALID)}
            for rule in MODULES[module]}


@pytest.mark.parametrize("module", list(MODULES))
def test_invalid_examples_match_their_snapshot(module, tmp_path):
    path = SNAPSHOTS / f"{module}.json"
    got = _render(module, tmp_path)
    if UPDATE:
        SNAPSHOTS.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        return
    assert path.exists(), (f"no snapshot for rules/{module}.py: run with MSGRAPHLINT_UPDATE_SNAPSHOTS=1 "
                           "and review the new file")
    want = json.loads(path.read_text(encoding="utf-8"))
    for code in sorted(set(want) | set(got)):
        assert code in got, f"{code}: snapshotted but no longer a rule of rules/{module}.py with INVALID examples"
        assert code in want, f"{code}: no snapshot yet (MSGRAPHLINT_UPDATE_SNAPSHOTS=1, then review the diff)"
        assert got[code] == want[code], (
            f"{code}'s INVALID examples changed (message, line or column). If deliberate, run with "
            f"MSGRAPHLINT_UPDATE_SNAPSHOTS=1 and review `git diff {path.relative_to(Path(__file__).parent.parent)}`")


def test_no_snapshot_without_a_rule_module():
    if UPDATE:
        for stale in set(p.stem for p in SNAPSHOTS.glob("*.json")) - set(MODULES):
            (SNAPSHOTS / f"{stale}.json").unlink()
        return
    stale = sorted(set(p.stem for p in SNAPSHOTS.glob("*.json")) - set(MODULES))
    assert not stale, f"snapshots of rule modules that no longer have INVALID examples: {stale}"

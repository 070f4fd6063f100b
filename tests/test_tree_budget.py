"""Phase 1 keeps a file's parsed tree for phase 2 while the run is within its budgets
(``filework.TREE_CACHE_LINES``, ``TREE_CACHE_RSS``): each file is parsed once; past the
budget a file is parsed again in phase 2 instead of holding its tree, with the same findings."""

from __future__ import annotations

import collections

import msgraphlint.parse.source as source
import msgraphlint.run.filework as filework
from msgraphlint.run.runner import run_paths

from helpers import write_tree
from test_cache import RICH


def _lint_counting_parses(root, monkeypatch, **kw):
    counts = collections.Counter()
    real = source.parse_module

    def counting(text, path):
        counts[path.rsplit("/", 1)[-1]] += 1
        return real(text, path)
    monkeypatch.setattr(source, "parse_module", counting)
    res = run_paths([str(root)], **kw)
    monkeypatch.setattr(source, "parse_module", real)
    found = sorted((f.path.rsplit("/", 1)[-1], f.line, f.col, f.code, f.message)
                   for fr in res.files for f in fr.findings + fr.unused_suppressions)
    return found, dict(counts)


def test_within_the_budget_each_file_is_parsed_once(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "p", RICH)
    monkeypatch.setattr(filework, "TREE_CACHE_RSS", 2 ** 62)
    found, parses = _lint_counting_parses(root, monkeypatch)
    assert {n for n, *_ in found} >= {"base.py", "model.py", "bad.py"}
    assert parses == {"bad.py": 1, "base.py": 1, "model.py": 1}  # plain.py: no graph code, never parsed


def test_over_the_rss_budget_trees_are_not_kept_and_findings_are_the_same(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "p", RICH)
    monkeypatch.setattr(filework, "TREE_CACHE_RSS", 2 ** 62)
    kept, _ = _lint_counting_parses(root, monkeypatch)
    monkeypatch.setattr(filework, "TREE_CACHE_RSS", 0)  # any process is over it
    found, parses = _lint_counting_parses(root, monkeypatch)
    assert found == kept
    # phase 2 parses the checked files again (bad.py does not parse: nothing to check); model.py a
    # third time, when base.py's rules read its calls of Base (the engine's hints from other modules)
    assert parses["bad.py"] == 1 and parses["base.py"] >= 2 and parses["model.py"] >= 2, parses

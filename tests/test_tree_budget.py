"""Phase 1 keeps a file's parsed tree for phase 2 while the run is within its budgets
(``filework.TREE_CACHE_LINES``, ``TREE_CACHE_RSS``; a run of at most ``TREE_CACHE_ALL_BYTES``
of Python keeps every tree whatever the RSS): each file is parsed once; past the budget a file
is parsed again in phase 2 instead of holding its tree, with the same findings."""

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
    monkeypatch.setattr(filework, "TREE_CACHE_ALL_BYTES", 0)  # and the run is not a small one
    found, parses = _lint_counting_parses(root, monkeypatch)
    assert found == kept
    # phase 2 parses the checked files again (bad.py does not parse: nothing to check); model.py a
    # third time, when base.py's rules read its calls of Base (the engine's hints from other modules)
    assert parses["bad.py"] == 1 and parses["base.py"] >= 2 and parses["model.py"] >= 2, parses


def test_a_small_run_keeps_every_tree_whatever_the_rss(tmp_path, monkeypatch):
    """Over the RSS budget, a run whose files hold at most TREE_CACHE_ALL_BYTES still parses each
    file once (in-process and in the --jobs workers, whose share is measured against its part of
    the limit); one byte less than the files hold and they are parsed again, as above."""
    root = write_tree(tmp_path / "p", RICH)
    monkeypatch.setattr(filework, "TREE_CACHE_RSS", 0)
    size = sum(p.stat().st_size for p in root.rglob("*.py"))
    monkeypatch.setattr(filework, "TREE_CACHE_ALL_BYTES", size)
    found, parses = _lint_counting_parses(root, monkeypatch)
    assert parses == {"bad.py": 1, "base.py": 1, "model.py": 1}
    monkeypatch.setattr(filework, "TREE_CACHE_ALL_BYTES", size - 1)
    again, reparsed = _lint_counting_parses(root, monkeypatch)
    assert again == found and reparsed["base.py"] >= 2, reparsed
    assert filework.small_run([str(p) for p in root.rglob("*.py")], jobs=1) is False
    monkeypatch.setattr(filework, "TREE_CACHE_ALL_BYTES", 2 * size)
    assert filework.small_run([str(p) for p in root.rglob("*.py")], jobs=2) is True
    assert filework.small_run([str(p) for p in root.rglob("*.py")], jobs=3) is False

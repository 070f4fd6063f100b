"""Globs as ruff reads them (issue 26 item 2): `per-file-ignores`, `exclude`/`extend-exclude`
and `include` use Rust globset semantics as ruff builds them (``Glob::new``, so ``*``
crosses ``/``), where ``**/`` matches zero or more directories: ``tests/**/*.py`` matches
``tests/x.py`` (fnmatch does not)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli
from msgraphlint.run.discovery import GlobCodes, glob_match, matches_any

from helpers import write_tree

# expected values written from globset's documented semantics, not from the code under test
CASES = [
    ("tests/x.py", "tests/**/*.py", True),          # zero directories
    ("tests/a/b/x.py", "tests/**/*.py", True),
    ("tests/x.pyc", "tests/**/*.py", False),
    ("other/tests/x.py", "tests/**/*.py", False),
    ("x.py", "**/x.py", True),
    ("a/b/x.py", "**/x.py", True),
    ("a/bx.py", "**/x.py", False),
    ("gen/a/b.py", "gen/**", True),
    ("gen", "gen/**", False),
    ("src/a/b.py", "src/*.py", True),               # globset as ruff builds it: * crosses /
    ("a.py", "{a,b}.py", True),
    ("c.py", "{a,b}.py", False),
    ("x1.py", "x[0-9].py", True),
    ("x1.py", "x[!0-9].py", False),
    ("x*.py", "x\\*.py", True),
    ("xy.py", "x\\*.py", False),
    ("a.py", "a.[p", False),                        # an unclosed class is literal
]


@pytest.mark.parametrize("text,pattern,expected", CASES)
def test_glob_semantics(text, pattern, expected):
    assert glob_match(text, pattern) is expected


def test_globcodes_agrees_with_matches_any(tmp_path):
    globs = {p: [f"C{i}"] for i, (_, p, _) in enumerate(CASES)}
    table = GlobCodes(globs, str(tmp_path))
    for text, _, _ in CASES:
        path = str(tmp_path / text)
        want = [c for p, cs in globs.items() if matches_any(path, [p], str(tmp_path)) for c in cs]
        assert sorted(table.codes_for(path)) == sorted(want), text


NET = """
import mindspore.nn as nn


class Net(nn.Cell):
    def construct(self, x):
        print(x)
        return x
"""


def _lint(root, *args):
    r = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", *args], catch_exceptions=False)
    return sorted({f["path"] for f in json.loads(r.output)["findings"]})


def test_per_file_ignores_double_star_matches_files_directly_below(tmp_path, monkeypatch):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.msgraphlint.per-file-ignores]\n"tests/**/*.py" = ["MSG201"]\n',
        "tests/test_a.py": NET, "tests/sub/test_b.py": NET, "src/net.py": NET})
    monkeypatch.chdir(tmp_path)
    assert _lint(tmp_path, ".") == ["src/net.py"]


def test_extend_exclude_double_star(tmp_path, monkeypatch):
    write_tree(tmp_path, {
        "pyproject.toml": '[tool.msgraphlint]\nextend-exclude = ["gen/**/*.py"]\n',
        "gen/a.py": NET, "gen/deep/b.py": NET, "src/net.py": NET})
    monkeypatch.chdir(tmp_path)
    assert _lint(tmp_path, ".") == ["src/net.py"]

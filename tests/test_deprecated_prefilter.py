"""MSG513's text test (``deprecated_api._may_report``, issue 21 throughput): a module is walked
only where its import map or its text can hold a finding. Each sample below is a module of
its own, so the test decides alone whether it is walked: every spelling of a reported name
that the text shows only in part (a chain broken over lines, after a comment, a blank line,
a continuation, a parenthesised root, fullwidth letters that Python reads NFKC-normalised,
an imported name, a moved module's import, a name after a block of comments, a comment
line between a dot and the next name, a `#` in a string, a combining mark in a root) keeps its
finding, and the findings over the
fixtures and these samples are the same without the test (every module walked)."""
from __future__ import annotations

from pathlib import Path

import pytest

from helpers import lint, write_tree

REPO = Path(__file__).resolve().parent.parent

# file -> (source, the lines MSG513 reports: ops.padding is @deprecated since 2.8.0 in 2.10.0)
SAMPLES = {
    "paren.py": ("from mindspore import ops\nx = (ops).padding(t)\n", [2]),
    "dot_at_eol.py": ("import mindspore as ms\ny = (ms.\n     ops.padding(t))\n", [2]),
    "comment.py": ("import mindspore as ms\nz = (ms.  # the ops\n     ops.padding(t))\n", [2]),
    "blank_line.py": ("import mindspore as ms\nw = (ms.\n\n     ops.padding(t))\n", [2]),
    "leading_dot.py": ("import mindspore as ms\nv = (ms\n     .ops.padding(t))\n", [2]),
    "continuation.py": ("import mindspore as ms\nu = ms.ops \\\n    .padding(t)\n", [2]),
    "fullwidth.py": ("from mindspore import ops\nq = \uff4f\uff50\uff53.padding(t)\n", [2]),
    "by_name.py": ("from mindspore.ops import padding\nq = padding(t)\n", [2]),
    "moved_module.py": ("import mindspore._extends.parse.namespace as ns\n", [1]),
    "moved_from.py": ("from mindspore._extends.parse import namespace\n", [1]),
    # a comment block after a dot (a sentence's) with `# #` in it and no name after it: the
    # text test reads a comment to its line's end (a regular expression that may end one
    # anywhere backtracks exponentially here: the file ran out of its CPU budget, MSG000)
    "comment_block.py": ("import mindspore as ms\n# one sentence.\n" + "# # # # # # # #\n" * 3
                         + "(t) = 1\ny = ms.ops.padding(t)\n", [7]),
    # what the receiver test reads back from a dot (issue 21 throughput): a comment line inside
    # the brackets between the dot and the chain's next name, a `#` in a string before a dot that
    # ends its line before a comment, `)` after a name (a parenthesised root), a combining mark
    # before a digit (an identifier Python accepts, `q` + U+0301 + `1`, that is no number). Each
    # is lost by a receiver test without the step that keeps it.
    "comment_line.py": ("import mindspore as ms\ny = (ms.\n     # the ops\n     ops.padding(t))\n", [2]),
    "hash_in_string.py": ('import mindspore as ms\ny = ("#", ms.  # the ops\n     ops.padding(t))\n', [2]),
    "paren_space.py": ("from mindspore import ops\nx = (ops ).padding(t)\n", [2]),
    "combining_mark.py": ("import mindspore.ops as q\u03011\nx = (q\u03011).padding(t)\n", [2]),
    # look-alikes: another receiver, a docstring-only notice (no warning in 2.10), prose
    "own_attr.py": ("import mindspore as ms\nclass A:\n    def f(self):\n        return self.padding + self.eps\n", []),
    "docstring_only.py": ("import mindspore as ms\nfrom mindspore import ops\ns = ops.cast(t, ms.float32)\n", []),
    "prose.py": ('import mindspore as ms\n"""Default: 1.0.\n    padding (int): the pad."""\n', []),
    # receivers with no dotted name: a subscript's attribute, a number, a string, a call
    "subscript.py": ("import mindspore as ms\nb = [ms]\ny = b[-1].ops.padding\nz = 'a'.padding\nw = f(-1).padding\n", []),
}


def _found(paths):
    return sorted((Path(f.path).name, f.line, f.col, f.message)
                  for f in lint(paths, select=["MSG513"], target="2.10.0"))


@pytest.fixture()
def samples(tmp_path):
    root = tmp_path / "p"
    write_tree(root, {name: src for name, (src, _) in SAMPLES.items()})
    (root / ".git").mkdir()
    return root


def test_each_partial_spelling_keeps_its_finding(samples):
    found = _found([samples])
    for name, (_, lines) in SAMPLES.items():
        assert sorted(line for n, line, _c, _m in found if n == name) == lines, name


def test_the_text_test_loses_no_finding(samples, monkeypatch):
    import msgraphlint_rules.deprecated_api as D

    paths = [samples, REPO / "fixtures"]
    with_test = _found(paths)
    monkeypatch.setattr(D, "PREFILTER", False)
    assert _found(paths) == with_test
    assert len(with_test) >= 10

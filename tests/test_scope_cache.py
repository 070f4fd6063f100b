"""The editor path reuses findings of unchanged graph scopes across edits
(``run_source(..., scope_cache=...)``); the results must equal a fresh run's."""

from __future__ import annotations

from msgraphlint.run.runner import prepare, run_source

MODULE = '''import mindspore as ms
from mindspore import nn, ops


def helper(t):
    return t.asnumpy()


class A(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            x = x + 1
        return helper(x)


class B(nn.Cell):
    def construct(self, x):
        print(x)
        y = x
        y += 1
        return y
'''

EDITS = [
    lambda s: s,
    lambda s: "# a comment that shifts every line\\n\\n" + s,                 # every scope moves down
    lambda s: s.replace("        print(x)\\n", ""),                          # B changes
    lambda s: s.replace("    return t.asnumpy()", "    return t * 2"),       # the helper changes
    lambda s: s.replace("class B(nn.Cell):", "class B:"),                    # B is no longer a Cell
    lambda s: s,
]


def _view(result):
    return [(f.code, f.line, f.col, f.end_line, f.end_col, f.message, f.source_line,
             f.fix.edits if f.fix else None) for f in result.findings]


def test_cached_scopes_match_fresh_runs(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODULE)
    settings = prepare([str(path)])
    cache: dict = {}
    text = MODULE
    for edit in EDITS + EDITS[::-1]:
        text = edit(text)
        cached = run_source(text, str(path), settings=settings, scope_cache=cache)
        fresh = run_source(text, str(path), settings=settings)
        assert _view(cached) == _view(fresh)
    assert cache, "the cache was used"

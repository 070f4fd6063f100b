"""MSG510's `keep_prob=k` -> `p=1 - k` fix is withheld in a branch of a MindSpore version
test (issue 27, found by benchmarks/fix_corpora.py on mindone's models/lora.py and
mindformers' version_control.py): `if MS_VERSION <= "1.10.1": nn.Dropout(keep_prob=...)`
and the `else:` of `if is_version_ge(ms.__version__, '1.11.0')` are the code kept for the
1.x releases, whose `nn.Dropout(keep_prob=0.5, dtype=...)` has no `p` (it came with 2.0):
the rewrite would make those branches raise TypeError on the releases they exist for.
The finding stays (and says why there is no fix); the unguarded call keeps its safe fix.
"""

from __future__ import annotations

from helpers import lint, run_cli, write_tree

SRC = """
    import mindspore as ms
    from mindspore import nn

    MS_VERSION = ms.__version__


    def by_constant(dropout_p):
        if MS_VERSION <= "1.10.1":
            return nn.Dropout(keep_prob=1 - dropout_p)
        return nn.Dropout(p=dropout_p)


    def by_call(dropout_prob):
        if is_version_ge(ms.__version__, '1.11.0'):
            dropout = nn.Dropout(p=dropout_prob)
        else:
            dropout = nn.Dropout(keep_prob=1 - dropout_prob)
        return dropout


    def nested(rate):
        if ms.__version__ < "2.0":
            if rate > 0:
                return nn.Dropout(keep_prob=1 - rate)
        return None


    def plain(rate):
        if rate > 1e-5:
            return nn.Dropout(keep_prob=1 - rate)
        return None


    def is_version_ge(a, b):
        return a >= b
"""


def _msg510(tmp_path):
    write_tree(tmp_path, {"net.py": SRC})
    return {f.line: f for f in lint([tmp_path / "net.py"], select=["MSG510"]) if f.code == "MSG510"}


def test_version_guarded_branches_get_no_fix(tmp_path):
    found = _msg510(tmp_path)
    assert sorted(found) == [9, 17, 24, 30]  # every keep_prob= is still reported
    for line in (9, 17, 24):
        assert found[line].fix is None, line
        assert "No fix: this branch runs under" in (found[line].detail or ""), line
    assert "`MS_VERSION <= \"1.10.1\"`" in found[9].detail
    assert "`is_version_ge(ms.__version__, '1.11.0')`" in found[17].detail


def test_unguarded_call_keeps_its_safe_fix(tmp_path):
    found = _msg510(tmp_path)
    assert found[30].fix is not None and found[30].fix.safety.value == "safe"
    assert found[30].fix.edits[0].text == "p=1 - (1 - rate)"


def test_fix_leaves_the_old_release_branches(tmp_path):
    write_tree(tmp_path, {"net.py": SRC})
    r = run_cli("check", "--no-cache", "--exit-zero", "--fix", "--unsafe-fixes", "--select", "MSG510",
                str(tmp_path / "net.py"))
    assert r.exit_code == 0, r.output
    text = (tmp_path / "net.py").read_text(encoding="utf-8")
    assert text.count("nn.Dropout(keep_prob=") == 3
    assert "return nn.Dropout(p=1 - (1 - rate))" in text
    compile(text, "net.py", "exec")

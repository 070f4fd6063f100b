"""benchmarks/corpus_findings.py --compare: the delta of two dumps split into added, relocated,
removed, recoded and deduplicated, on small synthetic dumps (no linting; nothing timed).

The earlier engine (500e02f) repeated a helper's finding in the caller's file under the
helper's code, "call to helper `h` reaches: <message> (<helper file>:<line>)"; the later one
reports the original at the helper only, plus a call-site finding (MSG004, with ``origin``)
in other files. A plain compare by (corpus, path, line, code) calls every such repetition
removed although its claim stays."""

import json

from helpers import load_benchmark

cf = load_benchmark("corpus_findings")

CORPUS_ROOT = "/data/corpora/mindone"


def _f(path, line, code, message="m", origin=None, chain=()):
    return {"corpus": "mindone", "path": path, "line": line, "col": 4, "code": code, "name": code.lower(),
            "message": message, "detail": None, "severity": "warning", "chain": list(chain), "origin": origin}


def _dumps():
    meta = {"roots": {"mindone": CORPUS_ROOT}, "cwd": "/data"}
    helper_print = _f("pkg/helper.py", 10, "MSG201", "`print` in graph-mode code")
    same_file = _f("pkg/model.py", 30, "MSG101", "`if x > 0` branches on a tensor")
    before = [
        helper_print, same_file,
        # echoes of the two originals (one in another file, one in the same file): both kept after
        _f("pkg/model.py", 5, "MSG201",
           f"call to helper `h` reaches: `print` in graph-mode code ({CORPUS_ROOT}/pkg/helper.py:10)"),
        _f("pkg/model.py", 20, "MSG101",
           "call to helper `g` reaches: `if x > 0` (branch (a) of b) branches on a tensor (corpora/mindone/pkg/model.py:30)"),
        # an echo whose original the later run no longer reports, and a plain finding gone
        _f("pkg/model.py", 8, "MSG302",
           f"call to helper `k` reaches: `.asnumpy()` ({CORPUS_ROOT}/pkg/gone.py:3)"),
        _f("pkg/model.py", 40, "MSG403"),
        # a line the later run reports under another code
        _f("pkg/model.py", 60, "MSG105"),
        # a look-alike of an echo (no location at the end): a plain finding, so removed
        _f("pkg/model.py", 50, "MSG410", "call to helper `q` reaches: something"),
        _f("pkg/broken.py", 1, "MSG001"),
    ]
    after = [
        helper_print, same_file,
        # the same file's repetition of helper.py:10, now a call-site finding at another line
        _f("pkg/model.py", 6, "MSG004", "`h()` reaches MSG201 (print-in-graph) at helper.py:10",
           origin=["MSG201", "pkg/helper.py", 10]),
        # a repetition in a file the earlier run did not repeat it in (origin read from the chain)
        _f("pkg/other.py", 2, "MSG004", "`h()` reaches MSG201 (print-in-graph) at helper.py:10",
           chain=[f"MSG201 at {CORPUS_ROOT}/pkg/helper.py:10: `print` in graph-mode code"]),
        _f("pkg/new.py", 1, "MSG202"),
        _f("pkg/model.py", 60, "MSG101"),
        _f("pkg/broken2.py", 1, "MSG002"),
    ]
    return {"meta": meta, "findings": before, "scopes": {"mindone": {"construct": 3, "files": 5}}}, \
           {"meta": meta, "findings": after, "scopes": {"mindone": {"construct": 3, "files": 5}}}


def _keys(fs):
    return sorted(f"{f['path']}:{f['line']}:{f['code']}" for f in fs)


def test_split_delta_tells_echoes_from_removed_findings():
    before, after = _dumps()
    parts = cf.split_delta(before, after)
    assert _keys(parts["deduplicated"]) == ["pkg/model.py:20:MSG101", "pkg/model.py:5:MSG201"]
    assert _keys(parts["removed"]) == ["pkg/model.py:40:MSG403", "pkg/model.py:50:MSG410", "pkg/model.py:8:MSG302"]
    assert _keys(parts["relocated"]) == ["pkg/model.py:6:MSG004"]
    assert _keys(parts["recoded"]) == ["pkg/model.py:60:MSG105"]
    assert _keys(parts["added"]) == ["pkg/model.py:60:MSG101", "pkg/new.py:1:MSG202", "pkg/other.py:2:MSG004"]


def test_echo_target_keys_like_same():
    before, after = _dumps()
    assert cf.echo_target(before["findings"][3], before["meta"]) == ("mindone", "pkg/model.py", 30, "MSG101")
    assert cf.echo_target(after["findings"][3], after["meta"]) == ("mindone", "pkg/helper.py", 10, "MSG201")
    assert cf.echo_target(before["findings"][0], before["meta"]) is None


def test_compare_pool_removed_samples_only_the_genuinely_removed(tmp_path, capsys):
    before, after = _dumps()
    (tmp_path / "cache" / "corpora" / "mindone").mkdir(parents=True)
    b, a = tmp_path / "before.json", tmp_path / "after.json"
    b.write_text(json.dumps(before))
    a.write_text(json.dumps(after))
    md = tmp_path / "sample.md"
    rc = cf.main(["--load", str(a), "--compare", str(b), "--corpus", "mindone", "--cache-dir",
                  str(tmp_path / "cache"), "--pool", "removed", "--sample", "10", "--md", str(md),
                  "--verdicts", str(tmp_path / "none.json")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "| mindone | 3 | 1 | 3 | 1 | 2 |" in out  # added, relocated, removed, recoded, deduplicated
    text = md.read_text()
    for key in ("pkg/model.py:40", "pkg/model.py:50", "pkg/model.py:8"):
        assert f"mindone/{key}`" in text
    assert "pkg/model.py:5`" not in text and "pkg/model.py:20`" not in text and "new.py" not in text
    assert "pkg/model.py:60`" not in text

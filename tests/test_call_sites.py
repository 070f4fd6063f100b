"""Findings where the user looks (issue 21 items 1 and 3).

A finding inside a helper or sub-Cell reached from graph code in another file is also
reported at the call in the caller's file (MSG004 reached-from-call), and linting a
subset of the files (pre-commit's staged files, ``check model.py``) reads the rest of the
project, so what a file reports does not depend on which files were named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from helpers import run_cli, write_tree
from msgraphlint.run.runner import run_paths

# model.py's construct reaches: a sub-Cell of layers.py (print, attribute write), and a
# helper of utils.py that calls one of ops_util.py, a module that never names MindSpore
# (two imports away; summarised only when loaded by name)
TREE = {
    "src/__init__.py": "",
    "src/ops_util.py": """
        def host(x):
            print("host", x)
            return x * 3
    """,
    "src/utils.py": """
        from src.ops_util import host


        def helper(x):
            return host(x) * 2
    """,
    "src/layers.py": """
        import mindspore.nn as nn


        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.count = 0

            def construct(self, x):
                print(x)
                self.count += 1
                return x
    """,
    "src/model.py": """
        import mindspore.nn as nn
        from src.layers import Block
        from src.utils import helper


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def construct(self, x):
                x = self.block(x)
                return helper(x)
    """,
    "src/logs.py": """
        def log(msg):
            return msg
    """,
    "train.py": """
        import mindspore as ms
        from src.logs import log
        from src.model import Net

        net = Net()
        out = net(ms.Tensor([1.0]))
    """,
    "scripts/utils.py": """
        import mindspore as ms

        print(ms.__version__)
    """,
    "tools/unrelated.py": """
        import mindspore.nn as nn


        class Other(nn.Cell):
            def construct(self, x):
                return x
    """,
}


@pytest.fixture
def proj(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "proj", TREE)
    (root / ".git").mkdir()  # a project: pre-commit runs in a repository
    monkeypatch.chdir(root)
    return root


def _concise(*args):
    r = run_cli("check", "--no-cache", "--output-format", "concise", *args)
    return r.exit_code, [line for line in r.stdout.splitlines() if ": MSG" in line]


def _found(paths, **kw):
    res = run_paths([str(p) for p in paths], **kw)
    return sorted((f.path, f.line, f.col, f.code, f.message) for fr in res.files
                  for f in fr.findings + fr.unused_suppressions)


def test_check_model_alone_reports_the_helpers_findings_at_the_call_lines(proj):
    code, lines = _concise("src/model.py")
    assert code == 1
    assert lines == [
        "src/model.py:12:13: MSG004 `self.block()` reaches MSG201 (print-in-graph) at layers.py:10",
        "src/model.py:12:13: MSG004 `self.block()` reaches MSG209 (self-attribute-write) at layers.py:11",
        "src/model.py:13:16: MSG004 `helper()` reaches MSG201 (print-in-graph) at ops_util.py:2",
    ]


def test_a_pre_commit_style_run_on_only_the_caller_fails(proj):
    # the local hook's entry (`msgraphlint check --force-exclude`) given the staged caller only
    r = run_cli("check", "--force-exclude", "--no-cache", "src/model.py")
    assert r.exit_code == 1, r.stdout
    assert "MSG004 `helper()` reaches MSG201 (print-in-graph) at ops_util.py:2" in r.stdout
    assert "note: through `helper` (src/utils.py:4) -> `host` (src/ops_util.py:1)" in r.stdout


def test_check_dot_equals_the_union_of_check_of_each_file(proj):
    files = sorted(str(p.relative_to(proj)) for p in proj.rglob("*.py"))
    whole = _found(["."])
    union = sorted(x for f in files for x in _found([f]))
    assert whole == union
    # each helper is graph code however it was named: the helper module that is not named,
    # two imports away and without a word of MindSpore, the sub-Cell's module
    assert [x[:4] for x in _found(["src/ops_util.py"])] == [("src/ops_util.py", 2, 4, "MSG201")]
    assert [x[:4] for x in _found(["src/layers.py"])] == [("src/layers.py", 10, 8, "MSG201"),
                                                         ("src/layers.py", 11, 8, "MSG209")]
    # utils.py calls the helper of ops_util.py from graph code: one line there too
    assert [x[1:4] for x in _found(["src/utils.py"])] == [(5, 11, "MSG004")]


def test_files_that_import_nothing_of_the_named_files_are_not_read(proj):
    res = run_paths(["src/model.py"])
    # what model.py imports (ops_util.py through utils.py, layers.py) and what imports it
    # (train.py); not what only train.py imports (logs.py: read by name if it is needed), nor
    # tools/unrelated.py, nor src/__init__.py (`from src.layers import Block` needs nothing of
    # it), nor scripts/utils.py (a module `utils` of its own folder: no import of `src.utils`
    # finds it)
    assert res.context_files == 4


def test_statistics_count_each_original_once_and_the_call_sites_apart(proj):
    r = run_cli("check", "--no-cache", "--statistics", ".")
    rows = [line.split()[:2] for line in r.stdout.splitlines() if "MSG" in line]
    assert rows == [["4", "MSG004"], ["2", "MSG201"], ["1", "MSG209"]]
    r = run_cli("check", "--no-cache", "--statistics", "src/model.py")
    assert [line.split()[:2] for line in r.stdout.splitlines() if "MSG" in line] == [["3", "MSG004"]]
    assert r.exit_code == 1


def test_select_and_ignore_of_the_original_code_govern_the_call_site(proj):
    assert [x.split(" MSG004 ")[1] for x in _concise("--ignore", "MSG201", "src/model.py")[1]] == [
        "`self.block()` reaches MSG209 (self-attribute-write) at layers.py:11"]
    assert _concise("--select", "MSG201", "src/model.py") == (0, [])   # MSG004 not selected
    assert _concise("--ignore", "MSG004", "src/model.py") == (0, [])
    assert len(_concise("--select", "MSG201,MSG004", "src/model.py")[1]) == 2
    # per-file-ignores of the caller's file: for either code
    (proj / "pyproject.toml").write_text('[tool.msgraphlint]\nper-file-ignores = { "src/model.py" = ["MSG201"] }\n')
    assert len(_concise("src/model.py")[1]) == 1
    assert len(_concise("src/layers.py")[1]) == 2  # the originals are still reported


def test_suppressed_on_the_call_line_or_at_the_original(proj):
    model = proj / "src/model.py"
    text = model.read_text()
    model.write_text(text.replace("x = self.block(x)", "x = self.block(x)  # noqa: MSG201")
                     .replace("return helper(x)", "return helper(x)  # noqa: MSG004"))
    assert [x.split(": ", 1)[1] for x in _concise("src/model.py")[1]] == [
        "MSG004 `self.block()` reaches MSG209 (self-attribute-write) at layers.py:11"]
    # a suppression that silences nothing on a call line is reported as usual
    model.write_text(text.replace("x = self.block(x)", "x = self.block(x)  # noqa: MSG401"))
    assert "src/model.py:12:28: MSG002 unused suppression of MSG401" in "\n".join(_concise("src/model.py")[1])
    # suppressed where it is: not repeated at the calls either
    model.write_text(text)
    ops = proj / "src/ops_util.py"
    ops.write_text(ops.read_text().replace('print("host", x)', 'print("host", x)  # noqa: MSG201'))
    assert not any("ops_util" in x for x in _concise("src/model.py")[1])


def test_json_sarif_and_github_name_the_original(proj):
    doc = json.loads(run_cli("check", "--no-cache", "--output-format", "json", "src/model.py").stdout)
    schema = json.loads((Path(__file__).parent.parent / "msgraphlint/data/findings.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    echo = doc["findings"][-1]
    assert (echo["code"], echo["line"], echo["source_line"]) == ("MSG004", 13, "        return helper(x)")
    assert echo["origin"] == {"code": "MSG201", "path": "src/ops_util.py", "line": 2, "column": 5}

    log = json.loads(run_cli("check", "--no-cache", "--output-format", "sarif", "src/model.py").stdout)
    sarif = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(sarif).validate(log)
    results = log["runs"][0]["results"]
    related = results[-1]["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"]["uri"] == "src/ops_util.py" and related["region"]["startLine"] == 2
    prints = [r["partialFingerprints"]["msgraphlintFingerprint/v1"] for r in results]
    assert len(set(prints)) == 3  # two call-site findings on one line are told apart by what they repeat

    gh = run_cli("check", "--no-cache", "--output-format", "github", "src/model.py").stdout
    assert "::warning file=src/model.py,line=13,col=16,title=MSG004 reached-from-call::`helper()` reaches MSG201 " \
           "(print-in-graph) at ops_util.py:2" in gh


def test_workers_and_the_result_cache_find_the_same(proj, tmp_path):
    one = _found(["src/model.py", "src/utils.py"])
    assert _found(["src/model.py", "src/utils.py"], jobs=2) == one
    cache = str(tmp_path / "cache")
    assert _found(["src/model.py", "src/utils.py"], cache=True, cache_dir=cache) == one
    assert _found(["src/model.py", "src/utils.py"], cache=True, cache_dir=cache) == one  # warm


def test_stdin_reads_the_project_as_check_of_the_file_does(proj):
    text = (proj / "src/model.py").read_text()
    r = run_cli("check", "--output-format", "concise", "--stdin-filename", "src/model.py", input=text)
    assert r.exit_code == 1 and r.stdout.count(" MSG004 ") == 3

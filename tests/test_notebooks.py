"""Jupyter notebooks (issue 26 item 1): discovered, linted as their code cells joined,
IPython lines masked, findings located as cell and line, fixes written back into the
changed cells' sources only, and notebook documents in the language server.

The expected positions below were counted by hand from the cells written here."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from msgraphlint.parse import notebook
from msgraphlint.api import check_paths

MODEL_CELL = ["import mindspore as ms\n", "from mindspore import nn, ops\n"]
CONSTRUCT_CELL = ["class Gate(nn.Cell):\n",
                  "    def construct(self, x, flag):\n",
                  "        if flag:\n",          # line 3 of cell 3: a tensor `if` when the caller passes a Tensor
                  "            x = x * 2\n",
                  "        return x\n"]
CALLER_CELL = ["net = Gate()\n", "out = net(ms.Tensor([1.0]), ms.Tensor([True]))"]


def _cell(source, kind="code", outputs=None):
    out = {"cell_type": kind, "metadata": {"tags": ["x"]}, "source": source}
    if kind == "code":
        out["execution_count"] = 7
        out["outputs"] = outputs if outputs is not None else []
    return out


def _write(path: Path, cells, language="python", indent=1, ensure_ascii=False) -> bytes:
    nb = {"cells": cells,
          "metadata": {"kernelspec": {"display_name": "MindSpore", "language": language, "name": "ms"},
                       "language_info": {"name": language}},
          "nbformat": 4, "nbformat_minor": 5}
    data = (json.dumps(nb, indent=indent, ensure_ascii=ensure_ascii) + "\n").encode("utf-8")
    path.write_bytes(data)
    return data


def _findings(path):
    return [f for fr in check_paths([str(path)]) for f in fr.findings]


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_tensor_if_in_one_cell_called_from_another_is_reported_at_its_cell_and_line(tmp_path):
    _write(tmp_path / "nb.ipynb", [_cell(["# Gate\n"], "markdown"), _cell(MODEL_CELL), _cell(CONSTRUCT_CELL),
                                   _cell(CALLER_CELL)])
    found = [f for f in _findings(tmp_path) if f.code == "MSG101"]
    assert [(f.cell, f.line, f.col) for f in found] == [(3, 3, 11)]   # cell 3 (the markdown cell is cell 1)
    out = _cli("--output-format", "concise", "--select", "MSG101", ".", cwd=tmp_path)
    assert "nb.ipynb:cell 3:3:12: MSG101" in out.stdout, out.stdout + out.stderr
    doc = json.loads(_cli("--output-format", "json", "--select", "MSG101", ".", cwd=tmp_path).stdout)
    [f] = doc["findings"]
    assert (f["path"], f["cell"], f["line"], f["column"]) == ("nb.ipynb", 3, 3, 12)
    import jsonschema
    from importlib import resources
    schema = json.loads(resources.files("msgraphlint.data").joinpath("findings.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator(schema).validate(doc)
    sarif = json.loads(_cli("--output-format", "sarif", "--select", "MSG101", ".", cwd=tmp_path).stdout)
    official = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft7Validator(official).iter_errors(sarif)) == []
    [res] = sarif["runs"][0]["results"]
    assert res["locations"][0]["properties"]["cell"] == 3
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    gh = _cli("--output-format", "github", "--select", "MSG101", ".", cwd=tmp_path).stdout
    assert "file=nb.ipynb,line=3,col=12" in gh and "(cell 3)" in gh


def test_the_evidence_that_makes_it_a_tensor_comes_from_the_other_cell(tmp_path):
    # the same Cell called with a Python bool: `if flag` is a compile-time branch, no finding
    _write(tmp_path / "nb.ipynb", [_cell(MODEL_CELL), _cell(CONSTRUCT_CELL),
                                   _cell(["net = Gate()\n", "out = net(ms.Tensor([1.0]), True)\n"])])
    assert [f for f in _findings(tmp_path) if f.code == "MSG101"] == []


def test_magics_and_shell_escapes_are_not_parse_errors(tmp_path):
    cells = [_cell(["%timeit ops.ones(3)\n", "!pip install mindspore\n", "files = !ls\n", "%matplotlib inline\n"]
                   + MODEL_CELL),
             _cell(["%%time\n", "class Net(nn.Cell):\n", "    def construct(self, x):\n",
                    "        print(x)\n", "        return x\n"]),
             _cell(["%%bash\n", "echo $((1 + 2))\n", "if [ 1 ]; then echo; fi\n"]),
             _cell(["for i in range(2):\n", "    %time ops.ones(3)\n"]),
             _cell(["y = (1\n", "     % 2)\n"])]     # `%` inside brackets is Python: linted as written
    _write(tmp_path / "nb.ipynb", cells)
    found = _findings(tmp_path)
    assert [f.code for f in found if f.code == "MSG001"] == []
    assert [(f.code, f.cell, f.line) for f in found if f.code == "MSG201"] == [("MSG201", 2, 4)]


def test_a_code_cell_that_is_not_python_is_its_own_parse_error_and_the_rest_is_checked(tmp_path):
    # a directory tree pasted into a code cell (two of the 55 application notebooks do this)
    _write(tmp_path / "nb.ipynb", [_cell(MODEL_CELL), _cell(["./datasets\n", "\u2514\u2500\u2500 train\n"]),
                                   _cell(CONSTRUCT_CELL), _cell(CALLER_CELL)])
    found = _findings(tmp_path)
    assert [(f.code, f.cell, f.line) for f in found] == [("MSG001", 2, 2), ("MSG101", 3, 3)]
    assert found[0].message.startswith("cannot analyse this cell: syntax error: invalid character")


def test_magic_masking_keeps_lines_and_columns():
    text, masked = notebook.mask("a = 1\n  !ls \\\n  -la\nb = (2\n% 3)\nobj?\n")
    assert text == "a = 1\n  pass\n\nb = (2\n% 3)\npass\n"
    assert masked == [1, 2, 5]


def test_noqa_applies_per_cell_line(tmp_path):
    _write(tmp_path / "nb.ipynb", [_cell(MODEL_CELL), _cell(CONSTRUCT_CELL), _cell(CALLER_CELL)])
    assert [(f.code, f.cell, f.line) for f in _findings(tmp_path)] == [("MSG101", 2, 3)]
    construct = [line.replace("if flag:\n", "if flag:  # noqa: MSG101\n") for line in CONSTRUCT_CELL]
    _write(tmp_path / "nb.ipynb", [_cell(MODEL_CELL), _cell(construct), _cell(CALLER_CELL)])
    assert _findings(tmp_path) == []
    # the same comment on line 3 of another cell does not reach it
    other = MODEL_CELL + ["x = 1\n", "y = 2  # noqa: MSG101\n"]
    _write(tmp_path / "nb.ipynb", [_cell(other), _cell(CONSTRUCT_CELL), _cell(CALLER_CELL)])
    assert [(f.code, f.cell, f.line) for f in _findings(tmp_path) if f.code == "MSG101"] == [("MSG101", 2, 3)]


def test_add_noqa_comments_the_cell_line_and_keeps_the_rest(tmp_path):
    path = tmp_path / "nb.ipynb"
    before = _write(path, [_cell(MODEL_CELL), _cell(CONSTRUCT_CELL), _cell(CALLER_CELL)]).decode("utf-8")
    res = _cli("--add-noqa", "--select", "MSG101", "nb.ipynb", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    after = path.read_text(encoding="utf-8")
    assert after == before.replace('"        if flag:\\n"', '"        if flag:  # noqa: MSG101\\n"')
    assert _cli("--select", "MSG101", "nb.ipynb", cwd=tmp_path).returncode == 0


HELPERS = "def show(x):\n    print(x)\n    return x\n"
CALL_CELL = ["class Net(nn.Cell):\n",
             "    def construct(self, x):\n",
             "        print(x)\n",          # line 3 of cell 3: MSG201 of the notebook itself
             "        return show(x)\n"]    # line 4 of cell 3: MSG004, `show()` reaches MSG201 in pkg/helpers.py


def _call_site_project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS)
    return _write(tmp_path / "nb.ipynb", [_cell(["# Net\n"], "markdown"),
                                          _cell(["import mindspore.nn as nn\n", "from pkg.helpers import show\n"]),
                                          _cell(CALL_CELL)]).decode("utf-8")


def test_add_noqa_call_site_in_a_cell_with_the_helper_linted_too(tmp_path):
    # both files linted: the helper's line gets MSG201, the cell only its own MSG201 (a
    # `# noqa: MSG004` at the call would be stale once the helper is silenced: MSG002)
    before = _call_site_project(tmp_path)
    got = _cli("--output-format", "concise", ".", cwd=tmp_path).stdout
    assert "nb.ipynb:cell 3:4:16: MSG004" in got and "nb.ipynb:cell 3:3:9: MSG201" in got, got
    res = _cli("--add-noqa", ".", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (tmp_path / "pkg" / "helpers.py").read_text() == HELPERS.replace("print(x)\n", "print(x)  # noqa: MSG201\n")
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == before.replace(
        '"        print(x)\\n"', '"        print(x)  # noqa: MSG201\\n"')
    after = _cli(".", cwd=tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


def test_add_noqa_call_site_in_a_cell_with_only_the_notebook_linted(tmp_path):
    # the helper is not linted: the call's line of cell 3 gets `# noqa: MSG004`
    before = _call_site_project(tmp_path)
    res = _cli("--add-noqa", "nb.ipynb", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == before.replace(
        '"        print(x)\\n"', '"        print(x)  # noqa: MSG201\\n"').replace(
        '"        return show(x)\\n"', '"        return show(x)  # noqa: MSG004\\n"')
    assert (tmp_path / "pkg" / "helpers.py").read_text() == HELPERS
    after = _cli("nb.ipynb", cwd=tmp_path)
    assert after.returncode == 0, after.stdout + after.stderr


def test_fix_changes_only_that_cells_source(tmp_path):
    outputs = [{"name": "stdout", "output_type": "stream", "text": ["tenseur \u00e9\n"]}]
    cells = [_cell(["# Modèle\n"], "markdown"), _cell(MODEL_CELL, outputs=outputs),
             _cell(["class Net(nn.Cell):\n", "    def construct(self, x):\n", "        print(x)\n",
                    "        return x\n"]),
             _cell(["net = Net()\n", "%timeit net(ms.Tensor([1.0]))\n"])]
    path = tmp_path / "nb.ipynb"
    before = _write(path, cells).decode("utf-8")
    res = _cli("--fix", "--unsafe-fixes", "--select", "MSG201", "nb.ipynb", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    after = path.read_bytes().decode("utf-8")
    old_line = '    "        print(x)\\n",\n'
    new_line = '    "        ops.print_(x)\\n",\n'
    assert before.count(old_line) == 1
    assert after == before.replace(old_line, new_line)      # every other byte is the original's
    assert json.loads(after)["cells"][2]["source"][2] == "        ops.print_(x)\n"


def test_diff_shows_cells_and_writes_nothing(tmp_path):
    path = tmp_path / "nb.ipynb"
    data = _write(path, [_cell(MODEL_CELL), _cell(["class Net(nn.Cell):\n", "    def construct(self, x):\n",
                                                   "        print(x)\n", "        return x\n"])])
    res = _cli("--diff", "--unsafe-fixes", "--select", "MSG201", "nb.ipynb", cwd=tmp_path)
    assert "--- nb.ipynb:cell 2\n+++ nb.ipynb:cell 2\n" in res.stdout
    assert "-        print(x)\n+        ops.print_(x)\n" in res.stdout
    assert path.read_bytes() == data


def test_splice_keeps_the_layout_of_a_source_string_and_ascii_escapes():
    raw = json.dumps({"cells": [{"cell_type": "code", "source": "x = 1\nprint('\u00e9')", "outputs": [],
                                 "metadata": {}, "execution_count": None}],
                      "metadata": {}, "nbformat": 4, "nbformat_minor": 2}, indent=2, ensure_ascii=True)
    nb = notebook.parse(raw)
    out = notebook.splice(nb, {0: "x = 2\nprint('\u00e9')"})
    assert out == raw.replace('"x = 1\\n', '"x = 2\\n')


def test_non_python_kernel_is_skipped_with_a_note(tmp_path):
    _write(tmp_path / "r.ipynb", [_cell(["library(ggplot2)\n", "x <- c(1, 2) # construct mindspore\n"])],
           language="R")
    res = _cli(".", cwd=tmp_path)
    assert res.returncode == 0, res.stdout
    assert "r.ipynb: skipped: a notebook whose kernel language is 'R', not Python" in res.stderr


def test_include_and_extend_include(tmp_path):
    _write(tmp_path / "nb.ipynb", [_cell(MODEL_CELL)])
    (tmp_path / "m.py").write_text("import mindspore\n")
    (tmp_path / "s.ipy").write_text("import mindspore\n")
    (tmp_path / "pyproject.toml").write_text('[tool.msgraphlint]\ninclude = ["*.py"]\n')
    assert _cli("--show-files", ".", cwd=tmp_path).stdout.split() == ["m.py"]
    (tmp_path / "pyproject.toml").write_text('[tool.msgraphlint]\nextend-include = ["*.ipy"]\n')
    assert sorted(_cli("--show-files", ".", cwd=tmp_path).stdout.split()) == ["m.py", "nb.ipynb", "s.ipy"]


# the language server --------------------------------------------------------------------

pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "msgraphlint", "lsp"]))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "pyproject.toml").write_text("[tool.msgraphlint]\n")
    lsp_client.root = root
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=lsp.ClientCapabilities(notebook_document=lsp.NotebookDocumentClientCapabilities(
            synchronization=lsp.NotebookDocumentSyncClientCapabilities())),
        root_uri=root.as_uri(), workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        initialization_options={"debounce_ms": 10}))
    yield
    await lsp_client.shutdown_session()


async def _diagnostics_for(client, uri, timeout=30.0):
    deadline = asyncio.get_event_loop().time() + timeout
    while uri not in client.diagnostics:
        if asyncio.get_event_loop().time() > deadline:
            raise AssertionError(f"no diagnostics for {uri}; got {list(client.diagnostics)}")
        await asyncio.sleep(0.02)
    return client.diagnostics[uri]


@pytest.mark.asyncio
async def test_lsp_publishes_diagnostics_per_notebook_cell(client: LanguageClient):
    nb_uri = (Path(client.root) / "nb.ipynb").as_uri()
    sources = ["".join(MODEL_CELL), "".join(CONSTRUCT_CELL), "".join(CALLER_CELL)]
    cell_uris = [f"vscode-notebook-cell:{nb_uri[len('file:'):]}#cell{k}" for k in range(3)]
    client.notebook_document_did_open(lsp.DidOpenNotebookDocumentParams(
        notebook_document=lsp.NotebookDocument(
            uri=nb_uri, notebook_type="jupyter-notebook", version=1,
            cells=[lsp.NotebookCell(kind=lsp.NotebookCellKind.Code, document=u) for u in cell_uris]),
        cell_text_documents=[lsp.TextDocumentItem(uri=u, language_id="python", version=1, text=t)
                             for u, t in zip(cell_uris, sources)]))
    diags = await _diagnostics_for(client, cell_uris[1])
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diags] == [("MSG101", 2, 11)]
    assert (await _diagnostics_for(client, cell_uris[0])) == []
    # the caller's cell changes to pass a Python bool: the finding goes away
    client.diagnostics.pop(cell_uris[1], None)
    new = "net = Gate()\nout = net(ms.Tensor([1.0]), True)\n"
    client.notebook_document_did_change(lsp.DidChangeNotebookDocumentParams(
        notebook_document=lsp.VersionedNotebookDocumentIdentifier(uri=nb_uri, version=2),
        change=lsp.NotebookDocumentChangeEvent(cells=lsp.NotebookDocumentChangeEventCellsType(
            text_content=[lsp.NotebookDocumentChangeEventCellsTypeTextContentType(
                document=lsp.VersionedTextDocumentIdentifier(uri=cell_uris[2], version=2),
                changes=[lsp.TextDocumentContentChangeEvent_Type2(text=new)])]))))
    assert (await _diagnostics_for(client, cell_uris[1])) == []

"""MSG514 api-not-in-target (and MSG508 naming the release): what the target MindSpore
release does not have, though another does (issue 23, item 3).

Facts measured on the wheels (one venv per release, see tests/test_catalog_versions.py):
``mint.vdot`` exists in 2.10.0 only (2.7.0: ``AttributeError: module 'mindspore.mint' has
no attribute 'vdot'``); ``nn.TensorArray`` in 2.7.0 only (2.10.0: ``AttributeError``);
``ops.batch_dot`` is ``@deprecated`` since 2.8.0 from 2.8.0 on; ``ops.tensor_scatter_mul``
carries the decorator (since 2.9.0) in 2.10.0 only; ``ops.transpose(x, input_perm=...)``
works on 2.7.0 and raises ``TypeError ... unexpected keyword argument 'input_perm'`` on
2.10.0, ``dims=`` the other way round; ``set_context(grad_for_scalar=True)`` warns on 2.9.0
and raises ``ValueError`` on 2.10.0.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli, write_tree

REPO = Path(__file__).resolve().parent.parent

from release_facts import BATCH_DOT, CODE, SCATTER_MUL, TENSOR_ARRAY, VDOT  # noqa: F401
from release_facts import pinned_project as _project


def _findings(root: Path, *args):
    r = run_cli("check", "--no-cache", "--output-format", "json", "--extend-select", "MSG513", *args, str(root))
    assert r.exit_code in (0, 1), r.output
    return {(f["code"], f["line"]): dict(f, text=f["message"] + "\n" + (f["detail"] or ""))
            for f in json.loads(r.stdout)["findings"]}


def _lines(found, code):
    return sorted(line for c, line in found if c == code)


# ------------------------------------------------------------------------ done when
def test_pinned_2_7_0_in_requirements(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "numpy<2\nmindspore==2.7.0\n"})
    found = _findings(root)
    assert _lines(found, "MSG514") == [VDOT]            # mint.vdot: new in 2.10.0; nn.TensorArray is there
    assert "2.7.0" in found[("MSG514", VDOT)]["message"] and "2.10.0" in found[("MSG514", VDOT)]["text"]
    assert _lines(found, "MSG513") == []                 # no 2.8+ deprecation


def test_pinned_range_2_8_in_pyproject(tmp_path):
    root = _project(tmp_path / "p", {"pyproject.toml": textwrap.dedent("""
        [project]
        name = "p"
        version = "1"
        dependencies = ["numpy", "mindspore>=2.8,<2.9"]
    """)})
    found = _findings(root)
    assert _lines(found, "MSG513") == [BATCH_DOT]        # ops.tensor_scatter_mul: not deprecated in 2.8.0
    assert "2.8.0" in found[("MSG513", BATCH_DOT)]["text"]
    assert _lines(found, "MSG514") == [VDOT, TENSOR_ARRAY]


def test_pinned_2_10_0(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.10.0\n"})
    found = _findings(root)
    assert _lines(found, "MSG514") == [TENSOR_ARRAY]     # mint.vdot exists in 2.10.0
    assert "removed in 2.7.1" in found[("MSG514", TENSOR_ARRAY)]["text"]
    assert _lines(found, "MSG513") == [BATCH_DOT, SCATTER_MUL]


def _concise(root: Path, *args):
    r = run_cli("check", "--no-cache", "--output-format", "concise", *args, str(root))
    return r.stdout


# ------------------------------------------------------------------------ per-release findings
def test_keyword_renamed_between_releases(tmp_path):
    root = _project(tmp_path / "p", {})
    (root / "m.py").write_text("from mindspore import ops\na = ops.transpose(x, input_perm=(1, 0))\n"
                               "b = ops.transpose(x, dims=(1, 0))\n")
    out = _concise(root, "--target-mindspore", "2.10.0")
    assert "m.py:2:22: MSG514" in out and "input_perm" in out and "m.py:3" not in out
    out = _concise(root, "--target-mindspore", "2.7.0")
    assert "m.py:3:22: MSG514" in out and "`dims`" in out and "m.py:2" not in out


def test_tensor_method_outside_graph_code(tmp_path):
    root = _project(tmp_path / "p", {})
    (root / "m.py").write_text("import mindspore as ms\nt = ms.Tensor([1.0])\nt.sign_()\n"
                               "u = something()\nu.sign_()\n")
    out = _concise(root, "--target-mindspore", "2.7.0")
    assert "m.py:3:1: MSG514 `Tensor.sign_` does not exist in MindSpore 2.7.0" in out
    assert "it is new in 2.7.1" in _findings(root, "--target-mindspore", "2.7.0")[("MSG514", 3)]["detail"]
    assert "m.py:5" not in out   # not known to be a Tensor
    assert "MSG514" not in _concise(root, "--target-mindspore", "2.10.0")


def test_tensor_method_in_graph_code_names_the_release(tmp_path):
    root = _project(tmp_path / "p", {})
    (root / "m.py").write_text(textwrap.dedent("""
        import mindspore as ms
        from mindspore import nn, ops

        class Net(nn.Cell):
            def construct(self, x):
                y = ops.relu(x)
                return y.index_fill_(0, 1, 2.0)

        out = Net()(ms.Tensor([1.0]))
    """).lstrip())
    out = _concise(root, "--target-mindspore", "2.7.0")
    assert "m.py:7:16: MSG508 `y.index_fill_`: MindSpore 2.7.0's Tensor has no attribute `index_fill_`" in out
    detail = _findings(root, "--target-mindspore", "2.7.0")[("MSG508", 7)]["detail"]
    assert "`index_fill_` (it is new in 2.7.1)" in detail


def test_removed_module_import(tmp_path):
    root = _project(tmp_path / "p", {})
    (root / "m.py").write_text("from mindspore.nn.reinforcement import TensorArray\n")
    assert "m.py:1:1: MSG514 `mindspore.nn.reinforcement` does not exist in MindSpore 2.10.0" in _concise(root)
    assert "MSG514" not in _concise(root, "--target-mindspore", "2.7.0")


def test_keyword_of_a_function_imported_by_name(tmp_path):
    root = _project(tmp_path / "p", {})
    (root / "m.py").write_text("from mindspore.ops import transpose\na = transpose(x, input_perm=(1, 0))\n")
    assert "m.py:2:18: MSG514 `transpose` of MindSpore 2.10.0 has no parameter `input_perm`" in _concise(root)


@pytest.mark.parametrize("target", ["2.7.0", "2.7.1", "2.10.0"])
def test_the_text_prefilter_loses_no_finding(tmp_path, monkeypatch, target):
    """MSG514 walks a module only when its import map and text can hold a finding; without
    that test (every module walked) the findings over the fixtures and these tests' own
    samples are the same."""
    import msgraphlint_rules.version_api as V
    from helpers import lint

    root = _project(tmp_path / "p", {
        "a.py": "from mindspore.ops import transpose\na = transpose(x, input_perm=(1, 0))\n",
        "b.py": "import mindspore as ms\nt = ms.Tensor([1.0])\nt.sign_()\nt.is_persistent_data()\n",
        "c.py": "from mindspore.nn.reinforcement import TensorArray\nimport mindspore.nn.reinforcement\n",
        "d.py": "import mindspore as ms\nx = ms.ops.transpose(y, dims=(1, 0))\nz = ms.mint.vdot(a, b)\n",
        # spellings the text shows only in part: an import after another name (the import lines
        # and the chain test both see it), a chain broken after a dot (which the text test lost
        # before issue 21's throughput change: this test failed on 2.7.0 and 2.7.1)
        "e.py": "import os, mindspore.nn.reinforcement\n",
        # a function whose keywords differ, named on the line after the dot (the keyword test
        # lost it before aa5aa01)
        "i.py": "import mindspore as ms\ny = (ms.ops.\n     transpose(x, input_perm=(1, 0)))\n",
        # an import in a loop, which the import map does not read ("nn" is all it names)
        "h.py": "from mindspore import nn\nfor i in range(2):\n    import mindspore.nn.reinforcement\n",
        "f.py": "import mindspore as ms\nz = (ms.\n     mint.vdot(a, b))\n",
        # look-alikes: a Tensor property every release has (`data`); `index`, which 2.7.0's Tensor
        # and Parameter lack, on a value MindSpore does not make
        "g.py": "import mindspore as ms\nt = ms.Tensor([1.0])\nd = t.data\nw = cfg.data.index\n",
    })
    paths = [root, REPO / "fixtures"]

    def found():
        return sorted((f.path, f.line, f.col, f.message) for f in lint(paths, select=["MSG514"], target=target))
    with_filter = found()
    monkeypatch.setattr(V, "PREFILTER", False)
    assert found() == with_filter
    assert any(p.endswith("a.py") or p.endswith("d.py") for p, *_ in with_filter)
    lines = {(Path(p).name, line) for p, line, *_ in with_filter}
    # `mint.vdot` is new in 2.10.0, `nn.reinforcement` only in 2.7.0 (release_facts)
    assert (("f.py", 2) in lines) == (target != "2.10.0")
    assert (("e.py", 1) in lines) == (target != "2.7.0")
    assert (("h.py", 3) in lines) == (target != "2.7.0")
    assert (("i.py", 3) in lines) == (target != "2.7.0")  # `input_perm` became `dims` in 2.7.1
    assert not any(name == "g.py" for name, _ in lines)

"""Issue 22 item 1: a file that never sets a mode and never jits follows the project's
evidence, and its findings say which mode they assume (msgraphlint/project/modes.py).

The note goes into the finding's detail (the title line stays the rule's); a project that sets
only PYNATIVE_MODE and compiles nothing has no graph code, so such files report nothing there.
"""

from __future__ import annotations

import textwrap

from msgraphlint.run.runner import run_paths

MODEL = """
    import mindspore.nn as nn

    class Net(nn.Cell):
        def construct(self, x):
            if x.sum() > 0:
                x = x * 2
            return x
"""


def _project(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")
    return run_paths([str(tmp_path)], select=["MSG101"], config_file=None)


def _findings(result, name):
    return [f for fr in result.files if fr.path.replace("\\", "/").endswith(name) for f in fr.findings]


def test_mode_evidence_of_a_module_text():
    from msgraphlint.project.index import mode_evidence

    assert mode_evidence("import mindspore as ms\nms.set_context(mode=ms.GRAPH_MODE)\n") == "graph:2"
    assert mode_evidence("context.set_context(mode=0)") == "graph:1"
    assert mode_evidence("x = 1\n@ms.jit\ndef f(x):\n    return x\n") == "jit:2"
    assert mode_evidence("ms.set_context(mode=ms.PYNATIVE_MODE)") == "pynative:1"
    assert mode_evidence("ms.set_context(jit_level='O0', device_target='CPU')") == ""
    assert mode_evidence("class Net(nn.Cell):\n    pass\n") == ""
    # a docstring example or a comment sets nothing (mindformers' lr_schedule.py docstrings)
    assert mode_evidence('"""\n    >>> ms.set_context(mode=ms.GRAPH_MODE)\n"""\n# set_context(mode=0)\n') == ""
    assert mode_evidence('"""\n>>> ms.set_context(mode=ms.GRAPH_MODE)\n"""\nms.set_context(mode=ms.GRAPH_MODE)\n') == "graph:4"
    # a usage block in a module docstring (mindformers' dense_lightning_indexer_grad_kl_loss.py)
    assert mode_evidence('"""Usage:\n    ms.set_context(mode=ms.GRAPH_MODE)\n"""\nimport mindspore as ms\n') == ""


def test_library_file_names_the_file_that_sets_graph_mode(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # paths shown as findings show theirs: relative to the working directory
    res = _project(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": MODEL, "train.py": """
        import mindspore as ms
        from pkg.model import Net

        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
    """})
    (f,) = _findings(res, "pkg/model.py")
    assert "assumes" not in f.message.lower()  # the title is the rule's
    assert f.detail.splitlines()[-1] == "Assumes graph mode: train.py:5 sets GRAPH_MODE (this file sets no mode)"


def test_the_note_gives_the_balance_of_the_evidence(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = _project(tmp_path, {"model.py": MODEL, "a_train.py": "import mindspore as ms\nms.set_context(mode=ms.GRAPH_MODE)\n",
                              "b_eval.py": "import mindspore as ms\nms.set_context(mode=ms.PYNATIVE_MODE)\n"})
    (f,) = _findings(res, "model.py")
    assert f.detail.splitlines()[-1] == ("Assumes graph mode: a_train.py:2 sets GRAPH_MODE; 1 file sets GRAPH_MODE, "
                                         "1 PYNATIVE_MODE (this file sets no mode)")


def test_file_that_sets_its_mode_gets_no_note(tmp_path):
    res = _project(tmp_path, {"model.py": "import mindspore as ms\nms.set_context(mode=ms.GRAPH_MODE)\n"
                              + textwrap.dedent(MODEL), "other.py": "import mindspore as ms\nx = 1\n"})
    (f,) = _findings(res, "model.py")
    assert "Assumes" not in (f.detail or "")


def test_project_that_only_jits_says_where_graph_mode_applies(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = _project(tmp_path, {"model.py": MODEL, "step.py": """
        import mindspore as ms
        from model import Net

        net = Net()

        @ms.jit
        def step(x):
            return net(x)
    """})
    (f,) = _findings(res, "model.py")
    assert f.detail.splitlines()[-1].startswith("Assumes graph mode: no file sets GRAPH_MODE; it applies where")
    assert "step.py:7 uses jit" in f.detail


def test_project_with_no_mode_evidence_says_so(tmp_path):
    res = _project(tmp_path, {"model.py": MODEL, "blocks.py": "import mindspore.nn as nn\n"})
    (f,) = _findings(res, "model.py")
    assert f.detail.splitlines()[-1].startswith("Assumes graph mode: no file of the project sets a mode or jits")


def test_pynative_only_project_has_no_graph_code(tmp_path):
    res = _project(tmp_path, {"model.py": MODEL, "train.py": """
        import mindspore as ms
        from model import Net

        ms.set_context(mode=ms.PYNATIVE_MODE)
        out = Net()(ms.Tensor([1.0]))
    """})
    assert _findings(res, "model.py") == []


def test_single_file_run_states_no_assumption(tmp_path):
    res = _project(tmp_path, {"model.py": MODEL})
    (f,) = _findings(res, "model.py")
    assert "Assumes" not in (f.detail or "")

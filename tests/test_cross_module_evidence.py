"""Caller evidence from every module (evidence.py): what ``train.py`` passes to a Cell or
``jit`` function of ``model.py`` reaches that entry's parameters, merged with the evidence of
``model.py`` itself; wrappers (``WithLossCell``, ``TrainOneStepCell``, ``WithGradCell``,
``ms.grad``, ``ms.value_and_grad``, ``GradOperation``, ``Model.train``) hand their inputs on;
a caller under ``if __name__ == "__main__":`` counts; a caller's edit re-lints the callee on
a warm cached run when what it passes changes, and only then."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import write_tree
from msgraphlint.engine import dispatch as engine
from msgraphlint.run import filework
from msgraphlint.cli import cli
from msgraphlint.run.runner import run_paths

GATE = """
import mindspore as ms
from mindspore import nn


class Gate(nn.Cell):
    def construct(self, x, t):
        if t > 0:
            return x * 2
        return x
"""
GATE_IF_LINE = 7

HEADER = """
import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops
"""


def _codes(root: Path, **kw):
    res = run_paths([str(root)], **kw)
    return sorted((Path(f.path).name, f.line, f.code) for fr in res.files for f in fr.findings)


def _project(tmp_path: Path, train: str, model: str = GATE, extra=None) -> Path:
    files = {"model.py": model, "train.py": textwrap.dedent(HEADER) + textwrap.dedent(train)}
    files.update(extra or {})
    return write_tree(tmp_path / "p", files)


def test_tensor_from_another_module_gives_msg101(tmp_path):
    root = _project(tmp_path, """
        from model import Gate


        def main():
            net = Gate()
            x = Tensor(np.ones(3), ms.float32)
            t = Tensor(1.0, ms.float32)
            net(x, t)
        """)
    assert ("model.py", GATE_IF_LINE, "MSG101") in _codes(root)


@pytest.mark.parametrize("call", [
    "import model\n\ndef main():\n    model.Gate()(Tensor(np.ones(3)), Tensor(1.0))\n",
    "from model import Gate\n\nnet = Gate()\nnet(Tensor(np.ones(3)), ms.mutable(1))\n",
    "from model import Gate\n\ndef test_gate():\n    Gate()(Tensor(np.ones(3)), t=Tensor(1.0))\n",
])
def test_call_shapes_across_modules(tmp_path, call):
    """``import model; model.Gate()``, a module-level instance with ``ms.mutable``, a test
    function with a keyword argument."""
    assert ("model.py", GATE_IF_LINE, "MSG101") in _codes(_project(tmp_path, call))


def test_attribute_held_instance_in_another_module(tmp_path):
    root = _project(tmp_path, """
        from model import Gate


        class Outer(nn.Cell):
            def __init__(self):
                super().__init__()
                self.gate = Gate()
                self.on = True

            def construct(self, x):
                return self.gate(x, self.on)
        """, model=GATE.replace("if t > 0:", "if t.sum() > 0:"))
    # `t.sum()` says tensor from the body alone; the parent passes a constant attribute
    assert ("model.py", GATE_IF_LINE, "MSG101") not in _codes(root)


@pytest.fixture
def seen(monkeypatch):
    """The parameter kinds each scope's value analysis was given, with those from callers."""
    got = {}
    real = engine.ScopeValues

    class Recording(real):
        def __init__(self, func, *args, **kw):
            super().__init__(func, *args, **kw)
            if getattr(func, "name", "") == "construct":
                got.setdefault(func.lineno, []).append((dict(self.params), set(kw.get("from_callers", ()))))

    monkeypatch.setattr(engine, "ScopeValues", Recording)
    return got


@pytest.mark.parametrize("flag", ["True", "0", "config.use_gate", "args.gate"])
def test_python_flag_from_another_module_is_a_constant_and_silent(tmp_path, seen, flag):
    root = _project(tmp_path, f"""
        import argparse
        from model import Gate


        def main(config):
            args = argparse.ArgumentParser().parse_args()
            net = Gate()
            net(Tensor(np.ones(3), ms.float32), {flag})
        """)
    assert _codes(root) == []
    params, from_callers = seen[6][-1]  # Gate.construct (line 6 of model.py)
    assert "t" in from_callers and params["t"].value == "const"


def test_own_constant_evidence_stays_constant(tmp_path, seen):
    """Another module's literal joins the module's own: constant with constant stays constant."""
    model = GATE + textwrap.dedent("""

        if __name__ == "__main__":
            Gate()(ms.Tensor([1.0]), False)
        """)
    for name, own in (("alone", GATE), ("with_own", model)):
        seen.clear()
        root = _project(tmp_path / name, """
            from model import Gate

            Gate()(Tensor(np.ones(3)), 2)
            """, model=own)
        assert _codes(root) == []
        params, from_callers = seen[6][-1]
        assert "t" in from_callers and params["t"].value == "const", name


def test_main_block_caller_in_the_same_file(tmp_path):
    root = write_tree(tmp_path / "p", {"model.py": GATE + textwrap.dedent("""

        if __name__ == "__main__":
            net = Gate()
            net(ms.Tensor([1.0]), ms.Tensor(1.0))
        """)})
    assert ("model.py", GATE_IF_LINE, "MSG101") in _codes(root)


def test_main_block_caller_in_another_module(tmp_path):
    root = _project(tmp_path, """
        from model import Gate

        if __name__ == "__main__":
            net = Gate()
            x, t = Tensor(np.ones(3)), Tensor(1.0)
            data = Tensor(np.ones(3))
            net(data, ops.ones((), ms.float32))
        """)
    assert ("model.py", GATE_IF_LINE, "MSG101") in _codes(root)


LOSS_GATE = """
import mindspore as ms
from mindspore import nn


class Gate(nn.Cell):
    def construct(self, t):
        if t > 0:
            return t * 2
        return t
"""


@pytest.mark.parametrize("shape", [
    # nn.WithLossCell(net, loss)(data, label): data -> net's first parameter
    "loss_net = nn.WithLossCell(net, nn.MSELoss())\nloss_net(Tensor(np.ones(3)), Tensor(np.ones(3)))\n",
    # nn.TrainOneStepCell(nn.WithLossCell(...), opt)(data, label)
    "step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))\n"
    "step(Tensor(np.ones(3)), Tensor(np.ones(3)))\n",
    # nn.WithGradCell(net, loss)(data, label)
    "nn.WithGradCell(net, nn.MSELoss())(Tensor(np.ones(3)), Tensor(np.ones(3)))\n",
    # ms.grad(net)(x)
    "ms.grad(net)(Tensor(np.ones(3)))\n",
    # ms.value_and_grad(net, None, weights)(x)
    "grad_fn = ms.value_and_grad(net, None, net.trainable_params())\ngrad_fn(Tensor(np.ones(3)))\n",
    # ops.GradOperation()(net)(x)
    "ops.GradOperation()(net)(Tensor(np.ones(3)))\n",
    # model = Model(net, loss, opt); model.train(epochs, dataset): dataset columns are tensors
    "from mindspore.train import Model\nmodel = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()))\n"
    "model.train(1, make_dataset())\n",
    # for data in ds.create_dict_iterator(): net(data["x"])
    "for data in make_dataset().create_dict_iterator():\n    net(data['x'])\n",
    "for x, y in make_dataset().create_tuple_iterator():\n    nn.WithLossCell(net, nn.MSELoss())(x, y)\n",
])
def test_wrappers_pass_their_inputs_through(tmp_path, shape):
    body = "from model import Gate\n\n\ndef make_dataset():\n    pass\n\n\ndef train():\n    net = Gate()\n"
    body += textwrap.indent(shape, "    ")
    root = _project(tmp_path, body, model=LOSS_GATE)
    assert ("model.py", GATE_IF_LINE, "MSG101") in _codes(root)


def test_wrapper_in_the_same_module(tmp_path):
    root = write_tree(tmp_path / "p", {"model.py": LOSS_GATE + textwrap.dedent("""

        def train():
            net = Gate()
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
            step(ms.Tensor([1.0]), ms.Tensor([1.0]))
        """)})
    assert ("model.py", GATE_IF_LINE, "MSG101") in _codes(root)


def test_tensor_and_literal_from_two_modules_merge_to_unknown(tmp_path, seen):
    """A tensor at one call and a literal at another, in two modules: unknown, nothing reported
    (as when both calls are in one module)."""
    own_tensor = GATE + textwrap.dedent("""

        def test_gate():
            Gate()(ms.Tensor([1.0]), ms.Tensor(1.0))
        """)
    assert ("model.py", GATE_IF_LINE, "MSG101") in _codes(write_tree(tmp_path / "alone", {"model.py": own_tensor}))
    root = _project(tmp_path / "own", """
        from model import Gate


        def main():
            Gate()(Tensor(np.ones(3)), 1)
        """, model=own_tensor)
    assert _codes(root) == []
    seen.clear()
    root = _project(tmp_path / "two", """
        from model import Gate


        def main():
            Gate()(Tensor(np.ones(3)), Tensor(1.0))
        """, extra={"infer.py": HEADER + "from model import Gate\n\n\ndef main():\n    Gate()(Tensor(np.ones(3)), 1)\n"})
    assert _codes(root) == []
    params, from_callers = seen[6][-1]
    assert "t" not in from_callers


def test_jit_function_of_another_module(tmp_path):
    model = textwrap.dedent("""
        import mindspore as ms


        @ms.jit
        def step(x, t):
            if t > 0:
                return x * 2
            return x
        """)
    root = _project(tmp_path, """
        from model import step


        def main():
            step(Tensor(np.ones(3)), Tensor(1.0))
        """, model=model)
    assert ("model.py", 6, "MSG101") in _codes(root)


def test_same_named_modules_of_sibling_roots_stay_apart(tmp_path):
    """Two model folders with their own ``src`` package: vgg's caller is no evidence for
    resnet's Gate (module identity is the import root's)."""
    files = {".git/HEAD": "", "resnet/src/__init__.py": "", "resnet/src/net.py": GATE,
             "resnet/train.py": HEADER + "from src.net import Gate\n\n\ndef main():\n    Gate()(Tensor([1.0]), 1)\n",
             "vgg/src/__init__.py": "", "vgg/src/net.py": GATE,
             "vgg/train.py": HEADER + "from src.net import Gate\n\n\ndef main():\n    Gate()(Tensor([1.0]), Tensor(1.0))\n"}
    root = write_tree(tmp_path / "zoo", files)
    res = run_paths([str(root)])
    got = sorted((f.path, f.code) for fr in res.files for f in fr.findings)
    flagged = [p for p, c in got if c == "MSG101"]
    assert len(flagged) == 1 and flagged[0].replace("\\", "/").endswith("vgg/src/net.py"), got


# --------------------------------------------------------------------------- the cache
def _check(root: Path, cache: Path):
    r = CliRunner().invoke(cli, ["check", "--jobs", "1", "--format", "concise", "--cache-dir", str(cache), str(root)])
    return r.output


def test_editing_the_caller_changes_the_callee_on_a_warm_run(tmp_path, monkeypatch):
    root = _project(tmp_path, """
        from model import Gate


        def main():
            Gate()(Tensor(np.ones(3)), 1)
        """)
    cache = tmp_path / "cache"
    linted = []
    real = filework._lint_python

    def counting(path, *a, **kw):
        linted.append(Path(path).name)
        return real(path, *a, **kw)

    monkeypatch.setattr(filework, "_lint_python", counting)
    assert "MSG101" not in _check(root, cache)
    assert "model.py" in linted
    linted.clear()
    assert "MSG101" not in _check(root, cache)
    assert linted == []  # warm: nothing linted
    train = root / "train.py"
    train.write_text(train.read_text().replace("Gate()(Tensor(np.ones(3)), 1)",
                                               "Gate()(Tensor(np.ones(3)), Tensor(1.0))"))
    out = _check(root, cache)
    assert f"model.py:{GATE_IF_LINE}:" in out and "MSG101" in out
    assert "model.py" in linted


def test_an_unrelated_edit_of_the_caller_keeps_the_callee_cached(tmp_path, monkeypatch):
    root = _project(tmp_path, """
        from model import Gate


        def main():
            Gate()(Tensor(np.ones(3)), Tensor(1.0))
        """)
    cache = tmp_path / "cache"
    first = _check(root, cache)
    assert f"model.py:{GATE_IF_LINE}:" in first
    linted = []
    real = filework._lint_python

    def counting(path, *a, **kw):
        linted.append(Path(path).name)
        return real(path, *a, **kw)

    monkeypatch.setattr(filework, "_lint_python", counting)
    train = root / "train.py"
    train.write_text("# a comment\n\n" + train.read_text() + "\n\ndef other():\n    return 1\n")
    assert _check(root, cache) == first
    assert "model.py" not in linted and "train.py" in linted


def test_named_callee_alone_and_jobs_2_see_the_callers(tmp_path):
    """``check model.py`` alone reads its callers (the rest of the project); ``--jobs 2``
    workers aggregate the same evidence from the summaries they are sent."""
    extra = {f"other{i}.py": GATE.replace("Gate", f"Other{i}") for i in range(4)}
    root = _project(tmp_path, """
        from model import Gate


        def main():
            Gate()(Tensor(np.ones(3)), Tensor(1.0))
        """, extra=extra)
    alone = run_paths([str(root / "model.py")])
    assert [(f.line, f.code) for fr in alone.files for f in fr.findings] == [(GATE_IF_LINE, "MSG101")]
    assert _codes(root, jobs=2) == _codes(root) == [("model.py", GATE_IF_LINE, "MSG101")]


def test_enumerated_dataset_rows(tmp_path, seen):
    """``for i, data in enumerate(ds.create_dict_iterator())``: ``data`` is a row of tensors,
    ``i`` a Python int (no tensor evidence)."""
    root = _project(tmp_path, """
        from model import Gate


        def train(ds):
            net = Gate()
            for i, data in enumerate(ds.create_dict_iterator()):
                net(data["x"], i)
            for step, (x, t) in enumerate(ds.create_tuple_iterator()):
                net(x, t)
        """)
    assert ("model.py", GATE_IF_LINE, "MSG101") not in _codes(root)
    params, from_callers = seen[6][-1]
    assert "x" in from_callers and params["x"].value == "tensor" and "t" not in from_callers


def test_a_value_bound_in_a_branch_is_not_evidence(tmp_path, seen):
    """``if quant: s = a * b else: s = None`` then ``self.softmax(x, s)`` (mindone's I-BERT):
    neither branch's value is the value after the ``if``. (A guard against reading bindings
    in order; it passes on the commit before too, which had no evidence at all.)"""
    root = _project(tmp_path, """
        from model import Gate


        class Attn(nn.Cell):
            def __init__(self, quant=False):
                super().__init__()
                self.quant = quant
                self.gate = Gate()

            def construct(self, x, a):
                if self.quant:
                    s = a * 2
                else:
                    s = None
                return self.gate(x, s)


        def main(flag):
            if flag:
                t = None
            else:
                t = Tensor(1.0)
            Gate()(Tensor(np.ones(3)), t)
        """)
    assert _codes(root) == []
    params, from_callers = seen[6][-1]
    assert "t" not in from_callers

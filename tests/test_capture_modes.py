"""Capture modes as semantics (issue 22 item 1): under `jit(capture_mode="bytecode")` (and the
older `jit(fn, mode="PIJit")`) ast capture's claims do not hold — `del`, `try`, `with` and Python
calls are legal, a tensor branch is a graph break, not a Switch. The facts are measured on
MindSpore 2.10 CPU by tests/test_capture_modes_mindspore.py; here the linter is held to them."""

from __future__ import annotations

from helpers import lint, write_tree

# one body, linted under each capture: what ast capture rejects or interprets
BODY = """
    def step(x, d):
        y = x * 2
        del y
        try:
            z = x + 1
        except ValueError:
            z = x
        with CM():
            z = z * 2
        if all(s > 0 for s in x.shape):
            z = z + 1
        x = x * 40
        while x.abs().max() > 10:
            x = x / 2
        import math
        return z * math.pi + x
"""

HEADER = """
    import mindspore as ms
    from mindspore import Tensor, jit


    class CM:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

"""

AST_CLAIMS = {"MSG102", "MSG410", "MSG420"}   # a Switch loop, "does not compile", PyExecute


def _codes(tmp_path, decorator, tail="", name="m.py"):
    src = HEADER + (f"    {decorator}\n" if decorator else "") + BODY.lstrip("\n") + tail
    write_tree(tmp_path, {name: src})
    return sorted((f.line, f.code) for f in lint([tmp_path / name], config_file=None, select=["ALL"]))


def test_ast_capture_reports_the_parser_claims(tmp_path):
    codes = {c for _, c in _codes(tmp_path, "@jit")}
    assert AST_CLAIMS <= codes, codes
    assert "MSG110" not in codes and "MSG106" not in codes


def test_bytecode_capture_reports_only_what_2_10_does(tmp_path):
    found = _codes(tmp_path, '@jit(capture_mode="bytecode")')
    codes = {c for _, c in found}
    assert not codes & AST_CLAIMS, found
    # the measured facts: the tensor `while` (line 25) and the `import` (27) break the graph;
    # `del` (15) compiles with no break; what `try` (16) and `with` (20) do varies: nothing
    assert (25, "MSG106") in found and (27, "MSG110") in found
    assert not [f for f in found if f[0] in (14, 15, 16, 20)], found


def test_old_pijit_spelling_is_bytecode_capture(tmp_path):
    found = _codes(tmp_path, None, tail='\n    fast = jit(step, mode="PIJit")\n')
    codes = {c for _, c in found}
    assert not codes & AST_CLAIMS and "MSG110" in codes, found


def test_psjit_spelling_stays_ast(tmp_path):
    codes = {c for _, c in _codes(tmp_path, None, tail='\n    fast = jit(step, mode="PSJit")\n')}
    assert AST_CLAIMS <= codes


CELL = """
    import numpy as np
    from mindspore import Tensor, context, jit, nn


    class Net(nn.Cell):
        def construct(self, x):
            d = {"a": x, "b": x * 2}
            del d["a"]
            return d["b"]


    def test_net():
        context.set_context(mode=context.PYNATIVE_MODE)
        net = Net()
        x = Tensor(np.ones(3, np.float32))
        jit(function=Net.construct, capture_mode="bytecode")(net, x)
"""


def test_cell_construct_wrapped_only_with_bytecode_is_bytecode(tmp_path):
    write_tree(tmp_path, {"test_a.py": CELL})
    assert not [f for f in lint([tmp_path / "test_a.py"], config_file=None) if f.code == "MSG410"]


def test_cell_construct_also_compiled_with_ast_stays_ast(tmp_path):
    # MindSpore's pi_jit tests jit the same construct with both captures and call the Cell in
    # GRAPH_MODE: there the ast claims hold
    src = CELL.replace("context.set_context(mode=context.PYNATIVE_MODE)",
                       "context.set_context(mode=context.GRAPH_MODE)\n        net(Tensor(np.ones(3, np.float32)))")
    write_tree(tmp_path, {"test_b.py": src})
    assert [f for f in lint([tmp_path / "test_b.py"], config_file=None) if f.code == "MSG410"]
    src = CELL + '        jit(function=Net.construct, capture_mode="ast")(net, x)\n'
    write_tree(tmp_path, {"test_c.py": src})
    assert [f for f in lint([tmp_path / "test_c.py"], config_file=None) if f.code == "MSG410"]


PARAMETRISED = """
    import pytest
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            y = x * 2
            del y
            return x


    @pytest.mark.parametrize("mode", [{modes}])
    def test_net(mode):
        ms.set_context(mode=mode)
        Net()(ms.Tensor([1.0]))
"""


def test_tests_parametrised_only_with_pynative_are_not_graph_code(tmp_path):
    write_tree(tmp_path, {"test_p.py": PARAMETRISED.replace("{modes}", "ms.PYNATIVE_MODE")})
    assert not [f for f in lint([tmp_path / "test_p.py"], config_file=None) if f.code == "MSG410"]
    write_tree(tmp_path, {"test_g.py": PARAMETRISED.replace("{modes}", "ms.GRAPH_MODE, ms.PYNATIVE_MODE")})
    assert [f for f in lint([tmp_path / "test_g.py"], config_file=None) if f.code == "MSG410"]


PER_TEST = """
    import pytest
    import mindspore as ms
    from mindspore import context, nn


    @pytest.mark.parametrize("mode", [context.PYNATIVE_MODE])
    def test_pynative(mode):
        class Net(nn.Cell):
            def construct(self, x):
                y = x * 2
                del y
                return x
        context.set_context(mode=mode)
        Net()(ms.Tensor([1.0]))


    def test_graph():
        class Net(nn.Cell):
            def construct(self, x):
                y = x * 2
                del y
                return x
        context.set_context(mode=context.GRAPH_MODE)
        Net()(ms.Tensor([1.0]))
"""


def test_a_test_that_runs_its_cells_in_pynative_is_not_graph_code(tmp_path):
    # the module switches modes, so it is graph code; the test that sets only PYNATIVE_MODE is not
    write_tree(tmp_path, {"test_t.py": PER_TEST})
    found = [f.line for f in lint([tmp_path / "test_t.py"], config_file=None) if f.code == "MSG410"]
    assert found == [21], found   # not line 11, the PyNative test's `del`

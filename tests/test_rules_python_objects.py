"""Edge cases of the rules about Python objects in graph code: MSG213 (attribute writes on
objects), MSG415 (a helper's None result after a tensor branch), MSG416 (a plain object built
from a tensor), MSG406 on lists nested in local displays, and which callers count as host code
(entries.py). The facts behind each rule are in its rationale and labeled fixtures."""

from __future__ import annotations

import textwrap

from msgraphlint.api import check_source


def _lines(src: str, code: str):
    return [f.line for f in check_source(textwrap.dedent(src).lstrip("\n"), select=[code])]


def test_msg213_object_rebound_outside_the_graph_is_silent():
    assert _lines("""
        import mindspore as ms

        class A:
            def __init__(self):
                self.v = 0

        class B:
            def __init__(self):
                self.v = 0

        OBJ = A()
        OBJ = B()

        @ms.jit
        def step(x):
            OBJ.v = 1
            return x
    """, "MSG213") == []


def test_msg213_generator_helper_is_silent():
    assert _lines("""
        import contextlib
        from mindspore import nn

        class State:
            def __init__(self):
                self.on = False

        STATE = State()

        @contextlib.contextmanager
        def switch():
            STATE.on = True
            yield
            STATE.on = False

        class Net(nn.Cell):
            def construct(self, x):
                with switch():
                    return x
    """, "MSG213") == []


def test_msg213_nested_attribute_of_module_object():
    assert _lines("""
        import mindspore as ms

        class Inner:
            def __init__(self):
                self.v = 0

        class Outer:
            def __init__(self):
                self.inner = Inner()

        OBJ = Outer()

        @ms.jit
        def step(x):
            OBJ.inner.v = 2
            return x
    """, "MSG213") == [15]


def test_msg415_helper_returning_a_value_on_one_path_is_silent():
    assert _lines("""
        import mindspore as ms
        from mindspore import nn, ops

        class Net(nn.Cell):
            def check(self, x, flag):
                if x.sum() > 0:
                    ops.print_("positive")
                if flag:
                    return x

            def construct(self, x):
                return self.check(x, True)

        Net()(ms.Tensor([1.0]))
    """, "MSG415") == []


def test_msg415_plain_function_helper_of_a_jit_function():
    # measured: a module function with `if x.sum() > 0: print(...)` called from a jit function: 2 PyExecute
    assert _lines("""
        import mindspore as ms

        def report(x):
            if x.sum() > 0:
                print("positive")

        @ms.jit
        def step(x):
            report(x)
            return x

        step(ms.Tensor([1.0]))
    """, "MSG415") == [4]


def test_msg416_decorated_and_cell_classes_are_silent():
    assert _lines("""
        import mindspore as ms
        from mindspore import nn, jit_class

        @jit_class
        class Holder:
            def __init__(self, v):
                self.v = v

        class Block(nn.Cell):
            def __init__(self, v):
                super().__init__()
                self.v = v

        @ms.jit
        def step(x):
            return Holder(x).v + Block(x).v
    """, "MSG416") == []


def test_msg406_list_nested_two_levels_in_a_local_display():
    assert _lines("""
        import mindspore as ms

        @ms.jit
        def step(x):
            table = ([[1, 2], [3]], 4)
            row = table[0][1]
            row.reverse()
            return x + row[0]
    """, "MSG406") == [7]


def test_a_helper_that_is_not_named_like_host_code_is_not_evidence():
    # a plain function that may itself be called from a graph elsewhere (mindone's loss
    # functions reached through a name table): its call of the Cell does not make an entry
    assert _lines("""
        import mindspore as ms
        from mindspore import nn

        class Loss(nn.Cell):
            def construct(self, x):
                return {"loss": x}

        def compute_loss(x):
            return Loss()(x)
    """, "MSG414") == []
    assert _lines("""
        import mindspore as ms
        from mindspore import nn

        class Loss(nn.Cell):
            def construct(self, x):
                return {"loss": x}

        def train_step(x):
            return Loss()(x)
    """, "MSG414") == [6]


def test_msg414_list_of_a_constant_tensor_is_a_list_of_tensors():
    # 2.10 CPU, jit called from Python: `return list(Tensor([1, 2, 3]))` is a list of three
    # tensors, built with no PyExecute; `list((1, 2, 3))` of numbers: no PyExecute either;
    # `list(("a", "b"))`: 1 node
    assert _lines("""
        from mindspore import Tensor, jit

        @jit
        def tensors():
            return list(Tensor([1, 2, 3]))

        @jit
        def ints():
            return list((1, 2, 3))

        @jit
        def strings():
            return list(("a", "b"))

        def main():
            return tensors(), ints(), strings()
    """, "MSG414") == [13]

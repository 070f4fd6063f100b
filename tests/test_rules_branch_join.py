"""MSG108 (values graph mode cannot join at a tensor-decided branch): cases that need the
module's call sites, and look-alikes that compile. Every expectation here was compiled on
MindSpore 2.10 CPU (the labeled snippets `fixtures/labeled/control_flow_*_join_*` hold the
compiler's verdicts; the rest are in the rule's rationale). The single-scope cases are the
rule's VALID/INVALID examples (tests/test_rule_examples.py)."""

from __future__ import annotations

import textwrap
from typing import List, Tuple

from msgraphlint.api import check_source


def _lines(src: str, code: str = "MSG108") -> List[int]:
    return sorted(f.line for f in check_source(textwrap.dedent(src).lstrip("\n"), select=[code]))


def _msgs(src: str) -> List[Tuple[int, str]]:
    return sorted((f.line, f.message) for f in check_source(textwrap.dedent(src).lstrip("\n"), select=["MSG108"]))


def test_dtypes_come_from_the_call_sites_of_the_module():
    src = """
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def pick(x, y):
            return x and y

        pick(Tensor([1]), Tensor([1.0]))
    """
    [(line, msg)] = _msgs(src)
    assert line == 6 and "an int64 Tensor" in msg and "a float32 Tensor" in msg


def test_call_sites_that_disagree_on_a_dtype_give_the_scope_no_dtype_the_call_is_reported():
    src = """
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def pick(x, y):
            return x and y

        pick(Tensor([1]), Tensor([1.0]))
        pick(Tensor([1]), Tensor([2]))
    """
    [(line, msg)] = _msgs(src)
    assert line == 8 and msg == "this call passes an int64 Tensor and a float32 Tensor, which `pick` cannot join"


def test_a_name_bound_to_a_tensor_carries_its_dtype_to_the_call():
    src = """
        import mindspore as ms
        from mindspore import Tensor

        def main():
            @ms.jit
            def pick(x):
                y = Tensor([2.0])
                return x and y

            a = Tensor(1, ms.int32)
            return pick(a)
    """
    [(line, msg)] = _msgs(src)
    assert line == 8 and "an int32 Tensor" in msg


def test_same_named_nested_entries_get_their_own_call_sites():
    # two test functions define `foo`; each call site types its own `foo` only
    src = """
        import mindspore as ms
        from mindspore import Tensor

        def test_one():
            @ms.jit
            def foo(x, y):
                if x < y:
                    return x * 2
                return 0
            foo(Tensor(2.0), Tensor(6.0))

        def test_two():
            @ms.jit
            def foo(x, y):
                if x < y:
                    return x * 2
                return 0
            foo(2, 6)
    """
    assert _lines(src) == [7]
    assert _lines(src, "MSG101") == [7]


def test_constant_tensors_are_folded():
    # measured: compiles and returns the second tensor
    src = """
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def fn(x):
            a = Tensor([1])
            b = Tensor([2.0])
            return (a and b) + x
    """
    assert _lines(src) == []


def test_functions_that_return_tuples_are_not_taken_for_one_tensor():
    # `ops.topk` returns (values, indices): the two branches give two tuples (compiles)
    src = """
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def topk_fun(x, k):
            if k == 0:
                output = (ms.ops.ones((0,), dtype=ms.float32), ms.ops.ones((0,), dtype=ms.int32))
            else:
                output = ms.ops.topk(x, k, None, True, True)
            return output

        topk_fun(ms.tensor([1., 2., 3.]), ms.tensor([0]))
    """
    assert _lines(src) == []


def test_a_python_flag_first_is_folded_a_python_flag_second_is_joined():
    # measured: `self.flag and x.sum() > 0` compiles; `x.sum() > 0 and y is None` fails
    src = """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.flag = True

            def construct(self, x, y=None):
                if self.flag and x.sum() > 0:
                    x = x * 2
                if x.sum() > 0 and y is None:
                    x = x - 1
                return x
    """
    assert _lines(src) == [11]


def test_nested_branches_report_the_inner_one():
    src = """
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def func(v):
            if v < 10:
                if v > 1:
                    return "2"
                return 1
            return 1

        func(Tensor(9))
    """
    assert _lines(src) == [7]


def test_a_variable_rebound_before_use_or_dead_is_not_joined():
    src = """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, x):
                if x.sum() > 0:
                    a = x * 2
                    b = 1
                else:
                    a = x
                    b = 2.5
                b = a + 1
                return a + b
    """
    assert _lines(src) == []


def test_loops_and_compile_time_branches_between_returns_are_not_claimed():
    src = """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self, mode=0):
                super().__init__()
                self.mode = mode

            def construct(self, x):
                if x.sum() > 0:
                    if self.mode == 1:
                        return 0
                    return x
                for _ in range(2):
                    if x.max() > 1:
                        return x
                return x * 2
    """
    assert _lines(src) == []


def test_bytecode_capture_is_not_described():
    src = """
        import mindspore as ms

        @ms.jit(capture_mode="bytecode")
        def fn(x):
            if x.sum() > 0:
                return x * 2
            return 0
    """
    assert _lines(src) == []


def test_msg109_appending_on_both_sides_keeps_the_length():
    # measured on 2.10: appending in both branches of a tensor `if` compiles
    src = """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, x):
                out = []
                for i in range(3):
                    if (x + i).sum() > 5:
                        out.append(x + i)
                    else:
                        out.append(x - i)
                    if (x - i).sum() > 5:
                        out.append(x)
                return out
    """
    assert _lines(src, "MSG109") == [11]


def test_msg109_a_filter_on_the_loop_index_is_python():
    src = """
        import mindspore as ms

        @ms.jit
        def fn(x, n: int):
            return sum(x * i for i in range(4) if i < n)
    """
    assert _lines(src, "MSG109") == []


def test_calls_with_different_kinds_are_reported_at_the_call_that_cannot_join():
    # measured on 2.10 (one Cell, `return x and y`): (1, 2) and two int32 tensors compile;
    # a float64 and an int32 tensor, and an int32 tensor with the Python int 2, fail
    src = """
        import numpy as np
        from mindspore import Tensor, nn

        class Pick(nn.Cell):
            def construct(self, x, y):
                return x and y

        def test_numbers():
            assert Pick()(1, 2) == 2

        def test_same_dtype():
            net = Pick()
            x = Tensor(np.ones([1], np.int32))
            y = Tensor(np.zeros([1], np.int32))
            net(x, y)

        def test_dtypes():
            net = Pick()
            x = Tensor(np.ones([1], np.float_))
            y = Tensor(np.zeros([1], np.int32))
            net(x, y)

        def test_tensor_and_int():
            net = Pick()
            net(Tensor(np.ones([1], np.int32)), 2)
    """
    msgs = _msgs(src)
    assert [line for line, _ in msgs] == [21, 25]
    assert "a float64 Tensor" in msgs[0][1] and "an int32 Tensor" in msgs[0][1] and "`Pick.construct`" in msgs[0][1]
    assert "a Python int" in msgs[1][1]


def test_one_kind_of_call_is_left_to_the_scope():
    src = """
        import numpy as np
        from mindspore import Tensor, nn

        class Pick(nn.Cell):
            def construct(self, x, y):
                return x and y

        def run():
            return Pick()(Tensor([1]), Tensor([1.0]))
    """
    assert _lines(src) == [6]

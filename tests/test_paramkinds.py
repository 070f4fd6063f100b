"""Parameter kinds of graph entries from the project's call sites (msgraphlint/infer/paramkinds.py),
and the tensor truth tests (`bool(t)`, `t.any()`, element tests in unrolled loops).

The Switch behind every positive here was measured on MindSpore 2.10 CPU by the labeled
fixtures `control_flow_pos_{caller_bool_tensor_ifexp, jit_scalar_tensor_compare,
mutable_int_compare, dataset_label_branch, parent_passes_tensor_flag, unrolled_for_element,
bool_of_reduction}`; the negatives by `control_flow_neg_{parent_use_bias_flag,
parent_passes_size, caller_literal_flag, jit_literal_int_arg, parent_mode_string}`."""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

CF = ["MSG101", "MSG102", "MSG103", "MSG403"]


def _lint(tmp_path, text):
    write_tree(tmp_path, {"m.py": text})
    return codes_at(lint([tmp_path / "m.py"], select=CF))


def test_without_a_caller_a_bare_flag_stays_silent(tmp_path):
    assert _lint(tmp_path, """
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x, flag):
                return x * 2 if flag else x
    """) == []


def test_training_loop_columns_make_the_parameter_a_tensor(tmp_path):
    assert _lint(tmp_path, """
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x, flag):
                return x * 2 if flag else x

        def train(ds):
            net = Net()
            for x, flag in ds.create_tuple_iterator():
                net(x, flag)
    """) == [("m.py", 5, "MSG103")]


def test_tensor_argument_of_a_jit_function(tmp_path):
    assert _lint(tmp_path, """
        import mindspore as ms

        @ms.jit
        def fn(x, n):
            if n > 0:
                return x * n
            return x

        y = fn(ms.Tensor([1.0]), ms.Tensor(3))
    """) == [("m.py", 5, "MSG101")]


def test_mutable_argument_is_a_variable(tmp_path):
    assert _lint(tmp_path, """
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x, n):
                if n > 1:
                    return x * 2
                return x

        Net()(ms.Tensor([1.0]), ms.mutable(2))
    """) == [("m.py", 6, "MSG101")]


def test_literal_at_every_call_site_is_a_constant(tmp_path):
    assert _lint(tmp_path, """
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x, n):
                if n.sum() > 1:
                    return x * 2
                return x

        net = Net()
        net(ms.Tensor([1.0]), 2)
        net(ms.Tensor([1.0]), 3)
    """) == []


def test_tensor_at_one_site_and_literal_at_another_stays_unknown(tmp_path):
    assert _lint(tmp_path, """
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x, n):
                if n > 1:
                    return x * 2
                return x

        net = Net()
        net(ms.Tensor([1.0]), ms.Tensor(2))
        net(ms.Tensor([1.0]), 3)
    """) == []


PARENT = """
    import mindspore as ms
    from mindspore import nn

    class Block(nn.Cell):
        def construct(self, x, flag, n):
            if flag:
                x = x + 1
            if n > 2:
                x = x * n
            return x

    class Net(nn.Cell):
        def __init__(self, use_bias=True):
            super().__init__()
            self.use_bias = use_bias
            self.block = Block()

        def construct(self, x, y):
            return self.block(x, {flag}, {n})
"""


def test_python_flag_and_size_from_a_parent_cell_stay_silent(tmp_path):
    assert _lint(tmp_path, PARENT.format(flag="self.use_bias", n="x.shape[-1]")) == []


def test_tensor_condition_from_a_parent_cell(tmp_path):
    assert _lint(tmp_path, PARENT.format(flag="x.sum() > 0", n="4")) == [("m.py", 6, "MSG101")]


def test_the_parents_own_parameter_is_no_evidence(tmp_path):
    # `y` is a bare parameter of the parent: its kind is a guess, so it says nothing about `flag`
    assert _lint(tmp_path, PARENT.format(flag="y", n="4")) == []


def test_bool_of_a_tensor_is_a_truth_test(tmp_path):
    assert _lint(tmp_path, """
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                if bool(x.sum() > 0):
                    return x * 2
                while bool((x > 10).any()):
                    x = x / 2
                return x
    """) == [("m.py", 5, "MSG101"), ("m.py", 7, "MSG102")]


def test_a_call_through_a_local_name_on_a_later_line(tmp_path):
    assert _lint(tmp_path, """
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x, n):
                if n.sum() > 1:
                    return x * 2
                return x

        def predict(x):
            net = Net()
            return net(x, 2)
    """) == []

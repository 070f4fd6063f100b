"""MSG420 (interpreted builtins), MSG421 (sequence operations), MSG422 (`is` with a literal)
and MSG401's `format` spellings: the cases the VALID/INVALID examples do not cover. Every
expectation is a MindSpore 2.10 CPU measurement (PyExecute nodes in the validate IR) named in
the test."""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

SELECT = ["MSG401", "MSG420", "MSG421", "MSG422"]


def _codes(tmp_path, src, select=SELECT):
    write_tree(tmp_path, {"m.py": src})
    return [(c, line) for _, line, c in codes_at(lint([tmp_path], select=select, config_file=None))]


def _lines(tmp_path, src, code):
    return sorted(line for c, line in _codes(tmp_path, src) if c == code)


def test_interpreted_builtin_follows_a_local_holding_tensors(tmp_path):
    # `all({"1": 1, "2": x})`: 2 PyExecute nodes; `type({"1": 1, "2": x})`: 5
    src = """
        import mindspore as ms

        @ms.jit
        def fn(x):
            d = {"1": 1, "2": x}
            shp = x.shape
            return x, all(d), type(d) == dict, any(i < 3 for i in shp)
    """
    assert _lines(tmp_path, src, "MSG420") == [7, 7, 7]


def test_interpreted_builtin_on_python_values_is_folded(tmp_path):
    # `all([True, True])`, `all(self.flags)`, `sorted(self.keys)`, `divmod(7, 2)`: 0 nodes;
    # a Python int passed by the caller (`all(k > 0 for k in (n, 2))`, net(x, 3)): 0 nodes
    src = """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.flags = (True, False)
                self.keys = (3, 1, 2)

            def construct(self, x, n):
                k = sorted(self.keys)
                q, r = divmod(7, 2)
                if all(self.flags) or all([True, True]) or all(v > 0 for v in (n, 2)):
                    return x * k[0] + q
                return x

        def run(x):
            return Net()(x, 3)
    """
    assert _lines(tmp_path, src, "MSG420") == []


def test_interpreted_builtin_not_reported_in_a_raise_message(tmp_path):
    src = """
        import mindspore.nn as nn
        from mindspore import Tensor

        class Net(nn.Cell):
            def construct(self, x):
                if x.shape[0] > 4:
                    raise ValueError(f"bad input of type {type(x)}")
                assert all(d > 0 for d in x.shape), f"{type(x)}"
                return x

        def run():
            return Net()(Tensor([1.0]))
    """
    assert _lines(tmp_path, src, "MSG420") == [8]  # the assert's test, not its message


def test_format_of_a_tensor_is_msg401_not_msg420(tmp_path):
    # `format(a)`: 5 nodes; `t.format(x, y)` with `t = "{1} {0}"`: 6; `"{0[1]}".format((x, y))`: 6;
    # `f = "...".format; f(names)`: 4; `"{}".format(x.shape)`: 0
    src = """
        import mindspore as ms

        @ms.jit
        def fn(a, x, y):
            s1 = format(a)
            t = "{1} {0}"
            s2 = t.format(x, y)
            names = (x, y)
            s3 = "a {0[1]}".format(names)
            f = "b {0[0]}".format
            s4 = f(names)
            ok = "{}".format(x.shape)
            return s1, s2, s3, s4, ok
    """
    found = _codes(tmp_path, src)
    assert sorted(line for c, line in found if c == "MSG401") == [5, 7, 9, 11]
    assert [line for c, line in found if c == "MSG420"] == []


def test_sequence_operations_native_and_interpreted(tmp_path):
    src = """
        import mindspore as ms

        @ms.jit
        def fn(x, y, i):
            n = ms.mutable(2)
            a = (x, y, x).count(x)               # tensors only: native
            m = (x, y, "a", 1)
            b = m.index(x)                       # mixed: 1 node
            c = n * ((1, 1), 1)                  # nested, variable count: 1 node
            d = n * (1, 2)                       # numbers: native
            e = [x, y][n]                        # tensors, mutable index: native
            f = [x, "a"][n]                      # mixed, mutable index: 2 nodes
            g = (1, 2, 3, 4)[i]                  # tensor index: 1 node
            h = ((x, x + 1), x + 2) < ((y, y - 1), y + 2)  # nested tensors: 1 node
            k = ("a", "b", 1).index("b")         # constants: folded
            return a, b, c, d, e, f, g, h, k
    """
    assert _lines(tmp_path, src, "MSG421") == [8, 9, 12, 13, 14]


def test_is_literal_only_on_values_known_at_run_time(tmp_path):
    # `a is 1` after a tensor branch: 1 node; `int(x) is 3`: 1; `ms.mutable(1) is 1`: 1;
    # `a = 1; a is 1`: 0; `is None`: 0
    src = """
        import mindspore as ms

        @ms.jit
        def fn(x, mask=None):
            a = 0
            i = 0
            while i < x:
                i = i + 1
                a = a + 1
            m = ms.mutable(1)
            c = 1
            return a is 3, int(x) is not 3, m is 1, c is 1, mask is None, a is not True
    """
    assert _lines(tmp_path, src, "MSG422") == [12, 12, 12]


def test_list_compared_with_a_number_held_in_a_local(tmp_path):
    # `x = [1, 2]; y = 2; x != y` (Cell construct): 3 PyExecute nodes like `[1, 2] != 2`;
    # a tuple: 0
    src = """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, t):
                x = [1, 2]
                y = 2
                z = (1, 2)
                return t, x != y, z != y
    """
    assert _lines(tmp_path, src, "MSG421") == [8]


def test_asnumpy_of_a_constant_tensor_only_when_its_value_is_returned(tmp_path):
    # `return x * 2, Tensor([1.0, 2.0]).asnumpy()` (Cell): 1 PyExecute node at the line;
    # `x * float(v.sum())` with the same `v`: 0 (folded)
    src = """
        import mindspore.nn as nn
        from mindspore import Tensor

        class Net(nn.Cell):
            def construct(self, x):
                table = Tensor([1.0, 2.0]).asnumpy()
                return x * 2, table

        class Folded(nn.Cell):
            def construct(self, x):
                v = Tensor([1.0, 2.0]).asnumpy()
                return x * float(v.sum())
    """
    assert _lines(tmp_path, src, "MSG401") == [6]


def test_constant_numpy_value_summed_in_a_loop_and_returned(tmp_path):
    # a sum over `for i, j in enumerate(v)` returned: 1 PyExecute node; the index sum alone: 0
    src = """
        import numpy as np
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def values():
            total = 0
            v = Tensor(np.array([11, 22])).asnumpy()
            for i, j in enumerate(v):
                total += j
            return total

        @ms.jit
        def indices():
            total = 0
            v = Tensor(np.array([11, 22])).asnumpy()
            for i, j in enumerate(v):
                total += i
            return total
    """
    assert _lines(tmp_path, src, "MSG401") == [8]


def test_print_of_a_numpy_attribute_says_pyexecute(tmp_path):
    # `print(self.arr)` with `self.arr = np.array([1, 2])`: 2 PyExecute nodes, no Print op;
    # `print(self.n)` of an int: a Print op
    src = """
        import numpy as np
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.arr = np.array([1, 2])
                self.n = 3

            def construct(self, x):
                print(self.arr)
                print(self.n)
                return x * 2
    """
    write_tree(tmp_path, {"m.py": src})
    found = {f.line: f.full_message for f in lint([tmp_path], select=["MSG201"], config_file=None)}
    assert "PyExecute" in found[11] and "PyExecute" not in found[12]


def test_tuple_indexed_by_a_mutable_scalar_comparison_is_native(tmp_path):
    # MindSpore's own test compiles `m[a == 1]` over a tuple of tensors with a = ms.mutable(1)
    # passed by the caller and asserts the values: 2.10 CPU, no PyExecute. Rebinding `a` to a
    # tensor reduction makes it a tensor index again (`(x, y)[t]`: 1 node).
    src = """
        from mindspore import Tensor, jit, mutable

        @jit
        def pick(x, a):
            m = (x, x + 1, x + 2)
            return m[a == 1], m[a]

        @jit
        def pick_t(x, a):
            m = (x, x + 1, x + 2)
            a = x.sum() > 0
            return m[a]

        def main():
            pick(Tensor([1]), mutable(1))
            pick_t(Tensor([1]), mutable(1))
    """
    assert _lines(tmp_path, src, "MSG421") == [12]


def test_ordering_decided_by_leading_constants_is_folded(tmp_path):
    # `(1, (x, x + 1)) < (2, (y, y - 1))`: 0 PyExecute (jit fullgraph); `((x, x + 1), 1) <
    # ((y, y - 1), 1)`: 1 node
    src = """
        import mindspore as ms

        @ms.jit
        def fn(x, y):
            m = (1, (x, x + 1))
            n = (2, (y, y - 1))
            p = ((x, x + 1), 1)
            q = ((y, y - 1), 1)
            folded = m < n
            interpreted = p < q
            return folded, interpreted
    """
    assert _lines(tmp_path, src, "MSG421") == [10]


def test_builtins_module_spelling_of_a_converted_builtin_is_native(tmp_path):
    # `builtins.abs(x)` in @jit: MindSpore's own test passes on 2.10 CPU with no PyExecute node
    # (abs is in the parser's convert table, catalog graph_builtins.converted)
    src = """
        import builtins
        import mindspore as ms

        @ms.jit
        def fn(x):
            return builtins.abs(x)
    """
    assert _codes(tmp_path, src, select=["MSG404"]) == []


def test_python_facts_about_a_folded_numpy_value_are_folded(tmp_path):
    # MindSpore's own tests, compiled on 2.10 CPU with no PyExecute node: `y in
    # Tensor([1, 2]).asnumpy()`, `Tensor([1]).asnumpy() is not None`, and
    # `getattr(Tensor(np.array([1, 2])).asnumpy(), "__len__")()` returned from the graph.
    # Returning the NumPy value itself (`return abs(Tensor([-1, 2]).asnumpy())`): 1 node.
    src = """
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def facts(y):
            v = Tensor([1, 2]).asnumpy()
            w = Tensor([1]).asnumpy()
            attr = "__len__"
            n = getattr(v, attr)
            return y in v, w is not None, v.shape, n()

        @ms.jit
        def value():
            return abs(Tensor([-1, 2]).asnumpy())
    """
    assert _lines(tmp_path, src, "MSG401") == [14]

"""Graph entries (msgraphlint/infer/entries.py) and MSG414 python-object-output on them.

The facts behind the rule (MindSpore 2.10 CPU, validate IR of each graph): a dict output
costs 3 PyExecute nodes, None / a list of constants / a `self` or global list 1, when Python
calls the graph; a sub-cell or a jit function called from another jit function costs none.
"""

from __future__ import annotations

import ast
import textwrap

from msgraphlint.api import check_source
from msgraphlint.infer.entries import python_called


def _called(src: str):
    tree = ast.parse(textwrap.dedent(src))
    defs = {n.name if not isinstance(n, ast.FunctionDef) or n.name != "construct" else "construct@" + str(n.lineno): n
            for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    graph = {id(n) for k, n in defs.items() if k.startswith("construct") or k in ("step", "inner", "outer")}
    ids = python_called(tree, graph)
    return sorted(k for k, n in defs.items() if id(n) in ids)


def test_jit_function_called_from_a_test_function_is_an_entry():
    assert _called("""
        import mindspore as ms
        def test_it():
            @ms.jit
            def step(x):
                return x
            step(1)
    """) == ["step"]


def test_cell_instance_and_direct_call_are_entries_sub_cell_is_not():
    src = """
        from mindspore import nn
        class Block(nn.Cell):
            def construct(self, x):
                return x
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.block = Block()
            def construct(self, x):
                return self.block(x)
        net = Net()
        net(1)
    """
    found = _called(src)
    assert found == ["construct@10"]  # Net.construct only (Block is called inside Net's graph)


def test_jit_called_only_from_another_jit_is_not_an_entry():
    assert _called("""
        import mindspore as ms
        @ms.jit
        def inner(x):
            return x
        @ms.jit
        def outer(x):
            return inner(x)
        outer(1)
    """) == ["outer"]


def test_a_parameter_shadows_the_module_level_name():
    assert _called("""
        import mindspore as ms
        @ms.jit
        def step(x):
            return x
        def train(step):
            step(1)
    """) == []


def test_jit_wrapped_and_called():
    assert _called("""
        import mindspore as ms
        def step(x):
            return x
        f = ms.jit(step)
        f(1)
        ms.jit(step)(2)
    """) == ["step"]


def _msg414(src: str):
    return [(f.line, f.full_message) for f in check_source(textwrap.dedent(src), select=["MSG414"])]


def test_no_visible_python_call_is_silent():
    assert _msg414("""
        import mindspore as ms
        from mindspore import nn
        class Net(nn.Cell):
            def construct(self, x):
                return {"y": x}
    """) == []


def test_cell_passed_to_a_wrapper_is_silent():
    assert _msg414("""
        import mindspore as ms
        from mindspore import nn
        class Net(nn.Cell):
            def construct(self, x):
                return {"y": x}
        net = Net()
        train = nn.TrainOneStepCell(net, None)
    """) == []


def test_dict_filled_in_the_graph_and_returned_by_name():
    found = _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x):
            out = {}
            out["y"] = x * 2
            return out
        step(ms.Tensor([1.0]))
    """)
    assert [l for l, _ in found] == [7] and "a dict" in found[0][1]


def test_constant_list_in_a_tuple_and_appended_list_are_silent():
    # measured: `(1, [2])`, `(x, ([2],))` and a list filled by append of tensors need no PyExecute
    assert _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x):
            l = []
            l.append(x)
            return (x, ([2],)), l
        step(ms.Tensor([1.0]))
    """) == []


def test_branches_reported_only_when_every_return_is_a_python_object():
    found = _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x):
            if x.sum() > 0:
                return {"a": x}
            return {"b": x}
        step(ms.Tensor([1.0]))
    """)
    assert [l for l, _ in found] == [6, 7]
    assert _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x):
            if x.sum() > 0:
                return {"a": x}
            return x
        step(ms.Tensor([1.0]))
    """) == []


def test_returns_nothing_reported_at_the_def_and_a_raise_is_silent():
    assert [l for l, _ in _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x):
            y = x + 1
        step(ms.Tensor([1.0]))
    """)] == [4]
    assert _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x):
            raise ValueError("no")
        step(ms.Tensor([1.0]))
    """) == []


# what host code passes in (entries.Inputs): measured on 2.10 CPU, returning a Python list or dict
# argument costs 1 PyExecute (also a tuple holding a list, and `d["k"]` when it is a list); using
# its elements or `len()` costs none; a Cell returning `self.v` set from a list constructor
# argument costs 1, `self.v.attr` of a jit_class object holding a list 1

def test_list_argument_returned_is_flagged_used_is_silent():
    found = _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x, names):
            return names
        @ms.jit
        def scale(x, s):
            return x * s[0] + len(s)
        def test_it():
            names = ["a", "b"]
            step(ms.Tensor([1.0]), names)
            scale(ms.Tensor([1.0]), [2.0, 3.0])
    """)
    assert [l for l, _ in found] == [5] and "a Python list" in found[0][1]


def test_sites_that_disagree_are_silent():
    assert _msg414("""
        import mindspore as ms
        @ms.jit
        def step(x, v):
            return v
        def test_it():
            step(ms.Tensor([1.0]), [1, 2])
            step(ms.Tensor([1.0]), (1, 2))
    """) == []


def test_element_of_a_tuple_argument_and_dict_argument():
    found = _msg414("""
        import mindspore as ms
        @ms.jit
        def first(t):
            return t[0]
        @ms.jit
        def pick(d):
            return d["1"]
        def test_it():
            first(([1, 2], 3))
            pick({"1": [1, 2]})
            pick({"1": [3]})
    """)
    assert [l for l, _ in found] == [5, 8]


def test_cell_attribute_from_constructor_argument():
    src = """
        import mindspore as ms
        from mindspore import nn, jit_class

        @jit_class
        class Holder:
            def __init__(self, v):
                self.attr = v

        class Net(nn.Cell):
            def __init__(self, v, w):
                super().__init__()
                self.v = v
                w = tuple(w)
                self.w = w

            def construct(self):
                return self.v, self.w

        class Wrap(nn.Cell):
            def __init__(self, h):
                super().__init__()
                self.h = h

            def construct(self):
                return self.h.attr

        def test_it():
            Net([1, 2], [3, 4])()
            Wrap(Holder([1, 2]))()
    """
    found = _msg414(src)
    assert [l for l, _ in found] == [18, 26]
    assert "self.v" in found[0][1]  # self.w is a tuple made in __init__: not the list passed

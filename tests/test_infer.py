"""The inference facade ``ctx.tensor(expr)`` (msgraphlint/infer/): certainty and provenance.

A rule written here, as a new rule author would write one (docs/RULE_AUTHORING.md, "Asking
what a value is"), reports the answer for every ``if`` test and ``return`` value of graph
code; the tests read the answers back from its findings."""

from __future__ import annotations

import ast
import textwrap
import types

import pytest

from msgraphlint.engine import registry
from msgraphlint.rule import Rule

from helpers import lint, write_tree


class Answers(Rule):
    code = "INFER901"
    name = "infer-answers"
    summary = "reports ctx.tensor() of if tests, return values and += targets"
    message = "{answer}"

    def visit_If(self, node: ast.If, ctx) -> None:
        ctx.report(node.test, answer=str(ctx.tensor(node.test)))

    def visit_Return(self, node: ast.Return, ctx) -> None:
        if node.value is not None:
            ctx.report(node.value, answer=str(ctx.tensor(node.value)))

    def visit_AugAssign(self, node: ast.AugAssign, ctx) -> None:
        ctx.report(node.target, answer=str(ctx.tensor(node.target)))


Answers.__module__ = __name__


@pytest.fixture
def answers(tmp_path, monkeypatch):
    ep = types.SimpleNamespace(name="infer-test", value="t:RULES", load=lambda: [Answers])
    builtin = registry._entry_points()
    monkeypatch.setattr(registry, "_entry_points", lambda: builtin + [ep])
    registry.load_rules.cache_clear()

    def run(src: str, files=None):
        write_tree(tmp_path, dict(files or {}, **{"m.py": textwrap.dedent(src)}))
        return {(f.line, f.message) for f in lint([tmp_path / "m.py"], select=["INFER"])}

    yield run
    registry.load_rules.cache_clear()


HEAD = """\
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
"""


def test_bare_parameter_without_evidence_is_maybe(answers):
    # line 7: `if flag:`: nothing says flag is a tensor (ctx.kind says TENSOR for both
    # parameters); `x` is one by its use (the first operand of a mindspore.ops function)
    got = answers(HEAD + """
class Net(nn.Cell):
    def construct(self, x, flag):
        if flag:
            return ops.relu(x)
        return x
""")
    assert (7, "maybe a tensor: parameter without tensor evidence") in got
    assert (8, "surely a tensor: computed in the graph") in got
    assert (9, "surely a tensor: graph input") in got


def test_parameter_the_callers_pass_a_python_value_to(answers):
    got = answers(HEAD + """
class Net(nn.Cell):
    def construct(self, x, flag):
        if flag:
            return x * 2
        return x


net = Net()
net(Tensor(np.ones(2, np.float32)), True)
""")
    assert (7, "surely not a tensor: Python value from the caller") in got


def test_parameter_the_callers_pass_a_tensor_to(answers):
    got = answers(HEAD + """
class Net(nn.Cell):
    def construct(self, x, t):
        if t:
            return x * 2
        return x


net = Net()
net(Tensor(np.ones(2, np.float32)), Tensor(1))
""")
    assert (7, "surely a tensor: graph input") in got


def test_cell_output_is_surely_a_tensor_from_a_cell(answers):
    got = answers(HEAD + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)

    def construct(self, x):
        h = self.fc(x)
        return h
""")
    assert (12, "surely a tensor: Cell output") in got


def test_constant_tensors_are_folded(answers):
    got = answers(HEAD + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = Tensor(0.5)
        self.w = Parameter(Tensor(np.ones(2, np.float32)))

    def construct(self, x):
        a = Tensor([1.0, 2.0], ms.float32)
        if self.limit > 1:
            return a + 1
        if self.w.sum() > 1:
            return x
        return Tensor(len(x))
""")
    assert (13, "surely a tensor: constant folded at compile time") in got   # self.limit > 1
    assert (14, "surely a tensor: constant folded at compile time") in got   # a + 1
    assert (15, "surely a tensor: computed in the graph") in got           # self.w.sum() > 1
    assert (17, "surely a tensor: constant folded at compile time") in got   # Tensor(len(x))


def test_local_bound_to_a_cell_attribute_names_it(answers):
    got = answers(HEAD + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.loss = Tensor(np.zeros(2, np.float32))
        self.acc = Parameter(Tensor(np.zeros(2, np.float32)), requires_grad=False)

    def construct(self, x):
        loss = self.loss
        loss += x
        acc = self.acc
        acc += x
        other = self.acc + 0
        other += x
        return loss
""")
    assert (13, "surely a tensor: constant folded at compile time (bound to `self.loss`)") in got
    assert (15, "surely a tensor: Parameter (bound to `self.acc`)") in got
    assert (17, "surely a tensor: computed in the graph") in got   # `self.acc + 0`: a new tensor


def test_tuple_grown_by_augmented_assignment_is_not_a_tensor(answers):
    # mindyolo's bottleneck: `y += x_tuple` (ops.split: a tuple of tensors), then `y += (out,)`
    got = answers(HEAD + """
class Net(nn.Cell):
    def construct(self, x):
        y = ()
        y += ops.split(x, 2)
        y += (x * 2,)
        return ops.concat(y)
""")
    assert (9, "surely not a tensor: compile-time Python value") in got


# rules that ask the facade -----------------------------------------------------------------

def _codes(tmp_path, src: str, select=("MSG",)):
    write_tree(tmp_path, {"m.py": textwrap.dedent(src)})
    return sorted((f.line, f.code) for f in lint([tmp_path / "m.py"], select=list(select)))


def test_asnumpy_of_constant_tensors_that_fold_is_silent(tmp_path):
    # measured (tests/test_infer_mindspore.py): 0 PyExecute for both Cells; `x.asnumpy()` of the input: 11
    assert _codes(tmp_path, HEAD + """
class Local(nn.Cell):
    def construct(self, x):
        a = Tensor([1.0, 2.0], ms.float32)
        b = Tensor([3.0, 4.0], ms.float32)
        v = np.exp(a.asnumpy() + b.asnumpy())
        return x + Tensor(v)


class Attr(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Tensor([1.0, 2.0], ms.float32)
        self.b = Tensor([3.0, 4.0], ms.float32)

    def construct(self, x):
        v = np.exp(self.a.asnumpy() + self.b.asnumpy())
        return x + Tensor(v)


class Input(nn.Cell):
    def construct(self, x):
        return x + Tensor(np.exp(x.asnumpy()))
""") == [(26, "MSG401")]


def test_range_of_folded_tensor_bounds_is_static(tmp_path):
    # measured: a static shape with `Tensor(len(x))`, dynamic with a tensor input as the limit
    assert _codes(tmp_path, HEAD + """
class Net(nn.Cell):
    def construct(self, x):
        return x + ops.range(Tensor(0), Tensor(len(x)), Tensor(1))


class Limit(nn.Cell):
    def construct(self, x, n):
        return ops.range(Tensor(0), ops.cast(n.sum(), ms.int32), Tensor(1))
""", select=("MSG3",)) == [(12, "MSG303")]


def test_write_through_a_local_bound_to_a_cell_attribute_is_a_divergence(tmp_path):
    got = _codes(tmp_path, HEAD + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.loss = Tensor(np.zeros(2, np.float32))
        self.acc = Parameter(Tensor(np.zeros(2, np.float32)), requires_grad=False)

    def construct(self, x):
        loss = self.loss
        loss += x
        acc = self.acc
        acc *= x
        plus = self.acc + 0
        plus += x
        copied = self.acc.copy()
        copied += x
        return loss + acc + plus + copied
""", select=("MSG2",))
    # the aliases diverge (MSG202); new tensors made from the Parameter agree (MSG204, measured)
    assert got == [(13, "MSG202"), (15, "MSG202"), (17, "MSG204"), (19, "MSG204")]


def test_divergence_message_names_the_attribute(tmp_path):
    write_tree(tmp_path, {"m.py": HEAD + textwrap.dedent("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.loss = Tensor(np.zeros(2, np.float32))

            def construct(self, x):
                loss = self.loss
                loss += x
                return loss
    """)})
    [f] = lint([tmp_path / "m.py"], select=["MSG202"])
    assert "the Cell's tensor attribute `self.loss`" in f.full_message
    assert "graph mode writes into `self.loss`" in f.full_message and "PyNative rebinds `loss`" in f.full_message


def test_tuple_grown_by_augmented_assignment_is_not_a_tensor_write(tmp_path):
    # mindyolo models/layers/bottleneck.py (C2f.construct): `y += x_tuple` then `y += (out,)`
    assert _codes(tmp_path, HEAD + """
class C2f(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 2)])

    def construct(self, x):
        y = ()
        _c = x.shape[1] // 2
        x_tuple = ops.split(x, axis=1, split_size_or_sections=_c)
        y += x_tuple
        for i in range(len(self.m)):
            m = self.m[i]
            out = m(y[-1])
            y += (out,)
        return ops.concat(y, axis=1)
""", select=("MSG2",)) == []


def test_numpy_value_of_a_folded_tensor_that_is_printed_still_falls_back(tmp_path):
    # measured in `@jit`: `y = Tensor(np.array([1, 2, 3, 4])).asnumpy(); print(y)` 2 PyExecute,
    # `print(t)` of the constant tensor 0, `x * float(y.sum())` 0
    write_tree(tmp_path, {"m.py": HEAD + textwrap.dedent("""
        @ms.jit
        def printed(x):
            y = Tensor(np.array([1, 2, 3, 4])).asnumpy()
            print(y)
            return x

        @ms.jit
        def used(x):
            y = Tensor(np.array([1, 2, 3, 4])).asnumpy()
            return x * float(y.sum())
    """)})
    got = [(f.line, f.code, f.full_message) for f in lint([tmp_path / "m.py"], select=["MSG4"])]
    assert [(line, code) for line, code, _ in got] == [(7, "MSG401")]
    assert "constant tensor" in got[0][2] and "is printed" in got[0][2]


class TensorIfExample(Rule):
    """The example rule of docs/RULE_AUTHORING.md, "Asking what a value is"."""
    code = "INFER902"
    name = "tensor-if-example"
    summary = "`if` on a run-time tensor"
    message = "`if` on a tensor ({provenance}): a Switch"

    def visit_If(self, node, ctx):
        answer = ctx.tensor(node.test)
        if answer.surely and not answer.folded:   # not `if flag:`, not `if self.limit > 1:`
            ctx.report(node.test, provenance=answer.provenance.value)


TensorIfExample.__module__ = __name__


def test_the_documented_example_rule(tmp_path, monkeypatch):
    ep = types.SimpleNamespace(name="infer-doc", value="t:RULES", load=lambda: [TensorIfExample])
    builtin = registry._entry_points()
    monkeypatch.setattr(registry, "_entry_points", lambda: builtin + [ep])
    registry.load_rules.cache_clear()
    try:
        write_tree(tmp_path, {"m.py": HEAD + textwrap.dedent("""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.limit = Tensor(0.5)

                def construct(self, x, flag):
                    if flag:
                        x = x + 1
                    if self.limit > 1:
                        x = x + 2
                    if x.sum() > 0:
                        x = x * 2
                    return x
        """)})
        got = [(f.line, f.message) for f in lint([tmp_path / "m.py"], select=["INFER902"])]
    finally:
        registry.load_rules.cache_clear()
    assert got == [(15, "`if` on a tensor (computed in the graph): a Switch")]



def test_write_into_a_constant_tensor_is_a_divergence(tmp_path):
    # measured (tests/test_infer_mindspore.py): graph 6, 12, 18 over three calls, PyNative 6, 6, 6;
    # `ops.zeros(...)` is an op's output (agrees: MSG204); a name rebound to a new tensor first is no constant
    assert _codes(tmp_path, HEAD + """
class ConstantSum(nn.Cell):
    def construct(self, x):
        total = Tensor(0.0, ms.float32)
        for i in range(3):
            total += x[i].sum()
        return total


class Zeros(nn.Cell):
    def construct(self, x):
        y = ops.zeros((2,), ms.float32)
        y += x
        return y
""", select=("MSG2",)) == [(9, "MSG202"), (16, "MSG204")]

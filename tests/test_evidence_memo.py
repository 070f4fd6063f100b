"""The editor's per-statement memo of caller evidence (``evidence.outgoing(..., memo=)``,
filled from ``index.STATEMENT_MEMO``): a top-level ``def`` or ``class`` answered from the memo
gives exactly the sites a walk gives, before and after edits elsewhere in the module, and an
edit that changes what a kept statement depends on (a module-level binding before it, an
attribute of its class) walks it again."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from msgraphlint.project.evidence import outgoing
from msgraphlint.project.imports import ImportMap

REPO = Path(__file__).resolve().parent.parent

MODULE = textwrap.dedent('''
    import mindspore as ms
    from mindspore import Tensor, nn, ops
    from model import Gate, helper
    import model

    net = Gate()
    FLAG = True


    class Parent(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gate = Gate()

        def construct(self, x):
            return self.gate(x, 1)


    def train(ds):
        loss = nn.WithLossCell(Gate(), nn.MSELoss())
        step = nn.TrainOneStepCell(loss, None)
        for data in ds.create_tuple_iterator():
            step(data[0], data[1])
        g = ms.grad(Gate())
        g(Tensor([1.0]), 2)
        helper(Tensor([1]), FLAG)


    def main():
        other = Gate()
        other(ops.ones((2,)), True)
        net(Tensor([2.0]), 0)
        model.helper(ms.mutable(3), "x")


    if __name__ == "__main__":
        main()
''')


def _sites(text, memo=None, attrs=None):
    tree = ast.parse(text)
    imports = ImportMap.from_tree(tree, "train", False)
    if attrs is None:
        attrs = {"Parent": {"gate": "call:model.Gate"}}
    return [(s.target, s.via, tuple(s.args), tuple(sorted(s.kwargs.items())), s.rest)
            for s in outgoing(tree, imports, "train", attrs, text, memo)]


def test_kept_statements_give_the_sites_a_walk_gives():
    plain = _sites(MODULE)
    assert len(plain) >= 6  # the sample has sites to lose
    memo: dict = {}
    assert _sites(MODULE, memo) == plain   # filling the memo
    assert memo
    assert _sites(MODULE, memo) == plain   # every def and class answered from it


def test_an_edit_elsewhere_reuses_the_other_statements_and_walks_the_edited_one():
    memo: dict = {}
    _sites(MODULE, memo)
    edited = MODULE.replace("other(ops.ones((2,)), True)", "other(ops.ones((2,)), False)\n    print(1)")
    assert _sites(edited, memo) == _sites(edited)
    shifted = "\n\n# a comment that moves every line\n" + MODULE
    assert _sites(shifted, memo) == _sites(shifted)


def test_what_a_kept_statement_depends_on_is_in_its_key():
    memo: dict = {}
    _sites(MODULE, memo)
    # a module-level binding before `main`: `net` no longer holds a Gate
    rebound = MODULE.replace("net = Gate()", "net = None")
    assert _sites(rebound, memo) == _sites(rebound) != _sites(MODULE)
    # a module-level value before `train`: FLAG, which it passes on, becomes a tensor
    retyped = MODULE.replace("FLAG = True", "FLAG = Tensor([1.0])")
    assert _sites(retyped, memo) == _sites(retyped) != _sites(MODULE)
    # the class's attribute: `self.gate` holds something else
    other_attrs = {"Parent": {"gate": "call:model.Other"}}
    assert _sites(MODULE, memo, other_attrs) == _sites(MODULE, None, other_attrs) != _sites(MODULE)


def test_the_reference_model_and_fixtures_read_the_same_with_the_memo():
    paths = sorted((REPO / "reference_model").rglob("*.py")) + sorted((REPO / "fixtures").rglob("*.py"))[:200]
    memo: dict = {}
    checked = 0
    for p in paths:
        text = p.read_text(encoding="utf-8", errors="replace")
        try:
            plain = _sites(text, None, {})
        except SyntaxError:
            continue
        assert _sites(text, memo, {}) == plain, p
        assert _sites(text, memo, {}) == plain, p
        checked += 1
    assert checked > 20

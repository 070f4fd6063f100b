"""MSG101/MSG103's ``ops.where`` fixes are withheld when a branch's value can never be a
tensor (issue 27, found reading benchmarks/fix_corpora.py's hunks of mindone's idefics2):
``if not mint.any(~m): m = None else: m = prepare(m)`` became
``m = ops.where(not mint.any(~m), None, prepare(m))``, which raises TypeError in both modes
on MindSpore 2.10 CPU for every input (measured: "Failed calling Select with input=None"),
where the original returned None or the prepared mask. A `not` condition is a Python bool
in PyNative, and ``ops.where(not mint.any(~m), x * 2, x * 3)`` raises TypeError there
(measured: "Failed calling Select with condition=bool"; graph mode folds it): no fix either.
The findings stay; look-alikes whose values are tensors under a tensor condition keep the fix.
"""

from __future__ import annotations

from helpers import lint, write_tree

SRC = """
    import mindspore as ms
    from mindspore import nn, ops, mint


    class Net(nn.Cell):
        def construct(self, x, m):
            if not mint.any(~m):
                m = None
            else:
                m = m.astype(ms.float32) * 2
            if x.sum() > 0:
                y = x * 2
            else:
                y = x
            z = None if x.sum() > 0 else x
            w = x * 3 if x.sum() > 0 else x
            if not mint.any(~m):
                v = x * 2
            else:
                v = x * 3
            u = x * 2 if not mint.any(~m) else x
            if x.max() > 1:
                return y, "big"
            return y, z, w, m
"""


def _findings(tmp_path):
    write_tree(tmp_path, {"net.py": SRC})
    return {(f.code, f.line): f for f in lint([tmp_path / "net.py"], select=["MSG101", "MSG103"])}


def test_none_branch_gets_no_where_fix(tmp_path):
    found = _findings(tmp_path)
    assert ("MSG101", 7) in found and found[("MSG101", 7)].fix is None
    assert ("MSG103", 15) in found and found[("MSG103", 15)].fix is None


def test_not_condition_gets_no_where_fix(tmp_path):
    found = _findings(tmp_path)
    assert ("MSG101", 17) in found and found[("MSG101", 17)].fix is None
    assert ("MSG103", 21) in found and found[("MSG103", 21)].fix is None


def test_tensor_branches_keep_their_fix(tmp_path):
    found = _findings(tmp_path)
    assert found[("MSG101", 11)].fix is not None
    assert found[("MSG103", 16)].fix is not None

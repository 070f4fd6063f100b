"""The deprecation tier (issue 22 item 2): MSG513 and MSG620 on by default, one line naming
MindSpore's replacement, gated by the target, fixable where the rename is mechanical.

Facts measured on MindSpore 2.10 CPU (labeled fixtures api_pos_deprecated_*; the notes in
MSG513's rationale): `P.TensorAdd()` logs "'TensorAdd' is deprecated from version 1.1 ...
use 'Add' instead", `P.GatherV2()` "... use 'Gather' instead", `x.ptp(axis=1)`
"'Tensor.ptp' is deprecated from version 2.8.0 ...".
"""

from __future__ import annotations

from msgraphlint.fix.contract import apply_edits
from msgraphlint.engine.registry import default_codes, load_rules
from msgraphlint.rule import FixSafety

from helpers import codes_at, lint, write_tree

PRIMS = """
    import mindspore.ops.operations as P
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.add = P.TensorAdd()
            self.gather = P.GatherV2()
            self.expand = P.Expand()

        def construct(self, x, i):
            return self.add(self.gather(x, i, 0), x)
"""


def test_deprecations_are_on_by_default_as_one_tier():
    rules = load_rules()
    on = default_codes(rules)
    assert {"MSG513", "MSG620"} <= set(on)
    assert rules["MSG513"].rule_tier() == rules["MSG620"].rule_tier() == "deprecation"
    assert rules["MSG513"].severity == rules["MSG620"].severity
    assert "MSG511" not in on  # advice stays off


def test_deprecated_primitive_classes_are_reported_at_the_default(tmp_path):
    write_tree(tmp_path, {"m.py": PRIMS})
    found = lint([tmp_path / "m.py"])
    assert codes_at(found) == [("m.py", 7, "MSG513"), ("m.py", 8, "MSG513"), ("m.py", 9, "MSG513")]
    msgs = {f.line: f.message for f in found}
    assert msgs[7] == "`P.TensorAdd` is deprecated since 1.1: use `ops.Add`"
    assert {f.line: f.detail for f in found}[7] == "MindSpore 2.10 warns when it is used."
    assert msgs[8].endswith("use `ops.Gather`")
    assert all("\n" not in m for m in msgs.values())
    # MSG511 no longer repeats them as style advice, even when selected
    assert [f for f in lint([tmp_path / "m.py"], select=["ALL"]) if f.code == "MSG511"] == []


def test_rename_fixes_are_safe_only_for_the_same_signature(tmp_path):
    write_tree(tmp_path, {"m.py": PRIMS})
    found = {f.line: f for f in lint([tmp_path / "m.py"])}
    assert found[7].fix.safety is FixSafety.SAFE and found[7].fix.proof  # TensorAdd() -> Add(): same parameters
    assert found[8].fix.safety is FixSafety.UNSAFE                       # Gather adds batch_dims=
    assert found[9].fix is None                                          # BroadcastTo takes the shape at build
    text = (tmp_path / "m.py").read_text()
    fixed, _ = apply_edits(text, [found[7].fix.edits, found[8].fix.edits])
    assert "self.add = P.Add()" in fixed and "self.gather = P.Gather()" in fixed


def test_deprecated_tensor_methods_on_tensors_only(tmp_path):
    write_tree(tmp_path, {"m.py": """
        import numpy as np
        import mindspore as ms
        from mindspore import nn

        class Net(nn.Cell):
            def construct(self, x):
                return x.ptp(axis=1)

        t = ms.Tensor(np.ones((2, 3), np.float32))
        r = t.ptp(axis=1)
        s = t.scatter_mul
        a = np.ones((2, 3)).ptp(axis=1)
        b = a.ptp()
    """})
    found = lint([tmp_path / "m.py"])
    assert codes_at(found) == [("m.py", 7, "MSG513"), ("m.py", 10, "MSG513")]
    msgs = {f.line: f.message for f in found}
    assert msgs[7] == "`Tensor.ptp` is deprecated since 2.8.0: use `Tensor.max() - Tensor.min()`"
    assert lint([tmp_path / "m.py"], target="2.7.0") == []  # deprecated since 2.8.0


def test_one_line_per_finding_in_the_tier(tmp_path):
    write_tree(tmp_path, {"m.py": """
        import mindspore as ms
        from mindspore import ops
        ms.set_context(device_target="CPU", save_graphs=True)
        y = ops.batch_dot(a, b)
    """})
    found = lint([tmp_path / "m.py"])
    assert codes_at(found) == [("m.py", 3, "MSG620"), ("m.py", 3, "MSG620"), ("m.py", 4, "MSG513")]
    assert all("\n" not in f.message and f.hint is None for f in found)
    assert {f.line: f.message for f in found}[4] == (
        "`ops.batch_dot` is deprecated since 2.8.0: MindSpore names no replacement")

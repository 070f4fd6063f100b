"""MSG101-MSG104 (tensor-valued control flow): cross-module helpers and tricky look-alikes.

The single-file cases live in the rules' VALID/INVALID examples (tests/test_rule_examples.py).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Dict, List, Tuple

from msgraphlint.run.runner import run_paths


def _tree(root: Path, files: Dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _found(root: Path, select=("MSG1",)) -> List[Tuple[str, int, str]]:
    result = run_paths([str(root)], select=list(select))
    return sorted((os.path.basename(f.path), f.line, f.code)
                  for fr in result.files for f in fr.findings + fr.unused_suppressions)


def test_helper_in_another_module_is_reported_there_and_at_the_call(tmp_path):
    root = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": """
            from mindspore import ops

            def clip_if_large(x):
                if x.abs().max() > 2:
                    x = x / ops.abs(x).max() * 2
                return x

            def scale(x, flag):
                if flag:
                    return x * 2
                return x
        """,
        "pkg/model.py": """
            import mindspore.nn as nn
            from pkg.helpers import clip_if_large, scale

            class Net(nn.Cell):
                def construct(self, x):
                    y = clip_if_large(x * 3)
                    return scale(y, True) + 1
        """,
    })
    assert _found(root, select=("MSG1", "MSG004")) == [("helpers.py", 4, "MSG101"), ("model.py", 6, "MSG004")]


def test_jit_function_calling_a_helper_in_another_module(tmp_path):
    root = _tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/guards.py": """
            def check_positive(t):
                assert t.min() >= 0, "negative input"
                return t
        """,
        "pkg/step.py": """
            import mindspore as ms
            from pkg.guards import check_positive

            @ms.jit
            def step(x):
                y = check_positive(x * x)
                return y if y.ndim == 2 else y.reshape(-1, 1)
        """,
    })
    assert _found(root, select=("MSG1", "MSG004")) == [("guards.py", 2, "MSG104"), ("step.py", 6, "MSG004")]


def test_compile_time_look_alikes_stay_clean(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import ops

            class PatchEmbed(nn.Cell):
                def construct(self, x):
                    b, c, h, w = x.shape
                    return x.reshape(b, c, h * w).transpose(0, 2, 1), h, w

            class Net(nn.Cell):
                def __init__(self, num_patches=16, use_bias=False):
                    super().__init__()
                    self.embed = PatchEmbed()
                    self.shape = ops.Shape()
                    self.num_patches = num_patches
                    self.use_bias = use_bias
                    self.skip = False
                    self.layers = nn.CellList([nn.Dense(8, 8) for _ in range(2)])
                    self.limit = ms.Tensor(0.5, ms.float32)

                def construct(self, x, mask=None, bias=None):
                    x, H, W = self.embed(x)
                    if H * W == self.num_patches:
                        x = x * 2
                    shape = self.shape(x)
                    if shape[0] > 1 and self.training:
                        x = x + 1
                    if len(x.shape) == 3 and x.dtype == ms.float32 and isinstance(x, ms.Tensor):
                        x = x * 0.5
                    if mask is not None and not self.skip:
                        x = x * mask
                    if bias is None or self.use_bias:
                        x = x + 0
                    if self.limit > 1.0 or (self.limit * 2).sum() > 3.0:
                        x = x * 3
                    for layer in self.layers:
                        x = layer(x)
                    i = 0
                    while i < 2:
                        x = x + x
                        i += 1
                    assert x.ndim == 3, "expects (B, N, C)"
                    y = x if mask is None else x * mask
                    z = self.use_bias and bias
                    return y, z
        """,
    })
    assert _found(root) == []


def test_tensor_decides_inside_a_compound_condition(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore.nn as nn
            from mindspore import ops

            class Net(nn.Cell):
                def construct(self, x):
                    if self.training and x.sum() > 0:
                        x = x * 2
                    c = (x.max() > 1) or (x.min() < -1)
                    if (x > -10).all() and (x < 10).all():
                        x = x + 1
                    y = x if not (x.mean() > 0) else -x
                    return ops.where(c, y, -y)
        """,
    })
    # one finding per statement: the `and` of the second `if` and the `not` inside the
    # ternary are reported by the statement's rule only
    assert _found(root) == [("net.py", 6, "MSG101"), ("net.py", 8, "MSG103"), ("net.py", 9, "MSG101"),
                            ("net.py", 11, "MSG103")]


def test_bare_parameter_needs_tensor_evidence(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore.nn as nn

            class Flag(nn.Cell):
                def construct(self, x, use_bias, n):
                    if use_bias:
                        x = x + 1
                    if n > 0:
                        x = x * 2
                    return x

            class Gate(nn.Cell):
                def construct(self, x, gate):
                    if gate:
                        x = x * 2
                    return x * gate.astype(x.dtype)
        """,
    })
    # `gate` is used as a tensor (`gate.astype`), so `if gate:` is a tensor branch; `use_bias`
    # and `n` could be either kind: MSG105 (informational) says both outcomes, once per parameter
    assert _found(root) == [("net.py", 5, "MSG105"), ("net.py", 7, "MSG105"), ("net.py", 13, "MSG101")]


def test_parameter_counter_is_a_tensor_branch(tmp_path):
    root = _tree(tmp_path, {
        "wrapper.py": """
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Parameter, Tensor

            class Accumulate(nn.Cell):
                def __init__(self, net):
                    super().__init__()
                    self.net = net
                    self.step = Parameter(Tensor(0, ms.int32), name="step")

                def construct(self, x):
                    loss = self.net(x)
                    if self.step % 4 == 0:
                        loss = loss * 2
                    return loss
        """,
    })
    assert _found(root) == [("wrapper.py", 13, "MSG101")]


def test_suppression(tmp_path):
    root = _tree(tmp_path, {
        "net.py": """
            import mindspore.nn as nn

            class Net(nn.Cell):
                def construct(self, x):
                    while x.abs().max() > 10:  # noqa: MSG102
                        x = x / 2
                    return x
        """,
    })
    assert _found(root) == []


def test_conditions_on_tensor_literals_are_folded_but_loop_variables_are_not():
    # measured on 2.10: `a and b` over literal tensors and `if a > 0` on one compile with no
    # Switch (control_flow_neg_join_constant_tensors_and); a `while` on a literal counter and
    # an `if` on a name the loop rebinds compile to Switches
    from msgraphlint.api import check_source
    src = textwrap.dedent("""
        import mindspore as ms
        from mindspore import Tensor

        @ms.jit
        def fn(x):
            a = Tensor([1])
            b = Tensor([2.0])
            if a > 0:
                x = x * (a and b)
            i = Tensor(0)
            while i < 3:
                if i % 2 == Tensor(0):
                    x = x + 1
                i = i + 1
            return x
    """).lstrip("\n")
    found = sorted((f.line, f.code) for f in check_source(src, select=["MSG101", "MSG102", "MSG103"]))
    assert found == [(11, "MSG102"), (12, "MSG101")]

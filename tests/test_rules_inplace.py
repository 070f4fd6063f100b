"""MSG202–MSG206 (rules/inplace.py): fixes, cross-module helpers, and the alias analysis
on the shapes of real code that single-file examples do not cover."""

from __future__ import annotations

import textwrap

import pytest

from msgraphlint.findings import FixSafety
from msgraphlint.engine.registry import load_rules
from msgraphlint.run.runner import run_paths

CODES = ["MSG202", "MSG203", "MSG204", "MSG205", "MSG206"]


def apply_fix(source: str, fix) -> str:
    """Apply a Fix's edits (1-based lines, 0-based columns) to ``source``; edits are
    applied from the last to the first so earlier positions stay valid."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col

    out = source
    for e in sorted(fix.edits, key=lambda e: (e.line, e.col), reverse=True):
        out = out[:offset(e.line, e.col)] + e.text + out[offset(e.end_line, e.end_col):]
    return out


def lint(tmp_path, files, select=CODES, main="model.py"):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    result = run_paths([str(tmp_path)], select=select, config_file=None)
    return sorted((f for fr in result.files for f in fr.findings), key=lambda f: (f.path, f.line, f.code))


def one(tmp_path, code, select=CODES):
    return lint(tmp_path, {"model.py": code}, select=select)


def codes_at(findings):
    return [(f.line, f.code) for f in findings]


# --------------------------------------------------------------------------- fixes
@pytest.mark.parametrize("code", ["MSG202", "MSG204"])
def test_embedded_expected_fixes(tmp_path, code):
    rule = load_rules()[code]
    checked = 0
    for ex in rule.INVALID:
        if ex.fixed_source is None:
            continue
        (tmp_path / code).mkdir(exist_ok=True)
        found = lint(tmp_path / code, {"example.py": ex.source}, select=[code])
        fixes = [f.fix for f in found if f.fix is not None]
        assert len(fixes) == 1, found
        assert apply_fix(ex.source, fixes[0]) == ex.fixed_source
        checked += 1
    assert checked


def _fix_of(tmp_path, body):
    header = ("import mindspore.nn as nn\n"
              "from mindspore import ops\n"
              "\n"
              "class Net(nn.Cell):\n"
              "    def construct(self, x, y):\n")
    src = header + textwrap.indent(textwrap.dedent(body).lstrip("\n"), " " * 8)
    found = [f for f in lint(tmp_path, {"model.py": src}) if f.fix is not None]
    assert len(found) == 1, found
    return found[0], apply_fix(src, found[0].fix), src


def test_fix_parenthesises_a_compound_right_side(tmp_path):
    f, fixed, _ = _fix_of(tmp_path, """
        h = ops.relu(x)
        h -= y - 1
        return h
    """)
    assert f.code == "MSG204"
    assert "h = h - (y - 1)\n" in fixed
    assert f.fix.safety is FixSafety.UNSAFE  # y's dtype is unknown: `h - y` may promote


def test_fix_is_safe_for_an_integer_literal(tmp_path):
    f, fixed, _ = _fix_of(tmp_path, """
        h = ops.relu(x)
        h *= 2
        return h
    """)
    assert (f.code, f.fix.safety) == ("MSG204", FixSafety.SAFE)
    assert "h = h * 2\n" in fixed


def test_fix_is_unsafe_for_a_float_literal(tmp_path):
    # measured: `y += 1.5` on an int32 tensor keeps int32 in graph mode, `y = y + 1.5` is float32
    f, fixed, _ = _fix_of(tmp_path, """
        h = ops.relu(x)
        h += 1.5
        return h
    """)
    assert (f.code, f.fix.safety) == ("MSG204", FixSafety.UNSAFE)
    assert "h = h + 1.5\n" in fixed


def test_fix_on_an_input_is_unsafe(tmp_path):
    f, fixed, _ = _fix_of(tmp_path, """
        x += 1
        return x
    """)
    assert (f.code, f.fix.safety) == ("MSG202", FixSafety.UNSAFE)
    assert "x = x + 1\n" in fixed
    assert "caller's tensor" in f.full_message


def test_no_fix_for_a_multi_line_right_side(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x):
                h = ops.relu(x)
                h += ops.relu(
                    x)
                return h
    """)
    assert codes_at(found) == [(7, "MSG204")]
    assert found[0].fix is None


# --------------------------------------------------------------------------- cross-module helpers
def test_helper_in_another_module_writes_into_the_argument(tmp_path):
    found = lint(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": """
            from mindspore import ops

            def bump(t):
                t += 1
                return t

            def zero_first(t):
                y = ops.relu(t)
                y[:, 0] = 0
                return y
        """,
        "pkg/model.py": """
            import mindspore.nn as nn
            from .helpers import bump, zero_first

            class Net(nn.Cell):
                def construct(self, x):
                    return bump(x) + zero_first(x)
        """,
    })
    helper = [f for f in found if f.path.endswith("helpers.py")]
    assert codes_at(helper) == [(4, "MSG202"), (9, "MSG203")]
    assert "argument `t`" in helper[0].message
    assert helper[0].chain and "Net.construct" in helper[0].chain[0]
    assert not [f for f in found if f.path.endswith("model.py")]  # no call-site copies


# --------------------------------------------------------------------------- the alias analysis
def test_alias_made_after_a_subscript_write_sees_the_new_value(tmp_path):
    # mindcv xcit.py: `x_res = x` after `x[:, 0:1] = ...` holds the written tensor in both modes
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x):
                x = x * 2
                x[:, 0:1] = ops.relu(x[:, 0:1])
                x_res = x
                x = ops.concat((x[:, :1], x[:, 1:]), axis=1)
                return x_res + x
    """)
    assert codes_at(found) == [(7, "MSG203")]


def test_alias_made_before_the_write_and_read_after_diverges(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, x):
                y = x * 2
                z = y
                y += 1
                return z + 0
    """)
    assert codes_at(found) == [(7, "MSG202")]
    assert "`z`" in found[0].message


def test_alias_not_read_after_the_write_is_only_a_cost(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, x):
                y = x * 2
                z = y
                out = z * 3
                y += 1
                return y + out
    """)
    assert codes_at(found) == [(8, "MSG204")]


def test_read_earlier_in_the_same_loop_counts(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, x):
                acc = x * 0
                total = x * 0
                for _ in range(3):
                    total = total + acc
                    acc.add_(1.0)
                return total
    """)
    assert codes_at(found) == [(9, "MSG202")]


def test_rebound_input_is_a_local(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(8, 8)

            def construct(self, x, residual):
                x = self.fc(x)
                x += residual
                return x
    """)
    assert codes_at(found) == [(10, "MSG204")]


def test_input_reached_through_a_branch_is_still_an_input(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, x, flag: bool = True):
                if flag:
                    y = x
                else:
                    y = x * 2
                y += 1
                return y
    """)
    assert codes_at(found) == [(9, "MSG202")]
    assert "holds construct input `x`" in found[0].message


def test_swap_does_not_confuse_the_origins(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def construct(self, x):
                a = x * 1
                b = x * 2
                a, b = b, a
                b += 1
                return b
    """)
    assert codes_at(found) == [(8, "MSG204")]


# --------------------------------------------------------------------------- not flagged
def test_list_of_tensors_argument_is_not_a_tensor(tmp_path):
    # mindocr fpn.py / hrnet.py: `features: List[Tensor]` is a Python list
    found = one(tmp_path, """
        from typing import List
        import mindspore.nn as nn
        from mindspore import Tensor

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.convs = nn.CellList([nn.Dense(8, 8), nn.Dense(8, 8)])

            def construct(self, features: List[Tensor]) -> Tensor:
                for i, conv in enumerate(self.convs):
                    features[i] = conv(features[i])
                features[0] += features[1]
                return features[0]
    """)
    assert found == []


def test_parameter_updates_through_aliases_and_primitives_are_fine(tmp_path):
    found = one(tmp_path, """
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor, ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ms.Parameter(Tensor(np.zeros((4, 8), np.float32)), name="w")
                self.assign_add = ops.AssignAdd()

            def construct(self, x):
                p = self.w
                self.assign_add(self.w, x)
                ops.assign(p, x)
                return x * 2
    """)
    # (`p += x` through the alias is not fine: graph mode writes the Parameter, PyNative does
    # not, measured in tests/test_infer_mindspore.py; MSG202 reports it, tests/test_infer.py)
    assert found == []


def test_inplace_method_on_a_parameter_diverges(tmp_path):
    """Measured on 2.10 CPU (fixtures/labeled/inplace_pos_parameter_add_method): graph mode
    applies `self.w.add_(1.0)`, PyNative leaves the Parameter unchanged."""
    found = one(tmp_path, """
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ms.Parameter(Tensor(np.zeros((4, 8), np.float32)), name="w")

            def construct(self, x):
                self.w.add_(1.0)
                return x * 2
    """)
    assert [(f.code, f.line) for f in found] == [("MSG202", 12)]


def test_mask_bound_to_a_name_and_logical_combination(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x):
                y = ops.relu(x)
                keep = ops.logical_and(x > 0, x < 1)
                y[keep] = 0.0
                y[~(x > 2)] = 1.0
                return y
    """)
    assert found == []


def test_integer_index_on_a_local_is_a_scatter(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x, idx):
                y = ops.relu(x)
                y[idx] = 0.0
                return y
    """)
    assert codes_at(found) == [(7, "MSG203")]


def test_assign_primitive_held_by_a_same_file_base_class(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        class Base(nn.Cell):
            def __init__(self):
                super().__init__()
                self.assign = ops.Assign()

        class Net(Base):
            def construct(self, x):
                y = x * 2
                self.assign(y, x)
                return y
    """)
    assert codes_at(found) == [(12, "MSG206")]
    assert "Assign()" in found[0].message


# --------------------------------------------------------------------------- measured per-method behaviour
def test_methods_by_measured_behaviour(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x):
                a = ops.relu(x)
                a.sub_(1.0)
                b = ops.relu(x)
                c = b.div_(2.0)
                d = ops.relu(x)
                d.masked_fill_(d > 1, 0.0)
                e = ops.relu(x)
                e.floor_divide_(2.0)
                return a + c + d + e
    """, select=CODES + ["MSG212"])
    # sub_: dropped in both modes (agree) -> nothing; div_ result only -> cost (MSG205);
    # masked_fill_: no CPU kernel (MSG212); floor_divide_ then read -> diverges (MSG202)
    assert codes_at(found) == [(9, "MSG205"), (11, "MSG212"), (13, "MSG202")]


def test_unmeasured_inplace_names_are_not_flagged(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x):
                y = ops.relu(x)
                y.requires_grad_(False)
                y.some_future_method_(1)
                return y
    """, select=CODES + ["MSG212"])
    assert found == []

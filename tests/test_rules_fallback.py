"""MSG401-MSG404 (interpreter fallback, non-native helpers) on multi-file projects and edge cases."""

from __future__ import annotations

import json
import os

import pytest

from helpers import codes_at, lint, write_tree

FALLBACK = ["MSG401", "MSG402", "MSG403", "MSG404", "MSG405"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _lint(tmp_path, files, select=FALLBACK):
    write_tree(tmp_path, files)
    return lint([tmp_path], select=select, config_file=None)


def test_cross_module_helper_reported_at_helper_and_call_site(tmp_path):
    found = _lint(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            import numpy as np

            def to_np(x):
                return x.asnumpy()
        """,
        "pkg/model.py": """
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor
            import numpy as np

            from .utils import to_np

            class Net(nn.Cell):
                def construct(self, x):
                    y = Tensor(np.tanh(to_np(x)), ms.float32)
                    return y + 1
        """,
    }, select=FALLBACK + ["MSG004"])
    assert codes_at(found) == [("model.py", 10, "MSG004"), ("utils.py", 4, "MSG401")]
    site = next(f for f in found if f.path.endswith("model.py"))
    assert "`to_np()` reaches MSG401" in site.full_message and "utils.py:4" in site.full_message
    assert site.origin[0] == "MSG401" and site.origin[2] == 4
    helper = next(f for f in found if f.path.endswith("utils.py"))
    assert any("Net.construct" in link for link in helper.chain)


def test_helper_two_calls_deep_in_another_module(tmp_path):
    found = _lint(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops_util.py": """
            def host_norm(t):
                return t.asnumpy().sum()

            def scale(t):
                return t / host_norm(t)
        """,
        "pkg/net.py": """
            import mindspore.nn as nn
            from pkg.ops_util import scale

            class Net(nn.Cell):
                def construct(self, x):
                    return scale(x)
        """,
    }, select=FALLBACK + ["MSG004"])
    assert ("ops_util.py", 2, "MSG401") in codes_at(found)
    assert ("net.py", 6, "MSG004") in codes_at(found)


def test_helper_not_reached_from_graph_code_is_not_reported(tmp_path):
    found = _lint(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            def to_np(x):
                return x.asnumpy()
        """,
        "pkg/train.py": """
            import mindspore.nn as nn
            from .utils import to_np

            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2

            def evaluate(net, x):
                return to_np(net(x))
        """,
    })
    assert found == []


def test_same_file_helper_param_kind_comes_from_the_call(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import math
        import mindspore.nn as nn

        def scaled(t, dim):
            return t / math.sqrt(dim)

        def host_scale(t):
            return float(t.max())

        class Net(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.dim = dim

            def construct(self, x):
                return scaled(x, self.dim) * host_scale(x)
    """})
    # math.sqrt(dim) gets a constant: fine; float(t) gets a tensor: reported, once (a helper in
    # the same file is not repeated at its call: MSG004 is for calls from other files)
    assert codes_at(found) == [("m.py", 8, "MSG403")]


@pytest.mark.parametrize("src", [
    "return x * float(self.scale)",
    "return x * int(x.shape[0])",
    "return x / math.sqrt(self.head_dim)",
    "return x * np.float32(1.0)",
    "return x + Tensor(np.ones((2, 4)), ms.float32)",
    "return x * math.log(x.shape[-1])",
    "return x * len(x)",
    "return ops.tanh(x)",
    "return x * bool(self.use_bias)",
    "return x * np.sqrt(self.head_dim) * math.pi",
])
def test_constants_are_not_reported(tmp_path, src):
    found = _lint(tmp_path, {"m.py": f"""
        import math
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor, ops

        class Net(nn.Cell):
            def __init__(self, head_dim=64, scale=2, use_bias=True):
                super().__init__()
                self.head_dim = head_dim
                self.scale = scale
                self.use_bias = use_bias

            def construct(self, x):
                {src}
    """})
    assert found == []


@pytest.mark.parametrize("src,code", [
    ("return x * x.max().item()", "MSG403"),
    ("return x * int(x.sum())", "MSG403"),
    ("return x * bool((x > 0).any())", "MSG403"),
    ("return x * math.exp(x.mean().item())", "MSG402"),
    ("return x * len(str(x.sum()))", "MSG401"),
    ("return Tensor(np.tanh(x.asnumpy()))", "MSG401"),
    ("return x * len(x.tolist())", "MSG401"),
    ("return np.tanh(x)", "MSG402"),
    ("return math.sqrt(x.sum())", "MSG402"),
    ("return scipy.special.erf(x)", "MSG402"),
    ("return np.sum(self.w) * x", "MSG402"),
])
def test_tensor_values_into_python_are_reported(tmp_path, src, code):
    found = _lint(tmp_path, {"m.py": f"""
        import math
        import numpy as np
        import scipy.special
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor, Parameter

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.ones((4,), np.float32)))

            def construct(self, x):
                {src}
    """})
    assert [(f.line, f.code) for f in found] == [(14, code)]


def test_asnumpy_on_unknown_receiver_but_not_on_numpy_values(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import numpy as np
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.table = (1.0, 2.0)

            def construct(self, x, extra):
                a = extra.asnumpy()       # unknown receiver (construct input): reported
                b = np.tanh(a)            # host value: reported once, at the .asnumpy()
                c = b.tolist()            # NumPy's tolist: not a tensor
                return x * len(c)
    """})
    assert [(f.line, f.code) for f in found] == [(10, "MSG401")]


def test_message_names_the_native_replacement(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor

        class Net(nn.Cell):
            def construct(self, x):
                a = Tensor(np.clip(x.asnumpy(), 0, 1), ms.float32)
                return np.concatenate([x, a])
    """})
    by_line = {f.line: f for f in found}
    assert "ops.clamp(x)" in by_line[8].hint
    assert by_line[9].code == "MSG402" and "ops.cat" in by_line[9].hint
    assert "PyExecute" in by_line[8].full_message and "STRICT" in by_line[8].full_message


def test_third_party_tokenizer_and_cv2(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import cv2
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor
        from transformers import AutoTokenizer
        from mylib.layers import drop_path

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.tok = AutoTokenizer.from_pretrained("gpt2")
                self.pad = self.tok.pad_token_id

            def construct(self, ids, img):
                text = self.tok.decode(ids)
                small = cv2.resize(img, (8, 8))
                k = self.tok.convert_tokens_to_ids("a")
                return drop_path(small, 0.1), text, k
    """})
    assert [(f.line, f.code) for f in found] == [(15, "MSG404"), (16, "MSG404")]
    assert "transformers" in found[0].full_message and "cv2" in found[1].full_message


def test_jit_function_and_helper_in_jit(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import numpy as np
        import mindspore as ms
        from mindspore import Tensor

        def norm(t):
            return float(t.abs().max())

        @ms.jit
        def step(x):
            y = Tensor(np.exp(x.asnumpy()), ms.float32)
            return y / norm(x)

        def plain(x):
            return x.asnumpy()
    """})
    # norm's float() is reported in norm (the same file: not repeated at its call on line 11)
    assert codes_at(found) == [("m.py", 6, "MSG403"), ("m.py", 10, "MSG401")]


def test_shadowed_builtins_and_local_functions_are_not_reported(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x, float=None):
                def item(t):
                    return t
                return item(x) * 2
    """})
    assert found == []


def test_fallback_map_data_is_well_formed():
    with open(os.path.join(ROOT, "msgraphlint", "data", "fallback_map.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    assert data["mindspore_version"].startswith("2.10")
    reps = data["replacements"]
    assert reps["numpy.tanh"] == "ops.tanh" and reps["math.sqrt"] == "ops.sqrt"
    assert all(k.split(".")[0] in ("numpy", "math", "scipy", "random") for k in reps)
    assert {"numpy", "scipy", "math", "random", "PIL", "sklearn", "torch"} <= set(data["interpreted_modules"])
    assert {"transformers", "tokenizers", "cv2"} <= set(data["host_packages"])


@pytest.mark.mindspore
def test_fallback_map_targets_exist_in_installed_mindspore(tmp_path):
    """Regenerating the data against the installed MindSpore checks every replacement target
    (the script fails on a missing one) and must reproduce the committed file."""
    import subprocess
    import sys

    python = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable
    path = os.path.join(ROOT, "msgraphlint", "data", "fallback_map.json")
    with open(path, encoding="utf-8") as fh:
        before = fh.read()
    proc = subprocess.run([python, os.path.join(ROOT, "scripts", "gen_fallback_data.py")],
                          capture_output=True, text=True, timeout=300, cwd=str(tmp_path),
                          env={**os.environ, "GLOG_v": "3"})
    with open(path, encoding="utf-8") as fh:
        after = fh.read()
    if after != before:  # restore what was committed before failing
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(before)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert after == before, "msgraphlint/data/fallback_map.json is stale: run scripts/gen_fallback_data.py"


def test_cross_module_helper_parameter_kinds_come_from_the_call_in_construct(tmp_path):
    files = {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            import math

            def residual_scale(t):
                return 1.0 / float(t.abs().max())

            def inv_sqrt(d):
                return 1.0 / math.sqrt(d)
        """,
        "pkg/layer.py": """
            import mindspore.nn as nn
            from .utils import residual_scale, inv_sqrt

            class Layer(nn.Cell):
                def __init__(self, head_dim=64):
                    super().__init__()
                    self.head_dim = head_dim

                def construct(self, x):
                    return x * residual_scale(x) * inv_sqrt(self.head_dim)
        """,
    }
    found = _lint(tmp_path, files, select=FALLBACK + ["MSG004"])
    assert codes_at(found) == [("layer.py", 10, "MSG004"), ("utils.py", 4, "MSG403")]
    # the same helper given a constant is fine
    files["pkg/layer.py"] = files["pkg/layer.py"].replace("residual_scale(x)", "residual_scale(self.head_dim)")
    found = _lint(tmp_path, files, select=FALLBACK + ["MSG004"])
    assert found == []


def test_cross_module_hint_is_part_of_the_cache_key(tmp_path):
    from msgraphlint.run.runner import run_paths

    files = {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            def to_float(t):
                return float(t.max())
        """,
        "pkg/layer.py": """
            import mindspore.nn as nn
            from .utils import to_float

            class Layer(nn.Cell):
                def construct(self, x):
                    return x * to_float(x)
        """,
    }
    write_tree(tmp_path / "proj", files)
    cache = str(tmp_path / "cache")

    def run():
        res = run_paths([str(tmp_path / "proj")], select=FALLBACK, config_file=None, cache=True, cache_dir=cache)
        return codes_at([f for fr in res.files for f in fr.findings])

    assert ("utils.py", 2, "MSG403") in run()
    files["pkg/layer.py"] = files["pkg/layer.py"].replace("to_float(x)", "to_float(3)")
    write_tree(tmp_path / "proj", files)
    assert run() == []


@pytest.mark.parametrize("src", [
    "return x * float(1 / mint.sqrt(mint.sqrt(ms.tensor(x.shape[-1], dtype=ms.float32))))",
    "return x * ops.sqrt(Tensor(2.0)).item()",
    "return x * int(ops.prod(Tensor(x.shape)))",
])
def test_tensors_built_from_constants_are_folded(tmp_path, src):
    found = _lint(tmp_path, {"m.py": f"""
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor, ops, mint

        class Net(nn.Cell):
            def construct(self, x):
                {src}
    """})
    assert found == []


@pytest.mark.parametrize("body,effect", [
    ("n = int(x.max())\nreturn ops.zeros((n, 2), ms.float32)\n", "dynamic-shape"),
    ("y = x\nfor i in range(int(x.max())):\n    y = y + 1\nreturn y\n", "Switch-based"),
    ("n = x.sum().item()\nreturn x[:, :n]\n", "slice bound"),
    ("if float(x.sum()) > 0:\n    return x * 2\nreturn x\n", "condition"),
    ("k = int(x.argmax())\nreturn x.reshape(k, -1)\n", "dynamic-shape"),
    ("s = x.sum().item()\nreturn x * s\n", ""),
])
def test_host_sync_message_names_what_the_scalar_costs(tmp_path, body, effect):
    import textwrap
    src = ("import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore import ops\n\n"
           "class Net(nn.Cell):\n    def construct(self, x):\n" + textwrap.indent(body, "        "))
    found = _lint(tmp_path, {"m.py": src})
    assert [f.code for f in found] == ["MSG403"]
    assert "TensorToScalar" in found[0].full_message
    if effect:
        assert effect in found[0].full_message
    else:
        assert found[0].full_message.endswith("mid-graph.")


def test_bare_construct_parameters_are_not_assumed_tensors_for_int(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import mindspore.nn as nn
        from mindspore import Tensor

        class PosEmbed(nn.Cell):
            def construct(self, x, H, W, n: Tensor):
                y = x.reshape(int(H), int(W), -1)
                return y * int(n)
    """})
    assert [(f.line, f.code) for f in found] == [(7, "MSG403")]


def test_cell_list_indexed_by_a_scalar_from_a_tensor(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import mindspore.nn as nn

        class MoE(nn.Cell):
            def __init__(self):
                super().__init__()
                self.experts = nn.CellList([nn.Dense(4, 4), nn.Dense(4, 4)])

            def construct(self, x, route, k):
                a = self.experts[int(route.argmax())](x)
                idx = route.argmin().item()
                b = self.experts[idx](x)
                c = self.experts[k](x)          # the tensor itself: selected correctly
                d = self.experts[0](x)
                for i in range(2):
                    d = d + self.experts[i](x)
                return a + b + c + d
    """})
    codes = [(f.line, f.code) for f in found]
    assert (9, "MSG405") in codes and (11, "MSG405") in codes
    assert (9, "MSG403") not in codes and (10, "MSG403") not in codes  # one finding per defect
    assert not any(line in (12, 13, 15) for line, _ in codes)
    assert "first Cell" in next(f for f in found if f.code == "MSG405").full_message


def test_local_list_methods_that_fall_back(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = []

            def construct(self, x):
                parts = [x]
                parts.append(x * 2)
                parts.extend([x * 3])
                parts.insert(0, x - 1)
                more = list(parts)
                more.reverse()
                self.buf.extend([x])      # a self. list: MSG207's business
                d = {"a": x}
                v = d.pop("a")            # a dict: not a list method
                return ops.concat(parts + more, 1) + v
    """}, select=["MSG406"])
    assert [f.line for f in found] == [12, 13, 15]


def test_string_dispatched_branches_describe_one_configuration(tmp_path):
    """benchmarks/results/false_positives.md FP-3a: MindSpore compiles only the configured
    branch of `if output_type == "np":` (measured 0 PyExecute with "ms", 9 with "np")."""
    found = _lint(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/emb.py": """
            import numpy as np
            from mindspore import Tensor

            def sincos_np(embed_dim, pos):
                return Tensor(np.einsum("m,d->md", pos, np.arange(embed_dim, dtype=np.float32)))

            def sincos(embed_dim, pos, output_type="np"):
                if output_type == "np":
                    return sincos_np(embed_dim, pos)
                return pos * 2

            def direct(embed_dim, pos, output_type="np"):
                if output_type == "np":
                    return Tensor(np.einsum("m,d->md", pos, np.arange(embed_dim, dtype=np.float32)))
                return pos * 2
        """,
        "pkg/net.py": """
            from mindspore import nn
            from .emb import sincos, direct

            class Net(nn.Cell):
                def __init__(self, output_type="ms"):
                    super().__init__()
                    self.output_type = output_type

                def construct(self, x):
                    pos = x.reshape(-1)[:4]
                    return sincos(4, pos, output_type=self.output_type) + direct(4, pos, self.output_type)
        """,
    })
    assert found == []


def test_sub_cell_size_arguments_are_not_tensors(tmp_path):
    """benchmarks/results/false_positives.md FP-2: a head's `patch_height` is a Python int."""
    found = _lint(tmp_path, {"m.py": """
        from mindspore import nn, mint

        class Head(nn.Cell):
            def __init__(self, patch_size=2):
                super().__init__()
                self.patch_size = patch_size

            def construct(self, hidden_states, patch_height, patch_width):
                return mint.nn.functional.interpolate(
                    hidden_states, (int(patch_height * self.patch_size), int(patch_width * self.patch_size)))
    """})
    assert found == []


def test_framework_type_dispatch_narrows_the_kind(tmp_path):
    """mindone's image_transforms: `if is_mindspore_tensor(b): return ms_version(b)` then a NumPy
    path; `if isinstance(v, np.ndarray): np...`. MindSpore resolves the type test at compile
    time; the NumPy branch is never compiled for a tensor."""
    found = _lint(tmp_path, {"m.py": """
        import numpy as np
        import mindspore as ms
        from mindspore import nn, mint

        def is_mindspore_tensor(x):
            return isinstance(x, ms.Tensor)

        def to_corners_np(b):
            cx, cy = b.T
            return np.stack([cx - 1, cy - 1], axis=-1)

        def to_corners(b):
            if is_mindspore_tensor(b):
                return mint.stack([b[..., 0] - 1, b[..., 1] - 1], dim=-1)
            return to_corners_np(b)

        def scale(v):
            if isinstance(v, np.ndarray):
                return np.sqrt(v)
            if not isinstance(v, ms.Tensor):
                return np.sqrt(v)
            return mint.sqrt(v)

        class Net(nn.Cell):
            def construct(self, x):
                return to_corners(x) + scale(x) + np.sqrt(x)
    """})
    assert [(f.line, f.code) for f in found] == [(26, "MSG402")]


def test_sub_cell_window_size_tuple_through_locals(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        from mindspore import nn, mint

        class RelPosBias(nn.Cell):
            def construct(self, window_size, table):
                new_height = 2 * window_size[0] - 1
                new_width = 2 * window_size[1] - 1
                sub = table.reshape(1, 3, 3, -1)
                resized = mint.nn.functional.interpolate(sub, size=(int(new_height), int(new_width)))
                n = table.sum()
                return resized, int(n)
    """})
    assert [(f.line, f.code) for f in found] == [(10, "MSG403")]


def test_mindspore_op_over_values_of_unknown_kind_is_not_a_tensor_source(tmp_path):
    found = _lint(tmp_path, {"m.py": """
        from mindspore import nn, mint

        class Attn(nn.Cell):
            def __init__(self, config):
                super().__init__()
                window = config.attention_window[0]
                self.w = window // 2

            def construct(self, hidden_states):
                batch, seq_len, dim = hidden_states.shape
                n_chunks = 2 * mint.div(seq_len, self.w * 2, rounding_mode="trunc").item() - 1
                t = mint.div(hidden_states.sum(), 2)
                return hidden_states.reshape(batch, n_chunks, -1), t.item()
    """})
    assert [(f.line, f.code) for f in found] == [(13, "MSG403")]


def test_numpy_of_constants_is_folded_through_a_local(tmp_path):
    """NumPy of compile-time values runs while the graph is compiled. Measured on 2.10 CPU
    (validate IR): `x = np.arange(15).reshape(3, 5); y = Tensor(np.array(x)).asnumpy()`
    returning `y.shape` has no PyExecute node (MindSpore's test_tensor_asnumpy_2); returning
    `y` has one; the same over `t.asnumpy()` of an input has 30 mentions."""
    from msgraphlint.run.runner import run_paths

    (tmp_path / "m.py").write_text(
        "import numpy as np\nimport mindspore as ms\nfrom mindspore import Tensor\n\n\n"
        "class Shape(ms.nn.Cell):\n    def construct(self):\n        x = np.arange(15).reshape(3, 5)\n"
        "        y = Tensor(np.array(x)).asnumpy()\n        return y.shape\n\n\n"
        "class Value(ms.nn.Cell):\n    def construct(self):\n        x = np.arange(15).reshape(3, 5)\n"
        "        y = Tensor(np.array(x)).asnumpy()\n        return y\n\n\n"
        "class FromInput(ms.nn.Cell):\n    def construct(self, t):\n"
        "        y = Tensor(np.array(t.asnumpy())).asnumpy()\n        return y.shape\n\n\n"
        "class Rebound(ms.nn.Cell):\n    def construct(self, t):\n        x = np.arange(3)\n        for x in t:\n"
        "            pass\n        return Tensor(np.array(x)).asnumpy()\n\n\n"
        "def main():\n    print(Shape()(), Value()(), FromInput()(Tensor(np.ones((2, 2)))), Rebound()(Tensor([1.0])))\n",
        encoding="utf-8")
    found = [f for fr in run_paths([str(tmp_path)], select=["MSG401"]).files for f in fr.findings]
    by_line = {f.line: f.full_message for f in found}
    assert sorted(by_line) == [16, 22, 31], by_line  # (Rebound: `x` is also a loop target: not followed)
    assert "the constant tensor is folded" in by_line[16] and "its NumPy value is returned from the graph" in by_line[16]
    assert "pulls tensor data into Python" in by_line[22] and "pulls tensor data into Python" in by_line[31]
    assert [f.line for f in found].count(22) == 2  # `t.asnumpy()` itself, too


def test_a_list_rebound_by_msg406s_own_fixes_keeps_its_findings(tmp_path):
    """`parts = [v] + parts` (MSG406's insert fix) and `parts = parts[::-1]` (its reverse fix)
    leave a local list: `parts.extend(...)` on it is still interpreted (measured on 2.10 CPU,
    validate IR: 7 PyExecute nodes after `parts = [x * 2] + parts`, 8 after `parts.insert(0, x * 2)`).
    Before: the finding disappeared once the insert fix was applied (mindocr's FPN backbones).
    Look-alikes that are no local list stay unreported."""
    found = _lint(tmp_path, {"m.py": """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x, pair, seq):
                parts = [x]
                for i in range(2):
                    parts = [x * i] + parts
                parts.extend(ops.split(x, 1, 1))
                rev = [x, x * 2]
                rev = rev[::-1]
                last = rev.pop()
                rep = [x] * 2
                rep.reverse()
                both = pair + seq
                both.extend([x])          # two inputs: a tuple or a list, not known
                tail = seq[1:]
                tail.pop()                # a slice of an input
                return ops.concat(parts + rev + rep + both + tail, 1) + last
    """}, select=["MSG406"])
    assert [f.line for f in found] == [9, 12, 14]


def test_the_insert_fix_leaves_the_extend_finding(tmp_path):
    """The interaction fix_corpora.py showed on mindocr: after `--fix` rewrites the insert, the
    unchanged `results.extend(...)` below it is still reported (it was not before)."""
    from msgraphlint.fix.files import fix_paths
    from msgraphlint.run.runner import run_paths

    write_tree(tmp_path, {"m.py": """
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x):
                results = [x]
                for i in range(2):
                    results.insert(0, x * i)
                results.extend(ops.split(x, 1, 1))
                return ops.concat(results, 1)
    """})
    path = str(tmp_path / "m.py")
    _, changed, errors = fix_paths(run_paths([path], select=["MSG406"]), write=True)
    assert not errors and [c.applied for c in changed] == [1]
    text = (tmp_path / "m.py").read_text()
    assert "results = [x * i] + results" in text
    found = lint([tmp_path], select=["MSG406"], config_file=None)
    assert [(f.line, "extend" in f.message) for f in found] == [(9, True)]

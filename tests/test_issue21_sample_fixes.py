"""The false patterns of issue 21's judged corpus sample (benchmarks/results/issue21_delta_sample.json):
PyNative code reached by MSG004, a dtype parameter taken for a tensor (MSG103/MSG101), a
comparison mask the analysis cannot place (MSG203)."""

from __future__ import annotations

import os

from helpers import codes_at, lint, write_tree

HERE = os.path.dirname(os.path.abspath(__file__))
LABELED = os.path.join(os.path.dirname(HERE), "fixtures", "labeled")

PRINTING_CELL = """
import mindspore as ms
from mindspore import nn

class {name}(nn.Cell):
    def construct(self, x):
        print(x)
        return x
"""

HOLDER = """
import mindspore as ms
from mindspore import nn
from {module} import Block

class {name}(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        return self.block(x)
{extra}"""


def test_a_module_named_for_pynative_is_not_graph_code(tmp_path):
    """mindformers' `mindformers/pynative/` package and `modeling_deepseek_v3_pynative.py` never set
    a mode in their text (the PyNative trainer runs them): their Cells are not graph roots, so
    nothing in them is reported and no MSG004 reaches into them (modeling_deepseek_v3_pynative.py:67
    reached a `yield` in mindformers/pynative/)."""
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/pynative/__init__.py": "",
        "pkg/pynative/block.py": PRINTING_CELL.format(name="Block"),
        "pkg/models/__init__.py": "",
        "pkg/models/modeling_x_pynative.py": HOLDER.format(module="pkg.pynative.block", name="PyNativeX", extra=""),
        # look-alikes that stay graph code: a graph module holding the same Block (it is compiled
        # into that graph), a `_pynative` module that jits, a module merely mentioning pynative
        "pkg/models/modeling_x.py": HOLDER.format(module="pkg.pynative.block", name="GraphX", extra=""),
        "pkg/models/test_grad_pynative.py": PRINTING_CELL.format(name="Jitted") +
                                            "\n@ms.jit\ndef step(x):\n    return x * 2\n",
        "pkg/models/pynative_utils.py": PRINTING_CELL.format(name="Util"),
    })
    found = codes_at(lint([tmp_path], select=["MSG201", "MSG004"]))
    assert found == [("block.py", 6, "MSG201"), ("modeling_x.py", 11, "MSG004"),
                     ("pynative_utils.py", 6, "MSG201"), ("test_grad_pynative.py", 6, "MSG201")]


def test_labeled_dtype_parameter_rebound_is_not_a_tensor_decision():
    """mindone pixart_transformer_2d.py:338 (via embeddings.py:2211): `hidden_dtype = hidden_dtype
    or proj.dtype` picks a dtype; rebinding the parameter made its guess count as a tensor. The
    labels (compiled on 2.10: no Switch, 1 kernel graph) and the positive, a rebound parameter
    used as a tensor in the same statement (a Switch, 3 kernel graphs)."""
    names = ["control_flow_neg_dtype_param_or_rebound.py", "control_flow_pos_rebound_param_tensor_or.py"]
    found = codes_at(lint([os.path.join(LABELED, n) for n in names], select=["MSG101", "MSG103"]))
    assert found == [("control_flow_pos_rebound_param_tensor_or.py", 8, "MSG103")]


def test_dtype_parameter_rebound_under_if_not_is_no_tensor_if(tmp_path):
    """MSG101's look-alike: `if not dtype: dtype = x.dtype` branches on the caller's value, which
    nothing types: MSG105's note (unknown kind), not MSG101's tensor claim."""
    write_tree(tmp_path, {
        "net.py": """
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x, dtype):
                    if not dtype:
                        dtype = x.dtype
                    return x.to(dtype=dtype) * 2
        """,
    })
    assert codes_at(lint([tmp_path], select=["MSG101", "MSG105"])) == [("net.py", 5, "MSG105")]


def test_parameter_rebound_to_a_tensor_keeps_its_reading(tmp_path):
    """Guards of the narrowing (not failing before it): the caller's value of a parameter passes a
    conditional rebinding (`if m: m = m * 2` then `m.sum()`), and a parameter rebound to a tensor
    (`m = m or x`, `a = P.Add()(a, b)` in MindSpore's control-flow tests) stays a tensor reading."""
    write_tree(tmp_path, {
        "net.py": """
            from mindspore import nn

            class Net(nn.Cell):
                def construct(self, x, m):
                    if m:
                        m = m * 2
                    return x + m.sum()

            class Other(nn.Cell):
                def construct(self, x, m):
                    m = m or x
                    return x + m.sum()
        """,
    })
    assert codes_at(lint([tmp_path], select=["MSG101", "MSG103"])) == [("net.py", 5, "MSG101"), ("net.py", 11, "MSG103")]


def test_a_comparison_mask_the_analysis_cannot_place_is_a_mask(tmp_path):
    """mindone modeling_csm.py:845: `mask = input_ids == token_id; labels[mask] = v` in a helper
    whose operands the analysis cannot place is a boolean-mask write (Select on 2.10, as the
    MindSpore-tier test in test_messages_mindspore.py measures), not TensorScatterUpdate; a
    row index (`out[0] = 0`, TensorScatterUpdate) stays reported."""
    write_tree(tmp_path, {
        "net.py": """
            from typing import Optional

            from mindspore import Tensor, nn


            class Net(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.config = config
                    self.emb = nn.Embedding(10, 4)

                def merge(self, input_ids: Optional[Tensor] = None, labels: Optional[Tensor] = None):
                    embeds = self.emb(input_ids)
                    token_id = self.config.token_id
                    mask = input_ids == token_id
                    embeds[mask] = 0
                    if labels is not None:
                        expanded = labels.unsqueeze(-1).repeat(1, 1, 4)
                        expanded[mask] = 0
                    embeds[0] = 1
                    return embeds

                def construct(self, input_ids: Optional[Tensor] = None, labels: Optional[Tensor] = None):
                    return self.merge(input_ids, labels)
        """,
    })
    assert codes_at(lint([tmp_path], select=["MSG203"])) == [("net.py", 20, "MSG203")]

"""MSG503 and `Tensor.to(device)` (issue 22 item 3): 2.8+ `Tensor.to` takes a device.

Measured on MindSpore 2.10 CPU: `x.to("CPU")`, `x.to("cpu")`, `x.to(y.device)` run in
PyNative; `"cuda"`, `"cuda:0"`, `"gpu"`, `"mps"` raise `ValueError: Failed to convert the
value ... to enum`; in graph mode `a.to(b.device)` compiles with the `.device` read through
the fallback (labeled fixture api_pos_to_tensor_device: 7 PyExecute).
On 2.7.0 `x.to("cpu")` raises `TypeError: _to(): argument 'dtype' (position 1) must be
mstype, not str` (its catalog has no `device` overload of `Tensor.to`).
"""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

SRC = """
    import mindspore as ms
    from mindspore import nn

    class Net(nn.Cell):
        def construct(self, x, mask, logits, device):
            a = x.to("CPU")
            b = (mask != 0).to(device, ms.int32)
            c = x.to("npu")
            d = x.to("cuda")
            e = x.to("cuda:0")
            f = x.to(logits.device)
            return a, b, c, d, e, f
"""


def test_mindspore_devices_are_not_torch_leftovers_on_2_10(tmp_path):
    write_tree(tmp_path, {"m.py": SRC})
    found = [f for f in lint([tmp_path / "m.py"]) if f.code == "MSG503"]
    assert codes_at(found) == [("m.py", 9, "MSG503"), ("m.py", 10, "MSG503"), ("m.py", 11, "MSG503")]
    assert "refuses 'cuda' (ValueError)" in found[0].full_message
    assert "interpreter fallback" in found[2].full_message


def test_any_device_is_a_leftover_on_2_7(tmp_path):
    write_tree(tmp_path, {"m.py": SRC})
    found = [f for f in lint([tmp_path / "m.py"], target="2.7.0") if f.code == "MSG503"]
    assert [f.line for f in found] == [6, 7, 8, 9, 10, 11]
    assert "only converts the dtype" in found[0].full_message

"""Messages the compiler agrees with (issue 22 item 4): each message states what MindSpore 2.10
measurably does in that case (tests/test_messages_mindspore.py compiles the cases), and the
summary does not call info findings errors."""

from __future__ import annotations

from helpers import lint, run_cli, write_tree

NET = """
    import mindspore as ms
    import mindspore.nn as nn
    from mindspore import ops

    class Net(nn.Cell):
        def construct(self, x):
            {body}
            return x
"""


def _findings(tmp_path, body, select):
    write_tree(tmp_path, {"m.py": NET.replace("{body}", body)})
    return [f for f in lint([tmp_path / "m.py"], config_file=None, select=select) if f.code in select]


def test_print_of_an_f_string_of_a_tensor_is_pyexecute_not_a_print_op(tmp_path):
    (f,) = _findings(tmp_path, 'print(f"x={x}")', ["MSG201"])
    assert "PyExecute" in f.full_message and "no Print op" in f.full_message and f.fix is None
    assert "compiled into a Print op" not in f.full_message


def test_print_of_a_folded_f_string_is_a_print_op(tmp_path):
    (f,) = _findings(tmp_path, 'print(f"shape {x.shape}")', ["MSG201"])
    assert "compiled into a Print op" in f.full_message and "PyExecute" not in f.full_message
    (f,) = _findings(tmp_path, 't = (1, 2)\n            print(f"t: {ms.Tensor(t)}")', ["MSG201"])
    assert "compiled into a Print op" in f.full_message and "PyExecute" not in f.full_message


def test_with_open_is_reported_as_not_compiling_not_as_running_once(tmp_path):
    body = 'with open("trace.log", "a") as f:\n                f.write("forward")'
    found = _findings(tmp_path, body, ["MSG211", "MSG410"])
    assert [f.code for f in found] == ["MSG410"]
    assert "`TypeError: issubclass() arg 1 must be a class`" in found[0].full_message


def test_open_outside_a_with_still_runs_once(tmp_path):
    (f,) = _findings(tmp_path, 'open("trace.log", "a").write("forward")', ["MSG211"])
    assert "runs once" in f.full_message


def test_two_scalar_indices_name_the_concat_kernels(tmp_path):
    (f,) = _findings(tmp_path, "y = ops.relu(x)\n            y[0, 1] = 0.0", ["MSG203"])
    assert "TensorScatterUpdate (with Concat/ExpandDims)" in f.full_message
    (f,) = _findings(tmp_path, "y = ops.relu(x)\n            y[1:3] = 0.0", ["MSG203"])
    assert "TensorCopySlices" in f.full_message


def test_summary_does_not_call_info_findings_errors(tmp_path):
    write_tree(tmp_path, {
        "data.py": 'from mindspore.dataset import GeneratorDataset\n\n\ndef make(src):\n'
                   '    return GeneratorDataset(src, ["x"])\n',
        "net.py": NET.replace("{body}", "print(x)"),
    })
    out = run_cli("check", "--no-cache", "--select", "MSG541", str(tmp_path / "data.py")).output
    assert out.rstrip().splitlines()[-1] == "Found 1 info finding (0 fixable)."
    out = run_cli("check", "--no-cache", "--select", "MSG541,MSG201", "--output-format", "concise",
                  str(tmp_path / "data.py"), str(tmp_path / "net.py")).output
    assert "Found 1 error and 1 info finding (0 fixable)." in out.splitlines()
    out = run_cli("check", "--no-cache", "--select", "MSG201", str(tmp_path / "net.py")).output
    assert "Found 1 error (0 fixable)." in out.splitlines()   # ruff's wording, unchanged


def test_a_mint_mask_write_is_a_mask(tmp_path):
    """`t[mint.logical_not(m)] = v` is a boolean-mask write (a Select on 2.10, measured in
    test_messages_mindspore.py), not a scatter: MSG203 is silent as for ops.logical_not."""
    assert _findings(tmp_path, "y = ops.relu(x)\n            y[ms.mint.logical_not(y > 1)] = 0.0", ["MSG203"]) == []
    assert _findings(tmp_path, "y = ops.relu(x)\n            y[ops.logical_not(y > 1)] = 0.0", ["MSG203"]) == []

"""The module the per-release tests lint (tests/test_target_pins.py, test_upgrade_view.py,
test_version_api.py): one use of each API whose existence or deprecation differs between
the releases, as measured on the wheels (see those files' docstrings)."""

from __future__ import annotations

from pathlib import Path

from helpers import write_tree

CODE = """
import mindspore as ms
from mindspore import mint, nn, ops

x = ops.batch_dot(a, b)
y = ops.tensor_scatter_mul(a, idx, upd)
z = mint.vdot(a, b)
ta = nn.TensorArray(ms.float32, ())
"""
# line numbers in CODE (after the leading newline is stripped)
BATCH_DOT, SCATTER_MUL, VDOT, TENSOR_ARRAY = 4, 5, 6, 7


def pinned_project(root: Path, files) -> Path:
    """``files`` (pins, configs) plus ``m.py`` holding CODE, under a repository root."""
    write_tree(root, dict(files, **{"m.py": CODE}))
    (root / ".git").mkdir()  # the repository root: the pin search stops here
    return root

"""ImportMap.from_tree: which blocks' imports it reads, and which binding wins.

Expected maps are written from Python's rules as from_tree documents them (every import at
any depth of if/else, try/except/else/finally, with, def and class; loops, `async with` and
`match` bodies are not entered), not copied from the implementation."""

import ast

from msgraphlint.project.imports import ImportMap

SRC = '''
import mindspore as ms
if ms:
    from mindspore import nn
else:
    from mindspore import ops as nn_else
try:
    import numpy as np
except ImportError:
    from mindspore import numpy as np_fallback
else:
    from mindspore import mint
finally:
    import os.path
with open("f") as f:
    from mindspore import Tensor
def f():
    from .layers import Block
    class Inner:
        from ..util import helper
for i in range(3):
    from mindspore import Parameter
while False:
    import torch
'''


def test_blocks_entered_and_loops_not():
    names = ImportMap.from_tree(ast.parse(SRC), "pkg.sub.model", False).names
    assert names == {
        "ms": "mindspore", "nn": "mindspore.nn", "nn_else": "mindspore.ops", "np": "numpy",
        "np_fallback": "mindspore.numpy", "mint": "mindspore.mint", "os": "os",
        "Tensor": "mindspore.Tensor", "Block": "pkg.sub.layers.Block", "helper": "pkg.util.helper",
    }


def test_which_binding_wins():
    # statements are read last to first: of two `from` imports of one name the first in the
    # source is read last and wins; a plain `import os` never replaces a binding already read
    # (setdefault), so the `as os` below it stands
    src = "from a import x\nfrom b import x\nimport os\nimport os.path as os\n"
    names = ImportMap.from_tree(ast.parse(src)).names
    assert names == {"x": "a.x", "os": "os.path"}

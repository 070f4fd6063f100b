"""Project-local monkey-patching of MindSpore names (issue 22 item 3, the MSG510 false
pattern): a project that replaces `nn.Dropout` with its own `p`-first class calls its own
class wherever `nn.Dropout(...)` runs after the patch, so no MindSpore rule judges the call.

Measured on MindSpore 2.10 CPU: after `nn.Dropout = MyDropout` (MyDropout(p) wrapping
the original `nn.Dropout(p=p)`), `nn.Dropout(0.1)` builds a MyDropout whose inner dropout has
`p == 0.1`, as PyTorch reads it; without the patch it is `keep_prob=0.1`.
"""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

PATCH = """
    from mindspore import nn

    _MsDropout = nn.Dropout


    class MyDropout(nn.Cell):
        def __init__(self, p=0.5):
            super().__init__()
            self.inner = _MsDropout(p=p)

        def construct(self, x):
            return self.inner(x)


    nn.Dropout = MyDropout
"""

MODEL = """
    from mindspore import nn
    {imp}

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.1)

        def construct(self, x):
            return self.drop(x)
"""


def test_a_patched_dropout_is_the_projects_class(tmp_path):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/patches.py": PATCH,
                          "pkg/model.py": MODEL.format(imp="from pkg import patches  # noqa: F401")})
    assert [f for f in lint([tmp_path / "pkg"]) if f.code == "MSG510"] == []


def test_setattr_patches_too(tmp_path):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/patches.py": PATCH.replace(
        "nn.Dropout = MyDropout", 'setattr(nn, "Dropout", MyDropout)'),
        "pkg/model.py": MODEL.format(imp="import pkg.patches")})
    assert [f for f in lint([tmp_path / "pkg" / "model.py"]) if f.code == "MSG510"] == []


def test_a_patch_the_module_never_imports_does_not_apply(tmp_path):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/patches.py": PATCH,
                          "pkg/model.py": MODEL.format(imp="")})
    assert codes_at(f for f in lint([tmp_path / "pkg"]) if f.code == "MSG510") == [("model.py", 7, "MSG510")]


def test_patching_another_name_leaves_dropout_mindsporess(tmp_path):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/patches.py": PATCH.replace("nn.Dropout = ", "nn.Dense = "),
                          "pkg/model.py": MODEL.format(imp="import pkg.patches")})
    assert codes_at(f for f in lint([tmp_path / "pkg"]) if f.code == "MSG510") == [("model.py", 7, "MSG510")]

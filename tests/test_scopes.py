"""Graph-mode scope discovery: Cells (any import spelling, cross-module bases),
jit functions (any form), transitive helpers with their chains, and negatives."""

from __future__ import annotations

import os

import pytest

from msgraphlint.project.index import ProjectIndex
from msgraphlint.project.scopes import discover
from msgraphlint.parse.source import SourceFile

from helpers import write_tree


def scopes_of(root, files):
    write_tree(root, files)
    index = ProjectIndex()
    for rel in files:
        if rel.endswith(".py"):
            index.add_source(SourceFile.read(str(root / rel)))
    found = discover(index)
    return {s.qualname: s for ss in found.values() for s in ss}


@pytest.mark.parametrize("imports,base", [
    ("import mindspore.nn as nn", "nn.Cell"),
    ("from mindspore import nn", "nn.Cell"),
    ("import mindspore", "mindspore.nn.Cell"),
    ("import mindspore as ms", "ms.nn.Cell"),
    ("from mindspore.nn import Cell", "Cell"),
    ("from mindspore.nn import Cell as C", "C"),
    ("from mindspore.nn.cell import Cell", "Cell"),
    ("import mindspore.nn", "mindspore.nn.Cell"),
    ("from mindspore import nn as msnn", "msnn.Dense"),
])
def test_cell_import_spellings(tmp_path, imports, base):
    s = scopes_of(tmp_path, {"m.py": f"""
        {imports}
        class Net({base}):
            def construct(self, x):
                return x
    """})
    assert set(s) == {"m.Net.construct"}
    assert s["m.Net.construct"].kind == "construct"


def test_not_a_cell_is_not_a_scope(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore
        import torch.nn as nn
        class Module(nn.Module):
            def construct(self, x):
                return x
        class Plain:
            def construct(self, x):
                return x
        class Metric(mindspore.train.Metric):
            def construct(self, x):
                return x
    """})
    assert s == {}


def test_cross_module_base_classes_and_aliases(tmp_path):
    s = scopes_of(tmp_path, {
        "pkg/__init__.py": "from .base import BaseLayer as Layer\n",
        "pkg/base.py": """
            from mindspore import nn
            class BaseLayer(nn.Cell):
                pass
        """,
        "pkg/mid.py": """
            from pkg import Layer
            class Mid(Layer):
                pass
        """,
        "pkg/model.py": """
            from . import mid
            from .mid import Mid as M
            class A(mid.Mid):
                def construct(self, x):
                    return x
            class B(M):
                def construct(self, x):
                    return x
        """,
    })
    assert {"pkg.model.A.construct", "pkg.model.B.construct"} <= set(s)


def _only_model_linted(root, files):
    """The index of ``model.py`` alone (the rest loaded by name) and the scopes it finds."""
    write_tree(root, files)
    index = ProjectIndex()
    index.add_source(SourceFile.read(str(root / "model.py")))
    return index, {s.qualname for ss in discover(index).values() for s in ss}


def test_base_class_from_a_file_that_is_not_linted_is_loaded_lazily(tmp_path):
    _, found = _only_model_linted(tmp_path, {
        "base.py": "import mindspore.nn as nn\nclass Base(nn.Cell):\n    pass\n",
        "model.py": "from base import Base\nclass Net(Base):\n    def construct(self, x):\n        return x\n",
    })
    assert found == {"model.Net.construct"}


def test_a_base_class_in_a_package_that_is_not_linted_is_loaded_lazily(tmp_path):
    """``pkg.layers.Base`` is looked for as a module only where a folder ``pkg/layers/`` exists;
    ``pkg.layers`` is found in ``pkg/`` (``ProjectIndex._isdir``)."""
    index, found = _only_model_linted(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/layers.py": "import mindspore.nn as nn\nclass Base(nn.Cell):\n    pass\n",
        "model.py": "from pkg.layers import Base\nclass Net(Base):\n    def construct(self, x):\n        return x\n",
    })
    assert found == {"model.Net.construct"}
    assert index.resolve("pkg.layers.Base")[0] == "class"


def test_a_name_resolves_once_the_module_defining_it_is_added(tmp_path):
    """``resolve`` remembers its answers for the index as it is; adding a module forgets them."""
    write_tree(tmp_path, {"model.py": "from helpers import f\n", "helpers.py": "def f(x):\n    return x\n"})
    index = ProjectIndex(max_lazy_modules=0)  # nothing is loaded by name
    index.add_source(SourceFile.read(str(tmp_path / "model.py")))
    assert index.resolve("helpers.f") is None
    index.add_source(SourceFile.read(str(tmp_path / "helpers.py")))
    got = index.resolve("helpers.f")
    assert got is not None and got[0] == "function" and got[1].qualname == "helpers.f"
    assert index.resolve("helpers.f") is got


@pytest.mark.parametrize("src", [
    "import mindspore as ms\n@ms.jit\ndef step(x):\n    return x\n",
    "import mindspore\n@mindspore.jit\ndef step(x):\n    return x\n",
    "from mindspore import jit\n@jit\ndef step(x):\n    return x\n",
    "from mindspore import jit\n@jit(jit_level='O1')\ndef step(x):\n    return x\n",
    "import mindspore as ms\n@ms.jit(capture_mode='ast')\ndef step(x):\n    return x\n",
    "import mindspore as ms\ndef step(x):\n    return x\nfast = ms.jit(step)\n",
    "from mindspore.common.api import jit\n@jit\ndef step(x):\n    return x\n",
])
def test_jit_forms(tmp_path, src):
    s = scopes_of(tmp_path, {"m.py": src})
    assert set(s) == {"m.step"}
    assert s["m.step"].kind == "jit"


def test_jit_method_on_plain_class(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore as ms
        class Trainer:
            @ms.jit
            def step(self, x):
                return self.helper(x)
            def helper(self, x):
                return x
    """})
    assert set(s) == {"m.Trainer.step", "m.Trainer.helper"}


def test_transitive_helpers_and_chain(tmp_path):
    s = scopes_of(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            def leaf(x):
                return x
            def middle(x):
                return leaf(x) + 1
            def unrelated(x):
                return x
        """,
        "pkg/model.py": """
            import mindspore.nn as nn
            from .utils import middle
            from . import utils

            class Net(nn.Cell):
                def construct(self, x):
                    y = self.prep(x)
                    return middle(y) + utils.leaf(y)

                def prep(self, x):
                    return x

                def not_called(self, x):
                    return x
        """,
    })
    assert set(s) == {"pkg.model.Net.construct", "pkg.model.Net.prep", "pkg.utils.middle", "pkg.utils.leaf"}
    leaf = s["pkg.utils.leaf"]
    assert leaf.kind == "helper"
    # reached first directly from construct (breadth first), line 8
    assert len(leaf.chain) == 1
    assert leaf.chain[0].startswith("called from Net.construct (") and leaf.chain[0].endswith("pkg/model.py:8)")
    assert leaf.root_site[1] == 8
    middle = s["pkg.utils.middle"]
    assert middle.chain[0].startswith("called from Net.construct")


def test_helper_reached_through_a_helper_has_a_two_link_chain(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore.nn as nn
        def inner(x):
            return x
        def outer(x):
            return inner(x)
        class Net(nn.Cell):
            def construct(self, x):
                return outer(x)
    """})
    assert len(s["m.inner"].chain) == 2
    assert s["m.inner"].chain[1].startswith("called from outer (")
    assert s["m.inner"].root_site[1] == 8  # the call site inside construct


def test_inherited_helper_method_from_project_base(tmp_path):
    s = scopes_of(tmp_path, {
        "base.py": """
            import mindspore.nn as nn
            class Base(nn.Cell):
                def shared(self, x):
                    return x
        """,
        "model.py": """
            from base import Base
            class Net(Base):
                def construct(self, x):
                    return self.shared(x)
        """,
    })
    assert "base.Base.shared" in s


def test_recursion_and_cycles_terminate(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore.nn as nn
        def a(x):
            return b(x)
        def b(x):
            return a(x)
        class A(nn.Cell):
            def construct(self, x):
                return a(x)
    """, "cyc.py": """
        import mindspore.nn as nn
        from cyc2 import Y
        class X(Y):
            pass
    """, "cyc2.py": """
        from cyc import X
        class Y(X):
            def construct(self, x):
                return x
    """})
    assert {"m.a", "m.b", "m.A.construct"} <= set(s)
    assert "cyc2.Y.construct" not in s


def test_mindspore_package_itself_is_never_opened(tmp_path, monkeypatch):
    opened = []
    real = SourceFile.read

    def spy(path):
        opened.append(path)
        return real(path)

    monkeypatch.setattr(SourceFile, "read", staticmethod(spy))
    scopes_of(tmp_path, {"m.py": """
        import mindspore.nn as nn
        from mindspore.nn.layer.basic import Dense
        class Net(Dense):
            def construct(self, x):
                return nn.ReLU()(x)
    """})
    assert all("mindspore" not in p for p in opened[1:])

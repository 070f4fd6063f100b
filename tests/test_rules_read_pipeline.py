"""Rules read other files through the source pipeline (issue 21 item 5): ``ctx.source_of`` /
``ctx.tree_of``, answered by the project index: an editor's unsaved buffer (or stdin) first,
then what the run read, then the file decoded as any linted file (BOM, coding cookie).
No rule opens a file itself."""

from __future__ import annotations

import ast
import os
from pathlib import Path

from msgraphlint.run.runner import run_paths
from msgraphlint.parse.source import SourceFile

from helpers import write_tree

RULES = Path(__file__).resolve().parent.parent / "rules"


def _codes(result, name):
    return sorted((f.line, f.code) for fr in result.files for f in fr.findings
                  if os.path.basename(f.path) == name)


# ------------------------------------------------------------------ the guard
_READERS = {"read_text", "read_bytes"}


def _direct_reads(tree: ast.AST):
    """Calls that open or read a file: ``open(...)``, ``io.open``/``os.open``/``codecs.open``/
    ``tokenize.open``, ``<path>.read_text()``/``.read_bytes()``/``.open()``; a read of the
    package's own data through ``importlib.resources`` (``resources.files(...)...``) is allowed."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id == "open":
            yield node
        elif isinstance(f, ast.Attribute) and (f.attr in _READERS or f.attr == "open"):
            root = f.value
            via_resources = False
            while isinstance(root, (ast.Attribute, ast.Call)):
                if isinstance(root, ast.Call):
                    g = root.func
                    if isinstance(g, ast.Attribute) and g.attr == "files" \
                            and isinstance(g.value, ast.Name) and g.value.id in ("resources", "importlib_resources"):
                        via_resources = True
                    root = g
                else:
                    root = root.value
            if not via_resources:
                yield node
        elif isinstance(f, ast.Attribute) and f.attr == "read" and isinstance(f.value, ast.Name) \
                and f.value.id == "SourceFile":
            yield node


def test_no_rule_opens_a_file_itself():
    offenders = []
    for path in sorted(RULES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [f"{path.name}:{n.lineno}" for n in _direct_reads(tree)]
    assert offenders == [], "rules read other files through ctx.source_of / ctx.tree_of: " + ", ".join(offenders)


def test_the_guard_sees_each_way_of_reading():
    code = ("open(p)\nio.open(p)\nos.open(p, 0)\nPath(p).read_text()\nq.read_bytes()\ncodecs.open(p)\n"
            "SourceFile.read(p)\n"
            "resources.files('msgraphlint.data').joinpath('x.json').open(encoding='utf-8')\n"
            "x = 'open(path).read()'\n")
    assert [n.lineno for n in _direct_reads(ast.parse(code))] == [1, 2, 3, 4, 5, 6, 7]


# ------------------------------------------------------------------ MSG560: an imported module
SCRIPT = """import mindspore as ms
import mindspore.nn as nn
{imp}

def main():
    net = nn.Dense(2, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(net, opt)
    step(1, 2)

if __name__ == "__main__":
    main()
"""


def test_msg560_follows_the_unsaved_buffer_of_the_imported_module(tmp_path):
    write_tree(tmp_path, {
        "train.py": SCRIPT.format(imp="from utils.env import init_env\ninit_env()"),
        "utils/__init__.py": "",
        "utils/env.py": "import mindspore as ms\n\ndef init_env():\n    ms.set_context(mode=ms.GRAPH_MODE)\n",
    })
    env = str(tmp_path / "utils" / "env.py")
    files = [str(tmp_path / "train.py"), env]
    assert _codes(run_paths(files, select=["MSG560"]), "train.py") == []
    # the editor's buffer no longer sets the mode: the script now never does
    buffer = "import mindspore as ms\n\ndef init_env():\n    pass\n"
    assert _codes(run_paths(files, select=["MSG560"], overrides={env: buffer}), "train.py") == [(9, "MSG560")]


def test_msg560_follows_an_open_document_that_is_not_linted(tmp_path):
    """The language server's other open buffers (``run_source(buffers=...)``)."""
    from msgraphlint.run.runner import run_source

    write_tree(tmp_path, {
        "train.py": SCRIPT.format(imp="from utils.env import init_env\ninit_env()"),
        "utils/__init__.py": "",
        "utils/env.py": "def init_env():\n    pass\n",
    })
    train = str(tmp_path / "train.py")
    env = str(tmp_path / "utils" / "env.py")
    text = (tmp_path / "train.py").read_text()
    assert [f.code for f in run_source(text, train, select=["MSG560"]).findings] == ["MSG560"]
    buffer = "import mindspore as ms\n\ndef init_env():\n    ms.set_context(mode=ms.GRAPH_MODE)\n"
    assert [f.code for f in run_source(text, train, select=["MSG560"], buffers={env: buffer}).findings] == []


def test_msg560_reads_an_imported_module_in_its_coding_cookie(tmp_path):
    """A latin-1 module whose names are not ASCII: read as UTF-8 it did not parse, and the
    mode its config sets went unseen."""
    write_tree(tmp_path, {
        "train.py": SCRIPT.format(imp="from utils.env import init_env\ninit_env()"),
        "utils/__init__.py": "",
    })
    (tmp_path / "utils" / "env.py").write_bytes(
        "# -*- coding: latin-1 -*-\n# réglages\nimport mindspore as ms\n\n"
        "def init_env(cfg):\n    modé = cfg.mode\n    ms.set_context(mode=modé)\n".encode("latin-1"))
    assert _codes(run_paths([str(tmp_path / "train.py")], select=["MSG560"]), "train.py") == []


# ------------------------------------------------------------------ MSG304: the package's files
LOSS = ("import mindspore.nn as nn\n\nclass {name}(nn.Cell):\n"
        "    def construct(self, preds, labels):\n        out = labels * 0\n        for p in preds:\n"
        "            out = out + p.sum()\n        return out\n")


def test_msg304_follows_the_unsaved_buffer_of_another_package_file(tmp_path):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/losses.py": LOSS.format(name="LooseLoss"),
                          "pkg/builder.py": "X = 1\n"})
    files = [str(tmp_path / "pkg" / n) for n in ("__init__.py", "losses.py", "builder.py")]
    assert _codes(run_paths(files, select=["MSG304"]), "losses.py") == [(4, "MSG304")]
    # the unsaved builder builds it in a factory: it is fed by another graph
    buffer = "from .losses import LooseLoss\n\ndef build_loss():\n    return LooseLoss()\n"
    assert _codes(run_paths(files, select=["MSG304"], overrides={files[2]: buffer}), "losses.py") == []


def test_msg304_reads_a_package_file_in_its_coding_cookie(tmp_path):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/losses.py": LOSS.format(name="PerteLossé")})
    (tmp_path / "pkg" / "builder.py").write_bytes(
        "# -*- coding: latin-1 -*-\n# fabrique de pertes\nfrom .losses import PerteLossé\n\n"
        "def build_loss():\n    return PerteLossé()\n".encode("latin-1"))
    assert _codes(run_paths([str(tmp_path / "pkg" / "losses.py")], select=["MSG304"]), "losses.py") == []


# ------------------------------------------------------------------ MSG202: the caller's call site
HELPER = """import mindspore.nn as nn


def scale(t):
    t[:, 0] = 1.0
    return t


class Net(nn.Cell):
    def construct(self, x, y):
        {call}
        return x + y
"""


def test_msg202_follows_the_unsaved_buffer_of_the_callers_file(tmp_path):
    """The caller rebinds the argument to the result in the buffer (``y = scale(y)``): the
    write is not observable there; on disk it reads ``y`` afterwards."""
    write_tree(tmp_path, {"m.py": HELPER.format(call="x = scale(y) + x")})
    m = str(tmp_path / "m.py")
    assert _codes(run_paths([m], select=["MSG202"]), "m.py") == [(5, "MSG202")]
    assert _codes(run_paths([m], select=["MSG202"], overrides={m: HELPER.format(call="y = scale(y)")}), "m.py") == []


def test_msg202_reads_the_callers_file_in_its_coding_cookie(tmp_path):
    text = "# -*- coding: latin-1 -*-\n# échelle\n" + HELPER.replace("scale", "échelle").format(call="y = échelle(y)")
    (tmp_path / "m.py").write_bytes(text.encode("latin-1"))
    assert _codes(run_paths([str(tmp_path / "m.py")], select=["MSG202"]), "m.py") == []


# ------------------------------------------------------------------ the API
def test_source_of_answers_none_for_what_cannot_be_read(tmp_path):
    from msgraphlint.project.index import ProjectIndex

    (tmp_path / "bad.py").write_bytes(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    (tmp_path / "syntax.py").write_text("def (:\n")
    (tmp_path / "l1.py").write_bytes("# -*- coding: latin-1 -*-\n# é\nx = 1\n".encode("latin-1"))
    index = ProjectIndex()
    assert index.source_of(str(tmp_path / "missing.py")) is None
    assert index.source_of(str(tmp_path / "bad.py")) is None
    assert index.source_of(str(tmp_path / "syntax.py")) is not None and index.tree_of(str(tmp_path / "syntax.py")) is None
    assert "# é" in index.source_of(str(tmp_path / "l1.py")).text
    index.buffers = {str(tmp_path / "new.py"): "y = 2\n"}
    assert index.source_of(str(tmp_path / "new.py")).text == "y = 2\n"
    assert isinstance(index.tree_of(str(tmp_path / "new.py")), ast.Module)
    # memoised for the run
    assert index.source_of(str(tmp_path / "l1.py")) is index.source_of(str(tmp_path / "l1.py"))
    assert isinstance(SourceFile, type)


def test_msg202_follows_the_unsaved_buffer_of_a_caller_in_another_file(tmp_path):
    write_tree(tmp_path, {
        "helpers.py": "def scale(t):\n    t[:, 0] = 1.0\n    return t\n",
        "model.py": "import mindspore.nn as nn\nfrom helpers import scale\n\n\nclass Net(nn.Cell):\n"
                    "    def construct(self, x, y):\n        x = scale(y) + x\n        return x + y\n",
    })
    files = [str(tmp_path / "helpers.py"), str(tmp_path / "model.py")]
    assert _codes(run_paths(files, select=["MSG202"]), "helpers.py") == [(2, "MSG202")]
    buffer = (tmp_path / "model.py").read_text().replace("x = scale(y) + x", "y = scale(y)")
    assert _codes(run_paths(files, select=["MSG202"], overrides={files[1]: buffer}), "helpers.py") == []

"""A model-zoo-shaped tree: several model folders under one ``.git``, each with its own
``src`` package of the same module names (MindSpore's model zoo: ``official/cv/resnet/src``,
``official/cv/vgg/src``, ..., 3,043 files importing ``from src...``). Python runs each
model from its own folder, so ``from src.utils import helper`` in vgg names vgg's helper.
One run over the whole tree must report exactly what each model linted alone reports."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import write_tree
from msgraphlint.run.runner import run_paths

NET = """
import mindspore.nn as nn
from src.utils import helper


class Net(nn.Cell):
    def construct(self, x):
        return helper(x)
"""

TRAIN = """
from src.net import Net

net = Net()
"""

CLEAN_HELPER = """
def helper(x):
    return x + 1
"""

PRINT_HELPER = """
def helper(x):
    print("value", x)
    return x * 2
"""

ASNUMPY_HELPER = """
def helper(x):
    return x.asnumpy()
"""


def _zoo(root: Path) -> Path:
    (root / ".git").mkdir()
    files = {}
    # resnet, vgg: regular packages; lenet: a namespace `src` (no __init__.py)
    for model, helper, package in (("resnet", CLEAN_HELPER, True), ("vgg", PRINT_HELPER, True),
                                   ("lenet", ASNUMPY_HELPER, False)):
        base = f"official/cv/{model}"
        if package:
            files[f"{base}/src/__init__.py"] = ""
        files[f"{base}/src/utils.py"] = helper
        files[f"{base}/src/net.py"] = NET
        files[f"{base}/train.py"] = TRAIN
    return write_tree(root, files)



def _by_file(paths):
    result = run_paths([str(p) for p in paths])
    return sorted((os.path.abspath(f.path), f.line, f.code) for fr in result.files for f in fr.findings)


def test_each_model_is_resolved_against_its_own_src_package(tmp_path):
    zoo = _zoo(tmp_path)
    whole = _by_file([zoo])
    alone = sorted(x for model in ("resnet", "vgg", "lenet") for x in _by_file([zoo / "official/cv" / model]))
    assert whole == alone
    rel = [(os.path.relpath(p, zoo), line, code) for p, line, code in whole]
    # vgg's print and lenet's asnumpy are found in their own helpers ...
    assert ("official/cv/vgg/src/utils.py", 2, "MSG201") in rel
    assert ("official/cv/lenet/src/utils.py", 2, "MSG401") in rel
    # ... and no model's helper is taken for another's: resnet's helper is clean, and nothing
    # is reported in resnet's files
    assert not [r for r in rel if r[0].startswith("official/cv/resnet/")]


def test_the_order_of_the_paths_does_not_change_what_is_found(tmp_path):
    zoo = _zoo(tmp_path)
    models = [zoo / "official/cv" / m for m in ("vgg", "lenet", "resnet")]
    assert _by_file(models) == _by_file(list(reversed(models))) == _by_file([zoo])

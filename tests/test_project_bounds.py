"""Where a run's project ends (projectfiles.project_root): the files read for context are
the project's, not those of an unrelated repository the linted folder happens to sit in.

A download cache or build copy the enclosing repository ignores, and an installed package
(a folder beside ``*.dist-info``), are projects of their own; what the repository ignores is
never context, also with ``respect-gitignore = false``.
"""

from __future__ import annotations

import pytest

from helpers import write_tree
from msgraphlint.run.runner import run_paths

MODEL = """
    import mindspore.nn as nn


    class Net(nn.Cell):
        def construct(self, x):
            print(x)
            return x
"""

CALLER = """
    import mindspore as ms
    from pkg.model import Net

    net = Net()
    out = net(ms.Tensor([1.0]))
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def _context(path: str) -> int:
    return run_paths([path]).context_files


def test_a_folder_the_repository_ignores_is_its_own_project(repo):
    write_tree(repo, {
        ".gitignore": "downloads/\n",
        "train.py": CALLER,
        "downloads/corpus/pkg/__init__.py": "",
        "downloads/corpus/pkg/model.py": MODEL,
        "downloads/corpus/pkg/util.py": "from pkg.model import Net\n",
    })
    # the repository's train.py imports pkg.model, but pkg lies in what the repository ignores:
    # its project is its import root (downloads/corpus); `check` of that folder finds nothing
    # there (the repository ignores it) ...
    assert _context("downloads/corpus/pkg/model.py") == 0
    # ... unless gitignore is not respected: then util.py, which imports it, and still not train.py
    (repo / "downloads/corpus/msgraphlint.toml").write_text("respect-gitignore = false\n", encoding="utf-8")
    assert _context("downloads/corpus/pkg/model.py") == 1
    # the control: the same tree not ignored is one project with the repository's train.py
    (repo / ".gitignore").write_text("other/\n", encoding="utf-8")
    assert _context("downloads/corpus/pkg/model.py") == 2


def test_what_the_repository_ignores_is_no_context_even_when_linted(repo):
    write_tree(repo, {
        ".gitignore": "scratch/\n",
        "pyproject.toml": "[tool.msgraphlint]\nrespect-gitignore = false\n",
        "pkg/__init__.py": "",
        "pkg/model.py": MODEL,
        "train.py": CALLER,
        "scratch/try_model.py": CALLER,  # a user's ignored scratch script
    })
    assert _context("pkg/model.py") == 1  # train.py, not scratch/try_model.py


def test_an_installed_package_is_its_own_project(repo):
    write_tree(repo, {
        "train.py": CALLER,
        "site/pkg-1.0.dist-info/METADATA": "Name: pkg\nVersion: 1.0\n",
        "site/pkg/__init__.py": "",
        "site/pkg/model.py": MODEL,
        "site/pkg/util.py": "from pkg.model import Net\n",
        "site/other/__init__.py": "",
        "site/other/use.py": CALLER,
    })
    # neither the repository's train.py nor the other installed package: pkg's own util.py
    assert _context("site/pkg/model.py") == 1

"""Module identity by project: same-named packages in sibling projects (two copies of
one project, monorepos with many `src` packages) stay distinct; each resolves its own
helpers and base classes."""

from __future__ import annotations

from helpers import write_tree
from msgraphlint.run.runner import run_paths

HELPERS = """
def helper(x):
    print(x)
    return x
"""
MODEL = """
import mindspore.nn as nn
from pkg.helpers import helper
from pkg.layers import Base


class Net(nn.Cell):
    def construct(self, x):
        return helper(x)


class Other(Base):
    def construct(self, x):
        print(x)
        return x
"""
CELL_BASE = "import mindspore.nn as nn\n\n\nclass Base(nn.Cell):\n    pass\n"
PLAIN_BASE = "class Base:\n    pass\n"


def _project(layers: str):
    return {"pyproject.toml": "[project]\nname = 'x'\n", "pkg/__init__.py": "", "pkg/helpers.py": HELPERS,
            "pkg/model.py": MODEL, "pkg/layers.py": layers}


def _found(root, *paths):
    res = run_paths([str(root / p) for p in paths] if paths else [str(root)])
    return sorted((f.path.split("mono/", 1)[1], f.line, f.code) for f in res.findings if f.code == "MSG201")


def test_two_copies_of_one_project(tmp_path):
    mono = tmp_path / "mono"
    write_tree(mono, {**{"a/" + k: v for k, v in _project(CELL_BASE).items()},
                      **{"b/" + k: v for k, v in _project(CELL_BASE).items()}})
    expected = [("a/pkg/helpers.py", 2, "MSG201"), ("a/pkg/model.py", 13, "MSG201"),
                ("b/pkg/helpers.py", 2, "MSG201"), ("b/pkg/model.py", 13, "MSG201")]
    assert _found(mono) == expected
    assert _found(mono, "b", "a") == expected


def test_sibling_projects_do_not_borrow_each_others_classes(tmp_path):
    """Project b's `Base` is a plain class: its `Other` is not a Cell, whatever project a says."""
    mono = tmp_path / "mono"
    write_tree(mono, {**{"a/" + k: v for k, v in _project(CELL_BASE).items()},
                      **{"b/" + k: v for k, v in _project(PLAIN_BASE).items()}})
    got = _found(mono)
    assert ("a/pkg/model.py", 13, "MSG201") in got and ("b/pkg/model.py", 13, "MSG201") not in got
    assert ("b/pkg/helpers.py", 2, "MSG201") in got  # b's own helper is still reached from b's Net
    write_tree(mono, {"a/pkg/layers.py": PLAIN_BASE, "b/pkg/layers.py": CELL_BASE})
    got = _found(mono)
    assert ("a/pkg/model.py", 13, "MSG201") not in got and ("b/pkg/model.py", 13, "MSG201") in got


def test_without_project_markers_the_linted_paths_are_one_project(tmp_path):
    """Files named one by one, with no pyproject.toml/setup.py/.git above them, still see each other."""
    write_tree(tmp_path, {"helpers.py": HELPERS,
                          "model.py": "import mindspore.nn as nn\nfrom helpers import helper\n\n\n"
                                      "class Net(nn.Cell):\n    def construct(self, x):\n        return helper(x)\n"})
    res = run_paths([str(tmp_path / "model.py"), str(tmp_path / "helpers.py")])
    assert sorted((f.path.rsplit("/", 1)[-1], f.line, f.code) for f in res.findings) == \
        [("helpers.py", 2, "MSG201"), ("model.py", 7, "MSG004")]  # the print, and where construct reaches it


def test_a_directory_no_import_can_name_is_not_a_package(tmp_path):
    """`mindspore-st-compiler/__init__.py` (a checkout of MindSpore's tests): the directory
    cannot be imported, so it is a sys.path root. Counted as a package, its modules were named
    `mindspore-st-compiler.…`, their nested helpers looked like MindSpore functions and the
    helper's `.asnumpy()` went unreported."""
    from msgraphlint.project.index import module_name_for
    write_tree(tmp_path, {"mindspore-tests/__init__.py": "", "mindspore-tests/fallback/__init__.py": "",
                          "mindspore-tests/fallback/test_m.py": """
        import numpy as np
        import mindspore.nn as nn

        def test_save():
            def _save(data):
                np.save("d.npy", data.asnumpy())

            class Net(nn.Cell):
                def construct(self, x):
                    _save(x)
                    return x
        """})
    path = str(tmp_path / "mindspore-tests" / "fallback" / "test_m.py")
    assert module_name_for(path)[:2] == ("fallback.test_m", str(tmp_path / "mindspore-tests"))
    found = sorted((f.code, f.line) for r in run_paths([str(tmp_path)]).files for f in r.findings)
    assert ("MSG401", 6) in found  # a nested helper in the same file: reported once, in the helper


def test_a_package_made_between_two_runs_names_its_modules(tmp_path):
    """Module names are memoised per folder within a run and forgotten as the next run starts
    (the language server, ``--watch``): an ``__init__.py`` added in between makes ``m.py``
    ``pkg.m``, and the nesting of every folder above is read from the disk again."""
    from msgraphlint.cache import runcache
    from msgraphlint.project.index import module_name_for
    write_tree(tmp_path, {"pkg/sub/__init__.py": "", "pkg/sub/m.py": "x = 1\n", "pkg/n.py": "y = 1\n"})
    runcache.new_run()
    m, n = str(tmp_path / "pkg" / "sub" / "m.py"), str(tmp_path / "pkg" / "n.py")
    assert module_name_for(m) == ("sub.m", str(tmp_path / "pkg"), False)
    assert module_name_for(n) == ("n", str(tmp_path / "pkg"), False)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    runcache.new_run()
    assert module_name_for(m) == ("pkg.sub.m", str(tmp_path), False)
    assert module_name_for(str(tmp_path / "pkg" / "__init__.py")) == ("pkg", str(tmp_path), True)
    assert module_name_for(n) == ("pkg.n", str(tmp_path), False)

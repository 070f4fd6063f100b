"""Installed third-party packages (mindformers, mindcv, ...) are read, never imported:
a project class deriving from an installed package's Cell is a Cell without `cell-bases`,
through the `python` setting's environment (read from its layout, never run) or the
interpreter running msgraphlint (installed.py)."""

from __future__ import annotations

import glob
import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import codes_at, lint, write_tree

ROOT = Path(__file__).resolve().parents[1]

# an installed package whose code may name mindspore: it is never executed, so mindspore
# need not exist in its environment (and must never be read or imported from ours)
PACKAGE = {
    "mypkg/__init__.py": """
        from .base import MyPreTrained, Plain, Layer
        from .deep import Deep as ReExported
        from . import util
        from .sideeffect import *
        """,
    "mypkg/base.py": """
        import mindspore.nn as nn
        import mindspore as ms


        class MyPreTrained(nn.Cell):
            def __init__(self, config=None):
                super().__init__()


        class Plain:
            pass


        class Layer(MyPreTrained):
            def construct(self, x):
                return x
        """,
    "mypkg/deep.py": """
        from mypkg.base import MyPreTrained


        class Mid(MyPreTrained):
            pass


        class Deep(Mid):
            pass
        """,
    "mypkg/util.py": """
        from mindspore import ops


        def make(n):
            return ops.ones((n, n))


        def name():
            return "mypkg"
        """,
    # executed, it would leave a marker file: reading the package must never run it
    "mypkg/sideeffect.py": """
        import os
        open(os.environ.get("MYPKG_MARKER", "/dev/null"), "w").write("imported")
        EXPORTED = 1
        """,
    "mypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: mypkg\nVersion: 1.0\n",
}

NET = """
    import mindspore.nn as nn
    import mypkg
    from mypkg import MyPreTrained, util


    class Net(MyPreTrained):
        def construct(self, x):
            print(x)
            return x


    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layer = mypkg.Layer()

        def construct(self, x):
            y = self.layer(x)
            if y > 0:
                return y
            return x


    class Calls(nn.Cell):
        def construct(self, x, n):
            y = util.make(3)
            if y > 0:
                return x
            return x
    """

# with the package read: Net's print (MSG201), Outer's `if` on the sub-Cell's output and
# Calls' `if` on the installed function's tensor (MSG101)
FOUND = [("net.py", 8, "MSG201"), ("net.py", 19, "MSG101"), ("net.py", 27, "MSG101")]


def make_venv(where: Path, files=PACKAGE) -> Path:
    """A venv (no pip, no network) with the package's files written into its
    site-packages by hand; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = Path(glob.glob(str(where / "lib" / "python*" / "site-packages"))[0])
    write_tree(site, files)
    return where / "bin" / "python"


def project(root: Path, config: str = "", net: str = NET) -> Path:
    write_tree(root, {"pyproject.toml": "[project]\nname = \"proj\"\n[tool.msgraphlint]\n" + config, "net.py": net})
    return root


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    return make_venv(tmp_path_factory.mktemp("env") / "venv")


@pytest.mark.parametrize("jobs", [1, 2])
def test_python_setting_reads_the_projects_interpreter(tmp_path, venv, monkeypatch, jobs):
    marker = tmp_path / "marker"
    monkeypatch.setenv("MYPKG_MARKER", str(marker))
    root = project(tmp_path / "proj", f'python = "{venv}"\n')
    if jobs == 2:
        write_tree(root, {f"other{i}.py": "import mindspore\nx = 1\n" for i in range(4)})
    assert codes_at(lint([root], jobs=jobs)) == FOUND
    assert not marker.exists()  # nothing of the package ran


def test_python_setting_relative_to_the_config_file(tmp_path):
    make_venv(tmp_path / "proj" / ".venv")
    root = project(tmp_path / "proj", 'python = ".venv/bin/python"\n')
    assert codes_at(lint([root])) == FOUND


def test_without_the_package_nothing_is_a_cell(tmp_path):
    """The control: the same tree, the package nowhere on the path."""
    root = project(tmp_path / "proj")
    assert codes_at(lint([root])) == []


def test_active_interpreter_by_default_cli(tmp_path):
    """No `python` setting: the sys.path of the interpreter running msgraphlint (here
    PYTHONPATH names the folder holding the package), in a CLI run."""
    site = write_tree(tmp_path / "site", PACKAGE)
    root = project(tmp_path / "proj")
    path = os.pathsep.join([str(site)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    env = dict(os.environ, PYTHONPATH=path, MYPKG_MARKER=str(tmp_path / "marker"))
    proc = subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--no-cache", "--output-format", "concise",
                           str(root)], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    got = sorted((line.split(":")[1], line.split(" ")[1]) for line in proc.stdout.splitlines() if "net.py:" in line)
    assert got == [("19", "MSG101"), ("27", "MSG101"), ("8", "MSG201")], proc.stdout
    assert not (tmp_path / "marker").exists()


def test_bases_deep_in_the_package_and_re_exported(tmp_path, venv):
    net = """
        from mypkg import ReExported
        from mypkg.deep import Deep


        class A(ReExported):
            def construct(self, x):
                print(x)
                return x


        class B(Deep):
            def construct(self, x):
                print(x)
                return x
        """
    root = project(tmp_path / "proj", f'python = "{venv}"\n', net)
    assert codes_at(lint([root])) == [("net.py", 7, "MSG201"), ("net.py", 13, "MSG201")]


def test_project_re_export_of_an_installed_cell(tmp_path, venv):
    """`from mypkg import MyPreTrained` in the project's own package, used from another module."""
    root = project(tmp_path / "proj", f'python = "{venv}"\n', "x = 1\n")
    write_tree(root, {
        "proj/__init__.py": "from mypkg import MyPreTrained as Base\n",
        "proj/model.py": """
            from proj import Base


            class Net(Base):
                def construct(self, x):
                    print(x)
                    return x
            """})
    assert codes_at(lint([root])) == [("model.py", 6, "MSG201")]


def test_installed_non_cell_stays_not_a_cell(tmp_path, venv):
    net = """
        from mypkg import Plain, util


        class Host(Plain):
            def construct(self, x):
                print(x)
                return x


        class Both(Plain, util.name):
            def construct(self, x):
                print(x)
                return x
        """
    root = project(tmp_path / "proj", f'python = "{venv}"\n', net)
    assert codes_at(lint([root])) == []


def test_version_change_invalidates_the_result_cache(tmp_path, monkeypatch):
    """v1.0: `Layer` is a Cell (Outer's `if` is MSG101); v2.0 makes it a plain class. The
    warm run must not replay v1's findings: the installed version is in the file's key,
    and the answers are stored per package==version."""
    from msgraphlint.project import installed
    monkeypatch.setattr(installed, "_ANSWERS", {})  # other tests' mypkg==1.0 answers, kept in memory
    venv = make_venv(tmp_path / "venv")
    site = Path(glob.glob(str(tmp_path / "venv" / "lib" / "python*" / "site-packages"))[0])
    root = project(tmp_path / "proj", f'python = "{venv}"\n')
    kw = dict(cache=True, cache_dir=str(tmp_path / "cache"))
    assert codes_at(lint([root], **kw)) == FOUND
    assert codes_at(lint([root], **kw)) == FOUND  # warm
    (site / "mypkg-1.0.dist-info").rename(site / "mypkg-2.0.dist-info")
    (site / "mypkg-2.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 2.0\n")
    base = (site / "mypkg" / "base.py").read_text().replace("class Layer(MyPreTrained):", "class Layer:")
    (site / "mypkg" / "base.py").write_text(base)
    assert codes_at(lint([root], **kw)) == [f for f in FOUND if f[1] != 19]
    stores = glob.glob(str(tmp_path / "cache" / "*" / "installed.json"))
    assert len(stores) == 1
    store = json.loads(Path(stores[0]).read_text())
    assert store["mypkg==1.0"]["call:mypkg.Layer"] == "cell"
    assert store["mypkg==2.0"]["call:mypkg.Layer"] == "unknown"
    assert store["mypkg==2.0"]["class:mypkg.MyPreTrained"] == "cell"


def test_broken_package_is_unknown_not_an_error(tmp_path):
    files = {"brokenpkg/__init__.py": "from .base import Base\n",
             "brokenpkg/base.py": "import mindspore.nn as nn\nclass Base(nn.Cell:\n    pass\n",
             "brokenpkg-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: brokenpkg\nVersion: 0.1\n"}
    venv = make_venv(tmp_path / "venv", files)
    net = """
        import brokenpkg
        import missingpkg


        class Net(brokenpkg.Base):
            def construct(self, x):
                print(x)
                return x


        class Other(missingpkg.Base):
            def construct(self, x):
                print(x)
                return x
        """
    root = project(tmp_path / "proj", f'python = "{venv}"\n', net)
    result = lint([root])
    assert codes_at(result) == []  # no MSG000, no finding


def test_a_python_that_does_not_exist_is_unknown_not_an_error(tmp_path, caplog):
    root = project(tmp_path / "proj", f'python = "{tmp_path / "nope" / "python"}"\n')
    with caplog.at_level(logging.WARNING, logger="msgraphlint.project.installed"):
        assert codes_at(lint([root])) == []
    warned = [r.getMessage() for r in caplog.records if r.name == "msgraphlint.project.installed"]
    assert len(warned) == 1 and "`python` setting" in warned[0] and "does not exist" in warned[0], warned


# the `python` setting is read, never run ---------------------------------------------------

def trap(path: Path, marker: Path, prints: str = "[]") -> Path:
    """An executable that leaves ``marker`` when run (and prints ``prints``, a plausible
    sys.path, so that a msgraphlint asking it would otherwise be answered)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\necho '{prints}'\n")
    path.chmod(0o755)
    return path


def fake_venv(root: Path, marker: Path, version: str = "3.10", files=PACKAGE, system: bool = False,
              home: str = "/nonexistent/bin") -> Path:
    """A virtual environment's layout by hand (no interpreter in it: bin/python is a trap):
    pyvenv.cfg, lib/python<version>/site-packages holding ``files``; returns its site-packages."""
    site = root / "lib" / f"python{version}" / "site-packages"
    site.mkdir(parents=True)
    write_tree(site, files)
    (root / "pyvenv.cfg").write_text(f"home = {home}\ninclude-system-site-packages = {str(system).lower()}\n"
                                     f"version = {version}.4\n")
    trap(root / "bin" / "python", marker, json.dumps([str(site)]))
    return site


@pytest.mark.parametrize("setting", ["bin/python", "", "bin"])
def test_python_setting_is_never_executed(tmp_path, monkeypatch, setting):
    """pyproject.toml naming an executable must not make msgraphlint run it (pre-commit, CI
    on an outside pull request, an editor opening the folder): the environment is read from
    its layout. Named as the executable, the venv folder or its bin folder."""
    marker = tmp_path / "marker"
    monkeypatch.setenv("MYPKG_MARKER", str(tmp_path / "imported"))
    fake_venv(tmp_path / "env", marker)
    target = tmp_path / "env" / setting if setting else tmp_path / "env"
    root = project(tmp_path / "proj", f'python = "{target}"\n')
    assert codes_at(lint([root])) == FOUND
    assert not marker.exists()
    assert not (tmp_path / "imported").exists()


def test_pth_path_lines_followed_import_lines_never_run(tmp_path, monkeypatch):
    """A real venv whose site-packages has .pth files: path lines (relative, absolute, an
    editable install's source folder) are followed, `import` lines are code and never run
    (the real interpreter runs them at start-up: asking it would have left the marker)."""
    from msgraphlint.project import installed
    marker = tmp_path / "pth-ran"
    monkeypatch.setenv("PTH_MARKER", str(marker))
    venv = make_venv(tmp_path / "venv", files={})
    site = Path(glob.glob(str(tmp_path / "venv" / "lib" / "python*" / "site-packages"))[0])
    src = write_tree(tmp_path / "checkout" / "src", {k: v for k, v in PACKAGE.items() if k.startswith("mypkg/")})
    write_tree(tmp_path / "other", {"otherpkg/__init__.py": "import mindspore.nn as nn\nclass O(nn.Cell):\n    pass\n"})
    (site / "a_editable.pth").write_text(
        "# an editable install\n\n"
        "import os; open(os.environ['PTH_MARKER'], 'w').write('ran')\n"
        f"{src}\n"
        "does/not/exist\n")
    (site / "b_rel.pth").write_text(os.path.relpath(tmp_path / "other", site) + "\n")
    (site / ".hidden.pth").write_text(str(tmp_path / "hidden") + "\n")
    (tmp_path / "hidden").mkdir()
    root = project(tmp_path / "proj", f'python = "{venv}"\n')
    assert codes_at(lint([root])) == FOUND
    assert not marker.exists()
    paths = installed.environment_search_path(str(venv))
    assert paths == [str(site), str(src), os.path.abspath(str(tmp_path / "other"))]
    assert installed.Environment(paths).answer("otherpkg.O") == "cell"


@pytest.mark.parametrize("system", [True, False])
def test_include_system_site_packages(tmp_path, monkeypatch, system):
    """The package in the base interpreter's site-packages (next to `home`): on the path
    only with include-system-site-packages = true."""
    from msgraphlint.project import installed
    monkeypatch.setenv("PYTHONUSERBASE", str(tmp_path / "no-user-site"))
    marker = tmp_path / "marker"
    base_site = write_tree(tmp_path / "base" / "lib" / "python3.10" / "site-packages", PACKAGE)
    trap(tmp_path / "base" / "bin" / "python3.10", marker)
    venv_site = fake_venv(tmp_path / "env", marker, files={}, system=system, home=str(tmp_path / "base" / "bin"))
    paths = installed.environment_search_path(str(tmp_path / "env" / "bin" / "python"))
    assert paths == ([str(venv_site), str(base_site)] if system else [str(venv_site)])
    root = project(tmp_path / "proj", f'python = "{tmp_path / "env" / "bin" / "python"}"\n')
    assert codes_at(lint([root])) == (FOUND if system else [])
    assert not marker.exists()


def test_layouts_without_a_venv(tmp_path, monkeypatch):
    """A system-style prefix (<prefix>/bin/python3.10, its lib/python3.10/site-packages), a
    conda environment (conda-meta names the version), a Windows venv (Scripts/, Lib/),
    lib64 the same folder as lib; none of them run."""
    from msgraphlint.project import installed
    monkeypatch.setenv("PYTHONUSERBASE", str(tmp_path / "userbase"))
    marker = tmp_path / "marker"
    prefix_site = write_tree(tmp_path / "prefix" / "lib" / "python3.10" / "site-packages", {"x.py": ""})
    trap(tmp_path / "prefix" / "bin" / "python3.10", marker)
    os.symlink("python3.10", tmp_path / "prefix" / "bin" / "python3")
    assert installed.environment_search_path(str(tmp_path / "prefix" / "bin" / "python3.10")) == [str(prefix_site)]
    assert installed.environment_search_path(str(tmp_path / "prefix" / "bin" / "python3")) == [str(prefix_site)]

    conda_site = write_tree(tmp_path / "conda" / "lib" / "python3.11" / "site-packages", {"x.py": ""})
    write_tree(tmp_path / "conda", {"conda-meta/python-3.11.9-h955ad1f_0.json": "{}",
                                    "lib/python3.10/site-packages/stale.py": ""})
    trap(tmp_path / "conda" / "bin" / "python", marker)
    assert installed.environment_search_path(str(tmp_path / "conda" / "bin" / "python")) == [str(conda_site)]
    assert installed.environment_search_path(str(tmp_path / "conda")) == [str(conda_site)]

    win_site = write_tree(tmp_path / "win" / "Lib" / "site-packages", {"x.py": ""})
    (tmp_path / "win" / "pyvenv.cfg").write_text("home = C:\\Python312\nversion = 3.12.1\n")
    trap(tmp_path / "win" / "Scripts" / "python.exe", marker)
    assert installed.environment_search_path(str(tmp_path / "win" / "Scripts" / "python.exe")) == [str(win_site)]

    user = write_tree(tmp_path / "userbase" / "lib" / "python3.10" / "site-packages", {"u.py": ""})
    assert installed.environment_search_path(str(tmp_path / "prefix")) == [str(user), str(prefix_site)]

    venv = make_venv(tmp_path / "venv", files={})
    assert os.path.islink(tmp_path / "venv" / "lib64") or not os.path.exists(tmp_path / "venv" / "lib64")
    sites = glob.glob(str(tmp_path / "venv" / "lib" / "python*" / "site-packages"))
    assert installed.environment_search_path(str(venv)) == sites
    assert not marker.exists()


@pytest.mark.parametrize("layout", ["lone", "ambiguous", "not-python"])
def test_not_a_venv_is_unknown_with_one_warning(tmp_path, caplog, layout):
    """An executable outside any venv or installation prefix, a prefix holding two Pythons'
    site-packages and a name that is no Python: unknown, one warning naming the setting,
    no error of the run, nothing run."""
    marker = tmp_path / "marker"
    name = "python" if layout != "not-python" else "sh"
    python = trap(tmp_path / "tools" / "bin" / name, marker, json.dumps([str(tmp_path / "site")]))
    write_tree(tmp_path / "site", PACKAGE)
    if layout != "lone":
        write_tree(tmp_path / "tools", {"lib/python3.10/site-packages/mypkg/__init__.py": "",
                                        "lib/python3.11/site-packages/mypkg/__init__.py": ""})
    root = project(tmp_path / "proj", f'python = "{python}"\n')
    with caplog.at_level(logging.WARNING, logger="msgraphlint.project.installed"):
        assert codes_at(lint([root])) == []
        assert codes_at(lint([root])) == []   # warned once: the layout is remembered
    warned = [r.getMessage() for r in caplog.records if r.name == "msgraphlint.project.installed"]
    assert len(warned) == 1 and f"`python` setting {python}" in warned[0] and "\n" not in warned[0], warned
    assert ("3.10, 3.11" in warned[0]) == (layout == "ambiguous"), warned
    assert not marker.exists()


def test_mindspore_is_neither_read_nor_imported(tmp_path):
    """In the environment running msgraphlint (MindSpore installed there): a package whose
    classes derive from mindspore.nn.Cell and that star-imports mindspore is judged by the
    catalog; no mindspore module is read or imported."""
    files = dict(PACKAGE)
    files["mypkg/__init__.py"] = textwrap.dedent(files["mypkg/__init__.py"]) + "from mindspore.nn import *\nfrom mindspore import *\n"
    site = write_tree(tmp_path / "site", files)
    probe = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(site)!r})
        from msgraphlint.project import installed
        env = installed.environment()
        print(env.answer("mypkg.MyPreTrained"), env.answer("mypkg.Deep"), env.answer("mypkg.ReExported"))
        read = sorted(m for m in env.modules if m.split(".")[0] == "mindspore" and env.modules[m] is not None)
        loaded = sorted(n for n in sys.modules if n.split(".")[0] in ("mindspore", "mypkg"))
        print(read, loaded)
        """)
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=str(tmp_path),
                          env=dict(os.environ, MYPKG_MARKER=str(tmp_path / "marker")))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["cell unknown cell", "[] []"], proc.stdout
    assert not (tmp_path / "marker").exists()


def test_budget_bounds_a_huge_package(tmp_path, monkeypatch):
    """A base chain through more modules than the budget allows is unknown, read no further."""
    from msgraphlint.project import installed
    files = {"chain/__init__.py": "from .m0 import C0\n",
             "chain-1.dist-info/METADATA": "Metadata-Version: 2.1\nName: chain\nVersion: 1\n"}
    for i in range(40):
        files[f"chain/m{i}.py"] = f"from chain.m{i + 1} import C{i + 1}\nclass C{i}(C{i + 1}):\n    pass\n"
    files["chain/m40.py"] = "import mindspore.nn as nn\nclass C40(nn.Cell):\n    pass\n"
    site = write_tree(tmp_path / "site", files)
    env = installed.Environment([str(site)])
    assert env.answer("chain.C0") == "cell"
    assert env.modules_read == 42
    monkeypatch.setattr(installed, "MAX_MODULES", 10)
    monkeypatch.setattr(installed, "_ANSWERS", {})  # the first answer is remembered for chain==1
    env = installed.Environment([str(site)])
    assert env.answer("chain.C0") == "unknown"
    assert env.modules_read == 10 and env.spent
    assert env.answer("chain.C39") == "unknown"  # spent for the run


def test_function_returns_and_classes_directly(tmp_path):
    from msgraphlint.project import installed
    site = write_tree(tmp_path / "site", PACKAGE)
    env = installed.Environment([str(site)])
    assert env.answer("mypkg.util.make", "call") == "tensor"
    assert env.answer("mypkg.util.name", "call") == "const"
    assert env.answer("mypkg.Layer", "call") == "cell"
    assert env.answer("mypkg.Plain") == "not-cell"
    assert env.answer("mypkg.NoSuch") == "unknown"
    assert env.package_key("mypkg") == "mypkg==1.0"
    assert env.package_key("notthere") == "notthere==absent"


def test_config_python_key_is_validated(tmp_path):
    from msgraphlint.config import ConfigError, load_config
    (tmp_path / "pyproject.toml").write_text("[tool.msgraphlint]\npython = 3\n")
    with pytest.raises(ConfigError, match="`python` must be a string"):
        load_config(start=str(tmp_path))
    (tmp_path / "pyproject.toml").write_text('[tool.msgraphlint]\npython = " "\n')
    with pytest.raises(ConfigError, match="`python` must name"):
        load_config(start=str(tmp_path))
    (tmp_path / "pyproject.toml").write_text('[tool.msgraphlint]\npython = "venv/bin/python"\n')
    assert load_config(start=str(tmp_path)).python == str(tmp_path / "venv" / "bin" / "python")


def test_each_file_reads_its_own_configurations_interpreter(tmp_path, venv):
    """Two projects in one run: a/ names the venv holding the package, b/ names none (the
    running interpreter, which does not have it): a's Net is a Cell, b's is not."""
    net = "from mypkg import MyPreTrained\n\n\nclass Net(MyPreTrained):\n    def construct(self, x):\n" \
          "        print(x)\n        return x\n"
    write_tree(tmp_path, {"a/pyproject.toml": f'[tool.msgraphlint]\npython = "{venv}"\n', "a/neta.py": net,
                          "b/pyproject.toml": "[tool.msgraphlint]\n", "b/netb.py": net})
    assert codes_at(lint([tmp_path / "a", tmp_path / "b"])) == [("neta.py", 6, "MSG201")]
    assert codes_at(lint([tmp_path / "b", tmp_path / "a"])) == [("neta.py", 6, "MSG201")]


def test_plain_unknown_calls_are_told_without_astroid_and_agree_with_it(tmp_path, monkeypatch):
    """A function whose answer is surely unknown from the standard library's ast of its own
    module (it yields, returns a name, or returns an instance of a class of that module
    with no base outside it) is answered without reading the module with astroid; every
    answer is the one astroid gives."""
    from msgraphlint.project import installed
    site = write_tree(tmp_path / "site", {
        "plainpkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: plainpkg\nVersion: 1.0\n",
        "plainpkg/__init__.py": "",
        "plainpkg/version.py": textwrap.dedent("""\
            import mindspore.nn as nn

            class _Base:
                pass

            class Version(_Base):
                pass

            class Net(nn.Cell):
                pass

            class Sub(Net):
                pass

            def parse(v):
                return Version(v)

            def gen():
                yield 1

            def same(x):
                return x

            def lit():
                return 1

            def net():
                return Sub()

            def shadowed(v):
                Sub = Version
                return Sub(v)
            """),
    })
    asked = ["parse", "gen", "same", "lit", "net", "shadowed"]
    env = installed.Environment([str(site)])
    plain = {}
    for name in asked[:3]:
        plain[name] = env.answer(f"plainpkg.version.{name}", "call")
    assert env.modules_read == 0, "parse, gen and same are told without astroid"
    got = dict(plain, **{name: env.answer(f"plainpkg.version.{name}", "call") for name in asked[3:]})
    assert env.modules_read == 1   # lit, net and shadowed need astroid's reading
    monkeypatch.setattr(installed, "_ANSWERS", {})
    monkeypatch.setattr(installed.Environment, "_surely_unknown_call", lambda self, dotted: False)
    astroid_only = installed.Environment([str(site)])
    expected = {name: astroid_only.answer(f"plainpkg.version.{name}", "call") for name in asked}
    assert expected == {"parse": "unknown", "gen": "unknown", "same": "unknown", "lit": "const",
                        "net": "cell", "shadowed": "unknown"}
    assert got == expected

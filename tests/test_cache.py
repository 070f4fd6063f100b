"""The result cache: warm runs agree with cold runs and are invalidated by what
matters (the file, a module it imports, the settings)."""

from __future__ import annotations

import subprocess
import sys

from msgraphlint.runner import run_paths

from helpers import write_tree

BASE = """
import mindspore.nn as nn
class Base(nn.Cell):
    pass
"""
NOT_A_CELL = """
class Base:
    pass
"""
MODEL = """
from base import Base
class Net(Base):
    def construct(self, x):
        print(x)
        return x
"""


def findings(root, cache_dir, **kw):
    res = run_paths([str(root)], cache=True, cache_dir=str(cache_dir), **kw)
    return sorted((f.path.rsplit("/", 1)[-1], f.line, f.code) for fr in res.files for f in fr.findings)


def test_warm_equals_cold_and_hits(tmp_path):
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    cold = findings(proj, cache)
    assert cold == [("model.py", 4, "MSG201")]
    from msgraphlint.cache import ResultCache
    assert any(cache.rglob("*.pkl"))
    warm = findings(proj, cache)
    assert warm == cold


def test_changing_an_imported_module_invalidates(tmp_path):
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    (proj / "base.py").write_text(NOT_A_CELL)   # Net is no longer a Cell: no graph scope
    assert findings(proj, cache) == []


def test_changing_settings_invalidates(tmp_path):
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    assert findings(proj, cache, ignore=["MSG201"]) == []
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]


def test_concurrent_runs_share_a_cache_safely(tmp_path):
    proj, cache = tmp_path / "p", tmp_path / "c"
    files = {"base.py": BASE}
    files.update({f"m{i}.py": MODEL for i in range(20)})
    write_tree(proj, files)
    cmd = [sys.executable, "-m", "msgraphlint", "check", "--format", "concise", "--cache-dir", str(cache), str(proj)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(o == outs[0] for o in outs) and outs[0].count("MSG201") == 20
    again = subprocess.run(cmd, capture_output=True, text=True).stdout
    assert again == outs[0]
    assert not [p for p in cache.rglob(".tmp-*")]


def test_no_cache_flag_writes_nothing(tmp_path):
    from click.testing import CliRunner
    from msgraphlint.cli import cli
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    r = CliRunner().invoke(cli, ["check", "--no-cache", "--cache-dir", str(cache), str(proj)])
    assert r.exit_code == 1
    assert not cache.exists()

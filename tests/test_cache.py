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
    assert any(cache.rglob("*.json")) and not any(cache.rglob("*.pkl"))
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


def _computing_fails(monkeypatch):
    """After this, a run that summarises or checks any file reports MSG000 for it."""
    import msgraphlint.filework as filework

    def boom(*a, **k):
        raise AssertionError("the warm run computed something")

    monkeypatch.setattr(filework, "phase1_compute", boom)
    monkeypatch.setattr(filework, "_lint_python", boom)


def test_warm_run_computes_nothing(tmp_path, monkeypatch):
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    cold = findings(proj, cache)
    _computing_fails(monkeypatch)
    assert findings(proj, cache) == cold


def test_cache_is_shared_across_jobs(tmp_path, monkeypatch):
    """A cache written by --jobs 2 serves --jobs 1 (and the other way round) completely."""
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL, **{f"m{i}.py": MODEL for i in range(4)}})
    cold = findings(proj, cache, jobs=2)
    assert len(cold) == 5
    _computing_fails(monkeypatch)
    assert findings(proj, cache, jobs=1) == cold
    proj2, cache2 = tmp_path / "p2", tmp_path / "c2"
    monkeypatch.undo()
    write_tree(proj2, {"base.py": BASE, "model.py": MODEL, **{f"m{i}.py": MODEL for i in range(4)}})
    cold2 = findings(proj2, cache2, jobs=1)
    _computing_fails(monkeypatch)  # inherited by the forked workers
    assert findings(proj2, cache2, jobs=2) == cold2


def test_entries_are_json_with_a_checksum_and_no_pickle(tmp_path):
    import inspect

    import msgraphlint.cache as cache_mod

    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    findings(proj, cache)
    entries = list(cache.rglob("*.json"))
    assert entries
    for e in entries:
        head, _, payload = e.read_bytes().partition(b"\n")
        magic, fmt, kind, key, sha = head.split(b" ")
        assert magic == b"msgraphlint-cache" and kind in (b"p1", b"p2") and e.stem == key.decode()[2:]
        import hashlib
        import json
        assert hashlib.sha256(payload).hexdigest() == sha.decode()
        json.loads(payload)
    assert "pickle" not in inspect.getsource(cache_mod).replace("never pickle", "").replace("1: pickle", "")


def test_foreign_entry_is_a_miss_and_removed(tmp_path, caplog):
    """An entry copied under another key (a shared CI cache, a bad sync) is never used."""
    import logging

    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    cold = findings(proj, cache)
    p2 = sorted(cache.rglob("p2/*/*.json"))
    p1 = sorted(cache.rglob("p1/*/*.json"))
    victim = p1[0]
    victim.write_bytes(p2[0].read_bytes())
    with caplog.at_level(logging.INFO, logger="msgraphlint.cache"):
        assert findings(proj, cache) == cold
    assert "dropped unusable entry" in caplog.text and str(victim) in caplog.text
    assert victim.exists()  # rewritten by the run with a correct entry
    head = victim.read_bytes().split(b" ")[2:4]
    assert head == [b"p1", (victim.parent.name + victim.stem).encode()]


def test_fuzz_corrupted_entries_are_misses(tmp_path):
    """Flip, drop, insert and truncate bytes of real entries, thousands of times: every
    read returns the entry unchanged or misses (and removes the file); nothing raises."""
    import random
    import shutil
    import time

    from msgraphlint.cache import ResultCache

    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    findings(proj, cache)
    rc = ResultCache(str(cache))
    entries = [(p, p.parent.parent.name, p.parent.name + p.stem) for p in cache.rglob("*.json")]
    originals = {p: p.read_bytes() for p, _, _ in entries}
    values = {p: rc.get(kind, key) for p, kind, key in entries}
    assert all(v is not None for v in values.values())
    rng = random.Random(12)
    counts = {"miss": 0, "same": 0}
    slowest = 0.0
    for n in range(3000):
        p, kind, key = entries[n % len(entries)]
        data = bytearray(originals[p])
        how = n % 5
        i = rng.randrange(len(data))
        if how == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif how == 1:
            del data[i]
        elif how == 2:
            data.insert(i, rng.randrange(256))
        elif how == 3:
            data = data[:i]
        else:
            data[i:i + 8] = bytes(rng.randrange(256) for _ in range(8))
        p.write_bytes(bytes(data))
        start = time.perf_counter()
        got = rc.get(kind, key)
        slowest = max(slowest, time.perf_counter() - start)
        if got is None:
            counts["miss"] += 1
            assert not p.exists()
        else:
            counts["same"] += 1
            assert repr(got) == repr(values[p])
    assert counts["miss"] > 2900, counts
    assert slowest < 1.0, slowest  # the pickle cache took 5-18 s to reject some corruptions
    # and a whole run over a corrupted cache still equals a cold run
    shutil.rmtree(cache)
    cold = findings(proj, cache)
    for p in cache.rglob("*.json"):
        raw = bytearray(p.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        p.write_bytes(bytes(raw))
    assert findings(proj, cache) == cold


def test_dropped_entries_are_reported_with_v(tmp_path):
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    findings(proj, cache)
    victim = sorted(cache.rglob("p2/*/*.json"))[0]
    victim.write_bytes(victim.read_bytes()[:-3])
    cmd = [sys.executable, "-m", "msgraphlint", "check", "--format", "concise", "--cache-dir", str(cache), str(proj)]
    proc = subprocess.run(cmd + ["-v"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "model.py:4" in proc.stdout
    assert "cache: dropped unusable entry" in proc.stderr and victim.name in proc.stderr
    quiet = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 1 and "cache" not in quiet.stderr

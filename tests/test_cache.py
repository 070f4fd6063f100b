"""The result cache: warm runs agree with cold runs and are invalidated by what
matters (the file, a module it imports, the settings)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import pytest

from msgraphlint.run.runner import run_paths

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
    import msgraphlint.run.filework as filework

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

    import msgraphlint.cache.store as cache_mod

    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    findings(proj, cache)
    entries = list(cache.rglob("*.json"))
    assert entries
    for e in entries:
        head, _, payload = e.read_bytes().partition(b"\n")
        magic, fmt, kind, key, sha = head.split(b" ")
        assert magic == b"msgraphlint-cache" and kind in (b"p1", b"p2", b"run") and e.stem == key.decode()[2:]
        import hashlib
        import json
        assert hashlib.sha256(payload).hexdigest() == sha.decode()
        json.loads(payload)
    assert "pickle" not in inspect.getsource(cache_mod).replace("never pickle", "").replace("1: pickle", "")


def _drop_snapshots(cache):
    for p in cache.rglob("run/*/*.json"):
        p.unlink()


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
    _drop_snapshots(cache)  # else the run's snapshot answers and no entry is read
    with caplog.at_level(logging.INFO, logger="msgraphlint.cache.store"):
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

    from msgraphlint.cache.store import ResultCache

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
    _drop_snapshots(cache)  # else the run's snapshot answers and no entry is read
    cmd = [sys.executable, "-m", "msgraphlint", "check", "--format", "concise", "--cache-dir", str(cache), str(proj)]
    proc = subprocess.run(cmd + ["-v"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "model.py:4" in proc.stdout
    assert "cache: dropped unusable entry" in proc.stderr and victim.name in proc.stderr
    quiet = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert quiet.returncode == 1 and "cache" not in quiet.stderr


# ------------------------------------------------------------------------------------
# entries with a valid checksum but a wrong shape are misses

RICH = {
    "base.py": """
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import ops


        class Base(nn.Cell):
            def __init__(self):
                super().__init__()
                self.relu = nn.ReLU()
                self.scale = 2

            def helper(self, x):
                print(x)
                return self.relu(x)
        """,
    "model.py": """
        import numpy as np
        import mindspore as ms
        from mindspore import jit, Tensor
        from base import Base


        class Net(Base):
            def construct(self, x):
                y = self.helper(x)
                print(y)  # noqa: MSG201
                z = x.asnumpy()  # msgraphlint: ignore[MSG401]
                if x > 0:
                    y = y + 1
                return y


        def factory(n):
            @jit
            def step(x):
                print(x)
                return x * n
            return step


        @jit(capture_mode="bytecode")
        def f(x):
            return x


        def main():
            net = Net()
            net(Tensor(np.ones((2, 2)), ms.float32))
            factory(3)(Tensor([1.0]))
        """,
    "bad.py": "import mindspore\ndef broken(:\n    pass\n",
    "plain.py": "def plain():\n    return 1\n",
}
# by hand: the syntax error; print in the helper construct calls; the tensor condition; print in the
# nested jit function (the print on line 10 and the asnumpy on line 11 are suppressed)
# model.py:9 `self.helper(x)` reaches base.py's print: reported at that call too (MSG004)
RICH_FINDINGS = [("bad.py", 2, "MSG001"), ("base.py", 13, "MSG201"), ("model.py", 9, "MSG004"),
                 ("model.py", 12, "MSG101"), ("model.py", 20, "MSG201")]


def _all_findings(root, cache_dir):
    res = run_paths([str(root)], cache=True, cache_dir=str(cache_dir))
    return sorted((f.path.rsplit("/", 1)[-1], f.line, f.col, f.code, f.message)
                  for fr in res.files for f in fr.findings + fr.unused_suppressions)


def _entries(cache):
    """(path, kind, key, header fields, payload) of every entry."""
    out = []
    for p in sorted(cache.rglob("*.json")):
        head, _, payload = p.read_bytes().partition(b"\n")
        fields = head.split(b" ")
        out.append((p, fields[2].decode(), fields[3].decode(), fields, payload))
    return out


def _plant(path, fields, payload: bytes):
    """Write an entry whose header carries the payload's real SHA-256 (what a planted or
    other-version entry would have)."""
    import hashlib
    head = b" ".join(fields[:4] + [hashlib.sha256(payload).hexdigest().encode()])
    path.write_bytes(head + b"\n" + payload)


def _nodes(tree):
    """Every node of an encoded JSON tree: (path, node, a function replacing it (None for the
    root), whether it is a raw map: the field map of an object or the str-keyed map of a "d")."""
    out = []

    def walk(path, node, setter, raw):
        out.append((path, node, setter, raw))
        if node.__class__ is list:
            for i, v in enumerate(node):
                walk(path + (i,), v, lambda new, _n=node, _i=i: _n.__setitem__(_i, new), False)
        elif node.__class__ is dict:
            for k, v in list(node.items()):
                inner_raw = not raw and ((k == "f" and "c" in node) or (k == "d" and len(node) == 1))
                walk(path + (k,), v, lambda new, _n=node, _k=k: _n.__setitem__(_k, new), inner_raw)
    walk((), tree, None, False)
    return out


DEEP = "\x00deep\x00"
TAGS = ("t", "s", "z", "d", "m")


def _mutated(tree, rng, objects, other_root):
    """The payload of a copy of an entry's JSON tree with one to three changes at disjoint
    places (none inside another), each of which no entry of its kind can hold: a wrong type
    where a scalar belongs (never None, which Optional fields allow), absurd ints, extra
    nesting, a list where a dict or object belongs, a field missing, extra or renamed,
    another class or enum, an unknown enum value, another container tag, a deeply nested
    list; or the other kind's payload."""
    import copy
    import json
    t = copy.deepcopy(tree)
    nodes = _nodes(t)
    if rng.random() < 0.02:
        t = copy.deepcopy(other_root)
    else:
        chosen = []
        for _ in range(rng.randint(1, 3)):
            cand = rng.choice(nodes)
            if all(cand[0][:len(c[0])] != c[0] and c[0][:len(cand[0])] != cand[0] for c in chosen):
                chosen.append(cand)
        news = [(setter, _replacement(node, raw, rng, objects)) for _, node, setter, raw in chosen]
        for setter, new in news:
            if setter is None:
                t = new
            else:
                setter(new)
    text = json.dumps(t, separators=(",", ":"))
    depth = rng.choice([3, 60, 100_000])
    return text.replace('"\\u0000deep\\u0000"', "[" * depth + "]" * depth).encode()


def _replacement(node, raw, rng, objects):
    """What replaces an (unmutated) node of an entry: something its place never holds."""
    import copy
    if node.__class__ is bool:
        options = [int(node), 1 - int(node), str(node).lower(), [node], 0.5]
    elif node.__class__ is int:
        options = [str(node), node + 0.5, True, [node], {"t": [node]}, -1, -node - 1, -2 ** 40, 2 ** 31, 10 ** 30]
    elif node.__class__ is str:
        options = [1, 2.5, False, [node], {"d": {}}, {"t": [node]}]
    elif node is None:
        options = [{"x": 1}, 3.5, [None], False]
    elif node.__class__ is list:
        options = [[node], {"d": {str(i): v for i, v in enumerate(node)}}, "[]", DEEP]
    elif raw:  # an object's field map, a "d" map: a list, extra nesting
        options = [[node], list(node.values()), DEEP]
    else:
        options = [[node], list(node.values()), DEEP, {**node, "x": 1}]
        if "c" in node:
            fields = node["f"]
            name = rng.choice(sorted(fields)) if fields else None
            others = [o for o in objects if o["c"] != node["c"]]
            options += [{"c": node["c"], "f": {**fields, "zz": 0}}, {"c": node["c"], "f": list(fields.values())},
                        {"c": node["c"], "f": [fields]}, {"c": "Evil", "f": fields},
                        {"c": rng.choice(sorted({o["c"] for o in others})), "f": fields},
                        copy.deepcopy(rng.choice(others))]
            if name:
                options += [{"c": node["c"], "f": {k: v for k, v in fields.items() if k != name}},
                            {"c": node["c"], "f": {("zz" if k == name else k): v for k, v in fields.items()}}]
        elif "e" in node:
            options += [{"e": node["e"], "v": "fatal"}, {"e": "FixSafety" if node["e"] == "Severity" else "Severity",
                                                           "v": node["v"]}, {"e": node["e"]}]
        else:
            (tag, items), = node.items()
            options += [{rng.choice([x for x in TAGS if x != tag]): items}, {tag: {tag: items}}]
    return rng.choice(options)


def _objects(trees):
    objs = []
    for tree in trees:
        objs.extend(n for _, n, _, raw in _nodes(tree) if not raw and n.__class__ is dict and "c" in n and "f" in n)
    return objs


def test_wrong_shape_entries_with_valid_checksums_are_misses(tmp_path, caplog):
    """Thousands of planted shapes, each with a correct header and checksum: every read is
    a miss that removes the entry, nothing raises."""
    import json
    import logging
    import random

    from msgraphlint.cache.store import ResultCache

    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, RICH)
    assert sorted((name, line, code) for name, line, _, code, _ in _all_findings(proj, cache)) == RICH_FINDINGS
    entries = _entries(cache)
    kinds = {k for _, k, _, _, _ in entries}
    assert kinds == {"p1", "p2", "run"} and len(entries) == 7
    trees = {p: json.loads(payload) for p, _, _, _, payload in entries}
    objects = _objects(trees.values())
    # every data class the cache holds is in these entries (Codemod: MSG101; RunSnapshot, SnapFile,
    # StoredResult: the run's snapshot)
    assert len({o["c"] for o in objects}) == 15
    by_kind = {k: [trees[p] for p, kk, _, _, _ in entries if kk == k] for k in kinds}
    rc = ResultCache(str(cache))
    rng = random.Random(20)
    shapes = set()
    with caplog.at_level(logging.INFO, logger="msgraphlint.cache.store"):
        for n in range(4000):
            p, kind, key, fields, _ = entries[n % len(entries)]
            other = rng.choice(by_kind["p2" if kind == "p1" else "p1"])
            payload = _mutated(trees[p], rng, objects, other)
            shapes.add((kind, payload))
            _plant(p, fields, payload)
            assert rc.get(kind, key) is None, payload[:300]
            assert not p.exists()
    assert rc.dropped == 4000 and caplog.text.count("dropped unusable entry") == 4000
    assert len(shapes) > 2500, len(shapes)
    print(f"planted shapes tried: {len(shapes)} distinct of 4000")


def test_run_over_wrong_shape_entries_equals_a_cold_run(tmp_path, caplog):
    """Each round plants a differently mutated entry at every key; the run reports what a
    cold run reports, no MSG000, and every planted entry is dropped (logged)."""
    import json
    import logging
    import random

    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, RICH)
    cold = _all_findings(proj, cache)
    assert not [f for f in cold if f[3] == "MSG000"]
    entries = _entries(cache)
    trees = {p: json.loads(payload) for p, _, _, _, payload in entries}
    objects = _objects(trees.values())
    by_kind = {k: [trees[p] for p, kk, _, _, _ in entries if kk == k] for k in ("p1", "p2")}
    rng = random.Random(10)
    planted = 0
    for _round in range(100):
        for p, kind, _key, fields, _ in entries:
            other = rng.choice(by_kind["p2" if kind == "p1" else "p1"])
            _plant(p, fields, _mutated(trees[p], rng, objects, other))
            planted += 1
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="msgraphlint.cache.store"):
            assert _all_findings(proj, cache) == cold
        assert caplog.text.count("dropped unusable entry") == len(entries), caplog.text
    print(f"planted shapes run through the checker: {planted}")


# ------------------------------------------------------------------------------------
# clean removes only msgraphlint's own (marked) cache folders

def _snapshot(root):
    """Every path under root with its bytes (folders as None)."""
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))}


def _clean(monkeypatch, cwd, *args):
    from click.testing import CliRunner

    from msgraphlint.cli import cli
    monkeypatch.delenv("MSGRAPHLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(cli, ["clean", *args], catch_exceptions=False)


def _check(monkeypatch, cwd, *args):
    from click.testing import CliRunner

    from msgraphlint.cli import cli
    monkeypatch.delenv("MSGRAPHLINT_CACHE_DIR", raising=False)
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(cli, ["check", "--format", "concise", *args, "."], catch_exceptions=False)


NOTES = {"todo.md": "- call the bank\n", "ideas/plan.txt": "a plan\n", "ideas/deep/x.bin": "\x00\x01"}


def test_clean_refuses_a_sibling_folder_named_by_an_absolute_cache_dir(tmp_path, monkeypatch):
    """The reproduced case: a cloned project's pyproject.toml says cache-dir = "/abs/notes"."""
    notes = write_tree(tmp_path / "notes", NOTES)
    proj = write_tree(tmp_path / "proj", {"pyproject.toml": f'[tool.msgraphlint]\ncache-dir = "{notes}"\n',
                                          "model.py": MODEL, "base.py": BASE})
    before = _snapshot(notes)
    r = _clean(monkeypatch, proj)
    assert r.exit_code == 2, r.output
    assert f"refusing to remove {notes}" in r.stderr and "not a msgraphlint cache folder" in r.stderr
    assert "nothing was deleted" in r.stderr
    assert _snapshot(notes) == before
    # check uses the existing folder as it is (entries in v2-*/) and never marks it; clean still refuses
    assert _check(monkeypatch, proj).exit_code == 1
    assert any(notes.rglob("*.json")) and not (notes / "CACHEDIR.TAG").exists()
    r = _clean(monkeypatch, proj)
    assert r.exit_code == 2 and str(notes) in r.stderr
    after = _snapshot(notes)
    assert {k: v for k, v in after.items() if not k.startswith("v2-")} == before


def test_clean_refuses_a_project_folder_named_by_a_relative_cache_dir(tmp_path, monkeypatch):
    """The reproduced case: cache-dir = "src/data" in the project's pyproject.toml."""
    proj = write_tree(tmp_path / "proj", {"pyproject.toml": '[tool.msgraphlint]\ncache-dir = "src/data"\n',
                                          "src/model.py": MODEL, "src/base.py": BASE,
                                          "src/data/train.csv": "a,b\n1,2\n", "src/data/raw/x.json": "{}"})
    before = _snapshot(proj)
    r = _clean(monkeypatch, proj)
    assert r.exit_code == 2, r.output
    assert str(proj / "src" / "data") in r.stderr and "nothing was deleted" in r.stderr
    assert _snapshot(proj) == before
    r = _clean(monkeypatch, proj / "src", "--cache-dir", "data")  # spelled on the command line: the same
    assert r.exit_code == 2 and _snapshot(proj) == before


def test_clean_removes_a_cache_msgraphlint_created_and_marked(tmp_path, monkeypatch):
    proj = write_tree(tmp_path / "proj", {"pyproject.toml": '[tool.msgraphlint]\ncache-dir = ".mscache"\n',
                                          "model.py": MODEL, "base.py": BASE})
    assert _check(monkeypatch, proj).exit_code == 1
    cache = proj / ".mscache"
    tag = (cache / "CACHEDIR.TAG").read_bytes()
    assert tag.split(b"\n")[0] == b"Signature: 8a477f597d28d172789f06886806bc55"
    assert b"msgraphlint" in tag.split(b"\n")[1]
    assert "*" in (cache / ".gitignore").read_text().splitlines()
    assert any(cache.rglob("*.json"))
    r = _clean(monkeypatch, proj)
    assert r.exit_code == 0, r.output
    assert r.output == f"Removed the cache at {cache}.\n"
    assert not cache.exists() and (proj / "model.py").exists()
    r = _clean(monkeypatch, proj)
    assert r.exit_code == 0 and r.output == f"No cache at {cache}.\n"


def test_clean_refuses_an_unmarked_cache_of_an_older_version(tmp_path, monkeypatch):
    old = write_tree(tmp_path / "old", {"v2-0.0.9/p1/ab/cdef.json": "x", "v2-0.0.9/p2/cd/ef01.json": "y",
                                        "verify/k.json": "{}"})
    before = _snapshot(old)
    r = _clean(monkeypatch, tmp_path, "--cache-dir", str(old))
    assert r.exit_code == 2, r.output
    assert "older msgraphlint" in r.stderr and f"delete it by hand (rm -r {old})" in r.stderr
    assert _snapshot(old) == before


def test_clean_refuses_other_tools_tags_and_tags_that_are_links(tmp_path, monkeypatch):
    other = write_tree(tmp_path / "other", {"CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n"
                                                            "# created by some other tool\n", "data.bin": "1"})
    real = tmp_path / "real"
    proj = write_tree(tmp_path / "proj", {"model.py": MODEL, "base.py": BASE})
    assert _check(monkeypatch, proj, "--cache-dir", str(real)).exit_code == 1
    assert (real / "CACHEDIR.TAG").is_file()
    linked = write_tree(tmp_path / "linked", {"data.bin": "2"})
    (linked / "CACHEDIR.TAG").symlink_to(real / "CACHEDIR.TAG")  # a marker through a link is no marker
    for folder in (other, linked):
        before = _snapshot(folder)
        r = _clean(monkeypatch, tmp_path, "--cache-dir", str(folder))
        assert r.exit_code == 2 and str(folder) in r.stderr, r.output
        assert _snapshot(folder) == before


def test_clean_never_follows_symlinks_out_of_the_cache(tmp_path, monkeypatch):
    proj = write_tree(tmp_path / "proj", {"model.py": MODEL, "base.py": BASE})
    cache = tmp_path / "cache"
    assert _check(monkeypatch, proj, "--cache-dir", str(cache)).exit_code == 1
    outside = write_tree(tmp_path / "outside", NOTES)
    before = _snapshot(outside)
    entry_dir = next(cache.rglob("p1/*"))
    (entry_dir / "to_folder").symlink_to(outside, target_is_directory=True)
    (entry_dir / "to_file.json").symlink_to(outside / "todo.md")
    (cache / "top_link").symlink_to(outside)
    # the cache path itself a link to a real, marked cache: refused, both kept
    link = tmp_path / "cache-link"
    link.symlink_to(cache, target_is_directory=True)
    r = _clean(monkeypatch, tmp_path, "--cache-dir", str(link))
    assert r.exit_code == 2 and "symbolic link" in r.stderr, r.output
    assert (cache / "CACHEDIR.TAG").exists() and link.is_symlink()
    r = _clean(monkeypatch, tmp_path, "--cache-dir", str(cache))
    assert r.exit_code == 0, r.output
    assert not cache.exists() and _snapshot(outside) == before


def test_clean_leaves_a_file_system_mounted_inside_the_cache(tmp_path, monkeypatch):
    proj = write_tree(tmp_path / "proj", {"model.py": MODEL, "base.py": BASE})
    cache = tmp_path / "cache"
    assert _check(monkeypatch, proj, "--cache-dir", str(cache)).exit_code == 1
    mnt = cache / "mnt"
    mnt.mkdir()
    with _tmpfs(mnt, "64k"):
        (mnt / "keep.txt").write_text("on another file system")
        r = _clean(monkeypatch, tmp_path, "--cache-dir", str(cache))
        assert r.exit_code == 2 and f"{mnt} (another file system is mounted there)" in r.stderr, r.output
        assert (mnt / "keep.txt").read_text() == "on another file system"
        assert not any(cache.rglob("*.json"))  # the rest is gone
        assert (cache / "CACHEDIR.TAG").exists()  # kept while anything is left: clean can run again


@contextlib.contextmanager
def _tmpfs(where, size):
    """A tmpfs of ``size`` mounted at ``where`` (root only). Skipped where it cannot be
    mounted, except under CI=true, where that fails the test."""
    try:
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                              capture_output=True, text=True, timeout=60)
        why = proc.stderr.strip() if proc.returncode else ""
    except (OSError, subprocess.TimeoutExpired) as exc:
        why = str(exc)
    if why:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"cannot mount a tmpfs at {where} ({why}); CI=true: the tests that need a tmpfs must run")
        pytest.skip(f"cannot mount a tmpfs ({why}; these tests need root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True, timeout=60)


# ------------------------------------------------------------------------------------
# a full disk: a cache write that fails is a logged miss and leaves nothing half written

def _fill(mnt, leave=0):
    """Fill the file system at mnt, then free ``leave`` bytes again."""
    filler = mnt / "filler"
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == 28  # ENOSPC
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def _no_partial_entries(mnt):
    """Every entry under mnt is complete (its checksum matches), and no temporary file is left."""
    import hashlib
    import json
    temps = [p for p in mnt.rglob("*") if p.name.startswith(".tmp-") or p.name.endswith(".tmp")]
    assert not temps, temps
    n = 0
    for p in mnt.rglob("*.json"):
        head, sep, payload = p.read_bytes().partition(b"\n")
        assert sep and hashlib.sha256(payload).hexdigest().encode() == head.split(b" ")[4], p
        json.loads(payload)
        n += 1
    return n


def _cli(*args):
    env = {k: v for k, v in os.environ.items() if k != "MSGRAPHLINT_CACHE_DIR"}
    return subprocess.run([sys.executable, "-m", "msgraphlint", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_full_disk_new_cache_folder_is_a_logged_miss_and_leaves_nothing(tmp_path):
    proj = write_tree(tmp_path / "p", RICH)
    expected = _cli("check", "--no-cache", "--format", "concise", str(proj))
    assert expected.returncode == 1 and expected.stdout.count(": MSG") == len(RICH_FINDINGS)
    mnt = tmp_path / "full"
    mnt.mkdir()
    with _tmpfs(mnt, "256k"):
        filler = _fill(mnt)
        got = _cli("check", "-v", "--format", "concise", "--cache-dir", str(mnt / "cache"), str(proj))
        assert (got.returncode, got.stdout) == (1, expected.stdout), got.stderr
        assert "MSG000" not in got.stdout and "internal error" not in got.stderr
        assert "cache: cannot mark the new cache folder" in got.stderr and "the run goes on" in got.stderr
        assert sorted(p.name for p in mnt.iterdir()) == [filler.name]  # the unmarked folder was taken back


def test_disk_filling_up_during_a_run_leaves_only_whole_entries(tmp_path):
    import textwrap
    files = dict(RICH)
    files.update({f"m{i}.py": RICH["model.py"] for i in range(12)})
    # a file whose entry is larger than the space left: its write fails part way
    files["big.py"] = textwrap.dedent(RICH["model.py"]) + "".join(f"\n@jit\ndef g{i}(x):\n    print(x)\n    return x\n" for i in range(150))
    proj = write_tree(tmp_path / "p", files)
    expected = _cli("check", "--no-cache", "--format", "concise", str(proj))
    assert expected.returncode == 1 and expected.stdout.count(": MSG201 ") == 2 + 12 + 151
    mnt = tmp_path / "full"
    mnt.mkdir()
    with _tmpfs(mnt, "256k"):
        cache = mnt / "cache"
        # a marked cache folder exists (an earlier run), then the disk fills, leaving 24 KiB
        warm = _cli("check", "--format", "concise", "--cache-dir", str(cache), str(tmp_path / "p" / "plain.py"))
        assert warm.returncode == 0 and any(cache.rglob("*.json"))
        _fill(mnt, leave=24 * 1024)
        for jobs in ("1", "2"):
            got = _cli("check", "-v", "--jobs", jobs, "--format", "concise", "--cache-dir", str(cache), str(proj))
            assert (got.returncode, got.stdout) == (1, expected.stdout), got.stderr
            assert "internal error" not in got.stderr
            assert "cache: could not write entry" in got.stderr and "No space left on device" in got.stderr
            whole = _no_partial_entries(mnt)
            assert 0 < whole < 2 * len(files)  # some entries fitted, others did not
        # and a later run over what was written still reports the same
        again = _cli("check", "--format", "concise", "--cache-dir", str(cache), str(proj))
        assert (again.returncode, again.stdout) == (1, expected.stdout)
        _no_partial_entries(mnt)


def test_an_entry_planted_as_a_symlink_is_replaced_never_written_through(tmp_path):
    """A dangling symlink at an entry's path (planted in a shared cache) is a miss; the
    rewrite replaces the link itself and creates nothing where it points."""
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    cold = findings(proj, cache)
    target = tmp_path / "outside" / "authorized_keys"
    target.parent.mkdir()
    entries = sorted(cache.rglob("*.json"))
    for e in entries:
        e.unlink()
        e.symlink_to(target)
    assert findings(proj, cache) == cold
    assert not target.exists()
    assert all(e.is_file() and not e.is_symlink() for e in entries)


def test_clean_messages_show_a_hostile_folder_name_escaped(tmp_path, monkeypatch):
    """`clean` names the folder it looked at; a newline in that name must not start a line
    of its own (a `::error` line is a GitHub Actions workflow command)."""
    from helpers import run_cli

    monkeypatch.chdir(tmp_path)
    r = run_cli("clean", "--cache-dir", str(tmp_path / "x\n::error file=a::pwn"))
    assert r.exit_code == 0, r.output
    assert not any(line.startswith("::") for line in r.output.splitlines()), r.output
    assert "x\\x0a::error" in r.output

"""The run snapshot (cache/snapshot.py, run/replay.py): a warm run over an unchanged tree
reports what the cold run reported from stat calls alone, and anything that can change
a finding (a file's bytes, also when its size and mtime are kept; a module read by name;
the configuration; the tool version) makes the run compute again."""

from __future__ import annotations

import os
import time

import pytest

from msgraphlint.cache import snapshot
from msgraphlint.run.runner import run_paths

from helpers import write_tree
from test_cache import BASE, MODEL, NOT_A_CELL

MODEL_COMMENTED = MODEL.replace("        print(x)", "        #rint(x)")


def findings(root, cache_dir, **kw):
    res = run_paths([str(root)], cache=True, cache_dir=str(cache_dir), **kw)
    return sorted((f.path.rsplit("/", 1)[-1], f.line, f.code) for fr in res.files for f in fr.findings)


def _computing_fails(monkeypatch):
    import msgraphlint.run.filework as filework

    def boom(*a, **k):
        raise AssertionError("the warm run computed something")

    monkeypatch.setattr(filework, "phase1_compute", boom)
    monkeypatch.setattr(filework, "_lint_python", boom)


def _reading_fails(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the warm run read a file")

    monkeypatch.setattr(snapshot, "read_signed", boom)


def _gets(monkeypatch):
    """The kinds of the result-cache entries the run asks for, in order."""
    from msgraphlint.cache.store import ResultCache
    asked = []
    real = ResultCache.get

    def get(self, kind, key):
        asked.append(kind)
        return real(self, kind, key)
    monkeypatch.setattr(ResultCache, "get", get)
    return asked


def test_unchanged_tree_is_answered_by_stat_calls_and_one_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "RACY_NS", 0)  # every file old enough to stand for its bytes
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL, "plain.py": "x = 1\n"})
    cold = findings(proj, cache)
    assert cold == [("model.py", 4, "MSG201")]
    _computing_fails(monkeypatch)
    _reading_fails(monkeypatch)
    asked = _gets(monkeypatch)
    assert findings(proj, cache) == cold
    assert asked == ["run"]  # no summary, no findings entry: the snapshot alone


def test_recent_files_are_hashed_again_not_trusted_by_their_stat(tmp_path, monkeypatch):
    """Files written just now (within RACY_NS of the run) have no signature in the snapshot:
    the next run reads and hashes them, and still computes nothing."""
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    cold = findings(proj, cache)
    snap = _the_snapshot(cache)
    assert {os.path.basename(f.path): f.stat for f in snap.inputs} == {"base.py": "", "model.py": ""}
    _computing_fails(monkeypatch)
    assert findings(proj, cache) == cold


def _the_snapshot(cache):
    from msgraphlint.cache.store import ResultCache
    entries = list(cache.rglob("run/*/*.json"))
    assert len(entries) == 1
    p = entries[0]
    return ResultCache(str(cache)).get("run", p.parent.name + p.stem)


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path, monkeypatch):
    """The edit puts the mtime back and keeps the size (as `touch -r`, an rsync or an
    editor's restore would): its ctime changed, so the file is read again. Fails with a
    signature of (size, mtime) alone."""
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    model = proj / "model.py"
    before = os.stat(model)
    model.write_text(MODEL_COMMENTED.lstrip("\n"), encoding="utf-8")
    os.utime(model, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(model)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert findings(proj, cache) == []


class _CoarseClock:
    """``os`` as a file system whose timestamps have a granularity longer than the test:
    every file written since ``origin`` shows ``origin`` as its mtime and ctime (FAT, an
    NFS server's clock, coarse kernel ticks)."""

    def __init__(self, origin_ns: int) -> None:
        self.origin = origin_ns

    def _coarse(self, st):
        if st.st_ctime_ns < self.origin:
            return st
        fields = list(st)
        fields[8] = fields[9] = self.origin // 10 ** 9  # st_mtime, st_ctime (int seconds)
        out = os.stat_result(fields, {"st_atime_ns": st.st_atime_ns, "st_mtime_ns": self.origin,
                                      "st_ctime_ns": self.origin})
        return out

    def stat(self, path, *a, **k):
        return self._coarse(os.stat(path, *a, **k))

    def fstat(self, fd):
        return self._coarse(os.fstat(fd))

    def __getattr__(self, name):
        return getattr(os, name)


def test_an_edit_in_the_same_timestamp_tick_as_the_run_is_seen(tmp_path, monkeypatch):
    """The racy case: written, linted, edited (same size, mtime put back) within one tick of
    the file system's clock, so even ctime is unchanged. The run that read it did not trust
    its stat (its times were not RACY_NS older than the run), so the next run hashes it.
    Fails with RACY_NS = 0."""
    origin = time.time_ns()
    monkeypatch.setattr(snapshot, "os", _CoarseClock(origin))
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    model = proj / "model.py"
    before = snapshot.os.stat(model)
    model.write_text(MODEL_COMMENTED.lstrip("\n"), encoding="utf-8")
    after = snapshot.os.stat(model)
    assert snapshot.signature(after) == snapshot.signature(before)  # nothing in the stat tells
    if time.time_ns() - origin > 2_000_000_000:  # (RACY_NS is 3 s)
        pytest.skip("the machine was too slow to stay within one simulated tick")
    assert findings(proj, cache) == []


def test_trusted_signature_needs_times_older_than_the_margin():
    st = os.stat(__file__)
    opened = max(st.st_mtime_ns, st.st_ctime_ns) + snapshot.RACY_NS + 1
    assert snapshot.trusted_signature(st, opened, st.st_size) == snapshot.signature(st)
    assert snapshot.trusted_signature(st, opened - 2, st.st_size) == ""   # ctime or mtime inside the margin
    assert snapshot.trusted_signature(st, opened, st.st_size + 1) == ""   # read another size than stat'ed


def test_a_module_read_by_name_that_changes_invalidates(tmp_path, monkeypatch):
    """base.py is excluded from the run, so only the index reads it (by name, for Net's
    base class): its edit must still re-lint model.py. Fails when the snapshot does not
    record the modules the index loaded."""
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL,
                      "pyproject.toml": '[tool.msgraphlint]\nextend-exclude = ["base.py"]\n'})
    res = run_paths([str(proj)], cache=True, cache_dir=str(cache))
    assert [os.path.basename(fr.path) for fr in res.files] == ["model.py"]
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    (proj / "base.py").write_text(NOT_A_CELL, encoding="utf-8")
    assert findings(proj, cache) == []


def test_configuration_changes_invalidate(tmp_path, monkeypatch):
    """per-file-ignores are applied after the rules ran (not in the per-file entries' keys):
    the snapshot's key holds the whole configuration."""
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL, "pyproject.toml": "[tool.msgraphlint]\n"})
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    (proj / "pyproject.toml").write_text('[tool.msgraphlint]\nper-file-ignores = {"model.py" = ["MSG201"]}\n')
    assert findings(proj, cache) == []
    assert findings(proj, cache, select=["MSG1"]) == []
    (proj / "pyproject.toml").write_text("[tool.msgraphlint]\n")
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]


def test_a_new_tool_version_invalidates(tmp_path, monkeypatch):
    """Another msgraphlint version (or changed rule code: rules_fingerprint) must not replay
    the findings of the old one. The 'new version' here reports nothing."""
    import msgraphlint
    import msgraphlint.run.filework as filework

    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    monkeypatch.setattr(msgraphlint, "__version__", msgraphlint.__version__ + ".post1")
    monkeypatch.setattr(filework, "_lint_python", lambda path, *a, **k: filework.Phase2(path, [], [], None))
    assert findings(proj, cache) == []


def test_a_deleted_file_and_a_new_file_change_the_run(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]
    write_tree(proj, {"model2.py": MODEL})
    assert findings(proj, cache) == [("model.py", 4, "MSG201"), ("model2.py", 4, "MSG201")]
    (proj / "model.py").unlink()
    assert findings(proj, cache) == [("model2.py", 4, "MSG201")]


def test_jobs_2_snapshot_serves_jobs_1(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, **{f"m{i}.py": MODEL for i in range(6)}})
    cold = findings(proj, cache, jobs=2)
    assert len(cold) == 6
    _computing_fails(monkeypatch)
    _reading_fails(monkeypatch)
    asked = _gets(monkeypatch)
    assert findings(proj, cache, jobs=1) == cold
    assert asked == ["run"]


def test_a_run_with_an_internal_error_stores_no_snapshot(tmp_path, monkeypatch):
    import msgraphlint.run.filework as filework

    proj, cache = tmp_path / "p", tmp_path / "c"
    write_tree(proj, {"base.py": BASE, "model.py": MODEL})
    real = filework._lint_python

    def flaky(path, *a, **k):
        if path.endswith("model.py"):
            raise MemoryError("out of memory")
        return real(path, *a, **k)
    monkeypatch.setattr(filework, "_lint_python", flaky)
    assert findings(proj, cache) == [("model.py", 1, "MSG000")]
    assert not list(cache.rglob("run/*/*.json"))
    monkeypatch.setattr(filework, "_lint_python", real)
    assert findings(proj, cache) == [("model.py", 4, "MSG201")]

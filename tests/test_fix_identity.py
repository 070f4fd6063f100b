"""Fixes are bound to their file by identity, never by position in a list (issue 20).

The bug: ``fix_files._lint`` paired the paths it re-linted with the run's results by
position, but a run lists its Python files first and its YAML files after them, so in a
tree walked YAML first (``a_cfg/run.yaml``, ``b_src/m.py``) the Python file's fixes were
written into the YAML file and the Python file was left unfixed; ``--diff`` announced
none. Here: that reproduction, the pre-commit shape of it (explicit paths, a fix written
into ``__init__.py``), the same pairing in the runner's per-file entry points and in the
``--jobs`` workers, a result that names another file (an internal error, never a write),
and the property over random trees (tests/fuzzing.py's ``fix_tree``).
"""

from __future__ import annotations

import os

import pytest
from helpers import run_cli
from hypothesis import HealthCheck, given, settings

import fuzzing
from msgraphlint.run import runner
from msgraphlint.findings import FileResult

# MSG510's safe fix: keep_prob (the probability to keep) is deprecated; the same rate
# spelled with p, the probability to drop, is p = 1 - 0.9 = 0.1
NET = """\
import mindspore.nn as nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(keep_prob=0.9)

    def construct(self, x):
        return self.drop(x)
"""
NET_FIXED = NET.replace("nn.Dropout(keep_prob=0.9)", "nn.Dropout(p=0.1)")

# MSG204's safe fix on a local tensor: `y += 1` -> `y = y + 1`
AUG = """\
import mindspore.nn as nn


class Aug(nn.Cell):
    def construct(self, x):
        y = x * 2
        y += 1
        return y
"""
AUG_FIXED = AUG.replace("y += 1", "y = y + 1")

# MSG601/MSG602 (30 heads over model_parallel 8, 4096 / 30): findings without a fix
BAD_CONFIG = "model:\n  model_config:\n    num_heads: 30\n    hidden_size: 4096\nparallel_config:\n  model_parallel: 8\n"


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))


def _read(root, files):
    return {rel: (root / rel).read_bytes().decode("utf-8") for rel in files}


def test_a_yaml_file_walked_first_never_gets_the_python_files_fixes(proj):
    """The outside tester's tree: before, `--fix .` wrote `seed: 0\\np=0.1` into run.yaml,
    left m.py unfixed and said "Fixed 1 finding"; `--diff .` said "Would fix 0 findings"."""
    files = {"a_cfg/run.yaml": "seed: 0\n", "b_src/m.py": NET}
    _write(proj, files)
    diff = run_cli("check", "--diff", "--no-cache", ".")
    assert "+        self.drop = nn.Dropout(p=0.1)" in diff.output
    assert "Would fix 1 finding in 1 file." in diff.output and "run.yaml" not in diff.output
    assert _read(proj, files) == files
    r = run_cli("check", "--fix", "--no-cache", ".")
    assert "Fixed 1 finding in 1 file." in r.output and "warning" not in r.output, r.output
    assert _read(proj, files) == {"a_cfg/run.yaml": "seed: 0\n", "b_src/m.py": NET_FIXED}
    assert r.exit_code == 0, r.output


def test_explicit_paths_yaml_first_never_write_into_init(proj):
    """pre-commit passes the staged files by name: a config first, then the package. Before,
    m.py's fix went into __init__.py."""
    files = {"cfg.yaml": BAD_CONFIG, "pkg/__init__.py": "from .m import Net\n", "pkg/m.py": NET}
    _write(proj, files)
    r = run_cli("check", "--fix", "--no-cache", "cfg.yaml", "pkg/__init__.py", "pkg/m.py")
    assert _read(proj, files) == {**files, "pkg/m.py": NET_FIXED}, r.output
    assert "Fixed 1 finding in 1 file." in r.output
    # the config's findings are still reported against the config
    assert "cfg.yaml:3:5: MSG601" in r.output and "cfg.yaml:4:5: MSG602" in r.output
    assert r.exit_code == 1


def _reorder(monkeypatch, change, record_bytes=True):
    """Make every run of the runner hand back its results through ``change(files,
    overrides)`` (the re-lints of --fix pass the snapshots' texts as overrides). Without
    ``record_bytes`` the runs record no bytes (``RunResult.contents``, as a run replayed from
    its snapshot), so --fix lints the files again before its first pass."""
    real = runner._run_files

    def run_files(files, settings, jobs, overrides, *args, **kw):
        result = real(files, settings, jobs, overrides, *args, **kw)
        result.files = change(list(result.files), overrides)
        if not record_bytes:
            result.contents = {}
        return result

    monkeypatch.setattr(runner, "_run_files", run_files)


def test_results_are_matched_by_their_path_not_their_order(proj, monkeypatch):
    files = {"a.py": NET, "b.py": AUG}
    _write(proj, files)
    _reorder(monkeypatch, lambda frs, _o: frs[::-1])
    r = run_cli("check", "--fix", "--no-cache", ".")
    assert _read(proj, files) == {"a.py": NET_FIXED, "b.py": AUG_FIXED}, r.output
    assert "Fixed 2 findings in 2 files." in r.output and r.exit_code == 0


@pytest.mark.parametrize("relints_only", [False, True], ids=["the check's run", "the re-lint before the first pass"])
def test_a_result_holding_another_files_fixes_is_an_internal_error_never_a_write(proj, monkeypatch, relints_only):
    """The findings the first pass applies come from the check's own run when the files
    still hold the bytes it linted, else from a re-lint: either one pairing the files'
    results wrong makes no write."""
    files = {"a.py": NET, "b.py": AUG}
    _write(proj, files)

    def swap(frs, overrides):  # the files get each other's findings (paths kept)
        if (overrides or not relints_only) and len(frs) == 2:
            a, b = frs
            frs = [FileResult(a.path, b.findings), FileResult(b.path, a.findings)]
        return frs

    _reorder(monkeypatch, swap, record_bytes=not relints_only)
    r = run_cli("check", "--fix", "--no-cache", ".")
    assert _read(proj, files) == files, r.output
    assert "a.py:1:1: MSG000" in r.output and "b.py:1:1: MSG000" in r.output
    assert "a fix computed for b.py was offered for a.py" in r.output
    assert "Fixed" not in r.output and r.exit_code == 2
    # the findings reported are those linted for each file
    assert "a.py:7:32: MSG510" in r.output and "b.py:7:9: MSG204" in r.output


def test_a_result_missing_from_a_relint_is_an_internal_error_never_a_write(proj, monkeypatch):
    files = {"a.py": NET, "b.py": AUG}
    _write(proj, files)
    _reorder(monkeypatch, lambda frs, overrides: [f for f in frs if f.path != "b.py"] if overrides else frs)
    r = run_cli("check", "--fix", "--no-cache", ".")
    assert _read(proj, files) == files, r.output
    assert "a.py:1:1: MSG000" in r.output and "b.py:1:1: MSG000" in r.output
    assert "no result for b.py" in r.output and r.exit_code == 2


def test_fix_source_and_run_source_take_their_own_result(proj, monkeypatch):
    """The per-buffer entry points (the LSP's fix-all and diagnostics, --stdin-filename)
    took ``files[0]``: another file's result listed first would have been used."""
    _write(proj, {"other.py": AUG})
    settings_ = runner.prepare(["net.py"])
    other = runner.run_source(AUG, "other.py", settings=settings_)
    assert [f.code for f in other.findings] == ["MSG204"]
    _reorder(monkeypatch, lambda frs, _o: [other] + frs)
    fixed, remaining, applied = runner.fix_source(NET, "net.py", settings_)
    assert (fixed, applied, remaining.path, remaining.findings) == (NET_FIXED, 1, "net.py", [])
    assert [(f.path, f.code) for f in runner.run_source(NET, "net.py", settings=settings_).findings] == [
        ("net.py", "MSG510")]
    from msgraphlint.lsp.actions import fix_all_text
    assert fix_all_text(NET, "net.py", settings_) == NET_FIXED


@pytest.mark.parametrize("phase", ["phase1", "phase2"])
def test_a_file_the_workers_return_nothing_for_is_an_internal_error(proj, monkeypatch, phase):
    """--jobs: a worker's results are matched to the files by their paths; a file that no
    result came back for is MSG000, not a silent 'no graph code'."""
    from msgraphlint.run.workers import Workers

    files = {f"m{i}.py": AUG.replace("class Aug", f"class Aug{i}") for i in range(4)}
    _write(proj, files)
    real = getattr(Workers, phase)

    def dropping(self, *args, **kw):
        return [r for r in real(self, *args, **kw) if os.path.basename(r.path) != "m2.py"]

    monkeypatch.setattr(Workers, phase, dropping)
    result = runner.run_paths(sorted(files), jobs=2)
    got = {fr.path: [f.code for f in fr.findings] for fr in result.files}
    assert got == {"m0.py": ["MSG204"], "m1.py": ["MSG204"], "m2.py": ["MSG000"], "m3.py": ["MSG204"]}
    m2 = next(fr for fr in result.files if fr.path == "m2.py")
    assert "no result came back for this file" in m2.findings[0].message and not m2.skipped


EXAMPLES = int(os.environ.get("MSGRAPHLINT_FIX_TREE_EXAMPLES", "25"))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(fuzzing.fix_tree())
def test_fixing_a_tree_is_fixing_each_file_alone(files):
    """`check --fix .` of a random tree of independent Python files, YAML run configs and
    notebooks gives each file the fixed bytes the generator wrote by hand (the same as
    `--fix FILE` alone); files without a safe fix never change; `--diff .` announces the
    count `--fix .` fixes (tests/fuzzing.py, fix_tree_outcome)."""
    fuzzing.fix_tree_outcome(files)


def test_the_tree_property_can_fail(tmp_path):
    """The oracle is not vacuous: a wrong expectation is caught, a right one passes."""
    good = [fuzzing.TreeFile("a_cfg/run.yaml", b"seed: 0\n", b"seed: 0\n", 0),
            fuzzing.TreeFile("b_src/m.py", NET.encode(), NET_FIXED.encode(), 1)]
    assert fuzzing.fix_tree_outcome(good, str(tmp_path)) == {"files": 2, "fixes": 1, "changed": 1}
    unfixed = [good[0], fuzzing.TreeFile("b_src/m.py", NET.encode(), NET.encode(), 0)]
    with pytest.raises(AssertionError, match="other than their fixed text"):
        fuzzing.fix_tree_outcome(unfixed, str(tmp_path))
    assert not os.listdir(tmp_path)  # each check cleans up its copies

"""``check --fix`` on files: writes that cannot race, symlinks, hard links, read-only files
and folders, and re-linting with the whole project after fixing."""

from __future__ import annotations

import ast
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

from msgraphlint.fix.files import fix_paths
from msgraphlint.run.runner import run_paths

# two safe fixes of different lengths per class (MSG510 shortens, MSG204 lengthens), so
# offsets computed for one text are wrong for the other
NET = textwrap.dedent("""\
    import mindspore.nn as nn


    class Net{i}(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(keep_prob=0.9)

        def construct(self, x):
            y = x * 2
            y += 1
            z = x * 3
            z -= 2
            return self.drop(y + z)
    """)
NET_FIXED = (NET.replace("keep_prob=0.9", "p=0.1").replace("y += 1", "y = y + 1")
             .replace("z -= 2", "z = z - 2"))


# only same-length-line fixes: a stale edit applied to already fixed text still parses
# (`y = y + 1+ 1`), so only the snapshot check can catch it (the parse check cannot)
RACE = textwrap.dedent("""\
    import mindspore.nn as nn


    class Net{i}(nn.Cell):
        def construct(self, x):
            y = x * 2
            y += 1
            z = x * 3
            z -= 2
            return y + z
    """)
RACE_FIXED = RACE.replace("y += 1", "y = y + 1").replace("z -= 2", "z = z - 2")


run = run_cli


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_fixed_text_is_what_the_fixture_expects(proj):
    (proj / "net.py").write_text(NET.format(i=0))
    r = run("check", "--fix", "net.py")
    assert r.exit_code == 0, r.output
    assert (proj / "net.py").read_text() == NET_FIXED.format(i=0)


def test_a_file_changed_after_linting_is_fixed_from_its_new_text(proj):
    """Findings computed for the linted bytes are never applied to other bytes: a file
    edited between lint and write is re-linted and fixed from what it holds now."""
    p = proj / "net.py"
    p.write_text(NET.format(i=0))
    result = run_paths([str(p)])
    assert any(f.fix for fr in result.files for f in fr.findings)
    edited = "# a comment an editor added\nimport os\n" + NET.format(i=0)
    p.write_text(edited)  # an editor save, or another --fix, after the lint
    fixed, changed, errors = fix_paths(result)
    assert not errors
    text = p.read_text()
    ast.parse(text)
    assert text == "# a comment an editor added\nimport os\n" + NET_FIXED.format(i=0)


def test_a_file_changed_while_being_written_is_left_alone(proj, monkeypatch):
    """The check happens right before the write: a change that lands after the fixes
    were computed makes the write back off (and the file is re-linted)."""
    import msgraphlint.fix.files as ff_mod

    p = proj / "net.py"
    p.write_text(NET.format(i=0))
    result = run_paths([str(p)])
    real = ff_mod.replace_if_unchanged
    calls = []

    def racing(path, expected, data):  # someone else writes between our fix and our write, every time
        calls.append(path)
        Path(path).write_text(NET.format(i=len(calls)))
        return real(path, expected, data)

    monkeypatch.setattr(ff_mod, "replace_if_unchanged", racing)
    fixed, changed, errors = fix_paths(result, max_rounds=3)
    assert len(calls) == 3 and changed == []
    assert p.read_text() == NET.format(i=3)  # the other writer's text, untouched by us
    assert any("changed on disk" in e for e in errors)


def test_two_concurrent_fix_runs_never_corrupt(tmp_path):
    """Two `check --fix` processes over the same tree at once: every file ends up either
    exactly as one run alone leaves it, or untouched; never a mix."""
    n = 60
    single = tmp_path / "single"
    both = tmp_path / "both"
    for root in (single, both):
        for i in range(n):
            d = root / f"pkg{i % 4}"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"net{i}.py").write_text("".join(RACE.format(i=f"{i}_{k}") for k in range(3)))
    cmd = [sys.executable, "-m", "msgraphlint", "check", "--fix", "--no-cache", "--exit-zero", "--format", "concise"]
    subprocess.run(cmd + [str(single)], check=True, capture_output=True, timeout=300)
    procs = [subprocess.Popen(cmd + [str(both)], stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
        assert b"internal error" not in err
    for i in range(n):
        rel = Path(f"pkg{i % 4}") / f"net{i}.py"
        got = (both / rel).read_text()
        assert got == (single / rel).read_text(), rel
        assert got == "".join(RACE_FIXED.format(i=f"{i}_{k}") for k in range(3))


def test_symlinked_files_are_fixed_through_the_link(proj):
    real_dir = proj / "real"
    real_dir.mkdir()
    target = real_dir / "net.py"
    target.write_text(NET.format(i=0))
    (proj / "src").mkdir()
    link = proj / "src" / "net.py"
    link.symlink_to(target)
    r = run("check", "--fix", "src/net.py")
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == NET_FIXED.format(i=0)


def test_a_file_reached_through_a_link_and_its_own_name_is_fixed_once(proj):
    (proj / "net.py").write_text(NET.format(i=0))
    (proj / "alias.py").symlink_to(proj / "net.py")
    r = run("check", "--fix", "net.py", "alias.py")
    assert r.exit_code == 0, r.output
    assert (proj / "alias.py").is_symlink()
    assert (proj / "net.py").read_text() == NET_FIXED.format(i=0)
    assert "changed on disk" not in r.output


def test_hard_links_are_kept(proj):
    a = proj / "net.py"
    a.write_text(NET.format(i=0))
    b = proj / "other_name.py"
    os.link(a, b)
    ino = a.stat().st_ino
    r = run("check", "--fix", "net.py")
    assert r.exit_code == 0, r.output
    assert a.stat().st_ino == ino == b.stat().st_ino and a.stat().st_nlink == 2
    assert b.read_text() == NET_FIXED.format(i=0)
    assert sorted(p.name for p in proj.iterdir()) == ["net.py", "other_name.py"]  # no temp file left


def test_a_read_only_file_is_a_finding_and_the_run_goes_on(proj):
    ro = proj / "ro.py"
    ro.write_text(NET.format(i=0))
    os.chmod(ro, 0o444)
    rw = proj / "rw.py"
    rw.write_text(NET.format(i=1))
    r = run("check", "--fix", "--format", "concise", "ro.py", "rw.py")
    assert r.exit_code == 1, r.output
    assert ro.read_text() == NET.format(i=0) and stat.S_IMODE(ro.stat().st_mode) == 0o444  # never chmod
    assert rw.read_text() == NET_FIXED.format(i=1)
    assert "ro.py:1:1: MSG003" in r.output and "read-only" in r.output
    assert "rw.py" not in r.output.replace("Fixed", "")  # nothing left in the fixed file
    # the unfixed file still reports its findings
    assert "ro.py:11:9: MSG204" in r.output


def test_a_read_only_folder_never_aborts_the_run(proj):
    d = proj / "locked"
    d.mkdir()
    (d / "net.py").write_text(NET.format(i=0))
    (proj / "ok.py").write_text(NET.format(i=1))
    os.chmod(d, 0o555)
    try:
        r = run("check", "--fix", "--format", "concise", "locked", "ok.py")
    finally:
        os.chmod(d, 0o755)
    assert r.exit_code == 1, r.output
    assert "internal error" not in r.output
    assert (d / "net.py").read_text() == NET.format(i=0)
    assert sorted(p.name for p in d.iterdir()) == ["net.py"]
    assert (proj / "ok.py").read_text() == NET_FIXED.format(i=1)
    assert "locked/net.py:1:1: MSG003" in r.output and "folder is read-only" in r.output


# re-lint with the whole project ----------------------------------------------------------

HELPER_TREE = {
    "model.py": """\
        import mindspore.nn as nn
        from utils import scale


        class Net(nn.Cell):
            def construct(self, x):
                return scale(x)
        """,
    "utils.py": """\
        def scale(x):
            y = x * 2
            y += 1
            y[0] = 0
            return y
        """,
}


def _tree(root, files):
    for rel, text in files.items():
        (root / rel).write_text(textwrap.dedent(text))


def test_findings_in_helpers_reached_from_another_file_survive_fix(proj):
    _tree(proj, HELPER_TREE)
    before = run("check", "--format", "concise", "--no-cache", ".")
    assert "utils.py:4:5: MSG203" in before.output and "utils.py:3:5: MSG204" in before.output
    r = run("check", "--fix", "--format", "concise", "--no-cache", ".")
    assert (proj / "utils.py").read_text().splitlines()[2] == "    y = y + 1"
    # the remaining finding of the helper is still reported, and still fails the run
    assert "utils.py:4:5: MSG203" in r.output and r.exit_code == 1
    after = run("check", "--format", "concise", "--no-cache", ".")
    assert after.output.replace("\n", "") and "utils.py:4:5: MSG203" in after.output


def test_fix_twice_is_a_no_op_across_files(proj):
    """Two overlapping fixes in a helper that is graph code only because another file's
    `construct` reaches it: the first --fix applies both (one per pass), the second
    changes nothing."""
    _tree(proj, {
        "model.py": """\
            import mindspore.nn as nn
            from utils import Mixin


            class Net(nn.Cell, Mixin):
                def construct(self, x):
                    return self.drop(x)
            """,
        "utils.py": """\
            from mindspore import ops


            class Mixin:
                def drop(self, x):
                    h = x * 2
                    h *= ops.dropout(x, p=0.1)
                    return h
            """})
    run("check", "--fix", "--unsafe-fixes", "--no-cache", ".")
    first = {p.name: p.read_bytes() for p in proj.glob("*.py")}
    assert b"h = h * ops.dropout(x, p=0.1, training=self.training)" in first["utils.py"]
    r = run("check", "--fix", "--unsafe-fixes", "--no-cache", ".")
    assert {p.name: p.read_bytes() for p in proj.glob("*.py")} == first
    assert "Fixed" not in r.output


# the first pass takes the check's own findings ---------------------------------------------

def _count_lints(monkeypatch):
    """How many times the rules ran on each file (in this process: ``--jobs 1``)."""
    from collections import Counter

    from msgraphlint.run import runner as runner_mod

    counts = Counter()
    real = runner_mod.lint_python

    def counting(path, *args, **kw):
        counts[os.path.basename(path)] += 1
        return real(path, *args, **kw)

    monkeypatch.setattr(runner_mod, "lint_python", counting)
    return counts


def test_fix_lints_each_file_once_before_the_fixes_and_once_after(proj, monkeypatch):
    """The files still hold the bytes the check linted, so the first pass applies the
    check's own findings: each file is linted by the check and once more after its fixes
    (the fixpoint), not a second time before them (issue 27: `--fix` stays fast)."""
    for i in range(2):
        (proj / f"net{i}.py").write_text(NET.format(i=i))
    counts = _count_lints(monkeypatch)
    r = run("check", "--fix", "--no-cache", "--jobs", "1", ".")
    assert r.exit_code == 0, r.output
    assert "Fixed 6 findings in 2 files." in r.output
    assert [(proj / f"net{i}.py").read_text() for i in range(2)] == [NET_FIXED.format(i=i) for i in range(2)]
    assert counts == {"net0.py": 2, "net1.py": 2}


def test_the_run_records_the_sha256_of_the_bytes_it_linted(proj):
    """What --fix compares its snapshots with, from the workers too, with and without the
    result cache; a YAML file and an in-memory text have none (they are linted again)."""
    import hashlib

    files = {f"m{i}.py": RACE.format(i=i) for i in range(4)}
    for name, text in files.items():
        (proj / name).write_text(text)
    (proj / "run.yaml").write_text("seed: 0\n")
    want = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in files.items()}
    assert run_paths(sorted(files) + ["run.yaml"], jobs=2).contents == want
    assert run_paths(sorted(files), jobs=1, cache=True, cache_dir=str(proj / ".cache")).contents == want
    assert run_paths(["m0.py"], overrides={"m0.py": RACE.format(i=9)}).contents == {}


def test_a_file_without_fixes_edited_after_the_check_makes_fix_lint_again(proj):
    """The check's findings stand only for the bytes it linted, of every file of the run: a
    helper is graph code because model.py's construct calls it; model.py (which has no fix)
    is edited after the check to call it no more, so the helper's `y += 1` is no finding
    now and must not be fixed from the check's findings."""
    (proj / "model.py").write_text(textwrap.dedent(HELPER_TREE["model.py"]))
    helper = "def scale(x):\n    y = x * 2\n    y += 1\n    return y\n"
    (proj / "utils.py").write_text(helper)
    result = run_paths(["model.py", "utils.py"])
    assert [(fr.path, f.code) for fr in result.files for f in fr.findings if f.fix] == [("utils.py", "MSG204")]
    (proj / "model.py").write_text(textwrap.dedent(HELPER_TREE["model.py"]).replace("scale(x)", "x * 3"))
    fixed, changed, errors = fix_paths(result)
    assert not errors and changed == []
    assert (proj / "utils.py").read_text() == helper
    assert [f.code for fr in fixed.files for f in fr.findings] == []

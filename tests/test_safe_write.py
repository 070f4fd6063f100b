"""``safe_write``: old bytes or new bytes on a full disk (plain files, hard links, symlinks;
``--fix``, ``-o``, ``--write-baseline``), no editor save lost to a fix written at the same
moment, and no temporary file left behind by a killed run."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import sigint_as_in_a_terminal

import msgraphlint.fix.safe_write as sw
from msgraphlint.cli import cli
from msgraphlint.fix.safe_write import Changed, NotWritten, replace_if_unchanged

PAGE = 4096
REPO = Path(__file__).resolve().parent.parent


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def temps(directory: Path):
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".msgraphlint-") and p.name.endswith(".tmp"))


# a Cell whose MSG204 fixes (`name += 1` -> `name = name + 1`) make the text ~40% longer,
# so the fixed text needs more pages than the original
def big_net(pairs: int = 220) -> str:
    body = "".join(f"        a_long_variable_name_for_padding_{i:03d} = x * 2\n"
                   f"        a_long_variable_name_for_padding_{i:03d} += 1\n" for i in range(pairs))
    return ("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            + body + "        return x\n")


def big_net_fixed(pairs: int = 220) -> str:  # by hand: every `+= 1` spelled out
    body = "".join(f"        a_long_variable_name_for_padding_{i:03d} = x * 2\n"
                   f"        a_long_variable_name_for_padding_{i:03d} = a_long_variable_name_for_padding_{i:03d} + 1\n"
                   for i in range(pairs))
    return ("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            + body + "        return x\n")


def pages(n: int) -> int:
    return -(-n // PAGE)


# --- a small tmpfs that can be filled ------------------------------------------------------

@pytest.fixture
def small_fs(tmp_path):
    d = tmp_path / "fs"
    d.mkdir()
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(d)],
                           capture_output=True, text=True, timeout=30)
        why = r.stderr.strip() if r.returncode else ""
    except (OSError, subprocess.SubprocessError) as exc:
        why = str(exc)
    if why:
        if os.environ.get("CI", "").lower() in ("true", "1", "yes"):
            pytest.fail(f"cannot mount a small tmpfs (needed for the full-disk tests) under CI: {why}")
        pytest.skip(f"cannot mount a small tmpfs here (needs root or CAP_SYS_ADMIN): {why}; under CI=true this fails")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True, timeout=30)


def free_bytes(d: Path) -> int:
    v = os.statvfs(d)
    return v.f_bavail * v.f_frsize


def leave_free(d: Path, n_pages: int) -> None:
    """Fill the file system ``d`` so that exactly ``n_pages`` pages stay free."""
    filler = d / "filler.bin"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        chunk = b"\0" * PAGE
        while True:
            try:
                os.write(fd, chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                break
        used = pages(os.fstat(fd).st_size)
        assert used >= n_pages, "the file system is too small for this case"
        os.ftruncate(fd, (used - n_pages) * PAGE)
    finally:
        os.close(fd)
    assert free_bytes(d) == n_pages * PAGE


def unfill(d: Path) -> None:
    (d / "filler.bin").unlink()


# --- full disk: --fix ------------------------------------------------------------------------

def test_the_big_fixture_is_fixed_as_written_by_hand(tmp_path):
    p = tmp_path / "net.py"
    p.write_text(big_net())
    r = run("check", "--fix", "--no-cache", str(p))
    assert r.exit_code == 0, r.output
    assert p.read_text() == big_net_fixed()
    old, new = len(big_net().encode()), len(big_net_fixed().encode())
    assert pages(new) - pages(old) >= 2  # the fixed text needs more pages: a write in place must grow


def _setup_target(fs: Path, kind: str, text: str):
    """The file `--fix` is given (``arg``) and the file whose bytes change (``data``)."""
    data = fs / "net.py"
    data.write_text(text)
    if kind == "plain":
        return data, data
    if kind == "symlink":
        link = fs / "link.py"
        link.symlink_to(data)
        return link, data
    other = fs / "other_name.py"
    os.link(data, other)
    return data, data


@pytest.mark.parametrize("kind", ["plain", "symlink", "hardlink"])
def test_fix_with_just_too_little_space_leaves_the_file_and_says_so(small_fs, kind):
    old, new = big_net(), big_net_fixed()
    arg, data = _setup_target(small_fs, kind, old)
    # the space a fix needs: a whole temporary copy (one link), or the pages the file grows
    # by when written in place (hard links)
    need = pages(len(new)) - pages(len(old)) if kind == "hardlink" else pages(len(new))
    leave_free(small_fs, need - 1)
    r = run("check", "--fix", "--no-cache", "--format", "concise", str(arg))
    assert data.read_text() == old  # byte for byte
    assert "MSG003" in r.output and "were not written" in r.output, r.output
    assert "Fixed" not in r.output and r.exit_code == 1
    assert "internal error" not in r.output
    if kind == "hardlink":
        assert (small_fs / "other_name.py").read_text() == old and data.stat().st_nlink == 2
    assert temps(small_fs) == []
    unfill(small_fs)  # with room, the same run fixes it
    r = run("check", "--fix", "--no-cache", "--format", "concise", str(arg))
    assert data.read_text() == new and "Fixed 220 findings" in r.output, r.output


def test_fix_of_a_hard_link_with_room_for_one_copy_is_never_half_written(small_fs):
    """The outside tester's case: room for the temporary copy but not for it and the in-place
    write together. The file must end up old or new, and the report must say which."""
    old, new = big_net(), big_net_fixed()
    arg, data = _setup_target(small_fs, "hardlink", old)
    leave_free(small_fs, pages(len(new)))
    r = run("check", "--fix", "--no-cache", "--format", "concise", str(arg))
    got = data.read_text()
    assert got in (old, new), f"half written: {len(got.encode())} of {len(new.encode())} bytes"
    if got == old:
        assert "MSG003" in r.output and "Fixed" not in r.output, r.output
    else:
        assert "MSG003" not in r.output and "Fixed 220 findings" in r.output, r.output
    assert (small_fs / "other_name.py").read_text() == got
    assert temps(small_fs) == []


@pytest.mark.parametrize("kind", ["plain", "symlink", "hardlink"])
def test_every_amount_of_free_space_gives_old_or_new_bytes(small_fs, kind):
    """replace_if_unchanged with 0 .. enough+1 pages free: never a mix, and NotWritten
    exactly when the old bytes are kept."""
    old = big_net().encode()
    new = big_net_fixed().encode()
    outcomes = {}
    for free in range(pages(len(new)) + 2):
        for p in small_fs.iterdir():
            p.unlink()
        arg, data = _setup_target(small_fs, kind, old.decode())
        leave_free(small_fs, free)
        try:
            replace_if_unchanged(str(arg), old, new)
            outcome = "written"
        except NotWritten:
            outcome = "not written"
        got = data.read_bytes()
        assert got == (new if outcome == "written" else old), (free, outcome, len(got))
        assert temps(small_fs) == []
        outcomes[free] = outcome
    assert outcomes[pages(len(new)) + 1] == "written" and outcomes[0] == "not written"


# --- full disk: -o and --write-baseline -------------------------------------------------------

SRC = textwrap.dedent("""\
    import mindspore.nn as nn


    class Net(nn.Cell):
        def construct(self, x):
            print(x)
            return x
    """)
# 60 distinct findings (MSG201), so reports and baselines take more than a page
MANY = "import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n" + "".join(
    f"        print(x, 'line {i}')\n" for i in range(60)) + "        return x\n"


def _report_target(fs: Path, kind: str, name: str):
    target = fs / name
    target.write_text("the old file\n")
    if kind == "plain":
        return target, target
    if kind == "symlink":
        link = fs / ("link-" + name)
        link.symlink_to(target)
        return link, target
    os.link(target, fs / ("other-" + name))
    return target, target


@pytest.mark.parametrize("kind", ["plain", "symlink", "hardlink"])
def test_a_report_that_does_not_fit_leaves_the_old_file_and_is_an_error(small_fs, tmp_path, kind):
    src = tmp_path / "net.py"
    src.write_text(MANY)
    probe = tmp_path / "probe.json"
    run("check", "--no-cache", "--format", "json", "-o", str(probe), str(src))
    size = probe.stat().st_size
    assert size > PAGE
    arg, target = _report_target(small_fs, kind, "report.json")
    leave_free(small_fs, pages(size) - 1)
    r = run("check", "--no-cache", "--format", "json", "-o", str(arg), str(src))
    assert target.read_text() == "the old file\n"
    assert r.exit_code == 2 and "cannot write the output" in r.output and "internal error" not in r.output
    assert temps(small_fs) == []
    unfill(small_fs)
    run("check", "--no-cache", "--format", "json", "-o", str(arg), str(src))
    assert target.read_bytes() == probe.read_bytes()


@pytest.mark.parametrize("kind", ["plain", "symlink", "hardlink"])
def test_a_baseline_that_does_not_fit_leaves_the_old_file_and_is_an_error(small_fs, tmp_path, kind):
    src = tmp_path / "net.py"
    src.write_text(MANY)
    arg, target = _report_target(small_fs, kind, "bl.json")
    probe = small_fs / "probe.json"  # written next to the baseline: same relative paths, same bytes
    run("check", "--no-cache", "--write-baseline", str(probe), str(src))
    size = probe.stat().st_size
    assert size > PAGE
    data = probe.read_bytes()
    probe.unlink()
    leave_free(small_fs, pages(size) - 1)
    r = run("check", "--no-cache", "--write-baseline", str(arg), str(src))
    assert target.read_text() == "the old file\n"
    assert r.exit_code == 2 and "cannot write the baseline" in r.output, r.output
    assert "internal error" not in r.output and "Wrote" not in r.output
    assert temps(small_fs) == []
    unfill(small_fs)
    r = run("check", "--no-cache", "--write-baseline", str(arg), str(src))
    assert r.exit_code == 0 and target.read_bytes() == data


# --- an editor's save at the worst moment --------------------------------------------------

def save_by_rename(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".editor-save~")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def save_in_place(path: Path, data: bytes) -> None:
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()


SAVES = {"by rename": save_by_rename, "in place": save_in_place}


def _text(size: int, tag: str) -> bytes:
    line = f"x_{tag} = 1  # padding padding padding padding\n".encode()
    return line * (size // len(line) + 1)


def _saves_kept(tmp_path, monkeypatch, save, hook, n=20, links=1, size=18_000):
    """``n`` fixes, each with an editor save at ``hook``; returns how many saves survived."""
    kept = 0
    for i in range(n):
        p = tmp_path / f"file{i}.py"
        old, ours, theirs = _text(size, "old"), _text(size, "fixed"), _text(size + 7, f"editor{i}")
        p.write_bytes(old)
        for k in range(1, links):
            os.link(p, tmp_path / f"file{i}.link{k}.py")
        calls = []

        def at_moment(*args):
            # the editor is another process: its save may have to wait for us (a lease), so it
            # runs in a thread; it gets 0.2 s to land before we go on
            if not calls:
                calls.append(threading.Thread(target=save, args=(p, theirs)))
                calls[0].start()
                calls[0].join(0.2)

        hook(at_moment)
        try:
            replace_if_unchanged(str(p), old, ours)
            outcome = "written"
        except Changed:
            outcome = "changed"
        assert calls, "the save was never made"
        calls[0].join(30)
        kept += p.read_bytes() == theirs
        if p.read_bytes() != theirs:
            assert outcome != "written", "a save was lost and the write said it succeeded"
        assert temps(tmp_path) == []
    return kept


def _after_temp_written(monkeypatch):
    """The old code's window: after the comparison, once the temporary file is on disk."""
    real = sw._temp_next_to

    def install(fn):
        def wrapped(path, data, like):
            tmp = real(path, data, like)
            fn()
            return tmp
        monkeypatch.setattr(sw, "_temp_next_to", wrapped)
    return install


def _at_stage(monkeypatch, stage):
    def install(fn):
        monkeypatch.setattr(sw, "_between", lambda s: fn() if s == stage else None, raising=False)
    return install


@pytest.mark.parametrize("how", list(SAVES))
def test_an_editor_save_while_the_temp_file_is_written_is_kept(tmp_path, monkeypatch, how):
    kept = _saves_kept(tmp_path, monkeypatch, SAVES[how], _after_temp_written(monkeypatch))
    assert kept == 20, f"{kept} of 20 saves kept"


@pytest.mark.parametrize("stage", ["compared", "swap"])
@pytest.mark.parametrize("how", list(SAVES))
def test_an_editor_save_at_the_last_instant_is_kept(tmp_path, monkeypatch, how, stage):
    kept = _saves_kept(tmp_path, monkeypatch, SAVES[how], _at_stage(monkeypatch, stage))
    assert kept == 20, f"{kept} of 20 saves kept"


@pytest.mark.parametrize("stage", ["compared", "swap"])
@pytest.mark.parametrize("how", list(SAVES))
def test_an_editor_save_to_a_hard_linked_file_is_kept(tmp_path, monkeypatch, how, stage):
    kept = _saves_kept(tmp_path, monkeypatch, SAVES[how], _at_stage(monkeypatch, stage), links=2)
    assert kept == 20, f"{kept} of 20 saves kept"
    if how == "by rename":  # the other name still holds the old file, which our write left as it was
        assert (tmp_path / "file0.link1.py").read_bytes() == _text(18_000, "old")


def test_fix_re_lints_an_editor_save_at_the_worst_moment(tmp_path, monkeypatch):
    """End to end: the save lands between the comparison and the exchange; the run re-lints
    the editor's text and fixes that, so the editor's edit is in the file."""
    src = "import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        y = x * 2\n        y += 1\n        return y\n"
    edited = "# the editor's comment\n" + src
    p = tmp_path / "net.py"
    p.write_text(src)
    calls = []

    def at_swap(stage):
        if stage == "swap" and not calls:
            calls.append(stage)
            save_by_rename(p, edited.encode())

    monkeypatch.setattr(sw, "_between", at_swap, raising=False)
    r = run("check", "--fix", "--no-cache", "--format", "concise", str(p))
    assert calls
    assert p.read_text() == edited.replace("y += 1", "y = y + 1"), r.output
    assert r.exit_code == 0 and "Fixed 1 finding" in r.output


# --- temporary files of killed runs --------------------------------------------------------

CHILD = textwrap.dedent("""\
    import sys, time
    import msgraphlint.fix.safe_write as sw
    real = sw._temp_next_to
    def paused(path, data, like):
        tmp = real(path, data, like)
        print("written", flush=True)
        time.sleep(float(sys.argv[2]))
        return tmp
    sw._temp_next_to = paused
    from msgraphlint.cli import main
    main(["check", "--fix", "--no-cache", "--exit-zero", sys.argv[1]])
    """)


def _child_in_write_phase(path: Path, pause: float):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO)] + sys.path))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(pause)], cwd=str(REPO), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=sigint_as_in_a_terminal)
    line = proc.stdout.readline()
    assert line == b"written\n", proc.communicate(timeout=60)
    return proc


def test_a_run_killed_while_writing_leaves_a_temp_file_the_next_run_removes(tmp_path):
    d = tmp_path / "pkg"
    d.mkdir()
    p = d / "net.py"
    p.write_text(big_net(20))
    users = d / ".msgraphlint-notes.tmp"  # someone's own file with our prefix and suffix
    users.write_text("mine")
    proc = _child_in_write_phase(p, 60)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    left = [n for n in temps(d) if n != users.name]
    assert len(left) == 1 and p.read_text() == big_net(20)  # killed in the write phase: the file is old
    r = subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--fix", "--no-cache", "--exit-zero", str(d)],
                       cwd=str(REPO), capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert p.read_text() == big_net_fixed(20)
    assert temps(d) == [users.name] and users.read_text() == "mine"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_run_stopped_by_a_signal_while_writing_leaves_no_temp_file(tmp_path, sig):
    d = tmp_path / "pkg"
    d.mkdir()
    p = d / "net.py"
    p.write_text(big_net(20))
    proc = _child_in_write_phase(p, 1.0)
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    assert temps(d) == []
    assert p.read_text() in (big_net(20), big_net_fixed(20))


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_our_leftovers_are_removed(tmp_path, monkeypatch):
    tag = sw._machine_tag()
    other_tag = "0" * 8 if tag != "0" * 8 else "1" * 8
    dead = _dead_pid()
    removed_now = [f".msgraphlint-{tag}-{dead}-abcd_123.tmp"]                 # this machine, dead process
    kept_always = [f".msgraphlint-{tag}-{os.getpid()}-abcd_123.tmp",         # a live process (us)
                   f".msgraphlint-{tag}-{os.getppid()}-abcd_123.tmp",
                   ".msgraphlint-notes.tmp", ".msgraphlint-abcd1234.tmp.bak", "x.msgraphlint-abcd1234.tmp",
                   f".msgraphlint-{tag}-{dead}-abcd_123.tmpx", f".msgraphlint-{tag}-{dead}-abc.tmp"]
    removed_when_old = [f".msgraphlint-{other_tag}-{dead}-abcd_123.tmp",     # another machine
                        ".msgraphlint-abcd1234.tmp"]                          # an older version
    for name in removed_now + kept_always + removed_when_old:
        (tmp_path / name).write_text("x")
    (tmp_path / "target").write_text("not ours")
    (tmp_path / f".msgraphlint-{tag}-{dead}-link_123.tmp").symlink_to(tmp_path / "target")
    (tmp_path / f".msgraphlint-{tag}-{dead}-dir_1234.tmp").mkdir()
    kept_always += [f".msgraphlint-{tag}-{dead}-link_123.tmp", f".msgraphlint-{tag}-{dead}-dir_1234.tmp", "target"]

    assert sorted(sw.remove_stale_temps(str(tmp_path))) == sorted(removed_now)
    assert sorted(os.listdir(tmp_path)) == sorted(kept_always + removed_when_old)
    later = time.time() + sw.STALE_AGE_S + 60
    monkeypatch.setattr(sw.time, "time", lambda: later)
    assert sorted(sw.remove_stale_temps(str(tmp_path))) == sorted(removed_when_old)
    assert sorted(os.listdir(tmp_path)) == sorted(kept_always)
    assert (tmp_path / "target").read_text() == "not ours"


def test_a_report_written_into_a_folder_removes_its_leftovers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(SRC)
    leftover = tmp_path / "out" / f".msgraphlint-{sw._machine_tag()}-{_dead_pid()}-abcd_123.tmp"
    leftover.parent.mkdir()
    leftover.write_text("a killed run's report")
    run("check", "--no-cache", "--format", "json", "-o", "out/report.json", "net.py")
    assert json.loads((tmp_path / "out" / "report.json").read_text())["summary"]["findings"] == 1
    assert os.listdir(tmp_path / "out") == ["report.json"]


def test_without_the_exchange_a_save_before_the_last_comparison_is_kept(tmp_path, monkeypatch):
    """Where renameat2 is missing the file is compared once more right before the rename."""
    monkeypatch.setattr(sw, "_can_exchange", lambda: False, raising=False)
    for how, save in SAVES.items():
        (tmp_path / how.replace(" ", "_")).mkdir()
        kept = _saves_kept(tmp_path / how.replace(" ", "_"), monkeypatch, save, _at_stage(monkeypatch, "swap"))
        assert kept == 20, (how, f"{kept} of 20 saves kept")


@pytest.mark.parametrize("schedule", [
    {2: "before"},               # a second save lands while the first one is being swapped back
    {2: "after"},                # ... right after it was swapped back
    {2: "before", 3: "before"},  # and a third one during the next exchange
])
def test_saves_during_the_swap_back_leave_the_newest(tmp_path, monkeypatch, schedule):
    """An editor save found after the exchange is swapped back; saves that land while that
    happens (deterministic here: made inside the exchange calls) never lose the newest."""
    p = tmp_path / "f.py"
    old, ours = b"old\n" * 1000, b"fixed\n" * 1000
    p.write_bytes(old)
    saves = iter([b"first save\n" * 900, b"second save\n" * 900, b"third save\n" * 900])
    newest = []

    def save():
        data = next(saves)
        newest.append(data)
        save_by_rename(p, data)

    monkeypatch.setattr(sw, "_between", lambda stage: save() if stage == "swap" else None, raising=False)
    real_exchange = sw._exchange
    calls = []

    def exchange(dir_fd, a, b):
        calls.append(a)
        when = schedule.get(len(calls))
        if when == "before":
            save()
        done = real_exchange(dir_fd, a, b)
        if when == "after":
            save()
        return done

    monkeypatch.setattr(sw, "_exchange", exchange)
    with pytest.raises(Changed):
        replace_if_unchanged(str(p), old, ours)
    assert len(newest) == 1 + len(schedule) and len(calls) >= 2
    assert p.read_bytes() == newest[-1]
    assert sorted(os.listdir(tmp_path)) == ["f.py"]

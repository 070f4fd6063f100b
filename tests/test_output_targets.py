"""``-o/--output-file`` and ``--output FORMAT=FILE``: regular files are replaced
atomically, symlinks are written through, FIFOs and devices are written directly and
never replaced, ``-`` is stdout."""

from __future__ import annotations

import json
import os
import stat
import threading

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli

SRC = "import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        print(x)\n        return x\n"


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(SRC)
    return tmp_path


def _is_report(text: str) -> bool:
    return json.loads(text)["summary"]["findings"] == 1


def test_regular_file_is_replaced_atomically_and_keeps_its_mode(proj):
    out = proj / "report.json"
    out.write_text("old")
    os.chmod(out, 0o640)
    r = run("check", "--format", "json", "-o", "report.json", "net.py")
    assert r.exit_code == 1
    assert _is_report(out.read_text()) and stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in proj.iterdir()) == ["net.py", "report.json"]


def test_a_new_file_gets_the_usual_mode(proj):
    umask = os.umask(0o022)
    try:
        run("check", "--format", "json", "-o", "out/new.json", "net.py")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((proj / "out" / "new.json").stat().st_mode) == 0o644


def test_a_symlink_is_resolved_and_its_target_written(proj):
    (proj / "reports").mkdir()
    target = proj / "reports" / "latest.json"
    target.write_text("old")
    link = proj / "report.json"
    link.symlink_to(target)
    run("check", "--format", "json", "-o", "report.json", "net.py")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert _is_report(target.read_text())
    assert sorted(p.name for p in (proj / "reports").iterdir()) == ["latest.json"]


def test_a_fifo_is_written_directly_not_replaced(proj):
    fifo = proj / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, encoding="utf-8").read()), daemon=True)
    reader.start()
    r = run("check", "--format", "json", "-o", str(fifo), "net.py")
    reader.join(timeout=20)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert got and _is_report(got[0])
    assert r.exit_code == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root; /dev/null is tested below")
def test_a_device_is_written_directly_not_replaced(proj):
    dev = proj / "null"
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private /dev/null
    r = run("check", "--format", "json", "-o", str(dev), "--output", f"sarif={dev}", "net.py")
    assert r.exit_code == 1
    assert stat.S_ISCHR(os.lstat(dev).st_mode), "the device was replaced by a regular file"
    assert sorted(p.name for p in proj.iterdir()) == ["net.py", "null"]


def test_dev_null(proj):
    before = os.lstat("/dev/null")
    r = run("check", "--format", "json", "-o", "/dev/null", "net.py")
    after = os.lstat("/dev/null")
    assert r.exit_code == 1
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_dev_stdout_and_dash_mean_stdout(proj):
    r = run("check", "--format", "json", "-o", "/dev/stdout", "net.py")
    assert _is_report(r.output)
    r = run("check", "--format", "concise", "--output", "json=-", "net.py")
    assert "net.py:5:9: MSG201" in r.output and '"schema_version"' in r.output


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_a_full_device_is_a_clear_error_and_stays_a_device(proj):
    dev = proj / "full"
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 7))  # a private /dev/full
    r = run("check", "--format", "json", "-o", str(dev), "net.py")
    assert r.exit_code == 2 and "cannot write the output" in r.output and "internal error" not in r.output
    assert stat.S_ISCHR(os.lstat(dev).st_mode)

"""--fix / --unsafe-fixes / --diff: the guarantees."""

from __future__ import annotations

import codecs
import os
import stat

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli
from msgraphlint.findings import Edit
from msgraphlint.fix.contract import FixError, apply_edits, check_parses

SRC = ("import mindspore.nn as nn\nfrom mindspore import ops\n\nclass Net(nn.Cell):\n"
       "    def construct(self, x):\n        print('é', x)\n        print(x, sep=',')\n        return x\n")
FIXED = SRC.replace("        print('é', x)", "        ops.print_('é', x)")


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def net(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = tmp_path / "net.py"
    p.write_text(SRC, encoding="utf-8")
    return p


def test_safe_only_by_default_unsafe_on_request(net):
    r = run("check", "--fix", "net.py")
    assert net.read_text() == SRC  # MSG201's fix is unsafe: --fix alone leaves it
    assert r.exit_code == 1
    r = run("check", "--fix", "--unsafe-fixes", "--format", "concise", "net.py")
    assert net.read_text(encoding="utf-8") == FIXED
    # the print with sep= has no fix and remains: exit code 1, reported at line 7
    assert r.exit_code == 1 and "net.py:7:9: MSG201" in r.output and "net.py:6" not in r.output


def test_fix_twice_changes_nothing(net):
    run("check", "--fix", "--unsafe-fixes", "net.py")
    before = net.read_bytes()
    run("check", "--fix", "--unsafe-fixes", "net.py")
    assert net.read_bytes() == before


def test_exit_0_when_everything_is_fixed(net):
    net.write_text(SRC.replace("        print(x, sep=',')\n", ""), encoding="utf-8")
    r = run("check", "--fix", "--unsafe-fixes", "net.py")
    assert r.exit_code == 0, r.output


def test_diff_changes_nothing(net):
    r = run("check", "--diff", "--unsafe-fixes", "net.py")
    assert net.read_text(encoding="utf-8") == SRC
    assert r.exit_code == 1
    assert "-        print('é', x)\n+        ops.print_('é', x)\n" in r.output
    assert r.output.startswith("--- a/net.py\n+++ b/net.py\n")


@pytest.mark.parametrize("encoding,bom,newline", [("utf-8", False, "\r\n"), ("utf-8", True, "\n"), ("latin-1", False, "\n")])
def test_encoding_bom_and_line_endings_are_kept(net, encoding, bom, newline):
    text = SRC.replace("\n", newline)
    if encoding != "utf-8":
        text = f"# -*- coding: {encoding} -*-{newline}" + text
    data = text.encode(encoding)
    net.write_bytes((codecs.BOM_UTF8 if bom else b"") + data)
    run("check", "--fix", "--unsafe-fixes", "net.py")
    out = net.read_bytes()
    assert out.startswith(codecs.BOM_UTF8) == bom
    body = out[3:] if bom else out
    expected = FIXED.replace("\n", newline)
    if encoding != "utf-8":
        expected = f"# -*- coding: {encoding} -*-{newline}" + expected
    assert body == expected.encode(encoding)


def test_atomic_write_keeps_mode_and_leaves_no_temp_files(net):
    os.chmod(net, 0o640)
    run("check", "--fix", "--unsafe-fixes", "net.py")
    assert stat.S_IMODE(net.stat().st_mode) == 0o640
    assert sorted(p.name for p in net.parent.iterdir()) == ["net.py"]


def test_fix_on_stdin_writes_the_fixed_source_to_stdout(net):
    # ruff's convention: the fixed source on stdout, what remains on stderr; nothing written
    r = CliRunner().invoke(cli, ["check", "--fix", "--unsafe-fixes", "--stdin-filename", "x.py"],
                                           input=SRC)
    assert r.stdout == FIXED
    assert r.exit_code == 1  # print(x, sep=',') has no fix and remains
    assert "MSG201" in r.stderr and not os.path.exists("x.py")
    r = CliRunner().invoke(cli, ["check", "--fix", "--stdin-filename", "x.py"], input=SRC)
    assert r.stdout == SRC  # the print fix is unsafe: not applied without --unsafe-fixes


def test_overlapping_edits_are_applied_once():
    text = "abc = 1\n"
    new, n = apply_edits(text, [(Edit(1, 0, 1, 3, "xyz"),), (Edit(1, 1, 1, 2, "Q"),)])
    assert (new, n) == ("xyz = 1\n", 1)


def test_edits_use_character_columns_on_non_ascii_lines():
    text = "s = 'é中'; print(s)\n"
    col = text.index("print")  # 11 characters, 14 bytes
    new, n = apply_edits(text, [(Edit(1, col, 1, col + 5, "ops.print_"),)])
    assert new == "s = 'é中'; ops.print_(s)\n"


def test_a_fix_that_breaks_the_file_is_refused():
    with pytest.raises(FixError):
        check_parses("def f(:\n", "x.py")

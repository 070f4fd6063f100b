"""Stdin reads bytes exactly like a file (BOM, coding cookie, invalid UTF-8 -> MSG001),
`-` means stdin, --stdin-filename lints Python whatever the name, and
api.check_source works without a path."""

from __future__ import annotations

import codecs
import re
import subprocess
import sys

import pytest

from msgraphlint import api

PRINTING = b"import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        print(x)\n        return x\n"
LATIN1 = "# -*- coding: latin-1 -*-\n".encode() + PRINTING.replace(b"print(x)", "print('é', x)".encode("latin-1"))
CASES = {
    "plain": PRINTING,
    "bom": codecs.BOM_UTF8 + PRINTING,
    "latin1-cookie": LATIN1,
    "invalid-utf8": b"import mindspore\nx = '\xff\xfe'\n",
    "crlf": PRINTING.replace(b"\n", b"\r\n"),
}


def _concise(args, stdin=None, cwd=None):
    proc = subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--no-cache", "--format", "concise", *args],
                          input=stdin, capture_output=True, cwd=cwd, timeout=120)
    found = [re.match(r"^(.*):(\d+):\d+: (MSG\d+)", ln) for ln in proc.stdout.decode().splitlines()]
    return proc.returncode, [(m.group(1).rsplit("/", 1)[-1], m.group(2), m.group(3)) for m in found if m]


@pytest.mark.parametrize("name", sorted(CASES))
def test_stdin_equals_file(tmp_path, name):
    data = CASES[name]
    (tmp_path / "m.py").write_bytes(data)
    rc_file, from_file = _concise(["m.py"], cwd=tmp_path)
    rc_stdin, from_stdin = _concise(["--stdin-filename", "m.py"], stdin=data, cwd=tmp_path)
    assert from_file, "the case must produce a finding"
    assert (rc_stdin, from_stdin) == (rc_file, from_file)
    if name == "invalid-utf8":
        assert from_stdin == [("m.py", "2", "MSG001")]


def test_dash_means_stdin(tmp_path):
    rc, got = _concise(["-"], stdin=PRINTING, cwd=tmp_path)
    assert rc == 1 and got == [("<stdin>", "5", "MSG201")]


@pytest.mark.parametrize("name", ["script", "train", "model.txt", "noext/bin/run"])
def test_stdin_filename_with_any_name_is_python(tmp_path, name):
    rc, got = _concise(["--stdin-filename", name], stdin=PRINTING, cwd=tmp_path)
    assert rc == 1 and got == [(name.rsplit("/", 1)[-1], "5", "MSG201")]


def test_check_source_without_a_path():
    found = api.check_source(PRINTING.decode())
    assert [(f.path, f.line, f.code) for f in found] == [("<stdin>", 5, "MSG201")]


def test_check_source_bytes_are_decoded_like_a_file():
    assert [(f.line, f.code) for f in api.check_source(LATIN1)] == [(6, "MSG201")]
    assert [(f.line, f.code) for f in api.check_source(CASES["invalid-utf8"])] == [(2, "MSG001")]

"""Bad input never crashes a run: at most one parse-error finding for that file,
the other files are still linted, and nothing is written."""

from __future__ import annotations

import codecs

import os

import pytest

from msgraphlint.run.runner import run_paths

from helpers import codes_at, lint

PRINTING = b"import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        print(x)\n        return x\n"


def lint_bytes(tmp_path, data: bytes, name="m.py"):
    (tmp_path / name).write_bytes(data)
    (tmp_path / "ok.py").write_bytes(PRINTING)
    return codes_at(lint([tmp_path]))


def test_syntax_error_is_one_finding_and_the_run_goes_on(tmp_path):
    got = lint_bytes(tmp_path, b"import mindspore\ndef f(:\n    pass\n")
    assert got == [("m.py", 2, "MSG001"), ("ok.py", 5, "MSG201")]


def test_not_utf8(tmp_path):
    got = lint_bytes(tmp_path, b"import mindspore\nx = '\xff\xfe'\n")
    assert got == [("m.py", 2, "MSG001"), ("ok.py", 5, "MSG201")]
    f = [f for fr in run_paths([str(tmp_path / "m.py")]).files for f in fr.findings][0]
    assert "not valid utf-8" in f.message


def test_latin1_with_coding_cookie_is_fine(tmp_path):
    src = "# -*- coding: latin-1 -*-\n".encode() + PRINTING.replace(b"print(x)", "print('é', x)".encode("latin-1"))
    assert lint_bytes(tmp_path, src) == [("m.py", 6, "MSG201"), ("ok.py", 5, "MSG201")]


def test_bom(tmp_path):
    assert lint_bytes(tmp_path, codecs.BOM_UTF8 + PRINTING) == [("m.py", 5, "MSG201"), ("ok.py", 5, "MSG201")]


def test_crlf(tmp_path):
    assert lint_bytes(tmp_path, PRINTING.replace(b"\n", b"\r\n")) == [("m.py", 5, "MSG201"), ("ok.py", 5, "MSG201")]


def test_tabs(tmp_path):
    assert lint_bytes(tmp_path, PRINTING.replace(b"    ", b"\t")) == [("m.py", 5, "MSG201"), ("ok.py", 5, "MSG201")]


def test_mixed_tabs_is_a_parse_error(tmp_path):
    got = lint_bytes(tmp_path, b"import mindspore\nif True:\n\tx = 1\n        y = 2\n")
    assert got == [("m.py", 4, "MSG001"), ("ok.py", 5, "MSG201")]


def test_empty_file(tmp_path):
    assert lint_bytes(tmp_path, b"") == [("ok.py", 5, "MSG201")]


def test_null_bytes(tmp_path):
    got = lint_bytes(tmp_path, b"import mindspore\nx = 1\x00\n")
    assert ("m.py", 1, "MSG001") in got or ("m.py", 2, "MSG001") in got
    assert ("ok.py", 5, "MSG201") in got


def test_unknown_coding_cookie(tmp_path):
    got = lint_bytes(tmp_path, b"# coding: klingon\nimport mindspore\n")
    assert got == [("m.py", 1, "MSG001"), ("ok.py", 5, "MSG201")]


def test_deep_nesting_does_not_crash(tmp_path):
    got = lint_bytes(tmp_path, b"import mindspore\nx = " + b"(" * 300 + b"1" + b")" * 300 + b"\n")
    assert ("ok.py", 5, "MSG201") in got


def test_missing_path_is_a_finding_and_the_rest_is_linted(tmp_path):
    (tmp_path / "m.py").write_text("import mindspore.nn as nn\nclass N(nn.Cell):\n    def construct(self, x):\n"
                                   "        print(x)\n        return x\n", encoding="utf-8")
    result = run_paths([str(tmp_path / "missing"), str(tmp_path / "m.py")])
    assert result.missing == [str(tmp_path / "missing")]
    by_code = sorted((f.code, os.path.basename(f.path)) for fr in result.files for f in fr.findings)
    assert by_code == [("MSG001", "missing"), ("MSG201", "m.py")]
    missing = [f for fr in result.files for f in fr.findings if f.code == "MSG001"][0]
    assert "No such file or directory" in missing.message


def test_parse_error_can_be_deselected(tmp_path):
    (tmp_path / "m.py").write_bytes(b"import mindspore\ndef f(:\n")
    assert lint([tmp_path], ignore=["MSG001"]) == []


def test_files_are_not_modified(tmp_path):
    data = codecs.BOM_UTF8 + PRINTING.replace(b"\n", b"\r\n")
    (tmp_path / "m.py").write_bytes(data)
    lint([tmp_path])
    assert (tmp_path / "m.py").read_bytes() == data

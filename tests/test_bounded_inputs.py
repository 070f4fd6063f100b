"""Every input format is parsed within a budget, and nothing the tool was to look at is
dropped without a word (issue 20, items 4 and 10): YAML alias bombs and deep nesting
are MSG001 naming the limit, a MemoryError is never a clean file, unreadable folders
and unparsable YAML are named on stderr, configuration files are read with a size
limit, every codec failure of a coding cookie is MSG001, and per-file-ignores are
compiled once per configuration."""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

import msgraphlint
from msgraphlint import config as config_mod
from msgraphlint.runner import run_paths

from helpers import codes_at, lint, run_cli

PRINTING = ("import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            "        print(x)\n        return x\n")
RUN_CONFIG = "model:\n  model_config:\n    num_heads: 8\nparallel_config:\n  model_parallel: 3\n"


def alias_bomb(levels: int) -> str:
    """The "billion laughs": level i is a list of 9 aliases of level i - 1 (9^levels leaves)."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def merge_bomb(levels: int) -> str:
    """The same through merge keys: each level merges 9 copies of the level below."""
    lines = ["m0: &m0 {" + ", ".join(f"k{j}: {j}" for j in range(9)) + "}"]
    for i in range(1, levels + 1):
        lines.append(f"m{i}: &m{i} {{<<: [" + ", ".join([f"*m{i - 1}"] * 9) + "]}")
    return "\n".join(lines) + "\n"


def nested(depth: int) -> str:
    return "parallel_config:\n  model_parallel: 2\nx: " + "[" * depth + "]" * depth + "\n"


# --- item 4: every codec failure of a coding cookie is MSG001 ---------------------------

@pytest.mark.parametrize("codec, body, says", [
    ("punycode", b"import mindspore\nx = 1\n", "'punycode' codec"),      # UnicodeError, was MSG000
    ("undefined", b"import mindspore\nx = 1\n", "'undefined' codec"),    # UnicodeError, was MSG000
    ("utf-16", b"import mindspore\nx = 1\n", "'utf-16' codec"),          # decoded the file to garbage
    ("rot13", b"import mindspore\nx = 1\n", "'rot13', which is not a text encoding"),
    ("idna", b"import mindspore\nx.xn--99zz.y\n", "'idna' codec"),       # punycode fails mid-file
])
def test_every_codec_failure_is_msg001_naming_the_codec(tmp_path, codec, body, says):
    (tmp_path / "m.py").write_bytes(f"# -*- coding: {codec} -*-\n".encode() + body)
    (tmp_path / "ok.py").write_text(PRINTING, encoding="utf-8")
    got = lint([tmp_path])
    assert codes_at(got) == [("m.py", 1, "MSG001"), ("ok.py", 5, "MSG201")]
    assert says in got[0].message, got[0].message


@pytest.mark.parametrize("cookie", ["# -*- coding: latin-1 -*-", "# été, coding: latin-1", "# vim: set fileencoding=cp1252 :"])
def test_cookie_of_a_working_codec_still_decodes(tmp_path, cookie):
    # (the second has non-ASCII bytes before the cookie: only "coding: latin-1" must read back)
    src = (cookie + "\n").encode("latin-1") + PRINTING.replace("print(x)", "print('é', x)").encode("latin-1")
    (tmp_path / "m.py").write_bytes(src)
    assert codes_at(lint([tmp_path])) == [("m.py", 6, "MSG201")]



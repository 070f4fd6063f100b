"""ruff's file-level exemption `# ruff: noqa: CODE`, spelled `# msgraphlint: noqa: CODE`
(issue 26 item 2): it silences those codes in the whole file; a bare `# msgraphlint: noqa`
skips the file (as `# ruff: noqa` does); a code that silences nothing is reported (MSG002)."""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

HEAD = "import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
BODY = "        print(x)\n        if x > 0:\n            x = x + 1\n        return x\n"


def check(tmp_path, top, body=BODY):
    write_tree(tmp_path, {"m.py": top + HEAD + body})
    return codes_at(lint([tmp_path / "m.py"]))


def test_without_a_directive_both_are_reported(tmp_path):
    assert check(tmp_path, "") == [("m.py", 5, "MSG201"), ("m.py", 6, "MSG101")]


def test_file_level_noqa_with_codes_silences_only_those_codes_in_the_whole_file(tmp_path):
    assert check(tmp_path, "# msgraphlint: noqa: MSG201\n") == [("m.py", 7, "MSG101")]
    assert check(tmp_path, "# msgraphlint: noqa: MSG201, MSG101\n") == []
    # anywhere in the file, as ruff's
    assert check(tmp_path, "", BODY + "# msgraphlint: noqa: MSG101\n") == [("m.py", 5, "MSG201")]


def test_it_is_not_a_line_suppression(tmp_path):
    # on the flagged line it still covers the file: MSG101 two lines below is silenced too
    body = "        print(x)  # msgraphlint: noqa: MSG201, MSG101\n" + BODY.split("\n", 1)[1]
    assert check(tmp_path, "", body) == []


def test_bare_file_level_noqa_skips_the_file(tmp_path):
    assert check(tmp_path, "# msgraphlint: noqa\n") == []


def test_stale_and_wrong_case_codes_are_reported(tmp_path):
    got = check(tmp_path, "# msgraphlint: noqa: MSG201, MSG305\n")
    assert got == [("m.py", 1, "MSG002"), ("m.py", 7, "MSG101")]
    got = check(tmp_path, "# msgraphlint: noqa: msg201\n")
    assert got == [("m.py", 1, "MSG002"), ("m.py", 6, "MSG201"), ("m.py", 7, "MSG101")]


def test_line_noqa_is_unchanged(tmp_path):
    body = "        print(x)  # noqa: MSG201\n" + BODY.split("\n", 1)[1]
    assert check(tmp_path, "", body) == [("m.py", 6, "MSG101")]

"""# noqa / # msgraphlint: ignore[...] / skip-file, and the unused-suppression report."""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

HEAD = "import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"


def check(tmp_path, body, **kw):
    write_tree(tmp_path, {"m.py": HEAD + body})
    return codes_at(lint([tmp_path / "m.py"], **kw))


def test_noqa_with_code(tmp_path):
    assert check(tmp_path, "        print(x)  # noqa: MSG201\n        return x\n") == []


def test_noqa_other_code_does_not_suppress_and_is_not_unused(tmp_path):
    assert check(tmp_path, "        print(x)  # noqa: E501\n        return x\n") == [("m.py", 5, "MSG201")]


def test_bare_noqa_suppresses_everything(tmp_path):
    assert check(tmp_path, "        print(x)  # noqa\n        return x\n") == []


def test_msgraphlint_ignore_forms(tmp_path):
    assert check(tmp_path, "        print(x)  # msgraphlint: ignore[MSG201]\n        return x\n") == []
    assert check(tmp_path, "        print(x)  # msgraphlint: ignore\n        return x\n") == []
    # MSG101 is not selected here, so naming it is not "unused"
    assert check(tmp_path, "        print(x)  # msgraphlint: ignore[MSG101, MSG201]\n        return x\n",
                 select=["MSG201", "MSG002"]) == []
    # a selected code that silences nothing is reported even when another code on the line is used
    assert check(tmp_path, "        print(x)  # noqa: MSG001, MSG201\n        return x\n") == [("m.py", 5, "MSG002")]


def test_unused_suppressions_reported(tmp_path):
    got = check(tmp_path, "        y = x  # noqa: MSG201\n        z = y  # msgraphlint: ignore\n        return z\n")
    assert got == [("m.py", 5, "MSG002"), ("m.py", 6, "MSG002")]


def test_unused_not_reported_for_codes_not_selected(tmp_path):
    got = check(tmp_path, "        y = x  # noqa: MSG201\n        return y\n", select=["MSG002"])
    assert got == []


def test_skip_file(tmp_path):
    assert check(tmp_path, "        # msgraphlint: skip-file\n        print(x)\n        return x\n") == []


def test_noqa_in_string_is_not_a_suppression(tmp_path):
    got = check(tmp_path, '        print("# noqa: MSG201", x)\n        return x\n')
    assert got == [("m.py", 5, "MSG201")]

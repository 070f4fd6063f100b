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


# issue 20: a code list never acts as a blanket; codes that are not rule codes are reported

def messages(tmp_path, body, **kw):
    write_tree(tmp_path, {"m.py": HEAD + body})
    return sorted((f.line, f.code, f.message) for f in lint([tmp_path / "m.py"], **kw))


MSG201_ONLY = dict(select=["MSG201", "MSG002"])
UPPER = " is not a rule code (codes are upper case: did you mean `MSG201`?); it suppresses nothing"


def test_lowercase_code_is_not_a_blanket_and_is_reported(tmp_path):
    # codes match exactly, as in ruff: `msg201` silences nothing (it used to silence every code)
    for comment in ("# noqa: msg201", "# noqa:msg201", "# msgraphlint: ignore[msg201]"):
        got = messages(tmp_path, f"        print(x)  {comment}\n        return x\n", **MSG201_ONLY)
        assert [(l, c) for l, c, _ in got] == [(5, "MSG002"), (5, "MSG201")], comment
        assert got[0][2] == "`msg201`" + UPPER, comment


def test_unknown_code_in_a_list_is_reported_and_the_rest_still_works(tmp_path):
    for comment in ("# noqa: MSG201,msg202", "# noqa: MSG201 msg202", "# msgraphlint: ignore[MSG201, msg202]"):
        got = messages(tmp_path, f"        print(x)  {comment}\n        return x\n", **MSG201_ONLY)
        assert got == [(5, "MSG002", "`msg202` is not a rule code (codes are upper case: did you mean `MSG202`?); "
                                     "it suppresses nothing")], comment


def test_typo_and_unknown_codes_are_reported_not_silent(tmp_path):
    got = messages(tmp_path, "        print(x)  # noqa: MSG2O1\n        print(x)  # noqa: MSG999\n        return x\n",
                   **MSG201_ONLY)
    assert [(l, c) for l, c, _ in got] == [(5, "MSG002"), (5, "MSG201"), (6, "MSG002"), (6, "MSG201")]
    assert got[0][2] == "`MSG2O1` is not a rule code (did you mean `MSG201`?); it suppresses nothing"
    assert got[2][2] == "`MSG999` is not a rule code; it suppresses nothing"


def test_unknown_lowercase_code_does_not_silence_other_codes(tmp_path):
    # a line with two findings: neither is silenced by a code that names neither
    body = "        print(x)\n        if x > 0:  # noqa: msg999\n            x = x + 1\n        return x\n"
    assert [(l, c) for l, c, _ in messages(tmp_path, body)] == [(5, "MSG201"), (6, "MSG002"), (6, "MSG101")]


def test_noqa_colon_without_codes_is_not_a_blanket(tmp_path):
    got = messages(tmp_path, "        print(x)  # noqa: see above\n        y = x  # noqa: see above\n        return y\n",
                   **MSG201_ONLY)
    # reported only where it would have silenced one of ours; the other line is left to other tools
    assert [(l, c) for l, c, _ in got] == [(5, "MSG002"), (5, "MSG201")]
    assert got[0][2].startswith("`# noqa:` names no rule code, so it suppresses nothing")


def test_malformed_or_empty_msgraphlint_ignore_is_not_a_blanket(tmp_path):
    for comment in ("# msgraphlint: ignore: MSG201", "# msgraphlint: ignore[]", "# msgraphlint: ignore [ ]"):
        got = messages(tmp_path, f"        print(x)  {comment}\n        return x\n", **MSG201_ONLY)
        assert [(l, c) for l, c, _ in got] == [(5, "MSG002"), (5, "MSG201")], comment
    # a space before the brackets is still a code list
    assert messages(tmp_path, "        print(x)  # msgraphlint: ignore [MSG201]\n        return x\n") == []


def test_other_tools_codes_stay_silent(tmp_path):
    got = messages(tmp_path, "        y = x  # noqa: E501, F401 some reason\n        return y  # noqa: e501\n",
                   **MSG201_ONLY)
    assert got == []
    # ACME is no installed rule's prefix here (the plugin test below installs one)
    assert messages(tmp_path, "        y = x  # noqa: acme101, ACME999\n        return y\n") == []


def test_skip_file_with_codes_silences_those_codes_in_the_file(tmp_path):
    body = "        # msgraphlint: skip-file[MSG201]\n        print(x)\n        if x > 0:\n            x = x + 1\n        return x\n"
    assert [(l, c) for l, c, _ in messages(tmp_path, body)] == [(7, "MSG101")]
    # it used to skip the whole file, whatever the codes; a wrong-case code skips nothing
    got = messages(tmp_path, body.replace("MSG201", "msg201"))
    assert [(l, c) for l, c, _ in got] == [(5, "MSG002"), (6, "MSG201"), (7, "MSG101")]
    assert got[0][2] == "`msg201`" + UPPER
    got = messages(tmp_path, body.replace("MSG201]", "MSG201, MSG305]"))
    assert got[0][:2] == (5, "MSG002") and got[0][2] == "unused suppression of MSG305: it reports nothing in this file"
    assert [(l, c) for l, c, _ in got[1:]] == [(7, "MSG101")]
    assert check(tmp_path, "        # msgraphlint: skip-file\n        print(x)\n        return x\n") == []


def test_plugin_codes_are_matched_and_reported_like_ours(tmp_path, monkeypatch):
    """A rule pack with another prefix (ACME): its codes suppress, and `acme101` /
    `ACME999` are reported; without the pack ACME is another tool's prefix."""
    import ast
    import types

    from msgraphlint.engine import registry
    from msgraphlint.rule import Rule

    class AcmeCall(Rule):
        code = "ACME101"
        name = "acme-bad-call"
        summary = "calls bad()"
        message = "bad() called"
        scope = "module"

        def visit_Call(self, node: ast.Call, ctx) -> None:
            if isinstance(node.func, ast.Name) and node.func.id == "bad":
                ctx.report(node)

    AcmeCall.__module__ = __name__
    ep = types.SimpleNamespace(name="acme", value="acme:RULES", load=lambda: [AcmeCall])
    builtin = registry._entry_points()
    monkeypatch.setattr(registry, "_entry_points", lambda: builtin + [ep])
    registry.load_rules.cache_clear()
    try:
        src = "import mindspore\nbad()  # noqa: ACME101\nbad()  # noqa: acme101\nbad()  # noqa: ACME999\n"
        write_tree(tmp_path, {"m.py": src})
        got = sorted((f.line, f.code, f.message) for f in lint([tmp_path / "m.py"], select=["ACME", "MSG002"]))
        assert got == [(3, "ACME101", "bad() called"),
                       (3, "MSG002", "`acme101` is not a rule code (codes are upper case: did you mean `ACME101`?); "
                                     "it suppresses nothing"),
                       (4, "ACME101", "bad() called"),
                       (4, "MSG002", "`ACME999` is not a rule code; it suppresses nothing")]
    finally:
        registry.load_rules.cache_clear()


def test_add_noqa_keeps_codes_as_written_and_fills_a_list_that_names_none():
    from msgraphlint.fix.noqa import add_to_line

    # `# noqa: see above` silences nothing now: --add-noqa must add the code to it
    assert add_to_line("x = 1  # noqa: see above", ["MSG201"]) == "x = 1  # noqa: MSG201 see above"
    # the wrong-case spelling of the code added is replaced; another tool's code stays as written
    assert add_to_line("x = 1  # noqa: msg201, e501", ["MSG201"]) == "x = 1  # noqa: e501, MSG201"
    assert add_to_line("x = 1  # noqa", ["MSG201"]) == "x = 1  # noqa"

"""Output that cannot inject, and file names that are not UTF-8 (issue 20, items 5 and 7).

A file name may hold any byte but ``/`` and NUL and a string literal any character, so
both can carry a newline (a forged ``::error ...`` line: a GitHub Actions workflow
command), terminal escapes (OSC retitles the window or writes the clipboard, CSI clears
the screen), bidi overrides, and bytes that are not UTF-8 (Python decodes them to lone
surrogates). Every format must show them escaped (``\\x1b``, ``\\u202e``, ``\\xe9``),
write valid UTF-8, and never start a line with ``::`` unless the ``github`` format wrote
a command there. The expected strings below were worked out by hand from the scheme
(Python escapes; ``./`` before a relative path that starts with ``::``).
"""

from __future__ import annotations

import json
import os
import re

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli
from msgraphlint.findings import FileResult, Finding, Severity
from msgraphlint.reporters import REPORTERS, render
from msgraphlint.rule import Rule

# what no line of any output may hold raw: C0 but tab (a line ends at \n only), DEL, C1,
# U+2028/U+2029, bidi embeddings/overrides/isolates, lone surrogates
RAW = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
GITHUB_LINE = re.compile(r"::(error|warning|notice) file=[^\n]*,line=\d+,col=\d+[^\n]*::")


def assert_clean(out: str, fmt: str, commands: int = 0) -> None:
    """Valid UTF-8; no line holds a raw control/bidi character or starts with ``::``,
    except exactly ``commands`` lines the github format wrote as annotations."""
    out.encode("utf-8")  # strict: a lone surrogate raises
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        assert not RAW.search(line), (fmt, line)
    starting = [line for line in lines if line.startswith("::")]
    if fmt == "github":
        assert len(starting) == len(lines) == commands, out
        assert all(GITHUB_LINE.match(line) for line in starting), out
    else:
        assert not starting, (fmt, starting)


class HostileRule(Rule):
    code = "MSG902"
    name = "dynamic-shape"
    summary = "s"
    message = "m"
    hint = "use \x1b[31mops.masked_select\x1b[0m"
    severity = Severity.WARNING


RULES = {"MSG902": HostileRule}

HOSTILE_PATHS = [
    "a\n::error file=x::pwn.py",            # a newline: a forged workflow command on its own line
    "::add-mask::secret.py",                 # a relative path that starts with ::
    "t\x1b]0;title\x07.py",                  # OSC: set the terminal title
    "caf\udce9.py",                          # b'caf\xe9.py' as Python decodes it (surrogateescape)
    "\u202eyp.exe",                          # RIGHT-TO-LEFT OVERRIDE
    "cr\rover.py", "c1\x9b2J.py", "del\x7f.py", "ls\u2028ep.py", "iso\u2066x\u2069.py",
]
MESSAGE = "m\x1b[2J\r\n::stop-commands::tok"
SOURCE = "    s = '\x1b]52;c;aGk=\x07\x1b[2J\u202e\u2066\x9b' + x  # \x85 \u2028 end"


def hostile_results():
    out = []
    for path in HOSTILE_PATHS:
        f = Finding(code="MSG902", name="dynamic-shape", message=MESSAGE, path=path, line=3, col=4,
                    end_line=3, end_col=9, severity=Severity.WARNING, source_line=SOURCE + "\n",
                    chain=(f"called from Net.construct ({path}:7)",))
        bare = Finding(code="MSG902", name="dynamic-shape", message="::error::" + path, path=path, line=1, col=0)
        out.append(FileResult(path=path, findings=[bare, f], lines=5))
    return out


N = 2 * len(HOSTILE_PATHS) + 1
# a plugin's rule name is shown too (statistics rows, github titles, SARIF)
ODD_NAME = FileResult(path="n.py", findings=[Finding(code="MSG903", name="n\u202e\x1b[2J\n::error::x", message="m",
                                                     path="n.py", line=1)])


@pytest.mark.parametrize("fmt", sorted(REPORTERS))
@pytest.mark.parametrize("statistics", [False, True])
def test_every_format_line_by_line(fmt, statistics):
    out = render(fmt, hostile_results() + [ODD_NAME], RULES, statistics=statistics)
    assert_clean(out, fmt, commands=N)
    if fmt in ("json", "sarif"):
        json.loads(out)
    colored = render(fmt, hostile_results() + [ODD_NAME], RULES, statistics=statistics, color=True)
    # colour adds its own ESC sequences and nothing else raw
    assert_clean(re.sub("\x1b\\[[0-9;]*m", "", colored), fmt, commands=N)


def test_concise_lines_by_hand():
    out = render("concise", hostile_results()[:4], RULES)
    assert out.split("\n")[:8] == [
        "a\\x0a::error file=x::pwn.py:1:1: MSG902 ::error::a\\x0a::error file=x::pwn.py",
        "a\\x0a::error file=x::pwn.py:3:5: MSG902 m\\x1b[2J\\x0d\\x0a::stop-commands::tok",
        "./::add-mask::secret.py:1:1: MSG902 ::error::::add-mask::secret.py",
        "./::add-mask::secret.py:3:5: MSG902 m\\x1b[2J\\x0d\\x0a::stop-commands::tok",
        "t\\x1b]0;title\\x07.py:1:1: MSG902 ::error::t\\x1b]0;title\\x07.py",
        "t\\x1b]0;title\\x07.py:3:5: MSG902 m\\x1b[2J\\x0d\\x0a::stop-commands::tok",
        "caf\\xe9.py:1:1: MSG902 ::error::caf\\xe9.py",
        "caf\\xe9.py:3:5: MSG902 m\\x1b[2J\\x0d\\x0a::stop-commands::tok",
    ]


def test_text_snippet_hint_and_note_by_hand():
    out = render("text", hostile_results()[3:4], RULES)
    assert out == (
        "caf\\xe9.py:1:1: MSG902 ::error::caf\\xe9.py\n"
        "  = help: use \\x1b[31mops.masked_select\\x1b[0m\n"
        "\n"
        "caf\\xe9.py:3:5: MSG902 m\\x1b[2J\\x0d\\x0a::stop-commands::tok\n"
        "  |\n"
        "3 |     s = '\\x1b]52;c;aGk=\\x07\\x1b[2J\\u202e\\u2066\\x9b' + x  # \\x85 \\u2028 end\n"
        "  |     ^^^^^ MSG902\n"
        "  |\n"
        "  = help: use \\x1b[31mops.masked_select\\x1b[0m\n"
        "  = note: called from Net.construct (caf\\xe9.py:7)\n"
        "\n"
        "Found 2 errors (0 fixable).\n"
    )


def test_carets_stay_under_the_flagged_text_after_escapes():
    # `y` is character 10 of the line; shown after the 4-character \x1b it is at column 13
    f = Finding(code="MSG902", name="n", message="m", path="t.py", line=1, col=10, end_line=1, end_col=11,
                source_line="x = '\x1b' + y")
    out = render("text", [FileResult(path="t.py", findings=[f])], {})
    assert "1 | x = '\\x1b' + y\n  | " + " " * 13 + "^ MSG902\n" in out


def test_github_by_hand():
    out = render("github", hostile_results()[:1], RULES)
    assert out == (
        "::warning file=a%0A%3A%3Aerror file=x%3A%3Apwn.py,line=1,col=1,"
        "title=MSG902 dynamic-shape::::error::a%0A::error file=x::pwn.py\n"
        "::warning file=a%0A%3A%3Aerror file=x%3A%3Apwn.py,line=3,col=5,endLine=3,endColumn=10,"
        "title=MSG902 dynamic-shape::m\\x1b[2J%0D%0A::stop-commands::tok\n"
    )


def test_json_keeps_every_string_but_undecodable_bytes():
    doc = json.loads(render("json", hostile_results(), RULES))
    paths = [f["path"] for f in doc["findings"]]
    expected = [p if p != "caf\udce9.py" else "caf\\xe9.py" for p in HOSTILE_PATHS for _ in (1, 2)]
    assert paths == expected
    assert {f["message"] for f in doc["findings"] if f["line"] == 3} == {MESSAGE}
    assert {f["source_line"] for f in doc["findings"] if f["line"] == 3} == {SOURCE + "\n"}


def test_sarif_uris_are_percent_encoded_bytes_and_messages_kept():
    doc = json.loads(render("sarif", hostile_results(), RULES))
    results = doc["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert "caf%E9.py" in uris and "a%0A%3A%3Aerror%20file%3Dx%3A%3Apwn.py" in uris
    assert "%E2%80%AEyp.exe" in uris
    snippets = {r["locations"][0]["physicalLocation"]["contextRegion"]["snippet"]["text"]
                for r in results if "contextRegion" in r["locations"][0]["physicalLocation"]}
    assert snippets == {SOURCE}


# ------------------------------------------------------------------------- the CLI
GRAPH = (b"import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
         b"        print('\x1b]0;pwned\x07\x1b[2J\xe2\x80\xae', x)\n        return x\n")
# (names that are not UTF-8 have their own tests below)
NAMES = [b"a\n::error file=x::pwn.py", b"::add-mask::b.py", b"t\x1b]0;t\x07.py", b"\xe2\x80\xaebidi.py"]
SKIPPED = b"s\x1b[2J\n::warning::skip.py"   # no graph code: -v lists it as skipped
FIXABLE = b"fix\x1b]0;t\x07\n::error::f.py"    # a safe fix: --show-fixes lists the file


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    root = os.fsencode(str(tmp_path))
    for name in NAMES:
        with open(os.path.join(root, name), "wb") as fh:
            fh.write(GRAPH)
    with open(os.path.join(root, SKIPPED), "wb") as fh:
        fh.write(b"x = 1\n")
    with open(os.path.join(root, FIXABLE), "wb") as fh:
        fh.write(b"from mindspore import nn\ndrop = nn.Dropout(keep_prob=0.9)\n")
    return tmp_path


def check(*args, fmt="text"):
    r = CliRunner().invoke(cli, ["check", "--no-cache", "--format", fmt, *args], catch_exceptions=False)
    return r, r.stdout_bytes.decode("utf-8"), r.stderr_bytes.decode("utf-8")


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "sarif", "github"])
def test_cli_every_format_on_stdout(hostile, fmt):
    r, out, err = check(".", fmt=fmt)
    assert r.exit_code == 1, err
    assert_clean(out, fmt, commands=len(NAMES) + 1)
    assert_clean(err, "stderr")
    if fmt in ("text", "concise"):
        assert "\nt\\x1b]0;t\\x07.py:5:9: MSG201" in "\n" + out
        assert "\na\\x0a::error file=x::pwn.py:5:9: MSG201" in "\n" + out
        assert "\n./::add-mask::b.py:5:9: MSG201" in "\n" + out
    if fmt == "text":
        assert "5 |         print('\\x1b]0;pwned\\x07\\x1b[2J\\u202e', x)\n" in out


@pytest.mark.parametrize("flags", [["--statistics"], ["--show-files"], ["-v"], ["--show-fixes"],
                                   ["--fix", "--show-fixes"], ["--diff"]])
def test_cli_statistics_show_files_verbose_fixes_diff(hostile, flags):
    r, out, err = check(*flags, ".")
    assert r.exit_code in (0, 1), err
    assert_clean(out, "text")
    assert_clean(err, "stderr")
    if flags == ["--show-files"]:
        assert sorted(out.splitlines()) == sorted(
            ["a\\x0a::error file=x::pwn.py", "./::add-mask::b.py", "t\\x1b]0;t\\x07.py",
             "\\u202ebidi.py", "s\\x1b[2J\\x0a::warning::skip.py", "fix\\x1b]0;t\\x07\\x0a::error::f.py"])
        # as findings show paths (no `./`), but a name that starts with `::` keeps it (a workflow command)
    if flags == ["-v"]:
        assert "msgraphlint: skipped s\\x1b[2J\\x0a::warning::skip.py: " in err
    if flags == ["--diff"]:  # the patch's lines stay exact; its header names are escaped
        assert out.startswith("--- a/fix\\x1b]0;t\\x07\\x0a::error::f.py\n+++ b/fix\\x1b]0;t\\x07\\x0a::error::f.py\n@@ ")
    if "--show-fixes" in flags:
        assert "\n- fix\\x1b]0;t\\x07\\x0a::error::f.py:\n    1 × MSG" in out


def test_cli_show_files_of_a_name_that_starts_with_colons(hostile):
    r, out, _ = check("--show-files", "::add-mask::b.py")
    assert r.exit_code == 0 and out == "./::add-mask::b.py\n"


def test_cli_show_settings(hostile):
    r, out, err = check("--show-settings", "a\n::error file=x::pwn.py")
    assert r.exit_code == 0, err
    assert_clean(out, "text")
    assert out.startswith("Resolved settings for: a\\x0a::error file=x::pwn.py\n")


def test_cli_messages_on_stderr_that_embed_paths(hostile):
    r, _, err = check("no\x1b]0;x\x07\n::error::such.py")
    assert r.exit_code == 2
    assert_clean(err, "stderr")
    assert "path does not exist: no\\x1b]0;x\\x07\\x0a::error::such.py" in err
    # a stale baseline entry names a hostile path
    assert check("--write-baseline", "bl.json", ".")[0].exit_code == 0
    with open(os.fsencode(str(hostile)) + b"/a\n::error file=x::pwn.py", "wb") as fh:
        fh.write(GRAPH.replace(b"print(", b"y = ("))
    r, out, err = check("--baseline", "bl.json", ".")
    assert r.exit_code == 0, err
    assert_clean(err, "stderr")
    assert ("msgraphlint: baseline entry no longer matches: MSG201 a\\x0a::error file=x::pwn.py: "
            "print('\\x1b]0;pwned\\x07\\x1b[2J\\u202e', x)\n") in err


# -------------------------------------------------------- names that are not UTF-8
SRC = (b"import mindspore.nn as nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
       b"        print(x)\n        return x\n")


@pytest.fixture
def latin1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open(os.path.join(os.fsencode(str(tmp_path)), b"caf\xe9.py"), "wb") as fh:
        fh.write(SRC)
    return tmp_path


def _expect(fmt: str, text: str) -> None:
    assert_clean(text, fmt, commands=1)
    if fmt in ("text", "concise"):
        assert text.startswith("caf\\xe9.py:5:9: MSG201 ")
    elif fmt == "github":
        assert text.startswith("::warning file=caf\\xe9.py,line=5,col=9,")
    elif fmt == "json":
        assert [f["path"] for f in json.loads(text)["findings"]] == ["caf\\xe9.py"]
    else:
        loc = json.loads(text)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "caf%E9.py"


@pytest.mark.parametrize("fmt", ["text", "concise", "json", "sarif", "github"])
def test_non_utf8_name_every_format_to_a_file_and_stdout(latin1, fmt):
    name = os.fsdecode(b"caf\xe9.py")
    r, out, err = check("-o", f"out.{fmt}", name, fmt=fmt)
    assert r.exit_code == 1 and out == "" and not err, err
    _expect(fmt, (latin1 / f"out.{fmt}").read_bytes().decode("utf-8"))
    r, out, err = check("--output", f"{fmt}=extra.{fmt}", name, fmt="concise")
    assert r.exit_code == 1, err
    _expect(fmt, (latin1 / f"extra.{fmt}").read_bytes().decode("utf-8"))
    _expect("concise", out)
    r, out, err = check(name, fmt=fmt)
    assert r.exit_code == 1, err
    _expect(fmt, out)


def test_non_utf8_name_baseline_round_trips(latin1):
    r, _, err = check("--write-baseline", "bl.json", ".")
    assert r.exit_code == 0, err
    doc = json.loads((latin1 / "bl.json").read_bytes().decode("utf-8"))
    assert doc["entries"] == [{"code": "MSG201", "path": "caf\\xe9.py", "text": "print(x)", "count": 1}]
    r, out, err = check("--baseline", "bl.json", ".")
    assert (r.exit_code, out, err) == (0, "All checks passed!\n", "")
    # a second copy of the defect is still reported
    path = os.path.join(os.fsencode(str(latin1)), b"caf\xe9.py")
    with open(path, "wb") as fh:
        fh.write(SRC.replace(b"        print(x)\n", b"        print(x)\n        print(x)\n"))
    r, out, err = check("--baseline", "bl.json", ".", fmt="concise")
    assert r.exit_code == 1 and out.count("MSG201") == 1 and out.startswith("caf\\xe9.py:6:9: MSG201")

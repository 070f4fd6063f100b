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
from msgraphlint.run.runner import run_paths

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
    ("idna", b"import mindspore\nx.xn--99zz.y\n", "idna"),       # punycode fails mid-file
])
def test_every_codec_failure_is_msg001_naming_the_codec(tmp_path, codec, body, says):
    (tmp_path / "m.py").write_bytes(f"# -*- coding: {codec} -*-\n".encode() + body)
    (tmp_path / "ok.py").write_text(PRINTING, encoding="utf-8")
    got = lint([tmp_path])
    # the line is where decoding failed: the cookie's line, or (idna on 3.13, whose decoder
    # reports the failing label) the line that does not decode
    assert [(f, c) for f, _, c in codes_at(got)] == [("m.py", "MSG001"), ("ok.py", "MSG201")]
    assert [line for f, line, _ in codes_at(got) if f == "ok.py"] == [5]
    bad = [x for x in got if x.code == "MSG001"]
    assert bad[0].line in ((1, 3) if codec == "idna" else (1,)), bad[0].line
    assert says in bad[0].message, bad[0].message


@pytest.mark.parametrize("cookie", ["# -*- coding: latin-1 -*-", "# été, coding: latin-1", "# vim: set fileencoding=cp1252 :"])
def test_cookie_of_a_working_codec_still_decodes(tmp_path, cookie):
    # (the second has non-ASCII bytes before the cookie: only "coding: latin-1" must read back)
    src = (cookie + "\n").encode("latin-1") + PRINTING.replace("print(x)", "print('é', x)").encode("latin-1")
    (tmp_path / "m.py").write_bytes(src)
    assert codes_at(lint([tmp_path])) == [("m.py", 6, "MSG201")]


# --- item 1: YAML budgets ----------------------------------------------------------

def test_alias_bomb_is_refused_while_composing():
    from msgraphlint.parse.yamlconfig import MAX_ALIAS_NODES, YamlLimitError, parse_yaml

    # 5 levels: 1 + 9 * (1 + 9 * (...)) = 597,871 nodes once expanded, from 300 bytes
    with pytest.raises(YamlLimitError) as err:
        parse_yaml(alias_bomb(5), "bomb.yaml")
    assert err.value.limit == "aliases" and f"{MAX_ALIAS_NODES:,}" in str(err.value)
    assert err.value.line == 6  # the level whose expansion goes over: a5, line 6
    with pytest.raises(YamlLimitError) as err:
        parse_yaml(merge_bomb(5), "merge.yaml")
    assert err.value.limit == "aliases"


def test_alias_budget_leaves_ordinary_anchors_alone():
    from msgraphlint.parse.yamlconfig import parse_yaml

    # 4 levels expand to 66,430 nodes: under the budget, and the data is all there
    doc = parse_yaml(alias_bomb(4), "ok.yaml")
    assert len(doc.data["a4"]) == 9 and doc.data["a4"][8][8][8][8] == ["lol"] * 9
    assert doc.locate("a4", 8, 8) == (3, 4)  # an alias locates at its anchor (&a2, line 3, col 4)


def test_nesting_budget():
    from msgraphlint.parse.yamlconfig import MAX_DEPTH, YamlLimitError, parse_yaml

    # the root mapping is level 1, the value of x (the outermost bracket) level 2: the
    # innermost of 99 brackets is level 100, the limit; of 100 brackets level 101
    assert parse_yaml(nested(MAX_DEPTH - 1)).data["x"] is not None
    with pytest.raises(YamlLimitError) as err:
        parse_yaml(nested(MAX_DEPTH))
    assert err.value.limit == "depth" and err.value.line == 3 and f"{MAX_DEPTH} levels" in str(err.value)


def test_deep_yaml_is_msg001_not_a_clean_file(tmp_path):
    # 3,000 levels made PyYAML's composer raise RecursionError, which was dropped in silence
    (tmp_path / "deep.yaml").write_text(nested(3000), encoding="utf-8")
    (tmp_path / "run.yaml").write_text(RUN_CONFIG, encoding="utf-8")
    got = lint([tmp_path])
    assert codes_at(got) == [("deep.yaml", 3, "MSG001"), ("run.yaml", 3, "MSG601")]
    assert "deeper than 100 levels" in got[0].message


def _child_env():
    env = dict(os.environ)
    # the child imports the msgraphlint this test imported (a worktree's, when proving a fix)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(msgraphlint.__file__)),
                                         env.get("PYTHONPATH", "")])
    return env


def _bounded(limit_bytes: int):
    def preexec():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return preexec


def test_alias_bomb_in_a_linted_folder_is_msg001_in_a_bounded_child(tmp_path):
    """478 bytes, 9 levels: 9^9 nodes. Before, the run took minutes and gigabytes, and
    under a memory limit printed "All checks passed!" (the MemoryError was swallowed).
    The child runs under a 2 GB address-space limit and a 90 s timeout."""
    (tmp_path / "bomb.yaml").write_text(alias_bomb(9), encoding="utf-8")
    (tmp_path / "m.py").write_text(PRINTING, encoding="utf-8")
    try:
        p = subprocess.run([sys.executable, "-m", "msgraphlint", "check", ".", "--no-cache",
                            "--output-format", "concise"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=90, env=_child_env(), preexec_fn=_bounded(2 * 2**30))
    except subprocess.TimeoutExpired:
        pytest.fail("the alias bomb ran past 90 s")
    assert "All checks passed" not in p.stdout
    assert p.returncode == 1, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    lines = p.stdout.splitlines()
    assert lines[0].startswith("bomb.yaml:6:") and "MSG001" in lines[0] and "100,000 nodes" in lines[0]
    assert lines[1].startswith("m.py:5:") and "MSG201" in lines[1]  # the other file is still linted


def test_memory_error_in_yaml_is_msg000_and_exit_2(tmp_path, monkeypatch):
    import msgraphlint.parse.yamlconfig as yc

    def exhausted(text, path="<yaml>"):
        raise MemoryError()

    (tmp_path / "run.yaml").write_text(RUN_CONFIG, encoding="utf-8")
    monkeypatch.setattr(yc, "load_document", exhausted)
    got = lint([tmp_path])
    assert codes_at(got) == [("run.yaml", 1, "MSG000")] and "MemoryError" in got[0].message
    r = run_cli("check", str(tmp_path), "--no-cache")
    assert r.exit_code == 2 and "All checks passed" not in r.output


# --- item 2: YAML that does not parse is MSG001 or named on stderr ------------------

def test_broken_run_config_is_msg001_other_broken_yaml_is_named_on_stderr(tmp_path):
    (tmp_path / "run.yaml").write_text("model:\n  model_config:\n    num_heads: [8\nparallel_config:\n"
                                       "  model_parallel: 3\n", encoding="utf-8")
    (tmp_path / "meta.yaml").write_text('{% set version = "1.0" %}\npackage:\n  name: x\n', encoding="utf-8")
    got = lint([tmp_path])
    assert codes_at(got) == [("run.yaml", 4, "MSG001")] and "YAML syntax error" in got[0].message
    r = run_cli("check", str(tmp_path), "--no-cache")
    assert r.exit_code == 1
    meta = os.path.join(str(tmp_path), "meta.yaml")
    assert f"{meta}: skipped: cannot be checked: line 1: YAML syntax error: found character '%'" in r.stderr
    r = run_cli("check", str(tmp_path / "meta.yaml"), "--no-cache", "-v")
    assert r.exit_code == 0 and "skipped" in r.stderr and "found character '%' that cannot start any token" in r.stderr


# --- item 2: folders that cannot be listed are named on stderr ---------------------

def test_unreadable_folder_is_named_on_stderr(tmp_path, monkeypatch):
    """Root reads a chmod 000 folder anyway: the listing fails the way it does for a user."""
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "hidden.py").write_text(PRINTING, encoding="utf-8")
    (tmp_path / "m.py").write_text(PRINTING, encoding="utf-8")
    real = os.scandir

    def scandir(path="."):
        if os.path.basename(os.fspath(path)) == "secret":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    secret = os.path.join(str(tmp_path), "secret")
    r = run_cli("check", str(tmp_path), "--no-cache", "--output-format", "concise")
    assert r.exit_code == 1 and "m.py:5:9: MSG201" in r.stdout and "hidden.py" not in r.stdout
    assert f"{secret}/: skipped: cannot read the directory: Permission denied" in r.stderr
    r = run_cli("check", str(tmp_path), "--no-cache", "-v")
    assert f"skipped {secret}/: cannot read the directory: Permission denied" in r.stderr


# --- item 3: configuration files have a size limit ----------------------------------

def test_huge_extend_target_is_refused_unread(tmp_path, monkeypatch):
    big = tmp_path / "big.toml"
    with open(big, "wb") as fh:
        fh.truncate(64 * 2**20)  # sparse: 64 MB of NUL bytes that take no disk
    (tmp_path / "pyproject.toml").write_text('[tool.msgraphlint]\nextend = "big.toml"\n', encoding="utf-8")
    (tmp_path / "m.py").write_text(PRINTING, encoding="utf-8")
    read = []
    real_open = open

    class Counting:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def fileno(self):
            return self.fh.fileno()

        def read(self, n=-1):
            data = self.fh.read(n)
            read.append(len(data))
            return data

    monkeypatch.setattr(config_mod, "open", lambda *a, **k: Counting(real_open(*a, **k)), raising=False)
    r = run_cli("check", str(tmp_path / "m.py"), "--no-cache")
    assert r.exit_code == 2
    assert f"{big}: the configuration file is 67,108,864 bytes, over the 10 MB limit" in r.stderr
    assert sum(read) <= 10 * 2**20  # the pyproject.toml, not the 64 MB


def test_config_file_whose_size_stat_does_not_tell(tmp_path, monkeypatch):
    """A file stat calls empty (/proc, a file still growing): at most limit + 1 bytes are read."""
    monkeypatch.setattr(config_mod, "MAX_CONFIG_BYTES", 40, raising=False)
    p = tmp_path / "msgraphlint.toml"
    p.write_text('select = ["MSG2"]\n' + "# padding padding padding\n" * 3, encoding="utf-8")
    real_fstat = os.fstat

    class Empty:
        def __init__(self, st):
            self.st = st

        def __getattr__(self, name):
            return 0 if name == "st_size" else getattr(self.st, name)

    monkeypatch.setattr(os, "fstat", lambda fd: Empty(real_fstat(fd)))
    with pytest.raises(config_mod.ConfigError) as err:
        config_mod.read_toml(str(p))
    monkeypatch.undo()
    assert str(err.value) == (f"{p}: the configuration file is more than 40 bytes, over the 40 bytes limit; "
                              "is it the file you meant?")


def test_oversized_gitignore_is_named_not_applied(tmp_path, monkeypatch):
    monkeypatch.setattr(config_mod, "MAX_CONFIG_BYTES", 100, raising=False)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("gen/\n" + "#" * 200 + "\n", encoding="utf-8")
    (tmp_path / "m.py").write_text(PRINTING, encoding="utf-8")
    result = run_paths([str(tmp_path)])
    gi = os.path.join(str(tmp_path), ".gitignore")
    assert any(w.startswith(f"{gi}: not applied: over the") for w in result.warnings), result.warnings


# --- item 5: per-file-ignores compiled once ------------------------------------------

def test_per_file_ignores_do_not_try_every_glob_on_every_file(tmp_path, monkeypatch):
    """2,000 globs over 10 files: the old runner called fnmatch 2 x 2,000 times per file."""
    (tmp_path / "pkg").mkdir()
    for i in range(10):
        (tmp_path / "pkg" / f"m{i}.py").write_text(PRINTING, encoding="utf-8")
    lines = ["[tool.msgraphlint.per-file-ignores]"] + [f'"other{i}/*.py" = ["MSG201"]' for i in range(2000)]
    lines.append('"pkg/m0.py" = ["MSG201"]')
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    tried = []
    real_fnmatch, real_case, real_translate = fnmatch.fnmatch, fnmatch.fnmatchcase, fnmatch.translate

    def count(real):
        def wrapped(*args):
            if str(args[-1]).startswith("other"):
                tried.append(args[-1])
            return real(*args)
        return wrapped

    monkeypatch.setattr(fnmatch, "fnmatch", count(real_fnmatch))
    monkeypatch.setattr(fnmatch, "fnmatchcase", count(real_case))
    monkeypatch.setattr(fnmatch, "translate", count(real_translate))
    got = codes_at(lint([tmp_path / "pkg"]))
    assert got == [(f"m{i}.py", 5, "MSG201") for i in range(1, 10)]  # m0's is ignored
    assert len(tried) == 0, f"{len(tried)} glob matches tried"


def _old_codes(path, mapping, root):
    from msgraphlint.run.discovery import matches_any
    return list(dict.fromkeys(c for g, codes in mapping.items() if matches_any(path, [g], root) for c in codes))


_PART = st.text(alphabet="ab.*?[]!/", min_size=0, max_size=6)


@settings(max_examples=300, deadline=None)
@given(globs=st.lists(_PART, min_size=1, max_size=8, unique=True),
       rels=st.lists(st.text(alphabet="ab.", min_size=1, max_size=3), min_size=1, max_size=3),
       outside=st.booleans())
def test_compiled_globs_match_what_matches_any_matches(tmp_path_factory, globs, rels, outside):
    from msgraphlint.run.discovery import GlobCodes

    base = str(tmp_path_factory.getbasetemp())
    root = os.path.join(base, "root")
    path = os.path.join(base if outside else root, *rels)
    mapping = {g: [f"MSG{100 + i}"] for i, g in enumerate(globs)}
    assert GlobCodes(mapping, root).codes_for(path) == _old_codes(path, mapping, root)


def test_compiled_globs_examples():
    from msgraphlint.run.discovery import GlobCodes

    root = "/r"
    mapping = {"tests/*": ["MSG201"], "conftest.py": ["MSG301"], "gen/": ["MSG401"], "*_pb2.py": ["MSG501"],
               "a/b": ["MSG601"], "[!x]*.pyi": ["MSG102"]}
    g = GlobCodes(mapping, root)
    assert g.codes_for("/r/tests/test_a.py") == ["MSG201"]
    assert g.codes_for("/r/tests/sub/conftest.py") == ["MSG201", "MSG301"]  # * crosses "/"; the name matches
    assert g.codes_for("/r/gen/x/y.py") == ["MSG401"]                       # a parent directory
    assert g.codes_for("/r/src/msg_pb2.py") == ["MSG501"]                   # by the name
    assert g.codes_for("/r/a/b/c.py") == ["MSG601"] and g.codes_for("/r/a/bc.py") == []
    assert g.codes_for("/r/m.pyi") == ["MSG102"] and g.codes_for("/r/x.pyi") == []

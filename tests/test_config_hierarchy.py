"""Hierarchical configuration as ruff resolves it: the closest configuration file above
each file, `--config FILE` for all, `--config KEY=VALUE`, `extend`; the CLI and the
language server agree; every configuration error exits 2 naming the key and the file."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli
from msgraphlint.config import ConfigError, KNOWN_KEYS, resolve_config
from msgraphlint.run.runner import UsageError, run_paths

from helpers import codes_at, lint, write_tree

# MSG201 (print), MSG204 (y += 1), MSG520 (functional dropout): three codes to select between
NET = """
import mindspore.nn as nn
import mindspore.ops as ops

class Net(nn.Cell):
    def construct(self, x):
        y = x * 2
        y += 1
        print(y)
        return ops.dropout(y, p=0.1)
"""


def nested(tmp_path):
    """root pyproject ignores MSG201; sub/msgraphlint.toml extends it and also ignores
    MSG520; other/.msgraphlint.toml selects only MSG204; plain/ has none of its own."""
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "x"\n[tool.msgraphlint]\nignore = ["MSG201"]\n',
        "a.py": NET, "sub/b.py": NET, "sub/deep/c.py": NET, "other/d.py": NET, "plain/e.py": NET,
        "sub/msgraphlint.toml": 'extend = "../pyproject.toml"\nextend-ignore = ["MSG520"]\n',
        "other/.msgraphlint.toml": 'select = ["MSG204"]\n',
    })
    return tmp_path


EXPECTED = {
    "a.py": ["MSG204", "MSG520"],
    "b.py": ["MSG204"],
    "c.py": ["MSG204"],
    "d.py": ["MSG204"],
    "e.py": ["MSG204", "MSG520"],
}


def by_file(findings):
    out = {}
    for f in findings:
        out.setdefault(os.path.basename(f.path), []).append(f.code)
    return {k: sorted(v) for k, v in out.items()}


def test_each_file_uses_its_closest_config(tmp_path):
    nested(tmp_path)
    assert by_file(lint([tmp_path])) == EXPECTED


def test_argument_order_does_not_change_results(tmp_path):
    nested(tmp_path)
    one = by_file(lint([tmp_path / "sub" / "b.py", tmp_path / "a.py", tmp_path / "other"]))
    two = by_file(lint([tmp_path / "other", tmp_path / "a.py", tmp_path / "sub" / "b.py"]))
    assert one == two == {k: EXPECTED[k] for k in ("a.py", "b.py", "d.py")}


def test_config_file_overrides_for_all_files(tmp_path):
    nested(tmp_path)
    write_tree(tmp_path, {"elsewhere/conf.toml": 'select = ["MSG201"]\n'})
    got = by_file(lint([tmp_path / "a.py", tmp_path / "sub", tmp_path / "other"],
                       config_file=str(tmp_path / "elsewhere" / "conf.toml")))
    assert set(got) == {"a.py", "b.py", "c.py", "d.py"} and all(v == ["MSG201"] for v in got.values())


def test_config_key_value_overrides_one_setting_everywhere(tmp_path, monkeypatch):
    nested(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["check", "--output-format", "json", "--config", 'ignore = ["MSG204"]', "."])
    found = {}
    for f in json.loads(r.stdout)["findings"]:
        found.setdefault(os.path.basename(f["path"]), set()).add(f["code"])
    # `ignore` replaced in each file's config; `extend-ignore` of sub/ still applies; other/ selects only MSG204
    assert found == {"a.py": {"MSG201", "MSG520"}, "b.py": {"MSG201"}, "c.py": {"MSG201"},
                     "e.py": {"MSG201", "MSG520"}}


def test_msgraphlint_toml_is_found_and_wins_over_pyproject_in_the_same_directory(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.msgraphlint]\nignore = ["MSG204"]\n',
                          "msgraphlint.toml": 'ignore = ["MSG520"]\n', "m.py": NET})
    assert sorted(c for _, _, c in codes_at(lint([tmp_path / "m.py"]))) == ["MSG201", "MSG204"]
    assert resolve_config(str(tmp_path / "m.py")).path == str(tmp_path / "msgraphlint.toml")


def test_pyproject_without_our_table_is_passed_over(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": '[tool.msgraphlint]\nignore = ["MSG201"]\n',
                          "pkg/pyproject.toml": '[project]\nname = "pkg"\n', "pkg/m.py": NET})
    assert resolve_config(str(tmp_path / "pkg" / "m.py")).path == str(tmp_path / "pyproject.toml")


def test_extend_chain_and_paths_relative_to_the_file_that_sets_them(tmp_path):
    write_tree(tmp_path, {
        "base.toml": 'ignore = ["MSG201"]\ncache-dir = "cache"\nextend-exclude = ["gen"]\n'
                     '[rules.MSG608]\ndevice_count = 8\n',
        "proj/pyproject.toml": '[tool.msgraphlint]\nextend = "../base.toml"\nextend-exclude = ["out"]\n'
                               '[tool.msgraphlint.rules.MSG608]\ndevice_count_comments = false\n',
        "proj/m.py": NET,
    })
    cfg = resolve_config(str(tmp_path / "proj" / "m.py"))
    assert cfg.ignore == ["MSG201"]
    assert cfg.extends == [str(tmp_path / "base.toml")]
    assert cfg.cache_dir == str(tmp_path / "cache")
    assert cfg.extend_exclude == ["gen", "out"]
    assert cfg.rule_options == {"MSG608": {"device_count": 8, "device_count_comments": False}}


def test_extend_cycle_and_missing_target_are_errors(tmp_path):
    write_tree(tmp_path, {"a.toml": 'extend = "b.toml"\n', "b.toml": 'extend = "a.toml"\n',
                          "c.toml": 'extend = "nope.toml"\n'})
    with pytest.raises(ConfigError, match="cycle"):
        resolve_config(".", config_file=str(tmp_path / "a.toml"))
    with pytest.raises(ConfigError, match="c.toml.*does not exist.*nope.toml"):
        resolve_config(".", config_file=str(tmp_path / "c.toml"))


def test_cli_and_language_server_resolve_config_identically(tmp_path):
    pytest.importorskip("pygls")
    from msgraphlint.lsp import MsGraphLintServer

    nested(tmp_path)
    server = MsGraphLintServer()
    result = run_paths([str(tmp_path)])
    assert len(result.files) == 5
    for fr in result.files:
        cli_settings = result.settings_for(fr.path)
        lsp_settings = server.settings_for(os.path.abspath(fr.path))
        assert lsp_settings.config.describe() == cli_settings.config.describe(), fr.path
        assert sorted(lsp_settings.rules) == sorted(cli_settings.rules), fr.path
    # and a buffer not yet saved resolves like a file at its path would
    unsaved = str(tmp_path / "sub" / "deep" / "new.py")
    assert server.settings_for(unsaved).config.path == str(tmp_path / "sub" / "msgraphlint.toml")


def test_show_settings_names_the_file_and_the_resolved_values(tmp_path, monkeypatch):
    nested(tmp_path)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["check", "--show-settings", "sub/deep/c.py"])
    assert r.exit_code == 0
    assert f"Settings path: {tmp_path / 'sub' / 'msgraphlint.toml'}" in r.stdout
    assert f"Extends: {tmp_path / 'pyproject.toml'}" in r.stdout
    assert 'ignore = ["MSG201", "MSG520"]' in r.stdout
    r = CliRunner().invoke(cli, ["check", "--show-settings", "--output-format", "json", "plain/e.py"])
    data = json.loads(r.stdout)
    assert data["config-file"] == str(tmp_path / "pyproject.toml") and data["ignore"] == ["MSG201"]
    assert "MSG201" not in data["active-rules"] and "MSG204" in data["active-rules"]


def test_nested_config_excludes_apply_below_it(tmp_path):
    nested(tmp_path)
    write_tree(tmp_path, {"sub/msgraphlint.toml": 'extend-exclude = ["deep"]\n'})
    assert "c.py" not in by_file(lint([tmp_path]))
    assert "b.py" in by_file(lint([tmp_path]))


# ------------------------------------------------------------------ configuration errors
BAD_CONFIGS = [
    ("pyproject.toml", b'[tool.msgraphlint]\nselect = ["MSG2"\n', "invalid TOML"),
    ("pyproject.toml", b'[tool]\nmsgraphlint = 5\n', "`tool.msgraphlint` must be a table, not 5"),
    ("pyproject.toml", b'tool = 5\n', "`tool` must be a table, not 5"),
    ("pyproject.toml", b'[tool.msgraphlint]\nignore = ["MSG201"]  # \xff\xfe caf\xe9\n', "not UTF-8"),
    ("pyproject.toml", b'[tool.msgraphlint]\nignore = [""]\n', "`ignore` holds an empty rule selector"),
    ("pyproject.toml", b'[tool.msgraphlint]\nselect = [" "]\n', "`select` holds an empty rule selector"),
    ("pyproject.toml", b'[tool.msgraphlint.rules.MSG608]\ndevice_count = "eight"\n',
     "`rules.MSG608.device_count` must be an integer, not 'eight'"),
    ("pyproject.toml", b'[tool.msgraphlint.rules.MSG608]\ndevice_count_comments = 1\n',
     "`rules.MSG608.device_count_comments` must be true or false, not 1"),
    ("pyproject.toml", b'[tool.msgraphlint.rules.MSG304]\ninclude_defaults = "yes"\n',
     "`rules.MSG304.include_defaults` must be true or false"),
    ("msgraphlint.toml", b'select = 3\n', "`select` must be a list of strings, not 3"),
    ("msgraphlint.toml", b'[rules]\nMSG608 = 3\n', "`rules.MSG608` must be a table of options"),
]


@pytest.mark.parametrize("name,content,needle", BAD_CONFIGS)
def test_config_errors_exit_2_naming_key_and_file(tmp_path, monkeypatch, name, content, needle):
    write_tree(tmp_path, {"pkg/m.py": NET})
    (tmp_path / name).write_bytes(content)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["check", "pkg/m.py"])
    assert r.exit_code == 2, r.output
    assert needle in r.stderr
    assert str(tmp_path / name) in r.stderr
    assert "internal error" not in r.stderr


def test_bad_config_key_value_names_the_option(tmp_path, monkeypatch):
    write_tree(tmp_path, {"m.py": NET})
    monkeypatch.chdir(tmp_path)
    for value, needle in (("selct=['MSG2']", "unknown key `selct`"), ("select=[", "not a TOML"),
                          ("ignore=['']", "empty rule selector")):
        r = CliRunner().invoke(cli, ["check", "--config", value, "m.py"])
        assert r.exit_code == 2 and "--config" in r.stderr and needle in r.stderr, (value, r.stderr)


def test_force_exclude_applies_the_default_excludes_without_a_config(tmp_path, monkeypatch):
    write_tree(tmp_path, {"build/gen.py": NET, ".venv/lib/x.py": NET, "src/m.py": NET})
    monkeypatch.chdir(tmp_path)
    assert resolve_config("build/gen.py").path is None
    assert lint(["build/gen.py"])  # named explicitly: linted, as ruff does
    assert lint(["build/gen.py", ".venv/lib/x.py"], force_exclude=True) == []
    assert codes_at(lint(["build/gen.py", "src/m.py"], force_exclude=True)) == \
        [("m.py", 7, "MSG204"), ("m.py", 8, "MSG201"), ("m.py", 9, "MSG520")]


def test_settings_schema_lists_every_key_and_documented_examples_validate():
    import re
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("msgraphlint.data").joinpath("settings.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert set(schema["properties"]) == set(KNOWN_KEYS)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    documented = set()
    examples = 0
    for doc in ["README.md"] + [os.path.join("docs", n) for n in os.listdir(os.path.join(root, "docs"))
                                if n.endswith(".md")]:
        with open(os.path.join(root, doc), encoding="utf-8") as fh:
            text = fh.read()
        for block in re.findall(r"```toml\n(.*?)```", text, re.S):
            data = tomllib.loads(block)
            # [tool.msgraphlint] tables, and msgraphlint.toml examples (first line `# msgraphlint.toml`)
            own_file = block.startswith(("# msgraphlint.toml", "# .msgraphlint.toml"))
            section = data if own_file else data.get("tool", {}).get("msgraphlint")
            if section is None:
                continue
            examples += 1
            documented |= set(section)
            errors = sorted(e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(section))
            assert errors == [], (doc, errors)
    assert examples >= 2
    assert documented <= set(schema["properties"]), documented - set(schema["properties"])
    assert {"select", "ignore", "extend", "per-file-ignores", "rules"} <= documented


def test_fix_uses_each_files_own_config(tmp_path, monkeypatch):
    nested(tmp_path)
    write_tree(tmp_path, {"other/.msgraphlint.toml": 'ignore = ["MSG204"]\n'})
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["check", "--fix", "--output-format", "concise", "a.py", "other/d.py"])
    assert r.exit_code == 1, r.output
    assert "y = y + 1" in (tmp_path / "a.py").read_text()        # MSG204 selected there: fixed
    assert "y += 1" in (tmp_path / "other" / "d.py").read_text()  # ignored by other/'s config: untouched
    assert "other/d.py:8:9: MSG201" in r.stdout                   # and other/ still reports with its own config


HELPER = """
def helper(x):
    y = x * 2
    y += 1
    print(y)
    return y
"""
CALLER = """
import mindspore.nn as nn
from sub.helpers import helper


class Net(nn.Cell):
    def construct(self, x):
        return helper(x)
"""


def monorepo(tmp_path, sub_config='[tool.msgraphlint]\nselect = ["MSG201"]\n'):
    """The root package `pkg` calls a helper of the sibling package `sub`, which has its own
    pyproject.toml (an installable library of the monorepo) selecting only MSG201."""
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "root"\n[tool.msgraphlint]\n',
        "pkg/__init__.py": "", "pkg/model.py": CALLER, "pkg/more.py": NET,
        "sub/pyproject.toml": '[project]\nname = "sub"\n' + sub_config,
        "sub/__init__.py": "", "sub/helpers.py": HELPER, "sub/other.py": "x = 1\n",
    })
    return tmp_path


@pytest.mark.parametrize("jobs", [1, 2])
def test_one_index_across_configs_with_each_files_own_selection(tmp_path, jobs):
    """The helper in sub/ is reached from Net.construct in pkg/: it is graph code (one project
    index over both configurations) and its findings follow sub's selection (MSG201 only);
    pkg/ keeps the default selection."""
    root = monorepo(tmp_path)
    got = codes_at(lint([root], jobs=jobs))
    assert ("helpers.py", 4, "MSG201") in got
    assert not [g for g in got if g[0] == "helpers.py" and g[2] != "MSG201"], got
    assert ("more.py", 7, "MSG204") in got  # the root's default selection in pkg/
    # the same tree with sub/ using the defaults: the helper's MSG204 appears, so the
    # selection above was sub's own and not an accident of the analysis
    other = monorepo(tmp_path / "b", sub_config="[tool.msgraphlint]\n")
    got_b = codes_at(lint([other], jobs=jobs))
    assert ("helpers.py", 3, "MSG204") in got_b and ("helpers.py", 4, "MSG201") in got_b
    # argument order and naming the files one by one change nothing
    files = [root / "sub" / "helpers.py", root / "pkg" / "model.py", root / "pkg" / "more.py",
             root / "sub" / "other.py"]
    assert codes_at(lint(files, jobs=jobs)) == got
    assert codes_at(lint(list(reversed(files)), jobs=jobs)) == got


@pytest.mark.parametrize("jobs", [1, 2])
def test_cell_bases_apply_to_the_classes_of_each_files_own_config(tmp_path, jobs):
    """`cell-bases` of sub/'s configuration makes sub's `class L(Layer)` a Cell; the same
    class in pkg/, whose configuration does not name that base, is not graph code."""
    layer = "from thirdparty import Layer\n\n\nclass L(Layer):\n    def construct(self, x):\n        print(x)\n        return x\n"
    root = monorepo(tmp_path, sub_config='[tool.msgraphlint]\ncell-bases = ["thirdparty.Layer"]\n')
    write_tree(root, {"sub/layer.py": layer, "pkg/layer.py": layer})
    got = codes_at(lint([root], jobs=jobs))
    assert ("layer.py", 6, "MSG201") in got
    assert [g for g in got if g[0] == "layer.py"] == [("layer.py", 6, "MSG201")]  # sub's only


def test_result_cache_keys_each_file_on_its_own_settings(tmp_path):
    """A warm run after sub/'s configuration changed re-checks sub's files with the new
    selection (a key holding the root's settings would replay the old findings)."""
    root = monorepo(tmp_path / "tree")
    kw = dict(cache=True, cache_dir=str(tmp_path / "cache"))
    cold = codes_at(lint([root], **kw))
    assert codes_at(lint([root], **kw)) == cold
    assert ("helpers.py", 3, "MSG204") not in cold
    (root / "sub" / "pyproject.toml").write_text('[project]\nname = "sub"\n[tool.msgraphlint]\n'
                                                 'select = ["MSG201", "MSG204"]\n')
    warm = codes_at(lint([root], **kw))
    assert ("helpers.py", 3, "MSG204") in warm and ("helpers.py", 4, "MSG201") in warm

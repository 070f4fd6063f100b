"""Rule selection on the command line as ruff has it (issue 26 item 2): the command line is a
layer over the configuration, so ``--select``/``--extend-select`` re-enable a code the
configuration ignores; an empty ``--select`` is a usage error; an unknown code on the
command line is blamed on the option that named it, not on pyproject.toml."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli

from helpers import write_tree

NET = """
import mindspore.nn as nn


class Net(nn.Cell):
    def construct(self, x):
        print(x)
        y = x * 2
        y += 1
        return y
"""
PYPROJECT = """
[tool.msgraphlint]
ignore = ["MSG201"]
"""


def run(*args):
    return CliRunner().invoke(cli, ["check", "--no-cache", *args], catch_exceptions=False)


def codes(result):
    return sorted({f["code"] for f in json.loads(result.output)["findings"]})


@pytest.fixture
def proj(tmp_path, monkeypatch):
    write_tree(tmp_path, {"net.py": NET, "pyproject.toml": PYPROJECT})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_config_ignore_applies_without_command_line_selection(proj):
    assert codes(run("--format", "json", "net.py")) == ["MSG204"]


@pytest.mark.parametrize("option", ["--select", "--extend-select"])
def test_command_line_selection_re_enables_a_code_the_config_ignores(proj, option):
    r = run("--format", "json", option, "MSG201", "net.py")
    assert r.exit_code == 1, r.output
    assert "MSG201" in codes(r)


def test_select_replaces_extend_select_adds(proj):
    assert codes(run("--format", "json", "--select", "MSG201", "net.py")) == ["MSG201"]
    assert codes(run("--format", "json", "--extend-select", "MSG201", "net.py")) == ["MSG201", "MSG204"]


def test_command_line_ignore_still_removes_and_the_more_specific_selector_wins(proj):
    assert codes(run("--format", "json", "--extend-select", "MSG201", "--ignore", "MSG204", "net.py")) == ["MSG201"]
    # a tie at the same specificity: ignored, as in the configuration
    assert codes(run("--format", "json", "--extend-select", "MSG201", "--ignore", "MSG201", "net.py")) == ["MSG204"]
    # the more specific code beats the prefix
    assert codes(run("--format", "json", "--extend-select", "MSG201", "--ignore", "MSG2", "net.py")) == ["MSG201"]


@pytest.mark.parametrize("value", ["", " , "])
def test_an_empty_select_is_a_usage_error(proj, value):
    r = run("--select", value, "net.py")
    assert r.exit_code == 2, r.output
    assert "--select" in r.output and "empty" in r.output


@pytest.mark.parametrize("option", ["--select", "--extend-select", "--ignore"])
def test_an_unknown_code_on_the_command_line_is_blamed_on_the_option(proj, option):
    r = run(option, "MSG999", "net.py")
    assert r.exit_code == 2, r.output
    assert f"{option}: " in r.output and "MSG999" in r.output
    assert "pyproject.toml" not in r.output


def test_an_unknown_code_in_the_config_is_still_blamed_on_the_config(proj):
    (proj / "pyproject.toml").write_text('[tool.msgraphlint]\nignore = ["MSG998"]\n')
    r = run("net.py")
    assert r.exit_code == 2 and "pyproject.toml" in r.output and "MSG998" in r.output


@pytest.mark.parametrize("override,needle", [
    ('ignore=["MSG999"]', "`ignore` names unknown rule code(s): MSG999"),
    ('extend-ignore=["MSG999"]', "`ignore` names unknown rule code(s): MSG999"),
    ('per-file-ignores={"a.py"=["MSG999"]}', "`per-file-ignores` entry 'a.py' names unknown rule code(s): MSG999"),
    ('rules.MSG608.device_count="eight"', "`rules.MSG608.device_count` must be an integer"),
    ('rules.MSG608.nope=1', "`rules.MSG608.nope` is not an option of MSG608"),
    ('rules.MSG9999.x=1', "`rules.MSG9999` is not a known rule code or name"),
])
def test_a_config_override_is_blamed_on_the_override_not_on_pyproject(proj, override, needle):
    r = run("--config", override, "net.py")
    assert r.exit_code == 2, r.output
    assert r.output.startswith("msgraphlint: error: --config: ") and needle in r.output
    assert "pyproject.toml" not in r.output


def test_the_files_own_mistake_stays_the_files_with_an_unrelated_override(proj):
    (proj / "pyproject.toml").write_text('[tool.msgraphlint]\nignore = ["MSG997"]\n')
    r = run("--config", 'select=["MSG2"]', "net.py")
    assert r.exit_code == 2 and "pyproject.toml" in r.output and "MSG997" in r.output


def test_show_files_and_findings_use_one_path_style(proj):
    """One path style (issue 26 item 2): --show-files listed `./net.py` and `./configs/run.yaml`
    where findings say `net.py` and `configs/run.yaml`."""
    (proj / "configs").mkdir()
    (proj / "configs" / "run.yaml").write_text(
        "parallel_config:\n  data_parallel: 2\n  model_parallel: 4\n  pipeline_stage: 2\nuse_parallel: True\n")
    shown = run("--show-files", ".").output.split()
    found = {f["path"] for f in json.loads(run("--format", "json", ".").output)["findings"]}
    assert sorted(shown) == ["configs/run.yaml", "net.py"]
    assert found == {"configs/run.yaml", "net.py"}, found

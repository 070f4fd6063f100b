"""The spellings a ruff user types (issue 26 item 2): `server` (ruff's LSP command) is
`lsp`, `rule CODE` is `explain CODE`, `version` and `-V` are `--version`; shell completion
(documented in the README) answers through click's `_MSGRAPHLINT_COMPLETE`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from msgraphlint import __version__
from msgraphlint.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("spelling", [["--version"], ["-V"], ["version"]])
def test_version_spellings(spelling):
    r = run(*spelling)
    assert r.exit_code == 0
    assert r.output == f"msgraphlint, version {__version__}\n"


def test_rule_is_explain():
    a, b = run("rule", "MSG201"), run("explain", "MSG201")
    assert a.exit_code == 0 and a.output == b.output and "print-in-graph" in a.output
    assert run("rule", "print-in-graph").output == b.output


def test_rule_unknown_code_is_a_usage_error():
    r = CliRunner().invoke(cli, ["rule", "MSG999"])
    assert r.exit_code == 2 and "MSG999" in r.output


def test_server_runs_the_language_server(monkeypatch):
    import msgraphlint.lsp as lsp_pkg
    calls = []
    monkeypatch.setattr(lsp_pkg, "main", lambda: calls.append("lsp"))
    assert run("server").exit_code == 0
    assert run("lsp").exit_code == 0
    assert calls == ["lsp", "lsp"]


def test_bash_completion_offers_the_aliases_and_the_formats():
    env = dict(os.environ, _MSGRAPHLINT_COMPLETE="bash_complete", COMP_WORDS="msgraphlint ser", COMP_CWORD="1")
    code = "from msgraphlint.cli import main; main()"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60).stdout
    assert "plain,server" in out.splitlines()
    env.update(COMP_WORDS="msgraphlint check --output-format ju", COMP_CWORD="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60).stdout
    assert out.splitlines() == ["plain,junit"]


def test_readme_documents_completion():
    readme = open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "README.md"), encoding="utf-8").read()
    assert '_MSGRAPHLINT_COMPLETE=bash_source msgraphlint' in readme


def test_without_pygls_the_hint_is_installable(monkeypatch):
    """`pip install 'msgraphlint[lsp]'` cannot work (msgraphlint is not on the package index):
    the hint names pygls itself, and the extra only for a checkout."""
    import builtins
    real_import = builtins.__import__

    def no_lsp(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "lsp" and level == 1 or name.startswith("msgraphlint.lsp"):
            raise ImportError("No module named 'pygls'")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", no_lsp)
    for command in ("lsp", "server"):
        r = CliRunner().invoke(cli, [command])
        assert r.exit_code == 2, r.output
        assert "msgraphlint[lsp]" not in r.output
        assert "pip install 'pygls>=1.3,<2' lsprotocol" in r.output and "pip install '.[lsp]'" in r.output

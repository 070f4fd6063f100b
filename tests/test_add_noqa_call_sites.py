"""`--add-noqa` with call-site findings (issue 26 item 2): a call-site finding (MSG004)
repeats a finding of another file. When both files are linted, the original gets the
comment and the call site none (a comment there would be stale once the original is
silenced: MSG002, and `check` exited 1 after `--add-noqa`); when only the caller is
linted, the call site gets its `# noqa: MSG004`. Either way `check` is clean after."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from msgraphlint.cli import cli

from helpers import write_tree

HELPERS = "def show(x):\n    print(x)\n    return x\n"
NET = ("import mindspore.nn as nn\nfrom pkg.helpers import show\n\n\nclass Net(nn.Cell):\n"
       "    def construct(self, x):\n        return show(x)\n")


def _check(*args):
    return CliRunner().invoke(cli, ["check", "--no-cache", *args], catch_exceptions=False)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/net.py": NET})
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_both_files_linted_the_original_gets_the_comment(proj):
    before = _check("--format", "concise", ".")
    assert "MSG004" in before.output and "MSG201" in before.output
    assert _check("--add-noqa", ".").exit_code == 0
    assert (proj / "pkg/helpers.py").read_text() == HELPERS.replace("print(x)", "print(x)  # noqa: MSG201")
    assert (proj / "pkg/net.py").read_text() == NET
    after = _check("--format", "concise", ".")
    assert after.exit_code == 0, after.output


def test_only_the_caller_linted_the_call_site_gets_the_comment(proj):
    assert _check("--add-noqa", "pkg/net.py").exit_code == 0
    assert (proj / "pkg/net.py").read_text().endswith("return show(x)  # noqa: MSG004\n")
    assert (proj / "pkg/helpers.py").read_text() == HELPERS
    assert _check("pkg/net.py").exit_code == 0

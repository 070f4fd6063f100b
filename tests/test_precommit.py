"""The pre-commit hook, run for real with ``pre-commit try-repo`` against this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]

pytestmark = pytest.mark.slow


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    home = tmp_path_factory.mktemp("pre-commit-home")
    return {**os.environ, "PRE_COMMIT_HOME": str(home)}


def _target_repo(tmp_path, files):
    _git(tmp_path, "init", "-q")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    _git(tmp_path, "add", "-A")
    return tmp_path


def _try_repo(repo, env, *extra):
    return subprocess.run(PRE_COMMIT + ["try-repo", ROOT, "msgraphlint", "--verbose", *extra],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=600)


def test_hook_reports_findings_and_fails(tmp_path, hook_env):
    repo = _target_repo(tmp_path, {"net.py": "import mindspore.nn as nn\nclass N(nn.Cell):\n"
                                             "    def construct(self, x):\n        print(x)\n        return x\n"})
    proc = _try_repo(repo, hook_env, "--all-files")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "net.py:4:9: MSG201" in proc.stdout


def test_hook_passes_on_clean_code_and_with_no_python_files(tmp_path, hook_env):
    repo = _target_repo(tmp_path, {"net.py": "import mindspore.nn as nn\nclass N(nn.Cell):\n"
                                             "    def construct(self, x):\n        return x\n",
                                   "README.md": "hello\n"})
    proc = _try_repo(repo, hook_env, "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # no staged Python/YAML file: the hook is skipped, not run on "." and not failed
    proc = _try_repo(repo, hook_env, "--files", "README.md")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no files to check" in proc.stdout.lower() or "skipped" in proc.stdout.lower()

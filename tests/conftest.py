"""Shared test helpers.

``require_mindspore``: tests that compile with MindSpore are marked
``@pytest.mark.mindspore``; this hook skips them when MindSpore is not importable by the
compile child's interpreter, EXCEPT under ``CI=true``, where a missing MindSpore fails
them (CI must run the cross-check). The check runs in a subprocess, so the test process
itself never imports ``mindspore``. The ``require_mindspore`` fixture does the same for
tests that need it without the marker.

``@pytest.mark.neovim`` (the headless editor test) works the same way: skipped where
``nvim`` is missing, failed under ``CI=true`` (``.ci/run`` installs Neovim).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

import pytest


@functools.lru_cache(maxsize=1)
def _mindspore_importable() -> bool:
    python = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable
    try:
        proc = subprocess.run([python, "-c", "import mindspore"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def _check_mindspore() -> None:
    if os.environ.get("MSGRAPHLINT_TEST_TIER") == "static":
        # .ci/run: the static suite on the other Python versions; the MindSpore tier runs on 3.11
        pytest.skip("static tier (MSGRAPHLINT_TEST_TIER=static): MindSpore tests run in the 3.11 tier")
    if _mindspore_importable():
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("MindSpore is not importable, and CI=true: the cross-check tests must run in CI")
    pytest.skip("MindSpore is not installed (pip install \".[verify]\" from the checkout)")


@pytest.fixture
def require_mindspore():
    _check_mindspore()


@pytest.fixture(autouse=True, scope="session")
def _isolated_result_cache(tmp_path_factory):
    """CLI runs use the result cache: keep it out of the user's ~/.cache during tests."""
    old = os.environ.get("MSGRAPHLINT_CACHE_DIR")
    os.environ["MSGRAPHLINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("msgraphlint-cache"))
    yield
    if old is None:
        os.environ.pop("MSGRAPHLINT_CACHE_DIR", None)
    else:
        os.environ["MSGRAPHLINT_CACHE_DIR"] = old


def _check_neovim() -> None:
    if shutil.which("nvim"):
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("Neovim (nvim) is not installed, and CI=true: the editor test must run in CI "
                    "(.ci/run installs it with apt-get)")
    pytest.skip("Neovim (nvim) is not installed (apt-get install -y neovim)")


def pytest_runtest_setup(item):
    if item.get_closest_marker("mindspore") is not None:
        _check_mindspore()
    if item.get_closest_marker("neovim") is not None:
        _check_neovim()

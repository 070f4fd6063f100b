"""``check --upgrade-to VERSION``: only what is new relative to the current target, naming
both releases, in every output format (issue 23, item 4).

Facts measured on the wheels (one venv per release, see tests/test_catalog_versions.py):
``mint.vdot`` exists in 2.10.0 only (2.7.0: ``AttributeError: module 'mindspore.mint' has
no attribute 'vdot'``); ``nn.TensorArray`` in 2.7.0 only (2.10.0: ``AttributeError``);
``ops.batch_dot`` is ``@deprecated`` since 2.8.0 from 2.8.0 on; ``ops.tensor_scatter_mul``
carries the decorator (since 2.9.0) in 2.10.0 only; ``ops.transpose(x, input_perm=...)``
works on 2.7.0 and raises ``TypeError ... unexpected keyword argument 'input_perm'`` on
2.10.0, ``dims=`` the other way round; ``set_context(grad_for_scalar=True)`` warns on 2.9.0
and raises ``ValueError`` on 2.10.0.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest


from helpers import run_cli, write_tree

from release_facts import BATCH_DOT, CODE, SCATTER_MUL, TENSOR_ARRAY, VDOT  # noqa: F401
from release_facts import pinned_project as _project


@pytest.mark.parametrize("fmt", ["json", "concise", "text", "github", "sarif"])
def test_upgrade_view_from_the_2_7_pin_to_2_10(tmp_path, fmt):
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.7.0\n"})
    r = run_cli("check", "--no-cache", "--output-format", fmt, "--upgrade-to", "2.10", str(root))
    assert r.exit_code == 1, r.output
    out = r.stdout
    if fmt == "json":
        items = json.loads(out)["findings"]
        got = sorted((f["code"], f["line"]) for f in items)
        assert got == [("MSG513", BATCH_DOT), ("MSG513", SCATTER_MUL), ("MSG514", TENSOR_ARRAY)]
        messages = [f["message"] for f in items]
    elif fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        assert sorted(x["ruleId"] for x in results) == ["MSG513", "MSG513", "MSG514"]
        messages = [x["message"]["text"] for x in results]
    else:
        assert "TensorArray" in out and "batch_dot" in out and "tensor_scatter_mul" in out
        assert "vdot" not in out
        messages = [line for line in out.splitlines() if "MSG51" in line and "new when moving" in line]
        assert len(messages) == 3, out
    for m in messages:  # each names both releases
        assert "2.7.0" in m and "2.10" in m, m


def test_upgrade_view_reports_nothing_for_the_same_release(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.7.0\n"})
    r = run_cli("check", "--no-cache", "--output-format", "concise", "--upgrade-to", "2.7.0", str(root))
    assert r.exit_code == 0, r.output


def test_upgrade_view_refuses_fix(tmp_path):
    root = _project(tmp_path / "p", {"requirements.txt": "mindspore==2.7.0\n"})
    r = run_cli("check", "--fix", "--upgrade-to", "2.10", str(root))
    assert r.exit_code == 2 and "--upgrade-to reports what an upgrade changes; it cannot be combined with --fix" \
        in r.output

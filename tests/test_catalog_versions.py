"""One API catalog per MindSpore release (issue 23, item 1).

The facts asserted here were measured on the wheels the registry serves for Python 3.11
(2.7.0, 2.7.1, 2.7.2, 2.8.0, 2.9.0, 2.10.0), each installed into its own venv and read by
``scripts/gen_catalog.py`` (``dir()`` of each module, ``inspect.signature``, MindSpore's
``@deprecated`` decorator). Nothing here needs MindSpore except the regeneration test,
which runs each release's interpreter named by ``MSGRAPHLINT_MINDSPORE_VENVS`` (a folder
holding ``ms-<version>/bin/python``) and is collected only where those interpreters exist (never skipped).
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from msgraphlint.infer import catalog as C
from msgraphlint.infer.catalog import DATA_FILE, get_catalog, known_versions, nearest_version

REPO = Path(__file__).resolve().parent.parent
OLDER = ("2.7.0", "2.7.1", "2.7.2", "2.8.0", "2.9.0")


def test_every_release_served_for_python_311_has_a_catalog():
    assert known_versions() == ("2.7.0", "2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")
    for v in known_versions():
        assert get_catalog(v).version == v


@pytest.mark.parametrize("target, known, exact", [
    ("2.10", "2.10.0", True), ("2.10.0", "2.10.0", True), ("2.8", "2.8.0", True), ("2.7.1", "2.7.1", True),
    ("2.6", "2.7.0", False), ("2.0.0", "2.7.0", False),      # older than every catalog: the oldest
    ("2.7.5", "2.7.2", False), ("2.8.3", "2.8.0", False),    # a patch with no catalog: its minor's newest
    ("2.11", "2.10.0", False), ("3.0", "2.10.0", False),     # newer than every catalog: the newest
])
def test_nearest_version(target, known, exact):
    assert nearest_version(target) == (known, exact)
    assert get_catalog(target) is get_catalog(known)


def test_the_base_is_the_newest_and_shared():
    assert get_catalog() is get_catalog("2.10.0") is get_catalog("2.10")
    assert get_catalog().version == "2.10.0"


def test_version_files_are_differences_from_this_base():
    """Each version file records the sha256 of the base it was computed from: regenerating
    the base (a MindSpore upgrade, a curated table) without the version files fails here."""
    digest = hashlib.sha256(DATA_FILE.read_bytes()).hexdigest()
    for v in OLDER:
        doc = json.loads((DATA_FILE.parent / f"mindspore_api-{v}.json").read_text(encoding="utf-8"))
        assert doc["version"] == v and doc["base"] == "2.10.0"
        assert doc["base_sha256"] == digest, f"mindspore_api-{v}.json is stale: regenerate it"
        assert ("delta" in doc) != bool(doc.get("same_as"))


def test_version_data_is_small():
    files = [DATA_FILE] + [DATA_FILE.parent / f"mindspore_api-{v}.json" for v in OLDER]
    total = sum(f.stat().st_size for f in files)
    assert total < 1_000_000, total  # measured: 531 KB base + 233 KB for the five older releases


# ---------------------------------------------------------------------- measured facts
def _has(version, name):
    return get_catalog(version).exists(name)


@pytest.mark.parametrize("name, present", [
    # new in 2.7.1 (measured: not in dir(mindspore.mint) of 2.7.0)
    ("mindspore.mint.real", ("2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")),
    ("mindspore.mint.imag", ("2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")),
    ("mindspore.Tensor.index_fill_", ("2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")),
    ("mindspore.Tensor.masked_scatter_", ("2.7.1", "2.7.2", "2.8.0", "2.9.0", "2.10.0")),
    # new in 2.10.0
    ("mindspore.mint.vdot", ("2.10.0",)),
    # gone in 2.7.1: nn.TensorArray; gone in 2.7.2: ops.chunk_ext
    ("mindspore.nn.TensorArray", ("2.7.0",)),
    ("mindspore.ops.chunk_ext", ("2.7.0", "2.7.1")),
    ("mindspore.Tensor.is_persistent_data", ("2.7.0",)),
    ("mindspore.ops.batch_dot", known_versions()),
])
def test_api_presence_per_release(name, present):
    assert tuple(v for v in known_versions() if _has(v, name)) == present


def test_deprecations_per_release():
    # ops.batch_dot: @deprecated("2.8.0") from 2.8.0 on; 2.7.x does not mark it
    assert get_catalog("2.7.0").deprecation("mindspore.ops.batch_dot") is None
    for v in ("2.8.0", "2.9.0", "2.10.0"):
        entry = get_catalog(v).deprecation("mindspore.ops.batch_dot")
        assert entry["since"] == "2.8.0" and "decorator" in entry["source"], v
    # ops.tensor_scatter_mul: a docstring notice in 2.9.0, the decorator (since 2.9.0) in 2.10.0
    assert get_catalog("2.8.0").deprecation("mindspore.ops.tensor_scatter_mul") is None
    assert get_catalog("2.9.0").deprecation("mindspore.ops.tensor_scatter_mul")["source"] == "docstring"
    entry = get_catalog("2.10.0").deprecation("mindspore.ops.tensor_scatter_mul")
    assert entry["since"] == "2.9.0" and "decorator" in entry["source"]


def test_set_context_keys_per_release():
    # grad_for_scalar and precompile_only: warned about up to 2.9.0, refused (ValueError) in 2.10.0
    for key in ("grad_for_scalar", "precompile_only"):
        assert get_catalog("2.9.0").deprecated_args("mindspore.set_context")[key]["status"] == "deprecated"
        assert get_catalog("2.10.0").deprecated_args("mindspore.set_context")[key]["status"] == "removed"


def test_signatures_are_recorded():
    cat = get_catalog()
    assert cat.function("mindspore.mint.vdot")["params"] == "input, other"
    assert cat.function("mindspore.ops.add")["params"] == "input, other"
    dense = cat._classes["mindspore.nn.Dense"]["params"]
    assert dense.startswith("in_channels, out_channels, weight_init=")


def test_tensor_overloads_of_2_7_come_from_the_frontend_library():
    """2.7.x compiles the overload signatures into libmindspore_frontend.so, 2.8+ into
    libmindspore_common.so (measured): both are read."""
    assert get_catalog("2.7.0").tensor_overloads("add")
    assert get_catalog("2.10.0").tensor_overloads("add")


# ---------------------------------------------------------------------- regeneration
def _venv_python(version):
    root = os.environ.get("MSGRAPHLINT_MINDSPORE_VENVS")
    if not root:
        return None
    py = Path(root) / f"ms-{version}" / "bin" / "python"
    return py if py.exists() else None


_RELEASES_WITH_VENVS = [v for v in OLDER if _venv_python(v) is not None]

if _RELEASES_WITH_VENVS:
    # collected only where the releases' interpreters are (a maintainer regenerating the
    # catalog): never a skip, so CI (which installs one MindSpore) neither skips nor fails here
    @pytest.mark.slow
    @pytest.mark.parametrize("version", _RELEASES_WITH_VENVS)
    def test_version_file_regenerates_identically(version):
        py = _venv_python(version)
        proc = subprocess.run([str(py), str(REPO / "scripts" / "gen_catalog.py"), "--version-delta", "--check"],
                              capture_output=True, text=True, cwd=REPO, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_apply_delta_round_trip():
    base = {"version": "2", "functions": {"a": {"r": 1}, "b": {"r": 2}}, "modules": ["m", "n"], "x": 1}
    delta = {"functions": {"set": {"b": {"r": 3}, "c": {}}, "drop": ["a"]},
             "modules": {"add": ["o"], "drop": ["m"]}, "x": {"value": 2}}
    assert C.apply_delta(base, delta) == {"version": "2", "functions": {"b": {"r": 3}, "c": {}},
                                          "modules": ["n", "o"], "x": 2}
    assert base["functions"] == {"a": {"r": 1}, "b": {"r": 2}}


# ---------------------------------------------------------------------- scripts/catalog_diff.py
def test_catalog_diff_per_neighbouring_pair():
    import sys
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import catalog_diff
    finally:
        sys.path.remove(str(REPO / "scripts"))
    appear, disappear, changed = catalog_diff.diff("2.7.0", "2.7.1")
    assert "mindspore.nn.TensorArray" in disappear and "mindspore.mint.real" in appear
    assert "mindspore.ops.transpose" in changed  # (input, input_perm) -> (input, dims)
    appear, disappear, changed = catalog_diff.diff("2.9.0", "2.10.0")
    assert appear == ["mindspore.mint.addr_", "mindspore.mint.conv_tbc", "mindspore.mint.npu_gelu",
                      "mindspore.mint.vdot", "mindspore.swap_tensors"] and disappear == [] and changed == []
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "catalog_diff.py")], capture_output=True,
                          text=True, check=True)
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| 2.")]
    assert [r.split("|")[1:3] for r in rows] == [[f" {a} ", f" {b} "] for a, b in zip(known_versions(),
                                                                                     known_versions()[1:])]

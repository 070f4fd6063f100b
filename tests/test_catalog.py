"""The MindSpore API catalog: facts checked by hand against MindSpore 2.10.0 (CPU).

Everything here runs without MindSpore except the regeneration test, which is marked
``mindspore`` and skipped when MindSpore 2.10 is not installed.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from msgraphlint.infer.catalog import DATA_FILE, Catalog, get_catalog

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return get_catalog()


# ---------------------------------------------------------------------- the data file
def test_data_file_is_small_strict_sorted_json():
    raw = DATA_FILE.read_bytes()
    assert len(raw) < 1_500_000

    def no_nan(token):
        raise AssertionError(f"non-standard JSON constant {token}")

    data = json.loads(raw, parse_constant=no_nan)
    assert data["format"] == 1
    for key in ("functions", "classes", "tensor_methods", "aliases", "module_aliases", "deprecated"):
        assert list(data[key]) == sorted(data[key]), key
    assert data["dtypes"] == sorted(data["dtypes"])


def test_version_and_cache(cat):
    assert cat.version == "2.10.0"
    assert get_catalog() is cat


def test_importing_catalog_does_not_import_mindspore():
    code = (
        "import sys, msgraphlint.infer.catalog as c\n"
        "cat = c.get_catalog()\n"
        "cat.canonical('mindspore.ops.operations.MatMul'); cat.tensor_method('asnumpy')\n"
        "print(sorted(m for m in sys.modules if m == 'mindspore' or m.startswith('mindspore.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------- canonical names
@pytest.mark.parametrize("name, canonical", [
    ("mindspore.common.tensor.Tensor", "mindspore.Tensor"),
    ("mindspore.common.Tensor", "mindspore.Tensor"),
    ("mindspore.common.parameter.Parameter", "mindspore.Parameter"),
    ("mindspore.common.Parameter", "mindspore.Parameter"),
    ("mindspore.nn.cell.Cell", "mindspore.nn.Cell"),
    ("mindspore.nn.layer.basic.Dense", "mindspore.nn.Dense"),
    ("mindspore.nn.layer.container.CellList", "mindspore.nn.CellList"),
    ("mindspore.ops.operations.math_ops.MatMul", "mindspore.ops.MatMul"),
    ("mindspore.ops.operations.MatMul", "mindspore.ops.MatMul"),
    ("mindspore.ops.auto_generate.gen_ops_prim.MatMul", "mindspore.ops.MatMul"),  # MatMul.__module__
    ("mindspore.ops.operations.Foo", "mindspore.ops.Foo"),                        # unknown: by prefix
    ("mindspore.ops.P.Add", "mindspore.ops.Add"),                                 # ops.P is ops.operations
    ("mindspore.ops.functional.add", "mindspore.ops.add"),
    ("mindspore.ops.functional.shape", "mindspore.ops.shape"),
    ("mindspore.ops.composite.GradOperation", "mindspore.ops.GradOperation"),
    ("mindspore.common.api.jit", "mindspore.jit"),
    ("mindspore.graph.api.jit", "mindspore.jit"),                                 # jit.__module__ in 2.10
    ("mindspore.context.set_context", "mindspore.set_context"),
    ("mindspore.context.GRAPH_MODE", "mindspore.GRAPH_MODE"),
    ("mindspore.common.dtype.float32", "mindspore.float32"),
    ("mindspore.common.tensor.Tensor.add_", "mindspore.Tensor.add_"),
    ("mindspore.nn.optim.sgd.SGD", "mindspore.nn.SGD"),
    ("mindspore.mint.nn.F.relu", "mindspore.mint.nn.functional.relu"),
    # public names stay, unknown and foreign names come back unchanged
    ("mindspore.ops.MatMul", "mindspore.ops.MatMul"),
    ("mindspore.common.initializer.Normal", "mindspore.common.initializer.Normal"),
    ("mindspore.mint.nn.functional.relu", "mindspore.mint.nn.functional.relu"),
    ("numpy.array", "numpy.array"),
    ("torch.nn.Linear", "torch.nn.Linear"),
])
def test_canonical(cat, name, canonical):
    assert cat.canonical(name) == canonical


def test_is_mindspore_and_exists(cat):
    assert cat.is_mindspore("mindspore.ops.operations.MatMul")
    assert not cat.is_mindspore("numpy.sum")
    assert not cat.is_mindspore("mindspore_extra.foo")
    for name in ("mindspore.ops.add", "mindspore.ops.functional.add", "mindspore.nn.Dense", "mindspore.float32",
                 "mindspore.GRAPH_MODE", "mindspore.ops", "mindspore.ops.operations", "mindspore.Tensor.asnumpy",
                 "mindspore.Parameter.set_data", "mindspore.grad", "mindspore.mint.unique"):
        assert cat.exists(name), name
    for name in ("mindspore.ops.not_an_op", "mindspore.Tensor.not_a_method", "mindspore.nn.Dence", "numpy.sum"):
        assert not cat.exists(name), name


# ---------------------------------------------------------------------- functions
@pytest.mark.parametrize("name, returns", [
    ("mindspore.ops.add", "tensor"),
    ("mindspore.ops.matmul", "tensor"),
    ("mindspore.numpy.sum", "tensor"),
    ("mindspore.mint.add", "tensor"),
    ("mindspore.ops.shape", "const"),        # measured: tuple
    ("mindspore.ops.rank", "const"),         # int
    ("mindspore.ops.size", "const"),         # int
    ("mindspore.ops.dtype", "const"),        # a DType() primitive instance: Float32
    ("mindspore.ops.is_tensor", "const"),
    ("mindspore.numpy.size", "const"),
    ("mindspore.mint.item", "host"),         # measured: Python float
    ("mindspore.ops.is_nonzero", "host"),    # bool(tensor)
    ("mindspore.ops.print_", "none"),
    ("mindspore.set_context", "none"),
    ("mindspore.context.set_context", "none"),
    ("mindspore.ops.grad", "unknown"),       # returns a function
    ("mindspore.jit", "unknown"),
    ("mindspore.tensor", "tensor"),
    ("mindspore.Tensor", "tensor"),          # constructing a tensor
    ("mindspore.Parameter", "tensor"),
    ("mindspore.nn.Dense", "unknown"),       # constructing a cell
    ("mindspore.ops.MatMul", "unknown"),     # constructing a primitive
    ("mindspore.Tensor.asnumpy", "host"),
    ("mindspore.ops.some_future_op", "tensor"),  # unknown lower-case ops name: default
    ("mindspore.numpy.some_future_fn", "tensor"),
    ("mindspore.ops.SomeFuturePrimitive", "unknown"),
    ("mindspore.some_future_fn", "unknown"),
    ("numpy.sum", "unknown"),
])
def test_function_returns(cat, name, returns):
    assert cat.function_returns(name) == returns


def test_primitive_returns(cat):
    assert cat.primitive_returns("mindspore.ops.Shape") == "const"
    assert cat.primitive_returns("mindspore.ops.operations.MatMul") == "tensor"
    assert cat.primitive_returns("mindspore.nn.Dense") is None


@pytest.mark.parametrize("name", [
    "mindspore.ops.nonzero", "mindspore.ops.functional.nonzero", "mindspore.ops.argwhere",
    "mindspore.ops.unique", "mindspore.ops.unique_consecutive", "mindspore.ops.masked_select",
    "mindspore.ops.bincount", "mindspore.mint.nonzero", "mindspore.mint.masked_select",
    "mindspore.numpy.unique", "mindspore.ops.NonZero", "mindspore.ops.operations.Unique",
    "mindspore.ops.MaskedSelect", "mindspore.Tensor.nonzero", "mindspore.Tensor.masked_select",
])
def test_dynamic_shape(cat, name):
    assert cat.is_dynamic_shape(name)


def test_not_dynamic_shape(cat):
    for name in ("mindspore.ops.add", "mindspore.ops.unique_with_pad", "mindspore.ops.MatMul",
                 "mindspore.Tensor.add", "mindspore.ops.repeat_interleave"):
        assert not cat.is_dynamic_shape(name), name
    assert cat.dynamic_shape_condition("mindspore.ops.repeat_interleave") == "when `repeats` is a Tensor"
    assert cat.dynamic_shape_condition("mindspore.Tensor.__getitem__") == "when indexed with a boolean mask"
    assert cat.dynamic_shape_condition("mindspore.ops.add") is None


@pytest.mark.parametrize("name", [
    "mindspore.ops.assign", "mindspore.ops.assign_add", "mindspore.ops.assign_sub",
    "mindspore.ops.scatter_update", "mindspore.ops.scatter_nd_update", "mindspore.ops.scatter_add",
    "mindspore.ops.functional.assign", "mindspore.mint.nn.functional.relu_",
    "mindspore.ops.Assign", "mindspore.ops.operations.AssignAdd", "mindspore.ops.ScatterUpdate",
    "mindspore.Tensor.add_", "mindspore.common.tensor.Tensor.copy_",
])
def test_inplace_functions(cat, name):
    assert cat.is_inplace_function(name)


def test_not_inplace_functions(cat):
    # ops.inplace_update / inplace_add return a new tensor (measured: the input is unchanged)
    for name in ("mindspore.ops.add", "mindspore.ops.print_", "mindspore.ops.inplace_update",
                 "mindspore.ops.inplace_add", "mindspore.ops.tensor_scatter_update", "mindspore.ops.MatMul",
                 "mindspore.mint.nn.functional.relu", "mindspore.Tensor.add", "mindspore.numpy.ix_"):
        assert not cat.is_inplace_function(name), name
    assert cat.inplace_arg("mindspore.mint.nn.functional.relu") == "inplace"
    assert cat.inplace_arg("mindspore.ops.add") is None


# ---------------------------------------------------------------------- classes
@pytest.mark.parametrize("name, kind", [
    ("mindspore.nn.Dense", "cell"),
    ("mindspore.nn.Cell", "cell"),
    ("mindspore.nn.layer.basic.Dense", "cell"),
    ("mindspore.nn.Adam", "cell"),                  # optimizers are Cells
    ("mindspore.mint.nn.Linear", "cell"),
    ("mindspore.nn.CellList", "container"),
    ("mindspore.nn.SequentialCell", "container"),
    ("mindspore.nn.CellDict", "container"),
    ("mindspore.ops.MatMul", "primitive"),
    ("mindspore.ops.operations.math_ops.MatMul", "primitive"),
    ("mindspore.ops.Primitive", "primitive"),
    ("mindspore.Tensor", "tensor"),
    ("mindspore.Parameter", "tensor"),
    ("mindspore.COOTensor", "tensor"),
    ("mindspore.CSRTensor", "tensor"),
    ("mindspore.Model", "other"),
    ("mindspore.ops.GradOperation", "other"),
])
def test_class_kind(cat, name, kind):
    assert cat.class_kind(name) == kind


def test_class_kind_none_for_non_classes(cat):
    assert cat.class_kind("mindspore.ops.add") is None
    assert cat.class_kind("mindspore.nn.NotACell") is None


# ---------------------------------------------------------------------- tensor methods
@pytest.mark.parametrize("name, returns", [
    ("asnumpy", "host"), ("item", "host"), ("tolist", "host"), ("numpy", "host"),
    ("__float__", "host"), ("__int__", "host"), ("__bool__", "host"), ("allclose", "host"),
    ("shape", "const"), ("ndim", "const"), ("dtype", "const"), ("size", "const"), ("itemsize", "const"),
    ("nbytes", "const"), ("strides", "const"), ("dim", "const"), ("numel", "const"), ("__len__", "const"),
    ("add", "tensor"), ("add_", "tensor"), ("sum", "tensor"), ("T", "tensor"), ("__add__", "tensor"),
    ("equal", "tensor"), ("__getitem__", "tensor"), ("__setitem__", "none"), ("data_sync", "none"),
])
def test_tensor_method_returns(cat, name, returns):
    info = cat.tensor_method(name)
    assert info is not None and info["returns"] == returns


def test_tensor_method_flags(cat):
    assert cat.tensor_method("shape")["property"] is True
    assert cat.tensor_method("dim")["property"] is False
    assert cat.tensor_method("mindspore.Tensor.asnumpy")["returns"] == "host"
    assert cat.tensor_method("Tensor.item")["returns"] == "host"
    assert cat.tensor_method("not_a_method") is None
    assert cat.tensor_method("nonzero")["dynamic_shape"] is True


@pytest.mark.parametrize("name", [
    "add_", "sub_", "mul_", "div_", "copy_", "fill_", "zero_", "masked_fill_", "index_put_", "index_add_",
    "scatter_", "clamp_", "uniform_", "assign_value", "__setitem__", "__iadd__", "__imul__",
    "mindspore.Tensor.copy_",
])
def test_inplace_methods(cat, name):
    assert cat.is_inplace_method(name)


def test_not_inplace_methods(cat):
    for name in ("add", "mul", "masked_fill", "index_put", "copy", "clone", "asnumpy", "shape",
                 "requires_grad_", "fill_diagonal", "itemset", "not_a_method"):
        assert not cat.is_inplace_method(name), name


def test_parameter_methods(cat):
    assert cat.parameter_method("set_data")["inplace"] is True
    assert cat.parameter_method("name")["returns"] == "const"
    assert cat.parameter_method("asnumpy")["returns"] == "host"  # inherited from Tensor


# ---------------------------------------------------------------------- dtypes, constants
def test_dtypes_and_constants(cat):
    for name in ("mindspore.float32", "mindspore.common.dtype.float32", "mindspore.int64", "mindspore.bool_",
                 "mindspore.float16", "mindspore.bfloat16", "mindspore.numpy.float32"):
        assert cat.is_dtype(name), name
    assert not cat.is_dtype("mindspore.Tensor")
    assert not cat.is_dtype("numpy.float32")
    assert cat.constant("mindspore.GRAPH_MODE") == 0
    assert cat.constant("mindspore.context.PYNATIVE_MODE") == 1
    assert cat.constant("mindspore.numpy.inf") == float("inf")
    assert cat.constant("mindspore.ops.add") is None


# ---------------------------------------------------------------------- deprecations
def test_deprecation_by_decorator_and_docstring(cat):
    d = cat.deprecation("mindspore.nn.MatMul")
    assert d["status"] == "deprecated" and d["use"] == "mindspore.ops.matmul" and "decorator" in d["source"]
    d = cat.deprecation("mindspore.ops.operations.TensorAdd")  # @deprecated("1.1", "Add")
    assert d["since"] == "1.1" and d["use"] == "mindspore.ops.Add"
    d = cat.deprecation("mindspore.Tensor.approximate_equal")
    assert d["use"] == "mindspore.Tensor.isclose" and d["since"] == "2.8.0"
    assert cat.deprecation("mindspore.ops.assign")["status"] == "deprecated"  # docstring, removal 2.9.0
    assert cat.deprecation("mindspore.set_context")["status"] == "pending"
    assert cat.deprecation("mindspore.ops.add") is None
    assert cat.deprecation("mindspore.jit") is None


def test_deprecated_module(cat):
    # importing mindspore.common.api logs "deprecated from version 2.9.0, use 'mindspore.graph.api'"
    d = cat.deprecation("mindspore.common.api.jit")
    assert d["name"] == "mindspore.common.api" and d["kind"] == "module" and d["since"] == "2.9.0"
    assert d["use"] == "mindspore.jit"
    assert cat.deprecation("mindspore.common.api")["use"] == "mindspore.graph.api"


def test_deprecated_set_context_args(cat):
    args = cat.deprecated_args("mindspore.context.set_context")
    assert args["save_graphs"]["use"] == "env MS_DEV_SAVE_GRAPHS"
    assert args["device_target"]["use"] == "mindspore.set_device"
    assert args["jit_syntax_level"]["use"] == "mindspore.jit"
    assert args["jit_syntax_level"]["use_arg"] == "fullgraph"
    assert "warning" in args["enable_graph_kernel"]["source"]
    assert args["grad_for_scalar"]["status"] == "removed"  # raises ValueError in 2.10
    assert "mode" not in args
    assert cat.deprecated_args("mindspore.ops.add") == {}


# ---------------------------------------------------------------------- regeneration
def _installed_mindspore_version():
    if importlib.util.find_spec("mindspore") is None:
        return None
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("mindspore")
    except PackageNotFoundError:
        return None


@pytest.mark.mindspore
@pytest.mark.slow
def test_regeneration_is_identical(tmp_path, cat):
    installed = _installed_mindspore_version()
    if installed is None:
        pytest.skip("mindspore is not installed")
    if installed != cat.version:
        pytest.skip(f"catalog is for MindSpore {cat.version}, {installed} is installed")
    out = tmp_path / "mindspore_api.json"
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_catalog.py"), "--output", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.read_bytes() == DATA_FILE.read_bytes(), "run scripts/gen_catalog.py and commit the result"

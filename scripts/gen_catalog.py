#!/usr/bin/env python
"""Generate ``msgraphlint/data/mindspore_api.json`` from an installed MindSpore.

Usage::

    .venv/bin/python scripts/gen_catalog.py [--output PATH] [--check]
    /work/venvs/ms-2.7.0/bin/python scripts/gen_catalog.py --version-delta [--check]

The base, ``mindspore_api.json``, comes from the newest release (the one CI installs);
``--version-delta`` run with an older release's interpreter writes
``mindspore_api-<version>.json``: what that release's catalog changes in the base (or
``same_as`` a release of the same minor that generated equal).  Regenerating the base makes
every version file stale (each records the base's sha256): regenerate them all.

This is one of the few places allowed to import ``mindspore`` (see docs/ARCHITECTURE.md).
The output is deterministic: same MindSpore install, same bytes.  ``--check`` compares the
freshly generated catalog with the file at ``--output`` and exits 1 when they differ.

What is classified how, and why, is written next to each table below; the curated tables
(`CONST_FUNCTIONS`, `DYNAMIC_SHAPE`, ...) were checked by hand against MindSpore 2.10.0 on
CPU (PyNative calls with two inputs of equal shape and different values for the dynamic-shape
list; return types measured for the const/host lists).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import os
import re
import sys
import types
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "msgraphlint" / "data" / "mindspore_api.json"
FORMAT = 1

# --------------------------------------------------------------------------------------
# Which namespaces are public.  Order = priority when one object has several public names
# (the first public spelling becomes the canonical target of an alias).
# --------------------------------------------------------------------------------------
PRIMARY_MODULES = [
    "mindspore",
    "mindspore.nn",
    "mindspore.ops",
    "mindspore.mint",
    "mindspore.mint.nn",
    "mindspore.mint.nn.functional",
    "mindspore.mint.linalg",
    "mindspore.mint.special",
    "mindspore.mint.optim",
    "mindspore.mint.distributed",
    "mindspore.numpy",
    # Own documented namespaces that rules may meet (configuration, replacements named
    # by deprecation notes).  Their functions default to returns='unknown'.
    "mindspore.common.initializer",
    "mindspore.amp",
    "mindspore.communication",
    "mindspore.train",
    "mindspore.runtime",
    "mindspore.hal",
    "mindspore.graph",
    "mindspore.tools",
    "mindspore.profiler",
    "mindspore.parallel",
    "mindspore.parallel.nn",
    "mindspore.parallel.auto_parallel",
    "mindspore.device_context.cpu",
    "mindspore.device_context.cpu.op_tuning",
    "mindspore.device_context.gpu",
    "mindspore.device_context.gpu.op_precision",
    "mindspore.device_context.gpu.op_tuning",
    "mindspore.device_context.ascend",
    "mindspore.device_context.ascend.op_debug",
    "mindspore.device_context.ascend.op_precision",
    "mindspore.device_context.ascend.op_tuning",
]
# ``mindspore.ops.functional`` is listed by the docs too, but every name it shares with
# ``mindspore.ops`` is the same object: those become aliases, the rest stay entries.
FOLDED_MODULES = ["mindspore.ops.functional"]

# Modules whose functions return tensors unless said otherwise.
TENSOR_DEFAULT_PREFIXES = ("mindspore.ops", "mindspore.mint", "mindspore.numpy")

# Re-exporting / implementation packages users import from.  Every loaded module under
# them is walked for aliases, and gets a module alias when its names are public elsewhere.
SECONDARY_PACKAGES = [
    "mindspore.common",
    "mindspore.context",
    "mindspore.ops",
    "mindspore.nn",
    "mindspore.mint",
    "mindspore.numpy",
    "mindspore.graph",
    "mindspore.train",
    "mindspore.amp",
    "mindspore.communication",
    "mindspore.parallel",
    "mindspore.runtime",
    "mindspore.hal",
]
# Extra submodules imported on purpose so that their aliases are recorded (they are not
# imported by ``import mindspore``).  ``mindspore.common.api`` is deprecated since 2.9
# (it logs a warning when imported) but still widely written: ``from mindspore.common.api
# import jit``.
EXTRA_IMPORTS = [
    "mindspore.common.api",
    "mindspore.common.jit_config",
    "mindspore.common.mutable",
    "mindspore.common.lazy_inline",
    "mindspore.common.no_inline",
]
# Module spellings written by users that mean another public namespace.  Derived module
# aliases (see `derive_module_aliases`) are added to these.
CURATED_MODULE_ALIASES = {
    "mindspore.common": "mindspore",
    "mindspore.common.dtype": "mindspore",
    "mindspore.common.tensor": "mindspore",
    "mindspore.common.parameter": "mindspore",
    "mindspore.common.sparse_tensor": "mindspore",
    "mindspore.common.api": "mindspore",
    "mindspore.context": "mindspore",
    "mindspore.dtype": "mindspore",
    "mindspore.ops.operations": "mindspore.ops",
    "mindspore.ops.composite": "mindspore.ops",
    "mindspore.ops.function": "mindspore.ops",
    "mindspore.ops.functional": "mindspore.ops",
    "mindspore.ops.auto_generate": "mindspore.ops",
    "mindspore.nn.layer": "mindspore.nn",
    "mindspore.nn.loss": "mindspore.nn",
    "mindspore.nn.optim": "mindspore.nn",
    "mindspore.nn.wrap": "mindspore.nn",
    "mindspore.nn.cell": "mindspore.nn",
}

# --------------------------------------------------------------------------------------
# Curated facts (checked by hand against MindSpore 2.10.0, CPU).
# --------------------------------------------------------------------------------------
# Functions returning compile-time Python values (measured: tuple/int/bool/dtype).
CONST_FUNCTIONS = {
    "mindspore.ops.shape", "mindspore.ops.rank", "mindspore.ops.size", "mindspore.ops.numel",
    "mindspore.ops.dtype", "mindspore.ops.typeof", "mindspore.ops.is_tensor",
    "mindspore.ops.is_floating_point", "mindspore.ops.is_complex", "mindspore.ops.scalar_cast",
    "mindspore.ops.get_rank", "mindspore.ops.get_world_size", "mindspore.ops.get_group_rank",
    "mindspore.ops.get_global_rank", "mindspore.ops.get_process_group_ranks",
    "mindspore.ops.get_backend", "mindspore.ops.is_available", "mindspore.ops.is_initialized",
    "mindspore.ops.shape_mul",
    "mindspore.numpy.size", "mindspore.numpy.isscalar", "mindspore.numpy.result_type",
    "mindspore.numpy.promote_types",
    "mindspore.is_tensor", "mindspore.dtype_to_nptype", "mindspore.dtype_to_pytype",
    "mindspore.pytype_to_dtype", "mindspore.get_py_obj_dtype", "mindspore.get_context",
    "mindspore.get_seed", "mindspore.get_auto_parallel_context", "mindspore.get_ps_context",
    "mindspore.get_algo_parameters", "mindspore.get_current_device",
    "mindspore.communication.get_rank", "mindspore.communication.get_group_size",
    "mindspore.communication.get_local_rank", "mindspore.communication.get_local_rank_size",
    "mindspore.communication.get_group_rank_from_world_rank",
    "mindspore.communication.get_world_rank_from_group_rank",
    "mindspore.communication.get_process_group_ranks",
}
# Functions that pull a value from the device into Python (measured).
HOST_FUNCTIONS = {
    "mindspore.mint.item", "mindspore.mint.allclose", "mindspore.ops.is_nonzero",
    "mindspore.numpy.array_str",
}
# Functions returning None (side effects only).
NONE_FUNCTIONS = {
    "mindspore.ops.print_", "mindspore.ops.stop_gradient_", "mindspore.ops.set_comm_ops_inplace",
    "mindspore.set_context", "mindspore.set_seed", "mindspore.set_device",
}
# Functions returning callables / objects: never a tensor.
UNKNOWN_FUNCTIONS = {
    "mindspore.ops.grad", "mindspore.ops.value_and_grad", "mindspore.ops.vmap",
    "mindspore.ops.jacfwd", "mindspore.ops.jacrev", "mindspore.ops.vjp", "mindspore.ops.jvp",
    "mindspore.ops.linearize", "mindspore.ops.jet", "mindspore.ops.derivative",
    "mindspore.ops.kernel", "mindspore.ops.custom_info_register", "mindspore.ops.op_info_register",
    "mindspore.ops.add_flags", "mindspore.ops.prim_arg_register", "mindspore.ops.prim_attr_register",
    "mindspore.ops.get_vm_impl_fn", "mindspore.ops.new_group", "mindspore.ops.constexpr",
    "mindspore.ops.recv_object_list", "mindspore.ops.batch_isend_irecv",
}
# Functions creating tensors although their docstring does not say so.
TENSOR_FUNCTIONS = {"mindspore.tensor", "mindspore.ops.stop_gradient", "mindspore.ops.depend"}
# Output shape depends on input *values* (measured: equal-shape inputs, different values,
# different output shapes; or by documentation where the CPU kernel is missing).
DYNAMIC_SHAPE = {
    "mindspore.ops.nonzero", "mindspore.ops.argwhere", "mindspore.ops.unique",
    "mindspore.ops.unique_consecutive", "mindspore.ops.masked_select", "mindspore.ops.bincount",
    "mindspore.ops.dense_to_sparse_coo", "mindspore.ops.dense_to_sparse_csr",
    "mindspore.mint.nonzero", "mindspore.mint.unique", "mindspore.mint.unique_consecutive",
    "mindspore.mint.masked_select", "mindspore.mint.bincount",
    "mindspore.numpy.unique", "mindspore.numpy.argwhere", "mindspore.numpy.bincount",
    "mindspore.numpy.intersect1d", "mindspore.numpy.setdiff1d",
    # primitives (calling an instance)
    "mindspore.ops.NonZero", "mindspore.ops.Unique", "mindspore.ops.UniqueConsecutive",
    "mindspore.ops.MaskedSelect", "mindspore.ops.ListDiff",
}
# Dynamic only for some arguments.
DYNAMIC_SHAPE_CONDITIONAL = {
    "mindspore.ops.repeat_interleave": "when `repeats` is a Tensor",
    "mindspore.mint.repeat_interleave": "when `repeats` is a Tensor",
    "mindspore.numpy.repeat": "when `repeats` is a Tensor",
    "mindspore.mint.where": "when called with the condition only",
    "mindspore.numpy.where": "when called with the condition only",
}
TENSOR_DYNAMIC_SHAPE = {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select",
                        "bincount"}
TENSOR_DYNAMIC_SHAPE_CONDITIONAL = {
    "repeat_interleave": "when `repeats` is a Tensor",
    "__getitem__": "when indexed with a boolean mask",
}
# Names ending in "_" that are not in-place (keyword/builtin clashes, primitive instances).
NOT_INPLACE_UNDERSCORE = {"print_", "is_", "reshape_", "shape_", "ix_", "cdist_", "mindspore.ops.stop_gradient_"}
# In-place by documentation although the name does not end in "_".
EXTRA_INPLACE_FUNCTIONS = {
    "mindspore.ops.assign", "mindspore.ops.assign_add", "mindspore.ops.assign_sub",
    "mindspore.ops.scatter_update", "mindspore.ops.scatter_nd_update",
    "mindspore.ops.scatter_add", "mindspore.ops.scatter_mul",
    "mindspore.ops.scatter_div", "mindspore.ops.scatter_max", "mindspore.ops.scatter_min",
    "mindspore.ops.scatter_nd_add", "mindspore.ops.scatter_nd_sub", "mindspore.ops.scatter_nd_mul",
    "mindspore.ops.scatter_nd_div", "mindspore.ops.scatter_nd_max", "mindspore.ops.scatter_nd_min",
    "mindspore.ops.inplace_index_add", "mindspore.ops.index_add",
    "mindspore.swap_tensors",
    "mindspore.mint.distributed.all_reduce", "mindspore.mint.distributed.reduce",
    "mindspore.ops.reduce",
}

# Write an input in place only under some condition (the condition, in words).
_COMM_INPLACE = "when communication ops are switched to in-place (`ops.set_comm_ops_inplace(True)`)"
CONDITIONAL_INPLACE = {
    "mindspore.ops.batch_norm": "when `training` is True: updates `running_mean` and `running_var`",
    "mindspore.ops.embedding": "when `max_norm` is given: renormalises `weight`",
    "mindspore.mint.nn.functional.embedding": "when `max_norm` is given: renormalises `weight`",
    **{f"mindspore.ops.{n}": _COMM_INPLACE for n in (
        "all_gather", "all_gather_into_tensor", "all_reduce", "all_to_all_single", "irecv", "recv",
        "reduce_scatter", "reduce_scatter_tensor")},
}

# Tensor methods / properties: what they give back.
TENSOR_HOST = {
    "asnumpy", "numpy", "item", "tolist", "allclose", "data_ptr", "get_bytes", "to_dlpack",
    "storage", "untyped_storage", "__float__", "__int__", "__bool__", "__index__", "__array__",
    "__repr__", "__str__", "__format__", "__contains__",
}
TENSOR_CONST = {
    "shape", "ndim", "dtype", "size", "itemsize", "nbytes", "strides", "dim", "numel", "nelement",
    "ndimension", "stride", "storage_offset", "is_contiguous", "is_floating_point", "is_complex",
    "is_signed", "type", "has_init", "device", "is_meta", "const_arg", "is_init", "is_pinned",
    "is_shared", "offload", "offload_file_path", "init_flag", "init_finished", "virtual_flag",
    "symbolic_shape", "param_info", "init", "index_of_parent_", "parent_tensor_", "delta_seed",
    "hooks", "getitem_index_info", "setitem_index_info", "__len__", "__hash__",
}
TENSOR_NONE = {
    "data_sync", "register_hook", "remove_hook", "set_dtype", "set_init_flag", "set_cast_dtype",
    "set_device_address", "set_param_info", "wait_pipeline", "flush_from_cache", "assign_value_cpp",
    "__setitem__", "__setstate__", "__init__", "__delattr__", "__setattr__",
}
TENSOR_INPLACE_EXTRA = {
    "assign_value", "assign_value_cpp", "__setitem__", "__iadd__", "__isub__", "__imul__",
    "__itruediv__", "__ifloordiv__", "__imod__",
}
# Underscore-suffixed attributes that are not in-place writes of the tensor's data.
TENSOR_NOT_INPLACE = {"requires_grad_", "index_of_parent_", "parent_tensor_"}
# Dunder methods kept in the catalog (operators, conversions); others are Python plumbing.
TENSOR_DUNDERS = {
    "__abs__", "__add__", "__and__", "__array__", "__bool__", "__contains__", "__deepcopy__",
    "__eq__", "__float__", "__floordiv__", "__format__", "__ge__", "__getitem__", "__gt__",
    "__hash__", "__iadd__", "__ifloordiv__", "__imod__", "__imul__", "__index__", "__int__",
    "__invert__", "__isub__", "__iter__", "__itruediv__", "__le__", "__len__", "__lt__",
    "__matmul__", "__mod__", "__mul__", "__ne__", "__neg__", "__or__", "__pos__", "__pow__",
    "__radd__", "__rand__", "__repr__", "__rfloordiv__", "__rmatmul__", "__rmod__", "__rmul__",
    "__ror__", "__round__", "__rpow__", "__rsub__", "__rtruediv__", "__rxor__", "__setitem__",
    "__str__", "__sub__", "__truediv__", "__xor__", "__ipow__", "__iand__", "__ior__", "__ixor__",
    "__imatmul__", "__rlshift__", "__lshift__", "__rshift__", "__rrshift__",
}
# Primitive classes whose instances return compile-time values.
CONST_PRIMITIVES = {"mindspore.ops.Shape", "mindspore.ops.Rank", "mindspore.ops.DType",
                    "mindspore.ops.Size"}
TENSOR_CLASS_MODULES = ("mindspore.common.tensor", "mindspore.common.parameter",
                        "mindspore.common.sparse_tensor", "mindspore.common._stub_tensor")

LOG_SILENCE = {"GLOG_v": "3", "MS_SUBMODULE_LOG_v": "{}"}


# --------------------------------------------------------------------------------------
def _import(name: str) -> Optional[types.ModuleType]:
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - optional namespaces may fail on some installs
        return None


CORE_MODULES = ("mindspore", "mindspore.nn", "mindspore.ops", "mindspore.mint", "mindspore.mint.nn",
                "mindspore.mint.nn.functional", "mindspore.numpy", "mindspore.ops.functional")


def public_names(mod: types.ModuleType) -> List[Tuple[str, bool]]:
    """(name, declared) pairs of a namespace's public callables/classes/values.

    ``declared`` is True for names in ``__all__``.  Core namespaces also expose every other
    non-underscore attribute that resolves at run time (MindSpore's ``__all__`` lists are
    incomplete, e.g. ``mindspore.grad`` or ``mindspore.mint.unique`` are missing); other
    namespaces expose ``__all__`` only, or when they have none, what they define themselves.
    """
    modname = mod.__name__
    declared = set(n for n in getattr(mod, "__all__", ()) if isinstance(n, str))
    names = set(declared)
    if modname in CORE_MODULES:
        names.update(n for n in dir(mod) if not n.startswith("_"))
    elif not declared:
        names.update(n for n in dir(mod) if not n.startswith("_")
                     and str(getattr(getattr(mod, n, None), "__module__", "")).startswith(modname))
    out = []
    for n in sorted(names):
        if not n.isidentifier() or n.startswith("_") or not hasattr(mod, n):
            continue
        obj = getattr(mod, n)
        if isinstance(obj, types.ModuleType) or type(obj).__module__ == "__future__":
            continue
        home = getattr(obj, "__module__", None) or type(obj).__module__
        if not (isinstance(home, str) and home.startswith("mindspore")) and not isinstance(
                obj, (bool, int, float, str)):
            continue
        out.append((n, n in declared))
    return out


def docstring(obj: Any) -> str:
    try:
        doc = inspect.getdoc(obj)
    except Exception:  # noqa: BLE001
        doc = None
    return doc if isinstance(doc, str) else ""


_SECTION_RE = re.compile(r"^(Args|Arguments|Inputs|Outputs|Returns|Return|Raises|Examples|Supported Platforms|"
                         r"Keyword Args|Keyword Arguments|Note|Notes|Tutorial Examples|Yields)\s*:\s*$", re.M)


def split_sections(doc: str) -> Dict[str, str]:
    """'' -> description, plus one entry per Google-style section."""
    out: Dict[str, str] = {}
    pos, key = 0, ""
    for m in _SECTION_RE.finditer(doc):
        out[key] = out.get(key, "") + doc[pos:m.start()]
        key, pos = m.group(1), m.end()
    out[key] = out.get(key, "") + doc[pos:]
    return out


def first_words(text: str) -> str:
    return " ".join(text.split())[:160]


# --------------------------------------------------------------------------------------
class Generator:
    def __init__(self) -> None:
        for k, v in LOG_SILENCE.items():
            os.environ.setdefault(k, v)
        import mindspore  # noqa: F401  (generator scripts may import mindspore)
        self.ms = mindspore
        for name in PRIMARY_MODULES + FOLDED_MODULES + EXTRA_IMPORTS:
            _import(name)
        import mindspore.nn as nn
        import mindspore.ops as ops
        from mindspore.common.tensor import Tensor
        from mindspore.nn.layer import container
        self.Cell = nn.Cell
        self.Primitive = ops.Primitive
        self.Tensor = Tensor
        self.container_bases = tuple(
            c for c in (getattr(container, "_CellListBase", None), getattr(container, "_CellDictBase", None),
                        getattr(container, "SequentialCell", None)) if c is not None)
        self.dtype_base = type(mindspore.float32).__mro__[-3]  # mindspore._c_expression.typing.Type
        self.functions: Dict[str, Dict[str, Any]] = {}
        self.classes: Dict[str, Dict[str, Any]] = {}
        self.dtypes: Set[str] = set()
        self.constants: Dict[str, Any] = {}
        self.modules: Set[str] = set()
        self.objects: Dict[str, Any] = {}        # public name -> object
        self.names_of: Dict[int, List[str]] = {}  # id(object) -> public names, priority order
        self.keep: List[Any] = []                 # keep objects alive (ids stay unique)
        self.extra_aliases: Dict[str, str] = {}   # undeclared re-exports -> public name
        self.canon: Optional[Any] = None          # set once aliases are known

    # ---------------------------------------------------------------- public surface
    def collect(self) -> None:
        for modname in PRIMARY_MODULES + FOLDED_MODULES:
            mod = sys.modules.get(modname) or _import(modname)
            if mod is None:
                continue
            self.modules.add(modname)
            for n, declared in public_names(mod):
                obj = getattr(mod, n)
                if id(obj) in self.names_of and (not declared or modname in FOLDED_MODULES):
                    # an undeclared re-export (``mindspore.ops.Tensor``) or a folded namespace
                    # entry: an alias of the earlier public name, not an entry of its own
                    self.extra_aliases[f"{modname}.{n}"] = self.public_name_of(
                        obj, prefer=n, prefer_module=CURATED_MODULE_ALIASES.get(modname))
                    continue
                self.add_public(f"{modname}.{n}", obj)
        # submodules of the public namespaces count as modules
        for name, mod in list(sys.modules.items()):
            if isinstance(mod, types.ModuleType) and name.startswith("mindspore.") and not any(
                    p.startswith("_") for p in name.split(".")):
                if any(name == m or name.startswith(m + ".") for m in PRIMARY_MODULES[1:] + SECONDARY_PACKAGES):
                    self.modules.add(name)
        self.modules.add("mindspore")

    def add_public(self, name: str, obj: Any) -> None:
        if isinstance(obj, type):
            self.classes[name] = {"kind": self.class_kind(obj)}
        elif isinstance(obj, self.dtype_base):
            self.dtypes.add(name)
        elif callable(obj):
            self.functions[name] = {}
        elif isinstance(obj, (bool, int, float, str)) and not isinstance(obj, type):
            if isinstance(obj, float) and obj != obj or obj in (float("inf"), float("-inf")):
                obj = str(obj)  # strict JSON has no NaN/Infinity: "nan", "inf", "-inf"
            self.constants[name] = obj
        else:
            return
        self.objects[name] = obj
        self.keep.append(obj)
        self.names_of.setdefault(id(obj), []).append(name)

    def class_kind(self, cls: type) -> str:
        if issubclass(cls, self.Cell):
            return "container" if issubclass(cls, self.container_bases) else "cell"
        if issubclass(cls, self.Primitive):
            return "primitive"
        if issubclass(cls, self.Tensor) or (cls.__module__ in TENSOR_CLASS_MODULES and (
                cls.__name__.endswith("Tensor") or cls.__name__ == "Parameter")):
            return "tensor"
        return "other"

    # ---------------------------------------------------------------- functions
    def classify_functions(self, rw_prims: Set[type]) -> None:
        rw_names = {c.__name__ for c in rw_prims}
        for name, info in self.functions.items():
            obj = self.objects[name]
            short = name.rsplit(".", 1)[1]
            doc = docstring(obj)
            secs = split_sections(doc)
            info["returns"] = self.function_returns(name, obj, secs)
            if name in DYNAMIC_SHAPE:
                info["dynamic_shape"] = True
            if name in DYNAMIC_SHAPE_CONDITIONAL:
                info["dynamic_shape_if"] = DYNAMIC_SHAPE_CONDITIONAL[name]
            params = self.parameters(obj) or []
            if "inplace" in params:
                info["inplace_arg"] = "inplace"
                info["inplace_if"] = "when `inplace=True`"
            elif name in CONDITIONAL_INPLACE:
                info["inplace_if"] = CONDITIONAL_INPLACE[name]
            elif self.function_inplace(name, short, obj, doc, rw_prims, rw_names):
                info["inplace"] = True

    @staticmethod
    def parameters(obj: Any) -> Optional[List[str]]:
        try:
            return list(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            return None

    def function_returns(self, name: str, obj: Any, secs: Dict[str, str]) -> str:
        if name in CONST_FUNCTIONS:
            return "const"
        if name in HOST_FUNCTIONS:
            return "host"
        if name in NONE_FUNCTIONS:
            return "none"
        if name in UNKNOWN_FUNCTIONS:
            return "unknown"
        if name in TENSOR_FUNCTIONS:
            return "tensor"
        if isinstance(obj, self.Primitive):
            cls = type(obj)
            cname = self.public_name_of(cls)
            if cname in CONST_PRIMITIVES:
                return "const"
            return "tensor"
        ret = first_words(secs.get("Returns", "") or secs.get("Return", ""))
        tensorish = name.startswith(TENSOR_DEFAULT_PREFIXES)
        if ret:
            low = ret.lower()
            if re.match(r"(none|invalid value)\b", low):
                return "none"
            if "tensor" in low:
                return "tensor"
            if re.match(r"(function|callable|metric object|a callable|dict|commhandle|list\[commhandle)", low):
                return "unknown"
            if re.match(r"(int|bool|boolean|float|str|string|tuple\[int\]|list\[float\]|list\[int\]|list, the name|"
                        r"type of mindspore type|:class:`mindspore\.dtype`)\b", low):
                return "const"
        if tensorish and not name.startswith(("mindspore.mint.distributed", "mindspore.mint.optim")):
            return "tensor"
        short = name.rsplit(".", 1)[1]
        if re.match(r"(set|reset|register|clear)_", short) and not ret:
            return "none"
        return "unknown"

    def function_inplace(self, name: str, short: str, obj: Any, doc: str, rw_prims: Set[type],
                         rw_names: Set[str]) -> bool:
        if name in EXTRA_INPLACE_FUNCTIONS:
            return True
        if short in NOT_INPLACE_UNDERSCORE or name in NOT_INPLACE_UNDERSCORE:
            return False
        if isinstance(obj, self.Primitive):
            return type(obj) in rw_prims
        if short.endswith("_") and not short.endswith("__"):
            return True
        # a Python function calling a primitive that writes an input (RW_WRITE signature)
        return bool(self.references_rw(obj, rw_prims, rw_names))

    def references_rw(self, fn: Any, rw_prims: Set[type], rw_names: Set[str]) -> List[str]:
        """Names of RW_WRITE primitives a Python function's code refers to (globals)."""
        code = getattr(fn, "__code__", None)
        glb = getattr(fn, "__globals__", None)
        if code is None or glb is None:
            return []
        found = []
        for n in code.co_names:
            val = glb.get(n)
            if val is None:
                if n in rw_names:
                    found.append(n)
                continue
            if isinstance(val, type) and val in rw_prims:
                found.append(n)
            elif isinstance(val, self.Primitive) and type(val) in rw_prims:
                found.append(n)
        return found

    # ---------------------------------------------------------------- primitives
    def rw_write_primitives(self) -> Set[type]:
        """Primitive classes whose signature marks an input RW_WRITE (written in place)."""
        seen: Dict[type, bool] = {}
        candidates: List[type] = []
        for mod in list(sys.modules.values()):
            mname = getattr(mod, "__name__", "")
            if not isinstance(mname, str) or not mname.startswith("mindspore.ops"):
                continue
            for v in list(vars(mod).values()):
                if isinstance(v, type) and issubclass(v, self.Primitive) and v not in seen:
                    seen[v] = False
                    candidates.append(v)
        out = set()
        rw_by_file: Dict[str, Set[str]] = {}

        def rw_classes_in(path: str) -> Set[str]:
            """Class names in a source file whose __mindspore_signature__ mentions RW_WRITE."""
            if path not in rw_by_file:
                names: Set[str] = set()
                try:
                    src = Path(path).read_text(encoding="utf-8", errors="replace")
                    tree = ast.parse(src) if "RW_WRITE" in src else None
                except (OSError, SyntaxError, ValueError):
                    tree, src = None, ""
                if tree is not None and "RW_WRITE" in src:
                    lines = src.splitlines()
                    for node in ast.walk(tree):
                        if not isinstance(node, ast.ClassDef):
                            continue
                        for stmt in node.body:
                            if (isinstance(stmt, ast.Assign) and any(
                                    isinstance(t, ast.Name) and t.id == "__mindspore_signature__"
                                    for t in stmt.targets)
                                    and "RW_WRITE" in "\n".join(lines[stmt.lineno - 1:stmt.end_lineno])):
                                names.add(node.name)
                rw_by_file[path] = names
            return rw_by_file[path]

        for cls in candidates:
            for base in cls.__mro__:
                if base is self.Primitive:
                    break
                if "__mindspore_signature__" in base.__dict__:
                    mod = sys.modules.get(base.__module__)
                    path = getattr(mod, "__file__", None)
                    if path and base.__name__ in rw_classes_in(path):
                        out.add(cls)
                    break
        return out

    def record_signatures(self) -> None:
        """``params``: the parameters of each public function and class constructor, as
        ``inspect.signature`` gives them (``input, other, *, alpha=``: a name, ``=`` after a
        name with a default, ``/`` and ``*`` as in Python, ``*args``/``**kwargs``); left out
        where there is no signature.  Read by the keyword check of MSG514 and the per-version
        signature counts of scripts/catalog_diff.py."""
        for table in (self.functions, self.classes):
            for name, info in table.items():
                text = self.signature_text(self.objects[name])
                if text is not None:
                    info["params"] = text

    @staticmethod
    def signature_text(obj: Any) -> Optional[str]:
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            return None
        parts: List[str] = []
        kinds = inspect.Parameter
        prev = None
        for prm in sig.parameters.values():
            if prev is kinds.POSITIONAL_ONLY and prm.kind is not kinds.POSITIONAL_ONLY:
                parts.append("/")
            if prm.kind is kinds.KEYWORD_ONLY and prev not in (kinds.KEYWORD_ONLY, kinds.VAR_POSITIONAL):
                parts.append("*")
            if prm.kind is kinds.VAR_POSITIONAL:
                parts.append("*" + prm.name)
            elif prm.kind is kinds.VAR_KEYWORD:
                parts.append("**" + prm.name)
            else:
                parts.append(prm.name + ("=" if prm.default is not prm.empty else ""))
            prev = prm.kind
        if prev is kinds.POSITIONAL_ONLY:
            parts.append("/")
        return ", ".join(parts)

    def classify_classes(self, rw_prims: Set[type]) -> None:
        for name, info in self.classes.items():
            cls = self.objects[name]
            if info["kind"] != "primitive":
                continue
            if cls in rw_prims:
                info["inplace"] = True
            if name in DYNAMIC_SHAPE:
                info["dynamic_shape"] = True
            info["returns"] = "const" if name in CONST_PRIMITIVES else "tensor"
            inputs = self.primitive_inputs(cls)
            if inputs is not None:
                info["inputs"] = inputs

    @staticmethod
    def primitive_inputs(cls: type) -> Optional[List[str]]:
        """The operand names of an instance call (``Reshape()(input, shape)`` -> ["input",
        "shape"]) from ``__call__``'s signature; None when it is only ``*args``."""
        try:
            params = list(inspect.signature(cls.__call__).parameters.values())
        except (TypeError, ValueError):
            return None
        names = [p.name for p in params[1:] if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if names and not any(p.kind is p.VAR_POSITIONAL for p in params[1:]):
            return names
        # ``__call__(*args)`` (PrimitiveWithInfer): the input names the primitive registers
        # (``init_prim_io_names``) on an instance built without arguments, where it can be
        try:
            inst = cls()
        except Exception:  # needs constructor arguments
            return None
        io = getattr(inst, "attrs", {}).get("input_names")
        return [str(n) for n in io] if isinstance(io, (list, tuple)) and io else None

    # ---------------------------------------------------------------- tensor methods
    def tensor_methods(self) -> Dict[str, Dict[str, Any]]:
        T = self.Tensor
        out: Dict[str, Dict[str, Any]] = {}
        for n in sorted(dir(T)):
            if n.startswith("__"):
                if n not in TENSOR_DUNDERS:
                    continue
            elif n.startswith("_"):
                continue
            try:
                raw = inspect.getattr_static(T, n)
            except AttributeError:
                continue
            info: Dict[str, Any] = {}
            is_prop = isinstance(raw, (property, types.GetSetDescriptorType, types.MemberDescriptorType))
            if is_prop:
                info["property"] = True
            if isinstance(raw, (int, float, str, bool)):
                info["property"] = True
            info["returns"] = self.tensor_returns(n)
            if self.tensor_inplace(n):
                info["inplace"] = True
            if n in TENSOR_DYNAMIC_SHAPE:
                info["dynamic_shape"] = True
            if n in TENSOR_DYNAMIC_SHAPE_CONDITIONAL:
                info["dynamic_shape_if"] = TENSOR_DYNAMIC_SHAPE_CONDITIONAL[n]
            out[n] = info
        return out

    @staticmethod
    def tensor_returns(n: str) -> str:
        if n in TENSOR_HOST:
            return "host"
        if n in TENSOR_CONST:
            return "const"
        if n in TENSOR_NONE:
            return "none"
        return "tensor"

    @staticmethod
    def tensor_inplace(n: str) -> bool:
        if n in TENSOR_INPLACE_EXTRA:
            return True
        if n in TENSOR_NOT_INPLACE or n.startswith("__"):
            return False
        return n.endswith("_")

    def parameter_methods(self, tensor_methods: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
        P = self.ms.Parameter
        out = {}
        for n in sorted(dir(P)):
            if n.startswith("_") or n in tensor_methods:
                continue
            raw = inspect.getattr_static(P, n, None)
            info: Dict[str, Any] = {}
            if isinstance(raw, (property, types.GetSetDescriptorType)):
                info["property"] = True
                info["returns"] = "const"
            else:
                info["returns"] = {"set_data": "tensor", "init_data": "tensor", "clone": "tensor",
                                   "value": "tensor", "copy": "tensor"}.get(n, "none")
            if n == "set_data":  # replaces the parameter's data in place
                info["inplace"] = True
            out[n] = info
        return out

    # ---------------------------------------------------------------- aliases
    def public_name_of(self, obj: Any, prefer: Optional[str] = None,
                       prefer_module: Optional[str] = None) -> Optional[str]:
        """The canonical public spelling of an object: ``prefer_module.prefer`` when that is
        one of its public names, else the first (by namespace priority) whose last part is
        ``prefer``, else the first."""
        names = self.names_of.get(id(obj))
        if not names:
            return None
        if prefer and prefer_module and f"{prefer_module}.{prefer}" in names:
            return f"{prefer_module}.{prefer}"
        if prefer:
            for n in names:
                if n.rsplit(".", 1)[1] == prefer:
                    return n
        return names[0]

    def aliases(self) -> Tuple[Dict[str, str], Dict[str, str]]:
        exact: Dict[str, str] = {}
        public = set(self.objects)
        # 1. implementation paths: __module__ + __qualname__
        for name, obj in sorted(self.objects.items()):
            mod = getattr(obj, "__module__", None)
            qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
            if isinstance(obj, self.Primitive) or not isinstance(mod, str) or not isinstance(qual, str):
                continue
            if "<" in qual or not mod.startswith("mindspore"):
                continue
            impl = f"{mod}.{qual}"
            if impl in public or impl in exact:
                continue
            target = self.public_name_of(obj, prefer=qual.rsplit(".", 1)[-1])
            if target and target != impl:
                exact[impl] = target
        for key, target in self.extra_aliases.items():
            if key not in public and target:
                exact[key] = target
        # 2. attributes of loaded implementation / re-export modules (private modules skipped)
        walked: Dict[str, Dict[str, str]] = {}   # everything, for module-alias votes
        exported: Dict[str, Dict[str, str]] = {}  # what the module defines or re-exports on purpose
        defined: Dict[str, Dict[str, str]] = {}
        for modname in sorted(sys.modules):
            mod = sys.modules[modname]
            if not isinstance(mod, types.ModuleType) or modname in PRIMARY_MODULES or modname in FOLDED_MODULES:
                continue
            if any(part.startswith("_") for part in modname.split(".")):
                continue
            if not any(modname == p or modname.startswith(p + ".") for p in SECONDARY_PACKAGES):
                continue
            is_package = hasattr(mod, "__path__")
            declared = set(getattr(mod, "__all__", ()) or ())
            table: Dict[str, str] = {}
            for n, obj in sorted(vars(mod).items()):
                if n.startswith("_") or isinstance(obj, types.ModuleType):
                    continue
                if id(obj) not in self.names_of or isinstance(obj, (bool, int, float, str)):
                    continue  # small ints/strs are shared objects: identity means nothing
                target = self.public_name_of(obj, prefer=n)
                if not target:
                    continue
                table[n] = target
                home = getattr(obj, "__module__", None)
                if home == modname:
                    defined.setdefault(modname, {})[n] = target
                if home == modname or is_package or n in declared:
                    exported.setdefault(modname, {})[n] = target
            if table:
                walked[modname] = table
        modules = self.derive_module_aliases(walked, defined)
        # module attributes naming another module: ``mindspore.ops.P`` is mindspore.ops.operations
        for modname in sorted(set(PRIMARY_MODULES) | set(walked)):
            mod = sys.modules.get(modname)
            if mod is None or (modname not in PRIMARY_MODULES and not hasattr(mod, "__path__")):
                continue  # implementation modules' ``P``/``F``/``mstype`` helpers: not user spellings
            for n, val in sorted(vars(mod).items()):
                if n.startswith("_") or not isinstance(val, types.ModuleType):
                    continue
                target = val.__name__
                key = f"{modname}.{n}"
                if (target == key or target == "mindspore" or not target.startswith("mindspore.")
                        or any(part.startswith("_") for part in target.split(".")) or key in modules):
                    continue
                if key in sys.modules:  # a real submodule of that name wins
                    continue
                modules[key] = modules.get(target, target)
        for modname, table in exported.items():
            for n, target in table.items():
                key = f"{modname}.{n}"
                if key in public or key in exact:
                    continue
                if self.by_prefix(key, modules) == target:
                    continue  # implied by the module alias
                exact[key] = target
        # drop impl aliases that the module aliases already imply
        for key in list(exact):
            if self.by_prefix(key, modules) == exact[key]:
                del exact[key]
        return dict(sorted(exact.items())), dict(sorted(modules.items()))

    def derive_module_aliases(self, walked: Dict[str, Dict[str, str]],
                              defined: Dict[str, Dict[str, str]]) -> Dict[str, str]:
        """Module -> public namespace its names belong to (majority of same-named public objects).

        Votes come from what the module defines itself when it defines public objects (an
        implementation module imports Tensor, Parameter, ... as helpers), else from all its
        attributes (a pure re-exporting package)."""
        out = dict(CURATED_MODULE_ALIASES)
        for modname, all_names in walked.items():
            if modname in out:
                continue
            table = defined.get(modname) or all_names
            votes: Dict[str, int] = {}
            for n, target in table.items():
                tmod, tname = target.rsplit(".", 1)
                if tname == n:
                    votes[tmod] = votes.get(tmod, 0) + 1
            if not votes:
                continue
            best, count = sorted(votes.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            if count >= 2 and count * 10 >= len(table) * 6 and best != modname:
                out[modname] = best
        for m in PRIMARY_MODULES:  # public namespaces are themselves: block parent prefixes
            if m in self.modules:
                out[m] = m
        for m in FOLDED_MODULES:
            out[m] = "mindspore.ops"
        return out

    def canonical(self, q: str, aliases: Dict[str, str], modules: Dict[str, str]) -> str:
        """Same algorithm as msgraphlint.infer.catalog.Catalog.canonical."""
        if q in aliases:
            return aliases[q]
        if q in self.objects or q in self.modules:
            return q
        parts = q.split(".")
        for i in range(len(parts) - 1, 0, -1):
            pre = ".".join(parts[:i])
            rest = ".".join(parts[i:])
            if pre in aliases:
                return aliases[pre] + "." + rest
            if pre in modules:
                return q if modules[pre] == pre else modules[pre] + "." + rest
        return q

    @staticmethod
    def by_prefix(name: str, modules: Dict[str, str]) -> Optional[str]:
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            pre = ".".join(parts[:i])
            if pre in modules:
                return modules[pre] + "." + ".".join(parts[i:])
        return None

    # ---------------------------------------------------------------- deprecations
    def deprecations(self, tensor_methods: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        current = self.version_tuple(self.ms.__version__)
        deprecated: Dict[str, Dict[str, Any]] = {}
        args: Dict[str, Dict[str, Any]] = {}

        def add(name: str, entry: Dict[str, Any]) -> None:
            old = deprecated.get(name)
            if old is None:
                deprecated[name] = entry
                return
            for k, v in entry.items():  # decorator facts win, docstrings fill gaps
                if k not in old or (k == "source" and v not in old[k].split("+")):
                    old[k] = v if k != "source" else old[k] + "+" + v

        objs: List[Tuple[str, Any, Any]] = [(n, o, o) for n, o in sorted(self.objects.items())
                                             if n in self.functions or n in self.classes]
        for n in tensor_methods:
            raw = inspect.getattr_static(self.Tensor, n, None)
            objs.append((f"mindspore.Tensor.{n}", getattr(self.Tensor, n, None), raw))
        for name, obj, raw in objs:
            # (a) the @deprecated decorator of mindspore.common._decorator
            for fn in self.decorated_callables(obj, raw):
                info = self.decorator_info(fn)
                if info:
                    add(name, info)
            # (b) docstrings
            doc = docstring(obj if not isinstance(raw, property) else raw)
            if "eprecat" not in doc:
                continue
            entry, arg_entries = self.doc_deprecation(name, doc, current)
            if entry:
                add(name, entry)
            if arg_entries:
                args.setdefault(name, {}).update(arg_entries)
        # (c) set_context keys (runtime warnings and the removed-key table)
        for key, entry in self.context_key_deprecations().items():
            old = args.setdefault("mindspore.set_context", {}).setdefault(key, {})
            sources = [x for x in (old.get("source", ""), entry["source"]) if x]
            use = old.get("use")
            old.update(entry)
            old["source"] = "+".join(dict.fromkeys(sources))
            if use and re.fullmatch(r"[\w.]+", use):
                old["use"] = use  # the docstring's single API name beats the log's prose
        # (d) deprecated modules (mark_deprecated)
        for mod, entry in self.module_deprecations().items():
            deprecated[mod] = entry
        for name, entry in deprecated.items():
            if "use" in entry:
                entry["use"] = self.normalize_target(entry["use"], name)
                if entry["use"] == name:  # MindSpore's notes sometimes name the API itself
                    del entry["use"]
        for table in args.values():
            for entry in table.values():
                if "use" in entry:
                    entry["use"] = self.normalize_target(entry["use"], "mindspore.x")
        return (dict(sorted(deprecated.items())),
                {k: dict(sorted(v.items())) for k, v in sorted(args.items())})

    @staticmethod
    def version_tuple(v: str) -> Tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", v)[:3])

    def decorated_callables(self, obj: Any, raw: Any) -> Iterable[Any]:
        if isinstance(obj, type):
            for attr in ("__init__", "__new__", "__call__"):
                fn = obj.__dict__.get(attr)
                if fn is not None:
                    yield fn
        else:
            if isinstance(raw, (staticmethod, classmethod)):
                raw = raw.__func__
            yield raw if callable(raw) else obj

    @staticmethod
    def decorator_info(fn: Any) -> Optional[Dict[str, Any]]:
        code = getattr(fn, "__code__", None)
        if code is None or not code.co_filename.replace("\\", "/").endswith("mindspore/common/_decorator.py"):
            return None
        cells = dict(zip(code.co_freevars, [c.cell_contents for c in (fn.__closure__ or ())]))
        info: Dict[str, Any] = {"status": "deprecated", "source": "decorator"}
        if cells.get("version"):
            info["since"] = str(cells["version"])
        if cells.get("substitute"):
            info["use"] = str(cells["substitute"])
        return info

    _REPL_RES = [
        re.compile(r"(?:[Pp]lease\s+)?(?:use|refer to|replaced by|recommended to use)\s+(?:the\s+)?(?:API\s+|api\s+)?"
                   r":(?:func|class|meth|attr):`~?([\w.]+)`"),
        re.compile(r"(?:[Pp]lease\s+)?use\s+``?([\w.]+(?:\(\))?)``?\s+instead"),
        re.compile(r"(?:[Pp]lease\s+)?use\s+([A-Z][\w.]+)\s+instead"),
        re.compile(r"can be replaced by\s+:(?:func|class):`~?([\w.]+)`"),
    ]

    def doc_deprecation(self, name: str, doc: str, current: Tuple[int, ...]
                        ) -> Tuple[Optional[Dict[str, Any]], Dict[str, Dict[str, Any]]]:
        secs = split_sections(doc)
        entry: Optional[Dict[str, Any]] = None
        arg_entries: Dict[str, Dict[str, Any]] = {}
        platforms = secs.get("Supported Platforms", "")
        desc = secs.get("", "")
        sentences = [s for s in re.split(r"(?<=[.;])\s+(?=[A-Z`:-])|\n\s*-\s+|\n\s*\n", desc) if "eprecat" in s]
        api_sentences = []
        for s in sentences:
            flat = " ".join(s.split())
            if re.search(r"\b(parameters?|arguments?)\s+`|\bvalue\s+``|numpy argument|"
                         r"sub-parameter|on Ascend|format is deprecated", flat):
                m = re.search(r"(?:parameters?|arguments?)\s+`(\w+)`", flat) or re.search(r"of\s+`(\w+)`", flat)
                if m and "deprecat" in flat:
                    arg_entries.setdefault(m.group(1), self.parse_note(flat, current))
                continue
            api_sentences.append(flat)
        if api_sentences or re.search(r"\bdeprecated\b", platforms, re.I):
            note = api_sentences[0] if api_sentences else "Supported Platforms: Deprecated"
            entry = self.parse_note(note, current)
            entry["source"] = "docstring"
            if "use" not in entry:
                for s in api_sentences[1:]:
                    more = self.parse_note(s, current)
                    if "use" in more:
                        entry["use"] = more["use"]
                        break
            if "use" not in entry:
                # replacement sometimes sits in the sentence after the deprecation notice
                m = re.search(r"eprecat[^\n]*\n([^\n]*)", desc)
                if m:
                    more = self.parse_note(m.group(0), current)
                    if "use" in more:
                        entry["use"] = more["use"]
        for argname, text in self.doc_args(secs.get("Args", "") + "\n" + secs.get("Keyword Args", "")).items():
            if "eprecat" in text:
                arg_entries[argname] = self.parse_note(text, current)
        for e in arg_entries.values():
            e["source"] = "docstring"
        return entry, arg_entries

    @staticmethod
    def doc_args(args: str) -> Dict[str, str]:
        """Google-style Args: 'name (type): text', nested '- name (type): text' as 'outer.name'."""
        out: Dict[str, str] = {}
        cur, outer, outer_indent = None, None, None
        for line in args.split("\n"):
            m = re.match(r"^(\s*)(-\s+)?(\*{0,2}\w+\*{0,2})\s*(\([^)]*\))?\s*:\s*(.*)$", line)
            if m and (m.group(4) or m.group(2)):
                indent = len(m.group(1))
                argname = m.group(3).strip("*")
                if m.group(2) and outer and outer_indent is not None and indent > outer_indent:
                    cur = f"{outer}.{argname}"
                else:
                    cur, outer, outer_indent = argname, argname, indent
                out[cur] = m.group(5)
            elif cur is not None:
                out[cur] += " " + line.strip()
        return out

    def parse_note(self, text: str, current: Tuple[int, ...]) -> Dict[str, Any]:
        flat = " ".join(text.split())
        entry: Dict[str, Any] = {}
        m = re.search(r"deprecated\s+(?:from|since|in|after)\s+(?:version\s+|MindSpore\s+)?v?(\d+(?:\.\d+)+)", flat, re.I)
        if m:
            entry["since"] = m.group(1)
        m = re.search(r"removed\s+(?:after|in|from)\s+(?:versions?\s+)?v?(\d+(?:\.\d+)+)", flat, re.I)
        if m:
            entry["removal"] = m.group(1)
        pending = bool(re.search(r"will be deprecated|to be deprecated|in the process of being deprecated",
                                 flat, re.I)) and not re.search(
            r"\b(is|are|has been|have been)\s+deprecated|deprecated (from|since)|\bDeprecated\b", flat)
        if pending and "removal" in entry and self.version_tuple(entry["removal"]) < current:
            pending = False
        if re.search(r"(has been|have been|is|are) (deprecated and )?removed\b", flat) and "future" not in flat:
            entry["status"] = "removed"
        else:
            entry["status"] = "pending" if pending else "deprecated"
        for rx in self._REPL_RES:
            mm = rx.search(flat)
            if mm:
                entry["use"] = mm.group(1).rstrip(".")
                break
        else:
            mm = re.search(r"(?:use|Use)\s+(?:the\s+)?(environment variable|env)\s+`+([^`]+)`+", flat)
            if mm:
                entry["use"] = "env " + mm.group(2)
            else:
                mm = re.search(r"use the (?:`(\w+)`|related) parameters? of :func:`([\w.]+)`", flat)
                if mm:
                    entry["use"] = mm.group(2)
                    if mm.group(1):
                        entry["use_arg"] = mm.group(1)
        entry["note"] = flat[:240]
        return entry

    def normalize_target(self, target: str, owner: str) -> str:
        """Dotted replacement names become canonical public names; prose stays as written.

        ``api mindspore.set_device()`` (set_context's own tables) becomes ``mindspore.set_device``;
        ``env MS_DEV_SAVE_GRAPHS`` stays; ``ops.x``/``nn.X``/``Tensor.x`` get their package."""
        t = " ".join(target.split())
        if t.startswith("api "):
            t = ", ".join(x.strip().rstrip("()").strip() for x in t[4:].split(","))
        if re.fullmatch(r"(?:ops|nn|Tensor|mint)\.[\w.]+", t):
            t = "mindspore." + t
        if re.fullmatch(r"[\w.]+", t) and "." in t and self.canon is not None:
            t = self.canon(t)
        if " " in t or "(" in t or "=" in t or "," in t:
            return t
        elif "." not in t:
            owner_mod = owner.rsplit(".", 1)[0]
            for cand in (f"{owner_mod}.{t}", f"mindspore.ops.{t}", f"mindspore.nn.{t}", f"mindspore.{t}"):
                if cand in self.objects:
                    return cand
        return t

    def context_key_deprecations(self) -> Dict[str, Dict[str, Any]]:
        """set_context keys: `_check_context_deprecated` tables and the warnings in set_context."""
        import mindspore.context as ctx
        out: Dict[str, Dict[str, Any]] = {}
        fn = getattr(ctx, "_check_context_deprecated", None)
        if fn is not None:
            tree = ast.parse(inspect.getsource(fn))
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                    try:
                        val = ast.literal_eval(node.value)
                    except ValueError:
                        continue
                    if node.targets[0].id == "deprecated_context_dict":
                        for k, v in val.items():
                            e: Dict[str, Any] = {"status": "deprecated", "source": "warning"}
                            v = " ".join(str(v).split())
                            if v:
                                e["use"] = v
                            out[k] = e
                    elif node.targets[0].id == "invalid_context_dict":
                        for k, v in val.items():
                            e = {"status": "removed", "source": "error", "since": str(v.get("version", ""))}
                            if v.get("interface"):
                                e["use"] = str(v["interface"])
                            out[k] = e
        src = inspect.getsource(ctx.set_context)
        tree = ast.parse(src.lstrip())
        for node in ast.walk(tree):
            if not isinstance(node, ast.If):
                continue
            keys = self.if_key_names(node.test)
            if not keys:
                continue
            texts = []
            for sub in node.body:
                for call in ast.walk(sub):
                    if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "warning":
                        texts.append("".join(
                            c.value for a in call.args for c in ast.walk(a)
                            if isinstance(c, ast.Constant) and isinstance(c.value, str)))
            text = " ".join(texts)
            if "deprecated" not in text:
                continue
            for k in keys:
                e = out.setdefault(k, {"status": "deprecated", "source": "warning"})
                m = re.search(r"[Pp]lease use (?:environ variable |the )?(.+?) instead", text)
                if m and "use" not in e:
                    e["use"] = m.group(1).strip("'\" ")
        return out

    @staticmethod
    def if_key_names(test: ast.AST) -> List[str]:
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "key":
            comp = test.comparators[0]
            if isinstance(test.ops[0], ast.Eq) and isinstance(comp, ast.Constant):
                return [comp.value]
            if isinstance(test.ops[0], ast.In) and isinstance(comp, (ast.Tuple, ast.List)):
                return [e.value for e in comp.elts if isinstance(e, ast.Constant)]
        return []

    def module_deprecations(self) -> Dict[str, Dict[str, Any]]:
        """Modules that call ``mark_deprecated(__name__, NEW)`` at import time."""
        root = Path(self.ms.__file__).parent
        out: Dict[str, Dict[str, Any]] = {}
        default_version = None
        try:
            from mindspore.graph import _mark_deprecated as md
            default_version = inspect.signature(md.mark_deprecated).parameters["version"].default
        except Exception:  # noqa: BLE001
            pass
        rx = re.compile(r"^mark_deprecated\(\s*__name__\s*,\s*['\"]([\w.]+)['\"]\s*(?:,\s*(?:version\s*=\s*)?"
                        r"['\"]([\d.]+)['\"])?\s*\)", re.M)
        paths = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in ("_akg", "dataset", "lib", "include",
                                                                  "__pycache__", "Third_Party_Open_Source_Software_Notice"))
            paths.extend(Path(dirpath) / f for f in filenames if f.endswith(".py"))
        for path in sorted(paths):
            rel = path.relative_to(root.parent)
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if "mark_deprecated(" not in text:
                continue
            for m in rx.finditer(text):
                mod = ".".join(rel.with_suffix("").parts)
                if mod.endswith(".__init__"):
                    mod = mod[: -len(".__init__")]
                e = {"kind": "module", "status": "deprecated", "source": "module", "use": m.group(1)}
                if m.group(2) or default_version:
                    e["since"] = m.group(2) or str(default_version)
                out[mod] = e
        return out

    def check_curated(self, tmethods: Dict[str, Any]) -> None:
        """Curated names that no longer exist (a MindSpore upgrade renamed them): warn."""
        tables = {
            "CONST_FUNCTIONS": CONST_FUNCTIONS, "HOST_FUNCTIONS": HOST_FUNCTIONS,
            "NONE_FUNCTIONS": NONE_FUNCTIONS, "UNKNOWN_FUNCTIONS": UNKNOWN_FUNCTIONS,
            "TENSOR_FUNCTIONS": TENSOR_FUNCTIONS, "DYNAMIC_SHAPE": DYNAMIC_SHAPE,
            "DYNAMIC_SHAPE_CONDITIONAL": set(DYNAMIC_SHAPE_CONDITIONAL),
            "EXTRA_INPLACE_FUNCTIONS": EXTRA_INPLACE_FUNCTIONS, "CONDITIONAL_INPLACE": set(CONDITIONAL_INPLACE),
            "CONST_PRIMITIVES": CONST_PRIMITIVES,
        }
        for table, names in tables.items():
            for name in sorted(names):
                if name not in self.functions and name not in self.classes:
                    print(f"gen_catalog: {table}: {name} is not in this MindSpore", file=sys.stderr)
        for table, names in (("TENSOR_HOST", TENSOR_HOST), ("TENSOR_CONST", TENSOR_CONST),
                             ("TENSOR_INPLACE_EXTRA", TENSOR_INPLACE_EXTRA),
                             ("TENSOR_DYNAMIC_SHAPE", TENSOR_DYNAMIC_SHAPE)):
            for name in sorted(names):
                if name not in tmethods:
                    print(f"gen_catalog: {table}: Tensor.{name} is not in this MindSpore", file=sys.stderr)

    # ---------------------------------------------------------------- graph-mode registries
    def jit_forbidden(self) -> Dict[str, Any]:
        """MindSpore's own registry of what graph mode rejects
        (``mindspore/graph/_utils/check_jit_forbidden_api.py``): the methods decorated with
        ``@jit_forbidden_register`` (keyed by their public spelling, ``mindspore.nn.Cell.to``)
        and the modules registered with ``add_jit_forbidden_module``, with the public names
        whose object lives in one of those modules (``mindspore.get_context``)."""
        try:
            from mindspore.graph._utils import check_jit_forbidden_api as reg
        except ImportError:  # before 2.9: mindspore/_check_jit_forbidden_api.py
            from mindspore import _check_jit_forbidden_api as reg
        modules = sorted(reg.get_jit_forbidden_module())
        methods: Dict[str, str] = {}
        for impl in sorted(reg.get_jit_forbidden_method()):
            owner, obj = self.resolve_impl(impl)
            if owner is None:
                methods[impl] = impl
                continue
            mname = impl[len(owner) + 1:] if impl.startswith(owner + ".") else impl.rsplit(".", 1)[1]
            pub_owner = self.public_name_of(obj) if obj is not None else None
            if mname == "__init__":  # a forbidden constructor: the class itself
                methods[pub_owner or owner] = impl
            else:
                methods[f"{pub_owner or owner}.{mname.rsplit('.', 1)[-1]}"] = impl
        names: Dict[str, str] = {}
        for name, obj in sorted(self.objects.items()):
            mod = getattr(obj, "__module__", None)
            if isinstance(mod, str) and mod in modules:
                names[name] = mod
        return {"methods": dict(sorted(methods.items())), "modules": modules, "names": names}

    @staticmethod
    def resolve_impl(impl: str) -> Tuple[Optional[str], Any]:
        """``pkg.mod.Class.method`` -> (``pkg.mod.Class``, the class object); (None, None)
        when the dotted path does not lead to a class."""
        parts = impl.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = sys.modules.get(".".join(parts[:cut]))
            if mod is None:
                continue
            obj: Any = mod
            for i, p in enumerate(parts[cut:-1]):
                obj = getattr(obj, p, None)
                if obj is None:
                    return None, None
            if isinstance(obj, type):
                return ".".join(parts[:-1]), obj
            return None, None
        return None, None

    def graph_builtins(self) -> Dict[str, Any]:
        """What the graph parser does with Python builtins and the standard library, read
        from its own tables (``mindspore/graph/_parse/resources.py`` and ``parser.py``):

        * ``converted``: builtins the parser turns into graph operations
          (``convert_object_map``, plus the type calls of ``convert_class_to_function_map``);
        * ``constant_folded``: functions the parser folds when their arguments are constants;
        * ``unsupported_types``: builtin types the parser rejects as external types
          (``_unsupported_python_builtin_type``);
        * ``interpreted_builtins``: every other builtin function (not in the convert map):
          the parser classes it as an unsupported namespace and hands it to the interpreter
          (JIT Fallback, PyExecute);
        * ``converted_stdlib``: standard-library functions in the convert map
          (``functools.partial``, ``operator.add`` ...);
        * ``interpreted_stdlib``: top-level standard-library modules, which the parser's
          third-party check (``jit_fallback_modules/check_utils.py``: a module under the
          Python install and not under site-packages, or a builtin module) sends to the
          interpreter. Computed from this interpreter's ``sys.stdlib_module_names`` with
          ``importlib.util.find_spec`` (nothing is imported)."""
        import builtins
        import importlib.util
        try:
            from mindspore.graph._parse import parser as P
            from mindspore.graph._parse import resources as R
        except ImportError:  # before 2.9: mindspore/_extends/parse/
            from mindspore._extends.parse import parser as P
            from mindspore._extends.parse import resources as R
        conv = R.convert_object_map
        converted, stdlib_conv = set(), set()
        for obj in list(conv):
            mod = getattr(obj, "__module__", None)
            name = getattr(obj, "__name__", None)
            if not isinstance(name, str):
                continue
            if getattr(builtins, name, None) is obj:
                converted.add(name)
            elif mod in ("_operator", "operator", "functools", "_functools"):
                stdlib_conv.add(f"{mod.lstrip('_')}.{name}")
        for key in R.convert_class_to_function_map:
            m = re.fullmatch(r"class '(\w+)'", key)
            if m:
                converted.add(m.group(1))
        folded = sorted({f.__name__ for f in R.constant_fold_functions
                         if getattr(builtins, getattr(f, "__name__", ""), None) is f})
        unsupported = sorted(t.__name__ for t in P._unsupported_python_builtin_type)
        bf_type = type(abs)
        interpreted = sorted(n for n, v in vars(builtins).items()
                             if isinstance(v, bf_type) and not n.startswith("_") and v not in conv
                             and n not in converted)
        base = os.path.realpath(os.path.dirname(os.__file__))
        stdlib = []
        for name in sorted(getattr(sys, "stdlib_module_names", ())):
            if name.startswith("_") or name in ("this", "antigravity"):
                continue
            if name in sys.builtin_module_names:
                stdlib.append(name)
                continue
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                continue
            origin = getattr(spec, "origin", None) if spec is not None else None
            if origin in ("built-in", "frozen"):
                stdlib.append(name)
            elif origin and os.path.realpath(origin).startswith(base) and "site-packages" not in origin:
                stdlib.append(name)
        return {"converted": sorted(converted), "constant_folded": folded, "unsupported_types": unsupported,
                "interpreted_builtins": interpreted, "converted_stdlib": sorted(stdlib_conv),
                "interpreted_stdlib": stdlib}

    # ---------------------------------------------------------------- Tensor method overloads
    # where the signature strings are compiled in: libmindspore_common.so from 2.8,
    # libmindspore_frontend.so in 2.7 (measured: `Tensor.add(other=<` occurs in one of them)
    OVERLOAD_LIBRARIES = ("libmindspore_common.so", "libmindspore_frontend.so")
    _SIG_RE = re.compile(rb"(?<=\x00)(Tensor\.([A-Za-z_][A-Za-z0-9_]*)\(([^\x00()]*)\))(?=\x00)")
    _SIG_PARAM_RE = re.compile(r"\*|([A-Za-z_][A-Za-z0-9_]*)=<([A-Za-z_,]+)>")

    def tensor_overloads(self, tmethods: Dict[str, Any]) -> Dict[str, List[Dict[str, Any]]]:
        """The overloads graph mode dispatches a Tensor method call to, as MindSpore 2.10 prints
        them in its ``The valid calling should be:`` error: the signature strings compiled into
        ``lib/libmindspore_common.so`` (``libmindspore_frontend.so`` in 2.7) (``Tensor.add(other=<number>, *, alpha=<number>)``), read
        as NUL-terminated strings of that exact shape.  Each becomes ``{"text", "params"}`` with
        every parameter's name, accepted types, whether it is keyword-only and whether it is
        required (``req``: from the method's own docstring signature with the same parameter
        names, ``add(other, *, alpha=1)``; null when no docstring signature matches); ``varargs``
        is true when the docstring spells the first parameter ``*name`` (``reshape(*shape)``).
        Only names that are methods of this MindSpore's Tensor are kept."""
        blobs = []
        for lib in self.OVERLOAD_LIBRARIES:
            path = os.path.join(os.path.dirname(self.ms.__file__), "lib", lib)
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    blobs.append(fh.read())
        out: Dict[str, List[Dict[str, Any]]] = {}
        for m in (m for blob in blobs for m in self._SIG_RE.finditer(blob)):
            text, name, inner = (g.decode("ascii") for g in m.groups())
            if name not in tmethods or tmethods[name].get("property"):
                continue
            tokens = self._SIG_PARAM_RE.findall(inner)
            if re.sub(r"[\s,]", "", inner) != re.sub(r",", "", "".join(f"{n}=<{t}>" if n else "*" for n, t in tokens)):
                raise SystemExit(f"gen_catalog: unexpected overload signature {text!r}")
            params, kw = [], False
            for n, t in tokens:
                if not n:
                    kw = True
                    continue
                params.append({"name": n, "types": t.split(","), "kw": kw})
            entries = out.setdefault(name, [])
            if all(e["text"] != text for e in entries):
                entries.append({"text": text, "params": params})
        for name, entries in out.items():
            docs = self.doc_signatures(name)
            for e in entries:
                names = [p["name"] for p in e["params"]]
                match = next((d for d in docs if [a[0] for a in d] == names), None)
                e["varargs"] = bool(match) and len(match) == 1 and match[0][1] == "*"
                for i, p in enumerate(e["params"]):
                    p["req"] = None if match is None else match[i][1] in ("", "*") and not e["varargs"]
            entries.sort(key=lambda e: e["text"])
        return dict(sorted(out.items()))

    def doc_signatures(self, name: str) -> List[List[Tuple[str, str]]]:
        """The signatures a Tensor method's docstring states (``add(other, *, alpha=1) -> Tensor``
        and ``.. method:: Tensor.add(...)`` lines): per parameter (name, "" for required,
        "=" with a default, "*" for ``*name``)."""
        doc = inspect.getdoc(getattr(self.Tensor, name, None)) or ""
        pat = re.compile(r"^\s*(?:\.\. method::\s*)?(?:Tensor\.)?%s\((.*)\)\s*(?:->.*)?$" % re.escape(name))
        sigs = []
        for line in doc.splitlines():
            mm = pat.match(line)
            if not mm:
                continue
            try:
                fn = ast.parse(f"def f({mm.group(1)}): pass").body[0].args
            except SyntaxError:
                continue
            pos = fn.posonlyargs + fn.args
            first_default = len(pos) - len(fn.defaults)
            sig = [(a.arg, "=" if i >= first_default else "") for i, a in enumerate(pos)]
            if fn.vararg is not None:
                sig.append((fn.vararg.arg, "*"))
            sig += [(a.arg, "" if d is None else "=") for a, d in zip(fn.kwonlyargs, fn.kw_defaults)]
            if sig and sig[0][0] == "self":
                sig = sig[1:]
            sigs.append(sig)
        return sigs

    # ---------------------------------------------------------------- assemble
    def build(self) -> Dict[str, Any]:
        self.collect()
        rw = self.rw_write_primitives()
        self.classify_functions(rw)
        self.classify_classes(rw)
        self.record_signatures()
        tmethods = self.tensor_methods()
        pmethods = self.parameter_methods(tmethods)
        aliases, module_aliases = self.aliases()
        self.canon = lambda q: self.canonical(q, aliases, module_aliases)
        deprecated, deprecated_args = self.deprecations(tmethods)
        self.check_curated(tmethods)
        return {
            "format": FORMAT,
            "version": self.ms.__version__,
            "generator": "scripts/gen_catalog.py",
            "modules": sorted(self.modules),
            "functions": dict(sorted(self.functions.items())),
            "classes": dict(sorted(self.classes.items())),
            "tensor_methods": tmethods,
            "parameter_methods": pmethods,
            "dtypes": sorted(self.dtypes),
            "constants": dict(sorted(self.constants.items())),
            "aliases": aliases,
            "module_aliases": module_aliases,
            "deprecated": deprecated,
            "deprecated_args": deprecated_args,
            "jit_forbidden": self.jit_forbidden(),
            "graph_builtins": self.graph_builtins(),
            "tensor_overloads": self.tensor_overloads(tmethods),
        }


def dumps(data: Dict[str, Any]) -> str:
    """Compact JSON with one catalog entry per line (readable diffs, small file)."""
    def enc(v: Any) -> str:
        return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

    parts = []
    for k, v in data.items():
        if isinstance(v, dict) and v:
            body = ",\n".join(f"{enc(ik)}:{enc(iv)}" for ik, iv in sorted(v.items()))
            parts.append(f"{enc(k)}:{{\n{body}\n}}")
        elif isinstance(v, list) and v:
            parts.append(f"{enc(k)}:[\n" + ",\n".join(enc(x) for x in v) + "\n]")
        else:
            parts.append(f"{enc(k)}:{enc(v)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


# --------------------------------------------------------------------------------------
# Older releases: what differs from the base (the newest release, DEFAULT_OUTPUT)
# --------------------------------------------------------------------------------------
DELTA_FORMAT = 1


def _catalog_module():
    """msgraphlint/infer/catalog.py, loaded from this checkout (pure Python: the interpreter running
    this script may be a bare venv holding only MindSpore). Its ``apply_delta`` reads what
    :func:`make_delta` writes."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_msgraphlint_catalog", REPO / "msgraphlint" / "catalog.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def make_delta(base: Dict[str, Any], full: Dict[str, Any]) -> Dict[str, Any]:
    """What ``full`` changes in ``base``, per top-level table (see catalog.apply_delta)."""
    out: Dict[str, Any] = {}
    for key in sorted(set(base) | set(full)):
        b, f = base.get(key), full.get(key)
        if b == f or key == "version":
            continue
        if isinstance(b, dict) and isinstance(f, dict):
            out[key] = {"set": {k: v for k, v in sorted(f.items()) if k not in b or b[k] != v},
                        "drop": sorted(k for k in b if k not in f)}
        elif (isinstance(b, list) and isinstance(f, list) and all(isinstance(x, str) for x in b + f)
              and b == sorted(set(b)) and f == sorted(set(f))):
            out[key] = {"add": sorted(set(f) - set(b)), "drop": sorted(set(b) - set(f))}
        else:
            out[key] = {"value": f}
    return out


def version_path(version: str, base_path: Path = DEFAULT_OUTPUT) -> Path:
    return base_path.parent / f"mindspore_api-{version}.json"


def version_document(full: Dict[str, Any], base_path: Path = DEFAULT_OUTPUT) -> Dict[str, Any]:
    """The file for one older release: its differences from the base, or ``same_as`` another
    release of its minor whose catalog generated equal (a patch release that changed
    nothing the catalog records)."""
    import hashlib
    raw = base_path.read_bytes()
    base = json.loads(raw)
    version = str(full["version"])
    if version == base.get("version"):
        raise SystemExit(f"gen_catalog: MindSpore {version} is the base ({base_path}); run without --version-delta")
    cat = _catalog_module()
    doc: Dict[str, Any] = {"format": DELTA_FORMAT, "version": version, "base": base.get("version"),
                           "base_sha256": hashlib.sha256(raw).hexdigest(),
                           "generator": "scripts/gen_catalog.py --version-delta"}
    minor = cat.version_key(version)[:2]
    for other in sorted(base_path.parent.glob("mindspore_api-*.json")):
        ov = other.name[len("mindspore_api-"):-len(".json")]
        if ov == version or cat.version_key(ov)[:2] != minor or cat.version_key(ov) > cat.version_key(version):
            continue
        odoc = json.loads(other.read_text(encoding="utf-8"))
        if odoc.get("same_as") or odoc.get("base_sha256") != doc["base_sha256"]:
            continue
        if dict(cat.apply_delta(base, odoc["delta"]), version=version) == full:
            doc["same_as"] = ov
            return doc
    doc["delta"] = make_delta(base, full)
    if dict(cat.apply_delta(base, doc["delta"]), version=version) != full:
        raise SystemExit("gen_catalog: the delta does not give back the catalog (a bug in make_delta/apply_delta)")
    return doc


def dumps_version(doc: Dict[str, Any]) -> str:
    """One changed entry per line, like :func:`dumps`."""
    def enc(v: Any) -> str:
        return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

    head = [f"{enc(k)}:{enc(v)}" for k, v in doc.items() if k != "delta"]
    if "delta" not in doc:
        return "{\n" + ",\n".join(head) + "\n}\n"
    tables = []
    for key, change in doc["delta"].items():
        parts = []
        for op, val in change.items():
            if isinstance(val, dict) and val:
                parts.append(f"{enc(op)}:{{\n" + ",\n".join(f"{enc(k)}:{enc(v)}" for k, v in val.items()) + "\n}")
            elif isinstance(val, list) and val:
                parts.append(f"{enc(op)}:[\n" + ",\n".join(enc(x) for x in val) + "\n]")
            else:
                parts.append(f"{enc(op)}:{enc(val)}")
        tables.append(f"{enc(key)}:{{\n" + ",\n".join(parts) + "\n}")
    return "{\n" + ",\n".join(head) + ',\n"delta":{\n' + ",\n".join(tables) + "\n}\n}\n"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--output", "-o", type=Path, default=DEFAULT_OUTPUT)
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 on difference")
    ap.add_argument("--version-delta", action="store_true",
                    help="an older release: write mindspore_api-<version>.json beside --output (the base, the "
                         "newest release) holding what this MindSpore's catalog changes in it")
    ns = ap.parse_args(argv)
    if ns.version_delta:
        doc = version_document(Generator().build(), ns.output)
        out = version_path(doc["version"], ns.output)
        text = dumps_version(doc)
        if ns.check:
            old = out.read_text(encoding="utf-8") if out.exists() else ""
            if old != text:
                print(f"{out} is out of date; run scripts/gen_catalog.py --version-delta with MindSpore "
                      f"{doc['version']}", file=sys.stderr)
                return 1
            return 0
        out.write_text(text, encoding="utf-8")
        what = f"same as {doc['same_as']}" if doc.get("same_as") else f"{len(doc['delta'])} tables differ"
        print(f"wrote {out} ({len(text.encode())} bytes; {what})")
        return 0
    text = dumps(Generator().build())
    if ns.check:
        old = ns.output.read_text(encoding="utf-8") if ns.output.exists() else ""
        if old != text:
            print(f"{ns.output} is out of date; run scripts/gen_catalog.py", file=sys.stderr)
            return 1
        return 0
    ns.output.parent.mkdir(parents=True, exist_ok=True)
    ns.output.write_text(text, encoding="utf-8")
    print(f"wrote {ns.output} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

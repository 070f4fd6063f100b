"""The kinds of values in graph-mode code, and how two kinds combine.

A ``Kind`` says what an expression holds as far as MindSpore's graph compiler is concerned:
a run-time tensor, a Parameter, a compile-time Python value, a Cell, a host value pulled
out of a tensor, ... ``merge`` is the join at control-flow merges and across call sites
(the kinds a parameter gets from several callers). ``ClassInfo`` answers the kind of a
``self.<attr>`` from the class's ``__init__`` assignments.

Where kinds come from: ``values.py`` (the flow walker: one forward pass per scope
function) and ``paramkinds.py`` (the evidence about a scope's own parameters: callers'
arguments, annotations, defaults, how the body uses the name).
"""

from __future__ import annotations

import enum
from typing import Dict, Iterable


class Kind(enum.Enum):
    TENSOR = "tensor"
    PARAMETER = "parameter"
    CONST = "const"          # a compile-time Python value (shape, dtype, literal, config)
    NONE = "none"
    OPTIONAL = "optional"    # a tensor or None (argument defaulting to None)
    CELL = "cell"
    CONTAINER = "container"  # CellList / SequentialCell
    PRIMITIVE = "primitive"  # an ops.Primitive instance
    PYLIST = "pylist"        # a mutable Python list
    PYDICT = "pydict"
    HOST = "host"            # a Python/numpy value computed from tensor data at run time
    FUNC = "func"
    MODULE = "module"
    UNKNOWN = "unknown"

    @property
    def tensor_like(self) -> bool:
        return self in (Kind.TENSOR, Kind.PARAMETER)

    @property
    def constant(self) -> bool:
        return self in (Kind.CONST, Kind.NONE)


_ATTR_KIND = {
    "cell": Kind.CELL, "container": Kind.CONTAINER, "parameter": Kind.PARAMETER, "tensor": Kind.TENSOR,
    "primitive": Kind.PRIMITIVE, "const": Kind.CONST, "none": Kind.NONE, "pylist": Kind.PYLIST,
    "pydict": Kind.PYDICT, "optional": Kind.OPTIONAL, "unknown": Kind.UNKNOWN,
}
_CELL_CONST_ATTRS = frozenset({"training", "phase", "cls_name"})


def merge(a: Kind, b: Kind) -> Kind:
    if a is b:
        return a
    pair = {a, b}
    if Kind.NONE in pair and (pair - {Kind.NONE}) <= {Kind.TENSOR, Kind.PARAMETER, Kind.OPTIONAL}:
        return Kind.OPTIONAL
    if pair <= {Kind.TENSOR, Kind.PARAMETER}:
        return Kind.TENSOR
    if pair <= {Kind.TENSOR, Kind.OPTIONAL, Kind.PARAMETER}:
        return Kind.OPTIONAL
    if pair <= {Kind.CONST, Kind.NONE}:
        return Kind.CONST
    return Kind.UNKNOWN


class ClassInfo:
    """Attribute kinds of a class, merged over its project MRO."""

    def __init__(self, attrs: Dict[str, str], is_cell: bool, methods: Iterable[str], resolve_call=None) -> None:
        self.attrs = attrs
        self.is_cell = is_cell
        self.methods = frozenset(methods)
        self._resolve_call = resolve_call

    def attr(self, name: str) -> Kind:
        if name in self.attrs:
            raw = self.attrs[name]
            if raw.startswith("call:"):
                return self._resolve_call(raw[5:]) if self._resolve_call else Kind.UNKNOWN
            return _ATTR_KIND.get(raw, Kind.UNKNOWN)
        if self.is_cell and name in _CELL_CONST_ATTRS:
            return Kind.CONST
        if name in self.methods:
            return Kind.FUNC
        return Kind.UNKNOWN

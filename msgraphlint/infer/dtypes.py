"""Tensor dtypes the code spells, without importing MindSpore.

``dtype_name`` reads a dtype expression (``ms.float32``, ``mstype.int64``) from its
normalised dotted name; ``literal_dtype`` gives the dtype MindSpore 2.10 picks for
``Tensor(data)`` without ``dtype=`` when ``data`` is a literal (measured on 2.10 CPU:
``Tensor([1])`` and ``Tensor(2)`` are Int64, ``Tensor([1.0])`` and ``Tensor(2.0)`` Float32,
``Tensor(True)`` Bool); ``constructed_dtype`` the dtype of a ``Tensor(...)`` call.
Anything else is unknown (None).
"""

from __future__ import annotations

import ast
from typing import Callable, Optional

_DTYPES = {"float16": "float16", "half": "float16", "float32": "float32", "single": "float32",
           "float64": "float64", "double": "float64", "bfloat16": "bfloat16", "int8": "int8", "int16": "int16",
           "int32": "int32", "int64": "int64", "uint8": "uint8", "bool_": "bool", "complex64": "complex64"}
TENSOR_MAKERS = frozenset({"mindspore.Tensor", "mindspore.tensor"})
_NUMPY = {"float16": "float16", "half": "float16", "float32": "float32", "single": "float32", "float64": "float64",
          "float_": "float64", "double": "float64", "int8": "int8", "int16": "int16", "int32": "int32",
          "int64": "int64", "uint8": "uint8", "bool_": "bool"}
# numpy constructors and the position of their dtype argument
_NUMPY_DTYPE_POS = {"array": 1, "asarray": 1, "ones": 1, "zeros": 1, "empty": 1, "full": 2}


def dtype_name(dotted: Optional[str]) -> Optional[str]:
    """``mindspore.float32`` (any MindSpore module spelling) -> ``float32``."""
    if not dotted or not dotted.startswith("mindspore."):
        return None
    return _DTYPES.get(dotted.rsplit(".", 1)[-1])


def literal_dtype(data: ast.AST) -> Optional[str]:
    leaves = []
    stack = [data]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.List, ast.Tuple)):
            stack.extend(n.elts)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant):
            leaves.append(n.operand.value)
        elif isinstance(n, ast.Constant):
            leaves.append(n.value)
        else:
            return None
    types = {type(v) for v in leaves}
    if not types:
        return None
    if types == {bool}:
        return "bool"
    if types <= {int, bool}:
        return "int64"
    if types <= {int, float, bool}:
        return "float32"
    return None


def constructed_dtype(call: ast.AST, dotted: Callable[[ast.AST], Optional[str]]) -> Optional[str]:
    """The dtype of ``Tensor(data[, dtype])`` / ``ms.tensor(...)``; ``dotted`` spells a
    node's normalised dotted name."""
    if not isinstance(call, ast.Call) or dotted(call.func) not in TENSOR_MAKERS:
        return None
    dt = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "dtype"), None)
    if dt is not None:
        return dtype_name(dotted(dt))
    if not call.args:
        return None
    return literal_dtype(call.args[0]) or numpy_dtype(call.args[0], dotted)


def numpy_dtype(e: ast.AST, dotted: Callable[[ast.AST], Optional[str]]) -> Optional[str]:
    """The dtype a NumPy array expression spells: ``np.ones(shape, np.int32)``,
    ``np.array(data, dtype=np.float32)``, ``arr.astype(np.float16)`` (``np.float_`` is
    float64). A ``Tensor`` made from it keeps that dtype."""
    if not isinstance(e, ast.Call):
        return None
    if isinstance(e.func, ast.Attribute) and e.func.attr == "astype" and len(e.args) == 1:
        d = dotted(e.args[0]) or ""
        return _NUMPY.get(d[6:]) if d.startswith("numpy.") else None
    d = dotted(e.func) or ""
    if not d.startswith("numpy.") or d[6:] not in _NUMPY_DTYPE_POS:
        return None
    pos = _NUMPY_DTYPE_POS[d[6:]]
    dt = e.args[pos] if len(e.args) > pos else next((k.value for k in e.keywords if k.arg == "dtype"), None)
    q = dotted(dt) if dt is not None else None
    return _NUMPY.get(q[6:]) if q and q.startswith("numpy.") else None

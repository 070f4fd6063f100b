"""``--inputs`` and ``--shapes``: the input-spec grammar and the variants a ``--shapes`` run
calls. Pure Python (the compile child imports it too); every mistake is an
:class:`InputError` whose message names the bad spec.

Input specs: ``2x64x256:float32``, ``1x1x64x64:bool``, ``scalar:int32`` (0-d),
``2x?x256:float32`` (a dynamic dim, for ``set_inputs``), ``py:0.5`` (a Python value).
Dims may be names that ``--shapes NAME=V1,V2`` sets (``2xSEQx256:float32``; a name is any
identifier, ``max_len`` included), and ``py:NAME`` takes the value itself, keeping its kind
(``1.0`` a float, ``2`` an int: a Python scalar, never a tensor).
"""

from __future__ import annotations

import ast
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

DTYPES = {
    "float32": "float32", "f32": "float32", "float": "float32",
    "float16": "float16", "f16": "float16", "half": "float16",
    "float64": "float64", "f64": "float64", "double": "float64",
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "int32": "int32", "i32": "int32", "int64": "int64", "i64": "int64", "int": "int64",
    "int8": "int8", "uint8": "uint8", "int16": "int16",
    "bool": "bool",
}
_DYNAMIC = ("?", "-1", "none")


class InputError(ValueError):
    """A malformed ``--inputs``/``--shapes`` value (a usage error: exit 2)."""


def split_dims(dims: str, names: Iterable[str] = ()) -> List[str]:
    """``"2xmax_lenx256"`` with the name ``max_len`` -> ``["2", "max_len", "256"]``: the
    known names are matched first (longest first), so a name may contain ``x``."""
    if not dims:
        return []
    by_length = sorted(set(names), key=len, reverse=True)
    out, i = [], 0
    while i <= len(dims):
        for name in by_length:
            j = i + len(name)
            if name and dims.startswith(name, i) and (j == len(dims) or dims[j] == "x"):
                out.append(name)
                i = j + 1
                break
        else:
            j = dims.find("x", i)
            j = len(dims) if j < 0 else j
            out.append(dims[i:j])
            i = j + 1
    return out


def parse_input_spec(text) -> Tuple[str, object, Optional[str]]:
    """``"2x64x256:float32"`` -> ("tensor", [2, 64, 256], "float32");
    ``"2x?x256:float32"`` -> dims with None (dynamic, for set_inputs);
    ``":float32"`` or ``"scalar:float32"`` -> a 0-d tensor;
    ``"py:3"`` / ``"py:0.5"`` / ``"py:None"`` / ``"py:(1, 2)"`` -> a Python value."""
    text = str(text).strip()
    if text.startswith("py:"):
        try:
            return ("py", ast.literal_eval(text[3:].strip()), None)
        except (ValueError, SyntaxError):
            raise InputError(f"input spec {text!r}: py: takes a Python literal (py:0.5, py:3, py:None)") from None
    if ":" in text:
        dims_text, dtype_text = text.rsplit(":", 1)
    else:
        dims_text, dtype_text = text, "float32"
    dtype = DTYPES.get(dtype_text.strip().lower())
    if dtype is None:
        raise InputError(f"input spec {text!r}: unknown dtype {dtype_text.strip()!r} "
                         f"(one of {', '.join(sorted(set(DTYPES.values())))})")
    dims_text = dims_text.strip()
    dims: List[Optional[int]] = []
    if dims_text and dims_text != "scalar":
        for part in dims_text.split("x"):
            part = part.strip()
            if part.lower() in _DYNAMIC:
                dims.append(None)
                continue
            try:
                value = int(part)
            except ValueError:
                raise InputError(f"input spec {text!r}: {part!r} is not a dim (an int, '?', or a name "
                                 "given a value with --shapes NAME=...)") from None
            if value < 0:
                raise InputError(f"input spec {text!r}: negative dim {value}")
            dims.append(value)
    return ("tensor", dims, dtype)


def parse_shapes(values: Sequence[str]) -> Dict[str, List[str]]:
    """``("seq=64,128,96",)`` -> ``{"seq": ["64", "128", "96"]}``."""
    out: Dict[str, List[str]] = {}
    for v in values or ():
        if "=" not in v:
            raise InputError(f"--shapes: expected NAME=V1,V2,... , got {v!r}")
        name, _, vals = v.partition("=")
        name = name.strip()
        if not name.isidentifier():
            raise InputError(f"--shapes: {name!r} is not a name (an identifier: seq, max_len, SEQ)")
        items = [x.strip() for x in vals.split(",") if x.strip()]
        if not items:
            raise InputError(f"--shapes: no values in {v!r}")
        if name in out:
            raise InputError(f"--shapes: {name!r} is given twice")
        out[name] = items
    if len({len(x) for x in out.values()}) > 1:
        raise InputError("--shapes: all names need the same number of values")
    return out


def literal(text: str):
    """A ``--shapes`` value for ``make_inputs(**kwargs)``: int, float, other literal, or the text."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def substitute(items: Sequence[str], values: Dict[str, str]) -> List[str]:
    """Replace names in ``--inputs`` specs (``2xSEQx256:float32``, ``py:SCALE``) by values."""
    out = []
    for item in items:
        if item.startswith("py:"):
            name = item[3:].strip()
            out.append("py:" + values[name] if name in values else item)
            continue
        dims, sep, dtype = item.rpartition(":") if ":" in item else (item, "", "")
        parts = [values.get(p.strip(), p) for p in split_dims(dims, values)]
        out.append("x".join(parts) + (sep + dtype if sep else ""))
    return out


def names_in(items: Sequence[str], names: Iterable[str]) -> set:
    """Which of ``names`` the specs use (as a dim or as ``py:NAME``)."""
    names = set(names)
    used = set()
    for item in items:
        if item.startswith("py:"):
            if item[3:].strip() in names:
                used.add(item[3:].strip())
            continue
        dims = item.rpartition(":")[0] if ":" in item else item
        used |= {p.strip() for p in split_dims(dims, names)} & names
    return used


def input_variants(inputs: Sequence[str], shapes: Dict[str, List[str]]) -> List[List[str]]:
    """The ``--inputs`` of each ``--shapes`` run (one run when there are no shapes), checked."""
    unused = sorted(set(shapes) - names_in(inputs, shapes))
    if unused:
        raise InputError(f"--shapes name {unused[0]!r} is used by no --inputs spec "
                         f"(write it as a dim, 2x{unused[0]}x256:float32, or as py:{unused[0]})")
    n = len(next(iter(shapes.values()))) if shapes else 1
    variants = [substitute(inputs, {k: v[i] for k, v in shapes.items()}) for i in range(n)]
    for variant in variants:
        for item in variant:
            kind, dims, _ = parse_input_spec(item)
            if kind == "tensor" and any(d is None for d in dims):
                raise InputError(f"input spec {item!r}: a dynamic dim ('?') is for set_inputs only; "
                                 "give a size, or a name set by --shapes")
    return variants

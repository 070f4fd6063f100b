#!/usr/bin/env python
"""Per pair of neighbouring MindSpore releases, how many public names appear, disappear or
change signature, read from the bundled per-release catalogs (msgraphlint/infer/catalog.py; no
MindSpore needed).

    .venv/bin/python scripts/catalog_diff.py                  # one row per pair (markdown)
    .venv/bin/python scripts/catalog_diff.py --by-namespace   # split by namespace
    .venv/bin/python scripts/catalog_diff.py --names 2.7.0 2.7.1   # the names themselves

Public names: the catalog's functions and classes (``mindspore.ops.add``,
``mindspore.nn.Dense``), ``mindspore.Tensor.<method>``, ``mindspore.Parameter.<method>``,
dtypes and constants. A signature change: a function or class constructor present in both
releases whose parameters (names, order, kinds, which have defaults: the catalog's
``params``) differ.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from msgraphlint.infer.catalog import _version_data, known_versions  # noqa: E402


def public_names(version: str) -> Dict[str, Optional[str]]:
    """name -> its parameters (None where there is none recorded)."""
    data = _version_data(version)
    out: Dict[str, Optional[str]] = {}
    for table in ("functions", "classes"):
        for name, info in data.get(table, {}).items():
            out[name] = info.get("params")
    for name in data.get("tensor_methods", {}):
        out[f"mindspore.Tensor.{name}"] = None
    for name in data.get("parameter_methods", {}):
        out[f"mindspore.Parameter.{name}"] = None
    for name in list(data.get("dtypes", ())) + list(data.get("constants", {})):
        out[name] = None
    return out


def namespace(name: str) -> str:
    parts = name.split(".")
    if parts[1:2] in (["Tensor"], ["Parameter"]):
        return ".".join(parts[:2])
    if len(parts) <= 2:
        return "mindspore"
    return ".".join(parts[:2]) if parts[1] != "mint" or len(parts) <= 3 else ".".join(parts[:3])


def diff(a: str, b: str) -> Tuple[List[str], List[str], List[str]]:
    na, nb = public_names(a), public_names(b)
    appear = sorted(set(nb) - set(na))
    disappear = sorted(set(na) - set(nb))
    changed = sorted(n for n in set(na) & set(nb) if na[n] is not None and nb[n] is not None and na[n] != nb[n])
    return appear, disappear, changed


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--by-namespace", action="store_true", help="one row per pair and namespace")
    ap.add_argument("--names", nargs=2, metavar=("OLD", "NEW"), help="list the names for one pair")
    ns = ap.parse_args(argv)
    versions = known_versions()
    if ns.names:
        appear, disappear, changed = diff(*ns.names)
        old, new = public_names(ns.names[0]), public_names(ns.names[1])
        for n in appear:
            print(f"+ {n}")
        for n in disappear:
            print(f"- {n}")
        for n in changed:
            print(f"~ {n}({old[n]}) -> ({new[n]})")
        return 0
    print("| from | to | appear | disappear | signature changed |" + (" namespace |" if ns.by_namespace else ""))
    print("|---|---|---:|---:|---:|" + ("---|" if ns.by_namespace else ""))
    for a, b in zip(versions, versions[1:]):
        appear, disappear, changed = diff(a, b)
        if not ns.by_namespace:
            print(f"| {a} | {b} | {len(appear)} | {len(disappear)} | {len(changed)} |")
            continue
        groups: Dict[str, List[int]] = {}
        for i, names in enumerate((appear, disappear, changed)):
            for n in names:
                groups.setdefault(namespace(n), [0, 0, 0])[i] += 1
        for space, (x, y, z) in sorted(groups.items()):
            print(f"| {a} | {b} | {x} | {y} | {z} | {space} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

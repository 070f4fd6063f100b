#!/usr/bin/env python
"""Where two label sets of fixtures/labeled/ differ: the same snippets compiled by two
MindSpore releases (scripts/label_fixtures.py --python ... --labels-dir DIR).

Usage:
  python scripts/label_diff.py A B [--json] [--check] [--write-compact FILE]

A and B are each a folder of labels (<snippet>.json, as label_fixtures.py writes them) or a
compact facts file (fixtures/labeled/versions/<version>.json: the facts below per snippet,
written by --write-compact from a folder). --check: exit 1 when the two differ (CI compiles
a subset on a release and checks it against the committed facts of that release).

Compares, per snippet present in both, the facts a rule's claim rests on: whether it
compiles at the default and STRICT syntax levels (and the first error line), fallback
nodes, kernel graphs, fused kernels (blocks), recompiles, graph == PyNative, whether the
label is confirmed, and MindSpore's deprecation warnings. Prints one line per difference
and a count; exit 0 (a difference is a fact to record, not a failure).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path


def _deprecations(lab: dict) -> list:
    """MindSpore's deprecation warnings, without version-specific file positions."""
    out = set()
    for w in (lab.get("observed") or {}).get("deprecation_warnings") or []:
        out.add(re.sub(r"\s*\[[^\]]*\.py:\d+\]", "", w).strip())
    return sorted(out)


def facts(lab: dict) -> dict:
    return {
        "default.compiles": (lab.get("default") or {}).get("compiles"),
        "strict.compiles": (lab.get("strict") or {}).get("compiles"),
        "default.error": (lab.get("default") or {}).get("error_first_line"),
        "strict.error": (lab.get("strict") or {}).get("error_first_line"),
        "fallback_nodes": lab.get("fallback_nodes"),
        "kernel_graphs": lab.get("kernel_graphs"),
        "fused_kernels": lab.get("fused_kernels"),
        "recompiles": lab.get("recompiles"),
        "pynative_equal": lab.get("pynative_equal"),
        "confirmed": lab.get("confirmed"),
        "deprecation_warnings": _deprecations(lab),
    }


def load(path: Path):
    """(version set, {snippet label name: facts}) of a label folder or a compact facts file."""
    if path.is_file():
        data = json.loads(path.read_text())
        return set(data.get("mindspore_versions") or []), dict(data["snippets"])
    out, versions = {}, set()
    for p in sorted(path.glob("*.json")):
        try:
            lab = json.loads(p.read_text())
        except json.JSONDecodeError:
            continue
        if isinstance(lab, dict) and "family" in lab and "default" in lab:
            out[p.name] = facts(lab)
            if lab.get("mindspore_version"):
                versions.add(lab["mindspore_version"])
    return versions, out


def diff(a: dict, b: dict) -> list:
    rows = []
    for name in sorted(set(a) & set(b)):
        fa, fb = a[name], b[name]
        for key in sorted(set(fa) | set(fb)):
            if fa.get(key) != fb.get(key):
                rows.append({"snippet": name, "fact": key, "a": fa.get(key), "b": fb.get(key)})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 when A and B differ")
    ap.add_argument("--write-compact", type=Path, default=None, help="write B's facts as a compact file")
    args = ap.parse_args(argv)
    for path in (args.a, args.b):
        if not path.exists():
            print(f"error: {path}: no such folder of labels or facts file", file=sys.stderr)
            return 2
    try:
        (va, a), (vb, b) = load(args.a), load(args.b)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: cannot read labels: {exc}", file=sys.stderr)
        return 2
    if args.write_compact:
        args.write_compact.parent.mkdir(parents=True, exist_ok=True)
        args.write_compact.write_text(json.dumps({"mindspore_versions": sorted(vb), "snippets": b},
                                                 indent=1, sort_keys=True) + "\n")
    rows = diff(a, b)
    if args.json:
        print(json.dumps({"a": sorted(va), "b": sorted(vb), "compared": len(set(a) & set(b)), "differences": rows},
                         indent=1))
        return 1 if args.check and rows else 0
    for r in rows:
        print(f"{r['snippet']}: {r['fact']}: {r['a']!r} ({'/'.join(sorted(va))}) vs {r['b']!r} ({'/'.join(sorted(vb))})")
    snippets = len({r["snippet"] for r in rows})
    print(f"compared {len(set(a) & set(b))} snippet(s) labelled by {sorted(va)} and {sorted(vb)}: "
          f"{len(rows)} difference(s) in {snippets} snippet(s)")
    return 1 if args.check and rows else 0


if __name__ == "__main__":
    sys.exit(main())

"""Findings per 100 constructs, per rule, before and after a change, and a seeded sample of
the findings the change added.

    # 1. dump the findings of one engine (run with each interpreter/checkout to compare)
    python benchmarks/findings_delta.py dump OUT.json --cache-dir /work/bench_cache \\
        --corpus mindcv --corpus mindocr --corpus mindyolo --corpus mindone [--extend-select MSG105,MSG513]
    # 2. compare two dumps for some rules; sample the added findings for judging
    python benchmarks/findings_delta.py compare BEFORE.json AFTER.json --codes MSG101,MSG413 \\
        --sample 30 --seed 0 --md benchmarks/results/kinds_new_findings.md

``dump`` lints each corpus (``<cache>/corpora/<name>``) through ``run_paths`` with a config that
only sets ``respect-gitignore = false`` (plus ``extend-select`` when given: informational rules
are off by default), and counts the Cell ``construct`` methods with the engine's own scope
discovery (the denominator). A finding is keyed by corpus, path, line and code; ``compare``
prints the per-rule table (counts and per 100 constructs, each side with its own denominator)
and draws the sample from the added keys: sorted by SHA-256 of the seed and the key, so the
draw is uniform and stable.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path


def dump(out: str, cache_dir: str, corpora, extend) -> int:
    sys.setrecursionlimit(10000)
    from _compat import module  # benchmarks/: current or pre-layout names (--rev of either layout)
    module("msgraphlint.project.index")  # fail early outside a checkout
    run_paths = module("msgraphlint.run.runner").run_paths
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    from corpus_findings import count_scopes  # the denominator, as corpus_findings.py counts it
    root = Path(cache_dir) / "corpora"
    res = {"findings": {}, "constructs": {}}
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "pyproject.toml")
        with open(cfg, "w") as fh:
            fh.write("[tool.msgraphlint]\nrespect-gitignore = false\n")
            if extend:
                fh.write(f"extend-select = {json.dumps(extend)}\n")
        for c in corpora:
            r = run_paths([str(root / c)], config_file=cfg)
            res["findings"][c] = [{"code": f.code, "path": os.path.relpath(f.path, root), "line": f.line,
                                   "message": f.message} for fr in r.files for f in fr.findings]
            res["constructs"][c] = count_scopes([str(root / c)], cfg).get("construct", 0)
            print(f"{c}: {len(res['findings'][c])} findings, {res['constructs'][c]} constructs", flush=True)
    with open(out, "w") as fh:
        json.dump(res, fh)
    return 0


def _key(c: str, f: dict) -> str:
    return f"{c}:{f['path']}:{f['line']}:{f['code']}"


def compare(before: str, after: str, codes, sample: int, seed: int, md: str, cache_dir: str) -> int:
    b, a = json.load(open(before)), json.load(open(after))
    corpora = list(a["findings"])
    cb = sum(b["constructs"].get(c, 0) for c in corpora)
    ca = sum(a["constructs"].get(c, 0) for c in corpora)
    nb = Counter(f["code"] for c in corpora for f in b["findings"].get(c, []))
    na = Counter(f["code"] for c in corpora for f in a["findings"].get(c, []))
    lines = [f"constructs: before {cb}, after {ca} ({', '.join(corpora)})", "",
             "| rule | before | per 100 | after | per 100 |", "|---|---|---|---|---|"]
    for code in codes:
        lines.append(f"| {code} | {nb[code]} | {100 * nb[code] / cb:.2f} | {na[code]} | {100 * na[code] / ca:.2f} |")
    old = {_key(c, f) for c in corpora for f in b["findings"].get(c, [])}
    added = {}
    for c in corpora:
        for f in a["findings"][c]:
            k = _key(c, f)
            # call-site repeats: MSG004 (with an `origin`), or the old "call to helper ..." lines
            if f["code"] in codes and k not in old and not f.get("origin") and f["code"] != "MSG004" \
                    and not f["message"].startswith("call to helper `"):
                added.setdefault(k, (c, f))
    lines += ["", f"added findings of these rules (call-site repeats not counted): {len(added)}"]
    print("\n".join(lines))
    order = sorted(added, key=lambda k: hashlib.sha256(f"{seed}:{k}".encode()).hexdigest())[:sample]
    root = Path(cache_dir) / "corpora"
    out = ["# New findings: a seeded sample", "", "\n".join(lines), "",
           f"Sample: {len(order)} of {len(added)} added findings, seed {seed} (sha256 order).", ""]
    for i, k in enumerate(order, 1):
        c, f = added[k]
        out.append(f"## {i}. `{f['path']}:{f['line']}` {f['code']}\n\n{f['message']}\n")
        try:
            src = (root / f["path"]).read_text(encoding="utf-8", errors="replace").splitlines()
            lo, hi = max(0, f["line"] - 4), min(len(src), f["line"] + 3)
            out.append("```python\n" + "\n".join(f"{n + 1:5} {src[n]}" for n in range(lo, hi)) + "\n```\n")
        except OSError:
            pass
        out.append("Verdict: \n")
    Path(md).write_text("\n".join(out), encoding="utf-8")
    print(f"sample of {len(order)} written to {md}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out")
    d.add_argument("--cache-dir", default=".bench_cache")
    d.add_argument("--corpus", action="append", default=[])
    d.add_argument("--extend-select", default="")
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--codes", required=True)
    c.add_argument("--sample", type=int, default=30)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--md", default="new_findings.md")
    c.add_argument("--cache-dir", default=".bench_cache")
    ns = ap.parse_args(argv)
    if ns.cmd == "dump":
        return dump(ns.out, ns.cache_dir, ns.corpus or ["mindcv", "mindocr", "mindyolo", "mindone"],
                    [x for x in ns.extend_select.split(",") if x])
    return compare(ns.before, ns.after, ns.codes.split(","), ns.sample, ns.seed, ns.md, ns.cache_dir)


if __name__ == "__main__":
    sys.exit(main())

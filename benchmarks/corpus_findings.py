"""Findings per 100 ``construct`` methods per rule on the real corpora, plus a judged sample.

    .venv/bin/python benchmarks/corpus_findings.py                          # all six corpora
    .venv/bin/python benchmarks/corpus_findings.py --corpus mindcv --corpus mindyolo
    .venv/bin/python benchmarks/corpus_findings.py --sample 30 --seed 0 \\
        --json benchmarks/results/corpus_findings.json

Each corpus (``benchmarks/corpora.py``; unpacked under ``.bench_cache/corpora/<name>/``)
is linted as a project of its own through ``msgraphlint.run.runner.run_paths`` with a
temporary config that only sets ``respect-gitignore = false`` (``.bench_cache`` is
git-ignored in this repo, and the repo's own settings must not leak into the figures):
every rule at its defaults.

The denominator is the number of ``construct`` methods of Cell classes, found by the
engine's own scope discovery (``ProjectIndex`` + ``scopes.discover``, kind
``construct``, method name ``construct``; ``bprop`` is counted apart) over the same
files the run lints.

The sample is reproducible (``--seed``) and stratified: every finding gets a priority,
a SHA-256 of the seed and the finding (so the draw is uniform, and stable: a rule change
elsewhere does not reshuffle it); every rule with findings contributes its first finding
(if there are more rules than ``--sample``, the rules whose first findings rank first),
and the remaining places go to the first of the other findings. Engine codes (MSG001 parse error, MSG002 unused suppression) are
counted in the table but not sampled. The sample goes to
``benchmarks/results/corpus_sample.md`` with path:line, code, message and source
context. Verdicts are kept apart, in ``benchmarks/results/corpus_verdicts.json``
(key ``corpus:path:line:code`` -> ``{"verdict": "TP"|"FP", "why": "..."}``; two findings of
one rule on one line share a verdict), and
merged into the markdown on every run, so re-running after rule changes keeps every
verdict whose finding still exists and marks the new ones ``unjudged``.

By default the engine and rules are the ones importable here (the working tree, which
others may be editing). ``--rev REV`` measures a committed state instead: ``git archive``
of ``msgraphlint/`` and ``rules/`` at REV into a temporary folder, put first on
``PYTHONPATH`` (as ``msgraphlint`` and ``msgraphlint_rules``) for a child run of this
script; the figures then name that commit.

``--compare DUMP`` sets an earlier dump against this run: findings per 100 constructs per
corpus, and the findings that differ (by ``_same``) split five ways (``split_delta``): added,
removed, recoded (the line is still reported, under another code), and the call-site repetitions apart, deduplicated (an earlier echo whose original
this run still reports) and relocated (an MSG004 repeating in one file what the earlier run
repeated there too). ``--pool`` draws the sample from one of them. ``--root NAME=PATH`` adds a
folder outside the cache as a corpus.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import CORPORA, DEFAULT_CACHE, REPO_ROOT  # noqa: E402

RESULTS = HERE / "results"
DEFAULT_MD = RESULTS / "corpus_sample.md"
DEFAULT_VERDICTS = RESULTS / "corpus_verdicts.json"
ENGINE_CODES = ("MSG001", "MSG002")
BENCH_TOML = "[tool.msgraphlint]\nrespect-gitignore = false\n"


# --------------------------------------------------------------------------- measuring

def count_scopes(paths: Sequence[str], config_file: str) -> Dict[str, int]:
    """Graph-mode roots in the files a run over ``paths`` would lint, by the engine's discovery."""
    from msgraphlint.config import load_config

    from _compat import module  # benchmarks/: current or pre-layout names (--rev of either layout)
    discovery, source = module("msgraphlint.run.discovery"), module("msgraphlint.parse.source")
    PY_SUFFIXES, discover_files = discovery.PY_SUFFIXES, discovery.discover
    ProjectIndex = module("msgraphlint.project.index").ProjectIndex
    discover_scopes = module("msgraphlint.project.scopes").discover
    SourceError, SourceFile = source.SourceError, source.SourceFile

    cfg = load_config(config_file, start=paths[0])
    files = [f for f in discover_files(list(paths), cfg.all_excludes(), cfg.root, cfg.respect_gitignore)
             if f.endswith(PY_SUFFIXES)]
    index = ProjectIndex()
    for f in files:
        try:
            src = SourceFile.read(f)
        except (OSError, SourceError):
            continue
        index.add_source(src, keep_source=False)
    scopes = discover_scopes(index, frozenset(cfg.cell_bases))
    counts: Counter = Counter()
    for ss in scopes.values():
        for s in ss:
            method = s.qualname.rsplit(".", 1)[-1]
            if s.kind == "construct" and method == "construct":
                counts["construct"] += 1
            elif s.kind == "construct":
                counts["bprop"] += 1
            else:
                counts[s.kind] += 1
    counts["files"] = len(files)
    return dict(counts)


def lint_corpus(root: Path, config_file: str, jobs: int) -> List[dict]:
    from _compat import module  # benchmarks/: current or pre-layout names (--rev of either layout)
    run_paths = module("msgraphlint.run.runner").run_paths

    result = run_paths([str(root)], config_file=config_file, jobs=jobs)
    out = []
    for fr in result.files:
        for f in list(fr.findings) + list(fr.unused_suppressions):
            out.append({"path": os.path.relpath(os.path.abspath(f.path), root).replace(os.sep, "/"),
                        "line": f.line, "col": f.col, "code": f.code, "name": f.name,
                        "message": f.message, "detail": getattr(f, "detail", None),  # the detail holds the evidence a judge reads
                        "severity": getattr(f.severity, "value", str(f.severity)),
                        "chain": list(f.chain), "origin": _origin(f, root)})
    return out


def _rel(path: str, root: Path) -> str:
    return os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")


def _origin(f, root: Path) -> Optional[list]:
    """A call-site finding's (MSG004) original as [code, path relative to the corpus root,
    line]; None for every other finding (and for engines without call-site findings)."""
    o = getattr(f, "origin", None)
    return None if o is None else [o[0], _rel(o[1], root), o[2]]


# --------------------------------------------------------------------------- sampling

def finding_key(f: dict) -> str:
    return f"{f['corpus']}:{f['path']}:{f['line']}:{f['code']}"


def _priority(f: dict, seed: int) -> str:
    """A finding's place in the seeded draw: a hash of the seed and the finding's key, so
    whether a finding is drawn does not depend on what other rules found (re-running after
    a rule change keeps every earlier draw that still exists, and with it its verdict)."""
    return hashlib.sha256(f"{seed}:{finding_key(f)}:{f['col']}:{f['message']}".encode("utf-8")).hexdigest()


def _same(f: dict) -> Tuple[str, str, int, str]:
    """What makes a finding the same one across two runs over the same corpora (a reworded
    message is the same finding)."""
    return (f["corpus"], f["path"], f["line"], f["code"])


# --------------------------------------------------------------------------- comparing

# 500e02f..: a helper's finding repeated in the caller's file under the helper's own code,
# "call to helper `h` reaches: <the helper's message> (<its file>:<line>)"
_OLD_ECHO = re.compile(r"^call to helper `[^`]*` reaches: .* \((?P<path>[^()]+):(?P<line>\d+)\)$", re.S)
# a call-site finding's first chain line, "MSG201 at <its file>:<line>: <its message>"
_CHAIN_ORIGIN = re.compile(r"^(?P<code>MSG\d+) at (?P<path>.+?):(?P<line>\d+): ")


def _under(path: str, root: Optional[str], cwd: Optional[str]) -> str:
    """A path named in a message, relative to its corpus root (as finding paths are)."""
    if root is None:
        return path.replace(os.sep, "/")
    full = path if os.path.isabs(path) else os.path.join(cwd or os.getcwd(), path)
    return os.path.relpath(os.path.normpath(full), root).replace(os.sep, "/")


def echo_target(f: dict, meta: dict) -> Optional[Tuple[str, str, int, str]]:
    """The finding a call-site repetition stands for, keyed like ``_same``: an MSG004's
    origin, or an older engine's same-code "call to helper ... reaches: ... (file:line)"
    line. None for a finding that repeats nothing."""
    root, cwd = meta.get("roots", {}).get(f["corpus"]), meta.get("cwd")
    if f["code"] == "MSG004":
        o = f.get("origin")
        if o:
            return (f["corpus"], o[1], int(o[2]), o[0])
        m = _CHAIN_ORIGIN.match(f["chain"][0]) if f.get("chain") else None
        return None if m is None else (f["corpus"], _under(m["path"], root, cwd), int(m["line"]), m["code"])
    m = _OLD_ECHO.match(f["message"])
    return None if m is None else (f["corpus"], _under(m["path"], root, cwd), int(m["line"]), f["code"])


def split_delta(before: dict, after: dict) -> Dict[str, List[dict]]:
    """The findings of two dumps that differ (by ``_same``; engine codes left out), split by
    what the difference is:

    - ``deduplicated``: before only, a call-site repetition whose original the later run still
      reports (at the original's line, or repeated by a call-site finding): the claim stays,
      only the duplicate line went;
    - ``recoded``: before only, on a line the later run still reports under another code (a
      sharper claim, or a rule that took the pattern over: MSG105 -> MSG101 once a caller is
      seen, MSG511 -> MSG513 for a deprecated primitive); judge it by reading both;
    - ``removed``: before only, every other (nothing is reported on the line any more);
    - ``relocated``: after only, a call-site finding (MSG004) that repeats, in the same file,
      an original the earlier run repeated there too (at another line or under its own code);
    - ``added``: after only, every other."""
    old = [f for f in before["findings"] if f["code"] not in ENGINE_CODES]
    new = [f for f in after["findings"] if f["code"] not in ENGINE_CODES]
    old_keys, new_keys = {_same(f) for f in old}, {_same(f) for f in new}
    bmeta, ameta = before.get("meta", {}), after.get("meta", {})
    # what the later run still claims: its own findings, and the originals its echoes repeat
    claimed = set(new_keys)
    echoed_new = set()
    for f in new:
        t = echo_target(f, ameta)
        if t is not None:
            claimed.add(t)
            echoed_new.add((f["path"], t))
    echoed_old = set()
    for f in old:
        t = echo_target(f, bmeta)
        if t is not None:
            echoed_old.add((f["path"], t))
    new_lines = {k[:3] for k in new_keys}
    out: Dict[str, List[dict]] = {"added": [], "relocated": [], "removed": [], "recoded": [], "deduplicated": []}
    for f in old:
        if _same(f) in new_keys:
            continue
        t = echo_target(f, bmeta)
        if t is not None and t in claimed:
            out["deduplicated"].append(f)
        elif _same(f)[:3] in new_lines:
            out["recoded"].append(f)
        else:
            out["removed"].append(f)
    for f in new:
        if _same(f) in old_keys:
            continue
        t = echo_target(f, ameta)
        out["relocated" if t is not None and (f["path"], t) in echoed_old else "added"].append(f)
    return out


def delta_table(parts: Dict[str, List[dict]], corpora: Sequence[str]) -> str:
    kinds = ("added", "relocated", "removed", "recoded", "deduplicated")
    per = {k: Counter(f["corpus"] for f in parts[k]) for k in kinds}
    lines = ["| corpus | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for c in corpora:
        lines.append(f"| {c} | " + " | ".join(str(per[k][c]) for k in kinds) + " |")
    lines.append("| **all** | " + " | ".join(str(len(parts[k])) for k in kinds) + " |")
    return "\n".join(lines)


def stratified_sample(findings: List[dict], n: int, seed: int) -> List[dict]:
    """Every rule with findings first (its lowest-priority finding), then the lowest-priority
    findings of the rest; with more rules than ``n``, the ``n`` rules whose picks rank first."""
    pool = sorted((f for f in findings if f["code"] not in ENGINE_CODES), key=lambda f: _priority(f, seed))
    firsts: "OrderedDict[str, dict]" = OrderedDict()
    for f in pool:
        firsts.setdefault(f["code"], f)
    chosen = list(firsts.values())[:n]
    taken = {id(f) for f in chosen}
    chosen += [f for f in pool if id(f) not in taken][:max(0, n - len(chosen))]
    return sorted(chosen, key=lambda f: (f["code"], f["corpus"], f["path"], f["line"], f["col"]))


def context_lines(path: Path, line: int, around: int) -> List[Tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    lo, hi = max(1, line - around), min(len(text), line + around)
    return [(i, text[i - 1]) for i in range(lo, hi + 1)]


# --------------------------------------------------------------------------- reporting

def per100(n: int, constructs: int) -> float:
    return round(100.0 * n / constructs, 2) if constructs else 0.0


def build_table(findings: List[dict], corpora: Sequence[str], constructs: Dict[str, int]) -> List[dict]:
    names: Dict[str, str] = {}
    counts: Dict[str, Counter] = {}
    for f in findings:
        names[f["code"]] = f["name"]
        counts.setdefault(f["code"], Counter())[f["corpus"]] += 1
    total_constructs = sum(constructs[c] for c in corpora)
    rows = []
    for code in sorted(counts):
        per = {c: counts[code].get(c, 0) for c in corpora}
        total = sum(per.values())
        rows.append({"code": code, "name": names[code], "per_corpus": per, "total": total,
                     "per_100_constructs": per100(total, total_constructs)})
    return rows


def format_table(rows: List[dict], corpora: Sequence[str], scopes: Dict[str, dict]) -> str:
    total_constructs = sum(scopes[c]["construct"] for c in corpora)
    head = ["code", "name"] + list(corpora) + ["total", "per 100 construct"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
    for r in rows:
        cells = [r["code"], r["name"]] + [str(r["per_corpus"][c]) for c in corpora] + \
                [str(r["total"]), f"{r['per_100_constructs']:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    all_total = sum(r["total"] for r in rows)
    lines.append("| **all** | | " + " | ".join(str(sum(r["per_corpus"][c] for r in rows)) for c in corpora)
                 + f" | {all_total} | {per100(all_total, total_constructs):.2f} |")
    lines.append("| *constructs* | | " + " | ".join(str(scopes[c]["construct"]) for c in corpora)
                 + f" | {total_constructs} | |")
    return "\n".join(lines)


def compare_table(before: dict, findings: List[dict], scopes: Dict[str, dict], corpora: Sequence[str]) -> str:
    """Findings per 100 ``construct`` methods per corpus: an earlier dump against this run."""
    old = Counter(f["corpus"] for f in before["findings"] if f["code"] not in ENGINE_CODES)
    new = Counter(f["corpus"] for f in findings if f["code"] not in ENGINE_CODES)
    bmeta = before.get("meta", {})
    lines = [f"before: {bmeta.get('git', '?')} (selection {', '.join(bmeta.get('select', ['ALL (then the default)']))})",
             "| corpus | constructs (before / after) | findings before | per 100 before | findings after | per 100 after |",
             "|---|---:|---:|---:|---:|---:|"]
    tot_c = tot_oc = tot_o = tot_n = 0
    for c in corpora:
        if c not in before["scopes"]:
            continue
        n_c, o_c = scopes[c]["construct"], before["scopes"][c]["construct"]
        tot_c, tot_oc, tot_o, tot_n = tot_c + n_c, tot_oc + o_c, tot_o + old[c], tot_n + new[c]
        lines.append(f"| {c} | {o_c} / {n_c} | {old[c]} | {per100(old[c], o_c):.2f} | {new[c]} | {per100(new[c], n_c):.2f} |")
    lines.append(f"| **all** | {tot_oc} / {tot_c} | {tot_o} | {per100(tot_o, tot_oc):.2f} | {tot_n} | "
                 f"{per100(tot_n, tot_c):.2f} |")
    return "\n".join(lines)


def git_head() -> str:
    if os.environ.get("_CORPUS_FINDINGS_REV"):
        return os.environ["_CORPUS_FINDINGS_REV"] + " (clean snapshot of msgraphlint/ and rules/)"
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                              text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "rules", "msgraphlint"], cwd=REPO_ROOT,
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return head + (" (+ uncommitted changes in rules/ or msgraphlint/)" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_markdown(md: Path, sample: List[dict], roots: Dict[str, Path], verdicts: Dict[str, dict],
                   around: int, meta: dict, table_md: str) -> Tuple[int, int, int]:
    tp = fp = unjudged = 0
    parts = []
    for i, f in enumerate(sample, 1):
        key = finding_key(f)
        v = verdicts.get(key)
        if v is None:
            verdict, why = "unjudged", ""
            unjudged += 1
        else:
            verdict, why = v["verdict"], v.get("why", "")
            if verdict == "TP":
                tp += 1
            elif verdict == "FP":
                fp += 1
            else:
                unjudged += 1
        ctx = context_lines(roots[f["corpus"]] / f["path"], f["line"], around)
        width = len(str(ctx[-1][0])) if ctx else 1
        body = "\n".join(f"{'>' if n == f['line'] else ' '} {n:>{width}} | {t}" for n, t in ctx)
        chain = "".join(f"\n  - {c}" for c in f["chain"])
        parts.append(
            f"### {i}. {f['code']} {f['name']} — `{f['corpus']}/{f['path']}:{f['line']}`\n\n"
            f"- message: {f['message']}\n"
            + (f"- chain:{chain}\n" if f["chain"] else "")
            + f"- **verdict: {verdict}**" + (f" — {why}" if why else "") + "\n\n"
            f"```python\n{body}\n```\n")
    judged = tp + fp
    summary = (f"**{tp} confirmed true of {len(sample)}** sampled findings"
               + (f" ({fp} false positive{'s' if fp != 1 else ''}" if judged else "")
               + (f", {unjudged} unjudged" if unjudged else "") + (")" if judged else "") + ".")
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text(
        "# Corpus findings: a judged random sample\n\n"
        f"Generated by `benchmarks/corpus_findings.py` (seed {meta['seed']}, sample {meta['sample']}, "
        f"{meta['date']}, msgraphlint {meta['version']} at {meta['git']}"
        + (f"; drawn from the {meta['pool']}" if meta.get("pool") else "") + "). Verdicts live in "
        "`benchmarks/results/corpus_verdicts.json` and are merged in on every run; a verdict is "
        "TP when the flagged line really has the effect the message claims in MindSpore 2.10 graph "
        "mode, FP otherwise (patterns and reproducers: `benchmarks/results/false_positives.md`).\n\n"
        f"{summary}\n\n## Findings per rule\n\n{table_md}\n\n## Sample\n\n" + "\n".join(parts),
        encoding="utf-8")
    return tp, fp, unjudged


# --------------------------------------------------------------------------- main

def run_snapshot(rev: str, argv: List[str]) -> int:
    """Re-run this script against ``git archive REV msgraphlint rules`` (see the module doc)."""
    from _snapshot import extract, pythonpath  # benchmarks/
    with tempfile.TemporaryDirectory(prefix="corpus_findings_") as tmp:
        sha = extract(rev, tmp)
        env = dict(os.environ, _CORPUS_FINDINGS_REV=sha, PYTHONPATH=pythonpath(tmp))
        print(f"[corpus] linting with msgraphlint/ and rules/ at {sha} ({tmp})", file=sys.stderr, flush=True)
        return subprocess.run([sys.executable, os.path.abspath(__file__)] + argv, env=env).returncode


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", action="append", choices=list(CORPORA),
                    help="corpus to lint; repeatable; default all six")
    ap.add_argument("--root", action="append", metavar="NAME=PATH", default=[],
                    help="an extra corpus: lint the folder PATH as a project named NAME (repeatable; "
                    "e.g. mindspore-st-compiler=../shared/corpus/mindspore-st-compiler), after the --corpus ones "
                    "(default all six)")
    ap.add_argument("--sample", type=int, default=30, help="findings in the judged sample (default 30)")
    ap.add_argument("--seed", type=int, default=0, help="random seed of the sample (default 0)")
    ap.add_argument("--json", metavar="FILE", help="also write the table, scope counts and sample keys as JSON")
    ap.add_argument("--md", metavar="FILE", default=str(DEFAULT_MD), help=f"sample markdown (default {DEFAULT_MD.relative_to(REPO_ROOT)})")
    ap.add_argument("--verdicts", metavar="FILE", default=str(DEFAULT_VERDICTS),
                    help="verdicts JSON merged into the markdown")
    ap.add_argument("--context", type=int, default=3, help="source lines shown either side of a sampled line (default 3)")
    ap.add_argument("--cache-dir", default=str(DEFAULT_CACHE), help="where the corpora are unpacked (default .bench_cache/)")
    ap.add_argument("--jobs", type=int, default=1, help="lint worker processes (default 1)")
    ap.add_argument("--dump", metavar="FILE", help="write every raw finding and scope count to FILE (for --load)")
    ap.add_argument("--load", metavar="FILE", help="skip linting: reuse the findings of an earlier --dump "
                    "(re-renders the table and sample, e.g. after adding verdicts)")
    ap.add_argument("--rev", metavar="REV", help="lint with msgraphlint/ and rules/ as committed at REV "
                    "(a git archive snapshot) instead of the working tree")
    ap.add_argument("--select", action="append", metavar="CODE",
                    help="rule selection (repeatable; e.g. ALL); default: the default selection")
    ap.add_argument("--compare", metavar="DUMP", help="also print findings per 100 constructs per corpus "
                    "against an earlier --dump (e.g. one made with --rev of the previous main)")
    ap.add_argument("--new-only", action="store_true", help="with --compare: draw the judged sample only from "
                    "the added findings (same as --pool added)")
    ap.add_argument("--pool", choices=("all", "added", "relocated", "removed", "recoded", "deduplicated"), default="all",
                    help="with --compare: draw the judged sample from one part of the delta (see split_delta): "
                    "added / relocated (this run only), removed / recoded / deduplicated (the earlier dump only; shown "
                    "with the source of the corpora as they are now); default all of this run's findings")
    args = ap.parse_args(argv)
    if args.new_only:
        if args.pool not in ("all", "added"):
            ap.error("--new-only is --pool added")
        args.pool = "added"
    if args.pool != "all" and not args.compare:
        ap.error(f"--pool {args.pool} needs --compare DUMP")
    if args.rev and not os.environ.get("_CORPUS_FINDINGS_REV"):
        return run_snapshot(args.rev, list(sys.argv[1:] if argv is None else argv))

    extra: Dict[str, Path] = {}
    for spec in args.root:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path or name in CORPORA or name in extra:
            ap.error(f"--root {spec!r}: NAME=PATH with a NAME that is not a PyPI corpus and given once")
        extra[name] = Path(path).resolve()
    corpora = (args.corpus or list(CORPORA)) + list(extra)
    roots = {c: extra.get(c, Path(args.cache_dir) / "corpora" / c) for c in corpora}
    if args.load and not args.corpus and not extra:  # every corpus of the dump, at the roots it names
        dumped_meta = json.loads(Path(args.load).read_text(encoding="utf-8")).get("meta", {})
        for c, p in dumped_meta.get("roots", {}).items():
            if c not in CORPORA:
                corpora.append(c)
                roots[c] = Path(p)
    missing = [c for c, p in roots.items() if not p.is_dir()]
    if missing:
        print(f"corpora not unpacked: {', '.join(missing)}; run benchmarks/corpora.py first", file=sys.stderr)
        return 2

    import msgraphlint

    findings: List[dict] = []
    scopes: Dict[str, dict] = {}
    meta = {"seed": args.seed, "sample": args.sample, "date": _dt.date.today().isoformat(),
            "roots": {c: str(p.resolve()) for c, p in roots.items()},  # messages name files under these
            "cwd": os.getcwd(),  # ... relative to this folder when below it
            "version": getattr(msgraphlint, "__version__", "?"), "git": git_head(),
            "engine": (f"git archive {os.environ['_CORPUS_FINDINGS_REV']} of msgraphlint/ and rules/"
                       if os.environ.get("_CORPUS_FINDINGS_REV")
                       else os.path.dirname(os.path.abspath(msgraphlint.__file__)))}
    if args.load:
        dumped = json.loads(Path(args.load).read_text(encoding="utf-8"))
        findings = [f for f in dumped["findings"] if f["corpus"] in corpora]
        scopes = {c: dumped["scopes"][c] for c in corpora}
        meta.update({k: dumped["meta"][k] for k in ("date", "version", "git", "engine", "roots", "cwd") if k in dumped.get("meta", {})})
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "msgraphlint-corpus.toml")
        toml = BENCH_TOML + (f"select = {json.dumps(args.select)}\n" if args.select else "")
        Path(cfg).write_text(toml, encoding="utf-8")
        meta["select"] = args.select or ["(default selection)"]
        for c in ([] if args.load else corpora):
            t0 = time.perf_counter()
            found = lint_corpus(roots[c], cfg, args.jobs)
            t1 = time.perf_counter()
            scopes[c] = count_scopes([str(roots[c])], cfg)
            scopes[c].setdefault("construct", 0)
            for f in found:
                f["corpus"] = c
            findings.extend(found)
            print(f"[corpus] {c}: {len(found)} findings, {scopes[c]['construct']} constructs, "
                  f"{scopes[c]['files']} files, lint {t1 - t0:.1f}s", file=sys.stderr, flush=True)

    if args.dump:
        Path(args.dump).write_text(json.dumps({"meta": meta, "scopes": scopes, "findings": findings}), encoding="utf-8")
    constructs = {c: scopes[c]["construct"] for c in corpora}
    rows = build_table(findings, corpora, constructs)
    table_md = format_table(rows, corpora, scopes)
    print(table_md)

    pool = findings
    if args.compare:
        before = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        print("\n" + compare_table(before, findings, scopes, corpora))
        before["findings"] = [f for f in before["findings"] if f["corpus"] in corpora]
        parts = split_delta(before, {"meta": meta, "findings": findings})
        print("\nfindings that differ (same corpus, file, line and code; MSG001/MSG002 left out):\n"
              + delta_table(parts, corpora))
        for k, fs in parts.items():
            print(f"{k}: {len(fs)}; by rule: "
                  + ", ".join(f"{c} {n}" for c, n in sorted(Counter(f["code"] for f in fs).items())))
        if args.pool != "all":
            pool = parts[args.pool]
            side = "earlier dump's" if args.pool in ("removed", "recoded", "deduplicated") else "run's"
            meta["pool"] = f"{args.pool} findings of the delta against {args.compare} (the {side} findings)"

    sample = stratified_sample(pool, args.sample, args.seed)
    verdicts = {}
    vpath = Path(args.verdicts)
    if vpath.is_file():
        verdicts = json.loads(vpath.read_text(encoding="utf-8"))
    tp, fp, unjudged = write_markdown(Path(args.md), sample, roots, verdicts, args.context, meta, table_md)
    print(f"\nsample: {len(sample)} findings -> {args.md}; {tp} TP, {fp} FP, {unjudged} unjudged")

    if args.json:
        out = {"meta": meta, "corpora": corpora, "scopes": scopes, "constructs_total": sum(constructs.values()),
               "rules": rows, "findings_total": len(findings),
               "sample": [{"key": finding_key(f), "code": f["code"], "message": f["message"],
                           "detail": f.get("detail"),
                           "verdict": verdicts.get(finding_key(f), {}).get("verdict", "unjudged")} for f in sample],
               "sample_tp": tp, "sample_fp": fp, "sample_unjudged": unjudged}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

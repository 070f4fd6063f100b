"""`check --fix --unsafe-fixes` over a copy of each real corpus: does every changed file still
compile, does a second `check` find the fixed codes gone, and what did each fix change?

    .venv/bin/python benchmarks/fix_corpora.py                       # the six PyPI corpora
    .venv/bin/python benchmarks/fix_corpora.py mindcv mindyolo --hunks /tmp/hunks.json
    .venv/bin/python benchmarks/fix_corpora.py --sample 30 --seed 0 --hunks h.json --sample-out s.json

Each corpus (``benchmarks/corpora.py``; default cache ``.bench_cache/``) is copied to a scratch
folder and linted as a project of its own (``--config`` with ``respect-gitignore = false``,
like ``lint_throughput.py``'s bench config; ``--no-cache -j 1``) by the msgraphlint that
``--python`` imports (run it with ``PYTHONPATH=<worktree>`` to measure another checkout):

1. ``check --output-format json`` of the copy: every finding and its fix (edits, safety);
2. ``check --fix --unsafe-fixes --show-fixes``: the files changed (bytes compared with the
   original), the fixes applied per file and code (the ``N × CODE`` lines);
3. every changed ``.py`` file must ``compile()`` (YAML files: ``yaml.safe_load`` when PyYAML is
   there); a failure is a violation;
4. ``check --output-format json`` of the fixed copy: for each file and each code fixed in it, a
   finding of that code on a line the fix wrote (``difflib`` over lines) is a *leftover at a
   fixed place* (violation), and the count must be the first run's less the fixes applied
   or fewer (*count mismatch*, a violation, when more are left: a fix that made a new finding of
   its own code; fewer are listed as *cleared by another fix*, e.g. one fix that ends two
   findings on the same list); findings that still carry a fix are listed (``--fix`` ran until nothing applied).

Every fix of the first run is written as its own unified diff hunk (the original file with
only that finding's edits spliced in, 3 lines of context; the splice is the script's own, from
the JSON edits: 1-based line and column, end exclusive) to ``--hunks`` (a JSON list), marked
``applied`` when the file's count of that code's fixes equals the first run's or, failing that,
when the hunk's new lines are in the fixed file. As a check of the splice, the script applies
all first-run fixes of a file whose fixes all applied in one round and compares with the
fixed file (*reproduced*). ``--sample N --seed S`` draws N applied hunks over all corpora
(``random.Random(S).sample`` over the list sorted by corpus, path, line, column, code) into
``--sample-out`` for reading by hand.

Prints one line per corpus and exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import CORPORA, ensure_corpora  # noqa: E402

CONFIG = "# Written by benchmarks/fix_corpora.py (the corpus is a project of its own).\nrespect-gitignore = false\n"
_FILE_LINE = re.compile(r"^- (.+):$")
_COUNT_LINE = re.compile(r"^\s+(\d+) × (MSG\d+)")
_FIXED = re.compile(r"Fixed (\d+) findings? in (\d+) files?")


def _check(python: str, root: Path, config: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [python, "-m", "msgraphlint", "check", "--no-cache", "--exit-zero", "--config", str(config), "-j", "1", *args, "."]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True)


def _json(python: str, root: Path, config: Path) -> list:
    proc = _check(python, root, config, "--output-format", "json")
    if proc.returncode != 0:
        raise RuntimeError(f"check exited {proc.returncode}: {proc.stderr[-1500:]}")
    return json.loads(proc.stdout)["findings"]


def _files(root: Path):
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            p = Path(d) / f
            if not p.is_symlink():
                yield p.relative_to(root)


def _splice(text: str, edits) -> str:
    """The JSON edits applied to ``text``, written apart from msgraphlint's own
    ``fix.contract.apply_edits`` on purpose: the hunks are checked against the fixed files by
    code that did not apply the fixes."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))
    out, pos = [], 0
    for e in sorted(edits, key=lambda e: (e["line"], e["column"])):
        a = starts[e["line"] - 1] + e["column"] - 1
        b = starts[e["end_line"] - 1] + e["end_column"] - 1
        out.append(text[pos:a])
        out.append(e["text"])
        pos = b
    out.append(text[pos:])
    return "".join(out)


def _hunk(path: str, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{path}", f"b/{path}", n=3))


def _written_lines(old: str, new: str) -> set:
    """1-based lines of ``new`` that the fixes wrote (not equal in a line diff)."""
    sm = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return {j + 1 for tag, _, _, j1, j2 in sm.get_opcodes() if tag != "equal" for j in range(j1, j2)}


def _compiles(path: Path):
    data = path.read_bytes()
    if path.suffix == ".py":
        try:
            compile(data, str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            return f"{type(exc).__name__}: {exc}"
        return None
    if path.suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            return None
        try:
            yaml.safe_load(data)
        except yaml.YAMLError as exc:
            return f"YAMLError: {exc}"
    return None


def run_corpus(python: str, name: str, src: Path, work: Path):
    root = work / name
    shutil.copytree(src, root, symlinks=True)
    config = work / f"{name}.toml"
    config.write_text(CONFIG, encoding="utf-8")
    originals = {rel: (root / rel).read_bytes() for rel in _files(root)}
    before = _json(python, root, config)
    fixed_run = _check(python, root, config, "--output-format", "concise", "--fix", "--unsafe-fixes", "--show-fixes")
    if fixed_run.returncode != 0:
        raise RuntimeError(f"check --fix exited {fixed_run.returncode}: {fixed_run.stderr[-1500:]}")
    out = fixed_run.stdout + fixed_run.stderr
    applied, current = Counter(), None
    for line in out.splitlines():
        m = _FILE_LINE.match(line)
        if m:
            current = m.group(1)
            continue
        m = _COUNT_LINE.match(line)
        if m and current is not None:
            applied[(current, m.group(2))] += int(m.group(1))
    total = _FIXED.search(out)
    changed = sorted(str(rel) for rel, data in originals.items() if (root / rel).read_bytes() != data)
    compile_failures = {p: err for p in changed if (err := _compiles(root / p))}
    after = _json(python, root, config)

    by_file_code = Counter((f["path"], f["code"]) for f in before)
    fixes_by_file_code = Counter((f["path"], f["code"]) for f in before if f["fix"])
    after_by_file_code = Counter((f["path"], f["code"]) for f in after)
    written = {p: _written_lines(originals[Path(p)].decode("utf-8", "replace"),
                                 (root / p).read_bytes().decode("utf-8", "replace")) for p in changed}
    leftovers = [f"{f['path']}:{f['line']}:{f['column']}: {f['code']} {f['message']}" for f in after
                 if applied.get((f["path"], f["code"])) and f["line"] in written.get(f["path"], ())]
    mismatches, cleared_more = [], []
    for (p, c), n in sorted(applied.items()):
        left, expected = after_by_file_code[(p, c)], by_file_code[(p, c)] - n
        if left != expected:
            (mismatches if left > expected else cleared_more).append(f"{p} {c}: {by_file_code[(p, c)]} before, {n} fixed, {left} after")
    still_fixable = [f"{f['path']}:{f['line']}: {f['code']} ({f['fix']['safety']})" for f in after if f["fix"]]

    hunks, reproduced, not_reproduced = [], 0, []
    per_file = {}
    for f in before:
        if f["fix"]:
            per_file.setdefault(f["path"], []).append(f)
    for path, fs in sorted(per_file.items()):
        old = originals[Path(path)].decode("utf-8")
        new_text = (root / path).read_bytes().decode("utf-8", "replace")
        all_applied = all(applied.get((path, c), 0) == fixes_by_file_code[(path, c)] for c in {f["code"] for f in fs})
        for f in fs:
            one = _splice(old, f["fix"]["edits"])
            h = _hunk(path, old, one)
            plus = [ln[1:] for ln in h.splitlines(keepends=True)[2:] if ln.startswith("+")]
            if applied.get((path, f["code"]), 0) == fixes_by_file_code[(path, f["code"])]:
                state = "applied"
            elif applied.get((path, f["code"])) and plus and "".join(plus) in new_text:
                state = "applied (by its text)"
            else:
                state = "not applied"
            hunks.append({"corpus": name, "path": path, "line": f["line"], "column": f["column"], "code": f["code"],
                          "name": f["name"], "message": f["message"], "fix": f["fix"]["description"],
                          "safety": f["fix"]["safety"], "state": state, "hunk": h})
        if all_applied:
            edits = [e for f in fs for e in f["fix"]["edits"]]
            if _splice(old, edits) == new_text:
                reproduced += 1
            else:
                not_reproduced.append(path)
    done = [h for h in hunks if h["state"] != "not applied"]
    summary = {
        "corpus": name, "files": len(originals), "files_changed": len(changed),
        "fixed_line": total.group(0) if total else None, "fixes_applied": sum(applied.values()),
        "first_run_fixes": len(hunks), "mapped_applied": len(done),
        "safe": sum(h["safety"] == "safe" for h in done), "unsafe": sum(h["safety"] != "safe" for h in done),
        "by_code": dict(sorted(Counter(h["code"] for h in done).items())),
        "compile_failures": compile_failures, "leftovers_at_fixed_places": leftovers,
        "count_mismatches": mismatches, "cleared_without_own_fix": cleared_more, "still_fixable": still_fixable,
        "splice_reproduced_files": reproduced, "splice_not_reproduced": not_reproduced,
    }
    return summary, hunks


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpora", nargs="*", default=list(CORPORA))
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--hunks", help="write every first-run fix's hunk here (JSON list)")
    ap.add_argument("--summary", help="write the per-corpus figures here (JSON)")
    ap.add_argument("--sample", type=int, default=0, help="draw N applied hunks (with --sample-out)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sample-out")
    args = ap.parse_args(argv)
    paths = ensure_corpora(args.corpora, args.cache_dir)
    summaries, hunks, bad = [], [], 0
    with tempfile.TemporaryDirectory(prefix="fix-corpora-") as work:
        for name in args.corpora:
            s, h = run_corpus(args.python, name, paths[name], Path(work))
            summaries.append(s)
            hunks += h
            violations = len(s["compile_failures"]) + len(s["leftovers_at_fixed_places"]) + len(s["count_mismatches"])
            bad += violations
            print(f"{name}: {s['files_changed']} files changed, {s['fixes_applied']} fixes applied "
                  f"({s['safe']} safe, {s['unsafe']} unsafe of the {s['mapped_applied']} mapped; {s['fixed_line']}), "
                  f"{len(s['compile_failures'])} compile failures, {len(s['leftovers_at_fixed_places'])} leftovers at "
                  f"fixed places, {len(s['count_mismatches'])} count mismatches, {len(s['cleared_without_own_fix'])} findings "
                  f"cleared by another fix, {len(s['still_fixable'])} still fixable; "
                  f"splice reproduced {s['splice_reproduced_files']} files, not {len(s['splice_not_reproduced'])}",
                  flush=True)
            for key in ("compile_failures", "leftovers_at_fixed_places", "count_mismatches", "cleared_without_own_fix",
                        "still_fixable"):
                items = list(s[key].items()) if isinstance(s[key], dict) else s[key]
                for item in items[:5]:
                    print(f"  {key}: {item}")
    if args.hunks:
        Path(args.hunks).write_text(json.dumps(hunks, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.summary:
        Path(args.summary).write_text(json.dumps(summaries, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.sample and args.sample_out:
        pool = sorted((h for h in hunks if h["state"] != "not applied"),
                      key=lambda h: (h["corpus"], h["path"], h["line"], h["column"], h["code"]))
        drawn = random.Random(args.seed).sample(pool, min(args.sample, len(pool)))
        Path(args.sample_out).write_text(json.dumps(drawn, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"sample: {len(drawn)} of {len(pool)} applied fixes (seed {args.seed}) -> {args.sample_out}")
    print(f"{len(args.corpora)} corpora, {sum(s['files_changed'] for s in summaries)} files changed, "
          f"{sum(s['fixes_applied'] for s in summaries)} fixes applied, {bad} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

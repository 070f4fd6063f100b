"""Two concurrent ``check --fix`` runs over a copy of a real corpus: does any file end up
corrupted?

    python benchmarks/concurrent_fix.py --cache-dir /work/bench_cache
    python benchmarks/concurrent_fix.py mindone --files 179 --python /path/to/other/python

Takes the corpus's files that have safe fixes (any fix with ``--unsafe-fixes``; the first
``--files``, sorted), copies them
(with their package ``__init__.py`` files) twice, runs one ``--fix`` alone over the first
copy and two at once over the second, and classifies every file of the second copy:
*as one run alone leaves it*, *untouched*, or *corrupted* (anything else; the
acceptable count is 0). Prints the figures and the wall time; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import ensure_corpora  # noqa: E402


def _cmd(python: str, *args: str):
    return [python, "-m", "msgraphlint", "check", "--no-cache", "--exit-zero", *args]


def _fixable_files(python: str, root: Path, limit: int, unsafe: bool):
    proc = subprocess.run(_cmd(python, "--format", "json", str(root)), capture_output=True, text=True, check=True)
    doc = json.loads(proc.stdout)
    paths = sorted({f["path"] for f in doc["findings"] if f["fix"] and (unsafe or f["fix"]["safety"] == "safe")})
    return [Path(p).resolve().relative_to(root.resolve()) for p in paths][:limit]


def _copy(root: Path, rels, dest: Path) -> None:
    for rel in rels:
        parts = rel.parts
        for i in range(1, len(parts)):  # the package __init__ files, so module names stay the same
            init = root.joinpath(*parts[:i], "__init__.py")
            if init.exists():
                (dest / init.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(init, dest / init.relative_to(root))
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, dest / rel)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default="mindone")
    ap.add_argument("--files", type=int, default=179)
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose msgraphlint is measured")
    ap.add_argument("--unsafe-fixes", action="store_true", help="files with any fix, runs with --unsafe-fixes")
    args = ap.parse_args(argv)
    root = ensure_corpora([args.corpus], args.cache_dir)[args.corpus]
    rels = _fixable_files(args.python, root, args.files, args.unsafe_fixes)
    fix = ["--fix", "--unsafe-fixes"] if args.unsafe_fixes else ["--fix"]
    with tempfile.TemporaryDirectory() as tmp:
        single, both = Path(tmp) / "single", Path(tmp) / "both"
        _copy(root, rels, single)
        _copy(root, rels, both)
        subprocess.run(_cmd(args.python, *fix, str(single)), capture_output=True, check=True)
        started = time.perf_counter()
        procs = [subprocess.Popen(_cmd(args.python, *fix, str(both)), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for _ in range(2)]
        errs = [p.communicate()[1].decode(errors="replace") for p in procs]
        wall = time.perf_counter() - started
        same = untouched = corrupted = 0
        examples = []
        for rel in rels:
            got = (both / rel).read_bytes()
            if got == (single / rel).read_bytes():
                same += 1
            elif got == (root / rel).read_bytes():
                untouched += 1
            else:
                corrupted += 1
                examples.append(str(rel))
    print(f"{args.corpus}: {len(rels)} files with {'' if args.unsafe_fixes else 'safe '}fixes, two concurrent --fix runs in {wall:.1f} s "
          f"(exit codes {[p.returncode for p in procs]})")
    print(f"  as one run alone leaves it: {same}")
    print(f"  untouched:                  {untouched}")
    print(f"  corrupted:                  {corrupted}" + (f"  e.g. {examples[:3]}" if examples else ""))
    warnings = sorted({line for e in errs for line in e.splitlines() if "warning" in line or "error" in line})
    for line in warnings[:5]:
        print(f"  stderr: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

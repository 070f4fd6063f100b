"""The long fuzzing run: many generated and mutated programs, counts per category.

    .venv/bin/python benchmarks/fuzz.py                    # 2,000 programs per source
    .venv/bin/python benchmarks/fuzz.py --examples 500 --seed 3
    .venv/bin/python benchmarks/fuzz.py --fix-trees 300    # the --fix mode instead

Sources and the property are tests/fuzzing.py's (tests/test_fuzz.py runs a few dozen
in CI): checking never raises, never reports MSG000, and reports MSG001 exactly when
``ast.parse`` rejects the program. Prints, per source, how many programs were tried and
how each came out (checked, parse-error, not-graph-code) and the failures (0 expected);
the first failing program of each source is written next to the output as
``fuzz-failure-<source>.py``. Exit code 1 if anything failed.

``--fix-trees N`` runs tests/fuzzing.py's fix-tree property instead (tests/test_fix_identity.py
runs a few dozen): N random trees of independent Python files (with and without safe
fixes), YAML run configs and notebooks, in random folders; `check --fix .` must give each
file the fixed bytes the generator wrote (the same as `--fix FILE` alone), change no file
without a safe fix, and report the count `--diff .` announces. Prints the trees, files,
fixes, files changed and failures; the first failing tree is written to
``fuzz-failure-fix-tree.txt``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import fuzzing  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import seed as seed_  # noqa: E402


def run(source: str, strategy, examples: int, seed: int) -> Counter:
    counts: Counter = Counter()
    first = []

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.generate])
    @seed_(seed)
    @given(strategy)
    def one(text):
        counts["tried"] += 1
        try:
            counts[fuzzing.outcome(text)] += 1
        except Exception as exc:  # noqa: BLE001 - a broken invariant or a crash of the checker itself
            _failed(counts, first, text, exc)

    one()
    if first:
        out = Path.cwd() / f"fuzz-failure-{source}.py"
        out.write_text(first[0][0], encoding="utf-8")
        print(f"  first failure ({source}): {first[0][1].splitlines()[0]} -> {out}")
    return counts


def _failed(counts: Counter, first: list, case, exc: Exception) -> None:
    """Count a failed case; keep the first with its reason (an assertion's text, or the
    exception's type and text for a crash of the checker)."""
    counts["FAILED"] += 1
    if not first:
        first.append((case, str(exc) if isinstance(exc, AssertionError) else f"{type(exc).__name__}: {exc}"))


def run_fix_trees(trees: int, seed: int) -> Counter:
    import os
    import tempfile

    counts: Counter = Counter()
    first = []
    os.environ.setdefault("MSGRAPHLINT_CACHE_DIR", tempfile.mkdtemp(prefix="fuzz-fix-cache-"))  # not ~/.cache

    @settings(max_examples=trees, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.generate])
    @seed_(seed)
    @given(fuzzing.fix_tree())
    def one(files):
        counts["trees"] += 1
        try:
            counts.update(fuzzing.fix_tree_outcome(files))
        except Exception as exc:  # noqa: BLE001 - a broken invariant or a crash of the checker itself
            _failed(counts, first, files, exc)

    one()
    if first:
        out = Path.cwd() / "fuzz-failure-fix-tree.txt"
        out.write_text(first[0][1] + "\n\n" + fuzzing.describe_tree(first[0][0]) + "\n", encoding="utf-8")
        print(f"  first failure (fix-tree): {first[0][1].splitlines()[0]} -> {out}")
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=2000, help="programs per source")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fix-trees", type=int, default=0, metavar="N",
                    help="instead: N random trees through check --fix / --diff (the fix-tree property)")
    args = ap.parse_args(argv)
    if args.fix_trees:
        start = time.perf_counter()
        c = run_fix_trees(args.fix_trees, args.seed)
        print(f"{'source':<10} {'trees':>7} {'files':>7} {'fixes':>7} {'changed':>8} {'failures':>9} {'seconds':>8}")
        print(f"{'fix-tree':<10} {c['trees']:>7} {c['files']:>7} {c['fixes']:>7} {c['changed']:>8} {c['FAILED']:>9} "
              f"{time.perf_counter() - start:>8.1f}")
        return 1 if c["FAILED"] else 0
    failed = 0
    print(f"{'source':<10} {'tried':>7} {'checked':>8} {'parse-error':>12} {'not-graph':>10} {'failures':>9} {'seconds':>8}")
    for source, strategy in (("mutation", fuzzing.mutated()), ("grammar", fuzzing.grammar())):
        start = time.perf_counter()
        c = run(source, strategy, args.examples, args.seed)
        failed += c["FAILED"]
        print(f"{source:<10} {c['tried']:>7} {c['checked']:>8} {c['parse-error']:>12} {c['not-graph-code']:>10} "
              f"{c['FAILED']:>9} {time.perf_counter() - start:>8.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

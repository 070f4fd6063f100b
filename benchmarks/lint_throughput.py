"""Lint throughput on real MindSpore model zoos, against the ``ast.parse`` floor.

    .venv/bin/python benchmarks/lint_throughput.py                      # all corpora, --jobs 1,2
    .venv/bin/python benchmarks/lint_throughput.py --corpus mindcv --repeat 3 --json out.json
    .venv/bin/python benchmarks/lint_throughput.py --floor-only         # no engine needed
    .venv/bin/python benchmarks/lint_throughput.py --jobs 1 --repeat 5 --against 500e02f  # this tree / a commit

Every variant runs in a fresh interpreter (``benchmarks/_child.py``), so imports are
counted and peak RSS belongs to that variant alone. Seconds are the wall time of that
child process as seen from here (interpreter start + imports + work), best of
``--repeat``. See benchmarks/README.md for the columns.

``--against REV`` runs every engine variant a second time with ``msgraphlint/`` and
``rules/`` as committed at REV (``_snapshot.extract``: a byte-compiled ``git archive``
first on the child's ``PYTHONPATH``), the two engines' runs interleaved (the order reversed
every other repeat), and prints this tree's seconds over REV's per corpus and in all: the
figure an issue's "within 1.1x of the commit before" asks for, measured in one run.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import CORPORA, REPO_ROOT, corpus_stats, ensure_corpora, py_files  # noqa: E402

CHILD = HERE / "_child.py"
#: one process, lines of .py per second, for ``msgraphlint check --jobs 1``
ONE_CORE_TARGET_LPS = 20_000
_MARK = "@@RESULT@@"
#: written into each corpus and passed as ``check --config``: the corpus is linted as a
#: project of its own. The default cache lives in this repo, whose .gitignore lists
#: .bench_cache/, so with gitignore respected the engine would find no files at all;
#: and the repo's own [tool.msgraphlint] settings must not leak into the figures.
BENCH_CONFIG_NAME = ".msgraphlint-bench.toml"
BENCH_CONFIG = (
    "# Written by benchmarks/lint_throughput.py; msgraphlint.toml layout (keys at top level).\n"
    "respect-gitignore = false\n"
)


@dataclass
class Variant:
    """One measured configuration. ``kind`` is floor | cli | api."""

    name: str
    kind: str
    jobs: int = 1
    cli_args: List[str] = field(default_factory=list)
    #: warm result cache: run once untimed with a fresh ``--cache-dir`` to fill it, then time
    prime: bool = False


@dataclass
class Measurement:
    variant: Variant
    runs: List[dict]
    error: Optional[str] = None

    @property
    def best(self) -> Optional[dict]:
        ok = [r for r in self.runs if "wall_s" in r]
        return min(ok, key=lambda r: r["wall_s"]) if ok else None


# --------------------------------------------------------------------------- engine probe

def probe_engine(python: str) -> dict:
    """What of the engine is importable right now, and which ``check`` flags exist."""
    code = (
        "import json, sys\n"
        "out = {}\n"
        "try:\n"
        "    import msgraphlint.api, msgraphlint.run.runner; out['api'] = True\n"
        "except Exception as e: out['api'] = False; out['api_error'] = repr(e)\n"
        "try:\n"
        "    import msgraphlint.cli; out['cli'] = True\n"
        "except Exception as e: out['cli'] = False; out['cli_error'] = repr(e)\n"
        "try:\n"
        "    import msgraphlint; out['version'] = msgraphlint.__version__\n"
        "except Exception: pass\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir())
    try:
        info = json.loads(proc.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        info = {"api": False, "cli": False, "error": proc.stderr.strip()[-500:]}
    info["check_help"] = ""
    if info.get("cli"):
        h = subprocess.run([python, "-c", "from msgraphlint.cli import main; main(['check', '--help'])"],
                           capture_output=True, text=True, cwd=tempfile.gettempdir())
        info["check_help"] = h.stdout
        if h.returncode != 0:
            info["cli"] = False
            info["cli_error"] = (h.stderr.strip() or h.stdout.strip())[-500:]
    return info


def has_flag(info: dict, flag: str) -> bool:
    return flag in info.get("check_help", "")


# --------------------------------------------------------------------------- running

def run_child(python: str, spec: dict, cwd: Path, timeout: float, pythonpath: Optional[str] = None) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # don't litter the corpora; the engine's own .pyc stay
    if pythonpath is not None:  # another engine (--against): a snapshot first on the path
        env["PYTHONPATH"] = pythonpath
    t0 = time.perf_counter()
    proc = subprocess.run([python, str(CHILD), json.dumps(spec)], capture_output=True, text=True,
                          cwd=str(cwd), env=env, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0 or _MARK not in proc.stdout:
        tail = (proc.stderr.strip() or proc.stdout.strip())[-1500:]
        raise RuntimeError(f"child exited {proc.returncode}:\n{tail}")
    res = json.loads(proc.stdout.rsplit(_MARK, 1)[1].strip().splitlines()[0])
    res["wall_s"] = wall
    res["stderr_tail"] = proc.stderr.strip()[-500:]
    return res


def write_bench_config(corpus_dir: Path) -> Path:
    cfg = corpus_dir / BENCH_CONFIG_NAME
    if not cfg.is_file() or cfg.read_text(encoding="utf-8") != BENCH_CONFIG:
        cfg.write_text(BENCH_CONFIG, encoding="utf-8")
    return cfg


def measure(python: str, variant: Variant, corpus_dir: Path, files_list: Path, repeat: int,
            timeout: float, workdir: Path, config: Optional[Path] = None,
            engines: Sequence[Optional[str]] = (None,)) -> List[Measurement]:
    """One Measurement per engine (``engines``: a ``PYTHONPATH`` each, None for the one
    importable here). With several, each repeat runs every engine in turn, the order reversed
    every other repeat, so a drift of the machine's speed falls on all of them alike."""
    spec = {"kind": variant.kind, "path": ".", "files": str(files_list), "jobs": variant.jobs,
            "cli_args": variant.cli_args, "config": str(config) if config else None,
            "output": str(workdir / f"{variant.name.replace(' ', '_')}.out")}
    specs = []
    for k, _path in enumerate(engines):
        one = dict(spec)
        if variant.prime:  # a result cache of its own, filled by the untimed first run
            rcache = workdir / f"rcache-{corpus_dir.name}-{variant.name.replace(' ', '_')}-{k}"
            one["cli_args"] = list(variant.cli_args) + ["--cache-dir", str(rcache)]
        specs.append(one)
    runs: List[List[dict]] = [[] for _ in engines]
    try:
        if variant.prime:
            for one, path in zip(specs, engines):
                run_child(python, one, corpus_dir, timeout, path)  # fill the result cache; not timed
        for i in range(repeat):
            order = list(range(len(engines)))
            for k in (order if i % 2 == 0 else order[::-1]):
                runs[k].append(run_child(python, specs[k], corpus_dir, timeout, engines[k]))
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        return [Measurement(variant, r, error=str(exc)) for r in runs]
    return [Measurement(variant, r) for r in runs]


def build_variants(jobs: Sequence[int], driver: str, no_cache_flag: bool, floor_only: bool,
                   extra_cli: Sequence[str], warm: bool = False) -> List[Variant]:
    """ast.parse, then one cold ``check`` per ``--jobs`` value, then (``--warm``) a run
    against a result cache filled by an untimed run before it."""
    variants = [Variant("ast.parse", "floor")]
    if floor_only:
        return variants
    cli_args = list(extra_cli)
    if driver == "cli" and no_cache_flag and "--no-cache" not in cli_args:
        cli_args.append("--no-cache")  # every timed run is a cold run
    for j in jobs:
        variants.append(Variant("check" if j == 1 else f"check -j{j}", driver, jobs=j, cli_args=cli_args))
    if warm and driver == "cli" and no_cache_flag:
        variants.append(Variant("check warm", driver, jobs=1, cli_args=list(extra_cli), prime=True))
    return variants


# --------------------------------------------------------------------------- reporting

def summarize(m: Measurement, files: int, lines: int, floor_s: Optional[float]) -> dict:
    b = m.best
    row = {"variant": m.variant.name, "kind": m.variant.kind, "jobs": m.variant.jobs,
           "cli_args": m.variant.cli_args, "error": m.error, "runs": m.runs}
    if b is None:
        return row
    s = b["wall_s"]
    row.update({
        "seconds": s,
        "lines_per_s": lines / s if s else None,
        "ms_per_file": 1000.0 * s / files if files else None,
        "cpu_s": b.get("cpu_self_s", 0.0) + b.get("cpu_children_s", 0.0),
        "rss_mb": max(r["rss_self_mb"] for r in m.runs),
        "rss_children_mb": max(r["rss_children_mb"] for r in m.runs),
        "import_s": b.get("import_s"),
        "work_s": b.get("work_s"),
        "x_floor": (s / floor_s) if floor_s else None,
        "findings": b.get("findings"),
        "findings_by_code": b.get("findings_by_code"),
        "files_seen": b.get("files_seen"),
        "files_skipped": b.get("files_skipped"),
        "parse_errors": b.get("parse_errors"),
    })
    return row


def _fmt(v, spec: str, none: str = "-") -> str:
    return none if v is None else format(v, spec)


def _headline(error: Optional[str]) -> str:
    """The most telling line of a child's failure: the engine's own message if there is one."""
    lines = [ln.strip() for ln in (error or "no result").strip().splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("msgraphlint:") or ln.startswith("Error:"):
            return ln[:100]
    return lines[-1][:100] if lines else ""


def print_table(report: dict, out=sys.stdout) -> None:
    w = max([11] + [len(r["variant"]) for c in report["corpora"].values() for r in c["variants"]])
    hdr = (f"{'corpus':<9} {'files':>5} {'lines':>8}  {'variant':<{w}} {'seconds':>8} {'cpu s':>7} {'lines/s':>9} "
           f"{'ms/file':>8} {'RSS MB':>11} {'x parse':>7} {'findings':>8}")
    print(hdr, file=out)
    print("-" * len(hdr), file=out)
    for name, c in report["corpora"].items():
        first = True
        for row in c["variants"]:
            lead = f"{name:<9} {c['files']:>5} {c['lines']:>8}" if first else " " * 24
            first = False
            if row.get("seconds") is None:
                print(f"{lead}  {row['variant']:<{w}} n/a: {_headline(row.get('error'))}", file=out)
                continue
            rss = _fmt(row["rss_mb"], ".0f")
            if row.get("rss_children_mb"):
                rss += "+" + _fmt(row["rss_children_mb"], ".0f")
            print(f"{lead}  {row['variant']:<{w}} {row['seconds']:>8.3f} {row['cpu_s']:>7.2f} "
                  f"{row['lines_per_s']:>9,.0f} {row['ms_per_file']:>8.2f} {rss:>11} {_fmt(row['x_floor'], '.1f'):>7} "
                  f"{_fmt(row.get('findings'), 'd'):>8}", file=out)
    tot = report.get("total")
    if tot:
        print("-" * len(hdr), file=out)
        lead = f"{'TOTAL':<9} {tot['files']:>5} {tot['lines']:>8}"
        for row in tot["variants"]:
            if row.get("seconds") is None:
                continue
            print(f"{lead}  {row['variant']:<{w}} {row['seconds']:>8.3f} {row['cpu_s']:>7.2f} "
                  f"{row['lines_per_s']:>9,.0f} {row['ms_per_file']:>8.2f} {'':>11} {_fmt(row['x_floor'], '.1f'):>7} "
                  f"{_fmt(row.get('findings'), 'd'):>8}", file=out)
            lead = " " * 24
    t = report["target"]
    print(file=out)
    if t["measured_lps"] is None:
        print(f"one-core target: >= {t['lines_per_s']:,} lines/s for `check --jobs 1`: not measured "
              f"({t['note']})", file=out)
    else:
        print(f"one-core target: >= {t['lines_per_s']:,} lines/s for `check --jobs 1`: "
              f"{t['measured_lps']:,.0f} lines/s over all corpora -> {'MET' if t['met'] else 'NOT MET'} "
              f"(per CPU-second: {_fmt(t.get('cpu_lps'), ',.0f')} lines/s)", file=out)
        for name, lps in t["per_corpus"].items():
            print(f"    {name:<9} {lps:>9,.0f} lines/s  {'ok' if lps >= t['lines_per_s'] else 'below'}", file=out)


def _total(report: dict) -> Optional[dict]:
    corp = list(report["corpora"].values())
    if len(corp) < 2:
        return None
    files = sum(c["files"] for c in corp)
    lines = sum(c["lines"] for c in corp)
    names = [r["variant"] for r in corp[0]["variants"]]
    rows = []
    floor_s = None
    for n in names:
        rs = [next((r for r in c["variants"] if r["variant"] == n), None) for c in corp]
        if any(r is None or r.get("seconds") is None for r in rs):
            rows.append({"variant": n, "seconds": None})
            continue
        s = sum(r["seconds"] for r in rs)
        cpu = sum(r["cpu_s"] for r in rs)
        if n == "ast.parse":
            floor_s = s
        f = [r.get("findings") for r in rs]
        rows.append({"variant": n, "seconds": s, "cpu_s": cpu, "lines_per_s": lines / s, "ms_per_file": 1000 * s / files,
                     "x_floor": (s / floor_s) if floor_s else None,
                     "findings": sum(f) if all(x is not None for x in f) else None})
    return {"files": files, "lines": lines, "variants": rows}


def _ratio(report: dict, sha: str) -> dict:
    """Each engine variant of this tree against the same variant at ``sha`` (``--against``):
    best wall and CPU seconds per corpus, and over all corpora the sums of the per-corpus bests."""
    out: dict = {"against": sha, "variants": {}}
    for name, c in report["corpora"].items():
        by = {r["variant"]: r for r in c["variants"]}
        for v, here in by.items():
            there = by.get(f"{v}@{sha}")
            if there is None or here.get("seconds") is None or there.get("seconds") is None:
                continue
            per = out["variants"].setdefault(v, {"corpora": {}, "wall": [0.0, 0.0], "cpu": [0.0, 0.0]})
            per["corpora"][name] = {"wall": [here["seconds"], there["seconds"]], "cpu": [here["cpu_s"], there["cpu_s"]],
                                    "x_wall": here["seconds"] / there["seconds"], "x_cpu": here["cpu_s"] / there["cpu_s"]}
            per["wall"][0] += here["seconds"]
            per["wall"][1] += there["seconds"]
            per["cpu"][0] += here["cpu_s"]
            per["cpu"][1] += there["cpu_s"]
    for per in out["variants"].values():
        per["x_wall"] = per["wall"][0] / per["wall"][1] if per["wall"][1] else None
        per["x_cpu"] = per["cpu"][0] / per["cpu"][1] if per["cpu"][1] else None
    return out


def print_ratio(ratio: dict, out=sys.stdout) -> None:
    print(f"\nagainst {ratio['against']} (runs interleaved; best of --repeat each; this tree / that commit):", file=out)
    for v, per in ratio["variants"].items():
        cells = "  ".join(f"{c} {r['x_cpu']:.3f}" for c, r in per["corpora"].items())
        print(f"    {v:<10} CPU {per['cpu'][0]:.2f} / {per['cpu'][1]:.2f} s = {per['x_cpu']:.3f}x, "
              f"wall {per['wall'][0]:.2f} / {per['wall'][1]:.2f} s = {per['x_wall']:.3f}x   ({cells})", file=out)


def _target(report: dict, single: str) -> dict:
    per = {}
    secs = cpu = lines = 0.0
    for name, c in report["corpora"].items():
        r = next((r for r in c["variants"] if r["variant"] == single), None)
        if r and r.get("seconds"):
            per[name] = r["lines_per_s"]
            secs += r["seconds"]
            cpu += r["cpu_s"]
            lines += c["lines"]
    if not per:
        return {"lines_per_s": ONE_CORE_TARGET_LPS, "measured_lps": None, "met": None, "per_corpus": {},
                "note": report["engine"].get("note") or "no `check --jobs 1` result"}
    lps = lines / secs
    return {"lines_per_s": ONE_CORE_TARGET_LPS, "measured_lps": lps, "met": lps >= ONE_CORE_TARGET_LPS,
            "cpu_lps": lines / cpu if cpu else None,
            "per_corpus": per, "note": "wall time of a fresh process, imports included; all corpora pooled"}


def _bytecompile_tree(python: str) -> None:
    """Byte-compile this tree's packages for the measuring interpreter, as ``pip install``
    does and as ``--against``'s snapshot is: the children run with PYTHONDONTWRITEBYTECODE,
    and so may the shell (this machine sets it), so an editable tree would otherwise be
    compiled from source in every child (~0.1-0.2 s each) and its figures would not be
    comparable with the snapshot's."""
    dirs = [str(REPO_ROOT / d) for d in ("msgraphlint", "rules", "reference_model") if (REPO_ROOT / d).is_dir()]
    if dirs:
        subprocess.run([python, "-m", "compileall", "-q", *dirs], stdout=subprocess.DEVNULL, check=False)


def _git_rev() -> Optional[str]:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=str(REPO_ROOT)).stdout.strip() or None
    except OSError:
        return None


# --------------------------------------------------------------------------- main

def _int_list(text: str) -> List[int]:
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of integers, got {text!r}")
    if not vals or any(v < 1 for v in vals):
        raise argparse.ArgumentTypeError("--jobs values must be >= 1")
    return vals


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Columns are explained in benchmarks/README.md.")
    ap.add_argument("--corpus", action="append", choices=list(CORPORA), metavar="NAME",
                    help=f"corpus to measure, repeatable (default: all of {', '.join(CORPORA)})")
    ap.add_argument("--jobs", type=_int_list, default=[1, 2], metavar="N[,N...]",
                    help="`check --jobs` values to measure (default 1,2)")
    ap.add_argument("--repeat", type=int, default=1, metavar="N", help="runs per variant; the best (fastest) counts")
    ap.add_argument("--cache-dir", default=None, metavar="DIR",
                    help="where corpora are downloaded and unpacked (default .bench_cache/ at the repo root)")
    ap.add_argument("--json", dest="json_file", default=None, metavar="FILE", help="also write the raw numbers here")
    ap.add_argument("--driver", choices=["cli", "api"], default="cli",
                    help="cli: `msgraphlint check --exit-zero --format concise --output-file F` called in the "
                         "child (default); api: msgraphlint.api.check_paths(jobs=N)")
    ap.add_argument("--engine-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for `check` (cli driver), repeatable, e.g. --engine-arg=--select=MSG1")
    ap.add_argument("--floor-only", action="store_true", help="measure only the ast.parse floor (no engine)")
    ap.add_argument("--warm", action="store_true",
                    help="also time `check` (--jobs 1) against a warm result cache (a fresh --cache-dir, "
                         "filled by one untimed run)")
    ap.add_argument("--no-bench-config", action="store_true",
                    help=f"don't pass the corpus's {BENCH_CONFIG_NAME} (respect-gitignore = false) as --config")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed to one child run (default 1800)")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the children (default: this one)")
    ap.add_argument("--against", metavar="REV", default=None,
                    help="also run every engine variant with msgraphlint/ and rules/ as committed at REV (a git "
                    "archive snapshot), interleaved with this tree's runs, and print this tree's time as a ratio")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be >= 1")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    names = args.corpus or list(CORPORA)
    dirs = ensure_corpora(names, args.cache_dir)

    engine: dict = {}
    floor_only = args.floor_only
    if not floor_only:
        info = probe_engine(args.python)
        engine = {k: v for k, v in info.items() if k != "check_help"}
        engine["no_cache_flag"] = has_flag(info, "--no-cache")
        engine["config_flag"] = has_flag(info, "--config")
        ok = info.get("cli") if args.driver == "cli" else info.get("api")
        if not ok:
            err = info.get(f"{args.driver}_error") or info.get("error") or "?"
            engine["note"] = f"engine not available ({args.driver} driver): {err}"
            print(f"[bench] {engine['note']}; measuring the ast.parse floor only", file=sys.stderr)
            floor_only = True
        elif args.driver == "cli" and not engine.get("no_cache_flag"):
            print("[bench] note: `check --no-cache` does not exist yet; runs may hit a result cache",
                  file=sys.stderr)
    if args.warm and not floor_only and (args.driver != "cli" or not engine.get("no_cache_flag")):
        print("[bench] --warm needs the cli driver and `check --no-cache/--cache-dir`; skipped", file=sys.stderr)
    variants = build_variants(args.jobs, args.driver, bool(engine.get("no_cache_flag")), floor_only,
                              args.engine_arg, warm=args.warm)

    report: dict = {
        "meta": {
            "date": _dt.datetime.now().isoformat(timespec="seconds"),
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "cpu_count": os.cpu_count(),
            "repo_rev": _git_rev(), "repeat": args.repeat, "driver": args.driver,
            "jobs": args.jobs, "seconds": "wall time of a fresh child process (startup + imports + work), best of repeat",
        },
        "engine": engine,
        "corpora": {},
    }
    if not floor_only:
        _bytecompile_tree(args.python)
    with tempfile.TemporaryDirectory(prefix="msgraphlint-bench-") as tmp:
        workdir = Path(tmp)
        against: List[tuple] = []  # (short commit, PYTHONPATH of its snapshot)
        if args.against and not floor_only:
            from _snapshot import extract, pythonpath  # benchmarks/
            snap = str(workdir / "against")
            os.mkdir(snap)
            sha = extract(args.against, snap)
            against.append((sha, pythonpath(snap)))
            report["meta"]["against"] = sha
        for name in names:
            d = dirs[name]
            files, lines, size = corpus_stats(d)
            files_list = workdir / f"{name}.files"
            files_list.write_text("".join(f"{p}\n" for p in py_files(d)), encoding="utf-8")
            print(f"[bench] {name}: {files} files, {lines:,} lines", file=sys.stderr)
            config = None
            if not floor_only and not args.no_bench_config and (args.driver == "api" or engine.get("config_flag")):
                config = write_bench_config(d)
            rows = []
            floor_s = None
            for v in variants:
                paths = [None] if v.kind == "floor" else [None] + [p for _sha, p in against]
                ms = measure(args.python, v, d, files_list, args.repeat, args.timeout, workdir,
                             config if v.kind != "floor" else None, engines=paths)
                for k, m in enumerate(ms):
                    row = summarize(m, files, lines, floor_s)
                    if k:
                        row["variant"] = f"{v.name}@{against[k - 1][0]}"
                        row["against"] = against[k - 1][0]
                    if v.kind == "floor" and row.get("seconds"):
                        floor_s = row["seconds"]
                        row["x_floor"] = 1.0
                    if row.get("error"):
                        print(f"[bench] {name} / {row['variant']}: {row['error']}", file=sys.stderr)
                    elif v.kind != "floor" and row.get("files_seen") is not None and row["files_seen"] < files // 2:
                        print(f"[bench] warning: {name} / {row['variant']} linted only {row['files_seen']} of {files} "
                              "files (excluded by .gitignore? try --cache-dir outside the repo)", file=sys.stderr)
                    rows.append(row)
            report["corpora"][name] = {"path": str(d), "files": files, "lines": lines, "bytes": size,
                                       "variants": rows}
    report["total"] = _total(report)
    report["target"] = _target(report, "check")
    if report["meta"].get("against"):
        report["ratio"] = _ratio(report, report["meta"]["against"])

    print_table(report)
    if report.get("ratio"):
        print_ratio(report["ratio"])
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"[bench] raw numbers written to {args.json_file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

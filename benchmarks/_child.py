"""One measured variant, run in a fresh interpreter by ``lint_throughput.py``.

    python benchmarks/_child.py SPEC_JSON

SPEC is a JSON object: ``{"kind": "floor"|"cli"|"api", "path": DIR, "files": LISTFILE,
"jobs": N, "cli_args": [...], "config": TOML or null, "output": FILE}``. The child does the work, then prints
one JSON line on stdout: its own timings (imports and work separately), peak RSS of
itself and of its (waited-for) children, and the counts it saw.

It imports only the standard library before the measured part, so what it reports
as ``import_s`` is the engine's own import cost.
"""

import json
import resource
import sys
import time

_T0 = time.perf_counter()

# Concise lines look like "path:line:col: CODE message"; count those, not summaries.
_FINDING_RE = r"^.+?:\d+:\d+: [A-Z]+[0-9]+\b"


def _maxrss_mb(who: int) -> float:
    kb = resource.getrusage(who).ru_maxrss
    return kb / (1024.0 * 1024.0) if sys.platform == "darwin" else kb / 1024.0


def run_floor(spec: dict) -> dict:
    import ast
    import warnings

    with open(spec["files"], encoding="utf-8") as fh:
        paths = [line.rstrip("\n") for line in fh if line.strip()]
    t_work = time.perf_counter()
    errors = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p in paths:
            with open(p, "rb") as fh:
                data = fh.read()
            try:
                ast.parse(data, filename=p)
            except (SyntaxError, ValueError, RecursionError):
                errors += 1
    return {"import_s": 0.0, "work_s": time.perf_counter() - t_work,
            "files_seen": len(paths), "parse_errors": errors}


def run_api(spec: dict) -> dict:
    t_imp = time.perf_counter()
    from msgraphlint.api import check_paths

    t_work = time.perf_counter()
    results = check_paths([spec["path"]], jobs=spec["jobs"], config_file=spec.get("config"))
    work = time.perf_counter() - t_work
    findings = 0
    by_code: dict = {}
    for r in results:  # what the reporters show: findings plus unused-suppression reports
        for f in list(r.findings) + list(getattr(r, "unused_suppressions", None) or ()):
            findings += 1
            by_code[f.code] = by_code.get(f.code, 0) + 1
    return {"import_s": t_work - t_imp, "work_s": work, "files_seen": len(results),
            "files_skipped": sum(1 for r in results if getattr(r, "skipped", False)),
            "engine_lines": sum(getattr(r, "lines", 0) or 0 for r in results),
            "findings": findings, "findings_by_code": dict(sorted(by_code.items()))}


def run_cli(spec: dict) -> dict:
    import re

    t_imp = time.perf_counter()
    from msgraphlint.cli import main

    out = spec["output"]
    argv = ["check", "--exit-zero", "--format", "concise", "--output-file", out,
            "--jobs", str(spec["jobs"])]
    if spec.get("config"):
        argv += ["--config", spec["config"]]
    argv += list(spec.get("cli_args", ())) + [spec["path"]]
    try:  # as the console script runs a one-shot check (cli.main, argv None): the run's objects
        # are left to the process's end (os._exit), not freed as it returns
        from msgraphlint.run.runner import keep_for_exit
    except ImportError:  # an engine before it (--against)
        keep_for_exit = None
    t_work = time.perf_counter()
    code = 0
    if keep_for_exit is not None:
        keep_for_exit()
    try:
        rc = main(argv)
        code = rc if isinstance(rc, int) else 0
    except SystemExit as exc:  # click's standalone mode
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    work = time.perf_counter() - t_work
    if code != 0:  # --exit-zero is given, so anything else is a usage or internal error
        raise SystemExit(f"msgraphlint {' '.join(argv)} exited {code}")
    findings = 0
    by_code: dict = {}
    pat = re.compile(_FINDING_RE)
    with open(out, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            m = pat.match(line)
            if m:
                findings += 1
                c = m.group(0).rsplit(" ", 1)[-1]
                by_code[c] = by_code.get(c, 0) + 1
    return {"import_s": t_work - t_imp, "work_s": work, "exit_code": code,
            "findings": findings, "findings_by_code": dict(sorted(by_code.items()))}


def main() -> int:
    spec = json.loads(sys.argv[1])
    kind = spec["kind"]
    res = {"floor": run_floor, "api": run_api, "cli": run_cli}[kind](spec)
    res["child_s"] = time.perf_counter() - _T0
    res["rss_self_mb"] = _maxrss_mb(resource.RUSAGE_SELF)
    res["rss_children_mb"] = _maxrss_mb(resource.RUSAGE_CHILDREN)
    for who, key in ((resource.RUSAGE_SELF, "cpu_self_s"), (resource.RUSAGE_CHILDREN, "cpu_children_s")):
        ru = resource.getrusage(who)
        res[key] = ru.ru_utime + ru.ru_stime
    sys.stdout.write("\n@@RESULT@@" + json.dumps(res) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Compile a seeded sample of MindSpore's run-time fallback tests on the installed MindSpore
(2.10 CPU here) and record what the compiler did, for ``benchmarks/oracle_mindspore_tests.py``.

    .venv/bin/python scripts/oracle_compile_sample.py --sample 20 --seed 0

The oracle counts every test of ``fallback/**/test_*runtime*.py`` as an expected fallback
(MindSpore 2.7's own naming). Whether 2.10 still falls back is a fact only a compile gives:
each sampled test function runs in its own child process, in a scratch directory under /tmp,
with ``MS_DEV_SAVE_GRAPHS=1`` and the validate IR dumped; the child counts PyExecute and
PyInterpret nodes. Verdicts go to ``benchmarks/data/oracle_verdicts.json`` (key
``relpath::test``):

* passes with PyExecute/PyInterpret nodes → ``in reach`` (a real fallback the linter must see);
* passes with none → ``changed since 2.7`` (no run-time fallback on this MindSpore);
* fails → ``changed since 2.7`` with the first line of the error.

With ``--failures`` it samples the in-reach ``pytest.raises`` assertions instead: the test
passes on 2.10 (it still raises as asserted) → ``in reach``; it fails (``DID NOT RAISE`` or
another error) → ``changed since 2.7``.

Only tests without parameters at module level are sampled (the child calls them bare).
``tests.mark_utils.arg_mark`` is stubbed (a no-op decorator). Existing verdicts are kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

CHILD = textwrap.dedent(r"""
    import glob, importlib, json, os, re, sys
    corpus, rel, names, out = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
    # a `tests` package in the scratch dir: `tests.mark_utils.arg_mark` stubbed, `tests.st.compiler` -> the corpus
    root = os.path.join(os.getcwd(), "pkgroot")
    os.makedirs(os.path.join(root, "tests", "st"))
    for d in ("tests", os.path.join("tests", "st")):
        open(os.path.join(root, d, "__init__.py"), "w").close()
    with open(os.path.join(root, "tests", "mark_utils.py"), "w") as fh:
        fh.write("def arg_mark(*a, **k):\n    return lambda f: f\n")
    os.symlink(corpus, os.path.join(root, "tests", "st", "compiler"))
    sys.path.insert(0, root)
    modname = "tests.st.compiler." + rel[:-3].replace(os.sep, ".")
    LOC = re.compile(r"# In file (.+?):(\d+)")

    def irs():
        return set(glob.glob(os.path.join(os.getcwd(), "**", "*validate*.ir"), recursive=True))

    def fallback_nodes(files):
        # PyExecute/PyInterpret nodes, and the corpus lines their `# In file` comments name
        nodes, lines = 0, set()
        for f in files:
            with open(f, errors="replace") as fh:
                text = fh.read().splitlines()
            for i, line in enumerate(text):
                if "PyExecute(" not in line and "PyInterpret(" not in line:
                    continue
                nodes += 1
                for nxt in text[i + 1:i + 12]:
                    if nxt.lstrip().startswith("%") or nxt.startswith("}"):
                        break
                    m = LOC.search(nxt)
                    if m and os.path.realpath(m.group(1)).endswith(rel):
                        lines.add(int(m.group(2)))
                        break
        return nodes, sorted(lines)

    results = {}
    try:
        mod = importlib.import_module(modname)
    except BaseException as exc:
        mod, err = None, (type(exc).__name__ + ": " + (str(exc).strip().splitlines() or [""])[0])[:200]
    for name in names:
        res = {"passed": False, "error": None}
        before = irs()
        if mod is None:
            res["error"] = err
        else:
            try:
                getattr(mod, name)()
                res["passed"] = True
            except BaseException as exc:
                res["error"] = (type(exc).__name__ + ": " + (str(exc).strip().splitlines() or [""])[0])[:200]
        res["fallback_nodes"], res["fallback_lines"] = fallback_nodes(irs() - before)
        results[name] = res
        with open(out, "w") as fh:
            json.dump(results, fh)
""")


def run_file(corpus: str, rel: str, names, timeout: int = 900) -> dict:
    """Run ``names`` (tests of one file) in one child, in order, as pytest would; each test's
    result and the fallback nodes of the IR written while it ran."""
    with tempfile.TemporaryDirectory(prefix="oracle_", dir="/tmp") as tmp:
        out = os.path.join(tmp, "result.json")
        env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=tmp,
                   MS_DEV_DUMP_IR_PASSES="validate", GLOG_v="3")
        try:
            subprocess.run([sys.executable, "-c", CHILD, os.path.abspath(corpus), rel, ",".join(names), out], cwd=tmp,
                           env=env, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        done = {}
        if os.path.exists(out):
            with open(out) as fh:
                done = json.load(fh)
        # a test the child never finished: a timeout or a crash (its successors are not judged)
        return {n: done.get(n, {"passed": False, "error": "child crashed", "fallback_nodes": 0, "fallback_lines": []})
                for n in names}


def run_one(corpus: str, rel: str, name: str, timeout: int = 180) -> dict:
    return run_file(corpus, rel, [name], timeout)[name]


def main(argv=None) -> int:
    import oracle_mindspore_tests as oracle

    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", default="0")
    ap.add_argument("--corpus", default=oracle.DEFAULT_CORPUS)
    ap.add_argument("--failures", action="store_true",
                    help="sample the in-reach failure assertions (pytest.raises) instead of the fallback tests")
    ap.add_argument("--success-claims", action="store_true",
                    help="compile the tests that assert success where a finding claims PyExecute (its test-level "
                         "verdict is 'compiles', with the node count the oracle checks the claim against)")
    ap.add_argument("--all", action="store_true", help="every candidate, not a sample (one child per file)")
    ap.add_argument("--recompile", action="store_true", help="judge tests that already have a verdict again")
    args = ap.parse_args(argv)
    res = oracle.analyse(args.corpus)
    verdicts = {}
    if os.path.exists(oracle.VERDICTS):
        with open(oracle.VERDICTS, encoding="utf-8") as fh:
            verdicts = json.load(fh)
    import ast
    cands = []
    if args.success_claims:
        fallback_tests = {r["test"] for r in res["fallbacks"]}
        pool = [r for r in res["successes"] if r["test"] not in fallback_tests
                and any(f.get("pyexecute_claim") for f in r["findings"])]
    elif args.failures:
        pool = [r for r in res["failures"] if r["reach"] == "in reach"]
    else:
        pool = res["fallbacks"]
    seen = set()
    for r in pool:
        if r["test"] in seen or (r["test"] in verdicts and not args.recompile) or "." in r["test"].split("::")[1]:
            continue
        seen.add(r["test"])
        rel, name = r["test"].split("::")
        path = os.path.join(args.corpus, rel)
        tree = ast.parse(open(path, encoding="utf-8").read())
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
        if fn is None or fn.args.args:
            continue
        cands.append((hashlib.sha256(f"{args.seed}:{r['test']}".encode()).hexdigest(), r["test"], rel, name))
    cands.sort()
    if not args.all:
        cands = cands[:args.sample]
    by_file = {}
    for _, key, rel, name in cands:
        by_file.setdefault(rel, []).append(name)
    for rel in sorted(by_file):
        # in file order, as pytest runs them
        order = {n.name: n.lineno for n in ast.parse(open(os.path.join(args.corpus, rel), encoding="utf-8").read()).body
                 if isinstance(n, ast.FunctionDef)}
        names = sorted(by_file[rel], key=lambda n: order.get(n, 0))
        outs = run_file(args.corpus, rel, names)
        for name in names:
            key, out = f"{rel}::{name}", outs[name]
            v = _success_verdict(out) if args.success_claims else _verdict(out, args.failures)
            print(key, v or ("not judged: " + str(out["error"])), flush=True)
            if v:
                verdicts[key] = v
        _save(oracle, verdicts)
    _save(oracle, verdicts)
    return 0


def _verdict(out: dict, failures: bool):
    if not out["passed"] and out["error"] and out["error"].startswith(("ImportError", "ModuleNotFoundError",
                                                                      "timeout", "child crashed")):
        return None
    if failures:
        # the test wraps the graph call in pytest.raises: it passes when 2.10 still raises
        if out["passed"]:
            return {"verdict": "in reach", "evidence": "2.10 CPU: still raises as the test asserts"}
        return {"verdict": "changed since 2.7", "evidence": f"2.10 CPU: the test fails: {out['error']}"}
    if out["passed"]:
        return _passed("in reach" if out["fallback_nodes"] else "changed since 2.7", out)
    return {"verdict": "changed since 2.7", "evidence": f"2.10 CPU: fails: {out['error']}"}


def _success_verdict(out: dict):
    """A test that asserts success: only a pass says how many fallback nodes its graphs have."""
    return _passed("compiles", out) if out["passed"] else None


def _passed(verdict: str, out: dict) -> dict:
    """A test that passed on 2.10: its fallback nodes (the evidence text the oracle reads back:
    ``oracle_mindspore_tests.FALLBACK_NODES`` / ``NO_FALLBACK_NODES``) and the lines they name."""
    if not out["fallback_nodes"]:
        return {"verdict": verdict, "evidence": "2.10 CPU: passes with no PyExecute/PyInterpret node"}
    v = {"verdict": verdict, "evidence": f"2.10 CPU: passes, {out['fallback_nodes']} PyExecute/PyInterpret nodes"}
    if out.get("fallback_lines"):
        v["fallback_lines"] = out["fallback_lines"]
    return v


def _save(oracle, verdicts) -> None:
    os.makedirs(os.path.dirname(oracle.VERDICTS), exist_ok=True)
    tmp = oracle.VERDICTS + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(dict(sorted(verdicts.items())), fh, indent=1)
        fh.write("\n")
    os.replace(tmp, oracle.VERDICTS)


if __name__ == "__main__":
    sys.exit(main())

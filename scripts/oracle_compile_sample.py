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
    import glob, importlib, json, os, sys
    corpus, rel, name, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
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
    res = {"passed": False, "error": None}
    try:
        mod = importlib.import_module(modname)
        getattr(mod, name)()
        res["passed"] = True
    except BaseException as exc:
        res["error"] = (type(exc).__name__ + ": " + (str(exc).strip().splitlines() or [""])[0])[:200]
    nodes = 0
    for f in glob.glob(os.path.join(os.getcwd(), "**", "*validate*.ir"), recursive=True):
        with open(f, errors="replace") as fh:
            text = fh.read()
        nodes += text.count("PyExecute(") + text.count("PyInterpret(")
    res["fallback_nodes"] = nodes
    with open(out, "w") as fh:
        json.dump(res, fh)
""")


def run_one(corpus: str, rel: str, name: str, timeout: int = 180) -> dict:
    with tempfile.TemporaryDirectory(prefix="oracle_", dir="/tmp") as tmp:
        out = os.path.join(tmp, "result.json")
        env = dict(os.environ, MS_DEV_SAVE_GRAPHS="1", MS_DEV_SAVE_GRAPHS_PATH=tmp,
                   MS_DEV_DUMP_IR_PASSES="validate", GLOG_v="3")
        try:
            subprocess.run([sys.executable, "-c", CHILD, os.path.abspath(corpus), rel, name, out], cwd=tmp, env=env,
                           capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"passed": False, "error": "timeout", "fallback_nodes": 0}
        if not os.path.exists(out):
            return {"passed": False, "error": "child crashed", "fallback_nodes": 0}
        with open(out) as fh:
            return json.load(fh)


def main(argv=None) -> int:
    import oracle_mindspore_tests as oracle

    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", default="0")
    ap.add_argument("--corpus", default=oracle.DEFAULT_CORPUS)
    ap.add_argument("--failures", action="store_true",
                    help="sample the in-reach failure assertions (pytest.raises) instead of the fallback tests")
    args = ap.parse_args(argv)
    res = oracle.analyse(args.corpus)
    verdicts = {}
    if os.path.exists(oracle.VERDICTS):
        with open(oracle.VERDICTS, encoding="utf-8") as fh:
            verdicts = json.load(fh)
    import ast
    cands = []
    pool = [r for r in res["failures"] if r["reach"] == "in reach"] if args.failures else res["fallbacks"]
    for r in pool:
        if r["test"] in verdicts or "." in r["test"].split("::")[1]:
            continue
        rel, name = r["test"].split("::")
        path = os.path.join(args.corpus, rel)
        tree = ast.parse(open(path, encoding="utf-8").read())
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
        if fn is None or fn.args.args:
            continue
        cands.append((hashlib.sha256(f"{args.seed}:{r['test']}".encode()).hexdigest(), r["test"], rel, name))
    cands.sort()
    for _, key, rel, name in cands[:args.sample]:
        out = run_one(args.corpus, rel, name)
        if not out["passed"] and out["error"] and out["error"].startswith(("ImportError", "ModuleNotFoundError",
                                                                          "timeout", "child crashed")):
            print(key, "not judged:", out["error"], flush=True)
            continue
        if args.failures:
            # the test wraps the graph call in pytest.raises: it passes when 2.10 still raises
            if out["passed"]:
                v = {"verdict": "in reach", "evidence": "2.10 CPU: still raises as the test asserts"}
            else:
                v = {"verdict": "changed since 2.7", "evidence": f"2.10 CPU: the test fails: {out['error']}"}
        elif out["passed"] and out["fallback_nodes"]:
            v = {"verdict": "in reach", "evidence": f"2.10 CPU: passes, {out['fallback_nodes']} PyExecute/PyInterpret nodes"}
        elif out["passed"]:
            v = {"verdict": "changed since 2.7", "evidence": "2.10 CPU: passes with no PyExecute/PyInterpret node"}
        else:
            v = {"verdict": "changed since 2.7", "evidence": f"2.10 CPU: fails: {out['error']}"}
        print(key, v, flush=True)
        verdicts[key] = v
    os.makedirs(os.path.dirname(oracle.VERDICTS), exist_ok=True)
    with open(oracle.VERDICTS, "w", encoding="utf-8") as fh:
        json.dump(dict(sorted(verdicts.items())), fh, indent=1)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""MindSpore's own compiler tests as a development oracle.

    .venv/bin/python benchmarks/oracle_mindspore_tests.py                 # print the table
    .venv/bin/python benchmarks/oracle_mindspore_tests.py --write         # also benchmarks/results/oracle_mindspore_tests.{md,json}
    .venv/bin/python benchmarks/oracle_mindspore_tests.py --corpus PATH   # another checkout of tests/st/compiler

The corpus (default ``../shared/corpus/mindspore-st-compiler`` from the repository root) is
MindSpore's ``tests/st/compiler`` at 2.7 master. It is linted as one project with every rule
at its defaults (``msgraphlint.run.runner.run_paths``), and its graph scopes are found with the
engine's own discovery (``ProjectIndex`` + ``scopes.discover``). Then every test function is
read for what it asserts about graph mode:

* **failure**: a ``with pytest.raises(E[, match=...])`` block that calls a graph-mode target
  (an instance of a Cell class, a Cell class called directly, a jit function; a name bound
  in the test or at module level). The message is ``match=`` plus the strings the test
  checks with ``assert "..." in str(err.value)``. The message decides the rule family
  (``FAMILY_PATTERNS``); a message that is about run-time values (an operator's argument
  check, the test's own ``raise``, an index out of range) is **out of static reach**.
* **fallback**: a test of ``fallback/**/test_*runtime*.py`` (MindSpore's own name for JIT
  fallback at run time, i.e. PyExecute) that calls a graph target outside ``pytest.raises``
  and asserts a result: the target is expected to fall back.
* **success**: any other test that calls a graph target outside ``pytest.raises``, has no
  ``pytest.raises`` at all and asserts something: the code compiles and runs. Every finding
  on such a target is listed; one that claims the code does not compile at MindSpore's
  default syntax level is contradicted by the test (a false positive). A finding that claims
  PyExecute is contradicted when the test, compiled on 2.10 (``scripts/oracle_compile_sample.py
  --success-claims``), passes with no PyExecute/PyInterpret node at all; with such nodes it is
  counted as consistent (the node's line is not checked). Other cost claims (a Switch, a
  recompile) are neither confirmed nor refuted by a passing test; they are listed for reading,
  and ``precision`` counts only the contradicted ones.

A target's lines are its root scope (``construct``/``bprop``/the jit function) and the helpers
discovery reached from it, plus the lines of the test's own calls of it (a finding there is
about the arguments that call passes; for success tests such findings are judged too). An assertion is **hit** when a finding of its family's rules lies on
those lines (for fallback also any finding whose message says PyExecute/the interpreter; for a STRICT-level
syntax failure also any finding whose message says the code fails to compile under STRICT). A miss gets a reason: *in reach* (the linter should have seen it), *out of static
reach* (no graph scope is invoked in the block, or the failure depends on run-time values), or
*changed since 2.7*. Verdicts measured by compiling on MindSpore 2.10 CPU live in
``benchmarks/data/oracle_verdicts.json`` (key ``relpath::test_name``; ``verdict`` one of
``changed since 2.7``, ``out of static reach``, ``in reach``; ``evidence`` says what the compile
showed) and override the automatic reason. The test code is read, never copied.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from typing import Dict, List, Optional, Set, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from msgraphlint.project.index import ProjectIndex, all_functions  # noqa: E402
from msgraphlint.engine.registry import load_rules  # noqa: E402
from msgraphlint.run.runner import run_paths  # noqa: E402
from msgraphlint.project.scopes import discover  # noqa: E402
from msgraphlint.parse.source import SourceError, SourceFile  # noqa: E402

def _default_corpus() -> str:
    """``../shared/corpus/mindspore-st-compiler`` from the repository root (from a git
    worktree nested deeper, the first ``shared/`` found walking up)."""
    d = ROOT
    for _ in range(4):
        d = os.path.dirname(d)
        cand = os.path.join(d, "shared", "corpus", "mindspore-st-compiler")
        if os.path.isdir(cand):
            return cand
    return os.path.join(ROOT, "..", "shared", "corpus", "mindspore-st-compiler")


DEFAULT_CORPUS = _default_corpus()
VERDICTS = os.path.join(ROOT, "benchmarks", "data", "oracle_verdicts.json")
RESULTS = os.path.join(ROOT, "benchmarks", "results")

# family -> rule modules (rules/<module>.py) whose codes count for it
FAMILY_MODULES = {
    "control_flow": ("control_flow", "branch_join"),
    "dynamic_shape": ("dynamic_shape",),
    "inplace": ("inplace",),
    "side_effect": ("side_effects", "print_in_graph"),
    "fallback": ("fallback", "host_sync", "graph_outputs", "builtin_fallback", "sequence_ops", "attribute_errors", "python_objects"),
    "syntax": ("unsupported_syntax",),
    "forbidden_api": ("legacy_api", "forbidden_api", "jit_forbidden", "deprecated_api", "outside_graph"),
    "api_signature": ("torch_leftovers", "tensor_habits", "tensor_api", "api_habits", "tensor_signatures"),
}

# message (or exception type) -> family; first match wins; None: about run-time values
FAMILY_PATTERNS: List[Tuple[str, Optional[str]]] = [
    (r"Unsupported statement|Unsupported expression|Unsupported syntax|statement is not supported now"
     r"|Only support jit_class|only attribute and name of class members can be assigned"
     r"|In JIT strict mode|should be initialized as a 'Parameter'|must be of the Parameter type"
     # decidable from the test's source (issue 22): two `for` clauses in a comprehension, a lambda
     r"|'generators' supports 1 'comprehension'|Parse Lambda Function Fail", "syntax"),
    (r"compile and execute|jit_forbidden|is not supported in (?:graph mode|GRAPH_MODE|jit)"
     r"|Failed to compile in GRAPH_MODE because the API", "forbidden_api"),
    (r"Cannot join the return values of different branches|different branches|\bjoin\b", "control_flow"),
    (r"in-place|inplace|view inplace", "inplace"),
    (r"[Ff]allback|PyExecute|PyInterpret|asnumpy|should be constant|inputs should be constant"
     r"|has no attribute|object has no attribute", "fallback"),
    (r"dynamic shape|[Dd]ynamic[ -]shape|dynamic length|dyn_len|can not mutable|mutable", "dynamic_shape"),
    (r"side effect|Side effect", "side_effect"),
    (r"match failed because|The valid calling should be|Failed calling \w+ with|takes \d+ positional argument"
     r"|missing \d+ required|unexpected keyword"
     # a literal argument of the wrong type for a Tensor method's overloads (issue 22: MindSpore
     # prints the overloads, `Tensor.clamp(min=<number,None>, ...) | ...`, or names the argument)
     r"|argument '\w+' (?:\(position \d+\) )?must be|^Tensor\.\w+\(", "api_signature"),
]

# messages of errors Python raises in any mode (an operator or a builtin on the wrong Python
# types): not graph-mode behaviour, so out of every family's reach whatever the values
PYTHON_ERRORS = re.compile(r"unsupported operand type|not supported between|is not iterable|Slice indices must be"
                           r"|can only assign an iterable|must assign iterable to extended slice"
                           r"|tuple indices must be integers")

FAILURE_CLAIM = re.compile(r"does not compile|fails to compile|is rejected|compile error")
STRICT_ONLY = re.compile(r"under STRICT|STRICT only|at STRICT|in STRICT")


def family_codes() -> Dict[str, Set[str]]:
    out: Dict[str, Set[str]] = defaultdict(set)
    for code, rule in load_rules().items():
        mod = rule.__module__.rsplit(".", 1)[-1]
        for fam, mods in FAMILY_MODULES.items():
            if mod in mods:
                out[fam].add(code)
    return out


def classify(message: str, exc: str) -> Optional[str]:
    for pattern, fam in FAMILY_PATTERNS:
        if re.search(pattern, message):
            return fam
    return None


# reading the tests ------------------------------------------------------------------------
def _is_raises(item: ast.withitem) -> bool:
    e = item.context_expr
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "raises" \
        and isinstance(e.func.value, ast.Name) and e.func.value.id == "pytest"


def _str(node) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def _messages_about(func: ast.AST, var: Optional[str]) -> List[str]:
    """Strings a test checks against ``str(<var>.value)``."""
    out = []
    if not var:
        return out
    for n in ast.walk(func):
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.In):
            right = ast.unparse(n.comparators[0])
            if var in right and "value" in right:
                s = _str(n.left)
                if s:
                    out.append(s)
    return out


class TestFile:
    """One test module: its tests, the graph targets each test binds, what each asserts."""

    def __init__(self, path: str, rel: str, tree: ast.Module, scopes, findings, modname: str) -> None:
        self.path, self.rel, self.tree = path, rel, tree
        self.scopes = scopes
        self.findings = findings
        self.funcs = all_functions(tree)
        self.module_graph = any("GRAPH_MODE" in ast.unparse(s) for s in tree.body
                                if isinstance(s, (ast.Expr, ast.Assign, ast.If)))
        # root scopes by class key / function qualname; helpers by their root
        self.roots_by_class: Dict[str, list] = defaultdict(list)
        self.roots_by_func: Dict[str, object] = {}
        self.helpers_of: Dict[str, list] = defaultdict(list)
        for s in scopes:
            if s.chain:
                if s.root_site:
                    self.helpers_of[s.root_site[3]].append(s)
            elif s.class_key and s.kind == "construct":
                self.roots_by_class[s.class_key].append(s)
            else:
                self.roots_by_func[s.qualname[len(modname) + 1:] if s.qualname.startswith(modname + ".") else s.qualname] = s

    def tests(self):
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                yield node.name, node, None
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                        yield f"{node.name}.{item.name}", item, node.name

    def _local_key(self, test: ast.AST, prefix: str, name: str) -> Optional[str]:
        """The summary key of a class/function ``name`` as seen from inside ``test``."""
        local = f"{prefix}.<locals>.{name}"
        if local in self.roots_by_class or local in self.roots_by_func:
            return local
        if name in self.roots_by_class or name in self.roots_by_func:
            return name
        return None

    def bindings(self, test: ast.AST, prefix: str) -> Dict[str, str]:
        """name -> target key (class key or function key) for names the test binds to a graph
        target: nested classes/jit functions, ``net = Net(...)``, ``f = jit(g)``; module-level
        Cells and jit functions by their own names."""
        out: Dict[str, str] = {}
        for key in list(self.roots_by_class) + list(self.roots_by_func):
            if "<locals>" not in key:
                out[key] = key
        for n in ast.walk(test):
            if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and n is not test:
                k = self._local_key(test, prefix, n.name)
                if k:
                    out[n.name] = k
        for n in ast.walk(test):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
                f = n.value.func
                name = f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)
                key = out.get(name) if name else None
                if key is None and name in ("jit", "ms_function"):
                    wrapped = (n.value.args[:1] + [k.value for k in n.value.keywords if k.arg in ("fn", "function")])
                    if wrapped and isinstance(wrapped[0], ast.Name):
                        key = out.get(wrapped[0].id)
                if key:
                    for t in n.targets:
                        if isinstance(t, ast.Name):
                            out[t.id] = key
        return out

    def invoked(self, body: List[ast.stmt], binds: Dict[str, str]) -> Set[str]:
        return self._invocations(body, binds)[0]

    def call_lines(self, body: List[ast.stmt], binds: Dict[str, str]) -> Set[int]:
        """The lines of the calls in ``body`` that invoke a graph target: a finding there is
        about this call (the arguments it passes), not about the target's code."""
        return self._invocations(body, binds)[1]

    def _invocations(self, body: List[ast.stmt], binds: Dict[str, str]) -> Tuple[Set[str], Set[int]]:
        keys: Set[str] = set()
        lines: Set[int] = set()
        for stmt in body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Call):
                    f = n.func
                    before = len(keys)
                    if isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id in binds \
                            and binds[f.func.id] in self.roots_by_class:
                        keys.add(binds[f.func.id])                      # Net()(x)
                    if isinstance(f, ast.Name) and f.id in binds:
                        key = binds[f.id]
                        if key in self.roots_by_func or not _is_class_name(f.id, key):
                            keys.add(key)                               # net(x), fn(x)
                            lines.update(range(n.lineno, (n.end_lineno or n.lineno) + 1))
                    for a in list(n.args) + [k.value for k in n.keywords]:
                        if isinstance(a, ast.Name) and a.id in binds and not _is_class_name(a.id, binds[a.id]):
                            keys.add(binds[a.id])                       # grad(net)(x)
                    if len(keys) > before or isinstance(f, ast.Call):
                        if isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id in binds:
                            lines.update(range(n.lineno, (n.end_lineno or n.lineno) + 1))
        return keys, lines

    def lines_of(self, keys: Set[str]) -> Set[int]:
        lines: Set[int] = set()
        roots = []
        for k in keys:
            roots.extend(self.roots_by_class.get(k, []))
            if k in self.roots_by_func:
                roots.append(self.roots_by_func[k])
        todo = list(roots)
        seen = set()
        while todo:
            s = todo.pop()
            if s.qualname in seen:
                continue
            seen.add(s.qualname)
            node = self.funcs.get(s.lineno)
            if node is not None and os.path.abspath(s.path) == os.path.abspath(self.path):
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            todo.extend(self.helpers_of.get(s.qualname, []))
        return lines

    def graph_mode(self, test: ast.AST, keys: Set[str]) -> bool:
        if any(k in self.roots_by_func for k in keys):
            return True  # jit functions compile in either mode
        text = ast.unparse(test)
        if "PYNATIVE_MODE" in text and "GRAPH_MODE" not in text:
            return False
        return "GRAPH_MODE" in text or self.module_graph or "jit" in text


FALLBACK_CLAIM = re.compile(r"\bPyExecute\b|interpreter fallback|runs in the (?:Python )?interpreter")
# what scripts/oracle_compile_sample.py writes for a test that passes on 2.10
NO_FALLBACK_NODES = "passes with no PyExecute/PyInterpret node"
FALLBACK_NODES = re.compile(r"passes, \d+ PyExecute/PyInterpret nodes")
# a finding that predicts the failure a STRICT-level assertion ("In JIT strict mode ...") checks
STRICT_FAILURE_CLAIM = re.compile(r"under STRICT (?:it )?(?:fails to compile|does not compile|is rejected)"
                                  r"|(?:fails|does not compile) (?:at|under) STRICT")


def _said(f) -> str:
    """What a finding says: its title and, on the following lines, its detail (issue 26 moved
    what happens in the graph, PyExecute and STRICT included, out of the title)."""
    return getattr(f, "full_message", None) or f.message


def _counts_for(f, fam: str, codes) -> bool:
    """A finding of the family's rules, or (for fallback) any finding whose message says the
    code goes through the interpreter (PyExecute), or (for syntax) any finding whose message says
    the code fails to compile under STRICT, whichever family its rule belongs to."""
    said = _said(f)
    return (f.code in codes.get(fam, ()) or (fam == "fallback" and bool(FALLBACK_CLAIM.search(said)))
            or (fam == "syntax" and bool(STRICT_FAILURE_CLAIM.search(said))))


def _judge(f, test_key: str, verdicts: dict) -> dict:
    """A finding on code its test runs: contradicted when it claims a default-level compile
    failure; when it claims PyExecute and the test, compiled on 2.10 (the verdicts file's
    test-level entry, ``scripts/oracle_compile_sample.py``), passes with no PyExecute or
    PyInterpret node at all; or when a compile recorded for the finding itself (key
    ``relpath::test::line::code``) says the claim is false."""
    said = _said(f)
    rec = {"code": f.code, "line": f.line, "message": said.replace("\n", " ")[:200],
           "contradicted": bool(FAILURE_CLAIM.search(said)) and not STRICT_ONLY.search(said),
           "pyexecute_claim": bool(FALLBACK_CLAIM.search(said))}
    test = verdicts.get(test_key)
    if test and rec["pyexecute_claim"]:
        ev = test.get("evidence", "")
        if NO_FALLBACK_NODES in ev:
            rec["contradicted"] = True
            rec["evidence"] = ev
        elif FALLBACK_NODES.search(ev):
            rec["evidence"] = ev  # consistent: the graph does fall back (the node's line is not checked)
    v = verdicts.get(f"{test_key}::{f.line}::{f.code}")
    if v:
        rec["contradicted"] = v["verdict"] == "FP"
        rec["evidence"] = v.get("evidence", "")
    return rec


def _skipped(test: ast.AST) -> bool:
    return any(isinstance(d, (ast.Call, ast.Attribute)) and ast.unparse(d.func if isinstance(d, ast.Call) else d)
               .endswith("mark.skip") for d in test.decorator_list)  # type: ignore[attr-defined]


def _is_class_name(name: str, key: str) -> bool:
    return key.rsplit(".", 1)[-1] == name and name[:1].isupper()


# the run ----------------------------------------------------------------------------------
def collect(corpus: str):
    corpus = os.path.abspath(corpus)
    files = []
    for d, dirs, names in os.walk(corpus):
        dirs.sort()
        for n in sorted(names):
            if n.endswith(".py"):
                files.append(os.path.join(d, n))
    t0 = time.time()
    result = run_paths([corpus])
    lint_s = time.time() - t0
    by_path = defaultdict(list)
    for fr in result.files:
        by_path[os.path.abspath(fr.path)].extend(fr.findings)
    index = ProjectIndex()
    sources = {}
    for p in files:
        try:
            src = SourceFile.read(p)
            src.tree  # noqa: B018 (parse now)
        except (OSError, SourceError):
            continue
        sources[p] = src
        index.add_source(src)
    scopes = discover(index)
    return corpus, files, sources, scopes, by_path, lint_s, index


def analyse(corpus: str):
    corpus, files, sources, scopes, by_path, lint_s, index = collect(corpus)
    codes = family_codes()
    verdicts = {}
    if os.path.exists(VERDICTS):
        with open(VERDICTS, encoding="utf-8") as fh:
            verdicts = json.load(fh)
    failures, fallbacks, successes = [], [], []
    n_tests = 0
    for path, src in sources.items():
        rel = os.path.relpath(path, corpus)
        if not os.path.basename(path).startswith("test"):
            continue
        summary = index.module_of_path(path)
        tf = TestFile(path, rel, src.tree, scopes.get(os.path.abspath(path), []), by_path.get(os.path.abspath(path), []),
                      summary.name if summary else "")
        runtime_fallback = rel.startswith("fallback" + os.sep) and "runtime" in os.path.basename(path)
        for name, test, cls in tf.tests():
            n_tests += 1
            prefix = f"{cls}.{test.name}" if cls else test.name
            binds = tf.bindings(test, prefix)
            raises = [n for n in ast.walk(test) if isinstance(n, ast.With) and any(_is_raises(i) for i in n.items)]
            key = f"{rel}::{name}"
            for w in raises:
                item = next(i for i in w.items if _is_raises(i))
                call = item.context_expr
                exc = ast.unparse(call.args[0]) if call.args else "?"
                msgs = [s for s in (_str(k.value) for k in call.keywords if k.arg == "match") if s]
                var = item.optional_vars.id if isinstance(item.optional_vars, ast.Name) else None
                msgs += _messages_about(test, var)
                message = " | ".join(msgs)
                targets = tf.invoked(w.body, binds)
                fam = classify(message, exc)
                lines = tf.lines_of(targets) | tf.call_lines(w.body, binds)
                found = [f for f in tf.findings if f.line in lines]
                rec = {"test": key, "line": w.lineno, "exception": exc, "message": message[:160],
                       "family": fam or "run-time value", "targets": sorted(targets),
                       "graph_mode": tf.graph_mode(test, targets),
                       "findings": sorted({f"{f.code}:{f.line}" for f in found})}
                if not targets:
                    rec["reach"] = "out of static reach: no graph scope invoked in the block"
                elif fam is None and PYTHON_ERRORS.search(message):
                    rec["reach"] = "out of static reach: a Python type error in any mode"
                elif fam is None:
                    rec["reach"] = "out of static reach: the failure depends on run-time values"
                elif not rec["graph_mode"]:
                    rec["reach"] = "out of static reach: the target runs in PyNative"
                else:
                    rec["reach"] = "in reach"
                v = verdicts.get(f"{key}::{w.lineno}") or verdicts.get(key)
                if v:
                    rec["reach"] = v["verdict"] if v["verdict"] != "in reach" else "in reach"
                    rec["evidence"] = v.get("evidence", "")
                rec["hit"] = bool(fam) and any(_counts_for(f, fam, codes) for f in found)
                failures.append(rec)
            if raises or _skipped(test):
                continue  # a skipped test ("not support now") asserts nothing that runs
            outside = tf.invoked(test.body, binds)
            if not outside or not tf.graph_mode(test, outside):
                continue
            asserts = any(isinstance(n, ast.Assert) or (isinstance(n, ast.Call) and "assert" in ast.unparse(n.func)
                          or (isinstance(n, ast.Call) and "allclose" in ast.unparse(n.func)))
                          for n in ast.walk(test))
            if not asserts:
                continue
            lines = tf.lines_of(outside) | tf.call_lines(test.body, binds)
            found = [f for f in tf.findings if f.line in lines]
            rec = {"test": key, "line": test.lineno, "targets": sorted(outside),
                   "findings": [_judge(f, key, verdicts) for f in found]}
            if runtime_fallback:
                rec["family"] = "fallback"
                rec["hit"] = any(_counts_for(f, "fallback", codes) for f in found)
                rec["reach"] = "in reach"
                v = verdicts.get(key)
                if v:
                    rec["reach"] = v["verdict"]
                    rec["evidence"] = v.get("evidence", "")
                fallbacks.append(rec)
            successes.append(rec)
    return {"corpus": corpus, "files": len(files), "tests": n_tests, "lint_seconds": round(lint_s, 1),
            "failures": failures, "fallbacks": fallbacks, "successes": successes}


def _f(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def table(res) -> Tuple[str, dict]:
    rows = []
    fams = sorted({r["family"] for r in res["failures"]} | {"fallback"})
    summary = {}
    lines = ["| family | asserted | in reach | hit | recall (in reach) | in reach, compiled on 2.10 | hit | recall (compiled) "
             "| out of static reach | changed since 2.7 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    tot = Counter()
    for fam in fams:
        recs = [r for r in res["failures"] if r["family"] == fam]
        if fam == "fallback":
            recs = recs + res["fallbacks"]
        inr = [r for r in recs if r["reach"] == "in reach"]
        hit = [r for r in inr if r["hit"]]
        out = [r for r in recs if r["reach"].startswith("out of static reach")]
        chg = [r for r in recs if r["reach"] == "changed since 2.7"]
        ver = [r for r in inr if r.get("evidence")]
        vhit = [r for r in ver if r["hit"]]
        rec = len(hit) / len(inr) if inr else None
        vrec = len(vhit) / len(ver) if ver else None
        summary[fam] = {"asserted": len(recs), "in_reach": len(inr), "hit": len(hit), "recall": rec,
                        "in_reach_compiled": len(ver), "hit_compiled": len(vhit), "recall_compiled": vrec,
                        "out_of_reach": len(out), "changed": len(chg)}
        if fam != "run-time value":
            tot.update({"asserted": len(recs), "in_reach": len(inr), "hit": len(hit), "out": len(out), "chg": len(chg),
                        "ver": len(ver), "vhit": len(vhit)})
        lines.append(f"| {fam} | {len(recs)} | {len(inr)} | {len(hit)} | {_f(rec)} | {len(ver)} | {len(vhit)} | "
                     f"{_f(vrec)} | {len(out)} | {len(chg)} |")
    total_recall = tot["hit"] / tot["in_reach"] if tot["in_reach"] else None
    total_vrecall = tot["vhit"] / tot["ver"] if tot["ver"] else None
    lines.append(f"| **all families** | {tot['asserted']} | {tot['in_reach']} | {tot['hit']} | {_f(total_recall)} | "
                 f"{tot['ver']} | {tot['vhit']} | {_f(total_vrecall)} | {tot['out']} | {tot['chg']} |")
    succ = res["successes"]
    n_find = sum(len(r["findings"]) for r in succ)
    contra = sum(1 for r in succ for f in r["findings"] if f["contradicted"])
    precision = 1 - contra / n_find if n_find else None
    claims = [f for r in succ for f in r["findings"] if f.get("pyexecute_claim")]
    checked = [f for f in claims if NO_FALLBACK_NODES in f.get("evidence", "") or FALLBACK_NODES.search(f.get("evidence", ""))]
    refuted = sum(1 for f in checked if NO_FALLBACK_NODES in f.get("evidence", ""))
    summary["_total"] = {"recall": total_recall, "in_reach": tot["in_reach"], "hit": tot["hit"],
                         "recall_compiled": total_vrecall, "in_reach_compiled": tot["ver"], "hit_compiled": tot["vhit"],
                         "success_tests": len(succ), "success_findings": n_find, "contradicted": contra,
                         "precision_success": precision,
                         "success_tests_with_findings": sum(1 for r in succ if r["findings"]),
                         "pyexecute_claims": len(claims), "pyexecute_claims_compiled": len(checked),
                         "pyexecute_claims_refuted": refuted}
    lines.append("")
    lines.append(f"Tests that assert success: {len(succ)}; findings on their graph code: {n_find}; "
                 f"contradicted (a compile failure claimed at the default level, or PyExecute claimed where "
                 f"the test's 2.10 compile has no fallback node): {contra}; "
                 f"precision on success tests: {'-' if precision is None else f'{precision:.3f}'}")
    lines.append(f"PyExecute claims on success tests: {len(claims)}; checked by compiling the test on 2.10: "
                 f"{len(checked)} ({len(checked) - refuted} consistent, {refuted} refuted)")
    rows = "\n".join(lines)
    return rows, summary


def markdown(res, rows, summary) -> str:
    out = ["# MindSpore's compiler tests as an oracle", "",
           "Generated by `benchmarks/oracle_mindspore_tests.py --write` (do not edit by hand). Corpus: "
           "MindSpore `tests/st/compiler` at 2.7 master (`../shared/corpus/mindspore-st-compiler`): "
           f"{res['files']} files, {res['tests']} test functions; lint took {res['lint_seconds']} s.", "",
           "Recall counts assertions of graph-mode failures (`pytest.raises` around a call of a Cell or "
           "jit function) and the run-time fallback tests (`fallback/**/test_*runtime*.py`) whose target "
           "the linter can see; a hit is a finding of the family's rules on the target's lines "
           "(its root scope and the helpers reached from it) or on the test's own call of it.", "", rows, ""]
    out.append("## Misses in reach")
    out.append("")
    for r in res["failures"] + res["fallbacks"]:
        if r["reach"] == "in reach" and not r["hit"] and r["family"] != "run-time value":
            codes_there = [f if isinstance(f, str) else f"{f['code']}:{f['line']}" for f in r["findings"]]
            out.append(f"- `{r['test']}` (line {r['line']}) {r['family']}: {r.get('exception', '')} "
                       f"`{r.get('message', '')[:100]}`; findings there: {', '.join(codes_there) or 'none'}"
                       + (f" ({r['evidence']})" if r.get("evidence") else ""))
    out.append("")
    out.append("## Misses out of static reach or changed since 2.7 (counts by reason)")
    out.append("")
    reasons = Counter(r["reach"] for r in res["failures"] + res["fallbacks"] if r["reach"] != "in reach")
    for k, v in reasons.most_common():
        out.append(f"- {k}: {v}")
    out.append("")
    out.append("## Every finding on code whose test asserts success")
    out.append("")
    out.append("`contradicted` = the finding says the code does not compile at the default level, "
               "and the test runs it; or it says PyExecute and the test's 2.10 compile has no fallback node.")
    out.append("")
    for r in res["successes"]:
        for f in r["findings"]:
            out.append(f"- `{r['test']}` line {f['line']} {f['code']}{' **contradicted**' if f['contradicted'] else ''}: "
                       f"{f['message'][:140]}" + (f" — {f['evidence']}" if f.get("evidence") else ""))
    out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=DEFAULT_CORPUS)
    ap.add_argument("--write", action="store_true", help="write benchmarks/results/oracle_mindspore_tests.{md,json}")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.corpus):
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    res = analyse(args.corpus)
    rows, summary = table(res)
    print(rows)
    if args.write:
        os.makedirs(RESULTS, exist_ok=True)
        # success tests without findings are counted, not listed (the file stays small)
        res_out = dict(res, summary=summary, corpus="../shared/corpus/mindspore-st-compiler",
                       successes=[{"test": r["test"], "findings": [
                           {k: f[k] for k in ("code", "line", "contradicted", "evidence") if k in f}
                           for f in r["findings"]]} for r in res["successes"] if r["findings"]],
                       fallbacks=[dict(r, findings=[f["code"] for f in r["findings"]]) for r in res["fallbacks"]])
        with open(os.path.join(RESULTS, "oracle_mindspore_tests.json"), "w", encoding="utf-8") as fh:
            json.dump(res_out, fh, indent=1, sort_keys=True)
            fh.write("\n")
        with open(os.path.join(RESULTS, "oracle_mindspore_tests.md"), "w", encoding="utf-8") as fh:
            fh.write(markdown(res, rows, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())

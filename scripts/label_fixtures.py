#!/usr/bin/env python
"""Label the ground-truth snippets in fixtures/labeled/ by compiling them with MindSpore.

Each snippet `fixtures/labeled/<family>_<pos|neg>_<name>.py` defines a Cell `Net` (or an
`@ms.jit` function `fn`), `make_inputs()` and optionally `make_inputs_alt()`; positives
mark the line a linter should flag with a trailing `# defect` comment.

For every snippet this script runs scripts/_label_child.py twice, each in its own
subprocess and scratch working directory:
  * default syntax level, IR saved (validate, graph_build, hwopt_common_final), graph-kernel
    fusion only for whole blocks (`*_block_*`), PyNative comparison with the same weights;
  * STRICT (`MS_DEV_JIT_SYNTAX_LEVEL=0`), IR saved, no PyNative run.
It then writes `<snippet>.json` next to the snippet: the compiler facts and whether they
confirm the label (`confirmed`, `evidence`).  Labels are never hand-written.

Usage:
  .venv/bin/python scripts/label_fixtures.py [--force] [--only PATTERN] [--summary-only]
  .venv/bin/python scripts/label_fixtures.py --python /venvs/ms-2.7.0/bin/python --labels-dir DIR
      compiles with another MindSpore release (the children run in that interpreter; the IR is
      read here) and writes the labels into DIR instead of next to the snippets; compare two
      label sets with scripts/label_diff.py.

Run compiles one at a time (the machines are shared); the script never runs two children
at once.  Resumable: a snippet whose label records the same source hash (snippet + _helpers/) and
label schema is skipped unless --force; bump SCHEMA_VERSION when the labels change meaning.
"""
from __future__ import annotations

import argparse
import collections
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABELED = ROOT / "fixtures" / "labeled"
CHILD = Path(__file__).resolve().parent / "_label_child.py"
CHILD_PYTHON = sys.executable  # --python: the interpreter (and so the MindSpore release) the children compile with
FAMILIES = ("control_flow", "inplace", "side_effect", "fallback", "dynamic_shape", "syntax", "api", "mode")
NAME_RE = re.compile(r"^(?P<family>%s)_(?P<polarity>pos|neg)_(?P<name>[a-z0-9_]+)\.py$" % "|".join(FAMILIES))
IR_PASSES = "validate,graph_build,hwopt_common_final"
SCHEMA_VERSION = 2  # bump when the label content changes meaning; stale labels are redone

INPLACE_OPS = {"TensorScatterUpdate", "TensorScatterElements", "ScatterNdUpdate", "ScatterUpdate",
               "TensorMove", "Assign", "AssignAdd", "AssignSub", "InplaceCopy", "InplaceAddExt",
               "InplaceAddsExt", "InplaceMul", "InplaceMuls", "InplaceSubExt", "InplaceDiv",
               "InplaceDivs", "InplaceFillScalar", "InplaceFillTensor", "InplaceZero",
               "InplaceScatterValue", "InplaceIndexPut", "InplaceMaskedFillScalar",
               "InplaceMaskedFillTensor", "InplaceClampScalar", "InplaceSubScalar",
               "InplaceExp", "InplaceUniform", "InplaceNormal"}
DYNAMIC_OPS = {"NonZero", "NonZeroExt", "Unique", "UniqueConsecutive", "Unique2", "UniqueDim",
               "MaskedSelect", "BooleanMask", "Argwhere", "ArgWhere", "DynamicShape",
               "TensorShape", "Shape_", "DynamicBroadcastTo", "Range", "Nonzero"}
FALLBACK_OPS = ("PyExecute", "PyInterpret")


# ---------------------------------------------------------------- snippet metadata
def defect_lines(path: Path) -> list[int]:
    lines = []
    with open(path, "rb") as fh:
        for tok in tokenize.tokenize(fh.readline):
            if tok.type == tokenize.COMMENT and re.fullmatch(r"#\s*defect\b.*", tok.string):
                lines.append(tok.start[0])
    return lines


def snippet_meta(path: Path) -> dict:
    m = NAME_RE.match(path.name)
    if not m:
        raise ValueError(f"bad snippet name {path.name}")
    dl = defect_lines(path)
    pol = m["polarity"]
    if pol == "pos" and len(dl) != 1:
        raise ValueError(f"{path.name}: positive needs exactly one '# defect' marker, found {len(dl)}")
    if pol == "neg" and dl:
        raise ValueError(f"{path.name}: negative must not carry a '# defect' marker")
    return {"family": m["family"], "polarity": pol, "defect_line": dl[0] if dl else None,
            "block": "_block_" in path.name or m["name"].startswith("block_")}


# ---------------------------------------------------------------- IR parsing
_FILE_RE = re.compile(r"^(?:(?P<vnn>\d+)_validate|graph_build_(?P<gid>\d+)|hwopt_common_final_graph_(?P<hid>\d+))_(?P<seq>\d+)\.ir$")
_NODE_RE = re.compile(r"^\s+%\d+\([^)]*\) = (?:PrimFunc_)?([A-Za-z_][A-Za-z0-9_]*)\(")
_INFILE_RE = re.compile(r"# In file (.+?):(\d+)(?:~(\d+))?(?:, [\d~]+)?/(.*?)/")
_DYN_RE = re.compile(r"<(?:Ref\[)?Tensor\[[A-Za-z0-9]+\]\]?, \((?:[^()]*[(,] ?)?-[12]\b")
_FUSED_RE = re.compile(r"info_name: (Fused_\S*)|\bFused_[A-Za-z0-9_]+")


def parse_nodes(text: str, snippet_names: set[str]) -> list[dict]:
    """Nodes of one IR file: op name and the snippet source lines in its '# In file' comments."""
    nodes, cur = [], None
    for line in text.splitlines():
        m = _NODE_RE.match(line)
        if m:
            cur = {"op": m.group(1), "lines": [], "files": []}
            nodes.append(cur)
            continue
        if cur is not None and "# In file " in line:
            fm = _INFILE_RE.search(line)
            if fm:
                if re.match(r"\s*(?:async\s+)?(?:def|class)\s", fm.group(4)):
                    continue  # the enclosing function's range, not a statement
                fname = os.path.basename(fm.group(1))
                cur["files"].append(fname)
                if fname in snippet_names:
                    lo = int(fm.group(2))
                    hi = int(fm.group(3)) if fm.group(3) else lo
                    cur["lines"].append((fname, lo, hi))
    return nodes


def parse_ir(ir_dir: Path, snippet_name: str) -> dict:
    files = []
    if ir_dir.is_dir():
        for f in ir_dir.iterdir():
            m = _FILE_RE.match(f.name)
            if m:
                kind = "validate" if m["vnn"] else ("graph_build" if m["gid"] is not None else "hwopt")
                files.append((int(m["seq"]), kind, f))
    files.sort(key=lambda t: t[0])
    vseq = [s for s, k, _ in files if k == "validate"]
    out = {"n_compiles": len(vseq), "analyze_fail": any(ir_dir.glob("**/analyze_fail*.ir")) if ir_dir.is_dir() else False}
    if not vseq:
        out.update(first=None)
        return out
    end = vseq[1] if len(vseq) > 1 else 1 << 60
    first = [(s, k, f) for s, k, f in files if vseq[0] <= s < end]
    names = {snippet_name}
    fb_validate = 0
    validate_nodes: list[dict] = []
    kernel_ops: collections.Counter = collections.Counter()
    fused = set()
    dyn_kernel = False
    n_graph_build = 0
    for s, k, f in first:
        text = f.read_text(errors="replace")
        if k == "validate":
            validate_nodes = parse_nodes(text, names | {n for n in _helper_names()})
            fb_validate = sum(1 for n in validate_nodes if n["op"] in FALLBACK_OPS)
        elif k == "graph_build":
            n_graph_build += 1
            for n in parse_nodes(text, names):
                kernel_ops[n["op"]] += 1
            for m in _FUSED_RE.finditer(text):
                fused.add(m.group(1) or m.group(0))
            if _DYN_RE.search(text):
                dyn_kernel = True
    vops = collections.Counter(n["op"] for n in validate_nodes)
    by_line: dict[int, list[str]] = collections.defaultdict(list)
    for n in validate_nodes:
        seen = set()
        for fname, lo, hi in n["lines"]:
            if fname != snippet_name:
                continue
            for ln in range(lo, hi + 1) if hi - lo < 6 else (lo,):
                if ln not in seen:
                    by_line[ln].append(n["op"])
                    seen.add(ln)
    print_nodes = [n for n in validate_nodes if n["op"] == "Print"]
    out["first"] = {
        "fallback_nodes": fb_validate,
        "fallback_nodes_kernel": sum(kernel_ops[o] for o in FALLBACK_OPS),
        "kernel_graphs": n_graph_build,
        "fused_kernels": len({x for x in fused if x.startswith("Fused_")}),
        "kernel_ops": dict(sorted(kernel_ops.items())),
        "validate_ops": dict(sorted(vops.items())),
        "dynamic_shape_in_kernel_graph": dyn_kernel,
        "print_ops": len(print_nodes),
        "print_ops_with_snippet_line": sum(1 for n in print_nodes if n["lines"]),
        "ops_by_line": {str(k): sorted(set(v)) for k, v in sorted(by_line.items())},
    }
    return out


def shared_ir_summary(ir_dir: Path, path: Path) -> dict | None:
    """The project's own IR parser (msgraphlint.verify.ir), so labels and `msgraphlint verify`
    count fallback nodes, kernel graphs, fused kernels and compiles the same way."""
    try:
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        from msgraphlint.verify.ir import parse_ir_dir
    except Exception:  # pragma: no cover - parser not available
        return None
    if not ir_dir.is_dir():
        return None
    try:
        return parse_ir_dir(str(ir_dir), source_path=str(path)).summary()
    except Exception as exc:  # keep labeling; the own parser still answers
        return {"error": f"{type(exc).__name__}: {exc}"[:200]}


def _helper_names() -> set[str]:
    d = LABELED / "_helpers"
    return {p.name for p in d.glob("*.py")} if d.is_dir() else set()


# ---------------------------------------------------------------- running children
def run_child(path: Path, level: str, fusion: bool, pynative: bool, timeout: int, keep: Path | None) -> dict:
    scratch = Path(tempfile.mkdtemp(prefix=f"msgl_label_{path.stem[:40]}_{level}_"))
    ir_dir = scratch / "ir"
    out_json = scratch / "result.json"
    env = dict(os.environ)
    for k in ("MS_DEV_JIT_SYNTAX_LEVEL", "MS_DEV_GRAPH_KERNEL_FLAGS", "MS_AUTO_DYNAMIC_SHAPE_ENABLE",
              "MS_DEV_SAVE_GRAPHS", "MS_DEV_SAVE_GRAPHS_PATH", "MS_DEV_DUMP_IR_PASSES"):
        env.pop(k, None)
    env.update({"MS_DEV_SAVE_GRAPHS": "1", "MS_DEV_SAVE_GRAPHS_PATH": str(ir_dir),
                "MS_DEV_DUMP_IR_PASSES": IR_PASSES, "GLOG_v": "3", "PYTHONHASHSEED": "0",
                "OMP_NUM_THREADS": "1"})
    if path.name.startswith("api_"):
        env["GLOG_v"] = "2"  # the api family reads MindSpore's deprecation warnings (WARNING level)
    if level == "strict":
        env["MS_DEV_JIT_SYNTAX_LEVEL"] = "0"
    if fusion:
        env["MS_DEV_GRAPH_KERNEL_FLAGS"] = "--opt_level=2"
    cmd = [CHILD_PYTHON, str(CHILD), "--file", str(path), "--out", str(out_json)]
    if not pynative:
        cmd.append("--no-pynative")
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout)
        rc, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc, stderr = "timeout", (exc.stderr or b"").decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
    res: dict = {}
    if out_json.exists():
        try:
            res = json.loads(out_json.read_text())
        except json.JSONDecodeError:
            res = {}
    res["rc"] = rc
    res["wall_s"] = round(time.time() - t0, 2)
    res["deprecation_warnings"] = sorted({re.sub(r"^.*\] ", "", ln).strip()[:200] for ln in (stderr or "").splitlines()
                                          if "[WARNING]" in ln and "deprecated" in ln})
    if rc != 0:
        res["stderr_tail"] = stderr[-1500:]
    res["ir"] = parse_ir(ir_dir, path.name)
    res["ir_summary"] = shared_ir_summary(ir_dir, path)
    if keep is not None:
        dst = keep / f"{path.stem}_{level}"
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(ir_dir, dst) if ir_dir.is_dir() else None
    shutil.rmtree(scratch, ignore_errors=True)
    return res


def _stable(text: str | None) -> str | None:
    """Error lines without object addresses, so that relabeling gives the same text."""
    return re.sub(r"0x[0-9a-fA-F]{6,}", "0x...", text) if text else text


def compile_status(res: dict) -> tuple[bool | None, str | None, bool]:
    """(compiles, error_first_line, runtime_error) from a child result."""
    if "fatal" in res or not res.get("graph"):
        return None, _stable(res.get("fatal")) or f"child failed rc={res.get('rc')}", False
    first = res["graph"]["calls"][0]
    if first.get("ok"):
        return True, None, False
    ir = res.get("ir", {})
    # an error raised after the kernel graph was built is a run-time error of a compiled graph
    built = bool(ir.get("first")) and ir["first"].get("kernel_graphs", 0) > 0 and not ir.get("analyze_fail")
    return (True if built else False), _stable(first.get("error_first_line")), built


# ---------------------------------------------------------------- confirmation
def _calls(res, mode):
    return (res.get(mode) or {}).get("calls") or []


def observe(d: dict, s: dict) -> dict:
    """Mode-independent observations derived from the default-level child."""
    g, p = _calls(d, "graph"), _calls(d, "pynative")
    obs: dict = {}
    obs["state_delta_graph"] = [c.get("state_delta") for c in g]
    obs["state_delta_pynative"] = [c.get("state_delta") for c in p]
    obs["stdout_graph"] = [c.get("stdout_len", 0) for c in g]
    obs["stdout_pynative"] = [c.get("stdout_len", 0) for c in p]
    obs["stdout_graph_head"] = g[0].get("stdout", "")[:120] if g else ""
    obs["stdout_pynative_head"] = p[0].get("stdout", "")[:120] if p else ""
    obs["log_records_graph"] = sum(len(c.get("log_records") or []) for c in g)
    obs["log_records_pynative"] = sum(len(c.get("log_records") or []) for c in p)
    obs["repeat_equal"] = {"graph": d.get("graph_repeat_equal"), "pynative": d.get("pynative_repeat_equal")}
    obs["graph_equals_pynative_per_call"] = d.get("graph_equals_pynative")
    obs["inputs_mutated_per_call"] = {"graph": [c.get("inputs_mutated") for c in g],
                                      "pynative": [c.get("inputs_mutated") for c in p]}
    obs["pynative_ok"] = bool(p) and all(c.get("ok") for c in p)
    obs["pynative_error"] = next((c.get("error_first_line") for c in p if not c.get("ok")), None)
    obs["graph_run_errors"] = [c.get("error_first_line") for c in g if not c.get("ok")]
    obs["first_call_seconds"] = g[0].get("seconds") if g else None
    if d.get("deprecation_warnings"):
        obs["deprecation_warnings"] = d["deprecation_warnings"]
    return obs


def python_effect_dropped(obs: dict) -> list[str]:
    why = []
    sg, sp = obs["state_delta_graph"], obs["state_delta_pynative"]
    if sg and sp and sg[:len(sp)] != sp[:len(sg)]:
        why.append(f"Python state change differs: graph {sg[:2]} vs PyNative {sp[:2]}")
    if bool(sum(obs["stdout_pynative"])) != bool(sum(obs["stdout_graph"])):
        why.append(f"stdout differs: graph {obs['stdout_graph']} chars vs PyNative {obs['stdout_pynative']} chars per call")
    if obs["log_records_pynative"] != obs["log_records_graph"]:
        why.append(f"log records: graph {obs['log_records_graph']} vs PyNative {obs['log_records_pynative']}")
    r = obs["repeat_equal"]
    if r["graph"] is not None and r["pynative"] is not None and r["graph"] != r["pynative"]:
        why.append(f"repeat call with same inputs equal: graph {r['graph']} vs PyNative {r['pynative']} (value frozen at compile time)")
    return why


def confirm(meta: dict, lab: dict) -> tuple[bool, str]:
    fam, pos = meta["family"], meta["polarity"] == "pos"
    dflt, strict = lab["default"], lab["strict"]
    o = lab["observed"]
    ops_line = (o.get("ops_by_line") or {}).get(str(meta["defect_line"]), []) if pos else []
    kops = o.get("kernel_ops") or {}
    facts = []
    err_d = dflt["compiles"] is False
    err_s = strict["compiles"] is False
    if err_d:
        facts.append(f"default error: {dflt['error_first_line']}")
    if err_s:
        facts.append(f"STRICT error: {strict['error_first_line']}")
    fb = lab["fallback_nodes"] or 0
    kg = lab["kernel_graphs"] or 0
    neq = lab["pynative_equal"] is False
    mut = lab["inputs_mutated"]
    mut_diff = mut["graph"] is not None and mut["pynative"] is not None and mut["graph"] != mut["pynative"]
    effect: list[str] = []
    if fam == "control_flow":
        if kg > 1:
            effect.append(f"{kg} kernel graphs")
        if "Switch" in (o.get("validate_ops") or {}):
            effect.append("Switch in validate IR")
        if err_d or err_s:
            effect.append("compile error")
    elif fam == "inplace":
        if neq:
            effect.append("graph result != PyNative")
        if mut_diff:
            effect.append(f"input mutated graph={mut['graph']} pynative={mut['pynative']}")
        ip = sorted(k for k in ops_line if k in INPLACE_OPS or k.startswith("Inplace")) or \
            sorted(k for k in kops if (k in INPLACE_OPS or k.startswith("Inplace")) and k != "Assign")
        if ip and pos:
            effect.append("in-place ops " + ",".join(ip))
        if err_d or err_s:
            effect.append("compile error")
    elif fam == "side_effect":
        effect += python_effect_dropped(o)
        if pos and o.get("print_ops"):
            nl = o["print_ops"] - (o.get("print_ops_with_snippet_line") or 0)
            effect.append(f"{o['print_ops']} Print op(s) in the graph" + (f", {nl} without a source line" if nl else ""))
        if fb:
            effect.append(f"{fb} PyExecute/PyInterpret nodes")
        if err_d or err_s:
            effect.append("compile error")
    elif fam == "fallback":
        if fb:
            effect.append(f"{fb} PyExecute/PyInterpret nodes")
        if err_d or err_s:
            effect.append("compile error")
    elif fam == "dynamic_shape":
        rc = lab["recompiles"] or 0
        if rc > 1:
            effect.append(f"{rc} compiles for make_inputs then make_inputs_alt")
        if o.get("dynamic_shape_in_kernel_graph"):
            effect.append("dynamic (-1) dims in kernel graph")
        elif (o.get("verify_ir_summary") or {}).get("dynamic_shape"):
            effect.append("dynamic shape (verify.ir)")
        dyn = sorted(k for k in kops if k in DYNAMIC_OPS)
        if dyn:
            effect.append("dynamic-shape ops " + ",".join(dyn))
        if err_d or err_s:
            effect.append("compile error")
    elif fam == "syntax":
        if err_d or err_s:
            effect.append("compile error")
    elif fam == "api":  # an API graph mode forbids (compile error) or MindSpore deprecates (its warning)
        if err_d or err_s:
            effect.append("compile error")
        if o.get("deprecation_warnings"):
            effect.append("MindSpore deprecation warning: " + o["deprecation_warnings"][0])
    elif fam == "mode":  # train-only ops (dropout) that still run with the Cell in evaluation mode
        drop = sorted(k for k in set(o.get("validate_ops") or {}) | set(kops) if k.startswith("Dropout"))
        if drop:
            effect.append("dropout op(s) in the graph of a Cell in evaluation mode: " + ",".join(drop))
        r = o.get("repeat_equal") or {}
        if r.get("graph") is False:
            effect.append("graph results differ between two calls with the same inputs")
        if err_d or err_s:
            effect.append("compile error")
    # general sanity for negatives: compiles at both levels, no fallback, same result as PyNative
    general_bad = []
    if not pos:
        if err_d or err_s:
            general_bad.append("compile error")
        if fb:
            general_bad.append(f"{fb} fallback nodes")
        if neq:
            general_bad.append("graph result != PyNative")
        if mut_diff:
            general_bad.append("input mutation differs")
        if fam == "api" and o.get("deprecation_warnings"):
            general_bad.append("MindSpore deprecation warning")
    if pos:
        ok = bool(effect)
        ev = ("; ".join(effect) if ok else "no effect of the family observed") + \
             (f" | ops at defect line: {','.join(ops_line)}" if ops_line else "")
    else:
        bad = sorted(set(effect) | set(general_bad))
        ok = not bad
        ev = "clean: compiles at both levels, no fallback, matches PyNative" + \
             (f", {kg} kernel graph(s)" if kg else "") if ok else "UNEXPECTED: " + "; ".join(bad)
    extra = [f for f in facts if f not in ev]
    if extra:
        ev += " | " + " | ".join(extra)
    return ok, ev


# ---------------------------------------------------------------- labeling one snippet
def label(path: Path, timeout: int, keep: Path | None) -> dict:
    meta = snippet_meta(path)
    t0 = time.time()
    d = run_child(path, "default", fusion=meta["block"], pynative=True, timeout=timeout, keep=keep)
    s = run_child(path, "strict", fusion=False, pynative=False, timeout=timeout, keep=keep)
    dc, de, drt = compile_status(d)
    sc, se, srt = compile_status(s)
    first = dict((d.get("ir") or {}).get("first") or {})
    shared = d.get("ir_summary") or {}
    n_compiles = (d.get("ir") or {}).get("n_compiles")
    if shared and "error" not in shared and (d.get("ir") or {}).get("first"):
        mine = {k: first.get(k) for k in ("fallback_nodes", "kernel_graphs", "fused_kernels")}
        first["fallback_nodes"] = shared["fallback_nodes"]
        first["kernel_graphs"] = shared["kernel_graphs"]
        first["fused_kernels"] = shared["fused_kernels"]
        if shared["compiles"] != n_compiles or any(mine[k] != first[k] for k in mine):
            first["parser_disagreement"] = {"labeler": dict(mine, compiles=n_compiles), "verify.ir": shared}
        n_compiles = shared["compiles"]
    obs = observe(d, s)
    obs.update({k: first.get(k) for k in ("validate_ops", "kernel_ops", "ops_by_line", "dynamic_shape_in_kernel_graph",
                                          "print_ops", "print_ops_with_snippet_line", "fallback_nodes_kernel",
                                          "parser_disagreement")})
    obs["verify_ir_summary"] = shared or None
    obs["strict_fallback_nodes"] = ((s.get("ir") or {}).get("first") or {}).get("fallback_nodes")
    g_calls = _calls(d, "graph")
    eq = (d.get("graph_equals_pynative") or [None])[0]
    lab = {
        "schema": SCHEMA_VERSION,
        "file": path.name,
        "family": meta["family"],
        "polarity": meta["polarity"],
        "defect_line": meta["defect_line"],
        "target": d.get("target") or s.get("target"),
        "mindspore_version": d.get("mindspore_version") or s.get("mindspore_version"),
        "default": {"compiles": dc, "error_first_line": de, "runtime_error": drt},
        "strict": {"compiles": sc, "error_first_line": se, "runtime_error": srt},
        "fusion": meta["block"],
        "fallback_nodes": first.get("fallback_nodes"),
        "kernel_graphs": first.get("kernel_graphs"),
        "fused_kernels": first.get("fused_kernels") if meta["block"] else None,
        "recompiles": n_compiles if g_calls and g_calls[0].get("ok") else None,
        "has_alt_inputs": len(g_calls) > 2 or "make_inputs_alt" in path.read_text(),
        "pynative_equal": eq,
        "inputs_mutated": {"graph": g_calls[0].get("inputs_mutated") if g_calls else None,
                           "pynative": (_calls(d, "pynative") or [{}])[0].get("inputs_mutated")},
        "observed": obs,
    }
    ok, ev = confirm(meta, lab)
    lab["confirmed"] = ok
    lab["evidence"] = ev
    lab["label_seconds"] = round(time.time() - t0, 1)
    lab["source_sha256"] = source_hash(path)
    lab["child_rc"] = {"default": d.get("rc"), "strict": s.get("rc")}
    if d.get("rc") != 0 or s.get("rc") != 0:
        lab["child_stderr_tail"] = {"default": d.get("stderr_tail"), "strict": s.get("stderr_tail")}
    if g_calls and not g_calls[0].get("ok"):
        lab["graph_traceback_tail"] = (d.get("graph") or {}).get("traceback", "")[-800:]
    return lab


def source_hash(src: Path) -> str:
    """sha256 of the snippet and of every _helpers module (what a compile of it can read)."""
    h = hashlib.sha256(src.read_bytes())
    for p in sorted((LABELED / "_helpers").glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def up_to_date(src: Path, dst: Path) -> bool:
    """A label is current when it was made from the same sources by the same label schema
    (content hashes, not mtimes: a git checkout resets mtimes)."""
    if not dst.exists():
        return False
    try:
        lab = json.loads(dst.read_text())
    except json.JSONDecodeError:
        return False
    return lab.get("schema") == SCHEMA_VERSION and lab.get("source_sha256") == source_hash(src)


def summary(paths: list[Path], label_path=lambda p: p.with_suffix(".json")) -> str:
    table: dict = collections.defaultdict(lambda: [0, 0])
    unconfirmed = []
    for p in paths:
        j = label_path(p)
        if not j.exists():
            continue
        lab = json.loads(j.read_text())
        key = (lab["family"], lab["polarity"])
        table[key][0] += 1
        table[key][1] += bool(lab["confirmed"])
        if not lab["confirmed"]:
            unconfirmed.append(f"  {p.name}: {lab['evidence']}")
    lines = [f"{'family':<14} {'pos':>10} {'neg':>10}   (confirmed/total)"]
    tot = [0, 0]
    for fam in FAMILIES:
        cells = []
        for pol in ("pos", "neg"):
            n, c = table.get((fam, pol), [0, 0])
            tot[0] += n
            tot[1] += c
            cells.append(f"{c}/{n}")
        lines.append(f"{fam:<14} {cells[0]:>10} {cells[1]:>10}")
    lines.append(f"total confirmed {tot[1]}/{tot[0]}")
    if unconfirmed:
        lines.append("not confirmed:")
        lines += unconfirmed
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--force", action="store_true", help="relabel even when the label is up to date")
    ap.add_argument("--only", action="append", default=[], help="glob on the snippet file name (repeatable)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per child process")
    ap.add_argument("--keep-ir", type=Path, default=None, help="copy the IR of each child into this folder")
    ap.add_argument("--summary-only", action="store_true")
    ap.add_argument("--python", default=None, help="the interpreter whose MindSpore compiles the snippets (default: this one)")
    ap.add_argument("--labels-dir", type=Path, default=None,
                    help="write the labels here (one <snippet>.json each) instead of next to the snippets")
    ap.add_argument("--list", type=Path, default=None, help="a file of snippet names to label, one per line")
    args = ap.parse_args(argv)
    global CHILD_PYTHON
    if args.python:
        # the children run in a scratch folder: a relative path (CI's `.ci-venvs/ms-2.7.0/bin/python`)
        # must be made absolute here, and a bare name found on PATH
        found = os.path.abspath(args.python) if os.sep in args.python else shutil.which(args.python)
        if not found or not os.access(found, os.X_OK):
            ap.error(f"--python {args.python}: no such interpreter")
        CHILD_PYTHON = found
    if args.labels_dir:
        args.labels_dir.mkdir(parents=True, exist_ok=True)

    def label_path(p: Path) -> Path:
        return (args.labels_dir / p.with_suffix(".json").name) if args.labels_dir else p.with_suffix(".json")

    paths = sorted(p for p in LABELED.glob("*.py") if NAME_RE.match(p.name))
    if args.only:
        paths = [p for p in paths if any(fnmatch.fnmatch(p.name, pat) or pat in p.name for pat in args.only)]
    if args.list:
        wanted = {ln.strip() for ln in args.list.read_text().splitlines() if ln.strip() and not ln.startswith("#")}
        unknown = wanted - {p.name for p in paths}
        if unknown:
            print(f"error: {args.list}: no such snippet: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        paths = [p for p in paths if p.name in wanted]
    for p in LABELED.glob("*.py"):
        if not NAME_RE.match(p.name):
            print(f"warning: {p.name} does not match <family>_<pos|neg>_<name>.py, ignored", file=sys.stderr)
    if args.keep_ir:
        args.keep_ir.mkdir(parents=True, exist_ok=True)
    t_all = time.time()
    n_done = 0
    if not args.summary_only:
        for i, p in enumerate(paths, 1):
            dst = label_path(p)
            if not args.force and up_to_date(p, dst):
                continue
            try:
                lab = label(p, args.timeout, args.keep_ir)
            except ValueError as exc:  # bad name or marker
                print(f"[{i}/{len(paths)}] {p.name}: SKIPPED: {exc}", file=sys.stderr)
                continue
            dst.write_text(json.dumps(lab, indent=1, sort_keys=False) + "\n")
            n_done += 1
            print(f"[{i}/{len(paths)}] {p.name}: {'OK ' if lab['confirmed'] else 'NOT'} "
                  f"d={lab['default']['compiles']} s={lab['strict']['compiles']} fb={lab['fallback_nodes']} "
                  f"kg={lab['kernel_graphs']} rc={lab['recompiles']} eq={lab['pynative_equal']} "
                  f"({lab['label_seconds']}s) {lab['evidence'][:150]}", flush=True)
    print(f"labeled {n_done} snippet(s) in {time.time() - t_all:.0f}s")
    print(summary(paths, label_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())

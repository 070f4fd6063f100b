"""``msgraphlint verify``: compile the target with graph-kernel fusion, read the IR, and
cross-check it against the static findings. See docs/verify.md.

Exit codes: 0 the IR and the static findings agree; 1 a finding is not confirmed or an
IR event is unexplained; 2 usage error, or the compile could not be judged (MindSpore
missing, timeout, the child crashed, fusion did not happen).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import click

from .. import __version__
from . import evidence
from .compile import compile_target, mindspore_python
from .crosscheck import DEFAULT_SLACK, crosscheck, extract_events
from .ir import PARSER_VERSION, parse_ir_dir

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def _reference_file() -> Path:
    """The bundled layer: the installed ``msgraphlint_reference`` package, else the checkout."""
    try:
        from msgraphlint_reference import GPT_LAYER
        return Path(GPT_LAYER)
    except ImportError:
        return REPO_ROOT / "reference_model" / "gpt_layer.py"


REFERENCE_FILE = _reference_file()
REFERENCE_TARGET = "TransformerLayer"
REFERENCE_TRAIN_TARGET = "GPTLayerWithLoss"
INFRA_ERRORS = ("CompileTimeout", "ChildCrashed", "MindSporeMissing", "ChildStartError")


class VerifyError(click.ClickException):
    exit_code = 2


# ----------------------------------------------------------------------------- options


def parse_target(target: Optional[str], train: bool) -> Tuple[str, str]:
    if not target:
        if not REFERENCE_FILE.exists():
            raise VerifyError(f"the bundled reference layer is missing ({REFERENCE_FILE})")
        return str(REFERENCE_FILE), REFERENCE_TRAIN_TARGET if train else REFERENCE_TARGET
    if "::" in target:
        path, name = target.rsplit("::", 1)
    else:
        path, name = target, ""
    if not os.path.isfile(path):
        raise click.BadParameter(f"no such file: {path}", param_hint="TARGET")
    if not name:
        raise click.BadParameter("name the Cell class or function: path/to/file.py::ClassName",
                                 param_hint="TARGET")
    return os.path.abspath(path), name


def parse_shapes(values: Sequence[str]) -> Dict[str, List[str]]:
    """``("seq=64,128,96",)`` -> ``{"seq": ["64", "128", "96"]}``."""
    out: Dict[str, List[str]] = {}
    for v in values or ():
        if "=" not in v:
            raise click.BadParameter(f"expected NAME=V1,V2,... , got {v!r}", param_hint="--shapes")
        name, _, vals = v.partition("=")
        items = [x.strip() for x in vals.split(",") if x.strip()]
        if len(items) < 1:
            raise click.BadParameter(f"no values in {v!r}", param_hint="--shapes")
        out[name.strip()] = items
    lengths = {len(x) for x in out.values()}
    if len(lengths) > 1:
        raise click.BadParameter("all --shapes names need the same number of values", param_hint="--shapes")
    return out


def _literal(text: str):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def _substitute(spec_items: Sequence[str], values: Dict[str, str]) -> List[str]:
    """Replace symbolic dims (``2xSEQx256:float32`` with ``SEQ=64``)."""
    out = []
    for item in spec_items:
        if item.startswith("py:") or ":" not in item and "x" not in item:
            out.append(values.get(item[3:], item) if item.startswith("py:") else item)
            continue
        dims, sep, dtype = item.rpartition(":") if ":" in item else (item, "", "")
        parts = [values.get(p, p) for p in dims.split("x")]
        out.append("x".join(parts) + (sep + dtype if sep else ""))
    return out


def build_spec(path: str, name: str, inputs: Sequence[str], shapes: Dict[str, List[str]],
               train: bool, strict: bool, fusion: bool, pynative: bool) -> dict:
    spec = {"file": path, "target": name, "train": train,
            "syntax_level": "strict" if strict else "default", "fusion": fusion,
            "compare_pynative": pynative}
    if inputs:
        if shapes:
            n = len(next(iter(shapes.values())))
            variants = [_substitute(inputs, {k: v[i] for k, v in shapes.items()}) for i in range(n)]
            spec["inputs"], spec["shapes"] = variants[0], variants[1:]
        else:
            spec["inputs"] = list(inputs)
    else:
        spec["inputs"] = None
        if shapes:
            n = len(next(iter(shapes.values())))
            variants = [{k: _literal(v[i]) for k, v in shapes.items()} for i in range(n)]
            spec["make_inputs_kwargs"], spec["shapes"] = variants[0], variants[1:]
    return spec


# ----------------------------------------------------------------------------- cache


def _mindspore_version() -> str:
    python = mindspore_python()
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        try:
            from importlib.metadata import version

            return version("mindspore")
        except Exception:  # noqa: BLE001
            return "absent"
    import subprocess

    try:
        proc = subprocess.run([python, "-c", "from importlib.metadata import version; print(version('mindspore'))"],
                              capture_output=True, text=True, timeout=60)
        return proc.stdout.strip() or "absent"
    except (OSError, subprocess.TimeoutExpired):
        return "absent"


def _sources_digest(path: str) -> str:
    """The target file and the Python files beside it (sibling imports)."""
    h = hashlib.sha256()
    target = Path(path)
    h.update(target.read_bytes())
    for sib in sorted(target.parent.glob("*.py")):
        if sib != target:
            h.update(sib.name.encode())
            h.update(sib.read_bytes())
    return h.hexdigest()


def cache_key(spec: dict, ms_version: str) -> str:
    payload = {k: v for k, v in spec.items() if k not in ("ir_dir", "file")}
    payload.update(file=os.path.abspath(spec["file"]), sources=_sources_digest(spec["file"]),
                   mindspore=ms_version, msgraphlint=__version__, parser=PARSER_VERSION,
                   python=mindspore_python())
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def default_cache_dir() -> str:
    return os.environ.get("MSGRAPHLINT_CACHE_DIR") or os.path.join(os.getcwd(), ".msgraphlint_cache")


# ----------------------------------------------------------------------------- running


def run_compile(spec: dict, timeout: float, keep_ir: Optional[str]) -> Tuple[dict, Optional[dict]]:
    """Compile and parse; returns (OUT, IR report dict)."""
    tmp = tempfile.mkdtemp(prefix="msgraphlint-verify-")
    try:
        ir_dir = os.path.join(tmp, "ir")
        out = compile_target(dict(spec, ir_dir=ir_dir), timeout=timeout)
        ir = None
        if os.path.isdir(ir_dir) and out.get("error_type") not in INFRA_ERRORS:
            report = parse_ir_dir(ir_dir, spec["file"])
            ir = report.to_dict()
        if keep_ir:
            dst = os.path.abspath(keep_ir)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(ir_dir, dst) if os.path.isdir(ir_dir) else None
            out["ir_dir"] = dst
            if ir:
                ir["ir_dir"] = dst
        else:
            out["ir_dir"] = None
            if ir:
                ir["ir_dir"] = None
        return out, ir
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def verify(target: Optional[str] = None, *, inputs: Sequence[str] = (), shapes: Sequence[str] = (),
           train: bool = False, strict: bool = False, fusion: bool = True, pynative: bool = True,
           dynamic_cost: bool = True, static: bool = True, timeout: float = 300,
           use_cache: bool = True, cache_dir: Optional[str] = None, ir_dir: Optional[str] = None,
           slack: int = DEFAULT_SLACK, findings=None) -> dict:
    """Run a verify and return its result dict (what ``--format json`` prints)."""
    path, name = parse_target(target, train)
    shape_map = parse_shapes(shapes)
    spec = build_spec(path, name, inputs, shape_map, train, strict, fusion, pynative)
    t0 = time.perf_counter()
    ms_version = _mindspore_version()
    key = cache_key(dict(spec, dynamic_cost=bool(shape_map and dynamic_cost)), ms_version)
    cache_dir = cache_dir or default_cache_dir()
    cache_file = os.path.join(cache_dir, "verify", key + ".json")
    cached = None
    if use_cache and not ir_dir and os.path.isfile(cache_file):
        try:
            with open(cache_file, encoding="utf-8") as f:
                cached = json.load(f)
        except (OSError, ValueError):
            cached = None
    if cached is not None:
        compiled = cached
        from_cache = True
    else:
        from_cache = False
        out, ir = run_compile(spec, timeout, ir_dir)
        compiled = {"out": out, "ir": ir, "dynamic": None, "spec": spec}
        if shape_map and dynamic_cost and out.get("ok") and compiled["ir"] is not None \
                and out.get("target_kind") == "cell":
            dspec = dict(spec, dynamic="auto", compare_pynative=False)
            dout, dir_ = run_compile(dspec, timeout, None)
            compiled["dynamic"] = {"out": dout, "ir": dir_}
        if use_cache and out.get("error_type") not in INFRA_ERRORS:
            os.makedirs(os.path.dirname(cache_file), exist_ok=True)
            tmp = cache_file + f".{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(compiled, f)
            os.replace(tmp, cache_file)
    out, ir = compiled["out"], compiled["ir"]
    result = {
        "target": f"{os.path.relpath(path)}::{name}", "file": path, "name": name,
        "mode": "train" if train else "forward", "syntax_level": spec["syntax_level"],
        "inputs": spec.get("inputs") or spec.get("make_inputs_kwargs") or "make_inputs()",
        "shapes": {k: v for k, v in shape_map.items()}, "mindspore_version": out.get("mindspore_version") or ms_version,
        "cached": from_cache, "cache_key": key, "evidence_version": evidence.EVIDENCE_VERSION, "compile": _public_out(out), "ir": ir,
        "dynamic_cost": None, "static": None, "crosscheck": None, "errors": [],
    }
    if out.get("error_type") in INFRA_ERRORS:
        result["errors"].append(f"{out['error_type']}: {out.get('error_first_line')}")
    if compiled.get("dynamic"):
        d_ir = compiled["dynamic"]["ir"] or {}
        result["dynamic_cost"] = {
            "ok": compiled["dynamic"]["out"].get("ok"),
            "error": compiled["dynamic"]["out"].get("error_first_line"),
            "dynamic_inputs": compiled["dynamic"]["out"].get("dynamic_inputs"),
            "compiles": compiled["dynamic"]["out"].get("n_compiles"),
            "static": {"fused_kernels": (ir or {}).get("summary", {}).get("fused_kernels"),
                       "unfused_ops": (ir or {}).get("summary", {}).get("unfused_ops"),
                       "call_seconds": out.get("call_seconds")},
            "dynamic": {"fused_kernels": d_ir.get("summary", {}).get("fused_kernels"),
                        "unfused_ops": d_ir.get("summary", {}).get("unfused_ops"),
                        "call_seconds": compiled["dynamic"]["out"].get("call_seconds"),
                        "compile_seconds": compiled["dynamic"]["out"].get("compile_seconds")},
        }
    # fusion actually happened?
    fusion_ok = True
    if fusion and out.get("ok") and ir is not None:
        s = ir["summary"]
        fusible_unfused = [e for e in ir.get("unfused", []) if e["op"] in evidence.FUSIBLE_OPS]
        if s["fused_kernels"] == 0 and not s["dynamic_shape"] and fusible_unfused:
            fusion_ok = False
            result["errors"].append(
                "fusion did not happen: no Fused_* kernel in graph_build although "
                f"{len(fusible_unfused)} fusible ops are there; is the AKG kernel compiler working "
                "(pip install decorator) and MS_DEV_GRAPH_KERNEL_FLAGS honoured?")
    result["fusion_ok"] = fusion_ok
    # static side
    if static:
        if findings is None:
            findings = _static_findings(path)
        result["static"] = [_finding_dict(f) for f in findings] if findings is not None else None
    events = extract_events(out, ir, path) if out.get("error_type") not in INFRA_ERRORS else []
    if static and findings is not None:
        result["crosscheck"] = crosscheck(findings, events, ir, slack=slack)
    else:
        result["crosscheck"] = crosscheck([], events, ir, slack=slack)
        if not static:
            result["crosscheck"]["disagreements"] = []
            result["crosscheck"]["agree"] = True
    result["seconds"] = round(time.perf_counter() - t0, 3)
    result["exit_code"] = 2 if result["errors"] else (0 if result["crosscheck"]["agree"] else 1)
    return result


def _public_out(out: dict) -> dict:
    keep = ("ok", "error_type", "error_first_line", "error", "compile_seconds", "call_seconds",
            "n_compiles", "pynative_equal", "inputs_mutated", "ir_dir", "shape_runs", "outputs",
            "max_abs_diff", "stage", "target_kind", "input_shapes", "wall_seconds", "analyze_fail")
    return {k: out.get(k) for k in keep}


def _static_findings(path: str):
    try:
        from ..api import check_paths
    except ImportError:
        return None
    try:
        results = check_paths([path])
    except Exception as exc:  # noqa: BLE001 - the static side must not hide the compile
        click.echo(f"msgraphlint verify: static check failed: {type(exc).__name__}: {exc}", err=True)
        return None
    found = []
    for r in results:
        found.extend(getattr(r, "findings", []) or [])
    return [f for f in found if not f.code.startswith("MSG0")]


def _finding_dict(f) -> dict:
    return {"code": f.code, "name": getattr(f, "name", ""), "line": f.line,
            "end_line": getattr(f, "end_line", None), "message": f.message,
            "severity": getattr(getattr(f, "severity", None), "value", None)}


# ----------------------------------------------------------------------------- text


def render_text(result: dict, verbose: bool = False) -> str:
    lines: List[str] = []
    c = result["compile"]
    ir = result["ir"] or {}
    s = ir.get("summary") or {}
    lines.append(f"msgraphlint verify {result['target']}  ({result['mode']}, syntax {result['syntax_level']}, "
                 f"inputs {_fmt_inputs(result['inputs'])})")
    timing = []
    if c.get("compile_seconds") is not None:
        timing.append(f"compile {c['compile_seconds']:.1f} s")
    if c.get("call_seconds") is not None:
        timing.append(f"call {c['call_seconds'] * 1000:.1f} ms")
    timing.append(f"{c.get('n_compiles', 0)} compile(s)")
    timing.append("cached" if result["cached"] else "fresh")
    lines.append(f"MindSpore {result['mindspore_version']} · fusion on · " + " · ".join(timing))
    for err in result["errors"]:
        lines.append(f"ERROR: {err}")
    if not c.get("ok"):
        lines.append(f"Compile failed ({c.get('error_type')}): {c.get('error_first_line')}")
    if ir:
        lines.append("")
        lines.append(f"Fusion: {s.get('fused_kernels', 0)} fused kernels ({s.get('fused_ops', 0)} ops), "
                     f"{s.get('unfused_ops', 0)} ops unfused, {s.get('kernel_graphs', 0)} kernel graph(s), "
                     f"{s.get('fallback_nodes', 0)} fallback node(s)"
                     + (", dynamic shape" if s.get("dynamic_shape") else ""))
        for k in ir.get("fused", []):
            ops = " ".join(k["ops"]) if len(k["ops"]) <= 6 else " ".join(k["ops"][:6]) + f" … ({len(k['ops'])} ops)"
            lines.append(f"  fused    {k['kind']:<40} lines {_fmt_lines(k['lines']):<12} {ops}")
        for e in ir.get("unfused", []):
            lines.append(f"  unfused  {e['op']:<40} line  {_fmt_lines([e['line']] if e['line'] else []):<12} {e['scope']}")
        if ir.get("fallbacks"):
            lines.append("Fallback nodes:")
            for e in ir["fallbacks"]:
                lines.append(f"  {e['op']:<12} line {e['line'] if e['line'] else '?'}")
    if len(c.get("shape_runs") or []) or result["shapes"]:
        lines.append("")
        runs = c.get("shape_runs") or []
        lines.append(f"Recompiles: {c.get('n_compiles', 0)} compile(s) for {1 + len(runs)} input set(s)")
        lines.append(f"  first    {_fmt_shapes(c.get('input_shapes'))}")
        for r in runs:
            lines.append(f"  {('compile' if r['new_compiles'] else 'reuse'):<8} {_fmt_shapes(r.get('input_shapes'))} "
                         f"({r['seconds']:.2f} s)")
    d = result.get("dynamic_cost")
    if d:
        if d["ok"]:
            lines.append(f"  set_inputs with dynamic dims {d['dynamic_inputs']}: {d['compiles']} compile(s), "
                         f"{d['dynamic']['fused_kernels']} fused kernels (static: {d['static']['fused_kernels']}), "
                         f"{d['dynamic']['unfused_ops']} unfused ops (static: {d['static']['unfused_ops']}), "
                         f"call {_ms(d['dynamic']['call_seconds'])} (static: {_ms(d['static']['call_seconds'])})")
        else:
            lines.append(f"  set_inputs with dynamic dims: compile failed: {d['error']}")
    if c.get("pynative_equal") is not None:
        m = c.get("inputs_mutated") or {}
        lines.append("")
        lines.append(f"PyNative: outputs {'equal' if c['pynative_equal'] else 'DIFFER'} "
                     f"(max |diff| {_g(c.get('max_abs_diff'))}); inputs mutated: graph "
                     f"{_yn(m.get('graph'))}, PyNative {_yn(m.get('pynative'))}")
    x = result.get("crosscheck") or {}
    lines.append("")
    if result.get("static") is None:
        lines.append("Static findings: not available (static check skipped or failed)")
    lines.append(f"Agreement (static findings vs IR, ±{x.get('slack', DEFAULT_SLACK)} line):")
    if not x.get("findings"):
        lines.append("  no static findings")
    for r in x.get("findings", []):
        ev = "; ".join(r["evidence"]) if r["evidence"] else "-"
        lines.append(f"  {r['line']:>5}  {r['code']:<7} {r['status']:<14} {r['message'][:60]}")
        lines.append(f"         evidence: {ev}")
    lines.append("IR events:")
    if not x.get("events"):
        lines.append("  none")
    for e in x.get("events", []):
        by = ", ".join(e["explained_by"]) if e["explained_by"] else "-"
        where = e["line"] if e["line"] is not None else "-"
        lines.append(f"  {str(where):>5}  {e['kind']:<20} {e['status']:<12} {' '.join(sorted(set(e['ops'])))} "
                     f"{e['detail']}".rstrip() + f"  [by {by}]")
    dis = x.get("disagreements") or []
    lines.append(f"Disagreements: {len(dis) if dis else 'none'}")
    for d in dis:
        if d["type"] == "finding_not_confirmed":
            lines.append(f"  {d['code']} at line {d['line']}: the IR shows no effect there ({d['message'][:60]})")
        else:
            lines.append(f"  {d['kind']} at line {d['line'] if d['line'] is not None else '?'}: no static finding explains it")
    lines.append(f"({result['seconds']:.2f} s)")
    return "\n".join(lines)


def _fmt_inputs(inputs) -> str:
    if isinstance(inputs, list):
        return ", ".join(inputs)
    if isinstance(inputs, dict):
        return "make_inputs(" + ", ".join(f"{k}={v}" for k, v in inputs.items()) + ")"
    return str(inputs)


def _fmt_lines(lines) -> str:
    return ",".join(str(x) for x in lines) if lines else "?"


def _fmt_shapes(shapes) -> str:
    if not shapes:
        return "?"
    return ", ".join("x".join(str(d) for d in s) if isinstance(s, list) else str(s) for s in shapes)


def _ms(seconds) -> str:
    return f"{seconds * 1000:.1f} ms" if isinstance(seconds, (int, float)) else "?"


def _g(v) -> str:
    return f"{v:.2g}" if isinstance(v, (int, float)) else "?"


def _yn(v) -> str:
    return "?" if v is None else ("yes" if v else "no")


# ----------------------------------------------------------------------------- click


@click.command("verify")
@click.argument("target", required=False)
@click.option("--inputs", "inputs", multiple=True,
              help="Input specs, comma-separated or repeated: 2x64x256:float32, 1x1x64x64:bool, py:0.5. "
                   "Dims may be names used by --shapes (2xSEQx256:float32). Default: the module's make_inputs().")
@click.option("--shapes", "shapes", multiple=True,
              help="NAME=V1,V2,...: call the target with each value (a make_inputs() keyword or a "
                   "symbolic dim of --inputs) and count the compiles; also measures set_inputs with dynamic dims.")
@click.option("--train", is_flag=True, help="Compile forward and backward (value_and_grad + jit).")
@click.option("--strict", is_flag=True, help="Compile with jit_syntax_level STRICT (MS_DEV_JIT_SYNTAX_LEVEL=0).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--timeout", type=float, default=300, show_default=True, help="Seconds per compile.")
@click.option("--no-cache", is_flag=True, help="Compile again even when a cached result exists.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="Default: .msgraphlint_cache/ in the current directory ($MSGRAPHLINT_CACHE_DIR).")
@click.option("--ir-dir", type=click.Path(file_okay=False), default=None,
              help="Keep the saved IR in this directory (implies a fresh compile).")
@click.option("--no-pynative", is_flag=True, help="Skip the PyNative comparison.")
@click.option("--no-dynamic-cost", is_flag=True, help="With --shapes, skip the set_inputs measurement.")
@click.option("--no-static", is_flag=True, help="Report the IR only; no cross-check against static findings.")
@click.option("--slack", type=int, default=DEFAULT_SLACK, show_default=True,
              help="Lines of slack when matching an IR line to a finding.")
def verify_command(target, inputs, shapes, train, strict, fmt, timeout, no_cache, cache_dir, ir_dir,
                   no_pynative, no_dynamic_cost, no_static, slack):
    """Compile TARGET (path/to/file.py::ClassOrFunction; default: the bundled reference GPT
    layer) in GRAPH_MODE with graph-kernel fusion, report fused kernels, unfused ops, fallback
    nodes, control flow and recompiles from the saved IR, and cross-check the static findings.

    Exit codes: 0 agree, 1 disagreement, 2 usage error or the compile could not be judged."""
    specs = []
    for v in inputs:
        specs.extend(x.strip() for x in v.split(",") if x.strip())
    result = verify(target, inputs=specs, shapes=shapes, train=train, strict=strict,
                    pynative=not no_pynative, dynamic_cost=not no_dynamic_cost, static=not no_static,
                    timeout=timeout, use_cache=not no_cache, cache_dir=cache_dir, ir_dir=ir_dir, slack=slack)
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, default=str))
    else:
        click.echo(render_text(result))
    click.get_current_context().exit(result["exit_code"])

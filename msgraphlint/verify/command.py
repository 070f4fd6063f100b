"""``msgraphlint verify``: compile the target with graph-kernel fusion, read the IR, and
cross-check it against the static findings. See docs/verify.md.

Exit codes: 0 the IR and the static findings agree; 1 a finding is not confirmed or an
IR event is unexplained; 2 a usage error (:class:`VerifyError`: bad target, inputs or
shapes, an import error or a constructor needing arguments in the module, MindSpore
missing; never cached), or the compile could not be judged (timeout, the child crashed,
fusion did not happen).

The flow: ``reach`` (what the target compiles, statically) -> ``compile`` (the child, while
the static check of those files runs here) -> ``ir`` (parse) -> ``crosscheck`` (with the
tables of ``evidence``) -> ``report``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import click

from .. import __version__
from . import evidence
from . import inputs as inputs_mod
from .compile import compile_target, mindspore_python
from .crosscheck import DEFAULT_SLACK, crosscheck, extract_events
from .ir import PARSER_VERSION, is_library_path, parse_ir_dir
from .reach import TargetError, check_target, import_closure, new_index, reach, sources_digest
from .report import render_text  # noqa: F401 - part of this module's API

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
    """A usage error (bad target, inputs or options; MindSpore missing): exit 2, never cached."""

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
        raise VerifyError(f"TARGET: no such file: {path}")
    if not name:
        raise VerifyError("TARGET: name the Cell class or function: path/to/file.py::ClassName")
    if not name.isidentifier():
        raise VerifyError(f"TARGET: {name!r} is not a Python name (path/to/file.py::ClassName)")
    return os.path.abspath(path), name


def parse_shapes(values: Sequence[str]) -> Dict[str, List[str]]:
    """``("seq=64,128,96",)`` -> ``{"seq": ["64", "128", "96"]}``."""
    try:
        return inputs_mod.parse_shapes(values)
    except inputs_mod.InputError as exc:
        raise VerifyError(str(exc)) from None


def build_spec(path: str, name: str, inputs: Sequence[str], shapes: Dict[str, List[str]],
               train: bool, strict: bool, fusion: bool, pynative: bool) -> dict:
    """The compile child's SPEC; a malformed --inputs/--shapes is a :class:`VerifyError`."""
    spec = {"file": path, "target": name, "train": train,
            "syntax_level": "strict" if strict else "default", "fusion": fusion,
            "compare_pynative": pynative}
    if inputs:
        try:
            variants = inputs_mod.input_variants(list(inputs), shapes)
        except inputs_mod.InputError as exc:
            raise VerifyError(str(exc)) from None
        spec["inputs"] = variants[0]
        if shapes:
            spec["shapes"] = variants[1:]
    else:
        spec["inputs"] = None
        if shapes:
            n = len(next(iter(shapes.values())))
            variants = [{k: inputs_mod.literal(v[i]) for k, v in shapes.items()} for i in range(n)]
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


def cache_key(spec: dict, ms_version: str, sources: Optional[Sequence[str]] = None) -> str:
    """The target, inputs and options, the MindSpore version and interpreter, msgraphlint's
    parser version, and the bytes of every project module the target file imports,
    transitively (``reach.import_closure``), as ``check``'s cache keys a file."""
    sources = list(sources) if sources is not None else import_closure(spec["file"])
    payload = {k: v for k, v in spec.items() if k not in ("ir_dir", "file")}
    payload.update(file=os.path.abspath(spec["file"]), sources=sources_digest(sources),
                   mindspore=ms_version, msgraphlint=__version__, parser=PARSER_VERSION,
                   python=mindspore_python())
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def default_cache_dir() -> str:
    """Outside the user's tree, like ``check``'s: ``$MSGRAPHLINT_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/msgraphlint`` (``~/.cache/msgraphlint``); results go in ``verify/``."""
    from ..cache import default_dir

    return default_dir()


# ----------------------------------------------------------------------------- running


def run_compile(spec: dict, timeout: float, keep_ir: Optional[str]) -> Tuple[dict, Optional[dict]]:
    """Compile and parse; returns (OUT, IR report dict)."""
    tmp = tempfile.mkdtemp(prefix="msgraphlint-verify-")
    try:
        ir_dir = os.path.join(tmp, "ir")
        out = compile_target(dict(spec, ir_dir=ir_dir), timeout=timeout)
        ir = None
        if os.path.isdir(ir_dir) and out.get("error_type") not in INFRA_ERRORS and not out.get("usage_error"):
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


def _dynamic_cost_skip(spec: dict, out: dict, shape_map: dict) -> Optional[str]:
    """Why the set_inputs measurement does not apply to this run, or None when it does."""
    if spec.get("train"):
        return "--train: it would compile the forward graph only, so its cost means nothing for a training step"
    if not out.get("ok"):
        return "the compile failed"
    if out.get("target_kind") != "cell":
        return "set_inputs needs a Cell target"
    sigs = {_tensor_dims(out.get("input_shapes"))} | {_tensor_dims(r.get("input_shapes"))
                                                      for r in out.get("shape_runs") or []}
    if len(sigs) <= 1:
        return "no tensor shape varies (only Python scalar arguments): set_inputs declares tensor dims only"
    return None


def _tensor_dims(shapes) -> tuple:
    return tuple(tuple(s) for s in shapes or [] if isinstance(s, list))


def verify(target: Optional[str] = None, *, inputs: Sequence[str] = (), shapes: Sequence[str] = (),
           train: bool = False, strict: bool = False, fusion: bool = True, pynative: bool = True,
           dynamic_cost: bool = True, static: bool = True, timeout: float = 300,
           use_cache: bool = True, cache_dir: Optional[str] = None, ir_dir: Optional[str] = None,
           slack: int = DEFAULT_SLACK, findings=None) -> dict:
    """Run a verify and return its result dict (what ``--format json`` prints). Usage
    errors raise :class:`VerifyError` (exit 2) and are never cached."""
    path, name = parse_target(target, train)
    shape_map = parse_shapes(shapes)
    spec = build_spec(path, name, inputs, shape_map, train, strict, fusion, pynative)
    try:
        check_target(path, name, need_make_inputs=not inputs, shape_names=list(shape_map) if not inputs else ())
        index = new_index(path)
        reached = reach(path, name, index)
        closure = import_closure(path, index)
    except TargetError as exc:
        raise VerifyError(str(exc)) from None
    t0 = time.perf_counter()
    ms_version = _mindspore_version()
    key = cache_key(dict(spec, dynamic_cost=bool(shape_map and dynamic_cost)), ms_version, closure)
    cache_dir = cache_dir or default_cache_dir()
    cache_file = os.path.join(cache_dir, "verify", key + ".json")
    cached = None
    if use_cache and not ir_dir and os.path.isfile(cache_file):
        try:
            with open(cache_file, encoding="utf-8") as f:
                cached = json.load(f)
        except (OSError, ValueError):
            cached = None
    early_files = sorted({path} | set(reached.files))
    early_findings = None
    if cached is not None:
        compiled = cached
        from_cache = True
    else:
        from_cache = False
        # the static check runs while the child compiles (the parent only waits on it)
        with ThreadPoolExecutor(max_workers=1) as pool:
            job = pool.submit(run_compile, spec, timeout, ir_dir)
            if static and findings is None:
                early_findings = _static_findings(early_files)
            out, ir = job.result()
        if out.get("error_type") == "MindSporeMissing":
            raise VerifyError(out.get("error_first_line") or "MindSpore is not importable")
        if out.get("usage_error"):
            raise VerifyError(f"{os.path.relpath(path)}::{name}: {out['usage_error']}")
        compiled = {"out": out, "ir": ir, "dynamic": None, "spec": spec}
        if shape_map and dynamic_cost:
            skip = _dynamic_cost_skip(spec, out, shape_map)
            if skip:
                compiled["dynamic"] = {"skipped": skip}
            else:
                dspec = dict(spec, dynamic="auto", compare_pynative=False)
                dout, dir_ = run_compile(dspec, timeout, None)
                compiled["dynamic"] = {"out": dout, "ir": dir_}
        if use_cache and out.get("error_type") not in INFRA_ERRORS:
            from ..cache import prepare_dir
            prepare_dir(cache_dir)  # a folder msgraphlint creates gets its marker, so `clean` may remove it
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
        "cached": from_cache, "cache_key": key, "evidence_version": evidence.EVIDENCE_VERSION,
        "compile": _public_out(out), "ir": ir,
        "compiled_code": [s.to_list() for s in reached.spans], "compiled_before_failure": None,
        "dynamic_cost": None, "static": None, "crosscheck": None, "errors": [],
    }
    if out.get("error_type") in INFRA_ERRORS:
        result["errors"].append(f"{out['error_type']}: {out.get('error_first_line')}")
    if not out.get("ok") and out.get("error_type") not in INFRA_ERRORS:
        result["compiled_before_failure"] = _compiled_before_failure(ir, reached)
    dyn = compiled.get("dynamic")
    if dyn and dyn.get("skipped"):
        result["dynamic_cost"] = {"skipped": dyn["skipped"]}
    elif dyn:
        d_ir = dyn["ir"] or {}
        result["dynamic_cost"] = {
            "ok": dyn["out"].get("ok"),
            "error": dyn["out"].get("error_first_line"),
            "dynamic_inputs": dyn["out"].get("dynamic_inputs"),
            "compiles": dyn["out"].get("n_compiles"),
            "static": {"fused_kernels": (ir or {}).get("summary", {}).get("fused_kernels"),
                       "unfused_ops": (ir or {}).get("summary", {}).get("unfused_ops"),
                       "call_seconds": out.get("call_seconds")},
            "dynamic": {"fused_kernels": d_ir.get("summary", {}).get("fused_kernels"),
                        "unfused_ops": d_ir.get("summary", {}).get("unfused_ops"),
                        "call_seconds": dyn["out"].get("call_seconds"),
                        "compile_seconds": dyn["out"].get("compile_seconds")},
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
    # static side: the files holding the compiled code
    if static:
        if findings is None:
            files = _static_files(path, reached, ir)
            if early_findings is not None:
                more = [f for f in files if f not in early_files]
                findings = early_findings + ((_static_findings(more) or []) if more else [])
            else:
                findings = _static_findings(files)
        result["static"] = [_finding_dict(f) for f in findings] if findings is not None else None
    events = extract_events(out, ir, path) if out.get("error_type") not in INFRA_ERRORS else []
    compile_ok = bool(out.get("ok"))
    if static and findings is not None:
        result["crosscheck"] = crosscheck(findings, events, ir, slack=slack, reached=reached, compile_ok=compile_ok)
    else:
        result["crosscheck"] = crosscheck([], events, ir, slack=slack, reached=reached, compile_ok=compile_ok)
        if not static:
            result["crosscheck"]["disagreements"] = []
            result["crosscheck"]["agree"] = True
    result["seconds"] = round(time.perf_counter() - t0, 3)
    result["exit_code"] = 2 if result["errors"] else (0 if result["crosscheck"]["agree"] else 1)
    return result


def _compiled_before_failure(ir: Optional[dict], reached) -> List[str]:
    """The project functions the failed compile had parsed (analyze_fail.ir / IR def frames)."""
    out = []
    for r in (ir or {}).get("compiled_ranges") or []:
        if len(r) != 3:
            continue
        p, a, b = r
        name = next((s.name.split(".", 1)[-1] for s in reached.spans if s.path == os.path.abspath(p)
                     and s.start <= a and b <= s.end and s.kind == "function"), None)
        if name is None:
            owner = next((s for s in reached.spans if s.path == os.path.abspath(p) and s.start <= a and b <= s.end), None)
            name = owner.name.split(".", 1)[-1] + f" (lines {a}-{b})" if owner else f"lines {a}-{b}"
        out.append(f"{os.path.relpath(p)}: {name}")
    return sorted(set(out))


def _static_files(path: str, reached, ir: Optional[dict]) -> List[str]:
    files = {os.path.abspath(path)} | set(reached.files)
    for r in (ir or {}).get("compiled_ranges") or []:
        if len(r) == 3 and os.path.isfile(r[0]) and not is_library_path(r[0]):
            files.add(os.path.abspath(r[0]))
    return sorted(files)


def _public_out(out: dict) -> dict:
    keep = ("ok", "error_type", "error_first_line", "error", "compile_seconds", "call_seconds",
            "n_compiles", "pynative_equal", "inputs_mutated", "ir_dir", "shape_runs", "outputs",
            "max_abs_diff", "stage", "target_kind", "input_shapes", "wall_seconds", "analyze_fail",
            "pynative_seconds")
    return {k: out.get(k) for k in keep}


def _static_findings(paths):
    try:
        from ..api import check_paths
    except ImportError:
        return None
    if isinstance(paths, str):
        paths = [paths]
    try:
        results = check_paths(list(paths))
    except Exception as exc:  # noqa: BLE001 - the static side must not hide the compile
        click.echo(f"msgraphlint verify: static check failed: {type(exc).__name__}: {exc}", err=True)
        return None
    found = []
    for r in results:
        found.extend(getattr(r, "findings", []) or [])
    return [f for f in found if not f.code.startswith("MSG0")]


def _finding_dict(f) -> dict:
    return {"code": f.code, "name": getattr(f, "name", ""), "path": getattr(f, "path", None), "line": f.line,
            "end_line": getattr(f, "end_line", None), "message": f.message,
            "severity": getattr(getattr(f, "severity", None), "value", None)}


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
              help="Default: $MSGRAPHLINT_CACHE_DIR, else ~/.cache/msgraphlint (as check's cache).")
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

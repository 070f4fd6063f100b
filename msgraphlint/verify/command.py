"""``msgraphlint verify``: compile the target with graph-kernel fusion, read the IR, and
cross-check it against the static findings. See docs/verify.md.

Exit codes: 0 the IR and the static findings agree; 1 a finding is not confirmed or an
IR event is unexplained; 2 a usage error (:class:`VerifyError`: bad target, inputs or
shapes, wrong number of inputs, an import error or a constructor needing arguments in the
module, MindSpore missing), or the compile could not be judged, for reasons that are not
the code's (:func:`not_the_codes`: an op without a kernel on the device, a crash of the
kernel compiler, an exhausted time budget, the child crashed, fusion did not happen).
Nothing that exits 2 is cached. With ``--format json`` every exit prints a JSON object.

The flow: ``reach`` (what the target compiles, statically) -> ``compile`` (the child, while
the static check of those files runs here) -> ``ir`` (parse) -> ``crosscheck`` (with the
tables of ``evidence``) -> ``report``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
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
from .facts import lookup as device_facts
from .ir import PARSER_VERSION, error_locations, is_library_path, match_line, parse_ir_dir
from .reach import (TargetError, check_target, folded_branches, import_closure, new_index, reach,
                    sources_digest)
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
#: the verify cache's entry format (an entry of another format is a miss)
CACHE_FORMAT = 2


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
    if os.path.isdir(path):
        found = sorted(f for f in os.listdir(path) if f.endswith(".py"))[:4]
        example = os.path.join(path, found[0] if found else "model.py")
        raise VerifyError(f"TARGET: {path} is a directory; verify compiles one Cell or function: name its file "
                          f"and its name, e.g. {example}::ClassName"
                          + (f" (Python files there: {', '.join(found)})" if found else ""))
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
               train: bool, strict: bool, fusion: bool, pynative: bool, device: str = "CPU",
               python: Optional[str] = None) -> dict:
    """The compile child's SPEC; a malformed --inputs/--shapes is a :class:`VerifyError`."""
    from ..project.index import module_name_for

    module, root, _ = module_name_for(path)
    spec = {"file": path, "target": name, "train": train,
            "syntax_level": "strict" if strict else "default", "fusion": fusion,
            "compare_pynative": pynative, "device": device, "python": mindspore_python(python),
            "module": module, "import_root": root}
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


def _version_from_layout(python: str) -> Optional[str]:
    """MindSpore's version from its ``dist-info`` folder in the interpreter's environment,
    found from the environment's layout (``installed.environment_search_path``) without
    starting the interpreter; None when that finds none."""
    try:
        from ..project.installed import environment_search_path

        folders = environment_search_path(python)
    except Exception:  # noqa: BLE001 - then the interpreter is asked
        return None
    for folder in folders:
        if not os.path.isfile(os.path.join(folder, "mindspore", "__init__.py")):
            continue
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for n in names:
            m = re.match(r"mindspore-([0-9][^-]*)\.dist-info$", n)
            if m:
                return m.group(1)
        return None
    return None


def _mindspore_version(python: Optional[str] = None) -> str:
    """The MindSpore version installed for the interpreter that compiles (read from its
    metadata, never by importing MindSpore)."""
    python = mindspore_python(python)
    if os.path.realpath(python) != os.path.realpath(sys.executable):
        found = _version_from_layout(python)
        if found:
            return found
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        try:
            from importlib.metadata import version

            return version("mindspore")
        except Exception:  # noqa: BLE001
            return "absent"
    import subprocess

    try:
        proc = subprocess.run([python, "-I", "-c", "from importlib.metadata import version; print(version('mindspore'))"],
                              capture_output=True, text=True, timeout=60)
        return proc.stdout.strip() or "absent"
    except (OSError, subprocess.TimeoutExpired):
        return "absent"


def _file_digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "missing"


def cache_key(spec: dict, ms_version: str, sources: Optional[Sequence[str]] = None) -> str:
    """The target (its file's bytes), inputs and options, the MindSpore version and the
    interpreter, msgraphlint's version and parser version: a deterministic key. What else
    the compile executed is checked against the entry's manifest (:func:`manifest`), not
    guessed here; ``sources`` (optional) are hashed in as well."""
    payload = {k: v for k, v in spec.items() if k not in ("ir_dir", "file", "python")}
    payload.update(file=os.path.abspath(spec["file"]), file_digest=_file_digest(spec["file"]),
                   mindspore=ms_version, msgraphlint=__version__, parser=PARSER_VERSION,
                   python=os.path.realpath(mindspore_python(spec.get("python"))), format=CACHE_FORMAT)
    if sources:
        payload["sources"] = sources_digest(sources)
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _stat_sig(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    return f"stat:{st.st_size}:{st.st_mtime_ns}"


def manifest(paths: Sequence[str]) -> List[List[str]]:
    """``[path, stat, digest]`` of every file a compile executed: size and mtime, and the
    bytes' sha256 for project files (installed ones, in site-packages, change only by
    installing: their times say it)."""
    out = []
    for p in sorted(set(paths)):
        out.append([p, _stat_sig(p), "" if is_library_path(p) else _file_digest(p)])
    return out


def manifest_valid(entries) -> bool:
    """Whether every file of a cached compile's manifest is as it was: the same size and
    mtime, or (a project file touched but not changed, a fresh checkout) the same bytes."""
    for item in entries or []:
        if not isinstance(item, list) or len(item) != 3:
            return False
        p, stat, digest = item
        if _stat_sig(p) == stat:
            continue
        if not digest or _file_digest(p) != digest:
            return False
    return True


def default_cache_dir() -> str:
    """Outside the user's tree, like ``check``'s: ``$MSGRAPHLINT_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/msgraphlint`` (``~/.cache/msgraphlint``); results go in ``verify/``."""
    from ..cache.store import default_dir

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


def not_the_codes(out: dict, facts, findings=None, slack: int = DEFAULT_SLACK) -> Optional[dict]:
    """Why a failed compile is no verdict on the code, or None when it is one: ``{"kind",
    "headline"}``. An op the device has no kernel for (unless a finding predicts exactly
    that at its line, ``evidence.NO_KERNEL_CODES``), a crash of the kernel compiler (AKG),
    an exhausted time budget, a child that died, MindSpore missing."""
    if out.get("ok"):
        return None
    error = out.get("error") or ""
    device = out.get("device") or facts.device
    ms = out.get("mindspore_version") or facts.mindspore
    where = [s for s in error_locations(error) if not is_library_path(s[0])]
    at = f" at {os.path.relpath(where[0][0])}:{where[0][1]}" if where else ""
    m = re.search(r"Unsupported op \[(\w+)\] on (\w+)", error)
    if m:
        op, dev = m.group(1), m.group(2)
        if where and findings and any(
                f.code in evidence.NO_KERNEL_CODES and match_line(where[0][1], f.line, slack, getattr(f, "end_line", None))
                for f in findings):
            return None  # the finding predicted it: a verdict
        api = facts.no_kernel.get(op)
        known = f" (measured: {api} makes {op})" if api else ""
        return {"kind": "no_kernel",
                "headline": f"{op} has no {dev} kernel in MindSpore {ms}{at}{known}: verify cannot judge this code "
                            f"on {dev}. Run it where the op has a kernel (--device GPU or --device Ascend, with "
                            f"MindSpore for that device), or verify a variant without the op"}
    if "Response is empty" in error or "kernel_build_client" in error:
        return {"kind": "toolchain",
                "headline": f"the graph-kernel compiler (AKG) crashed building the fused kernels on {device} "
                            f"(\"Response is empty.\", MindSpore {ms}){at}; this is the toolchain, not the code "
                            "(measured on CPU with 2.10: float16 MatMul chains, ops.round). Verify without "
                            "fusion (--no-fusion), with float32 inputs, or on another device (--device)"}
    if out.get("error_type") == "CompileTimeout":
        return {"kind": "budget", "headline": f"{out.get('error_first_line')}: the time budget ran out before a "
                                              "verdict; give it more with --timeout SECONDS, or smaller inputs"}
    if out.get("error_type") in INFRA_ERRORS:
        return {"kind": "infrastructure", "headline": f"{out['error_type']}: {out.get('error_first_line')}"}
    return None


def _lower_thread_priority(niceness: int = 19) -> None:
    """Lower the calling thread's scheduling priority (Linux: a thread is a task), so work
    done beside a compile does not slow it down."""
    try:
        import threading

        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
    except (AttributeError, OSError, ValueError):
        pass


def project_python(path: str) -> Optional[str]:
    """The interpreter the ``python`` setting of ``path``'s configuration names (an
    interpreter, or an environment folder: its ``bin/python``), or None. The project's
    interpreter compiles, as it runs the project; ``--python`` and
    ``$MSGRAPHLINT_MINDSPORE_PYTHON`` take precedence."""
    from ..config import ConfigError, ConfigResolver
    try:
        setting = ConfigResolver().resolve(path).python
    except ConfigError as exc:
        raise VerifyError(str(exc)) from None
    if not setting:
        return None
    if os.path.isdir(setting):
        for candidate in (os.path.join(setting, "bin", "python"), os.path.join(setting, "Scripts", "python.exe")):
            if os.path.isfile(candidate):
                return candidate
        raise VerifyError(f"the python setting names {setting}, which holds no bin/python")
    return setting


def _resolve_python(python: Optional[str]) -> Optional[str]:
    if not python:
        return None
    found = shutil.which(python) if os.sep not in python else python
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise VerifyError(f"--python: {python} is not an executable interpreter")
    return os.path.abspath(found)


def _load_cached(cache_file: str):
    """``(compiled, manifest)`` of a valid entry, else ``(None, None)``."""
    try:
        with open(cache_file, encoding="utf-8") as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None, None
    if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT or not manifest_valid(entry.get("manifest")):
        return None, None
    compiled = entry.get("compiled")
    return (compiled, entry.get("manifest")) if isinstance(compiled, dict) else (None, None)


def _store(cache_dir: str, cache_file: str, compiled: dict, files: Optional[Sequence[str]],
           entries: Optional[list] = None) -> None:
    from ..cache.store import prepare_dir

    prepare_dir(cache_dir)  # a folder msgraphlint creates gets its marker, so `clean` may remove it
    os.makedirs(os.path.dirname(cache_file), exist_ok=True)
    tmp = cache_file + f".{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"format": CACHE_FORMAT, "manifest": entries if entries is not None else manifest(files),
                       "compiled": compiled}, f)
        os.replace(tmp, cache_file)
    except OSError as exc:  # a cache that cannot be written is a miss next time, not a failure
        click.echo(f"msgraphlint verify: cache not written: {exc}", err=True)
        try:
            os.remove(tmp)
        except OSError:
            pass


def verify(target: Optional[str] = None, *, inputs: Sequence[str] = (), shapes: Sequence[str] = (),
           train: bool = False, strict: bool = False, fusion: bool = True, pynative: bool = True,
           dynamic_cost: bool = True, static: bool = True, timeout: float = 300,
           use_cache: bool = True, cache_dir: Optional[str] = None, ir_dir: Optional[str] = None,
           slack: int = DEFAULT_SLACK, findings=None, python: Optional[str] = None, device: str = "CPU") -> dict:
    """Run a verify and return its result dict (what ``--format json`` prints). Usage
    errors raise :class:`VerifyError` (exit 2) and are never cached."""
    path, name = parse_target(target, train)
    if not python and not os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON"):
        python = project_python(path)
    python = _resolve_python(python)
    shape_map = parse_shapes(shapes)
    spec = build_spec(path, name, inputs, shape_map, train, strict, fusion, pynative, device, python)
    try:
        check_target(path, name, need_make_inputs=not inputs, shape_names=list(shape_map) if not inputs else ())
    except TargetError as exc:
        raise VerifyError(str(exc)) from None
    t0 = time.perf_counter()
    ms_version = _mindspore_version(python) if python else _mindspore_version()
    facts = device_facts(ms_version, device)
    key = cache_key(dict(spec, dynamic_cost=bool(shape_map and dynamic_cost)), ms_version)
    cache_dir = cache_dir or default_cache_dir()
    cache_file = os.path.join(cache_dir, "verify", key + ".json")
    cached, cached_manifest = _load_cached(cache_file) if use_cache and not ir_dir else (None, None)
    static_cache = cache_dir if use_cache else None
    want_static = static and findings is None

    def static_side(background: bool):
        """What the target reaches (from the entry when every file it read is unchanged) and
        the static findings of those files; in the background of a compile at a lower
        priority, so the compile keeps the CPU."""
        if background:
            _lower_thread_priority()
        got = _reach_from(cached.get("reach")) if cached is not None and cached.get("reach") else None
        if got is None:
            got = reach(path, name, new_index(path))
        files = sorted({path} | set(got.files))
        return got, files, (_static_findings(files, static_cache) if want_static else None)

    static_refreshed = False
    if cached is not None:
        compiled = cached
        from_cache = True
        got = _reach_from(cached["reach"]) if cached.get("reach") else None
        try:
            reached = got or reach(path, name, new_index(path))
        except TargetError as exc:
            raise VerifyError(str(exc)) from None
        early_files = sorted({path} | set(reached.files))
        early_findings = None
        if want_static:
            # the static findings of the entry, while msgraphlint, its rules, the configuration and
            # the files checked are as they were; else check's (cached) run again
            files = _static_files(path, reached, cached.get("ir"))
            rec = cached.get("static_findings") or {}
            if rec.get("fingerprint") and rec["fingerprint"] == _static_fingerprint(path, files):
                findings = [_StoredFinding(**f) for f in rec["findings"]]
            else:
                static_refreshed = True
    else:
        from_cache = False
        # the child starts first; the static side runs while it compiles (the parent only waits)
        with ThreadPoolExecutor(max_workers=1) as pool:
            side = pool.submit(static_side, True)
            out, ir = run_compile(spec, timeout, ir_dir)
            try:
                reached, early_files, early_findings = side.result()
            except TargetError as exc:
                raise VerifyError(str(exc)) from None
        if out.get("error_type") == "MindSporeMissing":
            raise VerifyError(out.get("error_first_line") or "MindSpore is not importable")
        if out.get("usage_error"):
            raise VerifyError(f"{os.path.relpath(path)}::{name}: {out['usage_error']}")
        compiled = {"out": out, "ir": ir, "dynamic": None, "spec": spec, "reach": _reach_to(reached)}
        if shape_map and dynamic_cost:
            skip = _dynamic_cost_skip(spec, out, shape_map)
            if skip:
                compiled["dynamic"] = {"skipped": skip}
            else:
                dspec = dict(spec, dynamic="auto", compare_pynative=False)
                dout, dir_ = run_compile(dspec, timeout, None)
                compiled["dynamic"] = {"out": dout, "ir": dir_}
    out, ir = compiled["out"], compiled["ir"]
    python_used = out.get("python") or mindspore_python(python)
    result = {
        "target": f"{os.path.relpath(path)}::{name}", "file": path, "name": name,
        "mode": "train" if train else "forward", "syntax_level": spec["syntax_level"],
        "inputs": spec.get("inputs") or spec.get("make_inputs_kwargs") or "make_inputs()",
        "shapes": {k: v for k, v in shape_map.items()}, "mindspore_version": out.get("mindspore_version") or ms_version,
        "python": python_used, "device": device, "fusion": fusion, "device_facts": facts.to_dict(),
        "cached": from_cache, "cache_key": key, "evidence_version": evidence.EVIDENCE_VERSION,
        "compile": _public_out(out), "ir": ir,
        "compiled_code": [s.to_list() for s in reached.spans], "compiled_before_failure": None,
        "folded": [], "dynamic_cost": None, "static": None, "crosscheck": None, "errors": [],
        "not_the_code": None,
    }
    # static side: the files holding the compiled code
    if static:
        if findings is None:
            files = _static_files(path, reached, ir)
            if early_findings is not None:
                more = [f for f in files if f not in early_files]
                findings = early_findings + ((_static_findings(more, static_cache) or []) if more else [])
            else:
                findings = _static_findings(files, static_cache)
        result["static"] = [_finding_dict(f) for f in findings] if findings is not None else None
    why = not_the_codes(out, facts, findings if static else None, slack)
    if why:
        result["not_the_code"] = why
        result["errors"].append(why["headline"])
    if not out.get("ok") and not why:
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
        fusible_unfused = [e for e in ir.get("unfused", []) if facts.fusible(e["op"])]
        if s["fused_kernels"] == 0 and not s["dynamic_shape"] and fusible_unfused:
            fusion_ok = False
            result["errors"].append(
                "fusion did not happen: no Fused_* kernel in graph_build although "
                f"{len(fusible_unfused)} ops that fuse on {facts.device} are there; is the AKG kernel compiler "
                "working (pip install decorator) and MS_DEV_GRAPH_KERNEL_FLAGS honoured?")
    result["fusion_ok"] = fusion_ok
    events = extract_events(out, ir, path, facts=facts) if not why else []
    compile_ok = bool(out.get("ok"))
    if "folded" not in compiled:
        compiled["folded"] = [list(f) for f in folded_branches(ir)] if compile_ok else []
    folded = [tuple(f) for f in compiled["folded"]]
    result["folded"] = [list(f) for f in folded]
    if static and findings is not None and not why:
        result["crosscheck"] = crosscheck(findings, events, ir, slack=slack, reached=reached, compile_ok=compile_ok,
                                          folded=folded)
    else:
        result["crosscheck"] = crosscheck([], events, ir, slack=slack, reached=reached, compile_ok=compile_ok,
                                          folded=folded)
        if not static or why:
            result["crosscheck"]["disagreements"] = []
            result["crosscheck"]["agree"] = True
    result["seconds"] = round(time.perf_counter() - t0, 3)
    result["exit_code"] = 2 if result["errors"] else (0 if result["crosscheck"]["agree"] else 1)
    if static and findings is not None and (not from_cache or static_refreshed):
        files = _static_files(path, reached, ir)
        compiled["static_findings"] = {"fingerprint": _static_fingerprint(path, files),
                                       "findings": result["static"]}
    if use_cache and not from_cache and result["exit_code"] != 2:
        files = out.get("imported_files")
        if files is None:
            files = import_closure(path)
        _store(cache_dir, cache_file, compiled, list(files) + [path])
    elif use_cache and from_cache and static_refreshed and cached_manifest is not None:
        _store(cache_dir, cache_file, compiled, None, entries=cached_manifest)
    return result


class _StoredFinding:
    """A static finding as a cache entry keeps it (what the cross-check reads)."""

    def __init__(self, code, name="", path=None, line=0, end_line=None, message="", severity=None):
        self.code, self.name, self.path, self.line = code, name, path, line
        self.end_line, self.message, self.severity = end_line, message, _Severity(severity)


class _Severity:
    def __init__(self, value):
        self.value = value


def _static_fingerprint(path: str, files: Sequence[str]) -> str:
    """What check's findings for ``files`` depend on, from file times alone: msgraphlint's
    and its rule packages' files, the rule packs registered, the configuration files that
    apply to the target, and the files checked."""
    import importlib.util

    parts = [__version__]
    for pkg in ("msgraphlint", "msgraphlint_rules"):
        spec = importlib.util.find_spec(pkg)
        for root in (spec.submodule_search_locations or []) if spec else []:
            for folder, dirs, names in os.walk(root):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                parts.extend(f"{os.path.join(folder, n)}={_stat_sig(os.path.join(folder, n))}"
                             for n in sorted(names) if n.endswith((".py", ".json", ".yaml")))
    try:
        from importlib.metadata import entry_points

        parts.extend(sorted(f"{e.name}={e.value}" for e in entry_points(group="msgraphlint.rules")))
    except Exception:  # noqa: BLE001
        parts.append("entry-points?")
    from ..config import CONFIG_FILES

    d = os.path.dirname(os.path.abspath(path))
    while True:
        parts.extend(f"{os.path.join(d, n)}={_stat_sig(os.path.join(d, n))}" for n in CONFIG_FILES
                     if os.path.exists(os.path.join(d, n)))
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    parts.extend(f"{f}={_stat_sig(f)}" for f in sorted(files))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


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
            "pynative_seconds", "python", "child_sys_path", "device")
    return {k: out.get(k) for k in keep}


def _reach_to(reached) -> dict:
    return {"spans": [s.to_list() for s in reached.spans], "inits": [s.to_list() for s in reached.inits],
            "files": list(reached.files), "natives": [[p, ln, ops] for (p, ln), ops in reached.natives.items()]}


def _reach_from(data: dict):
    from .reach import Reach, Span

    try:
        return Reach(spans=[Span(*s) for s in data["spans"]], files=list(data["files"]),
                     natives={(p, ln): list(ops) for p, ln, ops in data["natives"]},
                     inits=[Span(*s) for s in data.get("inits", [])])
    except (KeyError, TypeError, ValueError):
        return None


def _static_findings(paths, cache_dir: Optional[str] = None):
    """``check``'s findings for ``paths``, through its result cache when ``cache_dir`` is
    given (an unchanged file is not analysed again; a rule change still is)."""
    try:
        from ..run.runner import run_paths
    except ImportError:
        return None
    if isinstance(paths, str):
        paths = [paths]
    try:
        results = run_paths(list(paths), cache=bool(cache_dir), cache_dir=cache_dir).files
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


class _VerifyCommand(click.Command):
    """``--format json`` answers every exit with a JSON object on stdout, click's own
    usage errors (an unknown option, a bad choice) included."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, list(args), parent=parent, **extra)
        except click.UsageError as exc:
            if _wants_json(args):
                click.echo(json.dumps(_error_result(None, exc.format_message()), indent=2))
            raise


def _wants_json(args) -> bool:
    args = list(args)
    return "--format=json" in args or any(a == "--format" and i + 1 < len(args) and args[i + 1] == "json"
                                          for i, a in enumerate(args))


def _error_result(target, message: str) -> dict:
    return {"target": target, "exit_code": 2, "errors": [message], "usage_error": message,
            "cached": False, "crosscheck": None}


@click.command("verify", cls=_VerifyCommand)
@click.argument("target", required=False)
@click.option("--inputs", "inputs", multiple=True,
              help="Input specs, comma-separated or repeated: 2x64x256:float32, 1x1x64x64:bool, py:0.5. "
                   "Dims may be names used by --shapes (2xSEQx256:float32). Default: the module's make_inputs().")
@click.option("--shapes", "shapes", multiple=True,
              help="NAME=V1,V2,...: call the target with each value (a make_inputs() keyword or a "
                   "symbolic dim of --inputs) and count the compiles; also measures set_inputs with dynamic dims.")
@click.option("--train", is_flag=True, help="Compile forward and backward (value_and_grad + jit).")
@click.option("--strict", is_flag=True, help="Compile with jit_syntax_level STRICT (MS_DEV_JIT_SYNTAX_LEVEL=0).")
@click.option("--python", "python", default=None, metavar="PATH",
              help="Compile with this interpreter (its own sys.path and MindSpore). Default: "
                   "$MSGRAPHLINT_MINDSPORE_PYTHON, else the project's `python` setting, else the one running msgraphlint.")
@click.option("--device", type=click.Choice(["CPU", "GPU", "Ascend"]), default="CPU", show_default=True,
              help="The device target to compile for (its fusion facts judge unfused ops).")
@click.option("--no-fusion", is_flag=True, help="Compile without graph-kernel fusion (e.g. when the kernel "
                                                "compiler crashes); unfused ops are then not judged.")
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
def verify_command(target, inputs, shapes, train, strict, python, device, no_fusion, fmt, timeout, no_cache,
                   cache_dir, ir_dir, no_pynative, no_dynamic_cost, no_static, slack):
    """Compile TARGET (path/to/file.py::ClassOrFunction; default: the bundled reference GPT
    layer) in GRAPH_MODE with graph-kernel fusion, report fused kernels, unfused ops, fallback
    nodes, control flow and recompiles from the saved IR, and cross-check the static findings.

    Exit codes: 0 agree, 1 disagreement, 2 usage error or the compile could not be judged
    (an op without a kernel on the device, a kernel-compiler crash, a timeout)."""
    specs = []
    for v in inputs:
        specs.extend(x.strip() for x in v.split(",") if x.strip())
    try:
        result = verify(target, inputs=specs, shapes=shapes, train=train, strict=strict, fusion=not no_fusion,
                        pynative=not no_pynative, dynamic_cost=not no_dynamic_cost, static=not no_static,
                        timeout=timeout, use_cache=not no_cache, cache_dir=cache_dir, ir_dir=ir_dir, slack=slack,
                        python=python, device=device)
    except VerifyError as exc:
        if fmt == "json":
            click.echo(json.dumps(_error_result(target, exc.format_message()), indent=2))
        raise
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, default=str))
    else:
        click.echo(render_text(result))
    click.get_current_context().exit(result["exit_code"])

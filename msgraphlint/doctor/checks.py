"""``msgraphlint doctor``: the environment checks the field report says break first.

Article sections 4.1 (MindSpore, CANN and Python versions must match; a pip-installed
MindSpore that does not match the CANN toolkit core-dumps) and 8 (pin the MindSpore
version, versions behave differently), plus what MindSpore 2.10 on CPU needs in
practice (measured on MindSpore 2.10: NumPy < 2, the ``decorator`` package
for the AKG kernel compiler).

The linter's own process never imports MindSpore. Versions and files come from
``importlib.metadata`` and the installed package's files, read as text: in this
process when the target interpreter (``--python``) is the one running msgraphlint,
else in a child of the target interpreter that imports nothing but the standard
library (:mod:`msgraphlint.doctor.probe`). What can only be learnt by importing —
does an op actually run with this NumPy, does the AKG compiler load, does fusion
happen (``--compile``) — runs in child processes of the target interpreter, from a
scratch working directory (the scripts below; they name MindSpore through
``importlib.import_module`` because they are data for the child, not code of this
package).

Each check yields ``PASS``/``WARN``/``FAIL`` (``SKIP`` when it does not apply) with a
detail and, unless it passed, a fix. Exit status 1 when any check fails.
"""

from __future__ import annotations

import ast
import configparser
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import click

from . import probe as _doctor_probe

PASS, WARN, FAIL, SKIP = "PASS", "WARN", "FAIL", "SKIP"
MARKER = _doctor_probe.MARKER
COMPAT_FILE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "mindspore_compat.json")
CANN_VERSION_CFG = ("usr", "local", "Ascend", "ascend-toolkit", "latest", "version.cfg")
DEVICES = ("cpu", "gpu", "ascend")


@dataclass
class Check:
    name: str
    status: str
    detail: str
    fix: Optional[str] = None

    def line(self) -> str:
        return f"{self.status} {self.name}: {self.detail}"


def load_compat(path: str = COMPAT_FILE) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


# ----------------------------------------------------------------------------------
# facts: metadata and files (no import of MindSpore anywhere)
# ----------------------------------------------------------------------------------
def _same_interpreter(python: str) -> bool:
    """Only the very path of the running interpreter: a virtual environment's python is
    a symlink to its base interpreter but sees other packages."""
    return bool(sys.executable) and os.path.abspath(python) == os.path.abspath(sys.executable)


def gather_facts(python: str, timeout: float = 60.0) -> Dict[str, Any]:
    """Metadata and file facts of the target interpreter's environment."""
    if _same_interpreter(python):
        return _doctor_probe.collect()
    src = _probe_source()
    scratch = tempfile.mkdtemp(prefix="msgraphlint-doctor-")  # `-c` puts the cwd first on sys.path
    try:
        proc = subprocess.run([python, "-c", src], capture_output=True, text=True, timeout=timeout,
                              cwd=scratch, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return {"error": f"cannot run {python}: {exc}"}
    finally:
        _rmtree(scratch)
    data = _parse_marker(proc.stdout)
    if data is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": f"{python} exited with status {proc.returncode} before reporting"
                         + (f": {' | '.join(tail)}" if tail else "")}
    return data


def _probe_source() -> str:
    with open(_doctor_probe.__file__, encoding="utf-8") as fh:
        return fh.read()


def _parse_marker(stdout: str) -> Optional[Dict[str, Any]]:
    for line in reversed((stdout or "").splitlines()):
        if line.startswith(MARKER):
            try:
                return json.loads(line[len(MARKER):])
            except ValueError:
                return None
    return None


# ----------------------------------------------------------------------------------
# runtime probes: children of the target interpreter that do import MindSpore
# ----------------------------------------------------------------------------------
_CHAIN = r'''
import re as _re
def _chain(exc):
    parts, seen = [], set()
    while exc is not None and id(exc) not in seen and len(parts) < 4:
        seen.add(id(exc))
        text = " ".join(l.strip() for l in str(exc).strip().splitlines() if l.strip())
        text = _re.sub(r" (of \S+ object )?at 0x[0-9a-fA-F]+", "", text).split(" ----")[0].strip()
        parts.append(type(exc).__name__ + (": " + text[:200] if text else ""))
        exc = exc.__cause__ or exc.__context__
    return " -> ".join(reversed(parts))
'''

RUNTIME_PROBE = _CHAIN + r'''
import importlib, json, sys
out = {"stage": "numpy"}
try:
    np = importlib.import_module("numpy")
    out["numpy"] = np.__version__
    out["stage"] = "import"
    ms = importlib.import_module("mindspore")
    out["version"] = getattr(ms, "__version__", None)
    out["stage"] = "tensor"
    t = ms.Tensor(np.ones((2, 2), np.float32))
    out["stage"] = "op"
    r = (t + 1).asnumpy()
    out["result_ok"] = bool(float(r.sum()) == 8.0)
    out["stage"] = "done"
except BaseException as e:
    out["error"] = _chain(e)
sys.stdout.write("\n@@MSGRAPHLINT_DOCTOR@@" + json.dumps(out) + "\n")
sys.stdout.flush()
'''

# --device X: the device asked about, asked of MindSpore itself (set_device, one op on it)
DEVICE_PROBE = _CHAIN + r'''
import importlib, json, os, sys
out = {"stage": "import"}
try:
    np = importlib.import_module("numpy")
    ms = importlib.import_module("mindspore")
    out["stage"] = "set_device"
    target = os.environ["MSGRAPHLINT_DOCTOR_DEVICE"]
    if hasattr(ms, "set_device"):
        ms.set_device(target)
    else:  # before 2.5
        ms.set_context(device_target=target)
    out["stage"] = "op"
    r = (ms.Tensor(np.ones((2, 2), np.float32)) + 1).asnumpy()
    out["result_ok"] = bool(float(r.sum()) == 8.0)
    out["stage"] = "done"
except BaseException as e:
    out["error"] = _chain(e)
sys.stdout.write("\n@@MSGRAPHLINT_DOCTOR@@" + json.dumps(out) + "\n")
sys.stdout.flush()
'''

DEVICE_TARGETS = {"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend"}

AKG_PROBE = _CHAIN + r'''
import glob, importlib, importlib.util, json, os, sys
out = {}
try:
    spec = importlib.util.find_spec("mindspore")
    if spec is None or not spec.origin:
        raise ImportError("mindspore is not installed")
    root = os.path.dirname(spec.origin)
    akg_dir = os.path.join(root, "_akg")
    if not os.path.isdir(akg_dir):
        out["absent"] = True
    else:
        # what MindSpore's CPUEnvChecker/GPUEnvChecker.set_env do before the kernel
        # build server starts: put the plugin directory with libakg.so on the path
        libdirs = [os.path.join(root, "lib", "plugin", "cpu")] + sorted(
            glob.glob(os.path.join(root, "lib", "plugin", "gpu*")))
        libdirs = [d for d in libdirs if os.path.isdir(d)]
        os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(libdirs + [os.environ.get("LD_LIBRARY_PATH", "")])
        sys.path.insert(0, akg_dir)
        importlib.import_module("akg")
        akg_ms = importlib.import_module("akg.ms")
        out["compilewithjson"] = hasattr(akg_ms, "compilewithjson")
        out["ok"] = True
    out["imported_mindspore"] = "mindspore" in sys.modules
except BaseException as e:
    out["error"] = _chain(e)
sys.stdout.write("\n@@MSGRAPHLINT_DOCTOR@@" + json.dumps(out) + "\n")
sys.stdout.flush()
'''

FUSION_PROBE = _CHAIN + r'''
import glob, importlib, json, os, sys
out = {}
work = os.getcwd()
os.environ["MS_DEV_GRAPH_KERNEL_FLAGS"] = "--opt_level=2"
os.environ["MS_DEV_SAVE_GRAPHS"] = "1"
os.environ["MS_DEV_SAVE_GRAPHS_PATH"] = os.path.join(work, "ir")
os.environ["MS_DEV_DUMP_IR_PASSES"] = "graph_build"
try:
    np = importlib.import_module("numpy")
    ms = importlib.import_module("mindspore")
    ops = importlib.import_module("mindspore.ops")
    def f(x, y):
        return ops.exp(x * y + 1.0) - x
    g = ms.jit(f)
    x = ms.Tensor(np.ones((4, 8), np.float32))
    out["value"] = float(g(x, x).asnumpy().sum())
    n = 0
    for p in glob.glob(os.path.join(work, "ir", "**", "graph_build*.ir"), recursive=True):
        with open(p, encoding="utf-8", errors="replace") as fh:
            n += len(set(m for m in fh.read().split() if m.startswith("Fused_")))
    out["fused"] = n
except BaseException as e:
    out["error"] = _chain(e)
sys.stdout.write("\n@@MSGRAPHLINT_DOCTOR@@" + json.dumps(out) + "\n")
sys.stdout.flush()
'''


class _Probe:
    """One child of the target interpreter, started now and collected later."""

    def __init__(self, python: str, source: str, extra_env: Optional[Dict[str, str]] = None) -> None:
        self.workdir = tempfile.mkdtemp(prefix="msgraphlint-doctor-")
        env = dict(os.environ)
        env.setdefault("GLOG_v", "3")  # MindSpore: errors only
        env.update(extra_env or {})
        self.started = time.monotonic()
        self.error: Optional[str] = None
        script = os.path.join(self.workdir, "msgraphlint_doctor_probe.py")
        with open(script, "w", encoding="utf-8") as fh:  # ms.jit reads the source: it must be a file
            fh.write(source)
        try:
            self.proc: Optional[subprocess.Popen] = subprocess.Popen(
                [python, script], cwd=self.workdir, env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except OSError as exc:
            self.proc, self.error = None, f"cannot run {python}: {exc}"

    def result(self, timeout: float) -> Dict[str, Any]:
        try:
            if self.proc is None:
                return {"error": self.error}
            try:
                out, err = self.proc.communicate(timeout=max(1.0, timeout - (time.monotonic() - self.started)))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()
                return {"error": f"timed out after {timeout:g} s", "timeout": True}
            data = _parse_marker(out)
            if data is None:
                tail = [l for l in (err or out or "").strip().splitlines() if l.strip()][-3:]
                rc = self.proc.returncode
                why = f"killed by signal {-rc}" if rc < 0 else f"exited with status {rc}"
                return {"error": f"the interpreter {why} before reporting" + (f": {' | '.join(tail)}" if tail else ""),
                        "crashed": True}
            return data
        finally:
            _rmtree(self.workdir)


def _rmtree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


# ----------------------------------------------------------------------------------
# the checks
# ----------------------------------------------------------------------------------
def _version(text: Optional[str]):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


def _py_version(facts: Dict[str, Any]) -> str:
    return ".".join(str(x) for x in facts["python"]["version"][:3])


def _mindspore(facts: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    dists = facts.get("mindspore_dists") or []
    return dists[0] if dists else None


def check_mindspore(facts: Dict[str, Any]) -> Check:
    dists = facts.get("mindspore_dists") or []
    pkg = facts.get("mindspore_package") or {}
    if not dists:
        if pkg.get("dir"):
            return Check("mindspore", FAIL, f"a `mindspore` package is importable from {pkg['dir']} but no "
                         "distribution metadata describes it (a source tree on PYTHONPATH or a broken install)",
                         "install a released wheel: pip install mindspore==<version>")
        return Check("mindspore", FAIL, "MindSpore is not installed in this interpreter",
                     "pip install mindspore==<version> (choose the version matching your CANN/CUDA: see the cann check)")
    d = dists[0]
    detail = f"{d['version']} (distribution {d['name']!r} in {d.get('location') or '?'})"
    if len(dists) > 1:
        others = ", ".join(f"{x['name']} {x['version']}" for x in dists[1:])
        return Check("mindspore", FAIL, f"{detail}; also installed: {others}. They all install the same "
                     "`mindspore` package, so whichever was installed last overwrote the others' files",
                     "pip uninstall all of them, then install exactly one")
    if not pkg.get("dir"):
        return Check("mindspore", FAIL, f"{detail}, but `mindspore` is not importable from this interpreter",
                     f"reinstall: pip install --force-reinstall {d['name']}=={d['version']}")
    return Check("mindspore", PASS, detail)


def built_for(facts: Dict[str, Any]) -> Tuple[List[str], List[str], str]:
    """(devices, cuda versions, how it was decided) of the installed MindSpore."""
    d = _mindspore(facts)
    pkg = facts.get("mindspore_package") or {}
    name = (d["name"] if d else "").lower().replace("_", "-")
    for dev in ("ascend", "gpu", "cpu"):
        if f"-{dev}" in name:
            return [dev], list(pkg.get("cuda") or []), f"distribution name {d['name']!r}"
    package_name = (pkg.get("package_name") or "").lower().replace("_", "-")
    for dev in ("ascend", "gpu", "cpu"):
        if f"-{dev}" in package_name:
            return [dev], list(pkg.get("cuda") or []), f"default_config.__package_name__ {pkg['package_name']!r}"
    devices = list(pkg.get("devices") or [])
    if devices:
        return devices, list(pkg.get("cuda") or []), "backend libraries in mindspore/lib"
    return [], [], "no backend library found"


def check_device_runtime(device: Optional[str], probe: Optional[Dict[str, Any]]) -> Optional[Check]:
    """``--device X`` without ``--quick``: what MindSpore says when asked to run one op on X
    (the libraries a build ships are not a device that works: a GPU build without libcuda)."""
    if not device or probe is None:
        return None
    target = DEVICE_TARGETS[device]
    if probe.get("stage") == "done" and probe.get("result_ok"):
        return Check("device-runtime", PASS, f"set_device({target!r}) and one op (t + 1) on it work")
    err = probe.get("error") or "wrong result"
    where = {"import": "import mindspore", "set_device": f"set_device({target!r})",
             "op": f"the first op on {target}", "done": "the op's result"}.get(probe.get("stage"), "the probe")
    return Check("device-runtime", FAIL, f"{where} fails: {err}",
                 f"install the {target} driver and libraries this MindSpore needs (`python -c \"import mindspore; "
                 f"mindspore.run_check()\"` names what is missing), or run without --device {device}")


def check_device(facts: Dict[str, Any], device: Optional[str]) -> Check:
    if not _mindspore(facts):
        return Check("device", SKIP, "MindSpore is not installed")
    devices, cuda, how = built_for(facts)
    if not devices:
        return Check("device", WARN, f"cannot tell which devices this MindSpore was built for ({how})",
                     "reinstall MindSpore from a released wheel")
    names = []
    for dev in devices:
        if dev == "gpu" and cuda:
            names.append(f"GPU (CUDA {', '.join(cuda)})")
        else:
            names.append({"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend"}[dev])
    unified = len(devices) > 1
    detail = f"built for {', '.join(names)}" + (" (one unified package)" if unified else "") + f"; from {how}"
    if device and device not in devices:
        return Check("device", FAIL, f"{detail}, but --device is {device}",
                     f"install the MindSpore build for {device} (the unified `mindspore` wheel from 2.0 on, "
                     f"or mindspore-{device} for 1.x)")
    return Check("device", PASS, detail)


def _requires_python(facts: Dict[str, Any], compat: Dict[str, Any]) -> Tuple[Optional[str], str]:
    d = _mindspore(facts)
    if d.get("requires_python"):
        return d["requires_python"], "its Requires-Python"
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    v = _version(d.get("version"))
    for row in compat.get("python", []):
        try:
            if v is not None and v in SpecifierSet(row["mindspore"]):
                return row["python"], f"msgraphlint's table ({row['source']})"
        except InvalidSpecifier:
            continue
    classifiers = [c.rsplit("::", 1)[-1].strip() for c in d.get("classifiers") or []
                   if c.startswith("Programming Language :: Python :: 3.")]
    if classifiers:
        return ",".join(f"=={c}.*" for c in classifiers), "its classifiers"
    return None, ""


def check_python(facts: Dict[str, Any], compat: Dict[str, Any]) -> Check:
    py = _py_version(facts)
    impl = facts["python"].get("implementation", "cpython")
    d = _mindspore(facts)
    where = facts["python"].get("executable", "?")
    if not d:
        return Check("python", PASS, f"Python {py} ({impl}, {where}); MindSpore is not installed, so there is "
                     "no supported range to compare with")
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    spec, source = _requires_python(facts, compat)
    problems = []
    if spec:
        try:
            specs = [SpecifierSet(s) for s in spec.split(",")] if source == "its classifiers" else [SpecifierSet(spec)]
            ok = any(Version(py) in s for s in specs) if source == "its classifiers" else Version(py) in specs[0]
            if not ok:
                problems.append(f"MindSpore {d['version']} supports Python {spec} ({source})")
        except InvalidSpecifier:
            pass
    ext = facts["python"].get("ext_suffix") or ""
    built = (facts.get("mindspore_package") or {}).get("extension_suffixes") or []
    if built and ext and ext not in built:
        problems.append(f"its compiled modules are built for {', '.join(sorted(set(built)))} but this "
                        f"interpreter loads {ext} (import mindspore fails)")
    detail = f"Python {py} ({impl}, {where})"
    if problems:
        return Check("python", FAIL, detail + ": " + "; ".join(problems),
                     f"use a Python that MindSpore {d['version']} supports ({spec or 'see its wheel tags'}), "
                     "or install the MindSpore build for this Python")
    return Check("python", PASS, detail + (f", within MindSpore {d['version']}'s {spec}" if spec else ""))


def _numpy_ranges(facts: Dict[str, Any], compat: Dict[str, Any]) -> List[Tuple[str, str]]:
    """(specifier, source) pairs that numpy must satisfy for the installed MindSpore."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    d = _mindspore(facts)
    out: List[Tuple[str, str]] = []
    for req in d.get("requires_dist") or []:
        try:
            r = Requirement(req)
        except InvalidRequirement:
            continue
        if r.name.lower() == "numpy" and str(r.specifier) and not r.marker:
            out.append((str(r.specifier), f"MindSpore {d['version']}'s Requires-Dist"))
    v = _version(d.get("version"))
    for row in compat.get("numpy", []):
        try:
            if v is not None and v in SpecifierSet(row["mindspore"]):
                out.append((row["numpy"], row.get("short") or row["source"]))
        except InvalidSpecifier:
            continue
    return out


def check_numpy(facts: Dict[str, Any], compat: Dict[str, Any], runtime: Optional[Dict[str, Any]]) -> Check:
    from packaging.specifiers import SpecifierSet

    numpy = (facts.get("dists") or {}).get("numpy")
    d = _mindspore(facts)
    if not d:
        return Check("numpy", SKIP, f"MindSpore is not installed (numpy {numpy['version'] if numpy else 'absent'})")
    if not numpy:
        return Check("numpy", FAIL, "NumPy is not installed; MindSpore cannot be imported without it",
                     'pip install "numpy<2"')
    v = _version(numpy["version"])
    bad = [(spec, src) for spec, src in _numpy_ranges(facts, compat) if v is not None and v not in SpecifierSet(spec)]
    observed = ""
    if (runtime is not None and runtime.get("error") and runtime.get("stage") in ("tensor", "op")
            and "numpy" in runtime["error"].lower()):
        observed = (f"; confirmed in the target interpreter: import mindspore works"
                    f"{', Tensor(ndarray) works' if runtime.get('stage') == 'op' else ''}, then "
                    f"{'the first op (t + 1)' if runtime.get('stage') == 'op' else 'Tensor(ndarray)'} fails: "
                    f"{runtime['error']}")
    if bad:
        ranges = "; ".join(f"{spec} ({src})" for spec, src in bad)
        want = " and ".join(spec for spec, _ in bad)
        return Check("numpy", FAIL, f"numpy {numpy['version']} is outside MindSpore {d['version']}'s range: "
                     f"{ranges}{observed}", f'pip install "numpy{want}"' if "," not in want else
                     f'pip install "numpy{",".join(s for s, _ in bad)}"')
    ranges = ", ".join(spec for spec, _ in _numpy_ranges(facts, compat)) or "no declared range"
    if observed:
        return Check("numpy", FAIL, f"numpy {numpy['version']} ({ranges}){observed}",
                     'pip install "numpy<2" and re-run')
    return Check("numpy", PASS, f"numpy {numpy['version']} within {ranges}")


def check_runtime(facts: Dict[str, Any], runtime: Optional[Dict[str, Any]]) -> Check:
    if not _mindspore(facts):
        return Check("runtime", SKIP, "MindSpore is not installed")
    if runtime is None:
        return Check("runtime", SKIP, "not run (--quick)")
    if runtime.get("stage") == "done" and runtime.get("result_ok"):
        return Check("runtime", PASS, "import mindspore, Tensor(ndarray) and one op (t + 1) work in the target "
                     f"interpreter (mindspore {runtime.get('version')}, numpy {runtime.get('numpy')})")
    stage = {"numpy": "import numpy", "import": "import mindspore", "tensor": "Tensor(ndarray)",
             "op": "the first op (t + 1)", "done": "the op's result"}.get(runtime.get("stage"), "the probe")
    err = runtime.get("error") or "wrong result"
    fix = "see the numpy and python checks" if "numpy" in err.lower() else \
        "reinstall MindSpore with its dependencies (pip install --force-reinstall mindspore==<version>)"
    return Check("runtime", FAIL, f"{stage} fails in the target interpreter: {err}", fix)


def parse_version_cfg(text: str) -> Optional[Tuple[str, str]]:
    """(internal, release) from an ascend-toolkit version.cfg
    (``toolkit_running_version=[7.3.0.1.231:8.0.RC2]``) or a version.info (``Version=7.3.0.1.231``)."""
    values: Dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s*([A-Za-z_]+)\s*=\s*\[?([^\]\s]+)\]?", line)
        if m:
            values[m.group(1).lower()] = m.group(2)
    for key in ("toolkit_running_version", "toolkit_installed_version", "compiler_running_version",
                "runtime_running_version"):
        if key in values:
            raw = values[key]
            internal, _, release = raw.partition(":")
            return internal.strip(), (release or internal).strip()
    for key, raw in values.items():
        if key.endswith("_running_version") or key.endswith("_installed_version"):
            internal, _, release = raw.partition(":")
            return internal.strip(), (release or internal).strip()
    if "version" in values:
        return values["version"], values["version"]
    return None


def _major_minor(v: str) -> str:
    parts = re.findall(r"\d+", v)
    return ".".join(parts[:2]) if len(parts) >= 2 else v


def _release_key(v: str) -> str:
    return re.sub(r"\.(alpha|beta)\d*$", "", v.strip(), flags=re.I).upper()


def mindspore_own_cann_list(facts: Dict[str, Any]) -> Optional[List[str]]:
    """AscendEnvChecker.version of the installed MindSpore, read from its source as text."""
    path = (facts.get("mindspore_package") or {}).get("check_version")
    if not path or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "AscendEnvChecker":
            for sub in ast.walk(node):
                if (isinstance(sub, ast.Assign) and len(sub.targets) == 1
                        and isinstance(sub.targets[0], ast.Attribute) and sub.targets[0].attr == "version"
                        and isinstance(sub.targets[0].value, ast.Name) and sub.targets[0].value.id == "self"):
                    try:
                        value = ast.literal_eval(sub.value)
                    except ValueError:
                        return None
                    if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
                        return list(value)
    return None


def _cann_candidates(root: str) -> List[str]:
    out = []
    if os.path.abspath(root) == os.path.abspath(os.sep):
        for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
            if os.environ.get(var):
                out.append(os.path.join(os.environ[var], "version.cfg"))
    base = os.path.join(root, *CANN_VERSION_CFG[:-1])
    out += [os.path.join(base, "version.cfg"), os.path.join(base, "compiler", "version.info")]
    seen, uniq = set(), []
    for p in out:
        if p not in seen:
            seen.add(p)
            uniq.append(p)
    return uniq


def check_cann(facts: Dict[str, Any], compat: Dict[str, Any], root: str, device: Optional[str]) -> Check:
    found = None
    for path in _cann_candidates(root):
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    parsed = parse_version_cfg(fh.read())
            except OSError:
                continue
            if parsed:
                found = (path, parsed)
                break
    d = _mindspore(facts)
    devices = built_for(facts)[0] if d else []
    default_cfg = os.path.join(root, *CANN_VERSION_CFG)
    if found is None:
        if device == "ascend":
            return Check("cann", FAIL, f"no CANN toolkit: {default_cfg} does not exist",
                         "install the Ascend CANN toolkit that matches MindSpore (see https://www.mindspore.cn/install)")
        if devices == ["ascend"]:
            return Check("cann", WARN, f"MindSpore is an Ascend build but there is no CANN toolkit ({default_cfg} "
                         "does not exist)", "install the CANN toolkit, or use this environment only to lint")
        return Check("cann", SKIP, f"no Ascend CANN toolkit ({default_cfg} does not exist); only Ascend needs it")
    path, (internal, release) = found
    label = f"CANN {release}" + (f" (internal {internal})" if internal != release else "") + f" from {path}"
    if not d:
        return Check("cann", SKIP, f"{label}; MindSpore is not installed")
    if "ascend" not in devices:
        return Check("cann", WARN, f"{label}, but this MindSpore has no Ascend backend",
                     "install the MindSpore build for Ascend to use the NPUs")
    names = {row["internal"]: row["release"] for row in compat.get("cann_release_names", [])}
    own = mindspore_own_cann_list(facts)
    ms_v = d["version"]
    if own:
        mm = _major_minor(internal)
        if mm in own:
            return Check("cann", PASS, f"{label}: {mm} is one of the versions MindSpore {ms_v} accepts "
                         f"({', '.join(own)}; from its run_check/_check_version.py)")
        accepted = ", ".join(f"{v}" + (f" (CANN {names[v]})" if v in names else "") for v in own)
        return Check("cann", FAIL, f"{label}: MindSpore {ms_v} expects the toolkit's major.minor version to be one of "
                     f"{accepted} (its run_check/_check_version.py); a mismatched toolkit crashes at the first "
                     "kernel launch (a core dump)",
                     f"install a CANN release MindSpore {ms_v} supports, or the MindSpore release built for "
                     f"CANN {release} (version table: https://www.mindspore.cn/install)")
    v = _version(ms_v)
    for row in compat.get("cann", []):
        rv = _version(row["mindspore"])
        if v is None or rv is None or (v.major, v.minor, v.micro) != (rv.major, rv.minor, rv.micro):
            continue
        if "cann" in row:
            if _release_key(release) in {_release_key(x) for x in row["cann"]}:
                return Check("cann", PASS, f"{label}: matches MindSpore {ms_v} ({row['source']})")
            return Check("cann", FAIL, f"{label}: MindSpore {ms_v} pairs with CANN {', '.join(row['cann'])} "
                         f"({row['source']}); a mismatched toolkit crashes at the first kernel launch (a core dump)",
                         f"install CANN {row['cann'][0]}, or the MindSpore release built for CANN {release}")
        if "cann_internal" in row:
            mm = _major_minor(internal)
            if mm in row["cann_internal"]:
                return Check("cann", PASS, f"{label}: matches MindSpore {ms_v} ({row['source']})")
            return Check("cann", FAIL, f"{label}: MindSpore {ms_v} expects internal version "
                         f"{', '.join(row['cann_internal'])} ({row['source']})",
                         f"install a CANN release MindSpore {ms_v} supports")
    return Check("cann", WARN, f"{label}; msgraphlint has no compatibility data for MindSpore {ms_v}",
                 "check the version table at https://www.mindspore.cn/install")


def check_decorator(facts: Dict[str, Any]) -> Check:
    pkg = facts.get("mindspore_package") or {}
    if not _mindspore(facts):
        return Check("decorator", SKIP, "MindSpore is not installed")
    if not pkg.get("akg"):
        return Check("decorator", SKIP, "this MindSpore ships no AKG kernel compiler (mindspore/_akg)")
    dec = (facts.get("dists") or {}).get("decorator")
    if facts.get("decorator_importable"):
        return Check("decorator", PASS, f"decorator {dec['version'] if dec else '(no metadata)'} is importable "
                     "(the AKG kernel compiler imports it)")
    return Check("decorator", FAIL, "the `decorator` package is not installed, and MindSpore's bundled AKG kernel "
                 "compiler imports it (akg/tvm/target.py): graph-kernel compiles fail (`RuntimeError: Response is "
                 "empty`)", "pip install decorator")


def check_graph_kernel(facts: Dict[str, Any], akg: Optional[Dict[str, Any]],
                       fusion: Optional[Dict[str, Any]]) -> Check:
    if not _mindspore(facts):
        return Check("graph-kernel", SKIP, "MindSpore is not installed")
    if not (facts.get("mindspore_package") or {}).get("akg"):
        return Check("graph-kernel", SKIP, "this MindSpore ships no AKG kernel compiler (CPU/GPU graph-kernel "
                     "fusion); Ascend fuses with its own backend")
    if akg is None:
        return Check("graph-kernel", SKIP, "not run (--quick)")
    if akg.get("error"):
        also = ""
        if fusion is not None:
            also = (f"; the fused compile fails too: {fusion['error']}" if fusion.get("error") else
                    f"; a fused compile still produced {fusion.get('fused', 0)} Fused_* kernel(s)")
        return Check("graph-kernel", FAIL, f"the AKG kernel compiler does not load in the target interpreter: "
                     f"{akg['error']}; with graph-kernel fusion on (MS_DEV_GRAPH_KERNEL_FLAGS), compiles fail{also}",
                     "pip install decorator (the usual cause), or reinstall MindSpore")
    detail = "the AKG kernel compiler (mindspore/_akg) loads"
    if fusion is None:
        return Check("graph-kernel", PASS, detail + "; run with --compile to fuse a small graph for real")
    if fusion.get("error"):
        return Check("graph-kernel", FAIL, f"{detail}, but a fused compile fails: {fusion['error']}",
                     "run the compile with GLOG_v=1 to see the kernel build server's log")
    if not fusion.get("fused"):
        return Check("graph-kernel", WARN, f"{detail} and the compile succeeds, but the graph has no Fused_* kernel: "
                     "fusion was switched off (MindSpore only logs a warning when the kernel compiler is unusable)",
                     "check the MindSpore log for graph-kernel warnings")
    return Check("graph-kernel", PASS, f"{detail}; a compile with MS_DEV_GRAPH_KERNEL_FLAGS=--opt_level=2 "
                 f"produced {fusion['fused']} Fused_* kernel(s)")


# project pin -------------------------------------------------------------------------
_MS_NAMES = {"mindspore", "mindspore-gpu", "mindspore-ascend", "mindspore-cpu", "mindspore-dev",
             "mindspore-gpu-dev", "mindspore-ascend-dev"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Declaration:
    file: str
    where: str
    text: str
    exact: Optional[str]  # the pinned version, when pinned exactly
    bounded: bool         # has an upper bound (or is exact)


def _judge(text: str) -> Optional[Tuple[Optional[str], bool]]:
    """(exact version or None, bounded) for a requirement string naming MindSpore, else None."""
    from packaging.requirements import InvalidRequirement, Requirement

    s = text.strip()
    url = re.search(r"(?:^|/)(mindspore(?:[-_][a-z]+)*)-(\d[^-]*)-[^/]*\.whl\b", s, re.I)
    try:
        r = Requirement(s)
    except InvalidRequirement:
        r = None
    if r is not None:
        if _norm(r.name) not in _MS_NAMES:
            return None
        if r.url:
            m = re.search(r"mindspore(?:[-_][a-z]+)*-(\d[^-/]*)-", r.url, re.I)
            return (m.group(1) if m else None), True
        exact = None
        bounded = False
        for sp in r.specifier:
            if sp.operator in ("==", "===") and "*" not in sp.version:
                exact = sp.version
            if sp.operator in ("==", "===", "<", "<=", "~="):
                bounded = True
        return exact, bounded or exact is not None
    if url and _norm(url.group(1)) in _MS_NAMES:
        return url.group(2), True
    return None


def _req_lines(text: str) -> List[Tuple[int, str]]:
    out, buf, start = [], "", 0
    for i, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if not buf:
            start = i
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        if buf.strip() and not buf.strip().startswith("-"):
            out.append((start, buf.strip()))
        buf = ""
    return out


def _conda_judge(text: str) -> Optional[Tuple[Optional[str], bool]]:
    m = re.match(r"^\s*(mindspore(?:[-_][a-z]+)*)\s*(==?|>=|<=|<|>)?\s*([0-9][^\s=,]*)?", text, re.I)
    if not m or _norm(m.group(1)) not in _MS_NAMES:
        return None
    op, ver = m.group(2), m.group(3)
    if op in ("=", "==") and ver and "*" not in ver:
        return ver, True
    return None, op in ("<", "<=")


def project_declarations(project: str) -> Tuple[List[Declaration], List[str]]:
    """MindSpore requirements declared in the project's dependency files, and the files read."""
    decls: List[Declaration] = []
    files: List[str] = []

    def add(file: str, where: str, text: str, judged) -> None:
        if judged is not None:
            decls.append(Declaration(file, where, text.strip(), judged[0], judged[1]))

    req_files = sorted(set(glob.glob(os.path.join(project, "requirements*.txt"))
                           + glob.glob(os.path.join(project, "requirements", "*.txt"))))
    for path in req_files:
        files.append(path)
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for lno, line in _req_lines(text):
            add(os.path.relpath(path, project), f"line {lno}", line, _judge(line))

    pyproject = os.path.join(project, "pyproject.toml")
    if os.path.isfile(pyproject):
        files.append(pyproject)
        data = _read_toml(pyproject)
        if data is not None:
            proj = data.get("project") or {}
            for dep in proj.get("dependencies") or []:
                add("pyproject.toml", "[project] dependencies", str(dep), _judge(str(dep)))
            for extra, deps in (proj.get("optional-dependencies") or {}).items():
                for dep in deps or []:
                    add("pyproject.toml", f"[project.optional-dependencies] {extra}", str(dep), _judge(str(dep)))
            for group, deps in (data.get("dependency-groups") or {}).items():
                for dep in deps or []:
                    if isinstance(dep, str):
                        add("pyproject.toml", f"[dependency-groups] {group}", dep, _judge(dep))
            poetry = ((data.get("tool") or {}).get("poetry") or {}).get("dependencies") or {}
            for name, spec in poetry.items():
                if _norm(name) in _MS_NAMES:
                    version = spec.get("version") if isinstance(spec, dict) else spec
                    version = str(version or "*").strip()
                    exact = version if re.match(r"^=?=?\d[\w.]*$", version) else None
                    add("pyproject.toml", "[tool.poetry.dependencies]", f"{name} = {version!r}",
                        (exact.lstrip("=") if exact else None, bool(exact) or version.startswith(("^", "~", "<"))))
        else:
            with open(pyproject, encoding="utf-8", errors="replace") as fh:
                for lno, line in enumerate(fh, 1):
                    for q in re.findall(r"[\"']([^\"']*mindspore[^\"']*)[\"']", line, re.I):
                        add("pyproject.toml", f"line {lno}", q, _judge(q))

    setup_cfg = os.path.join(project, "setup.cfg")
    if os.path.isfile(setup_cfg):
        files.append(setup_cfg)
        cp = configparser.ConfigParser(interpolation=None)
        try:
            cp.read(setup_cfg, encoding="utf-8")
            sections = [("options", "install_requires")] + [
                ("options.extras_require", k) for k in (cp["options.extras_require"] if cp.has_section(
                    "options.extras_require") else {})]
            for section, key in sections:
                if cp.has_option(section, key):
                    for line in cp.get(section, key).splitlines():
                        line = line.split("#", 1)[0].strip()
                        if line:
                            add("setup.cfg", f"[{section}] {key}", line, _judge(line))
        except configparser.Error:
            pass

    for name in ("environment.yml", "environment.yaml"):
        path = os.path.join(project, name)
        if not os.path.isfile(path):
            continue
        files.append(path)
        try:
            import yaml

            with open(path, encoding="utf-8", errors="replace") as fh:
                env = yaml.safe_load(fh) or {}
        except Exception:  # noqa: BLE001 - an unreadable env file is reported as not declaring
            env = {}
        for dep in (env.get("dependencies") or []) if isinstance(env, dict) else []:
            if isinstance(dep, str):
                add(name, "dependencies (conda)", dep, _conda_judge(dep))
            elif isinstance(dep, dict):
                for pdep in dep.get("pip") or []:
                    if isinstance(pdep, str):
                        add(name, "dependencies: pip", pdep, _judge(pdep))
    return decls, files


def _read_toml(path: str) -> Optional[Dict[str, Any]]:
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            return None
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, ValueError):
        return None


def check_pin(facts: Dict[str, Any], project: str) -> Check:
    installed = (_mindspore(facts) or {}).get("version")
    suggestion = f"mindspore=={installed}" if installed else "mindspore==<the version you tested>"
    decls, files = project_declarations(project)
    if not files:
        return Check("pin", WARN, f"no requirements*.txt, pyproject.toml, setup.cfg or environment.yml in {project}",
                     f"declare the MindSpore version the project was tested with: {suggestion}, so that an upgrade cannot change behaviour unnoticed")
    if not decls:
        names = ", ".join(os.path.relpath(f, project) for f in files)
        return Check("pin", WARN, f"the project does not declare MindSpore ({names})",
                     f"add {suggestion} to the project's requirements, so that an upgrade cannot change behaviour unnoticed")
    exact = [d for d in decls if d.exact]
    desc = "; ".join(f"{d.text!r} ({d.file} {d.where})" for d in decls[:4])
    if not exact:
        bounded = any(d.bounded for d in decls)
        return Check("pin", WARN, f"MindSpore is declared but not pinned: {desc}" + (
            " (a range: new releases can change behaviour)" if bounded else ""),
            f"pin it exactly: {suggestion}")
    versions = sorted({d.exact for d in exact})
    if len(versions) > 1:
        return Check("pin", WARN, f"MindSpore is pinned to different versions: {desc}",
                     "pin one version everywhere")
    pinned = versions[0]
    pv, iv = _version(pinned), _version(installed)
    if installed and pv is not None and iv is not None and pv != iv:
        return Check("pin", WARN, f"the project pins MindSpore {pinned} but {installed} is installed ({desc})",
                     f"install the pinned version (pip install mindspore=={pinned}) or update the pin")
    return Check("pin", PASS, f"MindSpore pinned to {pinned}: {desc}")


# ----------------------------------------------------------------------------------
# orchestration and output
# ----------------------------------------------------------------------------------
def run_doctor(python: Optional[str] = None, root: str = os.sep, project: str = ".",
               device: Optional[str] = None, quick: bool = False, compile_check: bool = False,
               timeout: float = 180.0, compat: Optional[Dict[str, Any]] = None) -> List[Check]:
    python = python or sys.executable
    compat = compat or load_compat()
    facts = gather_facts(python, timeout=min(timeout, 60.0))
    if facts.get("error"):
        return [Check("python", FAIL, facts["error"], "pass --python the path of a working Python interpreter")]
    has_ms = bool(_mindspore(facts)) and bool((facts.get("mindspore_package") or {}).get("dir"))
    runtime = akg = fusion = None
    if has_ms and not quick:
        probes = {"runtime": _Probe(python, RUNTIME_PROBE)}
        if device:
            probes["device"] = _Probe(python, DEVICE_PROBE, {"MSGRAPHLINT_DOCTOR_DEVICE": DEVICE_TARGETS[device]})
        if (facts.get("mindspore_package") or {}).get("akg"):
            probes["akg"] = _Probe(python, AKG_PROBE)
            if compile_check:
                probes["fusion"] = _Probe(python, FUSION_PROBE)
        results = {k: p.result(timeout) for k, p in probes.items()}
        runtime, akg, fusion = results.get("runtime"), results.get("akg"), results.get("fusion")
        device_probe = results.get("device")
    else:
        device_probe = None
    device_runtime = check_device_runtime(device, device_probe)
    return [
        check_python(facts, compat),
        check_mindspore(facts),
        check_device(facts, device),
        *([device_runtime] if device_runtime is not None else []),
        check_cann(facts, compat, root, device),
        check_numpy(facts, compat, runtime),
        check_runtime(facts, runtime),
        check_decorator(facts),
        check_graph_kernel(facts, akg, fusion),
        check_pin(facts, project),
    ]


def render_text(checks: Sequence[Check], python: str) -> str:
    lines = [f"msgraphlint doctor: {python}"]
    for c in checks:
        lines.append(c.line())
        if c.fix and c.status in (WARN, FAIL):
            lines.append(f"     fix: {c.fix}")
    counts = {s: sum(1 for c in checks if c.status == s) for s in (PASS, WARN, FAIL, SKIP)}
    lines.append(f"{counts[PASS]} passed, {counts[WARN]} warning(s), {counts[FAIL]} failed, {counts[SKIP]} skipped")
    return "\n".join(lines) + "\n"


def render_json(checks: Sequence[Check], python: str) -> str:
    counts = {s.lower(): sum(1 for c in checks if c.status == s) for s in (PASS, WARN, FAIL, SKIP)}
    doc = {"version": 1, "python": python, "checks": [asdict(c) for c in checks], "summary": counts,
           "exit_code": exit_code(checks)}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def exit_code(checks: Sequence[Check]) -> int:
    return 1 if any(c.status == FAIL for c in checks) else 0


@click.command("doctor")
@click.option("--python", "python", metavar="PATH", default=None,
              help="Interpreter whose environment to check (default: the one running msgraphlint).")
@click.option("--root", default=os.sep, show_default=True, type=click.Path(file_okay=False),
              help="File-system root for system paths such as /usr/local/Ascend (a fake root in tests).")
@click.option("--project", default=".", show_default=True, type=click.Path(exists=True, file_okay=False),
              help="Project whose requirements*.txt / pyproject.toml / setup.cfg / environment.yml must pin MindSpore.")
@click.option("--device", type=click.Choice(DEVICES), default=None,
              help="The device you will run on: its backend (and for ascend, CANN) become required.")
@click.option("--quick", is_flag=True, help="Metadata only: do not start the interpreter to import MindSpore or AKG.")
@click.option("--compile", "compile_check", is_flag=True,
              help="Also compile a small graph with graph-kernel fusion on and count the fused kernels (~10 s).")
@click.option("--timeout", default=180.0, show_default=True, type=float, help="Seconds per import probe.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def doctor_command(python, root, project, device, quick, compile_check, timeout, fmt) -> None:
    """Check the environment MindSpore code will run in: MindSpore version and device build,
    Python support, CANN toolkit, NumPy range, graph-kernel fusion prerequisites, and
    whether the project pins MindSpore. Exit status 1 when a check fails."""
    python = python or sys.executable
    checks = run_doctor(python, root=root, project=project, device=device, quick=quick,
                        compile_check=compile_check, timeout=timeout)
    click.echo(render_json(checks, python) if fmt == "json" else render_text(checks, python), nl=False)
    click.get_current_context().exit(exit_code(checks))

"""Run the compile child in a subprocess (pure Python: no ``mindspore`` import here).

    from msgraphlint.verify.compile import compile_target
    out = compile_target({"file": "model.py", "target": "Net", "inputs": ["2x64x256:float32"],
                          "fusion": True, "ir_dir": "/tmp/ir"})

The child runs with the current interpreter, or ``$MSGRAPHLINT_MINDSPORE_PYTHON`` when
set (a separate environment that has MindSpore), in a fresh scratch working directory
(AKG caches kernels in ``akg_kernel_meta/`` under the cwd), with a timeout. Timeouts,
crashes and a missing MindSpore come back as ``ok: False`` with a clear ``error``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

#: Environment of every compile (see shared/docs/MINDSPORE_FACTS.md).
DUMP_PASSES = "validate,graph_build,hwopt_common_final"
FUSION_FLAGS = "--opt_level=2"

_OUT_DEFAULTS = {
    "ok": False, "error_type": None, "error_first_line": None, "error": None,
    "compile_seconds": None, "call_seconds": None, "n_compiles": 0,
    "pynative_equal": None, "inputs_mutated": {"graph": None, "pynative": None},
    "ir_dir": None,
}


def mindspore_python() -> str:
    """The interpreter that runs the child."""
    return os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable


def child_env(spec: dict) -> dict:
    env = dict(os.environ)
    # drop anything that would change what is dumped or how it is compiled
    for key in ("MS_DEV_GRAPH_KERNEL_FLAGS", "MS_DEV_JIT_SYNTAX_LEVEL", "MS_DEV_SAVE_GRAPHS",
                "MS_DEV_SAVE_GRAPHS_PATH", "MS_DEV_DUMP_IR_PASSES", "MS_AUTO_DYNAMIC_SHAPE_ENABLE"):
        env.pop(key, None)
    if spec.get("fusion", True):
        env["MS_DEV_GRAPH_KERNEL_FLAGS"] = FUSION_FLAGS
    if spec.get("ir_dir"):
        env["MS_DEV_SAVE_GRAPHS"] = "1"
        env["MS_DEV_SAVE_GRAPHS_PATH"] = str(spec["ir_dir"])
        env["MS_DEV_DUMP_IR_PASSES"] = DUMP_PASSES
    if spec.get("syntax_level", "default") == "strict":
        env["MS_DEV_JIT_SYNTAX_LEVEL"] = "0"
    env.setdefault("GLOG_v", "3")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # the child must find this package even when run from a scratch directory
    pkg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _failure(spec: dict, error_type: str, message: str, **extra) -> dict:
    out = dict(_OUT_DEFAULTS)
    out["inputs_mutated"] = {"graph": None, "pynative": None}
    out.update(ir_dir=spec.get("ir_dir"), error_type=error_type,
               error_first_line=message.splitlines()[0] if message else error_type,
               error=message)
    out.update(extra)
    return out


def compile_target(spec: dict, timeout: float = 300, *, keep_scratch: bool = False) -> dict:
    """Compile ``spec`` in a child process and return its OUT dict (see ``_child``)."""
    spec = dict(spec)
    spec["file"] = os.path.abspath(spec["file"])
    scratch = tempfile.mkdtemp(prefix="msgraphlint-compile-")
    if not spec.get("ir_dir"):
        spec["ir_dir"] = os.path.join(scratch, "ir")
    spec["ir_dir"] = os.path.abspath(spec["ir_dir"])
    os.makedirs(spec["ir_dir"], exist_ok=True)
    work = os.path.join(scratch, "cwd")
    os.makedirs(work)
    spec_path = os.path.join(scratch, "spec.json")
    out_path = os.path.join(scratch, "out.json")
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump(spec, f)
    cmd = [mindspore_python(), "-m", "msgraphlint.verify._child", "--spec", spec_path, "--out", out_path]
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(cmd, cwd=work, env=child_env(spec), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    except OSError as exc:
        return _failure(spec, "ChildStartError", f"cannot start {cmd[0]}: {exc}")
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        stdout, stderr = proc.communicate()
        out = _failure(spec, "CompileTimeout",
                       f"the compile of {spec.get('target')} did not finish within {timeout:g} s",
                       stderr_tail=_tail(stderr))
        out["wall_seconds"] = round(time.perf_counter() - t0, 3)
        _cleanup(scratch, keep_scratch)
        return out
    finally:
        # AKG's build server is started in the child's session; make sure nothing lingers
        _kill_group(proc)
    wall = round(time.perf_counter() - t0, 3)
    if os.path.exists(out_path):
        with open(out_path, encoding="utf-8") as f:
            out = json.load(f)
    else:
        text = _tail(stderr) or _tail(stdout)
        if "No module named 'mindspore'" in text:
            out = _failure(spec, "MindSporeMissing",
                           f"MindSpore is not importable by {cmd[0]}: install msgraphlint[verify] "
                           "or set MSGRAPHLINT_MINDSPORE_PYTHON to an interpreter that has it",
                           stderr_tail=text)
        else:
            out = _failure(spec, "ChildCrashed",
                           f"the compile child exited with code {proc.returncode} without a result",
                           stderr_tail=text)
    out["wall_seconds"] = wall
    out["returncode"] = proc.returncode
    if not out.get("ok"):
        out.setdefault("stderr_tail", _tail(stderr))
    _cleanup(scratch, keep_scratch, ir_inside=spec["ir_dir"].startswith(scratch))
    return out


def _tail(data, n: int = 4000) -> str:
    if not data:
        return ""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
    return text[-n:]


def _kill_group(proc) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _cleanup(scratch: str, keep: bool, ir_inside: bool = False) -> None:
    if keep or ir_inside:
        # keep the IR the caller will read; drop the AKG cache and the spec
        for name in ("cwd",):
            shutil.rmtree(os.path.join(scratch, name), ignore_errors=True)
        return
    shutil.rmtree(scratch, ignore_errors=True)

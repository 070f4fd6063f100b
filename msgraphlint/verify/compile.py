"""Run the compile child in a subprocess (pure Python: no ``mindspore`` import here).

    from msgraphlint.verify.compile import compile_target
    out = compile_target({"file": "model.py", "target": "Net", "inputs": ["2x64x256:float32"],
                          "fusion": True, "ir_dir": "/tmp/ir"})

The child runs with the interpreter ``spec["python"]`` names (``verify --python``), else
``$MSGRAPHLINT_MINDSPORE_PYTHON``, else the current one, in a fresh scratch working directory
(AKG caches kernels in ``akg_kernel_meta/`` under the cwd), with a timeout. Timeouts,
crashes and a missing MindSpore come back as ``ok: False`` with a clear ``error``.

The child is isolated: it runs as a script copied into the scratch folder
(``child/_msgraphlint_child.py`` with its one helper ``_msgraphlint_inputs.py``), so it sees
the target interpreter's own ``sys.path`` plus that folder, never msgraphlint's
site-packages (whose MindSpore could otherwise stand in for a missing one).
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


#: the files of the isolated child: (source beside this module, name in the scratch folder)
CHILD_FILES = (("_child.py", "_msgraphlint_child.py"), ("inputs.py", "_msgraphlint_inputs.py"))
CHILD_SCRIPT = "_msgraphlint_child.py"


def mindspore_python(python: str = None) -> str:
    """The interpreter that runs the child: ``python`` (``--python``), else
    ``$MSGRAPHLINT_MINDSPORE_PYTHON``, else this one."""
    return python or os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable


def stage_child(folder: str) -> str:
    """Copy the child's two files into ``folder``; returns the script to run."""
    os.makedirs(folder, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    for src, dst in CHILD_FILES:
        shutil.copyfile(os.path.join(here, src), os.path.join(folder, dst))
    return os.path.join(folder, CHILD_SCRIPT)


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
    # nothing of msgraphlint on the path: the child is a script beside its one helper
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
    script = stage_child(os.path.join(scratch, "child"))
    cmd = [mindspore_python(spec.get("python")), script, "--spec", spec_path, "--out", out_path]
    t0 = time.perf_counter()
    # the child's output goes to files, not pipes: a parent busy with the static check must
    # never make a chatty compile (AKG's warnings) wait for its pipe to be drained
    out_log, err_log = os.path.join(scratch, "stdout.txt"), os.path.join(scratch, "stderr.txt")
    try:
        with open(out_log, "wb") as fo, open(err_log, "wb") as fe:
            proc = subprocess.Popen(cmd, cwd=work, env=child_env(spec), stdout=fo, stderr=fe,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as exc:
        return _failure(spec, "ChildStartError", f"cannot start {cmd[0]}: {exc}")
    try:
        proc.wait(timeout=timeout)
        stdout, stderr = _read_tail(out_log), _read_tail(err_log)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
        stdout, stderr = _read_tail(out_log), _read_tail(err_log)
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
                           f"MindSpore is not importable by {cmd[0]}: install msgraphlint[verify] there, "
                           "or name an interpreter that has it with --python", stderr_tail=text)
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


def _read_tail(path: str, n: int = 64 * 1024) -> bytes:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read()
    except OSError:
        return b""


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
        for name in ("cwd", "child"):
            shutil.rmtree(os.path.join(scratch, name), ignore_errors=True)
        return
    shutil.rmtree(scratch, ignore_errors=True)

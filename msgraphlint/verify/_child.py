"""The compile child: the ONLY module of msgraphlint that imports ``mindspore``.

Run it in a fresh scratch working directory (AKG writes ``akg_kernel_meta/`` into the
current directory and reuses it as a cache)::

    python -m msgraphlint.verify._child --spec SPEC.json --out OUT.json

SPEC (JSON object):

``file``            path of the Python file that holds the target
``target``          a Cell class name, or a ``@jit``/plain function name, in that file
``inputs``          list of input specs (see :func:`make_value`), or null to call the
                    module's ``make_inputs()``
``make_inputs_kwargs``  optional dict passed to ``make_inputs(**kwargs)`` (when inputs is null)
``shapes``          optional list of alternative inputs, each a list of input specs or a
                    dict of ``make_inputs`` keyword arguments; called one after another
                    after the first call, to count recompiles
``dynamic``         optional list of input specs with ``?`` dims, given to
                    ``Cell.set_inputs`` before the first call (Cell targets only)
``train``           bool: compile forward + backward (``value_and_grad`` + ``ms.jit``; a
                    non-scalar output is reduced with ``mean``)
``syntax_level``    ``"default"`` | ``"strict"``
``fusion``          bool: graph-kernel fusion (``MS_DEV_GRAPH_KERNEL_FLAGS=--opt_level=2``)
``compare_pynative`` bool: run the same inputs in PYNATIVE_MODE with the same weights
``ir_dir``          where the IR files go (``MS_DEV_SAVE_GRAPHS_PATH``)
``device``          the device target (default ``"CPU"``)
``module``, ``import_root``  optional: import the file as this dotted module with this
                    folder first on ``sys.path`` (a module of a package, relative imports
                    included); without them the file is loaded on its own

OUT (JSON object): ``ok``, ``error_type``, ``error_first_line``, ``error`` (full text),
``compile_seconds``, ``call_seconds``, ``n_compiles`` (``*_validate_*.ir`` files),
``pynative_equal`` (bool|null), ``inputs_mutated`` ({graph, pynative}), ``ir_dir``, and
extras: ``mindspore_version``, ``stage`` (where it failed), ``shape_runs``,
``outputs`` (shapes/dtypes), ``max_abs_diff``, ``analyze_fail`` (copied path or null),
``python`` and ``child_sys_path`` (the interpreter and its ``sys.path`` at start),
``imported_files`` (every ``.py`` file imported, outside the standard library and
MindSpore: what the verify cache checks).

The environment variables are set here too (before the import), from the SPEC, so the
child behaves the same however it is started.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import shutil
import sys
import time
import traceback

#: what the interpreter's own sys.path was before anything here ran (the isolation check)
START_SYS_PATH = list(sys.path)

if os.path.basename(__file__) == "_msgraphlint_child.py":
    # the isolated copy (compile.stage_child): its one helper is beside it, nothing of msgraphlint
    # is on the path
    from _msgraphlint_inputs import parse_input_spec  # noqa: F401
else:  # python -m msgraphlint.verify._child (a checkout)
    from msgraphlint.verify.inputs import parse_input_spec  # noqa: F401

#: stages where a failure is the caller's mistake (a usage error), not the compiler's verdict
USAGE_STAGES = {"import": "importing the module failed", "target": "the target is not compilable",
                "build": "constructing the target failed", "inputs": "building the inputs failed",
                "arity": "the inputs do not match the target",
                "device": "this MindSpore cannot compile for the device (--device)"}

def _setup_env(spec: dict) -> None:
    ir_dir = spec.get("ir_dir")
    if ir_dir:
        os.makedirs(ir_dir, exist_ok=True)
        os.environ["MS_DEV_SAVE_GRAPHS"] = os.environ.get("MS_DEV_SAVE_GRAPHS", "1")
        os.environ["MS_DEV_SAVE_GRAPHS_PATH"] = ir_dir
        os.environ.setdefault("MS_DEV_DUMP_IR_PASSES", "validate,graph_build,hwopt_common_final")
    if spec.get("fusion", True):
        os.environ.setdefault("MS_DEV_GRAPH_KERNEL_FLAGS", "--opt_level=2")
    else:
        os.environ.pop("MS_DEV_GRAPH_KERNEL_FLAGS", None)
    if spec.get("syntax_level", "default") == "strict":
        os.environ["MS_DEV_JIT_SYNTAX_LEVEL"] = "0"
    os.environ.setdefault("GLOG_v", "3")  # errors only on stderr


def _count_validate(ir_dir):
    if not ir_dir or not os.path.isdir(ir_dir):
        return 0
    return len(glob.glob(os.path.join(ir_dir, "**", "*_validate_*.ir"), recursive=True))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m msgraphlint.verify._child")
    parser.add_argument("--spec", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    with open(args.spec, encoding="utf-8") as f:
        spec = json.load(f)
    out = {
        "ok": False, "error_type": None, "error_first_line": None, "error": None,
        "compile_seconds": None, "call_seconds": None, "n_compiles": 0,
        "pynative_equal": None, "inputs_mutated": {"graph": None, "pynative": None},
        "ir_dir": spec.get("ir_dir"), "mindspore_version": None, "stage": "setup",
        "shape_runs": [], "outputs": None, "max_abs_diff": None, "analyze_fail": None,
        "dynamic": bool(spec.get("dynamic")), "train": bool(spec.get("train")),
        "target_kind": None, "python": sys.executable, "child_sys_path": START_SYS_PATH,
        "imported_files": None, "device": spec.get("device") or "CPU",
    }
    try:
        _setup_env(spec)
        _run(spec, out)
        out["ok"] = True
    except BaseException as exc:  # noqa: BLE001 - everything goes into OUT
        out["ok"] = False
        out["error_type"] = type(exc).__name__
        msg = str(exc)
        first = headline(msg)
        out["error_first_line"] = first or type(exc).__name__
        out["error"] = msg + "\n\n" + traceback.format_exc()
        if out["stage"] == "setup" and isinstance(exc, ImportError):
            out["error_type"] = "MindSporeMissing"
            out["error_first_line"] = (f"MindSpore is not importable by {sys.executable} ({first}): install "
                                       "msgraphlint[verify] there, or name an interpreter that has it "
                                       "with --python")
        elif out["stage"] in USAGE_STAGES:
            out["usage_error"] = f"{USAGE_STAGES[out['stage']]}: {type(exc).__name__}: {first}"
    finally:
        if out.get("graph_compiles") is not None:
            out["n_compiles"] = out["graph_compiles"]
        else:
            out["n_compiles"] = _count_validate(spec.get("ir_dir"))
        _copy_analyze_fail(spec, out)
        try:
            out["imported_files"] = _imported_files()
        except Exception:  # noqa: BLE001 - the cache then checks the static import closure
            out["imported_files"] = None
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, default=str)
    return 0


_RULE = set("-=_~*# ")


def headline(message: str) -> str:
    """The line of an error message that says what went wrong: MindSpore's messages open
    with a ruler (``-----``) and a section title (``- Kernel select failed:``)."""
    title = ""
    for ln in message.splitlines():
        text = ln.strip()
        if not text or set(text) <= _RULE:
            continue
        if text.startswith("- ") and text.endswith(":"):
            title = title or text[2:-1]
            continue
        return text
    return title


def _imported_files():
    """The ``.py`` files of every imported module outside the standard library and
    MindSpore, sorted (what the compile executed)."""
    import sysconfig

    skip = {os.path.realpath(p) + os.sep for p in {sysconfig.get_paths().get("stdlib"),
                                                     sysconfig.get_paths().get("platstdlib")} if p}
    ms = sys.modules.get("mindspore")
    if ms is not None and getattr(ms, "__file__", None):
        skip.add(os.path.realpath(os.path.dirname(ms.__file__)) + os.sep)
    here = os.path.dirname(os.path.realpath(__file__)) + os.sep
    files = set()
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None)
        if not path or not path.endswith(".py"):
            continue
        real = os.path.realpath(path)
        if real.startswith(here) or any(real.startswith(s) and real[len(s):].split(os.sep)[0]
                                        not in ("site-packages", "dist-packages") for s in skip):
            continue
        files.add(real)
    return sorted(files)


def _copy_analyze_fail(spec, out):
    ir_dir = spec.get("ir_dir")
    found = glob.glob(os.path.join(os.getcwd(), "**", "analyze_fail*.ir"), recursive=True)
    if ir_dir:
        found += glob.glob(os.path.join(ir_dir, "**", "analyze_fail*.ir"), recursive=True)
    if not found:
        return
    src = found[0]
    if ir_dir and not os.path.abspath(src).startswith(os.path.abspath(ir_dir)):
        dst = os.path.join(ir_dir, os.path.basename(src))
        try:
            shutil.copyfile(src, dst)
            src = dst
        except OSError:
            pass
    out["analyze_fail"] = src


def _load_module(path, module=None, import_root=None):
    path = os.path.abspath(path)
    if module and import_root and "." in module:
        # a module of a package: imported by its name, so its relative imports work
        if import_root not in sys.path:
            sys.path.insert(0, import_root)
        loaded = importlib.import_module(module)  # importlib.util is imported at the top
        if os.path.realpath(getattr(loaded, "__file__", "") or "") != os.path.realpath(path):
            raise ImportError(f"{module} imports from {getattr(loaded, '__file__', None)}, not {path} "
                              "(another copy is first on sys.path)")
        return loaded
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = "_msgraphlint_target_" + os.path.splitext(os.path.basename(path))[0]
    mod_spec = importlib.util.spec_from_file_location(name, path)
    if mod_spec is None or mod_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[name] = module
    mod_spec.loader.exec_module(module)
    return module


def _run(spec, out):
    import mindspore as ms
    import numpy as np
    from mindspore import Tensor, nn

    out["mindspore_version"] = ms.__version__
    out["stage"] = "device"
    ms.set_context(mode=ms.GRAPH_MODE, device_target=spec.get("device") or "CPU")

    def make_value(item, rng):
        if not isinstance(item, str):
            return item
        kind, dims, dtype = parse_input_spec(item)
        if kind == "py":
            return dims
        if any(d is None for d in dims):
            raise ValueError(f"input spec {item!r} has a dynamic dim: only 'dynamic' specs may")
        if dtype == "bool":
            arr = rng.random(dims) > 0.5
        elif dtype.startswith("int") or dtype == "uint8":
            arr = rng.integers(0, 8, size=dims).astype(dtype)
        elif dtype == "bfloat16":
            return Tensor(rng.standard_normal(dims).astype(np.float32)).astype(ms.bfloat16)
        else:
            arr = rng.standard_normal(dims).astype(dtype)
        return Tensor(np.asarray(arr))

    def make_dynamic(item):
        kind, dims, dtype = parse_input_spec(item)
        if kind == "py":
            return dims
        return Tensor(shape=dims, dtype=getattr(ms, dtype))

    out["stage"] = "import"
    module = _load_module(spec["file"], spec.get("module"), spec.get("import_root"))
    out["stage"] = "target"
    target_name = spec["target"]
    if not hasattr(module, target_name):
        raise AttributeError(f"{spec['file']} has no attribute {target_name!r}")
    target = getattr(module, target_name)

    def build_inputs(entry, seed):
        rng = np.random.default_rng(seed)
        if entry is None:
            entry = {}
        if isinstance(entry, dict):
            if not hasattr(module, "make_inputs"):
                raise AttributeError(
                    f"{spec['file']} has no make_inputs(); pass inputs (e.g. 2x64x256:float32)")
            values = module.make_inputs(**entry)
            if not isinstance(values, (tuple, list)):
                values = (values,)
            return [v if not isinstance(v, np.ndarray) else Tensor(v) for v in values]
        return [make_value(item, rng) for item in entry]

    out["stage"] = "build"
    is_cell = isinstance(target, type) and issubclass(target, nn.Cell)
    if is_cell:
        net = target()
        net.set_train(bool(spec.get("train")))
        fn = net
        out["target_kind"] = "cell"
    elif isinstance(target, nn.Cell):
        net = target
        fn = net
        out["target_kind"] = "cell"
    elif callable(target):
        net = None
        fn = target
        out["target_kind"] = "jit_function" if getattr(target, "__wrapped_by_jit__", False) else "function"
    else:
        raise TypeError(f"{target_name} is neither a Cell class nor a function")

    out["stage"] = "inputs"
    first_entry = spec.get("inputs")
    if first_entry is None:
        first_entry = dict(spec.get("make_inputs_kwargs") or {})
    inputs = build_inputs(first_entry, 0)
    host_copies = [_host(v) for v in inputs]
    out["input_shapes"] = [list(v.shape) if isinstance(v, Tensor) else repr(v) for v in inputs]
    out["stage"] = "arity"
    _check_arity(net, fn, inputs)

    if spec.get("dynamic"):
        if net is None:
            raise TypeError("dynamic inputs (set_inputs) need a Cell target")
        if spec["dynamic"] == "auto":
            # every dim that differs between the first inputs and the --shapes inputs
            others = [build_inputs(e, 0) for e in spec.get("shapes") or []]
            dyn = []
            for i, v in enumerate(inputs):
                if not isinstance(v, Tensor):
                    dyn.append(v)
                    continue
                dims = list(v.shape)
                for alt in others:
                    a = alt[i]
                    if not isinstance(a, Tensor) or len(a.shape) != len(dims):
                        dims = None
                        break
                    dims = [d if d == e else None for d, e in zip(dims, a.shape)] if dims else dims
                dyn.append(Tensor(shape=dims, dtype=v.dtype) if dims is not None
                           else Tensor(shape=None, dtype=v.dtype))
            out["dynamic_inputs"] = [[d if d is not None and d >= 0 else None for d in t.shape]
                                     if isinstance(t, Tensor) and t.shape is not None else None
                                     for t in dyn]
            net.set_inputs(*dyn)
        else:
            net.set_inputs(*[make_dynamic(item) for item in spec["dynamic"]])

    # The graph-mode callable.
    if spec.get("train"):
        params = net.trainable_params() if net is not None else None
        base = fn

        def forward_fn(*args):
            y = base(*args)
            if isinstance(y, (tuple, list)):
                y = y[0]
            if y.ndim != 0:
                y = y.mean()
            return y

        grad_fn = ms.value_and_grad(forward_fn, None, params) if params else ms.value_and_grad(forward_fn)
        def train_step(*args):
            return grad_fn(*args)

        graph_call = ms.jit(train_step)
        eager_call = grad_fn
    else:
        if net is not None or getattr(fn, "__wrapped_by_jit__", False):
            graph_call = fn
        else:
            graph_call = ms.jit(fn)
        eager_call = fn

    out["stage"] = "compile"
    ir_dir = spec.get("ir_dir")
    t0 = time.perf_counter()
    result = graph_call(*inputs)
    graph_values = _flatten_host(result)
    t1 = time.perf_counter()
    result = graph_call(*inputs)
    _flatten_host(result)
    t2 = time.perf_counter()
    out["call_seconds"] = round(t2 - t1, 6)
    out["compile_seconds"] = round(max(0.0, (t1 - t0) - (t2 - t1)), 6)
    out["outputs"] = [{"shape": list(v.shape), "dtype": str(v.dtype)} for v in graph_values]
    # Two calls with the same inputs: in-place writes on inputs accumulate; check after both.
    out["inputs_mutated"]["graph"] = _mutated(inputs, host_copies)

    out["stage"] = "shapes"
    for i, entry in enumerate(spec.get("shapes") or []):
        before = _count_validate(ir_dir)
        alt = build_inputs(entry, i + 1)
        s0 = time.perf_counter()
        _flatten_host(graph_call(*alt))
        s1 = time.perf_counter()
        after = _count_validate(ir_dir)
        out["shape_runs"].append({
            "inputs": entry, "seconds": round(s1 - s0, 6),
            "new_compiles": after - before,
            "input_shapes": [list(v.shape) if hasattr(v, "shape") else repr(v) for v in alt],
        })

    # graph compiles only: what PyNative does next (its gradient graph under --train) also
    # writes IR files, which are not compiles of the target
    out["graph_compiles"] = _count_validate(ir_dir)
    graph_files = set(glob.glob(os.path.join(ir_dir, "**", "*.ir"), recursive=True)) if ir_dir else set()
    if spec.get("compare_pynative"):
        out["stage"] = "pynative"
        p0 = time.perf_counter()
        ms.set_context(mode=ms.PYNATIVE_MODE)
        fresh = [Tensor(h) if isinstance(h, np.ndarray) else h for h in host_copies]
        fresh = [v.astype(o.dtype) if isinstance(v, Tensor) and isinstance(o, Tensor) else v
                 for v, o in zip(fresh, inputs)]
        fresh_copies = [_host(v) for v in fresh]
        eager = _flatten_host(eager_call(*fresh))
        # one call in PyNative; compare inputs after it
        out["inputs_mutated"]["pynative"] = _mutated(fresh, fresh_copies)
        equal = len(eager) == len(graph_values)
        max_diff = 0.0
        for a, b in zip(graph_values, eager):
            if a.shape != b.shape:
                equal = False
                continue
            if a.dtype.kind in "fc":
                if a.size:
                    max_diff = max(max_diff, float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))))
                if not np.allclose(a, b, rtol=1e-3, atol=1e-4, equal_nan=True):
                    equal = False
            elif not np.array_equal(a, b):
                equal = False
        out["pynative_equal"] = bool(equal)
        out["max_abs_diff"] = max_diff
        ms.set_context(mode=ms.GRAPH_MODE)
        out["pynative_seconds"] = round(time.perf_counter() - p0, 6)
        if ir_dir:
            for path in set(glob.glob(os.path.join(ir_dir, "**", "*.ir"), recursive=True)) - graph_files:
                os.remove(path)
    out["stage"] = "done"


def _check_arity(net, fn, inputs):
    """A wrong number of inputs is the caller's mistake (a usage error), found before the
    compile: ``construct`` (or the function) must accept them."""
    import inspect

    func = net.construct if net is not None else getattr(fn, "__wrapped__", fn)
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*inputs)
    except TypeError as exc:
        params = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        need = [p.name for p in params if p.default is p.empty]
        raise TypeError(f"{getattr(func, '__qualname__', func)}{sig} takes {len(need)}"
                        + (f" to {len(params)}" if len(params) != len(need) else "")
                        + f" input(s), {len(inputs)} given ({exc})") from None


def _host(value):
    import numpy as np

    if hasattr(value, "asnumpy"):
        return np.array(value.asnumpy(), copy=True)
    return value


def _mutated(values, copies):
    import numpy as np

    for v, c in zip(values, copies):
        if isinstance(c, np.ndarray) and hasattr(v, "asnumpy"):
            now = v.asnumpy()
            if now.shape != c.shape or not np.array_equal(now, c, equal_nan=True):
                return True
    return False


def _flatten_host(value):
    import numpy as np

    flat = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for k in sorted(v, key=str):
                walk(v[k])
        elif hasattr(v, "asnumpy"):
            flat.append(np.array(v.asnumpy(), copy=True))
        elif isinstance(v, (int, float, bool, np.ndarray, np.generic)):
            flat.append(np.asarray(v))

    walk(value)
    return flat


if __name__ == "__main__":
    sys.exit(main())

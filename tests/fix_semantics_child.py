"""Child of tests/test_fix_semantics.py, run with MindSpore's interpreter (never imported
by the test process): runs each (before, after) pair of modules in GRAPH_MODE and
PYNATIVE_MODE and compares outputs, the inputs after the call and the parameters.

argv[1]: a JSON file with ``[{"id", "before", "after", "path_dir"}]``. Prints one JSON line
per case: ``{"id", "entries": [...], "compared": n, "changes": [...], "skipped": reason}``.

Entry points found in a module (by its ast, then by value):
* classes with a ``construct`` method that can be built without arguments;
* module-level Cell instances (``drop = nn.Dropout(...)``);
* module-level functions decorated with ``jit``;
* module-level functions that, given 0.1 for every parameter, return a Cell;
* in a module with ``make_inputs()`` (the labeled fixtures), its functions and callable
  module-level values, called with those inputs.
Inputs: float32 tensors, one per required parameter, shapes tried in turn until the
*before* code runs. Where graph mode rejects the *before* code and PyNative runs it (a
PyTorch spelling such as ``x.transpose(1, 2)``), the *after* code in graph mode is compared
with the *before* code in PyNative: the fix must give graph mode PyNative's meaning (unless
graph mode rejects the *after* code with the same error: an entry the fix did not touch; for an
``ms.jit`` function, which compiles in PyNative too, PyNative's meaning is its undecorated
``__wrapped__`` Python). Each
entry runs in evaluation and in training state, with the same
seeds for before and after; a result that differs between two runs of the same code
(random ops) is not compared.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import sys
import traceback
from pathlib import Path

import numpy as np

import mindspore as ms
from mindspore import nn

SHAPES = [(2, 2), (4, 8), (2, 4, 8), (8,), (2, 3, 8, 8)]


def _load(path: str, name: str):
    ms.set_seed(0)
    np.random.seed(0)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _entries(path: str):
    tree = ast.parse(open(path, encoding="utf-8").read())
    out = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(isinstance(b, ast.FunctionDef) and b.name == "construct"
                                                  for b in node.body):
            out.append(("class", node.name))
        elif isinstance(node, ast.FunctionDef):
            jit = any("jit" in ast.unparse(d) for d in node.decorator_list)
            out.append(("jit" if jit else "factory", node.name))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            out.append(("instance", node.targets[0].id))
    return out


def _tensors(values):
    out = []
    for v in values if isinstance(values, (tuple, list)) else [values]:
        if isinstance(v, (tuple, list)):
            out.extend(_tensors(v))
        elif isinstance(v, ms.Tensor):
            out.append(v.asnumpy().copy())
        elif isinstance(v, (int, float, bool, np.ndarray)):
            out.append(np.asarray(v))
    return out


def _inputs(shape, n):
    rs = np.random.RandomState(0)
    return [ms.Tensor(rs.rand(*shape).astype(np.float32) * 2 - 0.5) for _ in range(n)]


# PyTorch's meaning for MSG502's fixes where PyTorch is not installed: NumPy, as PyTorch documents
# each function (tests/data/torch_shim/torch_standin/__init__.py); such a before module runs in PyNative only
TORCH_SHIM = str(Path(__file__).resolve().parent / "data" / "torch_shim")

UNWRAP = [False]  # run a jit function's undecorated Python (`fn.__wrapped__`) for PyNative's meaning


def _callable(mod, kind, name, train):
    ms.set_seed(0)
    np.random.seed(0)
    obj = getattr(mod, name)
    if UNWRAP[0] and kind != "class" and hasattr(obj, "__wrapped__"):
        obj = obj.__wrapped__
    if kind == "class":
        cell = obj()
        cell.set_train(train)
        return cell, cell.construct
    if kind == "instance":
        if not isinstance(obj, nn.Cell):
            # a module-level jit function (`fn = make_step()`): called with the module's inputs
            return (None, obj) if callable(obj) and hasattr(mod, "make_inputs") else (None, None)
        obj.set_train(train)
        return obj, obj.construct
    if kind == "factory" and hasattr(mod, "make_inputs"):
        # a module with make_inputs(): its functions take those tensors (labeled fixtures)
        return (None, None) if name.startswith("make_inputs") else (None, obj)
    if kind == "factory":
        params = [p for p in inspect.signature(obj).parameters.values() if p.default is inspect.Parameter.empty]
        cell = obj(*[0.1] * len(params))
        if not isinstance(cell, nn.Cell):
            return None, None
        cell.set_train(train)
        return cell, cell.construct
    return None, obj  # jit function


def _required(fn) -> int:
    fn = getattr(fn, "__wrapped__", fn)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    return sum(1 for p in params if p.default is inspect.Parameter.empty
               and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "self")


def _run(mod, kind, name, train, shape):
    cell, fn = _callable(mod, kind, name, train)
    if fn is None:
        return None
    n = _required(fn)
    xs = list(mod.make_inputs()) if cell is None and hasattr(mod, "make_inputs") else _inputs(shape, n)
    ms.set_seed(0)
    np.random.seed(0)
    out = cell(*xs) if cell is not None else fn(*xs)
    params = {} if cell is None else {k: v.asnumpy().copy() for k, v in cell.parameters_dict().items()}
    return {"out": _tensors(out), "inputs": [x.asnumpy().copy() for x in xs], "params": params}


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if len(a["out"]) != len(b["out"]) or len(a["inputs"]) != len(b["inputs"]) or a["params"].keys() != b["params"].keys():
        return False
    pairs = list(zip(a["out"], b["out"])) + list(zip(a["inputs"], b["inputs"])) + \
        [(a["params"][k], b["params"][k]) for k in a["params"]]
    for x, y in pairs:
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.dtype.kind in "fc":
            if not np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def _attempt(mod, kind, name, train, shape):
    try:
        return _run(mod, kind, name, train, shape), None
    except Exception as exc:  # noqa: BLE001 - the failure is part of the behaviour compared
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def case(c):
    before = _load(c["before"], f"before_{c['id']}")
    after = _load(c["after"], f"after_{c['id']}")
    report = {"id": c["id"], "entries": [], "compared": 0, "changes": [], "skipped": []}
    torch_before = getattr(sys.modules.get("torch"), "__file__", "").startswith(TORCH_SHIM) and any(
        isinstance(n, (ast.Import, ast.ImportFrom)) and "torch" in ast.unparse(n)
        for n in ast.walk(ast.parse(open(c["before"], encoding="utf-8").read())))
    for kind, name in _entries(c["before"]):
        for mode_name, mode in (("graph", ms.GRAPH_MODE), ("pynative", ms.PYNATIVE_MODE)):
            ms.set_context(mode=mode)
            for train in (False, True):
                where = f"{name} {mode_name} {'train' if train else 'eval'}"
                for shape in SHAPES:
                    if mode_name == "graph" and torch_before:
                        # graph mode would run the stand-in's NumPy through its JIT fallback, which is
                        # not PyTorch's meaning: the fixed graph is compared with PyNative's before
                        b1, err = None, "PyTorch: the stand-in runs in PyNative only"
                        break
                    b1, err = _attempt(before, kind, name, train, shape)
                    if err is None:
                        break
                if err is None and b1 is None:
                    break  # not an entry point (a module-level value that is not a Cell)
                if err is not None and mode_name == "graph":
                    gerr = None
                    for shape in SHAPES:
                        _a, gerr = _attempt(after, kind, name, train, shape)
                        if gerr is None:
                            break
                    if gerr == err:
                        # graph mode rejects the after code as it rejected the before code (an entry
                        # the fix did not touch): the same result in graph mode
                        report["compared"] += 1
                        report["entries"].append(where + " (rejected before and after, same error)")
                        continue
                    # graph mode rejects the original (a PyTorch spelling PyNative accepts):
                    # the fix must compute in graph mode what PyNative computed before
                    ms.set_context(mode=ms.PYNATIVE_MODE)
                    for shape in SHAPES:
                        b1, perr = _attempt(before, kind, name, train, shape)
                        if perr is None:
                            break
                    if perr is not None:
                        # an `ms.jit` function compiles in PyNative too: its undecorated Python is
                        # PyNative's meaning (as scripts/label_fixtures.py runs `fn.__wrapped__`)
                        UNWRAP[0] = True
                        for shape in SHAPES:
                            b1, perr = _attempt(before, kind, name, train, shape)
                            if perr is None:
                                break
                        UNWRAP[0] = False
                    ms.set_context(mode=mode)
                    if perr is None and b1 is not None:
                        a, aerr = _attempt(after, kind, name, train, shape)
                        report["compared"] += 1
                        report["entries"].append(where + " (after) vs pynative (before)")
                        if aerr is not None or not _same(b1, a):
                            report["changes"].append(f"{where} vs pynative before, shape {shape}: "
                                                     + (aerr or "outputs, inputs or parameters differ"))
                        continue
                if err is not None:
                    report["skipped"].append(f"{where}: before does not run ({err})")
                    continue
                b2, _ = _attempt(before, kind, name, train, shape)
                if not _same(b1, b2):
                    report["skipped"].append(f"{where}: not deterministic")
                    continue
                a, aerr = _attempt(after, kind, name, train, shape)
                report["compared"] += 1
                report["entries"].append(where)
                if aerr is not None or not _same(b1, a):
                    report["changes"].append(f"{where} shape {shape}: " + (aerr or "outputs, inputs or parameters differ"))
    return report


def main() -> None:
    cases = json.load(open(sys.argv[1], encoding="utf-8"))
    if importlib.util.find_spec("torch") is None:
        sys.path.append(TORCH_SHIM)
        import torch_standin  # the folder is not named torch: no linted project resolves it
        sys.modules.update({"torch": torch_standin, "torch.nn": torch_standin.nn,
                            "torch.nn.functional": torch_standin.nn.functional})
    for c in cases:
        sys.path.insert(0, c["path_dir"])
        try:
            rep = case(c)
        except Exception:  # noqa: BLE001
            rep = {"id": c["id"], "entries": [], "compared": 0, "changes": [], "skipped": [traceback.format_exc()[-500:]]}
        finally:
            sys.path.pop(0)
        print("CASE " + json.dumps(rep), flush=True)


if __name__ == "__main__":
    main()

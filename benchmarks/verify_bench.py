"""Cold and cached ``msgraphlint verify`` times for the bundled reference layer, forward and
train (needs MindSpore), and the same compile done by a plain script, for the ratio.

    python benchmarks/verify_bench.py                # forward and train, 1 cold run each
    python benchmarks/verify_bench.py --repeat 3 --json

The *plain* baseline is what a user would run without msgraphlint: a fresh Python process
that imports MindSpore, builds the same Cell, and calls it once in GRAPH_MODE with fusion on
(``MS_DEV_GRAPH_KERNEL_FLAGS=--opt_level=2``), in a fresh scratch directory (no AKG cache).
The ratio is cold verify / plain, measured in the same run, alternating the two.

A *cold* run compiles in a fresh child process with an empty verify cache (and a fresh
AKG kernel cache: every compile runs in a new scratch directory); a *cached* run is the
same command again, answered from the cache. Each run is a separate ``msgraphlint verify``
process, so the times include interpreter start-up, as a user sees them. Compiles are run
one at a time (the machine has 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _verify_once(args, cache_dir):
    cmd = [sys.executable, "-c",
           "import sys; from msgraphlint.verify.command import verify_command; "
           "verify_command(sys.argv[1:])", *args, "--format", "json", "--cache-dir", cache_dir]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
    wall = time.perf_counter() - t0
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"verify failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return wall, data


PLAIN = """
import sys, importlib.util
import mindspore as ms
ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
spec = importlib.util.spec_from_file_location("layer", sys.argv[1])
mod = importlib.util.module_from_spec(spec); sys.modules["layer"] = mod; spec.loader.exec_module(mod)
net = getattr(mod, sys.argv[2])()
net.set_train(sys.argv[3] == "train")
inputs = mod.make_inputs()
if sys.argv[3] == "train":
    def loss(*a):
        return net(*a)
    step = ms.jit(ms.value_and_grad(loss, None, net.trainable_params()))
    out = step(*inputs)
    out[0].asnumpy()
else:
    net(*inputs).asnumpy()
"""


def _plain_once(mode: str) -> float:
    from msgraphlint.verify.command import REFERENCE_FILE, REFERENCE_TARGET, REFERENCE_TRAIN_TARGET

    target = REFERENCE_TRAIN_TARGET if mode == "train" else REFERENCE_TARGET
    env = dict(os.environ, MS_DEV_GRAPH_KERNEL_FLAGS="--opt_level=2", GLOG_v="3")
    for key in ("MS_DEV_SAVE_GRAPHS", "MS_DEV_JIT_SYNTAX_LEVEL"):
        env.pop(key, None)
    with tempfile.TemporaryDirectory(prefix="verify-bench-plain-") as scratch:
        script = os.path.join(scratch, "plain.py")  # MindSpore compiles functions from files only
        with open(script, "w", encoding="utf-8") as f:
            f.write(PLAIN)
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, script, str(REFERENCE_FILE), target, mode],
                              capture_output=True, text=True, env=env, cwd=scratch)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"plain compile failed:\n{proc.stderr[-2000:]}")
    return wall


def bench(mode: str, repeat: int) -> dict:
    args = ["--train"] if mode == "train" else []
    cold, cached, compile_s, call_s, plain, pynative_s = [], [], [], [], [], []
    summary = None
    for _ in range(repeat):
        plain.append(_plain_once(mode))
        with tempfile.TemporaryDirectory(prefix="verify-bench-") as cache:
            wall, data = _verify_once(args, cache)
            assert data["cached"] is False
            cold.append(wall)
            compile_s.append(data["compile"]["compile_seconds"] or 0.0)
            call_s.append(data["compile"]["call_seconds"] or 0.0)
            pynative_s.append(data["compile"].get("pynative_seconds") or 0.0)
            summary = data["ir"]["summary"] if data.get("ir") else None
            wall2, data2 = _verify_once(args, cache)
            assert data2["cached"] is True
            cached.append(wall2)
    return {
        "mode": mode, "repeat": repeat,
        "cold_s": round(statistics.median(cold), 3),
        "cached_s": round(statistics.median(cached), 3),
        "plain_s": round(statistics.median(plain), 3),
        "ratio": round(statistics.median(cold) / statistics.median(plain), 3),
        "compile_s": round(statistics.median(compile_s), 3),
        "call_ms": round(1000 * statistics.median(call_s), 3),
        "pynative_s": round(statistics.median(pynative_s), 3),
        "summary": summary,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--modes", default="forward,train")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    rows = [bench(m.strip(), a.repeat) for m in a.modes.split(",") if m.strip()]
    if a.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'mode':<8} {'cold verify':>12} {'cached verify':>14} {'plain script':>13} {'ratio':>6} "
              f"{'compile':>9} {'call':>9} {'PyNative':>9}  fused/unfused/graphs")
        for r in rows:
            s = r["summary"] or {}
            print(f"{r['mode']:<8} {r['cold_s']:>10.2f} s {r['cached_s']:>12.2f} s {r['plain_s']:>11.2f} s "
                  f"{r['ratio']:>5.2f}x {r['compile_s']:>7.2f} s "
                  f"{r['call_ms']:>6.1f} ms {r['pynative_s']:>7.2f} s  {s.get('fused_kernels')}/{s.get('unfused_ops')}/{s.get('kernel_graphs')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

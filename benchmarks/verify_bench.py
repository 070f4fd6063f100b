"""Cold and cached ``msgraphlint verify`` times for the bundled reference layer, forward and
train (needs MindSpore), and the same compile done by a plain script, for the ratio; with
``--corpora``, the same for five real Cells of the model zoos (small configs).

    python benchmarks/verify_bench.py                # forward and train, 1 cold run each
    python benchmarks/verify_bench.py --repeat 3 --json
    python benchmarks/verify_bench.py --corpora --repeat 3 --python .bench_cache/venv-corpora/bin/python

``--corpora`` needs the model-zoo wheels unpacked under ``.bench_cache/corpora/<name>/``
(mindcv 0.3.0, mindyolo 0.5.0, mindocr 0.5.0, mindone 0.5.0, mindformers 2.1.0) and an
interpreter with MindSpore and their import-time dependencies (``--python``: verify compiles
with it, ``verify --python``). Each target is a small driver file written beside the
package (``msgraphlint_bench_*.py``: the real Cell with a small config and ``make_inputs``);
its verdict (exit code, disagreements) is printed with the times. ``--bare-ir`` reads each
target's IR from a plain compile with regular expressions instead (fused kernels, Switch,
PyExecute and Inplace* nodes, the frontend ops at the lines its verdict turns on), to check
the verdicts against.

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
CORPORA = ROOT / ".bench_cache" / "corpora"

#: name -> (package folder under CORPORA, driver file, Cell class, driver source)
TARGETS = {
"mindcv": ("mindcv", "msgraphlint_bench_convnext.py", "ConvNeXtBlock", '''
"""mindcv 0.3.0 ConvNeXt Block (dim 32, drop_path 0): the real Cell, a small config."""
import numpy as np
from mindspore import Tensor
from mindcv.models.convnext import Block


class ConvNeXtBlock(Block):
    def __init__(self):
        super().__init__(dim=32, drop_path=0.0, layer_scale_init_value=1e-6)


def make_inputs():
    return (Tensor(np.random.default_rng(0).standard_normal((2, 32, 8, 8)).astype(np.float32)),)
'''),
"mindyolo": ("mindyolo", "msgraphlint_bench_c2f.py", "C2fBlock", '''
"""mindyolo 0.5.0 C2f (YOLOv8's CSP block, 32 -> 32 channels, 1 bottleneck)."""
import numpy as np
from mindspore import Tensor
from mindyolo.models.layers.bottleneck import C2f


class C2fBlock(C2f):
    def __init__(self):
        super().__init__(32, 32, n=1, shortcut=True)


def make_inputs():
    return (Tensor(np.random.default_rng(0).standard_normal((1, 32, 16, 16)).astype(np.float32)),)
'''),
"mindocr": ("mindocr", "msgraphlint_bench_dbhead.py", "DBHeadEval", '''
"""mindocr 0.5.0 DBNet head (64 channels), in eval mode: `if self.adaptive and self.training`
is folded away. mindocr's package __init__ imports a module MindSpore 2.10 lacks
(mindspore.parallel._transformer), so its parent packages are set up empty here."""
import os
import sys
import types

_ROOT = os.path.dirname(os.path.abspath(__file__))
for _name in ("mindocr", "mindocr.models", "mindocr.models.heads"):
    if _name not in sys.modules:
        _mod = types.ModuleType(_name)
        _mod.__path__ = [os.path.join(_ROOT, *_name.split("."))]
        sys.modules[_name] = _mod

import numpy as np  # noqa: E402
from mindspore import Tensor  # noqa: E402
from mindocr.models.heads.det_db_head import DBHead  # noqa: E402


class DBHeadEval(DBHead):
    def __init__(self):
        super().__init__(in_channels=64, k=50, adaptive=True)
        self.set_train(False)


def make_inputs():
    return (Tensor(np.random.default_rng(0).standard_normal((1, 64, 16, 16)).astype(np.float32)),)
'''),
"mindone": ("mindone", "msgraphlint_bench_timestep.py", "TimestepEmbed", '''
"""mindone 0.5.0 diffusers TimestepEmbedding (32 -> 64, SiLU; no condition projection, no post
activation: those branches are folded away)."""
import numpy as np
from mindspore import Tensor
from mindone.diffusers.models.embeddings import TimestepEmbedding


class TimestepEmbed(TimestepEmbedding):
    def __init__(self):
        super().__init__(in_channels=32, time_embed_dim=64)


def make_inputs():
    return (Tensor(np.random.default_rng(0).standard_normal((2, 32)).astype(np.float32)),)
'''),
"mindformers": ("mindformers", "msgraphlint_bench_llama.py", "LlamaLayer", '''
"""mindformers 2.1.0 LLaMA decoder layer (hidden 64, 4 heads, seq 16, float32), driven with
the rotary tables and causal mask of its own FreqsMgr and LowerTriangularMaskWithDynamic."""
import numpy as np
import mindspore as ms
from mindspore import Tensor, nn
from mindformers.models.llama.llama_transformer import LLamaDecodeLayer
from mindformers.modules.layers import FreqsMgr
from mindformers.modules import LowerTriangularMaskWithDynamic

SEQ, DIM, HEADS = 16, 64, 4


class LlamaLayer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.freqs_mgr = FreqsMgr(head_dim=DIM // HEADS, seq_length=SEQ, max_position_embedding=SEQ,
                                  rotary_dtype=ms.float32)
        self.casual_mask = LowerTriangularMaskWithDynamic(seq_length=SEQ, compute_type=ms.float32)
        self.layer = LLamaDecodeLayer(seq_length=SEQ, layer_id=0, dim=DIM, n_heads=HEADS, intermediate_size=128,
                                      compute_dtype=ms.float32, param_init_type=ms.float32,
                                      use_rope_slice=True, fused_kernel=False)

    def construct(self, x, tokens):
        mask = self.casual_mask(tokens)
        freqs_cis = self.freqs_mgr(SEQ)
        return self.layer(x, freqs_cis, mask)


def make_inputs():
    rng = np.random.default_rng(0)
    return (Tensor(rng.standard_normal((1, SEQ, DIM)).astype(np.float32)),
            Tensor(rng.integers(1, 100, (1, SEQ)).astype(np.int32)))
'''),
}



_PYCACHE = tempfile.mkdtemp(prefix="verify-bench-pycache-")


def _verify_env() -> dict:
    """msgraphlint runs with its bytecode cached, as an installed package has it (pip
    compiles it), under a private ``-X pycache_prefix`` (that process only: nothing is
    written into the tree, and the compile child, which inherits the environment, reads
    MindSpore's own bytecode as the plain script does): a PYTHONDONTWRITEBYTECODE=1 of the
    machine does not make every run compile msgraphlint's modules again. The compile child
    sets PYTHONDONTWRITEBYTECODE=1 itself."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


_PY = [sys.executable, "-X", f"pycache_prefix={_PYCACHE}"]


def _warm_bytecode() -> None:
    subprocess.run(_PY + ["-c", "import msgraphlint.cli, msgraphlint.verify.command, msgraphlint.run.runner, "
                          "msgraphlint.engine.registry as r; r.load_rules()"], env=_verify_env(), cwd=str(ROOT),
                   capture_output=True)


def _verify_once(args, cache_dir, check: bool = True):
    cmd = _PY + ["-c",
           "import sys; from msgraphlint.verify.command import verify_command; "
           "verify_command(sys.argv[1:])", *args, "--format", "json", "--cache-dir", cache_dir]
    env = _verify_env()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT))
    wall = time.perf_counter() - t0
    try:
        data = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"verify failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    if check and proc.returncode != data.get("exit_code"):
        raise SystemExit(f"verify exit {proc.returncode} != its JSON's exit_code {data.get('exit_code')}")
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


PLAIN_CORPUS = """
import importlib, sys
sys.path.insert(0, sys.argv[1])
import mindspore as ms
ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
mod = importlib.import_module(sys.argv[2])
net = getattr(mod, sys.argv[3])()
net.set_train(False)
out = net(*mod.make_inputs())
for t in (out if isinstance(out, (tuple, list)) else (out,)):
    t.asnumpy()
"""


def _plain_corpus_once(python: str, name: str) -> float:
    pkg, fname, cls, _ = TARGETS[name]
    env = dict(os.environ, MS_DEV_GRAPH_KERNEL_FLAGS="--opt_level=2", GLOG_v="3")
    for key in ("MS_DEV_SAVE_GRAPHS", "MS_DEV_JIT_SYNTAX_LEVEL", "PYTHONPATH"):
        env.pop(key, None)
    with tempfile.TemporaryDirectory(prefix="verify-bench-plain-") as scratch:
        script = os.path.join(scratch, "plain.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(PLAIN_CORPUS)
        t0 = time.perf_counter()
        proc = subprocess.run([python, script, str(CORPORA / pkg), fname[:-3], cls],
                              capture_output=True, text=True, env=env, cwd=scratch)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"plain compile of {name} failed:\n{proc.stderr[-3000:]}")
    return wall



#: --bare-ir: per target, the file and lines whose frontend ops are listed (the lines its
#: verdict turns on: folded config branches, mindyolo's `y += (out,)`)
CHECK = {  # name -> (file suffix, [lines to list the validate ops of])
    "mindcv": ("mindcv/models/convnext.py", [99, 100, 101, 147]),
    "mindyolo": ("mindyolo/models/layers/bottleneck.py", [87, 90, 91]),
    "mindocr": ("mindocr/models/heads/det_db_head.py", [50, 52, 53, 54]),
    "mindone": ("mindone/diffusers/models/embeddings.py", [1303, 1304, 1305, 1308]),
    "mindformers": ("mindformers/models/llama/llama_transformer.py", [1042, 1043, 1054, 1055, 1064, 1065]),
}


def bare_ir_facts(python: str, name: str) -> dict:
    """An independent reading of the target's IR, to check its verdict: a plain compile with
    the IR saved, read with regular expressions (not msgraphlint's parser): fused kernels,
    kernel graphs, Switch/PyExecute/Inplace* nodes, the ops of the kernel graphs and the
    frontend ops at the lines CHECK names."""
    import glob
    import re

    suffix, lines = CHECK[name]
    pkg, fname, cls, _ = TARGETS[name]
    with tempfile.TemporaryDirectory(prefix="verify-bench-bare-ir-") as d:
        script = os.path.join(d, "plain.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(PLAIN_CORPUS)
        env = dict(os.environ, MS_DEV_GRAPH_KERNEL_FLAGS="--opt_level=2", GLOG_v="3", MS_DEV_SAVE_GRAPHS="1",
                   MS_DEV_SAVE_GRAPHS_PATH=os.path.join(d, "ir"), MS_DEV_DUMP_IR_PASSES="validate,graph_build")
        env.pop("PYTHONPATH", None)
        proc = subprocess.run([python, script, str(CORPORA / pkg), fname[:-3], cls], env=env, cwd=d,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"plain compile of {name} failed:\n{proc.stderr[-3000:]}")
        gb_files = glob.glob(os.path.join(d, "ir", "**", "graph_build_*.ir"), recursive=True)
        gb = "".join(open(f, encoding="utf-8", errors="replace").read() for f in gb_files)
        va = "".join(open(f, encoding="utf-8", errors="replace").read()
                     for f in glob.glob(os.path.join(d, "ir", "**", "*_validate_*.ir"), recursive=True))
    node_re = re.compile(r"^  %\d+\([^)]*\) = (?:PrimFunc_|S_Prim_|Prim_)?([A-Za-z]\w*)", re.M)
    ops: dict = {}
    for op in node_re.findall(gb):
        if op not in ("Load", "TupleGetItem", "MakeTuple", "UpdateState", "Depend", "call"):
            ops[op] = ops.get(op, 0) + 1
    at: dict = {}
    node = None
    for ln in va.splitlines():
        m = node_re.match(ln)
        if m:
            node = m.group(1)
            continue
        m = re.search(r"# In file (\S+):(\d+)", ln)
        if m and node and m.group(1).endswith(suffix) and int(m.group(2)) in lines:
            at.setdefault(int(m.group(2)), set()).add(node)
    return {"target": name, "fused_kernels": len(re.findall(r"info_name: Fused_", gb)), "kernel_graphs": len(gb_files),
            "switch": va.count("Switch("), "pyexecute": va.count("PyExecute("),
            "inplace": len(re.findall(r"= PrimFunc_Inplace", va)), "kernel_graph_ops": dict(sorted(ops.items())),
            "frontend_ops_at": {f"{suffix}:{k}": sorted(v) for k, v in sorted(at.items())},
            "lines_asked": [f"{suffix}:{ln}" for ln in lines]}

def write_corpus_targets() -> None:
    for name, (pkg, fname, _cls, src) in TARGETS.items():
        folder = CORPORA / pkg
        if not folder.is_dir():
            raise SystemExit(f"{folder} is missing: unpack the {name} wheel there")
        (folder / fname).write_text(src.lstrip(), encoding="utf-8")


def bench_corpus(name: str, python: str, repeat: int) -> dict:
    pkg, fname, cls, _ = TARGETS[name]
    target = f"{CORPORA / pkg / fname}::{cls}"
    cold, cached, plain, compile_s = [], [], [], []
    data = None
    for _ in range(repeat):
        plain.append(_plain_corpus_once(python, name))
        with tempfile.TemporaryDirectory(prefix="verify-bench-") as cache:
            wall, data = _verify_once([target, "--python", python], cache, check=False)
            assert data.get("cached") is False, data
            cold.append(wall)
            compile_s.append((data.get("compile") or {}).get("compile_seconds") or 0.0)
            wall2, data2 = _verify_once([target, "--python", python], cache, check=False)
            assert data2.get("cached") is (data["exit_code"] != 2), data2
            assert data2["exit_code"] == data["exit_code"]
            cached.append(wall2)
    x = data.get("crosscheck") or {}
    return {
        "target": name, "cell": f"{pkg}/{fname}::{cls}", "exit_code": data["exit_code"],
        "errors": data.get("errors"),
        "disagreements": [f"{d.get('code') or d.get('kind')} {os.path.basename(d.get('path') or '')}:{d.get('line')}"
                          for d in x.get("disagreements") or []],
        "confirmed": sum(1 for f in x.get("findings") or [] if f["status"] == "confirmed"),
        "not_compiled": sum(1 for f in x.get("findings") or [] if f["status"] == "not_compiled"),
        "folded": len(data.get("folded") or []),
        "summary": (data.get("ir") or {}).get("summary"), "repeat": repeat,
        "plain_s": round(statistics.median(plain), 3), "cold_s": round(statistics.median(cold), 3),
        "cached_s": round(statistics.median(cached), 3), "compile_s": round(statistics.median(compile_s), 3),
        "cold_ratio": round(statistics.median(cold) / statistics.median(plain), 3),
        "cached_ratio": round(statistics.median(cached) / statistics.median(plain), 3),
        "runs": {"plain": plain, "cold": cold, "cached": cached},
    }


def main_corpora(a) -> int:
    write_corpus_targets()
    _warm_bytecode()
    names = [n.strip() for n in a.targets.split(",") if n.strip()] if a.targets else list(TARGETS)
    if a.bare_ir:
        for n in names:
            print(json.dumps(bare_ir_facts(a.python, n)))
        return 0
    rows = [bench_corpus(n, a.python, a.repeat) for n in names]
    if a.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'target':<12} {'exit':>4} {'plain':>8} {'cold':>8} {'ratio':>6} {'cached':>8} {'ratio':>6}  "
          "fused/unfused/graphs  verdict")
    for r in rows:
        s = r["summary"] or {}
        verdict = "; ".join(r["errors"] or []) or (", ".join(r["disagreements"]) or "agree") + \
            f" ({r['confirmed']} confirmed, {r['not_compiled']} not compiled, {r['folded']} folded branches)"
        print(f"{r['target']:<12} {r['exit_code']:>4} {r['plain_s']:>6.2f} s {r['cold_s']:>6.2f} s "
              f"{r['cold_ratio']:>5.2f}x {r['cached_s']:>6.2f} s {r['cached_ratio']:>5.2f}x  "
              f"{s.get('fused_kernels')}/{s.get('unfused_ops')}/{s.get('kernel_graphs')}  {verdict}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--modes", default="forward,train")
    p.add_argument("--json", action="store_true")
    p.add_argument("--corpora", action="store_true", help="the five model-zoo Cells instead of the reference layer")
    p.add_argument("--targets", default="", help="with --corpora: a comma-separated subset of " + ",".join(TARGETS))
    p.add_argument("--bare-ir", action="store_true",
                   help="with --corpora: an independent reading of each target's IR, to check its verdict")
    p.add_argument("--python", default=str(ROOT / ".bench_cache" / "venv-corpora" / "bin" / "python"),
                   help="with --corpora: the interpreter to compile with")
    a = p.parse_args(argv)
    if a.corpora:
        return main_corpora(a)
    _warm_bytecode()
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

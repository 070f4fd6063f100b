"""Measure the device facts of ``device_facts.json`` with the installed MindSpore (through
the compile child: this module never imports ``mindspore``).

    python -m msgraphlint.verify.measure_facts               # print what was measured
    python -m msgraphlint.verify.measure_facts --write       # record it in device_facts.json
    python -m msgraphlint.verify.measure_facts --python /path/to/other/env/bin/python

One probe Cell holds one op per line, each followed by an elementwise neighbour
(``OP(x) * 1.5``), compiled once with graph-kernel fusion on (``--opt_level=2``): an op the
final kernel graph (``graph_build``) still runs on its own never fuses on this device; an op
found inside a ``Fused_*`` kernel (itself or expanded: ``expand_from``) fuses. Each op of
``KERNEL_PROBES`` is compiled alone: a kernel-select failure ("Unsupported op [X] on CPU")
puts ``X`` in ``no_kernel``. About 15 s per device on a 2-core machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import sys
import tempfile
from typing import Dict, List, Optional, Tuple

from .compile import FUSION_FLAGS, compile_target
from .facts import FACTS_FILE, version_key
from .ir import BOOKKEEPING_OPS, parse_ir_dir

#: (label, expression over x (any float), p (positive), b (a bias of the last dim)).
ELEMENTWISE_PROBES: List[Tuple[str, str]] = [
    ("add", "x + p"), ("sub", "x - p"), ("mul", "x * p"), ("truediv", "x / p"),
    ("ops.div", "ops.div(x, p)"), ("ops.neg", "ops.neg(x)"), ("ops.exp", "ops.exp(x)"),
    ("ops.log", "ops.log(p)"), ("ops.tanh", "ops.tanh(x)"), ("ops.sqrt", "ops.sqrt(p)"),
    ("ops.rsqrt", "ops.rsqrt(p)"), ("ops.abs", "ops.abs(x)"), ("ops.square", "ops.square(x)"),
    ("ops.reciprocal", "ops.reciprocal(p)"), ("ops.maximum", "ops.maximum(x, p)"),
    ("ops.minimum", "ops.minimum(x, p)"), ("pow", "x ** 2"), ("ops.pow", "ops.pow(p, 0.5)"),
    ("astype", "x.astype(ms.int32).astype(ms.float32)"), ("ops.sigmoid", "ops.sigmoid(x)"),
    ("ops.erf", "ops.erf(x)"), ("ops.sin", "ops.sin(x)"), ("ops.cos", "ops.cos(x)"),
    ("ops.relu", "ops.relu(x)"), ("ops.silu", "ops.silu(x)"), ("mint.silu", "mint.nn.functional.silu(x)"),
    ("ops.gelu", "ops.gelu(x)"), ("ops.gelu_tanh", "ops.gelu(x, approximate='tanh')"),
    ("mint.sub", "mint.sub(x, p)"), ("Tensor.add", "x.add(p)"), ("ops.fast_gelu", "ops.fast_gelu(x)"), ("ops.bias_add", "ops.bias_add(x, b)"),
    ("ops.floor", "ops.floor(x)"), ("ops.softplus", "ops.softplus(x)"), ("ops.log1p", "ops.log1p(p)"),
    ("ops.expm1", "ops.expm1(x)"), ("ops.sign", "ops.sign(x)"), ("ops.round", "ops.round(x)"),
    ("ops.clamp", "ops.clamp(x, -1.0, 1.0)"), ("ops.greater", "ops.select(x > p, x, p)"),
    ("mint.add", "mint.add(x, p)"), ("mint.mul", "mint.mul(x, p)"), ("mint.div", "mint.div(x, p)"),
    ("mint.exp", "mint.exp(x)"), ("mint.sigmoid", "mint.sigmoid(x)"), ("mint.gelu", "mint.nn.functional.gelu(x)"),
    ("mint.rsqrt", "mint.rsqrt(p)"), ("mint.erf", "mint.erf(x)"),
]
#: ops compiled alone, to see whether the device has a kernel for them
KERNEL_PROBES: List[Tuple[str, str]] = [
    ("mint.sort", "mint.sort(x, dim=-1)[0]"), ("ops.sort", "ops.sort(x)[0]"), ("mint.topk", "mint.topk(x, 4)[0]"),
    ("mint.cumsum", "mint.cumsum(x, 1)"), ("mint.argsort", "mint.argsort(x).astype(ms.float32)"),
]

_HEADER = """import numpy as np
import mindspore as ms
from mindspore import Tensor, mint, nn, ops


def make_inputs():
    rng = np.random.default_rng(0)
    return (Tensor(rng.standard_normal((4, 32)).astype(np.float32)),
            Tensor(rng.random((4, 32)).astype(np.float32) + 0.5),
            Tensor(rng.standard_normal((32,)).astype(np.float32)))


"""


def probe_module(probes: List[Tuple[str, str]], neighbour: bool = True) -> Tuple[str, Dict[int, str]]:
    """The probe module's text and line -> label."""
    lines = _HEADER.splitlines() + ["class Probe(nn.Cell):", "    def construct(self, x, p, b):"]
    where: Dict[int, str] = {}
    names = []
    for i, (label, expr) in enumerate(probes):
        # each probe reads its own scaled inputs, so no two probes share a node (CSE)
        c = f"{1 + (i + 1) / 1024:.6f}"
        expr = re.sub(r"\b([xp])\b", lambda m: f"({m.group(1)} * {c})", expr) if neighbour else expr
        lines.append(f"        o{i} = ({expr}) * 1.5" if neighbour else f"        o{i} = {expr}")
        where[len(lines)] = label
        names.append(f"o{i}")
    lines.append(f"        return {', '.join(names)}" + ("," if len(names) == 1 else ""))
    return "\n".join(lines) + "\n", where


def _line_of_op(ir_dir: str, path: str, op: str, where: Dict[int, str]) -> Optional[int]:
    """The probe line of ``op`` in the frontend graph: its own, else its consumer's (an op
    that failed kernel selection may print no source line)."""
    comp = parse_ir_dir(ir_dir, path).primary
    if comp.validate is None:
        return None
    nodes = list(comp.validate.all_nodes())
    for node in nodes:
        if node.op != op:
            continue
        if node.line_in(path) in where:
            return node.line_in(path)
        for user in nodes:
            if str(node.index) in user.args and user.line_in(path) in where:
                return user.line_in(path)
    return None


def _unfused_nodes(comp):
    """The graph_build nodes left unfused (with their expand_from/scope, which OpEvent drops)."""
    for gb in comp.graph_build:
        for g in gb.graphs.values():
            if g.fused_name:
                continue
            for node in g.nodes:
                if node.op not in BOOKKEEPING_OPS:
                    yield node


def _origins(node) -> List[str]:
    out = [node.op]
    if node.expand_from:
        out.append(node.expand_from)
    m = re.search(r"(?:^|/)(?:expand_|_)([A-Za-z]\w*)/[^/]+$", node.scope or "")
    if m:  # Default/.../expand_BiasAdd/Add-op0, Expand/_SiLU/Sigmoid-op0
        out.append(m.group(1))
    return out


def _compile_group(probes, python, device, timeout, work):
    """Compile one probe group; ``(status, detail)``: ("ok", per-line facts), ("no_kernel",
    (op, label)), ("crash", message) for a kernel-build crash of graph-kernel fusion."""
    text, where = probe_module(probes)
    path = os.path.join(work, "probe_fusion.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    ir_dir = os.path.join(work, "ir")
    shutil.rmtree(ir_dir, ignore_errors=True)
    out = compile_target({"file": path, "target": "Probe", "inputs": None, "fusion": True, "ir_dir": ir_dir,
                          "compare_pynative": False, "device": device, "python": python}, timeout=timeout)
    if out.get("ok"):
        return "ok", (_read_fusion(ir_dir, path, where), out.get("mindspore_version"))
    error = out.get("error") or ""
    m = _UNSUPPORTED_RE.search(error)
    if m:
        line = next((int(ln) for p_, ln in re.findall(r"In file (.+?):(\d+)", error)
                     if p_ == path and int(ln) in where), None)
        if line is None and os.path.isdir(ir_dir):
            # no frame in the message: the op's line in the frontend graph
            line = _line_of_op(ir_dir, path, m.group(1), where)
        if line is not None:
            return "no_kernel", (m.group(1), where[line])
    if "Response is empty" in error:
        prims = []
        if len(probes) == 1 and os.path.isdir(ir_dir):
            prims = sorted({e.op for e in parse_ir_dir(ir_dir, path).primary.validate_ops
                            if e.line in where and e.op not in BOOKKEEPING_OPS} - {"Mul", "Muls"})
        return "crash", (out.get("error_first_line"), prims)
    raise SystemExit(f"the fusion probe did not compile: {out.get('error_first_line')}\n{error}")


def _read_fusion(ir_dir, path, where):
    comp = parse_ir_dir(ir_dir, path).primary
    prims_at: Dict[int, set] = {}
    nodes = list(comp.validate.all_nodes()) if comp.validate is not None else []
    for node in nodes:
        if node.op in BOOKKEEPING_OPS:
            continue
        line = node.line_in(path)
        if line is None:  # mint.add prints no line: its consumer's
            line = next((u.line_in(path) for u in nodes if str(node.index) in u.args and u.line_in(path)), None)
        if line in where:
            prims_at.setdefault(line, set()).add(node.op)
    unfused = set()
    for node in _unfused_nodes(comp):
        unfused.update(_origins(node))
    fused_origins = set()
    for k in comp.fused:
        for n in k.members:
            fused_origins.update(_origins(n))
    per_probe = {}
    for line, label in sorted(where.items()):
        prims = prims_at.get(line, set())
        if label not in ("mul", "mint.mul"):
            prims = prims - {"Muls", "Mul"}   # the neighbour
        per_probe[label] = {"validate_ops": sorted(prims),
                            "fused": sorted(p for p in prims if p in fused_origins and p not in unfused),
                            "unfused": sorted(p for p in prims if p in unfused)}
    return per_probe


def measure_fusion(python: Optional[str], device: str = "CPU", timeout: float = 600) -> dict:
    """All probes in one Cell; an op without a kernel is dropped and the rest compiled
    again; a kernel-build crash splits the group until the probe that crashes is alone."""
    work = tempfile.mkdtemp(prefix="msgraphlint-facts-")
    no_kernel: Dict[str, str] = {}
    crashes: Dict[str, str] = {}
    per_probe: Dict[str, dict] = {}
    version = None

    def run(probes):
        nonlocal version
        while probes:
            status, detail = _compile_group(probes, python, device, timeout, work)
            if status == "ok":
                per_probe.update(detail[0])
                version = version or detail[1]
                return
            if status == "no_kernel":
                no_kernel[detail[0]] = detail[1]
                probes = [p_ for p_ in probes if p_[0] != detail[1]]
                continue
            if len(probes) == 1:
                for prim in detail[1] or ["?"]:
                    crashes[prim] = f"{probes[0][0]}: {detail[0]}"
                return
            half = len(probes) // 2
            run(probes[:half])
            run(probes[half:])
            return

    try:
        run(list(ELEMENTWISE_PROBES))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    fused = {p for v in per_probe.values() for p in v["fused"]}
    unfused = {p for v in per_probe.values() for p in v["unfused"]}
    return {"fuse": sorted(fused - unfused), "never_fuse": sorted(unfused), "probes": per_probe,
            "no_kernel": no_kernel, "kernel_build_crash": crashes, "mindspore_version": version}


_UNSUPPORTED_RE = re.compile(r"Unsupported op \[(\w+)\] on (\w+)")


def measure_kernels(python: Optional[str], device: str = "CPU", timeout: float = 600) -> dict:
    no_kernel: Dict[str, str] = {}
    have = []
    for label, expr in KERNEL_PROBES:
        work = tempfile.mkdtemp(prefix="msgraphlint-facts-")
        try:
            text, _ = probe_module([(label, expr)], neighbour=False)
            path = os.path.join(work, "probe_kernel.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            out = compile_target({"file": path, "target": "Probe", "inputs": None, "fusion": True,
                                  "compare_pynative": False, "device": device, "python": python}, timeout=timeout)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        m = _UNSUPPORTED_RE.search(out.get("error") or "")
        if m:
            no_kernel[m.group(1)] = label
        elif out.get("ok"):
            have.append(label)
        else:
            print(f"{label}: {out.get('error_type')}: {out.get('error_first_line')}", file=sys.stderr)
    return {"no_kernel": no_kernel, "have_kernel": have}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m msgraphlint.verify.measure_facts")
    ap.add_argument("--python", default=None, help="the interpreter with MindSpore (default: this one)")
    ap.add_argument("--device", default="CPU")
    ap.add_argument("--write", action="store_true", help=f"record the result in {FACTS_FILE}")
    args = ap.parse_args(argv)
    fusion = measure_fusion(args.python, args.device)
    kernels = measure_kernels(args.python, args.device)
    version = fusion["mindspore_version"]
    entry = {
        "source": "measured",
        "how": f"python -m msgraphlint.verify.measure_facts ({datetime.date.today().isoformat()}, "
               f"MindSpore {version}, {args.device}, MS_DEV_GRAPH_KERNEL_FLAGS={FUSION_FLAGS})",
        "fuse": fusion["fuse"], "never_fuse": fusion["never_fuse"],
        "no_kernel": dict(sorted({**fusion["no_kernel"], **kernels["no_kernel"]}.items())),
        "kernel_build_crash": fusion["kernel_build_crash"],
        "probes": fusion["probes"],
    }
    print(json.dumps(entry, indent=1))
    if args.write:
        with open(FACTS_FILE, encoding="utf-8") as f:
            data = json.load(f)
        data["versions"].setdefault(version_key(version), {})[args.device] = entry
        with open(FACTS_FILE, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

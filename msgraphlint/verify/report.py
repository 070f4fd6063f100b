"""The text report of a verify result (``msgraphlint verify``'s default output)."""

from __future__ import annotations

import os
from typing import List

from .crosscheck import DEFAULT_SLACK


def render_text(result: dict, verbose: bool = False) -> str:
    lines: List[str] = []
    c = result["compile"]
    ir = result["ir"] or {}
    s = ir.get("summary") or {}
    lines.append(f"msgraphlint verify {result['target']}  ({result['mode']}, syntax {result['syntax_level']}, "
                 f"inputs {_fmt_inputs(result['inputs'])})")
    timing = []
    if c.get("compile_seconds") is not None:
        timing.append(f"compile {c['compile_seconds']:.1f} s")
    if c.get("call_seconds") is not None:
        timing.append(f"call {c['call_seconds'] * 1000:.1f} ms")
    timing.append(f"{c.get('n_compiles', 0)} compile(s)")
    timing.append("cached" if result["cached"] else "fresh")
    python = result.get("python")
    lines.append(f"MindSpore {result['mindspore_version']}" + (f" ({python})" if python else "")
                 + f" · {result.get('device') or 'CPU'} · fusion {'on' if result.get('fusion', True) else 'off'} · "
                 + " · ".join(timing))
    facts = result.get("device_facts") or {}
    if facts and (facts.get("source") != "measured" or not facts.get("exact")):
        lines.append(f"Device facts: {facts.get('note')}")
    for err in result["errors"]:
        lines.append(f"ERROR: {err}")
    if not c.get("ok") and not result.get("not_the_code"):
        lines.append(f"Compile failed ({c.get('error_type')}): {c.get('error_first_line')}")
    if ir:
        lines.append("")
        lines.append(f"Fusion: {s.get('fused_kernels', 0)} fused kernels ({s.get('fused_ops', 0)} ops), "
                     f"{s.get('unfused_ops', 0)} ops unfused, {s.get('kernel_graphs', 0)} kernel graph(s), "
                     f"{s.get('fallback_nodes', 0)} fallback node(s)"
                     + (", dynamic shape" if s.get("dynamic_shape") else ""))
        for k in ir.get("fused", []):
            ops = " ".join(k["ops"]) if len(k["ops"]) <= 6 else " ".join(k["ops"][:6]) + f" … ({len(k['ops'])} ops)"
            where = _fmt_sites(k.get("sites"), result.get("file")) if k.get("sites") else _fmt_lines(k["lines"])
            lines.append(f"  fused    {k['kind']:<40} lines {where:<12} {ops}")
        for e in ir.get("unfused", []):
            lines.append(f"  unfused  {e['op']:<40} line  {_fmt_lines([e['line']] if e['line'] else []):<12} {e['scope']}")
        if ir.get("fallbacks"):
            lines.append("Fallback nodes:")
            for e in ir["fallbacks"]:
                lines.append(f"  {e['op']:<12} line {e['line'] if e['line'] else '?'}")
    if len(c.get("shape_runs") or []) or result["shapes"]:
        lines.append("")
        runs = c.get("shape_runs") or []
        lines.append(f"Recompiles: {c.get('n_compiles', 0)} compile(s) for {1 + len(runs)} input set(s)")
        lines.append(f"  first    {_fmt_shapes(c.get('input_shapes'))}")
        for r in runs:
            lines.append(f"  {('compile' if r['new_compiles'] else 'reuse'):<8} {_fmt_shapes(r.get('input_shapes'))} "
                         f"({r['seconds']:.2f} s)")
    d = result.get("dynamic_cost")
    if d and d.get("skipped"):
        lines.append(f"  set_inputs cost not measured: {d['skipped']}")
    elif d:
        if d["ok"]:
            lines.append(f"  set_inputs with dynamic dims {d['dynamic_inputs']}: {d['compiles']} compile(s), "
                         f"{d['dynamic']['fused_kernels']} fused kernels (static: {d['static']['fused_kernels']}), "
                         f"{d['dynamic']['unfused_ops']} unfused ops (static: {d['static']['unfused_ops']}), "
                         f"call {_ms(d['dynamic']['call_seconds'])} (static: {_ms(d['static']['call_seconds'])})")
        else:
            lines.append(f"  set_inputs with dynamic dims: compile failed: {d['error']}")
    if c.get("pynative_equal") is not None:
        m = c.get("inputs_mutated") or {}
        lines.append("")
        lines.append(f"PyNative: outputs {'equal' if c['pynative_equal'] else 'DIFFER'} "
                     f"(max |diff| {_g(c.get('max_abs_diff'))}); inputs mutated: graph "
                     f"{_yn(m.get('graph'))}, PyNative {_yn(m.get('pynative'))}")
    if result.get("folded"):
        lines.append("Folded away by the compiler (not compiled): "
                     + ", ".join(f"{_where(p, a, result.get('file'))}-{b}" for p, a, b in result["folded"]))
    if not c.get("ok") and result.get("compiled_before_failure") is not None:
        got = result["compiled_before_failure"]
        lines.append("Compiled before the failure: " + (", ".join(got) if got else "nothing"))
    x = result.get("crosscheck") or {}
    lines.append("")
    if result.get("static") is None:
        lines.append("Static findings: not available (static check skipped or failed)")
    lines.append(f"Agreement (static findings vs IR, ±{x.get('slack', DEFAULT_SLACK)} line):")
    if not x.get("findings"):
        lines.append("  no static findings")
    target_file = result.get("file")
    for r in x.get("findings", []):
        ev = "; ".join(r["evidence"]) if r["evidence"] else "-"
        where = _where(r.get("path"), r["line"], target_file)
        lines.append(f"  {where:>5}  {r['code']:<7} {r['status']:<14} {r['message'][:60]}")
        if r["status"] in ("confirmed", "not_confirmed"):
            lines.append(f"         evidence: {ev}")
    lines.append("IR events:")
    if not x.get("events"):
        lines.append("  none")
    for e in x.get("events", []):
        where = _where(e.get("path"), e["line"], target_file) if e["line"] is not None else "-"
        if e["status"] == "explained":
            why = "by " + ", ".join(e["explained_by"]) + (", matched without a line" if e.get("without_line") else "")
        elif e["status"] == "knock_on":
            why = f"follows from {e['caused_by']}"
        elif e["status"] == "expected":
            why = e["expected"]
        else:
            why = "no static finding explains it"
        lines.append(f"  {where:>5}  {e['kind']:<20} {e['status']:<12} {' '.join(sorted(set(e['ops'])))} "
                     f"{e['detail']}".rstrip() + f"  [{why}]")
    dis = x.get("disagreements") or []
    lines.append(f"Disagreements: {len(dis) if dis else 'none'}")
    for d in dis:
        if d["type"] == "finding_not_confirmed":
            where = _where(d.get("path"), d["line"], target_file)
            lines.append(f"  {d['code']} at {_at(where)}: the IR shows no effect there ({d['message'][:60]})")
        else:
            where = _where(d.get("path"), d["line"], target_file) if d["line"] is not None else "?"
            lines.append(f"  {d['kind']} at {_at(where)}: no static finding explains it")
    lines.append(f"({result['seconds']:.2f} s)")
    return "\n".join(lines)


def _fmt_inputs(inputs) -> str:
    if isinstance(inputs, list):
        return ", ".join(inputs)
    if isinstance(inputs, dict):
        return "make_inputs(" + ", ".join(f"{k}={v}" for k, v in inputs.items()) + ")"
    return str(inputs)


def _fmt_lines(lines) -> str:
    return ",".join(str(x) for x in lines) if lines else "?"


def _fmt_sites(sites, target_file) -> str:
    """``12,13`` in the target's file, ``model.py:12,13 blocks.py:4`` when other files contribute."""
    by_file: dict = {}
    for path, line in sites:
        by_file.setdefault(path, []).append(line)
    if len(by_file) == 1 and target_file and os.path.abspath(next(iter(by_file))) == os.path.abspath(target_file):
        return _fmt_lines(sorted(next(iter(by_file.values()))))
    return " ".join(f"{os.path.basename(p)}:{_fmt_lines(sorted(ls))}" for p, ls in by_file.items())


def _fmt_shapes(shapes) -> str:
    if not shapes:
        return "?"
    return ", ".join("x".join(str(d) for d in s) if isinstance(s, list) else str(s) for s in shapes)


def _ms(seconds) -> str:
    return f"{seconds * 1000:.1f} ms" if isinstance(seconds, (int, float)) else "?"


def _g(v) -> str:
    return f"{v:.2g}" if isinstance(v, (int, float)) else "?"


def _yn(v) -> str:
    return "?" if v is None else ("yes" if v else "no")




def _where(path, line, target_file) -> str:
    """``12`` in the target's file, ``blocks.py:14`` in another."""
    if path and target_file and os.path.abspath(path) != os.path.abspath(target_file):
        return f"{os.path.relpath(os.path.abspath(path))}:{line}"
    return str(line)


def _at(where: str) -> str:
    return where if ":" in where else f"line {where}"

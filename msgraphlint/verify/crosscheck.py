"""Static findings vs the compiled graph: which findings the IR confirms, and which IR
events a finding explains. Pure data in, data out (no MindSpore, no I/O).

Inputs are the compile child's OUT dict, the parsed IR as ``IRReport.to_dict()`` (so a
cached verify result can be cross-checked again against fresh static findings) and the
static findings for the target's file. The rules of the match live in ``evidence.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from . import evidence
from .ir import error_locations, match_line

DEFAULT_SLACK = 1


@dataclass
class IREvent:
    kind: str
    line: Optional[int]
    ops: List[str] = field(default_factory=list)
    count: int = 1
    detail: str = ""
    lines: List[int] = field(default_factory=list)   # other candidate lines (compile errors)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "line": self.line, "ops": self.ops, "count": self.count,
                "detail": self.detail, "lines": self.lines,
                "what": evidence.EVENT_KINDS[self.kind]["what"]}

    def label(self) -> str:
        where = f"line {self.line}" if self.line is not None else "no line"
        ops = ", ".join(sorted(set(self.ops))) if self.ops else ""
        count = f" x{self.count}" if self.count > 1 else ""
        text = f"{self.kind}{count} ({ops}) at {where}" if ops else f"{self.kind}{count} at {where}"
        return text + (f": {self.detail}" if self.detail else "")


def extract_events(out: dict, ir: Optional[dict], source_path: Optional[str] = None,
                   dynamic_out: Optional[dict] = None) -> List[IREvent]:
    """The IR events of one verify run (see ``evidence.EVENT_KINDS``)."""
    events: Dict[tuple, IREvent] = {}

    def add(kind, line, op=None, detail="", lines=None):
        key = (kind, line)
        ev = events.get(key)
        if ev is None:
            ev = events[key] = IREvent(kind=kind, line=line, detail=detail, count=0)
            if lines:
                ev.lines = list(lines)
        ev.count += 1
        if op:
            ev.ops.append(op)

    if not out.get("ok"):
        stage = out.get("stage")
        if stage in ("compile", "shapes", "build", None) or out.get("error_type") not in (
                "CompileTimeout", "ChildCrashed", "MindSporeMissing", "ChildStartError"):
            locs = [ln for _, ln in error_locations(out.get("error") or "", source_path)]
            # the first location is the one MindSpore's message names; the rest is the trace
            add("compile_error", locs[0] if locs else None, detail=out.get("error_first_line") or "",
                lines=locs)
    if ir:
        summary = ir.get("summary", {})
        dynamic = bool(summary.get("dynamic_shape"))
        n_lost = 0
        host_sync = []
        for e in ir.get("unfused", []):
            kind = evidence.op_kind(e["op"])
            if kind == "unfused_elementwise" and dynamic:
                n_lost += 1  # a consequence of the dynamic shape, counted there
                continue
            if kind == "host_sync":
                host_sync.append(e)
            elif kind:
                add(kind, e.get("line"), e["op"])
        if host_sync:
            # one round trip: TensorToScalar (often no line) -> scalar math -> ScalarToTensor
            lines = sorted({e["line"] for e in host_sync if e.get("line") is not None})
            ev = IREvent(kind="host_sync", line=lines[0] if lines else None,
                         ops=[e["op"] for e in host_sync], count=len(host_sync), lines=lines)
            events[("host_sync", ev.line)] = ev
        for e in ir.get("fallbacks", []):
            add("fallback", e.get("line"), e["op"])
        cf_lines = [e.get("line") for e in ir.get("control_flow", [])]
        for e in ir.get("control_flow", []):
            add("control_flow", e.get("line"), e["op"],
                detail=f"{summary.get('kernel_graphs', 0)} kernel graphs")
        if summary.get("kernel_graphs", 0) > 1 and not cf_lines and not ir.get("fallbacks"):
            add("control_flow", None, detail=f"{summary['kernel_graphs']} kernel graphs")
        for op, line in ir.get("validate_ops", []):
            if op in evidence.EVENT_KINDS["data_dependent_shape"]["ops"] and \
                    ("data_dependent_shape", line) not in events:
                add("data_dependent_shape", line, op)
        if summary.get("dynamic_shape") and not any(k[0] in ("data_dependent_shape", "fallback")
                                                   for k in events):
            first = ir.get("first_dynamic") or {}
            detail = f"{summary.get('fused_kernels', 0)} fused kernels, {n_lost} elementwise ops unfused"
            if out.get("dynamic"):
                detail += " (inputs declared dynamic with set_inputs)"
            add("dynamic_shape", None, first.get("op"), detail=detail)
    # recompiles for inputs whose tensor shapes did not change
    seen = []
    first_shapes = _tensor_signature(out.get("input_shapes"))
    if first_shapes is not None:
        seen.append(first_shapes)
    for run in out.get("shape_runs") or []:
        sig = _tensor_signature(run.get("input_shapes"))
        if run.get("new_compiles", 0) > 0 and sig is not None and sig in seen:
            add("recompile", None, detail=f"new compile for {run.get('inputs')} with unchanged tensor shapes")
        if sig is not None and sig not in seen:
            seen.append(sig)
    mutated = out.get("inputs_mutated") or {}
    if mutated.get("graph") is not None and mutated.get("pynative") is not None and \
            mutated["graph"] != mutated["pynative"]:
        who = "graph mode" if mutated["graph"] else "PyNative"
        add("mutation_divergence", None, detail=f"only {who} mutates the caller's inputs")
    if out.get("pynative_equal") is False:
        add("numeric_divergence", None, detail=f"max |diff| {out.get('max_abs_diff')}")
    return list(events.values())


def _tensor_signature(shapes):
    if shapes is None:
        return None
    return tuple(tuple(s) if isinstance(s, list) else ("py",) for s in shapes)


def _reached(finding, ranges: Sequence[Sequence[int]]) -> bool:
    if not ranges:
        return True  # unknown: assume reached
    return any(a <= finding.line <= b for a, b in ranges)


def _near(event: IREvent, finding, slack: int) -> bool:
    if event.line is None and not event.lines:
        return True  # an unlocated effect: any finding of the family explains it
    candidates = [event.line] + list(event.lines)
    return any(match_line(ln, finding.line, slack, getattr(finding, "end_line", None))
               for ln in candidates if ln is not None)


def crosscheck(findings: Sequence, events: Sequence[IREvent], ir: Optional[dict] = None,
               slack: int = DEFAULT_SLACK) -> dict:
    """Returns ``{"findings": [...], "events": [...], "disagreements": [...], "agree": bool}``."""
    ranges = (ir or {}).get("compiled_ranges") or []
    rows = []
    used = set()
    for f in findings:
        kinds = evidence.confirming_kinds(f.code)
        row = {"code": f.code, "name": getattr(f, "name", ""), "line": f.line,
               "message": f.message, "evidence": [], "status": ""}
        if not kinds:
            row["status"] = "not_checkable"
        else:
            for i, ev in enumerate(events):
                if ev.kind in kinds and _near(ev, f, slack):
                    row["evidence"].append(ev.label())
                    used.add(i)
            if row["evidence"]:
                row["status"] = "confirmed"
            elif ranges and not _reached(f, ranges):
                row["status"] = "not_compiled"
            else:
                row["status"] = "not_confirmed"
        rows.append(row)
    ev_rows = []
    for ev in events:
        fams = evidence.explaining_families(ev.kind)
        explained_by = [f"{f.code}@{f.line}" for f in findings
                        if evidence.family_of(f.code) in fams and _near(ev, f, slack)]
        d = ev.to_dict()
        d["explained_by"] = explained_by
        d["status"] = "explained" if explained_by else "unexplained"
        ev_rows.append(d)
    disagreements = [
        {"type": "finding_not_confirmed", "code": r["code"], "line": r["line"], "message": r["message"]}
        for r in rows if r["status"] == "not_confirmed"
    ] + [
        {"type": "event_unexplained", "kind": e["kind"], "line": e["line"], "ops": e["ops"],
         "detail": e["detail"]}
        for e in ev_rows if e["status"] == "unexplained"
    ]
    return {"findings": rows, "events": ev_rows, "disagreements": disagreements,
            "agree": not disagreements, "slack": slack}

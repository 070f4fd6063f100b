"""Static findings vs the compiled graph: which findings the IR confirms, and which IR
events a finding explains. Pure data in, data out (no MindSpore, no I/O).

Inputs are the compile child's OUT dict, the parsed IR as ``IRReport.to_dict()`` (so a
cached verify result can be cross-checked again against fresh static findings), the
static findings of the files the target compiles, and what the compile reached
(``reach.Reach``: spans of the compiled code, and the native ops called there). The rules
of the match live in ``evidence.py``:

* Only a finding inside the compiled code can be confirmed, or explain an event; the others
  are ``not_compiled``. After a compile, the compiled code is what the IR shows: the
  functions whose ``def`` frames it prints or whose lines its ops carry, less the branches
  the compiler folded away (``reach.folded_branches``: a config-string ``if``); when the
  IR says nothing (a failed compile), the spans of ``reach``.
* An event with source lines matches a finding of a family that explains its kind, in the
  same file within ``slack`` lines of one of its lines (the op's own line or a call that
  led to it).
* An event without a line matches only a finding whose code predicts exactly that kind
  (``evidence.UNLOCATED``); the match is marked ``without_line``.
* An event no finding explains is ``expected`` when it is a native op a rule recommends
  (``evidence.EXPECTED_NATIVE``), ``knock_on`` when it follows an earlier event that causes
  it (``evidence.KNOCK_ON``), else ``unexplained`` (a disagreement).
* When the compile failed, a finding that the compile error does not confirm is
  ``not_reached`` (nothing after the failure was compiled), not a disagreement. A compile
  error is located at its innermost frame in project code (the statement that failed, not
  the driver's call of the sub-Cell that holds it) and confirms only a finding there.
* In-place findings (``evidence.CODES``) are settled by the in-place op the validate stage
  locates at their statement (``inplace_write``), never by line-less copies or mutations.
* Unfused ops are judged by the device's facts (``facts.lookup``): an op that never fuses on
  the device is no loss.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import evidence
from .ir import error_locations, is_library_path, match_line, same_file


DEFAULT_SLACK = 1
#: an in-place op whose innermost frame is a library's (``ops.assign``, a Cell's own state)
LIBRARY_INPLACE = "inside a library call at this line"


@dataclass
class IREvent:
    kind: str
    line: Optional[int]
    ops: List[str] = field(default_factory=list)
    count: int = 1
    detail: str = ""
    lines: List[int] = field(default_factory=list)   # other candidate lines (in ``path``)
    path: Optional[str] = None
    sites: List[Tuple[str, int]] = field(default_factory=list)  # every (path, line) it may come from

    @property
    def located(self) -> bool:
        return self.line is not None or bool(self.sites)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "line": self.line, "path": self.path, "ops": self.ops, "count": self.count,
                "detail": self.detail, "lines": self.lines, "sites": [list(s) for s in self.sites],
                "what": evidence.EVENT_KINDS[self.kind]["what"]}

    def label(self) -> str:
        where = f"line {self.line}" if self.line is not None else "no line"
        ops = ", ".join(sorted(set(self.ops))) if self.ops else ""
        count = f" x{self.count}" if self.count > 1 else ""
        text = f"{self.kind}{count} ({ops}) at {where}" if ops else f"{self.kind}{count} at {where}"
        return text + (f": {self.detail}" if self.detail else "")


def _abs(path: Optional[str]) -> Optional[str]:
    return os.path.abspath(path) if path and not path.startswith("<") else path


def _same(a: Optional[str], b: Optional[str]) -> bool:
    return bool(a and b) and same_file(_abs(a), _abs(b))


def extract_events(out: dict, ir: Optional[dict], source_path: Optional[str] = None,
                   dynamic_out: Optional[dict] = None, facts=None) -> List[IREvent]:
    """The IR events of one verify run (see ``evidence.EVENT_KINDS``); ``facts``: the
    device's (``facts.lookup``; default MindSpore 2.10 on CPU)."""
    events: Dict[tuple, IREvent] = {}

    def add(kind, line, op=None, detail="", lines=None, path=None, sites=None, key=None):
        key = key or (kind, path, line)
        ev = events.get(key)
        if ev is None:
            ev = events[key] = IREvent(kind=kind, line=line, detail=detail, count=0, path=path)
            if lines:
                ev.lines = list(lines)
        ev.count += 1
        if op:
            ev.ops.append(op)
        for s in sites or ([(path, line)] if path and line is not None else []):
            s = (s[0], s[1])
            if s not in ev.sites:
                ev.sites.append(s)
        return ev

    def add_op(kind, e, op=None):
        sites = [tuple(s) for s in e.get("sites") or []]
        path = e.get("path") if e.get("line") is not None else None
        if e.get("line") is None and kind == "side_effect":
            return add(kind, None, op, key=(kind, None, None, op))  # one event per op kind
        return add(kind, e.get("line"), op, path=path, sites=sites)

    if not out.get("ok"):
        stage = out.get("stage")
        if stage in ("compile", "shapes", "build", None) or out.get("error_type") not in (
                "CompileTimeout", "ChildCrashed", "MindSporeMissing", "ChildStartError"):
            locs = error_locations(out.get("error") or "", None)
            project = [(p, ln) for p, ln in locs if not is_library_path(p)]
            if not project and ir and ir.get("analyze_fail_sites"):
                project = [tuple(s) for s in ir["analyze_fail_sites"]]
                where = "analyze_fail.ir"
            else:
                where = "the error message"
            # the failing statement: the innermost frame in project code; the frames outside
            # it (the driver's call of the sub-Cell) are where it was called from, and confirm
            # nothing
            first = project[0] if project else None
            detail = out.get("error_first_line") or ""
            if first is not None:
                detail += f" (raised at {_short_site(first)}"
                callers = [s for s in project[1:] if where == "the error message"]
                if callers:
                    detail += ", called from " + " <- ".join(_short_site(c) for c in callers[:3])
                detail += ")" if where == "the error message" else "; located by analyze_fail.ir)"
            add("compile_error", first[1] if first else None, detail=detail,
                lines=[first[1]] if first and (source_path is None or _same(first[0], source_path)) else [],
                path=first[0] if first else None, sites=[first] if first else [])
    if ir:
        summary = ir.get("summary", {})
        dynamic = bool(summary.get("dynamic_shape"))
        n_lost = 0
        host_sync = []
        for e in ir.get("unfused", []):
            kind = evidence.op_kind(e["op"], facts)
            if kind == "unfused_elementwise" and dynamic:
                n_lost += 1  # a consequence of the dynamic shape, counted there
                continue
            if kind == "host_sync":
                host_sync.append(e)
            elif kind:
                add_op(kind, e, e["op"])
        if host_sync:
            # one round trip: TensorToScalar (often no line) -> scalar math -> ScalarToTensor
            located = [e for e in host_sync if e.get("line") is not None]
            lines = sorted({e["line"] for e in located})
            sites = []
            for e in located:
                for s in e.get("sites") or [[e.get("path"), e["line"]]]:
                    if tuple(s) not in sites and s[0]:
                        sites.append(tuple(s))
            first = min(located, key=lambda e: e["line"]) if located else None
            ev = IREvent(kind="host_sync", line=first["line"] if first else None,
                         path=first.get("path") if first else None,
                         ops=[e["op"] for e in host_sync], count=len(host_sync), lines=lines, sites=sites)
            events[("host_sync", ev.path, ev.line)] = ev
        for e in ir.get("fallbacks", []):
            add_op("fallback", e, e["op"])
        cf = ir.get("control_flow", [])
        for e in cf:
            ev = add_op("control_flow", e, e["op"])
            ev.detail = f"{summary.get('kernel_graphs', 0)} kernel graphs"
        if summary.get("kernel_graphs", 0) > 1 and not cf and not ir.get("fallbacks"):
            add("control_flow", None, detail=f"{summary['kernel_graphs']} kernel graphs")
        for item in ir.get("validate_ops", []):
            op, line = item[0], item[1]
            path = item[2] if len(item) > 2 else None
            if op in evidence.EVENT_KINDS["data_dependent_shape"]["ops"] and \
                    not any(k[0] == "data_dependent_shape" and k[2] == line for k in events):
                add("data_dependent_shape", line, op, path=path)
            if evidence.is_inplace_op(op) and line is not None and path:
                ev = add("inplace_write", line, op, path=path)
                own = item[3] if len(item) > 3 else True
                if not own:
                    ev.detail = LIBRARY_INPLACE
        if dynamic:
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


def _short_site(site) -> str:
    path, line = site
    return f"{os.path.basename(path)}:{line}" if path else str(line)


def _tensor_signature(shapes):
    if shapes is None:
        return None
    return tuple(tuple(s) if isinstance(s, list) else ("py",) for s in shapes)


# ----------------------------------------------------------------------------- matching


def _finding_path(f) -> Optional[str]:
    return _abs(getattr(f, "path", None))


def _in_ranges(path: Optional[str], line: int, ranges) -> bool:
    for r in ranges:
        if len(r) == 2:  # old cache entries: (start, end) in the target file
            if r[0] <= line <= r[1]:
                return True
        elif _same(r[0], path) and r[1] <= line <= r[2]:
            return True
    return False


def _covered(path: Optional[str], line: int, covered: Dict[str, list]) -> bool:
    return any(_same(p, path) and line in lines for p, lines in covered.items())


def compiled(f, reached, ranges, *, ir_decides: bool = False, folded=(), covered=None) -> Optional[bool]:
    """Whether finding ``f`` lies in the compiled code; None when nothing says.
    ``ir_decides``: the compile succeeded and its IR names the compiled functions
    (``ranges``): they, and lines its ops carry (``covered``: inlined helpers print no def
    frame), are the compiled code, less the ``folded`` branches; the static reach does not
    count then (a class or method it reaches need not be compiled)."""
    path = _finding_path(f)
    if any(_same(p, path) and a <= f.line <= b for p, a, b in folded):
        return False
    if ir_decides:
        return bool(_in_ranges(path, f.line, ranges) or _covered(path, f.line, covered or {})
                    or (reached is not None and getattr(reached, "in_init", None) and reached.in_init(path, f.line)))
    if reached is not None and reached.contains(path, f.line):
        return True
    if ranges and _in_ranges(path, f.line, ranges):
        return True
    if reached is None and not ranges:
        return None
    return False


def _near(event: IREvent, f, slack: int) -> bool:
    slack = evidence.slack_for(event.kind, slack)
    end = getattr(f, "end_line", None)
    fpath = _finding_path(f)
    sites = list(event.sites)
    if not sites and event.line is not None:
        sites = [(event.path, event.line)] + [(event.path, ln) for ln in event.lines]
    for path, line in sites:
        if path is not None and fpath is not None and not _same(path, fpath):
            continue
        if match_line(line, f.line, slack, end):
            return True
    return False


def _matches(event: IREvent, f, slack: int) -> Optional[str]:
    """'line' | 'without_line' | None: how finding ``f`` explains ``event``."""
    if event.located:
        if evidence.family_of(f.code) in evidence.explaining_families(event.kind) and _near(event, f, slack):
            return "line"
        return None
    if evidence.predicts_unlocated(f.code, event.kind, event.ops):
        return "without_line"
    return None


def _in_folded(f, folded) -> bool:
    path = _finding_path(f)
    return any(_same(p, path) and a <= f.line <= b for p, a, b in folded)


def _native_expected(event: IREvent, reached, slack: int) -> Optional[str]:
    """Why ``event`` is an expected native op (``ops.print_``...), or None."""
    if reached is None or event.kind not in ("side_effect", "inplace_write") or not event.ops or not reached.natives:
        return None
    calls = reached.natives
    for op in set(event.ops):
        if op not in evidence.EXPECTED_NATIVE:
            return None
        if event.located:
            hit = any(op in calls.get((_abs(p), ln + d), []) for p, ln in (event.sites or [(event.path, event.line)])
                      if p for d in range(-slack, slack + 1))
        else:
            hit = any(op in ops for ops in calls.values())
        if not hit:
            return None
    where = sorted({f"{os.path.basename(p)}:{ln}" for (p, ln), ops in calls.items() if set(ops) & set(event.ops)})
    return "native op the rules recommend (" + ", ".join(where[:3]) + ")"


def _cause(event: IREvent, events: Sequence[IREvent]) -> Optional[IREvent]:
    """The earlier event that ``event`` follows from (``evidence.KNOCK_ON``): the nearest
    located one at or before its line in the same file, else one without a line, else one
    in another file (the call order between files is not known)."""
    kinds = evidence.KNOCK_ON.get(event.kind, [])

    def may_cause(c) -> bool:
        allowed = evidence.KNOCK_ON_OPS.get((event.kind, c.kind))
        return allowed is None or (bool(event.ops) and set(event.ops) <= allowed) or \
            (c.kind == "side_effect" and set(c.ops) <= allowed)

    causes = [c for c in events if c is not event and c.kind in kinds and may_cause(c)]
    same_file = [c for c in causes if c.line is not None and event.line is not None
                 and (not c.path or not event.path or _same(c.path, event.path)) and c.line <= event.line]
    if same_file:
        return max(same_file, key=lambda c: c.line)
    if event.line is None and causes:
        return causes[0]
    unlocated = [c for c in causes if c.line is None]
    if unlocated:
        return unlocated[0]
    other_file = [c for c in causes if c.path and event.path and not _same(c.path, event.path)]
    return other_file[0] if other_file else None


def crosscheck(findings: Sequence, events: Sequence[IREvent], ir: Optional[dict] = None,
               slack: int = DEFAULT_SLACK, reached=None, compile_ok: bool = True, folded=()) -> dict:
    """Returns ``{"findings": [...], "events": [...], "disagreements": [...], "agree": bool}``.
    ``folded``: ``(path, start, end)`` of branches the compiler folded away."""
    ranges = (ir or {}).get("compiled_ranges") or []
    covered = (ir or {}).get("covered_lines") or {}
    ir_decides = bool(compile_ok and ir and ranges and [r for r in ranges if len(r) == 3])
    in_code = [compiled(f, reached, ranges, ir_decides=ir_decides, folded=folded, covered=covered)
               for f in findings]
    # an op of the graph at the finding's line proves the line was compiled (inlined helpers
    # print no def frame)
    in_code = [True if inside is False and not _in_folded(f, folded)
               and any(ev.located and _matches(ev, f, slack) for ev in events) else inside
               for f, inside in zip(findings, in_code)]
    rows = []
    for f, inside in zip(findings, in_code):
        kinds = evidence.confirming_kinds(f.code)
        row = {"code": f.code, "name": getattr(f, "name", ""), "line": f.line, "path": getattr(f, "path", None),
               "message": f.message, "evidence": [], "status": "", "without_line": False}
        if inside is False:
            row["status"] = "not_compiled"
        elif not kinds:
            row["status"] = "not_checkable"
        else:
            for ev in events:
                if ev.kind not in kinds:
                    continue
                how = _matches(ev, f, slack)
                if how == "without_line" and evidence.located_only(f.code):
                    continue  # an in-place write is settled at its own statement
                if how:
                    row["evidence"].append(ev.label() + (" (matched without a line)" if how == "without_line" else ""))
                    row["without_line"] = row["without_line"] or how == "without_line"
            if row["evidence"]:
                row["status"] = "confirmed"
            elif not compile_ok:
                row["status"] = "not_reached"
            else:
                row["status"] = "not_confirmed"
        rows.append(row)
    ev_rows = []
    by_event: Dict[int, dict] = {}
    for i, ev in enumerate(events):
        explained_by, without = [], False
        for f, inside in zip(findings, in_code):
            if inside is False:
                continue
            how = _matches(ev, f, slack)
            if how:
                explained_by.append(f"{f.code}@{_short(f)}")
                without = without or how == "without_line"
        d = ev.to_dict()
        d.update(explained_by=explained_by, without_line=without, caused_by=None, expected=None)
        d["status"] = "explained" if explained_by else ""
        by_event[i] = d
        ev_rows.append(d)
    for i, ev in enumerate(events):
        d = by_event[i]
        if d["status"]:
            continue
        why = _native_expected(ev, reached, slack)
        if not why and ev.kind == "inplace_write" and ev.detail == LIBRARY_INPLACE:
            why = "in-place op inside a MindSpore function or Cell called there (its own state), not the code's"
        if why:
            d["status"], d["expected"] = "expected", why
            continue
        cause = _cause(ev, events)
        if cause is not None:
            d["status"], d["caused_by"] = "knock_on", cause.label()
            continue
        d["status"] = "unexplained"
    disagreements = [
        {"type": "finding_not_confirmed", "code": r["code"], "line": r["line"], "path": r["path"],
         "message": r["message"]}
        for r in rows if r["status"] == "not_confirmed"
    ] + [
        {"type": "event_unexplained", "kind": e["kind"], "line": e["line"], "path": e["path"], "ops": e["ops"],
         "detail": e["detail"]}
        for e in ev_rows if e["status"] == "unexplained"
    ]
    return {"findings": rows, "events": ev_rows, "disagreements": disagreements,
            "agree": not disagreements, "slack": slack}


def _short(f) -> str:
    path = getattr(f, "path", None)
    return f"{os.path.basename(path)}:{f.line}" if path and not path.startswith("<") else str(f.line)

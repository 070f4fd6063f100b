"""Pure-Python parser of the graph IR that MindSpore saves (no ``mindspore`` import).

Reads the three dumps a compile writes with
``MS_DEV_DUMP_IR_PASSES=validate,graph_build,hwopt_common_final`` (see
``shared/docs/MINDSPORE_FACTS.md``):

``<NN>_validate_<seq>.ir``
    the last frontend graph, one per compile. Source lines are most accurate here:
    per-op source lines and interpreter-fallback nodes are read from it.
``hwopt_common_final_graph_<graphid>_<seq>.ir``
    the kernel graph just before graph-kernel fusion. Expanded ops (BiasAdd -> Add,
    GeLU -> Mul/Tanh...) lose their ``# In file`` line in ``graph_build``; it is
    recovered here (scope ``expand_<Op>``, the ``expand_from`` attribute, and the data flow
    from the fused kernel's inputs).
``graph_build_<graphid>_<seq>.ir``
    the final kernel graph: fused kernels (subgraphs with ``info_name: Fused_...``) and the
    ops left unfused. Control flow makes several kernel graphs per compile.

``<seq>`` is a process-wide counter, so files are grouped into compiles by it: the files
of compile *i* have a sequence number between the *i*-th and the next validate file's.

Source lines are imperfect: each node carries a call stack of ``# In file PATH:LINE``
frames (outermost first); a node's line in a given file is its innermost frame in that
file, and matching against a finding allows ``slack`` lines (about one statement).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

#: ops that move data around the graph without computing anything
BOOKKEEPING_OPS = frozenset({
    "Load", "TupleGetItem", "MakeTuple", "UpdateState", "Depend", "Return", "call",
    "RealTupleGetItem", "ListGetItem", "MakeList", "Partial", "StopGradient",
})
#: interpreter fallback
FALLBACK_OPS = frozenset({"PyExecute", "PyInterpret"})
#: control flow in the frontend graph
CONTROL_FLOW_OPS = frozenset({"Switch", "SwitchLayer", "Switch_"})

_OP_PREFIXES = ("PrimFunc_", "S_Prim_", "Prim_", "DeprecatedPrim_")
_NODE_RE = re.compile(r"^  %(\d+)\(([^)]*)\) = (.*)$")
_FRAME_RE = re.compile(r"# In file (.+?):(\d+)(?:~(\d+))?, (\d+)~(\d+)/(.*)/\s*$")
_SCOPE_RE = re.compile(r"# (?:Fullname with scope|Scope): \((.*)\)\s*$")
_SUBGRAPH_RE = re.compile(r"^subgraph @([^\s(]+)\(")
_EXPAND_RE = re.compile(r'expand_from: "([^"]+)"')
_ARG_RE = re.compile(r"%(para\d+_[\w.]+|\d+)")
_SEQ_RE = re.compile(r"_(\d+)\.ir$")
_GRAPHID_RE = re.compile(r"(?:graph_build|hwopt_common_final_graph)_(\d+)_(\d+)\.ir$")
PARSER_VERSION = 5

_LIB_MARKERS = (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep,
                os.sep + "lib" + os.sep + "python")


@dataclass(frozen=True)
class SourceFrame:
    """One ``# In file`` frame: a statement/expression (line == end_line) or a function
    definition range (the enclosing ``def``)."""

    path: str
    line: int
    end_line: int
    col: int
    end_col: int
    text: str

    @property
    def is_def(self) -> bool:
        return self.end_line != self.line

    @property
    def is_function(self) -> bool:
        """A function definition's range (a multi-line ``if``/``for`` statement is not)."""
        return self.is_def and self.text.lstrip().startswith(("def ", "async def ", "class ", "@"))

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "end_line": self.end_line, "text": self.text}


_CALLED_API = tuple(os.sep + os.path.join("mindspore", d) + os.sep for d in ("ops", "common", "_extends"))


def is_own_op(frames: Sequence[SourceFrame]) -> bool:
    """An op whose frames inside its innermost project statement are all MindSpore
    functions or Tensor methods (``mindspore/ops``, ``mindspore/common``)."""
    last = max((i for i, f in enumerate(frames) if not is_library_path(f.path) and not f.is_function), default=None)
    if last is None:
        return False
    return all(any(m in os.path.normpath(f.path) for m in _CALLED_API) for f in frames[last + 1:])


def project_sites(frames: Sequence[SourceFrame]) -> List[Tuple[str, int]]:
    out: List[Tuple[str, int]] = []
    for fr in reversed(frames):
        if fr.is_function or is_library_path(fr.path):
            continue
        if (fr.path, fr.line) not in out:
            out.append((fr.path, fr.line))
    return out


#: msgraphlint itself: the compile child's wrappers (``train_step`` under ``--train``) and
#: traceback frames are not the user's code
_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CHILD_SUFFIX = os.sep + os.path.join("msgraphlint", "verify", "_child.py")
_CHILD_COPY = os.sep + "_msgraphlint_child.py"   # the isolated child's copy (compile.stage_child)


def is_library_path(path: str) -> bool:
    """Installed code (site-packages, MindSpore) or msgraphlint's own: not the user's project."""
    p = os.path.normpath(path)
    return any(m in p for m in _LIB_MARKERS) or (os.sep + "mindspore" + os.sep) in p \
        or p.startswith(_OWN_DIR + os.sep) or p.endswith(_CHILD_SUFFIX) or p.endswith(_CHILD_COPY)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name the same file."""
    if a == b:
        return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except OSError:
        return False


@dataclass
class IRNode:
    index: int
    name: str
    op: str                    # normalised: "Add", "call", "PyExecute", ...
    raw_op: str                # as printed: "PrimFunc_Add"
    graph: str                 # the subgraph that holds it
    scope: str = ""
    frames: Tuple[SourceFrame, ...] = ()
    expand_from: Optional[str] = None
    callee: Optional[str] = None   # for ``call @x``
    args: Tuple[str, ...] = ()     # "%3" -> "3", params -> "para5_name"
    out_type: str = ""

    def line_in(self, path: Optional[str] = None, *, statements_only: bool = False) -> Optional[int]:
        """Innermost frame's line in ``path`` (any non-library file when None)."""
        for fr in reversed(self.frames):
            if statements_only and fr.is_def:
                continue
            if path is None:
                if not is_library_path(fr.path):
                    return fr.line
            elif same_file(fr.path, path):
                return fr.line
        return None

    def frame_in(self, path: Optional[str] = None) -> Optional[SourceFrame]:
        for fr in reversed(self.frames):
            if (path is None and not is_library_path(fr.path)) or (path is not None and same_file(fr.path, path)):
                return fr
        return None

    @property
    def line(self) -> Optional[int]:
        return self.line_in(None)

    @property
    def signature(self) -> tuple:
        """What identifies the same op across the hwopt and graph_build dumps."""
        return (self.op, tuple((f.path, f.line, f.col, f.end_col) for f in self.frames))


@dataclass
class IRGraph:
    name: str
    attrs: Dict[str, str] = field(default_factory=dict)
    nodes: List[IRNode] = field(default_factory=list)

    @property
    def fused_name(self) -> Optional[str]:
        return self.attrs.get("info_name")


@dataclass
class IRFile:
    path: str
    stage: str                  # validate | hwopt | graph_build | other
    seq: int
    graph_id: Optional[int]
    entry: Optional[str]
    graphs: Dict[str, IRGraph] = field(default_factory=dict)

    def all_nodes(self) -> Iterable[IRNode]:
        for g in self.graphs.values():
            yield from g.nodes

    @property
    def entry_graph(self) -> Optional[IRGraph]:
        return self.graphs.get(self.entry) if self.entry else None


def parse_ir_file(path: str) -> IRFile:
    base = os.path.basename(path)
    if "_validate_" in base:
        stage = "validate"
    elif base.startswith("graph_build_"):
        stage = "graph_build"
    elif base.startswith("hwopt_common_final"):
        stage = "hwopt"
    else:
        stage = "other"
    m = _SEQ_RE.search(base)
    seq = int(m.group(1)) if m else -1
    g = _GRAPHID_RE.search(base)
    graph_id = int(g.group(1)) if g else None
    irf = IRFile(path=path, stage=stage, seq=seq, graph_id=graph_id, entry=None)
    pending_attrs: Dict[str, str] = {}
    in_attr_block = False
    current: Optional[IRGraph] = None
    node: Optional[IRNode] = None
    frames: List[SourceFrame] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if current is None:
                if line.startswith("# IR entry: @"):
                    irf.entry = line[len("# IR entry: @"):].strip()
                    continue
                if line.startswith("subgraph attr:"):
                    in_attr_block = True
                    pending_attrs = {}
                    continue
                sm = _SUBGRAPH_RE.match(line)
                if sm:
                    current = IRGraph(name=sm.group(1), attrs=pending_attrs)
                    irf.graphs[current.name] = current
                    pending_attrs = {}
                    in_attr_block = False
                    continue
                if in_attr_block and ": " in line and not line.startswith("#"):
                    key, _, value = line.partition(": ")
                    pending_attrs[key.strip()] = value.strip()
                continue
            # inside a subgraph
            if line.startswith("}"):
                if node is not None:
                    node.frames = tuple(frames)
                node, frames, current = None, [], None
                continue
            nm = _NODE_RE.match(line)
            if nm or line.startswith("  Return("):
                if node is not None:
                    node.frames = tuple(frames)
                frames = []
                if not nm:
                    # the graph's Return: bookkeeping, but its frames say the return statement
                    # was compiled (what follows a branch the compiler folded away)
                    node = IRNode(index=-1, name="return", op="Return", raw_op="Return", graph=current.name,
                                  args=tuple(_ARG_RE.findall(line.split(")", 1)[0])))
                    current.nodes.append(node)
                    continue
                node = _make_node(nm, current.name)
                current.nodes.append(node)
                continue
            if node is None:
                continue
            stripped = line.strip()
            if stripped.startswith("# In file "):
                fm = _FRAME_RE.search(stripped)
                if fm:
                    start = int(fm.group(2))
                    end = int(fm.group(3)) if fm.group(3) else start
                    frames.append(SourceFrame(fm.group(1), start, end, int(fm.group(4)),
                                              int(fm.group(5)), fm.group(6)))
            elif stripped.startswith("# Fullname with scope:") or stripped.startswith("# Scope:"):
                sm2 = _SCOPE_RE.search(stripped)
                if sm2:
                    node.scope = sm2.group(1)
            elif stripped.startswith(":") and not node.out_type:
                node.out_type = stripped.split("->", 1)[-1].strip()
    return irf


def _make_node(m, graph: str) -> IRNode:
    index, name, rhs = int(m.group(1)), m.group(2), m.group(3)
    callee = None
    if rhs.startswith("call @"):
        raw_op = "call"
        callee = re.match(r"call @([^\s(]+)", rhs).group(1)
    else:
        om = re.match(r"([A-Za-z_][\w.]*)", rhs)
        raw_op = om.group(1) if om else rhs.split("(", 1)[0]
    op = raw_op
    for prefix in _OP_PREFIXES:
        if op.startswith(prefix):
            op = op[len(prefix):]
            break
    em = _EXPAND_RE.search(rhs)
    # arguments: up to the first attribute block
    arg_text = re.split(r" \{instance name| primitive_attrs:| cnode_attrs:", rhs, maxsplit=1)[0]
    args = tuple(a for a in _ARG_RE.findall(arg_text))
    return IRNode(index=index, name=name, op=op, raw_op=raw_op, graph=graph, callee=callee,
                  expand_from=em.group(1) if em else None, args=args)


# --------------------------------------------------------------------------- report


@dataclass
class FusedKernel:
    name: str                      # Fused_BiasAdd_Reshape_GeLU_Reshape_fusion_<hash>
    kind: str                      # BiasAdd_Reshape_GeLU_Reshape_fusion
    subgraph: str
    graph_id: Optional[int]
    members: List[IRNode] = field(default_factory=list)
    member_lines: List[Optional[int]] = field(default_factory=list)  # one per member
    lines: List[int] = field(default_factory=list)                   # sorted, unique (any file)
    sites: List[Tuple[str, int]] = field(default_factory=list)       # (path, line), sorted, unique
    recovered: bool = False        # some lines came from hwopt_common_final

    @property
    def ops(self) -> List[str]:
        return [n.op for n in self.members]

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "ops": self.ops, "lines": self.lines,
                "sites": [list(s) for s in self.sites], "graph_id": self.graph_id, "recovered": self.recovered}


@dataclass
class OpEvent:
    """An unfused op, a fallback node, a control-flow node: op, line, scope."""

    op: str
    line: Optional[int]
    scope: str
    stage: str
    graph_id: Optional[int] = None
    path: Optional[str] = None
    frames: Tuple[SourceFrame, ...] = ()

    @property
    def sites(self) -> List[Tuple[str, int]]:
        """(path, line) of every statement frame in project (non-library) code, innermost
        first: the op's own line, then the calls that led to it."""
        return project_sites(self.frames)

    @property
    def own(self) -> bool:
        """Whether the op is the project's own: made by its statement (``x += y``) or by a
        MindSpore function or Tensor method it calls there (``ops.assign``, ``x.add_()``),
        not inside a library Cell or package it calls (a BatchNorm's state)."""
        return is_own_op(self.frames)

    def to_dict(self) -> dict:
        return {"op": self.op, "line": self.line, "path": self.path, "scope": self.scope,
                "stage": self.stage, "graph_id": self.graph_id, "sites": [list(s) for s in self.sites]}


@dataclass
class CompileIR:
    """The IR of one compile."""

    index: int
    validate: Optional[IRFile] = None
    hwopt: List[IRFile] = field(default_factory=list)
    graph_build: List[IRFile] = field(default_factory=list)
    fused: List[FusedKernel] = field(default_factory=list)
    unfused: List[OpEvent] = field(default_factory=list)
    fallbacks: List[OpEvent] = field(default_factory=list)
    control_flow: List[OpEvent] = field(default_factory=list)
    validate_ops: List[OpEvent] = field(default_factory=list)
    dynamic_shape: bool = False
    first_dynamic: Optional[OpEvent] = None
    compiled_ranges: set = field(default_factory=set)   # (path, start, end) of compiled project defs
    covered: Dict[str, set] = field(default_factory=dict)  # path -> lines of project frames (validate)

    @property
    def n_kernel_graphs(self) -> int:
        return len({f.graph_id for f in self.graph_build})

    @property
    def n_fused_ops(self) -> int:
        return sum(len(k.members) for k in self.fused)


@dataclass
class IRReport:
    ir_dir: str
    compiles: List[CompileIR] = field(default_factory=list)
    source_path: Optional[str] = None
    analyze_fail: Optional[str] = None
    analyze_fail_sites: List[Tuple[str, int]] = field(default_factory=list)

    # the first compile is the one the report is about; later ones are recompiles
    @property
    def primary(self) -> CompileIR:
        return self.compiles[0] if self.compiles else CompileIR(index=0)

    @property
    def n_compiles(self) -> int:
        return sum(1 for c in self.compiles if c.validate is not None)

    @property
    def fused(self) -> List[FusedKernel]:
        return self.primary.fused

    @property
    def unfused(self) -> List[OpEvent]:
        return self.primary.unfused

    @property
    def fallbacks(self) -> List[OpEvent]:
        return self.primary.fallbacks

    @property
    def control_flow(self) -> List[OpEvent]:
        return self.primary.control_flow

    @property
    def validate_ops(self) -> List[OpEvent]:
        return self.primary.validate_ops

    @property
    def n_kernel_graphs(self) -> int:
        return self.primary.n_kernel_graphs

    def summary(self) -> dict:
        p = self.primary
        return {
            "fused_kernels": len(p.fused),
            "fused_ops": p.n_fused_ops,
            "unfused_ops": len(p.unfused),
            "fallback_nodes": len(p.fallbacks),
            "kernel_graphs": p.n_kernel_graphs,
            "control_flow_nodes": len(p.control_flow),
            "compiles": self.n_compiles,
            "dynamic_shape": p.dynamic_shape,
        }

    def to_dict(self) -> dict:
        p = self.primary
        return {
            "ir_dir": self.ir_dir,
            "summary": self.summary(),
            "fused": [k.to_dict() for k in p.fused],
            "unfused": [e.to_dict() for e in p.unfused],
            "fallbacks": [e.to_dict() for e in p.fallbacks],
            "control_flow": [e.to_dict() for e in p.control_flow],
            "validate_ops": [[e.op, e.line, e.path, e.own] for e in p.validate_ops],
            "compiled_ranges": sorted([list(r) for r in p.compiled_ranges]),
            "covered_lines": {path: sorted(lines) for path, lines in sorted(p.covered.items())},
            "analyze_fail_sites": [list(x) for x in self.analyze_fail_sites],
            "first_dynamic": p.first_dynamic.to_dict() if p.first_dynamic else None,
            "per_compile": [
                {"index": c.index, "fused_kernels": len(c.fused), "unfused_ops": len(c.unfused),
                 "fallback_nodes": len(c.fallbacks), "kernel_graphs": c.n_kernel_graphs,
                 "dynamic_shape": c.dynamic_shape}
                for c in self.compiles
            ],
            "analyze_fail": self.analyze_fail,
        }

    def lines_of(self, path: Optional[str] = None) -> Dict[int, List[str]]:
        """line -> ops there, from the validate stage (for matching findings)."""
        out: Dict[int, List[str]] = {}
        for e in self.validate_ops:
            if e.line is not None and (path is None or e.path is None or same_file(e.path, path)):
                out.setdefault(e.line, []).append(e.op)
        return out


_TENSOR_SHAPE_RE = re.compile(r"Tensor\[[^\]]*\], \(([^)]*)\)")


def has_dynamic_dims(type_text: str) -> bool:
    """Whether a printed type has a tensor with an unknown dim (-1) or rank (-2)."""
    for m in _TENSOR_SHAPE_RE.finditer(type_text or ""):
        for dim in m.group(1).split(","):
            dim = dim.strip()
            if dim.startswith("-") and dim[1:].isdigit():
                return True
    return False


def _event(node: IRNode, stage: str, graph_id, source_path) -> OpEvent:
    """An op with its line: its innermost statement in project code (a helper in another
    module of the project included), else the innermost frame in ``source_path``."""
    sites = project_sites(node.frames)
    fr = None
    if sites:
        fr = next(f for f in reversed(node.frames) if (f.path, f.line) == sites[0] and not f.is_function)
    if fr is None and source_path:
        fr = node.frame_in(source_path)
    if fr is None:
        fr = node.frame_in(None)
    return OpEvent(op=node.op, line=fr.line if fr else None, scope=node.scope, stage=stage,
                   graph_id=graph_id, path=fr.path if fr else None, frames=node.frames)


def parse_ir_dir(path: str, source_path: Optional[str] = None) -> IRReport:
    """Parse every dump under ``path`` (recursively) into an :class:`IRReport`.

    ``source_path``: the target's file; lines are taken from frames in that file when
    there are some (else from the innermost non-library frame)."""
    files = []
    for p in sorted(glob.glob(os.path.join(path, "**", "*.ir"), recursive=True)):
        base = os.path.basename(p)
        if "_validate_" in base or base.startswith("graph_build_") or base.startswith("hwopt_common_final"):
            files.append(parse_ir_file(p))
    report = IRReport(ir_dir=path, source_path=source_path)
    af = glob.glob(os.path.join(path, "**", "analyze_fail*.ir"), recursive=True)
    report.analyze_fail = af[0] if af else None
    failed_ranges: set = set()
    if report.analyze_fail:
        report.analyze_fail_sites, failed_ranges = parse_analyze_fail(report.analyze_fail)
    validates = sorted((f for f in files if f.stage == "validate"), key=lambda f: f.seq)
    others = sorted((f for f in files if f.stage != "validate"), key=lambda f: f.seq)
    if validates:
        report.compiles = [CompileIR(index=i, validate=v) for i, v in enumerate(validates)]
    elif others:
        report.compiles = [CompileIR(index=0)]
    for f in others:
        idx = 0
        for i, v in enumerate(validates):
            if f.seq > v.seq:
                idx = i
        c = report.compiles[idx]
        (c.graph_build if f.stage == "graph_build" else c.hwopt).append(f)
    for c in report.compiles:
        _analyse_compile(c, source_path)
    if failed_ranges:
        if not report.compiles:
            report.compiles = [CompileIR(index=0)]
        report.compiles[-1 if validates else 0].compiled_ranges |= failed_ranges
        report.compiles[0].compiled_ranges |= failed_ranges
    return report


_AF_NODE_RE = re.compile(r"^  %\d+\(")


def parse_analyze_fail(path: str) -> Tuple[List[Tuple[str, int]], set]:
    """What ``analyze_fail.ir`` (written when a compile fails) says about the failure:
    ``(sites, ranges)``. ``sites``: the (path, line) of the failing statement in project
    code, most specific first: the project frame of the deepest node marked
    ``------------------------>`` that has one, then those of shallower marked nodes, then
    the last project statement before the first marked node in its graph (a failure
    inside a library Cell, ``self.fc2(h)`` failing in ``Dense``, is located at the statement
    the compile had reached). ``ranges``: the (path, start, end) of every project function
    the compile had parsed (its ``def`` frames): what was compiled up to the failure."""
    marked: List[List[Tuple[str, int]]] = []
    before_first: Optional[Tuple[str, int]] = None
    last_seen: Optional[Tuple[str, int]] = None
    ranges: set = set()
    in_ir = False
    pending_mark = False
    current: Optional[List[Tuple[str, int]]] = None
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError:
        return [], set()
    with f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("# IR entry:"):
                in_ir = True
            if not in_ir:
                continue
            if line.startswith("subgraph @"):
                last_seen = None
            if line.startswith("#------------------------>"):
                pending_mark = True
                continue
            if _AF_NODE_RE.match(line) or line.startswith("  Return("):
                if pending_mark:
                    current = []
                    marked.append(current)
                    if len(marked) == 1:
                        before_first = last_seen
                else:
                    current = None
                pending_mark = False
                continue
            stripped = line.strip()
            if "In file " in stripped and stripped.startswith("#"):
                fm = _FRAME_RE.search(stripped[stripped.index("In file"):].join(["# ", ""]))
                if not fm:
                    continue
                fpath, start = fm.group(1), int(fm.group(2))
                end = int(fm.group(3)) if fm.group(3) else start
                if is_library_path(fpath):
                    continue
                if end != start and fm.group(6).lstrip().startswith(("def ", "async def ")):
                    ranges.add((fpath, start, end))
                    continue
                if end != start:
                    continue
                if current is not None and (fpath, start) not in current:
                    current.append((fpath, start))
                if not marked:
                    last_seen = (fpath, start)
    sites: List[Tuple[str, int]] = []
    for frames in reversed(marked):
        for site in frames:
            if site not in sites:
                sites.append(site)
    if before_first and before_first not in sites:
        sites.append(before_first)
    return sites, ranges


def _analyse_compile(c: CompileIR, source_path: Optional[str]) -> None:
    if c.validate is not None:
        for node in c.validate.all_nodes():
            if node.op in FALLBACK_OPS:
                c.fallbacks.append(_event(node, "validate", None, source_path))
            elif node.op in CONTROL_FLOW_OPS:
                c.control_flow.append(_event(node, "validate", None, source_path))
            if node.op not in BOOKKEEPING_OPS:
                c.validate_ops.append(_event(node, "validate", None, source_path))
            if node.op not in BOOKKEEPING_OPS and has_dynamic_dims(node.out_type):
                c.dynamic_shape = True
                if c.first_dynamic is None:
                    c.first_dynamic = _event(node, "validate", None, source_path)
            for fr in node.frames:
                if is_library_path(fr.path):
                    continue
                if fr.is_function:
                    c.compiled_ranges.add((fr.path, fr.line, fr.end_line))
                else:  # a statement (or the first line of an if/for it sits in) that was compiled
                    c.covered.setdefault(fr.path, set()).add(fr.line)
    # latest hwopt dump per graph id (a graph is dumped once per compile)
    hwopt_by_id: Dict[Optional[int], IRFile] = {}
    for f in c.hwopt:
        hwopt_by_id[f.graph_id] = f
    for gb in c.graph_build:
        hw = hwopt_by_id.get(gb.graph_id)
        entry = gb.entry_graph
        if entry is None:
            continue
        for node in entry.nodes:
            if node.op == "call" and node.callee in gb.graphs and gb.graphs[node.callee].fused_name:
                sub = gb.graphs[node.callee]
                c.fused.append(_fused_kernel(sub, node, entry, gb, hw, source_path))
            elif node.op in FALLBACK_OPS:
                if not c.validate or not c.fallbacks:
                    c.fallbacks.append(_event(node, "graph_build", gb.graph_id, source_path))
            elif node.op not in BOOKKEEPING_OPS:
                c.unfused.append(_event(node, "graph_build", gb.graph_id, source_path))
        # kernel graphs without a validate stage (rare): fallback nodes inside subgraphs
        for g in gb.graphs.values():
            if g is entry or g.fused_name:
                continue
            for node in g.nodes:
                if node.op not in BOOKKEEPING_OPS and node.op not in FALLBACK_OPS:
                    c.unfused.append(_event(node, "graph_build", gb.graph_id, source_path))


def _site(node: IRNode) -> Optional[Tuple[str, int]]:
    """Where an op is in the model: its innermost statement frame in project code (a
    sub-Cell's line in its own file, never the driver's call of it)."""
    sites = project_sites(node.frames)
    return sites[0] if sites else None


def _fused_kernel(sub: IRGraph, call: IRNode, entry: IRGraph, gb: IRFile, hw: Optional[IRFile],
                  source_path: Optional[str]) -> FusedKernel:
    kind = sub.attrs.get("graph_kernel", "")
    kernel = FusedKernel(name=sub.fused_name or sub.name, kind=kind, subgraph=sub.name,
                         graph_id=gb.graph_id, members=[n for n in sub.nodes if n.op not in BOOKKEEPING_OPS])
    sites: List[Optional[Tuple[str, int]]] = [_site(n) for n in kernel.members]
    if any(s is None for s in sites) and hw is not None:
        recovered = _recover_lines(kernel, call, entry, gb, hw)
        claimed: set = set()
        for i, (n, site) in enumerate(zip(kernel.members, sites)):
            if site is not None:
                continue
            want = n.expand_from or n.op
            cell = _cell_path(n.scope)
            best = None
            for cand in recovered:
                if id(cand) in claimed or cand.op != want:
                    continue
                if cell and cand.scope and cand.scope != cell:
                    continue
                best = cand
                break
            if best is None and n.expand_from:
                # expanded ops share their origin: several members map to one hwopt node
                best = next((cand for cand in recovered if cand.op == want), None)
            if best is not None:
                if not n.expand_from:
                    claimed.add(id(best))
                sites[i] = _site(best)
                kernel.recovered = True
        if all(s is None for s in sites) and recovered:
            # nothing matched op by op: the kernel covers what its data flow covers
            found = sorted({_site(c) for c in recovered} - {None})
            kernel.sites = found
            kernel.lines = sorted({ln for _, ln in found})
            kernel.member_lines = [None] * len(kernel.members)
            kernel.recovered = True
            return kernel
    kernel.member_lines = [s[1] if s else None for s in sites]
    kernel.sites = sorted({s for s in sites if s is not None})
    kernel.lines = sorted({ln for _, ln in kernel.sites})
    return kernel


def _cell_path(scope: str) -> str:
    """``Default/mlp-MLP/linear_fc2-Linear/expand_BiasAdd/Add-op0`` -> ``Default/mlp-MLP/linear_fc2-Linear``."""
    if not scope:
        return ""
    parts = scope.split("/")
    keep = []
    for part in parts[:-1]:
        if part.startswith("expand_"):
            break
        keep.append(part)
    return "/".join(keep) if len(keep) > 1 else ""


def _recover_lines(kernel: FusedKernel, call: IRNode, entry: IRGraph, gb: IRFile,
                   hw: IRFile) -> List[IRNode]:
    """The hwopt nodes that became this fused kernel: reached from the kernel's inputs
    (matched to hwopt by op and source frames) through ops named in the kernel."""
    wanted = set(kernel.kind.replace("_fusion", "").split("_")) | {n.expand_from for n in kernel.members if n.expand_from}
    wanted |= {n.op for n in kernel.members}
    wanted.discard("")
    hw_entry = hw.entry_graph
    if hw_entry is None:
        return []
    by_index = {str(n.index): n for n in entry.nodes}
    by_sig: Dict[tuple, List[IRNode]] = {}
    consumers: Dict[str, List[IRNode]] = {}
    for n in hw_entry.nodes:
        by_sig.setdefault(n.signature, []).append(n)
        for a in n.args:
            consumers.setdefault(a, []).append(n)
    starts: List[str] = []
    for a in call.args:
        src = by_index.get(a)
        if src is not None and src.frames:
            for h in by_sig.get(src.signature, []):
                starts.append(str(h.index))
        elif a.startswith("para"):
            name = a.split("_", 1)[1] if "_" in a else a
            for h_arg in consumers:
                if h_arg.startswith("para") and h_arg.split("_", 1)[-1] == name:
                    starts.append(h_arg)
    found: List[IRNode] = []
    seen = set(starts)
    frontier = list(starts)
    depth = 0
    limit = max(4, len(kernel.members) + 3)
    while frontier and depth < limit:
        nxt = []
        for key in frontier:
            for cons in consumers.get(key, []):
                k = str(cons.index)
                if k in seen:
                    continue
                if cons.op in wanted or (cons.op in ("Load", "TupleGetItem")):
                    seen.add(k)
                    nxt.append(k)
                    if cons.op in wanted:
                        found.append(cons)
        frontier = nxt
        depth += 1
    # scope rule for expanded ops: ``expand_BiasAdd`` under the same cell path
    for n in kernel.members:
        if "/expand_" in n.scope:
            op = n.scope.split("/expand_", 1)[1].split("/", 1)[0]
            cell = _cell_path(n.scope)
            for h in hw_entry.nodes:
                if h.op == op and h.scope == cell and h not in found:
                    found.append(h)
    return found


def match_line(event_line: Optional[int], finding_line: int, slack: int = 1,
               finding_end_line: Optional[int] = None) -> bool:
    """Whether an IR line is within ``slack`` lines of a finding's span."""
    if event_line is None:
        return False
    end = finding_end_line if finding_end_line and finding_end_line >= finding_line else finding_line
    return finding_line - slack <= event_line <= end + slack


_ERR_FRAME_RE = re.compile(r"In file (.+?):(\d+)(?:~(\d+))?(?:, (\d+)~(\d+))?([^\n]*)(?=\n?([^\n]*))")
_PY_FRAME_RE = re.compile(r'File "([^"]+)", line (\d+)')
#: MindSpore's section titles, and whether the section lists frames outermost first
_OUTERMOST_FIRST = ("The Traceback of Net Construct Code",)
_INNERMOST_FIRST = ("The Function Call Stack",)


def _frames_in(text: str, source_path: Optional[str]) -> List[Tuple[str, int]]:
    out: List[Tuple[str, int]] = []
    for m in _ERR_FRAME_RE.finditer(text or ""):
        path, line, end = m.group(1).strip(), int(m.group(2)), m.group(3)
        rest, next_line = m.group(6) or "", m.group(7) or ""
        code = rest.split("/", 1)[1] if "/" in rest else next_line
        if end and int(end) != line and code.strip().startswith(("def ", "async def ", "class ")):
            continue  # the enclosing function, not the statement
        if source_path and not same_file(path, source_path):
            continue
        if (path, line) not in out:
            out.append((path, line))
    return out


def error_locations(text: str, source_path: Optional[str] = None) -> List[Tuple[str, int]]:
    """``(path, line)`` pairs named by a compile error's frames, the failing statement
    first: frames MindSpore names in the message itself, then the construct traceback
    from its innermost frame out (MindSpore prints it outermost first: ``# 0`` is the
    driver's call, the last is the statement that failed), then the function call stack
    (printed innermost first), then the Python traceback from its innermost frame out.
    Restricted to ``source_path`` when given, deduplicated. A multi-line frame counts (a
    ``try`` statement) unless it is a ``def``/``class`` (the enclosing function)."""
    text = text or ""
    head: List[Tuple[str, int]] = []
    ordered: List[Tuple[str, int]] = []
    # split at section titles ("- Title:"), keeping each title with its body
    parts = re.split(r"(?m)^- ([^\n:]+):[ \t]*$", text)
    body_chunks = [(None, parts[0])] + [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]
    for title, body in body_chunks:
        py_at = body.find("Traceback (most recent call last)")
        chunk, py = (body[:py_at], body[py_at:]) if py_at >= 0 else (body, "")
        frames = _frames_in(chunk, source_path)
        if (title and title.startswith(_OUTERMOST_FIRST)) or re.search(r"(?m)^#\s*\d+\s+In file ", chunk):
            frames = list(reversed(frames))  # "# 0 In file" is the outermost call
        if title is None:
            head.extend(frames)
        elif not title.startswith("C++"):
            ordered.extend(frames)
        if py:
            tb = [(m.group(1), int(m.group(2))) for m in _PY_FRAME_RE.finditer(py)]
            tb = [t for t in reversed(tb) if not source_path or same_file(t[0], source_path)]
            ordered.extend(tb)
            # what follows a Python traceback is the exception text again
            ordered.extend(_frames_in(py, source_path))
    out: List[Tuple[str, int]] = []
    for site in head + ordered:
        if site not in out:
            out.append(site)
    return out


def count_compiles(path: str) -> int:
    return len(glob.glob(os.path.join(path, "**", "*_validate_*.ir"), recursive=True))


def summarize(paths: Sequence[str]) -> List[dict]:
    return [parse_ir_dir(p).summary() for p in paths]

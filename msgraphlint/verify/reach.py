"""Which code a verify target compiles, found statically (no MindSpore): the target Cell
(its whole class, ``__init__`` included, and its project base classes), the sub-Cells it
constructs and the project functions it calls, transitively and across modules, through
the same module index and call edges as ``check`` (``project.ProjectIndex``); plus the
project modules the target file imports, transitively (the verify cache key), the checks
that make a bad target a usage error, and the native ops the compiled code calls.

A finding outside the spans found here (or the functions the IR shows were compiled) is
``not_compiled``: it can neither be confirmed nor explain an IR event.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections import deque
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..project.index import ProjectIndex
from ..project.scopes import CellResolver
from ..parse.source import SourceError, SourceFile

MAX_DEPTH = 12


class TargetError(Exception):
    """The target cannot be compiled as given (a usage error: exit 2)."""


@dataclass(frozen=True)
class Span:
    path: str        # absolute
    start: int
    end: int
    name: str        # qualname
    kind: str        # "cell" | "class" | "function"

    def to_list(self) -> list:
        return [self.path, self.start, self.end, self.name, self.kind]


@dataclass
class Reach:
    spans: List[Span] = field(default_factory=list)
    files: List[str] = field(default_factory=list)          # files holding compiled code
    natives: Dict[Tuple[str, int], List[str]] = field(default_factory=dict)  # (path, line) -> native ops called there
    #: the ``__init__`` of each reached class: Python that runs to build what is compiled
    #: (``self.set_inputs(...)``, the configuration the graph is built from)
    inits: List[Span] = field(default_factory=list)

    def contains(self, path: Optional[str], line: Optional[int]) -> bool:
        if path is None or line is None:
            return False
        path = os.path.abspath(path)
        return any(s.path == path and s.start <= line <= s.end for s in self.spans)

    def in_init(self, path: Optional[str], line: Optional[int]) -> bool:
        if path is None or line is None:
            return False
        path = os.path.abspath(path)
        return any(s.path == path and s.start <= line <= s.end for s in self.inits)


def _read(path: str) -> SourceFile:
    try:
        src = SourceFile.read(path)
        src.tree  # noqa: B018 - parse now: a syntax error is the caller's to report
        return src
    except SourceError as exc:
        raise TargetError(f"{path}: cannot parse it: {exc}") from None
    except OSError as exc:
        raise TargetError(f"{path}: cannot read it: {exc}") from None


def top_level_names(tree: ast.Module) -> Dict[str, ast.AST]:
    names: Dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                names[(a.asname or a.name).split(".")[0]] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        names[n.id] = node
    return names


def check_target(path: str, name: str, need_make_inputs: bool, shape_names: Sequence[str] = ()) -> None:
    """Raise :class:`TargetError` for a target that cannot work: the file does not parse,
    ``name`` is not defined in it, or (without ``--inputs``) it has no ``make_inputs()``
    or ``make_inputs`` takes no keyword named in ``--shapes``."""
    tree = _read(path).tree
    names = top_level_names(tree)
    if name not in names:
        classes = sorted(n for n, node in names.items() if isinstance(node, ast.ClassDef))
        raise TargetError(f"{path} defines no {name!r}" + (f" (its classes: {', '.join(classes)})" if classes else ""))
    if not need_make_inputs:
        return
    mk = names.get("make_inputs")
    if mk is None:
        raise TargetError(f"{path} has no make_inputs(): pass the inputs with --inputs "
                          "(e.g. --inputs 2x64x256:float32)")
    if shape_names and isinstance(mk, (ast.FunctionDef, ast.AsyncFunctionDef)):
        a = mk.args
        if a.kwarg is None:
            accepted = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
            unknown = sorted(set(shape_names) - accepted)
            if unknown:
                raise TargetError(f"--shapes name {unknown[0]!r} is not a keyword of make_inputs() in {path} "
                                  f"(it takes: {', '.join(sorted(accepted)) or 'none'})")


class _Sources:
    def __init__(self) -> None:
        self._trees: Dict[str, Optional[ast.Module]] = {}

    def tree(self, path: str) -> Optional[ast.Module]:
        path = os.path.abspath(path)
        if path not in self._trees:
            try:
                self._trees[path] = SourceFile.read(path).tree
            except (OSError, SourceError):
                self._trees[path] = None
        return self._trees[path]


def _find_def(tree: Optional[ast.Module], qualname_tail: Sequence[str]):
    """The ClassDef/FunctionDef at ``Class.method`` / ``func`` in a module tree."""
    body = tree.body if tree is not None else []
    node = None
    for part in qualname_tail:
        node = next((n for n in body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def new_index(path: str) -> ProjectIndex:
    index = ProjectIndex()
    index.add_source(_read(path))
    return index


def reach(path: str, name: str, index: Optional[ProjectIndex] = None) -> Reach:
    """The code compiling ``path::name`` reaches (see the module docstring)."""
    path = os.path.abspath(path)
    index = index or new_index(path)
    cells = CellResolver(index)
    sources = _Sources()
    mod = index.module_of_path(path)
    out = Reach()
    if mod is None:
        return out
    seen: Set[str] = set()
    queue: deque = deque()

    def push(kind: str, obj, m, depth: int) -> None:
        if obj.qualname in seen or depth > MAX_DEPTH:
            return
        seen.add(obj.qualname)
        queue.append((kind, obj, m, depth))

    if name in mod.classes:
        push("class", mod.classes[name], mod, 0)
    elif name in mod.functions:
        push("function", mod.functions[name], mod, 0)
    else:  # an imported name: resolve it
        res = index.resolve(mod.imports.names.get(name, ""))
        if res and res[0] == "class":
            push("class", res[1], res[2], 0)
        elif res and res[0] in ("function", "method"):
            push("function", res[1], res[2], 0)
    while queue:
        kind, obj, m, depth = queue.popleft()
        tree = sources.tree(m.path)
        local = obj.qualname[len(m.name) + 1:].split(".") if obj.qualname.startswith(m.name + ".") else [obj.name]
        node = _find_def(tree, local)
        if node is None:
            continue
        is_cell = kind == "class" and cells.is_cell(obj)
        out.spans.append(Span(os.path.abspath(m.path), node.lineno, node.end_lineno or node.lineno, obj.qualname,
                              "cell" if is_cell else kind))
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__":
                    out.inits.append(Span(os.path.abspath(m.path), item.lineno, item.end_lineno or item.lineno,
                                          obj.qualname + ".__init__", "init"))
        funcs = list(obj.methods.values()) if kind == "class" else [obj]
        if kind == "class":
            for base in cells.mro(obj)[1:]:
                owner = index.resolve(base.qualname.rsplit(".", 1)[0])
                if owner and owner[0] == "module":
                    push("class", base, owner[1], depth + 1)
        for fs in funcs:
            for edge in index.calls_of(fs, m):
                if edge.kind != "dotted":
                    continue  # self.x(...): a method of a class already in the set
                res = index.resolve(edge.target)
                if not res:
                    continue
                if res[0] == "class":
                    push("class", res[1], res[2], depth + 1)
                elif res[0] in ("function", "method"):
                    fs2, m2 = res[1], res[2]
                    if fs2.class_name and fs2.class_name in m2.classes:
                        push("class", m2.classes[fs2.class_name], m2, depth + 1)
                    else:
                        push("function", fs2, m2, depth + 1)
    _add_discovered_helpers(out, index, sources)
    out.files = sorted({s.path for s in out.spans})
    _collect_natives(out, index, sources)
    return out


def _add_discovered_helpers(out: Reach, index: ProjectIndex, sources: _Sources) -> None:
    """The helpers ``check``'s scope discovery (``scopes.discover``) reaches from a compiled
    root (helpers through ``self.<attr>`` objects, nested definitions...), as spans."""
    from ..project.scopes import discover

    roots = {s.name for s in out.spans}
    try:
        found = discover(index)
    except Exception:  # noqa: BLE001 - discovery is best effort here; the spans above stand
        return
    for scopes_ in found.values():
        for scope in scopes_:
            if not scope.root_site:
                continue
            root = scope.root_site[3]
            if not any(root == r or root.startswith(r + ".") for r in roots):
                continue
            tree = sources.tree(scope.path)
            node = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and n.lineno == scope.lineno), None) if tree is not None else None
            if node is None:
                continue
            span = Span(os.path.abspath(scope.path), node.lineno, node.end_lineno or node.lineno, scope.qualname,
                        "function")
            if not out.contains(span.path, span.start):
                out.spans.append(span)


# ----------------------------------------------------------------------------- natives


def _collect_natives(out: Reach, index: ProjectIndex, sources: _Sources) -> None:
    """(path, line) -> the native ops the compiled code calls there, by the table in
    ``evidence.EXPECTED_NATIVE`` (an ``ops.assign`` counts only on a Parameter)."""
    from .evidence import EXPECTED_NATIVE

    by_call = {}
    for op, entry in EXPECTED_NATIVE.items():
        for dotted in entry["calls"]:
            by_call[dotted] = (op, entry.get("first_arg"))
    for span in out.spans:
        mod = index.module_of_path(span.path)
        tree = sources.tree(span.path)
        if mod is None or tree is None:
            continue
        cls = mod.classes.get(span.name.rsplit(".", 1)[-1]) if span.kind in ("cell", "class") else None
        prim_attrs: Dict[str, str] = {}
        node = next((n for n in ast.walk(tree) if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                     and n.lineno == span.start), None)
        if node is None:
            continue
        # self.print = ops.Print() in __init__: calls of self.print are Print
        for n in ast.walk(node):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and len(n.targets) == 1:
                t = n.targets[0]
                dotted = mod.imports.dotted(n.value.func)
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" \
                        and dotted in by_call:
                    prim_attrs[t.attr] = dotted
        for n in ast.walk(node):
            if not isinstance(n, ast.Call):
                continue
            f = n.func
            dotted = mod.imports.dotted(f)
            if dotted is None and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                    and f.value.id == "self" and f.attr in prim_attrs:
                dotted = prim_attrs[f.attr]
            elif isinstance(f, ast.Call):  # ops.Print()(x)
                inner = mod.imports.dotted(f.func)
                dotted = inner if inner in by_call else dotted
            if dotted not in by_call:
                continue
            op, first_arg = by_call[dotted]
            if first_arg == "parameter":
                a = n.args[0] if n.args else None
                if not (isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "self"
                        and cls is not None and cls.attrs.get(a.attr) == "parameter"):
                    continue
            out.natives.setdefault((span.path, n.lineno), []).append(op)


# ----------------------------------------------------------------------------- cache key


def import_closure(path: str, index: Optional[ProjectIndex] = None) -> List[str]:
    """The target file and every project module it imports, transitively (packages'
    ``__init__.py`` included), as absolute paths: what the compile child executes."""
    path = os.path.abspath(path)
    index = index or new_index(path)
    start = index.module_of_path(path)
    if start is None:
        return [path]
    seen = {path: start}
    stack = [start]
    while stack:
        mod = stack.pop()
        for dotted in sorted(set(mod.imports.names.values())):  # sorted: the same closure in every process
            parts = dotted.split(".")
            if parts[0] == "mindspore":
                continue
            for cut in range(1, len(parts) + 1):
                res = index.resolve(".".join(parts[:cut]))
                if not res or res[0] != "module":
                    continue
                m = res[1]
                p = os.path.abspath(m.path)
                if p not in seen:
                    seen[p] = m
                    stack.append(m)
    return sorted(seen)


def sources_digest(paths: Sequence[str]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.encode())
        try:
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        except OSError:
            h.update(b"missing")
    return h.hexdigest()


# ----------------------------------------------------------------------------- folded branches


def _makes_ops(stmts: Sequence[ast.stmt]) -> bool:
    """Whether compiling these statements would put an op in the graph (a call, an
    operator, a subscript...): a branch of only ``pass``/names/constants may leave none."""
    for st in stmts:
        for node in ast.walk(st):
            if isinstance(node, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript, ast.AugAssign,
                                 ast.BoolOp, ast.Raise, ast.Assert)):
                return True
    return False


def _branch_range(stmts: Sequence[ast.stmt]) -> Optional[Tuple[int, int]]:
    if not stmts:
        return None
    return stmts[0].lineno, max((s.end_lineno or s.lineno) for s in stmts)


def folded_branches(ir: Optional[dict]) -> List[Tuple[str, int, int]]:
    """The branches of ``if`` statements in the compiled functions that the compiler folded
    away (a condition it knew at compile time: ``if self.loss_type == "bco_pair":`` under
    ``loss_type="sigmoid"``): ``(path, first line, last line)`` of each. A branch is folded
    when no op of the frontend graph (validate stage) has a frame inside it, its ``if`` made
    no Switch, and it holds code that makes ops, while the ``if``'s other branch was compiled
    or has none. What the compiler never saw cannot be confirmed, nor contradict a finding."""
    if not ir:
        return []
    covered = {os.path.abspath(p): set(lines) for p, lines in (ir.get("covered_lines") or {}).items()}
    ranges = [r for r in ir.get("compiled_ranges") or [] if len(r) == 3]
    if not covered or not ranges:
        return []
    switch_at = {(os.path.abspath(p), ln) for e in ir.get("control_flow") or [] for p, ln in e.get("sites") or []}
    out: List[Tuple[str, int, int]] = []
    sources = _Sources()
    for path in sorted({os.path.abspath(r[0]) for r in ranges}):
        tree = sources.tree(path)
        if tree is None:
            continue
        lines = covered.get(path, set())
        spans = [(a, b) for p, a, b in ranges if os.path.abspath(p) == path]

        def is_covered(rng) -> bool:
            return rng is not None and any(rng[0] <= ln <= rng[1] for ln in lines)

        for node in ast.walk(tree):
            if not isinstance(node, ast.If):
                continue
            span = next(((a, b) for a, b in spans if a <= node.lineno <= b), None)
            if span is None:
                continue
            test_end = node.test.end_lineno or node.test.lineno
            if any((path, ln) in switch_at for ln in range(node.lineno, test_end + 1)):
                continue  # a tensor condition: both branches are compiled (Switch)
            body, orelse = _branch_range(node.body), _branch_range(node.orelse)
            got_body, got_else = is_covered(body), is_covered(orelse)
            if got_body and orelse and not got_else and _makes_ops(node.orelse):
                out.append((path, orelse[0], orelse[1]))
            if not got_body and _makes_ops(node.body) and \
                    (got_else or (not orelse and _went_past(node, lines, span))):
                out.append((path, body[0], body[1]))
    found = sorted(set(out))
    # a branch inside another folded one says nothing more
    return [r for r in found if not any(o != r and o[0] == r[0] and o[1] <= r[1] and r[2] <= o[2] for o in found)]


def _went_past(node: ast.If, lines: set, span: Tuple[int, int]) -> bool:
    """An op of the graph comes from the ``if``'s condition or from after the statement in
    the same function: the compiler went past an ``if`` (without ``else``) whose body left
    nothing."""
    end = node.end_lineno or node.lineno
    test_end = node.test.end_lineno or node.test.lineno
    return any(node.lineno <= ln <= test_end for ln in lines) or any(end < ln <= span[1] for ln in lines)

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

from ..project import ProjectIndex
from ..scopes import CellResolver
from ..source import SourceError, SourceFile

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

    def contains(self, path: Optional[str], line: Optional[int]) -> bool:
        if path is None or line is None:
            return False
        path = os.path.abspath(path)
        return any(s.path == path and s.start <= line <= s.end for s in self.spans)


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
    from ..scopes import discover

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
        for dotted in set(mod.imports.names.values()):
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

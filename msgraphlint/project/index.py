"""Module summaries and the project index that resolves names across modules.

A ``ModuleSummary`` is the small, picklable digest of one module that scope
discovery needs (imports, classes with their bases and methods, functions and
the calls they make). The ``ProjectIndex`` holds the summaries of the linted
files and loads sibling modules lazily (bounded: only modules a name actually
points to), so ``class Block(BaseLayer)`` with ``BaseLayer`` from another file of
the project is understood without parsing the whole tree. The installed
``mindspore`` package is never opened: its names are recognised by import path.
"""

from __future__ import annotations

import ast
import keyword
import os
import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from contextvars import ContextVar

from ..cache import runcache
from ..parse.astutil import def_span, fold, per_tree, statement_defs, walk_no_ctx, walk_statements
from .evidence import ArgSite, outgoing
from .imports import ImportMap
from ..parse.source import SourceError, SourceFile

JIT_DECORATORS = frozenset({"mindspore.jit", "mindspore.ms_function", "mindspore.ops.jit"})


@dataclass
class CallEdge:
    line: int
    col: int
    kind: str      # "self" (self.m(...)) | "dotted" (resolved dotted name) | "attr" (self.<attr>.m(...): "attr.m")
    target: str


@dataclass
class FuncSummary:
    qualname: str
    name: str
    lineno: int
    class_name: Optional[str] = None
    is_jit: bool = False
    calls: Optional[List[CallEdge]] = None   # None: not computed yet (ProjectIndex.calls_of)
    capture_mode: Optional[str] = None       # jit(capture_mode="bytecode") etc.; None: MindSpore's default (ast)
    enclosing: Tuple[int, ...] = ()          # nested definition: lines of the enclosing defs, outermost first


@dataclass
class ClassSummary:
    qualname: str
    name: str
    lineno: int
    bases: List[str] = field(default_factory=list)   # dotted names (may be unresolvable)
    methods: Dict[str, FuncSummary] = field(default_factory=dict)
    attrs: Dict[str, str] = field(default_factory=dict)  # self.<attr> -> attribute kind (see attr_kind)
    enclosing: Tuple[int, ...] = ()   # nested definition: lines of the enclosing defs, outermost first


@dataclass
class ModuleSummary:
    name: str
    path: str
    is_package: bool
    imports: ImportMap
    classes: Dict[str, ClassSummary] = field(default_factory=dict)
    functions: Dict[str, FuncSummary] = field(default_factory=dict)
    graph_hint: bool = False  # mentions mindspore / construct / jit: can hold graph roots
    nested: bool = False      # holds definitions inside functions (keys "<outer>.<locals>.<name>")
    pynative_only: bool = False  # sets PYNATIVE_MODE and never GRAPH_MODE nor jit: not graph code
    pynative_funcs: List[int] = field(default_factory=list)  # `def` lines of module-level functions PyNative by construction
    evidence: List[ArgSite] = field(default_factory=list)  # what it passes to graph entries (evidence.py)
    patches: Tuple[str, ...] = ()  # MindSpore names it rebinds (`nn.Dropout = MyDropout`): mindspore_patches
    mode: str = ""  # what the module's own text says of the mode (mode_evidence): "graph:<line>", "jit:<line>", "pynative:<line>" or ""


_PYNATIVE_SET = re.compile(r"\bmode\s*=\s*(?:[\w.]*\.)?PYNATIVE_MODE\b"
                           # pytest's `@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE])`
                           r"""|parametrize\(\s*["']mode["']\s*,\s*[\[(]\s*(?:[\w.]*\.)?PYNATIVE_MODE\s*,?\s*[\])]""")


def pynative_by_construction(text: str) -> bool:
    """The module runs its Cells in PyNative by construction: it sets ``PYNATIVE_MODE``
    (``set_context(mode=ms.PYNATIVE_MODE)``, ``context.set_context(mode=context.PYNATIVE_MODE)``,
    or its tests are parametrised ``@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE])``)
    and never mentions ``GRAPH_MODE``, ``jit`` (decorator, ``ms.jit(fn)``, ``jit_config``) nor
    ``mode=0``. Decided from the module's own text, not from its folder name: a module that
    switches modes, or jits anything, stays graph code."""
    if "PYNATIVE_MODE" not in text or "GRAPH_MODE" in text or "jit" in text:
        return False
    return bool(_PYNATIVE_SET.search(text)) and not _bounded(text, _MODE_ZERO_AT)


_GRAPH_SET = re.compile(r"\bmode\s*=\s*(?:(?:[\w.]*\.)?GRAPH_MODE\b|0\b)")
_JIT_USE = re.compile(r"@\s*(?:[\w.]*\.)?(?:jit|ms_function)\b|\b(?:jit|ms_function)\s*\(")

# The same tests, each alternative starting with a literal, so that the engine searches for
# that literal instead of trying every position (a leading `\b` is checked at each match:
# _bounded). 7.5 MB of mindformers: 0.52 -> 0.05 s CPU for the three searches.
_WORD = re.compile(r"\w")
_GRAPH_SET_AT = (re.compile(r"mode\s*=\s*(?:(?:[\w.]*\.)?GRAPH_MODE\b|0\b)"),)
_PYNATIVE_SET_AT = (re.compile(r"mode\s*=\s*(?:[\w.]*\.)?PYNATIVE_MODE\b"),)
_PYNATIVE_SET_ANY = (re.compile(
    r"""parametrize\(\s*["']mode["']\s*,\s*[\[(]\s*(?:[\w.]*\.)?PYNATIVE_MODE\s*,?\s*[\])]"""),)
_JIT_USE_AT = (re.compile(r"jit\s*\("), re.compile(r"ms_function\s*\("))
_JIT_USE_ANY = (re.compile(r"@\s*(?:[\w.]*\.)?(?:jit|ms_function)\b"),)
# `\bmode\s*=\s*0\b` (pynative_by_construction, pynative_by_name): 0.03 -> 0.003 s on mindformers
_MODE_ZERO_AT = (re.compile(r"mode\s*=\s*0\b"),)


def _bounded(text: str, at: tuple = (), anywhere: tuple = ()) -> bool:
    """Whether one of ``at`` matches where a word starts (``\\b`` + pattern) or one of
    ``anywhere`` matches: ``_GRAPH_SET.search(text)`` is ``_bounded(text, _GRAPH_SET_AT)``."""
    for rx in anywhere:
        if rx.search(text):
            return True
    for rx in at:
        m = rx.search(text)
        while m is not None:
            p = m.start()
            if p == 0 or not _WORD.match(text, p - 1):
                return True
            m = rx.search(text, p + 1)
    return False


def mode_evidence(text: str, tree: Optional[ast.AST] = None) -> str:
    """What the module's own code says about the execution mode, with the line that says it:
    ``"graph:<line>"`` (a call with ``mode=...GRAPH_MODE`` or ``mode=0``, as ``set_context``
    takes it), else ``"jit:<line>"`` (a ``jit``/``ms_function`` decorator or call), else
    ``"pynative:<line>"`` (a call with ``mode=...PYNATIVE_MODE``), else ``""``: a file that says
    nothing, whose Cells run in whichever mode their callers set (``project/modes.py``).
    The text is searched first; only a file whose text matches is parsed (or its ``tree``
    walked), so comments and docstring examples (``>>> ms.set_context(mode=ms.GRAPH_MODE)``)
    say nothing."""
    if not (("mode" in text and (_bounded(text, _GRAPH_SET_AT)
                                 or _bounded(text, _PYNATIVE_SET_AT, _PYNATIVE_SET_ANY)))
            or (("jit" in text or "ms_function" in text) and _bounded(text, _JIT_USE_AT, _JIT_USE_ANY))):
        return ""
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return ""
    found: Dict[str, int] = {}
    for node in walk_no_ctx(tree):  # (the lowest line of each: any order)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name in ("jit", "ms_function"):
                    found["jit"] = min(found.get("jit", d.lineno), d.lineno)
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if name in ("jit", "ms_function"):
            found["jit"] = min(found.get("jit", node.lineno), node.lineno)
        for kw in node.keywords:
            if kw.arg != "mode":
                continue
            v = kw.value
            mode = v.attr if isinstance(v, ast.Attribute) else getattr(v, "id", None)
            if isinstance(v, ast.Constant) and v.value == 0 and not isinstance(v.value, bool):
                mode = "GRAPH_MODE"
            kind = {"GRAPH_MODE": "graph", "PYNATIVE_MODE": "pynative"}.get(mode or "")
            if kind:
                found[kind] = min(found.get(kind, node.lineno), node.lineno)
    for kind in ("graph", "jit", "pynative"):
        if kind in found:
            return f"{kind}:{found[kind]}"
    return ""


def pynative_by_name(modname: str, text: str) -> bool:
    """The module is named for PyNative and never mentions graph mode: it sits in a package
    called ``pynative`` (mindformers' ``mindformers/pynative/``, whose Cells use ``with``,
    ``try`` and ``yield`` in ``construct``, run by its PyNative trainer) or its own name ends
    in ``_pynative`` (``modeling_deepseek_v3_pynative``), and its text has no ``GRAPH_MODE``,
    ``jit`` nor ``mode=0``. The name is the project's statement of the mode where no
    ``set_context`` in the module says it; a module that mentions graph mode stays graph code
    (``test_grad_pynative.py`` jits)."""
    parts = modname.split(".")
    if not ("pynative" in parts[:-1] or parts[-1] == "pynative" or parts[-1].endswith("_pynative")):
        return False
    return "GRAPH_MODE" not in text and "jit" not in text and not _bounded(text, _MODE_ZERO_AT)


_REBIND_TAIL = re.compile(r"(?:\.\w+)*\.\w+[ \t]*=(?!=)")


def rebinds_at_line_start(text: str, heads: Sequence[str]) -> bool:
    """Whether a line of ``text`` starts (after spaces and tabs) with ``head.x… =`` for one of
    ``heads``: ``re.search(r"\\n[ \\t]*(?:h1|h2…)(?:\\.\\w+)*\\.\\w+[ \\t]*=(?!=)", "\\n" + text)``,
    found from the ``head.`` occurrences (``str.find``) instead of trying the pattern at every
    line: several times faster on model code, where a line seldom starts so."""
    for head in heads:
        needle = head + "."
        at = text.find(needle)
        while at >= 0:
            i = at
            while i > 0 and text[i - 1] in " \t":
                i -= 1
            if (i == 0 or text[i - 1] == "\n") and _REBIND_TAIL.match(text, at + len(head)):
                return True
            at = text.find(needle, at + 1)
    return False


def mindspore_patches(tree: ast.Module, imports: ImportMap, text: str) -> Tuple[str, ...]:
    """The MindSpore names a module rebinds, monkey-patching MindSpore for the code that runs
    after it: `nn.Dropout = MyDropout`, `mindspore.nn.Dropout = ...`, `setattr(nn, "Dropout",
    MyDropout)`, anywhere in the module. Both spellings of each (as imported and normalised)."""
    heads = sorted({k for k, v in imports.names.items() if v == "mindspore" or v.startswith("mindspore.")})
    if not heads:
        return ()
    if not rebinds_at_line_start(text, heads) and not (
            "setattr(" in text and re.search(r"\bsetattr\([ \t]*(?:%s)\b" % "|".join(map(re.escape, heads)), text)):
        return ()
    out: List[str] = []

    def add(base: ast.AST, attr: str) -> None:
        for norm in (True, False):
            q = imports.dotted(base, normalized=norm)
            if q and (q == "mindspore" or q.startswith("mindspore.")):
                out.append(f"{q}.{attr}")

    for node in walk_no_ctx(tree):  # (a sorted set: any order)
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, (ast.Name, ast.Attribute)):
                    add(t.value, t.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) == 3 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            add(node.args[0], node.args[1].value)
    return tuple(sorted(set(out)))


def module_name_for(path: str) -> Tuple[str, str, bool]:
    """(dotted module name, sys.path root, is_package) for a file path."""
    directory, filename = os.path.split(os.path.abspath(path))
    stem = filename[:-3] if filename.endswith(".py") else filename
    is_package = stem == "__init__"
    packages, root = _packages_of(directory)
    parts = packages if is_package else packages + (stem,)
    return ".".join(parts) or stem, root, is_package


#: directory -> (the packages it is nested in, outermost first, and the sys.path root above
#: them): a run asks for each of its files three times, and the files of a folder share it
#: (0.9 % of a cold mindformers run in ``isfile`` calls before). Emptied as each run starts,
#: so a package made or removed between the runs of a process is seen.
_PACKAGES: Dict[str, Tuple[Tuple[str, ...], str]] = runcache.per_run({})


def _packages_of(directory: str) -> Tuple[Tuple[str, ...], str]:
    hit = _PACKAGES.get(directory)
    if hit is None:
        hit = ((), directory)
        if os.path.isfile(os.path.join(directory, "__init__.py")):
            parent, pkg = os.path.split(directory)
            # `mindspore-st-compiler/__init__.py`: no import can name it, so it is a sys.path root
            if pkg.isidentifier() and not keyword.iskeyword(pkg):
                outer, root = _packages_of(parent)
                hit = (outer + (pkg,), root)
        _PACKAGES[directory] = hit
    return hit


PROJECT_MARKERS = ("pyproject.toml", "setup.py", ".git")


def linted_top(paths) -> str:
    """The deepest folder holding every linted path (the project root of files that have
    no project marker above them)."""
    dirs = []
    for p in paths:
        ap = os.path.abspath(p)
        dirs.append(ap if os.path.isdir(ap) else os.path.dirname(ap))
    try:
        return os.path.commonpath(dirs) if dirs else os.path.abspath(".")
    except ValueError:  # different drives (Windows)
        return dirs[0]


def _memoised(memo: dict, source: SourceFile, imports: ImportMap):
    """``_calls_in`` and ``_collect_attrs`` answered from ``memo`` (``STATEMENT_MEMO``) for a def
    whose text (from its first decorator, whole lines) and the module's import map are those of
    an earlier analysis; call edges are kept with lines relative to the def's first line."""
    lines = source.lines
    names = tuple(sorted(imports.names.items()))

    def keep(key, value) -> None:
        if len(memo) > 4096:  # bounded as the scope cache it lives in
            memo.clear()
        memo[key] = value

    def text_of(func) -> Tuple[int, str]:
        start, end = def_span(func)
        return start, "\n".join(lines[start - 1:end])

    def calls_in(func, imports_: ImportMap) -> List[CallEdge]:
        start, text = text_of(func)
        key = ("summary-calls", text, names)
        kept = memo.get(key)
        if kept is None:
            edges = _calls_in(func, imports_)
            keep(key, tuple((e.line - start, e.col, e.kind, e.target) for e in edges))
            return edges
        return [CallEdge(line + start, col, kind, target) for line, col, kind, target in kept]

    def collect_attrs(func, imports_: ImportMap, attrs: Dict[str, str]) -> None:
        if attrs:  # a second __init__: what it adds depends on the first's
            _collect_attrs(func, imports_, attrs)
            return
        key = ("summary-attrs", text_of(func)[1], names)
        kept = memo.get(key)
        if kept is None:
            _collect_attrs(func, imports_, attrs)
            keep(key, dict(attrs))
        else:
            attrs.update(kept)

    return calls_in, collect_attrs


def _calls_in(func: ast.AST, imports: ImportMap) -> List[CallEdge]:
    edges: List[CallEdge] = []
    for node in walk_no_ctx(func):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            edges.append(CallEdge(node.lineno, node.col_offset, "self", f.attr))
            continue
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) \
                and isinstance(f.value.value, ast.Name) and f.value.value.id == "self":
            edges.append(CallEdge(node.lineno, node.col_offset, "attr", f"{f.value.attr}.{f.attr}"))
            continue
        dotted = imports.dotted(f)
        if dotted and not dotted.startswith("mindspore"):
            edges.append(CallEdge(node.lineno, node.col_offset, "dotted", dotted))
    return edges


_TENSOR_FACTORIES = ("mindspore.Tensor", "mindspore.tensor")
_CONTAINERS = ("mindspore.nn.CellList", "mindspore.nn.SequentialCell", "mindspore.nn.CellDict")


_CONST_CASTS = ("int", "float", "bool", "str", "len", "tuple", "max", "min", "round", "abs")


def attr_kind(value: ast.expr, imports: ImportMap, params: frozenset = frozenset()) -> str:
    """Syntactic kind of a value assigned to ``self.<attr>`` (mostly in ``__init__``):
    'cell' | 'container' | 'parameter' | 'tensor' | 'primitive' | 'const' | 'none' |
    'pylist' | 'pydict' | 'call:<dotted>' (a project class or function, resolved later) | 'unknown'.
    Computed bottom-up (``astutil.fold``): a sum of thousands of terms is as deep as a tree gets."""
    if not _attr_kind_parts(value, imports):  # a leaf (most values): no fold
        return _attr_kind_of(value, set(), imports, params)
    return fold(value, lambda v: _attr_kind_parts(v, imports),
                lambda v, kinds: _attr_kind_of(v, set(kinds), imports, params))


def _attr_kind_parts(value: ast.expr, imports: ImportMap) -> list:
    """The sub-expressions whose kinds decide ``value``'s (all of them must be constants)."""
    if isinstance(value, ast.Tuple):
        return value.elts
    if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp)):
        return [c for c in ast.iter_child_nodes(value) if isinstance(c, ast.expr)]
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Name) and value.func.id in _CONST_CASTS:
            return value.args
        dotted = imports.dotted(value.func)
        if dotted and dotted.startswith(("numpy.", "math.")):
            return value.args
    return []


def _attr_kind_of(value: ast.expr, kinds: set, imports: ImportMap, params: frozenset) -> str:
    """``value``'s kind given ``kinds``, those of its ``_attr_kind_parts``."""
    if isinstance(value, ast.Constant):
        return "none" if value.value is None else "const"
    if isinstance(value, (ast.List, ast.ListComp)):
        return "pylist"
    if isinstance(value, (ast.Dict, ast.DictComp, ast.Set)):
        return "pydict"
    if isinstance(value, ast.Tuple):
        return "const" if kinds <= {"const", "none"} else "unknown"
    if isinstance(value, ast.Name):
        if value.id in params:
            return "const"
        dotted = imports.dotted(value)
        return "const" if dotted and dotted.startswith("mindspore.") and dotted.rsplit(".", 1)[1][:1].islower() else "unknown"
    if isinstance(value, ast.Attribute):
        root = value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in params:
            return "const"   # config.hidden_size
        dotted = imports.dotted(value)
        if dotted and dotted.startswith("mindspore.") and not dotted.rsplit(".", 1)[1][:1].isupper():
            return "const"   # mindspore.float32
        return "unknown"
    if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp)):
        return "const" if kinds and kinds <= {"const", "none"} else "unknown"
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Name) and value.func.id in _CONST_CASTS:
            return "const" if kinds <= {"const", "none"} else "unknown"
        if isinstance(value.func, ast.Name) and value.func.id in ("list", "dict", "set"):
            return "pylist" if value.func.id == "list" else "pydict"
        dotted = imports.dotted(value.func)
        if not dotted:
            return "unknown"
        if dotted in _CONTAINERS:
            return "container"
        if dotted == "mindspore.Parameter":
            return "parameter"
        if dotted in _TENSOR_FACTORIES:
            return "tensor"
        if dotted.startswith("mindspore."):
            last = dotted.rsplit(".", 1)[1]
            kind = _catalog_class_kind(dotted)
            if kind is not None:
                return {"cell": "cell", "container": "container", "primitive": "primitive",
                        "tensor": "tensor"}.get(kind, "unknown")
            if dotted.startswith("mindspore.ops.") and last[:1].isupper():
                return "primitive"
            if last[:1].isupper() and (dotted.startswith("mindspore.nn.") or ".nn." in dotted):
                return "cell"   # mindspore.nn.Dense, mindspore.mint.nn.Linear
            if dotted.startswith(("mindspore.ops.", "mindspore.numpy.", "mindspore.mint.")) and not last[:1].isupper():
                return "tensor"
            return "unknown"
        if dotted.startswith(("numpy.", "math.")):
            return "const" if kinds <= {"const", "none"} else "unknown"
        return "call:" + dotted
    return "unknown"


def _catalog_class_kind(dotted: str):
    try:
        from ..infer.catalog import get_catalog
        return get_catalog().class_kind(dotted)
    except Exception:  # catalog unavailable: the name rules below decide
        return None


def _merge_attr(old: Optional[str], new: str) -> str:
    if old is None or old == new:
        return new
    pair = {old, new}
    if "none" in pair:
        other = (pair - {"none"}).pop()
        return "optional" if other in ("tensor", "parameter") else ("const" if other == "const" else other)
    return "unknown"


def _collect_attrs(func: ast.AST, imports: ImportMap, attrs: Dict[str, str]) -> None:
    params = frozenset(a.arg for a in func.args.args + func.args.kwonlyargs) - {"self"}  # type: ignore[attr-defined]
    for node in walk_statements(func.body):  # type: ignore[attr-defined]
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                attrs[t.attr] = _merge_attr(attrs.get(t.attr), attr_kind(value, imports, params))


def _is_jit_decorator(dec: ast.expr, imports: ImportMap) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return imports.dotted(target) in JIT_DECORATORS


# MindSpore's older spelling of the capture mode: ``jit(fn, mode="PIJit")`` is bytecode capture
# (MindSpore's own pi_jit tests read `break_count_` of such functions), ``mode="PSJit"`` is ast
_OLD_MODES = {"PIJit": "bytecode", "PSJit": "ast"}


def _mode_value(arg: Optional[str], value: str) -> Optional[str]:
    if arg == "capture_mode":
        return value
    if arg == "mode":
        return _OLD_MODES.get(value)
    return None


def _capture_mode(decorators, imports: ImportMap) -> Optional[str]:
    """``capture_mode="bytecode"`` (or another literal, or the older ``mode="PIJit"``) given to
    a jit decorator call."""
    for dec in decorators:
        if isinstance(dec, ast.Call) and imports.dotted(dec.func) in JIT_DECORATORS:
            for kw in dec.keywords:
                if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    mode = _mode_value(kw.arg, kw.value.value)
                    if mode is not None:
                        return mode
    return None


# `jit(step)`, `ms.jit(fn=step)`, `jit(self.train_step, ...)`: the wrapped function or method is a jit root
_JIT_WRAP_RE = re.compile(r"\b(?:jit|ms_function)\(\s*(?:(?:fn|function)\s*=\s*)?(self\.)?([A-Za-z_][A-Za-z0-9_]*)\s*([,)])")
_JIT_WRAP_MODE_RE = re.compile(r"""\s*[^()]*?\b(capture_mode|mode)\s*=\s*["'](\w+)["']""")
# `jit(function=Net.construct, capture_mode="bytecode")(net, x)`: a class's method wrapped by name
_JIT_WRAP_CLASS_RE = re.compile(r"\b(?:jit|ms_function)\(\s*(?:(?:fn|function)\s*=\s*)?([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s*([,)])")
# an indented `class` or jit decorator: the file may define graph scopes inside functions
_NESTED_HINT_RE = re.compile(r"^[ \t]+(?:class[ \t]|@[\w.]*(?:jit|ms_function)\b)", re.M)


def _wrap_mode(text: str, m) -> Optional[str]:
    mm = _JIT_WRAP_MODE_RE.match(text, m.end())
    return _mode_value(mm.group(1), mm.group(2)) if mm else None


def bytecode_wrapped_methods(text: str) -> FrozenSet[Tuple[str, str]]:
    """``(class name, method)`` pairs that the module wraps only with bytecode capture,
    ``jit(function=Net.construct, capture_mode="bytecode")`` (or ``mode="PIJit"``), in a module
    that never sets ``GRAPH_MODE`` nor names ast capture: there the method runs under bytecode
    capture. A Cell whose construct is also jitted with ast capture, or whose instances a
    ``GRAPH_MODE`` section calls (MindSpore's pi_jit tests compare both), stays ast."""
    if "jit(" not in text or "GRAPH_MODE" in text or "PSJit" in text or re.search(r"""capture_mode\s*=\s*["']ast""", text):
        return frozenset()
    modes: Dict[Tuple[str, str], Set[Optional[str]]] = {}
    for m in _JIT_WRAP_CLASS_RE.finditer(text):
        if m.group(1) == "self":
            continue
        mode = _wrap_mode(text, m) if m.group(3) == "," else None
        modes.setdefault((m.group(1), m.group(2)), set()).add(mode)
    return frozenset(k for k, v in modes.items() if v == {"bytecode"})


def _jit_wrapped(text: str) -> Tuple[Dict[str, Optional[str]], Dict[str, Optional[str]]]:
    """Names passed to a jit call (plain names, ``self.<method>`` names), each with the
    capture mode the call names (None: the default)."""
    names: Dict[str, Optional[str]] = {}
    methods: Dict[str, Optional[str]] = {}
    if "jit(" not in text and "ms_function(" not in text:
        return names, methods
    for m in _JIT_WRAP_RE.finditer(text):
        mode = _wrap_mode(text, m) if m.group(3) == "," else None
        table = methods if m.group(1) else names
        if table.get(m.group(2)) is None:
            table[m.group(2)] = mode
    return names, methods


def _is_root_candidate(name: str, in_class_with_bases: bool, is_jit: bool) -> bool:
    return is_jit or (in_class_with_bases and name in ("construct", "bprop"))


def _def_nodes(body: list):
    """Function and class definitions in a body, at any statement depth (inside `if`,
    `for`, `with`, `try`), but not inside other definitions."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
            continue
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            v = getattr(node, name, None)
            if v.__class__ is list:
                stack.extend(reversed(v))


class _NestedScan:
    """Definitions inside functions and methods, registered under local keys
    (``test_net.<locals>.Net``, ``make_step.<locals>.step``). MindSpore compiles a Cell
    or a jit function wherever it is defined; its free names resolve to sibling local
    definitions first (an import-map overlay), then to the module's names."""

    def __init__(self, summary: ModuleSummary, imports: ImportMap, wrapped: Dict[str, Optional[str]],
                 modname: str) -> None:
        self.summary = summary
        self.imports = imports
        self.wrapped = wrapped
        self.bytecode_methods: FrozenSet[Tuple[str, str]] = frozenset()
        self.modname = modname

    def scan(self, func: ast.AST, key: str, enclosing: Tuple[int, ...], imports: ImportMap) -> None:
        defs = list(_def_nodes(func.body))  # type: ignore[attr-defined]
        if not defs:
            return
        enclosing = enclosing + (func.lineno,)  # type: ignore[attr-defined]
        local = {d.name: f"{self.modname}.{key}.<locals>.{d.name}" for d in defs}
        overlay = ImportMap(dict(imports.names, **local))
        for d in defs:
            dkey = f"{key}.<locals>.{d.name}"
            if isinstance(d, ast.ClassDef):
                cs = ClassSummary(f"{self.modname}.{dkey}", d.name, d.lineno,
                                  bases=[b for b in (overlay.dotted(b) for b in d.bases) if b], enclosing=enclosing)
                for item in d.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if item.name == "__init__":
                            _collect_attrs(item, overlay, cs.attrs)
                        cs.methods[item.name] = FuncSummary(
                            f"{cs.qualname}.{item.name}", item.name, item.lineno, class_name=dkey,
                            is_jit=any(_is_jit_decorator(x, overlay) for x in item.decorator_list),
                            calls=_calls_in(item, overlay),
                            capture_mode=_capture_mode(item.decorator_list, overlay)
                            or ("bytecode" if (d.name, item.name) in self.bytecode_methods else None),
                            enclosing=enclosing)
                        self.scan(item, f"{dkey}.{item.name}", enclosing, overlay)
                self.summary.classes[dkey] = cs
            else:
                is_jit = d.name in self.wrapped or any(_is_jit_decorator(x, overlay) for x in d.decorator_list)
                mode = _capture_mode(d.decorator_list, overlay) or self.wrapped.get(d.name)
                self.summary.functions[dkey] = FuncSummary(
                    f"{self.modname}.{dkey}", d.name, d.lineno, is_jit=is_jit, calls=_calls_in(d, overlay),
                    capture_mode=mode, enclosing=enclosing)
                self.scan(d, dkey, enclosing, overlay)


#: editors: a dict kept between the analyses of one open document (the language server's scope
#: cache, set by ``runner.run_source``), in which ``summarize`` keeps the call edges and the
#: ``__init__`` attributes of each def by its text and the module's import map, so an edit
#: recomputes them only for the defs it changed; None (the default) elsewhere
STATEMENT_MEMO: "ContextVar[Optional[dict]]" = ContextVar("msgraphlint_statement_memo", default=None)


def summarize(source: SourceFile, modname: str, is_package: bool = False, eager_calls: bool = False) -> ModuleSummary:
    """The module's digest. Shallow by design (this runs on every candidate file):
    call edges are computed now only for graph-root candidates (construct/bprop of
    classes with bases, jit functions); other functions get theirs on demand
    (``ProjectIndex.calls_of``) when scope discovery reaches them — unless
    ``eager_calls`` (worker processes: the main process has no trees to go back to).
    Definitions inside functions are summarised only in files whose text shows an
    indented ``class`` or jit decorator, or a ``jit(name)`` call."""
    tree = source.tree
    imports = ImportMap.from_tree(tree, modname, is_package)
    text = source.text
    summary = ModuleSummary(modname, source.path, is_package, imports,
                            graph_hint=("mindspore" in text or "construct" in text or "jit" in text),
                            pynative_only=pynative_by_construction(text) or pynative_by_name(modname, text),
                            patches=mindspore_patches(tree, imports, text), mode=mode_evidence(text, tree))
    # module-level definitions resolve to this module
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            imports.names.setdefault(node.name, f"{modname}.{node.name}")
    jit_wrapped, jit_methods = _jit_wrapped(text)
    nested = None
    if summary.graph_hint and (jit_wrapped or _NESTED_HINT_RE.search(text)):
        nested = _NestedScan(summary, imports, jit_wrapped, modname)
    bytecode_methods = bytecode_wrapped_methods(text)
    if nested is not None and not summary.pynative_only and "PYNATIVE_MODE" in text:
        lines = text.splitlines()
        summary.pynative_funcs = [node.lineno for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                                  and pynative_by_construction("\n".join(lines[min([d.lineno for d in node.decorator_list]
                                                                                   + [node.lineno]) - 1:node.end_lineno]))]
    if nested is not None:
        nested.bytecode_methods = bytecode_methods
    memo = STATEMENT_MEMO.get()
    calls_in, collect_attrs = (_calls_in, _collect_attrs) if memo is None else _memoised(memo, source, imports)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            is_jit = node.name in jit_wrapped or any(_is_jit_decorator(d, imports) for d in node.decorator_list)
            summary.functions[node.name] = FuncSummary(
                f"{modname}.{node.name}", node.name, node.lineno, is_jit=is_jit,
                calls=calls_in(node, imports) if (is_jit or eager_calls) else None,
                capture_mode=_capture_mode(node.decorator_list, imports) or jit_wrapped.get(node.name))
            if nested is not None:
                nested.scan(node, node.name, (), imports)
        elif isinstance(node, ast.ClassDef):
            cs = ClassSummary(f"{modname}.{node.name}", node.name, node.lineno,
                              bases=[b for b in (imports.dotted(b) for b in node.bases) if b])
            has_bases = bool(node.bases)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if item.name == "__init__":
                        collect_attrs(item, imports, cs.attrs)
                    is_jit = item.name in jit_methods or any(_is_jit_decorator(d, imports) for d in item.decorator_list)
                    cs.methods[item.name] = FuncSummary(
                        f"{cs.qualname}.{item.name}", item.name, item.lineno, class_name=node.name, is_jit=is_jit,
                        calls=calls_in(item, imports)
                        if (eager_calls or _is_root_candidate(item.name, has_bases, is_jit)) else None,
                        capture_mode=_capture_mode(item.decorator_list, imports) or jit_methods.get(item.name)
                        or ("bytecode" if (node.name, item.name) in bytecode_methods else None))
                    if nested is not None:
                        nested.scan(item, f"{node.name}.{item.name}", (), imports)
            summary.classes[node.name] = cs
    summary.nested = any("<locals>" in k for k in summary.classes) or any("<locals>" in k for k in summary.functions)
    summary.evidence = outgoing(tree, imports, modname, {k: c.attrs for k, c in summary.classes.items()}, text, memo)
    return summary


def _functions_by_line(tree: ast.Module) -> Dict[int, ast.AST]:
    out: Dict[int, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(node.lineno, node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.setdefault(item.lineno, item)
    for node in statement_defs(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.setdefault(node.lineno, node)
    return out


def find_function(tree: ast.Module, lineno: int):
    """The function or method defined at ``lineno`` (module level first, then nested);
    the module is indexed once (astutil.per_tree), not scanned per call."""
    return per_tree(tree, "functions_by_line", _functions_by_line).get(lineno)


def all_functions(tree: ast.Module) -> Dict[int, ast.AST]:
    """Every function definition in the module, nested ones included, by ``def`` line."""
    return {node.lineno: node for node in statement_defs(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


class ProjectIndex:
    """Summaries of the linted modules plus lazily loaded siblings they import."""

    def __init__(self, max_lazy_modules: int = 200) -> None:
        self.modules: Dict[str, ModuleSummary] = {}
        self.by_path: Dict[str, ModuleSummary] = {}
        self.roots: List[str] = []
        self._missing: set = set()
        self._lazy_budget = max_lazy_modules
        self.sources: Dict[str, SourceFile] = {}  # path -> parsed source (linted files)
        self.source_provider = None  # optional callable(path) -> SourceFile (the run's read sources)
        self._trees: Dict[str, Optional[ast.Module]] = {}
        self._others: Dict[str, Optional[SourceFile]] = {}  # source_of's memo (the run's answers)
        self._read_here: set = set()  # keys source_of read itself (their trees are not kept in them)
        self.completed: set = set()  # paths whose summaries gained call edges on demand
        self._search_memo: Optional[Tuple[int, List[str]]] = None
        # resolve()'s answers: a name resolves by the registered modules and the ones loaded by
        # name for it (a load only adds, a miss stays one), so an answer holds until _register
        self._resolved: Dict[str, object] = {}
        self._dirs: Dict[str, bool] = {}  # _isdir's answers
        # absolute path -> in-memory text (an editor buffer, stdin) read instead of the file
        # when the module is loaded by name or its tree is asked for
        self.buffers: Dict[str, object] = {}
        # summaries of lazily loaded modules kept between runs of one process (the language
        # server's ``ContextCache``: ``get_lazy``/``put_lazy``, keyed by the file's stat)
        self.lazy_memo = None

    def _read(self, path: str) -> SourceFile:
        text = self.buffers.get(os.path.abspath(path)) if self.buffers else None
        if text is None:
            return SourceFile.read(path)
        return SourceFile.from_bytes(path, text) if isinstance(text, bytes) else SourceFile(path, text)

    def __getstate__(self):
        """Sent to worker processes: summaries only, never parsed trees or sources."""
        state = dict(self.__dict__)
        state["_trees"] = {}
        state["sources"] = {}
        state["_others"] = {}
        state["source_provider"] = None
        state["lazy_memo"] = None
        state["_resolved"] = {}
        return state

    # building -------------------------------------------------------------------
    def add_source(self, source: SourceFile, keep_source: bool = True) -> Optional[ModuleSummary]:
        modname, root, is_package = module_name_for(source.path)
        try:
            summary = summarize(source, modname, is_package)
        except SourceError:
            return None
        self._register(summary, root)
        if keep_source:
            self.sources[os.path.abspath(source.path)] = source
        return summary

    def add_summary(self, summary: ModuleSummary) -> None:
        _, root, _ = module_name_for(summary.path)
        self._register(summary, root)

    def _register(self, summary: ModuleSummary, root: str) -> None:
        # first registration of a module name wins (two scripts named model.py in
        # different folders: each still resolves its own names through by_path)
        self.modules.setdefault(summary.name, summary)
        self.by_path[os.path.abspath(summary.path)] = summary
        self._resolved.clear()
        if root not in self.roots:
            self.roots.append(root)

    def _load(self, modname: str) -> Optional[ModuleSummary]:
        if modname in self.modules:
            return self.modules[modname]
        if modname in self._missing or modname.split(".")[0] == "mindspore" or self._lazy_budget <= 0:
            return None
        rel = modname.replace(".", os.sep)
        parent = os.path.dirname(rel)
        for root in self._search_roots():
            if parent and not self._isdir(os.path.join(root, parent)):
                continue  # (both candidates lie in that folder: `a.b.Net` under a root without a/b)
            for cand in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
                if os.path.isfile(cand):
                    self._lazy_budget -= 1
                    memo = self.lazy_memo if not (self.buffers and os.path.abspath(cand) in self.buffers) else None
                    summary = memo.get_lazy(cand, modname) if memo is not None else None
                    if summary is None:
                        try:
                            src = self._read(cand)
                            summary = summarize(src, modname, cand.endswith("__init__.py"))
                        except (OSError, SourceError):
                            continue
                        if memo is not None:
                            memo.put_lazy(cand, modname, summary)
                    self.modules[modname] = summary
                    self.by_path.setdefault(os.path.abspath(cand), summary)
                    return summary
        self._missing.add(modname)
        return None

    def _isdir(self, path: str) -> bool:
        """``os.path.isdir``, asked once per folder for the index (a run's view of the tree, as
        its ``_missing`` is): most names loaded by name and missed are ``module.Class``, whose
        folder ``module/`` does not exist under any root."""
        got = self._dirs.get(path)
        if got is None:
            got = self._dirs[path] = os.path.isdir(path)
        return got

    def _search_roots(self) -> List[str]:
        """Where lazily loaded modules are looked for: the import roots of the indexed files,
        then the folders above them up to the nearest project marker (at most three levels).
        A namespace ``src`` folder (no ``__init__.py``) is its files' import root, but the
        script that imports ``src.utils`` runs from the folder above it, whose files may
        not be indexed (a ``train.py`` that never names MindSpore is not summarised)."""
        if self._search_memo is not None and self._search_memo[0] == len(self.roots):
            return self._search_memo[1]
        out = list(self.roots)
        for root in self.roots:
            d = root
            for _ in range(3):
                if any(os.path.exists(os.path.join(d, m)) for m in PROJECT_MARKERS):
                    break
                parent = os.path.dirname(d)
                if parent == d:
                    break
                d = parent
                if d not in out:
                    out.append(d)
        self._search_memo = (len(self.roots), out)
        return out

    # resolving ------------------------------------------------------------------
    def resolve(self, dotted: str, _depth: int = 0):
        """Resolve a dotted name to ("module"|"class"|"function"|"method", summary-object, module) or None."""
        if dotted.startswith("mindspore") or _depth > 5:
            return None
        if _depth == 0:
            memo = self._resolved
            if dotted in memo:
                return memo[dotted]
            memo[dotted] = got = self._resolve(dotted, 0)
            return got
        return self._resolve(dotted, _depth)

    def _resolve(self, dotted: str, _depth: int):
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            mod = self._load(".".join(parts[:cut]))
            if mod is None:
                continue
            rest = parts[cut:]
            if not rest:
                return ("module", mod, mod)
            if "<locals>" in rest:
                return self._resolve_local(mod, rest)
            head = rest[0]
            if head in mod.classes:
                cls = mod.classes[head]
                if len(rest) == 1:
                    return ("class", cls, mod)
                if len(rest) == 2 and rest[1] in cls.methods:
                    return ("method", cls.methods[rest[1]], mod)
                return None
            if head in mod.functions and len(rest) == 1:
                return ("function", mod.functions[head], mod)
            # re-exported name (from .layers import Base in __init__.py)
            target = mod.imports.names.get(head)
            if target and target != dotted and not target.startswith(mod.name + "." + head):
                return self.resolve(".".join([target] + rest[1:]), _depth + 1)
            return None
        return None

    @staticmethod
    def _resolve_local(mod: ModuleSummary, rest: List[str]):
        """``test_x.<locals>.Net`` (a class or function defined inside a function)."""
        for cut in range(len(rest), 0, -1):
            key = ".".join(rest[:cut])
            tail = rest[cut:]
            if key in mod.classes:
                cls = mod.classes[key]
                if not tail:
                    return ("class", cls, mod)
                if len(tail) == 1 and tail[0] in cls.methods:
                    return ("method", cls.methods[tail[0]], mod)
                return None
            if key in mod.functions:
                return ("function", mod.functions[key], mod) if not tail else None
        return None

    def calls_of(self, func: FuncSummary, mod: ModuleSummary) -> List[CallEdge]:
        """Call edges of a function, computed on first use from the cached tree (or by
        re-reading its file: only helpers reached from graph scopes get here)."""
        if func.calls is None:
            tree = self._tree_for(mod.path)
            node = find_function(tree, func.lineno) if tree is not None else None
            func.calls = _calls_in(node, mod.imports) if node is not None else []
            self.completed.add(os.path.abspath(mod.path))
        return func.calls

    #: the largest file :meth:`source_of` reads from disk (a linted file has its own budget)
    MAX_OTHER_BYTES = 10 * 1024 * 1024
    #: how many answers :meth:`source_of` keeps (texts; their trees are bounded apart)
    MAX_OTHERS = 4096

    def source_of(self, path: str) -> Optional[SourceFile]:
        """Another file's source as this run sees it, for rules (``RuleContext.source_of``):
        the source the run read (from its buffer where it has one), else its in-memory
        buffer (an editor's unsaved document, stdin), else the file decoded as any linted
        file (BOM, coding cookie; at most ``MAX_OTHER_BYTES``). Memoised for the run; None,
        never an exception, when it cannot be read or decoded."""
        key = os.path.abspath(path)
        memo = self._others
        if key in memo:
            return memo[key]
        # the run's own sources first: those of buffers were read from the buffer
        src: Optional[SourceFile] = self.sources.get(key)
        if src is None and self.source_provider is not None:
            src = self.source_provider(key)
        if src is None:
            try:
                if (self.buffers and key in self.buffers) or os.path.getsize(key) <= self.MAX_OTHER_BYTES:
                    src = self._read(key)
            except (OSError, SourceError, ValueError):
                src = None
            if src is not None:
                self._read_here.add(key)
        if len(memo) >= self.MAX_OTHERS:
            memo.pop(next(iter(memo)))
        memo[key] = src
        return src

    def tree_of(self, path: str) -> Optional[ast.Module]:
        """The parsed tree of :meth:`source_of`'s source; None when it cannot be read or parsed."""
        return self._tree_for(path)

    def _tree_for(self, path: str):
        key = os.path.abspath(path)
        if key in self._trees:
            return self._trees[key]
        tree = None
        src = self.source_of(key)
        if src is not None:
            kept = key not in self._read_here or src._tree is not None
            try:
                tree = src.tree
            except SourceError:
                tree = None
            if not kept:
                src._tree = None  # a file read for a rule: its tree lives in the bounded memo only
        if len(self._trees) > 64:  # bounded: scope discovery visits files roughly in order
            self._trees.pop(next(iter(self._trees)))
        self._trees[key] = tree
        return tree

    def module_of_path(self, path: str) -> Optional[ModuleSummary]:
        return self.by_path.get(os.path.abspath(path))

    def has_mindspore_patches(self) -> bool:
        """Whether any known module rebinds a MindSpore name (memoised per module count)."""
        memo = self.__dict__.get("_patch_memo")
        if memo is None or memo[0] != len(self.modules):
            memo = self._patch_memo = (len(self.modules), any(m.patches for m in list(self.modules.values())))
        return memo[1]

    def mindspore_patches_for(self, path: str, imported: Iterable[str] = ()) -> FrozenSet[str]:
        """The MindSpore names rebound (``ModuleSummary.patches``) by the file's module or a
        project module it imports, transitively: the patches that have run when its code
        runs. ``imported``: the dotted modules the file's ``import a.b`` statements name."""
        start = self.module_of_path(path)
        if start is None or not self.has_mindspore_patches():
            return frozenset()
        seen, stack, out = {start.name}, [start], set(start.patches)
        for name in imported:  # `import pkg.patches` binds only `pkg` in the import map
            dep = self.modules.get(name)
            if dep is not None and dep.name not in seen:
                seen.add(dep.name)
                stack.append(dep)
                out.update(dep.patches)
        while stack:
            mod = stack.pop()
            for dotted in set(mod.imports.names.values()):
                parts = dotted.split(".")
                for cut in range(len(parts), 0, -1):
                    dep = self.modules.get(".".join(parts[:cut]))
                    if dep is not None:
                        if dep.name not in seen:
                            seen.add(dep.name)
                            stack.append(dep)
                            out.update(dep.patches)
                        break
        return frozenset(out)

    def iter_classes(self) -> Iterable[Tuple[ModuleSummary, ClassSummary]]:
        for mod in list(self.by_path.values()):
            for cls in mod.classes.values():
                yield mod, cls

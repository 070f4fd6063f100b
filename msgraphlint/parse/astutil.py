"""Fast ast walkers (about 1.5x faster than ``ast.walk``: no generator per node; a node class's
fields that cannot hold a node are never read), and
per-tree indexes built once (``per_tree``) so lookups by name or line never rescan a module."""

from __future__ import annotations

import ast
import re
from ast import AST
from collections import OrderedDict
from typing import Any, Callable, Dict, Iterator, List

# The fields of a node class that may hold nodes, from the ASDL signature CPython gives each
# class as its docstring (``Name(identifier id, expr_context ctx)``): fields typed
# ``identifier``, ``int``, ``string`` or ``constant`` never hold a node and are not read, nor is
# ``ctx`` (a ``Load``/``Store``/``Del`` marker). A class whose docstring does not name a field
# (a subclass, a future node) has that field read and tested as before.
_PRIMITIVE_TYPES = frozenset({"identifier", "int", "string", "constant"})
_SIGNATURE_FIELD = re.compile(r"(\w+)[*?]? (\w+)")
_NO_CTX_FIELDS: Dict[type, tuple] = {}
_ALL_FIELDS: Dict[type, tuple] = {}  # the same with ``ctx``


def _node_fields(cls: type, ctx: bool = False) -> tuple:
    doc = cls.__doc__ or ""
    head = doc.split("\n", 1)[0]
    typed: Dict[str, str] = {}
    if head.startswith(cls.__name__ + "(") and head.endswith(")"):
        typed = {name: kind for kind, name in _SIGNATURE_FIELD.findall(head[len(cls.__name__) + 1:-1])}
    fields = tuple(f for f in cls._fields if (ctx or f != "ctx") and typed.get(f) not in _PRIMITIVE_TYPES)
    (_ALL_FIELDS if ctx else _NO_CTX_FIELDS)[cls] = fields
    return fields


def children(node: AST) -> List[AST]:
    out: List[AST] = []
    cls = node.__class__
    fields = _ALL_FIELDS.get(cls)
    if fields is None:
        fields = _node_fields(cls, ctx=True)
    for name in fields:
        v = getattr(node, name, None)
        if v.__class__ is list:
            for x in v:
                if isinstance(x, AST):
                    out.append(x)
        elif isinstance(v, AST):
            out.append(v)
    return out


def walk(root: AST) -> Iterator[AST]:
    """Every node under ``root`` (root included), depth first, in no promised order."""
    stack = [root]
    pop, push = stack.pop, stack.append
    fields_of = _ALL_FIELDS
    while stack:
        node = pop()
        yield node
        cls = node.__class__
        fields = fields_of.get(cls)
        if fields is None:
            fields = _node_fields(cls, ctx=True)
        for name in fields:
            v = getattr(node, name, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, AST):
                        push(x)
            elif isinstance(v, AST):
                push(v)


def walk_with_parents(root: AST, parents: dict) -> Iterator[AST]:
    """Depth-first, source order; records ``parents[id(child)] = node``."""
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        yield node
        kids = children(node)
        for child in kids:
            parents[id(child)] = node
        for child in reversed(kids):
            push(child)


def walk_no_ctx(root: AST) -> Iterator[AST]:
    """``walk`` (same order) without the ``Load``/``Store``/``Del`` markers of ``ctx`` fields:
    for searches that look for other node types (a third fewer nodes to visit)."""
    stack = [root]
    pop, push = stack.pop, stack.append
    fields_of = _NO_CTX_FIELDS
    while stack:
        node = pop()
        yield node
        cls = node.__class__
        fields = fields_of.get(cls)
        if fields is None:
            fields = _node_fields(cls)
        for name in fields:
            v = getattr(node, name, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, AST):
                        push(x)
            elif isinstance(v, AST):
                push(v)


def bfs_no_ctx(root: AST) -> List[AST]:
    """``ast.walk``'s nodes in ``ast.walk``'s order (breadth first), without the ``ctx``
    field's ``Load``/``Store``/``Del`` markers (leaves: leaving them out moves no other node),
    as a list; a field read per node instead of ``ast.iter_child_nodes``' generators."""
    out = [root]
    add = out.extend
    i = 0
    while i < len(out):
        add(children_no_ctx(out[i]))
        i += 1
    return out


def children_no_ctx(node: AST) -> List[AST]:
    """``children`` without the ``Load``/``Store``/``Del`` marker of the ``ctx`` field."""
    cls = node.__class__
    fields = _NO_CTX_FIELDS.get(cls)
    if fields is None:
        fields = _node_fields(cls)
    out: List[AST] = []
    for name in fields:
        v = getattr(node, name, None)
        if v.__class__ is list:
            for x in v:
                if isinstance(x, AST):
                    out.append(x)
        elif isinstance(v, AST):
            out.append(v)
    return out


def walk_with_parents_no_ctx(root: AST, parents: dict) -> Iterator[AST]:
    """``walk_with_parents`` without the ``ctx`` field's ``Load``/``Store``/``Del`` markers
    (about a third of the nodes of a module; no rule visits them or asks for their parent):
    the same nodes otherwise, in the same order, with the same parents recorded."""
    stack = [root]
    pop, extend = stack.pop, stack.extend
    fields_of = _NO_CTX_FIELDS
    while stack:
        node = pop()
        yield node
        cls = node.__class__
        fields = fields_of.get(cls)
        if fields is None:
            fields = _node_fields(cls)
        if not fields:
            continue  # a leaf (Name, Constant, an operator)
        kids: List[AST] = []
        add = kids.append
        for name in fields:
            v = getattr(node, name, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, AST):
                        add(x)
            elif isinstance(v, AST):
                add(v)
        for child in kids:
            parents[id(child)] = node
        kids.reverse()
        extend(kids)


_BLOCK_NODES = (ast.stmt, ast.excepthandler, ast.match_case)
#: the fields that hold statements (and the handlers and cases that hold them)
_BLOCK_FIELD_NAMES = ("body", "orelse", "finalbody", "handlers", "cases")
_BLOCK_FIELDS: Dict[type, tuple] = {}
_STATEMENT_FIELDS: Dict[type, tuple] = {}  # walk_statements: class -> its fields of _BLOCK_FIELD_NAMES


def walk_statements_with_parents(root: AST, parents: dict) -> Iterator[AST]:
    """The statements under ``root`` (root included) with the ``except`` handlers and ``match``
    cases that hold them, in :func:`walk_with_parents_no_ctx`'s order and with the same parents
    recorded for them: a statement is never inside an expression, so a dispatch that visits
    statement types only need not walk expressions (their parents are not recorded)."""
    stack = [root]
    pop, push = stack.pop, stack.append
    fields_of = _BLOCK_FIELDS
    block = _BLOCK_NODES
    while stack:
        node = pop()
        yield node
        cls = node.__class__
        fields = fields_of.get(cls)
        if fields is None:
            fields = fields_of[cls] = tuple(f for f in cls._fields if f in _BLOCK_FIELD_NAMES)
        kids: List[AST] = []
        for name in fields:
            v = getattr(node, name, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, block):
                        kids.append(x)
        for child in kids:
            parents[id(child)] = node
        for child in reversed(kids):
            push(child)


def walk_statements(body: list) -> Iterator[AST]:
    """Statements only (into compound statements' bodies, not into expressions)."""
    stack = list(reversed(body))
    pop, extend = stack.pop, stack.extend
    fields_of = _STATEMENT_FIELDS
    while stack:
        node = pop()
        yield node
        cls = node.__class__
        fields = fields_of.get(cls)
        if fields is None:  # the block fields a node of this class has, in _BLOCK_FIELD_NAMES' order
            fields = fields_of[cls] = tuple(f for f in _BLOCK_FIELD_NAMES
                                            if f in getattr(cls, "_fields", _BLOCK_FIELD_NAMES))
        for name in fields:  # (a simple statement has none: no getattr per name)
            v = getattr(node, name, None)
            if v.__class__ is list:
                extend(reversed(v))


_DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def statement_defs(tree: AST) -> List[AST]:
    """The ``def``, ``async def`` and ``class`` statements of a module, nested ones included,
    in :func:`walk_statements`' order; one walk per tree (``per_tree``), shared by the
    indexes of classes and functions that each walked every statement of the module."""
    return per_tree(tree, "statement_defs",
                    lambda t: [n for n in walk_statements(t.body) if isinstance(n, _DEF_TYPES)])


def def_span(node: AST) -> tuple:
    """(first, last) 1-based lines of a ``def`` or ``class`` statement, its decorators included:
    the whole lines a memo keyed by a definition's text reads."""
    return (min([node.lineno] + [d.lineno for d in node.decorator_list]),  # type: ignore[attr-defined]
            getattr(node, "end_lineno", None) or node.lineno)  # type: ignore[attr-defined]


def classes_within(tree: AST, first: int, last: int) -> List[str]:
    """The names of the ``class`` statements of ``tree`` (nested ones included) whose line is in
    ``first..last``, sorted; from a by-line list built once per tree (``per_tree``)."""
    from bisect import bisect_left
    lines = per_tree(tree, "class_lines", lambda t: sorted(
        (n.lineno, n.name) for n in statement_defs(t) if isinstance(n, ast.ClassDef)))
    return sorted({name for _, name in lines[bisect_left(lines, (first, "")):bisect_left(lines, (last + 1, ""))]})


def fold(root: AST, deps: Callable[[AST], list], combine: Callable[[AST, list], Any]) -> Any:
    """A value computed bottom-up without recursion, whatever the depth of ``root`` (a chain
    of thousands of ``+`` that ``ast.parse`` reads): ``deps(node)`` lists the sub-nodes whose
    values ``combine(node, values)`` needs (in that order); an iterative post-order computes
    each of them once, before the node that needs it."""
    done: Dict[int, Any] = {}
    needs: Dict[int, list] = {}
    stack = [root]
    while stack:
        node = stack[-1]
        key = id(node)
        if key in done:
            stack.pop()
            continue
        kids = needs.get(key)
        if kids is None:
            kids = needs[key] = deps(node)
            stack.extend(k for k in reversed(kids) if id(k) not in done)
            continue
        stack.pop()
        done[key] = combine(node, [done[id(k)] for k in kids])
    return done[id(root)]


def deeper_than(node: AST, limit: int) -> bool:
    """The tree under ``node`` is more than ``limit`` levels deep (an iterative check that
    stops at the first path that long): before a recursive library call such as
    ``ast.unparse``, which a chain of thousands of operators would take past the recursion
    limit."""
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        if d > limit:
            return True
        for name in n._fields:
            v = getattr(n, name, None)
            if v.__class__ is list:
                for x in v:
                    if isinstance(x, AST):
                        stack.append((x, d + 1))
            elif isinstance(v, AST):
                stack.append((v, d + 1))
    return False


def dump(node: AST) -> str:
    """A text that tells trees apart like ``ast.dump`` (node types, fields, constants; not
    its exact spelling), built without recursion: for comparing two expressions at any depth."""
    out: List[str] = []
    stack: List[Any] = [(False, node)]  # (True, text to write) or (False, a value to dump)
    while stack:
        literal, item = stack.pop()
        if literal:
            out.append(item)
        elif isinstance(item, AST):
            out.append(item.__class__.__name__ + "(")
            stack.append((True, ")"))
            for name in reversed(item._fields):
                stack.append((False, getattr(item, name, None)))
                stack.append((True, name + "="))
        elif item.__class__ is list:
            out.append("[")
            stack.append((True, "]"))
            stack.extend((False, x) for x in reversed(item))
        else:
            out.append(repr(item) + ",")
    return "".join(out)


_UNPARSE_DEPTH = 60


def unparse(node: AST) -> str:
    """``ast.unparse``, which recurses three to six frames per level: a tree deeper than 60
    levels (no annotation or default value of ordinary code is) is given as its ``dump``
    instead, which still tells different trees apart."""
    if deeper_than(node, _UNPARSE_DEPTH):
        return dump(node)
    return ast.unparse(node)


_PER_TREE: "OrderedDict[tuple, tuple]" = OrderedDict()
_PER_TREE_SIZE = 16
#: entries ``per_tree`` dropped while :func:`defer_release` is on (the language server): an
#: evicted entry often holds the last reference to an earlier text's tree, and freeing a tree
#: of 3,500 lines costs a millisecond or two inside the edit that evicts it; the server frees
#: them once that edit's diagnostics are out (``release_deferred``, from
#: ``lsp.analysis.IdleCollector.poke``) and when idle
_EVICTED: List[tuple] = []
_DEFERRED = [False]
_EVICTED_MAX = 16  # (an edit evicts ~5) more than this before a release: freed where evicted after all


def defer_release(on: bool = True) -> None:
    """Keep what ``per_tree`` evicts until :func:`release_deferred` (off: free it at once)."""
    _DEFERRED[0] = on
    if not on:
        release_deferred()


def release_deferred() -> int:
    """Free the entries kept since the last call; how many there were."""
    n = len(_EVICTED)
    _EVICTED.clear()
    return n


def walk_outside_defs(*roots: AST) -> Iterator[AST]:
    """The nodes under ``roots`` (the roots included) without entering ``def``, ``lambda`` or
    ``class`` bodies (a root that is one is skipped whole)."""
    stack = list(roots)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield n
        stack.extend(ast.iter_child_nodes(n))


def per_tree(tree: AST, what: str, build: Callable[[AST], Any]) -> Any:
    """``build(tree)``, computed once per tree (the last few trees are remembered): an index
    of a module's classes or functions, so that a lookup per scope costs O(1), not a scan of
    the module (a 12 MB file has thousands of classes and scopes)."""
    key = (id(tree), what)
    hit = _PER_TREE.get(key)
    if hit is not None and hit[0] is tree:
        _PER_TREE.move_to_end(key)
        return hit[1]
    value = build(tree)
    _PER_TREE[key] = (tree, value)
    if len(_PER_TREE) > _PER_TREE_SIZE:
        old = _PER_TREE.popitem(last=False)
        if _DEFERRED[0] and len(_EVICTED) < _EVICTED_MAX:
            _EVICTED.append(old)
    return value


def last_assignment_before(func: AST, name: str, lineno: int):
    """The ``name = …`` statement (a plain ``Assign``) in ``func`` with the highest line
    before ``lineno``, or None: the value a name was last given, read by line order."""
    last = None
    for stmt in ast.walk(func):
        if isinstance(stmt, ast.Assign) and stmt.lineno < lineno and any(
                isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            if last is None or stmt.lineno > last.lineno:
                last = stmt
    return last

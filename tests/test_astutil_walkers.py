"""The fast walkers of ``msgraphlint.parse.astutil`` read only the fields of a node class that
may hold nodes (from the ASDL signature CPython gives each class as its docstring). They must
visit exactly the nodes, in exactly the order, and record exactly the parents that a walk over
``ast.iter_child_nodes`` (every field) does, on every node type Python's grammar has."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from msgraphlint.parse import astutil

REPO = Path(__file__).resolve().parent.parent
_CTX = (ast.Load, ast.Store, ast.Del)

# every statement and expression kind of the versions the project supports (3.9+), parsed as
# this interpreter can
SOURCES = ['''
import a.b as c, d
from .. import e as f
from g import *
global h
def fn(p, /, q: int = 1, *args, r, s=2, **kw) -> "T":  # type: ignore
    nonlocal_ = {**kw, "k": [1, 2.5, 3j, b"x", None, ..., True]}
    def inner():
        nonlocal x
        x = ~x & 1 | 2 ^ 3 << 4 >> 5 // 6 % 7 ** 8 / 9 - +1
    x, *y = t = (1, 2)
    x += -y[::2] @ z[1:2, ...]
    del x[0], y.z
    lam = lambda u, *v, w=3, **k: u if v else w
    f"{x!r:>{width}} {y=}"
    comp = [i for i in range(3) if i for j in (1,)] + list({k: v for k, v in d.items()}) + [*{s for s in t}]
    gen = (a < b <= c is not d in e not in f for a in g)
    assert x and not y or z, "msg"
    with open(x) as (a, b), ctx():
        pass
    try:
        raise E from None
    except (A, B) as err:
        pass
    except C:
        pass
    else:
        pass
    finally:
        pass
    while x:
        break
    else:
        continue
    if (n := 10) > 5:
        return
    yield x
    yield from y
class K(Base, metaclass=M):
    attr: int = 1
    @decorator(arg)
    async def m(self):
        await x
        async for i in y:
            pass
        async with z as q:
            pass
        return x[1] if x else y.z.w
''']
if sys.version_info >= (3, 10):
    SOURCES.append('''
match command:
    case [Point(x=0, y=py), *rest] if py > 0:
        pass
    case {"k": 1, **others}:
        pass
    case Point(1, 2) | None | True | -1 | 1 + 2j | "s":
        pass
    case [a, b as c, _]:
        pass
''')
if sys.version_info >= (3, 11):
    SOURCES.append('''
try:
    pass
except* (A, B) as eg:
    pass
''')
if sys.version_info >= (3, 12):
    SOURCES.append('''
type Alias[T: int, *Ts, **P] = list[T]
def g[U](x: U) -> U: return x
class C[V]: pass
''')


def _trees() -> List[ast.AST]:
    trees = [ast.parse(s, type_comments=True) for s in SOURCES]
    for p in sorted((REPO / "msgraphlint" / "parse").glob("*.py")) + sorted((REPO / "reference_model").rglob("*.py")):
        trees.append(ast.parse(p.read_text(encoding="utf-8")))
    return trees


def _ref_walk(root, ctx: bool):
    """Depth first, source order (the last child pushed first), with parents: the reference."""
    order, parents = [], {}
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        kids = [c for c in ast.iter_child_nodes(node) if ctx or not isinstance(c, _CTX)]
        for c in kids:
            parents[id(c)] = node
        stack.extend(reversed(kids))
    return order, parents


def test_the_samples_hold_every_node_type_of_this_python():
    seen = {type(n) for t in _trees() for n in ast.walk(t)}
    # the node classes a parse can give (not the abstract bases nor the deprecated aliases)
    concrete = {c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST)
                and c._fields is not None and c not in (ast.AST,) and not c.__subclasses__()
                and c.__name__ not in ("Num", "Str", "Bytes", "NameConstant", "Ellipsis", "Index", "ExtSlice",
                                       "Suite", "Param", "AugLoad", "AugStore", "Expression", "Interactive",
                                       "FunctionType", "slice")}
    missing = {c.__name__ for c in concrete - seen}
    # operators a sample does not spell are all leaves without fields; every node with fields is there
    assert not {m for m in missing if getattr(ast, m)._fields}, missing


@pytest.mark.parametrize("ctx", [False, True])
def test_walkers_visit_and_record_parents_as_the_reference_walk(ctx):
    for tree in _trees():
        ref_order, ref_parents = _ref_walk(tree, ctx)
        parents: Dict[int, ast.AST] = {}
        walker = astutil.walk_with_parents if ctx else astutil.walk_with_parents_no_ctx
        got = list(walker(tree, parents))
        assert [id(n) for n in got] == [id(n) for n in ref_order]
        assert parents == ref_parents
        if not ctx:
            assert sorted(map(id, astutil.walk_no_ctx(tree))) == sorted(map(id, ref_order))
            assert [id(n) for n in astutil.bfs_no_ctx(tree)] == [id(n) for n in ast.walk(tree)
                                                                 if not isinstance(n, _CTX)]
        else:
            assert sorted(map(id, astutil.walk(tree))) == sorted(map(id, ref_order))
        for node in ref_order[:2000]:
            kids = list(ast.iter_child_nodes(node))
            assert astutil.children(node) == kids
            assert astutil.children_no_ctx(node) == [k for k in kids if not isinstance(k, _CTX)]


def test_a_field_the_signature_does_not_name_is_still_read():
    class Custom(ast.expr):  # a node class without an ASDL docstring
        _fields = ("inner", "label")

    node = Custom(inner=ast.Name(id="x", ctx=ast.Load()), label="not a node")
    assert [type(c).__name__ for c in astutil.children_no_ctx(node)] == ["Name"]
    assert [type(c).__name__ for c in astutil.walk_no_ctx(node)] == ["Custom", "Name"]


def test_statement_defs_are_the_defs_of_the_statement_walk_in_its_order():
    for tree in _trees():
        expected = [n for n in astutil.walk_statements(tree.body)
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        assert astutil.statement_defs(tree) == expected
        assert astutil.statement_defs(tree) is astutil.statement_defs(tree)  # one walk per tree
    nested = ast.parse("def f():\n    class C:\n        async def g(self):\n            def h(): pass\n")
    assert [n.name for n in astutil.statement_defs(nested)] == ["f", "C", "g", "h"]


def _ref_statements(body):
    """walk_statements as it read every block field name of every statement (the reference)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            v = getattr(node, name, None)
            if v.__class__ is list:
                stack.extend(reversed(v))


def test_statement_walk_reads_each_class_block_fields_as_the_reference():
    statements = 0
    for tree in _trees():
        ref = [id(n) for n in _ref_statements(tree.body)]
        assert [id(n) for n in astutil.walk_statements(tree.body)] == ref
        statements += len(ref)
    assert statements > 1000
    # the samples enter every kind of block, try handlers and match cases included
    kinds = {type(n).__name__ for t in _trees() for n in astutil.walk_statements(t.body)}
    assert {"Try", "ExceptHandler", "Match", "match_case", "With", "While", "If", "For"} <= kinds

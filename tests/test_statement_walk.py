"""A dispatch whose rules visit statement types only walks the statements alone
(``astutil.walk_statements_with_parents``); a rule then asking for an expression's parent gets
what a full walk records (``dispatch._LazyParents``). And a text-gated rule
(``Rule.requires_text``) is gated on the text as Python reads its identifiers (NFKC)."""

from __future__ import annotations

import ast
import textwrap
import types
from pathlib import Path

import pytest

from msgraphlint.engine import registry
from msgraphlint.engine.dispatch import _LazyParents
from msgraphlint.parse.astutil import walk_statements_with_parents, walk_with_parents_no_ctx
from msgraphlint.rule import Rule

from helpers import lint, write_tree

REPO = Path(__file__).resolve().parent.parent

SAMPLE = '''
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    """doc"""
    scale = 2

    @staticmethod
    def helper(x, *, y=lambda q: q + 1):
        try:
            for i in range(3):
                if i:
                    continue
                else:
                    x = x + i
        except (ValueError, TypeError) as e:
            with open("f") as f, open("g"):
                raise
        else:
            while x:
                x -= 1
        finally:
            pass
        match x:
            case [a, *_] if a > 0:
                return a
            case {"k": v}:
                return v
            case _:
                return [v for v in range(2) if v]

    async def run(self):
        async with self.lock:
            async for item in self.queue:
                yield item
        return None


def top(flag):
    class Inner:
        def f(self):
            global G
            del G
    return Inner
'''


def _both(tree: ast.AST):
    full: dict = {}
    every = list(walk_with_parents_no_ctx(tree, full))
    blocks = (ast.stmt, ast.excepthandler, ast.match_case, ast.mod)
    stmts: dict = {}
    walked = list(walk_statements_with_parents(tree, stmts))
    return [n for n in every if isinstance(n, blocks)], walked, full, stmts


def test_the_statement_walk_is_the_full_walk_restricted_to_statements():
    tree = ast.parse(SAMPLE)
    expected, walked, full, stmts = _both(tree)
    assert walked == expected  # the same nodes, in the same order
    assert len(walked) > 30  # handlers, match cases, nested defs and classes are all in
    assert any(isinstance(n, ast.match_case) for n in walked) and any(isinstance(n, ast.ExceptHandler) for n in walked)
    assert all(stmts[id(n)] is full[id(n)] for n in walked[1:])  # and each with the parent a full walk records
    assert id(tree) not in stmts


def test_the_statement_walk_on_the_projects_own_sources():
    for path in sorted((REPO / "msgraphlint").rglob("*.py"))[:80]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        expected, walked, full, stmts = _both(tree)
        assert walked == expected, path
        assert all(stmts[id(n)] is full[id(n)] for n in walked[1:]), path


def _answers(table_extra, lazy_parents=False, visited=()):
    """What ``ctx._parents`` answers for every node of SAMPLE while each statement (and each
    node of a ``visited`` type) is visited, and after the walk, with a dispatch of statement
    types (plus ``table_extra``)."""
    from msgraphlint.engine.dispatch import _dispatch
    tree = ast.parse(SAMPLE)
    every = list(ast.walk(tree))
    at = {id(n): i for i, n in enumerate(every)}  # a parent as its position: two trees compare
    seen = []
    ctx = types.SimpleNamespace(_parents=None, rule=None)

    def visit(node, ctx):
        seen.append([at[id(ctx._parents.get(id(n)))] if id(n) in ctx._parents else None for n in every])

    table = {t: [(None, visit)] for t in (ast.ClassDef, ast.FunctionDef, ast.If, ast.ExceptHandler, ast.Return,
                                          ast.AugAssign)}  # x -= 1: its operator is a shared node
    table.update({t: [(None, lambda node, ctx: None)] for t in table_extra})
    table.update({t: [(None, visit)] for t in visited})
    _dispatch(tree, table, ctx, lazy_parents=lazy_parents)
    seen.append([at[id(ctx._parents.get(id(n)))] if id(n) in ctx._parents else None for n in every])
    return type(ctx._parents), seen


def test_a_statement_only_dispatch_answers_as_the_full_walk_does():
    lazy, by_statements = _answers(())
    full, by_full_walk = _answers((ast.Name,))  # an expression type: the full walk
    assert lazy is _LazyParents and full is dict
    assert len(by_statements) == len(by_full_walk) > 10
    assert by_statements == by_full_walk  # at every visit, and after the walk


def test_a_module_walk_with_lazy_parents_answers_as_the_recorded_map():
    """The module-scope walk records no parents (``_dispatch(..., lazy_parents=True)``); at every
    visit of a statement, a call, a name or an attribute, and after the walk, each node's parent
    is what the walk that records them answers."""
    expressions = (ast.Call, ast.Name, ast.Attribute, ast.Constant)
    lazy, by_lazy = _answers((), lazy_parents=True, visited=expressions)
    full, by_map = _answers((), visited=expressions)
    assert lazy is _LazyParents and full is dict
    assert len(by_lazy) == len(by_map) > 50
    assert by_lazy == by_map
    shared, _ = _answers((ast.Add,), lazy_parents=True)  # a shared node type: recorded as it walks
    assert shared is dict


def test_lazy_parents_answer_what_the_walk_has_reached():
    tree = ast.parse(SAMPLE)
    full: dict = {}
    list(walk_with_parents_no_ctx(tree, full))
    parents = _LazyParents(tree)
    walk = walk_statements_with_parents(tree, parents)
    assert next(walk) is tree
    first = next(walk)  # import mindspore as ms
    assert parents.get(id(tree)) is None and id(tree) not in parents  # the root: no walk needed
    assert parents._full is None
    parents.at = first
    assert parents.get(id(first)) is tree
    assert id(first.names[0]) not in parents  # its alias: not reached while it is visited
    assert parents._full is not None  # that question made the full map
    second = next(walk)
    parents.at = second
    assert parents[id(first.names[0])] is first  # now reached
    parents.at = None  # the walk is over: every parent is known
    cls = tree.body[2]
    assert parents.get(id(cls.bases[0])) is cls
    assert all(parents.get(k) is v for k, v in full.items())
    assert parents.get(12345) is None and 12345 not in parents
    with pytest.raises(KeyError):
        parents[12345]


class ClassParents(Rule):
    code = "WALK901"
    name = "walk-class-parents"
    summary = "reports what ctx.parent and ctx.ancestors answer for a class and its first base"
    message = "{answer}"
    scope = "module"

    def visit_ClassDef(self, node: ast.ClassDef, ctx) -> None:
        chain = [type(a).__name__ for a in ctx.ancestors(node)]
        base = node.bases[0] if node.bases else None
        up = type(ctx.parent(base)).__name__ if base is not None else "-"
        ctx.report(node, answer=f"{node.name}: {'/'.join(chain)}; base's parent {up}")


ClassParents.__module__ = __name__


def test_a_statement_only_module_rule_sees_the_parents_a_full_walk_gives(tmp_path, monkeypatch):
    ep = types.SimpleNamespace(name="walk-test", value="t:RULES", load=lambda: [ClassParents])
    builtin = registry._entry_points()
    monkeypatch.setattr(registry, "_entry_points", lambda: builtin + [ep])
    registry.load_rules.cache_clear()
    try:
        write_tree(tmp_path, {"m.py": SAMPLE})
        got = sorted((f.line, f.message) for f in lint([tmp_path / "m.py"], select=["WALK"]))
    finally:
        registry.load_rules.cache_clear()
    # a full walk records a node's children after the rules visit it: the base has no parent yet
    assert got == [(5, "Net: Module; base's parent NoneType"),
                   (41, "Inner: FunctionDef/Module; base's parent -")]


CONFIG_HEAD = "import mindformers as mf\n"  # (no config name spelled in ASCII elsewhere)


@pytest.mark.parametrize("spelling", ["TransformerConfig", "ＴransformerConfig", "TransformerＣonfig"])
def test_msg621_gate_reads_identifiers_as_python_does(tmp_path, spelling):
    # Python reads ``ＴransformerConfig`` as ``TransformerConfig`` (NFKC); the text gate must too
    write_tree(tmp_path, {"m.py": CONFIG_HEAD + f"cfg = mf.{spelling}(hidden_size=4096, num_heads=30, tensor_parallel=8)\n"})
    got = sorted((f.code, f.line, f.message) for f in lint([tmp_path / "m.py"], select=["MSG621"]))
    assert [g[:2] for g in got] == [("MSG621", 2), ("MSG621", 2)]  # 30 heads over 8 devices; 4096 over 30 heads
    assert "num_heads" in got[0][2] + got[1][2]


def test_msg621_gate_is_the_names_it_reports(tmp_path):
    from msgraphlint_rules.transformer_config import TransformerConfigLiteral, _CONFIG_NAMES
    assert set(TransformerConfigLiteral.requires_text) == set(_CONFIG_NAMES)
    # a file that says Config but calls none of them is not walked by MSG621 and reports nothing
    write_tree(tmp_path, {"m.py": textwrap.dedent("""
        class MyConfig:
            pass
        cfg = MyConfig(hidden_size=4096, num_heads=30, tensor_parallel=8)
    """)})
    assert [f for f in lint([tmp_path / "m.py"], select=["MSG621"])] == []


def test_bfs_no_ctx_is_ast_walk_without_the_ctx_markers():
    from msgraphlint.parse.astutil import bfs_no_ctx
    markers = (ast.Load, ast.Store, ast.Del)
    for path in [None] + sorted((REPO / "rules").rglob("*.py"))[:40]:
        tree = ast.parse(SAMPLE if path is None else path.read_text(encoding="utf-8"))
        expected = [n for n in ast.walk(tree) if not isinstance(n, markers)]
        assert bfs_no_ctx(tree) == expected, path


def test_the_words_a_text_holds_are_searched_once_per_text_object():
    from msgraphlint.engine import dispatch as engine_dispatch

    words = frozenset({"TransformerConfig", "set_context", "absent_word"})
    text = "import mindformers as mf\ncfg = mf.Ｔransformer" + "Config(num_layers=2)\n"
    got = engine_dispatch._present_words(text, words)
    assert got == {"TransformerConfig"}  # found in the NFKC form only
    assert engine_dispatch._present_words(text, words) is got  # the same text: the kept answer
    other = "".join(["ms.set_", "context(mode=0)\n"])
    assert engine_dispatch._present_words(other, words) == {"set_context"}
    # a new text object with other contents is searched, not answered from an old id
    for i in range(20):
        engine_dispatch._present_words(f"x = {i}\n", words)
    assert engine_dispatch._present_words("set_context\n" + "y\n", words) == {"set_context"}


def test_the_full_dispatch_visits_as_the_parent_walk_yields():
    """``_dispatch``'s inlined walk (no ctx types in the table): every node visited in
    ``walk_with_parents_no_ctx``'s order, with the parents recorded so far exactly those the
    generator had recorded when it yielded that node."""
    from msgraphlint.engine.dispatch import _dispatch

    texts = [SAMPLE, (REPO / "reference_model" / "gpt_layer.py").read_text(encoding="utf-8")] \
        if (REPO / "reference_model" / "gpt_layer.py").exists() else [SAMPLE]
    for text in texts:
        tree = ast.parse(text)
        expected = []
        ref: dict = {}
        for node in walk_with_parents_no_ctx(tree, ref):
            expected.append((id(node), id(ref.get(id(node))), len(ref)))
        got = []
        ctx = types.SimpleNamespace(_parents=None, rule=None)

        def visit(node, c):
            got.append((id(node), id(c._parents.get(id(node))), len(c._parents)))

        table = {cls: [(object(), visit)] for cls in {type(n) for n in ast.walk(tree)}
                 if cls not in (ast.Load, ast.Store, ast.Del)}
        _dispatch(tree, table, ctx)
        assert got == expected
        assert ctx._parents == ref

"""``entries.python_inputs(..., text)``: a def that is not host code and whose lines spell no
nested ``def``/``class`` is skipped; what host code calls and passes is the same as without the
text, on real modules and on nested defs that matter (a host-named function inside a method).
``text.word_lines``, which finds those lines, agrees with ``re``'s ``\b...\b`` line by line."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

from msgraphlint.infer.entries import python_inputs
from msgraphlint.parse.text import split_lines, word_lines

REPO = Path(__file__).resolve().parent.parent

NESTED = textwrap.dedent('''
    import mindspore as ms
    from mindspore import nn, Tensor


    class Net(nn.Cell):
        def construct(self, x, flag):
            return x


    class Holder:
        def build(self):
            def test_inside():          # host code by its name, nested in a plain method
                net = Net()
                net(Tensor([1.0]), 0.5)
            return test_inside

        def other(self):
            class Local(nn.Cell):
                def construct(self, x):
                    return x
            return Local
''')


def _answers(text, with_lines):
    tree = ast.parse(text)
    graph = {id(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "construct"}
    got = python_inputs(tree, graph, text if with_lines else None)
    by_line = {id(n): n.lineno for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    place = {id(n): (n.lineno, n.col_offset) for n in ast.walk(tree) if hasattr(n, "lineno")}  # a receiver call
    out = (sorted(by_line[i] for i in got.called),
           sorted((by_line[i], p, re.sub(r" at 0x[0-9a-f]+", "", repr(v))) for i, ps in got.params.items()
                  for p, v in ps.items()),
           sorted((by_line[i], p, repr([(line, lit, place.get(r)) for line, lit, r in v]))
                  for i, ps in got.literals.items() for p, v in ps.items()))
    got.release()
    return out


def test_a_host_function_nested_in_a_method_is_still_scanned():
    plain = _answers(NESTED, False)
    assert plain[0], "the nested test function's call of Net() is host code"
    assert _answers(NESTED, True) == plain


def test_the_text_skip_changes_nothing_on_real_modules():
    paths = sorted((REPO / "reference_model").rglob("*.py")) + sorted((REPO / "fixtures").rglob("*.py"))[:300]
    checked = 0
    for p in paths:
        text = p.read_text(encoding="utf-8", errors="replace")
        try:
            plain = _answers(text, False)
        except SyntaxError:
            continue
        assert _answers(text, True) == plain, p
        checked += 1
    assert checked > 50


_KEYWORDS = re.compile(r"\b(?:def|class)\b")


def _regex_lines(text):
    return [i for i, line in enumerate(split_lines(text), 1) if _KEYWORDS.search(line)]


def test_word_lines_agrees_with_the_regular_expression():
    samples = [
        "def f():\n    pass\n", "class", "  def", "undef\nclasses\n_def def_ xdef\n", "classclass defdef\n",
        "x = 1\r\ndef g(): pass\r\n\rclass C: pass", "éclass class² ２def def\u00b2 ｄef\n",
        "a.def_b(c)\n(def)\n[class]\n", "\x0cdef\x0bclass\n", "", "\n\n", "#def\n'class'\ndef",
    ]
    for text in samples:
        assert word_lines(text, ("def", "class")) == _regex_lines(text), repr(text)
    paths = sorted((REPO / "msgraphlint").rglob("*.py")) + sorted((REPO / "fixtures").rglob("*.py"))[:300]
    for p in paths:
        text = p.read_text(encoding="utf-8", errors="replace")
        assert word_lines(text, ("def", "class")) == _regex_lines(text), p

"""MSG410/MSG411: syntax MindSpore 2.10 graph mode rejects (every construct measured by compiling)."""

from __future__ import annotations

import textwrap

import pytest

from helpers import codes_at, lint, write_tree

SYNTAX = ["MSG410", "MSG411"]


def _lint_body(tmp_path, body, pre="", sig="self, x", select=SYNTAX):
    src = ("import mindspore as ms\nimport mindspore.nn as nn\nfrom mindspore import ops\n" + textwrap.dedent(pre)
           + f"\nclass Net(nn.Cell):\n    def construct({sig}):\n" + textwrap.indent(textwrap.dedent(body), "        "))
    (tmp_path / "m.py").write_text(src, encoding="utf-8")
    found = lint([tmp_path / "m.py"], select=select, config_file=None)
    first = src.splitlines().index(f"    def construct({sig}):") + 2  # 1-based line of the body's first line
    return [(f.line - first + 1, f.code) for f in found], found


# (body, 1-based line of the finding within the body) -- each one fails to compile at both levels
REJECTED = {
    "try_except": ("try:\n    y = x * 2\nexcept ValueError:\n    y = x\nreturn y\n", 1),
    "try_finally": ("y = x\ntry:\n    y = x * 2\nfinally:\n    y = y + 1\nreturn y\n", 2),
    "del": ("y = x * 2\ndel y\nreturn x\n", 2),
    "del_item": ("d = {'a': x}\ndel d['a']\nreturn x\n", 2),
    "nonlocal": ("k = 1\ndef inner():\n    nonlocal k\n    k = 2\n    return k\ninner()\nreturn x * k\n", 3),
    "nested_class": ("class K:\n    v = 2\nreturn x * K.v\n", 1),
    "set_comp": ("s = {i for i in range(3)}\nreturn x * len(s)\n", 1),
    "set_literal": ("s = {1, 2}\nreturn x * len(s)\n", 1),
    "walrus": ("if (n := x.shape[0]) > 1:\n    return x * n\nreturn x\n", 1),
    "match": ("match x.ndim:\n    case 2:\n        return x * 2\n    case _:\n        return x\n", 1),
    "import": ("import math\nreturn x * math.pi\n", 1),
    "import_from": ("from math import pi\nreturn x * pi\n", 1),
    "for_else": ("for i in range(3):\n    x = x + 1\nelse:\n    x = x * 2\nreturn x\n", 1),
    "while_else": ("i = 0\nwhile i < 3:\n    x = x + 1\n    i += 1\nelse:\n    x = x * 2\nreturn x\n", 2),
    "yield": ("yield x * 2\n", 1),
    "yield_from": ("yield from [x]\n", 1),
    "nested_async": ("async def inner(t):\n    return t\nreturn x * 2\n", 1),
    "complex": ("c = 1j\nreturn x * 2\n", 1),
    "uncalled_inner_try": ("def inner(t):\n    try:\n        return t\n    except Exception:\n        return t\nreturn x * 2\n", 2),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_constructs(tmp_path, name):
    body, line = REJECTED[name]
    got, found = _lint_body(tmp_path, body)
    assert got == [(line, "MSG410")], name
    assert "does not compile" in found[0].full_message and "`" in found[0].full_message


def test_with_on_plain_context_manager(tmp_path):
    got, found = _lint_body(tmp_path, "with CM():\n    y = x * 2\nreturn y\n", pre="""
        class CM:
            def __enter__(self):
                return self
            def __exit__(self, *a):
                return False
    """)
    assert got == [(1, "MSG410")]
    assert "Only support jit_class instance" in found[0].full_message


def test_with_on_jit_class_is_fine(tmp_path):
    got, _ = _lint_body(tmp_path, "with CM():\n    y = x * 2\nreturn y\n", pre="""
        @ms.jit_class
        class CM:
            def __enter__(self):
                return self
            def __exit__(self, *a):
                return False
    """)
    assert got == []


# each one compiles at both levels (measured): must stay clean
ACCEPTED = {
    "global_read": ("global G\nreturn x * G\n", "G = 1\n", "self, x"),
    "lambda_default": ("f = lambda y, k=2: y * k\nreturn f(x)\n", "", "self, x"),
    "star_args": ("return args[0] * 2\n", "", "self, *args"),
    "kwargs": ("return x * 2\n", "", "self, x, **kwargs"),
    "kwonly": ("return x * k\n", "", "self, x, *, k=2"),
    "star_assign": ("first, *rest = ops.split(x, 2, axis=1)\nreturn first + rest[0]\n", "", "self, x"),
    "eval_literal": ("k = eval('2 + 3')\nreturn x * k\n", "", "self, x"),
    "dict_comp": ("d = {i: x * i for i in range(3)}\nreturn d[0] + d[2]\n", "", "self, x"),
    "dict_merge": ("base = {'a': 1.0}\ncfg = {**base, 'b': 2.0}\nreturn x * cfg['a']\n", "", "self, x"),
    "genexp": ("return sum(x * i for i in range(3))\n", "", "self, x"),
    "nested_def": ("def inner(t, k=2):\n    return t * k\nreturn inner(x)\n", "", "self, x"),
    "set_call": ("s = set([1, 2])\nreturn x * len(s)\n", "", "self, x"),
    "assert_const": ("assert x.ndim == 2, 'need 2d'\nreturn x * 2\n", "", "self, x"),
    "raise_fstring": ("if x.ndim != 2:\n    raise ValueError(f'bad {x}')\nreturn x * 2\n", "", "self, x"),
    "fstring_const": ("s = f'n={x.shape[0]}'\nreturn x * 2, s\n", "", "self, x"),
    "format_const": ("s = '{}_{}'.format('a', x.ndim)\nreturn x * 2, s\n", "", "self, x"),
    "percent_local": ("n = x.shape[0]\ns = '%s_%d' % ('a', n)\nreturn x * 2, s\n", "", "self, x"),
    "len_tuple": ("t = ('a', 'b')\nreturn x * len(t)\n", "", "self, x"),
    "break_continue": ("for i in range(4):\n    if i == 1:\n        continue\n    if i == 3:\n        break\n    x = x + i\nreturn x\n", "", "self, x"),
    "slice_ellipsis": ("s = slice(0, 1)\nreturn x[..., s]\n", "", "self, x"),
    "chained": ("a = b = x * 2\nreturn a + b if 1 < x.ndim <= 3 else a\n", "", "self, x"),
    # measured on 2.10 CPU with self.objs = [Obj()] set in __init__: both compile
    "subscript_attr_read": ("k = self.objs[0].x\nreturn x * k\n", "", "self, x"),
    "attr_through_a_name": ("o = self.objs[0]\no.x = 2\nreturn x\n", "", "self, x"),
}


# an attribute of a subscript as an assignment target; each measured on 2.10 CPU (a CellList,
# list or dict element; default level and STRICT): "In graph mode, only attribute and name of
# class members can be assigned. But got Subscript."
@pytest.mark.parametrize("body,line", [
    ("self.objs[0].x = 2\nreturn x\n", 1),
    ("self.objs[0].x += 2\nreturn x\n", 1),
    ("self.objs[0].x, y = 2, x\nreturn y\n", 1),
    ("self.d['a'].x = 2\nreturn x\n", 1),
    ("l = [Obj()]\nl[0].x = 3\nreturn x\n", 2),
])
def test_attribute_of_a_subscript_as_target(tmp_path, body, line):
    got, found = _lint_body(tmp_path, body, pre="class Obj:\n    x = 1\n")
    assert got == [(line, "MSG410")]
    assert "But got Subscript" in found[0].full_message


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_constructs_stay_clean(tmp_path, name):
    body, pre, sig = ACCEPTED[name]
    got, _ = _lint_body(tmp_path, body, pre=pre, sig=sig)
    assert got == [], name


@pytest.mark.parametrize("body,line,what", [
    ("s = '%s_%d' % ('a', x.ndim)\nreturn x * 2, s\n", 1, "graph variable"),
    ("s = '%d' % x.shape[0]\nreturn x * 2, s\n", 1, "graph variable"),
    ("exec('pass')\nreturn x * 2\n", 1, "exec"),
    ("return x * len('abc')\n", 1, "len()"),
    ("s = 'abc'\nreturn x * len(s)\n", 2, "len()"),
    ("s = f'n={x.shape[0]}'\nreturn x * len(s)\n", 2, "len()"),
])
def test_strict_incompatible_expressions(tmp_path, body, line, what):
    got, found = _lint_body(tmp_path, body)
    assert got == [(line, "MSG411")]
    assert what in found[0].full_message and "STRICT" in found[0].full_message


def test_len_of_a_string_attribute(tmp_path):
    src = """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self, mode="a"):
                super().__init__()
                self.tag = "layer_2"
                self.mode = mode

            def construct(self, x):
                return x * len(self.tag) * len(self.mode)
    """
    write_tree(tmp_path, {"m.py": src})
    found = lint([tmp_path / "m.py"], select=SYNTAX, config_file=None)
    assert [(f.line, f.code) for f in found] == [(10, "MSG411")]  # self.mode may be anything


@pytest.mark.parametrize("body", [
    "msg = f'value {x}'\nreturn x * 2, msg\n",
    "s = 'v %s' % x\nreturn x * 2, s\n",
    "s = 'v {}'.format(x.mean())\nreturn x * 2, s\n",
    "ops.print_(f'value {x}')\nreturn x * 2\n",
    "s = str(x)\nreturn x * 2, s\n",
])
def test_tensor_values_formatted_into_strings_are_fallback(tmp_path, body):
    got, found = _lint_body(tmp_path, body, select=SYNTAX + ["MSG401"])
    assert got == [(1, "MSG401")]
    assert "PyExecute" in found[0].full_message and "STRICT" in found[0].full_message


def test_fstring_message_says_strict_changes_the_value(tmp_path):
    _, found = _lint_body(tmp_path, "msg = f'value {x}'\nreturn msg\n", select=["MSG401"])
    assert "comes back as a Tensor" in found[0].full_message


def test_async_helper_and_generator_helper_reported_at_def_and_call(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/util.py": """
            async def twice(t):
                return t * 2

            def pairs(t):
                yield t * 2
                yield t + 1
        """,
        "pkg/net.py": """
            import mindspore.nn as nn
            from .util import twice, pairs

            class Net(nn.Cell):
                def construct(self, x):
                    a, b = pairs(x)
                    return twice(a + b)
        """,
    })
    found = lint([tmp_path], select=SYNTAX + ["MSG004"], config_file=None)
    assert codes_at(found) == [("net.py", 6, "MSG004"), ("net.py", 7, "MSG004"),
                               ("util.py", 1, "MSG410"), ("util.py", 5, "MSG410")]
    async_def = next(f for f in found if f.path.endswith("util.py") and f.line == 1)
    assert "Parse Lambda Function Fail" in async_def.full_message


def test_code_outside_graph_scopes_is_not_checked(tmp_path):
    write_tree(tmp_path, {"m.py": """
        import mindspore.nn as nn

        def load(path):
            with open(path) as fh:
                try:
                    return {line for line in fh}
                except OSError:
                    return None

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                import math
                self.axes = {0, 1}

            def construct(self, x):
                return x * 2
    """})
    assert lint([tmp_path], select=SYNTAX, config_file=None) == []


@pytest.mark.parametrize("body,line", [
    ("a = {'p': x}\nb = {**a}\nreturn b['p']\n", 2),
    ("a = {'p': x}\nc = {'q': x * 3}\nb = {**a, **c}\nreturn b['q']\n", 3),
    ("a = {i: x * i for i in range(2)}\nb = {**a, 'q': x}\nreturn b[1]\n", 2),
])
def test_dict_unpacking_of_tensor_dicts(tmp_path, body, line):
    got, found = _lint_body(tmp_path, body, select=["MSG412"])
    assert got == [(line, "MSG412")]
    assert "nested tuples" in found[0].full_message


@pytest.mark.parametrize("body", [
    "a = {'p': 1.0}\nb = {**a, 'q': 2.0}\nreturn x * b['p']\n",
    "a = {'p': x}\nb = {'p': a['p'], 'q': x}\nreturn b['p']\n",
    "a = {'p': x}\na = {'p': 1.0}\nb = {**a}\nreturn x * b['p']\n",
])
def test_dict_unpacking_of_constants_is_fine(tmp_path, body):
    got, _ = _lint_body(tmp_path, body, select=["MSG412"])
    assert got == []


@pytest.mark.parametrize("sig,body", [
    # the oracle's case (graph_syntax/statements/test_starred_expression.py): a dict argument
    ("self, kwarg", "return {**kwarg, 'a': 3, ('d', 'e'): 4}\n"),
    ("self, x, cfg", "merged = {**cfg, 'b': 2.0}\nreturn x * merged['a'] + merged['b']\n"),
    ("self, x, cfg", "y = ops.mul(x, **cfg)\nb = {**cfg}\nreturn y\n"),
])
def test_dict_unpacking_of_a_parameter_is_a_mapping(tmp_path, sig, body):
    got, _ = _lint_body(tmp_path, body, sig=sig, select=["MSG412"])
    assert got == []


def test_dict_unpacking_a_tensor_dict_next_to_a_mapping_parameter(tmp_path):
    # the parameter is a mapping; a local dict of tensors is still reported
    got, _ = _lint_body(tmp_path, "a = {'p': x}\nb = {**cfg, **a}\nreturn b['p']\n", sig="self, x, cfg",
                        select=["MSG412"])
    assert got == [(2, "MSG412")]


def test_double_starred_parameter_kind_is_not_a_tensor(tmp_path):
    from msgraphlint.infer.values import double_starred_names
    import ast
    func = ast.parse("def f(self, x, cfg, opts):\n    g(**opts)\n    def inner(q):\n        return {**q}\n"
                     "    return {**cfg, 'a': x}\n").body[0]
    assert double_starred_names(func) == frozenset({"cfg", "opts"})
    # told which lines hold `**` (the engine passes them), it searches only the statements there
    assert double_starred_names(func, [2, 4, 5]) == frozenset({"cfg", "opts"})
    assert double_starred_names(func, [5]) == frozenset({"cfg"})
    assert double_starred_names(func, []) == frozenset()

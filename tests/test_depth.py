"""No recursion limit on valid code (issue 20, item 8): whatever ``ast.parse`` accepts never
ends in MSG000 for depth. Every shape of deep expression the parser reads (chains of
binary operators, attribute, call and subscript chains, unary and conditional chains,
nested lambdas, nested displays and calls up to the tokenizer's 200 brackets, wide boolean,
comparison and f-string lists) is put, at the largest size ``ast.parse`` accepts there, into
every place a different phase walks: module level and class bodies (phase 1 summaries),
``__init__``'s ``self.x =`` (the class's attribute kinds), a Cell's ``construct`` (values,
rules), a helper it calls (scopes), ``@jit`` functions at module level and nested in another
function, default arguments, decorators, training loops and tests calling the Cell (caller
evidence: paramkinds, entries), return statements and conditions.

The run uses the interpreter's default recursion limit (1000; msgraphlint never raises it),
set explicitly for the test so that nothing another test did can hide a deep recursion; in
process, pytest's own frames only make the stack shallower than the CLI's."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

import msgraphlint
from msgraphlint.run import filework
from msgraphlint.run.runner import run_paths

HEADER = "import mindspore as ms\nfrom mindspore import nn, ops\nimport numpy as np\n\n\n"
PY_DEFAULT_RECURSION_LIMIT = 1000
CAP = 3000  # the largest size tried; 3.11's parser stops near 2,990 levels, bracket nesting at 200
WIDE = 1000  # wide shapes (one BoolOp, Compare, f-string, comprehension with n terms) are not deep:
WIDE_SHAPES = frozenset({"and_chain", "compare_chain", "many_for_clauses", "fstring_parts"})  # n = WIDE


# ---- shapes: (builder of the expression text from a size and a leaf, leaves tried) -------------

def _join(op: str) -> Callable[[int, str], str]:
    return lambda n, leaf: f" {op} ".join([leaf] * n)


SHAPES: Dict[str, Tuple[Callable[[int, str], str], Tuple[str, ...]]] = {
    "add_chain": (_join("+"), ("x", "1", "'a'")),                      # BinOp(BinOp(...)): left-deep
    "mixed_binops": (lambda n, leaf: leaf + "".join(f" {'+-*/%'[i % 5]} {leaf}" for i in range(n - 1)), ("x",)),
    "pow_chain": (_join("**"), ("x", "2")),                     # right-deep
    "and_chain": (_join("and"), ("x", "True")),                 # one wide BoolOp
    "or_and_nested": (lambda n, leaf: "(" * n + leaf + f" and {leaf}) or {leaf}" * n, ("x",)),
    "compare_chain": (_join("<"), ("x", "1")),                  # one wide Compare
    "compare_of_sums": (lambda n, leaf: " + ".join([leaf] * (n // 2)) + " < " + " + ".join([leaf] * (n // 2)),
                        ("x",)),
    "nested_calls": (lambda n, leaf: "ops.abs(" * n + leaf + ")" * n, ("x", "1")),
    "calls_of_calls": (lambda n, leaf: leaf + "()" * n, ("x",)),     # f()()(): Call(Call(...))
    "attribute_chain": (lambda n, leaf: leaf + ".a" * n, ("x",)),
    "method_chain": (lambda n, leaf: leaf + ".abs()" * n, ("x",)),
    "method_chain_detach": (lambda n, leaf: leaf + ".abs()" * n + ".detach()", ("x",)),  # torch's spelling
    "subscript_chain": (lambda n, leaf: leaf + "[0]" * n, ("x",)),
    "nested_subscripts": (lambda n, leaf: "x[" * n + leaf + "]" * n, ("0",)),
    "nested_tuples": (lambda n, leaf: "(" * n + leaf + "," + ")" * n, ("x", "1")),
    "nested_lists": (lambda n, leaf: "[" * n + leaf + "]" * n, ("x", "1")),
    "nested_dicts": (lambda n, leaf: "{'k': " * n + leaf + "}" * n, ("x", "1")),
    "unary_minus": (lambda n, leaf: "-" * n + leaf, ("x", "1")),
    "not_chain": (lambda n, leaf: "not " * n + leaf, ("x", "True")),
    "ifexp_chain": (lambda n, leaf: f"{leaf} if {leaf} else " * n + leaf, ("x", "1")),   # in orelse
    "ifexp_in_test": (lambda n, leaf: "(" * n + leaf + f" if {leaf} else {leaf})" * n, ("x",)),
    "nested_lambdas": (lambda n, leaf: "lambda: " * n + leaf, ("x",)),
    "nested_comprehensions": (lambda n, leaf: "[" * n + leaf + " for _ in (1, 2)]" * n, ("x",)),
    "many_for_clauses": (lambda n, leaf: f"[{leaf} " + "for _ in (1, 2) " * n + "]", ("x",)),
    "fstring_parts": (lambda n, leaf: "f'" + ("{" + leaf + "}") * n + "'", ("x",)),
}

# ---- positions: where a phase walks; each builds a whole module around one expression ---------

CELL = ("class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n{init}\n"
        "{extra}    def construct(self, x{defaults}):\n{body}\n\n\n")
LOOP = ("def train(dataset):\n    net = Net()\n    for data, label in dataset.create_tuple_iterator():\n"
        "        loss = net(data)\n    return loss\n")


def _cell(body="        return x", init="        self.w = 1", extra="", defaults="", tail=LOOP) -> str:
    return HEADER + CELL.format(init=init, extra=extra, defaults=defaults, body=body) + tail


POSITIONS: Dict[str, Callable[[str], str]] = {
    "module_level": lambda e: HEADER + f"y = {e}\nprint(y)\n",
    "module_call_arg": lambda e: HEADER + f"ms.set_context(mode=ms.GRAPH_MODE, device_target={e})\n",
    "class_body": lambda e: _cell(extra=f"    scale = {e}\n\n", body="        return x * self.scale"),
    "init_self_attr": lambda e: _cell(init=f"        self.w = {e}", body="        return x + self.w"),
    "construct_assign": lambda e: _cell(body=f"        y = {e}\n        return y"),
    "construct_return": lambda e: _cell(body=f"        return {e}"),
    "construct_if": lambda e: _cell(body=f"        if {e}:\n            x = x * 2\n        return x"),
    "construct_while": lambda e: _cell(body=f"        while {e}:\n            x = x - 1\n        return x"),
    "construct_for_iter": lambda e: _cell(body=f"        for v in {e}:\n            x = x + v\n        return x"),
    "construct_call_args": lambda e: _cell(body=f"        y = ops.matmul(x, {e})\n        return ops.sum(y, dim={e})"),
    "construct_augassign": lambda e: _cell(body=f"        x += {e}\n        return x"),
    "construct_self_write": lambda e: _cell(body=f"        self.w = {e}\n        return x"),
    "construct_print": lambda e: _cell(body=f"        print({e})\n        return x"),
    "construct_subscript": lambda e: _cell(body=f"        return x[{e}]"),
    "construct_method_of": lambda e: _cell(body=f"        return ({e}).sum()"),
    "construct_sizes": lambda e: _cell(body=f"        y = x.reshape({e})\n        z = ops.zeros(({e}, 2), ms.float32)\n"
                                             f"        return y[:{e}] + z"),
    "construct_range_loop": lambda e: _cell(body=f"        y = x\n        for i in range({e}):\n            y += x\n"
                                                  "        return y"),
    "construct_len": lambda e: _cell(body=f"        s = {e}\n        return x * len(s)"),
    "construct_lambda": lambda e: _cell(body=f"        g = lambda v: {e}\n        return g(x)"),
    "construct_default_arg": lambda e: _cell(defaults=f", d={e}", body="        return x + d"),
    "construct_decorator": lambda e: HEADER + "def deco(*a):\n    return lambda f: f\n\n\n"
                                     + _cell(extra=f"    @deco({e})\n", body="        return x"),
    "cell_helper": lambda e: _cell(extra=f"    def helper(self, x):\n        y = {e}\n        return y\n\n",
                                   body="        return self.helper(x)"),
    "module_helper": lambda e: HEADER + f"def helper(x):\n    return {e}\n\n\n"
                               + CELL.format(init="        self.w = 1", extra="", defaults="",
                                             body="        return helper(x)"),
    "jit_module": lambda e: HEADER + f"@ms.jit\ndef step(x):\n    y = {e}\n    if y > 0:\n        y = y * 2\n"
                            f"    return y\n\n\nstep(ms.Tensor([1.0]))\n",
    "jit_nested": lambda e: HEADER + f"def outer():\n    @ms.jit\n    def step(x):\n        return {e}\n"
                            "    return step(ms.Tensor([1.0]))\n\n\nouter()\n",
    "jit_call_form": lambda e: HEADER + f"def make():\n    def step(x):\n        return {e}\n"
                               "    return ms.jit(step)\n\n\nmake()(ms.Tensor([1.0]))\n",
    "jit_default_arg": lambda e: HEADER + f"@ms.jit\ndef step(x, d={e}):\n    return x + d\n\n\n"
                                 "step(ms.Tensor([1.0]))\n",
    "jit_decorator": lambda e: HEADER + f"def deco(*a):\n    return lambda f: f\n\n\n@ms.jit\n@deco({e})\n"
                               "def step(x):\n    return x\n\n\nstep(ms.Tensor([1.0]))\n",
    "training_loop_arg": lambda e: _cell(tail="def train(dataset):\n    net = Net()\n"
                                      "    for data in dataset.create_dict_iterator():\n"
                                      f"        loss = net({e})\n    return loss\n"),
    "tensor_literal_arg": lambda e: _cell(tail=f"def main():\n    net = Net()\n    return net(ms.Tensor({e}))\n\n\n"
                                      "main()\n"),
    "test_calls_cell": lambda e: _cell(tail=f"def test_net():\n    out = Net()({e}, ms.mutable({e}))\n"
                                   "    assert out is not None\n"),
    "module_constant": lambda e: HEADER + f"SCALE = {e}\n\n\n" + _cell(body="        return x * SCALE"),
    "closure_constant": lambda e: HEADER + f"def outer():\n    k = {e}\n\n    @ms.jit\n    def step(x):\n"
                                  "        return x + k\n    return step(ms.Tensor([1.0]))\n\n\nouter()\n",
    "construct_annotation": lambda e: _cell(defaults=f", d: {e} = None", body="        return x"),
    "jit_annotations": lambda e: HEADER + f"@ms.jit\ndef step(x: {e}) -> {e}:\n    return x\n\n\n"
                                 "step(ms.Tensor([1.0]))\n",
    "parametrize": lambda e: HEADER + "import pytest\n\n\n@ms.jit\ndef step(x, v):\n    return x * v\n\n\n"
                             f"@pytest.mark.parametrize('v', [{e}, ({e}, 1)])\ndef test_step(v):\n"
                             "    assert step(ms.Tensor([1.0]), v) is not None\n",
    "config_call": lambda e: HEADER + "from mindformers import TransformerConfig\n\n"
                             f"cfg = TransformerConfig(hidden_size={e}, num_heads={e}, tensor_parallel=[{e}])\n",
    "parent_cell_arg": lambda e: _cell(tail=f"class Outer(nn.Cell):\n    def __init__(self):\n"
                                   "        super().__init__()\n        self.inner = Net()\n\n"
                                   f"    def construct(self, x):\n        return self.inner({e})\n"),
}



# ---- statements nest too: an elif chain is an If in the last one's orelse; blocks and defs nest
# up to the tokenizer's 100 levels of indentation ------------------------------------------------

def _indent(lines: List[str], by: str) -> str:
    return "".join(by + line + "\n" for line in lines)


def _elif_chain(n: int) -> List[str]:
    out = ["if x == 0:", "    y = x"]
    for i in range(1, n):
        out += [f"elif x == {i}:", f"    y = x + {i}"]
    return out + ["else:", "    y = x * 2", "x = y"]


def _nested_blocks(n: int) -> List[str]:
    heads = ["for i{i} in range(2):", "while x > {i}:", "if x > {i}:", "with ctx{i}:", "try:"]
    out, ind = [], ""
    for i in range(n):
        out.append(ind + heads[i % 5].format(i=i))
        ind += "    "
        out.append(ind + f"x = x + {i}")
    out.append(ind + "x = x * 2")
    for i in reversed(range(n)):  # close the `try:`s (innermost first)
        if i % 5 == 4:
            out.append("    " * i + "except ValueError:")
            out.append("    " * i + "    pass")
    return out


def _nested_defs(n: int) -> List[str]:
    out, ind = [], ""
    for i in range(n):
        out.append(ind + f"def f{i}(x):")
        ind += "    "
        out.append(ind + f"x = x + {i}")
    out.append(ind + "return x")
    for i in reversed(range(n - 1)):
        out.append("    " * (i + 1) + f"return f{i + 1}(x)")
    return out + ["x = f0(x)"]


STATEMENT_SHAPES: Dict[str, Callable[[int], List[str]]] = {
    "elif_chain": _elif_chain, "nested_blocks": _nested_blocks, "nested_defs": _nested_defs,
}

STATEMENT_POSITIONS: Dict[str, Callable[[List[str]], str]] = {
    "module_level": lambda st: HEADER + "x = 1\n" + _indent(st, ""),
    "class_body": lambda st: HEADER + "x = 1\n\n\nclass Net(nn.Cell):\n" + _indent(st, "    ")
                             + "\n    def construct(self, x):\n        return x\n\n\nNet()(ms.Tensor([1.0]))\n",
    "init_body": lambda st: _cell(init="        x = 1\n" + _indent(st, "        ") + "        self.w = x"),
    "construct_body": lambda st: _cell(body=_indent(st, "        ") + "        return x"),
    "cell_helper": lambda st: _cell(extra="    def helper(self, x):\n" + _indent(st, "        ") + "        return x\n\n",
                                    body="        return self.helper(x)"),
    "jit_module": lambda st: HEADER + "@ms.jit\ndef step(x):\n" + _indent(st, "    ") + "    return x\n\n\n"
                             "step(ms.Tensor([1.0]))\n",
    "jit_nested": lambda st: HEADER + "def outer():\n    @ms.jit\n    def step(x):\n" + _indent(st, "        ")
                             + "        return x\n    return step(ms.Tensor([1.0]))\n\n\nouter()\n",
    "training_loop": lambda st: _cell(tail="def train(dataset):\n    net = Net()\n    x = 1\n" + _indent(st, "    ")
                                  + "    for data in dataset.create_tuple_iterator():\n        loss = net(data, x)\n"),
}


PARSE_FRAMES = 60  # Python frames under msgraphlint's ast.parse (the CLI: 18), with room to spare


def _parses(text: str, frames: int = PARSE_FRAMES) -> bool:
    """``ast.parse`` accepts ``text`` when called ``frames`` Python frames deeper than here: on
    3.11 the parser's depth limit is three levels per frame left below the recursion limit, so
    what parses at the top of a stack can fail deeper in it (msgraphlint's MSG001)."""
    if frames:
        return _parses(text, frames - 1)
    try:
        ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True


def module_text(shape: str, leaf: str, position: str, n: int) -> str:
    if shape in STATEMENT_SHAPES:
        return STATEMENT_POSITIONS[position](STATEMENT_SHAPES[shape](n))
    return POSITIONS[position](SHAPES[shape][0](n, leaf))


MARGIN = 12  # sizes below the parser's limit at module level: room for each position's own nesting
_LIMITS: Dict[Tuple[str, str], int] = {}


def size_for(shape: str, leaf: str) -> int:
    """The size of ``shape`` in every position: the largest ``ast.parse`` accepts at module level
    (found by bisection: the limits depend on the Python version), less MARGIN."""
    key = (shape, leaf)
    if key not in _LIMITS:
        lo, hi = 2, WIDE if shape in WIDE_SHAPES else CAP
        assert _parses(module_text(shape, leaf, "module_level", lo)), key
        if _parses(module_text(shape, leaf, "module_level", hi)):
            lo = hi
        while lo + 1 < hi:
            mid = (lo + hi) // 2
            if _parses(module_text(shape, leaf, "module_level", mid)):
                lo = mid
            else:
                hi = mid
        _LIMITS[key] = lo if lo in (WIDE, CAP) else max(2, lo - MARGIN)
    return _LIMITS[key]


def fitted(shape: str, leaf: str, position: str) -> Tuple[int, str]:
    """``size_for`` the shape, or less where a position nests deeper than MARGIN allows; with the
    module's text (which ``ast.parse`` accepts)."""
    n = size_for(shape, leaf)
    text = module_text(shape, leaf, position, n)
    while not _parses(text):
        assert n > 2, (shape, leaf, position)
        n -= max(1, n // 100)
        text = module_text(shape, leaf, position, n)
    return n, text


def cases() -> List[Tuple[str, str, str]]:
    return [(shape, leaf, position) for shape, (_, leaves) in SHAPES.items() for leaf in leaves
            for position in POSITIONS]


def statement_cases() -> List[Tuple[str, str, str]]:
    return [(shape, "", position) for shape in STATEMENT_SHAPES for position in STATEMENT_POSITIONS]


def write_cases(root: Path, which=None) -> Dict[str, Tuple[str, str, str, int]]:
    """One module per (shape, leaf, position) under ``root``; returns file name -> case."""
    made = {}
    for i, (shape, leaf, position) in enumerate(which if which is not None else cases()):
        n, text = fitted(shape, leaf, position)
        name = f"c{i:04}_{shape}_{position}.py"
        (root / name).write_text(text, encoding="utf-8")
        made[name] = (shape, leaf, position, n)
    return made


def _where(exc: BaseException) -> str:
    """The distinct functions of the innermost frames of an exception: where the recursion is."""
    seen: List[str] = []
    for fr in reversed(traceback.extract_tb(exc.__traceback__)):
        tag = f"{os.path.basename(fr.filename)}:{fr.name}"
        if tag not in seen:
            seen.append(tag)
        if len(seen) == 4:
            break
    return " <- ".join(seen)


class _Raised:
    """Records where each file's MSG000 exception was raised (``filework.internal_error``)."""

    def __init__(self, monkeypatch) -> None:
        self.where: Dict[str, str] = {}
        real = filework.internal_error

        def recording(path, exc, during):
            self.where[os.path.basename(path)] = f"{type(exc).__name__} in {_where(exc)}"
            return real(path, exc, during)

        monkeypatch.setattr(filework, "internal_error", recording)


class _DefaultRecursionLimit:
    def __enter__(self):
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(PY_DEFAULT_RECURSION_LIMIT)

    def __exit__(self, *exc):
        sys.setrecursionlimit(self.old)


def lint_cases(root: Path, monkeypatch) -> Dict[str, List[str]]:
    """Lint every module under ``root`` in one run at the default recursion limit; returns file
    name -> the MSG000/MSG001 findings (with where the exception was raised)."""
    raised = _Raised(monkeypatch)
    with _DefaultRecursionLimit():
        result = run_paths([str(root)])
    bad: Dict[str, List[str]] = {}
    for fr in result.files:
        name = os.path.basename(fr.path)
        for f in fr.findings:
            if f.code in ("MSG000", "MSG001"):
                bad.setdefault(name, []).append(f"{f.code} {raised.where.get(name, f.message)}")
    return bad


def _failures(made, bad) -> str:
    lines = [f"{made[name][0]}[{made[name][1]}]@{made[name][2]} n={made[name][3]}: {msgs[0]}"
             for name, msgs in sorted(bad.items())]
    return f"{len(lines)} of {len(made)} cases failed:\n" + "\n".join(lines)


@pytest.fixture(scope="module")
def deep_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("deep")
    return root, write_cases(root)


@pytest.fixture(scope="module")
def deep_statements(tmp_path_factory):
    root = tmp_path_factory.mktemp("deep_statements")
    return root, write_cases(root, statement_cases())


def test_generator_covers_every_shape_and_position_at_depth(deep_tree, deep_statements):
    """The generator is what it says: every (shape, position) pair, deep shapes deep (wide ones wide)."""
    (root, made), (sroot, smade) = deep_tree, deep_statements
    assert len(made) == sum(len(leaves) for _, leaves in SHAPES.values()) * len(POSITIONS)
    assert len(smade) == len(STATEMENT_SHAPES) * len(STATEMENT_POSITIONS)
    sizes: Dict[str, set] = {}
    for table in (made, smade):
        for shape, leaf, position, n in table.values():
            sizes.setdefault(shape, set()).add(n)
    # the parser's limits on 3.11: about 2,990 levels of recursion in the tree (three per Python
    # frame below the recursion limit), 200 nested brackets, 100 levels of indentation
    bracketed = {"or_and_nested", "nested_calls", "nested_subscripts", "nested_tuples", "nested_lists",
                 "nested_dicts", "ifexp_in_test", "nested_comprehensions"}
    for shape, ns in sizes.items():
        # the deep ones go past the interpreter's recursion limit (1000) for any walk of one frame
        # a level (method_chain: two levels a link); bracketed ones go to 200, blocks to 100
        floor = (150 if shape in bracketed else 80 if shape in ("nested_blocks", "nested_defs")
                 else WIDE if shape in WIDE_SHAPES else 1300)
        assert min(ns) >= floor, (shape, sorted(ns)[:3])


@pytest.mark.slow
def test_deep_expressions_never_end_in_msg000(deep_tree, monkeypatch):
    root, made = deep_tree
    bad = lint_cases(root, monkeypatch)
    assert not bad, _failures(made, bad)


def test_deep_statements_never_end_in_msg000(deep_statements, monkeypatch):
    root, made = deep_statements
    bad = lint_cases(root, monkeypatch)
    assert not bad, _failures(made, bad)


EDITOR_POSITIONS = ("training_loop_arg", "tensor_literal_arg", "test_calls_cell", "parent_cell_arg", "jit_module")


def test_deep_values_passed_from_host_code_in_the_editor(tmp_path, monkeypatch):
    """The language server's per-scope reuse keys a graph entry on the text of what host code
    passes it (``ast.unparse`` of the argument): every shape passed, at depth, by every caller."""
    from msgraphlint.run.runner import prepare, run_source

    raised = _Raised(monkeypatch)
    settings = prepare([str(tmp_path)])
    bad, count = [], 0
    with _DefaultRecursionLimit():
        for shape, leaf, position in cases():
            if position not in EDITOR_POSITIONS:
                continue
            n, text = fitted(shape, leaf, position)
            name = str(tmp_path / f"e{count:03}.py")
            count += 1
            result = run_source(text, name, settings=settings, scope_cache={})
            codes = [f.code for f in result.findings if f.code in ("MSG000", "MSG001")]
            if codes:
                bad.append(f"{shape}[{leaf}]@{position} n={n}: {codes[0]} {raised.where.get(os.path.basename(name), '')}")
    assert count == len(EDITOR_POSITIONS) * sum(len(leaves) for _, leaves in SHAPES.values())
    assert not bad, f"{len(bad)} of {count} failed:\n" + "\n".join(bad)


REPORTED = {  # the outside tester's two cases (issue 20): MSG000 in phase 1 and in phase 2
    "init_sum.py": HEADER + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                   "        self.x = " + " + ".join(["1"] * 500) + "\n\n    def construct(self, x):\n"
                   "        return x + self.x\n",
    "nested_jit_sum.py": HEADER + "def test_sum():\n    @ms.jit\n    def f(x):\n        return "
                         + " + ".join(["x"] * 1200) + "\n\n    assert f(ms.Tensor([1.0])) is not None\n",
}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_reported_cases_through_the_cli(tmp_path, jobs):
    """The CLI in a fresh interpreter (its real recursion limit and stack), serial and with workers."""
    for name, text in REPORTED.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        (tmp_path / ("copy_" + name)).write_text(text, encoding="utf-8")  # 4 files: --jobs 2 uses workers
    here = str(Path(msgraphlint.__file__).resolve().parent.parent)  # this checkout's msgraphlint first
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run([sys.executable, "-m", "msgraphlint", "check", "--no-cache", "--jobs", jobs,
                           "--output-format", "concise", "--exit-zero", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "MSG000" not in proc.stdout and "MSG001" not in proc.stdout, proc.stdout


def test_what_ast_parse_reads_at_top_level_is_read_deep_in_a_run():
    """On 3.11+ the parser's depth limit shrinks with every Python frame already on the
    stack; a run parses about 20 frames deep. A chain just inside what ``ast.parse`` takes
    at top level must still parse there (not MSG001 'maximum recursion depth')."""
    import ast as _ast
    import sys as _sys

    from msgraphlint.parse.source import parse_module

    def parses(text):
        # "top level": a fresh thread with a large stack, as a script's own parse would be (before
        # 3.11 a too-deep parse on the main thread's small stack crashes the process instead)
        import threading
        box = {}

        def work():
            try:
                _ast.parse(text)
                box["ok"] = True
            except (RecursionError, MemoryError, SyntaxError):
                box["ok"] = False

        old_size = threading.stack_size()
        threading.stack_size(256 * 1024 * 1024)
        try:
            t = threading.Thread(target=work)
            t.start()
        finally:
            threading.stack_size(old_size)
        t.join()
        return box.get("ok", False)

    # the largest `+` chain ast.parse reads at top level (bisected; near 2,900 on 3.11; capped)
    lo, hi = 100, 20_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if parses("y = " + " + ".join(["a"] * mid)):
            lo = mid
        else:
            hi = mid - 1
    text = "y = " + " + ".join(["a"] * lo)

    def nested(k):
        return parse_module(text, "deep.py") if k == 0 else nested(k - 1)

    old = _sys.getrecursionlimit()
    _sys.setrecursionlimit(1000)
    try:
        tree = nested(60)
    finally:
        _sys.setrecursionlimit(old)
    assert isinstance(tree, _ast.Module)

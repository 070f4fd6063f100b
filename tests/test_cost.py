"""Deep or long constructs cost near-linear time and never exhaust the stack: chains of
hundreds of operators or method calls, long ``elif`` chains, deeply nested loops."""

from __future__ import annotations

from pathlib import Path

from helpers import codes_at, lint

HEADER = "import mindspore as ms\nfrom mindspore import nn, ops\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
DATA = Path(__file__).parent / "data"


def _write(tmp_path, body: str) -> Path:
    p = tmp_path / "m.py"
    p.write_text(HEADER + body, encoding="utf-8")
    return p


def test_chain_of_500_additions_is_still_a_tensor(tmp_path):
    # the branch at the end proves the kind was inferred through the whole chain (MSG101)
    p = _write(tmp_path, "        y = " + " + ".join(["x"] * 500) + "\n        if y > 0:\n            y = y * 2\n"
                         "        return y\n")
    assert codes_at(lint([p])) == [("m.py", 8, "MSG101")]


def test_chain_of_400_method_calls_is_still_a_tensor(tmp_path):
    p = _write(tmp_path, "        y = x" + ".abs()" * 400 + "\n        if y > 0:\n            y = y * 2\n"
                         "        return y\n")
    assert codes_at(lint([p])) == [("m.py", 8, "MSG101")]


def test_elif_chain_of_600_links(tmp_path):
    links = "".join(f"        elif n == {i}:\n            y = x + {i}\n" for i in range(1, 600))
    body = ("        n = x.shape[0]\n        if n == 0:\n            y = x\n" + links
            + "        else:\n            y = x\n        if y > 0:\n            y = y * 2\n        return y\n")
    p = _write(tmp_path, body)
    # `n` is a shape (constant): no finding on the chain; the last branch is on a tensor
    last = 7 + 2 + 2 * 599 + 2 + 1
    assert codes_at(lint([p])) == [("m.py", last, "MSG101")]


def _nested_loops(depth: int) -> str:
    body, ind = "        y = x\n", "        "
    for i in range(depth):
        body += f"{ind}for i{i} in range(2):\n"
        ind += "    "
        body += f"{ind}z{i} = y\n"
    return body + f"{ind}y += x\n        return y\n"


def test_nested_loops_are_walked_linearly_in_depth(tmp_path, monkeypatch):
    """The flow walkers used to walk a loop body twice per enclosing level (2 ** depth
    walks: 20 levels took 83 s): the alias analysis (_flow) and the first-iteration
    simulation (_unrolled). Count their statement visits instead of timing them."""
    from msgraphlint.infer import flow as _flow, unrolled as _unrolled

    visits = {"flow": 0, "unrolled": 0}

    def counting(cls, name, key):
        real = getattr(cls, name)

        def wrapper(self, stmt, *a):
            visits[key] += 1
            return real(self, stmt, *a)

        monkeypatch.setattr(cls, name, wrapper)

    counting(_flow.Origins, "_stmt", "flow")
    counting(_unrolled._Walk, "stmt", "unrolled")
    counts = {}
    for depth in (10, 20):
        visits.update(flow=0, unrolled=0)
        got = codes_at(lint([_write(tmp_path, _nested_loops(depth))]))
        assert got == [("m.py", 8 + 2 * depth, "MSG202")]  # `y += x` writes into the input `x` (alias analysis)
        counts[depth] = dict(visits)
    assert counts[10]["flow"] and counts[10]["unrolled"], counts  # both analyses ran
    for key in ("flow", "unrolled"):
        # 2 * depth statements, each visited at most about depth + 1 times: quadratic at worst, never exponential
        assert counts[20][key] <= 2 * 20 * 22, counts
        assert counts[20][key] / counts[10][key] < 5, counts


def test_generated_deeply_nested_construct(tmp_path):
    """60 levels of for/while/if/try in one construct (tests/data/stress); this file hung the run."""
    import time

    start = time.perf_counter()
    found = lint([DATA / "stress" / "deep_nested_construct.py"])
    elapsed = time.perf_counter() - start
    assert found and not any(f.code in ("MSG000", "MSG001") for f in found)
    assert elapsed < 60, elapsed  # it did not finish in 300 s before; about 1 s now



_MODULE = ("import mindspore as ms\nfrom mindspore import nn, ops\n\n\n"
           "class Block{n:02}(nn.Cell):\n    def __init__(self, flag):\n        super().__init__()\n"
           "        self.flag = flag\n        self.dense = nn.Dense(2, 2)\n\n"
           "    def helper(self, x):\n        return x * 2\n\n"
           "    def construct(self, x, cfg=None):\n        if self.flag:\n            x = self.helper(x)\n"
           "        y = self.dense(x)\n        print(f'{{y}}')\n        return {{'y': y, **(cfg or {{}})}}\n\n\n"
           "class Net{n:02}(nn.Cell):\n    def __init__(self):\n        super().__init__()\n        self.block = Block{n:02}(True)\n\n"
           "    def construct(self, x):\n        return self.block(x)\n\n\n"
           "def main():\n    net = Net{n:02}()\n    opts = [1, 2]\n    for _ in range(2):\n        net(ms.Tensor([1.0, 2.0]))\n"
           "    Block{n:02}(False)(ms.Tensor([1.0]), opts)\n\n\nmain()\n")


def test_a_linted_file_leaves_no_reference_cycles_behind(tmp_path):
    """The cyclic collector is off during a run, so whatever a file's analyses leave in
    reference cycles lives until the run ends (mindone: 3.9 million objects, 2 s for the one
    collection). Engine, context and entries.py's frames are released once a file is done:
    refcounting frees the file's tree then. (Bounded caches keep the last few trees,
    astutil.per_tree's 16 entries among them; the first ten of twenty files must be gone.)"""
    import ast
    import gc

    from msgraphlint.run.runner import run_paths

    for n in range(20):
        (tmp_path / f"m{n:02}.py").write_text(_MODULE.format(n=n), encoding="utf-8")
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        result = run_paths([str(tmp_path)])
        assert sorted({f.code for r in result.files for f in r.findings}) == ["MSG201", "MSG401", "MSG414"]
        alive = sorted({int(o.name[-2:]) for o in gc.get_objects()
                        if isinstance(o, ast.ClassDef) and o.name[:-2] in ("Block", "Net")})
    finally:
        if was:
            gc.enable()
    assert alive and min(alive) >= 10, alive


def _elif_links(n: int) -> str:
    links = "".join(f"        elif x == {i}:\n            y = x + {i}\n" for i in range(1, n))
    return "        if x == 0:\n            y = x\n" + links + "        else:\n            y = x\n        return y\n"


def _long_sum(n: int) -> str:
    return "        y = " + " + ".join(["x"] * n) + "\n        return y\n"


def test_rules_ask_each_parent_once_per_walk_in_deep_chains(tmp_path, monkeypatch):
    """Rules that look up the chain of parents (is this node under a type test, in a `try`?
    what is the scope function? does a nested def rebind `self`?) walked it whole for every
    node: quadratic in the depth of an `elif` chain or a long sum (2,800 links of `elif`: 17 s
    for one construct, so four such functions ran past the per-file budget: MSG000). They
    remember answers per walk now. Count the parent lookups instead of timing them (at sizes
    that no walk recurses on: tests/test_depth.py has the deep ones)."""
    from msgraphlint import context

    calls = [0]
    real = context.RuleContext.parent

    def counting(self, node):
        calls[0] += 1
        return real(self, node)

    monkeypatch.setattr(context.RuleContext, "parent", counting)
    for body in (_elif_links, _long_sum):
        counts = {}
        for n in (150, 300):
            calls[0] = 0
            assert lint([_write(tmp_path, body(n))]) == []
            counts[n] = calls[0]
        # linear: about 5 lookups per elif link, 1 per term (were 460 and 150 per link/term at n=300)
        assert counts[300] <= 10 * 300, (body.__name__, counts)
        assert counts[300] / counts[150] < 2.5, (body.__name__, counts)

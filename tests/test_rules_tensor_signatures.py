"""MSG506 tensor-method-signature: Tensor method calls checked against the overloads MindSpore
2.10 dispatches in graph mode (the catalog's ``tensor_overloads``).

The static tests need no MindSpore; the ``mindspore``-marked ones re-measure on the installed
MindSpore, in one subprocess, that every method of the table really is matched against it in
graph mode and that the calls the rule reports fail to compile while their look-alikes pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from msgraphlint.infer.catalog import get_catalog

from helpers import codes_at, lint, write_tree


def test_catalog_holds_the_overloads_as_mindspore_prints_them():
    cat = get_catalog()
    add = [o["text"] for o in cat.tensor_overloads("add")]
    # the exact strings of MindSpore 2.10's "The valid calling should be:" message
    assert "Tensor.add(other=<number>, *, alpha=<number>)" in add
    assert "Tensor.add(other=<any,Tensor>)" in add
    assert {o["text"] for o in cat.tensor_overloads("max")} == {
        "Tensor.max()", "Tensor.max(dim=<int>, keepdim=<bool>)",
        "Tensor.max(axis=<int,Tuple,None,List>, keepdims=<bool>, *, initial=<number,None>, where=<bool,Tensor>, "
        "return_indices=<bool>)"}
    (roll,) = cat.tensor_overloads("roll")
    assert [(p["name"], p["types"], p["kw"]) for p in roll["params"]] == [
        ("shifts", ["int", "Tuple", "List"], False), ("dims", ["int", "Tuple", "None", "List"], False)]
    add_ext = next(o for o in cat.tensor_overloads("add") if o["text"].startswith("Tensor.add(other=<number>"))
    assert [(p["name"], p["kw"], p["req"]) for p in add_ext["params"]] == [("other", False, True), ("alpha", True, False)]
    assert cat.tensor_overloads("abs")[0]["params"] == []
    # methods MindSpore does not dispatch through its overload table, and properties
    assert cat.tensor_overloads("asnumpy") is None and cat.tensor_overloads("shape") is None
    assert cat.tensor_overloads("no_such_method") is None


CALLS = """
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor, nn


    @ms.jit
    def f(x, y, axis, kw):
        z = x * 2
        a = z.sum(dim=0, keepdims=True)
        b = z.transpose(0, 1, 2, 3)
        c = z.mean(0, True, None)
        d = z.sum(axis, keepdim=True)
        e = z.view(2, -1).permute(1, 0).tile(2, 1)
        g = z.reshape(axis, -1)
        h = z.sum(*axis) + z.mean(**kw)
        i = z.topk(1, 0, True, True)
        j = z.new_zeros((2, 3), ms.float32)
        k = y.sum(keepdim=True, axis=0)
        return a, b, c, d, e, g, h, i, j, k, z.add(), z.add(y, 1)


    class Net(nn.Cell):
        def construct(self, x):
            if x.ndim != 3:
                raise ValueError(f"bad input {x.sum(dim=0, keepdims=True)}")
            return Tensor.clamp(x, 0.0, max_value=1.0)


    f(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones(3, np.float32)), 0, {})
"""


def test_reports_and_silences(tmp_path):
    found = lint([write_tree(tmp_path, {"m.py": CALLS})], select=["MSG506"])
    lines = [line for _, line, _ in codes_at(found)]
    # 9: dim with NumPy's keepdims; 11: three positionals, two at most; 18: keywords of two
    # different overloads, on a receiver proven a tensor by its caller; 19: missing `other`, and
    # two positionals for one; 26: clamp's keyword names (unbound spelling). Silent: packed ints
    # (10, 13, 14), variables (12, 14), *args/**kwargs (15), valid calls, the `raise` (25)
    assert lines == [9, 11, 18, 19, 19, 26], [(f.line, f.message) for f in found]
    msgs = {f.line: f.full_message for f in found}
    assert "incorrect keyword name: keepdims" in msgs[9]
    assert "Tensor.sum(dim=<int,Tuple,Tensor,None,List>, keepdim=<bool>, *, dtype=<mstype,int,None>)" in msgs[9]
    assert "incorrect keyword name: max_value" in msgs[26]


def test_receiver_must_be_a_tensor(tmp_path):
    src = """
        import mindspore as ms

        class Opts:
            def sum(self, keepdims):
                return keepdims

        @ms.jit
        def f(x, opts: Opts):
            o = Opts()
            return o.sum(keepdims=True), opts.sum(keepdims=True), [1, 2].count(1)
    """
    assert lint([write_tree(tmp_path, {"m.py": src})], select=["MSG506"]) == []


MEASURE = textwrap.dedent('''
    import json, sys, importlib
    import numpy as np
    import mindspore as ms
    sys.path.insert(0, ".")
    cat = json.load(open(sys.argv[1]))["tensor_overloads"]
    need = sorted(n for n, v in cat.items() if all(any(p["req"] for p in o["params"]) for o in v))
    with open("probes.py", "w") as fh:
        for n in cat:
            fh.write(f"def kw_{n}(x):\\n    return x.{n}(msgraphlint_probe=1)\\n\\n")
        for n in need:
            fh.write(f"def none_{n}(x):\\n    return x.{n}()\\n\\n")
        fh.write(sys.argv[2])
    mod = importlib.import_module("probes")
    t = ms.Tensor(np.ones((2, 3), np.float32))
    out = {}
    for name in sorted(n for n in dir(mod) if n.split("_")[0] in ("kw", "none", "bad", "good")):
        try:
            ms.jit(getattr(mod, name))(t)
            out[name] = "ok"
        except Exception as e:
            out[name] = f"{type(e).__name__}: {str(e).split('----')[0].strip()}"
    print("FACTS" + json.dumps(out))
''')

# the calls the rule reports (bad_*) and look-alikes it must not report (good_*)
CASES = textwrap.dedent('''
    def bad_clamp_keyword(x):
        return x.clamp(min=1, max_value=10)

    def bad_keepdims_with_dim(x):
        return x.max(dim=0, keepdims=True)

    def bad_abs_argument(x):
        return x.abs(1)

    def bad_chunk_float(x):
        return x.chunk(2.0)

    def bad_add_missing(x):
        return x.add()

    def bad_topk_int_for_bool(x):
        return x.topk(1, 0, 1, True)

    def bad_sum_dim_keepdims(x):
        return x.sum(dim=0, keepdims=True)

    def bad_tile_list(x):
        return x.tile([1, 2])

    def bad_roll_float_dims(x):
        return x.roll(shifts=2, dims=1.1)

    def bad_mean_three(x):
        return x.mean(0, True, None)

    def good_packed(x):
        return x.reshape(3, 2).permute(1, 0).view(6).tile(2, 1)

    def good_keywords(x):
        return x.clamp(min=1, max=10), x.max(0, keepdims=True), x.max(dim=0, keepdim=True)[0]

    def good_numbers(x):
        return x.add(True), x.mul(2.5), x.add(x, alpha=2), x.sum(dim=0, keepdim=True), x.mean(axis=0, keep_dims=True)
''')


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    python = os.environ.get("MSGRAPHLINT_MINDSPORE_PYTHON") or sys.executable
    cwd = tmp_path_factory.mktemp("overloads")
    script = cwd / "measure_overloads.py"
    script.write_text(MEASURE, encoding="utf-8")
    from msgraphlint.infer.catalog import DATA_FILE
    proc = subprocess.run([python, str(script), str(DATA_FILE), CASES], capture_output=True, text=True,
                          timeout=900, cwd=str(cwd))
    line = next((l for l in proc.stdout.splitlines() if l.startswith("FACTS")), None)
    assert line is not None, proc.stderr[-3000:]
    return json.loads(line[5:])


@pytest.mark.mindspore
def test_every_method_of_the_table_is_matched_against_it_in_graph_mode(facts):
    kw = {k[3:]: v for k, v in facts.items() if k.startswith("kw_")}
    assert len(kw) == len(list(get_catalog()._tensor_overloads))
    off = {n: v[:200] for n, v in kw.items() if not (
        "incorrect keyword name: msgraphlint_probe" in v or f"Failed calling {n} with" in v
        or f"{n}() missing" in v)}
    assert not off, off


@pytest.mark.mindspore
def test_methods_whose_overloads_all_need_an_argument_fail_without_one(facts):
    none = {k[5:]: v for k, v in facts.items() if k.startswith("none_")}
    assert len(none) > 50
    assert not [n for n, v in none.items() if v == "ok"]


@pytest.mark.mindspore
def test_reported_calls_fail_and_look_alikes_compile(facts, tmp_path):
    for name, outcome in facts.items():
        if name.startswith("bad_"):
            assert outcome.startswith("TypeError"), (name, outcome)
        elif name.startswith("good_"):
            assert outcome == "ok", (name, outcome)
    # and the rule reports exactly the bad ones
    src = "import mindspore as ms\n\n" + CASES.replace("\ndef ", "\n@ms.jit\ndef ") + \
        "\n\nimport numpy as np\nx = ms.Tensor(np.ones((2, 3), np.float32))\n" + "".join(
            f"{n}(x)\n" for n in sorted(facts) if n.startswith(("bad_", "good_")))
    found = lint([write_tree(tmp_path, {"cases.py": src})], select=["MSG506"])
    flagged = {src.splitlines()[f.line - 1].strip() for f in found}
    lines = CASES.splitlines()
    bad_returns = {lines[i + 1].strip() for i, l in enumerate(lines) if l.startswith("def bad_")}
    assert flagged == bad_returns


OPERANDS = """
    import mindspore as ms
    from mindspore import nn, mint


    class Net(nn.Cell):
        def construct(self, x, mask=None, canvas=None):
            y = x * 2
            nothing = None
            a = y - nothing
            b = y ** [2, 2]
            c = "pre" + y
            if mask is not None:
                y = y + mask
            out = y if canvas is None else y * (1 - canvas)
            buckets = None
            for i in range(2):
                if buckets is None:
                    buckets = mint.ones_like(x)
                else:
                    buckets = buckets + y
            return a, b, c, out, y ** 2, y + (1, 2), y * [1, 2], buckets


    Net()(ms.Tensor([1.0, 2.0]))
"""


def test_operands_only_when_surely_none_or_a_literal(tmp_path):
    found = lint([write_tree(tmp_path, {"m.py": OPERANDS})], select=["MSG507"])
    # 9: a local bound only to None; 10: `**` with a list; 11: a string on the left. Silent: the
    # optional arguments under their `is None` tests, the loop-carried `buckets`, `+`/`*` with a
    # tuple or list (converted to a tensor), a number exponent
    assert [line for _, line, _ in codes_at(found)] == [9, 10, 11], [(f.line, f.message) for f in found]


ATTRS = """
    import mindspore as ms
    from mindspore import nn, mint


    class Block(nn.Cell):
        def construct(self, x):
            return x, x


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")

        def construct(self, x, y):
            outputs = self.block(x)
            a = outputs.hidden_states
            b = mint.max(x, dim=-1).values
            c = self.w.to_local() if isinstance(self.w, tuple) else self.w
            d = x.abs2()
            e = y.abs2
            l = [1, 2]
            t = (1, 2)
            if isinstance(outputs, dict):
                f = x.keys()
            try:
                g = x.abs3
            except AttributeError:
                g = x
            return a, b, c, d, e, l.shape, t.count(1), self.w.requires_grad, self.w.name


    Net()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0]))
"""


def test_attributes_only_on_values_surely_tensors_or_local_displays(tmp_path):
    found = lint([write_tree(tmp_path, {"m.py": ATTRS})], select=["MSG508"])
    # 19: `.values` of a tuple-returning op; 21: a Tensor argument from the caller; 22: the same;
    # 31: a local list. Silent: a Cell's output (17, 18), the isinstance-guarded lines (20, 26),
    # the try/except AttributeError (28), a tuple's own `count`, Parameter attributes
    assert [line for _, line, _ in codes_at(found)] == [19, 21, 22, 31], [(f.line, f.message) for f in found]


def test_parameters_fed_displays_by_every_caller(tmp_path):
    src = """
        import mindspore as ms


        def test_dict():
            @ms.jit
            def foo(x):
                return getattr(x, "abs2")()

            foo({"1": 1})


        def test_tuple():
            @ms.jit
            def foo(x, y):
                return x.shape, y.shape

            foo((1, 2), (1, 2))
            foo((3, 4), [3, 4])


        def test_rebound():
            @ms.jit
            def foo(x):
                x = ms.Tensor(x)
                return x.shape

            foo([1, 2])
    """
    found = lint([write_tree(tmp_path, {"m.py": src})], select=["MSG508"])
    # 7: a dict from its one caller; 15: x is a tuple at both calls (y is a tuple at one, a list
    # at the other: not reported); the rebound parameter is not reported
    assert [(line, "Dictionary" in f.full_message or "Tuple" in f.full_message) for (_, line, _), f in
            zip(codes_at(found), sorted(found, key=lambda f: f.line))] == [(7, True), (15, True)]


def test_python_lookalike_methods_need_a_tensor_by_its_making(tmp_path):
    src = """
        import mindspore as ms
        from mindspore import nn


        class Names(nn.Cell):
            def construct(self, x):
                return "a,b"


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.names = Names()

            def construct(self, x):
                text = self.names(x)
                parts = text.split(",", 1)
                label = text + "_x"
                y = x * 2
                return parts, label, y.split(",", 1), y + "_x"


        Net()(ms.Tensor([1.0, 2.0]))
    """
    found = lint([write_tree(tmp_path, {"m.py": src})], select=["MSG506", "MSG507"])
    # a Cell's output is taken for a tensor by the kind analysis, but `split` and `+ "..."` are
    # also str operations: reported only on `y`, a tensor by its making (line 20)
    assert codes_at(found) == [("m.py", 20, "MSG506"), ("m.py", 20, "MSG507")], [(f.line, f.message) for f in found]

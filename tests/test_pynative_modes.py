"""Rules that declare the modes they apply to (``Rule.modes``): a PyNative-only module's Cell
methods and functions are walked only by the rules whose claim holds in every mode (issue 21's
removed sample: mindformers/pynative/.../dsa_attention.py:225-358, `.detach()` on tensors).

MindSpore 2.10's Tensor has no `detach` (its catalog; on 2.10 CPU `hasattr(ms.Tensor([1.0]),
"detach")` is False and calling it raises AttributeError in PyNative too), so MSG503's
missing-method claim holds in PyNative; a `print`, `del` or `with` there (MSG201, MSG410) is
fine and stays silent. Expected lines are read off the sources below.
"""

from __future__ import annotations

from helpers import codes_at, lint, write_tree

from msgraphlint.engine.registry import load_rules

# mindformers' DSASelfAttention shape, reduced: a Cell of `pkg/pynative/` (PyNative by name)
ATTENTION = """
    import mindspore as ms
    from mindspore import nn, ops


    class DSAAttention(nn.Cell):
        def __init__(self, dim, warmup):
            super().__init__()
            self.linear_qkv = nn.Dense(dim, dim)
            self.warmup = warmup

        def construct(self, x, mask=None):
            del mask
            print("attention")
            ori_dtype = x.dtype
            qkv = self.linear_qkv(x)
            if self.warmup:
                x_detached = x.detach()
                qkv_detached = qkv.detach()
            else:
                x_detached, qkv_detached = x, qkv
            return self._teacher(x_detached, qkv_detached).astype(ori_dtype)

        def _teacher(self, query, key):
            if self.warmup:
                query = query.detach()
                key = key.detach()
            return ops.matmul(query, key.T)


    def to_host(x):
        y = ops.relu(x)
        return y.cpu()
"""

# look-alikes in a PyNative-only module: none is surely a MindSpore tensor without the method
LOOKALIKES = """
    import torch
    import mindspore as ms
    from mindspore import nn, ops


    class Holder:
        def detach(self):
            return self


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(2, 2)

        def detach(self):
            return self

        def construct(self, x, loss):
            y = self.dense(x)
            if hasattr(y, "detach"):
                y = y.detach()
            t = torch.ones(2).detach()
            h = Holder().detach()
            me = self.detach()
            g = loss.detach()
            z = y.requires_grad_()
            return y, t, h, me, g, z
"""

PKG = {"pkg/__init__.py": "", "pkg/pynative/__init__.py": ""}


def test_rules_declare_their_modes():
    """Only the rules whose claim holds in every mode ask for PyNative scopes: MSG503 (a Tensor
    method the target lacks), not the fallback, Switch, in-place or print rules."""
    rules = load_rules()
    assert "pynative" in rules["MSG503"].modes and "graph" in rules["MSG503"].modes
    for code in ("MSG101", "MSG201", "MSG203", "MSG401", "MSG410"):
        assert rules[code].modes == frozenset({"graph"}), code


def test_missing_tensor_method_in_a_pynative_only_module(tmp_path):
    """The four `.detach()` (x and a Cell output in construct, the helper method's parameters
    used as tensors) and `ops.relu(x).cpu()` in a module function: MSG503, saying it fails in
    PyNative too; the `del` and `print` of the same construct are PyNative-fine (silent)."""
    write_tree(tmp_path, {**PKG, "pkg/pynative/attention.py": ATTENTION})
    found = lint([tmp_path], select=["ALL"])
    assert codes_at(found) == [("attention.py", 17, "MSG503"), ("attention.py", 18, "MSG503"),
                               ("attention.py", 25, "MSG503"), ("attention.py", 26, "MSG503"),
                               ("attention.py", 32, "MSG503")]
    for f in found:
        assert "PyNative too" in f.full_message and "graph" not in f.full_message.lower(), f.full_message
        assert "Assumes graph mode" not in f.full_message
    assert "`.cpu()`" in found[-1].message


def test_same_cell_in_graph_code_keeps_the_graph_rules(tmp_path):
    """Outside a PyNative-only module the same Cell is graph code: every graph rule reports,
    MSG503 with the graph-mode reason (unchanged)."""
    write_tree(tmp_path, {**PKG, "pkg/models/__init__.py": "", "pkg/models/attention.py": ATTENTION})
    found = lint([tmp_path], select=["MSG503", "MSG201", "MSG410"])
    got = codes_at(found)
    assert ("attention.py", 13, "MSG201") in got and ("attention.py", 12, "MSG410") in got
    assert [x for x in got if x[2] == "MSG503"] == [("attention.py", 17, "MSG503"), ("attention.py", 18, "MSG503"),
                                                    ("attention.py", 25, "MSG503"), ("attention.py", 26, "MSG503")]
    assert not any("PyNative too" in f.full_message for f in found)


def test_pynative_lookalikes_stay_silent(tmp_path):
    """A `hasattr` guard, a PyTorch tensor, an object of a project class defining `detach`, the
    Cell's own `detach`, a parameter nothing shows to be a tensor, and `requires_grad_()`, which
    2.10's Tensor has."""
    write_tree(tmp_path, {**PKG, "pkg/pynative/looks.py": LOOKALIKES})
    assert codes_at(lint([tmp_path], select=["ALL"])) == []


def test_a_method_only_the_target_lacks(tmp_path):
    """`requires_grad_` is missing from 2.7.0's Tensor only (the catalogs of 2.7.0 and 2.7.1):
    reported when the target is 2.7.0, silent on 2.10 (previous test)."""
    write_tree(tmp_path, {**PKG, "pkg/pynative/looks.py": LOOKALIKES})
    found = lint([tmp_path], select=["MSG503"], target="2.7.0")
    assert codes_at(found) == [("looks.py", 27, "MSG503")]
    assert "2.7.0" in found[0].full_message and "PyNative too" in found[0].full_message


def test_refused_device_string_in_pynative(tmp_path):
    """`.to("cuda")` fails in both modes (ValueError on 2.10); `.to(other.device)` costs only in
    graph mode (the interpreter reads `.device`) and `.to("CPU")` is a MindSpore device."""
    write_tree(tmp_path, {**PKG, "pkg/pynative/dev.py": """
        from mindspore import nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.dense = nn.Dense(2, 2)

            def construct(self, x, other):
                y = self.dense(x)
                a = y.to("cuda")
                b = y.to(other.device)
                c = y.to("CPU")
                return a, b, c
    """})
    found = lint([tmp_path], select=["MSG503"])
    assert codes_at(found) == [("dev.py", 10, "MSG503")]
    assert "refuses 'cuda'" in found[0].full_message and "PyNative too" in found[0].full_message


def test_no_pynative_module_no_pynative_scopes(tmp_path):
    """A PyNative-only module's function reached from a graph root in another module is a graph
    helper there (as before): one finding, the graph one, echoed at the call, no PyNative twin."""
    write_tree(tmp_path, {**PKG,
                          "pkg/pynative/util.py": """
                              from mindspore import ops

                              def host(x):
                                  y = ops.relu(x)
                                  return y.cpu()
                          """,
                          "pkg/model.py": """
                              from mindspore import nn
                              from pkg.pynative.util import host

                              class Net(nn.Cell):
                                  def construct(self, x):
                                      return host(x)
                          """})
    found = [f for f in lint([tmp_path], select=["MSG503", "MSG004"])]
    assert codes_at(found) == [("model.py", 6, "MSG004"), ("util.py", 5, "MSG503")]
    assert not any("PyNative too" in f.full_message for f in found)


def test_a_pynative_scopes_value_pass_is_made_only_when_a_rule_asks(tmp_path, monkeypatch):
    """A PyNative-only module's functions are walked by MSG503, which asks for a kind only at a
    call of a method the target's Tensor lacks: the functions without one cost no value pass
    (mindformers' 77 PyNative-only modules: 0.25 s -> 0.07 s CPU), the one with `.detach()`
    still gets its pass and its finding."""
    from msgraphlint.infer import values as values_mod

    made = []
    real = values_mod.ScopeValues.__init__

    def counting(self, func, *args, **kwargs):
        made.append(func.name)
        real(self, func, *args, **kwargs)

    monkeypatch.setattr(values_mod.ScopeValues, "__init__", counting)
    write_tree(tmp_path, {**PKG, "pkg/pynative/mix.py": """
        from mindspore import nn, ops

        def plain(x):
            return ops.relu(x) + 1

        def other(x, y):
            z = ops.matmul(x, y)
            return z.sum()

        def host(x):
            y = ops.relu(x)
            return y.detach()
    """})
    found = lint([tmp_path], select=["MSG503"])
    assert codes_at(found) == [("mix.py", 12, "MSG503")]
    assert "plain" not in made and "other" not in made and "host" in made, made

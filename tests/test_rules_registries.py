"""MindSpore's own registries in the catalog, and the rules that read them: MSG413
jit-forbidden-api (the `@jit_forbidden_register` registry) and MSG513 deprecated-api (the
`@deprecated` decorator and `mark_deprecated` modules), version-gated by target-mindspore."""

from __future__ import annotations

from msgraphlint.infer.catalog import get_catalog

from helpers import codes_at, lint, write_tree


def test_catalog_holds_the_jit_forbidden_registry():
    cat = get_catalog()
    assert cat.jit_forbidden_modules() == ("mindspore.common.initializer", "mindspore.context", "mindspore.log")
    cell = cat.jit_forbidden_methods("mindspore.nn.Cell")
    assert {"trainable_params", "untrainable_params", "get_parameters", "state_dict", "to"} <= set(cell)
    assert set(cat.jit_forbidden_methods("mindspore.Tensor")) == {"assign_value", "set_const_arg"}
    assert set(cat.jit_forbidden_methods("mindspore.Parameter")) == {"set_data"}
    # every spelling of a function of a forbidden module
    for q in ("mindspore.get_context", "mindspore.context.get_context", "mindspore.initializer.initializer",
              "mindspore.common.initializer.Normal"):
        assert cat.jit_forbidden(q) is not None, q
    assert cat.jit_forbidden("mindspore.ops.add") is None
    assert cat.jit_forbidden("mindspore.nn.Dense") is None


def test_catalog_holds_the_parser_tables():
    cat = get_catalog()
    assert {"len", "isinstance", "range", "zip", "enumerate", "print", "int", "float"} <= cat.graph_builtins("converted")
    assert "functools.partial" in cat.graph_builtins("converted_stdlib")
    assert "functools.reduce" not in cat.graph_builtins("converted_stdlib")
    assert {"functools", "math", "itertools", "collections"} <= cat.graph_builtins("interpreted_stdlib")
    assert "numpy" not in cat.graph_builtins("interpreted_stdlib")
    assert {"sorted", "divmod", "ord"} <= cat.graph_builtins("interpreted_builtins")


FORBIDDEN = """
    import mindspore as ms
    from mindspore import nn

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(8, 8)
            self.params = self.trainable_params()

        def construct(self, x):
            x.set_const_arg()
            return self.dense(x), ms.get_context("mode")

    def train(net):
        net.to(ms.float16)
        return net.get_parameters()
"""


def test_forbidden_only_in_graph_code(tmp_path):
    write_tree(tmp_path, {"m.py": FORBIDDEN})
    found = lint([tmp_path / "m.py"], select=["MSG413"])
    assert codes_at(found) == [("m.py", 11, "MSG413"), ("m.py", 12, "MSG413")]


DEPRECATED = """
    from mindspore import ops

    gamma = ops.random_gamma((2,), alpha)
    unpack = ops.Unpack(axis=0)
"""


def test_deprecated_api_follows_target_version(tmp_path):
    write_tree(tmp_path, {"m.py": DEPRECATED})
    # random_gamma: deprecated since 2.10.0 (decorator); Unpack: since 1.1
    assert codes_at(lint([tmp_path / "m.py"], select=["MSG513"], target="2.10")) == [
        ("m.py", 3, "MSG513"), ("m.py", 4, "MSG513")]
    assert codes_at(lint([tmp_path / "m.py"], select=["MSG513"], target="2.9")) == [("m.py", 4, "MSG513")]
    assert codes_at(lint([tmp_path / "m.py"], select=["MSG513"], target="1.0")) == []


def test_deprecated_api_names_mindsporess_replacement(tmp_path):
    write_tree(tmp_path, {"m.py": DEPRECATED})
    msgs = {f.line: f.message for f in lint([tmp_path / "m.py"], select=["MSG513"])}
    assert "use `ops.Unstack`" in msgs[4]
    assert "since 1.1" in msgs[4]


def test_docstring_only_deprecations_are_not_reported(tmp_path):
    write_tree(tmp_path, {"m.py": """
        from mindspore import nn, ops
        opt = nn.Momentum(params, 0.1, 0.9)
        ops.assign(w, v)
    """})
    assert get_catalog().deprecation("mindspore.nn.Momentum")["source"] == "docstring"
    assert lint([tmp_path / "m.py"], select=["MSG513"]) == []


def test_parser_tables_drive_msg404_for_the_standard_library(tmp_path):
    write_tree(tmp_path, {"m.py": """
        import functools
        import operator
        from mindspore import nn, ops

        class Net(nn.Cell):
            def construct(self, x):
                a = functools.reduce(ops.add, [x, x * 2])
                b = functools.partial(ops.add, x)(a)
                return operator.add(a, b)
    """})
    # reduce is interpreted (not in the parser's convert map); partial and operator.add are converted
    assert codes_at(lint([tmp_path / "m.py"], select=["MSG404"])) == [("m.py", 7, "MSG404")]

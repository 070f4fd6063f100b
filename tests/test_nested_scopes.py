"""Graph scopes defined anywhere: Cells and jit functions inside test functions and
factories, jit-wrapped methods of plain classes, helpers reached through attributes
holding plain objects, closure constants, and the capture mode."""

from __future__ import annotations

from msgraphlint.api import check_source
from msgraphlint.project.index import ProjectIndex
from msgraphlint.project.scopes import discover
from msgraphlint.parse.source import SourceFile

from helpers import write_tree


def scopes_of(root, files):
    write_tree(root, files)
    index = ProjectIndex()
    for rel in files:
        index.add_source(SourceFile.read(str(root / rel)))
    return {s.qualname: s for ss in discover(index).values() for s in ss}


def codes(src, select=None):
    return [(f.code, f.line) for f in check_source(src, path="m.py", select=select)]


def test_cell_defined_inside_a_test_function(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore.nn as nn
        def test_one():
            class Net(nn.Cell):
                def construct(self, x):
                    return x
            Net()(1)
        def test_two():
            if True:
                class Net(nn.Cell):
                    def construct(self, x):
                        return self.helper(x)
                    def helper(self, x):
                        return x
    """})
    assert set(s) == {"m.test_one.<locals>.Net.construct", "m.test_two.<locals>.Net.construct",
                      "m.test_two.<locals>.Net.helper"}
    one = s["m.test_one.<locals>.Net.construct"]
    assert one.class_name == "Net" and one.class_key == "test_one.<locals>.Net" and one.enclosing == (2,)
    assert s["m.test_two.<locals>.Net.helper"].kind == "helper"


def test_nested_cell_inherits_from_a_sibling_local_cell(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        from mindspore import nn
        def build():
            class Base(nn.Cell):
                pass
            class Net(Base):
                def construct(self, x):
                    return x
            return Net
    """})
    assert set(s) == {"m.build.<locals>.Net.construct"}


def test_plain_nested_class_and_function_are_not_scopes(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore
        def f():
            class Config:
                def construct(self, x):
                    return x
            def g(x):
                return x
            return Config, g
    """})
    assert s == {}


def test_factories_returning_jit_wrapped_functions(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore as ms
        from mindspore import jit
        def make_step(net):
            def step(x):
                return net(x)
            return jit(step)
        def make_other(net):
            def other(x):
                return helper(x)
            def helper(x):
                return x
            other = ms.jit(other)
            return other
        def make_decorated():
            @ms.jit
            def inner(x):
                return x
            return inner
    """})
    assert {"m.make_step.<locals>.step", "m.make_other.<locals>.other", "m.make_decorated.<locals>.inner",
            "m.make_other.<locals>.helper"} == set(s)
    assert s["m.make_other.<locals>.helper"].chain[0].startswith("called from other")


def test_jit_wrapped_method_of_a_plain_class_and_capture_mode(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore as ms
        class Trainer:
            def __init__(self, net):
                self.net = net
                self.step = ms.jit(self.train_step, capture_mode="bytecode")
            def train_step(self, x):
                return self.net(x)
            def other(self, x):
                return x
        def factory():
            @ms.jit(capture_mode="bytecode")
            def g(x):
                return x
            return g
    """})
    assert set(s) == {"m.Trainer.train_step", "m.factory.<locals>.g"}
    assert s["m.Trainer.train_step"].capture_mode == "bytecode"
    assert s["m.factory.<locals>.g"].capture_mode == "bytecode"


def test_default_capture_mode_is_ast_and_helpers_inherit_it(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        import mindspore as ms
        def helper(x):
            return x
        @ms.jit
        def a(x):
            return x
        @ms.jit(capture_mode="bytecode")
        def b(x):
            return helper(x)
    """})
    assert s["m.a"].capture_mode == "ast"
    assert s["m.helper"].capture_mode == "bytecode"


def test_helper_reached_through_an_attribute_holding_a_plain_object(tmp_path):
    s = scopes_of(tmp_path, {"m.py": """
        from mindspore import nn
        from other import Scaler
        class Local:
            def apply(self, x):
                return x
            def unused(self, x):
                return x
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.local = Local()
                self.scaler = Scaler()
            def construct(self, x):
                return self.scaler.scale(self.local.apply(x))
    """, "other.py": """
        class Base:
            def scale(self, x):
                return x * 2
        class Scaler(Base):
            pass
    """})
    assert set(s) == {"m.Net.construct", "m.Local.apply", "other.Base.scale"}
    assert s["other.Base.scale"].chain == ("called from Net.construct (m.py:14)",) or \
        s["other.Base.scale"].chain[0].startswith("called from Net.construct")


def test_tensor_branch_in_a_nested_cell_is_found():
    src = """
import mindspore.nn as nn
import mindspore.ops as ops

def test_branch():
    class Net(nn.Cell):
        def construct(self, x):
            if ops.reduce_sum(x) > 0:
                return x
            return -x
    Net()
"""
    assert ("MSG101", 8) in codes(src, ["MSG101"])


def test_closure_flag_and_size_are_compile_time_constants():
    src = """
import pytest
import mindspore.nn as nn
import mindspore.ops as ops

@pytest.mark.parametrize("flag", [True, False])
def test_flag(flag, size=3):
    limit = 4
    class Net(nn.Cell):
        def construct(self, x):
            if flag:
                x = x * 2
            if size > limit:
                x = x + 1
            while limit > size:
                return x
            return x
    Net()
"""
    values = _values_of(src, "construct")
    assert {values.kind(n).value for n in _names(values, {"flag", "size", "limit"})} == {"const"}
    assert codes(src) == []


def test_closure_names_bound_to_objects_stay_unknown():
    src = """
import mindspore.nn as nn
def build(network):
    table = make_table()
    class Net(nn.Cell):
        def construct(self, x):
            return network(x) + table
    return Net
"""
    values = _values_of(src, "construct")
    assert {values.kind(n).value for n in _names(values, {"network", "table"})} == {"unknown"}


def test_nested_helper_object_gets_parameter_kinds_from_the_call():
    src = """
from mindspore import nn, ops
class Helper:
    def __init__(self):
        self.enabled = True
    def f(self, x):
        if self.enabled:
            x = x * 2
        if ops.reduce_sum(x) > 0:
            return x
        return x - 1
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.helper = Helper()
    def construct(self, x):
        return self.helper.f(x)
"""
    found = codes(src, ["MSG101"])
    assert ("MSG101", 9) in found and ("MSG101", 7) not in found


def test_bytecode_capture_silences_write_back_claims():
    ast_src = """
import mindspore as ms
@ms.jit
def step(x):
    x += 1
    x[0] = 5.0
    x.add_(1)
    return x * 2
"""
    assert [c for c, _ in codes(ast_src, ["MSG202"])] == ["MSG202"] * 3
    bytecode_src = ast_src.replace("@ms.jit", '@ms.jit(capture_mode="bytecode")')
    assert codes(bytecode_src, ["MSG202"]) == []


# helpers ---------------------------------------------------------------------------
def _values_of(src, func_name):
    from msgraphlint.engine.dispatch import Dispatch, ModuleEngine
    from msgraphlint.project.scopes import CellResolver
    source = SourceFile.from_bytes("m.py", src.encode())
    index = ProjectIndex()
    summary = index.add_source(source)
    scopes = [s for ss in discover(index).values() for s in ss]
    scope = next(s for s in scopes if s.qualname.endswith("." + func_name))
    eng = ModuleEngine(source, summary, index, scopes, Dispatch([]), "2.10", CellResolver(index))
    eng._index_defs(source.tree)
    func = eng._funcs[scope.lineno]
    return eng._values_for(func, scope.class_key, scope.qualname, is_root=True, enclosing=scope.enclosing)


def _names(values, wanted):
    import ast
    return [n for n in ast.walk(values.func) if isinstance(n, ast.Name) and n.id in wanted
            and isinstance(n.ctx, ast.Load)]


def test_capture_mode_decides_which_control_flow_rule_speaks():
    src = """
import mindspore as ms

@ms.jit{mode}
def step(x):
    if x.sum() > 0:
        return x * 2
    return x - 100
"""
    sel = ["MSG101", "MSG106", "MSG107"]
    assert [c for c, _ in codes(src.format(mode=""), sel)] == ["MSG101"]
    assert [c for c, _ in codes(src.format(mode='(capture_mode="ast")'), sel)] == ["MSG101"]
    assert [c for c, _ in codes(src.format(mode='(capture_mode="bytecode")'), sel)] == ["MSG106"]
    assert [c for c, _ in codes(src.format(mode='(capture_mode="trace")'), sel)] == ["MSG107"]


def test_capture_mode_of_a_factory_wrapped_function_reaches_its_helpers():
    src = """
import mindspore as ms

def helper(x):
    if x.sum() > 0:
        return x * 2
    return x

def make():
    def step(x):
        return helper(x)
    return ms.jit(step, capture_mode="trace")
"""
    found = codes(src, ["MSG101", "MSG107"])
    assert ("MSG107", 5) in found and not any(c == "MSG101" for c, _ in found)

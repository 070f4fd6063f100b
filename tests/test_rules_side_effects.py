"""MSG207–MSG211 (rules/side_effects.py): cross-module helpers and base classes, and the
look-alikes that must stay clean."""

from __future__ import annotations

import textwrap

from msgraphlint.run.runner import run_paths

CODES = ["MSG207", "MSG208", "MSG209", "MSG210", "MSG211"]


def lint(tmp_path, files, select=CODES):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    result = run_paths([str(tmp_path)], select=select, config_file=None)
    return sorted((f for fr in result.files for f in fr.findings), key=lambda f: (f.path, f.line, f.code))


def one(tmp_path, code):
    return lint(tmp_path, {"model.py": code})


def at(findings):
    return [(f.line, f.code) for f in findings]


# --------------------------------------------------------------------------- several files
def test_helper_in_another_module_mutating_its_module_state(tmp_path):
    found = lint(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/state.py": """
            import random
            import logging

            TRACE = []
            log = logging.getLogger("pkg")

            def record(t):
                TRACE.append(1)
                log.info("record")
                return t * random.random()
        """,
        "pkg/model.py": """
            import mindspore.nn as nn
            from .state import record

            class Net(nn.Cell):
                def construct(self, x):
                    return record(x)
        """,
    })
    helper = [f for f in found if f.path.endswith("state.py")]
    assert at(helper) == [(8, "MSG207"), (9, "MSG211"), (10, "MSG210")]
    assert all(f.chain and "Net.construct" in f.chain[0] for f in helper)
    assert not [f for f in found if f.path.endswith("model.py")]


def test_attribute_declared_by_a_project_base_class_in_another_module(tmp_path):
    found = lint(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Base(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.calls = 0
                    self.state = ms.Parameter(Tensor(np.zeros((2,), np.float32)), name="state")
        """,
        "pkg/model.py": """
            from .base import Base

            class Net(Base):
                def construct(self, x):
                    self.calls += 1
                    self.state = x * 2
                    return x
        """,
    })
    assert at(found) == [(5, "MSG209")]
    assert "self.calls" in found[0].message and "a plain Python value" in found[0].message


def test_attribute_of_an_unknown_base_class_is_not_judged(tmp_path):
    found = one(tmp_path, """
        from somewhere_else import FancyCell

        class Net(FancyCell):
            def construct(self, x):
                self.cache = x * 2
                return x
    """)
    assert found == []


# --------------------------------------------------------------------------- one file
def test_self_attribute_write_in_a_helper_method(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.last = None

            def remember(self, y):
                self.last = y
                return y

            def construct(self, x):
                return self.remember(x * 2)
    """)
    assert at(found) == [(9, "MSG209")]
    assert found[0].chain


def test_parameter_declared_in_a_same_file_base_class(tmp_path):
    found = one(tmp_path, """
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor

        class Base(nn.Cell):
            def __init__(self):
                super().__init__()
                self.state = ms.Parameter(Tensor(np.zeros((2,), np.float32)), name="state")

        class Net(Base):
            def construct(self, x):
                self.state = x * 2
                return x
    """)
    assert found == []


def test_container_mutations_by_kind(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        REGISTRY = {}
        SEEN = set()

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.buf = [1, 2, 3]
                self.cells = nn.CellList([nn.Dense(2, 2)])

            def construct(self, x):
                self.buf.extend([4])
                self.buf[0] = 5
                REGISTRY["k"] = 1
                SEEN.add(3)
                self.cells.append(nn.Dense(2, 2))
                return x
    """)
    assert at(found) == [(13, "MSG207"), (14, "MSG207"), (15, "MSG207"), (16, "MSG207")]
    assert "PyExecute" in found[0].full_message            # list.extend: PyExecute at the default level
    assert "list stays unchanged" in found[1].full_message  # list subscript store: dropped
    assert "compile time" in found[2].full_message         # dict subscript store: compile-time value
    assert "compile time" in found[3].full_message         # set.add: once, while compiling


def test_local_names_shadowing_module_containers_are_fine(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn
        from mindspore import ops

        CACHE = []

        class Net(nn.Cell):
            def construct(self, x):
                CACHE = []
                CACHE.append(x)
                outs = [x]
                outs.extend([x * 2])
                outs.insert(0, x - 1)
                return ops.concat(outs, 1) + CACHE[0]
    """)
    assert found == []


def test_global_rebind_forms(tmp_path):
    found = one(tmp_path, """
        import mindspore as ms

        STEP = 0
        BEST = 0.0

        @ms.jit
        def fn(x):
            global STEP, BEST
            STEP += 1
            BEST, other = 1.0, 2.0
            return x * STEP
    """)
    assert at(found) == [(9, "MSG208"), (10, "MSG208")]


def test_nested_function_global_is_not_the_scope_s(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        STEP = 0

        class Net(nn.Cell):
            def construct(self, x):
                STEP = 3  # a local: no `global` in this function
                return x * STEP
    """)
    assert found == []


def test_random_and_time_spellings(tmp_path):
    found = one(tmp_path, """
        from random import uniform
        import time as _t
        import numpy
        import mindspore.nn as nn
        from mindspore import ops

        class Net(nn.Cell):
            def construct(self, x):
                a = uniform(0, 1)
                b = _t.time()
                c = numpy.random.normal()
                d = ops.uniform(x.shape, ops.zeros((), x.dtype), ops.ones((), x.dtype))
                return x * a + b + c + d
    """)
    assert at(found) == [(9, "MSG210"), (10, "MSG210"), (11, "MSG210")]


def test_logger_spellings(tmp_path):
    found = one(tmp_path, """
        import logging
        import mindspore.nn as nn
        from mindspore import ops

        _logger = logging.getLogger(__name__)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.logger = logging.getLogger("net")
                self.log = ops.Print()

            def construct(self, x):
                self.logger.info("a")
                logging.getLogger("x").debug("b")
                logging.warning("c")
                _logger.error("d")
                self.log("e", x)
                return x
    """)
    assert at(found) == [(14, "MSG211"), (15, "MSG211"), (16, "MSG211"), (17, "MSG211")]


def test_methods_named_like_logging_on_other_objects(tmp_path):
    found = one(tmp_path, """
        import mindspore.nn as nn

        class Tracker(nn.Cell):
            def construct(self, x):
                return x

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.tracker = Tracker()

            def construct(self, x, info=None):
                y = self.tracker(x)
                return y.log() if info is None else y
    """)
    assert found == []


# --------------------------------------------------------------------------- MSG201 message
def test_print_message_names_the_mechanism_measured_on_2_10(tmp_path):
    """Measured on MindSpore 2.10 CPU (MS_DEV_SAVE_GRAPHS=1, validate IR): `print(x)` and
    `print("hello", 3)` in `@ms.jit` compile to one Print op; `print(arr[0:2])` of a NumPy
    array, `print(np.array([1, 2]) * 2)` and `print(x.asnumpy())` compile to PyExecute
    nodes and no Print op (the Python print runs at every call)."""
    found = lint(tmp_path, {"model.py": """
        import numpy as np
        import mindspore as ms
        from mindspore import ops

        @ms.jit
        def fn(x):
            arr = np.array([1, 2, 3])
            print(arr[0:2])
            print(np.array([1, 2]) * 2)
            print(x.asnumpy())
            print(x)
            print("hello", 3)
            return x + 1
    """}, select=["MSG201"])
    by_line = {f.line: f for f in found}
    assert sorted(by_line) == [8, 9, 10, 11, 12]
    for line in (8, 9, 10):
        assert "PyExecute" in by_line[line].full_message and "NumPy" in by_line[line].full_message
        assert "compiled into a Print op" not in by_line[line].full_message
        assert by_line[line].fix is None  # ops.print_ of a NumPy value is not the same program
    for line in (11, 12):
        assert "compiled into a Print op" in by_line[line].full_message and "PyExecute" not in by_line[line].full_message
        assert by_line[line].fix is not None

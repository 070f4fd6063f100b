"""What the language server reuses between edits (issue 25 item 1) never changes what it
reports: after any sequence of edits, to the open document and to the files on disk it
reaches, the findings of the server's analysis (``run_source`` with one per-document
scope cache and one ``ContextCache`` for the whole sequence, as ``server.start_analysis``
calls it) equal those of a fresh ``msgraphlint check`` of the same files."""

from __future__ import annotations

import os
import random
import time

import pytest

from msgraphlint.api import check_paths
from msgraphlint.project.files import ContextCache
from msgraphlint.run.runner import prepare, run_source

LAYERS = '''import mindspore.nn as nn
from mindspore import ops


class Base(nn.Cell):
    def norm(self, x):
        return x / 2
'''

# no word of mindspore, construct or jit: the pre-filter leaves it out of the run's files, and
# the index loads it by name when a graph scope calls into it (``ProjectIndex._load``)
UTILS = '''import math


def scale(x, factor):
    while factor > 1:
        factor = factor - 1
    return x * factor


def shout(x):
    return x
'''

MODEL = '''import mindspore as ms
import mindspore.nn as nn
from mindspore import ops
from pkg.layers import Base
from pkg.utils import scale, shout


class Block(Base):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        y = self.dense(x)
        y = scale(y, 2)
        return shout(self.norm(y))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        x = self.block(x)
        return x


def train(net, data):
    for x in data.create_tuple_iterator():
        net(x)
'''

# edits to the open document: (old, new) replacements, each applied where it still fits
DOC_EDITS = [
    ("        y = self.dense(x)\n", "        y = self.dense(x)\n        print(y)\n"),
    ("        print(y)\n", ""),
    ("import mindspore as ms\n", "import mindspore as ms\n\n\n"),  # every line below moves
    ("\n\n\nimport mindspore.nn", "\nimport mindspore.nn"),
    ("        return x\n", "        if x.sum() > 0:\n            x = x + 1\n        return x\n"),
    ("        if x.sum() > 0:\n            x = x + 1\n", ""),
    ("        y = scale(y, 2)\n", "        y = scale(y, y.sum())\n"),  # a tensor: MSG102 in the helper, MSG004 here
    ("scale(y, y.sum())", "scale(y, 2)"),
    ("        net(x)\n", "        net(x)\n        net(ms.Tensor([1.0]))\n"),
    ("        net(ms.Tensor([1.0]))\n", ""),
    ("class Net(nn.Cell):", "class Net(Base):"),
    ("class Net(Base):", "class Net(nn.Cell):"),
]

# edits to the files on disk the document reaches (not open): a helper's and a base's body
DISK_EDITS = [
    ("pkg/utils.py", "def shout(x):\n    return x\n", "def shout(x):\n    print(x)\n    return x\n"),
    ("pkg/utils.py", "def shout(x):\n    print(x)\n    return x\n", "def shout(x):\n    return x\n"),
    ("pkg/utils.py", "    return x * factor\n", "    x[0] = 1\n    return x * factor\n"),
    ("pkg/utils.py", "    x[0] = 1\n", ""),
    ("pkg/layers.py", "        return x / 2\n", "        print(x)\n        return x / 2\n"),
    ("pkg/layers.py", "        print(x)\n", ""),
]


def test_a_module_constant_a_graph_scope_reads_is_part_of_its_reuse_key(tmp_path):
    """``LIMIT.append(x)`` in a construct is MSG207 while ``LIMIT`` is a module-level list,
    not once it is ``None`` or ``3``: the construct's text is unchanged, its findings are
    not (before the module's constants were in the scope key, the editor kept reporting
    MSG207 after ``LIMIT = None``)."""
    template = ('''import mindspore.nn as nn

LIMIT = {}


class Net(nn.Cell):
    def construct(self, x):
        LIMIT.append(x)
        return x


def train(net, data):
    for x in data.create_tuple_iterator():
        net(x)
''')
    path = _project(tmp_path)
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    cache, context = {}, ContextCache()
    for value in ("[1, 2]", "None", "3", "[1, 2]", "{}", "3"):
        text = template.format(value)
        got = run_source(text, path, settings=settings, scope_cache=cache, context_cache=context, buffers={},
                         related={})
        _write(path, text)
        [fresh] = [r for r in check_paths([path]) if r.path.endswith("model.py")]
        assert _seen(got.findings) == _seen(fresh.findings), value
        if value in ("[1, 2]", "None", "3"):  # a list mutated in graph code; then no list
            assert ("MSG207" in {f.code for f in got.findings}) == (value == "[1, 2]"), value


def _project(root) -> str:
    (root / "pyproject.toml").write_text(f'[tool.msgraphlint]\ncache-dir = "{root / ".cache"}"\n')
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(LAYERS)
    (pkg / "utils.py").write_text(UTILS)
    (pkg / "model.py").write_text(MODEL)
    return str(pkg / "model.py")


def _seen(findings) -> list:
    return sorted((f.code, f.line, f.col, f.message, f.hint or "", repr(f.origin)) for f in findings)


def _write(path: str, text: str) -> None:
    before = os.stat(path).st_mtime_ns if os.path.exists(path) else None
    with open(path, "w") as fh:
        fh.write(text)
    if before is not None and os.stat(path).st_mtime_ns == before:  # a coarse clock: the edit must show
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


@pytest.mark.parametrize("seed", range(4))
def test_any_sequence_of_edits_reports_what_a_fresh_check_reports(tmp_path, seed):
    rnd = random.Random(seed)
    path = _project(tmp_path)
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    scope_cache: dict = {}
    context = ContextCache()
    text = MODEL
    seen_codes = set()
    for step in range(14):
        if rnd.random() < 0.3:
            rel, old, new = rnd.choice(DISK_EDITS)
            other = str(tmp_path / rel)
            current = open(other).read()
            if old in current:
                _write(other, current.replace(old, new, 1))
        else:
            old, new = rnd.choice(DOC_EDITS)
            if old in text:
                text = text.replace(old, new, 1)
        related: dict = {}
        got = run_source(text, path, settings=settings, scope_cache=scope_cache, context_cache=context,
                         buffers={}, related=related)
        _write(path, text)  # `check` reads the document from disk
        [fresh] = [r for r in check_paths([path]) if r.path.endswith("model.py")]
        assert _seen(got.findings) == _seen(fresh.findings), (seed, step, text)
        # the files the document reaches, checked for its call-site findings and published as
        # related diagnostics: what an analysis from scratch (no cache kept) finds there
        scratch: dict = {}
        run_source(text, path, settings=prepare([path], str(tmp_path / "pyproject.toml")), buffers={},
                   related=scratch)
        assert {p: _seen(r.findings) for p, r in related.items()} == \
            {p: _seen(r.findings) for p, r in scratch.items()}, (seed, step, text)
        seen_codes.update(f.code for r in [got] + list(related.values()) for f in r.findings)
    assert seen_codes, "the edits made findings to compare"


def test_an_edit_that_changes_a_callees_evidence_re_reports_the_caller(tmp_path):
    """A helper in another file (not open) gains a print: the caller's call-site finding
    (MSG004) appears at its call on the next analysis of the unchanged document, and goes
    when the helper loses it, though the module summaries of the other files are kept
    between analyses (``ContextCache``)."""
    path = _project(tmp_path)
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    cache, context = {}, ContextCache()
    utils = str(tmp_path / "pkg" / "utils.py")

    def analyse():
        return [(f.code, f.line) for f in run_source(MODEL, path, settings=settings, scope_cache=cache,
                                                     context_cache=context, buffers={}, related={}).findings]

    call_line = MODEL.splitlines().index("        return shout(self.norm(y))") + 1
    assert ("MSG004", call_line) not in analyse()
    _write(utils, UTILS.replace("def shout(x):\n", "def shout(x):\n    print(x)\n"))
    assert ("MSG004", call_line) in analyse()
    _write(utils, UTILS)
    assert ("MSG004", call_line) not in analyse()
    time.sleep(0)  # (the three analyses shared one scope cache and one context cache)


# module-scope rules reused per top-level def/class (``ModuleEngine._statement_rules``): each
# finding below depends on something outside its own statement, and an edit changes it
MODULE_RULES = '''import mindspore as ms
import mindspore.nn as nn
from mindspore import ops

T = ms.Tensor([1.0, 2.0])
U = ms.Tensor([5.0, 6.0])


def U():  # U is bound another way too: not a tensor by its binding, no MSG513 at `U.ptp`
    return 1


def setup():
    from mindspore import nn as mnn
    return mnn


def helper(x):
    return ms.Tensor([1.0, 3.0]).ptp(axis=0)


class Drop(nn.Cell):
    spread = T.ptp(axis=0)
    other = U.ptp(axis=0)

    def __init__(self):
        super().__init__()
        self.drop = mnn.Dropout(0.1)

    def construct(self, x):
        return self.drop(x)


class Net(nn.Cell):
    def construct(self, x):
        return x
'''

MODULE_RULE_EDITS = [
    # MSG510 in Drop: `mnn` is bound by an import inside another def (the module's import map)
    ("    from mindspore import nn as mnn\n", "    from mindnlp import nn as mnn\n"),
    ("    from mindnlp import nn as mnn\n", "    from mindspore import nn as mnn\n"),
    # MSG513 in Drop's class body: `T` is a tensor by its module-level binding
    ("T = ms.Tensor([1.0, 2.0])\n", "T = [1.0, 2.0]\n"),
    ("T = [1.0, 2.0]\n", "T = ms.Tensor([1.0, 2.0])\n"),
    # MSG513 in helper: reported by the graph rule once Net's construct (another class) calls it
    ("        return x\n", "        return helper(x)\n"),
    ("        return helper(x)\n", "        return x\n"),
    # helper's own text, while it is graph code and while it is not
    ("ms.Tensor([1.0, 3.0])", "ms.Tensor([1.0, 4.0])"),
    ("ms.Tensor([1.0, 4.0])", "ms.Tensor([1.0, 3.0])"),
    # the statement itself; every line below moving
    ("mnn.Dropout(0.1)", "mnn.Dropout(p=0.1)"),
    ("mnn.Dropout(p=0.1)", "mnn.Dropout(0.1)"),
    ("        return self.drop(x)\n", "        print(x)\n        return self.drop(x)\n"),
    ("        print(x)\n", ""),
    ("from mindspore import ops\n", "from mindspore import ops\n\n\n"),
    ("from mindspore import ops\n\n\n", "from mindspore import ops\n"),
]


def _seen_chains(findings) -> list:
    return sorted((f.code, f.line, f.col, f.end_line, f.end_col, f.message, f.hint or "", repr(f.origin),
                   f.chain, repr(f.fix), repr(f.alternatives)) for f in findings)


@pytest.mark.parametrize("seed", range(4))
def test_module_rules_reused_per_statement_report_what_a_fresh_check_reports(tmp_path, seed):
    """Random edits to a document whose module-rule findings (MSG510, MSG513) depend on its
    import map, its module-level bindings and which of its functions are graph code: after
    each, the server's analysis (module rules reused per unchanged def/class) equals a fresh
    ``check``, findings' ends, fixes and call chains included."""
    rnd = random.Random(seed)
    path = _project(tmp_path)
    with open(path, "w") as fh:
        fh.write(MODULE_RULES)
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    scope_cache: dict = {}
    context = ContextCache()
    text = MODULE_RULES
    first = run_source(text, path, settings=settings, scope_cache=scope_cache, context_cache=context,
                       buffers={}, related={})
    codes = {f.code for f in first.findings}
    for step in range(24):
        old, new = rnd.choice(MODULE_RULE_EDITS)
        if old in text:
            text = text.replace(old, new, 1)
        got = run_source(text, path, settings=settings, scope_cache=scope_cache, context_cache=context,
                         buffers={}, related={})
        _write(path, text)
        [fresh] = [r for r in check_paths([path]) if r.path.endswith("model.py")]
        assert _seen_chains(got.findings) == _seen_chains(fresh.findings), (seed, step, text)
        codes.update(f.code for f in got.findings)
    assert {"MSG510", "MSG513"} <= codes
    assert any(k[0] == "statement" for k in scope_cache), "the module rules' findings were reused"


# A scope's findings reused while its key is unchanged must also follow what its value pass
# read outside its own text: the return kind of a helper it calls (same module), and what its
# names mean (the import map). Each edit below changes only that; the construct's text stays.
CALLER_OF_HELPER = '''import mindspore.nn as nn
{imports}


def helper(x):
    return {returned}


class Net(nn.Cell):
    def construct(self, x):
        y = helper(x)
        if y > 0:
            x = x + 1
        return x


def train(net, data):
    for x in data.create_tuple_iterator():
        net(x)
'''


def _server_and_fresh(tmp_path, texts):
    """(the server's findings, a fresh check's findings) of ``pkg/model.py`` after each text."""
    path = _project(tmp_path)
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    cache, context = {}, ContextCache()
    out = []
    for text in texts:
        got = run_source(text, path, settings=settings, scope_cache=cache, context_cache=context, buffers={},
                         related={})
        _write(path, text)
        [fresh] = [r for r in check_paths([path]) if r.path.endswith("model.py")]
        out.append((_seen_chains(got.findings), _seen_chains(fresh.findings)))
    return out


def test_a_same_module_helpers_return_kind_is_part_of_its_callers_reuse_key(tmp_path):
    """``if y > 0`` with ``y = helper(x)`` branches on a tensor (MSG101 at line 12) while the
    helper returns ``ops.ones(...)``, not once it returns ``1``: only the helper's text changes
    (before the helpers' texts were checked, the editor kept the MSG101)."""
    texts = [CALLER_OF_HELPER.format(imports="from mindspore import ops", returned=r)
             for r in ("ops.ones((2,))", "1", "ops.ones((2,))", "1")]
    for n, (got, fresh) in enumerate(_server_and_fresh(tmp_path, texts)):
        assert got == fresh, n
        assert (("MSG101", 12) in {(f[0], f[1]) for f in got}) == (n % 2 == 0), n


def test_the_import_map_is_part_of_a_scopes_reuse_key(tmp_path):
    """``ops.ones`` is a MindSpore tensor while ``ops`` is ``mindspore.ops``, not once the
    import line binds ``ops`` to numpy: the construct and the helper are unchanged (before
    the import map was in the scope key, the editor kept the MSG101)."""
    texts = [CALLER_OF_HELPER.format(imports=i, returned="ops.ones((2,))")
             for i in ("from mindspore import ops", "import numpy as ops", "from mindspore import ops",
                       "import numpy as ops")]
    for n, (got, fresh) in enumerate(_server_and_fresh(tmp_path, texts)):
        assert got == fresh, n
        assert (("MSG101", 12) in {(f[0], f[1]) for f in got}) == (n % 2 == 0), n


def test_the_kinds_a_caller_passes_to_another_modules_helper_follow_each_edit(tmp_path):
    """The document passes ``2`` or a tensor to ``scale`` in pkg/utils.py (a Python ``while``
    on it: MSG102 there, MSG004 at the call in the document), with every line of the document
    moving in between: the helper's findings (the kinds its parameters get from the calling
    root, kept between edits while the root's text is unchanged) and the document's equal a
    fresh check's after each edit."""
    path = _project(tmp_path)
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    cache, context = {}, ContextCache()
    tensor, const = "        y = scale(y, y.sum())\n", "        y = scale(y, 2)\n"
    texts = []
    for n in range(6):
        text = MODEL if n % 2 == 0 else MODEL.replace(const, tensor)
        texts.append(text if n % 3 else text.replace("import mindspore as ms\n", "import mindspore as ms\n\n\n"))
    for n, text in enumerate(texts):
        related: dict = {}
        got = run_source(text, path, settings=settings, scope_cache=cache, context_cache=context, buffers={},
                         related=related)
        _write(path, text)
        [fresh] = [r for r in check_paths([path]) if r.path.endswith("model.py")]
        assert _seen_chains(got.findings) == _seen_chains(fresh.findings), n
        scratch: dict = {}
        run_source(text, path, settings=prepare([path], str(tmp_path / "pyproject.toml")), buffers={},
                   related=scratch)
        assert {p: _seen_chains(r.findings) for p, r in related.items()} == \
            {p: _seen_chains(r.findings) for p, r in scratch.items()}, n
        in_utils = {f.code for r in related.values() if r.path.endswith("utils.py") for f in r.findings}
        assert ("MSG102" in in_utils) == (n % 2 == 1), n
        assert ("MSG004" in {f.code for f in got.findings}) == (n % 2 == 1), n
    assert any(k[0] == "hints" for c in context.scopes.values() for k in c), "the helper's hints were kept"


PARENT_PASSES = '''import mindspore.nn as nn
from mindspore import ops


def flag_of(x):
    return {returned}


class Block(nn.Cell):
    def construct(self, x, flag):
        if flag > 0:
            x = x + 1
        return x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        {line}
        return self.block(x, flag)


def train(net, data):
    for x in data.create_tuple_iterator():
        net(x)
'''


def test_the_kinds_a_parent_cell_passes_follow_its_text_and_its_helpers(tmp_path):
    """``Block.construct`` branches on ``flag`` (MSG101 at line 11) when its parent passes a
    tensor: ``flag = ops.ones(...)`` or ``flag = flag_of(x)`` with ``flag_of`` returning one,
    and not when the parent passes ``1`` or ``flag_of`` returns ``1``. The parent's argument
    kinds are kept between edits while its text and the helpers its value pass called are
    unchanged; here one of the two changes at each edit, and the server equals a fresh check."""
    cases = [("ops.ones((2,))", "flag = ops.ones((2,))", True), ("ops.ones((2,))", "flag = 1", False),
             ("ops.ones((2,))", "flag = flag_of(x)", True), ("1", "flag = flag_of(x)", False),
             ("ops.ones((2,))", "flag = flag_of(x)", True), ("1", "flag = flag_of(x)", False)]
    texts = [PARENT_PASSES.format(returned=r, line=line) for r, line, _ in cases]
    for (got, fresh), (_r, _l, branches) in zip(_server_and_fresh(tmp_path, texts), cases):
        assert got == fresh, _l
        assert (("MSG101", 11) in {(f[0], f[1]) for f in got}) == branches, (_r, _l)


ATTRS = '''import mindspore as ms
import mindspore.nn as nn
from mindspore import ops
from pkg.utils import shout


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flag = {flag}

    def construct(self, x):
        self.flag.append(x)
        x = x + 1
        return shout(x)


def train(net, data):
    for x in data.create_tuple_iterator():
        net(x)
'''


def test_a_summary_kept_per_def_follows_each_edit_of_the_def(tmp_path):
    """The module summary's per-def parts (``__init__``'s attribute kinds, a construct's call
    edges) are kept between edits by the def's text (``index.STATEMENT_MEMO``): ``self.flag`` a
    Python list (MSG207 at its ``append`` in construct) or ``None`` (none), and the lines moving
    above both defs (the MSG004 at ``shout``'s call, the helper printing, moves with them)."""
    utils = tmp_path / "pkg" / "utils.py"
    texts = []
    for n in range(6):
        text = ATTRS.format(flag="[1, 2]" if n % 2 == 0 else "None")
        texts.append(text if n < 3 else text.replace("import mindspore as ms\n", "import mindspore as ms\n\n\n"))
    path = _project(tmp_path)
    utils.write_text(UTILS.replace("def shout(x):\n", "def shout(x):\n    print(x)\n"))
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    cache, context = {}, ContextCache()
    for n, text in enumerate(texts):
        got = run_source(text, path, settings=settings, scope_cache=cache, context_cache=context, buffers={},
                         related={})
        _write(path, text)
        [fresh] = [r for r in check_paths([path]) if r.path.endswith("model.py")]
        assert _seen_chains(got.findings) == _seen_chains(fresh.findings), n
        codes = {(f.code, f.line) for f in got.findings}
        shift = 2 if n >= 3 else 0
        assert (("MSG207", 13 + shift) in codes) == (n % 2 == 0), (n, codes)
        assert ("MSG004", 15 + shift) in codes, (n, codes)
    assert any(k[0] == "summary-attrs" for k in cache) and any(k[0] == "summary-calls" for k in cache)


LOCAL_HELPER = '''import mindspore.nn as nn
from mindspore import ops


def gate(x, flag{extra}):
    while flag > 1:
        flag = flag - 1
    return x


class Net(nn.Cell):
    def construct(self, x):
        return gate(x, {passed})


class Other(nn.Cell):
    def construct(self, x):
{other}        return x


def train(net, other, data):
    for x in data.create_tuple_iterator():
        net(x)
        other(x)
'''


def test_what_a_reused_scope_passes_its_modules_graph_helpers_is_kept_too(tmp_path):
    """``Net.construct`` passes ``gate`` a tensor (MSG102 at gate's ``while``, line 6) or ``2``;
    the edits between change only ``Other`` or ``gate``'s parameters, so ``Net.construct``'s
    findings are reused, and with them the kinds it passes ``gate`` (before the server
    computed the value pass of every scope of a module with graph helpers at each edit)."""
    steps = [("x.sum()", "", "", True), ("x.sum()", "", "        print(x)\n", True), ("2", "", "", False),
             ("2", "", "        print(x)\n", False), ("x.sum()", "", "", True), ("x.sum()", ", n=1", "", True),
             ("x.sum()", ", n=1", "        print(x)\n", True), ("2", ", n=1", "", False)]
    texts = [LOCAL_HELPER.format(passed=p, extra=e, other=o) for p, e, o, _ in steps]
    for (got, fresh), (_p, _e, _o, loops) in zip(_server_and_fresh(tmp_path, texts), steps):
        assert got == fresh, (_p, _e, _o)
        assert (("MSG102", 6) in {(f[0], f[1]) for f in got}) == loops, (_p, _e, _o)


REST = '''import mindspore.nn as nn
{top}
drop = nn.Dropout(keep_prob={keep})


class Net(nn.Cell):
    def construct(self, x):
{body}        return x
'''


def test_module_rule_findings_outside_defs_are_reused_where_the_statements_now_are(tmp_path):
    """MSG510 on a module-level statement (not a def or class) is kept while every def and
    class is reused and the other statements' texts are unchanged, and replayed where the
    statement now is (the lines above it move); an edit of that statement re-checks it."""
    steps = [("", "0.9", ""), ("\n\n", "0.9", ""), ("", "0.9", ""), ("\n\n", "0.9", ""),
             ("\n\n", "0.9", "        print(x)\n"), ("\n", "0.8", ""), ("", "0.8", ""), ("\n\n\n", "0.8", "")]
    texts = [REST.format(top=t, keep=k, body=b) for t, k, b in steps]
    path = _project(tmp_path)
    settings = prepare([path], str(tmp_path / "pyproject.toml"))
    cache, context = {}, ContextCache()
    for (top, keep, body), text in zip(steps, texts):
        got = run_source(text, path, settings=settings, scope_cache=cache, context_cache=context, buffers={},
                         related={})
        _write(path, text)
        [fresh] = [r for r in check_paths([path]) if r.path.endswith("model.py")]
        assert _seen_chains(got.findings) == _seen_chains(fresh.findings), (top, keep, body)
        assert ("MSG510", 3 + top.count("\n")) in {(f.code, f.line) for f in got.findings}, (top, keep, body)
    assert any(k[0] == "statement-rest" for k in cache if isinstance(k, tuple) and isinstance(k[0], str))

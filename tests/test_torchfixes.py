"""MSG502 fixes (msgraphlint/fix/torchfixes.py): a PyTorch function in graph code → the ops
function of the same semantics. Which calls get a safe fix, an unsafe one or none; the exact
rewritten text; the module's ops name; the target release's signature. The safe ones are the
semantic harness's to prove (tests/test_fix_semantics.py runs tests/data/torchfixes/ against
tests/data/torch_shim, PyTorch's documented meaning)."""

from __future__ import annotations

import shutil
from pathlib import Path

from msgraphlint.fix.files import fix_paths
from msgraphlint.fix.torchfixes import SPECS, _signature
from msgraphlint.infer.catalog import get_catalog
from msgraphlint.run.runner import run_paths

DATA = Path(__file__).resolve().parent / "data" / "torchfixes"
TABLE = Path(__file__).resolve().parent.parent / "msgraphlint" / "data" / "torch_to_mindspore.json"


def _findings(path, **kw):
    return [f for fr in run_paths([str(path)], select=["MSG502"], **kw).files for f in fr.findings
            if f.code == "MSG502"]


def _verdicts(path):
    return {(f.line, f.col + 1): (f.fix.safety.value if f.fix else None) for f in _findings(path)}


def _fixed(path, unsafe=False):
    _, changed, errors = fix_paths(run_paths([str(path)], select=["MSG502"]), unsafe=unsafe, write=False)
    assert not errors
    return changed[0].fixed if changed else None


def test_every_call_in_the_positive_file_gets_a_safe_fix():
    found = _findings(DATA / "torch_pos.py")
    assert len(found) == 50 and all(f.fix and f.fix.safety.value == "safe" for f in found)
    fixed = _fixed(DATA / "torch_pos.py")
    for line in ("        y = ops.cat((x, x * 2), axis=-1)\n",
                 "        a, b = ops.split(x, 1, axis=0)\n",
                 "        return ops.softmax(x, axis=-1), ops.softmax(x, 0), ops.log_softmax(x, axis=1), "
                 "ops.log_softmax(x, -1)\n",
                 "        m = ops.mean(x, axis=-1, keep_dims=True)\n",
                 "        return m, s, ops.mean(x), ops.argmax(x, dim=-1), ops.argmax(x)\n",
                 "        return (ops.zeros_like(x) + ops.ones_like(x), ops.zeros((2, 3)), ops.ones((4,)),\n",
                 "        return ops.swapaxes(y, 1, 2), ops.reshape(z, (-1,)), ops.flatten(x, start_dim=0), "
                 "ops.flatten(x, start_dim=1), w\n",
                 "ops.gather_elements(x, 1, (x > 0.5).astype(\"int64\"))\n",
                 "        return ops.dense(h, w), ops.pad(x, (1, 2)), ops.pad(x, (1, 1), \"constant\", 3.0)\n",
                 "import mindspore.nn as nn\nfrom mindspore import ops\n"):
        assert line in fixed, line
    body = fixed.split("from mindspore import ops\n", 1)[1]
    assert "torch." not in body and "F." not in body
    compile(fixed, "torch_pos.py", "exec")


def test_look_alikes_get_an_unsafe_fix_or_none():
    assert _verdicts(DATA / "torch_neg.py") == {
        (10, 13): None,      # torch.softmax(x): PyTorch has no default dim, ops' axis is -1
        (11, 13): None,      # F.softmax(x): a dim picked by rank
        (17, 9): None,       # out=
        (18, 13): None,      # dtype=torch.float16
        (19, 13): None,      # torch.zeros(2, 3, dtype=...)
        (20, 13): None,      # torch.full((2,), 1.5): ops.full makes it int64
        (21, 13): None,      # torch.where(c): nonzero
        (22, 13): None,      # torch.max(x, 1)
        (24, 13): None,      # torch.cat(*xs)
        (30, 13): "unsafe",  # F.dropout: another random stream
        (31, 16): "unsafe"}  # F.layer_norm: no CPU kernel
    by_line = {f.line: f.fix.description for f in _findings(DATA / "torch_neg.py") if f.fix}
    assert "random" in by_line[30] and "CPU kernel" in by_line[31]
    assert _findings(DATA / "torch_local_neg.py") == []          # the module's own `torch`
    assert _verdicts(DATA / "torch_ops_taken_neg.py") == {(10, 16): None}  # `ops` names something else


def test_the_module_alias_of_ops_is_used_and_nothing_imported():
    fixed = _fixed(DATA / "torch_alias.py")
    assert fixed == (DATA / "torch_alias.py").read_text().replace("torch.cat([x, x], dim=1)", "P.cat([x, x], axis=1)")


def test_fixed_files_relint_clean_for_msg502(tmp_path):
    for name in ("torch_pos.py", "torch_alias.py"):
        shutil.copy(DATA / name, tmp_path / name)
    _, changed, errors = fix_paths(run_paths([str(tmp_path)], select=["MSG502"]), write=True)
    assert not errors and len(changed) == 2
    assert [f for fr in run_paths([str(tmp_path)], select=["MSG502"]).files for f in fr.findings] == []


def test_every_spec_fits_each_known_release_signature():
    """Each replacement exists in every known release with at least the positional parameters
    the spec maps to, and the keyword-only ones it writes (flatten's start_dim)."""
    from msgraphlint.infer.catalog import known_versions
    for v in known_versions():
        cat = get_catalog(v)
        for q, spec in SPECS.items():
            target = f"mindspore.ops.{spec.ms}"
            assert cat.function(target) is not None, (v, target)
            pos, kw = _signature(cat.params(target))
            keyword = set(spec.keyword)
            assert len([p for p in spec.params if p not in keyword]) <= len(pos), (v, q, pos)
            assert {spec.keyword[k] for k in keyword} <= set(kw), (v, q, kw)


def test_a_keyword_the_rewrite_cannot_carry_gets_no_fix(tmp_path):
    """`out=` (or any keyword outside PyTorch's parameters the spec keeps): no fix."""
    p = tmp_path / "m.py"
    p.write_text("import torch\nfrom mindspore import nn, ops\n\n\nclass N(nn.Cell):\n"
                 "    def construct(self, x):\n        return torch.cat((x, x), 0, out=x)\n")
    assert [f.fix for f in _findings(p)] == [None]


def _one_call_per_row(tmp_path):
    """A graph-mode module calling each PyTorch function the fix rewrites, with the
    arguments its fix requires (names; torch.full's fill an int literal), one per line."""
    import json
    from msgraphlint.fix.torchfixes import SPECS
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    rows = [(q, table.get(q, {})) for q in SPECS]  # every function the fix knows, with its table row
    lines = ["import torch", "import torch.nn.functional", "from mindspore import nn, ops", "", "",
             "class N(nn.Cell):", "    def construct(self, x):"]
    for q, e in rows:
        n = max(SPECS[q].required, 1)
        args = [f"a{i}" for i in range(n)]
        if q == "torch.full":
            args[1] = "1"
        lines.append(f"        y = {q}({', '.join(args)})")
    lines.append("        return x")
    p = tmp_path / "rows.py"
    p.write_text("\n".join(lines) + "\n")
    return p, rows, 8


def test_msg502s_advice_and_its_fix_name_the_same_function(tmp_path):
    """One source (msgraphlint/data/torch_to_mindspore.json): for every row with a fix, the
    function MSG502's message advises is the one its fix writes. Fails on the table before it
    had the torch.log_softmax and torch.concat rows (advice: "find the mindspore.ops /
    mindspore.mint equivalent"; fix: ops.log_softmax / ops.cat)."""
    import re
    p, rows, first = _one_call_per_row(tmp_path)
    found = {f.line: f for f in _findings(p)}
    assert sorted(found) == list(range(first, first + len(rows)))
    for i, (q, e) in enumerate(rows):
        f = found[first + i]
        advice = re.search(r"use `ops\.(\w+)`", f.full_message)
        assert advice is not None, (q, f.full_message)
        assert f.fix is not None, q
        new = {ed.text for ed in f.fix.edits}
        assert f"ops.{advice.group(1)}" in new, (q, advice.group(1), new)
        assert e.get("ms") == f"mindspore.ops.{advice.group(1)}", q


def test_every_fix_row_is_a_spec_and_names_an_ops_function():
    """SPECS is the table's fix column (nothing else), and a fix row's `ms` is an ops function."""
    import json
    from msgraphlint.fix.torchfixes import SPECS
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    fix_rows = {q: e for q, e in table.items() if not q.startswith("_") and e.get("fix")}
    assert set(SPECS) == set(fix_rows) and len(SPECS) == 45
    for q, e in fix_rows.items():
        assert e["ms"] == f"mindspore.ops.{SPECS[q].ms}"
        assert tuple(e["fix"]["params"]) == SPECS[q].params

"""The fix contract (msgraphlint/fix/contract.py): a fix never drops text, a safe fix carries a
proof; MSG620 and MSG204 against their measured hazards; one line numbering (ast's) and
one column unit (characters) in findings, edits, JSON and SARIF."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from helpers import run_cli

from msgraphlint import context
from msgraphlint.fix import contract as fixes
from msgraphlint.parse import source
from msgraphlint.parse import text as text_mod
from msgraphlint.findings import Edit, Fix, FixSafety
from msgraphlint.fix.contract import apply_edits
from msgraphlint.engine.registry import load_rules
from msgraphlint.run.runner import run_paths

ROOT = Path(__file__).resolve().parent.parent


run = run_cli


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _findings(path, code):
    return [f for fr in run_paths([str(path)], select=[code]).files for f in fr.findings if f.code == code]


# the mechanism --------------------------------------------------------------------------

def test_a_fix_that_drops_an_argument_is_withheld():
    text = 'ms.set_context(device_target="CPU", **extra)\n'
    fix = Fix("x", (Edit(1, 0, 1, len(text) - 1, 'ms.set_device("CPU")'),), FixSafety.SAFE, proof="p",
              drops=("set_context", "device_target"))
    assert fixes.dropped(fix, text) == ["**", "extra"]
    checked, why = fixes.check_fix(fix, text)
    assert checked is None and "extra" in why


def test_a_fix_that_drops_a_comment_is_withheld():
    text = "f(a,  # keep me\n  b)\n"
    fix = Fix("x", (Edit(1, 0, 2, 4, "f(a, b)"),), FixSafety.UNSAFE)
    assert fixes.check_fix(fix, text)[0] is None


def test_declared_drops_pass_and_a_safe_fix_needs_a_proof():
    text = "print(x)\n"
    fix = Fix("x", (Edit(1, 0, 1, 5, "ops.print_"),), FixSafety.SAFE, drops=("print",))
    checked, why = fixes.check_fix(fix, text)
    assert checked.safety is FixSafety.UNSAFE and why == "marked safe without a proof"
    checked, why = fixes.check_fix(Fix("x", fix.edits, FixSafety.SAFE, proof="measured", drops=("print",)), text)
    assert checked.safety is FixSafety.SAFE and why is None


def test_no_rule_relies_on_the_contract_to_be_corrected():
    """Every fix any rule emits on its INVALID examples and on the labeled fixtures keeps
    the contract by itself (the context would otherwise withhold or demote it)."""
    context.CONTRACT_LOG.clear()
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for code, rule in load_rules().items():
            for i, ex in enumerate(rule.INVALID):
                p = Path(d) / f"{code}_{i}" / ex.filename
                p.parent.mkdir()
                p.write_text(ex.source, encoding="utf-8")
                run_paths([str(p)], select=[code])
    run_paths([str(ROOT / "fixtures")])
    assert context.CONTRACT_LOG == []


# MSG620 ---------------------------------------------------------------------------------

def test_msg620_never_drops_kwargs(proj):
    p = proj / "train.py"
    src = 'import mindspore as ms\nextra = {"mode": 0}\nms.set_context(device_target="CPU", **extra)\n'
    p.write_text(src)
    (f,) = _findings(p, "MSG620")
    assert f.fix is None
    run("check", "--fix", "--unsafe-fixes", "--select", "MSG620", "train.py")
    assert p.read_text() == src


def test_msg620_set_device_rewrite_is_unsafe(proj):
    """set_device raises once the runtime is initialised where set_context was accepted
    (tests/test_fix_semantics.py measures it): --fix alone must not rewrite it."""
    p = proj / "train.py"
    src = 'import mindspore as ms\nms.set_context(device_target="Ascend", device_id=1)\n'
    p.write_text(src)
    fixes = [f.fix for f in _findings(p, "MSG620") if f.fix is not None]
    assert fixes and all(fix.safety is FixSafety.UNSAFE for fix in fixes)
    run("check", "--fix", "--select", "MSG620", "train.py")
    assert p.read_text() == src
    run("check", "--fix", "--unsafe-fixes", "--select", "MSG620", "train.py")
    assert p.read_text() == 'import mindspore as ms\nms.set_device("Ascend", 1)\n'


# MSG204 ---------------------------------------------------------------------------------

CELL = """\
import mindspore.nn as nn


class Net(nn.Cell):
    def construct(self, x):
{body}
"""

ALIASED = {
    "tuple": "y = x * 2\nt = (y,)\ny += 1\nreturn t[0] * 4",
    "list": "y = x * 2\nt = [y, x]\ny += 1\nreturn t[0] * 4",
    "dict": "y = x * 2\nd = {'a': y}\ny += 1\nreturn d['a'] * 4",
    "closure": "y = x * 2\nf = lambda: y\ny += 1\nreturn f() * 4",
    "nested def": "y = x * 2\ndef f():\n    return y\ny += 1\nreturn f() * 4",
    "call argument": "y = x * 2\nt = self.keep(y)\ny += 1\nreturn t * 4",
    "loop": "y = x * 2\nout = x\nfor _ in range(2):\n    out = (out, y)[1]\n    y += 1\nreturn out",
    "a view of an input": "y = x.reshape(-1)\ny += 1\nreturn y",
}


@pytest.mark.parametrize("form", list(ALIASED))
def test_msg204_fix_is_not_safe_when_the_name_may_be_aliased(proj, form):
    body = textwrap.indent(ALIASED[form], " " * 8)
    p = proj / "net.py"
    src = CELL.format(body=body)
    p.write_text(src)
    found = _findings(p, "MSG204")
    assert found, "MSG204 should still report the in-place write"
    assert all(f.fix is None or f.fix.safety is FixSafety.UNSAFE for f in found)
    run("check", "--fix", "--select", "MSG204", "net.py")
    assert p.read_text() == src


def test_msg204_fix_is_safe_without_an_alias(proj):
    body = textwrap.indent("y = x * 2\nz = y + 1\nif y.shape[0] > 1:\n    y += 1\nreturn y + z", " " * 8)
    p = proj / "net.py"
    p.write_text(CELL.format(body=body))
    (f,) = _findings(p, "MSG204")
    assert f.fix.safety is FixSafety.SAFE and "no alias" in f.fix.proof
    run("check", "--fix", "--select", "MSG204", "net.py")
    assert "            y = y + 1\n" in p.read_text()


# one line numbering, one column unit ----------------------------------------------------

FORM_FEED = ("import mindspore.nn as nn\n"
             "#\x0c section two\n"
             "class Net(nn.Cell):\n"
             "    def construct(self, x):\n"
             "        y = x * 2\n"
             "        y += 1\n"
             "        return y\n")


def test_split_lines_numbers_lines_like_ast():
    assert len(source.split_lines(FORM_FEED)) == 7 and len(FORM_FEED.splitlines()) == 8
    assert "".join(source.split_lines(FORM_FEED, keepends=True)) == FORM_FEED


def test_a_form_feed_does_not_shift_findings_or_fixes(proj):
    p = proj / "net.py"
    p.write_text(FORM_FEED)
    (f,) = _findings(p, "MSG204")
    assert (f.line, f.source_line) == (6, "        y += 1")
    r = run("check", "--fix", "--select", "MSG204", "net.py")
    assert r.exit_code == 0, r.output
    assert p.read_text() == FORM_FEED.replace("y += 1", "y = y + 1")


WIDE = ("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
        "        y = x * 2\n"
        "        s = '中文注释'; y += 1  # 加一\n"
        "        return y\n")


def _apply_json_edits(text, edits):
    """What a consumer of the JSON does: 1-based lines (ast's) and character columns."""
    return apply_edits(text, [[Edit(e["line"], e["column"] - 1, e["end_line"], e["end_column"] - 1, e["text"])
                               for e in edits]])[0]


def test_json_fix_edits_use_character_columns(proj):
    p = proj / "net.py"
    p.write_text(WIDE, encoding="utf-8")
    r = run("check", "--format", "json", "--select", "MSG204", "net.py")
    (finding,) = json.loads(r.output)["findings"]
    (edit,) = finding["fix"]["edits"]
    line = WIDE.splitlines()[6]
    assert finding["column"] == line.index("y +=") + 1 == edit["column"]
    assert edit["end_column"] == line.index("  #") + 1
    assert _apply_json_edits(WIDE, finding["fix"]["edits"]) == WIDE.replace("y += 1", "y = y + 1")
    run("check", "--fix", "--select", "MSG204", "net.py")
    assert p.read_text(encoding="utf-8") == WIDE.replace("y += 1", "y = y + 1")


def test_sarif_fix_regions_use_character_columns(proj):
    p = proj / "net.py"
    p.write_text(WIDE, encoding="utf-8")
    r = run("check", "--format", "sarif", "--select", "MSG204", "net.py")
    run_ = json.loads(r.output)["runs"][0]
    assert run_["columnKind"] == "unicodeCodePoints"
    (result,) = run_["results"]
    region = result["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]
    line = WIDE.splitlines()[6]
    assert region["startColumn"] == line.index("y +=") + 1 == result["locations"][0]["physicalLocation"]["region"]["startColumn"]
    assert region["endColumn"] == line.index("  #") + 1


def test_split_lines_and_line_starts_agree_with_the_line_end_regex_on_every_text():
    """split_lines has a str.split fast path (no carriage return) and fixes._line_starts one
    regex scan; both must equal what the line-end regex alone gives, on texts mixing every
    line end, form feeds, vertical tabs and a missing last newline."""
    import random

    from msgraphlint.fix import contract as fixes

    def by_regex(text, keepends):
        if not keepends:
            out = source._LINE_END.split(text)
            return out[:-1] if out and out[-1] == "" else out
        out, start = [], 0
        for m in source._LINE_END.finditer(text):
            out.append(text[start:m.end()])
            start = m.end()
        return out + ([text[start:]] if start < len(text) else [])

    rng = random.Random(0)
    texts = ["", "\n", "a", "a\n", "\n\n", "a\x0cb\n", "\n\na\n\n", "x\r\ny", "x\ry\n"]
    texts += ["".join(rng.choice("ab \n\r\x0c\x0b") for _ in range(rng.randint(0, 14))) for _ in range(3000)]
    for text in texts:
        for keepends in (False, True):
            assert source.split_lines(text, keepends) == by_regex(text, keepends), (text, keepends)
        starts = [0]
        for line in by_regex(text, True):
            starts.append(starts[-1] + len(line))
        text_mod._STARTS[0] = None  # computed, not the remembered answer for an equal text
        assert text_mod.line_starts(text) == starts, text

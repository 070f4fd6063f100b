"""Program generators and the property for fuzzing the checker (tests/test_fuzz.py runs a
bounded number of examples; benchmarks/fuzz.py runs many and prints counts).

Two sources of programs:
* ``grammar``: modules generated from Python's grammar by hypothesmith (syntactically
  plausible, often not compilable), prefixed with ``import mindspore`` so the cheap
  pre-filter lets them through;
* ``mutation``: real MindSpore code (the reference GPT layer, the seeded fixtures) with
  MindSpore-shaped edits: graph-mode constructs inserted at random lines and
  indentations, lines deleted or duplicated, bodies nested in loops, long expression
  chains, truncation at a random byte.

The property: checking never raises and never reports MSG000 (internal error), and it
reports MSG001 (parse error) exactly when ``ast.parse`` rejects the text (for a text the
pre-filter admits: one that never mentions mindspore/construct/jit is not parsed at all).

A third source, ``fix_tree``, builds trees of independent files (Python modules with and
without safe fixes, YAML run configs, notebooks) for the ``--fix`` property
``fix_tree_outcome`` (tests/test_fix_identity.py, ``benchmarks/fuzz.py --fix-trees N``):
fixing the tree gives each file the fixed bytes written by the generator, the same as
fixing it alone, and `--diff` announces the count `--fix` applies.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
SEEDS: List[str] = sorted(
    [(REPO / "reference_model" / "gpt_layer.py").read_text(encoding="utf-8")]
    + [p.read_text(encoding="utf-8") for p in sorted((REPO / "fixtures" / "seeded").glob("*.py"))])

SNIPPETS = [
    "if x.sum() > 0:", "for i in range(3):", "while x.max() > 1:", "x += 1", "x[0] = 1", "print(x)", "del x",
    "return", "return x.asnumpy()", "yield x", "y = lambda t: t * 2", "try:", "except Exception:", "finally:",
    "with ops.stop_gradient(x):", "global y", "nonlocal y", "async def f():", "await x", "match x:", "case 1:",
    "x = x.item()", "x = float(x)", "x = self.dense(x) if self.training else x", "x = [t for t in x]",
    "self.count += 1", "x.add_(1)", "ms.set_context(mode=ms.GRAPH_MODE)", "@ms.jit", "class Inner(nn.Cell):",
    "def construct(self, x):", "x = x" + ".abs()" * 400, "x = " + " + ".join(["x"] * 500), "assert x is not None",
    "x = ops.nonzero(x)", "x = x[x > 0]", "raise ValueError(x)", "x: int = 3", "(x := x + 1)", "else:", "elif x:",
    "pass", "break", "continue", "import numpy as np", "x = np.array(x)", "x = ops.Shape()(x)", "\\", "(", ")",
]


@st.composite
def mutated(draw) -> str:
    lines = draw(st.sampled_from(SEEDS)).splitlines()
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "insert", "delete", "duplicate", "indent", "nest", "truncate"]))
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if op == "insert":
            indent = " " * draw(st.sampled_from([0, 4, 8, 12, 16]))
            lines.insert(i, indent + draw(st.sampled_from(SNIPPETS)))
        elif op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "indent":
            lines[i] = " " * draw(st.integers(0, 6)) + lines[i]
        elif op == "nest":  # wrap the rest of an indented block in loops, as deep as drawn
            depth = draw(st.integers(1, 25))
            head = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            block = [ln for ln in lines[i:] if ln.startswith(head) or not ln.strip()]
            nested = []
            for d in range(depth):
                nested.append(head + "    " * d + f"for _{d} in range(2):")
            nested += ["    " * depth + ln for ln in block]
            lines[i:i + len(block)] = nested
        elif op == "truncate":
            text = "\n".join(lines)
            lines = text[: draw(st.integers(0, len(text)))].splitlines()
    return "\n".join(lines) + "\n"


def grammar():
    import hypothesmith

    return hypothesmith.from_grammar().map(lambda src: "import mindspore\n" + src)


def parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def outcome(text: str) -> str:
    """'parse-error', 'checked' or 'not-graph-code' when the property holds; raises
    AssertionError if not."""
    from msgraphlint import api
    from msgraphlint.run.discovery import may_hold_graph_code

    findings = api.check_source(text, "fuzzed.py")
    codes = {f.code for f in findings}
    internal: Optional[list] = [f.message for f in findings if f.code == "MSG000"]
    assert not internal, f"internal error: {internal}\n--- program ---\n{text}"
    if not may_hold_graph_code(text):
        assert not findings, f"a file the pre-filter skips has findings: {codes}"
        return "not-graph-code"
    ok = parses(text)
    assert ("MSG001" in codes) == (not ok), (
        f"MSG001 {'reported' if 'MSG001' in codes else 'missing'} but ast.parse "
        f"{'accepts' if ok else 'rejects'} the program\n--- program ---\n{text}")
    return "checked" if ok else "parse-error"


# --------------------------------------------------------------------------------------
# fix trees: `check --fix` of a whole tree against `--fix` of each file alone
# --------------------------------------------------------------------------------------
# The property (fix_tree_outcome): in a tree of independent files (Python modules with and
# without safe fixes, MindFormers run configs, notebooks), in any folder order,
# * `check --fix .` leaves every file exactly the bytes written here by hand as its fixed
#   text (`TreeFile.fixed`), which is also what `check --fix FILE` gives each file alone;
# * a file with no safe fix (YAML, suppressed or unsafe-only findings, parse errors,
#   skip-file, no graph code) is never changed; a notebook's fixed bytes are its JSON with
#   the fixed cell's `source` lines, everything else as it was;
# * `check --diff .` changes nothing and announces the same count `--fix` reports fixed,
#   and both equal the fixes written into the files here; a second `--fix` changes nothing;
# * no run reports an internal error or a warning, or exits 2.
# Files never import each other and every class has its own name, so linting a file alone
# sees the same evidence as linting it in the tree.


@dataclass(frozen=True)
class TreeFile:
    rel: str        # path below the tree's root, "/"-separated
    data: bytes     # what is written
    fixed: bytes    # what `check --fix` must leave (== data when nothing in it has a safe fix)
    fixes: int      # the safe fixes --fix applies to it


# (text, fixed text, fixes): dropout constructions (MSG510's safe fix: keep_prob=k -> p=1 - k)
DROPOUTS = [
    ("nn.Dropout(keep_prob=0.9)", "nn.Dropout(p=0.1)", 1),
    ("nn.Dropout(keep_prob=0.5)", "nn.Dropout(p=0.5)", 1),
    ("nn.Dropout(keep_prob=0.8)", "nn.Dropout(p=0.2)", 1),
    ("nn.Dropout(p=0.2)", "nn.Dropout(p=0.2)", 0),
]
# statements of `construct` on the local tensor y (MSG204's safe fix: y op= v -> y = y op v)
STATEMENTS = [
    (["y += 1"], ["y = y + 1"], 1),
    (["y -= 2"], ["y = y - 2"], 1),
    (["y *= 3  # noqa: MSG204"], ["y *= 3  # noqa: MSG204"], 0),  # suppressed
    (["y /= 4"], ["y /= 4"], 0),                                  # MSG204 without a fix
    (["y = y * 2"], ["y = y * 2"], 0),
]
# after the writes only: a read of y that is not arithmetic, before `y += 1`, withholds
# MSG204's safe fix (the tensor might be seen through an alias: the rule's no-alias proof)
TAIL = [
    (["print(y)"], ["print(y)"], 0),                                              # MSG201: an unsafe fix only
    # MSG101 without a fix: an `and` with an operand that is not a one-element condition gets no
    # ops.where rewrite (both operands would run; `y.sum() > 0 and y.max() > 1` has a safe one)
    (["if y.sum() > 0 and y[0, 0] > 1:", "    y = y + 1"], ["if y.sum() > 0 and y[0, 0] > 1:", "    y = y + 1"], 0),
]

YAML_CONFIGS = [
    # MSG601 + MSG602 (30 heads over model_parallel 8; 4096 / 30): findings, no fix
    "model:\n  model_config:\n    num_heads: 30\n    hidden_size: 4096\nparallel_config:\n  model_parallel: 8\n",
    # clean: 32 heads of 128 over 8 ranks
    "model:\n  model_config:\n    num_heads: 32\n    hidden_size: 4096\nparallel_config:\n  model_parallel: 8\n",
    "seed: 0\n",
    "name: CI\non:\n  push:\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
    "model:\n  model_config: [\n",  # not YAML
]
OTHER_PYTHON = [
    "",                                                   # an empty __init__.py
    "def scale(x):\n    x += 1\n    return x\n",          # no graph code: the pre-filter skips it
    "import mindspore\ndef f(:\n    pass\n",              # MSG001
]
FOLDERS = ["a_cfg", "b_src", "pkg", "z", "0", "sub", "aa", "configs", "Zeta", "x_1", "src"]
PY_NAMES = ["__init__.py", "m.py", "model.py", "a.py", "zz.py", "net_1.py", "_x.py", "run.py"]
YAML_NAMES = ["run.yaml", "a.yml", "config.yaml", "zz.yaml", "m.yaml"]
NB_NAMES = ["nb.ipynb", "a.ipynb", "train.ipynb"]


def _cell_module(draw, k: int):
    """A module with one Cell (named by ``k``): (text, fixed text, fixes)."""
    drops = draw(st.lists(st.sampled_from(DROPOUTS), max_size=3))
    stmts = draw(st.lists(st.sampled_from(STATEMENTS), max_size=4)) + [t for t in TAIL if draw(st.booleans())]
    skip = draw(st.integers(0, 9)) == 0
    head = ["# msgraphlint: skip-file"] if skip else []
    src, fixed = list(head), list(head)
    for lines in (src, fixed):
        lines += ["import mindspore.nn as nn", "", "", f"class Net{k}(nn.Cell):", "    def __init__(self):",
                  "        super().__init__()"]
    n = 0
    for i, (a, b, m) in enumerate(drops):
        src.append(f"        self.drop{i} = {a}")
        fixed.append(f"        self.drop{i} = {b}")
        n += m
    for lines in (src, fixed):
        lines += ["", "    def construct(self, x):", "        y = x * 2"]
    for a, b, m in stmts:
        src += ["        " + ln for ln in a]
        fixed += ["        " + ln for ln in b]
        n += m
    for lines in (src, fixed):
        lines.append("        return y")
    if skip:
        return "\n".join(src) + "\n", "\n".join(src) + "\n", 0
    return "\n".join(src) + "\n", "\n".join(fixed) + "\n", n


def _encode(text: str, newline: str, bom: bool) -> bytes:
    return (b"\xef\xbb\xbf" if bom else b"") + text.replace("\n", newline).encode("utf-8")


@st.composite
def fix_tree(draw) -> List[TreeFile]:
    """Random trees of independent files (see the property above)."""
    count = draw(st.integers(1, 8))
    files: List[TreeFile] = []
    taken = set()
    for k in range(count):
        kind = draw(st.sampled_from(["cell", "cell", "cell", "python", "yaml", "yaml", "notebook"]))
        folder = "/".join(draw(st.lists(st.sampled_from(FOLDERS), max_size=3)))
        names = {"cell": PY_NAMES, "python": PY_NAMES, "yaml": YAML_NAMES, "notebook": NB_NAMES}[kind]
        rel = (folder + "/" if folder else "") + draw(st.sampled_from(names))
        if rel in taken or any(t.startswith(rel + "/") or rel.startswith(t + "/") for t in taken):
            continue
        taken.add(rel)
        newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
        if kind == "cell":
            text, fixed, n = _cell_module(draw, k)
            bom = draw(st.integers(0, 4)) == 0
            files.append(TreeFile(rel, _encode(text, newline, bom), _encode(fixed, newline, bom), n))
        elif kind == "python":
            data = _encode(draw(st.sampled_from(OTHER_PYTHON)), newline, False)
            files.append(TreeFile(rel, data, data, 0))
        elif kind == "yaml":
            data = _encode(draw(st.sampled_from(YAML_CONFIGS)), newline, False)
            files.append(TreeFile(rel, data, data, 0))
        else:  # a notebook holding a fixable Cell (after a markdown cell): its code cell is fixed
            text, fixed, n = _cell_module(draw, k)

            def notebook(source: str) -> bytes:
                nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# a Cell\n"]},
                                {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                 "source": source.splitlines(keepends=True)}],
                      "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
                return json.dumps(nb, indent=1).encode("utf-8") + b"\n"
            files.append(TreeFile(rel, notebook(text), notebook(fixed), n))
    return files


def _write(root: str, files: List[TreeFile]) -> None:
    for f in files:
        path = os.path.join(root, *f.rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(f.data)


def _read(root: str, files: List[TreeFile]) -> Dict[str, bytes]:
    out = {}
    for f in files:
        with open(os.path.join(root, *f.rel.split("/")), "rb") as fh:
            out[f.rel] = fh.read()
    return out


def _cli(cwd: str, *args: str):
    """``msgraphlint ARGS`` in-process, in ``cwd``: (exit code, stdout + stderr)."""
    from click.testing import CliRunner

    from msgraphlint.cli import cli
    old = os.getcwd()
    os.chdir(cwd)
    try:
        r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)
    return r.exit_code, r.output


_COUNT = re.compile(r"^(Fixed|Would fix) (\d+) findings? in (\d+) files?\.$", re.M)


def _counts(output: str, verb: str) -> Tuple[int, int]:
    found = [(int(n), int(m)) for v, n, m in _COUNT.findall(output) if v == verb]
    assert len(found) <= 1, output
    return found[0] if found else (0, 0)


def _clean_run(what: str, code: int, output: str, files: List[TreeFile]) -> None:
    warnings_ = [ln for ln in output.splitlines() if ln.startswith("msgraphlint: warning:")
                 and "no Python files found" not in ln]
    assert code in (0, 1) and "MSG000" not in output and not warnings_, (
        f"{what}: exit {code}\n{output}\n--- tree ---\n{describe_tree(files)}")


def describe_tree(files: List[TreeFile]) -> str:
    return "\n".join(f"== {f.rel} ({f.fixes} fixes)\n{f.data.decode('utf-8', 'replace')}" for f in files)


def fix_tree_outcome(files: List[TreeFile], workdir: Optional[str] = None) -> Dict[str, int]:
    """Check the fix-tree property on ``files`` (raises AssertionError when it does not
    hold); returns counts: files, fixes, changed."""
    base = tempfile.mkdtemp(prefix="fixtree-", dir=workdir)
    try:
        expected = {f.rel: f.fixed for f in files}
        original = {f.rel: f.data for f in files}
        want_fixes = sum(f.fixes for f in files)
        want_files = sum(1 for f in files if f.fixed != f.data)
        tree, diff, alone = (os.path.join(base, d) for d in ("tree", "diff", "alone"))
        for root in (tree, diff, alone):
            os.makedirs(root)
            _write(root, files)

        code, out = _cli(diff, "check", "--diff", ".")
        _clean_run("--diff .", code, out, files)
        assert _read(diff, files) == original, f"--diff changed files\n{describe_tree(files)}"
        would = _counts(out, "Would fix")

        code, out = _cli(tree, "check", "--fix", ".")
        _clean_run("--fix .", code, out, files)
        fixed = _counts(out, "Fixed")
        got = _read(tree, files)
        wrong = {rel: got[rel] for rel in got if got[rel] != expected[rel]}
        assert not wrong, ("--fix . left files other than their fixed text:\n"
                           + "\n".join(f"== {rel}\n{data!r}\n   expected\n{expected[rel]!r}" for rel, data in wrong.items())
                           + f"\n--- output ---\n{out}\n--- tree ---\n{describe_tree(files)}")
        assert fixed == would == (want_fixes, want_files), (
            f"--fix . reports {fixed}, --diff . {would}, the tree holds {(want_fixes, want_files)}"
            f"\n{out}\n{describe_tree(files)}")

        code, out = _cli(tree, "check", "--fix", ".")
        _clean_run("second --fix .", code, out, files)
        assert _read(tree, files) == expected and "Fixed" not in out, f"a second --fix changed files\n{out}"

        for f in files:
            code, out = _cli(alone, "check", "--fix", "--no-cache", f.rel)
            _clean_run(f"--fix {f.rel}", code, out, files)
        assert _read(alone, files) == expected, (
            f"--fix of each file alone differs from the tree's fixed text\n{describe_tree(files)}")
        return {"files": len(files), "fixes": want_fixes, "changed": want_files}
    finally:
        shutil.rmtree(base, ignore_errors=True)

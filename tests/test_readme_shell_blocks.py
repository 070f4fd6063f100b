"""Every ```bash block in README.md and docs/*.md runs as written (issue 13).

Each block is run command by command (a line, or lines joined by a trailing backslash)
with ``bash`` in a scratch directory that holds a small project (``src/``, ``model.py``),
with this checkout's ``msgraphlint`` first on PATH, and every exit code is checked.
A block's options come from an HTML comment on the line above it:

* ``<!-- shell: exit=0,1 -->``: the exit codes allowed (default: 0 only);
* ``checkout``: run in a fresh copy of this checkout instead (the quick start);
* ``ci``: not run here, because ``.ci/run`` runs it: the test checks that ``.ci/run``
  holds each of its commands verbatim;
* ``mindspore``: needs MindSpore (marked like the other MindSpore tests: skipped without
  it, a failure under ``CI=true``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from typing import List, NamedTuple, Set

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"(?:<!--\s*shell:\s*(?P<opts>[^>]*?)\s*-->\n)?```bash\n(?P<body>.*?)```", re.S)

MODEL = '''import mindspore.nn as nn
import mindspore.ops as ops


class Net(nn.Cell):
    def construct(self, x):
        y = x * 2
        y += 1
        print(y)
        return ops.relu(y)
'''


class Block(NamedTuple):
    doc: str
    line: int
    opts: Set[str]
    allowed: Set[int]
    commands: List[str]


def commands_of(body: str) -> List[str]:
    out: List[str] = []
    pending = ""
    for raw in body.splitlines():
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return out


def blocks() -> List[Block]:
    docs = ["README.md"] + sorted(os.path.join("docs", n) for n in os.listdir(os.path.join(ROOT, "docs"))
                                  if n.endswith(".md"))
    found: List[Block] = []
    for doc in docs:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
            text = fh.read()
        for m in BLOCK.finditer(text):
            opts = set((m.group("opts") or "").split())
            allowed = {0}
            for o in list(opts):
                if o.startswith("exit="):
                    allowed = {int(x) for x in o[5:].split(",")}
                    opts.discard(o)
            unknown = opts - {"checkout", "ci", "mindspore"}
            assert not unknown, f"{doc}: unknown shell block option(s) {unknown}"
            found.append(Block(doc, text.count("\n", 0, m.start()) + 1, opts, allowed,
                               commands_of(m.group("body"))))
    return found


BLOCKS = blocks()


def test_the_docs_have_shell_blocks_and_the_quick_start_is_among_them():
    assert len(BLOCKS) >= 5
    assert any("checkout" in b.opts for b in BLOCKS) and any("ci" in b.opts for b in BLOCKS)


def _env(tmp_path) -> dict:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["MSGRAPHLINT_CACHE_DIR"] = str(tmp_path / "cache")
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    return env


def _scratch_project(tmp_path) -> str:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "model.py").write_text(MODEL, encoding="utf-8")
    shutil.copy(os.path.join(ROOT, "reference_model", "gpt_layer.py"), work / "src" / "gpt_layer.py")
    (work / "model.py").write_text(MODEL, encoding="utf-8")
    return str(work)


def _run(commands: List[str], cwd: str, env: dict, allowed: Set[int], where: str, timeout: int = 600) -> None:
    for cmd in commands:
        proc = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        assert proc.returncode in allowed, (
            f"{where}: `{cmd}` exited {proc.returncode} (allowed {sorted(allowed)})\n"
            f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}")


def _params():
    # a block that needs MindSpore is a MindSpore test: deselected by `-m "not mindspore"` in
    # .ci/run's static tiers, and a failure (not a skip) under CI=true where MindSpore is missing
    return [pytest.param(b, id=f"{b.doc}:{b.line}", marks=[pytest.mark.mindspore] if "mindspore" in b.opts else [])
            for b in BLOCKS]


@pytest.mark.parametrize("block", _params())
def test_shell_block_runs_as_written(block, tmp_path, request):
    where = f"{block.doc}:{block.line}"
    if "ci" in block.opts:
        with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as fh:
            ci = fh.read().splitlines()
        for cmd in block.commands:
            assert cmd in ci, f"{where}: .ci/run must run `{cmd}` verbatim"
        return
    if "mindspore" in block.opts:
        request.getfixturevalue("require_mindspore")
    env = _env(tmp_path)
    if "checkout" in block.opts:
        copy = tmp_path / "checkout"
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        for rel in filter(None, files.decode().split("\0")):
            src = os.path.join(ROOT, rel)
            if os.path.isfile(src):
                dst = copy / rel
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
        env["PATH"] = env["PATH"].split(os.pathsep, 1)[1]  # the venv the block makes, not ours
        _run(block.commands, str(copy), env, block.allowed, where, timeout=900)
        return
    _run(block.commands, _scratch_project(tmp_path), env, block.allowed, where)

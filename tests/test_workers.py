"""--jobs N worker processes never outlive the run: killing the parent (SIGKILL, SIGTERM)
or interrupting it (SIGINT) leaves no worker behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import sigint_as_in_a_terminal

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to list child processes")

FILE = "import mindspore.nn as nn\n\n\nclass Net{i}(nn.Cell):\n    def construct(self, x):\n" + \
    "".join(f"        x = x * {k} + ops.relu(x)\n" for k in range(150)) + "        return x\n"


def _children(pid: int):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree")
    for i in range(1500):  # several seconds of work per worker
        (root / f"m{i}.py").write_text("from mindspore import ops\n" + FILE.format(i=i), encoding="utf-8")
    return root


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["SIGKILL", "SIGTERM", "SIGINT"])
def test_workers_die_with_their_parent(big_tree, how):
    proc = subprocess.Popen([sys.executable, "-m", "msgraphlint", "check", "--no-cache", "--jobs", "2",
                             "--format", "concise", str(big_tree)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=sigint_as_in_a_terminal)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            workers = _children(proc.pid)
            time.sleep(0.05)
        assert len(workers) == 2, "the run did not start two workers"
        time.sleep(0.3)  # the workers are busy summarising
        assert proc.poll() is None, "the run finished before it could be killed: make the tree bigger"
        os.kill(proc.pid, how)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        survivors = [w for w in workers if _alive(w)]
        assert not survivors, f"workers {survivors} outlived their parent ({how!r})"
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in set(workers) | set(_children(proc.pid)):
            if _alive(w):  # only a failing run gets here: do not leave its workers behind
                os.kill(w, signal.SIGKILL)


def test_progress_moves_per_file_with_jobs(tmp_path, monkeypatch):
    """With --jobs 2 the workers report files as they finish them, in both phases, so the
    progress bar moves during a phase and not only when it ends (steady, never backwards)."""
    from msgraphlint.run import workers
    from msgraphlint.run.runner import run_paths

    monkeypatch.setattr(workers, "TICK_SECONDS", 0.0, raising=False)  # every file reports (test speed)
    n = 12
    for i in range(n):
        (tmp_path / f"m{i}.py").write_text("from mindspore import ops\n" + FILE.format(i=i), encoding="utf-8")
    seen = []
    run_paths([str(tmp_path)], jobs=2, progress=lambda done, total: seen.append((done, total)))
    total = 2 * n
    assert {t for _, t in seen} == {total}
    dones = [d for d, _ in seen]
    assert dones == sorted(dones) and dones[-1] == total
    assert [d for d in dones if 0 < d < n], dones            # during reading and summarising
    assert [d for d in dones if n < d < total], dones        # during the rules

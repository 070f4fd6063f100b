"""``check --watch``: the watcher runs in a subprocess; an edit to a helper re-reports the
caller's call-site finding (MSG004), and an edit that removes the helper's print clears it."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time

from helpers import run_cli, write_tree

TREE = {
    "src/__init__.py": "",
    "src/utils.py": """
        def helper(x):
            return x * 2
    """,
    "src/model.py": """
        import mindspore.nn as nn
        from src.utils import helper


        class Net(nn.Cell):
            def construct(self, x):
                return helper(x)
    """,
}
PRINTING = "def helper(x):\n    print(x)\n    return x * 2\n"
ROUND = "msgraphlint: watching for file changes"


class Watcher:
    def __init__(self, cwd, *args):
        env = dict(os.environ, PYTHONUNBUFFERED="1", NO_COLOR="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "msgraphlint", "check", "--watch", *args],
                                     cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=env)
        self.lines: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_round(self, timeout=120.0):
        """The lines of the next report, up to the watcher's 'watching' note."""
        got, end = [], time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, end - time.monotonic()))
            assert line is not None, f"the watcher exited: {got}"
            if line.startswith(ROUND):
                return got
            got.append(line)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _findings(lines):
    return [x for x in lines if ": MSG" in x]


CALL_SITE = "src/model.py:7:16: MSG004 `helper()` reaches MSG201 (print-in-graph) at utils.py:2"


def _project(tmp_path):
    root = write_tree(tmp_path / "proj", TREE)
    (root / ".git").mkdir()
    return root


def test_an_edit_to_a_helper_re_reports_the_callers_call_site_finding(tmp_path):
    # only the caller is named (an editor's file, a pre-commit hook): the helper's module is
    # context, read for the call-site finding, and watched too
    root = _project(tmp_path)
    w = Watcher(root, "--output-format", "concise", "--no-cache", "src/model.py")
    try:
        assert _findings(w.next_round()) == []
        (root / "src/utils.py").write_text(PRINTING, encoding="utf-8")
        assert _findings(w.next_round()) == [CALL_SITE]
        (root / "src/utils.py").write_text("def helper(x):\n    return x * 3\n", encoding="utf-8")
        assert _findings(w.next_round()) == []
    finally:
        w.stop()


def test_watching_a_folder_with_the_result_cache_sees_edits_and_new_files(tmp_path):
    root = _project(tmp_path)
    w = Watcher(root, "--output-format", "concise", "--cache-dir", str(tmp_path / "cache"), ".")
    try:
        assert _findings(w.next_round()) == []
        (root / "src/utils.py").write_text(PRINTING, encoding="utf-8")
        got = _findings(w.next_round())
        assert got[0] == CALL_SITE and got[1].startswith("src/utils.py:2:5: MSG201 ") and len(got) == 2
        (root / "src/extra.py").write_text("import mindspore as ms\n\n\n@ms.jit\ndef f(x):\n    print(x)\n"
                                           "    return x\n", encoding="utf-8")
        got = _findings(w.next_round())
        assert [x.split(": ")[0] + ": " + x.split(": ")[1].split()[0] for x in got] == [
            "src/extra.py:6:5: MSG201", "src/model.py:7:16: MSG004", "src/utils.py:2:5: MSG201"]
    finally:
        w.stop()


def test_watch_refuses_fix_and_stdin():
    r = run_cli("check", "--watch", "--fix", ".")
    assert r.exit_code == 2 and "--watch" in r.output

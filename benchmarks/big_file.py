"""Cost of one big file and of a huge tree: lint time and peak RSS.

    .venv/bin/python benchmarks/big_file.py                    # 3, 6, 10, 12 MB files + a 20,000-file tree
    .venv/bin/python benchmarks/big_file.py --sizes 3,6 --tree-files 0
    .venv/bin/python benchmarks/big_file.py --tree-files 20000 --jobs 2 --sizes ""

A big file is the bundled reference GPT layer (reference_model/gpt_layer.py: Cells with
``__init__`` attributes, ``construct``s, helpers) repeated with renamed classes and
functions until it reaches the size, plus MindSpore-shaped defects in every copy, so
every analysis has work to do. The tree is 20,000 small modules (a Cell with those
defects and a helper, 22 lines each) in packages of 100 files. Each figure is one ``msgraphlint check --no-cache`` run in a
fresh process: wall seconds, CPU seconds (user + system, workers included: the figure
to compare on a busy machine) and the peak RSS of the largest process (with ``--jobs``,
the larger of the parent and its workers). Near-linear cost means CPU seconds per MB
stays flat as the size grows. Nothing is asserted: this prints figures.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEMPLATE = (REPO / "reference_model" / "gpt_layer.py").read_text(encoding="utf-8")
DEFECTS = '''

class Defects{n}(nn.Cell):
    def __init__(self, hidden):
        super().__init__()
        self.dense = nn.Dense(hidden, hidden)
        self.scale = 2.0

    def construct(self, x):
        y = self.dense(x) * self.scale
        if y.sum() > 0:
            y = y - 1
        print(y)
        y += x
        return helper{n}(y)


def helper{n}(t):
    for i in range(3):
        t = t * 2
    return t.asnumpy()
'''


def _names(text: str):
    return sorted(set(re.findall(r"^(?:class|def) (\w+)", text, re.M)), key=len, reverse=True)


def one_copy(n: int) -> str:
    body = TEMPLATE
    for name in _names(TEMPLATE):
        body = re.sub(rf"\b{name}\b", f"{name}_{n}", body)
    return body + DEFECTS.format(n=n)


def big_file(path: Path, megabytes: float) -> int:
    target = int(megabytes * 1024 * 1024)
    parts, size, n = [], 0, 0
    while size < target:
        chunk = one_copy(n) if n else TEMPLATE + DEFECTS.format(n=0)
        parts.append(chunk)
        size += len(chunk.encode())
        n += 1
    path.write_text("\n".join(parts), encoding="utf-8")
    return n


SMALL = "import mindspore as ms\nfrom mindspore import nn, ops\n" + DEFECTS.format(n=0)


def tree(root: Path, files: int) -> None:
    text = SMALL
    for i in range(files):
        d = root / f"pkg{i // 100}"
        if i % 100 == 0:
            d.mkdir(parents=True, exist_ok=True)
            (d / "__init__.py").write_text("", encoding="utf-8")
        (d / f"m{i}.py").write_text(text, encoding="utf-8")


def measure(args) -> tuple:
    """(wall seconds, CPU seconds (user + system, workers included), peak RSS in MB of the
    largest process, exit code, last output line, output lines)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "msgraphlint", "check", "--no-cache", "--format", "concise",
                             "--exit-zero", "-q", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    lines = out.decode(errors="replace").strip().splitlines()
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024, proc.returncode, (lines[-1] if lines else ""), len(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="3,6,10,12", help="comma-separated sizes in MB of single files ('' for none)")
    ap.add_argument("--tree-files", type=int, default=20000, help="files in the tree (0: no tree)")
    ap.add_argument("--jobs", type=int, default=2, help="--jobs for the tree")
    ap.add_argument("--keep", help="generate into this folder and keep it")
    args = ap.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="msgraphlint-big-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"{'input':<28} {'lines':>9} {'wall s':>8} {'CPU s':>8} {'CPU s/MB':>9} {'peak RSS MB':>12} "
              f"{'findings':>9}  exit")
        for mb in [float(x) for x in args.sizes.split(",") if x.strip()]:
            path = work / f"big_{mb:g}mb.py"
            big_file(path, mb)
            size = path.stat().st_size / (1024 * 1024)
            lines = path.read_bytes().count(b"\n") + 1
            secs, cpu, rss, code, _, found = measure([str(path)])
            print(f"{f'one file, {size:.1f} MB':<28} {lines:>9,} {secs:>8.2f} {cpu:>8.2f} {cpu / size:>9.2f} {rss:>12.0f} "
                  f"{found:>9,}  {code}", flush=True)
        if args.tree_files:
            root = work / "tree"
            if not root.exists():
                tree(root, args.tree_files)
            size = sum(p.stat().st_size for p in root.rglob("*.py")) / (1024 * 1024)
            lines = args.tree_files * SMALL.count("\n")
            secs, cpu, rss, code, _, found = measure(["--jobs", str(args.jobs), str(root)])
            label = f"{args.tree_files:,} files, --jobs {args.jobs}"
            print(f"{label:<28} {lines:>9,} {secs:>8.2f} {cpu:>8.2f} {cpu / size:>9.2f} {rss:>12.0f} {found:>9,}  {code}",
                  flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

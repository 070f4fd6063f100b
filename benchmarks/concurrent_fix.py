"""Two concurrent ``check --fix`` runs over a copy of a real corpus: does any file end up
corrupted?

    python benchmarks/concurrent_fix.py --cache-dir /work/bench_cache
    python benchmarks/concurrent_fix.py mindone --files 179 --python /path/to/other/python

Takes the corpus's files that have safe fixes (any fix with ``--unsafe-fixes``; the first
``--files``, sorted), copies them
(with their package ``__init__.py`` files) twice, runs one ``--fix`` alone over the first
copy and two at once over the second, and classifies every file of the second copy:
*as one run alone leaves it*, *untouched*, or *corrupted* (anything else; the
acceptable count is 0). Prints the figures and the wall time; asserts nothing.

Then (``--editor-saves N``, default 20; 0 skips it) an editor's save at the worst moment:
in a child process of ``--python`` started in the current folder (so ``cd`` to another
checkout to measure its msgraphlint), each of N writes of a fixed file (18 KB and 12 MB,
one link and two) is interrupted right after the comparison with the linted bytes, once
the fixed text is on disk and before it replaces the file (the moment the old code's
window was open), by an editor saving by rename or in place; a save is *kept* when the
file holds the editor's bytes afterwards. Last, N ``check --fix`` runs of an 18 KB file
with one finding and a save at that moment: kept when the editor's edit is in the fixed
file (the run re-lints the new text), *claimed* when the run said it fixed a finding
while the edit was lost.

``--time N`` measures instead (issue 27, "--fix stays fast"): the same files (selected by the
first ``--checkout``), copied afresh for each run, linted by ``check``, ``check --fix`` and
``check --fix --unsafe-fixes`` of each ``--checkout`` (a worktree, run as
``PYTHONPATH=<shim>:<worktree>`` from a scratch folder, its ``rules/`` importable as
``msgraphlint_rules`` through a symlink in the shim; none: the current interpreter's),
interleaved, N times; prints each run's CPU seconds (user + sys of the child), the best of N,
the ratios to the first checkout and the fixes applied, and whether every checkout's
``check`` output, ``--fix`` output and fixed files are byte-identical to the last checkout's
(``--keep DIR`` keeps the fixed copies of the first repetition).

    python benchmarks/concurrent_fix.py mindone --unsafe-fixes --time 2 \
        --checkout /tmp/wt-base --checkout /tmp/wt-head
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import ensure_corpora  # noqa: E402


def _cmd(python: str, *args: str):
    return [python, "-m", "msgraphlint", "check", "--no-cache", "--exit-zero", *args]


def _fixable_files(python: str, root: Path, limit: int, unsafe: bool, env=None, cwd=None):
    proc = subprocess.run(_cmd(python, "--format", "json", str(root)), capture_output=True, text=True, check=True,
                          env=env, cwd=cwd)
    doc = json.loads(proc.stdout)
    paths = sorted({f["path"] for f in doc["findings"] if f["fix"] and (unsafe or f["fix"]["safety"] == "safe")})
    return [(Path(cwd or ".") / p).resolve().relative_to(root.resolve()) for p in paths][:limit]


def _copy(root: Path, rels, dest: Path) -> None:
    for rel in rels:
        parts = rel.parts
        for i in range(1, len(parts)):  # the package __init__ files, so module names stay the same
            init = root.joinpath(*parts[:i], "__init__.py")
            if init.exists():
                (dest / init.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(init, dest / init.relative_to(root))
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, dest / rel)


EDITOR_CHILD = r"""
import os, sys, threading, time
import msgraphlint.fix.safe_write as sw

n, workdir = int(sys.argv[1]), sys.argv[2]
real_temp = sw._temp_next_to
pending = {}  # moment -> the save to make then
links_now = [1]


editors = []


def fire(moment):  # the editor is another process: its save may wait for us (a lease), so a thread
    save = pending.pop(moment, None)
    if save is not None:
        editors.append(threading.Thread(target=save))
        editors[-1].start()
        editors[-1].join(0.2)  # 0.2 s to land before the write goes on


def editors_done():
    while editors:
        editors.pop().join(60)


def temp_written(path, data, like):  # after the comparison, the fixed text on disk, the file not yet replaced
    tmp = real_temp(path, data, like)
    fire("window")
    return tmp


sw._temp_next_to = temp_written
LAST = hasattr(sw, "_between")  # this version names its stages; hard links get no temp file


def between(stage):
    if stage == "compared" and links_now[0] > 1:
        fire("window")
    elif stage == "swap":
        fire("last")


if LAST:
    sw._between = between


def by_rename(path, data):
    tmp = path + ".editor-save~"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def in_place(path, data):
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()


def text(size, tag):
    line = ("x_%s = 1  # padding padding padding padding\n" % tag).encode()
    return line * (size // len(line) + 1)


MOMENTS = {"window": "after the comparison", "last": "at the last instant"}
for size, label in ((18_000, "18 KB"), (12_000_000, "12 MB")):
    for links in (1, 2):
        links_now[0] = links
        for save in (by_rename, in_place):
            for moment in ("window", "last") if LAST else ("window",):
                kept = claimed = 0
                started = time.perf_counter()
                for i in range(n):
                    p = os.path.join(workdir, "f.py")
                    for name in os.listdir(workdir):
                        os.unlink(os.path.join(workdir, name))
                    old, ours, theirs = text(size, "old"), text(size, "fixed"), text(size + 7, "editor%d" % i)
                    with open(p, "wb") as fh:
                        fh.write(old)
                    if links == 2:
                        os.link(p, p + ".link")
                    pending[moment] = lambda: save(p, theirs)
                    try:
                        sw.replace_if_unchanged(p, old, ours)
                        ok = True
                    except (sw.Changed, sw.NotWritten):
                        ok = False
                    editors_done()
                    with open(p, "rb") as fh:
                        got = fh.read()
                    kept += got == theirs
                    claimed += ok and got != theirs
                    assert moment not in pending, "the save was never made"
                ms = (time.perf_counter() - started) / n * 1000
                print("  %s, %s, save %-9s %-21s %2d of %d kept, %2d lost while the write said it succeeded"
                      " (%.1f ms a write, with the editor's wait)" % (label, "one link " if links == 1 else "two links",
                                              save.__name__.replace("_", " ") + ",", MOMENTS[moment] + ":",
                                              kept, n, claimed, ms), flush=True)
links_now[0] = 1

from msgraphlint.cli import main
src = ("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        y = x * 2\n"
       "        y += 1\n" + "".join("        z%d = x * %d\n" % (k, k) for k in range(600)) + "        return y\n")
kept = fixed = claimed = 0
p = os.path.join(workdir, "net.py")
for i in range(n):
    for name in os.listdir(workdir):
        os.unlink(os.path.join(workdir, name))
    with open(p, "w") as fh:
        fh.write(src)
    edited = "# the editor's edit %d\n" % i + src
    pending["window"] = lambda: by_rename(p, edited.encode())
    log = os.path.join(os.path.dirname(workdir), "fix-run.log")
    saved = os.dup(1), os.dup(2)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(out, 2)
    try:
        try:
            main(["check", "--fix", "--no-cache", "--exit-zero", p])
        except SystemExit:
            pass
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (out, *saved):
            os.close(fd)
    editors_done()
    with open(log, errors="replace") as fh:
        err = fh.read()
    with open(p) as fh:
        got = fh.read()
    kept += got.startswith("# the editor's edit %d\n" % i)
    fixed += got.startswith("# the editor's edit %d\n" % i) and "y = y + 1" in got
    claimed += "Fixed" in err and not got.startswith("# the editor's edit")
    pending.clear()
print("  check --fix of a %d-byte file, save by rename, after the comparison: %d of %d kept (%d of them fixed),"
      " %d runs said 'Fixed' and lost the save" % (len(src), kept, n, fixed, claimed), flush=True)
"""


_FIXED = re.compile(r"Fixed (\d+) findings? in (\d+) files?")
_MODES = (("check", ()), ("--fix", ("--fix",)), ("--fix --unsafe-fixes", ("--fix", "--unsafe-fixes")))


def _checkout_env(checkout, shims: Path):
    """The environment that runs ``checkout``'s msgraphlint (None: this interpreter's own)."""
    if checkout is None:
        return None
    wt = Path(checkout).resolve()
    shim = shims / str(len(list(shims.iterdir())))
    shim.mkdir()
    for pkg, folder in (("msgraphlint_rules", "rules"), ("msgraphlint_reference", "reference_model")):
        if (wt / folder).is_dir():
            (shim / pkg).symlink_to(wt / folder)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(shim), str(wt)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _cpu_run(cmd, env, cwd):
    """(CPU seconds of the child, its stdout, its stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{cmd} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-1500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout, proc.stderr


def _time(args, root: Path) -> int:
    checkouts = args.checkout or [None]
    labels = [str(c) if c is not None else "this interpreter" for c in checkouts]
    with tempfile.TemporaryDirectory(prefix="fix-time-") as tmp:
        shims = Path(tmp) / "shims"
        shims.mkdir()
        envs = [_checkout_env(c, shims) for c in checkouts]
        # a copy outside any repository: the corpus cache may be below a .gitignore'd folder
        root = Path(shutil.copytree(root, Path(tmp) / "corpus", symlinks=True))
        rels = _fixable_files(args.python, root, args.files, args.unsafe_fixes, envs[0], tmp)
        print(f"{args.corpus}: {len(rels)} files with {'' if args.unsafe_fixes else 'safe '}fixes "
              f"(selected by {labels[0]}); CPU s of each run (user + sys), {args.time} interleaved repetitions", flush=True)
        best = {}
        fixes = {}
        outputs = {}  # (checkout, mode) -> (stdout, {rel: bytes} of the fixed copy), first repetition
        for rep in range(args.time):
            for i, env in enumerate(envs):
                for mode, extra in _MODES:
                    dest = Path(tmp) / f"run-{rep}-{i}-{len(best)}-{mode.replace(' ', '')}"
                    _copy(root, rels, dest)
                    cpu, out, err = _cpu_run(_cmd(args.python, *extra, "."), env, dest)
                    best[(i, mode)] = min(best.get((i, mode), cpu), cpu)
                    m = _FIXED.search(err.decode(errors="replace"))
                    fixes[(i, mode)] = int(m.group(1)) if m else 0
                    print(f"  rep {rep + 1} {labels[i]} {mode}: {cpu:.2f} s", flush=True)
                    if rep == 0:
                        outputs[(i, mode)] = (out, {rel: (dest / rel).read_bytes() for rel in rels})
                        if args.keep and extra:
                            shutil.copytree(dest, Path(args.keep) / f"{i}-{mode.replace(' ', '')}")
                    shutil.rmtree(dest)
        for mode, _ in _MODES:
            base = best[(0, mode)]
            print(f"{mode}: " + ", ".join(f"{labels[i]} {best[(i, mode)]:.2f} s ({best[(i, mode)] / base:.2f}x"
                                          + (f", {fixes[(i, mode)]} fixes" if mode != 'check' else "") + ")"
                                          for i in range(len(envs))))
            last = outputs[(len(envs) - 1, mode)]
            for i in range(len(envs) - 1):
                out, files = outputs[(i, mode)]
                differ = [str(r) for r in rels if files[r] != last[1][r]]
                print(f"  {labels[i]} vs {labels[-1]}: output {'identical' if out == last[0] else 'DIFFERENT'}, "
                      f"{len(differ)} of {len(rels)} files differ" + (f" e.g. {differ[:3]}" if differ else ""))
    return 0


def _editor_saves(python: str, n: int) -> None:
    print(f"editor saves at the worst moment (msgraphlint from {os.getcwd()}):", flush=True)
    with tempfile.TemporaryDirectory() as work:
        os.mkdir(os.path.join(work, "files"))
        subprocess.run([python, "-c", EDITOR_CHILD, str(n), os.path.join(work, "files")], check=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default="mindone")
    ap.add_argument("--files", type=int, default=179)
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose msgraphlint is measured")
    ap.add_argument("--unsafe-fixes", action="store_true", help="files with any fix, runs with --unsafe-fixes")
    ap.add_argument("--editor-saves", type=int, default=20, help="writes per editor-save case (0: skip them)")
    ap.add_argument("--no-concurrent", action="store_true", help="only the editor saves")
    ap.add_argument("--time", type=int, default=0, metavar="N",
                    help="measure check, --fix, --fix --unsafe-fixes N times per --checkout instead")
    ap.add_argument("--checkout", action="append", default=[], help="with --time: a worktree to measure (repeat)")
    ap.add_argument("--keep", help="with --time: keep the fixed copies of the first repetition here")
    args = ap.parse_args(argv)
    if args.no_concurrent:
        _editor_saves(args.python, args.editor_saves)
        return 0
    root = ensure_corpora([args.corpus], args.cache_dir)[args.corpus]
    if args.time:
        return _time(args, root)
    rels = _fixable_files(args.python, root, args.files, args.unsafe_fixes)
    fix = ["--fix", "--unsafe-fixes"] if args.unsafe_fixes else ["--fix"]
    with tempfile.TemporaryDirectory() as tmp:
        single, both = Path(tmp) / "single", Path(tmp) / "both"
        _copy(root, rels, single)
        _copy(root, rels, both)
        subprocess.run(_cmd(args.python, *fix, str(single)), capture_output=True, check=True)
        started = time.perf_counter()
        procs = [subprocess.Popen(_cmd(args.python, *fix, str(both)), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE) for _ in range(2)]
        errs = [p.communicate()[1].decode(errors="replace") for p in procs]
        wall = time.perf_counter() - started
        same = untouched = corrupted = 0
        examples = []
        for rel in rels:
            got = (both / rel).read_bytes()
            if got == (single / rel).read_bytes():
                same += 1
            elif got == (root / rel).read_bytes():
                untouched += 1
            else:
                corrupted += 1
                examples.append(str(rel))
    print(f"{args.corpus}: {len(rels)} files with {'' if args.unsafe_fixes else 'safe '}fixes, two concurrent --fix runs in {wall:.1f} s "
          f"(exit codes {[p.returncode for p in procs]})")
    print(f"  as one run alone leaves it: {same}")
    print(f"  untouched:                  {untouched}")
    print(f"  corrupted:                  {corrupted}" + (f"  e.g. {examples[:3]}" if examples else ""))
    warnings = sorted({line for e in errs for line in e.splitlines() if "warning" in line or "error" in line})
    for line in warnings[:5]:
        print(f"  stderr: {line}")
    if args.editor_saves:
        _editor_saves(args.python, args.editor_saves)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

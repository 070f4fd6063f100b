"""``--jobs N``: long-lived worker processes that own a share of the files for both
phases of a run, and the run-wide switch that keeps the cyclic GC off.

Workers never outlive the run: each closes the pipe ends of its siblings that it
inherited through ``fork`` (so a dead parent means end-of-file on its pipe), asks Linux
to kill it when the parent dies (``PR_SET_PDEATHSIG``), and checks its parent's pid
every half second (other systems). A worker that dies (killed, out of memory) costs
only its own files, which get an ``MSG000`` finding."""

from __future__ import annotations

import dataclasses
import os
from typing import Dict, List, Sequence, Set, Tuple

from .filework import (TREE_CACHE_LINES, Phase1, Phase2, internal_error, is_internal_error, keep_trees, lint_python, lint_yaml, small_run,
                       phase1)
from ..parse.source import display_path
from ..project.index import ProjectIndex
from .perfile import PerFile
from ..project.scopes import CellResolver


class Workers:
    """``jobs`` long-lived processes, each owning a share of the files for both phases:
    a worker summarises its files (phase 1), keeps their parsed trees, receives the
    project index and scopes, and runs the rules on the same files (phase 2), so no
    file is parsed twice. Shares are balanced by file size."""

    def __init__(self, files: Sequence[str], jobs: int, settings: PerFile) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        shares: List[List[str]] = [[] for _ in range(jobs)]
        loads = [0] * jobs
        for f in sorted(files, key=_size, reverse=True):
            i = loads.index(min(loads))
            shares[i].append(f)
            loads[i] += _size(f) + 1
        self.shares = [sh for sh in shares if sh]
        self.conns, self.procs = [], []
        self.dead: Dict[int, str] = {}  # worker number -> why it is gone
        # what the workers' indexes read besides the run's files (replay.index_reads): the run's snapshot
        self.read_paths: Set[str] = set()
        self.installed: Set[Tuple[str, str, str]] = set()
        self.reads_complete = True
        for share in self.shares:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=worker_main, args=(child, share, settings, jobs, list(self.conns), os.getpid()),
                               daemon=True)
            proc.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(proc)

    def _recv_one(self, i: int):
        if i in self.dead:
            return None
        try:
            msg = self.conns[i].recv()
        except (EOFError, OSError) as exc:
            self.procs[i].join(timeout=5)
            code = self.procs[i].exitcode
            self.dead[i] = f"the worker process died (exit code {code})" if code is not None else f"lost the worker ({exc})"
            return None
        if isinstance(msg, tuple) and len(msg) == 2 and msg[0] == "__error__":
            self.dead[i] = "the worker process failed: " + msg[1].strip().splitlines()[-1]
            return None
        return msg

    def _gather(self, progress) -> Dict[int, object]:
        """The result message of every worker, read in the order they arrive; ``progress(n)``
        with the files done by all workers together as their progress messages come in."""
        from multiprocessing.connection import wait

        done_by: Dict[int, int] = {}

        def tick(i: int, n: int) -> None:
            done_by[i] = n
            if progress is not None:
                progress(sum(done_by.values()))

        out: Dict[int, object] = {}
        pending = {conn: i for i, conn in enumerate(self.conns) if i not in self.dead}
        for i in range(len(self.conns)):
            if i in self.dead:
                out[i] = None
        while pending:
            for conn in wait(list(pending)):
                i = pending[conn]
                msg = self._recv_one(i)
                if isinstance(msg, tuple) and len(msg) == 2 and msg[0] == _TICK:
                    tick(i, msg[1])
                    continue
                if isinstance(msg, tuple) and len(msg) == 2 and msg[0] == _READS:
                    if msg[1] is None:
                        self.reads_complete = False
                    else:
                        self.read_paths.update(msg[1][0])
                        self.installed.update(msg[1][1])
                    continue
                out[i] = msg
                del pending[conn]
        return out

    def _lost(self, i: int) -> BaseException:
        return _WorkerLost(self.dead.get(i, "the worker process is gone"))

    def phase1(self, progress=None) -> List["Phase1"]:
        out: List[Phase1] = []
        got_all = self._gather(progress)
        for i in range(len(self.conns)):
            got = got_all.get(i)
            if got is None:
                got = [Phase1(f, None, internal_error(display_path(f), self._lost(i), "reading and summarising"), 0, False)
                       for f in self.shares[i]]
            out.extend(got)
        return out

    def phase2(self, index: ProjectIndex, scopes, keys: Dict[str, str], todo: Sequence[str],
               yaml_files: Sequence[str], progress=None) -> List["Phase2"]:
        todo_set = set(todo)
        yaml_parts: List[List[str]] = [[] for _ in self.shares]
        for n, f in enumerate(yaml_files):
            yaml_parts[n % len(self.shares)].append(f)
        mine = [[f for f in share if f in todo_set] for share in self.shares]
        for i, conn in enumerate(self.conns):
            if i in self.dead:
                continue
            try:
                conn.send((index, scopes, {f: keys[f] for f in mine[i] if f in keys}, mine[i], yaml_parts[i]))
            except (OSError, ValueError) as exc:
                self.dead[i] = f"lost the worker ({exc})"
        out: List[Phase2] = []
        got_all = self._gather(progress)
        for i in range(len(self.conns)):
            got = got_all.get(i)
            if got is None:
                got = [Phase2(f, [internal_error(display_path(f), self._lost(i), "checking")], [], None)
                       for f in mine[i] + yaml_parts[i]]
            out.extend(got)
        return out

    def close(self, abort: bool = False) -> None:
        """Finish the workers; ``abort`` (the run is being interrupted) kills them at once."""
        if abort:
            for proc in self.procs:
                if proc.is_alive():
                    proc.kill()
            for proc in self.procs:
                proc.join(timeout=5)
            return
        for conn in self.conns:
            try:
                conn.send(None)
            except (OSError, ValueError):
                pass
        for proc in self.procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()


_TICK = "__tick__"
_READS = "__reads__"
TICK_SECONDS = 0.25  # a worker reports its progress at most this often


class _Ticker:
    """A worker's progress messages: the count of its files done, at most every
    TICK_SECONDS (one small message; nothing when a phase is quick)."""

    def __init__(self, conn) -> None:
        import time
        self.conn = conn
        self.clock = time.monotonic
        self.next = self.clock() + TICK_SECONDS

    def __call__(self, done: int) -> None:
        now = self.clock()
        if now >= self.next:
            self.next = now + TICK_SECONDS
            self.conn.send((_TICK, done))


class _WorkerLost(Exception):
    """A worker process died or failed; its files get MSG000 with this message."""


class no_cyclic_gc:
    """The cyclic garbage collector off for the duration of a run. A run allocates
    millions of ast nodes that form no reference cycles (refcounting frees them); the
    collector's repeated traversals of them doubled the CPU time on a 350k-line corpus
    (measured: 11.8 s with, 5.4 s without). Restored afterwards."""

    def __enter__(self):
        import gc
        self._was = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc):
        import gc
        if self._was:
            gc.enable()
        return False


#: ``--jobs`` by default: one worker per this many bytes of Python source, up to one per CPU.
#: A worker costs about 0.12 s of CPU to start and feed plus ~10 % of its work in merging
#: (measured: ``check -j2`` over ``-j1`` is +0.15 s CPU on mindyolo's 0.45 MB, +0.16 s on
#: mindcv's 1.2 MB, +0.65 s on mindformers' 6.6 MB), and a megabyte is ~1.5 s of work;
#: 256 KB (~0.4 s of work each) is where a second process saves more wall time than it costs.
AUTO_JOB_BYTES = 256 * 1024


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity mask, as ``os.sched_getaffinity``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def auto_jobs(files: Sequence[str]) -> int:
    """The default ``--jobs``: one per CPU for a run large enough to profit
    (:data:`AUTO_JOB_BYTES` of source per worker), else 1 (the output is the same)."""
    total = sum(_size(f) for f in files)
    return max(1, min(cpu_count(), total // AUTO_JOB_BYTES))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this process when its parent exits. Everywhere: a thread
    that exits the process when the parent pid changes (re-parented to init)."""
    import signal
    import threading
    import time

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError, TypeError):
        pass
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="msgraphlint-parent-watch", daemon=True).start()


def worker_main(conn, share: List[str], fs: PerFile, jobs: int, inherited=(), parent: int = 0) -> None:
    import traceback

    import gc

    gc.disable()  # see no_cyclic_gc
    for other in inherited:  # siblings' pipe ends copied by fork: a dead parent must mean EOF here
        try:
            other.close()
        except OSError:
            pass
    _die_with_parent(parent or os.getppid())
    try:
        tick = _Ticker(conn)
        p1: List[Phase1] = []
        kept = 0
        small = small_run(share, jobs)
        for n, f in enumerate(share, 1):
            s = fs(f)
            r = phase1(f, keep_source=keep_trees(kept, TREE_CACHE_LINES // max(jobs, 1), small), cache=fs.cache(f),
                       eager_calls=True,
                       budget=s.file_budget, per_mb=s.file_budget_per_mb, content=fs.known.get(f, ""))
            if r.source is not None:
                kept += r.lines
            p1.append(r)
            tick(n)
        conn.send([dataclasses.replace(r, source=None) for r in p1])
        msg = conn.recv()
        if msg is None:
            return
        index, scopes, keys, todo, yaml_files = msg
        by_abs = {os.path.abspath(r.path): r for r in p1}

        def cached_source(path: str):
            r = by_abs.get(os.path.abspath(path))
            return r.source if r is not None else None

        index.source_provider = cached_source
        cells = CellResolver(index, fs.cell_bases())
        out: List[Phase2] = []
        tick = _Ticker(conn)
        for n, f in enumerate(todo, 1):
            r1 = by_abs[os.path.abspath(f)]
            s = fs(f)
            res = lint_python(f, r1.source, index, scopes.get(os.path.abspath(f), []), s, fs.dispatch(s), cells)
            r1.source = None
            c = fs.cache(f)
            if c is not None and f in keys and not any(is_internal_error(x) for x in res.findings):
                c.put("p2", keys[f], res)
            out.append(res)
            tick(n)
        for f in yaml_files:
            s = fs(f)
            out.append(lint_yaml(f, None, s, fs.dispatch(s)))
        from .replay import index_reads
        try:
            reads = index_reads(index)
        except Exception:  # noqa: BLE001 - the run's snapshot is not stored; the findings stand
            reads = None
        conn.send((_READS, reads))
        conn.send(out)
        conn.recv()  # the close message
    except BaseException:  # noqa: BLE001 - reported to the parent, which raises
        try:
            conn.send(("__error__", traceback.format_exc()))
        except Exception:
            pass

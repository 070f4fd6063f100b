"""Analysis off the message loop, with a per-file time budget and cancellation.

Each analysis runs on its own thread, so the message loop keeps answering hover,
code actions and other documents while a big module is linted (the GIL is shared, so
a slow document slows the others, but never blocks them). A newer version of a
document interrupts the analysis of the older one, and an analysis that runs past
the time budget is interrupted too; the server then publishes a diagnostic that
says the budget was hit instead of stale findings.

Interruption raises an exception inside the analysis thread
(``PyThreadState_SetAsyncExc``), which CPython delivers at the next bytecode
boundary: the linter is pure Python, so that is within milliseconds (a long C call
such as ``ast.parse`` finishes first). The per-document scope cache stays valid: an
entry is stored in a single assignment, after its findings are complete.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from ..run.budget import FILE_CPU_BUDGET_S

log = logging.getLogger("msgraphlint.lsp")

#: The language server's per-file time budget: ``check``'s (``msgraphlint.run.budget``), CPU
#: seconds of the analysis thread; ``initializationOptions.budget_ms`` overrides it.
TIME_BUDGET_S = FILE_CPU_BUDGET_S
WATCH_EVERY_S = 0.1
#: documents at least this big are analysed in a process of their own (``lsp/child.py``):
#: ``ast.parse`` holds the GIL, a thread parsing 23 MB kept every request waiting for seconds;
#: ``initializationOptions.process_min_bytes`` overrides it
PROCESS_MIN_BYTES = 1_000_000


def process_cpu_seconds(pid: Optional[int]) -> Optional[float]:
    """CPU time used by another process (Linux /proc); None where unknown."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class ChildWork:
    """A job's work done by ``python -m msgraphlint.lsp.child``: ``request`` (text, path,
    buffers, root) pickled to a temporary file, ``(findings, related)`` read back. The
    thread waits in slices of 0.1 s, so an interrupt lands at once; the job kills the
    process when interrupted (``Job.interrupt``), and the process dies with the server."""

    def __init__(self, request: dict, finish: Callable[[tuple], tuple] = lambda got: got) -> None:
        self.request = request
        self.finish = finish  # (findings, related) -> what the job returns
        self.proc = None

    def __call__(self, _prepared) -> tuple:
        import pickle
        import subprocess
        import sys
        import tempfile

        fd, payload = tempfile.mkstemp(prefix="msgraphlint-lsp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(self.request, fh, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc = subprocess.Popen([sys.executable, "-m", "msgraphlint.lsp.child", str(os.getpid()), payload],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
            try:
                while True:
                    try:
                        out, _ = self.proc.communicate(timeout=0.1)
                        break
                    except subprocess.TimeoutExpired:
                        continue
            finally:
                self.kill()
        finally:
            try:
                os.unlink(payload)
            except OSError:
                pass
        if self.proc.returncode != 0:
            raise RuntimeError(f"the analysis process ended with status {self.proc.returncode}")
        return self.finish(pickle.loads(out))

    def kill(self) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


def thread_cpu_seconds(native_id: Optional[int]) -> Optional[float]:
    """CPU time used by one thread of this process (Linux /proc); None where unknown."""
    if native_id is None:
        return None
    try:
        with open(f"/proc/self/task/{native_id}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class Interrupted(BaseException):
    """Raised inside an analysis thread to stop it (BaseException: no ``except
    Exception`` in the linter swallows it)."""


class Cancelled(Interrupted):
    pass


class BudgetExceeded(Interrupted):
    pass


@dataclass
class Outcome:
    """What one analysis produced: findings for exactly ``text`` at ``version``."""

    uri: str
    version: Optional[int]
    text: str
    findings: list = field(default_factory=list)
    error: Optional[str] = None          # the analysis crashed (message for the log)
    error_kind: str = ""                 # the exception's class name
    budget_hit: bool = False
    cancelled: bool = False
    seconds: float = 0.0
    # other files this analysis checked because the document reaches helpers or sub-Cells in
    # them (``runner.run_source(related=...)``): uri -> (their text, their findings)
    related: dict = field(default_factory=dict)


class Job:
    def __init__(self, uri: str, version: Optional[int], text: str, work: Callable[[object], list],
                 previous: Optional["Job"], loop: asyncio.AbstractEventLoop,
                 setup: Optional[Callable[[], object]] = None) -> None:
        self.uri, self.version, self.text = uri, version, text
        self.work = work
        self.setup = setup  # runs first and is never interrupted (imports, configuration)
        self.previous = previous
        self.future: asyncio.Future = loop.create_future()
        self._lock = threading.Lock()
        self._running = False
        self._stop = None              # an interrupt that came before the work started
        self.thread: Optional[threading.Thread] = None
        self.started = 0.0
        self.cpu_base = 0.0

    def interrupt(self, kind) -> bool:
        """Raise ``kind`` in the job's thread if it is still analysing."""
        if not self._lock.acquire(timeout=0.5):
            return False
        try:
            if not self._running or self.thread is None or self.thread.ident is None:
                if self._stop is None and not self.future.done():
                    self._stop = kind
                    return True
                return False
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread.ident), ctypes.py_object(kind))
            if isinstance(self.work, ChildWork):  # after the exception is set: the thread wakes into it
                self.work.kill()
            return True
        finally:
            self._lock.release()

    def run(self, deliver: Callable[["Job", Outcome], None]) -> None:
        outcome = Outcome(self.uri, self.version, self.text)
        started = time.perf_counter()
        try:
            try:
                if self.previous is not None and self.previous.thread is not None:
                    self.previous.thread.join()  # one analysis per document at a time (its scope cache)
                    self.previous = None
                prepared = self.setup() if self.setup is not None else None
                self.cpu_base = thread_cpu_seconds(threading.get_native_id()) or 0.0  # the budget counts from here
                self.started = time.monotonic()
                with self._lock:
                    if self._stop is not None:
                        raise self._stop()
                    self._running = True
                try:
                    got = self.work(prepared)
                    if isinstance(got, tuple):  # (findings, related)
                        outcome.findings, outcome.related = got
                    else:
                        outcome.findings = got
                finally:
                    with self._lock:
                        self._running = False
            except BudgetExceeded:
                outcome.budget_hit = True
            except Cancelled:
                outcome.cancelled = True
            except Exception as exc:  # one bad document must not kill the server
                import traceback
                outcome.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
                outcome.error_kind = type(exc).__name__
        except Interrupted:  # landed just after the work finished: the outcome is complete
            pass
        outcome.seconds = time.perf_counter() - started
        deliver(self, outcome)


class Scheduler:
    """Starts analyses, interrupts superseded and over-budget ones, and hands each
    outcome back to the message loop (``on_done(outcome)`` runs on the loop)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_done: Callable[[Outcome], None],
                 budget_s: float = TIME_BUDGET_S) -> None:
        self.loop = loop
        self.on_done = on_done
        self.budget_s = budget_s
        self.jobs: dict = {}        # uri -> the newest Job
        self.timings: List[float] = []

    def start(self, uri: str, version: Optional[int], text: str, work: Callable[[object], list],
              setup: Optional[Callable[[], object]] = None) -> Job:
        old = self.jobs.get(uri)
        if old is not None and not old.future.done():
            if old.version == version and old.text == text:
                return old  # already analysing exactly this
            old.interrupt(Cancelled)
        job = Job(uri, version, text, work, old, self.loop, setup)
        self.jobs[uri] = job
        job.thread = threading.Thread(target=job.run, args=(self._deliver,), name=f"msgraphlint-analysis {uri}",
                                      daemon=True)
        job.started = time.monotonic()
        job.thread.start()
        if self.budget_s > 0:
            self.loop.call_later(WATCH_EVERY_S, self._watch, job)
        return job

    def cancel(self, uri: str) -> None:
        job = self.jobs.pop(uri, None)
        if job is not None and not job.future.done():
            job.interrupt(Cancelled)

    def _watch(self, job: Job) -> None:
        """Interrupt the job once its thread has used its CPU budget (wall time where the
        thread's CPU time cannot be read)."""
        if job.future.done():
            return
        if not job._running:  # waiting for the older analysis, or in setup: not counted
            self.loop.call_later(WATCH_EVERY_S, self._watch, job)
            return
        if isinstance(job.work, ChildWork):  # the analysis process's CPU time, not the waiting thread's
            used = process_cpu_seconds(job.work.proc.pid if job.work.proc is not None else None)
            used = 0.0 if job.work.proc is None else time.monotonic() - job.started if used is None else used
        else:
            used = thread_cpu_seconds(job.thread.native_id if job.thread is not None else None)
            used = time.monotonic() - job.started if used is None else used - job.cpu_base
        if used < self.budget_s:
            self.loop.call_later(WATCH_EVERY_S, self._watch, job)
        elif job.interrupt(BudgetExceeded):
            log.warning("msgraphlint lsp: analysis of %s (version %s) hit the %g s budget", job.uri, job.version,
                        self.budget_s)

    def _deliver(self, job: Job, outcome: Outcome) -> None:  # analysis thread
        try:
            self.loop.call_soon_threadsafe(self._finish, job, outcome)
        except RuntimeError:  # the loop is closed: the server is exiting
            pass

    def _finish(self, job: Job, outcome: Outcome) -> None:  # message loop
        if not outcome.cancelled and not outcome.budget_hit and outcome.error is None:
            self.timings.append(outcome.seconds)
        if not job.future.done():
            job.future.set_result(outcome)
        if self.jobs.get(job.uri) is job:
            del self.jobs[job.uri]
        self.on_done(outcome)


#: the server collects reference cycles when nothing has been analysed or scheduled for this
#: long, or at once after this many analyses without a pause (continuous typing)
IDLE_GC_S = 0.3
IDLE_GC_EVERY = 32


class IdleCollector:
    """The server's cyclic garbage collection, moved out of the edits' path. With the
    collector on, the allocations of an analysis trigger a full collection every few edits,
    and it traverses everything the server keeps (the scope caches, the trees and summaries
    of the project's modules): +20-30 ms on one edit in three (wav2vec2, 2,350 lines: 55 ms
    without one, 78-85 ms with). Likewise the earlier texts' trees that the per-tree indexes
    evict (``astutil.defer_release``): freeing one costs 1-2 ms in the edit that drops it, so
    they are freed once that edit's diagnostics went out (``poke(analysed=True)``).
    ``install`` turns automatic collection off for the process;
    ``poke`` (after each published analysis and each edit) collects once the server has been
    idle for ``delay`` seconds (no analysis running, none scheduled), or right away after
    ``every`` analyses without a pause, so garbage in cycles never piles up."""

    def __init__(self, loop: asyncio.AbstractEventLoop, busy: Callable[[], bool], delay: float = IDLE_GC_S,
                 every: int = IDLE_GC_EVERY) -> None:
        self.loop = loop
        self.busy = busy
        self.delay = delay
        self.every = every
        self.since = 0          # analyses published since the last collection
        self.collections = 0    # collections made (tests)
        self.installed = False
        self._timer: Optional[asyncio.TimerHandle] = None

    def install(self) -> None:
        import gc

        from ..parse.astutil import defer_release
        gc.disable()
        defer_release()  # the trees an edit's analysis evicts are freed here too, when idle
        self.installed = True

    def poke(self, analysed: bool = False) -> None:
        if not self.installed:
            return
        if analysed:
            # the diagnostics went out: free the trees that analysis evicted now, so at most one
            # analysis's worth is held (a 1 MB document's tree is ~25 MB), not until idle
            from ..parse.astutil import release_deferred
            release_deferred()
            self.since += 1
            if self.since >= self.every:
                self.collect()
                return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(self.delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self.busy():
            self._timer = self.loop.call_later(self.delay, self._fire)
        elif self.since:
            self.collect()

    def collect(self) -> None:
        import gc

        from ..parse.astutil import release_deferred
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        release_deferred()
        gc.collect()
        self.since = 0
        self.collections += 1


class Related:
    """Diagnostics for files that are not open but that an open document reaches (a helper
    module, a sub-Cell's module): the editor shows what ``check`` reports there, computed
    from disk by the analysis of the document that reaches them. A file open in the editor
    publishes its own diagnostics (from its buffer); these are for the others, and they are
    cleared when no open document reaches the file any more.

    ``by_caller``: open document's uri -> {reached file's uri: (text, findings)}, the
    latest analysis of each open document."""

    def __init__(self) -> None:
        self.by_caller: dict = {}

    def update(self, caller: str, related: dict, is_open: Callable[[str], bool]) -> tuple:
        """Record ``caller``'s latest analysis; (uri -> (text, findings) to publish, uris to clear)."""
        old = self.by_caller.get(caller, {})
        self.by_caller[caller] = dict(related)
        publish = {u: v for u, v in related.items() if not is_open(u) and u != caller}
        return publish, self._orphans(set(old) - set(related), is_open)

    def drop(self, caller: str, is_open: Callable[[str], bool]) -> tuple:
        """``caller`` was closed: (uri -> (text, findings) to publish, uris to clear) for
        the files it reached, and for ``caller`` itself when another open document reaches
        it (its diagnostics then come from that document's analysis)."""
        old = self.by_caller.pop(caller, {})
        publish = {}
        mine = self.holder(caller)
        if mine is not None:
            publish[caller] = mine
        return publish, self._orphans(set(old), is_open)

    def holder(self, uri: str):
        """The latest (text, findings) some open document's analysis computed for ``uri``."""
        for related in self.by_caller.values():
            if uri in related:
                return related[uri]
        return None

    def callers_of(self, uri: str) -> List[str]:
        return [c for c, related in self.by_caller.items() if uri in related]

    def _orphans(self, gone: set, is_open: Callable[[str], bool]) -> List[str]:
        return sorted(u for u in gone if not is_open(u) and self.holder(u) is None)
